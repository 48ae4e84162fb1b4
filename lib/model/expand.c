/* expand.c — the jobs of a matrix (design §4), iterated in a fixed order without materialising them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/text.h"
#include "model/catalog.h"
#include "model/expand.h"
#include "model/platforms.h"
#include "model/schema.h"

/*
 * Masks precomputed once per matrix.  A matrix has at most as many platforms
 * as the catalog and at most a dozen Python entries, so one 32-bit mask holds
 * either axis; backends can number in the thousands and get a bitset.
 */
struct expand_state {
	uint32_t *built;        /* per backend: matrix platforms its `platforms:` admits */
	uint32_t *kept;         /* per (backend, platform): Python entries that survive the excludes */
	uint32_t *pythons;      /* per backend: the Python entries it builds (backend_pythons) */
	struct xrule {
		uint32_t platforms, pythons;
		uint64_t *backends; /* bitset, NULL = every backend */
	} *rules;
	size_t *group_first;    /* per (backend, os): index in m->groups of part 1, SIZE_MAX when none */
};

#define CELL(m, b, p) ((b) * (m)->nplatforms + (p))
#define BIT(set, i) (((set)[(i) / 64] >> ((i) % 64)) & 1u)

static size_t popcount32(uint32_t v)
{
	size_t n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static bool rule_matches_backend(const struct xrule *r, size_t b)
{
	return !r->backends || BIT(r->backends, b);
}

static int compile_rule(struct wm_matrix *m, const struct wm_rule *rule, struct xrule *x)
{
	x->platforms = x->pythons = 0;
	x->backends = NULL;
	for (size_t p = 0; p < m->nplatforms; p++)
		if (!rule->platform || wm_text_glob_match(rule->platform, m->platforms[p]->id))
			x->platforms |= 1u << p;
	for (size_t y = 0; y < m->npythons; y++)
		if (!rule->python || wm_text_glob_match(rule->python, m->pythons[y]->version))
			x->pythons |= 1u << y;
	if (rule->backend) {
		x->backends = wm_arena_array(m->arena, (m->nbackends + 63) / 64, sizeof(uint64_t));
		if (!x->backends)
			return WM_ENOMEM;
		for (size_t b = 0; b < m->nbackends; b++)
			if (wm_text_glob_match(rule->backend, m->backends[b]->id))
				x->backends[b / 64] |= (uint64_t)1 << (b % 64);
	}
	return 0;
}

/* Describes a rule as written, for messages: {backend: cuda, python: 3.13t}. */
static void describe_rule(char *out, size_t size, const struct wm_rule *r)
{
	snprintf(out, size, "{%s%s%s%s%s%s%s%s%s}",
		r->backend ? "backend: " : "", r->backend ? r->backend : "",
		r->backend && (r->platform || r->python) ? ", " : "",
		r->platform ? "platform: " : "", r->platform ? r->platform : "",
		r->platform && r->python ? ", " : "",
		r->python ? "python: " : "", r->python ? r->python : "", "");
}

/* Applies the excludes in order; an exclude that removes nothing is an error. */
static int apply_excludes(struct wm_matrix *m, struct expand_state *st, struct wm_schema *c)
{
	for (size_t r = 0; r < m->nexcludes; r++) {
		const struct xrule *x = &st->rules[r];
		size_t named = 0, removed = 0;
		for (size_t b = 0; b < m->nbackends; b++) {
			if (!rule_matches_backend(x, b))
				continue;
			for (size_t p = 0; p < m->nplatforms; p++) {
				uint32_t *cell = &st->kept[CELL(m, b, p)];
				if (!(x->platforms >> p & 1) || !(st->built[b] >> p & 1))
					continue;
				named++;
				removed += popcount32(*cell & x->pythons);
				*cell &= ~x->pythons;
			}
		}
		if (removed)
			continue;
		{
			char what[256];
			describe_rule(what, sizeof(what), &m->excludes[r]);
			if (!named)
				wm_schema_error_at(c, m->excludes[r].loc.line, m->excludes[r].loc.column, 1,
					"exclude %s matches no job: the backends' 'platforms' already leave out everything "
					"it names", what);
			else
				wm_schema_error_at(c, m->excludes[r].loc.line, m->excludes[r].loc.column, 1,
					"exclude %s matches no job: the excludes above it already removed everything it names",
					what);
		}
	}
	return 0;
}

static size_t platform_index(const struct wm_matrix *m, const char *id)
{
	for (size_t p = 0; p < m->nplatforms; p++)
		if (strcmp(m->platforms[p]->id, id) == 0)
			return p;
	return SIZE_MAX;
}

static size_t python_index(const struct wm_matrix *m, const struct wm_python *py)
{
	for (size_t y = 0; y < m->npythons; y++)
		if (m->pythons[y] == py)
			return y;
	for (size_t y = 0; y < m->npythons; y++)
		if (strcmp(m->pythons[y]->version, py->version) == 0)
			return y;
	return SIZE_MAX;
}

/*
 * The Python entries a backend builds: its abi3 entry (wm_backend.abi3) with the free-threaded,
 * PyPy and GraalPy ones, or, without one, every entry but the abi3 ones; the abi3t entry when its
 * build enables abi3t.
 */
static uint32_t backend_pythons(const struct wm_matrix *m, const struct wm_backend *b)
{
	uint32_t mask = 0;
	for (size_t y = 0; y < m->npythons; y++) {
		const struct wm_python *py = m->pythons[y];
		if (py->abi3t ? b->abi3t : py->abi3 ? py == b->abi3 : !b->abi3 || py->freethreaded || py->pypy ||
				py->graalpy || py->bin)
			mask |= 1u << y;
	}
	return mask;
}

bool wm_expand_in_base(const struct wm_matrix *m, size_t b, size_t p, const struct wm_python *py,
	const struct wm_rule **exclude)
{
	const struct expand_state *st = m->priv;
	size_t y = python_index(m, py);
	if (exclude)
		*exclude = NULL;
	if (y == SIZE_MAX || p >= m->nplatforms || !(st->built[b] >> p & 1))
		return false;
	if (st->kept[CELL(m, b, p)] >> y & 1)
		return true;
	for (size_t r = 0; exclude && r < m->nexcludes; r++)
		if (rule_matches_backend(&st->rules[r], b) && (st->rules[r].platforms >> p & 1) &&
				(st->rules[r].pythons >> y & 1)) {
			*exclude = &m->excludes[r];
			break;
		}
	return false;
}

static void include_id(char *out, size_t size, const struct wm_rule *r)
{
	snprintf(out, size, "%s-%s-%s", r->include_backend->id, r->include_platform->id, r->include_python->tag);
}

/* An include must add a job the matrix does not already have, and only once. */
static int check_includes(struct wm_matrix *m, struct wm_schema *c)
{
	for (size_t i = 0; i < m->nincludes; i++) {
		const struct wm_rule *r = &m->includes[i];
		char id[256];
		include_id(id, sizeof(id), r);
		if (wm_expand_in_base(m, r->include_backend->index, platform_index(m, r->include_platform->id),
				r->include_python, NULL)) {
			wm_schema_error_at(c, r->loc.line, r->loc.column, 1,
				"include adds job '%s', which the matrix already has", id);
			continue;
		}
		for (size_t j = 0; j < i; j++) {
			char other[256];
			include_id(other, sizeof(other), &m->includes[j]);
			if (strcmp(id, other) == 0) {
				wm_schema_error_at(c, r->loc.line, r->loc.column, 1,
					"include adds job '%s' twice (first at line %u)", id, m->includes[j].loc.line);
				break;
			}
		}
	}
	return 0;
}

static int make_groups(struct wm_matrix *m, struct expand_state *st)
{
	size_t ncells = m->nbackends * WM_OS_COUNT, ngroups = 0, *count;

	count = calloc(ncells ? ncells : 1, sizeof(*count));
	st->group_first = wm_arena_array(m->arena, ncells ? ncells : 1, sizeof(*st->group_first));
	if (!count || !st->group_first) {
		free(count);
		return WM_ENOMEM;
	}
	m->njobs = 0;
	for (size_t b = 0; b < m->nbackends; b++)
		for (size_t p = 0; p < m->nplatforms; p++)
			count[b * WM_OS_COUNT + m->platforms[p]->os] += popcount32(st->kept[CELL(m, b, p)]);
	for (size_t i = 0; i < m->nincludes; i++)
		count[m->includes[i].include_backend->index * WM_OS_COUNT + m->includes[i].include_platform->os]++;
	for (size_t i = 0; i < ncells; i++) {
		ngroups += (count[i] + WM_GROUP_MAX - 1) / WM_GROUP_MAX;
		m->njobs += count[i];
	}
	m->groups = wm_arena_array(m->arena, ngroups ? ngroups : 1, sizeof(*m->groups));
	if (!m->groups) {
		free(count);
		return WM_ENOMEM;
	}
	m->ngroups = 0;
	for (size_t b = 0; b < m->nbackends; b++)
		for (int os = 0; os < WM_OS_COUNT; os++) {
			size_t n = count[b * WM_OS_COUNT + (size_t)os];
			unsigned nparts = (unsigned)((n + WM_GROUP_MAX - 1) / WM_GROUP_MAX);
			st->group_first[b * WM_OS_COUNT + (size_t)os] = nparts ? m->ngroups : SIZE_MAX;
			for (unsigned part = 1; part <= nparts; part++) {
				struct wm_group *g = &m->groups[m->ngroups++];
				g->backend = m->backends[b];
				g->os = (enum wm_os)os;
				g->part = part;
				g->nparts = nparts;
				g->njobs = part < nparts ? WM_GROUP_MAX : n - (size_t)(nparts - 1) * WM_GROUP_MAX;
				g->name = nparts == 1 ?
					wm_arena_printf(m->arena, "build-%s-%s", m->backends[b]->id, wm_catalog_os_name(g->os)) :
					wm_arena_printf(m->arena, "build-%s-%s-%u", m->backends[b]->id, wm_catalog_os_name(g->os), part);
				if (!g->name) {
					free(count);
					return WM_ENOMEM;
				}
			}
		}
	free(count);
	return 0;
}

/*
 * A default version (the matrix lists none) that platform p cannot build is left out there: true
 * when `py` was one; a version the matrix lists is the caller's error.
 */
static bool leave_out_default(const struct wm_matrix *m, struct expand_state *st, size_t p, size_t y)
{
	if (m->pythons[y]->loc.line != 0)
		return false;
	for (size_t b = 0; b < m->nbackends; b++)
		st->kept[CELL(m, b, p)] &= ~(1u << y);
	return true;
}

/*
 * A job for a Python its platform's runners cannot build for (3.10 on
 * Windows arm64) is an error at the version, once per platform and version;
 * a default version (the matrix lists none) is left out there instead.  An
 * abi3 wheel is built by a newer interpreter.
 */
static void check_python_min(const struct wm_matrix *m, struct expand_state *st, struct wm_schema *c)
{
	for (size_t p = 0; p < m->nplatforms; p++) {
		const struct wm_platform *pl = m->platforms[p];
		uint32_t any = 0;
		if (!pl->python_min)
			continue;
		for (size_t b = 0; b < m->nbackends; b++)
			any |= st->kept[CELL(m, b, p)];
		for (size_t y = 0; y < m->npythons; y++) {
			const struct wm_python *py = m->pythons[y];
			if (!(any >> y & 1) || py->abi3 || py->minor >= pl->python_min || leave_out_default(m, st, p, y))
				continue;
			wm_schema_error_at(c, py->loc.line, py->loc.column, (unsigned)strlen(py->version),
				"Python %s cannot be built for %s: %s; leave it out there with an exclude such as "
				"{platform: %s, python: \"%s\"}", py->version, pl->id,
				pl->python_min_why ? pl->python_min_why : "its runners have no such interpreter",
				pl->id, py->version);
		}
	}
}

/* A PyPy version on a platform without PyPy is an error at the version, once per platform. */
static void check_pypy(const struct wm_matrix *m, struct expand_state *st, struct wm_schema *c)
{
	for (size_t p = 0; p < m->nplatforms; p++) {
		const struct wm_platform *pl = m->platforms[p];
		const char *why = wm_platforms_pypy_missing(pl);
		uint32_t any = 0;
		if (!why)
			continue;
		for (size_t b = 0; b < m->nbackends; b++)
			any |= st->kept[CELL(m, b, p)];
		for (size_t y = 0; y < m->npythons; y++) {
			const struct wm_python *py = m->pythons[y];
			if (!(any >> y & 1) || !py->pypy)
				continue;
			wm_schema_error_at(c, py->loc.line, py->loc.column, (unsigned)strlen(py->version),
				"PyPy %s cannot be built for %s: %s; leave it out there with an exclude such as "
				"{platform: %s, python: \"%s\"}", py->version + 2, pl->id, why, pl->id, py->version);
		}
	}
}

/*
 * A GraalPy version on a platform it is not built for is an error at the version, once per
 * platform, saying why (wm_catalog_graalpy_refused: templates/interpreters.yaml names the sources).
 * It is built on manylinux x86_64 and aarch64 (maturin's table, with no interpreter) and on macOS
 * x86_64 and arm64 (under the GraalPy setup-python and uv install, whose ABI is that table's).
 */
static void check_graalpy(const struct wm_matrix *m, const struct wm_catalog *cat, struct expand_state *st, struct wm_schema *c)
{
	for (size_t p = 0; p < m->nplatforms; p++) {
		const struct wm_platform *pl = m->platforms[p];
		uint32_t any = 0;
		for (size_t b = 0; b < m->nbackends; b++)
			any |= st->kept[CELL(m, b, p)];
		for (size_t y = 0; y < m->npythons; y++) {
			const struct wm_python *py = m->pythons[y];
			const char *why;
			if (!(any >> y & 1) || !py->graalpy || !(why = wm_catalog_graalpy_refused(cat, pl, py->minor)))
				continue;
			wm_schema_error_at(c, py->loc.line, py->loc.column, (unsigned)strlen(py->version),
				"GraalPy %s cannot be built for %s: %s; leave it out there with an exclude such as "
				"{platform: %s, python: \"%s\"}", py->version + 7, pl->id, why, pl->id, py->version);
		}
	}
}

/*
 * An Emscripten platform builds for its Pyodide release's CPython alone (one release, one
 * CPython: 314.0.5 is 3.14): another version, a free-threaded one, or an abi3 entry whose minimum
 * is newer, is an error at the version, once per platform; a default version (the matrix lists
 * none) is left out there instead.  An abi3 entry is built with the release's CPython (maturin
 * names it cp310-abi3-pyemscripten_2026_0_wasm32: PEP 783's platform says nothing of the Python
 * that runs on it).  PyPy and GraalPy are check_pypy's and check_graalpy's.
 */
static void check_pyodide(const struct wm_matrix *m, struct expand_state *st, struct wm_schema *c)
{
	for (size_t p = 0; p < m->nplatforms; p++) {
		const struct wm_platform *pl = m->platforms[p];
		uint32_t any = 0;
		if (pl->os != WM_OS_EMSCRIPTEN || !pl->pyodide_minor)
			continue;
		for (size_t b = 0; b < m->nbackends; b++)
			any |= st->kept[CELL(m, b, p)];
		for (size_t y = 0; y < m->npythons; y++) {
			const struct wm_python *py = m->pythons[y];
			if (!(any >> y & 1) || py->pypy || py->graalpy || py->bin)
				continue;
			if ((!py->freethreaded && !py->abi3t && (py->abi3 ? py->minor <= pl->pyodide_minor :
					py->minor == pl->pyodide_minor)) || leave_out_default(m, st, p, y))
				continue;
			wm_schema_error_at(c, py->loc.line, py->loc.column, (unsigned)strlen(py->version),
				"Python %s cannot be built for %s: Pyodide %s is CPython %s alone%s; leave it out there with "
				"an exclude such as {platform: %s, python: \"%s\"}", py->version, pl->id, pl->pyodide,
				pl->pyodide_python, py->freethreaded || py->abi3t ? ", not free-threaded" : "", pl->id, py->version);
		}
	}
}

/*
 * A platform left with no job (every Python version excluded there, or no backend built there, and
 * no include adding one): a warning at the platform, since its jobs were likely meant.
 */
static void check_platforms_used(const struct wm_matrix *m, struct expand_state *st, struct wm_schema *c)
{
	for (size_t p = 0; p < m->nplatforms; p++) {
		const struct wm_platform *pl = m->platforms[p];
		uint32_t any = 0;
		bool included = false;
		for (size_t b = 0; b < m->nbackends; b++)
			any |= st->kept[CELL(m, b, p)];
		for (size_t i = 0; i < m->nincludes && !included; i++)
			included = m->includes[i].include_platform && !strcmp(m->includes[i].include_platform->id, pl->id);
		if (any || included || !m->nbackends || !m->npythons)
			continue;
		wm_schema_warning_at(c, pl->loc.line, pl->loc.column, (unsigned)strlen(pl->id),
			"platform '%s' has no jobs: the excludes (or the backends' platforms) leave every Python version "
			"out there; remove it from platforms, or loosen what leaves it out", pl->id);
	}
}

int wm_expand_prepare(struct wm_matrix *m, const struct wm_catalog *cat, struct wm_schema *c)
{
	struct expand_state *st = wm_arena_alloc(m->arena, sizeof(*st));
	size_t ncells = m->nbackends * m->nplatforms;
	uint32_t all_pythons = m->npythons >= 32 ? UINT32_MAX : (1u << m->npythons) - 1;
	int ret;

	if (m->nplatforms > 32 || m->npythons > 32) {
		wm_schema_error_at(c, 0, 0, 0, "too many platforms or Python versions (at most 32 of each)");
		return WM_EINVALID;
	}
	if (!st || !(st->built = wm_arena_array(m->arena, m->nbackends + 1, sizeof(*st->built))) ||
			!(st->kept = wm_arena_array(m->arena, ncells + 1, sizeof(*st->kept))) ||
			!(st->pythons = wm_arena_array(m->arena, m->nbackends + 1, sizeof(*st->pythons))) ||
			!(st->rules = wm_arena_array(m->arena, m->nexcludes + 1, sizeof(*st->rules))))
		goto nomem;
	m->priv = st;
	for (size_t b = 0; b < m->nbackends; b++) {
		const struct wm_backend *be = m->backends[b];
		uint32_t pythons = st->pythons[b] = all_pythons & backend_pythons(m, be);
		for (size_t p = 0; p < m->nplatforms; p++) {
			bool in = be->platforms.n == 0;
			for (size_t i = 0; i < be->platforms.n && !in; i++)
				in = wm_text_glob_match(be->platforms.items[i], m->platforms[p]->id);
			if (in) {
				st->built[b] |= 1u << p;
				st->kept[CELL(m, b, p)] = pythons;
			}
		}
	}
	for (size_t r = 0; r < m->nexcludes; r++)
		if (compile_rule(m, &m->excludes[r], &st->rules[r]) < 0)
			goto nomem;
	apply_excludes(m, st, c);
	check_includes(m, c);
	check_python_min(m, st, c);
	check_pypy(m, st, c);
	check_graalpy(m, cat, st, c);
	check_pyodide(m, st, c);
	check_platforms_used(m, st, c);
	if ((ret = make_groups(m, st)) < 0)
		goto nomem;
	return c->err->code;
nomem:
	return wm_error_oom(c->err);
}

/* ---- the iterator ---------------------------------------------------------------- */

struct wm_expand {
	const struct wm_matrix *m;
	unsigned flags;
	const struct wm_group *only;       /* restrict to one group, or NULL */
	size_t p, b, y, inc;               /* cursor: platform, backend, python, include */
	size_t *group_seen;                /* jobs yielded so far per (backend, os) */
	char idbuf[256];
	char whybuf[512];
};

/* An iterator with `nseen` counters of jobs per (backend, os). */
static int expand_new(struct wm_expand **out, const struct wm_matrix *m, unsigned flags, size_t nseen)
{
	struct wm_expand *it = calloc(1, sizeof(*it));
	*out = NULL;
	if (!it || !(it->group_seen = calloc(nseen, sizeof(*it->group_seen)))) {
		free(it);
		return WM_ENOMEM;
	}
	it->m = m;
	it->flags = flags;
	*out = it;
	return 0;
}

int wm_expand_new(struct wm_expand **out, const struct wm_matrix *m, unsigned flags)
{
	return expand_new(out, m, flags, m->nbackends * WM_OS_COUNT + 1);
}

int wm_expand_new_group(struct wm_expand **out, const struct wm_matrix *m, const struct wm_group *g)
{
	/* one backend and OS: a single counter, indexed as if for backend 0 */
	int ret = expand_new(out, m, WM_EXPAND_JOBS, WM_OS_COUNT);
	if (ret == 0) {
		(*out)->only = g;
		(*out)->b = g->backend->index;
	}
	return ret;
}

void wm_expand_free(struct wm_expand *it)
{
	if (!it)
		return;
	free(it->group_seen);
	free(it);
}

static size_t *seen_counter(struct wm_expand *it, size_t b, enum wm_os os)
{
	return it->only ? &it->group_seen[os] : &it->group_seen[b * WM_OS_COUNT + os];
}

/* Counts a job against its CI build job; returns false when `only` excludes it. */
static bool assign_group(struct wm_expand *it, size_t b, enum wm_os os, struct wm_job *out)
{
	const struct expand_state *st = it->m->priv;
	size_t seen = (*seen_counter(it, b, os))++;
	size_t first = st->group_first[b * WM_OS_COUNT + os];
	out->group = first == SIZE_MAX ? NULL : &it->m->groups[first + seen / WM_GROUP_MAX];
	return !it->only || out->group == it->only;
}

static void fill(struct wm_expand *it, struct wm_job *out, const struct wm_backend *b,
	const struct wm_platform *p, const struct wm_python *py)
{
	snprintf(it->idbuf, sizeof(it->idbuf), "%s-%s-%s", b->id, p->id, py->tag);
	out->id = it->idbuf;
	out->backend = b;
	out->platform = p;
	out->python = py;
}

static bool readded(const struct wm_matrix *m, const struct wm_backend *b, const struct wm_platform *p,
	const struct wm_python *py)
{
	for (size_t i = 0; i < m->nincludes; i++) {
		const struct wm_rule *r = &m->includes[i];
		if (r->include_backend == b && strcmp(r->include_platform->id, p->id) == 0 &&
				strcmp(r->include_python->version, py->version) == 0)
			return true;
	}
	return false;
}

static void explain(struct wm_expand *it, struct wm_job *out, size_t b, size_t p, size_t y)
{
	const struct wm_matrix *m = it->m;
	const struct wm_backend *be = m->backends[b];
	const struct wm_rule *rule = NULL;

	wm_expand_in_base(m, b, p, m->pythons[y], &rule);
	if (rule) {
		char what[256];
		describe_rule(what, sizeof(what), rule);
		out->left_by = WM_LEFT_BY_EXCLUDE;
		out->exclude = rule;
		out->why_loc = rule->loc;
		snprintf(it->whybuf, sizeof(it->whybuf), "removed by exclude %s", what);
	} else {
		size_t n = 0;
		out->left_by = WM_LEFT_BY_PLATFORMS;
		out->why_loc = be->platform_locs ? be->platform_locs[0] : be->loc;
		n += (size_t)snprintf(it->whybuf, sizeof(it->whybuf), "backend '%s' is built only on ", be->id);
		for (size_t i = 0; i < be->platforms.n && n < sizeof(it->whybuf); i++)
			n += (size_t)snprintf(it->whybuf + n, sizeof(it->whybuf) - n, "%s%s", i ? ", " : "",
				be->platforms.items[i]);
	}
	out->why = it->whybuf;
}

int wm_expand_next(struct wm_expand *it, struct wm_job *out)
{
	const struct wm_matrix *m = it->m;
	const struct expand_state *st = m->priv;

	memset(out, 0, sizeof(*out));
	while (it->p < m->nplatforms && it->b < m->nbackends) {
		size_t b = it->b, p = it->p;
		const struct wm_platform *pl = m->platforms[p];
		uint32_t kept = st->kept[CELL(m, b, p)];
		if (!it->only || pl->os == it->only->os) {
			while (it->y < m->npythons) {
				size_t y = it->y++;
				if (kept >> y & 1) {
					if (assign_group(it, b, pl->os, out) && (it->flags & WM_EXPAND_JOBS)) {
						fill(it, out, m->backends[b], m->runs_on && m->runs_on[CELL(m, b, p)] ?
							m->runs_on[CELL(m, b, p)] : pl, m->pythons[y]);
						out->build = m->builds ? m->builds[CELL(m, b, p)] : NULL;
						return 1;
					}
				} else if ((it->flags & WM_EXPAND_LEFT_OUT) && (st->pythons[b] >> y & 1) &&
						!readded(m, m->backends[b], pl, m->pythons[y])) {
					fill(it, out, m->backends[b], pl, m->pythons[y]);
					out->group = NULL;
					explain(it, out, b, p, y);
					return 1;
				}
			}
		}
		it->y = 0;
		if (it->only) {
			it->p++;
		} else if (++it->b == m->nbackends) {
			it->b = 0;
			it->p++;
		}
	}
	it->p = m->nplatforms;
	while (it->inc < m->nincludes) {
		const struct wm_rule *r = &m->includes[it->inc++];
		size_t b = r->include_backend->index;
		if (it->only && (b != it->only->backend->index || r->include_platform->os != it->only->os))
			continue;
		if (assign_group(it, b, r->include_platform->os, out) && (it->flags & WM_EXPAND_JOBS)) {
			fill(it, out, r->include_backend, r->include_platform, r->include_python);
			out->include = r;
			out->build = r->build;
			return 1;
		}
	}
	return 0;
}
