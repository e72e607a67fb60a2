/* The procurement workbook (`report --format xlsx`): every input on an Assumptions sheet with a
 * defined name, every computed cell a live formula over it with the engine's value cached, so
 * a viewer that does not recalculate still shows the right number and a changed assumption
 * updates every sheet and chart. Only src/report/xlsx*.c calls libxlsxwriter.
 *
 * The file is written to PATH.tmp.PID beside path and renamed only once complete; on failure
 * nothing is left at path. Errors: GP_E_IO with the library's message. */
#ifndef GPUPLAN_REPORT_XLSX_H
#define GPUPLAN_REPORT_XLSX_H

#include "gpuplan/report.h"

gp_status gp_report_xlsx(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         const char *path, gp_err *err);

#endif
