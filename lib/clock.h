/* lib/clock.h: the two clocks the project reads. */
#ifndef LIB_CLOCK_H
#define LIB_CLOCK_H

#include <stdint.h>

/* The current time as RFC 3339 UTC with seconds ("2026-11-29T20:10:00Z").
 * Owned by the caller. */
char *clock_rfc3339_now(void);
/* CLOCK_MONOTONIC in milliseconds: for deadlines and intervals. */
int64_t clock_monotonic_ms(void);

#endif
