/* patch-apply.c — applies a variant patch spec (tests/patches/NAME/spec) to a pyproject.toml, the result on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/*
 * usage: patch-apply SPEC PYPROJECT
 *
 * SPEC has one `key = value` a line (the value is the rest of the line,
 * blanks around it dropped, no quoting); blank lines and lines starting
 * with `#` are skipped.  Keys: name, old-name, feature, module-name,
 * python-source, manifest-path, dependency (feature and dependency repeat).
 * Exit 0 with the patched text on stdout; 1 with the diagnostics on stderr
 * (`file:line:column: error: message`) when patching fails; 2 on a bad
 * spec or usage.
 */

#define MAX_ITEMS 64

struct spec {
	struct wm_patch_spec s;
	const char *features[MAX_ITEMS], *dependencies[MAX_ITEMS];
};

static char *trim(char *s)
{
	char *e = s + strlen(s);
	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int add_item(const char **items, size_t *n, const char *value, const char *path, unsigned line)
{
	if (*n == MAX_ITEMS) {
		fprintf(stderr, "%s:%u: too many items (at most %d)\n", path, line, MAX_ITEMS);
		return -1;
	}
	items[(*n)++] = value;
	return 0;
}

/* Parses SPEC's text (modified in place; the spec points into it). */
static int parse_spec(struct spec *sp, char *text, const char *path)
{
	unsigned line = 0;
	memset(sp, 0, sizeof(*sp));
	sp->s.features = sp->features;
	sp->s.dependencies = sp->dependencies;
	for (char *next, *l = text; l && *l; l = next) {
		char *eq, *key, *value;
		line++;
		if ((next = strchr(l, '\n')))
			*next++ = '\0';
		l = trim(l);
		if (*l == '\0' || *l == '#')
			continue;
		if (!(eq = strchr(l, '='))) {
			fprintf(stderr, "%s:%u: expected 'key = value'\n", path, line);
			return -1;
		}
		*eq = '\0';
		key = trim(l);
		value = trim(eq + 1);
		if (!strcmp(key, "name"))
			sp->s.name = value;
		else if (!strcmp(key, "old-name"))
			sp->s.old_name = value;
		else if (!strcmp(key, "module-name"))
			sp->s.module_name = value;
		else if (!strcmp(key, "python-source"))
			sp->s.python_source = value;
		else if (!strcmp(key, "manifest-path"))
			sp->s.manifest_path = value;
		else if (!strcmp(key, "feature")) {
			if (add_item(sp->features, &sp->s.nfeatures, value, path, line) < 0)
				return -1;
		} else if (!strcmp(key, "dependency")) {
			if (add_item(sp->dependencies, &sp->s.ndependencies, value, path, line) < 0)
				return -1;
		} else {
			fprintf(stderr, "%s:%u: unknown key '%s'\n", path, line, key);
			return -1;
		}
	}
	return 0;
}

static void print_errors(const struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++) {
		const struct wm_diag *d = &err->diags[i];
		const char *sev = d->severity == WM_SEV_ERROR ? "error" : d->severity == WM_SEV_WARNING ? "warning" : "note";
		if (d->line)
			fprintf(stderr, "%s:%u:%u: %s: %s\n", d->file ? d->file : "", d->line, d->column, sev, d->message);
		else
			fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : "", sev, d->message);
	}
}

int main(int argc, char **argv)
{
	struct wm_error err;
	struct wm_toml_doc doc;
	struct wm_buf out = WM_BUF_INIT;
	struct spec sp;
	char *spectext = NULL, *text = NULL;
	size_t speclen, len;
	int status = 1;

	wm_error_init(&err);
	memset(&doc, 0, sizeof(doc));
	if (argc != 3) {
		fprintf(stderr, "usage: patch-apply SPEC PYPROJECT\n");
		return 2;
	}
	if (wm_io_read(&spectext, &speclen, argv[1], 1 << 20, &err) < 0 || memchr(spectext, '\0', speclen)) {
		print_errors(&err);
		status = 2;
		goto out;
	}
	if (parse_spec(&sp, spectext, argv[1]) < 0) {
		status = 2;
		goto out;
	}
	if (wm_io_read(&text, &len, argv[2], WM_TOML_MAX_BYTES, &err) < 0 ||
			wm_toml_parse(&doc, argv[2], text, len, &err) < 0 ||
			wm_patch_pyproject(&out, &doc, &sp.s, &err) < 0) {
		print_errors(&err);
		goto out;
	}
	if (fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		perror("patch-apply: stdout");
		goto out;
	}
	status = 0;
out:
	wm_buf_release(&out);
	wm_toml_release(&doc);
	wm_error_release(&err);
	free(text);
	free(spectext);
	return status;
}
