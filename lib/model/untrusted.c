/*
 * untrusted.c — the checks of matrix values that reach the CI files as they are: the shape of setup
 * steps (expressions inside values only), GitHub expressions (what they read, through expr.c) in
 * them, before-script-linux, environment values, labels and names; the text of paths; the
 * environment variables the matrix may not set.
 */
#include <stdio.h>
#include <string.h>
#include "util/arena.h"
#include "util/name.h"
#include "util/utf8.h"
#include "formats/yaml.h"
#include "model/expr.h"
#include "model/loader.h"
#include "model/schema.h"
#include "model/untrusted.h"

bool wm_untrusted_expression_free(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	if (!strstr(n->text, "${{"))
		return true;
	wm_schema_error(&l->c, n, "%s cannot hold a GitHub expression ('${{'): it is written into the CI files "
		"as it is", what);
	return false;
}

/* Where line `line`, column `column` (in characters) starts in the document's text, or NULL. */
static const char *source_at(const struct wm_doc *doc, unsigned line, unsigned column)
{
	const char *p = doc->text, *end = doc->text + doc->len;
	for (unsigned i = 1; i < line && p; i++)
		if ((p = memchr(p, '\n', (size_t)(end - p))) != NULL)
			p++;
	for (unsigned i = 1; i < column && p && p < end; i++)
		do
			p++;
		while (p < end && ((unsigned char)*p & 0xc0) == 0x80);
	return p && p < end ? p : NULL;
}

/*
 * The column of byte `at` of scalar n's text: exact in a one-line scalar whose text is its
 * source (plain, or quoted without escapes); else the scalar's own column.
 */
static unsigned column_of(struct wm_loader *l, const struct wm_node *n, size_t at)
{
	const char *src;
	if (n->end_line != n->line || at >= n->len)
		return n->column;
	if (n->style == WM_PLAIN)
		return n->column + (unsigned)wm_utf8_len(n->text, at);
	src = n->style == WM_QUOTED && l->c.doc ? source_at(l->c.doc, n->line, n->column) : NULL;
	if (src && (size_t)(l->c.doc->text + l->c.doc->len - src) > n->len + 1 && (*src == '"' || *src == '\'') &&
			memcmp(src + 1, n->text, n->len) == 0 && src[n->len + 1] == *src)
		return n->column + 1 + (unsigned)wm_utf8_len(n->text, at);
	return n->column;
}

void wm_untrusted_expr_error(struct wm_loader *l, const struct wm_node *n, const struct wm_expr_fault *f,
	const char *where, const char *hint)
{
	unsigned span = (unsigned)f->len;
	size_t at = f->at >= n->text && (size_t)(f->at - n->text) < n->len ? (size_t)(f->at - n->text) : n->len;
	if (span > 60)
		span = 60;
	wm_schema_error_at(&l->c, n->line, column_of(l, n, at), span ? span : 1, "the expression in %s %s '%.*s': GitHub evaluates "
		"it before the step runs, so it may read only contexts nobody outside the repository chooses, "
		"such as runner.os, github.sha and secrets.NAME (see 'Expressions' in docs/matrix.md); %s",
		where, f->why, (int)(f->len > 80 ? 80 : f->len), f->at, hint);
}

bool wm_untrusted_path(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	struct wm_path_fault f;
	unsigned column, span;
	if (wm_name_path_text(n->text, n->len, &f))
		return true;
	column = column_of(l, n, f.at);
	/* at the character when the source shows it, else the whole value */
	span = column != n->column || n->style == WM_PLAIN ? (f.hidden ? 1 : (unsigned)f.len) : wm_yaml_span(n);
	/* a hidden character is named, not printed */
	if (f.hidden)
		wm_schema_error_at(&l->c, n->line, column, span ? span : 1, "invalid path in %s: it holds U+%04X, %s", what,
			(unsigned)f.cp, f.why);
	else
		wm_schema_error_at(&l->c, n->line, column, span ? span : 1, "invalid path '%s' in %s: it holds %s", n->text,
			what, f.why);
	return false;
}

/*
 * The first `${{ ... }}` of an environment value that is not a plain
 * `secrets.NAME` or `vars.NAME` (or is not closed), its length in *len;
 * NULL when every expression is one of those.
 */
static const char *env_expression(const char *s, size_t *len)
{
	const char *open = s;
	while ((open = strstr(open, "${{")) != NULL) {
		const char *p = open + 3, *close = strstr(p, "}}"), *id;
		while (*p == ' ')
			p++;
		if (strncmp(p, "secrets.", 8) == 0)
			p += 8;
		else if (strncmp(p, "vars.", 5) == 0)
			p += 5;
		else
			p = NULL;
		for (id = p; p && wm_loader_ident_char(*p); p++)
			;
		while (p && *p == ' ')
			p++;
		if (!close || !p || p == id || p != close) {
			*len = close ? (size_t)(close + 2 - open) : strlen(open);
			return open;
		}
		open = close + 2;
	}
	return NULL;
}

/*
 * Why an environment variable name is not the matrix file's to set, or NULL: the generated jobs'
 * own WM_* variables (a value there would replace the job's, and reach its scripts) and the CI
 * providers' names, unless `code_only`; and always the names that make a shell, the dynamic
 * linker, git or Python run other code.
 */
const char *wm_untrusted_env_reserved(const char *name, bool code_only)
{
	static const struct {
		const char *prefix;
		bool code;
		const char *why;
	} prefixes[] = {
		{ "WM_", false, "the generated jobs set WM_* variables themselves" },
		{ "GITHUB_", false, "GitHub sets GITHUB_* variables" },
		{ "RUNNER_", false, "GitHub sets RUNNER_* variables" },
		{ "ACTIONS_", false, "GitHub sets ACTIONS_* variables" },
		{ "CI_", false, "GitLab sets CI_* variables" },
		{ "GITLAB_", false, "GitLab sets GITLAB_* variables" },
		{ "BASH_FUNC_", true, "bash imports functions from them" },
	};
	static const char *const names[] = { "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS",
		"PATH", "HOME", "LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONPATH" };
	if (!code_only && strcmp(name, "CI") == 0)
		return "the CI providers set it";
	for (size_t i = 0; i < WM_ARRAY_SIZE(prefixes); i++)
		if ((prefixes[i].code || !code_only) && strncmp(name, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
			return prefixes[i].why;
	for (size_t i = 0; i < WM_ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0)
			return "it changes what the build's shell, linker or Python runs";
	return NULL;
}

void wm_untrusted_load_env(struct wm_loader *l, const struct wm_node *n, struct wm_env **out, size_t *nout)
{
	struct wm_env *env;
	*out = NULL;
	*nout = 0;
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'env' must be a mapping of variable names to strings, not %s", wm_yaml_kind(n));
		return;
	}
	env = wm_arena_array(l->c.arena, n->n + 1, sizeof(*env));
	if (wm_loader_oom(l, env))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *value;
		if (!wm_name_env(k->text)) {
			wm_schema_error(&l->c, k, "invalid environment variable name '%s': letters, digits and '_', "
				"not starting with a digit", k->text);
			continue;
		}
		{
			const char *why = wm_untrusted_env_reserved(k->text, false);
			if (why) {
				wm_schema_error(&l->c, k, "environment variable '%s' is reserved: %s", k->text, why);
				continue;
			}
		}
		if (!wm_schema_string(&l->c, v, "an environment value", &value))
			continue;
		{
			static const char *const allowed[] = { "secrets.*", "vars.*" };
			struct wm_expr_fault f;
			const char *bad;
			size_t blen;
			if (!wm_expr_check(value, allowed, WM_ARRAY_SIZE(allowed), &f))
				wm_untrusted_expr_error(l, v, &f, "an environment value", "the build environment takes fixed values, "
					"${{ secrets.NAME }} and ${{ vars.NAME }}");
			else if ((bad = env_expression(value, &blen)) != NULL)
				wm_schema_error(&l->c, v, "unsupported expression '%.*s' in an environment value: only "
					"${{ secrets.NAME }} and ${{ vars.NAME }} may appear there", (int)blen, bad);
		}
		env[*nout].name = k->text;
		env[*nout].loc = wm_loader_loc(l, v);
		env[(*nout)++].value = value;
	}
	*out = env;
}

/* A value GitHub evaluates before the step runs: its expressions read only the safe contexts. */
static void setup_expressions(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_expr_fault f;
	if (!wm_expr_check(n->text, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
		wm_untrusted_expr_error(l, n, &f, "a setup step", "set the value in the step's 'env:' and use the "
			"variable");
}

/*
 * Reports node n, which must be a scalar (what GitHub reads as one value), written as a mapping,
 * a list or null, or which must be a mapping, written as anything else: above all as one
 * expression, whose value would then give the mapping's keys.  True when n is of its kind.
 */
static bool step_shape(struct wm_loader *l, const struct wm_node *n, const char *what, bool mapping)
{
	if (mapping && n->type == WM_NODE_MAP)
		return true;
	if (!mapping && n->type == WM_NODE_SCALAR && !wm_yaml_is_null(n))
		return true;
	if (mapping && n->type == WM_NODE_SCALAR && strstr(n->text, "${{"))
		wm_schema_error(&l->c, n, "%s is written as one GitHub expression ('${{ ... }}'), whose value would give its keys: "
			"whoever controls what the expression reads would choose them (an 'env' with BASH_ENV runs a "
			"file in every bash step); write the mapping out, with expressions only in its values", what);
	else
		wm_schema_error(&l->c, n, "%s must be %s, not %s", what, mapping ? "a mapping" : "a string", wm_yaml_kind(n));
	return false;
}

/* Input names of an action, as GitHub takes them: a letter or '_', then letters, digits, '-' and '_'. */
static bool input_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	while (*++s)
		if (!wm_loader_ident_char(*s))
			return false;
	return true;
}

/* A step's `env:` or `with:`: literal names, one value each, expressions only in the values. */
static void step_mapping(struct wm_loader *l, const struct wm_node *n, bool env)
{
	if (!step_shape(l, n, env ? "a setup step's 'env'" : "a setup step's 'with'", true))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *why;
		if (env && !wm_name_env(k->text))
			wm_schema_error(&l->c, k, "invalid environment variable name '%s': letters, digits and '_', "
				"not starting with a digit", k->text);
		else if (env && (why = wm_untrusted_env_reserved(k->text, true)) != NULL)
			wm_schema_error(&l->c, k, "environment variable '%s' is reserved: %s, and a step's 'env:' values may "
				"read any context", k->text, why);
		else if (!env && !input_name(k->text))
			wm_schema_error(&l->c, k, "invalid input name '%s': a letter or '_', then letters, digits, '-' and '_'",
				k->text);
		/* a step's own env: may read any context: the step reads it as a variable, not as code */
		if (step_shape(l, v, env ? "a value of a setup step's 'env'" : "a value of a setup step's 'with'", false) &&
				!env)
			setup_expressions(l, v);
	}
}

static const char *const step_keys[] = { "name", "id", "if", "uses", "with", "run", "shell", "working-directory",
	"env", "continue-on-error", "timeout-minutes" };
const struct wm_names wm_untrusted_step_keys = WM_NAMES(step_keys);

void wm_untrusted_github_step(struct wm_loader *l, const struct wm_node *step)
{
	if (!step_shape(l, step, "a GitHub setup step ({run: ...} or {uses: ...})", true) ||
			!wm_schema_map(&l->c, step, "a GitHub setup step", step_keys, WM_ARRAY_SIZE(step_keys)))
		return;
	for (size_t i = 0; i < step->n; i++) {
		const char *key = step->pairs[i].key->text;
		const struct wm_node *v = step->pairs[i].value;
		char what[48];
		if (strcmp(key, "env") == 0 || strcmp(key, "with") == 0) {
			step_mapping(l, v, strcmp(key, "env") == 0);
			continue;
		}
		snprintf(what, sizeof(what), "a setup step's '%s'", key);
		if (step_shape(l, v, what, false))
			setup_expressions(l, v);
	}
}

void wm_untrusted_gitlab_line(struct wm_loader *l, const struct wm_node *line)
{
	if (step_shape(l, line, "a GitLab setup step (a script line)", false))
		setup_expressions(l, line);
}
