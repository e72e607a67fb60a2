/* Sweep results for people: the summary of `sweep --summary`, and the names the sweep's CSV
 * header and rows use (the CSV itself streams from src/cli/ while the grid is walked, so it
 * never has to fit in memory).
 *
 * Ownership: the summary writer appends to the caller's gp_buf. Errors: GP_E_LIMIT when the
 * buffer's cap is reached (the buffer then holds what fit). */
#ifndef GPUPLAN_REPORT_SWEEP_H
#define GPUPLAN_REPORT_SWEEP_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/sweep.h"
#include "gpuplan/xmem.h"

/* A contender's name: "self_hosted" for -1, else option i's name (borrowed from s). */
const char *gp_sweep_contender(const gp_scenario *s, int i);
/* An axis as written on the command line: "utilization", "hourly:OPTION". */
void gp_sweep_axis_label(char *out, size_t cap, const gp_scenario *s, const gp_sweep_axis *a);

/* The share of the grid each contender won, then where the answer flips along the last axis
 * (the first GP_SWEEP_MAX_FLIPS of them). */
gp_status gp_report_sweep_summary(const gp_scenario *s, const gp_sweep_axis *axes,
                                  const gp_sweep_summary *sum, gp_buf *out);

#endif
