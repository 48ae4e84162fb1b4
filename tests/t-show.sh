#!/usr/bin/env bash
# t-show.sh — every character the tool shows a person is shown as Python's unicodedata says it should be:
# controls (Cc), format characters (Cf), U+2028 and U+2029 escaped as <U+XXXX>, bytes that are not UTF-8 as <XX>,
# every other code point as it is.
. "$ROOT/tests/kit/lib.sh"
need python3 "apt-get install python3"

# Each code point but NUL (no command-line argument holds one) and the surrogates (no UTF-8 does), in
# arguments of 4,000 code points, through an error message that quotes the argument.
python3 - "$WM" >"$tmp/report" 2>&1 <<'PY' || fail "code points shown otherwise than unicodedata says: $(cat "$tmp/report")"
import subprocess, sys, unicodedata

wm = sys.argv[1]
ESCAPED = {"Cc", "Cf", "Zl", "Zp"}
PREFIX, SUFFIX = b"wheelmatrix: error: invalid value '", b"' for '--color': expected auto, always or never\n"


def shown(arg: bytes) -> bytes:
    """What the tool prints for `arg`, from its error message."""
    p = subprocess.run([wm, "--color", arg, "list"], stdin=subprocess.DEVNULL, capture_output=True,
                       env={"LC_ALL": "C", "NO_COLOR": "1"})
    if p.returncode != 2 or not p.stderr.startswith(PREFIX) or not p.stderr.endswith(SUFFIX):
        raise SystemExit(f"unexpected answer (exit {p.returncode}): {p.stderr[:200]!r}")
    return p.stderr[len(PREFIX):-len(SUFFIX)]


def want(cp: int) -> bytes:
    if unicodedata.category(chr(cp)) in ESCAPED:
        return b"<U+%04X>" % cp
    return chr(cp).encode()


def fits(cps, got: bytes) -> bool:
    """got shows each of cps as want() says; one this Python's Unicode has not assigned (Cn) may be
    escaped too, as a later version's format character."""
    at = 0
    for cp in cps:
        for form in (want(cp), b"<U+%04X>" % cp) if unicodedata.category(chr(cp)) == "Cn" else (want(cp),):
            if got.startswith(form, at):
                at += len(form)
                break
        else:
            return False
    return at == len(got)


points = [cp for cp in range(1, 0x110000) if not 0xD800 <= cp <= 0xDFFF]
bad, escaped = [], 0
for start in range(0, len(points), 4000):
    chunk = points[start:start + 4000]
    got = shown("".join(chr(cp) for cp in chunk).encode())
    if fits(chunk, got):
        escaped += sum(unicodedata.category(chr(cp)) in ESCAPED for cp in chunk)
        continue
    # one at a time, to name each code point shown wrongly
    for cp in chunk:
        if not fits([cp], shown(chr(cp).encode())):
            bad.append(f"U+{cp:04X} ({unicodedata.category(chr(cp))})")
if bad:
    raise SystemExit(", ".join(bad[:40]) + (f" and {len(bad) - 40} more" if len(bad) > 40 else ""))
# Unicode 14.0 has 65 C0/C1 controls and DEL, 161 format characters, and the two separators
if escaped < 65 + 161 + 2 - 1:
    raise SystemExit(f"only {escaped} code points were escaped (unicodedata {unicodedata.unidata_version})")

# bytes that are not UTF-8, each escaped on its own, around a character that is
for arg, expected in [(b"\x9b2J", b"<9B>2J"), (b"\xc2", b"<C2>"), (b"\xe2\x80", b"<E2><80>"),
                      (b"\xc0\xaf", b"<C0><AF>"), (b"\xed\xa0\x80", b"<ED><A0><80>"),
                      (b"\xf4\x90\x80\x80", b"<F4><90><80><80>"), (b"\xff\xfe", b"<FF><FE>"),
                      (b"a\x80\xc3\xa9", b"a<80>\xc3\xa9")]:
    if shown(arg) != expected:
        raise SystemExit(f"{arg!r} is shown as {shown(arg)!r}, not {expected!r}")
PY

finish
