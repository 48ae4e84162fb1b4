/* show.h — text as a person is shown it: escaped, and a long line cut to a window (show.c; wm_show_next is public). */
#ifndef WM_UTIL_SHOW_H
#define WM_UTIL_SHOW_H

#include "util/common.h"
#include "util/buf.h"

/* Appends s[0..len) as shown (wm_show_next), keeping what `keep` (WM_SHOW_TAB, WM_SHOW_NEWLINE) says. */
void wm_show_add(struct wm_buf *b, const char *s, size_t len, unsigned keep);
/* The same for a string, every character a terminal would act on escaped. */
void wm_show_puts(struct wm_buf *b, const char *s);
/*
 * Appends the line of text[0..len) that holds byte `at` (where a character
 * starts, or the end of its line) as a diagnostic quotes it: shown with its
 * tabs kept, and when it is longer than WM_SHOW_WINDOW columns, cut to a
 * window of at most that many around `at`, with "..." where it is cut (all
 * of the line left of `at` when that is at most 100 columns, else the 60
 * columns before it).  In linear time in the window, whatever the line's
 * length.  *caret gets the column of `at` in what was appended (1-based;
 * one past its end when `at` ends the line), *underline the columns that
 * the `span` characters from `at` take there (at least 1).
 */
void wm_show_window(struct wm_buf *out, unsigned *caret, unsigned *underline, const char *text, size_t len,
	size_t at, unsigned span);

#endif
