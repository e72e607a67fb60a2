/* Reference tables bundled with the catalog: GPU specs, hardware purchase prices, electricity
 * prices, PUE reference values and time-of-use tariff presets. Parsers (formats layer): bytes
 * in, rows out through a callback; rows are borrowed for the call. A file that is not the
 * expected table fails with GP_E_INPUT naming origin and line; unusable rows are skipped and
 * counted in *skipped. */
#ifndef GPUPLAN_REFERENCE_H
#define GPUPLAN_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

enum {
    GP_SPEC_MEMORY_GB,
    GP_SPEC_TDP_W,
    GP_SPEC_FP32,
    GP_SPEC_FP16,
    GP_SPEC_BF16,
    GP_SPEC_MEM_BW_GBS,
    GP_SPEC_FP32_MATRIX, /* FP32 on the matrix units where the vendor lists it (AMD); FP32 is
                            the vector rate */
    GP_SPEC_N
};

typedef struct gp_gpu_spec {
    char name[GP_GPU_NAME_BYTES]; /* the catalog name */
    char full_name[128];
    char vendor[32];
    double v[GP_SPEC_N]; /* TFLOPS for the three FP columns */
    bool has[GP_SPEC_N];
    char release_date[11];
} gp_gpu_spec;

typedef struct gp_hw_price {
    char item[160];
    char gpu[GP_GPU_NAME_BYTES];
    int gpus; /* GPUs the price buys: 1 for a per-GPU price, 8 for an 8-GPU server */
    double price_usd;
    char date[11];
    char note[160];
} gp_hw_price;

typedef struct gp_elec_price {
    char region[64];
    char sector[16]; /* residential, commercial, industrial, total */
    double price_per_kwh;
} gp_elec_price;

typedef struct gp_pue_ref {
    char scope[128];
    char year[16];
    double pue;
} gp_pue_ref;

typedef struct gp_tariff_preset {
    char name[64];
    char utility[96];
    char description[256];
    char tariff_json[2048]; /* a scenario's self_hosted.tariff object */
    char effective_from[11];
} gp_tariff_preset;

typedef enum gp_reference_kind {
    GP_REF_SPECS_EPOCH,
    GP_REF_SPECS_MLCO2,
    GP_REF_HARDWARE_EPOCH,
    GP_REF_HARDWARE_NOTES,
    GP_REF_ELECTRICITY_EIA,
    GP_REF_PUE_REFERENCE,
    GP_REF_PUE_GREEN_ALGORITHMS,
    GP_REF_TARIFF_URDB,
    GP_REF_SPECS_GPUPLAN, /* specs/gpuplan_spec_supplement.csv: datasheet figures, gaps only */
} gp_reference_kind;

/* Where rows go. A callback that fails fills err and returns its code, which stops the parse
 * and is returned from gp_reference_parse. NULL callbacks drop their rows. */
typedef struct gp_reference_sink {
    gp_status (*spec)(const gp_gpu_spec *, void *, gp_err *);
    gp_status (*hardware)(const gp_hw_price *, void *, gp_err *);
    gp_status (*electricity)(const gp_elec_price *, void *, gp_err *);
    gp_status (*pue)(const gp_pue_ref *, void *, gp_err *);
    gp_status (*tariff)(const gp_tariff_preset *, void *, gp_err *);
    void *arg;
} gp_reference_sink;

/* Parse a reference table of the given kind, handing each row to the matching callback of
 * sink. name_hint names the table (a URDB file's preset name comes from it). */
gp_status gp_reference_parse(gp_reference_kind kind, const char *buf, size_t len,
                             const char *origin, const char *name_hint,
                             const gp_reference_sink *sink, size_t *skipped, gp_err *err);

/* "specs-epoch", "specs-mlco2", ... and back (-1 when unknown). */
const char *gp_reference_kind_name(gp_reference_kind k);
int gp_reference_kind_from_name(const char *name);

#endif
