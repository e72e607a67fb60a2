/* A price list imported into the catalog as a user names it (`pricing import`): a file or an
 * http(s) URL read whole, its format told by name or by its content, its prices added to the
 * catalog's history (never overwriting).
 *
 * Ownership: on success the caller's batch holds the parsed records and skip reasons (to
 * report them); free it with gp_catalog_batch_done. On failure nothing is left to free and
 * nothing is stored. Errors: the fetcher's or the file's (GP_E_IO, GP_E_NET as they report
 * them), the importer's GP_E_INPUT (unknown format, a strict import with skipped records),
 * the store's. */
#ifndef GPUPLAN_APP_PRICING_H
#define GPUPLAN_APP_PRICING_H

#include <stdbool.h>

#include "gpuplan/app_session.h"
#include "gpuplan/catalog.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/store_catalog.h"

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

gp_status gp_pricing_import(gp_session *s, const gp_pricing_import_request *rq, gp_catalog_batch *b,
                            gp_import_stats *stats, gp_err *err);

/* Exchange rates (`pricing fx import`): the ECB reference-rate CSV at rq->what (a file or a URL;
 * rq->source, cacert, insecure and progress as above; the rest unused) added to the store's
 * dated rates. Errors as gp_pricing_import's; GP_E_INPUT naming file and line. */
gp_status gp_pricing_fx_import(gp_session *s, const gp_pricing_import_request *rq,
                               gp_fx_import_stats *stats, gp_err *err);

#endif
