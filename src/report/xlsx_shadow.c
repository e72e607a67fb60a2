/* The cached values of the Plan and Batches sheets: what each formula computes, worked out here
 * the way the formula does it from the same inputs, so a reader that does not recalculate
 * (previews, pandas, openpyxl, Excel in manual mode) sees the figures LibreOffice would
 * (tests/xlsx/check_cached.py). */
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

static double ceil_plus_v(double v) {
    return -floor(-(v - 1e-9 * fmax(1.0, v)));
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

/* Plan's demand side first: Batches read the servers wanted. */
static void shadow_demand(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int M = x->M;
    double g = s->gpus_per_server;
    for (int m = 1; m <= M; m++) {
        int j = m - 1;
        plan_vals *p = &v->p[m];
        double U = r->demand_utilization[j], W = r->demand_work_month[j];
        double QS = s->work_mode ? W / s->work_per_gpu_hour : W;
        p->ns = s->work_mode ? (W == 0 ? 0 : ceil_plus_v(QS / (730 * U))) : r->demand_gpus[j];
        double want = ceil(p->ns / g);
        p->s = s->has_max_servers && s->max_servers > 0 ? fmin(s->max_servers, want) : want;
    }
}

/* Batches, row by row (only rows above are read). */
static void shadow_batches(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    int M = x->M;
    bool loan = s->financing == GP_LOAN;
    double lf = loan ? s->loan_fraction : 0, apr = s->loan_apr, term = s->loan_term_months;
    int every = s->order_every_months, lead = s->lead_time_months;
    int step = s->refresh_months > 0 ? (s->refresh_months + every - 1) / every * every : 0;
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
}

/* What a later Batches row decides: servers' value at exit, shares passed on, each
 * network generation's count and value. */
static void shadow_exit_values(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    int M = x->M;
    int G = x->n_gen;
    int every = s->order_every_months, lead = s->lead_time_months;
    int step = s->refresh_months > 0 ? (s->refresh_months + every - 1) / every * every : 0;
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
}

/* The rest of Plan, months 1..M: hours, power, peaks, colocation, maintenance, payments, the
 * bridge's slope. */
static void shadow_plan_costs(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int M = x->M;
    double g = s->gpus_per_server;
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
}

/* At index m: capex, settlements, sales. */
static void shadow_settlements(wbctx *x, shadow *v) {
    int M = x->M;
    for (int m = 0; m <= M; m++) { /* at index m: capex, settlements, sales */
        plan_vals *p = &v->p[m];
        for (int d = 0; d <= M; d++) {
            const bat_vals *b = &v->b[d];
            p->capex += d == m ? b->cash : 0;
            p->balance += b->x == m ? b->balance : 0;
            p->sales -= m < M && b->x == m ? b->value : 0;
        }
    }
}

/* Each option's helper columns. */
static void shadow_options(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
    const gp_result *r = x->r;
    int M = x->M;
    int no = s->n_options;
    size_t rows = (size_t)M + 1;
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

void gp_xlsx_shadow_build(wbctx *x, shadow *v) {
    const gp_scenario *s = x->s;
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
    shadow_demand(x, v);
    shadow_batches(x, v);
    shadow_exit_values(x, v);
    shadow_plan_costs(x, v);
    shadow_settlements(x, v);
    shadow_options(x, v);
}

void gp_xlsx_shadow_free(shadow *v) {
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
