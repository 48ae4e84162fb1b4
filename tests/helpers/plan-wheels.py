"""plan-wheels.py REPORT FILE=STATE... [--unexpected FILE...]: checks `plan --format json`'s one
distribution: its wheels are exactly the FILEs, each in its STATE (present, missing), and the files
it lists as unexpected are exactly those after --unexpected (none when not given).  Exit 1 with
both sides printed when either differs."""
import json
import sys


def main(argv):
    report, rest = argv[0], argv[1:]
    cut = rest.index("--unexpected") if "--unexpected" in rest else len(rest)
    want = dict(a.split("=", 1) for a in rest[:cut])
    want_unexpected = rest[cut + 1:]
    d = json.load(open(report))["distributions"][0]
    got = {a["file"]: a["state"] for a in d["artifacts"] if a["kind"] == "wheel"}
    unexpected = d.get("unexpected", [])
    if got != want or unexpected != want_unexpected:
        print("wheels:    ", got, "\nwanted:    ", want, file=sys.stderr)
        print("unexpected:", unexpected, "\nwanted:    ", want_unexpected, file=sys.stderr)
        return 1
    return 0


sys.exit(main(sys.argv[1:]))
