/* jobs.c — jobs as compact JSON (list --json, a build job's matrix for GitHub), re-encoding only the members that changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "formats/json.h"
#include "model/catalog.h"
#include "model/expand.h"
#include "emit/emit.h"
#include "emit/jobs.h"

/*
 * Encoding a million jobs must stay cheap.  Consecutive jobs share their
 * backend and platform, so each member keeps its Jansson value, updated in
 * place, and the text Jansson encoded for it: a member whose value did not
 * change costs a comparison and a memcpy, not a free, a malloc and a dump
 * (which walks every character through a UTF-8 decoder).
 *
 * Strings are set without the UTF-8 check: everything in a job comes
 * from the catalog or from a matrix file that the loader checked is UTF-8.
 */


enum job_member {
	J_ID, J_BACKEND, J_PLATFORM, J_PYTHON, J_DISTRIBUTION, J_FEATURES, J_OS, J_ARCH, J_TARGET,
	J_RUNNER, J_CROSS, J_CONTAINER, J_MANYLINUX, J_DEPLOYMENT_TARGET, J_PLATFORM_TAG, J_PYTHON_TAG, J_ABI_TAG,
	J_INTERPRETER, J_GITLAB_IMAGE, J_GITLAB_TAGS, J_TOOLKITS, J_SMOKE, J_BUILD_JOB, J_TESTS, J_BUILD, J_VARIANT_LABEL,
	J_COUNT
};

static const char *const job_keys[J_COUNT] = {
	"id", "backend", "platform", "python", "distribution", "features", "os", "arch", "target",
	"runner", "cross", "container", "manylinux", "deployment_target", "platform_tag", "python_tag", "abi_tag",
	"interpreter", "gitlab_image", "gitlab_tags", "toolkits", "smoke", "build_job", "tests", "build", "variant_label",
};

enum left_member { L_ID, L_BACKEND, L_PLATFORM, L_PYTHON, L_LEFT_OUT, L_REASON, L_RULE, L_COUNT };

static const char *const left_keys[L_COUNT] = {
	"id", "backend", "platform", "python", "left_out", "reason", "rule",
};

/* One member of an object: its value and, unless stale, its text `"key":value`. */
struct member {
	const char *key;
	struct wm_json *value;
	char *text;
	size_t len, cap;
	bool stale;
	bool omit;   /* left out of this object (`tests` of a backend without tests) */
	const void *last[3];  /* `tests`: what its value was made from (test, why, runner), and where + 1; `build`: the build */
	int last_where;
};

struct wm_jobs {
	struct member job[J_COUNT], left[L_COUNT];
	char *text;              /* the last object's text */
	size_t len, cap;
	struct wm_buf matrix;    /* the last group matrix's text */
};

static void members_init(struct member *mb, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mb[i].key = keys[i];
		mb[i].value = wm_json_null();
		mb[i].stale = true;
	}
}

static void members_release(struct member *mb, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		wm_json_free(mb[i].value);
		free(mb[i].text);
	}
}

/* Grows `*p` to at least `need` bytes. */
static int reserve(char **p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 64;
	char *q;
	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(q = realloc(*p, c)))
		return WM_ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Replaces the member's value by `v`, taking the reference. */
static int replace(struct member *mb, struct wm_json *v)
{
	if (!v)
		return WM_ENOMEM;
	wm_json_free(mb->value);
	mb->value = v;
	mb->stale = true;
	return 0;
}

/* The member becomes the string `s`, or null when `s` is NULL. */
static int set_string(struct member *mb, const char *s)
{
	struct wm_json *v = mb->value;
	if (!s)
		return wm_json_is_null(v) ? 0 : replace(mb, wm_json_null());
	if (!wm_json_is_string(v))
		return replace(mb, wm_json_string_trusted(s, strlen(s)));
	if (strcmp(wm_json_str(v), s) == 0)
		return 0;
	mb->stale = true;
	return wm_json_string_set(v, s, strlen(s)) < 0 ? WM_ENOMEM : 0;
}

static int set_bool(struct member *mb, bool b)
{
	if (wm_json_is_bool(mb->value) && wm_json_is_true(mb->value) == b)
		return 0;
	return replace(mb, wm_json_bool(b));
}

/* The member becomes an array of the strings of `l`. */
static int set_strlist(struct member *mb, const struct wm_strlist *l)
{
	struct wm_json *a = mb->value;
	bool same = wm_json_is_array(a) && wm_json_size(a) == l->n;
	for (size_t k = 0; same && k < l->n; k++)
		same = strcmp(wm_json_str(wm_json_at(a, k)), l->items[k]) == 0;
	if (same)
		return 0;
	if (!(a = wm_json_array()))
		return WM_ENOMEM;
	for (size_t k = 0; k < l->n; k++)
		if (wm_json_push(a, wm_json_string_trusted(l->items[k], strlen(l->items[k]))) < 0) {
			wm_json_free(a);
			return WM_ENOMEM;
		}
	return replace(mb, a);
}

static struct wm_json *strlist_or_null(const struct wm_strlist *l)
{
	struct wm_json *a;
	if (!l || !l->n)
		return wm_json_null();
	if (!(a = wm_json_array()))
		return NULL;
	for (size_t k = 0; k < l->n; k++)
		if (wm_json_push(a, wm_json_string_trusted(l->items[k], strlen(l->items[k]))) < 0) {
			wm_json_free(a);
			return NULL;
		}
	return a;
}

enum wm_tests wm_jobs_tests(const struct wm_job *job, const char **why)
{
	const struct wm_test *t = job->backend->test;
	return wm_emit_tests(job, t && t->runner.n, job->platform->cross, why);
}

/*
 * The member becomes where the job's tests run: {"where", "runner", "tags", "why"}; omitted for a
 * backend without tests.  Rebuilt for every job: only a matrix with `test:` pays for it.
 */
static int set_tests(struct member *mb, const struct wm_job *job)
{
	const struct wm_test *t = job->backend->test;
	static const char *const where_names[] = { "none", "build-job", "test-job", "skipped" };
	const char *why;
	enum wm_tests where;
	const char *one[1] = { job->platform->runner };
	struct wm_strlist build_runner = { one, 1 };
	struct wm_json *o;
	int ret = 0;

	mb->omit = t == NULL;
	if (!t)
		return 0;
	where = wm_jobs_tests(job, &why);
	/* consecutive jobs mostly test alike: the value is rebuilt only when what it is made from changes */
	if (mb->last_where == (int)where + 1 && mb->last[0] == t && mb->last[1] == why &&
			mb->last[2] == job->platform->runner)
		return 0;
	if (!(o = wm_json_object()))
		return WM_ENOMEM;
	ret |= wm_json_set(o, "where", wm_json_string_trusted(where_names[where], strlen(where_names[where])));
	ret |= wm_json_set(o, "runner", strlist_or_null(where == WM_TESTS_TEST_JOB ? &t->runner :
		where == WM_TESTS_BUILD_JOB ? &build_runner : NULL));
	ret |= wm_json_set(o, "tags", strlist_or_null(where == WM_TESTS_TEST_JOB ? &t->tags : NULL));
	ret |= wm_json_set(o, "why", why ? wm_json_string_trusted(why, strlen(why)) : wm_json_null());
	if (ret < 0 || replace(mb, o) < 0) {
		if (ret < 0)
			wm_json_free(o);
		mb->last_where = 0;
		return WM_ENOMEM;
	}
	mb->last_where = (int)where + 1;
	mb->last[0] = t;
	mb->last[1] = why;
	mb->last[2] = job->platform->runner;
	return 0;
}

static int put_list(struct wm_json *o, const char *key, const struct wm_strlist *l)
{
	struct wm_json *a = wm_json_array();
	if (!a)
		return WM_ENOMEM;
	for (size_t k = 0; k < l->n; k++)
		if (wm_json_push(a, wm_json_string_trusted(l->items[k], strlen(l->items[k]))) < 0) {
			wm_json_free(a);
			return WM_ENOMEM;
		}
	return wm_json_set(o, key, a);
}

static struct wm_json *string_or_null(const char *s)
{
	return s ? wm_json_string_trusted(s, strlen(s)) : wm_json_null();
}

/* Nothing is said of the build but the backend's features: `maturin build --release`, as ever. */
static bool plain_build(const struct wm_build *b)
{
	return !b || (b->default_features && !b->profile && !b->rust_toolchain && !b->rustup_components.n &&
		!b->unstable_flags.n && !b->zig && !b->docker_options.n && !b->nenv && !b->cli_features);
}

/*
 * The member becomes the job's build settings (struct wm_build): {"default_features", "profile",
 * "rust_toolchain", "rustup_components", "unstable_flags", "zig", "docker_options", "env", "args"};
 * omitted for a job whose build nothing is said of but its backend's features.  Jobs share their
 * build per backend and platform: it is rebuilt only when the build changes.
 */
static int set_build(struct member *mb, const struct wm_build *b)
{
	static const char *release[] = { "--release" };
	struct wm_json *o, *env;
	int ret = 0;

	mb->omit = plain_build(b);
	if (mb->omit || (mb->last[0] == b && mb->last_where))
		return 0;
	if (!(o = wm_json_object()))
		return WM_ENOMEM;
	ret |= wm_json_set(o, "default_features", wm_json_bool(b->default_features));
	ret |= wm_json_set(o, "profile", string_or_null(b->profile));
	ret |= wm_json_set(o, "rust_toolchain", string_or_null(b->rust_toolchain));
	ret |= put_list(o, "rustup_components", &b->rustup_components);
	ret |= put_list(o, "unstable_flags", &b->unstable_flags);
	ret |= wm_json_set(o, "zig", wm_json_bool(b->zig));
	ret |= put_list(o, "docker_options", &b->docker_options);
	if ((env = wm_json_object()) == NULL)
		ret = WM_ENOMEM;
	for (size_t i = 0; env && i < b->nenv; i++)
		ret |= wm_json_set(env, b->env[i].name, wm_json_string_trusted(b->env[i].value, strlen(b->env[i].value)));
	ret |= wm_json_set(o, "env", env);
	ret |= put_list(o, "args", b->args.n ? &b->args : &(struct wm_strlist){ release, 1 });
	if (ret < 0 || replace(mb, o) < 0) {
		if (ret < 0)
			wm_json_free(o);
		mb->last_where = 0;
		return WM_ENOMEM;
	}
	mb->last[0] = b;
	mb->last_where = 1;
	return 0;
}

/* The member becomes the object toolkit id -> version (null for a toolkit without versions). */
static int set_toolkits(struct member *mb, const struct wm_backend *b)
{
	struct wm_json *t = mb->value;
	bool same = wm_json_is_object(t) && wm_json_size(t) == b->ntoolkits;
	for (size_t k = 0; same && k < b->ntoolkits; k++) {
		const struct wm_toolkit_use *u = &b->toolkits[k];
		struct wm_json *v;
		const char *key = wm_json_key_at(t, k, &v);
		same = key && strcmp(key, u->toolkit->id) == 0 &&
			(u->version ? wm_json_is_string(v) && strcmp(wm_json_str(v), u->version) == 0
				: wm_json_is_null(v));
	}
	if (same)
		return 0;
	if (!(t = wm_json_object()))
		return WM_ENOMEM;
	for (size_t k = 0; k < b->ntoolkits; k++) {
		const struct wm_toolkit_use *u = &b->toolkits[k];
		struct wm_json *v = u->version ? wm_json_string_trusted(u->version, strlen(u->version)) : wm_json_null();
		if (wm_json_set(t, u->toolkit->id, v) < 0) {
			wm_json_free(t);
			return WM_ENOMEM;
		}
	}
	return replace(mb, t);
}

/* Encodes a stale member as `"key":value` (keys are plain identifiers: nothing to escape). */
static int encode_member(struct member *mb)
{
	size_t klen = strlen(mb->key) + 3, n;
	if (reserve(&mb->text, &mb->cap, klen + 64) < 0)
		return WM_ENOMEM;
	while ((n = wm_json_write(mb->value, mb->text + klen, mb->cap - klen, WM_JSON_COMPACT)) > mb->cap - klen)
		if (reserve(&mb->text, &mb->cap, klen + n) < 0)
			return WM_ENOMEM;
	if (n == 0)
		return WM_ENOMEM;
	mb->text[0] = '"';
	memcpy(mb->text + 1, mb->key, klen - 3);
	memcpy(mb->text + klen - 2, "\":", 2);
	mb->len = klen + n;
	mb->stale = false;
	return 0;
}

/* The object of members `mb` as text, in the reusable buffer. */
static int assemble(struct wm_jobs *j, struct member *mb, size_t n, const char **text, size_t *len)
{
	size_t total = n + 2;  /* braces, commas and the NUL */
	char *p;
	for (size_t i = 0; i < n; i++) {
		if (mb[i].omit)
			continue;
		if (mb[i].stale && encode_member(&mb[i]) < 0)
			return WM_ENOMEM;
		total += mb[i].len;
	}
	if (reserve(&j->text, &j->cap, total) < 0)
		return WM_ENOMEM;
	p = j->text;
	*p++ = '{';
	for (size_t i = 0, k = 0; i < n; i++) {
		if (mb[i].omit)
			continue;
		if (k++)
			*p++ = ',';
		memcpy(p, mb[i].text, mb[i].len);
		p += mb[i].len;
	}
	*p++ = '}';
	*p = '\0';
	j->len = (size_t)(p - j->text);
	*text = j->text;
	*len = j->len;
	return 0;
}

int wm_jobs_new(struct wm_jobs **out)
{
	struct wm_jobs *j = calloc(1, sizeof(*j));
	*out = NULL;
	if (!j)
		return WM_ENOMEM;
	members_init(j->job, job_keys, J_COUNT);
	members_init(j->left, left_keys, L_COUNT);
	*out = j;
	return 0;
}

void wm_jobs_free(struct wm_jobs *j)
{
	if (!j)
		return;
	members_release(j->job, J_COUNT);
	members_release(j->left, L_COUNT);
	free(j->text);
	wm_buf_release(&j->matrix);
	free(j);
}

static int update_job(struct member *mb, const struct wm_job *job)
{
	const struct wm_backend *b = job->backend;
	const struct wm_platform *p = job->platform;
	const struct wm_python *py = job->python;
	int ret = 0;

	/* every setter returns 0 or WM_ENOMEM */
	ret |= set_string(&mb[J_ID], job->id);
	ret |= set_string(&mb[J_BACKEND], b->id);
	ret |= set_string(&mb[J_PLATFORM], p->id);
	ret |= set_string(&mb[J_PYTHON], py->version);
	ret |= set_string(&mb[J_DISTRIBUTION], b->dist);
	ret |= set_strlist(&mb[J_FEATURES], job->build ? &job->build->features : &b->features);
	ret |= set_string(&mb[J_OS], wm_catalog_os_name(p->os));
	ret |= set_string(&mb[J_ARCH], p->arch);
	ret |= set_string(&mb[J_TARGET], p->target);
	ret |= set_string(&mb[J_RUNNER], p->runner);
	ret |= set_bool(&mb[J_CROSS], p->cross);
	ret |= set_string(&mb[J_CONTAINER], p->container);
	ret |= set_string(&mb[J_MANYLINUX], p->manylinux);
	/* only where the matrix sets one: the macOS build's MACOSX_DEPLOYMENT_TARGET */
	ret |= set_string(&mb[J_DEPLOYMENT_TARGET], p->deployment_target);
	mb[J_DEPLOYMENT_TARGET].omit = p->deployment_target == NULL;
	ret |= set_string(&mb[J_PLATFORM_TAG], p->platform_tag);
	ret |= set_string(&mb[J_PYTHON_TAG], wm_python_tag(py, p));
	ret |= set_string(&mb[J_ABI_TAG], wm_python_abi_tag(py, p));
	ret |= set_string(&mb[J_INTERPRETER], wm_python_interpreter(py, p));
	ret |= set_string(&mb[J_GITLAB_IMAGE], p->gitlab_image);
	ret |= set_strlist(&mb[J_GITLAB_TAGS], &p->gitlab_tags);
	ret |= set_toolkits(&mb[J_TOOLKITS], b);
	ret |= set_bool(&mb[J_SMOKE], b->smoke_os >> p->os & 1);
	ret |= set_string(&mb[J_BUILD_JOB], job->group ? job->group->name : NULL);
	ret |= set_tests(&mb[J_TESTS], job);
	ret |= set_build(&mb[J_BUILD], job->build);
	ret |= set_string(&mb[J_VARIANT_LABEL], b->variant_label);
	return ret ? WM_ENOMEM : 0;
}

int wm_jobs_encode(struct wm_jobs *j, const struct wm_job *job, const char **text, size_t *len)
{
	if (update_job(j->job, job) < 0)
		return WM_ENOMEM;
	/* variant_label only under strategy variants, where every backend has one */
	return assemble(j, j->job, job->backend->variant_label ? J_COUNT : J_VARIANT_LABEL, text, len);
}

int wm_jobs_left_out(struct wm_jobs *j, const struct wm_job *job, const char **text, size_t *len)
{
	struct member *mb = j->left;
	char rule[512];
	int ret = 0;

	if (job->why_loc.line)
		snprintf(rule, sizeof(rule), "%s:%u:%u", job->why_loc.file ? job->why_loc.file : "",
			job->why_loc.line, job->why_loc.column);
	ret |= set_string(&mb[L_ID], job->id);
	ret |= set_string(&mb[L_BACKEND], job->backend->id);
	ret |= set_string(&mb[L_PLATFORM], job->platform->id);
	ret |= set_string(&mb[L_PYTHON], job->python->version);
	ret |= set_bool(&mb[L_LEFT_OUT], true);
	ret |= set_string(&mb[L_REASON], job->why);
	ret |= set_string(&mb[L_RULE], job->why_loc.line ? rule : NULL);
	if (ret)
		return WM_ENOMEM;
	return assemble(j, mb, L_COUNT, text, len);
}

int wm_jobs_group_matrix(struct wm_jobs *j, const struct wm_matrix *m, const struct wm_group *g,
	const char **text, size_t *len)
{
	struct wm_expand *it = NULL;
	struct wm_job job;
	const char *s;
	size_t n, count = 0;
	int ret, more;

	if ((ret = wm_expand_new_group(&it, m, g)) < 0)
		return ret;
	wm_buf_clear(&j->matrix);
	wm_buf_puts(&j->matrix, "{\"include\":[");
	while ((more = wm_expand_next(it, &job)) > 0) {
		if ((ret = wm_jobs_encode(j, &job, &s, &n)) < 0)
			goto out;
		if (count++)
			wm_buf_putc(&j->matrix, ',');
		wm_buf_add(&j->matrix, s, n);
	}
	if (more < 0) {
		ret = more;
		goto out;
	}
	wm_buf_puts(&j->matrix, "]}");
	if (j->matrix.oom) {
		ret = WM_ENOMEM;
		goto out;
	}
	*text = j->matrix.ptr;
	*len = j->matrix.len;
out:
	wm_expand_free(it);
	return ret;
}

