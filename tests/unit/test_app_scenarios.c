/* The scenario management services of the TUI (app_scenarios.h), called as it calls them. */
#define _GNU_SOURCE /* nftw (session_fixture.h) */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_scenarios.h"
#include "testutil.h"

#include "session_fixture.h"

/* The "name" inside the latest stored JSON of name. */
static char *stored_name(gp_session *s, const char *name, int *version) {
    gp_store *st;
    gp_err err;
    char *json = NULL;
    assert_int_equal(gp_session_store(s, &st, &err), GP_OK);
    if (gp_store_scenario_get(st, name, 0, &json, version, NULL, &err))
        return NULL;
    cJSON *doc = cJSON_Parse(json);
    free(json);
    assert_non_null(doc);
    char *inner = strdup(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "name")));
    cJSON_Delete(doc);
    return inner;
}

static void test_save_duplicate_rename_delete(void **state) {
    fixture *f = *state;
    gp_session *s = &f->ses;
    gp_err err;
    cJSON *doc = cJSON_Parse("{\"name\": \"whatever\", \"horizon_months\": 12}");
    int v = 0;

    /* A new plan is saved under its name, and a second one of that name is refused. */
    assert_int_equal(gp_scenario_save_doc(s, doc, "plan", true, &v, &err), GP_OK);
    assert_int_equal(v, 1);
    assert_int_equal(gp_scenario_save_doc(s, doc, "plan", true, &v, &err), GP_E_INPUT);
    assert_int_equal(gp_scenario_save_doc(s, doc, "plan", false, &v, &err), GP_OK);
    assert_int_equal(v, 2);
    assert_int_equal(gp_scenario_save_doc(s, doc, "", true, &v, &err), GP_E_INPUT);
    char *inner = stored_name(s, "plan", &v);
    assert_string_equal(inner, "plan");
    free(inner);

    /* Duplicate: version 1 of the copy, named inside too; never over another scenario. */
    assert_int_equal(gp_scenario_duplicate(s, "plan", "plan copy", &err), GP_OK);
    inner = stored_name(s, "plan copy", &v);
    assert_string_equal(inner, "plan copy");
    assert_int_equal(v, 1);
    free(inner);
    assert_int_equal(gp_scenario_duplicate(s, "plan", "plan copy", &err), GP_E_INPUT);
    assert_int_equal(gp_scenario_duplicate(s, "nothing", "x", &err), GP_E_INPUT);

    /* Rename: the history moves and a new version carries the new name. */
    assert_int_equal(gp_scenario_rename(s, "plan", "budget 2027", &v, &err), GP_OK);
    assert_int_equal(v, 3);
    inner = stored_name(s, "budget 2027", &v);
    assert_string_equal(inner, "budget 2027");
    free(inner);
    assert_null(stored_name(s, "plan", &v));
    assert_int_equal(gp_scenario_rename(s, "budget 2027", "plan copy", &v, &err), GP_E_INPUT);
    inner = stored_name(s, "budget 2027", &v);
    assert_int_equal(v, 3);
    free(inner);

    /* Remove. */
    assert_int_equal(gp_scenario_remove(s, "plan copy", &err), GP_OK);
    assert_null(stored_name(s, "plan copy", &v));
    assert_int_equal(gp_scenario_remove(s, "plan copy", &err), GP_E_INPUT);

    cJSON_Delete(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_save_duplicate_rename_delete, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
