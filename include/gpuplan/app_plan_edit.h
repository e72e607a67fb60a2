/* The Plan editor's model: one stored scenario open for editing as a JSON document, changed a
 * field at a time by JSON path ("demand.utilization", "cloud_options[1].hourly") or a whole
 * change at a time (a reshape, a row added), each change validated before it is taken, with
 * undo and redo, dirty state, save (a new version, or under a new name) and rename. The TUI's
 * Plan screen is its front end; it evaluates the document for its results after a change, not
 * while a value is typed.
 *
 * Ownership: gp_plan_edit_open hands over the editor, freed with gp_plan_edit_free (NULL is
 * fine); it borrows the session, which must outlive it. gp_plan_edit_doc's tree stays the
 * editor's and is valid until the next change, undo, redo, save or rename. Items and documents
 * passed in are taken in every case, refused or not. The path helpers read or write the tree
 * given, never copy it.
 * Errors: a refused value or change is GP_E_INPUT with where "$.json.path" (the path the
 * scenario's validation names) and one line of why, the document left as it was; an unknown
 * stored name is GP_E_INPUT or GP_E_NOTFOUND as app_scenarios.h says; store errors as the store
 * reports them. */
#ifndef GPUPLAN_APP_PLAN_EDIT_H
#define GPUPLAN_APP_PLAN_EDIT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpuplan/app_session.h"
#include "gpuplan/error.h"

typedef struct gp_plan_edit gp_plan_edit;

/* How a typed value reads: a number (a percentage "70%" is 0.7, as the CLI takes them), a whole
 * number, or any text. */
typedef enum { GP_EDIT_NUMBER, GP_EDIT_INTEGER, GP_EDIT_TEXT } gp_edit_kind;

/* What a change must pass: the scenario validates (catalog references resolved as of the
 * editor's date), or it also evaluates (the engine takes it: no month needing a missing
 * bridge). A field's value must evaluate; a change of shape need only validate, as what is left
 * to fix then shows in the results. */
typedef enum { GP_EDIT_VALIDATES, GP_EDIT_EVALUATES } gp_edit_check;

/* Open the latest version of the stored scenario name, changes validated as of as_of
 * (YYYY-MM-DD). The stored document need not validate: it opens, and only changes are checked. */
gp_status gp_plan_edit_open(gp_session *s, const char *name, const char *as_of, gp_plan_edit **out,
                            gp_err *err);
void gp_plan_edit_free(gp_plan_edit *pe);

const cJSON *gp_plan_edit_doc(const gp_plan_edit *pe);
const char *gp_plan_edit_name(const gp_plan_edit *pe);
/* The stored version the document was opened as or last saved as. */
int gp_plan_edit_version(const gp_plan_edit *pe);
/* Changed since opened or last saved (an undo back to that point is clean again). */
bool gp_plan_edit_dirty(const gp_plan_edit *pe);
bool gp_plan_edit_can_undo(const gp_plan_edit *pe);
bool gp_plan_edit_can_redo(const gp_plan_edit *pe);
/* A copy of the document to change and hand back to gp_plan_edit_replace (the caller's). */
cJSON *gp_plan_edit_copy(const gp_plan_edit *pe);

/* The item at path ("a.b[2].c") in doc, or NULL. */
cJSON *gp_json_path_get(const cJSON *doc, const char *path);
/* Put item at path in doc, creating objects on the way; item NULL removes the key. Takes item
 * in every case; false when the path goes through a missing element or a non-object. */
bool gp_json_path_set(cJSON *doc, const char *path, cJSON *item);

/* A typed text as the item a field of that kind holds: *item NULL where text is empty and the
 * field optional (the key removed, so its default applies). GP_E_INPUT ("\"x\" is not a
 * number", "a whole number is needed") with no where when it is not one. */
gp_status gp_plan_edit_parse(const char *text, gp_edit_kind kind, bool optional, cJSON **item,
                             gp_err *err);

/* Set the value at path (item taken; NULL removes the key) and keep it when the document then
 * passes check; undo brings the value before back. A value equal to the one in force changes
 * nothing (no undo step). */
gp_status gp_plan_edit_set(gp_plan_edit *pe, const char *path, cJSON *item, gp_edit_check check,
                           gp_err *err);
/* Take doc (taken) as the document when it passes check, as one undo step. */
gp_status gp_plan_edit_replace(gp_plan_edit *pe, cJSON *doc, gp_edit_check check, gp_err *err);

/* Step back or forward through the changes: GP_E_INPUT "nothing to undo" / "nothing to redo". */
gp_status gp_plan_edit_undo(gp_plan_edit *pe, gp_err *err);
gp_status gp_plan_edit_redo(gp_plan_edit *pe, gp_err *err);

/* Save the document as the next version of its name (as NULL), or as version 1 of the new name
 * as (refused when in use), which the editor then edits with its history cleared. */
gp_status gp_plan_edit_save(gp_plan_edit *pe, const char *as, gp_err *err);
/* Rename the stored scenario and its history to to; the document follows, edits and all (its
 * "name" key too), and is no dirtier than before. */
gp_status gp_plan_edit_rename(gp_plan_edit *pe, const char *to, gp_err *err);

#endif
