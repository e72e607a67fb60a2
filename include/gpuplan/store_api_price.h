/* Hosted-model (API) prices in the store (db/017_measured_api.sql, api_price; docs/catalog.md
 * "API prices"), kept with history like exchange rates: a (provider, model) price holds from
 * its effective_from until the pair's next row; an import adds rows and never overwrites one.
 *
 * Ownership: rows handed to callbacks are valid for the call only. Errors: GP_E_DB from
 * SQLite. */
#ifndef GPUPLAN_STORE_API_PRICE_H
#define GPUPLAN_STORE_API_PRICE_H

#include <stdbool.h>

#include "gpuplan/api_price.h"
#include "gpuplan/store.h"

/* Add one dated price; *added false when (provider, model) already has a row that day (kept). */
gp_status gp_store_api_price_add(gp_store *st, const gp_api_price *p, bool *added, gp_err *err);

/* The prices in force on as_of (YYYY-MM-DD): each (provider, model)'s latest row on or before
 * it, by model then output price; as_of NULL: every row, the history, by provider, model and
 * date. provider and model (NULL: any) filter. history: how many dated rows the pair has. A
 * non-zero return from fn stops the walk. */
gp_status gp_store_api_prices(gp_store *st, const char *as_of, const char *provider,
                              const char *model,
                              int (*fn)(const gp_api_price *p, int history, void *arg), void *arg,
                              gp_err *err);

#endif
