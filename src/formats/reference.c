/* Reference tables: specs, hardware prices, electricity, PUE and URDB tariffs. */
#include "gpuplan/reference.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog_util.h"
#include "gpuplan/csv.h"

static const char *const kind_names[] = {
    "specs-epoch",   "specs-mlco2",          "hardware-epoch", "hardware-notes", "electricity-eia",
    "pue-reference", "pue-green-algorithms", "tariff-urdb",    "specs-gpuplan"};

const char *gp_reference_kind_name(gp_reference_kind k) {
    return kind_names[k];
}

int gp_reference_kind_from_name(const char *name) {
    for (int i = 0; i < (int)(sizeof kind_names / sizeof kind_names[0]); i++)
        if (strcmp(name, kind_names[i]) == 0)
            return i;
    return -1;
}

typedef struct table {
    gp_reference_kind kind;
    const char *origin;
    const gp_reference_sink *sink;
    size_t *skipped;
    int col[16];
    bool header_seen;
    int header_lines; /* Green Algorithms files carry a units row before the header */
} table;

static const char *fld(const gp_csv_record *r, int c, size_t *len) {
    if (c < 0 || c >= r->n) {
        *len = 0;
        return "";
    }
    *len = r->len[c];
    return r->field[c];
}

static bool num_field(const gp_csv_record *r, int c, double *out) {
    size_t n;
    const char *s = fld(r, c, &n);
    return n > 0 && gp_parse_number(s, n, out);
}

static void copy_field(const gp_csv_record *r, int c, char *dst, size_t cap) {
    size_t n;
    const char *s = fld(r, c, &n);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static bool is_iso_date(const char *s) {
    if (strlen(s) < 10)
        return false;
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static gp_status header_error(table *t, int line, const char *what, gp_err *err) {
    char w[300];
    snprintf(w, sizeof w, "%s:%d", t->origin, line);
    return gp_errorf(err, GP_E_INPUT, w, "not the %s header", what);
}

static const char *const epoch_cols[] = {"Hardware name",
                                         "Manufacturer",
                                         "Release date",
                                         "FP32 (single precision) performance (FLOP/s)",
                                         "FP16 (half precision) performance (FLOP/s)",
                                         "Tensor-FP16/BF16 performance (FLOP/s)",
                                         "Memory size per board (Byte)",
                                         "Memory bandwidth (byte/s)",
                                         "TDP (W)",
                                         "Type"};

static gp_status spec_epoch(table *t, const gp_csv_record *r, gp_err *err) {
    if (!t->header_seen) {
        for (int i = 0; i < 10; i++)
            if ((t->col[i] = gp_csv_column(r, epoch_cols[i])) < 0)
                return header_error(t, r->line, "Epoch chip dataset", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_gpu_spec s = {0};
    copy_field(r, t->col[0], s.full_name, sizeof s.full_name);
    copy_field(r, t->col[1], s.vendor, sizeof s.vendor);
    char type[16];
    copy_field(r, t->col[9], type, sizeof type);
    if (!s.full_name[0] || strcmp(type, "GPU") != 0) {
        (*t->skipped)++;
        return GP_OK;
    }
    double mem_b = 0;
    bool has_mem = num_field(r, t->col[6], &mem_b);
    gp_gpu_normalize(s.full_name, has_mem ? mem_b / 1e9 : 0, s.name, sizeof s.name);
    double v;
    if (has_mem)
        s.v[GP_SPEC_MEMORY_GB] = mem_b / 1e9, s.has[GP_SPEC_MEMORY_GB] = true;
    if (num_field(r, t->col[8], &v))
        s.v[GP_SPEC_TDP_W] = v, s.has[GP_SPEC_TDP_W] = true;
    if (num_field(r, t->col[3], &v))
        s.v[GP_SPEC_FP32] = v / 1e12, s.has[GP_SPEC_FP32] = true;
    if (num_field(r, t->col[4], &v))
        s.v[GP_SPEC_FP16] = v / 1e12, s.has[GP_SPEC_FP16] = true;
    if (num_field(r, t->col[5], &v))
        s.v[GP_SPEC_BF16] = v / 1e12, s.has[GP_SPEC_BF16] = true;
    if (num_field(r, t->col[7], &v))
        s.v[GP_SPEC_MEM_BW_GBS] = v / 1e9, s.has[GP_SPEC_MEM_BW_GBS] = true;
    copy_field(r, t->col[2], s.release_date, sizeof s.release_date);
    if (!is_iso_date(s.release_date))
        s.release_date[0] = '\0';
    return t->sink->spec ? t->sink->spec(&s, t->sink->arg, err) : GP_OK;
}

static gp_status spec_mlco2(table *t, const gp_csv_record *r, gp_err *err) {
    if (!t->header_seen) {
        static const char *const cols[] = {"name",     "type",     "tdp_watts",
                                           "TFLOPS32", "TFLOPS16", "memory"};
        for (int i = 0; i < 6; i++)
            if ((t->col[i] = gp_csv_column(r, cols[i])) < 0)
                return header_error(t, r->line, "mlco2 GPU table", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_gpu_spec s = {0};
    copy_field(r, t->col[0], s.full_name, sizeof s.full_name);
    char type[16];
    copy_field(r, t->col[1], type, sizeof type);
    if (!s.full_name[0] || strcmp(type, "gpu") != 0) {
        (*t->skipped)++;
        return GP_OK;
    }
    double v, mem = 0;
    if (num_field(r, t->col[5], &mem))
        s.v[GP_SPEC_MEMORY_GB] = mem, s.has[GP_SPEC_MEMORY_GB] = true;
    gp_gpu_normalize(s.full_name, mem, s.name, sizeof s.name);
    if (num_field(r, t->col[2], &v))
        s.v[GP_SPEC_TDP_W] = v, s.has[GP_SPEC_TDP_W] = true;
    /* Only TDP and memory: mlco2's TFLOPS columns mix dense, tensor and sparse figures
     * (H100 SXM "989" is TF32 tensor), so they would pass for FP32 throughput wrongly. */
    return t->sink->spec ? t->sink->spec(&s, t->sink->arg, err) : GP_OK;
}

/* The spec supplement: datasheet figures per row with the datasheet's URL; FP32 vector and
 * matrix in their own columns. */
static gp_status spec_gpuplan(table *t, const gp_csv_record *r, gp_err *err) {
    static const char *const cols[] = {"name",
                                       "vendor",
                                       "memory_gb",
                                       "tdp_w",
                                       "fp32_vector_tflops",
                                       "fp16_tflops",
                                       "bf16_tflops",
                                       "mem_bw_gbs",
                                       "fp32_matrix_tflops",
                                       "release_date"};
    if (!t->header_seen) {
        for (int i = 0; i < 10; i++)
            if ((t->col[i] = gp_csv_column(r, cols[i])) < 0)
                return header_error(t, r->line, "gpuplan spec supplement", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_gpu_spec s = {0};
    copy_field(r, t->col[0], s.full_name, sizeof s.full_name);
    copy_field(r, t->col[1], s.vendor, sizeof s.vendor);
    if (!s.full_name[0]) {
        (*t->skipped)++;
        return GP_OK;
    }
    static const int at[] = {GP_SPEC_MEMORY_GB,  GP_SPEC_TDP_W, GP_SPEC_FP32,
                             GP_SPEC_FP16,       GP_SPEC_BF16,  GP_SPEC_MEM_BW_GBS,
                             GP_SPEC_FP32_MATRIX};
    for (int i = 0; i < 7; i++) {
        double v;
        if (num_field(r, t->col[2 + i], &v) && v > 0)
            s.v[at[i]] = v, s.has[at[i]] = true;
    }
    gp_gpu_normalize(s.full_name, s.v[GP_SPEC_MEMORY_GB], s.name, sizeof s.name);
    copy_field(r, t->col[9], s.release_date, sizeof s.release_date);
    if (!is_iso_date(s.release_date))
        s.release_date[0] = '\0';
    return t->sink->spec ? t->sink->spec(&s, t->sink->arg, err) : GP_OK;
}

static gp_status hw_epoch(table *t, const gp_csv_record *r, gp_err *err) {
    if (!t->header_seen) {
        static const char *const cols[] = {"Price source",   "Price date",
                                           "Hardware model", "Price (hardware purchase)",
                                           "Notes",          "Number of GPUs"};
        for (int i = 0; i < 6; i++)
            if ((t->col[i] = gp_csv_column(r, cols[i])) < 0)
                return header_error(t, r->line, "Epoch hardware prices", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_hw_price h = {0};
    double price;
    if (!num_field(r, t->col[3], &price) || price <= 0)
        return GP_OK; /* a cloud price row: not a purchase */
    copy_field(r, t->col[4], h.note, sizeof h.note);
    /* Epoch marks its own estimates: they are not prices anyone paid. */
    if (strstr(h.note, "not a real")) {
        (*t->skipped)++;
        return GP_OK;
    }
    copy_field(r, t->col[2], h.item, sizeof h.item);
    copy_field(r, t->col[1], h.date, sizeof h.date);
    if (!is_iso_date(h.date)) {
        (*t->skipped)++;
        return GP_OK;
    }
    double gpus = 1;
    if (!num_field(r, t->col[5], &gpus) || gpus < 1)
        gpus = 1;
    /* Epoch divides system prices by the GPU count: the price is per GPU. */
    h.gpus = 1;
    h.price_usd = price;
    gp_gpu_normalize(h.item, 0, h.gpu, sizeof h.gpu);
    return t->sink->hardware ? t->sink->hardware(&h, t->sink->arg, err) : GP_OK;
}

/* The GPUs a priced item holds, read from its name: "(8x H100)" or "4x A100" says so; a DGX
 * system holds 8 (a DGX Station 4); network gear none; anything else is one GPU. */
static int gpus_in_item(const char *item) {
    if (strstr(item, "switch") || strstr(item, "Switch"))
        return 0;
    for (const char *p = item; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > item && isalnum((unsigned char)p[-1])))
            continue;
        char *end;
        long n = strtol(p, &end, 10);
        if ((*end == 'x' || *end == 'X') && end[1] == ' ' && n >= 1 && n <= 64)
            return (int)n;
    }
    if (strstr(item, "DGX Station"))
        return 4;
    if (strstr(item, "DGX"))
        return 8;
    return 1;
}

static gp_status hw_notes(table *t, const gp_csv_record *r, gp_err *err) {
    if (!t->header_seen) {
        static const char *const cols[] = {"item", "price_usd", "price_date", "source_note"};
        for (int i = 0; i < 4; i++)
            if ((t->col[i] = gp_csv_column(r, cols[i])) < 0)
                return header_error(t, r->line, "hardware price notes", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_hw_price h = {0};
    copy_field(r, t->col[0], h.item, sizeof h.item);
    copy_field(r, t->col[3], h.note, sizeof h.note);
    char date[32];
    copy_field(r, t->col[2], date, sizeof date);
    double price;
    /* A range ("25000-30000") or an undated price is no single dated price. */
    if (!num_field(r, t->col[1], &price) || price <= 0 || strlen(date) < 7 ||
        !isdigit((unsigned char)date[0])) {
        (*t->skipped)++;
        return GP_OK;
    }
    if (strlen(date) == 7) /* "YYYY-MM": the first of the month */
        snprintf(h.date, sizeof h.date, "%.7s-01", date);
    else
        snprintf(h.date, sizeof h.date, "%.10s", date);
    h.gpus = gpus_in_item(h.item);
    gp_gpu_normalize(h.item, 0, h.gpu, sizeof h.gpu);
    h.price_usd = price;
    return t->sink->hardware ? t->sink->hardware(&h, t->sink->arg, err) : GP_OK;
}

static gp_status elec_eia(table *t, const gp_csv_record *r, gp_err *err) {
    static const char *const cols[] = {"state", "residential_cents_per_kwh",
                                       "commercial_cents_per_kwh", "industrial_cents_per_kwh",
                                       "total_cents_per_kwh"};
    static const char *const sectors[] = {"", "residential", "commercial", "industrial", "total"};
    if (!t->header_seen) {
        for (int i = 0; i < 5; i++)
            if ((t->col[i] = gp_csv_column(r, cols[i])) < 0)
                return header_error(t, r->line, "EIA price-by-state", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_elec_price e = {0};
    copy_field(r, t->col[0], e.region, sizeof e.region);
    for (int i = 1; i < 5; i++) {
        double cents;
        if (!num_field(r, t->col[i], &cents) || cents <= 0) {
            (*t->skipped)++; /* the stored page is cut short: a blank is missing, not 0 */
            continue;
        }
        snprintf(e.sector, sizeof e.sector, "%s", sectors[i]);
        e.price_per_kwh = cents / 100.0;
        if (t->sink->electricity && t->sink->electricity(&e, t->sink->arg, err))
            return err->code;
    }
    return GP_OK;
}

static gp_status pue_table(table *t, const gp_csv_record *r, gp_err *err) {
    bool ga = t->kind == GP_REF_PUE_GREEN_ALGORITHMS;
    if (!t->header_seen) {
        if (ga && t->header_lines++ == 0 && gp_csv_column(r, "provider") < 0)
            return GP_OK; /* the units row */
        t->col[0] = gp_csv_column(r, ga ? "provider" : "scope");
        t->col[1] = ga ? -1 : gp_csv_column(r, "year_of_data");
        t->col[2] = gp_csv_column(r, ga ? "PUE" : "pue");
        if (t->col[0] < 0 || t->col[2] < 0 || (!ga && t->col[1] < 0))
            return header_error(t, r->line, "PUE table", err);
        t->header_seen = true;
        return GP_OK;
    }
    gp_pue_ref p = {0};
    copy_field(r, t->col[0], p.scope, sizeof p.scope);
    if (ga) {
        size_t n;
        const char *src = fld(r, 3 - 1, &n); /* "2024 https://..." or a URL */
        snprintf(p.year, sizeof p.year, "%.4s",
                 n >= 4 && isdigit((unsigned char)src[0]) ? src : "");
    } else {
        copy_field(r, t->col[1], p.year, sizeof p.year);
    }
    if (!num_field(r, t->col[2], &p.pue) || p.pue < 1 || p.pue > 5) {
        (*t->skipped)++;
        return GP_OK;
    }
    return t->sink->pue ? t->sink->pue(&p, t->sink->arg, err) : GP_OK;
}

static gp_status on_row(const gp_csv_record *r, void *arg, gp_err *err) {
    table *t = arg;
    switch (t->kind) {
    case GP_REF_SPECS_EPOCH:
        return spec_epoch(t, r, err);
    case GP_REF_SPECS_MLCO2:
        return spec_mlco2(t, r, err);
    case GP_REF_SPECS_GPUPLAN:
        return spec_gpuplan(t, r, err);
    case GP_REF_HARDWARE_EPOCH:
        return hw_epoch(t, r, err);
    case GP_REF_HARDWARE_NOTES:
        return hw_notes(t, r, err);
    case GP_REF_ELECTRICITY_EIA:
        return elec_eia(t, r, err);
    case GP_REF_PUE_REFERENCE:
    case GP_REF_PUE_GREEN_ALGORITHMS:
        return pue_table(t, r, err);
    case GP_REF_TARIFF_URDB:
        break;
    }
    return GP_OK;
}

/* ---- URDB tariffs -------------------------------------------------------------------------- */

/* A year-average daily profile of a URDB time-of-use rate: each energy period becomes a
 * period whose hours a day are its share of the year (weekdays 5/7, weekends 2/7), priced at
 * its first tier's rate plus adjustment. The demand charge is the facility (flat) charge plus
 * the highest time-of-use demand rate, since a fleet running around the clock sets its peak in
 * every window. */
/* Each period's hours a day, averaged over the 12 months' weekday and weekend schedules. */
static gp_status urdb_hours(const cJSON *wd, const cJSON *we, int np, const char *origin,
                            double hours[GP_MAX_PERIODS], gp_err *err) {
    gp_status st = GP_OK;
    for (int m = 0; m < 12; m++) {
        const cJSON *days[2] = {cJSON_GetArrayItem(wd, m), cJSON_GetArrayItem(we, m)};
        for (int d = 0; d < 2; d++) {
            if (cJSON_GetArraySize(days[d]) != 24) {
                st = gp_errorf(err, GP_E_INPUT, origin, "month %d schedule is not 24 hours", m + 1);
                return st;
            }
            int h = 0;
            for (const cJSON *x = days[d]->child; x; x = x->next, h++) {
                int k = cJSON_IsNumber(x) ? x->valueint : -1;
                if (k < 0 || k >= np) {
                    st =
                        gp_errorf(err, GP_E_INPUT, origin, "schedule names period %d of %d", k, np);
                    return st;
                }
                hours[k] += (d == 0 ? 5.0 : 2.0) / 7.0 / 12.0;
            }
        }
    }
    return st;
}

/* The demand charge a kW-month: the flat charge plus the highest time-of-use one. */
static double urdb_demand(const cJSON *it) {
    double demand = 0, tou_max = 0;
    const cJSON *flat = cJSON_GetArrayItem(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(it, "flatdemandstructure"), 0), 0);
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(flat, "rate");
    if (cJSON_IsNumber(fr))
        demand += fr->valuedouble;
    const cJSON *drs = cJSON_GetObjectItemCaseSensitive(it, "demandratestructure");
    for (const cJSON *d = drs ? drs->child : NULL; d; d = d->next) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d, 0), "rate");
        if (cJSON_IsNumber(r) && r->valuedouble > tou_max)
            tou_max = r->valuedouble;
    }
    demand += tou_max;
    return demand;
}

/* The tariff's periods (rounded to 1e-9 h, summing to 24) and demand charge as JSON into
 * t->tariff_json. */
static gp_status urdb_tariff_json(int np, const double *hours, const double *price, double demand,
                                  const char *origin, gp_tariff_preset *t, gp_err *err) {
    gp_status st = GP_OK;
    cJSON *tariff = cJSON_CreateObject(), *periods = cJSON_AddArrayToObject(tariff, "periods");
    double total = 0;
    int last = -1;
    for (int k = 0; k < np; k++)
        if (hours[k] > 1e-12)
            last = k;
    for (int k = 0; k < np; k++) {
        if (hours[k] <= 1e-12)
            continue;
        /* Round to 1e-9 h and give the remainder to the last period: sums to 24 exactly. */
        double h = k == last ? 24.0 - total : round(hours[k] * 1e9) / 1e9;
        total += h;
        cJSON *p = cJSON_CreateObject();
        char pname[32];
        snprintf(pname, sizeof pname, "period %d", k + 1);
        cJSON_AddStringToObject(p, "name", pname);
        cJSON_AddNumberToObject(p, "hours_per_day", h);
        cJSON_AddNumberToObject(p, "price_per_kwh", price[k]);
        cJSON_AddItemToArray(periods, p);
    }
    cJSON_AddNumberToObject(tariff, "demand_charge_per_kw_month", demand);
    char *text = cJSON_PrintUnformatted(tariff);
    cJSON_Delete(tariff);
    if (!text || strlen(text) >= sizeof t->tariff_json) {
        free(text);
        st = gp_errorf(err, GP_E_LIMIT, origin, "tariff too large");
        return st;
    }
    snprintf(t->tariff_json, sizeof t->tariff_json, "%s", text);
    free(text);
    return st;
}

static gp_status urdb(const char *buf, size_t len, const char *origin, const char *name_hint,
                      const gp_reference_sink *sink, size_t *skipped, gp_err *err) {
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");
    const cJSON *it = cJSON_GetArrayItem(items, 0);
    const cJSON *rates = cJSON_GetObjectItemCaseSensitive(it, "energyratestructure");
    const cJSON *wd = cJSON_GetObjectItemCaseSensitive(it, "energyweekdayschedule");
    const cJSON *we = cJSON_GetObjectItemCaseSensitive(it, "energyweekendschedule");
    if (!cJSON_IsArray(rates) || !cJSON_IsArray(wd) || !cJSON_IsArray(we) ||
        cJSON_GetArraySize(wd) != 12 || cJSON_GetArraySize(we) != 12) {
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "not a URDB rate (needs items[0] with energyratestructure and 12-month "
                       "weekday and weekend schedules)");
        goto done;
    }
    int np = cJSON_GetArraySize(rates);
    if (np < 1 || np > GP_MAX_PERIODS) {
        st = gp_errorf(err, GP_E_INPUT, origin, "%d energy periods; 1 to %d supported", np,
                       GP_MAX_PERIODS);
        goto done;
    }
    double price[GP_MAX_PERIODS], hours[GP_MAX_PERIODS] = {0};
    for (int k = 0; k < np; k++) {
        const cJSON *tier = cJSON_GetArrayItem(cJSON_GetArrayItem(rates, k), 0);
        const cJSON *rate = cJSON_GetObjectItemCaseSensitive(tier, "rate");
        const cJSON *adj = cJSON_GetObjectItemCaseSensitive(tier, "adj");
        if (!cJSON_IsNumber(rate) || (adj && !cJSON_IsNumber(adj))) {
            st = gp_errorf(err, GP_E_INPUT, origin, "energy period %d has no numeric rate", k);
            goto done;
        }
        price[k] = rate->valuedouble + (adj ? adj->valuedouble : 0.0);
    }
    if ((st = urdb_hours(wd, we, np, origin, hours, err)))
        goto done;
    double demand = urdb_demand(it);

    gp_tariff_preset t = {0};
    snprintf(t.name, sizeof t.name, "%s", name_hint ? name_hint : "urdb");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(it, "utility");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
    snprintf(t.utility, sizeof t.utility, "%s", cJSON_IsString(u) ? u->valuestring : "");
    snprintf(t.description, sizeof t.description, "%s", cJSON_IsString(n) ? n->valuestring : "");
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(it, "startdate");
    if (cJSON_IsNumber(start)) {
        time_t ts = (time_t)start->valuedouble;
        struct tm tm;
        gmtime_r(&ts, &tm);
        strftime(t.effective_from, sizeof t.effective_from, "%Y-%m-%d", &tm);
    }
    if ((st = urdb_tariff_json(np, hours, price, demand, origin, &t, err)))
        goto done;
    (void)skipped;
    if (sink->tariff)
        st = sink->tariff(&t, sink->arg, err);
done:
    cJSON_Delete(doc);
    return st;
}

gp_status gp_reference_parse(gp_reference_kind kind, const char *buf, size_t len,
                             const char *origin, const char *name_hint,
                             const gp_reference_sink *sink, size_t *skipped, gp_err *err) {
    *skipped = 0;
    if (kind == GP_REF_TARIFF_URDB)
        return urdb(buf, len, origin, name_hint, sink, skipped, err);
    table t = {0};
    t.kind = kind;
    t.origin = origin;
    t.sink = sink;
    t.skipped = skipped;
    gp_status st = gp_csv_read(buf, len, origin, on_row, &t, err);
    if (st == GP_OK && !t.header_seen)
        st = gp_errorf(err, GP_E_INPUT, origin, "empty table");
    return st;
}
