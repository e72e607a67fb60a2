/* The scenario: every input of the cost model (MODEL.md, "The scenario").
 *
 * A plain value struct with fixed-size arrays, so the model never allocates and a copy is a
 * memcpy. Parsing and validation live in formats/scenario_json.h; this header only holds the
 * types, their limits and the defaults. */
#ifndef GPUPLAN_SCENARIO_H
#define GPUPLAN_SCENARIO_H

#include <stdbool.h>

#define GP_MODEL_VERSION 1
#define GP_MAX_OPTIONS 64
#define GP_MAX_PERIODS 24
#define GP_MAX_TIERS 64
#define GP_MAX_MONTHS 240
/* 200 code points of UTF-8, four bytes each at most, plus the NUL. */
#define GP_NAME_BYTES 801
#define GP_CATALOG_BYTES 256
#define GP_MONTH_HOURS 730.0

typedef enum gp_pricing { GP_ON_DEMAND, GP_SPOT, GP_COMMITTED } gp_pricing;
typedef enum gp_purchase { GP_NO_UPFRONT, GP_PARTIAL_UPFRONT, GP_ALL_UPFRONT } gp_purchase;
typedef enum gp_financing_kind { GP_CASH, GP_LOAN } gp_financing_kind;

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
    double checkpoint_interval_h;
    double restart_h;
    double storage_gb, storage_per_gb_month;
    double egress_gb_per_month, egress_per_gb;
    double support_pct;
    bool has_catalog; /* hourly/upfront/gpus_per_instance come from the catalog */
    char catalog[GP_CATALOG_BYTES];
} gp_option;

typedef struct gp_scenario {
    char name[GP_NAME_BYTES];
    char currency[4];
    int horizon_months;
    double discount_rate;
    int gpus;           /* demand.gpus, N */
    double utilization; /* demand.utilization, u */

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

    /* self_hosted.financing */
    gp_financing_kind financing;
    double loan_apr;
    int loan_term_months;
    double loan_fraction;

    int n_options;
    gp_option options[GP_MAX_OPTIONS];
} gp_scenario;

/* Fill s with every default of MODEL.md; required fields are zero and must be set. */
void gp_scenario_defaults(gp_scenario *s);

/* Defaults for one cloud option (term 12 months, checkpoint every hour, ...). */
void gp_option_defaults(gp_option *o);

/* "on_demand", "spot", "committed". */
const char *gp_pricing_name(gp_pricing p);

/* The tariff's time-weighted mean price per kWh: sum of price x hours over 24. */
double gp_tariff_mean_price(const gp_scenario *s);

#endif
