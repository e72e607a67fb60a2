/* Capacity figures from telemetry aggregates (model layer: pure arithmetic, no I/O).
 *
 * Utilization buckets arrive as histograms of 5-minute mean utilization in 5 % bins
 * (bin k holds [5k, 5k + 5), bin 20 holds 100 and above); see db/004_capacity.sql. */
#ifndef GPUPLAN_CAPACITY_H
#define GPUPLAN_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GP_UTIL_BINS 21

/* One GPU's aggregates over a window (filled by the store, store_capacity.h). */
typedef struct gp_cap_gpu {
    long long id;
    const char *node, *host, *uuid, *model, *mig;
    int index;
    long long buckets; /* 5-minute buckets with utilization data */
    double util_sum;   /* the sum of their mean utilization, % */
    long long hist[GP_UTIL_BINS];
    long long power_n;      /* buckets with a power reading */
    double power_sum;       /* the sum of their mean power, W */
    long long busy_power_n; /* of those, buckets busy at 5 % */
    double busy_power_sum;
    bool has_power_p95;
    double power_p95_w; /* p95 of the GPU's hourly mean power */
    bool has_mem;
    double mem_used_p95_mib, mem_total_mib; /* p95 of hourly peaks; the largest total seen */
    bool has_limit;
    double power_limit_w;
} gp_cap_gpu;

/* One 5-minute bucket of a selection of GPUs. */
typedef struct gp_cap_bucket {
    int64_t bucket_ms;
    long long gpus;  /* GPUs of the selection that reported in this bucket */
    double util_sum; /* their utilization summed, % (busy GPU equivalents x 100) */
    long long busy;  /* of them, busy at the threshold asked for */
} gp_cap_bucket;

/* Figures of one GPU (or a sum of GPUs) at a busy threshold. */
typedef struct gp_cap_figures {
    double hours;                                   /* hours with utilization data */
    double util_mean, util_p50, util_p95, util_p99; /* % */
    double busy_share;                              /* busy GPU-buckets / GPU-buckets, 0..1 */
    double busy_hours_per_day;
    bool has_power;
    double power_mean_w, energy_kwh; /* energy over the buckets with power */
    double busy_w, idle_w;           /* mean draw of busy and of idle buckets (5 % split) */
    bool has_busy_w, has_idle_w;
    bool idle; /* mean utilization under 5 % */
} gp_cap_figures;

/* Derive the figures of g at threshold_pct (a multiple of 5, 5..100). */
void gp_cap_figures_of(const gp_cap_gpu *g, int threshold_pct, gp_cap_figures *out);

/* Add b's counts into a (sums for per-node, per-model and fleet figures). */
void gp_cap_gpu_merge(gp_cap_gpu *a, const gp_cap_gpu *b);

/* The p-quantile (0..1) of the values a histogram counts, interpolated linearly inside the
 * bin it falls in. 0 when the histogram is empty. */
double gp_hist_quantile(const long long *hist, double p);

/* Buckets at or above threshold_pct (a multiple of 5). */
long long gp_hist_at_least(const long long *hist, int threshold_pct);

/* The p-quantile of values[0..n) (sorted ascending), linear between order statistics. */
double gp_sorted_quantile(const double *sorted, size_t n, double p);

/* The load a mixed fleet is planned on: the busy count of every complete bucket (all `units`
 * of the selection reported; the others are gaps), sorted ascending into out (room for nb).
 * Returns how many; nb minus that is the gaps. */
size_t gp_cap_complete_load(const gp_cap_bucket *b, size_t nb, long long units, double *out);

/* Least squares y = a + b x over n points; *r2 the coefficient of determination (1 when y is
 * constant and fitted exactly, 0 when n < 2). */
void gp_linear_fit(const double *x, const double *y, size_t n, double *a, double *b, double *r2);

/* Months from now (0..horizon) until demand growing from `now_gpus` by `monthly_growth`
 * (compounding) needs more than `fleet_gpus`; -1 when it never does within the horizon. */
int gp_months_until_exceeded(double now_gpus, double monthly_growth, double fleet_gpus,
                             int horizon);

#endif
