/* test_eval.c — unit tests of workflow/eval.c: GitHub expressions evaluated, what is not known named and never guessed. */
#include <string.h>
#include <strings.h>
#include "harness.h"
#include "formats/yaml.h"
#include "workflow/eval.h"

/* The contexts of the tests: a matrix combination, an env, facts of a tag push or a release, the rest unknown. */
struct facts {
	const struct wm_node *matrix;   /* a mapping */
	const struct wm_node *env;      /* a mapping */
	const char *event;              /* "push" or "release", or NULL: not known */
};

static void resolve(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n, size_t *used,
	struct wm_val *out)
{
	const struct facts *f = ctx;
	char path[256] = "";
	*used = n;
	for (size_t i = 0; i < n; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%.*s", i ? "." : "", (int)lens[i], parts[i]);
	if (lens[0] == 6 && !strncasecmp(parts[0], "matrix", 6) && f->matrix) {
		struct wm_val m;
		wm_eval_of_node(&m, f->matrix);
		*used = 1;
		*out = m;
		return;
	}
	if (lens[0] == 3 && !strncasecmp(parts[0], "env", 3) && f->env && n >= 2) {
		struct wm_val m;
		wm_eval_of_node(&m, f->env);
		*used = 1;
		*out = m;
		return;
	}
	if (!strcasecmp(path, "github.ref") || !strcasecmp(path, "github.event.ref")) {
		wm_eval_str(out, "refs/tags/", 10);
		out->prefix = true;
		return;
	}
	if (!strcasecmp(path, "github.ref_type")) {
		wm_eval_str(out, "tag", 3);
		return;
	}
	if (!strcasecmp(path, "github.event_name") && f->event) {
		wm_eval_str(out, f->event, strlen(f->event));
		return;
	}
	wm_eval_unknown(out, e, path);
}

static struct wm_doc doc;
static struct wm_arena arena;

/* The value of `expr` as a string, "<unknown: WHY>" for an unknown, "<kind>" for an array or object. */
static const char *value(const struct facts *f, const char *expr)
{
	static char buf[512];
	struct wm_eval e;
	struct wm_eval_scope s = { resolve, (void *)f };
	struct wm_val v;
	const char *str;
	wm_eval_init(&e, &arena, 1u << 20);
	wm_eval_expr(&v, &e, &s, expr);
	if (v.kind == WM_VAL_UNKNOWN)
		snprintf(buf, sizeof(buf), "<unknown: %s>", v.why ? v.why : "?");
	else if (v.kind == WM_VAL_ARRAY || v.kind == WM_VAL_OBJECT)
		snprintf(buf, sizeof(buf), "<%s of %zu>", v.kind == WM_VAL_ARRAY ? "array" : "object", v.node->n);
	else if (v.kind == WM_VAL_STRING && v.prefix)
		snprintf(buf, sizeof(buf), "<starts %.*s>", (int)v.len, v.s);
	else
		snprintf(buf, sizeof(buf), "%s", (str = wm_eval_string(&e, &v)) ? str : "<no text>");
	return buf;
}

/* A text with its `${{ }}` (a `with:` value, a script). */
static const char *text(const struct facts *f, const char *t)
{
	static char buf[512];
	struct wm_eval e;
	struct wm_eval_scope s = { resolve, (void *)f };
	struct wm_val v;
	const char *str;
	wm_eval_init(&e, &arena, 1u << 20);
	wm_eval_text(&v, &e, &s, t);
	if (v.kind == WM_VAL_UNKNOWN)
		snprintf(buf, sizeof(buf), "<unknown: %s>", v.why ? v.why : "?");
	else
		snprintf(buf, sizeof(buf), "%s", (str = wm_eval_string(&e, &v)) ? str : "<no text>");
	return buf;
}

static const char *holds(const struct facts *f, const char *cond)
{
	static const char *const names[] = { "false", "true", "unknown" };
	struct wm_eval e;
	struct wm_eval_scope s = { resolve, (void *)f };
	wm_eval_init(&e, &arena, 1u << 20);
	return names[wm_eval_if(&e, &s, cond)];
}

int main(void)
{
	static const char yaml[] =
		"matrix: {os: ubuntu, target: x86_64, python: 3.10, quoted: '3.10', manylinux: auto, big: 12.0,\n"
		"  flag: true, none: null, runs-on: windows-11-arm, platform: {os: linux, runs-on: ubuntu-latest},\n"
		"  list: [3.9, '3.11', x], interpreter: 3.9 3.10 3.11}\n"
		"env: {PY_ALL: 3.10 3.11 pypy3.11, RUSTFLAGS: -C debuginfo=0}\n";
	struct wm_error err;
	struct facts tag = { NULL, NULL, "push" }, release = { NULL, NULL, "release" }, f = { NULL, NULL, NULL };
	wm_error_init(&err);
	wm_arena_init(&arena);
	static const struct wm_yaml_limits lim = { 1u << 20, 64, 100000, 1u << 20 };
	CHECK(wm_yaml_parse(&doc, "t.yml", yaml, strlen(yaml), &lim, &err) == 0);
	f.matrix = wm_yaml_find(doc.root, "matrix");
	f.env = wm_yaml_find(doc.root, "env");
	tag.matrix = release.matrix = f.matrix;

	/* literals, and GitHub's own coercions */
	CHECK_STR(value(&f, "'it''s'"), "it's");
	CHECK_STR(value(&f, "0x1F"), "31");
	CHECK_STR(value(&f, "1.5e3"), "1500");
	CHECK_STR(value(&f, "null"), "");
	CHECK_STR(value(&f, "true && 'yes'"), "yes");
	CHECK_STR(value(&f, "'' || 'fallback'"), "fallback");
	CHECK_STR(value(&f, "0 || null || false"), "false");
	CHECK_STR(value(&f, "'3.10' == 3.1"), "true");          /* different types: numbers */
	CHECK_STR(value(&f, "'Ubuntu' == 'UBUNTU'"), "true");   /* strings: any case */
	CHECK_STR(value(&f, "'a' != 'b'"), "true");
	CHECK_STR(value(&f, "'' == 0 && null == 0 && true == 1"), "true");
	CHECK_STR(value(&f, "'abc' < 'abd' && 2 >= 2 && !(3 <= 2)"), "true");
	CHECK_STR(value(&f, "NaN == NaN"), "false");
	/* the matrix: a YAML scalar is typed (3.10 is the number 3.1), a missing key is null */
	CHECK_STR(value(&f, "matrix.python"), "3.1");
	CHECK_STR(value(&f, "matrix.quoted"), "3.10");
	CHECK_STR(value(&f, "matrix.big"), "12");
	CHECK_STR(value(&f, "matrix.flag"), "true");
	CHECK_STR(value(&f, "matrix.none"), "");
	CHECK_STR(value(&f, "matrix.missing"), "");
	CHECK_STR(value(&f, "matrix.interpreter || '3.12'"), "3.9 3.10 3.11");
	CHECK_STR(value(&f, "matrix.missing || '3.12'"), "3.12");
	CHECK_STR(value(&f, "matrix.platform.runs-on"), "ubuntu-latest");
	CHECK_STR(value(&f, "matrix['platform']['os']"), "linux");
	CHECK_STR(value(&f, "MATRIX.Platform.OS"), "linux");  /* contexts: any case */
	CHECK_STR(value(&f, "matrix.list[1]"), "3.11");
	CHECK_STR(value(&f, "matrix.list[0]"), "3.9");
	CHECK_STR(value(&f, "matrix.list[7]"), "");
	CHECK_STR(value(&f, "matrix.platform"), "<object of 2>");
	CHECK_STR(value(&f, "matrix.list"), "<array of 3>");
	/* what pydantic-core's runs-on computes */
	CHECK_STR(value(&f, "matrix.runs-on || format('{0}-latest', (matrix.os == 'linux' && 'ubuntu') || matrix.os)"),
		"windows-11-arm");
	CHECK_STR(value(&f, "matrix.nothing || format('{0}-latest', (matrix.os == 'ubuntu' && 'ubuntu') || matrix.os)"),
		"ubuntu-latest");
	CHECK_STR(value(&f, "format('{0}-{1}{{x}}', matrix.target, 1)"), "x86_64-1{x}");
	CHECK_STR(value(&f, "format('{1}', 'a')"), "<unknown: format() with a placeholder it has no argument for>");
	CHECK_STR(value(&f, "join(matrix.list, ' ')"), "3.9 3.11 x");
	CHECK_STR(value(&f, "join(matrix.list)"), "3.9,3.11,x");
	CHECK_STR(value(&f, "join('one')"), "one");
	CHECK_STR(value(&f, "contains(matrix.list, 'x') && contains(matrix.list, 3.9) && !contains(matrix.list, 'y')"), "true");
	CHECK_STR(value(&f, "contains('Hello', 'ELL') && startsWith('Hello', 'he') && endsWith('Hello', 'LO')"), "true");
	CHECK_STR(value(&f, "fromJSON('{\"a\": [1, \"3.10\", 3.10]}').a[1]"), "3.10");
	CHECK_STR(value(&f, "fromJSON('{\"a\": [1, \"3.10\", 3.10]}').a[2]"), "3.1");
	CHECK_STR(value(&f, "fromJSON('[\"x86_64\", \"aarch64\"]')[1]"), "aarch64");
	CHECK_STR(value(&f, "fromJSON('not json')"), "<unknown: fromJSON of a text that is not JSON>");
	CHECK_STR(value(&f, "toJSON('a\"b')"), "\"a\\\"b\"");
	CHECK_STR(value(&f, "case(matrix.os == 'ubuntu', 'linux', 'other')"), "linux");
	CHECK_STR(value(&f, "env.PY_ALL"), "3.10 3.11 pypy3.11");
	/* what only the run knows: named, never guessed, and unknown through what reads it */
	CHECK_STR(value(&f, "secrets.PYPI_TOKEN"), "<unknown: secrets.PYPI_TOKEN>");
	CHECK_STR(value(&f, "vars.RUNNER || 'ubuntu-latest'"), "<unknown: vars.RUNNER>");
	CHECK_STR(value(&f, "format('{0}-latest', vars.OS)"), "<unknown: vars.OS>");
	CHECK_STR(value(&f, "steps.package-path.outputs.package_path"), "<unknown: steps.package-path.outputs.package_path>");
	CHECK_STR(value(&f, "github.event.pull_request.labels.*.name"), "<unknown: github.event.pull_request.labels>");
	CHECK_STR(value(&f, "false && secrets.X"), "false");
	CHECK_STR(value(&f, "true || secrets.X"), "true");
	CHECK_STR(value(&f, "hashFiles('**/Cargo.lock')"), "<unknown: hashFiles()>");
	/* a text with expressions: the parts' strings, unknown when one is */
	CHECK_STR(text(&f, "--release --out dist -i ${{ matrix.interpreter || env.PY_ALL }}"),
		"--release --out dist -i 3.9 3.10 3.11");
	CHECK_STR(text(&f, "${{ matrix.os }}-latest"), "ubuntu-latest");
	CHECK_STR(text(&f, "python${{ matrix.python }}"), "python3.1");
	CHECK_STR(text(&f, "-m ${{steps.p.outputs.path}}"), "<unknown: steps.p.outputs.path>");
	CHECK_STR(text(&f, "no expression"), "no expression");
	CHECK_STR(text(&f, "${{ 'unterminated }}"), "<unknown: an expression init cannot read>");
	CHECK_STR(text(&f, "${{ evil(1) }}"), "<unknown: an expression init cannot read>");

	/* conditions on a tag push: what maturin generate-ci and real projects write */
	CHECK_STR(holds(&tag, "startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(holds(&tag, "${{ startsWith(github.ref, 'refs/tags/') }}"), "true");
	CHECK_STR(holds(&tag, "${{ startsWith(github.ref, 'refs/tags/') || github.event_name == 'workflow_dispatch' }}"), "true");
	CHECK_STR(holds(&tag, "github.event_name == 'workflow_dispatch'"), "false");
	/* blanks as GitHub's lexer skips them, form feed and vertical tab too (found by fuzz-workflow) */
	CHECK_STR(holds(&tag, "\f2"), "true");
	CHECK_STR(holds(&tag, "${{ \f2\v }}"), "true");
	/* a text reading a value known only in part (github.ref) is unknown, and says why (found by fuzz-eval) */
	CHECK_STR(text(&tag, "ref ${{ github.ref }}"), "<unknown: a value known only in part>");
	CHECK_STR(holds(&tag, "${{ github.event_name == 'workflow_dispatch' }}"), "false");
	CHECK_STR(holds(&tag, "github.event_name == 'push' && contains(github.ref, 'refs/tags')"), "true");
	CHECK_STR(holds(&tag, "GITHUB.EVENT_NAME == 'PUSH'"), "true");
	CHECK_STR(holds(&tag, "github['event_name'] == 'push'"), "true");
	CHECK_STR(holds(&tag, "github.ref == 'refs/heads/main'"), "false");
	CHECK_STR(holds(&tag, "github.ref != 'refs/heads/main'"), "true");
	CHECK_STR(holds(&tag, "github.ref == 'refs/tags/v1.0'"), "unknown");       /* which tag is not known */
	CHECK_STR(holds(&tag, "startsWith(github.ref, 'refs/tags/v')"), "unknown");
	CHECK_STR(holds(&tag, "startsWith(github.ref, 'refs/heads/')"), "false");
	CHECK_STR(holds(&tag, "github.ref_type == 'tag'"), "true");
	CHECK_STR(holds(&tag, "!startsWith(github.ref, 'refs/tags/')"), "false");
	CHECK_STR(holds(&tag, "!(github.event_name == 'pull_request')"), "true");
	CHECK_STR(holds(&tag, "!!startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(holds(&tag, "! !false"), "false");
	CHECK_STR(holds(&tag, "github.event_name ! = 'push'"), "unknown");       /* != is one operator */
	CHECK_STR(holds(&tag, "github.repository == 'owner/name' && startsWith(github.ref, 'refs/tags/')"), "unknown");
	CHECK_STR(holds(&tag, "github.repository == 'owner/name' && github.event_name == 'schedule'"), "false");
	CHECK_STR(holds(&tag, "inputs.publish || startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(holds(&tag, "inputs.publish"), "unknown");
	CHECK_STR(holds(&tag, "success() && github.event_name != 'pull_request'"), "true");
	CHECK_STR(holds(&tag, "always()"), "true");
	CHECK_STR(holds(&tag, "failure()"), "false");
	CHECK_STR(holds(&tag, "!cancelled() && github.event_name == 'release'"), "false");
	CHECK_STR(holds(&tag, "true"), "true");
	CHECK_STR(holds(&tag, "false"), "false");
	CHECK_STR(holds(&tag, "github.event_name == 'push' && 'yes' || 'no'"), "true");
	CHECK_STR(holds(&tag, "(github.event_name == 'release' && 'yes' || '') == 'yes'"), "false");
	CHECK_STR(holds(&tag, "1 < 2 && null == 0 && true == 1 && '' == 0"), "true");
	CHECK_STR(holds(&tag, "fromJSON('true')"), "true");
	CHECK_STR(holds(&tag, "endsWith(github.ref, '-rc')"), "unknown");
	CHECK_STR(holds(&tag, "matrix.target == 'x86_64' && matrix.os == 'ubuntu'"), "true");
	CHECK_STR(holds(&tag, "matrix.target == 'aarch64' && secrets.X"), "false");
	CHECK_STR(holds(&tag, NULL), "true");
	/* what is not understood, or text around an expression (a non-empty string to GitHub) */
	CHECK_STR(holds(&tag, "${{ false }} && true"), "unknown");
	CHECK_STR(holds(&tag, "github.event_name = 'push'"), "unknown");
	CHECK_STR(holds(&tag, "evil(github.ref)"), "unknown");
	CHECK_STR(holds(&tag, "startsWith(github.ref, 'refs/tags/'"), "unknown");
	CHECK_STR(holds(&tag, "${{ github.event_name == 'push'"), "unknown");
	CHECK_STR(holds(&tag, "'unterminated"), "unknown");
	CHECK_STR(holds(&tag, ""), "unknown");
	/* deep nesting is bounded, not a crash */
	{
		static char s[1 << 17];
		size_t n = 0;
		for (; n < 1500; n++)
			s[n] = '(';
		s[n] = '\0';
		CHECK_STR(holds(&tag, s), "unknown");
		memset(s, '!', 3000);
		strcpy(s + 3000, "false");
		CHECK_STR(holds(&tag, s), "unknown");
		/* format() whose text would grow past the budget: unknown, bounded */
		strcpy(s, "format('");
		for (n = strlen(s); n < 60000; n += 3)
			memcpy(s + n, "{0}", 3);
		strcpy(s + n, "', format('");
		n += strlen(s + n);
		for (size_t k = 0; k < 2000; k++, n += 3)
			memcpy(s + n, "{0}", 3);
		strcpy(s + n, "', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'))");
		CHECK(strncmp(value(&f, s), "<unknown", 8) == 0);
	}
	/* on a release */
	CHECK_STR(holds(&release, "github.event_name == 'release'"), "true");
	CHECK_STR(holds(&release, "startsWith(github.ref, 'refs/tags/')"), "true");
	CHECK_STR(holds(&release, "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/')"), "false");
	CHECK_STR(holds(&release, "github.event.action == 'published'"), "unknown");
	/* a release run whose event is not known: a condition on it may hold */
	CHECK_STR(holds(&f, "github.event_name == 'release'"), "unknown");

	wm_yaml_release(&doc);
	wm_arena_release(&arena);
	wm_error_release(&err);
	return harness_done();
}
