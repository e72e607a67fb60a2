/* The Plan editor's fields: every input of the open document as a field to show and edit, built
 * from the table of inputs (inputs.h) for the document's shape (its demand mode, financing,
 * options and their pricing), with a field's value as shown, its choices and the item a typed
 * value becomes. The TUI's Plan screen draws them and sends the changes to app_plan_edit.h.
 *
 * Ownership: gp_plan_fields hands over an array freed with free(); its strings (units, keys,
 * absent) are static, its paths and labels its own. Choices point into the scenario given or
 * static text, valid while that scenario is.
 * Errors: a typed value that is not one is GP_E_INPUT with one line of why (no where); adding a
 * row to a list that is not one of the editor's is GP_E_INPUT naming it; a change of shape
 * refused is as app_reshape.h says. */
#ifndef GPUPLAN_APP_PLAN_FIELDS_H
#define GPUPLAN_APP_PLAN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"
#include "gpuplan/error.h"
#include "gpuplan/inputs.h"
#include "gpuplan/scenario.h"

/* How a field is edited: a number or a text typed, a choice cycled through, or the head of a
 * list whose rows follow it as fields. */
typedef enum gp_field_ui {
    GP_FIELD_NUMBER,
    GP_FIELD_TEXT,
    GP_FIELD_CHOICE,
    GP_FIELD_LIST
} gp_field_ui;

/* Where a field's value is read: the resolved scenario (so a default or a catalog price shows),
 * an option or a tariff period of it, or the document itself (list rows, texts, choices and
 * optional keys, which the struct does not keep as typed). GP_FROM_SHAPE is a choice that
 * reshapes the document (app_reshape.h); GP_FROM_PERIODS and GP_FROM_OPTIONS are the heads of
 * the tariff periods and the cloud options. */
typedef enum gp_field_from {
    GP_FROM_SCENARIO,
    GP_FROM_OPTION,
    GP_FROM_PERIOD_NUMBER,
    GP_FROM_PERIOD_NAME,
    GP_FROM_DOC,
    GP_FROM_LIST,
    GP_FROM_SHAPE,
    GP_FROM_PERIODS,
    GP_FROM_OPTIONS
} gp_field_from;

typedef struct gp_plan_field {
    char path[96];   /* "demand.utilization", "cloud_options[1].hourly", "demand.steps[0].month" */
    char label[256]; /* option and period names whole, as given: a screen cleans and shortens */
    const char *unit;
    const char *key; /* the input's key: "pricing", "demand.mode", a list row's column */
    gp_field_ui ui;
    gp_field_from from;
    bool integer, optional;
    const char *absent;                    /* what an absent optional key (or no choice) means */
    int index;                             /* the option or tariff period, -1 for none */
    char list[48];                         /* the list a row or a head belongs to; else "" */
    int row;                               /* the list element a row edits; -1 for the rest */
    double (*value)(const gp_scenario *s); /* GP_FROM_SCENARIO */
    double (*ovalue)(const gp_option *o);  /* GP_FROM_OPTION */
    size_t period_off;                     /* GP_FROM_PERIOD_NUMBER: offset in gp_period */
} gp_plan_field;

#define GP_PLAN_PERIODS "self_hosted.tariff.periods"
#define GP_PLAN_OPTIONS "cloud_options"

/* Every field of doc resolved as s, in the table's order: *n of them. */
gp_plan_field *gp_plan_fields(const cJSON *doc, const gp_scenario *s, int *n);

/* Field f's value as shown into out: a number from s, a text or an optional key from doc (what
 * its absence means when absent), a list's row count. */
void gp_plan_field_text(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s, char *out,
                        size_t cap);

/* The choices of a GP_FIELD_CHOICE field (NULL: the key removed, its default), at most cap. */
int gp_plan_field_choices(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s,
                          const char **out, int cap);

/* The choice numbered k of the field's choices in force in doc (-1 none of them: 0). */
int gp_plan_field_choice_now(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s);

/* The item a value becomes: typed (text) for a number or text field, parsed as
 * gp_plan_edit_parse does; for a choice field the choice (NULL: *item NULL, the key removed; a
 * flag's "yes" is true). */
gp_status gp_plan_field_item(const gp_plan_field *f, const char *text, cJSON **item, gp_err *err);

/* Put item (taken, in every case; gp_plan_field_item's) into doc as field f's value: a shape
 * choice reshapes doc (app_reshape.h: a profile's throughput or an option's catalog price as of
 * as_of, from the session's store), a tariff period's value first writes in the default flat
 * tariff s (the resolved scenario) shows when doc has none, any other sets f's path (NULL
 * removes the key). Refusals as app_reshape.h gives them; "cannot set PATH" when the path
 * does not lead to an object. */
gp_status gp_plan_field_apply(gp_session *ses, cJSON *doc, const gp_plan_field *f,
                              const gp_scenario *s, cJSON *item, const char *as_of, gp_err *err);

/* Add a row after the last to the list at path in doc (demand steps, resale points, bulk
 * tiers), valid where it can be: later months and ages, the demand in force. *added is its
 * number from 1; *what the row's name ("step"). */
gp_status gp_plan_list_add(cJSON *doc, const char *path, bool work_mode, int *added,
                           const char **what, gp_err *err);

#endif
