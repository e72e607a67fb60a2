/* /metrics in the Prometheus text format or OpenMetrics (report_metrics.h). */
#include "gpuplan/report_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* s escaped for a label value (quote too) or a help text (backslash and newline only). */
static gp_status escaped(gp_buf *out, const char *s, bool quote) {
    const char *run = s;
    for (const char *p = s;; p++) {
        const char *rep = *p == '\\'           ? "\\\\"
                          : *p == '\n'         ? "\\n"
                          : quote && *p == '"' ? "\\\""
                                               : NULL;
        if (!rep && *p)
            continue;
        if (p > run && gp_buf_add(out, run, (size_t)(p - run)))
            return GP_E_LIMIT;
        if (!*p)
            return GP_OK;
        if (gp_buf_add(out, rep, strlen(rep)))
            return GP_E_LIMIT;
        run = p + 1;
    }
}

/* The name a family's samples carry, and the name its metadata lines give it. */
static void names_of(const gp_metric_family *f, bool om, char *sample, char *meta, size_t cap) {
    const char *suffix = f->type == GP_METRIC_COUNTER ? "_total"
                         : f->type == GP_METRIC_INFO  ? "_info"
                                                      : "";
    snprintf(sample, cap, "%s%s", f->name, suffix);
    snprintf(meta, cap, "%s", om ? f->name : sample);
}

static gp_status family(const gp_metric_family *f, bool om, gp_buf *out) {
    char sample[256], meta[256];
    names_of(f, om, sample, meta, sizeof sample);
    const char *type = f->type == GP_METRIC_COUNTER ? "counter"
                       : f->type == GP_METRIC_INFO  ? (om ? "info" : "gauge")
                                                    : "gauge";
    if (gp_buf_printf(out, "# HELP %s ", meta) || escaped(out, f->help, false) ||
        gp_buf_printf(out, "\n# TYPE %s %s\n", meta, type))
        return GP_E_LIMIT;
    if (om && f->unit && f->unit[0] && gp_buf_printf(out, "# UNIT %s %s\n", meta, f->unit))
        return GP_E_LIMIT;
    for (size_t i = 0; i < f->n; i++) {
        const gp_metric_sample *s = &f->s[i];
        if (!isfinite(s->v))
            continue;
        if (gp_buf_add(out, sample, strlen(sample)))
            return GP_E_LIMIT;
        for (int k = 0; k < f->n_labels; k++)
            if (gp_buf_printf(out, "%s%s=\"", k ? "," : "{", f->labels[k]) ||
                escaped(out, s->values[k], true) || gp_buf_add(out, "\"", 1))
                return GP_E_LIMIT;
        if (f->n_labels && gp_buf_add(out, "}", 1))
            return GP_E_LIMIT;
        /* %.17g: every double read back exactly; integers print without a fraction. */
        if (gp_buf_printf(out, " %.17g\n", s->v))
            return GP_E_LIMIT;
    }
    return GP_OK;
}

gp_status gp_report_metrics(const gp_metric_set *set, bool openmetrics, gp_buf *out) {
    for (size_t i = 0; i < set->n; i++)
        if (family(set->f[i], openmetrics, out))
            return GP_E_LIMIT;
    if (openmetrics && gp_buf_add(out, "# EOF\n", 6))
        return GP_E_LIMIT;
    if (!out->data && gp_buf_add(out, "", 0))
        return GP_E_LIMIT;
    return GP_OK;
}

/* The q-value of one media range's parameters (";q=0.5"), 1 when none is given. */
static double q_of(const char *params, size_t len) {
    for (size_t i = 0; i + 2 < len; i++)
        if ((params[i] == ';' || params[i] == ' ') &&
            (params[i + 1] == 'q' || params[i + 1] == 'Q') && params[i + 2] == '=') {
            char num[16];
            size_t n = 0;
            for (size_t k = i + 3; k < len && n + 1 < sizeof num && params[k] != ';'; k++)
                num[n++] = params[k];
            num[n] = '\0';
            char *end;
            double q = strtod(num, &end);
            return end == num || !(q >= 0) ? 0 : q > 1 ? 1 : q;
        }
    return 1;
}

bool gp_metrics_accepts_openmetrics(const char *accept) {
    double om = -1, text = -1;
    for (const char *p = accept; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t'))
            p++, len--;
        size_t type_len = strcspn(p, ";,");
        if (type_len > len)
            type_len = len;
        while (type_len && p[type_len - 1] == ' ')
            type_len--;
        double q = q_of(p + type_len, len - type_len);
        static const char om_type[] = "application/openmetrics-text";
        if (type_len == sizeof om_type - 1 && !strncasecmp(p, om_type, type_len))
            om = q > om ? q : om;
        else if ((type_len == 10 && !strncasecmp(p, "text/plain", 10)) ||
                 (type_len == 3 && !strncmp(p, "*/*", 3)) ||
                 (type_len == 6 && !strncasecmp(p, "text/*", 6)))
            text = q > text ? q : text;
        p = end ? end + 1 : p + len;
    }
    return om > 0 && om >= text;
}
