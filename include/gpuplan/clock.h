/* The wall clock, for every layer: collection cycles, freshness of a fleet's state, the TUI's
 * status line and spinner; and the one way a moment is shown in local time and in UTC. One of each,
 * so no layer reads or writes the time two ways.
 *
 * Ownership: nothing allocated; the caller owns out. Errors: none (clock_gettime on
 * CLOCK_REALTIME cannot fail). */
#ifndef GPUPLAN_CLOCK_H
#define GPUPLAN_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds in a minute, an hour and a day (Unix time has no leap seconds, so a UTC day is
 * always this long). The _DIGITS forms are the bare numbers, for SQL text (src/store). */
#define GP_MINUTE_MS_DIGITS 60000
#define GP_HOUR_MS_DIGITS 3600000
#define GP_DAY_MS_DIGITS 86400000
#define GP_MINUTE_MS ((int64_t)GP_MINUTE_MS_DIGITS)
#define GP_HOUR_MS ((int64_t)GP_HOUR_MS_DIGITS)
#define GP_DAY_MS ((int64_t)GP_DAY_MS_DIGITS)

/* The current time in Unix milliseconds. */
int64_t gp_now_ms(void);

/* ms (Unix milliseconds) as local "YYYY-MM-DD HH:MM:SS" into out[0..cap), cut to fit; "never"
 * for ms <= 0 (a node that never answered, a database with no samples). */
void gp_fmt_local_time(int64_t ms, char *out, size_t cap);

/* ms (Unix milliseconds, the second truncated toward zero) as ISO 8601 UTC
 * "YYYY-MM-DDTHH:MM:SSZ" into out[0..cap), cut to fit: the moment as files, URLs and records
 * carry it. Every int64_t ms has one (a year of up to 9 digits). */
void gp_fmt_utc_time(int64_t ms, char *out, size_t cap);

#endif
