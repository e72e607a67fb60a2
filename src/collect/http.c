/* Shared libcurl settings; see http.h. */
#include "http.h"

#include <stdbool.h>

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
