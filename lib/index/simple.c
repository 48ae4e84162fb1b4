/* simple.c — a simple index's project page: PEP 691 JSON (read with formats/json.c) or PEP 503 HTML. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/text.h"
#include "formats/json.h"
#include "index/simple.h"

/*
 * PEP 503 pages are small, regular HTML: one anchor per file whose text is
 * the file name.  The reader is not an HTML parser; it finds `<a ...>text</a>`
 * outside comments, decodes the character references of the text and the
 * attributes it reads, and looks for PEP 629's pypi:repository-version meta
 * tag, which marks a page as a simple index page even when it lists no file.
 */

/* `type` without parameters, compared case-insensitively. */
static bool media_type(const char *content_type, const char *type)
{
	size_t n = strlen(type);
	const char *p = content_type;
	while (*p == ' ')
		p++;
	return strncasecmp(p, type, n) == 0 && (p[n] == '\0' || p[n] == ';' || p[n] == ' ');
}

/* Appends the text of [s, end) with its character references decoded. */
static void decode(struct wm_buf *out, const char *s, const char *end)
{
	static const struct { const char *name; const char *text; } named[] = {
		{ "amp;", "&" }, { "lt;", "<" }, { "gt;", ">" }, { "quot;", "\"" }, { "apos;", "'" }, { "#39;", "'" },
	};
	while (s < end) {
		size_t i;
		if (*s != '&') {
			wm_buf_putc(out, *s++);
			continue;
		}
		for (i = 0; i < WM_ARRAY_SIZE(named); i++) {
			size_t n = strlen(named[i].name);
			if ((size_t)(end - s - 1) >= n && strncmp(s + 1, named[i].name, n) == 0) {
				wm_buf_puts(out, named[i].text);
				s += 1 + n;
				break;
			}
		}
		if (i < WM_ARRAY_SIZE(named))
			continue;
		if (s + 2 < end && s[1] == '#') {
			bool hex = s[2] == 'x' || s[2] == 'X';
			const char *p = s + 2 + hex;
			unsigned long c = 0;
			while (p < end && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)) && c < 0x110000)
				c = c * (hex ? 16 : 10) + (unsigned long)(hex ? wm_text_hex_digit(*p) : *p - '0'), p++;
			if (p < end && *p == ';' && p > s + 2 + hex && c > 0 && c < 0x80) {
				wm_buf_putc(out, (char)c);
				s = p + 1;
				continue;
			}
		}
		wm_buf_putc(out, *s++);
	}
}

/* The value of attribute `name` in the tag [s, end), decoded, or NULL; `present` says whether it is there. */
static char *attribute(struct wm_arena *a, const char *s, const char *end, const char *name, bool *present)
{
	size_t n = strlen(name);
	*present = false;
	while (s < end) {
		const char *k, *v, *vend;
		while (s < end && (isspace((unsigned char)*s) || *s == '/'))
			s++;
		k = s;
		while (s < end && !isspace((unsigned char)*s) && *s != '=' && *s != '>' && *s != '/')
			s++;
		if (s == k) {
			s++;
			continue;
		}
		v = vend = NULL;
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s < end && *s == '=') {
			s++;
			while (s < end && isspace((unsigned char)*s))
				s++;
			if (s < end && (*s == '"' || *s == '\'')) {
				char q = *s++;
				v = s;
				while (s < end && *s != q)
					s++;
				vend = s;
				if (s < end)
					s++;
			} else {
				v = s;
				while (s < end && !isspace((unsigned char)*s) && *s != '>')
					s++;
				vend = s;
			}
		}
		if ((size_t)(s - k) >= n && strncasecmp(k, name, n) == 0 &&
		    (k + n == s || k[n] == '=' || isspace((unsigned char)k[n]))) {
			struct wm_buf b = WM_BUF_INIT;
			char *r;
			*present = true;
			if (!v)
				return wm_arena_strdup(a, "");
			decode(&b, v, vend);
			r = b.oom ? NULL : wm_arena_strdup(a, b.ptr ? b.ptr : "");
			wm_buf_release(&b);
			return r;
		}
	}
	return NULL;
}

/* The file name an anchor names: its text, else the last path segment of its href. */
static char *anchor_name(struct wm_arena *a, const char *text, const char *tend, const char *href)
{
	struct wm_buf b = WM_BUF_INIT;
	char *r = NULL;
	const char *s = text, *e = tend;
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s < e) {
		decode(&b, s, e);
	} else if (href) {
		const char *end = href + strcspn(href, "#?"), *slash = end;
		while (slash > href && slash[-1] != '/')
			slash--;
		wm_buf_add(&b, slash, (size_t)(end - slash));
	}
	if (!b.oom && b.len)
		r = wm_arena_strdup(a, b.ptr);
	wm_buf_release(&b);
	return r;
}

static const char *find_ci(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (; s + n <= end; s++)
		if (strncasecmp(s, needle, n) == 0)
			return s;
	return NULL;
}

static int parse_html(struct wm_index_page *out, struct wm_arena *a, const char *body, size_t len,
	const char **why)
{
	const char *s = body, *end = body + len;
	size_t cap = 0, n = 0;
	bool marked = false;

	/* an upper bound of the anchors */
	for (const char *p = body; (p = find_ci(p, end, "<a")) != NULL; p += 2)
		cap++;
	if (cap && !(out->files = wm_arena_array(a, cap, sizeof(*out->files))))
		return WM_ENOMEM;
	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s)), *gt, *close;
		if (!lt)
			break;
		if (end - lt >= 4 && strncmp(lt, "<!--", 4) == 0) {
			const char *c = find_ci(lt + 4, end, "-->");
			s = c ? c + 3 : end;
			continue;
		}
		if (!(gt = memchr(lt, '>', (size_t)(end - lt))))
			break;
		s = gt + 1;
		if (lt + 2 < gt && tolower((unsigned char)lt[1]) == 'a' && isspace((unsigned char)lt[2])) {
			struct wm_index_file *f;
			bool has_href, yanked;
			char *href = attribute(a, lt + 2, gt, "href", &has_href);
			attribute(a, lt + 2, gt, "data-yanked", &yanked);
			close = find_ci(s, end, "</a");
			if (!close)
				close = end;
			if (n < cap && has_href) {
				f = &out->files[n];
				if ((f->filename = anchor_name(a, s, close, href)) != NULL) {
					f->size = -1;
					f->yanked = yanked;
					n++;
				}
			}
			s = close;
		} else if (lt + 5 < gt && strncasecmp(lt, "<meta", 5) == 0 && isspace((unsigned char)lt[5])) {
			bool has;
			const char *name = attribute(a, lt + 5, gt, "name", &has);
			if (name && strcasecmp(name, "pypi:repository-version") == 0)
				marked = true;
		}
	}
	out->n = n;
	out->api = "html";
	if (n == 0 && !marked) {
		*why = "the HTML page has no links and no pypi:repository-version meta tag: "
			"not a PEP 503 project page";
		return WM_EINVALID;
	}
	return 0;
}

/* ---- PEP 691 JSON -------------------------------------------------------------- */

/* Why a page of `len` bytes was not read (wm_json_parse's WM_EINVALID). */
static const char *json_why(struct wm_arena *a, const struct wm_json_error *e, size_t len)
{
	if (e->budget)
		return wm_arena_printf(a, "the JSON page (%zu KiB) was not read: %s, which no index page needs (one "
			"of nothing but empty objects or arrays would)", len >> 10, e->text);
	return wm_arena_printf(a, "malformed JSON at line %d, column %d: %s", e->line, e->column, e->text);
}

static int parse_json(struct wm_index_page *out, struct wm_arena *a, const char *body, size_t len,
	const char **why)
{
	struct wm_json_error jerr;
	struct wm_json *root, *meta, *api, *files;
	int ret = wm_json_parse(&root, body, len, &jerr);
	size_t n;

	memset(out, 0, sizeof(*out));
	out->api = "json";
	if (ret == WM_EINVALID) {
		*why = json_why(a, &jerr, len);
		return *why ? WM_EINVALID : WM_ENOMEM;
	}
	if (ret < 0)
		return ret;
	ret = WM_EINVALID;
	meta = wm_json_get(root, "meta");
	api = wm_json_get(meta, "api-version");
	files = wm_json_get(root, "files");
	if (!wm_json_is_object(root) || !wm_json_is_string(api) || !wm_json_is_array(files)) {
		*why = "the JSON is not a PEP 691 project page: it needs meta.api-version and a files array";
		goto out;
	}
	if (strncmp(wm_json_str(api), "1.", 2) != 0) {
		*why = wm_arena_printf(a, "unsupported PEP 691 api-version '%s': this version of wheelmatrix reads 1.x",
			wm_json_str(api));
		goto out;
	}
	n = wm_json_size(files);
	if (n && !(out->files = wm_arena_array(a, n, sizeof(*out->files)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct wm_json *f = wm_json_at(files, i), *name = wm_json_get(f, "filename"),
			*size = wm_json_get(f, "size"), *yanked = wm_json_get(f, "yanked");
		struct wm_index_file *o = &out->files[out->n];
		if (!wm_json_is_string(name) || !*wm_json_str(name)) {
			*why = wm_arena_printf(a, "files[%zu] of the PEP 691 page has no filename", i);
			goto out;
		}
		if (!(o->filename = wm_arena_strdup(a, wm_json_str(name)))) {
			ret = WM_ENOMEM;
			goto out;
		}
		o->size = wm_json_is_int(size) && wm_json_int_value(size) >= 0 ? (int64_t)wm_json_int_value(size) : -1;
		/* `yanked` is false, or true, or the reason as a string */
		o->yanked = wm_json_is_true(yanked) || (wm_json_is_string(yanked));
		out->n++;
	}
	ret = 0;
out:
	if (ret == WM_EINVALID && !*why)
		ret = WM_ENOMEM;
	wm_json_free(root);
	return ret;
}

int wm_simple_parse(struct wm_index_page *out, struct wm_arena *a, const char *content_type,
	const char *body, size_t len, const char **why)
{
	static const char *const json_types[] = { "application/vnd.pypi.simple.v1+json",
		"application/vnd.pypi.simple.latest+json" };
	static const char *const html_types[] = { "application/vnd.pypi.simple.v1+html",
		"application/vnd.pypi.simple.latest+html", "text/html" };
	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (!content_type) {
		*why = "the response has no Content-Type";
		return WM_EINVALID;
	}
	for (size_t i = 0; i < WM_ARRAY_SIZE(json_types); i++)
		if (media_type(content_type, json_types[i]))
			return parse_json(out, a, body, len, why);
	for (size_t i = 0; i < WM_ARRAY_SIZE(html_types); i++)
		if (media_type(content_type, html_types[i]))
			return parse_html(out, a, body, len, why);
	*why = wm_arena_printf(a, "unexpected Content-Type '%s': a simple index answers with PEP 691 JSON "
		"or PEP 503 HTML", content_type);
	if (!*why)
		return WM_ENOMEM;
	return WM_EINVALID;
}

int wm_simple_versions(const char ***out, size_t *n, struct wm_arena *a, const char *content_type,
	const char *body, size_t len, const char **why)
{
	struct wm_json_error jerr;
	struct wm_json *root = NULL, *versions;
	int ret;

	*out = NULL;
	*n = 0;
	*why = NULL;
	if (!content_type || !(media_type(content_type, "application/vnd.pypi.simple.v1+json") ||
			media_type(content_type, "application/vnd.pypi.simple.latest+json"))) {
		*why = "the index answered without PEP 691 JSON, which has the project's versions (PEP 700)";
		return WM_EINVALID;
	}
	if ((ret = wm_json_parse(&root, body, len, &jerr)) == WM_EINVALID) {
		*why = json_why(a, &jerr, len);
		return *why ? WM_EINVALID : WM_ENOMEM;
	}
	if (ret < 0)
		return ret;
	versions = wm_json_get(root, "versions");
	ret = WM_EINVALID;
	if (!wm_json_is_array(versions)) {
		*why = "the PEP 691 page has no versions array: the index predates PEP 700 (api-version 1.1)";
		goto out;
	}
	if (wm_json_size(versions) && !(*out = wm_arena_array(a, wm_json_size(versions), sizeof(**out)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < wm_json_size(versions); i++) {
		struct wm_json *v = wm_json_at(versions, i);
		if (!wm_json_is_string(v))
			continue;
		if (!((*out)[*n] = wm_arena_strdup(a, wm_json_str(v)))) {
			ret = WM_ENOMEM;
			goto out;
		}
		(*n)++;
	}
	ret = 0;
out:
	wm_json_free(root);
	return ret;
}
