/* History import over one libcurl multi handle (collect_history.h). Only src/collect calls curl. */
#include "gpuplan/clock.h"
#include "gpuplan/collect_history.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/collect.h"
#include "gpuplan/prom_range.h"
#include "gpuplan/store_history.h"
#include "gpuplan/url.h"
#include "gpuplan/xmem.h"
#include "history_hosts.h"
#include "http.h"

#define MAX_HOSTS 100000
/* What one 5-minute row costs while a chunk is open: the row (56 bytes, its array grown by
 * doubling) and its slots in the index (2 to 4 of 16 bytes), with room for the store's sort. */
#define ROW_BYTES 192
/* GPUs a host is planned for when a chunk's span is chosen: 8 GPUs, or MIG instances. */
#define GPUS_PER_HOST 16
/* Where the recorded series are read: a bucket [b, b + 5 min) at b + 5 min + 150 s, from the
 * points stamped in (b + 150 s, b + 5 min + 150 s]. Prometheus evaluates a group at an offset
 * within its interval hashed from its name (live and in promtool's backfill), so a point
 * stamped P holds the 5 minutes before P, P anywhere within the interval: it goes to the bucket
 * its window overlaps most (exactly its own where the rules run at whole 5 minutes, as
 * vmalert's replay does). */
#define REC_LEAD_MS 450000
/* How long after a bucket its recorded point may come: evaluated up to an interval after the
 * bucket ends, read 150 s on. An import of the recorded series ends this far before now. */
#define REC_LAG_MS 600000
/* Bytes a point takes in an answer ([1767225599.999,"68.25"], with room), for the caps. */
#define POINT_BYTES 64

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
    o->max_memory = GP_HISTORY_MEMORY;
}

/* What is asked for each metric: X is the metric's selector, the aggregate applied to it over
 * each step. mem_total adds used and free; the MIG query keeps the graphics engine's activity
 * only where the GPU reports no GPU_UTIL (a MIG instance), as dcgm-exporter's own parser does.
 * The recording rules (gp_history_rules_yaml) are written from this table too: rec names the
 * recorded series gpu:gpuplan_REC:AGG5m, which hold the same aggregates in the raw unit. */
static const struct hist_query {
    int key; /* the marks' metric column: the gp_metric, 100 for the MIG query */
    gp_metric metric;
    const char *name, *plus; /* plus: a second metric added (mem_total) */
    double scale;
    bool mig;
    const char *rec, *why; /* the recorded series' name part, and what they hold */
} queries[] = {
    {GP_M_GPU_UTIL, GP_M_GPU_UTIL, "DCGM_FI_DEV_GPU_UTIL", NULL, 1, false, "gpu_util",
     "GPU utilization, %"},
    {100, GP_M_GPU_UTIL, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", NULL, 100, true, "engine_active",
     "graphics engine activity (a ratio, 0 to 1) where the GPU reports no GPU_UTIL: MIG "
     "instances"},
    {GP_M_MEM_USED_MIB, GP_M_MEM_USED_MIB, "DCGM_FI_DEV_FB_USED", NULL, 1, false, "mem_used",
     "framebuffer used, MiB"},
    {GP_M_MEM_TOTAL_MIB, GP_M_MEM_TOTAL_MIB, "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", 1, false,
     "mem_total", "framebuffer used + free, MiB (the count is used's)"},
    {GP_M_POWER_W, GP_M_POWER_W, "DCGM_FI_DEV_POWER_USAGE", NULL, 1, false, "power", "power, W"},
    {GP_M_TEMP_C, GP_M_TEMP_C, "DCGM_FI_DEV_GPU_TEMP", NULL, 1, false, "temp", "temperature, C"},
    {GP_M_ENERGY_J, GP_M_ENERGY_J, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", NULL, 1e-3, false,
     "energy", "energy counter, mJ"},
    {GP_M_SM_CLOCK_MHZ, GP_M_SM_CLOCK_MHZ, "DCGM_FI_DEV_SM_CLOCK", NULL, 1, false, "sm_clock",
     "SM clock, MHz"},
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

/* The aggregates asked for: the function over each step, the parser's tag, the recorded
 * series' suffix. */
static const struct agg_fn {
    const char *fn, *tag, *rec;
} aggs[4] = {{"count_over_time", "n", "count5m"},
             {"sum_over_time", "sum", "sum5m"},
             {"min_over_time", "min", "min5m"},
             {"max_over_time", "max", "max5m"}};

/* One aggregate of a query over range (a selector's range and offset): f(X[W]) [+ f(Y[W])]. */
static void aggregate_expr(const struct hist_query *q, const char *sel, const struct agg_fn *a,
                           const char *range, gp_buf *out) {
    gp_buf_printf(out, "%s(%s%s%s)", a->fn, q->name, sel, range);
    if (q->plus && strcmp(a->tag, "n") != 0)
        gp_buf_printf(out, " + %s(%s%s%s)", a->fn, q->plus, sel, range);
}

/* The raw query: label_replace(f(X[W]) [+ f(Y[W])], "gpuplan_agg", "a", "", "") for each
 * aggregate, or'ed. */
static void query_text(const struct hist_query *q, const char *sel, long step_s, gp_buf *out) {
    char range[32];
    snprintf(range, sizeof range, "[%lds]", step_s);
    if (q->mig)
        gp_buf_add(out, "(", 1);
    for (int i = 0; i < 4; i++) {
        gp_buf_printf(out, "%slabel_replace(", i ? " or " : "");
        aggregate_expr(q, sel, &aggs[i], range, out);
        gp_buf_printf(out, ", \"%s\", \"%s\", \"\", \"\")", GP_RANGE_AGG_LABEL, aggs[i].tag);
    }
    if (q->mig)
        gp_buf_printf(out, ") unless on(UUID, gpu) count_over_time(DCGM_FI_DEV_GPU_UTIL%s%s)", sel,
                      range);
}

/* The recorded query: each aggregate's recorded point of the step, tagged as the raw query's.
 * A point is read at s from (s - 5 min, s] (299,999 ms: Prometheus 2 ranges are closed), so
 * steps 5 minutes apart never read one point twice, and a GPU silent for a while gets no
 * points there (an instant selector would repeat the last one for its lookback). */
static void recorded_text(const struct hist_query *q, const char *sel, gp_buf *out) {
    for (int i = 0; i < 4; i++)
        gp_buf_printf(out,
                      "%slabel_replace(last_over_time(gpu:gpuplan_%s:%s%s[299999ms]), \"%s\", "
                      "\"%s\", \"\", \"\")",
                      i ? " or " : "", q->rec, aggs[i].rec, sel, GP_RANGE_AGG_LABEL, aggs[i].tag);
}

/* The recorded series stand for the windows of the raw ones: 5 minutes ending 1 ms before the
 * evaluation (offset 1ms), every raw label kept, each rule on raw series only (promtool
 * backfills no rule reading another's output). */
gp_status gp_history_rules_yaml(gp_buf *out) {
    gp_status st = gp_buf_printf(
        out, "# Recording rules for `gpuplan import --prometheus` (docs/telemetry.md, Recorded "
             "series):\n"
             "# per GPU (or MIG instance), metric and 5 minutes, the count, sum, min and max the "
             "import\n"
             "# asks of the raw dcgm-exporter series, every label kept. Written by `gpuplan "
             "import\n"
             "# --print-rules`; tests/cli/test_history_rules.sh checks that this file is what "
             "the binary\n"
             "# reads. Evaluate every 5 minutes; backfill with promtool tsdb "
             "create-blocks-from rules\n"
             "# (or vmalert -replay.*).\n"
             "groups:\n"
             "  - name: gpuplan-history\n"
             "    interval: 5m\n"
             "    rules:\n");
    gp_buf e;
    gp_buf_init(&e, 1u << 16);
    for (size_t q = 0; q < NQ && !st; q++) {
        st = gp_buf_printf(out, "      # %s\n", queries[q].why);
        for (int i = 0; i < 4 && !st; i++) {
            e.len = 0;
            aggregate_expr(&queries[q], "", &aggs[i], "[5m] offset 1ms", &e);
            if (queries[q].mig)
                gp_buf_printf(&e, " unless on(UUID, gpu) "
                                  "count_over_time(DCGM_FI_DEV_GPU_UTIL[5m] offset 1ms)");
            st = gp_buf_printf(out, "      - record: gpu:gpuplan_%s:%s\n        expr: '%.*s'\n",
                               queries[q].rec, aggs[i].rec, (int)e.len, e.data ? e.data : "");
        }
    }
    gp_buf_done(&e);
    return st;
}

static void form_add(CURL *h, gp_buf *form, const char *key, const char *value) {
    char *enc = curl_easy_escape(h, value, 0);
    gp_buf_printf(form, "%s%s=%s", form->len ? "&" : "", key, enc ? enc : "");
    curl_free(enc);
}

static void fmt_time(int64_t ms, char *out, size_t cap) {
    snprintf(out, cap, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
}

/* A label-values request's form: the series o->match (and extra) selects over o's window. */
static void label_form(const gp_history_opts *o, const char *extra, gp_buf *form) {
    gp_buf sel;
    gp_buf_init(&sel, 1u << 16);
    selector(o->match, extra, &sel);
    CURL *tmp = curl_easy_init();
    char t[32];
    form_add(tmp, form, "match[]", sel.data ? sel.data : "{}");
    fmt_time(o->since_ms, t, sizeof t);
    form_add(tmp, form, "start", t);
    fmt_time(o->until_ms, t, sizeof t);
    form_add(tmp, form, "end", t);
    curl_easy_cleanup(tmp);
    gp_buf_done(&sel);
}

/* ---- transfers ------------------------------------------------------------------------------ */

typedef struct chunk chunk;
typedef struct run run;

/* What the buffered transfers of one call share (the host list, capacity's answers): the bytes
 * they hold, against a budget, as the collector's transfers do. */
typedef struct budget {
    size_t held, limit;
} budget;

typedef struct xfer {
    chunk *c;
    const run *r; /* a chunk's query: its answer is parsed as it streams */
    int q;        /* index into queries; -1 for the host list */
    gp_buf body, form;
    CURL *h; /* while in flight */
    bool capped, over_budget;
    budget *mem;          /* buffered transfers: the call's budget */
    size_t received, cap; /* streamed transfers: bytes in, and the most an answer may have */
    bool parsing;
    long status; /* the HTTP status, kept when the handle goes */
    gp_promrange_stream ps;
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
    bool held;    /* a chunk of it got points outside its window: its marks stay */
} group;

struct run {
    gp_store *st;
    long long node_id;
    hist_hosts hosts; /* per_host: a node per host (history_hosts.h) */
    const gp_history_opts *o;
    char source[1600];
    int64_t span_ms;
    size_t series_cap; /* the most bytes one series of an answer may take */
    size_t rows_cap;   /* the most 5-minute rows one open chunk may hold */
    bool rec;          /* the recorded series are read (o->step_ms is 5 minutes then) */
    gp_history_progress p;
    gp_err *err;
    gp_status status;
};

/* The answer's parser, started at its first byte (or at its end, when it had none). */
static void stream_start(xfer *x) {
    const run *r = x->r;
    long status = x->status;
    if (x->h)
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    const struct hist_query *q = &queries[x->q];
    gp_promrange_stream_init(&x->ps, r->o->url, status, q->metric, q->scale, r->o->step_ms,
                             r->series_cap, &x->c->rows);
    if (r->rec)
        x->ps.lead_ms = REC_LEAD_MS;
    x->parsing = true;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg) {
    xfer *x = arg;
    size_t len = size * n;
    if (x->r) { /* a chunk's answer: parsed as it comes, never held whole */
        x->received += len;
        if (x->received > x->cap) {
            x->capped = true;
            return 0;
        }
        if (!x->parsing)
            stream_start(x);
        gp_err e;
        return gp_promrange_feed(&x->ps, data, len, &e) == GP_OK ? len : 0;
    }
    budget *m = x->mem;
    if (m && m->held + len > m->limit) {
        x->over_budget = true;
        return 0;
    }
    size_t before = x->body.cap;
    if (gp_buf_add(&x->body, data, len) != GP_OK) {
        x->capped = true;
        return 0;
    }
    if (m)
        m->held += x->body.cap - before;
    return len;
}

/* The source's credentials as headers: the one token reader (http.c); an unreadable token file
 * or a control character in the token or the tenant id is an error, never "no credentials". */
static gp_status auth_check(const gp_history_opts *o, gp_err *err) {
    gp_err e;
    if (gp_url_check_source(o->url, &e)) /* never repeats the URL: it may hold a password */
        return gp_errorf(err, GP_E_INPUT, "--prometheus", "%s", e.msg);
    struct curl_slist *h = NULL;
    gp_status st = gp_http_auth(&h, o->token_file, o->org_id, err);
    curl_slist_free_all(h);
    return st;
}

/* Whether url names this machine (localhost, 127.0.0.0/8, ::1): its answers are then asked for
 * uncompressed. Prometheus spends about 80 ms of CPU gzipping a MB of JSON, more than the
 * transfer of the plain bytes takes even on a LAN, and on loopback they never leave the host. */
static bool loopback(const char *url) {
    CURLU *u = curl_url();
    char *host = NULL;
    bool local = false;
    if (u && !curl_url_set(u, CURLUPART_URL, url, 0) &&
        !curl_url_get(u, CURLUPART_HOST, &host, 0) && host)
        local = !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]");
    curl_free(host);
    curl_url_cleanup(u);
    return local;
}

/* A POST of x->form to base + path (a GET with the form as its query string when !post), with
 * the source's credentials and TLS settings; NULL with err set when it cannot be made. */
static CURL *make_handle(const gp_history_opts *o, const char *path, xfer *x, bool post,
                         gp_err *err) {
    gp_buf url;
    gp_buf_init(&url, 1u << 20);
    size_t bl = strlen(o->url);
    gp_buf_printf(&url, "%.*s%s%s%s", (int)(bl && o->url[bl - 1] == '/' ? bl - 1 : bl), o->url,
                  path, post ? "" : "?", post || !x->form.data ? "" : x->form.data);
    if (!url.data) {
        gp_buf_done(&url);
        gp_errorf(err, GP_E_LIMIT, o->url, "a query longer than 1 MiB: lower --hosts-per-query");
        return NULL;
    }
    CURL *h = gp_http_handle(url.data, 3, o->connect_timeout_ms, o->total_timeout_ms, o->max_bytes,
                             on_body, x, "gpuplan-import");
    gp_buf_done(&url); /* libcurl keeps its own copy of the URL */
    if (!h) {
        gp_errorf(err, GP_E_NET, o->url, "cannot start a transfer");
        return NULL;
    }
    if (gp_http_auth(&x->headers, o->token_file, o->org_id, err)) {
        curl_easy_cleanup(h);
        return NULL;
    }
    curl_easy_setopt(h, CURLOPT_PRIVATE, x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    if (loopback(o->url))
        curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL);
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
    if (x->mem)
        x->mem->held -= x->body.cap;
    x->mem = NULL;
    gp_buf_done(&x->body);
    gp_buf_done(&x->form);
    curl_slist_free_all(x->headers);
    x->headers = NULL;
    if (x->parsing)
        gp_promrange_stream_done(&x->ps);
    x->parsing = false;
}

/* The outcome of a finished transfer: GP_OK with its body, or the error in err. */
static gp_status transfer_status(const gp_history_opts *o, xfer *x, CURLcode rc, gp_err *err) {
    if (x->over_budget)
        return gp_errorf(err, GP_E_LIMIT, o->url,
                         "the answers held at once passed the import's %zu MiB: lower "
                         "--hosts-per-query or --concurrency",
                         x->mem ? x->mem->limit >> 20 : 0);
    if (x->capped || rc == CURLE_FILESIZE_EXCEEDED)
        return gp_errorf(err, GP_E_LIMIT, o->url, "a response larger than the cap of %zu bytes",
                         x->r ? x->cap : x->body.limit);
    if (rc != CURLE_OK)
        return gp_errorf(err, GP_E_NET, o->url, "%s",
                         x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
    return GP_OK;
}

/* One blocking request through its own multi handle (the host list, asked once). */
static gp_status fetch_one(const gp_history_opts *o, const char *path, xfer *x, long *status,
                           gp_err *err) {
    CURL *h = make_handle(o, path, x, false, err);
    if (!h)
        return err->code;
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

/* "DCGM_FI_DEV_GPU_UTIL for 8 hosts from gpu-a-01, 2026-01-01T00Z to 2026-01-02T04Z": the
 * query an error is about. */
static void describe(const chunk *c, const group *g, int q, char *out, size_t cap) {
    char from[24], to[24];
    time_t a = (time_t)(c->from / 1000), b = (time_t)(c->to / 1000);
    struct tm tm;
    strftime(from, sizeof from, "%Y-%m-%dT%HZ", gmtime_r(&a, &tm));
    strftime(to, sizeof to, "%Y-%m-%dT%HZ", gmtime_r(&b, &tm));
    if (g->n_hosts)
        snprintf(out, cap, "%s for %zu host%s from %.40s, %s to %s", queries[q].name, g->n_hosts,
                 g->n_hosts == 1 ? "" : "s", g->hosts[0], from, to);
    else
        snprintf(out, cap, "%s, %s to %s", queries[q].name, from, to);
}

/* A chunk's query is done: its answer's outcome, the rest of it parsed. Limits hit are said
 * with the query and the options that make queries smaller. */
static gp_status query_done(run *r, xfer *x, const group *g, CURLcode res, gp_err *err) {
    const gp_history_opts *o = r->o;
    gp_status s;
    gp_err e;
    if (x->parsing && x->ps.status != GP_OK) /* the parser stopped the transfer */
        s = (*err = x->ps.err, err->code);
    else
        s = transfer_status(o, x, res, err);
    if (s == GP_OK) {
        if (!x->parsing)
            stream_start(x); /* an empty body: the parser says so */
        s = gp_promrange_end(&x->ps, err);
    }
    if (s == GP_E_LIMIT) {
        char what[200];
        describe(x->c, g, x->q, what, sizeof what);
        e = *err;
        gp_errorf(err, GP_E_LIMIT, o->url,
                  "%.80s in %s: lower --hosts-per-query (%d) or "
                  "--max-points (%d)",
                  e.msg, what, o->hosts_per_query, o->max_points);
    }
    return s;
}

/* The hosts with GPU metrics in the window; none when the series carry no Hostname label.
 * With rec, the hosts of the recorded series too: a server may keep them longer than the raw;
 * without, only the raw series' (an import that reads those makes no node for a host it can
 * read nothing of). */
static gp_status list_hosts(run *r, bool rec, char ***hosts, size_t *n) {
    const gp_history_opts *o = r->o;
    xfer x = {0};
    /* 100,000 host names fit in a few MB: the list's answer is held, so it is capped low. */
    gp_buf_init(&x.body, o->max_bytes < (16u << 20) ? o->max_bytes : 16u << 20);
    gp_buf_init(&x.form, 1u << 20);
    label_form(o,
               rec ? "__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_PROF_GR_ENGINE_ACTIVE|"
                     "gpu:gpuplan_gpu_util:count5m|gpu:gpuplan_engine_active:count5m\""
                   : "__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_PROF_GR_ENGINE_ACTIVE\"",
               &x.form);
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
    x->r = r;
    x->q = (int)q;
    /* The most an honest answer holds: its series (4 aggregates of each GPU, 4 times the GPUs
     * planned for) at POINT_BYTES a point, and a MiB for the rest; an endless answer ends
     * there. */
    int64_t points = (c->to - c->from) / o->step_ms;
    double gpus = g->n_hosts ? (double)g->n_hosts * GPUS_PER_HOST : 64.0 * GPUS_PER_HOST;
    double cap = 4.0 * gpus * 4 * (double)points * POINT_BYTES + (1u << 20);
    x->cap = cap < (double)o->max_bytes ? (size_t)cap : o->max_bytes;
    gp_buf_init(&x->body, 0);
    gp_buf_init(&x->form, 4u << 20);
    gp_buf hosts, sel, text;
    gp_buf_init(&hosts, 4u << 20);
    gp_buf_init(&sel, 4u << 20);
    gp_buf_init(&text, 4u << 20);
    if (g->n_hosts)
        host_regex(g->hosts, g->n_hosts, &hosts);
    selector(o->match, hosts.data ? hosts.data : "", &sel);
    if (r->rec)
        recorded_text(&queries[q], sel.data ? sel.data : "{}", &text);
    else
        query_text(&queries[q], sel.data ? sel.data : "{}", (long)(o->step_ms / 1000), &text);
    CURL *tmp = curl_easy_init();
    char t[32];
    form_add(tmp, &x->form, "query", text.data ? text.data : "");
    /* Raw: each step's point 1 ms before its end. Recorded: 150 s past it (REC_LEAD_MS). */
    int64_t late = r->rec ? REC_LEAD_MS - GP_BUCKET_MS : -1;
    fmt_time(c->from + o->step_ms + late, t, sizeof t);
    form_add(tmp, &x->form, "start", t);
    fmt_time(c->to + late, t, sizeof t);
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
    CURL *h = make_handle(o, "/api/v1/query_range", x, true, r->err);
    if (!h) {
        xfer_done(x);
        r->status = r->err->code;
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

/* A chunk's writes, what its transaction holds. */
typedef struct chunk_write {
    run *r;
    chunk *c;
    group *g;
    size_t written, skipped;
} chunk_write;

/* Store the chunk's rows and move its marks. */
static gp_status chunk_write_tx(gp_store *st, void *arg, gp_err *err) {
    chunk_write *w = arg;
    run *r = w->r;
    chunk *c = w->c;
    group *g = w->g;
    gp_status rc;
    if (r->o->per_host)
        rc = hist_write_per_host(&r->hosts, &c->rows, &w->written, &w->skipped);
    else
        rc = gp_store_rollups_write(st, r->node_id, &c->rows, &w->written, &w->skipped, err);
    /* held: see the chunk loop */
    for (size_t h = 0; rc == GP_OK && !g->held && h < (g->n_hosts ? g->n_hosts : 1); h++) {
        long long id;
        bool has;
        const char *host = g->n_hosts ? g->hosts[h] : "";
        if (r->o->per_host && !g->n_hosts) {
            /* No Hostname list: the hosts are the GPUs' own (instance) labels, a mark each. */
            for (size_t i = 0; rc == GP_OK && i < c->rows.gpus.n_gpus; i++)
                if ((rc = mark_node(r, c->rows.gpus.gpus[i].host, true, &id, &has)) == GP_OK)
                    for (size_t q = 0; rc == GP_OK && q < NQ; q++)
                        rc = gp_store_history_mark_set(st, id, r->source, (gp_metric)queries[q].key,
                                                       "", c->to, err);
            break;
        }
        rc = mark_node(r, host, true, &id, &has);
        char source[sizeof r->source];
        mark_source(r, host, source, sizeof source);
        for (size_t q = 0; rc == GP_OK && q < NQ; q++)
            rc = gp_store_history_mark_set(st, id, source, (gp_metric)queries[q].key, host, c->to,
                                           err);
    }
    return rc;
}

/* Every query of the chunk is in: store its rows and move its marks, in one transaction. */
static gp_status chunk_commit(run *r, chunk *c, group *g) {
    gp_rollups_finish(&c->rows);
    /* A MIG GPU's utilization is its instances' (prom_range.h). */
    gp_status rc = gp_rollups_mig_rollup(&c->rows, r->err);
    chunk_write w = {r, c, g, 0, 0};
    if (rc == GP_OK)
        rc = gp_store_in_tx(r->st, chunk_write_tx, &w, r->err);
    if (rc != GP_OK)
        return rc;
    r->p.rows_written += w.written;
    r->p.rows_skipped += w.skipped;
    r->p.gpus += c->rows.gpus.n_gpus;
    r->p.chunks_done++;
    return GP_OK;
}

/* What a committed chunk's answers held that was not stored, added to the progress. */
static void tally(gp_history_progress *p, const gp_rollups *rows, bool held) {
    p->chunks_held += held;
    p->outside += rows->outside;
    p->duplicates += rows->duplicates;
    p->blanks += rows->blanks;
    p->incomplete += rows->incomplete;
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

/* Where the chunk starting at start ends: a span on, at most the window's end; a span of a day
 * or more ends at a UTC midnight, so each day of a series is sealed whole by one chunk. */
static int64_t chunk_end(const run *r, int64_t start) {
    int64_t end = start + r->span_ms;
    if (r->span_ms >= GP_DAY_MS && end - end % GP_DAY_MS > start)
        end -= end % GP_DAY_MS;
    return end < r->o->until_ms ? end : r->o->until_ms;
}

static size_t chunks_of(const run *r, const group *g) {
    size_t n = 0;
    for (int64_t at = g->from; at < r->o->until_ms; at = chunk_end(r, at))
        n++;
    return n;
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The window cut to whole hours (o into *whole), refused when the options cannot make one: an
 * hour's rollups come from one chunk, and the hour in progress is left to collection (or the
 * next import). */
static gp_status import_opts(const gp_history_opts *o, gp_history_opts *whole, gp_err *err) {
    if (o->step_ms < 1000 || o->step_ms % 1000 || GP_BUCKET_MS % o->step_ms)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--step must be whole seconds dividing 5 minutes (5m, 1m, 30s, ...)");
    if (o->max_points < 1 || o->hosts_per_query < 1 || o->concurrency < 1)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "max points, hosts per query and concurrency "
                         "must be at least 1");
    if (!(o->until_ms > o->since_ms))
        return gp_errorf(err, GP_E_INPUT, NULL, "the window is empty (--until before --since)");
    *whole = *o;
    whole->since_ms -= ((whole->since_ms % GP_HOUR_MS) + GP_HOUR_MS) % GP_HOUR_MS;
    whole->until_ms -= ((whole->until_ms % GP_HOUR_MS) + GP_HOUR_MS) % GP_HOUR_MS;
    if (whole->until_ms <= whole->since_ms)
        return gp_errorf(err, GP_E_INPUT, NULL, "the window holds no whole hour");
    return GP_OK;
}

/* One budget for the whole import: half for the rows of the chunks open at once, a quarter for
 * the series being received (and the one being parsed, about 40 times its text), the rest for
 * the answers' other bytes and libcurl. A chunk spans what its rows fit in (at GPUS_PER_HOST
 * GPUs a host, every metric each 5 minutes), at most the server's points limit per series;
 * whole hours when it allows, so an hour is written by one chunk. */
static void import_budget(run *r, size_t n_hosts) {
    const gp_history_opts *o = r->o;
    size_t total = o->max_memory ? o->max_memory : GP_HISTORY_MEMORY;
    r->rows_cap = total / 2 / (size_t)o->concurrency / ROW_BYTES;
    size_t series_cap = total / 4 / ((size_t)o->concurrency + 40);
    size_t want = (size_t)o->max_points * POINT_BYTES + (64u << 10);
    r->series_cap = want < series_cap ? want : series_cap;
    int64_t gpus = (int64_t)(n_hosts ? (size_t)o->hosts_per_query : 64) * GPUS_PER_HOST;
    int64_t buckets = (int64_t)r->rows_cap / (gpus * (int64_t)NQ);
    int64_t per_series = buckets * (GP_BUCKET_MS / o->step_ms);
    if (per_series > o->max_points)
        per_series = o->max_points;
    if (per_series < 1)
        per_series = 1;
    r->span_ms = per_series * o->step_ms;
    if (r->span_ms >= GP_HOUR_MS)
        r->span_ms -= r->span_ms % GP_HOUR_MS;
}

/* The chunks in flight and what picks the next: at most o->concurrency queries at once, each
 * open chunk one slot of `open`. */
typedef struct sched {
    run *r;
    group *groups;
    size_t n_groups, next_group;
    chunk *open;
    bool *busy;
    size_t max_open, in_flight;
    CURLM *multi;
    int (*progress)(const gp_history_progress *, void *);
    void *arg;
    double t0;
    bool stop;
} sched;

/* The host groups of hosts[0..n_hosts) (one group of everything without a host list), each
 * resuming at its marks; the chunks to do counted into the progress. */
static gp_status groups_make(run *r, char **hosts, size_t n_hosts, sched *s) {
    size_t hpq = (size_t)r->o->hosts_per_query;
    s->n_groups = n_hosts ? (n_hosts + hpq - 1) / hpq : 1;
    s->groups = gp_xcalloc(s->n_groups, sizeof *s->groups);
    gp_status rc = GP_OK;
    for (size_t i = 0; i < s->n_groups && rc == GP_OK; i++) {
        group *g = &s->groups[i];
        g->hosts = n_hosts ? hosts + i * hpq : NULL;
        g->n_hosts = n_hosts ? (n_hosts - i * hpq < hpq ? n_hosts - i * hpq : hpq) : 0;
        rc = group_marks(r, g);
        r->p.chunks_total += chunks_of(r, g);
    }
    return rc;
}

/* Open slot k on the next chunk of the next group that is idle and not done; false when every
 * group has a chunk open or is done. */
static bool chunk_open(sched *s, size_t k) {
    const run *r = s->r;
    size_t tries = 0;
    while (tries < s->n_groups &&
           (s->groups[s->next_group].open || s->groups[s->next_group].next >= r->o->until_ms)) {
        s->next_group = (s->next_group + 1) % s->n_groups;
        tries++;
    }
    if (tries == s->n_groups)
        return false;
    group *g = &s->groups[s->next_group];
    s->next_group = (s->next_group + 1) % s->n_groups;
    chunk *c = &s->open[k];
    memset(c, 0, sizeof *c);
    c->group = (size_t)(g - s->groups);
    c->from = g->next;
    c->to = chunk_end(r, g->next);
    gp_rollups_init(&c->rows, r->rows_cap);
    c->rows.from_ms = c->from; /* what the answers hold outside is dropped */
    c->rows.to_ms = c->to;
    g->open = true;
    s->busy[k] = true;
    return true;
}

/* Top up: queries of open chunks first, then a new chunk of the next idle group. */
static void top_up(sched *s) {
    run *r = s->r;
    size_t limit = (size_t)r->o->concurrency;
    for (size_t k = 0; k < s->max_open && s->in_flight < limit && !s->stop; k++) {
        chunk *c = &s->open[k];
        if (!s->busy[k] && !chunk_open(s, k))
            continue;
        while (c->started < (int)NQ && s->in_flight < limit && r->status == GP_OK) {
            chunk_start(r, c, &s->groups[c->group], s->multi, (size_t)c->started);
            if (r->status == GP_OK)
                s->in_flight++;
        }
        if (r->status != GP_OK)
            s->stop = true;
    }
}

/* Every query of chunk c is in: stored with its marks, its slot freed, the progress told. */
static gp_status chunk_finish(sched *s, chunk *c) {
    run *r = s->r;
    group *g = &s->groups[c->group];
    /* Answers that strayed outside the chunk's window: what lies inside is stored, but neither
     * this chunk nor a later one of its group is marked imported, so a re-run asks again. */
    g->held |= c->rows.outside > 0;
    gp_status st = chunk_commit(r, c, g);
    if (st == GP_OK)
        tally(&r->p, &c->rows, g->held);
    g->open = false;
    g->next = c->to;
    gp_rollups_done(&c->rows);
    s->busy[c - s->open] = false;
    r->p.seconds = mono_s() - s->t0;
    if (st == GP_OK && s->progress && s->progress(&r->p, s->arg))
        s->stop = true;
    return st;
}

/* A finished transfer: its answer's end parsed, its chunk finished when it was the last. */
static void query_finished(sched *s, CURLMsg *msg) {
    run *r = s->r;
    CURL *h = msg->easy_handle;
    xfer *x;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->status);
    CURLcode res = msg->data.result;
    curl_multi_remove_handle(s->multi, h);
    curl_easy_cleanup(h);
    x->h = NULL;
    s->in_flight--;
    r->p.queries++;
    r->p.bytes += x->received;
    chunk *c = x->c;
    gp_status st = query_done(r, x, &s->groups[c->group], res, r->err);
    xfer_done(x);
    c->done++;
    if (st == GP_OK && c->done == (int)NQ)
        st = chunk_finish(s, c);
    if (st != GP_OK) {
        r->status = st;
        s->stop = true;
    }
}

/* Stopped or done: whatever is still in flight is dropped, uncommitted. */
static void sched_drop(sched *s) {
    for (size_t k = 0; k < s->max_open; k++) {
        if (!s->busy[k])
            continue;
        for (int q = 0; q < s->open[k].started; q++) {
            xfer *x = &s->open[k].x[q];
            if (x->h) {
                curl_multi_remove_handle(s->multi, x->h);
                curl_easy_cleanup(x->h);
                x->h = NULL;
            }
            xfer_done(x);
        }
        gp_rollups_done(&s->open[k].rows);
    }
    curl_multi_cleanup(s->multi);
    free(s->open);
    free(s->busy);
    free(s->groups);
}

/* The chunks, a query of each in flight up to the concurrency, until done, stopped or failed. */
static void sched_run(sched *s) {
    s->max_open = (size_t)s->r->o->concurrency; /* chunks open at once, a query in flight each */
    s->open = gp_xcalloc(s->max_open, sizeof *s->open);
    s->busy = gp_xcalloc(s->max_open, sizeof *s->busy);
    s->multi = curl_multi_init();
    while (!s->stop) {
        top_up(s);
        if (s->stop || s->in_flight == 0)
            break;
        int still, left;
        curl_multi_perform(s->multi, &still);
        CURLMsg *msg;
        while (!s->stop && (msg = curl_multi_info_read(s->multi, &left)))
            if (msg->msg == CURLMSG_DONE)
                query_finished(s, msg);
        if (!s->stop && s->in_flight > 0)
            curl_multi_poll(s->multi, NULL, 0, 200, NULL);
    }
    sched_drop(s);
}

/* Which series the import reads (o->recorded, else detected), said in r->p.series; with the
 * recorded ones the step is 5 minutes and the window ends REC_LAG_MS before now at the latest
 * (where it then holds no whole hour, nothing is asked for: a later run takes it). Asked only
 * when there is something to import. --recorded yes asks too and refuses a window the recorded
 * series do not cover: the import's marks move on over what it reads, so a window read from
 * absent series would be lost to later runs as well. */
static gp_status choose_series(run *r, gp_history_opts *o) {
    const char *probe = "gpu:gpuplan_gpu_util:count5m";
    gp_history_progress *p = &r->p;
    if (o->recorded == GP_REC_NO) {
        snprintf(p->series, sizeof p->series, "raw series (--recorded no)");
        return GP_OK;
    }
    gp_rec_coverage cov;
    gp_err e;
    p->queries += 2;
    /* The last hour asked about is one the import reads: it ends REC_LAG_MS before now at the
     * latest, when the newest recorded points may not be there yet. */
    int64_t end = o->until_ms, lag = gp_now_ms() - REC_LAG_MS;
    if (gp_history_coverage(o, probe, o->since_ms + GP_HOUR_MS, end < lag ? end : lag, &cov, &e)) {
        if (o->recorded == GP_REC_YES) {
            *r->err = e;
            return e.code;
        }
        /* The check is a shortcut's: where it cannot be made, the raw queries still can. */
        snprintf(p->series, sizeof p->series,
                 "raw series (the check for the recorded %s failed: %.200s)", probe, e.msg);
        return GP_OK;
    }
    r->rec = cov.covered;
    if (!r->rec && o->recorded == GP_REC_YES)
        return gp_errorf(r->err, GP_E_INPUT, o->url,
                         "--recorded yes: %s; load and backfill "
                         "contrib/prometheus/gpuplan-history.rules.yml, or use --recorded auto",
                         cov.why);
    if (r->rec)
        snprintf(p->series, sizeof p->series,
                 "recorded series (%s%s and the rest of "
                 "contrib/prometheus/gpuplan-history.rules.yml)",
                 o->recorded == GP_REC_YES ? "--recorded yes; " : "", probe);
    else
        snprintf(p->series, sizeof p->series, "raw series (%s)", cov.why);
    if (!r->rec)
        return GP_OK;
    o->step_ms = GP_BUCKET_MS;
    int64_t last = gp_now_ms() - REC_LAG_MS;
    last -= ((last % GP_HOUR_MS) + GP_HOUR_MS) % GP_HOUR_MS;
    if (o->until_ms > last)
        o->until_ms = last > o->since_ms ? last : o->since_ms;
    return GP_OK;
}

gp_status gp_history_import(gp_store *st, long long node_id, const gp_history_opts *o,
                            int (*progress)(const gp_history_progress *, void *), void *arg,
                            gp_history_progress *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_history_opts whole;
    if (import_opts(o, &whole, err))
        return err->code;
    o = &whole;
    gp_http_global_init();
    run r = {.st = st, .node_id = node_id, .o = o, .err = err};
    snprintf(r.source, sizeof r.source, "%s %s", o->url, o->match ? o->match : "");
    if (auth_check(o, err))
        return err->code;
    sched s = {.r = &r, .progress = progress, .arg = arg, .t0 = mono_s()};
    char **hosts = NULL;
    size_t n_hosts = 0;
    /* Until the series are chosen, the hosts of either: a host whose raw series expired may
     * still have its recorded ones to import. */
    bool listed_rec = o->recorded != GP_REC_NO;
    if (list_hosts(&r, listed_rec, &hosts, &n_hosts)) {
        *out = r.p;
        return err->code;
    }
    r.hosts = (hist_hosts){st, o, n_hosts ? "Hostname" : "instance", 0, err};
    import_budget(&r, n_hosts);
    r.status = groups_make(&r, hosts, n_hosts, &s);
    if (r.status == GP_OK && r.p.chunks_total) {
        r.status = choose_series(&r, &whole);
        if (r.status == GP_OK && listed_rec && !r.rec) {
            /* The raw series after all: their hosts only, the groups and chunks again. */
            free(hosts);
            free(s.groups); /* sched_drop frees them: none held if the list below fails */
            hosts = NULL;
            n_hosts = 0;
            s.groups = NULL;
            s.n_groups = 0;
            r.p.chunks_total = 0;
            r.status = list_hosts(&r, false, &hosts, &n_hosts);
            r.hosts.label = n_hosts ? "Hostname" : "instance";
            if (r.status == GP_OK) {
                import_budget(&r, n_hosts);
                r.status = groups_make(&r, hosts, n_hosts, &s);
            }
        } else if (r.rec) { /* a 5-minute step, and the window may end earlier: the chunks again */
            import_budget(&r, n_hosts);
            r.p.chunks_total = 0;
            for (size_t i = 0; i < s.n_groups; i++)
                r.p.chunks_total += chunks_of(&r, &s.groups[i]);
        }
    }
    r.p.hosts = n_hosts;
    s.stop = r.status != GP_OK;
    sched_run(&s);
    free(hosts);
    r.p.seconds = mono_s() - s.t0;
    r.p.nodes_created = r.hosts.nodes_created;
    *out = r.p;
    return r.status;
}

/* ---- queries of capacity --prometheus ------------------------------------------------------- */

/* The calls of one gp_history_query: the answers held against one budget, each within `each`
 * bytes, at most o->concurrency in flight through one multi handle. */
typedef struct calls_run {
    const gp_history_opts *o;
    gp_prom_call *calls;
    size_t n, next, in_flight, done;
    xfer *xs;
    budget mem;
    size_t each;
    CURLM *multi;
    CURL *tmp; /* for curl_easy_escape */
    gp_err *err;
} calls_run;

/* calls[next] sent: its form (the query, its time or range) posted through a new handle. */
static gp_status call_start(calls_run *q) {
    gp_prom_call *c = &q->calls[q->next];
    xfer *x = &q->xs[q->next];
    gp_buf_init(&x->body, q->each);
    gp_buf_init(&x->form, 4u << 20);
    x->q = (int)q->next;
    x->mem = &q->mem;
    q->next++; /* from here its buffers are freed at the end, sent or not */
    char t[32];
    form_add(q->tmp, &x->form, "query", c->query);
    fmt_time(c->time_ms, t, sizeof t);
    form_add(q->tmp, &x->form, c->range ? "start" : "time", t);
    if (c->range) {
        fmt_time(c->end_ms, t, sizeof t);
        form_add(q->tmp, &x->form, "end", t);
        snprintf(t, sizeof t, "%llds", (long long)(c->step_ms / 1000));
        form_add(q->tmp, &x->form, "step", t);
        form_add(q->tmp, &x->form, "nocache", "1");
    }
    x->h = make_handle(q->o, c->range ? "/api/v1/query_range" : "/api/v1/query", x, true, q->err);
    if (!x->h)
        return q->err->code;
    curl_multi_add_handle(q->multi, x->h);
    q->in_flight++;
    return GP_OK;
}

/* A finished call: its status, and its answer moved to the caller, still counted against the
 * budget while the batch is held; the transfer's own buffers go. */
static gp_status call_finished(calls_run *q, CURLMsg *msg) {
    const gp_history_opts *o = q->o;
    xfer *x;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
    gp_prom_call *c = &q->calls[x->q];
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &c->http_status);
    CURLcode res = msg->data.result;
    curl_multi_remove_handle(q->multi, x->h);
    curl_easy_cleanup(x->h);
    x->h = NULL;
    q->in_flight--;
    q->done++;
    gp_status rc = transfer_status(o, x, res, q->err);
    if (rc == GP_E_LIMIT) {
        gp_err e = *q->err;
        gp_errorf(q->err, GP_E_LIMIT, o->url,
                  "%.120s (query %zu of %zu: %.40s...): lower "
                  "--hosts-per-query (%d)",
                  e.msg, (size_t)x->q + 1, q->n, c->query, o->hosts_per_query);
    }
    gp_buf_done(&c->body);
    c->body = x->body;
    memset(&x->body, 0, sizeof x->body);
    x->mem = NULL;
    xfer_done(x);
    return rc;
}

gp_status gp_history_query(const gp_history_opts *o, gp_prom_call *calls, size_t n, gp_err *err) {
    gp_http_global_init();
    if (auth_check(o, err))
        return err->code;
    /* The answers are held until the caller parses them (about 40 times their size as a cJSON
     * tree, one at a time): all of them together within a quarter of the budget, each within
     * a fortieth of the rest. */
    size_t total = o->max_memory ? o->max_memory : GP_HISTORY_MEMORY;
    calls_run q = {.o = o, .calls = calls, .n = n, .mem = {0, total / 4}, .err = err};
    q.each = total / 2 / 40 < o->max_bytes ? total / 2 / 40 : o->max_bytes;
    q.xs = gp_xcalloc(n ? n : 1, sizeof *q.xs);
    for (size_t i = 0; i < n; i++) {
        gp_buf_init(&calls[i].body, q.each);
        calls[i].http_status = 0;
    }
    q.multi = curl_multi_init();
    q.tmp = curl_easy_init();
    size_t limit = (size_t)(o->concurrency > 0 ? o->concurrency : 1);
    gp_status rc =
        q.multi && q.tmp ? GP_OK : gp_errorf(err, GP_E_NET, o->url, "cannot start libcurl");
    while (rc == GP_OK && q.done < n) {
        while (rc == GP_OK && q.next < n && q.in_flight < limit)
            rc = call_start(&q);
        if (rc != GP_OK)
            break;
        int still, left;
        curl_multi_perform(q.multi, &still);
        CURLMsg *msg;
        while (rc == GP_OK && (msg = curl_multi_info_read(q.multi, &left)))
            if (msg->msg == CURLMSG_DONE)
                rc = call_finished(&q, msg);
        if (rc == GP_OK && q.in_flight > 0)
            curl_multi_poll(q.multi, NULL, 0, 200, NULL);
    }
    for (size_t i = 0; i < q.next; i++) {
        if (q.xs[i].h) {
            curl_multi_remove_handle(q.multi, q.xs[i].h);
            curl_easy_cleanup(q.xs[i].h);
        }
        xfer_done(&q.xs[i]);
    }
    if (q.tmp)
        curl_easy_cleanup(q.tmp);
    if (q.multi)
        curl_multi_cleanup(q.multi);
    free(q.xs);
    return rc;
}

/* The labels that name one GPU across its series (a pod's labels may change, the GPU not). */
#define GPU_LABELS "Hostname, instance, UUID, gpu"

gp_status gp_history_coverage(const gp_history_opts *o, const char *recorded, int64_t first_ms,
                              int64_t last_ms, gp_rec_coverage *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_buf sel, text;
    gp_buf_init(&sel, 1u << 16);
    gp_buf_init(&text, 1u << 17);
    gp_history_selector(o->match, NULL, 0, &sel);
    const char *s = sel.data ? sel.data : "{}";
    /* The GPUs with a recorded point and with a raw GPU_UTIL in the hour before t, each a
     * point tagged "r" and "d" (none when there are none). */
    gp_buf_printf(&text,
                  "label_replace(count(count by (%s) (count_over_time(%s%s[1h]))), \"%s\", \"r\", "
                  "\"\", \"\") or label_replace(count(count by (%s) "
                  "(count_over_time(DCGM_FI_DEV_GPU_UTIL%s[1h]))), \"%s\", \"d\", \"\", \"\")",
                  GPU_LABELS, recorded, s, GP_RANGE_AGG_LABEL, GPU_LABELS, s, GP_RANGE_AGG_LABEL);
    /* The hours asked about: evenly spread from first_ms to last_ms, so that a stretch of the
     * window where only the raw series are (rules loaded later, a backfill left short) shows. */
    gp_prom_call calls[GP_COVERAGE_PROBES] = {0};
    int64_t span = last_ms > first_ms ? last_ms - first_ms : 0;
    size_t n = span >= (GP_COVERAGE_PROBES - 1) * GP_HOUR_MS ? GP_COVERAGE_PROBES
               : span >= GP_HOUR_MS                          ? 2
                                                             : 1;
    for (size_t i = 0; i < n; i++)
        calls[i] = (gp_prom_call){.query = text.data,
                                  .time_ms = first_ms +
                                             (n > 1 ? span / (int64_t)(n - 1) * (int64_t)i : 0)};
    if (n > 1)
        calls[n - 1].time_ms = last_ms;
    gp_status rc = text.data ? gp_history_query(o, calls, n, err)
                             : gp_errorf(err, GP_E_LIMIT, o->url, "the selector is too long");
    bool some = false, short_of = false;
    for (size_t i = 0; i < n; i++) {
        double rec = 0, raw = 0;
        gp_promvec v;
        gp_promvec_init(&v, 16);
        if (rc == GP_OK)
            rc = gp_promvec_parse(calls[i].body.data ? calls[i].body.data : "", calls[i].body.len,
                                  o->url, calls[i].http_status, NULL, &v, err);
        for (size_t k = 0; rc == GP_OK && k < v.n; k++)
            *(v.it[k].agg[0] == 'd' ? &raw : &rec) += v.it[k].v;
        gp_promvec_done(&v);
        gp_buf_done(&calls[i].body);
        some |= rec > 0;
        if (rc == GP_OK && rec < raw && !short_of) /* the first hour they fall short in */
            short_of = true, out->rec = rec, out->raw = raw, out->at_ms = calls[i].time_ms;
    }
    gp_buf_done(&text);
    gp_buf_done(&sel);
    out->covered = rc == GP_OK && some && !short_of;
    if (rc == GP_OK && !some) {
        snprintf(out->why, sizeof out->why,
                 "no GPU has the recorded %.60s in the window (%zu hours asked about)", recorded,
                 n);
    } else if (rc == GP_OK && short_of) {
        char when[32];
        time_t t = (time_t)(out->at_ms / 1000);
        struct tm tm;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
        snprintf(out->why, sizeof out->why,
                 "the recorded %.60s do not cover the window: in the hour to %s, %.0f GPUs "
                 "had them and %.0f the raw series",
                 recorded, when, out->rec, out->raw);
    }
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
    gp_buf path;
    gp_buf_init(&path, 4096);
    label_form(o, extra, &x.form);
    gp_buf_printf(&path, "/api/v1/label/%s/values", label);
    long status = 0;
    gp_status rc = path.data ? fetch_one(o, path.data, &x, &status, err)
                             : gp_errorf(err, GP_E_NET, o->url, "cannot start a transfer");
    if (rc == GP_OK)
        rc = gp_promlabels_parse(x.body.data ? x.body.data : "", x.body.len, o->url, status,
                                 MAX_HOSTS, values, n, err);
    gp_buf_done(&path);
    xfer_done(&x);
    return rc;
}

gp_status gp_history_hosts(const gp_history_opts *o, char ***hosts, size_t *n, gp_err *err) {
    gp_http_global_init();
    *hosts = NULL;
    *n = 0;
    if (auth_check(o, err))
        return err->code;
    run r = {.o = o, .err = err};
    return list_hosts(&r, true, hosts, n);
}
