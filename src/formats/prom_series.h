/* What a Prometheus series' labels say about the GPU it measures, for the two parsers of
 * Prometheus answers (telemetry_json.c: /api/v1/query; prom_range.c: /api/v1/query_range).
 * Internal to src/formats/. Strings are borrowed from the cJSON tree. */
#ifndef GPUPLAN_FORMATS_PROM_SERIES_H
#define GPUPLAN_FORMATS_PROM_SERIES_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/samples.h"

typedef struct prom_series {
    const char *uuid, *host; /* "" when absent */
    const char *model;       /* the modelName label, NULL when absent */
    int index;               /* the gpu label, -1 when absent */
    const char *gi;          /* the MIG GPU instance id, NULL when none */
    bool device;             /* a device-level metric (power, temperature, ...) */
    char mig[32];            /* "GI 3 1g.10gb" for an instance's own metric, else "" */
} prom_series;

/* A string-valued member of o, NULL when absent or not a string. */
const char *prom_str(const cJSON *o, const char *k);
/* The GPU a series names: UUID (or uuid), or gpu index plus Hostname, hostname or instance;
 * under MIG the instance, except for device-level metrics, which belong to the physical GPU.
 * False when the labels name no GPU. */
bool prom_series_of(const cJSON *metric, gp_metric m, prom_series *out);
/* The series' workload labels as dcgm-exporter attaches them (namespace, pod, container and
 * any label naming a job but the scrape's own job), as a JSON object sorted by name, into
 * json; false when it has none, or for a device-level metric of a MIG instance (the physical
 * GPU's, not one instance's pod's), or when they do not fit. */
bool prom_series_labels(const cJSON *metric, const prom_series *ps, char *json, size_t cap);

#endif
