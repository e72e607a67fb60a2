/* The fleet's state rendered (`gpuplan fleet`): a table for people, an array for programs.
 *
 * Ownership: the writers append to the caller's gp_buf. Errors: GP_E_LIMIT at the buffer's
 * cap. Names from outside (nodes, hosts, models) reach text with control characters as '?'. */
#ifndef GPUPLAN_REPORT_FLEET_H
#define GPUPLAN_REPORT_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/fleet.h"
#include "gpuplan/xmem.h"

/* One row a GPU (newest values, last seen, alerts, "stale 3 d" past the freshness window),
 * a count line, and each node's wall power. Times in local time. */
gp_status gp_report_fleet_text(const gp_fleet_state *f, gp_buf *out);
/* The rows as a JSON array: model (the catalog key), display and raw_model, every metric,
 * last_seen_ms, age_s, stale, alerts. */
gp_status gp_report_fleet_json(const gp_fleet_state *f, gp_buf *out);

/* An age as people say it: "45 s", "12 min", "5 h", "3 d". */
void gp_format_age(int64_t ms, char *out, size_t cap);

#endif
