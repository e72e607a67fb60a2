/* Fuzz target: the `ipmitool dcmi power reading` parser, and the BMC time check. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gp_dcmi_reading r;
    gp_err err;
    if (gp_dcmi_parse((const char *)data, size, "fuzz", &r, &err) == GP_OK) {
        /* A reading in watts, a terminated timestamp text, a period or -1. */
        if (!isfinite(r.watts) || r.watts < 0 || r.watts > 1e6 || r.period_ms < -1 ||
            strlen(r.bmc_text) >= sizeof r.bmc_text || (r.has_min && !(r.min_w >= 0)))
            abort();
        (void)gp_dcmi_time_plausible(r.bmc_ms, 1800000000000LL);
    }
    return 0;
}
