/*
 * script.c — a `run:` step's script read into command lines of words, as its shell splits them.
 *
 * init reads the maturin (or pip, or build) command lines a project's workflows run, with their
 * arguments as maturin gets them, so the script is split as its shell would: bash (GitHub's
 * default off Windows, and `shell: bash` anywhere), PowerShell (Windows' default) or cmd.  What
 * the shell would only know when the job runs (a variable nobody set in the workflow, `$(...)`)
 * makes its word unknown, named, never guessed.  The bash subset: quotes, backslash escapes,
 * line continuations, `#` comments, `;` `&&` `||` `|` `&` between commands, variables (an
 * unquoted one split on blanks), NAME=value before a command, and the script's own assignments
 * (known only outside `if`, `for`, `while` and `case`).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "workflow/script.h"

#define MAX_VARS 64
#define MAX_WORDS 4096   /* of one command */

struct var {
	const char *name, *value, *why;   /* value NULL: not known (why) */
};

struct reader {
	struct wm_arena *a;
	const char *p;
	enum wm_shell sh;
	unsigned line;
	const struct wm_script_env *env;
	const char *const *unknowns;
	size_t nunknowns;
	struct var vars[MAX_VARS];
	size_t nvars;
	unsigned depth;             /* of if, for, while, until, case */
	bool oom;
};

/* The words of the command being read. */
struct words {
	struct wm_word items[MAX_WORDS];
	size_t n;
	bool full;
};

/* The word being read: its text, and what makes it unknown. */
struct word {
	struct wm_buf text;
	const char *unknown;
	bool started;               /* quotes make a word even when empty */
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A line continuation at p (the shell's escape, then a new line): its length, or 0. */
static size_t continuation(const struct reader *r, const char *p)
{
	char esc = r->sh == WM_SHELL_PWSH ? '`' : r->sh == WM_SHELL_CMD ? '^' : '\\';
	if (*p != esc)
		return 0;
	if (p[1] == '\n')
		return 2;
	if (p[1] == '\r' && p[2] == '\n')
		return 3;
	return 0;
}

static void push(struct reader *r, struct words *w, struct word *cur)
{
	if (!cur->started && !cur->text.len && !cur->unknown)
		return;
	if (w->n == MAX_WORDS) {
		w->full = true;
	} else {
		struct wm_word *it = &w->items[w->n++];
		it->text = cur->text.oom ? NULL : wm_arena_strndup(r->a, cur->text.ptr ? cur->text.ptr : "", cur->text.len);
		it->unknown = cur->unknown;
		r->oom |= !it->text;
	}
	wm_buf_clear(&cur->text);
	cur->unknown = NULL;
	cur->started = false;
}

static void unknown(struct word *cur, const char *why)
{
	if (!cur->unknown)
		cur->unknown = why;
	cur->started = true;
}

/* A variable's value: the script's own assignments first, then the step's environment. */
static int lookup(struct reader *r, const char *name, size_t len, const char **value, const char **why)
{
	for (size_t i = r->nvars; i-- > 0;)
		if (strlen(r->vars[i].name) == len && !strncmp(r->vars[i].name, name, len)) {
			*value = r->vars[i].value;
			*why = r->vars[i].why;
			return r->vars[i].value ? 1 : -1;
		}
	if (!r->env || !r->env->get) {
		*why = "a variable the workflow does not set";
		return -1;
	}
	return r->env->get(r->env->ctx, name, len, value, why);
}

/* A variable read into the word: quoted, as it is; unquoted, split on blanks into words. */
static void expand(struct reader *r, struct words *w, struct word *cur, const char *name, size_t len, bool quoted)
{
	const char *value = NULL, *why = NULL;
	int got = lookup(r, name, len, &value, &why);
	if (got < 0) {
		unknown(cur, why ? why : wm_arena_printf(r->a, "$%.*s", (int)len, name));
		return;
	}
	if (got == 0 || !value)
		return;
	if (quoted) {
		wm_buf_puts(&cur->text, value);
		cur->started = true;
		return;
	}
	for (const char *v = value; *v; v++) {
		if (blank(*v) || *v == '\n')
			push(r, w, cur);
		else
			wm_buf_putc(&cur->text, *v);
	}
}

/* `$(...)` or a backtick's command, skipped to its end: its output is not known. */
static void substitution(struct reader *r, struct word *cur, char close)
{
	unsigned depth = 1;
	r->p += close == ')' ? 2 : 1;
	while (*r->p && depth) {
		if (close == ')' && *r->p == '(')
			depth++;
		else if (*r->p == close)
			depth--;
		if (*r->p == '\n')
			r->line++;
		r->p++;
	}
	unknown(cur, "the output of a command");
}

/* "\x01<i>\x01": an expression whose value is not known. */
static bool placeholder(struct reader *r, struct word *cur)
{
	char *end;
	unsigned long i;
	if (*r->p != '\x01')
		return false;
	i = strtoul(r->p + 1, &end, 10);
	if (*end != '\x01' || end == r->p + 1)
		return false;
	unknown(cur, i < r->nunknowns ? r->unknowns[i] : "an expression");
	r->p = end + 1;
	return true;
}

/* `$...` at r->p: a variable, `${NAME}`, `$env:NAME` (PowerShell), a substitution; false for a lone `$`. */
static bool dollar(struct reader *r, struct words *w, struct word *cur, bool quoted)
{
	const char *p = r->p + 1, *name;
	if (p[0] == '(') {
		substitution(r, cur, ')');
		return true;
	}
	if (r->sh == WM_SHELL_PWSH && !strncasecmp(p, "env:", 4) && name_start(p[4])) {
		for (name = p += 4; name_char(*p); p++)
			;
		r->p = p;
		expand(r, w, cur, name, (size_t)(p - name), quoted);
		return true;
	}
	if (p[0] == '{' && r->sh == WM_SHELL_BASH) {
		const char *close = strchr(p, '}');
		if (!close)
			return false;
		name = p + 1;
		r->p = close + 1;
		if (close > name && name_start(*name)) {
			const char *q = name;
			while (q < close && name_char(*q))
				q++;
			if (q == close) {
				expand(r, w, cur, name, (size_t)(close - name), quoted);
				return true;
			}
		}
		unknown(cur, wm_arena_printf(r->a, "${%.*s}", (int)(close - name), name));
		return true;
	}
	if (name_start(p[0])) {
		for (name = p; name_char(*p); p++)
			;
		r->p = p;
		if (r->sh == WM_SHELL_PWSH)
			unknown(cur, wm_arena_printf(r->a, "the PowerShell variable $%.*s", (int)(p - name), name));
		else
			expand(r, w, cur, name, (size_t)(p - name), quoted);
		return true;
	}
	if (isdigit((unsigned char)p[0]) || (p[0] && strchr("@*#?$!-", p[0]))) {
		r->p = p + 1;
		unknown(cur, wm_arena_printf(r->a, "$%c", p[0]));
		return true;
	}
	return false;
}

/* A quoted part: single quotes literal ('' a quote in PowerShell), double quotes with variables. */
static void quoted(struct reader *r, struct words *w, struct word *cur, const char **bad)
{
	char q = *r->p++;
	cur->started = true;
	for (;;) {
		char c = *r->p;
		if (!c) {
			*bad = q == '\'' ? "a single quote is not closed" : "a double quote is not closed";
			return;
		}
		if (c == q) {
			if (r->sh == WM_SHELL_PWSH && r->p[1] == q) {
				wm_buf_putc(&cur->text, q);
				r->p += 2;
				continue;
			}
			r->p++;
			return;
		}
		if (c == '\n')
			r->line++;
		if (q == '"' && placeholder(r, cur))
			continue;
		if (q == '"' && c == '$' && r->sh != WM_SHELL_CMD && dollar(r, w, cur, true))
			continue;
		if (q == '"' && c == '`' && r->sh == WM_SHELL_BASH) {
			substitution(r, cur, '`');
			continue;
		}
		if (q == '"' && r->sh == WM_SHELL_BASH && c == '\\' && r->p[1] && strchr("$`\"\\\n", r->p[1])) {
			if (r->p[1] != '\n')
				wm_buf_putc(&cur->text, r->p[1]);
			else
				r->line++;
			r->p += 2;
			continue;
		}
		if (q == '"' && r->sh == WM_SHELL_PWSH && c == '`' && r->p[1]) {
			wm_buf_putc(&cur->text, r->p[1]);
			r->p += 2;
			continue;
		}
		if (q == '\'' && placeholder(r, cur))
			continue;
		wm_buf_putc(&cur->text, c);
		r->p++;
	}
}

/* The length of the separator at p (`;`, `&&`, `||`, `|`, `&`), or 0. */
static size_t separator(const struct reader *r, const char *p)
{
	if (*p == ';' || *p == '|' || *p == '&') {
		if (p[1] == p[0] && *p != ';')
			return 2;
		/* PowerShell's `&` alone is its call operator, not a separator */
		return *p == '&' && r->sh == WM_SHELL_PWSH ? 0 : 1;
	}
	return 0;
}

/* One command's words; at its end r->p is past its separator or new line. */
static void read_command(struct reader *r, struct words *w, const char **bad)
{
	struct word cur = { WM_BUF_INIT, NULL, false };
	for (;;) {
		size_t k;
		char c = *r->p;
		if ((k = continuation(r, r->p)) != 0) {
			push(r, w, &cur);
			r->p += k;
			r->line++;
			continue;
		}
		if (!c || c == '\n') {
			if (c) {
				r->p++;
				r->line++;
			}
			break;
		}
		if (blank(c)) {
			push(r, w, &cur);
			r->p++;
			continue;
		}
		if (c == '#' && !cur.started && !cur.text.len && r->sh != WM_SHELL_CMD) {
			while (*r->p && *r->p != '\n')
				r->p++;
			continue;
		}
		if (r->sh != WM_SHELL_CMD && (k = separator(r, r->p)) != 0) {
			push(r, w, &cur);
			r->p += k;
			break;
		}
		if (placeholder(r, &cur))
			continue;
		if (c == '\'' || c == '"') {
			quoted(r, w, &cur, bad);
			if (*bad)
				break;
			continue;
		}
		if (c == '$' && r->sh != WM_SHELL_CMD && dollar(r, w, &cur, false))
			continue;
		if (c == '`' && r->sh == WM_SHELL_BASH) {
			substitution(r, &cur, '`');
			continue;
		}
		if (c == '%' && r->sh == WM_SHELL_CMD) {
			const char *close = strchr(r->p + 1, '%');
			if (close && close > r->p + 1) {
				const char *name = r->p + 1;
				r->p = close + 1;
				expand(r, w, &cur, name, (size_t)(close - name), false);
				continue;
			}
		}
		if (c == '\\' && r->sh == WM_SHELL_BASH && r->p[1]) {
			wm_buf_putc(&cur.text, r->p[1]);
			cur.started = true;
			r->p += 2;
			continue;
		}
		if (c == '`' && r->sh == WM_SHELL_PWSH && r->p[1]) {
			wm_buf_putc(&cur.text, r->p[1]);
			cur.started = true;
			r->p += 2;
			continue;
		}
		wm_buf_putc(&cur.text, c);
		r->p++;
	}
	push(r, w, &cur);
	wm_buf_release(&cur.text);
	if (w->full && !*bad)
		*bad = "a command of more words than init reads";
}

/* NAME=value: the length of NAME, or 0. */
static size_t assignment(const char *s)
{
	size_t n = 0;
	if (!name_start(s[0]))
		return 0;
	while (name_char(s[n]))
		n++;
	return s[n] == '=' ? n : 0;
}

static bool reserved(const char *s, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* The script's own variable NAME=value (not known inside a conditional or a loop). */
static void set_var(struct reader *r, const struct wm_word *word, size_t namelen)
{
	struct var *v;
	if (r->nvars == MAX_VARS)
		memmove(r->vars, r->vars + 1, (MAX_VARS - 1) * sizeof(*r->vars)), r->nvars--;
	v = &r->vars[r->nvars++];
	v->name = wm_arena_strndup(r->a, word->text, namelen);
	r->oom |= !v->name;
	if (r->depth || word->unknown) {
		v->value = NULL;
		v->why = word->unknown ? word->unknown :
			wm_arena_printf(r->a, "$%.*s, which the script sets in a condition or a loop", (int)namelen, word->text);
	} else {
		v->value = word->text + namelen + 1;
		v->why = NULL;
	}
}

/*
 * The words of a command as run: a leading keyword (then, do, else, ...) dropped, the nesting
 * counted, NAME=value words split off as its environment (or, alone, as the script's variables).
 */
static void shape(struct reader *r, struct wm_command *c, struct words *w)
{
	static const char *const opening[] = { "if", "for", "while", "until", "case", "select" };
	static const char *const closing[] = { "fi", "done", "esac" };
	static const char *const leading[] = { "then", "else", "elif", "do", "!", "{", "}" };
	size_t i = 0, env = 0;
	if (r->sh == WM_SHELL_PWSH && i < w->n && w->items[i].text && !strcmp(w->items[i].text, "&"))
		i++;
	if (r->sh != WM_SHELL_BASH)
		goto words;
	while (i < w->n && w->items[i].text && (reserved(w->items[i].text, opening, 6) ||
			reserved(w->items[i].text, closing, 3) || reserved(w->items[i].text, leading, 7))) {
		if (reserved(w->items[i].text, opening, 6))
			r->depth++;
		else if (reserved(w->items[i].text, closing, 3) && r->depth)
			r->depth--;
		i++;
	}
	if (i < w->n && w->items[i].text && !strcmp(w->items[i].text, "export"))
		i++;
	for (env = i; env < w->n && w->items[env].text && assignment(w->items[env].text); env++)
		;
	if (env == w->n) {
		for (size_t k = i; k < env; k++)
			set_var(r, &w->items[k], assignment(w->items[k].text));
		c->n = 0;
		return;
	}
	c->nenv = env - i;
	c->env = wm_arena_array(r->a, c->nenv ? c->nenv : 1, sizeof(*c->env));
	r->oom |= !c->env;
	for (size_t k = 0; c->env && k < c->nenv; k++)
		c->env[k] = w->items[i + k];
	i = env;
words:
	c->n = w->n - i;
	c->words = wm_arena_array(r->a, c->n ? c->n : 1, sizeof(*c->words));
	r->oom |= !c->words;
	for (size_t k = 0; c->words && k < c->n; k++)
		c->words[k] = w->items[i + k];
}

int wm_script_read(struct wm_command **out, size_t *n, struct wm_arena *a, const char *script, enum wm_shell shell,
	const struct wm_script_env *env, const char *const *unknowns, size_t nunknowns, size_t max)
{
	struct reader r = { .a = a, .p = script, .sh = shell, .line = 1, .env = env, .unknowns = unknowns,
		.nunknowns = nunknowns };
	struct words *w = malloc(sizeof(*w));
	size_t cap = 4;   /* most scripts are a command or two: doubled when full */

	*out = NULL;
	*n = 0;
	if (!w || !(*out = wm_arena_array(a, cap, sizeof(**out)))) {
		free(w);
		return WM_ENOMEM;
	}
	while (*r.p && *n < max && !r.oom) {
		struct wm_command c = { NULL, 0, NULL, 0, r.line, NULL };
		w->n = 0;
		w->full = false;
		read_command(&r, w, &c.bad);
		if (c.bad) {
			/* the rest of the line is not read: the shell would refuse it */
			while (*r.p && *r.p != '\n')
				r.p++;
		}
		shape(&r, &c, w);
		if (!c.n && !c.bad)
			continue;
		if (*n == cap) {
			struct wm_command *more = wm_arena_array(a, cap * 2, sizeof(*more));
			if (!more) {
				r.oom = true;
				break;
			}
			memcpy(more, *out, cap * sizeof(*more));
			*out = more;
			cap *= 2;
		}
		(*out)[(*n)++] = c;
	}
	free(w);
	return r.oom ? WM_ENOMEM : 0;
}
