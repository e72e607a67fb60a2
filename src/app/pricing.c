/* The price catalog read through the session, and a price list imported into it
 * (app_pricing.h). */
#include "gpuplan/app_pricing.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/fetch.h"
#include "gpuplan/files.h"
#include "gpuplan/parse.h"
#include "gpuplan/store_fx.h"
#include "gpuplan/store_reference.h"

/* A file or a URL read whole into body. */
static gp_status read_what(const gp_pricing_import_request *rq, gp_buf *body, gp_err *err) {
    if (gp_is_url(rq->what)) {
        gp_fetch_opts fo;
        gp_fetch_opts_init(&fo);
        fo.cacert = rq->cacert;
        fo.insecure = rq->insecure;
        fo.progress = rq->progress;
        return gp_fetch_url(rq->what, &fo, body, err);
    }
    return gp_read_file(rq->what, 256u << 20, body, err);
}

gp_status gp_pricing_fx_import(gp_session *s, const gp_pricing_import_request *rq,
                               gp_fx_import_stats *stats, gp_err *err) {
    gp_store *st;
    gp_buf body;
    if (gp_session_catalog(s, &st, err) || read_what(rq, &body, err))
        return err->code;
    gp_status rc = gp_fx_import(st, body.data, body.len, rq->what, rq->source, stats, err);
    gp_buf_done(&body);
    return rc;
}

gp_status gp_pricing_api_import(gp_session *s, const gp_pricing_import_request *rq,
                                gp_api_import_stats *stats, gp_err *err) {
    gp_store *st;
    gp_buf body;
    if (gp_session_catalog(s, &st, err) || read_what(rq, &body, err))
        return err->code;
    gp_status rc = gp_api_price_import(st, body.data, body.len, rq->what, stats, err);
    gp_buf_done(&body);
    return rc;
}

gp_status gp_pricing_api_list(gp_session *s, const char *as_of, const char *provider,
                              const char *model,
                              int (*fn)(const gp_api_price *p, int history, void *arg), void *arg,
                              gp_err *err) {
    gp_store *st;
    if (gp_session_catalog(s, &st, err))
        return err->code;
    return gp_store_api_prices(st, as_of, provider, model, fn, arg, err);
}

typedef struct cheapest {
    gp_api_price best;
    bool found;
} cheapest;

static int take_cheapest(const gp_api_price *p, int history, void *arg) {
    (void)history;
    cheapest *c = arg;
    if (!c->found || p->output_per_m < c->best.output_per_m ||
        (p->output_per_m == c->best.output_per_m && p->input_per_m < c->best.input_per_m)) {
        c->best = *p;
        c->found = true;
    }
    return 0;
}

gp_status gp_api_price_in_force(gp_session *s, const char *model, const char *provider,
                                const char *as_of, gp_api_price *out, gp_err *err) {
    if (!gp_valid_date(as_of))
        return gp_errorf(err, GP_E_INPUT, as_of, "not a date YYYY-MM-DD");
    cheapest c = {.found = false};
    if (gp_pricing_api_list(s, as_of, provider, model, take_cheapest, &c, err))
        return err->code;
    if (!c.found)
        return gp_errorf(err, GP_E_NOTFOUND, model,
                         "no API price for %s%s%s in force on %s (gpuplan pricing api list "
                         "--history lists what the catalog holds)",
                         model, provider ? " at " : "", provider ? provider : "", as_of);
    *out = c.best;
    return GP_OK;
}

gp_status gp_pricing_ready(gp_session *s, gp_err *err) {
    gp_store *st;
    return gp_session_catalog(s, &st, err) ? err->code : GP_OK;
}

/* The catalog's store for one read: the bundle loaded first, as gp_session_catalog says. */
#define CATALOG_OR_RETURN(s, st, err)                                                              \
    gp_store *st;                                                                                  \
    if (gp_session_catalog(s, &st, err))                                                           \
    return err->code

gp_status gp_pricing_offers(gp_session *s, const gp_offer_filter *f,
                            int (*fn)(const gp_offer_price *, void *), void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_catalog_list(st, f, fn, arg, err);
}

gp_status gp_pricing_history(gp_session *s, const char *provider, const char *instance,
                             const char *region, int (*fn)(const gp_offer_price *, void *),
                             void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_catalog_history(st, provider, instance, region, fn, arg, err);
}

gp_status gp_pricing_diff(gp_session *s, const char *since,
                          int (*fn)(const gp_price_change *, void *), void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_catalog_diff(st, since, fn, arg, err);
}

gp_status gp_pricing_specs(gp_session *s, const char *gpu,
                           int (*fn)(const gp_gpu_spec *, const char *source, void *), void *arg,
                           gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_specs(st, gpu, fn, arg, err);
}

gp_status gp_pricing_hardware(gp_session *s, const char *gpu,
                              int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                              gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_hardware(st, gpu, fn, arg, err);
}

gp_status gp_pricing_electricity(gp_session *s,
                                 int (*fn)(const gp_elec_price *, const char *year,
                                           const char *source, void *),
                                 void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_electricity(st, fn, arg, err);
}

gp_status gp_pricing_pue_refs(gp_session *s,
                              int (*fn)(const gp_pue_ref *, const char *source, void *), void *arg,
                              gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_pue_refs(st, fn, arg, err);
}

gp_status gp_pricing_tariffs(gp_session *s,
                             int (*fn)(const gp_tariff_preset *, const char *source, void *),
                             void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_tariffs(st, fn, arg, err);
}

gp_status gp_pricing_tariff(gp_session *s, const char *name, gp_tariff_preset *out, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_tariff(st, name, out, err);
}

gp_status gp_pricing_sources(int (*fn)(const char *path, const char *kind,
                                       const char *effective_from, const char *license,
                                       const char *source, void *),
                             void *arg, gp_err *err) {
    return gp_catalog_bundle_sources(fn, arg, err);
}

gp_status gp_pricing_fx_list(gp_session *s, const char *as_of, const char *currency,
                             int (*fn)(const gp_fx_rate *r, const char *source, int history,
                                       void *arg),
                             void *arg, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_store_fx_list(st, as_of, currency, fn, arg, err);
}

gp_status gp_pricing_reload(gp_session *s, gp_bundle_stats *bs, gp_err *err) {
    CATALOG_OR_RETURN(s, st, err);
    return gp_catalog_load_bundle(st, true, bs, err);
}

gp_status gp_pricing_import(gp_session *s, const gp_pricing_import_request *rq, gp_catalog_batch *b,
                            gp_import_stats *stats, gp_err *err) {
    gp_store *st;
    if (gp_session_catalog(s, &st, err))
        return err->code;
    const char *what = rq->what;
    gp_buf body;
    gp_status rc = read_what(rq, &body, err);
    if (rc)
        return rc;
    gp_catalog_batch_init(b, 1u << 22);
    char today[11];
    gp_today(today);
    gp_catalog_format fmt = rq->format ? gp_catalog_format_from_name(rq->format) : GP_FMT_UNKNOWN;
    rc = gp_catalog_import(st, body.data, body.len, what, fmt, rq->provider, rq->source,
                           rq->effective, today, rq->strict, b, stats, err);
    gp_buf_done(&body);
    if (rc)
        gp_catalog_batch_done(b);
    return rc;
}
