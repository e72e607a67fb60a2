/* The procurement workbook. Sheets: Summary (the answer, per-year totals, the break-even
 * chart), Assumptions (the only sheet to edit: blue on light yellow, unlocked), Plan (one row
 * per index m = 0..M: demand, servers, power, the bridge, every side's flow and running sum),
 * Batches (one row per delivery index d: the docs/model.md "In a workbook" layout, network
 * shares by generation), Utilization (hidden: break-even utilization, GPU mode), BOM,
 * Telemetry (measured scenarios), Sources. Every figure of Plan, Batches, Utilization, Summary
 * and BOM is a live formula on the Assumptions cells, with the engine's value cached where the
 * engine reports one (Excel and LibreOffice recalculate on load anyway).
 * Rows are laid out for the scenario's horizon, steps, tiers, resale points, tariff periods
 * and options: those are the structure, and editing a value among them recalculates; adding
 * rows does not. Formulas follow docs/model.md term by term. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "gpuplan/model.h"
#include "gpuplan/output.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_int.h"

static void keep(book *b, lxw_error e) {
    if (e && !b->rc)
        b->rc = e;
}

/* Column letters for A1 references. */
static void col_name(int col, char *out) {
    char tmp[8];
    int n = 0;
    col++;
    while (col > 0) {
        tmp[n++] = (char)('A' + (col - 1) % 26);
        col = (col - 1) / 26;
    }
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* "'Sheet'!$C$5" into out. */
static void ref(char *out, size_t cap, const char *sheet, int row, int col) {
    char c[8];
    col_name(col, c);
    snprintf(out, cap, "'%s'!$%s$%d", sheet, c, row + 1);
}

/* "'Sheet'!$C$r0:$C$r1" (0-based rows) into out. */
static void range(char *out, size_t cap, const char *sheet, int col, int r0, int r1) {
    char c[8];
    col_name(col, c);
    snprintf(out, cap, "'%s'!$%s$%d:$%s$%d", sheet, c, r0 + 1, c, r1 + 1);
}

/* Outside text: through gp_text_clean, the one sanitiser for every string that reaches the
 * workbook (cells, cached formula strings, document properties); always written as a string,
 * never a formula. */
static void text_cell(book *b, lxw_worksheet *ws, int row, int col, const char *s, lxw_format *f) {
    char clean[4096];
    gp_text_clean(s, clean, sizeof clean);
    keep(b, worksheet_write_string(ws, (lxw_row_t)row, (lxw_col_t)col, clean, f));
}

static void num_cell(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f) {
    keep(b, worksheet_write_number(ws, (lxw_row_t)row, (lxw_col_t)col, v, f));
}

void gp_xlsx_formula(book *b, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                     const char *fmt, ...) {
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, cached));
}

/* A result that may be "never": an empty string when has is false, else the number. */
static void maybe(book *b, lxw_worksheet *ws, int row, int col, bool has, double v, lxw_format *f,
                  const char *text) {
    if (has)
        keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, v));
    else
        keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, ""));
}

/* Days since 1899-12-30 (the spreadsheet date serial) of a proleptic Gregorian date. */
static double date_serial(int y, int m, int d) {
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)(era * 146097 + doe - 719468) + 25569.0;
}

/* Day d of month m of year y, as EDATE clamps it: the 31st in a 30-day month is the 30th. */
static double month_serial(int y, int m, int d) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int last = days[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    return date_serial(y, m, d < 1 ? 1 : d > last ? last : d);
}

/* ---- Assumptions ------------------------------------------------------------------------ */

typedef struct inputs {
    book *b;
    lxw_worksheet *ws;
    int row;
} inputs;

static void define(book *b, const char *name, int row, int col) {
    char target[80], f[96];
    ref(target, sizeof target, "Assumptions", row, col);
    snprintf(f, sizeof f, "=%s", target);
    keep(b, workbook_define_name(b->wb, name, f));
}

/* One input a row: label, value, unit; named when name is given. Returns its row. */
static int input(inputs *in, const char *name, const char *label, double v, const char *unit) {
    int r = in->row++;
    text_cell(in->b, in->ws, r, 0, label, NULL);
    num_cell(in->b, in->ws, r, 1, v, in->b->in_num);
    text_cell(in->b, in->ws, r, 2, unit, NULL);
    if (name)
        define(in->b, name, r, 1);
    return r;
}

static void heading(inputs *in, const char *text) {
    in->row++;
    text_cell(in->b, in->ws, in->row++, 0, text, in->b->bold);
}

/* The input rows of one option; only the fields that apply to its pricing. */
enum {
    O_HOURLY,
    O_G,
    O_TREND,
    O_SUPPORT,
    O_STOR_GB,
    O_STOR_RATE,
    O_EGRESS_GB,
    O_EGRESS_RATE,
    O_RHO,
    O_IDLE,
    O_LAMBDA,
    O_CKPT,
    O_RESTART,
    O_UPFRONT,
    O_TERM,
    O_BASE,
    O_PPU,  /* per_unit (2.1): price a unit of work */
    O_PPIU, /* ... an input unit */
    O_IUPU, /* ... input units a unit of work */
    O_N
};

typedef struct opt_refs {
    char h[O_N][64];     /* absolute references, "" where the field does not apply */
    char phi[512];       /* the spot factor, "1" for other pricings */
    char extras[512];    /* monthly storage and egress */
    char per_gpu_h[768]; /* (1 + idle) * phi * (1 + support) / g: a busy GPU-hour's cost / hourly */
} opt_refs;

static void option_inputs(inputs *in, const gp_scenario *s, const gp_option *o,
                          const gp_report_meta *meta, opt_refs *r) {
    static const char *const what[O_N] = {"hourly",
                                          "GPUs an instance",
                                          "price trend",
                                          "support",
                                          "storage GB",
                                          "storage price",
                                          "egress GB a month",
                                          "egress price",
                                          "work a GPU-hour",
                                          "idle overhead",
                                          "interruptions an hour",
                                          "checkpoint interval",
                                          "restart time",
                                          "upfront per instance per term",
                                          "term",
                                          "committed base GPUs",
                                          "price a unit of work",
                                          "price an input unit",
                                          "input units a unit of work"};
    static const char *const units[O_N] = {"per instance-hour",
                                           "GPUs",
                                           "a year",
                                           "of compute",
                                           "GB",
                                           "per GB-month",
                                           "GB",
                                           "per GB",
                                           "units",
                                           "x",
                                           "/h",
                                           "h",
                                           "h",
                                           "",
                                           "months",
                                           "GPUs",
                                           "per unit of work",
                                           "per input unit",
                                           "units"};
    double v[O_N] = {o->hourly,
                     o->gpus_per_instance,
                     o->price_trend_per_year,
                     o->support_pct,
                     o->storage_gb,
                     o->storage_per_gb_month,
                     o->egress_gb_per_month,
                     o->egress_per_gb,
                     o->work_per_gpu_hour,
                     o->idle_overhead,
                     o->interruptions_per_hour,
                     o->checkpoint_interval_h,
                     o->restart_h,
                     o->upfront,
                     o->term_months,
                     o->base_gpus,
                     o->price_per_unit,
                     o->price_per_input_unit,
                     o->input_units_per_unit};
    bool committed = o->pricing == GP_COMMITTED, per_unit = o->pricing == GP_PER_UNIT;
    bool applies[O_N];
    for (int f = 0; f < O_N; f++)
        applies[f] = true;
    /* An API (per_unit) is on-demand with one "GPU" an instance doing one unit of work an hour,
     * no idle overhead: those are fixed, not inputs, and its hourly is its prices' formula. */
    applies[O_PPU] = applies[O_PPIU] = applies[O_IUPU] = per_unit;
    applies[O_G] = !per_unit;
    applies[O_RHO] = s->work_mode && !per_unit;
    applies[O_IDLE] = !committed && !per_unit;
    applies[O_LAMBDA] = applies[O_CKPT] = applies[O_RESTART] = o->pricing == GP_SPOT;
    applies[O_UPFRONT] = applies[O_TERM] = committed;
    applies[O_BASE] = committed && o->has_base_gpus;
    char label[GP_NAME_BYTES + 64];
    snprintf(label, sizeof label, "%s (%s%s%s)", o->name, gp_pricing_name(o->pricing),
             o->burst >= 0 ? ", bursts to " : "", o->burst >= 0 ? s->options[o->burst].name : "");
    in->row++;
    text_cell(in->b, in->ws, in->row++, 0, label, in->b->bold);
    /* 2.1: a catalog price in another currency keeps its listed figures and the exchange rate
     * as inputs; hourly and upfront are their products, so a changed rate moves every total. */
    const gp_price_source *fx = NULL;
    for (int k = 0; meta && k < meta->n_sources; k++)
        if (meta->sources[k].fx_rate > 0 && !strcmp(meta->sources[k].option, o->name))
            fx = &meta->sources[k];
    char rate_ref[64] = "", listed_ref[2][64] = {"", ""};
    if (fx) {
        char unit[96];
        snprintf(label, sizeof label, "%s: exchange rate", o->name);
        snprintf(unit, sizeof unit, "%s per %s (of %s; see Sources)", s->currency, fx->currency,
                 fx->fx_date);
        ref(rate_ref, sizeof rate_ref, "Assumptions", input(in, NULL, label, fx->fx_rate, unit), 1);
        snprintf(label, sizeof label, "%s: hourly as listed", o->name);
        snprintf(unit, sizeof unit, "%s per instance-hour", fx->currency);
        ref(listed_ref[0], sizeof listed_ref[0], "Assumptions",
            input(in, NULL, label, fx->listed_hourly, unit), 1);
        if (committed) {
            snprintf(label, sizeof label, "%s: upfront as listed", o->name);
            snprintf(unit, sizeof unit, "%s per instance per term", fx->currency);
            ref(listed_ref[1], sizeof listed_ref[1], "Assumptions",
                input(in, NULL, label, o->upfront / fx->fx_rate, unit), 1);
        }
    }
    for (int f = O_PPU; f <= O_IUPU; f++)
        r->h[f][0] = '\0';
    if (per_unit) /* its prices first: the price a unit in all below is their formula */
        for (int f = O_PPU; f <= O_IUPU; f++) {
            snprintf(label, sizeof label, "%s: %s", o->name, what[f]);
            ref(r->h[f], sizeof r->h[f], "Assumptions", input(in, NULL, label, v[f], units[f]), 1);
        }
    for (int f = 0; f < O_PPU; f++) {
        r->h[f][0] = '\0';
        if (!applies[f])
            continue;
        snprintf(label, sizeof label, "%s: %s", o->name, what[f]);
        int row;
        if (per_unit && f == O_HOURLY) {
            snprintf(label, sizeof label, "%s: price a unit of work in all", o->name);
            row = in->row++;
            text_cell(in->b, in->ws, row, 0, label, NULL);
            gp_xlsx_formula(in->b, in->ws, row, 1, o->hourly, in->b->num, "=%s+%s*%s", r->h[O_PPU],
                            r->h[O_IUPU], r->h[O_PPIU]);
            text_cell(in->b, in->ws, row, 2, "per unit of work, its inputs included", NULL);
        } else if (fx && (f == O_HOURLY || f == O_UPFRONT)) {
            row = in->row++;
            text_cell(in->b, in->ws, row, 0, label, NULL);
            gp_xlsx_formula(in->b, in->ws, row, 1, v[f], in->b->num, "=%s*%s",
                            listed_ref[f == O_UPFRONT], rate_ref);
            text_cell(in->b, in->ws, row, 2, units[f], NULL);
        } else {
            row = input(in, NULL, label, v[f], units[f]);
        }
        if (f == O_HOURLY)
            for (int k = 0; meta && k < meta->n_sources; k++)
                if (!strcmp(meta->sources[k].option, o->name))
                    text_cell(in->b, in->ws, row, 3, "catalog (see Sources)", NULL);
        ref(r->h[f], sizeof r->h[f], "Assumptions", row, 1);
    }
    if (per_unit) {
        snprintf(r->h[O_G], sizeof r->h[O_G], "1");
        snprintf(r->h[O_RHO], sizeof r->h[O_RHO], "1");
        snprintf(r->h[O_IDLE], sizeof r->h[O_IDLE], "0");
    }
    if (o->pricing == GP_SPOT)
        snprintf(r->phi, sizeof r->phi, "(1+%s*(%s/2+%s))", r->h[O_LAMBDA], r->h[O_CKPT],
                 r->h[O_RESTART]);
    else
        snprintf(r->phi, sizeof r->phi, "1");
    snprintf(r->extras, sizeof r->extras, "(%s*%s+%s*%s)", r->h[O_STOR_GB], r->h[O_STOR_RATE],
             r->h[O_EGRESS_GB], r->h[O_EGRESS_RATE]);
    snprintf(r->per_gpu_h, sizeof r->per_gpu_h, "(1+%s)*%s*(1+%s)/%s",
             committed ? "0" : r->h[O_IDLE], r->phi, r->h[O_SUPPORT], r->h[O_G]);
}

/* ---- the Plan's columns ----------------------------------------------------------------- */

typedef struct opt_cols {
    int q, need, inst, z, burst, flow, cum, slope, dif, cnt, beh, difx, cntx, behx;
} opt_cols;

typedef struct plan_cols {
    int m, date, year, fy, raw, u, n, w, qs, ns, s, inservice, bought, sold, g, q, z, powered, base,
        busy, y0, kwh, power, kinst, kdraw, colo, charge, maint, staff, other, bridge, capex, pay,
        balance, sales, exit, flow, cum, cumx, bslope, n_cols;
    opt_cols o[GP_MAX_OPTIONS];
} plan_cols;

static void plan_layout(const gp_scenario *s, plan_cols *c) {
    int k = 0;
    memset(c, -1, sizeof *c);
    c->m = k++;
    c->date = k++;
    c->year = k++;
    c->fy = k++;
    if (s->n_steps > 0)
        c->raw = k++;
    c->u = k++;
    if (!s->work_mode)
        c->n = k++;
    c->w = k++;
    if (s->work_mode) {
        c->qs = k++;
        c->ns = k++;
    } else {
        c->qs = c->w;
        c->ns = c->n;
    }
    c->s = k++;
    c->inservice = k++;
    c->bought = k++;
    c->sold = k++;
    c->g = k++;
    c->q = k++;
    if (s->bridge >= 0)
        c->z = k++;
    c->powered = k++;
    c->base = k++;
    c->busy = k++;
    c->y0 = k;
    k += s->n_periods;
    c->kwh = k++;
    c->kinst = k++;
    c->kdraw = k++;
    c->power = k++;
    c->colo = k++;
    c->charge = k++;
    c->maint = k++;
    c->staff = k++;
    c->other = k++;
    if (s->bridge >= 0)
        c->bridge = k++;
    c->capex = k++;
    c->pay = k++;
    c->balance = k++;
    c->sales = k++;
    c->exit = k++;
    c->flow = k++;
    c->cum = k++;
    c->cumx = k++;
    if (s->bridge >= 0)
        c->bslope = k++;
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        opt_cols *oc = &c->o[i];
        oc->q = s->work_mode ? k++ : c->w;
        if (o->pricing == GP_COMMITTED) {
            oc->need = k++;
            oc->inst = k++;
            if (o->has_base_gpus) {
                oc->z = k++;
                oc->burst = k++;
            }
        }
        oc->flow = k++;
        oc->cum = k++;
        oc->slope = k++;
        oc->dif = k++;
        oc->cnt = k++;
        oc->beh = k++;
        oc->difx = k++;
        oc->cntx = k++;
        oc->behx = k++;
    }
    c->n_cols = k;
}

/* Batches columns. */
enum {
    B_D,
    B_DELIVERY,
    B_C,
    B_INSERVICE,
    B_SOLD,
    B_REFRESH,
    B_NEW,
    B_N,
    B_X,
    B_FIRST,
    B_BETA,
    B_UNIT,
    B_HW,
    B_CAPEX,
    B_CASH,
    B_PRINCIPAL,
    B_PAYMENT,
    B_LASTPAY,
    B_BALANCE,
    B_MAINT,
    B_AGE,
    B_SRVVAL,
    B_PASSED,
    B_VALUE,
    B_PCT,
    B_GEN /* then cnt, cumold and value a network generation */
};

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

/* The Telemetry sheet: the window, then one row a GPU, streamed from tel->next. Plain values
 * (measurements, not formulas); the hot loop of a large fleet export. Returns the row after
 * the last GPU. */
static int telemetry_sheet(book *b, lxw_worksheet *ws, const gp_xlsx_telemetry *tel) {
    text_cell(b, ws, 0, 0, "measured from", b->bold);
    text_cell(b, ws, 0, 1, tel->since ? tel->since : "", NULL);
    text_cell(b, ws, 0, 2, "until", b->bold);
    text_cell(b, ws, 0, 3, tel->until ? tel->until : "", NULL);
    text_cell(b, ws, 0, 4, "busy at", b->bold);
    num_cell(b, ws, 0, 5, tel->busy_threshold, b->pct);
    static const char *const heads[] = {
        "node",       "GPU",         "model", "UUID", "hours observed", "mean utilization",
        "busy share", "mean power W"};
    enum { HEAD = 2 };
    for (int c = 0; c < 8; c++)
        text_cell(b, ws, HEAD, c, heads[c], b->bold);
    lxw_row_t row = HEAD + 1;
    gp_xlsx_gpu g;
    while (!b->rc && row < LXW_ROW_MAX && tel->next(tel->arg, &g) == 1) {
        text_cell(b, ws, (int)row, 0, g.node ? g.node : "", NULL);
        num_cell(b, ws, (int)row, 1, g.index, NULL);
        text_cell(b, ws, (int)row, 2, g.model ? g.model : "", NULL);
        text_cell(b, ws, (int)row, 3, g.uuid ? g.uuid : "", NULL);
        num_cell(b, ws, (int)row, 4, g.hours, b->num);
        num_cell(b, ws, (int)row, 5, g.util_mean, b->pct);
        num_cell(b, ws, (int)row, 6, g.busy_share, b->pct);
        if (g.has_power)
            num_cell(b, ws, (int)row, 7, g.power_mean_w, b->num);
        row++;
    }
    worksheet_set_column(ws, 0, 0, 24, NULL);
    worksheet_set_column(ws, 1, 1, 6, NULL);
    worksheet_set_column(ws, 2, 2, 18, NULL);
    worksheet_set_column(ws, 3, 3, 42, NULL);
    worksheet_set_column(ws, 4, 7, 16, NULL);
    worksheet_freeze_panes(ws, HEAD + 1, 0);
    if (row > HEAD + 1)
        worksheet_autofilter(ws, HEAD, 0, row - 1, 7);
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_repeat_rows(ws, HEAD, HEAD);
    return (int)row;
}

/* Print setup and protection shared by every sheet: one page wide, the header row repeated,
 * formulas locked (no password: a guard against slips, not a secret). */
static void finish_sheet(lxw_worksheet *ws, bool landscape, int head_row) {
    if (landscape)
        worksheet_set_landscape(ws);
    worksheet_set_paper(ws, 9); /* A4 */
    worksheet_fit_to_pages(ws, 1, 0);
    if (head_row >= 0)
        worksheet_repeat_rows(ws, (lxw_row_t)head_row, (lxw_row_t)head_row);
    lxw_protection prot = {.format_columns = 1, .format_rows = 1};
    worksheet_protect(ws, NULL, &prot);
}

/* The month rows' references a formula needs, by column: "$X7"-style cells of row R. */
typedef struct rowref {
    int R;             /* 1-based row number */
    char buf[256][16]; /* a ring: a reference lives for the next 255 calls */
    int used;
} rowref;

static const char *at(rowref *rr, int col) {
    char cn[8];
    col_name(col, cn);
    char *out = rr->buf[rr->used++ % 256];
    snprintf(out, 16, "$%s%d", cn, rr->R);
    return out;
}

static const char *at_row(rowref *rr, int col, int R) {
    char cn[8];
    col_name(col, cn);
    char *out = rr->buf[rr->used++ % 256];
    snprintf(out, 16, "$%s%d", cn, R);
    return out;
}

/* "-INT(-(x-1E-9*MAX(1,x)))": docs/model.md's ceil+, x an expression without side effects. */
static void ceil_plus(char *out, size_t cap, const char *x) {
    snprintf(out, cap, "-INT(-((%s)-1E-9*MAX(1,%s)))", x, x);
}

typedef struct wbctx {
    book *b;
    const gp_scenario *s;
    const gp_result *r;
    int M;
    plan_cols c;
    opt_refs *o;
    int ph[GP_MAX_PERIODS], pp[GP_MAX_PERIODS];
    char steps_month[96], steps_val[96], steps_u[96];
    char tier_min[96], tier_pct[96];
    char res_age[96], res_pct[96];
    int n_gen;
    int start_year, start_month, start_day, fiscal_start;
    int u_first_row, u_last_row;     /* the Utilization sheet's rows of u = 0 and u = 1 */
    int cheaper_first, cheaper_last; /* Assumptions rows of the tariff periods */
    const gp_report_meta *meta;      /* for the opening's sources (measured, tariff) */
    /* The running sums have differed by Ties (2.1), with and without the exit value: the
     * cached values of the Plan's "differed" columns while its rows are written. */
    bool differed[2][GP_MAX_OPTIONS];
    struct shadow *sv; /* the cached values of Plan and Batches */
    double *colsum;    /* Plan: each column's cached values so far, for its total */
} wbctx;

/* A Plan column's range over the month rows 1..M, or 0..M with from_zero. */
static void plan_range(const wbctx *x, char *out, size_t cap, int col, bool from_zero) {
    range(out, cap, "Plan", col, from_zero ? 1 : 2, x->M + 1);
}

static void batch_range(const wbctx *x, char *out, size_t cap, int col) {
    range(out, cap, "Batches", col, 1, x->M + 1);
}

/* ---- cached values ------------------------------------------------------------------------
 * What each formula of Plan and Batches computes, worked out here the way the formula does it
 * from the same inputs, so a reader that does not recalculate (previews, pandas, openpyxl,
 * Excel in manual mode) sees the figures LibreOffice would (tests/xlsx/check_cached.py). */

typedef struct bat_vals {
    double delivery, c, in, sold, refresh, fresh, n, x, first, beta, unit, hw, capex, cash,
        principal, payment, lastpay, balance, maint, age, srvval, passed, value, pct;
} bat_vals;

typedef struct plan_vals {
    double ns, s, q, powered, base, busy, y[GP_MAX_PERIODS], kwh, power, kinst, kdraw, colo, charge,
        maint, capex, balance, sales, pay, bslope;
} plan_vals;

typedef struct shadow {
    bat_vals *b;                                  /* [0..M] */
    double *gen, *gcum, *gval;                    /* [d * n_gen + k] */
    plan_vals *p;                                 /* [1..M] */
    double *oq, *oneed, *oinst, *oburst, *oslope; /* [i * (M + 1) + m] */
} shadow;

static double ceil_plus_v(double v) {
    return -floor(-(v - 1e-9 * fmax(1.0, v)));
}

static double per_gpu_h_v(const gp_option *o) {
    double phi = o->pricing == GP_SPOT
                     ? 1 + o->interruptions_per_hour * (o->checkpoint_interval_h / 2 + o->restart_h)
                     : 1;
    return (1 + (o->pricing == GP_COMMITTED ? 0 : o->idle_overhead)) * phi * (1 + o->support_pct) /
           o->gpus_per_instance;
}

static double extras_v(const gp_option *o) {
    return o->storage_gb * o->storage_per_gb_month + o->egress_gb_per_month * o->egress_per_gb;
}

/* pct(age) as the Batches' pct column gives it. */
static double pct_v(const gp_scenario *s, double d) {
    if (s->n_resale > 0) {
        double ag[GP_MAX_RESALE + 1], pc[GP_MAX_RESALE + 1];
        ag[0] = 0, pc[0] = 1;
        for (int k = 0; k < s->n_resale; k++)
            ag[k + 1] = s->resale[k].age_months, pc[k + 1] = s->resale[k].pct;
        int n = s->n_resale + 1;
        if (d >= ag[n - 1])
            return pc[n - 1];
        int i = 0;
        while (i + 1 < n && ag[i + 1] <= d)
            i++;
        return pc[i] + (pc[i + 1] - pc[i]) * (d - ag[i]) / (ag[i + 1] - ag[i]);
    }
    if (s->buy == GP_BUY_AS_NEEDED || s->refresh_months > 0)
        return d >= 12 * s->depreciation_years
                   ? s->residual_pct
                   : 1 + (s->residual_pct - 1) * d / (12 * s->depreciation_years);
    return s->residual_pct;
}

static void shadow_build(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int M = x->M, G = x->n_gen, no = s->n_options;
    size_t rows = (size_t)M + 1;
    v->b = gp_xcalloc(rows, sizeof *v->b);
    v->gen = gp_xcalloc(rows * (size_t)G, sizeof *v->gen);
    v->gcum = gp_xcalloc(rows * (size_t)G + 1, sizeof *v->gcum);
    v->gval = gp_xcalloc(rows * (size_t)G, sizeof *v->gval);
    v->p = gp_xcalloc(rows, sizeof *v->p);
    size_t on = rows * (size_t)(no > 0 ? no : 1);
    v->oq = gp_xcalloc(on, sizeof(double));
    v->oneed = gp_xcalloc(on, sizeof(double));
    v->oinst = gp_xcalloc(on, sizeof(double));
    v->oburst = gp_xcalloc(on, sizeof(double));
    v->oslope = gp_xcalloc(on, sizeof(double));
    double g = s->gpus_per_server;
    bool loan = s->financing == GP_LOAN;
    double lf = loan ? s->loan_fraction : 0, apr = s->loan_apr, term = s->loan_term_months;
    int every = s->order_every_months, lead = s->lead_time_months;
    int step = s->refresh_months > 0 ? (s->refresh_months + every - 1) / every * every : 0;
    /* Plan's demand side first: Batches read the servers wanted. */
    for (int m = 1; m <= M; m++) {
        int j = m - 1;
        plan_vals *p = &v->p[m];
        double U = r->demand_utilization[j], W = r->demand_work_month[j];
        double QS = s->work_mode ? W / s->work_per_gpu_hour : W;
        p->ns = s->work_mode ? (W == 0 ? 0 : ceil_plus_v(QS / (730 * U))) : r->demand_gpus[j];
        double want = ceil(p->ns / g);
        p->s = s->has_max_servers && s->max_servers > 0 ? fmin(s->max_servers, want) : want;
    }
    /* Batches, row by row (only rows above are read), then what a later row decides. */
    for (int d = 0; d <= M; d++) {
        bat_vals *b = &v->b[d];
        b->delivery = d < M && d >= lead && (d - lead) % every == 0;
        if (b->delivery) {
            int hi = s->buy == GP_BUY_AS_NEEDED ? (d + every < M ? d + every : M) : M;
            for (int m = d + 1; m <= hi; m++)
                b->c = fmax(b->c, v->p[m].s);
        }
        double above = 0;
        for (int e = 0; e < d; e++) {
            b->in += v->b[e].x >= d ? v->b[e].n : 0;
            b->sold += v->b[e].x == d ? v->b[e].n : 0;
            above += v->b[e].n;
        }
        b->refresh = b->delivery ? fmin(b->sold, fmax(0, b->c - (b->in - b->sold))) : 0;
        b->fresh = b->delivery ? fmax(0, b->c - (b->in - b->sold) - b->refresh) : 0;
        b->n = b->refresh + b->fresh;
        b->x = s->refresh_months > 0 && d + step < M ? d + step : M;
        b->first = b->n > 0 && (d == 0 || above == 0);
        int best_min = -1; /* LOOKUP: the tier with the largest minimum at most n; none: 0 */
        for (int t = 0; b->n > 0 && t < s->n_tiers; t++)
            if (s->tiers[t].min_servers <= b->n && s->tiers[t].min_servers >= best_min) {
                best_min = s->tiers[t].min_servers;
                b->beta = s->tiers[t].pct;
            }
        b->unit = s->server_price * s->price_factor *
                  pow(1 + s->server_price_trend_per_year, (d - lead) / 12.0);
        b->hw = b->n * b->unit * (1 - b->beta) + b->fresh * s->network_per_server;
        b->capex = b->hw + (b->first ? s->fixed_capex : 0);
        b->cash = b->capex * (1 - lf);
        b->principal = loan ? b->capex * s->loan_fraction : 0;
        double L = b->principal, rate = apr / 12;
        b->payment = L == 0 ? 0 : apr == 0 ? L / term : L * rate / (1 - pow(1 + rate, -term));
        b->lastpay = fmin(d + term, b->x);
        b->age = b->x - d;
        double T = b->age;
        b->balance =
            L > 0 && term > T
                ? (apr == 0 ? L - b->payment * T
                            : L * pow(1 + rate, T) - b->payment * (pow(1 + rate, T) - 1) / rate)
                : 0;
        b->maint = s->maintenance_pct_per_year * b->hw / 12;
        b->pct = pct_v(s, d);
    }
    double tr = 1 + s->server_price_trend_per_year;
    for (int d = 0; d <= M; d++) {
        bat_vals *b = &v->b[d];
        double T = b->age;
        b->srvval = b->n == 0 ? 0
                              : v->b[(int)T].pct * b->n * b->unit * (1 - b->beta) *
                                    pow(tr, (T + lead) / 12.0);
        b->passed = b->x < M ? v->b[(int)b->x].refresh : 0;
    }
    for (int d = 0; d <= M; d++) {
        bat_vals *b = &v->b[d];
        double *gen = &v->gen[(size_t)d * G], *cum = &v->gcum[(size_t)d * G];
        for (int k = 0; k < G; k++) {
            if (k == 0)
                gen[k] = b->fresh;
            else if (d == 0 || b->refresh == 0 || d - step < 0)
                gen[k] = 0;
            else {
                int e = d - step;
                double older = v->gcum[(size_t)e * G + k];
                gen[k] = fmin(v->gen[(size_t)e * G + k - 1], fmax(0, b->refresh - older));
            }
        }
        for (int k = G - 1; k >= 0; k--)
            cum[k] = gen[k] + (k + 1 < G ? cum[k + 1] : 0);
        b->value = b->srvval;
        for (int k = 0; k < G; k++) {
            double cnt = gen[k], older = k + 1 < G ? cum[k + 1] : 0;
            double age = k == 0 ? b->x - d : b->x - (d - k * step);
            double val = cnt == 0
                             ? 0
                             : (cnt - fmin(cnt, fmax(0, b->passed - older))) * v->b[(int)age].pct *
                                   s->network_per_server * pow(tr, (age + lead) / 12.0);
            v->gval[(size_t)d * G + k] = val;
            b->value += val;
        }
    }
    /* The rest of Plan. */
    double before[GP_MAX_PERIODS];
    for (int k = 0; k < s->n_periods; k++) {
        before[k] = 0;
        for (int i = 0; i < s->n_periods; i++) {
            double a = s->periods[i].price_per_kwh, c = s->periods[k].price_per_kwh;
            if (i != k && (i < k ? a <= c : a < c))
                before[k] += s->periods[i].hours_per_day;
        }
    }
    double avg = s->has_gpu_avg_w ? s->gpu_avg_w : 0;
    for (int m = 1; m <= M; m++) {
        int j = m - 1;
        plan_vals *p = &v->p[m];
        double U = r->demand_utilization[j], W = r->demand_work_month[j];
        double QS = s->work_mode ? W / s->work_per_gpu_hour : W;
        double Gw = r->self.gpus_at_work[j], in = r->self.servers_in_service[j];
        p->q = fmin(QS, Gw * 730 * U);
        p->powered = ceil(Gw / g);
        p->base =
            p->powered * s->server_base_w + Gw * (s->has_gpu_avg_w ? s->gpu_avg_w : s->gpu_idle_w);
        p->busy = s->has_gpu_avg_w ? 0 : p->q * 24 / 730;
        double e = 0, c = 0, extra = s->has_gpu_avg_w ? 0 : s->gpu_tdp_w - s->gpu_idle_w;
        for (int k = 0; k < s->n_periods; k++) {
            double hk = s->periods[k].hours_per_day;
            p->y[k] = s->shift_to_cheapest ? fmin(Gw * hk, fmax(0, p->busy - Gw * before[k]))
                                           : p->busy * hk / 24;
            e += p->base * hk + extra * p->y[k];
            c += (p->base * hk + extra * p->y[k]) * s->periods[k].price_per_kwh;
        }
        double et = pow(1 + s->energy_price_trend_per_year, (m - 1) / 12.0);
        p->kwh = s->pue * e * 730 / 24 / 1000;
        p->power = s->pue * c * 730 / 24 / 1000 * et;
        p->kinst = (in * s->server_base_w + Gw * fmax(s->gpu_tdp_w, avg)) / 1000;
        p->kdraw = U > 0 ? (p->powered * s->server_base_w + Gw * fmax(s->gpu_tdp_w, avg)) / 1000
                         : p->base / 1000;
        p->colo = s->colo_per_kw_month * p->kinst;
        p->charge = s->demand_charge_per_kw_month * et * p->kdraw * s->pue;
        for (int d = 0; d <= M; d++) {
            const bat_vals *b = &v->b[d];
            if (d < m - s->warranty_months && b->x >= m)
                p->maint += b->maint;
            if (d < m && b->lastpay >= m)
                p->pay += b->payment;
        }
        if (s->bridge >= 0 && r->self.bridge_hours[j] > 0) {
            const gp_option *br = &s->options[s->bridge];
            p->bslope = r->self.bridge_hours[j] * per_gpu_h_v(br) *
                        pow(1 + br->price_trend_per_year, (m - 1) / 12.0);
        }
    }
    for (int m = 0; m <= M; m++) { /* at index m: capex, settlements, sales */
        plan_vals *p = &v->p[m];
        for (int d = 0; d <= M; d++) {
            const bat_vals *b = &v->b[d];
            p->capex += d == m ? b->cash : 0;
            p->balance += b->x == m ? b->balance : 0;
            p->sales -= m < M && b->x == m ? b->value : 0;
        }
    }
    /* Each option's helper columns. */
    for (int i = 0; i < no; i++) {
        const gp_option *o = &s->options[i];
        size_t at0 = (size_t)i * rows;
        double tr_o = 1 + o->price_trend_per_year;
        for (int m = 1; m <= M; m++) {
            int j = m - 1;
            double U = r->demand_utilization[j], W = r->demand_work_month[j];
            double QO = s->work_mode ? W / o->work_per_gpu_hour : W;
            v->oq[at0 + m] = QO;
            if (o->pricing != GP_COMMITTED) {
                v->oslope[at0 + m] = QO * per_gpu_h_v(o) * pow(tr_o, (m - 1) / 12.0);
                continue;
            }
            double need =
                s->work_mode ? (W == 0 ? 0 : ceil_plus_v(QO / (730 * U))) : r->demand_gpus[j];
            v->oneed[at0 + m] = ceil(need / o->gpus_per_instance);
        }
        if (o->pricing != GP_COMMITTED)
            continue;
        int T = o->term_months;
        for (int m = 1; m <= M; m++) {
            int ts = T * ((m - 1) / T), hi = ts + T < M ? ts + T : M;
            double inst = 0;
            if (o->has_base_gpus)
                inst = ceil(o->base_gpus / o->gpus_per_instance);
            else
                for (int q = ts + 1; q <= hi; q++)
                    inst = fmax(inst, v->oneed[at0 + q]);
            v->oinst[at0 + m] = inst;
            double rate = inst * 730 * pow(tr_o, ts / 12.0) * (1 + o->support_pct);
            v->oslope[at0 + m] = rate + (m == M ? fmax(0, ts + T - M) * rate : 0);
            double z = m - 1 < M ? r->options[i].burst_hours[m - 1] : 0;
            if (o->has_base_gpus && o->burst >= 0 && z > 0) {
                const gp_option *bo = &s->options[o->burst];
                v->oburst[at0 + m] = z * per_gpu_h_v(bo) * bo->hourly *
                                         pow(1 + bo->price_trend_per_year, (m - 1) / 12.0) +
                                     extras_v(bo);
            }
        }
    }
}

static void shadow_free(shadow *v) {
    free(v->b);
    free(v->gen);
    free(v->gcum);
    free(v->gval);
    free(v->p);
    free(v->oq);
    free(v->oneed);
    free(v->oinst);
    free(v->oburst);
    free(v->oslope);
}

/* One row of the Batches sheet: delivery index d (rows 0..M; only d < M delivers). */
static void batch_row(wbctx *x, lxw_worksheet *ws, int d) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    int row = d + 1, R = d + 2;
    rowref rr = {.R = R};
    const bat_vals *bv = &x->sv->b[d];
    const double *gen = &x->sv->gen[(size_t)d * x->n_gen],
                 *gcum = &x->sv->gcum[(size_t)d * x->n_gen],
                 *gval = &x->sv->gval[(size_t)d * x->n_gen];
    char pm[64], ps[64];
    plan_range(x, pm, sizeof pm, x->c.m, false);
    plan_range(x, ps, sizeof ps, x->c.s, false);
    char above_n[64] = "", above_x[64] = "";
    if (d > 0) {
        char a[8], bx[8];
        col_name(B_N, a);
        col_name(B_X, bx);
        snprintf(above_n, sizeof above_n, "$%s$2:$%s$%d", a, a, R - 1);
        snprintf(above_x, sizeof above_x, "$%s$2:$%s$%d", bx, bx, R - 1);
    }
    char D[16];
    snprintf(D, sizeof D, "%s", at(&rr, B_D));
    num_cell(b, ws, row, B_D, d, NULL);
    gp_xlsx_formula(b, ws, row, B_DELIVERY, bv->delivery, NULL,
                    "=IF(AND(%s<horizon_months,%s>=lead_time,MOD(%s-lead_time,order_every)=0),1,0)",
                    D, D, D);
    gp_xlsx_formula(
        b, ws, row, B_C, bv->c, NULL,
        "=IF(%s=1,_xlfn.MAXIFS(%s,%s,\">\"&%s,%s,\"<=\"&IF(as_needed=1,MIN(%s+order_every,"
        "horizon_months),horizon_months)),0)",
        at(&rr, B_DELIVERY), ps, pm, D, pm, D);
    if (d == 0) {
        num_cell(b, ws, row, B_INSERVICE, 0, NULL);
        num_cell(b, ws, row, B_SOLD, 0, NULL);
    } else {
        gp_xlsx_formula(b, ws, row, B_INSERVICE, bv->in, NULL, "=SUMIFS(%s,%s,\">=\"&%s)", above_n,
                        above_x, D);
        gp_xlsx_formula(b, ws, row, B_SOLD, bv->sold, NULL, "=SUMIFS(%s,%s,%s)", above_n, above_x,
                        D);
    }
    const char *C = at(&rr, B_C), *IN = at(&rr, B_INSERVICE), *SO = at(&rr, B_SOLD);
    gp_xlsx_formula(b, ws, row, B_REFRESH, bv->refresh, NULL,
                    "=IF(%s=1,MIN(%s,MAX(0,%s-(%s-%s))),0)", at(&rr, B_DELIVERY), SO, C, IN, SO);
    gp_xlsx_formula(b, ws, row, B_NEW, bv->fresh, NULL, "=IF(%s=1,MAX(0,%s-(%s-%s)-%s),0)",
                    at(&rr, B_DELIVERY), C, IN, SO, at(&rr, B_REFRESH));
    /* Cached: the engine's servers delivered here. */
    int nd = 0;
    for (int i = 0; i < x->r->self.n_batches; i++)
        if (x->r->self.batches[i].index == d)
            nd += x->r->self.batches[i].servers;
    gp_xlsx_formula(b, ws, row, B_N, nd, NULL, "=%s+%s", at(&rr, B_REFRESH), at(&rr, B_NEW));
    gp_xlsx_formula(b, ws, row, B_X, bv->x, NULL,
                    "=IF(AND(refresh_months>0,%s+refresh_step<horizon_months),%s+refresh_step,"
                    "horizon_months)",
                    D, D);
    const char *N = at(&rr, B_N);
    if (d == 0)
        gp_xlsx_formula(b, ws, row, B_FIRST, bv->first, NULL, "=IF(%s>0,1,0)", N);
    else
        gp_xlsx_formula(b, ws, row, B_FIRST, bv->first, NULL, "=IF(AND(%s>0,SUM(%s)=0),1,0)", N,
                        above_n);
    if (s->n_tiers > 0)
        gp_xlsx_formula(b, ws, row, B_BETA, bv->beta, b->pct,
                        "=IF(%s>0,IFERROR(LOOKUP(%s,%s,%s),0),0)", N, N, x->tier_min, x->tier_pct);
    else
        gp_xlsx_formula(b, ws, row, B_BETA, bv->beta, b->pct, "=0*%s", N);
    gp_xlsx_formula(b, ws, row, B_UNIT, bv->unit, b->money,
                    "=server_price*price_factor*(1+hw_trend)^((%s-lead_time)/12)", D);
    const char *BE = at(&rr, B_BETA), *U = at(&rr, B_UNIT);
    gp_xlsx_formula(b, ws, row, B_HW, bv->hw, b->money, "=%s*%s*(1-%s)+%s*network_per_server", N, U,
                    BE, at(&rr, B_NEW));
    gp_xlsx_formula(b, ws, row, B_CAPEX, bv->capex, b->money, "=%s+IF(%s=1,fixed_capex,0)",
                    at(&rr, B_HW), at(&rr, B_FIRST));
    const char *CA = at(&rr, B_CAPEX);
    gp_xlsx_formula(b, ws, row, B_CASH, bv->cash, b->money, "=%s*(1-IF(loan=1,loan_fraction,0))",
                    CA);
    gp_xlsx_formula(b, ws, row, B_PRINCIPAL, bv->principal, b->money,
                    "=IF(loan=1,%s*loan_fraction,0)", CA);
    const char *L = at(&rr, B_PRINCIPAL);
    gp_xlsx_formula(
        b, ws, row, B_PAYMENT, bv->payment, b->money,
        "=IF(%s=0,0,IF(loan_apr=0,%s/loan_term,%s*(loan_apr/12)/(1-(1+loan_apr/12)^(-loan_"
        "term))))",
        L, L, L);
    gp_xlsx_formula(b, ws, row, B_LASTPAY, bv->lastpay, NULL, "=MIN(%s+loan_term,%s)", D,
                    at(&rr, B_X));
    const char *A = at(&rr, B_PAYMENT), *T = at(&rr, B_AGE);
    gp_xlsx_formula(
        b, ws, row, B_BALANCE, bv->balance, b->money,
        "=IF(AND(%s>0,loan_term>%s),IF(loan_apr=0,%s-%s*%s,%s*(1+loan_apr/12)^%s-%s*((1+loan_"
        "apr/12)^%s-1)/(loan_apr/12)),0)",
        L, T, L, A, T, L, T, A, T);
    gp_xlsx_formula(b, ws, row, B_MAINT, bv->maint, b->money, "=maintenance_pct*%s/12",
                    at(&rr, B_HW));
    gp_xlsx_formula(b, ws, row, B_AGE, bv->age, NULL, "=%s-%s", at(&rr, B_X), D);
    char pct[64];
    batch_range(x, pct, sizeof pct, B_PCT);
    gp_xlsx_formula(b, ws, row, B_SRVVAL, bv->srvval, b->money,
                    "=IF(%s=0,0,INDEX(%s,%s+1)*%s*%s*(1-%s)*(1+hw_trend)^((%s+lead_time)/12))", N,
                    pct, T, N, U, BE, T);
    char refr[64];
    batch_range(x, refr, sizeof refr, B_REFRESH);
    gp_xlsx_formula(b, ws, row, B_PASSED, bv->passed, NULL,
                    "=IF(%s<horizon_months,INDEX(%s,%s+1),0)", at(&rr, B_X), refr, at(&rr, B_X));
    int g0 = B_GEN, c0 = B_GEN + x->n_gen, v0 = B_GEN + 2 * x->n_gen;
    char v0n[8], vln[8];
    col_name(v0, v0n);
    col_name(v0 + x->n_gen - 1, vln);
    gp_xlsx_formula(b, ws, row, B_VALUE, bv->value, b->money, "=%s+SUM($%s%d:$%s%d)",
                    at(&rr, B_SRVVAL), v0n, R, vln, R);
    /* pct(age d). */
    if (s->n_resale > 0)
        gp_xlsx_formula(
            b, ws, row, B_PCT, bv->pct, NULL,
            "=IF(%s>=INDEX(%s,%d),INDEX(%s,%d),INDEX(%s,MATCH(%s,%s,1))+(INDEX(%s,MATCH(%s,%s,"
            "1)+1)-INDEX(%s,MATCH(%s,%s,1)))*(%s-INDEX(%s,MATCH(%s,%s,1)))/(INDEX(%s,MATCH(%s,"
            "%s,1)+1)-INDEX(%s,MATCH(%s,%s,1))))",
            D, x->res_age, s->n_resale + 1, x->res_pct, s->n_resale + 1, x->res_pct, D, x->res_age,
            x->res_pct, D, x->res_age, x->res_pct, D, x->res_age, D, x->res_age, D, x->res_age,
            x->res_age, D, x->res_age, x->res_age, D, x->res_age);
    else
        gp_xlsx_formula(
            b, ws, row, B_PCT, bv->pct, NULL,
            "=IF(OR(as_needed=1,refresh_months>0),IF(%s>=12*depreciation_years,residual_pct,"
            "1+(residual_pct-1)*%s/(12*depreciation_years)),residual_pct)",
            D, D);
    /* Network shares by generation k: delivered first at d - k * refresh_step. */
    for (int k = 0; k < x->n_gen; k++) {
        if (k == 0) {
            gp_xlsx_formula(b, ws, row, g0, gen[0], NULL, "=%s", at(&rr, B_NEW));
            continue;
        }
        if (d == 0) {
            num_cell(b, ws, row, g0 + k, 0, NULL);
            continue;
        }
        char prev[8], older[8];
        col_name(g0 + k - 1, prev);
        col_name(c0 + k, older);
        gp_xlsx_formula(
            b, ws, row, g0 + k, gen[k], NULL,
            "=IF(OR(%s=0,%s-refresh_step<0),0,MIN(INDEX($%s$2:$%s$%d,%s-refresh_step+1),MAX(0,"
            "%s-INDEX($%s$2:$%s$%d,%s-refresh_step+1))))",
            at(&rr, B_REFRESH), D, prev, prev, R - 1, D, at(&rr, B_REFRESH), older, older, R - 1,
            D);
    }
    for (int k = 0; k < x->n_gen; k++) {
        char a[8], z[8];
        col_name(g0 + k, a);
        col_name(g0 + x->n_gen - 1, z);
        gp_xlsx_formula(b, ws, row, c0 + k, gcum[k], NULL, "=SUM($%s%d:$%s%d)", a, R, z, R);
    }
    for (int k = 0; k < x->n_gen; k++) {
        rr.used = 0; /* pct, D and the buffers below outlive the ring otherwise */
        const char *cnt = at(&rr, g0 + k), *X = at(&rr, B_X);
        char older[32];
        if (k + 1 < x->n_gen)
            snprintf(older, sizeof older, "%s", at(&rr, c0 + k + 1));
        else
            snprintf(older, sizeof older, "0");
        char age[96];
        snprintf(age, sizeof age, "(%s-(%s-%d*refresh_step))", X, D, k);
        if (k == 0)
            snprintf(age, sizeof age, "(%s-%s)", X, D);
        gp_xlsx_formula(
            b, ws, row, v0 + k, gval[k], b->money,
            "=IF(%s=0,0,(%s-MIN(%s,MAX(0,%s-%s)))*INDEX(%s,%s+1)*network_per_server*(1+hw_"
            "trend)^((%s+lead_time)/12))",
            cnt, cnt, cnt, at(&rr, B_PASSED), older, pct, age, age);
    }
}

/* The pay-per-use flow (with_hourly) or its slope in hourly of option o for busy GPU-hours z
 * (an expression) in month A. */
static void pay_per_use(char *out, size_t cap, const opt_refs *o, const char *z, const char *A,
                        bool with_hourly) {
    snprintf(out, cap, "%s*%s*%s*(1+%s)^((%s-1)/12)", z, o->per_gpu_h,
             with_hourly ? o->h[O_HOURLY] : "1", o->h[O_TREND], A);
}

/* One row of the Plan sheet: index m (0 = the start, else the close of month m). */
/* A Plan formula cell, its cached value added to its column's total. */
static void plan_cell(wbctx *x, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                      const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void plan_cell(wbctx *x, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                      const char *fmt, ...) {
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    x->colsum[col] += cached;
    keep(x->b, worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, cached));
}

static void plan_row(wbctx *x, lxw_worksheet *ws, int m, double *cum_self, double *cum_opt) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int row = m + 1, R = m + 2, M = x->M;
    rowref rr = {.R = R};
    const plan_vals *pv = &x->sv->p[m];
    size_t rows = (size_t)M + 1;
    char A[16];
    snprintf(A, sizeof A, "%s", at(&rr, c->m));
    char t[2048], t2[2048];
    num_cell(b, ws, row, c->m, m, NULL);
    /* Cached as EDATE computes them, for viewers that do not recalculate. */
    int mi = x->start_year * 12 + x->start_month - 1 + (m > 0 ? m - 1 : 0);
    int my = mi / 12, mm = mi % 12 + 1;
    plan_cell(x, ws, row, c->date, month_serial(my, mm, x->start_day), b->month,
              "=EDATE(start_date,MAX(%s,1)-1)", A);
    plan_cell(x, ws, row, c->year, my, NULL, "=YEAR(%s)", at(&rr, c->date));
    plan_cell(x, ws, row, c->fy, my + (x->fiscal_start > 1 && mm >= x->fiscal_start), NULL,
              "=YEAR(%s)+IF(AND(fiscal_start>1,MONTH(%s)>=fiscal_start),1,0)", at(&rr, c->date),
              at(&rr, c->date));
    char bn[64], ba[64], bx[64];
    batch_range(x, bn, sizeof bn, B_N);
    batch_range(x, ba, sizeof ba, B_D);
    batch_range(x, bx, sizeof bx, B_X);
    char bcash[64], bpay[64], blast[64], bbal[64], bval[64], bmaint[64];
    batch_range(x, bcash, sizeof bcash, B_CASH);
    batch_range(x, bpay, sizeof bpay, B_PAYMENT);
    batch_range(x, blast, sizeof blast, B_LASTPAY);
    batch_range(x, bbal, sizeof bbal, B_BALANCE);
    batch_range(x, bval, sizeof bval, B_VALUE);
    batch_range(x, bmaint, sizeof bmaint, B_MAINT);
    const gp_self_result *sr = &r->self;
    int bought = 0, sold = 0;
    for (int i = 0; i < sr->n_batches; i++) {
        bought += sr->batches[i].index == m ? sr->batches[i].servers : 0;
        sold += sr->batches[i].exit == m ? sr->batches[i].servers : 0;
    }
    plan_cell(x, ws, row, c->bought, bought, NULL, "=SUMIFS(%s,%s,%s)", bn, ba, A);
    plan_cell(x, ws, row, c->sold, sold, NULL, "=SUMIFS(%s,%s,%s)", bn, bx, A);
    plan_cell(x, ws, row, c->capex, pv->capex, b->money, "=SUMIFS(%s,%s,%s)", bcash, ba, A);
    plan_cell(x, ws, row, c->balance, pv->balance, b->money, "=SUMIFS(%s,%s,%s)", bbal, bx, A);
    plan_cell(x, ws, row, c->sales, pv->sales, b->money,
              "=IF(%s<horizon_months,-SUMIFS(%s,%s,%s),0)", A, bval, bx, A);
    plan_cell(x, ws, row, c->exit, m == M ? -sr->exit_value : 0, b->money,
              "=IF(%s=horizon_months,-SUMIFS(%s,%s,%s),0)", A, bval, bx, A);
    if (m > 0) {
        int j = m - 1;
        char U[16];
        snprintf(U, sizeof U, "%s", at(&rr, c->u));
        if (c->raw >= 0) {
            const char *start = s->work_mode ? "work_per_month" : "gpus";
            plan_cell(x, ws, row, c->raw,
                      s->work_mode ? r->demand_work_month[j] : r->demand_gpus[j], b->num,
                      "=IF(COUNTIFS(%s,%s,%s,\">=0\")>0,SUMIFS(%s,%s,%s),%s)", x->steps_month, A,
                      x->steps_val, x->steps_val, x->steps_month, A,
                      m == 1 ? start : at_row(&rr, c->raw, R - 1));
            plan_cell(x, ws, row, c->u, r->demand_utilization[j], b->pct,
                      "=IF(COUNTIFS(%s,%s,%s,\">=0\")>0,SUMIFS(%s,%s,%s),%s)", x->steps_month, A,
                      x->steps_u, x->steps_u, x->steps_month, A,
                      m == 1 ? "utilization" : at_row(&rr, c->u, R - 1));
        } else {
            plan_cell(x, ws, row, c->u, r->demand_utilization[j], b->pct, "=utilization");
        }
        const char *base = c->raw >= 0 ? at(&rr, c->raw) : s->work_mode ? "work_per_month" : "gpus";
        snprintf(t2, sizeof t2, "%s*(1+growth)^(%s-1)", base, A);
        if (!s->work_mode) {
            ceil_plus(t, sizeof t, t2);
            plan_cell(x, ws, row, c->n, r->demand_gpus[j], NULL, "=%s", t);
            plan_cell(x, ws, row, c->w, r->demand_work_month[j], b->num, "=%s*730*%s",
                      at(&rr, c->n), U);
        } else {
            plan_cell(x, ws, row, c->w, r->demand_work_month[j], b->num, "=%s", t2);
            plan_cell(x, ws, row, c->qs, r->demand_work_month[j] / s->work_per_gpu_hour, b->num,
                      "=%s/rho_s", at(&rr, c->w));
            snprintf(t2, sizeof t2, "%s/(730*%s)", at(&rr, c->qs), U);
            ceil_plus(t, sizeof t, t2);
            plan_cell(x, ws, row, c->ns, pv->ns, NULL, "=IF(%s=0,0,%s)", at(&rr, c->w), t);
        }
        const char *NS = at(&rr, c->ns), *QS = at(&rr, c->qs);
        plan_cell(
            x, ws, row, c->s, pv->s, NULL,
            "=IF(max_servers>0,MIN(max_servers,ROUNDUP(%s/gpus_per_server,0)),ROUNDUP(%s/gpus_"
            "per_server,0))",
            NS, NS);
        plan_cell(x, ws, row, c->inservice, sr->servers_in_service[j], NULL,
                  "=SUMIFS(%s,%s,\"<\"&%s,%s,\">=\"&%s)", bn, ba, A, bx, A);
        plan_cell(x, ws, row, c->g, sr->gpus_at_work[j], NULL, "=MIN(%s,%s*gpus_per_server)", NS,
                  at(&rr, c->inservice));
        const char *G = at(&rr, c->g);
        plan_cell(x, ws, row, c->q, pv->q, b->num, "=MIN(%s,%s*730*%s)", QS, G, U);
        const char *Q = at(&rr, c->q);
        const char *rho_b = s->work_mode && s->bridge >= 0 ? x->o[s->bridge].h[O_RHO] : "1";
        if (c->z >= 0)
            plan_cell(x, ws, row, c->z, sr->bridge_hours[j], b->num,
                      "=IF(%s-%s<=1E-9*MAX(%s,730*%s),0,(%s-%s)*%s/%s)", QS, Q, QS, U, QS, Q,
                      s->work_mode ? "rho_s" : "1", rho_b);
        plan_cell(x, ws, row, c->powered, pv->powered, NULL, "=ROUNDUP(%s/gpus_per_server,0)", G);
        plan_cell(x, ws, row, c->base, pv->base, b->num,
                  "=%s*server_base_w+%s*IF(has_gpu_avg=1,gpu_avg_w,gpu_idle_w)",
                  at(&rr, c->powered), G);
        plan_cell(x, ws, row, c->busy, pv->busy, b->num, "=IF(has_gpu_avg=1,0,%s*24/730)", Q);
        for (int k = 0; k < s->n_periods; k++) {
            char hk[64], before[64];
            ref(hk, sizeof hk, "Assumptions", x->ph[k], 1);
            ref(before, sizeof before, "Assumptions", x->ph[k], 4);
            plan_cell(x, ws, row, c->y0 + k, pv->y[k], b->num,
                      "=IF(shift=1,MIN(%s*%s,MAX(0,%s-%s*%s)),%s*%s/24)", G, hk, at(&rr, c->busy),
                      G, before, at(&rr, c->busy), hk);
        }
        char e_sum[4096] = "0", c_sum[4096] = "0";
        for (int k = 0; k < s->n_periods; k++) {
            char hk[64], pk[64];
            ref(hk, sizeof hk, "Assumptions", x->ph[k], 1);
            ref(pk, sizeof pk, "Assumptions", x->pp[k], 1);
            size_t n1 = strlen(e_sum), n2 = strlen(c_sum);
            snprintf(e_sum + n1, sizeof e_sum - n1,
                     "+(%s*%s+IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)*%s)", at(&rr, c->base), hk,
                     at(&rr, c->y0 + k));
            snprintf(c_sum + n2, sizeof c_sum - n2,
                     "+(%s*%s+IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)*%s)*%s", at(&rr, c->base),
                     hk, at(&rr, c->y0 + k), pk);
        }
        plan_cell(x, ws, row, c->kwh, pv->kwh, b->num, "=pue*(%s)*730/24/1000", e_sum);
        plan_cell(x, ws, row, c->power, pv->power, b->money,
                  "=pue*(%s)*730/24/1000*(1+energy_trend)^((%s-1)/12)", c_sum, A);
        plan_cell(x, ws, row, c->kinst, pv->kinst, b->num,
                  "=(%s*server_base_w+%s*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/1000",
                  at(&rr, c->inservice), G);
        plan_cell(
            x, ws, row, c->kdraw, pv->kdraw, b->num,
            "=IF(%s>0,(%s*server_base_w+%s*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/1000,%s/"
            "1000)",
            U, at(&rr, c->powered), G, at(&rr, c->base));
        plan_cell(x, ws, row, c->colo, pv->colo, b->money, "=colo_per_kw_month*%s",
                  at(&rr, c->kinst));
        plan_cell(x, ws, row, c->charge, pv->charge, b->money,
                  "=demand_charge*(1+energy_trend)^((%s-1)/12)*%s*pue", A, at(&rr, c->kdraw));
        plan_cell(x, ws, row, c->maint, pv->maint, b->money,
                  "=SUMIFS(%s,%s,\"<\"&(%s-warranty_months),%s,\">=\"&%s)", bmaint, ba, A, bx, A);
        plan_cell(x, ws, row, c->staff, s->staff_per_month, b->money, "=staff_per_month");
        plan_cell(x, ws, row, c->other, s->other_per_month, b->money, "=other_per_month");
        if (c->bridge >= 0) {
            const opt_refs *bo = &x->o[s->bridge];
            const char *Z = at(&rr, c->z);
            pay_per_use(t, sizeof t, bo, Z, A, true);
            plan_cell(x, ws, row, c->bridge, sr->bridge_cost[j], b->money, "=IF(%s>0,%s+%s,0)", Z,
                      t, bo->extras);
            pay_per_use(t, sizeof t, bo, Z, A, false);
            plan_cell(x, ws, row, c->bslope, pv->bslope, b->num, "=IF(%s>0,%s,0)", Z, t);
        }
        plan_cell(x, ws, row, c->pay, pv->pay, b->money, "=SUMIFS(%s,%s,\"<\"&%s,%s,\">=\"&%s)",
                  bpay, ba, A, blast, A);
    }
    char fl[8], ll[8];
    col_name(c->power, fl);
    col_name(c->exit, ll);
    /* The flow: power .. exit value (kWh and peaks are not money; they sit before power). */
    *cum_self += sr->monthly[m];
    plan_cell(x, ws, row, c->flow, sr->monthly[m], b->money, "=SUM($%s%d:$%s%d)", fl, R, ll, R);
    if (m == 0)
        plan_cell(x, ws, row, c->cum, *cum_self, b->money, "=%s", at(&rr, c->flow));
    else
        plan_cell(x, ws, row, c->cum, *cum_self, b->money, "=%s+%s", at_row(&rr, c->cum, R - 1),
                  at(&rr, c->flow));
    plan_cell(x, ws, row, c->cumx, *cum_self + (m == M ? sr->exit_value : 0), b->money, "=%s-%s",
              at(&rr, c->cum), at(&rr, c->exit));
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        const opt_refs *orf = &x->o[i];
        const opt_cols *oc = &c->o[i];
        const gp_option_result *orr = &r->options[i];
        if (m > 0 && s->work_mode)
            plan_cell(x, ws, row, oc->q, x->sv->oq[(size_t)i * rows + (size_t)m], b->num, "=%s/%s",
                      at(&rr, c->w), orf->h[O_RHO]);
        const char *QO = at(&rr, oc->q);
        if (o->pricing != GP_COMMITTED) {
            if (m == 0) {
                num_cell(b, ws, row, oc->flow, 0, b->money);
                num_cell(b, ws, row, oc->slope, 0, b->num);
            } else {
                pay_per_use(t, sizeof t, orf, QO, A, true);
                plan_cell(x, ws, row, oc->flow, orr->monthly[m], b->money, "=%s+%s", t,
                          orf->extras);
                pay_per_use(t, sizeof t, orf, QO, A, false);
                plan_cell(x, ws, row, oc->slope, x->sv->oslope[(size_t)i * rows + (size_t)m],
                          b->num, "=%s", t);
            }
        } else {
            const char *T = orf->h[O_TERM], *g = orf->h[O_G], *sup = orf->h[O_SUPPORT],
                       *tr = orf->h[O_TREND], *hourly = orf->h[O_HOURLY];
            char ts[256];
            snprintf(ts, sizeof ts, "(%s*INT((%s-1)/%s))", T, A, T);
            if (m > 0) {
                char need[1024];
                if (s->work_mode) {
                    snprintf(t2, sizeof t2, "%s/(730*%s)", QO, at(&rr, c->u));
                    ceil_plus(t, sizeof t, t2);
                    snprintf(need, sizeof need, "IF(%s=0,0,%s)", at(&rr, c->w), t);
                } else {
                    snprintf(need, sizeof need, "%s", at(&rr, c->n));
                }
                plan_cell(x, ws, row, oc->need, x->sv->oneed[(size_t)i * rows + (size_t)m], NULL,
                          "=ROUNDUP(%s/%s,0)", need, g);
                char nr[64];
                plan_range(x, nr, sizeof nr, oc->need, false);
                char mr[64];
                plan_range(x, mr, sizeof mr, c->m, false);
                if (o->has_base_gpus)
                    plan_cell(x, ws, row, oc->inst, x->sv->oinst[(size_t)i * rows + (size_t)m],
                              NULL, "=ROUNDUP(%s/%s,0)", orf->h[O_BASE], g);
                else
                    plan_cell(x, ws, row, oc->inst, x->sv->oinst[(size_t)i * rows + (size_t)m],
                              NULL,
                              "=_xlfn.MAXIFS(%s,%s,\">\"&%s,%s,\"<=\"&MIN(%s+%s,horizon_months))",
                              nr, mr, ts, mr, ts, T);
            }
            const char *I = at(&rr, oc->inst);
            char burst[2048] = "0";
            if (m > 0 && o->has_base_gpus) {
                snprintf(t2, sizeof t2, "MIN(%s,%s*%s*730*%s)", QO, I, g, at(&rr, c->u));
                const char *rho_o = s->work_mode ? orf->h[O_RHO] : "1";
                const char *rho_b = s->work_mode && o->burst >= 0 ? x->o[o->burst].h[O_RHO] : "1";
                plan_cell(x, ws, row, oc->z, orr->burst_hours[m - 1], b->num,
                          "=IF(%s-%s<=1E-9*MAX(%s,730*%s),0,(%s-%s)*%s/%s)", QO, t2, QO,
                          at(&rr, c->u), QO, t2, rho_o, rho_b);
                if (o->burst >= 0) {
                    const opt_refs *bo = &x->o[o->burst];
                    pay_per_use(t, sizeof t, bo, at(&rr, oc->z), A, true);
                    plan_cell(x, ws, row, oc->burst, x->sv->oburst[(size_t)i * rows + (size_t)m],
                              b->money, "=IF(%s>0,%s+%s,0)", at(&rr, oc->z), t, bo->extras);
                } else {
                    num_cell(b, ws, row, oc->burst, 0, b->money);
                }
                snprintf(burst, sizeof burst, "%s", at(&rr, oc->burst));
            }
            char upfront[1024];
            snprintf(upfront, sizeof upfront,
                     "IF(AND(MOD(%s,%s)=0,%s<horizon_months),%s*%s*(1+%s)^(%s/12)*(1+%s),0)", A, T,
                     A, at_row(&rr, oc->inst, R + 1), orf->h[O_UPFRONT], tr, A, sup);
            if (m == 0) {
                plan_cell(x, ws, row, oc->flow, orr->monthly[0], b->money, "=%s", upfront);
                num_cell(b, ws, row, oc->slope, 0, b->num);
            } else {
                char month_rate[512];
                snprintf(month_rate, sizeof month_rate, "%s*730*(1+%s)^(%s/12)*(1+%s)", I, tr, ts,
                         sup);
                plan_cell(
                    x, ws, row, oc->flow, orr->monthly[m], b->money,
                    "=%s+%s*%s+%s+%s+IF(%s=horizon_months,MAX(0,%s+%s-horizon_months)*%s*%s,0)",
                    upfront, month_rate, hourly, orf->extras, burst, A, ts, T, month_rate, hourly);
                plan_cell(x, ws, row, oc->slope, x->sv->oslope[(size_t)i * rows + (size_t)m],
                          b->num, "=%s+IF(%s=horizon_months,MAX(0,%s+%s-horizon_months)*%s,0)",
                          month_rate, A, ts, T, month_rate);
            }
        }
        cum_opt[i] += orr->monthly[m];
        if (m == 0)
            plan_cell(x, ws, row, oc->cum, cum_opt[i], b->money, "=%s", at(&rr, oc->flow));
        else
            plan_cell(x, ws, row, oc->cum, cum_opt[i], b->money, "=%s+%s",
                      at_row(&rr, oc->cum, R - 1), at(&rr, oc->flow));
        /* Break-even tests (docs/model.md Results, Ties): differed so far (2.1: level months are
         * no break-even), counts and behind, with and without the exit value; cached as the
         * engine's sums give them. */
        for (int wx = 0; wx < 2; wx++) {
            const char *cs = at(&rr, wx ? c->cumx : c->cum), *co = at(&rr, oc->cum);
            int dif = wx ? oc->difx : oc->dif;
            double vs = *cum_self + (wx && m == M ? sr->exit_value : 0.0), vo = cum_opt[i];
            bool tie = gp_money_equal(vs, vo);
            bool ok = vs < vo || tie;
            bool zero = fabs(vs) <= 1e-9 && fabs(vo) <= 1e-9;
            bool *differed = &x->differed[wx][i];
            *differed = (m > 0 && *differed) || !tie;
            char eq[512];
            snprintf(eq, sizeof eq, "ABS(%s-%s)<=1E-9*MAX(1,ABS(%s),ABS(%s))", cs, co, cs, co);
            if (m == 0)
                plan_cell(x, ws, row, dif, *differed, NULL, "=IF(%s,0,1)", eq);
            else
                plan_cell(x, ws, row, dif, *differed, NULL, "=IF(OR(%s=1,NOT(%s)),1,0)",
                          at_row(&rr, dif, R - 1), eq);
            snprintf(t, sizeof t, "OR(%s<%s,%s)", cs, co, eq);
            plan_cell(x, ws, row, wx ? oc->cntx : oc->cnt, ok && *differed && !zero, NULL,
                      "=IF(AND(%s,%s=1,NOT(AND(ABS(%s)<=1E-9,ABS(%s)<=1E-9))),1,0)", t,
                      at(&rr, dif), cs, co);
            plan_cell(x, ws, row, wx ? oc->behx : oc->beh, !ok, NULL, "=IF(%s,0,1)", t);
        }
    }
}

static int cmp_tier(const void *a, const void *b) {
    const gp_bulk_tier *x = a, *y = b;
    return (x->min_servers > y->min_servers) - (x->min_servers < y->min_servers);
}

/* The Assumptions sheet; fills the references the other sheets use. */
static void assumptions(wbctx *x, lxw_worksheet *as, const gp_report_meta *meta, int fiscal_start) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    inputs in = {b, as, 1};
    text_cell(b, as, 0, 0, "input (blue on yellow: edit these; everything else recalculates)",
              b->bold);
    text_cell(b, as, 0, 1, "value", b->bold);
    text_cell(b, as, 0, 2, "unit", b->bold);
    text_cell(b, as, 0, 3, "source", b->bold);
    text_cell(b, as, 0, 4, "tariff: hours of periods filled first", b->bold);
    const char *start = s->has_start_date ? s->start_date : meta && meta->as_of ? meta->as_of : "";
    int y = 2000, mo = 1, d = 1;
    if (sscanf(start, "%4d-%2d-%2d", &y, &mo, &d) != 3 || y < 1900)
        y = 1900, mo = 1, d = 1;
    int r = in.row++;
    text_cell(b, as, r, 0, "plan starts (month 1 begins)", NULL);
    num_cell(b, as, r, 1, date_serial(y, mo, d), b->in_date);
    text_cell(b, as, r, 2, "date", NULL);
    text_cell(b, as, r, 3, s->has_start_date ? "scenario start_date" : "report date (as_of)", NULL);
    define(b, "start_date", r, 1);
    input(&in, "fiscal_start", "fiscal year starts in month (1 = calendar year)", fiscal_start,
          "1..12");
    input(&in, "horizon_months", "horizon (keep: the rows are laid out for it)", x->M, "months");
    input(&in, "discount_rate", "discount rate (NPV)", s->discount_rate, "a year");
    heading(&in, "Demand");
    if (s->work_mode)
        input(&in, "work_per_month", "demand: work a month", s->work_per_month, s->work_unit);
    else
        input(&in, "gpus", "demand: GPUs", s->gpus, "GPUs");
    input(&in, "utilization", "demand: busy share of GPU-hours", s->utilization, "0..1");
    input(&in, "growth", "demand growth (compound; 0 with steps)", s->growth_per_month, "a month");
    heading(&in, "Self-hosted");
    input(&in, "gpus_per_server", "GPUs a server", s->gpus_per_server, "GPUs");
    input(&in, "server_price", "server price", s->server_price, s->currency);
    input(&in, "price_factor", "price factor (refurbished)", s->price_factor, "x");
    input(&in, "hw_trend", "server price trend", s->server_price_trend_per_year, "a year");
    input(&in, "network_per_server", "network per server", s->network_per_server, s->currency);
    input(&in, "fixed_capex", "fixed capex (install, racks)", s->fixed_capex, s->currency);
    input(&in, "as_needed", "buy as needed (1) or all at once (0)", s->buy == GP_BUY_AS_NEEDED,
          "0/1");
    input(&in, "lead_time", "lead time", s->lead_time_months, "months");
    input(&in, "order_every", "order every", s->order_every_months, "months");
    input(&in, "max_servers", "at most servers (0: no cap)",
          s->has_max_servers ? s->max_servers : 0, "servers");
    input(&in, "refresh_months", "refresh after (0: never)", s->refresh_months, "months");
    if (s->n_resale == 0)
        input(&in, "residual_pct",
              "residual value (bought as needed or refreshed: where the straight line from new "
              "ends; else flat)",
              s->residual_pct, "of hardware");
    input(&in, "depreciation_years", "depreciation (the straight line's length)",
          s->depreciation_years, "years");
    input(&in, "warranty_months", "warranty", s->warranty_months, "months");
    input(&in, "maintenance_pct", "maintenance after warranty", s->maintenance_pct_per_year,
          "of hardware a year");
    input(&in, "staff_per_month", "staff", s->staff_per_month, "a month");
    input(&in, "other_per_month", "other costs", s->other_per_month, "a month");
    input(&in, "colo_per_kw_month", "colocation", s->colo_per_kw_month, "per kW-month");
    if (s->work_mode)
        input(&in, "rho_s", "owned GPU: work a GPU-hour", s->work_per_gpu_hour, s->work_unit);
    input(&in, "server_base_w", "server draw besides GPUs", s->server_base_w, "W");
    input(&in, "gpu_idle_w", "GPU idle draw", s->gpu_idle_w, "W");
    input(&in, "gpu_tdp_w", "GPU busy draw", s->gpu_tdp_w, "W");
    input(&in, "has_gpu_avg", "use a flat mean GPU draw (1) or idle/busy (0)", s->has_gpu_avg_w,
          "0/1");
    input(&in, "gpu_avg_w", "flat mean GPU draw", s->has_gpu_avg_w ? s->gpu_avg_w : 0, "W");
    input(&in, "pue", "PUE", s->pue, "x");
    input(&in, "shift", "busy hours shifted to the cheapest periods", s->shift_to_cheapest, "0/1");
    input(&in, "demand_charge", "demand charge", s->demand_charge_per_kw_month, "per kW-month");
    input(&in, "energy_trend", "electricity price trend", s->energy_price_trend_per_year, "a year");
    input(&in, "loan", "financed with a loan", s->financing == GP_LOAN, "0/1");
    input(&in, "loan_fraction", "loan share of capex", s->loan_fraction, "0..1");
    input(&in, "loan_apr", "loan APR", s->loan_apr, "a year");
    input(&in, "loan_term", "loan term", s->loan_term_months, "months");
    /* Each period's row is its hours, then its price: the rows are known before they are
     * written, so each hours row can hold the hours of the periods shifting fills first (a
     * lower price, or the same price given earlier), live on the prices. */
    for (int k = 0; k < s->n_periods; k++) {
        x->ph[k] = in.row + 2 * k;
        x->pp[k] = in.row + 2 * k + 1;
    }
    x->cheaper_first = x->ph[0];
    x->cheaper_last = x->pp[s->n_periods - 1];
    for (int k = 0; k < s->n_periods; k++) {
        char label[GP_NAME_BYTES + 32];
        snprintf(label, sizeof label, "tariff %s: hours a day", s->periods[k].name);
        int hr = input(&in, NULL, label, s->periods[k].hours_per_day, "h");
        char f[8192] = "=0", pk[64];
        ref(pk, sizeof pk, "Assumptions", x->pp[k], 1);
        double cheaper = 0;
        for (int i = 0; i < s->n_periods; i++) {
            if (i == k)
                continue;
            char hi[64], pi[64];
            ref(hi, sizeof hi, "Assumptions", x->ph[i], 1);
            ref(pi, sizeof pi, "Assumptions", x->pp[i], 1);
            size_t n = strlen(f);
            snprintf(f + n, sizeof f - n, "+%s*(%s%s%s)", hi, pi, i < k ? "<=" : "<", pk);
            double a = s->periods[i].price_per_kwh, c = s->periods[k].price_per_kwh;
            cheaper += (i < k ? a <= c : a < c) ? s->periods[i].hours_per_day : 0;
        }
        keep(b, worksheet_write_formula_num(as, (lxw_row_t)hr, 4, f, b->num, cheaper));
        snprintf(label, sizeof label, "tariff %s: price", s->periods[k].name);
        input(&in, NULL, label, s->periods[k].price_per_kwh, "per kWh");
    }
    if (s->n_steps > 0) {
        heading(&in, "Demand steps (\"-\": not given, the value before holds)");
        text_cell(b, as, in.row, 0, "step", b->bold);
        text_cell(b, as, in.row, 1, "month", b->bold);
        text_cell(b, as, in.row, 2, s->work_mode ? "work a month" : "GPUs", b->bold);
        text_cell(b, as, in.row++, 3, "utilization", b->bold);
        int r0 = in.row;
        for (int k = 0; k < s->n_steps; k++, in.row++) {
            const gp_step *st = &s->steps[k];
            char label[32];
            snprintf(label, sizeof label, "step %d", k + 1);
            text_cell(b, as, in.row, 0, label, NULL);
            num_cell(b, as, in.row, 1, st->month, b->in_num);
            bool has = s->work_mode ? st->has_work : st->has_gpus;
            if (has)
                num_cell(b, as, in.row, 2, s->work_mode ? st->work_per_month : st->gpus, b->in_num);
            else
                text_cell(b, as, in.row, 2, "-", b->in_text);
            if (st->has_utilization)
                num_cell(b, as, in.row, 3, st->utilization, b->in_num);
            else
                text_cell(b, as, in.row, 3, "-", b->in_text);
        }
        range(x->steps_month, sizeof x->steps_month, "Assumptions", 1, r0, in.row - 1);
        range(x->steps_val, sizeof x->steps_val, "Assumptions", 2, r0, in.row - 1);
        range(x->steps_u, sizeof x->steps_u, "Assumptions", 3, r0, in.row - 1);
    }
    if (s->n_tiers > 0) {
        heading(&in, "Bulk discounts (ascending servers)");
        text_cell(b, as, in.row, 1, "from servers", b->bold);
        text_cell(b, as, in.row++, 2, "discount", b->bold);
        gp_bulk_tier tiers[GP_MAX_TIERS];
        memcpy(tiers, s->tiers, sizeof tiers[0] * (size_t)s->n_tiers);
        qsort(tiers, (size_t)s->n_tiers, sizeof tiers[0], cmp_tier);
        int r0 = in.row;
        for (int k = 0; k < s->n_tiers; k++, in.row++) {
            text_cell(b, as, in.row, 0, "bulk tier", NULL);
            num_cell(b, as, in.row, 1, tiers[k].min_servers, b->in_num);
            num_cell(b, as, in.row, 2, tiers[k].pct, b->in_num);
        }
        range(x->tier_min, sizeof x->tier_min, "Assumptions", 1, r0, in.row - 1);
        range(x->tier_pct, sizeof x->tier_pct, "Assumptions", 2, r0, in.row - 1);
    }
    if (s->n_resale > 0) {
        heading(&in, "Resale value by age (straight lines between points, flat after)");
        text_cell(b, as, in.row, 1, "age (months)", b->bold);
        text_cell(b, as, in.row++, 2, "share of new", b->bold);
        int r0 = in.row;
        text_cell(b, as, in.row, 0, "new", NULL);
        num_cell(b, as, in.row, 1, 0, NULL);
        num_cell(b, as, in.row++, 2, 1, NULL);
        for (int k = 0; k < s->n_resale; k++, in.row++) {
            text_cell(b, as, in.row, 0, "resale point", NULL);
            num_cell(b, as, in.row, 1, s->resale[k].age_months, b->in_num);
            num_cell(b, as, in.row, 2, s->resale[k].pct, b->in_num);
        }
        range(x->res_age, sizeof x->res_age, "Assumptions", 1, r0, in.row - 1);
        range(x->res_pct, sizeof x->res_pct, "Assumptions", 2, r0, in.row - 1);
    }
    for (int i = 0; i < s->n_options; i++)
        option_inputs(&in, s, &s->options[i], meta, &x->o[i]);
    worksheet_set_column(as, 0, 0, 52, NULL);
    worksheet_set_column(as, 1, 1, 16, NULL);
    worksheet_set_column(as, 2, 3, 20, NULL);
    worksheet_freeze_panes(as, 1, 0);
    finish_sheet(as, false, 0);
    keep(b, workbook_define_name(b->wb, "refresh_step",
                                 "=INT((refresh_months+order_every-1)/"
                                 "order_every)*order_every"));
}

static void plan_sheet(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    int M = x->M;
    const char **head = gp_xcalloc((size_t)c->n_cols, sizeof *head);
    char(*names)[GP_NAME_BYTES + 48] = gp_xcalloc((size_t)c->n_cols, sizeof *names);
    head[c->m] = "index";
    head[c->date] = "month (begins)";
    head[c->year] = "year";
    head[c->fy] = "fiscal year";
    if (c->raw >= 0)
        head[c->raw] = s->work_mode ? "work in force" : "GPUs in force";
    head[c->u] = "busy share";
    if (c->n >= 0)
        head[c->n] = "demand GPUs";
    head[c->w] = s->work_mode ? "work" : "busy GPU-hours";
    if (s->work_mode) {
        head[c->qs] = "owned: busy GPU-hours needed";
        head[c->ns] = "owned: GPUs needed";
    }
    head[c->s] = "servers wanted";
    head[c->inservice] = "servers in service";
    head[c->bought] = "servers bought";
    head[c->sold] = "servers sold or exiting";
    head[c->g] = "GPUs at work";
    head[c->q] = "owned busy GPU-hours";
    if (c->z >= 0)
        head[c->z] = "bridge busy GPU-hours";
    head[c->powered] = "servers powered";
    head[c->base] = "base load W";
    head[c->busy] = "busy GPU-hours a day";
    for (int k = 0; k < s->n_periods; k++) {
        snprintf(names[c->y0 + k], sizeof names[0], "busy GPU-hours a day in %s",
                 s->periods[k].name);
        head[c->y0 + k] = names[c->y0 + k];
    }
    head[c->kwh] = "facility kWh";
    head[c->kinst] = "installed peak kW";
    head[c->kdraw] = "drawn peak kW";
    head[c->power] = "power";
    head[c->colo] = "colocation";
    head[c->charge] = "demand charge";
    head[c->maint] = "maintenance";
    head[c->staff] = "staff";
    head[c->other] = "other";
    if (c->bridge >= 0)
        head[c->bridge] = "bridge";
    head[c->capex] = "capex or down payment";
    head[c->pay] = "loan payments";
    head[c->balance] = "loan balance repaid";
    head[c->sales] = "sales";
    head[c->exit] = "exit value";
    head[c->flow] = "self-hosted";
    head[c->cum] = "self-hosted cumulative";
    head[c->cumx] = "self-hosted cumulative without exit value";
    if (c->bslope >= 0)
        head[c->bslope] = "bridge: slope in hourly";
    for (int i = 0; i < s->n_options; i++) {
        const opt_cols *oc = &c->o[i];
        const char *nm = s->options[i].name;
        struct {
            int col;
            const char *what;
        } f[] = {{s->work_mode ? oc->q : -1, "busy GPU-hours"},
                 {oc->need, "instances needed"},
                 {oc->inst, "instances committed"},
                 {oc->z, "burst busy GPU-hours"},
                 {oc->burst, "burst"},
                 {oc->flow, NULL},
                 {oc->cum, "cumulative"},
                 {oc->slope, "slope in hourly"},
                 {oc->dif, "sums have differed"},
                 {oc->cnt, "break-even counts"},
                 {oc->beh, "self-hosted behind"},
                 {oc->difx, "differed without exit value"},
                 {oc->cntx, "counts without exit value"},
                 {oc->behx, "behind without exit value"}};
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            if (f[k].col < 0)
                continue;
            if (f[k].what)
                snprintf(names[f[k].col], sizeof names[0], "%s: %s", nm, f[k].what);
            else
                snprintf(names[f[k].col], sizeof names[0], "%s", nm);
            head[f[k].col] = names[f[k].col];
        }
    }
    worksheet_set_row(ws, 0, 60, NULL);
    for (int k = 0; k < c->n_cols; k++)
        text_cell(b, ws, 0, k, head[k] ? head[k] : "", b->head);
    double cum_self = 0, *cum_opt = gp_xcalloc((size_t)(s->n_options + 1), sizeof *cum_opt);
    for (int m = 0; m <= M; m++)
        plan_row(x, ws, m, &cum_self, cum_opt);
    free(cum_opt);
    /* Totals of the money columns and every side's flow; NPV under them. */
    int tr = M + 2;
    text_cell(b, ws, tr, c->m, "total", b->bold);
    int money[GP_MAX_OPTIONS * 2 + 32], nm = 0;
    for (int k = c->kwh; k <= c->flow; k++)
        money[nm++] = k;
    if (c->z >= 0)
        money[nm++] = c->z;
    for (int i = 0; i < s->n_options; i++) {
        money[nm++] = c->o[i].flow;
        if (c->o[i].burst >= 0)
            money[nm++] = c->o[i].burst;
    }
    const gp_self_result *sr = &x->r->self;
    for (int k = 0; k < nm; k++) {
        char rg[64];
        plan_range(x, rg, sizeof rg, money[k], true);
        double v = x->colsum[money[k]];
        if (money[k] == c->flow)
            v = sr->total;
        for (int i = 0; i < s->n_options; i++)
            v = money[k] == c->o[i].flow ? x->r->options[i].total : v;
        gp_xlsx_formula(b, ws, tr, money[k], v,
                        money[k] == c->kwh || money[k] == c->z ? b->num : b->money, "=SUM(%s)", rg);
    }
    char mr[64];
    plan_range(x, mr, sizeof mr, c->m, true);
    text_cell(b, ws, tr + 1, c->m, "NPV", b->bold);
    for (int i = -1; i < s->n_options; i++) {
        int col = i < 0 ? c->flow : c->o[i].flow;
        char rg[64];
        plan_range(x, rg, sizeof rg, col, true);
        gp_xlsx_formula(b, ws, tr + 1, col, i < 0 ? sr->npv : x->r->options[i].npv, b->money,
                        "=SUMPRODUCT(%s/(1+discount_rate)^(%s/12))", rg, mr);
    }
    lxw_row_col_options hidden = {.hidden = 1};
    for (int i = 0; i < s->n_options; i++)
        worksheet_set_column_opt(ws, (lxw_col_t)c->o[i].dif, (lxw_col_t)c->o[i].behx, 8, NULL,
                                 &hidden);
    worksheet_set_column(ws, 0, 0, 6, NULL);
    worksheet_set_column(ws, 1, 1, 10, NULL);
    worksheet_set_column(ws, 2, 3, 6, NULL);
    worksheet_freeze_panes(ws, 1, 2);
    finish_sheet(ws, true, 0);
    free(names);
    free(head);
}

static void batches_sheet(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    static const char *const heads[B_GEN] = {"delivery index",
                                             "delivers (1/0)",
                                             "servers to leave in service",
                                             "in service before sales",
                                             "sold here",
                                             "refresh servers",
                                             "new servers",
                                             "servers delivered",
                                             "exit index",
                                             "first batch",
                                             "bulk discount",
                                             "unit price",
                                             "hardware capex",
                                             "capex",
                                             "cash or down payment",
                                             "loan principal",
                                             "loan payment",
                                             "last payment index",
                                             "balance at exit",
                                             "maintenance a month",
                                             "age at exit",
                                             "servers' value at exit",
                                             "network shares passed on",
                                             "value at exit",
                                             "resale share at age = index"};
    worksheet_set_row(ws, 0, 60, NULL);
    for (int k = 0; k < B_GEN; k++)
        text_cell(b, ws, 0, k, heads[k], b->head);
    for (int k = 0; k < x->n_gen; k++) {
        char h[64];
        snprintf(h, sizeof h, "network shares, generation %d", k);
        text_cell(b, ws, 0, B_GEN + k, h, b->head);
        snprintf(h, sizeof h, "shares of generation %d and older", k);
        text_cell(b, ws, 0, B_GEN + x->n_gen + k, h, b->head);
        snprintf(h, sizeof h, "value of generation %d leaving", k);
        text_cell(b, ws, 0, B_GEN + 2 * x->n_gen + k, h, b->head);
    }
    for (int d = 0; d <= x->M; d++)
        batch_row(x, ws, d);
    worksheet_set_column(ws, 0, B_GEN + 3 * x->n_gen, 11, NULL);
    worksheet_freeze_panes(ws, 1, 1);
    finish_sheet(ws, true, 0);
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

/* tmpl with every occurrence of token replaced by with, into out (truncated at cap). */
static void subst(char *out, size_t cap, const char *tmpl, const char *token, const char *with) {
    size_t n = 0, tl = strlen(token), wl = strlen(with);
    while (*tmpl && n + 1 < cap) {
        if (!strncmp(tmpl, token, tl)) {
            for (size_t k = 0; k < wl && n + 1 < cap; k++)
                out[n++] = with[k];
            tmpl += tl;
        } else {
            out[n++] = *tmpl++;
        }
    }
    out[n] = '\0';
}

/* Break-even utilization (docs/model.md), live: in GPU mode N_j, G_j, the batches and R_m do
 * not depend on the utilization u, so each side's total at u is a constant plus sums over the
 * Plan's months: power (linear in u on each segment between the shifting breaks), the drawn
 * peak's busy draw and the rented extras for u > 0, and the rented hours (linear). One row per
 * break u_k (0, the cumulative hours of the cheapest periods / 24 with shifting, 1), the totals
 * of every side there, then the first segment where they meet. Rows 1-3 hold the sums. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void utilization_sheet(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    int no = s->n_options;
    char mr[64], nr[64], gr[64], br[64], pr[64];
    plan_range(x, mr, sizeof mr, c->m, false);
    plan_range(x, nr, sizeof nr, c->n, false);
    plan_range(x, gr, sizeof gr, c->g, false);
    plan_range(x, br, sizeof br, c->base, false);
    plan_range(x, pr, sizeof pr, c->powered, false);
    char tre[128];
    snprintf(tre, sizeof tre, "(1+energy_trend)^((%s-1)/12)", mr);
    /* Row 1: self-hosted's sums. A: label; B: constant; C: S_B; D: S_G; E: S_Kbusy;
     * F: rented GPUs * trend (bridge); G: months with bridge hours. */
    static const char *const h1[] = {"self-hosted",
                                     "total without power, demand charge and bridge",
                                     "sum of base load W x trend",
                                     "sum of GPUs at work x trend",
                                     "sum of busy drawn peak kW x trend",
                                     "sum of GPUs rented by the bridge x its trend",
                                     "months with bridge hours"};
    for (int k = 0; k < 7; k++)
        text_cell(b, ws, 0, k, h1[k], b->head);
    char tot[64], pw[64], ch[64];
    ref(tot, sizeof tot, "Plan", x->M + 2, c->flow);
    ref(pw, sizeof pw, "Plan", x->M + 2, c->power);
    ref(ch, sizeof ch, "Plan", x->M + 2, c->charge);
    const opt_refs *bo = s->bridge >= 0 ? &x->o[s->bridge] : NULL;
    /* The cached values, summed as the formulas sum them. */
    const gp_result *r = x->r;
    int M = x->M;
    double avg = s->has_gpu_avg_w ? s->gpu_avg_w : 0, S_B = 0, S_G = 0, S_K = 0, S_F = 0, S_cnt = 0;
    for (int m = 1; m <= M; m++) {
        int j = m - 1;
        double tr_e = pow(1 + s->energy_price_trend_per_year, (m - 1) / 12.0);
        double G = r->self.gpus_at_work[j], N = r->demand_gpus[j];
        const plan_vals *pv = &x->sv->p[m];
        S_B += pv->base * tr_e;
        S_G += G * tr_e;
        S_K += (pv->powered * s->server_base_w + G * fmax(s->gpu_tdp_w, avg)) / 1000 * tr_e;
        if (bo)
            S_F += (N - G) * pow(1 + s->options[s->bridge].price_trend_per_year, (m - 1) / 12.0);
        S_cnt += N - G > 0;
    }
    double B1 = r->self.total - x->colsum[c->power] - x->colsum[c->charge] -
                (c->bridge >= 0 ? x->colsum[c->bridge] : 0);
    text_cell(b, ws, 1, 0, "sums", NULL);
    if (c->bridge >= 0) {
        char bt[64];
        ref(bt, sizeof bt, "Plan", x->M + 2, c->bridge);
        gp_xlsx_formula(b, ws, 1, 1, B1, b->money, "=%s-%s-%s-%s", tot, pw, ch, bt);
    } else {
        gp_xlsx_formula(b, ws, 1, 1, B1, b->money, "=%s-%s-%s", tot, pw, ch);
    }
    gp_xlsx_formula(b, ws, 1, 2, S_B, b->num, "=SUMPRODUCT(%s*%s)", br, tre);
    gp_xlsx_formula(b, ws, 1, 3, S_G, b->num, "=SUMPRODUCT(%s*%s)", gr, tre);
    gp_xlsx_formula(
        b, ws, 1, 4, S_K, b->num,
        "=SUMPRODUCT((%s*server_base_w+%s*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/"
        "1000*%s)",
        pr, gr, tre);
    if (bo)
        gp_xlsx_formula(b, ws, 1, 5, S_F, b->num, "=SUMPRODUCT((%s-%s)*(1+%s)^((%s-1)/12))", nr, gr,
                        bo->h[O_TREND], mr);
    else
        num_cell(b, ws, 1, 5, 0, b->num);
    gp_xlsx_formula(b, ws, 1, 6, S_cnt, NULL, "=SUMPRODUCT((%s-%s>0)*1)", nr, gr);
    double *oB = gp_xcalloc((size_t)no + 1, sizeof *oB),
           *oC = gp_xcalloc((size_t)no + 1, sizeof *oC),
           *oD = gp_xcalloc((size_t)no + 1, sizeof *oD);
    /* Row 3: each option's sums. B: constant (committed); C: sum of N (or rented by the
     * burst) x its trend; D: months with burst hours. */
    text_cell(b, ws, 3, 0, "option", b->head);
    text_cell(b, ws, 3, 1, "constant", b->head);
    text_cell(b, ws, 3, 2, "sum of GPUs rented x trend", b->head);
    text_cell(b, ws, 3, 3, "months with burst hours", b->head);
    for (int i = 0; i < no; i++) {
        const gp_option *o = &s->options[i];
        const opt_cols *oc = &c->o[i];
        int row = 4 + i;
        text_cell(b, ws, row, 0, o->name, NULL);
        char otot[64];
        ref(otot, sizeof otot, "Plan", x->M + 2, oc->flow);
        size_t rows = (size_t)M + 1;
        for (int m = 1; m <= M; m++) {
            double N = r->demand_gpus[m - 1];
            if (o->pricing != GP_COMMITTED) {
                oC[i] += N * pow(1 + o->price_trend_per_year, (m - 1) / 12.0);
            } else if (o->has_base_gpus) {
                double rest = N - x->sv->oinst[(size_t)i * rows + (size_t)m] * o->gpus_per_instance;
                double btr = o->burst >= 0 ? s->options[o->burst].price_trend_per_year : 0;
                oC[i] += (rest > 0) * rest * pow(1 + btr, (m - 1) / 12.0);
                oD[i] += rest > 0;
            }
        }
        if (o->pricing == GP_COMMITTED)
            oB[i] = r->options[i].total - (o->has_base_gpus ? x->colsum[oc->burst] : 0);
        if (o->pricing != GP_COMMITTED) {
            num_cell(b, ws, row, 1, 0, b->money);
            gp_xlsx_formula(b, ws, row, 2, oC[i], b->num, "=SUMPRODUCT(%s*(1+%s)^((%s-1)/12))", nr,
                            x->o[i].h[O_TREND], mr);
            num_cell(b, ws, row, 3, 0, NULL);
        } else if (!o->has_base_gpus) {
            gp_xlsx_formula(b, ws, row, 1, oB[i], b->money, "=%s", otot);
            num_cell(b, ws, row, 2, 0, b->num);
            num_cell(b, ws, row, 3, 0, NULL);
        } else {
            char ir[64], bt[64];
            plan_range(x, ir, sizeof ir, oc->inst, false);
            ref(bt, sizeof bt, "Plan", x->M + 2, oc->burst);
            gp_xlsx_formula(b, ws, row, 1, oB[i], b->money, "=%s-%s", otot, bt);
            const char *btr = o->burst >= 0 ? x->o[o->burst].h[O_TREND] : "0";
            gp_xlsx_formula(b, ws, row, 2, oC[i], b->num,
                            "=SUMPRODUCT((%s-%s*%s>0)*(%s-%s*%s)*(1+%s)^((%s-1)/12))", nr, ir,
                            x->o[i].h[O_G], nr, ir, x->o[i].h[O_G], btr, mr);
            gp_xlsx_formula(b, ws, row, 3, oD[i], NULL, "=SUMPRODUCT((%s-%s*%s>0)*1)", nr, ir,
                            x->o[i].h[O_G]);
        }
    }
    /* The breaks, one row each: u, self-hosted's total, then each option's total, the
     * difference and the result so far. Row t0 is u = 0, row t0 + 1 the difference at 0+. */
    int np = 1 + (s->n_periods - 1) + 1, t0 = 5 + no, R0 = t0 + 1;
    text_cell(b, ws, t0 - 1, 0, "break", b->head);
    text_cell(b, ws, t0 - 1, 1, "utilization", b->head);
    text_cell(b, ws, t0 - 1, 2, "self-hosted total", b->head);
    for (int i = 0; i < no; i++) {
        char h[GP_NAME_BYTES + 32];
        snprintf(h, sizeof h, "%s: total", s->options[i].name);
        text_cell(b, ws, t0 - 1, 3 + 3 * i, h, b->head);
        snprintf(h, sizeof h, "%s: difference", s->options[i].name);
        text_cell(b, ws, t0 - 1, 4 + 3 * i, h, b->head);
        snprintf(h, sizeof h, "%s: break-even so far", s->options[i].name);
        text_cell(b, ws, t0 - 1, 5 + 3 * i, h, b->head);
    }
    char power[8192];
    char fsum[8192] = "0";
    for (int k = 0; k < s->n_periods; k++) {
        char hk[64], pk[64], before[64];
        ref(hk, sizeof hk, "Assumptions", x->ph[k], 1);
        ref(pk, sizeof pk, "Assumptions", x->pp[k], 1);
        ref(before, sizeof before, "Assumptions", x->ph[k], 4);
        size_t n = strlen(fsum);
        snprintf(fsum + n, sizeof fsum - n,
                 "+%s*(%s*$C$2+IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)*IF(shift=1,MIN(%s,MAX(0,"
                 "24*@U-%s)),%s*@U)*$D$2)",
                 pk, hk, hk, before, hk);
    }
    char cheaper[64];
    range(cheaper, sizeof cheaper, "Assumptions", 4, x->cheaper_first, x->cheaper_last);
    snprintf(power, sizeof power, "pue*730/24/1000*(%s)", fsum);
    int last_row = 0;
    /* Cached: each break's u and totals, the differences and the answers so far. */
    double before[GP_MAX_PERIODS], sorted[GP_MAX_PERIODS];
    for (int k = 0; k < s->n_periods; k++) {
        before[k] = 0;
        for (int q = 0; q < s->n_periods; q++) {
            double a = s->periods[q].price_per_kwh, pk = s->periods[k].price_per_kwh;
            if (q != k && (q < k ? a <= pk : a < pk))
                before[k] += s->periods[q].hours_per_day;
        }
        sorted[k] = before[k];
    }
    qsort(sorted, (size_t)s->n_periods, sizeof *sorted, cmp_double);
    double *dprev = gp_xcalloc((size_t)no + 1, sizeof *dprev),
           *d0p = gp_xcalloc((size_t)no + 1, sizeof *d0p),
           *ans = gp_xcalloc((size_t)no + 1, sizeof *ans), u_prev = 0;
    bool *has_ans = gp_xcalloc((size_t)no + 1, sizeof *has_ans);
    const gp_option *bro = s->bridge >= 0 ? &s->options[s->bridge] : NULL;
    for (int k = 0; k < np; k++) {
        int row = k == 0 ? t0 : t0 + 1 + k, R = row + 1;
        if (k == 1) {
            /* Row t0 + 1: the difference at 0+ (docs/model.md: the rented extras and the drawn
             * peak's busy draw, as at u = 1). */
            text_cell(b, ws, t0 + 1, 0, "0+", NULL);
            for (int i = 0; i < no; i++) {
                const gp_option *o = &s->options[i];
                const char *bex = o->burst >= 0 ? x->o[o->burst].extras : "0";
                char dc[8];
                col_name(4 + 3 * i, dc);
                d0p[i] = dprev[i] + (bro ? extras_v(bro) : 0) * S_cnt -
                         (o->burst >= 0 ? extras_v(&s->options[o->burst]) : 0) * oD[i] +
                         s->demand_charge_per_kw_month * s->pue * (S_K - S_B / 1000);
                gp_xlsx_formula(b, ws, t0 + 1, 4 + 3 * i, d0p[i], b->money,
                                "=%s%d+%s*$G$2-%s*$D$%d+demand_charge*pue*($E$2-$C$2/1000)", dc, R0,
                                bo ? bo->extras : "0", bex, 5 + i);
            }
        }
        char label[32];
        if (k == 0 || k == np - 1)
            snprintf(label, sizeof label, "%s", k == 0 ? "0" : "1");
        else
            snprintf(label, sizeof label, "shift break %d", k);
        text_cell(b, ws, row, 0, label, NULL);
        double u = k == 0                                      ? 0
                   : k == np - 1                               ? 1
                   : s->shift_to_cheapest && !s->has_gpu_avg_w ? sorted[k] / 24
                                                               : 1;
        if (k == 0)
            num_cell(b, ws, row, 1, 0, NULL);
        else if (k == np - 1)
            num_cell(b, ws, row, 1, 1, NULL);
        else
            /* The k-th smallest of the periods' cheaper hours: the k cheapest periods' hours. */
            gp_xlsx_formula(b, ws, row, 1, u, NULL,
                            "=IF(AND(shift=1,has_gpu_avg=0),SMALL(%s,%d)/24,1)", cheaper, k + 1);
        char u_here[16], pw_k[8192];
        snprintf(u_here, sizeof u_here, "$B%d", R);
        subst(pw_k, sizeof pw_k, power, "@U", u_here);
        double fs = 0, extra = s->has_gpu_avg_w ? 0 : s->gpu_tdp_w - s->gpu_idle_w;
        for (int q = 0; q < s->n_periods; q++) {
            double hk = s->periods[q].hours_per_day;
            double y = s->shift_to_cheapest ? fmin(hk, fmax(0, 24 * u - before[q])) : hk * u;
            fs += s->periods[q].price_per_kwh * (hk * S_B + extra * y * S_G);
        }
        double pw_v = s->pue * 730 / 24 / 1000 * fs, dcp = s->demand_charge_per_kw_month * s->pue;
        double self_t = k == 0 ? B1 + pw_v + dcp * S_B / 1000
                        : bro  ? B1 + pw_v + dcp * S_K +
                                    (S_cnt > 0 ? u * 730 * per_gpu_h_v(bro) * bro->hourly * S_F +
                                                     extras_v(bro) * S_cnt
                                               : 0)
                              : B1 + pw_v + dcp * S_K;
        if (k == 0)
            gp_xlsx_formula(b, ws, row, 2, self_t, b->money, "=$B$2+%s+demand_charge*pue*$C$2/1000",
                            pw_k);
        else if (bo)
            gp_xlsx_formula(
                b, ws, row, 2, self_t, b->money,
                "=$B$2+%s+demand_charge*pue*$E$2+IF($G$2>0,$B%d*730*%s*%s*$F$2+%s*$G$2,0)", pw_k, R,
                bo->per_gpu_h, bo->h[O_HOURLY], bo->extras);
        else
            gp_xlsx_formula(b, ws, row, 2, self_t, b->money, "=$B$2+%s+demand_charge*pue*$E$2",
                            pw_k);
        for (int i = 0; i < no; i++) {
            const gp_option *o = &s->options[i];
            const opt_refs *orf = &x->o[i];
            int oi = 5 + i;
            char tc[8], dc[8], rc[8];
            col_name(3 + 3 * i, tc);
            col_name(4 + 3 * i, dc);
            col_name(5 + 3 * i, rc);
            double opt_t = oB[i];
            if (o->pricing != GP_COMMITTED)
                opt_t = u * 730 * per_gpu_h_v(o) * o->hourly * oC[i] + extras_v(o) * M;
            else if (o->has_base_gpus && o->burst >= 0 && k > 0 && oD[i] > 0)
                opt_t = oB[i] +
                        u * 730 * per_gpu_h_v(&s->options[o->burst]) * s->options[o->burst].hourly *
                            oC[i] +
                        extras_v(&s->options[o->burst]) * oD[i];
            double dif = self_t - opt_t;
            if (o->pricing != GP_COMMITTED)
                gp_xlsx_formula(b, ws, row, 3 + 3 * i, opt_t, b->money,
                                "=$B%d*730*%s*%s*$C$%d+%s*horizon_months", R, orf->per_gpu_h,
                                orf->h[O_HOURLY], oi, orf->extras);
            else if (o->has_base_gpus && o->burst >= 0 && k > 0)
                gp_xlsx_formula(b, ws, row, 3 + 3 * i, opt_t, b->money,
                                "=$B$%d+IF($D$%d>0,$B%d*730*%s*%s*$C$%d+%s*$D$%d,0)", oi, oi, R,
                                x->o[o->burst].per_gpu_h, x->o[o->burst].h[O_HOURLY], oi,
                                x->o[o->burst].extras, oi);
            else
                gp_xlsx_formula(b, ws, row, 3 + 3 * i, opt_t, b->money, "=$B$%d", oi);
            gp_xlsx_formula(b, ws, row, 4 + 3 * i, dif, b->money, "=$C%d-%s%d", R, tc, R);
            if (k == 0) {
                dprev[i] = dif;
                text_cell(b, ws, row, 5 + 3 * i, "", NULL);
                continue;
            }
            /* The answer so far, as the formula finds it. */
            double dp = k == 1 ? d0p[i] : dprev[i];
            if (!has_ans[i]) {
                if (gp_money_equal(self_t, opt_t))
                    has_ans[i] = true, ans[i] = u;
                else if ((dp < 0) != (dif < 0))
                    has_ans[i] = true, ans[i] = u_prev + (u - u_prev) * dp / (dp - dif);
            }
            dprev[i] = dif;
            /* Segment (u_{k-1}, u_k]: the previous row's difference, or the one at 0+. */
            int P = k == 1 ? t0 + 2 : R - 1;
            char eq[512];
            snprintf(eq, sizeof eq, "ABS($C%d-%s%d)<=1E-9*MAX(1,ABS($C%d),ABS(%s%d))", R, tc, R, R,
                     tc, R);
            char f[2048];
            snprintf(f, sizeof f,
                     "=IF(%s%d<>\"\",%s%d,IF(%s,$B%d,IF((%s%d<0)<>(%s%d<0),$B%d+($B%d-$B%d)*%s%d/"
                     "(%s%d-%s%d),\"\")))",
                     rc, k == 1 ? R0 : R - 1, rc, k == 1 ? R0 : R - 1, eq, R, dc, P, dc, R,
                     k == 1 ? R0 : R - 1, R, k == 1 ? R0 : R - 1, dc, P, dc, P, dc, R);
            maybe(b, ws, row, 5 + 3 * i, has_ans[i], ans[i], NULL, f);
        }
        u_prev = u;
        last_row = row;
    }
    free(oB);
    free(oC);
    free(oD);
    free(dprev);
    free(d0p);
    free(ans);
    free(has_ans);
    x->u_last_row = last_row;
    x->u_first_row = t0;
    worksheet_set_column(ws, 0, 0, 20, NULL);
    worksheet_set_column(ws, 1, 3 + 3 * no, 16, NULL);
    finish_sheet(ws, true, -1);
    worksheet_hide(ws);
}

/* Below the GPU rows from `row` on: the chargeback of `capacity --by LABEL` with live formulas.
 * The all-in cost of a GPU-hour is the Plan's self-hosted total over demand GPUs x horizon x
 * 730 h (so it follows the Assumptions); each label value pays its busy GPU-hours at it, and
 * the idle GPU-hours (present, used by no one) are a row of their own, so the rows sum to the
 * fleet's cost. */
static void chargeback_rows(wbctx *x, lxw_worksheet *ws, int row, const gp_xlsx_telemetry *tel) {
    book *b = x->b;
    double hours = (double)x->s->gpus * x->M * GP_MONTH_HOURS;
    double rate = hours > 0 ? x->r->self.total / hours : 0;
    char total[64], label[160];
    ref(total, sizeof total, "Plan", x->M + 2, x->c.flow);
    row++;
    snprintf(label, sizeof label, "Chargeback by %s", tel->charge_label);
    text_cell(b, ws, row++, 0, label, b->bold);
    text_cell(b, ws, row, 0, "all-in cost of a GPU-hour (self-hosted total / GPU-hours owned)",
              NULL);
    int rate_row = row + 1;
    gp_xlsx_formula(b, ws, row++, 1, rate, b->money,
                    "=IF(gpus*horizon_months=0,0,%s/(gpus*horizon_months*%g))", total,
                    GP_MONTH_HOURS);
    text_cell(b, ws, row, 0, "GPU-hours present in the window", NULL);
    int present_row = row + 1;
    num_cell(b, ws, row++, 1, tel->present_gpu_hours, b->num);
    static const char *const heads[] = {"value", "busy GPU-hours used", "all-in cost"};
    for (int c = 0; c < 3; c++)
        text_cell(b, ws, row, c, c == 0 ? tel->charge_label : heads[c], b->bold);
    row++;
    int first = row + 1;
    double used = 0;
    for (size_t i = 0; i < tel->n_charges && !b->rc; i++, row++) {
        const gp_xlsx_charge *ch = &tel->charges[i];
        text_cell(b, ws, row, 0, ch->value ? ch->value : "(no label)", NULL);
        num_cell(b, ws, row, 1, ch->gpu_hours_used, b->num);
        gp_xlsx_formula(b, ws, row, 2, ch->gpu_hours_used * rate, b->money, "=B%d*$B$%d", row + 1,
                        rate_row);
        used += ch->gpu_hours_used;
    }
    int last = row; /* 1-based row of the last value; < first when there is none */
    text_cell(b, ws, row, 0, "(idle: present, used by no one)", NULL);
    if (last >= first)
        gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours - used, b->num, "=$B$%d-SUM(B%d:B%d)",
                        present_row, first, last);
    else
        gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours, b->num, "=$B$%d", present_row);
    gp_xlsx_formula(b, ws, row, 2, (tel->present_gpu_hours - used) * rate, b->money, "=B%d*$B$%d",
                    row + 1, rate_row);
    row++;
    text_cell(b, ws, row, 0, "fleet", b->bold);
    gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours, b->num, "=SUM(B%d:B%d)", first, row);
    gp_xlsx_formula(b, ws, row, 2, tel->present_gpu_hours * rate, b->money, "=SUM(C%d:C%d)", first,
                    row);
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

static void summary_sheet(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    const plan_cols *c = &x->c;
    int M = x->M, no = s->n_options;
    text_cell(b, ws, 0, 0, s->name, b->bold);
    enum { HEAD = 7, FIRST = 8 };
    int last = FIRST + no; /* 0-based row of the last option */
    text_cell(b, ws, 1, 0, "cheapest (lowest total; ties: the first listed)", NULL);
    char f[8192];
    snprintf(f, sizeof f, "=INDEX($A$%d:$A$%d,MATCH(1,$M$%d:$M$%d,0))", FIRST + 1, last + 1,
             FIRST + 1, last + 1);
    char cheapest[GP_NAME_BYTES];
    gp_text_clean(r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name, cheapest,
                  sizeof cheapest);
    keep(b, worksheet_write_formula_str(ws, 1, 1, f, b->bold, cheapest));
    text_cell(b, ws, 2, 0, "plan starts (month 1 begins)", NULL);
    gp_xlsx_formula(b, ws, 2, 1, month_serial(x->start_year, x->start_month, x->start_day), b->date,
                    "=start_date");
    text_cell(b, ws, 3, 0, "horizon (months)", NULL);
    gp_xlsx_formula(b, ws, 3, 1, M, NULL, "=horizon_months");
    char wr[64];
    plan_range(x, wr, sizeof wr, c->w, false);
    text_cell(b, ws, 4, 0,
              s->work_mode ? "demand over the horizon (work units)"
                           : "demand over the horizon (busy GPU-hours)",
              NULL);
    gp_xlsx_formula(b, ws, 4, 1, r->demand_work, b->num, "=SUM(%s)", wr);
    text_cell(b, ws, 5, 0,
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
    /* Work mode: the cost per busy GPU-hour beside the cost per unit of work, in the first
     * column after the hidden helpers (12..16), so it shows next to the visible ones. */
    enum { PER_GPU_H = 17 };
    if (s->work_mode)
        text_cell(b, ws, HEAD, PER_GPU_H, "per busy GPU-hour (its own throughput)", b->head);
    char mr[64];
    plan_range(x, mr, sizeof mr, c->m, true);
    char lows[64];
    snprintf(lows, sizeof lows, "$B$%d:$B$%d", FIRST + 1, last + 1);
    for (int i = -1; i < no; i++) {
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
        double per = i < 0 ? (s->work_mode ? r->self.cost_per_work_unit : r->self.cost_per_gpu_hour)
                           : (s->work_mode ? r->options[i].cost_per_work_unit
                                           : r->options[i].cost_per_gpu_hour);
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
        if (i < 0)
            continue;
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
            snprintf(lastb, sizeof lastb, "IF(COUNTIF(%s,1)=0,-1,_xlfn.MAXIFS(%s,%s,1))", br, mr,
                     br);
            snprintf(f, sizeof f,
                     "=IF(COUNTIFS(%s,1,%s,\">\"&%s)=0,\"\",_xlfn.MINIFS(%s,%s,1,%s,\">\"&%s))", cr,
                     mr, lastb, mr, cr, mr, lastb);
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
        gp_xlsx_formula(b, ws, row, 15, orr->total - h * slope, b->money, "=B%d-%s*N%d", R, hourly,
                        R);
        gp_xlsx_formula(b, ws, row, 16, r->self.total - h * bslope, b->money, "=$B$%d-%s*O%d",
                        FIRST + 1, hourly, R);
        snprintf(f, sizeof f,
                 "=IF(ABS(N%d-O%d)<=1E-9*MAX(1,ABS(N%d),ABS(O%d)),\"\",IF(ABS(Q%d-P%d)<=1E-9*MAX(1,"
                 "ABS(Q%d),ABS(P%d)),0,IF((Q%d-P%d)/(N%d-O%d)>=0,(Q%d-P%d)/(N%d-O%d),\"\")))",
                 R, R, R, R, R, R, R, R, R, R, R, R, R, R, R, R);
        maybe(b, ws, row, 9, orr->has_break_even_hourly, orr->break_even_hourly, b->money, f);
        if (!s->work_mode) {
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
    }
    int row = last + 2;
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
    finish_sheet(ws, true, -1);
}

static void bom_sheet(wbctx *x, lxw_worksheet *bom) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_self_result *sr = &x->r->self;
    static const char *const bh[] = {"item", "quantity", "unit price", "extended"};
    for (int c = 0; c < 4; c++)
        text_cell(b, bom, 0, c, bh[c], b->bold);
    char n[64], nw[64], unit[64], beta[64];
    batch_range(x, n, sizeof n, B_N);
    batch_range(x, nw, sizeof nw, B_NEW);
    batch_range(x, unit, sizeof unit, B_UNIT);
    batch_range(x, beta, sizeof beta, B_BETA);
    int bought = 0, fresh = 0;
    for (int i = 0; i < sr->n_batches; i++) {
        bought += sr->batches[i].servers;
        fresh += sr->batches[i].refresh ? 0 : sr->batches[i].servers;
    }
    text_cell(b, bom, 1, 0, "GPU servers, every delivery (after trend and bulk discounts)", NULL);
    gp_xlsx_formula(b, bom, 1, 1, bought, NULL, "=SUM(%s)", n);
    gp_xlsx_formula(b, bom, 1, 2, s->server_price * s->price_factor, b->money,
                    "=server_price*price_factor");
    gp_xlsx_formula(b, bom, 1, 3, sr->hardware_capex - fresh * s->network_per_server, b->money,
                    "=SUMPRODUCT(%s,%s,1-%s)", n, unit, beta);
    text_cell(b, bom, 2, 0, "network, per new server", NULL);
    gp_xlsx_formula(b, bom, 2, 1, fresh, NULL, "=SUM(%s)", nw);
    gp_xlsx_formula(b, bom, 2, 2, s->network_per_server, b->money, "=network_per_server");
    gp_xlsx_formula(b, bom, 2, 3, fresh * s->network_per_server, b->money, "=B3*C3");
    text_cell(b, bom, 3, 0, "fixed capex (install, racks)", NULL);
    gp_xlsx_formula(b, bom, 3, 1, bought > 0, NULL, "=IF(B2>0,1,0)");
    gp_xlsx_formula(b, bom, 3, 2, s->fixed_capex, b->money, "=fixed_capex");
    gp_xlsx_formula(b, bom, 3, 3, bought > 0 ? s->fixed_capex : 0, b->money, "=B4*C4");
    text_cell(b, bom, 4, 0, "capex", b->bold);
    gp_xlsx_formula(b, bom, 4, 3, sr->capex, b->money, "=SUM(D2:D4)");
    text_cell(b, bom, 6, 0, "Batches lists each delivery: its servers, price and exit value.",
              b->note);
    worksheet_set_column(bom, 0, 0, 56, NULL);
    worksheet_set_column(bom, 1, 3, 16, NULL);
    finish_sheet(bom, false, 0);
}

/* Where the server purchase price came from: the sentence of the scenario's notes that
 * `scenario draft` writes ("Server price: ITEM (DATE, SOURCE) scaled to N GPUs a server"), else
 * the scenario itself. */
static void server_price_source(const gp_report_meta *meta, char *out, size_t cap) {
    const cJSON *notes = meta && meta->scenario_json
                             ? cJSON_GetObjectItemCaseSensitive(meta->scenario_json, "notes")
                             : NULL;
    const char *n = cJSON_GetStringValue(notes), *at = n ? strstr(n, "Server price: ") : NULL;
    if (!at) {
        snprintf(out, cap, "given in the scenario (self_hosted.server_price)");
        return;
    }
    at += strlen("Server price: ");
    const char *end = strstr(at, ". ");
    size_t len = end ? (size_t)(end - at) : strlen(at);
    snprintf(out, cap, "%.*s (the scenario's notes)", (int)(len < 400 ? len : 400), at);
}

static void sources_sheet(book *b, lxw_worksheet *src, const gp_scenario *s,
                          const gp_report_meta *meta) {
    int row = 0;
    text_cell(b, src, row, 0, "gpuplan", b->bold);
    text_cell(b, src, row++, 1, meta && meta->version ? meta->version : "", NULL);
    text_cell(b, src, row, 0, "cost model", b->bold);
    num_cell(b, src, row++, 1, GP_MODEL_VERSION, NULL);
    text_cell(b, src, row, 0, "prices as of", b->bold);
    text_cell(b, src, row++, 1, meta && meta->as_of ? meta->as_of : "", NULL);
    row++;
    static const char *const sh2[] = {"option",        "catalog entry",  "pricing",    "hourly",
                                      "upfront",       "effective from", "source",     "listed in",
                                      "exchange rate", "rate of",        "rate source"};
    for (int c = 0; c < 11; c++)
        text_cell(b, src, row, c, sh2[c], b->bold);
    row++;
    for (int k = 0; meta && k < meta->n_sources; k++, row++) {
        const gp_price_source *ps = &meta->sources[k];
        text_cell(b, src, row, 0, ps->option, NULL);
        text_cell(b, src, row, 1, ps->catalog, NULL);
        text_cell(b, src, row, 2, gp_pricing_name(ps->pricing), NULL);
        num_cell(b, src, row, 3, ps->hourly, b->num);
        if (ps->pricing == GP_COMMITTED)
            num_cell(b, src, row, 4, ps->upfront, b->num);
        text_cell(b, src, row, 5, ps->effective_from, NULL);
        text_cell(b, src, row, 6, ps->source, NULL);
        if (ps->fx_rate > 0) { /* 2.1: the rate is an input on Assumptions; this is its record */
            text_cell(b, src, row, 7, ps->currency, NULL);
            num_cell(b, src, row, 8, ps->fx_rate, b->num);
            text_cell(b, src, row, 9, ps->fx_date, NULL);
            text_cell(b, src, row, 10, ps->fx_source, NULL);
        }
    }
    row++;
    text_cell(b, src, row, 0, "self-hosted", b->bold);
    text_cell(b, src, row, 1, "what", b->bold);
    text_cell(b, src, row, 3, "value", b->bold);
    text_cell(b, src, row++, 6, "source", b->bold);
    char from[512];
    server_price_source(meta, from, sizeof from);
    text_cell(b, src, row, 0, "server purchase price", NULL);
    text_cell(b, src, row, 1, "self_hosted.server_price, a server", NULL);
    num_cell(b, src, row, 3, s->server_price, b->num);
    text_cell(b, src, row++, 6, from, NULL);
    row++;
    text_cell(b, src, row++, 0, "scenario JSON", b->bold);
    char *json = meta && meta->scenario_json ? cJSON_PrintUnformatted(meta->scenario_json) : NULL;
    /* Chunks end on a character boundary, so the sanitiser has no half character to replace. */
    for (size_t off = 0, n = json ? strlen(json) : 0, k; off < n; off += k, row++) {
        k = gp_text_utf8_cut(json + off, n - off < 4000 ? n - off : 4000);
        if (k == 0)
            k = 1; /* invalid UTF-8 at the start: let the sanitiser replace that byte */
        char raw[4001], chunk[4001];
        memcpy(raw, json + off, k);
        raw[k] = '\0';
        gp_text_clean(raw, chunk, sizeof chunk);
        keep(b, worksheet_write_string(src, (lxw_row_t)row, 0, chunk, NULL));
    }
    free(json);
    worksheet_set_column(src, 0, 0, 30, NULL);
    worksheet_set_column(src, 1, 6, 20, NULL);
    finish_sheet(src, true, -1);
}

gp_status gp_report_xlsx(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         const gp_xlsx_telemetry *tel, const char *path, gp_err *err) {
    return gp_report_xlsx_opt(s, r, meta, tel, NULL, path, err);
}

lxw_error gp_xlsx_book_open(book *b, const char *tmp, const char *currency) {
    /* Constant memory: every sheet is written row by row, so a Telemetry sheet of a million
     * rows costs one row of memory. */
    lxw_workbook_options opt = {.constant_memory = LXW_TRUE};
    b->wb = workbook_new_opt(tmp, &opt);
    if (!b->wb)
        return LXW_ERROR_CREATING_XLSX_FILE;
    b->bold = workbook_add_format(b->wb);
    format_set_bold(b->bold);
    b->head = workbook_add_format(b->wb);
    format_set_bold(b->head);
    format_set_text_wrap(b->head);
    format_set_align(b->head, LXW_ALIGN_VERTICAL_TOP);
    char money_fmt[64];
    snprintf(money_fmt, sizeof money_fmt, "#,##0.00 \"%s\"", currency);
    b->money = workbook_add_format(b->wb);
    format_set_num_format(b->money, money_fmt);
    b->num = workbook_add_format(b->wb);
    format_set_num_format(b->num, "#,##0.####");
    b->pct = workbook_add_format(b->wb);
    format_set_num_format(b->pct, "0.00%");
    b->date = workbook_add_format(b->wb);
    format_set_num_format(b->date, "yyyy-mm-dd");
    b->month = workbook_add_format(b->wb);
    format_set_num_format(b->month, "yyyy-mm");
    b->note = workbook_add_format(b->wb);
    format_set_italic(b->note);
    /* Inputs: the financial-model convention, blue on a light fill, and unlocked. */
    lxw_format **ins[] = {&b->in_num, &b->in_date, &b->in_text};
    for (size_t k = 0; k < 3; k++) {
        lxw_format *f = workbook_add_format(b->wb);
        format_set_font_color(f, 0x0000FF);
        format_set_bg_color(f, 0xFFF2CC);
        format_set_unlocked(f);
        *ins[k] = f;
    }
    format_set_num_format(b->in_date, "yyyy-mm-dd");
    return LXW_NO_ERROR;
}

/* The whole workbook into file `tmp`; the first error libxlsxwriter returned, or LXW_NO_ERROR. */
static lxw_error write_book(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                            const gp_xlsx_telemetry *tel, const gp_xlsx_options *o,
                            const char *tmp) {
    book b = {0};
    lxw_error opened = gp_xlsx_book_open(&b, tmp, s->currency);
    if (opened)
        return opened;

    wbctx x = {.b = &b, .s = s, .r = r, .M = s->horizon_months, .meta = meta};
    x.o = gp_xcalloc((size_t)(s->n_options + 1), sizeof *x.o);
    x.n_gen = (x.M - 1) / 12 + 1;
    x.fiscal_start = o && o->fiscal_year_start >= 1 ? o->fiscal_year_start : 1;
    const char *start = s->has_start_date ? s->start_date : meta && meta->as_of ? meta->as_of : "";
    x.start_year = 1900;
    x.start_month = 1;
    x.start_day = 1;
    if (sscanf(start, "%4d-%2d-%2d", &x.start_year, &x.start_month, &x.start_day) != 3 ||
        x.start_year < 1900)
        x.start_year = 1900, x.start_month = 1, x.start_day = 1;
    plan_layout(s, &x.c);
    shadow sv;
    x.sv = &sv;
    shadow_build(&x, &sv);
    x.colsum = gp_xcalloc((size_t)x.c.n_cols, sizeof *x.colsum);

    lxw_worksheet *sum = workbook_add_worksheet(b.wb, "Summary");
    lxw_worksheet *as = workbook_add_worksheet(b.wb, "Assumptions");
    lxw_worksheet *pl = workbook_add_worksheet(b.wb, "Plan");
    lxw_worksheet *bt = workbook_add_worksheet(b.wb, "Batches");
    lxw_worksheet *ut = s->work_mode ? NULL : workbook_add_worksheet(b.wb, "Utilization");
    lxw_worksheet *bom = workbook_add_worksheet(b.wb, "BOM");
    lxw_worksheet *tw = tel ? workbook_add_worksheet(b.wb, "Telemetry") : NULL;
    lxw_worksheet *src = workbook_add_worksheet(b.wb, "Sources");
    assumptions(&x, as, meta, x.fiscal_start);
    plan_sheet(&x, pl);
    batches_sheet(&x, bt);
    if (ut)
        utilization_sheet(&x, ut);
    summary_sheet(&x, sum);
    bom_sheet(&x, bom);
    if (tw) {
        int after = telemetry_sheet(&b, tw, tel);
        if (tel->charge_label)
            chargeback_rows(&x, tw, after, tel);
    }
    sources_sheet(&b, src, s, meta);
    free(x.o);
    free(x.colsum);
    shadow_free(&sv);

    char title[GP_NAME_BYTES];
    gp_text_clean(s->name, title, sizeof title);
    lxw_doc_properties props = {0};
    props.title = title;
    props.subject = "GPU own-or-rent plan";
    props.author = "gpuplan";
    props.comments = "Edit the Assumptions sheet; every other sheet recalculates.";
    workbook_set_properties(b.wb, &props);
    lxw_error rc = workbook_close(b.wb);
    return b.rc ? b.rc : rc;
}

/* libxlsxwriter reports a failure on stderr itself ("[ERROR] workbook_close(): ...") before it
 * returns the code, and a library must not print (docs/development.md): those lines were the only
 * output of a batch on a full disk. Its messages are printf calls compiled into the library, with
 * no switch, so fd 2 points at a scratch file while any workbook is written. One redirection for
 * the whole process, counted under a lock: batch's threads each writing a workbook must not
 * save and restore each other's scratch file (which left fd 2 on a closed file, and every later
 * message lost). The TUI writes nothing to stderr while curses owns the terminal. */
static pthread_mutex_t quiet_mu = PTHREAD_MUTEX_INITIALIZER;
static int quiet_users;      /* workbooks being written now */
static int quiet_saved = -1; /* the real fd 2 while quiet_users > 0 */
static FILE *quiet_scratch;  /* what fd 2 points at then (NULL: /dev/null or not redirected) */

void gp_xlsx_quiet_begin(quiet *q, const char *tmp) {
    q->tmp = tmp;
    pthread_mutex_lock(&quiet_mu);
    if (quiet_users++ == 0) {
        fflush(stderr);
        quiet_scratch = tmpfile();
        /* Appending: another thread's library message lands at the end whatever the offset;
         * quiet_scan reads with pread, which neither uses nor moves the shared offset. */
        if (quiet_scratch)
            fcntl(fileno(quiet_scratch), F_SETFL, fcntl(fileno(quiet_scratch), F_GETFL) | O_APPEND);
        int to = quiet_scratch ? fileno(quiet_scratch) : open("/dev/null", O_WRONLY);
        quiet_saved = to >= 0 ? dup(STDERR_FILENO) : -1;
        if (quiet_saved >= 0 && dup2(to, STDERR_FILENO) < 0) {
            close(quiet_saved);
            quiet_saved = -1;
        }
        if (!quiet_scratch && to >= 0)
            close(to);
    }
    pthread_mutex_unlock(&quiet_mu);
}

/* Copy what follows "System error = " on scratch's line that names tmp into said; pass every
 * line not libxlsxwriter's ("[ERROR]", "[WARNING]") on to fd saved (by the last writer, once).
 * Read with pread from the start: fd 2 shares scratch's offset with threads still writing.
 * Called under quiet_mu. */
static void quiet_scan(FILE *scratch, const char *tmp, int saved, bool last, char *said,
                       size_t cap) {
    fflush(stderr);
    int fd = fileno(scratch);
    char buf[8192], line[4096];
    size_t n = 0; /* bytes of the line being gathered */
    off_t at = 0;
    ssize_t got;
    while ((got = pread(fd, buf, sizeof buf, at)) > 0) {
        at += got;
        for (ssize_t i = 0; i < got; i++) {
            if (n + 1 < sizeof line)
                line[n++] = buf[i];
            if (buf[i] != '\n')
                continue;
            line[n] = '\0';
            n = 0;
            bool ours = !strncmp(line, "[ERROR]", 7) || !strncmp(line, "[WARNING]", 9);
            const char *sys = strstr(line, "System error = ");
            if (ours && sys && tmp && strstr(line, tmp) && !said[0]) {
                sys += strlen("System error = ");
                snprintf(said, cap, "%.*s", (int)strcspn(sys, "\r\n"), sys);
            } else if (!ours && last && saved >= 0) {
                ssize_t w = write(saved, line, strlen(line));
                (void)w; /* the terminal's own failure: nothing better to do with it */
            }
        }
    }
    line[n] = '\0';
    if (n && last && saved >= 0 && strncmp(line, "[ERROR]", 7) && strncmp(line, "[WARNING]", 9)) {
        ssize_t w = write(saved, line, n); /* a last line without its newline */
        (void)w;
    }
}

void gp_xlsx_quiet_end(quiet *q, char *said, size_t cap) {
    said[0] = '\0';
    pthread_mutex_lock(&quiet_mu);
    bool last = --quiet_users == 0;
    if (quiet_scratch)
        quiet_scan(quiet_scratch, q->tmp, quiet_saved, last, said, cap);
    if (last) {
        fflush(stderr);
        if (quiet_saved >= 0) {
            dup2(quiet_saved, STDERR_FILENO);
            close(quiet_saved);
        }
        quiet_saved = -1;
        if (quiet_scratch)
            fclose(quiet_scratch);
        quiet_scratch = NULL;
    }
    pthread_mutex_unlock(&quiet_mu);
}

gp_status gp_report_xlsx_opt(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                             const gp_xlsx_telemetry *tel, const gp_xlsx_options *o,
                             const char *path, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    /* libxlsxwriter writes by name: a temporary file that gp_output then publishes, so -o keeps
     * its meaning (stdout, a device written in place, a regular file replaced atomically). */
    gp_output out;
    if (gp_output_open_named(&out, path, err))
        return err->code;
    quiet q;
    gp_xlsx_quiet_begin(&q, out.tmp);
    lxw_error rc = write_book(s, r, meta, tel, o, out.tmp);
    char said[160];
    gp_xlsx_quiet_end(&q, said, sizeof said);
    if (rc) {
        gp_output_abort(&out);
        return gp_errorf(err, GP_E_IO, path ? path : "-", "cannot write the workbook: %s%s%s%s",
                         lxw_strerror(rc), said[0] ? " (" : "", said, said[0] ? ")" : "");
    }
    return gp_output_commit(&out, err);
}

/* ---- shared with the other workbook writers (xlsx_int.h) -------------------------------- */

void gp_xlsx_keep(book *b, lxw_error e) {
    keep(b, e);
}

void gp_xlsx_col_name(int col, char *out) {
    col_name(col, out);
}

void gp_xlsx_text(book *b, lxw_worksheet *ws, int row, int col, const char *s, lxw_format *f) {
    text_cell(b, ws, row, col, s, f);
}

void gp_xlsx_num(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f) {
    num_cell(b, ws, row, col, v, f);
}

void gp_xlsx_finish_sheet(lxw_worksheet *ws, bool landscape, int head_row) {
    finish_sheet(ws, landscape, head_row);
}
