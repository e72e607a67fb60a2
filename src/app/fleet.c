/* The fleet's state and alert rules (app_fleet.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_fleet.h"
#include "gpuplan/catalog.h"
#include "gpuplan/clock.h"
#include "gpuplan/xmem.h"

int gp_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap) {
    size_t an = 0;
    int n = 0;
    out[0] = '\0';
    double mem_pct =
        g->has[GP_M_MEM_USED_MIB] && g->has[GP_M_MEM_TOTAL_MIB] && g->value[GP_M_MEM_TOTAL_MIB] > 0
            ? 100.0 * g->value[GP_M_MEM_USED_MIB] / g->value[GP_M_MEM_TOTAL_MIB]
            : -1;
    const char *names[5];
    if (g->has[GP_M_TEMP_C] && g->value[GP_M_TEMP_C] >= 85)
        names[n++] = "hot";
    if (mem_pct >= 90)
        names[n++] = "memory";
    if (g->node_down)
        names[n++] = "node-down";
    if (g->missing)
        names[n++] = "missing";
    if (g->has[GP_M_POWER_W] && g->has[GP_M_POWER_LIMIT_W] &&
        g->value[GP_M_POWER_W] > g->value[GP_M_POWER_LIMIT_W])
        names[n++] = "over-power-limit";
    for (int i = 0; i < n && an < cap; i++)
        an += (size_t)snprintf(out + an, cap - an, "%s%s", i ? " " : "", names[i]);
    return n;
}

typedef struct acc {
    gp_fleet_state *f;
    size_t cap, capw;
    /* The display name of the row before: a fleet is a few models, so most rows repeat it. */
    char last_raw[96], last_model[96], last_display[GP_GPU_NAME_BYTES];
    bool have_last;
} acc;

static int take_gpu(const gp_fleet_gpu *g, void *arg) {
    acc *a = arg;
    gp_fleet_state *f = a->f;
    f->rows = gp_xgrow(f->rows, &a->cap, f->n, sizeof *f->rows, 64);
    gp_fleet_row *r = &f->rows[f->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->node, sizeof r->node, "%s", g->node);
    snprintf(r->host, sizeof r->host, "%s", g->host ? g->host : "");
    snprintf(r->uuid, sizeof r->uuid, "%s", g->uuid ? g->uuid : "");
    snprintf(r->model, sizeof r->model, "%s", g->model ? g->model : "");
    snprintf(r->mig, sizeof r->mig, "%s", g->mig ? g->mig : "");
    snprintf(r->raw_model, sizeof r->raw_model, "%s", g->raw_model ? g->raw_model : "");
    /* The raw name says most (form factor, memory); a GPU stored without one shows its key. */
    if (a->have_last && !strcmp(r->raw_model, a->last_raw) && !strcmp(r->model, a->last_model)) {
        memcpy(r->display, a->last_display, sizeof r->display);
    } else {
        if (!gp_gpu_display_name(r->raw_model, r->display, sizeof r->display) &&
            !gp_gpu_display_name(r->model, r->display, sizeof r->display))
            snprintf(r->display, sizeof r->display, "%s", r->model);
        memcpy(a->last_raw, r->raw_model, sizeof a->last_raw);
        memcpy(a->last_model, r->model, sizeof a->last_model);
        memcpy(a->last_display, r->display, sizeof a->last_display);
        a->have_last = true;
    }
    r->index = g->index;
    memcpy(r->has, g->has, sizeof r->has);
    memcpy(r->value, g->value, sizeof r->value);
    r->last_seen_ms = g->last_seen_ms;
    r->stale = g->last_seen_ms < f->now_ms - f->fresh_ms;
    r->n_alerts = gp_fleet_alerts(g, r->alerts, sizeof r->alerts);
    f->with_alerts += r->n_alerts > 0;
    f->stale += r->stale;
    return 0;
}

static int take_wall(const char *node, double watts, int64_t at_ms, void *arg) {
    acc *a = arg;
    gp_fleet_state *f = a->f;
    f->walls = gp_xgrow(f->walls, &a->capw, f->nw, sizeof *f->walls, 8);
    gp_fleet_wall *w = &f->walls[f->nw++];
    snprintf(w->node, sizeof w->node, "%s", node);
    w->watts = watts;
    w->at_ms = at_ms;
    return 0;
}

gp_status gp_fleet_state_read(gp_session *ses, int64_t now_ms, int64_t fresh_ms, gp_fleet_state *f,
                              gp_err *err) {
    memset(f, 0, sizeof *f);
    f->now_ms = now_ms;
    f->fresh_ms = fresh_ms;
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    acc a = {.f = f};
    /* Every GPU that has data, however old: a stale value shown as stale beats an empty row. */
    if (gp_store_fleet(st, now_ms, now_ms, take_gpu, &a, err))
        return err->code;
    gp_err ignored; /* wall power is a side figure */
    gp_store_node_power(st, now_ms, GP_HOUR_MS, take_wall, &a, &ignored);
    return GP_OK;
}

gp_status gp_fleet_history(gp_session *ses, gp_metric m, int64_t from_ms, int64_t to_ms,
                           int (*fn)(const gp_gpu_point *, void *), void *arg, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_gpu_history(st, m, from_ms, to_ms, fn, arg, err);
}

void gp_fleet_state_done(gp_fleet_state *f) {
    free(f->rows);
    free(f->walls);
    memset(f, 0, sizeof *f);
}
