/* The fleet's state as plain data: what src/app/fleet.c reads from the store and
 * src/report/report_fleet.c renders (`gpuplan fleet`, text and --json). No code here.
 *
 * Ownership: a gp_fleet_state owns its arrays (gp_fleet_state_done in app_fleet.h). */
#ifndef GPUPLAN_FLEET_H
#define GPUPLAN_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/samples.h"

/* One GPU (or MIG instance) with the newest value of each metric it ever reported. */
typedef struct gp_fleet_row {
    char node[128], host[128], uuid[96], model[96], mig[32];
    char raw_model[96];              /* as the source reported it, "" when none did */
    char display[GP_GPU_NAME_BYTES]; /* the readable name (gp_gpu_display_name) */
    int index;
    bool has[GP_M_COUNT];
    double value[GP_M_COUNT];
    int64_t last_seen_ms;
    bool stale;       /* last seen before the freshness window: a value, but an old one */
    char alerts[160]; /* space-separated ("hot memory"), "" when none */
    int n_alerts;
} gp_fleet_row;

/* A node's newest wall power (Redfish). */
typedef struct gp_fleet_wall {
    char node[128];
    double watts;
    int64_t at_ms;
} gp_fleet_wall;

typedef struct gp_fleet_state {
    int64_t now_ms, fresh_ms; /* values older than now - fresh are stale */
    gp_fleet_row *rows;
    size_t n;
    int with_alerts, stale; /* rows with an alert; rows stale */
    gp_fleet_wall *walls;
    size_t nw;
} gp_fleet_state;

#endif
