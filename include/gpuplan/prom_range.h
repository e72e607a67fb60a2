/* History from a Prometheus-compatible server: the /api/v1/query_range responses of the queries
 * `gpuplan import --prometheus` sends, turned into 5-minute rollup rows (formats layer: bytes in,
 * rows out, no I/O).
 *
 * The queries ask the server for each window's count, sum, min and max of a metric, every
 * aggregate tagged by a label (GP_RANGE_AGG_LABEL = "n" | "sum" | "min" | "max"), evaluated at
 * t = window end - 1 ms so that a point covers the milliseconds [t + 1 - step, t + 1). Points of
 * one GPU, metric and 5-minute bucket are merged (count and sum added, min and max kept).
 *
 * Ownership: a gp_rollups owns its GPUs (in gpus, a gp_samples used for its GPU index only) and
 * rows; gp_rollups_done frees them. The parser appends; on error the caller discards the batch. */
#ifndef GPUPLAN_PROM_RANGE_H
#define GPUPLAN_PROM_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"

#define GP_RANGE_AGG_LABEL "gpuplan_agg"
#define GP_BUCKET_MS 300000

typedef struct gp_rollup {
    int gpu; /* index into gpus.gpus */
    gp_metric metric;
    int64_t bucket_ms; /* a multiple of 5 minutes */
    long long n;       /* raw samples the server saw in the bucket */
    double sum, min, max;
    unsigned char have; /* which aggregates arrived: 1 n, 2 sum, 4 min, 8 max */
} gp_rollup;

typedef struct gp_rollups {
    gp_samples gpus;
    gp_rollup *r;
    size_t n, cap, limit;
    size_t blanks;          /* points that were NaN, +-Inf, DCGM blanks or beyond +-2^47 */
    size_t incomplete;      /* rows dropped because an aggregate was missing or blank */
    int64_t from_ms, to_ms; /* the window asked for; to_ms > from_ms: points outside dropped */
    size_t outside;         /* points dropped for lying outside [from_ms, to_ms) */
    size_t duplicates;      /* series dropped: the same GPU and aggregate twice in an answer */
    uint64_t *keys;         /* open addressing over (gpu, metric, bucket); slot = row + 1 */
    size_t *slots;
    size_t n_slots;
} gp_rollups;

/* An empty batch holding at most limit rows, with no window (every point's time is kept). */
void gp_rollups_init(gp_rollups *b, size_t limit);
void gp_rollups_done(gp_rollups *b);

/* Merge one row's aggregates into the batch (row of gpu, m and the bucket holding bucket_ms,
 * added when new): for tests, benchmarks and other sources of 5-minute rollups. GP_E_LIMIT
 * past the batch's limit, GP_E_INPUT for n < 1. */
gp_status gp_rollups_add(gp_rollups *b, int gpu, gp_metric m, int64_t bucket_ms, long long n,
                         double sum, double min, double max, gp_err *err);

/* Parse one query_range response for metric m (value_scale applied to sum, min and max: 100 for
 * a 0..1 ratio, 1e-3 for mJ) evaluated with step_ms, appending to out. http_status >= 400 or
 * "status": "error" fails with the server's errorType and text (the 11,000-points limit, a bad
 * selector); other malformed input names origin and the JSON path. GP_E_LIMIT past the limit.
 * A point outside out's window is counted in out->outside and dropped; a second series of the
 * same GPU and aggregate in one answer (a GPU scraped twice, a device metric repeated on each
 * MIG instance) is counted in out->duplicates and dropped: the first is kept, never a sum.
 * The same parser as the stream below, fed the whole buffer at once. */
gp_status gp_promrange_parse(const char *buf, size_t len, const char *origin, long http_status,
                             gp_metric m, double value_scale, int64_t step_ms, gp_rollups *out,
                             gp_err *err);

/* The same parse as the answer streams in: each series of $.data.result is parsed as soon as
 * its last byte arrives, then forgotten, so memory holds one series (at most max_series bytes of
 * its text) and the rest of the document (at most GP_RANGE_MAX_OUTSIDE bytes), never the
 * answer. Feed bytes in order with gp_promrange_feed, then gp_promrange_end once; the first
 * error sticks (later feeds return it). Rows go into out as series complete; on error the
 * caller discards out. gp_promrange_stream_done frees what the stream holds (after end, or to
 * abandon it). Ownership: origin and out are borrowed for the stream's life.
 *
 * A point stamped t stands for the step that starts at t - lead_ms: step_ms - 1 as init sets it
 * (the raw queries are evaluated 1 ms before their step ends). A caller whose points are
 * stamped otherwise sets lead_ms after init: the import's reads of recorded series stamp a
 * bucket's point 150 s past the bucket's end (lead 450 s, collect_history.c). */
#define GP_RANGE_MAX_OUTSIDE (1u << 20)
#define GP_RANGE_MAX_DEPTH 32

typedef struct gp_promrange_stream {
    const char *origin;
    long http_status;
    gp_metric m;
    double scale;
    int64_t step_ms;
    int64_t lead_ms; /* a point at t covers the step from t - lead_ms */
    gp_rollups *out;
    gp_buf skel;   /* the document without its series */
    gp_buf series; /* the series being received */
    gp_status status;
    gp_err err;
    int depth;                           /* containers open */
    char open[GP_RANGE_MAX_DEPTH];       /* '{' or '[' per level */
    bool want_key[GP_RANGE_MAX_DEPTH];   /* in an object, before a key */
    char key[GP_RANGE_MAX_DEPTH][12];    /* the last key per object level ("" past 11) */
    bool in_str, esc, is_key, in_series; /* string state; bytes going to series */
    char text[12];                       /* the string being read, when short */
    size_t text_len;
    char type[12];       /* data.resultType when seen */
    int results;         /* data.result arrays seen */
    int index;           /* the next series' index */
    unsigned char *seen; /* per GPU of out: the aggregates seen in this answer */
    size_t n_seen;
} gp_promrange_stream;

void gp_promrange_stream_init(gp_promrange_stream *s, const char *origin, long http_status,
                              gp_metric m, double value_scale, int64_t step_ms, size_t max_series,
                              gp_rollups *out);
gp_status gp_promrange_feed(gp_promrange_stream *s, const char *buf, size_t len, gp_err *err);
gp_status gp_promrange_end(gp_promrange_stream *s, gp_err *err);
void gp_promrange_stream_done(gp_promrange_stream *s);

/* Drop rows that lack one of the four aggregates (a series the server cut at a chunk edge) or
 * whose min or max is a DCGM blank; counts them in incomplete. Call once after parsing. */
void gp_rollups_finish(gp_rollups *b);

/* Roll MIG instances up to their physical GPU (gp_samples_mig_rollup's rule) per 5-minute
 * bucket: a GPU without utilization rows of its own gets, where its instances have them, one
 * row of n 1 whose value is the instances' bucket means weighted by gp_mig_weight. Call after
 * gp_rollups_finish. GP_E_LIMIT past the batch's limit. */
gp_status gp_rollups_mig_rollup(gp_rollups *b, gp_err *err);

/* A /api/v1/label/NAME/values response: *values gets *n NUL-terminated strings in one
 * allocation the caller frees with free(*values) (NULL when none, and on error). Errors as
 * gp_promrange_parse; GP_E_LIMIT past max_values. */
gp_status gp_promlabels_parse(const char *buf, size_t len, const char *origin, long http_status,
                              size_t max_values, char ***values, size_t *n, gp_err *err);

/* ---- /api/v1/query answers of `capacity --prometheus` (vectors and matrices) --------------- */

/* One point of a query answer: the GPU its labels name (an index into gpus.gpus, -1 when they
 * name none), its GP_RANGE_AGG_LABEL tag ("" when untagged), the value of the label asked for
 * (by; NULL when absent, owned by the batch), its time and its value (finite: NaN and +-Inf
 * points are counted in blanks, never kept). */
typedef struct gp_promvec_item {
    int gpu;
    char agg[16];
    char *by;
    int64_t t_ms;
    double v;
} gp_promvec_item;

typedef struct gp_promvec {
    gp_samples gpus;
    gp_promvec_item *it;
    size_t n, cap, limit;
    size_t blanks;
} gp_promvec;

/* An empty batch holding at most limit points. */
void gp_promvec_init(gp_promvec *b, size_t limit);
void gp_promvec_done(gp_promvec *b);

/* Parse a /api/v1/query or /api/v1/query_range answer (resultType vector or matrix), appending
 * its points to out; by_label (may be NULL) names the label whose value each point keeps. Errors
 * as gp_promrange_parse (the server's errorType and text for its refusals, origin and the JSON
 * path for malformed input); GP_E_LIMIT past the batch's limit. On error the caller discards
 * the batch. */
gp_status gp_promvec_parse(const char *buf, size_t len, const char *origin, long http_status,
                           const char *by_label, gp_promvec *out, gp_err *err);

#endif
