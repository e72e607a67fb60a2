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

/* The option whose break-even month is marked: the one chosen, else the earliest; -1 when
 * none breaks even. */
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

/* A lane under the step chart: a name, then a glyph at each index (or over each month) set. */
static void lane(int y, int cw, int M, const char *name, const bool *at, bool months, long glyph,
                 char ascii, int attr) {
    draw_text(y, 0, 9, name, draw_attr(PAL_DIM));
    for (int m = 0; m <= M; m++) {
        if (!at[m])
            continue;
        int c0 = draw_chart_column(0, cw, M + 1, months ? m - 1 : m),
            c1 = draw_chart_column(0, cw, M + 1, m);
        for (int c = months && c1 > c0 ? c0 + 1 : c1; c >= 0 && c <= c1; c++) {
            char g[8];
            if (draw_utf8())
                snprintf(g, sizeof g, "%c%c%c", (char)(0xe0 | glyph >> 12),
                         (char)(0x80 | ((glyph >> 6) & 0x3f)), (char)(0x80 | (glyph & 0x3f)));
            else
                snprintf(g, sizeof g, "%c", ascii);
            draw_text(y, c, 1, g, attr);
        }
    }
}

static void timeline_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    if (!t->has_sc) {
        draw_text(TOP, 0, cols, "Open a scenario on the Plan tab (1).", draw_attr(PAL_DIM));
        return;
    }
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int M = s->horizon_months, g = s->gpus_per_server;
    int h = rows - TOP - 1, cw = cols;
    /* Rows: title, step chart, 3 lanes, dates, what was marked, title, cumulative chart,
     * legend. The charts share what is left, the upper one a row more. */
    int fixed = 8, h2 = (h - fixed) / 2, h1 = h - fixed - h2;
    int y = TOP;

    /* Demand against GPUs in service. Work mode states demand as work: shown as the GPUs
     * self-hosted needs for it at each month's utilization, unrounded. */
    double *dem = gp_xcalloc((size_t)M * 2, sizeof *dem), *srv = dem + M;
    for (int j = 0; j < M; j++) {
        if (!r->work_mode)
            dem[j] = r->demand_gpus[j];
        else if (r->demand_utilization[j] > 0 && s->work_per_gpu_hour > 0)
            dem[j] = r->demand_work_month[j] / s->work_per_gpu_hour /
                     (GP_MONTH_HOURS * r->demand_utilization[j]);
        srv[j] = (double)r->self.servers_in_service[j] * g;
    }
    char start[16], end[16];
    scen_month_label(t, 0, start, sizeof start);
    scen_month_label(t, M, end, sizeof end);
    chart_series st[2] = {{dem, M, r->work_mode ? "demand as GPUs" : "demand"},
                          {srv, M, "GPUs in service"}};
    int tx = draw_text(y, 0, cw, "GPUs by month  ", draw_attr(PAL_TITLE));
    for (int k = 0; k < 2; k++) {
        char item[64];
        snprintf(item, sizeof item, "%s %s  ",
                 draw_utf8() ? "\xe2\x94\x80"
                 : k         ? "o"
                             : "*",
                 st[k].name);
        tx += draw_text(y, tx, cw - tx, item, draw_attr(PAL_SERIES0 + k));
    }
    draw_textf(y++, tx, cw - tx, draw_attr(PAL_DIM), "%d months from %s", M, start);
    draw_step_chart(y, 0, h1, cw, st, 2, "index (month closed)");
    y += h1;

    /* Lanes: purchases and sales at their indexes, bridge months over their spans. */
    bool *bought = gp_xcalloc((size_t)(M + 1) * 3, sizeof *bought), *sold = bought + M + 1,
         *bridged = sold + M + 1;
    int *ib = gp_xcalloc((size_t)(r->self.n_batches * 2 + M + 1), sizeof *ib);
    int nb = 0, ns = 0, nx = 0;
    int *is = ib + r->self.n_batches, *ix = is;
    for (int b = 0; b < r->self.n_batches; b++) {
        const gp_batch *ba = &r->self.batches[b];
        bought[ba->index] = true;
        ib[nb++] = ba->index;
        sold[ba->exit] = true;
    }
    for (int b = 0; b < r->self.n_batches; b++)
        if (r->self.batches[b].exit < M)
            is[ns++] = r->self.batches[b].exit;
    ns = distinct(is, ns);
    ix = is + ns;
    for (int j = 1; j <= M; j++)
        if (r->self.bridge_hours[j - 1] > 0)
            bridged[j] = true, ix[nx++] = j;
    nb = distinct(ib, nb);
    lane(y++, cw, M, "  bought", bought, false, 0x25b2, '^', draw_attr(PAL_GOOD));
    lane(y++, cw, M, "  sold", sold, false, 0x25bc, 'v', draw_attr(PAL_BAD));
    lane(y++, cw, M, "  bridge", bridged, true, 0x2550, '=', draw_attr(PAL_SERIES0 + 2));
    /* Dates under the lanes: the start, the middle and the end. */
    char mid[16];
    scen_month_label(t, M / 2, mid, sizeof mid);
    int c0 = draw_chart_column(0, cw, M + 1, 0), cm = draw_chart_column(0, cw, M + 1, M / 2),
        c1 = draw_chart_column(0, cw, M + 1, M);
    if (c0 >= 0) {
        draw_text(y, c0, cw - c0, start, draw_attr(PAL_DIM));
        int mw = (int)strlen(mid), ew = (int)strlen(end);
        if (cm - mw / 2 > c0 + (int)strlen(start) + 1 && cm + mw - mw / 2 < c1 - ew)
            draw_text(y, cm - mw / 2, mw, mid, draw_attr(PAL_DIM));
        draw_text(y, c1 + 1 - ew, ew, end, draw_attr(PAL_DIM));
    }
    y++;
    char rb[256], rs[256], rx[256];
    ranges(ib, nb, rb, sizeof rb);
    ranges(is, ns, rs, sizeof rs);
    ranges(ix, nx, rx, sizeof rx);
    /* Indexes, as the reports' purchases and sales give them; the exit value is credited at M
     * for whatever is still held. */
    char exit_at[32] = "";
    if (r->self.n_batches)
        snprintf(exit_at, sizeof exit_at, "  exit value at %d", M);
    draw_textf(y++, 0, cw, draw_attr(PAL_NORMAL),
               "bridge months %s  sold at %s%s  %d purchase%s at %s", rx, rs, exit_at,
               r->self.n_batches, r->self.n_batches == 1 ? "" : "s", rb);

    /* Cumulative cost of each side, the marked option's break-even month. */
    int nser = s->n_options + 1 > 6 ? 6 : s->n_options + 1;
    double *cum = gp_xcalloc((size_t)nser * (size_t)(M + 1), sizeof *cum);
    chart_series se[6];
    for (int k = 0; k < nser; k++) {
        const double *f = k == 0 ? r->self.monthly : r->options[k - 1].monthly;
        double acc = 0;
        for (int m = 0; m <= M; m++)
            cum[k * (M + 1) + m] = acc += f[m];
        se[k] = (chart_series){cum + k * (M + 1), M + 1,
                               k == 0 ? "self-hosted" : s->options[k - 1].name};
    }
    int mo = marked_option(t);
    int mark =
        mo >= 0 && r->options[mo].has_break_even_month ? r->options[mo].break_even_month : -1;
    /* The month and its date always show whole; the name takes the rest of the line. */
    char ml[256] = "", nm[200] = "";
    int name_w = cw - 17 - (int)strlen(": month 240 (2026-11-23)") - (int)strlen("even with ");
    if (mo >= 0)
        draw_shorten(s->options[mo].name, name_w > 12 ? name_w : 12, nm, sizeof nm);
    if (mark >= 0) {
        char lab[16];
        scen_month_label(t, mark, lab, sizeof lab);
        snprintf(ml, sizeof ml, "even with %s: month %d (%s)", nm, mark, lab);
    } else if (mo >= 0) {
        snprintf(ml, sizeof ml, "never even with %s", nm);
    }
    int ty = draw_text(y, 0, cw, "Cumulative cost  ", draw_attr(PAL_TITLE));
    draw_text(y++, ty, cw - ty, ml[0] ? ml : "no option breaks even", draw_attr(PAL_BAD));
    draw_chart(y, 0, h2, cw, se, nser, 0, M, "index (month closed)", mark, NULL, true);
    y += h2;
    /* Legend: each side, with its break-even month. */
    static const char ascii_glyph[6] = {'*', 'o', '+', 'x', '#', '@'};
    int lx = 0, each = nser ? cw / nser : cw;
    for (int k = 0; k < nser && lx < cw; k++) {
        char item[256], be[32] = "";
        if (k > 0) {
            const gp_option_result *o = &r->options[k - 1];
            if (o->has_break_even_month)
                snprintf(be, sizeof be, " even %d", o->break_even_month);
            else
                snprintf(be, sizeof be, " never");
        }
        char name[200];
        int room = each - 3 - (int)strlen(be);
        draw_shorten(se[k].name, room > 4 ? room : 4, name, sizeof name);
        if (draw_utf8())
            snprintf(item, sizeof item, "\xe2\x94\x80 %s%s ", name, be);
        else
            snprintf(item, sizeof item, "%c %s%s ", ascii_glyph[k], name, be);
        lx +=
            draw_text(y, lx, cw - lx, item, draw_attr(k == mo + 1 ? PAL_ACTIVE : PAL_SERIES0 + k));
    }
    free(dem);
    free(bought);
    free(ib);
    free(cum);
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
