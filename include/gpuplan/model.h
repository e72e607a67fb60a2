/* The cost model of MODEL.md, version 1: pure functions of a scenario.
 *
 * Nothing here allocates, does I/O or keeps state: results go into caller storage
 * (gp_result is large, about 130 KB, so keep it off small stacks). Inputs are assumed
 * valid (formats/scenario_json.h validates them); a NULL or out-of-range argument is a
 * programmer error. */
#ifndef GPUPLAN_MODEL_H
#define GPUPLAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"

typedef struct gp_breakdown {
    double capex, power, colo, demand_charge, maintenance, staff, other, interest, residual;
} gp_breakdown;

typedef struct gp_self_result {
    int servers;
    double bulk_pct; /* the discount tier applied, 0..1 */
    double hardware_capex, capex;
    double total, npv;
    bool has_cost_per_gpu_hour; /* false when nothing is busy (u = 0) */
    double cost_per_gpu_hour;
    double energy_kwh, co2_kg; /* whole horizon, facility side (PUE included) */
    double depreciation_per_year;
    double power_per_month, colo_per_month, demand_charge_per_month, peak_it_kw;
    double loan_principal, loan_payment; /* 0 when paid cash */
    gp_breakdown breakdown;
    double monthly[GP_MAX_MONTHS + 1]; /* F[0..M] */
} gp_self_result;

typedef struct gp_option_result {
    double total, npv;
    bool has_cost_per_gpu_hour;
    double cost_per_gpu_hour;
    double instance_hours_per_month; /* committed: every hour of every instance */
    int instances;                   /* R = ceil(N / g_i) */
    bool has_break_even_month;
    int break_even_month;
    bool has_payback_month;
    int payback_month;
    bool has_break_even_utilization;
    double break_even_utilization;
    bool has_break_even_hourly;
    double break_even_hourly;
    double monthly[GP_MAX_MONTHS + 1];
} gp_option_result;

typedef struct gp_result {
    int horizon_months;
    double demand_gpu_hours; /* Q * M */
    gp_self_result self;
    int n_options;
    gp_option_result options[GP_MAX_OPTIONS];
    int cheapest; /* -1: self-hosted; else an index into options */
} gp_result;

/* Evaluate every formula of MODEL.md for s, month by month, into *out. */
void gp_model_evaluate(const gp_scenario *s, gp_result *out);

/* The order in which shifted busy hours fill the tariff periods: order[0..n_periods) holds
 * period indices by ascending price, ties in the order given. */
void gp_model_fill_order(const gp_scenario *s, int *order);

/* Invariants of a scenario that the closed-form totals reuse between calls: the order of
 * tariff periods by price, the loan factors for the last horizon seen, and integer quotients.
 * Caller storage; call gp_model_cache_init again when period prices change order or the bulk
 * tiers change (everything else is keyed by its operands). */
typedef struct gp_model_cache {
    int order[GP_MAX_PERIODS];
    double loan_apr;
    int loan_n, loan_m;
    double loan_flow_per_principal; /* (payments within M + payoff at M) / L */
    /* Integer quotients memoised by their operands: a sweep changes them rarely, and integer
     * division is the slowest step of a grid point. */
    int srv_n, srv_g, servers;
    double bulk_pct;
    int inst_n[GP_MAX_OPTIONS], inst_g[GP_MAX_OPTIONS], instances[GP_MAX_OPTIONS];
    int term_m[GP_MAX_OPTIONS], term_t[GP_MAX_OPTIONS], upfronts[GP_MAX_OPTIONS];
} gp_model_cache;

void gp_model_cache_init(gp_model_cache *c, const gp_scenario *s);

/* The horizon totals of self-hosted and of every option, derived in closed form from the
 * same formulas (no walk over the months). Agrees with gp_model_evaluate to ~1e-12
 * relative. option_totals has room for s->n_options values. */
void gp_model_totals(const gp_scenario *s, gp_model_cache *c, double *self_total,
                     double *option_totals);

/* Self-hosted horizon total with demand replaced by gpus busy at utilization u (closed form);
 * 0 when gpus is 0. */
double gp_model_self_total(const gp_scenario *s, gp_model_cache *c, int gpus, double u);

/* Option o's horizon total when it serves q_gpu_hours busy GPU-hours a month for a demand of
 * gpus GPUs (which sizes committed capacity). */
double gp_model_option_total(const gp_scenario *s, const gp_option *o, int gpus,
                             double q_gpu_hours);

/* Mixed fleet (MODEL.md): own k GPUs, rent the overflow from option `option` (on_demand or
 * spot). busy_sorted[0..nt) holds b_t, the busy GPU count per bucket, sorted ascending.
 * curve has room for s->gpus + 1 totals; *best_k receives the optimum (ties: smaller k).
 * GP_E_INPUT when the option is committed, nt is 0 or a b_t is negative or unsorted. */
gp_status gp_model_mix(const gp_scenario *s, int option, const double *busy_sorted, size_t nt,
                       double *curve, int *best_k, gp_err *err);

#endif
