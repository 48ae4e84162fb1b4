# index-pages.py — the Pages job of strategy index: lays out or updates one backend's static simple index.
#
# usage: python3 index-pages.py --site SITE --backend ID --project NAME [--files-url URL]
#                               [--previous URL] FILE...
#        python3 index-pages.py --variants --site SITE [--backend ID] --project NAME [--files-url URL]
#                               [--previous URL] FILE...
#
# Writes, for the wheels and sdists FILE... of project NAME (each file's name must parse as a wheel
# or an sdist of NAME, compared normalized; anything else is an error):
#   SITE/ID/index.html              the root (PEP 503): a link to each project of SITE/ID/
#   SITE/ID/index.json              the same as PEP 691 JSON
#   SITE/ID/NAME/index.html         PEP 503: <a href="URL#sha256=HEX">FILE</a> per file, with
#                                   data-requires-python from the file's METADATA or PKG-INFO
#   SITE/ID/NAME/index.json         PEP 691 (api-version 1.1, PEP 700): name, versions, files[]
#                                   with filename, url, hashes.sha256, requires-python and size
# where NAME is the normalized name.  A FILE's URL is URL/FILE with --files-url (release assets,
# https://github.com/O/R/releases/download/v1.0.0), else FILE is copied into SITE/ID/NAME/ and
# linked relatively.  The files of earlier versions stay: the entries of an existing
# SITE/ID/NAME/index.json are kept, and with --previous URL (the deployed site) those of
# URL/ID/NAME/index.json first, its relative files downloaded and checked against their sha256
# (a 404 means no index yet; any other failure stops the job).  A file of the same name is
# replaced.  Output is sorted by filename; each file is written to a temporary name and renamed.
#
# --variants (strategy variants, wheel variants of PEP 825): the index of all the variants of a
# release, SITE/NAME/ (SITE/ID/NAME/ with --backend), also takes variant wheels
# (NAME-VERSION[-BUILD]-PY-ABI-PLATFORM-LABEL.whl, LABEL of [0-9a-z_.], "null" for the null
# variant) and each version's NAME-VERSION-variants.json (variantlib generate-index-json), listed
# like the other files (without requires-python).  A variant wheel must come with the
# variants.json of its version among FILE..., which must give its label the properties of the
# wheel's *.dist-info/variant.json.  Without --variants a variant wheel is refused.
# Exit status: 0, 1 on an error (a "::error::" line), 2 on a bad argument.
import argparse, email.parser, hashlib, html, json, os, re, shutil, sys, tarfile, tempfile
import urllib.error, urllib.parse, urllib.request, zipfile

API = "1.1"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
MAX_METADATA = 1 << 20
MAX_INDEX = 64 << 20


class Failure(Exception):
    pass


def fail(message):
    raise Failure(message)


NAME = re.compile(r"[a-z0-9]|[a-z0-9][a-z0-9._-]*[a-z0-9]", re.IGNORECASE)
BACKEND = re.compile(r"[a-z0-9][a-z0-9_-]*", re.IGNORECASE)
PEP440 = re.compile(r"""v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z\d]+(?:[-_.][a-z\d]+)*))?""", re.VERBOSE | re.IGNORECASE)
HEX64 = re.compile(r"[0-9a-f]{64}")
LABEL = re.compile(r"[0-9a-z_.]+")
VARIANTS_JSON = "-variants.json"


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pep440(version):
    """The normalized form of a PEP 440 version, None if it is not one."""
    m = PEP440.fullmatch(version.strip())
    if not m:
        return None
    v = m.groupdict()
    out = "%d!" % int(v["epoch"]) if v["epoch"] and int(v["epoch"]) else ""
    out += ".".join(str(int(n)) for n in v["release"].split("."))
    if v["pre"]:
        out += {"alpha": "a", "a": "a", "beta": "b", "b": "b"}.get(v["pre"].lower(), "rc") + str(int(v["pre_n"] or 0))
    if v["post_n1"] or v["post"]:
        out += ".post" + str(int(v["post_n1"] or v["post_n2"] or 0))
    if v["dev"]:
        out += ".dev" + str(int(v["dev_n"] or 0))
    if v["local"]:
        out += "+" + ".".join(re.split(r"[-_.]", v["local"].lower()))
    return out


def safe_filename(filename, where):
    """Refuses a name that could leave its directory, break the HTML or the terminal."""
    if (not filename or "/" in filename or "\\" in filename or ".." in filename or filename.startswith(".")
            or any(c in filename for c in "\"'`<>&")
            or any(ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or c in "\u2028\u2029\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" for c in filename)):
        fail("%s: %r is not a plain file name" % (where, filename))


def wheel_label(filename):
    """The variant label of a wheel's name (PEP 825), None for a wheel without one."""
    parts = filename[:-4].split("-")
    if len(parts) == 7 or (len(parts) == 6 and parts[2][:1] and not parts[2][0].isdigit()):
        return parts[-1]
    return None


def parse_filename(filename, project, where, variants=False):
    """(kind, version) of a wheel, sdist or (with variants) variants.json of project, whose normalized name is given."""
    safe_filename(filename, where)
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        if len(parts) not in (5, 6, 7) or not all(parts):
            fail("%s: %s is not a wheel's name (NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl)" % (where, filename))
        label = wheel_label(filename)
        if label is not None:
            if not variants:
                fail("%s: %s is a variant wheel (PEP 825, label %r): only an index of strategy variants (--variants) lists one"
                     % (where, filename, label))
            if len(parts) == 7 and not parts[2][0].isdigit():
                fail("%s: %s is not a wheel's name (a build tag starts with a digit)" % (where, filename))
            if not LABEL.fullmatch(label):
                fail("%s: %s: the variant label %r is not of 0-9, a-z, '_' and '.'" % (where, filename, label))
        name, version, kind = parts[0], parts[1], "bdist_wheel"
    elif variants and filename.endswith(VARIANTS_JSON):
        name, _, version = filename[:-len(VARIANTS_JSON)].rpartition("-")
        kind = "variants"
    else:
        for ext in (".tar.gz", ".zip"):
            if filename.endswith(ext):
                stem = filename[:-len(ext)]
                break
        else:
            fail("%s: %s is neither a wheel (.whl) nor an sdist (.tar.gz)" % (where, filename))
        name, _, version = stem.rpartition("-")
        kind = "sdist"
    if not NAME.fullmatch(name) or normalize(name) != project:
        fail("%s: %s is not a file of %s" % (where, filename, project))
    if pep440(version) is None:
        fail("%s: %s: %r is not a PEP 440 version" % (where, filename, version))
    return kind, version


def read_member(archive, member, size, where):
    if size > MAX_METADATA:
        fail("%s: %s is larger than %d bytes" % (where, member, MAX_METADATA))
    data = archive(member)
    return data.read(MAX_METADATA + 1)[:MAX_METADATA]


def metadata(path, filename, kind, version, project):
    """The Requires-Python of the file's core metadata (None without one), after checking its name and version."""
    where = filename
    if kind == "variants":
        variants_file(path, filename)
        return None
    try:
        if kind == "bdist_wheel":
            with zipfile.ZipFile(path) as z:
                found = [i for i in z.infolist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", i.filename)]
                if len(found) != 1:
                    fail("%s: the wheel holds %d .dist-info/METADATA files, not one" % (where, len(found)))
                raw = read_member(z.open, found[0].filename, found[0].file_size, where)
        elif filename.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                found = [i for i in z.infolist() if re.fullmatch(r"[^/]+/PKG-INFO", i.filename)]
                if len(found) != 1:
                    fail("%s: the sdist holds %d top-level PKG-INFO files, not one" % (where, len(found)))
                raw = read_member(z.open, found[0].filename, found[0].file_size, where)
        else:
            with tarfile.open(path, "r:gz") as t:
                found = [m for m in t.getmembers() if m.isfile() and re.fullmatch(r"[^/]+/PKG-INFO", m.name)]
                if len(found) != 1:
                    fail("%s: the sdist holds %d top-level PKG-INFO files, not one" % (where, len(found)))
                raw = read_member(t.extractfile, found[0], found[0].size, where)
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as e:
        fail("%s: cannot read its metadata: %s" % (where, e))
    meta = email.parser.HeaderParser().parsestr(raw.decode("utf-8", "replace"))
    if normalize(meta.get("Name", "")) != project:
        fail("%s: its metadata names %r, not %s" % (where, meta.get("Name"), project))
    if pep440(meta.get("Version", "")) != pep440(version):
        fail("%s: its metadata says version %r, its name %s" % (where, meta.get("Version"), version))
    requires = meta.get("Requires-Python")
    return " ".join(requires.split()) if requires else None


def read_json(raw, where):
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s: not JSON: %s" % (where, e))
    if (not isinstance(doc, dict) or not isinstance(doc.get("variants"), dict)
            or not all(isinstance(k, str) and LABEL.fullmatch(k) and isinstance(v, dict) for k, v in doc["variants"].items())):
        fail("%s: not variant metadata (PEP 825): no object 'variants' of labels" % where)
    return doc


def variants_file(path, filename):
    """The variant metadata of a NAME-VERSION-variants.json."""
    if os.path.getsize(path) > MAX_METADATA:
        fail("%s: larger than %d bytes" % (filename, MAX_METADATA))
    with open(path, "rb") as f:
        return read_json(f.read(), filename)


def wheel_variant(path, filename):
    """The variant metadata of a variant wheel: its *.dist-info/variant.json."""
    try:
        with zipfile.ZipFile(path) as z:
            found = [i for i in z.infolist() if re.fullmatch(r"[^/]+\.dist-info/variant\.json", i.filename)]
            if len(found) != 1:
                fail("%s: the variant wheel holds %d .dist-info/variant.json files, not one" % (filename, len(found)))
            raw = read_member(z.open, found[0].filename, found[0].file_size, filename)
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        fail("%s: cannot read its variant.json: %s" % (filename, e))
    return read_json(raw, filename + ": " + found[0].filename)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_url(base, filename):
    quoted = urllib.parse.quote(filename, safe="")
    return base + "/" + quoted if base else quoted


def relative_name(url):
    """The file name a relative URL of an index names, None for an absolute URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    if parts.query or parts.fragment or "/" in parts.path:
        fail("%s: a relative file URL is a file name in the project's directory" % url)
    return urllib.parse.unquote(parts.path)


def check_entries(doc, project, where, variants=False):
    """The files of a PEP 691 project page, checked; relative URLs kept as they are."""
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
        fail("%s: not a PEP 691 project page (no files list)" % where)
    api = doc.get("meta", {}).get("api-version") if isinstance(doc.get("meta"), dict) else None
    if not isinstance(api, str) or not api.startswith("1."):
        fail("%s: api-version %r, not 1.x" % (where, api))
    if not isinstance(doc.get("name"), str) or normalize(doc["name"]) != project:
        fail("%s: the page of %r, not %s" % (where, doc.get("name"), project))
    entries = {}
    for f in doc["files"]:
        if not isinstance(f, dict) or not isinstance(f.get("filename"), str) or not isinstance(f.get("url"), str):
            fail("%s: a file without a filename or url" % where)
        parse_filename(f["filename"], project, where, variants)
        hashes = f.get("hashes")
        if not isinstance(hashes, dict) or not isinstance(hashes.get("sha256"), str) or not HEX64.fullmatch(hashes["sha256"]):
            fail("%s: %s has no sha256 hash" % (where, f["filename"]))
        url = f["url"]
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("", "http", "https") or any(ord(c) <= 0x20 or ord(c) == 0x7f for c in url):
            fail("%s: %s: the URL %r is not http(s)" % (where, f["filename"], url))
        name = relative_name(url)
        if name is not None and name != f["filename"]:
            fail("%s: %s: the relative URL %r names another file" % (where, f["filename"], url))
        entry = {"filename": f["filename"], "url": url, "hashes": {"sha256": hashes["sha256"]}}
        if isinstance(f.get("requires-python"), str):
            entry["requires-python"] = f["requires-python"]
        if isinstance(f.get("size"), int) and not isinstance(f.get("size"), bool) and f["size"] >= 0:
            entry["size"] = f["size"]
        if isinstance(f.get("upload-time"), str):
            entry["upload-time"] = f["upload-time"]
        if isinstance(f.get("yanked"), (bool, str)) and f.get("yanked") is not False:
            entry["yanked"] = f["yanked"]
        entries[f["filename"]] = entry
    return entries


def fetch(url, accept):
    """The body at url, None on a 404; any other failure is an error."""
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "wheelmatrix-index-pages"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read(MAX_INDEX + 1)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        fail("%s: HTTP %d %s" % (url, e.code, e.reason))
    except (urllib.error.URLError, OSError, ValueError) as e:
        fail("%s: %s" % (url, getattr(e, "reason", e)))
    if len(body) > MAX_INDEX:
        fail("%s: larger than %d bytes" % (url, MAX_INDEX))
    return body


def write_atomic(path, data):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def copy_atomic(src, path):
    with open(src, "rb") as f:
        data = f.read()
    write_atomic(path, data)


def previous_entries(base, backend, project, directory, variants=False):
    """The files of the deployed index, their relative files downloaded into directory."""
    index_url = "%s/%s/%s/" % (base, backend, project) if backend else "%s/%s/" % (base, project)
    body = fetch(index_url + "index.json", JSON_TYPE)
    if body is None:
        print("%sindex.json: none yet" % index_url)
        return {}
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%sindex.json: not JSON: %s" % (index_url, e))
    entries = check_entries(doc, project, index_url + "index.json", variants)
    for name, entry in sorted(entries.items()):
        if relative_name(entry["url"]) is None:
            continue
        url = urllib.parse.urljoin(index_url, entry["url"])
        data = fetch(url, "*/*")
        if data is None:
            fail("%s: 404, but %sindex.json lists it" % (url, index_url))
        if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
            fail("%s: its sha256 is not the one %sindex.json gives" % (url, index_url))
        write_atomic(os.path.join(directory, name), data)
    print("%sindex.json: %d files kept" % (index_url, len(entries)))
    return entries


def project_html(name, entries):
    lines = ["<!DOCTYPE html>", "<html>", "<head>",
             '<meta name="pypi:repository-version" content="%s">' % API,
             "<title>Links for %s</title>" % html.escape(name), "</head>", "<body>",
             "<h1>Links for %s</h1>" % html.escape(name)]
    for e in entries:
        attrs = ' href="%s"' % html.escape(e["url"] + "#sha256=" + e["hashes"]["sha256"])
        if "requires-python" in e:
            attrs += ' data-requires-python="%s"' % html.escape(e["requires-python"])
        if "yanked" in e:
            attrs += ' data-yanked="%s"' % html.escape(e["yanked"] if isinstance(e["yanked"], str) else "")
        lines.append("<a%s>%s</a><br>" % (attrs, html.escape(e["filename"])))
    lines += ["</body>", "</html>", ""]
    return "\n".join(lines).encode("utf-8")


def root_pages(names):
    lines = ["<!DOCTYPE html>", "<html>", "<head>",
             '<meta name="pypi:repository-version" content="%s">' % API,
             "<title>Simple index</title>", "</head>", "<body>"]
    for n in names:
        lines.append('<a href="%s/">%s</a><br>' % (html.escape(urllib.parse.quote(n)), html.escape(n)))
    lines += ["</body>", "</html>", ""]
    doc = {"meta": {"api-version": API}, "projects": [{"name": n} for n in names]}
    return "\n".join(lines).encode("utf-8"), (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode("utf-8")


def check_variants(new, project):
    """Each new variant wheel against its version's variants.json among the new files."""
    docs = {}
    for filename, (path, _) in new.items():
        kind, version = parse_filename(filename, project, path, True)
        if kind == "variants":
            if pep440(version) in docs:
                fail("%s: a second variants.json of version %s" % (filename, version))
            docs[pep440(version)] = (filename, variants_file(path, filename))
    for filename, (path, _) in sorted(new.items()):
        label = wheel_label(filename) if filename.endswith(".whl") else None
        if label is None:
            continue
        version = pep440(parse_filename(filename, project, path, True)[1])
        if version not in docs:
            fail("%s: a variant wheel, without the NAME-VERSION-variants.json of version %s among the files" % (filename, version))
        json_name, doc = docs[version]
        own = wheel_variant(path, filename)["variants"]
        if list(own) != [label]:
            fail("%s: its variant.json describes the variants %s, not %r alone" % (filename, sorted(own), label))
        if label not in doc["variants"]:
            fail("%s: %s does not list its label %r" % (filename, json_name, label))
        if doc["variants"][label] != own[label]:
            fail("%s: %s gives label %r other properties than its variant.json" % (filename, json_name, label))


def main(argv):
    p = argparse.ArgumentParser(prog="index-pages.py", description="Lays out or updates one backend's static simple index (PEP 503 and PEP 691).")
    p.add_argument("--site", required=True, help="the site's directory")
    p.add_argument("--backend", help="the backend's identifier: the index is SITE/ID/ (without it, with --variants: SITE/)")
    p.add_argument("--variants", action="store_true",
                   help="the index of strategy variants: also variant wheels (PEP 825) and NAME-VERSION-variants.json")
    p.add_argument("--project", required=True, help="the project's name")
    p.add_argument("--files-url", help="where the files are served (URL/FILE); without it they are copied into the index")
    p.add_argument("--previous", help="the deployed site, whose index of this backend is kept")
    p.add_argument("files", nargs="+", metavar="FILE", help="wheels and sdists of the project (with --variants: also variant wheels and NAME-VERSION-variants.json)")
    args = p.parse_args(argv)
    if args.backend is None and not args.variants:
        p.error("--backend is required (without --variants)")
    if args.backend is not None and not BACKEND.fullmatch(args.backend):
        p.error("--backend %r: letters, digits, '-' and '_', starting with a letter or digit" % args.backend)
    if not NAME.fullmatch(args.project):
        p.error("--project %r is not a valid project name" % args.project)
    for option in ("files_url", "previous"):
        url = getattr(args, option)
        if url is None:
            continue
        parts = urllib.parse.urlsplit(url)
        if (parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment
                or any(ord(c) <= 0x20 or ord(c) == 0x7f or c in "\"'<>\\`" for c in url)):
            p.error("--%s %r is not an http(s) URL" % (option.replace("_", "-"), url))
        setattr(args, option, url.rstrip("/"))

    project = normalize(args.project)
    backend_dir = os.path.join(args.site, args.backend) if args.backend is not None else args.site
    directory = os.path.join(backend_dir, project)

    new = {}
    for path in args.files:
        filename = os.path.basename(path)
        kind, version = parse_filename(filename, project, path, args.variants)
        if filename in new:
            fail("%s: given twice" % filename)
        if not os.path.isfile(path):
            fail("%s: not a file" % path)
        entry = {"filename": filename, "url": file_url(args.files_url, filename),
                 "hashes": {"sha256": sha256(path)}, "size": os.path.getsize(path)}
        requires = metadata(path, filename, kind, version, project)
        if requires:
            entry["requires-python"] = requires
        new[filename] = (path, entry)
    if args.variants:
        check_variants(new, project)

    os.makedirs(directory, exist_ok=True)
    entries = {}
    if args.previous:
        entries.update(previous_entries(args.previous, args.backend, project, directory, args.variants))
    existing = os.path.join(directory, "index.json")
    if os.path.exists(existing):
        try:
            with open(existing, "rb") as f:
                doc = json.loads(f.read().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            fail("%s: %s" % (existing, e))
        entries.update(check_entries(doc, project, existing, args.variants))
    for name, entry in entries.items():
        if name not in new and relative_name(entry["url"]) is not None and not os.path.isfile(os.path.join(directory, name)):
            fail("%s lists %s, which is not in %s" % (existing, name, directory))
    for filename, (path, entry) in sorted(new.items()):
        if args.files_url is None:
            copy_atomic(path, os.path.join(directory, filename))
        elif os.path.isfile(os.path.join(directory, filename)):
            os.unlink(os.path.join(directory, filename))  # an earlier copy, now served from URL
        entries[filename] = entry

    files = [entries[n] for n in sorted(entries)]
    versions = sorted({pep440(parse_filename(e["filename"], project, existing, args.variants)[1]) for e in files})
    doc = {"meta": {"api-version": API}, "name": project, "versions": versions, "files": files}
    write_atomic(existing, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    write_atomic(os.path.join(directory, "index.html"), project_html(project, files))
    names = sorted(n for n in os.listdir(backend_dir) if os.path.isfile(os.path.join(backend_dir, n, "index.json")))
    root_html, root_json = root_pages(names)
    write_atomic(os.path.join(backend_dir, "index.html"), root_html)
    write_atomic(os.path.join(backend_dir, "index.json"), root_json)
    print("%s/: %d files of %s (%d new)" % (directory, len(files), project, len(new)))


try:
    main(sys.argv[1:])
except Failure as e:
    print("::error::" + str(e))
    sys.exit(1)
except OSError as e:
    print("::error::%s" % e)
    sys.exit(1)
