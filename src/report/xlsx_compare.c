/* The workbook of a comparison (`compare --format xlsx`, docs/workbook.md "Generations"): the
 * Generations sheet, one row per compared candidate with its inputs (throughput, price, the
 * owned side's power) as input cells and every figure a live formula, and the hidden
 * "Generation months" sheet holding what compare computes month by month (docs/model.md "Demand
 * month", Self-hosted, Cloud options) for each candidate. A compare scenario is plain: owned
 * servers bought all at once at index 0 for cash, no lead time, no refresh, no resale value,
 * maintenance, staff or colocation; one option without trend, support or extras. Those are
 * the terms the formulas carry; every cell caches the value the same arithmetic gives here, and
 * the visible figures cache the engine's. Rows are laid out for the horizon: a shorter
 * horizon may be typed in, a longer one needs a new export. An API row is a rented row whose
 * price a unit of work (its three prices' formula) multiplies the work, with no throughput. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/output.h"
#include "gpuplan/report_compare.h"
#include "gpuplan/xmem.h"
#include "xlsx_int.h"

#define GEN "Generations"
#define MON "Generation months"
#define HOURS GP_MONTH_HOURS

/* Generations columns. */
enum {
    C_RANK,
    C_GPU,
    C_SIDE,
    C_PRICING,
    C_OFFER,
    C_DATE,
    C_RHO,
    C_FIGURE,
    C_TP_SOURCE,
    C_PRICE,
    C_UPFRONT,
    C_GI,
    C_TERM,
    C_LAMBDA,
    C_CKPT,
    C_RESTART,
    C_G,
    C_SERVER,
    C_TDP,
    C_IDLE,
    C_BASE,
    C_PUE,
    C_API_OUT, /* an API row's prices (docs/compare.md "API rows") */
    C_API_IN,
    C_API_RATIO,
    C_GPUS,
    C_TOTAL,
    C_PER_UNIT,
    C_BREAK_EVEN,
    C_VS,
    C_ORDER,
    C_N
};

/* Generation months: label, side, a per-row scalar, then index m = 0..M, then the total. */
#define M_LABEL 0
#define M_SIDE 1
#define M_SCALAR 2
#define M_FIRST 3

typedef struct cand {
    const gp_compare_row *row;
    int gen_row; /* its Generations row (0-based) */
    int k;       /* its index among the owned rows or among the rented rows */
    int vs;      /* rented: the owned row it is set against, -1: the lowest owned */
    int rho_row; /* the Generations row holding its GPU model's throughput input */
    double n[GP_MAX_MONTHS + 1], f[GP_MAX_MONTHS + 1], cum[GP_MAX_MONTHS + 1];
    double scalar, total; /* owned: servers; rented: the owned index (1-based) it is set against */
    double order;         /* its place when totals tie (compare's order) */
} cand;

typedef struct gctx {
    book *b;
    const gp_comparison *c;
    int M;
    cand *own, *rent;
    int n_own, n_rent;
    double work[GP_MAX_MONTHS + 1], work_total;
    /* Generation months rows (0-based): the work row, then each table's first row */
    int r_work, r_own_n, r_own_f, r_own_cum, r_rent_n, r_rent_f, r_rent_cum, r_rent_count;
    int gen_first, gen_last; /* Generations rows of the candidates */
    lxw_worksheet *mon, *gen;
} gctx;

/* "$C$5" (0-based row and column), or "'Sheet'!$C$5" with a sheet. */
static const char *cell(char *out, size_t cap, const char *sheet, int row, int col) {
    char cn[8];
    gp_xlsx_col_name(col, cn);
    if (sheet)
        snprintf(out, cap, "'%s'!$%s$%d", sheet, cn, row + 1);
    else
        snprintf(out, cap, "$%s$%d", cn, row + 1);
    return out;
}

/* "'Sheet'!$C$5:$H$5" or a column range "'Sheet'!$C$5:$C$9". */
static const char *span(char *out, size_t cap, const char *sheet, int r0, int c0, int r1, int c1) {
    char a[8], z[8];
    gp_xlsx_col_name(c0, a);
    gp_xlsx_col_name(c1, z);
    snprintf(out, cap, "'%s'!$%s$%d:$%s$%d", sheet, a, r0 + 1, z, r1 + 1);
    return out;
}

static double ceil_plus(double v) {
    return ceil(v - 1e-9 * fmax(1.0, v));
}

/* compare's order among equal totals: GPU, owned first, offer, pricing. */
static int tie_order(const void *pa, const void *pb) {
    const gp_compare_row *x = *(const gp_compare_row *const *)pa,
                         *y = *(const gp_compare_row *const *)pb;
    int k = strcmp(x->gpu, y->gpu);
    if (k)
        return k;
    if (x->own != y->own)
        return x->own ? -1 : 1;
    k = strcmp(x->offer, y->offer);
    return k ? k : strcmp(x->pricing, y->pricing);
}

/* The spot factor of a rented row (1 for the other kinds). */
static double phi_of(const gp_compare_row *r) {
    return 1.0 + r->interruptions_per_hour * (r->checkpoint_interval_h / 2.0 + r->restart_h);
}

/* The month-by-month values the formulas give, computed the same way, for their caches. */
static void mirror(gctx *x) {
    const gp_comparison *c = x->c;
    int M = x->M;
    x->work_total = 0.0;
    for (int j = 1; j <= M; j++) {
        x->work[j] = c->work_per_month * pow(1.0 + c->growth_per_month, j - 1);
        x->work_total += x->work[j];
    }
    double u = c->utilization;
    for (int k = 0; k < x->n_own; k++) {
        cand *o = &x->own[k];
        const gp_compare_row *r = o->row;
        double most = 0.0, g = r->gpus_per_server;
        for (int j = 1; j <= M; j++) {
            o->n[j] = ceil_plus(x->work[j] / r->throughput / (HOURS * u));
            most = fmax(most, o->n[j]);
        }
        o->scalar = ceil(most / g);
        o->f[0] = o->scalar * r->server_price;
        for (int j = 1; j <= M; j++) {
            double G = fmin(o->n[j], g * o->scalar);
            double q = fmin(x->work[j] / r->throughput, G * HOURS * u);
            double powered = ceil(G / g);
            double base = powered * r->server_base_w + G * r->gpu_idle_w;
            double Y = q * 24.0 / HOURS;
            double tr = pow(1.0 + c->energy_trend_per_year, (j - 1) / 12.0);
            double power = r->pue * (base * 24.0 + (r->gpu_tdp_w - r->gpu_idle_w) * Y) *
                           c->price_per_kwh * (HOURS / 24.0 / 1000.0) * tr;
            double charge = c->demand_charge_per_kw_month * tr *
                            ((powered * r->server_base_w + G * r->gpu_tdp_w) / 1000.0) * r->pue;
            o->f[j] = power + charge;
        }
        o->total = 0.0;
        for (int m = 0; m <= M; m++) {
            o->total += o->f[m];
            o->cum[m] = (m ? o->cum[m - 1] : 0.0) + o->f[m];
        }
    }
    for (int k = 0; k < x->n_rent; k++) {
        cand *o = &x->rent[k];
        const gp_compare_row *r = o->row;
        double gi = r->gpus_per_instance, p = r->hourly / gi, up = r->upfront / gi;
        for (int j = 1; j <= M; j++)
            o->n[j] = r->api ? 0.0 : ceil_plus(x->work[j] / r->throughput / (HOURS * u));
        memset(o->f, 0, sizeof o->f);
        if (r->api) { /* the work bought at its price a unit: no hardware */
            for (int j = 1; j <= M; j++)
                o->f[j] = x->work[j] *
                          (r->price_per_unit + r->input_units_per_unit * r->price_per_input_unit);
        } else if (!r->term_months) {
            for (int j = 1; j <= M; j++)
                o->f[j] = x->work[j] / r->throughput * phi_of(r) * p;
        } else {
            int T = r->term_months;
            for (int s = 0; s < M; s += T) {
                double most = 0.0;
                for (int j = s + 1; j <= s + T && j <= M; j++)
                    most = fmax(most, o->n[j]);
                double R = ceil(most / gi);
                o->f[s] += R * gi * up;
                for (int j = s + 1; j <= s + T && j <= M; j++)
                    o->f[j] += R * gi * HOURS * p;
                if (s + T > M)
                    o->f[M] += (s + T - M) * R * gi * HOURS * p;
            }
        }
        o->total = 0.0;
        for (int m = 0; m <= M; m++) {
            o->total += o->f[m];
            o->cum[m] = (m ? o->cum[m - 1] : 0.0) + o->f[m];
        }
    }
}

/* ---- Generation months ------------------------------------------------------------------ */

static void layout(gctx *x) {
    x->r_work = 1;
    x->r_own_n = x->r_work + 3; /* a blank row and a heading before each table */
    x->r_own_f = x->r_own_n + x->n_own + 2;
    x->r_own_cum = x->r_own_f + x->n_own + 2;
    x->r_rent_n = x->r_own_cum + x->n_own + 2;
    x->r_rent_f = x->r_rent_n + x->n_rent + 2;
    x->r_rent_cum = x->r_rent_f + x->n_rent + 2;
    x->r_rent_count = x->r_rent_cum + x->n_rent + 2;
}

/* A Generations input of candidate o: "'Generations'!$G$14". */
static const char *in(char *out, size_t cap, const cand *o, int col) {
    return cell(out, cap, GEN, o->gen_row, col);
}

static void table_head(gctx *x, int row, const char *what) {
    gp_xlsx_text(x->b, x->mon, row - 1, M_LABEL, what, x->b->bold);
}

static void row_labels(gctx *x, int row, const cand *o) {
    gp_xlsx_text(x->b, x->mon, row, M_LABEL, o->row->api ? "API" : o->row->gpu, NULL);
    gp_xlsx_text(x->b, x->mon, row, M_SIDE, o->row->own ? "own" : o->row->offer, NULL);
}

/* N_j = ceil+(W_j / rho / (730 u)), 0 without work, for index m >= 1 of table row `row`. */
static void gpus_cells(gctx *x, int row, const cand *o) {
    char rho[64], w[64];
    in(rho, sizeof rho, o, C_RHO);
    for (int j = 1; j <= x->M && o->row->api; j++) /* an API holds no GPUs */
        gp_xlsx_formula(x->b, x->mon, row, M_FIRST + j, 0.0, x->b->num, "0");
    for (int j = 1; j <= x->M && !o->row->api; j++) {
        cell(w, sizeof w, NULL, x->r_work, M_FIRST + j);
        gp_xlsx_formula(x->b, x->mon, row, M_FIRST + j, o->n[j], x->b->num,
                        "IF(%s=0,0,-INT(-((%s/%s/(730*gen_utilization))-1E-9*MAX(1,%s/%s/"
                        "(730*gen_utilization)))))",
                        w, w, rho, w, rho);
    }
}

static void sum_cell(gctx *x, int row, double v) {
    char a[24], z[24];
    cell(a, sizeof a, NULL, row, M_FIRST);
    cell(z, sizeof z, NULL, row, M_FIRST + x->M);
    gp_xlsx_formula(x->b, x->mon, row, M_FIRST + x->M + 1, v, x->b->money, "SUM(%s:%s)", a, z);
}

static void cum_cells(gctx *x, int row, int flow_row, const cand *o) {
    char f[24], prev[24];
    for (int m = 0; m <= x->M; m++) {
        cell(f, sizeof f, NULL, flow_row, M_FIRST + m);
        if (m == 0)
            gp_xlsx_formula(x->b, x->mon, row, M_FIRST, o->cum[0], x->b->money, "%s", f);
        else
            gp_xlsx_formula(x->b, x->mon, row, M_FIRST + m, o->cum[m], x->b->money, "%s+%s",
                            cell(prev, sizeof prev, NULL, row, M_FIRST + m - 1), f);
    }
}

/* An owned candidate's flows: servers (ceil of the most GPUs a month over g) at the server
 * price at index 0; each month its power (the tariff's mean price, trended) and demand
 * charge, docs/model.md "Running costs" with every GPU at work (G_j = N_j, all servers bought). */
static void own_flow_row(gctx *x, int row, const cand *o) {
    book *b = x->b;
    char g[64], price[64], rho[64], tdp[64], idle[64], basew[64], pue[64], nrange[96], srv[24];
    in(g, sizeof g, o, C_G);
    in(price, sizeof price, o, C_SERVER);
    in(rho, sizeof rho, o, C_RHO);
    in(tdp, sizeof tdp, o, C_TDP);
    in(idle, sizeof idle, o, C_IDLE);
    in(basew, sizeof basew, o, C_BASE);
    in(pue, sizeof pue, o, C_PUE);
    int nrow = x->r_own_n + o->k;
    span(nrange, sizeof nrange, MON, nrow, M_FIRST + 1, nrow, M_FIRST + x->M);
    row_labels(x, row, o);
    gp_xlsx_formula(b, x->mon, row, M_SCALAR, o->scalar, b->num, "-INT(-MAX(%s)/%s)", nrange, g);
    cell(srv, sizeof srv, NULL, row, M_SCALAR);
    gp_xlsx_formula(b, x->mon, row, M_FIRST, o->f[0], b->money, "%s*%s", srv, price);
    for (int j = 1; j <= x->M; j++) {
        char n[24], w[24], G[160], powered[200];
        cell(n, sizeof n, NULL, nrow, M_FIRST + j);
        cell(w, sizeof w, NULL, x->r_work, M_FIRST + j);
        snprintf(G, sizeof G, "MIN(%s,%s*%s)", n, g, srv);
        snprintf(powered, sizeof powered, "(-INT(-%s/%s))", G, g);
        gp_xlsx_formula(
            b, x->mon, row, M_FIRST + j, o->f[j], b->money,
            "%s*((%s*%s+%s*%s)*24+(%s-%s)*MIN(%s/%s,%s*730*gen_utilization)*24/730)"
            "*gen_kwh_price*(730/24/1000)*(1+gen_energy_trend)^((%d-1)/12)"
            "+gen_demand_charge*(1+gen_energy_trend)^((%d-1)/12)*((%s*%s+%s*%s)/1000)*%s",
            pue, powered, basew, G, idle, tdp, idle, w, rho, G, j, j, powered, basew, G, tdp, pue);
    }
    sum_cell(x, row, o->total);
}

/* A rented candidate's flows: pay-per-use, busy GPU-hours times the spot factor times the
 * price a GPU-hour; committed, each term's instances (the most any of its months needs) pay
 * the upfront at its start and 730 h a month, the months past the horizon at its end. */
static void rent_flow_row(gctx *x, int row, const cand *o) {
    book *b = x->b;
    const gp_compare_row *r = o->row;
    char p[64], rho[64], up[64], gi[64], lam[64], ck[64], rs[64];
    in(p, sizeof p, o, C_PRICE);
    in(rho, sizeof rho, o, C_RHO);
    in(up, sizeof up, o, C_UPFRONT);
    in(gi, sizeof gi, o, C_GI);
    in(lam, sizeof lam, o, C_LAMBDA);
    in(ck, sizeof ck, o, C_CKPT);
    in(rs, sizeof rs, o, C_RESTART);
    int nrow = x->r_rent_n + o->k, T = r->term_months;
    row_labels(x, row, o);
    for (int m = 0; m <= x->M; m++) {
        char w[24];
        cell(w, sizeof w, NULL, x->r_work, M_FIRST + m);
        if (!T) {
            if (m == 0)
                gp_xlsx_formula(b, x->mon, row, M_FIRST, 0.0, b->money, "0");
            else if (r->api) /* the work at the API's price a unit (its price column) */
                gp_xlsx_formula(b, x->mon, row, M_FIRST + m, o->f[m], b->money, "%s*%s", w, p);
            else if (r->pricing[0] == 's')
                gp_xlsx_formula(b, x->mon, row, M_FIRST + m, o->f[m], b->money,
                                "%s/%s*(1+%s*(%s/2+%s))*%s", w, rho, lam, ck, rs, p);
            else
                gp_xlsx_formula(b, x->mon, row, M_FIRST + m, o->f[m], b->money, "%s/%s*%s", w, rho,
                                p);
            continue;
        }
        /* The term starting at m (when m is a start), and the term of month m (m >= 1). */
        char start_r[200] = "0", month_r[400] = "0", rest[400] = "0", nr[96];
        if (m % T == 0 && m < x->M) {
            int e = m + T < x->M ? m + T : x->M;
            span(nr, sizeof nr, MON, nrow, M_FIRST + m + 1, nrow, M_FIRST + e);
            snprintf(start_r, sizeof start_r, "IF(%d<gen_horizon,-INT(-MAX(%s)/%s)*%s*%s,0)", m, nr,
                     gi, gi, up);
        }
        if (m >= 1) {
            int s = T * ((m - 1) / T), e = s + T < x->M ? s + T : x->M;
            span(nr, sizeof nr, MON, nrow, M_FIRST + s + 1, nrow, M_FIRST + e);
            snprintf(month_r, sizeof month_r, "IF(%d<=gen_horizon,-INT(-MAX(%s)/%s)*%s*730*%s,0)",
                     m, nr, gi, gi, p);
            snprintf(rest, sizeof rest,
                     "IF(%d=gen_horizon,(%d-gen_horizon)*(-INT(-MAX(%s)/%s))*%s*730*%s,0)", m,
                     s + T, nr, gi, gi, p);
        }
        gp_xlsx_formula(b, x->mon, row, M_FIRST + m, o->f[m], b->money, "%s+%s+%s", start_r,
                        month_r, rest);
    }
    sum_cell(x, row, o->total);
}

/* Whether owning has cost no more than renting so far at each index (docs/model.md Results, Ties,
 * "not both 0", and 2.1's level months: only once the running sums have differed), against
 * the owned row the candidate is set against: a fixed one, or the owned row of the lowest total
 * (the first of equal ones), as compare picks for a GPU model it has no purchase price for.
 * Each cell: 1 when the index counts; 0 while the sums have never differed; else 2 (owning
 * behind) or 3 (level again, or both 0), so the cell before says whether they have differed
 * and MATCH(1, ...) finds the break-even. */
static void count_row(gctx *x, int row, const cand *o) {
    book *b = x->b;
    char totals[96], cums[96], vs[24];
    span(totals, sizeof totals, MON, x->r_own_f, M_FIRST + x->M + 1, x->r_own_f + x->n_own - 1,
         M_FIRST + x->M + 1);
    row_labels(x, row, o);
    const cand *own = o->vs >= 0 ? &x->own[o->vs] : NULL;
    int pick = o->vs;
    if (!own) {
        for (int k = 0; k < x->n_own; k++)
            if (pick < 0 || x->own[k].total < x->own[pick].total)
                pick = k;
        gp_xlsx_formula(b, x->mon, row, M_SCALAR, pick + 1, b->num, "MATCH(MIN(%s),%s,0)", totals,
                        totals);
    } else {
        gp_xlsx_formula(b, x->mon, row, M_SCALAR, pick + 1, b->num, "%d", pick + 1);
    }
    cell(vs, sizeof vs, NULL, row, M_SCALAR);
    bool differed = false;
    for (int m = 0; m <= x->M; m++) {
        char cs[200], co[24];
        span(cums, sizeof cums, MON, x->r_own_cum, M_FIRST + m, x->r_own_cum + x->n_own - 1,
             M_FIRST + m);
        snprintf(cs, sizeof cs, "INDEX(%s,%s)", cums, vs);
        cell(co, sizeof co, NULL, x->r_rent_cum + o->k, M_FIRST + m);
        double a = x->own[pick].cum[m], z = o->cum[m];
        bool tie = gp_money_equal(a, z);
        int state = !tie ? (a < z ? 1 : 2) : differed ? (a == 0.0 && z == 0.0 ? 3 : 1) : 0;
        differed = differed || state != 0;
        char prev[24] = "0";
        if (m > 0)
            cell(prev, sizeof prev, NULL, row, M_FIRST + m - 1);
        gp_xlsx_formula(b, x->mon, row, M_FIRST + m, state, b->num,
                        "IF(%d>gen_horizon,0,IF(NOT(ABS(%s-%s)<=1E-9*MAX(1,ABS(%s),ABS(%s))),IF(%s<"
                        "%s,1,2),IF(%s<>0,IF(AND(%s=0,%s=0),3,1),0)))",
                        m, cs, co, cs, co, cs, co, prev, cs, co);
    }
}

static void months_sheet(gctx *x) {
    book *b = x->b;
    lxw_worksheet *ws = x->mon;
    int M = x->M;
    gp_xlsx_text(b, ws, 0, M_LABEL, "index m (0: the start; m: the close of month m)", b->bold);
    for (int m = 0; m <= M; m++)
        gp_xlsx_num(b, ws, 0, M_FIRST + m, m, b->bold);
    gp_xlsx_text(b, ws, 0, M_FIRST + M + 1, "total", b->bold);
    gp_xlsx_text(b, ws, x->r_work, M_LABEL, "work a month W_j", NULL);
    for (int j = 1; j <= M; j++)
        gp_xlsx_formula(b, ws, x->r_work, M_FIRST + j, x->work[j], b->num,
                        "IF(%d>gen_horizon,0,gen_work*(1+gen_growth)^(%d-1))", j, j);
    sum_cell(x, x->r_work, x->work_total);
    table_head(x, x->r_own_n, "owned: GPUs needed N_j = ceil+(W_j / throughput / (730 u))");
    for (int k = 0; k < x->n_own; k++) {
        row_labels(x, x->r_own_n + k, &x->own[k]);
        gpus_cells(x, x->r_own_n + k, &x->own[k]);
    }
    table_head(x, x->r_own_f, "owned: flow at index m (capex at 0, power and demand charge)");
    gp_xlsx_text(b, ws, x->r_own_f - 1, M_SCALAR, "servers", b->bold);
    for (int k = 0; k < x->n_own; k++)
        own_flow_row(x, x->r_own_f + k, &x->own[k]);
    table_head(x, x->r_own_cum, "owned: running sum");
    for (int k = 0; k < x->n_own; k++) {
        row_labels(x, x->r_own_cum + k, &x->own[k]);
        cum_cells(x, x->r_own_cum + k, x->r_own_f + k, &x->own[k]);
    }
    table_head(x, x->r_rent_n, "rented: GPUs needed N_j");
    for (int k = 0; k < x->n_rent; k++) {
        row_labels(x, x->r_rent_n + k, &x->rent[k]);
        gpus_cells(x, x->r_rent_n + k, &x->rent[k]);
    }
    table_head(x, x->r_rent_f, "rented: flow at index m");
    for (int k = 0; k < x->n_rent; k++)
        rent_flow_row(x, x->r_rent_f + k, &x->rent[k]);
    table_head(x, x->r_rent_cum, "rented: running sum");
    for (int k = 0; k < x->n_rent; k++) {
        row_labels(x, x->r_rent_cum + k, &x->rent[k]);
        cum_cells(x, x->r_rent_cum + k, x->r_rent_f + k, &x->rent[k]);
    }
    table_head(x, x->r_rent_count,
               "rented: 1 where owning's running sum is at most the option's (Ties), not both 0, "
               "once the sums have differed (0: level so far; 2: behind; 3: level again)");
    gp_xlsx_text(b, ws, x->r_rent_count - 1, M_SCALAR, "owned row", b->bold);
    for (int k = 0; k < x->n_rent; k++)
        count_row(x, x->r_rent_count + k, &x->rent[k]);
    worksheet_set_column(ws, 0, 1, 24, NULL);
    gp_xlsx_finish_sheet(ws, true, 0);
    worksheet_hide(ws);
}

/* ---- Generations ------------------------------------------------------------------------ */

static void define(book *b, const char *name, int row) {
    char target[64], f[80];
    cell(target, sizeof target, GEN, row, 1);
    snprintf(f, sizeof f, "=%s", target);
    gp_xlsx_keep(b, workbook_define_name(b->wb, name, f));
}

static void input_row(gctx *x, int row, const char *name, const char *label, double v,
                      const char *unit) {
    gp_xlsx_text(x->b, x->gen, row, 0, label, NULL);
    gp_xlsx_num(x->b, x->gen, row, 1, v, x->b->in_num);
    gp_xlsx_text(x->b, x->gen, row, 2, unit, NULL);
    define(x->b, name, row);
}

/* An input of a candidate's row where it applies, else an empty locked cell. */
static void in_cell(gctx *x, int row, int col, bool applies, double v) {
    if (applies)
        gp_xlsx_num(x->b, x->gen, row, col, v, x->b->in_num);
}

/* An API row (docs/compare.md "API rows"): no throughput, its figure "api" with the
 * catalog's source, its three prices as inputs and its price a unit of work a formula of them
 * in the price column, which its flows multiply the work by. */
static void api_cells(gctx *x, const cand *o) {
    book *b = x->b;
    const gp_compare_row *r = o->row;
    int R = o->gen_row;
    char src[700], out[24], inp[24], ratio[24];
    gp_xlsx_text(b, x->gen, R, C_FIGURE, "api", NULL);
    snprintf(src, sizeof src, "%s (from %s)", r->api_source, r->price_date);
    gp_xlsx_text(b, x->gen, R, C_TP_SOURCE, src, NULL);
    gp_xlsx_num(b, x->gen, R, C_API_OUT, r->price_per_unit, b->in_num);
    gp_xlsx_num(b, x->gen, R, C_API_IN, r->price_per_input_unit, b->in_num);
    gp_xlsx_num(b, x->gen, R, C_API_RATIO, r->input_units_per_unit, b->in_num);
    gp_xlsx_formula(b, x->gen, R, C_PRICE,
                    r->price_per_unit + r->input_units_per_unit * r->price_per_input_unit, b->num,
                    "%s+%s*%s", cell(out, sizeof out, NULL, R, C_API_OUT),
                    cell(ratio, sizeof ratio, NULL, R, C_API_RATIO),
                    cell(inp, sizeof inp, NULL, R, C_API_IN));
}

/* A candidate's inputs: its price, its instance, spot's overheads, an owned server's. */
static void candidate_inputs(gctx *x, const cand *o) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    const gp_compare_row *r = o->row;
    int R = o->gen_row;
    bool own = r->own, spot = !own && !strcmp(r->pricing, "spot"), com = !own && r->term_months;
    in_cell(x, R, C_PRICE, !own && !r->api, own ? 0 : r->hourly / r->gpus_per_instance);
    in_cell(x, R, C_UPFRONT, com, com ? r->upfront / r->gpus_per_instance : 0);
    in_cell(x, R, C_GI, !own && !r->api, r->gpus_per_instance);
    if (com)
        gp_xlsx_num(b, ws, R, C_TERM, r->term_months, NULL);
    in_cell(x, R, C_LAMBDA, spot, r->interruptions_per_hour);
    in_cell(x, R, C_CKPT, spot, r->checkpoint_interval_h);
    in_cell(x, R, C_RESTART, spot, r->restart_h);
    in_cell(x, R, C_G, own, r->gpus_per_server);
    in_cell(x, R, C_SERVER, own, r->server_price);
    in_cell(x, R, C_TDP, own, r->gpu_tdp_w);
    in_cell(x, R, C_IDLE, own, r->gpu_idle_w);
    in_cell(x, R, C_BASE, own, r->server_base_w);
    in_cell(x, R, C_PUE, own, r->pue);
}

/* A rented candidate's break-even month against owning, and the GPU owned it is set against. */
static void candidate_break_even(gctx *x, const cand *o) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    const gp_compare_row *r = o->row;
    int R = o->gen_row;
    char counts[96], vs[64], names[96];
    int crow = x->r_rent_count + o->k;
    span(counts, sizeof counts, MON, crow, M_FIRST, crow, M_FIRST + x->M);
    char text[256];
    snprintf(text, sizeof text, "IFERROR(MATCH(1,%s,0)-1,\"\")", counts);
    if (r->has_break_even)
        gp_xlsx_keep(b, worksheet_write_formula_num(ws, (lxw_row_t)R, C_BREAK_EVEN, text, NULL,
                                                    r->break_even_month));
    else
        gp_xlsx_keep(b,
                     worksheet_write_formula_str(ws, (lxw_row_t)R, C_BREAK_EVEN, text, NULL, ""));
    if (o->vs >= 0) {
        gp_xlsx_text(b, ws, R, C_VS, r->vs_gpu, NULL);
    } else {
        span(names, sizeof names, MON, x->r_own_f, M_LABEL, x->r_own_f + x->n_own - 1, M_LABEL);
        cell(vs, sizeof vs, MON, crow, M_SCALAR);
        snprintf(text, sizeof text, "INDEX(%s,%s)", names, vs);
        gp_xlsx_keep(b, worksheet_write_formula_str(ws, (lxw_row_t)R, C_VS, text, NULL, r->vs_gpu));
    }
}

static void candidate_row(gctx *x, const cand *o) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    const gp_compare_row *r = o->row;
    int R = o->gen_row;
    bool own = r->own;
    char tot[96], ord[96], me[24], myord[24];
    span(tot, sizeof tot, GEN, x->gen_first, C_TOTAL, x->gen_last, C_TOTAL);
    span(ord, sizeof ord, GEN, x->gen_first, C_ORDER, x->gen_last, C_ORDER);
    cell(me, sizeof me, NULL, R, C_TOTAL);
    cell(myord, sizeof myord, NULL, R, C_ORDER);
    gp_xlsx_formula(b, ws, R, C_RANK, r->rank, NULL, "1+SUMPRODUCT((%s<%s)+(%s=%s)*(%s<%s))", tot,
                    me, tot, me, ord, myord);
    gp_xlsx_text(b, ws, R, C_GPU, r->api ? "API" : r->gpu, NULL);
    gp_xlsx_text(b, ws, R, C_SIDE, own ? "own" : r->provider, NULL);
    gp_xlsx_text(b, ws, R, C_PRICING, own ? "own" : r->pricing, NULL);
    gp_xlsx_text(b, ws, R, C_OFFER, r->offer, NULL);
    gp_xlsx_text(b, ws, R, C_DATE, r->price_date, NULL);
    if (r->api) {
        api_cells(x, o);
    } else if (o->rho_row == R) {
        gp_xlsx_num(b, ws, R, C_RHO, r->throughput, b->in_num);
    } else {
        char first[24];
        gp_xlsx_formula(b, ws, R, C_RHO, r->throughput, b->num, "%s",
                        cell(first, sizeof first, NULL, o->rho_row, C_RHO));
    }
    if (!r->api) {
        gp_xlsx_text(b, ws, R, C_FIGURE, gp_tp_kind_name(r->tp_kind), b->in_text);
        gp_xlsx_text(b, ws, R, C_TP_SOURCE, r->tp_source, NULL);
    }
    candidate_inputs(x, o);
    char work[96], rho[24];
    span(work, sizeof work, MON, x->r_work, M_FIRST + 1, x->r_work, M_FIRST + x->M);
    cell(rho, sizeof rho, NULL, R, C_RHO);
    if (r->api)
        gp_xlsx_text(b, ws, R, C_GPUS, "-", NULL);
    else
        gp_xlsx_formula(b, ws, R, C_GPUS, r->gpus_needed, NULL,
                        "-INT(-(MAX(%s)/%s/(730*gen_utilization)-1E-9))", work, rho);
    char total[64];
    int frow = own ? x->r_own_f + o->k : x->r_rent_f + o->k;
    cell(total, sizeof total, MON, frow, M_FIRST + x->M + 1);
    gp_xlsx_formula(b, ws, R, C_TOTAL, r->total, b->money, "%s", total);
    gp_xlsx_formula(b, ws, R, C_PER_UNIT, r->cost_per_unit, b->num, "%s/gen_work_total", me);
    if (!own)
        candidate_break_even(x, o);
    gp_xlsx_num(b, ws, R, C_ORDER, o->order, NULL);
}

static const char *const heads[C_N] = {
    "rank",
    "GPU",
    "side",
    "pricing",
    "offer or server",
    "price date",
    "work a GPU-hour",
    "figure (estimate, published or measured)",
    "throughput source",
    "price a GPU-hour",
    "upfront a GPU a term",
    "GPUs an instance",
    "term (months)",
    "interruptions an hour",
    "checkpoint every (h)",
    "restart (h)",
    "GPUs a server",
    "server price",
    "GPU TDP (W)",
    "GPU idle (W)",
    "server base (W)",
    "PUE",
    "API: a M output tokens",
    "API: a M input tokens",
    "API: input tokens an output token",
    "GPUs needed",
    "total",
    "per unit of work",
    "break-even month vs owning",
    "owning",
    "order among equal totals",
};

/* The Generations sheet's title, note and inputs (rows 3..10: the work, its growth, the
 * utilization, the horizon, electricity). */
static void generations_inputs(gctx *x) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    const gp_comparison *c = x->c;
    char text[600];
    snprintf(text, sizeof text,
             "GPU generations per unit of work: profile %s, work in %s; prices as of %s",
             c->profile, c->unit, c->as_of);
    gp_xlsx_text(b, ws, 0, 0, text, b->bold);
    gp_xlsx_text(b, ws, 1, 0,
                 "Blue on yellow: inputs, edit them; every other figure recalculates. The month "
                 "columns (hidden sheet Generation months) are laid out for the horizon: a "
                 "shorter one may be typed in, a longer one needs a new export.",
                 b->note);
    char unit[120];
    snprintf(unit, sizeof unit, "%s a month", c->unit);
    input_row(x, 3, "gen_work", "work a month", c->work_per_month, unit);
    input_row(x, 4, "gen_growth", "work growth (compound)", c->growth_per_month, "a month");
    input_row(x, 5, "gen_utilization", "busy share of the GPUs provisioned", c->utilization,
              "0..1");
    input_row(x, 6, "gen_horizon", "horizon (at most the exported one)", x->M, "months");
    lxw_data_validation dv = {.validate = LXW_VALIDATION_TYPE_INTEGER,
                              .criteria = LXW_VALIDATION_CRITERIA_BETWEEN,
                              .minimum_number = 1,
                              .maximum_number = x->M};
    gp_xlsx_keep(b, worksheet_data_validation_cell(ws, 6, 1, &dv));
    if (c->tariff[0])
        snprintf(text, sizeof text,
                 "electricity price: tariff preset %s, its mean over the day (periods weighted "
                 "by their hours)",
                 c->tariff);
    else
        snprintf(text, sizeof text, "electricity price (the model's default flat price)");
    input_row(x, 7, "gen_kwh_price", text, c->price_per_kwh, "a kWh");
    input_row(x, 8, "gen_demand_charge", "demand charge", c->demand_charge_per_kw_month,
              "a kW a month");
    input_row(x, 9, "gen_energy_trend", "electricity price trend", c->energy_trend_per_year,
              "a year");
    gp_xlsx_text(b, ws, 10, 0, "work over the horizon", NULL);
    char work[96];
    cell(work, sizeof work, MON, x->r_work, M_FIRST + x->M + 1);
    gp_xlsx_formula(b, ws, 10, 1, c->work, b->num, "%s", work);
    gp_xlsx_text(b, ws, 10, 2, c->unit, NULL);
    define(b, "gen_work_total", 10);
}

/* Below the candidates from `row` on: the note, then the rows compare could not compare and
 * what each lacks. */
static void generations_missing(gctx *x, int row) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    const gp_comparison *c = x->c;
    char text[600];
    gp_xlsx_text(b, ws, row++, 0,
                 "Break-even: the first index (0: the start; m: the close of month m) at which "
                 "owning the GPU model named has cost no more than renting so far; empty: never. "
                 "Owned: servers bought at the start for cash, no resale value; rented rows of a "
                 "GPU model without a purchase price are set against the owned row of the lowest "
                 "total.",
                 b->note);
    bool any = false;
    for (int i = 0; i < c->n; i++) {
        const gp_compare_row *r = &c->rows[i];
        if (!r->missing[0])
            continue;
        if (!any) {
            row++;
            gp_xlsx_text(b, ws, row, 0, "Not compared", b->bold);
            gp_xlsx_text(b, ws, row++, 1, "what is missing", b->bold);
            any = true;
        }
        snprintf(text, sizeof text, "%s%s%s", r->gpu, r->offer[0] ? " " : "", r->offer);
        gp_xlsx_text(b, ws, row, 0, text, NULL);
        gp_xlsx_text(b, ws, row++, 1, r->missing, NULL);
    }
}

static void generations_sheet(gctx *x) {
    book *b = x->b;
    lxw_worksheet *ws = x->gen;
    generations_inputs(x);
    int head = x->gen_first - 1;
    for (int k = 0; k < C_N; k++)
        gp_xlsx_text(b, ws, head, k, heads[k], b->head);
    /* Candidates in compare's order (rank), each its row. */
    for (int R = x->gen_first; R <= x->gen_last; R++)
        for (int k = 0; k < x->n_own + x->n_rent; k++) {
            const cand *o = k < x->n_own ? &x->own[k] : &x->rent[k - x->n_own];
            if (o->gen_row == R)
                candidate_row(x, o);
        }
    int row = x->gen_last + 2;
    generations_missing(x, row);
    worksheet_set_column(ws, 0, 0, 14, NULL);
    worksheet_set_column(ws, C_OFFER, C_OFFER, 30, NULL);
    worksheet_set_column(ws, C_TP_SOURCE, C_TP_SOURCE, 30, NULL);
    lxw_row_col_options hidden = {.hidden = 1};
    worksheet_set_column_opt(ws, C_ORDER, C_ORDER, 8, NULL, &hidden);
    worksheet_freeze_panes(ws, (lxw_row_t)x->gen_first, C_SIDE + 1);
    gp_xlsx_finish_sheet(ws, true, head);
}

static lxw_error write_book(const gp_comparison *c, const char *tmp) {
    book b = {0};
    lxw_error rc = gp_xlsx_book_open(&b, tmp, "USD");
    if (rc)
        return rc;
    gctx x = {.b = &b, .c = c, .M = c->horizon_months};
    x.own = gp_xcalloc((size_t)c->n + 1, sizeof *x.own);
    x.rent = gp_xcalloc((size_t)c->n + 1, sizeof *x.rent);
    x.gen_first = 13;
    const gp_compare_row **byorder = gp_xcalloc((size_t)c->n + 1, sizeof *byorder);
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        const gp_compare_row *r = &c->rows[i];
        if (r->missing[0])
            continue;
        cand *o = r->own ? &x.own[x.n_own] : &x.rent[x.n_rent];
        o->row = r;
        o->k = r->own ? x.n_own++ : x.n_rent++;
        o->gen_row = x.gen_first + n;
        byorder[n++] = r;
    }
    x.gen_last = x.gen_first + n - 1;
    qsort(byorder, (size_t)n, sizeof *byorder, tie_order);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < x.n_own + x.n_rent; k++) {
            cand *o = k < x.n_own ? &x.own[k] : &x.rent[k - x.n_own];
            if (o->row == byorder[i])
                o->order = i + 1;
        }
    free(byorder);
    for (int k = 0; k < x.n_rent; k++) {
        x.rent[k].vs = -1;
        for (int i = 0; i < x.n_own; i++)
            if (!strcmp(x.own[i].row->gpu, x.rent[k].row->gpu))
                x.rent[k].vs = i;
    }
    /* One throughput a GPU model, as compare uses it for every candidate of that model: an
     * input on the model's first row, the others refer to it. */
    for (int k = 0; k < x.n_own + x.n_rent; k++) {
        cand *o = k < x.n_own ? &x.own[k] : &x.rent[k - x.n_own];
        o->rho_row = o->gen_row;
        for (int i = 0; i < x.n_own + x.n_rent && !o->row->api; i++) {
            const cand *p = i < x.n_own ? &x.own[i] : &x.rent[i - x.n_own];
            if (p->gen_row < o->rho_row && !strcmp(p->row->gpu, o->row->gpu))
                o->rho_row = p->gen_row;
        }
    }
    mirror(&x);
    layout(&x);
    x.gen = workbook_add_worksheet(b.wb, GEN);
    x.mon = workbook_add_worksheet(b.wb, MON);
    if (!x.gen || !x.mon) {
        rc = LXW_ERROR_MEMORY_MALLOC_FAILED;
    } else {
        months_sheet(&x);
        generations_sheet(&x);
        worksheet_activate(x.gen);
    }
    free(x.own);
    free(x.rent);
    lxw_doc_properties props = {.title = "GPU generations per unit of work",
                                .author = "gpuplan",
                                .comments = "Edit the inputs of the Generations sheet; every "
                                            "figure recalculates."};
    workbook_set_properties(b.wb, &props);
    lxw_error closed = workbook_close(b.wb);
    return rc ? rc : b.rc ? b.rc : closed;
}

gp_status gp_report_compare_xlsx(const gp_comparison *c, const char *path, gp_err *err) {
    if (c->shift_to_cheapest)
        return gp_errorf(err, GP_E_INPUT, "--tariff",
                         "the Generations sheet prices power at the tariff's mean price and "
                         "cannot shift busy hours to the cheapest periods (shift_to_cheapest)");
    if (c->horizon_months < 1 || c->horizon_months > GP_MAX_MONTHS)
        return gp_errorf(err, GP_E_INPUT, "--horizon", "must be 1..%d months", GP_MAX_MONTHS);
    gp_output out;
    if (gp_output_open_named(&out, path, err))
        return err->code;
    quiet q;
    gp_xlsx_quiet_begin(&q, out.tmp);
    lxw_error rc = write_book(c, out.tmp);
    char said[160];
    gp_xlsx_quiet_end(&q, said, sizeof said);
    if (rc) {
        gp_output_abort(&out);
        return gp_errorf(err, GP_E_IO, path ? path : "-", "cannot write the workbook: %s%s%s%s",
                         lxw_strerror(rc), said[0] ? " (" : "", said, said[0] ? ")" : "");
    }
    return gp_output_commit(&out, err);
}
