/* The exporter's metric sets written as /metrics (metrics.h, report_metrics.h): both formats,
 * escaping, counters and info families, and the Accept header's choice. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/metrics.h"
#include "gpuplan/report_metrics.h"
#include "testutil.h"

static void sample_set(gp_metric_set *set) {
    memset(set, 0, sizeof *set);
    static const char *const labels[] = {"node", "scenario", NULL};
    gp_metric_family *f = gp_metric_family_add(set, "x_age_seconds", GP_METRIC_GAUGE, "seconds",
                                               "Age\\of it\nnext line.", labels);
    gp_metric_add(f, 1.5, (const char *[]){"a", "say \"hi\"\\\n"});
    gp_metric_add(f, NAN, (const char *[]){"b", "left out"});
    gp_metric_add(f, 3, (const char *[]){"c", NULL});
    gp_metric_add(gp_metric_family_add(set, "x_runs", GP_METRIC_COUNTER, NULL, "Runs.", NULL), 7,
                  NULL);
    static const char *const info_labels[] = {"option", NULL};
    gp_metric_add(
        gp_metric_family_add(set, "x_cheapest", GP_METRIC_INFO, NULL, "Cheapest.", info_labels), 1,
        (const char *[]){"spot"});
}

static void test_text(void **state) {
    (void)state;
    gp_metric_set set;
    sample_set(&set);
    gp_buf b;
    gp_buf_init(&b, 1 << 20);
    assert_int_equal(gp_report_metrics(&set, false, &b), GP_OK);
    assert_string_equal(b.data, "# HELP x_age_seconds Age\\\\of it\\nnext line.\n"
                                "# TYPE x_age_seconds gauge\n"
                                "x_age_seconds{node=\"a\",scenario=\"say \\\"hi\\\"\\\\\\n\"} 1.5\n"
                                "x_age_seconds{node=\"c\",scenario=\"\"} 3\n"
                                "# HELP x_runs_total Runs.\n"
                                "# TYPE x_runs_total counter\n"
                                "x_runs_total 7\n"
                                "# HELP x_cheapest_info Cheapest.\n"
                                "# TYPE x_cheapest_info gauge\n"
                                "x_cheapest_info{option=\"spot\"} 1\n");
    gp_buf_done(&b);
    gp_metric_set_done(&set);
    gp_metric_set_done(&set); /* twice is safe */
}

static void test_openmetrics(void **state) {
    (void)state;
    gp_metric_set set;
    sample_set(&set);
    gp_buf b;
    gp_buf_init(&b, 1 << 20);
    assert_int_equal(gp_report_metrics(&set, true, &b), GP_OK);
    assert_non_null(strstr(b.data, "# TYPE x_age_seconds gauge\n# UNIT x_age_seconds seconds\n"));
    assert_non_null(strstr(b.data, "# TYPE x_runs counter\nx_runs_total 7\n"));
    assert_non_null(strstr(b.data, "# TYPE x_cheapest info\nx_cheapest_info{option=\"spot\"} 1\n"));
    assert_int_equal(strcmp(b.data + b.len - 6, "# EOF\n"), 0);
    assert_null(strstr(b.data, "left out"));
    gp_buf_done(&b);
    /* A limit reached is GP_E_LIMIT. */
    gp_buf_init(&b, 40);
    assert_int_equal(gp_report_metrics(&set, true, &b), GP_E_LIMIT);
    gp_buf_done(&b);
    gp_metric_set_done(&set);
    /* An empty set: nothing, or only # EOF. */
    gp_buf_init(&b, 100);
    assert_int_equal(gp_report_metrics(&set, false, &b), GP_OK);
    assert_string_equal(b.data, "");
    gp_buf_done(&b);
    gp_buf_init(&b, 100);
    assert_int_equal(gp_report_metrics(&set, true, &b), GP_OK);
    assert_string_equal(b.data, "# EOF\n");
    gp_buf_done(&b);
}

static void test_find(void **state) {
    (void)state;
    gp_metric_set set;
    sample_set(&set);
    assert_non_null(gp_metric_family_find(&set, "x_runs"));
    assert_null(gp_metric_family_find(&set, "x_runs_total"));
    gp_metric_set_done(&set);
}

/* A family kept while a hundred more are added still takes samples (the exporter fills
 * families it made earlier). */
static void test_family_stays(void **state) {
    (void)state;
    gp_metric_set set = {0};
    gp_metric_family *first =
        gp_metric_family_add(&set, "x_first", GP_METRIC_GAUGE, NULL, "First.", NULL);
    static char names[100][16];
    for (int i = 0; i < 100; i++) {
        snprintf(names[i], sizeof names[i], "x_more_%d", i);
        gp_metric_family_add(&set, names[i], GP_METRIC_GAUGE, NULL, "More.", NULL);
    }
    gp_metric_add(first, 42, NULL);
    assert_ptr_equal(gp_metric_family_find(&set, "x_first"), first);
    gp_buf b;
    gp_buf_init(&b, 1 << 20);
    assert_int_equal(gp_report_metrics(&set, false, &b), GP_OK);
    assert_non_null(strstr(b.data, "\nx_first 42\n"));
    gp_buf_done(&b);
    gp_metric_set_done(&set);
}

static void test_accept(void **state) {
    (void)state;
    static const struct {
        const char *accept;
        bool om;
    } cases[] = {
        /* What Prometheus 2.42 sends (scrape.go's acceptHeader). */
        {"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
         "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
         true},
        {"application/openmetrics-text; version=1.0.0", true},
        {"Application/OpenMetrics-Text", true},
        {NULL, false},
        {"", false},
        {"*/*", false}, /* curl */
        {"text/plain;version=0.0.4", false},
        {"application/openmetrics-text;q=0.2, text/plain", false},
        {"application/openmetrics-text;q=0", false},
        {"text/plain;q=0.3, application/openmetrics-text;q=0.9", true},
        {"application/openmetrics-textual", false},
        {"application/openmetrics-text;q=abc", false},
        {",,;;q=,", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (gp_metrics_accepts_openmetrics(cases[i].accept) != cases[i].om)
            fail_msg("Accept \"%s\": want %s", cases[i].accept ? cases[i].accept : "(none)",
                     cases[i].om ? "OpenMetrics" : "text");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),   cmocka_unit_test(test_openmetrics),
        cmocka_unit_test(test_find),   cmocka_unit_test(test_family_stays),
        cmocka_unit_test(test_accept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
