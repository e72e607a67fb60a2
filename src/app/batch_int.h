/* The parts of the batch service shared by src/app/batch*.c only. */
#ifndef GPUPLAN_BATCH_INT_H
#define GPUPLAN_BATCH_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/app_scenario.h"
#include "gpuplan/batch_diff.h"
#include "gpuplan/sensitivity.h"

/* One scenario of a run: loaded in the main thread, evaluated and written by a worker. */
typedef struct batch_item {
    gp_loaded sc;
    gp_result *r;
    cJSON *report;  /* the report JSON tree */
    cJSON *tornado; /* the tornado of its strongest rental; NULL when it has no option */
    char stem[96];  /* file names: scenarios/STEM.md ... */
    bool measured;
    gp_status st;
    gp_err err;
} batch_item;

/* Load stored scenario `name` (its latest version), whatever characters its name holds. */
gp_status batch_load(gp_session *s, const char *name, const char *as_of, batch_item *it,
                     gp_err *err);
/* Evaluate it and write its md, csv, json (and xlsx unless measured) under dir/scenarios/;
 * sens is the worker's scratch. The outcome lands in it->st and it->err. */
void batch_render(batch_item *it, const char *dir, const char *as_of, gp_sensitivity *sens);
/* A measured scenario's workbook (it reads the store: main thread only). */
gp_status batch_xlsx_measured(gp_session *s, batch_item *it, const char *dir, const char *as_of,
                              gp_err *err);
/* The summary entry of a rendered item. */
void batch_summarise(const batch_item *it, gp_batch_scenario *out);
void batch_item_done(batch_item *it);

/* Write data[0..len) to dir/name (a fresh file in the run's temporary folder). */
gp_status batch_write(const char *dir, const char *name, const char *data, size_t len, gp_err *err);

#endif
