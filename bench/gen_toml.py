#!/usr/bin/env python3
"""gen_toml.py — writes a pyproject.toml of exactly SIZE bytes that is mostly one KIND of TOML."""

import argparse
import sys

HEAD = ('[build-system]\nrequires = ["maturin>=1.0,<2.0"]\nbuild-backend = "maturin"\n\n'
        '[project]\nname = "bench"\nversion = "1.0.0"\n\n[tool.bench]\n')

# What each kind repeats: the densest form of it, lines of about 100 bytes (so that a message
# quoting a line stays short).
KINDS = {
    "array": "one flat array of integers: x = [1,1,1,...]",
    "keys": "key/value lines: k1 = 1",
    "tables": "table headers: [t1]",
    "inline": "an array of empty inline tables: x = [{},{},...]",
    "strings": "an array of short strings: x = [\"abcdefghijklmnopqrstuvwxyz\",...]",
    "long-string": "one string as long as the file: x = \"aaa...\"",
}


def body(kind, room):
    """The text after HEAD, exactly `room` bytes."""
    if kind in ("array", "inline", "strings"):
        item = {"array": "1,", "inline": "{},", "strings": '"abcdefghijklmnopqrstuvwxyz",'}[kind]
        per_line = 100 // len(item)
        out, n = ["x = [\n"], len("x = [\n") + len("]\n")
        while n + len(item) * per_line + 1 <= room:
            out.append(item * per_line + "\n")
            n += len(item) * per_line + 1
        while n + len(item) <= room:
            out.append(item)
            n += len(item)
        out.append("]\n")
        text = "".join(out)
    elif kind in ("keys", "tables"):
        out, n, i = [], 0, 0
        while True:
            line = f"k{i} = 1\n" if kind == "keys" else f"[t{i}]\n"
            if n + len(line) > room:
                break
            out.append(line)
            n += len(line)
            i += 1
        text = "".join(out)
    else:
        text = 'x = "' + "a" * (room - len('x = ""\n')) + '"\n'
    # pad to the exact size with a comment line's worth of spaces before the last newline
    return text[:-1] + " " * (room - len(text)) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(" — ", 1)[1])
    ap.add_argument("kind", choices=sorted(KINDS))
    ap.add_argument("size", type=int, help="bytes")
    ap.add_argument("out", nargs="?", help="output file (default: standard output)")
    args = ap.parse_args()
    text = HEAD + body(args.kind, args.size - len(HEAD))
    assert len(text.encode()) == args.size, (len(text), args.size)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
