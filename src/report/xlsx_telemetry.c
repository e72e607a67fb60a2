/* The Telemetry sheet of the procurement workbook (measured scenarios): one row a GPU, then
 * the chargeback by label with live formulas. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_sheets.h"

/* The Telemetry sheet: the window, then one row a GPU, streamed from tel->next. Plain values
 * (measurements, not formulas); the hot loop of a large fleet export. Returns the row after
 * the last GPU. */
int gp_xlsx_telemetry_sheet(book *b, lxw_worksheet *ws, const gp_xlsx_telemetry *tel) {
    text_cell(b, ws, 0, 0, "measured from", b->bold);
    text_cell(b, ws, 0, 1, tel->since ? tel->since : "", NULL);
    text_cell(b, ws, 0, 2, "until", b->bold);
    text_cell(b, ws, 0, 3, tel->until ? tel->until : "", NULL);
    text_cell(b, ws, 0, 4, "busy at", b->bold);
    num_cell(b, ws, 0, 5, tel->busy_threshold, b->pct);
    static const char *const heads[] = {
        "node",       "GPU",         "model", "UUID", "hours observed", "mean utilization",
        "busy share", "mean power W"};
    enum { HEAD = 2 };
    for (int c = 0; c < 8; c++)
        text_cell(b, ws, HEAD, c, heads[c], b->bold);
    lxw_row_t row = HEAD + 1;
    gp_xlsx_gpu g;
    while (!b->rc && row < LXW_ROW_MAX && tel->next(tel->arg, &g) == 1) {
        text_cell(b, ws, (int)row, 0, g.node ? g.node : "", NULL);
        num_cell(b, ws, (int)row, 1, g.index, NULL);
        text_cell(b, ws, (int)row, 2, g.model ? g.model : "", NULL);
        text_cell(b, ws, (int)row, 3, g.uuid ? g.uuid : "", NULL);
        num_cell(b, ws, (int)row, 4, g.hours, b->num);
        num_cell(b, ws, (int)row, 5, g.util_mean, b->pct);
        num_cell(b, ws, (int)row, 6, g.busy_share, b->pct);
        if (g.has_power)
            num_cell(b, ws, (int)row, 7, g.power_mean_w, b->num);
        row++;
    }
    worksheet_set_column(ws, 0, 0, 24, NULL);
    worksheet_set_column(ws, 1, 1, 6, NULL);
    worksheet_set_column(ws, 2, 2, 18, NULL);
    worksheet_set_column(ws, 3, 3, 42, NULL);
    worksheet_set_column(ws, 4, 7, 16, NULL);
    worksheet_freeze_panes(ws, HEAD + 1, 0);
    if (row > HEAD + 1)
        worksheet_autofilter(ws, HEAD, 0, row - 1, 7);
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_repeat_rows(ws, HEAD, HEAD);
    return (int)row;
}

/* Below the GPU rows from `row` on: the chargeback of `capacity --by LABEL` with live formulas.
 * The all-in cost of a GPU-hour is the Plan's self-hosted total over demand GPUs x horizon x
 * 730 h (so it follows the Assumptions); each label value pays its busy GPU-hours at it, and
 * the idle GPU-hours (present, used by no one) are a row of their own, so the rows sum to the
 * fleet's cost. */
void gp_xlsx_chargeback_rows(wbctx *x, lxw_worksheet *ws, int row, const gp_xlsx_telemetry *tel) {
    book *b = x->b;
    double hours = (double)x->s->gpus * x->M * GP_MONTH_HOURS;
    double rate = hours > 0 ? x->r->self.total / hours : 0;
    char total[64], label[160];
    ref(total, sizeof total, "Plan", x->M + 2, x->c.flow);
    row++;
    snprintf(label, sizeof label, "Chargeback by %s", tel->charge_label);
    text_cell(b, ws, row++, 0, label, b->bold);
    text_cell(b, ws, row, 0, "all-in cost of a GPU-hour (self-hosted total / GPU-hours owned)",
              NULL);
    int rate_row = row + 1;
    gp_xlsx_formula(b, ws, row++, 1, rate, b->money,
                    "=IF(gpus*horizon_months=0,0,%s/(gpus*horizon_months*%g))", total,
                    GP_MONTH_HOURS);
    text_cell(b, ws, row, 0, "GPU-hours present in the window", NULL);
    int present_row = row + 1;
    num_cell(b, ws, row++, 1, tel->present_gpu_hours, b->num);
    static const char *const heads[] = {"value", "busy GPU-hours used", "all-in cost"};
    for (int c = 0; c < 3; c++)
        text_cell(b, ws, row, c, c == 0 ? tel->charge_label : heads[c], b->bold);
    row++;
    int first = row + 1;
    double used = 0;
    for (size_t i = 0; i < tel->n_charges && !b->rc; i++, row++) {
        const gp_xlsx_charge *ch = &tel->charges[i];
        text_cell(b, ws, row, 0, ch->value ? ch->value : "(no label)", NULL);
        num_cell(b, ws, row, 1, ch->gpu_hours_used, b->num);
        gp_xlsx_formula(b, ws, row, 2, ch->gpu_hours_used * rate, b->money, "=B%d*$B$%d", row + 1,
                        rate_row);
        used += ch->gpu_hours_used;
    }
    int last = row; /* 1-based row of the last value; < first when there is none */
    text_cell(b, ws, row, 0, "(idle: present, used by no one)", NULL);
    if (last >= first)
        gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours - used, b->num, "=$B$%d-SUM(B%d:B%d)",
                        present_row, first, last);
    else
        gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours, b->num, "=$B$%d", present_row);
    gp_xlsx_formula(b, ws, row, 2, (tel->present_gpu_hours - used) * rate, b->money, "=B%d*$B$%d",
                    row + 1, rate_row);
    row++;
    text_cell(b, ws, row, 0, "fleet", b->bold);
    gp_xlsx_formula(b, ws, row, 1, tel->present_gpu_hours, b->num, "=SUM(B%d:B%d)", first, row);
    gp_xlsx_formula(b, ws, row, 2, tel->present_gpu_hours * rate, b->money, "=SUM(C%d:C%d)", first,
                    row);
}
