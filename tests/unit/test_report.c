/* Report writers: JSON shape, CSV safety and series, Markdown content, money format. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/report.h"
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

static void test_money(void **state) {
    (void)state;
    char b[64];
    gp_format_money(1562288.0000000028, b, sizeof b);
    assert_string_equal(b, "1,562,288.00");
    gp_format_money(-901600, b, sizeof b);
    assert_string_equal(b, "-901,600.00");
    gp_format_money(-0.001, b, sizeof b);
    assert_string_equal(b, "0.00");
    gp_format_money(999.995, b, sizeof b);
    assert_string_equal(b, "1,000.00");
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
                                "\"a,b\",\"a,b cumulative\",\"a,b burst_hours\",break_even");
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
    assert_non_null(strstr(out.data, "Prices as of 2026-11-22"));
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
    gp_format_money(res->options[0].total, total, sizeof total);
    snprintf(want, sizeof want, "| od | on_demand | %s | %s | 2.0000 | 0.5 | ", total, total);
    if (!strstr(out.data, want))
        fail_msg("no row [%s] in\n%s", want, out.data);
    /* Self-hosted: its total over its own busy hours, 12 x 7300 / 10. */
    snprintf(want, sizeof want, " | %.4f | %.6g | | | | | |\n", res->self.total / (12 * 730.0),
             res->self.total / (12 * 7300.0));
    if (!strstr(out.data, want))
        fail_msg("no self-hosted cells [%s] in\n%s", want, out.data);
    gp_buf_done(&out);
    cJSON *doc = gp_report_json_tree(sc, res, &meta);
    cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "options"), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "cost_per_gpu_hour")));
    assert_close(cJSON_GetObjectItem(o, "cost_per_work_unit")->valuedouble, 0.5, 1e-12);
    cJSON_Delete(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_money),
        cmocka_unit_test(test_csv_neutralised),
        cmocka_unit_test(test_csv_field_strip_then_test),
        cmocka_unit_test(test_json_shape),
        cmocka_unit_test(test_md_content),
        cmocka_unit_test(test_md_work_mode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
