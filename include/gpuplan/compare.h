/* A comparison of GPU generations per unit of work, as computed by src/app/compare.c
 * (app_compare.h) and rendered by src/report/compare_report.c (report_compare.h).
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
} gp_compare_row;

typedef struct gp_comparison {
    gp_compare_row *rows; /* ranked rows first (by rank), then the missing ones by GPU */
    int n, n_ranked;
    const char *profile, *unit;
    double work; /* the work over the horizon */
    char as_of[11];
    int saved_version; /* the version --save stored, 0 when none */
} gp_comparison;

#endif
