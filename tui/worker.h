/* The TUI's worker thread: fleet, capacity and catalog reads on a second connection to the
 * same database, so a slow query never holds up a keystroke. The input loop asks
 * (worker_ask) and, between keys, takes what is done (worker_collect). Above ui.h only. */
#ifndef GPUPLAN_TUI_WORKER_H
#define GPUPLAN_TUI_WORKER_H

#include <stdbool.h>

#include "ui.h"

void worker_start(tui *t);
void worker_stop(tui *t);
void worker_ask(tui *t, job_kind k);
/* Ask for a comparison of GPU generations (JOB_COMPARE) as rq says; rq is copied, its
 * strings must outlive the job (gp_profiles' names do). */
void worker_ask_compare(tui *t, const gp_compare_request *rq);
bool worker_busy(tui *t, job_kind k);
/* Take finished results into t: a bit (1u << JOB_x) for each kind that came in. */
unsigned worker_collect(tui *t);
void fleet_data_free(fleet_data *f);
void cap_data_free(cap_data *c);
void catalog_data_free(catalog_data *c);
void gen_data_free(gen_data *g);

#endif
