/* The throughput table (db/008_throughput.sql) and the history of measured runs
 * (db/017_measured_api.sql, throughput_measurement): spec-derived estimates and measured figures of
 * work per GPU-hour by GPU model and profile. Only src/store calls SQLite.
 *
 * Ownership: rows handed to callbacks are borrowed for the call. Errors: GP_E_DB with the
 * database path and SQLite's message. */
#ifndef GPUPLAN_STORE_THROUGHPUT_H
#define GPUPLAN_STORE_THROUGHPUT_H

#include "gpuplan/store.h"
#include "gpuplan/throughput.h"

/* Insert or replace the row of (t->gpu, t->profile, t->kind). */
gp_status gp_store_put_throughput(gp_store *st, const gp_throughput *t, gp_err *err);
/* The same for every row in one transaction: all or none. */
gp_status gp_store_put_throughputs(gp_store *st, const gp_throughput *rows, int n, gp_err *err);
/* Replace every estimate of profile with rows (all estimates of it), in one transaction: a
 * spec that lost an input loses its estimate. */
gp_status gp_store_replace_estimates(gp_store *st, const char *profile, const gp_throughput *rows,
                                     int n, gp_err *err);
/* How many rows are estimates or published results: the rows a refresh derives (app
 * throughput.c checks them against what it would store). */
gp_status gp_store_derived_count(gp_store *st, long long *n, gp_err *err);
/* Rows ordered by GPU, profile, then measured, published, estimate; profile and gpu (NULL: any)
 * filter. A non-zero return from fn stops the walk. */
gp_status gp_store_throughputs(gp_store *st, const char *profile, const char *gpu,
                               int (*fn)(const gp_throughput *, void *), void *arg, gp_err *err);

/* Store a user's workload profile (db/018_workloads.sql) as its JSON text, replacing one of
 * the same name. */
gp_status gp_store_put_workload_profile(gp_store *st, const char *name, const char *json,
                                        const char *added, gp_err *err);
/* The stored workload profiles ordered by name (name NULL: all, else that one); fn gets the
 * name and the JSON text; a non-zero return stops the walk. */
gp_status gp_store_workload_profiles(gp_store *st, const char *name,
                                     int (*fn)(const char *name, const char *json, void *),
                                     void *arg, gp_err *err);
/* Store every figure of one run in one transaction: each replaces the measured row of its
 * (gpu, profile) and is added to the history; all or none. */
gp_status gp_store_put_measurements(gp_store *st, const gp_tp_measurement *m, int n, gp_err *err);
/* The history of (gpu, profile) (NULL: any), oldest first. */
gp_status gp_store_measurements(gp_store *st, const char *profile, const char *gpu,
                                int (*fn)(const gp_tp_measurement *, void *), void *arg,
                                gp_err *err);

#endif
