/* The closed forms of docs/model.md for a version 1 scenario (one steady state: no version 2 key),
 * the fast path of sweeps and the mixed fleet; the month-by-month engine (engine.c) holds the
 * general case and gp_model_evaluate. Both follow the same formulas: a randomized test holds
 * them together. */
#include "gpuplan/model.h"

#include <math.h>
#include <string.h>

/* ---- self-hosted pieces ------------------------------------------------------------- */

typedef struct self_parts {
    int servers;
    double bulk_pct;
    double hardware_capex, capex;
    double power_month;  /* P */
    double energy_month; /* E, kWh at the facility */
    double peak_it_kw;   /* K */
    double colo_month, demand_month;
    double maint_month; /* from month warranty_months + 1 on */
} self_parts;

void gp_model_fill_order(const gp_scenario *s, int *order) {
    /* Ascending price, ties in the order given: a stable insertion sort over <= 24 items. */
    for (int i = 0; i < s->n_periods; i++) {
        int j = i;
        while (j > 0 && s->periods[order[j - 1]].price_per_kwh > s->periods[i].price_per_kwh) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

static double bulk_discount(const gp_scenario *s, int servers) {
    int best = 0;
    double pct = 0.0;
    for (int i = 0; i < s->n_tiers; i++) {
        if (s->tiers[i].min_servers <= servers && s->tiers[i].min_servers > best) {
            best = s->tiers[i].min_servers;
            pct = s->tiers[i].pct;
        }
    }
    return pct;
}

static void self_compute(const gp_scenario *s, gp_model_cache *c, int n, double u, self_parts *p) {
    const int *order = c->order;
    int g = s->gpus_per_server;
    if (c->srv_n != n || c->srv_g != g) {
        c->srv_n = n;
        c->srv_g = g;
        c->servers = (n + g - 1) / g;
        c->bulk_pct = bulk_discount(s, c->servers);
    }
    p->servers = c->servers;
    double S = p->servers;
    p->bulk_pct = c->bulk_pct;
    p->hardware_capex =
        S * s->server_price * s->price_factor * (1.0 - p->bulk_pct) + S * s->network_per_server;
    p->capex = p->hardware_capex + s->fixed_capex;

    double base_w, busy_inc_w;
    if (s->has_gpu_avg_w) {
        base_w = S * s->server_base_w + n * s->gpu_avg_w;
        busy_inc_w = 0.0;
    } else {
        base_w = S * s->server_base_w + n * s->gpu_idle_w;
        busy_inc_w = s->gpu_tdp_w - s->gpu_idle_w;
    }
    double busy_per_day = 24.0 * n * u; /* Y */
    /* Daily Wh per period, e_k * 1000, summed with and without its price: one division at the
     * end rather than one per period (this is the hot path of a sweep). */
    double cost_wh = 0.0, wh = 0.0;
    if (s->has_gpu_avg_w || !s->shift_to_cheapest) {
        double busy_per_hour = s->has_gpu_avg_w ? 0.0 : (double)n * u; /* y_k / h_k = Y / 24 */
        for (int k = 0; k < s->n_periods; k++) {
            double h = s->periods[k].hours_per_day;
            double e = base_w * h + busy_inc_w * busy_per_hour * h;
            cost_wh += e * s->periods[k].price_per_kwh;
            wh += e;
        }
    } else {
        double left = busy_per_day;
        for (int i = 0; i < s->n_periods; i++) {
            const gp_period *per = &s->periods[order[i]];
            double room = n * per->hours_per_day;
            double y = left < room ? left : room;
            left -= y;
            double e = base_w * per->hours_per_day + busy_inc_w * y;
            cost_wh += e * per->price_per_kwh;
            wh += e;
        }
    }
    /* Wh a day -> kWh a month: * 730 / 24 / 1000, folded into one constant. */
    const double kwh_month_per_wh_day = GP_MONTH_HOURS / 24.0 / 1000.0;
    p->power_month = s->pue * cost_wh * kwh_month_per_wh_day;
    p->energy_month = s->pue * wh * kwh_month_per_wh_day;

    double gpu_peak_w = s->gpu_tdp_w;
    if (s->has_gpu_avg_w && s->gpu_avg_w > gpu_peak_w)
        gpu_peak_w = s->gpu_avg_w;
    p->peak_it_kw = (S * s->server_base_w + n * gpu_peak_w) * 1e-3;
    p->colo_month = s->colo_per_kw_month * p->peak_it_kw;
    /* Nothing runs busy at u = 0: the drawn peak is the base load (docs/model.md, K^draw). */
    double drawn_kw = u > 0.0 ? p->peak_it_kw : base_w * 1e-3;
    p->demand_month = s->demand_charge_per_kw_month * drawn_kw * s->pue;
    p->maint_month = s->maintenance_pct_per_year * p->hardware_capex * (1.0 / 12.0);
}

/* Monthly payment per unit of principal, and the payoff at M per unit of principal. */
static void loan_factors(double apr, int n, int m, double *pay, double *payoff) {
    double r = apr / 12.0;
    if (r == 0.0) {
        *pay = 1.0 / n;
        *payoff = n > m ? 1.0 - *pay * m : 0.0;
        return;
    }
    *pay = r / (1.0 - pow(1.0 + r, -n));
    if (n > m) {
        double grow = pow(1.0 + r, m);
        *payoff = grow - *pay * (grow - 1.0) / r;
    } else {
        *payoff = 0.0;
    }
}

/* ---- cloud option pieces ------------------------------------------------------------- */

typedef struct option_parts {
    int instances;       /* R */
    double inst_hours;   /* I per month */
    double compute;      /* per month, before support */
    double recurring;    /* compute * (1 + support) */
    double extras;       /* storage and egress per month */
    double upfront_each; /* R * upfront, committed only */
    int upfronts_inside; /* upfronts at m = T, 2T, ... below M */
    int months_after;    /* committed months still owed after M */
} option_parts;

/* slot: the option's index for the memo in c, or -1 (no memo). */
static void option_compute(const gp_option *o, gp_model_cache *c, int slot, int n, double q,
                           int horizon, option_parts *p) {
    int gi = o->gpus_per_instance;
    if (slot < 0) {
        p->instances = (n + gi - 1) / gi;
    } else {
        if (c->inst_n[slot] != n || c->inst_g[slot] != gi) {
            c->inst_n[slot] = n;
            c->inst_g[slot] = gi;
            c->instances[slot] = (n + gi - 1) / gi;
        }
        p->instances = c->instances[slot];
    }
    p->extras = o->storage_gb * o->storage_per_gb_month + o->egress_gb_per_month * o->egress_per_gb;
    p->inst_hours = 0.0;
    p->upfront_each = 0.0;
    p->upfronts_inside = 0;
    p->months_after = 0;
    switch (o->pricing) {
    case GP_ON_DEMAND:
        p->inst_hours = q / gi * (1.0 + o->idle_overhead);
        break;
    case GP_SPOT:
        p->inst_hours =
            q / gi * (1.0 + o->idle_overhead) *
            (1.0 + o->interruptions_per_hour * (o->checkpoint_interval_h / 2.0 + o->restart_h));
        break;
    case GP_COMMITTED: {
        p->inst_hours = p->instances * GP_MONTH_HOURS;
        p->upfront_each = p->instances * o->upfront * (1.0 + o->support_pct);
        int t = o->term_months;
        if (slot < 0) {
            p->upfronts_inside = (horizon - 1) / t;
        } else {
            if (c->term_m[slot] != horizon || c->term_t[slot] != t) {
                c->term_m[slot] = horizon;
                c->term_t[slot] = t;
                c->upfronts[slot] = (horizon - 1) / t;
            }
            p->upfronts_inside = c->upfronts[slot];
        }
        int last_start = p->upfronts_inside * t;
        p->months_after = last_start + t > horizon ? last_start + t - horizon : 0;
        break;
    }
    }
    p->compute = p->inst_hours * o->hourly;
    p->recurring = p->compute * (1.0 + o->support_pct);
}

static double option_total_parts(const option_parts *p, int horizon) {
    return p->upfront_each * (1.0 + p->upfronts_inside) + horizon * (p->recurring + p->extras) +
           p->months_after * p->recurring;
}

/* ---- closed-form totals --------------------------------------------------------------- */

void gp_model_cache_init(gp_model_cache *c, const gp_scenario *s) {
    memset(c, 0, sizeof *c); /* every memo key 0: no gpus or terms are 0, so all miss */
    gp_model_fill_order(s, c->order);
    c->uses_v2 = gp_scenario_uses_v2(s);
    c->loan_n = -1;
}

static double loan_flows_per_principal(const gp_scenario *s, gp_model_cache *c, int m) {
    if (c->loan_n != s->loan_term_months || c->loan_m != m || c->loan_apr != s->loan_apr) {
        double pay, payoff;
        loan_factors(s->loan_apr, s->loan_term_months, m, &pay, &payoff);
        int paid = s->loan_term_months < m ? s->loan_term_months : m;
        c->loan_flow_per_principal = pay * paid + payoff;
        c->loan_n = s->loan_term_months;
        c->loan_m = m;
        c->loan_apr = s->loan_apr;
    }
    return c->loan_flow_per_principal;
}

static double self_total_parts(const gp_scenario *s, gp_model_cache *c, const self_parts *p) {
    int m = s->horizon_months;
    double total;
    if (s->financing == GP_LOAN) {
        double principal = p->capex * s->loan_fraction;
        total = p->capex * (1.0 - s->loan_fraction) + principal * loan_flows_per_principal(s, c, m);
    } else {
        total = p->capex;
    }
    int maint_months = m > s->warranty_months ? m - s->warranty_months : 0;
    total += m * (p->power_month + p->colo_month + p->demand_month + s->staff_per_month +
                  s->other_per_month) +
             maint_months * p->maint_month - s->residual_pct * p->hardware_capex;
    return total;
}

double gp_model_self_total(const gp_scenario *s, gp_model_cache *c, int gpus, double u) {
    if (gpus <= 0)
        return 0.0;
    self_parts p;
    self_compute(s, c, gpus, u, &p);
    return self_total_parts(s, c, &p);
}

double gp_model_option_total(const gp_scenario *s, const gp_option *o, int gpus,
                             double q_gpu_hours) {
    option_parts p;
    option_compute(o, NULL, -1, gpus, q_gpu_hours, s->horizon_months, &p);
    return option_total_parts(&p, s->horizon_months);
}

void gp_model_totals(const gp_scenario *s, gp_model_cache *c, double *self_total,
                     double *option_totals) {
    if (c->uses_v2) {
        if (c->scratch) {
            gp_model_totals_v2(s, c->scratch, self_total, option_totals);
        } else {
            *self_total = NAN;
            for (int i = 0; i < s->n_options; i++)
                option_totals[i] = NAN;
        }
        return;
    }
    int n = s->gpus;
    double u = s->utilization;
    *self_total = gp_model_self_total(s, c, n, u);
    double q = n * GP_MONTH_HOURS * u;
    for (int i = 0; i < s->n_options; i++) {
        option_parts p;
        option_compute(&s->options[i], c, i, n, q, s->horizon_months, &p);
        option_totals[i] = option_total_parts(&p, s->horizon_months);
    }
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
    gp_model_cache c;
    gp_model_cache_init(&c, s);
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
        double self = k > 0 ? gp_model_self_total(s, &c, k, owned_busy / k) : 0.0;
        double q = GP_MONTH_HOURS * overflow;
        double rent = q > 0.0 ? gp_model_option_total(s, o, s->gpus, q) : 0.0;
        curve[k] = self + rent;
        if (k == 0 || curve[k] < best)
            best = curve[k];
    }
    /* The smallest k whose total equals the lowest (docs/model.md, Ties). */
    for (int k = 0; k <= s->gpus; k++) {
        if (fabs(curve[k] - best) <= 1e-9 * fmax(1.0, fmax(fabs(curve[k]), fabs(best)))) {
            *best_k = k;
            break;
        }
    }
    return GP_OK;
}
