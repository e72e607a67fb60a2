/* Report writers: JSON shape, CSV safety and series, Markdown content. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_plan_edit.h"
#include "gpuplan/inputs.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/report_capacity.h"
#include "gpuplan/report_fleet.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_sensitivity.h"
#include "gpuplan/sensitivity.h"
#include "gpuplan/scenario_json.h"
#include "testutil.h"

static gp_scenario *sc;
static gp_result *res;

static int setup(void **state) {
    (void)state;
    sc = malloc(sizeof *sc);
    res = malloc(sizeof *res);
    return sc && res ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    free(sc);
    free(res);
    return 0;
}

static const char hostile[] =
    "{\"name\": \"=HYPERLINK(\\\"http://x\\\")\", \"horizon_months\": 3,"
    " \"demand\": {\"gpus\": 8, \"utilization\": 0.5}, \"self_hosted\": {\"server_price\": 1000},"
    " \"cloud_options\": [{\"name\": \"+cmd|' /C calc'!A0\", \"pricing\": \"on_demand\","
    " \"gpus_per_instance\": 8, \"hourly\": 2}, {\"name\": \"a,b\\u0007\", \"pricing\": \"spot\","
    " \"gpus_per_instance\": 8, \"hourly\": 1}]}";

static void load(const char *json, cJSON **tree) {
    gp_err err;
    assert_int_equal(gp_scenario_parse(json, strlen(json), "t.json", sc, tree, &err), GP_OK);
    gp_model_evaluate(sc, res);
}

static void test_csv_neutralised(void **state) {
    (void)state;
    load(hostile, NULL);
    gp_buf out;
    gp_buf_init(&out, 1 << 20);
    gp_err err;
    assert_int_equal(gp_report_csv(sc, res, NULL, &out, &err), GP_OK);
    const char *nl = strchr(out.data, '\n');
    char header[512];
    snprintf(header, sizeof header, "%.*s", (int)(nl - out.data), out.data);
    assert_string_equal(header, "index,month,gpus,work,utilization,servers_in_service,"
                                "gpus_at_work,servers_bought,servers_sold,bridge_hours,"
                                "self_hosted,self_hosted_cumulative,"
                                "\"'+cmd|' /C calc'!A0\",\"'+cmd|' /C calc'!A0 cumulative\","
                                "\"'+cmd|' /C calc'!A0 burst_hours\","
                                "\"a,b\",\"a,b cumulative\",\"a,b burst_hours\",break_even,"
                                "exit_value,exit_value_basis");
    /* 4 data rows (m = 0..3); self-hosted's cumulative is the 12th field. */
    int rows = 0;
    for (const char *p = out.data; *p; p++)
        rows += *p == '\n';
    assert_int_equal(rows, 5);
    double m3_self =
        res->self.monthly[0] + res->self.monthly[1] + res->self.monthly[2] + res->self.monthly[3];
    const char *last = out.data + out.len - 2;
    while (last > out.data && *last != '\n')
        last--;
    const char *field = last + 1;
    for (int k = 0; k < 11; k++)
        field = strchr(field, ',') + 1;
    double v = strtod(field, NULL);
    assert_close(v, m3_self, 1e-15);
    gp_buf_done(&out);
}

/* Issue 19 item 6: control characters are stripped before the formula test, and leading
 * spaces do not hide a formula. */
static void test_csv_field_strip_then_test(void **state) {
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"\x01=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
        {"\n=1+1", "\"'=1+1\""},
        {"\r\n+1", "\"'+1\""},
        {"\t@SUM(A1)", "\"'@SUM(A1)\""},
        {" =1+1", "\"' =1+1\""},
        {" \t -2", "\"'  -2\""},
        {"\xc2\x85=1", "\"'=1\""}, /* C1 NEL */
        {"plain", "plain"},
        {"a=b", "a=b"},
        {"\x7f", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_buf out;
        gp_buf_init(&out, 1 << 16);
        assert_int_equal(gp_csv_field(&out, cases[i].in), GP_OK);
        assert_int_equal(gp_buf_add(&out, "", 1), GP_OK);
        if (strcmp(out.data, cases[i].want) != 0)
            fail_msg("case %zu: got [%s], want [%s]", i, out.data, cases[i].want);
        gp_buf_done(&out);
    }
}

static void test_json_shape(void **state) {
    (void)state;
    cJSON *tree;
    load(hostile, &tree);
    gp_report_meta meta = {"2026-11-22", NULL, 0, tree, "test"};
    cJSON *doc = gp_report_json_tree(sc, res, &meta);
    assert_int_equal(cJSON_GetObjectItem(doc, "model_version")->valueint, 2);
    assert_string_equal(cJSON_GetObjectItem(doc, "as_of")->valuestring, "2026-11-22");
    assert_string_equal(cJSON_GetObjectItem(doc, "scenario")->valuestring, sc->name);
    cJSON *opts = cJSON_GetObjectItem(doc, "options");
    assert_int_equal(cJSON_GetArraySize(opts), 2);
    cJSON *monthly = cJSON_GetObjectItem(cJSON_GetArrayItem(opts, 0), "monthly");
    assert_int_equal(cJSON_GetArraySize(monthly), 4);
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(doc, "sources")));
    cJSON *sj = cJSON_GetObjectItem(doc, "scenario_json");
    assert_string_equal(cJSON_GetObjectItem(sj, "name")->valuestring, sc->name);
    /* cost_per_gpu_hour is null when nothing is busy. */
    cJSON_Delete(doc);
    sc->utilization = 0;
    gp_model_evaluate(sc, res);
    doc = gp_report_json_tree(sc, res, &meta);
    assert_true(cJSON_IsNull(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "self_hosted"), "cost_per_gpu_hour")));
    cJSON_Delete(doc);
    cJSON_Delete(tree);
}

static void test_md_content(void **state) {
    (void)state;
    load(hostile, NULL);
    gp_buf out;
    gp_buf_init(&out, 1 << 20);
    gp_err err;
    gp_report_meta meta = {"2026-11-22", NULL, 0, NULL, "test"};
    assert_int_equal(gp_report_md(sc, res, &meta, &out, &err), GP_OK);
    assert_non_null(strstr(out.data, "## Assumptions"));
    assert_non_null(strstr(out.data, "## Totals (USD)"));
    assert_non_null(strstr(out.data, "## The plan month by month (USD)"));
    /* Months are labelled from as_of without a start_date: month 1 is 2026-11, month 3
     * 2027-01. */
    assert_non_null(strstr(out.data, "| 1 | 2026-11 | "));
    assert_non_null(strstr(out.data, "| 3 | 2027-01 | "));
    assert_non_null(strstr(out.data, "### Purchases and sales (USD)"));
    assert_non_null(strstr(out.data, "exit value at the end"));
    /* No catalog price used: --as-of dates none of the scenario's own prices. */
    assert_null(strstr(out.data, "Prices as of"));
    assert_non_null(strstr(out.data, "Prices as given in the scenario (no catalog price used)."));
    /* One server is "1 server". */
    assert_non_null(strstr(out.data, "| self-hosted (1 server) | owned |"));
    /* Pipes are escaped and control characters dropped, so the tables stay tables. */
    assert_non_null(strstr(out.data, "+cmd\\|' /C calc'!A0"));
    assert_null(strchr(out.data, '\a'));
    gp_buf_done(&out);
}

static const char work_mode[] =
    "{\"name\": \"w\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 7300,"
    " \"work_unit\": \"M tokens\", \"utilization\": 0.5}, \"self_hosted\": {\"server_price\":"
    " 100000, \"work_per_gpu_hour\": 10}, \"cloud_options\": [{\"name\": \"od\", \"pricing\":"
    " \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 16, \"work_per_gpu_hour\": 4}]}";

/* Work mode: the Totals table has a cost per busy GPU-hour and, beside it, a cost per unit of
 * work named by its unit; the JSON has cost_per_work_unit and a null cost_per_gpu_hour. */
static void test_md_work_mode(void **state) {
    (void)state;
    load(work_mode, NULL);
    gp_buf out;
    gp_buf_init(&out, 1 << 20);
    gp_err err;
    gp_report_meta meta = {"2026-11-22", NULL, 0, NULL, "test"};
    assert_int_equal(gp_report_md(sc, res, &meta, &out, &err), GP_OK);
    assert_non_null(strstr(out.data, "| NPV | per busy GPU-hour | per M tokens | break-even"));
    /* The option: 16 / 8 a busy GPU-hour (it rents busy hours only), 2 / 4 an M tokens. */
    char want[256], total[64];
    gp_fmt_money(res->options[0].total, total, sizeof total);
    snprintf(want, sizeof want, "| od | on_demand | %s | %s | 2.0000 | 0.5 | ", total, total);
    if (!strstr(out.data, want))
        fail_msg("no row [%s] in\n%s", want, out.data);
    /* Self-hosted: its total over its own busy hours, 12 x 7300 / 10. */
    char per_unit[64];
    gp_fmt_sig(res->self.total / (12 * 7300.0), 4, per_unit, sizeof per_unit);
    snprintf(want, sizeof want, " | %.4f | %s | | | | | |\n", res->self.total / (12 * 730.0),
             per_unit);
    if (!strstr(out.data, want))
        fail_msg("no self-hosted cells [%s] in\n%s", want, out.data);
    gp_buf_done(&out);
    cJSON *doc = gp_report_json_tree(sc, res, &meta);
    cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "options"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "cost_per_gpu_hour")));
    assert_close(cJSON_GetObjectItem(o, "cost_per_work_unit")->valuedouble, 0.5, 1e-12);
    cJSON_Delete(doc);
}

/* One GPU rented by the hour against an 8-GPU server: nothing about power or the tariff is
 * given, staff is. */
static const char given_only[] =
    "{\"name\": \"t\", \"horizon_months\": 12, \"demand\": {\"gpus\": 1, \"utilization\": 0.6},"
    " \"self_hosted\": {\"server_price\": 10000, \"staff_per_month\": 50,"
    " \"power\": {\"gpu_tdp_w\": 700}},"
    " \"cloud_options\": [{\"name\": \"A\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 1,"
    " \"hourly\": 2.5, \"idle_overhead\": 0.1}]}";

/* md of json, evaluated, with its own tree as the scenario_json. */
static char *md_of(const char *json) {
    cJSON *tree;
    load(json, &tree);
    gp_report_meta meta = {"2026-11-22", NULL, 0, tree, "test"};
    gp_buf out;
    gp_buf_init(&out, 1 << 20);
    gp_err err;
    assert_int_equal(gp_report_md(sc, res, &meta, &out, &err), GP_OK);
    cJSON_Delete(tree);
    char *text = strdup(out.data);
    gp_buf_done(&out);
    return text;
}

static void test_opening_given(void **state) {
    (void)state;
    char *md = md_of(given_only);
    const char *open = strstr(md, "## What decides this");
    assert_non_null(open);
    assert_true(open < strstr(md, "## Assumptions"));
    /* 1 GPU x 730 h x 0.6 = 438 busy GPU-hours; with a 10 % idle overhead "A" bills 481.8. */
    assert_non_null(strstr(md, "1 GPU at 60 % busy are 438 busy GPU-hours in month 1"));
    assert_non_null(strstr(md, "\"A\" bills 482 with its 10 % idle overhead"));
    assert_non_null(strstr(md, "- Utilization 60 %: given in the scenario, not measured."));
    /* No grid intensity given: the CO2 is not known, which is not 0 kg. */
    assert_non_null(strstr(md, "(CO2 not computed: no grid_kg_co2_per_kwh)"));
    assert_null(strstr(md, "kg CO2"));
    assert_non_null(
        strstr(md, "- Electricity 0.12 USD a kWh: not given, so the model's default flat tariff."));
    /* The break-even utilization and price, as the engine has them, said to 4 digits. */
    assert_true(res->options[0].has_break_even_utilization);
    char be[32], want[160];
    gp_fmt_pct(res->options[0].break_even_utilization, be, sizeof be);
    snprintf(want, sizeof want,
             "Against \"A\": owning and renting cost the same at %s %% utilization", be);
    assert_non_null(strstr(md, want));
    /* Every running cost left out, from the one list the draft's notes use; staff is given. */
    for (int i = 0; i < GP_N_ZERO_COSTS; i++) {
        snprintf(want, sizeof want, "| %s | 0 — not given (%s) |", gp_zero_costs[i].label,
                 gp_zero_costs[i].key);
        if (strcmp(gp_zero_costs[i].key, "staff_per_month") == 0)
            assert_null(strstr(md, want));
        else
            assert_non_null(strstr(md, want));
    }
    assert_non_null(strstr(md, "| server base draw | 0 W — not given |"));
    assert_null(strstr(md, "| GPU busy draw |")); /* given: 700 W */
    assert_non_null(strstr(md, "| PUE | 1 — not given (the default) |"));
    assert_non_null(strstr(md, "| discount rate (NPV) | 0% a year — not given |"));
    /* Plurals and display rounding. */
    assert_non_null(strstr(md, "| demand | 1 GPU, 60% busy"));
    assert_non_null(strstr(md, "on_demand, 1 GPU an instance, 2.5 an instance-hour"));
    assert_non_null(strstr(md, "| horizon | 12 months |"));
    free(md);
}

/* 8 GPUs at 50 % for 12 months: on demand bills 8 x 730 x 0.5 x 12 = 35,040 GPU-hours. At 2 a
 * GPU-hour (16 an 8-GPU instance-hour) that is 70,080, at 1 on spot 35,040 (no interruptions
 * given, no band: priced at none), and owning costs 1,000,000: spot is cheapest, and the
 * cheapest with guaranteed capacity is on demand, 35,040 (100 %) more. */
static const char spot_wins[] =
    "{\"name\": \"s\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, \"utilization\": "
    "0.5}, \"self_hosted\": {\"server_price\": 1000000}, \"cloud_options\": [{\"name\": "
    "\"od\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 16}, "
    "{\"name\": \"sp\", \"pricing\": \"spot\", \"gpus_per_instance\": 8, \"hourly\": 8}]}";

/* Equal totals are a tie, said as one. 8 GPUs at 50 % for 12 months are 35,040 busy GPU-hours;
 * at 2 an 8-GPU instance-hour (4,380 instance-hours) renting costs 8,760, the price of the one
 * server owned (no power, nothing else): self-hosted and "od" tie, and "od2" at the same price
 * ties too. */
/* The tie above with a spot option at 1.9 an 8-GPU instance-hour (8,322 in total): spot is
 * cheapest, and the cheapest with guaranteed capacity is a tie of self-hosted and "od". */
static const char spot_beside_tie[] =
    "{\"name\": \"t\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, \"utilization\": "
    "0.5}, \"self_hosted\": {\"server_price\": 8760}, \"cloud_options\": [{\"name\": \"od\", "
    "\"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 2}, {\"name\": \"sp\", "
    "\"pricing\": \"spot\", \"gpus_per_instance\": 8, \"hourly\": 1.9}]}";

static const char tie[] =
    "{\"name\": \"t\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, \"utilization\": "
    "0.5}, \"self_hosted\": {\"server_price\": 8760}, \"cloud_options\": [{\"name\": \"od\", "
    "\"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 2}, {\"name\": \"od2\", "
    "\"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 2}, {\"name\": \"dear\", "
    "\"pricing\": \"on_demand\", \"gpus_per_instance\": 8, \"hourly\": 3}]}";

/* The one tie helper: equal by the model's rule (a relative 1e-9), the side itself and skipped
 * sides left out, in order; the count past cap still counted. */
static void test_tied_totals(void **state) {
    (void)state;
    const double total[] = {100.0, 100.0 + 5e-8, 100.1, 100.0, 100.0};
    const bool skip[] = {false, false, false, true, false};
    int tied[4];
    assert_int_equal(gp_tied_totals(total, NULL, 5, 0, tied, 4), 3);
    assert_int_equal(tied[0], 1);
    assert_int_equal(tied[1], 3);
    assert_int_equal(tied[2], 4);
    assert_int_equal(gp_tied_totals(total, skip, 5, 4, tied, 4), 2);
    assert_int_equal(tied[0], 0);
    assert_int_equal(tied[1], 1);
    tied[0] = -7;
    assert_int_equal(gp_tied_totals(total, NULL, 5, 0, tied, 0), 3); /* cap 0: counted only */
    assert_int_equal(tied[0], -7);
    assert_int_equal(gp_tied_totals(total, NULL, 5, 2, tied, 4), 0);
    /* Over a result: the sides at the cheapest's total, self-hosted as -1. */
    free(md_of(tie));
    assert_int_equal(gp_report_tied(res, res->cheapest, tied, 4), 2);
    assert_int_equal(tied[0], 0);
    assert_int_equal(tied[1], 1);
    assert_int_equal(gp_report_tied(res, 1, tied, 4), 2); /* od2 ties self-hosted and od */
    assert_int_equal(tied[0], -1);
    assert_int_equal(tied[1], 0);
}

static void test_tie_headline(void **state) {
    (void)state;
    char *md = md_of(tie);
    assert_int_equal(res->cheapest, -1);
    assert_non_null(strstr(md, "**Cheapest over 12 months: self-hosted**, 8,760.00 USD in total. "
                               "A tie: od, od2 cost the same (equal totals; the first in order "
                               "is named)."));
    assert_null(strstr(md, "cheaper by 0.00"));
    assert_non_null(strstr(md, "; as given, both cost the same, 8,760.00 USD (a tie)."));
    /* Against the dearer option the line still says who is cheaper, and "dear" is no tie. */
    assert_non_null(strstr(md, "; as given, owning is cheaper by 4,380.00 USD."));
    assert_null(strstr(md, "od2, dear"));
    free(md);
    /* The JSON names the tie too: every other side at the cheapest's total, in order. */
    cJSON *doc = gp_report_json_tree(sc, res, NULL);
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest")->valuestring, "self_hosted");
    cJSON *tied = cJSON_GetObjectItem(doc, "tied_with_cheapest");
    assert_int_equal(cJSON_GetArraySize(tied), 2);
    assert_string_equal(cJSON_GetArrayItem(tied, 0)->valuestring, "od");
    assert_string_equal(cJSON_GetArrayItem(tied, 1)->valuestring, "od2");
    /* The batch page's section for it names the tie. */
    gp_buf page;
    gp_buf_init(&page, 1 << 20);
    assert_int_equal(gp_report_html_scenario(&page, doc, NULL, 0), GP_OK);
    assert_non_null(strstr(page.data, "Cheapest: <b class=\"cheapest\">self_hosted</b>; a tie: "
                                      "<span class=\"tie\">od, od2</span> cost the same."));
    gp_buf_done(&page);
    cJSON_Delete(doc);
    /* A win outright has no tie: an empty list. */
    md = md_of(spot_wins);
    free(md);
    doc = gp_report_json_tree(sc, res, NULL);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "tied_with_cheapest")), 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "guaranteed_tied_with")), 0);
    cJSON_Delete(doc);
    /* Spot cheapest, and the cheapest with guaranteed capacity a tie: both named. */
    md = md_of(spot_beside_tie);
    assert_non_null(strstr(md, "the cheapest with guaranteed capacity is self-hosted (a tie with "
                               "od: the same total), 8,760.00 USD in total"));
    free(md);
    doc = gp_report_json_tree(sc, res, NULL);
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed")->valuestring,
                        "self_hosted");
    cJSON *gt = cJSON_GetObjectItem(doc, "guaranteed_tied_with");
    assert_int_equal(cJSON_GetArraySize(gt), 1);
    assert_string_equal(cJSON_GetArrayItem(gt, 0)->valuestring, "od");
    cJSON_Delete(doc);
}

/* The fleet's footer counts physical GPUs, as capacity does (docs/telemetry.md, "What
 * counts"): one H100 split into two MIG instances beside a whole one is 2 GPUs and 2 MIG
 * instances, never "4 GPUs". */
static void test_fleet_footer_mig(void **state) {
    (void)state;
    gp_fleet_row rows[4];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 4; i++) {
        snprintf(rows[i].node, sizeof rows[i].node, "n0");
        snprintf(rows[i].host, sizeof rows[i].host, "n0");
        snprintf(rows[i].display, sizeof rows[i].display, "H100 SXM 80GB");
        rows[i].index = i < 2 ? i : 1;
    }
    snprintf(rows[2].mig, sizeof rows[2].mig, "3g.40gb");
    snprintf(rows[3].mig, sizeof rows[3].mig, "3g.40gb");
    gp_fleet_state f = {.now_ms = 0, .fresh_ms = 900000, .rows = rows, .n = 4};
    gp_buf out;
    gp_buf_init(&out, 1 << 16);
    assert_int_equal(gp_report_fleet_text(&f, &out), GP_OK);
    assert_int_equal(gp_buf_add(&out, "", 1), GP_OK);
    assert_non_null(strstr(out.data, "\n2 GPUs and 2 MIG instances, 0 with alerts (* a MIG "
                                     "instance)\n"));
    gp_buf_done(&out);
    /* Without MIG the footer is as before. */
    f.n = 2;
    gp_buf_init(&out, 1 << 16);
    assert_int_equal(gp_report_fleet_text(&f, &out), GP_OK);
    assert_int_equal(gp_buf_add(&out, "", 1), GP_OK);
    assert_non_null(strstr(out.data, "\n2 GPUs, 0 with alerts\n")); /* no legend for no '*' */
    gp_buf_done(&out);
}

/* plan --mix names the measured fleet by model with or without --growth, and says when the
 * load it plans on mixes GPU models (16 H100 and 2 A100 planned as one scenario's GPU). */
static void test_mix_measured_fleet(void **state) {
    (void)state;
    double curve[3] = {300, 200, 250};
    gp_mix_plan p;
    memset(&p, 0, sizeof p);
    p.n = 2, p.curve = curve, p.best = 1, p.horizon_months = 36, p.buckets = 288, p.units = 18;
    snprintf(p.currency, sizeof p.currency, "USD");
    p.measured_gpus = 18, p.n_models = 2;
    snprintf(p.models[0].model, sizeof p.models[0].model, "H100");
    snprintf(p.models[0].raw_model, sizeof p.models[0].raw_model, "NVIDIA H100 80GB HBM3");
    p.models[0].gpus = 16;
    snprintf(p.models[1].model, sizeof p.models[1].model, "A100-80GB");
    snprintf(p.models[1].raw_model, sizeof p.models[1].raw_model, "NVIDIA A100-SXM4-80GB");
    p.models[1].gpus = 2;
    gp_buf out;
    gp_buf_init(&out, 1 << 16);
    assert_int_equal(gp_report_mix_text(&p, "od", &out), GP_OK);
    assert_int_equal(gp_buf_add(&out, "", 1), GP_OK);
    assert_non_null(
        strstr(out.data, "\nMeasured fleet: 18 GPUs (16 H100 SXM 80GB, 2 A100 SXM 80GB)."));
    assert_non_null(strstr(out.data, "2 GPU models: their load is planned as one; --gpu MODEL "
                                     "plans one of them."));
    gp_buf_done(&out);
    /* One model: named, no warning; and with --growth the line is not repeated. */
    p.n_models = 1, p.measured_gpus = 16;
    p.has_growth = true, p.projected = true, p.target = 0.7, p.runs_out = -1;
    gp_buf_init(&out, 1 << 16);
    assert_int_equal(gp_report_mix_text(&p, "od", &out), GP_OK);
    assert_int_equal(gp_buf_add(&out, "", 1), GP_OK);
    const char *m = strstr(out.data, "Measured fleet: 16 GPUs (16 H100 SXM 80GB).");
    assert_non_null(m);
    assert_null(strstr(m + 1, "Measured fleet"));
    assert_null(strstr(out.data, "GPU models:"));
    gp_buf_done(&out);
}

static void test_spot_headline(void **state) {
    (void)state;
    char *md = md_of(spot_wins);
    assert_non_null(strstr(md, "**Cheapest over 12 months: sp**, 35,040.00 USD in total."));
    assert_non_null(strstr(md, "It is spot capacity, which the provider can reclaim: the cheapest "
                               "with guaranteed capacity is od, 70,080.00 USD in total, "
                               "35,040.00 USD more (100 %)."));
    /* What decides this says what its interruptions are priced at, and where that comes from. */
    assert_non_null(strstr(md, "- Spot: \"sp\" is priced at 0 % of its instances interrupted a "
                               "month (none: the catalog gives no band and the scenario sets "
                               "none)"));
    /* No exit value: the Totals say so, beside the Assumptions' "resale value | 0". */
    assert_non_null(strstr(md, "\nSelf-hosted's total includes no exit value: hardware still "
                               "held at month 12 is credited at 0.\n"));
    free(md);
    cJSON *doc = gp_report_json_tree(sc, res, NULL);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "cheapest_rests_on_spot")));
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed")->valuestring, "od");
    /* The batch page's scenario section says so too. */
    gp_buf page;
    gp_buf_init(&page, 1 << 20);
    assert_int_equal(gp_report_html_scenario(&page, doc, NULL, 0), GP_OK);
    assert_non_null(strstr(page.data, "<b class=\"cheapest\">sp</b>, spot capacity, which the "
                                      "provider can reclaim; the cheapest with guaranteed "
                                      "capacity: <b class=\"guaranteed\">od</b>."));
    gp_buf_done(&page);
    cJSON_Delete(doc);
    /* Not spot: no such sentence; the guaranteed cheapest is the cheapest. */
    md = md_of(given_only);
    assert_null(strstr(md, "guaranteed capacity"));
    free(md);
    doc = gp_report_json_tree(sc, res, NULL);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "cheapest_rests_on_spot")));
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed")->valuestring,
                        cJSON_GetObjectItem(doc, "cheapest")->valuestring);
    cJSON_Delete(doc);
}

/* 2.1: spot is cheapest and the guaranteed side is self-hosted, whose 50,000 total holds a
 * 50,000 exit value (100,000 of servers, flat 50 %): the headline says so beside the figure,
 * and that without it on demand (70,080) is the cheapest with guaranteed capacity. */
static void test_spot_headline_exit(void **state) {
    (void)state;
    static const char owned[] =
        "{\"name\": \"s\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, \"utilization\": "
        "0.5}, \"self_hosted\": {\"server_price\": 100000, \"residual_pct\": 0.5}, "
        "\"cloud_options\": [{\"name\": \"od\", \"pricing\": \"on_demand\", "
        "\"gpus_per_instance\": 8, \"hourly\": 16}, {\"name\": \"sp\", \"pricing\": \"spot\", "
        "\"gpus_per_instance\": 8, \"hourly\": 8}]}";
    char *md = md_of(owned);
    assert_non_null(strstr(md, "the cheapest with guaranteed capacity is self-hosted, 50,000.00 "
                               "USD in total (after crediting 50,000.00 of exit value, flat 50 %), "
                               "14,960.00 USD more (42.69 %); without it: od, 70,080.00 USD."));
    assert_null(strstr(md, "includes no exit value")); /* an exit value: its own line */
    assert_non_null(strstr(md, "Self-hosted's total includes an exit value of 50,000.00 USD"));
    free(md);
    cJSON *doc = gp_report_json_tree(sc, res, NULL);
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed")->valuestring,
                        "self_hosted");
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed_without_exit")->valuestring,
                        "od");
    gp_buf page;
    gp_buf_init(&page, 1 << 20);
    assert_int_equal(gp_report_html_scenario(&page, doc, NULL, 0), GP_OK);
    assert_non_null(strstr(page.data,
                           "<b class=\"guaranteed\">self_hosted</b>, after "
                           "crediting 50,000.00 of exit value (flat residual_pct); without "
                           "it: <b class=\"guaranteed-without-exit\">od</b>."));
    gp_buf_done(&page);
    cJSON_Delete(doc);
    /* Without an exit value nothing is added, and the two keys agree. */
    md = md_of(spot_wins);
    assert_null(strstr(md, "exit value,"));
    free(md);
    doc = gp_report_json_tree(sc, res, NULL);
    assert_string_equal(cJSON_GetObjectItem(doc, "cheapest_guaranteed_without_exit")->valuestring,
                        "od");
    cJSON_Delete(doc);
}

static void test_opening_measured(void **state) {
    (void)state;
    static const char measured[] =
        "{\"name\": \"m\", \"horizon_months\": 12, \"demand\": {\"gpus\": 24, \"utilization\": "
        "0.6}, \"measured\": {\"since\": \"2026-10-01T00:00:00Z\", \"until\": "
        "\"2026-10-31T00:00:00Z\", \"gpus\": 24, \"busy_threshold\": 0.05, \"utilization\": 0.6},"
        " \"self_hosted\": {\"server_price\": 100000, \"staff_per_month\": 0, \"tariff\": "
        "{\"periods\": [{\"name\": \"TX industrial average 2024\", \"hours_per_day\": 24,"
        " \"price_per_kwh\": 0.0812}]}},"
        " \"cloud_options\": [{\"name\": \"A\", \"pricing\": \"on_demand\", \"gpus_per_instance\":"
        " 8, \"hourly\": 20}]}";
    char *md = md_of(measured);
    assert_non_null(strstr(md, "- Utilization 60 %: measured by `scenario measure` from "
                               "2026-10-01T00:00:00Z to 2026-10-31T00:00:00Z over 24 GPUs, busy "
                               "at 5 % utilization or more."));
    assert_non_null(strstr(md, "- Electricity 0.0812 USD a kWh: the scenario's tariff \"TX "
                               "industrial average 2024\"."));
    assert_non_null(strstr(md, "(no option has an idle overhead)"));
    assert_non_null(strstr(md, "| staff | 0 — given as 0 (staff_per_month) |"));
    assert_null(strstr(md, "| electricity |"));
    free(md);
    /* Edited after the measurement: the report says both. */
    char edited[sizeof measured];
    snprintf(edited, sizeof edited, "%s", measured);
    char *u = strstr(edited, "\"utilization\": 0.6}"); /* demand's */
    memcpy(u, "\"utilization\": 0.5}", 19);
    md = md_of(edited);
    assert_non_null(strstr(md, "- Utilization 50 %: given in the scenario; `scenario measure` "
                               "measured 60 % from 2026-10-01T00:00:00Z"));
    free(md);
}

/* The CSV prints money to cents and rates to 4 significant digits, never float noise. */
static void test_csv_rounded(void **state) {
    (void)state;
    load(given_only, NULL);
    gp_buf out;
    gp_buf_init(&out, 1 << 20);
    gp_err err;
    assert_int_equal(gp_report_csv(sc, res, NULL, &out, &err), GP_OK);
    /* Row 1: money columns are the engine's figures to the cent. */
    const char *row1 = strstr(out.data, "\n1,");
    assert_non_null(row1);
    char want[64], f[40];
    snprintf(want, sizeof want, ",%s,", gp_fmt_cents(res->self.monthly[1], f, sizeof f));
    assert_non_null(strstr(row1, want));
    snprintf(want, sizeof want, "1,month 1,1,438,0.6,");
    assert_non_null(strstr(row1, want));
    /* No field anywhere has more than 2 decimals (utilization 0.6 and hours 0.0 included). */
    for (const char *p = out.data; (p = strchr(p, '.')) != NULL; p++) {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits > 2)
            fail_msg("a field with %zu decimals: %.20s", digits, p - 8 > out.data ? p - 8 : p);
    }
    gp_buf_done(&out);
}

/* The scenario of given_only with option 0 at that hourly price, evaluated afresh: the
 * totals a sensitivity row must report at that end. */
static void evaluate_with_hourly(double hourly, gp_scenario *s2, gp_result *r2) {
    gp_err err;
    assert_int_equal(gp_scenario_parse(given_only, strlen(given_only), "t.json", s2, NULL, &err),
                     GP_OK);
    s2->options[0].hourly = hourly;
    gp_model_evaluate(s2, r2);
}

static const gp_sens_row *row_named(const gp_sensitivity *t, const char *path) {
    for (int k = 0; k < t->n_rows; k++)
        if (strcmp(t->rows[k].input, path) == 0)
            return &t->rows[k];
    fail_msg("no row %s", path);
    return NULL;
}

static void test_sensitivity_json_csv(void **state) {
    (void)state;
    load(given_only, NULL);
    gp_sensitivity *t = malloc(sizeof *t);
    gp_err err;
    assert_int_equal(gp_sensitivity_run(sc, 0.3, t, &err), GP_OK);
    const gp_sens_row *hr = row_named(t, "cloud_options[0].hourly");
    gp_scenario *s2 = malloc(sizeof *s2);
    gp_result *r2 = malloc(sizeof *r2);
    evaluate_with_hourly(hr->low, s2, r2);
    double self_low = r2->self.total, a_low = r2->options[0].total;
    /* 2.5 x 0.7 = 1.75 an hour makes renting the one GPU cheaper than the server. */
    assert_true(a_low < self_low);

    gp_buf out;
    gp_buf_init(&out, 4 << 20);
    assert_int_equal(gp_report_sensitivity_json(sc, t, &out, &err), GP_OK);
    cJSON *doc = cJSON_Parse(out.data);
    assert_non_null(doc);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "base"), "cheapest")->valuestring,
        "self-hosted");
    const cJSON *row = NULL, *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "rows")) {
        if (!strcmp(cJSON_GetObjectItem(r, "path")->valuestring, "cloud_options[0].hourly"))
            row = r;
        /* Every row is named by its owner and parameter; no JSON path as the name. */
        assert_null(strchr(cJSON_GetObjectItem(r, "option")->valuestring, '['));
        assert_null(strchr(cJSON_GetObjectItem(r, "parameter")->valuestring, '['));
    }
    assert_non_null(row);
    assert_string_equal(cJSON_GetObjectItem(row, "option")->valuestring, "A");
    assert_string_equal(cJSON_GetObjectItem(row, "parameter")->valuestring, "hourly");
    assert_close(cJSON_GetObjectItem(row, "low")->valuedouble, 1.75, REL);
    const cJSON *lo = cJSON_GetObjectItem(row, "at_low");
    assert_close(cJSON_GetObjectItem(lo, "self_hosted")->valuedouble, self_low, REL);
    assert_close(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(lo, "options"), 0), "total")
            ->valuedouble,
        a_low, REL);
    assert_string_equal(cJSON_GetObjectItem(lo, "cheapest")->valuestring, "A");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(row, "at_high"), "cheapest")->valuestring,
        "self-hosted");
    /* A self-hosted input is named by its section and key. */
    const gp_sens_row *pue = row_named(t, "self_hosted.server_price");
    assert_string_equal(pue->parameter, "server_price");
    cJSON_Delete(doc);
    gp_buf_done(&out);

    gp_buf_init(&out, 4 << 20);
    assert_int_equal(gp_report_sensitivity_csv(sc, t, &out, &err), GP_OK);
    assert_non_null(strstr(out.data, "option,parameter,path,base,low,high,cheapest_at_low,"
                                     "cheapest_at_high,self_hosted_at_low,self_hosted_at_high,"
                                     "A at low,A at high\n"));
    char want[256], m1[40], m2[40];
    snprintf(want, sizeof want,
             "\nA,hourly,cloud_options[0].hourly,2.5,1.75,3.25,A,self-hosted,%s,",
             gp_fmt_cents(self_low, m1, sizeof m1));
    assert_non_null(strstr(out.data, want));
    snprintf(want, sizeof want, ",%s,", gp_fmt_cents(a_low, m2, sizeof m2));
    assert_non_null(strstr(strstr(out.data, "\nA,hourly,"), want));
    gp_buf_done(&out);

    /* The summary: the cheapest and its lead, the hourly row with the flip marked. */
    gp_buf_init(&out, 4 << 20);
    assert_int_equal(gp_report_sensitivity_summary(sc, t, res, 10, &out), GP_OK);
    assert_non_null(strstr(out.data, "Cheapest at the base point: self-hosted, "));
    assert_null(strstr(out.data, "reclaim")); /* no spot: no caveat */
    const char *line = strstr(out.data, "\n  A: hourly ");
    assert_non_null(line);
    const char *eol = strchr(line + 1, '\n');
    const char *flip = strstr(line, "! low: A");
    assert_true(flip && flip < eol);
    assert_true(memchr(line, '#', (size_t)(eol - line)) != NULL);
    gp_buf_done(&out);
    free(r2);
    free(s2);
    /* Spot cheapest: the summary carries the report headline's reclaim caveat, same words. */
    load(spot_wins, NULL);
    assert_int_equal(gp_sensitivity_run(sc, 0.2, t, &err), GP_OK);
    gp_buf_init(&out, 4 << 20);
    assert_int_equal(gp_report_sensitivity_summary(sc, t, res, 10, &out), GP_OK);
    char spot[GP_OPENING_BYTES];
    gp_report_spot_headline(sc, res, spot, sizeof spot);
    assert_non_null(strstr(spot, "It is spot capacity, which the provider can reclaim"));
    const char *head = strstr(out.data, "Cheapest at the base point: sp, 35,040.00;");
    assert_non_null(head);
    assert_non_null(strstr(head, spot));
    gp_buf_done(&out);
    /* A tie at the base point is said as one, not as a lead of 0.00. */
    load(tie, NULL);
    assert_int_equal(gp_sensitivity_run(sc, 0.2, t, &err), GP_OK);
    gp_buf_init(&out, 4 << 20);
    assert_int_equal(gp_report_sensitivity_summary(sc, t, res, 10, &out), GP_OK);
    assert_non_null(strstr(out.data, "Cheapest at the base point: self-hosted, 8,760.00; a tie: "
                                     "od, od2 cost the same (no lead).\n"));
    assert_null(strstr(out.data, "its lead over the next best: 0.00"));
    gp_buf_done(&out);
    free(t);
}

/* cJSON_Print of a fleet as gp_report_fleet_json built it before it wrote the text itself. */
static char *fleet_via_cjson(const gp_fleet_state *f) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < f->n; i++) {
        const gp_fleet_row *g = &f->rows[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "node", g->node);
        cJSON_AddStringToObject(j, "host", g->host);
        cJSON_AddNumberToObject(j, "index", g->index);
        cJSON_AddStringToObject(j, "uuid", g->uuid);
        cJSON_AddStringToObject(j, "model", g->model);
        cJSON_AddStringToObject(j, "display", g->display);
        cJSON_AddStringToObject(j, "raw_model", g->raw_model);
        if (g->mig[0])
            cJSON_AddStringToObject(j, "mig", g->mig);
        for (int m = 0; m < GP_M_COUNT; m++)
            if (g->has[m])
                cJSON_AddNumberToObject(j, gp_metric_name((gp_metric)m), g->value[m]);
        cJSON_AddNumberToObject(j, "last_seen_ms", (double)g->last_seen_ms);
        cJSON_AddNumberToObject(j, "age_s", (double)((f->now_ms - g->last_seen_ms) / 1000));
        cJSON_AddBoolToObject(j, "stale", g->stale);
        cJSON *a = cJSON_AddArrayToObject(j, "alerts");
        char copy[160];
        snprintf(copy, sizeof copy, "%s", g->alerts);
        for (char *tok = copy, *sp; tok && *tok; tok = sp ? sp + 1 : NULL) {
            sp = strchr(tok, ' ');
            if (sp)
                *sp = '\0';
            cJSON_AddItemToArray(a, cJSON_CreateString(tok));
        }
        cJSON_AddItemToArray(arr, j);
    }
    char *text = cJSON_Print(arr);
    cJSON_Delete(arr);
    size_t n = strlen(text);
    text = realloc(text, n + 2);
    memcpy(text + n, "\n", 2);
    return text;
}

/* fleet --json writes its text directly: byte for byte what cJSON printed, for numbers that
 * take %d, %1.15g and %1.17g, NaN and infinities, -0, ints past INT_MAX, escapes and control
 * characters in names, MIG instances, alerts, and no GPU at all. */
static void test_fleet_json_as_cjson(void **state) {
    (void)state;
    static const double values[] = {0,
                                    -0.0,
                                    1,
                                    -1,
                                    599.028,
                                    0.1,
                                    1.0 / 3,
                                    2147483647,
                                    2147483648.0,
                                    -2147483648.0,
                                    -2147483649.0,
                                    1e300,
                                    -1e-300,
                                    5e-324,
                                    NAN,
                                    INFINITY,
                                    -INFINITY,
                                    123456789012345.67,
                                    0.30000000000000004,
                                    1e21,
                                    65.5,
                                    4.35e-5,
                                    1795737599999.0};
    size_t nv = sizeof values / sizeof values[0];
    gp_fleet_state f = {.now_ms = 1795737599999LL + 40244000, .fresh_ms = 900000};
    f.n = nv + 2;
    f.rows = calloc(f.n, sizeof *f.rows);
    for (size_t i = 0; i < f.n; i++) {
        gp_fleet_row *r = &f.rows[i];
        snprintf(r->node, sizeof r->node, i == 1 ? "n\"o\\de\t\n\x01\x1f\x7f" : "node%02zu", i);
        snprintf(r->host, sizeof r->host, i == 2 ? "h\xc3\xa9te/\b\f\r" : "host%zu", i);
        snprintf(r->uuid, sizeof r->uuid, "GPU-%zu", i);
        snprintf(r->model, sizeof r->model, "H100");
        snprintf(r->display, sizeof r->display, "H100 SXM 80GB");
        snprintf(r->raw_model, sizeof r->raw_model, i % 3 ? "NVIDIA H100 80GB HBM3" : "");
        if (i % 4 == 1)
            snprintf(r->mig, sizeof r->mig, "1g.10gb");
        r->index = (int)i - 1;
        for (int m = 0; m < GP_M_COUNT; m++) {
            r->has[m] = (i + (size_t)m) % 5 != 0;
            r->value[m] = values[(i + (size_t)m) % nv];
        }
        r->last_seen_ms = i == 3 ? 0 : 1795737599999LL - (int64_t)i * 123457;
        r->stale = i % 2;
        snprintf(r->alerts, sizeof r->alerts, "%s",
                 i % 3 == 0   ? ""
                 : i % 3 == 1 ? "hot"
                              : "hot memory node-down");
    }
    for (size_t n = 0; n <= f.n; n += f.n) { /* none, then all */
        gp_fleet_state g = f;
        g.n = n;
        char *want = fleet_via_cjson(&g);
        gp_buf out;
        gp_buf_init(&out, 1 << 20);
        assert_int_equal(gp_report_fleet_json(&g, &out), GP_OK);
        size_t at = 0;
        while (out.data[at] && out.data[at] == want[at])
            at++;
        if (out.data[at] != want[at])
            fail_msg("differs at byte %zu: \"%.60s\" against cJSON's \"%.60s\"", at,
                     out.data + (at > 40 ? at - 40 : 0), want + (at > 40 ? at - 40 : 0));
        gp_buf_done(&out);
        free(want);
    }
    free(f.rows);
}

/* Two plans that between them give every number of the table of inputs (inputs.h) a line to
 * show in: GPU mode and work mode, both financed with a loan and maintained after their
 * warranty (without maintenance the warranty moves nothing, and the report does not say it),
 * with every input the Assumptions would list as not given given, so that only the prose or a
 * line of its own can show a change. */
#define EVERY_SELF                                                                                 \
    "\"server_price\": 200000, \"bridge\": \"A\", \"maintenance_pct_per_year\": 0.1,"              \
    " \"warranty_months\": 12, \"network_per_server\": 1000, \"fixed_capex\": 5000,"               \
    " \"staff_per_month\": 1000, \"other_per_month\": 500, \"colo_per_kw_month\": 100,"            \
    " \"residual_pct\": 0.1, \"power\": {\"server_base_w\": 500, \"gpu_idle_w\": 100,"             \
    " \"gpu_tdp_w\": 700, \"pue\": 1.2}, \"tariff\": {\"periods\": [{\"name\": \"flat\","          \
    " \"hours_per_day\": 24, \"price_per_kwh\": 0.1}], \"demand_charge_per_kw_month\": 5},"        \
    " \"financing\": {\"kind\": \"loan\", \"apr\": 0.07, \"term_months\": 12, \"fraction\": 0.8}"
static const char every_gpu[] =
    "{\"name\": \"g\", \"horizon_months\": 24, \"demand\": {\"gpus\": 16, \"utilization\": 0.6},"
    " \"self_hosted\": {\"max_servers\": 4, " EVERY_SELF "},"
    " \"cloud_options\": [{\"name\": \"A\", \"pricing\": \"on_demand\", \"gpus_per_instance\": 8,"
    " \"hourly\": 20}]}";
static const char every_work[] =
    "{\"name\": \"w\", \"horizon_months\": 12, \"demand\": {\"work_per_month\": 1e6,"
    " \"work_unit\": \"job\", \"utilization\": 0.5}, \"self_hosted\": {\"work_per_gpu_hour\": "
    "10, " EVERY_SELF "}, \"cloud_options\": [{\"name\": \"A\", \"pricing\": \"on_demand\","
    " \"gpus_per_instance\": 8, \"hourly\": 20, \"work_per_gpu_hour\": 10}]}";

/* base with key set to v, printed; NULL when the scenario or the engine refuses it. */
static char *with_value(const char *base, const char *key, double v) {
    cJSON *doc = cJSON_Parse(base);
    assert_true(gp_json_path_set(doc, key, cJSON_CreateNumber(v)));
    char *json = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    gp_err err;
    if (gp_scenario_parse(json, strlen(json), "t.json", sc, NULL, &err) == GP_OK) {
        gp_model_evaluate(sc, res);
        if (gp_report_check(res, &err) == GP_OK) /* and the engine takes it */
            return json;
    }
    free(json);
    return NULL;
}

/* The Assumptions of a Markdown report, from its heading to the Totals' (*len bytes), or the
 * whole report for the inputs it says under the breakdown: depreciation and the grid's CO2. */
static const char *assumptions_of(const char *md, const char *key, size_t *len) {
    *len = strlen(md);
    if (!strcmp(key, "self_hosted.depreciation_years") ||
        !strcmp(key, "self_hosted.grid_kg_co2_per_kwh"))
        return md;
    const char *from = strstr(md, "## Assumptions"), *to = from ? strstr(from, "## Totals") : NULL;
    assert_non_null(to);
    *len = (size_t)(to - from);
    return from;
}

/* Whether md a and b say the same of key's input (assumptions_of). */
static bool same_for(const char *a, const char *b, const char *key) {
    size_t na, nb;
    const char *sa = assumptions_of(a, key, &na), *sb = assumptions_of(b, key, &nb);
    return na == nb && !memcmp(sa, sb, na);
}

/* Every number of the table of inputs shows in the Markdown report's Assumptions: a changed
 * value changes them, whether the prose says it or a line of its own does (a new input is one row
 * of the table, and this fails if the report leaves it out). */
static void test_md_every_input(void **state) {
    (void)state;
    const char *bases[] = {every_gpu, every_work};
    int said = 0;
    for (int k = 0; k < 2; k++) {
        char *before = md_of(bases[k]);
        for (int i = 0; i < gp_n_inputs; i++) {
            const gp_input *in = &gp_inputs[i];
            if (!in->key || !in->value || !gp_input_mode_fits(in->mode, sc) ||
                (in->type != GP_IN_NUMBER && in->type != GP_IN_INTEGER))
                continue;
            double v = in->value(sc);
            double tries[4] = {v * 1.1, v * 0.9, 0.01, 0.05};
            if (in->type == GP_IN_INTEGER)
                tries[0] = v + 1, tries[1] = v - 1, tries[2] = 12, tries[3] = 2;
            char *json = NULL;
            for (int t = 0; t < 4 && !json; t++)
                if (tries[t] != v)
                    json = with_value(bases[k], in->key, tries[t]);
            if (!json)
                fail_msg("%s: no other value the scenario takes", in->key);
            char *after = md_of(json);
            if (same_for(before, after, in->key))
                fail_msg("%s changed, the Markdown report's Assumptions did not", in->key);
            said++;
            free(after);
            free(json);
            load(bases[k], NULL); /* the base's mode for the next row */
        }
        free(before);
    }
    assert_true(said >= 40);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_neutralised),
        cmocka_unit_test(test_csv_field_strip_then_test),
        cmocka_unit_test(test_json_shape),
        cmocka_unit_test(test_fleet_json_as_cjson),
        cmocka_unit_test(test_md_content),
        cmocka_unit_test(test_md_work_mode),
        cmocka_unit_test(test_opening_given),
        cmocka_unit_test(test_opening_measured),
        cmocka_unit_test(test_spot_headline),
        cmocka_unit_test(test_spot_headline_exit),
        cmocka_unit_test(test_tied_totals), /* gp_tied_totals, gp_report_tied */
        cmocka_unit_test(test_tie_headline),
        cmocka_unit_test(test_fleet_footer_mig),
        cmocka_unit_test(test_mix_measured_fleet),
        cmocka_unit_test(test_csv_rounded),
        cmocka_unit_test(test_sensitivity_json_csv),
        cmocka_unit_test(test_md_every_input),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
