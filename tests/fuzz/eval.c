/* eval.c — libFuzzer target: GitHub expressions evaluated (workflow/eval.c), and a strategy.matrix expanded (workflow/combos.c). */
#include <strings.h>
#include "fuzz.h"
#include "util/arena.h"
#include "formats/yaml.h"
#include "workflow/combos.h"
#include "workflow/eval.h"

/*
 * Input: an expression (and, read as YAML, a job's strategy.matrix).
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour, whatever the nesting, the calls or the length;
 *   2. the text an evaluation makes stays within its budget: a known string is at most BUDGET
 *      bytes, and an unknown value always names what it depends on;
 *   3. evaluation is a function of the input: run twice, the same kind and the same string;
 *   4. as a condition, the input and !(it) are never both true or both false;
 *   5. read as a strategy.matrix, at most 256 combinations come out (GitHub's bound), each with
 *      its keys, however the lists, includes and excludes multiply.
 */

#define BUDGET (64u << 10)

static const char contexts[] =
	"matrix: {os: ubuntu, target: [x86_64, aarch64], python: 3.10, platform: {os: linux, runs-on: ubuntu-latest},\n"
	"  interpreter: 3.9 3.10, none: null, flag: true}\n"
	"env: {PY_ALL: '3.10 3.11', NESTED: '${{ env.PY_ALL }} pypy3.11', LOOP: '${{ env.LOOP }}x'}\n";
static struct wm_doc doc;

struct scope {
	const struct wm_node *matrix, *env;
	struct wm_eval_scope self;
};

static void resolve(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n, size_t *used,
	struct wm_val *out)
{
	struct scope *s = ctx;
	*used = 1;
	if (lens[0] == 6 && !strncasecmp(parts[0], "matrix", 6)) {
		wm_eval_of_node(out, s->matrix);
	} else if (lens[0] == 3 && !strncasecmp(parts[0], "env", 3) && n >= 2) {
		/* an env value read through its own expressions, as the reader does */
		char name[64];
		const struct wm_node *v;
		snprintf(name, sizeof(name), "%.*s", (int)(lens[1] < 63 ? lens[1] : 63), parts[1]);
		*used = 2;
		if ((v = wm_yaml_find(s->env, name)) != NULL)
			wm_eval_node(out, e, &s->self, v);
		else
			wm_eval_of_node(out, NULL);
	} else if (n >= 2 && lens[0] == 6 && !strncasecmp(parts[0], "github", 6) && lens[1] == 3 &&
			!strncasecmp(parts[1], "ref", 3)) {
		*used = 2;
		wm_eval_str(out, "refs/tags/", 10);
		out->prefix = true;
	} else {
		*used = n;
		wm_eval_unknown(out, e, "a context");
	}
}

static void evaluate(struct scope *s, const char *text, enum wm_val_kind *kind, char **str)
{
	struct wm_arena arena;
	struct wm_eval e;
	struct wm_val v;
	const char *t;
	wm_arena_init(&arena);
	wm_eval_init(&e, &arena, BUDGET);
	wm_eval_text(&v, &e, &s->self, text);
	*kind = v.kind;
	FUZZ_CHECK(v.kind != WM_VAL_UNKNOWN || v.why, "an unknown that names nothing");
	t = v.kind == WM_VAL_UNKNOWN ? NULL : wm_eval_string(&e, &v);
	FUZZ_CHECK(!t || strlen(t) <= BUDGET + 64, "a text of %zu bytes past the budget", strlen(t));
	*str = t ? strdup(t) : NULL;
	wm_arena_release(&arena);
}

static enum wm_truth holds(struct scope *s, const char *cond)
{
	struct wm_arena arena;
	struct wm_eval e;
	enum wm_truth t;
	wm_arena_init(&arena);
	wm_eval_init(&e, &arena, BUDGET);
	t = wm_eval_if(&e, &s->self, cond);
	wm_arena_release(&arena);
	return t;
}

static void expand(struct scope *s, const char *text, size_t len)
{
	static const struct wm_yaml_limits limits = { 1u << 16, 32, 20000, 1u << 16 };
	struct wm_error err;
	struct wm_doc m;
	wm_error_init(&err);
	if (wm_yaml_parse(&m, "matrix.yml", text, len, &limits, &err) == 0 && m.root && m.root->type == WM_NODE_MAP) {
		struct wm_arena arena;
		struct wm_eval e;
		struct wm_combos c;
		wm_arena_init(&arena);
		wm_eval_init(&e, &arena, BUDGET);
		if (wm_combos_expand(&c, &arena, &e, &s->self, m.root) == 0) {
			FUZZ_CHECK(c.n <= WM_COMBOS_MAX_JOBS, "%zu combinations", c.n);
			for (size_t i = 0; i < c.n; i++)
				for (size_t k = 0; k < c.combos[i].n; k++)
					FUZZ_CHECK(c.combos[i].keys[k] && c.combos[i].values[k], "combination %zu: key %zu is empty", i, k);
		}
		wm_arena_release(&arena);
	}
	wm_yaml_release(&m);
	wm_error_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool loaded;
	static struct scope s;
	enum wm_val_kind k1, k2;
	char *text, *a, *b;

	if (!loaded) {
		static const struct wm_yaml_limits limits = { 1u << 16, 32, 20000, 1u << 16 };
		struct wm_error err;
		wm_error_init(&err);
		if (wm_yaml_parse(&doc, "contexts.yml", contexts, strlen(contexts), &limits, &err) != 0)
			abort();
		wm_error_release(&err);
		s.matrix = wm_yaml_find(doc.root, "matrix");
		s.env = wm_yaml_find(doc.root, "env");
		s.self = (struct wm_eval_scope){ resolve, &s };
		loaded = true;
	}
	if (!(text = malloc(size + 1)))
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	evaluate(&s, text, &k1, &a);
	evaluate(&s, text, &k2, &b);
	FUZZ_CHECK(k1 == k2 && ((!a && !b) || (a && b && !strcmp(a, b))), "two evaluations differ");
	free(a);
	free(b);
	if (!strstr(text, "}}") && !strstr(text, "${{") && size < 4000) {
		char *negated = malloc(size + 4);
		enum wm_truth t, n;
		if (!negated)
			abort();
		snprintf(negated, size + 4, "!(%s)", text);
		t = holds(&s, text);
		n = holds(&s, negated);
		FUZZ_CHECK(t == WM_MAYBE || n == WM_MAYBE || t != n, "'%s' and !(it) are both %d", text, (int)t);
		free(negated);
	}
	expand(&s, text, size);
	free(text);
	return 0;
}
