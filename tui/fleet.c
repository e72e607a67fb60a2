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

/* The tariff's time-weighted mean price and the PUE of the open scenario (0 and 1 without). */
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

/* What the fresh GPUs draw and do now: a stale GPU's old values are no part of it. */
typedef struct fleet_now {
    double watts, kwh, busy; /* W, kWh today, busy GPUs (utilizations summed) */
    int idle, alerts;        /* GPUs under 5 %, GPUs with an alert */
} fleet_now;

static fleet_now fleet_now_of(const fleet_data *f) {
    fleet_now n = {0};
    for (int i = 0; i < f->n; i++) {
        const fleet_gpu *g = &f->g[i];
        if (g->stale)
            continue;
        n.watts += g->has_power ? g->power : 0;
        n.kwh += g->kwh_today;
        n.busy += g->has_util ? g->util / 100 : 0;
        n.idle += g->has_util && g->util < 5;
        n.alerts += g->alerts[0] != '\0';
    }
    return n;
}

/* The two lines over the table: what the fleet draws and costs by the hour, and (with a
 * scenario open) the useful GPU-hour and what idle GPUs waste at its costs. */
static void fleet_summary(const tui *t, const fleet_data *f, int cols) {
    double price, pue;
    power_price(t, &price, &pue);
    fleet_now now = fleet_now_of(f);
    double per_hour = now.watts / 1000 * pue * price, gpu_h = gpu_hour_cost(t);
    const char *cur = t->has_sc ? t->sc.s->currency : "";
    char ng[48], ni[48], stale[32] = "";
    if (f->stale)
        snprintf(stale, sizeof stale, " (%d stale)", f->stale);
    char l1[3][192];
    snprintf(l1[2], sizeof l1[2], "%s%s, %.1f busy  power %.1f kW  %.2f %s/h",
             gp_fmt_count(f->n, "GPU", "GPUs", ng, sizeof ng), stale, now.busy, now.watts / 1000,
             per_hour, cur);
    snprintf(l1[1], sizeof l1[1], "%s  %.1f kWh today", l1[2], now.kwh * pue);
    snprintf(l1[0], sizeof l1[0], "%s (facility)", l1[1]);
    const char *const line1[] = {l1[0], l1[1], l1[2], NULL};
    draw_text_fit(TOP, 0, cols, draw_attr(PAL_TITLE), line1);
    /* Nothing busy: no useful GPU-hour to cost ("-"), never 0, which would read as free. */
    char useful[48] = "-";
    if (now.busy > 0)
        snprintf(useful, sizeof useful, "%.2f %s", gpu_h * (f->n - f->stale) / now.busy, cur);
    if (!t->has_sc)
        return;
    /* Whose costs: the scenario's name, shortened in the middle, then dropped (it is the open
     * one, named on the Plan tab) before a figure would be cut. */
    char base[192], shorter[192], shortest[192], named[256], nm[128];
    gp_fmt_count(now.idle, "GPU", "GPUs", ni, sizeof ni);
    snprintf(base, sizeof base, "useful GPU-hour %s  idle now: %s, %.2f %s/h wasted  alerts: %d",
             useful, ni, now.idle * gpu_h, cur, now.alerts);
    snprintf(shorter, sizeof shorter, "useful GPU-hour %s  idle: %s, %.2f %s/h  alerts: %d", useful,
             ni, now.idle * gpu_h, cur, now.alerts);
    snprintf(shortest, sizeof shortest, "useful GPU-hour %s  idle: %s, %.2f %s/h", useful, ni,
             now.idle * gpu_h, cur);
    int room = cols - draw_width(base) - draw_width("  (costs of \"\")");
    draw_shorten(t->sc.s->name, room < 12 ? 12 : room, nm, sizeof nm);
    snprintf(named, sizeof named, "%s  (costs of \"%s\")", base, nm);
    const char *const line2[] = {named, base, shorter, shortest, NULL};
    draw_text_fit(TOP + 1, 0, cols, now.idle ? draw_attr(PAL_BAD) : 0, line2);
}

/* The table's columns: the node as wide as the longest name needs and the room allows (at
 * least 10), the model (readable names, at most 17) from 100 columns, then GPU, util, mem%, W
 * and C, the sparkline and the alerts (18 columns kept for them). */
typedef struct fleet_cols {
    int nodew, modw; /* 0: no model column */
    int sw;          /* the sparkline: a cell per 5-minute mean of the last hour */
} fleet_cols;

enum { FIGURES_W = 4 + 6 + 7 + 7 + 6 };

static fleet_cols fleet_columns(const fleet_data *f, int cols) {
    fleet_cols c = {.sw = 12};
    int want = 6;
    for (int i = 0; i < f->n; i++) {
        int w = draw_width(f->g[i].node) + 1;
        want = w > want ? w : want;
    }
    for (int i = 0; i < f->n && cols >= 100; i++) {
        int w = draw_width(f->g[i].display) + 1;
        c.modw = w > c.modw ? w : c.modw;
    }
    c.modw = c.modw > 17 ? 17 : c.modw;
    /* Short names: the header still reads "model GPU". */
    if (c.modw && c.modw < (int)sizeof "model")
        c.modw = (int)sizeof "model";
    c.nodew = cols - (FIGURES_W + c.sw + 2 + 18) - c.modw;
    if (c.nodew > want)
        c.nodew = want;
    if (c.nodew < 10)
        c.nodew = 10;
    return c;
}

/* "%.0f" of v into out, "-" without a value. */
static void figure(bool has, double v, char *out, size_t cap) {
    if (has)
        snprintf(out, cap, "%.0f", v);
    else
        snprintf(out, cap, "-");
}

/* GPU g's row at y, as `gpuplan fleet` shows it: the figures, the last hour, then "stale 3 d"
 * and the alerts. */
static void fleet_row(const fleet_data *f, const fleet_gpu *g, const fleet_cols *c, int y, int cols,
                      int attr) {
    char util[16], mem[16], pw[16], temp[16];
    figure(g->has_util, g->util, util, sizeof util);
    bool has_mem = g->has_mem && g->mem_total > 0;
    figure(has_mem, has_mem ? 100 * g->mem_used / g->mem_total : 0, mem, sizeof mem);
    figure(g->has_power, g->power, pw, sizeof pw);
    figure(g->has_temp, g->temp, temp, sizeof temp);
    draw_fill(y, 0, cols, attr);
    draw_text_mid(y, 0, c->nodew - 1, g->node, attr);
    if (c->modw)
        draw_text_mid(y, c->nodew, c->modw - 1, g->display, attr);
    char ix[8] = "  -"; /* no index (a source naming GPUs by UUID alone) */
    if (g->index >= 0)
        snprintf(ix, sizeof ix, "%3d", g->index);
    int fx = c->nodew + c->modw;
    draw_textf(y, fx, cols - fx, attr, "%3s %5s %6s %6s %5s", ix, util, mem, pw, temp);
    int sx = fx + FIGURES_W;
    draw_sparkline(y, sx, c->sw, g->spark, g->n_spark, 100, attr ? attr : draw_attr(PAL_GOOD));
    char note[96], age[24];
    gp_format_age(f->at_ms - g->last_seen_ms, age, sizeof age);
    snprintf(note, sizeof note, "%s%s%s%s", g->stale ? "stale " : "", g->stale ? age : "",
             g->stale && g->alerts[0] ? " " : "", g->alerts);
    draw_text(y, sx + c->sw + 1, cols - sx - c->sw - 1, note, attr);
}

/* The GPUs from row y, h rows, under their header, scrolled to keep the selection shown. */
static void fleet_table(tui *t, const fleet_data *f, int y, int h, int cols) {
    fleet_cols c = fleet_columns(f, cols);
    draw_textf(y - 1, 0, cols, draw_attr(PAL_TITLE), "%-*s %-*s%3s %5s %6s %6s %5s %-*s %s",
               c.nodew - 1, "node", c.modw, c.modw ? "model" : "", "GPU", "util", "mem%", "W", "C",
               c.sw, "last hour", "alerts");
    fv(t)->top = tui_scroll(fv(t)->sel, fv(t)->top, h, f->n);
    for (int i = 0; i < h && fv(t)->top + i < f->n; i++) {
        int k = fv(t)->top + i;
        const fleet_gpu *g = &f->g[k];
        int attr = k == fv(t)->sel ? draw_attr(PAL_ACTIVE)
                   : g->alerts[0]  ? draw_attr(PAL_BAD)
                   : g->stale      ? draw_attr(PAL_DIM)
                                   : 0;
        fleet_row(f, g, &c, y + i, cols, attr);
    }
}

/* The widths of the detail's model and UUID columns in room columns: as wide as they are;
 * short of room the model gives way first (to 12), then the UUID loses its middle (UUIDs
 * differ at both ends). */
static void detail_widths(const fleet_data *f, const char *node, int room, int *mw, int *uw) {
    *mw = 5, *uw = 4;
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->g[i].node, node)) {
            int a = draw_width(f->g[i].display), b = draw_width(f->g[i].uuid);
            *mw = a > *mw ? a : *mw;
            *uw = b > *uw ? b : *uw;
        }
    if (*mw + *uw + 2 > room) {
        *mw = room - *uw - 2 < 12 ? 12 : room - *uw - 2 < *mw ? room - *uw - 2 : *mw;
        *uw = room - *mw - 2 < *uw ? room - *mw - 2 : *uw;
    }
}

/* GPU g's row of the detail at (y, x), w columns. */
static void detail_row(const fleet_data *f, const fleet_gpu *g, int y, int x, int w, int mw, int uw,
                       int attr) {
    if (g->index >= 0)
        draw_textf(y, x, 4, attr, "%3d", g->index);
    else
        draw_text(y, x, 4, "  -", attr);
    draw_text_mid(y, x + 4, mw, g->display, attr);
    draw_text_mid(y, x + 5 + mw, uw, g->uuid, attr);
    char age[24] = "";
    if (g->stale)
        gp_format_age(f->at_ms - g->last_seen_ms, age, sizeof age);
    draw_textf(y, x + 6 + mw + uw, w - (6 + mw + uw), attr, "%9.0f %7.0f%s%s%s%s", g->mem_used,
               g->power_limit, g->mig[0] ? " MIG " : "", g->mig, g->stale ? " stale " : "", age);
}

/* The node's pop-up over the table: what it draws and costs now, then each of its GPUs. */
static void node_detail(const tui *t, const fleet_data *f, const char *node) {
    int rows = tui_rows(), cols = tui_cols();
    int n = 0;
    double nw = 0, nkwh = 0;
    for (int i = 0; i < f->n; i++) {
        if (strcmp(f->g[i].node, node))
            continue;
        n++;
        if (!f->g[i].stale) /* what it draws now */
            nw += f->g[i].power, nkwh += f->g[i].kwh_today;
    }
    int ph = n + 4 < rows - TOP - 1 ? n + 4 : rows - TOP - 1, pw = cols - 4;
    int py = TOP + 1, x = 2 + 1, attr = draw_attr(PAL_ACTIVE);
    for (int r = 0; r < ph; r++)
        draw_fill(py + r, x - 1, pw, attr);
    double price, pue;
    power_price(t, &price, &pue);
    char clean[80], ng[48];
    draw_clean(node, clean, sizeof clean);
    draw_textf(py, x, pw - 2, attr, "%s: %s, %.0f W, %.2f %s/h, %.1f kWh today (Esc closes)", clean,
               gp_fmt_count(n, "GPU", "GPUs", ng, sizeof ng), nw, nw / 1000 * pue * price,
               t->has_sc ? t->sc.s->currency : "", nkwh);
    int mw, uw;
    detail_widths(f, node, pw - 2 - (4 + 10 + 8 + 16), &mw, &uw);
    draw_textf(py + 1, x, pw - 2, attr, "%3s %-*s %-*s %9s %7s", "GPU", mw, "model", uw, "UUID",
               "mem MiB", "limit W");
    int r = 0;
    for (int i = 0; i < f->n && r < ph - 3; i++)
        if (!strcmp(f->g[i].node, node))
            detail_row(f, &f->g[i], py + 2 + r++, x, pw - 2, mw, uw, attr);
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
    fleet_summary(t, f, cols);
    fleet_table(t, f, TOP + 3, rows - TOP - 5, cols);
    draw_text(rows - 2 - (f->error[0] ? 1 : 0), 0, cols,
              "Enter: the node  j/k PgUp/PgDn: move  (refreshed every 5 s)", draw_attr(PAL_DIM));
    if (fv(t)->detail && fv(t)->sel < f->n)
        node_detail(t, f, f->g[fv(t)->sel].node);
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
