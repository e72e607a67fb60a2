/* The collector: one libcurl multi handle, a bounded number of transfers in flight, topped up
 * as each finishes (docs/development.md, Collector). Only src/collect calls curl. */
#include "gpuplan/clock.h"
#include "gpuplan/collect.h"
#include "gpuplan/store_seal.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/text.h"
#include "gpuplan/url.h"
#include "gpuplan/xmem.h"
#include "http.h"

extern char **environ;

void gp_collect_opts_init(gp_collect_opts *o) {
    memset(o, 0, sizeof *o);
    o->connect_timeout_ms = 3000;
    o->total_timeout_ms = 10000;
    o->max_bytes = 16u << 20;
    o->concurrency = 64;
    o->max_in_flight_bytes = 128u << 20;
    o->write_retries = 3;
    o->nvsmi_path = "nvidia-smi";
    o->ipmitool_path = "ipmitool";
    o->raw_keep_ms = 48L * 3600 * 1000;
    o->rollup_keep_ms = 365LL * 24 * 3600 * 1000;
}

void gp_source_result_done(gp_source_result *r) {
    gp_samples_done(&r->samples);
}

/* What a Prometheus source asks for: each canonical metric as a query on the fleet's own
 * metrics engine. The selector narrows every query to the node's part of the fleet. */
static const struct prom_query {
    const char *expr; /* each "SEL" becomes the source's selector */
    gp_metric metric;
    double scale;
} prom_queries[] = {
    {"DCGM_FI_DEV_GPU_UTILSEL", GP_M_GPU_UTIL, 1},
    {"DCGM_FI_DEV_FB_USEDSEL", GP_M_MEM_USED_MIB, 1},
    {"DCGM_FI_DEV_FB_USEDSEL + DCGM_FI_DEV_FB_FREESEL", GP_M_MEM_TOTAL_MIB, 1},
    {"DCGM_FI_DEV_POWER_USAGESEL", GP_M_POWER_W, 1},
    {"DCGM_FI_DEV_GPU_TEMPSEL", GP_M_TEMP_C, 1},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTIONSEL", GP_M_ENERGY_J, 1e-3},
    {"DCGM_FI_DEV_SM_CLOCKSEL", GP_M_SM_CLOCK_MHZ, 1},
    /* Under MIG there is no GPU_UTIL: each instance's graphics engine activity (a ratio)
     * stands in, only where the GPU reports no GPU_UTIL, as the dcgm parser does. */
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVESEL unless on(UUID, gpu) DCGM_FI_DEV_GPU_UTILSEL", GP_M_GPU_UTIL,
     100},
};
#define N_PROM_QUERIES (sizeof prom_queries / sizeof prom_queries[0])

/* What every transfer of one fetch shares: the bytes buffered by all of them, against a
 * budget, so memory does not grow with concurrency x the response cap. */
typedef struct budget {
    size_t in_flight, limit;
    size_t running;
} budget;

typedef struct transfer {
    size_t source;
    int query; /* which of its source's transfers: for Prometheus, the index into prom_queries */
    char url[2048];
    gp_buf body;
    bool capped, over_budget, got_byte;
    CURL *h;            /* while in flight */
    int64_t started_ms; /* when it was added */
    budget *mem;
    struct curl_slist *headers;
} transfer;

static size_t on_body(char *data, size_t size, size_t n, void *arg) {
    transfer *t = arg;
    size_t len = size * n;
    t->got_byte = true;
    /* Over the budget, a response past its fair share is dropped: small ones go on, so the
     * total stays under twice the budget and healthy nodes are not the ones that pay. */
    budget *m = t->mem;
    size_t fair = m->limit / (m->running ? m->running : 1);
    if (m->in_flight + len > m->limit && t->body.cap + len > fair) {
        t->over_budget = true;
        return 0;
    }
    size_t before = t->body.cap;
    if (gp_buf_add(&t->body, data, len) != GP_OK) {
        t->capped = true;
        return 0; /* the cap, enforced here: MAXFILESIZE misses chunked bodies on 7.88 */
    }
    m->in_flight += t->body.cap - before;
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg) {
    (void)data;
    ((transfer *)arg)->got_byte = true;
    return size * n;
}

static void set_error(gp_source_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_error(gp_source_result *r, const char *fmt, ...) {
    if (r->status == GP_OK) { /* the first error of a source is the one reported */
        r->status = GP_E_NET;
        char raw[sizeof r->error];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* A server's words: one line, each control character a space. */
        gp_text_clean_with(raw, r->error, sizeof r->error, &(gp_text_rules){.mark = " "});
    }
}

gp_status gp_collect_token_file_check(const char *path, gp_err *err) {
    struct stat sb;
    if (stat(path, &sb) != 0 || access(path, R_OK) != 0)
        return gp_errorf(err, GP_E_IO, path, "cannot read the token file: %s", strerror(errno));
    if (sb.st_mode & (S_IRGRP | S_IROTH))
        return gp_errorf(err, GP_E_INPUT, path,
                         "the token file is readable by others (mode %03o): chmod 600 it",
                         (unsigned)(sb.st_mode & 0777));
    return GP_OK;
}

/* A transfer's handle; NULL, with r's error set, when the source cannot be fetched. */
static CURL *make_handle(const gp_source_cfg *src, transfer *t, const gp_collect_opts *o,
                         gp_source_result *r) {
    gp_err e;
    if (gp_url_check_source(src->url, &e)) { /* a row stored before URLs were checked */
        set_error(r, "%s", e.msg);
        return NULL;
    }
    CURL *h = gp_http_handle(t->url, 3, o->connect_timeout_ms, o->total_timeout_ms, o->max_bytes,
                             on_body, t, "gpuplan-collect");
    if (!h) {
        set_error(r, "cannot start a transfer");
        return NULL;
    }
    /* Credentials come from ~/.netrc or a token file, never from argv or the database: the
     * token through the one reader every transfer uses (http.c). */
    if (gp_http_auth(&t->headers, src->token_file, NULL, &e)) {
        set_error(r, "%s: %s", e.where, e.msg);
        curl_easy_cleanup(h);
        curl_slist_free_all(t->headers);
        t->headers = NULL;
        return NULL;
    }
    curl_easy_setopt(h, CURLOPT_PRIVATE, t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    t->headers = curl_slist_append(t->headers, "Accept: text/plain, application/json");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, t->headers);
    if (src->cacert[0])
        curl_easy_setopt(h, CURLOPT_CAINFO, src->cacert);
    if (src->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    return h;
}

/* tpl with every "SEL" replaced by sel. */
static void expand(const char *tpl, const char *sel, char *out, size_t cap) {
    size_t n = 0, sl = strlen(sel);
    for (const char *p = tpl; *p && n + 1 < cap;) {
        if (!strncmp(p, "SEL", 3)) {
            size_t c = sl < cap - 1 - n ? sl : cap - 1 - n;
            memcpy(out + n, sel, c);
            n += c;
            p += 3;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
}

static void url_encode(const char *in, char *out, size_t cap) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && n + 4 < cap; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
}

/* The per-transfer limits of a cycle, all derived from its --timeout (docs/telemetry.md). */
typedef struct limits {
    int64_t cycle_ms, first_byte_ms;
    long connect_ms, low_speed_s;
} limits;

static void limits_of(const gp_collect_opts *o, limits *l) {
    l->cycle_ms = o->total_timeout_ms > 0 ? o->total_timeout_ms : 1;
    /* Half the cycle for a first byte: a slow exporter (3 s at the default 10 s) answers, a
     * hung one gives its slot up early enough for the ones queued behind it. */
    l->first_byte_ms = l->cycle_ms / 2 > 250 ? l->cycle_ms / 2 : 250;
    int64_t quarter = l->cycle_ms / 4 > 250 ? l->cycle_ms / 4 : 250;
    l->connect_ms = (long)(o->connect_timeout_ms < quarter ? o->connect_timeout_ms : quarter);
    /* libcurl's low-speed clock runs from the start, first byte included: it must not be
     * shorter than the first-byte limit (at a quarter it cut a 3 s exporter at 2 s), so it
     * is a second longer: it ends a body that drips, the first-byte limit a silent node. */
    l->low_speed_s = (long)(l->first_byte_ms / 1000 + 1);
}

/* ---- the source kinds: how each is fetched and how its answer is read ------------------- */

/* The URL of a source's transfer q: the source's own, or for Prometheus, query q of
 * prom_queries with the source's selector on its instant-query API. */
static void source_url(const gp_source_cfg *src, size_t q, char *out, size_t cap) {
    (void)q;
    snprintf(out, cap, "%s", src->url);
}

static void prometheus_url(const gp_source_cfg *src, size_t q, char *out, size_t cap) {
    char expr[2048], enc[6144];
    expand(prom_queries[q].expr, src->match, expr, sizeof expr);
    url_encode(expr, enc, sizeof enc);
    size_t bl = strlen(src->url);
    snprintf(out, cap, "%.*s/api/v1/query?query=%s",
             (int)(bl && src->url[bl - 1] == '/' ? bl - 1 : bl), src->url, enc);
}

/* One Prometheus query's answer (transfer t's query of prom_queries). */
static gp_status read_prometheus(const gp_source_cfg *src, const transfer *t, long status,
                                 gp_source_result *r, gp_err *err) {
    const struct prom_query *q = &prom_queries[t->query];
    return gp_promapi_parse(t->body.data ? t->body.data : "", t->body.len, src->url, status,
                            q->metric, q->scale, &r->samples, err);
}

static gp_status read_dcgm(const gp_source_cfg *src, const transfer *t, long status,
                           gp_source_result *r, gp_err *err) {
    (void)status;
    return gp_dcgm_parse(t->body.data ? t->body.data : "", t->body.len, src->url, &r->samples, err);
}

static gp_status read_redfish(const gp_source_cfg *src, const transfer *t, long status,
                              gp_source_result *r, gp_err *err) {
    (void)status;
    double w = 0;
    gp_status st =
        gp_redfish_parse(t->body.data ? t->body.data : "", t->body.len, src->url, &w, err);
    if (st == GP_OK) {
        r->node_power_w = w;
        r->has_node_power = true;
        st = gp_samples_add(&r->samples, -1, GP_M_NODE_POWER_W, w, 0, -1, err);
    }
    return st;
}

static gp_status read_nvsmi(const char *out, size_t len, gp_source_result *r, gp_err *err) {
    char host[128] = "";
    gethostname(host, sizeof host - 1);
    return gp_nvsmi_parse(out, len, "nvidia-smi", NULL, host, &r->samples, err);
}

static gp_status read_ipmi(const char *out, size_t len, gp_source_result *r, gp_err *err) {
    gp_dcmi_reading *d = &r->dcmi;
    gp_status st = gp_dcmi_parse(out, len, "ipmitool", d, err);
    if (st != GP_OK)
        return st;
    if (!d->active)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "the BMC says \"Power reading state is: deactivated\": no reading "
                         "(its %g W is not a measurement)",
                         d->watts);
    st = gp_samples_add(&r->samples, -1, GP_M_NODE_POWER_W, d->watts, 0, -1, err);
    if (st == GP_OK)
        r->node_power_w = d->watts, r->has_node_power = true;
    return st;
}

static const char *nvsmi_program(const gp_collect_opts *o) {
    return o->nvsmi_path;
}

static const char *ipmi_program(const gp_collect_opts *o) {
    return o->ipmitool_path;
}

/* Each source kind, indexed by gp_source_kind: fetched over HTTP (transfers > 0, url_of,
 * read_body) or run here as a command (program, read_output). A new kind is one row here. */
static const struct source_ops {
    size_t transfers; /* HTTP transfers a cycle; 0 for a command run here */
    bool any_status;  /* HTTP: the body is read whatever the status (it carries the error) */
    void (*url_of)(const gp_source_cfg *src, size_t q, char *out, size_t cap);
    gp_status (*read_body)(const gp_source_cfg *src, const transfer *t, long status,
                           gp_source_result *r, gp_err *err);
    const char *tool;                                 /* a command: its name in messages */
    const char *(*program)(const gp_collect_opts *o); /* the command's path */
    const char *args[4];                              /* its arguments, NULL-terminated */
    const char *failed; /* what a failed run says, with the likely cause */
    gp_status (*read_output)(const char *out, size_t len, gp_source_result *r, gp_err *err);
} source_kinds[] = {
    [GP_SRC_DCGM] = {.transfers = 1, .url_of = source_url, .read_body = read_dcgm},
    [GP_SRC_PROMETHEUS] = {.transfers = N_PROM_QUERIES,
                           .any_status = true,
                           .url_of = prometheus_url,
                           .read_body = read_prometheus},
    [GP_SRC_NVSMI] = {.tool = "nvidia-smi",
                      .program = nvsmi_program,
                      .args = {"--query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,"
                               "memory.total,power.draw,temperature.gpu,clocks.sm,power.limit",
                               "--format=csv,nounits"},
                      .failed = "nvidia-smi failed (is a driver loaded?)",
                      .read_output = read_nvsmi},
    [GP_SRC_REDFISH] = {.transfers = 1, .url_of = source_url, .read_body = read_redfish},
    [GP_SRC_IPMI] = {.tool = "ipmitool",
                     .program = ipmi_program,
                     .args = {"dcmi", "power", "reading"},
                     .failed = "ipmitool failed (is the ipmi_si/ipmi_devintf driver loaded, "
                               "and may this user open /dev/ipmi0?)",
                     .read_output = read_ipmi},
};
_Static_assert(sizeof source_kinds / sizeof source_kinds[0] == GP_SRC_IPMI + 1,
               "a row for every gp_source_kind");

/* A command run here rather than an HTTP transfer. */
static bool is_local(gp_source_kind k) {
    return source_kinds[k].transfers == 0;
}

static void finish(const gp_source_cfg *src, transfer *t, CURLcode rc, long status,
                   gp_source_result *r, const char *errbuf, const limits *lim) {
    r->bytes += t->body.len;
    if (t->over_budget) {
        set_error(r, "response dropped: the cycle's %zu MiB for responses in flight were spent",
                  t->mem->limit >> 20);
        return;
    }
    if (t->capped || rc == CURLE_FILESIZE_EXCEEDED) {
        set_error(r, "response larger than the cap of %zu bytes", t->body.limit);
        return;
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) { /* which limit: each says so, and "timed out" */
        curl_off_t connected = 0;
        curl_easy_getinfo(t->h, CURLINFO_CONNECT_TIME_T, &connected);
        if (!connected && !t->got_byte)
            set_error(r,
                      "no connection within %.1f s (the connect limit: a quarter of "
                      "--timeout, at most 3 s; timed out)",
                      lim->connect_ms / 1000.0);
        else if (!t->got_byte)
            set_error(r,
                      "no first byte within %.1f s (the first-byte limit: half of "
                      "--timeout; timed out)",
                      lim->first_byte_ms / 1000.0);
        else if (strstr(errbuf, "too slow"))
            set_error(r,
                      "slower than 1 KiB/s for %ld s (the low-speed limit: half of "
                      "--timeout and a second; timed out)",
                      lim->low_speed_s);
        else
            set_error(r, "the cycle's --timeout of %.1f s ran out (timed out)",
                      lim->cycle_ms / 1000.0);
        return;
    }
    if (rc != CURLE_OK) {
        set_error(r, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        return;
    }
    const struct source_ops *ops = &source_kinds[src->kind];
    if (!ops->any_status && (status < 200 || status >= 300)) {
        set_error(r, "HTTP %ld", status);
        return;
    }
    gp_err err;
    gp_err_clear(&err);
    if (ops->read_body(src, t, status, r, &err) != GP_OK)
        set_error(r, "%s", err.msg);
}

/* The local nvidia-smi and ipmitool run beside the HTTP transfers, under the same cycle
 * deadline, in a process group of their own so that a timeout kills a wrapper script's
 * children too. */
typedef struct nvsmi_run {
    size_t source;
    gp_source_kind kind;
    pid_t pid; /* 0 when it could not start or has been reaped */
    int fd;    /* the read end of its stdout; -1 once at end of file */
    int wstatus;
    bool capped;
    gp_buf out;
} nvsmi_run;

static void nvsmi_start(nvsmi_run *v, const gp_collect_opts *o, gp_source_result *r) {
    const struct source_ops *ops = &source_kinds[v->kind];
    char *argv[6] = {(char *)ops->program(o)};
    for (size_t i = 0; i < 4 && ops->args[i]; i++)
        argv[i + 1] = (char *)ops->args[i];
    const char *tool = ops->tool;
    v->pid = 0;
    v->fd = -1;
    gp_buf_init(&v->out, o->max_bytes);
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        set_error(r, "pipe: %s", strerror(errno));
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        set_error(r, "cannot run %s: %s", tool, strerror(rc));
        return;
    }
    fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
    fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
    v->pid = pid;
    v->fd = pipefd[0];
}

/* Read what is there; at end of file (or past the cap) reap the child if it has exited.
 * Returns true while it still runs or has output to come. */
static bool nvsmi_poll(nvsmi_run *v) {
    while (v->fd >= 0) {
        char chunk[8192];
        ssize_t n = read(v->fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        if (n > 0 && gp_buf_add(&v->out, chunk, (size_t)n) == GP_OK)
            continue;
        v->capped = n > 0;
        close(v->fd);
        v->fd = -1;
    }
    if (v->pid > 0 && (v->fd < 0 || v->capped)) {
        if (v->capped)
            kill(-v->pid, SIGKILL);
        pid_t w = waitpid(v->pid, &v->wstatus, WNOHANG);
        if (w == v->pid || (w < 0 && errno == ECHILD))
            v->pid = 0;
    }
    return v->pid > 0 || v->fd >= 0;
}

/* The cycle's time is up (or the run ended): kill the group if it still runs, then judge. */
static void nvsmi_finish(nvsmi_run *v, gp_source_result *r) {
    bool timed_out = v->pid > 0 || v->fd >= 0;
    if (v->pid > 0) {
        kill(-v->pid, SIGKILL); /* the whole group: a wrapper's children too */
        waitpid(v->pid, &v->wstatus, 0);
        v->pid = 0;
    }
    if (v->fd >= 0) {
        close(v->fd);
        v->fd = -1;
    }
    r->bytes += v->out.len;
    if (r->status != GP_OK) { /* it never started: the error is set */
        gp_buf_done(&v->out);
        return;
    }
    const struct source_ops *ops = &source_kinds[v->kind];
    gp_err err;
    gp_err_clear(&err);
    if (timed_out)
        set_error(r, "%s did not answer in time", ops->tool);
    else if (v->capped)
        set_error(r, "%s printed more than the cap", ops->tool);
    else if (!WIFEXITED(v->wstatus) || WEXITSTATUS(v->wstatus) != 0)
        set_error(r, "%s", ops->failed);
    else if (ops->read_output(v->out.data ? v->out.data : "", v->out.len, r, &err) != GP_OK)
        set_error(r, "%s", err.msg);
    gp_buf_done(&v->out);
}

/* Stop a transfer still in flight and free what it holds. */
static void drop_transfer(CURLM *multi, transfer *x, budget *mem) {
    mem->in_flight -= x->body.cap;
    gp_buf_done(&x->body); /* memory does not build up over a large cycle */
    curl_multi_remove_handle(multi, x->h);
    curl_easy_cleanup(x->h);
    x->h = NULL;
    curl_slist_free_all(x->headers);
    x->headers = NULL;
    mem->running--;
}

static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* One fetch cycle in flight: the transfers queued and running on one multi handle, the local
 * programs running beside them, and the cycle's deadline and limits. */
typedef struct fetch {
    const gp_source_cfg *src;
    size_t n;
    const gp_collect_opts *o;
    gp_source_result *results;
    limits lim;
    int64_t deadline;
    budget mem;
    transfer *t; /* nt of them, started in order: t[0..next) have been */
    size_t nt, next;
    char *errbufs; /* CURL_ERROR_SIZE for each transfer */
    int limit;     /* transfers in flight at most */
    CURLM *multi;
    nvsmi_run *vs; /* the local programs, nv of them */
    size_t nv;
    struct curl_waitfd *wfds; /* their output, waited on beside the transfers */
} fetch;

/* Every remote source's transfers into f->t. Nodes that timed out last cycle (every error of
 * a transfer that held its slot to a deadline says "timed out") go last, so they cannot take
 * the slots of the healthy ones again. Otherwise node order. */
static void queue_transfers(fetch *f) {
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < f->n; i++) {
            if (is_local(f->src[i].kind) || f->src[i].hung_last != (pass == 1))
                continue;
            size_t count = source_kinds[f->src[i].kind].transfers;
            for (size_t q = 0; q < count; q++, k++) {
                transfer *x = &f->t[k];
                x->source = i;
                x->query = (int)q;
                x->mem = &f->mem;
                gp_buf_init(&x->body, f->o->max_bytes);
                source_kinds[f->src[i].kind].url_of(&f->src[i], q, x->url, sizeof x->url);
            }
        }
    }
}

/* Results cleared, the local programs started, the transfers queued: f ready to run. One
 * deadline for the whole cycle, local nvidia-smi included. Inside it, each transfer has its
 * own, well short of it: a connect, a first byte and a low-speed limit, so hung or dripping
 * nodes free their slots early and the healthy ones behind them get theirs. */
static void fetch_begin(fetch *f, const gp_source_cfg *src, size_t n, const gp_collect_opts *o,
                        gp_source_result *results) {
    memset(f, 0, sizeof *f);
    f->src = src, f->n = n, f->o = o, f->results = results;
    limits_of(o, &f->lim);
    f->deadline = gp_now_ms() + f->lim.cycle_ms;
    for (size_t i = 0; i < n; i++) {
        memset(&results[i], 0, sizeof results[i]);
        gp_samples_init(&results[i].samples, 1u << 22);
        f->nt += source_kinds[src[i].kind].transfers;
        f->nv += is_local(src[i].kind);
    }
    f->vs = gp_xcalloc(f->nv ? f->nv : 1, sizeof *f->vs);
    for (size_t i = 0, j = 0; i < n; i++)
        if (is_local(src[i].kind)) {
            f->vs[j].source = i;
            f->vs[j].kind = src[i].kind;
            nvsmi_start(&f->vs[j++], o, &results[i]);
        }
    f->mem.limit = o->max_in_flight_bytes > o->max_bytes ? o->max_in_flight_bytes : o->max_bytes;
    f->t = gp_xcalloc(f->nt ? f->nt : 1, sizeof *f->t);
    queue_transfers(f);
    f->multi = curl_multi_init();
    curl_multi_setopt(f->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    f->errbufs = gp_xcalloc(f->nt ? f->nt : 1, CURL_ERROR_SIZE);
    f->limit = o->concurrency < 1                            ? 1
               : o->concurrency > GP_COLLECT_MAX_CONCURRENCY ? GP_COLLECT_MAX_CONCURRENCY
                                                             : o->concurrency;
    f->wfds = gp_xcalloc(f->nv ? f->nv : 1, sizeof *f->wfds);
}

/* Queued transfers started while slots are free, each with what is left of the cycle. */
static void start_transfers(fetch *f, int64_t now) {
    while (f->next < f->nt && f->mem.running < (size_t)f->limit) {
        int64_t left = f->deadline - now;
        transfer *x = &f->t[f->next];
        gp_source_result *r = &f->results[x->source];
        f->next++;
        if (left <= 0) {
            set_error(r, "the cycle's time ran out before this source's turn");
            continue;
        }
        CURL *h = make_handle(&f->src[x->source], x, f->o, r);
        if (!h)
            continue;
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)min64(f->lim.connect_ms, left));
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)left);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, f->lim.low_speed_s);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, f->errbufs + (size_t)(x - f->t) * CURL_ERROR_SIZE);
        x->h = h;
        x->started_ms = now;
        curl_multi_add_handle(f->multi, h);
        f->mem.running++;
    }
}

/* The transfers libcurl has finished, read into their sources' results. */
static void finish_done(fetch *f) {
    CURLMsg *msg;
    int queued;
    while ((msg = curl_multi_info_read(f->multi, &queued))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        transfer *x;
        long status = 0;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        finish(&f->src[x->source], x, msg->data.result, status, &f->results[x->source],
               f->errbufs + (size_t)(x - f->t) * CURL_ERROR_SIZE, &f->lim);
        drop_transfer(f->multi, x, &f->mem);
    }
}

/* A transfer with no byte of answer by its first-byte deadline gives its slot up. Returns
 * when the next such deadline falls (the cycle's, when none is sooner). */
static int64_t drop_silent(fetch *f, int64_t now) {
    int64_t wake = f->deadline, first_byte_ms = f->lim.first_byte_ms;
    for (size_t i = 0; i < f->next; i++) {
        transfer *x = &f->t[i];
        if (!x->h || x->got_byte)
            continue;
        if (now - x->started_ms >= first_byte_ms) {
            set_error(&f->results[x->source],
                      "no first byte within %.1f s (the first-byte limit: half of "
                      "--timeout; timed out)",
                      first_byte_ms / 1000.0);
            drop_transfer(f->multi, x, &f->mem);
        } else {
            wake = min64(wake, x->started_ms + first_byte_ms);
        }
    }
    return wake;
}

/* The local programs read on; whether any still runs, the output ones to wait on into
 * f->wfds[0..*nw). */
static bool poll_local(fetch *f, size_t *nw) {
    bool running = false;
    *nw = 0;
    for (size_t j = 0; j < f->nv; j++)
        if ((f->vs[j].pid > 0 || f->vs[j].fd >= 0) && nvsmi_poll(&f->vs[j])) {
            running = true;
            if (f->vs[j].fd >= 0)
                f->wfds[(*nw)++] = (struct curl_waitfd){f->vs[j].fd, CURL_WAIT_POLLIN, 0};
        }
    return running;
}

/* The cycle's deadline has passed: every running transfer ends, every queued one fails. */
static void expire_all(fetch *f) {
    for (size_t i = 0; i < f->next; i++)
        if (f->t[i].h) {
            set_error(&f->results[f->t[i].source],
                      "the cycle's --timeout of %.1f s ran out (timed out)",
                      f->lim.cycle_ms / 1000.0);
            drop_transfer(f->multi, &f->t[i], &f->mem);
        }
    for (; f->next < f->nt; f->next++)
        set_error(&f->results[f->t[f->next].source],
                  "the cycle's time ran out before this source's turn");
}

/* Everything f holds released, the local programs finished (killed if still running). A
 * failed source's partial samples are not stored: all or nothing per source. */
static void fetch_end(fetch *f) {
    curl_multi_cleanup(f->multi);
    for (size_t i = 0; i < f->nt; i++)
        gp_buf_done(&f->t[i].body);
    free(f->t);
    free(f->errbufs);
    free(f->wfds);
    for (size_t j = 0; j < f->nv; j++)
        nvsmi_finish(&f->vs[j], &f->results[f->vs[j].source]);
    free(f->vs);
    for (size_t i = 0; i < f->n; i++)
        if (f->results[i].status != GP_OK)
            gp_samples_done(&f->results[i].samples);
        else /* a MIG GPU's utilization is its instances' (samples.h) */
            gp_samples_mig_rollup(&f->results[i].samples);
}

gp_status gp_collect_fetch(const gp_source_cfg *src, size_t n, const gp_collect_opts *o,
                           gp_source_result *results, gp_err *err) {
    gp_http_global_init();
    fetch f;
    fetch_begin(&f, src, n, o, results);
    bool local_running = f.nv > 0;
    while (f.next < f.nt || f.mem.running > 0 || local_running) {
        start_transfers(&f, gp_now_ms());
        int still;
        curl_multi_perform(f.multi, &still);
        finish_done(&f);
        int64_t now = gp_now_ms();
        int64_t wake = drop_silent(&f, now);
        size_t nw;
        local_running = poll_local(&f, &nw);
        if (now >= f.deadline) {
            expire_all(&f);
            break; /* a still-running nvidia-smi is killed by fetch_end */
        }
        if (f.mem.running > 0 || local_running) {
            int64_t wait = min64(min64(wake - now, 200), local_running && nw == 0 ? 20 : 200);
            curl_multi_poll(f.multi, f.wfds, (unsigned)nw, (int)(wait > 0 ? wait : 0), NULL);
        }
    }
    fetch_end(&f);
    (void)err;
    return GP_OK;
}

gp_status gp_collect_store_result(gp_store *st, long long node_id, const gp_source_result *r,
                                  int64_t now_ms, size_t *written, gp_err *err) {
    return gp_store_samples_write(st, node_id, &r->samples, now_ms, written, err);
}

/* The write half of a cycle, what its transaction holds. */
typedef struct cycle_write {
    const gp_collect_opts *o;
    const gp_source_cfg *srcs;
    size_t ns;
    const gp_source_result *res;
    int64_t started, now, finished; /* finished: 0 until the writes are done */
    gp_cycle_stats *out;
} cycle_write;

static gp_status write_cycle_tx(gp_store *st, void *arg, gp_err *err) {
    cycle_write *w = arg;
    const gp_source_cfg *srcs = w->srcs;
    const gp_source_result *res = w->res;
    gp_cycle_stats *out = w->out;
    gp_status rc = GP_OK;
    /* Per node: ok when every one of its sources is. Sources come grouped by node. */
    for (size_t i = 0; rc == GP_OK && i < w->ns;) {
        size_t j = i;
        const char *error = NULL;
        while (j < w->ns && srcs[j].node_id == srcs[i].node_id) {
            if (res[j].status != GP_OK && !error)
                error = res[j].error;
            j++;
        }
        for (size_t k = i; rc == GP_OK && k < j; k++) {
            size_t n = 0;
            if (res[k].status == GP_OK)
                rc = gp_collect_store_result(st, srcs[k].node_id, &res[k], w->now, &n, err);
            out->samples += n;
        }
        if (rc == GP_OK)
            rc = gp_store_node_status(st, srcs[i].node_id, w->now, error, err);
        if (error)
            out->nodes_failed++;
        else
            out->nodes_ok++;
        i = j;
    }
    w->finished = gp_now_ms();
    if (rc == GP_OK)
        rc = gp_store_cycle_record(st, w->started, w->finished, out->nodes_ok, out->nodes_failed,
                                   out->samples, err);
    /* The cycle's last steps: what is past the window goes, then the days that are over are
     * sealed into chunks (docs/architecture.md, "A sample's life"). */
    if (rc == GP_OK)
        rc = gp_store_retention(st, w->now, w->o->raw_keep_ms, w->o->rollup_keep_ms, err);
    if (rc == GP_OK)
        rc = gp_store_seal_days(st, w->now, NULL, err);
    return rc;
}

/* The write half of a cycle: one transaction, rolled back whole on failure. */
static gp_status write_cycle(gp_store *st, const gp_collect_opts *o, const gp_source_cfg *srcs,
                             size_t ns, const gp_source_result *res, int64_t started, int64_t now,
                             gp_cycle_stats *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    cycle_write w = {o, srcs, ns, res, started, now, 0, out};
    gp_status rc = gp_store_in_tx(st, write_cycle_tx, &w, err);
    if (!w.finished) /* BEGIN failed: nothing was written */
        w.finished = gp_now_ms();
    out->seconds = (w.finished - started) / 1000.0;
    return rc;
}

gp_status gp_collect_cycle(gp_store *st, const gp_collect_opts *o, gp_cycle_stats *out,
                           gp_err *err) {
    memset(out, 0, sizeof *out);
    int64_t started = gp_now_ms();
    gp_source_cfg *srcs;
    size_t ns;
    if (gp_store_sources(st, NULL, &srcs, &ns, err))
        return err->code;
    gp_source_result *res = gp_xcalloc(ns ? ns : 1, sizeof *res);
    gp_collect_fetch(srcs, ns, o, res, err);
    int64_t now = gp_now_ms();
    /* A lock held past the busy timeout or a full disk fails the write, not the fetch: the
     * results wait in memory while the write is retried with a growing pause. */
    gp_status rc;
    if (o->stop)
        gp_store_stop_on(st, o->stop);
    for (int attempt = 0;; attempt++) {
        rc = write_cycle(st, o, srcs, ns, res, started, now, out, err);
        if (rc != GP_E_DB || attempt >= o->write_retries || (o->stop && *o->stop))
            break;
        /* The pause in 10 ms naps: a stop request ends it (and the retries) at once. */
        int64_t until = gp_now_ms() + (250L << attempt);
        while (gp_now_ms() < until && !(o->stop && *o->stop)) {
            struct timespec nap = {0, 10 * 1000000L};
            nanosleep(&nap, NULL);
        }
        if (o->stop && *o->stop)
            break;
    }
    for (size_t i = 0; i < ns; i++)
        gp_source_result_done(&res[i]);
    free(res);
    free(srcs);
    return rc;
}
