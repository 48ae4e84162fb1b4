/* sha256.h — an incremental SHA-256 (sha256.c). */
#ifndef WM_UTIL_SHA256_H
#define WM_UTIL_SHA256_H

#include "util/common.h"

/* An incremental SHA-256 (FIPS 180-4); final leaves the state wiped, ready for init. */
struct wm_sha256 {
	uint32_t h[8];
	uint64_t total;          /* bytes hashed so far */
	unsigned char buf[64];   /* a partial block */
	size_t nbuf;
};

void wm_sha256_init(struct wm_sha256 *s);
void wm_sha256_update(struct wm_sha256 *s, const void *data, size_t len);
void wm_sha256_final(struct wm_sha256 *s, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void wm_sha256_hex(char out[65], const unsigned char digest[32]);

#endif
