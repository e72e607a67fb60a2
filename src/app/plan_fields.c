/* The Plan editor's fields (app_plan_fields.h): the table of inputs walked for the document's
 * shape, the small lists edited as rows, and a field's value shown, chosen and typed. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_plan_fields.h"
#include "gpuplan/app_reshape.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/xmem.h"

/* ---- the small lists -------------------------------------------------------------------- */

/* A column of a list's rows: its key, label, unit, and which demand mode it belongs to. */
typedef struct list_col {
    const char *key, *label, *unit;
    bool integer, optional;
    gp_input_mode mode;
} list_col;

/* A small list of objects edited as rows: its element's keys, one field each. */
typedef struct list_def {
    const char *path, *row_label; /* "demand.steps", "step" */
    const list_col *cols;
    int n_cols;
    /* Fill row, a new element after last (NULL when the list is empty), so that the list
     * stays valid where it can: later months and ages, the demand in force. */
    void (*new_row)(const cJSON *doc, const cJSON *last, bool work_mode, cJSON *row);
} list_def;

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

static const list_col step_cols[] = {
    {"month", "month", "from", true, false, GP_MODE_ALL},
    {"gpus", "GPUs", "GPUs", true, true, GP_MODE_GPUS},
    {"work_per_month", "work", "units/mo", false, true, GP_MODE_WORK},
    {"utilization", "utilization", "0..1", false, true, GP_MODE_ALL},
};
static const list_col resale_cols[] = {
    {"age_months", "at age", "months", true, false, GP_MODE_ALL},
    {"pct", "worth", "0..1", false, false, GP_MODE_ALL},
};
static const list_col tier_cols[] = {
    {"min_servers", "from", "servers", true, false, GP_MODE_ALL},
    {"pct", "discount", "0..<1", false, false, GP_MODE_ALL},
};
static const list_def lists[] = {
    {"demand.steps", "step", step_cols, 4, new_step},
    {"self_hosted.resale", "resale", resale_cols, 2, new_resale},
    {"self_hosted.bulk_discounts", "bulk tier", tier_cols, 2, new_tier},
};

static const list_def *list_of(const char *path) {
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        if (!strcmp(lists[k].path, path))
            return &lists[k];
    return NULL;
}

gp_status gp_plan_list_add(cJSON *doc, const char *path, bool work_mode, int *added,
                           const char **what, gp_err *err) {
    const list_def *ld = list_of(path);
    if (!ld)
        return gp_errorf(err, GP_E_INPUT, NULL, "%s is not a list of rows", path);
    cJSON *arr = gp_json_path_get(doc, path);
    if (!cJSON_IsArray(arr)) {
        if (!gp_json_path_set(doc, path, cJSON_CreateArray()))
            return gp_errorf(err, GP_E_INPUT, NULL, "cannot set %s", path);
        arr = gp_json_path_get(doc, path);
    }
    int n = cJSON_GetArraySize(arr);
    cJSON *row = cJSON_CreateObject();
    ld->new_row(doc, n ? cJSON_GetArrayItem(arr, n - 1) : NULL, work_mode, row);
    cJSON_AddItemToArray(arr, row);
    *added = n + 1;
    *what = ld->row_label;
    return GP_OK;
}

/* ---- building ---------------------------------------------------------------------------- */

typedef struct built {
    gp_plan_field *f;
    int n, cap;
} built;

static gp_plan_field *add(built *b, const char *path, const char *label, const char *unit,
                          gp_field_from from, int index) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->f = gp_xrealloc(b->f, sizeof *b->f * (size_t)b->cap);
    }
    gp_plan_field *f = &b->f[b->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    snprintf(f->label, sizeof f->label, "%s", label);
    f->unit = unit;
    f->key = path;
    f->from = from;
    f->index = index;
    f->row = -1;
    return f;
}

/* How an input of type t is edited, and whether a number of it is whole. */
static void set_type(gp_plan_field *f, gp_input_type t) {
    f->ui = t == GP_IN_TEXT                         ? GP_FIELD_TEXT
            : t == GP_IN_CHOICE || t == GP_IN_SHAPE ? GP_FIELD_CHOICE
            : t == GP_IN_LIST                       ? GP_FIELD_LIST
                                                    : GP_FIELD_NUMBER;
    f->integer = t == GP_IN_INTEGER;
}

/* A list's head, then each element's keys (those of the demand mode in force) as rows. */
static void add_list(built *b, const cJSON *doc, const gp_scenario *s, const gp_input *in) {
    const list_def *ld = list_of(in->key);
    gp_plan_field *h = add(b, in->key, in->edit_label, in->edit_unit, GP_FROM_LIST, -1);
    h->key = in->key;
    h->ui = GP_FIELD_LIST;
    snprintf(h->list, sizeof h->list, "%s", in->key);
    const cJSON *arr = gp_json_path_get(doc, in->key);
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < ld->n_cols; c++) {
            const list_col *col = &ld->cols[c];
            if (!gp_input_mode_fits(col->mode, s))
                continue;
            char path[96], label[96];
            snprintf(path, sizeof path, "%s[%d].%s", in->key, r, col->key);
            if (c == 0)
                snprintf(label, sizeof label, "  %s %d: %s", ld->row_label, r + 1, col->label);
            else
                snprintf(label, sizeof label, "    %s", col->label);
            gp_plan_field *f = add(b, path, label, col->unit, GP_FROM_DOC, -1);
            f->key = col->key;
            f->integer = col->integer;
            f->optional = col->optional;
            f->absent = "before";
            snprintf(f->list, sizeof f->list, "%s", in->key);
            f->row = r;
        }
}

/* The tariff periods: a head, then each period's name, price and hours as a row (read from the
 * resolved scenario, so the default flat tariff shows). */
static void add_periods(built *b, const gp_input *in, const gp_scenario *s) {
    gp_plan_field *h = add(b, GP_PLAN_PERIODS, in->edit_label, in->edit_unit, GP_FROM_PERIODS, -1);
    h->ui = GP_FIELD_LIST;
    snprintf(h->list, sizeof h->list, "%s", GP_PLAN_PERIODS);
    static const char *const keys[3] = {"name", "price_per_kwh", "hours_per_day"};
    static const char *const units[3] = {"name", "/kWh", "h a day"};
    for (int k = 0; k < s->n_periods; k++)
        for (int c = 0; c < 3; c++) {
            char path[96], label[GP_NAME_BYTES + 32];
            snprintf(path, sizeof path, GP_PLAN_PERIODS "[%d].%s", k, keys[c]);
            if (c == 0)
                snprintf(label, sizeof label, "  period %d: name", k + 1);
            else
                snprintf(label, sizeof label, "    %.200s %s", s->periods[k].name,
                         c == 1 ? "price" : "hours");
            gp_plan_field *f =
                add(b, path, label, units[c], c ? GP_FROM_PERIOD_NUMBER : GP_FROM_PERIOD_NAME, k);
            f->key = keys[c];
            f->ui = c ? GP_FIELD_NUMBER : GP_FIELD_TEXT;
            f->period_off =
                c == 1 ? offsetof(gp_period, price_per_kwh) : offsetof(gp_period, hours_per_day);
            snprintf(f->list, sizeof f->list, "%s", GP_PLAN_PERIODS);
            f->row = k;
        }
}

/* Option i's fields, the ones its pricing and its catalog reference leave to edit. */
static void add_option(built *b, const cJSON *doc, const gp_scenario *s, int i) {
    const gp_option *o = &s->options[i];
    /* A catalog reference fixes the price and the instance size (s is resolved, so the
     * document says which options have one). */
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, GP_PLAN_OPTIONS);
    bool has_catalog =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, i), "catalog") != NULL;
    for (int k = 0; k < gp_n_option_inputs; k++) {
        const gp_option_input *oi = &gp_option_inputs[k];
        if (!gp_option_input_shows(oi, oi->edit_pricings, oi->edit_when, s, o, has_catalog))
            continue;
        char path[96], label[256];
        snprintf(path, sizeof path, GP_PLAN_OPTIONS "[%d].%s", i, oi->key);
        /* The name whole: the screen shortens it in the middle, where it must. */
        snprintf(label, sizeof label, "%.200s: %s", o->name, oi->edit_label);
        gp_field_from from = oi->type == GP_IN_SHAPE      ? GP_FROM_SHAPE
                             : oi->optional || !oi->value ? GP_FROM_DOC
                                                          : GP_FROM_OPTION;
        gp_plan_field *f = add(b, path, label, oi->edit_unit, from, i);
        f->key = oi->key;
        set_type(f, oi->type);
        f->optional = oi->optional;
        f->absent = oi->absent;
        f->ovalue = oi->value;
        /* a adds an option beside it, as on the head */
        snprintf(f->list, sizeof f->list, "%s", GP_PLAN_OPTIONS);
    }
}

/* One input of the scenario's: a field, a list and its rows, or the heads of the periods and
 * the options with theirs. */
static void add_input(built *b, const cJSON *doc, const gp_scenario *s, const gp_input *in) {
    if (!strcmp(in->key, GP_PLAN_PERIODS)) {
        add_periods(b, in, s);
        return;
    }
    if (!strcmp(in->key, GP_PLAN_OPTIONS)) {
        gp_plan_field *h = add(b, in->key, in->edit_label, in->edit_unit, GP_FROM_OPTIONS, -1);
        h->ui = GP_FIELD_LIST;
        snprintf(h->list, sizeof h->list, "%s", GP_PLAN_OPTIONS);
        for (int i = 0; i < s->n_options; i++)
            add_option(b, doc, s, i);
        return;
    }
    if (in->type == GP_IN_LIST) {
        add_list(b, doc, s, in);
        return;
    }
    gp_field_from from = in->type == GP_IN_SHAPE ? GP_FROM_SHAPE
                         : in->optional || !in->value || in->type == GP_IN_CHOICE
                             ? GP_FROM_DOC
                             : GP_FROM_SCENARIO;
    gp_plan_field *f = add(b, in->key, in->edit_label, in->edit_unit, from, -1);
    set_type(f, in->type);
    f->optional = in->optional;
    f->absent = in->absent;
    f->value = in->value;
}

gp_plan_field *gp_plan_fields(const cJSON *doc, const gp_scenario *s, int *n) {
    built b = {0};
    for (int i = 0; i < gp_n_inputs; i++) {
        const gp_input *in = &gp_inputs[i];
        if (in->key && in->edit_label && gp_input_shows(in, in->edit_when, s))
            add_input(&b, doc, s, in);
    }
    *n = b.n;
    return b.f;
}

/* ---- values ------------------------------------------------------------------------------ */

/* Whether doc states its demand as work. */
static bool doc_work_mode(const cJSON *doc) {
    return gp_json_path_get(doc, "demand.work_per_month") != NULL;
}

/* A number as the editor shows and pre-fills it. */
static void number_text(double v, bool integer, char *out, size_t cap) {
    if (integer)
        snprintf(out, cap, "%.0f", v);
    else
        snprintf(out, cap, "%.10g", v);
}

void gp_plan_field_text(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s, char *out,
                        size_t cap) {
    switch (f->from) {
    case GP_FROM_LIST: {
        const cJSON *arr = gp_json_path_get(doc, f->path);
        snprintf(out, cap, "%d", cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0);
        return;
    }
    case GP_FROM_PERIODS:
    case GP_FROM_OPTIONS:
        snprintf(out, cap, "%d", f->from == GP_FROM_PERIODS ? s->n_periods : s->n_options);
        return;
    case GP_FROM_PERIOD_NAME:
        snprintf(out, cap, "%s", s->periods[f->index].name);
        return;
    case GP_FROM_PERIOD_NUMBER:
        number_text(*(const double *)((const char *)&s->periods[f->index] + f->period_off), false,
                    out, cap);
        return;
    case GP_FROM_SCENARIO:
        number_text(f->value(s), f->integer, out, cap);
        return;
    case GP_FROM_OPTION:
        number_text(f->ovalue(&s->options[f->index]), f->integer, out, cap);
        return;
    case GP_FROM_SHAPE:
        if (!strcmp(f->key, "demand.mode")) {
            snprintf(out, cap, "%s", doc_work_mode(doc) ? "work" : "GPUs");
            return;
        }
        break;
    case GP_FROM_DOC:
        break;
    }
    const cJSON *v = gp_json_path_get(doc, f->path);
    if (cJSON_IsNumber(v))
        number_text(v->valuedouble, f->integer, out, cap);
    else if (cJSON_IsTrue(v))
        snprintf(out, cap, "yes");
    else if (cJSON_IsString(v))
        snprintf(out, cap, "%s", v->valuestring);
    else
        snprintf(out, cap, "%s", f->absent ? f->absent : "");
}

/* A bridge or a burst: none, or any on-demand, spot or per_unit option. */
static int option_choices(const gp_scenario *s, const char **out, int cap) {
    int n = 0;
    out[n++] = NULL;
    for (int k = 0; k < s->n_options && n < cap; k++)
        if (s->options[k].pricing != GP_COMMITTED)
            out[n++] = s->options[k].name;
    return n;
}

/* The fixed choices of a key, NULL-terminated; NULL when the key has none. */
static const char *const *fixed_choices(const char *key, bool work_mode) {
    static const char *const financing[] = {"cash", "loan", NULL};
    static const char *const pricing[] = {"on_demand", "spot", "committed", NULL};
    /* an API bills work only */
    static const char *const pricing_work[] = {"on_demand", "spot", "committed", "per_unit", NULL};
    static const char *const buy[] = {"all_at_once", "as_needed", NULL};
    if (!strcmp(key, "self_hosted.financing.kind"))
        return financing;
    if (!strcmp(key, "pricing"))
        return work_mode ? pricing_work : pricing;
    if (!strcmp(key, "self_hosted.buy"))
        return buy;
    return NULL;
}

int gp_plan_field_choices(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s,
                          const char **out, int cap) {
    int n = 0;
    bool work = doc_work_mode(doc);
    if (!strcmp(f->key, "demand.mode")) {
        /* The document's mode first (the results may be a choice's being tried); from GPUs,
         * work in GPU-hours or in a profile's unit. */
        out[n++] = work ? "work" : "GPUs";
        out[n++] = work ? "GPUs" : "GPU-hours";
        for (int k = 0; !work && k < gp_n_profiles && n < cap; k++)
            out[n++] = gp_profiles[k].name;
        return n;
    }
    const char *const *fixed = fixed_choices(f->key, work);
    if (fixed) {
        for (; fixed[n] && n < cap; n++)
            out[n] = fixed[n];
        return n;
    }
    /* The key removed is the first choice: its default. */
    if (!strcmp(f->key, "purchase")) {
        out[n++] = NULL;
        out[n++] = "partial_upfront";
        out[n++] = "all_upfront";
        return n;
    }
    if (!strcmp(f->key, "self_hosted.tariff.shift_to_cheapest")) { /* false is the default */
        out[n++] = NULL;
        out[n++] = "yes";
        return n;
    }
    return option_choices(s, out, cap);
}

int gp_plan_field_choice_now(const gp_plan_field *f, const cJSON *doc, const gp_scenario *s) {
    const char *ch[GP_MAX_OPTIONS + 1];
    int n = gp_plan_field_choices(f, doc, s, ch, GP_MAX_OPTIONS + 1);
    const cJSON *v = gp_json_path_get(doc, f->path);
    const char *now = cJSON_IsTrue(v) ? "yes" : cJSON_GetStringValue(v);
    for (int k = 0; k < n; k++)
        if (now && ch[k] && !strcmp(ch[k], now))
            return k;
    return 0;
}

gp_status gp_plan_field_item(const gp_plan_field *f, const char *text, cJSON **item, gp_err *err) {
    *item = NULL;
    if (f->ui == GP_FIELD_CHOICE) {
        if (text)
            *item = !strcmp(f->key, "self_hosted.tariff.shift_to_cheapest")
                        ? cJSON_CreateTrue()
                        : cJSON_CreateString(text);
        return GP_OK;
    }
    gp_edit_kind kind = f->ui == GP_FIELD_TEXT ? GP_EDIT_TEXT
                        : f->integer           ? GP_EDIT_INTEGER
                                               : GP_EDIT_NUMBER;
    return gp_plan_edit_parse(text, kind, f->optional, item, err);
}

/* A shape choice made on doc: the demand mode, the financing kind or option k's pricing. */
static gp_status reshape(gp_session *ses, cJSON *doc, const gp_plan_field *f, const char *choice,
                         const char *as_of, gp_err *err) {
    if (!strcmp(f->key, "demand.mode")) {
        bool work = doc_work_mode(doc);
        if (!strcmp(choice, "GPUs") && work)
            return gp_reshape_gpu_mode(doc, err);
        if (strcmp(choice, "GPUs") != 0 && strcmp(choice, "work") != 0 && !work)
            return gp_reshape_work_mode(ses, doc, as_of,
                                        strcmp(choice, "GPU-hours") ? choice : NULL, err);
        return GP_OK; /* the mode in force */
    }
    if (!strcmp(f->key, "self_hosted.financing.kind"))
        return gp_reshape_financing(doc, !strcmp(choice, "loan"), err);
    gp_pricing p = !strcmp(choice, "spot")        ? GP_SPOT
                   : !strcmp(choice, "committed") ? GP_COMMITTED
                   : !strcmp(choice, "per_unit")  ? GP_PER_UNIT
                                                  : GP_ON_DEMAND;
    return gp_reshape_pricing(ses, doc, f->index, p, as_of, err);
}

gp_status gp_plan_field_apply(gp_session *ses, cJSON *doc, const gp_plan_field *f,
                              const gp_scenario *s, cJSON *item, const char *as_of, gp_err *err) {
    gp_err_clear(err);
    if (f->from == GP_FROM_SHAPE) {
        const char *choice = cJSON_GetStringValue(item);
        gp_status rc = choice ? reshape(ses, doc, f, choice, as_of, err)
                              : gp_errorf(err, GP_E_INPUT, NULL, "%s needs a choice", f->path);
        cJSON_Delete(item);
        return rc;
    }
    if (f->from == GP_FROM_PERIOD_NUMBER || f->from == GP_FROM_PERIOD_NAME)
        gp_reshape_periods_written(doc, s);
    if (!gp_json_path_set(doc, f->path, item))
        return gp_errorf(err, GP_E_INPUT, NULL, "cannot set %s", f->path);
    return GP_OK;
}
