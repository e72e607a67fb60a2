/* Exchange rates: the ECB CSV parser on the bundled file and on the daily layout, its errors,
 * and the store's rate in force on a date (as stored, inverse, crossed through the euro). */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/fx.h"
#include "gpuplan/store_fx.h"
#include "testutil.h"
#include "scratch_store.h"
#include "../../src/store/store_int.h"
#include "query_plan.h"

typedef struct seen {
    int n;
    gp_fx_rate first, last, cny_first;
} seen;

static gp_status collect(const gp_fx_rate *r, void *arg, gp_err *err) {
    (void)err;
    seen *s = arg;
    if (s->n == 0)
        s->first = *r;
    if (!strcmp(r->quote, "CNY") && !s->cny_first.quote[0])
        s->cny_first = *r;
    s->last = *r;
    s->n++;
    return GP_OK;
}

/* The bundled file: 600 days of USD, CNY, JPY, GBP per euro, newest first. */
static void test_bundled_file(void **state) {
    (void)state;
    size_t len = 0, rows;
    char *buf = test_slurp("pricing/fx/ecb_eurofxref_hist_2023_2025.csv", &len);
    assert_non_null(buf);
    seen s = {0};
    gp_err err;
    assert_int_equal(gp_fx_parse_ecb(buf, len, "ecb.csv", collect, &s, &rows, &err), GP_OK);
    free(buf);
    assert_int_equal(rows, 600);
    assert_int_equal(s.n, 2400);
    assert_string_equal(s.first.base, "EUR");
    assert_string_equal(s.first.quote, "USD");
    assert_string_equal(s.first.date, "2025-05-09");
    assert_close(s.first.rate, 1.1252, REL);
    assert_string_equal(s.cny_first.date, "2025-05-09");
    assert_close(s.cny_first.rate, 8.147, REL);
    assert_string_equal(s.last.quote, "GBP");
    assert_string_equal(s.last.date, "2023-01-02");
    assert_close(s.last.rate, 0.8863, REL);
}

/* eurofxref.csv as the ECB serves it each day: "9 May 2025", spaces after commas, a trailing
 * comma; the hist file's N/A is no rate. */
static void test_daily_layout(void **state) {
    (void)state;
    const char *daily = "Date, USD, JPY, CYP, \n9 May 2025, 1.1252, 163.36, N/A, \n";
    seen s = {0};
    size_t rows;
    gp_err err;
    assert_int_equal(gp_fx_parse_ecb(daily, strlen(daily), "d.csv", collect, &s, &rows, &err),
                     GP_OK);
    assert_int_equal(rows, 1);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.first.date, "2025-05-09");
    assert_string_equal(s.last.quote, "JPY");
    assert_close(s.last.rate, 163.36, REL);
}

static void refused(const char *text, const char *where, const char *msg) {
    seen s = {0};
    size_t rows;
    gp_err err;
    assert_int_equal(gp_fx_parse_ecb(text, strlen(text), "x.csv", collect, &s, &rows, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, where);
    if (!strstr(err.msg, msg))
        print_error("message: %s\n", err.msg);
    assert_non_null(strstr(err.msg, msg));
}

static void test_errors(void **state) {
    (void)state;
    refused("", "x.csv", "empty");
    refused("Day,USD\n", "x.csv:1", "first column must be Date");
    refused("Date,usd\n", "x.csv:1", "not a currency code");
    refused("Date,USD\n2025-02-30,1.1\n", "x.csv:2", "not a date");
    refused("Date,USD\n2025-01-02,0\n", "x.csv:2", "not a positive rate");
    refused("Date,USD\n2025-01-02,1.1,7\n", "x.csv:2", "3 fields, the header has 2");
    refused("Date,USD\n31 Foo 2025,1\n", "x.csv:2", "not a date");
    /* EUR against itself is no rate: refused at the header, before anything is stored. */
    refused("Date,USD,EUR\n2025-01-02,1.1,1\n", "x.csv:1", "column 3: EUR is the base");
}

static scratch_path path;
static gp_store *st;

static int setup(void **state) {
    (void)state;
    return scratch_store_open(path, "gpuplan-fx", &st);
}

static int teardown(void **state) {
    (void)state;
    scratch_store_close(st, path);
    return 0;
}

static void add(const char *base, const char *quote, const char *date, double rate, bool want) {
    gp_fx_rate r = {.rate = rate};
    snprintf(r.base, sizeof r.base, "%s", base);
    snprintf(r.quote, sizeof r.quote, "%s", quote);
    snprintf(r.date, sizeof r.date, "%s", date);
    bool added;
    gp_err err;
    assert_int_equal(gp_store_fx_add(st, &r, "ECB test", &added, &err), GP_OK);
    assert_int_equal(added, want);
}

static void test_store_in_force(void **state) {
    (void)state;
    add("EUR", "USD", "2024-01-02", 1.10, true);
    add("EUR", "CNY", "2024-01-02", 7.80, true);
    add("EUR", "USD", "2024-02-01", 1.08, true);
    add("EUR", "CNY", "2024-02-01", 7.70, true);
    add("EUR", "USD", "2024-02-01", 2.00, false); /* that day's rate is kept */
    add("USD", "JPY", "2024-01-15", 150.0, true);
    gp_fx_quote q;
    gp_err err;
    /* As stored, and its inverse. */
    assert_int_equal(gp_store_fx_convert(st, "EUR", "USD", "2024-01-31", &q, &err), GP_OK);
    assert_close(q.rate, 1.10, REL);
    assert_string_equal(q.date, "2024-01-02");
    assert_string_equal(q.source, "ECB test");
    assert_int_equal(gp_store_fx_convert(st, "USD", "EUR", "2024-03-01", &q, &err), GP_OK);
    assert_close(q.rate, 1 / 1.08, REL);
    assert_string_equal(q.date, "2024-02-01");
    /* Crossed through the euro: USD per CNY, changing on 2024-02-01. */
    assert_int_equal(gp_store_fx_convert(st, "CNY", "USD", "2024-01-20", &q, &err), GP_OK);
    assert_close(q.rate, 1.10 / 7.80, REL);
    assert_non_null(strstr(q.source, "crossed through EUR"));
    assert_int_equal(gp_store_fx_convert(st, "CNY", "USD", "2024-02-01", &q, &err), GP_OK);
    assert_close(q.rate, 1.08 / 7.70, REL);
    assert_int_equal(gp_store_fx_convert(st, "USD", "CNY", "2024-02-01", &q, &err), GP_OK);
    assert_close(q.rate, 7.70 / 1.08, REL);
    /* A direct pair wins over a cross; the same currency is 1. */
    assert_int_equal(gp_store_fx_convert(st, "JPY", "USD", "2024-02-01", &q, &err), GP_OK);
    assert_close(q.rate, 1 / 150.0, REL);
    assert_int_equal(gp_store_fx_convert(st, "CNY", "CNY", "2000-01-01", &q, &err), GP_OK);
    assert_close(q.rate, 1, REL);
    /* Before any rate, and a pair nobody quotes: not found, naming the pair. */
    assert_int_equal(gp_store_fx_convert(st, "CNY", "USD", "2024-01-01", &q, &err), GP_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "no exchange rate CNY/USD in force on 2024-01-01"));
    assert_int_equal(gp_store_fx_convert(st, "CNY", "GBP", "2024-03-01", &q, &err), GP_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "CNY/GBP"));
}

static int count_pairs(const gp_fx_rate *r, const char *source, int history, void *arg) {
    (void)source;
    int *n = arg;
    if (!strcmp(r->quote, "USD") && !strcmp(r->base, "EUR"))
        assert_int_equal(history, 2);
    (*n)++;
    return 0;
}

static void test_store_list(void **state) {
    (void)state;
    int n = 0;
    gp_err err;
    assert_int_equal(gp_store_fx_list(st, "2024-03-01", NULL, count_pairs, &n, &err), GP_OK);
    assert_int_equal(n, 3);
    n = 0;
    assert_int_equal(gp_store_fx_list(st, "2024-03-01", "CNY", count_pairs, &n, &err), GP_OK);
    assert_int_equal(n, 1);
    n = 0;
    assert_int_equal(gp_store_fx_list(st, "2024-01-10", NULL, count_pairs, &n, &err), GP_OK);
    assert_int_equal(n, 2); /* USD/JPY is not in force yet */
}

/* A cross looks for bases quoted against both currencies by index, not by joining every dated
 * row of one quote with every dated row of the other. */
static void test_cross_plan(void **state) {
    (void)state;
    assert_index_plan(path, STORE_SQL_FX_CROSS, NULL);
    /* 1000 dated rows of each quote: a join of the two walks a million pairs, the lookup a few
     * steps a row. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d "
                                  "WHERE n < 999) INSERT OR IGNORE INTO fx_rate SELECT 'XAU', q, "
                                  "date('2020-01-01', '+' || n || ' days'), 2, 't' FROM d, "
                                  "(SELECT 'USD' q UNION ALL SELECT 'CNY')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, STORE_SQL_FX_CROSS, -1, &s, NULL), SQLITE_OK);
    sqlite3_bind_text(s, 1, "USD", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, "CNY", -1, SQLITE_STATIC);
    int rows = 0;
    bool xau = false;
    while (sqlite3_step(s) == SQLITE_ROW) {
        rows++;
        xau |= strcmp((const char *)sqlite3_column_text(s, 0), "XAU") == 0;
    }
    int steps = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    assert_true(xau);
    assert_true(rows >= 1);
    if (steps > 100000)
        print_error("%d VM steps\n", steps);
    assert_true(steps <= 100000);
}

int main(void) {
    const struct CMUnitTest parse[] = {
        cmocka_unit_test(test_bundled_file),
        cmocka_unit_test(test_daily_layout),
        cmocka_unit_test(test_errors),
    };
    const struct CMUnitTest store[] = {
        cmocka_unit_test(test_store_in_force),
        cmocka_unit_test(test_store_list), /* after in_force: it reads what that added */
        cmocka_unit_test(test_cross_plan),
    };
    return cmocka_run_group_tests(parse, NULL, NULL) |
           cmocka_run_group_tests(store, setup, teardown);
}
