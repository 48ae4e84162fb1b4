/* init.c — a starting wheelmatrix.yaml from the project: its name, abi3, one backend per GPU feature. */
#include <stdio.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "formats/yaml.h"
#include "model/project.h"

/* Cargo features that name a GPU backend, and where that backend can be built by default. */
static const struct gpu {
	const char *feature;
	const char *const *platforms;   /* NULL: every matrix platform */
} gpus[] = {
	{ "cuda", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cublas", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cudnn", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "metal", (const char *const[]){ "macos-*", NULL } },
	{ "mps", (const char *const[]){ "macos-*", NULL } },
	{ "rocm", (const char *const[]){ "linux-x86_64", NULL } },
	{ "hipblas", (const char *const[]){ "linux-x86_64", NULL } },
	{ "clblast", NULL },
	{ "opencl", NULL },
	{ "vulkan", NULL },
};

static const struct gpu *gpu_feature(const char *name)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(gpus); i++)
		if (strcmp(gpus[i].feature, name) == 0)
			return &gpus[i];
	return NULL;
}

static int render(struct wm_buf *out, const struct wm_reader *r, const char *pyproject, struct wm_error *err)
{
	static const char *const platforms[] = { "linux-x86_64", "linux-aarch64", "macos-x86_64", "macos-arm64",
		"windows-x86_64" };
	struct wm_project *p = NULL;
	struct wm_arena arena;
	struct wm_yb b;
	struct wm_y *root, *project, *list, *backends, *cpu, *one;
	int ret = wm_project_load(&p, r, pyproject, NULL, err);

	if (ret == 1) {
		wm_error_add(err, WM_EREAD, WM_SEV_ERROR, pyproject, NULL, 0, 0, 0, 0,
			"no such file: init reads the project's pyproject.toml and Cargo.toml");
		return WM_EREAD;
	}
	if (ret < 0)
		return ret;
	if (!p->name) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0, "no [project].name");
		wm_project_free(p);
		return WM_EINVALID;
	}
	wm_arena_init(&arena);
	b.arena = &arena;
	b.oom = false;
	root = wm_yaml_map(&b);
	if ((one = wm_yaml_str(&b, "1")) != NULL)
		one->typed = true;  /* the format version is a number */
	wm_yaml_set(&b, root, "wheelmatrix", one);
	project = wm_yaml_set(&b, root, "project", wm_yaml_map(&b));
	wm_yaml_set(&b, project, "name", wm_yaml_str(&b, p->name));
	wm_yaml_set(&b, project, "module", wm_yaml_str(&b, wm_project_module(&arena, p->module_name, p->lib_name, p->name)));
	if (strcmp(p->py_path, "pyproject.toml") != 0)
		wm_yaml_set(&b, project, "pyproject", wm_yaml_str(&b, p->py_path));
	if (p->abi3) {
		struct wm_y *python = wm_yaml_set(&b, root, "python", wm_yaml_map(&b));
		wm_yaml_set(&b, python, "abi3", wm_yaml_strf(&b, "3.%u", wm_project_abi3_minor(p)));
	}
	list = wm_yaml_set(&b, root, "platforms", wm_yaml_seq(&b));
	if (list)
		list->style = WM_Y_FLOW;
	for (size_t i = 0; i < WM_ARRAY_SIZE(platforms); i++)
		wm_yaml_push(&b, list, wm_yaml_str(&b, platforms[i]));
	backends = wm_yaml_set(&b, root, "backends", wm_yaml_map(&b));
	for (size_t i = 0; i < p->nfeatures; i++) {
		const struct gpu *g = gpu_feature(p->features[i]);
		struct wm_y *be, *features;
		if (!g || !wm_name_backend_id(p->features[i]))
			continue;
		be = wm_yaml_set(&b, backends, p->features[i], wm_yaml_map(&b));
		features = wm_yaml_set(&b, be, "features", wm_yaml_seq(&b));
		if (features)
			features->style = WM_Y_FLOW;
		wm_yaml_push(&b, features, wm_yaml_str(&b, p->features[i]));
		if (g->platforms) {
			struct wm_y *pl = wm_yaml_set(&b, be, "platforms", wm_yaml_seq(&b));
			if (pl)
				pl->style = WM_Y_FLOW;
			for (const char *const *s = g->platforms; *s; s++)
				wm_yaml_push(&b, pl, wm_yaml_str(&b, *s));
		}
	}
	cpu = wm_yaml_set(&b, backends, wm_yaml_get(backends, "cpu") ? "base" : "cpu", wm_yaml_map(&b));
	if (cpu)
		cpu->style = WM_Y_FLOW;
	wm_yaml_set(&b, cpu, "default", wm_yaml_bool(&b, true));
	if (b.oom || !root) {
		wm_error_add(err, WM_ENOMEM, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0, "out of memory");
		ret = WM_ENOMEM;
	} else {
		/* first: the line YAML editors read the schema from (docs/init.md) */
		wm_buf_puts(out, "# yaml-language-server: $schema=" WM_SCHEMA_URL "\n");
		wm_buf_puts(out, "# wheelmatrix.yaml: the build matrix of this project, written by `wheelmatrix init`.\n"
			"# Edit it freely; docs/matrix.md in wheelmatrix describes every key.\n");
		ret = wm_yaml_emit(out, root, err);
	}
	wm_arena_release(&arena);
	wm_project_free(p);
	return ret;
}

int wm_init_matrix(char **out, size_t *len, const struct wm_reader *r, const char *pyproject, struct wm_error *err)
{
	struct wm_buf buf = WM_BUF_INIT;
	int ret = render(&buf, r, pyproject, err);
	*out = NULL;
	*len = 0;
	if (ret == 0 && buf.oom)
		ret = WM_ENOMEM;
	if (ret < 0) {
		wm_buf_release(&buf);
		wm_error_code(err, ret);
		return ret;
	}
	*len = buf.len;
	*out = wm_buf_detach(&buf);
	return *out ? 0 : WM_ENOMEM;
}
