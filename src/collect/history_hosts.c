/* One node per host for the history import (history_hosts.h). */
#include "history_hosts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_history.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/xmem.h"

/* The import's selector narrowed to host h, into sel (a new buffer the caller frees):
 * "{job=\"dcgm\",Hostname=\"h\"}". */
static void host_match(const hist_hosts *x, const char *h, gp_buf *sel) {
    const char *m = x->o->match && *x->o->match ? x->o->match : "{}";
    size_t l = strlen(m);
    while (l && m[l - 1] != '}')
        l--;
    size_t inner = l > 1 ? l - 2 : 0; /* between the braces */
    const char *in = m + 1;
    while (inner && *in == ' ')
        in++, inner--;
    gp_buf_init(sel, 4096);
    gp_buf_printf(sel, "{%.*s%s%s=\"", (int)inner, in, inner ? "," : "", x->label);
    for (const char *p = h; *p; p++) {
        if (*p == '"' || *p == '\\')
            gp_buf_add(sel, "\\", 1);
        gp_buf_add(sel, p, 1);
    }
    gp_buf_add(sel, "\"}", 2);
}

void hist_host_source(const hist_hosts *x, const char *h, char *out, size_t cap) {
    gp_buf sel;
    host_match(x, h, &sel);
    snprintf(out, cap, "%s %s", x->o->url, sel.data ? sel.data : "");
    gp_buf_done(&sel);
}

gp_status hist_host_node(hist_hosts *x, const char *h, bool create, long long *id, bool *has) {
    const gp_history_opts *o = x->o;
    gp_err lookup;
    gp_err_clear(&lookup);
    *has = true;
    gp_status rc = gp_store_node_id(x->st, h, id, &lookup);
    if (rc == GP_E_NOTFOUND && !create) {
        *has = false;
        return GP_OK;
    }
    if (rc != GP_E_NOTFOUND)
        return rc == GP_OK ? GP_OK : (*x->err = lookup).code;
    gp_source_cfg src;
    memset(&src, 0, sizeof src);
    src.kind = GP_SRC_PROMETHEUS;
    snprintf(src.url, sizeof src.url, "%s", o->url);
    gp_buf sel;
    host_match(x, h, &sel);
    snprintf(src.match, sizeof src.match, "%s", sel.data ? sel.data : "");
    bool fits = sel.data && strlen(sel.data) < sizeof src.match;
    gp_buf_done(&sel);
    if (!fits)
        return gp_errorf(x->err, GP_E_INPUT, h, "host \"%.60s\": its selector is too long", h);
    snprintf(src.token_file, sizeof src.token_file, "%s", o->token_file ? o->token_file : "");
    snprintf(src.cacert, sizeof src.cacert, "%s", o->cacert ? o->cacert : "");
    src.insecure = o->insecure;
    if (gp_store_node_add(x->st, h, &src, 1, x->err) || gp_store_node_id(x->st, h, id, x->err))
        return x->err->code;
    x->nodes_created++;
    return GP_OK;
}

gp_status hist_write_per_host(hist_hosts *x, const gp_rollups *rows, size_t *written,
                              size_t *skipped) {
    size_t ng = rows->gpus.n_gpus, nh = 0;
    size_t *host_of = gp_xcalloc(ng ? ng : 1, sizeof *host_of);
    const char **hosts = gp_xcalloc(ng ? ng : 1, sizeof *hosts);
    for (size_t i = 0; i < ng; i++) {
        const char *h = rows->gpus.gpus[i].host;
        size_t k = 0;
        while (k < nh && strcmp(hosts[k], h) != 0)
            k++;
        if (k == nh)
            hosts[nh++] = h;
        host_of[i] = k;
    }
    gp_status rc = GP_OK;
    for (size_t k = 0; k < nh && rc == GP_OK; k++) {
        long long id;
        bool has;
        if (!hosts[k][0]) {
            rc = gp_errorf(x->err, GP_E_INPUT, x->o->url,
                           "GPU series without a Hostname, hostname or instance label: name "
                           "the node they go into with --node");
            break;
        }
        if ((rc = hist_host_node(x, hosts[k], true, &id, &has)) != GP_OK)
            break;
        gp_rollups one;
        gp_rollups_init(&one, rows->limit);
        int *map = gp_xmalloc((ng ? ng : 1) * sizeof *map);
        for (size_t i = 0; i < ng; i++) {
            const gp_gpu_ref *g = &rows->gpus.gpus[i];
            int set = g->label_set
                          ? gp_samples_labels(&one.gpus, rows->gpus.label_sets[g->label_set - 1])
                          : -1;
            map[i] = host_of[i] == k ? gp_samples_gpu_labeled(&one.gpus, g->uuid, g->index, g->mig,
                                                              g->raw_model, g->host, set)
                                     : -1;
        }
        for (size_t i = 0; i < rows->n && rc == GP_OK; i++) {
            const gp_rollup *r = &rows->r[i];
            if (map[r->gpu] >= 0)
                rc = gp_rollups_add(&one, map[r->gpu], r->metric, r->bucket_ms, r->n, r->sum,
                                    r->min, r->max, x->err);
        }
        size_t w = 0, sk = 0;
        if (rc == GP_OK)
            rc = gp_store_rollups_write(x->st, id, &one, &w, &sk, x->err);
        *written += w;
        *skipped += sk;
        free(map);
        gp_rollups_done(&one);
    }
    free(host_of);
    free(hosts);
    return rc;
}
