/* Drafting a scenario from the catalog (`scenario draft`, the TUI's new plan): buying servers
 * with a GPU model (its newest catalog purchase price, its TDP) against the cheapest
 * on-demand, spot and committed offers per GPU-hour of the same GPU and form factor with at
 * least a server's GPUs an instance (marketplaces only when asked), priced as of a date, with
 * every assumption not taken from the catalog, and every cost left at 0, stated in the notes.
 *
 * Ownership: *doc is the caller's (cJSON_Delete). Errors: GP_E_INPUT, where "scenario draft",
 * when the catalog lacks what the draft needs (a TDP, a purchase price, any offer, the tariff
 * or state asked for); store errors as the store reports them. */
#ifndef GPUPLAN_APP_DRAFT_H
#define GPUPLAN_APP_DRAFT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/app_session.h"
#include "gpuplan/reference.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/scenario.h"

/* One cloud offer a draft can compare, the cheapest of its kind as the catalog lists it. */
typedef struct gp_draft_offer {
    char provider[16];
    gp_pricing pricing;
    int term_months;      /* committed only */
    gp_purchase purchase; /* committed only */
    char catalog[300];    /* provider/instance/region */
    char label[200];      /* the option's name: "aws p5.48xlarge us-east-1 on-demand" */
    double per_gpu_hour, gpus;
    char effective_from[11];
    char band[8]; /* spot: the catalog's interruption band, "" when none */
    bool drafted; /* one the draft's own rule picks (gp_draft_picks) */
} gp_draft_offer;

typedef struct gp_draft_request {
    int gpus;                  /* >= 1 */
    const char *gpu;           /* a model as people write it ("H100 SXM"); normalized */
    const char *region_prefix; /* offers only in regions starting so; NULL: any */
    const char *providers[8];  /* offers only from these; none: every provider but marketplaces */
    int n_providers;
    bool marketplace;   /* marketplace offers (vast) too */
    double utilization; /* 0..1 */
    int horizon_months;
    const char *tariff;   /* a tariff preset's name, or NULL */
    const char *state;    /* a US state's industrial average price, or NULL (not with tariff) */
    double pue;           /* 0: the Uptime Institute 2024 average, 1.56 */
    int gpus_per_server;  /* 1..64 */
    double server_base_w; /* < 0: 1,500 W for an 8-GPU server, scaled */
    double gpu_idle_w;    /* < 0: 15 % of the TDP */
    const char *name;     /* NULL: "N x GPU: own or rent" */
    const char *as_of;    /* YYYY-MM-DD: offers in force that day */
    /* The scenario's currency (NULL: USD). The catalog's purchase prices, electricity prices
     * and tariff presets are in USD: converted at the rate in force on as_of (2.1), stated in
     * the notes; GP_E_INPUT when no rate is. Cloud offers convert when the plan is reported. */
    const char *currency;
    /* Spot: the share of instances interrupted a month (0..10 * 730 an hour), written into
     * every drafted spot option; < 0: the catalog's band where it gives one, else
     * GP_DRAFT_SPOT_INTERRUPTIONS. */
    double spot_interruptions;
    /* A growing plan: demand grows by growth a month (-0.5..1; 0: steady); servers are then
     * bought as needed, and a committed option commits a base, month 1's demand or
     * commit_share (0..1; 0: month 1's) of the peak, with base_gpus, and bursts to the drafted
     * on-demand option (else spot). */
    double growth;
    double commit_share;
    /* Chosen by hand (the TUI's new plan): the purchase price (NULL: the newest) and the
     * offers (none: the draft's picks). The notes say what was chosen and why either way. */
    const gp_hw_price *hardware;
    const char *hardware_source;
    const gp_draft_offer *offers;
    int n_offers;
    /* Work mode (docs/planning.md "scenario draft"): work_per_month > 0 units of profile's
     * work a month instead of gpus (gpus is then the month-1 GPUs that work needs, for the
     * offers' size), each side doing the profile's throughput on the GPU (measured, else
     * published, else estimated). GP_E_INPUT for an unknown profile or no throughput. */
    double work_per_month;
    const char *profile;
    /* An API option (revision 2.1 per_unit; work mode only, a decode or offline profile):
     * "MODEL" at the cheapest provider, or "PROVIDER/MODEL", priced from the catalog's API
     * price in force on as_of, its input price through the profile's prompt over generated
     * tokens. GP_E_INPUT naming the model when the catalog has no price for it that day. */
    const char *api;
} gp_draft_request;

/* The interruptions a month a drafted spot option is priced at when the catalog gives no
 * band: 12.5 %, the midpoint of the middle one of AWS Spot Advisor's five bands (10-15 %).
 * A stated assumption, not a measurement. */
#define GP_DRAFT_SPOT_INTERRUPTIONS 0.125

/* The defaults of every optional field (utilization 0.6, 36 months, 8 GPUs a server). */
void gp_draft_defaults(gp_draft_request *rq, const char *as_of);

/* The offers the draft's rule picks for rq (the cheapest on-demand, spot and committed per
 * GPU-hour that stand against the servers), drafted set, into out[0..*n), *n <= 3. */
gp_status gp_draft_picks(gp_session *s, const gp_draft_request *rq, gp_draft_offer out[3], int *n,
                         gp_err *err);

/* A catalog row as an offer a draft compares (its label as drafts name options). */
void gp_draft_offer_of(const gp_offer_price *o, gp_draft_offer *out);

/* Draft the scenario JSON for rq from the session's catalog. */
gp_status gp_draft(gp_session *s, const gp_draft_request *rq, cJSON **doc, gp_err *err);

#endif
