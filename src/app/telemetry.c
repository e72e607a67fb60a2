/* Nodes, imports and collection cycles (app_telemetry.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_telemetry.h"
#include "gpuplan/files.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/telemetry.h"
#include "gpuplan/xmem.h"

gp_status gp_node_define(gp_session *ses, gp_node_def *def, gp_err *err) {
    if (!def->n_src)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "node add needs a source: --dcgm, --prometheus, --redfish or "
                         "--nvsmi-local");
    if (!*def->name || strlen(def->name) > 120)
        return gp_errorf(err, GP_E_INPUT, NULL, "node add: the name must be 1 to 120 characters");
    if (*def->match && *def->match != '{')
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--match: a label selector in braces, like {cluster=\"a\"}");
    for (int i = 0; i < def->n_src; i++) {
        gp_source_cfg *src = &def->src[i];
        if (src->kind == GP_SRC_PROMETHEUS)
            snprintf(src->match, sizeof src->match, "%s", def->match);
        snprintf(src->cacert, sizeof src->cacert, "%s", def->cacert);
        snprintf(src->token_file, sizeof src->token_file, "%s", def->token_file);
        src->insecure = def->insecure;
    }
    gp_store *st;
    if (gp_session_store(ses, &st, err) ||
        gp_store_node_add(st, def->name, def->src, def->n_src, err))
        return err->code;
    return GP_OK;
}

gp_status gp_node_probe_run(gp_session *ses, const char *name, gp_node_probe *p, gp_err *err) {
    memset(p, 0, sizeof *p);
    gp_store *st;
    if (gp_session_store(ses, &st, err) || gp_store_sources(st, name, &p->src, &p->n, err))
        return err->code;
    gp_collect_opts o;
    gp_collect_opts_init(&o);
    p->result = gp_xcalloc(p->n ? p->n : 1, sizeof *p->result);
    /* Each source's own status says how it went; the call fails only as a whole. */
    return gp_collect_fetch(p->src, p->n, &o, p->result, err);
}

void gp_node_probe_done(gp_node_probe *p) {
    for (size_t i = 0; p->result && i < p->n; i++)
        gp_source_result_done(&p->result[i]);
    free(p->result);
    free(p->src);
    memset(p, 0, sizeof *p);
}

/* Write s under node (created when new) in one transaction. */
static gp_status store_capture(gp_store *st, const char *node, const gp_samples *s, size_t *written,
                               gp_err *err) {
    int64_t now = gp_now_ms();
    long long id = 0;
    if (gp_store_begin(st, err))
        return err->code;
    gp_err lookup;
    gp_err_clear(&lookup);
    gp_status rc = gp_store_node_id(st, node, &id, &lookup);
    if (rc == GP_E_NOTFOUND)
        rc = gp_store_node_add(st, node, NULL, 0, err) || gp_store_node_id(st, node, &id, err)
                 ? err->code
                 : GP_OK;
    else if (rc != GP_OK)
        rc = (*err = lookup).code;
    if (rc == GP_OK)
        rc = gp_store_samples_write(st, id, s, now, written, err);
    /* The node was last seen when its newest sample was taken, not when it was imported:
     * an old capture must not make its GPUs look missing. */
    int64_t newest = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t ts = s->s[i].ts_ms ? s->s[i].ts_ms : now;
        if (ts > newest)
            newest = ts;
    }
    if (rc == GP_OK)
        rc = gp_store_node_status(st, id, newest ? newest : now, NULL, err);
    if (rc == GP_OK)
        rc = gp_store_commit(st, err);
    if (rc != GP_OK)
        gp_store_rollback(st);
    return rc;
}

gp_status gp_import_capture(gp_session *ses, const gp_import_request *rq, gp_import_result *out,
                            gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_buf body;
    if (gp_read_file(rq->file, 512u << 20, &body, err))
        return err->code;
    const char *origin = strcmp(rq->file, "-") ? rq->file : "<stdin>";
    gp_samples s;
    gp_samples_init(&s, 50u << 20);
    gp_status rc = rq->kind == GP_CAPTURE_NVSMI
                       ? gp_nvsmi_parse(body.data, body.len, origin, rq->fields,
                                        rq->host ? rq->host : rq->node, &s, err)
                       : gp_dcgm_parse(body.data, body.len, origin, &s, err);
    gp_buf_done(&body);
    if (rc == GP_OK) /* a MIG GPU's utilization is its instances' (telemetry.h) */
        gp_samples_mig_rollup(&s);
    gp_store *st;
    if (rc == GP_OK)
        rc = gp_session_store(ses, &st, err);
    if (rc == GP_OK)
        rc = store_capture(st, rq->node, &s, &out->samples, err);
    out->gpus = s.n_gpus;
    out->dropped_blanks = s.blanks > 0;
    gp_samples_done(&s);
    return rc;
}

gp_status gp_collect_once(gp_session *ses, const gp_collect_opts *o, gp_cycle_stats *out,
                          gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err) || gp_collect_cycle(st, o, out, err))
        return err->code;
    return GP_OK;
}
