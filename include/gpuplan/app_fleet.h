/* The fleet's state as both front ends show it: the alert rules on a GPU's newest values.
 *
 * Ownership: nothing allocates; out is the caller's. */
#ifndef GPUPLAN_APP_FLEET_H
#define GPUPLAN_APP_FLEET_H

#include <stddef.h>

#include "gpuplan/store_telemetry.h"

/* The alerts of one GPU, space-separated into out ("hot memory"); returns how many:
 * temperature >= 85 C, memory >= 90 %, node down, missing, over its power limit. */
int gp_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap);

#endif
