/* Fuzz target: the rollup chunk, hour chunk and fleet chunk decoders (chunk.h). What decodes
 * re-encodes to a chunk that decodes to the same buckets (hours), bit for bit; gp_hours_add
 * takes exactly what gp_hours_decode takes and sums the same hours. Each input is tried as it
 * is and with its last 4 bytes replaced by the checksum of the rest, so the layouts under a
 * checksum are fuzzed too, not only the checksum's refusal. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "gpuplan/chunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hours(const uint8_t *data, size_t size) {
    static gp_hours d, back;
    static unsigned char buf[GP_HOURS_MAX_BYTES];
    gp_err err;
    gp_hours_total t;
    memset(&t, 0, sizeof t);
    double means[GP_HOURS_SLOTS];
    int n;
    gp_status added = gp_hours_add(data, size, "fuzz", 0xffffff, &t, means, &n, &err);
    if (gp_hours_decode(data, size, "fuzz", &d, &err) != GP_OK) {
        if (added == GP_OK)
            abort();
        return;
    }
    if (added != GP_OK)
        abort();
    long long buckets = 0, hist0 = 0;
    int n_means = 0;
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        buckets += d.h[i].buckets;
        hist0 += d.h[i].buckets ? d.h[i].hist[0] : 0;
        n_means += d.h[i].buckets && d.h[i].power_n > 0;
    }
    if (t.buckets != buckets || t.hist[0] != hist0 || n != n_means)
        abort();
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

static void rollup(const uint8_t *data, size_t size) {
    static gp_chunk c, back;
    static unsigned char buf[GP_CHUNK_MAX_BYTES];
    gp_err err;
    if (gp_chunk_decode(data, size, "fuzz", &c, &err) != GP_OK)
        return;
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
}

static void each(const uint8_t *data, size_t size) {
    hours(data, size);
    fleet(data, size);
    rollup(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    each(data, size);
    if (size <= 4 || size > GP_FLEET_MAX_BYTES)
        return 0;
    static uint8_t sealed[GP_FLEET_MAX_BYTES];
    memcpy(sealed, data, size);
    uint32_t sum = (uint32_t)crc32(0L, sealed, (uInt)(size - 4));
    for (int i = 0; i < 4; i++)
        sealed[size - 4 + (size_t)i] = (uint8_t)(sum >> (8 * i));
    each(sealed, size);
    return 0;
}
