/* A metric set (metrics.h) written as an exporter's /metrics: the Prometheus text format 0.0.4
 * or OpenMetrics 1.0.0 (with # UNIT, counters' "_total", info families' "_info" and # EOF).
 * Label values and help texts are escaped as the formats say; a sample whose value is not
 * finite is left out.
 *
 * Ownership: out is the caller's buffer, appended to. Errors: GP_E_LIMIT when out's limit is
 * reached (out then holds a prefix the caller discards). */
#ifndef GPUPLAN_REPORT_METRICS_H
#define GPUPLAN_REPORT_METRICS_H

#include <stdbool.h>

#include "gpuplan/error.h"
#include "gpuplan/metrics.h"
#include "gpuplan/xmem.h"

/* The Content-Type of each format. */
#define GP_METRICS_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define GP_METRICS_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

gp_status gp_report_metrics(const gp_metric_set *set, bool openmetrics, gp_buf *out);

/* Whether an HTTP Accept header asks for OpenMetrics: it names application/openmetrics-text
 * with a q-value above that of every text/plain or wildcard it also names (Prometheus sends
 * "application/openmetrics-text;version=1.0.0,...;q=0.5,text/plain;version=0.0.4;q=0.4"). A
 * missing header (NULL) is the text format. */
bool gp_metrics_accepts_openmetrics(const char *accept);

#endif
