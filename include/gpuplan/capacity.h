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
/* Hourly mean power in 10 W bins: bin k holds [10k, 10k + 10), the last 2,000 W and above. */
#define GP_POWER_BIN_W 10
#define GP_POWER_BINS 201

/* One GPU's aggregates over a window (filled by the store, store_capacity.h). */
typedef struct gp_cap_gpu {
    long long id;
    const char *node, *host, *uuid, *model, *mig;
    const char *raw_model; /* as the source reported it; may be NULL or "" */
    int index;
    long long buckets; /* 5-minute buckets with utilization data */
    double util_sum;   /* the sum of their mean utilization, % */
    long long hist[GP_UTIL_BINS];
    long long power_n;      /* buckets with a power reading */
    double power_sum;       /* the sum of their mean power, W */
    long long busy_power_n; /* of those, buckets busy at 5 % */
    double busy_power_sum;
    bool has_power_p95;
    double power_p95_w; /* p95 of the GPU's hourly mean power (exact, from the store) */
    long long power_hist[GP_POWER_BINS]; /* its hourly means binned: p95 of a sum of GPUs */
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
    double util_mean, util_p50, util_p95, util_p99; /* %; percentiles at 5 % resolution */
    double busy_share;                              /* busy GPU-buckets / GPU-buckets, 0..1 */
    double busy_hours_per_day;
    bool has_power;
    double power_mean_w, energy_kwh; /* energy over the buckets with power */
    bool has_power_p95;
    double power_p95_w;    /* p95 of the hourly mean power of a GPU, 10 W resolution */
    double busy_w, idle_w; /* mean draw of busy and of idle buckets (5 % split) */
    bool has_busy_w, has_idle_w;
    bool idle; /* mean utilization under 5 % */
} gp_cap_figures;

/* ---- a capacity analysis, as src/app/ finds it and src/report/ renders it ---------------- */

/* One GPU (or MIG instance) of the window, with its figures. */
typedef struct gp_cap_row {
    gp_cap_gpu g; /* its strings point into the fields below */
    gp_cap_figures f;
    char node[128], host[128], uuid[96], model[64], mig[32], raw_model[96];
} gp_cap_row;

/* A model's or a node's GPUs summed. */
typedef struct gp_cap_group {
    char key[160];
    char display[48]; /* a model's readable name (gp_gpu_display_name); a node's: its key */
    gp_cap_gpu sum;
    gp_cap_figures f;
    long long gpus; /* whole GPUs (MIG instances are parts of one) */
} gp_cap_group;

/* A node's mean wall power (Redfish) against its GPUs' mean power. */
typedef struct gp_cap_wall {
    char node[128];
    double wall_w, gpus_w;
} gp_cap_wall;

/* Use attributed to one value of a workload label. */
typedef struct gp_cap_usage {
    char *value;    /* NULL: samples without the label */
    double buckets; /* GPU-buckets: a MIG instance's at its share of the GPU */
    double util_sum, power_sum;
    double allin; /* its share of the fleet's all-in cost: used GPU-hours x the hourly rate */
} gp_cap_usage;

typedef struct gp_capacity {
    int64_t from_ms, until_ms;
    int threshold; /* busy at a 5-minute mean of at least this %, a multiple of 5 */
    bool has_price;
    double price, pue; /* per kWh; PUE 1 without a price */
    char currency[4];
    gp_cap_row *rows;
    size_t n;
    gp_cap_bucket *b; /* the selection's buckets in time order */
    size_t nb;
    long long gpus;   /* whole GPUs of the selection */
    double *ldc;      /* complete buckets' busy GPU equivalents, descending */
    size_t nl;        /* complete buckets */
    size_t partial;   /* buckets with some GPU missing */
    long long window; /* 5-minute buckets in the window */
    long long empty;  /* of them, without any data */
    gp_cap_gpu fleet; /* every row summed */
    gp_cap_figures fleet_f;
    gp_cap_group *models, *nodes; /* in first-seen order */
    size_t nm, nn;
    gp_cap_wall *walls;
    size_t nw;
    const char *by; /* the label attributed to, NULL when none was asked for */
    gp_cap_usage *usage;
    size_t nu;
    /* Chargeback (with a scenario): the all-in cost of a provisioned GPU-hour as the scenario
     * prices owning (ownership, energy, colocation, staff: its self-hosted total over its
     * GPUs and months), the fleet's cost over the GPU-hours present, and what no label used. */
    bool has_allin;
    double allin_per_gpu_hour, allin_fleet, allin_idle;
    /* "": computed from the store; else the URL of the Prometheus-compatible server whose
     * server-side aggregation gave the figures (capacity --prometheus). */
    char server[256];
    /* With a server: which series it aggregated (recorded or raw) and why. */
    char series[256];
} gp_capacity;

/* A least-squares trend of daily busy GPU-hours, as a monthly growth rate with its
 * confidence: significant when fitted on a week of days or more and its slope is at least
 * twice its standard error (about 95 % that it is not zero). */
typedef struct gp_cap_trend {
    double slope, slope_se; /* busy GPU-hours a day, per day */
    size_t days;
    double r2;
    double growth, growth_se; /* a month, over the latest fitted level */
    bool significant;
} gp_cap_trend;

/* Whole GPUs of one model in a measured fleet. */
typedef struct gp_mix_model {
    char model[64];
    char raw_model[96]; /* as its first GPU reported it, for its readable name */
    long long gpus;
} gp_mix_model;

/* A mixed fleet planned on the measured load: own k GPUs, rent the overflow. */
typedef struct gp_mix_plan {
    int n;         /* the scenario's demand.gpus: curve[0..n] */
    double *curve; /* the horizon total owning k GPUs and renting the overflow */
    int best;      /* the k of the lowest total */
    char currency[4];
    int horizon_months;
    size_t buckets, gaps; /* complete buckets planned on; buckets with a GPU missing */
    long long units;      /* physical GPUs measured */
    double peak, median;  /* busy GPUs in the complete buckets */
    /* With growth: */
    bool has_growth, trend;
    gp_cap_trend tr; /* with trend: the fit */
    bool projected;  /* false: a trend too weak to project (and not forced) */
    double growth;   /* a month, the rate given or the trend's */
    double busy_now; /* busy GPU equivalents now: the window's mean */
    double need_now; /* GPUs needed now at the target */
    double target;
    int runs_out; /* the month demand exceeds n; -1: never within the horizon */
    /* The measured fleet: whole GPUs by model, largest first (at most 8 models named). */
    long long measured_gpus;
    gp_mix_model models[8];
    int n_models;
} gp_mix_plan;

/* Derive the figures of g at threshold_pct (a multiple of 5, 5..100). Utilization percentiles
 * come from the 5 % histogram (interpolated inside a bin), except that GPUs that never left
 * 0 % read 0 % at every percentile. */
void gp_cap_figures_of(const gp_cap_gpu *g, int threshold_pct, gp_cap_figures *out);

/* Add b's counts into a (sums for per-node, per-model and fleet figures). */
void gp_cap_gpu_merge(gp_cap_gpu *a, const gp_cap_gpu *b);

/* Whether a node's wall less its GPUs is a server's base draw: its GPUs drew power in the
 * window and the wall is at least that (a BMC-only node, or a wall below its GPUs, is not). */
bool gp_cap_wall_is_base(const gp_cap_wall *w);

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

/* The standard error of the slope b of a least-squares fit y = a + b x (NaN when n < 3): how
 * far a trend can be trusted. */
double gp_slope_stderr(const double *x, const double *y, size_t n, double a, double b);

/* Months from now (0..horizon) until demand growing from `now_gpus` by `monthly_growth`
 * (compounding) needs more than `fleet_gpus`; -1 when it never does within the horizon. */
int gp_months_until_exceeded(double now_gpus, double monthly_growth, double fleet_gpus,
                             int horizon);

#endif
