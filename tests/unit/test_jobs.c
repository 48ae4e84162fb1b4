/* test_jobs.c — unit tests of the job encoder (emit/jobs.c): member order, nulls, escaping, and the per-member cache. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/common.h"
#include "emit/jobs.h"

static const char *cuda_features[] = { "cublas", "pyo3/extension-module" };
static const char *linux_tags[] = { "saas-linux-small-amd64" };
static const char *windows_tags[] = { "saas-windows-medium-amd64", "windows" };

static const struct wm_toolkit cuda = { .id = "cuda" };
static const struct wm_toolkit clblast = { .id = "clblast" };
static struct wm_toolkit_use cuda_uses[] = { { .toolkit = &cuda, .version = "12.4" },
	{ .toolkit = &clblast } };

static struct wm_backend cuda_backend = {
	.id = "cuda", .dist = "llm-rs-cuda", .features = { cuda_features, 2 },
	.toolkits = cuda_uses, .ntoolkits = 2, .smoke = false, .smoke_os = 0,
};
static struct wm_backend cpu_backend = { .id = "cpu", .dist = "llm-rs", .smoke = true, .smoke_os = 7 };

static const struct wm_platform linux_x86_64 = {
	.id = "linux-x86_64", .os = WM_OS_LINUX, .arch = "x86_64", .family = "manylinux",
	.target = "x86_64-unknown-linux-gnu", .wheel_arch = "x86_64", .manylinux = "2_28",
	.platform_tag = "manylinux_2_28_x86_64", .runner = "ubuntu-24.04",
	.gitlab_image = "quay.io/pypa/manylinux_2_28_x86_64", .gitlab_tags = { linux_tags, 1 },
};
/* a runner label that needs escaping, and a container */
static const struct wm_platform windows_odd = {
	.id = "windows-x86_64", .os = WM_OS_WINDOWS, .arch = "x86_64", .family = "win",
	.target = "x86_64-pc-windows-msvc", .platform_tag = "win_amd64",
	.runner = "self \"hosted\"\\caf\xc3\xa9\t1", .container = "ghcr.io/x/y:1", .cross = true,
	.gitlab_tags = { windows_tags, 2 },
};

static const struct wm_python py312 = { .version = "3.12", .minor = 12, .python_tag = "cp312",
	.abi_tag = "cp312", .tag = "cp312", .interpreter = "python3.12" };
static const struct wm_python py313t = { .version = "3.13t", .minor = 13, .freethreaded = true,
	.python_tag = "cp313", .abi_tag = "cp313t", .tag = "cp313t", .interpreter = "python3.13t" };

static const struct wm_group cuda_linux = { .name = "build-cuda-linux" };

static const char job1_text[] =
	"{\"id\":\"cuda-linux-x86_64-cp312\",\"backend\":\"cuda\",\"platform\":\"linux-x86_64\","
	"\"python\":\"3.12\",\"distribution\":\"llm-rs-cuda\",\"features\":[\"cublas\",\"pyo3/extension-module\"],"
	"\"os\":\"linux\",\"arch\":\"x86_64\",\"target\":\"x86_64-unknown-linux-gnu\",\"runner\":\"ubuntu-24.04\","
	"\"cross\":false,\"container\":null,\"manylinux\":\"2_28\",\"platform_tag\":\"manylinux_2_28_x86_64\","
	"\"python_tag\":\"cp312\",\"abi_tag\":\"cp312\",\"interpreter\":\"python3.12\","
	"\"gitlab_image\":\"quay.io/pypa/manylinux_2_28_x86_64\",\"gitlab_tags\":[\"saas-linux-small-amd64\"],"
	"\"toolkits\":{\"cuda\":\"12.4\",\"clblast\":null},\"smoke\":false,\"build_job\":\"build-cuda-linux\"}";

static const char job2_text[] =
	"{\"id\":\"cpu-windows-x86_64-cp313t\",\"backend\":\"cpu\",\"platform\":\"windows-x86_64\","
	"\"python\":\"3.13t\",\"distribution\":\"llm-rs\",\"features\":[],"
	"\"os\":\"windows\",\"arch\":\"x86_64\",\"target\":\"x86_64-pc-windows-msvc\","
	"\"runner\":\"self \\\"hosted\\\"\\\\caf\xc3\xa9\\t1\","
	"\"cross\":true,\"container\":\"ghcr.io/x/y:1\",\"manylinux\":null,\"platform_tag\":\"win_amd64\","
	"\"python_tag\":\"cp313\",\"abi_tag\":\"cp313t\",\"interpreter\":\"python3.13t\","
	"\"gitlab_image\":null,\"gitlab_tags\":[\"saas-windows-medium-amd64\",\"windows\"],"
	"\"toolkits\":{},\"smoke\":true,\"build_job\":null}";

/* a build with settings: the member `build` shows them; the next job without them has none */
static const char *const jemalloc[] = { "cublas", "jemalloc" };
static const char *const args3[] = { "--profile", "dist", "--features", "pyo3/extension-module,cublas,jemalloc", "-Z",
	"build-std" };
static const char *const flags3[] = { "build-std" };
static const char *const comps3[] = { "rust-src" };
static const struct wm_env env3[] = { { "JEMALLOC_SYS_WITH_LG_PAGE", "16", { 0 } } };
static const struct wm_build build3 = {
	.features = { (const char **)jemalloc, 2 }, .default_features = false, .profile = "dist",
	.rust_toolchain = "nightly", .rustup_components = { (const char **)comps3, 1 },
	.unstable_flags = { (const char **)flags3, 1 }, .env = env3, .nenv = 1,
	.args = { (const char **)args3, 6 }, .cli_features = true,
};

static const char job3_build[] =
	"\"features\":[\"cublas\",\"jemalloc\"],";
static const char job3_tail[] =
	"\"build_job\":\"build-cuda-linux\",\"build\":{\"default_features\":false,\"profile\":\"dist\","
	"\"rust_toolchain\":\"nightly\",\"rustup_components\":[\"rust-src\"],\"unstable_flags\":[\"build-std\"],"
	"\"zig\":false,\"docker_options\":[],\"env\":{\"JEMALLOC_SYS_WITH_LG_PAGE\":\"16\"},"
	"\"args\":[\"--profile\",\"dist\",\"--features\",\"pyo3/extension-module,cublas,jemalloc\",\"-Z\",\"build-std\"]}}";

static void check_job(struct wm_jobs *j, const struct wm_job *job, const char *want)
{
	const char *text = NULL;
	size_t len = 0;
	CHECK(wm_jobs_encode(j, job, &text, &len) == 0);
	CHECK_STR(text, want);
	CHECK(text && len == strlen(text));
}

static void test_jobs(void)
{
	struct wm_jobs *j = NULL;
	char id[64];
	struct wm_job job1 = { .id = id, .backend = &cuda_backend, .platform = &linux_x86_64,
		.python = &py312, .group = &cuda_linux };
	struct wm_job job2 = { .id = id, .backend = &cpu_backend, .platform = &windows_odd,
		.python = &py313t, .group = NULL };

	CHECK(wm_jobs_new(&j) == 0 && j);
	if (!j)
		return;
	/* the id lives in one buffer that changes between calls, as the iterator's does */
	strcpy(id, "cuda-linux-x86_64-cp312");
	check_job(j, &job1, job1_text);
	strcpy(id, "cpu-windows-x86_64-cp313t");
	check_job(j, &job2, job2_text);
	/* every member goes back: nothing stale survives from the previous job */
	strcpy(id, "cuda-linux-x86_64-cp312");
	check_job(j, &job1, job1_text);
	check_job(j, &job1, job1_text);
	{
		struct wm_job job3 = job1;
		const char *text = NULL;
		size_t len = 0;
		job3.build = &build3;
		CHECK(wm_jobs_encode(j, &job3, &text, &len) == 0);
		CHECK(text && strstr(text, job3_build) != NULL);
		CHECK(text && len > strlen(job3_tail) && strcmp(text + len - strlen(job3_tail), job3_tail) == 0);
		CHECK(wm_jobs_encode(j, &job3, &text, &len) == 0);
		CHECK(text && len > strlen(job3_tail) && strcmp(text + len - strlen(job3_tail), job3_tail) == 0);
	}
	/* the build member goes with the build: none for a job without settings */
	check_job(j, &job1, job1_text);
	wm_jobs_free(j);
	wm_jobs_free(NULL);
}

static void test_left_out(void)
{
	struct wm_jobs *j = NULL;
	const char *text = NULL;
	size_t len = 0;
	struct wm_job job = { .id = "cuda-linux-x86_64-cp312", .backend = &cuda_backend,
		.platform = &linux_x86_64, .python = &py312, .left_by = WM_LEFT_BY_EXCLUDE,
		.why = "excluded by exclude rule 1", .why_loc = { "m.yaml", 12, 5 } };

	CHECK(wm_jobs_new(&j) == 0 && j);
	if (!j)
		return;
	CHECK(wm_jobs_left_out(j, &job, &text, &len) == 0);
	CHECK_STR(text, "{\"id\":\"cuda-linux-x86_64-cp312\",\"backend\":\"cuda\",\"platform\":\"linux-x86_64\","
		"\"python\":\"3.12\",\"left_out\":true,\"reason\":\"excluded by exclude rule 1\","
		"\"rule\":\"m.yaml:12:5\"}");
	job.why_loc.line = 0;
	CHECK(wm_jobs_left_out(j, &job, &text, &len) == 0);
	CHECK(text && strstr(text, ",\"rule\":null}") != NULL);
	/* a job after a left-out one is unaffected */
	job.why_loc.line = 12;
	job.group = &cuda_linux;
	CHECK(wm_jobs_encode(j, &job, &text, &len) == 0);
	CHECK_STR(text, job1_text);
	wm_jobs_free(j);
}

int main(void)
{
	test_jobs();
	test_left_out();
	return harness_done();
}
