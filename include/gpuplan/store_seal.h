/* Sealing in the store (src/store/store_seal.c): the step of a sample's life that moves a day
 * that is over from rows into chunks (docs/architecture.md, "A sample's life").
 *
 * Ownership: nothing is handed over. Errors: GP_E_DB for SQLite failures; a failed call leaves
 * the rows as they were (the caller's transaction rolls back). */
#ifndef GPUPLAN_STORE_SEAL_H
#define GPUPLAN_STORE_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/store.h"

/* Seal the days that are over (docs/architecture.md, "A sample's life"): the rows of every UTC
 * day that ended an hour or more before now_ms move into that day's chunks, and the boundary
 * readers split rows from chunks at moves past it. Each series' 5-minute and hourly rollups
 * and capacity hours, for at most 4000 series a call (the rest on later calls,
 * so the cycle after midnight does not carry the whole fleet's day at once); the fleet's
 * 5-minute buckets, all at once. Readers get the same figures before and after. A collector
 * runs it every cycle, after retention, inside the cycle's transaction. *sealed (unless
 * NULL): how many series this call sealed. */
gp_status gp_store_seal_days(gp_store *st, int64_t now_ms, size_t *sealed, gp_err *err);

#endif
