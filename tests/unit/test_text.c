/* test_text.c — unit tests of the library's helpers: suggestions, globs, URLs as shown, name grammars, UTF-8, YAML limits, catalog. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "util/name.h"
#include "util/text.h"
#include "util/utf8.h"
#include "formats/yaml.h"
#include "model/catalog.h"

static void test_suggest(void)
{
	static const char *const keys[] = { "versions", "abi3", "python", "platforms", "backends" };
	static const char *const ids[] = { "linux-x86_64", "linux-aarch64", "macos-arm64" };
	CHECK_STR(wm_text_suggest("pyhton", keys, 5), "python");       /* a transposition */
	CHECK_STR(wm_text_suggest("version", keys, 5), "versions");    /* a deletion */
	CHECK_STR(wm_text_suggest("backend", keys, 5), "backends");
	CHECK_STR(wm_text_suggest("xyz", keys, 5), NULL);              /* nothing close */
	CHECK_STR(wm_text_suggest("abi", keys, 5), "abi3");            /* one edit is allowed in any word... */
	CHECK_STR(wm_text_suggest("ab", keys, 5), NULL);               /* ...two only from six letters on */
	CHECK_STR(wm_text_suggest("pythn3", keys, 5), "python");
	/* case and separator differences count as typos even when the distance is large */
	CHECK_STR(wm_text_suggest("LINUX-X86-64", ids, 3), "linux-x86_64");
	CHECK_STR(wm_text_suggest("macos-arm", ids, 3), "macos-arm64");
}

static void test_glob(void)
{
	CHECK(wm_text_glob_match("macos-*", "macos-arm64"));
	CHECK(!wm_text_glob_match("macos-*", "linux-x86_64"));
	CHECK(wm_text_glob_match("linux-[ax]*", "linux-aarch64"));
	CHECK(wm_text_glob_match("linux-x?6_64", "linux-x86_64"));
	CHECK(!wm_text_glob_match("linux", "linux-x86_64"));           /* the whole string */
	CHECK(wm_text_is_glob("macos-*"));
	CHECK(wm_text_is_glob("linux-[ax]*"));
	CHECK(!wm_text_is_glob("linux-x86_64"));
}

static void test_feature(void)
{
	const char *why = NULL;
	CHECK(wm_name_feature("cublas", &why));
	CHECK(wm_name_feature("pyo3/extension-module", &why));
	CHECK(wm_name_feature("serde?/std", &why));               /* a weak dependency feature */
	CHECK(wm_name_feature("dep:cudarc", &why));
	CHECK(wm_name_feature("abi3-py38", &why));
	why = NULL;
	CHECK(!wm_name_feature("cublas; curl x | sh", &why));     /* never reaches a shell */
	CHECK(why && strstr(why, "a feature name is made of"));
	why = NULL;
	CHECK(!wm_name_feature("", &why));
	CHECK_STR(why, "a feature name cannot be empty");
	why = NULL;
	CHECK(!wm_name_feature("-cuda", &why));
	CHECK(why != NULL);
	why = NULL;
	CHECK(!wm_name_feature("dep:", &why));
	CHECK(why && strstr(why, "'dep:'"));
	why = NULL;
	CHECK(!wm_name_feature("/cuda", &why));
	CHECK(why && strstr(why, "before '/'"));
	why = NULL;
	CHECK(!wm_name_feature("candle/cu da", &why));
	CHECK(why && strstr(why, "after '/'"));
	CHECK_STR(wm_name_feature_leaf("candle-core/cuda"), "cuda");
	CHECK_STR(wm_name_feature_leaf("dep:cudarc"), "cudarc");
	CHECK_STR(wm_name_feature_leaf("metal"), "metal");
}

static void test_names(void)
{
	char buf[64];
	char id32[33], id33[34];
	CHECK(wm_name_distribution("llm-rs-cuda"));
	CHECK(wm_name_distribution("LLM.rs_cuda"));
	CHECK(wm_name_distribution("a"));
	CHECK(!wm_name_distribution(""));
	CHECK(!wm_name_distribution("-llm"));
	CHECK(!wm_name_distribution("llm-"));
	CHECK(!wm_name_distribution("llm rs"));
	CHECK(!wm_name_distribution("llm-rs[cuda]"));

	wm_name_normalize(buf, "Foo.Bar__baz");
	CHECK_STR(buf, "foo-bar-baz");
	wm_name_normalize(buf, "llm_rs-CUDA");
	CHECK_STR(buf, "llm-rs-cuda");
	wm_name_normalize(buf, "a-_.-b");
	CHECK_STR(buf, "a-b");

	memset(id32, 'a', 32);
	id32[32] = '\0';
	memset(id33, 'a', 33);
	id33[33] = '\0';
	CHECK(wm_name_backend_id("cuda"));
	CHECK(wm_name_backend_id("cuda_12"));
	CHECK(wm_name_backend_id(id32));
	CHECK(!wm_name_backend_id(id33));
	CHECK(!wm_name_backend_id("cuda-12"));                  /* '-' separates the parts of a job id */
	CHECK(!wm_name_backend_id("Cuda"));
	CHECK(!wm_name_backend_id("12cuda"));
	CHECK(!wm_name_backend_id(""));
}

static void test_utf8(void)
{
	unsigned line = 0, column = 0;
	unsigned char byte = 0;
	CHECK(wm_utf8_valid("h\xc3\xa9llo\n", 7, &line, &column, &byte));
	CHECK(!wm_utf8_valid("ab\n\xff", 4, &line, &column, &byte));
	CHECK(line == 2 && column == 1 && byte == 0xff);
	/* columns count characters: é is one */
	CHECK(!wm_utf8_valid("\xc3\xa9\xff", 3, &line, &column, &byte));
	CHECK(line == 1 && column == 2 && byte == 0xff);
	CHECK(!wm_utf8_valid("x\xc0\xaf", 3, &line, &column, &byte));   /* overlong '/' */
	CHECK(line == 1 && column == 2 && byte == 0xc0);
	CHECK(!wm_utf8_valid("\xed\xa0\x80", 3, &line, &column, &byte)); /* a surrogate */
	CHECK(!wm_utf8_valid("\xe2\x82", 2, &line, &column, &byte));     /* truncated */
	CHECK(wm_utf8_len("h\xc3\xa9llo", 6) == 5);
}

/* The UTF-8 of UTF-16 text (`len` bytes), or "(not UTF-16)". */
static const char *from_utf16(const char *s, size_t len)
{
	static char out[64];
	struct wm_buf b = WM_BUF_INIT;
	if (!wm_utf8_from_utf16(&b, s, len))
		snprintf(out, sizeof(out), "(not UTF-16)");
	else
		snprintf(out, sizeof(out), "%.*s", (int)b.len, b.ptr ? b.ptr : "");
	wm_buf_release(&b);
	return out;
}

static void test_utf16(void)
{
	/* "on: é€😀" in both byte orders: é and € one unit, 😀 (U+1F600) a surrogate pair */
	static const char le[] = "\xff\xfeo\0n\0:\0 \0\xe9\0\xac\x20\x3d\xd8\x00\xde";
	static const char be[] = "\xfe\xff\0o\0n\0:\0 \0\xe9\x20\xac\xd8\x3d\xde\x00";
	CHECK_STR(from_utf16(le, sizeof(le) - 1), "on: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	CHECK_STR(from_utf16(be, sizeof(be) - 1), "on: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* an unpaired surrogate, a lone low one and a final odd byte: each U+FFFD */
	CHECK_STR(from_utf16("\xff\xfe\x3d\xd8x\0\x00\xdc\x41", 9), "\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(from_utf16("\xff\xfe", 2), "");
	CHECK_STR(from_utf16("on: push", 8), "(not UTF-16)");
	CHECK_STR(from_utf16("\xef\xbb\xbfon", 5), "(not UTF-16)");   /* UTF-8's mark is not UTF-16's */
	CHECK_STR(from_utf16("\xff", 1), "(not UTF-16)");
}

static int parse(struct wm_doc *doc, struct wm_error *err, const char *text, uint64_t max_nodes)
{
	const struct wm_yaml_limits limits = { 1u << 20, 64, max_nodes, UINT64_MAX };
	return wm_yaml_parse(doc, "t.yaml", text, strlen(text), &limits, err);
}

static void test_yaml(void)
{
	struct wm_doc doc;
	struct wm_error err;
	char deep[300];
	int ret;

	wm_error_init(&err);
	ret = parse(&doc, &err, "a: 1\nb: \"3.10\"\nc: 3.10\n", 1000);
	CHECK(ret == 0 && doc.root && doc.root->type == WM_NODE_MAP && doc.root->n == 3);
	if (ret == 0 && doc.root && doc.root->n == 3) {
		/* scalars stay text: 3.10 is not 3.1 */
		CHECK_STR(doc.root->pairs[2].value->text, "3.10");
		CHECK(doc.root->pairs[1].value->style == WM_QUOTED);
		CHECK(doc.root->pairs[2].value->line == 3 && doc.root->pairs[2].value->column == 4);
	}
	wm_yaml_release(&doc);
	wm_error_release(&err);

	wm_error_init(&err);
	ret = parse(&doc, &err, "a: 1\nb: 2\na: 3\n", 1000);
	CHECK(ret == WM_EINVALID && err.code == WM_EINVALID && err.nerrors == 1);
	if (err.ndiags == 1) {
		CHECK_STR(err.diags[0].message, "duplicate key 'a' (first defined at line 1)");
		CHECK(err.diags[0].line == 3 && err.diags[0].column == 1 && err.diags[0].span == 1);
		CHECK_STR(err.diags[0].source, "a: 3");
		CHECK_STR(err.diags[0].file, "t.yaml");
	}
	wm_yaml_release(&doc);
	wm_error_release(&err);

	/* more than eight keys: the indexed path */
	wm_error_init(&err);
	ret = parse(&doc, &err, "k1: 1\nk2: 2\nk3: 3\nk4: 4\nk5: 5\nk6: 6\nk7: 7\nk8: 8\nk9: 9\nk3: x\n", 1000);
	CHECK(ret == WM_EINVALID && err.ndiags == 1);
	if (err.ndiags == 1)
		CHECK_STR(err.diags[0].message, "duplicate key 'k3' (first defined at line 3)");
	wm_yaml_release(&doc);
	wm_error_release(&err);

	/* an alias bomb fails on its weight, before anything is expanded */
	wm_error_init(&err);
	ret = parse(&doc, &err,
		"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
		"i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n", WM_MATRIX_MAX_NODES);
	CHECK(ret == WM_EINVALID && err.nerrors >= 1);
	if (err.ndiags >= 1) {
		CHECK(strstr(err.diags[0].message, "an alias bomb?") != NULL);
		CHECK(err.diags[0].line == 7);  /* g's aliases pass the limit of 8 million nodes */
	}
	wm_yaml_release(&doc);
	wm_error_release(&err);

	wm_error_init(&err);
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	deep[200] = '\0';
	ret = parse(&doc, &err, deep, 1000);
	CHECK(ret == WM_EINVALID && err.ndiags >= 1);
	if (err.ndiags >= 1)
		CHECK_STR(err.diags[0].message, "nesting deeper than 64 levels");
	wm_yaml_release(&doc);
	wm_error_release(&err);

	wm_error_init(&err);
	ret = parse(&doc, &err, "a: !!python/object x\n", 1000);
	CHECK(ret == WM_EINVALID && err.ndiags == 1);
	if (err.ndiags == 1)
		CHECK_STR(err.diags[0].message, "unsupported YAML tag 'tag:yaml.org,2002:python/object'");
	wm_yaml_release(&doc);
	wm_error_release(&err);

	wm_error_init(&err);
	ret = parse(&doc, &err, "a: 1\n---\nb: 2\n", 1000);
	CHECK(ret == WM_EINVALID && err.ndiags == 1);
	if (err.ndiags == 1)
		CHECK_STR(err.diags[0].message, "a second YAML document: the file must hold exactly one");
	wm_yaml_release(&doc);
	wm_error_release(&err);
}

/* The plain decimals other YAML readers take for another number, and what they take them for. */
static void test_yaml_numbers(void)
{
	static const struct {
		const char *value, *number;
	} cases[] = {
		{ "3.10", "3.1" }, { "12.0", "12" }, { "3.100", "3.1" }, { "03.1", "3.1" }, { "0.50", "0.5" },
		{ "3.9", NULL }, { "3.12", NULL }, { "0.5", NULL }, { "3.14t", NULL }, { "1.2.0", NULL },
		{ "\"3.10\"", NULL }, { "'12.0'", NULL }, { "!!str 3.10", NULL }, { "!!float 3.10", "3.1" },
		{ "3", NULL }, { "3.", NULL }, { ".5", NULL }, { "-3.10", NULL }, { "1e3", NULL }, { "[3.10]", NULL },
	};
	for (size_t i = 0; i < WM_ARRAY_SIZE(cases); i++) {
		struct wm_doc doc;
		struct wm_error err;
		char text[64], number[8] = "";
		bool misread = false;
		snprintf(text, sizeof(text), "v: %s\n", cases[i].value);
		wm_error_init(&err);
		if (parse(&doc, &err, text, 1000) == 0 && doc.root && doc.root->n == 1)
			misread = wm_yaml_misread_number(doc.root->pairs[0].value, number, sizeof(number));
		else
			CHECK(!"parses");
		CHECK(misread == (cases[i].number != NULL));
		if (cases[i].number && misread)
			CHECK_STR(number, cases[i].number);
		wm_yaml_release(&doc);
		wm_error_release(&err);
	}
	{
		/* too long for `out`: not written, and not reported */
		struct wm_doc doc;
		struct wm_error err;
		char number[4] = "";
		wm_error_init(&err);
		CHECK(parse(&doc, &err, "v: 1234.50\n", 1000) == 0);
		CHECK(doc.root && !wm_yaml_misread_number(doc.root->pairs[0].value, number, sizeof(number)) && !number[0]);
		wm_yaml_release(&doc);
		wm_error_release(&err);
	}
}

static void test_catalog(void)
{
	static const char *const ids[] = {
		"linux-x86_64", "linux-aarch64", "linux-armv7", "linux-i686", "linux-ppc64le", "linux-s390x",
		"linux-riscv64", "musllinux-x86_64", "musllinux-aarch64", "musllinux-i686", "musllinux-armv7",
		"musllinux-riscv64", "macos-x86_64",
		"macos-arm64", "macos-universal2",
		"windows-x86_64", "windows-arm64", "windows-x86", "pyodide-wasm32",
	};
	struct wm_catalog *cat = NULL;
	struct wm_error err;
	const struct wm_platform *p;
	const struct wm_toolkit *t;
	int ret;

	wm_error_init(&err);
	ret = wm_catalog_load(&cat, &err);
	CHECK(ret == 0 && cat && err.ndiags == 0);
	if (!cat) {
		wm_error_release(&err);
		return;
	}
	CHECK(wm_catalog_platform_count(cat) == WM_ARRAY_SIZE(ids));
	for (size_t i = 0; i < WM_ARRAY_SIZE(ids); i++) {
		p = wm_catalog_platform_at(cat, i);
		CHECK_STR(p ? p->id : NULL, ids[i]);
		CHECK(wm_catalog_platform(cat, ids[i]) == p);
	}
	CHECK(wm_catalog_platform_at(cat, WM_ARRAY_SIZE(ids)) == NULL);
	CHECK(wm_catalog_platform(cat, "linux") == NULL);         /* an alias is not an id */

	p = wm_catalog_platform(cat, "linux-x86_64");
	CHECK(p && p->os == WM_OS_LINUX && !p->cross);
	CHECK_STR(p ? p->platform_tag : NULL, "manylinux_2_28_x86_64");
	CHECK_STR(p ? p->runner : NULL, "ubuntu-24.04");
	p = wm_catalog_platform(cat, "linux-armv7");
	CHECK(p && p->cross);
	CHECK_STR(p ? p->platform_tag : NULL, "manylinux_2_28_armv7l");
	p = wm_catalog_platform(cat, "macos-arm64");
	CHECK(p && p->os == WM_OS_MACOS && p->manylinux == NULL && p->wheel_arch == NULL);
	CHECK_STR(p ? p->platform_tag : NULL, "macosx_11_0_arm64");
	p = wm_catalog_platform(cat, "linux-i686");  /* 2_17 with its alias, sorted as maturin writes them */
	CHECK_STR(p ? p->platform_tag : NULL, "manylinux2014_i686.manylinux_2_17_i686");
	p = wm_catalog_platform(cat, "macos-universal2");
	CHECK_STR(p ? p->platform_tag : NULL, "macosx_10_12_universal2.macosx_10_12_x86_64.macosx_11_0_arm64");
	p = wm_catalog_platform(cat, "linux-riscv64");
	CHECK(p && p->cross);
	CHECK_STR(p ? p->platform_tag : NULL, "manylinux_2_31_riscv64");
	p = wm_catalog_platform(cat, "windows-x86_64");
	CHECK(p && p->os == WM_OS_WINDOWS);
	CHECK_STR(p ? p->platform_tag : NULL, "win_amd64");
	/* PEP 783: the Pyodide release's platform version, its one CPython */
	p = wm_catalog_platform(cat, "pyodide-wasm32");
	CHECK(p && p->os == WM_OS_EMSCRIPTEN && p->cross && p->pyodide_minor == 14);
	CHECK_STR(p ? p->platform_tag : NULL, "pyemscripten_2026_0_wasm32");
	CHECK_STR(p ? p->target : NULL, "wasm32-unknown-emscripten");
	CHECK_STR(p ? p->pyodide_interpreter : NULL, "python3.14");
	CHECK_STR(wm_catalog_os_name(WM_OS_EMSCRIPTEN), "emscripten");
	CHECK_STR(wm_catalog_suggest_platform(cat, "pyodide"), "pyodide-wasm32");

	CHECK_STR(wm_catalog_suggest_platform(cat, "linux-amd64"), "linux-x86_64");  /* an alias */
	CHECK_STR(wm_catalog_suggest_platform(cat, "macos-arm"), "macos-arm64");
	CHECK_STR(wm_catalog_suggest_platform(cat, "solaris-sparc"), NULL);

	t = wm_catalog_toolkit(cat, "cuda");
	CHECK(t && t->installable && t->smoke_os == 1u << WM_OS_LINUX);
	CHECK_STR(t ? t->default_version : NULL, "12.4");
	CHECK(wm_catalog_toolkit(cat, "metal") != NULL);
	/* Metal imports everywhere it builds; ROCm nowhere; CUDA on Linux only (no nvcuda.dll stub) */
	t = wm_catalog_toolkit(cat, "metal");
	CHECK(t && t->smoke_os == (1u << WM_OS_COUNT) - 1);
	t = wm_catalog_toolkit(cat, "rocm");
	CHECK(t && t->smoke_os == 0);
	CHECK_STR(wm_catalog_suggest_toolkit(cat, "cdua"), "cuda");

	wm_catalog_free(cat);
	wm_error_release(&err);
}

static void test_templates(void)
{
	const struct wm_template *t = wm_template_get("platforms.yaml");
	CHECK(t && t->len == strlen(t->data) && strncmp(t->data, "# platforms.yaml", 16) == 0);
	CHECK(wm_template_get("toolkits.yaml") != NULL);
	CHECK(wm_template_get("embed.c") == NULL);
	CHECK(wm_template_get("nope.yaml") == NULL);
	for (size_t i = 1; i < wm_ntemplates; i++)
		CHECK(strcmp(wm_templates[i - 1].name, wm_templates[i].name) < 0);
}

/* wm_buf_shell_word: the word a shell reads back is the text, whatever it holds. */
static void test_shell_word(void)
{
	static const char *const words[] = { "plain.yaml", "", "it's", "a b", "$(id)", "`id`", "x;y|z&", "'",
		"line\nbreak", "tab\there", "-n", "*" };
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_shell_word(&b, "matrices/llm-rs.yaml", true);
	CHECK_STR(b.ptr, "matrices/llm-rs.yaml");           /* bare when nothing is special */
	wm_buf_clear(&b);
	wm_buf_shell_word(&b, "matrices/llm-rs.yaml", false);
	CHECK_STR(b.ptr, "'matrices/llm-rs.yaml'");
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++) {
		for (int bare = 0; bare < 2; bare++) {
			char out[256] = "";
			size_t n;
			FILE *f;
			wm_buf_clear(&b);
			wm_buf_puts(&b, "printf %s ");
			wm_buf_shell_word(&b, words[i], bare);
			f = popen(b.ptr, "r");
			n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
			out[n] = '\0';
			if (f)
				pclose(f);
			CHECK_STR(out, words[i]);
		}
	}
	wm_buf_release(&b);
}

/* Each character of `s` as its length, with 'c' after a control: "1c 2 3c". */
static void controls(char *out, const char *s)
{
	size_t len = strlen(s);
	*out = '\0';
	while (len) {
		bool control;
		size_t n = wm_utf8_next(s, len, &control);
		sprintf(out + strlen(out), "%s%zu%s", *out ? " " : "", n, control ? "c" : "");
		s += n;
		len -= n;
	}
}

static void test_utf8_controls(void)
{
	char got[256];
	controls(got, "a\x1b\x7f~");
	CHECK_STR(got, "1 1c 1c 1");
	controls(got, "\xc2\x80\xc2\x9b\xc2\x9d\xc2\x9f\xc2\xa0\xc3\xa9");  /* U+0080, CSI, OSC, U+009F; NBSP, e-acute */
	CHECK_STR(got, "2c 2c 2c 2c 2 2");
	controls(got, "\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa\xe2\x80\xae");
	CHECK_STR(got, "2c 3c 3c 3c 3c 3c 3c");  /* ALM, LRM, RLM, LS, PS, LRE, RLO */
	controls(got, "\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xaa\xf0\x9f\x98\x80");
	CHECK_STR(got, "3c 3c 3c 3 3c 4");  /* LRI, PDI, ZWJ (format characters); NNBSP; U+206A (Cf); an emoji */
	controls(got, "\xc2\xad\xef\xbb\xbf\xf3\xa0\x80\x81\xf0\x9d\x85\xb3\xc2\xa0");
	CHECK_STR(got, "2c 3c 4c 4c 2");  /* soft hyphen, BOM, LANGUAGE TAG, a musical format character; NBSP */
	controls(got, "\x9b\xc2\xe2\x80");  /* an 8-bit CSI, a cut sequence: byte by byte */
	CHECK_STR(got, "1c 1c 1c 1c");
}

/* The path grammar: where its first fault is, and what. */
static void test_path_text(void)
{
	struct wm_path_fault f;
	const char *why;
	uint32_t cp;
	size_t n;
	CHECK(wm_name_path_text("py dir/it's \"q\" %x% #1: \xc3\xa9/pyproject.toml", 36, &f));
	CHECK(!wm_name_path_text("a/${{ github.head_ref }}/b", 26, &f) && f.at == 2 && f.len == 3 && !f.hidden);
	CHECK(!wm_name_path_text("a$b", 3, &f) && f.at == 1 && f.len == 1 && !f.hidden);
	CHECK(!wm_name_path_text("ab$", 3, &f) && f.at == 2);
	CHECK(!wm_name_path_text("ab$$", 4, &f) && f.at == 2);
	CHECK(!wm_name_path_text("a\xe2\x80\x8c" "b$", 6, &f) && f.at == 1 && f.len == 3 && f.hidden && f.cp == 0x200c);
	CHECK(!wm_name_path_text("ab\0c", 4, &f) && f.at == 2 && f.hidden && f.cp == 0);  /* a NUL inside the value */
	CHECK(!wm_name_path_text("a\xf3\xa0\x80\x81", 5, &f) && f.at == 1 && f.len == 4 && f.cp == 0xe0001);
	CHECK(!wm_name_path_text("a\xff" "b", 3, &f) && f.at == 1 && f.len == 1 && f.hidden && f.cp == 0xff);
	CHECK(!wm_name_repo_path("a/$HOME/b", &why));
	CHECK(!wm_name_repo_path("a\xc2\xad" "b", &why));  /* a soft hyphen, Cf */
	CHECK(wm_name_repo_path("a\xc2\xae" "b", &why));   /* the registered sign beside it, So */
	CHECK(wm_utf8_find_hidden("abc", 3, &cp, &n) == 3 && n == 0);
	CHECK(wm_utf8_find_hidden("\xef\xbb\xbfx", 4, &cp, &n) == 0 && cp == 0xfeff && n == 3);
	CHECK(wm_utf8_find_hidden("x\xf0\x9d\x85\xb3", 5, &cp, &n) == 1 && cp == 0x1d173 && n == 4);
	CHECK(wm_utf8_find_hidden("x\xf0\x9d\x85\xb2", 5, &cp, &n) == 5);  /* U+1D172, Mc, next to the range */
}

/* `s` through wm_text_url (a URL) or wm_text_redact (a message), as a string to compare */
static const char *shown(const char *s, bool message)
{
	static char out[256];
	struct wm_buf b = WM_BUF_INIT;
	if (message)
		wm_text_redact(&b, s);
	else
		wm_text_url(&b, s, strlen(s));
	snprintf(out, sizeof(out), "%s", b.ptr ? b.ptr : "");
	wm_buf_release(&b);
	return out;
}
#define url_shown(s) shown((s), false)
#define redacted(s) shown((s), true)

static void test_url_shown(void)
{
	CHECK_STR(url_shown("https://pypi.org/simple/"), "https://pypi.org/simple/");
	CHECK_STR(url_shown("https://u:p@host/simple/"), "https://host/simple/");
	CHECK_STR(url_shown("https://u:p@host/simple/?token=T#frag"), "https://host/simple/?<redacted>");
	CHECK_STR(url_shown("https://host/simple/#frag"), "https://host/simple/");
	/* no scheme: "user:" is a user name, not a scheme */
	CHECK_STR(url_shown("user:token@host/simple/"), "host/simple/");
	CHECK_STR(url_shown("user@host/simple/"), "host/simple/");
	CHECK_STR(url_shown("user:/token@host/"), "host/");
	CHECK_STR(url_shown("http:user:token@host/"), "host/");
	CHECK_STR(url_shown("http:/user:token@host/"), "http:/host/");
	CHECK_STR(url_shown("HTTPS://u:p@host/"), "HTTPS://host/");
	/* ':' and '@' in the user name or password, escaped or not; a '/' as it is */
	CHECK_STR(url_shown("http://us@er:p:a@ss@host:8080/x/"), "http://host:8080/x/");
	CHECK_STR(url_shown("http://us%40er:p%3Aa%2Fss@host/x/"), "http://host/x/");
	CHECK_STR(url_shown("http://user:pa/ss@host/x/"), "http://host/x/");
	/* an '@' after a '?' or '#': a password's or the query's, nothing but the scheme is safe to show */
	CHECK_STR(url_shown("http://user:pa?ss@host/x/"), "http://<redacted>");
	CHECK_STR(url_shown("http://user:pa#ss@host/x/"), "http://<redacted>");
	CHECK_STR(url_shown("https://host/simple/?mail=a@b"), "https://<redacted>");
	CHECK_STR(url_shown(""), "");
	CHECK_STR(url_shown("@"), "");
	/* a library's message: each address with a user name or password, quoted or not */
	CHECK_STR(redacted("Unsupported proxy syntax in 'u:p w@proxy:1': Bad port"),
		"Unsupported proxy syntax in 'proxy:1': Bad port");
	CHECK_STR(redacted("Unsupported proxy scheme for \"ftp://u:p@proxy:1\""),
		"Unsupported proxy scheme for \"ftp://proxy:1\"");
	CHECK_STR(redacted("Could not resolve proxy: u:p@proxy, nor https://x/?t=1"),
		"Could not resolve proxy: proxy, nor https://x/?<redacted>");
	CHECK_STR(redacted("Couldn't use '/home/u@x/ca.pem': it isn't there"),
		"Couldn't use '/home/u@x/ca.pem': it isn't there");
	CHECK_STR(redacted("SSL certificate problem: self-signed certificate"),
		"SSL certificate problem: self-signed certificate");
}

int main(void)
{
	test_path_text();
	test_shell_word();
	test_url_shown();
	test_suggest();
	test_glob();
	test_feature();
	test_names();
	test_utf8();
	test_utf16();
	test_utf8_controls();
	test_yaml();
	test_yaml_numbers();
	test_catalog();
	test_templates();
	return harness_done();
}
