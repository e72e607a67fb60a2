/* Fuzz target: the rollup chunk decoder (chunk.h). What decodes re-encodes to a chunk that
 * decodes to the same buckets, bit for bit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static gp_chunk c, back;
    static unsigned char buf[GP_CHUNK_MAX_BYTES];
    gp_err err;
    if (gp_chunk_decode(data, size, "fuzz", &c, &err) != GP_OK)
        return 0;
    size_t len;
    if (gp_chunk_encode(&c, buf, &len, &err) != GP_OK)
        abort();
    if (gp_chunk_decode(buf, len, "fuzz", &back, &err) != GP_OK || back.slots != c.slots)
        abort();
    for (int i = 0; i < c.slots; i++)
        if (back.b[i].n != c.b[i].n ||
            (c.b[i].n && (memcmp(&back.b[i].sum, &c.b[i].sum, sizeof(double)) ||
                          memcmp(&back.b[i].min, &c.b[i].min, sizeof(double)) ||
                          memcmp(&back.b[i].max, &c.b[i].max, sizeof(double)))))
            abort();
    return 0;
}
