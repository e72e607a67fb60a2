/* Report writers: a scenario and its result in, text out (JSON, Markdown, CSV).
 *
 * No database and no network: everything a report shows comes in through the arguments, so
 * a report reproduces from its own scenario_json. Output is appended to a caller's gp_buf;
 * on failure the buffer may hold a partial report and the caller discards it. */
#ifndef GPUPLAN_REPORT_H
#define GPUPLAN_REPORT_H

#include <cjson/cJSON.h>

#include "gpuplan/error.h"
#include "gpuplan/engine.h"
#include "gpuplan/scenario.h"
#include "gpuplan/xmem.h"

/* One catalog price a report used (docs/model.md "sources"). */
typedef struct gp_price_source {
    char option[GP_NAME_BYTES];
    char catalog[GP_CATALOG_BYTES];
    gp_pricing pricing;
    double hourly;              /* the catalog's, before the option's trend, in the scenario's
                                   currency (converted at fx_rate where fx_rate > 0) */
    double upfront;             /* committed: the fee per instance per term */
    bool split_derived;         /* committed: hourly and upfront split from an effective rate */
    char interruption_band[16]; /* spot: the source's band (">20%"), "" when none */
    char effective_from[11];    /* YYYY-MM-DD */
    char source[256];
    /* 2.1: an entry in another currency: its currency, the rate that converted it (scenario
     * currency per unit of it; 0: not converted), the date that rate took effect, its source,
     * and `hourly` in the entry's currency, before the conversion. */
    char currency[4];
    double fx_rate, listed_hourly;
    char fx_date[11];
    char fx_source[300];
} gp_price_source;

/* A converted price's exchange rate is flagged stale when it took effect more than this many
 * days before the date the price is converted for (as_of; docs/model.md). */
#define GP_FX_STALE_DAYS 30

/* How many days ps's exchange rate is older than as_of (YYYY-MM-DD); -1 when the price was not
 * converted or a date is missing or malformed. */
long gp_fx_rate_age_days(const gp_price_source *ps, const char *as_of);

typedef struct gp_report_meta {
    const char *as_of; /* YYYY-MM-DD */
    const gp_price_source *sources;
    int n_sources;
    const cJSON *scenario_json; /* the scenario with catalog prices filled in; borrowed */
    const char *version;        /* gpuplan version, for the md footer */
} gp_report_meta;

/* GP_OK when r may be reported; else r->error (a scenario the engine refused: a missing bridge,
 * a result that is not finite), copied to err. Every writer below checks it first. */
gp_status gp_report_check(const gp_result *r, gp_err *err);

/* The report JSON of docs/model.md, pretty-printed. */
gp_status gp_report_json(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         gp_buf *out, gp_err *err);

/* The same report as a cJSON tree the caller frees with cJSON_Delete; NULL only on OOM. */
cJSON *gp_report_json_tree(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta);

/* A readable Markdown report: assumptions, totals, break-even points, cumulative by quarter. */
gp_status gp_report_md(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_buf *out, gp_err *err);

/* The plan month by month: a header row, then one row per index m = 0..M (row 0 the start,
 * row j the close of month j, labelled YYYY-MM from start_date, else meta->as_of): demand,
 * servers in service, GPUs at work, servers bought and sold, bridge hours, self-hosted's flow
 * and cumulative cost, each option's flow, cumulative cost and burst hours, and the options
 * whose break-even month this is. */
gp_status gp_report_csv(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                        gp_buf *out, gp_err *err);

/* Append one CSV field: control characters removed first (gp_text_clean), then neutralised
 * as OWASP recommends when what is left starts, after any spaces, with = + - or @ (a leading
 * apostrophe), then quoted when needed. */
gp_status gp_csv_field(gp_buf *out, const char *text);

#endif
