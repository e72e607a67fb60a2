/* Getting catalog data into the store (collector layer): imports of files or downloaded
 * bytes, and the bundled catalog of pricing/, loaded through the very same importers.
 *
 * Ownership: the caller's batch receives the parsed records and skip reasons (to report
 * them); free it with gp_catalog_batch_done. Nothing is written unless everything is. */
#ifndef GPUPLAN_CATALOG_LOAD_H
#define GPUPLAN_CATALOG_LOAD_H

#include <stdbool.h>

#include "gpuplan/catalog.h"
#include "gpuplan/store_catalog.h"

/* Parse buf as format (GP_FMT_UNKNOWN: detect it) and import it as one transaction with its
 * prices effective from effective_from (NULL: the date the content gives, else today's
 * today). strict: any skipped record fails the import with GP_E_INPUT. */
gp_status gp_catalog_import(gp_store *st, const char *buf, size_t len, const char *origin,
                            gp_catalog_format format, const char *provider, const char *source,
                            const char *effective_from, const char *today, bool strict,
                            gp_catalog_batch *batch, gp_import_stats *stats, gp_err *err);

/* Exchange rates (docs/catalog.md "Exchange rates"): the ECB reference-rate CSV in buf, every
 * rate stored with `source` (NULL: origin), as one transaction; nothing is written unless all
 * of it parses. rows: dated rows read; added: new rates; kept: rates the store had that day. */
typedef struct gp_fx_import_stats {
    size_t rows, added, kept;
} gp_fx_import_stats;
gp_status gp_fx_import(gp_store *st, const char *buf, size_t len, const char *origin,
                       const char *source, gp_fx_import_stats *out, gp_err *err);

/* Hosted-model (API) prices (docs/catalog.md "API prices"): the CSV of api_price.h in buf, each
 * row with its own source, as one transaction; nothing is written unless all of it parses.
 * rows: rows read; added: new prices; kept: prices the store had for that day. */
typedef struct gp_api_import_stats {
    size_t rows, added, kept;
} gp_api_import_stats;
gp_status gp_api_price_import(gp_store *st, const char *buf, size_t len, const char *origin,
                              gp_api_import_stats *out, gp_err *err);

typedef struct gp_bundle_stats {
    bool loaded; /* false: the store already had this bundle */
    size_t files, prices_added, prices_unchanged, offers, skipped, specs, hardware, tariffs,
        fx_rates, api_prices;
    double seconds;
} gp_bundle_stats;

/* Load the bundled catalog unless the store already holds this exact bundle (or force).
 * One transaction for all of it. */
gp_status gp_catalog_load_bundle(gp_store *st, bool force, gp_bundle_stats *out, gp_err *err);
/* *current: the store holds this exact bundle (a load would do nothing). Errors: the store's. */
gp_status gp_catalog_bundle_current(gp_store *st, bool *current, gp_err *err);

/* The bundle's manifest rows, for `pricing sources`: path, kind, format, provider, date,
 * license, source. fn's strings are borrowed for the call. */
gp_status gp_catalog_bundle_sources(int (*fn)(const char *path, const char *kind,
                                              const char *effective_from, const char *license,
                                              const char *source, void *),
                                    void *arg, gp_err *err);

#endif
