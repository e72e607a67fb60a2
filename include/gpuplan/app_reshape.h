/* Changing a scenario document's shape (docs/model.md version 2), as the TUI's Plan editor does:
 * the demand between GPU mode and work mode, an option's pricing kind, the financing kind, a
 * tariff period or a cloud option added or removed. Each change fills the keys the new shape
 * needs with defaults taken from the scenario and drops the keys it forbids, so that the
 * document still validates where the scenario allows it; the caller validates the result
 * (gp_load_scenario_doc), which names the JSON path of anything left to fix.
 *
 * Each call changes doc in place only when it succeeds. resolved is the scenario doc resolves
 * to (catalog prices and defaults filled in), read only. Errors: GP_E_INPUT with where
 * "$.json.path" and one line of why; store errors as the store reports them. */
#ifndef GPUPLAN_APP_RESHAPE_H
#define GPUPLAN_APP_RESHAPE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"
#include "gpuplan/scenario.h"

/* GPU mode to work mode. profile NULL: work counted in busy GPU-hours (unit "GPU-hours", every
 * work_per_gpu_hour 1), the same plan in other words (the same totals without a growth rate;
 * with one, work grows unrounded where GPU mode rounds each month's GPUs up). Else the profile's
 * unit, self-hosted's work per GPU-hour the throughput table's figure (measured, else the estimate)
 * for the GPU of the first catalog-backed option, and each catalog-backed option's its own GPU's
 * (the owned figure where its GPU has none); refused when no option names a GPU or the table has no
 * figure for it. The work a month (and each step's) is the GPUs in force times 730 hours times
 * the utilization in force times self-hosted's work per GPU-hour, so self-hosted needs the
 * same GPUs in every month. Refused when a utilization in force is 0 (work mode needs > 0). */
gp_status gp_reshape_work_mode(gp_session *s, cJSON *doc, const char *as_of, const char *profile,
                               gp_err *err);
/* Work mode to GPU mode: the GPUs (and each step's) are those self-hosted needs for the work in
 * force at the utilization in force, ceil⁺(W / (rho_S * 730 * u)), at least 1 at the top; the
 * work keys and every work_per_gpu_hour are dropped. Refused (GP_E_INPUT at its pricing) while
 * an option is an API (per_unit), which prices work only. */
gp_status gp_reshape_gpu_mode(cJSON *doc, gp_err *err);

/* Option k's pricing becomes pricing: the keys of the other kinds are dropped (upfront, term,
 * purchase, base and burst off committed; idle overhead off committed; interruptions,
 * checkpoint and restart off spot), and an option turned committed stops being the bridge or
 * a burst (those keys are removed). A catalog reference then takes the catalog's price of the
 * new kind; turned committed without a term, it takes the first of 12 and 36 months that the
 * catalog has (as of as_of) for its purchase option (no upfront unless it says otherwise).
 * Revision 2.1: turned per_unit (work mode only, else GP_E_INPUT), an option drops its hourly,
 * instance size, throughput, catalog reference and idle overhead and takes price_per_unit =
 * hourly / (GPUs an instance * its work a GPU-hour), 1 where the document lacks them; turned
 * from per_unit into another kind, it becomes its on-demand equivalent (1 GPU an instance, 1
 * unit of work a GPU-hour, hourly = its price a unit with the input part), so the totals stay. */
gp_status gp_reshape_pricing(gp_session *s, cJSON *doc, int k, gp_pricing pricing,
                             const char *as_of, gp_err *err);

/* Financing by cash (the key removed: its default) or by a loan: APR the scenario's discount
 * rate where it is above 0, else 0.07; the term the horizon (at most 360 months); all of
 * each batch's capex financed. A loan already there is kept. */
gp_status gp_reshape_financing(cJSON *doc, bool loan, gp_err *err);

/* doc's tariff periods (self_hosted.tariff.periods), written from the resolved scenario's
 * first when doc has none (the default flat tariff), so that one of them can be edited. */
cJSON *gp_reshape_periods_written(cJSON *doc, const gp_scenario *resolved);
/* A tariff period after the last: the longest period (the first of equals) gives it half its
 * hours and its price, named "period N" (after gp_reshape_periods_written). At most
 * GP_MAX_PERIODS. */
gp_status gp_reshape_period_add(cJSON *doc, const gp_scenario *resolved, gp_err *err);
/* Remove period k: its hours go to the period before it (the next one for the first); refused
 * for the last period left. */
gp_status gp_reshape_period_remove(cJSON *doc, const gp_scenario *resolved, int k, gp_err *err);

/* A cloud option after the last, named "on-demand N" (unique): on-demand, instances the size of
 * a server, at the per-GPU hourly price of the first on-demand option (else of the first
 * option; else 0 an hour, to be typed), in work mode at self-hosted's work per GPU-hour.
 * At most GP_MAX_OPTIONS. */
gp_status gp_reshape_option_add(cJSON *doc, const gp_scenario *resolved, gp_err *err);

#endif
