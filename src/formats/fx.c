/* The ECB euro reference rates as CSV (fx.h). */
#include "gpuplan/fx.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "gpuplan/parse.h"

bool gp_fx_valid_code(const char *s) {
    for (int i = 0; i < 3; i++)
        if (s[i] < 'A' || s[i] > 'Z')
            return false;
    return s[3] == '\0';
}

typedef struct ecb_ctx {
    const char *origin;
    gp_status (*fn)(const gp_fx_rate *, void *, gp_err *);
    void *arg;
    bool header;
    int n; /* columns, the date first */
    char code[GP_CSV_MAX_FIELDS][4];
    size_t rows;
} ecb_ctx;

/* A field without the spaces the daily file puts after its commas. */
static void trimmed(const gp_csv_record *r, int i, char *out, size_t cap) {
    const char *p = r->field[i];
    size_t n = r->len[i];
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
    if (n >= cap)
        out[0] = '\x01'; /* too long: no valid value starts with this */
}

/* An empty field, or spaces only. */
static bool blank(const gp_csv_record *r, int i) {
    for (size_t k = 0; k < r->len[i]; k++)
        if (r->field[i][k] != ' ' && r->field[i][k] != '\t')
            return false;
    return true;
}

/* "2025-05-09" as it is, or "9 May 2025" (the daily file) into YYYY-MM-DD. */
static bool ecb_date(const char *s, char out[11]) {
    if (gp_valid_date(s)) {
        snprintf(out, 11, "%s", s);
        return true;
    }
    static const char *const months[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    int day, year, used = 0;
    char mon[4];
    if (sscanf(s, "%2d %3s %4d%n", &day, mon, &year, &used) != 3 || s[used] != '\0')
        return false;
    for (int m = 0; m < 12; m++)
        if (strcmp(mon, months[m]) == 0) {
            char buf[16];
            snprintf(buf, sizeof buf, "%04d-%02d-%02d", year, m + 1, day);
            if (!gp_valid_date(buf))
                return false;
            snprintf(out, 11, "%s", buf);
            return true;
        }
    return false;
}

static gp_status ecb_row(const gp_csv_record *r, void *arg, gp_err *err) {
    ecb_ctx *c = arg;
    char where[300], cell[32];
    snprintf(where, sizeof where, "%s:%d", c->origin, r->line);
    if (!c->header) {
        trimmed(r, 0, cell, sizeof cell);
        if (strcmp(cell, "Date") != 0)
            return gp_errorf(err, GP_E_INPUT, where,
                             "not the ECB reference-rate layout: the first column must be Date");
        c->n = r->n;
        /* The hist file ends each line with a comma: an empty last column is no currency. */
        while (c->n > 1 && blank(r, c->n - 1))
            c->n--;
        if (c->n < 2)
            return gp_errorf(err, GP_E_INPUT, where, "no currency columns");
        for (int i = 1; i < c->n; i++) {
            trimmed(r, i, cell, sizeof cell);
            if (!gp_fx_valid_code(cell))
                return gp_errorf(err, GP_E_INPUT, where,
                                 "column %d: \"%.20s\" is not a currency code (three capitals)",
                                 i + 1, cell);
            /* The file's rates are euros in each column's currency: EUR against itself is
             * no rate (and db/015_fx.sql's CHECK would fail the whole import later). */
            if (strcmp(cell, "EUR") == 0)
                return gp_errorf(err, GP_E_INPUT, where,
                                 "column %d: EUR is the base of the ECB rates, not a quote", i + 1);
            memcpy(c->code[i], cell, 4);
        }
        c->header = true;
        return GP_OK;
    }
    gp_fx_rate fx;
    trimmed(r, 0, cell, sizeof cell);
    if (!ecb_date(cell, fx.date))
        return gp_errorf(err, GP_E_INPUT, where, "\"%.20s\" is not a date (YYYY-MM-DD)", cell);
    if (r->n > c->n) {
        for (int i = c->n; i < r->n; i++)
            if (!blank(r, i))
                return gp_errorf(err, GP_E_INPUT, where, "%d fields, the header has %d", r->n,
                                 c->n);
    }
    memcpy(fx.base, "EUR", 4);
    for (int i = 1; i < c->n && i < r->n; i++) {
        trimmed(r, i, cell, sizeof cell);
        if (!cell[0] || strcmp(cell, "N/A") == 0)
            continue;
        if (!gp_parse_double(cell, &fx.rate) || !(fx.rate > 0) || fx.rate > 1e9)
            return gp_errorf(err, GP_E_INPUT, where, "%s: \"%.20s\" is not a positive rate",
                             c->code[i], cell);
        memcpy(fx.quote, c->code[i], 4);
        if (c->fn(&fx, c->arg, err))
            return err->code;
    }
    c->rows++;
    return GP_OK;
}

gp_status gp_fx_parse_ecb(const char *buf, size_t len, const char *origin,
                          gp_status (*fn)(const gp_fx_rate *r, void *arg, gp_err *err), void *arg,
                          size_t *rows, gp_err *err) {
    ecb_ctx c = {.origin = origin, .fn = fn, .arg = arg};
    *rows = 0;
    if (gp_csv_read(buf, len, origin, ecb_row, &c, err))
        return err->code;
    if (!c.header)
        return gp_errorf(err, GP_E_INPUT, origin, "empty: no header line (Date,USD,...)");
    *rows = c.rows;
    return GP_OK;
}
