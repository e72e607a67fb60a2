/* The catalog's front door: the one table of importers (name, detector, parser), and the format
 * names, detection and gp_catalog_parse, which all read that table. Dispatch goes one way:
 * here -> an importer (catalog_csv.c, catalog_json.c) -> the shared helpers (catalog_util.c). */
#include "gpuplan/catalog.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "catalog_int.h"

/* Every importer, in detection order: the first detector that says yes names the format. */
static const gp_catalog_importer importers[] = {
    {GP_FMT_GPUPLAN, "gpuplan", gp_detect_gpuplan_catalog, gp_parse_gpuplan_catalog},
    {GP_FMT_AWS_OFFER, "aws-offer", gp_detect_aws_offer, gp_parse_aws_offer},
    {GP_FMT_GCP_SKUS, "gcp-skus", gp_detect_gcp_skus, gp_parse_gcp_skus},
    {GP_FMT_EC2INSTANCES, "ec2instances", gp_detect_ec2instances, gp_parse_ec2instances},
    {GP_FMT_GCP_CUD, "gcp-cud", gp_detect_gcp_cud, gp_parse_gcp_cud},
    {GP_FMT_SKYPILOT, "skypilot", gp_detect_skypilot, gp_parse_skypilot},
};

#define N_IMPORTERS (sizeof importers / sizeof importers[0])

static const gp_catalog_importer *importer_of(gp_catalog_format f) {
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (importers[i].format == f)
            return &importers[i];
    return NULL;
}

const char *gp_catalog_format_name(gp_catalog_format f) {
    const gp_catalog_importer *imp = importer_of(f);
    return imp ? imp->name : "unknown";
}

gp_catalog_format gp_catalog_format_from_name(const char *name) {
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (strcmp(name, importers[i].name) == 0)
            return importers[i].format;
    return GP_FMT_UNKNOWN;
}

const char *gp_catalog_provider_from_name(const char *filename) {
    static const char *const providers[] = {"azure", "gcp", "lambda", "vast", "aws"};
    const char *base = strrchr(filename, '/');
    base = base ? base + 1 : filename;
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++)
        if (strstr(base, providers[i]))
            return providers[i];
    return "";
}

gp_catalog_format gp_catalog_detect(const char *buf, size_t len, const char *filename) {
    const char *p = buf, *end = buf + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    while (p < end && isspace((unsigned char)*p))
        p++;
    size_t head = (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096;
    char first[4097];
    memcpy(first, p, head);
    first[head] = '\0';
    const gp_catalog_head h = {p, end, first};
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (importers[i].detect(&h))
            return importers[i].format;
    (void)filename;
    return GP_FMT_UNKNOWN;
}

gp_status gp_catalog_parse(gp_catalog_format format, const char *buf, size_t len,
                           const char *origin, const char *provider, gp_catalog_batch *out,
                           gp_err *err) {
    out->format = format;
    const gp_catalog_importer *imp = importer_of(format);
    if (!imp)
        return gp_errorf(err, GP_E_INPUT, origin, "unknown catalog format; give --format");
    gp_status st = imp->parse(buf, len, origin, provider, out, err);
    if (st == GP_OK)
        gp_catalog_dedupe(out);
    return st;
}

bool gp_commitment_split(gp_purchase purchase, int term_months, double hourly_eff, double *hourly,
                         double *upfront) {
    double term_hours = GP_MONTH_HOURS * term_months;
    switch (purchase) {
    case GP_ALL_UPFRONT:
        *upfront = hourly_eff * term_hours;
        *hourly = 0.0;
        return false;
    case GP_PARTIAL_UPFRONT:
        *upfront = hourly_eff * term_hours / 2.0;
        *hourly = hourly_eff / 2.0;
        return true;
    case GP_NO_UPFRONT:
        break;
    }
    *upfront = 0.0;
    *hourly = hourly_eff;
    return false;
}

bool gp_spot_band_interruptions(const char *band, double *per_hour) {
    static const struct {
        const char *band;
        double midpoint; /* interruptions a month, as a share */
    } bands[] = {
        {"<5%", 0.025}, {"5-10%", 0.075}, {"10-15%", 0.125}, {"15-20%", 0.175}, {">20%", 0.225}};
    for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++) {
        if (strcmp(band, bands[i].band) == 0) {
            *per_hour = bands[i].midpoint / GP_MONTH_HOURS;
            return true;
        }
    }
    return false;
}
