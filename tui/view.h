/* A screen of the TUI (docs/development.md; tig's view_ops): what tui.c calls, and
 * all it knows of a tab. A screen file includes this, ui.h, draw.h, and what lies below it
 * (scen.h, worker.h), never tui.c's internals or another screen. */
#ifndef GPUPLAN_TUI_VIEW_H
#define GPUPLAN_TUI_VIEW_H

#include <stdbool.h>

#include "ui.h"

/* on_key's answer. */
enum { TUI_HANDLED = 1u << 0 };

typedef struct tui_screen_ops {
    const char *name;
    /* Read the state and draw the content area (rows TOP .. LINES-2): no SQL, no network. */
    void (*draw)(tui *t);
    /* A key: TUI_HANDLED when the screen used it, else 0 and the global keys get it. */
    unsigned (*on_key)(tui *t, int ch);
    /* True while the screen takes every key (an editor, a pop-up); NULL: never. */
    bool (*modal)(const tui *t);
    /* Shown (called between keys and on every turn of the loop): ask the worker for what
     * the screen needs. NULL: nothing. */
    void (*request)(tui *t);
    /* New worker results are in (jobs: a bit 1u << JOB_x each). NULL: nothing to do. */
    void (*on_data)(tui *t, unsigned jobs);
    /* A click at (y, x) inside the content area. NULL: ignored. */
    void (*click)(tui *t, int y, int x);
    /* The slow action the screen asked for with t->work = WORK_SCREEN; the frame before it
     * showed t->work_msg. NULL: never asked. */
    void (*work)(tui *t);
    /* Free what the screen owns (at exit, or when the database changes). NULL: nothing. */
    void (*done)(tui *t);
    /* The screen's own state (its tig-like view), made once at start into t->view[its tab]
     * and freed (free()) at exit. NULL: the screen keeps none. */
    void *(*init)(tui *t);
    /* The tab comes into view (at start, or from another tab), before it is drawn. NULL:
     * nothing to do. */
    void (*enter)(tui *t);
} tui_screen_ops;

#endif
