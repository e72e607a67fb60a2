/* Hosted-model (API) prices (store_api_price.h). */
#include "gpuplan/store_api_price.h"

#include <stdio.h>
#include <string.h>

#include "store_int.h"

gp_status gp_store_api_price_add(gp_store *st, const gp_api_price *p, bool *added, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO api_price(provider, model, effective_from, input_per_m, "
                      "output_per_m, currency, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                      "ON CONFLICT DO NOTHING",
                      &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, p->provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, p->model, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, p->effective_from, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 4, p->input_per_m);
    sqlite3_bind_double(s, 5, p->output_per_m);
    sqlite3_bind_text(s, 6, p->currency, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, p->source, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "write an API price");
    *added = sqlite3_changes(st->db) > 0;
    return GP_OK;
}

static const char SQL_IN_FORCE[] =
    "SELECT a.provider, a.model, a.effective_from, a.input_per_m, a.output_per_m, a.currency, "
    "a.source, (SELECT count(*) FROM api_price h WHERE h.provider = a.provider "
    "AND h.model = a.model) FROM api_price a "
    "WHERE (?2 IS NULL OR a.provider = ?2) AND (?3 IS NULL OR a.model = ?3) "
    "AND a.effective_from = (SELECT max(effective_from) FROM api_price g "
    "WHERE g.provider = a.provider AND g.model = a.model AND g.effective_from <= ?1) "
    "ORDER BY a.model, a.output_per_m, a.provider";

static const char SQL_HISTORY[] =
    "SELECT a.provider, a.model, a.effective_from, a.input_per_m, a.output_per_m, a.currency, "
    "a.source, (SELECT count(*) FROM api_price h WHERE h.provider = a.provider "
    "AND h.model = a.model) FROM api_price a "
    "WHERE (?2 IS NULL OR a.provider = ?2) AND (?3 IS NULL OR a.model = ?3) "
    "ORDER BY a.provider, a.model, a.effective_from";

static void text(sqlite3_stmt *s, int i, char *out, size_t cap) {
    const char *t = (const char *)sqlite3_column_text(s, i);
    snprintf(out, cap, "%s", t ? t : "");
}

gp_status gp_store_api_prices(gp_store *st, const char *as_of, const char *provider,
                              const char *model,
                              int (*fn)(const gp_api_price *p, int history, void *arg), void *arg,
                              gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, as_of ? SQL_IN_FORCE : SQL_HISTORY, &s, err))
        return err->code;
    if (as_of)
        sqlite3_bind_text(s, 1, as_of, -1, SQLITE_STATIC);
    if (provider)
        sqlite3_bind_text(s, 2, provider, -1, SQLITE_STATIC);
    if (model)
        sqlite3_bind_text(s, 3, model, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_api_price p;
        memset(&p, 0, sizeof p);
        text(s, 0, p.provider, sizeof p.provider);
        text(s, 1, p.model, sizeof p.model);
        text(s, 2, p.effective_from, sizeof p.effective_from);
        p.input_per_m = sqlite3_column_double(s, 3);
        p.output_per_m = sqlite3_column_double(s, 4);
        text(s, 5, p.currency, sizeof p.currency);
        text(s, 6, p.source, sizeof p.source);
        if (fn(&p, sqlite3_column_int(s, 7), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the API prices");
}
