/* One HTTP(S) download into memory, for imports from a URL (collector layer, libcurl).
 *
 * TLS verification is on unless insecure is set; connect and total timeouts bound the
 * transfer; the body is capped in the write callback; 429 and 5xx answers (and failed
 * connections) are retried with exponential backoff. Ownership: out is the caller's gp_buf;
 * on failure it is left empty. Errors: GP_E_NET (with the URL in err->where), GP_E_LIMIT when
 * the body passes max_bytes. */
#ifndef GPUPLAN_FETCH_H
#define GPUPLAN_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/xmem.h"

typedef struct gp_fetch_opts {
    long connect_timeout_ms; /* default 10 s */
    long total_timeout_ms;   /* default 120 s */
    size_t max_bytes;        /* default 256 MiB */
    int retries;             /* extra attempts after the first; default 3 */
    long backoff_ms;         /* first pause; doubles each retry; default 500 ms */
    const char *cacert;      /* a CA bundle for self-signed servers; NULL: the system's */
    bool insecure;           /* skip certificate checks (explicit opt-in only) */
    bool progress;           /* draw a progress bar on stderr (for terminals) */
} gp_fetch_opts;

/* Defaults as documented above. */
void gp_fetch_opts_init(gp_fetch_opts *o);

/* True when s looks like an http:// or https:// URL. */
bool gp_is_url(const char *s);

gp_status gp_fetch_url(const char *url, const gp_fetch_opts *o, gp_buf *out, gp_err *err);

#endif
