/* generate.c — renders every output of a matrix in memory, for `generate` to write and `check` to compare. */
#include <string.h>
#include "internal.h"

int wm_generate(struct wm_files *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const char *matrix_file, struct wm_error *err)
{
	struct wm_buf body = WM_BUF_INIT;
	int ret = 0;

	if (m->github.enabled) {
		if ((ret = wm_emit_github(&body, m, cat, err)) < 0)
			goto out;
		if (body.oom) {
			ret = WM_ENOMEM;
			wm_error_code(err, ret);
			goto out;
		}
		if ((ret = wm_files_add(out, m->github.path, matrix_file, body.ptr, body.len)) < 0) {
			wm_error_code(err, ret);
			goto out;
		}
	}
	if (m->gitlab.enabled)
		wm_error_add(err, WM_OK, WM_SEV_WARNING, m->file, NULL, 0, m->gitlab.loc.line, m->gitlab.loc.column, 0,
			"the GitLab CI writer is not built yet: '%s' is not written", m->gitlab.path);
out:
	wm_buf_release(&body);
	return ret;
}
