/* Rollup chunk encoding (chunk.h; layout in docs/telemetry.md, "Chunk encoding").
 *
 *   u8 version (1) | varint slots | bitmap of present buckets, ceil(slots / 8) bytes,
 *   bit i = byte i / 8, bit i % 8; bits past slots are 0 | per present bucket, in order:
 *   varint head = (n - 1) << 2 | shape, then its values:
 *     shape 0: sum == min == max: one value; shape 1: min == max: min, sum;
 *     shape 2: sum, min, max; shape 3 is refused.
 *   A value is a varint tag. Even: fixed point, k = the previous k of its role (sum, min or
 *   max; 0 at the start) + zigzag(tag >> 1), and the value is k / 1000, exactly. Odd, 2m + 1
 *   with m 0..8: the value's bits XOR the previous value's bits of its role (0 at the start)
 *   have only their m low bytes set, which follow, little endian. Nothing else is accepted.
 *
 * Why: a bucket of one sample (imported history, a 5-minute scrape) is one value, and gauges
 * read to three decimals or fewer (utilization, watts, MiB, clocks) are small deltas of their
 * neighbour: one to three bytes a value instead of the 8 of a REAL plus SQLite's per-row
 * overhead. A value is stored as fixed point only where k / 1000 gives back its exact bits, so
 * nothing is rounded; any other double shares its sign, exponent and top mantissa bits with
 * its neighbour, which the XOR drops (Gorilla, as Prometheus' XOR chunks do). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/chunk.h"

#define FIXED_LIMIT 9007199254740992.0 /* 2^53: k and k / 1000 stay exact below it */
#define SCALE 1000

enum { ROLE_SUM, ROLE_MIN, ROLE_MAX };

/* What the next value of a role is coded against. */
typedef struct role {
    int64_t k;     /* the last fixed-point value's k */
    uint64_t bits; /* the last value's bits */
} role;

void gp_chunk_init(gp_chunk *c, int slots) {
    memset(c, 0, sizeof *c);
    c->slots = slots;
}

static size_t put_varint(unsigned char *p, uint64_t v) {
    size_t i = 0;
    while (v >= 0x80) {
        p[i++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[i++] = (unsigned char)v;
    return i;
}

static uint64_t bits_of(double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* k with k / 1000 == v bit for bit, when there is one. */
static int fixed_of(double v, int64_t *k) {
    if (!(fabs(v) < FIXED_LIMIT / SCALE))
        return 0;
    double r = nearbyint(v * SCALE);
    if (!(fabs(r) < FIXED_LIMIT))
        return 0;
    int64_t kk = (int64_t)r;
    if (bits_of((double)kk / SCALE) != bits_of(v))
        return 0;
    *k = kk;
    return 1;
}

static size_t put_value(unsigned char *p, double v, role *prev) {
    int64_t k;
    uint64_t u = bits_of(v);
    if (fixed_of(v, &k)) {
        int64_t d = k - prev->k; /* both below 2^53: no overflow */
        uint64_t zz = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
        prev->k = k;
        prev->bits = u;
        return put_varint(p, zz << 1);
    }
    uint64_t x = u ^ prev->bits;
    prev->bits = u;
    size_t m = 0;
    while (m < 8 && x >> (8 * m))
        m++;
    p[0] = (unsigned char)(2 * m + 1);
    for (size_t i = 0; i < m; i++)
        p[1 + i] = (unsigned char)(x >> (8 * i));
    return 1 + m;
}

gp_status gp_chunk_encode(const gp_chunk *c, unsigned char *out, size_t *len, gp_err *err) {
    *len = 0;
    if (c->slots < 1 || c->slots > GP_CHUNK_SLOTS_MAX)
        return gp_errorf(err, GP_E_INPUT, "chunk", "%d buckets in a chunk (1 to %d)", c->slots,
                         GP_CHUNK_SLOTS_MAX);
    size_t at = 0;
    out[at++] = GP_CHUNK_VERSION;
    at += put_varint(out + at, (uint64_t)c->slots);
    size_t map = at, map_len = ((size_t)c->slots + 7) / 8;
    memset(out + map, 0, map_len);
    at += map_len;
    role prev[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int i = 0; i < c->slots; i++) {
        const gp_chunk_bucket *b = &c->b[i];
        if (b->n == 0)
            continue;
        if (b->n < 0 || b->n > GP_CHUNK_N_MAX)
            return gp_errorf(err, GP_E_INPUT, "chunk", "bucket %d holds %lld samples", i, b->n);
        out[map + (size_t)i / 8] |= (unsigned char)(1u << (i % 8));
        uint64_t lo = bits_of(b->min), hi = bits_of(b->max), s = bits_of(b->sum);
        unsigned shape = lo == hi ? (s == lo ? 0 : 1) : 2;
        at += put_varint(out + at, (uint64_t)(b->n - 1) << 2 | shape);
        if (shape == 0) {
            at += put_value(out + at, b->sum, &prev[ROLE_SUM]);
            prev[ROLE_MIN] = prev[ROLE_MAX] = prev[ROLE_SUM];
        } else if (shape == 1) {
            at += put_value(out + at, b->min, &prev[ROLE_MIN]);
            prev[ROLE_MAX] = prev[ROLE_MIN];
            at += put_value(out + at, b->sum, &prev[ROLE_SUM]);
        } else {
            at += put_value(out + at, b->sum, &prev[ROLE_SUM]);
            at += put_value(out + at, b->min, &prev[ROLE_MIN]);
            at += put_value(out + at, b->max, &prev[ROLE_MAX]);
        }
    }
    *len = at;
    return GP_OK;
}

typedef struct cursor {
    const unsigned char *p, *start, *end;
} cursor;

static int get_varint(cursor *c, uint64_t *v) {
    if (c->p < c->end && *c->p < 0x80) { /* one byte: most of them */
        *v = *c->p++;
        return 0;
    }
    uint64_t r = 0;
    const unsigned char *p = c->p;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p == c->end)
            return -1;
        unsigned char byte = *p++;
        if (shift == 63 && byte > 1)
            return -1; /* past 64 bits */
        r |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            if (byte == 0 && shift > 0)
                return -1; /* not the shortest form */
            c->p = p;
            *v = r;
            return 0;
        }
    }
    return -1;
}

static int get_value(cursor *c, double *v, role *prev) {
    uint64_t tag;
    if (get_varint(c, &tag))
        return -1;
    if (tag & 1) {
        uint64_t m = tag >> 1;
        if (m > 8 || (uint64_t)(c->end - c->p) < m)
            return -1;
        uint64_t x = 0;
        for (uint64_t i = 0; i < m; i++)
            x |= (uint64_t)c->p[i] << (8 * i);
        if (m > 0 && !(x >> (8 * (m - 1))))
            return -1; /* a zero top byte: not the shortest form */
        c->p += m;
        prev->bits ^= x;
        memcpy(v, &prev->bits, sizeof *v);
        return 0;
    }
    uint64_t zz = tag >> 1;
    int64_t d = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
    if (d > 2 * (int64_t)FIXED_LIMIT || d < -2 * (int64_t)FIXED_LIMIT)
        return -1;
    int64_t k = prev->k + d;
    if (k >= (int64_t)FIXED_LIMIT || k <= -(int64_t)FIXED_LIMIT)
        return -1;
    prev->k = k;
    *v = (double)k / SCALE;
    prev->bits = bits_of(*v);
    return 0;
}

static gp_status bad(gp_chunk *out, const cursor *c, const char *origin, const char *what,
                     gp_err *err) {
    char where[200];
    snprintf(where, sizeof where, "%s:byte %td", origin, c->p - c->start);
    gp_chunk_init(out, 0);
    return gp_errorf(err, GP_E_INPUT, where, "chunk: %s", what);
}

gp_status gp_chunk_decode(const unsigned char *buf, size_t len, const char *origin, gp_chunk *out,
                          gp_err *err) {
    cursor c = {buf, buf, buf + len};
    gp_chunk_init(out, 0);
    if (len == 0)
        return bad(out, &c, origin, "empty", err);
    if (buf[0] != GP_CHUNK_VERSION)
        return bad(out, &c, origin, "unknown version", err);
    c.p++;
    uint64_t slots;
    if (get_varint(&c, &slots) || slots < 1 || slots > GP_CHUNK_SLOTS_MAX)
        return bad(out, &c, origin, "bad bucket count", err);
    size_t map_len = ((size_t)slots + 7) / 8;
    if ((size_t)(c.end - c.p) < map_len)
        return bad(out, &c, origin, "truncated bitmap", err);
    const unsigned char *map = c.p;
    if (slots % 8 && map[map_len - 1] >> (slots % 8))
        return bad(out, &c, origin, "bits set past the last bucket", err);
    c.p += map_len;
    out->slots = (int)slots;
    role prev[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int i = 0; i < (int)slots; i++) {
        if (!(map[i / 8] >> (i % 8) & 1))
            continue;
        uint64_t head;
        if (get_varint(&c, &head) || (head & 3) == 3 || (head >> 2) >= (uint64_t)GP_CHUNK_N_MAX)
            return bad(out, &c, origin, "bad bucket header", err);
        gp_chunk_bucket *b = &out->b[i];
        int fail;
        if ((head & 3) == 0) {
            fail = get_value(&c, &b->sum, &prev[ROLE_SUM]);
            b->min = b->max = b->sum;
            prev[ROLE_MIN] = prev[ROLE_MAX] = prev[ROLE_SUM];
        } else if ((head & 3) == 1) {
            fail = get_value(&c, &b->min, &prev[ROLE_MIN]);
            b->max = b->min;
            prev[ROLE_MAX] = prev[ROLE_MIN];
            fail = fail || get_value(&c, &b->sum, &prev[ROLE_SUM]);
        } else {
            fail = get_value(&c, &b->sum, &prev[ROLE_SUM]) ||
                   get_value(&c, &b->min, &prev[ROLE_MIN]) ||
                   get_value(&c, &b->max, &prev[ROLE_MAX]);
        }
        if (fail)
            return bad(out, &c, origin, "bad value", err);
        b->n = (long long)(head >> 2) + 1;
    }
    if (c.p != c.end)
        return bad(out, &c, origin, "trailing bytes", err);
    return GP_OK;
}

/* ---- Hour chunks (util_hour_day) ---------------------------------------------------------
 *
 *   u8 version (1) | varint map of present hours (bit i = hour i, below 2^24) | per present
 *   hour, in order: varint head = (buckets - 1) << 2 | f, f bit 0: power_sum follows, bit 1:
 *   busy_power_sum follows (an absent one is +0.0) | varint power_n | varint busy_power_n |
 *   util_sum, then power_sum and busy_power_sum where f says, each a value as above with its
 *   own role | varint map of the histogram bins that are not 0 (below 2^21), then each such
 *   bin's count as one byte, 1 to 255.
 *
 * An hour of a busy GPU is about 8 bytes against about 80 as a util_hour row. */

enum { HROLE_UTIL, HROLE_POWER, HROLE_BUSY };

static int bad_count(long long v) {
    return v < 0 || v > GP_CHUNK_N_MAX;
}

gp_status gp_hours_encode(const gp_hours *d, unsigned char *out, size_t *len, gp_err *err) {
    *len = 0;
    uint64_t present = 0;
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        const gp_hour *h = &d->h[i];
        if (h->buckets == 0)
            continue;
        if (bad_count(h->buckets) || bad_count(h->power_n) || bad_count(h->busy_power_n))
            return gp_errorf(err, GP_E_INPUT, "hours", "hour %d: a count out of 0 to %lld", i,
                             GP_CHUNK_N_MAX);
        present |= 1ull << i;
    }
    size_t at = 0;
    out[at++] = GP_CHUNK_VERSION;
    at += put_varint(out + at, present);
    role prev[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        const gp_hour *h = &d->h[i];
        if (h->buckets == 0)
            continue;
        unsigned f =
            (bits_of(h->power_sum) != 0 ? 1u : 0u) | (bits_of(h->busy_power_sum) != 0 ? 2u : 0u);
        at += put_varint(out + at, (uint64_t)(h->buckets - 1) << 2 | f);
        at += put_varint(out + at, (uint64_t)h->power_n);
        at += put_varint(out + at, (uint64_t)h->busy_power_n);
        at += put_value(out + at, h->util_sum, &prev[HROLE_UTIL]);
        if (f & 1)
            at += put_value(out + at, h->power_sum, &prev[HROLE_POWER]);
        if (f & 2)
            at += put_value(out + at, h->busy_power_sum, &prev[HROLE_BUSY]);
        uint64_t bins = 0;
        for (int k = 0; k < GP_HOURS_BINS; k++)
            if (h->hist[k])
                bins |= 1ull << k;
        at += put_varint(out + at, bins);
        for (int k = 0; k < GP_HOURS_BINS; k++)
            if (h->hist[k])
                out[at++] = h->hist[k];
    }
    *len = at;
    return GP_OK;
}

static gp_status bad_hours(gp_hours *out, const cursor *c, const char *origin, const char *what,
                           gp_err *err) {
    char where[200];
    snprintf(where, sizeof where, "%s:byte %td", origin, c->p - c->start);
    memset(out, 0, sizeof *out);
    return gp_errorf(err, GP_E_INPUT, where, "hour chunk: %s", what);
}

gp_status gp_hours_decode(const unsigned char *buf, size_t len, const char *origin, gp_hours *out,
                          gp_err *err) {
    cursor c = {buf, buf, buf + len};
    if (len == 0)
        return bad_hours(out, &c, origin, "empty", err);
    if (buf[0] != GP_CHUNK_VERSION)
        return bad_hours(out, &c, origin, "unknown version", err);
    c.p++;
    uint64_t present;
    if (get_varint(&c, &present) || present >> GP_HOURS_SLOTS)
        return bad_hours(out, &c, origin, "bad map of hours", err);
    role prev[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        gp_hour *h = &out->h[i];
        h->buckets = 0; /* an absent hour: the rest is not read (a month is 720 of these) */
        if (!(present >> i & 1))
            continue;
        h->power_sum = h->busy_power_sum = 0.0;
        memset(h->hist, 0, sizeof h->hist);
        uint64_t head, pn, bn, bins;
        if (get_varint(&c, &head) || (head >> 2) >= (uint64_t)GP_CHUNK_N_MAX ||
            get_varint(&c, &pn) || pn > (uint64_t)GP_CHUNK_N_MAX || get_varint(&c, &bn) ||
            bn > (uint64_t)GP_CHUNK_N_MAX)
            return bad_hours(out, &c, origin, "bad hour header", err);
        if (get_value(&c, &h->util_sum, &prev[HROLE_UTIL]) ||
            ((head & 1) && get_value(&c, &h->power_sum, &prev[HROLE_POWER])) ||
            ((head & 2) && get_value(&c, &h->busy_power_sum, &prev[HROLE_BUSY])))
            return bad_hours(out, &c, origin, "bad value", err);
        if (((head & 1) && bits_of(h->power_sum) == 0) ||
            ((head & 2) && bits_of(h->busy_power_sum) == 0))
            return bad_hours(out, &c, origin, "a zero written out", err);
        if (get_varint(&c, &bins) || bins >> GP_HOURS_BINS)
            return bad_hours(out, &c, origin, "bad map of bins", err);
        for (int k = 0; k < GP_HOURS_BINS; k++) {
            if (!(bins >> k & 1))
                continue;
            if (c.p == c.end || *c.p == 0)
                return bad_hours(out, &c, origin, "bad bin count", err);
            h->hist[k] = *c.p++;
        }
        h->buckets = (long long)(head >> 2) + 1;
        h->power_n = (long long)pn;
        h->busy_power_n = (long long)bn;
    }
    if (c.p != c.end)
        return bad_hours(out, &c, origin, "trailing bytes", err);
    return GP_OK;
}

/* ---- Fleet chunks (fleet_5m_day) ----------------------------------------------------------
 *
 *   u8 version (1) | bitmap of present buckets, 36 bytes, bit i = byte i / 8, bit i % 8 | per
 *   present bucket, in order: varint head = (gpus - 1) << 1 | implied | util_sum, a value as
 *   above (one role for the whole day) | varint map of the bins that are not 0 (below 2^21) |
 *   each such bin's count as a varint, 1 to 2^30, except, when implied is set, the highest
 *   one's: it is gpus less the others (every GPU of a bucket is in one bin, so that count is
 *   redundant for every bucket fleet_5m's writers make). implied is set exactly when the bins
 *   add up to gpus; anything else is refused.
 *
 * A bucket of an 8-GPU node is about 8 bytes against about 60 as a fleet_5m row. */

static int fleet_bins_sum(const gp_fleet_bucket *b, uint64_t *map, long long *sum) {
    *map = 0;
    *sum = 0;
    for (int k = 0; k < GP_FLEET_BINS; k++) {
        if (!b->bins[k])
            continue;
        if (b->bins[k] > GP_CHUNK_N_MAX)
            return -1;
        *map |= 1ull << k;
        *sum += b->bins[k];
    }
    return 0;
}

gp_status gp_fleet_encode(const gp_fleet_day *d, unsigned char *out, size_t *len, gp_err *err) {
    *len = 0;
    size_t at = 0;
    out[at++] = GP_CHUNK_VERSION;
    size_t map_at = at;
    memset(out + at, 0, GP_FLEET_SLOTS / 8);
    at += GP_FLEET_SLOTS / 8;
    role prev = {0, 0};
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        const gp_fleet_bucket *b = &d->b[i];
        if (b->gpus == 0)
            continue;
        uint64_t bins;
        long long sum;
        if (b->gpus < 0 || b->gpus > GP_CHUNK_N_MAX || fleet_bins_sum(b, &bins, &sum))
            return gp_errorf(err, GP_E_INPUT, "fleet chunk", "bucket %d: a count out of 0 to %lld",
                             i, GP_CHUNK_N_MAX);
        out[map_at + (size_t)i / 8] |= (unsigned char)(1u << (i % 8));
        unsigned implied = bins && sum == b->gpus;
        at += put_varint(out + at, (uint64_t)(b->gpus - 1) << 1 | implied);
        at += put_value(out + at, b->util_sum, &prev);
        at += put_varint(out + at, bins);
        int top = GP_FLEET_BINS - 1;
        while (implied && !(bins >> top & 1))
            top--;
        for (int k = 0; k < GP_FLEET_BINS; k++)
            if (b->bins[k] && !(implied && k == top))
                at += put_varint(out + at, b->bins[k]);
    }
    *len = at;
    return GP_OK;
}

static gp_status bad_fleet(gp_fleet_day *out, const cursor *c, const char *origin, const char *what,
                           gp_err *err) {
    char where[200];
    snprintf(where, sizeof where, "%s:byte %td", origin, c->p - c->start);
    memset(out, 0, sizeof *out);
    return gp_errorf(err, GP_E_INPUT, where, "fleet chunk: %s", what);
}

gp_status gp_fleet_decode(const unsigned char *buf, size_t len, const char *origin,
                          gp_fleet_day *out, gp_err *err) {
    cursor c = {buf, buf, buf + len};
    if (len == 0)
        return bad_fleet(out, &c, origin, "empty", err);
    if (buf[0] != GP_CHUNK_VERSION)
        return bad_fleet(out, &c, origin, "unknown version", err);
    c.p++;
    if ((size_t)(c.end - c.p) < GP_FLEET_SLOTS / 8)
        return bad_fleet(out, &c, origin, "truncated bitmap", err);
    const unsigned char *map = c.p;
    c.p += GP_FLEET_SLOTS / 8;
    role prev = {0, 0};
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        gp_fleet_bucket *b = &out->b[i];
        b->gpus = 0; /* an absent bucket: the rest is not read */
        if (!(map[i / 8] >> (i % 8) & 1))
            continue;
        /* a fault is reported at the start of what holds it: the bucket, a value, a count */
        const unsigned char *start = c.p;
        uint64_t head, bins;
        if (get_varint(&c, &head) || (head >> 1) >= (uint64_t)GP_CHUNK_N_MAX)
            return bad_fleet(out, &c, origin, "bad bucket header", err);
        const unsigned char *at = c.p;
        if (get_value(&c, &b->util_sum, &prev)) {
            c.p = at;
            return bad_fleet(out, &c, origin, "bad value", err);
        }
        at = c.p;
        if (get_varint(&c, &bins) || bins >> GP_FLEET_BINS || ((head & 1) && !bins)) {
            c.p = at;
            return bad_fleet(out, &c, origin, "bad map of bins", err);
        }
        long long gpus = (long long)(head >> 1) + 1, sum = 0;
        int top = GP_FLEET_BINS - 1;
        while ((head & 1) && !(bins >> top & 1))
            top--;
        memset(b->bins, 0, sizeof b->bins);
        for (int k = 0; k < GP_FLEET_BINS; k++) {
            if (!(bins >> k & 1) || ((head & 1) && k == top))
                continue;
            uint64_t n;
            at = c.p;
            if (get_varint(&c, &n) || n == 0 || n > (uint64_t)GP_CHUNK_N_MAX) {
                c.p = at;
                return bad_fleet(out, &c, origin, "bad bin count", err);
            }
            b->bins[k] = (unsigned)n;
            sum += (long long)n;
        }
        if ((head & 1) ? sum >= gpus : bins && sum == gpus) {
            c.p = start;
            return bad_fleet(out, &c, origin,
                             (head & 1) ? "bins past the GPU count"
                                        : "a count that follows from the others",
                             err);
        }
        if (head & 1)
            b->bins[top] = (unsigned)(gpus - sum);
        b->gpus = gpus;
    }
    if (c.p != c.end)
        return bad_fleet(out, &c, origin, "trailing bytes", err);
    return GP_OK;
}
