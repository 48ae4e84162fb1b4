/* test_json.c — unit tests of the wrapper over Jansson (formats/json.c): building, reading, parsing, writing. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "formats/json.h"

static char *text_of(const struct wm_json *v, unsigned flags)
{
	struct wm_buf b = WM_BUF_INIT;
	if (wm_json_append(&b, v, flags) < 0) {
		wm_buf_release(&b);
		return NULL;
	}
	return wm_buf_detach(&b);
}

static void test_build(void)
{
	struct wm_json *o = wm_json_object(), *a = wm_json_array();
	char *t;

	CHECK(o && a);
	/* keys stay in insertion order, not sorted */
	CHECK(wm_json_set(o, "z", wm_json_int(-3)) == 0);
	CHECK(wm_json_set(o, "a", wm_json_bool(true)) == 0);
	CHECK(wm_json_set(o, "m", wm_json_string(NULL)) == 0);
	CHECK(wm_json_push(a, wm_json_string("x\"y")) == 0);
	CHECK(wm_json_push(a, wm_json_string_trusted("caf\xc3\xa9", 5)) == 0);
	CHECK(wm_json_set(o, "list", a) == 0);
	/* a NULL value (a failed allocation) is refused, so calls can be chained */
	CHECK(wm_json_set(o, "bad", NULL) == WM_ENOMEM);
	CHECK(wm_json_push(a, NULL) == WM_ENOMEM);
	t = text_of(o, WM_JSON_COMPACT);
	CHECK_STR(t, "{\"z\":-3,\"a\":true,\"m\":null,\"list\":[\"x\\\"y\",\"caf\xc3\xa9\"]}");
	free(t);
	t = text_of(o, WM_JSON_COMPACT | WM_JSON_ASCII);
	CHECK_STR(t, "{\"z\":-3,\"a\":true,\"m\":null,\"list\":[\"x\\\"y\",\"caf\\u00E9\"]}");
	free(t);
	t = text_of(o, WM_JSON_INDENT);
	CHECK(t && strstr(t, "{\n  \"z\": -3,\n  \"a\": true,") == t);
	free(t);
	wm_json_free(o);
	wm_json_free(NULL);
}

static void test_strings(void)
{
	/* bytes that are not UTF-8 (a file name from an index) become U+FFFD */
	struct wm_json *s = wm_json_string("a\xff" "b");
	char *t = text_of(s, WM_JSON_COMPACT | WM_JSON_ASCII);
	CHECK_STR(t, "\"a\\uFFFDb\"");
	CHECK_STR(wm_json_str(s), "a\xef\xbf\xbd" "b");
	free(t);
	/* a string changed in place */
	CHECK(wm_json_string_set(s, "new", 3) == 0);
	CHECK_STR(wm_json_str(s), "new");
	wm_json_free(s);
	/* any value may be written, not only a document */
	s = wm_json_int(42);
	t = text_of(s, WM_JSON_COMPACT);
	CHECK_STR(t, "42");
	free(t);
	wm_json_free(s);
}

static void test_write_size(void)
{
	struct wm_json *s = wm_json_string("hello");
	char buf[4];
	/* too small: the length it needs, and nothing past the buffer */
	memset(buf, 'x', sizeof(buf));
	CHECK(wm_json_write(s, buf, 2, WM_JSON_COMPACT) == 7);
	CHECK(buf[2] == 'x' && buf[3] == 'x');
	wm_json_free(s);
}

static void test_parse(void)
{
	static const char page[] = "{\"meta\": {\"api-version\": \"1.1\"}, \"files\": [{\"filename\": \"a.whl\", "
		"\"size\": 12, \"yanked\": \"bad\"}, {\"filename\": \"b.tar.gz\", \"yanked\": true}]}";
	struct wm_json_error e;
	struct wm_json *v = NULL, *files, *value;

	CHECK(wm_json_parse(&v, page, strlen(page), &e) == 0 && v);
	CHECK(wm_json_is_object(v) && !wm_json_is_array(v));
	CHECK_STR(wm_json_str(wm_json_get(wm_json_get(v, "meta"), "api-version")), "1.1");
	files = wm_json_get(v, "files");
	CHECK(wm_json_is_array(files) && wm_json_size(files) == 2);
	CHECK(wm_json_is_int(wm_json_get(wm_json_at(files, 0), "size")));
	CHECK(wm_json_int_value(wm_json_get(wm_json_at(files, 0), "size")) == 12);
	CHECK(wm_json_is_string(wm_json_get(wm_json_at(files, 0), "yanked")));
	CHECK(wm_json_is_true(wm_json_get(wm_json_at(files, 1), "yanked")));
	CHECK(wm_json_is_bool(wm_json_get(wm_json_at(files, 1), "yanked")));
	/* NULL and values of another type answer NULL, false or 0 */
	CHECK(wm_json_get(files, "x") == NULL && wm_json_at(v, 0) == NULL && wm_json_str(files) == NULL);
	CHECK(wm_json_get(NULL, "x") == NULL && wm_json_size(NULL) == 0 && !wm_json_is_null(NULL));
	CHECK(wm_json_int_value(wm_json_get(v, "nothing")) == 0);
	/* members in order */
	CHECK_STR(wm_json_key_at(v, 0, &value), "meta");
	CHECK(wm_json_is_object(value));
	CHECK_STR(wm_json_key_at(v, 1, &value), "files");
	CHECK(value == files);
	CHECK(wm_json_key_at(v, 2, &value) == NULL && value == NULL);
	CHECK(wm_json_key_at(files, 0, &value) == NULL);
	wm_json_free(v);

	/* a duplicate key and malformed text are errors with a position */
	CHECK(wm_json_parse(&v, "{\"a\": 1,\n \"a\": 2}", 17, &e) == WM_EINVALID && v == NULL);
	CHECK(e.line == 2 && strstr(e.text, "duplicate") != NULL);
	CHECK(wm_json_parse(&v, "[1, 2", 5, &e) == WM_EINVALID && v == NULL);
	CHECK(e.line == 1 && e.text[0] != '\0');
}

int main(void)
{
	test_build();
	test_strings();
	test_write_size();
	test_parse();
	return harness_done();
}
