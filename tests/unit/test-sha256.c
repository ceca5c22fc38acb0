/* tests/unit/test-sha256.c: lib/sha256.c against the FIPS 180-4 / NIST test
 * vectors. */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256__empty),
	    cmocka_unit_test(test_sha256__abc),
	    cmocka_unit_test(test_sha256__two_blocks),
	    cmocka_unit_test(test_sha256__million_a_in_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
