/* Workloads as data (docs/compare.md "Workload profiles"): a model (parameters, active
 * parameters for a mixture of experts, the attention shape the KV cache follows), a phase, a
 * precision policy and a serving point; the hardware facts an estimate of one needs per GPU
 * model; the estimate itself, with tensor parallelism inside one server and a refusal where the
 * GPU cannot run the workload; and the published per-GPU results bundled for the profiles they
 * match. Model layer: pure functions over bundled tables, no I/O.
 *
 * Ownership: the bundled tables are static; gp_wl_estimate fills caller storage. Errors: an
 * estimate that cannot be made says why in its result (fits false, why set), never fails. */
#ifndef GPUPLAN_WORKLOAD_H
#define GPUPLAN_WORKLOAD_H

#include <stdbool.h>

#define GP_WL_NAME_BYTES 48

typedef enum gp_wl_phase { GP_WL_TRAINING, GP_WL_PREFILL, GP_WL_DECODE, GP_WL_OFFLINE } gp_wl_phase;
typedef enum gp_wl_prec { GP_WL_FP4, GP_WL_FP8, GP_WL_FP16, GP_WL_BF16, GP_WL_NPREC } gp_wl_prec;

/* One workload profile. Throughput is in M tokens a GPU-hour: tokens trained (training),
 * prompt tokens read (prefill), tokens generated (decode, offline). */
typedef struct gp_workload {
    char name[GP_WL_NAME_BYTES];
    char what[200];         /* one line for listings */
    double params_b;        /* parameters, billions (weights held in memory) */
    double active_params_b; /* parameters a token passes through (< params for MoE) */
    int layers, kv_heads, head_dim;
    gp_wl_phase phase;
    gp_wl_prec prefer[GP_WL_NPREC]; /* the precision policy: the first one the GPU supports */
    int n_prefer;
    int batch;                 /* sequences in flight per model replica (training: unused) */
    int input_len, output_len; /* tokens a sequence: prompt and generated */
    char source[300];          /* where the model shape and serving point come from */
    /* The hosted model an API serves this workload's model as (the catalog's API price
     * model name, "llama-3-70b-instruct"), "" when none: compare prices it per unit. */
    char api_model[64];
} gp_workload;

/* The hardware facts of one GPU model (dense tensor rates, no sparsity), keyed by its catalog
 * name. A rate of 0 means the precision is not supported in hardware. */
typedef struct gp_wl_hw {
    const char *gpu;    /* catalog name: "H100" */
    const char *family; /* "hopper": the efficiency key */
    const char *form;   /* "sxm", "pcie", "oam", "superchip" */
    double memory_gb, bw_gbs;
    double tflops[GP_WL_NPREC]; /* FP4, FP8, FP16, BF16 dense tensor TFLOP/s */
    int per_server;             /* GPUs one server holds (the tensor-parallel ceiling) */
    const char *source;
} gp_wl_hw;

extern const gp_wl_hw gp_wl_hw_table[];
extern const int gp_wl_n_hw;
const gp_wl_hw *gp_wl_hw_find(const char *gpu);

extern const gp_workload gp_workloads[];
extern const int gp_n_workloads;
const gp_workload *gp_workload_find(const char *name);

const char *gp_wl_prec_name(gp_wl_prec p);   /* "fp8" */
const char *gp_wl_phase_name(gp_wl_phase p); /* "decode" */
/* "fp8" -> GP_WL_FP8; false when unknown. */
bool gp_wl_prec_parse(const char *s, gp_wl_prec *out);
bool gp_wl_phase_parse(const char *s, gp_wl_phase *out);

/* The efficiencies an estimate applies for a family and phase, and where they come from. */
typedef struct gp_wl_eff {
    double bandwidth; /* share of peak memory bandwidth reached (decode, offline) */
    double compute;   /* share of peak tensor FLOP/s reached (MFU for training) */
    const char *source;
} gp_wl_eff;
gp_wl_eff gp_wl_efficiency(const char *family, gp_wl_phase phase);

/* The usable share of GPU memory: the rest holds activations, the runtime and fragments. */
#define GP_WL_MEM_USABLE 0.90

typedef struct gp_wl_estimate {
    bool fits;
    char why[200];        /* !fits: "does not fit: ..." or "precision: ..." */
    gp_wl_prec precision; /* the precision the policy picked */
    int tp;               /* GPUs a replica spans (tensor parallel, inside one server) */
    double weights_gb, kv_gb, need_gb, have_gb; /* per replica */
    double compute_tps, bandwidth_tps;          /* per GPU, tokens a second */
    double tokens_per_s;                        /* per GPU: min of the two */
    double m_tokens_per_gpu_hour;
    gp_wl_eff eff;
    char formula[700]; /* the estimate in words with its numbers */
} gp_wl_estimate;

/* The estimate of workload w on hardware h (always filled; fits says whether it can run). */
void gp_wl_estimate_on(const gp_workload *w, const gp_wl_hw *h, gp_wl_estimate *out);

/* A published per-GPU result (docs/compare.md "Published results"). */
typedef struct gp_wl_published {
    const char *profile, *gpu;
    double tokens_per_s_system; /* as published, for the whole system */
    int gpus;                   /* accelerators in that system */
    const char *precision;      /* the precision the submission ran */
    const char *as_of;          /* the publication date */
    const char *source;         /* repository, path and commit */
} gp_wl_published;

extern const gp_wl_published gp_wl_published_table[];
extern const int gp_wl_n_published;

#endif
