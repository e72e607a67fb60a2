/* The Catalog tab's generations view (`w` on the Catalog): `gpuplan compare` in the TUI.
 * GPU generations ranked per unit of work for a small form (work a month, profile and so its
 * unit, horizon), run on the worker thread through gp_compare; a row saved as a work-mode
 * scenario through gp_compare_save, as `compare --save` does. catalog.c hands it the keys
 * and the drawing while it is open. Owns t->gen and t->gen_res (gen_done frees them). */
#ifndef GPUPLAN_TUI_GENERATIONS_H
#define GPUPLAN_TUI_GENERATIONS_H

#include <stdbool.h>

#include "ui.h"

/* Whether the view is open. */
bool gen_showing(const tui *t);
/* Open (show true) or leave it; opening asks the worker for the form's comparison. */
void gen_show(tui *t, bool show);
void gen_draw(tui *t);
/* A key while the view is open: TUI_HANDLED when used. */
unsigned gen_key(tui *t, int ch);
/* True while one of its prompts takes every key. */
bool gen_modal(const tui *t);
/* A new comparison came in (JOB_COMPARE). */
void gen_on_data(tui *t);
/* A click on row y: the header sorts, a row selects. */
void gen_click(tui *t, int y, int x);
void gen_done(tui *t);

#endif
