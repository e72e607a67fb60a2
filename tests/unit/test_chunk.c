/* Rollup chunk encoding (chunk.h): exact round trips, the documented bytes, and refusals; the
 * same for the hour chunks of util_hour_day and the fleet chunks of fleet_5m_day. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gpuplan/chunk.h"
#include "testutil.h"

/* ---- the checksum every chunk now ends in: zlib's CRC-32 of the bytes before it ---- */

static uint32_t trailer_of(const unsigned char *buf, size_t len) {
    return (uint32_t)buf[len - 4] | (uint32_t)buf[len - 3] << 8 | (uint32_t)buf[len - 2] << 16 |
           (uint32_t)buf[len - 1] << 24;
}

/* Write the checksum of buf[0..len - 4) into its last 4 bytes: a damaged body that passes the
 * checksum, for the decoder's own refusals. */
static void reseal(unsigned char *buf, size_t len) {
    uint32_t s = (uint32_t)crc32(0L, buf, (uInt)(len - 4));
    for (int i = 0; i < 4; i++)
        buf[len - 4 + (size_t)i] = (unsigned char)(s >> (8 * i));
}

/* buf[0..len) is `version`, then want's bytes after its version byte (the layout of the
 * version before, as documented), then the checksum of all that. */
static void assert_summed(const unsigned char *buf, size_t len, int version,
                          const unsigned char *want, size_t want_len) {
    assert_int_equal(len, want_len + 4);
    assert_int_equal(buf[0], version);
    assert_memory_equal(buf + 1, want + 1, want_len - 1);
    assert_int_equal(trailer_of(buf, len), (uint32_t)crc32(0L, buf, (uInt)(len - 4)));
}

static int same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_chunk(const gp_chunk *a, const gp_chunk *b) {
    assert_int_equal(a->slots, b->slots);
    for (int i = 0; i < a->slots; i++) {
        assert_int_equal(a->b[i].n, b->b[i].n);
        if (a->b[i].n == 0)
            continue;
        if (!same_bits(a->b[i].sum, b->b[i].sum) || !same_bits(a->b[i].min, b->b[i].min) ||
            !same_bits(a->b[i].max, b->b[i].max))
            fail_msg("bucket %d: %.17g %.17g %.17g != %.17g %.17g %.17g", i, a->b[i].sum,
                     a->b[i].min, a->b[i].max, b->b[i].sum, b->b[i].min, b->b[i].max);
    }
}

static size_t round_trip(const gp_chunk *c) {
    unsigned char buf[GP_CHUNK_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_chunk_encode(c, buf, &len, &err), GP_OK);
    assert_true(len > 0 && len <= GP_CHUNK_MAX_BYTES);
    gp_chunk back;
    if (gp_chunk_decode(buf, len, "t", &back, &err) != GP_OK)
        fail_msg("%s: %s", err.where, err.msg);
    assert_same_chunk(c, &back);
    return len;
}

static double random_double(unsigned *seed) {
    uint64_t u = 0;
    for (int i = 0; i < 4; i++)
        u = u << 16 | (uint64_t)(rand_r(seed) & 0xffff);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Any bit pattern comes back as it went in: NaNs, infinities, -0, subnormals. */
static void test_exact_bits(void **state) {
    (void)state;
    unsigned seed = 17;
    static const double special[] = {
        0.0,   -0.0,    INFINITY,         -INFINITY,        NAN, 4.9e-324, 0.1, 0.29,
        1e300, -1e-300, 90071992547409.9, 90071992547409.92};
    for (int round = 0; round < 200; round++) {
        gp_chunk c;
        gp_chunk_init(&c, round % 3 ? GP_CHUNK_SLOTS_MAX : 24);
        for (int i = 0; i < c.slots; i++) {
            int kind = rand_r(&seed) % 6;
            if (kind == 0)
                continue;
            gp_chunk_bucket *b = &c.b[i];
            b->n = kind == 1 ? 1 : 1 + rand_r(&seed) % 1000;
            if (round == 0 && i < 12) {
                b->sum = b->min = b->max = special[i];
            } else if (kind < 4) {
                b->sum = (rand_r(&seed) % 100001) / 100.0;
                b->min = kind == 2 ? b->sum : (rand_r(&seed) % 10001) / 100.0;
                b->max = kind == 2 ? b->sum : b->min + (rand_r(&seed) % 1000) / 100.0;
            } else {
                b->sum = random_double(&seed);
                b->min = kind == 4 ? b->sum : random_double(&seed);
                b->max = random_double(&seed);
            }
        }
        round_trip(&c);
    }
}

/* A day of one-sample 5-minute buckets read to two decimals (utilization, watts) stays small:
 * the point of the encoding (docs/telemetry.md quotes these sizes). */
static void test_sizes(void **state) {
    (void)state;
    gp_chunk c;
    gp_chunk_init(&c, GP_CHUNK_SLOTS_MAX);
    unsigned seed = 5;
    long long centi_w = 30000;
    for (int i = 0; i < c.slots; i++) {
        centi_w += rand_r(&seed) % 2001 - 1000; /* a walk of up to 10 W a bucket */
        double w = centi_w / 100.0;             /* as read from text: 301.57 */
        c.b[i] = (gp_chunk_bucket){1, w, w, w};
    }
    size_t len = round_trip(&c);
    assert_true(len <= 6 + 288 * 3); /* head, one group, up to 3 bytes of delta a bucket */
    /* Collected buckets: 20 samples each, whole-number utilization jumping at random. */
    for (int i = 0; i < c.slots; i++) {
        double lo = rand_r(&seed) % 50, hi = lo + rand_r(&seed) % 50;
        c.b[i] = (gp_chunk_bucket){20, lo * 10 + hi * 10, lo, hi};
    }
    len = round_trip(&c);
    assert_true(len <= 6 + 288 * 6); /* whole numbers: no factor of 1000 in the deltas */
    /* A constant (total memory, the power limit): one bucket and one repeat group. */
    for (int i = 0; i < c.slots; i++)
        c.b[i] = (gp_chunk_bucket){20, 20 * 81559.0, 81559.0, 81559.0};
    assert_int_equal(round_trip(&c), 17 + 4); /* and the checksum */
    /* A counter in joules to three decimals, read every 15 s at a steady 300 W: coded on the
     * line through the last two buckets, a few bytes a bucket instead of eight a value. */
    for (int i = 0; i < c.slots; i++) {
        double first = 1e9 + i * 90000.0 + 0.125;
        c.b[i] = (gp_chunk_bucket){20, 20 * first + 190 * 4500.0, first, first + 19 * 4500.0};
    }
    len = round_trip(&c);
    assert_true(len <= 6 + 288 * 1); /* steady steps: about a bit or two a value */
    /* Sums of readings to three decimals added in double arithmetic, a unit in the last place
     * off k / 1000 at times, keep their fixed-point coding (no 8-byte XOR). */
    long long mw = 300000;
    for (int i = 0; i < c.slots; i++) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < 20; k++) {
            mw += rand_r(&seed) % 2001 - 1000;
            double w = mw / 1000.0;
            sum += w;
            lo = fmin(lo, w);
            hi = fmax(hi, w);
        }
        c.b[i] = (gp_chunk_bucket){20, sum, lo, hi};
    }
    len = round_trip(&c);
    assert_true(len <= 6 + 288 * 10);
    /* Empty days cost the header (version, varint 288, flags), the bitmap, the Rice
     * parameters (18 bits) and the checksum. */
    gp_chunk_init(&c, GP_CHUNK_SLOTS_MAX);
    assert_int_equal(round_trip(&c), 4 + 36 + 3 + 4);
}

/* The worst a chunk can be stays within GP_CHUNK_MAX_BYTES: every bucket its own group with a
 * new count, and values far apart, a unit off their fixed point or random bits. */
static void test_longest(void **state) {
    (void)state;
    gp_chunk c;
    gp_chunk_init(&c, GP_CHUNK_SLOTS_MAX);
    unsigned seed = 11;
    for (int i = 0; i < c.slots; i++) {
        double far = (i % 2 ? 1 : -1) * 9007199254740.991; /* k = +-(2^53 - 1) */
        double v[3];
        for (int j = 0; j < 3; j++) {
            v[j] = (i + j) % 3 ? nextafter(far, 0) : random_double(&seed);
            far = -far;
        }
        c.b[i] = (gp_chunk_bucket){i % 2 ? 1 : GP_CHUNK_N_MAX, v[0], v[1], v[2]};
    }
    size_t len = round_trip(&c);
    assert_true(len > 288 * 24); /* it is long */
}

/* The bytes docs/telemetry.md walks through: 9 slots, buckets 0, 1, 2, 3 and 8. */
static void test_documented_bytes(void **state) {
    (void)state;
    gp_chunk c;
    gp_chunk_init(&c, 9);
    c.b[0] = (gp_chunk_bucket){20, 1234.5, 60.5, 63.5};
    c.b[1] = c.b[0];
    c.b[2] = (gp_chunk_bucket){20, nextafter(1240.5, INFINITY), 61.0, 63.5};
    c.b[3] = (gp_chunk_bucket){1, 1.0 / 3, 1.0 / 3, 1.0 / 3};
    c.b[8] = (gp_chunk_bucket){1, 42.0, 42.0, 42.0};
    /* After the five header bytes, bits from the least significant of each byte on (written
     * here in that order): Rice parameters 14, 9, 9 (011100 100100 100100); group op 6 (shape
     * 2, new count: 011), count 1 (gamma 1), count +20 (gamma of zigzag 40 + 1: 00000 110010);
     * bucket 0: sum exact (0), Rice 14 of zigzag 24690 (10 01001110000001: k 12345), min (0,
     * 110 010111010: k 605), max (0, 110 011011110: k 635); group op 3 (110), count 1: the
     * repeat; group op 2 (010), count 1; bucket 2: sum a unit up (10) of k +60 (0
     * 00011110000000), min k +5 (0 0 010100000), max +0 (0 0 000000000); group op 4 (001),
     * count 2 (010), count -19 (00000 101100); bucket 3, 1/3: XOR (111), 8 bytes (0001), its
     * bits XOR the last sum's; bucket 8, 42: k 420, -11985 (0 10 10000101101110); four
     * zero bits to the byte. */
    static const unsigned char want[] = {
        2,    9,    0x10, 0x0f, 0x01, /* version, slots, flags: one decimal digit; bitmap */
        0x4e, 0x92, 0x38, 0x98, 0x24, 0x07, 0x9a, 0x2e, 0xb3, 0xb7, 0x1a, 0x3c, 0x00, 0x05, 0x00,
        0xa0, 0x40, 0x73, 0xa4, 0xaa, 0xaa, 0xaa, 0xaa, 0xba, 0x31, 0xfa, 0x53, 0x68, 0x07,
    };
    unsigned char buf[GP_CHUNK_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_chunk_encode(&c, buf, &len, &err), GP_OK);
    assert_summed(buf, len, GP_CHUNK_VERSION, want, sizeof want);
    round_trip(&c);
    /* Version 2, these bytes without the checksum, as databases made before it hold them. */
    gp_chunk back;
    assert_int_equal(gp_chunk_decode(want, sizeof want, "t", &back, &err), GP_OK);
    assert_same_chunk(&c, &back);
}

static void expect_bad(const unsigned char *buf, size_t len, const char *what) {
    gp_chunk out;
    gp_err err;
    gp_err_clear(&err);
    if (gp_chunk_decode(buf, len, "db:series 7", &out, &err) != GP_E_INPUT)
        fail_msg("accepted: %s", what);
    assert_int_equal(out.slots, 0);
    /* the decoder's fault at its byte, or a checksummed chunk whose checksum fails */
    if (!strstr(err.where, "db:series 7:byte ") &&
        !(!strcmp(err.where, "db:series 7") &&
          (strstr(err.msg, "checksum mismatch") || strstr(err.msg, "truncated"))))
        fail_msg("%s: %s: %s", what, err.where, err.msg);
}

/* Chunks written before version 2 (databases made by earlier releases) still decode: the
 * version 1 bytes docs/telemetry.md walked through. */
static void test_version_1(void **state) {
    (void)state;
    static const unsigned char v1[] = {
        1,    9,    0x03, 0x01, 0x00, 0x90, 0xb0, 0x0a, 0x05, 0x00, 0x90, 0xb0,
        0x0a, 0x0a, 0x11, 0x34, 0x33, 0x33, 0x33, 0x33, 0x73, 0x86, 0x7f, 0x8e,
        0xb0, 0x0a, 0x11, 0x55, 0x55, 0x55, 0x55, 0x55, 0x15, 0x90, 0x7f,
    };
    gp_chunk want, got;
    gp_chunk_init(&want, 9);
    want.b[0] = (gp_chunk_bucket){1, 42.5, 42.5, 42.5};
    want.b[1] = (gp_chunk_bucket){2, 85.0, 42.5, 42.5};
    want.b[8] = (gp_chunk_bucket){3, 0.1 + 0.2, 0.0, 1.0 / 3};
    gp_err err;
    assert_int_equal(gp_chunk_decode(v1, sizeof v1, "t", &got, &err), GP_OK);
    assert_same_chunk(&want, &got);
    round_trip(&got); /* and re-encodes as the version written now */
    static const unsigned char shape3[] = {1, 1, 1, 0x03, 0, 0, 0};
    expect_bad(shape3, sizeof shape3, "version 1, shape 3");
    static const unsigned char odd_tag[] = {1, 1, 1, 0x00, 0x03};
    expect_bad(odd_tag, sizeof odd_tag, "version 1, tag 3");
    static const unsigned char huge[] = {1,    1,    1,    0x00, 0xfe, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_bad(huge, sizeof huge, "version 1, a fixed-point value past 2^53");
}

static void test_refused(void **state) {
    (void)state;
    gp_chunk c;
    gp_chunk_init(&c, 20);
    for (int i = 0; i < 20; i += 2)
        c.b[i] = (gp_chunk_bucket){3, i * 1.5, i * 0.25, i + 1 / 3.0};
    unsigned char buf[GP_CHUNK_MAX_BYTES + 1];
    size_t len;
    gp_err err;
    assert_int_equal(gp_chunk_encode(&c, buf, &len, &err), GP_OK);
    unsigned char cut_buf[GP_CHUNK_MAX_BYTES + 1];
    for (size_t cut = 0; cut < len; cut++) {
        expect_bad(buf, cut, "a truncated chunk");
        if (cut < 5 || cut > len - 4)
            continue;
        memcpy(cut_buf, buf, cut); /* the body cut short, under a checksum that fits it */
        reseal(cut_buf, cut);
        expect_bad(cut_buf, cut, "a truncated body");
    }
    buf[len] = 0;
    expect_bad(buf, len + 1, "trailing bytes");
    memcpy(cut_buf, buf, len - 4);
    cut_buf[len - 4] = 0;
    reseal(cut_buf, len + 1);
    expect_bad(cut_buf, len + 1, "a trailing byte in the body");
    unsigned char v4[GP_CHUNK_MAX_BYTES];
    memcpy(v4, buf, len);
    v4[0] = 4;
    expect_bad(v4, len, "version 4");
    static const unsigned char flags[] = {2, 1, 0x41, 0x00, 0x00, 0x30, 0x00};
    expect_bad(flags, sizeof flags, "an unknown flag");
    static const unsigned char rice[] = {2, 1, 0x01, 0x3f, 0x00, 0x00};
    expect_bad(rice, sizeof rice, "a Rice parameter of 63");
    static const unsigned char op7[] = {2, 1, 0x01, 0x00, 0x00, 0x3c};
    expect_bad(op7, sizeof op7, "group op 7");
    static const unsigned char nothing[] = {2, 1, 0x01, 0x00, 0x00, 0x2c};
    expect_bad(nothing, sizeof nothing, "a repeat of nothing");
    static const unsigned char past[] = {2, 2, 0x00, 0x01, 0x00, 0x00, 0x50, 0x06};
    expect_bad(past, sizeof past, "a group past the last bucket");
    static const unsigned char no_n[] = {2, 1, 0x01, 0x00, 0x00, 0x20, 0x00};
    expect_bad(no_n, sizeof no_n, "a bucket before any count");
    static const unsigned char n0[] = {2, 1, 0x01, 0x00, 0x00, 0x70, 0x00};
    expect_bad(n0, sizeof n0, "a count of 0");
    static const unsigned char xor9[] = {2, 1, 0x01, 0x00, 0x00, 0xb0, 0x9f, 1, 1,
                                         1, 1, 1,    1,    1,    1,    1,    1};
    expect_bad(xor9, sizeof xor9, "9 bytes of XOR");
    static const unsigned char huge[] = {2, 1, 0x01, 0x38, 0x00, 0xb0, 0x01,
                                         0, 0, 0,    0,    0,    0,    0x02};
    expect_bad(huge, sizeof huge, "a fixed-point value past 2^53");
    static const unsigned char pad[] = {2, 1, 0x00, 0x03, 0x04, 0x02, 0x00};
    expect_bad(pad, sizeof pad, "a bit past the last slot");
    static const unsigned char slots0[] = {2, 0};
    expect_bad(slots0, sizeof slots0, "no slots");
    static const unsigned char slots289[] = {2, 0xa1, 0x02};
    expect_bad(slots289, sizeof slots289, "289 slots");
    static const unsigned char stray[] = {2,    9,    0x10, 0x0f, 0x01, 0x4e, 0x92, 0x38, 0x98,
                                          0x24, 0x07, 0x9a, 0x2e, 0xb3, 0xb7, 0x1a, 0x3c, 0x00,
                                          0x05, 0x00, 0xa0, 0x40, 0x73, 0xa4, 0xaa, 0xaa, 0xaa,
                                          0xaa, 0xba, 0x31, 0xfa, 0x53, 0x68, 0x87};
    expect_bad(stray, sizeof stray, "a bit set past the last value");
    static const unsigned char long_varint[] = {2, 0x81, 0x00, 0x01};
    expect_bad(long_varint, sizeof long_varint, "a varint not in its shortest form");
    /* And what the encoder refuses. */
    c.b[3].n = -1;
    assert_int_equal(gp_chunk_encode(&c, buf, &len, &err), GP_E_INPUT);
    assert_int_equal(len, 0);
    gp_chunk_init(&c, 0);
    assert_int_equal(gp_chunk_encode(&c, buf, &len, &err), GP_E_INPUT);
}

/* ---- hour chunks ---- */

static void assert_same_hours(const gp_hours *a, const gp_hours *b) {
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        const gp_hour *x = &a->h[i], *y = &b->h[i];
        assert_int_equal(x->buckets, y->buckets);
        if (x->buckets == 0)
            continue;
        assert_int_equal(x->power_n, y->power_n);
        assert_int_equal(x->busy_power_n, y->busy_power_n);
        if (!same_bits(x->util_sum, y->util_sum) || !same_bits(x->power_sum, y->power_sum) ||
            !same_bits(x->busy_power_sum, y->busy_power_sum))
            fail_msg("hour %d: %.17g %.17g %.17g != %.17g %.17g %.17g", i, x->util_sum,
                     x->power_sum, x->busy_power_sum, y->util_sum, y->power_sum, y->busy_power_sum);
        assert_memory_equal(x->hist, y->hist, GP_HOURS_BINS);
    }
}

/* gp_hours_add over buf[0..len) against adding d's hours (its decoding) one by one, in hour
 * order, to totals that already hold something: the same figures to the bit. */
static void assert_add_matches(const unsigned char *buf, size_t len, const gp_hours *d,
                               unsigned long mask) {
    gp_hours_total want, got;
    memset(&want, 0, sizeof want);
    want.buckets = 7;
    want.util_sum = 1.0 / 3;
    want.power_sum = -0.0;
    want.hist[4] = 2;
    got = want;
    double want_means[GP_HOURS_SLOTS], means[GP_HOURS_SLOTS];
    int n_want = 0, n = -1;
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        const gp_hour *h = &d->h[i];
        if (!(mask >> i & 1) || h->buckets == 0)
            continue;
        want.buckets += h->buckets;
        want.util_sum += h->util_sum;
        want.power_n += h->power_n;
        want.power_sum += h->power_sum;
        want.busy_power_n += h->busy_power_n;
        want.busy_power_sum += h->busy_power_sum;
        for (int k = 0; k < GP_HOURS_BINS; k++)
            want.hist[k] += h->hist[k];
        if (h->power_n > 0)
            want_means[n_want++] = h->power_sum / (double)h->power_n;
    }
    gp_err err;
    if (gp_hours_add(buf, len, "t", mask, &got, means, &n, &err) != GP_OK)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(got.buckets, want.buckets);
    assert_int_equal(got.power_n, want.power_n);
    assert_int_equal(got.busy_power_n, want.busy_power_n);
    assert_true(same_bits(got.util_sum, want.util_sum));
    assert_true(same_bits(got.power_sum, want.power_sum));
    assert_true(same_bits(got.busy_power_sum, want.busy_power_sum));
    assert_memory_equal(got.hist, want.hist, sizeof want.hist);
    assert_int_equal(n, n_want);
    for (int i = 0; i < n; i++)
        assert_true(same_bits(means[i], want_means[i]));
    /* Without the means. */
    got = want;
    assert_int_equal(gp_hours_add(buf, len, "t", mask, &got, NULL, NULL, &err), GP_OK);
}

static size_t hours_round_trip(const gp_hours *d) {
    unsigned char buf[GP_HOURS_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_hours_encode(d, buf, &len, &err), GP_OK);
    assert_true(len > 0 && len <= GP_HOURS_MAX_BYTES);
    gp_hours back;
    if (gp_hours_decode(buf, len, "t", &back, &err) != GP_OK)
        fail_msg("%s: %s", err.where, err.msg);
    assert_same_hours(d, &back);
    static const unsigned long masks[] = {0xffffff, 0, 0x1fe00, 0x555555, 0x800001};
    for (size_t m = 0; m < sizeof masks / sizeof *masks; m++)
        assert_add_matches(buf, len, &back, masks[m]);
    return len;
}

/* Full, empty and partial days (a GPU that came at 09:00 and went at 17:00, a gap), any double
 * (NaN, -0, thirds), zero sums left out and negative zero kept, the largest counts. */
static void test_hours_round_trip(void **state) {
    (void)state;
    gp_hours d;
    memset(&d, 0, sizeof d);
    assert_int_equal(hours_round_trip(&d), 2 + 4); /* version, an empty map, the checksum */
    unsigned seed = 23;
    for (int round = 0; round < 300; round++) {
        memset(&d, 0, sizeof d);
        int first = round % 3 == 1 ? 9 : 0, last = round % 3 == 1 ? 17 : 24;
        for (int i = first; i < last; i++) {
            if (round % 5 == 2 && i % 7 == 3)
                continue; /* hours missing inside the day */
            gp_hour *h = &d.h[i];
            h->buckets = 1 + rand_r(&seed) % 12;
            h->power_n = round % 4 == 0 ? 0 : rand_r(&seed) % (h->buckets + 1);
            h->busy_power_n = h->power_n ? rand_r(&seed) % (h->power_n + 1) : 0;
            int kind = rand_r(&seed) % 4;
            h->util_sum = kind == 0   ? (double)(rand_r(&seed) % 1201)
                          : kind == 1 ? (rand_r(&seed) % 3600) / 3.0
                          : kind == 2 ? random_double(&seed)
                                      : 12.345 * h->buckets;
            h->power_sum = h->power_n ? 60 + (rand_r(&seed) % 700000) / 1000.0 : 0.0;
            h->busy_power_sum = h->busy_power_n ? random_double(&seed) : 0.0;
            long long left = h->buckets;
            while (left > 0) {
                int k = rand_r(&seed) % GP_HOURS_BINS;
                h->hist[k]++;
                left--;
            }
        }
        hours_round_trip(&d);
    }
    memset(&d, 0, sizeof d);
    static const double odd[] = {NAN, -0.0, INFINITY, 4.9e-324, -1e300, 0.0};
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        gp_hour *h = &d.h[i];
        h->buckets = i == 23 ? GP_CHUNK_N_MAX : i + 1;
        h->power_n = i == 22 ? GP_CHUNK_N_MAX : 1;
        h->busy_power_n = 0;
        h->util_sum = odd[i % 6];
        h->power_sum = odd[(i + 1) % 6];
        h->busy_power_sum = odd[(i + 2) % 6];
        for (int k = 0; k < GP_HOURS_BINS; k++)
            h->hist[k] = (unsigned char)(i == 0 ? 255 : k % 3);
    }
    assert_true(hours_round_trip(&d) <= GP_HOURS_MAX_BYTES);
}

static void test_hours_bytes(void **state) {
    (void)state;
    /* 02:00 only: 12 buckets, 4 with power (2 busy), util 600, power 1000 W and 500 W, all 12
     * buckets in bin 10. */
    gp_hours d;
    memset(&d, 0, sizeof d);
    d.h[2] = (gp_hour){12, 4, 2, 600, 1000, 500, {0}};
    d.h[2].hist[10] = 12;
    static const unsigned char want[] = {
        1,    0x04,             /* version, hours: bit 2 */
        0x2f,                   /* (12 - 1) << 2 | power and busy sums follow */
        4,    2,                /* power_n, busy_power_n */
        0x80, 0xbe, 0x92, 0x01, /* 600 as k = 600000: zigzag 1200000, << 1 */
        0x80, 0x92, 0xf4, 0x01, /* 1000: k = 1000000 */
        0x80, 0x89, 0x7a,       /* 500: k = 500000 */
        0x80, 0x08,             /* bins: bit 10 */
        12};
    unsigned char buf[GP_HOURS_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_hours_encode(&d, buf, &len, &err), GP_OK);
    assert_summed(buf, len, GP_HOURS_VERSION, want, sizeof want);
    hours_round_trip(&d);
    gp_hours back; /* version 1: these bytes without the checksum */
    assert_int_equal(gp_hours_decode(want, sizeof want, "t", &back, &err), GP_OK);
    assert_same_hours(&d, &back);
}

static void expect_bad_hours(const unsigned char *buf, size_t len, const char *what) {
    gp_hours out;
    gp_err err;
    gp_err_clear(&err);
    if (gp_hours_decode(buf, len, "util_hour_day 7/0", &out, &err) != GP_E_INPUT)
        fail_msg("accepted: %s", what);
    assert_int_equal(out.h[2].buckets, 0);
    if (!strstr(err.where, "util_hour_day 7/0:byte ") &&
        !(!strcmp(err.where, "util_hour_day 7/0") &&
          (strstr(err.msg, "checksum mismatch") || strstr(err.msg, "truncated"))))
        fail_msg("%s: %s: %s", what, err.where, err.msg);
    /* gp_hours_add refuses it too, with the same message. */
    gp_err add_err;
    gp_hours_total t;
    memset(&t, 0, sizeof t);
    double means[GP_HOURS_SLOTS];
    int n;
    if (gp_hours_add(buf, len, "util_hour_day 7/0", 0xffffff, &t, means, &n, &add_err) !=
        GP_E_INPUT)
        fail_msg("gp_hours_add accepted: %s", what);
    assert_string_equal(add_err.where, err.where);
    assert_string_equal(add_err.msg, err.msg);
}

static void test_hours_refused(void **state) {
    (void)state;
    gp_hours d;
    memset(&d, 0, sizeof d);
    for (int i = 2; i < 20; i += 3) {
        d.h[i] = (gp_hour){3, 2, 1, i / 3.0, 100 + i, 50, {0}};
        d.h[i].hist[i % GP_HOURS_BINS] = 3;
    }
    unsigned char buf[GP_HOURS_MAX_BYTES + 1];
    size_t len;
    gp_err err;
    assert_int_equal(gp_hours_encode(&d, buf, &len, &err), GP_OK);
    for (size_t cut = 0; cut < len; cut++)
        expect_bad_hours(buf, cut, "a truncated chunk");
    buf[len] = 0;
    expect_bad_hours(buf, len + 1, "trailing bytes");
    unsigned char body[GP_HOURS_MAX_BYTES + 1];
    for (size_t cut = 5; cut < len - 4; cut++) {
        memcpy(body, buf, cut);
        reseal(body, cut);
        expect_bad_hours(body, cut, "a truncated body");
    }
    memcpy(body, buf, len - 4);
    body[len - 4] = 0;
    reseal(body, len + 1);
    expect_bad_hours(body, len + 1, "a trailing byte in the body");
    buf[0] = 3;
    expect_bad_hours(buf, len, "version 3");
    static const unsigned char hour24[] = {1, 0x80, 0x80, 0x80, 0x08};
    expect_bad_hours(hour24, sizeof hour24, "a 25th hour");
    static const unsigned char zero_sum[] = {1, 0x01, 0x01, 0, 0, 0x00, 0x00, 0x00};
    expect_bad_hours(zero_sum, sizeof zero_sum, "a power sum of +0 written out");
    static const unsigned char bin21[] = {1, 0x01, 0x00, 0, 0, 0x00, 0x80, 0x80, 0x80, 0x01, 1};
    expect_bad_hours(bin21, sizeof bin21, "a 22nd bin");
    static const unsigned char count0[] = {1, 0x01, 0x00, 0, 0, 0x00, 0x01, 0};
    expect_bad_hours(count0, sizeof count0, "a bin of 0 written out");
    static const unsigned char ok[] = {1, 0x01, 0x00, 0, 0, 0x00, 0x01, 1};
    gp_hours out;
    assert_int_equal(gp_hours_decode(ok, sizeof ok, "t", &out, &err), GP_OK);
    assert_int_equal(out.h[0].buckets, 1);
    assert_int_equal(out.h[0].hist[0], 1);
    /* And what the encoder refuses. */
    d.h[5].buckets = 1;
    d.h[5].power_n = -1;
    assert_int_equal(gp_hours_encode(&d, buf, &len, &err), GP_E_INPUT);
    assert_int_equal(len, 0);
    d.h[5].power_n = 0;
    d.h[5].buckets = GP_CHUNK_N_MAX + 1;
    assert_int_equal(gp_hours_encode(&d, buf, &len, &err), GP_E_INPUT);
}

/* ---- fleet chunks (fleet_5m_day) ---- */

static size_t fleet_round_trip(const gp_fleet_day *d) {
    static unsigned char buf[GP_FLEET_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_fleet_encode(d, buf, &len, &err), GP_OK);
    assert_true(len > 0 && len <= GP_FLEET_MAX_BYTES);
    static gp_fleet_day back;
    memset(&back, 0xa5, sizeof back); /* every field decode leaves alone stays visible */
    if (gp_fleet_decode(buf, len, "t", &back, &err) != GP_OK)
        fail_msg("%s: %s", err.where, err.msg);
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        const gp_fleet_bucket *a = &d->b[i], *b = &back.b[i];
        assert_int_equal(a->gpus, b->gpus);
        if (a->gpus == 0)
            continue;
        if (!same_bits(a->util_sum, b->util_sum))
            fail_msg("bucket %d: %.17g != %.17g", i, a->util_sum, b->util_sum);
        assert_memory_equal(a->bins, b->bins, sizeof a->bins);
    }
    return len;
}

static void test_fleet_round_trip(void **state) {
    (void)state;
    static gp_fleet_day d;
    memset(&d, 0, sizeof d);
    /* version, flags, bitmap and two Rice parameters */
    assert_int_equal(fleet_round_trip(&d), 2 + GP_FLEET_SLOTS / 8 + 2 + 4); /* + checksum */
    unsigned seed = 31;
    for (int round = 0; round < 200; round++) {
        memset(&d, 0, sizeof d);
        /* a whole day, a day that starts late (a node added), a day with holes */
        int first = round % 3 == 1 ? 100 : 0;
        for (int i = first; i < GP_FLEET_SLOTS; i++) {
            if (round % 3 == 2 && i % 11 == 4)
                continue;
            gp_fleet_bucket *b = &d.b[i];
            b->gpus = round % 4 == 0 ? 1000 + rand_r(&seed) % 9000 : 1 + rand_r(&seed) % 8;
            double sum = 0;
            for (long long g = 0; g < b->gpus; g++) {
                int kind = rand_r(&seed) % 3;
                double m = kind == 0   ? (double)(rand_r(&seed) % 101)
                           : kind == 1 ? (rand_r(&seed) % 300) / 3.0
                                       : (rand_r(&seed) % 10000) / 100.0;
                sum += m;
                int k = (int)(m / 5);
                b->bins[k > 20 ? 20 : k]++;
            }
            b->util_sum = round % 7 == 3 ? random_double(&seed) : sum;
            if (round % 5 == 1 && i % 3 == 0)
                b->bins[rand_r(&seed) % GP_FLEET_BINS]++; /* bins that do not add up to gpus */
        }
        fleet_round_trip(&d);
    }
    /* Edges: the largest counts, every bin set, odd doubles, a bucket with no bins at all. */
    memset(&d, 0, sizeof d);
    static const double odd[] = {NAN, -0.0, INFINITY, 4.9e-324, -1e300, 0.0, 0.1};
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        gp_fleet_bucket *b = &d.b[i];
        b->gpus = i % 2 ? GP_CHUNK_N_MAX : 1;
        b->util_sum = odd[i % 7];
        for (int k = 0; k < GP_FLEET_BINS; k++)
            b->bins[k] = i % 3 == 0 ? 0 : (unsigned)GP_CHUNK_N_MAX - (unsigned)k;
    }
    d.b[7].bins[20] = 1; /* gpus 1, one GPU: the count implied */
    memset(d.b[7].bins, 0, 20 * sizeof d.b[7].bins[0]);
    d.b[7].gpus = 1;
    assert_true(fleet_round_trip(&d) <= GP_FLEET_MAX_BYTES);
}

static void test_fleet_bytes(void **state) {
    (void)state;
    /* 00:05: 8 GPUs, utilization summed 400, 5 in bin 10 and 3 in bin 19; 00:10 the same;
     * 00:15: summed 405.5, a GPU from bin 10 to bin 11. */
    static gp_fleet_day d;
    memset(&d, 0, sizeof d);
    d.b[1].gpus = 8;
    d.b[1].util_sum = 400;
    d.b[1].bins[10] = 5;
    d.b[1].bins[19] = 3;
    d.b[2] = d.b[1];
    d.b[3] = d.b[1];
    d.b[3].util_sum = 405.5;
    d.b[3].bins[10] = 4;
    d.b[3].bins[11] = 1;
    /* Bits from the least significant of each byte on: Rice parameters 11 (110100) and 0
     * (000000); 00:05: not a repeat (0), a new GPU count (0), gamma of zigzag(8) + 1 = 17
     * (0000 1 1000); the sum exact (0), k 4000 (one digit): zigzag 8000, quotient 3 (1110) and
     * 11 bits (00000010111); bins 0 to 9 unchanged (0 each), bin 10 +5 (zigzag 10: ten ones and
     * a zero), bins 11 to 18 (0 each), bin 19 +3 (six ones, 0), bin 20 (0). 00:10: a repeat (1).
     * 00:15: 0, the same GPUs (1), exact (0), k +55 (0 01110110000), bins 0 to 9 (0 each), bin
     * 10 -1 (10), bin 11 +1 (110), bins 12 to 20 (0 each); padding. */
    unsigned char want[2 + 36 + 15] = {2, 0x02, 0x0e}; /* version, flags: a digit, bitmap */
    static const unsigned char bits[] = {0x0b, 0x00, 0x0c, 0x07, 0x74, 0x00, 0xfe, 0x07,
                                         0xf0, 0x53, 0xdc, 0x00, 0x40, 0x03, 0x00};
    memcpy(want + 38, bits, sizeof bits);
    unsigned char buf[GP_FLEET_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_fleet_encode(&d, buf, &len, &err), GP_OK);
    assert_summed(buf, len, GP_FLEET_VERSION, want, sizeof want);
    fleet_round_trip(&d);
    static gp_fleet_day v2; /* version 2: these bytes without the checksum */
    assert_int_equal(gp_fleet_decode(want, sizeof want, "t", &v2, &err), GP_OK);
    assert_int_equal(v2.b[3].gpus, 8);
    assert_true(v2.b[3].util_sum == 405.5);
    assert_int_equal(v2.b[3].bins[11], 1);
    /* Version 1 (fleet chunks written before version 2) still decodes: 00:05 alone. */
    unsigned char v1[1 + 36 + 8] = {1, 0x02};
    static const unsigned char bucket[] = {
        0x0f,             /* (8 - 1) << 1 | implied */
        0x80, 0xd4, 0x61, /* 400 as k = 400000: zigzag 800000, << 1 */
        0x80, 0x88, 0x20, /* bins: 10 and 19 */
        5};               /* bin 10; bin 19 is 8 - 5 */
    memcpy(v1 + 37, bucket, sizeof bucket);
    static gp_fleet_day out;
    assert_int_equal(gp_fleet_decode(v1, sizeof v1, "t", &out, &err), GP_OK);
    assert_int_equal(out.b[1].gpus, 8);
    assert_true(out.b[1].util_sum == 400);
    assert_int_equal(out.b[1].bins[10], 5);
    assert_int_equal(out.b[1].bins[19], 3);
    assert_int_equal(out.b[2].gpus, 0);
}

static void expect_bad_fleet(const unsigned char *buf, size_t len, const char *what,
                             const char *at) {
    static gp_fleet_day out;
    gp_err err;
    gp_err_clear(&err);
    memset(&out, 0xa5, sizeof out);
    if (gp_fleet_decode(buf, len, "fleet_5m_day 3/H100/0", &out, &err) != GP_E_INPUT)
        fail_msg("accepted: %s", what);
    for (int i = 0; i < GP_FLEET_SLOTS; i++)
        assert_int_equal(out.b[i].gpus, 0);
    if (!strstr(err.where, "fleet_5m_day 3/H100/0:byte ")) {
        if (at || strcmp(err.where, "fleet_5m_day 3/H100/0") ||
            !(strstr(err.msg, "checksum mismatch") || strstr(err.msg, "truncated")))
            fail_msg("%s: %s: %s", what, err.where, err.msg);
        return;
    }
    if (at && strcmp(strstr(err.where, ":byte ") + 6, at) != 0)
        fail_msg("%s: at %s, not byte %s", what, err.where, at);
}

static void test_fleet_refused(void **state) {
    (void)state;
    static gp_fleet_day d;
    memset(&d, 0, sizeof d);
    for (int i = 2; i < 200; i += 9) {
        d.b[i].gpus = 4 + i % 3;
        d.b[i].util_sum = i / 3.0;
        d.b[i].bins[i % GP_FLEET_BINS] = 4;
    }
    unsigned char buf[GP_FLEET_MAX_BYTES + 1];
    size_t len;
    gp_err err;
    assert_int_equal(gp_fleet_encode(&d, buf, &len, &err), GP_OK);
    for (size_t cut = 0; cut < len; cut++)
        expect_bad_fleet(buf, cut, "a truncated chunk", NULL);
    buf[len] = 0;
    expect_bad_fleet(buf, len + 1, "trailing bytes", NULL);
    static unsigned char body[GP_FLEET_MAX_BYTES + 1];
    for (size_t cut = 5; cut < len - 4; cut++) {
        memcpy(body, buf, cut);
        reseal(body, cut);
        expect_bad_fleet(body, cut, "a truncated body", NULL);
    }
    buf[0] = 4;
    expect_bad_fleet(buf, len, "version 4", "0");
    expect_bad_fleet(buf, 0, "nothing", "0");
    static const unsigned char flags[] = {2, 0x09, 0, 0};
    expect_bad_fleet(flags, sizeof flags, "an unknown flag", NULL);
    static const unsigned char rice[] = {2, 0x01, 0x3f, 0x00};
    expect_bad_fleet(rice, sizeof rice, "a Rice parameter of 63", NULL);
    static const unsigned char repeat[] = {2, 0x01, 0x00, 0x10};
    expect_bad_fleet(repeat, sizeof repeat, "a repeat of nothing", NULL);
    static const unsigned char no_gpus[] = {2, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00};
    expect_bad_fleet(no_gpus, sizeof no_gpus, "the same GPUs as none", NULL);
    /* 00:00: 1 GPU (gamma 3: 011), sum 0 (0, Rice 0: 0), bin 0 at -1 (zigzag 1: 10) */
    static const unsigned char below[] = {2, 0x01, 0x00, 0x80, 0x09, 0x00, 0x00, 0x00};
    expect_bad_fleet(below, sizeof below, "a bin count below 0", NULL);
    unsigned char one[1 + 36 + 8] = {1, 0x01};
    /* bucket 0: 2 GPUs, util 0 (tag 0), then what follows at byte 39 */
    static const unsigned char bin21[] = {0x02, 0x00, 0x80, 0x80, 0x80, 0x01, 1};
    memcpy(one + 37, bin21, sizeof bin21);
    expect_bad_fleet(one, 37 + sizeof bin21, "a 22nd bin", "39");
    static const unsigned char count0[] = {0x02, 0x00, 0x01, 0};
    memcpy(one + 37, count0, sizeof count0);
    expect_bad_fleet(one, 37 + sizeof count0, "a bin of 0 written out", "40");
    static const unsigned char written[] = {0x02, 0x00, 0x01, 2};
    memcpy(one + 37, written, sizeof written);
    expect_bad_fleet(one, 37 + sizeof written, "a count that follows from the others", "37");
    static const unsigned char no_bins[] = {0x03, 0x00, 0x00};
    memcpy(one + 37, no_bins, sizeof no_bins);
    expect_bad_fleet(one, 37 + sizeof no_bins, "implied with no bins", "39");
    static const unsigned char past[] = {0x03, 0x00, 0x03, 2};
    memcpy(one + 37, past, sizeof past);
    expect_bad_fleet(one, 37 + sizeof past, "bins past the GPU count", "37");
    static const unsigned char ok[] = {0x03, 0x00, 0x03, 1};
    memcpy(one + 37, ok, sizeof ok);
    static gp_fleet_day out;
    assert_int_equal(gp_fleet_decode(one, 37 + sizeof ok, "t", &out, &err), GP_OK);
    assert_int_equal(out.b[0].gpus, 2);
    assert_int_equal(out.b[0].bins[0], 1);
    assert_int_equal(out.b[0].bins[1], 1);
    /* And what the encoder refuses. */
    d.b[5].gpus = -1;
    assert_int_equal(gp_fleet_encode(&d, buf, &len, &err), GP_E_INPUT);
    assert_int_equal(len, 0);
    d.b[5].gpus = GP_CHUNK_N_MAX + 1;
    assert_int_equal(gp_fleet_encode(&d, buf, &len, &err), GP_E_INPUT);
    d.b[5].gpus = 1;
    d.b[5].bins[3] = (unsigned)GP_CHUNK_N_MAX + 1;
    assert_int_equal(gp_fleet_encode(&d, buf, &len, &err), GP_E_INPUT);
}

/* ---- the checksum ---- */

/* Every single-bit flip of a chunk of each kind is refused: past the version byte always as a
 * checksum mismatch naming where the chunk is (24 of 800 corrupted chunks once decoded to
 * other figures). */
static void test_checksum(void **state) {
    (void)state;
    gp_chunk c;
    gp_chunk_init(&c, GP_CHUNK_SLOTS_MAX);
    for (int i = 0; i < c.slots; i++)
        c.b[i] = (gp_chunk_bucket){20, 20 * 41.5 + i, 30.0 + i % 7, 50.25 + i % 11};
    static unsigned char buf[GP_FLEET_MAX_BYTES];
    size_t len;
    gp_err err;
    assert_int_equal(gp_chunk_encode(&c, buf, &len, &err), GP_OK);
    for (size_t at = 0; at < len; at++)
        for (int bit = 0; bit < 8; bit++) {
            buf[at] ^= (unsigned char)(1u << bit);
            gp_chunk out;
            if (gp_chunk_decode(buf, len, "rollup_5m_day, series 7, day 2026-11-20", &out, &err) !=
                GP_E_INPUT)
                fail_msg("byte %zu bit %d flipped: accepted", at, bit);
            if (at > 0) {
                assert_string_equal(err.where, "rollup_5m_day, series 7, day 2026-11-20");
                assert_non_null(strstr(err.msg, "checksum mismatch"));
            }
            buf[at] ^= (unsigned char)(1u << bit);
        }
    gp_hours d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < GP_HOURS_SLOTS; i++) {
        d.h[i] = (gp_hour){12, 12, 6, 12 * 55.5 + i, 12 * 300.0, 6 * 350.0, {0}};
        d.h[i].hist[11] = 12;
    }
    assert_int_equal(gp_hours_encode(&d, buf, &len, &err), GP_OK);
    for (size_t at = 0; at < len; at++)
        for (int bit = 0; bit < 8; bit++) {
            buf[at] ^= (unsigned char)(1u << bit);
            gp_hours out;
            gp_hours_total t;
            memset(&t, 0, sizeof t);
            if (gp_hours_decode(buf, len, "util_hour_day, series 7, day 2026-11-20", &out, &err) !=
                    GP_E_INPUT ||
                gp_hours_add(buf, len, "u", 0xffffff, &t, NULL, NULL, &err) != GP_E_INPUT)
                fail_msg("hours: byte %zu bit %d flipped: accepted", at, bit);
            buf[at] ^= (unsigned char)(1u << bit);
        }
    static gp_fleet_day f;
    memset(&f, 0, sizeof f);
    for (int i = 0; i < GP_FLEET_SLOTS; i++) {
        f.b[i].gpus = 8;
        f.b[i].util_sum = 400 + i % 13;
        f.b[i].bins[i % GP_FLEET_BINS] = 8;
    }
    assert_int_equal(gp_fleet_encode(&f, buf, &len, &err), GP_OK);
    for (size_t at = 0; at < len; at++)
        for (int bit = 0; bit < 8; bit++) {
            buf[at] ^= (unsigned char)(1u << bit);
            static gp_fleet_day out;
            if (gp_fleet_decode(buf, len, "f", &out, &err) != GP_E_INPUT)
                fail_msg("fleet: byte %zu bit %d flipped: accepted", at, bit);
            if (at > 0)
                assert_non_null(strstr(err.msg, "checksum mismatch"));
            buf[at] ^= (unsigned char)(1u << bit);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_bits),       cmocka_unit_test(test_checksum),
        cmocka_unit_test(test_longest),          cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_documented_bytes), cmocka_unit_test(test_version_1),
        cmocka_unit_test(test_refused),          cmocka_unit_test(test_hours_round_trip),
        cmocka_unit_test(test_hours_bytes),      cmocka_unit_test(test_hours_refused),
        cmocka_unit_test(test_fleet_round_trip), cmocka_unit_test(test_fleet_bytes),
        cmocka_unit_test(test_fleet_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
