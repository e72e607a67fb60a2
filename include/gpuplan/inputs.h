/* The scenario's inputs, one table: every input a row with its JSON path, how each front end
 * names and shows it, when it applies and how its number is read from a resolved scenario.
 * The workbook's Assumptions sheet (report/xlsx_assumptions.c), the Plan editor's field list
 * (app/plan_fields.c) and the Markdown report's Assumptions (report/report_text.c) all walk or
 * look up these tables, so a new input is one row here.
 *
 * Ownership: static tables, read-only, valid for the program's life; nothing to free.
 * Errors: none; a key not in a table is NULL from the look-ups. */
#ifndef GPUPLAN_INPUTS_H
#define GPUPLAN_INPUTS_H

#include <stdbool.h>

#include "gpuplan/scenario.h"

/* How an input's value is typed and kept in the document. GP_IN_SHAPE is a choice that reshapes
 * the document (the demand mode, the financing kind, an option's pricing) rather than setting
 * one key; GP_IN_LIST is the head of a list (demand steps, bulk tiers, resale points, tariff
 * periods), whose rows the editor shows after it and the workbook writes as tables. */
typedef enum gp_input_type {
    GP_IN_NUMBER,
    GP_IN_INTEGER,
    GP_IN_TEXT,
    GP_IN_CHOICE,
    GP_IN_SHAPE,
    GP_IN_LIST
} gp_input_type;

/* Which demand mode an input belongs to. */
typedef enum gp_input_mode { GP_MODE_ALL, GP_MODE_GPUS, GP_MODE_WORK } gp_input_mode;

/* When a row shows beyond its mode, for one front end. */
enum {
    GP_WHEN_NO_RESALE = 1 << 0, /* no resale curve given (the workbook's residual) */
    GP_WHEN_LOAN = 1 << 1,      /* financed with a loan (the editor's loan terms) */
    GP_WHEN_BASE = 1 << 2,      /* a committed option with a base (option rows) */
    GP_WHEN_PRICED = 1 << 3,    /* an option priced in the scenario, not by a catalog reference */
    GP_WHEN_CATALOG = 1 << 4,   /* an option priced by a catalog reference */
};

/* A unit that stands for the scenario's unit of work (compare by address); a NULL sheet unit
 * stands for its currency. */
extern const char GP_INPUT_WORK_UNIT[];

/* One input of the scenario (not of an option). */
typedef struct gp_input {
    const char *key; /* JSON path: "self_hosted.power.pue"; NULL: a workbook-only derived row */
    gp_input_type type;
    gp_input_mode mode;
    /* Its number in a resolved scenario; NULL where the scenario keeps none (texts, lists,
     * shapes kept as the document says them). */
    double (*value)(const gp_scenario *s);
    /* The workbook's Assumptions row: its defined name (NULL: no scalar row there), label, unit,
     * and the heading of the section it opens (written whether the row applies or not). */
    const char *sheet_name, *sheet_label, *sheet_unit, *sheet_section;
    unsigned sheet_when; /* GP_WHEN_ */
    /* The Plan editor's field: label (NULL: no field) and unit; an optional input is read from
     * the document, absent meaning what absent says ("no cap"), and an empty value removes it. */
    const char *edit_label, *edit_unit;
    bool optional;
    const char *absent;
    unsigned edit_when; /* GP_WHEN_ */
} gp_input;

/* One input of every cloud option: its key within the option ("hourly"), when it applies by
 * pricing kind (a mask of 1 << gp_pricing) for each front end (0: not shown there). */
typedef struct gp_option_input {
    const char *key;
    gp_input_type type;
    gp_input_mode mode;
    double (*value)(const gp_option *o);
    unsigned sheet_pricings;
    const char *sheet_what, *sheet_unit; /* the row "<name>: <what>" and its unit */
    unsigned sheet_when;                 /* GP_WHEN_ */
    unsigned edit_pricings;
    const char *edit_label, *edit_unit;
    bool optional;
    const char *absent;
    unsigned edit_when; /* GP_WHEN_ */
} gp_option_input;

/* The tables, in the order every front end shows them (docs/model.md's key table). */
extern const gp_input gp_inputs[];
extern const int gp_n_inputs;
extern const gp_option_input gp_option_inputs[];
extern const int gp_n_option_inputs;

/* The row of key ("demand.utilization", "hourly"), or NULL. */
const gp_input *gp_input_find(const char *key);
const gp_option_input *gp_option_input_find(const char *key);

/* Whether a row's mode admits s's demand mode. */
bool gp_input_mode_fits(gp_input_mode mode, const gp_scenario *s);

/* Whether a row shows in s for a front end whose when-mask is when (sheet_when or edit_when):
 * its mode fits and every condition in when holds. */
bool gp_input_shows(const gp_input *in, unsigned when, const gp_scenario *s);

/* Whether an option row shows for option o of s given a front end's pricing mask and when-mask;
 * has_catalog says whether o is a catalog reference (the document's word, as the resolved
 * option has its prices filled in). */
bool gp_option_input_shows(const gp_option_input *in, unsigned pricings, unsigned when,
                           const gp_scenario *s, const gp_option *o, bool has_catalog);

#endif
