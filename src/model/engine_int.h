/* The engine's private entry points, shared by the files of src/model only (sweep.c). */
#ifndef GPUPLAN_ENGINE_INT_H
#define GPUPLAN_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/model.h"

/* What an engine_keep holds between calls, from the bottom up: the demand (engine_demand);
 * the plan (batches, servers in service, GPUs at work); the energy price trend by month; the
 * batches' prices with the fixed flows (capex, loans, sales, maintenance, staff); each month's
 * running costs, and their parts apart from the energy trend. */
typedef enum engine_redo {
    ENGINE_REDO_RUNNING = 1u << 0, /* tariff prices, PUE, the bridge's throughput */
    ENGINE_REDO_TREND = 1u << 1,   /* the energy price trend: power and demand charges */
    ENGINE_REDO_FIXED = 1u << 2,   /* server price and its trend */
    ENGINE_REDO_PLAN = 1u << 3,    /* lead time, cadence, cap: everything above */
    ENGINE_REDO_NEED = 1u << 4,    /* the demand or self-hosted's throughput: the plan too when
                                    * the GPUs it needs in some month change, else the running
                                    * costs */
    ENGINE_REDO_BRIDGE = 1u << 5   /* the bridge's prices (hourly, trend): its cost in the
                                    * months it is used */
} engine_redo;

/* What engine_totals computes: self-hosted's total, redone for the parts in redo (a set of
 * engine_redo bits), and option i's when bit i of options is set (i < 64 = GP_MAX_OPTIONS). */
typedef struct engine_want {
    bool self;
    unsigned redo;
    uint64_t options;
} engine_want;

/* The engine's state kept from one call to the next (about 40 KB). Owned by the caller:
 * engine_keep_new exits on OOM (xmem.h); engine_keep_free takes NULL; engine_keep_forget
 * drops what it holds (the next engine_demand then reports a change). */
typedef struct engine_keep engine_keep;
engine_keep *engine_keep_new(void);
void engine_keep_free(engine_keep *k);
void engine_keep_forget(engine_keep *k);

/* Build s's demand by month into k; true when it differs, in any bit, from the demand k held
 * (then self-hosted's total must be redone with ENGINE_REDO_NEED, and every option's), false when
 * it is the same. */
bool engine_demand(const gp_scenario *s, engine_keep *k);

/* The totals gp_model_evaluate would give for s (the same code, so the same bits), of those
 * asked for only, skipping everything else the report needs (break-even points, NPV, sales).
 * k must hold s's demand and what was computed for s outside want.redo (the first call after
 * engine_demand or engine_keep_forget: ENGINE_REDO_PLAN with self wanted). scratch holds the
 * batches. *max_want receives the most servers any month wants before max_servers caps it (self
 * only). Returns false, with the outputs undefined, whenever the full evaluation might refuse s or
 * give a number that is not finite: the caller then evaluates s in full (gp_model_totals_v2) for
 * the exact totals or error, and calls engine_keep_forget. */
bool engine_totals(const gp_scenario *s, gp_result *scratch, engine_keep *k, engine_want want,
                   double *self_total, double *option_totals, int *max_want);

#endif
