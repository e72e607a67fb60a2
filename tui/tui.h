/* The TUI: `gpuplan` with no command. Seven tabs (Plan, Compare, Break-even, Fleet, Catalog,
 * Capacity, Timeline) over the same store and engine the commands use. Returns the exit status; the
 * terminal is restored on every path out. */
#ifndef GPUPLAN_TUI_TUI_H
#define GPUPLAN_TUI_TUI_H

#include <stdbool.h>

#include "gpuplan/app_demo.h"
#include "gpuplan/app_export.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_session.h"
#include "gpuplan/parse.h"

/* stdin and stdout must be terminals (main checks before building the demo database).
 * demo: the demo database (gp_demo_open has filled it). start_s: CLOCK_MONOTONIC seconds at
 * process start, for the first-frame figure GPUPLAN_TUI_TIMING=FILE records. */
int tui_main(gp_session *ses, bool demo, double start_s);

#endif
