/* fleet_5m kept per day (db/013_fleet_chunks.sql, docs/telemetry.md "Chunk encoding").
 *
 * fleet_5m's buckets before fleet_sealed.sealed_ms (a UTC midnight, one for the whole fleet)
 * live in fleet_5m_day, one row per node, GPU model and day holding the day's 288 buckets
 * packed (src/formats/chunk.c, gp_fleet_day); from it on they stay fleet_5m rows, which each
 * cycle's gp_store_capacity_refresh writes as before. A day is therefore either chunks or
 * rows. Rows written into a sealed day (a late sample recomputed, imported history that met
 * stored rows) are settled into their chunks in the same transaction, each replacing its
 * bucket as INSERT OR REPLACE replaced the row; imported history adds into the chunks as the
 * import's upsert adds into a row (store_fleet_add).
 *
 * Readers see both through the eponymous virtual table fleet_5m_all (a descriptor of
 * store_vtab.c, VIEW below), with fleet_5m's columns:
 * over a range of bucket_ms (and optionally node_id = ? AND model = ?, both) it yields the
 * buckets in fleet_5m's primary key order, (bucket_ms, node_id, model), chunks for the sealed
 * days and rows after, so every SQL aggregate over it adds in the same order as over the
 * table and the figures stay bit for bit the same. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

#define MODEL_MAX 128 /* a model name kept in the add cache; longer ones go straight through */
#define OPEN_MAX 64   /* day chunks store_fleet_add keeps before writing them */

static const char SQL_SEALED[] = "SELECT sealed_ms FROM fleet_sealed";
static const char SQL_SEAL_MARK[] = "UPDATE fleet_sealed SET sealed_ms = ?1 WHERE sealed_ms < ?1";
static const char SQL_LOAD[] =
    "SELECT buckets FROM fleet_5m_day WHERE day_ms = ?1 AND node_id = ?2 AND model = ?3";
static const char SQL_SAVE[] = "INSERT OR REPLACE INTO fleet_5m_day(day_ms, node_id, model, "
                               "buckets) VALUES (?1, ?2, ?3, ?4)";
/* fleet_5m's rows in [?1, ?2) by node, model and bucket: what settles into chunks. */
static const char SQL_MOVE_ROWS[] =
    "SELECT node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, h03, h04, h05, h06, h07, "
    "h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20 FROM fleet_5m "
    "WHERE bucket_ms >= ?1 AND bucket_ms < ?2 ORDER BY node_id, model, bucket_ms";
static const char SQL_MOVE_DELETE[] =
    "DELETE FROM fleet_5m WHERE bucket_ms >= ?1 AND bucket_ms < ?2";
static const char SQL_FIRST_ROW[] = "SELECT min(bucket_ms) FROM fleet_5m WHERE bucket_ms >= ?1";
/* A day chunk store_fleet_add is filling. */
typedef struct open_day {
    long long node;
    char model[MODEL_MAX];
    int64_t day;
    gp_fleet_day d;
} open_day;

struct store_fleet {
    sqlite3_stmt *sealed, *seal_mark, *load, *save;
    open_day *open;
    size_t n_open;
    store_vtab *view; /* fleet_5m_all */
};

static store_fleet *kept(gp_store *st) {
    if (!st->fleet)
        st->fleet = gp_xcalloc(1, sizeof *st->fleet);
    return st->fleet;
}

static gp_status cached(gp_store *st, sqlite3_stmt **slot, const char *sql, gp_err *err) {
    if (*slot) {
        sqlite3_reset(*slot);
        sqlite3_clear_bindings(*slot);
        return GP_OK;
    }
    return store_prepare(st, sql, slot, err);
}

#define STMT(st, name, sql, err) cached((st), &kept(st)->name, (sql), (err))

void store_fleet_done(gp_store *st) {
    store_fleet *f = st->fleet;
    if (!f)
        return;
    sqlite3_finalize(f->sealed);
    sqlite3_finalize(f->seal_mark);
    sqlite3_finalize(f->load);
    sqlite3_finalize(f->save);
    free(f->open);
    store_vtab_done(f->view);
    free(f);
    st->fleet = NULL;
}

gp_status store_fleet_sealed(gp_store *st, int64_t *sealed_ms, gp_err *err) {
    *sealed_ms = 0;
    if (STMT(st, sealed, SQL_SEALED, err))
        return err->code;
    sqlite3_stmt *s = st->fleet->sealed;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *sealed_ms = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK
                                                 : store_fail(st, err, "read the fleet's seal");
}

static gp_status check_day(gp_store *st, int64_t day_ms, gp_err *err) {
    if (day_ms < 0)
        return gp_errorf(err, GP_E_INPUT, st->path, "a fleet bucket at %lld ms, before 1970",
                         (long long)day_ms);
    return GP_OK;
}

/* Where a fleet chunk lives, for messages: "fleet_5m_day, node 3, model H100, day 2026-11-20"
 * (node 0, model '*': the fleet's total). */
static void fleet_where(char *out, size_t cap, long long node, const char *model, int64_t day_ms) {
    char day[16];
    store_day_text(day_ms, day);
    snprintf(out, cap, "fleet_5m_day, node %lld, model %s, day %s", node, model, day);
}

static gp_status load(gp_store *st, long long node, const char *model, int64_t day_ms,
                      gp_fleet_day *d, gp_err *err) {
    memset(d, 0, sizeof *d);
    if (check_day(st, day_ms, err) || STMT(st, load, SQL_LOAD, err))
        return err->code;
    sqlite3_stmt *s = st->fleet->load;
    sqlite3_bind_int64(s, 1, day_ms);
    sqlite3_bind_int64(s, 2, node);
    sqlite3_bind_text(s, 3, model, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        char where[200];
        fleet_where(where, sizeof where, node, model, day_ms);
        res = gp_fleet_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0), where,
                              d, err);
        if (res != GP_OK)
            res = store_damaged(st, err);
    } else if (rc != SQLITE_DONE) {
        res = store_fail(st, err, "read a fleet chunk");
    }
    sqlite3_reset(s);
    return res;
}

static gp_status save(gp_store *st, long long node, const char *model, int64_t day_ms,
                      const gp_fleet_day *d, gp_err *err) {
    unsigned char *buf = gp_xmalloc(GP_FLEET_MAX_BYTES);
    size_t len;
    gp_status res = gp_fleet_encode(d, buf, &len, err);
    if (res == GP_OK && (check_day(st, day_ms, err) || STMT(st, save, SQL_SAVE, err)))
        res = err->code;
    if (res == GP_OK) {
        sqlite3_stmt *s = st->fleet->save;
        sqlite3_bind_int64(s, 1, day_ms);
        sqlite3_bind_int64(s, 2, node);
        sqlite3_bind_text(s, 3, model, -1, SQLITE_STATIC);
        sqlite3_bind_blob(s, 4, buf, (int)len, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE)
            res = store_fail(st, err, "write a fleet chunk");
    }
    free(buf);
    return res;
}

/* Columns col .. col + 22 of a fleet_5m row (gpus, util_sum, h00 .. h20) as a bucket. */
static void bucket_of_row(sqlite3_stmt *s, int col, gp_fleet_bucket *b) {
    b->gpus = sqlite3_column_int64(s, col);
    b->util_sum = sqlite3_column_double(s, col + 1);
    for (int k = 0; k < GP_FLEET_BINS; k++)
        b->bins[k] = (unsigned)sqlite3_column_int64(s, col + 2 + k);
}

/* Move fleet_5m's rows in [from, to) into their day chunks, each replacing its bucket, and
 * delete them. */
static gp_status move_rows(gp_store *st, int64_t from, int64_t to, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_MOVE_ROWS, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    gp_fleet_day *d = gp_xmalloc(sizeof *d);
    long long node = 0;
    char *model = NULL;
    int64_t day = INT64_MIN;
    gp_status res = GP_OK;
    int rc;
    while (res == GP_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        long long n = sqlite3_column_int64(s, 0);
        const char *m = (const char *)sqlite3_column_text(s, 1);
        int64_t b = sqlite3_column_int64(s, 2);
        if (!m || b < 0 || (b - store_day_of(b)) % STORE_BUCKET_MS) {
            res = gp_errorf(err, GP_E_DB, st->path,
                            "a damaged fleet_5m row (node %lld, bucket %lld ms)", n, (long long)b);
            break;
        }
        if (day == INT64_MIN || n != node || strcmp(m, model) || store_day_of(b) != day) {
            if (day != INT64_MIN && save(st, node, model, day, d, err))
                res = err->code;
            free(model);
            node = n;
            model = gp_xstrdup(m);
            day = store_day_of(b);
            if (res == GP_OK && load(st, node, model, day, d, err))
                res = err->code;
        }
        if (res == GP_OK)
            bucket_of_row(s, 3, &d->b[(b - day) / STORE_BUCKET_MS]);
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "read fleet rows to pack");
    sqlite3_finalize(s);
    if (res == GP_OK && day != INT64_MIN && save(st, node, model, day, d, err))
        res = err->code;
    free(model);
    free(d);
    if (res != GP_OK)
        return res;
    if (store_prepare(st, SQL_MOVE_DELETE, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "pack fleet rows");
}

gp_status store_fleet_seal(gp_store *st, int64_t before_ms, gp_err *err) {
    before_ms = store_day_of(before_ms);
    int64_t sealed;
    if (store_fleet_sealed(st, &sealed, err))
        return err->code;
    if (before_ms <= sealed)
        return GP_OK;
    /* Day by day, from the first row: one day's rows sorted at a time. */
    sqlite3_stmt *first;
    if (store_prepare(st, SQL_FIRST_ROW, &first, err))
        return err->code;
    gp_status res = GP_OK;
    int64_t at = INT64_MIN;
    for (;;) {
        sqlite3_bind_int64(first, 1, at);
        int rc = sqlite3_step(first);
        bool none = rc != SQLITE_ROW || sqlite3_column_type(first, 0) == SQLITE_NULL;
        int64_t b = none ? 0 : sqlite3_column_int64(first, 0);
        sqlite3_reset(first);
        if (rc != SQLITE_ROW) {
            res = store_fail(st, err, "find fleet rows to seal");
            break;
        }
        if (none || b >= before_ms)
            break;
        int64_t day = store_day_of(b);
        if (move_rows(st, b, day + GP_DAY_MS, err)) {
            res = err->code;
            break;
        }
        at = day + GP_DAY_MS;
    }
    sqlite3_finalize(first);
    if (res != GP_OK || STMT(st, seal_mark, SQL_SEAL_MARK, err))
        return res != GP_OK ? res : err->code;
    sqlite3_stmt *s = st->fleet->seal_mark;
    sqlite3_bind_int64(s, 1, before_ms);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "seal the fleet's days");
}

gp_status store_fleet_settle(gp_store *st, int64_t from_ms, int64_t to_ms, gp_err *err) {
    int64_t sealed;
    if (store_fleet_sealed(st, &sealed, err))
        return err->code;
    if (from_ms >= sealed || to_ms <= from_ms)
        return GP_OK;
    return move_rows(st, from_ms, to_ms < sealed ? to_ms : sealed, err);
}

/* ---- adding imported buckets into sealed days -------------------------------------------- */

gp_status store_fleet_flush(gp_store *st, gp_err *err) {
    store_fleet *f = kept(st);
    gp_status res = GP_OK;
    for (size_t i = 0; i < f->n_open && res == GP_OK; i++)
        res = save(st, f->open[i].node, f->open[i].model, f->open[i].day, &f->open[i].d, err);
    f->n_open = 0;
    return res;
}

void store_fleet_discard(gp_store *st) {
    if (st->fleet)
        st->fleet->n_open = 0;
}

static void bucket_add(gp_fleet_bucket *b, const gp_fleet_bucket *x) {
    if (b->gpus == 0) {
        *b = *x;
        return;
    }
    /* The same arithmetic as the import's upsert: gpus + gpus, util_sum + util_sum, ... */
    b->gpus += x->gpus;
    b->util_sum += x->util_sum;
    for (int k = 0; k < GP_FLEET_BINS; k++)
        b->bins[k] += x->bins[k];
}

gp_status store_fleet_add(gp_store *st, long long node, const char *model, int64_t bucket_ms,
                          const gp_fleet_bucket *x, gp_err *err) {
    store_fleet *f = kept(st);
    int64_t day = store_day_of(bucket_ms);
    if (bucket_ms < 0 || (bucket_ms - day) % STORE_BUCKET_MS)
        return gp_errorf(err, GP_E_INPUT, st->path, "a fleet bucket at %lld ms",
                         (long long)bucket_ms);
    if (strlen(model) >= MODEL_MAX) { /* not kept: read, add and write at once */
        gp_fleet_day *d = gp_xmalloc(sizeof *d);
        gp_status res = load(st, node, model, day, d, err);
        if (res == GP_OK) {
            bucket_add(&d->b[(bucket_ms - day) / STORE_BUCKET_MS], x);
            res = save(st, node, model, day, d, err);
        }
        free(d);
        return res;
    }
    size_t i = 0;
    while (i < f->n_open && !(f->open[i].node == node && f->open[i].day == day &&
                              strcmp(f->open[i].model, model) == 0))
        i++;
    if (i == f->n_open) {
        if (f->n_open == OPEN_MAX && store_fleet_flush(st, err))
            return err->code;
        if (!f->open)
            f->open = gp_xmalloc(OPEN_MAX * sizeof *f->open);
        i = f->n_open;
        open_day *o = &f->open[i];
        o->node = node;
        snprintf(o->model, sizeof o->model, "%s", model);
        o->day = day;
        if (load(st, node, model, day, &o->d, err))
            return err->code;
        f->n_open++;
    }
    bucket_add(&f->open[i].d.b[(bucket_ms - day) / STORE_BUCKET_MS], x);
    return GP_OK;
}

/* ---- fleet_5m_all, the readers' view (a descriptor of store_vtab.c) ---------------------- */

enum { COL_NODE, COL_MODEL, COL_BUCKET, COL_GPUS, COL_UTIL, COL_H00 };

#define FLEET_COLS                                                                                 \
    "node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, h03, h04, h05, h06, h07, h08, "     \
    "h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20"
#define SQL_FLEET_SEALED "coalesce((SELECT sealed_ms FROM fleet_sealed), 0)"
/* The chunks of the sealed days from the one holding lo (?1, never negative) to hi (?2). */
#define SQL_VIEW_CHUNKS                                                                            \
    "SELECT day_ms, node_id, model, buckets FROM fleet_5m_day WHERE day_ms >= ?1 - ?1 "            \
    "% " SQL_DAY_MS " AND day_ms < min(?2, " SQL_FLEET_SEALED ") ORDER BY day_ms, node_id, model"
/* One node and model's: a probe of fleet_5m_day_key per day that has chunks, as the next such
 * day is found by its index, not a scan of every node's chunks. */
#define SQL_VIEW_CHUNKS_KEY                                                                        \
    "WITH RECURSIVE d(day) AS (SELECT (SELECT min(day_ms) FROM fleet_5m_day WHERE day_ms >= ?1 "   \
    "- ?1 % " SQL_DAY_MS ") UNION ALL SELECT (SELECT min(day_ms) FROM fleet_5m_day WHERE day_ms "  \
    "> d.day) FROM d WHERE d.day < min(?2, " SQL_FLEET_SEALED "))"                                 \
    " SELECT day_ms, node_id, model, buckets FROM d CROSS JOIN fleet_5m_day f ON "                 \
    "f.day_ms = d.day AND f.node_id = ?3 AND f.model = ?4 WHERE d.day < min(?2, " SQL_FLEET_SEALED \
    ")"
/* The rows, from the boundary (or lo) to hi, in fleet_5m's primary key order. */
#define SQL_VIEW_ROWS                                                                              \
    "SELECT " FLEET_COLS " FROM fleet_5m WHERE bucket_ms >= max(?1, " SQL_FLEET_SEALED ") AND "    \
    "bucket_ms < ?2 ORDER BY bucket_ms, node_id, model"
/* One node and model's: one primary-key probe a 5-minute bucket up to the last row, as the
 * fleet total was read before (a range scan on bucket_ms would read every node's rows). */
#define SQL_BUCKET_MS STORE_STR(STORE_BUCKET_MS_)
#define SQL_ROWS_END "min(?2, (SELECT max(bucket_ms) FROM fleet_5m) + 1)"
#define SQL_VIEW_ROWS_KEY                                                                          \
    "WITH RECURSIVE b(t) AS (SELECT (max(?1, " SQL_FLEET_SEALED ") + " SQL_BUCKET_MS               \
    " - 1) / " SQL_BUCKET_MS " * " SQL_BUCKET_MS " UNION ALL SELECT t + " SQL_BUCKET_MS            \
    " FROM b WHERE t + " SQL_BUCKET_MS " < " SQL_ROWS_END ") SELECT " FLEET_COLS                   \
    " FROM b CROSS JOIN fleet_5m f ON "                                                            \
    "f.bucket_ms = b.t AND f.node_id = ?3 AND f.model = ?4 WHERE b.t < " SQL_ROWS_END

static gp_status view_decode(const store_vtab_desc *d, sqlite3_stmt *row, void *chunk,
                             gp_err *err) {
    (void)d;
    const char *model = (const char *)sqlite3_column_text(row, 2);
    char where[200];
    fleet_where(where, sizeof where, sqlite3_column_int64(row, 1), model ? model : "(none)",
                sqlite3_column_int64(row, 0));
    if (!model)
        return gp_errorf(err, GP_E_DB, where, "no model");
    return gp_fleet_decode(sqlite3_column_blob(row, 3), (size_t)sqlite3_column_bytes(row, 3), where,
                           chunk, err);
}

static void view_cell(const void *chunk, int slot, int col, sqlite3_context *ctx) {
    const gp_fleet_bucket *b = &((const gp_fleet_day *)chunk)->b[slot];
    if (col == COL_GPUS)
        sqlite3_result_int64(ctx, b->gpus);
    else if (col == COL_UTIL)
        sqlite3_result_double(ctx, b->util_sum);
    else
        sqlite3_result_int64(ctx, b->bins[col - COL_H00]);
}

/* A node and model: a bucket's row; an IN list: some nodes'; else every node's, a hundred
 * times more without a range and one bucket's with bucket_ms = ?. */
static void view_cost(int flags, double *cost, sqlite3_int64 *rows) {
    double n = (flags & STORE_VT_KEY) ? 300 : (flags & STORE_VT_IN) ? 1e4 : 1e6;
    if (!(flags & (STORE_VT_LO | STORE_VT_HI | STORE_VT_EQ)))
        n *= 100;
    else if (flags & STORE_VT_EQ)
        n /= 288;
    *rows = (sqlite3_int64)n;
    *cost = n;
}

/* fleet_5m_all, with fleet_5m's columns: over a range of bucket_ms (and optionally node_id = ?
 * AND model = ?, both, or node_id IN (...)) the buckets in fleet_5m's primary key order,
 * (bucket_ms, node_id, model), chunks for the sealed days and rows after. */
static const store_vtab_desc VIEW = {
    .name = "fleet_5m_all",
    .declare = "CREATE TABLE x(node_id INTEGER, model TEXT, bucket_ms INTEGER, gpus INTEGER, "
               "util_sum REAL, h00 INTEGER, h01 INTEGER, h02 INTEGER, h03 INTEGER, h04 INTEGER, "
               "h05 INTEGER, h06 INTEGER, h07 INTEGER, h08 INTEGER, h09 INTEGER, h10 INTEGER, "
               "h11 INTEGER, h12 INTEGER, h13 INTEGER, h14 INTEGER, h15 INTEGER, h16 INTEGER, "
               "h17 INTEGER, h18 INTEGER, h19 INTEGER, h20 INTEGER)",
    .types = "ITIIRIIIIIIIIIIIIIIIIIIIII",
    .range_col = COL_BUCKET,
    .n_keys = 2,
    .key_col = {COL_NODE, COL_MODEL},
    .key_text = {false, true},
    .in_col = COL_NODE,
    .by_key = false,
    .lo_min = 0, /* no bucket before 1970 is stored */
    .chunks = SQL_VIEW_CHUNKS,
    .chunks_key = SQL_VIEW_CHUNKS_KEY,
    .rows = SQL_VIEW_ROWS,
    .rows_key = SQL_VIEW_ROWS_KEY,
    .slots = GP_FLEET_SLOTS,
    .bucket_ms = STORE_BUCKET_MS,
    .chunk_size = sizeof(gp_fleet_day),
    .chunk_table = "fleet_5m_day",
    .decode = view_decode,
    .count_at = offsetof(gp_fleet_day, b[0].gpus),
    .count_stride = sizeof(gp_fleet_bucket),
    .cell = view_cell,
    .cost = view_cost,
};

gp_status store_fleet_open(gp_store *st, gp_err *err) {
    return store_vtab_open(st, &VIEW, &kept(st)->view, err);
}
