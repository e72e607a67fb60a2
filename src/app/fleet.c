/* The fleet's alert rules (app_fleet.h). */
#include <stdbool.h>
#include <stdio.h>

#include "gpuplan/app_fleet.h"

int gp_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap) {
    size_t an = 0;
    int n = 0;
    out[0] = '\0';
    double mem_pct =
        g->has[GP_M_MEM_USED_MIB] && g->has[GP_M_MEM_TOTAL_MIB] && g->value[GP_M_MEM_TOTAL_MIB] > 0
            ? 100.0 * g->value[GP_M_MEM_USED_MIB] / g->value[GP_M_MEM_TOTAL_MIB]
            : -1;
    const char *names[5];
    if (g->has[GP_M_TEMP_C] && g->value[GP_M_TEMP_C] >= 85)
        names[n++] = "hot";
    if (mem_pct >= 90)
        names[n++] = "memory";
    if (g->node_down)
        names[n++] = "node-down";
    if (g->missing)
        names[n++] = "missing";
    if (g->has[GP_M_POWER_W] && g->has[GP_M_POWER_LIMIT_W] &&
        g->value[GP_M_POWER_W] > g->value[GP_M_POWER_LIMIT_W])
        names[n++] = "over-power-limit";
    for (int i = 0; i < n && an < cap; i++)
        an += (size_t)snprintf(out + an, cap - an, "%s%s", i ? " " : "", names[i]);
    return n;
}
