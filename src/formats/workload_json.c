/* A workload profile as JSON (workload_json.h, gp_workload_json_parse). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpuplan/workload_json.h"

#define MAX_BYTES (64u << 10)

static gp_status bad(const char *origin, const char *key, gp_err *err, const char *msg) {
    char where[600];
    snprintf(where, sizeof where, "%s:$%s%s", origin, key ? "." : "", key ? key : "");
    return gp_errorf(err, GP_E_INPUT, where, "%s", msg);
}

static gp_status text(const cJSON *o, const char *key, char *out, size_t cap, bool optional,
                      const char *origin, gp_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if (!v && optional)
        return GP_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return bad(origin, key, err, "must be a non-empty string");
    if (strlen(v->valuestring) >= cap)
        return bad(origin, key, err, "is too long");
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return GP_OK;
}

/* A number in [lo, hi]; optional ones keep *out when absent. */
static gp_status num(const cJSON *o, const char *key, double lo, double hi, bool optional,
                     double *out, const char *origin, gp_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && optional)
        return GP_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        char msg[96];
        snprintf(msg, sizeof msg, "must be a number in [%g, %g]", lo, hi);
        return bad(origin, key, err, msg);
    }
    *out = v->valuedouble;
    return GP_OK;
}

static gp_status whole(const cJSON *o, const char *key, int lo, int hi, bool optional, int *out,
                       const char *origin, gp_err *err) {
    double d = *out;
    if (num(o, key, lo, hi, optional, &d, origin, err))
        return err->code;
    if (d != floor(d))
        return bad(origin, key, err, "must be a whole number");
    *out = (int)d;
    return GP_OK;
}

static bool name_ok(const char *s) {
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
            return false;
    return s[0] != '\0' && s[0] != '-';
}

/* An API model name as the catalog's API prices spell it; "" (none) passes. */
static bool api_name_ok(const char *s) {
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr(".-_/", *p)))
            return false;
    return true;
}

gp_status gp_workload_json_parse(const char *buf, size_t len, const char *origin, gp_workload *w,
                                 gp_err *err) {
    memset(w, 0, sizeof *w);
    if (len > MAX_BYTES)
        return gp_errorf(err, GP_E_INPUT, origin, "larger than %u bytes", MAX_BYTES);
    if (memchr(buf, 0, len))
        return gp_errorf(err, GP_E_INPUT, origin, "NUL characters are not allowed");
    cJSON *doc = cJSON_ParseWithLength(buf, len);
    if (!doc)
        return gp_errorf(err, GP_E_INPUT, origin, "malformed JSON");
    gp_status st = GP_OK;
    char phase[16] = "";
    const cJSON *prec = cJSON_GetObjectItemCaseSensitive(doc, "precision");
    if (!cJSON_IsObject(doc))
        st = bad(origin, NULL, err, "must be an object");
    else if (text(doc, "name", w->name, sizeof w->name, false, origin, err) ||
             text(doc, "what", w->what, sizeof w->what, true, origin, err) ||
             text(doc, "source", w->source, sizeof w->source, false, origin, err) ||
             text(doc, "api_model", w->api_model, sizeof w->api_model, true, origin, err) ||
             text(doc, "phase", phase, sizeof phase, false, origin, err) ||
             num(doc, "params_b", 0.001, 1e5, false, &w->params_b, origin, err))
        st = err->code;
    else if (!name_ok(w->name))
        st = bad(origin, "name", err, "only a-z, 0-9, '-' and '.', not starting with '-'");
    else if (!api_name_ok(w->api_model))
        st = bad(origin, "api_model", err, "only a-z, 0-9, '.', '-', '_' and '/'");
    else if (!gp_wl_phase_parse(phase, &w->phase))
        st = bad(origin, "phase", err, "one of training, prefill, decode, offline");
    if (st)
        goto done;
    w->active_params_b = w->params_b;
    if (num(doc, "active_params_b", 0.001, w->params_b, true, &w->active_params_b, origin, err) ||
        whole(doc, "layers", 1, 1000, false, &w->layers, origin, err) ||
        whole(doc, "kv_heads", 1, 1024, false, &w->kv_heads, origin, err) ||
        whole(doc, "head_dim", 1, 4096, false, &w->head_dim, origin, err) ||
        whole(doc, "input_len", 1, 10000000, false, &w->input_len, origin, err)) {
        st = err->code;
        goto done;
    }
    bool serving = w->phase != GP_WL_TRAINING;
    if (serving && (whole(doc, "batch", 1, 1000000, false, &w->batch, origin, err) ||
                    whole(doc, "output_len", w->phase == GP_WL_PREFILL ? 0 : 1, 10000000,
                          w->phase == GP_WL_PREFILL, &w->output_len, origin, err))) {
        st = err->code;
        goto done;
    }
    if (!cJSON_IsArray(prec) || cJSON_GetArraySize(prec) < 1 ||
        cJSON_GetArraySize(prec) > GP_WL_NPREC) {
        st = bad(origin, "precision", err,
                 "must be a list of 1 to 4 of fp4, fp8, fp16, bf16 (the first the GPU supports "
                 "is used)");
        goto done;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, prec) {
        gp_wl_prec q;
        char key[32];
        snprintf(key, sizeof key, "precision[%d]", w->n_prefer);
        if (!cJSON_IsString(p) || !gp_wl_prec_parse(p->valuestring, &q)) {
            st = bad(origin, key, err, "one of fp4, fp8, fp16, bf16");
            goto done;
        }
        for (int i = 0; i < w->n_prefer; i++)
            if (w->prefer[i] == q) {
                st = bad(origin, key, err, "named twice");
                goto done;
            }
        w->prefer[w->n_prefer++] = q;
    }
done:
    cJSON_Delete(doc);
    if (st)
        memset(w, 0, sizeof *w);
    return st;
}
