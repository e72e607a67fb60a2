/* Workload profiles, hardware facts, estimates and published results (workload.h). */
#include "gpuplan/workload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Dense tensor rates, memory and bandwidth from the vendors' datasheets (no sparsity). */
#define NV_V100                                                                                    \
    "NVIDIA V100 datasheet "                                                                       \
    "(images.nvidia.com/content/technologies/volta/pdf/"                                           \
    "volta-v100-datasheet-update-us-1165301-r5.pdf)"
#define NV_T4                                                                                      \
    "NVIDIA T4 datasheet "                                                                         \
    "(nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/"                                \
    "t4-tensor-core-datasheet-951643.pdf)"
#define NV_A10                                                                                     \
    "NVIDIA A10 datasheet "                                                                        \
    "(nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf)"
#define NV_A100                                                                                    \
    "NVIDIA A100 datasheet "                                                                       \
    "(nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"                                \
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)"
#define NV_L4 "NVIDIA L4 datasheet (nvdam.widen.net/s/rvq98gbwsw/l4-datasheet-2595652)"
#define NV_L40                                                                                     \
    "NVIDIA L40 datasheet "                                                                        \
    "(nvidia.com/content/dam/en-zz/Solutions/design-visualization/support-guide/"                  \
    "NVIDIA-L40-Datasheet-January-2023.pdf)"
#define NV_L40S "NVIDIA L40S datasheet (resources.nvidia.com/en-us-l40s/l40s-datasheet-28413)"
#define NV_H100                                                                                    \
    "NVIDIA H100 datasheet "                                                                       \
    "(resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)"
#define NV_H200                                                                                    \
    "NVIDIA H200 datasheet "                                                                       \
    "(nvdam.widen.net/s/nb5zzzsjdf/hpc-datasheet-sc23-h200-datasheet-3002446)"
#define NV_GH200                                                                                   \
    "NVIDIA GH200 Grace Hopper Superchip datasheet "                                               \
    "(resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip), 144 GB HBM3e version"
#define NV_B200                                                                                    \
    "NVIDIA DGX B200 datasheet (resources.nvidia.com/en-us-dgx-systems/dgx-b200-datasheet), per "  \
    "GPU of 8"
#define AMD_MI300X                                                                                 \
    "AMD Instinct MI300X data sheet "                                                              \
    "(amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"                        \
    "amd-instinct-mi300x-data-sheet.pdf)"
#define AMD_MI325X                                                                                 \
    "AMD Instinct MI325X specifications "                                                          \
    "(amd.com/en/products/accelerators/instinct/mi300/mi325x.html)"

/*                 gpu          family       form         mem    bw GB/s  FP4   FP8    FP16   BF16
 */
const gp_wl_hw gp_wl_hw_table[] = {
    {"V100", "volta", "sxm", 16, 900, {0, 0, 125, 0}, 8, NV_V100},
    {"V100-32GB", "volta", "sxm", 32, 900, {0, 0, 125, 0}, 8, NV_V100},
    {"T4", "turing", "pcie", 16, 320, {0, 0, 65, 0}, 8, NV_T4},
    {"A10", "ampere", "pcie", 24, 600, {0, 0, 125, 125}, 8, NV_A10},
    {"A100", "ampere", "sxm", 40, 1555, {0, 0, 312, 312}, 8, NV_A100},
    {"A100-80GB", "ampere", "sxm", 80, 2039, {0, 0, 312, 312}, 8, NV_A100},
    {"L4", "ada", "pcie", 24, 300, {0, 242, 121, 121}, 8, NV_L4},
    {"L40", "ada", "pcie", 48, 864, {0, 362, 181, 181}, 8, NV_L40},
    {"L40S", "ada", "pcie", 48, 864, {0, 733, 362, 362}, 8, NV_L40S},
    {"H100", "hopper", "sxm", 80, 3350, {0, 1979, 989, 989}, 8, NV_H100},
    {"H100-NVL", "hopper", "pcie", 94, 3900, {0, 1670, 835, 835}, 8, NV_H100},
    {"H200", "hopper", "sxm", 141, 4800, {0, 1979, 989, 989}, 8, NV_H200},
    {"GH200", "hopper", "superchip", 144, 4900, {0, 1979, 989, 989}, 1, NV_GH200},
    {"B200", "blackwell", "sxm", 180, 8000, {9000, 4500, 2250, 2250}, 8, NV_B200},
    {"MI300X", "cdna3", "oam", 192, 5300, {0, 2615, 1307, 1307}, 8, AMD_MI300X},
    {"MI325X", "cdna3", "oam", 256, 6000, {0, 2615, 1307, 1307}, 8, AMD_MI325X},
};
const int gp_wl_n_hw = sizeof gp_wl_hw_table / sizeof gp_wl_hw_table[0];

const gp_wl_hw *gp_wl_hw_find(const char *gpu) {
    for (int i = 0; i < gp_wl_n_hw; i++)
        if (strcmp(gp_wl_hw_table[i].gpu, gpu) == 0)
            return &gp_wl_hw_table[i];
    return NULL;
}

#define LLAMA2_70B                                                                                 \
    "Llama 2 70B: 80 layers, 8 KV heads of 128 (arXiv:2307.09288, Table 1; HF config)"
#define LLAMA3_8B                                                                                  \
    "Llama 3 8B: 32 layers, 8 KV heads of 128 (meta-llama/Meta-Llama-3-8B config.json)"
#define LLAMA3_70B                                                                                 \
    "Llama 3 70B: 80 layers, 8 KV heads of 128 (meta-llama/Meta-Llama-3-70B config.json)"
#define LLAMA2_7B "Llama 2 7B: 32 layers, 32 KV heads of 128 (arXiv:2307.09288; HF config)"

const gp_workload gp_workloads[] = {
    {"llama2-70b-offline",
     "MLPerf Inference Llama-2-70B offline: FP4 where supported, else FP8, else FP16; output "
     "tokens",
     70,
     70,
     80,
     8,
     128,
     GP_WL_OFFLINE,
     {GP_WL_FP4, GP_WL_FP8, GP_WL_FP16},
     3,
     256,
     294,
     294,
     LLAMA2_70B "; serving point: batch 256 a replica, 294 output tokens a sample (MLPerf "
                "v4.1 logs: tokens/s over samples/s), input assumed as long",
     "llama-2-70b-chat"},
    {"llama3-8b-decode",
     "Llama 3 8B decode: FP8 where supported, else BF16, else FP16",
     8.03,
     8.03,
     32,
     8,
     128,
     GP_WL_DECODE,
     {GP_WL_FP8, GP_WL_BF16, GP_WL_FP16},
     3,
     128,
     1024,
     256,
     LLAMA3_8B "; serving point: batch 128, 1024 prompt and 256 generated tokens",
     "llama-3-8b-instruct"},
    {"llama3-70b-decode",
     "Llama 3 70B decode: FP8 where supported, else BF16, else FP16",
     70.6,
     70.6,
     80,
     8,
     128,
     GP_WL_DECODE,
     {GP_WL_FP8, GP_WL_BF16, GP_WL_FP16},
     3,
     128,
     1024,
     256,
     LLAMA3_70B "; serving point: batch 128, 1024 prompt and 256 generated tokens",
     "llama-3-70b-instruct"},
    {"llama2-7b-training",
     "Llama 2 7B pre-training in BF16 (FSDP inside one server)",
     6.74,
     6.74,
     32,
     32,
     128,
     GP_WL_TRAINING,
     {GP_WL_BF16},
     1,
     0,
     4096,
     0,
     LLAMA2_7B "; sequences of 4096 tokens, BF16 with FP32 master weights and Adam: 16 bytes a "
               "parameter",
     ""},
};
const int gp_n_workloads = sizeof gp_workloads / sizeof gp_workloads[0];

const gp_workload *gp_workload_find(const char *name) {
    for (int i = 0; i < gp_n_workloads; i++)
        if (strcmp(gp_workloads[i].name, name) == 0)
            return &gp_workloads[i];
    return NULL;
}

static const char *const prec_names[GP_WL_NPREC] = {"fp4", "fp8", "fp16", "bf16"};
static const char *const phase_names[] = {"training", "prefill", "decode", "offline"};

const char *gp_wl_prec_name(gp_wl_prec p) {
    return p >= 0 && p < GP_WL_NPREC ? prec_names[p] : "?";
}

const char *gp_wl_phase_name(gp_wl_phase p) {
    return p >= GP_WL_TRAINING && p <= GP_WL_OFFLINE ? phase_names[p] : "?";
}

bool gp_wl_prec_parse(const char *s, gp_wl_prec *out) {
    for (int i = 0; i < GP_WL_NPREC; i++)
        if (strcmp(s, prec_names[i]) == 0)
            return *out = (gp_wl_prec)i, true;
    return false;
}

bool gp_wl_phase_parse(const char *s, gp_wl_phase *out) {
    for (int i = 0; i <= GP_WL_OFFLINE; i++)
        if (strcmp(s, phase_names[i]) == 0)
            return *out = (gp_wl_phase)i, true;
    return false;
}

#define MLPERF_CAL                                                                                 \
    "calibrated so the llama2-70b-offline estimate meets the bundled MLPerf Inference v4.1 "       \
    "per-GPU results (docs/compare.md)"

gp_wl_eff gp_wl_efficiency(const char *family, gp_wl_phase phase) {
    if (phase == GP_WL_TRAINING) {
        /* llm-foundry's training benchmark table (scripts/train/benchmarking/README.md, 7B
         * rows): A100 51-64 % MFU, H100 40-46 %. */
        if (strcmp(family, "ampere") == 0)
            return (gp_wl_eff){0, 0.55, "MFU 0.55: llm-foundry benchmark table, A100 7B rows"};
        if (strcmp(family, "hopper") == 0 || strcmp(family, "blackwell") == 0)
            return (gp_wl_eff){0, 0.43, "MFU 0.43: llm-foundry benchmark table, H100 7B rows"};
        return (gp_wl_eff){0, 0.40, "MFU 0.40: assumed (no published figure bundled)"};
    }
    /* Serving: the compute ceiling 0.60 is an assumption (it does not bind at the calibration
     * points); the bandwidth shares are fitted to MLPerf v4.1 Llama-2-70B offline. */
    if (strcmp(family, "blackwell") == 0)
        return (gp_wl_eff){0.29, 0.60, "bandwidth 0.29, " MLPERF_CAL " (B200)"};
    if (strcmp(family, "cdna3") == 0)
        return (gp_wl_eff){0.185, 0.60, "bandwidth 0.185, " MLPERF_CAL " (MI300X)"};
    if (strcmp(family, "hopper") == 0)
        return (gp_wl_eff){0.305, 0.60, "bandwidth 0.305, " MLPERF_CAL " (H100, H200)"};
    return (gp_wl_eff){0.305, 0.60,
                       "bandwidth 0.305: Hopper's calibration borrowed (no published figure "
                       "bundled for this family)"};
}

static double bytes_per_weight(gp_wl_prec p) {
    return p == GP_WL_FP4 ? 0.5 : p == GP_WL_FP8 ? 1.0 : 2.0;
}

/* The first precision of w's preference the GPU has tensor support for, or -1 with the reason
 * in o->why. */
static int pick_precision(const gp_workload *w, const gp_wl_hw *h, gp_wl_estimate *o) {
    for (int i = 0; i < w->n_prefer; i++)
        if (h->tflops[w->prefer[i]] > 0)
            return w->prefer[i];
    char pol[64] = "";
    for (int i = 0; i < w->n_prefer; i++)
        snprintf(pol + strlen(pol), sizeof pol - strlen(pol), "%s%s", i ? "/" : "",
                 gp_wl_prec_name(w->prefer[i]));
    snprintf(o->why, sizeof o->why, "precision: %s has no %s tensor support", h->gpu, pol);
    return -1;
}

/* The tensor-parallel degree: a training job's whole server, a serving replica's fewest GPUs
 * (a power of two) whose usable memory holds o->need_gb; false, with the reason in o->why, when
 * the server's does not. */
static bool fit_memory(const gp_workload *w, const gp_wl_hw *h, gp_wl_estimate *o) {
    int tp = w->phase == GP_WL_TRAINING ? h->per_server : 0;
    for (int t = 1; !tp && t <= h->per_server; t *= 2)
        if (o->need_gb <= t * h->memory_gb * GP_WL_MEM_USABLE)
            tp = t;
    if (!tp || o->need_gb > tp * h->memory_gb * GP_WL_MEM_USABLE) {
        o->have_gb = h->per_server * h->memory_gb * GP_WL_MEM_USABLE;
        snprintf(o->why, sizeof o->why,
                 "does not fit: %.0f GB of %s weights%s need more than the %.0f GB usable on %d "
                 "x %s (%.0f GB each, %.0f %% usable)",
                 o->need_gb, gp_wl_prec_name(o->precision),
                 w->phase == GP_WL_TRAINING ? " and optimizer state" : " and KV cache", o->have_gb,
                 h->per_server, h->gpu, h->memory_gb, GP_WL_MEM_USABLE * 100);
        return false;
    }
    o->tp = tp;
    o->have_gb = tp * h->memory_gb * GP_WL_MEM_USABLE;
    o->fits = true;
    return true;
}

/* FLOPs a token: 6 x active parameters to train, 2 x to serve (offline: per output token,
 * which carries its share of the prompt). */
static double flops_per_token(const gp_workload *w, double active) {
    switch (w->phase) {
    case GP_WL_TRAINING:
        return 6.0 * active;
    case GP_WL_OFFLINE: /* output tokens counted: each carries its share of the prompt */
        return 2.0 * active * (w->input_len + w->output_len) / w->output_len;
    default:
        return 2.0 * active;
    }
}

/* Serving's tokens a second a GPU, the lesser of compute and memory bandwidth, with its
 * formula; weights and kv_read are the bytes a step reads. */
static void serving_rate(const gp_workload *w, const gp_wl_hw *h, double flops_token,
                         double weights, double kv_read, gp_wl_estimate *o) {
    /* A replica of tp GPUs reads its weights and the batch's KV cache once a step and makes
     * batch tokens (prefill: batch x input tokens): per GPU the tp cancels. */
    double per_step =
        w->phase == GP_WL_PREFILL ? (double)w->batch * w->input_len : (double)w->batch;
    double bw = h->bw_gbs * 1e9;
    o->bandwidth_tps = per_step * o->eff.bandwidth * bw / (weights + kv_read);
    o->tokens_per_s = fmin(o->compute_tps, o->bandwidth_tps);
    snprintf(o->formula, sizeof o->formula,
             "tokens/s a GPU = min(compute %.2f x %g %s TFLOP/s / %.3g FLOP a token = %.0f, "
             "bandwidth %.3f x %g GB/s x %.0f tokens a step / (%.1f GB weights + %.1f GB KV "
             "read) = %.0f) = %.0f; TP %d (%.0f GB needed, %.0f GB usable)",
             o->eff.compute, h->tflops[o->precision], gp_wl_prec_name(o->precision), flops_token,
             o->compute_tps, o->eff.bandwidth, h->bw_gbs, per_step, weights / 1e9, kv_read / 1e9,
             o->bandwidth_tps, o->tokens_per_s, o->tp, o->need_gb, o->have_gb);
}

void gp_wl_estimate_on(const gp_workload *w, const gp_wl_hw *h, gp_wl_estimate *o) {
    memset(o, 0, sizeof *o);
    o->eff = gp_wl_efficiency(h->family, w->phase);
    int pick = pick_precision(w, h, o);
    if (pick < 0)
        return;
    o->precision = (gp_wl_prec)pick;
    double params = w->params_b * 1e9, active = w->active_params_b * 1e9;
    double kv_bytes = pick == GP_WL_FP8 || pick == GP_WL_FP4 ? 1.0 : 2.0;
    double kv_token = 2.0 * w->layers * w->kv_heads * w->head_dim * kv_bytes;
    double weights, kv = 0, kv_read = 0;
    if (w->phase == GP_WL_TRAINING) {
        weights = 16.0 * params; /* BF16 weights and gradients, FP32 master and Adam moments */
    } else {
        weights = params * bytes_per_weight(o->precision);
        kv = (double)w->batch * (w->input_len + w->output_len) * kv_token;
        double ctx =
            w->phase == GP_WL_PREFILL ? w->input_len / 2.0 : w->input_len + w->output_len / 2.0;
        kv_read = (double)w->batch * ctx * kv_token;
    }
    o->weights_gb = weights / 1e9;
    o->kv_gb = kv / 1e9;
    o->need_gb = (weights + kv) / 1e9;
    if (!fit_memory(w, h, o))
        return;
    double flops_token = flops_per_token(w, active);
    double peak = h->tflops[pick] * 1e12;
    o->compute_tps = o->eff.compute * peak / flops_token;
    if (w->phase == GP_WL_TRAINING) {
        o->bandwidth_tps = INFINITY;
        o->tokens_per_s = o->compute_tps;
        snprintf(o->formula, sizeof o->formula,
                 "tokens/s a GPU = MFU %.2f x %g %s TFLOP/s / (6 x %.3g parameters) = %.0f; "
                 "%.0f GB of state over %d GPUs of a server (%.0f GB usable)",
                 o->eff.compute, h->tflops[pick], gp_wl_prec_name(o->precision), active,
                 o->tokens_per_s, o->need_gb, o->tp, o->have_gb);
    } else {
        serving_rate(w, h, flops_token, weights, kv_read, o);
    }
    o->m_tokens_per_gpu_hour = o->tokens_per_s * 3600.0 / 1e6;
}

#define V41 "mlcommons/inference_results_v4.1@a2f5d66d17e8f75c02fd74dfe810ecca6a046696:closed/"

/* MLPerf Inference v4.1 (published 2024-08-28), datacenter closed, Llama-2-70B Offline. */
const gp_wl_published gp_wl_published_table[] = {
    {"llama2-70b-offline", "H100", 24524.9, 8, "fp8", "2024-08-28",
     "MLPerf Inference v4.1 closed, NVIDIA DGX-H100 8x H100-SXM-80GB TensorRT: " V41
     "NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9/Offline/performance/run_1/"
     "mlperf_log_summary.txt (Tokens per second 24524.9)"},
    {"llama2-70b-offline", "H200", 31917, 8, "fp8", "2024-08-28",
     "MLPerf Inference v4.1 closed, Lenovo ThinkSystem SR685a V3 8x H200-SXM-141GB TensorRT: " V41
     "Lenovo/results/H200_SXM_141GBx8_TRT/llama2-70b-99/Offline/performance/run_1/"
     "mlperf_log_detail.txt (result_tokens_per_second 31917)"},
    {"llama2-70b-offline", "B200", 11264.4, 1, "fp4", "2024-08-28",
     "MLPerf Inference v4.1 closed (preview), NVIDIA 1x B200-SXM-180GB TensorRT: " V41
     "NVIDIA/results/B200-SXM-180GBx1_TRT/llama2-70b-99/Offline/performance/run_1/"
     "mlperf_log_summary.txt (Tokens per second 11264.4)"},
    {"llama2-70b-offline", "MI300X", 23514.8, 8, "fp8", "2024-08-28",
     "MLPerf Inference v4.1 closed, AMD 8x MI300X 2x EPYC 9374F vLLM: " V41
     "AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99/Offline/performance/run_1/"
     "mlperf_log_summary.txt (Tokens per second 23514.8)"},
};
const int gp_wl_n_published = sizeof gp_wl_published_table / sizeof gp_wl_published_table[0];
