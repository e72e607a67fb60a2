/* API prices: the CSV parser on the bundled table and its errors, and the store's price in
 * force on a date with history (a later row wins from its date on, a second row for the same
 * day is kept out). */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/api_price.h"
#include "gpuplan/store_api_price.h"
#include "testutil.h"
#include "scratch_store.h"

typedef struct seen {
    int n;
    gp_api_price first, last;
} seen;

static gp_status collect(const gp_api_price *p, void *arg, gp_err *err) {
    (void)err;
    seen *s = arg;
    if (s->n == 0)
        s->first = *p;
    s->last = *p;
    s->n++;
    return GP_OK;
}

/* The bundled table: seven rows, each with its URL. */
static void test_bundled_file(void **state) {
    (void)state;
    size_t len = 0, rows;
    char *buf = test_slurp("pricing/api/api_prices_open_models.csv", &len);
    assert_non_null(buf);
    seen s = {0};
    gp_err err;
    assert_int_equal(gp_api_price_parse(buf, len, "api.csv", collect, &s, &rows, &err), GP_OK);
    free(buf);
    assert_int_equal(rows, 7);
    assert_int_equal(s.n, 7);
    assert_string_equal(s.first.provider, "fireworks");
    assert_string_equal(s.first.model, "llama-3-8b-instruct");
    assert_close(s.first.input_per_m, 0.20, REL);
    assert_close(s.first.output_per_m, 0.20, REL);
    assert_string_equal(s.first.currency, "USD");
    assert_string_equal(s.first.effective_from, "2026-11-27");
    assert_non_null(strstr(s.first.source, "https://fireworks.ai/pricing"));
    assert_int_equal(s.first.line, 2);
    assert_string_equal(s.last.provider, "amazon-bedrock");
    assert_close(s.last.output_per_m, 0.22, REL);
}

static void refused(const char *text, const char *where, const char *msg) {
    seen s = {0};
    size_t rows = 99;
    gp_err err;
    assert_int_equal(gp_api_price_parse(text, strlen(text), "x.csv", collect, &s, &rows, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, where);
    if (!strstr(err.msg, msg))
        print_error("message: %s\n", err.msg);
    assert_non_null(strstr(err.msg, msg));
    assert_int_equal(rows, 0);
}

#define HEAD "provider,model,input_per_m,output_per_m,currency,effective_from,source\n"

static void test_errors(void **state) {
    (void)state;
    refused("", "x.csv", "empty");
    refused("provider,model,input_per_m,output_per_m,currency,source\n", "x.csv:1",
            "no \"effective_from\" column");
    refused(HEAD "Together,m,1,2,USD,2025-01-01,u\n", "x.csv:2", "provider:");
    refused(HEAD "p,,1,2,USD,2025-01-01,u\n", "x.csv:2", "model:");
    refused(HEAD "p,m,-1,2,USD,2025-01-01,u\n", "x.csv:2", "input_per_m");
    refused(HEAD "p,m,1,nan,USD,2025-01-01,u\n", "x.csv:2", "output_per_m");
    refused(HEAD "p,m,1,2,usd,2025-01-01,u\n", "x.csv:2", "currency");
    refused(HEAD "p,m,1,2,USD,2025-02-30,u\n", "x.csv:2", "effective_from");
    refused(HEAD "p,m,1,2,USD,2025-01-01,\n", "x.csv:2", "source:");
    refused(HEAD "p,m,1,2,USD,2025-01-01,u\np,m,3,4,USD,2025-01-01,v\n", "x.csv:3", "twice");
    /* Columns in another order, and an extra one ignored. */
    seen s = {0};
    size_t rows;
    gp_err err;
    const char *ok = "source,note,effective_from,currency,output_per_m,input_per_m,model,provider\n"
                     "u,x,2025-01-01,EUR,2.5,1.5,llama-3-70b-instruct,together\n";
    assert_int_equal(gp_api_price_parse(ok, strlen(ok), "o.csv", collect, &s, &rows, &err), GP_OK);
    assert_int_equal(rows, 1);
    assert_string_equal(s.first.provider, "together");
    assert_close(s.first.input_per_m, 1.5, REL);
    assert_close(s.first.output_per_m, 2.5, REL);
    assert_string_equal(s.first.currency, "EUR");
}

static scratch_path path;
static gp_store *st;

static int setup(void **state) {
    (void)state;
    return scratch_store_open(path, "gpuplan-api", &st);
}

static int teardown(void **state) {
    (void)state;
    scratch_store_close(st, path);
    return 0;
}

static void add(const char *provider, const char *model, const char *date, double in, double out,
                bool want) {
    gp_api_price p = {.input_per_m = in, .output_per_m = out};
    snprintf(p.provider, sizeof p.provider, "%s", provider);
    snprintf(p.model, sizeof p.model, "%s", model);
    snprintf(p.effective_from, sizeof p.effective_from, "%s", date);
    snprintf(p.currency, sizeof p.currency, "USD");
    snprintf(p.source, sizeof p.source, "test %s", date);
    bool added;
    gp_err err;
    assert_int_equal(gp_store_api_price_add(st, &p, &added, &err), GP_OK);
    assert_int_equal(added, want);
}

typedef struct list {
    int n;
    gp_api_price row[8];
    int history[8];
} list;

static int take(const gp_api_price *p, int history, void *arg) {
    list *l = arg;
    if (l->n < 8) {
        l->row[l->n] = *p;
        l->history[l->n] = history;
    }
    l->n++;
    return 0;
}

static void test_store_history(void **state) {
    (void)state;
    add("fireworks", "llama-3-70b-instruct", "2024-05-01", 0.9, 0.9, true);
    add("fireworks", "llama-3-70b-instruct", "2025-01-01", 0.7, 0.8, true);
    add("fireworks", "llama-3-70b-instruct", "2025-01-01", 5.0, 5.0, false); /* the day's kept */
    add("deepinfra", "llama-3-70b-instruct", "2024-06-01", 0.5, 0.6, true);
    add("deepinfra", "llama-3-8b-instruct", "2024-06-01", 0.05, 0.05, true);
    gp_err err;
    list l = {0};
    /* Before any row: nothing in force. */
    assert_int_equal(gp_store_api_prices(st, "2024-04-30", NULL, NULL, take, &l, &err), GP_OK);
    assert_int_equal(l.n, 0);
    /* 2024-12-31: fireworks' first row, deepinfra's; by model, then output price. */
    l = (list){0};
    assert_int_equal(
        gp_store_api_prices(st, "2024-12-31", NULL, "llama-3-70b-instruct", take, &l, &err), GP_OK);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.row[0].provider, "deepinfra");
    assert_string_equal(l.row[1].provider, "fireworks");
    assert_close(l.row[1].output_per_m, 0.9, REL);
    assert_int_equal(l.history[1], 2);
    /* From 2025-01-01 the later row is in force. */
    l = (list){0};
    assert_int_equal(gp_store_api_prices(st, "2025-06-01", "fireworks", NULL, take, &l, &err),
                     GP_OK);
    assert_int_equal(l.n, 1);
    assert_close(l.row[0].input_per_m, 0.7, REL);
    assert_string_equal(l.row[0].effective_from, "2025-01-01");
    assert_string_equal(l.row[0].source, "test 2025-01-01");
    /* The history: every row, by provider, model and date. */
    l = (list){0};
    assert_int_equal(gp_store_api_prices(st, NULL, NULL, NULL, take, &l, &err), GP_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.row[2].provider, "fireworks");
    assert_string_equal(l.row[2].effective_from, "2024-05-01");
    assert_string_equal(l.row[3].effective_from, "2025-01-01");
}

int main(void) {
    const struct CMUnitTest parse[] = {
        cmocka_unit_test(test_bundled_file),
        cmocka_unit_test(test_errors),
    };
    const struct CMUnitTest store[] = {
        cmocka_unit_test(test_store_history),
    };
    return cmocka_run_group_tests(parse, NULL, NULL) |
           cmocka_run_group_tests(store, setup, teardown);
}
