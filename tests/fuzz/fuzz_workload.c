/* Fuzz target: the workload profile JSON parser (workload_json.h, gp_workload_json_parse). */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/workload_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gp_workload w;
    gp_err err;
    gp_workload_json_parse((const char *)data, size, "fuzz", &w, &err);
    return 0;
}
