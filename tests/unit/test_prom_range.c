/* The query_range parser of `import --prometheus` on the real captures of
 * tests/fixtures/telemetry/prometheus_api (a matrix, the 400 of the 11,000-point limit, the docs'
 * example, a 422) and on the aggregates the importer asks for, derived from the real matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/prom_range.h"
#include "testutil.h"

#define API "tests/fixtures/telemetry/prometheus_api/"

static char *slurp(const char *name, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", API, name);
    return test_slurp(path, len);
}

/* text with every `from` replaced by `to` (a new string to free). */
static char *replace(const char *text, const char *from, const char *to) {
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = strstr(text, from); p; p = strstr(p + fl, from))
        n++;
    char *out = malloc(strlen(text) + n * (tl > fl ? tl - fl : 0) + 1), *o = out;
    for (const char *p = text;;) {
        const char *q = strstr(p, from);
        if (!q) {
            memcpy(o, p, strlen(p) + 1); /* sized above */
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
        p = q + fl;
    }
    return out;
}

static const gp_rollup *row_of(const gp_rollups *b, const char *uuid) {
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->gpus.gpus[b->r[i].gpu].uuid, uuid))
            return &b->r[i];
    return NULL;
}

static void test_real_matrix(void **state) {
    (void)state;
    size_t len;
    char *buf =
        slurp("local-prom2.42__query_range__DCGM_FI_DEV_POWER_USAGE_gpu0-1__matrix.json", &len);
    assert_non_null(buf);
    gp_rollups b;
    gp_err err;
    /* As served (no aggregate label): a valid matrix, but no row of ours. */
    gp_rollups_init(&b, 1000);
    assert_int_equal(gp_promrange_parse(buf, len, "cap", 200, GP_M_POWER_W, 1, 5000, &b, &err),
                     GP_OK);
    assert_int_equal(b.n, 0);
    assert_int_equal(b.blanks, 14);
    gp_rollups_done(&b);
    /* The same series as the four aggregates the importer asks for, step 5 s: the 7 points of
     * each GPU (t = ...442 to ...472) all fall in the 5-minute bucket starting at ...400. */
    static const char *const aggs[] = {"n", "sum", "min", "max"};
    gp_rollups_init(&b, 1000);
    for (int a = 0; a < 4; a++) {
        char label[64];
        snprintf(label, sizeof label, "\"%s\":\"%s\"", GP_RANGE_AGG_LABEL, aggs[a]);
        char *t = replace(buf, "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\"", label);
        if (a == 0) { /* counts: one sample in each 5-second step */
            char *u = replace(t, "\"68.347\"", "\"1\"");
            free(t);
            t = replace(u, "\"113.611\"", "\"1\"");
            free(u);
        }
        assert_int_equal(
            gp_promrange_parse(t, strlen(t), "cap", 200, GP_M_POWER_W, 1, 5000, &b, &err), GP_OK);
        free(t);
    }
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.incomplete, 0);
    const gp_rollup *r = row_of(&b, "GPU-bc5610b9-79c8-fedd-8899-07539c7f868a");
    assert_non_null(r);
    assert_int_equal(r->bucket_ms, 1795352400000LL);
    assert_int_equal(r->n, 7);
    assert_close(r->sum / r->n, 68.347, REL);
    assert_close(r->min, 68.347, REL);
    assert_close(r->max, 68.347, REL);
    assert_int_equal(r->metric, GP_M_POWER_W);
    const gp_gpu_ref *g = &b.gpus.gpus[r->gpu];
    assert_string_equal(g->model, "H100");
    assert_string_equal(g->raw_model, "NVIDIA H100 80GB HBM3"); /* kept as reported */
    assert_string_equal(g->host, "ip-10-0-171-111.ec2.internal");
    assert_int_equal(g->index, 1);
    r = row_of(&b, "GPU-c4529c8d-69c4-b61d-e0bc-7b2460096005");
    assert_close(r->sum / r->n, 113.611, REL);
    gp_rollups_done(&b);
    /* Only some aggregates (a series cut at a chunk's edge): the row is dropped, counted. */
    gp_rollups_init(&b, 1000);
    char *t = replace(buf, "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\"", "\"gpuplan_agg\":\"sum\"");
    assert_int_equal(
        gp_promrange_parse(t, strlen(t), "cap", 200, GP_M_POWER_W, 1, 300000, &b, &err), GP_OK);
    free(t);
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 0);
    assert_int_equal(b.incomplete, 2);
    gp_rollups_done(&b);
    /* A limit on rows is an error, not a realloc storm. */
    gp_rollups_init(&b, 1);
    t = replace(buf, "\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\"", "\"gpuplan_agg\":\"max\"");
    assert_int_equal(
        gp_promrange_parse(t, strlen(t), "cap", 200, GP_M_POWER_W, 1, 300000, &b, &err),
        GP_E_LIMIT);
    free(t);
    gp_rollups_done(&b);
    free(buf);
}

static void test_errors(void **state) {
    (void)state;
    size_t len;
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    char *buf = slurp("local-prom2.42__query_range__too-many-points__400-bad_data.json", &len);
    assert_int_equal(gp_promrange_parse(buf, len, "srv", 400, GP_M_GPU_UTIL, 1, 300000, &b, &err),
                     GP_E_INPUT);
    assert_non_null(strstr(err.msg, "HTTP 400, bad_data"));
    assert_non_null(strstr(err.msg, "11,000 points per timeseries"));
    free(buf);
    buf = slurp("local-prom2.42__query__many-to-many__422-execution.json", &len);
    assert_int_equal(gp_promrange_parse(buf, len, "srv", 422, GP_M_GPU_UTIL, 1, 300000, &b, &err),
                     GP_E_INPUT);
    assert_non_null(strstr(err.msg, "HTTP 422, execution"));
    free(buf);
    buf = slurp("local-prom2.42__query__parse-error__400-bad_data.json", &len);
    assert_int_equal(gp_promrange_parse(buf, len, "srv", 400, GP_M_GPU_UTIL, 1, 300000, &b, &err),
                     GP_E_INPUT);
    assert_non_null(strstr(err.msg, "parse error"));
    free(buf);
    /* An instant vector where a matrix belongs. */
    buf = slurp("local-prom2.42__query__DCGM_FI_DEV_POWER_USAGE__vector.json", &len);
    assert_int_equal(gp_promrange_parse(buf, len, "srv", 200, GP_M_POWER_W, 1, 300000, &b, &err),
                     GP_E_INPUT);
    assert_non_null(strstr(err.msg, "not a matrix"));
    free(buf);
    /* The docs' example: series that name no GPU are no readings. */
    buf = slurp("prometheus-docs__api_v1_query_range__matrix__up__doc-example.json", &len);
    assert_int_equal(gp_promrange_parse(buf, len, "srv", 200, GP_M_POWER_W, 1, 300000, &b, &err),
                     GP_OK);
    assert_int_equal(b.n, 0);
    assert_int_equal(b.blanks, 6);
    free(buf);
    static const char *const bad[] = {
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{"
        "\"gpuplan_agg\":\"sum\",\"UUID\":\"G\"},\"values\":[[1,\"x\"]]}]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{"
        "\"gpuplan_agg\":\"n\",\"UUID\":\"G\"},\"values\":[[1,\"-3\"]]}]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{}}]}"
        "}",
        "{\"status\":\"success\"", "not json"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gp_promrange_parse(bad[i], strlen(bad[i]), "srv", 200, GP_M_POWER_W, 1,
                                            300000, &b, &err),
                         GP_E_INPUT);
    /* A step that does not divide 5 minutes cannot be merged into buckets. */
    assert_int_equal(gp_promrange_parse("{}", 2, "srv", 200, GP_M_POWER_W, 1, 7000, &b, &err),
                     GP_E_INPUT);
    gp_rollups_done(&b);
}

static void test_blanks_and_mig(void **state) {
    (void)state;
    /* NaN and Inf are no readings; a DCGM blank in the window poisons the row (its sum is
     * meaningless); under MIG the instance names the GPU, except for device-level metrics. */
    static const char doc[] =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
        "{\"metric\":{\"gpuplan_agg\":\"n\",\"UUID\":\"G\",\"gpu\":\"0\",\"GPU_I_ID\":\"1\","
        "\"GPU_I_PROFILE\":\"3g.40gb\"},\"values\":[[600,\"3\"],[900,\"NaN\"]]},"
        "{\"metric\":{\"gpuplan_agg\":\"sum\",\"UUID\":\"G\",\"gpu\":\"0\",\"GPU_I_ID\":\"1\","
        "\"GPU_I_PROFILE\":\"3g.40gb\"},\"values\":[[600,\"1.5\"],[900,\"+Inf\"]]},"
        "{\"metric\":{\"gpuplan_agg\":\"min\",\"UUID\":\"G\",\"gpu\":\"0\",\"GPU_I_ID\":\"1\","
        "\"GPU_I_PROFILE\":\"3g.40gb\"},\"values\":[[600,\"0.25\"]]},"
        "{\"metric\":{\"gpuplan_agg\":\"max\",\"UUID\":\"G\",\"gpu\":\"0\",\"GPU_I_ID\":\"1\","
        "\"GPU_I_PROFILE\":\"3g.40gb\"},\"values\":[[600,\"0.75\"],[1200,\"2147483632\"]]}]}}";
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "d", 200, GP_M_GPU_UTIL, 100, 300000, &b, &err),
        GP_OK);
    assert_int_equal(b.blanks, 3); /* NaN, +Inf and the DCGM blank */
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.incomplete, 1); /* the bucket with only a blank max */
    assert_string_equal(b.gpus.gpus[b.r[0].gpu].mig, "GI 1 3g.40gb");
    /* t = 600 s covers [300 s, 600 s): the bucket at 300,000 ms; the ratio scaled to %. */
    assert_int_equal(b.r[0].bucket_ms, 300000);
    assert_close(b.r[0].sum / b.r[0].n, 50, REL);
    assert_close(b.r[0].min, 25, REL);
    assert_close(b.r[0].max, 75, REL);
    gp_rollups_done(&b);
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "d", 200, GP_M_POWER_W, 1, 300000, &b, &err), GP_OK);
    assert_string_equal(b.gpus.gpus[0].mig, ""); /* power belongs to the physical GPU */
    gp_rollups_done(&b);
}

/* A matrix answer of the importer's aggregates for GPU "G": one series a row of {aggregate,
 * more labels, values}. Static storage, overwritten by the next call. */
static const char *matrix(const char *const (*rows)[3], size_t n) {
    static char buf[4096];
    size_t at = (size_t)snprintf(buf, sizeof buf, "%s",
                                 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
                                 "\"result\":[");
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at,
                               "%s{\"metric\":{\"gpuplan_agg\":\"%s\",\"UUID\":\"G\",\"gpu\":"
                               "\"0\"%s},\"values\":[%s]}",
                               i ? "," : "", rows[i][0], rows[i][1], rows[i][2]);
    snprintf(buf + at, sizeof buf - at, "]}}");
    return buf;
}

/* Issue 25 item 3: points outside the window asked for are counted and dropped, so a server
 * answering for another year moves nothing. */
static void test_window(void **state) {
    (void)state;
    static const char *const rows[][3] = {
        {"n", "", "[600,\"3\"],[900,\"3\"],[31536600,\"3\"]"},
        {"sum", "", "[600,\"30\"],[900,\"30\"],[31536600,\"30\"]"},
        {"min", "", "[600,\"10\"],[900,\"10\"],[31536600,\"10\"]"},
        {"max", "", "[600,\"10\"],[900,\"10\"],[31536600,\"10\"]"},
    };
    const char *doc = matrix(rows, 4);
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    b.from_ms = 300000; /* [300 s, 600 s): only the point at t = 600 s */
    b.to_ms = 600000;
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "w", 200, GP_M_GPU_UTIL, 1, 300000, &b, &err), GP_OK);
    assert_int_equal(b.outside, 8); /* t = 900 s and a year on, four aggregates each */
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.r[0].bucket_ms, 300000);
    gp_rollups_done(&b);
    /* No window: all three buckets. */
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "w", 200, GP_M_GPU_UTIL, 1, 300000, &b, &err), GP_OK);
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 3);
    assert_int_equal(b.outside, 0);
    gp_rollups_done(&b);
}

/* Issue 34: the import's reads of recorded series stamp a bucket's point 150 s past its end
 * (lead 450 s): the point at 750 s is the bucket [300 s, 600 s), the one at 1050 s the next;
 * one at 600 s stands for [150 s, 450 s), the bucket at 0, outside the window. */
static void test_lead(void **state) {
    (void)state;
    static const char *const rows[][3] = {
        {"n", "", "[600,\"1\"],[750,\"2\"],[1050,\"2\"]"},
        {"sum", "", "[600,\"5\"],[750,\"30\"],[1050,\"40\"]"},
        {"min", "", "[600,\"5\"],[750,\"10\"],[1050,\"15\"]"},
        {"max", "", "[600,\"5\"],[750,\"20\"],[1050,\"25\"]"},
    };
    const char *doc = matrix(rows, 4);
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    b.from_ms = 300000;
    b.to_ms = 900000;
    gp_promrange_stream s;
    gp_promrange_stream_init(&s, "r", 200, GP_M_GPU_UTIL, 1, 300000, 4096, &b);
    assert_int_equal(s.lead_ms, 299999); /* the raw queries' */
    s.lead_ms = 450000;
    assert_int_equal(gp_promrange_feed(&s, doc, strlen(doc), &err), GP_OK);
    assert_int_equal(gp_promrange_end(&s, &err), GP_OK);
    gp_promrange_stream_done(&s);
    assert_int_equal(b.outside, 4);
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.r[0].bucket_ms, 300000);
    assert_int_equal(b.r[0].n, 2);
    assert_close(b.r[0].sum, 30, REL);
    assert_close(b.r[0].min, 10, REL);
    assert_int_equal(b.r[1].bucket_ms, 600000);
    assert_close(b.r[1].max, 25, REL);
    gp_rollups_done(&b);
}

/* Issue 25 item 11: a GPU's series twice in one answer is kept once (never summed) and
 * counted; values of +-1e300 are counted with the blanks, and their rows dropped. */
static void test_duplicates_and_huge(void **state) {
    (void)state;
    static const char *const dup[][3] = {
        {"n", ",\"job\":\"a\"", "[600,\"3\"]"},    {"sum", ",\"job\":\"a\"", "[600,\"30\"]"},
        {"min", ",\"job\":\"a\"", "[600,\"10\"]"}, {"max", ",\"job\":\"a\"", "[600,\"10\"]"},
        {"n", ",\"job\":\"b\"", "[600,\"3\"]"},    {"sum", ",\"job\":\"b\"", "[600,\"30\"]"},
    };
    const char *doc = matrix(dup, 6);
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "d", 200, GP_M_GPU_UTIL, 1, 300000, &b, &err), GP_OK);
    assert_int_equal(b.duplicates, 2);
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.r[0].n, 3); /* not 6 */
    assert_close(b.r[0].sum, 30, REL);
    gp_rollups_done(&b);
    static const char *const huge[][3] = {
        {"n", "", "[600,\"3\"],[900,\"3\"],[1200,\"3\"]"},
        {"sum", "", "[600,\"30\"],[900,\"-3e300\"],[1200,\"3e300\"]"},
        {"min", "", "[600,\"10\"],[900,\"-1e300\"],[1200,\"10\"]"},
        {"max", "", "[600,\"10\"],[900,\"10\"],[1200,\"10\"]"},
    };
    doc = matrix(huge, 4);
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "h", 200, GP_M_GPU_UTIL, 1, 300000, &b, &err), GP_OK);
    assert_int_equal(b.blanks, 1); /* the -1e300 minimum */
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 1); /* t = 900 s poisoned, t = 1200 s: a mean above its max */
    assert_int_equal(b.incomplete, 2);
    assert_int_equal(b.r[0].bucket_ms, 300000);
    gp_rollups_done(&b);
}

/* Issue 25 item 2: the stream, fed a byte at a time, gives what the whole buffer gives, holds
 * one series at a time, and refuses a series past its cap and nesting past its depth. */
static void test_stream(void **state) {
    (void)state;
    size_t len;
    char *raw =
        slurp("local-prom2.42__query_range__DCGM_FI_DEV_POWER_USAGE_gpu0-1__matrix.json", &len);
    assert_non_null(raw);
    char *buf = replace(raw, "\"metric\":{", "\"metric\":{\"gpuplan_agg\":\"max\",");
    len = strlen(buf);
    gp_rollups whole, bytes;
    gp_err err;
    gp_rollups_init(&whole, 1000);
    gp_rollups_init(&bytes, 1000);
    assert_int_equal(gp_promrange_parse(buf, len, "w", 200, GP_M_POWER_W, 1, 5000, &whole, &err),
                     GP_OK);
    gp_promrange_stream s;
    gp_promrange_stream_init(&s, "b", 200, GP_M_POWER_W, 1, 5000, 4096, &bytes);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(gp_promrange_feed(&s, buf + i, 1, &err), GP_OK);
    assert_int_equal(gp_promrange_end(&s, &err), GP_OK);
    assert_true(s.skel.len < 200); /* the series never reached the rest's buffer */
    gp_promrange_stream_done(&s);
    assert_true(whole.n > 0);
    assert_int_equal(bytes.n, whole.n);
    for (size_t i = 0; i < whole.n; i++) {
        assert_int_equal(bytes.r[i].bucket_ms, whole.r[i].bucket_ms);
        assert_close(bytes.r[i].max, whole.r[i].max, REL);
    }
    gp_rollups_done(&whole);
    /* A cap below one series: GP_E_LIMIT naming the series. */
    gp_promrange_stream_init(&s, "c", 200, GP_M_POWER_W, 1, 5000, 100, &bytes);
    assert_int_equal(gp_promrange_feed(&s, buf, len, &err), GP_E_LIMIT);
    assert_non_null(strstr(err.msg, "$.data.result[0]: a series longer than 100 bytes"));
    assert_int_equal(gp_promrange_end(&s, &err), GP_E_LIMIT); /* the error sticks */
    gp_promrange_stream_done(&s);
    gp_rollups_done(&bytes);
    free(buf);
    free(raw);
    /* Deep nesting, junk between the series, a second result array, a truncated answer. */
    static const char *const bad[] = {
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[7]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[],\"result\":[]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{}",
        "{\"status\":\"success\"}]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gp_rollups_init(&bytes, 1000);
        assert_int_equal(gp_promrange_parse(bad[i], strlen(bad[i]), "x", 200, GP_M_POWER_W, 1,
                                            300000, &bytes, &err),
                         GP_E_INPUT);
        gp_rollups_done(&bytes);
    }
}

static void test_label_values(void **state) {
    (void)state;
    static const char ok[] = "{\"status\":\"success\",\"data\":[\"h0\",\"h\\\"1\"]}";
    char **v;
    size_t n;
    gp_err err;
    assert_int_equal(gp_promlabels_parse(ok, strlen(ok), "s", 200, 10, &v, &n, &err), GP_OK);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "h0");
    assert_string_equal(v[1], "h\"1");
    free(v);
    assert_int_equal(gp_promlabels_parse(ok, strlen(ok), "s", 200, 1, &v, &n, &err), GP_E_LIMIT);
    assert_null(v);
    static const char empty[] = "{\"status\":\"success\",\"data\":[]}";
    assert_int_equal(gp_promlabels_parse(empty, strlen(empty), "s", 200, 10, &v, &n, &err), GP_OK);
    assert_int_equal(n, 0);
    assert_null(v);
    size_t len;
    char *buf = slurp("local-prom2.42__query__parse-error__400-bad_data.json", &len);
    assert_int_equal(gp_promlabels_parse(buf, len, "s", 400, 10, &v, &n, &err), GP_E_INPUT);
    free(buf);
    static const char mixed[] = "{\"status\":\"success\",\"data\":[\"h0\",3]}";
    assert_int_equal(gp_promlabels_parse(mixed, strlen(mixed), "s", 200, 10, &v, &n, &err),
                     GP_E_INPUT);
}

/* ---- capacity --prometheus: instant vectors and matrices ------------------------------------ */

/* The value of the point tagged agg of the GPU uuid (mig "" for the whole GPU); NAN if none. */
static double vec_value(const gp_promvec *v, const char *uuid, const char *mig, const char *agg) {
    for (size_t i = 0; i < v->n; i++) {
        const gp_promvec_item *it = &v->it[i];
        if (it->gpu < 0 || strcmp(it->agg, agg) != 0)
            continue;
        const gp_gpu_ref *g = &v->gpus.gpus[it->gpu];
        if (!strcmp(g->uuid, uuid) && !strcmp(g->mig, mig))
            return it->v;
    }
    return NAN;
}

/* A real answer to the per-GPU terms capacity --prometheus sends (two days of the generated
 * fleet of tests/cli/gen_history.py, hosts h0 and hm): counts, sums, a bin, power and p95. */
static void test_capacity_vector(void **state) {
    (void)state;
    size_t len;
    char *buf = slurp("local-prom2.42__query__capacity-gpu-terms__vector.json", &len);
    assert_non_null(buf);
    gp_promvec v;
    gp_err err;
    gp_promvec_init(&v, 1000);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, NULL, &v, &err), GP_OK);
    assert_int_equal(v.gpus.n_gpus, 4); /* two whole GPUs, two MIG instances */
    assert_int_equal(v.blanks, 0);
    /* GPU 0: busy (100 %, 400 W) half of each day, idle (0 %, 60 W) the other half: its
     * 5-minute means in bins 0 and 20 (count_values), the power summed and its hourly p95. */
    assert_close(vec_value(&v, "GPU-0000-0000", "", "sum"), 288 * 100.0, REL);
    assert_close(vec_value(&v, "GPU-0000-0000", "", "h0"), 288, REL);
    assert_close(vec_value(&v, "GPU-0000-0000", "", "h20"), 288, REL);
    assert_true(isnan(vec_value(&v, "GPU-0000-0000", "", "h10")));
    assert_close(vec_value(&v, "GPU-0000-0000", "", "ps"), 288 * 400.0 + 288 * 60.0, REL);
    assert_close(vec_value(&v, "GPU-0000-0000", "", "p95"), 400, REL);
    assert_close(vec_value(&v, "GPU-0000-0001", "", "h10"), 576, REL); /* 50 %: bin 10 */
    assert_close(vec_value(&v, "GPU-0000-0001", "", "p95"), 250, REL);
    /* MIG instances: utilization from the graphics engine's activity, no power of their own. */
    assert_close(vec_value(&v, "GPU-mig0", "GI 1 3g.40gb", "sum"), 576 * 80.0, REL);
    assert_close(vec_value(&v, "GPU-mig0", "GI 1 3g.40gb", "h16"), 576, REL);
    assert_close(vec_value(&v, "GPU-mig0", "GI 2 3g.40gb", "h4"), 576, REL);
    assert_true(isnan(vec_value(&v, "GPU-mig0", "GI 1 3g.40gb", "ps")));
    for (size_t i = 0; i < v.gpus.n_gpus; i++) {
        const gp_gpu_ref *g = &v.gpus.gpus[i];
        assert_string_equal(g->host, strcmp(g->uuid, "GPU-mig0") ? "h0" : "hm");
        assert_non_null(strstr(g->model, "H100")); /* the catalog's name for modelName */
    }
    free(buf);
    /* The same answer past a batch of 10 points. */
    gp_promvec_done(&v);
    gp_promvec_init(&v, 10);
    buf = slurp("local-prom2.42__query__capacity-gpu-terms__vector.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, NULL, &v, &err), GP_E_LIMIT);
    free(buf);
    gp_promvec_done(&v);
}

/* The fleet's buckets (a range query) and use by a label (sum by): points without a GPU. */
static void test_capacity_matrix_and_by(void **state) {
    (void)state;
    size_t len;
    char *buf = slurp("local-prom2.42__query_range__capacity-fleet-buckets__matrix.json", &len);
    gp_promvec v;
    gp_err err;
    gp_promvec_init(&v, 1000);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, NULL, &v, &err), GP_OK);
    assert_int_equal(v.n, 36); /* three series of the last hour's 12 buckets */
    for (size_t i = 0; i < v.n; i++) {
        const gp_promvec_item *it = &v.it[i];
        assert_int_equal(it->gpu, -1);
        assert_int_equal(it->t_ms % 300000, 0);
        /* 23:00 to midnight: GPU 0 idle, GPU 1 at 50 %, the instances at 80 and 20 %. */
        double want = !strcmp(it->agg, "g") ? 4 : !strcmp(it->agg, "u") ? 150 : 3;
        assert_close(it->v, want, REL);
    }
    free(buf);
    gp_promvec_done(&v);
    gp_promvec_init(&v, 1000);
    buf = slurp("local-prom2.42__query__capacity-by-Hostname__vector.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, "Hostname", &v, &err), GP_OK);
    assert_int_equal(v.n, 2);
    assert_string_equal(v.it[0].by, "h0");
    assert_string_equal(v.it[1].by, "hm");
    assert_close(v.it[1].v, 1152, REL);
    free(buf);
    /* The docs' example by a label it lacks: no value kept. */
    buf = slurp("prometheus-docs__api_v1_query__vector__up__doc-example.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, "namespace", &v, &err), GP_OK);
    assert_null(v.it[v.n - 1].by);
    free(buf);
    gp_promvec_done(&v);
}

static void test_capacity_errors(void **state) {
    (void)state;
    size_t len;
    gp_promvec v;
    gp_err err;
    gp_promvec_init(&v, 1000);
    /* Over the server's limit of samples in memory (--query.max-samples). */
    char *buf = slurp("local-prom2.42__query__capacity-max-samples__422-execution.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 422, NULL, &v, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "HTTP 422, execution"));
    assert_non_null(strstr(err.msg, "too many samples"));
    free(buf);
    buf = slurp("local-prom2.42__query__parse-error__400-bad_data.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 400, NULL, &v, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "HTTP 400, bad_data"));
    free(buf);
    /* NaN and +-Inf are no readings; a scalar is no answer of ours. */
    buf = slurp("local-prom2.42__query__vector-plusInf-minusInf.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, NULL, &v, &err), GP_OK);
    assert_int_equal(v.n, 0);
    assert_int_equal(v.blanks, 2);
    free(buf);
    buf = slurp("local-prom2.42__query__scalar-NaN.json", &len);
    assert_int_equal(gp_promvec_parse(buf, len, "srv", 200, NULL, &v, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "not a vector"));
    free(buf);
    static const char *const bad[] = {
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
        "\"value\":[1,\"x\"]}]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
        "\"value\":[-5,\"1\"]}]}}",
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},"
        "\"value\":[1,\"1\"]}]}}",
        "{\"status\":\"success\"", "not json"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gp_promvec_parse(bad[i], strlen(bad[i]), "srv", 200, NULL, &v, &err),
                         GP_E_INPUT);
    assert_non_null(strstr(err.where, "srv"));
    gp_promvec_done(&v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_matrix),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_blanks_and_mig),
        cmocka_unit_test(test_label_values),
        cmocka_unit_test(test_capacity_vector),
        cmocka_unit_test(test_capacity_matrix_and_by),
        cmocka_unit_test(test_capacity_errors),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_duplicates_and_huge),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_lead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
