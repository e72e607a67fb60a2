/* One-at-a-time sensitivity (`gpuplan sensitivity`): every non-zero uncertain input moved down
 * and up by a relative delta, clamped to its valid range, the scenario re-evaluated each time.
 *
 * Pure: results go into caller storage (gp_sensitivity is about 1.1 MB: allocate it). Rows come
 * out sorted by swing, the largest first (a tornado). */
#ifndef GPUPLAN_SENSITIVITY_H
#define GPUPLAN_SENSITIVITY_H

#include <stdbool.h>

#include "gpuplan/error.h"
#include "gpuplan/engine.h"
#include "gpuplan/scenario.h"

#define GP_SENS_MAX_ROWS 512

typedef struct gp_sens_row {
    char input[96];     /* a JSON path: "self_hosted.power.pue", "cloud_options[1].hourly" */
    int option;         /* the cloud option the input belongs to, -1 for none */
    int period;         /* the tariff period it belongs to, -1 for none */
    char parameter[64]; /* the key in its owner: "hourly", "pue", "price_per_kwh" */
    char label[GP_NAME_BYTES + 96]; /* as the CLI names it: "p4d spot: hourly" (gp_sens_label) */
    double base, low, high;         /* the input's values */
    double self_low, self_high;     /* the self-hosted total at low and at high */
    /* Per option: (option total - self-hosted total) at low and at high, minus the same at the
     * base point. Positive means owning gains. */
    double delta_low[GP_MAX_OPTIONS], delta_high[GP_MAX_OPTIONS];
    bool has_be_low[GP_MAX_OPTIONS], has_be_high[GP_MAX_OPTIONS];
    int be_low[GP_MAX_OPTIONS], be_high[GP_MAX_OPTIONS]; /* break-even month */
    double swing; /* max over options of |delta_high - delta_low| */
} gp_sens_row;

typedef struct gp_sensitivity {
    double delta;
    int n_options;
    double base_diff[GP_MAX_OPTIONS]; /* option total - self-hosted total at the base point */
    double self_base;                 /* the self-hosted total at the base point */
    bool has_be_base[GP_MAX_OPTIONS];
    int be_base[GP_MAX_OPTIONS];
    int n_rows;
    gp_sens_row rows[GP_SENS_MAX_ROWS];
    /* Moves whose plan the engine refuses (a longer lead time without a bridge, say): left out
     * of rows, counted, the first one named with the engine's error. */
    int n_refused;
    char refused_input[96];
    gp_err refused_error;
    /* Scratch space for the re-evaluations, so the model itself never allocates. */
    gp_result scratch_result;
    gp_scenario scratch_scenario;
} gp_sensitivity;

/* For one option: the rows that change anything for it (a difference or a break-even month),
 * largest swing for that option first, ties by input; quiet counts the rows that change
 * nothing. Filled by gp_sensitivity_analyze (app_sensitivity.h). */
typedef struct gp_sens_ranking {
    int order[GP_SENS_MAX_ROWS]; /* indexes into gp_sensitivity.rows */
    int n, quiet;
} gp_sens_ranking;

/* Evaluate s with every non-zero numeric input moved by -delta and +delta (0 < delta < 1),
 * version 2 keys included. GP_E_INPUT when delta is out of range, or the engine's error when
 * it refuses s itself. */
gp_status gp_sensitivity_run(const gp_scenario *s, double delta, gp_sensitivity *out, gp_err *err);

/* The same over what a planner is unsure of by default: prices, utilization, demand and its
 * growth, throughput, power draw, lead time, trends and the exit value's inputs (the resale
 * curve, moved as a whole, residual_pct, depreciation_years, refresh_months). The plan's shape
 * (horizon, discount rate, gpus_per_server, order cadence, max_servers, warranty, the loan's
 * term and fraction, a spot checkpoint interval) is moved only when asked: with n_params > 0,
 * exactly the inputs named (a JSON path, "cloud_options[0].hourly", or a key, "hourly", which
 * names it in every option) are moved, shape included. GP_E_INPUT ("--param") for a name that
 * is no input. */
gp_status gp_sensitivity_run_params(const gp_scenario *s, double delta, const char *const *params,
                                    int n_params, gp_sensitivity *out, gp_err *err);

/* A row's name as readers see it: its owner (an option's name, "tariff period NAME",
 * "self-hosted", "demand", "scenario") and its parameter, "p4d spot: hourly". */
void gp_sens_label(const gp_scenario *s, const gp_sens_row *row, char *out, size_t cap);

#endif
