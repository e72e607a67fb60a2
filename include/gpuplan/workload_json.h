/* A workload profile as JSON (formats layer, src/formats/workload_json.c): bytes in, a
 * gp_workload (workload.h) out, no I/O.
 *
 * Ownership: *w is plain data in the caller's storage; nothing is allocated. Errors:
 * GP_E_INPUT naming origin and the JSON path. */
#ifndef GPUPLAN_WORKLOAD_JSON_H
#define GPUPLAN_WORKLOAD_JSON_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/workload.h"

/* Parse a workload profile (docs/compare.md "Your own profiles"): a JSON object with name,
 * source, phase, params_b (active_params_b optional), layers, kv_heads, head_dim, input_len,
 * precision (a list), and for serving phases batch and output_len. GP_E_INPUT naming
 * origin:$.key for a missing or out-of-range member; *w is zeroed on failure. */
gp_status gp_workload_json_parse(const char *buf, size_t len, const char *origin, gp_workload *w,
                                 gp_err *err);

#endif
