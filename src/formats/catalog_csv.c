/* CSV catalogs: SkyPilot's per-provider catalogs and the Cyclenerd GCP table, a detector and a
 * parser each for catalog.c's importer table. Uses catalog_util.c, never catalog.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "catalog_util.h"
#include "gpuplan/csv.h"
#include "gpuplan/xmem.h"

static bool starts_with_text(const char *p, const char *end, const char *s) {
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* ---- SkyPilot ------------------------------------------------------------------------- */

enum {
    C_INSTANCE,
    C_ACCEL,
    C_COUNT,
    C_VCPUS,
    C_MEM,
    C_GPUINFO,
    C_PRICE,
    C_SPOT,
    C_REGION,
    C_ZONE,
    C_GENERATION,
    N_COLS
};
static const char *const sky_cols[N_COLS] = {
    "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs",  "MemoryGiB",
    "GpuInfo",      "Price",           "SpotPrice",        "Region", "AvailabilityZone",
    "Generation"};

/* GCP: a GPU machine type's GPU comes from its family; its price row holds only the host
 * (vCPU and memory), the GPUs are separate accelerator rows. */
typedef struct gcp_acc {
    char name[32];
    int count;
    char region[64];
    double price, spot;
    bool has_price, has_spot;
} gcp_acc;

typedef struct gcp_host {
    char instance[96];
    char region[64];
    double vcpus, mem, price, spot;
    bool has_price, has_spot;
    int line;
} gcp_host;

typedef struct sky {
    const char *origin;
    const char *provider;
    gp_catalog_batch *out;
    int col[N_COLS];
    int n_header;
    bool header_seen;
    /* gcp only */
    gcp_acc *acc;
    size_t n_acc, cap_acc;
    gcp_host *host;
    size_t n_host, cap_host;
} sky;

static const char *field(const gp_csv_record *r, const sky *k, int c, size_t *len) {
    int i = k->col[c];
    if (i < 0 || i >= r->n) {
        *len = 0;
        return "";
    }
    *len = r->len[i];
    return r->field[i];
}

/* GPU family and count of a GCP GPU machine type, from its name. */
static bool gcp_family(const char *instance, char *accel, size_t cap, int *count) {
    static const struct {
        const char *prefix, *accel;
    } fams[] = {{"a2-highgpu-", "A100"},  {"a2-megagpu-", "A100"}, {"a2-ultragpu-", "A100-80GB"},
                {"a3-highgpu-", "H100"},  {"a3-edgegpu-", "H100"}, {"a3-megagpu-", "H100-MEGA"},
                {"a3-ultragpu-", "H200"}, {"a4-highgpu-", "B200"}};
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        size_t n = strlen(fams[i].prefix);
        if (strncmp(instance, fams[i].prefix, n) == 0) {
            char *end;
            long c = strtol(instance + n, &end, 10);
            if (c < 1 || c > 64 || *end != 'g')
                return false;
            snprintf(accel, cap, "%s", fams[i].accel);
            *count = (int)c;
            return true;
        }
    }
    if (strncmp(instance, "g2-standard-", 12) == 0) {
        char *end;
        long vcpus = strtol(instance + 12, &end, 10);
        if (*end)
            return false;
        static const int sizes[][2] = {{4, 1},  {8, 1},  {12, 1}, {16, 1},
                                       {24, 2}, {32, 1}, {48, 4}, {96, 8}};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (sizes[i][0] == vcpus) {
                snprintf(accel, cap, "L4");
                *count = sizes[i][1];
                return true;
            }
        }
    }
    return false;
}

static gp_status add_prices(sky *k, const gp_price_rec *base, bool has_price, double price,
                            bool has_spot, double spot, gp_err *err) {
    gp_price_rec r = *base;
    if (has_price && price > 0) {
        r.pricing = GP_ON_DEMAND;
        r.hourly = price;
        if (gp_catalog_batch_add(k->out, &r, err))
            return err->code;
    }
    /* A spot price equal to on-demand is no spot price: the source copied the on-demand one
     * (Azure's ND96isr_H200_v5 in every region), and spot without a discount would rank as a
     * spot offer it is not. */
    if (has_spot && spot > 0 && has_price && fabs(spot - price) <= 1e-9 * fmax(1, price)) {
        char where[32];
        snprintf(where, sizeof where, "line %d", base->where);
        gp_catalog_skip(k->out, where, "a spot price equal to on-demand (no spot price)");
        return GP_OK;
    }
    /* 0 means "no spot price" in these catalogs, never "free". */
    if (has_spot && spot > 0) {
        r.pricing = GP_SPOT;
        r.hourly = spot;
        if (gp_catalog_batch_add(k->out, &r, err))
            return err->code;
    }
    return GP_OK;
}

/* The fields of one SkyPilot row that gpuplan reads, as numbers where they are. */
typedef struct sky_fields {
    const char *inst, *acc, *region;
    size_t inst_len, acc_len, region_len;
    double count, vcpus, mem, price, spot;
    bool has_count, has_vcpus, has_mem, has_price, has_spot;
} sky_fields;

/* The header row: the columns by name. */
static gp_status sky_header(const gp_csv_record *rec, sky *k, gp_err *err) {
    for (int c = 0; c < N_COLS; c++)
        k->col[c] = gp_csv_column(rec, sky_cols[c]);
    if (k->col[C_INSTANCE] != 0 || k->col[C_ACCEL] < 0 || k->col[C_COUNT] < 0 ||
        k->col[C_PRICE] < 0 || k->col[C_REGION] < 0) {
        char w[300];
        snprintf(w, sizeof w, "%s:%d", k->origin, rec->line);
        return gp_errorf(err, GP_E_INPUT, w,
                         "not a SkyPilot catalog header (needs InstanceType, "
                         "AcceleratorName, AcceleratorCount, Price, Region)");
    }
    k->n_header = rec->n;
    k->header_seen = true;
    return GP_OK;
}

/* Reads row rec's fields into f; false (the row skipped, said) when one is not a number. */
static bool sky_read(const gp_csv_record *rec, sky *k, const char *where, sky_fields *f) {
    size_t ln;
    f->inst = field(rec, k, C_INSTANCE, &f->inst_len);
    f->acc = field(rec, k, C_ACCEL, &f->acc_len);
    const char *s;
    s = field(rec, k, C_COUNT, &ln);
    bool ok = gp_catalog_price(s, ln, &f->has_count, &f->count);
    s = field(rec, k, C_VCPUS, &ln);
    ok = ok && gp_catalog_price(s, ln, &f->has_vcpus, &f->vcpus);
    s = field(rec, k, C_MEM, &ln);
    ok = ok && gp_catalog_price(s, ln, &f->has_mem, &f->mem);
    if (!ok) {
        gp_catalog_skip(k->out, where, "a GPU count, vCPU or memory that is not a number");
        return false;
    }
    s = field(rec, k, C_PRICE, &ln);
    if (!gp_catalog_price(s, ln, &f->has_price, &f->price)) {
        gp_catalog_skip(k->out, where, "a price that is not a number >= 0");
        return false;
    }
    s = field(rec, k, C_SPOT, &ln);
    if (!gp_catalog_price(s, ln, &f->has_spot, &f->spot)) {
        gp_catalog_skip(k->out, where, "a spot price that is not a number >= 0");
        return false;
    }
    f->region = field(rec, k, C_REGION, &f->region_len);
    if (f->has_count && f->count > 1024) {
        gp_catalog_skip(k->out, where, "more than 1024 GPUs in one instance");
        return false;
    }
    return true;
}

/* A GCP accelerator row: kept, one price per region (the lowest zone). */
static gp_status gcp_acc_row(sky *k, const char *where, const sky_fields *f) {
    if (f->acc_len == 0 || !f->has_count)
        return GP_OK;
    if (f->acc_len >= 4 && strncmp(f->acc, "tpu-", 4) == 0) {
        k->out->ignored++; /* TPUs are not GPUs */
        return GP_OK;
    }
    gcp_acc a = {0};
    if (!gp_catalog_copy(a.name, sizeof a.name, f->acc, f->acc_len) ||
        !gp_catalog_copy(a.region, sizeof a.region, f->region, f->region_len)) {
        gp_catalog_skip(k->out, where, "a name or region too long");
        return GP_OK;
    }
    a.count = (int)f->count;
    a.price = f->price, a.has_price = f->has_price;
    a.spot = f->spot, a.has_spot = f->has_spot;
    for (size_t i = 0; i < k->n_acc; i++) { /* one price per region: the lowest zone */
        gcp_acc *b = &k->acc[i];
        if (b->count == a.count && !strcmp(b->name, a.name) && !strcmp(b->region, a.region)) {
            if (a.has_price && (!b->has_price || a.price < b->price))
                b->price = a.price, b->has_price = true;
            if (a.has_spot && (!b->has_spot || a.spot < b->spot))
                b->spot = a.spot, b->has_spot = true;
            return GP_OK;
        }
    }
    if (k->n_acc == k->cap_acc) {
        k->cap_acc = k->cap_acc ? 2 * k->cap_acc : 256;
        k->acc = gp_xrealloc(k->acc, k->cap_acc * sizeof *k->acc);
    }
    k->acc[k->n_acc++] = a;
    return GP_OK;
}

/* A GCP host row: joined with its accelerators at the end. */
static gp_status gcp_host_row(const gp_csv_record *rec, sky *k, const char *where,
                              const sky_fields *f) {
    gcp_host h = {0};
    if (!gp_catalog_copy(h.instance, sizeof h.instance, f->inst, f->inst_len) ||
        !gp_catalog_copy(h.region, sizeof h.region, f->region, f->region_len)) {
        gp_catalog_skip(k->out, where, "a name or region too long");
        return GP_OK;
    }
    char fam[32];
    int n;
    if (!gcp_family(h.instance, fam, sizeof fam, &n)) {
        k->out->ignored++; /* not a GPU machine type */
        return GP_OK;
    }
    for (size_t i = 0; i < k->n_host; i++) {
        gcp_host *b = &k->host[i];
        if (!strcmp(b->instance, h.instance) && !strcmp(b->region, h.region)) {
            if (f->has_price && (!b->has_price || f->price < b->price))
                b->price = f->price, b->has_price = true;
            if (f->has_spot && (!b->has_spot || f->spot < b->spot))
                b->spot = f->spot, b->has_spot = true;
            return GP_OK;
        }
    }
    h.vcpus = f->vcpus, h.mem = f->mem;
    h.price = f->price, h.has_price = f->has_price;
    h.spot = f->spot, h.has_spot = f->has_spot;
    h.line = rec->line;
    if (k->n_host == k->cap_host) {
        k->cap_host = k->cap_host ? 2 * k->cap_host : 256;
        k->host = gp_xrealloc(k->host, k->cap_host * sizeof *k->host);
    }
    k->host[k->n_host++] = h;
    return GP_OK;
}

/* An AWS, Azure or other row: a GPU offer priced on demand and spot. */
static gp_status sky_offer(const gp_csv_record *rec, sky *k, const char *where, const sky_fields *f,
                           gp_err *err) {
    size_t ln;
    if (f->acc_len == 0 || !f->has_count || f->count <= 0) {
        k->out->ignored++; /* a CPU instance: not a GPU offer */
        return GP_OK;
    }
    gp_price_rec r = {0};
    snprintf(r.provider, sizeof r.provider, "%s", k->provider);
    if (!gp_catalog_copy(r.instance, sizeof r.instance, f->inst, f->inst_len) ||
        !gp_catalog_copy(r.region, sizeof r.region, f->region, f->region_len) || f->inst_len == 0 ||
        f->region_len == 0) {
        gp_catalog_skip(k->out, where, "an instance or region empty or too long");
        return GP_OK;
    }
    char accel[64];
    if (!gp_catalog_copy(accel, sizeof accel, f->acc, f->acc_len)) {
        gp_catalog_skip(k->out, where, "an accelerator name too long");
        return GP_OK;
    }
    /* GpuInfo is a Python dict repr: only its memory size is needed. */
    double mem_gib = 0;
    const char *gi = field(rec, k, C_GPUINFO, &ln);
    const char *sz = ln ? strstr(gi, "'SizeInMiB': ") : NULL;
    if (sz)
        mem_gib = strtod(sz + 13, NULL) / 1024.0;
    gp_gpu_normalize(accel, mem_gib, r.gpu, sizeof r.gpu);
    r.gpu_count = f->count;
    /* Azure's NVv4 sizes share one MI25 (1/8, 1/4, 1/2, all of it by vCPUs 4, 8, 16, 32, as
     * Microsoft's NVv4-series size table gives them); the source says 1 for each. */
    int nv_cpus;
    char tail[8];
    if (!strcmp(k->provider, "azure") &&
        sscanf(r.instance, "Standard_NV%das_v%7s", &nv_cpus, tail) == 2 && !strcmp(tail, "4") &&
        nv_cpus >= 4 && nv_cpus <= 32)
        r.gpu_count = nv_cpus / 32.0;
    r.vcpus = f->vcpus;
    r.memory_gib = f->mem;
    memcpy(r.currency, "USD", 4);
    r.where = rec->line;
    return add_prices(k, &r, f->has_price, f->price, f->has_spot, f->spot, err);
}

static gp_status sky_record(const gp_csv_record *rec, void *arg, gp_err *err) {
    sky *k = arg;
    char where[32];
    snprintf(where, sizeof where, "line %d", rec->line);
    if (!k->header_seen)
        return sky_header(rec, k, err);
    /* Azure writes Generation "V1,V2" unquoted: extra fields belong to a trailing Generation
     * column and are ignored with it. Anything else must match the header. */
    bool generation_last = k->col[C_GENERATION] == k->n_header - 1;
    if (rec->n < k->n_header || (rec->n > k->n_header && !generation_last)) {
        gp_catalog_skip(k->out, where, "%s fields than the header",
                        rec->n < k->n_header ? "fewer" : "more");
        return GP_OK;
    }
    sky_fields f;
    if (!sky_read(rec, k, where, &f))
        return GP_OK;
    bool gcp = strcmp(k->provider, "gcp") == 0;
    if (gcp && f.inst_len == 0) /* an accelerator row */
        return gcp_acc_row(k, where, &f);
    if (gcp) /* a host row: joined with its accelerators at the end */
        return gcp_host_row(rec, k, where, &f);
    return sky_offer(rec, k, where, &f, err);
}

static gp_status gcp_join(sky *k, gp_err *err) {
    for (size_t i = 0; i < k->n_host; i++) {
        gcp_host *h = &k->host[i];
        char fam[32];
        int n = 0;
        gcp_family(h->instance, fam, sizeof fam, &n);
        const gcp_acc *a = NULL;
        for (size_t j = 0; j < k->n_acc && !a; j++)
            if (k->acc[j].count == n && !strcmp(k->acc[j].name, fam) &&
                !strcmp(k->acc[j].region, h->region))
                a = &k->acc[j];
        char where[32];
        snprintf(where, sizeof where, "line %d", h->line);
        if (!a) {
            gp_catalog_skip(k->out, where,
                            "a GPU machine type with no accelerator price in "
                            "its region");
            continue;
        }
        gp_price_rec r = {0};
        snprintf(r.provider, sizeof r.provider, "gcp");
        snprintf(r.instance, sizeof r.instance, "%s", h->instance);
        snprintf(r.region, sizeof r.region, "%s", h->region);
        gp_gpu_normalize(fam, 0, r.gpu, sizeof r.gpu);
        r.gpu_count = n;
        r.vcpus = h->vcpus;
        r.memory_gib = h->mem;
        memcpy(r.currency, "USD", 4);
        r.where = h->line;
        /* The machine's price is its host plus its GPUs; both must be known. */
        if (add_prices(k, &r, h->has_price && a->has_price, h->price + a->price,
                       h->has_spot && a->has_spot && h->spot > 0 && a->spot > 0, h->spot + a->spot,
                       err))
            return err->code;
    }
    size_t lone = 0;
    for (size_t j = 0; j < k->n_acc; j++) {
        char fam[32];
        int n;
        bool joined = false;
        for (size_t i = 0; i < k->n_host && !joined; i++)
            joined = gcp_family(k->host[i].instance, fam, sizeof fam, &n) &&
                     !strcmp(fam, k->acc[j].name);
        lone += !joined;
    }
    if (lone)
        for (size_t j = 0; j < lone; j++)
            gp_catalog_skip(k->out, "",
                            "an accelerator for N1 machines: its price excludes "
                            "the VM, so it is no offer on its own");
    return GP_OK;
}

bool gp_detect_skypilot(const gp_catalog_head *h) {
    return starts_with_text(h->p, h->end, "InstanceType,");
}

gp_status gp_parse_skypilot(const char *buf, size_t len, const char *origin, const char *provider,
                            gp_catalog_batch *out, gp_err *err) {
    if (!provider || !*provider)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "which provider's SkyPilot catalog is this? give --provider");
    static const char *const known[] = {"aws", "azure", "gcp", "lambda", "vast"};
    bool ok = false;
    for (size_t i = 0; i < 5; i++)
        ok = ok || strcmp(provider, known[i]) == 0;
    if (!ok)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "unknown provider \"%s\" (aws, azure, gcp, lambda, vast)", provider);
    sky k = {0};
    k.origin = origin;
    k.provider = provider;
    k.out = out;
    snprintf(out->provider, sizeof out->provider, "%s", provider);
    gp_status st = gp_csv_read(buf, len, origin, sky_record, &k, err);
    if (st == GP_OK && !k.header_seen)
        st = gp_errorf(err, GP_E_INPUT, origin, "empty file: no SkyPilot header");
    if (st == GP_OK && strcmp(provider, "gcp") == 0)
        st = gcp_join(&k, err);
    free(k.acc);
    free(k.host);
    return st;
}

/* ---- Cyclenerd's GCP table ------------------------------------------------------------ */

typedef struct cud {
    const char *origin;
    gp_catalog_batch *out;
    int c_type, c_gpu, c_count, c_cpu, c_ram, c_region, c_hour, c_spot, c_1y, c_3y;
    bool header_seen;
} cud;

/* The committed-use table's header: its columns by name. */
static gp_status cud_header(const gp_csv_record *rec, cud *k, gp_err *err) {
    k->c_type = gp_csv_column(rec, "machine_type");
    k->c_gpu = gp_csv_column(rec, "gpu_type");
    k->c_count = gp_csv_column(rec, "gpu_count");
    k->c_cpu = gp_csv_column(rec, "cpu");
    k->c_ram = gp_csv_column(rec, "ram_gb");
    k->c_region = gp_csv_column(rec, "region");
    k->c_hour = gp_csv_column(rec, "hour");
    k->c_spot = gp_csv_column(rec, "hour_spot");
    k->c_1y = gp_csv_column(rec, "month_1y");
    k->c_3y = gp_csv_column(rec, "month_3y");
    if (k->c_type < 0 || k->c_gpu < 0 || k->c_count < 0 || k->c_region < 0 || k->c_hour < 0) {
        char w[300];
        snprintf(w, sizeof w, "%s:%d", k->origin, rec->line);
        return gp_errorf(err, GP_E_INPUT, w,
                         "not the GCP committed-use table header (machine_type, gpu_type, "
                         "gpu_count, region, hour, ...)");
    }
    k->header_seen = true;
    return GP_OK;
}

/* Record r (priced by hour) on demand, spot, and committed for 1 and 3 years (monthly prices of
 * 730 hours, no upfront), as the row gives each. */
static gp_status cud_add(cud *k, gp_price_rec *r, double hour, double spot, double m1, double m3,
                         gp_err *err) {
    if (hour > 0) {
        r->pricing = GP_ON_DEMAND;
        r->hourly = hour;
        if (gp_catalog_batch_add(k->out, r, err))
            return err->code;
    }
    if (spot > 0) {
        r->pricing = GP_SPOT;
        r->hourly = spot;
        if (gp_catalog_batch_add(k->out, r, err))
            return err->code;
    }
    r->pricing = GP_COMMITTED;
    r->purchase = GP_NO_UPFRONT;
    if (m1 > 0) {
        r->term_months = 12;
        r->hourly = m1 / GP_MONTH_HOURS;
        if (gp_catalog_batch_add(k->out, r, err))
            return err->code;
    }
    if (m3 > 0) {
        r->term_months = 36;
        r->hourly = m3 / GP_MONTH_HOURS;
        if (gp_catalog_batch_add(k->out, r, err))
            return err->code;
    }
    return GP_OK;
}

static gp_status cud_record(const gp_csv_record *rec, void *arg, gp_err *err) {
    cud *k = arg;
    if (!k->header_seen)
        return cud_header(rec, k, err);
    char where[32];
    snprintf(where, sizeof where, "line %d", rec->line);
    int need = k->c_3y > k->c_hour ? k->c_3y : k->c_hour;
    if (rec->n <= need || rec->n <= k->c_region) {
        gp_catalog_skip(k->out, where, "fewer fields than the header");
        return GP_OK;
    }
    gp_price_rec r = {0};
    snprintf(r.provider, sizeof r.provider, "gcp");
    if (!gp_catalog_copy(r.instance, sizeof r.instance, rec->field[k->c_type],
                         rec->len[k->c_type]) ||
        !gp_catalog_copy(r.region, sizeof r.region, rec->field[k->c_region],
                         rec->len[k->c_region]) ||
        !r.instance[0] || !r.region[0]) {
        gp_catalog_skip(k->out, where, "a machine type or region empty or too long");
        return GP_OK;
    }
    double count, hour, spot = 0, m1 = 0, m3 = 0, cpu = 0, ram = 0;
    bool has_count, has_hour, has_spot = false, has_1y = false, has_3y = false, h;
    if (!gp_catalog_price(rec->field[k->c_count], rec->len[k->c_count], &has_count, &count) ||
        !gp_catalog_price(rec->field[k->c_hour], rec->len[k->c_hour], &has_hour, &hour) ||
        (k->c_spot >= 0 &&
         !gp_catalog_price(rec->field[k->c_spot], rec->len[k->c_spot], &has_spot, &spot)) ||
        (k->c_1y >= 0 && !gp_catalog_price(rec->field[k->c_1y], rec->len[k->c_1y], &has_1y, &m1)) ||
        (k->c_3y >= 0 && !gp_catalog_price(rec->field[k->c_3y], rec->len[k->c_3y], &has_3y, &m3))) {
        gp_catalog_skip(k->out, where, "a price or count that is not a number >= 0");
        return GP_OK;
    }
    if (!has_count || count <= 0) {
        gp_catalog_skip(k->out, where, "no GPU count");
        return GP_OK;
    }
    if (k->c_cpu >= 0)
        gp_catalog_price(rec->field[k->c_cpu], rec->len[k->c_cpu], &h, &cpu);
    if (k->c_ram >= 0)
        gp_catalog_price(rec->field[k->c_ram], rec->len[k->c_ram], &h, &ram);
    char gpu[64];
    if (!gp_catalog_copy(gpu, sizeof gpu, rec->field[k->c_gpu], rec->len[k->c_gpu])) {
        gp_catalog_skip(k->out, where, "a GPU name too long");
        return GP_OK;
    }
    /* The machine family tells the memory variant the gpu_type column leaves out. */
    double mem = strstr(r.instance, "ultragpu") && strstr(gpu, "100") ? 80 : 0;
    gp_gpu_normalize(gpu, mem, r.gpu, sizeof r.gpu);
    r.gpu_count = count;
    r.vcpus = cpu;
    r.memory_gib = ram;
    memcpy(r.currency, "USD", 4);
    r.where = rec->line;
    return cud_add(k, &r, has_hour ? hour : 0, has_spot ? spot : 0, has_1y ? m1 : 0,
                   has_3y ? m3 : 0, err);
}

bool gp_detect_gcp_cud(const gp_catalog_head *h) {
    return starts_with_text(h->p, h->end, "machine_type,gpu_type,gpu_count");
}

gp_status gp_parse_gcp_cud(const char *buf, size_t len, const char *origin, const char *provider,
                           gp_catalog_batch *out, gp_err *err) {
    (void)provider; /* always gcp */
    cud k = {0};
    k.origin = origin;
    k.out = out;
    snprintf(out->provider, sizeof out->provider, "gcp");
    gp_status st = gp_csv_read(buf, len, origin, cud_record, &k, err);
    if (st == GP_OK && !k.header_seen)
        st = gp_errorf(err, GP_E_INPUT, origin, "empty file: no header");
    return st;
}
