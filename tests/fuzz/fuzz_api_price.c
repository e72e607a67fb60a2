/* Fuzz target: the API price CSV parser (api_price.h). */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/api_price.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gp_status count(const gp_api_price *p, void *arg, gp_err *err) {
    (void)err;
    if (p->input_per_m >= 0 && p->output_per_m >= 0)
        (*(size_t *)arg)++;
    return GP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t n = 0, rows;
    gp_err err;
    gp_api_price_parse((const char *)data, size, "fuzz", count, &n, &rows, &err);
    return 0;
}
