/* Stored scenarios by name (app_scenarios.h): fetch, remove, store a file, save a document,
 * duplicate, rename. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_scenarios.h"
#include "gpuplan/parse.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/xmem.h"

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int take_name(const gp_scenario_info *info, void *arg) {
    names *ns = arg;
    ns->v = gp_xgrow(ns->v, &ns->cap, ns->n, sizeof *ns->v, 16);
    ns->v[ns->n++] = gp_xstrdup(info->name);
    return 0;
}

/* A name the store does not know: the user's input to fix, with the nearest stored name. */
static gp_status unknown(gp_store *st, const char *name, gp_err *err) {
    names ns = {0};
    gp_err ignored;
    gp_store_scenario_list(st, take_name, &ns, &ignored);
    int k = gp_nearest_name(name, (const char *const *)ns.v, (int)ns.n);
    if (k >= 0)
        gp_errorf(err, GP_E_INPUT, name, "no scenario named \"%s\"; did you mean \"%s\"?", name,
                  ns.v[k]);
    else
        gp_errorf(err, GP_E_INPUT, name,
                  "no scenario named \"%s\" (gpuplan scenario list shows them)", name);
    for (size_t i = 0; i < ns.n; i++)
        free(ns.v[i]);
    free(ns.v);
    return GP_E_INPUT;
}

gp_status gp_scenario_list(gp_session *ses, int (*fn)(const gp_scenario_info *, void *), void *arg,
                           gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_scenario_list(st, fn, arg, err);
}

gp_status gp_scenario_versions(gp_session *ses, const char *name,
                               int (*fn)(int version, const char *saved_at, void *), void *arg,
                               gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    return gp_store_scenario_versions(st, name, fn, arg, err);
}

gp_status gp_scenario_fetch(gp_session *ses, const char *name, int version, char **json, int *got,
                            char *saved_at, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    gp_status rc = gp_store_scenario_get(st, name, version, json, got, saved_at, err);
    if (rc == GP_E_NOTFOUND && version == 0)
        return unknown(st, name, err);
    if (rc == GP_E_NOTFOUND) /* a version the scenario does not have: input to fix too */
        rc = err->code = GP_E_INPUT;
    return rc;
}

gp_status gp_scenario_remove(gp_session *ses, const char *name, gp_err *err) {
    gp_store *st;
    if (gp_session_store(ses, &st, err))
        return err->code;
    gp_status rc = gp_store_scenario_rm(st, name, err);
    return rc == GP_E_NOTFOUND ? unknown(st, name, err) : rc;
}

gp_status gp_scenario_store(gp_session *ses, const char *text, size_t len, const char *origin,
                            char *name, int *version, gp_err *err) {
    gp_scenario *s = gp_xmalloc(sizeof *s);
    gp_store *st;
    gp_status rc = gp_scenario_parse(text, len, origin, s, NULL, err);
    if (rc == GP_OK)
        rc = gp_session_store(ses, &st, err);
    if (rc == GP_OK)
        rc = gp_store_scenario_save(st, s->name, text, version, err);
    if (rc == GP_OK)
        snprintf(name, GP_NAME_BYTES, "%s", s->name);
    free(s);
    return rc;
}

/* ---- the TUI's scenario management ------------------------------------------------------ */

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
static gp_status latest(gp_session *ses, const char *name, cJSON **doc, gp_err *err) {
    char *json = NULL;
    *doc = NULL;
    if (gp_scenario_fetch(ses, name, 0, &json, NULL, NULL, err))
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
        latest(s, from, &doc, err))
        return err->code;
    gp_status rc = save_named(st, doc, to, &version, err);
    cJSON_Delete(doc);
    return rc;
}

gp_status gp_scenario_rename(gp_session *s, const char *from, const char *to, int *version,
                             gp_err *err) {
    gp_store *st;
    cJSON *doc = NULL;
    if (check_name(to, err) || gp_session_store(s, &st, err) || latest(s, from, &doc, err))
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
