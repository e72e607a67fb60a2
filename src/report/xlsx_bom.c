/* The BOM sheet of the procurement workbook: servers, network and fixed capex, live on the
 * Batches sheet. */
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

void gp_xlsx_bom_sheet(wbctx *x, lxw_worksheet *bom) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    const gp_self_result *sr = &x->r->self;
    static const char *const bh[] = {"item", "quantity", "unit price", "extended"};
    for (int c = 0; c < 4; c++)
        text_cell(b, bom, 0, c, bh[c], b->bold);
    char n[64], nw[64], unit[64], beta[64];
    batch_range(x, n, sizeof n, B_N);
    batch_range(x, nw, sizeof nw, B_NEW);
    batch_range(x, unit, sizeof unit, B_UNIT);
    batch_range(x, beta, sizeof beta, B_BETA);
    int bought = 0, fresh = 0;
    for (int i = 0; i < sr->n_batches; i++) {
        bought += sr->batches[i].servers;
        fresh += sr->batches[i].refresh ? 0 : sr->batches[i].servers;
    }
    text_cell(b, bom, 1, 0, "GPU servers, every delivery (after trend and bulk discounts)", NULL);
    gp_xlsx_formula(b, bom, 1, 1, bought, NULL, "=SUM(%s)", n);
    gp_xlsx_formula(b, bom, 1, 2, s->server_price * s->price_factor, b->money,
                    "=server_price*price_factor");
    gp_xlsx_formula(b, bom, 1, 3, sr->hardware_capex - fresh * s->network_per_server, b->money,
                    "=SUMPRODUCT(%s,%s,1-%s)", n, unit, beta);
    text_cell(b, bom, 2, 0, "network, per new server", NULL);
    gp_xlsx_formula(b, bom, 2, 1, fresh, NULL, "=SUM(%s)", nw);
    gp_xlsx_formula(b, bom, 2, 2, s->network_per_server, b->money, "=network_per_server");
    gp_xlsx_formula(b, bom, 2, 3, fresh * s->network_per_server, b->money, "=B3*C3");
    text_cell(b, bom, 3, 0, "fixed capex (install, racks)", NULL);
    gp_xlsx_formula(b, bom, 3, 1, bought > 0, NULL, "=IF(B2>0,1,0)");
    gp_xlsx_formula(b, bom, 3, 2, s->fixed_capex, b->money, "=fixed_capex");
    gp_xlsx_formula(b, bom, 3, 3, bought > 0 ? s->fixed_capex : 0, b->money, "=B4*C4");
    text_cell(b, bom, 4, 0, "capex", b->bold);
    gp_xlsx_formula(b, bom, 4, 3, sr->capex, b->money, "=SUM(D2:D4)");
    text_cell(b, bom, 6, 0, "Batches lists each delivery: its servers, price and exit value.",
              b->note);
    worksheet_set_column(bom, 0, 0, 56, NULL);
    worksheet_set_column(bom, 1, 3, 16, NULL);
    finish_sheet(bom, false, 0);
}
