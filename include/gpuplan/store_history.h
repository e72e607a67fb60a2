/* Imported history in the store (src/store/store_history.c): 5-minute rollup rows written
 * straight into rollup_5m, rollup_1h and the capacity rollups, with no raw samples, and the marks
 * that say how far each source, metric and host has been imported (db/006_history.sql).
 *
 * Ownership: arguments are borrowed. Errors: GP_E_DB for SQLite, with the database's path. */
#ifndef GPUPLAN_STORE_HISTORY_H
#define GPUPLAN_STORE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/prom_range.h"
#include "gpuplan/store.h"

/* Write a batch of rollup rows under node_id, inside the caller's transaction (a savepoint: on
 * error nothing of the batch stays). A (series, bucket) already stored is never stored twice:
 * the stored row wins and the row is counted in *skipped, not *written; the capacity rollups of
 * the hours touched are kept exact either way. The GPUs are recorded as seen over their rows. */
gp_status gp_store_rollups_write(gp_store *st, long long node_id, const gp_rollups *b,
                                 size_t *written, size_t *skipped, gp_err *err);

/* How far (source, metric, host) of node_id is imported: *has false when never. node_id 0:
 * the earliest such mark of any node. */
gp_status gp_store_history_mark(gp_store *st, long long node_id, const char *source,
                                gp_metric metric, const char *host, bool *has, int64_t *done_ms,
                                gp_err *err);

/* Record that every bucket of (source, metric, host) before done_ms is imported; a mark never
 * moves back. Runs inside the caller's transaction, beside the rows it vouches for. */
gp_status gp_store_history_mark_set(gp_store *st, long long node_id, const char *source,
                                    gp_metric metric, const char *host, int64_t done_ms,
                                    gp_err *err);

#endif
