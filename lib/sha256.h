/* lib/sha256.h: SHA-256 (FIPS 180-4), for plan digests, and HMAC-SHA256
 * (RFC 2104), for the signatures of webhook notifications.
 *
 * Self-contained so that lib/ links nothing; checked against the FIPS
 * test vectors in tests/unit/test-sha256.c.
 */
#ifndef LIB_SHA256_H
#define LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX (SHA256_LEN * 2 + 1) /* lower-case hex plus NUL */

struct sha256 {
	uint32_t h[8];
	uint64_t nbytes;
	unsigned char block[64];
	size_t nblock;
};

/* The compression runs on the CPU's SHA extensions where it has them
 * (x86-64 SHA-NI, found with cpuid), else in portable C. For the tests:
 * sha256_portable(1) forces the portable C, (0) lets the CPU decide. */
void sha256_portable(int on);

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN]);
/* One-shot digest of data as lower-case hex into hex (SHA256_HEX bytes). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX]);
/* md as lower-case hex into hex (SHA256_HEX bytes). */
void sha256_to_hex(const unsigned char md[SHA256_LEN], char hex[SHA256_HEX]);
/* HMAC-SHA256 (RFC 2104) of msg under key into out; checked against the
 * RFC 4231 test vectors. Nothing of the key is left on the stack. */
void sha256_hmac(const void *key, size_t keylen, const void *msg, size_t len,
    unsigned char out[SHA256_LEN]);

#endif
