/* test_refs.c — unit tests of the ref advertisement reader (index/refs.c): pkt-line framing, peeling, limits, hostile names. */
#include <stdlib.h>
#include "harness.h"
#include "util/arena.h"
#include "util/buf.h"
#include "index/refs.h"

#define CT "application/x-git-upload-pack-advertisement"
#define A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B40 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define C40 "cccccccccccccccccccccccccccccccccccccccc"
#define D40 "dddddddddddddddddddddddddddddddddddddddd"

/* Appends `s` (len bytes) as one pkt-line, its length written as git writes it. */
static void pkt(struct wm_buf *b, const char *s, size_t len)
{
	wm_buf_printf(b, "%04zx", len + 4);
	wm_buf_add(b, s, len);
}

static void pkts(struct wm_buf *b, const char *s)
{
	pkt(b, s, strlen(s));
}

static void header(struct wm_buf *b)
{
	pkts(b, "# service=git-upload-pack\n");
	wm_buf_puts(b, "0000");
}

struct result {
	int ret;
	struct wm_refs refs;
	const char *why;
};

static struct result parse_ct(struct wm_arena *a, const char *ct, const struct wm_buf *b, size_t max)
{
	struct result r;
	r.ret = wm_refs_parse(&r.refs, a, ct, b->ptr ? b->ptr : "", b->len, max, &r.why);
	return r;
}

static struct result parse(struct wm_arena *a, const struct wm_buf *b)
{
	return parse_ct(a, CT, b, 0);
}

/* A repository as git http-backend advertises it: a branch, an annotated tag and its peeled line, a lightweight tag. */
static void test_good(void)
{
	struct wm_arena a;
	struct wm_buf b = WM_BUF_INIT;
	static const char first[] = A40 " HEAD\0multi_ack thin-pack side-band symref=HEAD:refs/heads/main\n";
	struct result r;

	wm_arena_init(&a);
	header(&b);
	pkt(&b, first, sizeof(first) - 1);
	pkts(&b, A40 " refs/heads/main\n");
	pkts(&b, B40 " refs/tags/v1.0.0\n");
	pkts(&b, A40 " refs/tags/v1.0.0^{}\n");
	pkts(&b, C40 " refs/tags/v1.1.0\n");
	/* a peeled line for a ref that is not a tag peels nothing of ours */
	pkts(&b, D40 " refs/pull/1/head");
	wm_buf_puts(&b, "0000");
	r = parse(&a, &b);
	CHECK(r.ret == 0);
	CHECK_STR(r.why, NULL);
	CHECK(r.refs.nrefs == 5);
	CHECK(r.refs.ntags == 2 && r.refs.nskipped == 0);
	if (r.refs.ntags == 2) {
		CHECK_STR(r.refs.tags[0].name, "v1.0.0");
		CHECK_STR(r.refs.tags[0].object, B40);
		CHECK_STR(r.refs.tags[0].commit, A40);
		CHECK(r.refs.tags[0].annotated);
		CHECK_STR(r.refs.tags[1].name, "v1.1.0");
		CHECK_STR(r.refs.tags[1].object, C40);
		CHECK_STR(r.refs.tags[1].commit, C40);
		CHECK(!r.refs.tags[1].annotated);
	}
	/* the Content-Type with a parameter, and in another case */
	r = parse_ct(&a, "Application/X-Git-Upload-Pack-Advertisement; charset=binary", &b, 0);
	CHECK(r.ret == 0 && r.refs.ntags == 2);
	/* the cap: exactly max refs pass, one fewer is refused */
	r = parse_ct(&a, CT, &b, 5);
	CHECK(r.ret == 0);
	r = parse_ct(&a, CT, &b, 4);
	CHECK(r.ret == WM_EINVALID && r.refs.ntags == 0);
	CHECK_STR(r.why, "more than 4 refs: the most read from one repository");
	wm_buf_release(&b);
	wm_arena_release(&a);
}

static void test_empty_and_v1(void)
{
	struct wm_arena a;
	struct wm_buf b = WM_BUF_INIT;
	static const char caps[] = "0000000000000000000000000000000000000000 capabilities^{}\0side-band\n";
	struct result r;

	wm_arena_init(&a);
	header(&b);
	pkt(&b, caps, sizeof(caps) - 1);
	wm_buf_puts(&b, "0000");
	r = parse(&a, &b);
	CHECK(r.ret == 0 && r.refs.nrefs == 0 && r.refs.ntags == 0);
	wm_buf_clear(&b);
	header(&b);
	pkts(&b, "version 1\n");
	pkt(&b, A40 " refs/tags/v2\0agent=git/2\n", 40 + 26);
	wm_buf_puts(&b, "0000");
	r = parse(&a, &b);
	CHECK(r.ret == 0 && r.refs.ntags == 1 && r.refs.nrefs == 1);
	wm_buf_release(&b);
	wm_arena_release(&a);
}

/* Each answer refused, with the reason a person reads. */
static void test_refused(void)
{
	static const struct { const char *ct, *body; size_t len; const char *why; } cases[] = {
#define CASE(ct, body, why) { ct, body, sizeof(body) - 1, why }
		CASE(NULL, "", "not git's smart-HTTP protocol: the answer has no Content-Type, not " CT),
		CASE("text/plain; charset=utf-8", A40 "\trefs/tags/v1\n",
			"not git's smart-HTTP protocol: the Content-Type is 'text/plain; charset=utf-8', not " CT
			" (a dumb HTTP server, or not a git repository)"),
		CASE("text/html\x1b[2J", "", "not git's smart-HTTP protocol: the Content-Type is 'text/html<U+001B>[2J', not "
			CT " (a dumb HTTP server, or not a git repository)"),
		CASE(CT, "", "the advertisement ends before its final flush-pkt (truncated)"),
		CASE(CT, "00", "the advertisement ends inside a pkt-line's length (truncated)"),
		CASE(CT, "001e# service=git-receive-pack\n0000",
			"the advertisement does not start with '# service=git-upload-pack': not git's smart-HTTP protocol"),
		CASE(CT, "0000", "the advertisement does not start with '# service=git-upload-pack': not git's smart-HTTP protocol"),
		CASE(CT, "zz1e# service=git-upload-pack\n0000",
			"the pkt-line at byte 0 has the length 'zz1e', not four hex digits"),
		CASE(CT, "001e# service=git-upload-pack\n", "the advertisement ends before its final flush-pkt (truncated)"),
		CASE(CT, "001e# service=git-upload-pack\n001e# service=git-upload-pack\n",
			"no flush-pkt after '# service=git-upload-pack'"),
		CASE(CT, "001e# service=git-upload-pack\n00000001",
			"the pkt-line at byte 34 is a delimiter (protocol v2), which a protocol v0 advertisement has none of"),
		CASE(CT, "001e# service=git-upload-pack\n00000003",
			"the pkt-line at byte 34 is a pkt of length 3, which a protocol v0 advertisement has none of"),
		CASE(CT, "001e# service=git-upload-pack\n0000fff1",
			"the pkt-line at byte 34 is 65521 bytes long: git sends at most 65520"),
		CASE(CT, "001e# service=git-upload-pack\n00000040" A40 " refs/tags/v1",
			"the advertisement ends inside the pkt-line at byte 34 (truncated: 57 of its 64 bytes)"),
		CASE(CT, "001e# service=git-upload-pack\n0000003a" A40 " refs/tags/v1\n",
			"the advertisement ends before its final flush-pkt (truncated)"),
		CASE(CT, "001e# service=git-upload-pack\n0000003a" A40 " refs/tags/v1\n0000PADDING",
			"7 bytes after the advertisement's final flush-pkt"),
		CASE(CT, "001e# service=git-upload-pack\n0000003a" A40 "\trefs/tags/v1\n0000",
			"a ref line is not an object name, a space and a ref name: '" A40 "<U+0009>refs/tags/v1'"),
		CASE(CT, "001e# service=git-upload-pack\n0000003a" "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA refs/tags/v1\n0000",
			"the object name 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA refs/tags/v1' is not 40 lower-case hex digits "
			"(git's SHA-1)"),
		CASE(CT, "001e# service=git-upload-pack\n00000052" A40 "aaaaaaaaaaaaaaaaaaaaaaaa refs/tags/v1\n0000",
			"a ref line is not an object name, a space and a ref name: '" A40 "aaaaaaaaaaaaaaaaaaaaaaaa refs/tags/v1'"),
		CASE(CT, "001e# service=git-upload-pack\n0000003d" A40 " refs/tags/v1^{}\n0000",
			"the peeled line of 'refs/tags/v1^{}' does not follow its ref"),
		CASE(CT, "001e# service=git-upload-pack\n0000003d" A40 " refs/heads/main\n003d" A40 " refs/tags/v1^{}\n0000",
			"the peeled line of 'refs/tags/v1^{}' does not follow its ref"),
		CASE(CT, "001e# service=git-upload-pack\n0000003d" A40 " refs/heads/main\n003c" A40 " refs/tags/v1\0x\n0000",
			"a ref line after the first has capabilities (a NUL byte)"),
#undef CASE
	};
	struct wm_arena a;

	wm_arena_init(&a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wm_refs refs;
		const char *why = NULL;
		int ret = wm_refs_parse(&refs, &a, cases[i].ct, cases[i].body, cases[i].len, 0, &why);
		CHECK(ret == WM_EINVALID);
		CHECK_STR(why, cases[i].why);
		CHECK(refs.ntags == 0 && refs.tags == NULL);
	}
	wm_arena_release(&a);
}

/* The longest pkt-line git sends is read; its tag name, being over 255 bytes, is skipped. */
static void test_longest(void)
{
	struct wm_arena a;
	struct wm_buf b = WM_BUF_INIT, line = WM_BUF_INIT;
	struct result r;

	wm_arena_init(&a);
	header(&b);
	wm_buf_puts(&line, A40 " refs/tags/");
	while (line.len < WM_REFS_PKT_MAX - 4)
		wm_buf_putc(&line, 'v');
	pkt(&b, line.ptr, line.len);
	wm_buf_puts(&b, "0000");
	CHECK(strncmp(b.ptr + 34, "fff0", 4) == 0);
	r = parse(&a, &b);
	CHECK(r.ret == 0 && r.refs.ntags == 0 && r.refs.nskipped == 1);
	if (r.refs.nskipped == 1) {
		CHECK_STR(r.refs.skipped[0].why, "it is longer than 255 bytes");
		CHECK(strlen(r.refs.skipped[0].shown) == 83);
	}
	wm_buf_release(&line);
	wm_buf_release(&b);
	wm_arena_release(&a);
}

/* Tags git would refuse, or that hold what a terminal acts on: skipped, shown escaped, with git's rule. */
static void test_hostile_names(void)
{
	static const struct { const char *name, *shown, *why; } cases[] = {
		{ "v1..2", "v1..2", "it holds '..'" },
		{ "v1\x1b[31m", "v1<U+001B>[31m", "it holds a control character" },
		{ "v1\x7f", "v1<U+007F>", "it holds a control character" },
		{ "v1\xc2\x9b" "2J", "v1<U+009B>2J", "it holds a character that does not show as itself (a control, format "
			"or separator character)" },
		{ "v1\xe2\x80\xae" "2", "v1<U+202E>2", "it holds a character that does not show as itself (a control, "
			"format or separator character)" },
		{ "v1\xff", "v1<FF>", "it is not UTF-8" },
		{ ".hidden", ".hidden", "a component begins with '.'" },
		{ "a/.b", "a/.b", "a component begins with '.'" },
		{ "v1.lock", "v1.lock", "a component ends with '.lock'" },
		{ "v1 2", "v1 2", "it holds a space or one of ~ ^ : ? * [ \\" },
		{ "v1~2", "v1~2", "it holds a space or one of ~ ^ : ? * [ \\" },
		{ "v1:2", "v1:2", "it holds a space or one of ~ ^ : ? * [ \\" },
		{ "v1\\2", "v1\\2", "it holds a space or one of ~ ^ : ? * [ \\" },
		{ "v1@{2", "v1@{2", "it holds '@{'" },
		{ "a//b", "a//b", "it has an empty component ('//')" },
		{ "v1/", "v1/", "it begins or ends with '/'" },
		{ "v1.", "v1.", "it ends with '.'" },
	};
	struct wm_arena a;
	struct wm_buf b = WM_BUF_INIT;
	struct result r;

	wm_arena_init(&a);
	header(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wm_buf line = WM_BUF_INIT;
		wm_buf_printf(&line, "%s refs/tags/%s\n", B40, cases[i].name);
		pkt(&b, line.ptr, line.len);
		/* a peeled line after a skipped tag peels nothing */
		wm_buf_clear(&line);
		wm_buf_printf(&line, "%s refs/tags/%s^{}\n", A40, cases[i].name);
		pkt(&b, line.ptr, line.len);
		wm_buf_release(&line);
	}
	pkts(&b, C40 " refs/tags/v1.2.3-rc.1+build_5\n");
	wm_buf_puts(&b, "0000");
	r = parse(&a, &b);
	CHECK(r.ret == 0);
	CHECK_STR(r.why, NULL);
	CHECK(r.refs.ntags == 1 && r.refs.nskipped == sizeof(cases) / sizeof(cases[0]));
	if (r.refs.ntags == 1)
		CHECK_STR(r.refs.tags[0].name, "v1.2.3-rc.1+build_5");
	for (size_t i = 0; i < r.refs.nskipped && i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_STR(r.refs.skipped[i].shown, cases[i].shown);
		CHECK_STR(r.refs.skipped[i].why, cases[i].why);
	}
	/* whole names: '@' alone, and what the rules take */
	{
		const char *why = NULL;
		CHECK(wm_refs_name_ok("@", 1, &why) == 0);
		CHECK_STR(why, "it is '@'");
		CHECK(wm_refs_name_ok("refs/tags/v4.2.2", 16, &why) == 1);
		CHECK(wm_refs_name_ok("refs/tags/caf\xc3\xa9", 15, &why) == 1);
	}
	wm_buf_release(&b);
	wm_arena_release(&a);
}

/* Release tags as pin and outdated read them (wm_refs_release_read, wm_refs_release_cmp). */
static void test_release(void)
{
	struct wm_refs_release a, b;
	CHECK(wm_refs_release_read("v4", 4, &a) && a.n == 1 && a.part[0] == 4);
	CHECK(wm_refs_release_read("V1.2.3", 4, &b) && b.n == 3 && b.part[2] == 3);
	CHECK(wm_refs_release_read("1.2.3.4", 4, &a) && a.n == 4);
	CHECK(!wm_refs_release_read("1.2.3.4.5", 4, &a));   /* pin's tags have four numbers at most */
	CHECK(wm_refs_release_read("1.2.3.4.5.6", WM_REFS_RELEASE_PARTS, &a) && a.n == 6);
	CHECK(!wm_refs_release_read("1.2.3.4.5.6.7", WM_REFS_RELEASE_PARTS, &a));
	CHECK(!wm_refs_release_read("v1.2-rc1", 4, &a) && !wm_refs_release_read("v", 4, &a) && !wm_refs_release_read("1..2", 4, &a));
	CHECK(!wm_refs_release_read("release/v1", 4, &a));   /* a path is the caller's to cut */
	CHECK(!wm_refs_release_read("1234567890", 4, &a));   /* ten digits: not a release number */
	CHECK(wm_refs_release_read("v4", 4, &a) && wm_refs_release_read("v4.0.0", 4, &b) && wm_refs_release_cmp(&a, &b) < 0);
	CHECK(wm_refs_release_read("v4.10", 4, &a) && wm_refs_release_read("v4.9.9", 4, &b) && wm_refs_release_cmp(&a, &b) > 0);
	CHECK(wm_refs_release_read("2", 4, &a) && wm_refs_release_read("v2", 4, &b) && wm_refs_release_cmp(&a, &b) == 0);
}

int main(void)
{
	test_release();
	test_good();
	test_empty_and_v1();
	test_refused();
	test_longest();
	test_hostile_names();
	return harness_done();
}
