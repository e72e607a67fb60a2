/* What the sheets of the procurement workbook (src/report/xlsx*.c but xlsx_compare.c) share:
 * the context every sheet writer reads (wbctx: the scenario, the engine's result, the Plan's
 * column layout, the Assumptions references), the cached values of Plan and Batches (shadow),
 * the A1 reference helpers, and one writer a sheet. The sheets are written in the order
 * write_book (xlsx.c) calls them: Assumptions first, as it fills the references the others use.
 * Nothing here allocates but gp_xlsx_shadow_build (freed by gp_xlsx_shadow_free); a write
 * error is kept in the book (book.rc), never returned. */
#ifndef GPUPLAN_XLSX_SHEETS_H
#define GPUPLAN_XLSX_SHEETS_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/report_xlsx.h"
#include "xlsx_int.h"

/* The shared cell writers (xlsx_int.h) under the short names the sheets use. */
static inline void keep(book *b, lxw_error e) {
    if (e && !b->rc)
        b->rc = e;
}

static inline void col_name(int col, char *out) {
    gp_xlsx_col_name(col, out);
}

static inline void text_cell(book *b, lxw_worksheet *ws, int row, int col, const char *s,
                             lxw_format *f) {
    gp_xlsx_text(b, ws, row, col, s, f);
}

static inline void num_cell(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f) {
    gp_xlsx_num(b, ws, row, col, v, f);
}

static inline void finish_sheet(lxw_worksheet *ws, bool landscape, int head_row) {
    gp_xlsx_finish_sheet(ws, landscape, head_row);
}

/* "'Sheet'!$C$5" into out. */
static inline void ref(char *out, size_t cap, const char *sheet, int row, int col) {
    char c[8];
    col_name(col, c);
    snprintf(out, cap, "'%s'!$%s$%d", sheet, c, row + 1);
}

/* "'Sheet'!$C$r0:$C$r1" (0-based rows) into out. */
static inline void range(char *out, size_t cap, const char *sheet, int col, int r0, int r1) {
    char c[8];
    col_name(col, c);
    snprintf(out, cap, "'%s'!$%s$%d:$%s$%d", sheet, c, r0 + 1, c, r1 + 1);
}

/* A result that may be "never": an empty string when has is false, else the number. */
static inline void maybe(book *b, lxw_worksheet *ws, int row, int col, bool has, double v,
                         lxw_format *f, const char *text) {
    if (has)
        keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, v));
    else
        keep(b, worksheet_write_formula_str(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, ""));
}

/* Days since 1899-12-30 (the spreadsheet date serial) of a proleptic Gregorian date. */
static inline double date_serial(int y, int m, int d) {
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)(era * 146097 + doe - 719468) + 25569.0;
}

/* Day d of month m of year y, as EDATE clamps it: the 31st in a 30-day month is the 30th. */
static inline double month_serial(int y, int m, int d) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int last = days[m - 1] + (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    return date_serial(y, m, d < 1 ? 1 : d > last ? last : d);
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

/* The month rows' references a formula needs, by column: "$X7"-style cells of row R. */
typedef struct rowref {
    int R;             /* 1-based row number */
    char buf[256][16]; /* a ring: a reference lives for the next 255 calls */
    int used;
} rowref;

static inline const char *at(rowref *rr, int col) {
    char cn[8];
    col_name(col, cn);
    char *out = rr->buf[rr->used++ % 256];
    snprintf(out, 16, "$%s%d", cn, rr->R);
    return out;
}

static inline const char *at_row(rowref *rr, int col, int R) {
    char cn[8];
    col_name(col, cn);
    char *out = rr->buf[rr->used++ % 256];
    snprintf(out, 16, "$%s%d", cn, R);
    return out;
}

/* "-INT(-(x-1E-9*MAX(1,x)))": docs/model.md's ceil+, x an expression without side effects. */
static inline void ceil_plus(char *out, size_t cap, const char *x) {
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
static inline void plan_range(const wbctx *x, char *out, size_t cap, int col, bool from_zero) {
    range(out, cap, "Plan", col, from_zero ? 1 : 2, x->M + 1);
}

static inline void batch_range(const wbctx *x, char *out, size_t cap, int col) {
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

static inline double per_gpu_h_v(const gp_option *o) {
    double phi = o->pricing == GP_SPOT
                     ? 1 + o->interruptions_per_hour * (o->checkpoint_interval_h / 2 + o->restart_h)
                     : 1;
    return (1 + (o->pricing == GP_COMMITTED ? 0 : o->idle_overhead)) * phi * (1 + o->support_pct) /
           o->gpus_per_instance;
}

static inline double extras_v(const gp_option *o) {
    return o->storage_gb * o->storage_per_gb_month + o->egress_gb_per_month * o->egress_per_gb;
}

/* ---- the sheets: each writes its sheet whole (xlsx_<sheet>.c) ---- */
void gp_xlsx_assumptions(wbctx *x, lxw_worksheet *as, const gp_report_meta *meta, int fiscal_start);
void gp_xlsx_shadow_build(wbctx *x, shadow *v);
void gp_xlsx_shadow_free(shadow *v);
void gp_xlsx_plan_layout(const gp_scenario *s, plan_cols *c);
void gp_xlsx_plan_sheet(wbctx *x, lxw_worksheet *ws);
void gp_xlsx_batches_sheet(wbctx *x, lxw_worksheet *ws);
void gp_xlsx_utilization_sheet(wbctx *x, lxw_worksheet *ws);
void gp_xlsx_summary_sheet(wbctx *x, lxw_worksheet *ws);
void gp_xlsx_bom_sheet(wbctx *x, lxw_worksheet *bom);
void gp_xlsx_sources_sheet(book *b, lxw_worksheet *src, const gp_scenario *s,
                           const gp_report_meta *meta);
int gp_xlsx_telemetry_sheet(book *b, lxw_worksheet *ws, const gp_xlsx_telemetry *tel);
void gp_xlsx_chargeback_rows(wbctx *x, lxw_worksheet *ws, int row, const gp_xlsx_telemetry *tel);

#endif
