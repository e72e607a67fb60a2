/* The catalog importers, one per format: a detector and a parser each, defined in
 * catalog_csv.c and catalog_json.c and listed in catalog.c's one table, the only caller.
 * Each parser follows gp_catalog_parse's contract; provider matters to skypilot only. */
#ifndef GPUPLAN_CATALOG_INT_H
#define GPUPLAN_CATALOG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/catalog.h"

/* The start of an input as detectors see it: past a UTF-8 BOM and leading white space. */
typedef struct gp_catalog_head {
    const char *p, *end; /* the rest of the input */
    const char *first;   /* its first 4096 bytes, NUL-terminated */
} gp_catalog_head;

typedef bool gp_catalog_detect_fn(const gp_catalog_head *h);
typedef gp_status gp_catalog_parse_fn(const char *buf, size_t len, const char *origin,
                                      const char *provider, gp_catalog_batch *out, gp_err *err);

typedef struct gp_catalog_importer {
    gp_catalog_format format;
    const char *name; /* as --format takes it */
    gp_catalog_detect_fn *detect;
    gp_catalog_parse_fn *parse;
} gp_catalog_importer;

/* catalog_json.c */
gp_catalog_detect_fn gp_detect_gpuplan_catalog, gp_detect_aws_offer, gp_detect_gcp_skus,
    gp_detect_ec2instances;
gp_catalog_parse_fn gp_parse_gpuplan_catalog, gp_parse_aws_offer, gp_parse_gcp_skus,
    gp_parse_ec2instances;
/* catalog_csv.c */
gp_catalog_detect_fn gp_detect_gcp_cud, gp_detect_skypilot;
gp_catalog_parse_fn gp_parse_gcp_cud, gp_parse_skypilot;

#endif
