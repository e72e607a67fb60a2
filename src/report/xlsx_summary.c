/* The Summary sheet of the procurement workbook: the answer, each side's total and break-even,
 * per-year totals (calendar and fiscal), the opening's sentences and the break-even chart. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_sheets.h"

/* A line chart of the Plan's cumulative series: self-hosted, then every option. */
static lxw_chart *cumulative_chart(book *b, const gp_scenario *s, const plan_cols *c, int M) {
    lxw_chart *chart = workbook_add_chart(b->wb, LXW_CHART_LINE);
    chart_title_set_name(chart, "Break-even: cumulative cost by month");
    for (int i = -1; i < s->n_options; i++) {
        int col = i < 0 ? c->cum : c->o[i].cum;
        lxw_chart_series *se = chart_add_series(chart, NULL, NULL);
        chart_series_set_categories(se, "Plan", 1, (lxw_col_t)c->m, (lxw_row_t)(M + 1),
                                    (lxw_col_t)c->m);
        chart_series_set_values(se, "Plan", 1, (lxw_col_t)col, (lxw_row_t)(M + 1), (lxw_col_t)col);
        chart_series_set_name_range(se, "Plan", 0, (lxw_col_t)col);
    }
    chart_axis_set_name(chart->x_axis, "index (0 = start, m = close of month m)");
    chart_axis_set_name(chart->y_axis, s->currency);
    return chart;
}

/* Per-year totals of every side by the Plan's year column (calendar or fiscal). */
static int year_table(wbctx *x, lxw_worksheet *ws, int row, bool fiscal, int y0, int fs) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    int M = x->M, n_years = (M + 10) / 12 + 1;
    text_cell(b, ws, row, 0,
              fiscal ? "fiscal year (named by the year it ends in)" : "calendar year", b->bold);
    text_cell(b, ws, row, 1, "self-hosted", b->bold);
    for (int i = 0; i < s->n_options; i++)
        text_cell(b, ws, row, 2 + i, s->options[i].name, b->bold);
    row++;
    char yr[64], last[64];
    plan_range(x, yr, sizeof yr, fiscal ? c->fy : c->year, true);
    ref(last, sizeof last, "Plan", M + 1, fiscal ? c->fy : c->year);
    char first[64];
    ref(first, sizeof first, "Plan", 1, fiscal ? c->fy : c->year);
    /* The year of index M, as the Plan's column gives it: years after it read "". */
    int mi = x->start_year * 12 + x->start_month - 1 + (M > 0 ? M - 1 : 0);
    int last_y = mi / 12 + (fiscal && fs > 1 && mi % 12 + 1 >= fs ? 1 : 0);
    for (int y = 0; y < n_years; y++, row++) {
        int R = row + 1;
        char fm[512];
        if (y0 + y > last_y) {
            snprintf(fm, sizeof fm, "=IF(%s+%d>%s,\"\",%s+%d)", first, y, last, first, y);
            keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, 0, fm, NULL, ""));
            for (int i = -1; i < s->n_options; i++) {
                char rg[64];
                plan_range(x, rg, sizeof rg, i < 0 ? c->flow : c->o[i].flow, true);
                snprintf(fm, sizeof fm, "=IF($A%d=\"\",\"\",SUMIFS(%s,%s,$A%d))", R, rg, yr, R);
                keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, (lxw_col_t)(2 + i), fm,
                                                    b->money, ""));
            }
            continue;
        }
        gp_xlsx_formula(b, ws, row, 0, y0 + y, NULL, "=IF(%s+%d>%s,\"\",%s+%d)", first, y, last,
                        first, y);
        for (int i = -1; i < s->n_options; i++) {
            int col = i < 0 ? c->flow : c->o[i].flow;
            const double *f = i < 0 ? x->r->self.monthly : x->r->options[i].monthly;
            double v = 0;
            for (int m = 0; m <= M; m++) {
                int k = (y0 * 12 + x->start_month - 1) + (m > 0 ? m - 1 : 0);
                int yy = k / 12 + (fiscal && fs > 1 && k % 12 + 1 >= fs ? 1 : 0);
                v += yy == y0 + y ? f[m] : 0;
            }
            char rg[64];
            plan_range(x, rg, sizeof rg, col, true);
            gp_xlsx_formula(b, ws, row, 2 + i, v, b->money,
                            "=IF($A%d=\"\",\"\",SUMIFS(%s,%s,$A%d))", R, rg, yr, R);
        }
    }
    return row;
}

/* The Markdown report's opening, below the year tables: where the utilization and the
 * electricity price come from and the break-even points, as gpuplan wrote the workbook
 * (text, so it does not follow edits; the busy-hours rule is row 6). Returns the next row. */
static int opening_rows(wbctx *x, lxw_worksheet *ws, int row) {
    gp_opening *o = gp_xmalloc(sizeof *o);
    gp_report_opening(x->s, x->r, x->meta, o);
    text_cell(x->b, ws, row++, 0, "What decides this (as written; the figures above recalculate)",
              x->b->bold);
    for (int i = 1; i < o->n; i++)
        text_cell(x->b, ws, row++, 0, o->line[i], NULL);
    free(o);
    return row;
}

/* The Summary's rows: its head (HEAD), self-hosted (FIRST), then one an option; in work mode the
 * cost per busy GPU-hour sits in the first column after the hidden helpers (12..16), so it
 * shows next to the visible ones. Two more hidden helpers follow it: whether the side rests on
 * spot capacity (SPOT) and whether it has the lowest total of those that do not (LOW_G). */
enum { HEAD = 9, FIRST = 10, PER_GPU_H = 17, SPOT = 18, LOW_G = 19 };

/* D3, beside the cheapest guaranteed side's total, as the Markdown report says it: the other
 * guaranteed sides at that total ("A tie with od: the same total."), and, when self-hosted is
 * one of them with servers and no exit value, that the exit value is credited at 0. Live: the
 * LOW_G helpers, the Plan's exit value and servers in service; cached for g (-2: none). */
static void guaranteed_caveat(wbctx *x, lxw_worksheet *ws, int g) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int a = FIRST + 1, z = FIRST + 1 + s->n_options; /* 1-based rows of the sides */
    char lg[8], ev[64], srv[64], list[6144] = "", cond[128], f[8192];
    col_name(LOW_G, lg);
    ref(ev, sizeof ev, "Plan", x->M + 1, x->c.exit);
    plan_range(x, srv, sizeof srv, x->c.inservice, false);
    /* Every guaranteed side at the lowest total after the first (the one B3 names). */
    for (int k = a; k <= z; k++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l,
                 "%sIF(AND($%s$%d=1,COUNTIF($%s$%d:$%s$%d,1)>1),\", \"&$A$%d,\"\")",
                 k > a ? "&" : "", lg, k, lg, a, lg, k, k);
    }
    snprintf(cond, sizeof cond, "COUNTIF($%s$%d:$%s$%d,1)>1", lg, a, lg, z);
    char zero[128], exit_s[256];
    snprintf(zero, sizeof zero, "AND($%s$%d=1,%s=0,MAX(%s)>0)", lg, a, ev, srv);
    snprintf(exit_s, sizeof exit_s,
             "Self-hosted's total includes no exit value: hardware still held at month %d is "
             "credited at 0.",
             x->M);
    snprintf(f, sizeof f,
             "=IF(%s,\"A tie with \"&MID(%s,3,32767)&\": the same total.\",\"\")&IF(AND(%s,%s),"
             "\" \",\"\")&IF(%s,\"%s\",\"\")",
             cond, list, cond, zero, zero, exit_s);
    /* The cached text, as report_spot.c and report_text.c decide. */
    size_t cap = (GP_MAX_OPTIONS + 1) * (GP_NAME_BYTES + 2) + 512;
    char *cached = gp_xmalloc(cap);
    *cached = '\0';
    int tied[GP_MAX_OPTIONS + 1], nt = 0;
    bool self_low = false;
    if (g >= -1) {
        nt = gp_report_guaranteed_tied(s, r, g, tied, GP_MAX_OPTIONS + 1);
        self_low = g < 0 || (nt > 0 && tied[0] < 0);
    }
    for (int i = 0; i < nt; i++) {
        char name[GP_NAME_BYTES];
        gp_text_clean(tied[i] < 0 ? "self-hosted" : s->options[tied[i]].name, name, sizeof name);
        size_t l = strlen(cached);
        snprintf(cached + l, cap - l, "%s%s", i ? ", " : "A tie with ", name);
    }
    if (nt) {
        size_t l = strlen(cached);
        snprintf(cached + l, cap - l, ": the same total.");
    }
    if (self_low && r->self.exit_value == 0.0 && r->self.servers > 0) {
        size_t l = strlen(cached);
        snprintf(cached + l, cap - l, "%s%s", nt ? " " : "", exit_s);
    }
    keep(b, worksheet_write_formula_str(ws, 2, 3, f, NULL, cached));
    free(cached);
}

/* Rows 3 and 4 (1-based): the cheapest side with guaranteed capacity (not resting on spot,
 * which the provider can reclaim) and its total, from the hidden helpers SPOT and LOW_G; then,
 * when the cheapest rests on spot, a line that says so. Cached as report_spot.c decides. */
static void summary_guaranteed(wbctx *x, lxw_worksheet *ws, const char *cheapest) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int a = FIRST + 1, z = FIRST + 1 + s->n_options; /* 1-based rows of the sides */
    char sp[8], lg[8], f[2048];
    col_name(SPOT, sp);
    col_name(LOW_G, lg);
    int g;
    bool has_g = gp_report_guaranteed(s, r, &g);
    char name[GP_NAME_BYTES] = "none";
    if (has_g)
        gp_text_clean(g < 0 ? "self-hosted" : s->options[g].name, name, sizeof name);
    text_cell(b, ws, 2, 0, "cheapest with guaranteed capacity (not spot)", NULL);
    snprintf(f, sizeof f,
             "=IF(COUNTIF($%s$%d:$%s$%d,1)=0,\"none\",INDEX($A$%d:$A$%d,MATCH(1,$%s$%d:$%s$%d,0)))",
             lg, a, lg, z, a, z, lg, a, lg, z);
    keep(b, worksheet_write_formula_str(ws, 2, 1, f, NULL, name));
    snprintf(f, sizeof f,
             "=IF(COUNTIF($%s$%d:$%s$%d,1)=0,\"\",INDEX($B$%d:$B$%d,MATCH(1,$%s$%d:$%s$%d,0)))", lg,
             a, lg, z, a, z, lg, a, lg, z);
    maybe(b, ws, 2, 2, has_g, has_g ? (g < 0 ? r->self.total : r->options[g].total) : 0, b->money,
          f);
    guaranteed_caveat(x, ws, has_g ? g : -2);
    char note[2 * GP_NAME_BYTES + 160] = "";
    if (gp_report_rests_on_spot(s, r, r->cheapest))
        snprintf(note, sizeof note,
                 "%s rests on spot capacity, which the provider can reclaim; cheapest with "
                 "guaranteed capacity: %s.",
                 cheapest, name);
    snprintf(f, sizeof f,
             "=IF(INDEX($%s$%d:$%s$%d,MATCH(1,$M$%d:$M$%d,0))=1,B2&\" rests on spot capacity, "
             "which the provider can reclaim; cheapest with guaranteed capacity: \"&B3&\".\",\"\")",
             sp, a, sp, z, a, z);
    keep(b, worksheet_write_formula_str(ws, 3, 0, f, b->bold, note));
}

/* The answer, the plan's start, horizon and demand, and the table's head. */
static void summary_head(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int M = x->M, no = x->s->n_options;
    text_cell(b, ws, 0, 0, s->name, b->bold);
    int last = FIRST + no; /* 0-based row of the last option */
    text_cell(b, ws, 1, 0, "cheapest (lowest total; ties: the first listed)", NULL);
    char f[8192];
    snprintf(f, sizeof f, "=INDEX($A$%d:$A$%d,MATCH(1,$M$%d:$M$%d,0))", FIRST + 1, last + 1,
             FIRST + 1, last + 1);
    char cheapest[GP_NAME_BYTES];
    gp_text_clean(r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name, cheapest,
                  sizeof cheapest);
    keep(b, worksheet_write_formula_str(ws, 1, 1, f, b->bold, cheapest));
    summary_guaranteed(x, ws, cheapest);
    text_cell(b, ws, 4, 0, "plan starts (month 1 begins)", NULL);
    gp_xlsx_formula(b, ws, 4, 1, month_serial(x->start_year, x->start_month, x->start_day), b->date,
                    "=start_date");
    text_cell(b, ws, 5, 0, "horizon (months)", NULL);
    gp_xlsx_formula(b, ws, 5, 1, M, NULL, "=horizon_months");
    char wr[64];
    plan_range(x, wr, sizeof wr, c->w, false);
    text_cell(b, ws, 6, 0,
              s->work_mode ? "demand over the horizon (work units)"
                           : "demand over the horizon (busy GPU-hours)",
              NULL);
    gp_xlsx_formula(b, ws, 6, 1, r->demand_work, b->num, "=SUM(%s)", wr);
    text_cell(b, ws, 7, 0,
              "Rented GPUs are billed for busy hours only (times each option's idle overhead); "
              "owned GPUs cost the same busy or idle.",
              NULL);
    static const char *const heads[] = {"option",
                                        "total",
                                        "NPV",
                                        NULL,
                                        "option - self-hosted",
                                        "break-even month",
                                        "payback month",
                                        "break-even month without exit value",
                                        "payback month without exit value",
                                        "break-even hourly",
                                        "break-even utilization",
                                        "= busy hours a year per GPU",
                                        "lowest total",
                                        "slope in hourly",
                                        "self-hosted slope",
                                        "option at hourly 0",
                                        "self-hosted at hourly 0"};
    worksheet_set_row(ws, HEAD, 45, NULL);
    char per_unit[GP_UNIT_BYTES + 8];
    snprintf(per_unit, sizeof per_unit, "per %s", s->work_unit[0] ? s->work_unit : "work unit");
    for (int k = 0; k < 17; k++)
        text_cell(b, ws, HEAD, k,
                  heads[k]       ? heads[k]
                  : s->work_mode ? per_unit
                                 : "per busy GPU-hour",
                  b->head);
    if (s->work_mode)
        text_cell(b, ws, HEAD, PER_GPU_H, "per busy GPU-hour (its own throughput)", b->head);
    text_cell(b, ws, HEAD, SPOT, "rests on spot", b->head);
    text_cell(b, ws, HEAD, LOW_G, "lowest guaranteed total", b->head);
}

/* Side i's SPOT and LOW_G helpers: spot pricing rests on spot; a committed option's spot burst
 * and self-hosted's spot bridge only when they do some work (report_spot.c). */
static void summary_spot(wbctx *x, lxw_worksheet *ws, int i, int row) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int R = row + 1, a = FIRST + 1, z = FIRST + 1 + s->n_options;
    bool on = gp_report_rests_on_spot(s, r, i);
    int via = i < 0 ? s->bridge : s->options[i].pricing == GP_COMMITTED ? s->options[i].burst : -1;
    bool spot_via = via >= 0 && s->options[via].pricing == GP_SPOT;
    if (i >= 0 && s->options[i].pricing == GP_SPOT) {
        num_cell(b, ws, row, SPOT, 1, NULL);
    } else if (spot_via && (i < 0 || s->options[i].has_base_gpus)) {
        char rg[64];
        plan_range(x, rg, sizeof rg, i < 0 ? x->c.bridge : x->c.o[i].burst, false);
        gp_xlsx_formula(b, ws, row, SPOT, on, NULL, "=IF(SUM(%s)>0,1,0)", rg);
    } else {
        num_cell(b, ws, row, SPOT, 0, NULL);
    }
    int g;
    bool low = !on && gp_report_guaranteed(s, r, &g) &&
               gp_money_equal(i < 0 ? r->self.total : r->options[i].total,
                              g < 0 ? r->self.total : r->options[g].total);
    char sp[8], mn[128];
    col_name(SPOT, sp);
    snprintf(mn, sizeof mn, "_xlfn.MINIFS($B$%d:$B$%d,$%s$%d:$%s$%d,0)", a, z, sp, a, sp, z);
    gp_xlsx_formula(b, ws, row, LOW_G, low, NULL,
                    "=IF(%s%d=1,0,IF(ABS(B%d-%s)<=1E-9*MAX(1,ABS(B%d),ABS(%s)),1,0))", sp, R, R, mn,
                    R, mn);
}

/* Option i's break-even and payback months (with and without the exit value), its slopes and
 * its break-even hourly, in row `row`. */
static void summary_option_row(wbctx *x, lxw_worksheet *ws, int i, int row, const char *mr) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int R = row + 1;
    char f[8192];
    const gp_option_result *orr = &r->options[i];
    const opt_cols *oc = &c->o[i];
    gp_xlsx_formula(b, ws, row, 4, orr->total - r->self.total, b->money, "=B%d-$B$%d", R,
                    FIRST + 1);
    struct {
        int cnt, beh;
        bool has_be, has_pb;
        int be, pb;
    } w[2] = {{oc->cnt, oc->beh, orr->has_break_even_month, orr->has_payback_month,
               orr->break_even_month, orr->payback_month},
              {oc->cntx, oc->behx, orr->has_break_even_month_without_exit,
               orr->has_payback_month_without_exit, orr->break_even_month_without_exit,
               orr->payback_month_without_exit}};
    for (int k = 0; k < 2; k++) {
        char cr[64], br[64];
        plan_range(x, cr, sizeof cr, w[k].cnt, true);
        plan_range(x, br, sizeof br, w[k].beh, true);
        snprintf(f, sizeof f, "=IF(COUNTIF(%s,1)=0,\"\",_xlfn.MINIFS(%s,%s,1))", cr, mr, cr);
        maybe(b, ws, row, 5 + 2 * k, w[k].has_be, w[k].be, NULL, f);
        char lastb[512];
        snprintf(lastb, sizeof lastb, "IF(COUNTIF(%s,1)=0,-1,_xlfn.MAXIFS(%s,%s,1))", br, mr, br);
        snprintf(f, sizeof f,
                 "=IF(COUNTIFS(%s,1,%s,\">\"&%s)=0,\"\",_xlfn.MINIFS(%s,%s,1,%s,\">\"&%s))", cr, mr,
                 lastb, mr, cr, mr, lastb);
        maybe(b, ws, row, 6 + 2 * k, w[k].has_pb, w[k].pb, NULL, f);
    }
    char sl[64];
    plan_range(x, sl, sizeof sl, oc->slope, true);
    double slope = x->colsum[oc->slope], bslope = s->bridge == i ? x->colsum[c->bslope] : 0;
    gp_xlsx_formula(b, ws, row, 13, slope, b->num, "=SUM(%s)", sl);
    if (s->bridge == i) {
        char bs[64];
        plan_range(x, bs, sizeof bs, c->bslope, false);
        gp_xlsx_formula(b, ws, row, 14, bslope, b->num, "=SUM(%s)", bs);
    } else {
        num_cell(b, ws, row, 14, 0, b->num);
    }
    /* An API's break-even is its price_per_unit, the input part held (2.1): the totals at
     * 0 are those with the input part alone. */
    bool api = s->options[i].pricing == GP_PER_UNIT;
    const char *hourly = x->o[i].h[api ? O_PPU : O_HOURLY];
    double h = api ? s->options[i].price_per_unit : s->options[i].hourly;
    gp_xlsx_formula(b, ws, row, 15, orr->total - h * slope, b->money, "=B%d-%s*N%d", R, hourly, R);
    gp_xlsx_formula(b, ws, row, 16, r->self.total - h * bslope, b->money, "=$B$%d-%s*O%d",
                    FIRST + 1, hourly, R);
    snprintf(f, sizeof f,
             "=IF(ABS(N%d-O%d)<=1E-9*MAX(1,ABS(N%d),ABS(O%d)),\"\",IF(ABS(Q%d-P%d)<=1E-9*MAX(1,"
             "ABS(Q%d),ABS(P%d)),0,IF((Q%d-P%d)/(N%d-O%d)>=0,(Q%d-P%d)/(N%d-O%d),\"\")))",
             R, R, R, R, R, R, R, R, R, R, R, R, R, R, R, R);
    maybe(b, ws, row, 9, orr->has_break_even_hourly, orr->break_even_hourly, b->money, f);
}

/* Option i's break-even utilization, the Utilization sheet's answer (GPU mode). */
static void summary_utilization(wbctx *x, lxw_worksheet *ws, int i, int row) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_option_result *orr = &x->r->options[i];
    int R = row + 1;
    char f[8192];
    /* The Utilization sheet's answer: null when a recomputation needs a bridge or a
     * burst the scenario lacks, 0 when the totals at 0 are equal. */
    const gp_option *o = &s->options[i];
    char lacks[256] = "FALSE";
    if (s->bridge < 0 && o->has_base_gpus && o->burst < 0)
        snprintf(lacks, sizeof lacks, "OR(Utilization!$G$2>0,Utilization!$D$%d>0)", 5 + i);
    else if (s->bridge < 0)
        snprintf(lacks, sizeof lacks, "Utilization!$G$2>0");
    else if (o->has_base_gpus && o->burst < 0)
        snprintf(lacks, sizeof lacks, "Utilization!$D$%d>0", 5 + i);
    char tc[8], rc[8];
    col_name(3 + 3 * i, tc);
    col_name(5 + 3 * i, rc);
    int u0 = x->u_first_row + 1;
    snprintf(f, sizeof f,
             "=IF(%s,\"none\",IF(ABS(Utilization!$C$%d-Utilization!$%s$%d)<=1E-9*MAX(1,"
             "ABS(Utilization!$C$%d),ABS(Utilization!$%s$%d)),0,IF(Utilization!$%s$%d=\"\","
             "\"none\",Utilization!$%s$%d)))",
             lacks, u0, tc, u0, u0, tc, u0, rc, x->u_last_row + 1, rc, x->u_last_row + 1);
    /* "none" as the CLI says it, never a blank a reader could take for 0 %. */
    bool has_u = orr->has_break_even_utilization;
    if (has_u)
        keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, 10, f, b->pct,
                                            orr->break_even_utilization));
    else
        keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, 10, f, b->pct, "none"));
    snprintf(f, sizeof f, "=IF(ISNUMBER(K%d),K%d*8760,\"none\")", R, R);
    if (has_u)
        keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, 11, f, b->num,
                                            orr->break_even_utilization * 8760));
    else
        keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, 11, f, b->num, "none"));
}

/* One side's row (i < 0: self-hosted): total, NPV, cost per unit, lowest, then an option's
 * comparisons. */
static void summary_side(wbctx *x, lxw_worksheet *ws, int i, const char *mr, const char *wr,
                         const char *lows) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int M = x->M, no = s->n_options;
    char f[8192];
    int row = FIRST + 1 + i, R = row + 1;
    int col = i < 0 ? c->flow : c->o[i].flow;
    double total = i < 0 ? r->self.total : r->options[i].total;
    double npv = i < 0 ? r->self.npv : r->options[i].npv;
    text_cell(b, ws, row, 0, i < 0 ? "self-hosted" : s->options[i].name, NULL);
    char tot[64], npvr[64];
    ref(tot, sizeof tot, "Plan", M + 2, col);
    ref(npvr, sizeof npvr, "Plan", M + 3, col);
    gp_xlsx_formula(b, ws, row, 1, total, b->money, "=%s", tot);
    gp_xlsx_formula(b, ws, row, 2, npv, b->money, "=%s", npvr);
    bool has_per =
        i < 0 ? (s->work_mode ? r->self.has_cost_per_work_unit : r->self.has_cost_per_gpu_hour)
              : (s->work_mode ? r->options[i].has_cost_per_work_unit
                              : r->options[i].has_cost_per_gpu_hour);
    double per =
        i < 0 ? (s->work_mode ? r->self.cost_per_work_unit : r->self.cost_per_gpu_hour)
              : (s->work_mode ? r->options[i].cost_per_work_unit : r->options[i].cost_per_gpu_hour);
    snprintf(f, sizeof f, "=IF(SUM(%s)=0,\"\",B%d/SUM(%s))", wr, R, wr);
    maybe(b, ws, row, 3, has_per, per, b->money, f);
    if (s->work_mode) {
        char qr[64];
        plan_range(x, qr, sizeof qr, i < 0 ? c->qs : c->o[i].q, false);
        double per_h;
        bool has_h = gp_result_cost_per_gpu_hour(s, r, i, &per_h);
        snprintf(f, sizeof f, "=IF(SUM(%s)=0,\"\",B%d/SUM(%s))", qr, R, qr);
        if (i >= 0 && s->options[i].pricing == GP_PER_UNIT)
            text_cell(b, ws, row, PER_GPU_H, "none: an API bills the work", NULL);
        else
            maybe(b, ws, row, PER_GPU_H, has_h, per_h, b->money, f);
    }
    double low = r->self.total;
    for (int k = 0; k < no; k++)
        low = fmin(low, r->options[k].total);
    gp_xlsx_formula(b, ws, row, 12, gp_money_equal(total, low), NULL,
                    "=IF(ABS(B%d-MIN(%s))<=1E-9*MAX(1,ABS(B%d),ABS(MIN(%s))),1,0)", R, lows, R,
                    lows);
    summary_spot(x, ws, i, row);
    if (i < 0)
        return;
    summary_option_row(x, ws, i, row, mr);
    if (!s->work_mode)
        summary_utilization(x, ws, i, row);
}

/* Below the table: the exit value, the notes, the year tables, the opening and the chart. */
static void summary_tail(wbctx *x, lxw_worksheet *ws, int row) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int M = x->M;
    /* 2.1: the exit value within self-hosted's total, beside it, with its basis. */
    char ev[64], basis[512], label[160];
    ref(ev, sizeof ev, "Plan", M + 1, c->exit);
    snprintf(label, sizeof label,
             "self-hosted's total includes the exit value credited at month %d (book value of "
             "hardware still held, not cash)",
             M);
    text_cell(b, ws, row, 0, label, NULL);
    gp_xlsx_formula(b, ws, row, 1, r->self.exit_value, b->money, "=-%s", ev);
    gp_exit_basis_text(s, basis, sizeof basis);
    snprintf(label, sizeof label, "valued on: %.140s (as written)", basis);
    text_cell(b, ws, row, 2, label, NULL);
    row += 2;
    text_cell(b, ws, row++, 0,
              "An empty break-even or payback month: never within the horizon. Month m is the "
              "close of month m (0: the day the plan starts).",
              b->note);
    text_cell(b, ws, row++, 0,
              "Break-even utilization: the busy share at which the totals meet, every month's "
              "utilization replaced by it (hidden sheet Utilization); none when never.",
              b->note);
    row++;
    row = year_table(x, ws, row, false, x->start_year, 1);
    row++;
    int fy0 = x->start_year + (x->fiscal_start > 1 && x->start_month >= x->fiscal_start ? 1 : 0);
    text_cell(b, ws, row++, 0,
              "Years hold each index's amounts: index 0 in the first month, index m in month m.",
              b->note);
    row = year_table(x, ws, row, true, fy0, x->fiscal_start);
    row++;
    row = opening_rows(x, ws, row) + 1;
    lxw_chart *chart = cumulative_chart(b, s, c, M);
    lxw_chart_options copt = {.x_scale = 1.6, .y_scale = 1.3};
    keep(b, worksheet_insert_chart_opt(ws, (lxw_row_t)row, 0, chart, &copt));
    lxw_row_col_options hidden = {.hidden = 1};
    worksheet_set_column(ws, 0, 0, 40, NULL);
    worksheet_set_column(ws, 1, 11, 14, NULL);
    worksheet_set_column_opt(ws, 12, 16, 12, NULL, &hidden);
    worksheet_set_column(ws, 17, 17, 14, NULL);
    worksheet_set_column_opt(ws, SPOT, LOW_G, 12, NULL, &hidden);
    finish_sheet(ws, true, -1);
}

void gp_xlsx_summary_sheet(wbctx *x, lxw_worksheet *ws) {
    int no = x->s->n_options;
    int last = FIRST + no; /* 0-based row of the last option */
    summary_head(x, ws);
    char wr[64], mr[64], lows[64];
    plan_range(x, wr, sizeof wr, x->c.w, false);
    plan_range(x, mr, sizeof mr, x->c.m, true);
    snprintf(lows, sizeof lows, "$B$%d:$B$%d", FIRST + 1, last + 1);
    for (int i = -1; i < no; i++)
        summary_side(x, ws, i, mr, wr, lows);
    summary_tail(x, ws, last + 2);
}
