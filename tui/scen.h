/* The open scenario of the TUI: the stored names, the editor's model (app_plan_edit.h: the
 * document as edited, catalog references kept, undo, save, rename), the scenario resolved from
 * it, its result and the editable fields.
 * Every screen reads it; the Plan and Catalog screens change it through these calls, which
 * report what went wrong on the status line. Below the screens, above ui.h. */
#ifndef GPUPLAN_TUI_SCEN_H
#define GPUPLAN_TUI_SCEN_H

#include <stdbool.h>

#include "ui.h"

/* The stored scenario names into t->names (the selection kept in range). */
void scen_load_names(tui *t);
/* Open the latest version of name: false (and a status message) when it is not there or
 * does not evaluate. Unsaved edits of the scenario open before are dropped. */
bool scen_open(tui *t, const char *name);
/* The open document (NULL when none), its stored name ("" when none), the version it was
 * opened or saved as, and whether it has changes not saved. */
const cJSON *scen_doc(const tui *t);
const char *scen_name(const tui *t);
int scen_version(const tui *t);
bool scen_dirty(const tui *t);
/* Re-evaluate from the document; while a choice is edited, from the choice shown. While a value
 * is typed, only read it (t->invalid says when it is no number): Enter evaluates it. */
void scen_reevaluate(tui *t);
/* Field i's value as the editor shows it into out: a number from the resolved scenario (so
 * defaults and catalog prices show), a list row's or a text's from the document, what an
 * absent optional key means ("no cap"), a list's row count, the choice being made. */
void scen_field_text(const tui *t, int i, char *out, size_t cap);
/* Enter on the selected field: start editing it (t->edit pre-filled, or the choice in force),
 * or, on a list's head, add a row. */
void scen_start_edit(tui *t);
/* While a choice is edited: the next (step 1) or previous (-1) choice, re-evaluated. */
void scen_edit_choice(tui *t, int step);
/* Commit t->edit (or the choice) to the selected field, evaluated; an empty optional value
 * removes the key. False when the value is refused (t->invalid says why, with its JSON path). */
bool scen_commit_edit(tui *t);
/* Add a row to the list field i belongs to (its head or a row), after the last, valid where it
 * can be; or remove field i's row (an emptied list is removed). Undo brings the list back;
 * the status line says what was done, or why not with the JSON path. */
void scen_list_add(tui *t, int i);
void scen_list_remove(tui *t, int i);
/* Leave the value being typed: the results go back to the document's. */
void scen_cancel_edit(tui *t);
/* Add a catalog offer to the open scenario as a catalog reference. */
bool scen_add_option(tui *t, const offer *o);
/* The label of month index m of the open scenario, from its start_date (else the date the TUI
 * prices as of): the start date at 0, else the month it closes, "YYYY-MM", as report --format
 * csv labels its rows. */
void scen_month_label(const tui *t, int m, char *out, size_t cap);
/* Undo the last change, or redo the last undone. */
void scen_undo(tui *t);
void scen_redo(tui *t);
/* Save a new version (as NULL), or the document under a new name (refused when in use),
 * which then opens. False when nothing was saved (the status line says why). */
bool scen_save(tui *t, const char *as);
/* The option field i belongs to, or -1. */
int scen_field_option(const tui *t, int i);
/* Remove option k from the document (undo brings it back). */
void scen_remove_option(tui *t, int k);
/* Close the open scenario, edits and all. */
void scen_close(tui *t);
/* Rename, copy (the saved version) or delete a stored scenario; the list follows, and the
 * open one when it is the one renamed or deleted. */
void scen_rename(tui *t, const char *from, const char *to);
void scen_copy(tui *t, const char *from, const char *to);
void scen_delete(tui *t, const char *name);
/* Select name in the list when it is there. */
void scen_select(tui *t, const char *name);
/* The catalog's tariff presets into t->picks: false (and a status message) when none. */
bool scen_list_tariffs(tui *t);
/* Replace the tariff with the preset of that name. */
void scen_apply_tariff(tui *t, const char *name);
/* Free everything above. */
void scen_done(tui *t);

#endif
