/* A batch run's summary (what each saved scenario decided, and the prices and measured figures
 * it decided on) and the comparison of two summaries: what moved, and which decisions flipped
 * because of it. Pure data and arithmetic (model layer): summary.json is read by
 * formats/batch_json.h and written by report_batch.h.
 *
 * Ownership: a gp_batch_summary owns its scenarios and their arrays, a gp_batch_diff its
 * changes; free them with gp_batch_summary_done and gp_batch_diff_done (safe on zeroed ones,
 * and twice). Errors: none here; the diff cannot fail. */
#ifndef GPUPLAN_BATCH_DIFF_H
#define GPUPLAN_BATCH_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/scenario.h"

#define GP_BATCH_MAX_SCENARIOS 10000
/* A scenario's numeric inputs: every input and GP_MAX_OPTIONS options' (1,456 today; the batch
 * unit test holds the two together). */
#define GP_BATCH_MAX_INPUTS 2048
#define GP_BATCH_SELF "self_hosted" /* the owning choice's name in a summary */

/* One choice of a scenario: owning (GP_BATCH_SELF) or a cloud option, with its totals. */
typedef struct gp_batch_choice {
    char name[GP_NAME_BYTES];
    double total;
    bool has_break_even_month; /* cloud options only: the month owning becomes cheaper */
    int break_even_month;
    bool has_break_even_utilization;
    double break_even_utilization;
    bool has_cost_per_gpu_hour; /* work mode: a busy GPU-hour of the choice's own throughput */
    double cost_per_gpu_hour;
    bool has_cost_per_work_unit; /* a version 2 scenario in work mode */
    double cost_per_work_unit;
} gp_batch_choice;

/* One catalog price a scenario used. */
typedef struct gp_batch_price {
    char option[GP_NAME_BYTES];
    char catalog[GP_CATALOG_BYTES];
    char pricing[16];
    double hourly;
    char effective_from[11];
    char source[256];
    /* 2.1: a price in another currency than the scenario's: its currency, hourly as listed,
     * the rate that converted it (0: not converted), the date that rate took effect, its
     * source. */
    char currency[4];
    double listed_hourly, fx_rate;
    char fx_date[11];
    char fx_source[300];
} gp_batch_price;

/* One numeric input of a scenario (inputs.h): its JSON path, its label, its value as resolved.
 * The strings are the scenario's (gp_batch_scenario_add_input): a run of 10,000 scenarios holds
 * some 700,000 of them, so they take their length, not a name's room. */
typedef struct gp_batch_input {
    char *path;  /* "self_hosted.power.pue", "cloud_options[1].hourly" */
    char *label; /* "PUE", "<option>: hourly" (options matched by name) */
    double value;
} gp_batch_input;

typedef struct gp_batch_scenario {
    char name[GP_NAME_BYTES];
    int version; /* the stored version evaluated; 0 for a file */
    char currency[4];
    int horizon_months;
    char cheapest[GP_NAME_BYTES]; /* GP_BATCH_SELF or an option's name */
    double cheapest_total;
    /* Owning against its strongest rival (the cheapest cloud option): the break-even month. */
    char rival[GP_NAME_BYTES]; /* "" when the scenario has no cloud option */
    bool has_break_even_month;
    int break_even_month;
    /* The demand and power the scenario was evaluated at: measured when `measured`. */
    bool measured;
    double gpus, utilization, gpu_idle_w, gpu_tdp_w;
    char work_unit[GP_UNIT_BYTES]; /* work mode: the unit of work; "" in GPU mode */
    /* The exit value within owning's total (docs/model.md 2.1) and its basis ("residual_pct",
     * "straight_line", "resale"; "" in a summary written before 2.1, the value then 0). */
    double exit_value;
    char exit_basis[16];
    /* Spot can be reclaimed (report_opening.h): when the cheapest rests on spot, the cheapest
     * side with guaranteed capacity; when the strongest rival rests on spot, the cheapest
     * cloud option that does not and owning's break-even month against it. "" when not so or
     * none (and in a summary written before these). */
    char guaranteed[GP_NAME_BYTES];
    char guaranteed_rival[GP_NAME_BYTES];
    bool has_guaranteed_break_even_month;
    int guaranteed_break_even_month;
    gp_batch_choice *choices; /* [0] is owning, then the options in order */
    int n_choices;
    gp_batch_price *prices;
    int n_prices;
    /* The scenario's numeric inputs (at most GP_BATCH_MAX_INPUTS), for the diff to name the
     * ones that moved; none when read from a summary.json written before they were kept. */
    gp_batch_input *inputs;
    int n_inputs, cap_inputs;
    char files[4][64]; /* md, csv, json, xlsx file names in the run's folder; "" when none */
} gp_batch_scenario;

typedef struct gp_batch_summary {
    char day[11];        /* the run's UTC date, YYYY-MM-DD */
    char started_at[21]; /* YYYY-MM-DDTHH:MM:SSZ */
    char as_of[11];      /* the date catalog prices were taken at */
    gp_batch_scenario *s;
    size_t n, cap;
} gp_batch_summary;

/* Room for one more scenario, zeroed; the summary owns it. NULL past GP_BATCH_MAX_SCENARIOS. */
gp_batch_scenario *gp_batch_summary_add(gp_batch_summary *sum);
/* One more input of s, copies of path and label; false (nothing added) past
 * GP_BATCH_MAX_INPUTS. */
bool gp_batch_scenario_add_input(gp_batch_scenario *s, const char *path, const char *label,
                                 double value);
/* Every scenario's inputs let go (a summary too large to keep them: batch.c). */
void gp_batch_summary_drop_inputs(gp_batch_summary *sum);
/* The scenario called name, or NULL. */
const gp_batch_scenario *gp_batch_summary_find(const gp_batch_summary *sum, const char *name);
void gp_batch_summary_done(gp_batch_summary *sum);

typedef enum gp_batch_change_kind {
    GP_CHANGE_PRICE,      /* a catalog price the scenario uses: old -> new, source and date */
    GP_CHANGE_MEASURED,   /* demand or power figure: gpus, utilization, gpu_idle_w, gpu_tdp_w */
    GP_CHANGE_TOTAL,      /* a choice's horizon total moved by more than the threshold */
    GP_CHANGE_BREAK_EVEN, /* the month owning pays off against the rival moved */
    GP_CHANGE_FLIP,       /* the cheapest choice is another one */
    GP_CHANGE_ADDED,      /* a scenario only the new run has */
    GP_CHANGE_REMOVED,    /* a scenario only the old run has */
    GP_CHANGE_EXIT_VALUE, /* the exit value within owning's total: old -> new, what = its basis */
    GP_CHANGE_INPUT       /* a scenario input: what = its label, source = its JSON path */
} gp_batch_change_kind;

typedef struct gp_batch_change {
    gp_batch_change_kind kind;
    char scenario[GP_NAME_BYTES];
    char what[GP_NAME_BYTES]; /* the option, the figure ("utilization"), or the new cheapest */
    char catalog[GP_CATALOG_BYTES];
    bool has_old, has_new;
    double old_v, new_v;
    char old_s[GP_NAME_BYTES]; /* a flip's former cheapest */
    char source[256];          /* a price's new source and effective date */
    char effective_from[11];
    char because[1024]; /* a flip's or a move's explanation: the prices and figures that moved */
} gp_batch_change;

typedef struct gp_batch_diff {
    gp_batch_change *c;
    size_t n, cap;
    int flips;
    double threshold_pct; /* totals moving by more than this (relative, %) are changes */
} gp_batch_diff;

/* Compare new_run against old_run, scenario by scenario (by name; when each side holds exactly
 * one scenario they are compared whatever their names). out is overwritten. */
void gp_batch_diff_run(const gp_batch_summary *old_run, const gp_batch_summary *new_run,
                       double threshold_pct, gp_batch_diff *out);
void gp_batch_diff_done(gp_batch_diff *d);

/* The text of a change kind: "price", "measured", "total", "break_even", "flip", "added",
 * "removed", "exit_value", "input". */
const char *gp_batch_change_name(gp_batch_change_kind k);

#endif
