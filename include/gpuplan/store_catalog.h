/* The catalog in the store: importing price batches as history, and reading offers, prices,
 * their history and changes back. Part of the store layer (src/store/store_catalog.c).
 *
 * Ownership: every row handed to a callback is borrowed for the call only. Errors: GP_E_DB
 * for SQLite failures, GP_E_NOTFOUND for a missing entry, GP_E_INPUT for bad arguments. */
#ifndef GPUPLAN_STORE_CATALOG_H
#define GPUPLAN_STORE_CATALOG_H

#include <stdbool.h>

#include "gpuplan/catalog.h"
#include "gpuplan/store.h"

typedef struct gp_import_stats {
    long long import_id;
    size_t offers_new; /* offers the catalog did not know */
    size_t added;      /* price rows written: new keys or changed prices */
    size_t unchanged;  /* the price in force at that date was already the same */
} gp_import_stats;

/* Write batch b in one transaction, with its prices effective from effective_from
 * (YYYY-MM-DD). origin is the file or URL; source what reports cite. Nothing is written on
 * failure. */
gp_status gp_store_catalog_import(gp_store *st, const gp_catalog_batch *b, const char *origin,
                                  const char *source, const char *effective_from,
                                  gp_import_stats *out, gp_err *err);

/* One price of one offer, as read back. */
typedef struct gp_offer_price {
    const char *provider, *instance, *region, *gpu;
    double gpu_count, vcpus, memory_gib;
    gp_pricing pricing;
    int term_months;      /* committed only */
    gp_purchase purchase; /* committed only */
    double hourly;
    bool has_range;
    double low, high;
    const char *currency, *effective_from, *source;
    const char *interruption_band; /* spot: the source's band, "" when none */
    bool unpriced; /* a shape with no price in force on as_of: pricing, hourly, currency,
                      effective_from and source say nothing */
} gp_offer_price;

typedef enum gp_offer_sort { GP_SORT_HOURLY, GP_SORT_GPU_HOUR, GP_SORT_NAME } gp_offer_sort;

typedef struct gp_offer_filter {
    const char *gpu;           /* catalog name; "A100" also matches "A100-80GB"; NULL: any */
    const char *provider;      /* NULL: any */
    const char *region;        /* exact; NULL: any */
    const char *region_prefix; /* NULL: any */
    int pricing;               /* a gp_pricing, or -1 for any */
    double min_gpus;           /* 0: any */
    const char *as_of;         /* YYYY-MM-DD: prices in force then */
    gp_offer_sort sort;
    int limit;        /* 0: all */
    bool with_shapes; /* also offers with no price in force (pricing -1 only), after the rest */
} gp_offer_filter;

/* Call fn for the price in force on as_of of every (offer, kind, term, purchase) that passes
 * the filter, in the filter's order; with with_shapes, then once for each offer that passes
 * and has no price in force (unpriced), by name. A non-zero return from fn stops the walk. */
gp_status gp_store_catalog_list(gp_store *st, const gp_offer_filter *f,
                                int (*fn)(const gp_offer_price *, void *), void *arg, gp_err *err);

/* Each provider's newest effective date (YYYY-MM-DD) among its prices in force on as_of, by
 * provider name: what gp_store_catalog_list's rows would give, in one aggregate. A non-zero
 * return from fn stops the walk. */
gp_status gp_store_catalog_newest(gp_store *st, const char *as_of,
                                  int (*fn)(const char *provider, const char *newest, void *),
                                  void *arg, gp_err *err);

/* Every price row ever imported for provider/instance/region, by kind, term, purchase and
 * date. GP_E_NOTFOUND when the offer is unknown. */
gp_status gp_store_catalog_history(gp_store *st, const char *provider, const char *instance,
                                   const char *region, int (*fn)(const gp_offer_price *, void *),
                                   void *arg, gp_err *err);

/* The price in force on as_of for one key, copied out. */
typedef struct gp_catalog_entry {
    double hourly, gpu_count; /* hourly: committed, the effective rate */
    bool has_split;           /* committed: upfront and recurring as the source gave them */
    double upfront, recurring;
    char interruption_band[8]; /* spot: the source's band, "" when none */
    char currency[4];
    char effective_from[11];
    char source[256];
} gp_catalog_entry;

gp_status gp_store_catalog_lookup(gp_store *st, const char *provider, const char *instance,
                                  const char *region, gp_pricing pricing, int term_months,
                                  gp_purchase purchase, const char *as_of, gp_catalog_entry *out,
                                  gp_err *err);

typedef enum gp_change_kind { GP_CHEAPER, GP_DEARER, GP_APPEARED, GP_DISAPPEARED } gp_change_kind;

typedef struct gp_price_change {
    gp_change_kind kind;
    gp_offer_price now;    /* DISAPPEARED: the last price seen */
    double before;         /* CHEAPER, DEARER: the price in force on `since` */
    const char *last_seen; /* DISAPPEARED: the last import date that listed it */
} gp_price_change;

/* What changed since `since` (YYYY-MM-DD) up to the latest prices: cheaper, dearer, appeared
 * (first listed after since), disappeared (no longer listed by its provider's latest import). */
gp_status gp_store_catalog_diff(gp_store *st, const char *since,
                                int (*fn)(const gp_price_change *, void *), void *arg, gp_err *err);

/* Number of price rows in the catalog (0: empty). */
gp_status gp_store_catalog_count(gp_store *st, long long *prices, gp_err *err);

/* A small key-value table for the store's own bookkeeping (the bundled catalog's version).
 * get: *value is the caller's to free(), NULL when absent. */
gp_status gp_store_meta_get(gp_store *st, const char *key, char **value, gp_err *err);
gp_status gp_store_meta_set(gp_store *st, const char *key, const char *value, gp_err *err);

#endif
