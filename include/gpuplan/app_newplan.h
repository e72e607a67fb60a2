/* A new plan chosen step by step (the TUI's new-plan flow): the GPU models the catalog can
 * draft (a TDP, a purchase price, an offer in force), their purchase prices with dates, the
 * electricity prices (tariff presets, US state averages), and the cheapest offer of each
 * provider and pricing kind; then gp_draft's scenario with those choices in it.
 *
 * Ownership: rows handed to callbacks are borrowed for the call; *doc is the caller's
 * (cJSON_Delete). A non-zero return from a callback stops the walk. Errors: as gp_draft's
 * (GP_E_INPUT when the catalog lacks what the plan needs); store errors as reported. */
#ifndef GPUPLAN_APP_NEWPLAN_H
#define GPUPLAN_APP_NEWPLAN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_draft.h"
#include "gpuplan/app_session.h"
#include "gpuplan/reference.h"
#include "gpuplan/scenario.h"

typedef struct gp_newplan_gpu {
    char gpu[GP_GPU_NAME_BYTES]; /* the catalog name, what gp_draft_request.gpu takes */
    char full_name[128];
    double tdp_w, memory_gb; /* memory_gb 0 when unknown */
    int offers;              /* providers x pricing kinds with an offer in force */
    double cheapest_per_gpu_hour;
} gp_newplan_gpu;

/* Every GPU model a plan can be drafted for as of as_of, by name. */
gp_status gp_newplan_gpus(gp_session *s, const char *as_of,
                          int (*fn)(const gp_newplan_gpu *, void *), void *arg, gp_err *err);

/* The purchase prices of gpu (exactly that model, at least one GPU bought), oldest first;
 * source is the row's citation. */
gp_status gp_newplan_hardware(gp_session *s, const char *gpu,
                              int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                              gp_err *err);

typedef struct gp_newplan_power {
    bool tariff;          /* a tariff preset (gp_draft_request.tariff), else a US state */
    char name[96];        /* the preset's name, or the state (gp_draft_request.state) */
    double price_per_kwh; /* the time-weighted mean for a preset */
    char date[16];        /* the preset's effective date, or the year of the average */
    char detail[160];     /* the utility, or "industrial average" */
} gp_newplan_power;

/* The tariff presets, then the US states' industrial averages. */
gp_status gp_newplan_power_choices(gp_session *s, int (*fn)(const gp_newplan_power *, void *),
                                   void *arg, gp_err *err);

/* An offer of the list; drafted marks those gp_draft's rule picks (gp_newplan_mark_drafted). */
typedef gp_draft_offer gp_newplan_cloud;

/* For gpu as of as_of: the cheapest whole-GPU USD offer per GPU-hour of each provider and
 * pricing kind (and term), by provider, then on-demand, spot, committed. */
gp_status gp_newplan_cloud_choices(gp_session *s, const char *gpu, const char *as_of,
                                   int (*fn)(const gp_newplan_cloud *, void *), void *arg,
                                   gp_err *err);

/* Mark in list[0..*n) the offers gp_draft's rule picks for rq (drafted; the rest false),
 * appending those the list lacks (the list is realloc'ed: *list and *n change). */
gp_status gp_newplan_mark_drafted(gp_session *s, const gp_draft_request *rq,
                                  gp_newplan_cloud **list, int *n, gp_err *err);

typedef struct gp_newplan_request {
    gp_draft_request draft;      /* gpu, gpus, utilization, horizon, tariff or state, name */
    const gp_hw_price *hardware; /* the server price's source; NULL: the newest */
    const char *hardware_source;
    const gp_newplan_cloud *cloud; /* the options; none: gp_draft's cheapest of each kind */
    int n_cloud;
} gp_newplan_request;

/* gp_draft's scenario for rq->draft with the server price and the cloud options chosen;
 * checked to load and resolve before it is handed over. */
gp_status gp_newplan_build(gp_session *s, const gp_newplan_request *rq, cJSON **doc, gp_err *err);

#endif
