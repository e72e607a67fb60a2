/* nvidia-smi dmon and ipmitool DCMI parsers on the real captures
 * (tests/fixtures/telemetry/nvidia_smi_dmon, ipmi_dcmi) and the edge cases they document. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/samples.h"
#include "testutil.h"

static char *slurp(const char *rel, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "tests/fixtures/telemetry/%s", rel);
    return test_slurp(path, len);
}

/* Values of metric m for GPU index gpu_index, in order; their count. */
static size_t values(const gp_samples *s, int gpu_index, gp_metric m, double *v, int64_t *ts,
                     size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->s[i].gpu >= 0 && s->gpus[s->s[i].gpu].index == gpu_index && s->s[i].metric == m) {
            if (n < cap) {
                v[n] = s->s[i].value;
                ts[n] = s->s[i].ts_ms;
            }
            n++;
        }
    return n;
}

static gp_status parse_dmon(const char *rel, const gp_dmon_opts *o, gp_samples *s,
                            gp_dmon_info *info, gp_err *err) {
    size_t len;
    char *buf = slurp(rel, &len);
    gp_samples_init(s, 1u << 20);
    gp_status st = gp_dmon_parse(buf, len, rel, o, s, info, err);
    free(buf);
    return st;
}

/* Driver 390's -s pucvmet on two GTX 1050 Ti: "temp" (not gtemp), pwr "-" throughout. */
static void test_dmon_old_driver(void **state) {
    (void)state;
    gp_dmon_opts o = {.host = "tf", .end_ms = 1700000000000, .interval_ms = 1000};
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    assert_int_equal(parse_dmon("nvidia_smi_dmon/ff02-web__2xGTX1050Ti__drv390.12__pucvmet.txt", &o,
                                &s, &info, &err),
                     GP_OK);
    assert_int_equal(s.n_gpus, 2);
    assert_int_equal(info.rows, 8);
    assert_int_equal(info.rounds, 4);
    assert_false(info.own_time);
    double v[8];
    int64_t ts[8];
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 8), 0); /* "-": not supported */
    assert_int_equal(values(&s, 0, GP_M_GPU_UTIL, v, ts, 8), 4);
    assert_true(v[0] == 91 && v[1] == 93 && v[2] == 89 && v[3] == 46);
    /* Rounds one interval apart, the last at end_ms. */
    assert_true(ts[3] == 1700000000000 && ts[0] == 1700000000000 - 3000);
    assert_int_equal(values(&s, 1, GP_M_TEMP_C, v, ts, 8), 4);
    assert_true(v[2] == 51);
    assert_int_equal(values(&s, 1, GP_M_MEM_USED_MIB, v, ts, 8), 4);
    assert_true(v[0] == 3945);
    assert_int_equal(values(&s, 1, GP_M_SM_CLOCK_MHZ, v, ts, 8), 4);
    assert_true(v[0] == 1784);
    assert_int_equal(s.blanks, 8); /* pwr; the "-" of sbecc and dbecc are not read */
    assert_string_equal(s.gpus[0].host, "tf");
    gp_samples_done(&s);
}

/* Eight GPUs under training load, -s pcut (clocks before utilization), -d 10. */
static void test_dmon_eight_gpus(void **state) {
    (void)state;
    gp_dmon_opts o = {.host = "n", .end_ms = 1800000000000, .interval_ms = 10000};
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    assert_int_equal(
        parse_dmon("nvidia_smi_dmon/gnosia93-slurm-on-aws__8xGPU-training__pcut-d10.txt", &o, &s,
                   &info, &err),
        GP_OK);
    assert_int_equal(s.n_gpus, 8);
    assert_int_equal(info.rows, 25);
    assert_int_equal(info.rounds, 4); /* 8 + 8 + 8 + GPU 0 alone */
    double v[8];
    int64_t ts[8];
    assert_int_equal(values(&s, 4, GP_M_POWER_W, v, ts, 8), 3);
    assert_true(v[0] == 371 && v[1] == 374 && v[2] == 390);
    assert_int_equal(values(&s, 0, GP_M_GPU_UTIL, v, ts, 8), 4);
    assert_true(v[0] == 99 && v[3] == 100);
    assert_true(ts[3] == 1800000000000 && ts[2] == 1800000000000 - 10000);
    assert_int_equal(values(&s, 0, GP_M_SM_CLOCK_MHZ, v, ts, 8), 4);
    assert_true(v[0] == 2415);
    assert_int_equal(values(&s, 0, GP_M_MEM_USED_MIB, v, ts, 8), 0); /* no fb in -s pcut */
    /* GPU 7 was last seen a round before the end. */
    assert_int_equal(values(&s, 7, GP_M_POWER_W, v, ts, 8), 3);
    assert_true(ts[2] == 1800000000000 - 10000);
    gp_samples_done(&s);
}

/* A MIG slice of an H100 (gtemp, mtemp, jpg, ofa, ccpm), and the node's known GPU 0. */
static void test_dmon_h100_known_gpu(void **state) {
    (void)state;
    gp_gpu_ref known[2];
    memset(known, 0, sizeof known);
    snprintf(known[0].uuid, sizeof known[0].uuid, "GPU-aaaa");
    known[0].index = 0;
    snprintf(known[0].mig, sizeof known[0].mig, "GI 1/3g.40gb"); /* an instance: not taken */
    snprintf(known[1].uuid, sizeof known[1].uuid, "GPU-bbbb");
    known[1].index = 0;
    snprintf(known[1].raw_model, sizeof known[1].raw_model, "NVIDIA H100 80GB HBM3");
    snprintf(known[1].host, sizeof known[1].host, "gpu121");
    gp_dmon_opts o = {
        .host = "k2", .end_ms = 1800000000000, .interval_ms = 2000, .known = known, .n_known = 2};
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    assert_int_equal(parse_dmon("nvidia_smi_dmon/iaforek-Kelvin2__H100-MIG-slice__pucm-d2.txt", &o,
                                &s, &info, &err),
                     GP_OK);
    assert_int_equal(s.n_gpus, 1);
    assert_string_equal(s.gpus[0].uuid, "GPU-bbbb");
    assert_string_equal(s.gpus[0].host, "gpu121");
    assert_string_equal(s.gpus[0].model, "H100");
    assert_int_equal(info.mapped, 1);
    assert_int_equal(info.rounds, 18);
    double v[32];
    int64_t ts[32];
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 32), 18);
    assert_true(v[0] == 147 && v[17] == 141);
    assert_true(ts[0] == 1800000000000 - 17 * 2000);
    assert_int_equal(values(&s, 0, GP_M_TEMP_C, v, ts, 32), 18); /* gtemp, not mtemp */
    assert_true(v[0] == 47);
    assert_int_equal(values(&s, 0, GP_M_MEM_USED_MIB, v, ts, 32), 18);
    assert_true(v[0] == 3953);
    assert_int_equal(s.blanks, 0);
    gp_samples_done(&s);
}

/* -o DT: each row's own local time; the capture's last row was cut by ^C in the terminal. */
static void test_dmon_date_time(void **state) {
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    size_t len;
    char *buf = slurp("nvidia_smi_dmon/notes-zh__1GPU-idle__pucvmet-oDT-ccpm.txt", &len);
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    gp_samples_init(&s, 1u << 20);
    assert_int_equal(gp_dmon_parse(buf, len, "dt.txt", NULL, &s, &info, &err), GP_E_INPUT);
    assert_string_equal(err.where, "dt.txt:6");
    assert_string_equal(err.msg, "25 fields where the header has 24");
    gp_samples_done(&s);
    /* The rows before it. */
    size_t cut = (size_t)(strstr(buf, " 20260816    09:22:37") - buf);
    gp_samples_init(&s, 1u << 20);
    assert_int_equal(gp_dmon_parse(buf, cut, "dt.txt", NULL, &s, &info, &err), GP_OK);
    assert_true(info.own_time);
    assert_int_equal(info.rows, 3);
    double v[8];
    int64_t ts[8];
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 8), 3);
    assert_true(v[0] == 6);
    /* 2026-08-16 09:22:34 UTC */
    assert_true(ts[0] == 1786872154000LL && ts[2] == 1786872156000LL);
    assert_true(info.first_ms == ts[0] && info.last_ms == ts[2]);
    assert_int_equal(values(&s, 0, GP_M_TEMP_C, v, ts, 8), 3);
    assert_int_equal(s.blanks, 0); /* the "-" of mtemp, sbecc and dbecc: columns not read */
    free(buf);
    gp_samples_done(&s);
    unsetenv("TZ");
    tzset();
}

/* A zone with DST: every row keeps its wall time after the change, not only the changed hour
 * (-o DT and -o T); the repeated hour reads as its first pass (daylight time). */
static void test_dmon_dst(void **state) {
    (void)state;
    setenv("TZ", "America/New_York", 1);
    tzset();
    /* 2026-03-08: 02:00 EST springs forward to 03:00 EDT. */
    static const char dt[] = "#Date        Time         gpu    pwr\n"
                             "#YYYYMMDD    HH:MM:SS     Idx      W\n"
                             " 20260308    01:59:59       0     10\n"
                             " 20260308    03:00:00       0     11\n"
                             " 20260308    12:00:00       0     12\n"
                             " 20261101    01:30:00       0     13\n"
                             " 20261101    12:00:00       0     14\n";
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    double v[8];
    int64_t ts[8];
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(dt, sizeof dt - 1, "dst", NULL, &s, &info, &err), GP_OK);
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 8), 5);
    assert_true(ts[0] == 1772953199000LL); /* 01:59:59 EST = 06:59:59 UTC */
    assert_true(ts[1] == 1772953200000LL); /* 03:00:00 EDT = 07:00:00 UTC, a second later */
    assert_true(ts[2] == 1772985600000LL); /* 12:00:00 EDT = 16:00:00 UTC */
    /* 2026-11-01: 02:00 EDT falls back to 01:00 EST; 01:30 is its first pass (EDT). */
    assert_true(ts[3] == 1793511000000LL); /* 01:30:00 EDT = 05:30:00 UTC */
    assert_true(ts[4] == 1793552400000LL); /* 12:00:00 EST = 17:00:00 UTC */
    gp_samples_done(&s);
    /* Time of day only, the log ending 2026-03-08 12:00:05 EDT. */
    static const char t_only[] = "#Time        gpu    pwr\n"
                                 "#HH:MM:SS    Idx      W\n"
                                 " 01:59:59      0     10\n"
                                 " 03:00:00      0     11\n"
                                 " 12:00:00      0     12\n";
    gp_dmon_opts o = {.host = "h", .end_ms = 1772985605000LL, .interval_ms = 1000};
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(t_only, sizeof t_only - 1, "t", &o, &s, &info, &err), GP_OK);
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 8), 3);
    assert_true(ts[0] == 1772953199000LL && ts[1] == 1772953200000LL && ts[2] == 1772985600000LL);
    assert_true(info.first_ms == ts[0] && info.last_ms == ts[2]);
    gp_samples_done(&s);
    unsetenv("TZ");
    tzset();
}

/* Time of day only (-o T) across midnight; headers repeated and changed; errors. */
static void test_dmon_edges(void **state) {
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    static const char t_only[] = "#Time        gpu    pwr     sm\n"
                                 "#HH:MM:SS    Idx      W      %\n"
                                 " 23:59:59      0     10      5\n"
                                 " 23:59:59      1     11      -\n"
                                 "# a comment line, which names no columns\n"
                                 "#Time        gpu    pwr     sm\n"
                                 "#HH:MM:SS    Idx      W      %\r\n"
                                 " 00:00:01      0     12      7\r\n";
    gp_dmon_opts o = {.host = "h",
                      .end_ms = 1786838405000LL, /* 2026-08-16 00:00:05 UTC */
                      .interval_ms = 1000};
    gp_samples s;
    gp_dmon_info info;
    gp_err err;
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(t_only, sizeof t_only - 1, "t", &o, &s, &info, &err), GP_OK);
    double v[4];
    int64_t ts[4];
    assert_int_equal(values(&s, 0, GP_M_POWER_W, v, ts, 4), 2);
    assert_true(ts[0] == 1786838399000LL && ts[1] == 1786838401000LL);
    assert_int_equal(values(&s, 1, GP_M_GPU_UTIL, v, ts, 4), 0);
    assert_int_equal(s.blanks, 1);
    gp_samples_done(&s);

    /* -i 2,3: only those GPUs' rows, a round being one of each. */
    static const char some[] = "# gpu pwr\n# Idx W\n 2 10\n 3 11\n 2 12\n 3 13\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(some, sizeof some - 1, "i", &o, &s, &info, &err), GP_OK);
    assert_int_equal(s.n_gpus, 2);
    assert_int_equal(info.rounds, 2);
    assert_int_equal(values(&s, 3, GP_M_POWER_W, v, ts, 4), 2);
    assert_true(v[1] == 13 && ts[1] == o.end_ms && ts[0] == o.end_ms - 1000);
    gp_samples_done(&s);

    /* Without an end, a time of day has no day. */
    gp_dmon_opts no_end = {.host = "h"};
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(t_only, sizeof t_only - 1, "t", &no_end, &s, &info, &err),
                     GP_E_INPUT);
    assert_string_equal(err.msg, "rows with a time of day (-o T) and no date: give the time "
                                 "of the log's end (--end) for their day");
    gp_samples_done(&s);

    /* The end earlier in the day than the last row: the rows were the day before. */
    o.end_ms = 1786838399000LL - 3600000; /* 2026-08-15 22:59:59 */
    static const char late[] = "#Time gpu pwr\n 23:30:00 0 50\n";
    gp_samples_init(&s, 1000);
    assert_int_equal(gp_dmon_parse(late, sizeof late - 1, "t", &o, &s, &info, &err), GP_OK);
    assert_true(s.s[0].ts_ms == 1786750200000LL); /* 2026-08-14 23:30:00 */
    gp_samples_done(&s);

    static const struct {
        const char *text, *where, *msg;
    } bad[] = {
        {"    0    10\n", "b:1",
         "a row before any \"# gpu ...\" header: not nvidia-smi dmon output"},
        {"# gpu pwr\n    0    x\n", "b:2", "pwr \"x\" is not a number or -"},
        {"# gpu pwr\n    0    10  3\n", "b:2", "3 fields where the header has 2"},
        {"# gpu sm\n    0    101\n", "b:2", "sm 101 is outside 0..100"},
        {"# gpu sm\n    -    10\n", "b:2", "gpu \"-\" is not a GPU index"},
        {"# gpu sm\n    99999    10\n", "b:2", "gpu \"99999\" is not a GPU index"},
        {"#Date Time gpu sm\n 2026081 10:00:00 0 1\n", "b:2", "Date \"2026081\" is not YYYYMMDD"},
        {"#Time gpu sm\n 25:00:00 0 1\n", "b:2", "Time \"25:00:00\" is not HH:MM:SS"},
        {"just text\n", "b:1", "a row before any \"# gpu ...\" header: not nvidia-smi dmon output"},
        {"# a comment\n\n", "b", "not nvidia-smi dmon output: no \"# gpu ...\" header line"},
        {"# gpu sm\n# Idx %\n", "b", "a dmon header and no rows"},
        {"#Date Time gpu pid type sm mem enc dec jpg ofa fb ccpm command\n", "b:1",
         "nvidia-smi pmon output (a row per process), not dmon: its sm and mem are a process's "
         "share"},
        {"#Date Time gpu pwr\n 20260816 09:22:34 0 6\n# gpu pwr fb\n 0 7 100\n", "b:3",
         "this header's Date and Time columns differ from the log's first: one dmon run (one -o) "
         "per file"},
        {"", "b", "not nvidia-smi dmon output: no \"# gpu ...\" header line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gp_samples_init(&s, 1000);
        gp_err_clear(&err);
        assert_int_equal(gp_dmon_parse(bad[i].text, strlen(bad[i].text), "b", &o, &s, NULL, &err),
                         GP_E_INPUT);
        if (strcmp(err.where, bad[i].where) || strcmp(err.msg, bad[i].msg))
            print_error("case %zu: %s: %s\n", i, err.where, err.msg);
        assert_string_equal(err.where, bad[i].where);
        assert_string_equal(err.msg, bad[i].msg);
        gp_samples_done(&s);
    }
    unsetenv("TZ");
    tzset();
}

static gp_status parse_dcmi(const char *name, gp_dcmi_reading *r, gp_err *err) {
    char rel[300];
    snprintf(rel, sizeof rel, "ipmi_dcmi/%s", name);
    size_t len;
    char *buf = slurp(rel, &len);
    gp_status st = gp_dcmi_parse(buf, len, rel, r, err);
    free(buf);
    return st;
}

static void test_dcmi_captures(void **state) {
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    gp_dcmi_reading r;
    gp_err err;
    assert_int_equal(parse_dcmi("lovoo-ipmi_exporter-18__activated-2017.txt", &r, &err), GP_OK);
    assert_true(r.active);
    assert_true(r.watts == 215 && r.min_w == 162 && r.max_w == 276 && r.avg_w == 176);
    assert_true(r.has_min && r.has_max && r.has_avg);
    assert_string_equal(r.bmc_text, "Wed Feb 15 12:49:51 2017");
    assert_true(r.bmc_ms == 1487162991000LL);
    assert_true(r.period_ms == 1131466000LL);
    assert_true(gp_dcmi_time_plausible(r.bmc_ms, 1800000000000LL));

    assert_int_equal(parse_dcmi("radiorabe-rabe-zabbix-101__activated-2022.txt", &r, &err), GP_OK);
    assert_true(r.active && r.watts == 197 && r.avg_w == 190 && r.period_ms == 123893000LL);
    assert_true(r.bmc_ms == 1646579622000LL); /* Sun Mar  6 15:13:42 2022 */

    /* ipmitool 1.8.19: the numeric timestamp, and no newline before "Sampling period". */
    assert_int_equal(
        parse_dcmi("ateodorescu-home-assistant-addons-38__lanplus__numeric-ts-joined-line.txt", &r,
                   &err),
        GP_OK);
    assert_true(r.active && r.watts == 186 && r.min_w == 129 && r.max_w == 386);
    assert_string_equal(r.bmc_text, "07/26/26 16:57:12 CDT");
    assert_true(r.bmc_ms == 1785085032000LL); /* 2026-07-26 16:57:12, the zone taken as local */
    assert_true(r.period_ms == 898033000LL);

    /* OpenBMC without a power sensor, and with one but never activated: a 1970 stamp. */
    static const char *const off[] = {
        "openbmc-phosphor-host-ipmid-167__ampere__deactivated-zero.txt",
        "openbmc-phosphor-host-ipmid-167__ampere__deactivated-360W.txt",
        "openbmc-openbmc-3257__witherspoon__deactivated-319W.txt"};
    static const double off_w[] = {0, 360, 319};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(parse_dcmi(off[i], &r, &err), GP_OK);
        assert_false(r.active);
        assert_true(r.watts == off_w[i]);
        assert_true(r.bmc_ms == 0 || !gp_dcmi_time_plausible(r.bmc_ms, 1800000000000LL));
        assert_string_equal(r.bmc_text, "Thu Jan  1 00:00:00 1970");
        assert_true(r.period_ms == 0);
    }
    unsetenv("TZ");
    tzset();
}

static void test_dcmi_edges(void **state) {
    (void)state;
    gp_dcmi_reading r;
    gp_err err;
    /* Another tool's "key : value" spacing, milliseconds, an ISO UTC stamp. */
    static const char other[] = "\xEF\xBB\xBFInstantaneous power reading              : 214      "
                                "Watts\r\n"
                                "IPMI timestamp                           : 2024-05-05 13:06:44 "
                                "UTC\n"
                                "Sampling period                          : 1000 Milliseconds\n"
                                "Power reading state is                   : activated\n";
    assert_int_equal(gp_dcmi_parse(other, sizeof other - 1, "o", &r, &err), GP_OK);
    assert_true(r.watts == 214 && !r.has_min && r.period_ms == 1000);
    assert_true(r.bmc_ms == 1714914404000LL);
    assert_false(gp_dcmi_time_plausible(0, 1800000000000LL));
    assert_false(gp_dcmi_time_plausible(1800000000000LL + 2 * 86400000LL, 1800000000000LL));

    static const struct {
        const char *text, *where, *msg;
    } bad[] = {
        {"", "e",
         "not `ipmitool dcmi power reading` output: no \"Instantaneous power reading\" "
         "line"},
        {"    Instantaneous power reading:   lots Watts\n", "e:1",
         "not a reading in watts: \"lots Watts\""},
        {"    Instantaneous power reading:   12 Amps\n", "e:1",
         "not a reading in watts: \"12 Amps\""},
        {"    Instantaneous power reading:   -5 Watts\n", "e:1",
         "not a reading in watts: \"-5 Watts\""},
        {"    Instantaneous power reading:   5 Watts\n", "e",
         "no \"Power reading state is\" line: whether the reading is live cannot be told"},
        {"Instantaneous power reading: 5 Watts\nPower reading state is: maybe\n", "e:2",
         "power reading state is neither activated nor deactivated: \"maybe\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gp_err_clear(&err);
        assert_int_equal(gp_dcmi_parse(bad[i].text, strlen(bad[i].text), "e", &r, &err),
                         GP_E_INPUT);
        if (strcmp(err.where, bad[i].where) || strcmp(err.msg, bad[i].msg))
            print_error("case %zu: %s: %s\n", i, err.where, err.msg);
        assert_string_equal(err.where, bad[i].where);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmon_old_driver),
        cmocka_unit_test(test_dmon_eight_gpus),
        cmocka_unit_test(test_dmon_h100_known_gpu),
        cmocka_unit_test(test_dmon_date_time),
        cmocka_unit_test(test_dmon_dst),
        cmocka_unit_test(test_dmon_edges),
        cmocka_unit_test(test_dcmi_captures),
        cmocka_unit_test(test_dcmi_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
