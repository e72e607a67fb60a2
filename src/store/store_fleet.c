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
 * Readers see both through the eponymous virtual table fleet_5m_all, with fleet_5m's columns:
 * over a range of bucket_ms (and optionally node_id = ? AND model = ?, both) it yields the
 * buckets in fleet_5m's primary key order, (bucket_ms, node_id, model), chunks for the sealed
 * days and rows after, so every SQL aggregate over it adds in the same order as over the
 * table and the figures stay bit for bit the same. */
#include <math.h>
#include <stdbool.h>
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
/* The readers' statements: a day's chunks (all, or one node and model), fleet_5m's rows. */
static const char SQL_DAY_ALL[] =
    "SELECT node_id, model, buckets FROM fleet_5m_day WHERE day_ms = ?1 ORDER BY node_id, model";
static const char SQL_DAY_KEY[] = "SELECT node_id, model, buckets FROM fleet_5m_day WHERE "
                                  "day_ms = ?1 AND node_id = ?2 AND model = ?3";
static const char SQL_ROWS_ALL[] =
    "SELECT node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, h03, h04, h05, h06, h07, "
    "h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20 FROM fleet_5m "
    "WHERE bucket_ms >= ?1 AND bucket_ms < ?2 ORDER BY bucket_ms, node_id, model";
static const char SQL_ROWS_KEY[] =
    "SELECT node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, h03, h04, h05, h06, h07, "
    "h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20 FROM fleet_5m "
    "WHERE bucket_ms = ?1 AND node_id = ?2 AND model = ?3";
static const char SQL_LAST_ROW[] = "SELECT max(bucket_ms) FROM fleet_5m";
/* The next day with a chunk: a window over years of gaps is not walked day by day. */
static const char SQL_NEXT_DAY[] = "SELECT min(day_ms) FROM fleet_5m_day WHERE day_ms >= ?1";

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

/* ---- fleet_5m_all, the readers' view ----------------------------------------------------- */

enum { COL_NODE, COL_MODEL, COL_BUCKET, COL_GPUS, COL_UTIL, COL_H00 };
enum { HAS_LO = 1, HAS_HI = 2, HAS_KEY = 4, LO_EQ = 8, HAS_NODES = 16 };

typedef struct fv_chunk {
    long long node;
    char *model;
    gp_fleet_day d;
} fv_chunk;

typedef struct fv_cursor {
    sqlite3_vtab_cursor base;
    gp_store *st;
    sqlite3_stmt *day_all, *day_key, *rows_all, *rows_key, *last, *next_day;
    bool eof, keyed, in_rows;
    int64_t lo, hi, sealed, day, probe, probe_end;
    long long key_node;
    char *key_model;
    long long *nodes; /* node_id IN (...), sorted; NULL: every node */
    size_t n_nodes, cap_nodes;
    fv_chunk *chunks; /* the current day's chunks, in (node_id, model) order */
    size_t n, cap;
    int slot;
    size_t at;
    /* the current bucket */
    long long node;
    const char *model; /* borrowed: a chunk's, or the row statement's until the next step */
    int64_t bucket;
    gp_fleet_bucket b;
} fv_cursor;

static int fv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **errmsg) {
    (void)argc, (void)argv, (void)errmsg;
    int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(node_id INTEGER, model TEXT, bucket_ms INTEGER, gpus INTEGER, "
            "util_sum REAL, h00 INTEGER, h01 INTEGER, h02 INTEGER, h03 INTEGER, h04 INTEGER, "
            "h05 INTEGER, h06 INTEGER, h07 INTEGER, h08 INTEGER, h09 INTEGER, h10 INTEGER, "
            "h11 INTEGER, h12 INTEGER, h13 INTEGER, h14 INTEGER, h15 INTEGER, h16 INTEGER, "
            "h17 INTEGER, h18 INTEGER, h19 INTEGER, h20 INTEGER)");
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_vtab *v = sqlite3_malloc(sizeof(sqlite3_vtab) + sizeof(gp_store *));
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    memcpy(v + 1, &aux, sizeof(gp_store *));
    *out = v;
    return SQLITE_OK;
}

static int fv_disconnect(sqlite3_vtab *v) {
    sqlite3_free(v);
    return SQLITE_OK;
}

/* idxNum: HAS_LO, HAS_HI (or LO_EQ: bucket_ms = ?, both bounds), then HAS_KEY (node_id = ?
 * AND model = ?, both or neither) or HAS_NODES (node_id IN (...), the list taken whole through
 * sqlite3_vtab_in), arguments in that order. */
static int fv_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
    (void)v;
    int lo = -1, hi = -1, eq = -1, node = -1, model = -1, in = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (!c->usable)
            continue;
        if (c->iColumn == COL_BUCKET && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
            eq = i;
        else if (c->iColumn == COL_BUCKET && lo < 0 &&
                 (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT))
            lo = i;
        else if (c->iColumn == COL_BUCKET && hi < 0 &&
                 (c->op == SQLITE_INDEX_CONSTRAINT_LT || c->op == SQLITE_INDEX_CONSTRAINT_LE))
            hi = i;
        else if (c->iColumn == COL_NODE && c->op == SQLITE_INDEX_CONSTRAINT_EQ &&
                 sqlite3_vtab_in(info, i, -1) && in < 0)
            in = i; /* node_id IN (...): taken whole, so the order stays bucket first */
        else if (c->iColumn == COL_NODE && c->op == SQLITE_INDEX_CONSTRAINT_EQ && node < 0)
            node = i;
        else if (c->iColumn == COL_MODEL && c->op == SQLITE_INDEX_CONSTRAINT_EQ && model < 0)
            model = i;
    }
    int idx = 0, arg = 0;
    if (eq >= 0) {
        idx |= LO_EQ;
        info->aConstraintUsage[eq].argvIndex = ++arg;
    } else {
        if (lo >= 0) {
            idx |= HAS_LO;
            info->aConstraintUsage[lo].argvIndex = ++arg;
        }
        if (hi >= 0) {
            idx |= HAS_HI;
            info->aConstraintUsage[hi].argvIndex = ++arg;
        }
    }
    /* A node alone (a join's n.id = f.node_id) is not taken: the readers walk the window
     * once in bucket order, as they walked fleet_5m's primary key. */
    if (node >= 0 && model >= 0) {
        idx |= HAS_KEY;
        info->aConstraintUsage[node].argvIndex = ++arg;
        info->aConstraintUsage[model].argvIndex = ++arg;
    } else if (in >= 0) {
        idx |= HAS_NODES;
        info->aConstraintUsage[in].argvIndex = ++arg;
        info->aConstraintUsage[in].omit = 1; /* applied here, exactly: not checked again */
        sqlite3_vtab_in(info, in, 1);
    }
    /* SQLite checks every other constraint again on what comes back (omit stays 0). */
    /* The order is fleet_5m's primary key: bucket_ms, node_id, model, ascending. */
    static const int key_order[3] = {COL_BUCKET, COL_NODE, COL_MODEL};
    bool ordered = info->nOrderBy <= 3;
    for (int i = 0; ordered && i < info->nOrderBy; i++)
        ordered = info->aOrderBy[i].iColumn == key_order[i] && !info->aOrderBy[i].desc;
    info->orderByConsumed = ordered && info->nOrderBy > 0;
    info->idxNum = idx;
    double rows = (idx & HAS_KEY) ? 300 : (idx & HAS_NODES) ? 1e4 : 1e6;
    if (!(idx & (HAS_LO | HAS_HI | LO_EQ)))
        rows *= 100;
    else if (idx & LO_EQ)
        rows /= 288;
    info->estimatedRows = (sqlite3_int64)rows;
    info->estimatedCost = rows;
    return SQLITE_OK;
}

static void chunks_clear(fv_cursor *c) {
    for (size_t i = 0; i < c->n; i++)
        free(c->chunks[i].model);
    c->n = 0;
}

static int fv_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
    gp_store *st;
    memcpy(&st, v + 1, sizeof st);
    fv_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->st = st;
    gp_err err;
    if (store_prepare(st, SQL_DAY_ALL, &c->day_all, &err) ||
        store_prepare(st, SQL_DAY_KEY, &c->day_key, &err) ||
        store_prepare(st, SQL_ROWS_ALL, &c->rows_all, &err) ||
        store_prepare(st, SQL_ROWS_KEY, &c->rows_key, &err) ||
        store_prepare(st, SQL_LAST_ROW, &c->last, &err) ||
        store_prepare(st, SQL_NEXT_DAY, &c->next_day, &err)) {
        sqlite3_finalize(c->day_all);
        sqlite3_finalize(c->day_key);
        sqlite3_finalize(c->rows_all);
        sqlite3_finalize(c->rows_key);
        sqlite3_finalize(c->last);
        sqlite3_free(c);
        return SQLITE_ERROR;
    }
    *out = &c->base;
    return SQLITE_OK;
}

static int fv_close(sqlite3_vtab_cursor *cur) {
    fv_cursor *c = (fv_cursor *)cur;
    chunks_clear(c);
    free(c->chunks);
    free(c->key_model);
    free(c->nodes);
    sqlite3_finalize(c->day_all);
    sqlite3_finalize(c->day_key);
    sqlite3_finalize(c->rows_all);
    sqlite3_finalize(c->rows_key);
    sqlite3_finalize(c->last);
    sqlite3_finalize(c->next_day);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int fv_error(fv_cursor *c, const char *msg) {
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
}

static int by_node(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Read day c->day's chunks; 0, or an SQLite error code. */
static int load_day(fv_cursor *c) {
    chunks_clear(c);
    sqlite3_stmt *s = c->keyed ? c->day_key : c->day_all;
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, c->day);
    if (c->keyed) {
        sqlite3_bind_int64(s, 2, c->key_node);
        sqlite3_bind_text(s, 3, c->key_model, -1, SQLITE_STATIC);
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        long long node = sqlite3_column_int64(s, 0);
        if (c->nodes && !bsearch(&node, c->nodes, c->n_nodes, sizeof *c->nodes, by_node))
            continue; /* not selected: its chunk is not read */
        c->chunks = gp_xgrow(c->chunks, &c->cap, c->n, sizeof *c->chunks, 16);
        fv_chunk *k = &c->chunks[c->n];
        k->node = node;
        const char *m = (const char *)sqlite3_column_text(s, 1);
        gp_err err;
        char where[200];
        fleet_where(where, sizeof where, node, m ? m : "(none)", c->day);
        if (!m || gp_fleet_decode(sqlite3_column_blob(s, 2), (size_t)sqlite3_column_bytes(s, 2),
                                  where, &k->d, &err) != GP_OK) {
            char msg[sizeof err.where + sizeof err.msg + 2];
            snprintf(msg, sizeof msg, "%s: %s", m ? err.where : where, m ? err.msg : "no model");
            sqlite3_reset(s);
            return fv_error(c, msg);
        }
        k->model = gp_xstrdup(m);
        c->n++;
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : fv_error(c, sqlite3_errmsg(c->st->db));
}

/* Start the rows: from the boundary (or lo) to hi; keyed, one probe a 5-minute bucket up to
 * the last row, as the fleet total was read before. */
static int start_rows(fv_cursor *c) {
    c->in_rows = true;
    int64_t from = c->lo > c->sealed ? c->lo : c->sealed;
    if (!c->keyed) {
        sqlite3_reset(c->rows_all);
        sqlite3_bind_int64(c->rows_all, 1, from);
        sqlite3_bind_int64(c->rows_all, 2, c->hi);
        return 0;
    }
    sqlite3_reset(c->last);
    int rc = sqlite3_step(c->last);
    int64_t last = rc == SQLITE_ROW && sqlite3_column_type(c->last, 0) != SQLITE_NULL
                       ? sqlite3_column_int64(c->last, 0)
                       : INT64_MIN / 2;
    sqlite3_reset(c->last);
    if (rc != SQLITE_ROW)
        return fv_error(c, sqlite3_errmsg(c->st->db));
    c->probe = from <= 0 ? 0 : (from + STORE_BUCKET_MS - 1) / STORE_BUCKET_MS * STORE_BUCKET_MS;
    c->probe_end = last < c->hi - 1 ? last + 1 : c->hi;
    return 0;
}

/* The next row bucket; 0, -1 when there is none, or an SQLite error code. */
static int next_row(fv_cursor *c) {
    sqlite3_stmt *s = c->keyed ? c->rows_key : c->rows_all;
    for (;;) {
        if (c->keyed) {
            if (c->probe >= c->probe_end)
                return -1;
            sqlite3_reset(s);
            sqlite3_bind_int64(s, 1, c->probe);
            sqlite3_bind_int64(s, 2, c->key_node);
            sqlite3_bind_text(s, 3, c->key_model, -1, SQLITE_STATIC);
            c->probe += STORE_BUCKET_MS;
        }
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW && c->nodes) {
            long long node = sqlite3_column_int64(s, 0);
            if (!bsearch(&node, c->nodes, c->n_nodes, sizeof *c->nodes, by_node))
                continue;
        }
        if (rc == SQLITE_ROW) {
            c->node = sqlite3_column_int64(s, 0);
            c->model = (const char *)sqlite3_column_text(s, 1);
            c->bucket = sqlite3_column_int64(s, 2);
            bucket_of_row(s, 3, &c->b);
            return 0;
        }
        if (rc != SQLITE_DONE)
            return fv_error(c, sqlite3_errmsg(c->st->db));
        if (!c->keyed)
            return -1;
    }
}

/* The next chunk bucket of the sealed days, bucket by bucket across the day's chunks; 0, -1
 * when the sealed days of the window are done, or an SQLite error code. */
static int next_chunk(fv_cursor *c) {
    for (;;) {
        while (c->slot < GP_FLEET_SLOTS) {
            int64_t t = c->day + c->slot * STORE_BUCKET_MS;
            if (t >= c->hi) {
                c->slot = GP_FLEET_SLOTS;
                break;
            }
            while (c->at < c->n) {
                fv_chunk *k = &c->chunks[c->at++];
                const gp_fleet_bucket *b = &k->d.b[c->slot];
                if (b->gpus == 0 || t < c->lo)
                    continue;
                c->node = k->node;
                c->model = k->model;
                c->bucket = t;
                c->b = *b;
                return 0;
            }
            c->slot++;
            c->at = 0;
        }
        sqlite3_reset(c->next_day);
        sqlite3_bind_int64(c->next_day, 1, c->day + GP_DAY_MS);
        int found = sqlite3_step(c->next_day);
        if (found != SQLITE_ROW) {
            sqlite3_reset(c->next_day);
            return fv_error(c, sqlite3_errmsg(c->st->db));
        }
        c->day = sqlite3_column_type(c->next_day, 0) == SQLITE_NULL
                     ? INT64_MAX / 2
                     : sqlite3_column_int64(c->next_day, 0);
        sqlite3_reset(c->next_day);
        if (c->day >= c->sealed || c->day >= c->hi)
            return -1;
        int rc = load_day(c);
        if (rc)
            return rc;
        c->slot = 0;
        c->at = 0;
    }
}

static int fv_next(sqlite3_vtab_cursor *cur) {
    fv_cursor *c = (fv_cursor *)cur;
    if (!c->in_rows) {
        int rc = next_chunk(c);
        if (rc == 0)
            return SQLITE_OK;
        if (rc != -1)
            return rc;
        if ((rc = start_rows(c)) != 0)
            return rc;
    }
    int rc = next_row(c);
    if (rc == -1)
        c->eof = true;
    return rc == -1 ? SQLITE_OK : rc;
}

/* A bound as an integer range: an integer is exact; a REAL is widened to the integers around
 * it; anything else leaves the range open, SQLite deciding after us. */
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

static int fv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                     sqlite3_value **argv) {
    (void)idx_str;
    fv_cursor *c = (fv_cursor *)cur;
    int a = 0;
    int64_t v;
    c->lo = 0; /* no bucket before 1970 is stored */
    c->hi = INT64_MAX / 2;
    c->eof = false;
    c->keyed = false;
    chunks_clear(c);
    free(c->key_model);
    c->key_model = NULL;
    free(c->nodes);
    c->nodes = NULL;
    c->n_nodes = c->cap_nodes = 0;
    if ((idx & LO_EQ) && a < argc) {
        if (bound_of(argv[a], true, &v) && v > c->lo)
            c->lo = v;
        if (bound_of(argv[a], false, &v) && v < c->hi)
            c->hi = v + 1;
        a++;
    }
    if ((idx & HAS_LO) && a < argc) {
        if (bound_of(argv[a], true, &v) && v > c->lo)
            c->lo = v;
        a++;
    }
    if ((idx & HAS_HI) && a < argc) {
        if (bound_of(argv[a], false, &v) && v < c->hi)
            c->hi = v + 1; /* LT and LE alike: SQLite drops the extra row */
        a++;
    }
    if ((idx & HAS_KEY) && a + 1 < argc) {
        if (sqlite3_value_numeric_type(argv[a]) != SQLITE_INTEGER ||
            sqlite3_value_type(argv[a + 1]) != SQLITE_TEXT) {
            c->eof = true; /* node_id is an INTEGER and model TEXT: nothing else matches */
            return SQLITE_OK;
        }
        c->keyed = true;
        c->key_node = sqlite3_value_int64(argv[a]);
        c->key_model = gp_xstrdup((const char *)sqlite3_value_text(argv[a + 1]));
    } else if ((idx & HAS_NODES) && a < argc) {
        /* Every INTEGER of the list; anything else never equals a node_id. */
        c->nodes = gp_xmalloc(sizeof *c->nodes);
        sqlite3_value *in;
        int rc = sqlite3_vtab_in_first(argv[a], &in);
        for (; rc == SQLITE_OK && in; rc = sqlite3_vtab_in_next(argv[a], &in)) {
            if (sqlite3_value_numeric_type(in) != SQLITE_INTEGER)
                continue;
            c->nodes = gp_xgrow(c->nodes, &c->cap_nodes, c->n_nodes, sizeof *c->nodes, 16);
            c->nodes[c->n_nodes++] = sqlite3_value_int64(in);
        }
        if (rc != SQLITE_OK && rc != SQLITE_DONE)
            return rc;
        qsort(c->nodes, c->n_nodes, sizeof *c->nodes, by_node);
    }
    gp_err err;
    if (store_fleet_sealed(c->st, &c->sealed, &err))
        return fv_error(c, err.msg);
    c->in_rows = false;
    c->day = store_day_of(c->lo);
    c->slot = GP_FLEET_SLOTS; /* no day loaded: next_chunk loads c->day + 1 day */
    c->at = 0;
    c->day -= GP_DAY_MS;
    if (c->lo >= c->hi) {
        c->eof = true;
        return SQLITE_OK;
    }
    return fv_next(cur);
}

static int fv_eof(sqlite3_vtab_cursor *cur) {
    return ((fv_cursor *)cur)->eof;
}

static int fv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    fv_cursor *c = (fv_cursor *)cur;
    switch (col) {
    case COL_NODE:
        sqlite3_result_int64(ctx, c->node);
        break;
    case COL_MODEL:
        sqlite3_result_text(ctx, c->model, -1, SQLITE_TRANSIENT);
        break;
    case COL_BUCKET:
        sqlite3_result_int64(ctx, c->bucket);
        break;
    case COL_GPUS:
        sqlite3_result_int64(ctx, c->b.gpus);
        break;
    case COL_UTIL:
        sqlite3_result_double(ctx, c->b.util_sum);
        break;
    default:
        sqlite3_result_int64(ctx, c->b.bins[col - COL_H00]);
        break;
    }
    return SQLITE_OK;
}

static int fv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    fv_cursor *c = (fv_cursor *)cur;
    *rowid = c->bucket / STORE_BUCKET_MS;
    return SQLITE_OK;
}

static const sqlite3_module fv_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: there is nothing to CREATE VIRTUAL TABLE */
    .xConnect = fv_connect,
    .xBestIndex = fv_best_index,
    .xDisconnect = fv_disconnect,
    .xDestroy = fv_disconnect,
    .xOpen = fv_open,
    .xClose = fv_close,
    .xFilter = fv_filter,
    .xNext = fv_next,
    .xEof = fv_eof,
    .xColumn = fv_column,
    .xRowid = fv_rowid,
};

gp_status store_fleet_open(gp_store *st, gp_err *err) {
    if (sqlite3_create_module(st->db, "fleet_5m_all", &fv_module, st) != SQLITE_OK)
        return store_fail(st, err, "register the fleet view");
    return GP_OK;
}
