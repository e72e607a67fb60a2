/* Fuzz target: what a scraper sends the exporter and what ends up in label values. The input
 * is an Accept header for gp_metrics_accepts_openmetrics, and also a label value and help text
 * written in both formats, whose output must keep one sample a line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/metrics.h"
#include "gpuplan/report_metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    gp_metrics_accepts_openmetrics(s);
    gp_metric_set set = {0};
    static const char *const labels[] = {"v", NULL};
    gp_metric_family *f = gp_metric_family_add(&set, "fuzz", GP_METRIC_GAUGE, NULL, s, labels);
    gp_metric_add(f, 1, (const char *[]){s});
    for (int om = 0; om < 2; om++) {
        gp_buf b;
        gp_buf_init(&b, 1u << 24);
        if (gp_report_metrics(&set, om, &b) != GP_OK)
            abort();
        /* HELP, TYPE, the sample (and # EOF): a raw newline in the input never splits a line. */
        size_t lines = 0;
        for (size_t i = 0; i < b.len; i++)
            lines += b.data[i] == '\n';
        if (lines != (om ? 4u : 3u))
            abort();
        gp_buf_done(&b);
    }
    gp_metric_set_done(&set);
    free(s);
    return 0;
}
