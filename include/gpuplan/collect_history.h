/* History import from a Prometheus-compatible server (collector layer,
 * src/collect/collect_history.c): the fleet's past through /api/v1/query_range, aggregated by the
 * server to the 5-minute buckets gpuplan stores, written straight into the rollups.
 *
 * The work is cut into chunks: the hosts (Hostname label) in groups of hosts_per_query, the time
 * in spans of at most max_points points per series whose rows fit the memory budget
 * (GP_HISTORY_MEMORY). Answers are parsed as they stream. A chunk is one query per metric, sent
 * through one libcurl multi handle with at most `concurrency` in flight, and is committed whole
 * with the marks that say how far each (source, metric, host) is imported; a host group's chunks
 * are committed in time order, so a mark never skips a hole. A re-run asks only for what is
 * past the marks. Ownership: everything is borrowed; results are caller storage. */
#ifndef GPUPLAN_COLLECT_HISTORY_H
#define GPUPLAN_COLLECT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/store.h"
#include "gpuplan/xmem.h"

/* Whether the series of gpuplan's recording rules are read instead of the raw dcgm-exporter
 * ones: when the server has them for the window (gp_history_coverage), always, or never. */
typedef enum { GP_REC_AUTO, GP_REC_YES, GP_REC_NO } gp_recorded;

typedef struct gp_history_opts {
    /* Each host (the GPUs' Hostname, hostname or instance label) into a node of its name,
     * created when new with the server as its Prometheus source (the selector narrowed to the
     * host); node_id is then unused and a host's marks live under its node. */
    bool per_host;

    const char *url;            /* the server's base URL (http or https, no credentials in it) */
    const char *match;          /* a label selector "{job=\"dcgm\"}", or "" */
    const char *token_file;     /* a bearer token, or "" */
    const char *cacert;         /* a CA bundle, or "" */
    bool insecure;              /* skip TLS verification (explicit opt-in) */
    const char *org_id;         /* X-Scope-OrgID for multi-tenant Mimir/Cortex, or "" */
    int64_t since_ms, until_ms; /* the window; widened and cut to whole hours */
    int64_t step_ms;            /* query resolution, dividing 5 minutes; default 5 minutes */
    int max_points;             /* the server's limit per series and query, default 11,000 */
    int hosts_per_query;        /* default 8 */
    int concurrency;            /* queries in flight, default 4 */
    long connect_timeout_ms;    /* default 5 s */
    long total_timeout_ms;      /* per query, default 120 s */
    size_t max_bytes;           /* per response, default 256 MiB (and less: see below) */
    size_t max_memory;          /* for everything the import holds at once: GP_HISTORY_MEMORY */
    /* The import's series: those of contrib/prometheus/gpuplan-history.rules.yml (at a 5-minute
     * step, whatever step_ms says) or the raw ones; default GP_REC_AUTO. */
    gp_recorded recorded;
} gp_history_opts;

/* The import's one memory budget (512 MiB): half for the 5-minute rows of the chunks open at
 * once (a chunk spans what its rows fit in, at 16 GPUs a host), a quarter for the series being
 * received; answers are parsed as they stream, never held whole, and one is cut off past four
 * times what its hosts' GPUs could send. A limit hit is refused naming the query and
 * --hosts-per-query and --max-points; capacity --prometheus holds at most a quarter of it in
 * answers. */
#define GP_HISTORY_MEMORY ((size_t)512 << 20)

void gp_history_opts_init(gp_history_opts *o);

typedef struct gp_history_progress {
    size_t chunks_done, chunks_total;
    size_t queries, bytes;
    size_t rows_written; /* 5-minute rows stored */
    size_t rows_skipped; /* rows of buckets stored already (never stored twice) */
    size_t gpus;         /* GPUs seen in the chunks done */
    size_t outside;      /* points the server sent for times outside the chunk asked for */
    size_t chunks_held;  /* chunks stored but not marked imported (points outside came) */
    size_t duplicates;   /* series of a GPU sent twice in one answer: the first kept */
    size_t blanks;       /* points with no reading: NaN, +-Inf, DCGM blanks, beyond +-2^47 */
    size_t incomplete;   /* 5-minute rows dropped: an aggregate missing, blank or impossible */
    double seconds;

    size_t hosts;         /* hosts listed (per_host: a node each) */
    bool recorded;        /* the recorded series were read, not the raw ones */
    char series[320];     /* which series were read and why, for the output */
    size_t nodes_created; /* per_host: nodes made for hosts new to the store */
} gp_history_progress;

/* Import into node_id (its marks keyed by url and match). progress (may be NULL) is called after
 * each committed chunk and returns non-zero to stop early (GP_OK, what is committed stays).
 * Only points inside each chunk's window are stored; a chunk that got others is not marked (nor
 * any later chunk of its host group), so a re-run asks again: out->outside says so.
 * *out says what was done, on failure too: GP_E_INPUT for the server's refusal (a bad selector,
 * over its limits), a URL with credentials, a token file or --org-id with a control character;
 * GP_E_LIMIT past the memory budget or an answer's cap (the query named); GP_E_IO for a token
 * file that cannot be read; GP_E_NET for the network, GP_E_DB for the store; committed chunks
 * remain. */
gp_status gp_history_import(gp_store *st, long long node_id, const gp_history_opts *o,
                            int (*progress)(const gp_history_progress *, void *), void *arg,
                            gp_history_progress *out, gp_err *err);

/* The recording rules of the series the import reads when the server has them
 * (contrib/prometheus/gpuplan-history.rules.yml is this text): per GPU (or MIG instance),
 * metric and 5 minutes the count, sum, min and max the raw queries ask for, built from the same
 * table. Appended to out; GP_E_LIMIT when out's limit is too small. */
gp_status gp_history_rules_yaml(gp_buf *out);

/* How far the series `recorded` (a rule's record name) cover o's window (o->match): the GPUs
 * (by Hostname, instance, UUID and gpu, so that a pod's labels do not count one GPU twice)
 * with a point of it and those with a raw DCGM_FI_DEV_GPU_UTIL sample in each of up to
 * GP_COVERAGE_PROBES hours spread evenly from the one ending at first_ms to the one ending at
 * last_ms. covered: some GPU has the recorded series, and in no hour asked about do fewer GPUs
 * have it than have the raw one (an hour with neither says nothing against: a window may reach
 * past the fleet's history). Reading absent recorded series would lose what the raw ones hold,
 * so the hours are spread through the window, not only at its ends. Where not covered: the
 * first hour they fall short in (at_ms its end, rec and raw its counts) and why, the sentence
 * that says so. Errors as gp_history_query, GP_E_INPUT for the server's refusal. */
#define GP_COVERAGE_PROBES 8
typedef struct gp_rec_coverage {
    double rec, raw;
    int64_t at_ms;
    bool covered;
    char why[200];
} gp_rec_coverage;

gp_status gp_history_coverage(const gp_history_opts *o, const char *recorded, int64_t first_ms,
                              int64_t last_ms, gp_rec_coverage *out, gp_err *err);

/* One query of `capacity --prometheus`: /api/v1/query at time_ms, or /api/v1/query_range from
 * time_ms to end_ms by step_ms when range. The answer's body and HTTP status are filled in. */
typedef struct gp_prom_call {
    const char *query;
    bool range;
    int64_t time_ms, end_ms, step_ms;
    gp_buf body; /* out: the answer (initialised and owned by the call; gp_buf_done) */
    long http_status;
} gp_prom_call;

/* Send calls[0..n) with o's server, credentials, TLS settings and timeouts, at most
 * o->concurrency at once through one libcurl multi handle. GP_OK when every answer arrived (an
 * HTTP error is an answer: its body is for the parser); GP_E_NET for the network (a timeout, a
 * refused connection); GP_E_LIMIT for an answer past its cap (a fortieth of half the budget) or
 * all of them past a quarter of the budget, naming the query; GP_E_INPUT or GP_E_IO for the
 * credentials (as gp_history_import); the rest then cancelled. Bodies are freed by the caller
 * with gp_buf_done, on failure too. */
gp_status gp_history_query(const gp_history_opts *o, gp_prom_call *calls, size_t n, gp_err *err);

/* The series selector the import sends: match ("{job=\"dcgm\"}" or "") with a Hostname
 * matcher for hosts[0..n_hosts) added when n_hosts > 0, appended to out. */
void gp_history_selector(const char *match, char *const *hosts, size_t n_hosts, gp_buf *out);

/* The values of label among the series of o->match plus the matchers extra ("__name__=\"X\"")
 * between o->since_ms and o->until_ms: /api/v1/label/LABEL/values. *values as
 * gp_history_hosts'; errors as gp_history_query, and GP_E_INPUT for the server's refusal. */
gp_status gp_history_label_values(const gp_history_opts *o, const char *label, const char *extra,
                                  char ***values, size_t *n, gp_err *err);

/* The hosts (Hostname values) with GPU utilization between o->since_ms and o->until_ms, as the
 * import lists them; *hosts is one allocation the caller frees (NULL when none). Errors as
 * gp_history_query, and GP_E_INPUT for the server's refusal. */
gp_status gp_history_hosts(const gp_history_opts *o, char ***hosts, size_t *n, gp_err *err);

#endif
