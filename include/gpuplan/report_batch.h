/* A batch run rendered: summary.json, the comparison with an earlier run (JSON and text), the
 * tornado data of a scenario, and the self-contained index.html (inline CSS and SVG drawn by
 * svg.h: no script, no network). Renders from the trees and structs it is given; no database.
 *
 * Ownership: trees returned are the caller's (cJSON_Delete); NULL only on OOM. Writers append
 * to the caller's gp_buf; GP_E_LIMIT when its cap is reached (discard the buffer then). Every
 * string from data (scenario, option and node names, catalog rows) is escaped. */
#ifndef GPUPLAN_REPORT_BATCH_H
#define GPUPLAN_REPORT_BATCH_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/batch_diff.h"
#include "gpuplan/error.h"
#include "gpuplan/scenario.h"
#include "gpuplan/sensitivity.h"
#include "gpuplan/xmem.h"

/* summary.json: {"format": "gpuplan-batch-summary", "day", "started_at", "as_of",
 * "scenarios": [...]} (batch_json.h reads it back). */
cJSON *gp_report_batch_summary_tree(const gp_batch_summary *sum);
/* summary.json's tree and text, the text within max bytes (what a later run reads back): with
 * the scenarios' inputs where that fits, else without them (*dropped, and sum's inputs let go);
 * GP_E_LIMIT (nothing returned) when even that passes max, GP_E_NOMEM when it cannot render. */
gp_status gp_report_batch_summary_text(gp_batch_summary *sum, size_t max, cJSON **tree, char **text,
                                       bool *dropped, gp_err *err);

/* The changes as JSON: {"against": label, "threshold_pct", "flips", "changes": [...]}. */
cJSON *gp_report_batch_diff_tree(const gp_batch_diff *d, const char *against);
/* The changes for people, flips first, one line each ("nothing changed" when none). */
gp_status gp_report_batch_diff_text(const gp_batch_diff *d, const char *against, gp_buf *out);

/* The tornado of one option against owning: the `top` inputs with the largest swing,
 * {"option": name, "delta": d, "rows": [{"input", "low", "high"}]} (low/high: how option total
 * minus owning total moves at each end). */
cJSON *gp_report_tornado_tree(const gp_sensitivity *sens, const gp_scenario *s, int option,
                              int top);

/* A node's mean utilization by UTC hour of day (has[h] false: no data that hour). */
typedef struct gp_heat_row {
    char node[128];
    double util_pct[24];
    bool has[24];
} gp_heat_row;

typedef struct gp_batch_page {
    const cJSON *summary;         /* the summary.json tree */
    const cJSON *diff;            /* the changes tree; NULL when there was nothing to compare */
    const cJSON *const *reports;  /* per scenario of the summary, in order: the report JSON */
    const cJSON *const *tornados; /* per scenario: gp_report_tornado_tree's, or NULL */
    const cJSON *capacity;        /* the capacity JSON (its "nodes" give idle money); NULL: none */
    const gp_heat_row *heat;
    size_t n_heat;
} gp_batch_page;

/* index.html: the decision table, the changes, a section per scenario, the fleet. */
gp_status gp_report_batch_html(const gp_batch_page *page, gp_buf *out, gp_err *err);

/* One scenario's section from its report JSON tree (docs/model.md's report) and its tornado tree
 * (may be NULL): the cumulative cost of every option against owning with the break-even
 * months marked, the monthly plan as steps when demand or the fleet changes over the months
 * (version 2), then the tornado. index numbers the section's id ("s-INDEX"). */
gp_status gp_report_html_scenario(gp_buf *out, const cJSON *report, const cJSON *tornado,
                                  int index);

#endif
