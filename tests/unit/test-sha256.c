/* tests/unit/test-sha256.c: lib/sha256.c against the FIPS 180-4 / NIST test
 * vectors, on the CPU's SHA extensions where it has them and in portable
 * C, and both against each other over every length to 1,100 bytes fed
 * in uneven pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <string.h>

#include "../../lib/sha256.h"

static void
test_sha256__empty(void **state)
{
	char hex[SHA256_HEX];

	(void)state;
	sha256_hex("", 0, hex);
	assert_string_equal(hex,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void
test_sha256__abc(void **state)
{
	char hex[SHA256_HEX];

	(void)state;
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
test_sha256__two_blocks(void **state)
{
	const char *m =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX];

	(void)state;
	sha256_hex(m, strlen(m), hex);
	assert_string_equal(hex,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void
test_sha256__million_a_in_pieces(void **state)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char chunk[1001], md[SHA256_LEN];
	char hex[SHA256_HEX];
	struct sha256 s;
	unsigned i;

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&s);
	for (i = 0; i < 1000; i++)
		sha256_update(&s, chunk, i % 2 ? 999 : 1001);
	sha256_final(&s, md);
	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[SHA256_HEX - 1] = '\0';
	assert_string_equal(hex,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* hmac(key, msg) as hex */
static void
hmac_hex(const void *key, size_t klen, const void *msg, size_t mlen,
    char hex[SHA256_HEX])
{
	unsigned char md[SHA256_LEN];

	sha256_hmac(key, klen, msg, mlen, md);
	sha256_to_hex(md, hex);
}

/* RFC 4231, test cases 1-4: keys shorter than the block */
static void
test_sha256__hmac_rfc4231_short_keys(void **state)
{
	unsigned char k[25], m[50];
	char hex[SHA256_HEX];
	size_t i;

	(void)state;
	memset(k, 0x0b, 20);
	hmac_hex(k, 20, "Hi There", 8, hex);
	assert_string_equal(hex,
	    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex("Jefe", 4, "what do ya want for nothing?", 28, hex);
	assert_string_equal(hex,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20);
	memset(m, 0xdd, 50);
	hmac_hex(k, 20, m, 50, hex);
	assert_string_equal(hex,
	    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < 25; i++)
		k[i] = (unsigned char)(i + 1);
	memset(m, 0xcd, 50);
	hmac_hex(k, 25, m, 50, hex);
	assert_string_equal(hex,
	    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
}

/* RFC 4231, test cases 6 and 7: a 131-byte key is hashed first */
static void
test_sha256__hmac_rfc4231_long_key(void **state)
{
	const char *m6 =
	    "Test Using Larger Than Block-Size Key - Hash Key First";
	const char *m7 =
	    "This is a test using a larger than block-size key and a larger "
	    "than block-size data. The key needs to be hashed before being "
	    "used by the HMAC algorithm.";
	unsigned char k[131];
	char hex[SHA256_HEX];

	(void)state;
	memset(k, 0xaa, sizeof(k));
	hmac_hex(k, sizeof(k), m6, strlen(m6), hex);
	assert_string_equal(hex,
	    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	hmac_hex(k, sizeof(k), m7, strlen(m7), hex);
	assert_string_equal(hex,
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

/* Every vector again in portable C (the tests above ran on the CPU's
 * SHA extensions where it has them). */
static void
test_sha256__portable_vectors(void **state)
{
	sha256_portable(1);
	test_sha256__empty(state);
	test_sha256__abc(state);
	test_sha256__two_blocks(state);
	test_sha256__million_a_in_pieces(state);
	sha256_portable(0);
}

static void
digest_pieces(const unsigned char *data, size_t len, size_t piece,
    char hex[SHA256_HEX])
{
	unsigned char md[SHA256_LEN];
	struct sha256 s;
	size_t at, n;

	sha256_init(&s);
	for (at = 0; at < len; at += n) {
		n = len - at < piece ? len - at : piece;
		sha256_update(&s, data + at, n);
	}
	sha256_final(&s, md);
	sha256_to_hex(md, hex);
}

static void
test_sha256__cpu_and_portable_agree(void **state)
{
	static const size_t pieces[] = {1, 7, 63, 64, 65, 200, 4096};
	unsigned char data[1100];
	char a[SHA256_HEX], b[SHA256_HEX];
	uint32_t x = 2463534242u;
	size_t i, len, j;

	(void)state;
	for (i = 0; i < sizeof(data); i++) { /* xorshift32 */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	for (len = 0; len <= sizeof(data); len++)
		for (j = 0; j < sizeof(pieces) / sizeof(pieces[0]); j++) {
			sha256_portable(0);
			digest_pieces(data, len, pieces[j], a);
			sha256_portable(1);
			digest_pieces(data, len, pieces[j], b);
			sha256_portable(0);
			assert_string_equal(a, b);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256__empty),
	    cmocka_unit_test(test_sha256__abc),
	    cmocka_unit_test(test_sha256__two_blocks),
	    cmocka_unit_test(test_sha256__million_a_in_pieces),
	    cmocka_unit_test(test_sha256__hmac_rfc4231_short_keys),
	    cmocka_unit_test(test_sha256__hmac_rfc4231_long_key),
	    cmocka_unit_test(test_sha256__portable_vectors),
	    cmocka_unit_test(test_sha256__cpu_and_portable_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
