/* The Timeline tab: the open plan month by month (docs/model.md version 2). Above, demand against
 * the GPUs in service as a step chart, with the months servers are bought and sold and the
 * months the bridge rents marked in lanes under it; below, each side's cumulative cost with
 * the break-even month of one option marked. Months are labelled from start_date (else the
 * date the TUI prices as of), as the reports label them. It draws the engine's result and
 * computes nothing of the model. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "scen.h"
#include "view.h"

/* Sorted distinct values v[0..n) as "3-35", "0, 36" into out; "none" when n is 0. */
static void ranges(const int *v, int n, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    if (!n) {
        snprintf(out, cap, "none");
        return;
    }
    for (int i = 0; i < n && len + 1 < cap;) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        int w = j > i ? snprintf(out + len, cap - len, "%s%d-%d", len ? ", " : "", v[i], v[j])
                      : snprintf(out + len, cap - len, "%s%d", len ? ", " : "", v[i]);
        len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
        i = j + 1;
    }
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Distinct sorted indexes into v (room for n). */
static int distinct(int *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

/* The Timeline's own state: the option whose break-even month is marked (-1 the earliest),
 * for the plan opened as plan_gen. */
typedef struct timeline_view {
    int opt;
    unsigned plan_gen;
} timeline_view;

static timeline_view *tv(const tui *t) {
    return t->view[TAB_TIMELINE];
}

static void *timeline_init(tui *t) {
    timeline_view *v = gp_xcalloc(1, sizeof *v);
    v->opt = -1;
    v->plan_gen = t->plan_gen;
    return v;
}

/* Another plan opened since: its earliest break-even is marked again. */
static void timeline_enter(tui *t) {
    if (tv(t)->plan_gen != t->plan_gen)
        tv(t)->opt = -1, tv(t)->plan_gen = t->plan_gen;
}

/* The option whose break-even month is marked: the one chosen, else the earliest; -1 when
 * none breaks even. */
static int marked_option(const tui *t) {
    const gp_result *r = t->r;
    if (tv(t)->opt >= 0 && tv(t)->opt < r->n_options)
        return tv(t)->opt;
    int best = -1;
    for (int k = 0; k < r->n_options; k++)
        if (r->options[k].has_break_even_month &&
            (best < 0 || r->options[k].break_even_month < r->options[best].break_even_month))
            best = k;
    return best;
}

/* Demand against GPUs in service as a step chart of h rows under its title at y. Work mode
 * states demand as work: shown as the GPUs self-hosted needs for it at each month's
 * utilization, unrounded. */
static void demand_chart(const tui *t, int y, int h, int cw) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int M = s->horizon_months;
    double *dem = gp_xcalloc((size_t)M * 2, sizeof *dem), *srv = dem + M;
    for (int j = 0; j < M; j++) {
        if (!r->work_mode)
            dem[j] = r->demand_gpus[j];
        else if (r->demand_utilization[j] > 0 && s->work_per_gpu_hour > 0)
            dem[j] = r->demand_work_month[j] / s->work_per_gpu_hour /
                     (GP_MONTH_HOURS * r->demand_utilization[j]);
        srv[j] = (double)r->self.servers_in_service[j] * s->gpus_per_server;
    }
    char start[16];
    scen_month_label(t, 0, start, sizeof start);
    chart_series st[2] = {{dem, M, r->work_mode ? "demand as GPUs" : "demand"},
                          {srv, M, "GPUs in service"}};
    int tx = draw_text(y, 0, cw, "GPUs by month  ", draw_attr(PAL_TITLE));
    for (int k = 0; k < 2; k++) {
        char item[64];
        snprintf(item, sizeof item, "%s %s  ", draw_series_glyph(k), st[k].name);
        tx += draw_text(y, tx, cw - tx, item, draw_attr(PAL_SERIES0 + k));
    }
    draw_textf(y, tx, cw - tx, draw_attr(PAL_DIM), "%d months from %s", M, start);
    draw_step_chart(y + 1, 0, h, cw, st, 2, "index (month closed)");
    free(dem);
}

/* The months servers are bought and sold and the bridge rents: a flag at each index 0..M
 * for the lanes, and the distinct indexes, sorted, for the line under them. */
typedef struct plan_events {
    bool *bought, *sold, *bridged; /* M + 1 each; bridged over the month closing at j */
    int *ib, *is, *ix;             /* purchase, sale (before M) and bridge indexes */
    int nb, ns, nx;
} plan_events;

static void events_of(const gp_result *r, int M, plan_events *e) {
    int n = r->self.n_batches;
    e->bought = gp_xcalloc((size_t)(M + 1) * 3, sizeof *e->bought);
    e->sold = e->bought + M + 1, e->bridged = e->sold + M + 1;
    e->ib = gp_xcalloc((size_t)(n * 2 + M + 1), sizeof *e->ib);
    e->is = e->ib + n;
    e->nb = e->ns = e->nx = 0;
    for (int b = 0; b < n; b++) {
        const gp_batch *ba = &r->self.batches[b];
        e->bought[ba->index] = true;
        e->ib[e->nb++] = ba->index;
        e->sold[ba->exit] = true;
        if (ba->exit < M)
            e->is[e->ns++] = ba->exit;
    }
    e->ns = distinct(e->is, e->ns);
    e->ix = e->is + e->ns;
    for (int j = 1; j <= M; j++)
        if (r->self.bridge_hours[j - 1] > 0)
            e->bridged[j] = true, e->ix[e->nx++] = j;
    e->nb = distinct(e->ib, e->nb);
}

static void events_free(plan_events *e) {
    free(e->bought);
    free(e->ib);
}

/* A lane under the step chart: a name, then a glyph at each index (or over each month) set. */
static void lane(int y, int cw, int M, const char *name, const bool *at, bool months, long glyph,
                 char ascii, int attr) {
    draw_text(y, 0, 9, name, draw_attr(PAL_DIM));
    for (int m = 0; m <= M; m++) {
        if (!at[m])
            continue;
        int c0 = draw_chart_column(0, cw, M + 1, months ? m - 1 : m),
            c1 = draw_chart_column(0, cw, M + 1, m);
        for (int c = months && c1 > c0 ? c0 + 1 : c1; c >= 0 && c <= c1; c++)
            draw_glyph(y, c, glyph, ascii, attr);
    }
}

/* Dates under the lanes: the start, the middle where it fits, and the end. */
static void month_dates(const tui *t, int y, int cw) {
    int M = t->sc.s->horizon_months;
    char start[16], mid[16], end[16];
    scen_month_label(t, 0, start, sizeof start);
    scen_month_label(t, M / 2, mid, sizeof mid);
    scen_month_label(t, M, end, sizeof end);
    int c0 = draw_chart_column(0, cw, M + 1, 0), cm = draw_chart_column(0, cw, M + 1, M / 2),
        c1 = draw_chart_column(0, cw, M + 1, M);
    if (c0 < 0)
        return;
    draw_text(y, c0, cw - c0, start, draw_attr(PAL_DIM));
    int mw = (int)strlen(mid), ew = (int)strlen(end);
    if (cm - mw / 2 > c0 + (int)strlen(start) + 1 && cm + mw - mw / 2 < c1 - ew)
        draw_text(y, cm - mw / 2, mw, mid, draw_attr(PAL_DIM));
    draw_text(y, c1 + 1 - ew, ew, end, draw_attr(PAL_DIM));
}

/* The events as indexes, as the reports' purchases and sales give them; the exit value is
 * credited at M for whatever is still held. */
static void event_line(const gp_result *r, const plan_events *e, int M, int y, int cw) {
    char rb[256], rs[256], rx[256];
    ranges(e->ib, e->nb, rb, sizeof rb);
    ranges(e->is, e->ns, rs, sizeof rs);
    ranges(e->ix, e->nx, rx, sizeof rx);
    char exit_at[32] = "";
    if (r->self.n_batches)
        snprintf(exit_at, sizeof exit_at, "  exit value at %d", M);
    draw_textf(y, 0, cw, draw_attr(PAL_NORMAL),
               "bridge months %s  sold at %s%s  %d purchase%s at %s", rx, rs, exit_at,
               r->self.n_batches, r->self.n_batches == 1 ? "" : "s", rb);
}

/* The three lanes, the dates under them and the events' line, from y: 5 rows. */
static void event_rows(const tui *t, int y, int cw) {
    int M = t->sc.s->horizon_months;
    plan_events e;
    events_of(t->r, M, &e);
    lane(y, cw, M, "  bought", e.bought, false, 0x25b2, '^', draw_attr(PAL_GOOD));
    lane(y + 1, cw, M, "  sold", e.sold, false, 0x25bc, 'v', draw_attr(PAL_BAD));
    lane(y + 2, cw, M, "  bridge", e.bridged, true, 0x2550, '=', draw_attr(PAL_SERIES0 + 2));
    month_dates(t, y + 3, cw);
    event_line(t->r, &e, M, y + 4, cw);
    events_free(&e);
}

/* What the cost chart's title says of option mo (-1 none) and its break-even month mark
 * (-1 never): the month and its date always whole, the name taking the rest of the line. */
static void mark_text(const tui *t, int mo, int mark, int cw, char *out, size_t cap) {
    char nm[200] = "";
    int name_w = cw - 17 - (int)strlen(": month 240 (2026-11-23)") - (int)strlen("even with ");
    out[0] = '\0';
    if (mo >= 0)
        draw_shorten(t->sc.s->options[mo].name, name_w > 12 ? name_w : 12, nm, sizeof nm);
    if (mark >= 0) {
        char lab[16];
        scen_month_label(t, mark, lab, sizeof lab);
        snprintf(out, cap, "even with %s: month %d (%s)", nm, mark, lab);
    } else if (mo >= 0) {
        snprintf(out, cap, "never even with %s", nm);
    }
}

/* The cost chart's legend at y: each side with its break-even month, the marked one
 * (option mo) highlighted. */
static void cost_legend(const tui *t, const chart_series *se, int nser, int mo, int y, int cw) {
    int lx = 0, each = nser ? cw / nser : cw;
    for (int k = 0; k < nser && lx < cw; k++) {
        char item[256], be[32] = "";
        if (k > 0) {
            const gp_option_result *o = &t->r->options[k - 1];
            if (o->has_break_even_month)
                snprintf(be, sizeof be, " even %d", o->break_even_month);
            else
                snprintf(be, sizeof be, " never");
        }
        char name[200];
        int room = each - 3 - (int)strlen(be);
        draw_shorten(se[k].name, room > 4 ? room : 4, name, sizeof name);
        snprintf(item, sizeof item, "%s %s%s ", draw_series_glyph(k), name, be);
        lx +=
            draw_text(y, lx, cw - lx, item, draw_attr(k == mo + 1 ? PAL_ACTIVE : PAL_SERIES0 + k));
    }
}

/* Each side's cumulative cost under its title at y, h rows, with the marked option's
 * break-even month; the legend on the row after. */
static void cost_chart(const tui *t, int y, int h, int cw) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int M = s->horizon_months;
    int nser = s->n_options + 1 > 6 ? 6 : s->n_options + 1;
    double *cum = gp_xcalloc((size_t)nser * (size_t)(M + 1), sizeof *cum);
    chart_series se[6];
    for (int k = 0; k < nser; k++)
        se[k] =
            draw_running_total(k == 0 ? r->self.monthly : r->options[k - 1].monthly, M + 1,
                               cum + k * (M + 1), k == 0 ? "self-hosted" : s->options[k - 1].name);
    int mo = marked_option(t);
    int mark =
        mo >= 0 && r->options[mo].has_break_even_month ? r->options[mo].break_even_month : -1;
    char ml[256];
    mark_text(t, mo, mark, cw, ml, sizeof ml);
    int ty = draw_text(y, 0, cw, "Cumulative cost  ", draw_attr(PAL_TITLE));
    draw_text(y, ty, cw - ty, ml[0] ? ml : "no option breaks even", draw_attr(PAL_BAD));
    draw_chart(y + 1, 0, h, cw, se, nser, 0, M, "index (month closed)", mark, NULL, true);
    cost_legend(t, se, nser, mo, y + 1 + h, cw);
    free(cum);
}

static void timeline_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    if (!t->has_sc) {
        draw_text(TOP, 0, cols, "Open a scenario on the Plan tab (1).", draw_attr(PAL_DIM));
        return;
    }
    /* Rows: title, step chart, 3 lanes, dates, the events, title, cumulative chart, legend.
     * The charts share what is left, the upper one a row more. */
    int h = rows - TOP - 1, fixed = 8, h2 = (h - fixed) / 2, h1 = h - fixed - h2;
    demand_chart(t, TOP, h1, cols);
    event_rows(t, TOP + 1 + h1, cols);
    cost_chart(t, TOP + 6 + h1, h2, cols);
}

/* Left/Right: the option whose break-even month is marked (the earliest first). */
static unsigned timeline_key(tui *t, int ch) {
    if (!t->has_sc || !t->r->n_options)
        return 0;
    int n = t->r->n_options > 5 ? 5 : t->r->n_options; /* the options drawn */
    if (ch == KEY_RIGHT || ch == 'l')
        tv(t)->opt = tv(t)->opt + 1 >= n ? -1 : tv(t)->opt + 1;
    else if (ch == KEY_LEFT || ch == 'h')
        tv(t)->opt = tv(t)->opt < 0 ? n - 1 : tv(t)->opt - 1;
    else
        return 0;
    return TUI_HANDLED;
}

const tui_screen_ops timeline_screen = {
    .name = "Timeline",
    .draw = timeline_draw,
    .on_key = timeline_key,
    .init = timeline_init,
    .enter = timeline_enter,
};
