/* The tornado table of `sensitivity` for people: per option, the base difference and
 * break-even month, then every input that changes anything, largest swing first.
 *
 * Ownership: appends to the caller's gp_buf. Errors: GP_E_LIMIT when the buffer's cap is
 * reached (the buffer then holds what fit). */
#ifndef GPUPLAN_REPORT_SENSITIVITY_H
#define GPUPLAN_REPORT_SENSITIVITY_H

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"
#include "gpuplan/sensitivity.h"
#include "gpuplan/xmem.h"

/* t is s run at t->delta; ranks holds one ranking per option of s. */
gp_status gp_report_sensitivity_text(const gp_scenario *s, const gp_sensitivity *t,
                                     const gp_sens_ranking *ranks, gp_buf *out);

#endif
