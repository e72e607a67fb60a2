/* The price catalog as front ends read it (`pricing list|show|gpus|hardware|tariffs|tariff|
 * electricity|pue|diff|sources|reload`, the TUI's Catalog screen and tariff picker), and a
 * price list imported into it as a user names it (`pricing import`): a file or an http(s) URL
 * read whole, its format told by name or by its content, its prices added to the catalog's
 * history (never overwriting).
 *
 * Every read goes through gp_session_catalog: the bundled catalog is loaded into a database
 * that never had it (a read-only session reads what the database holds). The rows given to a
 * callback are borrowed for the call; a callback returning nonzero stops the walk (GP_OK).
 *
 * Ownership: on success the caller's batch holds the parsed records and skip reasons (to
 * report them); free it with gp_catalog_batch_done. On failure nothing is left to free and
 * nothing is stored. Errors: the fetcher's or the file's (GP_E_IO, GP_E_NET as they report
 * them), the importer's GP_E_INPUT (unknown format, a strict import with skipped records),
 * the store's as store_catalog.h states them (GP_E_NOTFOUND: an unknown tariff preset). */
#ifndef GPUPLAN_APP_PRICING_H
#define GPUPLAN_APP_PRICING_H

#include <stdbool.h>

#include "gpuplan/app_session.h"
#include "gpuplan/catalog.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/reference.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_api_price.h"
#include "gpuplan/store_fx.h"

typedef struct gp_pricing_import_request {
    const char *what;      /* a file's path, or an http(s) URL */
    const char *format;    /* a format's name (gp_catalog_format_from_name); NULL: the content */
    const char *provider;  /* NULL: from the content or the file name */
    const char *source;    /* NULL: the importer's default */
    const char *effective; /* YYYY-MM-DD; NULL: the date the content gives, else today */
    bool strict;           /* any skipped record fails the import */
    const char *cacert;    /* URL only: a CA bundle, or NULL */
    bool insecure;         /* URL only: no certificate check */
    bool progress;         /* URL only: the fetcher draws its progress bar (a terminal) */
} gp_pricing_import_request;

/* The session's database with the catalog ready (gp_session_catalog), without handing the
 * store out: a front end asks this first to report a database it cannot open before anything
 * else. */
gp_status gp_pricing_ready(gp_session *s, gp_err *err);

/* The current offers filter f selects, in its order (gp_store_catalog_list). */
gp_status gp_pricing_offers(gp_session *s, const gp_offer_filter *f,
                            int (*fn)(const gp_offer_price *, void *), void *arg, gp_err *err);
/* Every price row ever imported for provider/instance/region (gp_store_catalog_history). */
gp_status gp_pricing_history(gp_session *s, const char *provider, const char *instance,
                             const char *region, int (*fn)(const gp_offer_price *, void *),
                             void *arg, gp_err *err);
/* What changed in the catalog since the date since (gp_store_catalog_diff). */
gp_status gp_pricing_diff(gp_session *s, const char *since,
                          int (*fn)(const gp_price_change *, void *), void *arg, gp_err *err);
/* GPU specs and hardware prices, of gpu or (NULL) of every GPU. */
gp_status gp_pricing_specs(gp_session *s, const char *gpu,
                           int (*fn)(const gp_gpu_spec *, const char *source, void *), void *arg,
                           gp_err *err);
gp_status gp_pricing_hardware(gp_session *s, const char *gpu,
                              int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                              gp_err *err);
/* Electricity prices, PUE references and tariff presets, as the catalog holds them. */
gp_status gp_pricing_electricity(gp_session *s,
                                 int (*fn)(const gp_elec_price *, const char *year,
                                           const char *source, void *),
                                 void *arg, gp_err *err);
gp_status gp_pricing_pue_refs(gp_session *s,
                              int (*fn)(const gp_pue_ref *, const char *source, void *), void *arg,
                              gp_err *err);
gp_status gp_pricing_tariffs(gp_session *s,
                             int (*fn)(const gp_tariff_preset *, const char *source, void *),
                             void *arg, gp_err *err);
/* One tariff preset by name into *out (GP_E_NOTFOUND when unknown). */
gp_status gp_pricing_tariff(gp_session *s, const char *name, gp_tariff_preset *out, gp_err *err);

/* The bundled catalog's manifest rows (`pricing sources`); reads no database. */
gp_status gp_pricing_sources(int (*fn)(const char *path, const char *kind,
                                       const char *effective_from, const char *license,
                                       const char *source, void *),
                             void *arg, gp_err *err);
/* Load the bundled catalog again even when the database holds this exact bundle
 * (`pricing reload`); *bs says what was loaded. */
gp_status gp_pricing_reload(gp_session *s, gp_bundle_stats *bs, gp_err *err);

gp_status gp_pricing_import(gp_session *s, const gp_pricing_import_request *rq, gp_catalog_batch *b,
                            gp_import_stats *stats, gp_err *err);

/* Each stored pair's exchange rate in force on as_of, pairs in name order; currency (NULL:
 * all) keeps the pairs that name it (gp_store_fx_list; `pricing fx list`). */
gp_status gp_pricing_fx_list(gp_session *s, const char *as_of, const char *currency,
                             int (*fn)(const gp_fx_rate *r, const char *source, int history,
                                       void *arg),
                             void *arg, gp_err *err);
/* Exchange rates (`pricing fx import`): the ECB reference-rate CSV at rq->what (a file or a URL;
 * rq->source, cacert, insecure and progress as above; the rest unused) added to the store's
 * dated rates. Errors as gp_pricing_import's; GP_E_INPUT naming file and line. */
gp_status gp_pricing_fx_import(gp_session *s, const gp_pricing_import_request *rq,
                               gp_fx_import_stats *stats, gp_err *err);

/* Hosted-model (API) prices (docs/catalog.md "API prices"; `pricing api list`): those in force
 * on as_of, by model then output price, or with as_of NULL every dated row (the history);
 * provider and model (NULL: any) filter (gp_store_api_prices). */
gp_status gp_pricing_api_list(gp_session *s, const char *as_of, const char *provider,
                              const char *model,
                              int (*fn)(const gp_api_price *p, int history, void *arg), void *arg,
                              gp_err *err);
/* API prices (`pricing api import`, `pricing import --format api`): the CSV of api_price.h at
 * rq->what (a file or a URL; cacert, insecure and progress as above; the rest unused) added to
 * the store's dated prices, all or none. Errors as gp_pricing_import's; GP_E_INPUT naming file
 * and line. */
gp_status gp_pricing_api_import(gp_session *s, const gp_pricing_import_request *rq,
                                gp_api_import_stats *stats, gp_err *err);
/* The API price of model in force on as_of (YYYY-MM-DD) into *out: provider's (NULL: the
 * cheapest provider's by output price, then input price, then name), for a comparison or a
 * draft to price work per unit with. GP_E_NOTFOUND naming the model (and provider) when the
 * catalog has none in force that day. */
gp_status gp_api_price_in_force(gp_session *s, const char *model, const char *provider,
                                const char *as_of, gp_api_price *out, gp_err *err);

#endif
