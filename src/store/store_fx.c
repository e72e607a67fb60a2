/* Dated exchange rates (store_fx.h). */
#include "gpuplan/store_fx.h"

#include <stdio.h>
#include <string.h>

#include "store_int.h"

gp_status gp_store_fx_add(gp_store *st, const gp_fx_rate *r, const char *source, bool *added,
                          gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO fx_rate(base, quote, effective_from, rate, source) "
                      "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                      &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, r->base, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, r->quote, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, r->date, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 4, r->rate);
    sqlite3_bind_text(s, 5, source, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "write an exchange rate");
    *added = sqlite3_changes(st->db) > 0;
    return GP_OK;
}

static const char SQL_LIST[] =
    "SELECT f.base, f.quote, f.effective_from, f.rate, f.source, "
    "(SELECT count(*) FROM fx_rate h WHERE h.base = f.base AND h.quote = f.quote) "
    "FROM fx_rate f WHERE (?2 IS NULL OR f.base = ?2 OR f.quote = ?2) "
    "AND f.effective_from = (SELECT max(effective_from) FROM fx_rate g "
    "WHERE g.base = f.base AND g.quote = f.quote AND g.effective_from <= ?1) "
    "ORDER BY f.base, f.quote";

gp_status gp_store_fx_list(gp_store *st, const char *as_of, const char *currency,
                           int (*fn)(const gp_fx_rate *r, const char *source, int history,
                                     void *arg),
                           void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_LIST, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, as_of, -1, SQLITE_STATIC);
    if (currency)
        sqlite3_bind_text(s, 2, currency, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_fx_rate r;
        snprintf(r.base, sizeof r.base, "%s", (const char *)sqlite3_column_text(s, 0));
        snprintf(r.quote, sizeof r.quote, "%s", (const char *)sqlite3_column_text(s, 1));
        snprintf(r.date, sizeof r.date, "%s", (const char *)sqlite3_column_text(s, 2));
        r.rate = sqlite3_column_double(s, 3);
        if (fn(&r, (const char *)sqlite3_column_text(s, 4), sqlite3_column_int(s, 5), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "list exchange rates");
}

/* The pair's rate in force on as_of, as stored: *found false when none. */
static gp_status in_force(gp_store *st, const char *base, const char *quote, const char *as_of,
                          bool *found, double *rate, char date[11], char *source, size_t cap,
                          gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT rate, effective_from, source FROM fx_rate WHERE base = ?1 AND "
                      "quote = ?2 AND effective_from <= ?3 ORDER BY effective_from DESC LIMIT 1",
                      &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, base, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, quote, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, as_of, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found) {
        *rate = sqlite3_column_double(s, 0);
        snprintf(date, 11, "%s", (const char *)sqlite3_column_text(s, 1));
        snprintf(source, cap, "%s", (const char *)sqlite3_column_text(s, 2));
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK
                                                 : store_fail(st, err, "read an exchange rate");
}

gp_status gp_store_fx_convert(gp_store *st, const char *from, const char *to, const char *as_of,
                              gp_fx_quote *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    if (strcmp(from, to) == 0) {
        out->rate = 1;
        snprintf(out->date, sizeof out->date, "%s", as_of);
        return GP_OK;
    }
    bool found;
    double r;
    if (in_force(st, from, to, as_of, &found, &r, out->date, out->source, sizeof out->source, err))
        return err->code;
    if (found) {
        out->rate = r;
        return GP_OK;
    }
    if (in_force(st, to, from, as_of, &found, &r, out->date, out->source, sizeof out->source, err))
        return err->code;
    if (found) {
        out->rate = 1 / r;
        return GP_OK;
    }
    /* A cross: a base quoted against both, the first by name that has both in force. */
    sqlite3_stmt *s;
    if (store_prepare(st, STORE_SQL_FX_CROSS, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, to, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char base[4], d1[11], d2[11], s1[256], s2[256];
        snprintf(base, sizeof base, "%s", (const char *)sqlite3_column_text(s, 0));
        bool f1, f2;
        double r1, r2;
        if (in_force(st, base, from, as_of, &f1, &r1, d1, s1, sizeof s1, err) ||
            in_force(st, base, to, as_of, &f2, &r2, d2, s2, sizeof s2, err)) {
            sqlite3_finalize(s);
            return err->code;
        }
        if (!f1 || !f2)
            continue;
        sqlite3_finalize(s);
        out->rate = r2 / r1;
        snprintf(out->date, sizeof out->date, "%s", strcmp(d1, d2) < 0 ? d1 : d2);
        if (strcmp(s1, s2) == 0)
            snprintf(out->source, sizeof out->source, "%s (%s/%s crossed through %s)", s1, from, to,
                     base);
        else
            snprintf(out->source, sizeof out->source, "%s; %s (crossed through %s)", s1, s2, base);
        return GP_OK;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "read exchange rates");
    return gp_errorf(err, GP_E_NOTFOUND, NULL,
                     "no exchange rate %s/%s in force on %s (see gpuplan pricing fx list; "
                     "gpuplan pricing fx import FILE)",
                     from, to, as_of);
}
