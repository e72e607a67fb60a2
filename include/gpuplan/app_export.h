/* The procurement workbook both front ends write (`report --format xlsx`, `x` in the TUI):
 * the engine's result, and for a measured scenario the per-GPU statistics of its measured
 * window read back from the store for the Telemetry sheet.
 *
 * Errors: the workbook writer's (GP_E_IO with the path), the store's. A scenario measured
 * on another database gets the window and no rows, not an error. */
#ifndef GPUPLAN_APP_EXPORT_H
#define GPUPLAN_APP_EXPORT_H

#include "gpuplan/app_scenario.h"
#include "gpuplan/report_xlsx.h"

gp_status gp_export_xlsx(gp_session *s, const gp_loaded *sc, const gp_result *r, const char *as_of,
                         const char *path, gp_err *err);

/* The same with the reader's choices (report_xlsx.h; NULL: the defaults). */
gp_status gp_export_xlsx_opt(gp_session *s, const gp_loaded *sc, const gp_result *r,
                             const char *as_of, const gp_xlsx_options *opt, const char *path,
                             gp_err *err);

#endif
