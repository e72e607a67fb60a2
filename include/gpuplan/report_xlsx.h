/* The procurement workbook (`report --format xlsx`): every input on an Assumptions sheet with a
 * defined name, every computed cell a live formula over it with the engine's value cached, so
 * a viewer that does not recalculate still shows the right number and a changed assumption
 * updates every sheet and chart. Only src/report/xlsx*.c calls libxlsxwriter.
 *
 * The file is written to PATH.tmp.PID beside path and renamed only once complete; on failure
 * nothing is left at path. Errors: GP_E_IO with the library's message. */
#ifndef GPUPLAN_REPORT_XLSX_H
#define GPUPLAN_REPORT_XLSX_H

#include <stdbool.h>

#include "gpuplan/report.h"

/* One GPU's statistics over the measured window, for the Telemetry sheet. */
typedef struct gp_xlsx_gpu {
    const char *node, *model, *uuid; /* outside text: written as strings, cleaned */
    int index;
    double hours;      /* hours with utilization data */
    double util_mean;  /* 0..1 */
    double busy_share; /* 0..1, busy at the threshold */
    bool has_power;
    double power_mean_w;
} gp_xlsx_gpu;

/* One value of the chargeback label and the busy GPU-hours it used in the window. */
typedef struct gp_xlsx_charge {
    const char *value; /* outside text; NULL: samples without the label */
    double gpu_hours_used;
} gp_xlsx_charge;

/* The Telemetry sheet of a measured scenario. Rows are pulled one at a time so a fleet of any
 * size streams through the constant-memory writer: next fills *row (its strings borrowed until
 * the next call) and returns 1, or returns 0 at the end. With charge_label set, a chargeback
 * table follows the rows: each value's GPU-hours at the all-in cost of a GPU-hour (the Plan's
 * self-hosted total over demand GPUs x horizon x 730 h, live on the Assumptions), the idle
 * GPU-hours (present, used by no one) as a row of their own, and the fleet's cost. */
typedef struct gp_xlsx_telemetry {
    const char *since, *until; /* the window, as the scenario's "measured" object gives it */
    double busy_threshold;     /* 0..1 */
    int (*next)(void *arg, gp_xlsx_gpu *row);
    void *arg;
    const char *charge_label;      /* NULL: no chargeback table */
    const gp_xlsx_charge *charges; /* borrowed, n_charges of them */
    size_t n_charges;
    double present_gpu_hours; /* whole GPUs' hours in the window (MIG instances are their GPU's) */
} gp_xlsx_telemetry;

/* Choices of the reader that no scenario key holds. */
typedef struct gp_xlsx_options {
    int fiscal_year_start;     /* 1..12: the first month of the fiscal year; 0 or 1: calendar */
    const char *chargeback_by; /* a measured scenario's workload label to charge back by */
} gp_xlsx_options;

/* tel: NULL when the scenario was not measured (no Telemetry sheet). A result the engine
 * refused (r->error) is refused here too. */
gp_status gp_report_xlsx(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         const gp_xlsx_telemetry *tel, const char *path, gp_err *err);

/* The same with options (NULL: the defaults). */
gp_status gp_report_xlsx_opt(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                             const gp_xlsx_telemetry *tel, const gp_xlsx_options *opt,
                             const char *path, gp_err *err);

#endif
