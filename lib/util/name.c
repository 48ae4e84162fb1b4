/* name.c — the grammars of identifiers and paths: backend ids, Cargo features, PEP 508 names and requirements, repository paths. */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "util/name.h"
#include "util/utf8.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool wm_name_backend_id(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 32 || !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* PEP 508: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, case-insensitively; returns the length matched. */
static size_t distribution_prefix(const char *s)
{
	size_t i = 0, last_alnum = 0;
	if (!is_alnum(s[0]))
		return 0;
	while (is_alnum(s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-') {
		if (is_alnum(s[i]))
			last_alnum = i + 1;
		i++;
	}
	return last_alnum;
}

bool wm_name_distribution(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && distribution_prefix(s) == n;
}

void wm_name_normalize(char *out, const char *name)
{
	/* re.sub(r"[-_.]+", "-", name).lower() */
	char *o = out;
	for (const char *p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else {
			*o++ = (char)tolower((unsigned char)*p);
		}
	}
	*o = '\0';
}

static bool feature_name(const char *s, size_t n)
{
	if (n == 0 || !(is_alnum(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(is_alnum(s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '+' || s[i] == '.'))
			return false;
	return true;
}

static bool crate_name(const char *s, size_t n)
{
	if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(is_alnum(s[i]) || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

bool wm_name_feature(const char *s, const char **why)
{
	const char *slash = strchr(s, '/');
	if (strncmp(s, "dep:", 4) == 0) {
		if (!crate_name(s + 4, strlen(s + 4))) {
			*why = "'dep:' must be followed by a dependency name (letters, digits, '_' and '-')";
			return false;
		}
		return true;
	}
	if (slash) {
		size_t dep = (size_t)(slash - s);
		if (dep > 0 && s[dep - 1] == '?')
			dep--;  /* weak dependency feature: dep?/feature */
		if (!crate_name(s, dep)) {
			*why = "the part before '/' must be a dependency name (letters, digits, '_' and '-')";
			return false;
		}
		if (!feature_name(slash + 1, strlen(slash + 1))) {
			*why = "the part after '/' must be a feature name (letters, digits, '_', '-', '+' and '.')";
			return false;
		}
		return true;
	}
	if (!feature_name(s, strlen(s))) {
		*why = *s ? "a feature name is made of letters, digits, '_', '-', '+' and '.', "
			"and starts with a letter, a digit or '_'"
			: "a feature name cannot be empty";
		return false;
	}
	return true;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *version_one(const char *p)
{
	static const char *const ops[] = { "===", "~=", "==", "!=", "<=", ">=", "<", ">" };
	const char *start;
	size_t i;
	for (i = 0; i < WM_ARRAY_SIZE(ops); i++)
		if (strncmp(p, ops[i], strlen(ops[i])) == 0)
			break;
	if (i == WM_ARRAY_SIZE(ops))
		return NULL;
	p = skip_ws(p + strlen(ops[i]));
	start = p;
	while (is_alnum(*p) || (*p && strchr("._*+!-", *p)))
		p++;
	return p > start ? p : NULL;
}

static const char *version_many(const char *p)
{
	for (;;) {
		p = version_one(p);
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p != ',')
			return p;
		p = skip_ws(p + 1);
	}
}

/* Markers are checked for shape only: balanced parentheses and closed quotes. */
static bool marker(const char *p)
{
	int depth = 0;
	char quote = 0;
	p = skip_ws(p);
	if (!*p)
		return false;
	for (; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth < 0) {
			return false;
		} else if ((unsigned char)*p < 0x20) {
			return false;
		}
	}
	return depth == 0 && !quote;
}

bool wm_name_requirement(const char *s, const char **why)
{
	const char *p = skip_ws(s);
	size_t n = distribution_prefix(p);
	if (n == 0) {
		*why = "a requirement starts with a distribution name";
		return false;
	}
	p = skip_ws(p + n);
	if (*p == '[') {
		p = skip_ws(p + 1);
		while (*p != ']') {
			size_t e = distribution_prefix(p);
			if (e == 0) {
				*why = "extras are names in brackets, separated by commas";
				return false;
			}
			p = skip_ws(p + e);
			if (*p == ',')
				p = skip_ws(p + 1);
			else if (*p != ']') {
				*why = "extras are names in brackets, separated by commas";
				return false;
			}
		}
		p = skip_ws(p + 1);
	}
	if (*p == '@') {
		const char *u = p = skip_ws(p + 1);
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (p == u || !memchr(u, ':', (size_t)(p - u))) {
			*why = "'@' must be followed by a URL";
			return false;
		}
		p = skip_ws(p);
	} else if (*p == '(') {
		p = version_many(skip_ws(p + 1));
		if (!p || *(p = skip_ws(p)) != ')') {
			*why = "a version specifier is an operator (==, >=, ~=, ...) and a version";
			return false;
		}
		p = skip_ws(p + 1);
	} else if (*p && *p != ';') {
		p = version_many(p);
		if (!p) {
			*why = "a version specifier is an operator (==, >=, ~=, ...) and a version";
			return false;
		}
		p = skip_ws(p);
	}
	if (*p == ';') {
		if (!marker(p + 1)) {
			*why = "an environment marker follows ';'";
			return false;
		}
		return true;
	}
	if (*p) {
		*why = "unexpected text after the version specifier";
		return false;
	}
	return true;
}

bool wm_name_env(const char *s)
{
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!(is_alnum(*p) || *p == '_'))
			return false;
	return true;
}

bool wm_name_module(const char *s)
{
	bool start = true;
	for (const char *p = s;; p++) {
		if (start) {
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
				return false;
			start = false;
		} else if (*p == '.') {
			start = true;
		} else if (*p == '\0') {
			return true;
		} else if (!(is_alnum(*p) || *p == '_')) {
			return false;
		}
	}
}

bool wm_name_target(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

bool wm_name_cargo_profile(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (const char *p = s; *p; p++)
		if (!(is_alnum(*p) || *p == '-' || *p == '_'))
			return false;
	return true;
}

/* n digits at p, nothing else */
static bool digits(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(p[i] >= '0' && p[i] <= '9'))
			return false;
	return true;
}

bool wm_name_rust_toolchain(const char *s)
{
	static const char *const channels[] = { "stable", "beta", "nightly" };
	const char *p = s;
	size_t i;
	for (i = 0; i < WM_ARRAY_SIZE(channels); i++)
		if (strncmp(s, channels[i], strlen(channels[i])) == 0 && (s[strlen(channels[i])] == '\0' ||
				s[strlen(channels[i])] == '-')) {
			p = s + strlen(channels[i]);
			break;
		}
	if (i == WM_ARRAY_SIZE(channels)) {
		/* a release: 1.N or 1.N.N */
		for (int part = 0; part < 3; part++) {
			const char *start = p;
			while (*p >= '0' && *p <= '9')
				p++;
			if (p == start || p - start > 4)
				return false;
			if (*p != '.' || part == 2)
				break;
			p++;
		}
		if (strchr(s, '.') == NULL || p[-1] == '.')
			return false;
	}
	/* -YYYY-MM-DD */
	if (p[0] == '-' && digits(p + 1, 4) && p[5] == '-' && digits(p + 6, 2) && p[8] == '-' && digits(p + 9, 2) &&
			(p[11] == '\0' || p[11] == '-'))
		p += 11;
	if (!*p)
		return true;
	/* -<host triple> */
	if (*p++ != '-' || !*p)
		return false;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
				(*p == '-' && p[1] && p[1] != '-')))
			return false;
	return true;
}

bool wm_name_rustup_component(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return true;
}

bool wm_name_unstable_flag(const char *s)
{
	const char *p = s;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
		return false;
	for (; *p && *p != '='; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	if (!*p)
		return true;
	if (!*++p)
		return false;
	for (; *p; p++)
		if (!(is_alnum(*p) || *p == '_' || *p == ',' || *p == '.' || *p == '+' || *p == '-'))
			return false;
	return true;
}

bool wm_name_docker_option(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!(is_alnum(*p) || strchr("_=:,./@+-", *p)))
			return false;
	return true;
}

bool wm_name_path_text(const char *s, size_t len, struct wm_path_fault *out)
{
	const char *dollar = memchr(s, '$', len);
	size_t n, at = wm_utf8_find_hidden(s, len, &out->cp, &n);
	out->hidden = false;
	/* whichever comes first */
	if (dollar && (size_t)(dollar - s) < at) {
		out->at = (size_t)(dollar - s);
		out->cp = 0;
		if (len - out->at >= 3 && memcmp(dollar, "${{", 3) == 0) {
			out->len = 3;
			out->why = "a GitHub expression ('${{'), which GitHub evaluates where the CI files use the path";
		} else {
			out->len = 1;
			out->why = "'$', which GitLab expands in the CI file's variables and a shell in what it reads";
		}
		return false;
	}
	if (at < len) {
		out->at = at;
		out->len = n;
		out->hidden = true;
		out->why = "a control or format character, which does not show as itself";
		return false;
	}
	out->why = NULL;
	out->at = out->len = 0;
	return true;
}

/* ---- names git keeps out of a tree: core.protectHFS and core.protectNTFS ---------- */

/*
 * The length of the character at `s` (of `n` bytes) that HFS+ leaves out of a
 * name, or 0: the zero-width joiners and marks, the bidirectional embeddings
 * and overrides, the deprecated format characters and the byte order mark.
 */
static size_t hfs_ignorable(const unsigned char *s, size_t n)
{
	if (n < 3)
		return 0;
	if (s[0] == 0xe2 && s[1] == 0x80 && ((s[2] >= 0x8c && s[2] <= 0x8f) || (s[2] >= 0xaa && s[2] <= 0xae)))
		return 3;  /* U+200C to U+200F, U+202A to U+202E */
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xaa && s[2] <= 0xaf)
		return 3;  /* U+206A to U+206F */
	if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 3;  /* U+FEFF */
	return 0;
}

/*
 * True when the bytes at `s` (`n` of them) do not start a character git
 * reads: not UTF-8, an overlong form, a surrogate, U+FFFE or U+FFFF, or past
 * U+10FFFF.  git's HFS+ check takes such a byte for the end of the name.
 */
static bool utf8_broken(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || len > n)
		return true;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return true;
	return (len == 2 && s[0] < 0xc2) || (len == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
		(len == 3 && s[0] == 0xed && s[1] >= 0xa0) || (len == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe) ||
		(len == 4 && s[0] == 0xf0 && s[1] < 0x90) || (len == 4 && (s[0] > 0xf4 || (s[0] == 0xf4 && s[1] > 0x8f)));
}

/* True when HFS+ reads the component `c` (`n` bytes) as '.' and `needle` (ASCII, lower case). */
static bool hfs_dot(const char *c, size_t n, const char *needle)
{
	const unsigned char *p = (const unsigned char *)c, *end = p + n;
	bool dot = false;

	for (;;) {
		size_t skip;
		while (p < end && (skip = hfs_ignorable(p, (size_t)(end - p))) > 0)
			p += skip;
		if (p == end || (dot && !*needle && utf8_broken(p, (size_t)(end - p))))
			return dot && !*needle;
		if (!dot) {
			if (*p++ != '.')
				return false;
			dot = true;
		} else if (!*needle || *p >= 0x80 || tolower(*p++) != *needle++) {
			return false;  /* more than the needle, or another letter (any other character is another) */
		}
	}
}

/* True when `c` (`n` bytes) from `i` on holds only dots and spaces up to its end or an NTFS stream's ':'. */
static bool ntfs_tail(const char *c, size_t n, size_t i)
{
	for (; i < n && c[i] != ':'; i++)
		if (c[i] != '.' && c[i] != ' ')
			return false;
	return true;
}

/*
 * True when NTFS reads the component `c` (`n` bytes) as '.' and `needle`:
 * with any case, trailing dots and spaces, or a stream (`.git::$INDEX_ALLOCATION`);
 * or as the 8.3 short name Windows gives it: the needle's first six letters
 * and ~1 to ~4, or `short6` (git's hashed prefix) and a ~ and digits, 8 characters in all.
 */
static bool ntfs_dot(const char *c, size_t n, const char *needle, const char *short6)
{
	size_t len = strlen(needle), i;
	bool tilde = false;

	if (n > len && c[0] == '.' && strncasecmp(c + 1, needle, len) == 0)
		return ntfs_tail(c, n, len + 1);
	if (n >= 8 && strncasecmp(c, needle, 6) == 0 && c[6] == '~' && c[7] >= '1' && c[7] <= '4')
		return ntfs_tail(c, n, 8);
	if (n < 8)
		return false;
	for (i = 0; i < 8; i++) {
		unsigned char ch = (unsigned char)c[i];
		if (tilde) {
			if (ch < '0' || ch > '9')
				return false;
		} else if (ch == '~') {
			if (++i == 8 || c[i] < '1' || c[i] > '9')
				return false;
			tilde = true;
		} else if (i >= 6 || ch >= 0x80 || tolower(ch) != short6[i]) {
			return false;
		}
	}
	return tilde && ntfs_tail(c, n, 8);
}

const char *wm_name_git_component(const char *c, size_t n)
{
	if (n == 4 && strncasecmp(c, ".git", 4) == 0)
		return "nothing is written into '.git'";
	if (hfs_dot(c, n, "git"))
		return "macOS reads a name as '.git' (HFS+ ignores U+200C to U+200F, U+202A to U+202E, U+206A to "
			"U+206F and U+FEFF): nothing is written into '.git'";
	/* git~1 is .git's short name: it is made first, and only .git's short name is ~1 for sure */
	if ((n > 4 && c[0] == '.' && strncasecmp(c + 1, "git", 3) == 0 && ntfs_tail(c, n, 4)) ||
			(n >= 5 && strncasecmp(c, "git~1", 5) == 0 && ntfs_tail(c, n, 5)))
		return "Windows reads a name as '.git' (NTFS drops trailing dots and spaces, takes 'git~1' for its "
			"short name and ':' for a stream): nothing is written into '.git'";
	if (hfs_dot(c, n, "gitmodules") || ntfs_dot(c, n, "gitmodules", "gi7eba"))
		return "git reads a name as '.gitmodules' (also on macOS or Windows): nothing is written over git's "
			"list of submodules";
	return NULL;
}

bool wm_name_repo_path(const char *s, const char **why)
{
	struct wm_path_fault f;
	if (!wm_name_repo_path_shape(s, why))
		return false;
	if (!wm_name_path_text(s, strlen(s), &f)) {
		*why = f.hidden ? "the path holds a control or format character, which does not show as itself" : f.why;
		return false;
	}
	return true;
}

bool wm_name_repo_path_shape(const char *s, const char **why)
{
	const char *p = s;
	if (!*s) {
		*why = "the path is empty";
		return false;
	}
	if (*s == '/' || (isalpha((unsigned char)s[0]) && s[1] == ':')) {
		*why = "an absolute path leaves the repository: give a path relative to the repository root";
		return false;
	}
	if (strchr(s, '\\')) {
		*why = "use '/' to separate directories";
		return false;
	}
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || (n == 1 && *p == '.')) {
			*why = "the path has an empty or '.' component";
			return false;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			*why = "'..' leaves the repository";
			return false;
		}
		if ((*why = wm_name_git_component(p, n)) != NULL)
			return false;
		if (!end)
			break;
		p = end + 1;
		if (!*p) {
			*why = "the path names a directory, not a file";
			return false;
		}
	}

	return true;
}

const char *wm_name_feature_leaf(const char *s)
{
	const char *slash = strrchr(s, '/');
	if (slash)
		return slash + 1;
	if (strncmp(s, "dep:", 4) == 0)
		return s + 4;
	return s;
}

static bool url_char(char c, const char *extra)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr(extra, c));
}

bool wm_name_index_url(const char *s, const char **why)
{
	const char *host, *p;
	bool loopback;

	if (strncmp(s, "https://", 8) == 0) {
		host = s + 8;
	} else if (strncmp(s, "http://", 7) == 0) {
		host = s + 7;
	} else {
		*why = "the URL must start with https://";
		return false;
	}
	for (p = host; *p && *p != '/'; p++)
		if (*p == '@') {
			*why = "the URL must not hold a user or password";
			return false;
		}
	for (p = host; url_char(*p, ".-"); p++)
		;
	if (p == host || *host == '.' || *host == '-' || p[-1] == '.' || p[-1] == '-') {
		*why = "the URL needs a host name of letters, digits, '.' and '-'";
		return false;
	}
	loopback = ((size_t)(p - host) == 9 && strncmp(host, "localhost", 9) == 0) ||
		((size_t)(p - host) == 9 && strncmp(host, "127.0.0.1", 9) == 0);
	if (host == s + 7 && !loopback) {
		*why = "the URL must use https:// (http:// only for localhost and 127.0.0.1)";
		return false;
	}
	if (*p == ':') {
		const char *digits = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == digits || p - digits > 5) {
			*why = "the port must be a number";
			return false;
		}
	}
	for (; url_char(*p, "-._~/"); p++)
		if (p[0] == '/' && p[1] == '.' && (p[2] == '/' || !p[2] || (p[2] == '.' && (p[3] == '/' || !p[3])))) {
			*why = "the path must not have '.' or '..' segments";
			return false;
		}
	if (*p) {
		*why = *p == '?' ? "the URL must not hold a query" : *p == '#' ? "the URL must not hold a fragment" :
			"the URL may hold only letters, digits and -._~/ after the host";
		return false;
	}
	return true;
}
