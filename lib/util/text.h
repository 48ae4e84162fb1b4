/* text.h — did-you-mean suggestions (public: wm_text_suggest), globs and hexadecimal digits (text.c). */
#ifndef WM_UTIL_TEXT_H
#define WM_UTIL_TEXT_H

#include "util/common.h"
#include "util/buf.h"

/* The value of a hexadecimal digit, or -1. */
int wm_text_hex_digit(char c);
/* Shell-style glob (`*`, `?`, `[...]`) over a whole string. */
bool wm_text_glob_match(const char *pattern, const char *s);
bool wm_text_is_glob(const char *s);

#endif
