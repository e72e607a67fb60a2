/* Capacity from stored telemetry, as `capacity`, `plan --mix`, `scenario measure`, the TUI
 * and the workbook ask for it: a window and a selection in, figures out (gp_capacity in
 * capacity.h, rendered by report_capacity.h), a mixed-fleet plan, a measured scenario.
 *
 * Ownership: gp_capacity and gp_mix_plan own their arrays; free with gp_capacity_done and
 * gp_mix_plan_done (safe on zeroed ones). Errors: GP_E_INPUT for an analysis that has nothing
 * to work on (no utilization in the window, no complete bucket, an unknown option) with no
 * where; GP_E_NOTFOUND for an unknown scenario; the store's errors as it reports them. */
#ifndef GPUPLAN_APP_CAPACITY_H
#define GPUPLAN_APP_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/app_session.h"
#include "gpuplan/capacity.h"
#include "gpuplan/catalog.h"
#include "gpuplan/collect_history.h"

typedef struct gp_cap_query {
    long long since_ms; /* the window: the last since_ms up to now */
    const char *nodes[64];
    int n_nodes; /* 0: every node */
    char gpu[GP_GPU_NAME_BYTES];
    bool has_gpu;
    int threshold; /* busy at >= this %, a multiple of 5 from 5 to 100 */
    bool has_price;
    double price, pue; /* the power price per kWh and the PUE it is paid at */
    char currency[4];
    const char *by; /* attribute use to this workload label; NULL: none */
    bool has_allin; /* the all-in cost of a GPU-hour is known (from a scenario) */
    double allin_per_gpu_hour;
    /* NULL: the store. Else the Prometheus-compatible server (its URL, selector, credentials,
     * timeouts) that computes the figures (capacity_remote.c); the history is not copied. */
    const gp_history_opts *remote;
    /* With remote: read the gpuplan-capacity recorded series when the server has them for the
     * window (GP_REC_AUTO, the default), always, or never (the raw series). */
    gp_recorded recorded;
    /* With remote: the window is asked for in time slices this long (whole hours), each host
     * group's slices their own queries; 0: a month (31 days). The answer does not depend on it. */
    long long slice_ms;
} gp_cap_query;

/* The defaults: 30 days, every node and GPU, busy at 5 %, no price (PUE 1, USD). */
void gp_cap_query_init(gp_cap_query *q);
/* Price the power as scenario arg does (its tariff's time-weighted mean price, its PUE), and a
 * GPU-hour all-in as it prices owning (self-hosted total / (GPUs x months x 730 h)). */
gp_status gp_cap_query_price_from(gp_session *s, const char *arg, gp_cap_query *q, gp_err *err);

/* Everything `capacity` shows for q's window ending now_ms (from q->remote when set, as
 * gp_capacity_remote). */
gp_status gp_capacity_analyse(gp_session *s, const gp_cap_query *q, int64_t now_ms,
                              gp_capacity *out, gp_err *err);
void gp_capacity_done(gp_capacity *c);

/* gp_capacity_analyse's figures in memory set by the nodes rather than the GPUs (the
 * exporter's): each GPU's row goes to fn as it is read (borrowed for the call: c->rows stays
 * NULL, c->n counts them) with the sums only (no memory, power limit or power P95), c already
 * holding the window and prices (has_allin from q alone, --by or not). Once every row is in,
 * c's fleet, per-node and per-model groups, whole GPUs and chargeback are as
 * gp_capacity_analyse's; it has no buckets, load duration curve or wall power. From the store
 * only (q->remote is not read). Errors as gp_capacity_analyse's; fn may have had some rows. */
gp_status gp_capacity_each(gp_session *s, const gp_cap_query *q, int64_t now_ms,
                           void (*fn)(const gp_capacity *c, const gp_cap_row *r, void *arg),
                           void *arg, gp_capacity *out, gp_err *err);

/* The figures of gp_capacity_analyse computed by the server q->remote with server-side
 * aggregation (the queries are listed in docs/telemetry.md): per GPU, node (Hostname), model
 * and label, and the load duration curve; no wall power. c->server names the server. Errors:
 * GP_E_INPUT for a bad request or the server's refusal (its errorType and text), GP_E_NET for the
 * network, GP_E_LIMIT for an answer past the caps; c is then empty. */
gp_status gp_capacity_remote(const gp_cap_query *q, int64_t now_ms, gp_capacity *c, gp_err *err);

/* The recording rules of the series gp_capacity_remote reads when the server has them
 * (contrib/prometheus/gpuplan-capacity.rules.yml is this text), appended to out as a Prometheus
 * rules file. GP_E_LIMIT when out's limit is too small. */
gp_status gp_capacity_rules_yaml(gp_buf *out);

/* ---- plan --mix: own k GPUs, rent the overflow (docs/model.md, Mixed fleet; gp_mix_plan in
 * capacity.h) -------------------------------------------------------------------------------- */

typedef struct gp_mix_request {
    const char *scenario, *option; /* a scenario (file or name) and one of its options */
    bool has_growth, trend;        /* project demand: a rate, or the trend of daily use */
    double growth;                 /* a month's rate, when not trend */
    double target;                 /* the utilization the GPUs needed are sized at */
    bool force_trend;              /* project a trend even when it is not significant */
} gp_mix_request;

gp_status gp_plan_mix(gp_session *s, const gp_cap_query *q, const gp_mix_request *rq,
                      int64_t now_ms, gp_mix_plan *out, gp_err *err);
void gp_mix_plan_done(gp_mix_plan *p);

/* ---- scenario measure: a stored scenario's demand and power from the window -------------- */

typedef struct gp_measure_request {
    bool growth;      /* also demand.growth_per_month from the window's trend */
    bool force_trend; /* write it even when the trend is not significant */
} gp_measure_request;

typedef struct gp_measured {
    char name[256];
    int version; /* the new version saved */
    long long gpus;
    double busy_share;
    bool has_idle_w, has_busy_w, has_base;
    double idle_w, busy_w, base_w;
    gp_cap_trend trend;  /* with growth asked for: the fit */
    bool growth_written; /* demand.growth_per_month was set to trend.growth */
} gp_measured;

/* Write a new version of stored scenario name measured over q's window ending now_ms. With
 * rq->growth, a significant trend (or a forced one) within docs/model.md's range (-0.5..1 a month)
 * becomes demand.growth_per_month; any other is reported in out->trend and not written. */
gp_status gp_scenario_measure(gp_session *s, const char *name, const gp_cap_query *q,
                              const gp_measure_request *rq, int64_t now_ms, gp_measured *out,
                              gp_err *err);

#endif
