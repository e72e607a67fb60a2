/* The readers' virtual tables: a live table and its day chunks read as one table
 * (store_int.h, store_vtab_desc; docs/architecture.md, "The readers' virtual tables").
 *
 * A sealed day's buckets are a chunk, an open day's are rows, and the two never overlap, so a
 * reader takes both: the chunks of the range, a day at a time, bucket by bucket across the
 * day's chunks in key order, then the rows. A table ordered by key (rollup_5m_all) does that
 * per key; one ordered by bucket (fleet_5m_all) once for all keys. Either way the buckets come
 * in the order a scan of the live table's primary key gave before its days were sealed, so
 * every SQL aggregate over them adds in the same order and the figures stay bit for bit the
 * same. What differs between the tables (columns, statements, codec, the planner's costs) is
 * the descriptor's. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/xmem.h"
#include "store_int.h"

/* A chunk of the current day: its keys copied out of the statement, its buckets decoded. */
typedef struct vt_entry {
    sqlite3_int64 key[2];
    char *text[2]; /* a TEXT key's copy */
} vt_entry;

/* One cursor's statements and buffers, kept between queries: a correlated subquery opens a
 * cursor once per outer row, and preparing its statements each time would cost more than the
 * rows it reads. */
typedef struct vt_set {
    sqlite3_stmt *keys, *chunks, *chunks_key, *chunks_key_desc, *rows, *rows_key, *rows_key_desc;
    vt_entry *e;
    unsigned char *buf; /* e's chunks, chunk_size bytes each */
    size_t cap;
    sqlite3_int64 *in; /* in_col IN (...), sorted */
    size_t cap_in;
    char *text[2]; /* the filter's TEXT keys */
    struct vt_set *next;
} vt_set;

struct store_vtab {
    gp_store *st;
    const store_vtab_desc *d;
    vt_set *free_sets;
};

typedef struct vt_table {
    sqlite3_vtab base;
    store_vtab *v;
} vt_table;

typedef struct vt_cursor {
    sqlite3_vtab_cursor base;
    store_vtab *v;
    const store_vtab_desc *d;
    vt_set *set;
    sqlite3_stmt *ck, *rw; /* the current key's (or every key's) chunks and rows */
    bool groups;           /* walking keys_sql: no key given to a table ordered by key */
    bool eof, started, in_rows, desc, keyed, in_on, pending, ck_done;
    int64_t lo, hi;
    sqlite3_int64 key[2];
    const char *text[2]; /* borrowed: set->text, or the keys statement's row */
    size_t n_in;
    size_t n; /* chunks of the current day */
    int64_t day;
    int slot;                   /* the current slot of the day; -1 or slots: none */
    size_t at;                  /* the next chunk to look at in the slot */
    size_t cur;                 /* the current bucket's chunk (in the chunks) */
    const unsigned char *chunk; /* its buckets */
    int64_t bucket;
} vt_cursor;

static void set_free(vt_set *s) {
    sqlite3_finalize(s->keys);
    sqlite3_finalize(s->chunks);
    sqlite3_finalize(s->chunks_key);
    sqlite3_finalize(s->chunks_key_desc);
    sqlite3_finalize(s->rows);
    sqlite3_finalize(s->rows_key);
    sqlite3_finalize(s->rows_key_desc);
    for (size_t i = 0; i < s->cap; i++) {
        free(s->e[i].text[0]);
        free(s->e[i].text[1]);
    }
    free(s->e);
    free(s->buf);
    free(s->in);
    free(s->text[0]);
    free(s->text[1]);
    free(s);
}

void store_vtab_done(store_vtab *v) {
    if (!v)
        return;
    while (v->free_sets) {
        vt_set *s = v->free_sets;
        v->free_sets = s->next;
        set_free(s);
    }
    free(v);
}

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **errmsg) {
    (void)argc, (void)argv, (void)errmsg;
    store_vtab *v = aux;
    int rc = sqlite3_declare_vtab(db, v->d->declare);
    if (rc != SQLITE_OK)
        return rc;
    vt_table *t = sqlite3_malloc(sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    t->v = v;
    *out = &t->base;
    return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *t) {
    sqlite3_free(t);
    return SQLITE_OK;
}

/* idxNum: STORE_VT_* flags; the arguments come as bucket_ms = ? (STORE_VT_EQ) or its lower
 * and upper bounds, then the keys (STORE_VT_KEY) or the IN list (STORE_VT_IN), in that order. */
static int vt_best_index(sqlite3_vtab *tab, sqlite3_index_info *info) {
    const store_vtab_desc *d = ((vt_table *)tab)->v->d;
    int lo = -1, hi = -1, eq = -1, key[2] = {-1, -1}, in = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (!c->usable)
            continue;
        if (c->iColumn == d->range_col) {
            if (c->op == SQLITE_INDEX_CONSTRAINT_EQ)
                eq = i;
            else if (lo < 0 &&
                     (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT))
                lo = i;
            else if (hi < 0 &&
                     (c->op == SQLITE_INDEX_CONSTRAINT_LT || c->op == SQLITE_INDEX_CONSTRAINT_LE))
                hi = i;
            continue;
        }
        for (int j = 0; j < d->n_keys; j++) {
            if (c->iColumn != d->key_col[j] || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
                continue;
            if (c->iColumn == d->in_col && sqlite3_vtab_in(info, i, -1) && in < 0)
                in = i; /* an IN list: taken whole, so the order stays bucket first */
            else if (key[j] < 0)
                key[j] = i;
        }
    }
    int idx = 0, arg = 0;
    if (eq >= 0) {
        idx |= STORE_VT_EQ;
        info->aConstraintUsage[eq].argvIndex = ++arg;
    } else {
        if (lo >= 0) {
            idx |= STORE_VT_LO;
            info->aConstraintUsage[lo].argvIndex = ++arg;
        }
        if (hi >= 0) {
            idx |= STORE_VT_HI;
            info->aConstraintUsage[hi].argvIndex = ++arg;
        }
    }
    /* The keys all together or not at all: a node alone (a join's n.id = f.node_id) would
     * give up the bucket order the readers walk in. */
    bool all_keys = key[0] >= 0 && (d->n_keys < 2 || key[1] >= 0);
    if (all_keys) {
        idx |= STORE_VT_KEY;
        for (int j = 0; j < d->n_keys; j++)
            info->aConstraintUsage[key[j]].argvIndex = ++arg;
    } else if (in >= 0) {
        idx |= STORE_VT_IN;
        info->aConstraintUsage[in].argvIndex = ++arg;
        info->aConstraintUsage[in].omit = 1; /* applied here, exactly: not checked again */
        sqlite3_vtab_in(info, in, 1);
    }
    /* SQLite checks every other constraint again on what comes back (omit stays 0), so a
     * bound read loosely (a REAL, a GT taken as GE) costs rows, never answers. */
    if (d->by_key) {
        /* One key comes in bucket order, either way: "ORDER BY bucket_ms DESC LIMIT 1" (the
         * fleet's last value) reads one chunk, not a day of buckets through a sorter. */
        if ((idx & STORE_VT_KEY) && info->nOrderBy == 1 &&
            info->aOrderBy[0].iColumn == d->range_col) {
            info->orderByConsumed = 1;
            if (info->aOrderBy[0].desc)
                idx |= STORE_VT_DESC;
        }
    } else {
        /* The order is the live table's primary key: bucket_ms, then the keys, ascending. */
        bool ordered = info->nOrderBy <= 1 + d->n_keys;
        for (int i = 0; ordered && i < info->nOrderBy; i++)
            ordered = info->aOrderBy[i].iColumn == (i ? d->key_col[i - 1] : d->range_col) &&
                      !info->aOrderBy[i].desc;
        info->orderByConsumed = ordered && info->nOrderBy > 0;
    }
    info->idxNum = idx;
    d->cost(idx, &info->estimatedCost, &info->estimatedRows);
    return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out) {
    store_vtab *v = ((vt_table *)tab)->v;
    vt_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->v = v;
    c->d = v->d;
    if (v->free_sets) {
        c->set = v->free_sets;
        v->free_sets = c->set->next;
    } else {
        c->set = gp_xcalloc(1, sizeof *c->set);
    }
    *out = &c->base;
    return SQLITE_OK;
}

static void reset_all(vt_set *s) {
    sqlite3_reset(s->keys);
    sqlite3_reset(s->chunks);
    sqlite3_reset(s->chunks_key);
    sqlite3_reset(s->chunks_key_desc);
    sqlite3_reset(s->rows);
    sqlite3_reset(s->rows_key);
    sqlite3_reset(s->rows_key_desc);
}

static int vt_close(sqlite3_vtab_cursor *cur) {
    vt_cursor *c = (vt_cursor *)cur;
    reset_all(c->set);
    c->set->next = c->v->free_sets;
    c->v->free_sets = c->set;
    sqlite3_free(c);
    return SQLITE_OK;
}

static int vt_error(vt_cursor *c, const char *msg) {
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
}

/* The statement in *slot, prepared on first use; NULL (the error reported) if it fails. */
static sqlite3_stmt *stmt(vt_cursor *c, sqlite3_stmt **slot, const char *sql) {
    gp_err err;
    if (!*slot && store_prepare(c->v->st, sql, slot, &err) != GP_OK) {
        vt_error(c, err.msg);
        return NULL;
    }
    return *slot;
}

static void bind_range(vt_cursor *c, sqlite3_stmt *s) {
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, c->lo);
    sqlite3_bind_int64(s, 2, c->hi);
    if (!c->keyed)
        return;
    for (int j = 0; j < c->d->n_keys; j++) {
        if (c->d->key_text[j])
            sqlite3_bind_text(s, 3 + j, c->text[j], -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(s, 3 + j, c->key[j]);
    }
}

/* Start the current key, or every key: its chunks over the range, then its rows (descending:
 * its rows, then its chunks from the newest, each from its last bucket). 0, or -1 (the error
 * reported). */
static int start(vt_cursor *c) {
    const store_vtab_desc *d = c->d;
    vt_set *s = c->set;
    if (c->keyed) {
        c->ck = c->desc ? stmt(c, &s->chunks_key_desc, d->chunks_key_desc)
                        : stmt(c, &s->chunks_key, d->chunks_key);
        c->rw = c->desc ? stmt(c, &s->rows_key_desc, d->rows_key_desc)
                        : stmt(c, &s->rows_key, d->rows_key);
    } else {
        c->ck = stmt(c, &s->chunks, d->chunks);
        c->rw = stmt(c, &s->rows, d->rows);
    }
    if (!c->ck || !c->rw)
        return -1;
    bind_range(c, c->ck);
    bind_range(c, c->rw);
    c->in_rows = c->desc;
    c->started = true;
    c->pending = c->ck_done = false;
    c->n = 0;
    c->slot = c->desc ? -1 : d->slots; /* no day loaded yet */
    return 0;
}

static int by_value(const void *a, const void *b) {
    sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
    return (x > y) - (x < y);
}

static bool selected(const vt_cursor *c, sqlite3_int64 v) {
    /* An empty list's set is NULL, which bsearch may not be given. */
    return c->n_in > 0 && bsearch(&v, c->set->in, c->n_in, sizeof v, by_value) != NULL;
}

/* Read the next day's chunks (those the IN list selects); 0, 1 when there are no more, -1 on
 * error. The chunk statement is left on the next day's first row. */
static int load_day(vt_cursor *c) {
    const store_vtab_desc *d = c->d;
    vt_set *s = c->set;
    sqlite3_stmt *k = c->ck;
    c->n = 0;
    if (!c->pending) {
        if (c->ck_done)
            return 1;
        int rc = sqlite3_step(k);
        if (rc != SQLITE_ROW) {
            c->ck_done = true;
            return rc == SQLITE_DONE ? 1 : -1;
        }
    }
    c->pending = false;
    c->day = sqlite3_column_int64(k, 0);
    int in_key = -1;
    for (int j = 0; j < d->n_keys; j++)
        if (c->in_on && d->key_col[j] == d->in_col)
            in_key = j;
    int rc;
    do {
        if (in_key < 0 || selected(c, sqlite3_column_int64(k, 1 + in_key))) {
            if (c->n == s->cap) { /* not selected: its chunk is not read */
                size_t cap = s->cap ? 2 * s->cap : 16;
                s->e = gp_xrealloc(s->e, cap * sizeof *s->e);
                memset(s->e + s->cap, 0, (cap - s->cap) * sizeof *s->e);
                s->buf = gp_xrealloc(s->buf, cap * d->chunk_size);
                s->cap = cap;
            }
            vt_entry *e = &s->e[c->n];
            for (int j = 0; j < d->n_keys; j++) {
                if (d->key_text[j]) {
                    const char *t = (const char *)sqlite3_column_text(k, 1 + j);
                    free(e->text[j]);
                    e->text[j] = t ? gp_xstrdup(t) : NULL;
                } else {
                    e->key[j] = sqlite3_column_int64(k, 1 + j);
                }
            }
            gp_err err;
            if (d->decode(d, k, s->buf + c->n * d->chunk_size, &err) != GP_OK) {
                char msg[sizeof err.where + sizeof err.msg + 2];
                snprintf(msg, sizeof msg, "%s: %s", err.where, err.msg);
                vt_error(c, msg);
                c->ck_done = true;
                return -1;
            }
            c->n++;
        }
        rc = sqlite3_step(k);
    } while (rc == SQLITE_ROW && sqlite3_column_int64(k, 0) == c->day);
    if (rc == SQLITE_ROW)
        c->pending = true;
    else
        c->ck_done = true;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The next bucket of the chunks, slot by slot, each slot across the day's chunks; 0, 1 when
 * they have no more, -1 on error. */
static int next_chunk_bucket(vt_cursor *c) {
    const store_vtab_desc *d = c->d;
    const int step = c->desc ? -1 : 1;
    for (;;) {
        const unsigned char *buf = c->set->buf;
        const size_t n = c->n;
        while (c->desc ? c->slot >= 0 : c->slot < d->slots) {
            int64_t t = c->day + c->slot * d->bucket_ms;
            if (c->desc ? t < c->lo : t >= c->hi) {
                c->slot = c->desc ? -1 : d->slots; /* the rest of the day is out of range */
                break;
            }
            size_t at = t < c->lo || t >= c->hi ? n : c->at;
            size_t count_at = d->count_at + (size_t)c->slot * d->count_stride;
            while (at < n) {
                size_t i = c->desc ? n - 1 - at : at;
                const unsigned char *k = buf + i * d->chunk_size;
                long long count;
                at++;
                memcpy(&count, k + count_at, sizeof count);
                if (count == 0)
                    continue;
                c->at = at;
                c->cur = i;
                c->chunk = k;
                c->bucket = t;
                return 0;
            }
            c->slot += step;
            c->at = 0;
        }
        int rc = load_day(c);
        if (rc)
            return rc;
        c->slot = c->desc ? d->slots - 1 : 0;
        c->at = 0;
    }
}

/* The next row; 1 when there is none, -1 on error. */
static int next_row(vt_cursor *c) {
    for (;;) {
        int rc = sqlite3_step(c->rw);
        if (rc != SQLITE_ROW)
            return rc == SQLITE_DONE ? 1 : -1;
        if (c->in_on && !selected(c, sqlite3_column_int64(c->rw, c->d->in_col)))
            continue;
        c->bucket = sqlite3_column_int64(c->rw, c->d->range_col);
        return 0;
    }
}

/* Move to the next bucket of the current key; 1 when it has no more, -1 on error. The first
 * source (chunks ascending, rows descending) is read out, then the second. */
static int next_in_key(vt_cursor *c) {
    bool first = c->in_rows == c->desc;
    int rc = c->in_rows ? next_row(c) : next_chunk_bucket(c);
    if (rc != 1 || !first)
        return rc;
    c->in_rows = !c->in_rows;
    return c->in_rows ? next_row(c) : next_chunk_bucket(c);
}

static int vt_next(sqlite3_vtab_cursor *cur) {
    vt_cursor *c = (vt_cursor *)cur;
    sqlite3 *db = c->v->st->db;
    for (;;) {
        if (c->started) {
            int rc = next_in_key(c);
            if (rc < 0)
                return c->base.pVtab->zErrMsg ? SQLITE_ERROR : vt_error(c, sqlite3_errmsg(db));
            if (rc == 0)
                return SQLITE_OK;
            if (!c->groups) {
                c->eof = true;
                return SQLITE_OK;
            }
        }
        sqlite3_stmt *keys = c->set->keys;
        int s = sqlite3_step(keys);
        if (s != SQLITE_ROW) {
            c->eof = true;
            return s == SQLITE_DONE ? SQLITE_OK : vt_error(c, sqlite3_errmsg(db));
        }
        for (int j = 0; j < c->d->n_keys; j++) {
            if (c->d->key_text[j])
                c->text[j] = (const char *)sqlite3_column_text(keys, j);
            else
                c->key[j] = sqlite3_column_int64(keys, j);
        }
        c->keyed = true;
        if (start(c))
            return SQLITE_ERROR;
    }
}

/* A bound as an integer range: an integer is exact; a REAL is widened to the integers around
 * it; anything else (NULL, text) leaves the range open, SQLite deciding after us. */
static bool bound_of(sqlite3_value *v, bool lower, int64_t *out) {
    int t = sqlite3_value_numeric_type(v);
    if (t == SQLITE_INTEGER) {
        *out = sqlite3_value_int64(v);
        return true;
    }
    if (t == SQLITE_FLOAT) {
        double x = sqlite3_value_double(v);
        if (x > -9e18 && x < 9e18) {
            *out = (int64_t)(lower ? floor(x) : ceil(x));
            return true;
        }
    }
    return false;
}

static void bound_lo(vt_cursor *c, sqlite3_value *v) {
    int64_t x;
    if (bound_of(v, true, &x) && x > c->lo)
        c->lo = x;
}

static void bound_hi(vt_cursor *c, sqlite3_value *v) {
    int64_t x;
    if (bound_of(v, false, &x) && x < c->hi)
        c->hi = x + 1; /* LT and LE alike: SQLite drops the extra row */
}

/* v as an INTEGER key, compared as SQLite compares an INTEGER column with it: an integer, or
 * a number (a REAL, or text that reads as one) that is an integer exactly: 3.0 equals 3, 3.5
 * equals no integer. False when nothing in the column can equal v. */
static bool int_key(sqlite3_value *v, sqlite3_int64 *out) {
    int t = sqlite3_value_numeric_type(v);
    if (t == SQLITE_INTEGER) {
        *out = sqlite3_value_int64(v);
        return true;
    }
    if (t != SQLITE_FLOAT)
        return false;
    double x = sqlite3_value_double(v);
    if (!(x >= -0x1p63 && x < 0x1p63) || x != floor(x))
        return false;
    *out = (sqlite3_int64)x;
    return true;
}

/* The keys of argv[a..]: false when one cannot match (a key column is INTEGER or TEXT, and
 * nothing else equals it). */
static bool take_keys(vt_cursor *c, int argc, sqlite3_value **argv, int a) {
    const store_vtab_desc *d = c->d;
    if (a + d->n_keys > argc)
        return true; /* not given after all: every key */
    sqlite3_int64 key[2];
    for (int j = 0; j < d->n_keys; j++) {
        sqlite3_value *v = argv[a + j];
        if (d->key_text[j] ? sqlite3_value_type(v) != SQLITE_TEXT : !int_key(v, &key[j]))
            return false;
    }
    for (int j = 0; j < d->n_keys; j++) {
        sqlite3_value *v = argv[a + j];
        if (d->key_text[j]) {
            free(c->set->text[j]);
            c->set->text[j] = gp_xstrdup((const char *)sqlite3_value_text(v));
            c->text[j] = c->set->text[j];
        } else {
            c->key[j] = key[j];
        }
    }
    c->keyed = true;
    return true;
}

/* Every integer of the IN list argv (int_key: 3.0 is 3; anything else never equals an
 * INTEGER key), sorted. */
static int take_in(vt_cursor *c, sqlite3_value *list) {
    vt_set *s = c->set;
    c->in_on = true;
    c->n_in = 0;
    sqlite3_value *in;
    int rc = sqlite3_vtab_in_first(list, &in);
    for (; rc == SQLITE_OK && in; rc = sqlite3_vtab_in_next(list, &in)) {
        sqlite3_int64 v;
        if (!int_key(in, &v))
            continue;
        s->in = gp_xgrow(s->in, &s->cap_in, c->n_in, sizeof *s->in, 16);
        s->in[c->n_in++] = v;
    }
    if (rc != SQLITE_OK && rc != SQLITE_DONE)
        return rc;
    if (c->n_in > 1) /* an empty list leaves s->in NULL, which qsort may not be given */
        qsort(s->in, c->n_in, sizeof *s->in, by_value);
    return SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                     sqlite3_value **argv) {
    (void)idx_str;
    vt_cursor *c = (vt_cursor *)cur;
    const store_vtab_desc *d = c->d;
    reset_all(c->set);
    c->lo = d->lo_min;
    c->hi = INT64_MAX / 2;
    c->eof = c->started = c->keyed = c->in_on = c->groups = false;
    c->desc = (idx & STORE_VT_DESC) != 0;
    int a = 0;
    if ((idx & STORE_VT_EQ) && a < argc) {
        bound_lo(c, argv[a]);
        bound_hi(c, argv[a++]);
    }
    if ((idx & STORE_VT_LO) && a < argc)
        bound_lo(c, argv[a++]);
    if ((idx & STORE_VT_HI) && a < argc)
        bound_hi(c, argv[a++]);
    if ((idx & STORE_VT_KEY) && !take_keys(c, argc, argv, a)) {
        c->eof = true;
        return SQLITE_OK;
    }
    if ((idx & STORE_VT_IN) && a < argc) {
        int rc = take_in(c, argv[a]);
        if (rc != SQLITE_OK)
            return rc;
    }
    if (c->lo >= c->hi) {
        c->eof = true;
        return SQLITE_OK;
    }
    if (d->by_key && !c->keyed) {
        if (!stmt(c, &c->set->keys, d->keys_sql))
            return SQLITE_ERROR;
        c->groups = true; /* vt_next steps to the first key */
    } else if (start(c)) {
        return SQLITE_ERROR;
    }
    return vt_next(cur);
}

static int vt_eof(sqlite3_vtab_cursor *cur) {
    return ((vt_cursor *)cur)->eof;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    vt_cursor *c = (vt_cursor *)cur;
    const store_vtab_desc *d = c->d;
    if (!c->in_rows) {
        int j = col == d->key_col[0] ? 0 : d->n_keys > 1 && col == d->key_col[1] ? 1 : -1;
        if (col == d->range_col)
            sqlite3_result_int64(ctx, c->bucket);
        else if (j < 0)
            d->cell(c->chunk, c->slot, col, ctx);
        else if (d->key_text[j])
            sqlite3_result_text(ctx, c->set->e[c->cur].text[j], -1, SQLITE_TRANSIENT);
        else
            sqlite3_result_int64(ctx, c->set->e[c->cur].key[j]);
        return SQLITE_OK;
    }
    /* as declared: a typed copy costs less than a copy of the value */
    sqlite3_stmt *r = c->rw;
    if (d->types[col] == 'I')
        sqlite3_result_int64(ctx, sqlite3_column_int64(r, col));
    else if (d->types[col] == 'R')
        sqlite3_result_double(ctx, sqlite3_column_double(r, col));
    else
        sqlite3_result_text(ctx, (const char *)sqlite3_column_text(r, col),
                            sqlite3_column_bytes(r, col), SQLITE_TRANSIENT);
    return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    vt_cursor *c = (vt_cursor *)cur;
    *rowid = c->bucket / c->d->bucket_ms;
    return SQLITE_OK;
}

static const sqlite3_module vt_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: there is nothing to CREATE VIRTUAL TABLE */
    .xConnect = vt_connect,
    .xBestIndex = vt_best_index,
    .xDisconnect = vt_disconnect,
    .xDestroy = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
};

gp_status store_vtab_open(gp_store *st, const store_vtab_desc *d, store_vtab **out, gp_err *err) {
    store_vtab *v = gp_xcalloc(1, sizeof *v);
    v->st = st;
    v->d = d;
    *out = v;
    if (sqlite3_create_module(st->db, d->name, &vt_module, v) != SQLITE_OK)
        return store_fail(st, err, "register a virtual table");
    return GP_OK;
}
