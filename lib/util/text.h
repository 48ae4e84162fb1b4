/* text.h — hexadecimal digits, UTF-8, globs and did-you-mean suggestions (text.c). */
#ifndef WM_UTIL_TEXT_H
#define WM_UTIL_TEXT_H

#include "util/common.h"
#include "util/buf.h"
/* The value of a hexadecimal digit, or -1. */
int wm_text_hex_digit(char c);
/* Checks UTF-8; on failure gives the 1-based line and column (in characters) of the bad byte. */
bool wm_utf8_valid(const char *s, size_t len, unsigned *line, unsigned *column, unsigned char *byte);
/* Appends `s` with each byte that is not valid UTF-8 replaced by U+FFFD. */
void wm_utf8_sanitize(struct wm_buf *out, const char *s, size_t len);
/* Number of characters (not bytes) of a UTF-8 string. */
size_t wm_utf8_len(const char *s, size_t len);
/* Shell-style glob (`*`, `?`, `[...]`) over a whole string. */
bool wm_text_glob_match(const char *pattern, const char *s);
bool wm_text_is_glob(const char *s);

#endif
