/* The demo database (`gpuplan --demo`, the Quick start's first command): the bundled catalog,
 * the demo scenarios and a demo fleet of three 8-GPU nodes with a month of 5-minute history,
 * generated from fixed daily profiles and a seeded generator, so every run shows the same
 * shapes. Everything it writes is named "demo-..." and lives in its own file.
 *
 * Errors: store errors as the store reports them; GP_E_IO when the data folder cannot be
 * made. A failed day of history is rolled back whole. */
#ifndef GPUPLAN_APP_DEMO_H
#define GPUPLAN_APP_DEMO_H

#include "gpuplan/app_session.h"

/* Point s at the demo database (s->db_path NULL or "": $XDG_DATA_HOME/gpuplan/demo.db) and
 * fill it: catalog, demo scenarios, and the fleet's history topped up to now. */
gp_status gp_demo_open(gp_session *s, gp_err *err);
/* The demo fleet's history from where it stopped (at most a month back) up to now: what
 * gp_demo_open runs, and what keeps the TUI's demo fleet moving. Returns at once when current. */
gp_status gp_demo_fleet(gp_session *s, gp_err *err);

#endif
