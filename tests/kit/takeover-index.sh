# takeover-index.sh — sourced by the tests of init against tests/takeover/'s releases (after
# tests/kit/lib.sh and tests/kit/python-env.sh).
# shellcheck shell=bash
# shellcheck disable=SC2154  # py comes from tests/kit/python-env.sh, which the test sources first
#
#   takeover_index WWW   lays out each release of tests/takeover/*/release.json as a simple index
#                        below WWW: WWW/simple/NAME/index.json, its page as PyPI gave it (PEP 691
#                        JSON), and WWW/simple/NAME/index.html, the same files as PEP 503 HTML; the
#                        tests serve WWW with nginx (tests/kit/plan-servers.sh), whose configuration
#                        answers /html/NAME/ with the HTML page.
takeover_index() {
	local www=$1 rel
	for rel in "$ROOT"/tests/takeover/*/release.json; do
		"$py" - "$rel" "$www/simple" <<'PY' || fatal "cannot lay out the index of $rel"
import html, json, os, re, sys
page = json.load(open(sys.argv[1]))
d = os.path.join(sys.argv[2], re.sub(r"[-_.]+", "-", page["name"]).lower())
os.makedirs(d, exist_ok=True)
json.dump(page, open(os.path.join(d, "index.json"), "w"))
with open(os.path.join(d, "index.html"), "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    for file in page["files"]:
        f.write('<a href="%s#sha256=%s">%s</a><br>\n' % (html.escape(file["url"]), file["hashes"]["sha256"],
                                                         html.escape(file["filename"])))
    f.write("</body></html>\n")
PY
	done
}
