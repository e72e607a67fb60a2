/* Grid sweeps over scenario inputs (`gpuplan sweep`): pure, constant memory, closed form.
 *
 * Each point sets the swept inputs on a private copy of the scenario and takes the totals
 * from gp_model_totals (no month walk), so memory does not grow with the grid. Nothing here
 * allocates; results reach the caller through a callback. */
#ifndef GPUPLAN_SWEEP_H
#define GPUPLAN_SWEEP_H

#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"

#define GP_SWEEP_MAX_AXES 8

typedef enum gp_sweep_param {
    GP_SWEEP_UTILIZATION,
    GP_SWEEP_GPUS,          /* rounded to the nearest integer */
    GP_SWEEP_HORIZON,       /* horizon_months, rounded */
    GP_SWEEP_PRICE_PER_KWH, /* the tariff's time-weighted mean; every period scales with it */
    GP_SWEEP_SERVER_PRICE,
    GP_SWEEP_PUE,
    GP_SWEEP_HOURLY, /* hourly of one option */
} gp_sweep_param;

typedef struct gp_sweep_axis {
    gp_sweep_param param;
    int option; /* GP_SWEEP_HOURLY only: the option's index */
    double from, to;
    int steps; /* >= 1; from and to are both included when steps >= 2 */
} gp_sweep_axis;

/* The parameter's name as written on the command line ("utilization", "hourly"). */
const char *gp_sweep_param_name(gp_sweep_param p);

/* The value of axis a at step i (0 <= i < steps). Integer parameters are rounded. */
double gp_sweep_value(const gp_sweep_axis *a, int i);

/* Check every axis against s: endpoints inside the input's valid range, the option exists
 * and has an hourly price, steps >= 1, the grid at most 2^40 points; and s is a version 1
 * scenario (the closed forms have no plan over time). GP_E_INPUT names it. */
gp_status gp_sweep_check(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes, gp_err *err);

/* Called once per grid point, last axis fastest. values[k] is axis k's value; option_totals
 * has s->n_options entries; cheapest is -1 for self-hosted or an option index. Return
 * non-zero to stop. */
typedef int (*gp_sweep_fn)(const double *values, double self_total, const double *option_totals,
                           int cheapest, void *arg);

/* Walk the grid of axes over base (checked with gp_sweep_check first). *points receives the
 * number of points evaluated. */
gp_status gp_sweep_run(const gp_scenario *base, const gp_sweep_axis *axes, int n_axes,
                       gp_sweep_fn fn, void *arg, uint64_t *points, gp_err *err);

/* What `sweep --summary` tells: each contender's share of the grid and the first flips of the
 * answer along the last axis (a flip: within one row of the grid, a point whose cheapest
 * differs from the point before). Filled by gp_sweep_summarize (app_sweep.h). */
#define GP_SWEEP_MAX_FLIPS 20

typedef struct gp_sweep_flip {
    double values[GP_SWEEP_MAX_AXES]; /* the point after the flip */
    double prev_last;                 /* the last axis's value at the point before */
    int from, to;                     /* cheapest before and after: -1 self-hosted, or an option */
} gp_sweep_flip;

typedef struct gp_sweep_summary {
    int n_axes;
    uint64_t points;
    uint64_t wins[GP_MAX_OPTIONS + 1]; /* [0] self-hosted, [i + 1] option i */
    uint64_t n_flips;                  /* all of them; the first GP_SWEEP_MAX_FLIPS are kept */
    gp_sweep_flip flips[GP_SWEEP_MAX_FLIPS];
} gp_sweep_summary;

#endif
