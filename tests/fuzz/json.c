/* json.c — libFuzzer target: formats/json.c's parse, held to its memory budget, against Jansson's own unbounded parse. */
#include <jansson.h>
#include "fuzz.h"
#include "formats/json.h"

/*
 * Input: any text, read as an index's JSON answer.
 *
 * Jansson parses it a second time, unbounded, with an allocator that counts
 * what it allocates as formats/json.c reckons it (each block and 16 bytes).
 *
 * Properties:
 *   1. wm_json_cost is a bound from above: Jansson never allocates more to
 *      read the text, whether it reads it all or stops at an error;
 *   2. wm_json_parse_within returns 0 or WM_EINVALID, never WM_ENOMEM (the
 *      fuzzer's memory is not short), and refuses for its cost exactly the
 *      texts whose reckoned cost passes the limit, before Jansson reads them;
 *   3. what it parses, Jansson parses, to equal trees (json_equal);
 *   4. what it calls malformed, Jansson refuses too, at the same line and
 *      column.
 *
 * The limit is the default's factor, 12 times the text, and 1 KiB instead of
 * 1 MiB, so that inputs of a few KiB reach it.
 */

static size_t counted;

static void *counting_malloc(size_t n)
{
	counted += n + 16;
	return malloc(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t limit = size * WM_JSON_PARSE_FACTOR + 1024, cost = wm_json_cost(text, size, SIZE_MAX);
	struct wm_json *ours = NULL;
	struct wm_json_error e;
	json_error_t jerr;
	json_t *theirs;
	int ret;

	ret = wm_json_parse_within(&ours, text, size, limit, &e);
	FUZZ_CHECK(ret == 0 || ret == WM_EINVALID, "wm_json_parse_within returned %d", ret);
	FUZZ_CHECK(!e.budget == (cost <= limit), "reckoned %zu of %zu, but %s", cost, limit,
		e.budget ? "refused for its cost" : "not refused");
	/* Jansson unbounded (wm_json_parse_within sets its allocator again each time) */
	counted = 0;
	json_set_alloc_funcs(counting_malloc, free);
	theirs = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	FUZZ_CHECK(counted <= cost, "Jansson allocated %zu bytes, more than the %zu reckoned", counted, cost);
	if (ret == 0)
		FUZZ_CHECK(theirs && json_equal(theirs, (json_t *)ours), "Jansson reads another tree, or none: %s", jerr.text);
	else if (!e.budget)
		FUZZ_CHECK(!theirs && e.line == jerr.line && e.column == jerr.column,
			"called malformed at %d:%d, Jansson says %s at %d:%d", e.line, e.column, theirs ? "nothing" : jerr.text,
			jerr.line, jerr.column);
	json_decref(theirs);
	wm_json_free(ours);
	return 0;
}
