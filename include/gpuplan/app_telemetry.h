/* Telemetry as a user feeds it: nodes and their sources, captured files imported under a
 * node, a collection cycle over every node, and a node's sources tried once.
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

/* One fetch of every source of a node, nothing stored (`node test`). */
typedef struct gp_node_probe {
    gp_source_cfg *src;
    gp_source_result *result;
    size_t n;
} gp_node_probe;
gp_status gp_node_probe_run(gp_session *s, const char *name, gp_node_probe *out, gp_err *err);
void gp_node_probe_done(gp_node_probe *p);

typedef enum gp_capture_kind { GP_CAPTURE_NVSMI, GP_CAPTURE_PROM } gp_capture_kind;

typedef struct gp_import_request {
    gp_capture_kind kind;
    const char *file;   /* a path, or "-" for stdin */
    const char *node;   /* created when new */
    const char *fields; /* nvidia-smi: the columns of a noheader CSV, or NULL */
    const char *host;   /* nvidia-smi: the host it ran on; NULL: the node's name */
} gp_import_request;

typedef struct gp_import_result {
    size_t samples, gpus;
    bool dropped_blanks; /* blank or placeholder values were dropped */
} gp_import_result;

/* Store a captured nvidia-smi CSV or /metrics scrape under a node. The node's last success is
 * its newest sample's time, so an old capture does not make its GPUs look missing. */
gp_status gp_import_capture(gp_session *s, const gp_import_request *rq, gp_import_result *out,
                            gp_err *err);

/* One collection cycle over every node, in one transaction. */
gp_status gp_collect_once(gp_session *s, const gp_collect_opts *o, gp_cycle_stats *out,
                          gp_err *err);

#endif
