/* test_plan.c — unit tests of release planning: PEP 440 versions, artifact names, simple index pages, base64. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/arena.h"
#include "util/buf.h"
#include "formats/pep440.h"
#include "index/filename.h"
#include "index/report.h"
#include "index/simple.h"

/* The PEP 440 form of `v`, or "ERROR". */
static const char *pep440(const char *v)
{
	static char out[128];
	struct wm_buf b = WM_BUF_INIT;
	const char *why = NULL;
	int ret = wm_pep440(&b, v, &why);
	snprintf(out, sizeof(out), "%s", ret == 0 ? b.ptr : "ERROR");
	if (ret == 0 ? why != NULL : why == NULL)
		snprintf(out, sizeof(out), "BAD WHY");
	wm_buf_release(&b);
	return out;
}

static void test_pep440(void)
{
	/* Cargo's semver */
	CHECK_STR(pep440("0.3.0-alpha.1"), "0.3.0a1");
	CHECK_STR(pep440("1.0.0-beta.2"), "1.0.0b2");
	CHECK_STR(pep440("1.0.0-rc.1"), "1.0.0rc1");
	CHECK_STR(pep440("1.0.0-alpha"), "1.0.0a0");
	CHECK_STR(pep440("1.0.0-dev.3"), "1.0.0.dev3");
	CHECK_STR(pep440("1.2.3+build.5"), "1.2.3+build.5");
	CHECK_STR(pep440("1.2.3"), "1.2.3");
	CHECK_STR(pep440("1.0.0-x.7.z"), "ERROR");
	CHECK_STR(pep440("1.0.0-alpha.beta"), "ERROR");
	CHECK_STR(pep440("1.0.0-beta.x"), "ERROR");
	/* PEP 440's own spellings, normalised */
	CHECK_STR(pep440("v1.0"), "1.0");
	CHECK_STR(pep440("1.0.0A1"), "1.0.0a1");
	CHECK_STR(pep440("1.0c2"), "1.0rc2");
	CHECK_STR(pep440("1.0-preview.1"), "1.0rc1");
	CHECK_STR(pep440("1.0-1"), "1.0.post1");
	CHECK_STR(pep440("1.0.rev2"), "1.0.post2");
	CHECK_STR(pep440("01.002.0"), "1.2.0");
	CHECK_STR(pep440("0!1.0"), "1.0");
	CHECK_STR(pep440("2!1.0"), "2!1.0");
	CHECK_STR(pep440("1.0+Ubuntu-1"), "1.0+ubuntu.1");
	CHECK_STR(pep440("1.0a1.post2.dev3"), "1.0a1.post2.dev3");
	CHECK_STR(pep440("1.0+"), "ERROR");
	CHECK_STR(pep440(""), "ERROR");
	CHECK_STR(pep440("latest"), "ERROR");
	CHECK(wm_pep440_equal("0.3.0-alpha.1", "0.3.0a1"));
	CHECK(wm_pep440_equal("1.0", "1.0"));
	CHECK(!wm_pep440_equal("1.0", "1.0.0"));   /* file names keep the release as written */
	CHECK(!wm_pep440_equal("0.3.0a1", "0.3.0a2"));
}

/* PEP 440's order: each version below the next, and equal ones equal. */
static void test_pep440_order(void)
{
	static const char *const ordered[] = {
		"0.9.0", "0.9.0+cuda", "1.0.dev0", "1.0.0a1.dev1", "1.0a1", "1.0a2.dev1", "1.0a2", "1.0.0b1", "1.0rc1",
		"1.0", "1.0+abc", "1.0+abc.5", "1.0+5", "1.0.post1.dev2", "1.0.post1", "1.0.1", "1.10", "1777777777777777777777.0",
		"1!0.1",
	};
	bool ok;
	for (size_t i = 0; i + 1 < sizeof(ordered) / sizeof(*ordered); i++) {
		bool ok2;
		int below = wm_pep440_compare(ordered[i], ordered[i + 1], &ok), above = wm_pep440_compare(ordered[i + 1],
			ordered[i], &ok2);
		CHECK_STR(below < 0 && above > 0 && ok && ok2 ? ordered[i] : "not below", ordered[i]);
	}
	CHECK(wm_pep440_compare("1.0", "1.0.0", &ok) == 0 && ok);
	CHECK(wm_pep440_compare("0.3.0-alpha.1", "0.3.0a1", &ok) == 0 && ok);
	CHECK(wm_pep440_compare("v01.2", "1.2", &ok) == 0 && ok);
	CHECK(wm_pep440_compare("1.0+Ubuntu-1", "1.0+ubuntu.1", &ok) == 0 && ok);
	CHECK(wm_pep440_compare("latest", "1.0", &ok) == 0 && !ok);
}

/* Release specifiers (the maturin pin): parts compare by value, whatever their length or count. */
static int specs(const char *s, const char *v)
{
	const char *why;
	return wm_pep440_specs_match(s, v, &why);
}

static void test_pep440_specs(void)
{
	CHECK(specs(">=1.0,<1.14", "1.13.3") == 1);
	CHECK(specs(">=1.0,<1.14", "1.14.0") == 0);
	CHECK(specs("==1.7", "1.7.0") == 1);          /* missing parts are zeros */
	CHECK(specs("==1.7.*", "1.7.9") == 1);
	CHECK(specs("==1.7.*", "1.8.0") == 0);
	CHECK(specs("~=0.14.2", "0.14.17") == 1);
	CHECK(specs("~=0.14.2", "0.15.0") == 0);
	CHECK(specs(">=01.002", "1.2") == 1);         /* leading zeros */
	CHECK(specs(">1.0rc1", "1.0.1") == 1);        /* a bound's pre-release compared as its release */
	/* a part longer than any machine integer, and a release of many parts */
	CHECK(specs("==1777777777777777777777777777777777777777777777.0.0", "1777777777777777777777777777777777777777777777.0.0") == 1);
	CHECK(specs("<1777777777777777777777777777777777777777777777.0", "1777777777777777777777777777777777777777777776.9") == 1);
	CHECK(specs(">99999999999999999999", "100000000000000000000") == 1);
	CHECK(specs("<=1.2.3.4.5.6.7.8.9.10", "1.2.3.4.5.6.7.8.9.10") == 1);
	CHECK(specs("<1.2.3.4.5.6.7.8.9.10", "1.2.3.4.5.6.7.8.9.9") == 1);
	CHECK(specs(">=1.0", "latest") < 0);
	CHECK(specs("?1.0", "1.0") < 0);
}

static void test_names(void)
{
	struct wm_arena a;
	struct wm_filename f;
	char dist[32];
	wm_arena_init(&a);
	wm_filename_dist(dist, "Llm.RS--cuda_");
	CHECK_STR(dist, "llm_rs_cuda_");
	CHECK_STR(wm_filename_wheel(&a, "llm-rs-cuda", "0.3.0a1", "cp38", "abi3", "win_amd64"),
		"llm_rs_cuda-0.3.0a1-cp38-abi3-win_amd64.whl");
	CHECK_STR(wm_filename_sdist(&a, "Demo.Native", "1.0"), "demo_native-1.0.tar.gz");

	CHECK(wm_filename_parse(&f, &a, "llm_rs-0.3.0a1-1-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl") == 0);
	CHECK(f.kind == WM_FILE_WHEEL);
	CHECK_STR(f.name, "llm_rs");
	CHECK_STR(f.version, "0.3.0a1");
	CHECK_STR(f.build, "1");
	CHECK_STR(f.platform, "manylinux_2_17_x86_64.manylinux2014_x86_64");
	/* compressed tag sets and another manylinux level: the same build */
	CHECK(wm_filename_matches_wheel(&f, "cp38", "abi3", "manylinux_2_28_x86_64"));
	CHECK(!wm_filename_matches_wheel(&f, "cp38", "abi3", "manylinux_2_28_aarch64"));
	CHECK(!wm_filename_matches_wheel(&f, "cp38", "abi3", "musllinux_1_2_x86_64"));
	CHECK(!wm_filename_matches_wheel(&f, "cp312", "cp312", "manylinux_2_28_x86_64"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp38-abi3-macosx_10_9_x86_64.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_10_12_x86_64"));  /* deployment target */
	CHECK(!wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_11_0_arm64"));
	CHECK(!wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_10_12_universal2"));
	/* a planned set names its wheel by universal2's tag: an x86_64 file is not the universal2 wheel */
	CHECK(!wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_10_12_universal2.macosx_10_12_x86_64.macosx_11_0_arm64"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp38-abi3-macosx_10_12_universal2.macosx_10_12_x86_64.macosx_11_0_arm64.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_10_12_universal2.macosx_10_12_x86_64.macosx_11_0_arm64"));
	CHECK(wm_filename_matches_wheel(&f, "cp38", "abi3", "macosx_10_12_universal2"));
	/* PyPy 7.3's and 8.0's ABI tags of one Python: the same wheel; another Python's: not */
	CHECK(wm_filename_parse(&f, &a, "x-1.0-pp311-pypy311_pp73-macosx_11_0_arm64.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "pp311", "pypy311_pp80", "macosx_11_0_arm64"));
	CHECK(!wm_filename_matches_wheel(&f, "pp311", "pypy310_pp80", "macosx_11_0_arm64"));
	/* abi3t's compressed ABI set: each of its tags */
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp315-abi3.abi3t-manylinux_2_28_x86_64.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp315", "abi3.abi3t", "manylinux_2_28_x86_64"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp315-abi3-manylinux_2_28_x86_64.whl") == 0);
	CHECK(!wm_filename_matches_wheel(&f, "cp315", "abi3.abi3t", "manylinux_2_28_x86_64"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp313-cp313t-win_amd64.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp313", "cp313t", "win_amd64"));
	CHECK(!wm_filename_matches_wheel(&f, "cp313", "cp313", "win_amd64"));       /* free-threaded is another ABI */
	CHECK(!wm_filename_matches_wheel(&f, "cp313", "cp313t", "win_arm64"));
	/* Pyodide: another platform version is another wheel; the tag before PEP 783 is the same one */
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp314", "cp314", "pyemscripten_2026_0_wasm32"));
	CHECK(!wm_filename_matches_wheel(&f, "cp314", "cp314", "pyemscripten_2027_0_wasm32"));
	CHECK(!wm_filename_matches_wheel(&f, "cp313", "cp313", "pyemscripten_2026_0_wasm32"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp314-cp314-pyodide_2026_0_wasm32.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "cp314", "cp314", "pyemscripten_2026_0_wasm32"));
	CHECK(!wm_filename_matches_wheel(&f, "cp314", "cp314", "pyemscripten_2025_0_wasm32"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-cp313-cp313-emscripten_4_0_9_wasm32.whl") == 0);
	CHECK(!wm_filename_matches_wheel(&f, "cp313", "cp313", "pyemscripten_2025_0_wasm32"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-py2.py3-none-any.whl") == 0);
	CHECK(wm_filename_matches_wheel(&f, "py3", "none", "any"));
	/* tags longer than any of ours are compared whole, never cut short */
	{
		char name[512], abi[200], plat[200];
		memset(abi, 'a', sizeof(abi) - 1);
		abi[sizeof(abi) - 1] = '\0';
		memset(plat, 'p', sizeof(plat) - 1);
		plat[sizeof(plat) - 1] = '\0';
		snprintf(name, sizeof(name), "x-1.0-cp311-%s-%s.whl", abi, plat);
		CHECK(wm_filename_parse(&f, &a, name) == 0 && f.kind == WM_FILE_WHEEL);
		CHECK(wm_filename_matches_wheel(&f, "cp311", abi, plat));
		abi[150] = 'b';
		CHECK(!wm_filename_matches_wheel(&f, "cp311", abi, plat));
		abi[150] = 'a';
		plat[150] = 'q';
		CHECK(!wm_filename_matches_wheel(&f, "cp311", abi, plat));
	}
	/* sdists, legacy names with dashes included */
	CHECK(wm_filename_parse(&f, &a, "llm-rs-0.2.0.tar.gz") == 0);
	CHECK(f.kind == WM_FILE_SDIST);
	CHECK_STR(f.name, "llm-rs");
	CHECK_STR(f.version, "0.2.0");
	CHECK(wm_filename_parse(&f, &a, "x-1.0.zip") == 0 && f.kind == WM_FILE_SDIST);
	CHECK(wm_filename_parse(&f, &a, "x-1.0-py3.whl") == 0 && f.kind == WM_FILE_OTHER);
	CHECK(wm_filename_parse(&f, &a, "a-b-c-d-e-f-g-h.whl") == 0 && f.kind == WM_FILE_OTHER);
	/* PEP 825 variant wheels: a label after the platform tag, a build tag only when the third part starts with a digit */
	CHECK(wm_filename_parse(&f, &a, "llm_rs-0.2.15-cp38-abi3-manylinux_2_28_x86_64-cu124.whl") == 0);
	CHECK(f.kind == WM_FILE_WHEEL && f.build == NULL);
	CHECK_STR(f.variant, "cu124");
	CHECK_STR(f.python, "cp38");
	CHECK_STR(f.platform, "manylinux_2_28_x86_64");
	CHECK(wm_filename_matches_wheel(&f, "cp38", "abi3", "manylinux_2_28_x86_64"));
	CHECK(wm_filename_parse(&f, &a, "x-1.0-2-cp38-abi3-win_amd64-null.whl") == 0);
	CHECK(f.kind == WM_FILE_WHEEL);
	CHECK_STR(f.build, "2");
	CHECK_STR(f.variant, "null");
	CHECK_STR(f.abi, "abi3");
	CHECK(wm_filename_parse(&f, &a, "x-1.0-2-cp38-abi3-win_amd64.whl") == 0);
	CHECK(f.variant == NULL);
	CHECK_STR(f.build, "2");
	/* the variant index's file of a release */
	CHECK(wm_filename_parse(&f, &a, "llm_rs-0.2.15-variants.json") == 0);
	CHECK(f.kind == WM_FILE_VARIANTS_JSON);
	CHECK_STR(f.name, "llm_rs");
	CHECK_STR(f.version, "0.2.15");
	CHECK(wm_filename_parse(&f, &a, "variants.json") == 0 && f.kind == WM_FILE_OTHER);
	CHECK_STR(wm_filename_variant_wheel(&a, "llm-rs", "0.2.15", "cp38", "abi3", "win_amd64", "cu124"),
		"llm_rs-0.2.15-cp38-abi3-win_amd64-cu124.whl");
	CHECK_STR(wm_filename_variants_json(&a, "LLM.rs", "0.2.15"), "llm_rs-0.2.15-variants.json");
	CHECK(wm_filename_parse(&f, &a, "x-1.0.exe") == 0 && f.kind == WM_FILE_OTHER);
	wm_arena_release(&a);
}

static void test_html(void)
{
	static const char page[] =
		"<!DOCTYPE html><html><head><meta name=\"pypi:repository-version\" content=\"1.0\"></head><body>\n"
		"<!-- <a href=\"x-0.1.tar.gz\">x-0.1.tar.gz</a> -->\n"
		"<A HREF='../files/x-1.0-cp312-cp312-win_amd64.whl#sha256=00'>x-1.0-cp312-cp312-win_amd64.whl</A><br>\n"
		"<a href=\"x-1.0.tar.gz\" data-yanked=\"\">  x-1.0.tar.gz </a>\n"
		"<a href=\"/f/x_y-2.0.tar.gz?dl=1\"></a>\n"
		"<a href=\"x-3.0.tar.gz\">x&#45;3.0.tar.gz&amp;</a>\n"
		"<a name=\"top\">no href</a>\n"
		"</body></html>";
	struct wm_arena a;
	struct wm_index_page p;
	const char *why = NULL;
	wm_arena_init(&a);
	CHECK(wm_simple_parse(&p, &a, "text/html; charset=utf-8", page, sizeof(page) - 1, &why) == 0);
	CHECK(p.n == 4);
	CHECK_STR(p.api, "html");
	if (p.n == 4) {
		CHECK_STR(p.files[0].filename, "x-1.0-cp312-cp312-win_amd64.whl");
		CHECK(!p.files[0].yanked && p.files[0].size == -1);
		CHECK_STR(p.files[1].filename, "x-1.0.tar.gz");
		CHECK(p.files[1].yanked);
		CHECK_STR(p.files[2].filename, "x_y-2.0.tar.gz");   /* no text: the href's last segment */
		CHECK_STR(p.files[3].filename, "x-3.0.tar.gz&");
	}
	/* a page of an empty project says it is one */
	CHECK(wm_simple_parse(&p, &a, "application/vnd.pypi.simple.v1+html",
		"<meta name=pypi:repository-version content=1.0><h1>x</h1>", 56, &why) == 0 && p.n == 0);
	CHECK(wm_simple_parse(&p, &a, "text/html", "<h1>Sign in</h1>", 16, &why) == WM_EINVALID);
	CHECK(why && strstr(why, "no links"));
	CHECK(wm_simple_parse(&p, &a, "text/plain", "x", 1, &why) == WM_EINVALID);
	CHECK_STR(why, "unexpected Content-Type 'text/plain': a simple index answers with PEP 691 JSON or PEP 503 HTML");
	CHECK(wm_simple_parse(&p, &a, NULL, "x", 1, &why) == WM_EINVALID);
	wm_arena_release(&a);
}

static void test_json(void)
{
	static const char page[] = "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": \"x\", \"files\": ["
		"{\"filename\": \"x-1.0.tar.gz\", \"size\": 1234, \"yanked\": false},"
		"{\"filename\": \"x-0.9.tar.gz\", \"yanked\": \"broken\"}]}";
	struct wm_arena a;
	struct wm_index_page p;
	const char *why = NULL;
	wm_arena_init(&a);
	CHECK(wm_simple_parse(&p, &a, "application/vnd.pypi.simple.v1+json", page, sizeof(page) - 1, &why) == 0);
	CHECK(p.n == 2);
	CHECK_STR(p.api, "json");
	if (p.n == 2) {
		CHECK(p.files[0].size == 1234 && !p.files[0].yanked);
		CHECK(p.files[1].size == -1 && p.files[1].yanked);
	}
	CHECK(wm_simple_parse(&p, &a, "application/vnd.pypi.simple.v1+json", "{\"files\": [", 11, &why) == WM_EINVALID);
	CHECK(why && strncmp(why, "malformed JSON at line 1, column ", 33) == 0);
	{
		static const char v2[] = "{\"meta\": {\"api-version\": \"2.0\"}, \"files\": []}";
		CHECK(wm_simple_parse(&p, &a, "application/vnd.pypi.simple.v1+json", v2, sizeof(v2) - 1, &why) == WM_EINVALID);
	}
	CHECK_STR(why, "unsupported PEP 691 api-version '2.0': this version of wheelmatrix reads 1.x");
	CHECK(wm_simple_parse(&p, &a, "application/vnd.pypi.simple.v1+json", "[1]", 3, &why) == WM_EINVALID);
	wm_arena_release(&a);
}

static void test_base64(void)
{
	/* RFC 4648's vectors */
	static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char buf[16];
	for (size_t i = 0; i < WM_ARRAY_SIZE(in); i++) {
		wm_report_base64(buf, (const unsigned char *)in[i], strlen(in[i]));
		CHECK_STR(buf, out[i]);
	}
}

int main(void)
{
	test_pep440();
	test_pep440_order();
	test_pep440_specs();
	test_names();
	test_html();
	test_json();
	test_base64();
	return harness_done();
}
