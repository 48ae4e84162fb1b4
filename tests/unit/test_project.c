/* test_project.c — what is read from pyproject.toml and Cargo.toml: version sources, abi3, module, features. */
#include <stdlib.h>
#include <sys/stat.h>
#include "harness.h"
#include "model/project.h"

static char root[] = "/tmp/wm-test-project-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static struct wm_project *load(const char *pyproject, int *ret)
{
	struct wm_reader r;
	struct wm_error err;
	struct wm_project *p = NULL;
	wm_error_init(&err);
	wm_io_tree_reader(&r, root);
	*ret = wm_project_load(&p, &r, pyproject, NULL, &err);
	wm_error_release(&err);
	return p;
}

/* pyo3's abi3 of the build of `p` with `features` (NULL-terminated) and the default features on or off. */
static struct wm_abi3 abi3_of(const struct wm_project *p, const char **features, bool no_default)
{
	struct wm_strlist list = { features, 0 };
	struct wm_build_features b = { &list, no_default };
	struct wm_abi3 ab;
	while (features && features[list.n])
		list.n++;
	wm_project_abi3(p, &b, &ab);
	return ab;
}

int main(void)
{
	struct wm_project *p;
	const char *hint;
	char cmd[128];
	int ret;

	if (!mkdtemp(root))
		return 1;
	snprintf(cmd, sizeof(cmd), "%s/crates", root);
	mkdir(cmd, 0777);
	snprintf(cmd, sizeof(cmd), "%s/crates/py", root);
	mkdir(cmd, 0777);

	/* a workspace member whose version comes from the workspace root two levels up */
	put("Cargo.toml", "[workspace]\nmembers = [\"crates/py\"]\n\n[workspace.package]\nversion = \"0.3.0-alpha.1\"\n");
	put("crates/py/Cargo.toml", "[package]\nname = \"demo-py\"\nversion.workspace = true\n\n"
		"[dependencies]\npyo3 = { version = \"0.22\", features = [\"abi3-py310\"] }\n"
		"cudarc = { version = \"0.12\", optional = true }\n\n[features]\ncuda = [\"dep:cudarc\"]\n");
	put("crates/py/pyproject.toml", "[build-system]\nbuild-backend = \"maturin\"\n\n[project]\nname = \"demo-py\"\n"
		"requires-python = \">=3.11\"\ndynamic = [\"version\"]\n");
	p = load("crates/py/pyproject.toml", &ret);
	CHECK(ret == 0 && p);
	if (p) {
		CHECK_STR(p->cargo_path, "crates/py/Cargo.toml");
		CHECK_STR(p->version, "0.3.0-alpha.1");
		CHECK_STR(p->version_file, "Cargo.toml");
		CHECK(p->version_dynamic);
		CHECK(p->min_minor == 11);
		CHECK(p->abi3 && p->abi3_minor == 10);
		CHECK_STR(p->abi3_file, "crates/py/Cargo.toml");
		CHECK(wm_project_has_feature(p, "cuda", &hint));
		CHECK(wm_project_has_feature(p, "dep:cudarc", &hint));
		CHECK(wm_project_has_feature(p, "cudarc/cuda", &hint));
		CHECK(wm_project_has_feature(p, "cudarc", &hint));  /* an optional dependency is a feature */
		CHECK(!wm_project_has_feature(p, "cudaa", &hint));
		CHECK_STR(hint, "cuda");
		CHECK(!wm_project_has_feature(p, "pyo4/abi3", &hint));
		CHECK_STR(hint, "pyo3");
		CHECK_STR(wm_project_module(&p->arena, p->module_name, p->lib_name, p->name), "demo_py");
		wm_project_free(p);
	}

	/* a static version wins; [lib].name names the module; pyo3/abi3 in [tool.maturin].features */
	put("pyproject.toml", "[project]\nname = \"top\"\nversion = \"1.2.0\"\n\n[tool.maturin]\n"
		"features = [\"pyo3/abi3-py39\"]\nmanifest-path = \"crates/lib/Cargo.toml\"\n");
	snprintf(cmd, sizeof(cmd), "%s/crates/lib", root);
	mkdir(cmd, 0777);
	put("crates/lib/Cargo.toml", "[package]\nname = \"top\"\nversion = \"9.9.9\"\n[lib]\nname = \"_top\"\n");
	p = load("pyproject.toml", &ret);
	CHECK(ret == 0 && p);
	if (p) {
		CHECK_STR(p->cargo_path, "crates/lib/Cargo.toml");
		CHECK_STR(p->version, "1.2.0");
		CHECK(!p->version_dynamic);
		CHECK(p->abi3 && p->abi3_minor == 9);
		CHECK_STR(p->abi3_file, "pyproject.toml");
		CHECK_STR(wm_project_module(&p->arena, p->module_name, p->lib_name, p->name), "_top");
		wm_project_free(p);
	}


	/*
	 * abi3 through the features the build enables, as Cargo resolves them: the crate's default
	 * features, its own features transitively, pkg/feat, pkg?/feat and dep:, [tool.maturin]'s,
	 * the workspace root's pyo3 entry merged with the member's
	 */
	put("Cargo.toml", "[workspace]\nmembers = [\"crates/py\"]\n\n[workspace.dependencies]\n"
		"pyo3 = { version = \"0.29.3\", features = [\"macros\"] }\n");
	put("crates/py/Cargo.toml", "[package]\nname = \"f\"\nversion = \"1.0.0\"\n\n[dependencies]\n"
		"pyo3 = { workspace = true, features = [\"extension-module\"] }\n\n[features]\n"
		"default = [\"fast\"]\nfast = [\"abi3\"]\nabi3 = [\"pyo3/abi3-py310\"]\nold = [\"pyo3?/abi3-py38\"]\n"
		"gpu = []\nt = [\"pyo3/abi3t-py315\"]\n");
	put("crates/py/pyproject.toml", "[build-system]\nbuild-backend = \"maturin\"\n\n[project]\nname = \"f\"\n"
		"version = \"1.0.0\"\n");
	p = load("crates/py/pyproject.toml", &ret);
	CHECK(ret == 0 && p);
	if (p) {
		static const char *gpu[] = { "gpu", NULL }, *old[] = { "old", NULL }, *direct[] = { "pyo3/abi3-py39", NULL };
		static const char *t[] = { "t", NULL };
		struct wm_abi3 ab;
		/* default -> fast -> abi3 -> pyo3/abi3-py310 */
		CHECK(p->abi3 && p->abi3_minor == 10);
		CHECK_STR(p->abi3_feature, "pyo3/abi3-py310");
		CHECK_STR(p->abi3_file, "crates/py/Cargo.toml");
		ab = abi3_of(p, gpu, false);
		CHECK(ab.abi3 && ab.minor == 10);
		CHECK_STR(ab.via, "default");
		ab = abi3_of(p, gpu, true);
		CHECK(!ab.abi3);
		/* pyo3 is built (not optional): pyo3?/abi3-py38 adds its feature, the lower minimum */
		ab = abi3_of(p, old, false);
		CHECK(ab.abi3 && ab.minor == 8);
		CHECK_STR(ab.via, "old");
		ab = abi3_of(p, direct, true);
		CHECK(ab.abi3 && ab.minor == 9 && !ab.at.file && !ab.via);
		ab = abi3_of(p, t, true);
		CHECK(!ab.abi3 && ab.abi3t && ab.abi3t_minor == 15);
		/* the workspace root gives the version, and its features join the member's */
		CHECK_STR(p->pyo3_req, "0.29.3");
		CHECK(!p->pyo3_source);
		CHECK_STR(p->pyo3_file, "Cargo.toml");
		wm_project_free(p);
	}
	/* the root's entry turns abi3 on; an optional pyo3 counts only once enabled */
	put("Cargo.toml", "[workspace]\nmembers = [\"crates/py\"]\n\n[workspace.dependencies]\n"
		"pyo3 = { version = \"0.29\", features = [\"abi3-py311\"] }\n");
	put("crates/py/Cargo.toml", "[package]\nname = \"f\"\nversion = \"1.0.0\"\n\n[dependencies]\n"
		"pyo3 = { workspace = true, optional = true }\n\n[features]\npy = [\"dep:pyo3\"]\n"
		"weak = [\"pyo3?/abi3-py39\"]\n");
	put("crates/py/pyproject.toml", "[build-system]\nbuild-backend = \"maturin\"\n\n[project]\nname = \"f\"\n"
		"version = \"1.0.0\"\n\n[tool.maturin]\nfeatures = [\"weak\"]\n");
	p = load("crates/py/pyproject.toml", &ret);
	CHECK(ret == 0 && p);
	if (p) {
		static const char *py[] = { "py", NULL };
		struct wm_abi3 ab;
		CHECK(!p->abi3);
		ab = abi3_of(p, py, false);
		CHECK(ab.abi3 && ab.minor == 9);
		CHECK_STR(ab.written, "pyo3?/abi3-py39");
		CHECK_STR(ab.at.file, "crates/py/Cargo.toml");
		wm_project_free(p);
	}
	/* all-features in [tool.maturin] */
	put("crates/py/Cargo.toml", "[package]\nname = \"f\"\nversion = \"1.0.0\"\n\n[dependencies]\n"
		"pyo3 = \"0.29\"\n\n[features]\nabi3 = [\"pyo3/abi3-py312\"]\n");
	put("crates/py/pyproject.toml", "[build-system]\nbuild-backend = \"maturin\"\n\n[project]\nname = \"f\"\n"
		"version = \"1.0.0\"\n\n[tool.maturin]\nall-features = true\n");
	p = load("crates/py/pyproject.toml", &ret);
	CHECK(ret == 0 && p);
	if (p) {
		CHECK(p->abi3 && p->abi3_minor == 12);
		wm_project_free(p);
	}

	/* no pyproject.toml: 1, nothing reported */
	p = load("missing/pyproject.toml", &ret);
	CHECK(ret == 1 && !p);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		return 1;
	return harness_done();
}
