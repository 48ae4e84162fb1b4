/* yamltree.c — build tool: writes templates-tree.c, the YAML templates parsed at build time into static trees. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "formats/yaml.h"
#include "model/catalog.h"
#include "util/io.h"

/*
 * usage: yamltree DIR NAME... > templates-tree.c
 *
 * Each DIR/NAME is parsed by the library's own reader (wm_yaml_parse, with
 * the limits every embedded template is read with) and written out as
 * static arrays of struct wm_node that hold the same tree: the same nodes,
 * positions, tags, text and weights, an alias still the anchored node itself.
 * wm_catalog_template_parse hands these out instead of parsing the embedded
 * text again at every start: the parse is the same, done once, here.
 */

struct nodes {
	const struct wm_node **v;   /* in the order written */
	size_t n, cap;
	const struct wm_node **slot;  /* open addressing: node -> its index + 1 in idx */
	size_t *idx, nslot;
	size_t npairs, nitems;
};

static void oom(void)
{
	fputs("yamltree: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	if (!(p = realloc(p, size ? size : 1)))
		oom();
	return p;
}

static size_t hash_ptr(const void *p, size_t nslot)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= (uintptr_t)0x9e3779b97f4a7c15u;
	return (size_t)(x >> 7) & (nslot - 1);
}

/* The index of `n`, and whether it was seen before. */
static size_t index_of(struct nodes *t, const struct wm_node *n, int *seen)
{
	size_t h;
	if (t->n * 2 >= t->nslot) {
		const struct wm_node **old = t->slot;
		size_t *oldidx = t->idx, oldn = t->nslot;
		t->nslot = t->nslot ? t->nslot * 2 : 1024;
		t->slot = calloc(t->nslot, sizeof(*t->slot));
		t->idx = calloc(t->nslot, sizeof(*t->idx));
		if (!t->slot || !t->idx)
			oom();
		for (size_t i = 0; i < oldn; i++)
			if (old[i]) {
				for (h = hash_ptr(old[i], t->nslot); t->slot[h]; h = (h + 1) & (t->nslot - 1))
					;
				t->slot[h] = old[i];
				t->idx[h] = oldidx[i];
			}
		free(old);
		free(oldidx);
	}
	for (h = hash_ptr(n, t->nslot); t->slot[h]; h = (h + 1) & (t->nslot - 1))
		if (t->slot[h] == n) {
			*seen = 1;
			return t->idx[h];
		}
	*seen = 0;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->slot[h] = n;
	t->idx[h] = t->n;
	t->v[t->n] = n;
	return t->n++;
}

/* Every node reachable from `n`, each once, parents before children. */
static void collect(struct nodes *t, const struct wm_node *n)
{
	int seen;
	index_of(t, n, &seen);
	if (seen)
		return;
	if (n->type == WM_NODE_SEQ) {
		t->nitems += n->n;
		for (size_t i = 0; i < n->n; i++)
			collect(t, n->items[i]);
	} else if (n->type == WM_NODE_MAP) {
		t->npairs += n->n;
		for (size_t i = 0; i < n->n; i++) {
			collect(t, n->pairs[i].key);
			collect(t, n->pairs[i].value);
		}
	}
}

/* A C string literal of `len` bytes, or NULL. */
static void write_string(FILE *out, const char *s, size_t len)
{
	if (!s) {
		fputs("NULL", out);
		return;
	}
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '?')
			fputs("\\?", out);  /* strict C11 still has trigraphs */
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\%03o", c);  /* three digits: a following digit cannot join it */
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static size_t find(struct nodes *t, const struct wm_node *n)
{
	int seen;
	return index_of(t, n, &seen);
}

static int write_tree(FILE *out, size_t k, const char *dir, const char *name)
{
	static const struct wm_yaml_limits limits = WM_TEMPLATE_LIMITS;
	struct wm_error err;
	struct wm_doc doc;
	struct nodes t = { 0 };
	char path[4096], file[256];
	char *text = NULL;
	size_t len = 0, ip = 0, ii = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(file, sizeof(file), "templates/%s", name);
	wm_error_init(&err);
	if (wm_io_read(&text, &len, path, limits.max_bytes, &err) < 0 ||
	    wm_yaml_parse(&doc, file, text, len, &limits, &err) < 0 || !doc.root) {
		for (size_t i = 0; i < err.ndiags; i++)
			fprintf(stderr, "yamltree: %s:%u:%u: %s\n", err.diags[i].file ? err.diags[i].file : path,
				err.diags[i].line, err.diags[i].column, err.diags[i].message);
		if (!err.ndiags)
			fprintf(stderr, "yamltree: %s: an empty document\n", path);
		return -1;
	}
	collect(&t, doc.root);

	fprintf(out, "\n/* %s: %zu nodes */\n", file, t.n);
	fprintf(out, "static struct wm_node n%zu[%zu];\n", k, t.n);
	fprintf(out, "static struct wm_pair p%zu[%zu] = {\n", k, t.npairs ? t.npairs : 1);
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i]->type == WM_NODE_MAP)
			for (size_t j = 0; j < t.v[i]->n; j++)
				fprintf(out, "\t{ &n%zu[%zu], &n%zu[%zu] },\n", k, find(&t, t.v[i]->pairs[j].key),
					k, find(&t, t.v[i]->pairs[j].value));
	fputs("};\n", out);
	/* a template without sequences (runners.yaml) gets no array: an unused one is a warning */
	if (t.nitems) {
		fprintf(out, "static struct wm_node *i%zu[%zu] = {\n", k, t.nitems);
		for (size_t i = 0; i < t.n; i++)
			if (t.v[i]->type == WM_NODE_SEQ)
				for (size_t j = 0; j < t.v[i]->n; j++)
					fprintf(out, "\t&n%zu[%zu],\n", k, find(&t, t.v[i]->items[j]));
		fputs("};\n", out);
	}
	fprintf(out, "static struct wm_node n%zu[%zu] = {\n", k, t.n);
	for (size_t i = 0; i < t.n; i++) {
		const struct wm_node *n = t.v[i];
		fprintf(out, "\t{ %d, %d, %u, %u, %u, %u, ", (int)n->type, (int)n->style, n->line, n->column,
			n->end_line, n->end_column);
		write_string(out, n->tag, n->tag ? strlen(n->tag) : 0);
		fputs(", ", out);
		write_string(out, n->text, n->len);
		fprintf(out, ", %zu, ", n->len);
		if (n->type == WM_NODE_SEQ)
			fprintf(out, "i%zu + %zu, NULL", k, ii), ii += n->n;
		else if (n->type == WM_NODE_MAP)
			fprintf(out, "NULL, p%zu + %zu", k, ip), ip += n->n;
		else
			fputs("NULL, NULL", out);
		fprintf(out, ", %zu, UINT64_C(%llu), %d },\n", n->n, (unsigned long long)n->weight, (int)n->flow);
	}
	fputs("};\n", out);
	wm_yaml_release(&doc);
	wm_error_release(&err);
	free(text);
	free(t.v);
	free(t.slot);
	free(t.idx);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *out = stdout;
	int n = argc - 2;

	if (argc < 2) {
		fprintf(stderr, "usage: yamltree DIR NAME... > templates-tree.c\n");
		return 2;
	}
	fputs("/* templates-tree.c — generated by templates/yamltree.c from the YAML files of templates/; do not edit. */\n"
		"#include <stdint.h>\n"
		"#include <string.h>\n"
		"#include \"formats/yaml.h\"\n"
		"#include \"model/catalog.h\"\n", out);
	for (int i = 0; i < n; i++)
		if (write_tree(out, (size_t)i, argv[1], argv[i + 2]) < 0)
			return 1;
	fputs("\nconst struct wm_template_tree *wm_template_tree(const char *name)\n{\n"
		"\tstatic const struct wm_template_tree trees[] = {\n", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "\t\t{ \"%s\", \"templates/%s\", &n%d[0] },\n", argv[i + 2], argv[i + 2], i);
	fputs("\t};\n"
		"\tfor (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)\n"
		"\t\tif (strcmp(trees[i].name, name) == 0)\n"
		"\t\t\treturn &trees[i];\n"
		"\treturn NULL;\n}\n", out);
	return ferror(out) || fflush(out) ? 1 : 0;
}
