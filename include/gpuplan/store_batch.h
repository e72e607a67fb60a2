/* Batch runs in the store (src/store/store_batch.c, db/006_batch.sql): each run's summary as
 * written, with the catalog prices and measured figures it used, and the reads a later run or
 * `gpuplan diff` compares with.
 *
 * Ownership: *summary is the caller's to free(). Errors: GP_E_DB for SQLite failures,
 * GP_E_NOTFOUND when no run matches. */
#ifndef GPUPLAN_STORE_BATCH_H
#define GPUPLAN_STORE_BATCH_H

#include "gpuplan/batch_diff.h"
#include "gpuplan/store.h"

typedef struct gp_batch_record {
    const gp_batch_summary *summary; /* the figures recorded row by row */
    const char *summary_json;        /* summary.json as written */
    const char *out_dir;
    int flipped;
} gp_batch_record;

/* Record a run in one transaction; *id receives its id when not NULL. */
gp_status gp_store_batch_record(gp_store *st, const gp_batch_record *rec, long long *id,
                                gp_err *err);

/* The summary of the latest run on or before day (YYYY-MM-DD; NULL: the latest of all).
 * day_out (11 bytes) receives its day when not NULL. */
gp_status gp_store_batch_latest(gp_store *st, const char *day, char **summary, char *day_out,
                                gp_err *err);

/* A recorded run as gp_store_batch_runs_before hands it (valid during the call only). */
typedef struct gp_batch_run_ref {
    const char *day;        /* YYYY-MM-DD: the name of its folder */
    const char *started_at; /* YYYY-MM-DDTHH:MM:SSZ, also written in the folder's marker */
    const char *out_dir;    /* the folder it was written to, as recorded */
} gp_batch_run_ref;

/* Hand each run of days before `before` (YYYY-MM-DD) to f, oldest first; f returning non-zero
 * stops the walk (GP_OK all the same). */
gp_status gp_store_batch_runs_before(gp_store *st, const char *before,
                                     int (*f)(const gp_batch_run_ref *run, void *arg), void *arg,
                                     gp_err *err);

/* *yes: a run of `day` that started at `started_at` was recorded as written to out_dir. */
gp_status gp_store_batch_known(gp_store *st, const char *day, const char *started_at,
                               const char *out_dir, bool *yes, gp_err *err);

/* Forget the run of `day` started at `started_at` recorded at out_dir (its prices and figures
 * with it); *n receives how many runs went (0 or 1). */
gp_status gp_store_batch_forget(gp_store *st, const char *day, const char *started_at,
                                const char *out_dir, int *n, gp_err *err);

#endif
