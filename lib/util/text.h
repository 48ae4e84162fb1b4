/* text.h — did-you-mean suggestions (public: wm_text_suggest), globs, hexadecimal digits, URLs as shown (text.c). */
#ifndef WM_UTIL_TEXT_H
#define WM_UTIL_TEXT_H

#include "util/common.h"
#include "util/buf.h"

/* The value of a hexadecimal digit, or -1. */
int wm_text_hex_digit(char c);
/* Shell-style glob (`*`, `?`, `[...]`) over a whole string. */
bool wm_text_glob_match(const char *pattern, const char *s);
bool wm_text_is_glob(const char *s);
/*
 * Appends the URL `url` (its first `len` bytes) to `out` as a message may show
 * it: with nothing of a user name or password, whether or not it has a
 * scheme (everything up to its last '@' is left out), its query as
 * `?<redacted>`, no fragment.  When an '@' follows a '?' or '#', either could
 * belong to a password: only the scheme is shown, then `<redacted>`.  Every URL
 * the tool prints goes through here.
 */
void wm_text_url(struct wm_buf *out, const char *url, size_t len);
/*
 * Appends the text `s` (a library's message) to `out` with each URL or address
 * in it that may hold a user name and password written as wm_text_url writes
 * it: a word or a quoted string (which may hold spaces) with "://", or with an
 * '@' and not starting with '/' (a file's path).
 */
void wm_text_redact(struct wm_buf *out, const char *s);

#endif
