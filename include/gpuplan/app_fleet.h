/* The fleet's state as both front ends show it: every GPU's last known values with their age,
 * the alert rules on them, and each node's wall power.
 *
 * Ownership: gp_fleet_state_read fills a gp_fleet_state the caller frees with
 * gp_fleet_state_done; gp_fleet_alerts writes into the caller's out. Errors: the store's. */
#ifndef GPUPLAN_APP_FLEET_H
#define GPUPLAN_APP_FLEET_H

#include <stddef.h>

#include "gpuplan/app_session.h"
#include "gpuplan/clock.h"
#include "gpuplan/fleet.h"
#include "gpuplan/store_telemetry.h"

/* The freshness window: a GPU not seen for this long shows its last values marked stale. */
#define GP_FLEET_FRESH_MS (15 * GP_MINUTE_MS)

/* Every GPU that ever reported, with its newest values as of now_ms, stale past fresh_ms. */
gp_status gp_fleet_state_read(gp_session *s, int64_t now_ms, int64_t fresh_ms, gp_fleet_state *out,
                              gp_err *err);
void gp_fleet_state_done(gp_fleet_state *f);

/* Per-GPU 5-minute means of metric m over [from_ms, to_ms), to fn in node order (gp_gpu_point
 * in store_telemetry.h, borrowed for the call): the TUI's sparklines and today's energy. A
 * non-zero fn stops the walk. Errors: the store's. */
gp_status gp_fleet_history(gp_session *s, gp_metric m, int64_t from_ms, int64_t to_ms,
                           int (*fn)(const gp_gpu_point *, void *), void *arg, gp_err *err);

/* The alerts of one GPU, space-separated into out ("hot memory"); returns how many:
 * temperature >= 85 C, memory >= 90 %, node down, missing, over its power limit. */
int gp_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap);

#endif
