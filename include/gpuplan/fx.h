/* Exchange rates (formats layer): the European Central Bank's euro foreign exchange reference
 * rates as CSV, bytes in, one callback per rate. docs/catalog.md "Exchange rates".
 *
 * Ownership: nothing allocates; a rate handed to the callback is valid for the call only.
 * Errors: GP_E_INPUT with "origin:line" (a missing Date column, a column that is not a
 * three-letter currency code, a bad date or rate); a callback's non-zero status stops the
 * read and is returned. */
#ifndef GPUPLAN_FX_H
#define GPUPLAN_FX_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"

/* One dated rate: 1 `base` buys `rate` `quote` from `date` on. */
typedef struct gp_fx_rate {
    char base[4], quote[4];
    double rate;
    char date[11]; /* YYYY-MM-DD */
} gp_fx_rate;

/* The ECB layout: a header "Date,USD,JPY,..." then one row a day, the date (YYYY-MM-DD as in
 * eurofxref-hist.csv, or "9 May 2025" as in the daily eurofxref.csv; spaces after commas
 * allowed) and units of each currency per euro. "N/A" and empty cells are no rate. Each rate
 * goes to fn as EUR/XXX; *rows gets the number of dated rows. */
gp_status gp_fx_parse_ecb(const char *buf, size_t len, const char *origin,
                          gp_status (*fn)(const gp_fx_rate *r, void *arg, gp_err *err), void *arg,
                          size_t *rows, gp_err *err);

/* True when s is a currency code: three upper-case ASCII letters. */
bool gp_fx_valid_code(const char *s);

#endif
