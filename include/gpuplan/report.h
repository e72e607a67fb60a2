/* Report writers: a scenario and its result in, text out (JSON, Markdown, CSV).
 *
 * No database and no network: everything a report shows comes in through the arguments, so
 * a report reproduces from its own scenario_json. Output is appended to a caller's gp_buf;
 * on failure the buffer may hold a partial report and the caller discards it. */
#ifndef GPUPLAN_REPORT_H
#define GPUPLAN_REPORT_H

#include <cjson/cJSON.h>

#include "gpuplan/error.h"
#include "gpuplan/model.h"
#include "gpuplan/scenario.h"
#include "gpuplan/xmem.h"

/* One catalog price a report used (MODEL.md "sources"). */
typedef struct gp_price_source {
    char option[GP_NAME_BYTES];
    char catalog[GP_CATALOG_BYTES];
    gp_pricing pricing;
    double hourly;
    char effective_from[11]; /* YYYY-MM-DD */
    char source[256];
} gp_price_source;

typedef struct gp_report_meta {
    const char *as_of; /* YYYY-MM-DD */
    const gp_price_source *sources;
    int n_sources;
    const cJSON *scenario_json; /* the scenario with catalog prices filled in; borrowed */
    const char *version;        /* gpuplan version, for the md footer */
} gp_report_meta;

/* The report JSON of MODEL.md, pretty-printed. */
gp_status gp_report_json(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         gp_buf *out, gp_err *err);

/* The same report as a cJSON tree the caller frees with cJSON_Delete; NULL only on OOM. */
cJSON *gp_report_json_tree(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta);

/* A readable Markdown report: assumptions, totals, break-even points, cumulative by quarter. */
gp_status gp_report_md(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_buf *out, gp_err *err);

/* The monthly cumulative series: a header row, then one row a month m = 0..M, one column for
 * self-hosted and one per option. */
gp_status gp_report_csv(const gp_scenario *s, const gp_result *r, gp_buf *out, gp_err *err);

/* Append one CSV field: control characters removed first (gp_text_clean), then neutralised
 * as OWASP recommends when what is left starts, after any spaces, with = + - or @ (a leading
 * apostrophe), then quoted when needed. */
gp_status gp_csv_field(gp_buf *out, const char *text);

/* Format money with thousands separators and two decimals ("1,562,288.00") into out. */
void gp_format_money(double v, char *out, size_t cap);

#endif
