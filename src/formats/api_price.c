/* The API price CSV (api_price.h). */
#include "gpuplan/api_price.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "gpuplan/fx.h"
#include "gpuplan/parse.h"
#include "gpuplan/xmem.h"

enum { C_PROVIDER, C_MODEL, C_IN, C_OUT, C_CURRENCY, C_DATE, C_SOURCE, C_N };
static const char *const columns[C_N] = {
    "provider", "model", "input_per_m", "output_per_m", "currency", "effective_from", "source"};

#define MAX_ROWS 8192
#define KEY_BYTES (2 * GP_API_NAME_BYTES + 12)

typedef struct reader {
    const char *origin;
    int col[C_N];
    bool header_seen;
    gp_status (*fn)(const gp_api_price *, void *, gp_err *);
    void *arg;
    size_t n;
    char (*seen)[KEY_BYTES];
} reader;

static gp_status bad(const reader *rd, const gp_csv_record *r, gp_err *err, const char *what) {
    char where[600];
    snprintf(where, sizeof where, "%s:%d", rd->origin, r->line);
    return gp_errorf(err, GP_E_INPUT, where, "%s", what);
}

/* Field c of r into out (cap bytes): false when absent, empty, too long or holding a NUL. */
static bool field(const reader *rd, const gp_csv_record *r, int c, char *out, size_t cap) {
    return gp_csv_field_copy(r, rd->col[c], out, cap);
}

/* A provider's or model's name: lower-case ASCII letters, digits and ".-_/". */
static bool name_ok(const char *s) {
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr(".-_/", *s)))
            return false;
    return true;
}

static bool price(const reader *rd, const gp_csv_record *r, int c, double *out) {
    char v[64];
    return field(rd, r, c, v, sizeof v) && gp_parse_double(v, out) && isfinite(*out) && *out >= 0 &&
           *out < 1e9;
}

static gp_status header(reader *rd, const gp_csv_record *r, gp_err *err) {
    rd->header_seen = true;
    return gp_csv_require_columns(r, rd->origin, columns, C_N, 0, rd->col, err);
}

static gp_status row(const gp_csv_record *r, void *arg, gp_err *err) {
    reader *rd = arg;
    if (!rd->header_seen)
        return header(rd, r, err);
    gp_api_price p;
    memset(&p, 0, sizeof p);
    p.line = r->line;
    if (!field(rd, r, C_PROVIDER, p.provider, sizeof p.provider) || !name_ok(p.provider))
        return bad(rd, r, err, "provider: empty, too long, or not lower-case a-z 0-9 . - _ /");
    if (!field(rd, r, C_MODEL, p.model, sizeof p.model) || !name_ok(p.model))
        return bad(rd, r, err, "model: empty, too long, or not lower-case a-z 0-9 . - _ /");
    if (!price(rd, r, C_IN, &p.input_per_m))
        return bad(rd, r, err, "input_per_m: not a price >= 0 per million tokens");
    if (!price(rd, r, C_OUT, &p.output_per_m))
        return bad(rd, r, err, "output_per_m: not a price >= 0 per million tokens");
    if (!field(rd, r, C_CURRENCY, p.currency, sizeof p.currency) || !gp_fx_valid_code(p.currency))
        return bad(rd, r, err, "currency: not a three-letter code like USD");
    if (!field(rd, r, C_DATE, p.effective_from, sizeof p.effective_from) ||
        !gp_valid_date(p.effective_from))
        return bad(rd, r, err, "effective_from: not a date YYYY-MM-DD");
    if (!field(rd, r, C_SOURCE, p.source, sizeof p.source))
        return bad(rd, r, err, "source: empty or too long (the page's URL and what it showed)");
    char key[KEY_BYTES];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s", p.provider, p.model, p.effective_from);
    for (size_t i = 0; i < rd->n; i++)
        if (!strcmp(rd->seen[i], key))
            return bad(rd, r, err, "this provider, model and effective_from are given twice");
    if (rd->n == MAX_ROWS)
        return bad(rd, r, err, "more than 8192 prices in one file");
    memcpy(rd->seen[rd->n++], key, sizeof key);
    return rd->fn(&p, rd->arg, err);
}

gp_status gp_api_price_parse(const char *buf, size_t len, const char *origin,
                             gp_status (*fn)(const gp_api_price *p, void *arg, gp_err *err),
                             void *arg, size_t *rows, gp_err *err) {
    reader rd = {.origin = origin, .fn = fn, .arg = arg};
    *rows = 0;
    rd.seen = gp_xmalloc(MAX_ROWS * sizeof *rd.seen);
    gp_status st = gp_csv_read(buf, len, origin, row, &rd, err);
    free(rd.seen);
    if (st == GP_OK && !rd.header_seen)
        return gp_errorf(err, GP_E_INPUT, origin, "empty: no header");
    if (st == GP_OK)
        *rows = rd.n;
    return st;
}
