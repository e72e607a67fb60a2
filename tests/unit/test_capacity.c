/* Capacity arithmetic against hand-computed values. */
#include <string.h>

#include "gpuplan/capacity.h"
#include "testutil.h"

static void test_hist_quantiles(void **state) {
    (void)state;
    long long h[GP_UTIL_BINS] = {0};
    h[10] = 4;                                         /* four buckets at 50..55 % */
    assert_close(gp_hist_quantile(h, 0.5), 52.5, REL); /* interpolated inside the bin */
    h[10] = 0;
    h[0] = 10, h[20] = 10; /* half idle, half flat out */
    assert_close(gp_hist_quantile(h, 0.25), 2.5, REL);
    assert_close(gp_hist_quantile(h, 0.5), 5.0, REL);
    assert_close(gp_hist_quantile(h, 0.95), 100.0, REL);
    assert_int_equal(gp_hist_at_least(h, 5), 10);
    assert_int_equal(gp_hist_at_least(h, 100), 10);
    long long empty[GP_UTIL_BINS] = {0};
    assert_close(gp_hist_quantile(empty, 0.5), 0.0, REL);
}

static void test_sorted_quantile(void **state) {
    (void)state;
    double v[] = {1, 1, 5, 5};
    assert_close(gp_sorted_quantile(v, 4, 0.0), 1, REL);
    assert_close(gp_sorted_quantile(v, 4, 0.5), 3, REL); /* between order statistics 2 and 3 */
    assert_close(gp_sorted_quantile(v, 4, 1.0), 5, REL);
    assert_close(gp_sorted_quantile(v, 0, 0.5), 0, REL);
}

static void test_linear_fit(void **state) {
    (void)state;
    /* y = 2 + 3x exactly: R^2 = 1. */
    double x[] = {0, 1, 2, 3}, y[] = {2, 5, 8, 11};
    double a, b, r2;
    gp_linear_fit(x, y, 4, &a, &b, &r2);
    assert_close(a, 2, REL);
    assert_close(b, 3, REL);
    assert_close(r2, 1, REL);
    /* y = 1, 3, 2, 4: mean x 1.5, mean y 2.5; sxy = 2.25 - 0.25 - 0.25 + 2.25 = 4,
     * sxx = 5, syy = 5: b = 0.8, a = 2.5 - 1.2 = 1.3, R^2 = 16 / 25 = 0.64. */
    double y2[] = {1, 3, 2, 4};
    gp_linear_fit(x, y2, 4, &a, &b, &r2);
    assert_close(b, 0.8, REL);
    assert_close(a, 1.3, REL);
    assert_close(r2, 0.64, REL);
}

static void test_months_until_exceeded(void **state) {
    (void)state;
    assert_int_equal(gp_months_until_exceeded(8, 0.05, 8, 36), 1); /* 8.4 > 8 */
    assert_int_equal(gp_months_until_exceeded(9, 0.05, 8, 36), 0);
    assert_int_equal(gp_months_until_exceeded(4, 0.0, 8, 36), -1);
    /* 4 * 1.1^m > 8 first at m = 8 (1.1^7 = 1.949, 1.1^8 = 2.144). */
    assert_int_equal(gp_months_until_exceeded(4, 0.1, 8, 36), 8);
}

static void test_figures(void **state) {
    (void)state;
    /* 24 buckets: 12 idle at 60 W, 12 busy at 100 % and 400 W. */
    gp_cap_gpu g;
    memset(&g, 0, sizeof g);
    g.buckets = 24;
    g.util_sum = 1200;
    g.hist[0] = 12, g.hist[20] = 12;
    g.power_n = 24;
    g.power_sum = 12 * 60 + 12 * 400;
    g.busy_power_n = 12;
    g.busy_power_sum = 12 * 400;
    gp_cap_figures f;
    gp_cap_figures_of(&g, 5, &f);
    assert_close(f.hours, 2, REL);
    assert_close(f.util_mean, 50, REL);
    assert_close(f.busy_share, 0.5, REL);
    assert_close(f.busy_hours_per_day, 12, REL);
    assert_close(f.power_mean_w, 230, REL);
    assert_close(f.energy_kwh, 230 * 2 / 1000.0, REL);
    assert_close(f.idle_w, 60, REL);
    assert_close(f.busy_w, 400, REL);
    assert_false(f.idle);
    gp_cap_gpu h = g;
    gp_cap_gpu_merge(&h, &g);
    assert_int_equal(h.buckets, 48);
    assert_int_equal(h.hist[20], 24);
}

/* Buckets where a unit is missing are gaps; the rest come back sorted ascending. */
/* A GPU that never left 0 %: every percentile is 0, not an interpolation inside [0, 5). A
 * group's power p95 comes from merged 10 W bins, as the bin's upper edge. */
static void test_idle_and_power_p95(void **state) {
    (void)state;
    gp_cap_gpu a = {0}, b = {0}, sum = {0};
    a.buckets = 12;
    a.hist[0] = 12;
    gp_cap_figures f;
    gp_cap_figures_of(&a, 5, &f);
    assert_close(f.util_p50, 0, REL);
    assert_close(f.util_p99, 0, REL);
    assert_false(f.has_power_p95);
    /* Near 0 but not 0: the histogram's resolution speaks. */
    a.util_sum = 12;
    gp_cap_figures_of(&a, 5, &f);
    assert_close(f.util_p50, 2.5, REL);

    for (int h = 0; h < 19; h++)
        a.power_hist[6]++; /* 60..70 W */
    b.power_hist[40] = 1;  /* 400..410 W */
    gp_cap_gpu_merge(&sum, &a);
    gp_cap_gpu_merge(&sum, &b);
    gp_cap_figures_of(&sum, 5, &f);
    assert_true(f.has_power_p95);
    assert_close(f.power_p95_w, 70, REL); /* 19 of 20 hours at or under 70 W */
    b.power_hist[40] = 2;
    gp_cap_gpu_merge(&sum, &b);
    gp_cap_figures_of(&sum, 5, &f);
    assert_close(f.power_p95_w, 410, REL);
}

/* The slope's standard error: 0 on an exact line, the textbook value on a known set. */
static void test_slope_stderr(void **state) {
    (void)state;
    double x[] = {0, 1, 2, 3, 4}, line[] = {1, 3, 5, 7, 9}, y[] = {1, 3, 4, 8, 9};
    double a, b, r2;
    gp_linear_fit(x, line, 5, &a, &b, &r2);
    assert_close(gp_slope_stderr(x, line, 5, a, b), 0, REL);
    gp_linear_fit(x, y, 5, &a, &b, &r2);
    assert_close(b, 2.1, REL);
    /* residuals 0.2, 0.1, -1, 0.9, -0.2: RSS 1.9; Sxx 10; se = sqrt(1.9 / 3 / 10) */
    assert_close(gp_slope_stderr(x, y, 5, a, b), sqrt(1.9 / 30), 1e-12);
    assert_true(isnan(gp_slope_stderr(x, y, 2, a, b)));
}

/* A wall counts as a server's base only over GPUs that drew power and at least their draw. */
static void test_wall_is_base(void **state) {
    (void)state;
    assert_true(gp_cap_wall_is_base(&(gp_cap_wall){"n", 215, 150}));
    assert_true(gp_cap_wall_is_base(&(gp_cap_wall){"n", 150, 150}));
    assert_false(gp_cap_wall_is_base(&(gp_cap_wall){"bmc", 206, 0}));
    assert_false(gp_cap_wall_is_base(&(gp_cap_wall){"other", 429, 588.1}));
}

static void test_complete_load(void **state) {
    (void)state;
    gp_cap_bucket b[] = {{0, 4, 0, 3}, {300000, 3, 0, 1}, {600000, 4, 0, 0}, {900000, 4, 0, 2}};
    double out[4];
    assert_int_equal(gp_cap_complete_load(b, 4, 4, out), 3);
    assert_true(out[0] == 0 && out[1] == 2 && out[2] == 3);
    assert_int_equal(gp_cap_complete_load(b, 4, 0, out), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_quantiles),
        cmocka_unit_test(test_sorted_quantile),
        cmocka_unit_test(test_linear_fit),
        cmocka_unit_test(test_months_until_exceeded),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_complete_load),
        cmocka_unit_test(test_idle_and_power_p95),
        cmocka_unit_test(test_slope_stderr),
        cmocka_unit_test(test_wall_is_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
