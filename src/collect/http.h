/* The libcurl settings every gpuplan transfer shares (catalog downloads and telemetry scrapes),
 * kept in one place because they are the security boundary: http and https only, redirects
 * bounded and kept to those protocols, a connect and a total deadline, a size cap, no signals
 * (the collector runs many transfers in one thread), compressed bodies decoded. Private to
 * src/collect. */
#ifndef GPUPLAN_COLLECT_HTTP_H
#define GPUPLAN_COLLECT_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

/* curl_global_init once per process; not thread-safe, called before any transfer starts. */
void gp_http_global_init(void);

/* An easy handle for URL with the shared settings and BODY(DATA) receiving the response;
 * NULL when libcurl cannot allocate one. The caller adds its own headers and TLS options. */
CURL *gp_http_handle(const char *url, long max_redirects, long connect_timeout_ms,
                     long total_timeout_ms, size_t max_bytes, curl_write_callback body, void *data,
                     const char *user_agent);

#endif
