/* One node per host for the history import (src/collect/history_hosts.c), internal to
 * src/collect/: each host's rows go into a node named by it, created when new with the server
 * as its Prometheus source and the import's selector narrowed to the host; a host's marks live
 * in its node, keyed by that source. Borrowed pointers; errors into err. */
#ifndef GPUPLAN_COLLECT_HISTORY_HOSTS_H
#define GPUPLAN_COLLECT_HISTORY_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/collect_history.h"
#include "gpuplan/prom_range.h"

typedef struct hist_hosts {
    gp_store *st;
    const gp_history_opts *o;
    const char *label;    /* the label hosts are named by: "Hostname", else "instance" */
    size_t nodes_created; /* nodes made for hosts new to the store */
    gp_err *err;
} hist_hosts;

/* "URL {match,LABEL=\"h\"}": what host h's marks are keyed by, into out. */
void hist_host_source(const hist_hosts *x, const char *h, char *out, size_t cap);

/* The node of host h, into *id; with create, made when new (else *has false when there is
 * none). */
gp_status hist_host_node(hist_hosts *x, const char *h, bool create, long long *id, bool *has);

/* A chunk's rows, each host's into its node (a batch per host), inside the caller's
 * transaction. GP_E_INPUT for a GPU that names no host. */
gp_status hist_write_per_host(hist_hosts *x, const gp_rollups *rows, size_t *written,
                              size_t *skipped);

#endif
