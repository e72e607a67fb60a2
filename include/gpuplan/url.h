/* Checks on what a node's source is configured with: its URL and its bearer token.
 * No I/O: text in, a verdict (and the token) out. */
#ifndef GPUPLAN_URL_H
#define GPUPLAN_URL_H

#include <stddef.h>

#include "gpuplan/error.h"

/* GP_OK when url is an http:// or https:// URL with a host and without user information
 * ("user:pass@"), spaces or control characters; else GP_E_INPUT with err naming the rule
 * broken (never repeating the URL, which may hold a password). */
gp_status gp_url_check_source(const char *url, gp_err *err);

/* The bearer token in a token file's bytes buf[0..len): its first line, without the line
 * end or trailing spaces, into out[0..cap). GP_E_INPUT when that line is empty, longer than
 * cap - 1 or holds a control character (which could inject HTTP headers); out is "" then. */
gp_status gp_token_parse(const char *buf, size_t len, const char *origin, char *out, size_t cap,
                         gp_err *err);

#endif
