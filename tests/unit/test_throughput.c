/* Throughput figures and the comparison of GPU generations: the spec-derived estimates pinned
 * by hand on bundled spec rows, measured figures winning over estimates, the throughput CSV
 * parser, a comparison over the bundled catalog, and the workload profiles: each estimate
 * against the bundled published results (within WL_TOLERANCE, in the same order), memory and
 * precision refusals, the published kind ranking between measured and estimate, and the
 * estimates stored again only when what they derive from changes. Each test gets a fresh
 * database in a temporary folder. */
#define _GNU_SOURCE /* nftw */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuplan/app_compare.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/reference.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"
#include "gpuplan/workload.h"
#include "gpuplan/workload_json.h"
#include "testutil.h"
#include "session_fixture.h"

static int take_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    (void)source;
    gp_gpu_spec *out = arg;
    if (strcmp(g->name, out->name) != 0)
        return 0;
    *out = *g;
    return 1;
}

/* The bundled spec row of gpu (from pricing/ through the store). */
static gp_gpu_spec bundled_spec(fixture *f, const char *gpu) {
    gp_store *st;
    gp_err err;
    gp_gpu_spec g = {0};
    snprintf(g.name, sizeof g.name, "%s", gpu);
    assert_int_equal(gp_session_catalog(&f->ses, &st, &err), GP_OK);
    assert_int_equal(gp_store_specs(st, gpu, take_spec, &g, &err), GP_OK);
    assert_string_equal(g.name, gpu);
    return g;
}

static double estimate(const char *profile, const gp_gpu_spec *g) {
    gp_throughput t;
    assert_true(gp_throughput_estimate(gp_profile_find(profile), g, "src", "2026-01-02", &t));
    assert_int_equal(t.kind, GP_TP_ESTIMATE);
    assert_non_null(strstr(t.source, "spec-derived estimate"));
    assert_non_null(strstr(t.source, g->full_name));
    return t.value;
}

/* By hand from the spec rows of pricing/ (Epoch AI datacenter subset):
 *   H100 SXM5: BF16 989.4 TFLOP/s, 3350 GB/s, FP32 66.91 TFLOP/s
 *   training 0.40 * 989.4e12 * 3600 / (6 * 7e9) / 1e6 = 33.922285714 M tokens
 *   decode   0.60 * 3350e9 * 3600 * 32 / (2 * 7e9) / 1e6 = 16.539428571 M tokens
 *   fp32     0.50 * 66.91e12 * 3600 / 1e15 = 120.438 PFLOP
 *   A100 SXM4 40 GB: BF16 312 -> 10.697142857; MI300X: 5300 GB/s -> 26.166857143;
 *   MI325X: BF16 1307.4 from the spec supplement (AMD's page; the Epoch row has FP16 1300 and
 *   no BF16) -> 44.825142857; L40S: BF16 362.05 from the supplement (the Epoch and mlco2 rows
 *   have no tensor figure) -> 12.413142857. */
static void derives_estimates_by_hand(void **state) {
    fixture *f = *state;
    gp_gpu_spec h100 = bundled_spec(f, "H100");
    assert_close(h100.v[GP_SPEC_BF16], 989.4, REL);
    assert_close(h100.v[GP_SPEC_MEM_BW_GBS], 3350, REL);
    assert_close(h100.v[GP_SPEC_FP32], 66.91, REL);
    assert_close(estimate("llm-training", &h100), 33.922285714285714, REL);
    assert_close(estimate("llm-inference-decode", &h100), 16.53942857142857, REL);
    assert_close(estimate("fp32", &h100), 120.438, REL);
    gp_gpu_spec a100 = bundled_spec(f, "A100");
    assert_close(a100.v[GP_SPEC_BF16], 312, REL);
    assert_close(estimate("llm-training", &a100), 10.697142857142858, REL);
    gp_gpu_spec mi300x = bundled_spec(f, "MI300X");
    assert_close(mi300x.v[GP_SPEC_MEM_BW_GBS], 5300, REL);
    assert_close(estimate("llm-inference-decode", &mi300x), 26.166857142857143, REL);
    gp_gpu_spec mi325x = bundled_spec(f, "MI325X");
    assert_close(mi325x.v[GP_SPEC_BF16], 1307.4, REL);
    assert_close(estimate("llm-training", &mi325x), 44.825142857142858, REL);
    /* FP32 vector and matrix apart: fp32 scales with the vector rate */
    assert_close(mi325x.v[GP_SPEC_FP32_MATRIX], 163.4, REL);
    gp_gpu_spec mi250x = bundled_spec(f, "MI250X");
    assert_close(mi250x.v[GP_SPEC_FP32], 47.87, REL);
    assert_close(mi250x.v[GP_SPEC_FP32_MATRIX], 95.7, REL);
    assert_close(estimate("fp32", &mi250x), 0.5 * 47.87 * 3.6, REL);
    assert_false(h100.has[GP_SPEC_FP32_MATRIX]);
    gp_gpu_spec l40s = bundled_spec(f, "L40S");
    assert_close(estimate("llm-training", &l40s), 12.413142857142857, REL);
    gp_throughput t; /* a spec without the input has no estimate */
    l40s.has[GP_SPEC_BF16] = l40s.has[GP_SPEC_FP16] = false;
    assert_false(gp_throughput_estimate(gp_profile_find("llm-training"), &l40s, "s", "d", &t));
}

static void measured_figures_win(void **state) {
    fixture *f = *state;
    gp_err err;
    gp_throughput t;
    assert_int_equal(gp_throughput_set(&f->ses, "NVIDIA H100 80GB HBM3", "llm-training", 41.5,
                                       "M tokens", "our run 2026-11", &t, &err),
                     GP_OK);
    assert_string_equal(t.gpu, "H100");
    gp_tp_list l;
    assert_int_equal(gp_throughput_list(&f->ses, "llm-training", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 2); /* both listed, the measured one first */
    assert_int_equal(l.rows[0].kind, GP_TP_MEASURED);
    assert_int_equal(l.rows[1].kind, GP_TP_ESTIMATE);
    const gp_throughput *use = gp_tp_effective(&l, "H100", "llm-training");
    assert_int_equal(use->kind, GP_TP_MEASURED);
    assert_close(use->value, 41.5, REL);
    assert_string_equal(use->source, "our run 2026-11");
    gp_tp_list_done(&l);
    /* the comparison uses it, and says so */
    gp_compare_request rq;
    gp_compare_defaults(&rq, f->ses.today);
    rq.work_per_month = 1000;
    rq.unit = "M tokens";
    rq.profile = "llm-training";
    gp_comparison c;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    int seen = 0;
    for (int i = 0; i < c.n_ranked; i++) {
        if (strcmp(c.rows[i].gpu, "H100") != 0)
            continue;
        seen++;
        assert_int_equal(c.rows[i].tp_kind, GP_TP_MEASURED);
        assert_close(c.rows[i].throughput, 41.5, REL);
    }
    assert_true(seen > 1);
    gp_comparison_done(&c);
    /* a unit other than the profile's, an unknown profile, no source: bad input */
    assert_int_equal(
        gp_throughput_set(&f->ses, "H100", "llm-training", 41.5, "tokens", "x", &t, &err),
        GP_E_INPUT);
    assert_non_null(strstr(err.msg, "M tokens"));
    assert_int_equal(
        gp_throughput_set(&f->ses, "H100", "llm-trainig", 41.5, "M tokens", "x", &t, &err),
        GP_E_INPUT);
    assert_non_null(strstr(err.msg, "did you mean llm-training"));
    assert_int_equal(gp_throughput_set(&f->ses, "H100", "fp32", 3, "PFLOP", "", &t, &err),
                     GP_E_INPUT);
}

typedef struct got {
    gp_throughput rows[8];
    int n;
} got;

static gp_status keep(const gp_throughput *t, void *arg, gp_err *err) {
    (void)err;
    got *g = arg;
    g->rows[g->n++] = *t;
    return GP_OK;
}

static gp_status parse(const char *text, got *g, gp_err *err) {
    memset(g, 0, sizeof *g);
    return gp_throughput_csv_parse(text, strlen(text), "t.csv", keep, g, err);
}

static void parses_the_csv(void **state) {
    (void)state;
    got g;
    gp_err err;
    assert_int_equal(parse("\xef\xbb\xbfsource,gpu,profile,value,unit,date\r\n"
                           "\"bench, 8 GPUs\",NVIDIA H100 80GB HBM3,llm-training,41.5,M tokens,"
                           "2026-10-01\r\n"
                           "mlperf,A100-SXM4-80GB,fp32,60,PFLOP,\r\n",
                           &g, &err),
                     GP_OK);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.rows[0].gpu, "H100");
    assert_string_equal(g.rows[0].source, "bench, 8 GPUs");
    assert_string_equal(g.rows[0].as_of, "2026-10-01");
    assert_int_equal(g.rows[0].kind, GP_TP_MEASURED);
    assert_int_equal(g.rows[0].line, 2);
    assert_close(g.rows[0].value, 41.5, REL);
    assert_string_equal(g.rows[1].gpu, "A100-80GB");
    assert_string_equal(g.rows[1].as_of, "");
    static const struct {
        const char *text, *where, *what;
    } bad[] = {
        {"gpu,profile,value,unit\nH100,fp32,1,PFLOP\n", "t.csv:1", "no \"source\" column"},
        {"gpu,profile,value,unit,source\nH100,fp32,0,PFLOP,x\n", "t.csv:2", "value"},
        {"gpu,profile,value,unit,source\nH100,fp32,1e999,PFLOP,x\n", "t.csv:2", "value"},
        {"gpu,profile,value,unit,source\nH100,fp32,abc,PFLOP,x\n", "t.csv:2", "value"},
        {"gpu,profile,value,unit,source\nH100,fp32,1,PFLOP,\n", "t.csv:2", "source"},
        {"gpu,profile,value,unit,source,date\nH100,fp32,1,PFLOP,x,2026-13-01\n", "t.csv:2", "date"},
        {"gpu,profile,value,unit,source\nH100,fp32,1,PFLOP,x\nH100 SXM,fp32,2,PFLOP,y\n", "t.csv:3",
         "twice"},
        {"gpu,profile,value,unit,source\nH100,\"fp32\n", "t.csv", ""},
        {"", "t.csv", "no header"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i].text, &g, &err), GP_E_INPUT);
        assert_non_null(strstr(err.where, bad[i].where));
        assert_non_null(strstr(err.msg, bad[i].what));
    }
}

static void imports_all_or_none(void **state) {
    fixture *f = *state;
    char path[128];
    snprintf(path, sizeof path, "%s/m.csv", f->dir);
    FILE *fp = fopen(path, "w");
    fputs("gpu,profile,value,unit,source\nH100,fp32,100,PFLOP,a\nA100,fp32,9,PFLOPS,b\n", fp);
    fclose(fp);
    gp_err err;
    int n = -1;
    assert_int_equal(gp_throughput_import(&f->ses, path, &n, &err), GP_E_INPUT);
    assert_non_null(strstr(err.where, "m.csv:3"));
    gp_tp_list l;
    assert_int_equal(gp_throughput_list(&f->ses, "fp32", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 1); /* the estimate only: nothing imported */
    gp_tp_list_done(&l);
    fp = fopen(path, "w");
    fputs("gpu,profile,value,unit,source\nH100,fp32,100,PFLOP,a\nA100,fp32,9,PFLOP,b\n", fp);
    fclose(fp);
    assert_int_equal(gp_throughput_import(&f->ses, path, &n, &err), GP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(gp_throughput_list(&f->ses, "fp32", "A100", &l, &err), GP_OK);
    assert_int_equal(gp_tp_effective(&l, "A100", "fp32")->kind, GP_TP_MEASURED);
    assert_close(gp_tp_effective(&l, "A100", "fp32")->value, 9, REL);
    gp_tp_list_done(&l);
}

static void compares_generations(void **state) {
    fixture *f = *state;
    gp_compare_request rq;
    gp_compare_defaults(&rq, f->ses.today);
    rq.work_per_month = 50000;
    rq.unit = "M tokens";
    rq.profile = "llm-inference-decode";
    rq.growth_per_month = 0.02;
    gp_comparison c;
    gp_err err;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_true(c.n_ranked > 5);
    bool owned = false, missing_price = false;
    for (int i = 0; i < c.n; i++) {
        const gp_compare_row *r = &c.rows[i];
        if (i < c.n_ranked) {
            assert_int_equal(r->rank, i + 1);
            assert_true(r->total > 0 && r->gpus_needed > 0 && r->doc);
            assert_close(r->cost_per_unit, r->total / c.work, REL);
            if (i > 0)
                assert_true(c.rows[i - 1].total <= r->total);
            owned |= r->own;
            if (!r->own)
                assert_true(r->vs_gpu[0] != 0);
        } else {
            assert_int_equal(r->rank, 0);
            assert_true(r->missing[0] != 0);
            missing_price |= strstr(r->missing, "no price") != NULL;
        }
    }
    assert_true(owned && missing_price);
    int version = 0;
    assert_int_equal(gp_compare_save(&f->ses, &c, c.n_ranked + 1, "x", &version, &err), GP_E_INPUT);
    assert_int_equal(gp_compare_save(&f->ses, &c, 1, "best", &version, &err), GP_OK);
    assert_int_equal(version, 1);
    gp_comparison_done(&c);
    rq.unit = "tokens";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "M tokens"));
}

/* The stated agreement of a workload estimate with the published results it is calibrated
 * against (docs/compare.md): each within 10 %. */
#define WL_TOLERANCE 0.10

static gp_wl_estimate wl_on(const char *profile, const char *gpu) {
    const gp_workload *w = gp_workload_find(profile);
    const gp_wl_hw *h = gp_wl_hw_find(gpu);
    assert_non_null(w);
    assert_non_null(h);
    gp_wl_estimate e;
    gp_wl_estimate_on(w, h, &e);
    return e;
}

/* Every bundled published result: the estimate of its profile within the tolerance, and the
 * estimates in the published order (a pair reversed would rank GPUs wrongly where no result
 * is bundled). */
static void estimates_meet_published_results(void **state) {
    (void)state;
    int n = 0;
    for (int i = 0; i < gp_wl_n_published; i++) {
        const gp_wl_published *p = &gp_wl_published_table[i];
        gp_wl_estimate e = wl_on(p->profile, p->gpu);
        double pub = p->tokens_per_s_system / p->gpus;
        assert_true(e.fits);
        assert_string_equal(gp_wl_prec_name(e.precision), p->precision);
        double dev = e.tokens_per_s / pub - 1;
        if (dev > WL_TOLERANCE || dev < -WL_TOLERANCE)
            fail_msg("%s on %s: estimate %.0f, published %.0f (%+.1f %%)", p->profile, p->gpu,
                     e.tokens_per_s, pub, 100 * dev);
        for (int k = 0; k < gp_wl_n_published; k++) {
            const gp_wl_published *q = &gp_wl_published_table[k];
            if (k == i || strcmp(q->profile, p->profile) != 0 ||
                !(q->tokens_per_s_system / q->gpus < pub))
                continue;
            gp_wl_estimate f = wl_on(q->profile, q->gpu);
            if (!(f.tokens_per_s < e.tokens_per_s))
                fail_msg("%s: %s publishes more than %s but is estimated at %.0f <= %.0f",
                         p->profile, p->gpu, q->gpu, e.tokens_per_s, f.tokens_per_s);
        }
        n++;
    }
    assert_true(n >= 4);
    /* The MLPerf setting's precision policy: FP4 on Blackwell, FP8 on Hopper and CDNA3, FP16
     * on Ampere (no FP8), with tensor parallelism where one GPU cannot hold 70B. */
    assert_int_equal(wl_on("llama2-70b-offline", "B200").precision, GP_WL_FP4);
    assert_int_equal(wl_on("llama2-70b-offline", "A100-80GB").precision, GP_WL_FP16);
    assert_int_equal(wl_on("llama2-70b-offline", "H100").tp, 2);
    assert_int_equal(wl_on("llama2-70b-offline", "H200").tp, 1);
    assert_int_equal(wl_on("llama2-70b-offline", "A100-80GB").tp, 4);
}

/* The profiles without a bundled result keep the generations in their known order, and
 * training's MFU per family puts A100 at 0.55 of its peak where H100 reaches 0.43. */
static void profiles_rank_generations(void **state) {
    (void)state;
    static const char *const decode[] = {"llama3-8b-decode", "llama3-70b-decode"};
    for (int i = 0; i < 2; i++) {
        double b200 = wl_on(decode[i], "B200").tokens_per_s,
               h200 = wl_on(decode[i], "H200").tokens_per_s,
               h100 = wl_on(decode[i], "H100").tokens_per_s,
               a100 = wl_on(decode[i], "A100-80GB").tokens_per_s;
        assert_true(b200 > h200 && h200 > h100 && h100 > a100 && a100 > 0);
    }
    gp_wl_estimate a = wl_on("llama2-7b-training", "A100-80GB"),
                   h = wl_on("llama2-7b-training", "H100");
    assert_true(a.fits && h.fits);
    assert_close(a.tokens_per_s, 0.55 * 312e12 / (6 * 6.74e9), 1e-6);
    assert_close(h.tokens_per_s, 0.43 * 989e12 / (6 * 6.74e9), 1e-6);
    assert_close(h.m_tokens_per_gpu_hour, h.tokens_per_s * 3600 / 1e6, 1e-9);
}

/* T4 and V100 (16 GB) cannot hold a 70B model in FP16 with its KV cache across a server of 8;
 * nor can BF16 training run on GPUs without BF16 tensor cores. */
static void refuses_what_cannot_run(void **state) {
    (void)state;
    static const char *const big[] = {"llama2-70b-offline", "llama3-70b-decode"};
    for (int i = 0; i < 2; i++)
        for (int g = 0; g < 2; g++) {
            gp_wl_estimate e = wl_on(big[i], g ? "V100" : "T4");
            assert_false(e.fits);
            assert_non_null(strstr(e.why, "does not fit: "));
            assert_true(e.need_gb > e.have_gb);
        }
    static const char *const old[] = {"V100", "V100-32GB", "T4"};
    for (int g = 0; g < 3; g++) {
        gp_wl_estimate e = wl_on("llama2-7b-training", old[g]);
        assert_false(e.fits);
        assert_non_null(strstr(e.why, "has no bf16 tensor support"));
    }
    assert_true(wl_on("llama3-8b-decode", "T4").fits); /* 8B in FP16 fits a T4 server */
    const gp_profile *p = gp_profile_find("llama2-70b-offline");
    char why[200];
    assert_true(gp_throughput_refusal(p, "T4", why, sizeof why));
    assert_non_null(strstr(why, "does not fit"));
    assert_true(gp_throughput_refusal(p, "K80", why, sizeof why));
    assert_non_null(strstr(why, "no row for K80"));
    assert_false(gp_throughput_refusal(p, "H100", why, sizeof why));
    assert_false(gp_throughput_refusal(gp_profile_find("llm-training"), "T4", why, sizeof why));
}

/* A published result is listed with its source and date and wins over the estimate; a
 * measured figure wins over both. */
static void published_results_rank_between(void **state) {
    fixture *f = *state;
    gp_tp_list l;
    gp_err err;
    assert_int_equal(gp_throughput_list(&f->ses, "llama2-70b-offline", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 2);
    const gp_throughput *t = gp_tp_effective(&l, "H100", "llama2-70b-offline");
    assert_int_equal(t->kind, GP_TP_PUBLISHED);
    assert_close(t->value, 24524.9 / 8 * 3600 / 1e6, 1e-9);
    assert_string_equal(t->as_of, "2024-08-28");
    assert_non_null(strstr(t->source, "mlcommons/inference_results_v4.1@a2f5d66d17e8"));
    gp_tp_list_done(&l);
    assert_int_equal(gp_throughput_set(&f->ses, "H100", "llama2-70b-offline", 12, "M tokens",
                                       "our vLLM run", NULL, &err),
                     GP_OK);
    assert_int_equal(gp_throughput_list(&f->ses, "llama2-70b-offline", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 3);
    t = gp_tp_effective(&l, "H100", "llama2-70b-offline");
    assert_int_equal(t->kind, GP_TP_MEASURED);
    assert_int_equal(l.rows[0].kind, GP_TP_MEASURED);
    assert_int_equal(l.rows[1].kind, GP_TP_PUBLISHED);
    assert_int_equal(l.rows[2].kind, GP_TP_ESTIMATE);
    gp_tp_list_done(&l);
    /* No estimate is stored for a GPU model that cannot run the profile. */
    assert_int_equal(gp_throughput_list(&f->ses, "llama3-70b-decode", "T4", &l, &err), GP_OK);
    assert_int_equal(l.n, 0);
    gp_tp_list_done(&l);
}

/* A user's workload profile: the fixture parses to the model it names, is stored, estimated
 * like a bundled one and compared; bad members fail naming the JSON path. */
static void user_profiles(void **state) {
    fixture *f = *state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/workloads/mixtral-8x7b-decode.json",
             getenv("GP_SOURCE_ROOT"));
    gp_workload w;
    gp_err err;
    assert_int_equal(gp_profile_add(&f->ses, path, &w, &err), GP_OK);
    assert_string_equal(w.name, "mixtral-8x7b-decode");
    assert_int_equal(w.phase, GP_WL_DECODE);
    assert_close(w.active_params_b, 12.9, 1e-12);
    assert_int_equal(w.n_prefer, 2);
    assert_int_equal(w.prefer[0], GP_WL_FP8);
    gp_tp_list l;
    assert_int_equal(gp_throughput_list(&f->ses, "mixtral-8x7b-decode", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 1);
    gp_wl_estimate e;
    gp_wl_estimate_on(&w, gp_wl_hw_find("H100"), &e);
    assert_close(l.rows[0].value, e.m_tokens_per_gpu_hour, 1e-12);
    /* the compute ceiling uses the active parameters: 2 x 12.9e9 FLOP a token */
    assert_close(e.compute_tps, 0.60 * 1979e12 / (2 * 12.9e9), 1e-9);
    gp_tp_list_done(&l);
    gp_compare_request rq;
    gp_compare_defaults(&rq, "2026-11-01");
    rq.work_per_month = 1000;
    rq.unit = "M tokens";
    rq.profile = "mixtral-8x7b-decode";
    gp_comparison c;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_true(c.n_ranked > 0);
    assert_string_equal(c.profile, "mixtral-8x7b-decode");
    for (int i = 0; i < c.n; i++) /* the bundled API price takes effect on 2026-11-27 */
        assert_false(c.rows[i].api);
    gp_comparison_done(&c);
    /* Its api_model names the hosted model: an API row a M output tokens at the output price
     * plus 1024 / 256 = 4 input tokens at the input price (Fireworks: 0.50 both). */
    assert_string_equal(w.api_model, "mixtral-8x7b-instruct");
    rq.as_of = "2026-11-28";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    int apis = 0;
    for (int i = 0; i < c.n; i++) {
        const gp_compare_row *r = &c.rows[i];
        if (!r->api)
            continue;
        apis++;
        assert_string_equal(r->provider, "fireworks");
        assert_string_equal(r->pricing, "api");
        assert_true(r->rank > 0);
        assert_close(r->input_units_per_unit, 4.0, 0);
        assert_close(r->cost_per_unit, 0.50 + 4 * 0.50, 1e-12);
        assert_close(r->total, 2.5 * 1000 * 36, 1e-12);
    }
    assert_int_equal(apis, 1);
    gp_comparison_done(&c);
    static const struct {
        const char *json, *where;
    } bad[] = {
        {"[1]", "t.json:$: must be an object"},
        {"{\"name\":\"x\",\"source\":\"s\",\"phase\":\"serve\",\"params_b\":1}", "$.phase"},
        {"{\"name\":\"X y\",\"source\":\"s\",\"phase\":\"decode\",\"params_b\":1}", "$.name"},
        {"{\"name\":\"x\",\"source\":\"s\",\"phase\":\"decode\",\"params_b\":1,\"active_params_b\":"
         "2,\"layers\":1,\"kv_heads\":1,\"head_dim\":1,\"input_len\":1}",
         "$.active_params_b"},
        {"{\"name\":\"x\",\"source\":\"s\",\"phase\":\"decode\",\"params_b\":1,\"layers\":1,"
         "\"kv_heads\":1,\"head_dim\":1,\"input_len\":1,\"batch\":1.5}",
         "$.batch: must be a whole number"},
        {"{\"name\":\"x\",\"source\":\"s\",\"phase\":\"training\",\"params_b\":1,\"layers\":1,"
         "\"kv_heads\":1,\"head_dim\":1,\"input_len\":1,\"precision\":[\"bf16\",\"fp9\"]}",
         "$.precision[1]: one of"},
        {"{\"name\":", "malformed JSON"},
        {"{\"name\":\"x\",\"source\":\"s\",\"api_model\":\"Llama 3\",\"phase\":\"decode\","
         "\"params_b\":1}",
         "$.api_model: only a-z"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            gp_workload_json_parse(bad[i].json, strlen(bad[i].json), "t.json", &w, &err),
            GP_E_INPUT);
        char full[700];
        snprintf(full, sizeof full, "%s: %s", err.where, err.msg);
        if (!strstr(full, bad[i].where))
            fail_msg("%s: got \"%s\"", bad[i].json, full);
        assert_string_equal(w.name, "");
    }
}

/* The database's data_version seen from a connection of its own: it moves when the session's
 * connection commits a write. */
static long long data_version(sqlite3 *db) {
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    long long v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* mixtral-8x7b-decode's estimate on an H100 as the service lists it. */
static double mixtral_h100(fixture *f) {
    gp_tp_list l;
    gp_err err;
    assert_int_equal(gp_throughput_list(&f->ses, "mixtral-8x7b-decode", "H100", &l, &err), GP_OK);
    assert_int_equal(l.n, 1);
    double v = l.rows[0].value;
    gp_tp_list_done(&l);
    return v;
}

/* The estimates are rewritten only when what they derive from changes: a second list, a
 * comparison and a list in a new session write nothing; a changed user profile is re-derived;
 * estimates deleted from the table are stored again. */
static void refreshes_only_on_change(void **state) {
    fixture *f = *state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/workloads/mixtral-8x7b-decode.json",
             getenv("GP_SOURCE_ROOT"));
    gp_workload w;
    gp_err err;
    assert_int_equal(gp_profile_add(&f->ses, path, &w, &err), GP_OK);
    double before = mixtral_h100(f); /* the first list stores the estimates */
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    long long v0 = data_version(db);
    assert_close(mixtral_h100(f), before, 0);
    gp_compare_request rq;
    gp_compare_defaults(&rq, "2026-11-01");
    rq.work_per_month = 1000;
    rq.unit = "M tokens";
    rq.profile = "llama3-8b-decode";
    gp_comparison c;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    gp_comparison_done(&c);
    gp_session_close(&f->ses);
    gp_session_init(&f->ses, f->db);
    assert_close(mixtral_h100(f), before, 0);
    assert_int_equal(data_version(db), v0);
    /* The same profile at batch 8 instead of 64: a different estimate, stored by the next list. */
    char *json = NULL;
    size_t n = 0;
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    assert_int_equal(getdelim(&json, &n, '\0', in) > 0, 1);
    fclose(in);
    char *batch = strstr(json, "\"batch\": 64");
    assert_non_null(batch);
    memcpy(batch, "\"batch\":  8", 11);
    char changed[128];
    snprintf(changed, sizeof changed, "%s/mixtral.json", f->dir);
    FILE *out = fopen(changed, "w");
    assert_non_null(out);
    fputs(json, out);
    fclose(out);
    free(json);
    assert_int_equal(gp_profile_add(&f->ses, changed, &w, &err), GP_OK);
    long long v1 = data_version(db);
    gp_wl_estimate e;
    gp_wl_estimate_on(&w, gp_wl_hw_find("H100"), &e);
    assert_true(fabs(e.m_tokens_per_gpu_hour - before) > 1e-6 * before);
    assert_close(mixtral_h100(f), e.m_tokens_per_gpu_hour, 1e-12);
    assert_true(data_version(db) != v1);
    sqlite3_close(db);
    /* Estimates deleted behind the fingerprint (by hand, a restore): the next list stores them
     * again rather than trusting the fingerprint. */
    assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db, "DELETE FROM throughput WHERE kind = 'estimate'", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    assert_close(mixtral_h100(f), e.m_tokens_per_gpu_hour, 1e-12);
}

static const gp_compare_row *own_row(const gp_comparison *c, const char *gpu) {
    for (int i = 0; i < c->n; i++)
        if (c->rows[i].own && strcmp(c->rows[i].gpu, gpu) == 0)
            return &c->rows[i];
    fail_msg("no owned %s row", gpu);
    return NULL;
}

/* The owned server price rule: a node price of the form factor where one exists (x the
 * network share), else the median GPU price of the newest date x 8 x the server overhead x the
 * network share; PCIe cards never price an SXM spec. */
static void prices_owned_servers_by_rule(void **state) {
    fixture *f = *state;
    gp_compare_request rq;
    gp_err err;
    gp_comparison c;
    gp_compare_defaults(&rq, "2026-11-01");
    rq.work_per_month = 1000;
    rq.unit = "M tokens";
    rq.profile = "llm-training";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    const gp_compare_row *r = own_row(&c, "H100");
    assert_close(r->server_price, 310000 * 1.15, 1e-12);
    assert_non_null(strstr(r->offer, "node: NVIDIA H100 node (8x H100"));
    r = own_row(&c, "A100-80GB"); /* two prices dated 2025-03-04: their median */
    /* priced to the cent */
    assert_close(r->server_price, round((17348.56 + 17499.00) / 2 * 8 * 1.6 * 1.15 * 100) / 100,
                 1e-12);
    assert_non_null(strstr(r->offer, "median of 2 prices"));
    assert_string_equal(r->price_date, "2025-03-04");
    r = own_row(&c, "A100"); /* SXM4 spec: the 2025 PCIe prices do not count */
    assert_close(r->server_price, round(12500.0 * 8 * 1.6 * 1.15 * 100) / 100, 1e-12);
    assert_string_equal(r->price_date, "2022-07-01");
    gp_comparison_done(&c);
    rq.as_of = "2023-04-01"; /* before any H100 node price */
    rq.server_overhead = 2.0;
    rq.network_share = 1.0;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_close(own_row(&c, "H100")->server_price, round(44489.88 * 8 * 2.0 * 100) / 100, 1e-12);
    gp_comparison_done(&c);
    rq.server_overhead = 0.5;
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_E_INPUT);
    assert_string_equal(err.where, "--server-overhead");
}

/* --gpu, --pricing and --region keep only their rows; spot rows are not ranked over 12
 * months unless asked, and say their interruption assumption. */
static void filters_and_spot(void **state) {
    fixture *f = *state;
    gp_compare_request rq;
    gp_err err;
    gp_comparison c;
    gp_compare_defaults(&rq, "2026-11-01");
    rq.work_per_month = 1000;
    rq.unit = "M tokens";
    rq.profile = "llama2-70b-offline";
    rq.gpu = "NVIDIA H100 80GB HBM3";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_true(c.n_ranked > 2);
    int spot = 0;
    for (int i = 0; i < c.n; i++) {
        assert_string_equal(c.rows[i].gpu, "H100");
        if (strncmp(c.rows[i].pricing, "spot, ", 6) == 0) {
            spot++;
            assert_int_equal(c.rows[i].rank, 0);
            assert_non_null(strstr(c.rows[i].missing, "not ranked for a horizon over 12"));
        }
    }
    assert_true(spot > 0);
    gp_comparison_done(&c);
    rq.spot = true;
    rq.pricing = "spot";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_int_equal(c.n_ranked, c.n);
    for (int i = 0; i < c.n; i++)
        assert_non_null(strstr(c.rows[i].pricing, " interruptions/h"));
    gp_comparison_done(&c);
    rq.gpu = NULL;
    rq.spot = false;
    rq.pricing = "on_demand";
    rq.region = "us-east-1";
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_OK);
    assert_true(c.n_ranked > 0);
    for (int i = 0; i < c.n_ranked; i++) {
        assert_false(c.rows[i].own);
        assert_string_equal(c.rows[i].pricing, "on_demand");
        assert_non_null(strstr(c.rows[i].offer, "/us-east-1"));
    }
    gp_comparison_done(&c);
    rq.region = NULL;
    rq.pricing = "own";
    rq.gpu = "T4"; /* T4 cannot run it and has no owned row */
    assert_int_equal(gp_compare(&f->ses, &rq, &c, &err), GP_E_INPUT);
    assert_string_equal(err.where, "--gpu");
}

static gp_status count_spec(const gp_gpu_spec *g, void *arg, gp_err *err) {
    (void)err;
    gp_gpu_spec *last = arg;
    *last = *g;
    return GP_OK;
}

/* The spec supplement's parser: the bundled file's rows with FP32 vector and matrix apart, a
 * row without a name skipped, another header refused naming the line. */
static void parses_the_spec_supplement(void **state) {
    (void)state;
    static const char text[] =
        "name,vendor,memory_gb,tdp_w,fp32_vector_tflops,fp32_matrix_tflops,fp16_tflops,"
        "bf16_tflops,mem_bw_gbs,release_date,source\n"
        ",AMD,1,1,1,1,,1,1,2020-01-01,x\n"
        "AMD Instinct MI250X,AMD,128,560,47.9,95.7,,383,3276.8,2021-11-08,https://amd.com\n";
    gp_gpu_spec g = {0};
    gp_reference_sink sink = {.spec = count_spec, .arg = &g};
    size_t skipped = 0;
    gp_err err;
    assert_int_equal(gp_reference_parse(GP_REF_SPECS_GPUPLAN, text, strlen(text), "s.csv", "",
                                        &sink, &skipped, &err),
                     GP_OK);
    assert_int_equal(skipped, 1);
    assert_string_equal(g.name, "MI250X");
    assert_close(g.v[GP_SPEC_FP32], 47.9, REL);
    assert_close(g.v[GP_SPEC_FP32_MATRIX], 95.7, REL);
    assert_false(g.has[GP_SPEC_FP16]);
    assert_string_equal(g.release_date, "2021-11-08");
    static const char bad[] = "gpu,tflops\nx,1\n";
    assert_int_equal(gp_reference_parse(GP_REF_SPECS_GPUPLAN, bad, strlen(bad), "s.csv", "", &sink,
                                        &skipped, &err),
                     GP_E_INPUT);
    assert_string_equal(err.where, "s.csv:1");
    assert_int_equal(gp_reference_kind_from_name("specs-gpuplan"), GP_REF_SPECS_GPUPLAN);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(derives_estimates_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(measured_figures_win, setup, teardown),
        cmocka_unit_test(parses_the_csv),
        cmocka_unit_test(parses_the_spec_supplement),
        cmocka_unit_test_setup_teardown(imports_all_or_none, setup, teardown),
        cmocka_unit_test_setup_teardown(compares_generations, setup, teardown),
        cmocka_unit_test(estimates_meet_published_results),
        cmocka_unit_test(profiles_rank_generations),
        cmocka_unit_test(refuses_what_cannot_run),
        cmocka_unit_test_setup_teardown(published_results_rank_between, setup, teardown),
        cmocka_unit_test_setup_teardown(user_profiles, setup, teardown),
        cmocka_unit_test_setup_teardown(refreshes_only_on_change, setup, teardown),
        cmocka_unit_test_setup_teardown(prices_owned_servers_by_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(filters_and_spot, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
