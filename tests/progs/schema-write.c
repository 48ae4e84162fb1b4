/* schema-write.c — writes the JSON Schema of wheelmatrix.yaml (lib/model/jsonschema.c) on stdout. */
#include <stdio.h>
#include "wheelmatrix.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/json.h"
#include "model/jsonschema.h"

/*
 * usage: schema-write
 *
 * `make schema` writes docs/wheelmatrix.schema.json with it, and tests/t-schema.sh checks that the
 * file is what it writes.  Exit 0, or 1 with the reason on stderr.
 */
int main(int argc, char **argv)
{
	struct wm_error err;
	struct wm_catalog *cat = NULL;
	struct wm_json *schema = NULL;
	struct wm_buf out = WM_BUF_INIT;
	int ret = 1;

	(void)argv;
	if (argc != 1) {
		fputs("usage: schema-write\n", stderr);
		return 2;
	}
	wm_error_init(&err);
	if (wm_catalog_load(&cat, &err) < 0 || wm_jsonschema_build(&schema, cat, &err) < 0 ||
			wm_json_append(&out, schema, WM_JSON_INDENT) < 0) {
		for (size_t i = 0; i < err.ndiags; i++)
			fprintf(stderr, "schema-write: %s\n", err.diags[i].message);
		if (!err.ndiags)
			fputs("schema-write: out of memory\n", stderr);
		goto out;
	}
	wm_buf_puts(&out, "\n");
	if (out.oom) {
		fputs("schema-write: out of memory\n", stderr);
		goto out;
	}
	ret = fwrite(out.ptr, 1, out.len, stdout) == out.len && fflush(stdout) == 0 ? 0 : 1;
out:
	wm_buf_release(&out);
	wm_json_free(schema);
	wm_catalog_free(cat);
	wm_error_release(&err);
	return ret;
}
