/* The application services called directly, without argv: scenario resolution against the
 * bundled catalog, drafting, importing captures, capacity analysis, the mixed-fleet plan and
 * measuring a stored scenario, sensitivity ranked per option, the bundled catalog checked once a
 * store open. Each test gets a fresh database in a temporary folder. */
#define _GNU_SOURCE /* nftw, strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h> /* AT_FDCWD */
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/app_capacity.h"
#include "gpuplan/app_demo.h"
#include "gpuplan/clock.h"
#include "gpuplan/app_draft.h"
#include "gpuplan/app_pricing.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/engine.h"
#include "gpuplan/files.h"
#include "gpuplan/app_sensitivity.h"
#include "gpuplan/app_telemetry.h"
#include "gpuplan/collect.h"
#include "gpuplan/store.h"
#include "gpuplan/store_catalog.h"
#include <sqlite3.h>

#include "testutil.h"
#include "session_fixture.h"

#define CAPTURE                                                                                    \
    "tests/fixtures/telemetry/dcgm_exporter/"                                                      \
    "aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-02-19__grep-sampled.prom"

static cJSON *scenario_doc(const char *catalog) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"ref\", \"horizon_months\": 12, \"demand\": {\"gpus\": 8, "
             "\"utilization\": 0.5}, \"self_hosted\": {\"gpus_per_server\": 8, \"server_price\": "
             "250000, \"power\": {\"server_base_w\": 1500, \"gpu_idle_w\": 60, \"gpu_tdp_w\": "
             "400, \"pue\": 1.4}, \"tariff\": {\"periods\": [{\"name\": \"flat\", "
             "\"hours_per_day\": 24, \"price_per_kwh\": 0.1}]}}, \"cloud_options\": [{\"name\": "
             "\"p4d\", \"pricing\": \"on_demand\", \"catalog\": \"%s\"}]}",
             catalog);
    return cJSON_Parse(text);
}

/* A catalog reference takes the price in force on as_of, keeps its source, and the JSON the
 * report embeds carries the price instead of the reference. */
/* As the bundle's load begins, another connection makes the store refuse it with an error that
 * is not a refused write (a trigger's ABORT, as a damaged or locked database would). */
static void break_the_load(bool done, void *arg) {
    if (done)
        return;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(arg, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "CREATE TRIGGER boom BEFORE INSERT ON catalog_import BEGIN "
                                  "SELECT RAISE(ABORT, 'boom'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
}

/* A read-only session keeps the stored catalog only when the database refuses the write; any
 * other failure of the load is reported, never a stale catalog served in silence. */
static void read_only_session_reports_other_errors(void **state) {
    fixture *f = *state;
    f->ses.read_only = true; /* no file yet: created writable, then the load fails */
    f->ses.catalog_loading = break_the_load;
    f->ses.catalog_loaded_arg = f->db;
    gp_store *st;
    gp_err err;
    assert_int_equal(gp_session_catalog(&f->ses, &st, &err), GP_E_DB);
    assert_false(gp_store_read_only(st));
    assert_non_null(strstr(err.msg, "boom"));
}

/* The bundled catalog is checked once a store open: marked as another bundle behind the
 * session's back, it is not looked at again until the store is opened anew, which loads it. */
static void checks_the_bundle_once_a_store_open(void **state) {
    fixture *f = *state;
    gp_store *st;
    gp_err err;
    char *id = NULL, *seen = NULL;
    assert_int_equal(gp_session_catalog(&f->ses, &st, &err), GP_OK);
    assert_int_equal(gp_store_meta_get(st, "bundle", &id, &err), GP_OK);
    assert_non_null(id);
    assert_int_equal(gp_store_meta_set(st, "bundle", "another", &err), GP_OK);
    assert_int_equal(gp_session_catalog(&f->ses, &st, &err), GP_OK);
    assert_int_equal(gp_pricing_ready(&f->ses, &err), GP_OK);
    assert_int_equal(gp_store_meta_get(st, "bundle", &seen, &err), GP_OK);
    assert_string_equal(seen, "another");
    free(seen);
    gp_session_close(&f->ses);
    gp_session_init(&f->ses, f->db);
    assert_int_equal(gp_session_catalog(&f->ses, &st, &err), GP_OK);
    assert_int_equal(gp_store_meta_get(st, "bundle", &seen, &err), GP_OK);
    assert_string_equal(seen, id);
    free(seen);
    free(id);
}

static void resolves_catalog_references(void **state) {
    fixture *f = *state;
    cJSON *doc = scenario_doc("aws/p4d.24xlarge/us-east-1");
    assert_non_null(doc);
    gp_loaded sc;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_load_scenario_doc(&f->ses, doc, "ref.json", f->ses.today, &sc, &err),
                     GP_OK);
    assert_int_equal(sc.n_sources, 1);
    assert_int_equal(sc.s->options[0].gpus_per_instance, 8);
    assert_true(sc.s->options[0].hourly > 0);
    assert_close(sc.sources[0].hourly, sc.s->options[0].hourly, REL);
    assert_true(sc.sources[0].effective_from[0] != '\0' && sc.sources[0].source[0] != '\0');
    cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(sc.tree, "cloud_options"), 0);
    assert_null(cJSON_GetObjectItem(o, "catalog"));
    assert_close(cJSON_GetObjectItem(o, "hourly")->valuedouble, sc.s->options[0].hourly, REL);
    /* The document handed in is never changed. */
    assert_non_null(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cloud_options"), 0), "catalog"));
    gp_result *r = malloc(sizeof *r);
    assert_int_equal(gp_evaluate(&sc, r, &err), GP_OK);
    assert_true(r->options[0].total > 0);
    free(r);
    gp_loaded_done(&sc);
    cJSON_Delete(doc);

    doc = scenario_doc("aws/no-such-instance/us-east-1");
    assert_int_equal(gp_load_scenario_doc(&f->ses, doc, "ref.json", f->ses.today, &sc, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "ref.json:$.cloud_options[0].catalog");
    assert_null(sc.s);
    cJSON_Delete(doc);
}

static void save_reference_scenario(fixture *f);
#define DEMO "Demo: ten DGX A100 servers against AWS p4d.24xlarge"

/* An unknown name is the user's input to fix (exit 2), with the nearest stored name. */
static void unknown_stored_scenario_is_bad_input(void **state) {
    fixture *f = *state;
    gp_loaded sc;
    gp_err err;
    assert_int_equal(gp_load_scenario(&f->ses, "no such plan", 0, f->ses.today, &sc, &err),
                     GP_E_INPUT);
    assert_null(strstr(err.msg, "did you mean"));
    save_reference_scenario(f);
    assert_int_equal(gp_load_scenario(&f->ses, "demo: ten dgx a100 servers against aws p4d", 0,
                                      f->ses.today, &sc, &err),
                     GP_E_INPUT);
    assert_non_null(strstr(err.msg, "did you mean \"" DEMO "\"?"));
    assert_int_equal(gp_load_scenario(&f->ses, DEMO, 7, f->ses.today, &sc, &err), GP_E_INPUT);
}

/* A draft buys servers of the GPU and rents the cheapest offers, each by catalog reference,
 * and the draft resolves and evaluates as it stands. */
/* The API price in force for a model and date, from the bundled table: one provider's, or the
 * cheapest by output price; none before the table's date, none for an unknown model. */
static void api_price_in_force(void **state) {
    fixture *f = *state;
    gp_api_price p;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(
        gp_api_price_in_force(&f->ses, "llama-3.1-8b-instruct", NULL, "2026-12-01", &p, &err),
        GP_OK);
    assert_string_equal(p.provider, "deepinfra");
    assert_close(p.output_per_m, 0.055, REL);
    assert_int_equal(gp_api_price_in_force(&f->ses, "llama-3.1-8b-instruct", "amazon-bedrock",
                                           "2026-12-01", &p, &err),
                     GP_OK);
    assert_close(p.input_per_m, 0.22, REL);
    assert_non_null(strstr(p.source, "https://"));
    assert_int_equal(
        gp_api_price_in_force(&f->ses, "llama-3-70b-instruct", NULL, "2026-11-26", &p, &err),
        GP_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "in force on 2026-11-26"));
    assert_int_equal(gp_api_price_in_force(&f->ses, "no-such-model", NULL, "2026-12-01", &p, &err),
                     GP_E_NOTFOUND);
    assert_int_equal(
        gp_api_price_in_force(&f->ses, "llama-3-70b-instruct", NULL, "2026-13-01", &p, &err),
        GP_E_INPUT);
}

static void drafts_from_the_catalog(void **state) {
    fixture *f = *state;
    gp_draft_request rq;
    gp_draft_defaults(&rq, f->ses.today);
    rq.gpus = 16;
    rq.gpu = "H100";
    cJSON *doc;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "demand"), "gpus")->valueint, 16);
    cJSON *sh = cJSON_GetObjectItem(doc, "self_hosted");
    assert_true(cJSON_GetObjectItem(sh, "server_price")->valuedouble > 0);
    cJSON *opts = cJSON_GetObjectItem(doc, "cloud_options");
    assert_true(cJSON_GetArraySize(opts) >= 1);
    cJSON *o;
    cJSON_ArrayForEach(o, opts) assert_non_null(cJSON_GetObjectItem(o, "catalog"));
    assert_non_null(strstr(cJSON_GetObjectItem(doc, "notes")->valuestring, "Assumed"));
    /* The notes name what was not given rather than leaving a reviewer to find the zeros. */
    const char *notes = cJSON_GetObjectItem(doc, "notes")->valuestring;
    assert_non_null(strstr(notes, "Not given, so 0: colocation"));
    /* ... from the one list the report's Assumptions use too. */
    for (int i = 0; i < GP_N_ZERO_COSTS; i++) {
        char want[160];
        snprintf(want, sizeof want, "%s (%s)", gp_zero_costs[i].label, gp_zero_costs[i].key);
        assert_non_null(strstr(notes, want));
    }
    assert_non_null(strstr(notes, "Electricity: not given"));
    assert_non_null(strstr(notes, "busy hours only"));
    /* Comparators: no marketplace box, no PCIe card against SXM servers, whole servers. */
    cJSON_ArrayForEach(o, opts) {
        const char *ref = cJSON_GetObjectItem(o, "catalog")->valuestring;
        assert_null(strstr(ref, "vast/"));
        assert_null(strcasestr(ref, "pcie"));
    }
    gp_loaded sc;
    assert_int_equal(gp_load_scenario_doc(&f->ses, doc, "draft", f->ses.today, &sc, &err), GP_OK);
    assert_int_equal(sc.s->gpus, 16);
    for (int i = 0; i < sc.s->n_options; i++)
        assert_true(sc.s->options[i].gpus_per_instance >= 8);
    gp_loaded_done(&sc);
    /* The bundled catalog gives no spot interruption band: the drafted spot option carries
     * the stated default, 12.5 % of instances a month, and the notes say so. */
    int spots = 0;
    cJSON_ArrayForEach(o, opts) {
        if (strcmp(cJSON_GetObjectItem(o, "pricing")->valuestring, "spot") != 0)
            continue;
        spots++;
        assert_close(cJSON_GetObjectItem(o, "interruptions_per_hour")->valuedouble, 0.125 / 730,
                     REL);
    }
    assert_int_equal(spots, 1);
    assert_non_null(strstr(notes, "no interruption band, so the draft's default of 12.5 %"));
    cJSON_Delete(doc);
    rq.spot_interruptions = 0.3; /* --spot-interruptions 30% */
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    cJSON_ArrayForEach(
        o, cJSON_GetObjectItem(
               doc, "cloud_options")) if (!strcmp(cJSON_GetObjectItem(o, "pricing")->valuestring,
                                                  "spot"))
        assert_close(cJSON_GetObjectItem(o, "interruptions_per_hour")->valuedouble, 0.3 / 730, REL);
    assert_non_null(strstr(cJSON_GetObjectItem(doc, "notes")->valuestring,
                           "priced at 30 % of instances interrupted a month"));
    cJSON_Delete(doc);
    rq.spot_interruptions = -1;

    /* --growth 5%: 16 GPUs grow to ceil(16 x 1.05^35) = 89 in month 36. Servers come as
     * needed; the commitment covers month 1's 16 GPUs and bursts to the on-demand option,
     * instead of committing the peak from month 0. */
    rq.growth = 0.05;
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    assert_close(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "demand"), "growth_per_month")->valuedouble,
        0.05, REL);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "self_hosted"), "buy")->valuestring,
        "as_needed");
    const char *od = NULL;
    cJSON *committed = NULL;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(doc, "cloud_options")) {
        const char *pricing = cJSON_GetObjectItem(o, "pricing")->valuestring;
        if (!strcmp(pricing, "on_demand"))
            od = cJSON_GetObjectItem(o, "name")->valuestring;
        if (!strcmp(pricing, "committed"))
            committed = o;
    }
    assert_non_null(od);
    assert_non_null(committed);
    assert_int_equal(cJSON_GetObjectItem(committed, "base_gpus")->valueint, 16);
    assert_string_equal(cJSON_GetObjectItem(committed, "burst")->valuestring, od);
    notes = cJSON_GetObjectItem(doc, "notes")->valuestring;
    assert_non_null(strstr(notes, "Demand grows 5 % a month, from 16 GPUs in month 1 to 89 in "
                                  "month 36"));
    assert_non_null(strstr(notes, "The commitment covers a base of 16 GPUs (month 1's demand)"));
    assert_int_equal(gp_load_scenario_doc(&f->ses, doc, "grow", f->ses.today, &sc, &err), GP_OK);
    gp_result *res = malloc(sizeof *res);
    gp_model_evaluate(sc.s, res);
    assert_int_equal(res->error.code, GP_OK);
    int ci = -1;
    for (int i = 0; i < sc.s->n_options; i++)
        if (sc.s->options[i].pricing == GP_COMMITTED)
            ci = i;
    double with_base = res->options[ci].total;
    assert_true(res->options[ci].burst > 0); /* the on-demand option does the growth */
    /* The same commitment without a base commits the peak from month 0: dearer here. */
    sc.s->options[ci].has_base_gpus = false;
    sc.s->options[ci].burst = -1;
    gp_model_evaluate(sc.s, res);
    assert_true(with_base < res->options[ci].total);
    free(res);
    gp_loaded_done(&sc);
    cJSON_Delete(doc);
    rq.commit_share = 0.5; /* half the peak: ceil(0.5 x 89) = 45 */
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    cJSON_ArrayForEach(
        o, cJSON_GetObjectItem(
               doc, "cloud_options")) if (!strcmp(cJSON_GetObjectItem(o, "pricing")->valuestring,
                                                  "committed"))
        assert_int_equal(cJSON_GetObjectItem(o, "base_gpus")->valueint, 45);
    cJSON_Delete(doc);
    rq.growth = 0; /* steady, half committed: a base of 8 of the 16 GPUs, the rest on demand */
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    cJSON_ArrayForEach(
        o, cJSON_GetObjectItem(
               doc, "cloud_options")) if (!strcmp(cJSON_GetObjectItem(o, "pricing")->valuestring,
                                                  "committed"))
        assert_int_equal(cJSON_GetObjectItem(o, "base_gpus")->valueint, 8);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "demand"), "growth_per_month"));
    cJSON_Delete(doc);
    rq.growth = 0, rq.commit_share = 0;

    /* --provider: only that provider's offers. */
    rq.providers[rq.n_providers++] = "aws";
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_OK);
    opts = cJSON_GetObjectItem(doc, "cloud_options");
    assert_true(cJSON_GetArraySize(opts) >= 1);
    cJSON_ArrayForEach(o, opts)
        assert_int_equal(strncmp(cJSON_GetObjectItem(o, "catalog")->valuestring, "aws/", 4), 0);
    cJSON_Delete(doc);
    rq.n_providers = 0;

    rq.gpu = "NoSuchGPU 9000";
    assert_int_equal(gp_draft(&f->ses, &rq, &doc, &err), GP_E_INPUT);
    assert_string_equal(err.where, "scenario draft");
    assert_null(doc);
}

/* The repository file rel copied into f's folder as name (its path into out). A scrape without
 * timestamps is dated by its file's modification time: a copy is dated now, the checkout
 * (hours or months old) is not, and these tests measure the last day. */
static void fresh_copy(fixture *f, const char *rel, const char *name, char *out, size_t cap) {
    char src[1024];
    snprintf(src, sizeof src, "%s/%s", getenv("GP_SOURCE_ROOT"), rel);
    snprintf(out, cap, "%s/%s", f->dir, name);
    gp_buf b;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_read_file(src, 1u << 26, &b, &err), GP_OK);
    FILE *o = fopen(out, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(b.data, 1, b.len, o), b.len);
    assert_int_equal(fclose(o), 0);
    gp_buf_done(&b);
}

static void import_capture(fixture *f, const char *node) {
    char path[1024];
    fresh_copy(f, CAPTURE, "p5.prom", path, sizeof path);
    gp_import_request rq = {.kind = GP_CAPTURE_PROM, .file = path, .node = node};
    gp_import_result r;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_import_capture(&f->ses, &rq, &r, &err), GP_OK);
    assert_int_equal(r.gpus, 8);
    assert_true(r.samples > 0);
}

/* dcgm-exporter writes no timestamps: a scrape saved long ago is dated by its file's
 * modification time, not the import's, and the node was last seen then. */
static void dates_a_scrape_by_its_mtime(void **state) {
    fixture *f = *state;
    char path[1024];
    fresh_copy(f, CAPTURE, "saved.prom", path, sizeof path);
    const int64_t then = 1785085032000; /* 2026-07-26 16:57:12 UTC */
    struct timespec ts[2] = {{.tv_sec = then / 1000}, {.tv_sec = then / 1000}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    gp_import_request rq = {.kind = GP_CAPTURE_PROM, .file = path, .node = "saved"};
    gp_import_result r;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_import_capture(&f->ses, &rq, &r, &err), GP_OK);
    assert_int_equal(r.time, GP_TIME_MTIME);
    assert_true(r.samples > 0);
    assert_int_equal(r.undated, r.samples);
    assert_true(r.dated_ms == then && r.first_ms == then && r.last_ms == then);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT min(x.ts_ms), max(x.ts_ms), n.last_success_ms "
                                        "FROM sample x JOIN series s ON s.id = x.series_id "
                                        "JOIN node n ON n.id = s.node_id WHERE n.name = 'saved'",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_true(sqlite3_column_int64(q, 0) == then && sqlite3_column_int64(q, 1) == then &&
                sqlite3_column_int64(q, 2) == then);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

/* Importing into a node that exists (a cron job feeding one node) stores every time. */
static void imports_into_an_existing_node(void **state) {
    fixture *f = *state;
    for (int i = 0; i < 3; i++)
        import_capture(f, "p5");
}

/* The capture's eight idle H100s: figures, groups and attribution by pod. */
static void analyses_capacity(void **state) {
    fixture *f = *state;
    import_capture(f, "p5");
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.since_ms = 86400000;
    q.by = "pod";
    q.has_price = true;
    q.price = 0.1;
    gp_capacity c;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_capacity_analyse(&f->ses, &q, gp_now_ms() + 1000, &c, &err), GP_OK);
    assert_int_equal(c.gpus, 8);
    assert_int_equal(c.n, 8);
    assert_int_equal(c.nn, 1);
    assert_string_equal(c.nodes[0].key, "p5");
    assert_int_equal(c.nm, 1);
    assert_int_equal(c.nl, 1); /* one complete 5-minute bucket */
    assert_close(c.fleet_f.util_mean, 0, REL);
    /* An all-idle fleet reads 0 % at every percentile, not the middle of the first bin. */
    assert_close(c.fleet_f.util_p50, 0, REL);
    assert_close(c.fleet_f.util_p95, 0, REL);
    assert_close(c.fleet_f.util_p99, 0, REL);
    /* The fleet's P95 W: seven GPUs near 67 W and one at 115.22 W, binned to 10 W above. */
    assert_true(c.fleet_f.has_power_p95);
    assert_close(c.fleet_f.power_p95_w, 120, REL);
    double watts = (67.268 + 67.616 + 66.477 + 69.523 + 66.297 + 66.324 + 115.22 + 69.424) / 8;
    assert_close(c.fleet_f.power_mean_w, watts, REL);
    int idle = 0;
    for (size_t i = 0; i < c.n; i++)
        idle += c.rows[i].f.idle;
    assert_int_equal(idle, 8);
    /* Attribution: GPU 6 runs the pod; the other seven have no pod label. */
    assert_int_equal(c.nu, 2);
    bool pod = false, none = false;
    for (size_t i = 0; i < c.nu; i++) {
        if (c.usage[i].value) {
            pod = !strcmp(c.usage[i].value, "vllm-agg-0-vllmdecodeworker-5fljt");
            assert_close(c.usage[i].power_sum, 115.22, REL);
        } else {
            none = true;
        }
    }
    assert_true(pod && none);
    gp_capacity_done(&c);
}

/* An empty selection is an answer (no GPUs), never an error. */
static void analyses_an_empty_selection(void **state) {
    fixture *f = *state;
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.nodes[q.n_nodes++] = "typo";
    gp_capacity c;
    gp_err err;
    assert_int_equal(gp_capacity_analyse(&f->ses, &q, gp_now_ms(), &c, &err), GP_OK);
    assert_int_equal(c.n, 0);
    assert_int_equal(c.nl, 0);
    assert_int_equal(c.empty, c.window);
    gp_capacity_done(&c);
}

/* The bundled demo scenario, stored under its own name as `scenario save` does. */
static void save_reference_scenario(fixture *f) {
    char *text = test_slurp("scenarios/demo-dgx-a100.json", &(size_t){0});
    assert_non_null(text);
    gp_store *st;
    gp_err err;
    int version;
    assert_int_equal(gp_session_store(&f->ses, &st, &err), GP_OK);
    assert_int_equal(gp_store_scenario_save(st, DEMO, text, &version, &err), GP_OK);
    free(text);
}

/* plan --mix: an unknown option and a window without load are the user's input to fix. */
static void plans_a_mix_or_says_why_not(void **state) {
    fixture *f = *state;
    save_reference_scenario(f);
    gp_cap_query q;
    gp_cap_query_init(&q);
    gp_mix_request rq = {.scenario = DEMO, .option = "nope", .target = 0.7};
    gp_mix_plan p;
    gp_err err;
    assert_int_equal(gp_plan_mix(&f->ses, &q, &rq, gp_now_ms(), &p, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "no option \"nope\""));
    gp_mix_plan_done(&p);
    rq.option = "p4d on-demand";
    assert_int_equal(gp_plan_mix(&f->ses, &q, &rq, gp_now_ms(), &p, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "no complete 5-minute buckets"));
    gp_mix_plan_done(&p);

    import_capture(f, "p5");
    assert_int_equal(gp_plan_mix(&f->ses, &q, &rq, gp_now_ms() + 1000, &p, &err), GP_OK);
    assert_int_equal(p.buckets, 1);
    assert_int_equal(p.units, 8);
    assert_int_equal(p.best, 0); /* nothing busy: owning any GPU only costs */
    for (int k = 1; k <= p.n; k++)
        assert_true(p.curve[k] >= p.curve[k - 1]);
    gp_mix_plan_done(&p);

    /* A trend from one day is no trend: reported, not projected, unless forced. */
    rq.has_growth = rq.trend = true;
    assert_int_equal(gp_plan_mix(&f->ses, &q, &rq, gp_now_ms() + 1000, &p, &err), GP_OK);
    assert_true(p.has_growth && !p.projected);
    assert_int_equal(p.measured_gpus, 8);
    assert_int_equal(p.n_models, 1);
    assert_int_equal(p.models[0].gpus, 8);
    gp_mix_plan_done(&p);
    rq.force_trend = true;
    assert_int_equal(gp_plan_mix(&f->ses, &q, &rq, gp_now_ms() + 1000, &p, &err), GP_OK);
    assert_true(p.projected);
    gp_mix_plan_done(&p);
}

/* scenario measure writes the window's demand and power into a new version. */
static void measures_a_stored_scenario(void **state) {
    fixture *f = *state;
    save_reference_scenario(f);
    gp_cap_query q;
    gp_cap_query_init(&q);
    gp_measured m;
    gp_err err;
    assert_int_equal(
        gp_scenario_measure(&f->ses, DEMO, &q, &(gp_measure_request){0}, gp_now_ms(), &m, &err),
        GP_E_INPUT);
    import_capture(f, "p5");
    assert_int_equal(gp_scenario_measure(&f->ses, DEMO, &q, &(gp_measure_request){0},
                                         gp_now_ms() + 1000, &m, &err),
                     GP_OK);
    assert_int_equal(m.version, 2);
    assert_int_equal(m.gpus, 8);
    assert_close(m.busy_share, 0, REL);
    gp_loaded sc;
    assert_int_equal(gp_load_scenario(&f->ses, DEMO, 0, f->ses.today, &sc, &err), GP_OK);
    assert_int_equal(sc.version, 2);
    assert_int_equal(sc.s->gpus, 8);
    assert_non_null(cJSON_GetObjectItem(sc.tree, "measured"));
    /* Written at the precision it means: watts to 0.01 W, not 69.9999999999993. */
    cJSON *pw = cJSON_GetObjectItem(cJSON_GetObjectItem(sc.tree, "self_hosted"), "power");
    double idle_w = cJSON_GetObjectItem(pw, "gpu_idle_w")->valuedouble;
    assert_true(fabs(idle_w * 100 - round(idle_w * 100)) < 1e-6);
    assert_close(idle_w,
                 (67.268 + 67.616 + 66.477 + 69.523 + 66.297 + 66.324 + 115.22 + 69.424) / 8, 1e-4);
    gp_loaded_done(&sc);
}

/* A scenario plans one GPU model: on a mixed fleet (8 H100 and a T4) measure is refused,
 * naming the models, until --gpu picks one; then only that model's GPUs are measured. */
static void measures_one_model_of_a_mixed_fleet(void **state) {
    fixture *f = *state;
    save_reference_scenario(f);
    import_capture(f, "p5");
    char path[1024];
    fresh_copy(f,
               "tests/fixtures/telemetry/dcgm_exporter/"
               "datadog-integrations-core__dcgm_fixture__TeslaT4__drv460.106.00__first48lines.prom",
               "t4.prom", path, sizeof path);
    gp_import_request ir = {.kind = GP_CAPTURE_PROM, .file = path, .node = "t4"};
    gp_import_result r;
    gp_err err;
    gp_err_clear(&err);
    assert_int_equal(gp_import_capture(&f->ses, &ir, &r, &err), GP_OK);
    gp_cap_query q;
    gp_cap_query_init(&q);
    gp_measured m;
    int64_t now = gp_now_ms() + 1000;
    assert_int_equal(
        gp_scenario_measure(&f->ses, DEMO, &q, &(gp_measure_request){0}, now, &m, &err),
        GP_E_INPUT);
    assert_non_null(strstr(err.msg, "2 GPU models (8 H100 SXM 80GB, 1 T4)"));
    assert_non_null(strstr(err.msg, "--gpu"));
    gp_loaded sc;
    assert_int_equal(gp_load_scenario(&f->ses, DEMO, 0, f->ses.today, &sc, &err), GP_OK);
    assert_int_equal(sc.version, 1); /* nothing saved */
    gp_loaded_done(&sc);
    q.has_gpu = true;
    snprintf(q.gpu, sizeof q.gpu, "T4");
    assert_int_equal(
        gp_scenario_measure(&f->ses, DEMO, &q, &(gp_measure_request){0}, now, &m, &err), GP_OK);
    assert_int_equal(m.gpus, 1);
    assert_true(m.has_idle_w);
    assert_close(m.idle_w, 8.969, 1e-9);
}

/* The demo fleet carries workload labels: its month splits by namespace, the unused GPU
 * (demo-dev-01's GPU 7) is the only "(no label)", and the values' GPU-hours add up to the
 * fleet's. */
static void demo_fleet_splits_by_namespace(void **state) {
    fixture *f = *state;
    gp_err err;
    assert_int_equal(gp_demo_fleet(&f->ses, &err), GP_OK);
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.by = "namespace";
    gp_capacity c;
    assert_int_equal(gp_capacity_analyse(&f->ses, &q, gp_now_ms() + 1000, &c, &err), GP_OK);
    assert_int_equal(c.gpus, 24);
    const char *want[] = {"llm-train", "research", "inference", "dev", NULL};
    double buckets = 0;
    for (int i = 0; i < 5; i++) {
        bool found = false;
        for (size_t k = 0; k < c.nu; k++)
            if (want[i] ? c.usage[k].value && !strcmp(c.usage[k].value, want[i])
                        : !c.usage[k].value) {
                found = true;
                assert_true(want[i] ? c.usage[k].util_sum > 0 : c.usage[k].util_sum == 0);
            }
        assert_true(found);
    }
    assert_int_equal(c.nu, 5);
    for (size_t k = 0; k < c.nu; k++)
        buckets += c.usage[k].buckets;
    assert_close(buckets, (double)c.fleet.buckets, 1e-12);
    gp_capacity_done(&c);
}

/* gp_capacity_each's rows, copied as they come (their strings are borrowed). */
typedef struct each_rows {
    gp_cap_row r[64];
    size_t n;
    bool priced; /* c held the prices while the rows came */
} each_rows;

static void take_each(const gp_capacity *c, const gp_cap_row *r, void *arg) {
    each_rows *x = arg;
    assert_true(x->n < 64);
    x->priced = c->has_allin && c->allin_per_gpu_hour == 2.5 && c->has_price;
    x->r[x->n++] = *r;
}

/* The exporter's walk gives, row by row and group by group, the very doubles the whole
 * analysis gives, without keeping the rows; all-in prices known with or without --by. */
static void capacity_each_is_the_analysis(void **state) {
    fixture *f = *state;
    gp_err err;
    assert_int_equal(gp_demo_fleet(&f->ses, &err), GP_OK);
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.by = "namespace";
    q.has_price = true;
    q.price = 0.12;
    q.has_allin = true;
    q.allin_per_gpu_hour = 2.5;
    int64_t now = gp_now_ms() + 1000;
    gp_capacity a, b;
    each_rows *x = calloc(1, sizeof *x);
    assert_int_equal(gp_capacity_analyse(&f->ses, &q, now, &a, &err), GP_OK);
    assert_int_equal(gp_capacity_each(&f->ses, &q, now, take_each, x, &b, &err), GP_OK);
    assert_true(x->priced);
    assert_null(b.rows);
    assert_int_equal(b.n, a.n);
    assert_int_equal(x->n, a.n);
    assert_int_equal(b.gpus, a.gpus);
    for (size_t i = 0; i < a.n; i++) {
        const gp_cap_row *r = &a.rows[i], *e = &x->r[i];
        assert_string_equal(e->node, r->node);
        assert_string_equal(e->uuid, r->uuid);
        assert_string_equal(e->mig, r->mig);
        assert_int_equal(e->g.index, r->g.index);
        assert_int_equal(e->g.buckets, r->g.buckets);
        assert_true(e->g.util_sum == r->g.util_sum);
        assert_true(e->g.power_sum == r->g.power_sum);
        assert_true(e->g.busy_power_sum == r->g.busy_power_sum);
        assert_true(e->f.busy_share == r->f.busy_share);
        assert_memory_equal(e->g.hist, r->g.hist, sizeof r->g.hist);
        assert_false(e->g.has_mem || e->g.has_power_p95); /* the sums only */
    }
    assert_int_equal(b.nn, a.nn);
    for (size_t i = 0; i < a.nn; i++) {
        assert_string_equal(b.nodes[i].key, a.nodes[i].key);
        assert_int_equal(b.nodes[i].gpus, a.nodes[i].gpus);
        assert_true(b.nodes[i].f.busy_share == a.nodes[i].f.busy_share);
        assert_true(b.nodes[i].sum.power_sum == a.nodes[i].sum.power_sum);
    }
    assert_true(b.fleet_f.busy_share == a.fleet_f.busy_share);
    assert_true(b.fleet.busy_power_sum == a.fleet.busy_power_sum);
    assert_int_equal(b.nu, a.nu);
    for (size_t i = 0; i < a.nu; i++)
        assert_true(b.usage[i].allin == a.usage[i].allin);
    assert_true(b.allin_fleet == a.allin_fleet && b.allin_idle == a.allin_idle);
    assert_true(a.allin_fleet > 0);
    gp_capacity_done(&b);
    /* Without --by: no chargeback, the all-in price still there for the rows. */
    q.by = NULL;
    x->n = 0;
    assert_int_equal(gp_capacity_each(&f->ses, &q, now, take_each, x, &b, &err), GP_OK);
    assert_true(x->priced);
    assert_int_equal(b.nu, 0);
    assert_int_equal(x->n, a.n);
    gp_capacity_done(&b);
    gp_capacity_done(&a);
    free(x);
}

/* Per option, every row is ranked or quiet; ranked rows come largest swing first. */
static void ranks_sensitivity_per_option(void **state) {
    fixture *f = *state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/examples/seed-dgx-a100.json",
             getenv("GP_SOURCE_ROOT"));
    gp_err err;
    gp_err_clear(&err);
    gp_sens_analysis a;
    assert_int_equal(gp_sensitivity_analyze(&f->ses, path, "2026-01-01", 0.2, NULL, 0, &a, &err),
                     GP_OK);
    const gp_sensitivity *t = a.table;
    assert_true(a.sc.s->n_options > 0);
    assert_true(t->delta == 0.2);
    for (int i = 0; i < a.sc.s->n_options; i++) {
        const gp_sens_ranking *r = &a.ranks[i];
        assert_int_equal(r->n + r->quiet, t->n_rows);
        assert_true(r->n > 0);
        for (int j = 0; j + 1 < r->n; j++) {
            const gp_sens_row *row = &t->rows[r->order[j]], *next = &t->rows[r->order[j + 1]];
            assert_true(fabs(row->delta_high[i] - row->delta_low[i]) >=
                        fabs(next->delta_high[i] - next->delta_low[i]));
        }
    }
    gp_sens_analysis_done(&a);
    gp_sens_analysis_done(&a); /* safe twice */
    assert_int_equal(gp_sensitivity_analyze(&f->ses, path, "2026-01-01", 1.5, NULL, 0, &a, &err),
                     GP_E_INPUT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(resolves_catalog_references, setup, teardown),
        cmocka_unit_test_setup_teardown(read_only_session_reports_other_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(checks_the_bundle_once_a_store_open, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_stored_scenario_is_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(drafts_from_the_catalog, setup, teardown),
        cmocka_unit_test_setup_teardown(dates_a_scrape_by_its_mtime, setup, teardown),
        cmocka_unit_test_setup_teardown(api_price_in_force, setup, teardown),
        cmocka_unit_test_setup_teardown(imports_into_an_existing_node, setup, teardown),
        cmocka_unit_test_setup_teardown(analyses_capacity, setup, teardown),
        cmocka_unit_test_setup_teardown(analyses_an_empty_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(plans_a_mix_or_says_why_not, setup, teardown),
        cmocka_unit_test_setup_teardown(measures_a_stored_scenario, setup, teardown),
        cmocka_unit_test_setup_teardown(measures_one_model_of_a_mixed_fleet, setup, teardown),
        cmocka_unit_test_setup_teardown(demo_fleet_splits_by_namespace, setup, teardown),
        cmocka_unit_test_setup_teardown(capacity_each_is_the_analysis, setup, teardown),
        cmocka_unit_test_setup_teardown(ranks_sensitivity_per_option, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
