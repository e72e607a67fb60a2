/* The scenario: every input of the cost model (docs/model.md, "The scenario").
 *
 * A plain value struct with fixed-size arrays, so the model never allocates and a copy is a
 * memcpy. Parsing and validation live in formats/scenario_json.h; this header only holds the
 * types, their limits and the defaults. */
#ifndef GPUPLAN_SCENARIO_H
#define GPUPLAN_SCENARIO_H

#include <stdbool.h>

#define GP_MODEL_VERSION 2
#define GP_MAX_OPTIONS 64
#define GP_MAX_PERIODS 24
#define GP_MAX_TIERS 64
#define GP_MAX_MONTHS 240
/* 200 code points of UTF-8, four bytes each at most, plus the NUL. */
#define GP_NAME_BYTES 801
#define GP_CATALOG_BYTES 256
#define GP_MONTH_HOURS 730.0
/* Steps stored: those with month <= M (at most M - 1 of them); later ones are validated and
 * dropped, as docs/model.md ignores them. */
#define GP_MAX_STEPS GP_MAX_MONTHS
#define GP_MAX_RESALE GP_MAX_MONTHS
/* docs/model.md's bound on every money field. */
#define GP_MONEY_MAX 1e12
/* 40 code points of UTF-8 plus the NUL. */
#define GP_UNIT_BYTES 161

/* GP_PER_UNIT (revision 2.1): an API billed per unit of the demand's work, work mode only. */
typedef enum gp_pricing { GP_ON_DEMAND, GP_SPOT, GP_COMMITTED, GP_PER_UNIT } gp_pricing;
typedef enum gp_purchase { GP_NO_UPFRONT, GP_PARTIAL_UPFRONT, GP_ALL_UPFRONT } gp_purchase;
typedef enum gp_financing_kind { GP_CASH, GP_LOAN } gp_financing_kind;
typedef enum gp_buy { GP_BUY_ALL_AT_ONCE, GP_BUY_AS_NEEDED } gp_buy;

/* One demand step (version 2): the keys it gives take effect from its month on. */
typedef struct gp_step {
    int month;
    bool has_gpus, has_work, has_utilization;
    int gpus;
    double work_per_month;
    double utilization;
} gp_step;

/* One point of the resale curve: the value share at an age. */
typedef struct gp_resale_point {
    int age_months;
    double pct;
} gp_resale_point;

typedef struct gp_period {
    char name[GP_NAME_BYTES];
    double hours_per_day;
    double price_per_kwh;
} gp_period;

typedef struct gp_bulk_tier {
    int min_servers;
    double pct;
} gp_bulk_tier;

typedef struct gp_option {
    char name[GP_NAME_BYTES];
    gp_pricing pricing;
    int gpus_per_instance;
    double hourly;  /* per instance-hour; committed: the recurring part */
    double upfront; /* per instance per term; committed only */
    int term_months;
    gp_purchase purchase;
    double idle_overhead;
    double interruptions_per_hour;
    bool has_interruptions_per_hour; /* set in the scenario: it wins over a catalog band */
    double checkpoint_interval_h;
    double restart_h;
    double storage_gb, storage_per_gb_month;
    double egress_gb_per_month, egress_per_gb;
    double support_pct;
    double price_trend_per_year; /* v2, tau_o */
    double work_per_gpu_hour;    /* v2, rho_o; 0 in GPU mode */
    bool has_base_gpus;          /* v2: committed base with a burst */
    int base_gpus;
    int burst;        /* v2: index of the burst option, -1 when none */
    bool has_catalog; /* hourly/upfront/gpus_per_instance come from the catalog */
    char catalog[GP_CATALOG_BYTES];
    /* per_unit (2.1): money a unit of work, a unit of input, input units a unit of work. The
     * engine evaluates it as on-demand with gpus_per_instance 1, work_per_gpu_hour 1, no idle
     * overhead and hourly = price_per_unit + input_units_per_unit * price_per_input_unit:
     * gp_option_per_unit_sync sets those from these three. */
    double price_per_unit, price_per_input_unit, input_units_per_unit;
} gp_option;

typedef struct gp_scenario {
    char name[GP_NAME_BYTES];
    char currency[4];
    int horizon_months;
    double discount_rate;
    bool has_start_date; /* v2; else months start on the report's as_of */
    char start_date[11];
    int gpus;           /* demand.gpus, N (GPU mode) */
    double utilization; /* demand.utilization, u */
    bool work_mode;     /* v2: demand.work_per_month given instead of gpus */
    double work_per_month;
    char work_unit[GP_UNIT_BYTES];
    double growth_per_month; /* v2, gamma */
    int n_steps;             /* v2: steps with month <= horizon_months, in month order */
    gp_step steps[GP_MAX_STEPS];

    /* self_hosted */
    int gpus_per_server;
    double server_price;
    double price_factor;
    int n_tiers;
    gp_bulk_tier tiers[GP_MAX_TIERS];
    double network_per_server;
    double fixed_capex;
    double residual_pct;
    int warranty_months;
    double maintenance_pct_per_year;
    double staff_per_month, other_per_month, colo_per_kw_month;
    double depreciation_years;
    double grid_kg_co2_per_kwh;
    /* self_hosted, version 2 */
    double server_price_trend_per_year; /* tau_h */
    gp_buy buy;
    int lead_time_months;   /* Lambda */
    int order_every_months; /* kappa */
    bool has_max_servers;
    int max_servers;
    int bridge;         /* index of the bridge option, -1 when none */
    int refresh_months; /* P, 0: never */
    int n_resale;       /* 0: no resale list */
    gp_resale_point resale[GP_MAX_RESALE];
    double work_per_gpu_hour; /* rho_S; 0 in GPU mode */

    /* self_hosted.power */
    double server_base_w, gpu_idle_w, gpu_tdp_w;
    bool has_gpu_avg_w;
    double gpu_avg_w;
    double pue;

    /* self_hosted.tariff */
    int n_periods;
    gp_period periods[GP_MAX_PERIODS];
    bool shift_to_cheapest;
    double demand_charge_per_kw_month;
    double energy_price_trend_per_year; /* v2, tau_e */

    /* self_hosted.financing */
    gp_financing_kind financing;
    double loan_apr;
    int loan_term_months;
    double loan_fraction;

    int n_options;
    gp_option options[GP_MAX_OPTIONS];
} gp_scenario;

/* Fill s with every default of docs/model.md; required fields are zero and must be set. */
void gp_scenario_defaults(gp_scenario *s);

/* Defaults for one cloud option (term 12 months, checkpoint every hour, ...). */
void gp_option_defaults(gp_option *o);

/* "on_demand", "spot", "committed", "per_unit". */
const char *gp_pricing_name(gp_pricing p);

/* A per_unit option's on-demand equivalents from its three prices (see gp_option); call it
 * whenever one of them changes. Nothing for another kind. */
void gp_option_per_unit_sync(gp_option *o);

/* The input part of a per_unit option's price a unit of work (input_units_per_unit *
 * price_per_input_unit); 0 for another kind. */
double gp_option_input_part(const gp_option *o);

/* True when s uses a version 2 key that can move a number (start_date only labels months):
 * the version 1 closed forms apply only to scenarios where this is false. */
bool gp_scenario_uses_v2(const gp_scenario *s);

/* A self_hosted running cost that docs/model.md defaults to 0: the one list of them, shared by the
 * draft's notes ("Not given, so 0: ...") and the report's Assumptions ("colocation: 0 — not
 * given"), so neither can forget one the other names. */
typedef struct gp_zero_cost {
    const char *label; /* "colocation" */
    const char *key;   /* its key in self_hosted: "colo_per_kw_month" */
} gp_zero_cost;

#define GP_N_ZERO_COSTS 5
extern const gp_zero_cost gp_zero_costs[GP_N_ZERO_COSTS];

/* The value of gp_zero_costs[i] in s (0 <= i < GP_N_ZERO_COSTS). */
double gp_zero_cost_value(const gp_scenario *s, int i);

/* The tariff's time-weighted mean price per kWh: sum of price x hours over 24. */
double gp_tariff_mean_price(const gp_scenario *s);

#endif
