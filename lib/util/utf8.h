/* utf8.h — UTF-8 checked, measured, written and repaired, UTF-16 converted (utf8.c; wm_utf8_next is public). */
#ifndef WM_UTIL_UTF8_H
#define WM_UTIL_UTF8_H

#include <stdint.h>
#include "util/common.h"

#include "util/buf.h"

/* Checks UTF-8; on failure gives the 1-based line and column (in characters) of the bad byte. */
bool wm_utf8_valid(const char *s, size_t len, unsigned *line, unsigned *column, unsigned char *byte);
/*
 * The first raw NEL (U+0085), LINE SEPARATOR (U+2028) or PARAGRAPH SEPARATOR
 * (U+2029) in the UTF-8 text `s`, or 0 when it holds none; *line and *column
 * (1-based, the column in characters) say where, lines counted at LF as
 * editors and `git diff` count them.  YAML 1.1 readers (libyaml) break lines
 * there and show nothing of it: a reader of the file must refuse them.
 */
uint32_t wm_utf8_find_break(const char *s, size_t len, unsigned *line, unsigned *column);
/* The name of such a character: "LINE SEPARATOR (U+2028)". */
const char *wm_utf8_break_name(uint32_t cp);
/* Appends `s` with each byte that is not valid UTF-8 replaced by U+FFFD. */
void wm_utf8_sanitize(struct wm_buf *out, const char *s, size_t len);
/* Appends code point `cp` (at most U+10FFFF) as UTF-8. */
void wm_utf8_put(struct wm_buf *out, uint32_t cp);
/* Number of characters (not bytes) of a UTF-8 string. */
size_t wm_utf8_len(const char *s, size_t len);
/*
 * When `s` starts with a UTF-16 byte-order mark (FF FE or FE FF), appends the text after it as
 * UTF-8, each unpaired surrogate and a final odd byte as U+FFFD, and returns true; otherwise
 * appends nothing and returns false.
 */
bool wm_utf8_from_utf16(struct wm_buf *out, const char *s, size_t len);
/*
 * The offset of the first character of `s` (len bytes) that does not show as
 * itself: a byte that is not UTF-8, a control character (Unicode Cc: C0, DEL,
 * C1), a format character (Cf: the bidirectional controls, the zero-width
 * joiners and spaces, U+FEFF, the tags) or a line or paragraph separator
 * (U+2028, U+2029); len when there is none.  *cp is its code point (the byte
 * itself for one that is not UTF-8) and *n its length in bytes.
 */
size_t wm_utf8_find_hidden(const char *s, size_t len, uint32_t *cp, size_t *n);

/* A byte that does not start a UTF-8 sequence, as wm_utf8_decode gives it: WM_UTF8_BAD | the byte. */
#define WM_UTF8_BAD 0x80000000u
/*
 * The character at `s` (at most `avail` bytes): its length, at least 1 when
 * avail > 0, and its code point in *cp; a byte that does not start a valid
 * sequence is a character of its own, of length 1.
 */
size_t wm_utf8_decode(const char *s, size_t avail, uint32_t *cp);
/*
 * Whether a terminal must not get the character `cp` (from wm_utf8_decode) as it is: a
 * control (C0, DEL, C1), a format character (Cf), U+2028, U+2029, or a byte that is not UTF-8.
 */
bool wm_utf8_is_control(uint32_t cp);

#endif
