/* query_range responses into 5-minute rollup rows (prom_range.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_util.h"
#include "prom_series.h"
#include "gpuplan/prom_range.h"
#include "gpuplan/xmem.h"

void gp_rollups_init(gp_rollups *b, size_t limit) {
    memset(b, 0, sizeof *b);
    gp_samples_init(&b->gpus, 0);
    b->limit = limit;
}

void gp_rollups_done(gp_rollups *b) {
    gp_samples_done(&b->gpus);
    free(b->r);
    free(b->keys);
    free(b->slots);
    size_t limit = b->limit;
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

static uint64_t row_key(int gpu, gp_metric m, int64_t bucket_ms) {
    /* gpu < 2^24, metric < 16, buckets of 5 minutes fit 2^36 for ~650,000 years. */
    return ((uint64_t)(unsigned)gpu << 40) ^ ((uint64_t)m << 36) ^
           (uint64_t)(bucket_ms / GP_BUCKET_MS) ^ (1ull << 63);
}

static size_t slot_of(uint64_t k, size_t n_slots) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (n_slots - 1);
}

static void index_grow(gp_rollups *b) {
    if ((b->n + 1) * 2 <= b->n_slots)
        return;
    size_t n = b->n_slots ? b->n_slots * 2 : 1024;
    uint64_t *keys = gp_xcalloc(n, sizeof *keys);
    size_t *slots = gp_xcalloc(n, sizeof *slots);
    for (size_t i = 0; i < b->n_slots; i++) {
        if (!b->slots[i])
            continue;
        size_t j = slot_of(b->keys[i], n);
        while (slots[j])
            j = (j + 1) & (n - 1);
        keys[j] = b->keys[i];
        slots[j] = b->slots[i];
    }
    free(b->keys);
    free(b->slots);
    b->keys = keys;
    b->slots = slots;
    b->n_slots = n;
}

/* The row of (gpu, m, bucket), added when new; NULL past the limit. */
static gp_rollup *row_for(gp_rollups *b, int gpu, gp_metric m, int64_t bucket_ms) {
    index_grow(b);
    uint64_t k = row_key(gpu, m, bucket_ms);
    size_t i = slot_of(k, b->n_slots);
    while (b->slots[i]) {
        if (b->keys[i] == k)
            return &b->r[b->slots[i] - 1];
        i = (i + 1) & (b->n_slots - 1);
    }
    if (b->n >= b->limit)
        return NULL;
    b->r = gp_xgrow(b->r, &b->cap, b->n, sizeof *b->r, 1024);
    b->r[b->n] = (gp_rollup){gpu, m, bucket_ms, 0, 0, 0, 0, 0};
    b->keys[i] = k;
    b->slots[i] = ++b->n;
    return &b->r[b->n - 1];
}

gp_status gp_rollups_add(gp_rollups *b, int gpu, gp_metric m, int64_t bucket_ms, long long n,
                         double sum, double min, double max, gp_err *err) {
    if (n < 1 || gpu < 0 || (size_t)gpu >= b->gpus.n_gpus || (unsigned)m >= GP_M_COUNT)
        return gp_errorf(err, GP_E_INPUT, NULL, "a rollup row needs a GPU, a metric and n >= 1");
    int64_t bucket = bucket_ms - ((bucket_ms % GP_BUCKET_MS) + GP_BUCKET_MS) % GP_BUCKET_MS;
    gp_rollup *r = row_for(b, gpu, m, bucket);
    if (!r)
        return gp_errorf(err, GP_E_LIMIT, NULL, "more than %zu rollup rows in one batch", b->limit);
    bool first = r->n == 0;
    r->n += n;
    r->sum += sum;
    if (first || min < r->min)
        r->min = min;
    if (first || max > r->max)
        r->max = max;
    r->have |= 15;
    return GP_OK;
}

/* "68.347", "NaN", "+Inf": false for text that is no number at all. */
static bool point_value(const cJSON *v, double *out) {
    if (!cJSON_IsString(v) || !v->valuestring)
        return false;
    const char *s = v->valuestring;
    if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "Inf") || !strcmp(s, "-Inf")) {
        *out = NAN;
        return true;
    }
    return gp_parse_number(s, strlen(s), out);
}

/* The sample set's GPU for a series, -1 when the series names none; with labels, an entry per
 * GPU and workload labels (the import keeps a series of each, as the collector does). */
static int series_gpu_of(gp_samples *g, const cJSON *metric, gp_metric m, bool labels) {
    prom_series ps;
    if (!prom_series_of(metric, m, &ps))
        return -1;
    char json[2048];
    int set = labels && prom_series_labels(metric, &ps, json, sizeof json)
                  ? gp_samples_labels(g, json)
                  : -1;
    return gp_samples_gpu_labeled(g, ps.uuid, ps.index, ps.mig, ps.model, ps.host, set);
}

/* The import's: a GPU and its workload labels. */
static int series_gpu(gp_samples *g, const cJSON *metric, gp_metric m) {
    return series_gpu_of(g, metric, m, true);
}

/* capacity --prometheus's: the GPU alone (the server aggregated its labels already). */
static int series_gpu_plain(gp_samples *g, const cJSON *metric, gp_metric m) {
    return series_gpu_of(g, metric, m, false);
}

enum { AGG_N = 1, AGG_SUM = 2, AGG_MIN = 4, AGG_MAX = 8 };

static int agg_of(const char *s) {
    if (!s)
        return 0;
    return !strcmp(s, "n")     ? AGG_N
           : !strcmp(s, "sum") ? AGG_SUM
           : !strcmp(s, "min") ? AGG_MIN
           : !strcmp(s, "max") ? AGG_MAX
                               : 0;
}

/* DCGM's blanks start at 2^47 (samples.c); no gauge of a GPU reaches that in either sign. */
#define IMPLAUSIBLE 140737488355328.0

static gp_status add_point(gp_rollups *out, int gpu, gp_metric m, int agg, double scale,
                           int64_t lead_ms, const cJSON *pair, const char *where, gp_err *err) {
    const cJSON *ts = cJSON_GetArrayItem(pair, 0), *val = cJSON_GetArrayItem(pair, 1);
    double v;
    if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(ts) || !point_value(val, &v))
        return gp_errorf(err, GP_E_INPUT, where, "a point is not [time, \"value\"]");
    double ms = round(ts->valuedouble * 1000.0);
    if (!(ms > 0 && ms < 9e15))
        return gp_errorf(err, GP_E_INPUT, where, "a point's time is out of range");
    /* The point at t covers the step from t - lead (gp_promrange_stream): only a bucket inside
     * the window asked for is kept, so a server answering for other times cannot move what is
     * stored (or sealed). */
    int64_t start = (int64_t)ms - lead_ms;
    int64_t bucket = start - ((start % GP_BUCKET_MS) + GP_BUCKET_MS) % GP_BUCKET_MS;
    if (out->to_ms > out->from_ms && (bucket < out->from_ms || bucket >= out->to_ms)) {
        out->outside++;
        return GP_OK;
    }
    if (!isfinite(v)) {
        out->blanks++;
        return GP_OK;
    }
    gp_rollup *r = row_for(out, gpu, m, bucket);
    if (!r)
        return gp_errorf(err, GP_E_LIMIT, where, "more than %zu rollup rows in one response",
                         out->limit);
    if (agg == AGG_N) {
        if (!(v >= 0 && v < 1e12))
            return gp_errorf(err, GP_E_INPUT, where, "a count of %g samples", v);
        r->n += (long long)v;
    } else if (agg == AGG_SUM) {
        r->sum += v * scale;
    } else {
        /* A blank sentinel, or a value no GPU reports (+-1e300), is kept as is (unscaled) so
         * finish() drops the row; it is counted with the blanks. */
        bool blank = gp_dcgm_is_blank(v, m == GP_M_ENERGY_J) || fabs(v) >= IMPLAUSIBLE;
        double x = blank ? v : v * scale;
        bool first = !(r->have & agg);
        if (agg == AGG_MIN && (first || x < r->min))
            r->min = x;
        if (agg == AGG_MAX && (first || x > r->max))
            r->max = x;
        if (blank) {
            r->have |= 16; /* poisoned: a blank entered the server's aggregates */
            out->blanks++;
        }
    }
    r->have |= (unsigned char)agg;
    return GP_OK;
}

/* The document, or the server's error (HTTP >= 400 or "status": "error") in err. */
static gp_status api_doc(const char *buf, size_t len, const char *origin, long http_status,
                         cJSON **doc, gp_err *err) {
    if (gp_catalog_json(buf, len, origin, doc, err)) {
        if (http_status >= 400)
            gp_errorf(err, GP_E_INPUT, origin, "HTTP %ld with a body that is not JSON",
                      http_status);
        return err->code;
    }
    const char *status = prom_str(*doc, "status");
    if (http_status >= 400 || !status || strcmp(status, "success") != 0) {
        const char *type = prom_str(*doc, "errorType"), *msg = prom_str(*doc, "error");
        char code[32] = "";
        if (http_status >= 400)
            snprintf(code, sizeof code, "HTTP %ld, ", http_status);
        gp_errorf(err, GP_E_INPUT, origin, "Prometheus error (%s%s): %.180s", code,
                  type ? type : "no type", msg ? msg : "no error text");
        cJSON_Delete(*doc);
        *doc = NULL;
        return err->code;
    }
    return GP_OK;
}

gp_status gp_promlabels_parse(const char *buf, size_t len, const char *origin, long http_status,
                              size_t max_values, char ***values, size_t *n, gp_err *err) {
    *values = NULL;
    *n = 0;
    cJSON *doc;
    if (api_doc(buf, len, origin, http_status, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(doc, "data");
    size_t count = 0, bytes = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, data) {
        if (!cJSON_IsString(v) || !v->valuestring) {
            st = gp_errorf(err, GP_E_INPUT, origin, "$.data[%zu] is not a string", count);
            goto done;
        }
        count++;
        bytes += strlen(v->valuestring) + 1;
    }
    if (!cJSON_IsArray(data)) {
        st = gp_errorf(err, GP_E_INPUT, origin, "no data array of label values");
        goto done;
    }
    if (count > max_values) {
        st = gp_errorf(err, GP_E_LIMIT, origin, "more than %zu label values", max_values);
        goto done;
    }
    if (count) {
        char **out = gp_xmalloc(count * sizeof *out + bytes);
        char *p = (char *)(out + count);
        size_t i = 0;
        cJSON_ArrayForEach(v, data) {
            size_t l = strlen(v->valuestring) + 1;
            memcpy(p, v->valuestring, l);
            out[i++] = p;
            p += l;
        }
        *values = out;
        *n = count;
    }
done:
    cJSON_Delete(doc);
    return st;
}

/* True when series s already gave gpu's aggregate agg in this answer; marks it otherwise. */
static bool seen_before(gp_promrange_stream *s, int gpu, int agg) {
    if ((size_t)gpu >= s->n_seen) {
        size_t n = s->out->gpus.n_gpus > (size_t)gpu ? s->out->gpus.n_gpus : (size_t)gpu + 1;
        n += n / 2 + 16;
        s->seen = gp_xrealloc(s->seen, n);
        memset(s->seen + s->n_seen, 0, n - s->n_seen);
        s->n_seen = n;
    }
    bool seen = s->seen[gpu] & agg;
    s->seen[gpu] |= (unsigned char)agg;
    return seen;
}

/* One element of $.data.result, its text complete. */
static gp_status one_series(gp_promrange_stream *s, gp_err *err) {
    char where[320];
    snprintf(where, sizeof where, "%s:$.data.result[%d]", s->origin, s->index++);
    cJSON *series;
    if (gp_catalog_json(s->series.data, s->series.len, where, &series, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(series, "metric");
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(series, "values");
    if (!cJSON_IsObject(metric) || !cJSON_IsArray(values)) {
        st = gp_errorf(err, GP_E_INPUT, where, "a series without \"metric\" and \"values\"");
        goto done;
    }
    gp_rollups *out = s->out;
    int agg = agg_of(prom_str(metric, GP_RANGE_AGG_LABEL));
    int gpu = agg ? series_gpu(&out->gpus, metric, s->m) : -1;
    if (gpu < 0) { /* not one of ours, or no GPU named: no reading */
        out->blanks += (size_t)cJSON_GetArraySize(values);
        goto done;
    }
    /* The same GPU and aggregate twice (a GPU scraped by two jobs, a device-level metric
     * repeated on each MIG instance): the first series is kept, never the sum. */
    if (seen_before(s, gpu, agg)) {
        out->duplicates++;
        goto done;
    }
    for (const cJSON *pair = values->child; pair && st == GP_OK; pair = pair->next)
        st = add_point(out, gpu, s->m, agg, s->scale, s->lead_ms, pair, where, err);
done:
    cJSON_Delete(series);
    return st;
}

void gp_promrange_stream_init(gp_promrange_stream *s, const char *origin, long http_status,
                              gp_metric m, double value_scale, int64_t step_ms, size_t max_series,
                              gp_rollups *out) {
    memset(s, 0, sizeof *s);
    s->origin = origin;
    s->http_status = http_status;
    s->m = m;
    s->scale = value_scale;
    s->step_ms = step_ms;
    s->lead_ms = step_ms - 1;
    s->out = out;
    gp_buf_init(&s->skel, GP_RANGE_MAX_OUTSIDE);
    gp_buf_init(&s->series, max_series);
    if (step_ms <= 0 || step_ms > GP_BUCKET_MS || GP_BUCKET_MS % step_ms != 0)
        s->status = gp_errorf(&s->err, GP_E_INPUT, origin, "the step must divide 5 minutes");
}

void gp_promrange_stream_done(gp_promrange_stream *s) {
    gp_buf_done(&s->skel);
    gp_buf_done(&s->series);
    free(s->seen);
    s->seen = NULL;
    s->n_seen = 0;
}

static gp_status fail(gp_promrange_stream *s, gp_err *err, gp_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static gp_status fail(gp_promrange_stream *s, gp_err *err, gp_status code, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->status = gp_errorf(&s->err, code, s->origin, "%s", msg);
    *err = s->err;
    return code;
}

/* Inside $.data.result's array, between its series. */
static bool at_result(const gp_promrange_stream *s) {
    return s->depth == 3 && s->open[0] == '{' && s->open[1] == '{' && s->open[2] == '[' &&
           !strcmp(s->key[0], "data") && !strcmp(s->key[1], "result");
}

/* Bytes buf[from, to) to where they belong: the series being received or the rest. */
static gp_status emit(gp_promrange_stream *s, const char *buf, size_t from, size_t to, bool series,
                      gp_err *err) {
    if (to <= from)
        return GP_OK;
    if (series) {
        if (gp_buf_add(&s->series, buf + from, to - from) != GP_OK)
            return fail(s, err, GP_E_LIMIT, "$.data.result[%d]: a series longer than %zu bytes",
                        s->index, s->series.limit);
    } else if (gp_buf_add(&s->skel, buf + from, to - from) != GP_OK) {
        return fail(s, err, GP_E_LIMIT, "more than %u bytes of the answer outside its series",
                    GP_RANGE_MAX_OUTSIDE);
    }
    return GP_OK;
}

/* A string just ended: a key names its level; data.resultType is kept. */
static void string_end(gp_promrange_stream *s) {
    bool whole = s->text_len < sizeof s->text;
    s->text[whole ? s->text_len : 0] = '\0';
    if (s->is_key && s->depth > 0 && s->depth <= GP_RANGE_MAX_DEPTH)
        snprintf(s->key[s->depth - 1], sizeof s->key[0], "%s", s->text);
    else if (!s->is_key && s->depth == 2 && s->open[0] == '{' && s->open[1] == '{' &&
             !strcmp(s->key[0], "data") && !strcmp(s->key[1], "resultType") && !s->type[0])
        snprintf(s->type, sizeof s->type, "%s", whole ? s->text : "?");
}

/* Byte c inside a string: kept (up to the text's room) until its closing quote. */
static void string_byte(gp_promrange_stream *s, char c) {
    if (s->esc) {
        s->esc = false;
    } else if (c == '\\') {
        s->esc = true;
    } else if (c == '"') {
        s->in_str = false;
        string_end(s);
        return;
    }
    if (s->text_len < sizeof s->text)
        s->text[s->text_len++] = c;
}

/* An object or array opens with c at buf[i]: at data.result, a series begins (the bytes from
 * *run before it go to the rest). */
static gp_status open_level(gp_promrange_stream *s, const char *buf, size_t *run, size_t i, char c,
                            gp_err *err) {
    if (at_result(s)) { /* a series begins: what came before goes to the rest */
        if (c != '{')
            return fail(s, err, GP_E_INPUT,
                        "$.data.result[%d]: a series without "
                        "\"metric\" and \"values\"",
                        s->index);
        if (emit(s, buf, *run, i, false, err))
            return s->status;
        *run = i;
        s->in_series = true;
        s->series.len = 0;
    }
    if (s->depth >= GP_RANGE_MAX_DEPTH)
        return fail(s, err, GP_E_INPUT, "JSON nested deeper than %d levels", GP_RANGE_MAX_DEPTH);
    s->open[s->depth] = c;
    s->want_key[s->depth] = c == '{';
    s->key[s->depth][0] = '\0';
    s->depth++;
    if (at_result(s)) {
        if (++s->results > 1)
            return fail(s, err, GP_E_INPUT, "two data.result arrays in one answer");
        if (s->type[0] && strcmp(s->type, "matrix") != 0)
            return fail(s, err, GP_E_INPUT,
                        "a range query answered with a %.11s, not a "
                        "matrix",
                        s->type);
    }
    return GP_OK;
}

/* An object or array closes with c at buf[i]: a series that ends is parsed and forgotten. */
static gp_status close_level(gp_promrange_stream *s, const char *buf, size_t *run, size_t i, char c,
                             gp_err *err) {
    if (s->depth == 0 || s->open[s->depth - 1] != (c == '}' ? '{' : '['))
        return fail(s, err, GP_E_INPUT, "malformed JSON (a '%c' closes nothing open)", c);
    s->depth--;
    if (s->in_series && s->depth == 3) { /* the series is whole: parse it, forget it */
        if (emit(s, buf, *run, i + 1, true, err))
            return s->status;
        *run = i + 1;
        s->in_series = false;
        s->status = one_series(s, &s->err);
        if (s->status != GP_OK) {
            *err = s->err;
            return s->status;
        }
    }
    return GP_OK;
}

/* A ':' or ',' at buf[i]: whether a key comes next; between series, the comma is dropped. */
static gp_status separator(gp_promrange_stream *s, const char *buf, size_t *run, size_t i, char c,
                           gp_err *err) {
    if (s->depth > 0 && s->open[s->depth - 1] == '{')
        s->want_key[s->depth - 1] = c == ',';
    if (c == ',' && at_result(s)) { /* the series go, and the commas between them */
        if (emit(s, buf, *run, i, false, err))
            return s->status;
        *run = i + 1;
    }
    return GP_OK;
}

gp_status gp_promrange_feed(gp_promrange_stream *s, const char *buf, size_t len, gp_err *err) {
    if (s->status != GP_OK) {
        *err = s->err;
        return s->status;
    }
    if (s->http_status >= 400 || s->http_status < 200) { /* an error's text, for end() */
        size_t room = s->skel.limit - s->skel.len;
        return emit(s, buf, 0, len < room ? len : room, false, err);
    }
    size_t run = 0; /* the bytes since run go where in_series says */
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        gp_status st = GP_OK;
        if (s->in_str) {
            string_byte(s, c);
        } else if (c == '"') {
            s->in_str = true;
            s->esc = false;
            s->text_len = 0;
            s->is_key = s->depth > 0 && s->open[s->depth - 1] == '{' && s->want_key[s->depth - 1];
        } else if (c == '{' || c == '[') {
            st = open_level(s, buf, &run, i, c, err);
        } else if (c == '}' || c == ']') {
            st = close_level(s, buf, &run, i, c, err);
        } else if (c == ':' || c == ',') {
            st = separator(s, buf, &run, i, c, err);
        } else if (at_result(s) && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            return fail(s, err, GP_E_INPUT,
                        "$.data.result[%d]: a series without \"metric\" and \"values\"", s->index);
        }
        if (st != GP_OK)
            return st;
    }
    return emit(s, buf, run, len, s->in_series, err);
}

gp_status gp_promrange_end(gp_promrange_stream *s, gp_err *err) {
    if (s->status != GP_OK) {
        *err = s->err;
        return s->status;
    }
    if (s->http_status >= 200 && s->http_status < 400 && (s->depth || s->in_str))
        return fail(s, err, GP_E_INPUT, "malformed or truncated JSON (the answer ends inside %s)",
                    s->in_series ? "a series" : "the document");
    cJSON *doc;
    if (api_doc(s->skel.data ? s->skel.data : "", s->skel.len, s->origin, s->http_status, &doc,
                err)) {
        s->status = err->code;
        s->err = *err;
        return s->status;
    }
    gp_status st = GP_OK;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(doc, "data");
    const char *type = prom_str(data, "resultType");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (!type || !cJSON_IsArray(result))
        st = gp_errorf(err, GP_E_INPUT, s->origin, "no data.resultType and data.result");
    else if (strcmp(type, "matrix") != 0)
        st = gp_errorf(err, GP_E_INPUT, s->origin,
                       "a range query answered with a %.40s, not a matrix", type);
    else if (result->child) /* every series was taken out as it came: none can be left */
        st = gp_errorf(err, GP_E_INPUT, s->origin, "$.data.result holds what is not a series");
    cJSON_Delete(doc);
    s->status = st;
    if (st != GP_OK)
        s->err = *err;
    return st;
}

gp_status gp_promrange_parse(const char *buf, size_t len, const char *origin, long http_status,
                             gp_metric m, double value_scale, int64_t step_ms, gp_rollups *out,
                             gp_err *err) {
    gp_promrange_stream s;
    gp_promrange_stream_init(&s, origin, http_status, m, value_scale, step_ms, len + 1, out);
    gp_status st = gp_promrange_feed(&s, buf, len, err);
    if (st == GP_OK)
        st = gp_promrange_end(&s, err);
    gp_promrange_stream_done(&s);
    return st;
}

void gp_rollups_finish(gp_rollups *b) {
    size_t k = 0;
    for (size_t i = 0; i < b->n; i++) {
        gp_rollup *r = &b->r[i];
        /* The mean must lie between min and max: a sum no samples can have (1e300) is no row. */
        double mean = r->n > 0 ? r->sum / (double)r->n : 0,
               tol = 1e-9 * (fabs(r->min) + fabs(r->max) + 1);
        if ((r->have & 15) != 15 || (r->have & 16) || r->n <= 0 || !isfinite(r->sum) ||
            mean < r->min - tol || mean > r->max + tol) {
            b->incomplete++;
            continue;
        }
        b->r[k++] = *r;
    }
    b->n = k;
    /* The index no longer matches the rows: drop it (the batch is only read from now on). */
    free(b->keys);
    free(b->slots);
    b->keys = NULL;
    b->slots = NULL;
    b->n_slots = 0;
}

/* ---- instant vectors and matrices ----------------------------------------------------------- */

void gp_promvec_init(gp_promvec *b, size_t limit) {
    memset(b, 0, sizeof *b);
    gp_samples_init(&b->gpus, 0);
    b->limit = limit;
}

void gp_promvec_done(gp_promvec *b) {
    gp_samples_done(&b->gpus);
    for (size_t i = 0; i < b->n; i++)
        free(b->it[i].by);
    free(b->it);
    size_t limit = b->limit;
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

static gp_status vec_point(gp_promvec *out, int gpu, const char *agg, const char *by,
                           const cJSON *pair, const char *where, gp_err *err) {
    const cJSON *ts = cJSON_GetArrayItem(pair, 0), *val = cJSON_GetArrayItem(pair, 1);
    double v;
    if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(ts) || !point_value(val, &v))
        return gp_errorf(err, GP_E_INPUT, where, "a point is not [time, \"value\"]");
    double ms = round(ts->valuedouble * 1000.0);
    if (!(ms > 0 && ms < 9e15))
        return gp_errorf(err, GP_E_INPUT, where, "a point's time is out of range");
    if (!isfinite(v)) {
        out->blanks++;
        return GP_OK;
    }
    if (out->n >= out->limit)
        return gp_errorf(err, GP_E_LIMIT, where, "more than %zu points in one answer", out->limit);
    out->it = gp_xgrow(out->it, &out->cap, out->n, sizeof *out->it, 256);
    gp_promvec_item *it = &out->it[out->n++];
    memset(it, 0, sizeof *it);
    it->gpu = gpu;
    snprintf(it->agg, sizeof it->agg, "%s", agg ? agg : "");
    it->by = by ? gp_xstrdup(by) : NULL;
    it->t_ms = (int64_t)ms;
    it->v = v;
    return GP_OK;
}

gp_status gp_promvec_parse(const char *buf, size_t len, const char *origin, long http_status,
                           const char *by_label, gp_promvec *out, gp_err *err) {
    cJSON *doc;
    if (api_doc(buf, len, origin, http_status, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(doc, "data");
    const char *type = prom_str(data, "resultType");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (!type || !cJSON_IsArray(result)) {
        st = gp_errorf(err, GP_E_INPUT, origin, "no data.resultType and data.result");
        goto done;
    }
    bool matrix = !strcmp(type, "matrix");
    if (!matrix && strcmp(type, "vector") != 0) {
        st =
            gp_errorf(err, GP_E_INPUT, origin, "a query answered with a %.40s, not a vector", type);
        goto done;
    }
    int i = 0;
    for (const cJSON *series = result->child; series && st == GP_OK; series = series->next, i++) {
        char where[320];
        snprintf(where, sizeof where, "%s:$.data.result[%d]", origin, i);
        const cJSON *metric = cJSON_GetObjectItemCaseSensitive(series, "metric");
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(series, matrix ? "values" : "value");
        if (!cJSON_IsObject(metric) || !cJSON_IsArray(pts)) {
            st = gp_errorf(err, GP_E_INPUT, where, "a series without \"metric\" and \"%s\"",
                           matrix ? "values" : "value");
            break;
        }
        int gpu = series_gpu_plain(&out->gpus, metric, GP_M_GPU_UTIL);
        const char *agg = prom_str(metric, GP_RANGE_AGG_LABEL);
        const char *by = by_label ? prom_str(metric, by_label) : NULL;
        if (!matrix) {
            st = vec_point(out, gpu, agg, by, pts, where, err);
            continue;
        }
        for (const cJSON *pair = pts->child; pair && st == GP_OK; pair = pair->next)
            st = vec_point(out, gpu, agg, by, pair, where, err);
    }
done:
    cJSON_Delete(doc);
    return st;
}
