/* The engine's private entry points, shared by the files of src/model only (sweep.c). */
#ifndef GPUPLAN_ENGINE_INT_H
#define GPUPLAN_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/model.h"

/* What engine_totals computes: self-hosted's total, and option i's when bit i of options is
 * set (i < 64 = GP_MAX_OPTIONS). */
typedef struct engine_want {
    bool self;
    uint64_t options;
} engine_want;

/* The totals gp_model_evaluate would give for s (the same code, so the same bits), of those
 * asked for only, skipping everything else the report needs (break-even points, NPV, sales).
 * scratch holds the batches. *max_want receives the largest number of servers any month
 * wants before max_servers caps it (self only). Returns false, with the outputs undefined,
 * whenever the full evaluation might refuse s or give a number that is not finite: the caller
 * then evaluates s in full (gp_model_totals_v2) for the exact totals or error. */
bool engine_totals(const gp_scenario *s, gp_result *scratch, engine_want want, double *self_total,
                   double *option_totals, int *max_want);

#endif
