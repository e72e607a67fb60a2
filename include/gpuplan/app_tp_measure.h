/* Throughput measured where the fleet serves (`gpuplan throughput import --prometheus URL`,
 * docs/compare.md "Measured from the serving engine"): the serving engine's token counters
 * (vLLM, SGLang, TGI) over a window, each pod's tokens attributed to the GPUs it held through
 * the pod labels dcgm-exporter carries, stored per GPU model as the measured figure of a
 * profile counted in M tokens, with its source, window and busy share, and kept as history.
 *
 * The figure is tokens per busy GPU-hour (the work one busy GPU-hour does, as every throughput
 * is): the tokens a model's GPUs served divided by the 5-minute buckets in which they held a
 * serving pod and ran at >= 5 % utilization. A pod with token counters but no GPU series is
 * reported in the result and not counted; a pod on GPUs of two models has its tokens split by
 * the GPU-buckets it held on each.
 *
 * Ownership: the request's strings are borrowed; gp_tp_measure_result owns its arrays
 * (gp_tp_measure_result_done, safe on a zeroed one). Errors: GP_E_INPUT for a bad request
 * (no server, credentials in the URL, a profile not counted in M tokens, a selector not in
 * braces) or the server's refusal, or when no pod's tokens meet a GPU; GP_E_NOTFOUND for a
 * node without a Prometheus source; GP_E_NET, GP_E_LIMIT and the store's errors as they come.
 * Nothing is stored on failure. */
#ifndef GPUPLAN_APP_TP_MEASURE_H
#define GPUPLAN_APP_TP_MEASURE_H

#include <stdint.h>

#include "gpuplan/app_session.h"
#include "gpuplan/collect_history.h"
#include "gpuplan/store_throughput.h"

typedef enum gp_tok_count { GP_TOK_OUTPUT, GP_TOK_INPUT, GP_TOK_TOTAL } gp_tok_count;

typedef struct gp_tp_measure_request {
    const char *profile;
    const char *node;     /* NULL: opts.url; else the node's Prometheus source, whose selector
                             narrows the GPU series (its credentials and TLS settings used) */
    gp_history_opts opts; /* url; match narrows the token counters; credentials, timeouts */
    int64_t window_ms;    /* how far back from until_ms; rounded up to 5 minutes */
    int64_t until_ms;     /* the window's end, rounded down to 5 minutes */
    gp_tok_count count;   /* which counter: generated (default), prompt or both */
} gp_tp_measure_request;

void gp_tp_measure_request_init(gp_tp_measure_request *rq);

typedef struct gp_tp_measure_result {
    gp_tp_measurement *m; /* one figure per GPU model, stored */
    int n;
    gp_tp_pod *orphans; /* pods with tokens but no GPU series: not counted */
    size_t n_orphans;
    size_t pods;        /* pods with token counters */
    size_t idle_models; /* GPU models whose serving pods had no busy bucket or no tokens */
    size_t unnamed;     /* GPU-buckets whose series carry no modelName: not counted */
    char server[1024];
} gp_tp_measure_result;

gp_status gp_throughput_measure(gp_session *s, const gp_tp_measure_request *rq,
                                gp_tp_measure_result *out, gp_err *err);
void gp_tp_measure_result_done(gp_tp_measure_result *r);

/* The history of (gpu, profile) runs (NULL: any; the GPU normalized): *out is an array of *n
 * the caller frees (NULL when none). */
gp_status gp_throughput_history(gp_session *s, const char *profile, const char *gpu,
                                gp_tp_measurement **out, int *n, gp_err *err);

#endif
