/* Batch runs: the comparison of two summaries (what moved, what flipped and why), summary.json
 * written and read back, the SVG writer's and the HTML page's escaping. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/batch_diff.h"
#include "gpuplan/batch_json.h"
#include "gpuplan/inputs.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/svg.h"
#include "testutil.h"

/* A scenario owning at `own` against one catalog option at `rent` (hourly `price`). */
static gp_batch_scenario *add(gp_batch_summary *sum, const char *name, double own, double rent,
                              double price, double util) {
    gp_batch_scenario *s = gp_batch_summary_add(sum);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->version = 1;
    snprintf(s->currency, sizeof s->currency, "USD");
    s->horizon_months = 36;
    s->gpus = 8;
    s->utilization = util;
    s->gpu_idle_w = 60;
    s->gpu_tdp_w = 400;
    s->n_choices = 2;
    s->choices = calloc(2, sizeof *s->choices);
    snprintf(s->choices[0].name, sizeof s->choices[0].name, GP_BATCH_SELF);
    s->choices[0].total = own;
    snprintf(s->choices[1].name, sizeof s->choices[1].name, "od");
    s->choices[1].total = rent;
    s->choices[1].has_break_even_month = own < rent;
    s->choices[1].break_even_month = own < rent ? 20 : 0;
    snprintf(s->cheapest, sizeof s->cheapest, "%s", own <= rent ? GP_BATCH_SELF : "od");
    s->cheapest_total = own <= rent ? own : rent;
    snprintf(s->rival, sizeof s->rival, "od");
    s->has_break_even_month = s->choices[1].has_break_even_month;
    s->break_even_month = s->choices[1].break_even_month;
    s->n_prices = 1;
    s->prices = calloc(1, sizeof *s->prices);
    snprintf(s->prices[0].option, sizeof s->prices[0].option, "od");
    snprintf(s->prices[0].catalog, sizeof s->prices[0].catalog, "acme/g8/eu-1");
    snprintf(s->prices[0].pricing, sizeof s->prices[0].pricing, "on_demand");
    s->prices[0].hourly = price;
    snprintf(s->prices[0].effective_from, sizeof s->prices[0].effective_from,
             price == 40 ? "2020-01-01" : "2021-01-01");
    snprintf(s->prices[0].source, sizeof s->prices[0].source, price == 40 ? "list" : "cut");
    return s;
}

static size_t count(const gp_batch_diff *d, gp_batch_change_kind k) {
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += d->c[i].kind == k;
    return n;
}

static const gp_batch_change *find(const gp_batch_diff *d, gp_batch_change_kind k,
                                   const char *scenario) {
    for (size_t i = 0; i < d->n; i++)
        if (d->c[i].kind == k && !strcmp(d->c[i].scenario, scenario))
            return &d->c[i];
    return NULL;
}

static void test_diff_nothing_moved(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    add(&a, "x", 100, 200, 40, 0.5);
    add(&b, "x", 100, 200, 40, 0.5);
    /* No break-even on either side: whatever the month field holds, nothing moved. */
    add(&a, "never", 300, 200, 40, 0.5)->break_even_month = 7;
    add(&b, "never", 300, 200, 40, 0.5)->break_even_month = 9;
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.flips, 0);
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* 2.1: owning's total moves through its exit value alone (the buying changed from all at
 * once to as needed, valued on the straight line): diff names the exit value as the cause; a
 * summary from before 2.1 (no basis) has nothing to compare. */
static void test_diff_exit_value(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    gp_batch_scenario *o = add(&a, "x", 5790000, 6000000, 40, 0.5);
    gp_batch_scenario *n = add(&b, "x", 2050000, 6000000, 40, 0.5);
    o->exit_value = 0;
    snprintf(o->exit_basis, sizeof o->exit_basis, "residual_pct");
    n->exit_value = 3740000;
    snprintf(n->exit_basis, sizeof n->exit_basis, "straight_line");
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    const gp_batch_change *e = find(&d, GP_CHANGE_EXIT_VALUE, "x");
    assert_non_null(e);
    assert_close(e->new_v, 3740000, REL);
    assert_string_equal(e->what, "residual_pct -> straight_line");
    const gp_batch_change *t = find(&d, GP_CHANGE_TOTAL, "x");
    assert_non_null(t);
    assert_string_equal(t->because, "exit value 0 -> 3.74e+06 (residual_pct -> straight_line)");
    assert_string_equal(gp_batch_change_name(GP_CHANGE_EXIT_VALUE), "exit_value");
    gp_batch_diff_done(&d);
    o->exit_basis[0] = '\0';
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_null(find(&d, GP_CHANGE_EXIT_VALUE, "x"));
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* Inputs of scenarios evaluated by diff (no catalog price moved): each input that differs is
 * named with its path, old -> new, the largest relative change first, and they explain the
 * flip; an input a catalog price or a measured figure already names is not repeated; a side
 * without inputs (a summary.json) compares none. */
static void set_inputs(gp_batch_scenario *s, double pue, double spot, double od, double util) {
    static const char *const what[][2] = {{"self_hosted.power.pue", "PUE"},
                                          {"cloud_options[0].hourly", "spot: hourly"},
                                          {"cloud_options[1].hourly", "od: hourly"},
                                          {"demand.utilization", "demand: busy share"}};
    double v[] = {pue, spot, od, util};
    for (int i = 0; i < 4; i++)
        assert_true(gp_batch_scenario_add_input(s, what[i][0], what[i][1], v[i]));
}

static void test_diff_inputs(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    set_inputs(add(&a, "x", 100, 90, 40, 0.5), 1.2, 9.835, 40, 0.5);
    set_inputs(add(&b, "x", 100, 200, 10, 0.6), 1.3, 11, 10, 0.6);
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    /* od's hourly is the catalog price's change. Neither side was measured, so the busy share
     * is an input typed in, named with its path, not a "measured" change. */
    assert_int_equal(count(&d, GP_CHANGE_INPUT), 3);
    assert_int_equal(count(&d, GP_CHANGE_MEASURED), 0);
    const gp_batch_change *in = find(&d, GP_CHANGE_INPUT, "x");
    assert_non_null(in);
    assert_string_equal(in->what, "demand: busy share"); /* +16.7 % */
    assert_string_equal(in->source, "demand.utilization");
    assert_string_equal(in[1].what, "spot: hourly"); /* +10.6 % before PUE's +7.7 % */
    assert_string_equal(in[1].source, "cloud_options[0].hourly");
    assert_close(in[1].old_v, 9.835, REL);
    assert_close(in[1].new_v, 11, REL);
    assert_string_equal(in[2].what, "PUE");
    const gp_batch_change *f = find(&d, GP_CHANGE_FLIP, "x");
    assert_non_null(f);
    assert_string_equal(f->because, "od price 40 -> 10 (cut, 2021-01-01); demand: busy share 0.5 "
                                    "-> 0.6; spot: hourly 9.835 -> 11; PUE 1.2 -> 1.3");
    assert_string_equal(gp_batch_change_name(GP_CHANGE_INPUT), "input");
    gp_buf t;
    gp_buf_init(&t, 1 << 16);
    assert_int_equal(gp_report_batch_diff_text(&d, "A", &t), GP_OK);
    assert_non_null(
        strstr(t.data, "input x: spot: hourly 9.835 -> 11 (cloud_options[0].hourly)\n"));
    gp_buf_done(&t);
    cJSON *tree = gp_report_batch_diff_tree(&d, "A");
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(tree, "changes"), 2);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "kind")), "input");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "path")),
                        "cloud_options[0].hourly");
    cJSON_Delete(tree);
    gp_batch_diff_done(&d);
    gp_batch_summary_drop_inputs(&a); /* as a summary too large to keep them */
    assert_true(a.s[0].n_inputs == 0 && !a.s[0].inputs);
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_int_equal(count(&d, GP_CHANGE_INPUT), 0);
    /* Without the old inputs the busy share is still compared, as a figure. */
    assert_int_equal(count(&d, GP_CHANGE_MEASURED), 1);
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* A price cut that flips the decision: the price change, the total that moved past the
 * threshold, the break-even month that went, and the flip explained by the price. */
static void test_diff_price_flip(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    add(&a, "x", 100, 200, 40, 0.5);
    add(&a, "quiet", 100, 200, 40, 0.5);
    add(&b, "x", 100, 50, 10, 0.5);
    add(&b, "quiet", 100, 200.5, 40, 0.5); /* +0.25 %: under the threshold */
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_int_equal(d.flips, 1);
    assert_int_equal(count(&d, GP_CHANGE_PRICE), 1);
    assert_int_equal(count(&d, GP_CHANGE_MEASURED), 0);
    assert_int_equal(count(&d, GP_CHANGE_TOTAL), 1);
    assert_int_equal(count(&d, GP_CHANGE_BREAK_EVEN), 1);
    const gp_batch_change *p = find(&d, GP_CHANGE_PRICE, "x");
    assert_non_null(p);
    assert_string_equal(p->catalog, "acme/g8/eu-1");
    assert_close(p->old_v, 40, REL);
    assert_close(p->new_v, 10, REL);
    assert_string_equal(p->source, "cut");
    assert_string_equal(p->effective_from, "2021-01-01");
    const gp_batch_change *f = find(&d, GP_CHANGE_FLIP, "x");
    assert_non_null(f);
    assert_string_equal(f->old_s, GP_BATCH_SELF);
    assert_string_equal(f->what, "od");
    assert_string_equal(f->because, "od price 40 -> 10 (cut, 2021-01-01)");
    const gp_batch_change *be = find(&d, GP_CHANGE_BREAK_EVEN, "x");
    assert_true(be->has_old && !be->has_new);
    assert_null(find(&d, GP_CHANGE_TOTAL, "quiet"));
    gp_batch_diff_done(&d);
    /* A lower threshold reports the small move too, and flips nothing more. */
    gp_batch_diff_run(&a, &b, 0.1, &d);
    assert_non_null(find(&d, GP_CHANGE_TOTAL, "quiet"));
    assert_int_equal(d.flips, 1);
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

static void test_diff_measured_added_removed(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    add(&a, "m", 100, 90, 40, 0.5)->measured = true;
    add(&a, "gone", 1, 2, 40, 0.5);
    gp_batch_scenario *m = add(&b, "m", 100, 180, 40, 1.0);
    m->measured = true;
    m->gpu_tdp_w = 325;
    add(&b, "new", 1, 2, 40, 0.5);
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_int_equal(count(&d, GP_CHANGE_MEASURED), 2);
    assert_int_equal(count(&d, GP_CHANGE_PRICE), 0);
    const gp_batch_change *f = find(&d, GP_CHANGE_FLIP, "m");
    assert_non_null(f);
    assert_string_equal(f->because, "measured utilization 0.5 -> 1; measured gpu_tdp_w 400 -> 325");
    assert_non_null(find(&d, GP_CHANGE_ADDED, "new"));
    assert_non_null(find(&d, GP_CHANGE_REMOVED, "gone"));
    assert_int_equal(d.flips, 1);
    gp_batch_diff_done(&d);
    /* Measured on one side only (a plan re-entered by hand): each value says what it is. */
    b.s[0].measured = false;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    f = find(&d, GP_CHANGE_FLIP, "m");
    assert_non_null(f);
    assert_string_equal(f->because, "utilization 0.5 (measured) -> 1 (input); gpu_tdp_w 400 "
                                    "(measured) -> 325 (input)");
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* Two one-scenario summaries compare whatever their names (gpuplan diff a.json b.json). */
static void test_diff_pairs_single_scenarios(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    add(&a, "plan", 100, 200, 40, 0.5);
    add(&b, "plan v2", 100, 50, 40, 0.5);
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_int_equal(d.flips, 1);
    assert_int_equal(count(&d, GP_CHANGE_ADDED) + count(&d, GP_CHANGE_REMOVED), 0);
    /* Nothing the run records as an input moved: the flip says so by an empty because. */
    assert_string_equal(find(&d, GP_CHANGE_FLIP, "plan v2")->because, "");
    b.s[0].version = 2;
    gp_batch_diff_done(&d);
    gp_batch_diff_run(&a, &b, 1.0, &d);
    assert_string_equal(find(&d, GP_CHANGE_FLIP, "plan v2")->because,
                        "other inputs of the scenario (version 1 -> 2)");
    gp_batch_diff_done(&d);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* summary.json as written reads back to the same figures. */
static void test_summary_round_trip(void **state) {
    (void)state;
    gp_batch_summary a = {0}, b = {0};
    snprintf(a.day, sizeof a.day, "2026-11-23");
    snprintf(a.started_at, sizeof a.started_at, "2026-11-23T10:00:00Z");
    snprintf(a.as_of, sizeof a.as_of, "2026-11-23");
    gp_batch_scenario *s = add(&a, "<script>alert(1)</script>", 123.25, 456.5, 40, 0.375);
    s->measured = true;
    s->choices[1].has_cost_per_work_unit = true;
    s->choices[1].cost_per_work_unit = 0.27;
    snprintf(s->work_unit, sizeof s->work_unit, "M tokens");
    snprintf(s->files[0], sizeof s->files[0], "scenarios/0001-x.md");
    snprintf(s->guaranteed_rival, sizeof s->guaranteed_rival, "firm");
    s->has_guaranteed_break_even_month = true;
    s->guaranteed_break_even_month = 14;
    set_inputs(s, 1.2, 9.835, 40, 1.0 / 3);
    cJSON *t = gp_report_batch_summary_tree(&a);
    char *text = cJSON_Print(t);
    gp_err err;
    assert_int_equal(gp_batch_summary_parse(text, strlen(text), "s.json", &b, &err), GP_OK);
    assert_int_equal(b.n, 1);
    assert_string_equal(b.day, "2026-11-23");
    const gp_batch_scenario *r = &b.s[0];
    assert_string_equal(r->name, "<script>alert(1)</script>");
    assert_true(r->measured);
    assert_close(r->utilization, 0.375, REL);
    assert_close(r->choices[1].total, 456.5, REL);
    assert_true(r->choices[1].has_cost_per_work_unit && !r->choices[0].has_cost_per_work_unit);
    assert_close(r->choices[1].cost_per_work_unit, 0.27, REL);
    assert_string_equal(r->work_unit, "M tokens");
    assert_int_equal(r->n_prices, 1);
    assert_string_equal(r->prices[0].source, "list");
    assert_string_equal(r->files[0], "scenarios/0001-x.md");
    assert_string_equal(r->guaranteed, ""); /* written as null */
    assert_string_equal(r->guaranteed_rival, "firm");
    assert_true(r->has_guaranteed_break_even_month);
    assert_int_equal(r->guaranteed_break_even_month, 14);
    /* The inputs come back whole (1/3 to the last bit), so a later run's diff can name them. */
    assert_int_equal(r->n_inputs, 4);
    assert_string_equal(r->inputs[1].path, "cloud_options[0].hourly");
    assert_string_equal(r->inputs[1].label, "spot: hourly");
    assert_true(r->inputs[3].value == 1.0 / 3);
    gp_batch_diff d;
    gp_batch_diff_run(&a, &b, 0.0, &d);
    assert_int_equal(d.n, 0);
    gp_batch_diff_done(&d);
    b.s[0].inputs[0].value = 1.5;
    gp_batch_diff_run(&a, &b, 0.0, &d);
    const gp_batch_change *in = find(&d, GP_CHANGE_INPUT, s->name);
    assert_non_null(in);
    assert_string_equal(in->what, "PUE");
    assert_close(in->new_v, 1.5, REL);
    gp_batch_diff_done(&d);
    free(text);
    cJSON_Delete(t);
    gp_batch_summary_done(&a);
    gp_batch_summary_done(&b);
}

/* summary.json within what a later run reads back: with the inputs where they fit, without
 * them (said) where only that fits, refused where nothing does. */
static void test_summary_text_bound(void **state) {
    (void)state;
    gp_batch_summary a = {0};
    snprintf(a.day, sizeof a.day, "2026-11-23");
    set_inputs(add(&a, "x", 100, 90, 40, 0.5), 1.2, 9.835, 40, 0.5);
    cJSON *tree;
    char *text;
    bool dropped;
    gp_err err;
    assert_int_equal(gp_report_batch_summary_text(&a, 1u << 20, &tree, &text, &dropped, &err),
                     GP_OK);
    assert_false(dropped);
    assert_non_null(strstr(text, "\"inputs\":"));
    size_t whole = strlen(text);
    cJSON_Delete(tree);
    free(text);
    assert_int_equal(gp_report_batch_summary_text(&a, whole - 1, &tree, &text, &dropped, &err),
                     GP_OK);
    assert_true(dropped && a.s[0].n_inputs == 0);
    assert_null(strstr(text, "\"inputs\":"));
    size_t bare = strlen(text);
    assert_true(bare < whole);
    cJSON_Delete(tree);
    free(text);
    assert_int_equal(gp_report_batch_summary_text(&a, bare - 1, &tree, &text, &dropped, &err),
                     GP_E_LIMIT);
    assert_true(tree == NULL && text == NULL);
    assert_non_null(strstr(err.msg, "over the"));
    gp_batch_summary_done(&a);
}

/* Every input of a scenario with the most options fits what a summary reads back. */
static void test_summary_inputs_bound(void **state) {
    (void)state;
    assert_true(gp_n_inputs + GP_MAX_OPTIONS * gp_n_option_inputs <= GP_BATCH_MAX_INPUTS);
}

static void test_summary_errors(void **state) {
    (void)state;
    static const struct {
        const char *json, *where, *msg;
    } cases[] = {
        {"{\"format\": \"x\"}", "s:$.format", "is not a gpuplan batch summary"},
        {"{\"format\": \"gpuplan-batch-summary\", \"day\": \"2026-01-01\", \"scenarios\": "
         "[{\"name\": 3}]}",
         "s:$.scenarios[0].name", "must be a string"},
        {"{\"format\": \"gpuplan-batch-summary\", \"day\": \"2026-01-01\", \"scenarios\": "
         "[{\"name\": \"a\", \"version\": 1, \"currency\": \"USD\", \"horizon_months\": \"x\"}]}",
         "s:$.scenarios[0].horizon_months", "must be a finite number"},
        {"{\"format\": ", "s:1:11", "malformed JSON"},
        {"{\"format\": \"gpuplan-batch-summary\", \"day\": \"2026-01-01\", \"scenarios\": "
         "[{\"name\": \"a\", \"version\": 1, \"currency\": \"USD\", \"horizon_months\": 36, "
         "\"cheapest\": \"a\", \"rival\": \"\", \"gpus\": 1, \"utilization\": 0.5, "
         "\"gpu_idle_w\": 1, \"gpu_tdp_w\": 2, \"choices\": [], \"prices\": [], "
         "\"inputs\": [[\"p\", \"l\", 1], [\"p\", \"l\", \"x\"]]}]}",
         "s:$.scenarios[0].inputs[1]", "must be [path, label, finite number]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_batch_summary sum;
        gp_err err;
        assert_int_equal(
            gp_batch_summary_parse(cases[i].json, strlen(cases[i].json), "s", &sum, &err),
            GP_E_INPUT);
        assert_int_equal(sum.n, 0);
        assert_string_equal(err.where, cases[i].where);
        assert_non_null(strstr(err.msg, cases[i].msg));
    }
}

/* A price change's line in each of its forms (a catalog's price or an API's, first priced or
 * moved) and a measured figure's, as the diff text writes them. */
static void test_diff_text_lines(void **state) {
    (void)state;
    gp_batch_change c[5] = {0};
    for (int i = 0; i < 4; i++) {
        c[i].kind = GP_CHANGE_PRICE;
        snprintf(c[i].scenario, sizeof c[i].scenario, "s");
        snprintf(c[i].what, sizeof c[i].what, "opt");
        snprintf(c[i].source, sizeof c[i].source, "src");
        snprintf(c[i].effective_from, sizeof c[i].effective_from, "2026-01-02");
        c[i].has_old = i % 2;
        c[i].old_v = 40.25;
        c[i].has_new = true;
        c[i].new_v = 10.5;
        if (i >= 2)
            snprintf(c[i].catalog, sizeof c[i].catalog, "acme/g8/eu-1");
    }
    c[4].kind = GP_CHANGE_MEASURED;
    snprintf(c[4].scenario, sizeof c[4].scenario, "s");
    snprintf(c[4].what, sizeof c[4].what, "utilization");
    c[4].has_old = c[4].has_new = true;
    c[4].old_v = 0.61234;
    c[4].new_v = 0.7;
    gp_batch_diff d = {.c = c, .n = 5};
    gp_buf b;
    gp_buf_init(&b, 1 << 16);
    assert_int_equal(gp_report_batch_diff_text(&d, "x", &b), GP_OK);
    assert_string_equal(b.data, "Compared with x: 0 decisions flipped, 5 changes\n"
                                "price s: opt now 10.5 a unit of work (src)\n"
                                "price s: opt 40.25 -> 10.5 a unit of work (src)\n"
                                "price s: opt (acme/g8/eu-1) now priced at 10.5 (src, 2026-01-02)\n"
                                "price s: opt (acme/g8/eu-1) 40.25 -> 10.5 (src, 2026-01-02)\n"
                                "measured s: utilization 0.6123 -> 0.7\n");
    gp_buf_done(&b);
}

static void test_html_escape(void **state) {
    (void)state;
    gp_buf b;
    gp_buf_init(&b, 1 << 16);
    assert_int_equal(gp_html_escape(&b, "<script>alert('x') & \"y\"</script>"), GP_OK);
    assert_string_equal(b.data,
                        "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
    gp_buf_done(&b);
    /* Controls, DEL, C1 and broken UTF-8 become U+FFFD; valid UTF-8 passes. */
    assert_int_equal(gp_html_escape(&b, "a\x1b[31mb\x7f\xc2\x85\xff\xe2\x82\xac\tc"), GP_OK);
    assert_string_equal(b.data, "a\xef\xbf\xbd[31mb\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xe2\x82\xac"
                                "\tc");
    gp_buf_done(&b);
    assert_int_equal(gp_html_escape(&b, NULL), GP_OK);
    assert_int_equal(b.len, 0);
    gp_buf_done(&b);
}

static void test_svg_escapes_data(void **state) {
    (void)state;
    gp_buf b;
    gp_buf_init(&b, 1 << 16);
    double x[] = {0, 1.005, 2}, y[] = {3, NAN, 5};
    assert_int_equal(gp_svg_begin(&b, 100, 50, "cumulative", "a \"label\"", 1), GP_OK);
    assert_int_equal(gp_svg_polyline(&b, x, y, 3, "series s0", "<b>o</b>"), GP_OK);
    assert_int_equal(gp_svg_text(&b, 1, 2, "end", "t", "x<y&z"), GP_OK);
    assert_int_equal(gp_svg_rect(&b, 0, 0, -5, 2, "c", "#fff", "n\"<"), GP_OK);
    assert_int_equal(gp_svg_end(&b), GP_OK);
    assert_null(strstr(b.data, "<b>"));
    assert_null(strstr(b.data, "nan"));
    assert_non_null(strstr(b.data, "data-name=\"&lt;b&gt;o&lt;/b&gt;\""));
    assert_non_null(strstr(b.data, "points=\"0,3 1,0 2,5\""));
    assert_non_null(strstr(b.data, ">x&lt;y&amp;z</text>"));
    assert_non_null(strstr(b.data, "width=\"0\""));
    assert_non_null(strstr(b.data, "<title>n&quot;&lt;</title>"));
    assert_non_null(strstr(b.data, "aria-label=\"a &quot;label&quot;\" data-series=\"1\""));
    gp_buf_done(&b);
    /* A full buffer is an error, not a silent truncation. */
    gp_buf_init(&b, 8);
    assert_int_equal(gp_svg_text(&b, 1, 2, "end", "t", "long enough"), GP_E_LIMIT);
    gp_buf_done(&b);
}

/* The page escapes every name from data and never carries a script or an external URL. */
static void test_page_escapes(void **state) {
    (void)state;
    gp_batch_summary a = {0};
    snprintf(a.day, sizeof a.day, "2026-11-23");
    add(&a, "<script>alert(1)</script>", 100, 200, 40, 0.5);
    cJSON *sum = gp_report_batch_summary_tree(&a);
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddStringToObject(rep, "scenario", "<script>alert(1)</script>");
    cJSON_AddNumberToObject(rep, "horizon_months", 2);
    cJSON *self = cJSON_AddObjectToObject(rep, "self_hosted");
    cJSON_AddItemToObject(self, "monthly", cJSON_CreateDoubleArray((double[]){10, 1, 1}, 3));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "<img src=x onerror=alert(2)>");
    cJSON_AddNumberToObject(o, "break_even_month", 1);
    cJSON_AddItemToObject(o, "monthly", cJSON_CreateDoubleArray((double[]){0, 8, 8}, 3));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rep, "options"), o);
    gp_heat_row heat = {.node = "n<1>"};
    heat.has[3] = true;
    heat.util_pct[3] = 50;
    const cJSON *reports[] = {rep}, *tornados[] = {NULL};
    gp_batch_page pg = {sum, NULL, reports, tornados, NULL, &heat, 1};
    gp_buf b;
    gp_err err;
    gp_buf_init(&b, 1 << 20);
    assert_int_equal(gp_report_batch_html(&pg, &b, &err), GP_OK);
    assert_null(strstr(b.data, "<script"));
    assert_null(strstr(b.data, "<img"));
    assert_null(strstr(b.data, "http"));
    assert_null(strstr(b.data, "n<1>"));
    assert_non_null(strstr(b.data, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(b.data, "data-name=\"&lt;img src=x onerror=alert(2)&gt;\""));
    assert_non_null(strstr(b.data, "class=\"chart cumulative\""));
    assert_non_null(strstr(b.data, "class=\"break-even\""));
    assert_non_null(strstr(b.data, "data-name=\"n&lt;1&gt;\""));
    gp_buf_done(&b);
    /* Too small a buffer: GP_E_LIMIT with index.html named. */
    gp_buf_init(&b, 256);
    assert_int_equal(gp_report_batch_html(&pg, &b, &err), GP_E_LIMIT);
    assert_string_equal(err.where, "index.html");
    gp_buf_done(&b);
    cJSON_Delete(sum);
    cJSON_Delete(rep);
    gp_batch_summary_done(&a);
}

/* Equal totals are a tie, on the page and in summary.json: owning and "od" both at 100, the
 * running sums meeting at month 36, are no win for either; 100 against 200 is a win. */
static void test_page_tie(void **state) {
    (void)state;
    gp_batch_summary a = {0};
    snprintf(a.day, sizeof a.day, "2026-11-23");
    gp_batch_scenario *t = add(&a, "even", 100, 100, 40, 0.5);
    t->has_break_even_month = true;
    t->break_even_month = 36;
    gp_batch_scenario *w = add(&a, "won", 100, 200, 40, 0.5);
    w->has_break_even_month = true;
    w->break_even_month = 20;
    cJSON *sum = gp_report_batch_summary_tree(&a);
    const cJSON *sc = cJSON_GetObjectItem(sum, "scenarios");
    const cJSON *tied = cJSON_GetObjectItem(cJSON_GetArrayItem(sc, 0), "tied_with_cheapest");
    assert_int_equal(cJSON_GetArraySize(tied), 1);
    assert_string_equal(cJSON_GetArrayItem(tied, 0)->valuestring, "od");
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(sc, 1), "tied_with_cheapest")),
        0);
    const cJSON *reports[] = {NULL, NULL}, *tornados[] = {NULL, NULL};
    gp_batch_page pg = {sum, NULL, reports, tornados, NULL, NULL, 0};
    gp_buf b;
    gp_err err;
    gp_buf_init(&b, 1 << 20);
    assert_int_equal(gp_report_batch_html(&pg, &b, &err), GP_OK);
    assert_non_null(strstr(b.data, "<td data-field=\"cheapest\">self_hosted <span "
                                   "class=\"tie\">(a tie with od: equal totals)</span></td>"));
    assert_non_null(strstr(b.data, "data-v=\"36\">36 <span class=\"tie\">(a tie: the totals "
                                   "meet)</span></td>"));
    /* The outright win reads as before. */
    assert_non_null(strstr(b.data, "<td data-field=\"cheapest\">self_hosted</td>"));
    assert_non_null(strstr(b.data, "data-v=\"20\">20</td>"));
    gp_buf_done(&b);
    cJSON_Delete(sum);
    gp_batch_summary_done(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_nothing_moved),
        cmocka_unit_test(test_diff_exit_value),
        cmocka_unit_test(test_diff_price_flip),
        cmocka_unit_test(test_diff_inputs),
        cmocka_unit_test(test_diff_measured_added_removed),
        cmocka_unit_test(test_diff_pairs_single_scenarios),
        cmocka_unit_test(test_summary_round_trip),
        cmocka_unit_test(test_summary_inputs_bound),
        cmocka_unit_test(test_summary_text_bound),
        cmocka_unit_test(test_summary_errors),
        cmocka_unit_test(test_diff_text_lines),
        cmocka_unit_test(test_html_escape),
        cmocka_unit_test(test_svg_escapes_data),
        cmocka_unit_test(test_page_escapes),
        cmocka_unit_test(test_page_tie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
