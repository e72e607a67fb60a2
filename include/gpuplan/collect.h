/* Collection from the fleet (collector layer): one libcurl multi loop over every source with
 * a bounded number of transfers in flight, connect and total timeouts, a response size cap
 * and TLS verification; then one transaction per cycle into the store.
 *
 * Ownership: results are caller storage; gp_source_result_done frees each one's samples.
 * A source that hangs, errors or sends garbage gets its error recorded in its result and
 * never delays the others beyond the total timeout. */
#ifndef GPUPLAN_COLLECT_H
#define GPUPLAN_COLLECT_H

#include <signal.h>
#include <stddef.h>

#include "gpuplan/store_telemetry.h"
#include "gpuplan/samples.h"

/* More transfers in flight than this only add sockets and memory: --concurrency stops here. */
#define GP_COLLECT_MAX_CONCURRENCY 256

typedef struct gp_collect_opts {
    long connect_timeout_ms;     /* default 3 s, and at most a quarter of the cycle */
    long total_timeout_ms;       /* default 10 s: the whole cycle, nvidia-smi included */
    size_t max_bytes;            /* default 16 MiB per response */
    size_t max_in_flight_bytes;  /* default 128 MiB for all responses being received */
    int concurrency;             /* transfers in flight, default 64, at most 256 */
    int write_retries;           /* a failed cycle write is retried, 0.25 s, 0.5 s, 1 s apart */
    const char *nvsmi_path;      /* the local nvidia-smi, default "nvidia-smi" from PATH */
    const char *ipmitool_path;   /* the local ipmitool, default "ipmitool" from PATH */
    long raw_keep_ms;            /* retention of raw samples, default 48 h */
    long long rollup_keep_ms;    /* retention of rollups, default 365 days */
    volatile sig_atomic_t *stop; /* a signal handler's flag: a lock wait or a retry pause ends
                                    at once when set (NULL: none) */
} gp_collect_opts;

void gp_collect_opts_init(gp_collect_opts *o);

typedef struct gp_source_result {
    gp_status status;
    char error[256]; /* one line, no credentials */
    gp_samples samples;
    size_t bytes;
    double node_power_w; /* redfish, ipmi */
    bool has_node_power;
    gp_dcmi_reading dcmi; /* ipmi: the reading as parsed (min, max, average, period) */
} gp_source_result;

void gp_source_result_done(gp_source_result *r);

/* Fetch and parse every source once, concurrently. results has room for n entries. */
gp_status gp_collect_fetch(const gp_source_cfg *src, size_t n, const gp_collect_opts *o,
                           gp_source_result *results, gp_err *err);

typedef struct gp_cycle_stats {
    int nodes_ok, nodes_failed;
    size_t samples;
    double seconds;
} gp_cycle_stats;

/* One collection cycle over every node in the store: fetch, parse, and write everything in
 * one transaction with each node's status, the cycle's record and retention. A write that
 * fails (GP_E_DB: locked past the busy timeout, disk full) is retried o->write_retries times;
 * then the cycle is lost whole, what earlier cycles stored is untouched, and err says why. */
gp_status gp_collect_cycle(gp_store *st, const gp_collect_opts *o, gp_cycle_stats *out,
                           gp_err *err);

/* Store one source's parsed result for its node (used by imports and cycles alike). */
gp_status gp_collect_store_result(gp_store *st, long long node_id, const gp_source_result *r,
                                  int64_t now_ms, size_t *written, gp_err *err);

/* GP_OK when the token file at path can be read and only its owner can read it; GP_E_INPUT
 * when group or others may read it too (err says how to fix it), GP_E_IO when it cannot be
 * read. A front end shows this as a warning: the file is the user's to guard. */
gp_status gp_collect_token_file_check(const char *path, gp_err *err);

#endif
