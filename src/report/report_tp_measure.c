/* Text of `throughput import --prometheus` and `throughput history` (report_tp_measure.h). */
#include <stdio.h>

#include "gpuplan/report_tp_measure.h"
#include "gpuplan/text.h"

#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

gp_status gp_report_tp_measure_text(const gp_tp_measurement *m, int n, const gp_tp_pod *orphans,
                                    size_t n_orphans, size_t pods, size_t idle, size_t unnamed,
                                    gp_buf *out) {
    gp_status st = GP_OK;
    if (n)
        P("measured %s..%s, %zu serving pod%s; stored as the measured figure (it wins over the "
          "estimate):\n",
          m[0].window_from, m[0].window_to, pods, pods == 1 ? "" : "s");
    P("%-14s %-22s %14s %-8s %8s %12s %10s %6s %5s %s\n", "GPU", "PROFILE", "PER BUSY GPU-H",
      "UNIT", "COUNTED", "M TOKENS", "GPU-H HELD", "BUSY", "PODS", "ENGINE");
    for (int i = 0; i < n; i++)
        P("%-14s %-22s %14.4f %-8s %8s %12.4f %10.2f %5.1f%% %5d %s\n", m[i].t.gpu, m[i].t.profile,
          m[i].t.value, m[i].t.unit, m[i].counted, m[i].tokens / 1e6, m[i].gpu_hours,
          100 * m[i].busy_share, m[i].pods, m[i].engine);
    for (size_t i = 0; i < n_orphans; i++) {
        char name[512];
        gp_text_clean(orphans[i].name, name, sizeof name);
        P("pod %s (%s): %.4f M tokens, no GPU series carries its pod label: not counted\n",
          name[0] && name[0] != '/' ? name : "(no pod label)", orphans[i].engine,
          orphans[i].tokens / 1e6);
    }
    if (idle)
        P("%zu GPU model%s held by serving pods had no busy bucket or no tokens: no figure\n", idle,
          idle == 1 ? "" : "s");
    if (unnamed)
        P("%zu GPU-buckets of serving pods carry no modelName label: not counted\n", unnamed);
    return st;
}

gp_status gp_report_tp_history_text(const gp_tp_measurement *m, int n, gp_buf *out) {
    gp_status st = GP_OK;
    P("%-14s %-22s %-20s %-20s %14s %-8s %10s %6s\n", "GPU", "PROFILE", "FROM", "TO",
      "PER BUSY GPU-H", "UNIT", "GPU-H HELD", "BUSY");
    for (int i = 0; i < n; i++) {
        P("%-14s %-22s %-20s %-20s %14.4f %-8s %10.2f %5.1f%%\n", m[i].t.gpu, m[i].t.profile,
          m[i].window_from, m[i].window_to, m[i].t.value, m[i].t.unit, m[i].gpu_hours,
          100 * m[i].busy_share);
        char src[GP_TP_SOURCE_BYTES];
        gp_text_clean(m[i].t.source, src, sizeof src);
        P("    measured at %s: %s\n", m[i].measured_at, src);
    }
    if (n == 0)
        P("no measured runs: gpuplan throughput import --prometheus URL --profile P\n");
    return st;
}
