/* Fuzz target: the throughput CSV parser (throughput.h). */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/throughput.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gp_status count(const gp_throughput *t, void *arg, gp_err *err) {
    (void)err;
    if (t->value > 0)
        (*(size_t *)arg)++;
    return GP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t n = 0;
    gp_err err;
    gp_throughput_csv_parse((const char *)data, size, "fuzz", count, &n, &err);
    return 0;
}
