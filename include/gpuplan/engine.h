/* The cost model of docs/model.md, version 2 (plans over time): pure functions of a scenario.
 *
 * Nothing here allocates, does I/O or keeps state: results go into caller storage
 * (gp_result is large, about 460 KB, so keep it off the stack). Inputs are assumed valid
 * (formats/scenario_json.h validates them); a NULL or out-of-range argument is a programmer
 * error. What a valid scenario can still get wrong only by evaluating it (a month needing a
 * bridge it lacks, demand past 10,000,000 GPUs, a result that is not finite) is reported in
 * gp_result.error, GP_E_INPUT with the JSON path it concerns; the report writers refuse such a
 * result. */
#ifndef GPUPLAN_ENGINE_H
#define GPUPLAN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"

typedef struct gp_result gp_result;

typedef struct gp_breakdown {
    double capex, power, colo, demand_charge, maintenance, staff, other, interest, residual;
    double bridge; /* v2: the bridge's costs */
} gp_breakdown;

/* Batches at one delivery index d: d + 1 - d/12 at most (a refresh every 12 months or more
 * replaces each batch sold there with one), so 2,520 over 240 months. */
#define GP_MAX_BATCHES 2520

/* One batch of owned servers (docs/model.md "Servers and batches"). */
typedef struct gp_batch {
    int servers;       /* n_b */
    int index;         /* d_b, delivered and paid */
    int exit;          /* x_b: its sale index, or M */
    int network_index; /* delta_b */
    int passed_on;     /* k_b: network shares passed to its refresh batch */
    bool refresh;
    int replaces; /* a refresh batch: the batch it replaces; else -1 */
    double unit_price, bulk_pct, hardware_capex, capex, value;
} gp_batch;

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
    double loan_principal, loan_payment; /* the first batch's; 0 when paid cash */
    gp_breakdown breakdown;
    double monthly[GP_MAX_MONTHS + 1]; /* F[0..M] */
    /* version 2 */
    bool has_cost_per_work_unit;
    double cost_per_work_unit;
    double exit_value;                     /* sum of V_b with x_b = M, credited in F[M] */
    int servers_in_service[GP_MAX_MONTHS]; /* I_j, month 1 first */
    int gpus_at_work[GP_MAX_MONTHS];       /* G_j */
    double bridge_hours[GP_MAX_MONTHS];    /* Z^S_j, busy GPU-hours rented */
    double bridge_cost[GP_MAX_MONTHS];     /* the bridge's cost in month j */
    int n_batches;
    gp_batch batches[GP_MAX_BATCHES]; /* purchase order */
    int sale_order[GP_MAX_BATCHES];   /* batch indices by exit index, then purchase order */
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
    /* version 2 */
    bool has_cost_per_work_unit;
    double cost_per_work_unit;
    bool has_break_even_month_without_exit;
    int break_even_month_without_exit;
    bool has_payback_month_without_exit;
    int payback_month_without_exit;
    double burst;                      /* the burst's costs within total */
    double burst_hours[GP_MAX_MONTHS]; /* Z^o_j */
} gp_option_result;

struct gp_result {
    int horizon_months;
    gp_err error; /* GP_OK, or why this scenario has no report (see above) */
    bool work_mode;
    double demand_gpu_hours;        /* sum of W_j in GPU mode; 0 in work mode */
    double demand_work;             /* sum of W_j */
    int demand_gpus[GP_MAX_MONTHS]; /* N_j (GPU mode) */
    double demand_utilization[GP_MAX_MONTHS];
    double demand_work_month[GP_MAX_MONTHS]; /* W_j */
    gp_self_result self;
    int n_options;
    gp_option_result options[GP_MAX_OPTIONS];
    int cheapest; /* -1: self-hosted; else an index into options */
};

/* Two money amounts equal by the model's tie rule (docs/model.md "Rounding and ties"):
 * |a - b| <= 1e-9 * max(1, |a|, |b|). Every discrete decision between amounts uses it. */
bool gp_money_equal(double a, double b);

/* Evaluate every formula of docs/model.md for s, month by month, into *out; out->error says
 * whether the result may be reported. */
void gp_model_evaluate(const gp_scenario *s, gp_result *out);

/* A side's cost per busy GPU-hour and per unit of work, side -1 for self-hosted, else an
 * option index. In GPU mode the first is cost_per_gpu_hour and there is no second; in work mode
 * the first is total / sum_j Q^X_j (= cost_per_work_unit * rho_X, the GPU-mode definition
 * applied to the side's own busy hours), printed beside the second. False: no such figure. */
bool gp_result_cost_per_gpu_hour(const gp_scenario *s, const gp_result *r, int side, double *out);
bool gp_result_cost_per_work_unit(const gp_result *r, int side, double *out);

/* Self-hosted's and every option's horizon totals by the month-by-month engine, scratch
 * (caller storage) holding the rest of the result; NaN when scratch->error is set. */
void gp_model_totals_v2(const gp_scenario *s, gp_result *scratch, double *self_total,
                        double *option_totals);

/* The totals of a steady scenario (version 1: no version 2 key, every month alike), derived
 * from the engine's month formulas without a walk over the months: within ~1e-12 relative of
 * gp_model_evaluate's. NaN for a version 2 scenario. option_totals has room for s->n_options
 * values. */
void gp_model_steady_totals(const gp_scenario *s, double *self_total, double *option_totals);

/* Self-hosted's steady total with demand replaced by gpus busy at utilization u; 0 when gpus
 * is 0. */
double gp_model_self_total(const gp_scenario *s, int gpus, double u);

/* Option o's steady total when it serves q_gpu_hours busy GPU-hours a month for a demand of
 * gpus GPUs (which sizes committed capacity). */
double gp_model_option_total(const gp_scenario *s, const gp_option *o, int gpus,
                             double q_gpu_hours);

/* Mixed fleet (docs/model.md): own k GPUs, rent the overflow from option `option` (on_demand or
 * spot). busy_sorted[0..nt) holds b_t, the busy GPU count per bucket, sorted ascending.
 * curve has room for s->gpus + 1 totals; *best_k receives the optimum (ties: smaller k).
 * GP_E_INPUT when the option is committed, nt is 0 or a b_t is negative or unsorted. */
gp_status gp_model_mix(const gp_scenario *s, int option, const double *busy_sorted, size_t nt,
                       double *curve, int *best_k, gp_err *err);

#endif
