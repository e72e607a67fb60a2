/* Batch reports (`gpuplan batch`, `gpuplan diff`): every saved scenario (or those named)
 * evaluated against today's catalog and measured telemetry into OUT/YYYY-MM-DD (UTC) — per
 * scenario its md, csv, json and xlsx reports, the fleet and capacity reports, summary.json,
 * changes.json and index.html — written to a temporary folder and renamed into place whole;
 * the run recorded in the database and compared with the previous one (or one named).
 *
 * Ownership: a gp_batch_outcome owns its summary and diff; free with gp_batch_outcome_done
 * (safe on a zeroed one). Errors: GP_E_INPUT for bad options, an unknown scenario name, or an
 * unreadable earlier summary (its path named); GP_E_IO for the folders and files (path named);
 * the store's errors as it reports them. On failure nothing is left in OUT but what was there.
 *
 * Safety: gpuplan only ever replaces or removes a folder that holds its marker file
 * (GP_BATCH_MARKER) naming a run this database recorded in that very folder. A folder of
 * today's name without one is refused (GP_E_INPUT), never replaced. */
#ifndef GPUPLAN_APP_BATCH_H
#define GPUPLAN_APP_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/app_session.h"
#include "gpuplan/batch_diff.h"

/* The exit status a front end gives a run in which a decision flipped (0 and 1, 2 as ever). */
#define GP_EXIT_FLIPPED 3

/* The file in each run folder that says gpuplan wrote it: "gpuplan batch run", the day and the
 * start, one a line. */
#define GP_BATCH_MARKER ".gpuplan-batch-run"

typedef struct gp_batch_opts {
    const char *out_dir;
    const char *const *names; /* the scenarios to report; n_names 0: every saved one */
    int n_names;
    int jobs;             /* evaluations in parallel; 0: one per online CPU */
    const char *since;    /* compare with the latest run on or before this day; NULL: previous */
    const char *against;  /* compare with this run folder (its summary.json) instead */
    double threshold_pct; /* totals moving by more than this (relative %) are changes */
    int keep_days;        /* runs older than this many days are pruned; 0: keep every run */
    /* Told after each scenario is written (from a worker thread, one call at a time). */
    void (*progress)(size_t done, size_t total, const char *name, void *arg);
    void *progress_arg;
} gp_batch_opts;

/* Defaults: one job a CPU, threshold 1 %, keep 90 days. */
void gp_batch_opts_init(gp_batch_opts *o, const char *out_dir);

typedef struct gp_batch_outcome {
    char dir[4096]; /* the run's folder */
    gp_batch_summary summary;
    bool compared;      /* diff holds the comparison */
    char against[4200]; /* what it was compared with: "the run of DAY" or a folder */
    gp_batch_diff diff;
    bool fleet; /* telemetry was found for the fleet reports */
    /* summary.json would have passed GP_BATCH_SUMMARY_MAX_BYTES with the scenarios' inputs, so
     * it keeps none: the next run's comparison names no edited input. */
    bool inputs_dropped;
    /* Runs older than keep_days: their records are forgotten; a run's folder is removed only
     * when it is a real folder (no symbolic link) that still holds the marker this run wrote
     * (day and start as recorded in this database). */
    int forgotten;  /* records forgotten */
    char **removed; /* the folders removed */
    size_t n_removed;
    char **kept; /* folders of forgotten runs that exist but were left: no matching marker */
    size_t n_kept;
} gp_batch_outcome;

gp_status gp_batch_run(gp_session *s, const gp_batch_opts *o, gp_batch_outcome *out, gp_err *err);
void gp_batch_outcome_done(gp_batch_outcome *out);

/* `gpuplan diff A B`: each side a run folder, a summary.json, a recorded run's day, or a
 * scenario (file or stored name, evaluated today); the diff of B against A. label_a and
 * label_b (256 bytes each) say what each side was. */
gp_status gp_batch_compare(gp_session *s, const char *a, const char *b, double threshold_pct,
                           gp_batch_diff *out, char *label_a, char *label_b, gp_err *err);

#endif
