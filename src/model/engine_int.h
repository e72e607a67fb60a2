/* The engine's private entry points, shared by the files of src/model only: the model's
 * formulas, each written once (here or in engine.c); the steady state's totals derived from them
 * (engine_steady.c); the totals kept between a sweep's points (engine_totals). */
#ifndef GPUPLAN_ENGINE_INT_H
#define GPUPLAN_ENGINE_INT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/engine.h"

/* ---- the formulas, each once, docs/model.md's names in the comments ------------------ */

/* Inline here (the hot ones of a sweep) or in engine.c (the rest). */

/* order[0..n_periods): period indices by ascending price, ties in the order given (the order
 * shifted busy hours fill them in). */
void eng_fill_order(const gp_scenario *s, int *order);

/* beta: the bulk discount of an order of `servers` servers, 0..1. */
double eng_bulk_discount(const gp_scenario *s, int servers);

/* s_j: the servers a month wants for n GPUs, under max_servers. */
int eng_servers_wanted(const gp_scenario *s, double n);

/* A loan's payment per unit of principal; the balance after t payments a at monthly rate r,
 * grow_t = (1 + r)^t (unused when r is 0). */
double eng_loan_annuity(const gp_scenario *s);
double eng_loan_balance(double principal, double a, double r, int t, double grow_t);

/* max() without libm's call: every operand here is a number, never NaN. */
static inline double max2(double a, double b) {
    return a > b ? a : b;
}

/* ceil(), equal to it for every argument: in (0, 2^52), where every count is, by truncation
 * (exact there) in a few instructions, against the longer sequence ceil() compiles to on
 * x86-64 without SSE4.1. */
static inline double ceil_pos(double x) {
    if (x > 0.0 && x < 4503599627370496.0) {
        double t = (double)(long long)x;
        return t < x ? t + 1.0 : t;
    }
    return ceil(x);
}

/* phi: a spot option's hours stretched by its interruptions; 1 for another kind. */
static inline double spot_factor(const gp_option *o) {
    if (o->pricing != GP_SPOT)
        return 1.0;
    return 1.0 + o->interruptions_per_hour * (o->checkpoint_interval_h / 2.0 + o->restart_h);
}

/* An option's storage and egress a month. */
static inline double eng_extras(const gp_option *o) {
    return o->storage_gb * o->storage_per_gb_month + o->egress_gb_per_month * o->egress_per_gb;
}

/* d (pay-per-use flow) / d hourly for z busy GPU-hours in a month whose price trend factor is
 * tr (trend_table's entry for the month), extras aside. */
static inline double eng_pay_per_use_slope(const gp_option *o, double z, double tr) {
    return z / o->gpus_per_instance * (1.0 + o->idle_overhead) * spot_factor(o) * tr *
           (1.0 + o->support_pct);
}

/* A pay-per-use month's cost (on-demand, spot or per_unit; a bridge, a burst) at that slope. */
static inline double eng_pay_per_use_cost(const gp_option *o, double slope) {
    return slope * o->hourly + eng_extras(o);
}

/* A committed term of `instances` instances at locked price factor lock: its upfront fees,
 * and its instance-hours a month with support (times hourly for the month's fee). */
static inline double eng_term_upfront(const gp_option *o, double instances, double lock) {
    return instances * o->upfront * lock * (1.0 + o->support_pct);
}

static inline double eng_term_month(const gp_option *o, double instances, double lock) {
    return instances * GP_MONTH_HOURS * lock * (1.0 + o->support_pct);
}

/* R: instances of gpus_per_instance GPUs for `gpus` GPUs. */
static inline double eng_instances(double gpus, int gpus_per_instance) {
    return ceil_pos(gpus / gpus_per_instance);
}

/* A batch's hardware capex: servers * (unit * (1 - beta) + network per server). */
static inline double eng_hardware_capex(int servers, double unit, double beta, double net) {
    return servers * (unit * (1.0 - beta) + net);
}

/* V_b: the servers' share of their price and the network's, each times its price trend. */
static inline double eng_batch_value(double servers_share, double tr_servers, double network_share,
                                     double tr_network) {
    return servers_share * tr_servers + network_share * tr_network;
}

/* Maintenance a month once the warranty is over. */
static inline double eng_maintenance_month(const gp_scenario *s, double hardware_capex) {
    return s->maintenance_pct_per_year * hardware_capex / 12.0;
}

/* The demand charge at drawn peak k_draw kW (IT side) and energy trend factor tr_e. */
static inline double eng_demand_charge(const gp_scenario *s, double tr_e, double k_draw) {
    return s->demand_charge_per_kw_month * tr_e * k_draw * s->pue;
}

/* Self-hosted's running costs in one month. */
typedef struct eng_power {
    double power, energy, colo, charge;
    double power_untrended, k_draw; /* power is power_untrended * the energy trend */
} eng_power;

/* docs/model.md "Power and the tariff": the month's energy, its cost through the tariff periods
 * (busy hours shifted to the cheapest first when asked), colocation and the demand charge: at_work
 * GPUs in `powered` powered servers of in_service installed, q busy GPU-hours at utilization u,
 * energy trend factor tr_e; order from eng_fill_order. */
static inline void eng_self_power(const gp_scenario *s, const int *order, double at_work,
                                  double powered, double in_service, double q, double u,
                                  double tr_e, eng_power *r) {
    double gpu_w = s->has_gpu_avg_w ? s->gpu_avg_w : s->gpu_idle_w;
    double base_w = powered * s->server_base_w + at_work * gpu_w;
    double busy_inc = s->has_gpu_avg_w ? 0.0 : s->gpu_tdp_w - s->gpu_idle_w;
    double busy_day = s->has_gpu_avg_w ? 0.0 : q * 24.0 / GP_MONTH_HOURS; /* Y_j */
    double cost_wh = 0.0, wh = 0.0;
    if (!s->shift_to_cheapest || s->has_gpu_avg_w) {
        for (int k = 0; k < s->n_periods; k++) {
            double h = s->periods[k].hours_per_day;
            double e = base_w * h + busy_inc * busy_day * h / 24.0;
            cost_wh += e * s->periods[k].price_per_kwh;
            wh += e;
        }
    } else {
        double left = busy_day;
        for (int i = 0; i < s->n_periods; i++) {
            const gp_period *per = &s->periods[order[i]];
            double room = at_work * per->hours_per_day;
            double y = left < room ? left : room;
            left -= y;
            double e = base_w * per->hours_per_day + busy_inc * y;
            cost_wh += e * per->price_per_kwh;
            wh += e;
        }
    }
    const double kwh_month_per_wh_day = GP_MONTH_HOURS / 24.0 / 1000.0;
    r->power_untrended = s->pue * cost_wh * kwh_month_per_wh_day;
    r->power = r->power_untrended * tr_e;
    r->energy = s->pue * wh * kwh_month_per_wh_day;
    double peak_gpu_w = s->gpu_tdp_w;
    if (s->has_gpu_avg_w && s->gpu_avg_w > peak_gpu_w)
        peak_gpu_w = s->gpu_avg_w;
    double k_inst = (in_service * s->server_base_w + at_work * peak_gpu_w) / 1000.0;
    /* Nothing runs busy at u = 0: the drawn peak is the base load (K^draw). */
    r->k_draw =
        u > 0.0 ? (powered * s->server_base_w + at_work * peak_gpu_w) / 1000.0 : base_w / 1000.0;
    r->colo = s->colo_per_kw_month * k_inst;
    r->charge = eng_demand_charge(s, tr_e, r->k_draw);
}

/* The resale share of a batch's price after t months (the resale curve, or straight-line
 * depreciation to residual_pct, or residual_pct). */
static inline double eng_pct_at(const gp_scenario *s, double t) {
    if (s->n_resale > 0) {
        double a0 = 0.0, p0 = 1.0;
        for (int i = 0; i < s->n_resale; i++) {
            double a1 = s->resale[i].age_months, p1 = s->resale[i].pct;
            if (t <= a1)
                return p0 + (p1 - p0) * (t - a0) / (a1 - a0);
            a0 = a1;
            p0 = p1;
        }
        return p0;
    }
    if (s->buy == GP_BUY_AS_NEEDED || s->refresh_months > 0) {
        double end = 12.0 * s->depreciation_years;
        if (t >= end)
            return s->residual_pct;
        return 1.0 + (s->residual_pct - 1.0) * t / end;
    }
    return s->residual_pct;
}

/* ---- the steady state (engine_steady.c) ---------------------------------------------- */

/* A version 1 scenario is steady: every month alike, so its totals are the fixed flows plus
 * M months computed once by the formulas above, without a walk over the months. What such
 * totals reuse between a sweep's points: the order of tariff periods, the loan flows for the
 * last horizon and rate, and integer quotients memoised by their operands. Caller storage;
 * steady_cache_init again when period prices change order or the bulk tiers change. */
typedef struct steady_cache {
    int order[GP_MAX_PERIODS];
    double loan_apr;
    int loan_n, loan_m;
    double loan_flow_per_principal; /* (payments within M + balance paid at M) / L */
    int srv_n, srv_g, servers;
    double bulk_pct;
    int inst_n[GP_MAX_OPTIONS], inst_g[GP_MAX_OPTIONS];
    double instances[GP_MAX_OPTIONS];
    int term_m[GP_MAX_OPTIONS], term_t[GP_MAX_OPTIONS], upfronts[GP_MAX_OPTIONS];
    bool uses_v2; /* gp_scenario_uses_v2 at init, or as the caller last set it */
    /* Caller storage for a version 2 scenario, which is not steady: steady_totals evaluates it
     * month by month into this result; NULL gives NaN totals. */
    gp_result *scratch;
} steady_cache;

void steady_cache_init(steady_cache *c, const gp_scenario *s);

/* Self-hosted's and every option's horizon totals (option_totals has room for s->n_options);
 * within ~1e-12 relative of gp_model_evaluate. */
void steady_totals(const gp_scenario *s, steady_cache *c, double *self_total,
                   double *option_totals);

/* ---- totals kept between a sweep's points (engine.c) --------------------------------- */

/* What an engine_keep holds between calls, from the bottom up: the demand (engine_demand);
 * the plan (batches, servers in service, GPUs at work); the energy price trend by month; the
 * batches' prices with the fixed flows (capex, loans, sales, maintenance, staff); each month's
 * running costs, and their parts apart from the energy trend. */
typedef enum engine_redo {
    ENGINE_REDO_RUNNING = 1u << 0, /* tariff prices, PUE, the bridge's throughput */
    ENGINE_REDO_TREND = 1u << 1,   /* the energy price trend: power and demand charges */
    ENGINE_REDO_FIXED = 1u << 2,   /* server price and its trend */
    ENGINE_REDO_PLAN = 1u << 3,    /* lead time, cadence, cap: everything above */
    ENGINE_REDO_NEED = 1u << 4,    /* the demand or self-hosted's throughput: the plan too when
                                    * the GPUs it needs in some month change, else the running
                                    * costs */
    ENGINE_REDO_BRIDGE = 1u << 5   /* the bridge's prices (hourly, trend): its cost in the
                                    * months it is used */
} engine_redo;

/* What engine_totals computes: self-hosted's total, redone for the parts in redo (a set of
 * engine_redo bits), and option i's when bit i of options is set (i < 64 = GP_MAX_OPTIONS). */
typedef struct engine_want {
    bool self;
    unsigned redo;
    uint64_t options;
} engine_want;

/* The engine's state kept from one call to the next (about 40 KB). Owned by the caller:
 * engine_keep_new exits on OOM (xmem.h); engine_keep_free takes NULL; engine_keep_forget
 * drops what it holds (the next engine_demand then reports a change). */
typedef struct engine_keep engine_keep;
engine_keep *engine_keep_new(void);
void engine_keep_free(engine_keep *k);
void engine_keep_forget(engine_keep *k);

/* Build s's demand by month into k; true when it differs, in any bit, from the demand k held
 * (then self-hosted's total must be redone with ENGINE_REDO_NEED, and every option's), false when
 * it is the same. */
bool engine_demand(const gp_scenario *s, engine_keep *k);

/* The totals gp_model_evaluate would give for s (the same code, so the same bits), of those
 * asked for only, skipping everything else the report needs (break-even points, NPV, sales).
 * k must hold s's demand and what was computed for s outside want.redo (the first call after
 * engine_demand or engine_keep_forget: ENGINE_REDO_PLAN with self wanted). scratch holds the
 * batches. *max_want receives the most servers any month wants before max_servers caps it (self
 * only). Returns false, with the outputs undefined, whenever the full evaluation might refuse s or
 * give a number that is not finite: the caller then evaluates s in full (gp_model_totals_v2) for
 * the exact totals or error, and calls engine_keep_forget. */
bool engine_totals(const gp_scenario *s, gp_result *scratch, engine_keep *k, engine_want want,
                   double *self_total, double *option_totals, int *max_want);

#endif
