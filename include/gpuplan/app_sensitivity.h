/* One-at-a-time sensitivity as a user asks for it (`sensitivity`): a scenario loaded as of a
 * date, every input moved down and up by a delta (sensitivity.h), and for each option the
 * inputs that change anything for it, largest swing first.
 *
 * Ownership: a gp_sens_analysis owns its scenario, table and rankings; free with
 * gp_sens_analysis_done (safe on a zeroed or already freed one). Errors: those of
 * gp_load_scenario, and GP_E_INPUT from gp_sensitivity_run for a delta out of range. */
#ifndef GPUPLAN_APP_SENSITIVITY_H
#define GPUPLAN_APP_SENSITIVITY_H

#include "gpuplan/app_scenario.h"
#include "gpuplan/sensitivity.h"

typedef struct gp_sens_analysis {
    gp_loaded sc;           /* the scenario as loaded; sc.s is the one analysed */
    gp_sensitivity *table;  /* heap: about 1.1 MB */
    gp_sens_ranking *ranks; /* heap: one per option of sc.s */
    gp_result *base;        /* heap: sc.s evaluated at the base point (for the spot caveat) */
} gp_sens_analysis;

/* Load scenario (a file, "-" or a stored name) as of as_of and run it at delta (0..1) over
 * the inputs params names, or what a planner is unsure of when n_params is 0
 * (gp_sensitivity_run_params). */
gp_status gp_sensitivity_analyze(gp_session *s, const char *scenario, const char *as_of,
                                 double delta, const char *const *params, int n_params,
                                 gp_sens_analysis *out, gp_err *err);
void gp_sens_analysis_done(gp_sens_analysis *a);

#endif
