/* A set of metric families as an exporter serves them (pure data, model layer): each family a
 * name, a type, a unit, a help text and fixed label names; each sample its label values and a
 * value. src/app/exporter.c fills one, report_metrics.h writes it in the Prometheus text format
 * or OpenMetrics.
 *
 * Names: a counter's family is named without "_total" and an info family without "_info" (the
 * writers add them, as OpenMetrics names families); a unit, when given, is the name's suffix.
 *
 * Ownership: the set owns its families, their samples and the label values (copied); names,
 * help texts and label names are borrowed (string literals). Free with gp_metric_set_done
 * (safe on a zeroed set and twice). Errors: none; allocation failure aborts (xmem.h). */
#ifndef GPUPLAN_METRICS_H
#define GPUPLAN_METRICS_H

#include <stddef.h>

#define GP_METRIC_LABELS 6 /* label names a family may have */

typedef enum gp_metric_type { GP_METRIC_GAUGE, GP_METRIC_COUNTER, GP_METRIC_INFO } gp_metric_type;

typedef struct gp_metric_sample {
    char *values[GP_METRIC_LABELS]; /* one per label name of the family */
    double v;
} gp_metric_sample;

typedef struct gp_metric_family {
    const char *name, *help, *unit; /* unit: NULL or "" for none */
    gp_metric_type type;
    const char *labels[GP_METRIC_LABELS];
    int n_labels;
    gp_metric_sample *s;
    size_t n, cap;
} gp_metric_family;

typedef struct gp_metric_set {
    gp_metric_family **f; /* each allocated on its own: a family's address never moves */
    size_t n, cap;
} gp_metric_set;

/* A new family at the end of set, with the label names in labels (NULL-terminated, at most
 * GP_METRIC_LABELS; NULL for none). The pointer lives as long as the set. */
gp_metric_family *gp_metric_family_add(gp_metric_set *set, const char *name, gp_metric_type type,
                                       const char *unit, const char *help,
                                       const char *const *labels);
/* A sample of f: one label value per label name (NULL reads as ""), then the value. */
void gp_metric_add(gp_metric_family *f, double v, const char *const *values);
/* The family called name (without "_total" or "_info"), or NULL. */
gp_metric_family *gp_metric_family_find(gp_metric_set *set, const char *name);
void gp_metric_set_done(gp_metric_set *set);

#endif
