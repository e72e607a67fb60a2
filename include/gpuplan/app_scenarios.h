/* Stored scenarios by name, as people type them: fetched, removed, saved from a file or from
 * a document (the TUI), listed, duplicated and renamed. The name inside a saved JSON follows
 * the stored name, so `gpuplan report NAME` and the TUI show the same one.
 *
 * Ownership: *json is the caller's (free); other arguments are borrowed for the call.
 * Errors: an unknown name is GP_E_INPUT (exit 2: the user's input to fix) naming the nearest
 * stored name when one is close ("did you mean"); so are an empty name and one already in
 * use where a new one is needed; a scenario file that does not validate is GP_E_INPUT with
 * its file and JSON path; the store's errors as it reports them. Nothing changes on failure. */
#ifndef GPUPLAN_APP_SCENARIOS_H
#define GPUPLAN_APP_SCENARIOS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"
#include "gpuplan/store.h"

/* Every stored scenario, by name (gp_store_scenario_list: fn's info is borrowed for the call,
 * nonzero from fn stops the walk). */
gp_status gp_scenario_list(gp_session *s, int (*fn)(const gp_scenario_info *, void *), void *arg,
                           gp_err *err);
/* Each saved version of name, oldest first (GP_E_NOTFOUND when none). */
gp_status gp_scenario_versions(gp_session *s, const char *name,
                               int (*fn)(int version, const char *saved_at, void *), void *arg,
                               gp_err *err);

/* The JSON of version (0: the latest) of the scenario name, the version fetched and when it
 * was saved (saved_at: 21 bytes, or NULL). */
gp_status gp_scenario_fetch(gp_session *s, const char *name, int version, char **json, int *got,
                            char *saved_at, gp_err *err);
/* Remove the scenario name and all its versions. */
gp_status gp_scenario_remove(gp_session *s, const char *name, gp_err *err);
/* Validate text (the scenario JSON read from origin) and store it as the next version of the
 * scenario it names; name (GP_NAME_BYTES) and *version say what was saved. */
gp_status gp_scenario_store(gp_session *s, const char *text, size_t len, const char *origin,
                            char *name, int *version, gp_err *err);

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

#endif
