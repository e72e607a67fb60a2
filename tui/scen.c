/* The open scenario (scen.h): fields built from the resolved scenario over the editor's model
 * (app_plan_edit.h, which owns the document, undo, save and rename), evaluation when a value is
 * committed or a choice shown, and the catalog and tariff changes. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_reshape.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/app_pricing.h"
#include "scen.h"

/* ---- the fields ------------------------------------------------------------------------- */

/* Where a field's value is read: the resolved scenario (so a default or a catalog price shows),
 * or the document itself (list rows, texts and choices, which the struct does not keep as
 * typed). F_SHAPE is a choice that reshapes the document (app_reshape.h) rather than setting
 * one key: the demand mode, the financing kind, an option's pricing; F_PERIODS and F_OPTIONS
 * are the heads of the tariff periods and of the cloud options. */
enum {
    F_SCEN_D,
    F_SCEN_I,
    F_PERIOD_D,
    F_PERIOD_S,
    F_OPTION_D,
    F_OPTION_I,
    F_DOC,
    F_LIST,
    F_SHAPE,
    F_PERIODS,
    F_OPTIONS
};
/* Which demand mode a field belongs to. */
enum { W_ALL, W_GPU, W_WORK };

typedef struct list_def list_def;

typedef struct field_def {
    const char *key, *label, *unit;
    int kind;
    size_t off;
    int ui; /* FIELD_ */
    bool integer, optional;
    const char *absent; /* what an absent optional key means */
    int when;           /* W_ */
    const list_def *list;
} field_def;

/* A small list of objects edited as rows: its element's keys, one field each. */
struct list_def {
    const char *row_label; /* "step", "point", "tier" */
    const field_def *cols;
    int n_cols;
    /* Fill row, a new element after last (NULL when the list is empty), so that the list
     * stays valid where it can: later months and ages, the demand in force. */
    void (*new_row)(const cJSON *doc, const cJSON *last, bool work_mode, cJSON *row);
};

#define SD(k, l, u, m)                                                                             \
    { .key = k, .label = l, .unit = u, .kind = F_SCEN_D, .off = offsetof(gp_scenario, m) }
#define SI(k, l, u, m)                                                                             \
    {                                                                                              \
        .key = k, .label = l, .unit = u, .kind = F_SCEN_I, .off = offsetof(gp_scenario, m),        \
        .integer = true                                                                            \
    }
/* Optional keys, shown from the document: absent means their default. */
#define DN(k, l, u, abs, w)                                                                        \
    { .key = k, .label = l, .unit = u, .kind = F_DOC, .optional = true, .absent = abs, .when = w }
#define DI(k, l, u, abs, w)                                                                        \
    {                                                                                              \
        .key = k, .label = l, .unit = u, .kind = F_DOC, .integer = true, .optional = true,         \
        .absent = abs, .when = w                                                                   \
    }
#define DT(k, l, u, abs, w)                                                                        \
    {                                                                                              \
        .key = k, .label = l, .unit = u, .kind = F_DOC, .ui = FIELD_TEXT, .optional = true,        \
        .absent = abs, .when = w                                                                   \
    }
#define DC(k, l, abs)                                                                              \
    {                                                                                              \
        .key = k, .label = l, .unit = "choice", .kind = F_DOC, .ui = FIELD_CHOICE,                 \
        .optional = true, .absent = abs                                                            \
    }
#define LIST(k, l, u, d)                                                                           \
    { .key = k, .label = l, .unit = u, .kind = F_LIST, .ui = FIELD_LIST, .list = &d }
#define COL(k, l, u, i, opt, w)                                                                    \
    {                                                                                              \
        .key = k, .label = l, .unit = u, .kind = F_DOC, .integer = i, .optional = opt,             \
        .absent = "before", .when = w                                                              \
    }

static const field_def step_cols[] = {
    COL("month", "month", "from", true, false, W_ALL),
    COL("gpus", "GPUs", "GPUs", true, true, W_GPU),
    COL("work_per_month", "work", "units/mo", false, true, W_WORK),
    COL("utilization", "utilization", "0..1", false, true, W_ALL),
};
static double num_at(const cJSON *o, const char *key, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* A step a month after the last, holding the demand then in force (its own change typed
 * next). */
static void new_step(const cJSON *doc, const cJSON *last, bool work_mode, cJSON *row) {
    const cJSON *demand = cJSON_GetObjectItemCaseSensitive(doc, "demand");
    const char *key = work_mode ? "work_per_month" : "gpus";
    double v = num_at(demand, key, 0);
    const cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(demand, "steps")) v =
        num_at(st, key, v);
    cJSON_AddNumberToObject(row, "month", last ? num_at(last, "month", 1) + 1 : 2);
    cJSON_AddNumberToObject(row, key, v);
}

static void new_resale(const cJSON *doc, const cJSON *last, bool work_mode, cJSON *row) {
    (void)doc, (void)work_mode;
    double age = last ? num_at(last, "age_months", 0) + 12 : 12;
    cJSON_AddNumberToObject(row, "age_months", age > 240 ? 240 : age);
    cJSON_AddNumberToObject(row, "pct", last ? num_at(last, "pct", 0.5) : 0.5);
}

static void new_tier(const cJSON *doc, const cJSON *last, bool work_mode, cJSON *row) {
    (void)doc, (void)work_mode;
    cJSON_AddNumberToObject(row, "min_servers", last ? num_at(last, "min_servers", 0) + 10 : 10);
    cJSON_AddNumberToObject(row, "pct", last ? num_at(last, "pct", 0.05) : 0.05);
}

static const list_def steps_list = {"step", step_cols, 4, new_step};
static const field_def resale_cols[] = {
    COL("age_months", "at age", "months", true, false, W_ALL),
    COL("pct", "worth", "0..1", false, false, W_ALL),
};
static const list_def resale_list = {"resale", resale_cols, 2, new_resale};
static const field_def tier_cols[] = {
    COL("min_servers", "from", "servers", true, false, W_ALL),
    COL("pct", "discount", "0..<1", false, false, W_ALL),
};
static const list_def tier_list = {"bulk tier", tier_cols, 2, new_tier};

#define SHAPE(k, l, abs)                                                                           \
    { .key = k, .label = l, .unit = "choice", .kind = F_SHAPE, .ui = FIELD_CHOICE, .absent = abs }
#define PERIODS_LIST "self_hosted.tariff.periods"
#define SHIFT_KEY "self_hosted.tariff.shift_to_cheapest"
#define OPTIONS_LIST "cloud_options"

static const field_def general[] = {
    SI("horizon_months", "horizon", "months", horizon_months),
    SD("discount_rate", "discount rate (NPV)", "a year", discount_rate),
    {.key = "demand.gpus",
     .label = "GPUs needed",
     .unit = "GPUs",
     .kind = F_SCEN_I,
     .off = offsetof(gp_scenario, gpus),
     .integer = true,
     .when = W_GPU},
    {.key = "demand.work_per_month",
     .label = "work a month",
     .unit = "units",
     .kind = F_SCEN_D,
     .off = offsetof(gp_scenario, work_per_month),
     .when = W_WORK},
    DT("demand.work_unit", "work unit", "name", "unit", W_WORK),
    SD("demand.utilization", "utilization", "0..1", utilization),
    SD("demand.growth_per_month", "demand growth", "a month", growth_per_month),
    LIST("demand.steps", "demand steps", "rows", steps_list),
    SHAPE("demand.mode", "demand counted in", "GPUs"),
    DT("start_date", "start date", "YYYY-MM-DD", "today", W_ALL),
    SI("self_hosted.gpus_per_server", "GPUs a server", "GPUs", gpus_per_server),
    SD("self_hosted.server_price", "server price", "$cur", server_price),
    SD("self_hosted.price_factor", "price factor", "x", price_factor),
    SD("self_hosted.server_price_trend_per_year", "hardware price trend", "a year",
       server_price_trend_per_year),
    LIST("self_hosted.bulk_discounts", "bulk tiers", "rows", tier_list),
    SD("self_hosted.network_per_server", "network a server", "$cur", network_per_server),
    SD("self_hosted.fixed_capex", "fixed capex", "$cur", fixed_capex),
    DC("self_hosted.buy", "purchases", "all_at_once"),
    SI("self_hosted.lead_time_months", "lead time", "months", lead_time_months),
    SI("self_hosted.order_every_months", "order every", "months", order_every_months),
    DI("self_hosted.max_servers", "at most", "servers", "no cap", W_ALL),
    DC("self_hosted.bridge", "bridge", "none"),
    SI("self_hosted.refresh_months", "refresh every", "months, 0: never", refresh_months),
    DN("self_hosted.residual_pct", "residual value", "0..1", "0", W_ALL),
    LIST("self_hosted.resale", "resale curve", "points", resale_list),
    SD("self_hosted.depreciation_years", "depreciation", "years", depreciation_years),
    SI("self_hosted.warranty_months", "warranty", "months", warranty_months),
    SD("self_hosted.maintenance_pct_per_year", "maintenance", "a year", maintenance_pct_per_year),
    SD("self_hosted.staff_per_month", "staff", "$cur/mo", staff_per_month),
    SD("self_hosted.other_per_month", "other costs", "$cur/mo", other_per_month),
    SD("self_hosted.colo_per_kw_month", "colocation", "/kW-mo", colo_per_kw_month),
    SD("self_hosted.grid_kg_co2_per_kwh", "grid CO2", "kg/kWh", grid_kg_co2_per_kwh),
    {.key = "self_hosted.work_per_gpu_hour",
     .label = "work a GPU-hour",
     .unit = "units",
     .kind = F_SCEN_D,
     .off = offsetof(gp_scenario, work_per_gpu_hour),
     .when = W_WORK},
    SD("self_hosted.power.server_base_w", "server base draw", "W", server_base_w),
    SD("self_hosted.power.gpu_idle_w", "GPU idle draw", "W", gpu_idle_w),
    SD("self_hosted.power.gpu_tdp_w", "GPU busy draw", "W", gpu_tdp_w),
    DN("self_hosted.power.gpu_avg_w", "GPU flat draw", "W", "none", W_ALL),
    SD("self_hosted.power.pue", "PUE", "x", pue),
    DC("self_hosted.tariff.shift_to_cheapest", "shift to cheapest", "no"),
    SD("self_hosted.tariff.demand_charge_per_kw_month", "demand charge", "/kW-mo",
       demand_charge_per_kw_month),
    SD("self_hosted.tariff.price_trend_per_year", "electricity trend", "a year",
       energy_price_trend_per_year),
};
static const field_def financing = SHAPE("self_hosted.financing.kind", "financing", "cash");
static const field_def loan[] = {
    SD("self_hosted.financing.apr", "loan APR", "a year", loan_apr),
    SI("self_hosted.financing.term_months", "loan term", "months", loan_term_months),
    SD("self_hosted.financing.fraction", "loan share", "0..1", loan_fraction),
};
#define OD(k, l, u, m)                                                                             \
    { .key = k, .label = l, .unit = u, .kind = F_OPTION_D, .off = offsetof(gp_option, m) }
#define OI(k, l, u, m)                                                                             \
    {                                                                                              \
        .key = k, .label = l, .unit = u, .kind = F_OPTION_I, .off = offsetof(gp_option, m),        \
        .integer = true                                                                            \
    }
static const field_def opt_pricing[] = {SHAPE("pricing", "pricing", "on_demand")};
static const field_def opt_price[] = {
    OD("hourly", "hourly", "/inst-h", hourly),
    OI("gpus_per_instance", "GPUs an instance", "GPUs", gpus_per_instance)};
static const field_def opt_committed[] = {OD("upfront", "upfront a term", "$cur", upfront),
                                          OI("term_months", "term", "months", term_months)};
static const field_def opt_purchase[] = {DC("purchase", "purchase", "no_upfront")};
static const field_def opt_base[] = {DI("base_gpus", "committed base", "GPUs", "all", W_ALL)};
static const field_def opt_burst[] = {DC("burst", "burst to", "none")};
static const field_def opt_spot[] = {
    OD("interruptions_per_hour", "interruptions", "/h", interruptions_per_hour),
    OD("checkpoint_interval_h", "checkpoint every", "h", checkpoint_interval_h),
    OD("restart_h", "restart time", "h", restart_h)};
static const field_def opt_idle[] = {OD("idle_overhead", "idle overhead", "x", idle_overhead)};
/* An API priced per unit of work (2.1): its price a unit, and its input tokens' price and ratio. */
static const field_def opt_api[] = {
    OD("price_per_unit", "price a unit", "/unit", price_per_unit),
    OD("price_per_input_unit", "input price", "/input", price_per_input_unit),
    OD("input_units_per_unit", "input ratio", "in/unit", input_units_per_unit)};
static const field_def opt_common[] = {
    OD("support_pct", "support", "0..1", support_pct),
    OD("price_trend_per_year", "price trend", "a year", price_trend_per_year)};
static const field_def opt_extras[] = {
    OD("storage_gb", "storage", "GB", storage_gb),
    OD("storage_per_gb_month", "storage price", "/GB-mo", storage_per_gb_month),
    OD("egress_gb_per_month", "egress", "GB/mo", egress_gb_per_month),
    OD("egress_per_gb", "egress price", "/GB", egress_per_gb)};
static const field_def opt_work[] = {{.key = "work_per_gpu_hour",
                                      .label = "work a GPU-hour",
                                      .unit = "units",
                                      .kind = F_OPTION_D,
                                      .off = offsetof(gp_option, work_per_gpu_hour)}};

typedef struct built {
    field *f;
    field_def *def;
    int n, cap;
    int *index; /* option or period index per field */
} built;

static void add(built *b, const field_def *d, int idx, const char *path, const char *label) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->f = gp_xrealloc(b->f, sizeof *b->f * (size_t)b->cap);
        b->def = gp_xrealloc(b->def, sizeof *b->def * (size_t)b->cap);
        b->index = gp_xrealloc(b->index, sizeof *b->index * (size_t)b->cap);
    }
    field *f = &b->f[b->n];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    draw_clean(label, f->label, sizeof f->label);
    f->unit = d->unit;
    f->integer = d->integer;
    f->kind = d->ui;
    f->optional = d->optional;
    f->row = -1;
    b->def[b->n] = *d;
    b->index[b->n] = idx;
    b->n++;
}

#define get_path gp_json_path_get
#define set_path gp_json_path_set

const cJSON *scen_doc(const tui *t) {
    return t->pe ? gp_plan_edit_doc(t->pe) : NULL;
}
const char *scen_name(const tui *t) {
    return t->pe ? gp_plan_edit_name(t->pe) : "";
}
int scen_version(const tui *t) {
    return t->pe ? gp_plan_edit_version(t->pe) : 0;
}
bool scen_dirty(const tui *t) {
    return t->pe && gp_plan_edit_dirty(t->pe);
}

/* A list's head, then each element's keys (those of the demand mode in force) as rows. */
static void add_list(built *b, const tui *t, const field_def *d, int mode) {
    const cJSON *arr = get_path(scen_doc(t), d->key);
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    char label[96];
    add(b, d, -1, d->key, d->label);
    snprintf(b->f[b->n - 1].list, sizeof b->f[b->n - 1].list, "%s", d->key);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < d->list->n_cols; c++) {
            const field_def *col = &d->list->cols[c];
            if (col->when != W_ALL && col->when != mode)
                continue;
            char path[96];
            snprintf(path, sizeof path, "%s[%d].%s", d->key, r, col->key);
            if (c == 0)
                snprintf(label, sizeof label, "  %s %d: %s", d->list->row_label, r + 1, col->label);
            else
                snprintf(label, sizeof label, "    %s", col->label);
            add(b, col, -1, path, label);
            field *f = &b->f[b->n - 1];
            snprintf(f->list, sizeof f->list, "%s", d->key);
            f->row = r;
        }
}

/* The tariff periods: a head, then each period's name, price and hours as a row (read from the
 * resolved scenario, so the default flat tariff shows). */
static void add_periods(built *b, const gp_scenario *s) {
    static const field_def head = {.key = PERIODS_LIST,
                                   .label = "tariff periods",
                                   .unit = "rows",
                                   .kind = F_PERIODS,
                                   .ui = FIELD_LIST};
    static const field_def name = {.unit = "name", .kind = F_PERIOD_S, .ui = FIELD_TEXT};
    static const field_def price = {
        .unit = "/kWh", .kind = F_PERIOD_D, .off = offsetof(gp_period, price_per_kwh)};
    static const field_def hours = {
        .unit = "h a day", .kind = F_PERIOD_D, .off = offsetof(gp_period, hours_per_day)};
    add(b, &head, -1, PERIODS_LIST, head.label);
    snprintf(b->f[b->n - 1].list, sizeof b->f[b->n - 1].list, "%s", PERIODS_LIST);
    for (int k = 0; k < s->n_periods; k++) {
        const field_def *defs[3] = {&name, &price, &hours};
        static const char *const keys[3] = {"name", "price_per_kwh", "hours_per_day"};
        for (int c = 0; c < 3; c++) {
            char path[96], label[96];
            snprintf(path, sizeof path, PERIODS_LIST "[%d].%s", k, keys[c]);
            if (c == 0)
                snprintf(label, sizeof label, "  period %d: name", k + 1);
            else
                snprintf(label, sizeof label, "    %s %s", s->periods[k].name,
                         c == 1 ? "price" : "hours");
            add(b, defs[c], k, path, label);
            field *f = &b->f[b->n - 1];
            snprintf(f->list, sizeof f->list, "%s", PERIODS_LIST);
            f->row = k;
        }
    }
}

/* Every input of the resolved scenario, in the order of docs/model.md. */
static void build_fields(tui *t) {
    const gp_scenario *s = t->sc.s;
    int mode = s->work_mode ? W_WORK : W_GPU;
    built b = {0};
    for (size_t i = 0; i < sizeof general / sizeof general[0]; i++) {
        if (general[i].when != W_ALL && general[i].when != mode)
            continue;
        if (general[i].kind == F_LIST) {
            add_list(&b, t, &general[i], mode);
            continue;
        }
        add(&b, &general[i], -1, general[i].key, general[i].label);
        if (!strcmp(general[i].key, "self_hosted.power.pue"))
            add_periods(&b, s);
    }
    add(&b, &financing, -1, financing.key, financing.label);
    if (s->financing == GP_LOAN)
        for (size_t i = 0; i < sizeof loan / sizeof loan[0]; i++)
            add(&b, &loan[i], -1, loan[i].key, loan[i].label);
    static const field_def options_head = {.key = OPTIONS_LIST,
                                           .label = "cloud options",
                                           .unit = "options",
                                           .kind = F_OPTIONS,
                                           .ui = FIELD_LIST};
    add(&b, &options_head, -1, OPTIONS_LIST, options_head.label);
    snprintf(b.f[b.n - 1].list, sizeof b.f[b.n - 1].list, "%s", OPTIONS_LIST);
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        const field_def *groups[12];
        size_t sizes[12];
        int ng = 0;
        groups[ng] = opt_pricing, sizes[ng++] = 1;
        /* A catalog reference fixes the price and the instance size (sc is resolved, so the
         * document says which options have one). */
        bool has_catalog =
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(scen_doc(t), "cloud_options"),
                                   i),
                "catalog") != NULL;
        bool api = o->pricing == GP_PER_UNIT;
        if (api)
            groups[ng] = opt_api, sizes[ng++] = 3;
        else if (!has_catalog)
            groups[ng] = opt_price, sizes[ng++] = 2;
        /* A reference's upfront is the catalog's (none): only the term can change. */
        if (o->pricing == GP_COMMITTED && has_catalog) {
            groups[ng] = opt_committed + 1, sizes[ng++] = 1;
            groups[ng] = opt_purchase, sizes[ng++] = 1; /* catalog references only */
        } else if (o->pricing == GP_COMMITTED)
            groups[ng] = opt_committed, sizes[ng++] = 2;
        if (o->pricing == GP_COMMITTED)
            groups[ng] = opt_base, sizes[ng++] = 1;
        /* A burst belongs to a committed base only (docs/model.md's key table). */
        if (o->pricing == GP_COMMITTED && o->has_base_gpus)
            groups[ng] = opt_burst, sizes[ng++] = 1;
        if (o->pricing == GP_SPOT)
            groups[ng] = opt_spot, sizes[ng++] = 3;
        if (o->pricing != GP_COMMITTED && !api)
            groups[ng] = opt_idle, sizes[ng++] = 1;
        groups[ng] = opt_common, sizes[ng++] = 2;
        groups[ng] = opt_extras, sizes[ng++] = 4;
        if (s->work_mode && !api) /* an API's unit is the demand's */
            groups[ng] = opt_work, sizes[ng++] = 1;
        for (int g = 0; g < ng; g++)
            for (size_t k = 0; k < sizes[g]; k++) {
                char path[96], label[256];
                snprintf(path, sizeof path, "cloud_options[%d].%s", i, groups[g][k].key);
                /* The name whole: the screen shortens it in the middle, where it must. */
                snprintf(label, sizeof label, "%.200s: %s", o->name, groups[g][k].label);
                add(&b, &groups[g][k], i, path, label);
                /* a adds an option beside it, as on the head */
                snprintf(b.f[b.n - 1].list, sizeof b.f[b.n - 1].list, "%s", OPTIONS_LIST);
            }
    }
    free(t->fields);
    free(t->field_defs);
    free(t->field_index);
    t->fields = b.f, t->field_defs = b.def, t->field_index = b.index;
    t->n_fields = b.n;
    if (t->field_sel >= t->n_fields)
        t->field_sel = t->n_fields ? t->n_fields - 1 : 0;
}

/* A number as the editor shows and pre-fills it. */
static void number_text(double v, bool integer, char *out, size_t cap) {
    if (integer)
        snprintf(out, cap, "%.0f", v);
    else
        snprintf(out, cap, "%.10g", v);
}

/* Whether the document (not the value being tried) states its demand as work. */
static bool doc_work_mode(const tui *t) {
    return get_path(scen_doc(t), "demand.work_per_month") != NULL;
}

/* The choices of a FIELD_CHOICE field (NULL: the key removed, its default); at most cap. The
 * names point into t->sc, valid until the next evaluation. */
static int field_choices(const tui *t, int i, const char **out, int cap) {
    const field_def *d = &((const field_def *)t->field_defs)[i];
    int n = 0;
    if (!strcmp(d->key, "demand.mode")) {
        /* The document's mode first (the results may be a choice's being tried); from GPUs,
         * work in GPU-hours or in a profile's unit. */
        if (doc_work_mode(t)) {
            out[n++] = "work";
            out[n++] = "GPUs";
            return n;
        }
        out[n++] = "GPUs";
        out[n++] = "GPU-hours";
        for (int k = 0; k < gp_n_profiles && n < cap; k++)
            out[n++] = gp_profiles[k].name;
        return n;
    }
    if (!strcmp(d->key, "self_hosted.financing.kind")) {
        out[n++] = "cash";
        out[n++] = "loan";
        return n;
    }
    if (!strcmp(d->key, "pricing")) {
        out[n++] = "on_demand";
        out[n++] = "spot";
        out[n++] = "committed";
        if (doc_work_mode(t)) /* an API bills work only */
            out[n++] = "per_unit";
        return n;
    }
    if (!strcmp(d->key, "purchase")) {
        out[n++] = NULL;
        out[n++] = "partial_upfront";
        out[n++] = "all_upfront";
        return n;
    }
    if (!strcmp(d->key, SHIFT_KEY)) { /* a bool: false is the default */
        out[n++] = NULL;
        out[n++] = "yes";
        return n;
    }
    if (!strcmp(d->key, "self_hosted.buy")) {
        out[n++] = "all_at_once";
        out[n++] = "as_needed";
        return n;
    }
    /* A bridge or a burst: none, or any on-demand, spot or per_unit option. */
    out[n++] = NULL;
    const gp_scenario *s = t->sc.s;
    for (int k = 0; k < s->n_options && n < cap; k++)
        if (s->options[k].pricing != GP_COMMITTED)
            out[n++] = s->options[k].name;
    return n;
}

void scen_field_text(const tui *t, int i, char *out, size_t cap) {
    const gp_scenario *s = t->sc.s;
    const field_def *d = &((const field_def *)t->field_defs)[i];
    const field *f = &t->fields[i];
    if (t->editing && i == t->field_sel && f->kind == FIELD_CHOICE) {
        const char *ch[GP_MAX_OPTIONS + 1];
        int n = field_choices(t, i, ch, GP_MAX_OPTIONS + 1);
        int k = t->edit_choice;
        snprintf(out, cap, "%s", k >= 0 && k < n && ch[k] ? ch[k] : d->absent);
        return;
    }
    if (d->kind == F_LIST) {
        const cJSON *arr = get_path(scen_doc(t), f->path);
        snprintf(out, cap, "%d", cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0);
        return;
    }
    if (d->kind == F_PERIODS || d->kind == F_OPTIONS) {
        snprintf(out, cap, "%d", d->kind == F_PERIODS ? s->n_periods : s->n_options);
        return;
    }
    if (d->kind == F_PERIOD_S) {
        draw_clean(s->periods[t->field_index[i]].name, out, cap);
        return;
    }
    if (d->kind == F_SHAPE && !strcmp(d->key, "demand.mode")) {
        snprintf(out, cap, "%s", doc_work_mode(t) ? "work" : "GPUs");
        return;
    }
    if (d->kind == F_DOC || d->kind == F_SHAPE) {
        const cJSON *v = get_path(scen_doc(t), f->path);
        if (cJSON_IsNumber(v))
            number_text(v->valuedouble, d->integer, out, cap);
        else if (cJSON_IsTrue(v))
            snprintf(out, cap, "yes");
        else if (cJSON_IsString(v))
            draw_clean(v->valuestring, out, cap);
        else
            snprintf(out, cap, "%s", d->absent ? d->absent : "");
        return;
    }
    int idx = t->field_index[i];
    const char *base = d->kind == F_SCEN_D || d->kind == F_SCEN_I ? (const char *)s
                       : d->kind == F_PERIOD_D                    ? (const char *)&s->periods[idx]
                                                                  : (const char *)&s->options[idx];
    if (d->integer)
        number_text(*(const int *)(base + d->off), true, out, cap);
    else
        number_text(*(const double *)(base + d->off), false, out, cap);
}

/* ---- evaluation ------------------------------------------------------------------------- */

/* Resolve doc (the open document, or a copy with the value being typed) and evaluate it. On an
 * invalid value the message is kept and the last good result stays on screen. */
static bool evaluate(tui *t, const cJSON *doc) {
    gp_loaded sc;
    gp_err err;
    gp_err_clear(&err);
    char origin[GP_NAME_BYTES + 16];
    snprintf(origin, sizeof origin, "%s", scen_name(t));
    if (gp_load_scenario_doc(t->ses, doc, origin, t->today, &sc, &err)) {
        const char *path = strstr(err.where, ":$");
        snprintf(t->invalid, sizeof t->invalid, "%s%s%s", path ? path + 1 : "", path ? ": " : "",
                 err.msg);
        return false;
    }
    if (t->has_sc)
        gp_loaded_done(&t->sc);
    t->sc = sc;
    t->has_sc = true;
    t->invalid[0] = '\0';
    /* A plan the engine refuses (a month needing a missing bridge, a total past the model's
     * bounds) says why, as a refused value does. */
    if (gp_evaluate(&t->sc, t->r, &err)) {
        const char *path = strstr(err.where, ":$");
        snprintf(t->invalid, sizeof t->invalid, "%s%s%s", path ? path + 1 : "", path ? ": " : "",
                 err.msg);
        return false;
    }
    return true;
}

/* How field i's typed value reads. */
static gp_edit_kind edit_kind(const tui *t, int i) {
    const field *f = &t->fields[i];
    return f->kind == FIELD_TEXT ? GP_EDIT_TEXT : f->integer ? GP_EDIT_INTEGER : GP_EDIT_NUMBER;
}

/* The value being typed or chosen as a JSON item (*item NULL: the key removed, so its default
 * applies): false, with t->invalid saying why, when it is not one. */
static bool edit_item(tui *t, cJSON **item) {
    const field *f = &t->fields[t->field_sel];
    *item = NULL;
    if (f->kind == FIELD_CHOICE) {
        const char *ch[GP_MAX_OPTIONS + 1];
        int n = field_choices(t, t->field_sel, ch, GP_MAX_OPTIONS + 1);
        bool flag = !strcmp(((const field_def *)t->field_defs)[t->field_sel].key, SHIFT_KEY);
        if (t->edit_choice >= 0 && t->edit_choice < n && ch[t->edit_choice])
            *item = flag ? cJSON_CreateTrue() : cJSON_CreateString(ch[t->edit_choice]);
        return true;
    }
    gp_err err;
    if (gp_plan_edit_parse(t->edit, edit_kind(t, t->field_sel), f->optional, item, &err)) {
        snprintf(t->invalid, sizeof t->invalid, "%s", err.msg);
        return false;
    }
    return true;
}

/* A change the scenario refuses, on the message line: its JSON path and why. */
static void say_refused(char *out, size_t cap, const gp_err *err) {
    const char *path = strstr(err->where, ":$");
    path = path ? path + 1 : err->where[0] == '$' ? err->where : NULL;
    snprintf(out, cap, "%s%s%s", path ? path : "", path ? ": " : "", err->msg);
}

/* A shape choice (F_SHAPE) made on copy: the demand mode, the financing kind or option k's
 * pricing, through app_reshape.h. False (t->invalid says why) when it is refused. */
static bool reshape(tui *t, cJSON *copy, const char *key, int k, const char *choice) {
    gp_err err;
    gp_err_clear(&err);
    gp_status rc = GP_OK;
    if (!strcmp(key, "demand.mode")) {
        bool work = doc_work_mode(t);
        if (!strcmp(choice, "GPUs") && work)
            rc = gp_reshape_gpu_mode(copy, &err);
        else if (strcmp(choice, "GPUs") != 0 && strcmp(choice, "work") != 0 && !work)
            rc = gp_reshape_work_mode(t->ses, copy, t->today,
                                      strcmp(choice, "GPU-hours") ? choice : NULL, &err);
    } else if (!strcmp(key, "self_hosted.financing.kind")) {
        rc = gp_reshape_financing(copy, !strcmp(choice, "loan"), &err);
    } else {
        gp_pricing p = !strcmp(choice, "spot")        ? GP_SPOT
                       : !strcmp(choice, "committed") ? GP_COMMITTED
                       : !strcmp(choice, "per_unit")  ? GP_PER_UNIT
                                                      : GP_ON_DEMAND;
        rc = gp_reshape_pricing(t->ses, copy, k, p, t->today, &err);
    }
    if (rc)
        say_refused(t->invalid, sizeof t->invalid, &err);
    return rc == GP_OK;
}

/* The open document with the value being typed or chosen in force: a copy, NULL when the
 * value is refused (t->invalid says why). A tariff period edited while the document has none
 * writes the default flat one in first. */
static cJSON *edited_doc(tui *t) {
    cJSON *item;
    if (!edit_item(t, &item))
        return NULL;
    const field *f = &t->fields[t->field_sel];
    const field_def *d = &((const field_def *)t->field_defs)[t->field_sel];
    cJSON *copy = gp_plan_edit_copy(t->pe);
    if (d->kind == F_SHAPE) {
        const char *choice = cJSON_GetStringValue(item);
        bool ok = choice && reshape(t, copy, d->key, t->field_index[t->field_sel], choice);
        cJSON_Delete(item);
        if (!ok) {
            cJSON_Delete(copy);
            return NULL;
        }
        return copy;
    }
    if (d->kind == F_PERIOD_D || d->kind == F_PERIOD_S)
        gp_reshape_periods_written(copy, t->sc.s);
    if (!set_path(copy, f->path, item)) {
        snprintf(t->invalid, sizeof t->invalid, "cannot set %s", f->path);
        cJSON_Delete(copy);
        return NULL;
    }
    return copy;
}

/* Evaluate the document itself, keeping why it is refused for while a value is typed. */
static bool evaluate_doc(tui *t) {
    bool ok = evaluate(t, scen_doc(t));
    snprintf(t->doc_invalid, sizeof t->doc_invalid, "%s", t->invalid);
    return ok;
}

void scen_reevaluate(tui *t) {
    if (!t->pe)
        return;
    if (!t->editing) {
        evaluate_doc(t);
        return;
    }
    if (t->fields[t->field_sel].kind != FIELD_CHOICE) {
        /* A value being typed is only read, not evaluated: that waits for Enter. The results
         * stay the document's, and so does why they are refused, if they are. */
        cJSON *item;
        if (edit_item(t, &item)) {
            cJSON_Delete(item);
            snprintf(t->invalid, sizeof t->invalid, "%s", t->doc_invalid);
        }
        return;
    }
    cJSON *copy = edited_doc(t);
    if (copy)
        evaluate(t, copy);
    cJSON_Delete(copy);
}

/* The document changed (a change taken, an undo): its results and fields. */
static void changed(tui *t) {
    evaluate_doc(t);
    if (t->has_sc)
        build_fields(t);
}

/* Hand copy to the model as one change that validates; else say why, with the JSON path, on
 * the status line (what: "add step 3"). */
static bool apply_change(tui *t, cJSON *copy, const char *what) {
    gp_err err;
    if (gp_plan_edit_replace(t->pe, copy, GP_EDIT_VALIDATES, &err)) {
        char why[sizeof t->invalid];
        say_refused(why, sizeof why, &err);
        tui_status(t, "cannot %s: %s", what, why);
        return false;
    }
    changed(t);
    return true;
}

static int take_name(const gp_scenario_info *i, void *arg) {
    tui *t = arg;
    t->names = gp_xrealloc(t->names, sizeof *t->names * (size_t)(t->n_names + 1));
    snprintf(t->names[t->n_names++], GP_NAME_BYTES, "%s", i->name);
    return 0;
}

void scen_load_names(tui *t) {
    free(t->names);
    t->names = NULL;
    t->n_names = 0;
    gp_err err;
    if (gp_scenario_list(t->ses, take_name, t, &err))
        tui_status(t, "scenarios: %s", err.msg);
    if (t->scen_sel >= t->n_names)
        t->scen_sel = t->n_names ? t->n_names - 1 : 0;
}

bool scen_open(tui *t, const char *name_arg) {
    char name[GP_NAME_BYTES]; /* name_arg may be the open one's, freed below */
    snprintf(name, sizeof name, "%s", name_arg);
    gp_err err;
    gp_plan_edit *pe;
    if (gp_plan_edit_open(t->ses, name, t->today, &pe, &err)) {
        tui_status(t, "%s", err.msg);
        return false;
    }
    if (strcmp(scen_name(t), name) != 0)
        t->plan_gen++; /* another plan: the Timeline marks its earliest break-even again */
    t->editing = false;
    gp_plan_edit_free(t->pe);
    t->pe = pe;
    if (t->has_sc) {
        gp_loaded_done(&t->sc);
        t->has_sc = false;
    }
    if (!evaluate_doc(t)) {
        /* Nothing to edit or show: the fields of the scenario open before are gone too. */
        t->n_fields = 0;
        tui_status(t, "\"%s\" does not evaluate: %s", name, t->invalid);
        return false;
    }
    build_fields(t);
    t->field_sel = 0;
    t->field_top = 0;
    return true;
}

bool scen_add_option(tui *t, const offer *o) {
    if (!t->pe)
        return false;
    cJSON *copy = gp_plan_edit_copy(t->pe);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(copy, "cloud_options");
    if (!opts)
        opts = cJSON_AddArrayToObject(copy, "cloud_options");
    char name[GP_NAME_BYTES], catalog[GP_CATALOG_BYTES];
    snprintf(name, sizeof name, "%s %s %s%s%s", o->instance, o->region, o->pricing,
             o->term ? " " : "", o->term ? o->purchase : "");
    /* Names are unique within a scenario. */
    for (int k = 2; k < 100; k++) {
        bool taken = false;
        cJSON *it;
        cJSON_ArrayForEach(it, opts) {
            const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
            taken = taken || (n && !strcmp(n, name));
        }
        if (!taken)
            break;
        char base[GP_NAME_BYTES];
        snprintf(base, sizeof base, "%s", name);
        snprintf(name, sizeof name, "%.*s #%d", GP_NAME_BYTES - 8, base, k);
    }
    snprintf(catalog, sizeof catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", name);
    cJSON_AddStringToObject(j, "pricing", o->pricing);
    cJSON_AddStringToObject(j, "catalog", catalog);
    if (o->term) {
        cJSON_AddNumberToObject(j, "term_months", o->term);
        cJSON_AddStringToObject(j, "purchase", o->purchase);
    }
    cJSON_AddItemToArray(opts, j);
    gp_err err;
    if (gp_plan_edit_replace(t->pe, copy, GP_EDIT_VALIDATES, &err)) {
        tui_status(t, "cannot add %s: %s", catalog, err.msg);
        return false;
    }
    changed(t);
    tui_status(t, "added \"%s\" from the catalog (s saves a new version)", name);
    return true;
}

bool scen_save(tui *t, const char *as) {
    gp_err err;
    if (!t->pe)
        return false;
    if (gp_plan_edit_save(t->pe, as, &err)) {
        tui_status(t, "not saved: %s", err.msg);
        return false;
    }
    char name[GP_NAME_BYTES];
    snprintf(name, sizeof name, "%s", scen_name(t));
    tui_status(t, "saved version %d of \"%s\"", scen_version(t), name);
    scen_load_names(t);
    if (as)
        scen_open(t, name); /* the fields of the new name, selected from the top */
    return true;
}

int scen_field_option(const tui *t, int i) {
    if (i < 0 || i >= t->n_fields)
        return -1;
    return !strncmp(t->fields[i].path, "cloud_options[", 14) ? t->field_index[i] : -1;
}

void scen_remove_option(tui *t, int k) {
    cJSON *copy = gp_plan_edit_copy(t->pe);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(copy, "cloud_options");
    char name[GP_NAME_BYTES];
    const char *nm =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, k), "name"));
    snprintf(name, sizeof name, "%s", nm ? nm : "");
    cJSON_DeleteItemFromArray(opts, k);
    gp_err err;
    if (gp_plan_edit_replace(t->pe, copy, GP_EDIT_VALIDATES, &err)) {
        tui_status(t, "cannot remove \"%s\": %s", name, err.msg);
        return;
    }
    changed(t);
    tui_status(t, "removed \"%s\" (u brings it back, s saves)", name);
}

void scen_close(tui *t) {
    gp_plan_edit_free(t->pe);
    t->pe = NULL;
    if (t->has_sc)
        gp_loaded_done(&t->sc);
    t->has_sc = false;
    t->n_fields = 0;
    t->editing = false;
}

void scen_rename(tui *t, const char *from, const char *to) {
    gp_err err;
    int version = 0;
    /* The open document follows, edits and all. */
    gp_status rc = t->pe && !strcmp(scen_name(t), from)
                       ? gp_plan_edit_rename(t->pe, to, &err)
                       : gp_scenario_rename(t->ses, from, to, &version, &err);
    if (rc) {
        tui_status(t, "not renamed: %s", err.msg);
        return;
    }
    scen_load_names(t);
    scen_select(t, to);
    tui_status(t, "renamed \"%s\" to \"%s\"", from, to);
}

void scen_copy(tui *t, const char *from, const char *to) {
    gp_err err;
    if (gp_scenario_duplicate(t->ses, from, to, &err)) {
        tui_status(t, "not copied: %s", err.msg);
        return;
    }
    scen_load_names(t);
    scen_select(t, to);
    tui_status(t, "copied the saved \"%s\" to \"%s\"", from, to);
}

void scen_delete(tui *t, const char *name) {
    gp_err err;
    if (gp_scenario_remove(t->ses, name, &err)) {
        tui_status(t, "not deleted: %s", err.msg);
        return;
    }
    if (t->pe && !strcmp(scen_name(t), name))
        scen_close(t);
    scen_load_names(t);
    tui_status(t, "deleted \"%s\"", name);
}

void scen_select(tui *t, const char *name) {
    for (int i = 0; i < t->n_names; i++)
        if (!strcmp(t->names[i], name))
            t->scen_sel = i;
}

/* ---- tariff presets --------------------------------------------------------------------- */

static int take_tariff(const gp_tariff_preset *p, const char *source, void *arg) {
    (void)source;
    tui *t = arg;
    t->picks = gp_xrealloc(t->picks, sizeof *t->picks * (size_t)(t->n_picks + 1));
    snprintf(t->picks[t->n_picks++], 64, "%s", p->name);
    return 0;
}

bool scen_list_tariffs(tui *t) {
    free(t->picks);
    t->picks = NULL;
    t->n_picks = 0;
    gp_err err;
    if (gp_pricing_tariffs(t->ses, take_tariff, t, &err)) {
        tui_status(t, "tariffs: %s", err.msg);
        return false;
    }
    if (!t->n_picks) {
        tui_status(t, "no tariff presets in the catalog");
        return false;
    }
    return true;
}

void scen_apply_tariff(tui *t, const char *name) {
    gp_err err;
    gp_tariff_preset p;
    if (gp_pricing_tariff(t->ses, name, &p, &err)) {
        tui_status(t, "%s", err.msg);
        return;
    }
    cJSON *tariff = cJSON_Parse(p.tariff_json);
    if (!tariff) {
        tui_status(t, "preset \"%s\" is not JSON", name);
        return;
    }
    cJSON *copy = gp_plan_edit_copy(t->pe);
    cJSON *sh = cJSON_GetObjectItemCaseSensitive(copy, "self_hosted");
    if (!sh)
        sh = cJSON_AddObjectToObject(copy, "self_hosted");
    cJSON_DeleteItemFromObjectCaseSensitive(sh, "tariff");
    cJSON_AddItemToObject(sh, "tariff", tariff);
    if (!apply_change(t, copy, "apply the tariff"))
        return;
    tui_status(t, "tariff \"%s\" (%s) applied", name, p.effective_from);
}

bool scen_commit_edit(tui *t) {
    const field *f = &t->fields[t->field_sel];
    const field_def *d = &((const field_def *)t->field_defs)[t->field_sel];
    char path[sizeof f->path];
    snprintf(path, sizeof path, "%s", f->path);
    gp_err err;
    gp_status rc;
    if (f->kind == FIELD_CHOICE || d->kind == F_PERIOD_D || d->kind == F_PERIOD_S) {
        /* A choice or a reshape changes more than one key: the document as it would be. */
        cJSON *copy = edited_doc(t);
        if (!copy)
            return false;                             /* t->invalid says why; keep editing */
        if (cJSON_Compare(copy, scen_doc(t), true)) { /* the choice in force: nothing to undo */
            cJSON_Delete(copy);
            scen_cancel_edit(t);
            return true;
        }
        rc = gp_plan_edit_replace(t->pe, copy, GP_EDIT_EVALUATES, &err);
    } else {
        cJSON *item;
        if (!edit_item(t, &item))
            return false;
        rc = gp_plan_edit_set(t->pe, path, item, GP_EDIT_EVALUATES, &err);
    }
    if (rc) { /* refused: why, where the results were; keep editing */
        say_refused(t->invalid, sizeof t->invalid, &err);
        return false;
    }
    t->editing = false;
    changed(t);
    /* A change of shape moves the fields: the selection stays on the one changed. */
    for (int i = 0; i < t->n_fields; i++)
        if (!strcmp(t->fields[i].path, path))
            t->field_sel = i;
    return true;
}

void scen_start_edit(tui *t) {
    if (t->field_sel < 0 || t->field_sel >= t->n_fields)
        return;
    const field *f = &t->fields[t->field_sel];
    const field_def *d = &((const field_def *)t->field_defs)[t->field_sel];
    if (f->kind == FIELD_LIST) {
        scen_list_add(t, t->field_sel);
        return;
    }
    t->edit[0] = '\0';
    t->edit_choice = 0;
    if (f->kind == FIELD_CHOICE) {
        const char *ch[GP_MAX_OPTIONS + 1];
        int n = field_choices(t, t->field_sel, ch, GP_MAX_OPTIONS + 1);
        const cJSON *v = get_path(scen_doc(t), f->path);
        const char *now = cJSON_IsTrue(v) ? "yes" : cJSON_GetStringValue(v);
        for (int k = 0; k < n; k++)
            if (now && ch[k] && !strcmp(ch[k], now))
                t->edit_choice = k;
    } else if (d->kind != F_DOC || get_path(scen_doc(t), f->path)) {
        char v[256];
        scen_field_text(t, t->field_sel, v, sizeof v);
        snprintf(t->edit, sizeof t->edit, "%s", v);
    }
    t->editing = true;
    t->edit_fresh = true;
    t->edit_typed = false;
    scen_reevaluate(t);
}

void scen_edit_choice(tui *t, int step) {
    const char *ch[GP_MAX_OPTIONS + 1];
    int n = field_choices(t, t->field_sel, ch, GP_MAX_OPTIONS + 1);
    t->edit_choice = ((t->edit_choice + step) % n + n) % n;
    scen_reevaluate(t);
}

/* The field of list's row r, first key; -1 when there is none. */
static int row_field(const tui *t, const char *list, int r) {
    for (int i = 0; i < t->n_fields; i++)
        if (t->fields[i].row == r && !strcmp(t->fields[i].list, list))
            return i;
    return -1;
}

/* A tariff period or a cloud option added after the last (app_reshape.h), or period r removed
 * (r >= 0), its first field then selected. */
static void reshape_list(tui *t, const char *list, int r) {
    bool periods = !strcmp(list, PERIODS_LIST);
    int n = periods ? t->sc.s->n_periods : t->sc.s->n_options;
    char what[64];
    if (r >= 0)
        snprintf(what, sizeof what, "remove period %d", r + 1);
    else
        snprintf(what, sizeof what, "add %s", periods ? "a tariff period" : "a cloud option");
    cJSON *copy = gp_plan_edit_copy(t->pe);
    gp_err err;
    gp_status rc = r >= 0    ? gp_reshape_period_remove(copy, t->sc.s, r, &err)
                   : periods ? gp_reshape_period_add(copy, t->sc.s, &err)
                             : gp_reshape_option_add(copy, t->sc.s, &err);
    if (rc) {
        char why[sizeof t->invalid];
        say_refused(why, sizeof why, &err);
        tui_status(t, "cannot %s: %s", what, why);
        cJSON_Delete(copy);
        return;
    }
    if (!apply_change(t, copy, what))
        return;
    if (r >= 0) {
        int f = row_field(t, list, r > 0 ? r - 1 : 0);
        if (f >= 0)
            t->field_sel = f;
        tui_status(t, "removed period %d, its hours given to its neighbour (u brings it back)",
                   r + 1);
        return;
    }
    for (int f = 0; f < t->n_fields; f++)
        if (periods ? t->fields[f].row == n && !strcmp(t->fields[f].list, list)
                    : scen_field_option(t, f) == n) {
            t->field_sel = f;
            break;
        }
    if (periods)
        tui_status(t, "added period %d, half the hours of the longest (d removes it; u undoes)",
                   n + 1);
    else
        tui_status(t, "added \"%s\" (Enter edits; d removes it; u undoes)",
                   t->sc.s->options[n].name);
}

void scen_list_add(tui *t, int i) {
    if (i < 0 || i >= t->n_fields || !t->fields[i].list[0] || !t->has_sc)
        return;
    char list[48];
    snprintf(list, sizeof list, "%s", t->fields[i].list);
    if (!strcmp(list, PERIODS_LIST) || !strcmp(list, OPTIONS_LIST)) {
        reshape_list(t, list, -1);
        return;
    }
    const list_def *ld = NULL;
    for (size_t k = 0; k < sizeof general / sizeof general[0]; k++)
        if (general[k].kind == F_LIST && !strcmp(general[k].key, list))
            ld = general[k].list;
    if (!ld)
        return;
    cJSON *copy = gp_plan_edit_copy(t->pe);
    cJSON *arr = get_path(copy, list);
    if (!cJSON_IsArray(arr)) {
        set_path(copy, list, cJSON_CreateArray());
        arr = get_path(copy, list);
    }
    int n = cJSON_GetArraySize(arr);
    cJSON *row = cJSON_CreateObject();
    ld->new_row(copy, n ? cJSON_GetArrayItem(arr, n - 1) : NULL, t->sc.s->work_mode, row);
    cJSON_AddItemToArray(arr, row);
    char what[96];
    snprintf(what, sizeof what, "add %s %d", ld->row_label, n + 1);
    if (!apply_change(t, copy, what))
        return;
    int f = row_field(t, list, n);
    if (f >= 0)
        t->field_sel = f;
    tui_status(t, "added %s %d (Enter edits it; d removes it; u undoes)", ld->row_label, n + 1);
}

void scen_list_remove(tui *t, int i) {
    if (i < 0 || i >= t->n_fields || t->fields[i].row < 0)
        return;
    char list[48];
    snprintf(list, sizeof list, "%s", t->fields[i].list);
    int r = t->fields[i].row;
    if (!strcmp(list, PERIODS_LIST)) {
        reshape_list(t, list, r);
        return;
    }
    cJSON *copy = gp_plan_edit_copy(t->pe);
    cJSON *arr = get_path(copy, list);
    cJSON_DeleteItemFromArray(arr, r);
    /* An empty list means what no list means (and the resale curve must not be empty). */
    if (!cJSON_GetArraySize(arr))
        set_path(copy, list, NULL);
    char what[96];
    snprintf(what, sizeof what, "remove row %d of %s", r + 1, list);
    if (!apply_change(t, copy, what))
        return;
    int f = row_field(t, list, r > 0 ? r - 1 : -1);
    if (f >= 0)
        t->field_sel = f;
    tui_status(t, "removed row %d of %s (u brings it back)", r + 1, list);
}

void scen_cancel_edit(tui *t) {
    t->editing = false;
    evaluate_doc(t);
}

/* An undo (back) or a redo: the model says when there is none. */
static void step(tui *t, bool back) {
    gp_err err;
    if (!t->pe || (back ? gp_plan_edit_undo : gp_plan_edit_redo)(t->pe, &err)) {
        tui_status(t, "%s", t->pe ? err.msg : back ? "nothing to undo" : "nothing to redo");
        return;
    }
    changed(t);
    tui_status(t, back ? "undone" : "redone");
}

void scen_undo(tui *t) {
    step(t, true);
}
void scen_redo(tui *t) {
    step(t, false);
}

void scen_done(tui *t) {
    gp_plan_edit_free(t->pe);
    t->pe = NULL;
    if (t->has_sc)
        gp_loaded_done(&t->sc);
    t->has_sc = false;
    free(t->fields);
    free(t->field_defs);
    free(t->field_index);
    t->fields = NULL, t->field_defs = NULL, t->field_index = NULL;
    t->n_fields = 0;
    t->editing = false;
    free(t->names);
    t->names = NULL;
    t->n_names = 0;
    free(t->picks);
    t->picks = NULL;
    t->n_picks = 0;
}

/* The label of index m: the start date at 0; else the month it closes, "YYYY-MM" (as
 * report --format csv labels its rows). */
void scen_month_label(const tui *t, int m, char *out, size_t cap) {
    const gp_scenario *s = t->sc.s;
    const char *start = s->has_start_date ? s->start_date : t->today;
    int y, mo;
    if (m == 0) {
        snprintf(out, cap, "%s", start);
        return;
    }
    if (sscanf(start, "%4d-%2d", &y, &mo) != 2) {
        snprintf(out, cap, "month %d", m);
        return;
    }
    int k = y * 12 + mo - 1 + m - 1;
    snprintf(out, cap, "%04d-%02d", k / 12, k % 12 + 1);
}
