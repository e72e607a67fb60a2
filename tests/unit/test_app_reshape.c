/* The shape changes of the TUI's Plan editor (app_reshape.h), called as it calls them: each
 * result loads (gp_load_scenario_doc) and evaluates, and a refusal leaves the document as it
 * was. */
#define _GNU_SOURCE /* nftw (session_fixture.h) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_reshape.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_throughput.h"
#include "testutil.h"

#include "session_fixture.h"

static cJSON *parse(const char *json) {
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    return doc;
}

/* doc loaded and evaluated: self-hosted's total, the first option's into *opt (when given). */
static double total(gp_session *s, const cJSON *doc, double *opt) {
    gp_loaded sc;
    gp_err err;
    if (gp_load_scenario_doc(s, doc, "test", "2027-01-01", &sc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    gp_result *r = malloc(sizeof *r);
    assert_non_null(r);
    if (gp_evaluate(&sc, r, &err))
        fail_msg("%s: %s", err.where, err.msg);
    double t = r->self.total;
    if (opt)
        *opt = r->options[0].total;
    free(r);
    gp_loaded_done(&sc);
    return t;
}

/* The resolved scenario of doc, for the calls that take one (free with gp_loaded_done). */
static gp_loaded resolved(gp_session *s, const cJSON *doc) {
    gp_loaded sc;
    gp_err err;
    if (gp_load_scenario_doc(s, doc, "test", "2027-01-01", &sc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    return sc;
}

static double num(const cJSON *doc, const char *a, const char *b) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, a);
    return cJSON_GetNumberValue(b ? cJSON_GetObjectItemCaseSensitive(o, b) : o);
}

static bool same(const cJSON *a, const char *json) {
    cJSON *b = parse(json);
    bool eq = cJSON_Compare(a, b, true);
    cJSON_Delete(b);
    return eq;
}

#define PLAN                                                                                       \
    "{\"name\": \"p\", \"horizon_months\": 12, \"demand\": {\"gpus\": 16, \"utilization\": 0.5, "  \
    "\"steps\": [{\"month\": 4, \"utilization\": 0.8}, {\"month\": 7, \"gpus\": 24}]}, "           \
    "\"self_hosted\": {\"server_price\": 200000, \"bridge\": \"od\"}, \"cloud_options\": [{"       \
    "\"name\": \"od\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 60, "     \
    "\"idle_overhead\": 0.1}, {\"name\": \"c\", \"pricing\": \"committed\", "                      \
    "\"gpus_per_instance\": 8, \"hourly\": 30, \"base_gpus\": 8, \"burst\": \"od\"}]}"

static void test_modes(void **state) {
    fixture *f = *state;
    gp_err err;
    cJSON *doc = parse(PLAN);
    double od_gpu, od_work, gpu_total = total(&f->ses, doc, &od_gpu);

    /* In busy GPU-hours: every month's GPUs and utilization as work, the same totals. */
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", NULL, &err), GP_OK);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "demand");
    assert_true(same(d, "{\"utilization\": 0.5, \"work_per_month\": 5840, \"work_unit\": "
                        "\"GPU-hours\", \"steps\": [{\"month\": 4, \"utilization\": 0.8, "
                        "\"work_per_month\": 9344}, {\"month\": 7, \"work_per_month\": 14016}]}"));
    assert_true(num(doc, "self_hosted", "work_per_gpu_hour") == 1);
    double work_total = total(&f->ses, doc, &od_work);
    assert_true(fabs(work_total - gpu_total) <= 1e-9 * gpu_total);
    assert_true(fabs(od_work - od_gpu) <= 1e-9 * od_gpu);

    /* And back: the GPUs self-hosted needs, on every step, the work keys gone. */
    assert_int_equal(gp_reshape_gpu_mode(doc, &err), GP_OK);
    assert_true(same(d, "{\"utilization\": 0.5, \"gpus\": 16, \"steps\": [{\"month\": 4, "
                        "\"utilization\": 0.8, \"gpus\": 16}, {\"month\": 7, \"gpus\": 24}]}"));
    assert_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "self_hosted"), "work_per_gpu_hour"));
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "cloud_options"))
        assert_null(cJSON_GetObjectItemCaseSensitive(o, "work_per_gpu_hour"));
    assert_true(fabs(total(&f->ses, doc, NULL) - gpu_total) <= 1e-9 * gpu_total);
    assert_int_equal(gp_reshape_gpu_mode(doc, &err), GP_E_INPUT);

    /* Refusals leave the document: no utilization, no GPU model for a profile. */
    cJSON *idle =
        parse("{\"name\": \"p\", \"horizon_months\": 12, \"demand\": {\"gpus\": 16, "
              "\"utilization\": 0, \"steps\": []}, \"self_hosted\": {\"server_price\": 1}}");
    cJSON *before = cJSON_Duplicate(idle, true);
    assert_int_equal(gp_reshape_work_mode(&f->ses, idle, "2027-01-01", NULL, &err), GP_E_INPUT);
    assert_string_equal(err.where, "$.demand.utilization");
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", "llm-training", &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "$.cloud_options");
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", "no-such", &err), GP_E_INPUT);
    assert_true(cJSON_Compare(idle, before, true));
    cJSON_Delete(before);
    cJSON_Delete(idle);
    cJSON_Delete(doc);
}

static void test_profile(void **state) {
    fixture *f = *state;
    gp_err err;
    cJSON *doc = parse("{\"name\": \"p\", \"horizon_months\": 12, \"demand\": {\"gpus\": 16, "
                       "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 200000}, "
                       "\"cloud_options\": [{\"name\": \"p5\", \"pricing\": \"on_demand\", "
                       "\"catalog\": \"aws/p5.48xlarge/us-east-1\"}]}");
    double gpu_total = total(&f->ses, doc, NULL);
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", "llm-training", &err), GP_OK);
    double rho = num(doc, "self_hosted", "work_per_gpu_hour");
    assert_true(rho > 1); /* the H100's M tokens a GPU-hour */
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(doc, "demand"), "work_unit")),
                        "M tokens");
    assert_true(fabs(num(doc, "demand", "work_per_month") - 16 * 730 * 0.5 * rho) <=
                1e-9 * 5840 * rho);
    assert_true(num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cloud_options"), 0),
                    "work_per_gpu_hour", NULL) == rho);
    assert_true(fabs(total(&f->ses, doc, NULL) - gpu_total) <= 1e-9 * gpu_total);

    /* Committed, the reference takes a term its catalog has: p5 in us-east-1 is 36 months. */
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_COMMITTED, "2027-01-01", &err), GP_OK);
    cJSON *p5 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cloud_options"), 0);
    assert_true(num(p5, "term_months", NULL) == 36);
    total(&f->ses, doc, NULL);
    cJSON_Delete(doc);
}

/* A measured figure wins over the spec estimate, as in the throughput table. */
static void test_measured(void **state) {
    fixture *f = *state;
    gp_err err;
    gp_throughput stored;
    assert_int_equal(gp_throughput_set(&f->ses, "H100", "llm-training", 41.5, "M tokens", "our lab",
                                       &stored, &err),
                     GP_OK);
    cJSON *doc = parse("{\"name\": \"p\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, "
                       "\"utilization\": 0.25}, \"self_hosted\": {\"server_price\": 200000}, "
                       "\"cloud_options\": [{\"name\": \"p5\", \"pricing\": \"spot\", "
                       "\"catalog\": \"aws/p5.48xlarge/us-east-1\"}]}");
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", "llm-training", &err), GP_OK);
    assert_true(num(doc, "self_hosted", "work_per_gpu_hour") == 41.5);
    assert_true(num(doc, "demand", "work_per_month") == 8 * 730 * 0.25 * 41.5);
    total(&f->ses, doc, NULL);
    cJSON_Delete(doc);
}

static void test_pricing_financing(void **state) {
    fixture *f = *state;
    gp_err err;
    cJSON *doc = parse(PLAN);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    /* od turned spot keeps its idle overhead; committed drops it, and is no longer the bridge
     * nor c's burst. */
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_SPOT, "2027-01-01", &err), GP_OK);
    assert_true(same(cJSON_GetArrayItem(opts, 0),
                     "{\"name\": \"od\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, "
                     "\"hourly\": 60, \"idle_overhead\": 0.1}"));
    total(&f->ses, doc, NULL);
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_COMMITTED, "2027-01-01", &err), GP_OK);
    assert_true(same(cJSON_GetArrayItem(opts, 0),
                     "{\"name\": \"od\", \"pricing\": \"committed\", \"gpus_per_instance\": 8, "
                     "\"hourly\": 60}"));
    assert_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "self_hosted"), "bridge"));
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, 1), "burst"));
    /* c turned on-demand drops its term keys, base and all. */
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 1, GP_ON_DEMAND, "2027-01-01", &err), GP_OK);
    assert_true(same(cJSON_GetArrayItem(opts, 1),
                     "{\"name\": \"c\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, "
                     "\"hourly\": 30}"));
    total(&f->ses, doc, NULL);
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 5, GP_SPOT, "2027-01-01", &err), GP_E_INPUT);

    /* A loan at the discount rate over the horizon; cash removes it. */
    cJSON_AddNumberToObject(doc, "discount_rate", 0.05);
    assert_int_equal(gp_reshape_financing(doc, true, &err), GP_OK);
    cJSON *sh = cJSON_GetObjectItemCaseSensitive(doc, "self_hosted");
    assert_true(same(cJSON_GetObjectItemCaseSensitive(sh, "financing"),
                     "{\"kind\": \"loan\", \"apr\": 0.05, \"term_months\": 12}"));
    total(&f->ses, doc, NULL);
    assert_int_equal(gp_reshape_financing(doc, false, &err), GP_OK);
    assert_null(cJSON_GetObjectItemCaseSensitive(sh, "financing"));
    cJSON_Delete(doc);
}

/* Revision 2.1: an option turned into an API priced per unit of work (work mode only) and back
 * into its on-demand equivalent, whose totals are the API's; an API blocks counting in GPUs. */
#define WORK_PLAN                                                                                  \
    "{\"name\": \"w\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 20000, "           \
    "\"utilization\": 0.6}, \"self_hosted\": {\"server_price\": 200000, \"work_per_gpu_hour\": "   \
    "20, \"lead_time_months\": 2, \"bridge\": \"od\"}, \"cloud_options\": [{\"name\": \"od\", "    \
    "\"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 40, \"idle_overhead\": "    \
    "0.1, \"work_per_gpu_hour\": 10}]}"

static void test_per_unit(void **state) {
    fixture *f = *state;
    gp_err err;
    cJSON *doc = parse(PLAN);
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_PER_UNIT, "2027-01-01", &err),
                     GP_E_INPUT); /* GPU mode */
    assert_string_equal(err.where, "$.demand.work_per_month");
    cJSON_Delete(doc);
    doc = parse(WORK_PLAN);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_PER_UNIT, "2027-01-01", &err), GP_OK);
    /* 40 an 8-GPU instance-hour at 10 units a GPU-hour: 0.5 a unit. Still the bridge. */
    assert_true(same(cJSON_GetArrayItem(opts, 0),
                     "{\"name\": \"od\", \"pricing\": \"per_unit\", \"price_per_unit\": 0.5}"));
    cJSON_AddNumberToObject(cJSON_GetArrayItem(opts, 0), "price_per_input_unit", 0.1);
    cJSON_AddNumberToObject(cJSON_GetArrayItem(opts, 0), "input_units_per_unit", 3);
    double api, self = total(&f->ses, doc, &api);
    /* Counting in GPUs is refused while an API is there. */
    assert_int_equal(gp_reshape_gpu_mode(doc, &err), GP_E_INPUT);
    assert_string_equal(err.where, "$.cloud_options[0].pricing");
    /* Back to on-demand: its equivalent, the same totals. */
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_ON_DEMAND, "2027-01-01", &err), GP_OK);
    assert_true(same(cJSON_GetArrayItem(opts, 0),
                     "{\"name\": \"od\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 1, "
                     "\"hourly\": 0.8, \"work_per_gpu_hour\": 1}"));
    double od, self2 = total(&f->ses, doc, &od);
    assert_true(fabs(od - api) <= 1e-9 * api && fabs(self2 - self) <= 1e-9 * self);
    /* A new option copies an on-demand price a GPU-hour, never an API's price a unit. */
    assert_int_equal(gp_reshape_pricing(&f->ses, doc, 0, GP_PER_UNIT, "2027-01-01", &err), GP_OK);
    gp_loaded sc = resolved(&f->ses, doc);
    assert_int_equal(gp_reshape_option_add(doc, sc.s, &err), GP_OK);
    gp_loaded_done(&sc);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, 1), "price_per_unit"));
    assert_true(num(cJSON_GetArrayItem(opts, 1), "hourly", NULL) == 0);
    total(&f->ses, doc, NULL);
    cJSON_Delete(doc);
}

static void test_periods_options(void **state) {
    fixture *f = *state;
    gp_err err;
    cJSON *doc = parse(PLAN);
    /* The default flat tariff written in, then split. */
    gp_loaded sc = resolved(&f->ses, doc);
    assert_int_equal(gp_reshape_period_add(doc, sc.s, &err), GP_OK);
    gp_loaded_done(&sc);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "self_hosted"),
                                         "tariff"),
        "periods");
    assert_true(same(p,
                     "[{\"name\": \"flat\", \"hours_per_day\": 12, \"price_per_kwh\": 0.12}, "
                     "{\"name\": \"period 2\", \"hours_per_day\": 12, \"price_per_kwh\": 0.12}]"));
    sc = resolved(&f->ses, doc);
    assert_int_equal(gp_reshape_period_add(doc, sc.s, &err), GP_OK);
    assert_true(same(cJSON_GetArrayItem(p, 2),
                     "{\"name\": \"period 3\", \"hours_per_day\": 6, \"price_per_kwh\": 0.12}"));
    total(&f->ses, doc, NULL);
    /* The first period's hours go to the next, any other's to the one before. */
    assert_int_equal(gp_reshape_period_remove(doc, sc.s, 0, &err), GP_OK);
    assert_true(same(p, "[{\"name\": \"period 2\", \"hours_per_day\": 18, \"price_per_kwh\": "
                        "0.12}, {\"name\": \"period 3\", \"hours_per_day\": 6, \"price_per_kwh\": "
                        "0.12}]"));
    assert_int_equal(gp_reshape_period_remove(doc, sc.s, 1, &err), GP_OK);
    assert_true(num(cJSON_GetArrayItem(p, 0), "hours_per_day", NULL) == 24);
    assert_int_equal(gp_reshape_period_remove(doc, sc.s, 0, &err), GP_E_INPUT);
    assert_string_equal(err.where, "$.self_hosted.tariff.periods");
    gp_loaded_done(&sc);
    total(&f->ses, doc, NULL);

    /* An option at the first on-demand option's price a GPU-hour, a server's GPUs. */
    sc = resolved(&f->ses, doc);
    assert_int_equal(gp_reshape_option_add(doc, sc.s, &err), GP_OK);
    gp_loaded_done(&sc);
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    assert_true(same(cJSON_GetArrayItem(opts, 2),
                     "{\"name\": \"on-demand 3\", \"pricing\": \"on_demand\", "
                     "\"gpus_per_instance\": 8, \"hourly\": 60}"));
    total(&f->ses, doc, NULL);
    /* In work mode it works at self-hosted's throughput. */
    assert_int_equal(gp_reshape_work_mode(&f->ses, doc, "2027-01-01", NULL, &err), GP_OK);
    sc = resolved(&f->ses, doc);
    assert_int_equal(gp_reshape_option_add(doc, sc.s, &err), GP_OK);
    gp_loaded_done(&sc);
    assert_true(num(cJSON_GetArrayItem(opts, 3), "work_per_gpu_hour", NULL) == 1);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, 3), "name")),
        "on-demand 4");
    total(&f->ses, doc, NULL);
    cJSON_Delete(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_measured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pricing_financing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_periods_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_per_unit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
