/* The summary of a grid sweep (`sweep --summary`) in constant memory: each contender's wins
 * counted and the flips of the answer along the last axis kept (sweep.h, gp_sweep_summary),
 * each row solved from its linear pieces where the last axis allows it, with exactly the
 * counts of a walk over every point (gp_sweep_summarize_rows).
 *
 * Ownership: out is the caller's. Errors: those of gp_sweep_run (check the axes with
 * gp_sweep_check first); GP_E_INPUT names a bad axis. */
#ifndef GPUPLAN_APP_SWEEP_H
#define GPUPLAN_APP_SWEEP_H

#include "gpuplan/sweep.h"

gp_status gp_sweep_summarize(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                             gp_sweep_summary *out, gp_err *err);

#endif
