/* The summary of a grid sweep (app_sweep.h): solved row by row where the last axis allows it,
 * exactly as the point-by-point walk would count (sweep.h, gp_sweep_summarize_rows). */
#include "gpuplan/app_sweep.h"

gp_status gp_sweep_summarize(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                             gp_sweep_summary *out, gp_err *err) {
    return gp_sweep_summarize_rows(s, axes, n_axes, out, err);
}
