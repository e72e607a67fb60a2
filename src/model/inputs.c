/* The scenario's inputs, one table (inputs.h): the rows, their value functions and when each
 * applies. The order is the order every front end shows them. */
#include <string.h>

#include "gpuplan/inputs.h"

const char GP_INPUT_WORK_UNIT[] = "work unit";

/* ---- value functions -------------------------------------------------------------------- */

#define S_VALUE(fn, expr)                                                                          \
    static double fn(const gp_scenario *s) {                                                       \
        return (double)(expr);                                                                     \
    }
#define O_VALUE(fn, field)                                                                         \
    static double fn(const gp_option *o) {                                                         \
        return (double)o->field;                                                                   \
    }

S_VALUE(v_horizon_months, s->horizon_months)
S_VALUE(v_discount_rate, s->discount_rate)
S_VALUE(v_work_per_month, s->work_per_month)
S_VALUE(v_gpus, s->gpus)
S_VALUE(v_utilization, s->utilization)
S_VALUE(v_growth, s->growth_per_month)
S_VALUE(v_gpus_per_server, s->gpus_per_server)
S_VALUE(v_server_price, s->server_price)
S_VALUE(v_price_factor, s->price_factor)
S_VALUE(v_hw_trend, s->server_price_trend_per_year)
S_VALUE(v_network_per_server, s->network_per_server)
S_VALUE(v_fixed_capex, s->fixed_capex)
S_VALUE(v_as_needed, s->buy == GP_BUY_AS_NEEDED)
S_VALUE(v_lead_time, s->lead_time_months)
S_VALUE(v_order_every, s->order_every_months)
S_VALUE(v_max_servers, s->has_max_servers ? s->max_servers : 0)
S_VALUE(v_refresh_months, s->refresh_months)
S_VALUE(v_residual_pct, s->residual_pct)
S_VALUE(v_depreciation_years, s->depreciation_years)
S_VALUE(v_warranty_months, s->warranty_months)
S_VALUE(v_maintenance_pct, s->maintenance_pct_per_year)
S_VALUE(v_staff_per_month, s->staff_per_month)
S_VALUE(v_other_per_month, s->other_per_month)
S_VALUE(v_colo_per_kw_month, s->colo_per_kw_month)
S_VALUE(v_grid_co2, s->grid_kg_co2_per_kwh)
S_VALUE(v_rho_s, s->work_per_gpu_hour)
S_VALUE(v_server_base_w, s->server_base_w)
S_VALUE(v_gpu_idle_w, s->gpu_idle_w)
S_VALUE(v_gpu_tdp_w, s->gpu_tdp_w)
S_VALUE(v_has_gpu_avg, s->has_gpu_avg_w)
S_VALUE(v_gpu_avg_w, s->has_gpu_avg_w ? s->gpu_avg_w : 0)
S_VALUE(v_pue, s->pue)
S_VALUE(v_shift, s->shift_to_cheapest)
S_VALUE(v_demand_charge, s->demand_charge_per_kw_month)
S_VALUE(v_energy_trend, s->energy_price_trend_per_year)
S_VALUE(v_loan, s->financing == GP_LOAN)
S_VALUE(v_loan_fraction, s->loan_fraction)
S_VALUE(v_loan_apr, s->loan_apr)
S_VALUE(v_loan_term, s->loan_term_months)

O_VALUE(o_hourly, hourly)
O_VALUE(o_gpus_per_instance, gpus_per_instance)
O_VALUE(o_trend, price_trend_per_year)
O_VALUE(o_support, support_pct)
O_VALUE(o_storage_gb, storage_gb)
O_VALUE(o_storage_rate, storage_per_gb_month)
O_VALUE(o_egress_gb, egress_gb_per_month)
O_VALUE(o_egress_rate, egress_per_gb)
O_VALUE(o_work, work_per_gpu_hour)
O_VALUE(o_idle, idle_overhead)
O_VALUE(o_interruptions, interruptions_per_hour)
O_VALUE(o_checkpoint, checkpoint_interval_h)
O_VALUE(o_restart, restart_h)
O_VALUE(o_upfront, upfront)
O_VALUE(o_term, term_months)
O_VALUE(o_base, base_gpus)
O_VALUE(o_ppu, price_per_unit)
O_VALUE(o_ppiu, price_per_input_unit)
O_VALUE(o_iupu, input_units_per_unit)

/* ---- the scenario's inputs -------------------------------------------------------------- */

#define NUM GP_IN_NUMBER
#define INT GP_IN_INTEGER
#define ALL GP_MODE_ALL
#define WU GP_INPUT_WORK_UNIT

/* A number shown by both: key, type, mode, value, sheet name/label/unit, editor label/unit. */
#define BOTH(k, t, m, v, sn, sl, su, el, eu)                                                       \
    {                                                                                              \
        .key = k, .type = t, .mode = m, .value = v, .sheet_name = sn, .sheet_label = sl,           \
        .sheet_unit = su, .edit_label = el, .edit_unit = eu                                        \
    }
/* An editor-only row; an optional one is read from the document. */
#define EDIT(k, t, m, el, eu, opt, abs)                                                            \
    {                                                                                              \
        .key = k, .type = t, .mode = m, .edit_label = el, .edit_unit = eu, .optional = opt,        \
        .absent = abs                                                                              \
    }

const gp_input gp_inputs[] = {
    BOTH("horizon_months", INT, ALL, v_horizon_months, "horizon_months",
         "horizon (keep: the rows are laid out for it)", "months", "horizon", "months"),
    BOTH("discount_rate", NUM, ALL, v_discount_rate, "discount_rate", "discount rate (NPV)",
         "a year", "discount rate (NPV)", "a year"),
    {.key = "demand.work_per_month",
     .type = NUM,
     .mode = GP_MODE_WORK,
     .value = v_work_per_month,
     .sheet_name = "work_per_month",
     .sheet_label = "demand: work a month",
     .sheet_unit = WU,
     .sheet_section = "Demand",
     .edit_label = "work a month",
     .edit_unit = "units"},
    BOTH("demand.gpus", INT, GP_MODE_GPUS, v_gpus, "gpus", "demand: GPUs", "GPUs", "GPUs needed",
         "GPUs"),
    EDIT("demand.work_unit", GP_IN_TEXT, GP_MODE_WORK, "work unit", "name", true, "unit"),
    BOTH("demand.utilization", NUM, ALL, v_utilization, "utilization",
         "demand: busy share of GPU-hours", "0..1", "utilization", "0..1"),
    BOTH("demand.growth_per_month", NUM, ALL, v_growth, "growth",
         "demand growth (compound; 0 with steps)", "a month", "demand growth", "a month"),
    EDIT("demand.steps", GP_IN_LIST, ALL, "demand steps", "rows", false, NULL),
    /* Not a key: the choice between demand.gpus and demand.work_per_month. */
    EDIT("demand.mode", GP_IN_SHAPE, ALL, "demand counted in", "choice", false, "GPUs"),
    EDIT("start_date", GP_IN_TEXT, ALL, "start date", "YYYY-MM-DD", true, "today"),
    {.key = "self_hosted.gpus_per_server",
     .type = INT,
     .value = v_gpus_per_server,
     .sheet_name = "gpus_per_server",
     .sheet_label = "GPUs a server",
     .sheet_unit = "GPUs",
     .sheet_section = "Self-hosted",
     .edit_label = "GPUs a server",
     .edit_unit = "GPUs"},
    BOTH("self_hosted.server_price", NUM, ALL, v_server_price, "server_price", "server price", NULL,
         "server price", "$cur"),
    BOTH("self_hosted.price_factor", NUM, ALL, v_price_factor, "price_factor",
         "price factor (refurbished)", "x", "price factor", "x"),
    BOTH("self_hosted.server_price_trend_per_year", NUM, ALL, v_hw_trend, "hw_trend",
         "server price trend", "a year", "hardware price trend", "a year"),
    EDIT("self_hosted.bulk_discounts", GP_IN_LIST, ALL, "bulk tiers", "rows", false, NULL),
    BOTH("self_hosted.network_per_server", NUM, ALL, v_network_per_server, "network_per_server",
         "network per server", NULL, "network a server", "$cur"),
    BOTH("self_hosted.fixed_capex", NUM, ALL, v_fixed_capex, "fixed_capex",
         "fixed capex (install, racks)", NULL, "fixed capex", "$cur"),
    {.key = "self_hosted.buy",
     .type = GP_IN_CHOICE,
     .value = v_as_needed,
     .sheet_name = "as_needed",
     .sheet_label = "buy as needed (1) or all at once (0)",
     .sheet_unit = "0/1",
     .edit_label = "purchases",
     .edit_unit = "choice",
     .optional = true,
     .absent = "all_at_once"},
    BOTH("self_hosted.lead_time_months", INT, ALL, v_lead_time, "lead_time", "lead time", "months",
         "lead time", "months"),
    BOTH("self_hosted.order_every_months", INT, ALL, v_order_every, "order_every", "order every",
         "months", "order every", "months"),
    {.key = "self_hosted.max_servers",
     .type = INT,
     .value = v_max_servers,
     .sheet_name = "max_servers",
     .sheet_label = "at most servers (0: no cap)",
     .sheet_unit = "servers",
     .edit_label = "at most",
     .edit_unit = "servers",
     .optional = true,
     .absent = "no cap"},
    EDIT("self_hosted.bridge", GP_IN_CHOICE, ALL, "bridge", "choice", true, "none"),
    BOTH("self_hosted.refresh_months", INT, ALL, v_refresh_months, "refresh_months",
         "refresh after (0: never)", "months", "refresh every", "months, 0: never"),
    {.key = "self_hosted.residual_pct",
     .type = NUM,
     .value = v_residual_pct,
     .sheet_name = "residual_pct",
     .sheet_label = "residual value (bought as needed or refreshed: where the straight line "
                    "from new ends; else flat)",
     .sheet_unit = "of hardware",
     .sheet_when = GP_WHEN_NO_RESALE,
     .edit_label = "residual value",
     .edit_unit = "0..1",
     .optional = true,
     .absent = "0"},
    EDIT("self_hosted.resale", GP_IN_LIST, ALL, "resale curve", "points", false, NULL),
    BOTH("self_hosted.depreciation_years", NUM, ALL, v_depreciation_years, "depreciation_years",
         "depreciation (the straight line's length)", "years", "depreciation", "years"),
    BOTH("self_hosted.warranty_months", INT, ALL, v_warranty_months, "warranty_months", "warranty",
         "months", "warranty", "months"),
    BOTH("self_hosted.maintenance_pct_per_year", NUM, ALL, v_maintenance_pct, "maintenance_pct",
         "maintenance after warranty", "of hardware a year", "maintenance", "a year"),
    BOTH("self_hosted.staff_per_month", NUM, ALL, v_staff_per_month, "staff_per_month", "staff",
         "a month", "staff", "$cur/mo"),
    BOTH("self_hosted.other_per_month", NUM, ALL, v_other_per_month, "other_per_month",
         "other costs", "a month", "other costs", "$cur/mo"),
    BOTH("self_hosted.colo_per_kw_month", NUM, ALL, v_colo_per_kw_month, "colo_per_kw_month",
         "colocation", "per kW-month", "colocation", "/kW-mo"),
    /* Moves no cost, so no workbook row: the CO2 figure is the report's alone. */
    {.key = "self_hosted.grid_kg_co2_per_kwh",
     .type = NUM,
     .value = v_grid_co2,
     .edit_label = "grid CO2",
     .edit_unit = "kg/kWh"},
    BOTH("self_hosted.work_per_gpu_hour", NUM, GP_MODE_WORK, v_rho_s, "rho_s",
         "owned GPU: work a GPU-hour", WU, "work a GPU-hour", "units"),
    BOTH("self_hosted.power.server_base_w", NUM, ALL, v_server_base_w, "server_base_w",
         "server draw besides GPUs", "W", "server base draw", "W"),
    BOTH("self_hosted.power.gpu_idle_w", NUM, ALL, v_gpu_idle_w, "gpu_idle_w", "GPU idle draw", "W",
         "GPU idle draw", "W"),
    BOTH("self_hosted.power.gpu_tdp_w", NUM, ALL, v_gpu_tdp_w, "gpu_tdp_w", "GPU busy draw", "W",
         "GPU busy draw", "W"),
    /* The workbook's switch for the flat draw below: whether gpu_avg_w is given. */
    {.type = INT,
     .value = v_has_gpu_avg,
     .sheet_name = "has_gpu_avg",
     .sheet_label = "use a flat mean GPU draw (1) or idle/busy (0)",
     .sheet_unit = "0/1"},
    {.key = "self_hosted.power.gpu_avg_w",
     .type = NUM,
     .value = v_gpu_avg_w,
     .sheet_name = "gpu_avg_w",
     .sheet_label = "flat mean GPU draw",
     .sheet_unit = "W",
     .edit_label = "GPU flat draw",
     .edit_unit = "W",
     .optional = true,
     .absent = "none"},
    BOTH("self_hosted.power.pue", NUM, ALL, v_pue, "pue", "PUE", "x", "PUE", "x"),
    EDIT("self_hosted.tariff.periods", GP_IN_LIST, ALL, "tariff periods", "rows", false, NULL),
    {.key = "self_hosted.tariff.shift_to_cheapest",
     .type = GP_IN_CHOICE,
     .value = v_shift,
     .sheet_name = "shift",
     .sheet_label = "busy hours shifted to the cheapest periods",
     .sheet_unit = "0/1",
     .edit_label = "shift to cheapest",
     .edit_unit = "choice",
     .optional = true,
     .absent = "no"},
    BOTH("self_hosted.tariff.demand_charge_per_kw_month", NUM, ALL, v_demand_charge,
         "demand_charge", "demand charge", "per kW-month", "demand charge", "/kW-mo"),
    BOTH("self_hosted.tariff.price_trend_per_year", NUM, ALL, v_energy_trend, "energy_trend",
         "electricity price trend", "a year", "electricity trend", "a year"),
    {.key = "self_hosted.financing.kind",
     .type = GP_IN_SHAPE,
     .value = v_loan,
     .sheet_name = "loan",
     .sheet_label = "financed with a loan",
     .sheet_unit = "0/1",
     .edit_label = "financing",
     .edit_unit = "choice",
     .absent = "cash"},
    {.key = "self_hosted.financing.fraction",
     .type = NUM,
     .value = v_loan_fraction,
     .sheet_name = "loan_fraction",
     .sheet_label = "loan share of capex",
     .sheet_unit = "0..1",
     .edit_label = "loan share",
     .edit_unit = "0..1",
     .edit_when = GP_WHEN_LOAN},
    {.key = "self_hosted.financing.apr",
     .type = NUM,
     .value = v_loan_apr,
     .sheet_name = "loan_apr",
     .sheet_label = "loan APR",
     .sheet_unit = "a year",
     .edit_label = "loan APR",
     .edit_unit = "a year",
     .edit_when = GP_WHEN_LOAN},
    {.key = "self_hosted.financing.term_months",
     .type = INT,
     .value = v_loan_term,
     .sheet_name = "loan_term",
     .sheet_label = "loan term",
     .sheet_unit = "months",
     .edit_label = "loan term",
     .edit_unit = "months",
     .edit_when = GP_WHEN_LOAN},
    EDIT("cloud_options", GP_IN_LIST, ALL, "cloud options", "options", false, NULL),
};
const int gp_n_inputs = (int)(sizeof gp_inputs / sizeof gp_inputs[0]);

/* ---- every option's inputs -------------------------------------------------------------- */

#define P(k) (1u << (k))
#define P_ALL (P(GP_ON_DEMAND) | P(GP_SPOT) | P(GP_COMMITTED) | P(GP_PER_UNIT))
#define P_RENTED (P(GP_ON_DEMAND) | P(GP_SPOT) | P(GP_COMMITTED))
#define P_API P(GP_PER_UNIT)

/* A number shown by both for the same pricing kinds. */
#define OBOTH(k, t, v, p, sw, su, el, eu)                                                          \
    {                                                                                              \
        .key = k, .type = t, .value = v, .sheet_pricings = p, .sheet_what = sw, .sheet_unit = su,  \
        .edit_pricings = p, .edit_label = el, .edit_unit = eu                                      \
    }

/* In the workbook's order: an API's prices first, as its hourly is their formula. */
const gp_option_input gp_option_inputs[] = {
    {.key = "pricing",
     .type = GP_IN_SHAPE,
     .edit_pricings = P_ALL,
     .edit_label = "pricing",
     .edit_unit = "choice",
     .absent = "on_demand"},
    OBOTH("price_per_unit", NUM, o_ppu, P_API, "price a unit of work", "per unit of work",
          "price a unit", "/unit"),
    OBOTH("price_per_input_unit", NUM, o_ppiu, P_API, "price an input unit", "per input unit",
          "input price", "/input"),
    OBOTH("input_units_per_unit", NUM, o_iupu, P_API, "input units a unit of work", "units",
          "input ratio", "in/unit"),
    /* An API's hourly is the workbook's formula of its prices; a catalog reference's is the
     * catalog's. */
    {.key = "hourly",
     .type = NUM,
     .value = o_hourly,
     .sheet_pricings = P_ALL,
     .sheet_what = "hourly",
     .sheet_unit = "per instance-hour",
     .edit_pricings = P_RENTED,
     .edit_label = "hourly",
     .edit_unit = "/inst-h",
     .edit_when = GP_WHEN_PRICED},
    {.key = "gpus_per_instance",
     .type = INT,
     .value = o_gpus_per_instance,
     .sheet_pricings = P_RENTED,
     .sheet_what = "GPUs an instance",
     .sheet_unit = "GPUs",
     .edit_pricings = P_RENTED,
     .edit_label = "GPUs an instance",
     .edit_unit = "GPUs",
     .edit_when = GP_WHEN_PRICED},
    OBOTH("price_trend_per_year", NUM, o_trend, P_ALL, "price trend", "a year", "price trend",
          "a year"),
    OBOTH("support_pct", NUM, o_support, P_ALL, "support", "of compute", "support", "0..1"),
    OBOTH("storage_gb", NUM, o_storage_gb, P_ALL, "storage GB", "GB", "storage", "GB"),
    OBOTH("storage_per_gb_month", NUM, o_storage_rate, P_ALL, "storage price", "per GB-month",
          "storage price", "/GB-mo"),
    OBOTH("egress_gb_per_month", NUM, o_egress_gb, P_ALL, "egress GB a month", "GB", "egress",
          "GB/mo"),
    OBOTH("egress_per_gb", NUM, o_egress_rate, P_ALL, "egress price", "per GB", "egress price",
          "/GB"),
    /* An API's unit is the demand's. */
    {.key = "work_per_gpu_hour",
     .type = NUM,
     .mode = GP_MODE_WORK,
     .value = o_work,
     .sheet_pricings = P_RENTED,
     .sheet_what = "work a GPU-hour",
     .sheet_unit = "units",
     .edit_pricings = P_RENTED,
     .edit_label = "work a GPU-hour",
     .edit_unit = "units"},
    OBOTH("idle_overhead", NUM, o_idle, P(GP_ON_DEMAND) | P(GP_SPOT), "idle overhead", "x",
          "idle overhead", "x"),
    OBOTH("interruptions_per_hour", NUM, o_interruptions, P(GP_SPOT), "interruptions an hour", "/h",
          "interruptions", "/h"),
    OBOTH("checkpoint_interval_h", NUM, o_checkpoint, P(GP_SPOT), "checkpoint interval", "h",
          "checkpoint every", "h"),
    OBOTH("restart_h", NUM, o_restart, P(GP_SPOT), "restart time", "h", "restart time", "h"),
    /* A catalog reference's upfront is the catalog's: only the term can change. */
    {.key = "upfront",
     .type = NUM,
     .value = o_upfront,
     .sheet_pricings = P(GP_COMMITTED),
     .sheet_what = "upfront per instance per term",
     .sheet_unit = "",
     .edit_pricings = P(GP_COMMITTED),
     .edit_label = "upfront a term",
     .edit_unit = "$cur",
     .edit_when = GP_WHEN_PRICED},
    OBOTH("term_months", INT, o_term, P(GP_COMMITTED), "term", "months", "term", "months"),
    /* The purchase picks a catalog reference's upfront split. */
    {.key = "purchase",
     .type = GP_IN_CHOICE,
     .edit_pricings = P(GP_COMMITTED),
     .edit_label = "purchase",
     .edit_unit = "choice",
     .optional = true,
     .absent = "no_upfront",
     .edit_when = GP_WHEN_CATALOG},
    {.key = "base_gpus",
     .type = INT,
     .value = o_base,
     .sheet_pricings = P(GP_COMMITTED),
     .sheet_what = "committed base GPUs",
     .sheet_unit = "GPUs",
     .sheet_when = GP_WHEN_BASE,
     .edit_pricings = P(GP_COMMITTED),
     .edit_label = "committed base",
     .edit_unit = "GPUs",
     .optional = true,
     .absent = "all"},
    /* A burst belongs to a committed base only (docs/model.md's key table). */
    {.key = "burst",
     .type = GP_IN_CHOICE,
     .edit_pricings = P(GP_COMMITTED),
     .edit_label = "burst to",
     .edit_unit = "choice",
     .optional = true,
     .absent = "none",
     .edit_when = GP_WHEN_BASE},
};
const int gp_n_option_inputs = (int)(sizeof gp_option_inputs / sizeof gp_option_inputs[0]);

const gp_input *gp_input_find(const char *key) {
    for (int i = 0; i < gp_n_inputs; i++)
        if (gp_inputs[i].key && !strcmp(gp_inputs[i].key, key))
            return &gp_inputs[i];
    return NULL;
}

const gp_option_input *gp_option_input_find(const char *key) {
    for (int i = 0; i < gp_n_option_inputs; i++)
        if (!strcmp(gp_option_inputs[i].key, key))
            return &gp_option_inputs[i];
    return NULL;
}

bool gp_input_mode_fits(gp_input_mode mode, const gp_scenario *s) {
    return mode == GP_MODE_ALL || (mode == GP_MODE_WORK) == s->work_mode;
}

bool gp_input_shows(const gp_input *in, unsigned when, const gp_scenario *s) {
    if (!gp_input_mode_fits(in->mode, s))
        return false;
    if ((when & GP_WHEN_NO_RESALE) && s->n_resale > 0)
        return false;
    return !(when & GP_WHEN_LOAN) || s->financing == GP_LOAN;
}

bool gp_option_input_shows(const gp_option_input *in, unsigned pricings, unsigned when,
                           const gp_scenario *s, const gp_option *o, bool has_catalog) {
    if (!(pricings & (1u << o->pricing)) || !gp_input_mode_fits(in->mode, s))
        return false;
    if ((when & GP_WHEN_BASE) && !o->has_base_gpus)
        return false;
    if ((when & GP_WHEN_PRICED) && has_catalog)
        return false;
    return !(when & GP_WHEN_CATALOG) || has_catalog;
}
