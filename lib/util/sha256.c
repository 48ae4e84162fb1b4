/* sha256.c — SHA-256 (FIPS 180-4), for the digest that tells a stale generated file from an edited one. */
#include <string.h>
#include "util/sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
/* CH and MAJ of FIPS 180-4 §4.1.2, written with fewer operations */
#define CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/*
 * One round of §6.2.2 step 3.  Instead of moving the eight working variables
 * along at each round, the rounds name them in turn (a round's `h` is the next
 * round's `a`): the same sums, without the copies.
 */
#define ROUND(a, b, c, d, e, f, g, h, t, wt) do { \
		uint32_t t1_ = (h) + BSIG1(e) + CH(e, f, g) + K[t] + (wt); \
		(d) += t1_; \
		(h) = t1_ + BSIG0(a) + MAJ(a, b, c); \
	} while (0)
/* The message schedule W[t] for t >= 16, kept in the 16 words it needs. */
#define W(t) (w[(t) & 15] += SSIG1(w[((t) - 2) & 15]) + w[((t) - 7) & 15] + SSIG0(w[((t) - 15) & 15]))
#define ROUNDS8(t, WT) do { \
		ROUND(a, b, c, d, e, f, g, hh, (t) + 0, WT((t) + 0)); \
		ROUND(hh, a, b, c, d, e, f, g, (t) + 1, WT((t) + 1)); \
		ROUND(g, hh, a, b, c, d, e, f, (t) + 2, WT((t) + 2)); \
		ROUND(f, g, hh, a, b, c, d, e, (t) + 3, WT((t) + 3)); \
		ROUND(e, f, g, hh, a, b, c, d, (t) + 4, WT((t) + 4)); \
		ROUND(d, e, f, g, hh, a, b, c, (t) + 5, WT((t) + 5)); \
		ROUND(c, d, e, f, g, hh, a, b, (t) + 6, WT((t) + 6)); \
		ROUND(b, c, d, e, f, g, hh, a, (t) + 7, WT((t) + 7)); \
	} while (0)
#define W16(t) w[t]

/* One 64-byte block into the state (FIPS 180-4 §6.2.2). */
static void compress(uint32_t h[8], const unsigned char block[64])
{
	uint32_t w[16], a, b, c, d, e, f, g, hh;

	for (int t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	ROUNDS8(0, W16);
	ROUNDS8(8, W16);
	for (int t = 16; t < 64; t += 8)
		ROUNDS8(t, W);
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void wm_sha256_init(struct wm_sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, iv, sizeof(iv));
	s->total = 0;
	s->nbuf = 0;
}

void wm_sha256_update(struct wm_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->total += len;
	if (s->nbuf > 0) {
		size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		len -= take;
		if (s->nbuf < 64)
			return;
		compress(s->h, s->buf);
		s->nbuf = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(s->h, p);
	if (len > 0)
		memcpy(s->buf, p, len);
	s->nbuf = len;
}

void wm_sha256_final(struct wm_sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->total * 8;

	/* padding: 0x80, zeros up to 56 mod 64, then the message length in bits, big-endian */
	s->buf[s->nbuf++] = 0x80;
	if (s->nbuf > 56) {
		memset(s->buf + s->nbuf, 0, 64 - s->nbuf);
		compress(s->h, s->buf);
		s->nbuf = 0;
	}
	memset(s->buf + s->nbuf, 0, 56 - s->nbuf);
	store_be32(s->buf + 56, (uint32_t)(bits >> 32));
	store_be32(s->buf + 60, (uint32_t)bits);
	compress(s->h, s->buf);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
	memset(s, 0, sizeof(*s));
}

void wm_sha256_hex(char out[65], const unsigned char digest[32])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 0xf];
	}
	out[64] = '\0';
}
