/* test_toml.c — unit tests of the TOML parser: spans, append offsets, comments, line endings, and errors. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "formats/toml.h"

static const char pyproject[] =
	"[build-system]\n"
	"requires = [\"maturin>=1.5,<2.0\"]\n"
	"build-backend = \"maturin\"\n"
	"\n"
	"[project]\n"
	"name = \"llm-rs\"  # the distribution\n"
	"version = \"0.3.0\"\n"
	"\n"
	"# maturin's settings\n"
	"[tool.maturin]\n"
	"features = [\n"
	"    \"pyo3/extension-module\",  # always\n"
	"    # \"cublas\",\n"
	"    \"abi3\",\n"
	"]\n"
	"module-name = \"llm_rs._native\"\n"
	"\n"
	"[tool.other]\n"
	"x = 1\n";

/* The offset of the first occurrence of `needle` in `text` (the test's own fixture: it is there). */
static size_t at(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	return p ? (size_t)(p - text) : (size_t)-1;
}

static bool parse(struct wm_toml_doc *doc, const char *text)
{
	struct wm_error err;
	int ret;
	wm_error_init(&err);
	ret = wm_toml_parse(doc, "pyproject.toml", text, strlen(text), &err);
	if (ret < 0 && err.ndiags)
		fprintf(stderr, "unexpected error: %u:%u: %s\n", err.diags[0].line, err.diags[0].column,
			err.diags[0].message);
	wm_error_release(&err);
	return ret == 0;
}

/* The one kv of `t` whose key is written as `key`. */
static const struct wm_toml_kv *kv_of(const struct wm_toml_doc *doc, const struct wm_toml_table *t, const char *key)
{
	for (size_t i = 0; t && i < t->nkvs; i++)
		if (t->kvs[i].key.end - t->kvs[i].key.start == strlen(key) &&
				!memcmp(doc->text + t->kvs[i].key.start, key, strlen(key)))
			return &t->kvs[i];
	return NULL;
}

static void test_project_name(void)
{
	struct wm_toml_doc doc;
	const struct wm_toml_value *name, *project;
	const struct wm_toml_kv *kv;
	size_t start = at(pyproject, "\"llm-rs\"");

	CHECK(parse(&doc, pyproject));
	name = wm_toml_get_path(doc.root, "project.name");
	CHECK(wm_toml_is_string(name));
	if (!name)
		goto out;
	CHECK_STR(name->str, "llm-rs");
	CHECK(name->len == 6);
	CHECK(name->style == WM_TOML_BASIC);
	CHECK(name->span.start == start && name->span.end == start + 8);
	CHECK(name->span.line == 6 && name->span.column == 8);
	/* renaming is a splice of the span */
	CHECK(!memcmp(doc.text + name->span.start, "\"llm-rs\"", 8));

	project = wm_toml_table_get(doc.root, "project");
	CHECK(wm_toml_is_table(project) && project->table->origin == WM_TOML_HEADER);
	CHECK(project->table->header.start == at(pyproject, "[project]"));
	CHECK(project->table->header.end == at(pyproject, "[project]") + 9);
	CHECK(project->table->header.line == 5 && project->table->header.column == 1);
	kv = kv_of(&doc, project->table, "name");
	CHECK(kv && kv->value == name && kv->table == project->table && kv->nparts == 1);
	if (kv) {
		CHECK(kv->line.start == at(pyproject, "name = "));
		CHECK(kv->line.end == at(pyproject, "version = "));  /* comment and newline included */
		CHECK(kv->key.start == kv->line.start && kv->key.end == kv->key.start + 4);
		CHECK(kv->parts[0].style == WM_TOML_BARE && kv->parts[0].span.column == 1);
	}
	/* after the last key/value line: before the blank line and the comment of [tool.maturin] */
	CHECK(project->table->append == at(pyproject, "\n# maturin's") );
	CHECK(doc.root->append == 0);
	CHECK(!doc.crlf && doc.final_newline && !doc.bom);
out:
	wm_toml_release(&doc);
}

static void test_features_array(void)
{
	struct wm_toml_doc doc;
	const struct wm_toml_value *features, *maturin, *tool, *module;
	const struct wm_toml_array *a;
	size_t close = at(pyproject, "]\nmodule-name");

	CHECK(parse(&doc, pyproject));
	features = wm_toml_get_path(doc.root, "tool.maturin.features");
	CHECK(wm_toml_is_array(features));
	if (!features)
		goto out;
	a = &features->array;
	CHECK(a->n == 2 && a->multiline && !a->aot);
	CHECK(a->open.start == at(pyproject, "[\n    \"pyo3") && a->open.line == 11 && a->open.column == 12);
	CHECK(a->close.start == close && a->close.end == close + 1);
	CHECK(a->close.line == 15 && a->close.column == 1);
	CHECK(features->span.start == a->open.start && features->span.end == close + 1);
	if (a->n == 2) {
		CHECK_STR(a->items[0]->str, "pyo3/extension-module");
		CHECK(a->items[0]->span.start == at(pyproject, "\"pyo3/"));
		CHECK(a->items[0]->span.line == 12 && a->items[0]->span.column == 5);
		CHECK_STR(a->items[1]->str, "abi3");
		CHECK(a->items[1]->span.start == at(pyproject, "\"abi3\""));
		CHECK(a->items[1]->span.end == at(pyproject, "\"abi3\"") + 6);
		CHECK(a->items[1]->span.line == 14 && a->items[1]->span.column == 5);
	}
	CHECK(a->trailing_comma);
	CHECK(a->comma.start == at(pyproject, "\"abi3\"") + 6 && a->comma.end == a->comma.start + 1);
	CHECK(a->comma.line == 14 && a->comma.column == 11);

	maturin = wm_toml_get_path(doc.root, "tool.maturin");
	tool = wm_toml_table_get(doc.root, "tool");
	module = wm_toml_get_path(doc.root, "tool.maturin.module-name");
	CHECK(maturin && maturin->table->origin == WM_TOML_HEADER);
	CHECK(tool && tool->table->origin == WM_TOML_IMPLICIT && tool->table->append == SIZE_MAX);
	CHECK(tool && tool->span.start == at(pyproject, "tool.maturin]") && tool->span.end == tool->span.start + 4);
	/* a key line goes after module-name, before the blank line preceding [tool.other] */
	CHECK(maturin && module && maturin->table->append == module->span.end + 1);
	CHECK(maturin && maturin->table->append == at(pyproject, "\n[tool.other]"));
	CHECK(maturin && maturin->table->nkvs == 2 && maturin->table->n == 2);
	CHECK(wm_toml_get_path(doc.root, "tool.other.x")->integer == 1);
	CHECK(tool && tool->table->n == 2 && !strcmp(tool->table->entries[1].key, "other"));
out:
	wm_toml_release(&doc);
}

static void test_comments(void)
{
	struct wm_toml_doc doc;
	static const char *const want[] = { "# the distribution", "# maturin's settings", "# always", "# \"cublas\"," };
	CHECK(parse(&doc, pyproject));
	CHECK(doc.ncomments == 4);
	for (size_t i = 0; i < doc.ncomments && i < 4; i++) {
		const struct wm_toml_span *c = &doc.comments[i];
		CHECK(c->start == at(pyproject, want[i]));
		CHECK(c->end - c->start == strlen(want[i]));  /* the line ending is not part of it */
	}
	if (doc.ncomments == 4) {
		CHECK(doc.comments[0].line == 6 && doc.comments[0].column == 18);
		CHECK(doc.comments[3].line == 13 && doc.comments[3].column == 5);
	}
	wm_toml_release(&doc);
}

static void test_dotted_keys(void)
{
	static const char text[] =
		"[tool]\n"
		"maturin.features = [\"a\"]\n"
		"maturin . \"bindings\" = 'pyo3'\n"
		"\n"
		"[other]\n";
	struct wm_toml_doc doc;
	const struct wm_toml_value *tool, *maturin, *features;
	const struct wm_toml_kv *kv;

	CHECK(parse(&doc, text));
	tool = wm_toml_table_get(doc.root, "tool");
	maturin = wm_toml_get_path(doc.root, "tool.maturin");
	features = wm_toml_get_path(doc.root, "tool.maturin.features");
	CHECK(tool && maturin && features);
	if (!tool || !maturin || !features)
		goto out;
	CHECK(maturin->table->origin == WM_TOML_DOTTED && maturin->table->parent == tool->table);
	CHECK(maturin->span.start == at(text, "maturin.") && maturin->span.line == 2);
	CHECK(tool->table->nkvs == 2 && maturin->table->nkvs == 0 && maturin->table->n == 2);
	kv = &tool->table->kvs[0];
	CHECK(kv->nparts == 2 && kv->table == maturin->table && kv->value == features);
	CHECK(kv->key.start == at(text, "maturin.features") && kv->key.end == kv->key.start + 16);
	CHECK(kv->parts[0].span.start == kv->key.start && kv->parts[0].span.end == kv->key.start + 7);
	CHECK(kv->parts[1].span.start == kv->key.start + 8 && kv->parts[1].span.column == 9);
	CHECK(kv->line.end == at(text, "maturin . "));
	kv = &tool->table->kvs[1];
	CHECK(kv->nparts == 2 && kv->parts[1].style == WM_TOML_BASIC && !strcmp(kv->parts[1].name, "bindings"));
	CHECK(kv->key.end - kv->key.start == strlen("maturin . \"bindings\""));
	CHECK(kv->value->style == WM_TOML_LITERAL && !strcmp(kv->value->str, "pyo3"));
	/* a maturin.<key> line goes after the last line that writes into tool.maturin */
	CHECK(maturin->table->append == at(text, "\n[other]"));
	CHECK(tool->table->append == maturin->table->append);
	CHECK(features->array.n == 1 && !features->array.multiline && !features->array.trailing_comma);
	CHECK(features->array.close.start == at(text, "]\nmaturin ."));
out:
	wm_toml_release(&doc);
}

static void test_inline_table(void)
{
	static const char text[] = "project = {name = \"x\", version = \"1\"}\nother = {}\n";
	struct wm_toml_doc doc;
	const struct wm_toml_value *project, *name, *other;
	const struct wm_toml_kv *kv;

	CHECK(parse(&doc, text));
	project = wm_toml_table_get(doc.root, "project");
	name = wm_toml_get_path(doc.root, "project.name");
	other = wm_toml_table_get(doc.root, "other");
	CHECK(project && name && other);
	if (!project || !name || !other)
		goto out;
	CHECK(project->table->origin == WM_TOML_INLINE && project->table->parent == doc.root);
	CHECK(project->span.start == 10 && project->span.end == at(text, "\nother"));
	CHECK(project->table->header.start == 10 && project->table->header.end == project->span.end);
	CHECK(name->span.start == at(text, "\"x\"") && name->span.column == 19);
	CHECK(project->table->nkvs == 2);
	kv = kv_of(&doc, project->table, "version");
	CHECK(kv && kv->line.start == at(text, "version") && kv->line.end == at(text, "}"));
	CHECK(project->table->append == at(text, "}"));  /* a new pair goes before the brace */
	CHECK(other->table->n == 0 && other->table->append == strlen(text) - 2);  /* {} */
	CHECK(doc.root->nkvs == 2 && doc.root->kvs[0].line.end == at(text, "other"));
	CHECK(doc.root->append == strlen(text));
out:
	wm_toml_release(&doc);
}

static void test_line_endings(void)
{
	static const char crlf[] = "[project]\r\nname = \"x\"\r\ndescription = \"\"\"\r\none\r\ntwo\"\"\"\r\n";
	static const char lf_only[] = "a = 1\nb = \"x\\r\\n\"\r\n";
	static const char no_newline[] = "[project]\nname = \"x\"";
	static const char bom[] = "\xef\xbb\xbf" "name = \"x\"\n";
	static const char bom_header[] = "\xef\xbb\xbf" "# comment\n[a]\n";
	struct wm_toml_doc doc;
	const struct wm_toml_value *v;

	CHECK(parse(&doc, crlf));
	CHECK(doc.crlf && doc.final_newline);
	v = wm_toml_get_path(doc.root, "project.description");
	CHECK(v && v->style == WM_TOML_ML_BASIC && !strcmp(v->str, "one\ntwo"));  /* CRLF read as LF */
	v = wm_toml_get_path(doc.root, "project");
	CHECK(v && v->table->kvs[0].line.end == at(crlf, "description"));  /* the CR and the LF */
	CHECK(v && v->table->append == strlen(crlf));
	wm_toml_release(&doc);

	CHECK(parse(&doc, lf_only));
	CHECK(!doc.crlf);  /* the first line ending decides */
	wm_toml_release(&doc);

	CHECK(parse(&doc, no_newline));
	CHECK(!doc.final_newline && !doc.crlf);
	v = wm_toml_get_path(doc.root, "project");
	CHECK(v && v->table->kvs[0].line.end == strlen(no_newline));
	CHECK(v && v->table->append == strlen(no_newline));
	wm_toml_release(&doc);

	CHECK(parse(&doc, bom));
	CHECK(doc.bom && doc.root->append == strlen(bom));
	v = wm_toml_table_get(doc.root, "name");
	CHECK(v && v->span.start == 10 && v->span.line == 1 && v->span.column == 9);  /* the mark is a character */
	wm_toml_release(&doc);

	CHECK(parse(&doc, bom_header));
	CHECK(doc.bom && doc.root->append == 3);  /* no key/value line: the start, after the mark */
	wm_toml_release(&doc);
}

static void test_array_of_tables(void)
{
	static const char text[] = "[[bin]]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n[bin.extra]\n";
	struct wm_toml_doc doc;
	const struct wm_toml_value *bin;

	CHECK(parse(&doc, text));
	bin = wm_toml_table_get(doc.root, "bin");
	CHECK(bin && bin->type == WM_TOML_ARRAY && bin->array.aot && bin->array.n == 2);
	if (bin && bin->array.n == 2) {
		const struct wm_toml_table *b = bin->array.items[1]->table;
		CHECK(b->origin == WM_TOML_AOT && b->header.start == at(text, "[[bin]]\nname = \"b\""));
		CHECK(b->header.line == 4 && b->header.end == b->header.start + 7);
		CHECK(b->append == at(text, "[bin.extra]"));
		CHECK(wm_toml_table_get(b, "extra") != NULL);
		CHECK(bin->array.items[0]->table->append == at(text, "\n[[bin]]\nname = \"b\""));
	}
	CHECK(wm_toml_get_path(doc.root, "bin.name") == NULL);  /* no path through arrays */
	wm_toml_release(&doc);
}

static void test_lookups(void)
{
	static const char text[] = "a = 1\nb = 1.5\nc = true\nd = 1979-05-27\ns = \"nul\\u0000x\"\n[t]\n";
	struct wm_toml_doc doc;
	const struct wm_toml_value *s;
	CHECK(parse(&doc, text));
	CHECK(wm_toml_is_integer(wm_toml_table_get(doc.root, "a")));
	CHECK(wm_toml_is_float(wm_toml_table_get(doc.root, "b")));
	CHECK_STR(wm_toml_table_get(doc.root, "b")->raw, "1.5");
	CHECK(wm_toml_is_bool(wm_toml_table_get(doc.root, "c")));
	CHECK(wm_toml_is_datetime(wm_toml_table_get(doc.root, "d")));
	CHECK(wm_toml_table_get(doc.root, "d")->type == WM_TOML_DATE_LOCAL);
	CHECK(!wm_toml_is_string(wm_toml_table_get(doc.root, "a")));
	CHECK(!wm_toml_is_table(NULL) && wm_toml_table_get(NULL, "a") == NULL);
	CHECK(wm_toml_get_path(doc.root, "a.b") == NULL);
	CHECK(wm_toml_get_path(doc.root, "zz") == NULL);
	CHECK(wm_toml_is_table(wm_toml_get_path(doc.root, "t")));
	s = wm_toml_table_get(doc.root, "s");
	CHECK(s && s->len == 5 && !memcmp(s->str, "nul\0x", 6));
	CHECK_STR(wm_toml_type_name(WM_TOML_INTEGER), "an integer");
	wm_toml_release(&doc);
}

/* Parses `text`, which must fail with one error at line:column with `message`. */
static void check_error(const char *text, size_t len, unsigned line, unsigned column, const char *message)
{
	struct wm_toml_doc doc;
	struct wm_error err;
	int ret;
	wm_error_init(&err);
	ret = wm_toml_parse(&doc, "pyproject.toml", text, len, &err);
	CHECK(ret == WM_EINVALID && err.code == WM_EINVALID && err.ndiags == 1);
	if (err.ndiags) {
		const struct wm_diag *d = &err.diags[0];
		CHECK_STR(d->message, message);
		CHECK_STR(d->file, "pyproject.toml");
		if (d->line != line || d->column != column)
			fprintf(stderr, "    for %s: at %u:%u, want %u:%u\n", message, d->line, d->column, line, column);
		CHECK(d->line == line && d->column == column);
	}
	wm_toml_release(&doc);
	wm_error_release(&err);
}

#define ERROR_AT(text, line, column, message) check_error(text, sizeof(text) - 1, line, column, message)

static void test_errors(void)
{
	char *big, deep[300];
	ERROR_AT("[project]\nversion = \"1\"\nname = \"a\"\nname = \"b\"\n", 4, 1,
		"duplicate key 'name' (first defined at line 3)");
	ERROR_AT("[project]\nname = \"a\\qb\"\n", 2, 10, "invalid escape '\\q' in a string");
	ERROR_AT("[project]\nname \"x\"\n", 2, 6, "expected '=' after the key");
	ERROR_AT("[project]\nname = 'x'\n\n[project]\n", 4, 1, "table [project] defined twice (first defined at line 1)");
	ERROR_AT("[tool]\nmaturin.features = []\n[tool.maturin]\n", 3, 1,
		"table [tool.maturin] was already defined with dotted keys at line 2");
	ERROR_AT("project = {name = \"x\"}\n[project]\n", 2, 1,
		"table [project] was already defined as an inline table at line 1");
	ERROR_AT("a = {b = 1}\na.c = 2\n", 2, 1,
		"cannot add keys to 'a': it is an inline table (defined at line 1), and inline tables cannot be extended");
	ERROR_AT("features = [\"a\",\n  \"b\"\n  \"c\"]\n", 3, 3, "expected ',' or ']' after an item of the array, found '\"'");
	ERROR_AT("x = 012\n", 1, 5, "invalid number '012': leading zeros are not allowed");
	ERROR_AT("x = 9223372036854775808\n", 1, 5, "invalid number '9223372036854775808': out of the range of 64-bit integers");
	ERROR_AT("d = 2023-02-29\n", 1, 5, "invalid date-time '2023-02-29': February has 28 days that year");
	ERROR_AT("name = \"é\x01\"\n", 1, 10,
		"control character U+0001 in a string: write it as an escape (\\u0001) in a \"...\" string");
	ERROR_AT("a = 1\rb = 2\n", 1, 6, "a carriage return (U+000D) must be followed by a line feed");
	ERROR_AT("a = \"x\n", 1, 5, "unterminated string: a \"...\" string ends on its line "
		"(a multi-line string is written \"\"\"...\"\"\")");
	ERROR_AT("a = [1,\n2\n", 1, 5, "unterminated array: expected ']' before the end of the file");
	ERROR_AT("a = 1 2\n", 1, 7, "expected the end of the line after the value, found '2'");
	ERROR_AT("a = {b = 1,}\n", 1, 11, "a trailing comma is not allowed in an inline table");
	ERROR_AT("a = {b = 1, }\n", 1, 11, "a trailing comma is not allowed in an inline table");
	ERROR_AT("é = 1\n", 1, 1, "expected a key, found 'é' (a bare key is made of A-Z a-z 0-9 _ and -: quote other keys)");
	ERROR_AT("a = \xff\n", 1, 5, "invalid UTF-8 (byte 0xff): the file must be UTF-8");
	ERROR_AT("# ok\n# bad \x7f\n", 2, 7, "control character U+007F is not allowed in a comment");
	ERROR_AT("a = x\n", 1, 5, "invalid value 'x' (strings are written in quotes)");
	ERROR_AT("a = \n", 1, 5, "expected a value after '=', found the end of the line");
	ERROR_AT("[[a]]\n[a]\n", 2, 1, "[a] is already an array of tables (defined at line 1): [[a]] adds an element");
	ERROR_AT("a = []\n[[a]]\n", 2, 1, "cannot add to 'a' with [[a]]: it is a static array (defined at line 1), "
		"not an array of tables");

	/* limits */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "a = ", 4);
	check_error(deep, sizeof(deep), 1, 133, "nesting deeper than 128 levels");
	big = calloc(1, WM_TOML_MAX_BYTES + 1);
	if (big) {
		check_error(big, WM_TOML_MAX_BYTES + 1, 0, 0, "the file is larger than the limit of 16 MiB");
		free(big);
	}
}

/* A text of `n` items between `head` and `tail`: `pre`, the item's number when `numbered`, `post`. */
static char *repeat(const char *head, const char *pre, bool numbered, const char *post, size_t n, const char *tail)
{
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_puts(&b, head);
	for (size_t i = 0; i < n; i++) {
		wm_buf_puts(&b, pre);
		if (numbered)
			wm_buf_printf(&b, "%zu", i);
		wm_buf_puts(&b, post);
	}
	wm_buf_puts(&b, tail);
	return b.oom ? (wm_buf_release(&b), NULL) : wm_buf_detach(&b);
}

/*
 * At most WM_TOML_MAX_VALUES values (the root table too) and comments: the one past them is
 * refused where it stands, whatever kind it is.
 */
static void test_counts(void)
{
	static const char msg[] = "more than 65536 values and comments in one file, the limit of the TOML reader "
		"(a pyproject.toml or Cargo.toml holds some hundreds)";
	static const struct {
		const char *head, *pre, *post, *tail;
		bool numbered;
		size_t others;             /* the values besides the items: the root, and x */
		size_t line_step, col_step, col_first;  /* where item k is: line 1 + k * line_step, ... */
	} cases[] = {
		{ "x = [", "1,", "", "]\n", false, 2, 0, 2, 6 },
		{ "x = [", "{},", "", "]\n", false, 2, 0, 3, 6 },
		{ "x = [", "\"s\",", "", "]\n", false, 2, 0, 4, 6 },
		{ "", "[t", "]\n", "", true, 1, 1, 0, 1 },
		{ "", "# ", "\n", "", true, 1, 1, 0, 1 },
	};
	struct wm_toml_doc doc;
	char *text;

	for (size_t i = 0; i < WM_ARRAY_SIZE(cases); i++) {
		size_t n = WM_TOML_MAX_VALUES - cases[i].others;
		if ((text = repeat(cases[i].head, cases[i].pre, cases[i].numbered, cases[i].post, n, cases[i].tail))) {
			CHECK(parse(&doc, text));
			wm_toml_release(&doc);
			free(text);
		}
		if ((text = repeat(cases[i].head, cases[i].pre, cases[i].numbered, cases[i].post, n + 1, cases[i].tail))) {
			check_error(text, strlen(text), 1 + (unsigned)(n * cases[i].line_step),
				(unsigned)(cases[i].col_first + n * cases[i].col_step), msg);
			free(text);
		}
	}
	/* keys: each one's value counts, and the one too many is named at its value */
	if ((text = repeat("", "k", true, " = 1\n", WM_TOML_MAX_VALUES - 1, "")) != NULL) {
		CHECK(parse(&doc, text));
		CHECK(doc.root && doc.root->n == WM_TOML_MAX_VALUES - 1 && doc.root->nkvs == WM_TOML_MAX_VALUES - 1);
		wm_toml_release(&doc);
		free(text);
	}
	if ((text = repeat("", "k", true, " = 1\n", WM_TOML_MAX_VALUES, "")) != NULL) {
		check_error(text, strlen(text), WM_TOML_MAX_VALUES, 10, msg);
		free(text);
	}
}

int main(void)
{
	test_project_name();
	test_features_array();
	test_comments();
	test_dotted_keys();
	test_inline_table();
	test_line_endings();
	test_array_of_tables();
	test_lookups();
	test_errors();
	test_counts();
	return harness_done();
}
