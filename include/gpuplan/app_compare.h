/* Comparing GPU generations per unit of work (docs/compare.md): for a demand stated as work a
 * month in a profile's unit, every GPU model with a throughput for the profile, owned (servers
 * at the newest catalog purchase price, power from its TDP and the tariff) and rented (the
 * cheapest offer per GPU-hour of each provider and pricing kind), each candidate one version 2
 * scenario in work mode evaluated by the engine, ranked by total cost. A GPU model without a
 * throughput or without any price is listed with what is missing.
 *
 * Each rented candidate's scenario owns servers of the same GPU model where the catalog has a
 * purchase price for it, else of the GPU model owned at the lowest total; its break-even month
 * is the engine's against that owning. An owned candidate's scenario has no cloud option.
 *
 * Ownership: a gp_comparison owns its rows and their scenario documents (gp_comparison_done).
 * Errors: GP_E_INPUT for an unknown profile, a unit other than the profile's, values out of
 * range, an unknown tariff preset, no rank to save; store errors as the store reports them. */
#ifndef GPUPLAN_APP_COMPARE_H
#define GPUPLAN_APP_COMPARE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/app_session.h"
#include "gpuplan/compare.h"

#define GP_COMPARE_MAX_PROVIDERS 16

typedef struct gp_compare_request {
    double work_per_month; /* > 0, in unit */
    const char *unit;      /* must be the profile's unit */
    const char *profile;
    double growth_per_month; /* -0.5..1 */
    int horizon_months;      /* 1..240 */
    double utilization;      /* (0, 1]: busy share of the GPUs provisioned */
    const char *providers[GP_COMPARE_MAX_PROVIDERS]; /* none: every provider */
    int n_providers;
    const char *tariff; /* a tariff preset's name, or NULL: the model's default flat price */
    const char *as_of;  /* YYYY-MM-DD: prices in force that day */
    const char *save;   /* store the scenario of the row ranked pick under this name, or NULL */
    int pick;
    /* Owned servers (docs/compare.md "Owned servers"): a catalog node price of the GPU's form
     * factor where one exists, else the GPU price x 8 x server_overhead; either x
     * network_share for the cluster network. */
    double server_overhead; /* >= 1, default 1.6 */
    double network_share;   /* >= 1, default 1.15 */
    /* Filters: rows of this GPU model only (normalized), of this pricing ("own", "on_demand",
     * "spot", "committed"), rented offers of this region; NULL: any. */
    const char *gpu, *pricing, *region;
    bool spot; /* rank spot rows even for a horizon over 12 months (else listed, not ranked) */
} gp_compare_request;

/* Spot rows are left out of the ranking for horizons over this many months unless asked. */
#define GP_COMPARE_SPOT_MONTHS 12

/* The defaults: growth 0, 36 months, utilization 0.6, server overhead 1.6, network 1.15. */
void gp_compare_defaults(gp_compare_request *rq, const char *as_of);
/* Compare as rq asks, and store the row ranked rq->pick when rq->save is set
 * (out->saved_version says which version). On failure *out is empty. */
gp_status gp_compare(gp_session *s, const gp_compare_request *rq, gp_comparison *out, gp_err *err);
void gp_comparison_done(gp_comparison *c);
/* Store the scenario of the row ranked rank under name (a new version when name exists);
 * *version gets the version stored. */
gp_status gp_compare_save(gp_session *s, const gp_comparison *c, int rank, const char *name,
                          int *version, gp_err *err);

#endif
