/* "What decides this": the few assumptions that settle own-or-rent, said with the scenario's
 * numbers, for the opening of the Markdown report and the workbook's Summary sheet.
 *
 * Ownership: plain value structs filled in the caller's storage; nothing is allocated. The
 * lines are plain text (outside names included as given): each writer makes them safe for
 * its format (md_text, gp_text_clean). */
#ifndef GPUPLAN_REPORT_OPENING_H
#define GPUPLAN_REPORT_OPENING_H

#include "gpuplan/engine.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"

#define GP_OPENING_LINES 8
#define GP_OPENING_BYTES 1024

typedef struct gp_opening {
    int n;
    char line[GP_OPENING_LINES][GP_OPENING_BYTES];
} gp_opening;

/* The opening of s and its result r: busy-hours billing with the scenario's demand, the
 * utilization and where it came from (given, or measured: meta->scenario_json's "measured"
 * record and its window), the electricity price and its source (the default flat tariff, or
 * the scenario's periods by name), and the break-even utilization and price of the options
 * that have them. meta may be NULL (then nothing is known to be measured or given). */
void gp_report_opening(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_opening *out);

/* One row of the Assumptions that shows an input at its default or zero: label and text
 * ("colocation", "0 — not given"). */
typedef struct gp_unset_input {
    char label[64];
    char text[160];
} gp_unset_input;

#define GP_MAX_UNSET 16

/* The inputs of s left at a default or zero: every running cost of gp_zero_costs that is 0
 * (said "not given" when meta->scenario_json lacks its key, "given as 0" otherwise), then
 * the power keys, PUE, tariff and resale value the scenario does not give.
 * Returns the count written to out[0..GP_MAX_UNSET). */
int gp_report_unset_inputs(const gp_scenario *s, const gp_report_meta *meta,
                           gp_unset_input out[GP_MAX_UNSET]);

/* Spot capacity can be reclaimed. A side rests on spot when it is a spot option, or its
 * bridge (self-hosted) or burst (a committed base) is a spot option that does work in the
 * plan. gp_report_guaranteed gives the cheapest side that does not (-1: self-hosted, else an
 * option's index; the lowest total by docs/model.md's tie rule, the first in report order), false
 * when every side rests on spot. */
bool gp_report_rests_on_spot(const gp_scenario *s, const gp_result *r, int side);
bool gp_report_guaranteed(const gp_scenario *s, const gp_result *r, int *side);
/* Ties (docs/model.md's rule), the one place every renderer finds them. gp_tied_totals: the
 * indexes i != w of total[0..n) equal to total[w] (0 <= w < n) and not skip[i] (skip may be
 * NULL), in order, into tied[0..cap); returns how many there are (may exceed cap).
 * gp_report_tied: the same over r's sides (-1: self-hosted, then the options, report order),
 * the other sides at side w's total; gp_report_tied(r, r->cheapest, ...) gives the sides tied
 * with the cheapest. gp_report_guaranteed_tied: the other sides with guaranteed capacity (not
 * resting on spot) at side g's total. */
int gp_tied_totals(const double *total, const bool *skip, int n, int w, int *tied, int cap);
int gp_report_tied(const gp_result *r, int w, int *tied, int cap);
int gp_report_guaranteed_tied(const gp_scenario *s, const gp_result *r, int g, int *tied, int cap);
/* The same with self-hosted's total taken without its exit value (2.1: a book value, not
 * cash), the side a reader would pick on cash alone. */
bool gp_report_guaranteed_without_exit(const gp_scenario *s, const gp_result *r, int *side);

/* When the cheapest side rests on spot, the sentence a headline puts beside it: that it is
 * spot, and the cheapest side with guaranteed capacity, its total and by how much it is
 * dearer; when that side is self-hosted with an exit value, the exit value and its basis beside
 * the total, and the guaranteed side cheaper without it if another ("" when the cheapest does
 * not rest on spot). Plain text, as the opening's lines. */
void gp_report_spot_headline(const gp_scenario *s, const gp_result *r, char *out, size_t cap);

/* "What decides this" for spot options: the interruptions a month each is priced at and where
 * that comes from (set in the scenario, the catalog's band, or none), and that spot capacity is
 * no guarantee. false (out untouched) when s has no spot option. */
bool gp_report_spot_line(const gp_scenario *s, const gp_report_meta *meta, char *out, size_t cap);

#endif
