/* Capacity arithmetic: histogram quantiles, order-statistic quantiles, least squares. */
#include "gpuplan/capacity.h"

#include <math.h>
#include <stdlib.h>

double gp_hist_quantile(const long long *hist, double p) {
    long long total = 0;
    for (int k = 0; k < GP_UTIL_BINS; k++)
        total += hist[k];
    if (total == 0)
        return 0.0;
    double target = p * (double)total;
    double cum = 0.0;
    for (int k = 0; k < GP_UTIL_BINS; k++) {
        double next = cum + (double)hist[k];
        if (hist[k] > 0 && next >= target) {
            if (k == GP_UTIL_BINS - 1)
                return 100.0;
            double frac = (target - cum) / (double)hist[k];
            return 5.0 * k + 5.0 * (frac < 0 ? 0 : frac);
        }
        cum = next;
    }
    return 100.0;
}

long long gp_hist_at_least(const long long *hist, int threshold_pct) {
    long long n = 0;
    for (int k = threshold_pct / 5; k < GP_UTIL_BINS; k++)
        n += hist[k];
    return n;
}

static int cmp_asc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

size_t gp_cap_complete_load(const gp_cap_bucket *b, size_t nb, long long units, double *out) {
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        if (units > 0 && b[i].gpus >= units)
            out[n++] = (double)b[i].busy;
    if (n > 0) /* out may be NULL when there are no buckets */
        qsort(out, n, sizeof *out, cmp_asc);
    return n;
}

double gp_sorted_quantile(const double *sorted, size_t n, double p) {
    if (n == 0)
        return 0.0;
    double pos = p * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n)
        return sorted[n - 1];
    double f = pos - (double)lo;
    return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * f;
}

void gp_linear_fit(const double *x, const double *y, size_t n, double *a, double *b, double *r2) {
    *a = *b = *r2 = 0.0;
    if (n == 0)
        return;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++)
        mx += x[i], my += y[i];
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    *b = sxx > 0 ? sxy / sxx : 0.0;
    *a = my - *b * mx;
    if (n < 2)
        return;
    *r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : (sxx > 0 ? 1.0 : 0.0);
}

int gp_months_until_exceeded(double now_gpus, double monthly_growth, double fleet_gpus,
                             int horizon) {
    double d = now_gpus;
    for (int m = 0; m <= horizon; m++) {
        if (d > fleet_gpus)
            return m;
        d *= 1.0 + monthly_growth;
    }
    return -1;
}

/* The p95 of binned hourly means: the upper edge of the bin it falls in (a bound, never an
 * underestimate); false when nothing was binned. */
static bool power_p95(const long long *hist, double *out) {
    long long total = 0;
    for (int k = 0; k < GP_POWER_BINS; k++)
        total += hist[k];
    if (total == 0)
        return false;
    double target = 0.95 * (double)total, cum = 0;
    int k = 0;
    for (; k < GP_POWER_BINS - 1; k++) {
        cum += (double)hist[k];
        if (cum >= target)
            break;
    }
    *out = (double)(k + 1) * GP_POWER_BIN_W;
    return true;
}

void gp_cap_figures_of(const gp_cap_gpu *g, int threshold_pct, gp_cap_figures *out) {
    gp_cap_figures f = {0};
    f.hours = (double)g->buckets * 5.0 / 60.0;
    if (g->buckets > 0) {
        f.util_mean = g->util_sum / (double)g->buckets;
        /* Every bucket at exactly 0 % (a sum of 0): no interpolation inside the first bin. */
        bool all_zero = g->util_sum <= 0;
        f.util_p50 = all_zero ? 0 : gp_hist_quantile(g->hist, 0.50);
        f.util_p95 = all_zero ? 0 : gp_hist_quantile(g->hist, 0.95);
        f.util_p99 = all_zero ? 0 : gp_hist_quantile(g->hist, 0.99);
        f.busy_share = (double)gp_hist_at_least(g->hist, threshold_pct) / (double)g->buckets;
        f.busy_hours_per_day = 24.0 * f.busy_share;
    }
    if (g->power_n > 0) {
        f.has_power = true;
        f.power_mean_w = g->power_sum / (double)g->power_n;
        f.energy_kwh = g->power_sum * (5.0 / 60.0) / 1000.0;
    }
    f.has_power_p95 = power_p95(g->power_hist, &f.power_p95_w);
    if (g->busy_power_n > 0) {
        f.has_busy_w = true;
        f.busy_w = g->busy_power_sum / (double)g->busy_power_n;
    }
    long long idle_n = g->power_n - g->busy_power_n;
    if (idle_n > 0) {
        f.has_idle_w = true;
        f.idle_w = (g->power_sum - g->busy_power_sum) / (double)idle_n;
    }
    f.idle = g->buckets > 0 && f.util_mean < 5.0;
    *out = f;
}

bool gp_cap_wall_is_base(const gp_cap_wall *w) {
    return w->gpus_w > 0 && w->wall_w >= w->gpus_w;
}

void gp_cap_gpu_merge(gp_cap_gpu *a, const gp_cap_gpu *b) {
    a->buckets += b->buckets;
    a->util_sum += b->util_sum;
    for (int k = 0; k < GP_UTIL_BINS; k++)
        a->hist[k] += b->hist[k];
    a->power_n += b->power_n;
    a->power_sum += b->power_sum;
    a->busy_power_n += b->busy_power_n;
    a->busy_power_sum += b->busy_power_sum;
    for (int k = 0; k < GP_POWER_BINS; k++)
        a->power_hist[k] += b->power_hist[k];
}

double gp_slope_stderr(const double *x, const double *y, size_t n, double a, double b) {
    if (n < 3)
        return NAN;
    double mx = 0, rss = 0, sxx = 0;
    for (size_t i = 0; i < n; i++)
        mx += x[i];
    mx /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (a + b * x[i]);
        rss += r * r;
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sqrt(rss / (double)(n - 2) / sxx) : NAN;
}
