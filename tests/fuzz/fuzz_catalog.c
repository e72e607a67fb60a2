/* Fuzz target: every catalog importer. The first byte picks the format (and, for SkyPilot, the
 * provider); the rest is the file. Nothing may crash, hang or trip a sanitizer. */
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    static const char *const providers[] = {"aws", "azure", "gcp", "lambda", "vast"};
    gp_catalog_format fmt = (gp_catalog_format)(1 + data[0] % 6);
    const char *provider = providers[(data[0] / 6) % 5];
    gp_catalog_batch b;
    gp_catalog_batch_init(&b, 1u << 20);
    gp_err err;
    gp_catalog_parse(fmt, (const char *)data + 1, size - 1, "fuzz", provider, &b, &err);
    gp_catalog_detect((const char *)data + 1, size - 1, "fuzz");
    gp_catalog_batch_done(&b);
    char name[GP_GPU_NAME_BYTES], raw[64];
    size_t n = size - 1 < sizeof raw - 1 ? size - 1 : sizeof raw - 1;
    for (size_t i = 0; i < n; i++)
        raw[i] = data[1 + i] ? (char)data[1 + i] : ' ';
    raw[n] = '\0';
    gp_gpu_normalize(raw, 0, name, sizeof name);
    gp_gpu_display_name(raw, name, sizeof name);
    return 0;
}
