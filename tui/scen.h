/* The open scenario of the TUI: the stored names, the document as edited (catalog references
 * kept), the scenario resolved from it, its result, the editable fields and the undo stack.
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
/* Re-evaluate from the document, or from the value being typed (t->edit) while editing. */
void scen_reevaluate(tui *t);
/* Field i's value in the resolved scenario. */
double scen_field_value(const tui *t, int i);
/* Commit t->edit to the selected field: false when the value is refused (t->invalid says why). */
bool scen_commit_edit(tui *t);
/* Leave the value being typed: the results go back to the document's. */
void scen_cancel_edit(tui *t);
/* Add a catalog offer to the open scenario as a catalog reference. */
bool scen_add_option(tui *t, const offer *o);
/* Undo the last change. */
void scen_undo(tui *t);
/* Save a new version (as NULL), or the document under a new name, which then opens. */
void scen_save(tui *t, const char *as);
/* The catalog's tariff presets into t->picks: false (and a status message) when none. */
bool scen_list_tariffs(tui *t);
/* Replace the tariff with the preset of that name. */
void scen_apply_tariff(tui *t, const char *name);
/* Free everything above. */
void scen_done(tui *t);

#endif
