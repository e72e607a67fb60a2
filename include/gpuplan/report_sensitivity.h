/* The reports of `sensitivity`: a one-screen summary (the top drivers of the cheapest
 * decision as a text tornado), the full table per option, and every row as JSON or CSV, named
 * by the option (or section) and parameter it moves, with its JSON path beside them.
 *
 * Ownership: appends to the caller's gp_buf. Errors: GP_E_LIMIT when the buffer's cap is
 * reached (the buffer then holds what fit). */
#ifndef GPUPLAN_REPORT_SENSITIVITY_H
#define GPUPLAN_REPORT_SENSITIVITY_H

#include "gpuplan/engine.h"
#include "gpuplan/error.h"
#include "gpuplan/scenario.h"
#include "gpuplan/sensitivity.h"
#include "gpuplan/xmem.h"

/* The full table: per option, the base difference and break-even month, then every input
 * that changes anything, largest swing first. t is s run at t->delta; ranks holds one ranking
 * per option of s. */
gp_status gp_report_sensitivity_text(const gp_scenario *s, const gp_sensitivity *t,
                                     const gp_sens_ranking *ranks, gp_buf *out);

/* The summary: the cheapest side at the base point and its lead over the next best, then the
 * `top` inputs that move that lead most, as a text tornado (bars scaled to the largest change
 * shown), each end where another side becomes cheapest marked with "!". base (may be NULL):
 * the scenario evaluated, for the report headline's spot caveat when the cheapest rests on
 * spot. */
gp_status gp_report_sensitivity_summary(const gp_scenario *s, const gp_sensitivity *t,
                                        const gp_result *base, int top, gp_buf *out);

/* Every row of t as JSON: {"scenario", "currency", "delta", "base": END, "rows": [{"option",
 * "parameter", "path", "base", "low", "high", "at_low": END, "at_high": END}], "refused":
 * {"count", "first", "error"}}, END = {"self_hosted": total, "options": [{"name", "total",
 * "break_even_month"}], "cheapest": name}; full precision. Errors: GP_E_LIMIT, GP_E_NOMEM. */
gp_status gp_report_sensitivity_json(const gp_scenario *s, const gp_sensitivity *t, gp_buf *out,
                                     gp_err *err);

/* The same rows as CSV, one an input: option, parameter, path, base, low, high, the cheapest
 * at each end, then self-hosted's and every option's total at low and at high (to the cent;
 * inputs to 4 significant digits). Errors: GP_E_LIMIT when the buffer's cap is reached. */
gp_status gp_report_sensitivity_csv(const gp_scenario *s, const gp_sensitivity *t, gp_buf *out,
                                    gp_err *err);

#endif
