/* Source URL and token file checks. */
#include <string.h>

#include "gpuplan/url.h"
#include "testutil.h"

static void test_url(void **state) {
    (void)state;
    static const struct {
        const char *url;
        gp_status want;
    } cases[] = {
        {"http://127.0.0.1:9400/metrics", GP_OK},
        {"https://bmc.example/redfish/v1/Chassis/1/Power", GP_OK},
        {"http://[::1]:9090", GP_OK},
        {"http://h/path@with-at", GP_OK}, /* an @ after the host is no user information */
        {"http://user:hunter2@host/metrics", GP_E_INPUT},
        {"https://root@bmc/redfish", GP_E_INPUT},
        {"HTTP://u:p@H", GP_E_INPUT},
        {"ftp://host/x", GP_E_INPUT},
        {"http://", GP_E_INPUT},
        {"http://:80/x", GP_E_INPUT},
        {"http://host/a b", GP_E_INPUT},
        {"http://host/\r\nX: y", GP_E_INPUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_err err;
        gp_err_clear(&err);
        gp_status got = gp_url_check_source(cases[i].url, &err);
        if (got != cases[i].want)
            fail_msg("case %zu (%s): got %d, want %d", i, cases[i].url, got, cases[i].want);
        assert_null(strstr(err.msg, "hunter2")); /* the message never repeats a password */
    }
}

static void test_token(void **state) {
    (void)state;
    char tok[16];
    gp_err err;
    assert_int_equal(gp_token_parse("abc\r\nX-Injected: 1\r\n", 20, "t", tok, sizeof tok, &err),
                     GP_OK);
    assert_string_equal(tok, "abc");
    assert_int_equal(gp_token_parse("abc  ", 5, "t", tok, sizeof tok, &err), GP_OK);
    assert_string_equal(tok, "abc");
    assert_int_equal(gp_token_parse("a\x01"
                                    "b\n",
                                    4, "t", tok, sizeof tok, &err),
                     GP_E_INPUT);
    assert_string_equal(tok, "");
    assert_int_equal(gp_token_parse("a\rb\n", 4, "t", tok, sizeof tok, &err), GP_E_INPUT);
    assert_int_equal(gp_token_parse("\nabc", 4, "t", tok, sizeof tok, &err), GP_E_INPUT);
    assert_int_equal(gp_token_parse("0123456789abcdef", 16, "t", tok, sizeof tok, &err),
                     GP_E_INPUT);
    assert_int_equal(gp_token_parse("0123456789abcde", 15, "t", tok, sizeof tok, &err), GP_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url),
        cmocka_unit_test(test_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
