/* The catalog in the store: imports add history and never overwrite, lookups by date, diffs,
 * listing filters, and the bundled catalog loading once through the importers. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/catalog_load.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"
#include "testutil.h"
#include "scratch_store.h"

static scratch_path path;
static gp_store *st;

static int setup(void **state) {
    (void)state;
    return scratch_store_open(path, "gpuplan-catalog", &st);
}

static int teardown(void **state) {
    (void)state;
    scratch_store_close(st, path);
    return 0;
}

static const char *catalog_v1 =
    "{\"format\": \"gpuplan-catalog\", \"offers\": ["
    " {\"provider\": \"acme\", \"instance\": \"g8\", \"region\": \"eu-1\", \"gpu\": \"H100\","
    "  \"gpu_count\": 8, \"prices\": [{\"pricing\": \"on_demand\", \"hourly\": 40},"
    "  {\"pricing\": \"spot\", \"hourly\": 12}]},"
    " {\"provider\": \"acme\", \"instance\": \"g1\", \"region\": \"eu-1\", \"gpu\": \"A100\","
    "  \"gpu_count\": 1, \"prices\": [{\"pricing\": \"on_demand\", \"hourly\": 3}]}]}";

/* Later: g8 on-demand cheaper, spot dearer, g1 gone, a new L4 offer. */
static const char *catalog_v2 =
    "{\"format\": \"gpuplan-catalog\", \"offers\": ["
    " {\"provider\": \"acme\", \"instance\": \"g8\", \"region\": \"eu-1\", \"gpu\": \"H100\","
    "  \"gpu_count\": 8, \"prices\": [{\"pricing\": \"on_demand\", \"hourly\": 32},"
    "  {\"pricing\": \"spot\", \"hourly\": 14}]},"
    " {\"provider\": \"acme\", \"instance\": \"l4\", \"region\": \"eu-1\", \"gpu\": \"L4\","
    "  \"gpu_count\": 1, \"prices\": [{\"pricing\": \"on_demand\", \"hourly\": 0.8}]}]}";

static void import(const char *doc, const char *date, gp_import_stats *s) {
    gp_catalog_batch b;
    gp_catalog_batch_init(&b, 1000);
    gp_err err;
    assert_int_equal(gp_catalog_import(st, doc, strlen(doc), "t.json", GP_FMT_UNKNOWN, NULL, "test",
                                       date, date, false, &b, s, &err),
                     GP_OK);
    gp_catalog_batch_done(&b);
}

static int count(const gp_offer_price *o, void *arg) {
    (void)o;
    (*(int *)arg)++;
    return 0;
}

static void test_history_and_lookup(void **state) {
    (void)state;
    gp_import_stats s;
    import(catalog_v1, "2026-01-01", &s);
    assert_int_equal(s.added, 3);
    assert_int_equal(s.offers_new, 2);
    import(catalog_v1, "2026-01-01", &s); /* the same again: nothing new */
    assert_int_equal(s.added, 0);
    assert_int_equal(s.unchanged, 3);
    import(catalog_v2, "2026-06-01", &s);
    assert_int_equal(s.added, 3); /* two changed prices and the new offer */
    assert_int_equal(s.offers_new, 1);

    gp_catalog_entry e;
    gp_err err;
    assert_int_equal(gp_store_catalog_lookup(st, "acme", "g8", "eu-1", GP_ON_DEMAND, 0, 0,
                                             "2026-03-01", &e, &err),
                     GP_OK);
    assert_close(e.hourly, 40, REL);
    assert_string_equal(e.effective_from, "2026-01-01");
    assert_int_equal(gp_store_catalog_lookup(st, "acme", "g8", "eu-1", GP_ON_DEMAND, 0, 0,
                                             "2026-06-01", &e, &err),
                     GP_OK);
    assert_close(e.hourly, 32, REL);
    assert_string_equal(e.source, "test");
    assert_int_equal(gp_store_catalog_lookup(st, "acme", "g8", "eu-1", GP_ON_DEMAND, 0, 0,
                                             "2025-12-31", &e, &err),
                     GP_E_NOTFOUND);
    int n = 0;
    assert_int_equal(gp_store_catalog_history(st, "acme", "g8", "eu-1", count, &n, &err), GP_OK);
    assert_int_equal(n, 4); /* both kinds, both dates */
    assert_int_equal(gp_store_catalog_history(st, "acme", "nope", "eu-1", count, &n, &err),
                     GP_E_NOTFOUND);
}

typedef struct changes {
    int n[4];
} changes;

static int on_change(const gp_price_change *c, void *arg) {
    changes *x = arg;
    x->n[c->kind]++;
    if (c->kind == GP_CHEAPER) {
        assert_string_equal(c->now.instance, "g8");
        assert_close(c->before, 40, REL);
        assert_close(c->now.hourly, 32, REL);
    }
    if (c->kind == GP_DISAPPEARED)
        assert_string_equal(c->now.instance, "g1");
    if (c->kind == GP_APPEARED)
        assert_string_equal(c->now.instance, "l4");
    return 0;
}

static void test_diff(void **state) {
    (void)state;
    changes x = {{0}};
    gp_err err;
    assert_int_equal(gp_store_catalog_diff(st, "2026-03-01", on_change, &x, &err), GP_OK);
    assert_int_equal(x.n[GP_CHEAPER], 1);
    assert_int_equal(x.n[GP_DEARER], 1);
    assert_int_equal(x.n[GP_APPEARED], 1);
    assert_int_equal(x.n[GP_DISAPPEARED], 1);
}

/* Two feeds that disagree are no price change: a SkyPilot-format feed lists lambda's g8 at 80
 * an hour after the gpuplan feed's 32; since a date between them, nothing got dearer. */
static int no_change(const gp_price_change *c, void *arg) {
    (void)arg;
    if (strcmp(c->now.instance, "g8") != 0) /* the bundled catalog's own changes */
        return 0;
    fail_msg("a change across feeds: %s %s %g -> %g", c->now.instance,
             gp_pricing_name(c->now.pricing), c->before, c->now.hourly);
    return 0;
}

static void test_diff_within_one_feed(void **state) {
    (void)state;
    static const char sky[] =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
        "Region\ng8,H100,8,96,1000,,80,,eu-1\n";
    static const char ours[] =
        "{\"format\": \"gpuplan-catalog\", \"offers\": [{\"provider\": \"lambda\", \"instance\": "
        "\"g8\", \"region\": \"eu-1\", \"gpu\": \"H100\", \"gpu_count\": 8, \"prices\": "
        "[{\"pricing\": \"on_demand\", \"hourly\": 32}]}]}";
    gp_import_stats s0;
    import(ours, "2026-06-01", &s0);
    gp_catalog_batch b;
    gp_catalog_batch_init(&b, 1000);
    gp_import_stats s;
    gp_err err;
    assert_int_equal(gp_catalog_import(st, sky, strlen(sky), "l.csv", GP_FMT_SKYPILOT, "lambda",
                                       "other feed", "2026-07-01", "2026-07-01", false, &b, &s,
                                       &err),
                     GP_OK);
    gp_catalog_batch_done(&b);
    assert_int_equal(s.added, 1);
    assert_int_equal(gp_store_catalog_diff(st, "2026-06-15", no_change, NULL, &err), GP_OK);
}

typedef struct seen {
    int n;
    double last;
} seen;

static int sorted(const gp_offer_price *o, void *arg) {
    seen *s = arg;
    double per = o->hourly / o->gpu_count;
    assert_true(per >= s->last);
    s->last = per;
    s->n++;
    return 0;
}

static void test_list_filters(void **state) {
    (void)state;
    gp_offer_filter f = {0};
    f.pricing = -1;
    f.as_of = "2026-12-31";
    f.sort = GP_SORT_GPU_HOUR;
    seen s = {0, 0};
    gp_err err;
    assert_int_equal(gp_store_catalog_list(st, &f, sorted, &s, &err), GP_OK);
    assert_int_equal(s.n, 4); /* g8 od + spot, g1 od (still its last price), l4 od */
    f.gpu = "H100";
    f.pricing = GP_SPOT;
    s = (seen){0, 0};
    assert_int_equal(gp_store_catalog_list(st, &f, sorted, &s, &err), GP_OK);
    assert_int_equal(s.n, 1);
    f.gpu = NULL;
    f.pricing = -1;
    f.min_gpus = 2;
    s = (seen){0, 0};
    assert_int_equal(gp_store_catalog_list(st, &f, sorted, &s, &err), GP_OK);
    assert_int_equal(s.n, 2);
}

/* Providers and their newest dates, from gp_store_catalog_newest or worked out from every
 * listed price in force. */
typedef struct newest {
    char provider[32][32], date[32][11];
    int n;
} newest;

static int take_newest(const char *provider, const char *date, void *arg) {
    newest *v = arg;
    assert_true(v->n < 32);
    snprintf(v->provider[v->n], sizeof v->provider[0], "%s", provider);
    snprintf(v->date[v->n++], sizeof v->date[0], "%s", date);
    return 0;
}

static int take_listed(const gp_offer_price *o, void *arg) {
    newest *v = arg;
    int i = 0;
    while (i < v->n && strcmp(v->provider[i], o->provider))
        i++;
    if (i == v->n) {
        assert_true(v->n < 32);
        snprintf(v->provider[v->n++], sizeof v->provider[0], "%s", o->provider);
        v->date[i][0] = '\0';
    }
    if (strcmp(o->effective_from, v->date[i]) > 0)
        snprintf(v->date[i], sizeof v->date[i], "%s", o->effective_from);
    return 0;
}

/* gp_store_catalog_newest gives what the listing of every price in force on as_of gives (for
 * want_providers providers; -1: any number). */
static void newest_as_listed(const char *as_of, int want_providers) {
    newest a = {0}, b = {0};
    gp_err err;
    assert_int_equal(gp_store_catalog_newest(st, as_of, take_newest, &a, &err), GP_OK);
    gp_offer_filter f = {0};
    f.pricing = -1;
    f.as_of = as_of;
    f.sort = GP_SORT_NAME;
    assert_int_equal(gp_store_catalog_list(st, &f, take_listed, &b, &err), GP_OK);
    if (want_providers >= 0)
        assert_int_equal(a.n, want_providers);
    assert_int_equal(a.n, b.n);
    for (int i = 0; i < a.n; i++) {
        assert_string_equal(a.provider[i], b.provider[i]);
        assert_string_equal(a.date[i], b.date[i]);
    }
}

static void test_newest(void **state) {
    (void)state;
    newest v = {0};
    gp_err err;
    assert_int_equal(gp_store_catalog_newest(st, "2026-03-01", take_newest, &v, &err), GP_OK);
    assert_int_equal(v.n, 1);
    assert_string_equal(v.provider[0], "acme");
    assert_string_equal(v.date[0], "2026-01-01"); /* the June prices are not in force yet */
    newest_as_listed("2026-12-31", 1);
    newest_as_listed("2025-12-31", 0);
}

static void test_strict_imports_nothing(void **state) {
    (void)state;
    const char *bad = "{\"format\": \"gpuplan-catalog\", \"offers\": [{\"provider\": \"z\","
                      " \"instance\": \"i\", \"region\": \"r\", \"gpu\": \"T4\", \"gpu_count\": 1,"
                      " \"prices\": [{\"pricing\": \"on_demand\", \"hourly\": 1},"
                      " {\"pricing\": \"spot\", \"hourly\": -2}]}]}";
    gp_catalog_batch b;
    gp_catalog_batch_init(&b, 100);
    gp_import_stats s;
    gp_err err;
    assert_int_equal(gp_catalog_import(st, bad, strlen(bad), "bad.json", GP_FMT_UNKNOWN, NULL, NULL,
                                       "2026-01-01", "2026-01-01", true, &b, &s, &err),
                     GP_E_INPUT);
    gp_catalog_batch_done(&b);
    gp_catalog_entry e;
    assert_int_equal(
        gp_store_catalog_lookup(st, "z", "i", "r", GP_ON_DEMAND, 0, 0, "2027-01-01", &e, &err),
        GP_E_NOTFOUND);
}

static void test_bundle_loads_once(void **state) {
    (void)state;
    gp_bundle_stats bs;
    gp_err err;
    assert_int_equal(gp_catalog_load_bundle(st, false, &bs, &err), GP_OK);
    assert_true(bs.loaded);
    assert_true(bs.prices_added > 10000);
    assert_true(bs.specs > 20);
    assert_true(bs.tariffs == 5);
    assert_int_equal(gp_catalog_load_bundle(st, false, &bs, &err), GP_OK);
    assert_false(bs.loaded);
    gp_catalog_entry e;
    assert_int_equal(gp_store_catalog_lookup(st, "aws", "p4d.24xlarge", "us-east-1", GP_COMMITTED,
                                             12, GP_NO_UPFRONT, "2026-11-22", &e, &err),
                     GP_OK);
    assert_close(e.hourly, 13.921094, 1e-12);
    assert_string_equal(e.effective_from, "2025-11-30");
    gp_tariff_preset t;
    assert_int_equal(gp_store_tariff(st, "sce-tou-8-d", &t, &err), GP_OK);
    /* Forcing a reload adds no prices: imports keep history, identical prices are unchanged. */
    assert_int_equal(gp_catalog_load_bundle(st, true, &bs, &err), GP_OK);
    assert_int_equal(bs.prices_added, 0);
    /* The bundled catalog's providers, before and after prices changed. */
    newest v = {0};
    assert_int_equal(gp_store_catalog_newest(st, "2026-11-22", take_newest, &v, &err), GP_OK);
    assert_true(v.n > 3);
    newest_as_listed("2026-11-22", v.n);
    newest_as_listed("2025-06-01", -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history_and_lookup),     cmocka_unit_test(test_diff),
        cmocka_unit_test(test_list_filters),           cmocka_unit_test(test_newest),
        cmocka_unit_test(test_strict_imports_nothing), cmocka_unit_test(test_bundle_loads_once),
        cmocka_unit_test(test_diff_within_one_feed), /* last: it adds a feed */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
