/* The libcurl settings every gpuplan transfer shares (catalog downloads and telemetry scrapes),
 * kept in one place because they are the security boundary: http and https only, redirects
 * bounded and kept to those protocols, a connect and a total deadline, a size cap, no signals
 * (the collector runs many transfers in one thread), compressed bodies decoded. Private to
 * src/collect. */
#ifndef GPUPLAN_COLLECT_HTTP_H
#define GPUPLAN_COLLECT_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

#include "gpuplan/error.h"

/* curl_global_init once per process; not thread-safe, called before any transfer starts. */
void gp_http_global_init(void);

/* An easy handle for URL with the shared settings and BODY(DATA) receiving the response;
 * NULL when libcurl cannot allocate one. The caller adds its own headers and TLS options. */
CURL *gp_http_handle(const char *url, long max_redirects, long connect_timeout_ms,
                     long total_timeout_ms, size_t max_bytes, curl_write_callback body, void *data,
                     const char *user_agent);

/* The bearer token of the token file at path (its first line, gp_token_parse) into out[0..cap),
 * for every gpuplan transfer that sends one: GP_E_IO when the file cannot be read (never "no
 * credentials" in silence), GP_E_INPUT when its line is empty, too long or holds a control
 * character (a CR or LF would inject headers). err's where is the path; no message repeats the
 * token. The copy read from the file is wiped. */
gp_status gp_http_token_read(const char *path, char *out, size_t cap, gp_err *err);

/* Append "Authorization: Bearer TOKEN" (when token_file is not "") and "X-Scope-OrgID: ORG" (when
 * org_id is not "") to *headers; the token is wiped from the stack once libcurl has its copy.
 * Errors as gp_http_token_read, and GP_E_INPUT for an org id with a control character or over
 * 255 bytes (named, never repeated). NULL means "". */
gp_status gp_http_auth(struct curl_slist **headers, const char *token_file, const char *org_id,
                       gp_err *err);

#endif
