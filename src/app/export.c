/* The workbook export (app_export.h). */
#define _GNU_SOURCE /* timegm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/app_export.h"
#include "gpuplan/capacity.h"
#include "gpuplan/catalog.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/xmem.h"

typedef struct tel_row {
    gp_xlsx_gpu x;
    char node[128], model[96], uuid[96];
} tel_row;

typedef struct tel_rows {
    tel_row *rows;
    size_t n, cap, next;
    int threshold;
    double present_hours; /* whole GPUs' hours with data */
} tel_rows;

/* The chargeback label's values and the busy GPU-hours each used (owned strings). */
typedef struct charges {
    gp_xlsx_charge *c;
    size_t n, cap;
} charges;

static int take_charge(const gp_cap_label *l, void *arg) {
    charges *ch = arg;
    ch->c = gp_xgrow(ch->c, &ch->cap, ch->n, sizeof *ch->c, 16);
    /* As capacity --by: a bucket's utilization share is the GPU-hour it used. */
    ch->c[ch->n++] =
        (gp_xlsx_charge){l->value ? gp_xstrdup(l->value) : NULL, l->util_sum / 100.0 * 5.0 / 60.0};
    return 0;
}

static void charges_done(charges *ch) {
    for (size_t i = 0; i < ch->n; i++)
        free((char *)ch->c[i].value);
    free(ch->c);
}

static int take(const gp_cap_gpu *g, void *arg) {
    tel_rows *t = arg;
    t->rows = gp_xgrow(t->rows, &t->cap, t->n, sizeof *t->rows, 64);
    tel_row *r = &t->rows[t->n++];
    gp_cap_figures f;
    gp_cap_figures_of(g, t->threshold, &f);
    if (!(g->mig && *g->mig)) /* a MIG instance's hours are its GPU's */
        t->present_hours += (double)g->buckets * 5.0 / 60.0;
    snprintf(r->node, sizeof r->node, "%s", g->node);
    /* The readable name ("H100 SXM 80GB"): a workbook is read by people, not matched. */
    char name[GP_GPU_NAME_BYTES];
    if (!gp_gpu_display_name(g->raw_model, name, sizeof name) &&
        !gp_gpu_display_name(g->model, name, sizeof name))
        snprintf(name, sizeof name, "%s", g->model ? g->model : "");
    if (g->mig && *g->mig)
        snprintf(r->model, sizeof r->model, "%s MIG %s", name, g->mig);
    else
        snprintf(r->model, sizeof r->model, "%s", name);
    snprintf(r->uuid, sizeof r->uuid, "%s", g->uuid);
    r->x = (gp_xlsx_gpu){.node = r->node,
                         .model = r->model,
                         .uuid = r->uuid,
                         .index = g->index,
                         .hours = f.hours,
                         .util_mean = f.util_mean / 100,
                         .busy_share = f.busy_share,
                         .has_power = f.has_power,
                         .power_mean_w = f.power_mean_w};
    return 0;
}

static int next_row(void *arg, gp_xlsx_gpu *row) {
    tel_rows *t = arg;
    if (t->next >= t->n)
        return 0;
    *row = t->rows[t->next++].x;
    return 1;
}

/* "2026-11-01T00:00:00Z" into ms; false when it is not that shape. */
static bool utc_ms(const char *s, int64_t *ms) {
    struct tm tm = {0};
    const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
    if (!end || *end)
        return false;
    *ms = (int64_t)timegm(&tm) * 1000;
    return true;
}

gp_status gp_export_xlsx(gp_session *ses, const gp_loaded *sc, const gp_result *r,
                         const char *as_of, const char *path, gp_err *err) {
    return gp_export_xlsx_opt(ses, sc, r, as_of, NULL, path, err);
}

gp_status gp_export_xlsx_opt(gp_session *ses, const gp_loaded *sc, const gp_result *r,
                             const char *as_of, const gp_xlsx_options *opt, const char *path,
                             gp_err *err) {
    gp_report_meta meta = gp_loaded_meta(sc, as_of);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(sc->tree, "measured");
    const char *by = opt ? opt->chargeback_by : NULL;
    if (by && (!cJSON_IsObject(m) || sc->s->work_mode))
        return gp_errorf(err, GP_E_INPUT, sc->origin,
                         "--chargeback-by needs a measured scenario in GPU mode (see gpuplan "
                         "scenario measure)");
    if (!cJSON_IsObject(m))
        return gp_report_xlsx_opt(sc->s, r, &meta, NULL, opt, path, err);

    const char *since = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "since"));
    const char *until = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "until"));
    const cJSON *thr = cJSON_GetObjectItemCaseSensitive(m, "busy_threshold");
    double threshold = cJSON_IsNumber(thr) ? thr->valuedouble : 0.05;
    tel_rows t = {0};
    t.threshold = (int)lround(threshold * 20) * 5;
    if (t.threshold < 5 || t.threshold > 100)
        t.threshold = 5;
    gp_cap_select sel = {0};
    char *nodes = NULL;
    charges ch = {0};
    /* The window's GPUs, when this database holds them (a scenario file from elsewhere may
     * carry a measurement of a fleet this database never saw: the sheet then has the window
     * and no rows). */
    if (utc_ms(since, &sel.from_ms) && utc_ms(until, &sel.to_ms)) {
        sel.to_ms += 1;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "nodes");
        if (cJSON_IsArray(n) && cJSON_GetArraySize(n) > 0)
            sel.nodes_json = nodes = cJSON_PrintUnformatted(n);
        sel.gpu = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "gpu"));
        gp_store *st;
        if (gp_session_store(ses, &st, err) || gp_store_capacity_gpus(st, &sel, take, &t, err) ||
            (by && gp_store_capacity_by_label(st, &sel, by, take_charge, &ch, err))) {
            free(nodes);
            free(t.rows);
            charges_done(&ch);
            return err->code;
        }
    }
    gp_xlsx_telemetry tel = {since, until, t.threshold / 100.0, next_row, &t, by,
                             ch.c,  ch.n,  t.present_hours};
    gp_status rc = gp_report_xlsx_opt(sc->s, r, &meta, &tel, opt, path, err);
    free(nodes);
    free(t.rows);
    charges_done(&ch);
    return rc;
}
