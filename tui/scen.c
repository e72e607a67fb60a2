/* The open scenario (scen.h): fields built from the resolved scenario over the editor's model
 * (app_plan_edit.h, which owns the document, undo, save and rename; app_plan_fields.h, which
 * lays out the fields from the table of inputs and reads and parses their values), evaluation
 * when a value is committed or a choice shown, and the catalog and tariff changes. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_plan_fields.h"
#include "gpuplan/app_pricing.h"
#include "gpuplan/app_reshape.h"
#include "gpuplan/app_scenarios.h"
#include "scen.h"

#define get_path gp_json_path_get
#define set_path gp_json_path_set
#define PERIODS_LIST GP_PLAN_PERIODS
#define OPTIONS_LIST GP_PLAN_OPTIONS

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

/* The editor's field behind field i (app_plan_fields.h). */
static const gp_plan_field *def_of(const tui *t, int i) {
    return &((const gp_plan_field *)t->field_defs)[i];
}

/* ---- the fields ------------------------------------------------------------------------- */

/* The fields of the resolved scenario as the screen keeps them: labels cleaned for it. */
static void build_fields(tui *t) {
    int n = 0;
    gp_plan_field *pf = gp_plan_fields(scen_doc(t), t->sc.s, &n);
    field *fs = gp_xcalloc(n ? (size_t)n : 1, sizeof *fs);
    int *index = gp_xcalloc(n ? (size_t)n : 1, sizeof *index);
    for (int i = 0; i < n; i++) {
        field *f = &fs[i];
        snprintf(f->path, sizeof f->path, "%s", pf[i].path);
        draw_clean(pf[i].label, f->label, sizeof f->label);
        f->unit = pf[i].unit;
        f->integer = pf[i].integer;
        f->kind = pf[i].ui == GP_FIELD_TEXT     ? FIELD_TEXT
                  : pf[i].ui == GP_FIELD_CHOICE ? FIELD_CHOICE
                  : pf[i].ui == GP_FIELD_LIST   ? FIELD_LIST
                                                : FIELD_NUMBER;
        f->optional = pf[i].optional;
        snprintf(f->list, sizeof f->list, "%s", pf[i].list);
        f->row = pf[i].row;
        index[i] = pf[i].index;
    }
    free(t->fields);
    free(t->field_defs);
    free(t->field_index);
    t->fields = fs, t->field_defs = pf, t->field_index = index;
    t->n_fields = n;
    if (t->field_sel >= t->n_fields)
        t->field_sel = t->n_fields ? t->n_fields - 1 : 0;
}

/* The choices of a FIELD_CHOICE field (NULL: the key removed, its default); at most cap. The
 * names point into t->sc, valid until the next evaluation. */
static int field_choices(const tui *t, int i, const char **out, int cap) {
    return gp_plan_field_choices(def_of(t, i), scen_doc(t), t->sc.s, out, cap);
}

void scen_field_text(const tui *t, int i, char *out, size_t cap) {
    const gp_plan_field *d = def_of(t, i);
    char v[GP_NAME_BYTES + 64];
    if (t->editing && i == t->field_sel && t->fields[i].kind == FIELD_CHOICE) {
        const char *ch[GP_MAX_OPTIONS + 1];
        int n = field_choices(t, i, ch, GP_MAX_OPTIONS + 1);
        int k = t->edit_choice;
        snprintf(v, sizeof v, "%s", k >= 0 && k < n && ch[k] ? ch[k] : d->absent);
    } else {
        gp_plan_field_text(d, scen_doc(t), t->sc.s, v, sizeof v);
    }
    draw_clean(v, out, cap);
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

/* The value being typed or chosen as a JSON item (*item NULL: the key removed, so its default
 * applies): false, with t->invalid saying why, when it is not one. */
static bool edit_item(tui *t, cJSON **item) {
    const char *text = t->edit;
    const char *ch[GP_MAX_OPTIONS + 1];
    if (t->fields[t->field_sel].kind == FIELD_CHOICE) {
        int n = field_choices(t, t->field_sel, ch, GP_MAX_OPTIONS + 1);
        text = t->edit_choice >= 0 && t->edit_choice < n ? ch[t->edit_choice] : NULL;
    }
    gp_err err;
    if (gp_plan_field_item(def_of(t, t->field_sel), text, item, &err)) {
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

/* The open document with the value being typed or chosen in force (app_plan_fields.h): a
 * copy, NULL when the value is refused (t->invalid says why). */
static cJSON *edited_doc(tui *t) {
    cJSON *item;
    if (!edit_item(t, &item))
        return NULL;
    cJSON *copy = gp_plan_edit_copy(t->pe);
    gp_err err;
    if (gp_plan_field_apply(t->ses, copy, def_of(t, t->field_sel), t->sc.s, item, t->today, &err)) {
        say_refused(t->invalid, sizeof t->invalid, &err);
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
    const gp_plan_field *d = def_of(t, t->field_sel);
    char path[sizeof f->path];
    snprintf(path, sizeof path, "%s", f->path);
    gp_err err;
    gp_status rc;
    if (f->kind == FIELD_CHOICE || d->from == GP_FROM_PERIOD_NUMBER ||
        d->from == GP_FROM_PERIOD_NAME) {
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
    const gp_plan_field *d = def_of(t, t->field_sel);
    if (f->kind == FIELD_LIST) {
        scen_list_add(t, t->field_sel);
        return;
    }
    t->edit[0] = '\0';
    t->edit_choice = 0;
    if (f->kind == FIELD_CHOICE) {
        t->edit_choice = gp_plan_field_choice_now(d, scen_doc(t), t->sc.s);
    } else if (d->from != GP_FROM_DOC || get_path(scen_doc(t), f->path)) {
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
    cJSON *copy = gp_plan_edit_copy(t->pe);
    int added = 0;
    const char *row = "";
    gp_err err;
    if (gp_plan_list_add(copy, list, t->sc.s->work_mode, &added, &row, &err)) {
        cJSON_Delete(copy);
        tui_status(t, "%s", err.msg);
        return;
    }
    char what[96];
    snprintf(what, sizeof what, "add %s %d", row, added);
    if (!apply_change(t, copy, what))
        return;
    int f = row_field(t, list, added - 1);
    if (f >= 0)
        t->field_sel = f;
    tui_status(t, "added %s %d (Enter edits it; d removes it; u undoes)", row, added);
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
