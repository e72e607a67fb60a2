/* Fuzz target: the reference-table parsers (specs, hardware, electricity, PUE, URDB tariffs).
 * The first byte picks the table kind. */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    gp_reference_kind kind = (gp_reference_kind)(data[0] % 9);
    gp_reference_sink sink = {0};
    size_t skipped;
    gp_err err;
    gp_reference_parse(kind, (const char *)data + 1, size - 1, "fuzz", "fuzz", &sink, &skipped,
                       &err);
    return 0;
}
