/* The table of inputs (inputs.h) and the Plan editor's fields built from it
 * (app_plan_fields.h): every key the worked scenarios use has a row whose value function reads
 * it, every row reaches the editor, and a field's value shows and parses as the editor types
 * it. A new input missing from the table fails here. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_plan_fields.h"
#include "gpuplan/inputs.h"
#include "gpuplan/scenario_json.h"
#include "testutil.h"

/* Keys that name or describe a scenario or an option rather than set a number of the model. */
static bool not_an_input(const char *key) {
    static const char *const names[] = {"name",     "currency", "notes",  "catalog",
                                        "instance", "provider", "region", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(key, names[i]))
            return true;
    return false;
}

/* Every leaf of obj under path (an array a leaf: a list) has a row; a number's row reads it. */
static void check_keys(const cJSON *obj, const char *path, const gp_scenario *s, int opt,
                       int *checked) {
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) {
        char key[128];
        snprintf(key, sizeof key, "%s%s%s", path, *path ? "." : "", it->string);
        if (cJSON_IsObject(it)) {
            check_keys(it, key, s, opt, checked);
            continue;
        }
        if (not_an_input(key))
            continue;
        double (*value)(const gp_scenario *) = NULL;
        double (*ovalue)(const gp_option *) = NULL;
        if (opt >= 0) {
            const gp_option_input *oi = gp_option_input_find(key);
            if (!oi)
                fail_msg("option key %s has no row in gp_option_inputs", key);
            ovalue = oi->value;
        } else {
            const gp_input *in = gp_input_find(key);
            if (!in)
                fail_msg("key %s has no row in gp_inputs", key);
            value = in->value;
        }
        (*checked)++;
        if (!cJSON_IsNumber(it) || !(value || ovalue))
            continue;
        double v = value ? value(s) : ovalue(&s->options[opt]);
        if (fabs(v - it->valuedouble) > 1e-9 * fmax(1, fabs(v)))
            fail_msg("%s is %g in the document, its row reads %g", key, it->valuedouble, v);
    }
}

static int check_file(const char *rel) {
    size_t len = 0;
    char *text = test_slurp(rel, &len);
    assert_non_null(text);
    gp_scenario *s = malloc(sizeof *s);
    cJSON *doc = NULL;
    gp_err err;
    int checked = 0;
    assert_non_null(s);
    if (gp_scenario_parse(text, len, rel, s, &doc, &err) == GP_OK) {
        const cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
        cJSON *rest = cJSON_Duplicate(doc, true);
        cJSON_DeleteItemFromObjectCaseSensitive(rest, "cloud_options");
        check_keys(rest, "", s, -1, &checked);
        for (int i = 0; i < cJSON_GetArraySize(opts); i++)
            check_keys(cJSON_GetArrayItem(opts, i), "", s, i, &checked);
        cJSON_Delete(rest);
    }
    cJSON_Delete(doc);
    free(s);
    free(text);
    return checked;
}

/* The worked examples and the scenarios that pin rules of their own: every key has a row. */
static void test_every_key_has_a_row(void **state) {
    (void)state;
    static const char *const dirs[] = {"tests/fixtures/examples", "tests/fixtures/scenarios",
                                       "scenarios"};
    int files = 0, keys = 0;
    for (int d = 0; d < 3; d++) {
        char abs[1024];
        snprintf(abs, sizeof abs, "%s/%s", getenv("GP_SOURCE_ROOT"), dirs[d]);
        DIR *dir = opendir(abs);
        assert_non_null(dir);
        for (struct dirent *e; (e = readdir(dir));) {
            size_t n = strlen(e->d_name);
            if (n < 6 || strcmp(e->d_name + n - 5, ".json") || strstr(e->d_name, ".expected."))
                continue;
            char rel[512];
            snprintf(rel, sizeof rel, "%s/%s", dirs[d], e->d_name);
            int k = check_file(rel);
            files += k > 0;
            keys += k;
        }
        closedir(dir);
    }
    /* Those that parse without a catalog: most of them, and many keys each. */
    assert_true(files >= 20);
    assert_true(keys >= 500);
}

/* A scenario document parsed, resolved, and its fields. */
typedef struct plan {
    cJSON *doc;
    gp_scenario s;
    gp_plan_field *f;
    int n;
} plan;

static plan *open_doc(const char *json) {
    plan *p = calloc(1, sizeof *p);
    gp_err err;
    assert_non_null(p);
    if (gp_scenario_parse(json, strlen(json), "test", &p->s, &p->doc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    p->f = gp_plan_fields(p->doc, &p->s, &p->n);
    return p;
}

static void close_doc(plan *p) {
    cJSON_Delete(p->doc);
    free(p->f);
    free(p);
}

static const gp_plan_field *field_at(const plan *p, const char *path) {
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->f[i].path, path))
            return &p->f[i];
    return NULL;
}

#define GPU_LOAN                                                                                   \
    "{\"name\":\"t\",\"horizon_months\":24,\"demand\":{\"gpus\":16,\"utilization\":0.6},"          \
    "\"self_hosted\":{\"server_price\":200000,\"max_servers\":4,\"financing\":{\"kind\":\"loan\"," \
    "\"apr\":0.07,\"term_months\":24}},\"cloud_options\":[{\"name\":\"c\",\"pricing\":"            \
    "\"committed\",\"gpus_per_instance\":8,\"hourly\":10,\"upfront\":1000,\"term_months\":12,"     \
    "\"base_gpus\":8,\"burst\":\"s\"},{\"name\":\"s\",\"pricing\":\"spot\","                       \
    "\"gpus_per_instance\":8,\"hourly\":5}]}"
#define WORK_API                                                                                   \
    "{\"name\":\"w\",\"horizon_months\":12,\"demand\":{\"work_per_month\":1e9,\"work_unit\":"      \
    "\"token\",\"utilization\":0.5},\"self_hosted\":{\"server_price\":200000,"                     \
    "\"work_per_gpu_hour\":1e6},\"cloud_options\":[{\"name\":\"api\",\"pricing\":\"per_unit\","    \
    "\"price_per_unit\":2e-6}]}"

/* Every row the editor shows in a scenario of its shape is a field, at its key. */
static void test_every_row_is_a_field(void **state) {
    (void)state;
    const char *docs[] = {GPU_LOAN, WORK_API};
    int rows = 0;
    for (int d = 0; d < 2; d++) {
        plan *p = open_doc(docs[d]);
        for (int i = 0; i < gp_n_inputs; i++) {
            const gp_input *in = &gp_inputs[i];
            if (!in->edit_label || !gp_input_shows(in, in->edit_when, &p->s))
                continue;
            if (!field_at(p, in->key))
                fail_msg("row %s is no field of the editor", in->key);
            rows++;
        }
        for (int k = 0; k < p->s.n_options; k++)
            for (int i = 0; i < gp_n_option_inputs; i++) {
                const gp_option_input *oi = &gp_option_inputs[i];
                if (!gp_option_input_shows(oi, oi->edit_pricings, oi->edit_when, &p->s,
                                           &p->s.options[k], false))
                    continue;
                char path[96];
                snprintf(path, sizeof path, "cloud_options[%d].%s", k, oi->key);
                if (!field_at(p, path))
                    fail_msg("option row %s is no field of the editor", path);
                rows++;
            }
        close_doc(p);
    }
    assert_true(rows > 60);
}

/* Values as the editor shows them, its choices, and typed values as items. */
static void test_values(void **state) {
    (void)state;
    plan *p = open_doc(GPU_LOAN);
    char out[128];
    const gp_plan_field *f = field_at(p, "demand.utilization");
    assert_non_null(f);
    gp_plan_field_text(f, p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "0.6");
    gp_plan_field_text(field_at(p, "horizon_months"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "24");
    /* a default, read from the resolved scenario */
    gp_plan_field_text(field_at(p, "self_hosted.gpus_per_server"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "8");
    /* an optional key: what its absence means, else the document's */
    gp_plan_field_text(field_at(p, "self_hosted.power.gpu_avg_w"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "none");
    gp_plan_field_text(field_at(p, "self_hosted.max_servers"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "4");
    gp_plan_field_text(field_at(p, "self_hosted.financing.kind"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "loan");
    gp_plan_field_text(field_at(p, "cloud_options[1].hourly"), p->doc, &p->s, out, sizeof out);
    assert_string_equal(out, "5");
    /* spot's fields, not committed's; a committed base's burst */
    assert_non_null(field_at(p, "cloud_options[1].interruptions_per_hour"));
    assert_null(field_at(p, "cloud_options[1].term_months"));
    assert_null(field_at(p, "cloud_options[0].idle_overhead"));
    const gp_plan_field *burst = field_at(p, "cloud_options[0].burst");
    assert_non_null(burst);
    const char *ch[8];
    assert_int_equal(gp_plan_field_choices(burst, p->doc, &p->s, ch, 8), 2);
    assert_null(ch[0]);
    assert_string_equal(ch[1], "s");
    assert_int_equal(gp_plan_field_choice_now(burst, p->doc, &p->s), 1);
    /* typed values */
    cJSON *item = NULL;
    gp_err err;
    assert_int_equal(gp_plan_field_item(f, "70%", &item, &err), GP_OK);
    assert_true(fabs(item->valuedouble - 0.7) < 1e-12);
    cJSON_Delete(item);
    assert_int_equal(gp_plan_field_item(field_at(p, "horizon_months"), "1.5", &item, &err),
                     GP_E_INPUT);
    assert_null(item);
    assert_int_equal(gp_plan_field_item(field_at(p, "self_hosted.max_servers"), "", &item, &err),
                     GP_OK);
    assert_null(item); /* removed: no cap */
    const gp_plan_field *shift = field_at(p, "self_hosted.tariff.shift_to_cheapest");
    assert_int_equal(gp_plan_field_item(shift, "yes", &item, &err), GP_OK);
    assert_true(cJSON_IsTrue(item));
    cJSON_Delete(item);
    close_doc(p);
}

/* A list's row added after the last, valid where it can be. */
static void test_list_add(void **state) {
    (void)state;
    plan *p = open_doc(GPU_LOAN);
    int added = 0;
    const char *what = NULL;
    gp_err err;
    assert_int_equal(gp_plan_list_add(p->doc, "demand.steps", false, &added, &what, &err), GP_OK);
    assert_int_equal(gp_plan_list_add(p->doc, "demand.steps", false, &added, &what, &err), GP_OK);
    assert_int_equal(added, 2);
    assert_string_equal(what, "step");
    const cJSON *m = gp_json_path_get(p->doc, "demand.steps[1].month");
    assert_true(cJSON_IsNumber(m) && m->valuedouble == 3);
    const cJSON *g = gp_json_path_get(p->doc, "demand.steps[1].gpus");
    assert_true(cJSON_IsNumber(g) && g->valuedouble == 16);
    assert_int_equal(gp_plan_list_add(p->doc, "demand", false, &added, &what, &err), GP_E_INPUT);
    close_doc(p);
}

/* A value put in: a key set or removed, a tariff period's with the default tariff written in
 * first, a change of shape (financing in cash), a path that leads nowhere refused. */
static void test_apply(void **state) {
    (void)state;
    plan *p = open_doc(GPU_LOAN);
    gp_err err;
    cJSON *item = cJSON_CreateNumber(0.75);
    assert_int_equal(gp_plan_field_apply(NULL, p->doc, field_at(p, "demand.utilization"), &p->s,
                                         item, "2026-01-01", &err),
                     GP_OK);
    assert_true(gp_json_path_get(p->doc, "demand.utilization")->valuedouble == 0.75);
    assert_int_equal(gp_plan_field_apply(NULL, p->doc, field_at(p, "self_hosted.max_servers"),
                                         &p->s, NULL, "2026-01-01", &err),
                     GP_OK);
    assert_null(gp_json_path_get(p->doc, "self_hosted.max_servers"));
    /* no tariff in the document: the flat one the scenario shows is written, then the price */
    const gp_plan_field *price = field_at(p, "self_hosted.tariff.periods[0].price_per_kwh");
    assert_non_null(price);
    assert_int_equal(gp_plan_field_apply(NULL, p->doc, price, &p->s, cJSON_CreateNumber(0.2),
                                         "2026-01-01", &err),
                     GP_OK);
    assert_true(gp_json_path_get(p->doc, price->path)->valuedouble == 0.2);
    const cJSON *hours = gp_json_path_get(p->doc, "self_hosted.tariff.periods[0].hours_per_day");
    assert_true(cJSON_IsNumber(hours) && hours->valuedouble == 24);
    /* the loan undone: its terms go with it */
    assert_int_equal(gp_plan_field_apply(NULL, p->doc, field_at(p, "self_hosted.financing.kind"),
                                         &p->s, cJSON_CreateString("cash"), "2026-01-01", &err),
                     GP_OK);
    assert_null(gp_json_path_get(p->doc, "self_hosted.financing.apr"));
    gp_plan_field nowhere = *field_at(p, "demand.utilization");
    snprintf(nowhere.path, sizeof nowhere.path, "demand.steps[3].month");
    assert_int_equal(gp_plan_field_apply(NULL, p->doc, &nowhere, &p->s, cJSON_CreateNumber(2),
                                         "2026-01-01", &err),
                     GP_E_INPUT);
    assert_string_equal(err.msg, "cannot set demand.steps[3].month");
    close_doc(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_has_a_row),
        cmocka_unit_test(test_every_row_is_a_field),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_list_add),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
