/* The exporter service (`gpuplan exporter`): the metric families of docs/exporter.md computed
 * from the store (capacity over a window, the fleet scenario's all-in price, every saved
 * scenario evaluated, the catalog's price dates, each node's last collection), kept between
 * scrapes and computed again only when the database changed (a collection cycle, an import, a
 * saved scenario) or the figures are older than max_age_ms.
 *
 * Ownership: gp_exporter_open hands over a gp_exporter the caller frees with
 * gp_exporter_close; the session is borrowed and must outlive it. The set gp_exporter_metrics
 * gives is borrowed until the next call or the close. Not thread-safe: one caller at a time.
 * Errors: GP_E_INPUT for a fleet scenario that does not load or evaluate (its file or name and
 * JSON path) and for options out of range; the store's errors as it reports them. */
#ifndef GPUPLAN_APP_EXPORTER_H
#define GPUPLAN_APP_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/app_session.h"
#include "gpuplan/metrics.h"

/* Label values of the chargeback families past this many (by GPU-time used, ties by value) are
 * summed as "(other)". */
#define GP_EXPORTER_MAX_LABEL_VALUES 1000

typedef struct gp_exporter_opts {
    long long since_ms;   /* the window: the last since_ms up to each refresh */
    int threshold;        /* busy at >= this % (a multiple of 5, 5..100) */
    const char *scenario; /* prices the fleet: all-in GPU-hour, tariff, PUE; NULL: none */
    bool has_price;       /* without a scenario: power at this price per kWh (energy only) */
    double price;
    const char *by;       /* chargeback by this workload label; NULL: none */
    int max_label_values; /* chargeback label values served, 1..GP_EXPORTER_MAX_LABEL_VALUES */
    int64_t max_age_ms;   /* computed again after this long even when nothing changed */
} gp_exporter_opts;

/* The defaults: 7 days, busy at 5 %, no price, 50 label values, 5 minutes. */
void gp_exporter_opts_init(gp_exporter_opts *o);

typedef struct gp_exporter gp_exporter;

/* An exporter on s with options o (copied; its strings borrowed), its figures computed once
 * as of now_ms so that a bad option or scenario is told before anything is served. */
gp_status gp_exporter_open(gp_session *s, const gp_exporter_opts *o, int64_t now_ms,
                           gp_exporter **out, gp_err *err);

/* The families as of now_ms: the kept ones when the database is unchanged and they are
 * younger than max_age_ms, else computed again. A failed refresh keeps the previous figures
 * (it counts in gpuplan_exporter_refresh_failures_total) and returns its error with *out set;
 * *out is NULL only when nothing was ever computed. */
gp_status gp_exporter_metrics(gp_exporter *x, int64_t now_ms, const gp_metric_set **out,
                              gp_err *err);

/* A number that changes whenever the set gp_exporter_metrics gives does (each refresh, each
 * failed one counted): a front end may keep what it rendered of the set until it changes. */
unsigned long long gp_exporter_generation(const gp_exporter *x);

void gp_exporter_close(gp_exporter *x);

#endif
