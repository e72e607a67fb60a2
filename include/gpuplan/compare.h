/* A comparison of GPU generations per unit of work, as computed by src/app/compare.c
 * (app_compare.h) and rendered by src/report/report_compare.c (report_compare.h).
 *
 * Ownership: a gp_comparison owns its rows and their scenario documents; the app layer's
 * gp_comparison_done frees them. */
#ifndef GPUPLAN_COMPARE_H
#define GPUPLAN_COMPARE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/throughput.h"

typedef struct gp_compare_row {
    int rank; /* 1.. by total; 0: not evaluated (see missing) */
    char gpu[GP_GPU_NAME_BYTES];
    bool own;            /* owned servers; else a rented offer */
    char provider[16];   /* rented: the provider */
    char pricing[40];    /* "own", "on_demand", "spot", "committed 36 months" */
    char offer[300];     /* rented: provider/instance/region; own: the price row */
    char price_date[11]; /* the price's date (purchase or catalog effective date) */
    double throughput;   /* work per GPU-hour used */
    gp_tp_kind tp_kind;
    int gpus_needed;                /* the most GPUs needed in any month */
    double total;                   /* the candidate's total over the horizon */
    double cost_per_unit;           /* total / work */
    char vs_gpu[GP_GPU_NAME_BYTES]; /* rented: the GPU model owned in its scenario */
    bool has_break_even;
    int break_even_month; /* rented: the engine's break-even month against vs_gpu */
    char missing[300];    /* not evaluated: what is missing, else "" */
    cJSON *doc;           /* the candidate's scenario (NULL when missing) */
    /* The inputs of its scenario as resolved for the engine (catalog prices filled in), for
     * the workbook's Generations sheet; set when the row was evaluated. */
    char tp_source[GP_TP_SOURCE_BYTES];
    int gpus_per_server; /* own rows: the owned side */
    double server_price, server_base_w, gpu_idle_w, gpu_tdp_w, pue;
    int gpus_per_instance, term_months; /* rented rows: the offer */
    double hourly, upfront;             /* per instance-hour; per instance a term (committed) */
    double interruptions_per_hour, checkpoint_interval_h, restart_h; /* spot */
    /* An API row (docs/compare.md "API rows"): the profile's model bought per M tokens from
     * provider (pricing "api", gpu "", no throughput, no GPUs), priced price_per_unit a unit
     * of work plus input_units_per_unit input units at price_per_input_unit; its catalog
     * source (the page and what it showed) in api_source, its model in api_model. */
    bool api;
    char api_model[64];
    double price_per_unit, price_per_input_unit, input_units_per_unit;
    char api_source[512];
} gp_compare_row;

typedef struct gp_comparison {
    gp_compare_row *rows; /* ranked rows first (by rank), then the missing ones by GPU */
    int n, n_ranked;
    const char *profile, *unit;
    double work; /* the work over the horizon */
    char as_of[11];
    int saved_version; /* the version --save stored, 0 when none */
    /* The request's demand and the owned side's electricity, as every candidate's scenario
     * has them (for the workbook): price_per_kwh is the tariff's mean over the day (its
     * periods' prices weighted by their hours; the model's flat default without a tariff). */
    double work_per_month, growth_per_month, utilization;
    int horizon_months;
    char tariff[64]; /* the preset's name, "" for the default flat price */
    double price_per_kwh, demand_charge_per_kw_month, energy_trend_per_year;
    bool shift_to_cheapest; /* the tariff shifts busy hours (the workbook cannot model it) */
} gp_comparison;

#endif
