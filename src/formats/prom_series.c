/* The GPU behind a Prometheus series (prom_series.h). */
#include <stdio.h>
#include <stdlib.h>

#include "prom_series.h"

const char *prom_str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

bool prom_series_of(const cJSON *metric, gp_metric m, prom_series *out) {
    const char *uuid = prom_str(metric, "UUID");
    if (!uuid)
        uuid = prom_str(metric, "uuid");
    const char *gpu = prom_str(metric, "gpu"), *host = prom_str(metric, "Hostname");
    if (!host)
        host = prom_str(metric, "hostname");
    if (!host)
        host = prom_str(metric, "instance");
    out->index = -1;
    if (gpu) {
        char *end;
        long x = strtol(gpu, &end, 10);
        if (*gpu && !*end && x >= 0 && x < 4096)
            out->index = (int)x;
    }
    if ((!uuid || !*uuid) && out->index < 0)
        return false;
    const char *gi = prom_str(metric, "GPU_I_ID"), *prof = prom_str(metric, "GPU_I_PROFILE");
    out->uuid = uuid ? uuid : "";
    out->host = host ? host : "";
    out->model = prom_str(metric, "modelName");
    out->gi = gi && *gi ? gi : NULL;
    out->device = m == GP_M_POWER_W || m == GP_M_TEMP_C || m == GP_M_ENERGY_J ||
                  m == GP_M_SM_CLOCK_MHZ || m == GP_M_POWER_LIMIT_W;
    out->mig[0] = '\0';
    if (out->gi && !out->device)
        snprintf(out->mig, sizeof out->mig, "GI %s%s%s", gi, prof ? " " : "", prof ? prof : "");
    return true;
}
