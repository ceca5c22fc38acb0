#include "sha256.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_X86 1
#endif

static const uint32_t k[64] = {
    0x428a2f98,
    0x71374491,
    0xb5c0fbcf,
    0xe9b5dba5,
    0x3956c25b,
    0x59f111f1,
    0x923f82a4,
    0xab1c5ed5,
    0xd807aa98,
    0x12835b01,
    0x243185be,
    0x550c7dc3,
    0x72be5d74,
    0x80deb1fe,
    0x9bdc06a7,
    0xc19bf174,
    0xe49b69c1,
    0xefbe4786,
    0x0fc19dc6,
    0x240ca1cc,
    0x2de92c6f,
    0x4a7484aa,
    0x5cb0a9dc,
    0x76f988da,
    0x983e5152,
    0xa831c66d,
    0xb00327c8,
    0xbf597fc7,
    0xc6e00bf3,
    0xd5a79147,
    0x06ca6351,
    0x14292967,
    0x27b70a85,
    0x2e1b2138,
    0x4d2c6dfc,
    0x53380d13,
    0x650a7354,
    0x766a0abb,
    0x81c2c92e,
    0x92722c85,
    0xa2bfe8a1,
    0xa81a664b,
    0xc24b8b70,
    0xc76c51a3,
    0xd192e819,
    0xd6990624,
    0xf40e3585,
    0x106aa070,
    0x19a4c116,
    0x1e376c08,
    0x2748774c,
    0x34b0bcb5,
    0x391c0cb3,
    0x4ed8aa4a,
    0x5b9cca4f,
    0x682e6ff3,
    0x748f82ee,
    0x78a5636f,
    0x84c87814,
    0x8cc70208,
    0x90befffa,
    0xa4506ceb,
    0xbef9a3f7,
    0xc67178f2,
};

static uint32_t
ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void
compress(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a[8];
	size_t i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] =
		    w[i - 16] +
		    (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		        (w[i - 15] >> 3)) +
		    w[i - 7] +
		    (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(a, h, sizeof(a));
	for (i = 0; i < 64; i++) {
		uint32_t t1, t2;

		t1 = a[7] + (ror(a[4], 6) ^ ror(a[4], 11) ^ ror(a[4], 25)) +
		     ((a[4] & a[5]) ^ (~a[4] & a[6])) + k[i] + w[i];
		t2 = (ror(a[0], 2) ^ ror(a[0], 13) ^ ror(a[0], 22)) +
		     ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
		/* shift the working variables by one, without a memmove */
		a[7] = a[6];
		a[6] = a[5];
		a[5] = a[4];
		a[4] = a[3] + t1;
		a[3] = a[2];
		a[2] = a[1];
		a[1] = a[0];
		a[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += a[i];
}

#ifdef SHA256_X86
/* The x86 SHA extensions (SHA-NI): the same compression, 4 rounds an
 * instruction pair, over nblocks blocks; the state kept as ABEF / CDGH.
 * Checked against compress() by the FIPS vectors and by
 * tests/unit/test-sha256.c's comparison of both over many lengths. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
compress_ni(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
	const __m128i mask =
	    _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i st0, st1, tmp, m, w[4], abef, cdgh;
	size_t g;

	tmp = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
	st1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
	tmp = _mm_shuffle_epi32(tmp, 0xb1);    /* CDAB */
	st1 = _mm_shuffle_epi32(st1, 0x1b);    /* EFGH */
	st0 = _mm_alignr_epi8(tmp, st1, 8);    /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xf0); /* CDGH */
	for (; nblocks > 0; nblocks--, p += 64) {
		abef = st0;
		cdgh = st1;
		for (g = 0; g < 16; g++) {
			if (g < 4) {
				w[g] = _mm_shuffle_epi8(
				    _mm_loadu_si128((
				        const __m128i *)(const void *)(p +
				                                       16 * g)),
				    mask);
			} else {
				tmp = _mm_sha256msg1_epu32(w[g & 3],
				    w[(g - 3) & 3]);
				tmp = _mm_add_epi32(tmp,
				    _mm_alignr_epi8(w[(g - 1) & 3],
				        w[(g - 2) & 3], 4));
				w[g & 3] =
				    _mm_sha256msg2_epu32(tmp, w[(g - 1) & 3]);
			}
			m = _mm_add_epi32(w[g & 3],
			    _mm_loadu_si128(
			        (const __m128i *)(const void *)&k[4 * g]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, m);
			m = _mm_shuffle_epi32(m, 0x0e);
			st0 = _mm_sha256rnds2_epu32(st0, st1, m);
		}
		st0 = _mm_add_epi32(st0, abef);
		st1 = _mm_add_epi32(st1, cdgh);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1b);    /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xb1);    /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xf0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
	_mm_storeu_si128((__m128i *)(void *)&h[0], st0);
	_mm_storeu_si128((__m128i *)(void *)&h[4], st1);
}

/* 1: the CPU has the SHA extensions (and SSSE3, SSE4.1); 0: not;
 * -1: not asked yet. Valgrind's CPU has none: it runs compress(). */
static int have_ni = -1;

static bool
use_ni(void)
{
	unsigned a, b, c, d;
	int v = __atomic_load_n(&have_ni, __ATOMIC_RELAXED);

	if (v < 0) {
		v = 0;
		if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) &&
		    (c & bit_SSE4_1) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA))
			v = 1;
		__atomic_store_n(&have_ni, v, __ATOMIC_RELAXED);
	}
	return v == 1;
}
#endif

/* nblocks whole blocks at p. */
static void
compress_blocks(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
#ifdef SHA256_X86
	if (use_ni()) {
		compress_ni(h, p, nblocks);
		return;
	}
#endif
	for (; nblocks > 0; nblocks--, p += 64)
		compress(h, p);
}

void
sha256_portable(int on)
{
#ifdef SHA256_X86
	__atomic_store_n(&have_ni, on ? 0 : -1, __ATOMIC_RELAXED);
#else
	(void)on;
#endif
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memset(s, 0, sizeof(*s));
	memcpy(s->h, iv, sizeof(iv));
}

void
sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->nbytes += len;
	while (len > 0) {
		size_t n;

		if (s->nblock == 0 && len >= 64) { /* whole blocks in place */
			n = len / 64;
			compress_blocks(s->h, p, n);
			p += n * 64;
			len -= n * 64;
			continue;
		}
		n = 64 - s->nblock;
		if (n > len)
			n = len;
		memcpy(s->block + s->nblock, p, n);
		s->nblock += n;
		p += n;
		len -= n;
		if (s->nblock == 64) {
			compress_blocks(s->h, s->block, 1);
			s->nblock = 0;
		}
	}
}

void
sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN])
{
	uint64_t bits = s->nbytes * 8;
	size_t i;

	s->block[s->nblock++] = 0x80;
	if (s->nblock > 56) {
		memset(s->block + s->nblock, 0, 64 - s->nblock);
		compress_blocks(s->h, s->block, 1);
		s->nblock = 0;
	}
	memset(s->block + s->nblock, 0, 56 - s->nblock);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress_blocks(s->h, s->block, 1);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void
sha256_hex(const void *data, size_t len, char hex[SHA256_HEX])
{
	unsigned char md[SHA256_LEN];
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, md);
	sha256_to_hex(md, hex);
}

void
sha256_hmac(const void *key, size_t keylen, const void *msg, size_t len,
    unsigned char out[SHA256_LEN])
{
	unsigned char kb[64], pad[64], inner[SHA256_LEN];
	struct sha256 s;
	size_t i;

	/* RFC 2104: a key longer than the block is hashed first, a shorter
	 * one padded with zeros */
	memset(kb, 0, sizeof(kb));
	if (keylen > sizeof(kb)) {
		sha256_init(&s);
		sha256_update(&s, key, keylen);
		sha256_final(&s, kb);
	} else if (keylen > 0) {
		memcpy(kb, key, keylen);
	}
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = (unsigned char)(kb[i] ^ 0x36);
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, msg, len);
	sha256_final(&s, inner);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = (unsigned char)(kb[i] ^ 0x5c);
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, out);
	/* the key is a secret: leave no copy of it on the stack */
	explicit_bzero(kb, sizeof(kb));
	explicit_bzero(pad, sizeof(pad));
	explicit_bzero(&s, sizeof(s));
}

void
sha256_to_hex(const unsigned char md[SHA256_LEN], char hex[SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[SHA256_HEX - 1] = '\0';
}
