/* Telemetry as a user feeds it: nodes and their sources (defined, listed, removed), captured
 * files imported under a node, a collection cycle over every node, a node's sources tried
 * once, and the database they fill checked and measured (`db check`, `db stats`).
 *
 * Ownership: gp_node_probe owns its arrays (gp_node_probe_done). Errors: GP_E_INPUT for a bad
 * node definition or capture (with the file and line the parser names); GP_E_NOTFOUND for an
 * unknown node; the store's and the collector's errors as they report them. An import is one
 * transaction: a capture that cannot be read or stored stores nothing. */
#ifndef GPUPLAN_APP_TELEMETRY_H
#define GPUPLAN_APP_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/app_session.h"
#include "gpuplan/collect.h"
#include "gpuplan/store_check.h"

/* Add node name with its sources; match, cacert, token_file ("" for none) and insecure apply
 * to every source (match to Prometheus ones only). */
typedef struct gp_node_def {
    const char *name;
    gp_source_cfg src[8];
    int n_src;
    const char *match, *cacert, *token_file;
    bool insecure;
} gp_node_def;
gp_status gp_node_define(gp_session *s, gp_node_def *def, gp_err *err);
/* Every source of every node, in node then source order (gp_store_nodes: fn's row is borrowed
 * for the call; nonzero from fn stops the walk). */
gp_status gp_node_list(gp_session *s, int (*fn)(const gp_node_info *, void *), void *arg,
                       gp_err *err);
/* Remove node name with its sources and samples (GP_E_NOTFOUND when unknown). */
gp_status gp_node_remove(gp_session *s, const char *name, gp_err *err);
/* GP_OK when the bearer token file at path is readable by its owner only; GP_E_INPUT (err says
 * how to fix it) when group or others may read it, GP_E_IO when it cannot be read. A front end
 * shows the first as a warning: the file is the user's to guard. */
gp_status gp_token_file_check(const char *path, gp_err *err);

/* One fetch of every source of a node, nothing stored (`node test`). */
typedef struct gp_node_probe {
    gp_source_cfg *src;
    gp_source_result *result;
    size_t n;
} gp_node_probe;
gp_status gp_node_probe_run(gp_session *s, const char *name, gp_node_probe *out, gp_err *err);
void gp_node_probe_done(gp_node_probe *p);

typedef enum gp_capture_kind {
    GP_CAPTURE_NVSMI,
    GP_CAPTURE_PROM,
    GP_CAPTURE_DMON, /* nvidia-smi dmon log */
    GP_CAPTURE_DCMI  /* ipmitool dcmi power reading */
} gp_capture_kind;

typedef struct gp_import_request {
    gp_capture_kind kind;
    const char *file;    /* a path, or "-" for stdin */
    const char *node;    /* created when new */
    const char *fields;  /* nvidia-smi: the columns of a noheader CSV, or NULL */
    const char *host;    /* nvidia-smi, dmon: the host it ran on; NULL: the node's name */
    int64_t end_ms;      /* dmon without -o T: its last round's time; 0: the file's mtime */
    int64_t interval_ms; /* dmon without -o T: its -d interval; 0: 1 s */
} gp_import_request;

/* How an import's times were settled, for the front end to say. */
typedef enum gp_import_time {
    GP_TIME_OWN,   /* the capture's own timestamps */
    GP_TIME_END,   /* dmon: rounds interval_ms apart ending at the given end */
    GP_TIME_MTIME, /* dmon: ... ending at the file's modification time; dcmi, prom, nvsmi:
                      dated by it */
    GP_TIME_NOW,   /* dcmi, prom, nvsmi read from stdin without times: the import's time */
} gp_import_time;

typedef struct gp_import_result {
    size_t samples, gpus;
    size_t mig_instances; /* of gpus, the MIG instances (slices of a GPU, not GPUs) */
    bool dropped_blanks;  /* blank or placeholder values were dropped */
    gp_import_time time;
    int64_t first_ms, last_ms; /* dmon, prom, nvsmi: the span of the samples; dcmi: the
                                  reading's time */
    size_t undated;      /* prom, nvsmi: samples without a time of their own, dated at dated_ms */
    int64_t dated_ms;    /* prom, nvsmi: the file's modification time, or the import's (stdin) */
    int64_t interval_ms; /* dmon without own times */
    size_t rows, rounds, mapped; /* dmon: rows, sampling rounds, GPUs given a known UUID */
    gp_dcmi_reading dcmi;        /* dcmi: the reading as parsed */
    bool stored;                 /* dcmi: false for a deactivated reading (why says so) */
    char why[200]; /* dcmi: why nothing was stored, or why the BMC stamp was not used */
} gp_import_result;

/* Store a captured nvidia-smi CSV, /metrics scrape, dmon log or DCMI reading under a node.
 * The node's last success is its newest sample's time, so an old capture does not make its
 * GPUs look missing. A dmon log's GPU indexes take the UUIDs of the node's known GPUs. A
 * deactivated DCMI reading stores nothing and returns GP_OK with stored false and why set;
 * a DCMI reading is dated by the BMC's stamp when gp_dcmi_time_plausible, else by the file's
 * modification time (the import's time for stdin), as are a scrape's or an nvidia-smi CSV's
 * samples without timestamps of their own. A dmon log without its own times read from
 * stdin needs end_ms (GP_E_INPUT otherwise). */
gp_status gp_import_capture(gp_session *s, const gp_import_request *rq, gp_import_result *out,
                            gp_err *err);

/* One collection cycle over every node, in one transaction. */
gp_status gp_collect_once(gp_session *s, const gp_collect_opts *o, gp_cycle_stats *out,
                          gp_err *err);

/* `db check`: SQLite's integrity_check and every chunk decoded, its checksum verified; each
 * problem to fn (gp_store_check). `db stats`: what the database holds (gp_store_stats), and
 * where its bytes go, table by table, largest first (gp_store_space). */
gp_status gp_db_verify(gp_session *s, gp_check_fn fn, void *arg, gp_db_check *out, gp_err *err);
gp_status gp_db_stats_read(gp_session *s, gp_db_stats *out, gp_err *err);
gp_status gp_db_space(gp_session *s, int (*fn)(const char *table, long long bytes, void *),
                      void *arg, gp_err *err);

#endif
