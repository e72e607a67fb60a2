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

/* The request checked before anything else, the URL's host into host; the URL is never
 * repeated in an error: it may hold a password. */
static gp_status check_request(const gp_history_request *rq, char *host, size_t cap, gp_err *err) {
    gp_err bad;
    gp_err_clear(&bad);
    if (rq->url && (gp_url_check_source(rq->url, &bad) || !url_host(rq->url, host, cap)))
        return gp_errorf(err, GP_E_INPUT, "--prometheus", "%s",
                         bad.code ? bad.msg : "not an http:// or https:// URL");
    if (!rq->url && !rq->node)
        return gp_errorf(err, GP_E_INPUT, NULL, "import from which server? --prometheus URL");
    const char *match = rq->match;
    if (match && *match && (*match != '{' || match[strlen(match) - 1] != '}'))
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--match: a label selector in braces, like {cluster=\"a\"}");
    return GP_OK;
}

/* A new node named node, fed by the request's server from now on too; its id into *id. */
static gp_status add_node(gp_store *st, const gp_history_request *rq, const char *node,
                          long long *id, gp_err *err) {
    const gp_history_opts *o = &rq->opts;
    gp_source_cfg src;
    memset(&src, 0, sizeof src);
    src.kind = GP_SRC_PROMETHEUS;
    snprintf(src.url, sizeof src.url, "%s", rq->url);
    snprintf(src.match, sizeof src.match, "%s", rq->match ? rq->match : "");
    snprintf(src.token_file, sizeof src.token_file, "%s", o->token_file ? o->token_file : "");
    snprintf(src.cacert, sizeof src.cacert, "%s", o->cacert ? o->cacert : "");
    src.insecure = o->insecure;
    return gp_store_node_add(st, node, &src, 1, err) || gp_store_node_id(st, node, id, err)
               ? err->code
               : GP_OK;
}

/* The node out->node imports into (made when the request names a server and it is new) into
 * *id, and its own Prometheus source (the one at the request's URL, if given) into *own, NULL
 * when it has none; *srcs (its sources) the caller's to free either way. */
static gp_status find_node(gp_store *st, const gp_history_request *rq, gp_history_result *out,
                           gp_source_cfg **srcs, const gp_source_cfg **own, long long *id,
                           gp_err *err) {
    size_t n = 0;
    gp_err lookup;
    gp_err_clear(&lookup);
    gp_status rc = gp_store_sources(st, out->node, srcs, &n, &lookup);
    *own = NULL;
    for (size_t i = 0; rc == GP_OK && i < n; i++)
        if ((*srcs)[i].kind == GP_SRC_PROMETHEUS && (!rq->url || !strcmp((*srcs)[i].url, rq->url)))
            *own = &(*srcs)[i];
    if (rc != GP_OK && rc != GP_E_NOTFOUND)
        return *err = lookup, rc;
    rc = gp_store_node_id(st, out->node, id, &lookup);
    if (rc == GP_E_NOTFOUND && rq->url) {
        rc = add_node(st, rq, out->node, id, err);
        out->created = rc == GP_OK;
        return rc;
    }
    if (rc != GP_OK)
        return *err = lookup, rc;
    if (!rq->url && !*own)
        return gp_errorf(err, GP_E_NOTFOUND, out->node,
                         "node \"%s\" has no Prometheus source: name one with --prometheus URL",
                         out->node);
    return GP_OK;
}

gp_status gp_history_run(gp_session *ses, gp_history_request *rq,
                         int (*progress)(const gp_history_progress *, void *), void *arg,
                         gp_history_result *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    char host[256];
    if (check_request(rq, host, sizeof host, err))
        return err->code;
    const char *match = rq->match;
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
    const gp_source_cfg *own;
    long long node_id = 0;
    gp_status rc = find_node(st, rq, out, &srcs, &own, &node_id, err);
    if (rc == GP_OK) {
        gp_history_opts o = rq->opts;
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
