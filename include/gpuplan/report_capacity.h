/* Capacity, mixed-fleet and measurement results rendered for people and programs: the
 * outputs of `capacity` (text, --json, --csv, --ldc) and `plan --mix` (text, --csv).
 *
 * Ownership: each writer appends to the caller's gp_buf. Errors: GP_E_LIMIT when the buffer's
 * cap is reached (the buffer then holds what fit). Names from outside (nodes, labels) are
 * written with control characters replaced in text, escaped in JSON and CSV. */
#ifndef GPUPLAN_REPORT_CAPACITY_H
#define GPUPLAN_REPORT_CAPACITY_H

#include <cjson/cJSON.h>

#include "gpuplan/capacity.h"
#include "gpuplan/error.h"
#include "gpuplan/xmem.h"

/* The readable report: fleet, models, nodes, each GPU, idle GPUs, money per node, the load
 * duration quantiles, wall power, and use by label. Times in local time. */
gp_status gp_report_capacity_text(const gp_capacity *c, gp_buf *out);
/* The same figures as one JSON document. */
gp_status gp_report_capacity_json(const gp_capacity *c, gp_buf *out);
/* Each node's wall power against its GPUs' as a JSON array (the capacity JSON's and a
 * measured scenario's "wall_power"); the caller owns it. */
cJSON *gp_report_capacity_walls(const gp_capacity *c);
/* One CSV row a GPU. */
gp_status gp_report_capacity_csv(const gp_capacity *c, gp_buf *out);
/* Use by label value as CSV (with --by): GPU-hours, energy, its cost, and its all-in share
 * with an "(idle)" row when a scenario prices the GPU-hour. */
gp_status gp_report_capacity_usage_csv(const gp_capacity *c, gp_buf *out);
/* The load duration curve as CSV: rank, hours at or above, busy GPU equivalents. */
gp_status gp_report_capacity_ldc(const gp_capacity *c, gp_buf *out);

/* The mixed-fleet plan of `plan --mix` for people, or its curve as CSV; option is the rented
 * option's name. With growth, both end with the projection. */
gp_status gp_report_mix_text(const gp_mix_plan *p, const char *option, gp_buf *out);
gp_status gp_report_mix_csv(const gp_mix_plan *p, gp_buf *out);

#endif
