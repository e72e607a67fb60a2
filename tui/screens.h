/* The TUI's screens, one tui_screen_ops each, in tab order. Only tui.c includes this. */
#ifndef GPUPLAN_TUI_SCREENS_H
#define GPUPLAN_TUI_SCREENS_H

#include "view.h"

extern const tui_screen_ops plan_screen;      /* plan.c */
extern const tui_screen_ops compare_screen;   /* compare.c */
extern const tui_screen_ops breakeven_screen; /* compare.c */
extern const tui_screen_ops fleet_screen;     /* fleet.c */
extern const tui_screen_ops catalog_screen;   /* catalog.c */
extern const tui_screen_ops capacity_screen;  /* capacity.c */
extern const tui_screen_ops timeline_screen;  /* timeline.c */
extern const tui_screen_ops newplan_screen;   /* newplan.c: over the tabs while open */

#endif
