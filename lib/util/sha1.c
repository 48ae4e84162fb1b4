/*
 * sha1.c — SHA-1 (FIPS 180-4), for git blob ids in the `index` line of variant patches.
 *
 * libgit2's git_odb_hash gives the same ids, but only after git_libgit2_init(), whose
 * init-and-shutdown costs about 9 ms (measured: 1000 cycles of init, one git_odb_hash of 5
 * bytes and shutdown, 9.4 ms each, gcc -O2, Debian 12's libgit2 1.5).  `generate` needs an id
 * for every patch it writes, with or without a repository, and where no patch exists yet it
 * starts libgit2 for nothing else; so the ids are computed here, in microseconds.  They are
 * checked against git's own in tests/unit/test_diff.c and by `git apply` in the tests.
 */
#include <stdio.h>
#include <string.h>
#include "util/sha1.h"

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

struct sha1 {
	uint32_t h[5];
	uint64_t total;
	unsigned char buf[64];
	size_t nbuf;
};

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The rounds' functions; each round adds into e and turns b, and the next names the variables one further on. */
#define CH(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define PARITY(b, c, d) ((b) ^ (c) ^ (d))
#define MAJ(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))
#define ROUND(a, b, c, d, e, f, k, w) ((e) += ROTL(a, 5) + f(b, c, d) + (k) + (w), (b) = ROTL(b, 30))
#define FIVE(f, k, t) ( \
	ROUND(a, b, c, d, e, f, k, w[(t)]), ROUND(e, a, b, c, d, f, k, w[(t) + 1]), \
	ROUND(d, e, a, b, c, f, k, w[(t) + 2]), ROUND(c, d, e, a, b, f, k, w[(t) + 3]), \
	ROUND(b, c, d, e, a, f, k, w[(t) + 4]))

static void compress(uint32_t h[5], const unsigned char block[64])
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	int t;
	for (t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (; t < 80; t++)
		w[t] = ROTL(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (t = 0; t < 20; t += 5)
		FIVE(CH, 0x5a827999u, t);
	for (; t < 40; t += 5)
		FIVE(PARITY, 0x6ed9eba1u, t);
	for (; t < 60; t += 5)
		FIVE(MAJ, 0x8f1bbcdcu, t);
	for (; t < 80; t += 5)
		FIVE(PARITY, 0xca62c1d6u, t);
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

static void update(struct sha1 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;
	s->total += len;
	if (s->nbuf) {   /* the block begun before */
		n = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, n);
		s->nbuf += n, p += n, len -= n;
		if (s->nbuf < 64)
			return;
		compress(s->h, s->buf);
		s->nbuf = 0;
	}
	for (; len >= 64; p += 64, len -= 64)   /* whole blocks straight from the input */
		compress(s->h, p);
	memcpy(s->buf, p, len);
	s->nbuf = len;
}

static void final(struct sha1 *s, unsigned char out[20])
{
	uint64_t bits = s->total * 8;
	unsigned char pad = 0x80, zero = 0, len[8];
	update(s, &pad, 1);
	while (s->nbuf != 56)
		update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	update(s, len, 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

static void init(struct sha1 *s)
{
	static const uint32_t iv[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	memset(s, 0, sizeof(*s));
	memcpy(s->h, iv, sizeof(iv));
}

void wm_sha1(unsigned char out[20], const void *data, size_t len)
{
	struct sha1 s;
	init(&s);
	update(&s, data, len);
	final(&s, out);
}

void wm_sha1_git_blob(char out[41], const char *data, size_t len)
{
	struct sha1 s;
	unsigned char d[20];
	char head[32];
	int n = snprintf(head, sizeof(head), "blob %zu", len);
	init(&s);
	update(&s, head, (size_t)n + 1);  /* with its NUL */
	update(&s, data, len);
	final(&s, d);
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}
