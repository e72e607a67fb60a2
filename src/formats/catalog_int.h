/* The catalog importers, one per format (src/formats/catalog_*.c), and helpers they share.
 * Each follows gp_catalog_parse's contract. */
#ifndef GPUPLAN_CATALOG_INT_H
#define GPUPLAN_CATALOG_INT_H

#include <cjson/cJSON.h>

#include "gpuplan/catalog.h"
#include "gpuplan/csv.h"

gp_status gp_parse_gpuplan_catalog(const char *buf, size_t len, const char *origin,
                                   gp_catalog_batch *out, gp_err *err);
gp_status gp_parse_skypilot(const char *buf, size_t len, const char *origin, const char *provider,
                            gp_catalog_batch *out, gp_err *err);
gp_status gp_parse_ec2instances(const char *buf, size_t len, const char *origin,
                                gp_catalog_batch *out, gp_err *err);
gp_status gp_parse_aws_offer(const char *buf, size_t len, const char *origin, gp_catalog_batch *out,
                             gp_err *err);
gp_status gp_parse_gcp_skus(const char *buf, size_t len, const char *origin, gp_catalog_batch *out,
                            gp_err *err);
gp_status gp_parse_gcp_cud(const char *buf, size_t len, const char *origin, gp_catalog_batch *out,
                           gp_err *err);

/* Parse a JSON document for an importer; on failure err names origin:line:column. */
gp_status gp_catalog_json(const char *buf, size_t len, const char *origin, cJSON **out,
                          gp_err *err);

/* A price field: a number >= 0 ("" or absent: *has = false). False on junk or a negative. */
bool gp_catalog_price(const char *s, size_t len, bool *has, double *out);

/* Copy a field into a fixed buffer; false (and nothing copied) when it does not fit. */
bool gp_catalog_copy(char *dst, size_t cap, const char *src, size_t len);

#endif
