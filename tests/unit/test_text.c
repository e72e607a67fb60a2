/* gp_text_clean, the one sanitiser for outside text bound for CSV and XLSX. */
#include <math.h>
#include <string.h>

#include "gpuplan/text.h"
#include "gpuplan/parse.h"
#include "testutil.h"

static void test_clean_table(void **state) {
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"plain", "plain"},
        {"a\tb\r\nc\x01\x1b\x7f", "abc"},
        {"\xc2\x85x\xc2\x9f", "x"}, /* C1 controls */
        {"\xc2\xa0\xc3\xa9t\xc3\xa9 \xe2\x82\xac", "\xc2\xa0\xc3\xa9t\xc3\xa9 \xe2\x82\xac"},
        {"a\xff"
         "b",
         "a?b"},                                    /* a byte that is never UTF-8 */
        {"\xc0\xaf", "??"},                         /* overlong '/' */
        {"\xed\xa0\x80", "???"},                    /* a surrogate */
        {"\xe2\x82", "??"},                         /* a character cut short */
        {"\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"}, /* 4 bytes */
        {"a\xef\xbf\xbe"
         "b\xef\xbf\xbf"
         "c",
         "abc"},                                                  /* U+FFFE, U+FFFF: not XML 1.0 */
        {"\xef\xbf\xbd\xef\xbf\xbc", "\xef\xbf\xbd\xef\xbf\xbc"}, /* U+FFFD, U+FFFC stay */
        {"\xed\xbf\xbf", "???"},                                  /* a lone low surrogate */
        {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},                 /* U+10FFFF: XML 1.0 allows it */
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        size_t n = gp_text_clean(cases[i].in, out, sizeof out);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("case %zu: got [%s], want [%s]", i, out, cases[i].want);
        assert_int_equal(n, strlen(out));
    }
}

static void test_clean_truncates_on_a_boundary(void **state) {
    (void)state;
    char out[5];
    /* "ab€": the euro sign (3 bytes) does not fit after "ab" in 4 bytes plus the NUL. */
    assert_int_equal(gp_text_clean("ab\xe2\x82\xac", out, sizeof out), 2);
    assert_string_equal(out, "ab");
    char one[1];
    assert_int_equal(gp_text_clean("abc", one, sizeof one), 0);
    assert_string_equal(one, "");
}

static void test_utf8_cut(void **state) {
    (void)state;
    const char *s = "a\xe2\x82\xac"; /* 4 bytes */
    assert_int_equal(gp_text_utf8_cut(s, 4), 4);
    assert_int_equal(gp_text_utf8_cut(s, 3), 1);
    assert_int_equal(gp_text_utf8_cut(s, 2), 1);
    assert_int_equal(gp_text_utf8_cut(s, 1), 1);
    assert_int_equal(gp_text_utf8_cut("abc", 2), 2);
    assert_int_equal(gp_text_utf8_cut("\xf0\x9f\x98\x80", 3), 0);
    assert_int_equal(gp_text_utf8_cut("\xf0\x9f\x98\x80", 4), 4);
}

/* One classifier under every sanitiser: each class on its edges. */
static void test_next_classes(void **state) {
    (void)state;
    static const struct {
        const char *s;
        gp_text_class want;
        size_t len;
    } cases[] = {
        {"a", GP_TEXT_PLAIN, 1},
        {" ", GP_TEXT_PLAIN, 1},
        {"~", GP_TEXT_PLAIN, 1},
        {"\t", GP_TEXT_LINE, 1},
        {"\n", GP_TEXT_LINE, 1},
        {"\r", GP_TEXT_LINE, 1},
        {"\x01", GP_TEXT_CONTROL, 1},
        {"\x1b", GP_TEXT_CONTROL, 1},
        {"\x1f", GP_TEXT_CONTROL, 1},
        {"\x7f", GP_TEXT_CONTROL, 1},
        {"\xc2\x80", GP_TEXT_CONTROL, 2},
        {"\xc2\x9f", GP_TEXT_CONTROL, 2},
        {"\xc2\xa0", GP_TEXT_PLAIN, 2},
        {"\xef\xbf\xbe", GP_TEXT_CONTROL, 3},
        {"\xef\xbf\xbd", GP_TEXT_PLAIN, 3},
        {"\xe2\x80\x8e", GP_TEXT_BIDI, 3},  /* U+200E */
        {"\xe2\x80\x8f", GP_TEXT_BIDI, 3},  /* U+200F */
        {"\xe2\x80\x8d", GP_TEXT_PLAIN, 3}, /* U+200D, the zero-width joiner */
        {"\xe2\x80\xaa", GP_TEXT_BIDI, 3},  /* U+202A */
        {"\xe2\x80\xae", GP_TEXT_BIDI, 3},  /* U+202E */
        {"\xe2\x80\xaf", GP_TEXT_PLAIN, 3}, /* U+202F */
        {"\xe2\x81\xa6", GP_TEXT_BIDI, 3},  /* U+2066 */
        {"\xe2\x81\xa9", GP_TEXT_BIDI, 3},  /* U+2069 */
        {"\xe2\x81\xaa", GP_TEXT_PLAIN, 3}, /* U+206A */
        {"\xff", GP_TEXT_INVALID, 1},
        {"\xc0\xaf", GP_TEXT_INVALID, 1},
        {"\xed\xa0\x80", GP_TEXT_INVALID, 1},
        {"\xe2\x82", GP_TEXT_INVALID, 1},
        {"\xf0\x9f\x98\x80", GP_TEXT_PLAIN, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 0;
        gp_text_class k = gp_text_next(cases[i].s, strlen(cases[i].s), &len);
        if (k != cases[i].want || len != cases[i].len)
            fail_msg("case %zu: got class %d length %zu, want %d and %zu", i, (int)k, len,
                     (int)cases[i].want, cases[i].len);
    }
    /* left bounds the look: a character that runs past it is cut short. */
    size_t len = 0;
    assert_int_equal(gp_text_next("\xe2\x82\xac", 2, &len), GP_TEXT_INVALID);
    assert_int_equal(len, 1);
}

/* The variants the writers use: a mark in place of what is taken out, lines kept, bidi out. */
static void test_clean_with_rules(void **state) {
    (void)state;
    const char *in = "a\tb\nc\x1b[1m\xc2\x85\xff\xe2\x80\xae"
                     "d\re";
    static const struct {
        gp_text_rules rules;
        const char *want;
    } cases[] = {
        {{0},
         "abc[1m?\xe2\x80\xae"
         "de"},
        {{.mark = "?"},
         "a?b?c?[1m??\xe2\x80\xae"
         "d?e"},
        {{.mark = " "},
         "a b c [1m  \xe2\x80\xae"
         "d e"},
        {{.keep_lines = true},
         "a\tb\nc[1m?\xe2\x80\xae"
         "d\re"},
        {{.drop_bidi = true}, "abc[1m?de"},
        {{.mark = "\xef\xbf\xbd", .keep_lines = true},
         "a\tb\nc\xef\xbf\xbd[1m\xef\xbf\xbd\xef\xbf\xbd\xe2\x80\xae"
         "d\re"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        size_t n = gp_text_clean_with(in, out, sizeof out, &cases[i].rules);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("case %zu: got [%s], want [%s]", i, out, cases[i].want);
        assert_int_equal(n, strlen(out));
    }
    /* A mark that does not fit whole is not cut: "ab" then a 3-byte mark in 5 bytes. */
    char out[5];
    assert_int_equal(
        gp_text_clean_with("ab\x01", out, sizeof out, &(gp_text_rules){.mark = "\xef\xbf\xbd"}), 2);
    assert_string_equal(out, "ab");
}

/* A share as people type it: "0.7" or "70%" (the CLI's percentages, the TUI's fields). */
static void test_parse_share(void **state) {
    (void)state;
    double v = -1;
    assert_true(gp_parse_share("0.7", &v));
    assert_true(fabs(v - 0.7) < 1e-15);
    assert_true(gp_parse_share("70%", &v));
    assert_true(fabs(v - 0.7) < 1e-15);
    assert_true(gp_parse_share("12.5 %", &v));
    assert_true(fabs(v - 0.125) < 1e-15);
    assert_true(gp_parse_share("0%", &v) && v == 0);
    assert_false(gp_parse_share("-5%", &v));
    assert_false(gp_parse_share("%", &v));
    assert_false(gp_parse_share("", &v));
    assert_false(gp_parse_share("70%%", &v));
    assert_false(gp_parse_share("nan%", &v));
    assert_false(gp_parse_share("7 0%", &v));
}

/* Day counts from 1970-01-01: the epoch, a leap day, across a century that is not leap; the
 * exchange rate's age is their difference (report.h). */
static void test_date_days(void **state) {
    (void)state;
    long d = -1, e = -1;
    assert_true(gp_date_days("1970-01-01", &d) && d == 0);
    assert_true(gp_date_days("2000-03-01", &d) && d == 11017);
    assert_true(gp_date_days("2000-02-29", &e) && e == d - 1);
    assert_true(gp_date_days("2100-03-01", &d) && gp_date_days("2100-02-28", &e) && d - e == 1);
    assert_true(gp_date_days("2025-05-09", &e) && gp_date_days("2026-11-27", &d) && d - e == 567);
    assert_true(gp_date_days("1969-12-31", &d) && d == -1);
    assert_false(gp_date_days("2025-02-29", &d));
    assert_false(gp_date_days("2025-5-9", &d));
    assert_false(gp_date_days(NULL, &d));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_table),
        cmocka_unit_test(test_clean_truncates_on_a_boundary),
        cmocka_unit_test(test_utf8_cut),
        cmocka_unit_test(test_next_classes),
        cmocka_unit_test(test_clean_with_rules),
        cmocka_unit_test(test_parse_share),
        cmocka_unit_test(test_date_days),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
