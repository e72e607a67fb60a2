/* The catalog tables: imports as history, offers and prices read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_catalog.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char *const purchase_names[] = {"no_upfront", "partial_upfront", "all_upfront"};

static const char *purchase_key(const gp_price_rec *r) {
    return r->pricing == GP_COMMITTED ? purchase_names[r->purchase] : "";
}

static gp_pricing pricing_of(const char *s) {
    return !strcmp(s, "spot") ? GP_SPOT : !strcmp(s, "committed") ? GP_COMMITTED : GP_ON_DEMAND;
}

static gp_purchase purchase_of(const char *s) {
    return !strcmp(s, "partial_upfront") ? GP_PARTIAL_UPFRONT
           : !strcmp(s, "all_upfront")   ? GP_ALL_UPFRONT
                                         : GP_NO_UPFRONT;
}

/* ---- meta ------------------------------------------------------------------------------- */

static const char SQL_META_GET[] = "SELECT value FROM meta WHERE key = ?1";
static const char SQL_META_SET[] =
    "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2";

gp_status gp_store_meta_get(gp_store *st, const char *key, char **value, gp_err *err) {
    *value = NULL;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_META_GET, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *value = gp_xstrdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read meta");
}

gp_status gp_store_meta_set(gp_store *st, const char *key, const char *value, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_META_SET, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "write meta");
}

gp_status gp_store_catalog_count(gp_store *st, long long *prices, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT count(*) FROM price", &s, err))
        return err->code;
    int rc = sqlite3_step(s);
    *prices = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? GP_OK : store_fail(st, err, "count prices");
}

/* ---- import ------------------------------------------------------------------------------ */

static const char SQL_IMPORT_NEW[] =
    "INSERT INTO catalog_import(format, provider, origin, source, effective_from) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";
static const char SQL_IMPORT_DONE[] =
    "UPDATE catalog_import SET added = ?2, unchanged = ?3, skipped = ?4 WHERE id = ?1";
static const char SQL_OFFER_UPSERT[] =
    "INSERT INTO offer(provider, instance, region, gpu, gpu_count, vcpus, memory_gib) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(provider, instance, region) DO UPDATE SET "
    "gpu = excluded.gpu, gpu_count = excluded.gpu_count, "
    "vcpus = CASE WHEN excluded.vcpus > 0 THEN excluded.vcpus ELSE vcpus END, "
    "memory_gib = CASE WHEN excluded.memory_gib > 0 THEN excluded.memory_gib ELSE memory_gib END "
    "RETURNING id, (SELECT changes())";
static const char SQL_PRICE_AT[] =
    "SELECT hourly, currency, upfront, recurring, coalesce(interruption_band, '') FROM price "
    "WHERE offer_id = ?1 AND pricing = ?2 AND term_months = ?3 "
    "AND purchase = ?4 AND effective_from <= ?5 ORDER BY effective_from DESC, id DESC LIMIT 1";
static const char SQL_PRICE_INSERT[] =
    "INSERT INTO price(offer_id, pricing, term_months, purchase, hourly, low, high, currency, "
    "effective_from, import_id, upfront, recurring, interruption_band) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, nullif(?13, ''))";
static const char SQL_SEEN_UPSERT[] =
    "INSERT INTO price_seen(offer_id, pricing, term_months, purchase, first_seen, last_seen, "
    "feed) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT DO UPDATE SET "
    "first_seen = min(first_seen, excluded.first_seen), "
    "feed = CASE WHEN excluded.last_seen >= last_seen THEN excluded.feed ELSE feed END, "
    "last_seen = max(last_seen, excluded.last_seen)";
static const char SQL_OFFER_EXISTS[] =
    "SELECT 1 FROM offer WHERE provider = ?1 AND instance = ?2 AND region = ?3";

/* An import's statements, prepared together and finalized together. */
typedef struct import_stmts {
    sqlite3_stmt *imp, *done, *offer, *at, *ins, *seen, *exists;
} import_stmts;

static void import_finalize(import_stmts *q) {
    sqlite3_finalize(q->imp);
    sqlite3_finalize(q->done);
    sqlite3_finalize(q->offer);
    sqlite3_finalize(q->at);
    sqlite3_finalize(q->ins);
    sqlite3_finalize(q->seen);
    sqlite3_finalize(q->exists);
}

static gp_status import_prepare(gp_store *st, import_stmts *q, gp_err *err) {
    memset(q, 0, sizeof *q);
    if (store_prepare(st, SQL_IMPORT_NEW, &q->imp, err) ||
        store_prepare(st, SQL_IMPORT_DONE, &q->done, err) ||
        store_prepare(st, SQL_OFFER_UPSERT, &q->offer, err) ||
        store_prepare(st, SQL_PRICE_AT, &q->at, err) ||
        store_prepare(st, SQL_PRICE_INSERT, &q->ins, err) ||
        store_prepare(st, SQL_SEEN_UPSERT, &q->seen, err) ||
        store_prepare(st, SQL_OFFER_EXISTS, &q->exists, err))
        return err->code;
    return GP_OK;
}

/* Write r's offer (new, or its shape updated); its id into *offer_id, whether it is new into
 * *is_new. */
static gp_status import_offer(gp_store *st, import_stmts *q, const gp_price_rec *r,
                              sqlite3_int64 *offer_id, bool *is_new, gp_err *err) {
    sqlite3_reset(q->exists);
    sqlite3_bind_text(q->exists, 1, r->provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(q->exists, 2, r->instance, -1, SQLITE_STATIC);
    sqlite3_bind_text(q->exists, 3, r->region, -1, SQLITE_STATIC);
    *is_new = sqlite3_step(q->exists) != SQLITE_ROW;
    sqlite3_stmt *offer = q->offer;
    sqlite3_reset(offer);
    sqlite3_bind_text(offer, 1, r->provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(offer, 2, r->instance, -1, SQLITE_STATIC);
    sqlite3_bind_text(offer, 3, r->region, -1, SQLITE_STATIC);
    sqlite3_bind_text(offer, 4, r->gpu, -1, SQLITE_STATIC);
    sqlite3_bind_double(offer, 5, r->gpu_count);
    sqlite3_bind_double(offer, 6, r->vcpus);
    sqlite3_bind_double(offer, 7, r->memory_gib);
    if (sqlite3_step(offer) != SQLITE_ROW)
        return store_fail(st, err, "write an offer");
    *offer_id = sqlite3_column_int64(offer, 0);
    while (sqlite3_step(offer) == SQLITE_ROW) /* RETURNING: finish the statement */
        ;
    return GP_OK;
}

/* Whether the price level in force at effective_from for r's offer, kind, term and purchase is
 * r's: the same hourly price, currency, fee split and interruption band. */
static gp_status price_unchanged(gp_store *st, sqlite3_stmt *at, sqlite3_int64 offer_id,
                                 const gp_price_rec *r, const char *effective_from, bool *same,
                                 gp_err *err) {
    sqlite3_reset(at);
    sqlite3_bind_int64(at, 1, offer_id);
    sqlite3_bind_text(at, 2, gp_pricing_name(r->pricing), -1, SQLITE_STATIC);
    sqlite3_bind_int(at, 3, r->term_months);
    sqlite3_bind_text(at, 4, purchase_key(r), -1, SQLITE_STATIC);
    sqlite3_bind_text(at, 5, effective_from, -1, SQLITE_STATIC);
    int rc = sqlite3_step(at);
    /* A new fee split or band is a new price level too. */
    *same = rc == SQLITE_ROW && sqlite3_column_double(at, 0) == r->hourly &&
            strcmp((const char *)sqlite3_column_text(at, 1), r->currency) == 0 &&
            (sqlite3_column_type(at, 2) != SQLITE_NULL) == r->has_split &&
            (!r->has_split || (sqlite3_column_double(at, 2) == r->upfront &&
                               sqlite3_column_double(at, 3) == r->recurring)) &&
            strcmp((const char *)sqlite3_column_text(at, 4), r->interruption_band) == 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(st, err, "read a price");
    return GP_OK;
}

/* A new price level for r's offer from effective_from, by import import_id. */
static gp_status insert_price(gp_store *st, sqlite3_stmt *ins, sqlite3_int64 offer_id,
                              const gp_price_rec *r, const char *effective_from,
                              sqlite3_int64 import_id, gp_err *err) {
    sqlite3_reset(ins);
    sqlite3_bind_int64(ins, 1, offer_id);
    sqlite3_bind_text(ins, 2, gp_pricing_name(r->pricing), -1, SQLITE_STATIC);
    sqlite3_bind_int(ins, 3, r->term_months);
    sqlite3_bind_text(ins, 4, purchase_key(r), -1, SQLITE_STATIC);
    sqlite3_bind_double(ins, 5, r->hourly);
    if (r->has_range) {
        sqlite3_bind_double(ins, 6, r->low);
        sqlite3_bind_double(ins, 7, r->high);
    } else {
        sqlite3_bind_null(ins, 6);
        sqlite3_bind_null(ins, 7);
    }
    sqlite3_bind_text(ins, 8, r->currency, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 9, effective_from, -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 10, import_id);
    if (r->has_split) {
        sqlite3_bind_double(ins, 11, r->upfront);
        sqlite3_bind_double(ins, 12, r->recurring);
    } else {
        sqlite3_bind_null(ins, 11);
        sqlite3_bind_null(ins, 12);
    }
    sqlite3_bind_text(ins, 13, r->interruption_band, -1, SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE)
        return store_fail(st, err, "write a price");
    return GP_OK;
}

/* Record r's price as seen on effective_from in a feed of the given format. */
static gp_status mark_seen(gp_store *st, sqlite3_stmt *seen, sqlite3_int64 offer_id,
                           const gp_price_rec *r, const char *effective_from, const char *format,
                           gp_err *err) {
    sqlite3_reset(seen);
    sqlite3_bind_int64(seen, 1, offer_id);
    sqlite3_bind_text(seen, 2, gp_pricing_name(r->pricing), -1, SQLITE_STATIC);
    sqlite3_bind_int(seen, 3, r->term_months);
    sqlite3_bind_text(seen, 4, purchase_key(r), -1, SQLITE_STATIC);
    sqlite3_bind_text(seen, 5, effective_from, -1, SQLITE_STATIC);
    sqlite3_bind_text(seen, 6, format, -1, SQLITE_STATIC);
    if (sqlite3_step(seen) != SQLITE_DONE)
        return store_fail(st, err, "record a price as seen");
    return GP_OK;
}

/* One record of batch b: its offer, its price level unless unchanged, seen; counted in out. */
static gp_status import_record(gp_store *st, import_stmts *q, const gp_catalog_batch *b,
                               const gp_price_rec *r, const char *effective_from,
                               gp_import_stats *out, gp_err *err) {
    sqlite3_int64 offer_id = 0;
    bool is_new = false, same = false;
    if (import_offer(st, q, r, &offer_id, &is_new, err))
        return err->code;
    out->offers_new += is_new;
    if (r->shape_only)
        return GP_OK;
    if (price_unchanged(st, q->at, offer_id, r, effective_from, &same, err))
        return err->code;
    if (same)
        out->unchanged++;
    else if (insert_price(st, q->ins, offer_id, r, effective_from, out->import_id, err))
        return err->code;
    else
        out->added++;
    return mark_seen(st, q->seen, offer_id, r, effective_from, gp_catalog_format_name(b->format),
                     err);
}

/* The import's row: opened before its records, its counts written after. */
static gp_status import_open(gp_store *st, sqlite3_stmt *imp, const gp_catalog_batch *b,
                             const char *origin, const char *source, const char *effective_from,
                             gp_import_stats *out, gp_err *err) {
    sqlite3_bind_text(imp, 1, gp_catalog_format_name(b->format), -1, SQLITE_STATIC);
    sqlite3_bind_text(imp, 2, b->provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(imp, 3, origin, -1, SQLITE_STATIC);
    sqlite3_bind_text(imp, 4, source, -1, SQLITE_STATIC);
    sqlite3_bind_text(imp, 5, effective_from, -1, SQLITE_STATIC);
    if (sqlite3_step(imp) != SQLITE_DONE)
        return store_fail(st, err, "record the import");
    out->import_id = sqlite3_last_insert_rowid(st->db);
    return GP_OK;
}

static gp_status import_close(gp_store *st, sqlite3_stmt *done, const gp_catalog_batch *b,
                              const gp_import_stats *out, gp_err *err) {
    sqlite3_bind_int64(done, 1, out->import_id);
    sqlite3_bind_int64(done, 2, (sqlite3_int64)out->added);
    sqlite3_bind_int64(done, 3, (sqlite3_int64)out->unchanged);
    sqlite3_bind_int64(done, 4, (sqlite3_int64)b->skipped);
    if (sqlite3_step(done) != SQLITE_DONE)
        return store_fail(st, err, "record the import");
    return GP_OK;
}

gp_status gp_store_catalog_import(gp_store *st, const gp_catalog_batch *b, const char *origin,
                                  const char *source, const char *effective_from,
                                  gp_import_stats *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    import_stmts q;
    if (store_exec(st, "SAVEPOINT catalog_import", err))
        return err->code;
    bool ok = !import_prepare(st, &q, err) &&
              !import_open(st, q.imp, b, origin, source, effective_from, out, err);
    for (size_t i = 0; ok && i < b->n; i++)
        ok = !import_record(st, &q, b, &b->recs[i], effective_from, out, err);
    ok = ok && !import_close(st, q.done, b, out, err);
    import_finalize(&q);
    if (ok)
        return store_exec(st, "RELEASE catalog_import", err);
    sqlite3_exec(st->db, "ROLLBACK TO catalog_import; RELEASE catalog_import", NULL, NULL, NULL);
    memset(out, 0, sizeof *out);
    return err->code;
}

/* ---- reading ------------------------------------------------------------------------------ */

#define OFFER_COLS                                                                                 \
    "o.provider, o.instance, o.region, o.gpu, o.gpu_count, o.vcpus, o.memory_gib, p.pricing, "     \
    "p.term_months, p.purchase, p.hourly, p.low, p.high, p.currency, p.effective_from, i.source, " \
    "coalesce(p.interruption_band, '')"

/* Read the OFFER_COLS starting at column c0. */
static void row_to_price(sqlite3_stmt *s, int c0, gp_offer_price *o) {
    *o = (gp_offer_price){0}; /* every member set, unpriced false */
    o->provider = (const char *)sqlite3_column_text(s, c0 + 0);
    o->instance = (const char *)sqlite3_column_text(s, c0 + 1);
    o->region = (const char *)sqlite3_column_text(s, c0 + 2);
    o->gpu = (const char *)sqlite3_column_text(s, c0 + 3);
    o->gpu_count = sqlite3_column_double(s, c0 + 4);
    o->vcpus = sqlite3_column_double(s, c0 + 5);
    o->memory_gib = sqlite3_column_double(s, c0 + 6);
    o->pricing = pricing_of((const char *)sqlite3_column_text(s, c0 + 7));
    o->term_months = sqlite3_column_int(s, c0 + 8);
    o->purchase = purchase_of((const char *)sqlite3_column_text(s, c0 + 9));
    o->hourly = sqlite3_column_double(s, c0 + 10);
    o->has_range = sqlite3_column_type(s, c0 + 11) != SQLITE_NULL;
    o->low = sqlite3_column_double(s, c0 + 11);
    o->high = sqlite3_column_double(s, c0 + 12);
    o->currency = (const char *)sqlite3_column_text(s, c0 + 13);
    o->effective_from = (const char *)sqlite3_column_text(s, c0 + 14);
    o->source = (const char *)sqlite3_column_text(s, c0 + 15);
    o->interruption_band = (const char *)sqlite3_column_text(s, c0 + 16);
}

/* The price in force: the newest row at or before ?as_of for its key. */
static const char SQL_LIST_HEAD[] =
    "SELECT " OFFER_COLS " FROM offer o JOIN price p ON p.offer_id = o.id "
    "JOIN catalog_import i ON i.id = p.import_id "
    "WHERE p.id = (SELECT p2.id FROM price p2 WHERE p2.offer_id = p.offer_id "
    "  AND p2.pricing = p.pricing AND p2.term_months = p.term_months "
    "  AND p2.purchase = p.purchase AND p2.effective_from <= ?1 "
    "  ORDER BY p2.effective_from DESC, p2.id DESC LIMIT 1) "
    "AND (?2 IS NULL OR o.gpu = ?2 OR o.gpu LIKE ?2 || '-%') "
    "AND (?3 IS NULL OR o.provider = ?3) AND (?4 IS NULL OR o.region = ?4) "
    "AND (?5 IS NULL OR substr(o.region, 1, length(?5)) = ?5) "
    "AND (?6 < 0 OR p.pricing = ?7) AND o.gpu_count >= ?8 ";
static const char SQL_ORDER_HOURLY[] =
    "ORDER BY p.hourly, o.provider, o.instance, o.region, p.pricing, p.term_months, p.purchase "
    "LIMIT ?9";
/* A slice of a GPU (Azure NVv4's 1/8 MI25) is no whole GPU: ranked after every whole one, so
 * its price per GPU-hour never tops a comparison of whole GPUs. */
static const char SQL_ORDER_GPU_HOUR[] =
    "ORDER BY o.gpu_count <> CAST(o.gpu_count AS INTEGER), p.hourly / o.gpu_count, o.provider, "
    "o.instance, o.region, p.pricing, "
    "p.term_months, p.purchase LIMIT ?9";
static const char SQL_ORDER_NAME[] =
    "ORDER BY o.provider, o.instance, o.region, p.pricing, p.term_months, p.purchase LIMIT ?9";

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v) {
    if (v && *v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, i);
}

/* Offers with no price in force on ?1: shapes a source gave without prices (or whose first
 * price is later than as_of), by name, after the priced rows. */
static const char SQL_SHAPES[] =
    "SELECT o.provider, o.instance, o.region, o.gpu, o.gpu_count, o.vcpus, o.memory_gib "
    "FROM offer o WHERE NOT EXISTS (SELECT 1 FROM price p WHERE p.offer_id = o.id "
    "  AND p.effective_from <= ?1) "
    "AND (?2 IS NULL OR o.gpu = ?2 OR o.gpu LIKE ?2 || '-%') "
    "AND (?3 IS NULL OR o.provider = ?3) AND (?4 IS NULL OR o.region = ?4) "
    "AND (?5 IS NULL OR substr(o.region, 1, length(?5)) = ?5) AND o.gpu_count >= ?6 "
    "ORDER BY o.provider, o.instance, o.region LIMIT ?7";

static gp_status list_shapes(gp_store *st, const gp_offer_filter *f, int limit,
                             int (*fn)(const gp_offer_price *, void *), void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_SHAPES, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, f->as_of, -1, SQLITE_STATIC);
    bind_text_or_null(s, 2, f->gpu);
    bind_text_or_null(s, 3, f->provider);
    bind_text_or_null(s, 4, f->region);
    bind_text_or_null(s, 5, f->region_prefix);
    sqlite3_bind_double(s, 6, f->min_gpus);
    sqlite3_bind_int(s, 7, limit);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_offer_price o = {.unpriced = true,
                            .currency = "",
                            .effective_from = "",
                            .source = "",
                            .interruption_band = ""};
        o.provider = (const char *)sqlite3_column_text(s, 0);
        o.instance = (const char *)sqlite3_column_text(s, 1);
        o.region = (const char *)sqlite3_column_text(s, 2);
        o.gpu = (const char *)sqlite3_column_text(s, 3);
        o.gpu_count = sqlite3_column_double(s, 4);
        o.vcpus = sqlite3_column_double(s, 5);
        o.memory_gib = sqlite3_column_double(s, 6);
        if (fn(&o, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "list unpriced offers");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_catalog_list(gp_store *st, const gp_offer_filter *f,
                                int (*fn)(const gp_offer_price *, void *), void *arg, gp_err *err) {
    char sql[sizeof SQL_LIST_HEAD + 256];
    const char *order = f->sort == GP_SORT_GPU_HOUR ? SQL_ORDER_GPU_HOUR
                        : f->sort == GP_SORT_NAME   ? SQL_ORDER_NAME
                                                    : SQL_ORDER_HOURLY;
    snprintf(sql, sizeof sql, "%s%s", SQL_LIST_HEAD, order);
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, f->as_of, -1, SQLITE_STATIC);
    bind_text_or_null(s, 2, f->gpu);
    bind_text_or_null(s, 3, f->provider);
    bind_text_or_null(s, 4, f->region);
    bind_text_or_null(s, 5, f->region_prefix);
    sqlite3_bind_int(s, 6, f->pricing);
    sqlite3_bind_text(s, 7, f->pricing >= 0 ? gp_pricing_name((gp_pricing)f->pricing) : "", -1,
                      SQLITE_STATIC);
    sqlite3_bind_double(s, 8, f->min_gpus);
    sqlite3_bind_int(s, 9, f->limit > 0 ? f->limit : -1);
    int rc, listed = 0;
    bool stopped = false;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_offer_price o;
        row_to_price(s, 0, &o);
        listed++;
        if (fn(&o, arg)) {
            rc = SQLITE_DONE;
            stopped = true;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "list offers");
    sqlite3_finalize(s);
    if (res == GP_OK && f->with_shapes && f->pricing < 0 && !stopped &&
        (f->limit <= 0 || listed < f->limit))
        res = list_shapes(st, f, f->limit > 0 ? f->limit - listed : -1, fn, arg, err);
    return res;
}

/* The newest price in force of every key is its newest row at or before ?1, so the newest of
 * those per provider is the newest such row of the provider. */
static const char SQL_NEWEST[] =
    "SELECT o.provider, max(p.effective_from) FROM offer o JOIN price p ON p.offer_id = o.id "
    "JOIN catalog_import i ON i.id = p.import_id WHERE p.effective_from <= ?1 "
    "GROUP BY o.provider ORDER BY o.provider";

gp_status gp_store_catalog_newest(gp_store *st, const char *as_of,
                                  int (*fn)(const char *provider, const char *newest, void *),
                                  void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_NEWEST, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, as_of, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
               arg)) {
            rc = SQLITE_DONE;
            break;
        }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "find the newest prices");
    sqlite3_finalize(s);
    return res;
}

static const char SQL_HISTORY[] =
    "SELECT " OFFER_COLS " FROM offer o JOIN price p ON p.offer_id = o.id "
    "JOIN catalog_import i ON i.id = p.import_id "
    "WHERE o.provider = ?1 AND o.instance = ?2 AND o.region = ?3 "
    "ORDER BY CASE p.pricing WHEN 'on_demand' THEN 0 WHEN 'spot' THEN 1 ELSE 2 END, "
    "p.term_months, p.purchase, p.effective_from, p.id";

gp_status gp_store_catalog_history(gp_store *st, const char *provider, const char *instance,
                                   const char *region, int (*fn)(const gp_offer_price *, void *),
                                   void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HISTORY, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, instance, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, region, -1, SQLITE_STATIC);
    int rc, rows = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_offer_price o;
        row_to_price(s, 0, &o);
        rows++;
        if (fn(&o, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = GP_OK;
    if (rc != SQLITE_DONE)
        res = store_fail(st, err, "read price history");
    sqlite3_finalize(s);
    if (res == GP_OK && rows == 0) {
        /* A shape (an offer a source gave without prices) is known, only unpriced. */
        bool shape = false;
        if (store_prepare(st, SQL_OFFER_EXISTS, &s, err))
            return err->code;
        sqlite3_bind_text(s, 1, provider, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, instance, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, region, -1, SQLITE_STATIC);
        shape = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
        res = shape ? gp_errorf(err, GP_E_NOTFOUND, NULL,
                                "%s/%s/%s is an instance shape with no price yet (import one: "
                                "docs/catalog.md)",
                                provider, instance, region)
                    : gp_errorf(err, GP_E_NOTFOUND, NULL, "no catalog entry %s/%s/%s", provider,
                                instance, region);
    }
    return res;
}

static const char SQL_LOOKUP[] =
    "SELECT p.hourly, o.gpu_count, p.currency, p.effective_from, i.source, p.upfront, "
    "p.recurring, coalesce(p.interruption_band, '') "
    "FROM offer o JOIN price p ON p.offer_id = o.id JOIN catalog_import i ON i.id = p.import_id "
    "WHERE o.provider = ?1 AND o.instance = ?2 AND o.region = ?3 AND p.pricing = ?4 "
    "AND p.term_months = ?5 AND p.purchase = ?6 AND p.effective_from <= ?7 "
    "ORDER BY p.effective_from DESC, p.id DESC LIMIT 1";

gp_status gp_store_catalog_lookup(gp_store *st, const char *provider, const char *instance,
                                  const char *region, gp_pricing pricing, int term_months,
                                  gp_purchase purchase, const char *as_of, gp_catalog_entry *out,
                                  gp_err *err) {
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_LOOKUP, &s, err))
        return err->code;
    bool committed = pricing == GP_COMMITTED;
    sqlite3_bind_text(s, 1, provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, instance, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, region, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, gp_pricing_name(pricing), -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 5, committed ? term_months : 0);
    sqlite3_bind_text(s, 6, committed ? purchase_names[purchase] : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, as_of, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        out->hourly = sqlite3_column_double(s, 0);
        out->gpu_count = sqlite3_column_double(s, 1);
        snprintf(out->currency, sizeof out->currency, "%s", sqlite3_column_text(s, 2));
        snprintf(out->effective_from, sizeof out->effective_from, "%s", sqlite3_column_text(s, 3));
        snprintf(out->source, sizeof out->source, "%s", sqlite3_column_text(s, 4));
        out->has_split = sqlite3_column_type(s, 5) != SQLITE_NULL;
        out->upfront = sqlite3_column_double(s, 5);
        out->recurring = sqlite3_column_double(s, 6);
        snprintf(out->interruption_band, sizeof out->interruption_band, "%s",
                 sqlite3_column_text(s, 7));
    } else if (rc == SQLITE_DONE) {
        res = gp_errorf(err, GP_E_NOTFOUND, NULL, "no %s%s price for %s/%s/%s in force on %s",
                        gp_pricing_name(pricing), committed ? " (that term and purchase)" : "",
                        provider, instance, region, as_of);
    } else {
        res = store_fail(st, err, "look up a price");
    }
    sqlite3_finalize(s);
    return res;
}

/* Changes: each key's price on `since` against its latest, plus keys first or last seen. */
static const char SQL_DIFF[] =
    "WITH latest AS (SELECT p.* FROM price p WHERE p.id = (SELECT p2.id FROM price p2 "
    "  WHERE p2.offer_id = p.offer_id AND p2.pricing = p.pricing "
    "  AND p2.term_months = p.term_months AND p2.purchase = p.purchase "
    "  ORDER BY p2.effective_from DESC, p2.id DESC LIMIT 1)), "
    /* Each feed's own price before: a change is one feed's, never two feeds that disagree. */
    "before AS (SELECT p.*, bi.format AS feed FROM price p "
    "  JOIN catalog_import bi ON bi.id = p.import_id WHERE p.id = (SELECT p2.id FROM price p2 "
    "  JOIN catalog_import i2 ON i2.id = p2.import_id "
    "  WHERE p2.offer_id = p.offer_id AND p2.pricing = p.pricing "
    "  AND p2.term_months = p.term_months AND p2.purchase = p.purchase AND i2.format = bi.format "
    "  AND p2.effective_from <= ?1 ORDER BY p2.effective_from DESC, p2.id DESC LIMIT 1)), "
    "feed_latest AS (SELECT o.provider, s.feed, max(s.last_seen) AS last FROM price_seen s "
    "  JOIN offer o ON o.id = s.offer_id GROUP BY o.provider, s.feed) "
    "SELECT CASE WHEN s.first_seen > ?1 THEN 2 "
    "  WHEN s.last_seen < pl.last AND pl.last > ?1 THEN 3 "
    "  WHEN b.hourly IS NOT NULL AND p.hourly < b.hourly THEN 0 "
    "  WHEN b.hourly IS NOT NULL AND p.hourly > b.hourly THEN 1 ELSE -1 END AS kind, "
    "  b.hourly, s.last_seen, " OFFER_COLS " "
    "FROM latest p JOIN offer o ON o.id = p.offer_id JOIN catalog_import i ON i.id = p.import_id "
    "JOIN price_seen s ON s.offer_id = p.offer_id AND s.pricing = p.pricing "
    "  AND s.term_months = p.term_months AND s.purchase = p.purchase "
    "LEFT JOIN before b ON b.offer_id = p.offer_id AND b.pricing = p.pricing "
    "  AND b.term_months = p.term_months AND b.purchase = p.purchase AND b.feed = i.format "
    "LEFT JOIN feed_latest pl ON pl.provider = o.provider AND pl.feed = s.feed "
    "WHERE kind >= 0 "
    "ORDER BY kind, o.provider, o.instance, o.region, p.pricing, p.term_months, p.purchase";

gp_status gp_store_catalog_diff(gp_store *st, const char *since,
                                int (*fn)(const gp_price_change *, void *), void *arg,
                                gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_DIFF, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, since, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_price_change c;
        c.kind = (gp_change_kind)sqlite3_column_int(s, 0);
        c.before = sqlite3_column_double(s, 1);
        c.last_seen = (const char *)sqlite3_column_text(s, 2);
        row_to_price(s, 3, &c.now); /* the offer columns follow the change's own */
        if (fn(&c, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "compare prices");
    sqlite3_finalize(s);
    return res;
}
