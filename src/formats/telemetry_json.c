/* JSON telemetry: the Prometheus HTTP API and Redfish chassis power. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_util.h"
#include "prom_series.h"
#include "gpuplan/samples.h"

/* "68.347", "NaN", "+Inf", "1.5e-10" */
static bool api_value(const cJSON *v, double *out) {
    if (!cJSON_IsString(v) || !v->valuestring)
        return false;
    const char *s = v->valuestring;
    if (!strcmp(s, "NaN"))
        *out = NAN;
    else if (!strcmp(s, "+Inf") || !strcmp(s, "Inf"))
        *out = INFINITY;
    else if (!strcmp(s, "-Inf"))
        *out = -INFINITY;
    else
        return gp_parse_number(s, strlen(s), out);
    return true;
}

typedef struct api {
    gp_samples *out;
    gp_metric m;
    double scale;
} api;

static gp_status api_point(api *a, int gpu, int labels, const cJSON *pair, const char *where,
                           gp_err *err) {
    const cJSON *ts = cJSON_GetArrayItem(pair, 0), *val = cJSON_GetArrayItem(pair, 1);
    double v;
    if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(ts) || !api_value(val, &v))
        return gp_errorf(err, GP_E_INPUT, where, "a sample is not [time, \"value\"]");
    /* A blank, or a value no GPU reports in either sign (-1e300): no reading, counted. */
    if (gpu < 0 || gp_dcgm_is_blank(v, a->m == GP_M_ENERGY_J) || fabs(v) >= 140737488355328.0) {
        a->out->blanks++;
        return GP_OK;
    }
    double ms = ts->valuedouble * 1000.0;
    if (!(ms > -9e15 && ms < 9e15))
        return gp_errorf(err, GP_E_INPUT, where, "a sample time out of range");
    return gp_samples_add(a->out, gpu, a->m, v * a->scale, (int64_t)llround(ms), labels, err);
}

/* The GPU a series names, -1 when none; its workload labels (container, namespace, pod)
 * into *labels, except on a MIG device's device-level metric. */
static int api_gpu(api *a, const cJSON *metric, int *labels) {
    *labels = -1;
    prom_series ps;
    if (!prom_series_of(metric, a->m, &ps))
        return -1;
    char json[1024];
    size_t n = 0;
    static const char *const keep[] = {"container", "namespace", "pod"};
    json[n++] = '{';
    for (size_t i = 0; i < 3; i++) {
        const char *v = prom_str(metric, keep[i]);
        if (v && *v && n + strlen(v) + 32 < sizeof json && !(ps.gi && ps.device))
            n += (size_t)snprintf(json + n, sizeof json - n, "%s\"%s\":\"%s\"", n > 1 ? "," : "",
                                  keep[i], v);
    }
    json[n++] = '}';
    json[n] = '\0';
    /* Label values are written as given: re-parse to be sure the text is valid JSON. */
    cJSON *check = n > 2 ? cJSON_Parse(json) : NULL;
    if (check)
        *labels = gp_samples_labels(a->out, json);
    cJSON_Delete(check);
    return gp_samples_gpu(a->out, ps.uuid, ps.index, ps.mig, ps.model, ps.host);
}

gp_status gp_promapi_parse(const char *buf, size_t len, const char *origin, long http_status,
                           gp_metric m, double value_scale, gp_samples *out, gp_err *err) {
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err)) {
        if (http_status >= 400)
            gp_errorf(err, GP_E_INPUT, origin, "HTTP %ld with a body that is not JSON",
                      http_status);
        return err->code;
    }
    gp_status st = GP_OK;
    const char *status = prom_str(doc, "status");
    if (http_status >= 400 || !status || strcmp(status, "success") != 0) {
        const char *type = prom_str(doc, "errorType"), *msg = prom_str(doc, "error");
        char code[32] = "";
        if (http_status >= 400)
            snprintf(code, sizeof code, "HTTP %ld, ", http_status);
        st = gp_errorf(err, GP_E_INPUT, origin, "Prometheus error (%s%s): %.180s", code,
                       type ? type : "no type", msg ? msg : "no error text");
        goto done;
    }
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(doc, "data");
    const char *type = prom_str(data, "resultType");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (!type || !cJSON_IsArray(result)) {
        st = gp_errorf(err, GP_E_INPUT, origin, "no data.resultType and data.result");
        goto done;
    }
    api a = {out, m, value_scale};
    if (!strcmp(type, "scalar") || !strcmp(type, "string")) {
        out->blanks++; /* a scalar names no GPU */
        goto done;
    }
    bool matrix = !strcmp(type, "matrix");
    if (!matrix && strcmp(type, "vector") != 0) {
        st = gp_errorf(err, GP_E_INPUT, origin, "unknown resultType \"%s\"", type);
        goto done;
    }
    int i = 0;
    for (const cJSON *series = result->child; series && st == GP_OK; series = series->next, i++) {
        char where[320];
        snprintf(where, sizeof where, "%s:$.data.result[%d]", origin, i);
        const cJSON *metric = cJSON_GetObjectItemCaseSensitive(series, "metric");
        if (!cJSON_IsObject(metric)) {
            st = gp_errorf(err, GP_E_INPUT, where, "a series without \"metric\"");
            break;
        }
        int labels;
        int gpu = api_gpu(&a, metric, &labels);
        if (matrix) {
            const cJSON *values = cJSON_GetObjectItemCaseSensitive(series, "values");
            if (!cJSON_IsArray(values)) {
                st = gp_errorf(err, GP_E_INPUT, where, "a matrix series without \"values\"");
                break;
            }
            for (const cJSON *pair = values->child; pair && st == GP_OK; pair = pair->next)
                st = api_point(&a, gpu, labels, pair, where, err);
        } else {
            st = api_point(&a, gpu, labels, cJSON_GetObjectItemCaseSensitive(series, "value"),
                           where, err);
        }
    }
done:
    cJSON_Delete(doc);
    return st;
}

/* ---- Redfish --------------------------------------------------------------------------------- */

static bool reading(const cJSON *obj, double *out) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(obj, "Reading");
    if (!cJSON_IsNumber(r) || !isfinite(r->valuedouble))
        return false;
    *out = r->valuedouble;
    return true;
}

gp_status gp_redfish_parse(const char *buf, size_t len, const char *origin, double *watts,
                           gp_err *err) {
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(doc, "PowerControl");
    const char *units = prom_str(doc, "ReadingUnits");
    double v = 0;
    if (cJSON_IsArray(pc)) {
        /* Legacy Power: the chassis draws the sum of its power-control domains. */
        bool any = false;
        for (const cJSON *c = pc->child; c; c = c->next) {
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "PowerConsumedWatts");
            if (cJSON_IsNumber(w) && isfinite(w->valuedouble) && w->valuedouble >= 0) {
                v += w->valuedouble;
                any = true;
            }
        }
        if (!any)
            st = gp_errorf(err, GP_E_INPUT, origin,
                           "PowerControl has no PowerConsumedWatts reading (the BMC reports none)");
    } else if (reading(cJSON_GetObjectItemCaseSensitive(doc, "PowerWatts"), &v)) {
        /* EnvironmentMetrics */
    } else if (units && !strcmp(units, "W") && reading(doc, &v)) {
        /* a Sensor */
    } else if (reading(cJSON_GetObjectItemCaseSensitive(doc, "InputPowerWatts"), &v)) {
        /* PowerSupply metrics */
    } else {
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "no power reading (expected Power, EnvironmentMetrics, a W sensor or "
                       "power supply metrics)");
    }
    if (st == GP_OK && !(v >= 0 && v < 1e7))
        st = gp_errorf(err, GP_E_INPUT, origin, "power reading %g W is out of range", v);
    if (st == GP_OK)
        *watts = v;
    cJSON_Delete(doc);
    return st;
}
