/* History import over one libcurl multi handle (history.h). Only src/collect calls curl. */
#include "gpuplan/history.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/collect.h"
#include "gpuplan/prom_range.h"
#include "gpuplan/store_history.h"
#include "gpuplan/xmem.h"
#include "history_hosts.h"
#include "http.h"

#define HOUR_MS 3600000LL
#define MAX_HOSTS 100000
/* Points one response may hold, all series together: about 30 MB of JSON. */
#define POINTS_PER_RESPONSE 1000000

void gp_history_opts_init(gp_history_opts *o) {
    memset(o, 0, sizeof *o);
    o->url = o->match = o->token_file = o->cacert = o->org_id = "";
    o->step_ms = GP_BUCKET_MS;
    o->max_points = 11000;
    o->hosts_per_query = 8;
    o->concurrency = 4;
    o->connect_timeout_ms = 5000;
    o->total_timeout_ms = 120000;
    o->max_bytes = 256u << 20;
}

/* What is asked for each metric: X is the metric's selector, the aggregate applied to it over
 * each step. mem_total adds used and free; the MIG query keeps the graphics engine's activity
 * only where the GPU reports no GPU_UTIL (a MIG instance), as dcgm-exporter's own parser does. */
static const struct hist_query {
    int key; /* the marks' metric column: the gp_metric, 100 for the MIG query */
    gp_metric metric;
    const char *name, *plus; /* plus: a second metric added (mem_total) */
    double scale;
    bool mig;
} queries[] = {
    {GP_M_GPU_UTIL, GP_M_GPU_UTIL, "DCGM_FI_DEV_GPU_UTIL", NULL, 1, false},
    {100, GP_M_GPU_UTIL, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", NULL, 100, true},
    {GP_M_MEM_USED_MIB, GP_M_MEM_USED_MIB, "DCGM_FI_DEV_FB_USED", NULL, 1, false},
    {GP_M_MEM_TOTAL_MIB, GP_M_MEM_TOTAL_MIB, "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", 1,
     false},
    {GP_M_POWER_W, GP_M_POWER_W, "DCGM_FI_DEV_POWER_USAGE", NULL, 1, false},
    {GP_M_TEMP_C, GP_M_TEMP_C, "DCGM_FI_DEV_GPU_TEMP", NULL, 1, false},
    {GP_M_ENERGY_J, GP_M_ENERGY_J, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", NULL, 1e-3, false},
    {GP_M_SM_CLOCK_MHZ, GP_M_SM_CLOCK_MHZ, "DCGM_FI_DEV_SM_CLOCK", NULL, 1, false},
};
#define NQ (sizeof queries / sizeof queries[0])

/* ---- text helpers -------------------------------------------------------------------------- */

/* The source's selector with one more matcher: "{job=\"a\",EXTRA}"; "" extra leaves it. */
static void selector(const char *match, const char *extra, gp_buf *out) {
    const char *m = match && *match ? match : "{}";
    size_t l = strlen(m);
    while (l && m[l - 1] != '}')
        l--;
    size_t inner = l > 1 ? l - 2 : 0; /* between the braces */
    const char *in = m + 1;
    while (inner && (*in == ' ')) /* "{ }" is empty too */
        in++, inner--;
    bool sep = inner && *extra;
    gp_buf_printf(out, "{%.*s%s%s}", (int)inner, in, sep ? "," : "", extra);
}

/* A regular expression matching exactly these host names (RE2 metacharacters escaped), as a
 * PromQL string (quotes and backslashes escaped once more). */
static void host_regex(char *const *hosts, size_t n, gp_buf *out) {
    gp_buf_printf(out, "Hostname=~\"");
    for (size_t i = 0; i < n; i++) {
        if (i)
            gp_buf_add(out, "|", 1);
        for (const char *p = hosts[i]; *p; p++) {
            if (strchr(".+*?()|[]{}^$\\", *p))
                gp_buf_add(out, "\\\\", 2);
            if (*p == '"')
                gp_buf_add(out, "\\", 1);
            gp_buf_add(out, p, 1);
        }
    }
    gp_buf_add(out, "\"", 1);
}

/* One aggregate of a query: label_replace(f(X[W]) [+ f(Y[W])], "gpuplan_agg", "a", "", ""). */
static void aggregate(const struct hist_query *q, const char *sel, const char *fn, const char *agg,
                      long step_s, gp_buf *out) {
    gp_buf_printf(out, "label_replace(%s(%s%s[%lds])", fn, q->name, sel, step_s);
    if (q->plus && strcmp(agg, "n") != 0)
        gp_buf_printf(out, " + %s(%s%s[%lds])", fn, q->plus, sel, step_s);
    gp_buf_printf(out, ", \"%s\", \"%s\", \"\", \"\")", GP_RANGE_AGG_LABEL, agg);
}

static void query_text(const struct hist_query *q, const char *sel, long step_s, gp_buf *out) {
    static const char *const fns[4][2] = {{"count_over_time", "n"},
                                          {"sum_over_time", "sum"},
                                          {"min_over_time", "min"},
                                          {"max_over_time", "max"}};
    if (q->mig)
        gp_buf_add(out, "(", 1);
    for (int i = 0; i < 4; i++) {
        if (i)
            gp_buf_printf(out, " or ");
        aggregate(q, sel, fns[i][0], fns[i][1], step_s, out);
    }
    if (q->mig)
        gp_buf_printf(out, ") unless on(UUID, gpu) count_over_time(DCGM_FI_DEV_GPU_UTIL%s[%lds])",
                      sel, step_s);
}

static void form_add(CURL *h, gp_buf *form, const char *key, const char *value) {
    char *enc = curl_easy_escape(h, value, 0);
    gp_buf_printf(form, "%s%s=%s", form->len ? "&" : "", key, enc ? enc : "");
    curl_free(enc);
}

static void fmt_time(int64_t ms, char *out, size_t cap) {
    snprintf(out, cap, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
}

/* ---- transfers ------------------------------------------------------------------------------ */

typedef struct chunk chunk;

typedef struct xfer {
    chunk *c;
    int q; /* index into queries; -1 for the host list */
    gp_buf body, form;
    CURL *h; /* while in flight */
    bool capped;
    struct curl_slist *headers;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

struct chunk {
    size_t group;
    int64_t from, to;
    gp_rollups rows;
    xfer x[NQ];
    int started, done;
};

typedef struct group {
    char **hosts; /* borrowed from the host list */
    size_t n_hosts;
    int64_t from; /* resumes here */
    int64_t next; /* the next chunk's start */
    bool open;    /* a chunk of it is in flight */
} group;

typedef struct run {
    gp_store *st;
    long long node_id;
    hist_hosts hosts; /* per_host: a node per host (history_hosts.h) */
    const gp_history_opts *o;
    char source[1600];
    int64_t span_ms;
    gp_history_progress p;
    gp_err *err;
    gp_status status;
} run;

static size_t on_body(char *data, size_t size, size_t n, void *arg) {
    xfer *x = arg;
    if (gp_buf_add(&x->body, data, size * n) != GP_OK) {
        x->capped = true;
        return 0;
    }
    return size * n;
}

/* The bearer token from a file, without its trailing newline; "" when unreadable. */
static void read_token(const char *path, char *out, size_t cap) {
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = '\0';
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' '))
        out[--n] = '\0';
}

/* A POST of x->form to base + path (a GET with the form as its query string when !post), with
 * the source's credentials and TLS settings. */
static CURL *make_handle(const gp_history_opts *o, const char *path, xfer *x, bool post) {
    gp_buf url;
    gp_buf_init(&url, 1u << 20);
    size_t bl = strlen(o->url);
    gp_buf_printf(&url, "%.*s%s%s%s", (int)(bl && o->url[bl - 1] == '/' ? bl - 1 : bl), o->url,
                  path, post ? "" : "?", post || !x->form.data ? "" : x->form.data);
    if (!url.data) {
        gp_buf_done(&url);
        return NULL;
    }
    CURL *h = gp_http_handle(url.data, 3, o->connect_timeout_ms, o->total_timeout_ms, o->max_bytes,
                             on_body, x, "gpuplan-import");
    gp_buf_done(&url); /* libcurl keeps its own copy of the URL */
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_PRIVATE, x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    if (o->token_file && *o->token_file) {
        char token[1024], header[1100];
        read_token(o->token_file, token, sizeof token);
        if (token[0]) {
            snprintf(header, sizeof header, "Authorization: Bearer %s", token);
            x->headers = curl_slist_append(x->headers, header);
            memset(token, 0, sizeof token);
            memset(header, 0, sizeof header);
        }
    }
    if (o->org_id && *o->org_id) {
        char header[300];
        snprintf(header, sizeof header, "X-Scope-OrgID: %s", o->org_id);
        x->headers = curl_slist_append(x->headers, header);
    }
    x->headers = curl_slist_append(x->headers, "Accept: application/json");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->headers);
    if (o->cacert && *o->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (post) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, x->form.data ? x->form.data : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)x->form.len);
    }
    return h;
}

static void xfer_done(xfer *x) {
    gp_buf_done(&x->body);
    gp_buf_done(&x->form);
    curl_slist_free_all(x->headers);
    x->headers = NULL;
}

/* The outcome of a finished transfer: GP_OK with its body, or the error in err. */
static gp_status transfer_status(const gp_history_opts *o, xfer *x, CURLcode rc, gp_err *err) {
    if (x->capped || rc == CURLE_FILESIZE_EXCEEDED)
        return gp_errorf(err, GP_E_NET, o->url, "a response larger than the cap of %zu bytes",
                         x->body.limit);
    if (rc != CURLE_OK)
        return gp_errorf(err, GP_E_NET, o->url, "%s",
                         x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
    return GP_OK;
}

/* One blocking request through its own multi handle (the host list, asked once). */
static gp_status fetch_one(const gp_history_opts *o, const char *path, xfer *x, long *status,
                           gp_err *err) {
    CURL *h = make_handle(o, path, x, false);
    if (!h)
        return gp_errorf(err, GP_E_NET, o->url, "cannot start a transfer");
    CURLM *m = curl_multi_init();
    curl_multi_add_handle(m, h);
    int running = 1;
    while (running) {
        curl_multi_perform(m, &running);
        if (running)
            curl_multi_poll(m, NULL, 0, 200, NULL);
    }
    int left;
    CURLMsg *msg = curl_multi_info_read(m, &left);
    CURLcode rc = msg && msg->msg == CURLMSG_DONE ? msg->data.result : CURLE_RECV_ERROR;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_multi_remove_handle(m, h);
    curl_easy_cleanup(h);
    curl_multi_cleanup(m);
    return transfer_status(o, x, rc, err);
}

/* The hosts with GPU metrics in the window; none when the series carry no Hostname label. */
static gp_status list_hosts(run *r, char ***hosts, size_t *n) {
    const gp_history_opts *o = r->o;
    xfer x = {0};
    gp_buf_init(&x.body, o->max_bytes);
    gp_buf_init(&x.form, 1u << 20);
    gp_buf sel;
    gp_buf_init(&sel, 1u << 16);
    selector(o->match, "__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_PROF_GR_ENGINE_ACTIVE\"", &sel);
    CURL *tmp = curl_easy_init();
    char t[32];
    form_add(tmp, &x.form, "match[]", sel.data ? sel.data : "{}");
    fmt_time(o->since_ms, t, sizeof t);
    form_add(tmp, &x.form, "start", t);
    fmt_time(o->until_ms, t, sizeof t);
    form_add(tmp, &x.form, "end", t);
    curl_easy_cleanup(tmp);
    gp_buf_done(&sel);
    long status = 0;
    gp_status rc = fetch_one(o, "/api/v1/label/Hostname/values", &x, &status, r->err);
    r->p.queries++;
    r->p.bytes += x.body.len;
    if (rc == GP_OK)
        rc = gp_promlabels_parse(x.body.data ? x.body.data : "", x.body.len, o->url, status,
                                 MAX_HOSTS, hosts, n, r->err);
    xfer_done(&x);
    return rc;
}

/* ---- chunks --------------------------------------------------------------------------------- */

static void chunk_start(run *r, chunk *c, group *g, CURLM *multi, size_t q) {
    const gp_history_opts *o = r->o;
    xfer *x = &c->x[q];
    memset(x, 0, sizeof *x);
    x->c = c;
    x->q = (int)q;
    gp_buf_init(&x->body, o->max_bytes);
    gp_buf_init(&x->form, 4u << 20);
    gp_buf hosts, sel, text;
    gp_buf_init(&hosts, 4u << 20);
    gp_buf_init(&sel, 4u << 20);
    gp_buf_init(&text, 4u << 20);
    if (g->n_hosts)
        host_regex(g->hosts, g->n_hosts, &hosts);
    selector(o->match, hosts.data ? hosts.data : "", &sel);
    query_text(&queries[q], sel.data ? sel.data : "{}", (long)(o->step_ms / 1000), &text);
    CURL *tmp = curl_easy_init();
    char t[32];
    form_add(tmp, &x->form, "query", text.data ? text.data : "");
    fmt_time(c->from + o->step_ms - 1, t, sizeof t);
    form_add(tmp, &x->form, "start", t);
    fmt_time(c->to - 1, t, sizeof t);
    form_add(tmp, &x->form, "end", t);
    snprintf(t, sizeof t, "%llds", (long long)(o->step_ms / 1000));
    form_add(tmp, &x->form, "step", t);
    /* VictoriaMetrics moves start to a multiple of step (for its cache) unless told not to;
     * Prometheus ignores the parameter. */
    form_add(tmp, &x->form, "nocache", "1");
    curl_easy_cleanup(tmp);
    gp_buf_done(&hosts);
    gp_buf_done(&sel);
    gp_buf_done(&text);
    CURL *h = make_handle(o, "/api/v1/query_range", x, true);
    if (!h) {
        xfer_done(x);
        gp_errorf(r->err, GP_E_NET, o->url, "cannot start a transfer");
        r->status = GP_E_NET;
        return;
    }
    x->h = h;
    curl_multi_add_handle(multi, h);
    c->started++;
}

/* Where a mark of host h lives: the node of its host (per_host), else the import's node. */
static gp_status mark_node(run *r, const char *h, bool create, long long *id, bool *has) {
    *has = true;
    *id = r->node_id;
    return r->o->per_host ? hist_host_node(&r->hosts, h, create, id, has) : GP_OK;
}

/* What host h's marks are keyed by: its own selector (per_host), else the import's. */
static void mark_source(const run *r, const char *h, char *out, size_t cap) {
    if (r->o->per_host)
        hist_host_source(&r->hosts, h, out, cap);
    else
        snprintf(out, cap, "%s", r->source);
}

/* Every query of the chunk is in: store its rows and move its marks, in one transaction. */
static gp_status chunk_commit(run *r, chunk *c, group *g) {
    gp_rollups_finish(&c->rows);
    size_t written = 0, skipped = 0;
    /* A MIG GPU's utilization is its instances' (prom_range.h). */
    gp_status rc = gp_rollups_mig_rollup(&c->rows, r->err);
    if (rc == GP_OK)
        rc = gp_store_begin(r->st, r->err);
    if (rc == GP_OK && r->o->per_host)
        rc = hist_write_per_host(&r->hosts, &c->rows, &written, &skipped);
    else if (rc == GP_OK)
        rc = gp_store_rollups_write(r->st, r->node_id, &c->rows, &written, &skipped, r->err);
    for (size_t h = 0; rc == GP_OK && h < (g->n_hosts ? g->n_hosts : 1); h++) {
        long long id;
        bool has;
        const char *host = g->n_hosts ? g->hosts[h] : "";
        if (r->o->per_host && !g->n_hosts) {
            /* No Hostname list: the hosts are the GPUs' own (instance) labels, a mark each. */
            for (size_t i = 0; rc == GP_OK && i < c->rows.gpus.n_gpus; i++)
                if ((rc = mark_node(r, c->rows.gpus.gpus[i].host, true, &id, &has)) == GP_OK)
                    for (size_t q = 0; rc == GP_OK && q < NQ; q++)
                        rc = gp_store_history_mark_set(
                            r->st, id, r->source, (gp_metric)queries[q].key, "", c->to, r->err);
            break;
        }
        rc = mark_node(r, host, true, &id, &has);
        char source[sizeof r->source];
        mark_source(r, host, source, sizeof source);
        for (size_t q = 0; rc == GP_OK && q < NQ; q++)
            rc = gp_store_history_mark_set(r->st, id, source, (gp_metric)queries[q].key, host,
                                           c->to, r->err);
    }
    if (rc == GP_OK)
        rc = gp_store_commit(r->st, r->err);
    if (rc != GP_OK) {
        gp_store_rollback(r->st);
        return rc;
    }
    r->p.rows_written += written;
    r->p.rows_skipped += skipped;
    r->p.gpus += c->rows.gpus.n_gpus;
    r->p.chunks_done++;
    return GP_OK;
}

/* Where each group resumes: the earliest mark of its hosts and queries, else since. */
static gp_status group_marks(run *r, group *g) {
    g->from = r->o->until_ms;
    for (size_t q = 0; q < NQ; q++)
        for (size_t h = 0; h < (g->n_hosts ? g->n_hosts : 1); h++) {
            bool has;
            int64_t done;
            long long id;
            const char *host = g->n_hosts ? g->hosts[h] : "";
            if (r->o->per_host && !g->n_hosts)
                id = 0; /* the instances' nodes: the earliest of their marks */
            else if (mark_node(r, host, false, &id, &has))
                return r->err->code;
            else if (!has) { /* a host new to the store: from the start */
                g->from = r->o->since_ms;
                continue;
            }
            char source[sizeof r->source];
            if (r->o->per_host && !g->n_hosts)
                snprintf(source, sizeof source, "%s", r->source);
            else
                mark_source(r, host, source, sizeof source);
            if (gp_store_history_mark(r->st, id, source, (gp_metric)queries[q].key, host, &has,
                                      &done, r->err))
                return r->err->code;
            int64_t from = has && done > r->o->since_ms ? done : r->o->since_ms;
            if (from < g->from)
                g->from = from;
        }
    g->next = g->from;
    return GP_OK;
}

static size_t chunks_of(const run *r, const group *g) {
    int64_t len = r->o->until_ms - g->from;
    return len <= 0 ? 0 : (size_t)((len + r->span_ms - 1) / r->span_ms);
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

gp_status gp_history_import(gp_store *st, long long node_id, const gp_history_opts *o,
                            int (*progress)(const gp_history_progress *, void *), void *arg,
                            gp_history_progress *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    if (o->step_ms < 1000 || o->step_ms % 1000 || GP_BUCKET_MS % o->step_ms)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--step must be whole seconds dividing 5 minutes (5m, 1m, 30s, ...)");
    if (o->max_points < 1 || o->hosts_per_query < 1 || o->concurrency < 1)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "max points, hosts per query and concurrency "
                         "must be at least 1");
    if (!(o->until_ms > o->since_ms))
        return gp_errorf(err, GP_E_INPUT, NULL, "the window is empty (--until before --since)");
    /* Whole hours only: an hour's rollups come from one chunk, and the hour in progress is
     * left to collection (or the next import). */
    gp_history_opts whole = *o;
    whole.since_ms -= ((whole.since_ms % HOUR_MS) + HOUR_MS) % HOUR_MS;
    whole.until_ms -= ((whole.until_ms % HOUR_MS) + HOUR_MS) % HOUR_MS;
    if (whole.until_ms <= whole.since_ms)
        return gp_errorf(err, GP_E_INPUT, NULL, "the window holds no whole hour");
    o = &whole;
    gp_http_global_init();
    run r = {.st = st, .node_id = node_id, .o = o, .err = err};
    snprintf(r.source, sizeof r.source, "%s %s", o->url, o->match ? o->match : "");
    double t0 = mono_s();
    char **hosts = NULL;
    size_t n_hosts = 0;
    if (list_hosts(&r, &hosts, &n_hosts)) {
        *out = r.p;
        return err->code;
    }
    r.p.hosts = n_hosts;
    r.hosts = (hist_hosts){st, o, n_hosts ? "Hostname" : "instance", 0, err};
    size_t hpq = (size_t)o->hosts_per_query;
    size_t n_groups = n_hosts ? (n_hosts + hpq - 1) / hpq : 1;
    /* Points per series: the server's limit, and a bound on a response's size (8 GPUs a host,
     * four aggregates a GPU); whole hours when it allows, so an hour is written by one chunk. */
    int64_t per_series = POINTS_PER_RESPONSE / (int64_t)(32 * (n_hosts ? hpq : 64));
    if (per_series > o->max_points)
        per_series = o->max_points;
    if (per_series < 1)
        per_series = 1;
    r.span_ms = per_series * o->step_ms;
    if (r.span_ms >= HOUR_MS)
        r.span_ms -= r.span_ms % HOUR_MS;
    group *groups = gp_xcalloc(n_groups, sizeof *groups);
    gp_status rc = GP_OK;
    for (size_t i = 0; i < n_groups && rc == GP_OK; i++) {
        groups[i].hosts = n_hosts ? hosts + i * hpq : NULL;
        groups[i].n_hosts = n_hosts ? (n_hosts - i * hpq < hpq ? n_hosts - i * hpq : hpq) : 0;
        rc = group_marks(&r, &groups[i]);
        r.p.chunks_total += chunks_of(&r, &groups[i]);
    }
    size_t max_open = (size_t)o->concurrency; /* chunks open at once, a query in flight each */
    chunk *open = gp_xcalloc(max_open, sizeof *open);
    bool *busy = gp_xcalloc(max_open, sizeof *busy);
    CURLM *multi = curl_multi_init();
    size_t in_flight = 0, next_group = 0;
    bool stop = rc != GP_OK;
    r.status = rc;
    while (!stop) {
        /* Top up: queries of open chunks first, then a new chunk of the next idle group. */
        for (size_t k = 0; k < max_open && in_flight < (size_t)o->concurrency && !stop; k++) {
            chunk *c = &open[k];
            if (!busy[k]) {
                size_t tries = 0;
                while (tries < n_groups &&
                       (groups[next_group].open || groups[next_group].next >= o->until_ms)) {
                    next_group = (next_group + 1) % n_groups;
                    tries++;
                }
                if (tries == n_groups)
                    continue;
                group *g = &groups[next_group];
                next_group = (next_group + 1) % n_groups;
                memset(c, 0, sizeof *c);
                c->group = (size_t)(g - groups);
                c->from = g->next;
                c->to = g->next + r.span_ms < o->until_ms ? g->next + r.span_ms : o->until_ms;
                gp_rollups_init(&c->rows, 1u << 26);
                g->open = true;
                busy[k] = true;
            }
            while (c->started < (int)NQ && in_flight < (size_t)o->concurrency &&
                   r.status == GP_OK) {
                chunk_start(&r, c, &groups[c->group], multi, (size_t)c->started);
                if (r.status == GP_OK)
                    in_flight++;
            }
            if (r.status != GP_OK)
                stop = true;
        }
        if (stop || in_flight == 0)
            break;
        int still;
        curl_multi_perform(multi, &still);
        CURLMsg *msg;
        int left;
        while (!stop && (msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *h = msg->easy_handle;
            xfer *x;
            long status = 0;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
            CURLcode res = msg->data.result;
            curl_multi_remove_handle(multi, h);
            curl_easy_cleanup(h);
            x->h = NULL;
            in_flight--;
            r.p.queries++;
            r.p.bytes += x->body.len;
            chunk *c = x->c;
            const struct hist_query *q = &queries[x->q];
            gp_status s = transfer_status(o, x, res, err);
            if (s == GP_OK)
                s = gp_promrange_parse(x->body.data ? x->body.data : "", x->body.len, o->url,
                                       status, q->metric, q->scale, o->step_ms, &c->rows, err);
            xfer_done(x);
            c->done++;
            if (s == GP_OK && c->done == (int)NQ) {
                group *g = &groups[c->group];
                s = chunk_commit(&r, c, g);
                g->open = false;
                g->next = c->to;
                gp_rollups_done(&c->rows);
                busy[c - open] = false;
                r.p.seconds = mono_s() - t0;
                if (s == GP_OK && progress && progress(&r.p, arg))
                    stop = true;
            }
            if (s != GP_OK) {
                r.status = s;
                stop = true;
            }
        }
        if (!stop && in_flight > 0)
            curl_multi_poll(multi, NULL, 0, 200, NULL);
    }
    /* Stopped or done: whatever is still in flight is dropped, uncommitted. */
    for (size_t k = 0; k < max_open; k++) {
        if (!busy[k])
            continue;
        for (int q = 0; q < open[k].started; q++) {
            xfer *x = &open[k].x[q];
            if (x->h) {
                curl_multi_remove_handle(multi, x->h);
                curl_easy_cleanup(x->h);
                x->h = NULL;
            }
            xfer_done(x);
        }
        gp_rollups_done(&open[k].rows);
    }
    curl_multi_cleanup(multi);
    free(open);
    free(busy);
    free(groups);
    free(hosts);
    r.p.seconds = mono_s() - t0;
    r.p.nodes_created = r.hosts.nodes_created;
    *out = r.p;
    return r.status;
}

/* ---- queries of capacity --prometheus ------------------------------------------------------- */

gp_status gp_history_query(const gp_history_opts *o, gp_prom_call *calls, size_t n, gp_err *err) {
    gp_http_global_init();
    xfer *xs = gp_xcalloc(n ? n : 1, sizeof *xs);
    for (size_t i = 0; i < n; i++) {
        gp_buf_init(&calls[i].body, o->max_bytes);
        calls[i].http_status = 0;
    }
    CURLM *multi = curl_multi_init();
    CURL *tmp = curl_easy_init();
    size_t next = 0, in_flight = 0, done = 0;
    gp_status rc = multi && tmp ? GP_OK : gp_errorf(err, GP_E_NET, o->url, "cannot start libcurl");
    while (rc == GP_OK && done < n) {
        while (rc == GP_OK && next < n &&
               in_flight < (size_t)(o->concurrency > 0 ? o->concurrency : 1)) {
            gp_prom_call *c = &calls[next];
            xfer *x = &xs[next];
            gp_buf_init(&x->body, o->max_bytes);
            gp_buf_init(&x->form, 4u << 20);
            x->q = (int)next;
            char t[32];
            form_add(tmp, &x->form, "query", c->query);
            fmt_time(c->time_ms, t, sizeof t);
            form_add(tmp, &x->form, c->range ? "start" : "time", t);
            if (c->range) {
                fmt_time(c->end_ms, t, sizeof t);
                form_add(tmp, &x->form, "end", t);
                snprintf(t, sizeof t, "%llds", (long long)(c->step_ms / 1000));
                form_add(tmp, &x->form, "step", t);
                form_add(tmp, &x->form, "nocache", "1");
            }
            x->h = make_handle(o, c->range ? "/api/v1/query_range" : "/api/v1/query", x, true);
            if (!x->h) {
                rc = gp_errorf(err, GP_E_NET, o->url, "cannot start a transfer");
                break;
            }
            curl_multi_add_handle(multi, x->h);
            next++;
            in_flight++;
        }
        if (rc != GP_OK)
            break;
        int still;
        curl_multi_perform(multi, &still);
        CURLMsg *msg;
        int left;
        while (rc == GP_OK && (msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            xfer *x;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            gp_prom_call *c = &calls[x->q];
            curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &c->http_status);
            CURLcode res = msg->data.result;
            curl_multi_remove_handle(multi, x->h);
            curl_easy_cleanup(x->h);
            x->h = NULL;
            in_flight--;
            done++;
            rc = transfer_status(o, x, res, err);
            /* The answer moves to the caller; the transfer's own buffers go. */
            gp_buf_done(&c->body);
            c->body = x->body;
            memset(&x->body, 0, sizeof x->body);
            xfer_done(x);
        }
        if (rc == GP_OK && in_flight > 0)
            curl_multi_poll(multi, NULL, 0, 200, NULL);
    }
    for (size_t i = 0; i < next; i++) {
        if (xs[i].h) {
            curl_multi_remove_handle(multi, xs[i].h);
            curl_easy_cleanup(xs[i].h);
        }
        xfer_done(&xs[i]);
    }
    if (tmp)
        curl_easy_cleanup(tmp);
    if (multi)
        curl_multi_cleanup(multi);
    free(xs);
    return rc;
}

void gp_history_selector(const char *match, char *const *hosts, size_t n_hosts, gp_buf *out) {
    gp_buf h;
    gp_buf_init(&h, 4u << 20);
    if (n_hosts)
        host_regex(hosts, n_hosts, &h);
    selector(match, h.data ? h.data : "", out);
    gp_buf_done(&h);
}

gp_status gp_history_label_values(const gp_history_opts *o, const char *label, const char *extra,
                                  char ***values, size_t *n, gp_err *err) {
    gp_http_global_init();
    xfer x = {0};
    gp_buf_init(&x.body, o->max_bytes);
    gp_buf_init(&x.form, 1u << 20);
    gp_buf sel, path;
    gp_buf_init(&sel, 1u << 16);
    gp_buf_init(&path, 4096);
    selector(o->match, extra, &sel);
    CURL *tmp = curl_easy_init();
    char t[32];
    form_add(tmp, &x.form, "match[]", sel.data ? sel.data : "{}");
    fmt_time(o->since_ms, t, sizeof t);
    form_add(tmp, &x.form, "start", t);
    fmt_time(o->until_ms, t, sizeof t);
    form_add(tmp, &x.form, "end", t);
    curl_easy_cleanup(tmp);
    gp_buf_printf(&path, "/api/v1/label/%s/values", label);
    long status = 0;
    gp_status rc = path.data ? fetch_one(o, path.data, &x, &status, err)
                             : gp_errorf(err, GP_E_NET, o->url, "cannot start a transfer");
    if (rc == GP_OK)
        rc = gp_promlabels_parse(x.body.data ? x.body.data : "", x.body.len, o->url, status,
                                 MAX_HOSTS, values, n, err);
    gp_buf_done(&sel);
    gp_buf_done(&path);
    xfer_done(&x);
    return rc;
}

gp_status gp_history_hosts(const gp_history_opts *o, char ***hosts, size_t *n, gp_err *err) {
    gp_http_global_init();
    run r = {.o = o, .err = err};
    return list_hosts(&r, hosts, n);
}
