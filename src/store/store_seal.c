/* Sealing, one step of a sample's life (docs/architecture.md, "A sample's life"): the rows of
 * the days that are over move into day chunks, a series' rollups (store_chunks.c) and its
 * capacity hours (store_hours.c), then the fleet's buckets (store_fleet.c). It calls those
 * files and none of them calls it. */
#include <stdint.h>
#include <stdlib.h>

#include "gpuplan/store_seal.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char SQL_TO_SEAL[] = "SELECT id FROM series WHERE sealed_ms < ?1 LIMIT ?2";

gp_status store_seal_series(gp_store *st, long long series, int64_t before_ms, gp_err *err) {
    before_ms = store_day_of(before_ms);
    int64_t sealed;
    if (store_sealed_ms(st, series, &sealed, err))
        return err->code;
    if (sealed >= before_ms)
        return GP_OK;
    if (store_chunks_seal(st, series, before_ms, err))
        return err->code;
    /* A utilization series' capacity hours of those days go with them (store_hours.c). */
    return store_hours_seal(st, series, before_ms, err);
}

gp_status store_seal(gp_store *st, int64_t before_ms, size_t max_series, size_t *sealed,
                     gp_err *err) {
    *sealed = 0;
    before_ms = store_day_of(before_ms);
    long long *ids = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_TO_SEAL, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, before_ms);
    sqlite3_bind_int64(s, 2, max_series > INT64_MAX ? INT64_MAX : (sqlite3_int64)max_series);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        ids = gp_xgrow(ids, &cap, n, sizeof *ids, 256);
        ids[n++] = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "find days to seal");
    for (size_t i = 0; i < n && res == GP_OK; i++)
        res = store_seal_series(st, ids[i], before_ms, err);
    free(ids);
    if (res == GP_OK)
        *sealed = n;
    return res;
}

gp_status gp_store_seal_days(gp_store *st, int64_t now_ms, size_t *sealed, gp_err *err) {
    size_t n = 0;
    /* A bounded number of series a call: the cycle after midnight would else carry the whole
     * fleet's day at once. */
    if (store_seal(st, now_ms - GP_HOUR_MS, GP_SEAL_PER_CYCLE, &n, err))
        return err->code;
    if (sealed)
        *sealed = n;
    /* fleet_5m's days with them, the whole fleet at once: one cycle a day moves a day of
     * fleet_5m rows into chunks (store_fleet.c). */
    return store_fleet_seal(st, now_ms - GP_HOUR_MS, err);
}
