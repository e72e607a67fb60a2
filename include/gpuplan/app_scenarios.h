/* Stored scenarios as a user manages them (the TUI's Plan tab): save a document under a
 * name, duplicate, rename and delete. The name inside the JSON always follows the stored
 * name, so `gpuplan report NAME` and the TUI show the same one.
 *
 * Ownership: every argument is borrowed for the call. Errors: GP_E_INPUT for an empty name
 * or one already in use where a new one is needed; GP_E_NOTFOUND for an unknown scenario;
 * store errors as the store reports them. Nothing is changed on failure. */
#ifndef GPUPLAN_APP_SCENARIOS_H
#define GPUPLAN_APP_SCENARIOS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"

/* Save doc (copied, its "name" set to name) as the next version of name; with create, refuse
 * a name already in use. *version gets the version saved. */
gp_status gp_scenario_save_doc(gp_session *s, const cJSON *doc, const char *name, bool create,
                               int *version, gp_err *err);
/* A new scenario `to` whose version 1 is the latest version of `from`. */
gp_status gp_scenario_duplicate(gp_session *s, const char *from, const char *to, gp_err *err);
/* `from` and its history become `to`; a new version records the new name in the JSON.
 * *version gets it. */
gp_status gp_scenario_rename(gp_session *s, const char *from, const char *to, int *version,
                             gp_err *err);
/* Delete a scenario and every version of it. */
gp_status gp_scenario_delete(gp_session *s, const char *name, gp_err *err);

#endif
