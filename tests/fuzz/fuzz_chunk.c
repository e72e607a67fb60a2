/* Fuzz target: the rollup chunk, hour chunk and fleet chunk decoders (chunk.h). What decodes
 * re-encodes to a chunk that decodes to the same buckets (hours), bit for bit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hours(const uint8_t *data, size_t size) {
    static gp_hours d, back;
    static unsigned char buf[GP_HOURS_MAX_BYTES];
    gp_err err;
    if (gp_hours_decode(data, size, "fuzz", &d, &err) != GP_OK)
        return;
    size_t len;
    if (gp_hours_encode(&d, buf, &len, &err) != GP_OK ||
        gp_hours_decode(buf, len, "fuzz", &back, &err) != GP_OK)
        abort();
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        const gp_hour *x = &d.h[i], *y = &back.h[i];
        if (x->buckets != y->buckets ||
            (x->buckets && (x->power_n != y->power_n || x->busy_power_n != y->busy_power_n ||
                            memcmp(&x->util_sum, &y->util_sum, sizeof(double)) ||
                            memcmp(&x->power_sum, &y->power_sum, sizeof(double)) ||
                            memcmp(&x->busy_power_sum, &y->busy_power_sum, sizeof(double)) ||
                            memcmp(x->hist, y->hist, sizeof x->hist))))
            abort();
    }
}

static void fleet(const uint8_t *data, size_t size) {
    static gp_fleet_day d, back;
    static unsigned char buf[GP_FLEET_MAX_BYTES];
    gp_err err;
    if (gp_fleet_decode(data, size, "fuzz", &d, &err) != GP_OK)
        return;
    size_t len;
    if (gp_fleet_encode(&d, buf, &len, &err) != GP_OK ||
        gp_fleet_decode(buf, len, "fuzz", &back, &err) != GP_OK)
        abort();
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        const gp_fleet_bucket *x = &d.b[i], *y = &back.b[i];
        if (x->gpus != y->gpus || (x->gpus && (memcmp(&x->util_sum, &y->util_sum, sizeof(double)) ||
                                               memcmp(x->bins, y->bins, sizeof x->bins))))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hours(data, size);
    fleet(data, size);
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
