/* Fuzz target: the nvidia-smi dmon parser. The first byte picks the options: known GPUs to map
 * indexes onto or none, and the end time and interval a log without -o T is timed by. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    gp_gpu_ref known[2];
    memset(known, 0, sizeof known);
    snprintf(known[0].uuid, sizeof known[0].uuid, "GPU-0");
    known[0].index = 0;
    snprintf(known[1].uuid, sizeof known[1].uuid, "GPU-1");
    known[1].index = 1;
    snprintf(known[1].mig, sizeof known[1].mig, "GI 1");
    gp_dmon_opts o = {.host = "h",
                      .end_ms = data[0] & 1 ? 1800000000000LL : 1000,
                      .interval_ms = data[0] & 2 ? 1000 : 86400000,
                      .known = data[0] & 4 ? known : NULL,
                      .n_known = data[0] & 4 ? 2 : 0};
    gp_samples s;
    gp_samples_init(&s, 1u << 20);
    gp_err err;
    gp_dmon_info info;
    if (gp_dmon_parse((const char *)data + 1, size - 1, "fuzz", &o, &s, &info, &err) == GP_OK) {
        /* What comes out is a reading of a GPU that exists, in range, at the times said. */
        for (size_t i = 0; i < s.n; i++) {
            const gp_sample *x = &s.s[i];
            if (x->gpu < 0 || (size_t)x->gpu >= s.n_gpus || !isfinite(x->value) || x->value < 0 ||
                (x->metric == GP_M_GPU_UTIL && x->value > 100) || x->ts_ms < info.first_ms ||
                x->ts_ms > info.last_ms)
                abort();
        }
        if (info.rows == 0 || info.rounds == 0 || info.rounds > info.rows)
            abort();
    }
    gp_samples_done(&s);
    return 0;
}
