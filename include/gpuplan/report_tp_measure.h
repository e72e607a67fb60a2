/* Rendering `gpuplan throughput import --prometheus` (the service in app_tp_measure.h): the figures
 * stored per GPU model with their window, tokens, GPU-hours and busy share, then the pods whose
 * tokens met no GPU; and `gpuplan throughput history`, the runs kept. Renderers append to out and
 * never print; outside text (pod names, sources) is the front end's to clean.
 *
 * Errors: GP_E_LIMIT when out is full. */
#ifndef GPUPLAN_REPORT_TP_MEASURE_H
#define GPUPLAN_REPORT_TP_MEASURE_H

#include "gpuplan/throughput.h"
#include "gpuplan/xmem.h"

/* The figures m[0..n) of one run, then the pods whose tokens met no GPU, and the counts of GPU
 * models with no figure (idle) and of GPU-buckets without a modelName (unnamed). */
gp_status gp_report_tp_measure_text(const gp_tp_measurement *m, int n, const gp_tp_pod *orphans,
                                    size_t n_orphans, size_t pods, size_t idle, size_t unnamed,
                                    gp_buf *out);
/* One line a run, oldest first, each with its source below. */
gp_status gp_report_tp_history_text(const gp_tp_measurement *m, int n, gp_buf *out);

#endif
