/* Rollup chunk encoding (chunk.h; both layouts in docs/telemetry.md, "Chunk encoding").
 *
 * Version 2, written: a header (version, bucket count, flags: all present, the prediction of
 * each role, the decimal digits; the bitmap when some bucket is absent), then bits: three Rice
 * parameters and groups of buckets (a shape and count, or repeats of the last bucket), each
 * value a prefix (k / 10^digits exactly, a unit in the last place above or below, or XOR
 * bytes) and a Rice-coded zigzag delta from its role's prediction. Version 1, still read: a
 * bitmap, then per bucket a varint head and varint values at a fixed scale of 1000 or XOR.
 *
 * Why: gauges read to three decimals or fewer (utilization, watts, MiB, clocks) are small
 * deltas of their neighbour, a counter's steps are alike, idle and constant series repeat, and
 * a sum of readings added in double arithmetic lands within a unit in the last place of its
 * decimal value: coding for those takes a few bits a value where a REAL row took 57 bytes. A
 * value is fixed point only where the decoder gets back its exact bits, so nothing is rounded;
 * any other double shares its sign, exponent and top mantissa bits with its neighbour, which
 * the XOR drops (Gorilla, as Prometheus' XOR chunks do). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

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

/* ---- The checksum every chunk written now ends in (docs/telemetry.md, "Chunk encoding") ----
 *
 * Why: a flipped bit in a chunk can still decode (24 of 800 corrupted copies gave slightly
 * different figures): zlib's CRC-32 of every byte before it, little-endian, catches every
 * burst of up to 32 bits. Versions written before it (rollup 1-2, hours 1, fleet 1-2) have
 * none and still decode. */
#define SUM_BYTES 4

static uint32_t sum_of(const unsigned char *buf, size_t len) {
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len);
}

/* Append the checksum of out[0..*len). */
static void put_sum(unsigned char *out, size_t *len) {
    uint32_t s = sum_of(out, *len);
    for (int i = 0; i < SUM_BYTES; i++)
        out[(*len)++] = (unsigned char)(s >> (8 * i));
}

/* GP_OK when buf[0..len) ends in the checksum of the bytes before it; else GP_E_INPUT, err
 * naming origin (the table, series and day) and both sums. */
static gp_status check_sum(const unsigned char *buf, size_t len, const char *origin,
                           const char *what, gp_err *err) {
    if (len <= SUM_BYTES)
        return gp_errorf(err, GP_E_INPUT, origin, "%s: truncated (%zu bytes)", what, len);
    uint32_t stored = 0, got = sum_of(buf, len - SUM_BYTES);
    for (int i = 0; i < SUM_BYTES; i++)
        stored |= (uint32_t)buf[len - SUM_BYTES + (size_t)i] << (8 * i);
    if (stored != got)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "%s: checksum mismatch (stored %08x, computed %08x): the chunk is "
                         "damaged",
                         what, (unsigned)stored, (unsigned)got);
    return GP_OK;
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

/* Version 1, as chunks written before version 2 hold it (the cursor is past the version). */
static gp_status decode_v1(cursor c, const char *origin, gp_chunk *out, gp_err *err) {
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

/* ---- Version 2 --------------------------------------------------------------------------- */

/* flags: every slot present (no bitmap) | per role (sum, min, max), values predicted on the
 * line through the role's last two | the decimal digits of the fixed point (0 to 3). */
enum { FLAG_FULL = 1, FLAG_LINEAR = 2, FLAG_DIGITS_SHIFT = 4, FLAGS_KNOWN = 63 };
/* A group of buckets: op 0 to 2 a shape, OP_REPEAT the last bucket again; + OP_NEW_N: a new
 * count follows. */
enum { OP_REPEAT = 3, OP_NEW_N = 4 };
#define RICE_ESCAPE 16 /* a quotient this large is written as a length and the bits instead */
#define RICE_K_MAX 56  /* past the largest zigzagged delta's bits */
#define DELTA_LIMIT (1LL << 55) /* past any fixed-point k minus its prediction */

static const double SCALES[4] = {1, 10, 100, 1000};

static uint64_t zigzag(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int bit_length(uint64_t v) {
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* Bits, least significant first, into bytes. */
typedef struct bitw {
    unsigned char *p;
    size_t at;
    uint64_t acc;
    int n;
} bitw;

static void put_bits(bitw *w, uint64_t v, int n) { /* n <= 32 */
    w->acc |= (v & ((1ull << n) - 1)) << w->n;
    w->n += n;
    while (w->n >= 8) {
        w->p[w->at++] = (unsigned char)w->acc;
        w->acc >>= 8;
        w->n -= 8;
    }
}

static void put_wide(bitw *w, uint64_t v, int n) { /* n <= 64 */
    if (n > 32) {
        put_bits(w, v, 32);
        put_bits(w, v >> 32, n - 32);
    } else {
        put_bits(w, v, n);
    }
}

static void put_ones(bitw *w, int q) {
    for (; q >= 32; q -= 32)
        put_bits(w, 0xffffffffu, 32);
    put_bits(w, (1ull << q) - 1, q);
}

/* Elias gamma: v >= 1 as its length less one in zeros, a one, then its bits below the top. */
static void put_gamma(bitw *w, uint64_t v) {
    int len = bit_length(v);
    put_bits(w, 0, len - 1);
    put_bits(w, 1, 1);
    put_wide(w, v, len - 1);
}

/* Rice with parameter k: the quotient v >> k in ones and a zero, then k bits; a quotient of
 * RICE_ESCAPE or more as RICE_ESCAPE ones, 6 bits of length less one, the bits below the top. */

static void put_rice(bitw *w, uint64_t v, int k) {
    uint64_t q = v >> k;
    if (q < RICE_ESCAPE) {
        put_ones(w, (int)q);
        put_bits(w, 0, 1);
        put_wide(w, v, k);
    } else {
        int len = bit_length(v);
        put_ones(w, RICE_ESCAPE);
        put_bits(w, (uint64_t)(len - 1), 6);
        put_wide(w, v, len - 1);
    }
}

typedef struct bitr {
    const unsigned char *p, *end;
    uint64_t acc;
    int n;
} bitr;

static void refill(bitr *r) {
    while (r->n <= 48 && r->p < r->end) { /* at most 56 bits: every shift below 64 */
        r->acc |= (uint64_t)*r->p++ << r->n;
        r->n += 8;
    }
}

static int get_bits(bitr *r, int n, uint64_t *v) { /* n <= 32 */
    if (r->n < n) {
        refill(r);
        if (r->n < n)
            return -1;
    }
    *v = r->acc & ((1ull << n) - 1);
    r->acc >>= n;
    r->n -= n;
    return 0;
}

static int get_wide(bitr *r, int n, uint64_t *v) { /* n <= 64 */
    uint64_t lo, hi = 0;
    if (get_bits(r, n > 32 ? 32 : n, &lo) || (n > 32 && get_bits(r, n - 32, &hi)))
        return -1;
    *v = lo | hi << 32;
    return 0;
}

/* Ones before the next zero, up to max <= 32 (then no zero is read). */
static int get_ones(bitr *r, int max, int *q) {
    if (r->n <= max)
        refill(r);
    int ones = r->acc == ~0ull ? 64 : __builtin_ctzll(~r->acc);
    if (ones >= max && r->n >= max) {
        *q = max;
        r->acc >>= max;
        r->n -= max;
        return 0;
    }
    if (ones >= r->n)
        return -1; /* the bits ran out first */
    *q = ones;
    r->acc >>= ones + 1;
    r->n -= ones + 1;
    return 0;
}

static int get_gamma(bitr *r, uint64_t *v) {
    int zeros = 0;
    uint64_t b = 0;
    while (!b) {
        if (get_bits(r, 1, &b) || (!b && ++zeros > 63))
            return -1;
    }
    uint64_t low;
    if (get_wide(r, zeros, &low))
        return -1;
    *v = 1ull << zeros | low;
    return 0;
}

static int get_rice(bitr *r, int k, uint64_t *v) {
    int q;
    if (get_ones(r, RICE_ESCAPE, &q))
        return -1;
    uint64_t low, len;
    if (q < RICE_ESCAPE) {
        if (get_wide(r, k, &low))
            return -1;
        *v = (uint64_t)q << k | low;
        return 0;
    }
    if (get_bits(r, 6, &len) || get_wide(r, (int)len, &low))
        return -1;
    *v = 1ull << len | low;
    return 0;
}

/* A value as the encoder codes it: k / scale, or that with one unit in the last place up
 * (e 1) or down (e -1); fixed false when it is neither. */
typedef struct val {
    int64_t k;
    int e;
    bool fixed;
    uint64_t bits;
} val;

/* v as k / 1000 (k whole), give or take a unit in the last place: a sum of readings to three
 * decimals, added in double arithmetic, is mostly within one of it. */
static val val_of(double v) {
    val x = {.bits = bits_of(v)};
    if (!(fabs(v) < FIXED_LIMIT / SCALE))
        return x;
    /* Rounded half away from zero, without a call into libm: a value halfway between two
     * thousandths is near neither, whichever k it gets. */
    double r = v * SCALE;
    int64_t k = (int64_t)(r + (r < 0 ? -0.5 : 0.5));
    if (k >= (int64_t)FIXED_LIMIT || k <= -(int64_t)FIXED_LIMIT)
        return x;
    int64_t e = (int64_t)(x.bits - bits_of((double)k / SCALE));
    if (e < -1 || e > 1)
        return x;
    x.k = k;
    x.e = (int)e;
    x.fixed = true;
    return x;
}

/* The decimal digits the chunk's fixed-point values need (whole percents, MiB and MHz none),
 * and each value's k at that scale: k / 10^(3 - digits) is the same double as k / 1000. */
static int rescale(val (*v)[3], int n) {
    int need = 0;
    for (int i = 0; i < n && need < 3; i++)
        for (int j = 0; j < 3; j++) {
            if (!v[i][j].fixed)
                continue;
            int d = 3;
            for (int64_t k = v[i][j].k; d > 0 && k % 10 == 0; k /= 10)
                d--;
            need = d > need ? d : need;
        }
    /* Division by a constant: a multiply, where a divisor in a variable is a slow idiv. */
    for (int i = 0; i < n && need < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j].k = need == 0 ? v[i][j].k / 1000 : need == 1 ? v[i][j].k / 100 : v[i][j].k / 10;
    return need;
}

/* What the next value of a role is coded against: its last two fixed-point k, its last bits. */
typedef struct role2 {
    int64_t k1, k2;
    uint64_t bits;
} role2;

/* The coder's state, the same on both sides; the encoder's plan records, per role, each
 * fixed-point value's zigzagged delta from either prediction, to choose one and its k. */
typedef struct coder {
    double scale;
    unsigned linear; /* bit r: role r predicted on the line through its last two */
    int k[3];        /* each role's Rice parameter */
    long long n;     /* the last bucket's count */
    role2 r[3];
    bitw *w; /* writing, or planning when NULL */
    int planned[3];
    uint64_t zz[2][3][GP_CHUNK_SLOTS_MAX];
} coder;

static int64_t predict(const coder *c, int ro) {
    const role2 *r = &c->r[ro];
    return c->linear >> ro & 1 ? 2 * r->k1 - r->k2 : r->k1; /* |k| < 2^53: no overflow */
}

/* A value's prefix: 0 k / scale, 10 a unit above, 110 a unit below, 111 the bits XOR the
 * role's last bits, then 4 bits of bytes and those bytes. */
static void code_value(coder *c, const val *v, int ro) {
    role2 *r = &c->r[ro];
    if (!c->w) {
        if (v->fixed) {
            c->zz[0][ro][c->planned[ro]] = zigzag(v->k - r->k1);
            c->zz[1][ro][c->planned[ro]] = zigzag(v->k - 2 * r->k1 + r->k2);
            c->planned[ro]++;
        }
    } else if (v->fixed) {
        put_bits(c->w, v->e == 0 ? 0 : v->e > 0 ? 1 : 3, v->e == 0 ? 1 : v->e > 0 ? 2 : 3);
        put_rice(c->w, zigzag(v->k - predict(c, ro)), c->k[ro]);
    } else {
        uint64_t x = v->bits ^ r->bits;
        int m = (bit_length(x) + 7) / 8;
        put_bits(c->w, 7, 3);
        put_bits(c->w, (uint64_t)m, 4);
        put_wide(c->w, x, 8 * m);
    }
    if (v->fixed) {
        r->k2 = r->k1;
        r->k1 = v->k;
    }
    r->bits = v->bits;
}

static int same_bucket(const gp_chunk_bucket *a, const gp_chunk_bucket *b) {
    return a->n == b->n && bits_of(a->sum) == bits_of(b->sum) &&
           bits_of(a->min) == bits_of(b->min) && bits_of(a->max) == bits_of(b->max);
}

static unsigned shape_of(const gp_chunk_bucket *b) {
    uint64_t lo = bits_of(b->min), hi = bits_of(b->max), s = bits_of(b->sum);
    return lo == hi ? (s == lo ? 0 : 1) : 2;
}

/* A bucket's values, v[ROLE_SUM], v[ROLE_MIN], v[ROLE_MAX], as its shape has them. */
static void code_values(coder *c, const val *v, unsigned shape) {
    if (shape == 0) {
        code_value(c, &v[ROLE_SUM], ROLE_SUM);
        c->r[ROLE_MIN] = c->r[ROLE_MAX] = c->r[ROLE_SUM];
    } else if (shape == 1) {
        code_value(c, &v[ROLE_MIN], ROLE_MIN);
        c->r[ROLE_MAX] = c->r[ROLE_MIN];
        code_value(c, &v[ROLE_SUM], ROLE_SUM);
    } else {
        code_value(c, &v[ROLE_SUM], ROLE_SUM);
        code_value(c, &v[ROLE_MIN], ROLE_MIN);
        code_value(c, &v[ROLE_MAX], ROLE_MAX);
    }
}

/* The present buckets of a chunk and their values. */
typedef struct prepared {
    int n, digits;
    const gp_chunk_bucket *b[GP_CHUNK_SLOTS_MAX];
    val v[GP_CHUNK_SLOTS_MAX][3];
} prepared;

/* Groups of present buckets alike: repeats of the last bucket, or one shape and count. */
static void code_groups(coder *c, const prepared *pr) {
    const gp_chunk_bucket *last = NULL;
    for (int i = 0; i < pr->n;) {
        const gp_chunk_bucket *b = pr->b[i];
        unsigned op = last && same_bucket(b, last) ? OP_REPEAT : shape_of(b);
        int end = i + 1;
        while (end < pr->n &&
               (op == OP_REPEAT ? same_bucket(pr->b[end], last)
                                : pr->b[end]->n == b->n && shape_of(pr->b[end]) == op &&
                                      !same_bucket(pr->b[end], pr->b[end - 1])))
            end++;
        bool new_n = op != OP_REPEAT && b->n != c->n;
        if (c->w) {
            put_bits(c->w, op + (new_n ? OP_NEW_N : 0), 3);
            put_gamma(c->w, (uint64_t)(end - i));
            if (new_n)
                put_gamma(c->w, zigzag(b->n - c->n) + 1);
        }
        if (new_n)
            c->n = b->n;
        if (op != OP_REPEAT) {
            for (int j = i; j < end; j++)
                code_values(c, pr->v[j], op);
            last = pr->b[end - 1];
        }
        i = end;
    }
}

/* The Rice parameter that codes n deltas in about the fewest bits, and that estimate: each
 * delta counted by its bit length L, a quotient taken as 1.5 x 2^(L - 1 - k), so a few large
 * steps (the first value, a job starting) do not set k for all the others. */
static int best_k(const uint64_t *zz, int n, long *bits_out) {
    int count[65] = {0}, lens[65], kinds = 0, top = 0, best_k = 0;
    for (int i = 0; i < n; i++)
        count[bit_length(zz[i])]++;
    for (int len = 0, seen = 0; len <= 64; len++) {
        if (!count[len])
            continue;
        lens[kinds++] = len;
        if (seen < n - n / 10) /* k past the lengths of nine deltas in ten never pays */
            top = len;
        seen += count[len];
    }
    long best = -1;
    for (int k = 0; k <= top + 1 && k <= RICE_K_MAX; k++) {
        long bits = 0;
        for (int j = 0; j < kinds; j++) {
            int len = lens[j];
            long q = len <= k ? 0 : len - 1 - k >= 4 ? RICE_ESCAPE : (3L << (len - 1 - k)) / 2;
            bits += count[len] * (q < RICE_ESCAPE ? q + 1 + k : RICE_ESCAPE + 6 + len - 1);
        }
        if (best < 0 || bits < best) {
            best = bits;
            best_k = k;
        }
    }
    *bits_out = best;
    return best_k;
}

/* A role's prediction (its last value or the line through its last two) and Rice parameter:
 * whichever codes its deltas in fewer bits. */
static void choose(coder *c, int ro) {
    long best = -1;
    for (int lin = 0; lin < 2 && c->planned[ro]; lin++) {
        long bits;
        int k = best_k(c->zz[lin][ro], c->planned[ro], &bits);
        if (best < 0 || bits < best) {
            best = bits;
            c->k[ro] = k;
            c->linear = (c->linear & ~(1u << ro)) | (unsigned)lin << ro;
        }
    }
}

gp_status gp_chunk_encode(const gp_chunk *c, unsigned char *out, size_t *len, gp_err *err) {
    *len = 0;
    if (c->slots < 1 || c->slots > GP_CHUNK_SLOTS_MAX)
        return gp_errorf(err, GP_E_INPUT, "chunk", "%d buckets in a chunk (1 to %d)", c->slots,
                         GP_CHUNK_SLOTS_MAX);
    prepared pr;
    pr.n = 0;
    for (int i = 0; i < c->slots; i++) {
        const gp_chunk_bucket *b = &c->b[i];
        if (b->n == 0)
            continue;
        if (b->n < 0 || b->n > GP_CHUNK_N_MAX)
            return gp_errorf(err, GP_E_INPUT, "chunk", "bucket %d holds %lld samples", i, b->n);
        pr.b[pr.n] = b;
        pr.v[pr.n][ROLE_SUM] = val_of(b->sum);
        pr.v[pr.n][ROLE_MIN] = val_of(b->min);
        pr.v[pr.n][ROLE_MAX] = val_of(b->max);
        pr.n++;
    }
    pr.digits = rescale(pr.v, pr.n);
    coder k;
    memset(&k, 0, offsetof(coder, zz));
    code_groups(&k, &pr); /* the plan: every role's deltas */
    int rice[3] = {0, 0, 0};
    for (int ro = 0; ro < 3; ro++) {
        choose(&k, ro);
        rice[ro] = k.k[ro];
    }
    unsigned linear = k.linear;
    size_t at = 0;
    out[at++] = GP_CHUNK_VERSION;
    at += put_varint(out + at, (uint64_t)c->slots);
    bool full = pr.n == c->slots;
    out[at++] = (unsigned char)((full ? FLAG_FULL : 0) | linear * FLAG_LINEAR |
                                (unsigned)pr.digits << FLAG_DIGITS_SHIFT);
    if (!full) {
        size_t map_len = ((size_t)c->slots + 7) / 8;
        memset(out + at, 0, map_len);
        for (int i = 0; i < c->slots; i++)
            if (c->b[i].n)
                out[at + (size_t)i / 8] |= (unsigned char)(1u << (i % 8));
        at += map_len;
    }
    bitw w = {.p = out, .at = at};
    memset(&k, 0, offsetof(coder, zz));
    k.scale = SCALES[pr.digits];
    k.linear = linear;
    k.w = &w;
    for (int ro = 0; ro < 3; ro++) {
        k.k[ro] = rice[ro];
        put_bits(&w, (uint64_t)rice[ro], 6);
    }
    code_groups(&k, &pr);
    if (w.n)
        out[w.at++] = (unsigned char)w.acc;
    *len = w.at;
    put_sum(out, len);
    return GP_OK;
}

static int get_value2(bitr *in, double *v, int ro, coder *c) {
    role2 *r = &c->r[ro];
    uint64_t b, u;
    int prefix;
    if (get_ones(in, 3, &prefix))
        return -1;
    if (prefix == 3) {
        uint64_t m, x;
        if (get_bits(in, 4, &m) || m > 8 || get_wide(in, 8 * (int)m, &x))
            return -1;
        if (m > 0 && !(x >> (8 * (m - 1))))
            return -1; /* a zero top byte: not the shortest form */
        r->bits ^= x;
        memcpy(v, &r->bits, sizeof *v);
        return 0;
    }
    if (get_rice(in, c->k[ro], &b))
        return -1;
    int64_t d = unzigzag(b);
    if (d >= DELTA_LIMIT || d <= -DELTA_LIMIT)
        return -1;
    int64_t k = predict(c, ro) + d;
    if (k >= (int64_t)FIXED_LIMIT || k <= -(int64_t)FIXED_LIMIT)
        return -1;
    u = bits_of((double)k / c->scale) + (prefix == 1 ? 1 : prefix == 2 ? (uint64_t)-1 : 0);
    r->k2 = r->k1;
    r->k1 = k;
    r->bits = u;
    memcpy(v, &u, sizeof *v);
    return 0;
}

/* A group's header: its op (a shape, or OP_REPEAT of last) and length into *op and *left, a
 * new bucket count into k->n; NULL, or what is wrong with it. */
static const char *group_header(bitr *in, coder *k, uint64_t slots, const gp_chunk_bucket *last,
                                unsigned *op, uint64_t *left) {
    uint64_t o;
    if (get_bits(in, 3, &o) || o == 7 || get_gamma(in, left) || *left > slots)
        return "bad group header";
    *op = (unsigned)o;
    if (*op >= OP_NEW_N) {
        uint64_t zn;
        if (get_gamma(in, &zn))
            return "bad group header";
        int64_t d = unzigzag(zn - 1);
        if (d <= -GP_CHUNK_N_MAX || d > GP_CHUNK_N_MAX)
            return "bad bucket count";
        k->n += d;
        *op -= OP_NEW_N;
    }
    if (*op == OP_REPEAT && !last)
        return "a repeat of nothing";
    if (*op != OP_REPEAT && (k->n < 1 || k->n > GP_CHUNK_N_MAX))
        return "bad bucket count";
    return NULL;
}

/* A bucket's values in shape op (0: one value, 1: min and sum, 2: sum, min and max); nonzero
 * when they are not there or out of range. */
static int bucket_values(bitr *in, coder *k, unsigned op, gp_chunk_bucket *b) {
    int fail;
    if (op == 0) {
        fail = get_value2(in, &b->sum, ROLE_SUM, k);
        b->min = b->max = b->sum;
        k->r[ROLE_MIN] = k->r[ROLE_MAX] = k->r[ROLE_SUM];
    } else if (op == 1) {
        fail = get_value2(in, &b->min, ROLE_MIN, k);
        b->max = b->min;
        k->r[ROLE_MAX] = k->r[ROLE_MIN];
        fail = fail || get_value2(in, &b->sum, ROLE_SUM, k);
    } else {
        fail = get_value2(in, &b->sum, ROLE_SUM, k) || get_value2(in, &b->min, ROLE_MIN, k) ||
               get_value2(in, &b->max, ROLE_MAX, k);
    }
    b->n = k->n;
    return fail;
}

/* Version 2's bytes before the bit stream: the bucket count, the flags and, unless every bucket
 * is present, the bitmap of those present (*map, NULL when full). */
static gp_status v2_header(cursor *c, const char *origin, gp_chunk *out, uint64_t *slots,
                           unsigned *flags, const unsigned char **map, gp_err *err) {
    if (get_varint(c, slots) || *slots < 1 || *slots > GP_CHUNK_SLOTS_MAX)
        return bad(out, c, origin, "bad bucket count", err);
    if (c->p == c->end || *c->p & ~FLAGS_KNOWN)
        return bad(out, c, origin, "bad flags", err);
    *flags = *c->p++;
    *map = NULL;
    if (!(*flags & FLAG_FULL)) {
        size_t map_len = ((size_t)*slots + 7) / 8;
        if ((size_t)(c->end - c->p) < map_len)
            return bad(out, c, origin, "truncated bitmap", err);
        *map = c->p;
        if (*slots % 8 && (*map)[map_len - 1] >> (*slots % 8))
            return bad(out, c, origin, "bits set past the last bucket", err);
        c->p += map_len;
    }
    return GP_OK;
}

static gp_status decode_v2(cursor c, const char *origin, gp_chunk *out, gp_err *err) {
    uint64_t slots = 0;
    unsigned flags = 0;
    const unsigned char *map = NULL;
    if (v2_header(&c, origin, out, &slots, &flags, &map, err))
        return err->code;
    out->slots = (int)slots;
    coder k;
    memset(&k, 0, offsetof(coder, zz));
    k.scale = SCALES[flags >> FLAG_DIGITS_SHIFT];
    k.linear = (flags / FLAG_LINEAR) & 7;
    bitr in = {c.p, c.end, 0, 0};
#define BAD(what) (c.p = in.p, bad(out, &c, origin, what, err))
    for (int ro = 0; ro < 3; ro++) {
        uint64_t rk;
        if (get_bits(&in, 6, &rk) || rk > RICE_K_MAX)
            return BAD("bad Rice parameter");
        k.k[ro] = (int)rk;
    }
    const gp_chunk_bucket *last = NULL;
    uint64_t left = 0; /* buckets left in the group */
    unsigned op = 0;
    for (int i = 0; i < (int)slots; i++) {
        if (map && !(map[i / 8] >> (i % 8) & 1))
            continue;
        const char *why = left == 0 ? group_header(&in, &k, slots, last, &op, &left) : NULL;
        if (why)
            return BAD(why);
        left--;
        gp_chunk_bucket *b = &out->b[i];
        if (op == OP_REPEAT) {
            *b = *last;
            continue;
        }
        if (bucket_values(&in, &k, op, b))
            return BAD("bad value");
        last = b;
    }
    if (left)
        return BAD("a group past the last bucket");
    if (in.n + 8 * (in.end - in.p) >= 8) /* the reader takes bytes ahead into in.acc */
        return BAD("trailing bytes");
    if (in.acc)
        return BAD("bits set past the last value");
#undef BAD
    return GP_OK;
}

gp_status gp_chunk_decode(const unsigned char *buf, size_t len, const char *origin, gp_chunk *out,
                          gp_err *err) {
    cursor c = {buf, buf, buf + len};
    gp_chunk_init(out, 0);
    if (len == 0)
        return bad(out, &c, origin, "empty", err);
    c.p++;
    if (buf[0] == GP_CHUNK_VERSION) { /* version 2's layout and the checksum */
        if (check_sum(buf, len, origin, "chunk", err))
            return err->code;
        c.end -= SUM_BYTES;
        return decode_v2(c, origin, out, err);
    }
    if (buf[0] == 2)
        return decode_v2(c, origin, out, err);
    if (buf[0] == 1)
        return decode_v1(c, origin, out, err);
    c.p--;
    return bad(out, &c, origin, "unknown version", err);
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
    out[at++] = GP_HOURS_VERSION;
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
    put_sum(out, len);
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
    if (buf[0] != GP_HOURS_VERSION && buf[0] != 1)
        return bad_hours(out, &c, origin, "unknown version", err);
    if (buf[0] == GP_HOURS_VERSION) { /* version 1's layout and the checksum */
        if (check_sum(buf, len, origin, "hour chunk", err)) {
            memset(out, 0, sizeof *out);
            return err->code;
        }
        c.end -= SUM_BYTES;
    }
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

/* ---- Adding hours as they are read (gp_hours_add) -------------------------------------------
 *
 * A month of 10,000 GPUs is 7.2 M hours: gp_hours_add reads each one straight into running
 * totals with gp_hours_decode's own cursor readers (a test and the fuzz target hold the two to
 * the same chunks); the refusal's message is always gp_hours_decode's. */

/* The index of v's lowest set bit (v != 0). */
static inline int low_bit(uint64_t v) {
#if defined(__GNUC__)
    return __builtin_ctzll(v);
#else
    int i = 0;
    while (!(v >> i & 1))
        i++;
    return i;
#endif
}

/* gp_hours_decode names the fault; a chunk it takes is refused here only by a bug. */
static gp_status hours_add_refused(const unsigned char *buf, size_t len, const char *origin,
                                   gp_err *err) {
    gp_hours d;
    if (gp_hours_decode(buf, len, origin, &d, err) != GP_OK)
        return err->code;
    return gp_errorf(err, GP_E_INPUT, origin, "hour chunk: refused by gp_hours_add");
}

gp_status gp_hours_add(const unsigned char *buf, size_t len, const char *origin, unsigned long mask,
                       gp_hours_total *t, double *means, int *n_means, gp_err *err) {
    cursor c = {buf, buf, buf + len};
    uint64_t present;
    int nm = 0;
    if (n_means)
        *n_means = 0;
    if (len == 0 || (buf[0] != GP_HOURS_VERSION && buf[0] != 1))
        return hours_add_refused(buf, len, origin, err);
    if (buf[0] == GP_HOURS_VERSION) {
        if (check_sum(buf, len, origin, "hour chunk", err))
            return hours_add_refused(buf, len, origin, err);
        c.end -= SUM_BYTES;
    }
    c.p++;
    if (get_varint(&c, &present) || present >> GP_HOURS_SLOTS)
        return hours_add_refused(buf, len, origin, err);
    role prev[3] = {{0, 0}, {0, 0}, {0, 0}};
    while (present) {
        int i = low_bit(present);
        present &= present - 1;
        uint64_t head, pn, bn, bins;
        double util, power = 0.0, busy = 0.0;
        if (get_varint(&c, &head) || (head >> 2) >= (uint64_t)GP_CHUNK_N_MAX ||
            get_varint(&c, &pn) || pn > (uint64_t)GP_CHUNK_N_MAX || get_varint(&c, &bn) ||
            bn > (uint64_t)GP_CHUNK_N_MAX || get_value(&c, &util, &prev[HROLE_UTIL]) ||
            ((head & 1) && (get_value(&c, &power, &prev[HROLE_POWER]) || bits_of(power) == 0)) ||
            ((head & 2) && (get_value(&c, &busy, &prev[HROLE_BUSY]) || bits_of(busy) == 0)) ||
            get_varint(&c, &bins) || bins >> GP_HOURS_BINS)
            return hours_add_refused(buf, len, origin, err);
        const unsigned char *p = c.p, *end = c.end;
        if (!(mask >> i & 1)) {
            for (; bins; bins &= bins - 1)
                if (p == end || *p++ == 0)
                    return hours_add_refused(buf, len, origin, err);
            c.p = p;
            continue;
        }
        for (; bins; bins &= bins - 1) {
            if (p == end || *p == 0)
                return hours_add_refused(buf, len, origin, err);
            t->hist[low_bit(bins)] += *p++;
        }
        c.p = p;
        t->buckets += (long long)(head >> 2) + 1;
        t->util_sum += util;
        t->power_n += (long long)pn;
        t->power_sum += power;
        t->busy_power_n += (long long)bn;
        t->busy_power_sum += busy;
        if (means && pn > 0)
            means[nm++] = power / (double)(long long)pn;
    }
    if (c.p != c.end)
        return hours_add_refused(buf, len, origin, err);
    if (n_means)
        *n_means = nm;
    return GP_OK;
}

/* ---- Fleet chunks (fleet_5m_day), version 1: read only -----------------------------------
 *
 *   u8 version (1) | bitmap of present buckets, 36 bytes, bit i = byte i / 8, bit i % 8 | per
 *   present bucket, in order: varint head = (gpus - 1) << 1 | implied | util_sum, a value as
 *   above (one role for the whole day) | varint map of the bins that are not 0 (below 2^21) |
 *   each such bin's count as a varint, 1 to 2^30, except, when implied is set, the highest
 *   one's: it is gpus less the others (every GPU of a bucket is in one bin, so that count is
 *   redundant for every bucket fleet_5m's writers make). implied is set exactly when the bins
 *   add up to gpus; anything else is refused.
 *
 * Version 2 (below) is written. */

static gp_status bad_fleet(gp_fleet_day *out, const cursor *c, const char *origin, const char *what,
                           gp_err *err) {
    char where[200];
    snprintf(where, sizeof where, "%s:byte %td", origin, c->p - c->start);
    memset(out, 0, sizeof *out);
    return gp_errorf(err, GP_E_INPUT, where, "fleet chunk: %s", what);
}

static gp_status decode_fleet_v1(const unsigned char *buf, size_t len, const char *origin,
                                 gp_fleet_day *out, gp_err *err) {
    cursor c = {buf + 1, buf, buf + len};
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

/* ---- Fleet chunks, version 2 ---------------------------------------------------------------
 *
 *   u8 version (2) | u8 flags: bit 0 every bucket present (no bitmap), bits 1 and 2 the decimal
 *   digits of the utilization sums | the bitmap unless bit 0 | bits, as the rollup chunks':
 *   6 bits of Rice parameter for the utilization sums, 6 for the bins | per present bucket: 1,
 *   the last bucket again; or 0, then the GPUs (1: as the last; 0 and gamma(zigzag(change) + 1)),
 *   the utilization sum as a rollup chunk's value against the last, and each of the 21 bins'
 *   counts as a Rice-coded zigzag change from the last bucket's (all 0 before the first).
 *
 * Why: a node's GPUs and bins change little from one 5 minutes to the next, so a bucket is a
 * few bits of unchanged counts and the utilization's change, about 3 bytes where version 1
 * (below) took 10 and a fleet_5m row about 50. */

static int fleet_check(const gp_fleet_bucket *b) {
    if (b->gpus < 0 || b->gpus > GP_CHUNK_N_MAX)
        return -1;
    for (int k = 0; k < GP_FLEET_BINS; k++)
        if (b->bins[k] > GP_CHUNK_N_MAX)
            return -1;
    return 0;
}

static int same_fleet_bucket(const gp_fleet_bucket *a, const gp_fleet_bucket *b) {
    return a->gpus == b->gpus && bits_of(a->util_sum) == bits_of(b->util_sum) &&
           memcmp(a->bins, b->bins, sizeof a->bins) == 0;
}

/* The buckets with GPUs, by index into present (their count returned); -1 with the error when a
 * count is out of range. */
static int fleet_present(const gp_fleet_day *d, int *present, gp_err *err) {
    int n = 0;
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        if (fleet_check(&d->b[i])) {
            gp_errorf(err, GP_E_INPUT, "fleet chunk", "bucket %d: a count out of 0 to %lld", i,
                      GP_CHUNK_N_MAX);
            return -1;
        }
        if (d->b[i].gpus)
            present[n++] = i;
    }
    return n;
}

/* The zigzag deltas a fleet chunk codes, for their Rice parameters: the fixed utilization sums'
 * into zu (*nu of them), the bins' into zb (*nb), of each bucket that is not a repeat. */
static void fleet_deltas(const gp_fleet_day *d, const int *present, int n, val (*v)[3],
                         uint64_t *zu, int *nu, uint64_t *zb, int *nb) {
    static const gp_fleet_bucket none;
    int64_t last_k = 0;
    const gp_fleet_bucket *last = NULL;
    *nu = *nb = 0;
    for (int j = 0; j < n; j++) {
        const gp_fleet_bucket *b = &d->b[present[j]];
        if (last && same_fleet_bucket(b, last))
            continue;
        if (v[j][0].fixed) {
            zu[(*nu)++] = zigzag(v[j][0].k - last_k);
            last_k = v[j][0].k;
        }
        const gp_fleet_bucket *p = last ? last : &none;
        for (int k = 0; k < GP_FLEET_BINS; k++)
            zb[(*nb)++] = zigzag((int64_t)b->bins[k] - (int64_t)p->bins[k]);
        last = b;
    }
}

/* The present buckets' bits: a repeat flag, the GPU count (same, or its change), the sum and
 * the bins' changes at Rice parameter kb. */
static void fleet_put_buckets(coder *c, const gp_fleet_day *d, const int *present, int n,
                              val (*v)[3], int kb) {
    static const gp_fleet_bucket none;
    bitw *w = c->w;
    const gp_fleet_bucket *last = NULL;
    for (int j = 0; j < n; j++) {
        const gp_fleet_bucket *b = &d->b[present[j]];
        if (last && same_fleet_bucket(b, last)) {
            put_bits(w, 1, 1);
            continue;
        }
        put_bits(w, 0, 1);
        if (b->gpus == c->n) {
            put_bits(w, 1, 1);
        } else {
            put_bits(w, 0, 1);
            put_gamma(w, zigzag(b->gpus - c->n) + 1);
            c->n = b->gpus;
        }
        code_value(c, &v[j][0], 0);
        const gp_fleet_bucket *p = last ? last : &none;
        for (int k = 0; k < GP_FLEET_BINS; k++)
            put_rice(w, zigzag((int64_t)b->bins[k] - (int64_t)p->bins[k]), kb);
        last = b;
    }
}

gp_status gp_fleet_encode(const gp_fleet_day *d, unsigned char *out, size_t *len, gp_err *err) {
    *len = 0;
    int present[GP_FLEET_SLOTS];
    int n = fleet_present(d, present, err);
    if (n < 0)
        return err->code;
    /* The plan: the sums' digits, then each field's deltas for its Rice parameter. */
    static _Thread_local val v[GP_FLEET_SLOTS][3];
    static _Thread_local uint64_t zu[GP_FLEET_SLOTS], zb[GP_FLEET_SLOTS * GP_FLEET_BINS];
    for (int j = 0; j < n; j++) {
        v[j][0] = val_of(d->b[present[j]].util_sum);
        v[j][1].fixed = v[j][2].fixed = false;
    }
    int digits = rescale(v, n), nu, nb;
    fleet_deltas(d, present, n, v, zu, &nu, zb, &nb);
    long unused;
    coder c;
    memset(&c, 0, offsetof(coder, zz));
    c.scale = SCALES[digits];
    c.k[0] = nu ? best_k(zu, nu, &unused) : 0;
    int kb = nb ? best_k(zb, nb, &unused) : 0;
    size_t at = 0;
    out[at++] = GP_FLEET_VERSION;
    bool full = n == GP_FLEET_SLOTS;
    out[at++] = (unsigned char)((full ? 1 : 0) | digits << 1);
    if (!full) {
        memset(out + at, 0, GP_FLEET_SLOTS / 8);
        for (int j = 0; j < n; j++)
            out[at + (size_t)present[j] / 8] |= (unsigned char)(1u << (present[j] % 8));
        at += GP_FLEET_SLOTS / 8;
    }
    bitw w = {.p = out, .at = at};
    c.w = &w;
    put_bits(&w, (uint64_t)c.k[0], 6);
    put_bits(&w, (uint64_t)kb, 6);
    fleet_put_buckets(&c, d, present, n, v, kb);
    if (w.n)
        out[w.at++] = (unsigned char)w.acc;
    *len = w.at;
    put_sum(out, len);
    return GP_OK;
}

static gp_status decode_fleet_v2(const unsigned char *buf, size_t len, const char *origin,
                                 gp_fleet_day *out, gp_err *err) {
    cursor c = {buf + 1, buf, buf + len};
    if (c.p == c.end || *c.p & ~7u)
        return bad_fleet(out, &c, origin, "bad flags", err);
    unsigned flags = *c.p++;
    const unsigned char *map = NULL;
    if (!(flags & 1)) {
        if ((size_t)(c.end - c.p) < GP_FLEET_SLOTS / 8)
            return bad_fleet(out, &c, origin, "truncated bitmap", err);
        map = c.p;
        c.p += GP_FLEET_SLOTS / 8;
    }
    coder k;
    memset(&k, 0, offsetof(coder, zz));
    k.scale = SCALES[flags >> 1];
    bitr in = {c.p, c.end, 0, 0};
#define BAD(what) (c.p = in.p, bad_fleet(out, &c, origin, what, err))
    uint64_t ku, kb;
    if (get_bits(&in, 6, &ku) || ku > RICE_K_MAX || get_bits(&in, 6, &kb) || kb > RICE_K_MAX)
        return BAD("bad Rice parameter");
    k.k[0] = (int)ku;
    const gp_fleet_bucket *last = NULL;
    static const gp_fleet_bucket none;
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        gp_fleet_bucket *b = &out->b[i];
        b->gpus = 0; /* an absent bucket: the rest is not read */
        if (map && !(map[i / 8] >> (i % 8) & 1))
            continue;
        uint64_t repeat, same, zn, zz;
        if (get_bits(&in, 1, &repeat))
            return BAD("truncated");
        if (repeat) {
            if (!last)
                return BAD("a repeat of nothing");
            *b = *last;
            last = b;
            continue;
        }
        if (get_bits(&in, 1, &same) || (!same && get_gamma(&in, &zn)))
            return BAD("bad count of GPUs");
        if (!same)
            k.n += unzigzag(zn - 1);
        if (k.n < 1 || k.n > GP_CHUNK_N_MAX)
            return BAD("bad count of GPUs");
        if (get_value2(&in, &b->util_sum, 0, &k))
            return BAD("bad value");
        const gp_fleet_bucket *p = last ? last : &none;
        for (int j = 0; j < GP_FLEET_BINS; j++) {
            if (get_rice(&in, (int)kb, &zz))
                return BAD("bad bin count");
            int64_t count = (int64_t)p->bins[j] + unzigzag(zz);
            if (count < 0 || count > GP_CHUNK_N_MAX)
                return BAD("bad bin count");
            b->bins[j] = (unsigned)count;
        }
        b->gpus = k.n;
        last = b;
    }
    if (in.n + 8 * (in.end - in.p) >= 8)
        return BAD("trailing bytes");
    if (in.acc)
        return BAD("bits set past the last bucket");
#undef BAD
    return GP_OK;
}

gp_status gp_fleet_decode(const unsigned char *buf, size_t len, const char *origin,
                          gp_fleet_day *out, gp_err *err) {
    cursor c = {buf, buf, buf + len};
    if (len > 0 && buf[0] == GP_FLEET_VERSION) { /* version 2's layout and the checksum */
        if (check_sum(buf, len, origin, "fleet chunk", err)) {
            memset(out, 0, sizeof *out);
            return err->code;
        }
        return decode_fleet_v2(buf, len - SUM_BYTES, origin, out, err);
    }
    if (len > 0 && buf[0] == 2)
        return decode_fleet_v2(buf, len, origin, out, err);
    if (len > 0 && buf[0] == 1)
        return decode_fleet_v1(buf, len, origin, out, err);
    return bad_fleet(out, &c, origin, len ? "unknown version" : "empty", err);
}
