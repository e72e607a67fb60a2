/* A price list imported into the catalog (app_pricing.h). */
#include "gpuplan/app_pricing.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/fetch.h"
#include "gpuplan/files.h"
#include "gpuplan/parse.h"

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
