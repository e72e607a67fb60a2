/* The Utilization sheet of the procurement workbook (hidden; GPU mode only): break-even
 * utilization as live formulas. */
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

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The Utilization sheet under way: the Plan's ranges, self-hosted's and each option's sums
 * (rows 1-3), the power formula of a break, and the answers found so far. */
typedef struct usheet {
    wbctx *x;
    lxw_worksheet *ws;
    int no, M;
    char mr[64], nr[64], gr[64];
    const opt_refs *bo;   /* the bridge's references; NULL without a bridge */
    const gp_option *bro; /* the bridge */
    double S_B, S_G, S_K, S_F, S_cnt, B1;
    double *oB, *oC, *oD; /* [no]: each option's constant, rented sum, burst months */
    int np, t0, R0;       /* breaks; the row of u = 0; its 1-based number */
    char power[8192];     /* power at utilization @U */
    char cheaper[64];     /* the Assumptions' cheaper-hours range */
    double before[GP_MAX_PERIODS], sorted[GP_MAX_PERIODS];
    double *dprev, *d0p, *ans, u_prev;
    bool *has_ans;
} usheet;

/* Row 1: self-hosted's sums. A: label; B: constant; C: S_B; D: S_G; E: S_Kbusy;
 * F: rented GPUs * trend (bridge); G: months with bridge hours. */
static void util_self_sums(usheet *us) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const char *mr = us->mr, *nr = us->nr, *gr = us->gr;
    const opt_refs *bo = us->bo;
    char br[64], pr[64];
    plan_range(x, br, sizeof br, c->base, false);
    plan_range(x, pr, sizeof pr, c->powered, false);
    char tre[128];
    snprintf(tre, sizeof tre, "(1+energy_trend)^((%s-1)/12)", mr);
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
    us->S_B = S_B, us->S_G = S_G, us->S_K = S_K, us->S_F = S_F, us->S_cnt = S_cnt, us->B1 = B1;
}

/* Row 3: each option's sums. B: constant (committed); C: sum of N (or rented by the burst)
 * x its trend; D: months with burst hours. */
static void util_option_sums(usheet *us) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const plan_cols *c = &x->c;
    const gp_result *r = x->r;
    int no = us->no, M = us->M;
    const char *mr = us->mr, *nr = us->nr;
    double *oB = us->oB, *oC = us->oC, *oD = us->oD;
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
}

/* The breaks' heads, the power formula at @U, and each period's cheaper hours (cached). */
static void util_break_heads(usheet *us) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    int no = us->no;
    us->np = 1 + (s->n_periods - 1) + 1, us->t0 = 5 + no, us->R0 = us->t0 + 1;
    int t0 = us->t0;
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
    range(us->cheaper, sizeof us->cheaper, "Assumptions", 4, x->cheaper_first, x->cheaper_last);
    snprintf(us->power, sizeof us->power, "pue*730/24/1000*(%s)", fsum);
    double *before = us->before, *sorted = us->sorted;
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
}

/* Row t0 + 1: the difference at 0+ (docs/model.md: the rented extras and the drawn peak's
 * busy draw, as at u = 1). */
static void util_zero_plus(usheet *us) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const opt_refs *bo = us->bo;
    const gp_option *bro = us->bro;
    int t0 = us->t0, R0 = us->R0;
    double S_cnt = us->S_cnt, S_K = us->S_K, S_B = us->S_B;
    text_cell(b, ws, t0 + 1, 0, "0+", NULL);
    for (int i = 0; i < us->no; i++) {
        const gp_option *o = &s->options[i];
        const char *bex = o->burst >= 0 ? x->o[o->burst].extras : "0";
        char dc[8];
        col_name(4 + 3 * i, dc);
        us->d0p[i] = us->dprev[i] + (bro ? extras_v(bro) : 0) * S_cnt -
                     (o->burst >= 0 ? extras_v(&s->options[o->burst]) : 0) * us->oD[i] +
                     s->demand_charge_per_kw_month * s->pue * (S_K - S_B / 1000);
        gp_xlsx_formula(b, ws, t0 + 1, 4 + 3 * i, us->d0p[i], b->money,
                        "=%s%d+%s*$G$2-%s*$D$%d+demand_charge*pue*($E$2-$C$2/1000)", dc, R0,
                        bo ? bo->extras : "0", bex, 5 + i);
    }
}

/* Break k's label and utilization u_k. */
static double util_break_u(usheet *us, int k, int row) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    int np = us->np;
    char label[32];
    if (k == 0 || k == np - 1)
        snprintf(label, sizeof label, "%s", k == 0 ? "0" : "1");
    else
        snprintf(label, sizeof label, "shift break %d", k);
    text_cell(b, ws, row, 0, label, NULL);
    double u = k == 0                                      ? 0
               : k == np - 1                               ? 1
               : s->shift_to_cheapest && !s->has_gpu_avg_w ? us->sorted[k] / 24
                                                           : 1;
    if (k == 0)
        num_cell(b, ws, row, 1, 0, NULL);
    else if (k == np - 1)
        num_cell(b, ws, row, 1, 1, NULL);
    else
        /* The k-th smallest of the periods' cheaper hours: the k cheapest periods' hours. */
        gp_xlsx_formula(b, ws, row, 1, u, NULL, "=IF(AND(shift=1,has_gpu_avg=0),SMALL(%s,%d)/24,1)",
                        us->cheaper, k + 1);
    return u;
}

/* Self-hosted's total at break k (utilization u in row R); returns its cached value. */
static double util_break_self(usheet *us, int k, int row, int R, double u) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    const opt_refs *bo = us->bo;
    const gp_option *bro = us->bro;
    double S_B = us->S_B, S_G = us->S_G, S_K = us->S_K, S_F = us->S_F, S_cnt = us->S_cnt,
           B1 = us->B1;
    char u_here[16], pw_k[8192];
    snprintf(u_here, sizeof u_here, "$B%d", R);
    subst(pw_k, sizeof pw_k, us->power, "@U", u_here);
    double fs = 0, extra = s->has_gpu_avg_w ? 0 : s->gpu_tdp_w - s->gpu_idle_w;
    for (int q = 0; q < s->n_periods; q++) {
        double hk = s->periods[q].hours_per_day;
        double y = s->shift_to_cheapest ? fmin(hk, fmax(0, 24 * u - us->before[q])) : hk * u;
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
        gp_xlsx_formula(b, ws, row, 2, self_t, b->money,
                        "=$B$2+%s+demand_charge*pue*$E$2+IF($G$2>0,$B%d*730*%s*%s*$F$2+%s*$G$2,0)",
                        pw_k, R, bo->per_gpu_h, bo->h[O_HOURLY], bo->extras);
    else
        gp_xlsx_formula(b, ws, row, 2, self_t, b->money, "=$B$2+%s+demand_charge*pue*$E$2", pw_k);
    return self_t;
}

/* Option i's total, difference and break-even so far at break k (row R, utilization u). */
static void util_break_option(usheet *us, int k, int row, int R, double u, double self_t, int i) {
    wbctx *x = us->x;
    lxw_worksheet *ws = us->ws;
    book *b = x->b;
    const gp_scenario *s = x->s;
    int M = us->M, t0 = us->t0, R0 = us->R0;
    const double *oB = us->oB, *oC = us->oC, *oD = us->oD;
    double *dprev = us->dprev, *ans = us->ans, u_prev = us->u_prev;
    bool *has_ans = us->has_ans;
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
                u * 730 * per_gpu_h_v(&s->options[o->burst]) * s->options[o->burst].hourly * oC[i] +
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
        return;
    }
    /* The answer so far, as the formula finds it. */
    double dp = k == 1 ? us->d0p[i] : dprev[i];
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
    snprintf(eq, sizeof eq, "ABS($C%d-%s%d)<=1E-9*MAX(1,ABS($C%d),ABS(%s%d))", R, tc, R, R, tc, R);
    char f[2048];
    snprintf(f, sizeof f,
             "=IF(%s%d<>\"\",%s%d,IF(%s,$B%d,IF((%s%d<0)<>(%s%d<0),$B%d+($B%d-$B%d)*%s%d/"
             "(%s%d-%s%d),\"\")))",
             rc, k == 1 ? R0 : R - 1, rc, k == 1 ? R0 : R - 1, eq, R, dc, P, dc, R,
             k == 1 ? R0 : R - 1, R, k == 1 ? R0 : R - 1, dc, P, dc, P, dc, R);
    maybe(b, ws, row, 5 + 3 * i, has_ans[i], ans[i], NULL, f);
}

/* Break-even utilization (docs/model.md), live: in GPU mode N_j, G_j, the batches and R_m do
 * not depend on the utilization u, so each side's total at u is a constant plus sums over the
 * Plan's months: power (linear in u on each segment between the shifting breaks), the drawn
 * peak's busy draw and the rented extras for u > 0, and the rented hours (linear). One row per
 * break u_k (0, the cumulative hours of the cheapest periods / 24 with shifting, 1), the totals
 * of every side there, then the first segment where they meet. Rows 1-3 hold the sums. */
void gp_xlsx_utilization_sheet(wbctx *x, lxw_worksheet *ws) {
    const gp_scenario *s = x->s;
    int no = s->n_options;
    usheet *us = gp_xcalloc(1, sizeof *us);
    us->x = x, us->ws = ws, us->no = no, us->M = x->M;
    plan_range(x, us->mr, sizeof us->mr, x->c.m, false);
    plan_range(x, us->nr, sizeof us->nr, x->c.n, false);
    plan_range(x, us->gr, sizeof us->gr, x->c.g, false);
    us->bo = s->bridge >= 0 ? &x->o[s->bridge] : NULL;
    us->bro = s->bridge >= 0 ? &s->options[s->bridge] : NULL;
    util_self_sums(us);
    us->oB = gp_xcalloc((size_t)no + 1, sizeof *us->oB);
    us->oC = gp_xcalloc((size_t)no + 1, sizeof *us->oC);
    us->oD = gp_xcalloc((size_t)no + 1, sizeof *us->oD);
    util_option_sums(us);
    /* The breaks, one row each: u, self-hosted's total, then each option's total, the
     * difference and the result so far. Row t0 is u = 0, row t0 + 1 the difference at 0+. */
    util_break_heads(us);
    us->dprev = gp_xcalloc((size_t)no + 1, sizeof *us->dprev);
    us->d0p = gp_xcalloc((size_t)no + 1, sizeof *us->d0p);
    us->ans = gp_xcalloc((size_t)no + 1, sizeof *us->ans);
    us->has_ans = gp_xcalloc((size_t)no + 1, sizeof *us->has_ans);
    int last_row = 0;
    for (int k = 0; k < us->np; k++) {
        int row = k == 0 ? us->t0 : us->t0 + 1 + k, R = row + 1;
        if (k == 1)
            util_zero_plus(us);
        double u = util_break_u(us, k, row);
        double self_t = util_break_self(us, k, row, R, u);
        for (int i = 0; i < no; i++)
            util_break_option(us, k, row, R, u, self_t, i);
        us->u_prev = u;
        last_row = row;
    }
    x->u_last_row = last_row;
    x->u_first_row = us->t0;
    free(us->oB);
    free(us->oC);
    free(us->oD);
    free(us->dprev);
    free(us->d0p);
    free(us->ans);
    free(us->has_ans);
    free(us);
    worksheet_set_column(ws, 0, 0, 20, NULL);
    worksheet_set_column(ws, 1, 3 + 3 * no, 16, NULL);
    finish_sheet(ws, true, -1);
    worksheet_hide(ws);
}
