/* report.h — a plan rendered as a table, Markdown, HTML or JSON (report.c). */
#ifndef WM_INDEX_REPORT_H
#define WM_INDEX_REPORT_H

#include "util/common.h"

/* Base64 of `len` bytes (report.c's CSP hashes) into `out` (4 * ((len + 2) / 3) + 1 bytes). */
void wm_report_base64(char *out, const unsigned char *data, size_t len);

#endif
