/* MIG instances rolled up to their GPU (src/formats/mig.c) and the workload labels the import
 * keeps (prom_range.c's parser): a profile's slices, an imported batch's instances weighted per
 * bucket. The samples' rollup is in test_telemetry.c, beside the dcgm parser. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/prom_range.h"
#include "gpuplan/samples.h"
#include "testutil.h"

/* One aggregate's series of a query_range answer: "sum" of a GPU with extra labels. */
#define SERIES(AGG, EXTRA, VALUES)                                                                 \
    "{\"metric\":{\"gpuplan_agg\":\"" AGG "\",\"UUID\":\"G\",\"gpu\":\"0\",\"Hostname\":\"h\","    \
    "\"modelName\":\"NVIDIA H100 80GB HBM3\"" EXTRA "},\"values\":[" VALUES "]}"
#define ANSWER(...)                                                                                \
    "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[" __VA_ARGS__ "]}}"

/* A MIG GPU's instances (dcgm-exporter's labels, workload labels on each) roll up to the GPU:
 * one row a bucket, the instances' means weighted by their slices (3 and 4 of 7); the
 * instances keep their rows, each with its pod's labels; an instance's two label sets in one
 * bucket count once, at their mean. */
static void test_mig_rollup_and_labels(void **state) {
    (void)state;
#define GI1                                                                                        \
    ",\"GPU_I_ID\":\"1\",\"GPU_I_PROFILE\":\"3g.40gb\",\"namespace\":\"a\",\"pod\":\"p1\","        \
    "\"job\":\"dcgm\""
#define GI1B ",\"GPU_I_ID\":\"1\",\"GPU_I_PROFILE\":\"3g.40gb\",\"namespace\":\"b\",\"pod\":\"p9\""
#define GI2 ",\"GPU_I_ID\":\"2\",\"GPU_I_PROFILE\":\"4g.40gb\",\"slurm_job_id\":\"77\""
    static const char doc[] = ANSWER(
        SERIES("n", GI1, "[600,\"2\"]") "," SERIES("sum", GI1, "[600,\"1.6\"]") "," SERIES("min", GI1, "[600,\"0.8\"]") "," SERIES("max", GI1, "[600,\"0.8\"]") "," SERIES("n", GI1B, "[600,\"1\"]") "," SERIES(
            "sum", GI1B,
            "[600,\"0.2\"]") "," SERIES("min", GI1B,
                                        "[600,\"0.2\"]") "," SERIES("max", GI1B,
                                                                    "[600"
                                                                    ",\"0"
                                                                    ".2\""
                                                                    "]") "," SERIES("n", GI2,
                                                                                    "[6"
                                                                                    "00"
                                                                                    ","
                                                                                    "\""
                                                                                    "3"
                                                                                    "\""
                                                                                    "],"
                                                                                    "[9"
                                                                                    "00"
                                                                                    ","
                                                                                    "\""
                                                                                    "3"
                                                                                    "\""
                                                                                    "]") "," SERIES("sum",
                                                                                                    GI2,
                                                                                                    "[600,\"1.5\"],[900,\"3\"]") "," SERIES("min",
                                                                                                                                            GI2,
                                                                                                                                            "[600,\"0.5\"],[900,\"1\"]") "," SERIES("max",
                                                                                                                                                                                    GI2,
                                                                                                                                                                                    "[600,\"0.5\"],[900,\"1\"]"));
    gp_rollups b;
    gp_err err;
    gp_rollups_init(&b, 1000);
    assert_int_equal(
        gp_promrange_parse(doc, strlen(doc), "d", 200, GP_M_GPU_UTIL, 100, 300000, &b, &err),
        GP_OK);
    gp_rollups_finish(&b);
    assert_int_equal(b.n, 4); /* GI 1 twice (two label sets), GI 2 in two buckets */
    assert_int_equal(b.gpus.n_labels, 3);
    bool seen_a = false, seen_job = false;
    for (size_t i = 0; i < b.gpus.n_labels; i++) {
        seen_a |= !strcmp(b.gpus.label_sets[i], "{\"namespace\":\"a\",\"pod\":\"p1\"}");
        seen_job |= !strcmp(b.gpus.label_sets[i], "{\"slurm_job_id\":\"77\"}");
    }
    assert_true(seen_a);   /* the scrape's own job is no workload label */
    assert_true(seen_job); /* a label naming a job is */
    assert_int_equal(gp_rollups_mig_rollup(&b, &err), GP_OK);
    assert_int_equal(b.n, 6);
    int parent = -1;
    for (size_t i = 0; i < b.gpus.n_gpus; i++)
        if (!b.gpus.gpus[i].mig[0])
            parent = (int)i;
    assert_true(parent >= 0);
    assert_int_equal(b.gpus.gpus[parent].label_set, 0);
    assert_string_equal(b.gpus.gpus[parent].host, "h");
    assert_string_equal(b.gpus.gpus[parent].model, "H100");
    int found = 0;
    for (size_t i = 0; i < b.n; i++) {
        const gp_rollup *r = &b.r[i];
        if (r->gpu != parent)
            continue;
        found++;
        assert_int_equal(r->n, 1);
        if (r->bucket_ms == 300000) /* GI 1: (160 + 20) / 3 = 60 % at 3/7; GI 2: 50 % at 4/7 */
            assert_close(r->sum, 3.0 / 7 * 60 + 4.0 / 7 * 50, REL);
        else /* GI 1 did not report: its slices idle */
            assert_close(r->sum, 4.0 / 7 * 100, REL);
    }
    assert_int_equal(found, 2);
    gp_rollups_done(&b);
}

/* Two instances of one GPU whose series carry their own times (Prometheus /federate): one
 * rolled-up sample per fetch holding both shares, at the first instance's time; a saved
 * scrape's second fetch gets its own. */
static void test_mig_rollup_per_fetch(void **state) {
    (void)state;
    static const char doc[] = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",modelName="
                              "\"NVIDIA H100 80GB HBM3\","
                              "GPU_I_ID=\"1\",GPU_I_PROFILE=\"3g.40gb\"} 0.8 1000\n"
                              "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",modelName="
                              "\"NVIDIA H100 80GB HBM3\","
                              "GPU_I_ID=\"2\",GPU_I_PROFILE=\"4g.40gb\"} 0.5 1005\n"
                              "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",modelName="
                              "\"NVIDIA H100 80GB HBM3\","
                              "GPU_I_ID=\"1\",GPU_I_PROFILE=\"3g.40gb\"} 0.4 2000\n"
                              "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",modelName="
                              "\"NVIDIA H100 80GB HBM3\","
                              "GPU_I_ID=\"2\",GPU_I_PROFILE=\"4g.40gb\"} 1 2004\n";
    gp_samples s;
    gp_err err;
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dcgm_parse(doc, sizeof doc - 1, "fed.prom", &s, &err), GP_OK);
    size_t before = s.n;
    gp_samples_mig_rollup(&s);
    assert_int_equal(s.n, before + 2);
    for (size_t i = before; i < s.n; i++) {
        const gp_sample *x = &s.s[i];
        assert_string_equal(s.gpus[x->gpu].uuid, "GPU-1");
        assert_string_equal(s.gpus[x->gpu].mig, "");
        assert_int_equal(x->metric, GP_M_GPU_UTIL);
        if (x->ts_ms == 1000)
            assert_close(x->value, 3.0 / 7 * 80 + 4.0 / 7 * 50, REL);
        else if (x->ts_ms == 2000)
            assert_close(x->value, 3.0 / 7 * 40 + 4.0 / 7 * 100, REL);
        else
            fail_msg("a rolled-up sample at %lld", (long long)x->ts_ms);
    }
    assert_true(s.s[before].ts_ms != s.s[before + 1].ts_ms);
    gp_samples_done(&s);
}

/* A profile's compute slices of the GPU's. */
static void test_mig_weight(void **state) {
    (void)state;
    assert_close(gp_mig_weight("GI 1 3g.40gb", "H100"), 3.0 / 7, REL);
    assert_close(gp_mig_weight("GI 7 1g.10gb", "A100-80GB"), 1.0 / 7, REL);
    assert_close(gp_mig_weight("GI 1 7g.80gb", "H100"), 1.0, REL);
    assert_close(gp_mig_weight("GI 2 1g.12gb+me", "H100"), 1.0 / 7, REL);
    assert_close(gp_mig_weight("GI 3 1c.3g.40gb", "H100"), 3.0 / 7, REL);
    assert_close(gp_mig_weight("GI 1 2g.12gb", "A30"), 2.0 / 4, REL);
    assert_close(gp_mig_weight("GI 1", "H100"), 1.0 / 7, REL); /* no profile: one slice */
    assert_close(gp_mig_weight("GI 1 9g.99gb", "H100"), 1.0, REL);
    assert_close(gp_mig_weight("", "H100"), 1.0, REL);
    assert_close(gp_mig_weight(NULL, NULL), 1.0, REL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mig_rollup_and_labels),
        cmocka_unit_test(test_mig_rollup_per_fetch),
        cmocka_unit_test(test_mig_weight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
