/* The cost model, formula by formula, against hand-computed figures (docs/model.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/engine.h"
#include "gpuplan/scenario_json.h"
#include "testutil.h"

static gp_result *res;

static int setup(void **state) {
    (void)state;
    res = malloc(sizeof *res);
    return res ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(res);
    return 0;
}

/* Ten 8-GPU servers at 8 kW each, 0.12/kWh, PUE 1 (the worked check). */
static void seed(gp_scenario *s) {
    gp_scenario_defaults(s);
    snprintf(s->name, sizeof s->name, "seed");
    s->horizon_months = 36;
    s->gpus = 80;
    s->utilization = 0.6;
    s->server_price = 125000;
    s->server_base_w = 8000;
}

static gp_option *add_option(gp_scenario *s, const char *name, gp_pricing p, int g, double hourly) {
    gp_option *o = &s->options[s->n_options++];
    gp_option_defaults(o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->pricing = p;
    o->gpus_per_instance = g;
    o->hourly = hourly;
    return o;
}

static void test_worked_check(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    gp_model_evaluate(&s, res);
    /* 10 * 8 kW * 0.12 * 730 = 7008 a month; 84,096 a year. */
    assert_close(res->self.power_per_month, 7008.0, REL);
    assert_close(res->self.power_per_month * 12, 84096.0, REL);
    assert_int_equal(res->self.servers, 10);
    assert_close(res->self.capex, 1250000.0, REL);
    assert_close(res->self.monthly[0], 1250000.0, REL);
    assert_close(res->self.monthly[1], 7008.0, REL);
    assert_close(res->self.total, 1250000.0 + 36 * 7008.0, REL);
    assert_close(res->demand_gpu_hours, 80 * 730 * 0.6 * 36, REL);
    assert_close(res->self.energy_kwh, 80.0 * 730 * 36, REL);
}

static void test_servers_bulk_and_factor(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.gpus = 81; /* ceil(81 / 8) = 11 servers */
    s.price_factor = 0.4;
    s.network_per_server = 1000;
    s.fixed_capex = 5000;
    s.n_tiers = 2;
    s.tiers[0] = (gp_bulk_tier){5, 0.1};
    s.tiers[1] = (gp_bulk_tier){11, 0.2}; /* exactly 11: this tier applies */
    gp_model_evaluate(&s, res);
    assert_int_equal(res->self.servers, 11);
    assert_close(res->self.bulk_pct, 0.2, REL);
    double h = 11 * 125000 * 0.4 * 0.8 + 11 * 1000.0;
    assert_close(res->self.hardware_capex, h, REL);
    assert_close(res->self.capex, h + 5000, REL);
    s.tiers[1].min_servers = 12; /* no longer reached: the 5-server tier */
    gp_model_evaluate(&s, res);
    assert_close(res->self.bulk_pct, 0.1, REL);
    s.n_tiers = 0;
    gp_model_evaluate(&s, res);
    assert_close(res->self.bulk_pct, 0.0, REL);
}

static void tou(gp_scenario *s) {
    s->n_periods = 3;
    s->periods[0] = (gp_period){"peak", 4, 0.30};
    s->periods[1] = (gp_period){"mid", 8, 0.15};
    s->periods[2] = (gp_period){"night", 12, 0.05};
}

static void test_power_periods_shift_avg(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.gpus = 16;
    s.server_base_w = 1000; /* 2 servers */
    s.gpu_idle_w = 50;
    s.gpu_tdp_w = 450;
    s.pue = 1.5;
    s.utilization = 0.75;
    tou(&s);
    double base = 2 * 1000 + 16 * 50.0; /* W */
    double busy = 24 * 16 * 0.75;       /* GPU-hours a day: 288 */
    double inc = 400;
    /* Not shifted: busy hours spread by period length. */
    double cost = 0, kwh = 0;
    double h[3] = {4, 8, 12}, p[3] = {0.30, 0.15, 0.05};
    for (int k = 0; k < 3; k++) {
        double e = (base * h[k] + inc * busy * h[k] / 24) / 1000;
        cost += e * p[k];
        kwh += e;
    }
    gp_model_evaluate(&s, res);
    assert_close(res->self.power_per_month, 1.5 * cost * 730 / 24, REL);
    assert_close(res->self.energy_kwh, 1.5 * kwh * 730 / 24 * 36, REL);
    /* Shifted: night takes 16 * 12 = 192, mid the remaining 96, peak none. */
    s.shift_to_cheapest = true;
    double y[3] = {0, 96, 192};
    cost = 0;
    for (int k = 0; k < 3; k++)
        cost += (base * h[k] + inc * y[k]) / 1000 * p[k];
    gp_model_evaluate(&s, res);
    assert_close(res->self.power_per_month, 1.5 * cost * 730 / 24, REL);
    /* Measured mean watts replace idle/busy for energy; shifting no longer matters. */
    s.has_gpu_avg_w = true;
    s.gpu_avg_w = 300;
    double flat = 2 * 1000 + 16 * 300.0;
    cost = 0;
    for (int k = 0; k < 3; k++)
        cost += flat * h[k] / 1000 * p[k];
    gp_model_evaluate(&s, res);
    assert_close(res->self.power_per_month, 1.5 * cost * 730 / 24, REL);
    s.shift_to_cheapest = false;
    gp_model_evaluate(&s, res);
    assert_close(res->self.power_per_month, 1.5 * cost * 730 / 24, REL);
}

static void test_ties_in_shift_keep_given_order(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.gpus = 8;
    s.server_base_w = 0;
    s.gpu_tdp_w = 1000;
    s.utilization = 0.25; /* 48 busy GPU-hours a day */
    s.shift_to_cheapest = true;
    s.n_periods = 2;
    s.periods[0] = (gp_period){"a", 12, 0.10};
    s.periods[1] = (gp_period){"b", 12, 0.10};
    gp_model_evaluate(&s, res);
    /* Same price either way: the cost cannot tell, the energy must be all busy energy. */
    assert_close(res->self.power_per_month, 48 * 1.0 * 0.10 * 730 / 24, REL);
}

static void test_peak_colo_demand_maintenance(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.horizon_months = 24;
    s.server_base_w = 1500;
    s.gpu_idle_w = 60;
    s.gpu_tdp_w = 400;
    s.pue = 1.25;
    s.colo_per_kw_month = 150;
    s.demand_charge_per_kw_month = 10;
    s.maintenance_pct_per_year = 0.12;
    s.warranty_months = 12;
    s.staff_per_month = 1000;
    s.other_per_month = 200;
    gp_model_evaluate(&s, res);
    double k = (10 * 1500 + 80 * 400.0) / 1000; /* 47 kW */
    assert_close(res->self.peak_it_kw, k, REL);
    assert_close(res->self.colo_per_month, 150 * k, REL);
    assert_close(res->self.demand_charge_per_month, 10 * k * 1.25, REL);
    double maint = 0.12 * 1250000 / 12;
    double base = res->self.power_per_month + 150 * k + 12.5 * k + 1200;
    assert_close(res->self.monthly[12], base, REL);         /* still under warranty */
    assert_close(res->self.monthly[13], base + maint, REL); /* month 13: maintenance starts */
    assert_close(res->self.breakdown.maintenance, 12 * maint, REL);
    assert_close(res->self.breakdown.staff, 24000, REL);
    assert_close(res->self.breakdown.other, 4800, REL);
    /* A measured mean above TDP raises the peak. */
    s.has_gpu_avg_w = true;
    s.gpu_avg_w = 500;
    gp_model_evaluate(&s, res);
    assert_close(res->self.peak_it_kw, (10 * 1500 + 80 * 500.0) / 1000, REL);
}

static void test_loan_inside_and_past_horizon(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.server_base_w = 0;
    s.horizon_months = 36;
    s.financing = GP_LOAN;
    s.loan_apr = 0.06;
    s.loan_term_months = 24;
    s.loan_fraction = 0.5;
    gp_model_evaluate(&s, res);
    double L = 625000, r = 0.005;
    double a = L * r / (1 - pow(1 + r, -24));
    assert_close(res->self.loan_payment, a, REL);
    assert_close(res->self.monthly[0], 625000, REL);
    assert_close(res->self.monthly[24], a, REL);
    assert_close(res->self.monthly[25], 0, REL);
    assert_close(res->self.breakdown.interest, 24 * a - L, REL);
    assert_close(res->self.total, 625000 + 24 * a, REL);
    /* Term beyond the horizon: the balance is paid at M. */
    s.loan_term_months = 60;
    gp_model_evaluate(&s, res);
    a = L * r / (1 - pow(1 + r, -60));
    double bal = L * pow(1 + r, 36) - a * (pow(1 + r, 36) - 1) / r;
    assert_close(res->self.monthly[36], a + bal, REL);
    assert_close(res->self.breakdown.interest, 36 * a + bal - L, REL);
    /* Zero APR: straight-line payments, the rest at M. */
    s.loan_apr = 0;
    gp_model_evaluate(&s, res);
    assert_close(res->self.monthly[1], L / 60, REL);
    assert_close(res->self.monthly[36], L / 60 + (L - L / 60 * 36), REL);
    /* Interest is a difference of sums of ~L: zero to within L's rounding. */
    assert_true(fabs(res->self.breakdown.interest) <= 1e-9 * L);
}

static void test_residual_and_depreciation(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.residual_pct = 0.3;
    s.fixed_capex = 100000; /* no resale value */
    s.depreciation_years = 4;
    gp_model_evaluate(&s, res);
    assert_close(res->self.breakdown.residual, -0.3 * 1250000, REL);
    assert_close(res->self.monthly[36], 7008 - 375000, REL);
    assert_close(res->self.depreciation_per_year, (1250000 - 375000) / 4.0, REL);
}

static void test_cloud_kinds(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.horizon_months = 30;
    gp_option *od = add_option(&s, "od", GP_ON_DEMAND, 8, 32.0);
    od->idle_overhead = 0.1;
    od->support_pct = 0.05;
    od->storage_gb = 1000;
    od->storage_per_gb_month = 0.1;
    od->egress_gb_per_month = 100;
    od->egress_per_gb = 0.09;
    gp_option *sp = add_option(&s, "spot", GP_SPOT, 8, 10.0);
    sp->interruptions_per_hour = 0.1;
    sp->checkpoint_interval_h = 2;
    sp->restart_h = 0.5;
    gp_option *cm = add_option(&s, "commit", GP_COMMITTED, 8, 20.0);
    cm->upfront = 50000;
    cm->term_months = 12;
    gp_model_evaluate(&s, res);
    double q = 80 * 730 * 0.6;
    double i_od = q / 8 * 1.1;
    assert_close(res->options[0].instance_hours_per_month, i_od, REL);
    assert_close(res->options[0].monthly[1], i_od * 32 * 1.05 + 100 + 9, REL);
    assert_close(res->options[0].monthly[0], 0, REL);
    double i_sp = q / 8 * (1 + 0.1 * (1 + 0.5));
    assert_close(res->options[1].monthly[5], i_sp * 10, REL);
    /* Committed: 10 instances, every hour, upfront at 0, 12 and 24 (multiples below 30);
     * the term started at 24 ends at 36, so 6 months are still owed at M = 30. */
    double comp = 10 * 730 * 20.0;
    assert_close(res->options[2].monthly[0], 500000, REL);
    assert_close(res->options[2].monthly[1], comp, REL);
    assert_close(res->options[2].monthly[12], comp + 500000, REL);
    assert_close(res->options[2].monthly[24], comp + 500000, REL);
    assert_close(res->options[2].monthly[30], comp + 6 * comp, REL);
    assert_close(res->options[2].total, 1500000 + 36 * comp, REL);
    /* A term that ends exactly at M owes nothing after it, and no upfront at m = M. */
    s.horizon_months = 24;
    gp_model_evaluate(&s, res);
    assert_close(res->options[2].monthly[24], comp, REL);
    assert_close(res->options[2].total, 1000000 + 24 * comp, REL);
}

static void test_npv_and_cost_per_gpu_hour(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.horizon_months = 12;
    s.discount_rate = 0.1;
    gp_model_evaluate(&s, res);
    double npv = 1250000;
    for (int m = 1; m <= 12; m++)
        npv += 7008 / pow(1.1, m / 12.0);
    assert_close(res->self.npv, npv, REL);
    assert_true(res->self.has_cost_per_gpu_hour);
    assert_close(res->self.cost_per_gpu_hour, res->self.total / (80 * 730 * 0.6 * 12), REL);
    s.utilization = 0;
    gp_model_evaluate(&s, res);
    assert_false(res->self.has_cost_per_gpu_hour);
}

static void test_break_even_and_payback_differ(void **state) {
    (void)state;
    /* Self-hosted 100 up front, then a large residual back at M; the option 30 a month.
     * Cumulative self: 100, 101, 102, 103, -97 (M = 4: residual 200 back).
     * Cumulative option: 0, 30, 60, 90, 120. Self <= option only at m = 4: both 4.
     * Make the option front-loaded instead to get a touch and a later payback. */
    gp_scenario s;
    gp_scenario_defaults(&s);
    s.horizon_months = 4;
    s.gpus = 1;
    s.gpus_per_server = 1;
    s.utilization = 1;
    s.server_price = 100;
    s.other_per_month = 1;
    s.residual_pct = 1.0; /* 100 back at M */
    s.n_periods = 1;
    s.periods[0].price_per_kwh = 0;
    gp_option *o = add_option(&s, "c", GP_COMMITTED, 1, 0.0);
    o->upfront = 100; /* 100 at m = 0 and again at m = 2 (term 2 < M = 4) */
    o->term_months = 2;
    gp_model_evaluate(&s, res);
    /* Self: 100, 101, 102, 103, 4.  Option: 100, 100, 200, 200, 200. Level at 0 (2.1: no
     * break-even; 2.0 said 0), behind at 1, ahead from 2. */
    assert_close(res->self.monthly[4], 1 - 100, REL);
    assert_true(res->options[0].has_break_even_month);
    assert_int_equal(res->options[0].break_even_month, 2);
    assert_true(res->options[0].has_payback_month);
    assert_int_equal(res->options[0].payback_month, 2);
    /* Ahead at 0 instead (the option's upfront 101): that counts, and self-hosted never
     * falls behind (at 1, 101 against 101 is a tie, at most): both 0. */
    o->upfront = 101;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->options[0].break_even_month, 0);
    assert_int_equal(res->options[0].payback_month, 0);
    o->upfront = 100;
    /* An option at 1 a month: self-hosted (100, 100, 100, 100, 0 cumulative without upkeep)
     * only catches it at M, when the residual comes back. */
    o->upfront = 0;
    o->hourly = 1.0 / 730;
    s.other_per_month = 0;
    gp_model_evaluate(&s, res);
    assert_true(res->options[0].has_break_even_month);
    assert_int_equal(res->options[0].break_even_month, 4);
    assert_int_equal(res->options[0].payback_month, 4);
    /* Without the exit value credited at M it never does. */
    assert_false(res->options[0].has_break_even_month_without_exit);
    assert_false(res->options[0].has_payback_month_without_exit);
    /* A free option: both cumulatives are 0 at M, which version 2 does not count. */
    o->hourly = 0;
    gp_model_evaluate(&s, res);
    assert_false(res->options[0].has_break_even_month);
    assert_false(res->options[0].has_payback_month);
    /* Without the residual it never does. */
    s.residual_pct = 0;
    gp_model_evaluate(&s, res);
    assert_false(res->options[0].has_break_even_month);
    assert_false(res->options[0].has_payback_month);
}

static void test_break_even_utilization_flat_and_shifted(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    add_option(&s, "spot", GP_SPOT, 8, 9.835);
    gp_model_evaluate(&s, res);
    /* Self-hosted does not depend on u here: u* = self / (36 * 80 * 730 / 8 * 9.835). */
    double u = res->self.total / (36 * 80 * 730 / 8.0 * 9.835);
    assert_true(res->options[0].has_break_even_utilization);
    assert_close(res->options[0].break_even_utilization, u, REL);

    /* Shifted tariff: the root lies past the breakpoint at u = 12/24, so the solver must use
     * the second segment's slope. One GPU, 1 kWh per busy hour, 50 a month of upkeep.
     * Self per month: u <= 0.5: 50 + 365u (all busy hours at night, 0.5/kWh);
     *                 u > 0.5: 50 + 182.5 + (24u - 12) * 0.6 * 730 / 24 = 13.5 + 438u.
     * Option at 0.62/h: 452.6u; below self at u = 0.5 (226.3 < 232.5), equal at 13.5 / 14.6. */
    gp_scenario t;
    gp_scenario_defaults(&t);
    t.horizon_months = 12;
    t.gpus = 1;
    t.gpus_per_server = 1;
    t.server_price = 0;
    t.other_per_month = 50;
    t.gpu_tdp_w = 1000;
    t.shift_to_cheapest = true;
    t.n_periods = 2;
    t.periods[0] = (gp_period){"day", 12, 0.6};
    t.periods[1] = (gp_period){"night", 12, 0.5};
    add_option(&t, "od", GP_ON_DEMAND, 1, 0.62);
    gp_model_evaluate(&t, res);
    assert_true(res->options[0].has_break_even_utilization);
    assert_close(res->options[0].break_even_utilization, 13.5 / 14.6, REL);
    /* Without shifting the self-hosted side is one line: 50 + 24u * 0.55 * 730 / 24 = 50 +
     * 401.5u against 452.6u: u = 50 / 51.1. */
    t.shift_to_cheapest = false;
    gp_model_evaluate(&t, res);
    assert_close(res->options[0].break_even_utilization, 50 / 51.1, REL);
    t.other_per_month = 0;
    t.shift_to_cheapest = true;
    /* Both zero at u = 0: a root at 0 counts. */
    t.options[0].hourly = 0.3;
    gp_model_evaluate(&t, res);
    assert_close(res->options[0].break_even_utilization, 0.0, REL);
    /* A committed option against a self-hosted total that never reaches it: none. */
    t.options[0].pricing = GP_COMMITTED;
    t.options[0].hourly = 10;
    gp_model_evaluate(&t, res);
    assert_false(res->options[0].has_break_even_utilization);
}

static void test_break_even_hourly(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    gp_option *o = add_option(&s, "od", GP_ON_DEMAND, 8, 32.784);
    o->storage_gb = 100;
    o->storage_per_gb_month = 1;
    o->support_pct = 0.1;
    gp_model_evaluate(&s, res);
    double slope = 36 * (80 * 730 * 0.6 / 8) * 1.1;
    assert_true(res->options[0].has_break_even_hourly);
    assert_close(res->options[0].break_even_hourly, (res->self.total - 36 * 100) / slope, REL);
    /* Nothing busy: no instance-hours, no price makes them equal. */
    s.utilization = 0;
    gp_model_evaluate(&s, res);
    assert_false(res->options[0].has_break_even_hourly);
    /* Upfronts alone above self-hosted: the price would be negative. */
    s.utilization = 0.6;
    o->pricing = GP_COMMITTED;
    o->upfront = 1e9;
    o->idle_overhead = 0;
    gp_model_evaluate(&s, res);
    assert_false(res->options[0].has_break_even_hourly);
}

static void test_cheapest_ties(void **state) {
    (void)state;
    gp_scenario s;
    seed(&s);
    s.server_base_w = 0;
    s.horizon_months = 1;
    s.utilization = 1;
    /* Self-hosted: 1,250,000. Option: 80 * 730 / 8 * h = 7300 h. */
    add_option(&s, "a", GP_ON_DEMAND, 8, 1250000.0 / 7300);
    add_option(&s, "b", GP_ON_DEMAND, 8, 1250000.0 / 7300);
    gp_model_evaluate(&s, res);
    assert_close(res->options[0].total, res->self.total, REL);
    if (res->options[0].total == res->self.total)
        assert_int_equal(res->cheapest, -1); /* exact tie goes to self-hosted */
    s.options[0].hourly = 1;
    s.options[1].hourly = 1;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->cheapest, 0); /* tie between options: the first listed */
}

/* Closed-form totals agree with the month walk on many varied scenarios. */
static void test_closed_form_matches_walk(void **state) {
    (void)state;
    srand(12345);
    for (int trial = 0; trial < 500; trial++) {
        gp_scenario s;
        gp_scenario_defaults(&s);
        s.horizon_months = 1 + rand() % 120;
        s.gpus = 1 + rand() % 300;
        /* Every seventh trial idle: the demand charge's base-load corner. */
        s.utilization = trial % 7 == 0 ? 0.0 : (rand() % 1001) / 1000.0;
        s.discount_rate = (rand() % 20) / 100.0;
        s.gpus_per_server = 1 + rand() % 16;
        s.server_price = 1000 + rand() % 300000;
        s.price_factor = 0.3 + (rand() % 100) / 100.0;
        s.n_tiers = rand() % 3;
        for (int i = 0; i < s.n_tiers; i++)
            s.tiers[i] = (gp_bulk_tier){1 + i * 5 + rand() % 5, (rand() % 30) / 100.0};
        s.network_per_server = rand() % 5000;
        s.fixed_capex = rand() % 50000;
        s.residual_pct = (rand() % 50) / 100.0;
        s.warranty_months = rand() % 48;
        s.maintenance_pct_per_year = (rand() % 20) / 100.0;
        s.staff_per_month = rand() % 10000;
        s.other_per_month = rand() % 1000;
        s.colo_per_kw_month = rand() % 200;
        s.server_base_w = rand() % 3000;
        s.gpu_idle_w = rand() % 100;
        s.gpu_tdp_w = s.gpu_idle_w + rand() % 700;
        s.has_gpu_avg_w = rand() % 4 == 0;
        s.gpu_avg_w = rand() % 500;
        s.pue = 1 + (rand() % 100) / 100.0;
        s.n_periods = 1 + rand() % 4;
        for (int k = 0; k < s.n_periods; k++) {
            s.periods[k].hours_per_day = 24.0 / s.n_periods;
            s.periods[k].price_per_kwh = (rand() % 40) / 100.0;
        }
        s.shift_to_cheapest = rand() % 2;
        s.demand_charge_per_kw_month = rand() % 20;
        if (rand() % 2) {
            s.financing = GP_LOAN;
            s.loan_apr = (rand() % 15) / 100.0;
            s.loan_term_months = 1 + rand() % 120;
            s.loan_fraction = (rand() % 101) / 100.0;
        }
        s.n_options = 1 + rand() % 4;
        for (int i = 0; i < s.n_options; i++) {
            gp_option *o = &s.options[i];
            gp_option_defaults(o);
            snprintf(o->name, sizeof o->name, "o%d", i);
            o->pricing = (gp_pricing)(rand() % 3);
            o->gpus_per_instance = 1 + rand() % 8;
            o->hourly = (rand() % 5000) / 100.0;
            o->support_pct = (rand() % 10) / 100.0;
            o->storage_gb = rand() % 1000;
            o->storage_per_gb_month = 0.08;
            if (o->pricing == GP_COMMITTED) {
                o->upfront = rand() % 100000;
                o->term_months = 1 + rand() % 48;
            } else {
                o->idle_overhead = (rand() % 30) / 100.0;
                if (o->pricing == GP_SPOT) {
                    o->interruptions_per_hour = (rand() % 20) / 100.0;
                    o->checkpoint_interval_h = 0.5 + rand() % 4;
                    o->restart_h = (rand() % 10) / 10.0;
                }
            }
        }
        gp_model_evaluate(&s, res);
        double self, opts[GP_MAX_OPTIONS];
        gp_model_steady_totals(&s, &self, opts);
        assert_close(self, res->self.total, 1e-9);
        for (int i = 0; i < s.n_options; i++)
            assert_close(opts[i], res->options[i].total, 1e-9);
    }
}

static void test_mix(void **state) {
    (void)state;
    gp_scenario s;
    gp_scenario_defaults(&s);
    s.horizon_months = 12;
    s.gpus = 4;
    s.gpus_per_server = 1;
    s.utilization = 0.5;
    s.server_price = 1000;
    s.n_periods = 1;
    s.periods[0].price_per_kwh = 0;
    add_option(&s, "od", GP_ON_DEMAND, 1, 1.0);
    /* Four buckets: 0, 1, 2 and 4 GPUs busy (mean 1.75). */
    double b[4] = {0, 1, 2, 4};
    double curve[5];
    int best = -1;
    gp_err err;
    assert_int_equal(gp_model_mix(&s, 0, b, 4, curve, &best, &err), GP_OK);
    /* k = 0: rent everything: 730 * 1.75 * 12 = 15330. */
    assert_close(curve[0], 15330, REL);
    /* k = 1: own 1 (1000), overflow mean((0,0,1,3)) = 1 -> 730 * 12 = 8760. */
    assert_close(curve[1], 1000 + 8760, REL);
    /* k = 2: 2000 + mean(0,0,0,2) = 0.5 -> 4380. */
    assert_close(curve[2], 2000 + 4380, REL);
    /* k = 3: 3000 + 0.25 -> 2190; k = 4: 4000, nothing rented. */
    assert_close(curve[3], 3000 + 2190, REL);
    assert_close(curve[4], 4000, REL);
    assert_int_equal(best, 4);
    /* Committed options and unsorted curves are refused. */
    s.options[0].pricing = GP_COMMITTED;
    assert_int_equal(gp_model_mix(&s, 0, b, 4, curve, &best, &err), GP_E_INPUT);
    s.options[0].pricing = GP_ON_DEMAND;
    double bad[2] = {3, 1};
    assert_int_equal(gp_model_mix(&s, 0, bad, 2, curve, &best, &err), GP_E_INPUT);
}

static void test_mix_owned_utilization(void **state) {
    (void)state;
    /* With power costs the owned side's utilization u_k matters: check k = 2 by hand. */
    gp_scenario s;
    gp_scenario_defaults(&s);
    s.horizon_months = 1;
    s.gpus = 2;
    s.gpus_per_server = 1;
    s.utilization = 0.5;
    s.server_price = 0;
    s.gpu_tdp_w = 1000;
    s.n_periods = 1;
    s.periods[0].price_per_kwh = 1.0;
    add_option(&s, "od", GP_ON_DEMAND, 1, 100.0);
    double b[2] = {1, 2}; /* mean min(b, 2) = 1.5 -> u_2 = 0.75 */
    double curve[3];
    int best;
    gp_err err;
    assert_int_equal(gp_model_mix(&s, 0, b, 2, curve, &best, &err), GP_OK);
    assert_close(curve[2], 2 * 0.75 * 730 * 1.0, REL);
    assert_int_equal(best, 2);
}

/* ---- version 2 ------------------------------------------------------------------------ */

/* A small GPU-mode plan: 16 GPUs on 8-GPU servers at 1,000, no power price. */
static void small(gp_scenario *s, int months) {
    gp_scenario_defaults(s);
    snprintf(s->name, sizeof s->name, "small");
    s->horizon_months = months;
    s->gpus = 16;
    s->utilization = 0.5;
    s->server_price = 1000;
    s->periods[0].price_per_kwh = 0;
}

static void test_v2_growth_ceil_plus(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 4);
    s.gpus = 100;
    s.growth_per_month = 0.1;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    /* 110.00000000000001 and 121.00000000000003 add no GPU; 133.1 needs 134. */
    assert_int_equal(res->demand_gpus[0], 100);
    assert_int_equal(res->demand_gpus[1], 110);
    assert_int_equal(res->demand_gpus[2], 121);
    assert_int_equal(res->demand_gpus[3], 134);
    assert_close(res->demand_work_month[3], 134 * 730 * 0.5, REL);
    /* all_at_once buys the largest need, 17 servers, at index 0. */
    assert_int_equal(res->self.n_batches, 1);
    assert_int_equal(res->self.batches[0].servers, 17);
    assert_int_equal(res->self.servers_in_service[0], 17);
    assert_int_equal(res->self.gpus_at_work[0], 100);
}

static void test_v2_lead_time_and_bridge(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 6);
    s.buy = GP_BUY_AS_NEEDED;
    s.lead_time_months = 2;
    gp_option *o = add_option(&s, "od", GP_ON_DEMAND, 8, 10);
    o->storage_gb = 100;
    o->storage_per_gb_month = 1;
    /* No bridge: the first two months cannot be served. */
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_E_INPUT);
    assert_string_equal(res->error.where, "$.self_hosted.bridge");
    assert_non_null(strstr(res->error.msg, "month 1 "));
    s.bridge = 0;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    /* 16 GPUs * 730 h * 0.5 = 5,840 busy GPU-hours = 730 instance-hours * 10, plus the
     * bridge's storage (100) only in the months it serves. */
    assert_close(res->self.bridge_hours[0], 5840, REL);
    assert_close(res->self.bridge_cost[1], 7400, REL);
    assert_close(res->self.bridge_hours[2], 0, REL);
    assert_close(res->self.breakdown.bridge, 14800, REL);
    assert_int_equal(res->self.servers_in_service[1], 0);
    assert_int_equal(res->self.servers_in_service[2], 2);
    assert_int_equal(res->self.n_batches, 1);
    assert_int_equal(res->self.batches[0].index, 2);
    assert_close(res->self.monthly[2], 7400 + 2000, REL);
    assert_close(res->self.monthly[3], 0, REL);
    /* The bridge stands as an option of its own too: 7,400 every month. */
    assert_close(res->options[0].total, 6 * 7400, REL);
    /* The bridge's price moves self-hosted's total too. as_needed values the batch on the
     * derived line, 1 - 4/60 at age 4: self(h) = 2,000 + 200 - 1,866.67 + 1,460 h against
     * opt(h) = 600 + 4,380 h, which never meet at h >= 0. */
    assert_close(res->self.exit_value, 2000 * (1 - 4.0 / 60), REL);
    assert_false(res->options[0].has_break_even_hourly);
    /* Without the storage: 133.33 + 1,460 h = 4,380 h at h = 133.33 / 2,920. */
    o->storage_gb = 0;
    gp_model_evaluate(&s, res);
    assert_true(res->options[0].has_break_even_hourly);
    assert_close(res->options[0].break_even_hourly, 2000 * 4.0 / 60 / 2920, REL);
}

static void test_v2_refresh_sales_network(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 30);
    s.refresh_months = 12;
    s.network_per_server = 100;
    s.residual_pct = 0.5; /* the derived line: 1 at age 0 to 0.5 at 60 months */
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    const gp_self_result *r = &res->self;
    assert_int_equal(r->n_batches, 3);
    assert_false(r->batches[0].refresh);
    assert_true(r->batches[1].refresh && r->batches[2].refresh);
    assert_int_equal(r->batches[1].index, 12);
    assert_int_equal(r->batches[2].index, 24);
    assert_close(r->batches[0].hardware_capex, 2200, REL);
    assert_close(r->batches[1].hardware_capex, 2000, REL); /* the network is kept */
    /* Sold at 12 and 24 at age 12 (pct 0.9), network passed on; the last batch at M, age 6
     * (0.95), with the network shares bought at 0, age 30 (0.75). */
    assert_close(r->batches[0].value, 1800, REL);
    assert_close(r->batches[1].value, 1800, REL);
    assert_close(r->batches[2].value, 0.95 * 2000 + 0.75 * 200, REL);
    assert_int_equal(r->batches[0].passed_on, 2);
    assert_int_equal(r->batches[2].network_index, 0);
    assert_close(r->exit_value, 2050, REL);
    assert_close(r->breakdown.residual, -(1800 + 1800 + 2050), REL);
    assert_close(r->monthly[12], 2000 - 1800, REL);
    for (int j = 0; j < 30; j++)
        assert_int_equal(r->servers_in_service[j], 2);
    assert_int_equal(r->batches[r->sale_order[2]].exit, 30);
    assert_close(r->hardware_capex, 6200, REL);
    assert_close(r->depreciation_per_year, (6200 - 5650) / 5.0, REL);
}

static void test_v2_base_needs_burst(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 3);
    gp_option *c = add_option(&s, "base", GP_COMMITTED, 8, 5);
    c->has_base_gpus = true;
    c->base_gpus = 8;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_E_INPUT);
    assert_string_equal(res->error.where, "$.cloud_options[0].burst");
    assert_non_null(strstr(res->error.msg, "month 1 "));
    add_option(&s, "od", GP_ON_DEMAND, 8, 10);
    s.options[0].burst = 1;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    /* The base does 8 * 365 busy GPU-hours, the burst the other 2,920: 365 instance-hours. */
    assert_close(res->options[0].burst_hours[0], 2920, REL);
    assert_close(res->options[0].burst, 3 * 3650, REL);
    assert_close(res->options[0].monthly[1], 730 * 5 + 3650, REL);
}

static void test_v2_version1_corners(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 10);
    /* Support is paid on an upfront fee too: 2 instances * 100 * 1.1. */
    gp_option *c = add_option(&s, "c", GP_COMMITTED, 8, 0);
    c->upfront = 100;
    c->support_pct = 0.1;
    /* A demand charge at u = 0 meters the base load: (2 * 1000 + 16 * 50) W = 2.8 kW. */
    s.utilization = 0;
    s.server_base_w = 1000;
    s.gpu_idle_w = 50;
    s.gpu_tdp_w = 300;
    s.demand_charge_per_kw_month = 10;
    s.colo_per_kw_month = 1;
    s.pue = 1.5;
    gp_model_evaluate(&s, res);
    assert_close(res->options[0].monthly[0], 220, REL);
    assert_close(res->self.breakdown.demand_charge, 10 * 10 * 2.8 * 1.5, REL);
    /* Colocation still reserves the installed peak, (2 * 1000 + 16 * 300) W. */
    assert_close(res->self.breakdown.colo, 10 * 6.8, REL);
    /* The steady state agrees. */
    double self, opts[GP_MAX_OPTIONS];
    gp_model_steady_totals(&s, &self, opts);
    assert_close(self, res->self.total, 1e-12);
    assert_close(opts[0], res->options[0].total, 1e-12);
}

static void test_v2_break_even_not_both_zero(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 10);
    s.gpus = 8;
    s.utilization = 1;
    s.financing = GP_LOAN;
    s.loan_apr = 0;
    s.loan_term_months = 10;
    add_option(&s, "od", GP_ON_DEMAND, 8, 200.0 / 730);
    gp_model_evaluate(&s, res);
    /* Both have paid 0 at m = 0: no break-even there (version 1 said 0). Self-hosted pays
     * 100 a month against 200. */
    assert_close(res->self.monthly[0], 0, REL);
    assert_true(res->options[0].has_break_even_month);
    assert_int_equal(res->options[0].break_even_month, 1);
    assert_int_equal(res->options[0].payback_month, 1);
    assert_int_equal(res->options[0].break_even_month_without_exit, 1);
}

/* Revision 2.1: while the servers are on order the bridge, which is the option compared, pays
 * the same bills on both sides; those level months are no break-even. */
static void test_v2_level_months_no_break_even(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 6);
    s.buy = GP_BUY_AS_NEEDED;
    s.lead_time_months = 2;
    gp_option *o = add_option(&s, "od", GP_ON_DEMAND, 8, 10);
    o->storage_gb = 100;
    o->storage_per_gb_month = 1;
    s.bridge = 0;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    /* Cumulative self-hosted 0, 7,400, 16,800 (the batch, 2,000, at 2), then flat; the
     * option 0, 7,400, 14,800, 22,200: level at 0 and 1 (2.0 said month 1), behind at 2,
     * ahead from 3 on, exit value or not. */
    assert_close(res->self.monthly[1], res->options[0].monthly[1], REL);
    const gp_option_result *r = &res->options[0];
    assert_true(r->has_break_even_month && r->has_payback_month);
    assert_int_equal(r->break_even_month, 3);
    assert_int_equal(r->payback_month, 3);
    assert_int_equal(r->break_even_month_without_exit, 3);
    assert_int_equal(r->payback_month_without_exit, 3);
}

static void test_v2_work_mode(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 3);
    s.work_mode = true;
    s.gpus = 0;
    s.work_per_month = 36500;
    s.work_per_gpu_hour = 10;
    gp_option *o = add_option(&s, "od", GP_ON_DEMAND, 8, 16);
    o->work_per_gpu_hour = 4;
    /* Work that rounds to no GPU at all needs no rented hours: no bridge, no error. */
    s.n_steps = 1;
    s.steps[0] = (gp_step){.month = 3, .has_work = true, .work_per_month = 1e-9};
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    assert_true(res->work_mode);
    /* 36,500 / 10 = 3,650 busy GPU-hours at 365 a GPU: 10 GPUs, 2 servers. */
    assert_int_equal(res->self.gpus_at_work[0], 10);
    assert_int_equal(res->self.servers_in_service[0], 2);
    assert_int_equal(res->self.gpus_at_work[2], 0);
    assert_close(res->self.bridge_hours[2], 0, REL);
    /* 16 / 8 / 4 = 0.5 per unit of work, every month. */
    assert_true(res->options[0].has_cost_per_work_unit);
    assert_close(res->options[0].cost_per_work_unit, 0.5, REL);
    assert_false(res->options[0].has_cost_per_gpu_hour);
    assert_false(res->options[0].has_break_even_utilization);
    assert_false(res->self.has_cost_per_gpu_hour);
    assert_close(res->self.cost_per_work_unit, res->self.total / (2 * 36500 + 1e-9), REL);
}

static void test_v2_not_finite(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 2);
    s.work_mode = true;
    s.work_per_month = 1e308;
    s.work_per_gpu_hour = 1e306; /* 100 busy GPU-hours a month, but the sum of work is inf */
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_E_INPUT);
    assert_string_equal(res->error.where, "demand_work");
    /* Past 10,000,000 GPUs is an error naming the side and the month. */
    small(&s, 5);
    s.gpus = 1000000;
    s.growth_per_month = 1;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_E_INPUT);
    assert_string_equal(res->error.where, "$.demand");
    assert_non_null(strstr(res->error.msg, "month 5"));
}

static void test_v2_price_trends_and_terms(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 24);
    s.energy_price_trend_per_year = 0.1;
    s.periods[0].price_per_kwh = 0.1;
    s.server_base_w = 1000;
    gp_option *c = add_option(&s, "c", GP_COMMITTED, 8, 10);
    c->price_trend_per_year = -0.2;
    c->upfront = 50;
    gp_model_evaluate(&s, res);
    /* Month 13's power: 2 kW around the clock * 730 h * 0.1 * 1.1. */
    assert_close(res->self.monthly[13], 2 * 730 * 0.1 * 1.1, 1e-12);
    assert_close(res->self.monthly[12], 2 * 730 * 0.1 * pow(1.1, 11.0 / 12), 1e-12);
    /* Each term locks its price at its start: 10, then 8; the second upfront at 12. */
    assert_close(res->options[0].monthly[12], 2 * 730 * 10 + 2 * 50 * 0.8, 1e-12);
    assert_close(res->options[0].monthly[13], 2 * 730 * 8, 1e-12);
}

/* docs/model.md Results' break-even and payback, written apart from the engine: index m counts
 * when self-hosted's running sum (with add_at_m added back at M) is at most the option's by
 * Ties, the two are not both 0 and have differed by Ties at some index up to m (2.1). */
static bool ties(double a, double b) {
    return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void months_by_hand(const double *self, double add_at_m, const double *opt, int m,
                           bool *has_be, int *be, bool *has_pb, int *pb) {
    double cs[GP_MAX_MONTHS + 1], co[GP_MAX_MONTHS + 1];
    double a = 0, b = 0;
    for (int k = 0; k <= m; k++) {
        a += self[k] + (k == m ? add_at_m : 0.0);
        b += opt[k];
        cs[k] = a;
        co[k] = b;
    }
    *has_be = *has_pb = false;
    for (int k = 0; k <= m; k++) {
        bool differed = false;
        for (int q = 0; q <= k; q++)
            differed = differed || !ties(cs[q], co[q]);
        bool counts = (cs[k] < co[k] || ties(cs[k], co[k])) && differed &&
                      !(ties(cs[k], 0) && ties(co[k], 0));
        if (!counts)
            continue;
        if (!*has_be)
            *has_be = true, *be = k;
        bool never_behind = true;
        for (int q = k; q <= m; q++)
            never_behind = never_behind && (cs[q] < co[q] || ties(cs[q], co[q]));
        if (never_behind && !*has_pb)
            *has_pb = true, *pb = k;
    }
}

/* Random version 2 plans: whatever the keys, the breakdown sums to the total, every batch
 * leaves after it arrives and is counted in service exactly then, servers cover what is
 * wanted from the first delivery on, and a bridge serves only what owned GPUs cannot. */
/* Revision 2.1: a per_unit option is an on-demand option with one GPU an instance, throughput
 * 1, no idle overhead and hourly = price_per_unit + input units * their price, as an option,
 * as the bridge and as a burst; its break-even price holds the input part. */
static void test_per_unit_is_on_demand(void **state) {
    (void)state;
    int rooted = 0;
    for (int bridge = 0; bridge < 2; bridge++) {
        gp_scenario s;
        gp_scenario_defaults(&s);
        s.horizon_months = 24;
        s.work_mode = true;
        s.work_per_month = 40000;
        s.growth_per_month = 0.03;
        s.utilization = 0.6;
        s.work_per_gpu_hour = 30;
        s.server_price = 2000000; /* dear enough that the API's break-even price is > 0 */
        s.buy = GP_BUY_AS_NEEDED;
        s.lead_time_months = 3;
        s.server_base_w = 3000;
        s.gpu_tdp_w = 1000;
        gp_option *api = add_option(&s, "api", GP_PER_UNIT, 0, 0);
        api->price_per_unit = 0.6;
        api->price_per_input_unit = 0.2;
        api->input_units_per_unit = 2;
        api->price_trend_per_year = -0.3;
        api->support_pct = 0.05;
        api->storage_gb = 10;
        api->storage_per_gb_month = 1;
        gp_option_per_unit_sync(api);
        assert_int_equal(api->gpus_per_instance, 1);
        assert_true(api->work_per_gpu_hour == 1.0 && api->idle_overhead == 0.0);
        assert_true(api->hourly == 0.6 + 2 * 0.2);
        gp_option *c = add_option(&s, "c", GP_COMMITTED, 8, 20);
        c->work_per_gpu_hour = 11;
        c->has_base_gpus = true;
        c->base_gpus = 8;
        c->burst = 0; /* bursting into the API */
        s.bridge = bridge ? 0 : -1;
        if (!bridge)
            s.lead_time_months = 0;
        gp_model_evaluate(&s, res);
        assert_int_equal(res->error.code, GP_OK);
        double self = res->self.total, api_total = res->options[0].total;
        double c_total = res->options[1].total, c_burst = res->options[1].burst;
        bool has_be = res->options[0].has_break_even_hourly;
        double be = res->options[0].break_even_hourly;
        assert_true(c_burst > 0);
        double v;
        assert_false(gp_result_cost_per_gpu_hour(&s, res, 0, &v));
        assert_true(gp_result_cost_per_work_unit(res, 0, &v));
        /* The same scenario with the API written as its on-demand equivalent. */
        gp_option od = *api;
        od.pricing = GP_ON_DEMAND;
        od.price_per_unit = od.price_per_input_unit = od.input_units_per_unit = 0;
        s.options[0] = od;
        gp_model_evaluate(&s, res);
        assert_int_equal(res->error.code, GP_OK);
        assert_memory_equal(&self, &res->self.total, sizeof self);
        assert_memory_equal(&api_total, &res->options[0].total, sizeof api_total);
        assert_memory_equal(&c_total, &res->options[1].total, sizeof c_total);
        assert_memory_equal(&c_burst, &res->options[1].burst, sizeof c_burst);
        /* Its break-even hourly, less the input part held, is the API's break-even price. */
        if (res->options[0].has_break_even_hourly && res->options[0].break_even_hourly >= 0.4) {
            assert_true(has_be);
            assert_close(be, res->options[0].break_even_hourly - 0.4, 1e-12);
            rooted++;
        } else if (res->options[0].has_break_even_hourly) {
            assert_false(has_be && be > 0); /* below the input part: none, or 0 by Ties */
        } else {
            assert_false(has_be);
        }
    }
    assert_int_equal(rooted, 2);
}

static void test_v2_random_invariants(void **state) {
    (void)state;
    int level_plans = 0;
    srand(2027);
    for (int trial = 0; trial < 300; trial++) {
        gp_scenario s;
        gp_scenario_defaults(&s);
        s.horizon_months = 1 + rand() % 96;
        int m = s.horizon_months;
        s.gpus = 1 + rand() % 200;
        s.utilization = (rand() % 101) / 100.0;
        s.gpus_per_server = 1 + rand() % 8;
        s.server_price = 1000 + rand() % 300000;
        s.network_per_server = rand() % 5000;
        s.fixed_capex = rand() % 50000;
        s.warranty_months = rand() % 24;
        s.maintenance_pct_per_year = (rand() % 10) / 100.0;
        /* No staff in a third of the plans: while the servers are on order self-hosted then pays
         * only the bridge, so the first months are level against it (option 0). */
        s.staff_per_month = rand() % 3 == 0 ? 0 : rand() % 10000;
        s.server_base_w = rand() % 3000;
        s.gpu_tdp_w = rand() % 700;
        s.colo_per_kw_month = rand() % 200;
        s.demand_charge_per_kw_month = rand() % 20;
        s.discount_rate = (rand() % 10) / 100.0;
        if (rand() % 2)
            s.growth_per_month = (rand() % 80 - 20) / 1000.0;
        else if (m > 2)
            for (int k = 2; k <= m && s.n_steps < 4; k += 1 + rand() % 12)
                s.steps[s.n_steps++] = (gp_step){.month = k,
                                                 .has_gpus = true,
                                                 .gpus = rand() % 300,
                                                 .has_utilization = rand() % 2,
                                                 .utilization = (rand() % 101) / 100.0};
        s.buy = rand() % 2 ? GP_BUY_AS_NEEDED : GP_BUY_ALL_AT_ONCE;
        s.lead_time_months = rand() % (m < 6 ? m : 6);
        s.order_every_months = 1 + rand() % (m < 4 ? m : 4);
        if (rand() % 4 == 0) {
            s.has_max_servers = true;
            s.max_servers = 1 + rand() % 20;
        }
        s.refresh_months = rand() % 3 == 0 ? 12 + rand() % 24 : 0;
        s.residual_pct = (rand() % 50) / 100.0;
        s.server_price_trend_per_year = (rand() % 40 - 20) / 100.0;
        s.energy_price_trend_per_year = (rand() % 40 - 20) / 100.0;
        if (rand() % 2) {
            s.financing = GP_LOAN;
            s.loan_apr = (rand() % 15) / 100.0;
            s.loan_term_months = 1 + rand() % 60;
            s.loan_fraction = (rand() % 101) / 100.0;
        }
        gp_option *od = add_option(&s, "od", GP_ON_DEMAND, 1 + rand() % 8, rand() % 40);
        od->storage_gb = rand() % 100;
        od->storage_per_gb_month = 0.1;
        od->price_trend_per_year = (rand() % 40 - 20) / 100.0;
        gp_option *c = add_option(&s, "c", GP_COMMITTED, 1 + rand() % 8, rand() % 30);
        c->upfront = rand() % 10000;
        c->term_months = 1 + rand() % 36;
        if (rand() % 2) {
            c->has_base_gpus = true;
            c->base_gpus = 1 + rand() % 100;
            c->burst = 0;
        }
        s.bridge = 0;
        gp_model_evaluate(&s, res);
        assert_int_equal(res->error.code, GP_OK);
        const gp_self_result *r = &res->self;
        const gp_breakdown *b = &r->breakdown;
        double parts = b->capex + b->power + b->colo + b->demand_charge + b->maintenance +
                       b->staff + b->other + b->interest + b->residual + b->bridge;
        assert_close(parts, r->total, 1e-9);
        int in_service[GP_MAX_MONTHS + 2] = {0};
        for (int i = 0; i < r->n_batches; i++) {
            const gp_batch *x = &r->batches[i];
            assert_true(x->servers > 0 && x->index >= s.lead_time_months && x->exit > x->index &&
                        x->exit <= m);
            assert_true(i == 0 || r->batches[i - 1].index <= x->index);
            for (int j = x->index + 1; j <= x->exit; j++)
                in_service[j] += x->servers;
        }
        for (int j = 1; j <= m; j++) {
            assert_int_equal(r->servers_in_service[j - 1], in_service[j]);
            int want = (res->demand_gpus[j - 1] + s.gpus_per_server - 1) / s.gpus_per_server;
            if (s.has_max_servers && want > s.max_servers)
                want = s.max_servers;
            if (j > s.lead_time_months)
                assert_true(in_service[j] >= want);
            int owned = in_service[j] * s.gpus_per_server;
            int at_work = res->demand_gpus[j - 1] < owned ? res->demand_gpus[j - 1] : owned;
            assert_int_equal(r->gpus_at_work[j - 1], at_work);
            assert_close(
                r->bridge_hours[j - 1],
                (res->demand_gpus[j - 1] - at_work) * 730.0 * res->demand_utilization[j - 1], 1e-9);
        }
        for (int i = 0; i < 2; i++) {
            double sum = 0;
            for (int k = 0; k <= m; k++)
                sum += res->options[i].monthly[k];
            assert_close(sum, res->options[i].total, 1e-12);
        }
        assert_true(res->options[0].burst == 0 && res->options[1].burst >= 0);
        for (int i = 0; i < 2; i++) {
            const gp_option_result *o = &res->options[i];
            bool has_be, has_pb;
            int be = -1, pb = -1;
            months_by_hand(r->monthly, 0.0, o->monthly, m, &has_be, &be, &has_pb, &pb);
            assert_int_equal(o->has_break_even_month, has_be);
            assert_int_equal(o->has_payback_month, has_pb);
            assert_true(!has_be || o->break_even_month == be);
            assert_true(!has_pb || o->payback_month == pb);
            months_by_hand(r->monthly, r->exit_value, o->monthly, m, &has_be, &be, &has_pb, &pb);
            assert_int_equal(o->has_break_even_month_without_exit, has_be);
            assert_int_equal(o->has_payback_month_without_exit, has_pb);
            assert_true(!has_be || o->break_even_month_without_exit == be);
            assert_true(!has_pb || o->payback_month_without_exit == pb);
            double self_1 = r->monthly[0] + r->monthly[1], opt_1 = o->monthly[0] + o->monthly[1];
            level_plans += m > 1 && opt_1 > 0 && ties(self_1, opt_1);
        }
    }
    /* The seed draws plans whose first months are level (the bridge is option 0). */
    assert_true(level_plans > 0);
}

/* The most batches a plan can hold: a new one every month (1-GPU servers, growing demand)
 * and each refreshed every 12 months, over 240 months, is GP_MAX_BATCHES exactly. */
static void test_v2_most_batches(void **state) {
    (void)state;
    gp_scenario s;
    small(&s, 240);
    s.gpus = 100;
    s.gpus_per_server = 1;
    s.growth_per_month = 0.02;
    s.buy = GP_BUY_AS_NEEDED;
    s.refresh_months = 12;
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    assert_int_equal(res->self.n_batches, GP_MAX_BATCHES);
    assert_int_equal(res->self.batches[res->self.sale_order[GP_MAX_BATCHES - 1]].exit, 240);
}

/* ---- the worked version 2 examples, by the figures their README checks by hand ---------- */

static gp_scenario *example(const char *name) {
    static gp_scenario s;
    char path[1024];
    const char *root = getenv("GP_SOURCE_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/examples/%s.json", root ? root : ".", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    gp_err err;
    assert_int_equal(gp_scenario_parse(buf, n, name, &s, NULL, &err), GP_OK);
    gp_model_evaluate(&s, res);
    assert_int_equal(res->error.code, GP_OK);
    return &s;
}

static void test_example_growth_lead_bridge(void **state) {
    (void)state;
    example("v2-growth-as-needed-lead-bridge");
    const gp_self_result *r = &res->self;
    /* The first delivery at 3 covers month 4: 9 servers, then 1 at 4; 23 purchases. */
    assert_int_equal(r->batches[0].index, 3);
    assert_int_equal(r->batches[0].servers, 9);
    assert_int_equal(r->batches[1].index, 4);
    assert_int_equal(r->n_batches, 23);
    assert_int_equal(r->servers_in_service[35], 32);
    /* The bridge does months 1-3: N_j * 730 * 0.7 / 8 * 23.92 for N = 64, 67, 70. */
    double b3 = 70 * 730 * 0.7 / 8 * 23.92;
    assert_close(r->breakdown.bridge, (64 + 67 + 70) * 730 * 0.7 / 8 * 23.92, REL);
    assert_close(r->monthly[3], 9 * 295000.0 + 60000 + b3 + 12000, REL);
    assert_close(r->bridge_hours[3], 0, REL);
    /* Exit values: the first batch 33 months old, 0.75 + (0.45 - 0.75) * 21/24 of H_b. */
    assert_close(r->batches[0].value, 2655000 * (0.75 - 0.3 * 21 / 24), REL);
    /* On-demand: break-even only at M, through the exit values. */
    assert_int_equal(res->options[0].break_even_month, 36);
    assert_false(res->options[0].has_break_even_month_without_exit);
    assert_int_equal(res->options[1].break_even_month, 1);
    assert_false(res->options[1].has_payback_month_without_exit);
}

static void test_example_steps_cap_spot_bridge(void **state) {
    (void)state;
    example("v2-steps-all-at-once-cap-spot-bridge");
    /* 16 servers (the cap) at 0 with the 10-server tier; colocation on the installed peak;
     * the spot bridge does (160 - 128) GPUs' busy hours in months 7-18. */
    assert_int_equal(res->self.n_batches, 1);
    assert_close(res->self.batches[0].hardware_capex, 16 * 265000 * 0.95, REL);
    double bridge = 17520.0 / 8 * (1 + 0.02 * (0.5 + 0.25)) * 12.8;
    assert_close(res->self.breakdown.bridge, 12 * bridge, REL);
    assert_close(res->self.total, 4028000 + 6 * 16320 + 18 * 20128 + 12 * bridge - 1409800, REL);
    assert_int_equal(res->demand_gpus[6], 160);
    assert_close(res->demand_utilization[18], 0.75, REL);
}

static void test_example_work_mode(void **state) {
    (void)state;
    example("v2-work-mode-generations");
    assert_true(res->work_mode);
    assert_int_equal(res->self.gpus_at_work[0], 122); /* ceil+(44,444.44 / 365) */
    assert_int_equal(res->self.servers, 31);
    assert_close(res->options[0].cost_per_work_unit, 14.40 / 8 / 3.6, REL);
    assert_close(res->options[1].cost_per_work_unit, 30.40 / 8 / 14, REL);
    assert_close(res->options[2].monthly[1], 22 * 730 * 17.60, REL);
    assert_close(res->options[2].monthly[13], 31 * 730 * 17.60, REL);
}

/* Work mode prints a side's cost per busy GPU-hour (its total over its own busy hours,
 * sum_j W_j / rho_X) beside its cost per unit of work; GPU mode has only the first. */
static void test_work_mode_cost_per_gpu_hour(void **state) {
    (void)state;
    const gp_scenario *s = example("v2-work-mode-generations");
    double busy_self = 0, busy_a100 = 0, v;
    for (int j = 0; j < res->horizon_months; j++) {
        busy_self += res->demand_work_month[j] / 9.0;
        busy_a100 += res->demand_work_month[j] / 3.6;
    }
    assert_true(gp_result_cost_per_gpu_hour(s, res, -1, &v));
    assert_close(v, res->self.total / busy_self, REL);
    assert_true(gp_result_cost_per_gpu_hour(s, res, 0, &v));
    assert_close(v, res->options[0].total / busy_a100, REL);
    assert_close(v, 14.40 / 8, REL); /* on-demand, nothing but busy hours: its price */
    assert_true(gp_result_cost_per_work_unit(res, 0, &v));
    assert_close(v, 14.40 / 8 / 3.6, REL);
    s = example("v2-growth-as-needed-lead-bridge");
    assert_true(gp_result_cost_per_gpu_hour(s, res, -1, &v));
    assert_close(v, res->self.cost_per_gpu_hour, REL);
    assert_false(gp_result_cost_per_work_unit(res, -1, &v));
}

static void test_example_refresh_loan(void **state) {
    (void)state;
    example("v2-refresh-resale-loan");
    double r = 0.07 / 12;
    double a1 = 2536000 * r / (1 - pow(1 + r, -36)), a2 = 1749600 * r / (1 - pow(1 + r, -36));
    assert_close(res->self.monthly[0], 634000, REL);
    assert_close(res->self.breakdown.interest, 36 * (a1 + a2) - (2536000 + 1749600), REL);
    assert_close(res->self.batches[0].value, 0.30 * 3000000 * pow(0.9, 3), REL);
    assert_close(res->self.batches[1].hardware_capex, 12 * 250000 * pow(0.9, 3), REL);
    /* At M the refresh batch holds the network bought at 0, 72 months old (pct 0.12). */
    assert_close(res->self.batches[1].value,
                 0.30 * 2187000 * pow(0.9, 3) + 0.12 * 120000 * pow(0.9, 6), REL);
    assert_int_equal(res->self.batches[res->self.sale_order[0]].exit, 36);
    assert_int_equal(res->self.batches[res->self.sale_order[1]].exit, 72);
}

static void test_example_cadence_base_burst_trends(void **state) {
    (void)state;
    example("v2-cadence-refresh-shrink-loan-demand-charge");
    assert_int_equal(res->options[0].break_even_month, 15);
    assert_int_equal(res->options[1].break_even_month, 1);
    assert_int_equal(res->options[1].payback_month, 24);
    assert_false(res->options[1].has_payback_month_without_exit);
    /* The refresh at 24 buys 2, the one at 30 buys 8: the fleet shrinks from 20 to 10. */
    assert_int_equal(res->self.servers_in_service[23], 20);
    assert_int_equal(res->self.servers_in_service[30], 10);
    example("v2-committed-base-burst");
    assert_close(res->options[2].burst, 6 * 327974.40 + 9 * 54662.40, REL);
    assert_close(res->options[2].monthly[18], 107456 + 54662.40 + 6 * 107456, REL);
    example("v2-price-trends-commit-lock");
    assert_close(res->options[1].monthly[12], 256960 + 26 * 20000 * 0.85, REL);
    assert_close(res->options[1].monthly[13], 26 * 730 * 17.60 * 0.85, REL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_check),
        cmocka_unit_test(test_servers_bulk_and_factor),
        cmocka_unit_test(test_power_periods_shift_avg),
        cmocka_unit_test(test_ties_in_shift_keep_given_order),
        cmocka_unit_test(test_peak_colo_demand_maintenance),
        cmocka_unit_test(test_loan_inside_and_past_horizon),
        cmocka_unit_test(test_residual_and_depreciation),
        cmocka_unit_test(test_cloud_kinds),
        cmocka_unit_test(test_npv_and_cost_per_gpu_hour),
        cmocka_unit_test(test_break_even_and_payback_differ),
        cmocka_unit_test(test_v2_level_months_no_break_even),
        cmocka_unit_test(test_break_even_utilization_flat_and_shifted),
        cmocka_unit_test(test_break_even_hourly),
        cmocka_unit_test(test_cheapest_ties),
        cmocka_unit_test(test_closed_form_matches_walk),
        cmocka_unit_test(test_mix),
        cmocka_unit_test(test_mix_owned_utilization),
        cmocka_unit_test(test_v2_growth_ceil_plus),
        cmocka_unit_test(test_v2_lead_time_and_bridge),
        cmocka_unit_test(test_v2_refresh_sales_network),
        cmocka_unit_test(test_v2_base_needs_burst),
        cmocka_unit_test(test_v2_version1_corners),
        cmocka_unit_test(test_v2_break_even_not_both_zero),
        cmocka_unit_test(test_v2_work_mode),
        cmocka_unit_test(test_v2_not_finite),
        cmocka_unit_test(test_v2_price_trends_and_terms),
        cmocka_unit_test(test_v2_random_invariants),
        cmocka_unit_test(test_per_unit_is_on_demand),
        cmocka_unit_test(test_v2_most_batches),
        cmocka_unit_test(test_example_growth_lead_bridge),
        cmocka_unit_test(test_example_steps_cap_spot_bridge),
        cmocka_unit_test(test_example_work_mode),
        cmocka_unit_test(test_work_mode_cost_per_gpu_hour),
        cmocka_unit_test(test_example_refresh_loan),
        cmocka_unit_test(test_example_cadence_base_burst_trends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
