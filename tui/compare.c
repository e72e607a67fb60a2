/* The Compare and Break-even tabs: the open scenario's result, ranked and drawn. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "scen.h"
#include "gpuplan/engine.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/scenario.h"
#include "view.h"

/* ---- Compare ---------------------------------------------------------------------------- */

/* The Compare screen's own state: the column sorted on, and which way. */
typedef struct compare_view {
    int col;
    bool desc;
} compare_view;

static compare_view *cv(const tui *t) {
    return t->view[TAB_COMPARE];
}

static void *compare_init(tui *t) {
    (void)t;
    compare_view *v = gp_xcalloc(1, sizeof *v);
    v->col = 1; /* the total */
    return v;
}

/* C_UNIT, the cost per unit of work, is a column in work mode only. */
enum { C_NAME, C_TOTAL, C_NPV, C_GPUH, C_UNIT, C_BEM, C_BEU, C_N };
static const char *const heads[C_N] = {"option",   "total",      "NPV",      "per GPU-h",
                                       "per unit", "even month", "even util"};

static bool shown(const tui *t, int col) {
    return col != C_UNIT || (t->has_sc && t->r->work_mode);
}

/* The column after col in direction dir (+1, -1), skipping one not shown. */
static int next_col(const tui *t, int col, int dir) {
    do
        col = (col + dir + C_N) % C_N;
    while (!shown(t, col));
    return col;
}

/* A figure's width: 12, or 11 when work mode's extra column must fit in 80. */
static int num_w(const tui *t) {
    return shown(t, C_UNIT) && tui_cols() < 6 * 12 + 13 ? 11 : 12;
}

/* v with as many significant digits as w columns hold (at least 3), never cut: a unit of
 * work can cost a fraction of a cent, which a money format would show as 0.00. */
static void fit_sig(double v, int w, char *out, size_t cap) {
    for (int d = 6; d >= 3; d--) {
        snprintf(out, cap, "%.*g", d, v);
        if (draw_width(out) <= w)
            return;
    }
}

/* Row k: -1 self-hosted, else an option. Missing values sort last. */
static double cell(const tui *t, int k, int col, bool *has) {
    const gp_result *r = t->r;
    *has = true;
    if (k < 0) {
        switch (col) {
        case C_TOTAL:
            return r->self.total;
        case C_NPV:
            return r->self.npv;
        case C_GPUH: {
            double v;
            *has = gp_result_cost_per_gpu_hour(t->sc.s, r, -1, &v);
            return v;
        }
        case C_UNIT: {
            double v;
            *has = gp_result_cost_per_work_unit(r, -1, &v);
            return v;
        }
        default:
            *has = false;
            return 0;
        }
    }
    const gp_option_result *o = &r->options[k];
    switch (col) {
    case C_TOTAL:
        return o->total;
    case C_NPV:
        return o->npv;
    case C_GPUH: {
        double v;
        *has = gp_result_cost_per_gpu_hour(t->sc.s, r, k, &v);
        return v;
    }
    case C_UNIT: {
        double v;
        *has = gp_result_cost_per_work_unit(r, k, &v);
        return v;
    }
    case C_BEM:
        *has = o->has_break_even_month;
        return o->break_even_month;
    case C_BEU:
        *has = o->has_break_even_utilization;
        return o->break_even_utilization;
    default:
        *has = false;
        return 0;
    }
}

/* The option column: what is left of the terminal, from 12 columns up to what the longest
 * name needs. */
static int name_width(const tui *t) {
    int want = 14; /* "* self-hosted" */
    if (t->has_sc)
        for (int i = 0; i < t->sc.s->n_options; i++) {
            int w = draw_width(t->sc.s->options[i].name) + 3;
            want = w > want ? w : want;
        }
    int figs = C_N - 1 - !shown(t, C_UNIT);
    int nw = tui_cols() - figs * num_w(t) - 1;
    return nw < 12 ? 12 : nw > want ? want : nw;
}

static const tui *sorting; /* qsort's context: the TUI runs on one thread */

static const char *row_name(const tui *t, int k) {
    return k < 0 ? "self-hosted" : t->sc.s->options[k].name;
}

static int cmp_rows(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    const tui *t = sorting;
    int c;
    if (cv(t)->col == C_NAME) {
        c = strcmp(row_name(t, x), row_name(t, y));
    } else {
        bool hx, hy;
        double vx = cell(t, x, cv(t)->col, &hx), vy = cell(t, y, cv(t)->col, &hy);
        if (hx != hy)
            return hx ? -1 : 1; /* missing last, either direction */
        c = (vx > vy) - (vx < vy);
    }
    if (cv(t)->desc)
        c = -c;
    return c ? c : x - y;
}

/* The title: the scenario's name (a long one gives way in its middle), then the figures
 * whole. */
static void compare_title(const gp_scenario *s, int cols) {
    char what[2 * GP_UNIT_BYTES + 128], nm[32], ng[48];
    gp_fmt_count(s->horizon_months, "month", "months", nm, sizeof nm);
    char work[48];
    if (s->work_mode)
        snprintf(what, sizeof what, ": %s, %s %s a month at %.1f %% (%s; per unit: per %s)", nm,
                 gp_fmt_sig_grouped(s->work_per_month, 6, work, sizeof work), s->work_unit,
                 s->utilization * 100, s->currency, s->work_unit);
    else
        snprintf(what, sizeof what, ": %s, %s at %.1f %% (%s)", nm,
                 gp_fmt_count(s->gpus, "GPU", "GPUs", ng, sizeof ng), s->utilization * 100,
                 s->currency);
    int ww = draw_width(what), tw = draw_text_mid(TOP, 0, cols - ww, s->name, draw_attr(PAL_TITLE));
    draw_text(TOP, tw, cols - tw, what, draw_attr(PAL_TITLE));
}

/* The header at y: the column sorted on highlighted, with its direction. */
static void compare_header(const tui *t, int y, int nw) {
    int x = 0, NUM_W = num_w(t);
    for (int c = 0; c < C_N; c++) {
        if (!shown(t, c))
            continue;
        int w = c == C_NAME ? nw : NUM_W;
        char h[32];
        snprintf(h, sizeof h, "%s%s", heads[c], c == cv(t)->col ? (cv(t)->desc ? " v" : " ^") : "");
        int attr = c == cv(t)->col ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_TITLE);
        if (c == C_NAME)
            draw_textf(y, x, w, attr, "  %-*s", w - 3, h);
        else
            draw_textf(y, x, w, attr, "%*s", w - 1, h);
        x += w;
    }
}

/* Column c's figure v (has: there is one) in at most w columns. */
static void figure_text(int c, double v, bool has, int w, char *out, size_t cap) {
    if (!has)
        snprintf(out, cap, "-");
    else if (c == C_BEM)
        snprintf(out, cap, "%d", (int)v);
    else if (c == C_BEU)
        snprintf(out, cap, "%.1f %%", v * 100);
    else if (c == C_GPUH)
        snprintf(out, cap, "%.3f", v);
    else if (c == C_UNIT)
        fit_sig(v, w, out, cap);
    else
        draw_money_fit(v, w, out, cap);
}

/* Row k (-1 self-hosted) at y: "* " marks the cheapest, every side at the lowest total when
 * they tie (the model's Ties), so a tie never reads as one side's win. */
static void compare_row(const tui *t, int k, int y, int nw) {
    int NUM_W = num_w(t);
    const gp_result *r = t->r;
    int tied[GP_MAX_OPTIONS + 1], nt = gp_report_tied(r, r->cheapest, tied, GP_MAX_OPTIONS + 1);
    bool cheapest = k == r->cheapest;
    for (int i = 0; i < nt && !cheapest; i++)
        cheapest = tied[i] == k;
    int attr = cheapest ? draw_attr(PAL_GOOD) : 0;
    draw_text(y, 0, 2, cheapest ? "* " : "  ", attr);
    draw_text_mid(y, 2, nw - 3, row_name(t, k), attr);
    int x = nw;
    for (int c = 1; c < C_N; c++) {
        if (!shown(t, c))
            continue;
        bool has;
        double v = cell(t, k, c, &has);
        char fig[40];
        figure_text(c, v, has, NUM_W - 1, fig, sizeof fig);
        draw_textf(y, x, NUM_W, attr, "%*s", NUM_W - 1, fig);
        x += NUM_W;
    }
}

/* The keys and the legend under the table: one line where they fit; else two where the table
 * leaves the row above free (at 80 columns, beside a few options); else one shortened line,
 * the legend's asides going first and the keys last. */
static void compare_footer(bool two_rows, int cols) {
    static const char *const one[] = {
        "Left/Right: sort column  r: reverse  * the cheapest (more than one: a tie); "
        "even: where self-hosted breaks even against it",
        "Left/Right sort  r reverse  * cheapest (all at a tie)  even: self-hosted's break-even",
        "Left/Right sort  r reverse  * cheapest (all at a tie)  even: break-even",
        "Left/Right sort  r reverse  * cheapest  even: break-even",
        "Left/Right sort  r reverse",
        NULL};
    static const char *const keys[] = {
        "Left/Right: sort column  r: reverse  * the cheapest (more than one: a tie)",
        "Left/Right sort  r reverse  * cheapest (all at a tie)", "Left/Right sort  r reverse",
        NULL};
    static const char *const even[] = {"even: where self-hosted breaks even against it",
                                       "even: self-hosted's break-even", NULL};
    int y = tui_rows() - 2, attr = draw_attr(PAL_DIM);
    if (draw_width(one[0]) <= cols || !two_rows) {
        draw_text_fit(y, 0, cols, attr, one);
        return;
    }
    draw_text_fit(y - 1, 0, cols, attr, keys);
    draw_text_fit(y, 0, cols, attr, even);
}

static void compare_draw(tui *t) {
    if (!t->has_sc) {
        draw_text(TOP, 0, tui_cols(), "Open a scenario on the Plan tab (1).", draw_attr(PAL_DIM));
        return;
    }
    int cols = tui_cols();
    int n = t->sc.s->n_options + 1;
    int order[GP_MAX_OPTIONS + 1];
    for (int i = 0; i < n; i++)
        order[i] = i - 1;
    sorting = t;
    qsort(order, (size_t)n, sizeof *order, cmp_rows);
    int nw = name_width(t), y = TOP + 2;
    compare_title(t->sc.s, cols);
    compare_header(t, y, nw);
    for (int i = 0; i < n && y + 1 + i < tui_rows() - 2; i++)
        compare_row(t, order[i], y + 1 + i, nw);
    compare_footer(y + n < tui_rows() - 3, cols);
}

static unsigned compare_key(tui *t, int ch) {
    switch (ch) {
    case KEY_LEFT:
    case 'h':
        cv(t)->col = next_col(t, cv(t)->col, -1);
        return TUI_HANDLED;
    case KEY_RIGHT:
    case 'l':
        cv(t)->col = next_col(t, cv(t)->col, +1);
        return TUI_HANDLED;
    case 'r':
        cv(t)->desc = !cv(t)->desc;
        return TUI_HANDLED;
    }
    return 0;
}

static int compare_column_at(const tui *t, int x) {
    int nw = name_width(t);
    if (x < nw)
        return C_NAME;
    int k = (x - nw) / num_w(t), c = C_NAME;
    for (int i = 0; i <= k; i++)
        if (next_col(t, c, +1) > c)
            c = next_col(t, c, +1);
    return c;
}

/* ---- Break-even ------------------------------------------------------------------------- */

/* The options charted with self-hosted: the first 5. */
static int charted(const gp_scenario *s) {
    return s->n_options + 1 > 6 ? 6 : s->n_options + 1;
}

/* Cumulative cost by month under its title, h rows from TOP, cw columns: the earliest
 * break-even month of the options shown marked. */
static void month_chart(const tui *t, const chart_series *se, int h, int cw) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int ns = charted(s), mark = -1, mark_opt = -1;
    for (int k = 1; k < ns; k++)
        if (r->options[k - 1].has_break_even_month &&
            (mark < 0 || r->options[k - 1].break_even_month < mark))
            mark = r->options[k - 1].break_even_month, mark_opt = k - 1;
    char ml[256] = "";
    if (mark >= 0) {
        char nm[200]; /* the month must show whole: a long name gives way */
        draw_shorten(s->options[mark_opt].name, cw / 3 > 12 ? cw / 3 : 12, nm, sizeof nm);
        char lab[16];
        scen_month_label(t, mark, lab, sizeof lab);
        snprintf(ml, sizeof ml, "even with %s: month %d (%s)", nm, mark, lab);
    }
    draw_text(TOP, 0, cw, "Cumulative cost by month", draw_attr(PAL_TITLE));
    draw_chart(TOP + 1, 0, h - 1, cw, se, ns, 0, s->horizon_months, "month", mark,
               mark >= 0 ? ml : NULL, true);
}

/* The horizon total of self-hosted and each option over utilization u = 0..1, under its
 * title at y, h rows: the first option's break-even utilization marked. */
static void utilization_chart(const tui *t, const chart_series *se, int y, int h, int cw) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int ns = charted(s);
    enum { NU = 101 };
    double *tot = gp_xcalloc((size_t)ns * NU, sizeof *tot);
    for (int i = 0; i < NU; i++) {
        double u = i / (double)(NU - 1);
        tot[i] = gp_model_self_total(s, s->gpus, u);
        for (int k = 1; k < ns; k++)
            tot[(size_t)k * NU + (size_t)i] =
                gp_model_option_total(s, &s->options[k - 1], s->gpus, s->gpus * GP_MONTH_HOURS * u);
    }
    chart_series su[6];
    for (int k = 0; k < ns; k++)
        su[k] = (chart_series){tot + (size_t)k * NU, NU, se[k].name};
    int umark = -1;
    char ul[256] = "";
    for (int k = 1; k < ns && umark < 0; k++)
        if (r->options[k - 1].has_break_even_utilization) {
            umark = (int)lround(r->options[k - 1].break_even_utilization * (NU - 1));
            char nm[200];
            draw_shorten(s->options[k - 1].name, cw / 3 > 12 ? cw / 3 : 12, nm, sizeof nm);
            snprintf(ul, sizeof ul, "even with %s at %.1f %%", nm,
                     r->options[k - 1].break_even_utilization * 100);
        }
    draw_text(y, 0, cw, "Horizon total against utilization (%)", draw_attr(PAL_TITLE));
    draw_chart(y + 1, 0, h - 1, cw, su, ns, 0, 100, "utilization %", umark, umark >= 0 ? ul : NULL,
               true);
    free(tot);
}

/* The legend at (TOP, lx), w columns: each side's line, name and horizon total. */
static void breakeven_legend(const gp_scenario *s, const chart_series *se, int lx, int w) {
    int ns = charted(s);
    draw_text(TOP, lx, w, "Legend", draw_attr(PAL_TITLE));
    for (int k = 0; k < ns; k++) {
        char m[40];
        draw_money(se[k].y[se[k].n - 1], m, sizeof m);
        int y = TOP + 1 + 2 * k, attr = draw_attr(PAL_SERIES0 + k);
        draw_textf(y, lx, 2, attr, "%s ", draw_series_glyph(k));
        draw_text_mid(y, lx + 2, w - 2, se[k].name, attr);
        draw_textf(y + 1, lx, w, draw_attr(PAL_DIM), "  %s", m);
    }
    if (s->n_options + 1 > ns)
        draw_textf(TOP + 1 + 2 * ns, lx, w, draw_attr(PAL_DIM), "(first %d options)", ns - 1);
}

static void breakeven_draw(tui *t) {
    if (!t->has_sc) {
        draw_text(TOP, 0, tui_cols(), "Open a scenario on the Plan tab (1).", draw_attr(PAL_DIM));
        return;
    }
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int rows = tui_rows(), cols = tui_cols();
    int M = s->horizon_months, ns = charted(s);
    int legend_w = cols >= 110 ? 30 : 22;
    int cw = cols - legend_w - 1;
    int h1 = (rows - TOP - 2) / 2, h2 = rows - TOP - 2 - h1;
    /* Cumulative cost per month, self-hosted first. */
    double *cum = gp_xcalloc((size_t)ns * (size_t)(M + 1), sizeof *cum);
    chart_series se[6];
    for (int k = 0; k < ns; k++)
        se[k] =
            draw_running_total(k == 0 ? r->self.monthly : r->options[k - 1].monthly, M + 1,
                               cum + k * (M + 1), k == 0 ? "self-hosted" : s->options[k - 1].name);
    month_chart(t, se, h1, cw);
    utilization_chart(t, se, TOP + h1, h2, cw);
    breakeven_legend(s, se, cw + 1, legend_w);
    free(cum);
}

static void compare_click(tui *t, int row, int x) {
    if (row != TOP + 2)
        return;
    int c = compare_column_at(t, x);
    if (c == cv(t)->col)
        cv(t)->desc = !cv(t)->desc;
    cv(t)->col = c;
}

const tui_screen_ops compare_screen = {
    .name = "Compare",
    .draw = compare_draw,
    .on_key = compare_key,
    .init = compare_init,
    .click = compare_click,
};

const tui_screen_ops breakeven_screen = {
    .name = "Break-even",
    .draw = breakeven_draw,
};
