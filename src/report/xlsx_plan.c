/* The Plan sheet of the procurement workbook: its column layout, then one row per index
 * m = 0..M (demand, servers, power, the bridge, every side's flow and running sum) and the
 * totals row. Formulas follow docs/model.md term by term. */
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

void gp_xlsx_plan_layout(const gp_scenario *s, plan_cols *c) {
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

/* The pay-per-use flow (with_hourly) or its slope in hourly of option o for busy GPU-hours z
 * (an expression) in month A. */
static void pay_per_use(char *out, size_t cap, const opt_refs *o, const char *z, const char *A,
                        bool with_hourly) {
    snprintf(out, cap, "%s*%s*%s*(1+%s)^((%s-1)/12)", z, o->per_gpu_h,
             with_hourly ? o->h[O_HOURLY] : "1", o->h[O_TREND], A);
}

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

/* One row of the Plan sheet under way: index m (0 = the start, else the close of month m), its
 * references, and the Batches ranges its sums read. */
typedef struct prow {
    wbctx *x;
    lxw_worksheet *ws;
    int m, row, R;
    rowref rr;
    char A[16];
    char bn[64], ba[64], bx[64], bcash[64], bpay[64], blast[64], bbal[64], bval[64], bmaint[64];
} prow;

/* A formula cell of p's row (plan_cell there), and a plain number. */
static void pcell(prow *p, int col, double cached, lxw_format *f, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void pcell(prow *p, int col, double cached, lxw_format *f, const char *fmt, ...) {
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    plan_cell(p->x, p->ws, p->row, col, cached, f, "%s", text);
}

static void pnum(prow *p, int col, double v, lxw_format *f) {
    num_cell(p->x->b, p->ws, p->row, col, v, f);
}

/* The index's dates and what the Batches deliver, sell and pay at it. */
static void plan_row_batches(prow *p) {

    wbctx *x = p->x;
    book *b = x->b;
    const plan_cols *c = &x->c;
    const gp_self_result *sr = &x->r->self;
    const plan_vals *pv = &x->sv->p[p->m];
    const char *A = p->A;
    int m = p->m, M = x->M;
    const char *bn = p->bn, *ba = p->ba, *bx = p->bx, *bcash = p->bcash, *bbal = p->bbal,
               *bval = p->bval;
    pnum(p, c->m, m, NULL);
    /* Cached as EDATE computes them, for viewers that do not recalculate. */
    int mi = x->start_year * 12 + x->start_month - 1 + (m > 0 ? m - 1 : 0);
    int my = mi / 12, mm = mi % 12 + 1;
    pcell(p, c->date, month_serial(my, mm, x->start_day), b->month,
          "=EDATE(start_date,MAX(%s,1)-1)", A);
    pcell(p, c->year, my, NULL, "=YEAR(%s)", at(&p->rr, c->date));
    pcell(p, c->fy, my + (x->fiscal_start > 1 && mm >= x->fiscal_start), NULL,
          "=YEAR(%s)+IF(AND(fiscal_start>1,MONTH(%s)>=fiscal_start),1,0)", at(&p->rr, c->date),
          at(&p->rr, c->date));
    int bought = 0, sold = 0;
    for (int i = 0; i < sr->n_batches; i++) {
        bought += sr->batches[i].index == m ? sr->batches[i].servers : 0;
        sold += sr->batches[i].exit == m ? sr->batches[i].servers : 0;
    }
    pcell(p, c->bought, bought, NULL, "=SUMIFS(%s,%s,%s)", bn, ba, A);
    pcell(p, c->sold, sold, NULL, "=SUMIFS(%s,%s,%s)", bn, bx, A);
    pcell(p, c->capex, pv->capex, b->money, "=SUMIFS(%s,%s,%s)", bcash, ba, A);
    pcell(p, c->balance, pv->balance, b->money, "=SUMIFS(%s,%s,%s)", bbal, bx, A);
    pcell(p, c->sales, pv->sales, b->money, "=IF(%s<horizon_months,-SUMIFS(%s,%s,%s),0)", A, bval,
          bx, A);
    pcell(p, c->exit, m == M ? -sr->exit_value : 0, b->money,
          "=IF(%s=horizon_months,-SUMIFS(%s,%s,%s),0)", A, bval, bx, A);
}

/* Demand and the servers that meet it: months 1..M. */
static void plan_row_demand(prow *p) {
    wbctx *x = p->x;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const gp_self_result *sr = &x->r->self;
    const plan_vals *pv = &x->sv->p[p->m];
    const char *A = p->A;
    const gp_result *r = x->r;
    int m = p->m, R = p->R;
    const char *bn = p->bn, *ba = p->ba, *bx = p->bx;
    char t[2048], t2[2048];
    int j = m - 1;
    char U[16];
    snprintf(U, sizeof U, "%s", at(&p->rr, c->u));
    if (c->raw >= 0) {
        const char *start = s->work_mode ? "work_per_month" : "gpus";
        pcell(p, c->raw, s->work_mode ? r->demand_work_month[j] : r->demand_gpus[j], b->num,
              "=IF(COUNTIFS(%s,%s,%s,\">=0\")>0,SUMIFS(%s,%s,%s),%s)", x->steps_month, A,
              x->steps_val, x->steps_val, x->steps_month, A,
              m == 1 ? start : at_row(&p->rr, c->raw, R - 1));
        pcell(p, c->u, r->demand_utilization[j], b->pct,
              "=IF(COUNTIFS(%s,%s,%s,\">=0\")>0,SUMIFS(%s,%s,%s),%s)", x->steps_month, A,
              x->steps_u, x->steps_u, x->steps_month, A,
              m == 1 ? "utilization" : at_row(&p->rr, c->u, R - 1));
    } else {
        pcell(p, c->u, r->demand_utilization[j], b->pct, "=utilization");
    }
    const char *base = c->raw >= 0 ? at(&p->rr, c->raw) : s->work_mode ? "work_per_month" : "gpus";
    snprintf(t2, sizeof t2, "%s*(1+growth)^(%s-1)", base, A);
    if (!s->work_mode) {
        ceil_plus(t, sizeof t, t2);
        pcell(p, c->n, r->demand_gpus[j], NULL, "=%s", t);
        pcell(p, c->w, r->demand_work_month[j], b->num, "=%s*730*%s", at(&p->rr, c->n), U);
    } else {
        pcell(p, c->w, r->demand_work_month[j], b->num, "=%s", t2);
        pcell(p, c->qs, r->demand_work_month[j] / s->work_per_gpu_hour, b->num, "=%s/rho_s",
              at(&p->rr, c->w));
        snprintf(t2, sizeof t2, "%s/(730*%s)", at(&p->rr, c->qs), U);
        ceil_plus(t, sizeof t, t2);
        pcell(p, c->ns, pv->ns, NULL, "=IF(%s=0,0,%s)", at(&p->rr, c->w), t);
    }
    const char *NS = at(&p->rr, c->ns), *QS = at(&p->rr, c->qs);
    pcell(p, c->s, pv->s, NULL,
          "=IF(max_servers>0,MIN(max_servers,ROUNDUP(%s/gpus_per_server,0)),ROUNDUP(%s/gpus_"
          "per_server,0))",
          NS, NS);
    pcell(p, c->inservice, sr->servers_in_service[j], NULL, "=SUMIFS(%s,%s,\"<\"&%s,%s,\">=\"&%s)",
          bn, ba, A, bx, A);
    pcell(p, c->g, sr->gpus_at_work[j], NULL, "=MIN(%s,%s*gpus_per_server)", NS,
          at(&p->rr, c->inservice));
    const char *G = at(&p->rr, c->g);
    pcell(p, c->q, pv->q, b->num, "=MIN(%s,%s*730*%s)", QS, G, U);
    const char *Q = at(&p->rr, c->q);
    const char *rho_b = s->work_mode && s->bridge >= 0 ? x->o[s->bridge].h[O_RHO] : "1";
    if (c->z >= 0)
        pcell(p, c->z, sr->bridge_hours[j], b->num,
              "=IF(%s-%s<=1E-9*MAX(%s,730*%s),0,(%s-%s)*%s/%s)", QS, Q, QS, U, QS, Q,
              s->work_mode ? "rho_s" : "1", rho_b);
}

/* Power, the self-hosted running costs and the bridge: months 1..M. */
static void plan_row_costs(prow *p) {
    wbctx *x = p->x;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const gp_self_result *sr = &x->r->self;
    const plan_vals *pv = &x->sv->p[p->m];
    const char *A = p->A;
    int j = p->m - 1;
    const char *ba = p->ba, *bx = p->bx, *bmaint = p->bmaint, *bpay = p->bpay, *blast = p->blast;
    char t[2048];
    const char *U = at(&p->rr, c->u), *G = at(&p->rr, c->g), *Q = at(&p->rr, c->q);
    pcell(p, c->powered, pv->powered, NULL, "=ROUNDUP(%s/gpus_per_server,0)", G);
    pcell(p, c->base, pv->base, b->num,
          "=%s*server_base_w+%s*IF(has_gpu_avg=1,gpu_avg_w,gpu_idle_w)", at(&p->rr, c->powered), G);
    pcell(p, c->busy, pv->busy, b->num, "=IF(has_gpu_avg=1,0,%s*24/730)", Q);
    for (int k = 0; k < s->n_periods; k++) {
        char hk[64], before[64];
        ref(hk, sizeof hk, "Assumptions", x->ph[k], 1);
        ref(before, sizeof before, "Assumptions", x->ph[k], 4);
        pcell(p, c->y0 + k, pv->y[k], b->num, "=IF(shift=1,MIN(%s*%s,MAX(0,%s-%s*%s)),%s*%s/24)", G,
              hk, at(&p->rr, c->busy), G, before, at(&p->rr, c->busy), hk);
    }
    char e_sum[4096] = "0", c_sum[4096] = "0";
    for (int k = 0; k < s->n_periods; k++) {
        char hk[64], pk[64];
        ref(hk, sizeof hk, "Assumptions", x->ph[k], 1);
        ref(pk, sizeof pk, "Assumptions", x->pp[k], 1);
        size_t n1 = strlen(e_sum), n2 = strlen(c_sum);
        snprintf(e_sum + n1, sizeof e_sum - n1,
                 "+(%s*%s+IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)*%s)", at(&p->rr, c->base), hk,
                 at(&p->rr, c->y0 + k));
        snprintf(c_sum + n2, sizeof c_sum - n2,
                 "+(%s*%s+IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)*%s)*%s", at(&p->rr, c->base), hk,
                 at(&p->rr, c->y0 + k), pk);
    }
    pcell(p, c->kwh, pv->kwh, b->num, "=pue*(%s)*730/24/1000", e_sum);
    pcell(p, c->power, pv->power, b->money, "=pue*(%s)*730/24/1000*(1+energy_trend)^((%s-1)/12)",
          c_sum, A);
    pcell(p, c->kinst, pv->kinst, b->num,
          "=(%s*server_base_w+%s*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/1000",
          at(&p->rr, c->inservice), G);
    pcell(p, c->kdraw, pv->kdraw, b->num,
          "=IF(%s>0,(%s*server_base_w+%s*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/1000,%s/"
          "1000)",
          U, at(&p->rr, c->powered), G, at(&p->rr, c->base));
    pcell(p, c->colo, pv->colo, b->money, "=colo_per_kw_month*%s", at(&p->rr, c->kinst));
    pcell(p, c->charge, pv->charge, b->money, "=demand_charge*(1+energy_trend)^((%s-1)/12)*%s*pue",
          A, at(&p->rr, c->kdraw));
    pcell(p, c->maint, pv->maint, b->money,
          "=SUMIFS(%s,%s,\"<\"&(%s-warranty_months),%s,\">=\"&%s)", bmaint, ba, A, bx, A);
    pcell(p, c->staff, s->staff_per_month, b->money, "=staff_per_month");
    pcell(p, c->other, s->other_per_month, b->money, "=other_per_month");
    if (c->bridge >= 0) {
        const opt_refs *bo = &x->o[s->bridge];
        const char *Z = at(&p->rr, c->z);
        pay_per_use(t, sizeof t, bo, Z, A, true);
        pcell(p, c->bridge, sr->bridge_cost[j], b->money, "=IF(%s>0,%s+%s,0)", Z, t, bo->extras);
        pay_per_use(t, sizeof t, bo, Z, A, false);
        pcell(p, c->bslope, pv->bslope, b->num, "=IF(%s>0,%s,0)", Z, t);
    }
    pcell(p, c->pay, pv->pay, b->money, "=SUMIFS(%s,%s,\"<\"&%s,%s,\">=\"&%s)", bpay, ba, A, blast,
          A);
}

/* Self-hosted's flow, running sum and running sum with the exit value. */
static void plan_row_self(prow *p, double *cum_self) {
    wbctx *x = p->x;
    book *b = x->b;
    const plan_cols *c = &x->c;
    const gp_self_result *sr = &x->r->self;
    int m = p->m, R = p->R, M = x->M;
    char fl[8], ll[8];
    col_name(c->power, fl);
    col_name(c->exit, ll);
    /* The flow: power .. exit value (kWh and peaks are not money; they sit before power). */
    *cum_self += sr->monthly[m];
    pcell(p, c->flow, sr->monthly[m], b->money, "=SUM($%s%d:$%s%d)", fl, R, ll, R);
    if (m == 0)
        pcell(p, c->cum, *cum_self, b->money, "=%s", at(&p->rr, c->flow));
    else
        pcell(p, c->cum, *cum_self, b->money, "=%s+%s", at_row(&p->rr, c->cum, R - 1),
              at(&p->rr, c->flow));
    pcell(p, c->cumx, *cum_self + (m == M ? sr->exit_value : 0), b->money, "=%s-%s",
          at(&p->rr, c->cum), at(&p->rr, c->exit));
}

/* A committed option's columns: instances needed and held, the burst, the flow and its slope. */
static void plan_row_committed(prow *p, int i) {
    wbctx *x = p->x;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const char *A = p->A;
    const gp_option *o = &s->options[i];
    const opt_refs *orf = &x->o[i];
    const opt_cols *oc = &c->o[i];
    const gp_option_result *orr = &x->r->options[i];
    int m = p->m, R = p->R;
    size_t rows = (size_t)x->M + 1;
    char t[2048], t2[2048];
    const char *QO = at(&p->rr, oc->q);
    const char *T = orf->h[O_TERM], *g = orf->h[O_G], *sup = orf->h[O_SUPPORT],
               *tr = orf->h[O_TREND], *hourly = orf->h[O_HOURLY];
    char ts[256];
    snprintf(ts, sizeof ts, "(%s*INT((%s-1)/%s))", T, A, T);
    if (m > 0) {
        char need[1024];
        if (s->work_mode) {
            snprintf(t2, sizeof t2, "%s/(730*%s)", QO, at(&p->rr, c->u));
            ceil_plus(t, sizeof t, t2);
            snprintf(need, sizeof need, "IF(%s=0,0,%s)", at(&p->rr, c->w), t);
        } else {
            snprintf(need, sizeof need, "%s", at(&p->rr, c->n));
        }
        pcell(p, oc->need, x->sv->oneed[(size_t)i * rows + (size_t)m], NULL, "=ROUNDUP(%s/%s,0)",
              need, g);
        char nr[64];
        plan_range(x, nr, sizeof nr, oc->need, false);
        char mr[64];
        plan_range(x, mr, sizeof mr, c->m, false);
        if (o->has_base_gpus)
            pcell(p, oc->inst, x->sv->oinst[(size_t)i * rows + (size_t)m], NULL,
                  "=ROUNDUP(%s/%s,0)", orf->h[O_BASE], g);
        else
            pcell(p, oc->inst, x->sv->oinst[(size_t)i * rows + (size_t)m], NULL,
                  "=_xlfn.MAXIFS(%s,%s,\">\"&%s,%s,\"<=\"&MIN(%s+%s,horizon_months))", nr, mr, ts,
                  mr, ts, T);
    }
    const char *I = at(&p->rr, oc->inst);
    char burst[2048] = "0";
    if (m > 0 && o->has_base_gpus) {
        snprintf(t2, sizeof t2, "MIN(%s,%s*%s*730*%s)", QO, I, g, at(&p->rr, c->u));
        const char *rho_o = s->work_mode ? orf->h[O_RHO] : "1";
        const char *rho_b = s->work_mode && o->burst >= 0 ? x->o[o->burst].h[O_RHO] : "1";
        pcell(p, oc->z, orr->burst_hours[m - 1], b->num,
              "=IF(%s-%s<=1E-9*MAX(%s,730*%s),0,(%s-%s)*%s/%s)", QO, t2, QO, at(&p->rr, c->u), QO,
              t2, rho_o, rho_b);
        if (o->burst >= 0) {
            const opt_refs *bo = &x->o[o->burst];
            pay_per_use(t, sizeof t, bo, at(&p->rr, oc->z), A, true);
            pcell(p, oc->burst, x->sv->oburst[(size_t)i * rows + (size_t)m], b->money,
                  "=IF(%s>0,%s+%s,0)", at(&p->rr, oc->z), t, bo->extras);
        } else {
            pnum(p, oc->burst, 0, b->money);
        }
        snprintf(burst, sizeof burst, "%s", at(&p->rr, oc->burst));
    }
    char upfront[1024];
    snprintf(upfront, sizeof upfront,
             "IF(AND(MOD(%s,%s)=0,%s<horizon_months),%s*%s*(1+%s)^(%s/12)*(1+%s),0)", A, T, A,
             at_row(&p->rr, oc->inst, R + 1), orf->h[O_UPFRONT], tr, A, sup);
    if (m == 0) {
        pcell(p, oc->flow, orr->monthly[0], b->money, "=%s", upfront);
        pnum(p, oc->slope, 0, b->num);
    } else {
        char month_rate[512];
        snprintf(month_rate, sizeof month_rate, "%s*730*(1+%s)^(%s/12)*(1+%s)", I, tr, ts, sup);
        pcell(p, oc->flow, orr->monthly[m], b->money,
              "=%s+%s*%s+%s+%s+IF(%s=horizon_months,MAX(0,%s+%s-horizon_months)*%s*%s,0)", upfront,
              month_rate, hourly, orf->extras, burst, A, ts, T, month_rate, hourly);
        pcell(p, oc->slope, x->sv->oslope[(size_t)i * rows + (size_t)m], b->num,
              "=%s+IF(%s=horizon_months,MAX(0,%s+%s-horizon_months)*%s,0)", month_rate, A, ts, T,
              month_rate);
    }
}

/* Option i's break-even tests in this row. */
static void plan_row_ties(prow *p, int i, double cum_self, const double *cum_opt) {
    wbctx *x = p->x;
    const plan_cols *c = &x->c;
    const gp_self_result *sr = &x->r->self;
    const opt_cols *oc = &c->o[i];
    int m = p->m, R = p->R, M = x->M;
    char t[2048];
    /* Break-even tests (docs/model.md Results, Ties): differed so far (2.1: level months are
     * no break-even), counts and behind, with and without the exit value; cached as the
     * engine's sums give them. */
    for (int wx = 0; wx < 2; wx++) {
        const char *cs = at(&p->rr, wx ? c->cumx : c->cum), *co = at(&p->rr, oc->cum);
        int dif = wx ? oc->difx : oc->dif;
        double vs = cum_self + (wx && m == M ? sr->exit_value : 0.0), vo = cum_opt[i];
        bool tie = gp_money_equal(vs, vo);
        bool ok = vs < vo || tie;
        bool zero = fabs(vs) <= 1e-9 && fabs(vo) <= 1e-9;
        bool *differed = &x->differed[wx][i];
        *differed = (m > 0 && *differed) || !tie;
        char eq[512];
        snprintf(eq, sizeof eq, "ABS(%s-%s)<=1E-9*MAX(1,ABS(%s),ABS(%s))", cs, co, cs, co);
        if (m == 0)
            pcell(p, dif, *differed, NULL, "=IF(%s,0,1)", eq);
        else
            pcell(p, dif, *differed, NULL, "=IF(OR(%s=1,NOT(%s)),1,0)", at_row(&p->rr, dif, R - 1),
                  eq);
        snprintf(t, sizeof t, "OR(%s<%s,%s)", cs, co, eq);
        pcell(p, wx ? oc->cntx : oc->cnt, ok && *differed && !zero, NULL,
              "=IF(AND(%s,%s=1,NOT(AND(ABS(%s)<=1E-9,ABS(%s)<=1E-9))),1,0)", t, at(&p->rr, dif), cs,
              co);
        pcell(p, wx ? oc->behx : oc->beh, !ok, NULL, "=IF(%s,0,1)", t);
    }
}

/* Option i's columns in this row: its flow and running sum, then the break-even tests. */
static void plan_row_option(prow *p, int i, double cum_self, double *cum_opt) {
    wbctx *x = p->x;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const char *A = p->A;
    int m = p->m, R = p->R;
    size_t rows = (size_t)x->M + 1;
    char t[2048];
    const gp_option_result *orr = &x->r->options[i];
    const gp_option *o = &s->options[i];
    const opt_refs *orf = &x->o[i];
    const opt_cols *oc = &c->o[i];
    if (m > 0 && s->work_mode)
        pcell(p, oc->q, x->sv->oq[(size_t)i * rows + (size_t)m], b->num, "=%s/%s", at(&p->rr, c->w),
              orf->h[O_RHO]);
    const char *QO = at(&p->rr, oc->q);
    if (o->pricing != GP_COMMITTED) {
        if (m == 0) {
            pnum(p, oc->flow, 0, b->money);
            pnum(p, oc->slope, 0, b->num);
        } else {
            pay_per_use(t, sizeof t, orf, QO, A, true);
            pcell(p, oc->flow, orr->monthly[m], b->money, "=%s+%s", t, orf->extras);
            pay_per_use(t, sizeof t, orf, QO, A, false);
            pcell(p, oc->slope, x->sv->oslope[(size_t)i * rows + (size_t)m], b->num, "=%s", t);
        }
    } else {
        plan_row_committed(p, i);
    }
    cum_opt[i] += orr->monthly[m];
    if (m == 0)
        pcell(p, oc->cum, cum_opt[i], b->money, "=%s", at(&p->rr, oc->flow));
    else
        pcell(p, oc->cum, cum_opt[i], b->money, "=%s+%s", at_row(&p->rr, oc->cum, R - 1),
              at(&p->rr, oc->flow));
    plan_row_ties(p, i, cum_self, cum_opt);
}

/* One row of the Plan sheet: index m (0 = the start, else the close of month m). */
static void plan_row(wbctx *x, lxw_worksheet *ws, int m, double *cum_self, double *cum_opt) {
    prow p = {.x = x, .ws = ws, .m = m, .row = m + 1, .R = m + 2, .rr = {.R = m + 2}};
    snprintf(p.A, sizeof p.A, "%s", at(&p.rr, x->c.m));
    batch_range(x, p.bn, sizeof p.bn, B_N);
    batch_range(x, p.ba, sizeof p.ba, B_D);
    batch_range(x, p.bx, sizeof p.bx, B_X);
    batch_range(x, p.bcash, sizeof p.bcash, B_CASH);
    batch_range(x, p.bpay, sizeof p.bpay, B_PAYMENT);
    batch_range(x, p.blast, sizeof p.blast, B_LASTPAY);
    batch_range(x, p.bbal, sizeof p.bbal, B_BALANCE);
    batch_range(x, p.bval, sizeof p.bval, B_VALUE);
    batch_range(x, p.bmaint, sizeof p.bmaint, B_MAINT);
    plan_row_batches(&p);
    if (m > 0) {
        plan_row_demand(&p);
        plan_row_costs(&p);
    }
    plan_row_self(&p, cum_self);
    for (int i = 0; i < x->s->n_options; i++)
        plan_row_option(&p, i, *cum_self, cum_opt);
}

/* Option i's column heads: its name, then what each column holds. */
static void plan_option_heads(const gp_scenario *s, const plan_cols *c, int i, const char **head,
                              char (*names)[GP_NAME_BYTES + 48]) {
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

/* The head row: what each column holds. */
static void plan_heads(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
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
    for (int i = 0; i < s->n_options; i++)
        plan_option_heads(s, c, i, head, names);
    worksheet_set_row(ws, 0, 60, NULL);
    for (int k = 0; k < c->n_cols; k++)
        text_cell(b, ws, 0, k, head[k] ? head[k] : "", b->head);
    free(names);
    free(head);
}

/* Totals of the money columns and every side's flow; NPV under them. */
static void plan_totals(wbctx *x, lxw_worksheet *ws) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    int M = x->M;
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
}

void gp_xlsx_plan_sheet(wbctx *x, lxw_worksheet *ws) {
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    int M = x->M;
    plan_heads(x, ws);
    double cum_self = 0, *cum_opt = gp_xcalloc((size_t)(s->n_options + 1), sizeof *cum_opt);
    for (int m = 0; m <= M; m++)
        plan_row(x, ws, m, &cum_self, cum_opt);
    free(cum_opt);
    plan_totals(x, ws);
    lxw_row_col_options hidden = {.hidden = 1};
    for (int i = 0; i < s->n_options; i++)
        worksheet_set_column_opt(ws, (lxw_col_t)c->o[i].dif, (lxw_col_t)c->o[i].behx, 8, NULL,
                                 &hidden);
    worksheet_set_column(ws, 0, 0, 6, NULL);
    worksheet_set_column(ws, 1, 1, 10, NULL);
    worksheet_set_column(ws, 2, 3, 6, NULL);
    worksheet_freeze_panes(ws, 1, 2);
    finish_sheet(ws, true, 0);
}
