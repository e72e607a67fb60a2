/* Hosted-model (API) prices (formats layer): a CSV of prices per million input and output
 * tokens by provider and model, dated and sourced, bytes in, one callback per row.
 * docs/catalog.md "API prices".
 *
 * The CSV has a header naming the columns provider, model, input_per_m, output_per_m,
 * currency, effective_from and source (any order; others are ignored), then one price a record.
 * Provider and model are lower-cased ASCII letters, digits and ".-_/" (the provider's and the
 * model's usual names: "fireworks", "llama-3-70b-instruct"); prices are finite numbers >= 0;
 * currency is a three-letter code; effective_from is YYYY-MM-DD; source (the page's URL and
 * what it showed) is required. The whole file is checked: a bad field or the same (provider,
 * model, effective_from) twice fails with GP_E_INPUT naming origin:line and the column, and
 * nothing past the first error is handed on (the caller stores only after a clean parse).
 *
 * Ownership: a row handed to the callback is valid for the call only. */
#ifndef GPUPLAN_API_PRICE_H
#define GPUPLAN_API_PRICE_H

#include <stddef.h>

#include "gpuplan/error.h"

#define GP_API_NAME_BYTES 64
#define GP_API_SOURCE_BYTES 512

typedef struct gp_api_price {
    char provider[GP_API_NAME_BYTES];
    char model[GP_API_NAME_BYTES];
    double input_per_m, output_per_m; /* money per million tokens */
    char currency[4];
    char effective_from[11];
    char source[GP_API_SOURCE_BYTES];
    int line; /* the CSV line (0 when not from a CSV) */
} gp_api_price;

/* Parse the CSV: every row to fn (a non-zero status stops the read and is returned); *rows
 * gets the number of rows handed on. */
gp_status gp_api_price_parse(const char *buf, size_t len, const char *origin,
                             gp_status (*fn)(const gp_api_price *p, void *arg, gp_err *err),
                             void *arg, size_t *rows, gp_err *err);

#endif
