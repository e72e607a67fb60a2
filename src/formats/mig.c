/* MIG instances rolled up to their physical GPU (samples.h, prom_range.h): an instance is
 * its profile's compute slices out of the GPU's (3g.40gb: 3 of 7), and the physical GPU's
 * utilization is its instances' utilization weighted by those shares. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/prom_range.h"
#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"

double gp_mig_weight(const char *mig, const char *model) {
    if (!mig || !*mig)
        return 1.0;
    /* "GI 3 3g.40gb": the profile is the last word; a compute instance's "1c.3g.40gb" names
     * its GPU instance's slices after the "c.". */
    const char *p = strrchr(mig, ' ');
    p = p ? p + 1 : mig;
    const char *c = strstr(p, "c.");
    if (c)
        p = c + 2;
    int slices = 0;
    while (*p >= '0' && *p <= '9' && slices < 100)
        slices = slices * 10 + (*p++ - '0');
    /* The A30 splits into 4 compute slices; the A100, H100, H200 and B200 into 7. */
    int total = model && !strncmp(model, "A30", 3) ? 4 : 7;
    if (*p != 'g' || slices < 1)
        slices = 1; /* a profile that cannot be read counts as the smallest slice */
    if (slices > total)
        slices = total;
    return (double)slices / total;
}

/* The physical GPU of instance g in s (added when new, as the dcgm parser adds it). */
static int parent_of(gp_samples *s, int g) {
    gp_gpu_ref ref = s->gpus[g]; /* a copy: adding a GPU may move the array */
    return gp_samples_gpu(s, ref.uuid, ref.index, "", ref.raw_model, ref.host);
}

/* A parent's share of one instance's sample at a time. */
typedef struct mig_part {
    int parent, inst;
    int64_t t;
    double share; /* the instance's utilization times its weight */
} mig_part;

static int by_parent_time(const void *a, const void *b) {
    const mig_part *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->inst > y->inst) - (x->inst < y->inst);
}

/* True when parts[from..to) holds instance inst already. */
static bool has_inst(const mig_part *parts, size_t from, size_t to, int inst) {
    for (size_t k = from; k < to; k++)
        if (parts[k].inst == inst)
            return true;
    return false;
}

void gp_samples_mig_rollup(gp_samples *s) {
    size_t room = s->n_gpus * 2 + 16, np = 0, capp = 0;
    unsigned char *own = gp_xcalloc(room, 1); /* a GPU's own utilization is never replaced */
    for (size_t i = 0; i < s->n; i++) {
        const gp_sample *x = &s->s[i];
        if (x->gpu >= 0 && x->metric == GP_M_GPU_UTIL && !s->gpus[x->gpu].mig[0])
            own[x->gpu] = 1;
    }
    mig_part *parts = NULL;
    size_t n = s->n;
    for (size_t i = 0; i < n; i++) {
        gp_sample x = s->s[i];
        if (x.gpu < 0 || x.metric != GP_M_GPU_UTIL || !s->gpus[x.gpu].mig[0])
            continue;
        int p = parent_of(s, x.gpu);
        if ((size_t)p >= room || own[p])
            continue;
        double w = gp_mig_weight(s->gpus[x.gpu].mig, s->gpus[x.gpu].model) * x.value;
        parts = gp_xgrow(parts, &capp, np, sizeof *parts, 64);
        parts[np++] = (mig_part){p, x.gpu, x.ts_ms, w};
    }
    free(own);
    if (np)
        qsort(parts, np, sizeof *parts, by_parent_time);
    gp_err ignored; /* past the batch's limit the GPU keeps only its instances' samples */
    /* One fetch's instances carry their own times (Prometheus /federate stamps each series):
     * a parent's sample gathers its instances in time order until one comes again (the next
     * fetch of a saved scrape), at the first one's time. */
    for (size_t i = 0; i < np;) {
        mig_part t = parts[i];
        size_t j = i + 1;
        for (; j < np && parts[j].parent == t.parent && !has_inst(parts, i, j, parts[j].inst); j++)
            t.share += parts[j].share;
        if (gp_samples_add(s, t.parent, GP_M_GPU_UTIL, t.share, t.t, -1, &ignored) != GP_OK)
            break;
        i = j;
    }
    free(parts);
}

/* An instance's rows of one bucket (one per label set it had) before weighting. */
typedef struct inst_part {
    int parent, gpu;
    int64_t bucket;
    long long n;
    double sum, min, max;
} inst_part;

static int by_parent_bucket_instance(const void *a, const void *b) {
    const inst_part *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->bucket != y->bucket)
        return (x->bucket > y->bucket) - (x->bucket < y->bucket);
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

gp_status gp_rollups_mig_rollup(gp_rollups *b, gp_err *err) {
    size_t room = b->gpus.n_gpus * 2 + 16, np = 0, capp = 0;
    unsigned char *own = gp_xcalloc(room, 1); /* a GPU's own utilization is never replaced */
    /* An instance is one entry per label set: gpu names the instance by its first entry. */
    int *inst = gp_xmalloc(room * sizeof *inst);
    for (size_t i = 0, ng = b->gpus.n_gpus; i < ng; i++) {
        gp_gpu_ref g = b->gpus.gpus[i]; /* a copy: adding a GPU may move the array */
        inst[i] = g.label_set
                      ? gp_samples_gpu(&b->gpus, g.uuid, g.index, g.mig, g.raw_model, g.host)
                      : (int)i;
    }
    for (size_t i = 0; i < b->n; i++) {
        const gp_rollup *r = &b->r[i];
        if (r->metric == GP_M_GPU_UTIL && !b->gpus.gpus[r->gpu].mig[0] && (size_t)r->gpu < room)
            own[inst[r->gpu] < (int)room ? inst[r->gpu] : r->gpu] = 1;
    }
    inst_part *parts = NULL;
    size_t n = b->n;
    for (size_t i = 0; i < n; i++) {
        gp_rollup r = b->r[i];
        if (r.metric != GP_M_GPU_UTIL || !b->gpus.gpus[r.gpu].mig[0] || r.n < 1 ||
            (size_t)r.gpu >= room)
            continue;
        int p = parent_of(&b->gpus, r.gpu);
        if ((size_t)p >= room || own[p])
            continue;
        parts = gp_xgrow(parts, &capp, np, sizeof *parts, 256);
        parts[np++] = (inst_part){p, inst[r.gpu], r.bucket_ms, r.n, r.sum, r.min, r.max};
    }
    free(own);
    free(inst);
    if (np)
        qsort(parts, np, sizeof *parts, by_parent_bucket_instance);
    gp_status rc = GP_OK;
    for (size_t i = 0; i < np && rc == GP_OK;) {
        double mean = 0, min = 0, max = 0;
        size_t j = i;
        while (j < np && parts[j].parent == parts[i].parent && parts[j].bucket == parts[i].bucket) {
            inst_part x = parts[j++];
            for (; j < np && parts[j].parent == x.parent && parts[j].bucket == x.bucket &&
                   parts[j].gpu == x.gpu;
                 j++) { /* the instance's label sets in the bucket: its mean over them */
                x.n += parts[j].n;
                x.sum += parts[j].sum;
                x.min = parts[j].min < x.min ? parts[j].min : x.min;
                x.max = parts[j].max > x.max ? parts[j].max : x.max;
            }
            const gp_gpu_ref *g = &b->gpus.gpus[x.gpu];
            double w = gp_mig_weight(g->mig, g->model);
            mean += w * x.sum / (double)x.n;
            min += w * x.min;
            max += w * x.max;
        }
        /* One reading a bucket: its mean is the instances' weighted means. */
        rc = gp_rollups_add(b, parts[i].parent, GP_M_GPU_UTIL, parts[i].bucket, 1, mean, min, max,
                            err);
        i = j;
    }
    free(parts);
    return rc;
}
