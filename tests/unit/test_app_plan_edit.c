/* The Plan editor's model (app_plan_edit.h), driven as the TUI drives it, on a real stored
 * scenario (tests/fixtures/examples/minimal-idle-tie.json) in a fresh database. */
#define _GNU_SOURCE /* nftw (session_fixture.h) */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_scenarios.h"
#include "testutil.h"

#include "session_fixture.h"

#define AS_OF "2027-01-01"

/* The fixture stored as "plan" and opened for editing. */
static gp_plan_edit *open_plan(gp_session *s) {
    size_t len;
    char *text = test_slurp("tests/fixtures/examples/minimal-idle-tie.json", &len);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    gp_err err;
    int v = 0;
    assert_int_equal(gp_scenario_save_doc(s, doc, "plan", true, &v, &err), GP_OK);
    cJSON_Delete(doc);
    gp_plan_edit *pe = NULL;
    assert_int_equal(gp_plan_edit_open(s, "plan", AS_OF, &pe, &err), GP_OK);
    return pe;
}

static double num(const gp_plan_edit *pe, const char *path) {
    const cJSON *v = gp_json_path_get(gp_plan_edit_doc(pe), path);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* The latest stored JSON of name, parsed. */
static cJSON *stored(gp_session *s, const char *name, int *version) {
    char *json = NULL;
    gp_err err;
    assert_int_equal(gp_scenario_fetch(s, name, 0, &json, version, NULL, &err), GP_OK);
    cJSON *doc = cJSON_Parse(json);
    free(json);
    assert_non_null(doc);
    return doc;
}

static void test_paths(void **state) {
    (void)state;
    cJSON *doc = cJSON_Parse("{\"a\": {\"b\": [{\"c\": 1}, {\"c\": 2}]}, \"s\": \"x\"}");
    assert_int_equal(gp_json_path_get(doc, "a.b[1].c")->valuedouble, 2);
    assert_null(gp_json_path_get(doc, "a.b[2].c"));
    assert_null(gp_json_path_get(doc, "a.b[x].c"));
    assert_null(gp_json_path_get(doc, "s[0]"));
    /* Objects are made on the way; elements are not; a string is no object to go through. */
    assert_true(gp_json_path_set(doc, "n.m", cJSON_CreateNumber(3)));
    assert_int_equal(gp_json_path_get(doc, "n.m")->valuedouble, 3);
    assert_true(gp_json_path_set(doc, "a.b[0].c", cJSON_CreateNumber(9)));
    assert_int_equal(gp_json_path_get(doc, "a.b[0].c")->valuedouble, 9);
    assert_false(gp_json_path_set(doc, "a.b[5].c", cJSON_CreateNumber(1)));
    assert_false(gp_json_path_set(doc, "s.t", cJSON_CreateNumber(1)));
    assert_true(gp_json_path_set(doc, "n.m", NULL));
    assert_null(gp_json_path_get(doc, "n.m"));
    assert_true(gp_json_path_set(doc, "no.such", NULL)); /* nothing to remove: done */
    cJSON_Delete(doc);
}

static void test_parse(void **state) {
    (void)state;
    cJSON *item;
    gp_err err;
    assert_int_equal(gp_plan_edit_parse("70%", GP_EDIT_NUMBER, false, &item, &err), GP_OK);
    assert_close(item->valuedouble, 0.7, REL);
    cJSON_Delete(item);
    assert_int_equal(gp_plan_edit_parse("-5%", GP_EDIT_NUMBER, false, &item, &err), GP_OK);
    assert_close(item->valuedouble, -0.05, REL);
    cJSON_Delete(item);
    assert_int_equal(gp_plan_edit_parse("1e3", GP_EDIT_INTEGER, false, &item, &err), GP_OK);
    assert_int_equal(item->valuedouble, 1000);
    cJSON_Delete(item);
    assert_int_equal(gp_plan_edit_parse("2.5", GP_EDIT_INTEGER, false, &item, &err), GP_E_INPUT);
    assert_null(item);
    assert_string_equal(err.msg, "a whole number is needed");
    assert_int_equal(gp_plan_edit_parse("0.5x", GP_EDIT_NUMBER, false, &item, &err), GP_E_INPUT);
    assert_string_equal(err.msg, "\"0.5x\" is not a number");
    assert_int_equal(gp_plan_edit_parse("x%", GP_EDIT_NUMBER, false, &item, &err), GP_E_INPUT);
    assert_string_equal(err.msg, "\"x%\" is not a percentage");
    /* Empty: the key removed where the field is optional, else not a number. */
    assert_int_equal(gp_plan_edit_parse("", GP_EDIT_NUMBER, true, &item, &err), GP_OK);
    assert_null(item);
    assert_int_equal(gp_plan_edit_parse("", GP_EDIT_NUMBER, false, &item, &err), GP_E_INPUT);
    assert_int_equal(gp_plan_edit_parse("2027-03-01", GP_EDIT_TEXT, false, &item, &err), GP_OK);
    assert_string_equal(item->valuestring, "2027-03-01");
    cJSON_Delete(item);
}

static void test_set_undo_redo(void **state) {
    fixture *f = *state;
    gp_err err;
    gp_plan_edit *pe = open_plan(&f->ses);
    assert_false(gp_plan_edit_dirty(pe));
    assert_false(gp_plan_edit_can_undo(pe));

    /* A valid value is taken; the same value again is no change. */
    assert_int_equal(gp_plan_edit_set(pe, "demand.utilization", cJSON_CreateNumber(0.5),
                                      GP_EDIT_EVALUATES, &err),
                     GP_OK);
    assert_close(num(pe, "demand.utilization"), 0.5, REL);
    assert_true(gp_plan_edit_dirty(pe));
    assert_int_equal(gp_plan_edit_set(pe, "demand.utilization", cJSON_CreateNumber(0.5),
                                      GP_EDIT_EVALUATES, &err),
                     GP_OK);

    /* Refused by the scenario's validation: its JSON path, the document as it was. */
    assert_int_equal(
        gp_plan_edit_set(pe, "demand.utilization", cJSON_CreateNumber(7), GP_EDIT_EVALUATES, &err),
        GP_E_INPUT);
    assert_string_equal(err.where, "$.demand.utilization");
    assert_close(num(pe, "demand.utilization"), 0.5, REL);

    /* A lead time with no bridge validates but the engine refuses it: a field's value must
     * evaluate, a change of shape need only validate. */
    assert_int_equal(gp_plan_edit_set(pe, "self_hosted.lead_time_months", cJSON_CreateNumber(2),
                                      GP_EDIT_EVALUATES, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "$.self_hosted.bridge");
    assert_null(gp_json_path_get(gp_plan_edit_doc(pe), "self_hosted.lead_time_months"));
    assert_int_equal(gp_plan_edit_set(pe, "self_hosted.lead_time_months", cJSON_CreateNumber(2),
                                      GP_EDIT_VALIDATES, &err),
                     GP_OK);
    assert_close(num(pe, "self_hosted.lead_time_months"), 2, REL);

    /* An optional key removed (NULL), then every step undone and redone. */
    assert_int_equal(
        gp_plan_edit_set(pe, "self_hosted.lead_time_months", NULL, GP_EDIT_EVALUATES, &err), GP_OK);
    assert_null(gp_json_path_get(gp_plan_edit_doc(pe), "self_hosted.lead_time_months"));
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_close(num(pe, "self_hosted.lead_time_months"), 2, REL);
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_close(num(pe, "demand.utilization"), 0.0, REL);
    assert_false(gp_plan_edit_dirty(pe)); /* back to the document opened */
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_E_INPUT);
    assert_string_equal(err.msg, "nothing to undo");
    assert_int_equal(gp_plan_edit_redo(pe, &err), GP_OK);
    assert_close(num(pe, "demand.utilization"), 0.5, REL);
    assert_true(gp_plan_edit_dirty(pe));
    /* A change after an undo drops what could be redone. */
    assert_true(gp_plan_edit_can_redo(pe));
    assert_int_equal(
        gp_plan_edit_set(pe, "horizon_months", cJSON_CreateNumber(12), GP_EDIT_EVALUATES, &err),
        GP_OK);
    assert_false(gp_plan_edit_can_redo(pe));
    assert_int_equal(gp_plan_edit_redo(pe, &err), GP_E_INPUT);

    /* A whole document replaced, refused: taken and freed, the document unchanged. */
    cJSON *copy = gp_plan_edit_copy(pe);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "self_hosted");
    assert_int_equal(gp_plan_edit_replace(pe, copy, GP_EDIT_VALIDATES, &err), GP_E_INPUT);
    assert_non_null(gp_json_path_get(gp_plan_edit_doc(pe), "self_hosted.server_price"));
    gp_plan_edit_free(pe);
}

static void test_save_rename(void **state) {
    fixture *f = *state;
    gp_session *s = &f->ses;
    gp_err err;
    int v = 0;
    gp_plan_edit *pe = open_plan(s);
    assert_int_equal(gp_plan_edit_version(pe), 1);
    assert_int_equal(
        gp_plan_edit_set(pe, "horizon_months", cJSON_CreateNumber(24), GP_EDIT_EVALUATES, &err),
        GP_OK);

    /* Save: version 2 stored, clean; undoing past the save makes it dirty again, and a change
     * then leaves the saved state out of reach. */
    assert_int_equal(gp_plan_edit_save(pe, NULL, &err), GP_OK);
    assert_int_equal(gp_plan_edit_version(pe), 2);
    assert_false(gp_plan_edit_dirty(pe));
    cJSON *doc = stored(s, "plan", &v);
    assert_int_equal(v, 2);
    assert_int_equal(gp_json_path_get(doc, "horizon_months")->valuedouble, 24);
    cJSON_Delete(doc);
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_true(gp_plan_edit_dirty(pe));
    assert_int_equal(gp_plan_edit_redo(pe, &err), GP_OK);
    assert_false(gp_plan_edit_dirty(pe));
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_int_equal(
        gp_plan_edit_set(pe, "horizon_months", cJSON_CreateNumber(36), GP_EDIT_EVALUATES, &err),
        GP_OK);
    assert_int_equal(gp_plan_edit_undo(pe, &err), GP_OK);
    assert_true(gp_plan_edit_dirty(pe)); /* 6 months again, not what was saved */

    /* Save as: refused over another name; else version 1 of the new name, history cleared. */
    assert_int_equal(gp_plan_edit_save(pe, "plan", &err), GP_E_INPUT);
    assert_int_equal(gp_plan_edit_save(pe, "plan b", &err), GP_OK);
    assert_string_equal(gp_plan_edit_name(pe), "plan b");
    assert_int_equal(gp_plan_edit_version(pe), 1);
    assert_false(gp_plan_edit_dirty(pe));
    assert_false(gp_plan_edit_can_undo(pe));
    assert_string_equal(cJSON_GetStringValue(gp_json_path_get(gp_plan_edit_doc(pe), "name")),
                        "plan b");

    /* Rename with an edit pending: the history moves, the edit stays (dirty as before). */
    assert_int_equal(
        gp_plan_edit_set(pe, "horizon_months", cJSON_CreateNumber(48), GP_EDIT_EVALUATES, &err),
        GP_OK);
    assert_int_equal(gp_plan_edit_rename(pe, "plan", &err), GP_E_INPUT); /* in use */
    assert_int_equal(gp_plan_edit_rename(pe, "plan c", &err), GP_OK);
    assert_string_equal(gp_plan_edit_name(pe), "plan c");
    assert_int_equal(gp_plan_edit_version(pe), 2);
    assert_true(gp_plan_edit_dirty(pe));
    assert_int_equal(num(pe, "horizon_months"), 48);
    doc = stored(s, "plan c", &v);
    assert_string_equal(cJSON_GetStringValue(gp_json_path_get(doc, "name")), "plan c");
    assert_int_equal(gp_json_path_get(doc, "horizon_months")->valuedouble, 6);
    cJSON_Delete(doc);
    gp_plan_edit_free(pe);

    /* An unknown name does not open. */
    assert_int_not_equal(gp_plan_edit_open(s, "nothing", AS_OF, &pe, &err), GP_OK);
    assert_null(pe);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_parse),
        cmocka_unit_test_setup_teardown(test_set_undo_redo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_rename, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
