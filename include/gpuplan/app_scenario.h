/* Scenarios as a user names them: a JSON file, "-", a stored name (any version), the demo,
 * or a document being edited; loaded, validated, catalog references resolved as of a date
 * (docs/model.md "Catalog references"), and evaluated.
 *
 * Ownership: a gp_loaded owns its scenario struct and JSON tree; free with gp_loaded_done
 * (safe on a zeroed or already freed one). Errors: GP_E_INPUT with the origin and JSON path
 * for a bad scenario or an unknown catalog entry; GP_E_NOTFOUND for an unknown stored name;
 * store errors as the store reports them. */
#ifndef GPUPLAN_APP_SCENARIO_H
#define GPUPLAN_APP_SCENARIO_H

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"
#include "gpuplan/engine.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"

typedef struct gp_loaded {
    gp_scenario *s; /* heap: the struct is large */
    cJSON *tree;    /* the scenario JSON with catalog prices filled in */
    char origin[512];
    int version;                             /* stored version, 0 for a file */
    gp_price_source sources[GP_MAX_OPTIONS]; /* the catalog prices used */
    int n_sources;
} gp_loaded;

/* Load FILE.json (or "-") or a stored scenario NAME (version 0: the latest), validate it and
 * resolve catalog references as of as_of (YYYY-MM-DD). */
gp_status gp_load_scenario(gp_session *s, const char *arg, int version, const char *as_of,
                           gp_loaded *out, gp_err *err);
/* The same from a parsed document (the TUI's editor): doc is copied, never changed. */
gp_status gp_load_scenario_doc(gp_session *s, const cJSON *doc, const char *origin,
                               const char *as_of, gp_loaded *out, gp_err *err);
/* The bundled demo scenario (the DGX A100 one): no database needed. */
gp_status gp_load_demo_scenario(gp_loaded *out, gp_err *err);
void gp_loaded_done(gp_loaded *sc);

/* The engine on a loaded scenario: out is filled (the caller's storage, about 460 KB). A plan
 * the engine refuses (a month needing a missing bridge, a non-finite total) is GP_E_INPUT
 * with "origin:$.json.path" as where; out->error says the same. */
gp_status gp_evaluate(const gp_loaded *sc, gp_result *out, gp_err *err);

/* An error about the loaded scenario that names only its JSON path ("$.self_hosted.bridge"),
 * as the engine, a sweep or a sensitivity run reports it, then names the file or stored
 * scenario too ("plan.json:$.self_hosted.bridge"); any other error is left as it is. */
void gp_loaded_blame(const gp_loaded *sc, gp_err *err);

/* The report metadata of a loaded scenario priced as of as_of (borrowed pointers into sc). */
gp_report_meta gp_loaded_meta(const gp_loaded *sc, const char *as_of);

#endif
