/* Scenario JSON: every rule of docs/model.md's table, and the error's location. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/scenario_json.h"
#include "gpuplan/xmem.h"
#include "testutil.h"

static gp_scenario *sc;

static int setup(void **state) {
    (void)state;
    sc = malloc(sizeof *sc);
    return sc ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(sc);
    return 0;
}

static gp_status parse(const char *json, gp_err *err) {
    gp_err_clear(err);
    return gp_scenario_parse(json, strlen(json), "t.json", sc, NULL, err);
}

#define MIN_HEAD "{\"name\": \"x\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, "
#define MIN MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000}}"

static void test_defaults(void **state) {
    (void)state;
    gp_err err;
    assert_int_equal(parse(MIN, &err), GP_OK);
    assert_string_equal(sc->currency, "USD");
    assert_int_equal(sc->gpus_per_server, 8);
    assert_close(sc->price_factor, 1.0, REL);
    assert_close(sc->pue, 1.0, REL);
    assert_int_equal(sc->n_periods, 1);
    assert_string_equal(sc->periods[0].name, "flat");
    assert_close(sc->periods[0].price_per_kwh, 0.12, REL);
    assert_close(sc->periods[0].hours_per_day, 24, REL);
    assert_int_equal(sc->financing, GP_CASH);
    assert_close(sc->depreciation_years, 5, REL);
    assert_false(sc->has_gpu_avg_w);
    assert_int_equal(sc->n_options, 0);
}

static void test_full_document(void **state) {
    (void)state;
    const char *json =
        "{\"name\": \"full\", \"currency\": \"EUR\", \"horizon_months\": 24, "
        "\"discount_rate\": 0.05, \"notes\": \"n\", \"measured\": {\"anything\": [1, {}]},"
        "\"demand\": {\"gpus\": 64, \"utilization\": 0.7},"
        "\"self_hosted\": {\"gpus_per_server\": 4, \"server_price\": 9e4, \"price_factor\": 0.5,"
        " \"bulk_discounts\": [{\"min_servers\": 4, \"pct\": 0.1}], \"residual_pct\": 0.2,"
        " \"power\": {\"gpu_idle_w\": 50, \"gpu_tdp_w\": 300, \"gpu_avg_w\": null, \"pue\": 1.3},"
        " \"tariff\": {\"periods\": [{\"name\": \"a\", \"hours_per_day\": 10, \"price_per_kwh\": "
        "0.2}, {\"name\": \"b\", \"hours_per_day\": 14, \"price_per_kwh\": 0.1}],"
        " \"shift_to_cheapest\": true, \"demand_charge_per_kw_month\": 12},"
        " \"financing\": {\"kind\": \"loan\", \"apr\": 0.07, \"term_months\": 36}},"
        "\"cloud_options\": [{\"name\": \"s\", \"pricing\": \"spot\", \"gpus_per_instance\": 8,"
        " \"hourly\": 9.8, \"interruptions_per_hour\": 0.1, \"restart_h\": 0.2},"
        " {\"name\": \"c\", \"pricing\": \"committed\", \"catalog\": "
        "\"aws/p4d.24xlarge/us-east-1\","
        " \"term_months\": 36, \"purchase\": \"all_upfront\"}]}";
    gp_err err;
    assert_int_equal(parse(json, &err), GP_OK);
    assert_string_equal(sc->currency, "EUR");
    assert_int_equal(sc->gpus_per_server, 4);
    assert_close(sc->server_price, 90000, REL);
    assert_int_equal(sc->n_tiers, 1);
    assert_int_equal(sc->n_periods, 2);
    assert_true(sc->shift_to_cheapest);
    assert_int_equal(sc->financing, GP_LOAN);
    assert_close(sc->loan_fraction, 1.0, REL);
    assert_int_equal(sc->n_options, 2);
    assert_int_equal(sc->options[0].pricing, GP_SPOT);
    assert_close(sc->options[0].checkpoint_interval_h, 1.0, REL);
    assert_true(sc->options[1].has_catalog);
    assert_string_equal(sc->options[1].catalog, "aws/p4d.24xlarge/us-east-1");
    assert_int_equal(sc->options[1].purchase, GP_ALL_UPFRONT);
}

typedef struct bad {
    const char *json;
    const char *where; /* expected err.where */
    const char *msg;   /* a substring of err.msg */
} bad;

#define SH(x) MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000" x "}}"
#define OPT(x)                                                                                     \
    MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000}, "                  \
             "\"cloud_options\": [" x "]}"

static const bad bads[] = {
    {"{\"name\": \"x\",\n  \"horizon_months\": 12,,}", "t.json:2:", "malformed JSON"},
    {"", "t.json:1:1", "malformed JSON"},
    {MIN " x", "t.json:1:", "unexpected text"},
    {"[1, 2]", "t.json:$", "must be an object"},
    {"{\"name\": \"x\"}", "t.json:$.horizon_months", "required key is missing"},
    {MIN_HEAD "\"utilization\": 0.5}}", "t.json:$.self_hosted", "required"},
    {"{\"nmae\": \"x\"}", "t.json:$.nmae", "unknown key"},
    {"{\"name\": \"x\", \"name\": \"y\"}", "t.json:$.name", "repeated key"},
    {"{\"name\": \"\", \"horizon_months\": 1}", "t.json:$.name", "1 to 200 characters"},
    {"{\"name\": \"a\\u0000b\"}", "t.json:1:12", "NUL"},
    {"{\"name\": \"\xff\"}", "t.json:$.name", "UTF-8"},
    {"{\"name\": \"x\", \"horizon_months\": 12.5}", "t.json:$.horizon_months", "integer"},
    {"{\"name\": \"x\", \"horizon_months\": 241}", "t.json:$.horizon_months", "[1, 240]"},
    {"{\"name\": \"x\", \"horizon_months\": \"12\"}", "t.json:$.horizon_months", "integer"},
    {"{\"name\": \"x\", \"horizon_months\": 1e999}", "t.json:$.horizon_months", "integer"},
    {"{\"name\": \"x\", \"horizon_months\": 1, \"currency\": \"usd\"}", "t.json:$.currency",
     "upper-case"},
    {MIN_HEAD "\"utilization\": 1.5}}", "t.json:$.demand.utilization", "[0, 1]"},
    {MIN_HEAD "\"utilization\": 0.5, \"util\": 1}}", "t.json:$.demand.util", "unknown key"},
    {SH(", \"power\": {\"pue\": 0.9}"), "t.json:$.self_hosted.power.pue", "[1, 5]"},
    {SH(", \"power\": {\"gpu_idle_w\": 100, \"gpu_tdp_w\": 50}"),
     "t.json:$.self_hosted.power.gpu_tdp_w", ">= gpu_idle_w"},
    {SH(", \"price_factor\": 0"), "t.json:$.self_hosted.price_factor", "> 0"},
    {SH(", \"network_per_server\": -1"), "t.json:$.self_hosted.network_per_server", "[0, 1e+12]"},
    /* Issue 19 item 11: money is at most 1e12 (docs/model.md), so no total overflows to inf. */
    {MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1.7e308}}",
     "t.json:$.self_hosted.server_price", "[0, 1e+12]"},
    {SH(", \"fixed_capex\": 1.000001e12"), "t.json:$.self_hosted.fixed_capex", "[0, 1e+12]"},
    {SH(", \"tariff\": {\"periods\": [{\"name\": \"a\", \"hours_per_day\": 24, "
        "\"price_per_kwh\": 1e300}]}"),
     "t.json:$.self_hosted.tariff.periods[0].price_per_kwh", "[0, 1e+12]"},
    {OPT("{\"name\": \"a\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, "
         "\"hourly\": 1e13}"),
     "t.json:$.cloud_options[0].hourly", "[0, 1e+12]"},
    {SH(", \"tariff\": {\"periods\": [{\"name\": \"a\", \"hours_per_day\": 20, "
        "\"price_per_kwh\": 0.1}]}"),
     "t.json:$.self_hosted.tariff.periods", "sum to 24"},
    {SH(", \"tariff\": {\"periods\": []}"), "t.json:$.self_hosted.tariff.periods", "1 to 24"},
    {SH(", \"tariff\": {\"periods\": [{\"name\": \"a\", \"hours_per_day\": 0, "
        "\"price_per_kwh\": 0.1}]}"),
     "t.json:$.self_hosted.tariff.periods[0].hours_per_day", "(0, 24]"},
    {SH(", \"bulk_discounts\": [{\"min_servers\": 2, \"pct\": 0.1}, {\"min_servers\": 2, "
        "\"pct\": 0.2}]"),
     "t.json:$.self_hosted.bulk_discounts[1].min_servers", "repeats"},
    {SH(", \"bulk_discounts\": [{\"min_servers\": 2, \"pct\": 1}]"),
     "t.json:$.self_hosted.bulk_discounts[0].pct", "[0, 1)"},
    {SH(", \"financing\": {\"kind\": \"lease\"}"), "t.json:$.self_hosted.financing.kind", "cash"},
    {SH(", \"financing\": {\"kind\": \"loan\", \"apr\": 0.1}"),
     "t.json:$.self_hosted.financing.term_months", "required"},
    {SH(", \"financing\": {\"kind\": \"cash\", \"apr\": 0.1}"),
     "t.json:$.self_hosted.financing.apr", "unknown key"},
    {OPT("{\"name\": \"a\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8}"),
     "t.json:$.cloud_options[0].hourly", "required"},
    {OPT("{\"name\": \"a\", \"pricing\": \"reserved\"}"), "t.json:$.cloud_options[0].pricing",
     "on_demand"},
    {OPT("{\"name\": \"a\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 1,"
         " \"upfront\": 5}"),
     "t.json:$.cloud_options[0].upfront", "committed"},
    {OPT("{\"name\": \"a\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 1,"
         " \"restart_h\": 5}"),
     "t.json:$.cloud_options[0].restart_h", "spot"},
    {OPT("{\"name\": \"a\", \"pricing\": \"committed\", \"gpus_per_instance\": 8, \"hourly\": 1,"
         " \"idle_overhead\": 0.1}"),
     "t.json:$.cloud_options[0].idle_overhead", "on_demand and spot"},
    {OPT("{\"name\": \"a\", \"pricing\": \"committed\", \"gpus_per_instance\": 8, \"hourly\": 1,"
         " \"purchase\": \"all_upfront\"}"),
     "t.json:$.cloud_options[0].purchase", "catalog"},
    {OPT("{\"name\": \"a\", \"pricing\": \"spot\", \"catalog\": \"aws/x/y\", \"hourly\": 1}"),
     "t.json:$.cloud_options[0].hourly", "catalog"},
    {OPT("{\"name\": \"a\", \"pricing\": \"spot\", \"catalog\": \"aws/x\"}"),
     "t.json:$.cloud_options[0].catalog", "provider/instance/region"},
    {OPT("{\"name\": \"a\", \"pricing\": \"committed\", \"catalog\": \"aws/x/y\", "
         "\"term_months\": 24}"),
     "t.json:$.cloud_options[0].term_months", "12 or 36"},
    {OPT("{\"name\": \"self_hosted\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, "
         "\"hourly\": 1}"),
     "t.json:$.cloud_options[0].name", "reserved"},
    {OPT("{\"name\": \"a\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, \"hourly\": 1},"
         "{\"name\": \"a\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, \"hourly\": 2}"),
     "t.json:$.cloud_options[1].name", "repeats"},
    {OPT("{\"name\": \"a\", \"pricing\": \"spot\", \"gpus_per_instance\": 577, \"hourly\": 1}"),
     "t.json:$.cloud_options[0].gpus_per_instance", "[1, 576]"},
    {OPT("{\"name\": \"a\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, \"hourly\": 1,"
         " \"checkpoint_interval_h\": 0}"),
     "t.json:$.cloud_options[0].checkpoint_interval_h", "(0, 1000]"},
};

static void test_bad_inputs(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        gp_err err;
        gp_status st = parse(bads[i].json, &err);
        if (st != GP_E_INPUT || strncmp(err.where, bads[i].where, strlen(bads[i].where)) != 0 ||
            !strstr(err.msg, bads[i].msg)) {
            print_error("case %zu: %s\n  got status %d, %s: %s\n  expected %s: ...%s...\n", i,
                        bads[i].json, st, err.where, err.msg, bads[i].where, bads[i].msg);
            fail();
        }
    }
}

/* Version 2 keys: a demand object, self_hosted additions, options, in GPU and work mode. */
#define DEM(x)                                                                                     \
    "{\"name\": \"x\", \"horizon_months\": 12, \"demand\": {" x "}, "                              \
    "\"self_hosted\": {\"server_price\": 1000}}"
#define WORK(d, sh, opts)                                                                          \
    "{\"name\": \"x\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 1000, "            \
    "\"utilization\": 0.5" d "}, \"self_hosted\": {\"server_price\": 1000, "                       \
    "\"work_per_gpu_hour\": 2" sh "}, \"cloud_options\": [" opts "]}"
#define OD "{\"name\": \"od\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 1"
#define PU "{\"name\": \"api\", \"pricing\": \"per_unit\", \"price_per_unit\": 0.6"
#define CM "{\"name\": \"cm\", \"pricing\": \"committed\", \"gpus_per_instance\": 8, \"hourly\": 1"

static const bad bads_v2[] = {
    {"{\"name\": \"x\", \"horizon_months\": 12, \"start_date\": \"2027-02-29\"}",
     "t.json:$.start_date", "YYYY-MM-DD"},
    {"{\"name\": \"x\", \"horizon_months\": 12, \"start_date\": \"0000-01-01\"}",
     "t.json:$.start_date", "0001..9999"},
    {"{\"name\": \"x\", \"horizon_months\": 12, \"start_date\": \"2027-1-01\"}",
     "t.json:$.start_date", "YYYY-MM-DD"},
    {DEM("\"gpus\": 8, \"work_per_month\": 5, \"utilization\": 0.5"),
     "t.json:$.demand.work_per_month", "not both"},
    {DEM("\"utilization\": 0.5"), "t.json:$.demand.gpus", "required"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"work_unit\": \"tok\""), "t.json:$.demand.work_unit",
     "work mode"},
    {DEM("\"work_per_month\": 5, \"utilization\": 0"), "t.json:$.demand.utilization", "(0, 1]"},
    {DEM("\"work_per_month\": 0, \"utilization\": 0.5"), "t.json:$.demand.work_per_month", "> 0"},
    {DEM("\"work_per_month\": 5, \"utilization\": 0.5, \"work_unit\": "
         "\"12345678901234567890123456789012345678901\""),
     "t.json:$.demand.work_unit", "1 to 40"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"growth_per_month\": 1.5"),
     "t.json:$.demand.growth_per_month", "[-0.5, 1]"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"growth_per_month\": 0.1, \"steps\": [{\"month\": "
         "2, \"gpus\": 9}]"),
     "t.json:$.demand.steps", "exclude"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 1, \"gpus\": 9}]"),
     "t.json:$.demand.steps[0].month", "[2,"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 3, \"gpus\": 9}, "
         "{\"month\": 3, \"gpus\": 10}]"),
     "t.json:$.demand.steps[1].month", "increase"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 3}]"),
     "t.json:$.demand.steps[0]", "a step gives"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 3, \"work_per_month\": 1}]"),
     "t.json:$.demand.steps[0].work_per_month", "belongs to work mode"},
    {DEM("\"work_per_month\": 5, \"utilization\": 0.5, \"steps\": [{\"month\": 3, \"gpus\": 1}]"),
     "t.json:$.demand.steps[0].gpus", "belongs to GPU mode"},
    {DEM("\"work_per_month\": 5, \"utilization\": 0.5, \"steps\": [{\"month\": 3, "
         "\"utilization\": 0}]"),
     "t.json:$.demand.steps[0].utilization", "(0, 1]"},
    /* A step past the horizon is validated like any other, then ignored. */
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 99, \"gpus\": -1}]"),
     "t.json:$.demand.steps[0].gpus", "[0, 1000000]"},
    {DEM("\"gpus\": 8, \"utilization\": 0.5, \"steps\": [{\"month\": 3, \"gpus\": 9, "
         "\"extra\": 1}]"),
     "t.json:$.demand.steps[0].extra", "unknown key"},
    {SH(", \"lead_time_months\": 12"), "t.json:$.self_hosted.lead_time_months", "below"},
    {SH(", \"lead_time_months\": 25"), "t.json:$.self_hosted.lead_time_months", "[0, 24]"},
    {SH(", \"order_every_months\": 13"), "t.json:$.self_hosted.order_every_months", "[1, 12]"},
    {SH(", \"max_servers\": 0"), "t.json:$.self_hosted.max_servers", "[1, 1000000]"},
    {SH(", \"buy\": \"sometimes\""), "t.json:$.self_hosted.buy", "as_needed"},
    {SH(", \"refresh_months\": 6"), "t.json:$.self_hosted.refresh_months", "12..240"},
    {SH(", \"server_price_trend_per_year\": 1.5"),
     "t.json:$.self_hosted.server_price_trend_per_year", "[-0.9, 1]"},
    {SH(", \"tariff\": {\"price_trend_per_year\": -0.95}"),
     "t.json:$.self_hosted.tariff.price_trend_per_year", "[-0.9, 1]"},
    {SH(", \"residual_pct\": 0.2, \"resale\": [{\"age_months\": 12, \"pct\": 0.5}]"),
     "t.json:$.self_hosted.resale", "not both"},
    {SH(", \"resale\": []"), "t.json:$.self_hosted.resale", "1 to 240"},
    {SH(", \"resale\": [{\"age_months\": 12, \"pct\": 0.5}, {\"age_months\": 12, \"pct\": 0.4}]"),
     "t.json:$.self_hosted.resale[1].age_months", "increase"},
    {SH(", \"resale\": [{\"age_months\": 12, \"pct\": 0.5}, {\"age_months\": 24, \"pct\": 0.6}]"),
     "t.json:$.self_hosted.resale[1].pct", "rise"},
    {SH(", \"resale\": [{\"age_months\": 241, \"pct\": 0.5}]"),
     "t.json:$.self_hosted.resale[0].age_months", "[1, 240]"},
    {SH(", \"work_per_gpu_hour\": 3"), "t.json:$.self_hosted.work_per_gpu_hour", "work mode"},
    {SH(", \"bridge\": \"nobody\""), "t.json:$.self_hosted.bridge", "names no option"},
    {MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000, \"bridge\": "
              "\"cm\"}, \"cloud_options\": [" CM "}]}",
     "t.json:$.self_hosted.bridge", "committed"},
    {MIN_HEAD "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 2e12}}",
     "t.json:$.self_hosted.server_price", "[0, 1e+12]"},
    {SH(", \"tariff\": {\"periods\": [{\"name\": \"a\", \"hours_per_day\": 24, "
        "\"price_per_kwh\": 1e13}]}"),
     "t.json:$.self_hosted.tariff.periods[0].price_per_kwh", "[0, 1e+12]"},
    {SH(", \"gpus_per_server\": 577"), "t.json:$.self_hosted.gpus_per_server", "[1, 576]"},
    {OPT(OD ", \"hourly\": 1e13}"), "t.json:$.cloud_options[0].hourly", "repeated key"},
    {OPT("{\"name\": \"od\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, "
         "\"hourly\": 1e13}"),
     "t.json:$.cloud_options[0].hourly", "[0, 1e+12]"},
    {OPT(OD ", \"base_gpus\": 8}"), "t.json:$.cloud_options[0].base_gpus", "committed"},
    {OPT(CM ", \"burst\": \"od\"}," OD "}"), "t.json:$.cloud_options[0].burst", "base_gpus"},
    {OPT(CM ", \"base_gpus\": 8, \"burst\": \"cm\"}"), "t.json:$.cloud_options[0].burst",
     "committed"},
    {OPT(CM ", \"base_gpus\": 8, \"burst\": \"nope\"}"), "t.json:$.cloud_options[0].burst",
     "names no option"},
    {OPT(CM ", \"base_gpus\": 0}"), "t.json:$.cloud_options[0].base_gpus", "[1, 1000000]"},
    {OPT(OD ", \"price_trend_per_year\": 2}"), "t.json:$.cloud_options[0].price_trend_per_year",
     "[-0.9, 1]"},
    {OPT(OD ", \"work_per_gpu_hour\": 2}"), "t.json:$.cloud_options[0].work_per_gpu_hour",
     "work-mode"},
    {WORK("", "", OD "}"), "t.json:$.cloud_options[0].work_per_gpu_hour", "required"},
    {WORK("", ", \"work_per_gpu_hour\": 0", ""), "t.json:$.self_hosted.work_per_gpu_hour",
     "repeated key"},
    {"{\"name\": \"x\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 1000, "
     "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000}}",
     "t.json:$.self_hosted.work_per_gpu_hour", "required"},
    {"{\"name\": \"x\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 1000, "
     "\"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000, \"work_per_gpu_hour\": "
     "0}}",
     "t.json:$.self_hosted.work_per_gpu_hour", "> 0"},
    /* Revision 2.1: an API priced per unit of work. */
    {OPT(PU "}"), "t.json:$.cloud_options[0].pricing", "per_unit needs demand in work"},
    {WORK("", "", PU ", \"gpus_per_instance\": 1}"), "t.json:$.cloud_options[0].gpus_per_instance",
     "on_demand, spot and committed"},
    {WORK("", "", PU ", \"hourly\": 1}"), "t.json:$.cloud_options[0].hourly",
     "on_demand, spot and committed"},
    {WORK("", "", PU ", \"catalog\": \"aws/x/y\"}"), "t.json:$.cloud_options[0].catalog",
     "on_demand, spot and committed"},
    {WORK("", "", "{\"name\": \"api\", \"pricing\": \"per_unit\"}"),
     "t.json:$.cloud_options[0].price_per_unit", "required"},
    {WORK("", "", PU ", \"work_per_gpu_hour\": 3}"), "t.json:$.cloud_options[0].work_per_gpu_hour",
     "unit of work"},
    {WORK("", "", PU ", \"upfront\": 3}"), "t.json:$.cloud_options[0].upfront", "committed"},
    {WORK("", "", PU ", \"term_months\": 12}"), "t.json:$.cloud_options[0].term_months",
     "committed"},
    {WORK("", "", PU ", \"idle_overhead\": 0.1}"), "t.json:$.cloud_options[0].idle_overhead",
     "on_demand and spot"},
    {WORK("", "", PU ", \"restart_h\": 1}"), "t.json:$.cloud_options[0].restart_h", "spot"},
    {WORK("", "", PU ", \"base_gpus\": 8}"), "t.json:$.cloud_options[0].base_gpus", "committed"},
    {WORK("", "", PU ", \"price_per_unit\": 1}"), "t.json:$.cloud_options[0].price_per_unit",
     "repeated key"},
    {WORK("", "", "{\"name\": \"api\", \"pricing\": \"per_unit\", \"price_per_unit\": -1}"),
     "t.json:$.cloud_options[0].price_per_unit", "[0, 1e+12]"},
    {WORK("", "", PU ", \"input_units_per_unit\": 2e6}"),
     "t.json:$.cloud_options[0].input_units_per_unit", "[0, 1e+06]"},
    {WORK("", "", PU ", \"price_per_input_unit\": \"x\"}"),
     "t.json:$.cloud_options[0].price_per_input_unit", "number"},
    {WORK("", "", OD ", \"work_per_gpu_hour\": 2, \"price_per_unit\": 1}"),
     "t.json:$.cloud_options[0].price_per_unit", "per_unit options only"},
    {WORK("", "", OD ", \"work_per_gpu_hour\": 2, \"input_units_per_unit\": 1}"),
     "t.json:$.cloud_options[0].input_units_per_unit", "per_unit options only"},
    {WORK("", ", \"bridge\": \"cm\"", CM ", \"work_per_gpu_hour\": 2}"),
     "t.json:$.self_hosted.bridge", "on_demand, spot or per_unit"},
};

static void test_bad_inputs_v2(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof bads_v2 / sizeof bads_v2[0]; i++) {
        gp_err err;
        gp_status st = parse(bads_v2[i].json, &err);
        if (st != GP_E_INPUT || strcmp(err.where, bads_v2[i].where) != 0 ||
            !strstr(err.msg, bads_v2[i].msg)) {
            print_error("case %zu: %s\n  got status %d, %s: %s\n  expected %s: ...%s...\n", i,
                        bads_v2[i].json, st, err.where, err.msg, bads_v2[i].where, bads_v2[i].msg);
            fail();
        }
    }
}

/* Revision 2.1: a per_unit option as the bridge and as a committed base's burst, carried to the
 * engine as its on-demand equivalent. */
static void test_per_unit_document(void **state) {
    (void)state;
    gp_err err;
    const char *json = WORK("", ", \"bridge\": \"api\", \"lead_time_months\": 2",
                            PU ", \"price_per_input_unit\": 0.2, \"input_units_per_unit\": 2, "
                               "\"price_trend_per_year\": -0.3}," CM
                               ", \"work_per_gpu_hour\": 2, \"base_gpus\": 8, \"burst\": \"api\"}");
    assert_int_equal(parse(json, &err), GP_OK);
    const gp_option *o = &sc->options[0];
    assert_int_equal(o->pricing, GP_PER_UNIT);
    assert_string_equal(gp_pricing_name(o->pricing), "per_unit");
    assert_true(o->price_per_unit == 0.6 && o->price_per_input_unit == 0.2 &&
                o->input_units_per_unit == 2);
    assert_int_equal(o->gpus_per_instance, 1);
    assert_true(o->work_per_gpu_hour == 1.0 && o->idle_overhead == 0.0);
    assert_true(o->hourly == 0.6 + 2 * 0.2);
    assert_true(gp_option_input_part(o) == 2 * 0.2);
    assert_int_equal(sc->bridge, 0);
    assert_int_equal(sc->options[1].burst, 0);
    /* Without input units the price is price_per_unit alone. */
    assert_int_equal(parse(WORK("", "", PU "}"), &err), GP_OK);
    assert_true(sc->options[0].hourly == 0.6 && gp_option_input_part(&sc->options[0]) == 0.0);
}

static void test_v2_document(void **state) {
    (void)state;
    gp_err err;
    const char *json =
        "{\"name\": \"v2\", \"horizon_months\": 24, \"start_date\": \"2028-02-29\","
        "\"demand\": {\"work_per_month\": 1000, \"work_unit\": \"M tokens\", \"utilization\": 0.5,"
        " \"steps\": [{\"month\": 3, \"work_per_month\": 2000}, {\"month\": 7, \"utilization\": "
        "0.6}, {\"month\": 30, \"work_per_month\": 1}]},"
        "\"self_hosted\": {\"server_price\": 1000, \"work_per_gpu_hour\": 9, \"buy\": "
        "\"as_needed\", \"lead_time_months\": 2, \"order_every_months\": 3, \"max_servers\": 40,"
        " \"bridge\": \"od\", \"refresh_months\": 12, \"server_price_trend_per_year\": -0.1,"
        " \"resale\": [{\"age_months\": 12, \"pct\": 0.7}, {\"age_months\": 36, \"pct\": 0.3}],"
        " \"tariff\": {\"price_trend_per_year\": 0.05}},"
        "\"cloud_options\": [" OD ", \"work_per_gpu_hour\": 4, \"price_trend_per_year\": -0.2}," CM
        ", \"work_per_gpu_hour\": 9, \"base_gpus\": 64, \"burst\": \"od\"}]}";
    assert_int_equal(parse(json, &err), GP_OK);
    assert_true(sc->has_start_date);
    assert_string_equal(sc->start_date, "2028-02-29");
    assert_true(sc->work_mode);
    assert_string_equal(sc->work_unit, "M tokens");
    assert_int_equal(sc->n_steps, 2); /* the step at month 30 > 24 is dropped */
    assert_true(sc->steps[0].has_work && !sc->steps[0].has_utilization);
    assert_true(sc->steps[1].has_utilization && !sc->steps[1].has_work);
    assert_int_equal(sc->buy, GP_BUY_AS_NEEDED);
    assert_int_equal(sc->lead_time_months, 2);
    assert_int_equal(sc->order_every_months, 3);
    assert_true(sc->has_max_servers);
    assert_int_equal(sc->max_servers, 40);
    assert_int_equal(sc->bridge, 0);
    assert_int_equal(sc->refresh_months, 12);
    assert_int_equal(sc->n_resale, 2);
    assert_close(sc->energy_price_trend_per_year, 0.05, REL);
    assert_close(sc->options[0].price_trend_per_year, -0.2, REL);
    assert_close(sc->options[1].work_per_gpu_hour, 9, REL);
    assert_true(sc->options[1].has_base_gpus);
    assert_int_equal(sc->options[1].burst, 0);
    assert_int_equal(sc->options[0].burst, -1);
    assert_true(gp_scenario_uses_v2(sc));
    /* A version 1 document uses no version 2 key. */
    assert_int_equal(parse(MIN, &err), GP_OK);
    assert_false(gp_scenario_uses_v2(sc));
    assert_int_equal(sc->bridge, -1);
    /* Money may reach its bound. */
    assert_int_equal(parse(SH(", \"fixed_capex\": 1e12"), &err), GP_OK);
}

static void test_deep_nesting_and_size(void **state) {
    (void)state;
    /* 100,000 nested arrays: cJSON's depth limit answers, we must not crash. */
    size_t n = 100000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    gp_err err;
    assert_int_equal(parse(deep, &err), GP_E_INPUT);
    free(deep);
    /* Too large a document is refused before parsing. */
    size_t big = GP_SCENARIO_MAX_BYTES + 1;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    gp_err_clear(&err);
    assert_int_equal(gp_scenario_parse(huge, big, "big.json", sc, NULL, &err), GP_E_LIMIT);
    free(huge);
    /* Many keys in one object stay linear: the first unknown key stops it. */
    gp_buf b;
    gp_buf_init(&b, 8u << 20);
    gp_buf_add(&b, "{\"name\": \"x\"", 12);
    for (int i = 0; i < 100000; i++)
        gp_buf_printf(&b, ", \"k%d\": 1", i);
    gp_buf_add(&b, "}", 1);
    assert_int_equal(parse(b.data, &err), GP_E_INPUT);
    assert_string_equal(err.where, "t.json:$.k0");
    gp_buf_done(&b);
}

static void test_tree_kept(void **state) {
    (void)state;
    gp_err err;
    cJSON *tree = NULL;
    assert_int_equal(gp_scenario_parse(MIN, strlen(MIN), "t.json", sc, &tree, &err), GP_OK);
    assert_non_null(tree);
    assert_string_equal(tree->child->string, "name"); /* key order kept */
    cJSON_Delete(tree);
    assert_int_equal(gp_scenario_parse("[", 1, "t.json", sc, &tree, &err), GP_E_INPUT);
    assert_null(tree);
}

static void test_utf8(void **state) {
    (void)state;
    size_t n;
    assert_true(gp_utf8_valid("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 15, &n));
    assert_int_equal(n, 9);
    assert_false(gp_utf8_valid("\xc0\xaf", 2, &n));         /* overlong */
    assert_false(gp_utf8_valid("\xed\xa0\x80", 3, &n));     /* surrogate */
    assert_false(gp_utf8_valid("\xf4\x90\x80\x80", 4, &n)); /* > U+10FFFF */
    assert_false(gp_utf8_valid("\xe2\x82", 2, &n));         /* truncated */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_full_document),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_bad_inputs_v2),
        cmocka_unit_test(test_v2_document),
        cmocka_unit_test(test_per_unit_document),
        cmocka_unit_test(test_deep_nesting_and_size),
        cmocka_unit_test(test_tree_kept),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
