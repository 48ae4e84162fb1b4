/*
 * gitdir.c — where git keeps a repository, found as git finds it (setup.c's discovery, its
 * environment, the few configuration keys that move the working tree), without libgit2: check
 * --staged runs at every commit, and libgit2 costs more to start (its TLS library reads the
 * whole CA bundle) than the rest of the check.  What this reader does not follow it says so
 * (wm_gitdir.uncertain), and repo.c asks libgit2.
 */
/* realpath */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "repo/gitdir.h"

#define SMALL_FILE (64u << 10)    /* HEAD, a gitfile, commondir */
#define CONFIG_FILE (1u << 20)    /* a configuration or ignore file; larger ones are not read */
#define MAX_INCLUDES 10           /* git's own depth limit of include.path */

/* ---- paths -------------------------------------------------------------------- */

/* "dir/name", malloc'd; NULL when out of memory. */
static char *join(const char *dir, const char *name)
{
	struct wm_buf b = WM_BUF_INIT;
	size_t n = strlen(dir);
	wm_buf_printf(&b, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
	return b.oom ? (wm_buf_release(&b), NULL) : wm_buf_detach(&b);
}

/* `path` made absolute from `base` (a directory) when it is relative, malloc'd. */
static char *absolute(const char *base, const char *path)
{
	return path[0] == '/' ? strdup(path) : join(base, path);
}

/* A whole small file, NUL-terminated, or NULL (missing, unreadable, too large). */
static char *slurp(const char *path, size_t max, size_t *len)
{
	struct wm_error quiet;
	char *text = NULL;
	size_t n = 0;
	wm_error_init(&quiet);
	if (wm_io_read(&text, &n, path, max, &quiet) < 0)
		text = NULL;
	wm_error_release(&quiet);
	if (len)
		*len = n;
	return text;
}

/* The first line of a small file, its line ending and trailing blanks dropped. */
static char *first_line(const char *path)
{
	char *text = slurp(path, SMALL_FILE, NULL);
	if (text) {
		text[strcspn(text, "\r\n")] = '\0';
		for (size_t n = strlen(text); n && (text[n - 1] == ' ' || text[n - 1] == '\t');)
			text[--n] = '\0';
	}
	return text;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- the configuration ---------------------------------------------------------- */

/* The keys this reader needs, from the files read so far. */
struct config {
	int bare;                  /* core.bare: -1 unset */
	bool ignorecase;           /* core.ignorecase */
	char *worktree;            /* core.worktree, absolute (relative to the git directory) */
	bool worktree_config;      /* extensions.worktreeConfig */
	bool sha256;               /* extensions.objectFormat = sha256 */
	bool conditional;          /* an includeIf: what it includes depends on what git knows */
	bool broken;               /* a file this reader cannot parse */
	bool follow_conditional;   /* read what an includeIf includes anyway (for ignore files, generously) */
	struct wm_paths excludes;  /* core.excludesFile, each value met, absolute */
	const char *home;
	const char *top;           /* where a relative core.excludesFile is: the top of the working tree */
	int depth;
};

static bool parse_bool(const char *v)
{
	if (!v)
		return true;   /* a key without '=' */
	if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return false;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return true;
	return strtol(v, NULL, 10) != 0;
}

/* git's pathname values: "~/" is the home directory; relative ones are taken from `base`. */
static char *config_path(const struct config *c, const char *base, const char *v)
{
	struct wm_buf b = WM_BUF_INIT;
	if (v[0] == '~' && v[1] == '/') {
		if (!c->home)
			return NULL;
		wm_buf_printf(&b, "%s%s", c->home, v + 1);
		return b.oom ? (wm_buf_release(&b), NULL) : wm_buf_detach(&b);
	}
	return absolute(base, v);
}

static void config_file(struct config *c, const char *path);

/* One "section.subsection.name = value" (value NULL for a key without '='), as git lowercases them. */
static void config_key(struct config *c, const char *dir, const char *section, const char *sub, const char *name,
	const char *value)
{
	char *p;
	if (!strcmp(section, "core") && !sub) {
		if (!strcmp(name, "bare"))
			c->bare = parse_bool(value);
		else if (!strcmp(name, "ignorecase"))
			c->ignorecase = parse_bool(value);
		else if (!strcmp(name, "worktree") && value && (p = absolute(dir, value))) {
			free(c->worktree);
			c->worktree = p;
		} else if (!strcmp(name, "excludesfile") && value && (p = config_path(c, c->top ? c->top : dir, value))) {
			if (wm_io_paths_add(&c->excludes, p, strlen(p)) < 0)
				c->broken = true;
			free(p);
		}
	} else if (!strcmp(section, "extensions") && !sub) {
		if (!strcmp(name, "worktreeconfig"))
			c->worktree_config = parse_bool(value);
		else if (!strcmp(name, "objectformat") && value && strcasecmp(value, "sha1") != 0)
			c->sha256 = true;
	} else if (!strcmp(section, "include") && !sub && !strcmp(name, "path") && value) {
		if ((p = config_path(c, dir, value))) {
			config_file(c, p);
			free(p);
		}
	} else if (!strcmp(section, "includeif") && sub && !strcmp(name, "path") && value) {
		c->conditional = true;
		if (c->follow_conditional && (p = config_path(c, dir, value))) {
			config_file(c, p);
			free(p);
		}
	}
}

/* Where config_parse is in a file, and the section and key it reads. */
struct parse {
	const char *p;
	char section[64], sub[1024], name[128];
	bool has_sub;
	struct wm_buf value;
};

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* "[section]", "[section \"sub\"]" or the old "[section.sub]" at s->p; false when it is not that. */
static bool parse_section(struct parse *s)
{
	const char *p = s->p;
	size_t n = 0;
	bool ok = true;

	for (p++; n + 1 < sizeof(s->section) && (isalnum((unsigned char)*p) || *p == '-' || *p == '.'); p++)
		s->section[n++] = (char)tolower((unsigned char)*p);
	s->section[n] = '\0';
	s->has_sub = false;
	if (strchr(s->section, '.')) {   /* [section.sub]: the old syntax */
		char *dot = strchr(s->section, '.');
		snprintf(s->sub, sizeof(s->sub), "%s", dot + 1);
		*dot = '\0';
		s->has_sub = true;
	} else if (blank(*p)) {
		while (blank(*p))
			p++;
		if (*p++ != '"')
			return false;
		for (n = 0; *p && *p != '"' && *p != '\n' && n + 1 < sizeof(s->sub); p++) {
			if (*p == '\\' && p[1] && p[1] != '\n')
				p++;
			s->sub[n++] = *p;
		}
		s->sub[n] = '\0';
		s->has_sub = true;
		ok = *p++ == '"';
	}
	ok = ok && n < sizeof(s->sub) - 1 && *s->section && *p++ == ']';
	s->p = p;
	return ok;
}

/*
 * The value after the '=' at s->p into s->value, with its quotes and escapes read and without its
 * trailing blanks outside quotes; *quoted when a quote is left open.  False when it is not a value.
 */
static bool parse_value(struct parse *s, bool *quoted)
{
	struct wm_buf *value = &s->value;
	const char *p = s->p;
	size_t keep = 0;   /* the value's length without its trailing blanks outside quotes */
	bool ok = true;

	for (p++; blank(*p); p++)
		;
	for (; *p && (*quoted || *p != '\n'); p++) {
		if (!*quoted && (*p == '#' || *p == ';')) {
			p += strcspn(p, "\n");
			break;
		}
		if (*p == '"') {
			*quoted = !*quoted;
			keep = value->len;
			continue;
		}
		if (*p == '\\') {
			p++;
			if (*p == '\n' || (*p == '\r' && p[1] == '\n')) {
				p += *p == '\r';
				continue;   /* the value goes on on the next line */
			}
			if (*p != 'n' && *p != 't' && *p != 'b' && *p != '"' && *p != '\\') {
				ok = false;
				break;
			}
			wm_buf_putc(value, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'b' ? '\b' : *p);
			keep = value->len;
			continue;
		}
		if (*p == '\n' && *quoted) {
			ok = false;
			break;
		}
		wm_buf_putc(value, *p);
		if (*quoted || (!blank(*p) && *p != '\r'))
			keep = value->len;
	}
	value->len = keep;
	wm_buf_putc(value, '\0');
	s->p = p;
	return ok && !value->oom;
}

/* "name = value" or a bare "name" at s->p, given to config_key; false when it is not that. */
static bool parse_key(struct config *c, const char *dir, struct parse *s)
{
	const char *p = s->p;
	bool quoted = false, bare = true, ok = true;
	size_t n;

	for (n = 0; n + 1 < sizeof(s->name) && (isalnum((unsigned char)*p) || *p == '-'); p++)
		s->name[n++] = (char)tolower((unsigned char)*p);
	s->name[n] = '\0';
	while (blank(*p))
		p++;
	s->value.len = 0;
	s->p = p;
	if (*p == '=') {
		bare = false;
		ok = parse_value(s, &quoted);
	} else if (*p && *p != '\n' && *p != '\r' && *p != '#' && *p != ';') {
		ok = false;
	}
	if (ok && !quoted)
		config_key(c, dir, s->section, s->has_sub ? s->sub : NULL, s->name, bare ? NULL : s->value.ptr);
	return ok && !quoted;
}

/*
 * Parses git's configuration syntax: "[section]", "[section \"sub\"]" and
 * the old "[section.sub]"; "name = value" or a bare "name"; values with
 * quotes, the escapes \n \t \b \" \\, a backslash ending a line, comments
 * after '#' or ';'.  False on what is not that syntax.
 */
static bool config_parse(struct config *c, const char *dir, const char *p)
{
	struct parse s = { .p = p, .value = WM_BUF_INIT };
	bool ok = true;

	while (ok && *s.p) {
		if (blank(*s.p) || *s.p == '\r' || *s.p == '\n')
			s.p++;
		else if (*s.p == '#' || *s.p == ';')
			s.p += strcspn(s.p, "\n");
		else if (*s.p == '[')
			ok = parse_section(&s);
		else if (isalpha((unsigned char)*s.p) && *s.section)
			ok = parse_key(c, dir, &s);
		else
			ok = false;
	}
	wm_buf_release(&s.value);
	return ok;
}

/* Reads one configuration file (a missing one is empty), and what it includes. */
static void config_file(struct config *c, const char *path)
{
	char *text, *dir, *slash;
	if (c->depth >= MAX_INCLUDES) {
		c->broken = true;
		return;
	}
	if (!(text = slurp(path, CONFIG_FILE, NULL))) {
		struct stat st;
		if (stat(path, &st) == 0)
			c->broken = true;   /* there, but unreadable or too large */
		return;
	}
	if (!(dir = strdup(path))) {
		c->broken = true;
	} else {
		if ((slash = strrchr(dir, '/')))
			*(slash == dir ? slash + 1 : slash) = '\0';
		c->depth++;
		if (!config_parse(c, dir, text))
			c->broken = true;
		c->depth--;
	}
	free(dir);
	free(text);
}

static void config_release(struct config *c)
{
	free(c->worktree);
	wm_io_paths_free(&c->excludes);
}

/* ---- the repository ------------------------------------------------------------- */

/* The directory named in a gitfile ("gitdir: PATH", relative to the file's directory), malloc'd, or NULL. */
static char *read_gitfile(const char *path)
{
	char *line = first_line(path), *dir = NULL, *slash, *target = NULL;
	if (line && strncmp(line, "gitdir: ", 8) == 0 && line[8] && (dir = strdup(path))) {
		slash = strrchr(dir, '/');
		*(slash && slash != dir ? slash : dir + 1) = '\0';
		target = absolute(dir, line + 8);
	}
	free(dir);
	free(line);
	return target;
}

/* The common directory of the git directory `gitdir`: $GIT_COMMON_DIR, its commondir file, or itself. */
static char *common_dir(const char *gitdir, bool *linked)
{
	const char *env = getenv("GIT_COMMON_DIR");
	char *file, *line, *dir;
	*linked = false;
	if (env && *env)
		return strdup(env);
	if (!(file = join(gitdir, "commondir")))
		return NULL;
	line = first_line(file);
	free(file);
	if (!line || !*line) {
		free(line);
		return strdup(gitdir);
	}
	*linked = true;
	dir = absolute(gitdir, line);
	free(line);
	return dir;
}

/* git's is_git_directory: a valid HEAD, and objects/ and refs/ in the common directory. */
static bool git_directory(const char *path)
{
	const char *objects = getenv("GIT_OBJECT_DIRECTORY");
	char *head = join(path, "HEAD"), *ref = head ? first_line(head) : NULL, *common, *sub;
	bool linked, ok = false;
	size_t hex;

	if (ref) {
		hex = strspn(ref, "0123456789abcdef");
		ok = strncmp(ref, "ref: refs/", 10) == 0 || ((hex == 40 || hex == 64) && !ref[hex]);
	}
	free(head);
	free(ref);
	if (!ok || !(common = common_dir(path, &linked)))
		return false;
	ok = (sub = join(common, "refs")) && is_dir(sub);
	free(sub);
	if (ok && !(objects && *objects)) {
		ok = (sub = join(common, "objects")) && is_dir(sub);
		free(sub);
	}
	free(common);
	return ok;
}

/* The real path of `path`, or NULL with errno. */
static char *real(const char *path)
{
	return realpath(path, NULL);
}

/* Sets out->workdir to the real path of `dir` with a final '/'; false when it is not a directory. */
static bool set_workdir(struct wm_gitdir *out, const char *dir)
{
	char *r = real(dir);
	struct wm_buf b = WM_BUF_INIT;
	if (!r || !is_dir(r)) {
		free(r);
		return false;
	}
	wm_buf_printf(&b, "%s%s", r, strcmp(r, "/") ? "/" : "");
	free(r);
	out->workdir = b.oom ? (wm_buf_release(&b), NULL) : wm_buf_detach(&b);
	return out->workdir != NULL;
}

/* Whether `path` belongs to this process's user, as git's safe.directory check asks. */
static bool owned(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && st.st_uid == geteuid();
}

/*
 * The rest once the git directory is known: its common directory, the
 * configuration, the working tree (`env_tree` from $GIT_WORK_TREE, else
 * core.worktree unless a linked worktree, else none when core.bare, else
 * `found_tree`), and the index.
 */
static int complete(struct wm_gitdir *out, const char *env_tree, const char *found_tree, const char *cwd)
{
	struct config c = { .bare = -1, .home = getenv("HOME") };
	const char *env_index = getenv("GIT_INDEX_FILE");
	char *path;
	bool linked;
	int ret = WM_ENOMEM;

	if (!(out->common = common_dir(out->gitdir, &linked)))
		goto out;
	if ((path = real(out->common))) {
		free(out->common);
		out->common = path;
	}
	if (!(path = join(out->common, "config")))
		goto out;
	config_file(&c, path);
	free(path);
	if (c.worktree_config) {
		if (!(path = join(out->gitdir, "config.worktree")))
			goto out;
		config_file(&c, path);
		free(path);
	}
	out->sha1 = !c.sha256;
	out->ignorecase = c.ignorecase;
	out->uncertain = c.conditional || c.broken || !owned(out->gitdir);
	if (env_tree && *env_tree) {
		if (!set_workdir(out, env_tree))
			out->uncertain = true;
	} else if (!linked && c.worktree) {
		if (!set_workdir(out, c.worktree))
			out->uncertain = true;
	} else if (!(!linked && c.bare > 0) && found_tree && !set_workdir(out, found_tree)) {
		out->uncertain = true;
	}
	if (out->workdir && !owned(out->workdir))
		out->uncertain = true;
	/* git runs at the top of the working tree once it has found it, when it started inside it */
	if (env_index && *env_index) {
		const char *base = cwd;
		size_t n = out->workdir ? strlen(out->workdir) : 0;
		if (n && (strncmp(cwd, out->workdir, n) == 0 || (strlen(cwd) == n - 1 && strncmp(cwd, out->workdir, n - 1) == 0)))
			base = out->workdir;
		out->index = absolute(base, env_index);
	} else {
		out->index = join(out->gitdir, "index");
	}
	ret = out->index ? 0 : WM_ENOMEM;
out:
	config_release(&c);
	return ret;
}

/* $GIT_DIR: a directory, or a gitfile; the working tree is the current directory unless said otherwise. */
static int from_env(struct wm_gitdir *out, const char *env, const char *cwd, struct wm_error *err)
{
	struct stat st;
	char *dir = NULL, *target;

	if (stat(env, &st) == 0 && S_ISREG(st.st_mode)) {
		if (!(target = read_gitfile(env)))
			goto invalid;
		dir = real(target);
		free(target);
	} else {
		dir = real(env);
	}
	if (!dir || !git_directory(dir)) {
		free(dir);
		goto invalid;
	}
	out->gitdir = dir;
	return complete(out, getenv("GIT_WORK_TREE"), cwd, cwd);
invalid:
	wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
		"not a git repository: '%s' (GIT_DIR)", env);
	return WM_EIO;
}

/* The real paths of $GIT_CEILING_DIRECTORIES (absolute entries only). */
static void ceilings(struct wm_paths *out)
{
	const char *env = getenv("GIT_CEILING_DIRECTORIES"), *p = env;
	while (p && *p) {
		size_t n = strcspn(p, ":");
		char *entry = strndup(p, n), *r = entry && entry[0] == '/' ? real(entry) : NULL;
		if (r)
			(void)wm_io_paths_add(out, r, strlen(r));
		free(r);
		free(entry);
		p += n + (p[n] == ':');
	}
}

/* From `start` (real) upwards: a .git directory or file, or a bare repository. */
static int discover(struct wm_gitdir *out, const char *start, const char *cwd, struct wm_error *err)
{
	const char *across = getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM");
	struct wm_paths ceil = { 0 };
	struct stat st;
	char *dir = strdup(start), *dotgit = NULL, *target;
	dev_t dev = 0;
	int ret = 1;

	ceilings(&ceil);
	if (dir && stat(dir, &st) == 0)
		dev = st.st_dev;
	while (dir) {
		char *slash;
		int found;
		if (!(dotgit = join(dir, ".git")))
			break;
		found = stat(dotgit, &st) == 0;
		if (found && S_ISREG(st.st_mode)) {
			if (!(target = read_gitfile(dotgit))) {
				wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
					"invalid gitfile format: %s", dotgit);
				ret = WM_EIO;
				goto out;
			}
			out->gitdir = real(target);
			free(target);
			if (!out->gitdir || !git_directory(out->gitdir)) {
				wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
					"not a git repository: %s (named by %s)", out->gitdir ? out->gitdir : "?", dotgit);
				ret = WM_EIO;
				goto out;
			}
			ret = complete(out, getenv("GIT_WORK_TREE"), dir, cwd);
			goto out;
		}
		if (found && S_ISDIR(st.st_mode) && git_directory(dotgit)) {
			if (!(out->gitdir = real(dotgit)))
				break;
			ret = complete(out, getenv("GIT_WORK_TREE"), dir, cwd);
			goto out;
		}
		if (git_directory(dir)) {   /* a bare repository */
			if (!(out->gitdir = strdup(dir)))
				break;
			ret = complete(out, getenv("GIT_WORK_TREE"), NULL, cwd);
			goto out;
		}
		free(dotgit);
		dotgit = NULL;
		/* up, unless that is a ceiling, the root or another file system */
		if (!strcmp(dir, "/"))
			goto out;
		slash = strrchr(dir, '/');
		*(slash == dir ? slash + 1 : slash) = '\0';
		for (size_t i = 0; i < ceil.n; i++)
			if (!strcmp(ceil.items[i], dir))
				goto out;
		if (stat(dir, &st) != 0 || (st.st_dev != dev && !(across && parse_bool(across))))
			goto out;
	}
	wm_error_code(err, ret = WM_ENOMEM);
out:
	free(dotgit);
	free(dir);
	wm_io_paths_free(&ceil);
	return ret;
}

int wm_gitdir_find(struct wm_gitdir *out, const char *dir, struct wm_error *err)
{
	const char *env = getenv("GIT_DIR");
	char cwd[PATH_MAX], *start;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!getcwd(cwd, sizeof(cwd))) {
		wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"cannot read the current directory: %s", strerror(errno));
		return WM_EIO;
	}
	if (env && *env) {
		ret = from_env(out, env, cwd, err);
	} else if (!(start = real(dir))) {
		ret = 1;   /* no such directory: no repository holds it */
	} else {
		ret = discover(out, start, cwd, err);
		free(start);
	}
	if (ret != 0)
		wm_gitdir_release(out);
	return ret;
}

void wm_gitdir_release(struct wm_gitdir *g)
{
	free(g->gitdir);
	free(g->common);
	free(g->workdir);
	free(g->index);
	memset(g, 0, sizeof(*g));
}

/* ---- the ignore rules, read generously --------------------------------------------- */

/* `s` lowercased into `out` (of `size` bytes); false when it does not fit. */
static bool lower(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
	return true;
}

/*
 * Whether the pattern `line` of an ignore file may match `rel` (the path
 * below the ignore file's directory) or a directory above it.  Matched
 * without regard to case, anchoring or a final '/', and with '*' crossing
 * '/': every path git's rules match is matched, and more.  A negation
 * ignores nothing; a pattern with "**", a backslash or a bracket
 * expression may match anything.
 */
static bool may_match(const char *line, size_t n, const char *rel)
{
	char pat[PATH_MAX], cand[PATH_MAX];
	size_t len = strlen(rel);

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!n || line[0] == '#' || line[0] == '!')
		return false;
	if (memchr(line, '\\', n) || memchr(line, '[', n) || (n >= 2 && strstr(line, "**") && strstr(line, "**") < line + n))
		return true;
	if (line[n - 1] == '/')
		n--;
	if (n && line[0] == '/')
		line++, n--;
	if (!n || !lower(pat, sizeof(pat), line, n) || !lower(cand, sizeof(cand), rel, len))
		return true;
	if (!memchr(pat, '/', n)) {
		/* a name: each component of the path */
		for (char *c = cand, *end; *c; c = end + (*end == '/')) {
			char save;
			end = c + strcspn(c, "/");
			save = *end;
			*end = '\0';
			if (fnmatch(pat, c, 0) == 0)
				return true;
			*end = save;
		}
		return false;
	}
	/* a path from the ignore file's directory: each leading part of the path */
	for (size_t i = 1; i <= len; i++) {
		if (i < len && cand[i] != '/')
			continue;
		char save = cand[i];
		cand[i] = '\0';
		bool hit = fnmatch(pat, cand, 0) == 0;
		cand[i] = save;
		if (hit)
			return true;
	}
	return false;
}

/* Whether a pattern of the ignore file `path` may match `rel`; true when it cannot be read. */
static bool file_may_match(const char *path, const char *rel)
{
	struct stat st;
	char *text;
	size_t len;
	bool hit = false;

	if (stat(path, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR;
	if (!S_ISREG(st.st_mode) || !(text = slurp(path, CONFIG_FILE, &len)))
		return true;
	for (const char *p = text, *end = text + len; p < end && !hit;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		hit = may_match(p, n, rel);
		p += n + 1;
	}
	free(text);
	return hit;
}

/* The user's configuration files, where core.excludesFile is set ($GIT_CONFIG_*, as git reads them). */
static void user_config(struct config *c)
{
	const char *sys = getenv("GIT_CONFIG_SYSTEM"), *glob = getenv("GIT_CONFIG_GLOBAL");
	const char *xdg = getenv("XDG_CONFIG_HOME"), *nosys = getenv("GIT_CONFIG_NOSYSTEM");
	struct wm_buf b = WM_BUF_INIT;

	if (!(nosys && parse_bool(nosys)))
		config_file(c, sys ? sys : "/etc/gitconfig");
	if (glob) {
		config_file(c, glob);
	} else {
		if (xdg && *xdg)
			wm_buf_printf(&b, "%s/git/config", xdg);
		else if (c->home)
			wm_buf_printf(&b, "%s/.config/git/config", c->home);
		if (b.len && !b.oom)
			config_file(c, b.ptr);
		b.len = 0;
		if (c->home)
			wm_buf_printf(&b, "%s/.gitconfig", c->home);
		if (b.len && !b.oom)
			config_file(c, b.ptr);
	}
	/* the default core.excludesFile, read whether or not another is set */
	b.len = 0;
	if (xdg && *xdg)
		wm_buf_printf(&b, "%s/git/ignore", xdg);
	else if (c->home)
		wm_buf_printf(&b, "%s/.config/git/ignore", c->home);
	if (b.len && !b.oom && wm_io_paths_add(&c->excludes, b.ptr, b.len) < 0)
		c->broken = true;
	if (b.oom)
		c->broken = true;
	wm_buf_release(&b);
}

/* Whether `s` holds `word` (lowercase), whatever its case. */
static bool mentions(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return true;
	return false;
}

bool wm_gitdir_may_ignore(const struct wm_gitdir *g, const char *path)
{
	struct config c = { .bare = -1, .home = getenv("HOME"), .top = g->workdir, .follow_conditional = true };
	const char *params = getenv("GIT_CONFIG_PARAMETERS"), *count = getenv("GIT_CONFIG_COUNT");
	struct wm_buf file = WM_BUF_INIT;
	bool hit = false;

	if (!g->workdir)
		return false;   /* a bare repository ignores nothing */
	if (g->uncertain || (params && mentions(params, "excludesfile")))
		return true;
	for (long i = 0, n = count ? strtol(count, NULL, 10) : 0; i < n && i < 1000; i++) {
		char name[32];
		const char *key;
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
		if ((key = getenv(name)) && mentions(key, "excludesfile"))
			return true;
	}
	/* the .gitignore of each directory on the way, from the top */
	for (const char *p = path; !hit; p++) {
		file.len = 0;
		wm_buf_printf(&file, "%s%.*s.gitignore", g->workdir, (int)(p - path), path);
		hit = file.oom || file_may_match(file.ptr, p);
		if (!(p = strchr(p, '/')))
			break;
	}
	file.len = 0;
	wm_buf_printf(&file, "%s/info/exclude", g->common);
	hit = hit || file.oom || file_may_match(file.ptr, path);
	if (!hit) {
		if (!file.oom) {
			file.len = 0;
			wm_buf_printf(&file, "%s/config", g->common);
		}
		user_config(&c);
		if (!file.oom)
			config_file(&c, file.ptr);
		hit = file.oom || c.broken;
		for (size_t i = 0; !hit && i < c.excludes.n; i++)
			hit = file_may_match(c.excludes.items[i], path);
	}
	config_release(&c);
	wm_buf_release(&file);
	return hit;
}
