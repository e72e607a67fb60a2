/* Metric families and their samples (metrics.h). */
#include "gpuplan/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "gpuplan/xmem.h"

gp_metric_family *gp_metric_family_add(gp_metric_set *set, const char *name, gp_metric_type type,
                                       const char *unit, const char *help,
                                       const char *const *labels) {
    /* Each family on its own, so a pointer handed out stays valid as more are added. */
    set->f = gp_xgrow(set->f, &set->cap, set->n, sizeof *set->f, 32);
    gp_metric_family *f = gp_xcalloc(1, sizeof *f);
    set->f[set->n++] = f;
    f->name = name;
    f->type = type;
    f->unit = unit;
    f->help = help;
    for (int i = 0; labels && labels[i] && i < GP_METRIC_LABELS; i++)
        f->labels[f->n_labels++] = labels[i];
    return f;
}

void gp_metric_add(gp_metric_family *f, double v, const char *const *values) {
    f->s = gp_xgrow(f->s, &f->cap, f->n, sizeof *f->s, 16);
    gp_metric_sample *s = &f->s[f->n++];
    memset(s, 0, sizeof *s);
    for (int i = 0; i < f->n_labels; i++)
        s->values[i] = gp_xstrdup(values && values[i] ? values[i] : "");
    s->v = v;
}

gp_metric_family *gp_metric_family_find(gp_metric_set *set, const char *name) {
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->f[i]->name, name))
            return set->f[i];
    return NULL;
}

void gp_metric_set_done(gp_metric_set *set) {
    for (size_t i = 0; i < set->n; i++) {
        gp_metric_family *f = set->f[i];
        for (size_t k = 0; k < f->n; k++)
            for (int j = 0; j < f->n_labels; j++)
                free(f->s[k].values[j]);
        free(f->s);
        free(f);
    }
    free(set->f);
    memset(set, 0, sizeof *set);
}
