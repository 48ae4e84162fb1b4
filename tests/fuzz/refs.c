/* refs.c — libFuzzer target: a forge's ref advertisement read by index/refs.c. */
#include "fuzz.h"
#include "util/arena.h"
#include "index/refs.h"

/*
 * Input: CONTENT-TYPE \n BODY, a forge's answer to info/refs?service=git-upload-pack.
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour: the answer is read or refused
 *      with a reason, and the reason has no character a terminal acts on;
 *   2. every tag kept is a name git check-ref-format takes (wm_refs_name_ok
 *      of refs/tags/NAME), of at most 255 bytes, with two 40-digit
 *      lower-case object names, equal unless the tag is annotated;
 *   3. every refused name is shown without such a character, with a reason;
 *   4. the tags kept and refused are at most the refs counted, and those at
 *      most WM_REFS_MAX (the cap being 1,000 here, at most 1,000).
 */
static bool is_oid(const char *s)
{
	if (strlen(s) != 40)
		return false;
	for (int i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *nl = memchr(in, '\n', size);
	char *type = strndup(in, nl ? (size_t)(nl - in) : size);
	const char *body = nl ? nl + 1 : in + size, *why = NULL;
	size_t len = (size_t)(in + size - body);
	struct wm_arena a;
	struct wm_refs refs;
	int ret;

	if (!type)
		abort();
	wm_arena_init(&a);
	ret = wm_refs_parse(&refs, &a, type, body, len, 1000, &why);
	FUZZ_CHECK(ret == 0 || ret == WM_EINVALID, "wm_refs_parse returned %d", ret);
	if (ret < 0) {
		FUZZ_CHECK(why && *why, "an answer refused without a reason");
		fuzz_check_no_control("the reason", why, strlen(why));
		FUZZ_CHECK(refs.ntags == 0 && refs.nskipped == 0, "a refused answer with tags");
	}
	FUZZ_CHECK(refs.ntags + refs.nskipped <= refs.nrefs, "%zu tags and %zu refused of %zu refs", refs.ntags,
		refs.nskipped, refs.nrefs);
	FUZZ_CHECK(refs.nrefs <= 1001, "%zu refs read over a cap of 1000", refs.nrefs);
	for (size_t i = 0; i < refs.ntags; i++) {
		const struct wm_refs_tag *t = &refs.tags[i];
		char full[300];
		const char *rule = NULL;
		FUZZ_CHECK(strlen(t->name) <= 255, "a tag of %zu bytes", strlen(t->name));
		snprintf(full, sizeof(full), "refs/tags/%s", t->name);
		FUZZ_CHECK(wm_refs_name_ok(full, strlen(full), &rule), "tag '%s' kept, but %s", t->name, rule);
		fuzz_check_no_control("a tag's name", t->name, strlen(t->name));
		FUZZ_CHECK(is_oid(t->object) && is_oid(t->commit), "tag '%s' names '%s', '%s'", t->name, t->object,
			t->commit);
		FUZZ_CHECK(t->annotated || strcmp(t->object, t->commit) == 0, "lightweight tag '%s' peeled", t->name);
	}
	for (size_t i = 0; i < refs.nskipped; i++) {
		FUZZ_CHECK(refs.skipped[i].why && *refs.skipped[i].why, "a name refused without a reason");
		fuzz_check_no_control("a refused name", refs.skipped[i].shown, strlen(refs.skipped[i].shown));
	}
	wm_arena_release(&a);
	free(type);
	return 0;
}
