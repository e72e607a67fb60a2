/* The wall clock, for every layer: collection cycles, freshness of a fleet's state, the TUI's
 * status line and spinner. One function, so a test or a front end never reads the time two ways.
 *
 * Ownership: nothing allocated. Errors: none (clock_gettime on CLOCK_REALTIME cannot fail). */
#ifndef GPUPLAN_CLOCK_H
#define GPUPLAN_CLOCK_H

#include <stdint.h>

/* The current time in Unix milliseconds. */
int64_t gp_now_ms(void);

#endif
