/* The GPU behind a Prometheus series (prom_series.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool prom_series_labels(const cJSON *metric, const prom_series *ps, char *json, size_t cap) {
    if (ps->gi && ps->device)
        return false;
    const cJSON *kept[64];
    int n = 0;
    for (const cJSON *l = metric ? metric->child : NULL; l && n < 64; l = l->next) {
        if (!l->string || !cJSON_IsString(l) || !l->valuestring || !*l->valuestring ||
            !gp_workload_label(l->string))
            continue;
        int k = n++;
        while (k > 0 && strcmp(kept[k - 1]->string, l->string) > 0) {
            kept[k] = kept[k - 1];
            k--;
        }
        kept[k] = l;
    }
    if (!n)
        return false;
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        cJSON_AddStringToObject(o, kept[i]->string, kept[i]->valuestring);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    bool fits = text && strlen(text) < cap;
    if (fits)
        memcpy(json, text, strlen(text) + 1);
    free(text);
    return fits;
}
