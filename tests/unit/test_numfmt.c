/* Display rounding (numfmt.h): money to cents, rates to significant digits, plurals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/clock.h"
#include "gpuplan/numfmt.h"
#include "testutil.h"

typedef struct sig_case {
    double v;
    int digits;
    const char *want;
} sig_case;

static void test_sig(void **state) {
    (void)state;
    /* The noise of the examples, and the edges of rounding. */
    static const sig_case cases[] = {
        {88.4899999, 4, "88.49"},
        {69.9999999999993, 4, "70"},
        {656614.79200000002, 4, "656615"},
        {0.6, 4, "0.6"},
        {0.000123456, 4, "0.0001235"},
        {9.99995, 4, "10"},
        {-0.00001, 4, "-0.00001"},
        {-1e-300, 2, "0"},
        {0, 4, "0"},
        {1234.51, 4, "1235"},
        {1.5, 1, "2"},
        {-2.71828, 3, "-2.72"},
        {32.784, 4, "32.78"},
        {1261440.0, 4, "1261440"},
        {0.31249999999, 4, "0.3125"},
    };
    char b[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gp_fmt_sig(cases[i].v, cases[i].digits, b, sizeof b);
        if (strcmp(b, cases[i].want) != 0)
            fail_msg("case %zu: %.17g to %d digits: got %s, want %s", i, cases[i].v,
                     cases[i].digits, b, cases[i].want);
    }
    /* The same digits, grouped left of the point for reading; inf and nan as they are. */
    assert_string_equal(gp_fmt_sig_grouped(10398873, 4, b, sizeof b), "10,398,873");
    assert_string_equal(gp_fmt_sig_grouped(-1234.51, 4, b, sizeof b), "-1,235");
    assert_string_equal(gp_fmt_sig_grouped(999.96, 4, b, sizeof b), "1,000");
    assert_string_equal(gp_fmt_sig_grouped(184000, 4, b, sizeof b), "184,000");
    assert_string_equal(gp_fmt_sig_grouped(0.000123456, 4, b, sizeof b), "0.0001235");
    assert_string_equal(gp_fmt_sig_grouped(123.456, 4, b, sizeof b), "123.5");
    assert_string_equal(gp_fmt_sig_grouped(INFINITY, 4, b, sizeof b), "inf");
    /* At most 15 decimals: what rounds to zero there reads 0, without a sign. */
    assert_string_equal(gp_fmt_sig(-0.0, 4, b, sizeof b), "0");
    assert_string_equal(gp_fmt_sig(4e-17, 4, b, sizeof b), "0");
}

static void test_money_and_cents(void **state) {
    (void)state;
    char b[64];
    assert_string_equal(gp_fmt_money(1562288.0000000028, b, sizeof b), "1,562,288.00");
    assert_string_equal(gp_fmt_money(-901600, b, sizeof b), "-901,600.00");
    assert_string_equal(gp_fmt_money(-0.001, b, sizeof b), "0.00");
    assert_string_equal(gp_fmt_money(999.995, b, sizeof b), "1,000.00");
    assert_string_equal(gp_fmt_money(12.5, b, sizeof b), "12.50");
    assert_string_equal(gp_fmt_cents(656614.79200000002, b, sizeof b), "656614.79");
    assert_string_equal(gp_fmt_cents(-0.004, b, sizeof b), "0.00");
    assert_string_equal(gp_fmt_cents(-3.456, b, sizeof b), "-3.46");
    assert_string_equal(gp_fmt_cents(1e12, b, sizeof b), "1000000000000.00");
    assert_string_equal(gp_fmt_grouped(3475302.6, 0, b, sizeof b), "3,475,303");
    assert_string_equal(gp_fmt_grouped(32704, 0, b, sizeof b), "32,704");
    assert_string_equal(gp_fmt_grouped(999.4, 0, b, sizeof b), "999");
    assert_string_equal(gp_fmt_grouped(-0.4, 0, b, sizeof b), "0");
    assert_string_equal(gp_fmt_grouped(-1234.56, 1, b, sizeof b), "-1,234.6");
}

static void test_fixed_pct_count(void **state) {
    (void)state;
    char b[64];
    assert_string_equal(gp_fmt_fixed(1234.56, 1, b, sizeof b), "1234.6");
    assert_string_equal(gp_fmt_fixed(-0.04, 1, b, sizeof b), "0.0");
    assert_string_equal(gp_fmt_fixed(7.5, 0, b, sizeof b), "8");
    assert_string_equal(gp_fmt_pct(0.6, b, sizeof b), "60");
    assert_string_equal(gp_fmt_pct(0.312549, b, sizeof b), "31.25");
    assert_string_equal(gp_fmt_pct(0.699999999999993, b, sizeof b), "70");
    assert_string_equal(gp_fmt_count(1, "GPU", "GPUs", b, sizeof b), "1 GPU");
    assert_string_equal(gp_fmt_count(2, "GPU", "GPUs", b, sizeof b), "2 GPUs");
    assert_string_equal(gp_fmt_count(0, "month", "months", b, sizeof b), "0 months");
    assert_string_equal(gp_fmt_count(1, "month", "months", b, sizeof b), "1 month");
}

static void test_non_finite_and_short_buffers(void **state) {
    (void)state;
    char b[64], tiny[4];
    assert_string_equal(gp_fmt_sig(INFINITY, 4, b, sizeof b), "inf");
    assert_string_equal(gp_fmt_money(-INFINITY, b, sizeof b), "-inf");
    assert_string_equal(gp_fmt_cents(NAN, b, sizeof b), "nan");
    /* Cut, never overrun. */
    assert_string_equal(gp_fmt_money(1234567, tiny, sizeof tiny), "1,2");
    assert_string_equal(gp_fmt_count(12345, "GPU", "GPUs", tiny, sizeof tiny), "123");
    /* Huge and tiny values stay within the buffer and keep their digits. */
    assert_string_equal(gp_fmt_sig(1e20, 4, b, sizeof b), "100000000000000000000");
    assert_string_equal(gp_fmt_sig(1.23456e-9, 3, b, sizeof b), "0.00000000123");
}

/* gp_fmt_cents' integer path prints what printf's "%.2f" does (gp_fmt_fixed), on values of
 * every size and sign, on exact half cents (0.125, x.375: round half even on the binary value)
 * and on decimal halves that are not exact in binary (2.675, 1.005). */
static void test_cents_as_printf(void **state) {
    (void)state;
    char a[64], b[64];
    unsigned long long x = 88172645463325252ull;
    for (int i = 0; i < 400000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
        double v;
        switch (i % 5) {
        case 0: /* any size */
            v = pow(10.0, -4.0 + 17.0 * u);
            break;
        case 1: /* half cents, exact or not in binary */
            v = (double)(x % 100000000) / 100.0 + 0.005;
            break;
        case 2: /* eighths: exact ties */
            v = (double)(x % 1000000000) / 8.0;
            break;
        case 3: /* whole cents, as totals often are */
            v = (double)(x % 10000000000ull) / 100.0;
            break;
        default: /* near 0 */
            v = (u - 0.5) * 0.02;
        }
        if (x & 1)
            v = -v;
        gp_fmt_cents(v, a, sizeof a);
        gp_fmt_fixed(v, 2, b, sizeof b);
        if (strcmp(a, b) != 0)
            fail_msg("%.17g: %s, printf %s", v, a, b);
    }
    assert_string_equal(gp_fmt_cents(0.125, a, sizeof a), "0.12");
    assert_string_equal(gp_fmt_cents(0.375, a, sizeof a), "0.38");
    assert_string_equal(gp_fmt_cents(2.675, a, sizeof a), "2.67");
    assert_string_equal(gp_fmt_cents(-0.001, a, sizeof a), "0.00");
    assert_string_equal(gp_fmt_cents(1e15 + 0.25, a, sizeof a), "1000000000000000.25");
}

/* The one clock and the one local-time formatter (src/base/clock.c). */
static void test_clock(void **state) {
    (void)state;
    int64_t before = (int64_t)time(NULL) * 1000, now = gp_now_ms();
    assert_true(now >= before && now < before + 2000);
    setenv("TZ", "UTC", 1);
    tzset();
    char buf[32];
    gp_fmt_local_time(1700000000123, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14 22:13:20");
    gp_fmt_local_time(0, buf, sizeof buf);
    assert_string_equal(buf, "never");
    gp_fmt_local_time(-5, buf, sizeof buf);
    assert_string_equal(buf, "never");
    char small[11];
    gp_fmt_local_time(1700000000123, small, sizeof small);
    assert_string_equal(small, "2023-11-14");
}

/* UTC whatever TZ says, the second truncated, cut to fit, and the whole range of int64_t ms. */
static void test_utc_time(void **state) {
    (void)state;
    setenv("TZ", "America/New_York", 1);
    tzset();
    char buf[32];
    gp_fmt_utc_time(1700000000999, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14T22:13:20Z");
    gp_fmt_utc_time(0, buf, sizeof buf);
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
    gp_fmt_utc_time(-1500, buf, sizeof buf);
    assert_string_equal(buf, "1969-12-31T23:59:59Z");
    char day[11];
    gp_fmt_utc_time(1700000000999, day, sizeof day);
    assert_string_equal(day, "2023-11-14");
    gp_fmt_utc_time(INT64_MAX, buf, sizeof buf);
    assert_string_equal(buf, "292278994-08-17T07:12:55Z");
    gp_fmt_utc_time(INT64_MIN, buf, sizeof buf);
    assert_string_equal(buf, "-292275055-05-16T16:47:05Z");
    setenv("TZ", "UTC", 1);
    tzset();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sig),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_utc_time),
        cmocka_unit_test(test_money_and_cents),
        cmocka_unit_test(test_fixed_pct_count),
        cmocka_unit_test(test_non_finite_and_short_buffers),
        cmocka_unit_test(test_cents_as_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
