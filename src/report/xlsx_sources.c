/* The Sources sheet of the procurement workbook: version, price sources, the server price's
 * source and the scenario JSON (plain text, not formulas). */
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

/* Where the server purchase price came from: the sentence of the scenario's notes that
 * `scenario draft` writes ("Server price: ITEM (DATE, SOURCE) scaled to N GPUs a server"), else
 * the scenario itself. */
static void server_price_source(const gp_report_meta *meta, char *out, size_t cap) {
    const cJSON *notes = meta && meta->scenario_json
                             ? cJSON_GetObjectItemCaseSensitive(meta->scenario_json, "notes")
                             : NULL;
    const char *n = cJSON_GetStringValue(notes), *at = n ? strstr(n, "Server price: ") : NULL;
    if (!at) {
        snprintf(out, cap, "given in the scenario (self_hosted.server_price)");
        return;
    }
    at += strlen("Server price: ");
    const char *end = strstr(at, ". ");
    size_t len = end ? (size_t)(end - at) : strlen(at);
    snprintf(out, cap, "%.*s (the scenario's notes)", (int)(len < 400 ? len : 400), at);
}

void gp_xlsx_sources_sheet(book *b, lxw_worksheet *src, const gp_scenario *s,
                           const gp_report_meta *meta) {
    int row = 0;
    text_cell(b, src, row, 0, "gpuplan", b->bold);
    text_cell(b, src, row++, 1, meta && meta->version ? meta->version : "", NULL);
    text_cell(b, src, row, 0, "cost model", b->bold);
    num_cell(b, src, row++, 1, GP_MODEL_VERSION, NULL);
    text_cell(b, src, row, 0, "prices as of", b->bold);
    text_cell(b, src, row++, 1, meta && meta->as_of ? meta->as_of : "", NULL);
    row++;
    static const char *const sh2[] = {
        "option",        "catalog entry",  "pricing",     "hourly",
        "upfront",       "effective from", "source",      "listed in",
        "exchange rate", "rate of",        "rate source", "rate age on prices as of (days)",
        "rate stale"};
    for (int c = 0; c < 13; c++)
        text_cell(b, src, row, c, sh2[c], b->bold);
    row++;
    for (int k = 0; meta && k < meta->n_sources; k++, row++) {
        const gp_price_source *ps = &meta->sources[k];
        text_cell(b, src, row, 0, ps->option, NULL);
        text_cell(b, src, row, 1, ps->catalog, NULL);
        text_cell(b, src, row, 2, gp_pricing_name(ps->pricing), NULL);
        num_cell(b, src, row, 3, ps->hourly, b->num);
        if (ps->pricing == GP_COMMITTED)
            num_cell(b, src, row, 4, ps->upfront, b->num);
        text_cell(b, src, row, 5, ps->effective_from, NULL);
        text_cell(b, src, row, 6, ps->source, NULL);
        if (ps->fx_rate > 0) { /* 2.1: the rate is an input on Assumptions; this is its record */
            text_cell(b, src, row, 7, ps->currency, NULL);
            num_cell(b, src, row, 8, ps->fx_rate, b->num);
            text_cell(b, src, row, 9, ps->fx_date, NULL);
            text_cell(b, src, row, 10, ps->fx_source, NULL);
            long age = gp_fx_rate_age_days(ps, meta->as_of);
            if (age >= 0)
                num_cell(b, src, row, 11, (double)age, NULL);
            if (age > GP_FX_STALE_DAYS) {
                char flag[48];
                snprintf(flag, sizeof flag, "stale: over %d days old", GP_FX_STALE_DAYS);
                text_cell(b, src, row, 12, flag, NULL);
            }
        }
    }
    row++;
    text_cell(b, src, row, 0, "self-hosted", b->bold);
    text_cell(b, src, row, 1, "what", b->bold);
    text_cell(b, src, row, 3, "value", b->bold);
    text_cell(b, src, row++, 6, "source", b->bold);
    char from[512];
    server_price_source(meta, from, sizeof from);
    text_cell(b, src, row, 0, "server purchase price", NULL);
    text_cell(b, src, row, 1, "self_hosted.server_price, a server", NULL);
    num_cell(b, src, row, 3, s->server_price, b->num);
    text_cell(b, src, row++, 6, from, NULL);
    row++;
    text_cell(b, src, row++, 0, "scenario JSON", b->bold);
    char *json = meta && meta->scenario_json ? cJSON_PrintUnformatted(meta->scenario_json) : NULL;
    /* Chunks end on a character boundary, so the sanitiser has no half character to replace. */
    for (size_t off = 0, n = json ? strlen(json) : 0, k; off < n; off += k, row++) {
        k = gp_text_utf8_cut(json + off, n - off < 4000 ? n - off : 4000);
        if (k == 0)
            k = 1; /* invalid UTF-8 at the start: let the sanitiser replace that byte */
        char raw[4001], chunk[4001];
        memcpy(raw, json + off, k);
        raw[k] = '\0';
        gp_text_clean(raw, chunk, sizeof chunk);
        keep(b, worksheet_write_string(src, (lxw_row_t)row, 0, chunk, NULL));
    }
    free(json);
    worksheet_set_column(src, 0, 0, 30, NULL);
    worksheet_set_column(src, 1, 6, 20, NULL);
    finish_sheet(src, true, -1);
}
