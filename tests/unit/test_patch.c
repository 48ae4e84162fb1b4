/* test_patch.c — unit tests of the variant patch of pyproject.toml: each case an input, a spec and the exact output. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "formats/toml.h"
#include "emit/patch.h"

#define LIST(...) (const char *const[]){ __VA_ARGS__ }, sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)

/*
 * Patches `text` with `spec`: the patched text, or "error: L:C: message"
 * (L:C left out when the error has no position).  The patched text must
 * parse again and hold the new name and every feature; otherwise the
 * result says what is wrong.  The caller frees the result.
 */
static char *run(const char *text, const struct wm_patch_spec *spec)
{
	struct wm_toml_doc doc, again;
	struct wm_error err;
	struct wm_buf out = WM_BUF_INIT;
	char *result;

	wm_error_init(&err);
	memset(&again, 0, sizeof(again));
	if (wm_toml_parse(&doc, "pyproject.toml", text, strlen(text), &err) < 0) {
		wm_buf_printf(&out, "input error: %s", err.ndiags ? err.diags[0].message : "?");
	} else if (wm_patch_pyproject(&out, &doc, spec, &err) < 0) {
		const struct wm_diag *d = err.ndiags ? &err.diags[0] : NULL;
		wm_buf_clear(&out);
		if (d && d->line)
			wm_buf_printf(&out, "error: %u:%u: %s", d->line, d->column, d->message);
		else
			wm_buf_printf(&out, "error: %s", d ? d->message : "(no message)");
	} else if (wm_toml_parse(&again, "patched", out.ptr ? out.ptr : "", out.len, &err) < 0) {
		wm_buf_printf(&out, "\n-- the patched text does not parse: %s", err.diags[err.ndiags - 1].message);
	} else {
		const struct wm_toml_value *name = wm_toml_get_path(again.root, "project.name");
		const struct wm_toml_value *features = wm_toml_get_path(again.root, "tool.maturin.features");
		const struct wm_toml_value *version = wm_toml_get_path(again.root, "project.version");
		const struct wm_toml_value *dynamic = wm_toml_get_path(again.root, "project.dynamic");
		if (spec->name && !(wm_toml_is_string(name) && !strcmp(name->str, spec->name)))
			wm_buf_puts(&out, "\n-- [project].name is not the new name");
		if (spec->version && !(wm_toml_is_string(version) && !strcmp(version->str, spec->version)))
			wm_buf_puts(&out, "\n-- [project].version is not the new version");
		for (size_t j = 0; spec->version && wm_toml_is_array(dynamic) && j < dynamic->array.n; j++)
			if (dynamic->array.items[j]->type == WM_TOML_STRING && !strcmp(dynamic->array.items[j]->str, "version"))
				wm_buf_puts(&out, "\n-- the version is still dynamic");
		for (size_t i = 0; i < spec->nfeatures; i++) {
			bool found = false;
			for (size_t j = 0; wm_toml_is_array(features) && j < features->array.n; j++)
				found = found || (features->array.items[j]->type == WM_TOML_STRING &&
					!strcmp(features->array.items[j]->str, spec->features[i]));
			if (!found)
				wm_buf_printf(&out, "\n-- feature '%s' missing", spec->features[i]);
		}
	}
	result = wm_buf_detach(&out);
	wm_toml_release(&doc);
	wm_toml_release(&again);
	wm_error_release(&err);
	return result;
}

#define PATCH(in, want, ...) do { \
		char *got = run((in), &(struct wm_patch_spec){ __VA_ARGS__ }); \
		CHECK_STR(got, (want)); \
		free(got); \
	} while (0)

/* ---- [project].name ------------------------------------------------------ */

static void test_name(void)
{
	PATCH("[project]\nname = \"llm-rs\"  # the name\nversion = \"1\"\n",
		"[project]\nname = \"llm-rs-cuda\"  # the name\nversion = \"1\"\n",
		.name = "llm-rs-cuda");
	/* a literal string stays literal */
	PATCH("[project]\nname = 'llm-rs'\n", "[project]\nname = 'llm-rs-cuda'\n", .name = "llm-rs-cuda");
	/* multi-line strings and escapes become a basic string */
	PATCH("[project]\nname = \"\"\"llm-rs\"\"\"\n", "[project]\nname = \"llm-rs-cuda\"\n", .name = "llm-rs-cuda");
	PATCH("[project]\nname = '''llm-rs'''\n", "[project]\nname = \"llm-rs-cuda\"\n", .name = "llm-rs-cuda");
	PATCH("[project]\nname = \"llm\\u002drs\"\n", "[project]\nname = \"llm-rs-cuda\"\n", .name = "llm-rs-cuda");
	/* a name that cannot be a literal string is written as a basic one */
	PATCH("[project]\nname = 'a'\n", "[project]\nname = \"it's\"\n", .name = "it's");
	PATCH("[project]\nname = \"a\"\n", "[project]\nname = \"q\\\"\\\\\\t\"\n", .name = "q\"\\\t");
	/* the same name: nothing changes, not even the escapes */
	PATCH("[project]\nname = \"ll\\u006d\"\n", "[project]\nname = \"ll\\u006d\"\n", .name = "llm");
	/* no name to set: the text is kept */
	PATCH("[project]\nname = \"a\"\n", "[project]\nname = \"a\"\n", .name = NULL);
}

static void test_name_forms(void)
{
	/* dotted keys at the root */
	PATCH("project.name = \"a\"\nproject.version = \"1\"\n[tool.x]\ny = 1\n",
		"project.name = \"b\"\nproject.version = \"1\"\n[tool.x]\ny = 1\n", .name = "b");
	/* an inline table */
	PATCH("project = {name = \"a\", version = \"1\"}\n",
		"project = {name = \"b\", version = \"1\"}\n", .name = "b");
	/* [project] after [tool.maturin], with a byte-order mark */
	PATCH("\xef\xbb\xbf[tool.maturin]\nbindings = \"pyo3\"\n\n[project]\nname = \"a\"\n",
		"\xef\xbb\xbf[tool.maturin]\nbindings = \"pyo3\"\n\n[project]\nname = \"b\"\n", .name = "b");
	/* the name in a comment, a multi-line string and another key stays */
	PATCH("# llm-rs: the base package\n[project]\nname = \"llm-rs\"\n"
		"description = \"\"\"\nllm-rs is\nfast\"\"\"\nkeywords = [\"llm-rs\"]\n",
		"# llm-rs: the base package\n[project]\nname = \"llm-rs-cuda\"\n"
		"description = \"\"\"\nllm-rs is\nfast\"\"\"\nkeywords = [\"llm-rs\"]\n", .name = "llm-rs-cuda");
}

static void test_name_errors(void)
{
	PATCH("[tool.maturin]\nfeatures = []\n", "error: pyproject.toml has no [project].name", .name = "b");
	PATCH("", "error: pyproject.toml has no [project].name", .name = "b");
	PATCH("x = 1\n\n[project]\nversion = \"1\"\n", "error: 3:1: pyproject.toml has no [project].name", .name = "b");
	PATCH("[project.urls]\nx = \"y\"\n", "error: 1:2: pyproject.toml has no [project].name", .name = "b");
	PATCH("[project]\nname = 1\n", "error: 2:8: [project].name is an integer, expected a string", .name = "b");
	PATCH("project = 1\n", "error: 1:11: pyproject.toml has no [project].name", .name = "b");
	/* the name is needed even when it is kept */
	PATCH("[tool.maturin]\n", "error: pyproject.toml has no [project].name", .nfeatures = 0);
}

/* ---- self-references ----------------------------------------------------- */

static void test_self_references(void)
{
	PATCH("[project]\nname = \"llm-rs\"\n"
		"dependencies = [\"llm-rs[base]>=1\", \"LLM_RS >= 2\", \" llm.rs\", \"llm-rs-extra\", \"numpy\", "
		"\"llm-rs; python_version < '3.9'\", \"llm-rs@ https://x/llm-rs.whl\"]\n"
		"[project.optional-dependencies]\n"
		"cuda = ['llm-rs[cuda]', 'torch']\n"
		"all = [\n    \"llm-rs[cuda,metal]\",  # llm-rs\n]\n"
		"escaped = [\"\\u006clm-rs[x]\", \"\"\"llm-rs[y]\"\"\"]\n",
		"[project]\nname = \"llm-rs-cuda\"\n"
		"dependencies = [\"llm-rs-cuda[base]>=1\", \"llm-rs-cuda >= 2\", \" llm-rs-cuda\", \"llm-rs-extra\", \"numpy\", "
		"\"llm-rs-cuda; python_version < '3.9'\", \"llm-rs-cuda@ https://x/llm-rs.whl\"]\n"
		"[project.optional-dependencies]\n"
		"cuda = ['llm-rs-cuda[cuda]', 'torch']\n"
		"all = [\n    \"llm-rs-cuda[cuda,metal]\",  # llm-rs\n]\n"
		"escaped = [\"llm-rs-cuda[x]\", \"llm-rs-cuda[y]\"]\n",
		.name = "llm-rs-cuda", .old_name = "llm-rs");
	/* old_name defaults to [project].name; it compares under PEP 503 */
	PATCH("[project]\nname = \"Foo.Bar\"\n[project.optional-dependencies]\ndev = [\"foo-bar[test]\"]\n",
		"[project]\nname = \"foo-bar-gpu\"\n[project.optional-dependencies]\ndev = [\"foo-bar-gpu[test]\"]\n",
		.name = "foo-bar-gpu");
	PATCH("[project]\nname = \"a\"\ndependencies = [\"base[x]\"]\n",
		"[project]\nname = \"b\"\ndependencies = [\"b[x]\"]\n", .name = "b", .old_name = "BASE");
	/* without a new name nothing is renamed */
	PATCH("[project]\nname = \"a\"\ndependencies = [\"a[x]\"]\n",
		"[project]\nname = \"a\"\ndependencies = [\"a[x]\"]\n", .old_name = "a");
	/* a renamed item, then new dependencies after it */
	PATCH("[project]\nname = \"a\"\ndependencies = [\"a[x]\"]\n",
		"[project]\nname = \"b\"\ndependencies = [\"b[x]\", \"c\"]\n", .name = "b",
		.dependencies = LIST("c"));
	PATCH("[project]\nname = \"a\"\ndependencies = [\"\\u0061[x]\"]\n",
		"[project]\nname = \"b\"\ndependencies = [\"b[x]\", \"c\"]\n", .name = "b",
		.dependencies = LIST("c"));
}

/* ---- features ------------------------------------------------------------ */

static const char head[] = "[project]\nname = \"a\"\n\n";

static char *with_head(const char *rest)
{
	size_t n = strlen(head), m = strlen(rest);
	char *s = malloc(n + m + 1);
	if (!s)
		abort();
	memcpy(s, head, n);
	memcpy(s + n, rest, m + 1);
	return s;
}

/* Patches head + `in` with the features, expecting head + `want`. */
#define FEATURES(in, want, ...) do { \
		char *in_ = with_head(in), *want_ = with_head(want); \
		PATCH(in_, want_, .features = (const char *const[]){ __VA_ARGS__ }, \
			.nfeatures = sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)); \
		free(in_); \
		free(want_); \
	} while (0)

static void test_features_inline(void)
{
	FEATURES("[tool.maturin]\nfeatures = [\"a\"]\n", "[tool.maturin]\nfeatures = [\"a\", \"b\"]\n", "b");
	FEATURES("[tool.maturin]\nfeatures = [ \"a\",]\n", "[tool.maturin]\nfeatures = [ \"a\", \"b\", \"c\",]\n",
		"b", "c");
	FEATURES("[tool.maturin]\nfeatures = ['a']  # x\n", "[tool.maturin]\nfeatures = ['a', 'b']  # x\n", "b");
	FEATURES("[tool.maturin]\nfeatures = []\n", "[tool.maturin]\nfeatures = [\"b\"]\n", "b");
	FEATURES("[tool.maturin]\nfeatures = [ ]\n", "[tool.maturin]\nfeatures = [\"b\", \"c\"]\n", "b", "c");
	/* present ones are not added again; duplicates in the spec count once */
	FEATURES("[tool.maturin]\nfeatures = [\"a\", \"b\"]\n",
		"[tool.maturin]\nfeatures = [\"a\", \"b\"]\n", "b", "a");
	FEATURES("[tool.maturin]\nfeatures = [\"a\"]\n", "[tool.maturin]\nfeatures = [\"a\", \"b\"]\n", "b", "a", "b");
	/* a conditional feature is not a string: "x" is still added */
	FEATURES("[tool.maturin]\nfeatures = [{feature = \"x\", python-version = \">=3.9\"}]\n",
		"[tool.maturin]\nfeatures = [{feature = \"x\", python-version = \">=3.9\"}, \"x\"]\n", "x");
}

static void test_features_multiline(void)
{
	FEATURES("[tool.maturin]\nfeatures = [\n    \"a\",  # always\n    # \"cublas\",\n    \"abi3\",\n]\n",
		"[tool.maturin]\nfeatures = [\n    \"a\",  # always\n    # \"cublas\",\n    \"abi3\",\n    \"b\",\n    \"c\",\n]\n",
		"b", "c");
	/* no trailing comma: one after the last item's value, before its comment, and none at the end */
	FEATURES("[tool.maturin]\nfeatures = [\n  \"a\",\n  \"abi3\"  # last\n]\n",
		"[tool.maturin]\nfeatures = [\n  \"a\",\n  \"abi3\",  # last\n  \"b\",\n  \"c\"\n]\n", "b", "c");
	/* tabs, and several items on the last line */
	FEATURES("[tool.maturin]\nfeatures = [\n\t\"a\", \"b\",\n]\n",
		"[tool.maturin]\nfeatures = [\n\t\"a\", \"b\",\n\t\"c\",\n]\n", "c");
	/* the array closes on the line of its last item */
	FEATURES("[tool.maturin]\nfeatures = [\"a\",\n            \"b\"]\n",
		"[tool.maturin]\nfeatures = [\"a\",\n            \"b\", \"c\"]\n", "c");
	/* the first item on the line of `[`: new items line up under it */
	FEATURES("[tool.maturin]\nfeatures = [\"a\",\n]\n",
		"[tool.maturin]\nfeatures = [\"a\",\n            \"b\",\n]\n", "b");
	/* a trailing comma on a line of its own */
	FEATURES("[tool.maturin]\nfeatures = [\n  \"a\"\n  ,\n]\n",
		"[tool.maturin]\nfeatures = [\n  \"a\"\n  ,\n  \"b\",\n]\n",
		"b");
	FEATURES("[tool.maturin]\nfeatures = [\n  \"a\"\n  ,]\n",
		"[tool.maturin]\nfeatures = [\n  \"a\", \"b\"\n  ,]\n", "b");
	/* a conditional feature as the last item */
	FEATURES("[tool.maturin]\nfeatures = [\n  \"a\",\n  { feature = \"x\", python-version = \">=3.9\" }\n]\n",
		"[tool.maturin]\nfeatures = [\n  \"a\",\n  { feature = \"x\", python-version = \">=3.9\" },\n  \"b\"\n]\n", "b");
	/* empty, with a comment or blank lines inside */
	FEATURES("[tool.maturin]\nfeatures = [\n  # none yet\n]\n",
		"[tool.maturin]\nfeatures = [\n  # none yet\n  \"b\",\n]\n", "b");
	FEATURES("[tool.maturin]\nfeatures = [  # none\n\n  ]\n",
		"[tool.maturin]\nfeatures = [  # none\n\n    \"b\",\n  ]\n", "b");
	/* a multi-line string as the last item */
	FEATURES("[tool.maturin]\nfeatures = [\n  '''a\n''',\n]\n",
		"[tool.maturin]\nfeatures = [\n  '''a\n''',\n  \"b\",\n]\n", "b");
	/* the last string's quotes are used */
	FEATURES("[tool.maturin]\nfeatures = [\n  'a',\n]\n",
		"[tool.maturin]\nfeatures = [\n  'a',\n  'b',\n  \"it's\",\n]\n",
		"b", "it's");
}

static void test_features_missing(void)
{
	/* after the last key/value line, before the blank lines and comments of the next header */
	FEATURES("[tool.maturin]\nbindings = \"pyo3\"  # pyo3\n\n# next\n[tool.other]\nx = 1\n",
		"[tool.maturin]\nbindings = \"pyo3\"  # pyo3\nfeatures = [\"b\"]\n\n# next\n[tool.other]\nx = 1\n", "b");
	FEATURES("[tool.maturin]\ninclude = [\n  \"x\",\n]\n[tool.maturin.target.x]\ny = 1\n",
		"[tool.maturin]\ninclude = [\n  \"x\",\n]\nfeatures = [\"b\", \"c\"]\n[tool.maturin.target.x]\ny = 1\n", "b", "c");
	/* a header with no keys, last in a file without a final newline */
	FEATURES("[tool.maturin]", "[tool.maturin]\nfeatures = [\"b\"]", "b");
	FEATURES("[tool.maturin]\nx = 1", "[tool.maturin]\nx = 1\nfeatures = [\"b\"]", "b");
	/* dotted keys at the root, quoted or not: the same prefix */
	PATCH("tool.maturin.bindings = \"pyo3\"\nother = 1\n[project]\nname = \"a\"\n",
		"tool.maturin.bindings = \"pyo3\"\ntool.maturin.features = [\"b\"]\nother = 1\n[project]\nname = \"a\"\n",
		.features = LIST("b"));
	PATCH("\"tool\" . 'maturin'.bindings = \"pyo3\"\n[project]\nname = \"a\"\n",
		"\"tool\" . 'maturin'.bindings = \"pyo3\"\n\"tool\".'maturin'.features = [\"b\"]\n[project]\nname = \"a\"\n",
		.features = LIST("b"));
	/* dotted keys under [tool] */
	FEATURES("[tool]\nmaturin.bindings = \"pyo3\"\nblack.x = 1\n",
		"[tool]\nmaturin.bindings = \"pyo3\"\nmaturin.features = [\"b\"]\nblack.x = 1\n", "b");
	/* inline tables */
	FEATURES("[tool]\nmaturin = { bindings = \"pyo3\" }\n",
		"[tool]\nmaturin = { bindings = \"pyo3\", features = [\"b\"] }\n", "b");
	FEATURES("[tool]\nmaturin = {}\n", "[tool]\nmaturin = {features = [\"b\"]}\n", "b");
	PATCH("tool = {maturin = {bindings = \"pyo3\"}}\nproject.name = \"a\"\n",
		"tool = {maturin = {bindings = \"pyo3\", features = [\"b\"]}}\nproject.name = \"a\"\n", .features = LIST("b"));
	PATCH("tool = {maturin.bindings = \"pyo3\", x = 1}\nproject.name = \"a\"\n",
		"tool = {maturin.bindings = \"pyo3\", x = 1, maturin.features = [\"b\"]}\nproject.name = \"a\"\n",
		.features = LIST("b"));
	/* `tool` inline without maturin: it goes inside */
	PATCH("tool = {black = {}}\nproject.name = \"a\"\n",
		"tool = {black = {}, maturin = {features = [\"b\"]}}\nproject.name = \"a\"\n", .features = LIST("b"));
}

static void test_features_new_section(void)
{
	FEATURES("[tool.black]\nx = 1\n", "[tool.black]\nx = 1\n\n[tool.maturin]\nfeatures = [\"b\"]\n", "b");
	FEATURES("[tool.black]\nx = 1", "[tool.black]\nx = 1\n\n[tool.maturin]\nfeatures = [\"b\"]", "b");
	FEATURES("[tool.black]\nx = 1\n\n", "[tool.black]\nx = 1\n\n[tool.maturin]\nfeatures = [\"b\"]\n", "b");
	FEATURES("x = 1\n# end", "x = 1\n# end\n\n[tool.maturin]\nfeatures = [\"b\"]", "b");
	/* only a sub-table: [tool.maturin] is implicit, a header can still define it */
	FEATURES("[tool.maturin.target.x]\ny = 1\n",
		"[tool.maturin.target.x]\ny = 1\n\n[tool.maturin]\nfeatures = [\"b\"]\n", "b");
	/* `tool` made by dotted keys */
	PATCH("tool.black.x = 1\n[project]\nname = \"a\"\n",
		"tool.black.x = 1\n[project]\nname = \"a\"\n\n[tool.maturin]\nfeatures = [\"b\"]\n", .features = LIST("b"));
	/* with the pinned settings, in a fixed order */
	PATCH("[project]\nname = \"a\"\n",
		"[project]\nname = \"a\"\n\n[tool.maturin]\nfeatures = [\"b\"]\nmodule-name = \"a._a\"\n"
		"python-source = \"python\"\nmanifest-path = \"rust/Cargo.toml\"\n",
		.features = LIST("b"), .module_name = "a._a", .python_source = "python", .manifest_path = "rust/Cargo.toml");
}

static void test_features_errors(void)
{
	char *in = with_head("[tool.maturin]\nfeatures = \"a\"\n");
	PATCH(in, "error: 5:12: [tool.maturin].features is a string, expected an array", .features = LIST("b"));
	free(in);
	PATCH("tool = 1\n[project]\nname = \"a\"\n", "error: 1:8: 'tool' is an integer, expected a table",
		.features = LIST("b"));
	in = with_head("[[tool.maturin]]\nx = 1\n");
	PATCH(in, "error: 4:1: [tool.maturin] is an array of tables, expected a table", .features = LIST("b"));
	free(in);
	/* nothing to do for the table: no error */
	PATCH("tool = 1\n[project]\nname = \"a\"\n", "tool = 1\n[project]\nname = \"a\"\n", .name = "a");
}

/* ---- line endings -------------------------------------------------------- */

static void test_crlf(void)
{
	PATCH("[project]\r\nname = \"a\"\r\n\r\n[tool.maturin]\r\nfeatures = [\r\n    \"x\"\r\n]\r\n",
		"[project]\r\nname = \"b\"\r\n\r\n[tool.maturin]\r\nfeatures = [\r\n    \"x\",\r\n    \"y\"\r\n]\r\n"
		"module-name = \"m\"\r\n",
		.name = "b", .features = LIST("y"), .module_name = "m");
	PATCH("[project]\r\nname = \"a\"\r\n", "[project]\r\nname = \"a\"\r\ndependencies = [\"d\"]\r\n\r\n"
		"[tool.maturin]\r\nfeatures = [\"y\"]\r\n", .features = LIST("y"), .dependencies = LIST("d"));
	PATCH("[project]\r\nname = \"a\"", "[project]\r\nname = \"a\"\r\ndependencies = [\"d\"]\r\n\r\n"
		"[tool.maturin]\r\nfeatures = [\"y\"]", .features = LIST("y"), .dependencies = LIST("d"));
}

/* ---- pinned settings ----------------------------------------------------- */

static void test_pins(void)
{
	PATCH("[project]\nname = \"a\"\n[tool.maturin]\nmodule-name = 'a._a'  # keep\npython-source = \"\"\"py\"\"\"\n",
		"[project]\nname = \"a\"\n[tool.maturin]\nmodule-name = '_a_cuda._a'  # keep\npython-source = \"python\"\n"
		"manifest-path = \"r/Cargo.toml\"\n",
		.module_name = "_a_cuda._a", .python_source = "python", .manifest_path = "r/Cargo.toml");
	/* the same value: nothing changes */
	PATCH("[project]\nname = \"a\"\n[tool.maturin]\nmodule-name = \"a\"\n",
		"[project]\nname = \"a\"\n[tool.maturin]\nmodule-name = \"a\"\n", .module_name = "a");
	PATCH("[project]\nname = \"a\"\n[tool.maturin]\nmodule-name = [\"a\"]\n",
		"error: 4:15: [tool.maturin].module-name is an array, expected a string", .module_name = "b");
	/* several keys to add to a dotted table */
	PATCH("[project]\nname = \"a\"\n[tool]\nmaturin.bindings = \"pyo3\"\n",
		"[project]\nname = \"a\"\n[tool]\nmaturin.bindings = \"pyo3\"\nmaturin.features = [\"f\"]\n"
		"maturin.module-name = \"m\"\n", .features = LIST("f"), .module_name = "m");
	PATCH("[project]\nname = \"a\"\n[tool]\nmaturin = {bindings = \"pyo3\"}\n",
		"[project]\nname = \"a\"\n[tool]\nmaturin = {bindings = \"pyo3\", features = [\"f\"], module-name = \"m\"}\n",
		.features = LIST("f"), .module_name = "m");
}

/* ---- dependencies -------------------------------------------------------- */

static void test_dependencies(void)
{
	PATCH("[project]\nname = \"a\"\ndependencies = [\n    \"numpy\",\n]\ndynamic = [\"version\"]\n",
		"[project]\nname = \"a\"\ndependencies = [\n    \"numpy\",\n    \"nvidia-cublas-cu12>=12\",\n]\n"
		"dynamic = [\"version\"]\n",
		.dependencies = LIST("numpy", "nvidia-cublas-cu12>=12"));
	/* missing: added to [project], however it is written */
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\"]\n\n[tool.x]\n",
		"[project]\nname = \"a\"\ndynamic = [\"version\"]\ndependencies = [\"d>=1\", \"e; sys_platform == \\\"linux\\\"\"]\n"
		"\n[tool.x]\n",
		.dependencies = LIST("d>=1", "e; sys_platform == \"linux\""));
	PATCH("project.name = \"a\"\nx = 1\n", "project.name = \"a\"\nproject.dependencies = [\"d\"]\nx = 1\n",
		.dependencies = LIST("d"));
	PATCH("project = { version = \"1\", name = \"a\" }\n",
		"project = { version = \"1\", name = \"b\", dependencies = [\"d\"] }\n", .name = "b", .dependencies = LIST("d"));
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\", \"dependencies\"]\n",
		"error: 3:11: [project].dependencies is dynamic: the variant's dependencies cannot be added",
		.dependencies = LIST("d"));
	PATCH("[project]\nname = \"a\"\ndependencies = \"d\"\n",
		"error: 3:16: [project].dependencies is a string, expected an array of strings", .dependencies = LIST("d"));
}

/* ---- [project].version (strategy index's local labels) --------------------- */

static void test_version(void)
{
	/* a static version: the string replaced, its quotes kept */
	PATCH("[project]\nname = \"a\"\nversion = '1.0'\n", "[project]\nname = \"a\"\nversion = '1.0+cuda'\n",
		.version = "1.0+cuda");
	PATCH("[project]\nname = \"a\"\nversion = \"1.0+cuda\"\n", "[project]\nname = \"a\"\nversion = \"1.0+cuda\"\n",
		.version = "1.0+cuda");
	/* dynamic (maturin takes Cargo's): out of `dynamic`, wherever it is in the array, and added */
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\"]\n",
		"[project]\nname = \"a\"\ndynamic = []\nversion = \"2.0+rocm.6\"\n", .version = "2.0+rocm.6");
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\",]\n",
		"[project]\nname = \"a\"\ndynamic = []\nversion = \"2+x\"\n", .version = "2+x");
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\", \"readme\"]\n",
		"[project]\nname = \"a\"\ndynamic = [\"readme\"]\nversion = \"2+x\"\n", .version = "2+x");
	PATCH("[project]\nname = \"a\"\ndynamic = [\"readme\", \"version\"]\n",
		"[project]\nname = \"a\"\ndynamic = [\"readme\"]\nversion = \"2+x\"\n", .version = "2+x");
	PATCH("[project]\nname = \"a\"\ndynamic = [\n  \"readme\",\n  \"version\",\n]\n",
		"[project]\nname = \"a\"\ndynamic = [\n  \"readme\",\n]\nversion = \"2+x\"\n", .version = "2+x");
	PATCH("[project]\nname = \"a\"\ndynamic = [\n  \"version\",\n  \"readme\",\n]\n",
		"[project]\nname = \"a\"\ndynamic = [\n  \"readme\",\n]\nversion = \"2+x\"\n", .version = "2+x");
	/* with the dependencies a variant adds: both keys in one place */
	PATCH("[project]\nname = \"a\"\ndynamic = [\"version\"]\n\n[tool.maturin]\n",
		"[project]\nname = \"a\"\ndynamic = []\nversion = \"1+c\"\ndependencies = [\"d\"]\n\n[tool.maturin]\n",
		.version = "1+c", .dependencies = LIST("d"));
	/* inline and dotted forms */
	PATCH("project = { name = \"a\", dynamic = [\"version\"] }\n",
		"project = { name = \"a\", dynamic = [], version = \"1+c\" }\n", .version = "1+c");
	PATCH("project.name = \"a\"\nproject.version = \"1\"\n", "project.name = \"a\"\nproject.version = \"1+c\"\n",
		.version = "1+c");
	/* both (which PEP 621 forbids): the string replaced, and out of `dynamic` */
	PATCH("[project]\nname = \"a\"\nversion = \"1\"\ndynamic = [\"version\"]\n",
		"[project]\nname = \"a\"\nversion = \"1+c\"\ndynamic = []\n", .version = "1+c");
	/* neither: added */
	PATCH("[project]\nname = \"a\"\n", "[project]\nname = \"a\"\nversion = \"1+c\"\n", .version = "1+c");
	PATCH("[project]\nname = \"a\"\nversion = 1\n", "error: 3:11: [project].version is an integer, expected a string",
		.version = "1+c");
}

/* ---- the contract: codes, diagnostics, the caller's buffer ---------------- */

/* ---- the [variant] table of strategy variants ------------------------------ */

static void test_variant_table(void)
{
	static struct wm_provider providers[2];
	static const char *nv[] = { "nvidia-variant-provider>=0.0.1,<1.0.0" }, *x86[] = { "provider-variant-x86-64", "b" };
	providers[0] = (struct wm_provider){ .ns = "nvidia", .requires = { nv, 1 },
		.plugin_api = "nvidia_variant_provider.plugin:NvidiaVariantPlugin" };
	providers[1] = (struct wm_provider){ .ns = "x86_64", .requires = { x86, 2 }, .optional = true };
	/* at the end, after a blank line, with the features merged as ever */
	PATCH("[project]\nname = \"a\"\n",
		"[project]\nname = \"a\"\n\n[tool.maturin]\nfeatures = [\"y\"]\n\n"
		"[variant.default-priorities]\nnamespace = [\"nvidia\", \"x86_64\"]\n\n"
		"[variant.providers.nvidia]\nrequires = [\"nvidia-variant-provider>=0.0.1,<1.0.0\"]\n"
		"plugin-api = \"nvidia_variant_provider.plugin:NvidiaVariantPlugin\"\n\n"
		"[variant.providers.x86_64]\nrequires = [\"provider-variant-x86-64\", \"b\"]\noptional = true\n",
		.features = LIST("y"), .providers = providers, .nproviders = 2);
	/* CRLF, and no final line ending: none added */
	PATCH("[project]\r\nname = \"a\"",
		"[project]\r\nname = \"a\"\r\n\r\n[variant.default-priorities]\r\nnamespace = [\"nvidia\"]\r\n\r\n"
		"[variant.providers.nvidia]\r\nrequires = [\"nvidia-variant-provider>=0.0.1,<1.0.0\"]\r\n"
		"plugin-api = \"nvidia_variant_provider.plugin:NvidiaVariantPlugin\"",
		.providers = providers, .nproviders = 1);
	/* the project's own [variant] table */
	PATCH("[project]\nname = \"a\"\n[variant.default-priorities]\nnamespace = []\n",
		"error: 3:2: the project has a [variant] table of its own, and the matrix's 'distribution.providers' "
		"writes it: remove one of them", .providers = providers, .nproviders = 1);
}

static void test_contract(void)
{
	static const char text[] = "[build-system]\nrequires = []\n\n[project]\nversion = \"1\"\n";
	static const char ok[] = "[project]\nname = \"a\"\n";
	struct wm_patch_spec spec = { .name = "b" };
	struct wm_toml_doc doc;
	struct wm_error err;
	struct wm_buf out = WM_BUF_INIT;

	wm_error_init(&err);
	CHECK(wm_toml_parse(&doc, "dir/pyproject.toml", text, strlen(text), &err) == 0);
	wm_buf_puts(&out, "kept");
	CHECK(wm_patch_pyproject(&out, &doc, &spec, &err) == WM_EINVALID);
	CHECK(err.code == WM_EINVALID && err.ndiags == 1 && err.nerrors == 1);
	if (err.ndiags == 1) {
		const struct wm_diag *d = &err.diags[0];
		CHECK_STR(d->file, "dir/pyproject.toml");
		CHECK(d->line == 4 && d->column == 1 && d->span == 9);
		CHECK_STR(d->source, "[project]");
		CHECK_STR(d->message, "pyproject.toml has no [project].name");
	}
	/* nothing was added to the caller's buffer */
	CHECK_STR(out.ptr, "kept");
	wm_toml_release(&doc);
	wm_error_release(&err);

	/* on success the text is appended */
	wm_error_init(&err);
	CHECK(wm_toml_parse(&doc, "pyproject.toml", ok, strlen(ok), &err) == 0);
	CHECK(wm_patch_pyproject(&out, &doc, &spec, &err) == 0);
	CHECK_STR(out.ptr, "kept[project]\nname = \"b\"\n");
	CHECK(err.code == WM_OK && err.ndiags == 0);
	wm_toml_release(&doc);
	wm_error_release(&err);
	wm_buf_release(&out);
}

int main(void)
{
	test_name();
	test_name_forms();
	test_name_errors();
	test_self_references();
	test_features_inline();
	test_features_multiline();
	test_features_missing();
	test_features_new_section();
	test_features_errors();
	test_crlf();
	test_pins();
	test_dependencies();
	test_version();
	test_variant_table();
	test_contract();
	return harness_done();
}
