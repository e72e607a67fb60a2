/* Throughput figures: work per GPU-hour by GPU model and workload profile (docs/compare.md),
 * and the CSV a user imports measured figures from. Formats layer: bytes in, rows out through
 * a callback, no I/O.
 *
 * The CSV has a header naming at least the columns gpu, profile, value, unit and source (in
 * any order; date is optional, YYYY-MM-DD) and one figure a record. The whole file is checked:
 * a missing column, an empty field, a value that is not a finite number above 0, a bad date or
 * a repeated (gpu, profile) pair fails with GP_E_INPUT naming origin:line and the column, and
 * nothing is handed on past the first error (the caller imports only after a clean parse).
 *
 * Ownership: rows are borrowed for the callback. */
#ifndef GPUPLAN_THROUGHPUT_H
#define GPUPLAN_THROUGHPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

#define GP_PROFILE_BYTES 48
#define GP_WORK_UNIT_BYTES 48
#define GP_TP_SOURCE_BYTES 1024

/* A published result (bundled, dated, with its source) ranks between the two: a measured
 * figure beats it, it beats an estimate. */
typedef enum gp_tp_kind { GP_TP_ESTIMATE, GP_TP_MEASURED, GP_TP_PUBLISHED } gp_tp_kind;

typedef struct gp_throughput {
    char gpu[GP_GPU_NAME_BYTES]; /* the catalog GPU name (gp_gpu_normalize) */
    char profile[GP_PROFILE_BYTES];
    gp_tp_kind kind;
    double value; /* work units per GPU-hour, > 0 */
    char unit[GP_WORK_UNIT_BYTES];
    char source[GP_TP_SOURCE_BYTES];
    char as_of[11]; /* YYYY-MM-DD, "" when the CSV gives no date */
    int line;       /* the CSV line (0 when not from a CSV) */
} gp_throughput;

const char *gp_tp_kind_name(gp_tp_kind k); /* "estimate", "measured", "published" */

/* Parse a throughput CSV (kind GP_TP_MEASURED): every row to fn (a non-zero return stops the
 * read and is returned; fn fills err). */
gp_status gp_throughput_csv_parse(const char *buf, size_t len, const char *origin,
                                  gp_status (*fn)(const gp_throughput *, void *, gp_err *),
                                  void *arg, gp_err *err);

/* One `throughput import --prometheus` figure with what it was measured from. */
typedef struct gp_tp_measurement {
    gp_throughput t;      /* kind GP_TP_MEASURED: the figure in force after the run */
    char engine[64];      /* "vllm", "sglang", "tgi", or several comma-separated */
    char counted[8];      /* "output", "input", "total" */
    char window_from[24]; /* YYYY-MM-DDTHH:MM:SSZ */
    char window_to[24];
    double tokens;     /* the tokens counted on this model's GPUs */
    double gpu_hours;  /* > 0 */
    double busy_share; /* 0..1: 5-minute buckets at >= 5 % utilization */
    double mean_util;  /* % */
    int pods;
    char measured_at[24]; /* set by the store when read back */
} gp_tp_measurement;

typedef struct gp_tp_pod {
    char *name;        /* "namespace/pod" as the labels say */
    char engine[8];    /* vllm, sglang, tgi */
    double tokens;     /* counted as the request asked */
    long long buckets; /* 5-minute GPU-buckets held */
} gp_tp_pod;

#endif
