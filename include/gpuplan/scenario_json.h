/* Scenario JSON (docs/model.md, "The scenario"): parse, validate, and write back.
 *
 * Bytes in, struct out: no I/O. Errors name origin and either "line:column" (malformed JSON)
 * or the JSON path of the offending value ("plan.json:$.cloud_options[1].hourly").
 * Ownership: *tree, when asked for, is handed over (free with cJSON_Delete); on failure
 * *s is zeroed and *tree is NULL. */
#ifndef GPUPLAN_SCENARIO_JSON_H
#define GPUPLAN_SCENARIO_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"

/* Largest scenario document accepted, in bytes. */
#define GP_SCENARIO_MAX_BYTES (4u << 20)

/* Parse buf[0..len) (need not be NUL-terminated) into *s with every rule of docs/model.md checked.
 * tree may be NULL; otherwise it receives the document as parsed, key order kept. */
gp_status gp_scenario_parse(const char *buf, size_t len, const char *origin, gp_scenario *s,
                            cJSON **tree, gp_err *err);

/* Validate an already parsed document (the same checks as gp_scenario_parse). */
gp_status gp_scenario_from_cjson(const cJSON *doc, const char *origin, gp_scenario *s, gp_err *err);

/* True when s[0..len) is valid UTF-8 with no NUL; *codepoints receives the count. */
bool gp_utf8_valid(const char *s, size_t len, size_t *codepoints);

#endif
