/* dcgm-exporter /metrics into canonical samples: field names to metrics, GPU identity from
 * the labels of every exporter version, DCGM blanks dropped, MIG handled, workload labels kept. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"

enum { X_NONE = -1, X_FB_FREE = 100, X_FB_RESERVED, X_GR_ACTIVE };

static const struct field {
    const char *name;
    int metric; /* a gp_metric, or an X_ helper */
    double scale;
    bool device; /* a property of the physical GPU, repeated on every MIG instance */
    bool counter;
} fields[] = {
    {"DCGM_FI_DEV_GPU_UTIL", GP_M_GPU_UTIL, 1, false, false},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", X_GR_ACTIVE, 100, false, false},
    {"DCGM_FI_DEV_FB_USED", GP_M_MEM_USED_MIB, 1, false, false},
    {"DCGM_FI_DEV_FB_FREE", X_FB_FREE, 1, false, false},
    {"DCGM_FI_DEV_FB_RESERVED", X_FB_RESERVED, 1, false, false},
    {"DCGM_FI_DEV_POWER_USAGE", GP_M_POWER_W, 1, true, false},
    {"DCGM_FI_DEV_GPU_TEMP", GP_M_TEMP_C, 1, true, false},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", GP_M_ENERGY_J, 1e-3, true, true}, /* mJ */
    {"DCGM_FI_DEV_SM_CLOCK", GP_M_SM_CLOCK_MHZ, 1, true, false},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", GP_M_POWER_LIMIT_W, 1, true, false},
    {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", GP_M_POWER_LIMIT_W, 1, true, false},
};

bool gp_workload_label(const char *name) {
    if (!strcmp(name, "namespace") || !strcmp(name, "pod") || !strcmp(name, "container"))
        return true;
    if (!strcmp(name, "job") || !strcmp(name, "exported_job"))
        return false;
    char low[64];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof low; p++)
        low[n++] = (char)tolower((unsigned char)*p);
    low[n] = '\0';
    return strstr(low, "job") != NULL;
}

/* Append a JSON string (escaped) to out. */
static size_t json_str(char *out, size_t cap, size_t n, const char *s) {
    if (n < cap)
        out[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 7 < cap; p++) {
        if (*p == '"' || *p == '\\') {
            out[n++] = '\\';
            out[n++] = (char)*p;
        } else if (*p < 0x20) {
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", *p);
        } else {
            out[n++] = (char)*p;
        }
    }
    if (n < cap)
        out[n++] = '"';
    return n;
}

typedef struct pending {
    int gpu;
    int metric; /* gp_metric or X_ */
    double value;
    int64_t ts;
    int labels;
} pending;

typedef struct ctx {
    gp_samples *out;
    pending *p;
    size_t n, cap;
} ctx;

/* The nwl workload labels wl (sorted by name) as one JSON object, interned in out: its id. */
static int workload_labels(gp_samples *out, const gp_prom_label *const *wl, int nwl) {
    char json[2048];
    size_t n = 0;
    json[n++] = '{';
    for (int i = 0; i < nwl && n + 8 < sizeof json; i++) {
        if (i)
            json[n++] = ',';
        n = json_str(json, sizeof json - 2, n, wl[i]->name);
        json[n++] = ':';
        n = json_str(json, sizeof json - 2, n, wl[i]->value);
    }
    json[n++] = '}';
    json[n] = '\0';
    return gp_samples_labels(out, json);
}

static gp_status on_sample(const gp_prom_sample *s, void *arg, gp_err *err) {
    (void)err;
    ctx *c = arg;
    const struct field *f = NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(s->name, fields[i].name) == 0)
            f = &fields[i];
    if (!f)
        return GP_OK;
    bool counter = f->counter || strcmp(s->type, "counter") == 0;
    if (gp_dcgm_is_blank(s->value, counter)) {
        c->out->blanks++;
        return GP_OK;
    }
    const char *uuid = "", *model = "", *host = "", *gi = "", *gi_profile = "";
    int index = -1;
    /* Workload labels, sorted by name so equal sets intern to one. */
    const gp_prom_label *wl[GP_PROM_MAX_LABELS];
    int nwl = 0;
    for (int i = 0; i < s->n_labels; i++) {
        const char *n = s->labels[i].name, *v = s->labels[i].value;
        if (!strcmp(n, "UUID") || !strcmp(n, "uuid"))
            uuid = v;
        else if (!strcmp(n, "gpu")) {
            char *end;
            long x = strtol(v, &end, 10);
            if (*v && !*end && x >= 0 && x < 4096)
                index = (int)x;
        } else if (!strcmp(n, "modelName"))
            model = v;
        else if (!strcmp(n, "Hostname") || !strcmp(n, "hostname"))
            host = v;
        else if (!strcmp(n, "GPU_I_ID"))
            gi = v;
        else if (!strcmp(n, "GPU_I_PROFILE"))
            gi_profile = v;
        else if (*v && gp_workload_label(n)) {
            int k = nwl++;
            while (k > 0 && strcmp(wl[k - 1]->name, n) > 0) {
                wl[k] = wl[k - 1];
                k--;
            }
            wl[k] = &s->labels[i];
        }
    }
    if (!*uuid && index < 0) {
        c->out->blanks++; /* a series that names no GPU */
        return GP_OK;
    }
    char mig[32] = "";
    if (*gi && !f->device)
        snprintf(mig, sizeof mig, "GI %s%s%s", gi, *gi_profile ? " " : "", gi_profile);
    int gpu = gp_samples_gpu(c->out, uuid, index, mig, model, host);
    if (*mig) /* the physical GPU exists too, for its device-level metrics */
        gp_samples_gpu(c->out, uuid, index, "", model, host);
    int labels = -1;
    /* Under MIG a device-level value belongs to the physical GPU, not to one instance's pod. */
    if (nwl && !(*gi && f->device))
        labels = workload_labels(c->out, wl, nwl);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->p = realloc(c->p, c->cap * sizeof *c->p);
        if (!c->p)
            return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
    }
    c->p[c->n++] = (pending){gpu, f->metric, s->value * f->scale, s->has_ts ? s->ts_ms : 0, labels};
    return GP_OK;
}

static const pending *sort_base;

/* Order by (gpu, final metric, labels, timestamp, position): repeats become neighbours. */
static int by_key(const void *a, const void *b) {
    const pending *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if (x->labels != y->labels)
        return x->labels < y->labels ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

gp_status gp_dcgm_parse(const char *buf, size_t len, const char *origin, gp_samples *out,
                        gp_err *err) {
    ctx c = {out, NULL, 0, 0};
    size_t first_gpu = out->n_gpus;
    gp_status st = gp_prom_text_parse(buf, len, origin, on_sample, &c, err);
    size_t ng = out->n_gpus - first_gpu + 1;
    /* Per GPU: does it report GPU_UTIL, and its used and reserved framebuffer. */
    bool *util = calloc(ng, sizeof *util), *used_ok = calloc(ng, sizeof *used_ok);
    double *used = calloc(ng, sizeof *used), *reserved = calloc(ng, sizeof *reserved);
    size_t *order = malloc((c.n + 1) * sizeof *order);
    if (!util || !used_ok || !used || !reserved || !order) {
        st = st ? st : gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; st == GP_OK && i < c.n; i++) {
        size_t g = (size_t)c.p[i].gpu - first_gpu;
        if (c.p[i].metric == GP_M_GPU_UTIL)
            util[g] = true;
        else if (c.p[i].metric == GP_M_MEM_USED_MIB && !used_ok[g])
            used[g] = c.p[i].value, used_ok[g] = true;
        else if (c.p[i].metric == X_FB_RESERVED)
            reserved[g] = c.p[i].value;
    }
    /* Resolve each pending value to its final metric, or drop it. */
    for (size_t i = 0; st == GP_OK && i < c.n; i++) {
        pending *p = &c.p[i];
        size_t g = (size_t)p->gpu - first_gpu;
        if (p->metric == X_FB_RESERVED) {
            p->metric = X_NONE;
        } else if (p->metric == X_GR_ACTIVE) {
            /* Under MIG there is no GPU_UTIL: the graphics engine's active ratio stands in. */
            p->metric = util[g] ? X_NONE : GP_M_GPU_UTIL;
        } else if (p->metric == X_FB_FREE) {
            p->metric = used_ok[g] ? GP_M_MEM_TOTAL_MIB : X_NONE;
            p->value += used[g] + reserved[g];
        }
        if (p->metric >= 0 && out->gpus[p->gpu].mig[0]) {
            int m = p->metric;
            if (m == GP_M_POWER_W || m == GP_M_TEMP_C || m == GP_M_ENERGY_J ||
                m == GP_M_SM_CLOCK_MHZ || m == GP_M_POWER_LIMIT_W) {
                out->duplicates++; /* a device-level value repeated on a MIG instance */
                p->metric = X_NONE;
            }
        }
    }
    for (size_t i = 0; i < c.n; i++)
        order[i] = i;
    sort_base = c.p;
    qsort(order, c.n, sizeof *order, by_key);
    for (size_t k = 1; st == GP_OK && k < c.n; k++) {
        pending *a = &c.p[order[k - 1]], *b = &c.p[order[k]];
        if (b->metric >= 0 && a->gpu == b->gpu && a->metric == b->metric &&
            a->labels == b->labels && a->ts == b->ts) {
            out->duplicates++;
            b->metric = X_NONE;
        }
    }
    for (size_t i = 0; st == GP_OK && i < c.n; i++) {
        pending *p = &c.p[i];
        if (p->metric >= 0)
            st = gp_samples_add(out, p->gpu, (gp_metric)p->metric, p->value, p->ts, p->labels, err);
    }
done:
    free(util);
    free(used_ok);
    free(used);
    free(reserved);
    free(order);
    free(c.p);
    return st;
}
