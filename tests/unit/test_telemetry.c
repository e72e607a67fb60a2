/* Telemetry parsers on the real captures (tests/fixtures/telemetry) and on the edge cases the
 * captures document: blanks, MIG, escapes, CRLF, timestamps, placeholders, API errors. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"
#include "testutil.h"

static char *slurp(const char *rel, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", "tests/fixtures/telemetry/", rel);
    return test_slurp(path, len);
}

static const gp_sample *find(const gp_samples *s, int gpu_index, const char *mig, gp_metric m) {
    for (size_t i = 0; i < s->n; i++) {
        const gp_gpu_ref *g = &s->gpus[s->s[i].gpu >= 0 ? s->s[i].gpu : 0];
        if (s->s[i].gpu >= 0 && g->index == gpu_index && !strcmp(g->mig, mig) &&
            s->s[i].metric == m)
            return &s->s[i];
    }
    return NULL;
}

static void test_dcgm_captures(void **state) {
    (void)state;
    size_t len;
    gp_samples s;
    gp_err err;
    char *buf = slurp(
        "dcgm_exporter/aicr__eks_p5_8xH100-80GB-HBM3__drv580.105.08__2026-03-10__grep-sampled.prom",
        &len);
    gp_samples_init(&s, 10000);
    assert_int_equal(gp_dcgm_parse(buf, len, "p5.prom", &s, &err), GP_OK);
    free(buf);
    assert_int_equal(s.n_gpus, 8);
    assert_string_equal(s.gpus[0].model, "H100");
    assert_string_equal(s.gpus[0].host, "ip-10-0-171-111.ec2.internal");
    const gp_sample *x = find(&s, 0, "", GP_M_TEMP_C);
    assert_non_null(x);
    assert_close(x->value, 30, REL);
    /* GPU 0 runs a pod: its workload labels come along; pod_uid="" is empty and dropped. */
    assert_true(x->labels >= 0);
    assert_string_equal(s.label_sets[x->labels],
                        "{\"container\":\"main\",\"namespace\":\"dynamo-workload\","
                        "\"pod\":\"vllm-agg-0-vllmdecodeworker-s65j5\"}");
    assert_int_equal(find(&s, 1, "", GP_M_TEMP_C)->labels, -1);
    gp_samples_done(&s);

    buf =
        slurp("dcgm_exporter/"
              "datadog-integrations-core__dcgm_fixture__TeslaT4__drv460.106.00__first48lines.prom",
              &len);
    gp_samples_init(&s, 10000);
    assert_int_equal(gp_dcgm_parse(buf, len, "t4.prom", &s, &err), GP_OK);
    free(buf);
    assert_int_equal(s.n_gpus, 1);
    assert_string_equal(s.gpus[0].model, "T4");
    assert_close(find(&s, 0, "", GP_M_POWER_W)->value, 8.969, REL);       /* %f-style "8.969000" */
    assert_close(find(&s, 0, "", GP_M_ENERGY_J)->value, 128996.013, REL); /* mJ -> J */
    /* Total memory is used + free (+ reserved). */
    const gp_sample *total = find(&s, 0, "", GP_M_MEM_TOTAL_MIB);
    assert_non_null(total);
    assert_true(total->value > 15000);
    gp_samples_done(&s);
}

static void test_dcgm_edge_cases(void **state) {
    (void)state;
    /* The README's form: spaces after commas, a DCGM int64 blank; plus CRLF, escapes, an
     * exponent, a timestamp, NaN, and the fp64 blank. */
    const char *text =
        "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\r\n"
        "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\r\n"
        "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\", UUID=\"GPU-604ac76c\", hostname=\"new-label\"} 139\r\n"
        "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\", UUID=\"GPU-604ac76c\"} 9223372036854775794\r\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\", UUID=\"GPU-604ac76c\"} 9223372036854775794\r\n"
        "DCGM_FI_DEV_POWER_USAGE{UUID=\"GPU-604ac76c\",gpu=\"0\",modelName=\"NVIDIA "
        "\\\"A\\\\B\\\"\"} "
        "2.5e2 1700000000000\r\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-604ac76c\"} NaN\r\n"
        "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-604ac76c\"} 140737488355328\r\n"
        "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-604ac76c\",} 100\r\n";
    gp_samples s;
    gp_err err;
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dcgm_parse(text, strlen(text), "x.prom", &s, &err), GP_OK);
    assert_close(find(&s, 0, "", GP_M_SM_CLOCK_MHZ)->value, 139, REL);
    const gp_sample *p = find(&s, 0, "", GP_M_POWER_W);
    assert_close(p->value, 250, REL);
    assert_int_equal(p->ts_ms, 1700000000000LL);
    assert_string_equal(s.gpus[0].raw_model, "NVIDIA \"A\\B\"");
    assert_string_equal(s.gpus[0].host, "new-label");
    assert_null(find(&s, 0, "", GP_M_TEMP_C));        /* int64 blank */
    assert_null(find(&s, 0, "", GP_M_GPU_UTIL));      /* NaN */
    assert_null(find(&s, 0, "", GP_M_MEM_USED_MIB));  /* fp64 blank */
    assert_null(find(&s, 0, "", GP_M_MEM_TOTAL_MIB)); /* no used: no total */
    assert_int_equal(s.blanks, 3);
    gp_samples_done(&s);

    const char *bad[] = {"DCGM_FI_DEV_GPU_TEMP{gpu=\"0\" 30\n",
                         "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} abc\n", "DCGM_FI_DEV_GPU_TEMP 0x1F\n",
                         "9metric 1\n", "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 1 2 3\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gp_samples_init(&s, 1000);
        assert_int_equal(gp_dcgm_parse(bad[i], strlen(bad[i]), "bad.prom", &s, &err), GP_E_INPUT);
        assert_string_equal(err.where, "bad.prom:1");
        gp_samples_done(&s);
    }
}

static void test_dcgm_mig(void **state) {
    (void)state;
    /* Two MIG instances of one H100: device power repeated on both; no GPU_UTIL, so the
     * graphics engine's active ratio is the utilization; pods differ per instance. */
    const char *text = "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"1\",GPU_I_"
                       "PROFILE=\"3g.40gb\",pod=\"a\"} 300\n"
                       "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"2\",GPU_I_"
                       "PROFILE=\"3g.40gb\",pod=\"b\"} 300\n"
                       "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"1\",GPU_"
                       "I_PROFILE=\"3g.40gb\",pod=\"a\"} 0.75\n"
                       "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"2\",GPU_"
                       "I_PROFILE=\"3g.40gb\",pod=\"b\"} 0.25\n";
    gp_samples s;
    gp_err err;
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dcgm_parse(text, strlen(text), "mig.prom", &s, &err), GP_OK);
    int power = 0;
    for (size_t i = 0; i < s.n; i++)
        power += s.s[i].metric == GP_M_POWER_W;
    assert_int_equal(power, 1); /* once per physical GPU */
    assert_close(find(&s, 0, "", GP_M_POWER_W)->value, 300, REL);
    assert_close(find(&s, 0, "GI 1 3g.40gb", GP_M_GPU_UTIL)->value, 75, REL);
    assert_close(find(&s, 0, "GI 2 3g.40gb", GP_M_GPU_UTIL)->value, 25, REL);
    assert_int_equal(s.duplicates, 1);
    /* Rolled up to the physical GPU: 3/7 x 75 + 3/7 x 25 (the seventh slice unused, idle),
     * unlabelled; the instances keep theirs. */
    assert_null(find(&s, 0, "", GP_M_GPU_UTIL));
    size_t before = s.n;
    gp_samples_mig_rollup(&s);
    assert_int_equal(s.n, before + 1);
    const gp_sample *up = find(&s, 0, "", GP_M_GPU_UTIL);
    assert_non_null(up);
    assert_close(up->value, 3.0 / 7 * 75 + 3.0 / 7 * 25, REL);
    assert_int_equal(up->labels, -1);
    gp_samples_mig_rollup(&s); /* the GPU has its utilization now: nothing more */
    assert_int_equal(s.n, before + 1);
    gp_samples_done(&s);
    /* A saved scrape of several times: a rolled-up sample per time; a GPU that reports its
     * own GPU_UTIL keeps it. */
    const char *two = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"1\",GPU_"
                      "I_PROFILE=\"1g.10gb\"} 0.7 1000\n"
                      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-1\",GPU_I_ID=\"1\",GPU_"
                      "I_PROFILE=\"1g.10gb\"} 0.35 2000\n"
                      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-2\"} 40 1000\n"
                      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\",UUID=\"GPU-2\"} 0.9 1000\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dcgm_parse(two, strlen(two), "two.prom", &s, &err), GP_OK);
    before = s.n;
    gp_samples_mig_rollup(&s);
    assert_int_equal(s.n, before + 2);
    double at[2] = {0};
    for (size_t i = before; i < s.n; i++) {
        assert_string_equal(s.gpus[s.s[i].gpu].uuid, "GPU-1");
        at[s.s[i].ts_ms == 2000] = s.s[i].value;
    }
    assert_close(at[0], 10, REL);
    assert_close(at[1], 5, REL);
    gp_samples_done(&s);
}

static void test_prometheus_api(void **state) {
    (void)state;
    size_t len;
    gp_samples s;
    gp_err err;
    char *buf =
        slurp("prometheus_api/"
              "aicr__api_v1_query__DCGM_FI_DEV_GPU_UTIL__vector__2nodes_16xH100__2026-03-10.json",
              &len);
    gp_samples_init(&s, 10000);
    assert_int_equal(gp_promapi_parse(buf, len, "q", 200, GP_M_GPU_UTIL, 1, &s, &err), GP_OK);
    free(buf);
    assert_int_equal(s.n, 16);
    assert_int_equal(s.n_gpus, 16); /* two hosts of 8 */
    gp_samples_done(&s);

    buf = slurp(
        "prometheus_api/local-prom2.42__query_range__DCGM_FI_DEV_POWER_USAGE_gpu0-1__matrix.json",
        &len);
    gp_samples_init(&s, 10000);
    assert_int_equal(gp_promapi_parse(buf, len, "r", 200, GP_M_POWER_W, 1, &s, &err), GP_OK);
    free(buf);
    assert_int_equal(s.n_gpus, 2);
    assert_int_equal(s.n, 14);
    assert_int_equal(s.s[0].ts_ms, 1795352442000LL);
    assert_close(s.s[0].value, 68.347, REL);
    gp_samples_done(&s);

    static const char *const blanks[] = {"local-prom2.42__query__scalar-NaN.json",
                                         "local-prom2.42__query__vector-plusInf-minusInf.json",
                                         "local-prom2.42__query__empty-vector.json"};
    for (int i = 0; i < 3; i++) {
        char rel[200];
        snprintf(rel, sizeof rel, "prometheus_api/%s", blanks[i]);
        buf = slurp(rel, &len);
        gp_samples_init(&s, 100);
        assert_int_equal(gp_promapi_parse(buf, len, "b", 200, GP_M_POWER_W, 1, &s, &err), GP_OK);
        assert_int_equal(s.n, 0);
        gp_samples_done(&s);
        free(buf);
    }
    /* Issue 25: -1e300 and 3e300 are no readings either (beyond +-2^47), counted as blanks. */
    static const char huge[] =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        "{\"metric\":{\"UUID\":\"G\",\"gpu\":\"0\"},\"value\":[1,\"-1e300\"]},"
        "{\"metric\":{\"UUID\":\"H\",\"gpu\":\"1\"},\"value\":[1,\"3e300\"]},"
        "{\"metric\":{\"UUID\":\"I\",\"gpu\":\"2\"},\"value\":[1,\"-40\"]}]}}";
    gp_samples_init(&s, 100);
    assert_int_equal(gp_promapi_parse(huge, strlen(huge), "h", 200, GP_M_TEMP_C, 1, &s, &err),
                     GP_OK);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.blanks, 2);
    gp_samples_done(&s);
    buf = slurp("prometheus_api/local-prom2.42__query__many-to-many__422-execution.json", &len);
    gp_samples_init(&s, 100);
    assert_int_equal(gp_promapi_parse(buf, len, "e", 422, GP_M_POWER_W, 1, &s, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "HTTP 422, execution"));
    gp_samples_done(&s);
    free(buf);
    buf = slurp("prometheus_api/local-prom2.42__query__parse-error__400-bad_data.json", &len);
    gp_samples_init(&s, 100);
    assert_int_equal(gp_promapi_parse(buf, len, "e", 400, GP_M_POWER_W, 1, &s, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "bad_data"));
    gp_samples_done(&s);
    free(buf);
}

static void test_nvsmi(void **state) {
    (void)state;
    size_t len;
    gp_samples s;
    gp_err err;
    char *buf = slurp(
        "nvidia_smi_csv/nvgpuexp__H100-80GB-HBM3__drv590.48.01__load__query-gpu-212fields.csv",
        &len);
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(buf, len, "h100.csv", NULL, "box", &s, &err), GP_OK);
    free(buf);
    assert_int_equal(s.n_gpus, 1);
    assert_string_equal(s.gpus[0].model, "H100");
    assert_close(find(&s, 0, "", GP_M_GPU_UTIL)->value, 100, REL);
    assert_close(find(&s, 0, "", GP_M_MEM_USED_MIB)->value, 19818, REL);
    assert_non_null(find(&s, 0, "", GP_M_POWER_W));
    gp_samples_done(&s);
    /* Windows capture with [N/A] placeholders. */
    buf =
        slurp("nvidia_smi_csv/nvgpuexp__win__RTX-2080-SUPER__drv610.62__load__query-gpu.csv", &len);
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(buf, len, "win.csv", NULL, "pc", &s, &err), GP_OK);
    free(buf);
    assert_true(s.blanks > 0);
    assert_close(find(&s, 0, "", GP_M_GPU_UTIL)->value, 7, REL);
    gp_samples_done(&s);
    /* The classic cron script: units in the values, no index, two GPUs per timestamp, CRLF,
     * the header repeated by appending runs. */
    const char *cron =
        "timestamp, name, utilization.gpu [%], memory.used [MiB], temperature.gpu\r\n"
        "2026/01/02 03:04:05.678, NVIDIA A100-SXM4-80GB, 97 %, 70000 MiB, 61\r\n"
        "2026/01/02 03:04:05.678, NVIDIA A100-SXM4-80GB, 12 %, 1000 MiB, 40\r\n"
        "timestamp, name, utilization.gpu [%], memory.used [MiB], temperature.gpu\r\n"
        "2026/01/02 03:05:05.678, NVIDIA A100-SXM4-80GB, [N/A], 69000 MiB, 60\r\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(cron, strlen(cron), "cron.csv", NULL, "host", &s, &err), GP_OK);
    assert_int_equal(s.n_gpus, 2);
    assert_string_equal(s.gpus[0].model, "A100-80GB");
    assert_close(find(&s, 1, "", GP_M_GPU_UTIL)->value, 12, REL);
    assert_int_equal(s.n, 2 * 3 + 2);
    assert_int_equal(s.blanks, 1);
    gp_samples_done(&s);
    /* noheader: the fields come from --fields. */
    const char *noheader = "0, GPU-aaa, 55, 2048\n1, GPU-bbb, 0, 0\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(noheader, strlen(noheader), "nh.csv",
                                    "index,uuid,utilization.gpu,memory.used", "h", &s, &err),
                     GP_OK);
    assert_int_equal(s.n_gpus, 2);
    assert_string_equal(s.gpus[1].uuid, "GPU-bbb");
    gp_samples_done(&s);
    /* Without a header or --fields it is refused; a short row names its line. */
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(noheader, strlen(noheader), "nh.csv", NULL, "h", &s, &err),
                     GP_E_INPUT);
    gp_samples_done(&s);
    const char *short_row = "index, utilization.gpu [%]\n0, 5\n1\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(short_row, strlen(short_row), "s.csv", NULL, "h", &s, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "s.csv:3");
    gp_samples_done(&s);
    /* A value that is neither a number nor a placeholder names its line and field, and is
     * never skipped as if it were absent. */
    const char *garbled = "timestamp, utilization.gpu [%], power.draw [W]\n"
                          "2026/01/02 03:04:05.678, 50 %, 300.00 W\n"
                          "2026/01/02 03:04:10.678, 51 %, ERR! W\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(garbled, strlen(garbled), "g.csv", NULL, "h", &s, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "g.csv:3");
    assert_non_null(strstr(err.msg, "power.draw \"ERR! W\" is not a number"));
    gp_samples_done(&s);
    /* A number followed by anything but its unit is garbled too: "5O %" (a letter O) is not
     * 5 %, "50 %x" is not 50 %. Units nvidia-smi prints after a space still pass. */
    static const struct {
        const char *cell, *msg;
    } tails[] = {
        {"5O %", "utilization.gpu \"5O %\" is not a number"},
        {"50 %x", "utilization.gpu \"50 %x\" is not a number"},
        {"50x", "utilization.gpu \"50x\" is not a number"},
        {"5 0 %", "utilization.gpu \"5 0 %\" is not a number"},
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        char csv[256];
        snprintf(csv, sizeof csv,
                 "timestamp, utilization.gpu [%%], power.draw [W]\n"
                 "2026/01/02 03:04:05.678, %s, 300.00 W\n",
                 tails[i].cell);
        gp_samples_init(&s, 1000);
        assert_int_equal(gp_nvsmi_parse(csv, strlen(csv), "t.csv", NULL, "h", &s, &err),
                         GP_E_INPUT);
        assert_string_equal(err.where, "t.csv:2");
        if (!strstr(err.msg, tails[i].msg))
            fail_msg("case %zu: got [%s]", i, err.msg);
        gp_samples_done(&s);
    }
    /* A garbled index is refused too: filed by position it would make a GPU up. */
    static const char *const bad_index[] = {"7x", "1.5", "-1", "4096", "one"};
    for (size_t i = 0; i < sizeof bad_index / sizeof bad_index[0]; i++) {
        char csv[256], want[64];
        snprintf(csv, sizeof csv,
                 "timestamp, index, utilization.gpu [%%]\n"
                 "2026/01/02 03:04:05.678, 0, 50 %%\n"
                 "2026/01/02 03:04:05.678, %s, 60 %%\n",
                 bad_index[i]);
        snprintf(want, sizeof want, "index \"%s\" is not a GPU index", bad_index[i]);
        gp_samples_init(&s, 1000);
        assert_int_equal(gp_nvsmi_parse(csv, strlen(csv), "i.csv", NULL, "h", &s, &err),
                         GP_E_INPUT);
        assert_string_equal(err.where, "i.csv:3");
        if (!strstr(err.msg, want))
            fail_msg("index %s: got [%s]", bad_index[i], err.msg);
        gp_samples_done(&s);
    }
    const char *units = "timestamp, utilization.gpu [%], power.draw [W], memory.used [MiB], "
                        "clocks.sm [MHz]\n"
                        "2026/01/02 03:04:05.678, 50%, 300.00 W, 1000 MiB, 1980 MHz\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_nvsmi_parse(units, strlen(units), "u.csv", NULL, "h", &s, &err), GP_OK);
    gp_samples_done(&s);
}

static void test_redfish(void **state) {
    (void)state;
    static const struct {
        const char *file;
        double watts;
    } cases[] = {
        {"redfish/telegraf__dell-idrac__Chassis_System.Embedded.1_Power.json", 429},
        {"redfish/telegraf__hpe-ilo__Chassis_1_Power.json", 221},
        {"redfish/dmtf-mockup__public-rackmount1__Chassis_1U_Power.json", 344},
        {"redfish/dmtf-mockup__public-rackmount1__Chassis_1U_EnvironmentMetrics.json", 374},
        {"redfish/dmtf-mockup__public-rackmount1__Chassis_1U_Sensors_TotalPower.json", 374},
        {"redfish/"
         "dmtf-mockup__public-rackmount1__Chassis_1U_PowerSubsystem_PowerSupplies_Bay1_Metrics."
         "json",
         937.4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *buf = slurp(cases[i].file, &len);
        double w = -1;
        gp_err err;
        assert_int_equal(gp_redfish_parse(buf, len, cases[i].file, &w, &err), GP_OK);
        assert_close(w, cases[i].watts, REL);
        free(buf);
    }
    size_t len;
    char *buf =
        slurp("redfish/dmtf-mockup__public-rackmount1__Chassis_1U_PowerSubsystem.json", &len);
    double w;
    gp_err err;
    assert_int_equal(gp_redfish_parse(buf, len, "ps.json", &w, &err), GP_E_INPUT);
    free(buf);
}

static void test_blank_rules(void **state) {
    (void)state;
    assert_true(gp_dcgm_is_blank(9223372036854775794.0, false));
    assert_true(gp_dcgm_is_blank(140737488355328.0, false));
    assert_true(gp_dcgm_is_blank(2147483632.0, false));
    assert_false(gp_dcgm_is_blank(2147483632.0, true)); /* an energy counter may pass it */
    assert_true(gp_dcgm_is_blank(NAN, false));
    assert_true(gp_dcgm_is_blank(INFINITY, true));
    assert_false(gp_dcgm_is_blank(700.0, false));
}

/* ---- GPU names: every model name of the captures, raw -> key -> display ------------------- */

typedef struct name_line {
    char raw[96], key[GP_GPU_NAME_BYTES], display[GP_GPU_NAME_BYTES];
} name_line;

/* tests/fixtures/gpu_names.tsv: raw, key, display per line, '#' comments. */
static size_t read_names(name_line *lines, size_t cap) {
    size_t len, n = 0;
    char *buf = test_slurp("tests/fixtures/gpu_names.tsv", &len);
    assert_non_null(buf);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        assert_non_null(t2);
        assert_true(n < cap);
        *t1 = *t2 = '\0';
        snprintf(lines[n].raw, sizeof lines[n].raw, "%s", line);
        snprintf(lines[n].key, sizeof lines[n].key, "%s", t1 + 1);
        snprintf(lines[n].display, sizeof lines[n].display, "%s", t2 + 1);
        n++;
    }
    free(buf);
    return n;
}

/* Parse every capture of dir whose name contains part with the parser kind; the raw model
 * names found go through check. */
static void names_of(const char *dir, const char *part, int kind, const name_line *lines, size_t n,
                     int *seen) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/telemetry/%s", getenv("GP_SOURCE_ROOT"), dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, part))
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", dir, e->d_name);
        size_t len;
        char *buf = slurp(rel, &len);
        gp_samples s;
        gp_err err;
        gp_samples_init(&s, 1u << 20);
        if (kind == 0)
            gp_dcgm_parse(buf, len, rel, &s, &err);
        else if (kind == 1)
            gp_nvsmi_parse(buf, len, rel, NULL, "host", &s, &err);
        else
            gp_promapi_parse(buf, len, rel, 200, GP_M_POWER_W, 1, &s, &err);
        free(buf);
        for (size_t g = 0; g < s.n_gpus; g++) {
            if (!s.gpus[g].raw_model[0])
                continue;
            size_t i = 0;
            while (i < n && strcmp(lines[i].raw, s.gpus[g].raw_model) != 0)
                i++;
            if (i == n)
                print_error("%s: \"%s\" is not in tests/fixtures/gpu_names.tsv\n", rel,
                            s.gpus[g].raw_model);
            assert_true(i < n);
            /* The parser keeps the raw name and files the GPU under its key. */
            assert_string_equal(s.gpus[g].model, lines[i].key);
            seen[i]++;
        }
        gp_samples_done(&s);
    }
    closedir(d);
}

static void test_gpu_names(void **state) {
    (void)state;
    name_line lines[64];
    int seen[64] = {0};
    size_t n = read_names(lines, 64);
    assert_true(n >= 20);
    for (size_t i = 0; i < n; i++) {
        char key[GP_GPU_NAME_BYTES], display[GP_GPU_NAME_BYTES];
        gp_gpu_normalize(lines[i].raw, 0, key, sizeof key);
        gp_gpu_display_name(lines[i].raw, display, sizeof display);
        if (strcmp(key, lines[i].key) || strcmp(display, lines[i].display))
            print_error("\"%s\" -> key \"%s\" display \"%s\"\n", lines[i].raw, key, display);
        assert_string_equal(key, lines[i].key);
        assert_string_equal(display, lines[i].display);
        /* The display name of a name is its own display name; typed back, it finds the same
         * key for every known family (unknown ones keep today's squeezed raw name as key). */
        char again[GP_GPU_NAME_BYTES], key2[GP_GPU_NAME_BYTES];
        gp_gpu_display_name(display, again, sizeof again);
        assert_string_equal(again, display);
        if (gp_gpu_normalize(display, 0, key2, sizeof key2))
            assert_string_equal(key2, key);
    }
    names_of("dcgm_exporter", ".prom", 0, lines, n, seen);
    names_of("nvidia_smi_csv", "query-gpu", 1, lines, n, seen);
    names_of("prometheus_api", ".json", 2, lines, n, seen);
    int from_captures = 0;
    for (size_t i = 0; i < n; i++)
        from_captures += seen[i] > 0;
    assert_true(from_captures >= 6); /* H100, T4, H200, L40S, RTX 4080/2080 SUPER */

    char out[8];
    assert_false(gp_gpu_display_name("NVIDIA GeForce", out, sizeof out));
    assert_string_equal(out, "");
    assert_true(gp_gpu_display_name("NVIDIA RTX 2000 Ada Generation", out, sizeof out));
    assert_string_equal(out, "RTX 200"); /* cut to the buffer, still terminated */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcgm_captures), cmocka_unit_test(test_dcgm_edge_cases),
        cmocka_unit_test(test_dcgm_mig),      cmocka_unit_test(test_prometheus_api),
        cmocka_unit_test(test_nvsmi),         cmocka_unit_test(test_redfish),
        cmocka_unit_test(test_blank_rules),   cmocka_unit_test(test_gpu_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
