/* The collector: one libcurl multi handle, a bounded number of transfers in flight, topped up
 * as each finishes (STYLE C1, C2). Only src/collect calls curl. */
#include "gpuplan/collect.h"

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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/xmem.h"
#include "http.h"

extern char **environ;

void gp_collect_opts_init(gp_collect_opts *o) {
    memset(o, 0, sizeof *o);
    o->connect_timeout_ms = 3000;
    o->total_timeout_ms = 10000;
    o->max_bytes = 16u << 20;
    o->concurrency = 64;
    o->nvsmi_path = "nvidia-smi";
    o->raw_keep_ms = 48L * 3600 * 1000;
    o->rollup_keep_ms = 365LL * 24 * 3600 * 1000;
}

void gp_source_result_done(gp_source_result *r) {
    gp_samples_done(&r->samples);
}

int64_t gp_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

typedef struct transfer {
    size_t source;
    int query; /* prometheus: index into prom_queries; else -1 */
    char url[2048];
    gp_buf body;
    bool capped;
    struct curl_slist *headers;
} transfer;

static size_t on_body(char *data, size_t size, size_t n, void *arg) {
    transfer *t = arg;
    if (gp_buf_add(&t->body, data, size * n) != GP_OK) {
        t->capped = true;
        return 0; /* the cap, enforced here: MAXFILESIZE misses chunked bodies on 7.88 */
    }
    return size * n;
}

static void set_error(gp_source_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_error(gp_source_result *r, const char *fmt, ...) {
    if (r->status == GP_OK) { /* the first error of a source is the one reported */
        r->status = GP_E_NET;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->error, sizeof r->error, fmt, ap);
        va_end(ap);
        for (char *p = r->error; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = ' ';
    }
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

static CURL *make_handle(const gp_source_cfg *src, transfer *t, const gp_collect_opts *o) {
    CURL *h = gp_http_handle(t->url, 3, o->connect_timeout_ms, o->total_timeout_ms, o->max_bytes,
                             on_body, t, "gpuplan-collect");
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_PRIVATE, t);
    /* Credentials come from ~/.netrc or a token file, never from argv or the database. */
    curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
    if (src->token_file[0]) {
        char token[1024], header[1100];
        read_token(src->token_file, token, sizeof token);
        if (token[0]) {
            snprintf(header, sizeof header, "Authorization: Bearer %s", token);
            t->headers = curl_slist_append(t->headers, header);
            memset(token, 0, sizeof token);
            memset(header, 0, sizeof header);
        }
    }
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

static void finish(const gp_source_cfg *src, transfer *t, CURLcode rc, long status,
                   gp_source_result *r, const char *errbuf) {
    r->bytes += t->body.len;
    if (t->capped || rc == CURLE_FILESIZE_EXCEEDED) {
        set_error(r, "response larger than the cap of %zu bytes", t->body.limit);
        return;
    }
    if (rc != CURLE_OK) {
        set_error(r, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        return;
    }
    gp_err err;
    gp_err_clear(&err);
    gp_status st;
    const char *body = t->body.data ? t->body.data : "";
    if (src->kind == GP_SRC_PROMETHEUS) {
        const struct prom_query *q = &prom_queries[t->query];
        st = gp_promapi_parse(body, t->body.len, src->url, status, q->metric, q->scale, &r->samples,
                              &err);
    } else if (status < 200 || status >= 300) {
        set_error(r, "HTTP %ld", status);
        return;
    } else if (src->kind == GP_SRC_DCGM) {
        st = gp_dcgm_parse(body, t->body.len, src->url, &r->samples, &err);
    } else {
        double w = 0;
        st = gp_redfish_parse(body, t->body.len, src->url, &w, &err);
        if (st == GP_OK) {
            r->node_power_w = w;
            r->has_node_power = true;
            st = gp_samples_add(&r->samples, -1, GP_M_NODE_POWER_W, w, 0, -1, &err);
        }
    }
    if (st != GP_OK)
        set_error(r, "%s", err.msg);
}

/* The local nvidia-smi, with a bounded wait. */
static void run_nvsmi(const gp_source_cfg *src, const gp_collect_opts *o, gp_source_result *r) {
    static const char fields[] = "timestamp,index,uuid,name,utilization.gpu,memory.used,"
                                 "memory.total,power.draw,temperature.gpu,clocks.sm,power.limit";
    char query[256];
    snprintf(query, sizeof query, "--query-gpu=%s", fields);
    char *argv[] = {(char *)o->nvsmi_path, query, (char *)"--format=csv,nounits", NULL};
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
    pid_t pid;
    int rc = posix_spawnp(&pid, o->nvsmi_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        set_error(r, "cannot run nvidia-smi: %s", strerror(rc));
        return;
    }
    gp_buf out;
    gp_buf_init(&out, o->max_bytes);
    int64_t deadline = gp_now_ms() + o->total_timeout_ms;
    bool timed_out = false, capped = false;
    for (;;) {
        int64_t left = deadline - gp_now_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pfd = {pipefd[0], POLLIN, 0};
        if (poll(&pfd, 1, (int)left) <= 0)
            continue;
        char chunk[8192];
        ssize_t n = read(pipefd[0], chunk, sizeof chunk);
        if (n <= 0)
            break;
        if (gp_buf_add(&out, chunk, (size_t)n) != GP_OK) {
            capped = true;
            break;
        }
    }
    close(pipefd[0]);
    if (timed_out || capped)
        kill(pid, SIGKILL);
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    r->bytes += out.len;
    if (timed_out)
        set_error(r, "nvidia-smi did not answer in time");
    else if (capped)
        set_error(r, "nvidia-smi printed more than the cap");
    else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        set_error(r, "nvidia-smi failed (is a driver loaded?)");
    else {
        char host[128] = "";
        gethostname(host, sizeof host - 1);
        gp_err err;
        if (gp_nvsmi_parse(out.data ? out.data : "", out.len, "nvidia-smi", NULL, host, &r->samples,
                           &err))
            set_error(r, "%s", err.msg);
    }
    gp_buf_done(&out);
    (void)src;
}

gp_status gp_collect_fetch(const gp_source_cfg *src, size_t n, const gp_collect_opts *o,
                           gp_source_result *results, gp_err *err) {
    gp_http_global_init();
    size_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        memset(&results[i], 0, sizeof results[i]);
        gp_samples_init(&results[i].samples, 1u << 22);
        nt += src[i].kind == GP_SRC_PROMETHEUS ? N_PROM_QUERIES
              : src[i].kind == GP_SRC_NVSMI    ? 0
                                               : 1;
    }
    transfer *t = gp_xcalloc(nt ? nt : 1, sizeof *t);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i].kind == GP_SRC_NVSMI)
            continue;
        size_t count = src[i].kind == GP_SRC_PROMETHEUS ? N_PROM_QUERIES : 1;
        for (size_t q = 0; q < count; q++, k++) {
            t[k].source = i;
            t[k].query = src[i].kind == GP_SRC_PROMETHEUS ? (int)q : -1;
            gp_buf_init(&t[k].body, o->max_bytes);
            if (src[i].kind == GP_SRC_PROMETHEUS) {
                char expr[2048], enc[6144];
                expand(prom_queries[q].expr, src[i].match, expr, sizeof expr);
                url_encode(expr, enc, sizeof enc);
                const char *base = src[i].url;
                size_t bl = strlen(base);
                snprintf(t[k].url, sizeof t[k].url, "%.*s/api/v1/query?query=%s",
                         (int)(bl && base[bl - 1] == '/' ? bl - 1 : bl), base, enc);
            } else {
                snprintf(t[k].url, sizeof t[k].url, "%s", src[i].url);
            }
        }
    }
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    size_t next = 0, running_handles = 0;
    char *errbufs = gp_xcalloc(nt ? nt : 1, CURL_ERROR_SIZE);
    int limit = o->concurrency > 0 ? o->concurrency : 1;
    /* One deadline for the whole cycle: a transfer started late gets only what is left, so
     * hung nodes cannot stretch a cycle past the timeout. */
    int64_t deadline = gp_now_ms() + o->total_timeout_ms;
    while (next < nt || running_handles > 0) {
        while (next < nt && running_handles < (size_t)limit) {
            int64_t left = deadline - gp_now_ms();
            if (left <= 0) {
                set_error(&results[t[next].source], "the cycle's time ran out before this "
                                                    "source's turn");
                next++;
                continue;
            }
            CURL *h = make_handle(&src[t[next].source], &t[next], o);
            if (!h) {
                set_error(&results[t[next].source], "cannot start a transfer");
                next++;
                continue;
            }
            curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)left);
            curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbufs + next * CURL_ERROR_SIZE);
            curl_multi_add_handle(multi, h);
            running_handles++;
            next++;
        }
        int still;
        curl_multi_perform(multi, &still);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *h = msg->easy_handle;
            transfer *x;
            long status = 0;
            curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
            size_t idx = (size_t)(x - t);
            finish(&src[x->source], x, msg->data.result, status, &results[x->source],
                   errbufs + idx * CURL_ERROR_SIZE);
            gp_buf_done(&x->body); /* memory does not build up over a large cycle */
            curl_multi_remove_handle(multi, h);
            curl_easy_cleanup(h);
            curl_slist_free_all(x->headers);
            x->headers = NULL;
            running_handles--;
        }
        if (running_handles > 0)
            curl_multi_poll(multi, NULL, 0, 200, NULL);
    }
    curl_multi_cleanup(multi);
    for (size_t i = 0; i < nt; i++)
        gp_buf_done(&t[i].body);
    free(t);
    free(errbufs);
    for (size_t i = 0; i < n; i++)
        if (src[i].kind == GP_SRC_NVSMI)
            run_nvsmi(&src[i], o, &results[i]);
    /* A failed source's partial samples are not stored: all or nothing per source. */
    for (size_t i = 0; i < n; i++)
        if (results[i].status != GP_OK)
            gp_samples_done(&results[i].samples);
    (void)err;
    return GP_OK;
}

gp_status gp_collect_store_result(gp_store *st, long long node_id, const gp_source_result *r,
                                  int64_t now_ms, size_t *written, gp_err *err) {
    return gp_store_samples_write(st, node_id, &r->samples, now_ms, written, err);
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
    gp_status rc = gp_store_begin(st, err);
    /* Per node: ok when every one of its sources is. Sources come grouped by node. */
    for (size_t i = 0; rc == GP_OK && i < ns;) {
        size_t j = i;
        const char *error = NULL;
        while (j < ns && srcs[j].node_id == srcs[i].node_id) {
            if (res[j].status != GP_OK && !error)
                error = res[j].error;
            j++;
        }
        for (size_t k = i; rc == GP_OK && k < j; k++) {
            size_t w = 0;
            if (res[k].status == GP_OK)
                rc = gp_collect_store_result(st, srcs[k].node_id, &res[k], now, &w, err);
            out->samples += w;
        }
        if (rc == GP_OK)
            rc = gp_store_node_status(st, srcs[i].node_id, now, error, err);
        if (error)
            out->nodes_failed++;
        else
            out->nodes_ok++;
        i = j;
    }
    int64_t finished = gp_now_ms();
    if (rc == GP_OK)
        rc = gp_store_cycle_record(st, started, finished, out->nodes_ok, out->nodes_failed,
                                   out->samples, err);
    if (rc == GP_OK)
        rc = gp_store_retention(st, now, o->raw_keep_ms, o->rollup_keep_ms, err);
    if (rc == GP_OK)
        rc = gp_store_commit(st, err);
    if (rc != GP_OK)
        gp_store_rollback(st);
    for (size_t i = 0; i < ns; i++)
        gp_source_result_done(&res[i]);
    free(res);
    free(srcs);
    out->seconds = (finished - started) / 1000.0;
    return rc;
}
