/* Dated exchange rates in the store (db/015_fx.sql; docs/catalog.md "Exchange rates"), kept
 * with history like prices: each rate is a pair, a value, the date it took effect and its
 * source, in force until the pair's next date.
 *
 * Ownership: strings handed to callbacks are valid for the call only. Errors: GP_E_DB from
 * SQLite; gp_store_fx_convert's GP_E_NOTFOUND names the pair. */
#ifndef GPUPLAN_STORE_FX_H
#define GPUPLAN_STORE_FX_H

#include <stdbool.h>

#include "gpuplan/fx.h"
#include "gpuplan/store.h"

/* Add one dated rate; *added false when the pair already has a rate that day (kept). */
gp_status gp_store_fx_add(gp_store *st, const gp_fx_rate *r, const char *source, bool *added,
                          gp_err *err);

/* Each stored pair's rate in force on as_of (YYYY-MM-DD), pairs in name order; `currency`
 * (NULL: all) keeps the pairs that name it. history: how many dated rates the pair has. A
 * non-zero return from fn stops the walk. */
gp_status gp_store_fx_list(gp_store *st, const char *as_of, const char *currency,
                           int (*fn)(const gp_fx_rate *r, const char *source, int history,
                                     void *arg),
                           void *arg, gp_err *err);

/* What converts an amount in `from` into `to`: multiply by rate. */
typedef struct gp_fx_quote {
    double rate;      /* units of `to` per unit of `from` */
    char date[11];    /* the date the rate took effect (a cross: the older of its two) */
    char source[300]; /* the rate's source; a cross names its base too */
} gp_fx_quote;

/* The rate in force on as_of: the pair as stored, its inverse, or a cross through a base both
 * currencies are quoted against (the ECB's euro). from == to gives 1. GP_E_NOTFOUND ("no
 * exchange rate CNY/USD in force on 2020-01-01 ...") when none. */
gp_status gp_store_fx_convert(gp_store *st, const char *from, const char *to, const char *as_of,
                              gp_fx_quote *out, gp_err *err);

#endif
