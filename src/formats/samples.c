/* The samples container the telemetry parsers fill. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"

static const char *const metric_names[GP_M_COUNT] = {
    "gpu_util", "mem_used_mib", "mem_total_mib", "power_w",     "temp_c",
    "energy_j", "sm_clock_mhz", "power_limit_w", "node_power_w"};

const char *gp_metric_name(gp_metric m) {
    return (unsigned)m < GP_M_COUNT ? metric_names[m] : "?";
}

int gp_metric_from_name(const char *name) {
    for (int i = 0; i < GP_M_COUNT; i++)
        if (strcmp(name, metric_names[i]) == 0)
            return i;
    return -1;
}

void gp_samples_init(gp_samples *s, size_t limit) {
    memset(s, 0, sizeof *s);
    s->limit = limit;
}

void gp_samples_done(gp_samples *s) {
    for (size_t i = 0; i < s->n_labels; i++)
        free(s->label_sets[i]);
    free(s->label_sets);
    free(s->gpu_index);
    free(s->label_index);
    free(s->gpus);
    free(s->s);
    size_t limit = s->limit;
    memset(s, 0, sizeof *s);
    s->limit = limit;
}

static uint64_t fnv(uint64_t h, const char *p) {
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* a separator, so ("ab","c") != ("a","bc") */
}

static uint64_t gpu_hash(const char *uuid, int index, const char *mig, const char *host,
                         int label_set) {
    uint64_t h = fnv(1469598103934665603ull + (uint64_t)label_set * 0x9e3779b97f4a7c15ull, uuid);
    h = fnv(h, mig);
    if (!uuid[0]) { /* without a UUID, the index on its host names the GPU */
        char ix[16];
        snprintf(ix, sizeof ix, "%d", index);
        h = fnv(fnv(h, ix), host);
    }
    return h;
}

static bool gpu_matches(const gp_gpu_ref *g, const char *uuid, int index, const char *mig,
                        const char *host, int label_set) {
    bool same = uuid[0] ? strcmp(g->uuid, uuid) == 0
                        : (g->uuid[0] == '\0' && g->index == index && !strcmp(g->host, host));
    return same && g->label_set == label_set && strcmp(g->mig, mig) == 0;
}

/* Make room for one more entry (load under one half), re-inserting the existing ones. */
static void index_grow(unsigned **slots, size_t *n_slots, size_t entries,
                       uint64_t (*rehash)(const gp_samples *, size_t), const gp_samples *s) {
    if ((entries + 1) * 2 <= *n_slots)
        return;
    size_t n = *n_slots ? *n_slots * 2 : 64;
    unsigned *t = gp_xcalloc(n, sizeof *t);
    for (size_t e = 0; e < entries; e++) {
        size_t i = rehash(s, e) & (n - 1);
        while (t[i])
            i = (i + 1) & (n - 1);
        t[i] = (unsigned)e + 1;
    }
    free(*slots);
    *slots = t;
    *n_slots = n;
}

static uint64_t gpu_rehash(const gp_samples *s, size_t e) {
    const gp_gpu_ref *g = &s->gpus[e];
    return gpu_hash(g->uuid, g->index, g->mig, g->host, g->label_set);
}

static uint64_t label_rehash(const gp_samples *s, size_t e) {
    return fnv(1469598103934665603ull, s->label_sets[e]);
}

int gp_samples_gpu(gp_samples *s, const char *uuid, int index, const char *mig,
                   const char *raw_model, const char *host) {
    return gp_samples_gpu_labeled(s, uuid, index, mig, raw_model, host, -1);
}

int gp_samples_gpu_labeled(gp_samples *s, const char *uuid, int index, const char *mig,
                           const char *raw_model, const char *host, int labels) {
    int label_set = labels >= 0 ? labels + 1 : 0;
    uuid = uuid ? uuid : "";
    mig = mig ? mig : "";
    host = host ? host : "";
    index_grow(&s->gpu_index, &s->gpu_slots, s->n_gpus, gpu_rehash, s);
    size_t mask = s->gpu_slots - 1, i = gpu_hash(uuid, index, mig, host, label_set) & mask;
    for (; s->gpu_index[i]; i = (i + 1) & mask) {
        gp_gpu_ref *g = &s->gpus[s->gpu_index[i] - 1];
        if (!gpu_matches(g, uuid, index, mig, host, label_set))
            continue;
        if (!g->raw_model[0] && raw_model && *raw_model) {
            snprintf(g->raw_model, sizeof g->raw_model, "%s", raw_model);
            gp_gpu_normalize(raw_model, 0, g->model, sizeof g->model);
        }
        if (g->index < 0)
            g->index = index;
        if (!g->host[0])
            snprintf(g->host, sizeof g->host, "%s", host);
        return (int)(s->gpu_index[i] - 1);
    }
    if (s->n_gpus == s->cap_gpus) {
        s->cap_gpus = s->cap_gpus ? 2 * s->cap_gpus : 16;
        s->gpus = gp_xrealloc(s->gpus, s->cap_gpus * sizeof *s->gpus);
    }
    gp_gpu_ref *g = &s->gpus[s->n_gpus];
    memset(g, 0, sizeof *g);
    snprintf(g->uuid, sizeof g->uuid, "%s", uuid);
    g->index = index;
    snprintf(g->mig, sizeof g->mig, "%s", mig);
    snprintf(g->host, sizeof g->host, "%s", host);
    g->label_set = label_set;
    if (raw_model && *raw_model) {
        snprintf(g->raw_model, sizeof g->raw_model, "%s", raw_model);
        gp_gpu_normalize(raw_model, 0, g->model, sizeof g->model);
    }
    s->gpu_index[i] = (unsigned)s->n_gpus + 1;
    return (int)s->n_gpus++;
}

int gp_samples_labels(gp_samples *s, const char *json) {
    index_grow(&s->label_index, &s->label_slots, s->n_labels, label_rehash, s);
    size_t mask = s->label_slots - 1, i = fnv(1469598103934665603ull, json) & mask;
    for (; s->label_index[i]; i = (i + 1) & mask)
        if (strcmp(s->label_sets[s->label_index[i] - 1], json) == 0)
            return (int)(s->label_index[i] - 1);
    if (s->n_labels == s->cap_labels) {
        s->cap_labels = s->cap_labels ? 2 * s->cap_labels : 8;
        s->label_sets = gp_xrealloc(s->label_sets, s->cap_labels * sizeof *s->label_sets);
    }
    s->label_sets[s->n_labels] = gp_xstrdup(json);
    s->label_index[i] = (unsigned)s->n_labels + 1;
    return (int)s->n_labels++;
}

gp_status gp_samples_add(gp_samples *s, int gpu, gp_metric m, double value, int64_t ts_ms,
                         int labels, gp_err *err) {
    if (s->n >= s->limit)
        return gp_errorf(err, GP_E_LIMIT, NULL, "more than %zu samples in one batch", s->limit);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        if (s->cap > s->limit)
            s->cap = s->limit;
        s->s = gp_xrealloc(s->s, s->cap * sizeof *s->s);
    }
    s->s[s->n++] = (gp_sample){gpu, m, value, ts_ms, labels};
    return GP_OK;
}

bool gp_dcgm_is_blank(double v, bool is_counter) {
    if (!isfinite(v))
        return true;
    /* DCGM_FP64_BLANK is 2^47 and the fp64/int64 blank families sit at and above it (the
     * int64 family near 2^63); no gauge of a GPU reaches that. */
    if (v >= 140737488355328.0)
        return true;
    /* DCGM_INT32_BLANK 0x7ffffff0 .. 0x7fffffff; a counter may pass through those honestly. */
    if (!is_counter && v >= 2147483632.0 && v <= 2147483647.0)
        return true;
    return false;
}
