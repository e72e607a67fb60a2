/* Rollup chunks: one series' buckets of one UTC day (288 five-minute or 24 one-hour buckets),
 * each bucket's statistics (count, sum, min, max) packed into a few bytes, in the spirit of
 * Prometheus' chunks. The encoding is documented in docs/telemetry.md ("Chunk encoding") and
 * round-trips every double exactly, so figures read back from a chunk are the ones stored.
 *
 * Ownership: gp_chunk is caller storage; nothing here allocates. Bytes in, struct out. */
#ifndef GPUPLAN_CHUNK_H
#define GPUPLAN_CHUNK_H

#include <stddef.h>

#include "gpuplan/error.h"

#define GP_CHUNK_SLOTS_MAX 288     /* 5-minute buckets in a day */
#define GP_CHUNK_N_MAX (1LL << 30) /* samples in one bucket */
/* Above the longest encoding: 4 bytes of header and a 36-byte bitmap, 18 bits of Rice
 * parameters, then per bucket a group of its own with a new count (3 + 1 + 63 bits) and three
 * values of at most 80 bits (a 3-bit prefix and an escaped Rice code of 77), and the 4-byte
 * checksum: about 11,634. */
#define GP_CHUNK_MAX_BYTES 11640
/* What gp_chunk_encode writes: version 2's layout and a CRC-32 of the bytes before it, checked
 * on every decode. Versions 1 and 2 (no checksum) still decode. */
#define GP_CHUNK_VERSION 3

/* One bucket; n == 0 means the bucket holds no data (sum, min and max are then ignored). */
typedef struct gp_chunk_bucket {
    long long n;
    double sum, min, max;
} gp_chunk_bucket;

typedef struct gp_chunk {
    int slots; /* 1 .. GP_CHUNK_SLOTS_MAX */
    gp_chunk_bucket b[GP_CHUNK_SLOTS_MAX];
} gp_chunk;

/* Reset c to slots empty buckets; slots must be 1 .. GP_CHUNK_SLOTS_MAX. */
void gp_chunk_init(gp_chunk *c, int slots);

/* Encode c into out[0..GP_CHUNK_MAX_BYTES) and set *len to the bytes used.
 * GP_E_INPUT (err names the bucket, *len = 0) when a bucket's n is negative or above
 * GP_CHUNK_N_MAX, or c->slots is out of range. */
gp_status gp_chunk_encode(const gp_chunk *c, unsigned char *out, size_t *len, gp_err *err);

/* Decode buf[0..len) into *out. Borrows buf for the call only.
 * On GP_OK, *out holds every bucket; on GP_E_INPUT, *out is empty (slots 0) and err names
 * origin and the byte offset of the fault (truncated, trailing bytes, bad version or tag), or
 * origin alone when the checksum does not match ("checksum mismatch"). Every gp_*_decode and
 * gp_hours_add below checks the checksum of the versions that carry one. */
gp_status gp_chunk_decode(const unsigned char *buf, size_t len, const char *origin, gp_chunk *out,
                          gp_err *err);

/* ---- Hour chunks: one utilization series' capacity hours of one UTC day (util_hour_day) ---- */

#define GP_HOURS_SLOTS 24
#define GP_HOURS_BINS 21        /* the 5 % bins of db/004_capacity.sql */
#define GP_HOURS_MAX_BYTES 1593 /* the longest encoding of a full day, its checksum included */
#define GP_HOURS_VERSION 2      /* version 1's layout and a CRC-32; version 1 still decodes */

/* One hour of util_hour; buckets == 0 means the hour holds no data (the rest is ignored). */
typedef struct gp_hour {
    long long buckets, power_n, busy_power_n;
    double util_sum, power_sum, busy_power_sum;
    unsigned char hist[GP_HOURS_BINS]; /* bucket count per bin (util_hour.hist minus '0') */
} gp_hour;

typedef struct gp_hours {
    gp_hour h[GP_HOURS_SLOTS];
} gp_hours;

/* Encode d into out[0..GP_HOURS_MAX_BYTES) and set *len. GP_E_INPUT (err names the hour, *len
 * = 0) when a count is negative or above GP_CHUNK_N_MAX. Every double round-trips bit for bit. */
gp_status gp_hours_encode(const gp_hours *d, unsigned char *out, size_t *len, gp_err *err);

/* Decode buf[0..len) into *out (borrowed for the call only): an absent hour gets buckets 0,
 * and only that. On GP_E_INPUT *out is all empty and err names origin and the byte offset of
 * the fault. */
gp_status gp_hours_decode(const unsigned char *buf, size_t len, const char *origin, gp_hours *out,
                          gp_err *err);

/* Running totals of hours, each figure added hour by hour (gp_hours_add). */
typedef struct gp_hours_total {
    long long buckets, power_n, busy_power_n;
    double util_sum, power_sum, busy_power_sum;
    long long hist[GP_HOURS_BINS];
} gp_hours_total;

/* Add the hours of buf[0..len) whose bit is set in mask (bit i: hour i) to *t in hour order, as
 * adding each of gp_hours_decode's hours would, to the bit; means (24 slots, or NULL) gets each
 * such hour's power_sum / power_n where power_n > 0, *n_means their count. Refuses what
 * gp_hours_decode refuses, with its error; *t may then hold part of the chunk. */
gp_status gp_hours_add(const unsigned char *buf, size_t len, const char *origin, unsigned long mask,
                       gp_hours_total *t, double *means, int *n_means, gp_err *err);

/* ---- Fleet chunks: one node's (or the fleet's) 5-minute capacity buckets of one GPU model
 * and UTC day (fleet_5m_day, db/013_fleet_chunks.sql) ---- */

#define GP_FLEET_SLOTS 288
#define GP_FLEET_VERSION 3 /* version 2's layout and a CRC-32; versions 1 and 2 still decode */
#define GP_FLEET_BINS 21   /* the 5 % bins of db/004_capacity.sql */
/* Above the longest: 2 bytes and a bitmap, 12 bits of Rice parameters, per bucket 2 bits, a
 * gamma code of the GPUs (63), a value (80) and 21 Rice codes of at most 72 bits, and the
 * 4-byte checksum. */
#define GP_FLEET_MAX_BYTES 59704

/* One bucket of fleet_5m; gpus == 0 means no row (the rest is ignored). */
typedef struct gp_fleet_bucket {
    long long gpus;
    double util_sum;
    unsigned bins[GP_FLEET_BINS]; /* GPUs per bin, 0 .. GP_CHUNK_N_MAX each */
} gp_fleet_bucket;

typedef struct gp_fleet_day {
    gp_fleet_bucket b[GP_FLEET_SLOTS];
} gp_fleet_day;

/* Encode d into out[0..GP_FLEET_MAX_BYTES) and set *len. GP_E_INPUT (err names the bucket,
 * *len = 0) when gpus is negative or above GP_CHUNK_N_MAX, or a bin count above it. Every
 * double round-trips bit for bit. */
gp_status gp_fleet_encode(const gp_fleet_day *d, unsigned char *out, size_t *len, gp_err *err);

/* Decode buf[0..len) into *out (borrowed for the call only): an absent bucket gets gpus 0, and
 * only that. On GP_E_INPUT *out is all empty and err names origin and the byte offset of the
 * fault. */
gp_status gp_fleet_decode(const unsigned char *buf, size_t len, const char *origin,
                          gp_fleet_day *out, gp_err *err);

#endif
