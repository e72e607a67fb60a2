/* Sweeps: grid values, range checks, and agreement with the full evaluation at every point. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_sweep.h"
#include "gpuplan/engine.h"
#include "gpuplan/report_sweep.h"
#include "gpuplan/sensitivity.h"
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
    /* A plan over time: its horizon is not swept past its own (steps past it were dropped). */
    gp_scenario grows = base;
    grows.growth_per_month = 0.02;
    assert_int_equal(gp_sweep_check(&grows, &ok, 1, &err), GP_E_INPUT);
    assert_string_equal(err.where, "horizon_months");
    gp_sweep_axis shorter = {GP_SWEEP_HORIZON, 0, 12, 36, 3};
    assert_int_equal(gp_sweep_check(&grows, &shorter, 1, &err), GP_OK);
}

/* Version 2 parameters: each range and rule, the axis named. */
static void test_checks_v2(void **state) {
    (void)state;
    gp_err err;
    struct {
        gp_sweep_axis a;
        const char *where; /* NULL: accepted */
    } cases[] = {
        {{GP_SWEEP_GROWTH, 0, -0.5, 1, 3}, NULL},
        {{GP_SWEEP_GROWTH, 0, -0.6, 0.1, 3}, "growth_per_month"},
        {{GP_SWEEP_LEAD_TIME, 0, 0, 24, 3}, NULL},
        {{GP_SWEEP_LEAD_TIME, 0, 0, 25, 3}, "lead_time_months"},
        {{GP_SWEEP_LEAD_TIME, 0, -1, 3, 3}, "lead_time_months"},
        {{GP_SWEEP_ORDER_EVERY, 0, 1, 36, 3}, NULL},
        {{GP_SWEEP_ORDER_EVERY, 0, 1, 37, 3}, "order_every_months"},
        {{GP_SWEEP_ORDER_EVERY, 0, 0, 3, 3}, "order_every_months"},
        {{GP_SWEEP_MAX_SERVERS, 0, 1, 1000000, 3}, NULL},
        {{GP_SWEEP_MAX_SERVERS, 0, 0, 10, 3}, "max_servers"},
        {{GP_SWEEP_SERVER_PRICE_TREND, 0, -0.9, 1, 3}, NULL},
        {{GP_SWEEP_SERVER_PRICE_TREND, 0, -0.95, 0, 3}, "server_price_trend_per_year"},
        {{GP_SWEEP_ENERGY_PRICE_TREND, 0, 0, 1.5, 3}, "energy_price_trend_per_year"},
        {{GP_SWEEP_OPTION_PRICE_TREND, 1, -0.2, 0.2, 3}, NULL},
        {{GP_SWEEP_OPTION_PRICE_TREND, 2, -0.2, 0.2, 3}, "price_trend_per_year"},
        {{GP_SWEEP_OPTION_PRICE_TREND, 0, 0.5, 1.2, 3}, "price_trend_per_year"},
        /* Throughputs belong to work mode. */
        {{GP_SWEEP_WORK_PER_GPU_HOUR, 0, 1, 2, 3}, "work_per_gpu_hour"},
        {{GP_SWEEP_OPTION_WORK_PER_GPU, 0, 1, 2, 3}, "work_per_gpu_hour"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_status rc = gp_sweep_check(&base, &cases[i].a, 1, &err);
        if (!cases[i].where) {
            assert_int_equal(rc, GP_OK);
        } else {
            assert_int_equal(rc, GP_E_INPUT);
            assert_string_equal(err.where, cases[i].where);
        }
    }
    /* A lead time must stay below every horizon the grid holds. */
    gp_sweep_axis both[2] = {{GP_SWEEP_HORIZON, 0, 6, 36, 4}, {GP_SWEEP_LEAD_TIME, 0, 0, 6, 3}};
    assert_int_equal(gp_sweep_check(&base, both, 2, &err), GP_E_INPUT);
    assert_string_equal(err.where, "lead_time_months");
    both[1].to = 5;
    assert_int_equal(gp_sweep_check(&base, both, 2, &err), GP_OK);
    /* One input, one axis. */
    gp_sweep_axis twice[2] = {{GP_SWEEP_UTILIZATION, 0, 0, 1, 3},
                              {GP_SWEEP_UTILIZATION, 0, 0, 1, 3}};
    assert_int_equal(gp_sweep_check(&base, twice, 2, &err), GP_E_INPUT);
    gp_sweep_axis two_options[2] = {{GP_SWEEP_HOURLY, 0, 1, 2, 3}, {GP_SWEEP_HOURLY, 1, 1, 2, 3}};
    assert_int_equal(gp_sweep_check(&base, two_options, 2, &err), GP_OK);
    /* Growth only without steps. */
    gp_scenario stepped = base;
    stepped.n_steps = 1;
    stepped.steps[0] = (gp_step){.month = 12, .has_gpus = true, .gpus = 120};
    gp_sweep_axis g = {GP_SWEEP_GROWTH, 0, 0, 0.02, 3};
    assert_int_equal(gp_sweep_check(&stepped, &g, 1, &err), GP_E_INPUT);
    /* Work mode: throughputs in range, utilization above 0, no gpus axis. */
    gp_scenario work = base;
    work.work_mode = true;
    work.work_per_month = 1e6;
    work.work_per_gpu_hour = 2;
    work.options[0].work_per_gpu_hour = 1;
    work.options[1].work_per_gpu_hour = 1;
    gp_sweep_axis w[4] = {{GP_SWEEP_WORK_PER_GPU_HOUR, 0, 0.5, 4, 3},
                          {GP_SWEEP_OPTION_WORK_PER_GPU, 1, 0, 4, 3},
                          {GP_SWEEP_UTILIZATION, 0, 0, 1, 3},
                          {GP_SWEEP_GPUS, 0, 8, 16, 3}};
    assert_int_equal(gp_sweep_check(&work, &w[0], 1, &err), GP_OK);
    assert_int_equal(gp_sweep_check(&work, &w[1], 1, &err), GP_E_INPUT);
    assert_int_equal(gp_sweep_check(&work, &w[2], 1, &err), GP_E_INPUT);
    assert_int_equal(gp_sweep_check(&work, &w[3], 1, &err), GP_E_INPUT);
    /* Names: every one found, an unknown one not, and the list holds them all. */
    gp_sweep_param p;
    for (int i = 0; i < GP_SWEEP_N_PARAMS; i++) {
        assert_int_equal(gp_sweep_param_find(gp_sweep_param_name(i), &p, &err), GP_OK);
        assert_string_equal(gp_sweep_param_name(p), gp_sweep_param_name(i));
    }
    assert_int_equal(gp_sweep_param_find("growth", &p, &err), GP_E_NOTFOUND);
    char list[600];
    size_t need = gp_sweep_param_list(list, sizeof list);
    assert_true(need < sizeof list);
    assert_non_null(strstr(list, "lead_time_months"));
    assert_non_null(strstr(list, "price_trend_per_year:OPTION"));
}

typedef struct seen {
    int n;
    gp_sweep_axis axes[3];
} seen;

/* Every point's steady totals equal a full evaluation of the same inputs. */
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

/* Version 2: every point's totals and cheapest are those of the full month-by-month
 * evaluation of the same plan, set by hand. */
static gp_scenario plan_v2;
static bool v2_exact; /* both through the engine: bit for bit; else the steady state's 1e-12 */

static int check_point_v2(const double *v, double self, const double *opts, int cheapest,
                          void *arg) {
    gp_scenario *x = malloc(sizeof *x);
    assert_non_null(x);
    *x = plan_v2;
    x->growth_per_month = v[0];
    x->lead_time_months = (int)v[1];
    x->options[0].price_trend_per_year = v[2];
    x->energy_price_trend_per_year = v[3];
    gp_model_evaluate(x, res);
    assert_int_equal(res->error.code, GP_OK);
    double rel = v2_exact ? 0 : 1e-12;
    assert_close(self, res->self.total, rel);
    assert_close(opts[0], res->options[0].total, rel);
    assert_close(opts[1], res->options[1].total, rel);
    assert_int_equal(cheapest, res->cheapest);
    (*(int *)arg)++;
    free(x);
    return 0;
}

static void test_matches_evaluate_v2(void **state) {
    (void)state;
    plan_v2 = base;
    plan_v2.buy = GP_BUY_AS_NEEDED;
    plan_v2.bridge = 0;
    plan_v2.order_every_months = 3;
    plan_v2.refresh_months = 24;
    gp_sweep_axis axes[4] = {{GP_SWEEP_GROWTH, 0, -0.01, 0.04, 3},
                             {GP_SWEEP_LEAD_TIME, 0, 0, 4, 3},
                             {GP_SWEEP_OPTION_PRICE_TREND, 0, -0.3, 0, 3},
                             {GP_SWEEP_ENERGY_PRICE_TREND, 0, 0, 0.1, 2}};
    int n = 0;
    uint64_t points;
    gp_err err;
    v2_exact = true;
    assert_int_equal(gp_sweep_run(&plan_v2, axes, 4, check_point_v2, &n, &points, &err), GP_OK);
    assert_int_equal(n, 3 * 3 * 3 * 2);
    /* A version 1 scenario swept into version 2 keys and back: each point as evaluated. */
    plan_v2 = base;
    v2_exact = false; /* the middle point is a version 1 plan: the steady state */
    gp_sweep_axis into[1] = {{GP_SWEEP_GROWTH, 0, -0.02, 0.02, 3}}; /* 0 in the middle */
    n = 0;
    assert_int_equal(gp_sweep_run(&plan_v2, into, 1, check_point_v2, &n, &points, &err), GP_OK);
    assert_int_equal(n, 3);
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

/* ---- the summary solved by rows against the one walked point by point ---------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rnd(void) { /* xorshift64*, uniform in [0, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int irnd(int lo, int hi) {
    return lo + (int)(rnd() * (hi - lo + 1));
}

static void random_option(gp_option *o, int i, gp_pricing pricing) {
    gp_option_defaults(o);
    snprintf(o->name, sizeof o->name, "o%d", i);
    o->pricing = pricing;
    o->gpus_per_instance = irnd(0, 1) ? 8 : 1;
    o->hourly = (o->gpus_per_instance == 8 ? 10 : 1.25) * (0.5 + 3 * rnd());
    if (pricing == GP_COMMITTED) {
        o->term_months = irnd(0, 1) ? 12 : 36;
        o->upfront = irnd(0, 1) ? 0 : 1000 * irnd(1, 20);
    } else {
        o->idle_overhead = irnd(0, 2) == 0 ? 0.1 * rnd() : 0;
    }
    if (pricing == GP_SPOT) {
        o->interruptions_per_hour = 0.02 * rnd();
        o->restart_h = rnd();
    }
    if (irnd(0, 3) == 0) {
        o->storage_gb = 1000;
        o->storage_per_gb_month = 0.02;
    }
    o->support_pct = irnd(0, 3) == 0 ? 0.1 : 0;
}

/* An API priced per unit of work (2.1), in place of option o's own pricing. */
static void random_per_unit(gp_option *o) {
    o->pricing = GP_PER_UNIT;
    o->price_per_unit = 0.05 + 2 * rnd();
    o->price_per_input_unit = irnd(0, 1) ? 0.5 * rnd() : 0;
    o->input_units_per_unit = o->price_per_input_unit > 0 ? 4 * rnd() : 0;
    o->term_months = 12;
    o->upfront = 0;
    o->interruptions_per_hour = o->restart_h = 0;
    gp_option_per_unit_sync(o);
}

/* A random scenario: version 1, or version 2 (growth or steps, as_needed, a lead time with a
 * bridge, cadence, trends, refresh, work mode, APIs priced per unit, some of them the
 * bridge). */
static void random_scenario(gp_scenario *s, bool v2) {
    *s = base;
    s->horizon_months = irnd(12, 60);
    s->gpus = irnd(1, 200);
    s->utilization = rnd();
    s->server_price = 50000 + 200000 * rnd();
    s->gpus_per_server = irnd(0, 1) ? 8 : 4;
    s->server_base_w = 500 + 2000 * rnd();
    s->gpu_idle_w = 30 + 50 * rnd();
    s->gpu_tdp_w = s->gpu_idle_w + 400 * rnd();
    s->pue = 1 + rnd();
    s->n_periods = irnd(1, 3);
    double left = 24;
    for (int k = 0; k < s->n_periods; k++) {
        double h = k + 1 == s->n_periods ? left : left * (0.2 + 0.6 * rnd());
        left -= h;
        snprintf(s->periods[k].name, sizeof s->periods[k].name, "p%d", k);
        s->periods[k].hours_per_day = h;
        s->periods[k].price_per_kwh = 0.05 + 0.3 * rnd();
    }
    s->shift_to_cheapest = irnd(0, 1);
    s->demand_charge_per_kw_month = irnd(0, 2) == 0 ? 10 * rnd() : 0;
    s->residual_pct = irnd(0, 1) ? 0.2 * rnd() : 0;
    s->maintenance_pct_per_year = 0.1 * rnd();
    s->staff_per_month = irnd(0, 1) ? 5000 : 0;
    s->financing = irnd(0, 1) ? GP_LOAN : GP_CASH;
    s->n_options = irnd(1, 4);
    random_option(&s->options[0], 0, GP_ON_DEMAND);
    for (int i = 1; i < s->n_options; i++)
        random_option(&s->options[i], i, (gp_pricing)irnd(0, 2));
    if (!v2)
        return;
    s->bridge = 0; /* the on-demand option: a lead time or a cap always has one */
    if (irnd(0, 1)) {
        s->growth_per_month = -0.02 + 0.08 * rnd();
    } else {
        s->n_steps = 1;
        s->steps[0] =
            (gp_step){.month = irnd(2, s->horizon_months), .has_gpus = true, .gpus = irnd(1, 300)};
    }
    s->buy = irnd(0, 1) ? GP_BUY_AS_NEEDED : GP_BUY_ALL_AT_ONCE;
    s->lead_time_months = irnd(0, 3);
    s->order_every_months = irnd(1, 3);
    if (irnd(0, 3) == 0) {
        s->has_max_servers = true;
        s->max_servers = irnd(1, 20);
    }
    s->server_price_trend_per_year = irnd(0, 1) ? -0.2 * rnd() : 0;
    s->energy_price_trend_per_year = irnd(0, 1) ? 0.1 * rnd() : 0;
    s->options[0].price_trend_per_year = irnd(0, 1) ? -0.3 * rnd() : 0;
    s->refresh_months = irnd(0, 2) == 0 ? 24 : 0;
    if (irnd(0, 2) == 0) { /* bulk tiers: each batch's discount follows its order's size */
        s->n_tiers = 2;
        s->tiers[0] = (gp_bulk_tier){.min_servers = irnd(2, 6), .pct = 0.05};
        s->tiers[1] = (gp_bulk_tier){.min_servers = irnd(8, 20), .pct = 0.12};
    }
    if (irnd(0, 3) == 0) { /* a resale curve instead of the straight line */
        s->n_resale = 2;
        s->resale[0] = (gp_resale_point){.age_months = 12, .pct = 0.7};
        s->resale[1] = (gp_resale_point){.age_months = 36, .pct = 0.3};
    }
    if (irnd(0, 3) == 0) { /* work mode */
        s->n_steps = 0;
        s->work_mode = true;
        s->work_per_month = 1000 + 100000 * rnd();
        s->work_per_gpu_hour = 0.5 + 2 * rnd();
        for (int i = 0; i < s->n_options; i++)
            s->options[i].work_per_gpu_hour = 0.5 + 2 * rnd();
        if (s->utilization < 0.05)
            s->utilization = 0.05;
        /* The bridge (option 0) an API half the time; any other option now and then. */
        for (int i = 0; i < s->n_options; i++)
            if (irnd(0, i == 0 ? 1 : 2) == 0)
                random_per_unit(&s->options[i]);
    }
}

/* A random option of s priced per_unit, or -1 when it has none. */
static int random_per_unit_option(const gp_scenario *s, bool per_unit) {
    int n = 0, pick[GP_MAX_OPTIONS];
    for (int i = 0; i < s->n_options; i++)
        if ((s->options[i].pricing == GP_PER_UNIT) == per_unit)
            pick[n++] = i;
    return n ? pick[irnd(0, n - 1)] : -1;
}

/* A random axis for s: from every parameter that applies to it. */
static gp_sweep_axis random_axis(const gp_scenario *s, bool last) {
    gp_sweep_axis a = {GP_SWEEP_UTILIZATION, 0, 0, 1, last ? irnd(8, 400) : irnd(1, 12)};
    for (;;) {
        int kind = irnd(0, 9);
        if (kind >= 6) /* no linear pieces: every point is evaluated along this axis */
            a.steps = last ? irnd(2, 30) : irnd(1, 4);
        switch (kind) {
        case 0:
        case 1: /* utilization, often from 0 */
            a.param = GP_SWEEP_UTILIZATION;
            a.from = irnd(0, 1) || s->work_mode ? 0.01 + 0.3 * rnd() : 0;
            a.to = a.from + (1 - a.from) * rnd();
            if (irnd(0, 3) == 0) { /* downwards */
                double t = a.from;
                a.from = a.to;
                a.to = t;
            }
            return a;
        case 2:
            a.param = GP_SWEEP_PRICE_PER_KWH;
            a.from = 0.3 * rnd();
            a.to = a.from + 0.5 * rnd();
            return a;
        case 3:
            a.param = GP_SWEEP_SERVER_PRICE;
            a.from = 300000 * rnd();
            a.to = 300000 * rnd();
            return a;
        case 4:
            a.param = GP_SWEEP_PUE;
            a.from = 1 + rnd();
            a.to = 1 + 4 * rnd();
            return a;
        case 5:
            a.param = GP_SWEEP_HOURLY;
            a.option = irnd(0, s->n_options - 1);
            a.from = 40 * rnd();
            a.to = 40 * rnd();
            if (s->options[a.option].pricing == GP_PER_UNIT) { /* an API's price */
                a.param = GP_SWEEP_PRICE_PER_UNIT;
                a.from /= 10;
                a.to /= 10;
            }
            return a;
        case 6:
            if (s->n_steps > 0)
                continue;
            a.param = GP_SWEEP_GROWTH;
            a.from = -0.03;
            a.to = 0.05;
            return a;
        case 7:
            a.param = GP_SWEEP_LEAD_TIME;
            a.from = 0;
            a.to = s->horizon_months > 6 ? 5 : 0;
            return a;
        case 8:
            a.param = GP_SWEEP_ENERGY_PRICE_TREND;
            a.from = -0.1;
            a.to = 0.3;
            return a;
        default:
            a.param = GP_SWEEP_OPTION_PRICE_TREND;
            a.option = irnd(0, s->n_options - 1);
            a.from = -0.3;
            a.to = 0.1;
            return a;
        }
    }
}

static void assert_same_summary(const gp_sweep_summary *a, const gp_sweep_summary *b) {
    assert_int_equal(a->points, b->points);
    assert_memory_equal(a->wins, b->wins, sizeof a->wins);
    assert_int_equal(a->ties, b->ties);
    assert_int_equal(a->n_flips, b->n_flips);
    for (uint64_t k = 0; k < a->n_flips && k < GP_SWEEP_MAX_FLIPS; k++) {
        assert_int_equal(a->flips[k].from, b->flips[k].from);
        assert_int_equal(a->flips[k].to, b->flips[k].to);
        assert_memory_equal(a->flips[k].values, b->flips[k].values,
                            sizeof(double) * (size_t)a->n_axes);
        assert_true(a->flips[k].prev_last == b->flips[k].prev_last);
        assert_int_equal(a->flips[k].tied, b->flips[k].tied);
        assert_true(a->flips[k].tie_first == b->flips[k].tie_first);
        assert_true(a->flips[k].tie_last == b->flips[k].tie_last);
    }
}

/* Points evaluated point by point and row by row, over every compare(). */
static uint64_t evaluations[2];

/* Both summaries of one grid: the same result or the same error. Returns rows solved. */
static uint64_t compare(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                        uint64_t *flips) {
    static gp_sweep_summary by_points, by_rows;
    gp_err e1, e2;
    gp_status r1 = gp_sweep_summarize_points(s, axes, n_axes, &by_points, &e1);
    gp_status r2 = gp_sweep_summarize_rows(s, axes, n_axes, &by_rows, &e2);
    assert_int_equal(r1, r2);
    if (r1 != GP_OK) {
        assert_string_equal(e1.where, e2.where);
        return 0;
    }
    assert_same_summary(&by_points, &by_rows);
    *flips += by_rows.n_flips;
    evaluations[0] += by_points.evaluations;
    evaluations[1] += by_rows.evaluations;
    return by_rows.rows_solved;
}

static void test_summary_rows_exact(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    uint64_t solved[2] = {0, 0}, flips = 0;
    int refused = 0, by_columns = 0;
    for (int n = 0; n < 600; n++) {
        bool v2 = n % 2 == 1;
        random_scenario(s, v2);
        gp_sweep_axis axes[3];
        int n_axes = irnd(1, 3);
        for (int k = 0; k < n_axes; k++)
            axes[k] = random_axis(s, k == n_axes - 1);
        gp_err err;
        if (gp_sweep_check(s, axes, n_axes, &err) != GP_OK) {
            refused++;
            continue;
        }
        uint64_t rows = compare(s, axes, n_axes, &flips);
        solved[v2] += rows;
        /* a last axis without linear pieces: solved by the columns of the axis before it */
        by_columns += rows > 0 && axes[n_axes - 1].param >= GP_SWEEP_GROWTH;
    }
    /* The fast path ran on both kinds, and the grids had answers that flip. */
    assert_true(solved[0] > 100);
    assert_true(solved[1] > 100);
    assert_true(flips > 100);
    assert_true(refused < 300);
    assert_true(evaluations[1] < evaluations[0] / 2);
    print_message("%d grids solved by columns\n", by_columns);
    assert_true(by_columns > 10);
    free(s);
}

/* ---- version 2 points through the sweep's kept totals, against the engine ------------ */

/* The scenario at a grid point, set by hand as the sweep does (sweep.c, apply). */
static void set_axis(gp_scenario *x, const gp_scenario *s, const gp_sweep_axis *a, double v) {
    switch (a->param) {
    case GP_SWEEP_UTILIZATION:
        x->utilization = v;
        break;
    case GP_SWEEP_PRICE_PER_KWH: {
        double mean = gp_tariff_mean_price(s);
        for (int k = 0; k < x->n_periods; k++)
            x->periods[k].price_per_kwh = mean > 0.0 ? s->periods[k].price_per_kwh * (v / mean) : v;
        break;
    }
    case GP_SWEEP_SERVER_PRICE:
        x->server_price = v;
        break;
    case GP_SWEEP_PUE:
        x->pue = v;
        break;
    case GP_SWEEP_HOURLY:
        x->options[a->option].hourly = v;
        break;
    case GP_SWEEP_GROWTH:
        x->growth_per_month = v;
        break;
    case GP_SWEEP_LEAD_TIME:
        x->lead_time_months = (int)v;
        break;
    case GP_SWEEP_ORDER_EVERY:
        x->order_every_months = (int)v;
        break;
    case GP_SWEEP_MAX_SERVERS:
        x->has_max_servers = true;
        x->max_servers = (int)v;
        break;
    case GP_SWEEP_SERVER_PRICE_TREND:
        x->server_price_trend_per_year = v;
        break;
    case GP_SWEEP_ENERGY_PRICE_TREND:
        x->energy_price_trend_per_year = v;
        break;
    case GP_SWEEP_OPTION_PRICE_TREND:
        x->options[a->option].price_trend_per_year = v;
        break;
    case GP_SWEEP_WORK_PER_GPU_HOUR:
        x->work_per_gpu_hour = v;
        break;
    case GP_SWEEP_OPTION_WORK_PER_GPU:
        x->options[a->option].work_per_gpu_hour = v;
        break;
    case GP_SWEEP_PRICE_PER_UNIT:
        x->options[a->option].price_per_unit = v;
        gp_option_per_unit_sync(&x->options[a->option]);
        break;
    default:
        fail_msg("set_axis: parameter %d not covered", (int)a->param);
    }
}

typedef struct exact_walk {
    const gp_scenario *s;
    const gp_sweep_axis *axes;
    int n_axes;
    uint64_t n, v2_points;
    gp_scenario *x;
} exact_walk;

/* The scenario at point n of the grid (the last axis fastest) into w->x. */
static void scenario_at(exact_walk *w, uint64_t n) {
    *w->x = *w->s;
    for (int k = w->n_axes - 1; k >= 0; k--) {
        int steps = w->axes[k].steps;
        set_axis(w->x, w->s, &w->axes[k], gp_sweep_value(&w->axes[k], (int)(n % (uint64_t)steps)));
        n /= (uint64_t)steps;
    }
}

/* A version 2 point gives the engine's totals bit for bit; a version 1 point the closed
 * forms' (1e-12 of the engine's). */
static int check_exact(const double *v, double self, const double *opts, int cheapest, void *arg) {
    (void)v;
    exact_walk *w = arg;
    scenario_at(w, w->n++);
    gp_model_evaluate(w->x, res);
    assert_int_equal(res->error.code, GP_OK);
    bool v2 = gp_scenario_uses_v2(w->x);
    w->v2_points += v2;
    if (v2) {
        assert_memory_equal(&self, &res->self.total, sizeof self);
        for (int i = 0; i < w->s->n_options; i++)
            assert_memory_equal(&opts[i], &res->options[i].total, sizeof(double));
        assert_int_equal(cheapest, res->cheapest);
    } else {
        assert_close(self, res->self.total, 1e-12);
        for (int i = 0; i < w->s->n_options; i++)
            assert_close(opts[i], res->options[i].total, 1e-12);
    }
    return 0;
}

/* An axis over version 2 parameter p for s, or false when p does not apply to s. */
static bool v2_axis(const gp_scenario *s, gp_sweep_param p, bool last, gp_sweep_axis *a) {
    memset(a, 0, sizeof *a);
    a->param = p;
    a->steps = last ? irnd(2, 40) : irnd(1, 5);
    int m = s->horizon_months;
    switch (p) {
    case GP_SWEEP_GROWTH:
        a->from = -0.03 * rnd();
        a->to = 0.06 * rnd();
        return s->n_steps == 0;
    case GP_SWEEP_LEAD_TIME:
        a->to = m - 1 < 6 ? m - 1 : 6;
        return true;
    case GP_SWEEP_ORDER_EVERY:
        a->from = 1;
        a->to = m < 7 ? m : 7;
        return true;
    case GP_SWEEP_MAX_SERVERS:
        a->from = irnd(1, 10);
        a->to = irnd(1, 200);
        return true;
    case GP_SWEEP_SERVER_PRICE_TREND:
    case GP_SWEEP_ENERGY_PRICE_TREND:
        a->from = -0.3 * rnd();
        a->to = 0.4 * rnd();
        return true;
    case GP_SWEEP_OPTION_PRICE_TREND:
        a->option = irnd(0, s->n_options - 1);
        a->from = -0.4 * rnd();
        a->to = 0.2 * rnd();
        return true;
    case GP_SWEEP_WORK_PER_GPU_HOUR:
        a->from = 0.3 + rnd();
        a->to = 0.3 + 3 * rnd();
        return s->work_mode;
    case GP_SWEEP_OPTION_WORK_PER_GPU: /* an API has no throughput */
        a->option = random_per_unit_option(s, false);
        a->from = 0.3 + rnd();
        a->to = 0.3 + 3 * rnd();
        return s->work_mode && a->option >= 0;
    case GP_SWEEP_PRICE_PER_UNIT:
        a->option = random_per_unit_option(s, true);
        a->from = 2 * rnd();
        a->to = 2 * rnd();
        return a->option >= 0;
    default:
        return false;
    }
}

/* Grids over every version 2 parameter of random plans (alone, after another axis, before
 * another axis; bridges and bursts whose prices move): each point's totals are the engine's,
 * and a refused point is the one the engine refuses, with its error. */
static void test_v2_totals_exact(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    exact_walk w = {.s = s, .x = malloc(sizeof *w.x)};
    assert_non_null(w.x);
    uint64_t points = 0, v2_points = 0;
    int grids = 0, refused = 0, per_param[GP_SWEEP_N_PARAMS] = {0};
    for (int n = 0; n < 80; n++) {
        random_scenario(s, true);
        /* A committed base bursting into the on-demand option, now and then. */
        for (int i = 1; i < s->n_options; i++) {
            if (s->options[i].pricing == GP_COMMITTED && irnd(0, 1)) {
                s->options[i].has_base_gpus = true;
                s->options[i].base_gpus = irnd(1, 64);
                s->options[i].burst = irnd(0, 3) ? 0 : -1; /* none: refused where it must burst */
            }
        }
        if (irnd(0, 3) == 0)
            s->bridge = -1; /* refused where a lead time or a cap leaves demand unserved */
        for (int p = GP_SWEEP_GROWTH; p < GP_SWEEP_N_PARAMS; p++) {
            for (int shape = 0; shape < 4; shape++) {
                /* alone; after another axis; before it; between two others */
                gp_sweep_axis axes[3];
                int n_axes = shape == 0 ? 1 : shape == 3 ? 3 : 2;
                int mine = shape == 1 ? 1 : shape == 2 ? 0 : n_axes - 2 + (shape == 0);
                if (!v2_axis(s, (gp_sweep_param)p, mine == n_axes - 1, &axes[mine]))
                    break;
                for (int k = 0; k < n_axes; k++) { /* others: each moves some totals */
                    if (k == mine)
                        continue;
                    axes[k] = random_axis(s, false);
                    axes[k].steps = irnd(1, 4);
                }
                gp_err err;
                if (gp_sweep_check(s, axes, n_axes, &err) != GP_OK)
                    continue;
                w.axes = axes;
                w.n_axes = n_axes;
                w.n = 0;
                w.v2_points = 0;
                uint64_t done = 0;
                gp_status rc = gp_sweep_run(s, axes, n_axes, check_exact, &w, &done, &err);
                assert_int_equal(done, w.n);
                if (rc != GP_OK) { /* the point after the last one seen: refused by the engine */
                    scenario_at(&w, w.n);
                    gp_model_evaluate(w.x, res);
                    assert_int_not_equal(res->error.code, GP_OK);
                    assert_string_equal(err.where, res->error.where);
                    refused++;
                }
                grids++;
                per_param[p]++;
                points += w.n;
                v2_points += w.v2_points;
            }
        }
    }
    print_message("%d grids, %llu points (%llu of version 2), %d refused\n", grids,
                  (unsigned long long)points, (unsigned long long)v2_points, refused);
    for (int p = GP_SWEEP_GROWTH; p < GP_SWEEP_N_PARAMS; p++)
        assert_true(per_param[p] >= 10);
    assert_true(v2_points > 10000);
    assert_true(refused > 10);
    free(w.x);
    free(s);
}

/* Crossings exactly on grid points: hourly and utilization grids through the break-even. */
/* Whether self-hosted's and option o's totals are equal (Ties) at point i of axis a. */
typedef struct totals_at {
    double self, opt[GP_MAX_OPTIONS];
} totals_at;

static int keep_totals(const double *v, double self, const double *opts, int cheapest, void *arg) {
    (void)v, (void)cheapest;
    totals_at *t = arg;
    t->self = self;
    memcpy(t->opt, opts, sizeof t->opt);
    return 0;
}

static bool tied_at(const gp_scenario *s, const gp_sweep_axis *a, int i, int o) {
    double v = gp_sweep_value(a, i);
    gp_sweep_axis one = {a->param, a->option, v, v, 1};
    totals_at t;
    uint64_t points;
    gp_err err;
    if (gp_sweep_run(s, &one, 1, keep_totals, &t, &points, &err) != GP_OK)
        return false;
    double scale = fmax(1.0, fmax(fabs(t.self), fabs(t.opt[o])));
    return fabs(t.self - t.opt[o]) <= 1e-9 * scale;
}

static void test_summary_rows_on_crossings(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    uint64_t flips = 0;
    int ties_seen = 0;
    for (int n = 0; n < 200; n++) {
        random_scenario(s, n % 2 == 1);
        gp_model_evaluate(s, res);
        if (res->error.code != GP_OK)
            continue;
        int o = irnd(0, s->n_options - 1);
        const gp_option_result *r = &res->options[o];
        int half = irnd(4, 200);
        if (r->has_break_even_hourly && r->break_even_hourly > 0) {
            /* from 0 to twice the break-even: its middle point is the crossing */
            gp_sweep_axis a = {GP_SWEEP_HOURLY, o, 0, 2 * r->break_even_hourly, 2 * half + 1};
            gp_sweep_axis two[2] = {{GP_SWEEP_PUE, 0, s->pue, s->pue, 1}, a};
            compare(s, two, 2, &flips);
            ties_seen += tied_at(s, &a, half, o);
        }
        if (!s->work_mode && r->has_break_even_utilization && r->break_even_utilization > 0 &&
            r->break_even_utilization <= 0.5) {
            gp_sweep_axis a = {GP_SWEEP_UTILIZATION, 0, 0, 2 * r->break_even_utilization,
                               2 * half + 1};
            compare(s, &a, 1, &flips);
            ties_seen += tied_at(s, &a, half, o);
            /* and a grid whose every point is a multiple of the crossing */
            gp_sweep_axis b = {GP_SWEEP_UTILIZATION, 0, r->break_even_utilization / 4,
                               r->break_even_utilization * 2, 8};
            compare(s, &b, 1, &flips);
            ties_seen += tied_at(s, &b, 3, o);
        }
    }
    /* Most of those grids hold a point where the two totals are equal by the Ties rule. */
    print_message("%d grid points on a crossing\n", ties_seen);
    assert_true(ties_seen > 50);
    assert_true(flips > 20);
    free(s);
}

/* Two options with the same price tie at every point: the first listed wins each, exactly as
 * point by point. */
static void test_summary_rows_ties(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    *s = base;
    s->n_options = 3;
    s->options[2] = s->options[0];
    snprintf(s->options[2].name, sizeof s->options[2].name, "od twin");
    s->utilization = 0.25;
    gp_sweep_axis a = {GP_SWEEP_PRICE_PER_KWH, 0, 0.0, 3.0, 1000};
    gp_sweep_summary sum;
    gp_err err;
    uint64_t flips = 0;
    compare(s, &a, 1, &flips);
    assert_int_equal(gp_sweep_summarize_rows(s, &a, 1, &sum, &err), GP_OK);
    /* Where renting is cheapest the twins tie: a tie, no win for either. */
    assert_int_equal(sum.wins[3], 0);
    assert_int_equal(sum.wins[1], 0);
    assert_true(sum.ties > 0);
    assert_true(sum.wins[0] > 0);
    assert_int_equal(sum.wins[0] + sum.ties, sum.points);
    /* Owning gives way to the twins' tie, which owning has no part in: a plain flip. */
    assert_int_equal(sum.n_flips, 1);
    assert_int_equal(sum.flips[0].from, -1);
    assert_int_equal(sum.flips[0].to, 0);
    assert_false(sum.flips[0].tied);
    free(s);
}

/* A point where owning and renting cost the same is no side's win, and the flip is told at
 * it: 8 GPUs at 50 % for 12 months rent for 8,760 at 2 an 8-GPU instance-hour, the price of
 * the one server owned; below 50 % renting wins, above it owning. */
static void test_summary_tie_point(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    gp_scenario_defaults(s);
    snprintf(s->name, sizeof s->name, "tie");
    s->horizon_months = 12;
    s->gpus = 8;
    s->utilization = 0.5;
    s->server_price = 8760;
    s->n_options = 1;
    gp_option_defaults(&s->options[0]);
    snprintf(s->options[0].name, sizeof s->options[0].name, "od");
    s->options[0].gpus_per_instance = 8;
    s->options[0].hourly = 2;
    /* 0.3 .. 0.7 in 5 (walked), and 0 .. 1 in 101 (solved from its pieces): 0.5 is a tie. */
    gp_sweep_axis axes[2] = {{GP_SWEEP_UTILIZATION, 0, 0.3, 0.7, 5},
                             {GP_SWEEP_UTILIZATION, 0, 0, 1, 101}};
    for (int k = 0; k < 2; k++) {
        uint64_t flips = 0;
        compare(s, &axes[k], 1, &flips);
        gp_sweep_summary sum;
        gp_err err;
        assert_int_equal(gp_sweep_summarize_rows(s, &axes[k], 1, &sum, &err), GP_OK);
        assert_int_equal(sum.ties, 1);
        assert_int_equal(sum.wins[1], k ? 50 : 2);
        assert_int_equal(sum.wins[0], k ? 50 : 2);
        assert_int_equal(sum.n_flips, 1);
        assert_int_equal(sum.flips[0].from, 0);
        assert_int_equal(sum.flips[0].to, -1);
        assert_true(sum.flips[0].tied);
        assert_true(sum.flips[0].tie_first == 0.5 && sum.flips[0].tie_last == 0.5);
        gp_buf b;
        gp_buf_init(&b, 1 << 16);
        assert_int_equal(gp_report_sweep_summary(s, &axes[k], &sum, &b), GP_OK);
        assert_non_null(strstr(b.data, "  od -> self_hosted: a tie at utilization 0.5\n"));
        assert_non_null(strstr(b.data, "a tie (equal lowest totals)"));
        assert_null(strstr(b.data, "between"));
        gp_buf_done(&b);
    }
    /* A grid that steps over the tie (no point on it) has a plain flip, told "between". */
    gp_sweep_axis off = {GP_SWEEP_UTILIZATION, 0, 0.45, 0.55, 2};
    gp_sweep_summary sum;
    gp_err err;
    assert_int_equal(gp_sweep_summarize_rows(s, &off, 1, &sum, &err), GP_OK);
    assert_int_equal(sum.ties, 0);
    assert_int_equal(sum.n_flips, 1);
    assert_false(sum.flips[0].tied);
    free(s);
}

/* A version 2 point the engine refuses stops the sweep with the engine's path and the point. */
static void test_refused_point(void **state) {
    (void)state;
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(s);
    *s = base;
    s->buy = GP_BUY_AS_NEEDED; /* a version 2 plan without a bridge */
    gp_sweep_axis a[2] = {{GP_SWEEP_LEAD_TIME, 0, 0, 2, 3}, {GP_SWEEP_UTILIZATION, 0, 0, 1, 50}};
    gp_sweep_summary sum;
    gp_err err;
    assert_int_equal(gp_sweep_summarize_rows(s, a, 2, &sum, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "lead_time_months=1"));
    assert_int_equal(sum.points, 0);
    uint64_t flips = 0;
    compare(s, a, 2, &flips);
    free(s);
}

/* Sensitivity moves the version 2 keys too, and leaves out (counted, named) a move whose plan
 * the engine refuses. */
static const gp_sens_row *sens_row(const gp_sensitivity *t, const char *input) {
    for (int k = 0; k < t->n_rows; k++)
        if (strcmp(t->rows[k].input, input) == 0)
            return &t->rows[k];
    return NULL;
}

static void test_sensitivity_v2(void **state) {
    (void)state;
    gp_sensitivity *t = malloc(sizeof *t);
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(t);
    assert_non_null(s);
    *s = base;
    s->growth_per_month = 0.02;
    s->buy = GP_BUY_AS_NEEDED;
    s->lead_time_months = 2;
    s->bridge = 0;
    s->order_every_months = 4;
    s->energy_price_trend_per_year = 0.05;
    s->server_price_trend_per_year = -0.1;
    s->options[0].price_trend_per_year = -0.2;
    s->has_max_servers = true;
    s->max_servers = 40;
    gp_err err;
    assert_int_equal(gp_sensitivity_run(s, 0.5, t, &err), GP_OK);
    /* The order cadence and the cap are the plan's shape: moved only when asked. */
    assert_null(sens_row(t, "self_hosted.order_every_months"));
    assert_null(sens_row(t, "self_hosted.max_servers"));
    const char *shape[] = {"order_every_months", "self_hosted.max_servers"};
    assert_int_equal(gp_sensitivity_run_params(s, 0.5, shape, 2, t, &err), GP_OK);
    assert_int_equal(t->n_rows, 2);
    assert_non_null(sens_row(t, "self_hosted.order_every_months"));
    assert_non_null(sens_row(t, "self_hosted.max_servers"));
    assert_int_equal(gp_sensitivity_run(s, 0.5, t, &err), GP_OK);
    const char *v2[] = {"demand.growth_per_month", "self_hosted.lead_time_months",
                        "self_hosted.server_price_trend_per_year",
                        "self_hosted.tariff.price_trend_per_year",
                        "cloud_options[0].price_trend_per_year"};
    for (size_t i = 0; i < sizeof v2 / sizeof v2[0]; i++)
        assert_non_null(sens_row(t, v2[i]));
    assert_int_equal(t->n_refused, 0);
    /* A row's numbers are those of the moved plan, evaluated on its own. */
    const gp_sens_row *lead = sens_row(t, "self_hosted.lead_time_months");
    assert_close(lead->low, 1, REL);
    assert_close(lead->high, 3, REL);
    gp_scenario moved = *s;
    moved.lead_time_months = 3;
    gp_model_evaluate(&moved, res);
    assert_int_equal(res->error.code, GP_OK);
    assert_close(lead->delta_high[1] + t->base_diff[1], res->options[1].total - res->self.total,
                 1e-9);
    /* Without a bridge, a cap below the demand is refused: left out and named. */
    s->bridge = -1;
    s->lead_time_months = 0;
    s->growth_per_month = 0;
    s->max_servers = 10; /* 80 GPUs in 8-GPU servers: exactly enough */
    assert_int_equal(gp_sensitivity_run(s, 0.5, t, &err), GP_OK);
    assert_null(sens_row(t, "self_hosted.max_servers"));
    assert_int_equal(t->n_refused, 1);                    /* more GPUs */
    assert_string_equal(t->refused_input, "demand.gpus"); /* the first in input order */
    assert_string_equal(t->refused_error.where, "$.self_hosted.bridge");
    /* A plan the engine refuses as it stands is an error, not a table. */
    s->max_servers = 5;
    assert_int_equal(gp_sensitivity_run(s, 0.5, t, &err), GP_E_INPUT);
    free(s);
    free(t);
}

/* Sensitivity varies what a planner is unsure of, the exit value's inputs included, and leaves
 * the plan's shape (gpus_per_server, the horizon) out unless asked by name; rows are named as
 * the CLI names them. */
static void test_sensitivity_uncertainties(void **state) {
    (void)state;
    gp_sensitivity *t = malloc(sizeof *t);
    gp_scenario *s = malloc(sizeof *s);
    assert_non_null(t);
    assert_non_null(s);
    *s = base;
    s->buy = GP_BUY_AS_NEEDED; /* the derived resale line: depreciation_years moves totals */
    s->residual_pct = 0.2;
    s->refresh_months = 24;
    gp_err err;
    assert_int_equal(gp_sensitivity_run(s, 0.2, t, &err), GP_OK);
    assert_null(sens_row(t, "self_hosted.gpus_per_server"));
    assert_null(sens_row(t, "horizon_months"));
    const gp_sens_row *dep = sens_row(t, "self_hosted.depreciation_years");
    assert_non_null(dep);
    assert_close(dep->low, s->depreciation_years * 0.8, REL);
    assert_true(dep->swing > 0); /* a longer line leaves more value at the exit */
    assert_string_equal(dep->label, "self-hosted: depreciation_years");
    const gp_sens_row *ref = sens_row(t, "self_hosted.refresh_months");
    assert_non_null(ref);
    assert_close(ref->low, 19, REL); /* 24 x 0.8 = 19.2, a whole month */
    assert_close(ref->high, 29, REL);
    assert_non_null(sens_row(t, "self_hosted.residual_pct"));
    const gp_sens_row *hr = sens_row(t, "cloud_options[0].hourly");
    assert_non_null(hr);
    char want[GP_NAME_BYTES + 16];
    snprintf(want, sizeof want, "%s: hourly", s->options[0].name);
    assert_string_equal(hr->label, want);
    /* A resale curve moves as a whole: each share times the same factor. */
    s->residual_pct = 0;
    s->n_resale = 2;
    s->resale[0] = (gp_resale_point){12, 0.7};
    s->resale[1] = (gp_resale_point){36, 0.3};
    assert_int_equal(gp_sensitivity_run(s, 0.2, t, &err), GP_OK);
    const gp_sens_row *rs = sens_row(t, "self_hosted.resale");
    assert_non_null(rs);
    assert_close(rs->low, 0.56, REL);
    assert_close(rs->high, 0.84, REL);
    gp_scenario moved = *s;
    moved.resale[0].pct = 0.84;
    moved.resale[1].pct = 0.36;
    gp_model_evaluate(&moved, res);
    assert_close(rs->self_high, res->self.total, 1e-9);
    assert_true(rs->self_high < rs->self_low); /* more value at the exit: owning costs less */
    /* Asked by name, the shape moves; an unknown name is an error, not a quiet table. */
    const char *ask[] = {"gpus_per_server"};
    assert_int_equal(gp_sensitivity_run_params(s, 0.5, ask, 1, t, &err), GP_OK);
    assert_int_equal(t->n_rows, 1);
    assert_string_equal(t->rows[0].input, "self_hosted.gpus_per_server");
    const char *typo[] = {"gpus_per_sever"};
    assert_int_equal(gp_sensitivity_run_params(s, 0.5, typo, 1, t, &err), GP_E_INPUT);
    assert_string_equal(err.where, "--param");
    free(s);
    free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_matches_evaluate),
        cmocka_unit_test(test_matches_evaluate_v2),
        cmocka_unit_test(test_integer_axes),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_checks_v2),
        cmocka_unit_test(test_summary_rows_exact),
        cmocka_unit_test(test_v2_totals_exact),
        cmocka_unit_test(test_summary_rows_on_crossings),
        cmocka_unit_test(test_summary_rows_ties),
        cmocka_unit_test(test_summary_tie_point),
        cmocka_unit_test(test_refused_point),
        cmocka_unit_test(test_sensitivity_v2),
        cmocka_unit_test(test_sensitivity_uncertainties),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
