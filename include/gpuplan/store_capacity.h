/* Capacity aggregates in the store (src/store/store_capacity.c): the hourly and fleet-wide
 * rollups of db/004_capacity.sql, refreshed as samples arrive, and the reads `capacity`,
 * `scenario measure` and `plan --mix` need. Rows handed to callbacks are borrowed. */
#ifndef GPUPLAN_STORE_CAPACITY_H
#define GPUPLAN_STORE_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/capacity.h"
#include "gpuplan/store.h"

/* Recompute node_id's capacity rollups for [from_ms, to_ms), widened to whole hours. */
gp_status gp_store_capacity_refresh(gp_store *st, long long node_id, int64_t from_ms, int64_t to_ms,
                                    gp_err *err);

typedef struct gp_cap_select {
    int64_t from_ms, to_ms;
    const char *nodes_json; /* a JSON array of node names, NULL: every node */
    const char *gpu;        /* catalog GPU name ("A100" also matches "A100-80GB"), NULL: any */
} gp_cap_select;

/* One row per GPU with utilization data in the window, by node then GPU, each handed to fn as
 * soon as its series are read (what is kept a GPU is its memory's hourly peaks only). On an
 * error fn may have had some of the GPUs already. */
gp_status gp_store_capacity_gpus(gp_store *st, const gp_cap_select *sel,
                                 int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err);
/* The same GPUs with only the sums of utilization and power (no memory, power limit, power P95
 * or power_hist): a quarter of the reads, for a caller that shows none of those. */
gp_status gp_store_capacity_sums(gp_store *st, const gp_cap_select *sel,
                                 int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err);

/* The selection's 5-minute buckets in time order (only buckets with some data), with the GPUs
 * busy at threshold_pct (a multiple of 5). */
gp_status gp_store_capacity_buckets(gp_store *st, const gp_cap_select *sel, int threshold_pct,
                                    int (*fn)(const gp_cap_bucket *, void *), void *arg,
                                    gp_err *err);

/* Mean wall power (Redfish) per node over the window. */
gp_status gp_store_capacity_node_power(gp_store *st, const gp_cap_select *sel,
                                       int (*fn)(const char *node, double mean_w, void *),
                                       void *arg, gp_err *err);

/* A node's mean utilization at one UTC hour of day over the window. */
typedef struct gp_cap_hour {
    const char *node;
    int hour;        /* 0..23, UTC */
    double util_pct; /* the mean over its GPUs and the buckets of that hour */
    double gpus;     /* GPUs reporting, on average over those buckets */
} gp_cap_hour;

/* One row per node and hour of day with data, by node then hour (the batch heatmap). */
gp_status gp_store_capacity_heatmap(gp_store *st, const gp_cap_select *sel,
                                    int (*fn)(const gp_cap_hour *, void *), void *arg, gp_err *err);

typedef struct gp_cap_label {
    const char *value; /* NULL: samples without that label */
    double buckets;    /* GPU-buckets: a MIG instance's at its share of the GPU */
    double util_sum;
    double power_sum; /* W summed over buckets with power */
} gp_cap_label;

/* Utilization and power attributed to the values of a workload label (an identifier). */
gp_status gp_store_capacity_by_label(gp_store *st, const gp_cap_select *sel, const char *label,
                                     int (*fn)(const gp_cap_label *, void *), void *arg,
                                     gp_err *err);

#endif
