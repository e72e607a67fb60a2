/* Fuzz target: every telemetry parser. The first byte picks dcgm text, the Prometheus API
 * (with an HTTP status), nvidia-smi CSV (with or without --fields) or Redfish. */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    gp_samples s;
    gp_samples_init(&s, 1u << 20);
    gp_err err;
    double w;
    switch (data[0] % 5) {
    case 0:
        gp_dcgm_parse(buf, len, "fuzz", &s, &err);
        break;
    case 1:
        gp_promapi_parse(buf, len, "fuzz", data[0] & 0x80 ? 422 : 200, GP_M_POWER_W, 1, &s, &err);
        break;
    case 2:
        gp_nvsmi_parse(buf, len, "fuzz", NULL, "host", &s, &err);
        break;
    case 3:
        gp_nvsmi_parse(buf, len, "fuzz", "timestamp,index,uuid,name,utilization.gpu,memory.used",
                       "host", &s, &err);
        break;
    case 4:
        gp_redfish_parse(buf, len, "fuzz", &w, &err);
        break;
    }
    gp_samples_mig_rollup(&s); /* as the collector and `import prom` do before they write */
    gp_samples_done(&s);
    return 0;
}
