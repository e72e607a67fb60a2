/* Rendering a comparison of GPU generations (compare.h) and the throughput table
 * (throughput.h): Markdown, CSV and JSON for `gpuplan compare`, text and JSON for
 * `gpuplan throughput list`. Renderers append to out and never print.
 *
 * Errors: GP_E_LIMIT when out is full. */
#ifndef GPUPLAN_REPORT_COMPARE_H
#define GPUPLAN_REPORT_COMPARE_H

#include "gpuplan/compare.h"
#include "gpuplan/error.h"
#include "gpuplan/throughput.h"
#include "gpuplan/xmem.h"

/* The ranked table (rank, GPU, owned or the offer, throughput, GPUs needed, total, cost per
 * unit of work, break-even month against owning), then what could not be compared and why. */
gp_status gp_report_compare_md(const gp_comparison *c, int horizon_months, gp_buf *out);
/* One row a candidate, ranked ones first, with a header. */
gp_status gp_report_compare_csv(const gp_comparison *c, gp_buf *out);
/* {"profile", "unit", "work", "as_of", "rows": [...]} */
gp_status gp_report_compare_json(const gp_comparison *c, gp_buf *out);

/* The workbook of a comparison (docs/workbook.md "Generations"): one row per compared
 * candidate, its inputs editable and every figure a live formula (GPUs needed, total, cost
 * per unit of work, rank, break-even month against owning), with the values compare computed
 * cached. Written to path through gp_output (a file replaced whole, or "-": stdout). Errors:
 * GP_E_INPUT for a tariff that shifts busy hours; GP_E_IO with the library's message. */
gp_status gp_report_compare_xlsx(const gp_comparison *c, const char *path, gp_err *err);

/* The throughput rows (a measured figure marked as the one in use where it beats the
 * estimate), each with its source on the line below. */
gp_status gp_report_throughput_text(const gp_throughput *rows, int n, gp_buf *out);
gp_status gp_report_throughput_json(const gp_throughput *rows, int n, gp_buf *out);

#endif
