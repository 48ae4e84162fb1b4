/* matrix.c — libFuzzer target: a matrix file through the loader, the expansion and generation of every file. */
#include "fuzz.h"
#include "util/name.h"
#include "util/utf8.h"
#include "formats/yaml.h"
#include "emit/file.h"
#include "emit/jobs.h"

/*
 * Input: a wheelmatrix.yaml.  It is loaded twice: alone (wm_matrix_load) and
 * with a project in memory (the llm-rs fixture's pyproject.toml, Cargo.toml
 * and Python package, read through a wm_reader), so that variant patches and
 * the meta package are generated too.
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour; no WM_EINTERNAL anywhere;
 *   2. a load either succeeds or fails with at least one error, every
 *      positioned diagnostic of the matrix file lies inside the input, and
 *      an error of the matrix file without a position is only for an empty
 *      document or a UTF-16 one (errors about a project file it names may
 *      have none);
 *   3. expansion yields exactly m->njobs jobs, each with an id, in the same
 *      order every time, and each job's JSON (what `list --json` prints) is
 *      valid UTF-8 without control characters;
 *   4. generation either succeeds or fails with positioned errors; run twice
 *      it gives the same files, byte for byte;
 *   5. every generated file is valid UTF-8 and holds no control character
 *      written raw (C0 but tab and line feed, DEL, C1 U+0080-U+009F, U+2028,
 *      U+2029, bidirectional controls U+202A-U+202E and U+2066-U+2069): the
 *      YAML emitter must escape them;
 *   6. every generated YAML file (.yml, .yaml) parses with the project's
 *      YAML reader (libyaml) as a mapping;
 *   7. the matrix's content reaches no mapping or list position whole: in
 *      the GitHub workflow every job's `env` and every step's `env` and
 *      `with` are mappings of single values, every step is a mapping, and no
 *      mapping key anywhere holds an expression (`${{`); in the GitLab file
 *      every job's `variables` and every parallel:matrix entry are mappings
 *      of single values, and every '$' of a value is written `$$` (GitLab
 *      expands any other), but for the template's own WM_TAG: $CI_COMMIT_TAG;
 *   8. every path of the loaded matrix (pyproject.toml's, the manifest's,
 *      the CI files') has a path's text: no '$', no control or format
 *      character.
 */

static struct wm_catalog *catalog;

struct memfile {
	const char *path, *data;
};

static const struct memfile project[] = {
	{ "pyproject.toml",
	  "[build-system]\n"
	  "requires = [\"maturin>=1.0,<2.0\"]\n"
	  "build-backend = \"maturin\"\n"
	  "\n"
	  "[project]\n"
	  "name = \"llm-rs\"\n"
	  "requires-python = \">=3.8\"\n"
	  "dynamic = [\"version\"]\n"
	  "dependencies = [\"llm-rs[extra]; python_version >= '3.9'\"]\n"
	  "\n"
	  "[tool.maturin]\n"
	  "features = [\"pyo3/extension-module\"]\n"
	  "module-name = \"llm_rs.llm_rs\"\n" },
	{ "Cargo.toml",
	  "[package]\n"
	  "name = \"llm-rs\"\n"
	  "version = \"0.2.15\"\n"
	  "edition = \"2021\"\n"
	  "\n"
	  "[lib]\n"
	  "name = \"llm_rs\"\n"
	  "crate-type = [\"cdylib\"]\n"
	  "\n"
	  "[dependencies]\n"
	  "pyo3 = { version = \"=0.29.3\", features = [\"abi3-py38\"] }\n"
	  "\n"
	  "[features]\n"
	  "cublas = []\n"
	  "clblast = []\n"
	  "metal = []\n"
	  "vulkan = []\n" },
	{ "llm_rs/__init__.py", "from .llm_rs import *\n" },
	{ "llm_rs/models.py", "LLAMA = 'llama'\n" },
};

static int mem_read(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	(void)ctx;
	(void)err;
	for (size_t i = 0; i < WM_ARRAY_SIZE(project); i++)
		if (strcmp(project[i].path, path) == 0) {
			if (!(*data = strdup(project[i].data)))
				abort();
			*len = strlen(project[i].data);
			return 0;
		}
	return 1;
}

static int mem_list(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	size_t n = strlen(dir);
	bool any = false;
	(void)ctx;
	(void)err;
	for (size_t i = 0; i < WM_ARRAY_SIZE(project); i++) {
		const char *p = project[i].path;
		if (n == 0 || (strncmp(p, dir, n) == 0 && p[n] == '/')) {
			const char *rel = n ? p + n + 1 : p;
			if (wm_io_paths_add(out, rel, strlen(rel)) < 0)
				return WM_ENOMEM;
			any = true;
		}
	}
	if (!any && n)
		return 1;
	wm_io_paths_sort(out);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct wm_error err;
	(void)argc;
	(void)argv;
	wm_error_init(&err);
	if (wm_catalog_load(&catalog, &err) < 0) {
		fuzz_print_errors(&err);
		abort();
	}
	wm_error_release(&err);
	return 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void check_no_internal(const struct wm_error *err, int ret, const char *what)
{
	if (ret == WM_EINTERNAL || err->code == WM_EINTERNAL) {
		fuzz_print_errors(err);
		FUZZ_CHECK(0, "%s: internal error", what);
	}
	FUZZ_CHECK(ret != WM_ENOMEM, "%s: out of memory", what);
}

/* A refusal has errors, positioned inside the input unless the document is empty. */
static void check_refusal(const struct wm_error *err, const char *what, const char *text, size_t len)
{
	bool positioned = false;
	FUZZ_CHECK(err->nerrors > 0, "%s failed without an error", what);
	fuzz_check_positions(err, "wheelmatrix.yaml", text, len);
	for (size_t i = 0; i < err->ndiags; i++)
		if (err->diags[i].severity == WM_SEV_ERROR && (err->diags[i].line > 0 ||
				(err->diags[i].file && strcmp(err->diags[i].file, "wheelmatrix.yaml") != 0)))
			positioned = true;  /* in the matrix file, or about another file (a missing Cargo.toml) */
	/* a UTF-16 file is refused as a whole */
	if (!positioned && len >= 2 && (((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff) ||
			((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe)))
		positioned = true;
	if (!positioned) {
		struct wm_doc doc;
		struct wm_error e2;
		struct wm_yaml_limits lim = { WM_MATRIX_MAX_BYTES, WM_MATRIX_MAX_DEPTH, WM_MATRIX_MAX_NODES,
			WM_MATRIX_MAX_TEXT };
		bool empty;
		wm_error_init(&e2);
		empty = wm_yaml_parse(&doc, "wheelmatrix.yaml", text, len, &lim, &e2) == 0 && doc.root == NULL;
		wm_yaml_release(&doc);
		wm_error_release(&e2);
		if (!empty) {
			fuzz_print_errors(err);
			FUZZ_CHECK(0, "%s: no error has a position", what);
		}
	}
}

static void check_jobs(const struct wm_matrix *m)
{
	struct wm_jobs *json = NULL;
	struct wm_expand *it = NULL;
	struct wm_job job;
	size_t n = 0;
	int more;

	FUZZ_CHECK(wm_jobs_new(&json) == 0, "wm_jobs_new");
	FUZZ_CHECK(wm_expand_new(&it, m, WM_EXPAND_JOBS | WM_EXPAND_LEFT_OUT) == 0, "wm_expand_new");
	while ((more = wm_expand_next(it, &job)) > 0) {
		const char *text;
		size_t len;
		unsigned line, column;
		unsigned char byte;
		FUZZ_CHECK(job.id && *job.id, "a job without an id");
		if (job.left_by == WM_KEPT) {
			n++;
			FUZZ_CHECK(wm_jobs_encode(json, &job, &text, &len) == 0, "wm_jobs_encode");
		} else {
			FUZZ_CHECK(job.why && *job.why, "a left-out job without a reason");
			FUZZ_CHECK(wm_jobs_left_out(json, &job, &text, &len) == 0, "wm_jobs_left_out");
		}
		FUZZ_CHECK(wm_utf8_valid(text, len, &line, &column, &byte), "a job's JSON is not UTF-8");
		fuzz_check_no_control("a job's JSON", text, len);
	}
	FUZZ_CHECK(more == 0, "wm_expand_next returned %d", more);
	FUZZ_CHECK(n == m->njobs, "expansion yields %zu jobs, the matrix says %zu", n, m->njobs);
	wm_expand_free(it);
	wm_jobs_free(json);
}

/* A mapping of names to single values (scalars), as a job's env, a step's env and with, GitLab's variables. */
static void check_flat(const struct wm_node *n, const char *path, const char *what)
{
	FUZZ_CHECK(n->type == WM_NODE_MAP, "%s: %s is not a mapping", path, what);
	for (size_t i = 0; i < n->n; i++)
		FUZZ_CHECK(n->pairs[i].value->type == WM_NODE_SCALAR, "%s: %s '%s' is not a single value", path, what,
			n->pairs[i].key->text);
}

/* No mapping key of the tree holds a GitHub expression. */
static void check_keys(const struct wm_node *n, const char *path)
{
	if (n->type == WM_NODE_SEQ)
		for (size_t i = 0; i < n->n; i++)
			check_keys(n->items[i], path);
	if (n->type == WM_NODE_MAP)
		for (size_t i = 0; i < n->n; i++) {
			FUZZ_CHECK(!strstr(n->pairs[i].key->text, "${{"), "%s: the key '%s' holds an expression", path,
				n->pairs[i].key->text);
			check_keys(n->pairs[i].value, path);
		}
}

static void check_github(const struct wm_node *root, const char *path)
{
	const struct wm_node *jobs = wm_yaml_find(root, "jobs");
	check_keys(root, path);
	for (size_t i = 0; jobs && i < jobs->n; i++) {
		const struct wm_node *job = jobs->pairs[i].value, *env = wm_yaml_find(job, "env");
		const struct wm_node *steps = wm_yaml_find(job, "steps");
		if (env)
			check_flat(env, path, "a job's env");
		FUZZ_CHECK(steps && steps->type == WM_NODE_SEQ, "%s: job %s has no list of steps", path, jobs->pairs[i].key->text);
		for (size_t k = 0; k < steps->n; k++) {
			const struct wm_node *step = steps->items[k], *v;
			FUZZ_CHECK(step->type == WM_NODE_MAP, "%s: a step of %s is not a mapping", path, jobs->pairs[i].key->text);
			if ((v = wm_yaml_find(step, "env")))
				check_flat(v, path, "a step's env");
			if ((v = wm_yaml_find(step, "with")))
				check_flat(v, path, "a step's with");
		}
	}
}

/* Every '$' of a GitLab variable's value is one of a `$$` pair: GitLab expands any other. */
static void check_gitlab_vars(const struct wm_node *vars, const char *path, const char *job)
{
	check_flat(vars, path, "a job's variables");
	for (size_t i = 0; i < vars->n; i++) {
		const char *v = vars->pairs[i].value->text;
		if (strcmp(vars->pairs[i].key->text, "WM_TAG") == 0 && strcmp(v, "$CI_COMMIT_TAG") == 0)
			continue;
		for (const char *d = strchr(v, '$'); d; d = strchr(d + 2, '$'))
			FUZZ_CHECK(d[1] == '$', "%s: %s's variable %s has a '$' GitLab expands: %s", path, job,
				vars->pairs[i].key->text, v);
	}
}

static void check_gitlab(const struct wm_node *root, const char *path)
{
	for (size_t i = 0; i < root->n; i++) {
		const struct wm_node *job = root->pairs[i].value, *v;
		const struct wm_node *matrix = wm_yaml_find(wm_yaml_find(job, "parallel"), "matrix");
		if (job->type != WM_NODE_MAP)
			continue;
		if ((v = wm_yaml_find(job, "variables")))
			check_gitlab_vars(v, path, root->pairs[i].key->text);
		for (size_t k = 0; matrix && k < matrix->n; k++)
			check_gitlab_vars(matrix->items[k], path, root->pairs[i].key->text);
	}
}

static void check_paths(const struct wm_matrix *m)
{
	const char *paths[] = { m->pyproject, m->manifest, m->github.path, m->gitlab.path };
	struct wm_path_fault f;
	for (size_t i = 0; i < WM_ARRAY_SIZE(paths); i++)
		FUZZ_CHECK(!paths[i] || wm_name_path_text(paths[i], strlen(paths[i]), &f), "the path '%s' holds %s",
			paths[i], f.why);
}

static void check_yaml(const struct wm_file *f, const struct wm_matrix *m)
{
	const char *nl = f->data;
	struct wm_doc doc;
	struct wm_error err;
	struct wm_yaml_limits lim = { WM_GENERATED_MAX_BYTES, WM_MATRIX_MAX_DEPTH, UINT64_MAX, UINT64_MAX };
	size_t hlen;

	for (int i = 0; i < 3; i++)
		nl = memchr(nl, '\n', f->len - (size_t)(nl - f->data)) + 1;
	hlen = (size_t)(nl - f->data);
	wm_error_init(&err);
	/* the whole file, header comments included, as a CI service reads it */
	if (wm_yaml_parse(&doc, f->path, f->data, f->len, &lim, &err) < 0) {
		fuzz_print_errors(&err);
		FUZZ_CHECK(0, "%s does not parse as YAML:\n%.*s", f->path, (int)(f->len - hlen), nl);
	}
	FUZZ_CHECK(doc.root && doc.root->type == WM_NODE_MAP, "%s is not a mapping", f->path);
	if (m->github.enabled && strcmp(f->path, m->github.path) == 0)
		check_github(doc.root, f->path);
	if (m->gitlab.enabled && strcmp(f->path, m->gitlab.path) == 0)
		check_gitlab(doc.root, f->path);
	wm_yaml_release(&doc);
	wm_error_release(&err);
}

static void check_files(const struct wm_files *files, const struct wm_matrix *m)
{
	for (size_t i = 0; i < files->n; i++) {
		const struct wm_file *f = &files->items[i];
		unsigned line, column;
		unsigned char byte;
		FUZZ_CHECK(wm_utf8_valid(f->data, f->len, &line, &column, &byte), "%s is not UTF-8 at %u:%u", f->path,
			line, column);
		fuzz_check_no_control(f->path, f->data, f->len);
		if (has_suffix(f->path, ".yml") || has_suffix(f->path, ".yaml"))
			check_yaml(f, m);
	}
}

static bool same_files(const struct wm_files *a, const struct wm_files *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].path, b->items[i].path) != 0 || a->items[i].len != b->items[i].len ||
		    memcmp(a->items[i].data, b->items[i].data, a->items[i].len) != 0)
			return false;
	return true;
}

static void run(const char *text, size_t len, const struct wm_reader *r)
{
	const char *what = r ? "the load with a project" : "the load";
	struct wm_matrix *m = NULL;
	struct wm_files files, again;
	struct wm_error err;
	int ret;

	wm_error_init(&err);
	wm_files_init(&files);
	wm_files_init(&again);
	ret = r ? wm_matrix_load_project(&m, catalog, "wheelmatrix.yaml", text, len, r, &err)
		: wm_matrix_load(&m, catalog, "wheelmatrix.yaml", text, len, &err);
	check_no_internal(&err, ret, what);
	if (ret < 0) {
		FUZZ_CHECK(m == NULL, "%s failed but gave a matrix", what);
		check_refusal(&err, what, text, len);
		goto out;
	}
	FUZZ_CHECK(m && err.nerrors == 0, "%s succeeded with %zu errors", what, err.nerrors);
	check_paths(m);
	check_jobs(m);
	ret = wm_generate(&files, m, catalog, "wheelmatrix.yaml", &err);
	check_no_internal(&err, ret, "generate");
	if (ret < 0) {
		check_refusal(&err, "generate", text, len);
		goto out;
	}
	wm_error_release(&err);
	wm_error_init(&err);
	ret = wm_generate(&again, m, catalog, "wheelmatrix.yaml", &err);
	FUZZ_CHECK(ret == 0 && same_files(&files, &again), "generate run twice gives other files");
	check_files(&files, m);
out:
	wm_files_release(&files);
	wm_files_release(&again);
	wm_matrix_free(m);
	wm_error_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_reader r = { mem_read, NULL, mem_list };
	run((const char *)data, size, NULL);
	run((const char *)data, size, &r);
	return 0;
}
