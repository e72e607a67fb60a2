/* Nodes, imports and collection cycles (app_telemetry.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuplan/app_telemetry.h"
#include "gpuplan/clock.h"
#include "gpuplan/files.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"

gp_status gp_node_define(gp_session *ses, gp_node_def *def, gp_err *err) {
    if (!def->n_src)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "node add needs a source: --dcgm, --prometheus, --redfish, "
                         "--nvsmi-local or --ipmi-local");
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

/* A capture's write: s under node, created when new. */
typedef struct capture {
    const char *node;
    const gp_samples *s;
    size_t *written;
} capture;

static gp_status capture_tx(gp_store *st, void *arg, gp_err *err) {
    const capture *x = arg;
    const gp_samples *s = x->s;
    int64_t now = gp_now_ms();
    long long id = 0;
    gp_err lookup;
    gp_err_clear(&lookup);
    gp_status rc = gp_store_node_id(st, x->node, &id, &lookup);
    if (rc == GP_E_NOTFOUND)
        rc = gp_store_node_add(st, x->node, NULL, 0, err) || gp_store_node_id(st, x->node, &id, err)
                 ? err->code
                 : GP_OK;
    else if (rc != GP_OK)
        rc = (*err = lookup).code;
    if (rc == GP_OK)
        rc = gp_store_samples_write(st, id, s, now, x->written, err);
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
    return rc;
}

/* Write s under node (created when new) in one transaction. */
static gp_status store_capture(gp_store *st, const char *node, const gp_samples *s, size_t *written,
                               gp_err *err) {
    capture x = {node, s, written};
    return gp_store_in_tx(st, capture_tx, &x, err);
}

/* The node's whole GPUs known by UUID, one per index (the newest seen), for a dmon import. */
typedef struct known_gpus {
    gp_gpu_ref *g;
    size_t n, cap;
} known_gpus;

static int add_known(const gp_gpu_ref *g, void *arg) {
    known_gpus *k = arg;
    for (size_t i = 0; i < k->n; i++)
        if (k->g[i].index == g->index)
            return 0;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 16;
        k->g = gp_xrealloc(k->g, k->cap * sizeof *k->g);
    }
    k->g[k->n++] = *g;
    return 0;
}

static gp_status import_dmon(gp_session *ses, const gp_import_request *rq, const char *origin,
                             const gp_buf *body, int64_t mtime_ms, gp_samples *s,
                             gp_import_result *out, gp_err *err) {
    known_gpus k = {0};
    gp_store *st;
    long long id = 0;
    gp_err lookup;
    gp_err_clear(&lookup);
    gp_status rc = gp_session_store(ses, &st, err);
    if (rc == GP_OK && gp_store_node_id(st, rq->node, &id, &lookup) == GP_OK)
        rc = gp_store_node_gpus(st, id, add_known, &k, err);
    gp_dmon_opts o = {.host = rq->host ? rq->host : rq->node,
                      .end_ms = rq->end_ms ? rq->end_ms : mtime_ms,
                      .interval_ms = rq->interval_ms > 0 ? rq->interval_ms : 1000,
                      .known = k.g,
                      .n_known = k.n};
    gp_dmon_info info;
    if (rc == GP_OK)
        rc = gp_dmon_parse(body->data, body->len, origin, &o, s, &info, err);
    free(k.g);
    if (rc != GP_OK)
        return rc;
    if (!info.own_time && !o.end_ms)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "a dmon log without -o DT times, read from stdin: give --end (the time "
                         "of its last rows)");
    out->time = info.own_time ? GP_TIME_OWN : rq->end_ms ? GP_TIME_END : GP_TIME_MTIME;
    out->first_ms = info.first_ms;
    out->last_ms = info.last_ms;
    out->interval_ms = o.interval_ms;
    out->rows = info.rows;
    out->rounds = info.rounds;
    out->mapped = info.mapped;
    return GP_OK;
}

static gp_status import_dcmi(const char *origin, const gp_buf *body, int64_t mtime_ms,
                             gp_samples *s, gp_import_result *out, gp_err *err) {
    gp_dcmi_reading *r = &out->dcmi;
    if (gp_dcmi_parse(body->data, body->len, origin, r, err))
        return err->code;
    if (!r->active) {
        /* A BMC without a power sensor says 0 W; some say the last figure they had, or a
         * constant: neither is a measurement. */
        snprintf(out->why, sizeof out->why,
                 "the BMC says \"Power reading state is: deactivated\": its %g W is not a "
                 "measurement",
                 r->watts);
        return GP_OK;
    }
    int64_t now = gp_now_ms(), ts;
    if (gp_dcmi_time_plausible(r->bmc_ms, now)) {
        ts = r->bmc_ms;
        out->time = GP_TIME_OWN;
    } else {
        ts = mtime_ms ? mtime_ms : now;
        out->time = mtime_ms ? GP_TIME_MTIME : GP_TIME_NOW;
        snprintf(out->why, sizeof out->why, "the BMC's timestamp \"%s\" is %s",
                 r->bmc_text[0] ? r->bmc_text : "",
                 !r->bmc_text[0] ? "missing"
                 : r->bmc_ms     ? "not plausible (its clock is unset or wrong)"
                                 : "not a date gpuplan reads");
    }
    out->first_ms = out->last_ms = ts;
    out->stored = true;
    return gp_samples_add(s, -1, GP_M_NODE_POWER_W, r->watts, ts, -1, err);
}

/* Date s's samples without a time of their own at mtime_ms (the import's time when 0, stdin);
 * out says how, and the span of the samples. */
static void date_undated(gp_samples *s, int64_t mtime_ms, gp_import_result *out) {
    int64_t at = mtime_ms ? mtime_ms : gp_now_ms();
    out->time = GP_TIME_OWN;
    for (size_t i = 0; i < s->n; i++) {
        gp_sample *x = &s->s[i];
        if (!x->ts_ms) {
            x->ts_ms = at;
            out->undated++;
            out->time = mtime_ms ? GP_TIME_MTIME : GP_TIME_NOW;
        }
        if (!out->first_ms || x->ts_ms < out->first_ms)
            out->first_ms = x->ts_ms;
        if (x->ts_ms > out->last_ms)
            out->last_ms = x->ts_ms;
    }
    out->dated_ms = at;
}

gp_status gp_import_capture(gp_session *ses, const gp_import_request *rq, gp_import_result *out,
                            gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_buf body;
    if (gp_read_file(rq->file, 512u << 20, &body, err))
        return err->code;
    const char *origin = strcmp(rq->file, "-") ? rq->file : "<stdin>";
    int64_t mtime_ms = 0;
    struct stat sb;
    if (strcmp(rq->file, "-") && stat(rq->file, &sb) == 0)
        mtime_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
    gp_samples s;
    gp_samples_init(&s, 50u << 20);
    gp_status rc;
    switch (rq->kind) {
    case GP_CAPTURE_NVSMI:
        rc = gp_nvsmi_parse(body.data, body.len, origin, rq->fields, rq->host ? rq->host : rq->node,
                            &s, err);
        break;
    case GP_CAPTURE_DMON:
        rc = import_dmon(ses, rq, origin, &body, mtime_ms, &s, out, err);
        break;
    case GP_CAPTURE_DCMI:
        rc = import_dcmi(origin, &body, mtime_ms, &s, out, err);
        break;
    default:
        rc = gp_dcgm_parse(body.data, body.len, origin, &s, err);
        break;
    }
    gp_buf_done(&body);
    if (rc == GP_OK) /* a MIG GPU's utilization is its instances' (samples.h) */
        gp_samples_mig_rollup(&s);
    /* dcgm-exporter writes no sample timestamps and a --query-gpu CSV may lack its timestamp
     * column: such readings were taken when the file was saved, not when it is imported, so a
     * scrape saved days ago must not look fresh (as dmon and dcmi are dated). */
    if (rc == GP_OK && (rq->kind == GP_CAPTURE_PROM || rq->kind == GP_CAPTURE_NVSMI))
        date_undated(&s, mtime_ms, out);
    /* A capture without one reading is the wrong file or a cut one (a header alone, a
     * node_exporter scrape): refused, so it makes no node that looks imported. */
    if (rc == GP_OK && rq->kind != GP_CAPTURE_DCMI && s.n == 0)
        rc = gp_errorf(err, GP_E_INPUT, origin, "no GPU readings in it (%s): nothing imported",
                       rq->kind == GP_CAPTURE_NVSMI
                           ? "a header alone, only placeholders, or not a --query-gpu capture"
                       : rq->kind == GP_CAPTURE_DMON ? "headers only, or every value \"-\""
                                                     : "no DCGM_FI_ series with a value");
    bool store = rc == GP_OK && (rq->kind != GP_CAPTURE_DCMI || out->stored);
    gp_store *st;
    if (store)
        rc = gp_session_store(ses, &st, err);
    if (store && rc == GP_OK)
        rc = store_capture(st, rq->node, &s, &out->samples, err);
    out->gpus = s.n_gpus;
    for (size_t i = 0; i < s.n_gpus; i++)
        out->mig_instances += s.gpus[i].mig[0] != '\0';
    out->dropped_blanks = s.blanks > 0;
    gp_samples_done(&s);
    return rc;
}

gp_status gp_node_list(gp_session *ses, int (*fn)(const gp_node_info *, void *), void *arg,
                       gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_nodes(st, fn, arg, err);
}

gp_status gp_node_remove(gp_session *ses, const char *name, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_node_rm(st, name, err);
}

gp_status gp_token_file_check(const char *path, gp_err *err) {
    return gp_collect_token_file_check(path, err);
}

gp_status gp_db_verify(gp_session *ses, gp_check_fn fn, void *arg, gp_db_check *out, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_check(st, fn, arg, out, err);
}

gp_status gp_db_stats_read(gp_session *ses, gp_db_stats *out, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_stats(st, out, err);
}

gp_status gp_db_space(gp_session *ses, int (*fn)(const char *table, long long bytes, void *),
                      void *arg, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_space(st, fn, arg, err);
}

gp_status gp_collect_once(gp_session *ses, const gp_collect_opts *o, gp_cycle_stats *out,
                          gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err) || gp_collect_cycle(st, o, out, err))
        return err->code;
    return GP_OK;
}
