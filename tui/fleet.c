/* The Fleet tab: every GPU that ever reported (utilization, memory, power, temperature, a
 * sparkline of the last hour), as `gpuplan fleet` shows it: a GPU not seen within the freshness
 * window keeps its last values, dimmed and marked "stale 3 d". And what the fleet costs now:
 * power by the hour at the open scenario's tariff and PUE, energy today, the cost of a useful
 * GPU-hour and the money idle GPUs burn (fresh GPUs only). Enter opens a node. Data comes from
 * the worker every few seconds. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/clock.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report_fleet.h"
#include "gpuplan/scenario.h"
#include "view.h"
#include "worker.h"

/* The tariff's time-weighted mean price and the PUE of the open scenario (0 and 1 without). */
/* The Fleet screen's own state: the GPU selected, the first row shown, the node's detail
 * open, when it last asked. */
typedef struct fleet_view {
    int sel, top;
    bool detail;
    int64_t asked_ms; /* when the worker was last asked for a reading; 0 after done */
} fleet_view;

static fleet_view *fv(const tui *t) {
    return t->view[TAB_FLEET];
}

static void *fleet_init(tui *t) {
    (void)t;
    return gp_xcalloc(1, sizeof(fleet_view));
}

static void power_price(const tui *t, double *price, double *pue) {
    *price = t->has_sc ? gp_tariff_mean_price(t->sc.s) : 0;
    *pue = t->has_sc ? t->sc.s->pue : 1;
}

/* The scenario's all-in self-hosted cost of one GPU for one hour, busy or not. */
static double gpu_hour_cost(const tui *t) {
    if (!t->has_sc)
        return 0;
    const gp_scenario *s = t->sc.s;
    double hours = (double)s->gpus * GP_MONTH_HOURS * s->horizon_months;
    return hours > 0 ? t->r->self.total / hours : 0;
}

static void fleet_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    fleet_data *f = t->fleet;
    if (!f) {
        draw_text(TOP, 0, cols, "Reading the fleet...", draw_attr(PAL_DIM));
        return;
    }
    if (f->error[0])
        draw_text(rows - 2, 0, cols, f->error, draw_attr(PAL_BAD));
    if (!f->n) {
        draw_text(TOP, 0, cols,
                  "No GPU has reported yet. Add nodes (gpuplan node add) and run gpuplan "
                  "collect, import a capture, or open the demo (gpuplan --demo).",
                  draw_attr(PAL_DIM));
        return;
    }
    double price, pue;
    power_price(t, &price, &pue);
    double watts = 0, kwh = 0, busy = 0;
    int idle = 0, alerts = 0;
    for (int i = 0; i < f->n; i++) {
        if (f->g[i].stale) /* an old value is no part of what the fleet draws now */
            continue;
        watts += f->g[i].has_power ? f->g[i].power : 0;
        kwh += f->g[i].kwh_today;
        busy += f->g[i].has_util ? f->g[i].util / 100 : 0;
        idle += f->g[i].has_util && f->g[i].util < 5;
        alerts += f->g[i].alerts[0] != '\0';
    }
    double per_hour = watts / 1000 * pue * price, gpu_h = gpu_hour_cost(t);
    const char *cur = t->has_sc ? t->sc.s->currency : "";
    char ng[48], ni[48], stale[32] = "";
    if (f->stale)
        snprintf(stale, sizeof stale, " (%d stale)", f->stale);
    draw_textf(TOP, 0, cols, draw_attr(PAL_TITLE),
               "%s%s, %.1f busy  power %.1f kW  %.2f %s/h  %.1f kWh today (facility)",
               gp_fmt_count(f->n, "GPU", "GPUs", ng, sizeof ng), stale, busy, watts / 1000,
               per_hour, cur, kwh * pue);
    if (t->has_sc)
        draw_textf(TOP + 1, 0, cols, idle ? draw_attr(PAL_BAD) : 0,
                   "useful GPU-hour %.2f %s  idle now: %s, %.2f %s/h wasted  alerts: %d  "
                   "(costs of \"%s\")",
                   busy > 0 ? gpu_h * (f->n - f->stale) / busy : 0, cur,
                   gp_fmt_count(idle, "GPU", "GPUs", ni, sizeof ni), idle * gpu_h, cur, alerts,
                   t->sc.s->name);
    int y = TOP + 3;
    int sw = 12; /* a cell per 5-minute mean of the last hour */
    /* The node column: what the longest name needs, as far as the room allows. */
    int want = 6;
    for (int i = 0; i < f->n; i++) {
        int w = draw_width(f->g[i].node) + 1;
        want = w > want ? w : want;
    }
    /* The model column (readable names) where the room allows it: from 100 columns. */
    int modw = 0;
    for (int i = 0; i < f->n && cols >= 100; i++) {
        int w = draw_width(f->g[i].display) + 1;
        modw = w > modw ? w : modw;
    }
    modw = modw > 17 ? 17 : modw;
    if (modw && modw < (int)sizeof "model") /* short names: the header still reads "model GPU" */
        modw = (int)sizeof "model";
    int nodew = cols - (4 + 6 + 7 + 7 + 6 + sw + 2 + 18) - modw;
    if (nodew > want)
        nodew = want;
    if (nodew < 10)
        nodew = 10;
    draw_textf(y - 1, 0, cols, draw_attr(PAL_TITLE), "%-*s %-*s%3s %5s %6s %6s %5s %-*s %s",
               nodew - 1, "node", modw, modw ? "model" : "", "GPU", "util", "mem%", "W", "C", sw,
               "last hour", "alerts");
    int h = rows - y - 2;
    fv(t)->top = tui_scroll(fv(t)->sel, fv(t)->top, h, f->n);
    for (int i = 0; i < h && fv(t)->top + i < f->n; i++) {
        int k = fv(t)->top + i;
        fleet_gpu *g = &f->g[k];
        bool sel = k == fv(t)->sel;
        int attr = sel            ? draw_attr(PAL_ACTIVE)
                   : g->alerts[0] ? draw_attr(PAL_BAD)
                   : g->stale     ? draw_attr(PAL_DIM)
                                  : 0;
        char util[16] = "-", mem[16] = "-", pw[16] = "-", temp[16] = "-";
        if (g->has_util)
            snprintf(util, sizeof util, "%.0f", g->util);
        if (g->has_mem && g->mem_total > 0)
            snprintf(mem, sizeof mem, "%.0f", 100 * g->mem_used / g->mem_total);
        if (g->has_power)
            snprintf(pw, sizeof pw, "%.0f", g->power);
        if (g->has_temp)
            snprintf(temp, sizeof temp, "%.0f", g->temp);
        draw_fill(y + i, 0, cols, attr);
        draw_text_mid(y + i, 0, nodew - 1, g->node, attr);
        if (modw)
            draw_text_mid(y + i, nodew, modw - 1, g->display, attr);
        char ix[8] = "  -"; /* no index (a source naming GPUs by UUID alone) */
        if (g->index >= 0)
            snprintf(ix, sizeof ix, "%3d", g->index);
        draw_textf(y + i, nodew + modw, cols - nodew - modw, attr, "%3s %5s %6s %6s %5s", ix, util,
                   mem, pw, temp);
        int sx = nodew + modw + 4 + 6 + 7 + 7 + 6;
        draw_sparkline(y + i, sx, sw, g->spark, g->n_spark, 100, attr ? attr : draw_attr(PAL_GOOD));
        /* As `gpuplan fleet` says it: "stale 3 d", then the alerts. */
        char note[96], age[24];
        gp_format_age(f->at_ms - g->last_seen_ms, age, sizeof age);
        snprintf(note, sizeof note, "%s%s%s%s", g->stale ? "stale " : "", g->stale ? age : "",
                 g->stale && g->alerts[0] ? " " : "", g->alerts);
        draw_text(y + i, sx + sw + 1, cols - sx - sw - 1, note, attr);
    }
    draw_text(rows - 2 - (f->error[0] ? 1 : 0), 0, cols,
              "Enter: the node  j/k PgUp/PgDn: move  (refreshed every 5 s)", draw_attr(PAL_DIM));

    if (fv(t)->detail && fv(t)->sel < f->n) {
        const char *node = f->g[fv(t)->sel].node;
        int n = 0;
        for (int i = 0; i < f->n; i++)
            n += !strcmp(f->g[i].node, node);
        int ph = n + 4 < rows - TOP - 1 ? n + 4 : rows - TOP - 1, pw2 = cols - 4;
        int py = TOP + 1, px = 2;
        for (int r = 0; r < ph; r++)
            draw_fill(py + r, px, pw2, draw_attr(PAL_ACTIVE));
        double nw = 0, nkwh = 0;
        for (int i = 0; i < f->n; i++)
            if (!strcmp(f->g[i].node, node) && !f->g[i].stale) /* what it draws now */
                nw += f->g[i].power, nkwh += f->g[i].kwh_today;
        char clean[80];
        draw_clean(node, clean, sizeof clean);
        draw_textf(py, px + 1, pw2 - 2, draw_attr(PAL_ACTIVE),
                   "%s: %s, %.0f W, %.2f %s/h, %.1f kWh today (Esc closes)", clean,
                   gp_fmt_count(n, "GPU", "GPUs", ng, sizeof ng), nw, nw / 1000 * pue * price, cur,
                   nkwh);
        /* Model and UUID as wide as they are; on a narrow screen the model gives way first,
         * then the UUID loses its middle (UUIDs differ at both ends). */
        int mw = 5, uw = 4;
        for (int i = 0; i < f->n; i++)
            if (!strcmp(f->g[i].node, node)) {
                int a = draw_width(f->g[i].display), b = draw_width(f->g[i].uuid);
                mw = a > mw ? a : mw;
                uw = b > uw ? b : uw;
            }
        int fixed = 4 + 10 + 8 + 16, room = pw2 - 2 - fixed;
        if (mw + uw + 2 > room) {
            mw = room - uw - 2 < 12 ? 12 : room - uw - 2 < mw ? room - uw - 2 : mw;
            uw = room - mw - 2 < uw ? room - mw - 2 : uw;
        }
        int attr = draw_attr(PAL_ACTIVE), x = px + 1;
        draw_textf(py + 1, x, pw2 - 2, attr, "%3s %-*s %-*s %9s %7s", "GPU", mw, "model", uw,
                   "UUID", "mem MiB", "limit W");
        int r = 0;
        for (int i = 0; i < f->n && r < ph - 3; i++) {
            fleet_gpu *g = &f->g[i];
            if (strcmp(g->node, node))
                continue;
            int yy = py + 2 + r++;
            if (g->index >= 0)
                draw_textf(yy, x, 4, attr, "%3d", g->index);
            else
                draw_text(yy, x, 4, "  -", attr);
            draw_text_mid(yy, x + 4, mw, g->display, attr);
            draw_text_mid(yy, x + 5 + mw, uw, g->uuid, attr);
            char age[24] = "";
            if (g->stale)
                gp_format_age(f->at_ms - g->last_seen_ms, age, sizeof age);
            draw_textf(yy, x + 6 + mw + uw, pw2 - 2 - (6 + mw + uw), attr, "%9.0f %7.0f%s%s%s%s",
                       g->mem_used, g->power_limit, g->mig[0] ? " MIG " : "", g->mig,
                       g->stale ? " stale " : "", age);
        }
    }
}

static unsigned fleet_key(tui *t, int ch) {
    int n = t->fleet ? t->fleet->n : 0;
    int page = tui_rows() - TOP - 6;
    if (fv(t)->detail) {
        if (ch == 27 || ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'q') {
            fv(t)->detail = false;
            return TUI_HANDLED;
        }
        return TUI_HANDLED;
    }
    if (tui_list_key(ch, &fv(t)->sel, n, page))
        return TUI_HANDLED;
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        fv(t)->detail = n > 0;
        return TUI_HANDLED;
    }
    return 0;
}

static bool fleet_modal(const tui *t) {
    return fv(t)->detail;
}

static void fleet_request(tui *t) {
    int64_t now = gp_now_ms();
    if (now - fv(t)->asked_ms > 5000) {
        /* An ask while the job runs is dropped by the worker: the data then comes from the
         * job asked before, whose time GPUPLAN_TUI_TIMING's fleet_data_ms counts from. */
        if (!worker_busy(t, JOB_FLEET))
            t->fleet_job_ms = now;
        worker_ask(t, JOB_FLEET);
        fv(t)->asked_ms = now;
    }
}

static void fleet_click(tui *t, int row, int x) {
    (void)x;
    if (t->fleet && row >= TOP + 3) {
        int k = fv(t)->top + row - TOP - 3;
        if (k < t->fleet->n)
            fv(t)->sel = k;
    }
}

static void fleet_done(tui *t) {
    fleet_data_free(t->fleet);
    t->fleet = NULL;
    fv(t)->asked_ms = 0;
}

const tui_screen_ops fleet_screen = {
    .name = "Fleet",
    .draw = fleet_draw,
    .on_key = fleet_key,
    .modal = fleet_modal,
    .request = fleet_request,
    .click = fleet_click,
    .done = fleet_done,
    .init = fleet_init,
};
