/* Catalog importers on the real files (pricing/ and tests/fixtures/catalog), the CSV reader,
 * GPU name normalisation, and bad input. GP_SOURCE_ROOT names the source tree. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/csv.h"
#include "gpuplan/reference.h"
#include "testutil.h"

static char *slurp(const char *rel, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", "", rel);
    return test_slurp(path, len);
}

static gp_status parse_file(gp_catalog_format fmt, const char *rel, const char *provider,
                            gp_catalog_batch *b, gp_err *err) {
    size_t len;
    char *buf = slurp(rel, &len);
    assert_non_null(buf);
    gp_catalog_batch_init(b, 1u << 22);
    gp_status st = gp_catalog_parse(fmt, buf, len, rel, provider, b, err);
    free(buf);
    return st;
}

static gp_status parse_text(gp_catalog_format fmt, const char *text, const char *provider,
                            gp_catalog_batch *b, gp_err *err) {
    gp_catalog_batch_init(b, 1u << 22);
    return gp_catalog_parse(fmt, text, strlen(text), "t", provider, b, err);
}

static const gp_price_rec *find(const gp_catalog_batch *b, const char *instance, const char *region,
                                gp_pricing p, int term, gp_purchase pu) {
    for (size_t i = 0; i < b->n; i++) {
        const gp_price_rec *r = &b->recs[i];
        if (!strcmp(r->instance, instance) && !strcmp(r->region, region) && r->pricing == p &&
            (p != GP_COMMITTED || (r->term_months == term && r->purchase == pu)))
            return r;
    }
    return NULL;
}

static void test_gpu_names(void **state) {
    (void)state;
    static const struct {
        const char *raw;
        double mem;
        const char *want;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", 0, "H100"},
        {"H100-80GB", 0, "H100"},
        {"H100", 0, "H100"},
        {"H100-MEGA", 0, "H100"},
        {"NVIDIA H100 NVL", 0, "H100-NVL"},
        {"Tesla T4", 0, "T4"},
        {"NVIDIA A100-SXM4-80GB", 0, "A100-80GB"},
        {"NVIDIA A100-SXM4-40GB", 0, "A100"},
        {"A100", 80, "A100-80GB"},
        {"a100", 0, "A100"},
        {"NVIDIA A10G", 0, "A10G"},
        {"A10", 0, "A10"},
        {"NVIDIA L40S", 0, "L40S"},
        {"L4", 0, "L4"},
        {"Tesla V100-SXM2-32GB", 0, "V100-32GB"},
        {"V100", 16, "V100"},
        {"NVIDIA GeForce RTX 4090", 0, "RTX-4090"},
        {"RTXA6000", 0, "RTX-A6000"},
        {"A6000", 0, "RTX-A6000"},
        {"AMD Instinct MI300X", 0, "MI300X"},
        {"NVIDIA GeForce RTX 2080 SUPER", 0, "RTX2080SUPER"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[GP_GPU_NAME_BYTES];
        gp_gpu_normalize(cases[i].raw, cases[i].mem, out, sizeof out);
        if (strcmp(out, cases[i].want) != 0) {
            print_error("%s -> %s, want %s\n", cases[i].raw, out, cases[i].want);
            fail();
        }
    }
}

static gp_status count_rec(const gp_csv_record *r, void *arg, gp_err *err) {
    (void)err;
    int *n = arg;
    if (*n == 1) {
        assert_int_equal(r->n, 3);
        assert_string_equal(r->field[1], "a \"quoted\", field\nover lines");
        assert_string_equal(r->field[2], "");
    }
    if (*n == 2)
        assert_int_equal(r->line, 5);
    (*n)++;
    return GP_OK;
}

static void test_csv(void **state) {
    (void)state;
    const char *ok =
        "\xEF\xBB\xBFh1,h2,h3\r\nx,\"a \"\"quoted\"\", field\nover lines\",\r\n\r\ny,z,w";
    int n = 0;
    gp_err err;
    assert_int_equal(gp_csv_read(ok, strlen(ok), "t.csv", count_rec, &n, &err), GP_OK);
    assert_int_equal(n, 3);
    n = 0;
    const char *open = "h1,h2\nx,\"never closed\n";
    assert_int_equal(gp_csv_read(open, strlen(open), "t.csv", count_rec, &n, &err), GP_E_INPUT);
    assert_string_equal(err.where, "t.csv:2");
    n = 0;
    const char *stray = "h1,h2\nx,y\"z\n";
    assert_int_equal(gp_csv_read(stray, strlen(stray), "t.csv", count_rec, &n, &err), GP_E_INPUT);
    assert_string_equal(err.where, "t.csv:2");
}

/* A header record of the n names at line 3. */
static gp_csv_record header_of(const char *const *names, int n) {
    gp_csv_record r = {.line = 3, .n = n};
    for (int i = 0; i < n; i++) {
        r.field[i] = names[i];
        r.len[i] = strlen(names[i]);
    }
    return r;
}

/* The parsers' header check: every column found in any order, spaces before a name ignored, the
 * first required one missing named with the whole list (the throughput and API price CSVs'
 * lines). */
static void test_csv_require_columns(void **state) {
    (void)state;
    static const char *const tp[] = {"gpu", "profile", "value", "unit", "source", "date"};
    static const char *const has[] = {"unit", "extra", " gpu", "source", "value", "profile"};
    gp_csv_record h = header_of(has, 6);
    int col[7];
    gp_err err;
    assert_int_equal(gp_csv_require_columns(&h, "t.csv", tp, 6, 1ull << 5, col, &err), GP_OK);
    assert_int_equal(col[0], 2);
    assert_int_equal(col[1], 5);
    assert_int_equal(col[2], 4);
    assert_int_equal(col[3], 0);
    assert_int_equal(col[4], 3);
    assert_int_equal(col[5], -1); /* optional, absent */
    h = header_of(has, 4);        /* no value, no profile: the first in the list is named */
    assert_int_equal(gp_csv_require_columns(&h, "t.csv", tp, 6, 1ull << 5, col, &err), GP_E_INPUT);
    assert_string_equal(err.where, "t.csv:3");
    assert_string_equal(err.msg, "no \"profile\" column: the header needs gpu, profile, value, "
                                 "unit, source (and optionally date)");
    static const char *const api[] = {"provider", "model",          "input_per_m", "output_per_m",
                                      "currency", "effective_from", "source"};
    h = header_of(api, 5);
    assert_int_equal(gp_csv_require_columns(&h, "x.csv", api, 7, 0, col, &err), GP_E_INPUT);
    assert_string_equal(err.where, "x.csv:3");
    assert_string_equal(err.msg, "no \"effective_from\" column: the header needs provider, "
                                 "model, input_per_m, output_per_m, currency, effective_from, "
                                 "source");
}

static void test_ec2instances(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(parse_file(GP_FMT_EC2INSTANCES,
                                "pricing/prices/aws_ec2_gpu_instances_vantage_raw.json", NULL, &b,
                                &err),
                     GP_OK);
    assert_true(b.n > 5000);
    const gp_price_rec *r = find(&b, "p4d.24xlarge", "us-east-1", GP_COMMITTED, 12, GP_NO_UPFRONT);
    assert_non_null(r);
    assert_close(r->hourly, 13.921094, 1e-12); /* docs/model.md's example figure */
    assert_string_equal(r->gpu, "A100");
    assert_close(r->gpu_count, 8, REL);
    r = find(&b, "p4d.24xlarge", "us-east-1", GP_SPOT, 0, 0);
    assert_non_null(r);
    assert_close(r->hourly, 8.59075, 1e-12); /* spot: the average */
    assert_true(r->has_range);
    assert_close(r->low, 8.0468, 1e-12);
    assert_close(r->high, 9.1506, 1e-12);
    r = find(&b, "p4d.24xlarge", "us-east-1", GP_ON_DEMAND, 0, 0);
    assert_close(r->hourly, 21.957642, 1e-12);
    r = find(&b, "p4de.24xlarge", "us-east-1", GP_ON_DEMAND, 0, 0);
    if (r)
        assert_string_equal(r->gpu, "A100-80GB");
    r = find(&b, "p5.48xlarge", "us-east-1", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_string_equal(r->gpu, "H100");
    assert_true(b.ignored > 0); /* Inferentia and Trainium: no GPU */
    gp_catalog_batch_done(&b);
}

static void test_skypilot(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    /* Azure: Generation "V1,V2" unquoted gives 11 fields on a 10-column header. */
    assert_int_equal(parse_file(GP_FMT_SKYPILOT, "pricing/prices/skypilot_fmt_azure_gpu_rows.csv",
                                "azure", &b, &err),
                     GP_OK);
    const gp_price_rec *r = find(&b, "Standard_NC12s_v3", "australiaeast", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_close(r->hourly, 8.468, REL);
    assert_close(r->gpu_count, 2, REL);
    assert_string_equal(r->gpu, "V100");
    r = find(&b, "Standard_NC12s_v3", "australiaeast", GP_SPOT, 0, 0);
    assert_close(r->hourly, 1.564886, REL);
    /* NVv4 shares one MI25: 1/8, 1/4, 1/2 and all of it, though the source says 1 for each. */
    r = find(&b, "Standard_NV4as_v4", "australiaeast", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_close(r->gpu_count, 0.125, REL);
    assert_close(find(&b, "Standard_NV8as_v4", "australiaeast", GP_ON_DEMAND, 0, 0)->gpu_count,
                 0.25, REL);
    assert_close(find(&b, "Standard_NV16as_v4", "australiaeast", GP_ON_DEMAND, 0, 0)->gpu_count,
                 0.5, REL);
    assert_close(find(&b, "Standard_NV32as_v4", "australiaeast", GP_ON_DEMAND, 0, 0)->gpu_count, 1,
                 REL);
    /* H200's "spot" equals its on-demand price in every region: no spot price, skipped. */
    assert_non_null(find(&b, "Standard_ND96isr_H200_v5", "australiaeast", GP_ON_DEMAND, 0, 0));
    assert_null(find(&b, "Standard_ND96isr_H200_v5", "australiaeast", GP_SPOT, 0, 0));
    assert_int_equal(b.skipped, 28);
    gp_catalog_batch_done(&b);

    /* GCP: a machine's price is its host row plus its accelerator row (lowest zone). */
    assert_int_equal(parse_file(GP_FMT_SKYPILOT, "pricing/prices/skypilot_fmt_gcp_gpu_rows.csv",
                                "gcp", &b, &err),
                     GP_OK);
    r = find(&b, "a2-highgpu-1g", "us-central1", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_close(r->hourly, 0.73948 + 2.93391, REL);
    assert_string_equal(r->gpu, "A100");
    r = find(&b, "a2-highgpu-1g", "us-central1", GP_SPOT, 0, 0);
    assert_close(r->hourly, 0.36975 + 1.4341, REL);
    assert_true(b.skipped > 0); /* N1 accelerators (T4, V100...) have no machine of their own */
    gp_catalog_batch_done(&b);

    /* Vast: a spot price of 0 means "none", not free. */
    assert_int_equal(parse_file(GP_FMT_SKYPILOT, "pricing/prices/skypilot_fmt_vast_vms_full.csv",
                                "vast", &b, &err),
                     GP_OK);
    for (size_t i = 0; i < b.n; i++)
        assert_true(b.recs[i].pricing != GP_SPOT || b.recs[i].hourly > 0);
    r = find(&b, "1x-RTX_5090-32-65536", "Denmark, DK, EU", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_string_equal(r->gpu, "RTX-5090");
    gp_catalog_batch_done(&b);

    /* Lambda: its own column order; CPU instances are not offers. */
    assert_int_equal(parse_file(GP_FMT_SKYPILOT, "pricing/prices/skypilot_fmt_lambda_vms_full.csv",
                                "lambda", &b, &err),
                     GP_OK);
    r = find(&b, "gpu_1x_h100_pcie", "europe-central-1", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_close(r->hourly, 3.29, REL);
    assert_true(b.ignored > 0);
    gp_catalog_batch_done(&b);
    /* The provider is required. */
    assert_int_equal(
        parse_file(GP_FMT_SKYPILOT, "pricing/prices/skypilot_fmt_vast_vms_full.csv", "", &b, &err),
        GP_E_INPUT);
    gp_catalog_batch_done(&b);
}

static void test_gcp_cud(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(parse_file(GP_FMT_GCP_CUD,
                                "pricing/prices/gcp_gpu_instance_prices_cyclenerd.csv", NULL, &b,
                                &err),
                     GP_OK);
    const gp_price_rec *r = find(&b, "a2-highgpu-1g", "asia-east1", GP_ON_DEMAND, 0, 0);
    assert_non_null(r);
    assert_close(r->hourly, 3.790142, REL);
    r = find(&b, "a2-highgpu-1g", "asia-east1", GP_COMMITTED, 12, GP_NO_UPFRONT);
    assert_close(r->hourly, 1743.0630772 / 730, REL);
    r = find(&b, "a2-highgpu-1g", "asia-east1", GP_COMMITTED, 36, GP_NO_UPFRONT);
    assert_close(r->hourly, 968.40125307 / 730, REL);
    r = find(&b, "a2-highgpu-1g", "asia-east1", GP_SPOT, 0, 0);
    assert_close(r->hourly, 0.444055, REL);
    gp_catalog_batch_done(&b);
}

static void test_aws_offer(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(
        parse_file(
            GP_FMT_AWS_OFFER,
            "tests/fixtures/catalog/aws_pricelist_offer_trimmed_opencost_pricing-us-east-1.json",
            NULL, &b, &err),
        GP_OK);
    assert_int_equal(b.n, 1); /* the $0 capacity-block SKU is no price */
    assert_string_equal(b.recs[0].instance, "p4d.24xlarge");
    assert_string_equal(b.recs[0].region, "us-east-1");
    assert_close(b.recs[0].hourly, 32.7726, REL);
    assert_close(b.recs[0].gpu_count, 8, REL);
    assert_string_equal(b.recs[0].gpu, "A100");
    assert_string_equal(b.effective_from, "2024-05-28");
    assert_int_equal(b.skipped, 1);
    gp_catalog_batch_done(&b);
    /* Ohio: the only GPU product runs Windows; a convertible term sits under OnDemand. */
    assert_int_equal(
        parse_file(
            GP_FMT_AWS_OFFER,
            "tests/fixtures/catalog/aws_pricelist_offer_trimmed_opencost_pricing-us-east-2.json",
            NULL, &b, &err),
        GP_OK);
    assert_int_equal(b.n, 0);
    gp_catalog_batch_done(&b);
    /* Ningxia: CNY prices, storage only. */
    assert_int_equal(parse_file(GP_FMT_AWS_OFFER,
                                "tests/fixtures/catalog/"
                                "aws_pricelist_offer_trimmed_opencost_pricing-cn-northwest-1.json",
                                NULL, &b, &err),
                     GP_OK);
    assert_int_equal(b.n, 0);
    assert_true(b.ignored > 0);
    gp_catalog_batch_done(&b);
    /* A GPU product in CNY keeps its currency; reserved terms become effective rates. */
    const char *cny =
        "{\"offerCode\": \"AmazonEC2\", \"publicationDate\": \"2023-03-14T15:47:40Z\","
        " \"products\": {\"S1\": {\"attributes\": {\"instanceType\": \"p3.2xlarge\","
        " \"operatingSystem\": \"Linux\", \"tenancy\": \"Shared\", \"preInstalledSw\": \"NA\","
        " \"capacitystatus\": \"Used\", \"gpu\": \"1\", \"regionCode\": \"cn-northwest-1\"}}},"
        " \"terms\": {\"OnDemand\": {\"S1\": {\"S1.A\": {\"priceDimensions\": {\"d\":"
        " {\"unit\": \"Hrs\", \"pricePerUnit\": {\"CNY\": \"27.5\"}}}, \"termAttributes\": {}}}},"
        " \"Reserved\": {\"S1\": {\"S1.B\": {\"priceDimensions\": {\"u\": {\"unit\": \"Quantity\","
        " \"pricePerUnit\": {\"CNY\": \"87600\"}}, \"h\": {\"unit\": \"Hrs\", \"pricePerUnit\":"
        " {\"CNY\": \"5\"}}}, \"termAttributes\": {\"LeaseContractLength\": \"1yr\","
        " \"OfferingClass\": \"standard\", \"PurchaseOption\": \"Partial Upfront\"}}}}}}";
    assert_int_equal(parse_text(GP_FMT_AWS_OFFER, cny, NULL, &b, &err), GP_OK);
    assert_int_equal(b.n, 2);
    assert_string_equal(b.recs[0].currency, "CNY");
    assert_close(b.recs[0].hourly, 27.5, REL);
    assert_int_equal(b.recs[1].pricing, GP_COMMITTED);
    assert_int_equal(b.recs[1].purchase, GP_PARTIAL_UPFRONT);
    assert_close(b.recs[1].hourly, 5 + 87600.0 / 8760, REL);
    gp_catalog_batch_done(&b);
}

static void test_gcp_skus(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(parse_file(GP_FMT_GCP_SKUS,
                                "tests/fixtures/catalog/gcp_cloudbilling_skus_opencost.json", NULL,
                                &b, &err),
                     GP_OK);
    assert_int_equal(b.n, 3); /* the A100 SKU in its three regions; cores and RAM are no GPUs */
    assert_close(b.recs[0].hourly, 2.933908, 1e-12);
    assert_string_equal(b.recs[0].gpu, "A100");
    assert_string_equal(b.recs[0].region, "us-central1");
    assert_true(b.ignored >= 6);
    gp_catalog_batch_done(&b);
}

static void test_gpuplan_format_and_skips(void **state) {
    (void)state;
    const char *doc =
        "{\"format\": \"gpuplan-catalog\", \"version\": 1, \"effective_from\": \"2026-01-02\","
        " \"offers\": [{\"provider\": \"acme\", \"instance\": \"big\", \"region\": \"r1\","
        " \"gpu\": \"NVIDIA H100 80GB HBM3\", \"gpu_count\": 8, \"prices\": ["
        "  {\"pricing\": \"on_demand\", \"hourly\": 20},"
        "  {\"pricing\": \"spot\", \"hourly\": -1},"
        "  {\"pricing\": \"spot\", \"hourly\": \"cheap\"},"
        "  {\"pricing\": \"committed\", \"term_months\": 12, \"hourly\": 14},"
        "  {\"pricing\": \"committed\", \"term_months\": 12, \"hourly\": 13}]},"
        " {\"provider\": \"acme\", \"instance\": \"x\", \"region\": \"r1\", \"gpu\": \"T4\","
        "  \"gpu_count\": 1, \"currency\": \"dollars\", \"prices\": []}]}";
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(parse_text(GP_FMT_GPUPLAN, doc, NULL, &b, &err), GP_OK);
    assert_int_equal(b.n, 2); /* on-demand and the first commitment */
    assert_string_equal(b.recs[0].gpu, "H100");
    assert_string_equal(b.effective_from, "2026-01-02");
    assert_int_equal(b.skipped, 4); /* negative, not a number, duplicate, bad currency */
    gp_catalog_batch_done(&b);
}

static void test_unreadable_files(void **state) {
    (void)state;
    gp_catalog_batch b;
    gp_err err;
    assert_int_equal(
        parse_text(GP_FMT_EC2INSTANCES, "[{\"instance_type\": \"p4d\", ", NULL, &b, &err),
        GP_E_INPUT);
    assert_non_null(strstr(err.where, "t:1:"));
    gp_catalog_batch_done(&b);
    assert_int_equal(parse_text(GP_FMT_SKYPILOT, "Name,Price\nx,1\n", "aws", &b, &err), GP_E_INPUT);
    assert_string_equal(err.where, "t:1");
    gp_catalog_batch_done(&b);
    assert_int_equal(parse_text(GP_FMT_GCP_CUD,
                                "machine_type,gpu_type,gpu_count,region,hour\na2,\"a100,1,r,1\n",
                                NULL, &b, &err),
                     GP_E_INPUT);
    gp_catalog_batch_done(&b);
    assert_int_equal(parse_text(GP_FMT_AWS_OFFER, "{\"x\": 1}", NULL, &b, &err), GP_E_INPUT);
    gp_catalog_batch_done(&b);
    /* A readable row with a bad price is skipped, not fatal. */
    assert_int_equal(
        parse_text(GP_FMT_SKYPILOT,
                   "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,"
                   "GpuInfo,Price,SpotPrice,Region\n"
                   "a,T4,1,4,16,,-1.0,,r1\nb,T4,1,4,16,,abc,,r1\nc,T4,1,4,16,,1.5,0,r1\n",
                   "vast", &b, &err),
        GP_OK);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.skipped, 2);
    gp_catalog_batch_done(&b);
}

static void test_detect(void **state) {
    (void)state;
    assert_int_equal(gp_catalog_detect("InstanceType,AcceleratorName", 28, "x.csv"),
                     GP_FMT_SKYPILOT);
    assert_int_equal(gp_catalog_detect("machine_type,gpu_type,gpu_count,cpu", 35, "x"),
                     GP_FMT_GCP_CUD);
    assert_int_equal(gp_catalog_detect("{\"formatVersion\": \"v1.0\", \"offerCode\"", 38, "x"),
                     GP_FMT_AWS_OFFER);
    assert_int_equal(gp_catalog_detect("[{\"instance_type\": 1}]", 22, "x"), GP_FMT_EC2INSTANCES);
    assert_int_equal(gp_catalog_detect("{\"skus\": []}", 12, "x"), GP_FMT_GCP_SKUS);
    assert_int_equal(gp_catalog_detect("hello", 5, "x"), GP_FMT_UNKNOWN);
    assert_string_equal(gp_catalog_provider_from_name("/a/skypilot_fmt_azure_gpu_rows.csv"),
                        "azure");
}

static gp_status on_tariff(const gp_tariff_preset *t, void *arg, gp_err *err) {
    (void)err;
    *(gp_tariff_preset *)arg = *t;
    return GP_OK;
}

typedef struct hw_rows {
    int n;
    gp_hw_price r[16];
} hw_rows;

static gp_status on_hw(const gp_hw_price *h, void *arg, gp_err *err) {
    (void)err;
    hw_rows *x = arg;
    if (x->n < 16)
        x->r[x->n++] = *h;
    return GP_OK;
}

/* The web notes' server prices: a DGX holds 8 GPUs whether or not its name says "8x". */
static void test_hardware_notes_gpus(void **state) {
    (void)state;
    size_t len, skipped;
    char *buf = slurp("pricing/hardware/gpu_server_prices_web_notes.csv", &len);
    hw_rows x = {0};
    gp_reference_sink sink = {NULL, on_hw, NULL, NULL, NULL, &x};
    gp_err err;
    assert_int_equal(gp_reference_parse(GP_REF_HARDWARE_NOTES, buf, len, "notes.csv", "notes",
                                        &sink, &skipped, &err),
                     GP_OK);
    free(buf);
    int seen = 0;
    for (int i = 0; i < x.n; i++) {
        const gp_hw_price *h = &x.r[i];
        if (strstr(h->item, "DGX H100 sale price"))
            assert_int_equal(h->gpus, 8), seen++;
        if (strstr(h->item, "node (8x H100"))
            assert_int_equal(h->gpus, 8), seen++;
        if (strstr(h->item, "switch"))
            assert_int_equal(h->gpus, 0), seen++;
        if (strstr(h->item, "A100 (at launch)"))
            assert_int_equal(h->gpus, 1), seen++;
    }
    assert_int_equal(seen, 4);
}

static void test_urdb_tariff(void **state) {
    (void)state;
    size_t len, skipped;
    char *buf = slurp("pricing/tariffs/SCE_TOU-8__Option-D_Under-2-kV.json", &len);
    gp_tariff_preset t = {0};
    gp_reference_sink sink = {NULL, NULL, NULL, NULL, on_tariff, &t};
    gp_err err;
    assert_int_equal(
        gp_reference_parse(GP_REF_TARIFF_URDB, buf, len, "sce.json", "sce", &sink, &skipped, &err),
        GP_OK);
    free(buf);
    assert_string_equal(t.name, "sce");
    cJSON *j = cJSON_Parse(t.tariff_json);
    assert_non_null(j);
    double hours = 0;
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "periods")) hours +=
        cJSON_GetObjectItem(p, "hours_per_day")->valuedouble;
    assert_close(hours, 24.0, 1e-12); /* a valid scenario tariff */
    /* Facility charge 25.36 plus the highest time-of-use demand rate 29.54. */
    assert_close(cJSON_GetObjectItem(j, "demand_charge_per_kw_month")->valuedouble, 54.90, 1e-12);
    cJSON_Delete(j);
}

/* docs/model.md "Catalog references": a commitment's fee and rate from its effective rate. */
static void test_commitment_split_and_spot_bands(void **state) {
    (void)state;
    double hourly = -1, upfront = -1;
    assert_false(gp_commitment_split(GP_ALL_UPFRONT, 12, 10.0, &hourly, &upfront));
    assert_true(hourly == 0.0 && upfront == 10.0 * 730 * 12);
    assert_false(gp_commitment_split(GP_NO_UPFRONT, 36, 10.0, &hourly, &upfront));
    assert_true(hourly == 10.0 && upfront == 0.0);
    assert_true(gp_commitment_split(GP_PARTIAL_UPFRONT, 36, 10.0, &hourly, &upfront));
    assert_true(hourly == 5.0 && upfront == 10.0 * 730 * 36 / 2);
    double per_hour = -1;
    assert_true(gp_spot_band_interruptions("<5%", &per_hour));
    assert_true(per_hour == 0.025 / 730);
    assert_true(gp_spot_band_interruptions("15-20%", &per_hour));
    assert_true(per_hour == 0.175 / 730);
    assert_true(gp_spot_band_interruptions(">20%", &per_hour));
    assert_true(per_hour == 0.225 / 730);
    per_hour = -1;
    assert_false(gp_spot_band_interruptions("20%", &per_hour));
    assert_false(gp_spot_band_interruptions("", &per_hour));
    assert_true(per_hour == -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_names),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_csv_require_columns),
        cmocka_unit_test(test_ec2instances),
        cmocka_unit_test(test_skypilot),
        cmocka_unit_test(test_gcp_cud),
        cmocka_unit_test(test_aws_offer),
        cmocka_unit_test(test_gcp_skus),
        cmocka_unit_test(test_gpuplan_format_and_skips),
        cmocka_unit_test(test_unreadable_files),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_urdb_tariff),
        cmocka_unit_test(test_hardware_notes_gpus),
        cmocka_unit_test(test_commitment_split_and_spot_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
