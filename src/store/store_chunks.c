/* Chunked 5-minute and hourly rollups (db/009_chunks.sql, db/011_hour_rollup_chunks.sql,
 * docs/telemetry.md "Chunk encoding").
 *
 * A series' 5-minute buckets live in rollup_5m_day, one row per UTC day holding a chunk
 * (src/formats/chunk.c), before series.sealed_ms, and in rollup_5m rows from it on: the open
 * day takes one row upsert per bucket and cycle, as before, and a day is sealed (its rows moved
 * into one chunk) once it is over. The two never overlap, so a reader takes both. Its hourly
 * buckets do the same between rollup_1h_day (chunks of 24 buckets) and rollup_1h, sealed with
 * the same sealed_ms.
 *
 * Readers see both through the eponymous virtual tables rollup_5m_all and rollup_1h_all
 * (series_id, bucket_ms, n, sum, min, max), two descriptors of store_vtab.c (VIEWS below): for
 * a series (series_id = ?), and optionally a range of bucket_ms, they yield that series' chunk
 * buckets and then its rows, in bucket order, exactly as a scan of the old table's primary key
 * did, so every SQL aggregate over them adds in the same order and the figures stay bit for bit
 * the same. store_5m_each and store_1h_each walk the same statements without SQL per bucket. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

/* The day chunk id of series ?3's day holding ?1 ms (store_day_id), in SQL. */
#define SQL_DAY_ID(ms)                                                                             \
    "(?3 * " SQL_DAY_ID_SPAN " + max(0, min(" SQL_DAY_ID_MASK ", (" ms ") / " SQL_DAY_MS ")))"
/* A series' chunks of the days from the one holding lo (?1) to the one holding hi - 1 (?2),
 * as (day_ms, series_id, buckets): DAY_MS is how the table gives a chunk's UTC midnight. */
#define SQL_CHUNKS(day_ms, table, order)                                                           \
    "SELECT " day_ms ", ?3, buckets FROM " table                                                   \
    " WHERE id >= " SQL_DAY_ID("?1") " AND id < " SQL_DAY_ID("?2 - 1") " + 1 ORDER BY id" order
#define SQL_ROWS(table, order)                                                                     \
    "SELECT series_id, bucket_ms, n, sum, min, max FROM " table " WHERE series_id = ?3 AND "       \
    "bucket_ms >= ?1 AND bucket_ms < ?2 ORDER BY bucket_ms" order
#define SQL_1H_DAY "(id & " SQL_DAY_ID_MASK ") * " SQL_DAY_MS

enum { COL_SERIES, COL_BUCKET, COL_N, COL_SUM, COL_MIN, COL_MAX };

static gp_status view_decode(const store_vtab_desc *d, sqlite3_stmt *row, void *chunk,
                             gp_err *err) {
    gp_chunk *c = chunk;
    char where[96];
    store_chunk_where(where, sizeof where, d->chunk_table, sqlite3_column_int64(row, 1),
                      sqlite3_column_int64(row, 0));
    if (gp_chunk_decode(sqlite3_column_blob(row, 2), (size_t)sqlite3_column_bytes(row, 2), where, c,
                        err) != GP_OK)
        return err->code;
    if (c->slots != d->slots)
        return gp_errorf(err, GP_E_DB, where, "%d buckets in a day", c->slots);
    return GP_OK;
}

static void view_cell(const void *chunk, int slot, int col, sqlite3_context *ctx) {
    const gp_chunk_bucket *b = &((const gp_chunk *)chunk)->b[slot];
    if (col == COL_N)
        sqlite3_result_int64(ctx, b->n);
    else
        sqlite3_result_double(ctx, col == COL_SUM ? b->sum : col == COL_MIN ? b->min : b->max);
}

/* A series and a range: a few buckets; a series: a day's; every series: the planner's last
 * resort. */
static void view_cost(int flags, double *cost, sqlite3_int64 *rows) {
    bool range = flags & (STORE_VT_LO | STORE_VT_HI | STORE_VT_EQ);
    if (flags & STORE_VT_KEY) {
        *cost = range ? 10 : 300;
        *rows = range ? 12 : 8640;
    } else {
        *cost = 1e12;
        *rows = 1000000000;
    }
}

/* rollup_5m_all and rollup_1h_all (series_id, bucket_ms, n, sum, min, max): for a series
 * (series_id = ?), and optionally a range of bucket_ms, its chunk buckets and then its rows,
 * in bucket order (either way), as a scan of the old table's primary key gave them. */
#define VIEW(name_, chunks_table, day_ms, rows_table, slots_, bucket_ms_)                          \
    {                                                                                              \
        .name = name_,                                                                             \
        .declare = "CREATE TABLE x(series_id INTEGER, bucket_ms INTEGER, n INTEGER, sum REAL, "    \
                   "min REAL, max REAL)",                                                          \
        .types = "IIIRRR", .range_col = COL_BUCKET, .n_keys = 1, .key_col = {COL_SERIES},          \
        .in_col = -1, .by_key = true, .lo_min = INT64_MIN / 2,                                     \
        .keys_sql = "SELECT id FROM series ORDER BY id",                                           \
        .chunks_key = SQL_CHUNKS(day_ms, chunks_table, ""),                                        \
        .chunks_key_desc = SQL_CHUNKS(day_ms, chunks_table, " DESC"),                              \
        .rows_key = SQL_ROWS(rows_table, ""), .rows_key_desc = SQL_ROWS(rows_table, " DESC"),      \
        .slots = slots_, .bucket_ms = bucket_ms_, .chunk_size = sizeof(gp_chunk),                  \
        .chunk_table = chunks_table, .decode = view_decode,                                        \
        .count_at = offsetof(gp_chunk, b[0].n), .count_stride = sizeof(gp_chunk_bucket),           \
        .cell = view_cell, .cost = view_cost                                                       \
    }

static const store_vtab_desc VIEWS[STORE_KINDS] = {
    VIEW("rollup_5m_all", "rollup_5m_day", "day_ms", "rollup_5m", GP_CHUNK_SLOTS_MAX,
         STORE_BUCKET_MS),
    VIEW("rollup_1h_all", "rollup_1h_day", SQL_1H_DAY, "rollup_1h", 24, GP_HOUR_MS)};

/* What differs between the two kinds of chunk (STORE_5M, STORE_1H) for the writers. */
typedef struct chunk_kind {
    int slots; /* buckets in a day */
    int64_t bucket_ms;
    const char *load, *save, *seal_rows, *seal_delete;
} chunk_kind;

static const chunk_kind KINDS[STORE_KINDS] = {
    {GP_CHUNK_SLOTS_MAX, STORE_BUCKET_MS, "SELECT buckets FROM rollup_5m_day WHERE id = ?1",
     "INSERT OR REPLACE INTO rollup_5m_day(id, series_id, day_ms, buckets) VALUES (?1, ?2, ?3, "
     "?4)",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_5m WHERE series_id = ?1 AND bucket_ms < ?2 "
     "ORDER BY bucket_ms",
     "DELETE FROM rollup_5m WHERE series_id = ?1 AND bucket_ms < ?2"},
    {24, GP_HOUR_MS, "SELECT buckets FROM rollup_1h_day WHERE id = ?1",
     "INSERT OR REPLACE INTO rollup_1h_day(id, buckets) VALUES (?1, ?4)",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_1h WHERE series_id = ?1 AND bucket_ms < ?2 "
     "ORDER BY bucket_ms",
     "DELETE FROM rollup_1h WHERE series_id = ?1 AND bucket_ms < ?2"}};

static const char SQL_ALL_SERIES[] = "SELECT id FROM series ORDER BY id";
static const char SQL_SEALED[] = "SELECT sealed_ms FROM series WHERE id = ?1";
static const char SQL_SEAL_MARK[] =
    "UPDATE series SET sealed_ms = ?2 WHERE id = ?1 AND sealed_ms < ?2";
/* A series' last chunked bucket (db/012_series_last.sql), kept for its newest chunk only. */
static const char SQL_LAST_PUT[] =
    "INSERT INTO series_last(series_id, day_ms, bucket_ms, n, sum, min, max) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7) ON CONFLICT(series_id) DO UPDATE SET day_ms = excluded.day_ms, "
    "bucket_ms = excluded.bucket_ms, n = excluded.n, sum = excluded.sum, min = excluded.min, "
    "max = excluded.max WHERE excluded.day_ms >= series_last.day_ms";
static const char SQL_NEWEST_CHUNK[] = "SELECT day_ms, buckets FROM rollup_5m_day WHERE id >= ?1 "
                                       "AND id < ?2 ORDER BY id DESC LIMIT 1";

struct store_chunks {
    sqlite3_stmt *load[STORE_KINDS], *save[STORE_KINDS], *seal_rows[STORE_KINDS],
        *seal_delete[STORE_KINDS], *sealed, *seal_mark, *last_put, *each_chunks, *each_rows;
    sqlite3_stmt *each_1h_chunks, *each_1h_rows; /* store_1h_each's */
    gp_chunk *each; /* store_5m_each's and store_1h_each's chunk, made on first use */
    store_vtab *views[STORE_KINDS];
};

static gp_status check_day(gp_store *st, int64_t day_ms, gp_err *err) {
    return store_day_check(st, day_ms, "a rollup bucket", err);
}

static gp_status cached(gp_store *st, sqlite3_stmt **slot, const char *sql, gp_err *err) {
    if (*slot) {
        sqlite3_reset(*slot);
        sqlite3_clear_bindings(*slot);
        return GP_OK;
    }
    return store_prepare(st, sql, slot, err);
}

void store_chunks_done(gp_store *st) {
    store_chunks *c = st->chunks;
    if (!c)
        return;
    for (int k = 0; k < STORE_KINDS; k++) {
        store_vtab_done(c->views[k]);
        sqlite3_finalize(c->load[k]);
        sqlite3_finalize(c->save[k]);
        sqlite3_finalize(c->seal_rows[k]);
        sqlite3_finalize(c->seal_delete[k]);
    }
    sqlite3_finalize(c->sealed);
    sqlite3_finalize(c->seal_mark);
    sqlite3_finalize(c->last_put);
    sqlite3_finalize(c->each_chunks);
    sqlite3_finalize(c->each_rows);
    sqlite3_finalize(c->each_1h_chunks);
    sqlite3_finalize(c->each_1h_rows);
    free(c->each);
    free(c);
    st->chunks = NULL;
}

/* ---- chunks for the writers --------------------------------------------------------------- */

gp_status store_chunk_load(gp_store *st, int kind, long long series, int64_t day_ms, gp_chunk *c,
                           bool *found, gp_err *err) {
    const chunk_kind *k = &KINDS[kind];
    gp_chunk_init(c, k->slots);
    *found = false;
    if (check_day(st, day_ms, err) || cached(st, &st->chunks->load[kind], k->load, err))
        return err->code;
    sqlite3_stmt *s = st->chunks->load[kind];
    sqlite3_bind_int64(s, 1, store_day_id(series, day_ms));
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        char where[96];
        store_chunk_where(where, sizeof where, VIEWS[kind].chunk_table, series, day_ms);
        res = gp_chunk_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0), where,
                              c, err);
        if (res == GP_OK && c->slots != k->slots)
            res = gp_errorf(err, GP_E_DB, where, "%d buckets in a day", c->slots);
        if (res != GP_OK) {
            res = store_damaged(st, err);
            gp_chunk_init(c, k->slots);
        }
        *found = res == GP_OK;
    } else if (rc != SQLITE_DONE) {
        res = store_fail(st, err, "read a chunk");
    }
    sqlite3_reset(s);
    return res;
}

/* series_last's row for series' 5-minute chunk of day_ms, unless the series has a newer chunk:
 * the chunk's newest bucket with n > 0 (NULLs where it has none). */
static gp_status last_put(gp_store *st, long long series, int64_t day_ms, const gp_chunk *c,
                          gp_err *err) {
    if (cached(st, &st->chunks->last_put, SQL_LAST_PUT, err))
        return err->code;
    sqlite3_stmt *s = st->chunks->last_put;
    sqlite3_bind_int64(s, 1, series);
    sqlite3_bind_int64(s, 2, day_ms);
    int i = c->slots - 1;
    while (i >= 0 && c->b[i].n <= 0)
        i--;
    if (i >= 0) {
        sqlite3_bind_int64(s, 3, day_ms + i * KINDS[STORE_5M].bucket_ms);
        sqlite3_bind_int64(s, 4, c->b[i].n);
        sqlite3_bind_double(s, 5, c->b[i].sum);
        sqlite3_bind_double(s, 6, c->b[i].min);
        sqlite3_bind_double(s, 7, c->b[i].max);
    }
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "record a series' last bucket");
}

gp_status store_chunk_save(gp_store *st, int kind, long long series, int64_t day_ms,
                           const gp_chunk *c, gp_err *err) {
    unsigned char buf[GP_CHUNK_MAX_BYTES];
    size_t len;
    if (gp_chunk_encode(c, buf, &len, err))
        return err->code;
    if (check_day(st, day_ms, err) || cached(st, &st->chunks->save[kind], KINDS[kind].save, err))
        return err->code;
    sqlite3_stmt *s = st->chunks->save[kind];
    sqlite3_bind_int64(s, 1, store_day_id(series, day_ms));
    sqlite3_bind_int64(s, 2, series);
    sqlite3_bind_int64(s, 3, day_ms);
    sqlite3_bind_blob(s, 4, buf, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "write a chunk");
    return kind == STORE_5M ? last_put(st, series, day_ms, c, err) : GP_OK;
}

void store_bucket_add(gp_chunk_bucket *b, long long n, double sum, double min, double max) {
    if (b->n == 0) {
        *b = (gp_chunk_bucket){n, sum, min, max};
        return;
    }
    /* The same arithmetic as rollup_5m's upsert: n + n, sum + sum, min(), max(). */
    b->n += n;
    b->sum += sum;
    if (min < b->min)
        b->min = min;
    if (max > b->max)
        b->max = max;
}

gp_status store_sealed_ms(gp_store *st, long long series, int64_t *sealed_ms, gp_err *err) {
    *sealed_ms = 0;
    if (cached(st, &st->chunks->sealed, SQL_SEALED, err))
        return err->code;
    sqlite3_stmt *s = st->chunks->sealed;
    sqlite3_bind_int64(s, 1, series);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *sealed_ms = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read a series");
}

/* Move series' rows of one kind before before_ms (a UTC midnight) into their day chunks. */
static gp_status seal_kind(gp_store *st, int kind, long long series, int64_t before_ms,
                           gp_err *err) {
    const chunk_kind *k = &KINDS[kind];
    store_chunks *cc = st->chunks;
    if (cached(st, &cc->seal_rows[kind], k->seal_rows, err))
        return err->code;
    sqlite3_stmt *s = cc->seal_rows[kind];
    sqlite3_bind_int64(s, 1, series);
    sqlite3_bind_int64(s, 2, before_ms);
    gp_chunk *c = gp_xmalloc(sizeof *c);
    int64_t day = INT64_MIN;
    gp_status res = GP_OK;
    int rc;
    while (res == GP_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t b = sqlite3_column_int64(s, 0);
        if (store_day_of(b) != day) {
            if (day != INT64_MIN && store_chunk_save(st, kind, series, day, c, err))
                res = err->code;
            bool found;
            day = store_day_of(b);
            if (res == GP_OK && store_chunk_load(st, kind, series, day, c, &found, err))
                res = err->code;
        }
        if (res == GP_OK)
            store_bucket_add(&c->b[(b - day) / k->bucket_ms], sqlite3_column_int64(s, 1),
                             sqlite3_column_double(s, 2), sqlite3_column_double(s, 3),
                             sqlite3_column_double(s, 4));
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "read rows to seal");
    sqlite3_reset(s);
    if (res == GP_OK && day != INT64_MIN && store_chunk_save(st, kind, series, day, c, err))
        res = err->code;
    free(c);
    if (res != GP_OK)
        return res;
    if (cached(st, &cc->seal_delete[kind], k->seal_delete, err))
        return err->code;
    sqlite3_stmt *d = cc->seal_delete[kind];
    sqlite3_bind_int64(d, 1, series);
    sqlite3_bind_int64(d, 2, before_ms);
    rc = sqlite3_step(d);
    sqlite3_reset(d);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "seal a day");
}

gp_status store_chunks_seal(gp_store *st, long long series, int64_t before_ms, gp_err *err) {
    store_chunks *cc = st->chunks;
    if (seal_kind(st, STORE_5M, series, before_ms, err) ||
        seal_kind(st, STORE_1H, series, before_ms, err) ||
        cached(st, &cc->seal_mark, SQL_SEAL_MARK, err))
        return err->code;
    sqlite3_stmt *d = cc->seal_mark;
    sqlite3_bind_int64(d, 1, series);
    sqlite3_bind_int64(d, 2, before_ms);
    int rc = sqlite3_step(d);
    sqlite3_reset(d);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "seal a day");
}

/* Migration 011: every rollup_1h row before its series' sealed_ms into its day chunk. */
gp_status store_chunks_convert_1h(gp_store *st, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT DISTINCT s.id, s.sealed_ms FROM series s CROSS JOIN rollup_1h r ON "
                      "r.series_id = s.id AND r.bucket_ms < s.sealed_ms",
                      &s, err))
        return err->code;
    long long *ids = NULL;
    int64_t *before = NULL;
    size_t n = 0, cap = 0, cap2 = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        ids = gp_xgrow(ids, &cap, n, sizeof *ids, 256);
        before = gp_xgrow(before, &cap2, n, sizeof *before, 256);
        ids[n] = sqlite3_column_int64(s, 0);
        before[n++] = sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "find hours to convert");
    for (size_t i = 0; i < n && res == GP_OK; i++)
        res = seal_kind(st, STORE_1H, ids[i], before[i], err);
    free(ids);
    free(before);
    return res;
}

/* Bind [lo, hi) and series to a view's chunk or row statement, as rollup_5m_all binds them. */
static void bind_each(sqlite3_stmt *s, long long series, int64_t lo, int64_t hi) {
    sqlite3_bind_int64(s, 1, lo);
    sqlite3_bind_int64(s, 2, hi);
    sqlite3_bind_int64(s, 3, series);
}

gp_status store_5m_each(gp_store *st, long long series, int64_t lo, int64_t hi, store_bucket_fn fn,
                        void *arg, bool *stopped, gp_err *err) {
    *stopped = false;
    if (hi <= lo)
        return GP_OK;
    store_chunks *cc = st->chunks;
    const store_vtab_desc *d = &VIEWS[STORE_5M];
    if (cached(st, &cc->each_chunks, d->chunks_key, err) ||
        cached(st, &cc->each_rows, d->rows_key, err))
        return err->code;
    if (!cc->each)
        cc->each = gp_xmalloc(sizeof *cc->each);
    sqlite3_stmt *k = cc->each_chunks, *r = cc->each_rows;
    bind_each(k, series, lo, hi);
    gp_status res = GP_OK;
    int rc;
    while (!*stopped && (rc = sqlite3_step(k)) == SQLITE_ROW) {
        int64_t day = sqlite3_column_int64(k, 0);
        gp_chunk *c = cc->each;
        if (view_decode(d, k, c, err) != GP_OK) {
            res = store_damaged(st, err);
            break;
        }
        for (int i = 0; i < c->slots && !*stopped; i++) {
            int64_t t = day + i * d->bucket_ms;
            if (c->b[i].n == 0 || t < lo || t >= hi)
                continue;
            *stopped = fn(t, c->b[i].n, c->b[i].sum, arg) != 0;
        }
    }
    if (res == GP_OK && !*stopped && rc != SQLITE_DONE)
        res = store_fail(st, err, "read chunks");
    sqlite3_reset(k);
    if (res != GP_OK || *stopped)
        return res;
    bind_each(r, series, lo, hi);
    while (!*stopped && (rc = sqlite3_step(r)) == SQLITE_ROW)
        *stopped = fn(sqlite3_column_int64(r, COL_BUCKET), sqlite3_column_int64(r, COL_N),
                      sqlite3_column_double(r, COL_SUM), arg) != 0;
    if (!*stopped && rc != SQLITE_DONE)
        res = store_fail(st, err, "read rollups");
    sqlite3_reset(r);
    return res;
}

gp_status store_1h_each(gp_store *st, long long series, int64_t lo, int64_t hi, store_stat_fn fn,
                        void *arg, gp_err *err) {
    if (hi <= lo)
        return GP_OK;
    store_chunks *cc = st->chunks;
    const store_vtab_desc *d = &VIEWS[STORE_1H];
    if (cached(st, &cc->each_1h_chunks, d->chunks_key, err) ||
        cached(st, &cc->each_1h_rows, d->rows_key, err))
        return err->code;
    if (!cc->each)
        cc->each = gp_xmalloc(sizeof *cc->each);
    sqlite3_stmt *k = cc->each_1h_chunks, *r = cc->each_1h_rows;
    bind_each(k, series, lo, hi);
    gp_status res = GP_OK;
    int rc;
    while ((rc = sqlite3_step(k)) == SQLITE_ROW) {
        int64_t day = sqlite3_column_int64(k, 0);
        gp_chunk *c = cc->each;
        if (view_decode(d, k, c, err) != GP_OK) {
            res = store_damaged(st, err);
            break;
        }
        for (int i = 0; i < c->slots; i++) {
            int64_t t = day + i * d->bucket_ms;
            if (c->b[i].n != 0 && t >= lo && t < hi)
                fn(t, &c->b[i], arg);
        }
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "read chunks");
    sqlite3_reset(k);
    if (res != GP_OK)
        return res;
    bind_each(r, series, lo, hi);
    while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
        gp_chunk_bucket b = {sqlite3_column_int64(r, COL_N), sqlite3_column_double(r, COL_SUM),
                             sqlite3_column_double(r, COL_MIN), sqlite3_column_double(r, COL_MAX)};
        fn(sqlite3_column_int64(r, COL_BUCKET), &b, arg);
    }
    if (rc != SQLITE_DONE)
        res = store_fail(st, err, "read rollups");
    sqlite3_reset(r);
    return res;
}

/* Migration 012: series_last from each series' newest 5-minute chunk, one rowid probe and one
 * decode a series. */
gp_status store_last_fill(gp_store *st, gp_err *err) {
    sqlite3_stmt *ids, *newest;
    if (store_prepare(st, SQL_ALL_SERIES, &ids, err))
        return err->code;
    if (store_prepare(st, SQL_NEWEST_CHUNK, &newest, err)) {
        sqlite3_finalize(ids);
        return err->code;
    }
    gp_chunk *c = gp_xmalloc(sizeof *c);
    gp_status res = GP_OK;
    int rc;
    while (res == GP_OK && (rc = sqlite3_step(ids)) == SQLITE_ROW) {
        long long series = sqlite3_column_int64(ids, 0);
        sqlite3_bind_int64(newest, 1, (int64_t)series << STORE_DAY_BITS);
        sqlite3_bind_int64(newest, 2, (int64_t)(series + 1) << STORE_DAY_BITS);
        int r = sqlite3_step(newest);
        if (r == SQLITE_ROW) {
            int64_t day = sqlite3_column_int64(newest, 0);
            char where[96];
            store_chunk_where(where, sizeof where, "rollup_5m_day", series, day);
            if (gp_chunk_decode(sqlite3_column_blob(newest, 1),
                                (size_t)sqlite3_column_bytes(newest, 1), where, c, err)) {
                res = store_damaged(st, err);
            } else {
                res = last_put(st, series, day, c, err);
            }
        } else if (r != SQLITE_DONE) {
            res = store_fail(st, err, "read a series' newest chunk");
        }
        sqlite3_reset(newest);
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "list the series");
    free(c);
    sqlite3_finalize(ids);
    sqlite3_finalize(newest);
    return res;
}

gp_status store_chunks_open(gp_store *st, gp_err *err) {
    st->chunks = gp_xcalloc(1, sizeof *st->chunks);
    for (int k = 0; k < STORE_KINDS; k++)
        if (store_vtab_open(st, &VIEWS[k], &st->chunks->views[k], err))
            return err->code;
    return GP_OK;
}
