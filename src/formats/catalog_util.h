/* Helpers the catalog importers share, defined in catalog_util.c beside the batch functions of
 * gpuplan/catalog.h and gp_parse_number. They sit below the importers and call nothing above
 * them. The JSON telemetry and reference parsers use gp_catalog_json too. */
#ifndef GPUPLAN_CATALOG_UTIL_H
#define GPUPLAN_CATALOG_UTIL_H

#include <cjson/cJSON.h>

#include "gpuplan/catalog.h"

/* Parse a JSON document for an importer; on failure err names origin:line:column. */
gp_status gp_catalog_json(const char *buf, size_t len, const char *origin, cJSON **out,
                          gp_err *err);

/* A price field: a number >= 0 ("" or absent: *has = false). False on junk or a negative. */
bool gp_catalog_price(const char *s, size_t len, bool *has, double *out);

/* Copy a field into a fixed buffer; false (and nothing copied) when it does not fit. */
bool gp_catalog_copy(char *dst, size_t cap, const char *src, size_t len);

#endif
