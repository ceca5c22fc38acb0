/* tests/fuzz/fuzz.h: the libFuzzer entry point, prototyped for
 * -Wmissing-prototypes. Each tests/fuzz/fuzz-<target>.c defines it. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
