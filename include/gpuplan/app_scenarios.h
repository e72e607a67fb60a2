/* Stored scenarios by name, as people type them: fetched, removed, saved from a file, listed.
 *
 * Ownership: *json is the caller's (free). Errors: an unknown name is GP_E_INPUT (exit 2: the
 * user's input to fix) naming the nearest stored name when one is close ("did you mean");
 * a scenario file that does not validate is GP_E_INPUT with its file and JSON path; the
 * store's errors as it reports them. */
#ifndef GPUPLAN_APP_SCENARIOS_H
#define GPUPLAN_APP_SCENARIOS_H

#include "gpuplan/app_session.h"
#include "gpuplan/store.h"

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

#endif
