/* The fleet's past from its Prometheus-compatible store, as a user asks for it
 * (`gpuplan import --prometheus URL --since 90d`): which node it goes under, which server and
 * selector, then the chunked import of gpuplan/collect_history.h.
 *
 * Ownership: the request's strings are borrowed; the result is caller storage. Errors:
 * GP_E_INPUT for a bad request (no server, credentials in the URL, an empty window) or the
 * server's refusal, GP_E_NOTFOUND for a node without a Prometheus source, GP_E_NET, GP_E_DB. */
#ifndef GPUPLAN_APP_HISTORY_H
#define GPUPLAN_APP_HISTORY_H

#include "gpuplan/app_session.h"
#include "gpuplan/collect_history.h"

typedef struct gp_history_request {
    const char *node;     /* NULL (with url): one node per host (Hostname, else instance
                             label), named by it and created when new with the server as its
                             Prometheus source; else everything goes into this node */
    const char *url;      /* NULL: the node's own Prometheus source */
    const char *match;    /* NULL: the source's selector (or none) */
    gp_history_opts opts; /* the window, step and limits; url and match are filled in */
} gp_history_request;

typedef struct gp_history_result {
    gp_history_progress p;
    char node[128]; /* "" with per_host */
    bool created;   /* the node was made for this import */
    bool per_host;  /* a node per host: p.hosts and p.nodes_created say how many */
} gp_history_result;

/* Import the window of rq into its node; progress as gp_history_import. On failure *out still
 * says what was committed before it (a re-run resumes from there). */
gp_status gp_history_run(gp_session *s, gp_history_request *rq,
                         int (*progress)(const gp_history_progress *, void *), void *arg,
                         gp_history_result *out, gp_err *err);

#endif
