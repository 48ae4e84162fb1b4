/* sha1.h — SHA-1 and git blob ids, so that generate needs no libgit2 (sha1.c). */
#ifndef WM_UTIL_SHA1_H
#define WM_UTIL_SHA1_H

#include "util/common.h"

void wm_sha1(unsigned char out[20], const void *data, size_t len);
/* The id git gives a blob of these bytes (`git hash-object`), 40 hex digits. */
void wm_sha1_git_blob(char out[41], const char *data, size_t len);

#endif
