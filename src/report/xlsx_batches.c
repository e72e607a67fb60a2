/* The Batches sheet of the procurement workbook: one row per delivery index d, the
 * docs/model.md "In a workbook" layout, network shares by generation. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_sheets.h"

/* One row of the Batches sheet: delivery index d (rows 0..M; only d < M delivers). */
/* One row of the Batches sheet under way: delivery index d and its references. */
typedef struct brow {
    wbctx *x;
    lxw_worksheet *ws;
    int d, row, R;
    rowref rr;
    char D[16];
} brow;

/* Whether d delivers, the servers it leaves in service, sells, refreshes and buys, its exit
 * index and whether it is the first batch. */
static void batch_row_servers(brow *p) {
    wbctx *x = p->x;
    lxw_worksheet *ws = p->ws;
    book *b = x->b;
    int d = p->d, row = p->row, R = p->R;
    const char *D = p->D;
    const bat_vals *bv = &x->sv->b[d];
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
    num_cell(b, ws, row, B_D, d, NULL);
    gp_xlsx_formula(b, ws, row, B_DELIVERY, bv->delivery, NULL,
                    "=IF(AND(%s<horizon_months,%s>=lead_time,MOD(%s-lead_time,order_every)=0),1,0)",
                    D, D, D);
    gp_xlsx_formula(
        b, ws, row, B_C, bv->c, NULL,
        "=IF(%s=1,_xlfn.MAXIFS(%s,%s,\">\"&%s,%s,\"<=\"&IF(as_needed=1,MIN(%s+order_every,"
        "horizon_months),horizon_months)),0)",
        at(&p->rr, B_DELIVERY), ps, pm, D, pm, D);
    if (d == 0) {
        num_cell(b, ws, row, B_INSERVICE, 0, NULL);
        num_cell(b, ws, row, B_SOLD, 0, NULL);
    } else {
        gp_xlsx_formula(b, ws, row, B_INSERVICE, bv->in, NULL, "=SUMIFS(%s,%s,\">=\"&%s)", above_n,
                        above_x, D);
        gp_xlsx_formula(b, ws, row, B_SOLD, bv->sold, NULL, "=SUMIFS(%s,%s,%s)", above_n, above_x,
                        D);
    }
    const char *C = at(&p->rr, B_C), *IN = at(&p->rr, B_INSERVICE), *SO = at(&p->rr, B_SOLD);
    gp_xlsx_formula(b, ws, row, B_REFRESH, bv->refresh, NULL,
                    "=IF(%s=1,MIN(%s,MAX(0,%s-(%s-%s))),0)", at(&p->rr, B_DELIVERY), SO, C, IN, SO);
    gp_xlsx_formula(b, ws, row, B_NEW, bv->fresh, NULL, "=IF(%s=1,MAX(0,%s-(%s-%s)-%s),0)",
                    at(&p->rr, B_DELIVERY), C, IN, SO, at(&p->rr, B_REFRESH));
    /* Cached: the engine's servers delivered here. */
    int nd = 0;
    for (int i = 0; i < x->r->self.n_batches; i++)
        if (x->r->self.batches[i].index == d)
            nd += x->r->self.batches[i].servers;
    gp_xlsx_formula(b, ws, row, B_N, nd, NULL, "=%s+%s", at(&p->rr, B_REFRESH), at(&p->rr, B_NEW));
    gp_xlsx_formula(b, ws, row, B_X, bv->x, NULL,
                    "=IF(AND(refresh_months>0,%s+refresh_step<horizon_months),%s+refresh_step,"
                    "horizon_months)",
                    D, D);
    const char *N = at(&p->rr, B_N);
    if (d == 0)
        gp_xlsx_formula(b, ws, row, B_FIRST, bv->first, NULL, "=IF(%s>0,1,0)", N);
    else
        gp_xlsx_formula(b, ws, row, B_FIRST, bv->first, NULL, "=IF(AND(%s>0,SUM(%s)=0),1,0)", N,
                        above_n);
}

/* The bulk discount, prices, capex, the loan, maintenance, age and the value at exit. */
static void batch_row_money(brow *p) {
    wbctx *x = p->x;
    lxw_worksheet *ws = p->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    int d = p->d, row = p->row, R = p->R;
    const char *D = p->D;
    const char *N = at(&p->rr, B_N);
    const bat_vals *bv = &x->sv->b[d];
    if (s->n_tiers > 0)
        gp_xlsx_formula(b, ws, row, B_BETA, bv->beta, b->pct,
                        "=IF(%s>0,IFERROR(LOOKUP(%s,%s,%s),0),0)", N, N, x->tier_min, x->tier_pct);
    else
        gp_xlsx_formula(b, ws, row, B_BETA, bv->beta, b->pct, "=0*%s", N);
    gp_xlsx_formula(b, ws, row, B_UNIT, bv->unit, b->money,
                    "=server_price*price_factor*(1+hw_trend)^((%s-lead_time)/12)", D);
    const char *BE = at(&p->rr, B_BETA), *U = at(&p->rr, B_UNIT);
    gp_xlsx_formula(b, ws, row, B_HW, bv->hw, b->money, "=%s*%s*(1-%s)+%s*network_per_server", N, U,
                    BE, at(&p->rr, B_NEW));
    gp_xlsx_formula(b, ws, row, B_CAPEX, bv->capex, b->money, "=%s+IF(%s=1,fixed_capex,0)",
                    at(&p->rr, B_HW), at(&p->rr, B_FIRST));
    const char *CA = at(&p->rr, B_CAPEX);
    gp_xlsx_formula(b, ws, row, B_CASH, bv->cash, b->money, "=%s*(1-IF(loan=1,loan_fraction,0))",
                    CA);
    gp_xlsx_formula(b, ws, row, B_PRINCIPAL, bv->principal, b->money,
                    "=IF(loan=1,%s*loan_fraction,0)", CA);
    const char *L = at(&p->rr, B_PRINCIPAL);
    gp_xlsx_formula(
        b, ws, row, B_PAYMENT, bv->payment, b->money,
        "=IF(%s=0,0,IF(loan_apr=0,%s/loan_term,%s*(loan_apr/12)/(1-(1+loan_apr/12)^(-loan_"
        "term))))",
        L, L, L);
    gp_xlsx_formula(b, ws, row, B_LASTPAY, bv->lastpay, NULL, "=MIN(%s+loan_term,%s)", D,
                    at(&p->rr, B_X));
    const char *A = at(&p->rr, B_PAYMENT), *T = at(&p->rr, B_AGE);
    gp_xlsx_formula(
        b, ws, row, B_BALANCE, bv->balance, b->money,
        "=IF(AND(%s>0,loan_term>%s),IF(loan_apr=0,%s-%s*%s,%s*(1+loan_apr/12)^%s-%s*((1+loan_"
        "apr/12)^%s-1)/(loan_apr/12)),0)",
        L, T, L, A, T, L, T, A, T);
    gp_xlsx_formula(b, ws, row, B_MAINT, bv->maint, b->money, "=maintenance_pct*%s/12",
                    at(&p->rr, B_HW));
    gp_xlsx_formula(b, ws, row, B_AGE, bv->age, NULL, "=%s-%s", at(&p->rr, B_X), D);
    char pct[64];
    batch_range(x, pct, sizeof pct, B_PCT);
    gp_xlsx_formula(b, ws, row, B_SRVVAL, bv->srvval, b->money,
                    "=IF(%s=0,0,INDEX(%s,%s+1)*%s*%s*(1-%s)*(1+hw_trend)^((%s+lead_time)/12))", N,
                    pct, T, N, U, BE, T);
    char refr[64];
    batch_range(x, refr, sizeof refr, B_REFRESH);
    gp_xlsx_formula(b, ws, row, B_PASSED, bv->passed, NULL,
                    "=IF(%s<horizon_months,INDEX(%s,%s+1),0)", at(&p->rr, B_X), refr,
                    at(&p->rr, B_X));
    int v0 = B_GEN + 2 * x->n_gen;
    char v0n[8], vln[8];
    col_name(v0, v0n);
    col_name(v0 + x->n_gen - 1, vln);
    gp_xlsx_formula(b, ws, row, B_VALUE, bv->value, b->money, "=%s+SUM($%s%d:$%s%d)",
                    at(&p->rr, B_SRVVAL), v0n, R, vln, R);
}

/* pct(age d): the resale share at an age of d months. */
static void batch_row_pct(brow *p) {
    wbctx *x = p->x;
    lxw_worksheet *ws = p->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    int d = p->d, row = p->row;
    const char *D = p->D;
    const bat_vals *bv = &x->sv->b[d];
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
}

/* Network shares by generation k: delivered first at d - k * refresh_step; their counts,
 * the counts of older generations and their value leaving. */
static void batch_row_generations(brow *p) {
    wbctx *x = p->x;
    lxw_worksheet *ws = p->ws;
    book *b = x->b;
    int d = p->d, row = p->row, R = p->R;
    const char *D = p->D;
    char pct[64];
    batch_range(x, pct, sizeof pct, B_PCT);
    int g0 = B_GEN, c0 = B_GEN + x->n_gen, v0 = B_GEN + 2 * x->n_gen;
    const double *gen = &x->sv->gen[(size_t)d * x->n_gen],
                 *gcum = &x->sv->gcum[(size_t)d * x->n_gen],
                 *gval = &x->sv->gval[(size_t)d * x->n_gen];
    for (int k = 0; k < x->n_gen; k++) {
        if (k == 0) {
            gp_xlsx_formula(b, ws, row, g0, gen[0], NULL, "=%s", at(&p->rr, B_NEW));
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
            at(&p->rr, B_REFRESH), D, prev, prev, R - 1, D, at(&p->rr, B_REFRESH), older, older,
            R - 1, D);
    }
    for (int k = 0; k < x->n_gen; k++) {
        char a[8], z[8];
        col_name(g0 + k, a);
        col_name(g0 + x->n_gen - 1, z);
        gp_xlsx_formula(b, ws, row, c0 + k, gcum[k], NULL, "=SUM($%s%d:$%s%d)", a, R, z, R);
    }
    for (int k = 0; k < x->n_gen; k++) {
        p->rr.used = 0; /* pct, D and the buffers below outlive the ring otherwise */
        const char *cnt = at(&p->rr, g0 + k), *X = at(&p->rr, B_X);
        char older[32];
        if (k + 1 < x->n_gen)
            snprintf(older, sizeof older, "%s", at(&p->rr, c0 + k + 1));
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
            cnt, cnt, cnt, at(&p->rr, B_PASSED), older, pct, age, age);
    }
}

static void batch_row(wbctx *x, lxw_worksheet *ws, int d) {
    brow p = {.x = x, .ws = ws, .d = d, .row = d + 1, .R = d + 2, .rr = {.R = d + 2}};
    snprintf(p.D, sizeof p.D, "%s", at(&p.rr, B_D));
    batch_row_servers(&p);
    batch_row_money(&p);
    batch_row_pct(&p);
    batch_row_generations(&p);
}

void gp_xlsx_batches_sheet(wbctx *x, lxw_worksheet *ws) {
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
