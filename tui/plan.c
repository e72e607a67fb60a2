/* The Plan tab: the stored scenarios, and an editor over every input of the open one with
 * its unit and validation message. The results re-evaluate on every keystroke from the value
 * being typed; Enter commits it (undo keeps the previous document), `s` saves a new version. */
#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/store_catalog.h"
#include "tui_int.h"

/* ---- the fields ------------------------------------------------------------------------- */

enum { F_SCEN_D, F_SCEN_I, F_PERIOD_D, F_OPTION_D, F_OPTION_I };

typedef struct field_def {
    const char *key, *label, *unit;
    int kind;
    size_t off;
} field_def;

#define SD(k, l, u, m)                                                                             \
    { k, l, u, F_SCEN_D, offsetof(gp_scenario, m) }
#define SI(k, l, u, m)                                                                             \
    { k, l, u, F_SCEN_I, offsetof(gp_scenario, m) }
static const field_def general[] = {
    SI("horizon_months", "horizon", "months", horizon_months),
    SD("discount_rate", "discount rate (NPV)", "a year", discount_rate),
    SI("demand.gpus", "GPUs needed", "GPUs", gpus),
    SD("demand.utilization", "utilization", "0..1", utilization),
    SI("self_hosted.gpus_per_server", "GPUs a server", "GPUs", gpus_per_server),
    SD("self_hosted.server_price", "server price", "$cur", server_price),
    SD("self_hosted.price_factor", "price factor", "x", price_factor),
    SD("self_hosted.network_per_server", "network a server", "$cur", network_per_server),
    SD("self_hosted.fixed_capex", "fixed capex", "$cur", fixed_capex),
    SD("self_hosted.residual_pct", "residual value", "0..1", residual_pct),
    SI("self_hosted.warranty_months", "warranty", "months", warranty_months),
    SD("self_hosted.maintenance_pct_per_year", "maintenance", "a year", maintenance_pct_per_year),
    SD("self_hosted.staff_per_month", "staff", "$cur/mo", staff_per_month),
    SD("self_hosted.other_per_month", "other costs", "$cur/mo", other_per_month),
    SD("self_hosted.colo_per_kw_month", "colocation", "/kW-mo", colo_per_kw_month),
    SD("self_hosted.power.server_base_w", "server base draw", "W", server_base_w),
    SD("self_hosted.power.gpu_idle_w", "GPU idle draw", "W", gpu_idle_w),
    SD("self_hosted.power.gpu_tdp_w", "GPU busy draw", "W", gpu_tdp_w),
    SD("self_hosted.power.pue", "PUE", "x", pue),
    SD("self_hosted.tariff.demand_charge_per_kw_month", "demand charge", "/kW-mo",
       demand_charge_per_kw_month),
};
static const field_def loan[] = {
    SD("self_hosted.financing.apr", "loan APR", "a year", loan_apr),
    SI("self_hosted.financing.term_months", "loan term", "months", loan_term_months),
    SD("self_hosted.financing.fraction", "loan share", "0..1", loan_fraction),
};
#define OD(k, l, u, m)                                                                             \
    { k, l, u, F_OPTION_D, offsetof(gp_option, m) }
#define OI(k, l, u, m)                                                                             \
    { k, l, u, F_OPTION_I, offsetof(gp_option, m) }
static const field_def opt_price[] = {
    OD("hourly", "hourly", "/inst-h", hourly),
    OI("gpus_per_instance", "GPUs an instance", "GPUs", gpus_per_instance)};
static const field_def opt_committed[] = {OD("upfront", "upfront a term", "$cur", upfront),
                                          OI("term_months", "term", "months", term_months)};
static const field_def opt_spot[] = {
    OD("interruptions_per_hour", "interruptions", "/h", interruptions_per_hour),
    OD("checkpoint_interval_h", "checkpoint every", "h", checkpoint_interval_h),
    OD("restart_h", "restart time", "h", restart_h)};
static const field_def opt_idle[] = {OD("idle_overhead", "idle overhead", "x", idle_overhead)};
static const field_def opt_common[] = {OD("support_pct", "support", "0..1", support_pct)};

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
    snprintf(f->path, sizeof f->path, "%s", path);
    draw_clean(label, f->label, sizeof f->label);
    f->unit = d->unit;
    f->integer = d->kind == F_SCEN_I || d->kind == F_OPTION_I;
    b->def[b->n] = *d;
    b->index[b->n] = idx;
    b->n++;
}

/* Every input of the resolved scenario, in the order of MODEL.md. */
static void build_fields(tui *t) {
    const gp_scenario *s = t->sc.s;
    built b = {0};
    for (size_t i = 0; i < sizeof general / sizeof general[0]; i++) {
        add(&b, &general[i], -1, general[i].key, general[i].label);
        if (!strcmp(general[i].key, "self_hosted.power.pue"))
            for (int k = 0; k < s->n_periods; k++) {
                char path[96], label[96];
                static const field_def price = {"", "", "/kWh", F_PERIOD_D,
                                                offsetof(gp_period, price_per_kwh)};
                static const field_def hours = {"", "", "h a day", F_PERIOD_D,
                                                offsetof(gp_period, hours_per_day)};
                snprintf(path, sizeof path, "self_hosted.tariff.periods[%d].price_per_kwh", k);
                snprintf(label, sizeof label, "tariff %s", s->periods[k].name);
                add(&b, &price, k, path, label);
                snprintf(path, sizeof path, "self_hosted.tariff.periods[%d].hours_per_day", k);
                snprintf(label, sizeof label, "  %s hours", s->periods[k].name);
                add(&b, &hours, k, path, label);
            }
    }
    if (s->financing == GP_LOAN)
        for (size_t i = 0; i < sizeof loan / sizeof loan[0]; i++)
            add(&b, &loan[i], -1, loan[i].key, loan[i].label);
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        const field_def *groups[5];
        size_t sizes[5];
        int ng = 0;
        /* A catalog reference fixes the price and the instance size (sc is resolved, so the
         * document says which options have one). */
        if (!cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t->doc, "cloud_options"), i),
                "catalog"))
            groups[ng] = opt_price, sizes[ng++] = 2;
        if (o->pricing == GP_COMMITTED)
            groups[ng] = opt_committed, sizes[ng++] = 2;
        if (o->pricing == GP_SPOT)
            groups[ng] = opt_spot, sizes[ng++] = 3;
        if (o->pricing != GP_COMMITTED)
            groups[ng] = opt_idle, sizes[ng++] = 1;
        groups[ng] = opt_common, sizes[ng++] = 1;
        for (int g = 0; g < ng; g++)
            for (size_t k = 0; k < sizes[g]; k++) {
                char path[96], label[96];
                snprintf(path, sizeof path, "cloud_options[%d].%s", i, groups[g][k].key);
                snprintf(label, sizeof label, "%.40s: %s", o->name, groups[g][k].label);
                add(&b, &groups[g][k], i, path, label);
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

static double field_value(const tui *t, int i) {
    const gp_scenario *s = t->sc.s;
    const field_def *d = &((const field_def *)t->field_defs)[i];
    int idx = t->field_index[i];
    const char *base = d->kind == F_SCEN_D || d->kind == F_SCEN_I ? (const char *)s
                       : d->kind == F_PERIOD_D                    ? (const char *)&s->periods[idx]
                                                                  : (const char *)&s->options[idx];
    if (d->kind == F_SCEN_I || d->kind == F_OPTION_I)
        return *(const int *)(base + d->off);
    return *(const double *)(base + d->off);
}

/* Set the number at path ("a.b[2].c") in doc, creating objects on the way. */
static bool set_path(cJSON *doc, const char *path, double v) {
    char buf[96];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *cur = doc;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
        char *br = strchr(seg, '[');
        int idx = -1;
        if (br) {
            idx = (int)strtol(br + 1, NULL, 10);
            *br = '\0';
        }
        bool last = !save || !*save;
        cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, seg);
        if (last && idx < 0) {
            cJSON *num = cJSON_CreateNumber(v);
            if (next)
                cJSON_ReplaceItemInObjectCaseSensitive(cur, seg, num);
            else
                cJSON_AddItemToObject(cur, seg, num);
            return true;
        }
        if (!next) {
            if (idx >= 0)
                return false;
            next = cJSON_AddObjectToObject(cur, seg);
        }
        if (idx >= 0)
            next = cJSON_GetArrayItem(next, idx);
        if (!cJSON_IsObject(next))
            return false;
        cur = next;
    }
    return false;
}

/* ---- evaluation ------------------------------------------------------------------------- */

/* Resolve doc (the open document, or a copy with the value being typed) and evaluate it. On an
 * invalid value the message is kept and the last good result stays on screen. */
static bool evaluate(tui *t, const cJSON *doc) {
    gp_loaded sc;
    gp_err err;
    gp_err_clear(&err);
    char origin[GP_NAME_BYTES + 16];
    snprintf(origin, sizeof origin, "%s", t->name);
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
    gp_model_evaluate(t->sc.s, t->r);
    return true;
}

void plan_reevaluate(tui *t) {
    if (!t->doc)
        return;
    if (!t->editing) {
        evaluate(t, t->doc);
        return;
    }
    double v;
    if (!gp_parse_double(t->edit, &v)) {
        snprintf(t->invalid, sizeof t->invalid, "\"%s\" is not a number", t->edit);
        return;
    }
    if (t->fields[t->field_sel].integer && v != floor(v)) {
        snprintf(t->invalid, sizeof t->invalid, "a whole number is needed");
        return;
    }
    cJSON *copy = cJSON_Duplicate(t->doc, true);
    if (!set_path(copy, t->fields[t->field_sel].path, v))
        snprintf(t->invalid, sizeof t->invalid, "cannot set %s", t->fields[t->field_sel].path);
    else
        evaluate(t, copy);
    cJSON_Delete(copy);
}

static void push_undo(tui *t) {
    t->undo = gp_xrealloc(t->undo, sizeof *t->undo * (size_t)(t->n_undo + 1));
    t->undo[t->n_undo++] = cJSON_PrintUnformatted(t->doc);
}

static void replace_doc(tui *t, cJSON *doc) {
    cJSON_Delete(t->doc);
    t->doc = doc;
    evaluate(t, t->doc);
    if (t->has_sc)
        build_fields(t);
}

static int take_name(const gp_scenario_info *i, void *arg) {
    tui *t = arg;
    t->names = gp_xrealloc(t->names, sizeof *t->names * (size_t)(t->n_names + 1));
    snprintf(t->names[t->n_names++], GP_NAME_BYTES, "%s", i->name);
    return 0;
}

void plan_load_names(tui *t) {
    free(t->names);
    t->names = NULL;
    t->n_names = 0;
    gp_store *st;
    gp_err err;
    if (gp_session_store(t->ses, &st, &err) || gp_store_scenario_list(st, take_name, t, &err))
        tui_status(t, "scenarios: %s", err.msg);
    if (t->scen_sel >= t->n_names)
        t->scen_sel = t->n_names ? t->n_names - 1 : 0;
}

static void clear_undo(tui *t) {
    for (int i = 0; i < t->n_undo; i++)
        free(t->undo[i]);
    free(t->undo);
    t->undo = NULL;
    t->n_undo = 0;
}

bool plan_open(tui *t, const char *name) {
    gp_store *st;
    gp_err err;
    char *json = NULL;
    int version = 0;
    if (gp_session_store(t->ses, &st, &err) ||
        gp_store_scenario_get(st, name, 0, &json, &version, NULL, &err)) {
        tui_status(t, "%s", err.msg);
        return false;
    }
    cJSON *doc = cJSON_Parse(json);
    free(json);
    if (!doc) {
        tui_status(t, "stored scenario \"%s\" is not JSON", name);
        return false;
    }
    snprintf(t->name, sizeof t->name, "%s", name);
    t->version = version;
    t->editing = false;
    t->dirty = false;
    clear_undo(t);
    cJSON_Delete(t->doc);
    t->doc = doc;
    if (t->has_sc) {
        gp_loaded_done(&t->sc);
        t->has_sc = false;
    }
    if (!evaluate(t, t->doc)) {
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

bool plan_add_option(tui *t, const offer *o) {
    if (!t->doc)
        return false;
    cJSON *copy = cJSON_Duplicate(t->doc, true);
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
    gp_loaded probe;
    gp_err err;
    if (gp_load_scenario_doc(t->ses, copy, t->name, t->today, &probe, &err)) {
        tui_status(t, "cannot add %s: %s", catalog, err.msg);
        cJSON_Delete(copy);
        return false;
    }
    gp_loaded_done(&probe);
    push_undo(t);
    replace_doc(t, copy);
    t->dirty = true;
    tui_status(t, "added \"%s\" from the catalog (s saves a new version)", name);
    return true;
}

static void save(tui *t, const char *as) {
    gp_store *st;
    gp_err err;
    cJSON *doc = cJSON_Duplicate(t->doc, true);
    if (as) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "name");
        cJSON_AddStringToObject(doc, "name", as);
    }
    char *json = cJSON_Print(doc);
    cJSON_Delete(doc);
    int version = 0;
    const char *name = as ? as : t->name;
    if (gp_session_store(t->ses, &st, &err) ||
        gp_store_scenario_save(st, name, json, &version, &err)) {
        tui_status(t, "not saved: %s", err.msg);
    } else {
        tui_status(t, "saved version %d of \"%s\"", version, name);
        plan_load_names(t);
        if (as)
            plan_open(t, as);
        else
            t->version = version, t->dirty = false;
    }
    free(json);
}

/* ---- tariff presets --------------------------------------------------------------------- */

static int take_tariff(const gp_tariff_preset *p, const char *source, void *arg) {
    (void)source;
    tui *t = arg;
    t->picks = gp_xrealloc(t->picks, sizeof *t->picks * (size_t)(t->n_picks + 1));
    snprintf(t->picks[t->n_picks++], 64, "%s", p->name);
    return 0;
}

static void open_tariffs(tui *t) {
    free(t->picks);
    t->picks = NULL;
    t->n_picks = 0;
    gp_store *st;
    gp_err err;
    if (gp_session_catalog(t->ses, &st, &err) || gp_store_tariffs(st, take_tariff, t, &err)) {
        tui_status(t, "tariffs: %s", err.msg);
        return;
    }
    if (!t->n_picks) {
        tui_status(t, "no tariff presets in the catalog");
        return;
    }
    t->picking = true;
    t->pick_sel = 0;
}

static void apply_tariff(tui *t, const char *name) {
    gp_store *st;
    gp_err err;
    gp_tariff_preset p;
    if (gp_session_store(t->ses, &st, &err) || gp_store_tariff(st, name, &p, &err)) {
        tui_status(t, "%s", err.msg);
        return;
    }
    cJSON *tariff = cJSON_Parse(p.tariff_json);
    if (!tariff) {
        tui_status(t, "preset \"%s\" is not JSON", name);
        return;
    }
    cJSON *copy = cJSON_Duplicate(t->doc, true);
    cJSON *sh = cJSON_GetObjectItemCaseSensitive(copy, "self_hosted");
    if (!sh)
        sh = cJSON_AddObjectToObject(copy, "self_hosted");
    cJSON_DeleteItemFromObjectCaseSensitive(sh, "tariff");
    cJSON_AddItemToObject(sh, "tariff", tariff);
    push_undo(t);
    replace_doc(t, copy);
    t->dirty = true;
    tui_status(t, "tariff \"%s\" (%s) applied", name, p.effective_from);
}

/* ---- drawing ---------------------------------------------------------------------------- */

void plan_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    int lw = cols >= 100 ? 34 : 28; /* the left pane: scenarios, then results */
    int h = rows - TOP - 1;
    int list_h = t->n_names < h / 3 ? (t->n_names > 2 ? t->n_names : 2) : h / 3;
    draw_text(TOP, 0, lw, "Scenarios", draw_attr(PAL_TITLE));
    t->scen_top = tui_scroll(t->scen_sel, t->scen_top, list_h, t->n_names);
    for (int i = 0; i < list_h && t->scen_top + i < t->n_names; i++) {
        int k = t->scen_top + i;
        bool sel = k == t->scen_sel;
        int attr = sel && !t->focus_editor ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_NORMAL);
        draw_fill(TOP + 1 + i, 0, lw - 1, attr);
        draw_textf(TOP + 1 + i, 0, lw - 1, attr, "%s%s",
                   !strcmp(t->names[k], t->name) ? "> " : "  ", t->names[k]);
    }
    if (!t->n_names)
        draw_text(TOP + 1, 0, lw - 1, "(none: gpuplan scenario save FILE)", draw_attr(PAL_DIM));
    int y = TOP + 2 + list_h;
    if (t->has_sc) {
        const gp_scenario *s = t->sc.s;
        const gp_result *r = t->r;
        char m[48];
        draw_text(y++, 0, lw, "Results", draw_attr(PAL_TITLE));
        const char *cheapest = r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name;
        draw_textf(y++, 0, lw - 1, draw_attr(PAL_GOOD), "cheapest: %s", cheapest);
        draw_money(r->self.total, m, sizeof m);
        draw_textf(y++, 0, lw - 1, 0, "self-hosted %s %s", m, s->currency);
        if (r->self.has_cost_per_gpu_hour)
            draw_textf(y++, 0, lw - 1, draw_attr(PAL_DIM), "  %.2f a GPU-hour",
                       r->self.cost_per_gpu_hour);
        for (int i = 0; i < s->n_options && y < rows - 1; i++) {
            const gp_option_result *o = &r->options[i];
            draw_money(o->total, m, sizeof m);
            draw_textf(y++, 0, lw - 1, i == r->cheapest ? draw_attr(PAL_GOOD) : 0, "%s %s",
                       s->options[i].name, m);
            if (y >= rows - 1)
                break;
            char be[32] = "never", bu[32] = "-";
            if (o->has_break_even_month)
                snprintf(be, sizeof be, "month %d", o->break_even_month);
            if (o->has_break_even_utilization)
                snprintf(bu, sizeof bu, "%.1f %%", o->break_even_utilization * 100);
            draw_textf(y++, 0, lw - 1, draw_attr(PAL_DIM), "  even %s, at u %s", be, bu);
        }
    }

    /* The editor. */
    int x = lw + 1, w = cols - x;
    if (!t->doc) {
        draw_text(TOP, x, w, "Open a scenario: Enter on its name.", draw_attr(PAL_DIM));
        return;
    }
    draw_textf(TOP, x, w, draw_attr(PAL_TITLE), "%s (version %d)%s", t->name, t->version,
               t->dirty ? " *modified*" : "");
    int eh = h - 3; /* title, message line, hint */
    t->field_top = tui_scroll(t->field_sel, t->field_top, eh, t->n_fields);
    int lab_w = w - 30 > 40 ? 40 : w - 30 > 22 ? w - 30 : 22, val_w = 14;
    for (int i = 0; i < eh && t->field_top + i < t->n_fields; i++) {
        int k = t->field_top + i;
        field *f = &t->fields[k];
        int fy = TOP + 1 + i;
        bool sel = k == t->field_sel && t->focus_editor;
        draw_fill(fy, x, w, sel && !t->editing ? draw_attr(PAL_ACTIVE) : 0);
        draw_text(fy, x, lab_w, f->label, sel && !t->editing ? draw_attr(PAL_ACTIVE) : 0);
        char v[64];
        if (sel && t->editing) {
            snprintf(v, sizeof v, "%s_", t->edit);
            draw_fill(fy, x + lab_w + 1, val_w, draw_attr(PAL_EDIT));
            draw_text(fy, x + lab_w + 1, val_w, v, draw_attr(PAL_EDIT));
        } else {
            double d = field_value(t, k);
            if (f->integer)
                snprintf(v, sizeof v, "%14.0f", d);
            else
                snprintf(v, sizeof v, "%14.6g", d);
            draw_text(fy, x + lab_w + 1, val_w, v, sel ? draw_attr(PAL_ACTIVE) : 0);
        }
        char unit[24];
        snprintf(unit, sizeof unit, "%s", f->unit);
        char *cur = strstr(unit, "$cur");
        if (cur) {
            char rest[24];
            snprintf(rest, sizeof rest, "%s", cur + 4);
            snprintf(cur, sizeof unit - (size_t)(cur - unit), "%s%s", t->sc.s->currency, rest);
        }
        draw_text(fy, x + lab_w + 2 + val_w, w - lab_w - val_w - 2, unit,
                  sel && !t->editing ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_DIM));
    }
    int my = rows - 3;
    if (t->invalid[0])
        draw_text(my, x, w, t->invalid, draw_attr(PAL_BAD));
    else if (t->editing)
        draw_text(my, x, w, "valid: the results show this value", draw_attr(PAL_GOOD));
    draw_text(rows - 2, x, w,
              t->editing ? "Enter commit  Esc cancel"
                         : "Enter edit  s save  S save as  u undo  t tariff  x export",
              draw_attr(PAL_DIM));
    if (t->picking) {
        int ph = t->n_picks + 2 < h - 2 ? t->n_picks + 2 : h - 2,
            pw = 50 < cols - 4 ? 50 : cols - 4;
        int py = TOP + 1, px = (cols - pw) / 2;
        for (int r = 0; r < ph; r++)
            draw_fill(py + r, px, pw, draw_attr(PAL_ACTIVE));
        draw_text(py, px + 1, pw - 2, "Tariff preset (Enter apply, Esc close)",
                  draw_attr(PAL_ACTIVE));
        int top = tui_scroll(t->pick_sel, 0, ph - 2, t->n_picks);
        for (int i = 0; i < ph - 2 && top + i < t->n_picks; i++) {
            int k = top + i;
            int attr = k == t->pick_sel ? draw_attr(PAL_EDIT) : draw_attr(PAL_ACTIVE);
            draw_fill(py + 1 + i, px + 1, pw - 2, attr);
            draw_text(py + 1 + i, px + 1, pw - 2, t->picks[k], attr);
        }
    }
}

/* ---- keys ------------------------------------------------------------------------------- */

static bool edit_key(tui *t, int ch) {
    size_t n = strlen(t->edit);
    if (ch == 27) { /* Esc: cancel */
        t->editing = false;
        evaluate(t, t->doc);
        return true;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        plan_reevaluate(t);
        if (t->invalid[0])
            return true; /* the message says why; keep editing */
        double v;
        gp_parse_double(t->edit, &v);
        cJSON *copy = cJSON_Duplicate(t->doc, true);
        set_path(copy, t->fields[t->field_sel].path, v);
        push_undo(t);
        t->editing = false;
        replace_doc(t, copy);
        t->dirty = true;
        return true;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (n)
            t->edit[n - 1] = '\0';
    } else if (ch >= 0x20 && ch < 0x7f && (isdigit(ch) || strchr(".-+eE", ch))) {
        if (n + 1 < sizeof t->edit)
            t->edit[n] = (char)ch, t->edit[n + 1] = '\0';
    } else {
        return true; /* other keys do nothing while editing */
    }
    plan_reevaluate(t);
    return true;
}

bool plan_key(tui *t, int ch) {
    if (t->picking) {
        if (ch == 27 || ch == 'q') {
            t->picking = false;
        } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
            t->picking = false;
            apply_tariff(t, t->picks[t->pick_sel]);
        } else {
            tui_list_key(ch, &t->pick_sel, t->n_picks, tui_rows() - TOP - 4);
        }
        return true;
    }
    if (t->editing)
        return edit_key(t, ch);
    int page = tui_rows() - TOP - 4;
    if (!t->focus_editor) {
        if (tui_list_key(ch, &t->scen_sel, t->n_names, page))
            return true;
        switch (ch) {
        case '\n':
        case '\r':
        case KEY_ENTER:
        case KEY_RIGHT:
        case 'l':
            if (t->n_names && (ch == KEY_RIGHT || ch == 'l') && t->doc &&
                !strcmp(t->names[t->scen_sel], t->name)) {
                t->focus_editor = true;
                return true;
            }
            if (t->n_names && plan_open(t, t->names[t->scen_sel]))
                t->focus_editor = true;
            return true;
        }
    } else {
        if (tui_list_key(ch, &t->field_sel, t->n_fields, page))
            return true;
        switch (ch) {
        case 'g':
            t->field_sel = 0;
            return true;
        case 'G':
            t->field_sel = t->n_fields ? t->n_fields - 1 : 0;
            return true;
        case KEY_LEFT:
        case 'h':
            t->focus_editor = false;
            return true;
        case '\n':
        case '\r':
        case KEY_ENTER:
            if (!t->n_fields)
                return true;
            t->editing = true;
            snprintf(t->edit, sizeof t->edit, "%.10g", field_value(t, t->field_sel));
            plan_reevaluate(t);
            return true;
        }
    }
    if (!t->doc)
        return false;
    switch (ch) {
    case 's':
        save(t, NULL);
        return true;
    case 'S':
        t->prompt = PROMPT_SAVE_AS;
        snprintf(t->prompt_buf, sizeof t->prompt_buf, "%s (copy)", t->name);
        return true;
    case 'u':
        if (!t->n_undo) {
            tui_status(t, "nothing to undo");
            return true;
        }
        {
            char *json = t->undo[--t->n_undo];
            cJSON *doc = cJSON_Parse(json);
            free(json);
            if (doc)
                replace_doc(t, doc);
            t->dirty = t->n_undo > 0;
            tui_status(t, "undone");
        }
        return true;
    case 't':
        open_tariffs(t);
        return true;
    }
    return false;
}

void plan_save_as(tui *t, const char *name);
void plan_save_as(tui *t, const char *name) {
    save(t, name);
}

void plan_done(tui *t) {
    clear_undo(t);
    cJSON_Delete(t->doc);
    t->doc = NULL;
    if (t->has_sc)
        gp_loaded_done(&t->sc);
    t->has_sc = false;
    free(t->fields);
    free(t->field_defs);
    free(t->field_index);
    t->fields = NULL, t->field_defs = NULL, t->field_index = NULL;
    free(t->names);
    free(t->picks);
}
