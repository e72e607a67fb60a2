/* Stored scenarios by name (app_scenarios.h). */
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
