/* The price and hardware catalog: records the importers produce and the store keeps.
 *
 * Importers (formats layer) turn bytes into a gp_catalog_batch; the store writes a batch in
 * one transaction. A batch owns its records (gp_catalog_batch_done frees them). Records a
 * parser could read but not accept are counted in the batch's skip list with a reason. */
#ifndef GPUPLAN_CATALOG_H
#define GPUPLAN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/scenario.h"

#define GP_GPU_NAME_BYTES 48

typedef enum gp_catalog_format {
    GP_FMT_UNKNOWN,
    GP_FMT_GPUPLAN,      /* the project's own catalog JSON */
    GP_FMT_SKYPILOT,     /* SkyPilot catalog CSV (aws, azure, gcp, lambda, vast) */
    GP_FMT_EC2INSTANCES, /* ec2instances.info / vantage instances.json */
    GP_FMT_AWS_OFFER,    /* AWS Price List offer file JSON */
    GP_FMT_GCP_SKUS,     /* GCP Cloud Billing SKUs JSON */
    GP_FMT_GCP_CUD,      /* the Cyclenerd GCP table with committed-use prices */
} gp_catalog_format;

/* One price of one offer: an instance type in a region under one pricing kind. */
typedef struct gp_price_rec {
    char provider[16];
    char instance[96];
    char region[64];
    char gpu[GP_GPU_NAME_BYTES]; /* the catalog GPU name (gp_gpu_normalize) */
    double gpu_count;            /* may be fractional (a slice of a GPU) */
    double vcpus, memory_gib;    /* 0 when the source does not say */
    gp_pricing pricing;
    int term_months;      /* committed: 12 or 36; else 0 */
    gp_purchase purchase; /* committed only */
    double hourly;        /* per instance-hour; committed: the effective hourly rate */
    bool has_range;       /* spot: the source gave min and max around the average */
    double low, high;
    bool has_split;            /* committed: the source gave the fee and the rate apart */
    double upfront, recurring; /* per instance per term; per instance-hour */
    char interruption_band[8]; /* spot: "<5%" .. ">20%", "" when the source gives none */
    char currency[4];
    int where;       /* line or record number in the source, for messages */
    bool shape_only; /* an instance shape the source gives no price for: the offer alone */
} gp_price_rec;

typedef struct gp_skip_reason {
    char reason[96];
    char first[64]; /* where it first happened: "line 12" */
    size_t count;
} gp_skip_reason;

#define GP_MAX_SKIP_REASONS 24

typedef struct gp_catalog_batch {
    gp_catalog_format format;
    char provider[16];       /* when the whole batch is one provider's, else "" */
    char effective_from[11]; /* from the content when it says, else "" */
    gp_price_rec *recs;
    size_t n, cap, limit;
    size_t skipped;
    size_t ignored; /* readable records that are no GPU offer (CPU instances, TPUs) */
    int n_reasons;
    gp_skip_reason reasons[GP_MAX_SKIP_REASONS];
} gp_catalog_batch;

/* Start an empty batch holding at most limit records (GP_E_LIMIT past it). */
void gp_catalog_batch_init(gp_catalog_batch *b, size_t limit);
void gp_catalog_batch_done(gp_catalog_batch *b);
/* Append a copy of rec. */
gp_status gp_catalog_batch_add(gp_catalog_batch *b, const gp_price_rec *rec, gp_err *err);
/* Count one skipped record under reason (printf-style); where is "line 12" or similar. */
void gp_catalog_skip(gp_catalog_batch *b, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Drop later records with the same (provider, instance, region, pricing, term, purchase),
 * counting them as skipped duplicates. Keeps the input order otherwise. */
void gp_catalog_dedupe(gp_catalog_batch *b);

/* "gpuplan", "skypilot", ... and back (GP_FMT_UNKNOWN for an unknown name). */
const char *gp_catalog_format_name(gp_catalog_format f);
gp_catalog_format gp_catalog_format_from_name(const char *name);

/* Guess the format from the first bytes and the file name; GP_FMT_UNKNOWN when unsure. */
gp_catalog_format gp_catalog_detect(const char *buf, size_t len, const char *filename);

/* Guess a provider ("aws", "azure", "gcp", "lambda", "vast") from a file name or URL; "" when
 * none is named. */
const char *gp_catalog_provider_from_name(const char *filename);

/* Parse buf[0..len) as format into out (initialised by the caller). provider is required for
 * skypilot and ignored elsewhere. A file that cannot be read as the format fails with
 * GP_E_INPUT naming origin and line or record; readable records with bad values are skipped
 * and counted. */
gp_status gp_catalog_parse(gp_catalog_format format, const char *buf, size_t len,
                           const char *origin, const char *provider, gp_catalog_batch *out,
                           gp_err *err);

/* Normalise a GPU name as any source writes it ("NVIDIA H100 80GB HBM3", "H100-80GB",
 * "Tesla T4", "NVIDIA A100-SXM4-80GB", "a100") to one catalog name ("H100", "T4",
 * "A100-80GB"). mem_gib (0: unknown) picks the memory variant where a family has two.
 * Unknown names come back cleaned (vendor words dropped, upper case); returns false then. */
bool gp_gpu_normalize(const char *raw, double mem_gib, char *out, size_t cap);

/* The name people read for a GPU as a source reported it: vendor words, "Generation" and memory
 * types dropped, spacing kept, then the form factor and the memory the raw name gives
 * ("NVIDIA H100 80GB HBM3" -> "H100 SXM 80GB", "NVIDIA RTX 2000 Ada Generation" -> "RTX 2000
 * Ada"). Writes at most cap bytes (cap > 0); false, out "", when nothing is left of raw. */
bool gp_gpu_display_name(const char *raw, char *out, size_t cap);

/* Parse a money or quantity field: a plain decimal number, nothing else. */
bool gp_parse_number(const char *s, size_t len, double *out);

/* docs/model.md "Catalog references", a commitment priced by its effective hourly rate: the fee
 * per instance per term (*upfront) and the recurring rate (*hourly) of its purchase option
 * over term_months. all_upfront pays it all up front, no_upfront all by the hour,
 * partial_upfront half and half; returns true for that derived half-and-half split. */
bool gp_commitment_split(gp_purchase purchase, int term_months, double hourly_eff, double *hourly,
                         double *upfront);

/* The interruptions per hour of a spot interruption-frequency band a month ("<5%", "5-10%",
 * "10-15%", "15-20%", ">20%"): the band's midpoint (22.5 % for ">20%") over 730 hours.
 * False, *per_hour untouched, for any other text. */
bool gp_spot_band_interruptions(const char *band, double *per_hour);

#endif
