#!/usr/bin/env python3
"""no-controls.py — checks that a file holds nothing a terminal acts on, as Python's unicodedata sees it.

usage: no-controls.py FILE

Fails, naming the first one and where it is, on a byte that is not UTF-8, a control (category Cc) other
than a line feed or a tab, a format character (Cf: the bidi controls, the zero-width characters, U+FEFF,
...) or a line or paragraph separator (Zl, Zp).
"""
import sys
import unicodedata


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2])
    data = open(sys.argv[1], "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        sys.exit(f"not UTF-8 at byte {e.start}: {data[max(0, e.start - 20):e.start + 20]!r}")
    for i, ch in enumerate(text):
        if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            sys.exit(f"U+{ord(ch):04X} ({unicodedata.category(ch)}) at character {i}: {text[max(0, i - 30):i + 30]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
