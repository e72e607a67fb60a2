/* Throughput measured from the serving engine (app_tp_measure.h). Two instant queries at the
 * window's end: the tokens each pod's engine counted (increase(), so counter resets are added
 * back), and per GPU and pod the 5-minute buckets held, busy (>= 5 %) and their utilization,
 * from dcgm-exporter's GPU_UTIL with the workload's pod labels. The queries are listed in
 * docs/compare.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/app_throughput.h"
#include "gpuplan/app_tp_measure.h"
#include "gpuplan/clock.h"
#include "gpuplan/prom_range.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/url.h"
#include "gpuplan/xmem.h"

#define BUCKET_MS 300000LL
#define MAX_ITEMS (1u << 22)
#define POD_LABEL "gpuplan_pod"

/* The engines' counters: generated and prompt tokens (docs/compare.md). TGI counts per-request
 * histograms: their _sum is the running total. */
static const struct engine {
    const char *name, *output, *input;
} engines[] = {
    {"vllm", "vllm:generation_tokens_total", "vllm:prompt_tokens_total"},
    {"sglang", "sglang:generation_tokens_total", "sglang:prompt_tokens_total"},
    {"tgi", "tgi_request_generated_tokens_sum", "tgi_request_input_length_sum"},
};
#define N_ENGINES (int)(sizeof engines / sizeof engines[0])

void gp_tp_measure_request_init(gp_tp_measure_request *rq) {
    memset(rq, 0, sizeof *rq);
    gp_history_opts_init(&rq->opts);
    rq->window_ms = 7 * GP_DAY_MS;
}

void gp_tp_measure_result_done(gp_tp_measure_result *r) {
    free(r->m);
    for (size_t i = 0; i < r->n_orphans; i++)
        free(r->orphans[i].name);
    free(r->orphans);
    memset(r, 0, sizeof *r);
}

/* sel "{a=\"b\"}" (or "") with the matchers extra added: "{a=\"b\",extra}". */
static void selector(const char *sel, const char *extra, gp_buf *out) {
    size_t inner = sel && strlen(sel) > 2 ? strlen(sel) - 2 : 0;
    gp_buf_printf(out, "{%.*s%s%s}", (int)inner, inner ? sel + 1 : "", inner && *extra ? "," : "",
                  extra);
}

/* The pod of a series: dcgm-exporter's own labels when Prometheus renamed them
 * (exported_pod, exported_namespace: a scrape without honor_labels), else pod and namespace;
 * joined as "namespace/pod" into POD_LABEL. */
static void pod_of(gp_buf *q, const char *x) {
    gp_buf_printf(q,
                  "label_join(label_replace(label_replace(%s, \"pod\", \"$1\", \"exported_pod\", "
                  "\"(.+)\"), \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"), \"%s\", "
                  "\"/\", \"namespace\", \"pod\")",
                  x, POD_LABEL);
}

static void token_query(const char *sel, long long w_ms, gp_tok_count count, gp_buf *q) {
    gp_buf x;
    gp_buf_init(&x, 1u << 16);
    for (int e = 0; e < N_ENGINES; e++)
        for (int k = 0; k < 2; k++) {
            if ((count == GP_TOK_OUTPUT && k == 1) || (count == GP_TOK_INPUT && k == 0))
                continue;
            x.len = 0;
            gp_buf_printf(&x,
                          "label_replace(sum by (namespace, pod) (increase(%s%s[%lldms])), "
                          "\"%s\", \"%c:%s\", \"\", \"\")",
                          k ? engines[e].input : engines[e].output, sel, w_ms, GP_RANGE_AGG_LABEL,
                          k ? 'i' : 'o', engines[e].name);
            if (q->len)
                gp_buf_add(q, " or ", 4);
            pod_of(q, x.data);
        }
    gp_buf_done(&x);
}

/* One of the GPU queries (agg 0: the buckets held, 1: utilization summed, 2: the buckets busy
 * at >= 5 %) for the GPU series of sel, into q: each its own query, so that each stays within
 * the server's samples a query. */
static void gpu_query(const char *sel, long long w_ms, int agg, gp_buf *q) {
    gp_buf u, x;
    gp_buf_init(&u, 1u << 20);
    gp_buf_init(&x, 1u << 20);
    gp_buf_printf(&u, "avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms)", sel);
    long long r = w_ms - 1; /* (at - w, at]: the buckets of [at - w, at) */
    if (agg == 0)
        gp_buf_printf(&x, "label_replace(count_over_time(%s[%lldms:5m])", u.data, r);
    else if (agg == 1)
        gp_buf_printf(&x, "label_replace(sum_over_time(%s[%lldms:5m])", u.data, r);
    else
        gp_buf_printf(&x, "label_replace(count_over_time((%s >= 5)[%lldms:5m])", u.data, r);
    gp_buf_printf(&x, ", \"%s\", \"%s\", \"\", \"\")", GP_RANGE_AGG_LABEL,
                  agg == 0   ? "n"
                  : agg == 1 ? "u"
                             : "b");
    pod_of(q, x.data);
    gp_buf_done(&x);
    gp_buf_done(&u);
}

/* The token query, then the GPU queries a group of hosts at a time (hosts_per_query Hostnames a
 * query, as `capacity --prometheus` asks, a few groups in flight), so that a large fleet's
 * answers stay within the server's limits: the GPU answers into gv, the tokens into tv. */
static gp_status ask(const gp_history_opts *o, const char *gpu_sel, long long w, int64_t at,
                     const char *tq, gp_promvec *tv, gp_promvec *gv, gp_err *err) {
    gp_history_opts lo = *o;
    lo.match = gpu_sel;
    lo.since_ms = at - w;
    lo.until_ms = at;
    char **hosts = NULL;
    size_t nh = 0;
    if (gp_history_label_values(&lo, "Hostname", "__name__=\"DCGM_FI_DEV_GPU_UTIL\",pod!=\"\"",
                                &hosts, &nh, err))
        return err->code;
    size_t hpq = o->hosts_per_query > 0 ? (size_t)o->hosts_per_query : 8;
    size_t groups = nh ? (nh + hpq - 1) / hpq : 1;
    size_t batch = 4 * (size_t)(o->concurrency > 0 ? o->concurrency : 1);
    gp_status rc = GP_OK;
    bool tokens = true;
    for (size_t g0 = 0; g0 < groups && rc == GP_OK; g0 += batch) {
        size_t g1 = g0 + batch < groups ? g0 + batch : groups;
        size_t n = 3 * (g1 - g0) + (tokens ? 1 : 0);
        gp_buf *text = gp_xcalloc(n, sizeof *text);
        gp_prom_call *calls = gp_xcalloc(n, sizeof *calls);
        size_t k = 0;
        if (tokens)
            calls[k++] = (gp_prom_call){.query = tq, .time_ms = at};
        for (size_t g = g0; g < g1; g++) {
            size_t first = g * hpq, count = nh ? (nh - first < hpq ? nh - first : hpq) : 0;
            gp_buf hs, gs;
            gp_buf_init(&hs, 4u << 20);
            gp_buf_init(&gs, 4u << 20);
            gp_history_selector(gpu_sel, nh ? hosts + first : NULL, count, &hs);
            selector(hs.data ? hs.data : "", "pod!=\"\"", &gs);
            for (int agg = 0; agg < 3; agg++, k++) {
                gp_buf_init(&text[k], 16u << 20);
                gpu_query(gs.data, w, agg, &text[k]);
                calls[k] = (gp_prom_call){.query = text[k].data, .time_ms = at};
            }
            gp_buf_done(&hs);
            gp_buf_done(&gs);
        }
        rc = gp_history_query(o, calls, n, err);
        for (size_t i = 0; i < n; i++) {
            bool tok = tokens && i == 0;
            if (rc == GP_OK)
                rc = gp_promvec_parse(calls[i].body.data ? calls[i].body.data : "",
                                      calls[i].body.len, o->url, calls[i].http_status, POD_LABEL,
                                      tok ? tv : gv, err);
            gp_buf_done(&calls[i].body);
            gp_buf_done(&text[i]);
        }
        free(calls);
        free(text);
        tokens = false;
    }
    free(hosts);
    return rc;
}

typedef struct pod {
    const char *name;
    unsigned engines; /* bit per engines[] */
    double tokens;
    long long buckets;
    uint64_t models; /* bit per GPU model (the first 64) it held: counted once in each */
} pod;

static int pod_cmp(const void *a, const void *b) {
    return strcmp(((const pod *)a)->name, ((const pod *)b)->name);
}

static pod *pod_find(pod *p, size_t n, const char *name) {
    pod key = {.name = name};
    return bsearch(&key, p, n, sizeof *p, pod_cmp);
}

/* One GPU model's sums. */
typedef struct model_acc {
    char gpu[GP_GPU_NAME_BYTES];
    double tokens, util;
    long long n, busy;
    unsigned engines;
    int pods;
} model_acc;

static void engines_text(unsigned mask, char *out, size_t cap) {
    out[0] = '\0';
    for (int e = 0; e < N_ENGINES; e++)
        if (mask & (1u << e))
            snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? "," : "",
                     engines[e].name);
}

static const char *const count_names[] = {"output", "input", "total"};

/* The node's Prometheus source into o (its URL, credentials and TLS settings) and its
 * selector into gpu_sel. */
static gp_status node_source(gp_session *ses, const char *node, gp_history_opts *o, char *gpu_sel,
                             size_t cap, gp_source_cfg **srcs, gp_err *err) {
    gp_store *st;
    size_t n = 0;
    if (gp_session_store(ses, &st, err) || gp_store_sources(st, node, srcs, &n, err))
        return err->code;
    for (size_t i = 0; i < n; i++) {
        const gp_source_cfg *s = &(*srcs)[i];
        if (s->kind != GP_SRC_PROMETHEUS)
            continue;
        if (!o->url || !*o->url)
            o->url = s->url;
        if (!o->token_file || !*o->token_file)
            o->token_file = s->token_file;
        if (!o->cacert || !*o->cacert)
            o->cacert = s->cacert;
        o->insecure = o->insecure || s->insecure;
        snprintf(gpu_sel, cap, "%s", s->match);
        return GP_OK;
    }
    return gp_errorf(err, GP_E_NOTFOUND, node,
                     "node \"%s\" has no Prometheus source: give the server with --prometheus URL",
                     node);
}

static bool selector_ok(const char *s) {
    return !*s || (*s == '{' && s[strlen(s) - 1] == '}');
}

/* Pods from the token answer, sorted by name. */
static pod *take_pods(const gp_promvec *v, size_t *n_out) {
    pod *p = gp_xcalloc(v->n + 1, sizeof *p);
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const gp_promvec_item *it = &v->it[i];
        if (it->agg[1] != ':')
            continue;
        p[n++] = (pod){it->by ? it->by : "", 0, it->v, 0, 0};
        for (int e = 0; e < N_ENGINES; e++)
            if (!strcmp(it->agg + 2, engines[e].name))
                p[n - 1].engines = 1u << e;
    }
    qsort(p, n, sizeof *p, pod_cmp);
    /* One row a pod: its counters (and engines) added. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(p[k - 1].name, p[i].name)) {
            p[k - 1].tokens += p[i].tokens;
            p[k - 1].engines |= p[i].engines;
        } else
            p[k++] = p[i];
    }
    *n_out = k;
    return p;
}

/* The GPU answer into per-model sums, tokens split by each pod's GPU-buckets. */
static model_acc *take_models(const gp_promvec *g, pod *p, size_t np, int *n_models,
                              size_t *unnamed) {
    /* First the buckets each pod held, over every model. */
    for (size_t i = 0; i < g->n; i++) {
        const gp_promvec_item *it = &g->it[i];
        pod *o = it->by && !strcmp(it->agg, "n") ? pod_find(p, np, it->by) : NULL;
        if (o && it->gpu >= 0)
            o->buckets += (long long)(it->v + 0.5);
    }
    model_acc *m = gp_xcalloc(g->gpus.n_gpus + 1, sizeof *m);
    int nm = 0;
    for (size_t i = 0; i < g->n; i++) {
        const gp_promvec_item *it = &g->it[i];
        pod *o = it->by ? pod_find(p, np, it->by) : NULL;
        if (!o || it->gpu < 0 || (size_t)it->gpu >= g->gpus.n_gpus)
            continue;
        const char *model = g->gpus.gpus[it->gpu].model;
        if (!*model) {
            *unnamed += !strcmp(it->agg, "n") ? (size_t)(it->v + 0.5) : 0;
            continue;
        }
        model_acc *a = NULL;
        for (int k = 0; k < nm && !a; k++)
            if (!strcmp(m[k].gpu, model))
                a = &m[k];
        if (!a) {
            a = &m[nm++];
            snprintf(a->gpu, sizeof a->gpu, "%s", model);
        }
        if (!strcmp(it->agg, "n")) {
            long long b = (long long)(it->v + 0.5);
            a->n += b;
            if (o->buckets > 0)
                a->tokens += o->tokens * (double)b / (double)o->buckets;
            a->engines |= o->engines;
            uint64_t bit = a - m < 64 ? 1ull << (a - m) : 0;
            if (!bit || !(o->models & bit))
                a->pods++, o->models |= bit;
        } else if (!strcmp(it->agg, "u"))
            a->util += it->v;
        else if (!strcmp(it->agg, "b"))
            a->busy += (long long)(it->v + 0.5);
    }
    *n_models = nm;
    return m;
}

/* The request checked, its server and selectors settled: the node's Prometheus source into o
 * and its selector into gpu_sel (*srcs the caller's to free either way). */
static gp_status check_request(gp_session *ses, const gp_tp_measure_request *rq, gp_history_opts *o,
                               char *gpu_sel, size_t cap, gp_source_cfg **srcs, gp_err *err) {
    if (rq->node && node_source(ses, rq->node, o, gpu_sel, cap, srcs, err))
        return err->code;
    gp_err bad;
    gp_err_clear(&bad);
    if (!o->url || !*o->url)
        return gp_errorf(err, GP_E_INPUT, NULL, "measure on which server? --prometheus URL");
    if (gp_url_check_source(o->url, &bad)) /* never repeated: it may hold a password */
        return gp_errorf(err, GP_E_INPUT, "--prometheus", "%s", bad.msg);
    if (!selector_ok(o->match ? o->match : "") || !selector_ok(gpu_sel))
        return gp_errorf(err, GP_E_INPUT, "--match",
                         "a label selector in braces, like {namespace=\"llm\"}");
    if (rq->window_ms < BUCKET_MS || rq->window_ms > 3660 * GP_DAY_MS)
        return gp_errorf(err, GP_E_INPUT, "--since", "a window of 5 minutes to 10 years");
    return GP_OK;
}

/* The pods whose tokens met no GPU series into out->orphans: named, not counted. */
static void take_orphans(gp_tp_measure_result *out, const pod *p, size_t np) {
    out->orphans = gp_xcalloc(np, sizeof *out->orphans);
    for (size_t i = 0; i < np; i++)
        if (p[i].buckets == 0 && p[i].tokens > 0) {
            gp_tp_pod *x = &out->orphans[out->n_orphans++];
            x->name = gp_xstrdup(p[i].name);
            engines_text(p[i].engines, x->engine, sizeof x->engine);
            x->tokens = p[i].tokens;
        }
}

/* What one measurement is taken over: the window, the server and the token selector. */
typedef struct measure_window {
    char from[24], to[24];
    const char *server, *tsel;
    const gp_profile *prof;
    gp_tok_count count;
} measure_window;

/* GPU model a's figure over window mw into r: M tokens a busy GPU-hour, and where it is from. */
static void measurement_of(const model_acc *a, const measure_window *mw, gp_tp_measurement *r) {
    double held = (double)a->n * BUCKET_MS / 3600e3;
    r->gpu_hours = held;
    r->busy_share = (double)a->busy / (double)a->n;
    r->mean_util = a->util / (double)a->n;
    r->tokens = a->tokens;
    r->pods = a->pods;
    engines_text(a->engines, r->engine, sizeof r->engine);
    snprintf(r->counted, sizeof r->counted, "%s", count_names[mw->count]);
    snprintf(r->window_from, sizeof r->window_from, "%s", mw->from);
    snprintf(r->window_to, sizeof r->window_to, "%s", mw->to);
    gp_throughput *t = &r->t;
    t->kind = GP_TP_MEASURED;
    snprintf(t->gpu, sizeof t->gpu, "%s", a->gpu);
    snprintf(t->profile, sizeof t->profile, "%s", mw->prof->name);
    snprintf(t->unit, sizeof t->unit, "%s", mw->prof->unit);
    t->value = a->tokens / 1e6 / (held * r->busy_share);
    snprintf(t->as_of, sizeof t->as_of, "%.10s", mw->to);
    const char *sel = mw->tsel;
    snprintf(t->source, sizeof t->source,
             "measured from the serving engine (%s, %s tokens) at %s%s%s, %s..%s: %.6g M "
             "tokens on %.6g GPU-hours held by %d pod%s, busy share %.1f %% (mean "
             "utilization %.1f %%)",
             r->engine, r->counted, mw->server, *sel && strcmp(sel, "{}") ? " " : "",
             strcmp(sel, "{}") ? sel : "", mw->from, mw->to, r->tokens / 1e6, held, r->pods,
             r->pods == 1 ? "" : "s", 100 * r->busy_share, r->mean_util);
}

/* A figure for each GPU model busy with tokens into out->m; the idle ones counted. */
static void take_measurements(gp_tp_measure_result *out, const model_acc *m, int nm,
                              const measure_window *mw) {
    out->m = gp_xcalloc((size_t)nm + 1, sizeof *out->m);
    for (int k = 0; k < nm; k++) {
        if (m[k].busy <= 0 || !(m[k].tokens > 0))
            out->idle_models++;
        else
            measurement_of(&m[k], mw, &out->m[out->n++]);
    }
}

gp_status gp_throughput_measure(gp_session *ses, const gp_tp_measure_request *rq,
                                gp_tp_measure_result *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    const gp_profile *prof;
    if (gp_profile_lookup(rq->profile ? rq->profile : "", &prof, err))
        return err->code;
    if (strcmp(prof->unit, "M tokens") != 0)
        return gp_errorf(err, GP_E_INPUT, "--profile",
                         "profile %s is counted in %s: token counters measure a profile counted "
                         "in M tokens",
                         prof->name, prof->unit);
    gp_history_opts o = rq->opts;
    char gpu_sel[512] = "";
    gp_source_cfg *srcs = NULL;
    gp_status rc = check_request(ses, rq, &o, gpu_sel, sizeof gpu_sel, &srcs, err);
    if (rc) {
        free(srcs);
        return rc;
    }
    snprintf(out->server, sizeof out->server, "%s", o.url);
    int64_t until = rq->until_ms > 0 ? rq->until_ms : gp_now_ms();
    int64_t at = until / BUCKET_MS * BUCKET_MS;
    long long w = (rq->window_ms + BUCKET_MS - 1) / BUCKET_MS * BUCKET_MS;
    gp_buf tsel, tq;
    gp_buf_init(&tsel, 4096);
    gp_buf_init(&tq, 1u << 20);
    selector(o.match, "", &tsel);
    token_query(tsel.data, w, rq->count, &tq);
    gp_promvec tv, gv;
    gp_promvec_init(&tv, MAX_ITEMS);
    gp_promvec_init(&gv, MAX_ITEMS);
    rc = ask(&o, gpu_sel, w, at, tq.data, &tv, &gv, err);
    gp_buf_done(&tq);
    size_t np = 0;
    pod *p = NULL;
    model_acc *m = NULL;
    int nm = 0;
    if (rc == GP_OK) {
        p = take_pods(&tv, &np);
        m = take_models(&gv, p, np, &nm, &out->unnamed);
        out->pods = np;
        if (np == 0)
            rc = gp_errorf(err, GP_E_INPUT, o.url,
                           "no serving engine's token counters in the window (vllm:, sglang:, "
                           "tgi_ metrics%s%s)",
                           o.match && *o.match ? " matching " : "", o.match ? o.match : "");
    }
    if (rc == GP_OK) {
        take_orphans(out, p, np);
        measure_window mw = {.server = o.url, .tsel = tsel.data, .prof = prof, .count = rq->count};
        gp_fmt_utc_time(at - w, mw.from, sizeof mw.from);
        gp_fmt_utc_time(at, mw.to, sizeof mw.to);
        take_measurements(out, m, nm, &mw);
        if (out->n == 0)
            rc = gp_errorf(err, GP_E_INPUT, o.url,
                           "%zu serving pod%s, but none held a busy GPU of a known model in the "
                           "window (dcgm-exporter's DCGM_FI_DEV_GPU_UTIL with pod labels%s%s)",
                           np, np == 1 ? "" : "s", *gpu_sel ? " matching " : "", gpu_sel);
    }
    gp_store *st;
    if (rc == GP_OK && (rc = gp_session_store(ses, &st, err)) == GP_OK)
        rc = gp_store_put_measurements(st, out->m, out->n, err);
    free(p);
    free(m);
    free(srcs);
    gp_promvec_done(&tv);
    gp_promvec_done(&gv);
    gp_buf_done(&tsel);
    if (rc)
        gp_tp_measure_result_done(out);
    return rc;
}

typedef struct hist {
    gp_tp_measurement *m;
    int n;
    size_t cap;
} hist;

static int hist_one(const gp_tp_measurement *m, void *arg) {
    hist *h = arg;
    h->m = gp_xgrow(h->m, &h->cap, (size_t)h->n, sizeof *h->m, 16);
    h->m[h->n++] = *m;
    return 0;
}

gp_status gp_throughput_history(gp_session *ses, const char *profile, const char *gpu,
                                gp_tp_measurement **out, int *n, gp_err *err) {
    *out = NULL;
    *n = 0;
    char name[GP_GPU_NAME_BYTES];
    if (gpu)
        gp_gpu_normalize(gpu, 0, name, sizeof name);
    gp_store *st;
    hist h = {0};
    if (gp_session_store(ses, &st, err) ||
        gp_store_measurements(st, profile, gpu ? name : NULL, hist_one, &h, err)) {
        free(h.m);
        return err->code;
    }
    *out = h.m;
    *n = h.n;
    return GP_OK;
}
