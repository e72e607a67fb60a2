/* The steady state: a version 1 scenario (no version 2 key) has every month alike, so its
 * horizon totals are its fixed flows plus M months, each month computed once by the engine's
 * own formulas (engine_int.h) rather than walked month by month. The fast path of sweeps, the
 * mixed fleet and the TUI's curves; a randomised test holds it to gp_model_evaluate. */
#include <math.h>
#include <string.h>

#include "engine_int.h"
#include "gpuplan/engine.h"

void steady_cache_init(steady_cache *c, const gp_scenario *s) {
    memset(c, 0, sizeof *c); /* every memo key 0: no gpus or terms are 0, so all miss */
    eng_fill_order(s, c->order);
    c->uses_v2 = gp_scenario_uses_v2(s);
    c->loan_n = -1;
}

/* (payments within m + the balance paid at m) per unit of principal: one batch bought at 0
 * and sold at m (engine.c, self_fixed_flows). */
static double loan_flows_per_principal(const gp_scenario *s, steady_cache *c, int m) {
    if (c->loan_n != s->loan_term_months || c->loan_m != m || c->loan_apr != s->loan_apr) {
        int term = s->loan_term_months;
        double r = s->loan_apr / 12.0, a = eng_loan_annuity(s);
        int paid = term < m ? term : m;
        double balance = term > m ? eng_loan_balance(1.0, a, r, m, pow(1.0 + r, m)) : 0.0;
        c->loan_flow_per_principal = a * paid + balance;
        c->loan_n = term;
        c->loan_m = m;
        c->loan_apr = s->loan_apr;
    }
    return c->loan_flow_per_principal;
}

/* Self-hosted's total with n GPUs busy at u (no steps, no growth: one batch of every server,
 * bought at 0 and sold at M). */
static double self_total(const gp_scenario *s, steady_cache *c, int n, double u) {
    int g = s->gpus_per_server;
    if (c->srv_n != n || c->srv_g != g) { /* integer quotients are a sweep's slowest step */
        c->srv_n = n;
        c->srv_g = g;
        c->servers = eng_servers_wanted(s, n);
        c->bulk_pct = eng_bulk_discount(s, c->servers);
    }
    int servers = c->servers, m = s->horizon_months;
    double unit = s->server_price * s->price_factor, beta = c->bulk_pct;
    double hw = eng_hardware_capex(servers, unit, beta, s->network_per_server);
    double capex = hw + s->fixed_capex;
    double pct = eng_pct_at(s, m);
    double value = eng_batch_value(pct * servers * unit * (1.0 - beta), 1.0,
                                   pct * servers * s->network_per_server, 1.0);
    eng_power p;
    eng_self_power(s, c->order, n, servers, servers, n * GP_MONTH_HOURS * u, u, 1.0, &p);
    double total = capex;
    if (s->financing == GP_LOAN) {
        double principal = capex * s->loan_fraction;
        total = capex - principal + principal * loan_flows_per_principal(s, c, m);
    }
    int maint_months = m > s->warranty_months ? m - s->warranty_months : 0;
    return total + m * (p.power + p.colo + p.charge + s->staff_per_month + s->other_per_month) +
           maint_months * eng_maintenance_month(s, hw) - value;
}

/* Option o's total serving q busy GPU-hours a month for n GPUs (which size committed
 * capacity); slot: o's index for the memo in c, or -1. */
static double option_total(const gp_option *o, steady_cache *c, int slot, int n, double q, int m) {
    if (o->pricing != GP_COMMITTED)
        return m * eng_pay_per_use_cost(o, eng_pay_per_use_slope(o, q, 1.0));
    int gi = o->gpus_per_instance, t = o->term_months, inside;
    double instances;
    if (slot < 0) {
        instances = eng_instances(n, gi);
        inside = (m - 1) / t;
    } else {
        if (c->inst_n[slot] != n || c->inst_g[slot] != gi) {
            c->inst_n[slot] = n;
            c->inst_g[slot] = gi;
            c->instances[slot] = eng_instances(n, gi);
        }
        if (c->term_m[slot] != m || c->term_t[slot] != t) {
            c->term_m[slot] = m;
            c->term_t[slot] = t;
            c->upfronts[slot] = (m - 1) / t;
        }
        instances = c->instances[slot];
        inside = c->upfronts[slot];
    }
    /* Terms start at 0, t, 2t, ... below M; the last is paid to its end. */
    int after = inside * t + t > m ? inside * t + t - m : 0;
    double extras = eng_extras(o);
    double per_month = eng_term_month(o, instances, 1.0) * o->hourly;
    return eng_term_upfront(o, instances, 1.0) * (1.0 + inside) + m * (per_month + extras) +
           after * per_month;
}

void steady_totals(const gp_scenario *s, steady_cache *c, double *self, double *option_totals) {
    if (c->uses_v2) {
        if (c->scratch) {
            gp_model_totals_v2(s, c->scratch, self, option_totals);
        } else {
            *self = NAN;
            for (int i = 0; i < s->n_options; i++)
                option_totals[i] = NAN;
        }
        return;
    }
    int n = s->gpus;
    double u = s->utilization;
    *self = self_total(s, c, n, u);
    double q = n * GP_MONTH_HOURS * u;
    for (int i = 0; i < s->n_options; i++)
        option_totals[i] = option_total(&s->options[i], c, i, n, q, s->horizon_months);
}

void gp_model_steady_totals(const gp_scenario *s, double *self, double *option_totals) {
    steady_cache c;
    steady_cache_init(&c, s);
    steady_totals(s, &c, self, option_totals);
}

double gp_model_self_total(const gp_scenario *s, int gpus, double u) {
    if (gpus <= 0)
        return 0.0;
    steady_cache c;
    steady_cache_init(&c, s);
    return self_total(s, &c, gpus, u);
}

double gp_model_option_total(const gp_scenario *s, const gp_option *o, int gpus,
                             double q_gpu_hours) {
    return option_total(o, NULL, -1, gpus, q_gpu_hours, s->horizon_months);
}

/* ---- mixed fleet ---------------------------------------------------------------------- */

gp_status gp_model_mix(const gp_scenario *s, int option, const double *busy_sorted, size_t nt,
                       double *curve, int *best_k, gp_err *err) {
    if (option < 0 || option >= s->n_options)
        return gp_errorf(err, GP_E_INPUT, NULL, "no option %d in the scenario", option);
    const gp_option *o = &s->options[option];
    if (o->pricing == GP_COMMITTED)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "option \"%s\" is committed; the mix rents on-demand or spot", o->name);
    if (nt == 0)
        return gp_errorf(err, GP_E_INPUT, NULL, "the load duration curve is empty");
    if (s->work_mode)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "the mixed fleet counts GPUs; it is not defined in work mode");
    double total_busy = 0.0;
    for (size_t t = 0; t < nt; t++) {
        if (!(busy_sorted[t] >= 0.0) || (t > 0 && busy_sorted[t] < busy_sorted[t - 1]))
            return gp_errorf(err, GP_E_INPUT, NULL,
                             "busy GPU counts must be >= 0 and sorted ascending");
        total_busy += busy_sorted[t];
    }
    steady_cache c;
    steady_cache_init(&c, s);
    size_t below = 0;       /* buckets with b_t < k */
    double sum_below = 0.0; /* sum of those b_t */
    double best = 0.0;
    for (int k = 0; k <= s->gpus; k++) {
        while (below < nt && busy_sorted[below] < k) {
            sum_below += busy_sorted[below];
            below++;
        }
        double above = (double)(nt - below);
        double owned_busy = (sum_below + k * above) / nt;            /* mean min(b_t, k) */
        double overflow = (total_busy - sum_below - k * above) / nt; /* mean max(b_t - k, 0) */
        if (overflow < 0.0)
            overflow = 0.0;
        double self = k > 0 ? self_total(s, &c, k, owned_busy / k) : 0.0;
        double q = GP_MONTH_HOURS * overflow;
        double rent = q > 0.0 ? gp_model_option_total(s, o, s->gpus, q) : 0.0;
        curve[k] = self + rent;
        if (k == 0 || curve[k] < best)
            best = curve[k];
    }
    /* The smallest k whose total equals the lowest (docs/model.md, Ties). */
    for (int k = 0; k <= s->gpus; k++) {
        if (gp_money_equal(curve[k], best)) {
            *best_k = k;
            break;
        }
    }
    return GP_OK;
}
