/* Grid sweeps over scenario inputs (`gpuplan sweep`): pure, constant memory.
 *
 * Each point sets the swept inputs on a private copy of the scenario and takes the totals:
 * the steady state's totals for a version 1 point (gp_model_steady_totals); for a version 2 one,
 * the month-by-month engine's own code for the totals alone, redoing only the parts the moved
 * inputs enter, so the totals are gp_model_evaluate's bit for bit (one gp_result of scratch, about
 * 460 KB, and the engine's kept parts, about 40 KB, allocated for the call and freed before it
 * returns). Memory does not grow with the grid; results reach the caller through a callback, or as
 * a summary (gp_sweep_summary). */
#ifndef GPUPLAN_SWEEP_H
#define GPUPLAN_SWEEP_H

#include <stddef.h>
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
    /* version 2 */
    GP_SWEEP_GROWTH,              /* demand.growth_per_month */
    GP_SWEEP_LEAD_TIME,           /* self_hosted.lead_time_months, rounded */
    GP_SWEEP_ORDER_EVERY,         /* self_hosted.order_every_months, rounded */
    GP_SWEEP_MAX_SERVERS,         /* self_hosted.max_servers, rounded */
    GP_SWEEP_SERVER_PRICE_TREND,  /* self_hosted.server_price_trend_per_year */
    GP_SWEEP_ENERGY_PRICE_TREND,  /* self_hosted.tariff.price_trend_per_year */
    GP_SWEEP_OPTION_PRICE_TREND,  /* price_trend_per_year of one option */
    GP_SWEEP_WORK_PER_GPU_HOUR,   /* self_hosted.work_per_gpu_hour (work mode) */
    GP_SWEEP_OPTION_WORK_PER_GPU, /* work_per_gpu_hour of one option (work mode) */
    GP_SWEEP_PRICE_PER_UNIT,      /* price_per_unit of one per_unit option (2.1) */
    GP_SWEEP_N_PARAMS
} gp_sweep_param;

typedef struct gp_sweep_axis {
    gp_sweep_param param;
    int option; /* the per-option parameters only: the option's index */
    double from, to;
    int steps; /* >= 1; from and to are both included when steps >= 2 */
} gp_sweep_axis;

/* The parameter's name as written on the command line ("utilization", "hourly"); a
 * per-option parameter is written NAME:OPTION. */
const char *gp_sweep_param_name(gp_sweep_param p);

/* Whether p belongs to one option (written NAME:OPTION on the command line). */
bool gp_sweep_param_per_option(gp_sweep_param p);

/* The parameter named name (without its ":OPTION"), into *p; GP_E_NOTFOUND when there is none
 * ("work_per_gpu_hour" gives self-hosted's: the caller that saw ":OPTION" takes the option's). */
gp_status gp_sweep_param_find(const char *name, gp_sweep_param *p, gp_err *err);

/* Every valid name, comma-separated, the per-option ones as NAME:OPTION, into out (cap bytes,
 * truncated to fit, NUL-terminated when cap > 0); returns the length the whole list needs. */
size_t gp_sweep_param_list(char *out, size_t cap);

/* The value of axis a at step i (0 <= i < steps). Integer parameters are rounded. */
double gp_sweep_value(const gp_sweep_axis *a, int i);

/* Check every axis against s: endpoints inside the input's valid range (version 2 keys with
 * their rules: lead time below every horizon swept, growth only without steps, throughputs in
 * work mode only), the option exists, steps >= 1, the grid at most 2^40 points. GP_E_INPUT
 * names the axis. */
gp_status gp_sweep_check(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes, gp_err *err);

/* Called once per grid point, last axis fastest. values[k] is axis k's value; option_totals
 * has s->n_options entries; cheapest is -1 for self-hosted or an option index. Return
 * non-zero to stop. */
typedef int (*gp_sweep_fn)(const double *values, double self_total, const double *option_totals,
                           int cheapest, void *arg);

/* Walk the grid of axes over base (checked with gp_sweep_check first). *points receives the
 * number of points evaluated. A point the engine refuses (a month that needs a bridge the
 * scenario lacks, say) stops the walk: GP_E_INPUT with the engine's path and the point. */
gp_status gp_sweep_run(const gp_scenario *base, const gp_sweep_axis *axes, int n_axes,
                       gp_sweep_fn fn, void *arg, uint64_t *points, gp_err *err);

/* What `sweep --summary` tells: each contender's share of the grid and the first flips of the
 * answer along the last axis (a flip: within one row of the grid, a point whose cheapest
 * differs from the point before; a point where totals tie at the lowest is no win, and a flip
 * through points where its two sides tie is marked `tied`). Filled by gp_sweep_summarize
 * (app_sweep.h). */
#define GP_SWEEP_MAX_FLIPS 20

typedef struct gp_sweep_flip {
    double values[GP_SWEEP_MAX_AXES]; /* the point after the flip */
    double prev_last;                 /* the last axis's value at the point before */
    int from, to;                     /* cheapest before and after: -1 self-hosted, or an option */
    bool tied;                        /* through points where from and to tie (equal totals) */
    double tie_first, tie_last;       /* tied: the last axis's first and last tied values */
} gp_sweep_flip;

typedef struct gp_sweep_summary {
    int n_axes;
    uint64_t points;
    uint64_t wins[GP_MAX_OPTIONS + 1]; /* [0] self-hosted, [i + 1] option i */
    uint64_t ties;                     /* points where two or more share the lowest (no win) */
    uint64_t n_flips;                  /* all of them; the first GP_SWEEP_MAX_FLIPS are kept */
    gp_sweep_flip flips[GP_SWEEP_MAX_FLIPS];
    /* How it was found (informational): rows solved from their linear pieces and crossings,
     * rows walked point by point, and the points evaluated in all. */
    uint64_t rows_solved, rows_walked, evaluations;
} gp_sweep_summary;

/* The summary by evaluating every point (gp_sweep_run). Errors: those of gp_sweep_run. */
gp_status gp_sweep_summarize_points(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                                    gp_sweep_summary *out, gp_err *err);

/* The same summary, exactly (wins, flips and their order, ties included), from the linear
 * pieces of each row where the last axis has them (prices, PUE, server price, hourly,
 * utilization in GPU mode), else from the columns of the axis before it, else point by point
 * (sweep.c says how). Errors: those of gp_sweep_run, for a point evaluated. */
gp_status gp_sweep_summarize_rows(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                                  gp_sweep_summary *out, gp_err *err);

#endif
