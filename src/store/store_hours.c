/* Capacity hours kept per day (db/010_hour_chunks.sql, docs/telemetry.md "Chunk encoding").
 *
 * A utilization series' util_hour figures live in util_hour_day, one row per UTC day holding
 * the day's 24 hours packed (src/formats/chunk.c, gp_hours), before series.sealed_ms, and in
 * util_hour rows from it on, as the 5-minute rollups do (store_chunks.c): the open day is
 * rewritten row by row by each cycle's gp_store_capacity_refresh, and its hours move into the
 * day's chunk when the series' day is sealed. An hour written later into a sealed day (a late
 * sample recomputed, imported history) is merged into its chunk: the row's figures replace the
 * chunk's hour, as INSERT OR REPLACE replaced the row. The two never hold the same hour, so a
 * reader takes a series' chunks and then its rows, in hour order. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char SQL_LOAD[] = "SELECT hours FROM util_hour_day WHERE id = ?1";
static const char SQL_SAVE[] = "INSERT OR REPLACE INTO util_hour_day(id, hours) VALUES (?1, ?2)";
static const char SQL_CHUNKS[] = "SELECT id, hours FROM util_hour_day WHERE id >= ?1 AND id < ?2 "
                                 "ORDER BY id";
static const char SQL_ROWS[] = "SELECT hour_ms, buckets, util_sum, power_n, power_sum, "
                               "busy_power_n, busy_power_sum, hist FROM util_hour WHERE "
                               "series_id = ?1 AND hour_ms >= ?2 AND hour_ms < ?3 ORDER BY hour_ms";
static const char SQL_SEAL_ROWS[] =
    "SELECT series_id, hour_ms, buckets, util_sum, power_n, power_sum, busy_power_n, "
    "busy_power_sum, hist FROM util_hour WHERE series_id = ?1 AND hour_ms < ?2 ORDER BY hour_ms";
static const char SQL_SEAL_DELETE[] = "DELETE FROM util_hour WHERE series_id = ?1 AND hour_ms < ?2";

struct store_hours {
    sqlite3_stmt *load, *save, *chunks, *rows, *seal_rows, *seal_delete, *settle_rows,
        *settle_delete;
};

static store_hours *kept(gp_store *st) {
    if (!st->hours)
        st->hours = gp_xcalloc(1, sizeof *st->hours);
    return st->hours;
}

static gp_status stmt(gp_store *st, sqlite3_stmt **slot, const char *sql, gp_err *err) {
    if (*slot) {
        sqlite3_reset(*slot);
        sqlite3_clear_bindings(*slot);
        return GP_OK;
    }
    return store_prepare(st, sql, slot, err);
}

#define STMT(st, name, sql, err) stmt((st), &kept(st)->name, (sql), (err))

void store_hours_done(gp_store *st) {
    store_hours *h = st->hours;
    if (!h)
        return;
    sqlite3_finalize(h->load);
    sqlite3_finalize(h->save);
    sqlite3_finalize(h->chunks);
    sqlite3_finalize(h->rows);
    sqlite3_finalize(h->seal_rows);
    sqlite3_finalize(h->seal_delete);
    sqlite3_finalize(h->settle_rows);
    sqlite3_finalize(h->settle_delete);
    free(h);
    st->hours = NULL;
}

static gp_status check_day(gp_store *st, int64_t day_ms, gp_err *err) {
    return store_day_check(st, day_ms, "an hour", err);
}

gp_status store_hour_of_row(gp_store *st, sqlite3_stmt *s, int col, gp_hour *h, gp_err *err) {
    memset(h, 0, sizeof *h);
    h->buckets = sqlite3_column_int64(s, col);
    h->util_sum = sqlite3_column_double(s, col + 1);
    h->power_n = sqlite3_column_int64(s, col + 2);
    h->power_sum = sqlite3_column_double(s, col + 3);
    h->busy_power_n = sqlite3_column_int64(s, col + 4);
    h->busy_power_sum = sqlite3_column_double(s, col + 5);
    const unsigned char *t = sqlite3_column_text(s, col + 6);
    int n = sqlite3_column_bytes(s, col + 6);
    if (!t || n != GP_HOURS_BINS || h->buckets < 1)
        return gp_errorf(err, GP_E_DB, st->path, "a damaged util_hour row (histogram \"%s\")",
                         t ? (const char *)t : "");
    for (int k = 0; k < GP_HOURS_BINS; k++) {
        if (t[k] < '0')
            return gp_errorf(err, GP_E_DB, st->path, "a damaged util_hour row (histogram \"%s\")",
                             (const char *)t);
        h->hist[k] = (unsigned char)(t[k] - '0');
    }
    return GP_OK;
}

gp_status store_hours_load(gp_store *st, long long series, int64_t day_ms, gp_hours *d, bool *found,
                           gp_err *err) {
    memset(d, 0, sizeof *d);
    *found = false;
    if (check_day(st, day_ms, err) || STMT(st, load, SQL_LOAD, err))
        return err->code;
    sqlite3_stmt *s = st->hours->load;
    sqlite3_bind_int64(s, 1, store_day_id(series, day_ms));
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        char where[96];
        store_chunk_where(where, sizeof where, "util_hour_day", series, day_ms);
        res = gp_hours_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0), where,
                              d, err);
        if (res != GP_OK)
            res = store_damaged(st, err);
        *found = res == GP_OK;
    } else if (rc != SQLITE_DONE) {
        res = store_fail(st, err, "read an hour chunk");
    }
    sqlite3_reset(s);
    return res;
}

gp_status store_hours_save(gp_store *st, long long series, int64_t day_ms, const gp_hours *d,
                           gp_err *err) {
    unsigned char buf[GP_HOURS_MAX_BYTES];
    size_t len;
    if (gp_hours_encode(d, buf, &len, err))
        return err->code;
    if (check_day(st, day_ms, err) || STMT(st, save, SQL_SAVE, err))
        return err->code;
    sqlite3_stmt *s = st->hours->save;
    sqlite3_bind_int64(s, 1, store_day_id(series, day_ms));
    sqlite3_bind_blob(s, 2, buf, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "write an hour chunk");
}

/* Merge the rows sel yields (series_id, hour_ms, then util_hour's figures, by series and
 * hour) into their day chunks, each row replacing its hour. The caller deletes the rows. */
static gp_status move_rows(gp_store *st, sqlite3_stmt *sel, gp_err *err) {
    gp_hours *d = gp_xmalloc(sizeof *d);
    long long series = 0;
    int64_t day = INT64_MIN;
    bool dirty = false;
    gp_status res = GP_OK;
    int rc;
    while (res == GP_OK && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
        long long s = sqlite3_column_int64(sel, 0);
        int64_t hour = sqlite3_column_int64(sel, 1);
        if (s != series || store_day_of(hour) != day) {
            bool found;
            if (dirty && store_hours_save(st, series, day, d, err))
                res = err->code;
            series = s;
            day = store_day_of(hour);
            dirty = false;
            if (res == GP_OK && store_hours_load(st, series, day, d, &found, err))
                res = err->code;
        }
        if (res == GP_OK &&
            store_hour_of_row(st, sel, 2, &d->h[(hour - day) / GP_HOUR_MS], err) == GP_OK)
            dirty = true;
        else
            res = err->code;
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "read hours to pack");
    sqlite3_reset(sel);
    if (res == GP_OK && dirty && store_hours_save(st, series, day, d, err))
        res = err->code;
    free(d);
    return res;
}

gp_status store_hours_seal(gp_store *st, long long series, int64_t before_ms, gp_err *err) {
    if (STMT(st, seal_rows, SQL_SEAL_ROWS, err))
        return err->code;
    sqlite3_stmt *s = st->hours->seal_rows;
    sqlite3_bind_int64(s, 1, series);
    sqlite3_bind_int64(s, 2, before_ms);
    if (move_rows(st, s, err) || STMT(st, seal_delete, SQL_SEAL_DELETE, err))
        return err->code;
    s = st->hours->seal_delete;
    sqlite3_bind_int64(s, 1, series);
    sqlite3_bind_int64(s, 2, before_ms);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "seal a day of hours");
}

/* The rows of a node's utilization series in [from, to) that fell before their series'
 * sealed_ms (gp_store_capacity_refresh rewrote hours of a sealed day). */
static const char SQL_SETTLE_ROWS[] =
    "SELECT u.series_id, u.hour_ms, u.buckets, u.util_sum, u.power_n, u.power_sum, "
    "u.busy_power_n, u.busy_power_sum, u.hist FROM series s CROSS JOIN util_hour u "
    "ON u.series_id = s.id AND u.hour_ms >= ?1 AND u.hour_ms < ?2 AND u.hour_ms < s.sealed_ms "
    "WHERE s.node_id = ?3 AND s.metric = ?4 AND s.sealed_ms > ?1 ORDER BY u.series_id, u.hour_ms";
static const char SQL_SETTLE_DELETE[] =
    "DELETE FROM util_hour WHERE series_id IN (SELECT id FROM series WHERE node_id = ?3 AND "
    "metric = ?4 AND sealed_ms > ?1) AND hour_ms >= ?1 AND hour_ms < ?2 AND hour_ms < "
    "(SELECT sealed_ms FROM series WHERE id = util_hour.series_id)";

gp_status store_hours_settle(gp_store *st, long long node_id, int metric, int64_t from_ms,
                             int64_t to_ms, gp_err *err) {
    for (int pass = 0; pass < 2; pass++) {
        if (pass ? STMT(st, settle_delete, SQL_SETTLE_DELETE, err)
                 : STMT(st, settle_rows, SQL_SETTLE_ROWS, err))
            return err->code;
        sqlite3_stmt *s = pass ? st->hours->settle_delete : st->hours->settle_rows;
        sqlite3_bind_int64(s, 1, from_ms);
        sqlite3_bind_int64(s, 2, to_ms);
        sqlite3_bind_int64(s, 3, node_id);
        sqlite3_bind_int(s, 4, metric);
        gp_status res = GP_OK;
        if (!pass) {
            res = move_rows(st, s, err);
        } else if (sqlite3_step(s) != SQLITE_DONE) {
            res = store_fail(st, err, "pack the hours of sealed days");
        }
        sqlite3_reset(s);
        if (res != GP_OK)
            return res;
    }
    return GP_OK;
}

gp_status store_hours_convert(gp_store *st, gp_err *err) {
    static const char *const sql[] = {
        "SELECT u.series_id, u.hour_ms, u.buckets, u.util_sum, u.power_n, u.power_sum, "
        "u.busy_power_n, u.busy_power_sum, u.hist FROM series s CROSS JOIN util_hour u "
        "ON u.series_id = s.id AND u.hour_ms < s.sealed_ms ORDER BY u.series_id, u.hour_ms",
        "DELETE FROM util_hour WHERE hour_ms < (SELECT sealed_ms FROM series WHERE id = "
        "util_hour.series_id)"};
    for (int pass = 0; pass < 2; pass++) {
        sqlite3_stmt *s;
        if (store_prepare(st, sql[pass], &s, err))
            return err->code;
        gp_status res = GP_OK;
        if (!pass)
            res = move_rows(st, s, err);
        else if (sqlite3_step(s) != SQLITE_DONE)
            res = store_fail(st, err, "convert the hours of sealed days");
        sqlite3_finalize(s);
        if (res != GP_OK)
            return res;
    }
    return GP_OK;
}

/* The hours of a day chunk at day that lie in [from_ms, to_ms): bit i for hour i. */
static unsigned long hours_mask(int64_t day, int64_t from_ms, int64_t to_ms) {
    if (day >= from_ms && day + GP_DAY_MS <= to_ms)
        return (1ul << GP_HOURS_SLOTS) - 1;
    unsigned long mask = 0;
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        int64_t t = day + i * GP_HOUR_MS;
        if (t >= from_ms && t < to_ms)
            mask |= 1ul << i;
    }
    return mask;
}

/* Room for a chunk's 24 hourly means at the end of m. */
static void means_room(store_means *m) {
    if (m->cap - m->n < GP_HOURS_SLOTS)
        m->v = gp_xgrow(m->v, &m->cap, m->n + GP_HOURS_SLOTS - 1, sizeof *m->v, 1024);
}

gp_status store_hours_add(gp_store *st, long long series, int64_t from_ms, int64_t to_ms,
                          gp_hours_total *t, store_means *m, gp_err *err) {
    if (to_ms <= from_ms)
        return GP_OK;
    if (STMT(st, chunks, SQL_CHUNKS, err) || STMT(st, rows, SQL_ROWS, err))
        return err->code;
    sqlite3_stmt *k = st->hours->chunks, *r = st->hours->rows;
    sqlite3_bind_int64(k, 1, store_day_id(series, from_ms));
    sqlite3_bind_int64(k, 2, store_day_id(series, to_ms - 1) + 1);
    int rc;
    while ((rc = sqlite3_step(k)) == SQLITE_ROW) {
        int64_t day = (sqlite3_column_int64(k, 0) & (STORE_DAY_ID_SPAN - 1)) * GP_DAY_MS;
        const unsigned char *blob = sqlite3_column_blob(k, 1);
        size_t len = (size_t)sqlite3_column_bytes(k, 1);
        int nm = 0;
        if (m)
            means_room(m);
        if (gp_hours_add(blob, len, "util_hour_day", hours_mask(day, from_ms, to_ms), t,
                         m ? m->v + m->n : NULL, &nm, err)) {
            /* The message names the series and day, as every other read of a chunk does. */
            char where[96];
            gp_hours d;
            store_chunk_where(where, sizeof where, "util_hour_day", series, day);
            gp_hours_decode(blob, len, where, &d, err);
            sqlite3_reset(k);
            return store_damaged(st, err);
        }
        if (m)
            m->n += (size_t)nm;
    }
    sqlite3_reset(k);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "read hour chunks");
    sqlite3_bind_int64(r, 1, series);
    sqlite3_bind_int64(r, 2, from_ms);
    sqlite3_bind_int64(r, 3, to_ms);
    while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
        gp_hour h;
        if (store_hour_of_row(st, r, 1, &h, err)) {
            sqlite3_reset(r);
            return err->code;
        }
        t->buckets += h.buckets;
        t->util_sum += h.util_sum;
        t->power_n += h.power_n;
        t->power_sum += h.power_sum;
        t->busy_power_n += h.busy_power_n;
        t->busy_power_sum += h.busy_power_sum;
        for (int b = 0; b < GP_HOURS_BINS; b++)
            t->hist[b] += h.hist[b];
        if (m && h.power_n > 0) {
            means_room(m);
            m->v[m->n++] = h.power_sum / (double)h.power_n;
        }
    }
    sqlite3_reset(r);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read hours");
}
