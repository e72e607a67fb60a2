/* GPU telemetry: canonical metrics, the samples a parser produces, and the parsers of the four
 * sources (formats layer: bytes in, samples out, no I/O).
 *
 * Ownership: a gp_samples owns its GPUs, samples and label sets; gp_samples_done frees them.
 * Parsers append to a caller-initialised gp_samples; on GP_E_INPUT (unreadable input) they
 * leave what they had appended before the error, and the caller discards the whole batch. */
#ifndef GPUPLAN_SAMPLES_H
#define GPUPLAN_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

typedef enum gp_metric {
    GP_M_GPU_UTIL, /* % busy (DCGM GPU_UTIL, or GR_ENGINE_ACTIVE x 100 under MIG) */
    GP_M_MEM_USED_MIB,
    GP_M_MEM_TOTAL_MIB,
    GP_M_POWER_W,
    GP_M_TEMP_C,
    GP_M_ENERGY_J, /* counter since driver load; resets on reload */
    GP_M_SM_CLOCK_MHZ,
    GP_M_POWER_LIMIT_W,
    GP_M_NODE_POWER_W, /* wall power of the whole server (Redfish) */
    GP_M_COUNT
} gp_metric;

/* "gpu_util", "mem_used_mib", ... (docs/architecture.md, Collection); -1 if unknown. */
const char *gp_metric_name(gp_metric m);
int gp_metric_from_name(const char *name);

typedef struct gp_gpu_ref {
    char uuid[96];                 /* the physical GPU's UUID ("" when the source gives none) */
    int index;                     /* the GPU's index on its host, -1 if unknown */
    char mig[32];                  /* MIG instance ("GI 1/1g.10gb"), "" for the whole GPU */
    char model[GP_GPU_NAME_BYTES]; /* catalog name */
    char raw_model[96];
    char host[128];
    int label_set; /* 1 + a label set of the batch that is part of its identity (the history
                      import keeps a series per GPU and workload labels); 0: none */
} gp_gpu_ref;

typedef struct gp_sample {
    int gpu; /* index into gpus, or -1 for a node-level metric */
    gp_metric metric;
    double value;
    int64_t ts_ms; /* 0: the source gave no time; the collection time applies */
    int labels;    /* index into label_sets (workload labels as JSON), -1 for none */
} gp_sample;

typedef struct gp_samples {
    gp_gpu_ref *gpus;
    size_t n_gpus, cap_gpus;
    gp_sample *s;
    size_t n, cap, limit;
    char **label_sets;
    size_t n_labels, cap_labels;
    size_t blanks;     /* DCGM blank sentinels and placeholders dropped */
    size_t duplicates; /* MIG repeats of a device-level value dropped */
    /* Open-addressing indexes (slot = entry + 1, 0 = empty) so a fleet-wide batch of
     * thousands of GPUs and label sets stays linear. */
    unsigned *gpu_index, *label_index;
    size_t gpu_slots, label_slots;
} gp_samples;

void gp_samples_init(gp_samples *s, size_t limit);
void gp_samples_done(gp_samples *s);
/* The index of the GPU (uuid, index, mig), added when new; model/host fill blanks. */
int gp_samples_gpu(gp_samples *s, const char *uuid, int index, const char *mig,
                   const char *raw_model, const char *host);
/* As gp_samples_gpu, with a label set (gp_samples_labels' index, -1 for none) that tells apart
 * entries of one GPU: an entry per GPU and workload labels. */
int gp_samples_gpu_labeled(gp_samples *s, const char *uuid, int index, const char *mig,
                           const char *raw_model, const char *host, int labels);
/* The index of a label set (a JSON object text), interned. */
int gp_samples_labels(gp_samples *s, const char *json);
gp_status gp_samples_add(gp_samples *s, int gpu, gp_metric m, double value, int64_t ts_ms,
                         int labels, gp_err *err);

/* A MIG instance's share of its physical GPU: its profile's compute slices over the GPU's
 * ("GI 1 3g.40gb" on an H100: 3/7; the A30 has 4 slices, the others 7). 1 for the whole GPU
 * (mig "" or NULL); a profile that cannot be read counts as one slice. */
double gp_mig_weight(const char *mig, const char *model);

/* Roll MIG instances up to their physical GPU: a GPU with no utilization of its own whose
 * instances report some gets one utilization sample, the instances' weighted by
 * gp_mig_weight (an unused slice counts as idle), at the first instance's time, per fetch
 * whatever the instances' own times: in time order, a GPU's sample ends where one of its
 * instances comes again (a saved scrape's next fetch). The instances' own samples stay
 * (per-instance rows, chargeback). */
void gp_samples_mig_rollup(gp_samples *s);

/* A label dcgm-exporter attaches that names a workload: Kubernetes' namespace, pod and
 * container, and anything naming a job (HPC schedulers), but not the scrape's own "job". */
bool gp_workload_label(const char *name);

/* True for DCGM's blank sentinels (int32, int64 and fp64 "blank" families): not readings. */
bool gp_dcgm_is_blank(double v, bool is_counter);

/* ---- Prometheus text exposition --------------------------------------------------------- */

#define GP_PROM_MAX_LABELS 64

typedef struct gp_prom_label {
    const char *name, *value; /* NUL-terminated, borrowed for the callback */
} gp_prom_label;

typedef struct gp_prom_sample {
    const char *name;
    int n_labels;
    gp_prom_label labels[GP_PROM_MAX_LABELS];
    double value;
    bool has_ts;
    int64_t ts_ms;
    const char *type; /* from # TYPE, "" when absent */
    int line;
} gp_prom_sample;

/* Parse the text exposition format: HELP/TYPE optional, labels in any order with \\ \" \n
 * escapes and optional spaces, values as integers, floats, exponents, NaN and +-Inf,
 * optional timestamps, LF or CRLF. fn is called per sample; a non-zero status from fn stops
 * the parse. Errors name origin:line. */
gp_status gp_prom_text_parse(const char *buf, size_t len, const char *origin,
                             gp_status (*fn)(const gp_prom_sample *, void *, gp_err *), void *arg,
                             gp_err *err);

/* dcgm-exporter /metrics (or any saved scrape of it) into canonical samples. */
gp_status gp_dcgm_parse(const char *buf, size_t len, const char *origin, gp_samples *out,
                        gp_err *err);

/* ---- Prometheus HTTP API ----------------------------------------------------------------- */

/* A /api/v1/query or /query_range response body: each sample of a vector, matrix or scalar
 * result goes to out as metric m (value_scale applied: 100 for a 0..1 ratio), keyed to the GPU
 * its labels name (UUID or gpu + Hostname). http_status >= 400 or "status": "error" fails with
 * the server's errorType and error text. NaN and +-Inf are no readings (counted as blanks). */
gp_status gp_promapi_parse(const char *buf, size_t len, const char *origin, long http_status,
                           gp_metric m, double value_scale, gp_samples *out, gp_err *err);

/* ---- nvidia-smi --query-gpu CSV ----------------------------------------------------------- */

/* With a header line, or (noheader) with fields naming the columns ("index,uuid,..."; NULL
 * when the input has its header). Units in the header or the values are understood;
 * [N/A], [Not Supported] and other bracketed placeholders are absent values. host names the
 * machine the capture came from. */
gp_status gp_nvsmi_parse(const char *buf, size_t len, const char *origin, const char *fields,
                         const char *host, gp_samples *out, gp_err *err);

/* ---- Redfish ------------------------------------------------------------------------------- */

/* A chassis power document: legacy Power (sum of PowerControl[].PowerConsumedWatts),
 * EnvironmentMetrics (PowerWatts.Reading), a Sensor (Reading in W) or PowerSupply metrics
 * (InputPowerWatts.Reading). *watts gets the wall power. */
gp_status gp_redfish_parse(const char *buf, size_t len, const char *origin, double *watts,
                           gp_err *err);

/* ---- nvidia-smi dmon ---------------------------------------------------------------------------
 */

typedef struct gp_dmon_opts {
    const char *host;        /* the machine the log came from */
    int64_t end_ms;          /* a log without -o T: the time of its last round of rows */
    int64_t interval_ms;     /* a log without -o T: the -d interval between rounds (> 0) */
    const gp_gpu_ref *known; /* GPUs the node already has: a row of index i takes the UUID, */
    size_t n_known;          /* host and model of the known whole GPU with index i */
} gp_dmon_opts;

typedef struct gp_dmon_info {
    bool own_time; /* the rows carried -o DT (or T) times */
    size_t rows;   /* data rows read */
    size_t rounds; /* sampling rounds (one row per GPU each) */
    size_t mapped; /* GPUs given a known UUID */
    int64_t first_ms, last_ms;
} gp_dmon_info;

/* `nvidia-smi dmon` output with any -s selection and -o D/T, old and new column sets (pwr,
 * temp/gtemp, sm, fb, pclk are read; the rest are understood and skipped), "-" for a value
 * the GPU does not report, headers repeated or changed mid-log. Rows without their own time
 * are one interval_ms apart, the last round at end_ms; a round ends where a GPU index comes
 * again. Errors name origin:line. info may be NULL. */
gp_status gp_dmon_parse(const char *buf, size_t len, const char *origin, const gp_dmon_opts *o,
                        gp_samples *out, gp_dmon_info *info, gp_err *err);

/* ---- IPMI DCMI
 * ----------------------------------------------------------------------------------- */

typedef struct gp_dcmi_reading {
    bool active;                       /* "Power reading state is: activated" */
    double watts, min_w, max_w, avg_w; /* instantaneous, and over the sampling period */
    bool has_min, has_max, has_avg;
    int64_t bmc_ms;    /* the BMC's timestamp as printed, local time; 0 when absent */
    char bmc_text[48]; /* that timestamp as printed ("" when absent) */
    int64_t period_ms; /* the sampling period, -1 when not given */
} gp_dcmi_reading;

/* `ipmitool dcmi power reading` output (ipmitool 1.8.18's ctime timestamp and 1.8.19's numeric
 * one, whose line runs into "Sampling period"; "key : value" spacing of other tools). The
 * instantaneous reading and the state are required. A deactivated reading parses (active
 * false): the caller must not store it. Errors name origin:line. */
gp_status gp_dcmi_parse(const char *buf, size_t len, const char *origin, gp_dcmi_reading *r,
                        gp_err *err);

/* Whether a BMC timestamp can date the reading: after 2001, and no more than a day after
 * now_ms (a BMC whose clock was never set says 1970). */
bool gp_dcmi_time_plausible(int64_t bmc_ms, int64_t now_ms);

#endif
