/* Shared libcurl settings; see http.h. */
#include "http.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/url.h"

void gp_http_global_init(void) {
    static bool initialised;
    if (!initialised) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        initialised = true;
    }
}

CURL *gp_http_handle(const char *url, long max_redirects, long connect_timeout_ms,
                     long total_timeout_ms, size_t max_bytes, curl_write_callback body, void *data,
                     const char *user_agent) {
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, max_redirects);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, total_timeout_ms);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, data);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, user_agent);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* gzip and friends, decoded */
    return h;
}

gp_status gp_http_token_read(const char *path, char *out, size_t cap, gp_err *err) {
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return gp_errorf(err, GP_E_IO, path, "cannot read the token file: %s", strerror(errno));
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    bool failed = ferror(f);
    fclose(f);
    gp_status st = failed ? gp_errorf(err, GP_E_IO, path, "cannot read the token file")
                          : gp_token_parse(buf, n, path, out, cap, err);
    memset(buf, 0, sizeof buf);
    return st;
}

gp_status gp_http_auth(struct curl_slist **headers, const char *token_file, const char *org_id,
                       gp_err *err) {
    if (org_id && *org_id) {
        size_t n = strlen(org_id);
        if (n > 255)
            return gp_errorf(err, GP_E_INPUT, "--org-id", "the tenant id is longer than 255 bytes");
        for (const unsigned char *p = (const unsigned char *)org_id; *p; p++)
            if (*p < 0x20 || *p == 0x7f)
                return gp_errorf(err, GP_E_INPUT, "--org-id",
                                 "the tenant id holds a control character (byte %zu)",
                                 (size_t)(p - (const unsigned char *)org_id) + 1);
    }
    if (token_file && *token_file) {
        char token[1024], header[1100];
        if (gp_http_token_read(token_file, token, sizeof token, err))
            return err->code;
        snprintf(header, sizeof header, "Authorization: Bearer %s", token);
        *headers = curl_slist_append(*headers, header);
        memset(token, 0, sizeof token);
        memset(header, 0, sizeof header);
    }
    if (org_id && *org_id) {
        char header[300];
        snprintf(header, sizeof header, "X-Scope-OrgID: %s", org_id);
        *headers = curl_slist_append(*headers, header);
    }
    return GP_OK;
}
