/* Fuzz target: the ECB reference-rate CSV parser (fx.h). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/fx.h"
#include "gpuplan/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every rate handed on is a positive finite number of a valid pair on a valid date. */
static gp_status check(const gp_fx_rate *r, void *arg, gp_err *err) {
    (void)arg;
    (void)err;
    if (!(r->rate > 0) || !isfinite(r->rate) || !gp_fx_valid_code(r->base) ||
        !gp_fx_valid_code(r->quote) || !gp_valid_date(r->date))
        abort();
    return GP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gp_err err;
    size_t rows;
    (void)gp_fx_parse_ecb((const char *)data, size, "fuzz", check, NULL, &rows, &err);
    return 0;
}
