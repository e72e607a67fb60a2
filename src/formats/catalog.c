/* Catalog batches, format names and detection, and the parse dispatcher. */
#include "gpuplan/catalog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
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

static const char *const format_names[] = {"unknown",   "gpuplan",  "skypilot", "ec2instances",
                                           "aws-offer", "gcp-skus", "gcp-cud"};

const char *gp_catalog_format_name(gp_catalog_format f) {
    return format_names[f];
}

gp_catalog_format gp_catalog_format_from_name(const char *name) {
    for (int i = 1; i < (int)(sizeof format_names / sizeof format_names[0]); i++)
        if (strcmp(name, format_names[i]) == 0)
            return (gp_catalog_format)i;
    return GP_FMT_UNKNOWN;
}

const char *gp_catalog_provider_from_name(const char *filename) {
    static const char *const providers[] = {"azure", "gcp", "lambda", "vast", "aws"};
    const char *base = strrchr(filename, '/');
    base = base ? base + 1 : filename;
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++)
        if (strstr(base, providers[i]))
            return providers[i];
    return "";
}

static bool starts_with_text(const char *p, const char *end, const char *s) {
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

gp_catalog_format gp_catalog_detect(const char *buf, size_t len, const char *filename) {
    const char *p = buf, *end = buf + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    while (p < end && isspace((unsigned char)*p))
        p++;
    size_t head = (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096;
    char first[4097];
    memcpy(first, p, head);
    first[head] = '\0';
    if (p < end && (*p == '{' || *p == '[')) {
        if (strstr(first, "\"gpuplan-catalog\""))
            return GP_FMT_GPUPLAN;
        if (strstr(first, "\"offerCode\"") || strstr(first, "\"formatVersion\""))
            return GP_FMT_AWS_OFFER;
        if (strstr(first, "\"skus\"") || strstr(first, "\"skuId\""))
            return GP_FMT_GCP_SKUS;
        if (*p == '[' && strstr(first, "\"instance_type\""))
            return GP_FMT_EC2INSTANCES;
        return GP_FMT_UNKNOWN;
    }
    if (starts_with_text(p, end, "machine_type,gpu_type,gpu_count"))
        return GP_FMT_GCP_CUD;
    if (starts_with_text(p, end, "InstanceType,"))
        return GP_FMT_SKYPILOT;
    (void)filename;
    return GP_FMT_UNKNOWN;
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

gp_status gp_catalog_parse(gp_catalog_format format, const char *buf, size_t len,
                           const char *origin, const char *provider, gp_catalog_batch *out,
                           gp_err *err) {
    out->format = format;
    gp_status st;
    switch (format) {
    case GP_FMT_GPUPLAN:
        st = gp_parse_gpuplan_catalog(buf, len, origin, out, err);
        break;
    case GP_FMT_SKYPILOT:
        st = gp_parse_skypilot(buf, len, origin, provider, out, err);
        break;
    case GP_FMT_EC2INSTANCES:
        st = gp_parse_ec2instances(buf, len, origin, out, err);
        break;
    case GP_FMT_AWS_OFFER:
        st = gp_parse_aws_offer(buf, len, origin, out, err);
        break;
    case GP_FMT_GCP_SKUS:
        st = gp_parse_gcp_skus(buf, len, origin, out, err);
        break;
    case GP_FMT_GCP_CUD:
        st = gp_parse_gcp_cud(buf, len, origin, out, err);
        break;
    default:
        return gp_errorf(err, GP_E_INPUT, origin, "unknown catalog format; give --format");
    }
    if (st == GP_OK)
        gp_catalog_dedupe(out);
    return st;
}

bool gp_commitment_split(gp_purchase purchase, int term_months, double hourly_eff, double *hourly,
                         double *upfront) {
    double term_hours = GP_MONTH_HOURS * term_months;
    switch (purchase) {
    case GP_ALL_UPFRONT:
        *upfront = hourly_eff * term_hours;
        *hourly = 0.0;
        return false;
    case GP_PARTIAL_UPFRONT:
        *upfront = hourly_eff * term_hours / 2.0;
        *hourly = hourly_eff / 2.0;
        return true;
    case GP_NO_UPFRONT:
        break;
    }
    *upfront = 0.0;
    *hourly = hourly_eff;
    return false;
}

bool gp_spot_band_interruptions(const char *band, double *per_hour) {
    static const struct {
        const char *band;
        double midpoint; /* interruptions a month, as a share */
    } bands[] = {
        {"<5%", 0.025}, {"5-10%", 0.075}, {"10-15%", 0.125}, {"15-20%", 0.175}, {">20%", 0.225}};
    for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++) {
        if (strcmp(band, bands[i].band) == 0) {
            *per_hour = bands[i].midpoint / GP_MONTH_HOURS;
            return true;
        }
    }
    return false;
}
