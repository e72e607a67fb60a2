/* Telemetry tables: nodes, sources, GPUs, samples with rollups, retention, fleet state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_capacity.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/url.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char *const kind_names[] = {"dcgm", "prometheus", "nvsmi", "redfish", "ipmi"};

const char *gp_source_kind_name(gp_source_kind k) {
    return kind_names[k];
}

static gp_source_kind kind_of(const char *s) {
    for (int i = 0; i < (int)(sizeof kind_names / sizeof kind_names[0]); i++)
        if (!strcmp(s, kind_names[i]))
            return (gp_source_kind)i;
    return GP_SRC_DCGM;
}

/* ---- a small u64 -> value map (open addressing) for per-batch caches ---------------------- */

typedef struct map {
    uint64_t *keys; /* 0 marks an empty slot: callers never use key 0 */
    long long *vals;
    size_t slots, used;
} map;

static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static long long *map_slot(map *m, uint64_t key, bool *fresh) {
    if ((m->used + 1) * 2 > m->slots) {
        size_t n = m->slots ? m->slots * 2 : 256;
        uint64_t *k = gp_xcalloc(n, sizeof *k);
        long long *v = gp_xcalloc(n, sizeof *v);
        for (size_t i = 0; i < m->slots; i++) {
            if (!m->keys[i])
                continue;
            size_t j = mix(m->keys[i]) & (n - 1);
            while (k[j])
                j = (j + 1) & (n - 1);
            k[j] = m->keys[i];
            v[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = k;
        m->vals = v;
        m->slots = n;
    }
    size_t i = mix(key) & (m->slots - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->slots - 1);
    *fresh = m->keys[i] == 0;
    if (*fresh) {
        m->keys[i] = key;
        m->used++;
    }
    return &m->vals[i];
}

static void map_free(map *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- nodes ------------------------------------------------------------------------------------
 */

gp_status gp_store_node_add(gp_store *st, const char *name, const gp_source_cfg *src, int n,
                            gp_err *err) {
    sqlite3_stmt *node = NULL, *s = NULL;
    if (store_exec(st, "SAVEPOINT node_add", err))
        return err->code;
    if (store_prepare(st, "INSERT INTO node(name) VALUES (?1)", &node, err) ||
        store_prepare(st,
                      "INSERT INTO node_source(node_id, kind, url, match, insecure, cacert, "
                      "token_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                      &s, err))
        goto fail;
    sqlite3_bind_text(node, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(node);
    if (rc == SQLITE_CONSTRAINT) {
        gp_errorf(err, GP_E_INPUT, name, "a node named \"%s\" exists already", name);
        goto fail;
    }
    if (rc != SQLITE_DONE) {
        store_fail(st, err, "add a node");
        goto fail;
    }
    sqlite3_int64 id = sqlite3_last_insert_rowid(st->db);
    for (int i = 0; i < n; i++) {
        /* The database never holds a password: a URL with user information is refused. */
        if (src[i].url[0] && gp_url_check_source(src[i].url, err))
            goto fail;
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_text(s, 2, kind_names[src[i].kind], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, src[i].url, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, src[i].match, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 5, src[i].insecure);
        sqlite3_bind_text(s, 6, src[i].cacert, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 7, src[i].token_file, -1, SQLITE_STATIC);
        rc = sqlite3_step(s);
        if (rc != SQLITE_DONE) {
            if (rc == SQLITE_CONSTRAINT)
                gp_errorf(err, GP_E_INPUT, src[i].url, "the same source is given twice");
            else
                store_fail(st, err, "add a source");
            goto fail;
        }
    }
    sqlite3_finalize(node);
    sqlite3_finalize(s);
    return store_exec(st, "RELEASE node_add", err);
fail:
    sqlite3_finalize(node);
    sqlite3_finalize(s);
    sqlite3_exec(st->db, "ROLLBACK TO node_add; RELEASE node_add", NULL, NULL, NULL);
    return err->code;
}

gp_status gp_store_node_id(gp_store *st, const char *name, long long *id, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT id FROM node WHERE name = ?1", &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(s, 0);
    else if (rc == SQLITE_DONE)
        res = gp_errorf(err, GP_E_NOTFOUND, name, "no node named \"%s\"", name);
    else
        res = store_fail(st, err, "find a node");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_node_rm(gp_store *st, const char *name, gp_err *err) {
    static const char *const sql[] = {
        "DELETE FROM sample WHERE series_id IN (SELECT s.id FROM series s JOIN node n ON "
        "n.id = s.node_id WHERE n.name = ?1)",
        "DELETE FROM rollup_5m WHERE series_id IN (SELECT s.id FROM series s JOIN node n ON "
        "n.id = s.node_id WHERE n.name = ?1)",
        "DELETE FROM rollup_1h WHERE series_id IN (SELECT s.id FROM series s JOIN node n ON "
        "n.id = s.node_id WHERE n.name = ?1)",
        "DELETE FROM rollup_5m_day WHERE id IN (SELECT d.id FROM series s JOIN node n ON "
        "n.id = s.node_id JOIN rollup_5m_day d ON d.id >= s.id * " SQL_DAY_ID_SPAN
        " AND d.id < (s.id + 1) "
        "* " SQL_DAY_ID_SPAN " WHERE n.name = ?1)",
        "DELETE FROM util_hour WHERE series_id IN (SELECT s.id FROM series s JOIN node n ON "
        "n.id = s.node_id WHERE n.name = ?1)",
        "DELETE FROM rollup_1h_day WHERE id IN (SELECT d.id FROM series s JOIN node n ON "
        "n.id = s.node_id JOIN rollup_1h_day d ON d.id >= s.id * " SQL_DAY_ID_SPAN
        " AND d.id < (s.id + 1) "
        "* " SQL_DAY_ID_SPAN " WHERE n.name = ?1)",
        "DELETE FROM util_hour_day WHERE id IN (SELECT d.id FROM series s JOIN node n ON "
        "n.id = s.node_id JOIN util_hour_day d ON d.id >= s.id * " SQL_DAY_ID_SPAN
        " AND d.id < (s.id + 1) "
        "* " SQL_DAY_ID_SPAN " WHERE n.name = ?1)",
        "DELETE FROM series_last WHERE series_id IN (SELECT s.id FROM series s JOIN node n ON "
        "n.id = s.node_id WHERE n.name = ?1)",
        "DELETE FROM node WHERE name = ?1"};
    if (store_exec(st, "SAVEPOINT node_rm", err))
        return err->code;
    int changed = 0;
    for (int i = 0; i < 9; i++) {
        sqlite3_stmt *s;
        if (store_prepare(st, sql[i], &s, err))
            goto fail;
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE) {
            store_fail(st, err, "remove a node");
            goto fail;
        }
        changed = sqlite3_changes(st->db);
    }
    if (!changed) {
        gp_errorf(err, GP_E_NOTFOUND, name, "no node named \"%s\"", name);
        goto fail;
    }
    return store_exec(st, "RELEASE node_rm", err);
fail:
    sqlite3_exec(st->db, "ROLLBACK TO node_rm; RELEASE node_rm", NULL, NULL, NULL);
    return err->code;
}

static void text_into(sqlite3_stmt *s, int c, char *dst, size_t cap) {
    const unsigned char *t = sqlite3_column_text(s, c);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

gp_status gp_store_sources(gp_store *st, const char *name, gp_source_cfg **out, size_t *n,
                           gp_err *err) {
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT s.id, n.id, n.name, s.kind, s.url, s.match, s.insecure, s.cacert, "
                      "s.token_file, coalesce(n.last_error LIKE '%timed out%', 0) "
                      "FROM node_source s JOIN node n ON n.id = s.node_id "
                      "WHERE ?1 IS NULL OR n.name = ?1 ORDER BY n.name, s.id",
                      &s, err))
        return err->code;
    if (name)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 1);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        *out = gp_xgrow(*out, &cap, *n, sizeof **out, 64);
        gp_source_cfg *c = &(*out)[(*n)++];
        memset(c, 0, sizeof *c);
        c->id = sqlite3_column_int64(s, 0);
        c->node_id = sqlite3_column_int64(s, 1);
        text_into(s, 2, c->node, sizeof c->node);
        c->kind = kind_of((const char *)sqlite3_column_text(s, 3));
        text_into(s, 4, c->url, sizeof c->url);
        text_into(s, 5, c->match, sizeof c->match);
        c->insecure = sqlite3_column_int(s, 6) != 0;
        text_into(s, 7, c->cacert, sizeof c->cacert);
        text_into(s, 8, c->token_file, sizeof c->token_file);
        c->hung_last = sqlite3_column_int(s, 9) != 0;
    }
    gp_status res = GP_OK;
    if (rc != SQLITE_DONE)
        res = store_fail(st, err, "read sources");
    else if (name && *n == 0)
        res = gp_errorf(err, GP_E_NOTFOUND, name, "no node named \"%s\"", name);
    sqlite3_finalize(s);
    if (res) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return res;
}

gp_status gp_store_gpu_models(gp_store *st, int (*fn)(const char *key, const char *raw, void *),
                              void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT DISTINCT model, coalesce(raw_model, '') FROM gpu ORDER BY 1, 2",
                      &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(s, 0);
        const char *raw = (const char *)sqlite3_column_text(s, 1);
        if (fn(key ? key : "", raw ? raw : "", arg))
            break;
    }
    gp_status res =
        rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read GPU models");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_nodes(gp_store *st, int (*fn)(const gp_node_info *, void *), void *arg,
                         gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT n.name, (SELECT count(*) FROM node_source WHERE node_id = n.id), "
                      "(SELECT count(*) FROM gpu WHERE node_id = n.id AND mig = ''), "
                      "n.last_success_ms, n.last_error, n.last_error_ms, "
                      "(SELECT group_concat(kind, ',') FROM node_source WHERE node_id = n.id) "
                      "FROM node n ORDER BY n.name",
                      &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_node_info n;
        n.name = (const char *)sqlite3_column_text(s, 0);
        n.sources = sqlite3_column_int(s, 1);
        n.gpus = sqlite3_column_int(s, 2);
        n.has_success = sqlite3_column_type(s, 3) != SQLITE_NULL;
        n.last_success_ms = sqlite3_column_int64(s, 3);
        n.last_error = (const char *)sqlite3_column_text(s, 4);
        n.last_error_ms = sqlite3_column_int64(s, 5);
        n.kinds = (const char *)sqlite3_column_text(s, 6);
        if (fn(&n, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "list nodes");
    sqlite3_finalize(s);
    return res;
}

/* ---- samples ----------------------------------------------------------------------------------
 */

static const char SQL_GPU_UPSERT[] =
    "INSERT INTO gpu(node_id, uuid, idx, mig, host, model, raw_model, first_seen_ms, "
    "last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) "
    "ON CONFLICT(node_id, uuid, idx, mig, host) DO UPDATE SET "
    "model = CASE WHEN excluded.model <> '' THEN excluded.model ELSE model END, "
    "raw_model = CASE WHEN excluded.raw_model <> '' THEN excluded.raw_model ELSE raw_model END, "
    "first_seen_ms = min(first_seen_ms, excluded.first_seen_ms), "
    "last_seen_ms = max(last_seen_ms, excluded.last_seen_ms) RETURNING id";
static const char SQL_LABEL_UPSERT[] =
    "INSERT INTO label_set(json) VALUES (?1) ON CONFLICT(json) DO UPDATE SET json = json "
    "RETURNING id";
static const char SQL_SERIES_UPSERT[] =
    "INSERT INTO series(node_id, gpu_id, metric, labels_id) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT DO UPDATE SET metric = metric RETURNING id";
static const char SQL_SAMPLE_INSERT[] =
    "INSERT OR IGNORE INTO sample(series_id, ts_ms, value) VALUES (?1, ?2, ?3)";
static const char SQL_ROLLUP5[] =
    "INSERT INTO rollup_5m(series_id, bucket_ms, n, sum, min, max) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6) ON CONFLICT DO UPDATE SET n = n + excluded.n, sum = sum + excluded.sum, "
    "min = min(min, excluded.min), max = max(max, excluded.max)";
static const char SQL_ROLLUP1[] =
    "INSERT INTO rollup_1h(series_id, bucket_ms, n, sum, min, max) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6) ON CONFLICT DO UPDATE SET n = n + excluded.n, sum = sum + excluded.sum, "
    "min = min(min, excluded.min), max = max(max, excluded.max)";

typedef struct agg {
    long long series;
    int64_t bucket;
    long long n;
    double sum, min, max;
} agg;

typedef struct aggs {
    map index;
    agg *a;
    size_t n, cap;
} aggs;

static void agg_add(aggs *g, long long series, int64_t bucket, double v) {
    /* series ids stay far below 2^40 and buckets are multiples of 5 minutes. */
    uint64_t key = ((uint64_t)series << 24) ^ (uint64_t)(bucket / STORE_BUCKET_MS) ^ 1;
    bool fresh;
    long long *slot = map_slot(&g->index, key, &fresh);
    if (!fresh) {
        agg *x = &g->a[*slot];
        if (x->series == series && x->bucket == bucket) {
            x->n++;
            x->sum += v;
            if (v < x->min)
                x->min = v;
            if (v > x->max)
                x->max = v;
            return;
        }
    }
    /* New (or a key collision, which only costs a second row merged by the upsert). */
    g->a = gp_xgrow(g->a, &g->cap, g->n, sizeof *g->a, 256);
    g->a[g->n] = (agg){series, bucket, 1, v, v, v};
    *slot = (long long)g->n++;
}

static gp_status flush_aggs(gp_store *st, const char *sql, aggs *g, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, err))
        return err->code;
    gp_status res = GP_OK;
    for (size_t i = 0; i < g->n && res == GP_OK; i++) {
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, g->a[i].series);
        sqlite3_bind_int64(s, 2, g->a[i].bucket);
        sqlite3_bind_int64(s, 3, g->a[i].n);
        sqlite3_bind_double(s, 4, g->a[i].sum);
        sqlite3_bind_double(s, 5, g->a[i].min);
        sqlite3_bind_double(s, 6, g->a[i].max);
        if (sqlite3_step(s) != SQLITE_DONE)
            res = store_fail(st, err, "write a rollup");
    }
    sqlite3_finalize(s);
    return res;
}

/* A bucket of a day already sealed (a late sample, a clock set back) merges into its chunk
 * (kind: STORE_5M or STORE_1H); the rest go to rollup_5m or rollup_1h by sql. The check is one
 * indexed max() unless the batch reaches back that far, so the cycle's write path stays one
 * upsert per bucket. */
static gp_status max_sealed_ms(gp_store *st, int64_t *out, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT coalesce(max(sealed_ms), 0) FROM series", &s, err))
        return err->code;
    int rc = sqlite3_step(s);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? GP_OK : store_fail(st, err, "read the sealed days");
}

static gp_status flush_rollups(gp_store *st, int kind, const char *sql, aggs *g, int64_t max_sealed,
                               gp_err *err) {
    int64_t bucket_ms = kind == STORE_1H ? GP_HOUR_MS : STORE_BUCKET_MS;
    size_t keep = 0;
    gp_chunk *c = NULL;
    gp_status res = GP_OK;
    for (size_t i = 0; i < g->n && res == GP_OK; i++) {
        agg a = g->a[i];
        int64_t sealed = 0;
        if (a.bucket < max_sealed)
            res = store_sealed_ms(st, a.series, &sealed, err);
        if (res != GP_OK || a.bucket >= sealed) {
            g->a[keep++] = a;
            continue;
        }
        if (!c)
            c = gp_xmalloc(sizeof *c);
        int64_t day = store_day_of(a.bucket);
        bool found;
        if (store_chunk_load(st, kind, a.series, day, c, &found, err))
            res = err->code;
        else {
            store_bucket_add(&c->b[(a.bucket - day) / bucket_ms], a.n, a.sum, a.min, a.max);
            res = store_chunk_save(st, kind, a.series, day, c, err);
        }
    }
    free(c);
    g->n = keep;
    return res != GP_OK ? res : flush_aggs(st, sql, g, err);
}

static gp_status returning_id(gp_store *st, sqlite3_stmt *s, long long *id, const char *what,
                              gp_err *err) {
    if (sqlite3_step(s) != SQLITE_ROW)
        return store_fail(st, err, what);
    *id = sqlite3_column_int64(s, 0);
    while (sqlite3_step(s) == SQLITE_ROW)
        ;
    return GP_OK;
}

/* What writing one batch of samples holds: its statements, the ids of its GPUs, label sets
 * and series, the rollups it adds to and the span of the samples written. */
typedef struct samples_writer {
    sqlite3_stmt *gpu, *lab, *ser, *ins;
    long long *gpu_ids, *label_ids;
    map series;
    aggs a5, a1;
    int64_t t_min, t_max;
} samples_writer;

static void writer_free(samples_writer *w) {
    sqlite3_finalize(w->gpu);
    sqlite3_finalize(w->lab);
    sqlite3_finalize(w->ser);
    sqlite3_finalize(w->ins);
    free(w->gpu_ids);
    free(w->label_ids);
    map_free(&w->series);
    map_free(&w->a5.index);
    map_free(&w->a1.index);
    free(w->a5.a);
    free(w->a1.a);
}

/* Record the batch's GPUs, each last seen at the time of its latest sample (now_ms for one
 * without), their ids into w->gpu_ids. */
static gp_status record_gpus(gp_store *st, samples_writer *w, long long node_id,
                             const gp_samples *s, int64_t now_ms, gp_err *err) {
    int64_t *seen = gp_xcalloc(s->n_gpus + 1, sizeof *seen);
    for (size_t i = 0; i < s->n; i++) {
        const gp_sample *x = &s->s[i];
        int64_t ts = x->ts_ms ? x->ts_ms : now_ms;
        if (x->gpu >= 0 && ts > seen[x->gpu])
            seen[x->gpu] = ts;
    }
    gp_status res = GP_OK;
    for (size_t g = 0; g < s->n_gpus && res == GP_OK; g++) {
        const gp_gpu_ref *r = &s->gpus[g];
        sqlite3_reset(w->gpu);
        sqlite3_bind_int64(w->gpu, 1, node_id);
        sqlite3_bind_text(w->gpu, 2, r->uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int(w->gpu, 3, r->index);
        sqlite3_bind_text(w->gpu, 4, r->mig, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 5, r->host, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 6, r->model, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 7, r->raw_model, -1, SQLITE_STATIC);
        sqlite3_bind_int64(w->gpu, 8, seen[g] ? seen[g] : now_ms);
        res = returning_id(st, w->gpu, &w->gpu_ids[g], "record a GPU", err);
    }
    free(seen);
    return res;
}

/* Sample x's series id, recorded on first sight in this batch. */
static gp_status series_of(gp_store *st, samples_writer *w, long long node_id, const gp_sample *x,
                           long long **sid, gp_err *err) {
    uint64_t key = ((uint64_t)(x->gpu + 1) << 40) ^ ((uint64_t)(x->labels + 1) << 8) ^
                   (uint64_t)x->metric ^ (1ull << 63);
    bool fresh;
    *sid = map_slot(&w->series, key, &fresh);
    if (!fresh)
        return GP_OK;
    sqlite3_reset(w->ser);
    sqlite3_bind_int64(w->ser, 1, node_id);
    sqlite3_bind_int64(w->ser, 2, x->gpu >= 0 ? w->gpu_ids[x->gpu] : 0);
    sqlite3_bind_int(w->ser, 3, (int)x->metric);
    sqlite3_bind_int64(w->ser, 4, x->labels >= 0 ? w->label_ids[x->labels] : 0);
    return returning_id(st, w->ser, *sid, "record a series", err);
}

/* Insert the batch's samples (one a series and time; a repeat is skipped), counted into
 * *written, each added to the 5-minute and hourly rollups. */
static gp_status insert_samples(gp_store *st, samples_writer *w, long long node_id,
                                const gp_samples *s, int64_t now_ms, size_t *written, gp_err *err) {
    for (size_t i = 0; i < s->n; i++) {
        const gp_sample *x = &s->s[i];
        long long *sid;
        if (series_of(st, w, node_id, x, &sid, err))
            return err->code;
        int64_t ts = x->ts_ms ? x->ts_ms : now_ms;
        sqlite3_reset(w->ins);
        sqlite3_bind_int64(w->ins, 1, *sid);
        sqlite3_bind_int64(w->ins, 2, ts);
        sqlite3_bind_double(w->ins, 3, x->value);
        if (sqlite3_step(w->ins) != SQLITE_DONE)
            return store_fail(st, err, "write a sample");
        if (sqlite3_changes(st->db) == 0)
            continue; /* this series already has a sample at that time */
        (*written)++;
        if (ts < w->t_min)
            w->t_min = ts;
        if (ts > w->t_max)
            w->t_max = ts;
        int64_t b5 = ts - ((ts % STORE_BUCKET_MS) + STORE_BUCKET_MS) % STORE_BUCKET_MS;
        int64_t b1 = store_hour_of(ts);
        agg_add(&w->a5, *sid, b5, x->value);
        agg_add(&w->a1, *sid, b1, x->value);
    }
    return GP_OK;
}

gp_status gp_store_samples_write(gp_store *st, long long node_id, const gp_samples *s,
                                 int64_t now_ms, size_t *written, gp_err *err) {
    *written = 0;
    if (store_exec(st, "SAVEPOINT samples", err))
        return err->code;
    samples_writer w = {.t_min = INT64_MAX, .t_max = INT64_MIN};
    w.gpu_ids = gp_xcalloc(s->n_gpus + 1, sizeof *w.gpu_ids);
    w.label_ids = gp_xcalloc(s->n_labels + 1, sizeof *w.label_ids);
    bool ok = !store_prepare(st, SQL_GPU_UPSERT, &w.gpu, err) &&
              !store_prepare(st, SQL_LABEL_UPSERT, &w.lab, err) &&
              !store_prepare(st, SQL_SERIES_UPSERT, &w.ser, err) &&
              !store_prepare(st, SQL_SAMPLE_INSERT, &w.ins, err) &&
              !record_gpus(st, &w, node_id, s, now_ms, err);
    for (size_t l = 0; ok && l < s->n_labels; l++) {
        sqlite3_reset(w.lab);
        sqlite3_bind_text(w.lab, 1, s->label_sets[l], -1, SQLITE_STATIC);
        ok = !returning_id(st, w.lab, &w.label_ids[l], "record labels", err);
    }
    ok = ok && !insert_samples(st, &w, node_id, s, now_ms, written, err);
    int64_t max_sealed;
    ok = ok && !max_sealed_ms(st, &max_sealed, err) &&
         !flush_rollups(st, STORE_5M, SQL_ROLLUP5, &w.a5, max_sealed, err) &&
         !flush_rollups(st, STORE_1H, SQL_ROLLUP1, &w.a1, max_sealed, err);
    /* The capacity rollups of the hours this batch touched. */
    ok = ok && !(*written && gp_store_capacity_refresh(st, node_id, w.t_min, w.t_max + 1, err));
    writer_free(&w);
    if (ok)
        return store_exec(st, "RELEASE samples", err);
    sqlite3_exec(st->db, "ROLLBACK TO samples; RELEASE samples", NULL, NULL, NULL);
    *written = 0;
    return err->code;
}

gp_status gp_store_node_status(gp_store *st, long long node_id, int64_t now_ms, const char *error,
                               gp_err *err) {
    sqlite3_stmt *s;
    const char *sql =
        error ? "UPDATE node SET last_error = ?2, last_error_ms = ?3 WHERE id = ?1"
              : "UPDATE node SET last_success_ms = ?3, last_error = NULL, gpu_count = (SELECT "
                "count(*) FROM gpu WHERE node_id = ?1 AND mig = '' AND last_seen_ms >= ?3 - "
                "600000) WHERE id = ?1";
    if (store_prepare(st, sql, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, node_id);
    if (error)
        sqlite3_bind_text(s, 2, error, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, now_ms);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "record a node's status");
}

gp_status gp_store_node_gpus(gp_store *st, long long node_id, int (*fn)(const gp_gpu_ref *, void *),
                             void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT uuid, idx, host, model, raw_model FROM gpu WHERE node_id = ?1 AND "
                      "mig = '' AND uuid <> '' ORDER BY last_seen_ms DESC, id",
                      &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, node_id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_gpu_ref g;
        memset(&g, 0, sizeof g);
        text_into(s, 0, g.uuid, sizeof g.uuid);
        g.index = sqlite3_column_int(s, 1);
        text_into(s, 2, g.host, sizeof g.host);
        text_into(s, 3, g.model, sizeof g.model);
        text_into(s, 4, g.raw_model, sizeof g.raw_model);
        if (fn(&g, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read a node's GPUs");
}

gp_status gp_store_cycle_record(gp_store *st, int64_t started_ms, int64_t finished_ms, int ok,
                                int failed, size_t samples, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO collect_cycle(started_ms, finished_ms, nodes_ok, "
                      "nodes_failed, samples) VALUES (?1, ?2, ?3, ?4, ?5)",
                      &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, started_ms);
    sqlite3_bind_int64(s, 2, finished_ms);
    sqlite3_bind_int(s, 3, ok);
    sqlite3_bind_int(s, 4, failed);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)samples);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "record a cycle");
}

gp_status gp_store_retention(gp_store *st, int64_t now_ms, int64_t raw_keep_ms,
                             int64_t rollup_keep_ms, gp_err *err) {
    /* A chunk goes when its whole day is past the window: ?3, the last such day since 1970
     * (-1: none), bounds each series' range of chunk ids (db/009_chunks.sql). */
    static const char *const sql[] = {
        "DELETE FROM sample WHERE series_id IN (SELECT id FROM series) AND ts_ms < ?1",
        "DELETE FROM rollup_5m WHERE bucket_ms < ?2",
        "DELETE FROM rollup_5m_day WHERE id IN (SELECT d.id FROM series s JOIN rollup_5m_day d ON "
        "d.id >= s.id * " SQL_DAY_ID_SPAN " AND d.id <= s.id * " SQL_DAY_ID_SPAN " + ?3)",
        "DELETE FROM rollup_1h WHERE series_id IN (SELECT id FROM series) AND bucket_ms < ?2",
        "DELETE FROM rollup_1h_day WHERE id IN (SELECT d.id FROM series s JOIN rollup_1h_day d ON "
        "d.id >= s.id * " SQL_DAY_ID_SPAN " AND d.id <= s.id * " SQL_DAY_ID_SPAN " + ?3)",
        /* capacity's hours and the fleet's buckets go with the rollups they come from */
        "DELETE FROM util_hour WHERE series_id IN (SELECT id FROM series WHERE metric = ?4) AND "
        "hour_ms < ?2",
        /* CROSS JOIN: series first, else SQLite scans every chunk (minutes at 10,000 GPUs) */
        "DELETE FROM util_hour_day WHERE id IN (SELECT d.id FROM series s CROSS JOIN util_hour_day "
        "d ON d.id >= s.id * " SQL_DAY_ID_SPAN " AND d.id <= s.id * " SQL_DAY_ID_SPAN
        " + ?3 WHERE s.metric = ?4)",
        "DELETE FROM fleet_5m WHERE bucket_ms < ?2",
        "DELETE FROM fleet_5m_day WHERE day_ms <= ?3 * " SQL_DAY_MS,
        /* a series' newest chunk gone: all of them are */
        "DELETE FROM series_last WHERE day_ms <= ?3 * " SQL_DAY_MS};
    enum { DAY_CHUNKS_5M = 2, SERIES_LAST = 9 };
    int chunks_gone = 0;
    int64_t cut = now_ms - rollup_keep_ms - GP_DAY_MS, cut_day = cut < 0 ? -1 : cut / GP_DAY_MS;
    /* The day chunks (the statements with ?3) only once a day in a long-running collector. */
    bool days_done = st->retained_day == cut_day + 1;
    for (int i = 0; i < (int)(sizeof sql / sizeof sql[0]); i++) {
        if (i == SERIES_LAST && !chunks_gone)
            break; /* no 5-minute chunk went: no scan of series_last this cycle */
        if (days_done && strstr(sql[i], "?3"))
            continue;
        sqlite3_stmt *s;
        if (store_prepare(st, sql[i], &s, err))
            return err->code;
        int params = sqlite3_bind_parameter_count(s);
        for (int k = 1; k <= params; k++) {
            const char *name = sqlite3_bind_parameter_name(s, k);
            if (!name)
                continue;
            if (!strcmp(name, "?1"))
                sqlite3_bind_int64(s, k, now_ms - raw_keep_ms);
            else if (!strcmp(name, "?2"))
                sqlite3_bind_int64(s, k, now_ms - rollup_keep_ms);
            else if (!strcmp(name, "?3"))
                sqlite3_bind_int64(s, k, cut_day);
            else if (!strcmp(name, "?4"))
                sqlite3_bind_int(s, k, GP_M_GPU_UTIL);
        }
        int rc = sqlite3_step(s);
        if (i == DAY_CHUNKS_5M)
            chunks_gone = sqlite3_changes(st->db);
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            return store_fail(st, err, "apply retention");
    }
    st->retained_day = cut_day + 1;
    return GP_OK;
}

/* ---- the fleet ---------------------------------------------------------------------------------
 */

/* Every GPU with its node, in the order fleet lists them. */
static const char SQL_FLEET_GPUS[] =
    "SELECT n.name, g.host, g.uuid, g.model, g.mig, g.idx, g.last_seen_ms, n.last_success_ms, "
    "n.last_error, n.last_error_ms, g.raw_model, g.id "
    "FROM gpu g JOIN node n ON n.id = g.node_id ORDER BY n.name, g.host, g.idx, g.mig, g.id";

/* Every series' last value: the newest raw sample, or the mean of a newer 5-minute rollup
 * (imported history has rollups only, and raw samples are kept for a bounded window). The open
 * day's rollups are rows of rollup_5m; before series.sealed_ms they are day chunks, whose newest
 * bucket with n > 0 (in the newest chunk) series_last keeps, so no chunk is decoded here
 * (db/012_series_last.sql). A series with neither a sample nor a row in the window (every
 * imported one) takes series_last's value alone, without the three-way sort. */
static const char SQL_FLEET_VALUES[] =
    "SELECT s.gpu_id, s.metric, s.labels_id, "
    "CASE WHEN EXISTS (SELECT 1 FROM sample x WHERE x.series_id = s.id AND x.ts_ms >= ?1) "
    "  OR EXISTS (SELECT 1 FROM rollup_5m r WHERE r.series_id = s.id AND r.bucket_ms >= ?1 "
    "  AND r.n > 0) THEN "
    "(SELECT v FROM (SELECT * FROM (SELECT x.ts_ms AS t, x.value AS v FROM sample x "
    "  WHERE x.series_id = s.id AND x.ts_ms >= ?1 ORDER BY x.ts_ms DESC LIMIT 1) "
    " UNION ALL SELECT * FROM (SELECT r.bucket_ms, r.sum / r.n FROM rollup_5m r "
    "  WHERE r.series_id = s.id AND r.bucket_ms >= ?1 AND r.n > 0 "
    "  ORDER BY r.bucket_ms DESC LIMIT 1) "
    " UNION ALL SELECT l.bucket_ms, l.sum / l.n FROM series_last l "
    "  WHERE l.series_id = s.id AND l.n > 0 AND l.bucket_ms >= ?1 AND l.bucket_ms < s.sealed_ms) "
    " ORDER BY t DESC LIMIT 1) "
    "WHEN l.n > 0 AND l.bucket_ms >= ?1 AND l.bucket_ms < s.sealed_ms THEN l.sum / l.n END "
    "FROM series s LEFT JOIN series_last l ON l.series_id = s.id WHERE s.gpu_id > 0";

/* A GPU's metrics: of its series of a metric, the one with the least labels_id (no workload
 * labels) gives the value. */
typedef struct fleet_values {
    long long labels[GP_M_COUNT];
    bool seen[GP_M_COUNT], has[GP_M_COUNT];
    double value[GP_M_COUNT];
} fleet_values;

static long long *map_find(const map *m, uint64_t key) {
    if (!m->slots)
        return NULL;
    size_t i = mix(key) & (m->slots - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->slots - 1);
    return m->keys[i] ? &m->vals[i] : NULL;
}

/* The series' values by GPU (gpu_id -> index into *out). Two reads instead of one join: the
 * join repeated a GPU's and node's columns on each of its series' rows, which cost more than
 * the values (10,000 GPUs: 116 ms against 9 + 44 ms). */
static gp_status fleet_values_read(gp_store *st, int64_t from_ms, map *by_gpu, fleet_values **out,
                                   gp_err *err) {
    sqlite3_stmt *s;
    *out = NULL;
    if (store_prepare(st, SQL_FLEET_VALUES, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from_ms);
    fleet_values *v = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        bool fresh;
        long long *slot = map_slot(by_gpu, (uint64_t)sqlite3_column_int64(s, 0), &fresh);
        if (fresh) {
            v = gp_xgrow(v, &cap, n, sizeof *v, 1024);
            memset(&v[n], 0, sizeof v[n]);
            *slot = (long long)n++;
        }
        fleet_values *g = &v[*slot];
        int m = sqlite3_column_int(s, 1);
        long long labels = sqlite3_column_int64(s, 2);
        if (m < 0 || m >= GP_M_COUNT || (g->seen[m] && labels >= g->labels[m]))
            continue;
        g->seen[m] = true;
        g->labels[m] = labels;
        g->has[m] = sqlite3_column_type(s, 3) != SQLITE_NULL;
        g->value[m] = g->has[m] ? sqlite3_column_double(s, 3) : 0;
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the fleet");
    sqlite3_finalize(s);
    if (res != GP_OK)
        free(v);
    else
        *out = v;
    return res;
}

static gp_status fleet_read(gp_store *st, int64_t now_ms, int64_t window_ms,
                            int (*fn)(const gp_fleet_gpu *, void *), void *arg, gp_err *err) {
    map by_gpu = {0};
    fleet_values *values;
    if (fleet_values_read(st, now_ms - window_ms, &by_gpu, &values, err)) {
        map_free(&by_gpu);
        return err->code;
    }
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_FLEET_GPUS, &s, err)) {
        map_free(&by_gpu);
        free(values);
        return err->code;
    }
    gp_fleet_gpu cur;
    char node[128] = "", host[128] = "", uuid[96] = "", model[64] = "", mig[32] = "",
         node_error[256] = "", raw_model[96] = "";
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        memset(&cur, 0, sizeof cur);
        text_into(s, 0, node, sizeof node);
        text_into(s, 1, host, sizeof host);
        text_into(s, 2, uuid, sizeof uuid);
        text_into(s, 3, model, sizeof model);
        text_into(s, 4, mig, sizeof mig);
        text_into(s, 8, node_error, sizeof node_error);
        text_into(s, 10, raw_model, sizeof raw_model);
        cur.node = node, cur.host = host, cur.uuid = uuid, cur.model = model, cur.mig = mig;
        cur.raw_model = raw_model;
        cur.index = sqlite3_column_int(s, 5);
        cur.last_seen_ms = sqlite3_column_int64(s, 6);
        int64_t ok_ms = sqlite3_column_int64(s, 7);
        bool has_ok = sqlite3_column_type(s, 7) != SQLITE_NULL;
        bool has_err = sqlite3_column_type(s, 8) != SQLITE_NULL;
        cur.node_down = has_err;
        cur.node_error = has_err ? node_error : NULL;
        cur.missing = has_ok && cur.last_seen_ms < ok_ms - GP_MINUTE_MS;
        const long long *slot = map_find(&by_gpu, (uint64_t)sqlite3_column_int64(s, 11));
        if (slot) {
            memcpy(cur.has, values[*slot].has, sizeof cur.has);
            memcpy(cur.value, values[*slot].value, sizeof cur.value);
        }
        if (fn(&cur, arg))
            break;
    }
    gp_status res =
        rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the fleet");
    sqlite3_finalize(s);
    map_free(&by_gpu);
    free(values);
    return res;
}

gp_status gp_store_fleet(gp_store *st, int64_t now_ms, int64_t window_ms,
                         int (*fn)(const gp_fleet_gpu *, void *), void *arg, gp_err *err) {
    /* One read transaction: both queries see the same commit, as the single query did. */
    if (store_exec(st, "SAVEPOINT fleet_read", err))
        return err->code;
    gp_status res = fleet_read(st, now_ms, window_ms, fn, arg, err);
    gp_err ignored;
    if (store_exec(st, "RELEASE fleet_read", res == GP_OK ? err : &ignored) && res == GP_OK)
        res = err->code;
    return res;
}

gp_status gp_store_node_power(gp_store *st, int64_t now_ms, int64_t window_ms,
                              int (*fn)(const char *node, double watts, int64_t ts_ms, void *),
                              void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT n.name, x.value, x.ts_ms FROM series s JOIN node n ON "
                      "n.id = s.node_id JOIN sample x ON x.series_id = s.id WHERE s.gpu_id = 0 "
                      "AND s.metric = ?2 AND x.ts_ms = (SELECT max(ts_ms) FROM sample WHERE "
                      "series_id = s.id AND ts_ms >= ?1) ORDER BY n.name",
                      &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, now_ms - window_ms);
    sqlite3_bind_int(s, 2, GP_M_NODE_POWER_W);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((const char *)sqlite3_column_text(s, 0), sqlite3_column_double(s, 1),
               sqlite3_column_int64(s, 2), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read node power");
    sqlite3_finalize(s);
    return res;
}

/* Every GPU's points through one GROUP BY: label sets of a GPU averaged bucket by bucket. */
static const char SQL_HISTORY[] =
    "SELECT n.name, g.uuid, g.mig, g.idx, r.bucket_ms, sum(r.sum) / sum(r.n) "
    "FROM series s CROSS JOIN rollup_5m_all r ON r.series_id = s.id "
    "JOIN gpu g ON g.id = s.gpu_id JOIN node n ON n.id = s.node_id "
    "WHERE r.bucket_ms >= ?1 AND r.bucket_ms < ?2 AND s.metric = ?3 "
    "GROUP BY g.id, r.bucket_ms ORDER BY n.name, g.idx, g.mig, g.id, r.bucket_ms";
/* The GPUs with a series of the metric, in SQL_HISTORY's order. */
static const char SQL_HISTORY_GPUS[] =
    "SELECT n.name, g.uuid, g.mig, g.idx, g.id, s.id FROM series s "
    "JOIN gpu g ON g.id = s.gpu_id JOIN node n ON n.id = s.node_id WHERE s.metric = ?1 "
    "ORDER BY n.name, g.idx, g.mig, g.id";

typedef struct history_gpu {
    char node[128], uuid[96], mig[32];
    int index;
    long long series;
} history_gpu;

static gp_status history_grouped(gp_store *st, gp_metric m, int64_t from_ms, int64_t to_ms,
                                 int (*fn)(const gp_gpu_point *, void *), void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HISTORY, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from_ms);
    sqlite3_bind_int64(s, 2, to_ms);
    sqlite3_bind_int(s, 3, (int)m);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_gpu_point p = {(const char *)sqlite3_column_text(s, 0),
                          (const char *)sqlite3_column_text(s, 1),
                          (const char *)sqlite3_column_text(s, 2),
                          sqlite3_column_int(s, 3),
                          sqlite3_column_int64(s, 4),
                          sqlite3_column_double(s, 5)};
        if (fn(&p, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read GPU history");
    sqlite3_finalize(s);
    return res;
}

/* The GPUs of metric m, each with its one series; *gpus NULL when a GPU has several (label
 * sets), whose buckets only SQL_HISTORY averages. */
static gp_status history_gpus(gp_store *st, gp_metric m, history_gpu **gpus, size_t *n,
                              gp_err *err) {
    *gpus = NULL;
    *n = 0;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HISTORY_GPUS, &s, err))
        return err->code;
    sqlite3_bind_int(s, 1, (int)m);
    history_gpu *g = NULL;
    size_t cap = 0;
    map seen = {0};
    bool several = false;
    int rc;
    while (!several && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        bool fresh;
        map_slot(&seen, (uint64_t)sqlite3_column_int64(s, 4), &fresh);
        several = !fresh;
        g = gp_xgrow(g, &cap, *n, sizeof *g, 1024);
        history_gpu *h = &g[(*n)++];
        text_into(s, 0, h->node, sizeof h->node);
        text_into(s, 1, h->uuid, sizeof h->uuid);
        text_into(s, 2, h->mig, sizeof h->mig);
        h->index = sqlite3_column_int(s, 3);
        h->series = sqlite3_column_int64(s, 5);
    }
    map_free(&seen);
    gp_status res = several || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read GPU history");
    sqlite3_finalize(s);
    if (res != GP_OK || several) {
        free(g);
        *n = 0;
    } else {
        *gpus = g;
    }
    return res;
}

typedef struct history_walk {
    int (*fn)(const gp_gpu_point *, void *);
    void *arg;
    const history_gpu *gpu;
} history_walk;

/* A bucket's mean as SQL_HISTORY's sum(sum) / sum(n) gives it for one row: 0.0 + sum (SQLite's
 * sum() starts from 0.0, so -0 reads 0), and NULL, read as 0, for n = 0, a NaN sum (NULL in
 * SQL) or a NaN quotient. */
static int history_point(int64_t bucket_ms, long long n, double sum, void *arg) {
    history_walk *w = arg;
    double mean = n != 0 ? (0.0 + sum) / (double)n : 0;
    if (isnan(mean))
        mean = 0;
    gp_gpu_point p = {w->gpu->node, w->gpu->uuid, w->gpu->mig, w->gpu->index, bucket_ms, mean};
    return w->fn(&p, w->arg);
}

gp_status gp_store_gpu_history(gp_store *st, gp_metric m, int64_t from_ms, int64_t to_ms,
                               int (*fn)(const gp_gpu_point *, void *), void *arg, gp_err *err) {
    history_gpu *gpus;
    size_t n;
    if (history_gpus(st, m, &gpus, &n, err))
        return err->code;
    if (!gpus)
        return history_grouped(st, m, from_ms, to_ms, fn, arg, err);
    /* One series a GPU: its buckets in order, straight from its chunks and rows, without
     * grouping every bucket through a sort (10,000 GPUs' day: 4.6 s against 0.2 s). */
    history_walk w = {fn, arg, NULL};
    gp_status res = GP_OK;
    bool stop = false;
    for (size_t i = 0; i < n && !stop && res == GP_OK; i++) {
        w.gpu = &gpus[i];
        res = store_5m_each(st, gpus[i].series, from_ms, to_ms, history_point, &w, &stop, err);
    }
    free(gpus);
    return res;
}

gp_status gp_store_stats(gp_store *st, gp_db_stats *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    static const char *const q[] = {
        "SELECT count(*) FROM node",
        "SELECT count(*) FROM gpu WHERE mig = ''",
        "SELECT count(*) FROM series",
        "SELECT count(*) FROM sample",
        "SELECT count(*) FROM rollup_5m_all",
        "SELECT count(*) FROM rollup_1h_all",
        "SELECT count(*) FROM collect_cycle",
        "SELECT count(*) FROM price",
        "SELECT count(*) FROM offer",
        "SELECT count(*) FROM scenario",
        "SELECT coalesce(min(ts_ms), 0) FROM sample",
        "SELECT coalesce(max(ts_ms), 0) FROM sample",
        "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"};
    long long *dst[] = {
        &out->nodes,      &out->gpus,       &out->series,           &out->samples,
        &out->rollups_5m, &out->rollups_1h, &out->cycles,           &out->prices,
        &out->offers,     &out->scenarios,  &out->oldest_sample_ms, &out->newest_sample_ms,
        &out->file_bytes};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        sqlite3_stmt *s;
        if (store_prepare(st, q[i], &s, err))
            return err->code;
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            *dst[i] = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
        if (rc != SQLITE_ROW)
            return store_fail(st, err, "read statistics");
    }
    return GP_OK;
}

/* An index counts with its table (sqlite_schema's tbl_name, autoindexes included); the schema
 * itself counts as sqlite_schema. */
static const char SQL_SPACE[] =
    "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat d "
    "LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY 1 "
    "UNION ALL SELECT '(free)', f.freelist_count * p.page_size "
    "FROM pragma_freelist_count() f, pragma_page_size() p ORDER BY 2 DESC";

gp_status gp_store_space(gp_store *st, int (*fn)(const char *table, long long bytes, void *),
                         void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_SPACE, &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((const char *)sqlite3_column_text(s, 0), sqlite3_column_int64(s, 1), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the space used");
    sqlite3_finalize(s);
    return res;
}
