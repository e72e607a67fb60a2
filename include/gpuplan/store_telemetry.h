/* Telemetry in the store: nodes and their sources, samples with their rollups, retention,
 * and the fleet's latest state. Part of the store layer (src/store/store_telemetry.c).
 *
 * Ownership: rows handed to callbacks are borrowed for the call. Errors: GP_E_DB for SQLite,
 * GP_E_NOTFOUND for an unknown node, GP_E_INPUT for a node name or source already taken. */
#ifndef GPUPLAN_STORE_TELEMETRY_H
#define GPUPLAN_STORE_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/store.h"
#include "gpuplan/samples.h"

typedef enum gp_source_kind {
    GP_SRC_DCGM,
    GP_SRC_PROMETHEUS,
    GP_SRC_NVSMI,
    GP_SRC_REDFISH,
    GP_SRC_IPMI /* the local BMC through `ipmitool dcmi power reading` */
} gp_source_kind;

const char *gp_source_kind_name(gp_source_kind k);

typedef struct gp_source_cfg {
    long long id, node_id;
    char node[128];
    gp_source_kind kind;
    char url[1024];       /* empty for the local nvidia-smi */
    char match[512];      /* prometheus: a label selector "{cluster=\"a\"}" */
    bool insecure;        /* accept any certificate (explicit per-node opt-in) */
    char cacert[512];     /* a CA bundle for self-signed BMCs */
    char token_file[512]; /* a file holding a bearer token */
    bool hung_last;       /* its node's last error says "timed out": the collector takes it last */
} gp_source_cfg;

/* Add node `name` with its sources (n >= 0: a node fed only by imports) in one transaction. */
gp_status gp_store_node_add(gp_store *st, const char *name, const gp_source_cfg *src, int n,
                            gp_err *err);
/* The id of node `name`. Returns GP_OK and sets *id; GP_E_NOTFOUND (err filled, *id untouched)
 * when no node has that name; GP_E_DB on a database failure. err is written only on failure:
 * callers test the returned status, never err->code after a GP_OK. */
gp_status gp_store_node_id(gp_store *st, const char *name, long long *id, gp_err *err);

/* Remove a node with its sources, GPUs and every sample of it. */
gp_status gp_store_node_rm(gp_store *st, const char *name, gp_err *err);

/* Every source of every node (name: NULL), or of one node; in node then source order. *out is
 * an array of *n the caller frees (NULL and 0 when there are none, and on error). */
gp_status gp_store_sources(gp_store *st, const char *name, gp_source_cfg **out, size_t *n,
                           gp_err *err);

typedef struct gp_node_info {
    const char *name;
    int sources;
    int gpus;
    bool has_success;
    int64_t last_success_ms;
    const char *last_error; /* NULL when the last attempt succeeded */
    int64_t last_error_ms;
    const char *kinds; /* "dcgm,redfish" */
} gp_node_info;

gp_status gp_store_nodes(gp_store *st, int (*fn)(const gp_node_info *, void *), void *arg,
                         gp_err *err);

/* Every GPU model key stored with each raw name it was reported under, to fn (its strings live
 * until fn returns; raw is "" when unknown); fn returning non-zero stops the walk. */
gp_status gp_store_gpu_models(gp_store *st, int (*fn)(const char *key, const char *raw, void *),
                              void *arg, gp_err *err);

/* Write one node's parsed samples (times of 0 become now_ms) with their rollups; records the
 * node's GPUs as seen. Runs inside the caller's transaction when one is open. *written counts
 * the samples stored (repeats of a (series, time) already stored are skipped). */
gp_status gp_store_samples_write(gp_store *st, long long node_id, const gp_samples *s,
                                 int64_t now_ms, size_t *written, gp_err *err);

/* The whole GPUs (not MIG instances) of node node_id known by UUID, newest first, to fn (the
 * ref is borrowed for the call; fn returning non-zero stops the walk). */
gp_status gp_store_node_gpus(gp_store *st, long long node_id, int (*fn)(const gp_gpu_ref *, void *),
                             void *arg, gp_err *err);

/* Record a node's outcome for a cycle: success (error NULL) or its error text. */
gp_status gp_store_node_status(gp_store *st, long long node_id, int64_t now_ms, const char *error,
                               gp_err *err);

gp_status gp_store_cycle_record(gp_store *st, int64_t started_ms, int64_t finished_ms, int ok,
                                int failed, size_t samples, gp_err *err);

/* Drop raw samples older than now - raw_keep_ms and rollups (rows and day chunks, capacity
 * hours and fleet buckets with them) older than now - rollup_keep_ms. Seals nothing. */
gp_status gp_store_retention(gp_store *st, int64_t now_ms, int64_t raw_keep_ms,
                             int64_t rollup_keep_ms, gp_err *err);

/* The fleet now: one row per GPU with the newest value of each metric (within window_ms). */
typedef struct gp_fleet_gpu {
    const char *node, *host, *uuid, *model, *mig;
    const char *raw_model; /* as the source reported it ("NVIDIA H100 80GB HBM3"), "" if none */
    int index;
    bool has[GP_M_COUNT];
    double value[GP_M_COUNT];
    int64_t last_seen_ms;
    bool missing;   /* not seen in its node's last successful cycle */
    bool node_down; /* its node's last attempt failed */
    const char *node_error;
} gp_fleet_gpu;

gp_status gp_store_fleet(gp_store *st, int64_t now_ms, int64_t window_ms,
                         int (*fn)(const gp_fleet_gpu *, void *), void *arg, gp_err *err);

/* Node-level wall power (Redfish), newest per node. */
gp_status gp_store_node_power(gp_store *st, int64_t now_ms, int64_t window_ms,
                              int (*fn)(const char *node, double watts, int64_t ts_ms, void *),
                              void *arg, gp_err *err);

/* Per-GPU 5-minute means of one metric over [from_ms, to_ms), by node, GPU and time (label
 * sets of one GPU averaged): the TUI's sparklines and today's energy. */
typedef struct gp_gpu_point {
    const char *node, *uuid, *mig;
    int index;
    int64_t bucket_ms;
    double mean;
} gp_gpu_point;

gp_status gp_store_gpu_history(gp_store *st, gp_metric m, int64_t from_ms, int64_t to_ms,
                               int (*fn)(const gp_gpu_point *, void *), void *arg, gp_err *err);

typedef struct gp_db_stats {
    long long nodes, gpus, series, samples, rollups_5m, rollups_1h, cycles, prices, offers,
        scenarios;
    long long oldest_sample_ms, newest_sample_ms;
    long long file_bytes;
} gp_db_stats;

gp_status gp_store_stats(gp_store *st, gp_db_stats *out, gp_err *err);

/* Where the file's bytes go: each table with its indexes, the bytes of the pages they use
 * (SQLite's dbstat), largest first, and "(free)" for pages freed and not yet reused; fn returns
 * non-zero to stop. Reads every page of the file: seconds on a database of gigabytes. */
gp_status gp_store_space(gp_store *st, int (*fn)(const char *table, long long bytes, void *),
                         void *arg, gp_err *err);

#endif
