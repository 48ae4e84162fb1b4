/* test_templates.c — the YAML templates' trees built at build time (templates/yamltree.c) are what parsing them gives. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "formats/yaml.h"
#include "model/catalog.h"

/* The nodes of the two trees met so far, in pairs: an alias must meet the same pair again. */
struct seen {
	const struct wm_node **parsed, **built;
	size_t n, cap;
};

/* 1 when the pair is new, 0 when met before, -1 when either node was met with another. */
static int meet(struct seen *s, const struct wm_node *parsed, const struct wm_node *built)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->parsed[i] == parsed || s->built[i] == built)
			return s->parsed[i] == parsed && s->built[i] == built ? 0 : -1;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->parsed = realloc(s->parsed, s->cap * sizeof(*s->parsed));
		s->built = realloc(s->built, s->cap * sizeof(*s->built));
		if (!s->parsed || !s->built)
			abort();
	}
	s->parsed[s->n] = parsed;
	s->built[s->n++] = built;
	return 1;
}

static bool same_string(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Every field of every node equal, and the same nodes shared (aliases) in both. */
static bool same_tree(struct seen *s, const struct wm_node *a, const struct wm_node *b, const char *file)
{
	int m = meet(s, a, b);
	if (m <= 0)
		return m == 0;
	if (a->type != b->type || a->style != b->style || a->line != b->line || a->column != b->column ||
	    a->end_line != b->end_line || a->end_column != b->end_column || !same_string(a->tag, b->tag) ||
	    a->len != b->len || (a->text || b->text ? !a->text || !b->text || memcmp(a->text, b->text, a->len + 1) != 0 : 0) ||
	    a->n != b->n || a->weight != b->weight || a->flow != b->flow) {
		fprintf(stderr, "%s:%u:%u: the built node differs from the parsed one\n", file, a->line, a->column);
		return false;
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->type == WM_NODE_SEQ ? !same_tree(s, a->items[i], b->items[i], file)
			: a->type == WM_NODE_MAP && (!same_tree(s, a->pairs[i].key, b->pairs[i].key, file) ||
				!same_tree(s, a->pairs[i].value, b->pairs[i].value, file)))
			return false;
	return true;
}

int main(void)
{
	static const struct wm_yaml_limits limits = WM_TEMPLATE_LIMITS;
	size_t trees = 0;

	for (size_t i = 0; i < wm_ntemplates; i++) {
		const struct wm_template *t = &wm_templates[i];
		const struct wm_template_tree *tree = wm_template_tree(t->name);
		size_t nlen = strlen(t->name);
		struct wm_doc parsed, handed;
		struct wm_error err;
		struct seen s = { 0 };
		char file[128];

		if (nlen < 5 || strcmp(t->name + nlen - 5, ".yaml") != 0) {
			CHECK(tree == NULL);  /* scripts are not YAML */
			continue;
		}
		trees++;
		CHECK(tree != NULL);
		if (!tree)
			continue;
		snprintf(file, sizeof(file), "templates/%s", t->name);
		wm_error_init(&err);
		CHECK(wm_yaml_parse(&parsed, file, t->data, t->len, &limits, &err) == 0);
		CHECK(parsed.root != NULL);
		CHECK(parsed.root && same_tree(&s, parsed.root, tree->root, file));
		CHECK(s.n > 10);  /* the walk went through the trees */
		/* what the catalog hands out: that tree, with the text diagnostics quote */
		CHECK(wm_catalog_template_parse(&handed, t->name, &err) == 0);
		CHECK(handed.root == tree->root);
		CHECK_STR(handed.file, file);
		CHECK(handed.len == t->len && handed.text == t->data);
		wm_yaml_release(&handed);
		wm_yaml_release(&parsed);
		wm_error_release(&err);
		free(s.parsed);
		free(s.built);
	}
	/* platforms, toolkits, actions, and the GitHub and GitLab skeletons at least */
	CHECK(trees >= 5);
	CHECK(wm_template_tree("no-such.yaml") == NULL);
	return harness_done();
}
