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
 * (series_id, bucket_ms, n, sum, min, max): for a series (series_id = ?), and optionally a
 * range of bucket_ms, they yield that series' chunk buckets and then its rows, in bucket order,
 * exactly as a scan of the old table's primary key did, so every SQL aggregate over them adds
 * in the same order and the figures stay bit for bit the same. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

/* What differs between the two kinds of chunk (STORE_5M, STORE_1H). */
typedef struct chunk_kind {
    const char *vtab; /* the readers' virtual table */
    int slots;        /* buckets in a day */
    int64_t bucket_ms;
    const char *chunks, *rows, *load, *save, *seal_rows, *seal_delete;
    const char *chunks_desc, *rows_desc; /* the readers' ORDER BY bucket_ms DESC */
} chunk_kind;

static const chunk_kind KINDS[STORE_KINDS] = {
    {"rollup_5m_all", GP_CHUNK_SLOTS_MAX, STORE_BUCKET_MS,
     "SELECT day_ms, buckets FROM rollup_5m_day WHERE id >= ?1 AND id < ?2 ORDER BY id",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_5m WHERE series_id = ?1 AND bucket_ms >= ?2 "
     "AND bucket_ms < ?3 ORDER BY bucket_ms",
     "SELECT buckets FROM rollup_5m_day WHERE id = ?1",
     "INSERT OR REPLACE INTO rollup_5m_day(id, series_id, day_ms, buckets) VALUES (?1, ?2, ?3, "
     "?4)",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_5m WHERE series_id = ?1 AND bucket_ms < ?2 "
     "ORDER BY bucket_ms",
     "DELETE FROM rollup_5m WHERE series_id = ?1 AND bucket_ms < ?2",
     "SELECT day_ms, buckets FROM rollup_5m_day WHERE id >= ?1 AND id < ?2 ORDER BY id DESC",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_5m WHERE series_id = ?1 AND bucket_ms >= ?2 "
     "AND bucket_ms < ?3 ORDER BY bucket_ms DESC"},
    {"rollup_1h_all", 24, GP_HOUR_MS,
     "SELECT (id & " SQL_DAY_ID_MASK ") * " SQL_DAY_MS
     ", buckets FROM rollup_1h_day WHERE id >= ?1 AND id < ?2 "
     "ORDER BY id",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_1h WHERE series_id = ?1 AND bucket_ms >= ?2 "
     "AND bucket_ms < ?3 ORDER BY bucket_ms",
     "SELECT buckets FROM rollup_1h_day WHERE id = ?1",
     "INSERT OR REPLACE INTO rollup_1h_day(id, buckets) VALUES (?1, ?4)",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_1h WHERE series_id = ?1 AND bucket_ms < ?2 "
     "ORDER BY bucket_ms",
     "DELETE FROM rollup_1h WHERE series_id = ?1 AND bucket_ms < ?2",
     "SELECT (id & " SQL_DAY_ID_MASK ") * " SQL_DAY_MS
     ", buckets FROM rollup_1h_day WHERE id >= ?1 AND id < ?2 "
     "ORDER BY id DESC",
     "SELECT bucket_ms, n, sum, min, max FROM rollup_1h WHERE series_id = ?1 AND bucket_ms >= ?2 "
     "AND bucket_ms < ?3 ORDER BY bucket_ms DESC"}};

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

/* Statements for the readers' cursors, kept between queries: a correlated subquery opens its
 * cursor once per outer row, and preparing three statements each time would cost more than
 * the rows it reads. */
typedef struct stmt_set {
    sqlite3_stmt *chunks, *rows, *all, *chunks_desc, *rows_desc;
    struct stmt_set *next;
} stmt_set;

/* The virtual tables' aux: the store and the kind. */
typedef struct vt_aux {
    gp_store *st;
    int kind;
} vt_aux;

struct store_chunks {
    stmt_set *free_sets[STORE_KINDS];
    sqlite3_stmt *load[STORE_KINDS], *save[STORE_KINDS], *seal_rows[STORE_KINDS],
        *seal_delete[STORE_KINDS], *sealed, *seal_mark, *last_put, *each_chunks, *each_rows;
    sqlite3_stmt *each_1h_chunks, *each_1h_rows; /* store_1h_each's */
    gp_chunk *each; /* store_5m_each's and store_1h_each's chunk, made on first use */
    vt_aux aux[STORE_KINDS];
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
        while (c->free_sets[k]) {
            stmt_set *s = c->free_sets[k];
            c->free_sets[k] = s->next;
            sqlite3_finalize(s->chunks);
            sqlite3_finalize(s->rows);
            sqlite3_finalize(s->all);
            sqlite3_finalize(s->chunks_desc);
            sqlite3_finalize(s->rows_desc);
            free(s);
        }
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
        store_chunk_where(where, sizeof where, kind ? "rollup_1h_day" : "rollup_5m_day", series,
                          day_ms);
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

gp_status store_5m_each(gp_store *st, long long series, int64_t lo, int64_t hi, store_bucket_fn fn,
                        void *arg, bool *stopped, gp_err *err) {
    *stopped = false;
    if (hi <= lo)
        return GP_OK;
    store_chunks *cc = st->chunks;
    if (cached(st, &cc->each_chunks, KINDS[STORE_5M].chunks, err) ||
        cached(st, &cc->each_rows, KINDS[STORE_5M].rows, err))
        return err->code;
    if (!cc->each)
        cc->each = gp_xmalloc(sizeof *cc->each);
    sqlite3_stmt *k = cc->each_chunks, *r = cc->each_rows;
    /* the days from the one holding lo to the one holding hi - 1, as rollup_5m_all reads them */
    sqlite3_bind_int64(k, 1, store_day_id(series, lo));
    sqlite3_bind_int64(k, 2, store_day_id(series, hi - 1) + 1);
    gp_status res = GP_OK;
    int rc;
    while (!*stopped && (rc = sqlite3_step(k)) == SQLITE_ROW) {
        int64_t day = sqlite3_column_int64(k, 0);
        gp_chunk *c = cc->each;
        char where[96];
        store_chunk_where(where, sizeof where, "rollup_5m_day", series, day);
        if (gp_chunk_decode(sqlite3_column_blob(k, 1), (size_t)sqlite3_column_bytes(k, 1), where, c,
                            err) != GP_OK ||
            (c->slots != KINDS[STORE_5M].slots &&
             gp_errorf(err, GP_E_DB, where, "%d buckets in a day", c->slots))) {
            res = store_damaged(st, err);
            break;
        }
        for (int i = 0; i < c->slots && !*stopped; i++) {
            int64_t t = day + i * KINDS[STORE_5M].bucket_ms;
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
    sqlite3_bind_int64(r, 1, series);
    sqlite3_bind_int64(r, 2, lo);
    sqlite3_bind_int64(r, 3, hi);
    while (!*stopped && (rc = sqlite3_step(r)) == SQLITE_ROW)
        *stopped = fn(sqlite3_column_int64(r, 0), sqlite3_column_int64(r, 1),
                      sqlite3_column_double(r, 2), arg) != 0;
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
    const chunk_kind *kind = &KINDS[STORE_1H];
    if (cached(st, &cc->each_1h_chunks, kind->chunks, err) ||
        cached(st, &cc->each_1h_rows, kind->rows, err))
        return err->code;
    if (!cc->each)
        cc->each = gp_xmalloc(sizeof *cc->each);
    sqlite3_stmt *k = cc->each_1h_chunks, *r = cc->each_1h_rows;
    /* the days from the one holding lo to the one holding hi - 1, as rollup_1h_all reads them */
    sqlite3_bind_int64(k, 1, store_day_id(series, lo));
    sqlite3_bind_int64(k, 2, store_day_id(series, hi - 1) + 1);
    gp_status res = GP_OK;
    int rc;
    while ((rc = sqlite3_step(k)) == SQLITE_ROW) {
        int64_t day = sqlite3_column_int64(k, 0);
        gp_chunk *c = cc->each;
        char where[96];
        store_chunk_where(where, sizeof where, "rollup_1h_day", series, day);
        if (gp_chunk_decode(sqlite3_column_blob(k, 1), (size_t)sqlite3_column_bytes(k, 1), where, c,
                            err) != GP_OK ||
            (c->slots != kind->slots &&
             gp_errorf(err, GP_E_DB, where, "%d buckets in a day", c->slots))) {
            res = store_damaged(st, err);
            break;
        }
        for (int i = 0; i < c->slots; i++) {
            int64_t t = day + i * kind->bucket_ms;
            if (c->b[i].n != 0 && t >= lo && t < hi)
                fn(t, &c->b[i], arg);
        }
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "read chunks");
    sqlite3_reset(k);
    if (res != GP_OK)
        return res;
    sqlite3_bind_int64(r, 1, series);
    sqlite3_bind_int64(r, 2, lo);
    sqlite3_bind_int64(r, 3, hi);
    while ((rc = sqlite3_step(r)) == SQLITE_ROW) {
        gp_chunk_bucket b = {sqlite3_column_int64(r, 1), sqlite3_column_double(r, 2),
                             sqlite3_column_double(r, 3), sqlite3_column_double(r, 4)};
        fn(sqlite3_column_int64(r, 0), &b, arg);
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

/* ---- rollup_5m_all, the readers' view --------------------------------------------------- */

enum { COL_SERIES, COL_BUCKET, COL_N, COL_SUM, COL_MIN, COL_MAX };
enum { HAS_SERIES = 1, HAS_LO = 2, HAS_HI = 4, IS_EMPTY = 8, IS_DESC = 32 };

typedef struct r5_vtab {
    sqlite3_vtab base;
    gp_store *st;
    int kind;
} r5_vtab;

typedef struct r5_cursor {
    sqlite3_vtab_cursor base;
    gp_store *st;
    const chunk_kind *k;
    int kind;
    stmt_set *set;
    bool all, eof, in_rows, started, desc;
    int64_t lo, hi;
    long long series;
    gp_chunk chunk;
    int64_t day;
    int slot;
    long long n;
    int64_t bucket;
    double sum, min, max;
} r5_cursor;

static int r5_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **errmsg) {
    (void)argc, (void)argv, (void)errmsg;
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(series_id INTEGER, bucket_ms INTEGER, "
                                      "n INTEGER, sum REAL, min REAL, max REAL)");
    if (rc != SQLITE_OK)
        return rc;
    r5_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    const vt_aux *a = aux;
    v->st = a->st;
    v->kind = a->kind;
    *out = &v->base;
    return SQLITE_OK;
}

static int r5_disconnect(sqlite3_vtab *v) {
    sqlite3_free(v);
    return SQLITE_OK;
}

/* idxNum: HAS_SERIES, HAS_LO, HAS_HI as the arguments come, in that order. */
static int r5_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
    (void)v;
    int want[3] = {-1, -1, -1}; /* series =, bucket >= or >, bucket < or <= (or = for both) */
    int bucket_eq = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (!c->usable)
            continue;
        if (c->iColumn == COL_SERIES && c->op == SQLITE_INDEX_CONSTRAINT_EQ && want[0] < 0)
            want[0] = i;
        else if (c->iColumn == COL_BUCKET && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
            bucket_eq = i;
        else if (c->iColumn == COL_BUCKET && want[1] < 0 &&
                 (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT))
            want[1] = i;
        else if (c->iColumn == COL_BUCKET && want[2] < 0 &&
                 (c->op == SQLITE_INDEX_CONSTRAINT_LT || c->op == SQLITE_INDEX_CONSTRAINT_LE))
            want[2] = i;
    }
    if (bucket_eq >= 0)
        want[1] = want[2] = bucket_eq;
    int arg = 0, idx = 0;
    for (int k = 0; k < 3; k++) {
        if (want[k] < 0)
            continue;
        idx |= 1 << k;
        if (k == 2 && want[2] == want[1]) {
            idx |= 16; /* the upper bound is the lower one's equality */
            continue;
        }
        info->aConstraintUsage[want[k]].argvIndex = ++arg;
    }
    /* SQLite checks every constraint again on what comes back (omit stays 0), so a bound read
     * loosely (a REAL, a GT taken as GE) costs rows, never answers. */
    /* One series comes in bucket order, either way: "ORDER BY bucket_ms DESC LIMIT 1" (the
     * fleet's last value) reads one chunk, not a day of buckets through a sorter. */
    if ((idx & HAS_SERIES) && info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_BUCKET) {
        info->orderByConsumed = 1;
        if (info->aOrderBy[0].desc)
            idx |= IS_DESC;
    }
    info->idxNum = idx;
    if (idx & HAS_SERIES) {
        info->estimatedCost = (idx & (HAS_LO | HAS_HI)) ? 10 : 300;
        info->estimatedRows = (idx & (HAS_LO | HAS_HI)) ? 12 : 8640;
    } else {
        info->estimatedCost = 1e12;
        info->estimatedRows = 1000000000;
    }
    return SQLITE_OK;
}

static int r5_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
    r5_vtab *t = (r5_vtab *)v;
    r5_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->st = t->st;
    c->kind = t->kind;
    c->k = &KINDS[t->kind];
    store_chunks *cc = t->st->chunks;
    if (cc->free_sets[c->kind]) {
        c->set = cc->free_sets[c->kind];
        cc->free_sets[c->kind] = c->set->next;
    } else {
        c->set = calloc(1, sizeof *c->set);
        gp_err err;
        if (!c->set || store_prepare(t->st, c->k->chunks, &c->set->chunks, &err) ||
            store_prepare(t->st, c->k->rows, &c->set->rows, &err) ||
            store_prepare(t->st, c->k->chunks_desc, &c->set->chunks_desc, &err) ||
            store_prepare(t->st, c->k->rows_desc, &c->set->rows_desc, &err) ||
            store_prepare(t->st, SQL_ALL_SERIES, &c->set->all, &err)) {
            if (c->set) {
                sqlite3_finalize(c->set->chunks);
                sqlite3_finalize(c->set->rows);
                sqlite3_finalize(c->set->chunks_desc);
                sqlite3_finalize(c->set->rows_desc);
                free(c->set);
            }
            sqlite3_free(c);
            return SQLITE_ERROR;
        }
    }
    *out = &c->base;
    return SQLITE_OK;
}

static int r5_close(sqlite3_vtab_cursor *cur) {
    r5_cursor *c = (r5_cursor *)cur;
    store_chunks *cc = c->st->chunks;
    sqlite3_reset(c->set->chunks);
    sqlite3_reset(c->set->rows);
    sqlite3_reset(c->set->all);
    sqlite3_reset(c->set->chunks_desc);
    sqlite3_reset(c->set->rows_desc);
    c->set->next = cc->free_sets[c->kind];
    cc->free_sets[c->kind] = c->set;
    sqlite3_free(c);
    return SQLITE_OK;
}

static int vtab_error(r5_cursor *c, const char *msg) {
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
}

/* The statements the cursor reads: ascending, or descending for ORDER BY bucket_ms DESC. */
static sqlite3_stmt *chunk_stmt(const r5_cursor *c) {
    return c->desc ? c->set->chunks_desc : c->set->chunks;
}

static sqlite3_stmt *row_stmt(const r5_cursor *c) {
    return c->desc ? c->set->rows_desc : c->set->rows;
}

/* Start the current series: its chunks over the range, then its rows (descending: its rows,
 * then its chunks from the newest, each from its last bucket). */
static void start_series(r5_cursor *c) {
    sqlite3_stmt *k = chunk_stmt(c), *r = row_stmt(c);
    sqlite3_reset(k);
    sqlite3_reset(r);
    /* days from the one holding lo to the one holding hi - 1, inclusive */
    sqlite3_bind_int64(k, 1, store_day_id(c->series, c->lo));
    sqlite3_bind_int64(k, 2, store_day_id(c->series, c->hi - 1) + 1);
    sqlite3_bind_int64(r, 1, c->series);
    sqlite3_bind_int64(r, 2, c->lo);
    sqlite3_bind_int64(r, 3, c->hi);
    c->in_rows = c->desc;
    c->started = true;
    c->slot = c->chunk.slots = 0; /* no chunk loaded yet */
}

/* The next bucket of the chunks; 1 when they have no more, -1 on error. */
static int next_chunk_bucket(r5_cursor *c) {
    for (;;) {
        while (c->desc ? c->slot > 0 : c->slot < c->chunk.slots) {
            int i = c->desc ? --c->slot : c->slot++;
            const gp_chunk_bucket *b = &c->chunk.b[i];
            int64_t t = c->day + i * c->k->bucket_ms;
            if (b->n == 0 || t < c->lo || t >= c->hi)
                continue;
            c->bucket = t;
            c->n = b->n;
            c->sum = b->sum;
            c->min = b->min;
            c->max = b->max;
            return 0;
        }
        sqlite3_stmt *k = chunk_stmt(c);
        int rc = sqlite3_step(k);
        if (rc != SQLITE_ROW)
            return rc == SQLITE_DONE ? 1 : -1;
        c->day = sqlite3_column_int64(k, 0);
        gp_err err;
        char where[96];
        store_chunk_where(where, sizeof where, c->kind ? "rollup_1h_day" : "rollup_5m_day",
                          c->series, c->day);
        if (gp_chunk_decode(sqlite3_column_blob(k, 1), (size_t)sqlite3_column_bytes(k, 1), where,
                            &c->chunk, &err) != GP_OK ||
            (c->chunk.slots != c->k->slots &&
             gp_errorf(&err, GP_E_DB, where, "%d buckets in a day", c->chunk.slots))) {
            char msg[sizeof err.where + sizeof err.msg + 2];
            snprintf(msg, sizeof msg, "%s: %s", err.where, err.msg);
            vtab_error(c, msg);
            return -1;
        }
        c->slot = c->desc ? c->chunk.slots : 0;
    }
}

/* The next row; 1 when there is none, -1 on error. */
static int next_row(r5_cursor *c) {
    sqlite3_stmt *r = row_stmt(c);
    int rc = sqlite3_step(r);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? 1 : -1;
    c->bucket = sqlite3_column_int64(r, 0);
    c->n = sqlite3_column_int64(r, 1);
    c->sum = sqlite3_column_double(r, 2);
    c->min = sqlite3_column_double(r, 3);
    c->max = sqlite3_column_double(r, 4);
    return 0;
}

/* Move to the next bucket of the current series; 1 when it has no more, -1 on error. The
 * first source (chunks ascending, rows descending) is read out, then the second. */
static int next_in_series(r5_cursor *c) {
    bool first = c->in_rows == c->desc;
    int rc = c->in_rows ? next_row(c) : next_chunk_bucket(c);
    if (rc != 1 || !first)
        return rc;
    c->in_rows = !c->in_rows;
    return c->in_rows ? next_row(c) : next_chunk_bucket(c);
}

static int r5_next(sqlite3_vtab_cursor *cur) {
    r5_cursor *c = (r5_cursor *)cur;
    for (;;) {
        if (c->started) {
            int rc = next_in_series(c);
            if (rc < 0)
                return c->base.pVtab->zErrMsg ? SQLITE_ERROR
                                              : vtab_error(c, sqlite3_errmsg(c->st->db));
            if (rc == 0)
                return SQLITE_OK;
            if (!c->all) {
                c->eof = true;
                return SQLITE_OK;
            }
        }
        int s = sqlite3_step(c->set->all);
        if (s != SQLITE_ROW) {
            c->eof = true;
            return s == SQLITE_DONE ? SQLITE_OK : vtab_error(c, sqlite3_errmsg(c->st->db));
        }
        c->series = sqlite3_column_int64(c->set->all, 0);
        start_series(c);
    }
}

/* A bound as an integer range: an integer is exact; a REAL is widened to the integers around
 * it; anything else (NULL, text) matches nothing or everything, SQLite deciding after us. */
static bool bound_of(sqlite3_value *v, bool lower, int64_t *out) {
    int t = sqlite3_value_numeric_type(v);
    if (t == SQLITE_INTEGER) {
        *out = sqlite3_value_int64(v);
        return true;
    }
    if (t == SQLITE_FLOAT) {
        double d = sqlite3_value_double(v);
        if (d > -9e18 && d < 9e18) {
            *out = (int64_t)(lower ? floor(d) : ceil(d));
            return true;
        }
    }
    return false;
}

static int r5_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                     sqlite3_value **argv) {
    (void)idx_str;
    r5_cursor *c = (r5_cursor *)cur;
    int a = 0;
    c->lo = INT64_MIN / 2;
    c->hi = INT64_MAX / 2;
    c->all = !(idx & HAS_SERIES);
    c->desc = (idx & IS_DESC) != 0;
    c->eof = false;
    sqlite3_reset(c->set->all);
    if (idx & HAS_SERIES) {
        if (a >= argc || sqlite3_value_numeric_type(argv[a]) != SQLITE_INTEGER) {
            c->eof = true; /* NULL or text never equals an INTEGER series_id */
            return SQLITE_OK;
        }
        c->series = sqlite3_value_int64(argv[a++]);
    }
    int64_t v;
    if ((idx & HAS_LO) && a < argc) {
        if (bound_of(argv[a], true, &v))
            c->lo = v;
        if (idx & 16 && bound_of(argv[a], false, &v))
            c->hi = v + 1;
        a++;
    }
    if ((idx & HAS_HI) && !(idx & 16) && a < argc && bound_of(argv[a], false, &v))
        c->hi = v + 1; /* LT and LE alike: SQLite drops the extra row */
    if (!c->all)
        start_series(c);
    else
        c->started = false; /* r5_next steps to the first series */
    return r5_next(cur);
}

static int r5_eof(sqlite3_vtab_cursor *cur) {
    return ((r5_cursor *)cur)->eof;
}

static int r5_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    r5_cursor *c = (r5_cursor *)cur;
    switch (col) {
    case COL_SERIES:
        sqlite3_result_int64(ctx, c->series);
        break;
    case COL_BUCKET:
        sqlite3_result_int64(ctx, c->bucket);
        break;
    case COL_N:
        sqlite3_result_int64(ctx, c->n);
        break;
    case COL_SUM:
        sqlite3_result_double(ctx, c->sum);
        break;
    case COL_MIN:
        sqlite3_result_double(ctx, c->min);
        break;
    default:
        sqlite3_result_double(ctx, c->max);
        break;
    }
    return SQLITE_OK;
}

static int r5_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    r5_cursor *c = (r5_cursor *)cur;
    *rowid = c->bucket / c->k->bucket_ms;
    return SQLITE_OK;
}

static const sqlite3_module r5_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: there is nothing to CREATE VIRTUAL TABLE */
    .xConnect = r5_connect,
    .xBestIndex = r5_best_index,
    .xDisconnect = r5_disconnect,
    .xDestroy = r5_disconnect,
    .xOpen = r5_open,
    .xClose = r5_close,
    .xFilter = r5_filter,
    .xNext = r5_next,
    .xEof = r5_eof,
    .xColumn = r5_column,
    .xRowid = r5_rowid,
};

gp_status store_chunks_open(gp_store *st, gp_err *err) {
    st->chunks = gp_xcalloc(1, sizeof *st->chunks);
    for (int k = 0; k < STORE_KINDS; k++) {
        st->chunks->aux[k] = (vt_aux){st, k};
        if (sqlite3_create_module(st->db, KINDS[k].vtab, &r5_module, &st->chunks->aux[k]) !=
            SQLITE_OK)
            return store_fail(st, err, "register the rollup views");
    }
    return GP_OK;
}
