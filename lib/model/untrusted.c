/*
 * untrusted.c — the checks of matrix values that reach the CI files as they are: GitHub expressions
 * (what they read, through expr.c) in setup steps, before-script-linux, environment values, labels
 * and names; the environment variables the matrix may not set.
 */
#include <string.h>
#include "util/arena.h"
#include "util/name.h"
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

void wm_untrusted_expr_error(struct wm_loader *l, const struct wm_node *n, const struct wm_expr_fault *f,
	const char *where, const char *hint)
{
	unsigned line = n->line, column = n->column, span = (unsigned)f->len;
	if (n->style == WM_PLAIN && n->end_line == n->line && f->at >= n->text &&
			(size_t)(f->at - n->text) < n->len)
		column += (unsigned)(f->at - n->text);
	if (span > 60)
		span = 60;
	wm_schema_error_at(&l->c, line, column, span ? span : 1, "the expression in %s %s '%.*s': GitHub evaluates "
		"it before the step runs, so it may read only contexts nobody outside the repository chooses, "
		"such as runner.os, github.sha and secrets.NAME (see 'Expressions' in docs/matrix.md); %s",
		where, f->why, (int)(f->len > 80 ? 80 : f->len), f->at, hint);
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
 * own WM_* variables (a value there would replace the job's, and reach its scripts), the CI
 * providers' names, and the names that make a shell, the dynamic linker or Python run other code.
 */
static const char *env_reserved(const char *name)
{
	static const char *const prefixes[][2] = {
		{ "WM_", "the generated jobs set WM_* variables themselves" },
		{ "GITHUB_", "GitHub sets GITHUB_* variables" },
		{ "RUNNER_", "GitHub sets RUNNER_* variables" },
		{ "ACTIONS_", "GitHub sets ACTIONS_* variables" },
		{ "CI_", "GitLab sets CI_* variables" },
		{ "GITLAB_", "GitLab sets GITLAB_* variables" },
		{ "BASH_FUNC_", "bash imports functions from them" },
	};
	static const char *const names[] = { "CI", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS",
		"PATH", "HOME", "LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONPATH" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(prefixes); i++)
		if (strncmp(name, prefixes[i][0], strlen(prefixes[i][0])) == 0)
			return prefixes[i][1];
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
			const char *why = env_reserved(k->text);
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
		env[(*nout)++].value = value;
	}
	*out = env;
}

void wm_untrusted_check(struct wm_loader *l, const struct wm_node *n, bool github_step)
{
	struct wm_expr_fault f;
	if (n->type == WM_NODE_SCALAR) {
		if (!wm_expr_check(n->text, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
			wm_untrusted_expr_error(l, n, &f, "a setup step", "set the value in the step's 'env:' and use the "
				"variable");
		return;
	}
	if (n->type == WM_NODE_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			wm_untrusted_check(l, n->items[i], false);
		return;
	}
	for (size_t i = 0; i < n->n; i++) {
		if (github_step && strcmp(n->pairs[i].key->text, "env") == 0)
			continue;
		wm_untrusted_check(l, n->pairs[i].key, false);
		wm_untrusted_check(l, n->pairs[i].value, false);
	}
}
