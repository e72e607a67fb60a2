#include "gpuplan/scenario.h"

#include <stdio.h>
#include <string.h>

void gp_option_defaults(gp_option *o) {
    memset(o, 0, sizeof *o);
    o->pricing = GP_ON_DEMAND;
    o->term_months = 12;
    o->purchase = GP_NO_UPFRONT;
    o->checkpoint_interval_h = 1.0;
    o->burst = -1;
}

void gp_scenario_defaults(gp_scenario *s) {
    memset(s, 0, sizeof *s);
    memcpy(s->currency, "USD", 4);
    s->gpus_per_server = 8;
    s->price_factor = 1.0;
    s->depreciation_years = 5.0;
    s->pue = 1.0;
    s->n_periods = 1;
    snprintf(s->periods[0].name, sizeof s->periods[0].name, "flat");
    s->periods[0].hours_per_day = 24.0;
    s->periods[0].price_per_kwh = 0.12;
    s->financing = GP_CASH;
    s->loan_fraction = 1.0;
    snprintf(s->work_unit, sizeof s->work_unit, "unit");
    s->buy = GP_BUY_ALL_AT_ONCE;
    s->order_every_months = 1;
    s->bridge = -1;
}

bool gp_scenario_uses_v2(const gp_scenario *s) {
    if (s->work_mode || s->growth_per_month != 0.0 || s->n_steps > 0 ||
        s->server_price_trend_per_year != 0.0 || s->buy != GP_BUY_ALL_AT_ONCE ||
        s->lead_time_months != 0 || s->order_every_months != 1 || s->has_max_servers ||
        s->bridge >= 0 || s->refresh_months != 0 || s->n_resale > 0 ||
        s->energy_price_trend_per_year != 0.0)
        return true;
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        if (o->price_trend_per_year != 0.0 || o->has_base_gpus || o->burst >= 0)
            return true;
    }
    return false;
}

const gp_zero_cost gp_zero_costs[GP_N_ZERO_COSTS] = {
    {"colocation", "colo_per_kw_month"},
    {"staff", "staff_per_month"},
    {"maintenance after the warranty", "maintenance_pct_per_year"},
    {"network", "network_per_server"},
    {"other running costs", "other_per_month"},
};

double gp_zero_cost_value(const gp_scenario *s, int i) {
    switch (i) {
    case 0:
        return s->colo_per_kw_month;
    case 1:
        return s->staff_per_month;
    case 2:
        return s->maintenance_pct_per_year;
    case 3:
        return s->network_per_server;
    default:
        return s->other_per_month;
    }
}

double gp_tariff_mean_price(const gp_scenario *s) {
    double v = 0.0;
    for (int k = 0; k < s->n_periods; k++)
        v += s->periods[k].hours_per_day * s->periods[k].price_per_kwh;
    return v / 24.0;
}

const char *gp_pricing_name(gp_pricing p) {
    switch (p) {
    case GP_ON_DEMAND:
        return "on_demand";
    case GP_SPOT:
        return "spot";
    case GP_COMMITTED:
        return "committed";
    case GP_PER_UNIT:
        return "per_unit";
    }
    return "?";
}

double gp_option_input_part(const gp_option *o) {
    return o->pricing == GP_PER_UNIT ? o->input_units_per_unit * o->price_per_input_unit : 0.0;
}

void gp_option_per_unit_sync(gp_option *o) {
    if (o->pricing != GP_PER_UNIT)
        return;
    o->gpus_per_instance = 1;
    o->work_per_gpu_hour = 1.0;
    o->idle_overhead = 0.0;
    o->hourly = o->price_per_unit + gp_option_input_part(o);
}
