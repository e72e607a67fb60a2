/* Stored scenarios: save, duplicate, rename, delete (app_scenarios.h). */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_scenarios.h"
#include "gpuplan/scenario.h"

static gp_status check_name(const char *name, gp_err *err) {
    if (!name || !*name)
        return gp_errorf(err, GP_E_INPUT, "scenario", "a scenario needs a name");
    if (strlen(name) >= GP_NAME_BYTES)
        return gp_errorf(err, GP_E_INPUT, "scenario", "a name has at most %d bytes",
                         GP_NAME_BYTES - 1);
    return GP_OK;
}

/* GP_E_INPUT when name is in use, GP_OK when it is free. */
static gp_status check_free(gp_store *st, const char *name, gp_err *err) {
    char *json = NULL;
    gp_err probe;
    gp_status rc = gp_store_scenario_get(st, name, 0, &json, NULL, NULL, &probe);
    free(json);
    if (rc == GP_OK)
        return gp_errorf(err, GP_E_INPUT, name, "a scenario named \"%s\" exists", name);
    if (rc != GP_E_NOTFOUND) {
        *err = probe;
        return err->code;
    }
    return GP_OK;
}

static gp_status save_named(gp_store *st, const cJSON *doc, const char *name, int *version,
                            gp_err *err) {
    cJSON *copy = cJSON_Duplicate(doc, true);
    if (!copy)
        return gp_errorf(err, GP_E_LIMIT, name, "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "name");
    cJSON_AddStringToObject(copy, "name", name);
    char *json = cJSON_Print(copy);
    cJSON_Delete(copy);
    if (!json)
        return gp_errorf(err, GP_E_LIMIT, name, "out of memory");
    gp_status rc = gp_store_scenario_save(st, name, json, version, err);
    free(json);
    return rc;
}

/* The latest version of name, parsed. */
static gp_status latest(gp_store *st, const char *name, cJSON **doc, gp_err *err) {
    char *json = NULL;
    *doc = NULL;
    if (gp_store_scenario_get(st, name, 0, &json, NULL, NULL, err))
        return err->code;
    *doc = cJSON_Parse(json);
    free(json);
    if (!*doc)
        return gp_errorf(err, GP_E_INPUT, name, "stored scenario \"%s\" is not JSON", name);
    return GP_OK;
}

gp_status gp_scenario_save_doc(gp_session *s, const cJSON *doc, const char *name, bool create,
                               int *version, gp_err *err) {
    gp_store *st;
    if (check_name(name, err) || gp_session_store(s, &st, err) ||
        (create && check_free(st, name, err)))
        return err->code;
    return save_named(st, doc, name, version, err);
}

gp_status gp_scenario_duplicate(gp_session *s, const char *from, const char *to, gp_err *err) {
    gp_store *st;
    cJSON *doc = NULL;
    int version;
    if (check_name(to, err) || gp_session_store(s, &st, err) || check_free(st, to, err) ||
        latest(st, from, &doc, err))
        return err->code;
    gp_status rc = save_named(st, doc, to, &version, err);
    cJSON_Delete(doc);
    return rc;
}

gp_status gp_scenario_rename(gp_session *s, const char *from, const char *to, int *version,
                             gp_err *err) {
    gp_store *st;
    cJSON *doc = NULL;
    if (check_name(to, err) || gp_session_store(s, &st, err) || latest(st, from, &doc, err))
        return err->code;
    gp_status rc = gp_store_scenario_rename(st, from, to, err);
    if (rc == GP_OK) {
        rc = save_named(st, doc, to, version, err);
        if (rc) { /* put the name back: nothing changed */
            gp_err undo;
            gp_store_scenario_rename(st, to, from, &undo);
        }
    }
    cJSON_Delete(doc);
    return rc;
}

gp_status gp_scenario_delete(gp_session *s, const char *name, gp_err *err) {
    gp_store *st;
    if (gp_session_store(s, &st, err))
        return err->code;
    return gp_store_scenario_rm(st, name, err);
}
