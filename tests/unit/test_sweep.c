/* Sweeps: grid values, range checks, and agreement with the full evaluation at every point. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_sweep.h"
#include "gpuplan/model.h"
#include "gpuplan/sweep.h"
#include "testutil.h"

static gp_scenario base;
static gp_result *res;

static int setup(void **state) {
    (void)state;
    gp_scenario_defaults(&base);
    snprintf(base.name, sizeof base.name, "sweep");
    base.horizon_months = 36;
    base.gpus = 80;
    base.utilization = 0.6;
    base.server_price = 125000;
    base.server_base_w = 1500;
    base.gpu_idle_w = 50;
    base.gpu_tdp_w = 400;
    base.n_periods = 2;
    base.periods[0] = (gp_period){"day", 16, 0.2};
    base.periods[1] = (gp_period){"night", 8, 0.1};
    base.shift_to_cheapest = true;
    base.financing = GP_LOAN;
    base.loan_apr = 0.07;
    base.loan_term_months = 48;
    base.n_options = 2;
    gp_option_defaults(&base.options[0]);
    snprintf(base.options[0].name, sizeof base.options[0].name, "od");
    base.options[0].gpus_per_instance = 8;
    base.options[0].hourly = 32.784;
    gp_option_defaults(&base.options[1]);
    snprintf(base.options[1].name, sizeof base.options[1].name, "commit");
    base.options[1].pricing = GP_COMMITTED;
    base.options[1].gpus_per_instance = 8;
    base.options[1].hourly = 22.949;
    base.options[1].upfront = 10000;
    res = malloc(sizeof *res);
    return res ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(res);
    return 0;
}

static void test_values(void **state) {
    (void)state;
    gp_sweep_axis a = {GP_SWEEP_UTILIZATION, 0, 0.1, 0.9, 5};
    assert_close(gp_sweep_value(&a, 0), 0.1, REL);
    assert_close(gp_sweep_value(&a, 2), 0.5, REL);
    assert_close(gp_sweep_value(&a, 4), 0.9, REL);
    gp_sweep_axis g = {GP_SWEEP_GPUS, 0, 8, 10, 4}; /* 8, 8.67, 9.33, 10 -> rounded */
    assert_close(gp_sweep_value(&g, 1), 9, REL);
    assert_close(gp_sweep_value(&g, 2), 9, REL);
    gp_sweep_axis one = {GP_SWEEP_PUE, 0, 1.3, 2.0, 1};
    assert_close(gp_sweep_value(&one, 0), 1.3, REL);
}

static void test_checks(void **state) {
    (void)state;
    gp_err err;
    gp_sweep_axis u = {GP_SWEEP_UTILIZATION, 0, 0, 1.2, 3};
    assert_int_equal(gp_sweep_check(&base, &u, 1, &err), GP_E_INPUT);
    gp_sweep_axis p = {GP_SWEEP_PUE, 0, 0.5, 1.5, 3};
    assert_int_equal(gp_sweep_check(&base, &p, 1, &err), GP_E_INPUT);
    gp_sweep_axis h = {GP_SWEEP_HOURLY, 5, 1, 2, 3};
    assert_int_equal(gp_sweep_check(&base, &h, 1, &err), GP_E_INPUT);
    gp_sweep_axis z = {GP_SWEEP_GPUS, 0, 1, 10, 0};
    assert_int_equal(gp_sweep_check(&base, &z, 1, &err), GP_E_INPUT);
    gp_sweep_axis big[3] = {{GP_SWEEP_GPUS, 0, 1, 10, 1 << 20},
                            {GP_SWEEP_PUE, 0, 1, 2, 1 << 20},
                            {GP_SWEEP_UTILIZATION, 0, 0, 1, 2}};
    assert_int_equal(gp_sweep_check(&base, big, 3, &err), GP_E_INPUT);
    gp_sweep_axis ok = {GP_SWEEP_HORIZON, 0, 1, 240, 10};
    assert_int_equal(gp_sweep_check(&base, &ok, 1, &err), GP_OK);
    /* A plan over time has no closed form: refused, not swept with version 1 numbers. */
    gp_scenario grows = base;
    grows.growth_per_month = 0.02;
    assert_int_equal(gp_sweep_check(&grows, &ok, 1, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "version 1"));
}

typedef struct seen {
    int n;
    gp_sweep_axis axes[3];
} seen;

/* Every point's closed-form totals equal a full evaluation of the same inputs. */
static int check_point(const double *v, double self, const double *opts, int cheapest, void *arg) {
    seen *s = arg;
    gp_scenario x = base;
    x.utilization = v[0];
    double mean = (16 * 0.2 + 8 * 0.1) / 24;
    x.periods[0].price_per_kwh = 0.2 * v[1] / mean;
    x.periods[1].price_per_kwh = 0.1 * v[1] / mean;
    x.options[0].hourly = v[2];
    gp_model_evaluate(&x, res);
    assert_close(self, res->self.total, 1e-9);
    assert_close(opts[0], res->options[0].total, 1e-9);
    assert_close(opts[1], res->options[1].total, 1e-9);
    assert_int_equal(cheapest, res->cheapest);
    s->n++;
    return 0;
}

static void test_matches_evaluate(void **state) {
    (void)state;
    seen s = {0,
              {{GP_SWEEP_UTILIZATION, 0, 0, 1, 11},
               {GP_SWEEP_PRICE_PER_KWH, 0, 0.05, 0.5, 4},
               {GP_SWEEP_HOURLY, 0, 5, 40, 6}}};
    uint64_t points = 0;
    gp_err err;
    assert_int_equal(gp_sweep_run(&base, s.axes, 3, check_point, &s, &points, &err), GP_OK);
    assert_int_equal(points, 11 * 4 * 6);
    assert_int_equal(s.n, 11 * 4 * 6);
}

static int record_gpus(const double *v, double self, const double *opts, int cheapest, void *arg) {
    (void)opts;
    (void)cheapest;
    gp_scenario x = base;
    x.gpus = (int)v[0];
    x.horizon_months = (int)v[1];
    gp_model_evaluate(&x, res);
    assert_close(self, res->self.total, 1e-9);
    (*(int *)arg)++;
    return 0;
}

static void test_integer_axes(void **state) {
    (void)state;
    gp_sweep_axis axes[2] = {{GP_SWEEP_GPUS, 0, 1, 100, 7}, {GP_SWEEP_HORIZON, 0, 1, 60, 5}};
    int n = 0;
    uint64_t points;
    gp_err err;
    assert_int_equal(gp_sweep_run(&base, axes, 2, record_gpus, &n, &points, &err), GP_OK);
    assert_int_equal(n, 35);
}

static int stop_early(const double *v, double self, const double *opts, int cheapest, void *arg) {
    (void)v, (void)self, (void)opts, (void)cheapest;
    return ++*(int *)arg == 3;
}

static void test_stop(void **state) {
    (void)state;
    gp_sweep_axis a = {GP_SWEEP_SERVER_PRICE, 0, 1000, 2000, 100};
    int n = 0;
    uint64_t points;
    gp_err err;
    assert_int_equal(gp_sweep_run(&base, &a, 1, stop_early, &n, &points, &err), GP_OK);
    assert_int_equal(points, 3);
}

/* The summary service against a count taken point by point: wins, and flips within a row. */
typedef struct tally {
    uint64_t wins[GP_MAX_OPTIONS + 1], flips, n;
    int prev;
    double first_flip_at;
} tally;

static int count_point(const double *v, double self, const double *opts, int cheapest, void *arg) {
    (void)self, (void)opts;
    tally *t = arg;
    t->wins[cheapest + 1]++;
    if (t->n++ % 21 != 0 && cheapest != t->prev && t->flips++ == 0)
        t->first_flip_at = v[1];
    t->prev = cheapest;
    return 0;
}

static void test_summary(void **state) {
    (void)state;
    gp_sweep_axis axes[2] = {{GP_SWEEP_PRICE_PER_KWH, 0, 0.05, 0.5, 4},
                             {GP_SWEEP_UTILIZATION, 0, 0.05, 1, 21}};
    tally t = {{0}, 0, 0, 0, 0};
    uint64_t points;
    gp_err err;
    assert_int_equal(gp_sweep_run(&base, axes, 2, count_point, &t, &points, &err), GP_OK);
    gp_sweep_summary sum;
    assert_int_equal(gp_sweep_summarize(&base, axes, 2, &sum, &err), GP_OK);
    assert_int_equal(sum.points, 4 * 21);
    assert_memory_equal(sum.wins, t.wins, sizeof t.wins);
    assert_int_equal(sum.n_flips, t.flips);
    assert_true(t.flips > 0);
    assert_close(sum.flips[0].values[1], t.first_flip_at, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_matches_evaluate),
        cmocka_unit_test(test_integer_axes),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
