/* HTTP downloads with libcurl. Only src/collect calls curl (docs/architecture.md, Layers). */
#include "gpuplan/fetch.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "http.h"

void gp_fetch_opts_init(gp_fetch_opts *o) {
    memset(o, 0, sizeof *o);
    o->connect_timeout_ms = 10000;
    o->total_timeout_ms = 120000;
    o->max_bytes = 256u << 20;
    o->retries = 3;
    o->backoff_ms = 500;
}

bool gp_is_url(const char *s) {
    return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

typedef struct sink {
    gp_buf *body;
    bool capped;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *arg) {
    sink *k = arg;
    /* The cap is enforced here: curl 7.88's MAXFILESIZE does not stop a chunked body. */
    if (gp_buf_add(k->body, data, size * n) != GP_OK) {
        k->capped = true;
        return 0;
    }
    return size * n;
}

static int on_progress(void *arg, curl_off_t total, curl_off_t now, curl_off_t ul_total,
                       curl_off_t ul_now) {
    (void)arg, (void)ul_total, (void)ul_now;
    if (total > 0) {
        int width = 40, fill = (int)(width * (double)now / (double)total);
        fprintf(stderr, "\r[%.*s%*s] %5.1f%% of %.1f MB", fill,
                "########################################", width - fill, "",
                100.0 * (double)now / (double)total, (double)total / 1e6);
    } else if (now > 0) {
        fprintf(stderr, "\r%.1f MB", (double)now / 1e6);
    }
    return 0;
}

static void pause_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

gp_status gp_fetch_url(const char *url, const gp_fetch_opts *o, gp_buf *out, gp_err *err) {
    gp_http_global_init();
    gp_buf_init(out, o->max_bytes);
    if (!gp_is_url(url))
        return gp_errorf(err, GP_E_INPUT, url, "only http:// and https:// URLs are fetched");
    sink k = {out, false};
    CURL *h = gp_http_handle(url, 5, o->connect_timeout_ms, o->total_timeout_ms, o->max_bytes,
                             on_body, &k, "gpuplan");
    if (!h)
        return gp_errorf(err, GP_E_NOMEM, url, "cannot start a transfer");
    char errbuf[CURL_ERROR_SIZE];
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    if (o->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (o->progress) {
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    }
    gp_status st = GP_OK;
    long backoff = o->backoff_ms;
    for (int attempt = 0;; attempt++) {
        errbuf[0] = '\0';
        gp_buf_done(out);
        k.capped = false;
        CURLcode rc = curl_easy_perform(h);
        if (o->progress)
            fputc('\n', stderr);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        if (k.capped || rc == CURLE_FILESIZE_EXCEEDED) {
            st = gp_errorf(err, GP_E_LIMIT, url, "response larger than %zu bytes", o->max_bytes);
            break;
        }
        bool transient = rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT ||
                         rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
                         (rc == CURLE_OK && (status == 429 || status >= 500));
        if (rc == CURLE_OK && status >= 200 && status < 300) {
            st = GP_OK;
            break;
        }
        if (!transient || attempt >= o->retries) {
            if (rc != CURLE_OK)
                st = gp_errorf(err, GP_E_NET, url, "%s",
                               errbuf[0] ? errbuf : curl_easy_strerror(rc));
            else
                st = gp_errorf(err, GP_E_NET, url, "HTTP %ld%s", status,
                               transient ? " (gave up after retries)" : "");
            break;
        }
        pause_ms(backoff);
        backoff *= 2;
    }
    curl_easy_cleanup(h);
    if (st != GP_OK)
        gp_buf_done(out);
    else if (!out->data)
        gp_buf_add(out, "", 0);
    return st;
}
