/* History import as a service (app_history.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_history.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/url.h"

/* The host[:port] of an http(s) URL into out; false when it is no such URL or carries
 * credentials (those belong in ~/.netrc or a token file, never in argv or the database). */
static bool url_host(const char *url, char *out, size_t cap) {
    const char *p = !strncmp(url, "http://", 7)    ? url + 7
                    : !strncmp(url, "https://", 8) ? url + 8
                                                   : NULL;
    if (!p)
        return false;
    size_t n = strcspn(p, "/?#");
    if (!n || memchr(p, '@', n))
        return false;
    snprintf(out, cap, "%.*s", (int)n, p);
    return true;
}

gp_status gp_history_run(gp_session *ses, gp_history_request *rq,
                         int (*progress)(const gp_history_progress *, void *), void *arg,
                         gp_history_result *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    char host[256];
    gp_err bad;
    gp_err_clear(&bad);
    /* Checked before anything else, and never repeated: the URL may hold a password. */
    if (rq->url && (gp_url_check_source(rq->url, &bad) || !url_host(rq->url, host, sizeof host)))
        return gp_errorf(err, GP_E_INPUT, "--prometheus", "%s",
                         bad.code ? bad.msg : "not an http:// or https:// URL");
    if (!rq->url && !rq->node)
        return gp_errorf(err, GP_E_INPUT, NULL, "import from which server? --prometheus URL");
    const char *match = rq->match;
    if (match && *match && (*match != '{' || match[strlen(match) - 1] != '}'))
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--match: a label selector in braces, like {cluster=\"a\"}");
    if (rq->url && !rq->node) {
        /* One node per host, named by it, fed by this server from now on too. */
        gp_history_opts o = rq->opts;
        o.url = rq->url;
        o.match = match ? match : "";
        o.per_host = true;
        out->per_host = true;
        return gp_history_import(st, 0, &o, progress, arg, &out->p, err);
    }
    snprintf(out->node, sizeof out->node, "%s", rq->node ? rq->node : host);
    gp_source_cfg *srcs = NULL;
    size_t n = 0;
    gp_err lookup;
    gp_err_clear(&lookup);
    gp_status rc = gp_store_sources(st, out->node, &srcs, &n, &lookup);
    long long node_id = 0;
    const gp_source_cfg *own = NULL;
    for (size_t i = 0; rc == GP_OK && i < n; i++)
        if (srcs[i].kind == GP_SRC_PROMETHEUS && (!rq->url || !strcmp(srcs[i].url, rq->url)))
            own = &srcs[i];
    gp_history_opts o = rq->opts;
    if (rc == GP_OK || rc == GP_E_NOTFOUND) {
        rc = gp_store_node_id(st, out->node, &node_id, &lookup);
        if (rc == GP_E_NOTFOUND && rq->url) {
            /* A new node, fed by this server from now on too. */
            gp_source_cfg src;
            memset(&src, 0, sizeof src);
            src.kind = GP_SRC_PROMETHEUS;
            snprintf(src.url, sizeof src.url, "%s", rq->url);
            snprintf(src.match, sizeof src.match, "%s", match ? match : "");
            snprintf(src.token_file, sizeof src.token_file, "%s", o.token_file ? o.token_file : "");
            snprintf(src.cacert, sizeof src.cacert, "%s", o.cacert ? o.cacert : "");
            src.insecure = o.insecure;
            rc = gp_store_node_add(st, out->node, &src, 1, err) ||
                         gp_store_node_id(st, out->node, &node_id, err)
                     ? err->code
                     : GP_OK;
            out->created = rc == GP_OK;
        } else if (rc != GP_OK) {
            *err = lookup;
        }
    } else {
        *err = lookup;
    }
    if (rc == GP_OK && !rq->url && !own)
        rc = gp_errorf(err, GP_E_NOTFOUND, out->node,
                       "node \"%s\" has no Prometheus source: name one with --prometheus URL",
                       out->node);
    if (rc == GP_OK) {
        o.url = rq->url ? rq->url : own->url;
        o.match = match ? match : own ? own->match : "";
        if (own && (!o.token_file || !*o.token_file))
            o.token_file = own->token_file;
        if (own && (!o.cacert || !*o.cacert))
            o.cacert = own->cacert;
        if (own && own->insecure)
            o.insecure = true;
        rc = gp_history_import(st, node_id, &o, progress, arg, &out->p, err);
    }
    free(srcs);
    return rc;
}
