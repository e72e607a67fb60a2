/* summary.json of a batch run read back (the record a run keeps in the database and in its
 * folder), so a later run or `gpuplan diff` can compare with it. Bytes in, struct out: no I/O.
 *
 * Ownership: on GP_OK *out holds the summary (free with gp_batch_summary_done); on failure it
 * is empty. Errors: GP_E_INPUT naming origin and line:column (malformed JSON) or the JSON path
 * of the offending value; GP_E_LIMIT past GP_BATCH_SUMMARY_MAX_BYTES or too many scenarios. */
#ifndef GPUPLAN_BATCH_JSON_H
#define GPUPLAN_BATCH_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "gpuplan/batch_diff.h"
#include "gpuplan/error.h"

#define GP_BATCH_SUMMARY_MAX_BYTES (64u << 20)
#define GP_BATCH_FORMAT "gpuplan-batch-summary"

/* Parse buf[0..len) (need not be NUL-terminated). */
gp_status gp_batch_summary_parse(const char *buf, size_t len, const char *origin,
                                 gp_batch_summary *out, gp_err *err);
/* The same from a parsed document (borrowed). */
gp_status gp_batch_summary_from_cjson(const cJSON *doc, const char *origin, gp_batch_summary *out,
                                      gp_err *err);

#endif
