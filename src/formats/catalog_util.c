/* The catalog batch (init, add, skip, dedupe) and the helpers every importer shares: numbers,
 * prices, bounded copies and JSON documents. The bottom of src/formats/catalog*.c: it calls
 * none of the importers or the dispatcher above it. */
#include "catalog_util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/xmem.h"

void gp_catalog_batch_init(gp_catalog_batch *b, size_t limit) {
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

void gp_catalog_batch_done(gp_catalog_batch *b) {
    free(b->recs);
    size_t limit = b->limit;
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

gp_status gp_catalog_batch_add(gp_catalog_batch *b, const gp_price_rec *rec, gp_err *err) {
    if (b->n >= b->limit)
        return gp_errorf(err, GP_E_LIMIT, NULL, "more than %zu prices in one import", b->limit);
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        if (b->cap > b->limit)
            b->cap = b->limit;
        b->recs = gp_xrealloc(b->recs, b->cap * sizeof *b->recs);
    }
    b->recs[b->n++] = *rec;
    return GP_OK;
}

void gp_catalog_skip(gp_catalog_batch *b, const char *where, const char *fmt, ...) {
    char reason[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    b->skipped++;
    for (int i = 0; i < b->n_reasons; i++) {
        if (strcmp(b->reasons[i].reason, reason) == 0) {
            b->reasons[i].count++;
            return;
        }
    }
    int i = b->n_reasons < GP_MAX_SKIP_REASONS ? b->n_reasons++ : GP_MAX_SKIP_REASONS - 1;
    if (i == GP_MAX_SKIP_REASONS - 1 && b->n_reasons == GP_MAX_SKIP_REASONS &&
        b->reasons[i].count > 0) {
        snprintf(b->reasons[i].reason, sizeof b->reasons[i].reason, "other reasons");
        b->reasons[i].count++;
        return;
    }
    snprintf(b->reasons[i].reason, sizeof b->reasons[i].reason, "%s", reason);
    snprintf(b->reasons[i].first, sizeof b->reasons[i].first, "%s", where);
    b->reasons[i].count = 1;
}

static int key_cmp(const gp_price_rec *a, const gp_price_rec *b) {
    int c = strcmp(a->provider, b->provider);
    if (!c)
        c = strcmp(a->instance, b->instance);
    if (!c)
        c = strcmp(a->region, b->region);
    if (!c)
        c = (int)a->pricing - (int)b->pricing;
    if (!c)
        c = a->term_months - b->term_months;
    if (!c)
        c = (int)a->purchase - (int)b->purchase;
    return c;
}

static gp_price_rec *sort_base;

static int by_key_then_order(const void *x, const void *y) {
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = key_cmp(&sort_base[i], &sort_base[j]);
    return c ? c : (i < j ? -1 : i > j);
}

void gp_catalog_dedupe(gp_catalog_batch *b) {
    if (b->n < 2)
        return;
    size_t *idx = gp_xmalloc(b->n * sizeof *idx);
    bool *drop = gp_xcalloc(b->n, sizeof *drop);
    for (size_t i = 0; i < b->n; i++)
        idx[i] = i;
    sort_base = b->recs;
    qsort(idx, b->n, sizeof *idx, by_key_then_order);
    for (size_t k = 1; k < b->n; k++) {
        if (key_cmp(&b->recs[idx[k]], &b->recs[idx[k - 1]]) == 0) {
            drop[idx[k]] = true;
            char where[32];
            snprintf(where, sizeof where, "record %d", b->recs[idx[k]].where);
            gp_catalog_skip(b, where, "duplicate of an earlier record");
        }
    }
    size_t out = 0;
    for (size_t i = 0; i < b->n; i++)
        if (!drop[i])
            b->recs[out++] = b->recs[i];
    b->n = out;
    free(idx);
    free(drop);
}

bool gp_parse_number(const char *s, size_t len, double *out) {
    char tmp[64];
    while (len > 0 && *s == ' ')
        s++, len--;
    while (len > 0 && s[len - 1] == ' ')
        len--;
    if (len == 0 || len >= sizeof tmp)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!(isdigit((unsigned char)c) || c == '.' || c == '-' || c == '+' || c == 'e' ||
              c == 'E'))
            return false; /* no hex, inf, nan or thousands separators */
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (*end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool gp_catalog_copy(char *dst, size_t cap, const char *src, size_t len) {
    if (len >= cap)
        return false;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return true;
}

bool gp_catalog_price(const char *s, size_t len, bool *has, double *out) {
    *has = false;
    while (len > 0 && *s == ' ')
        s++, len--;
    if (len == 0)
        return true;
    double v;
    if (!gp_parse_number(s, len, &v) || v < 0)
        return false;
    *has = true;
    *out = v;
    return true;
}

gp_status gp_catalog_json(const char *buf, size_t len, const char *origin, cJSON **out,
                          gp_err *err) {
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (*out)
        return GP_OK;
    size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
    int line = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    char where[300];
    snprintf(where, sizeof where, "%s:%d:%d", origin, line, col);
    return gp_errorf(err, GP_E_INPUT, where, "malformed or truncated JSON");
}
