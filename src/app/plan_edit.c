/* The Plan editor's model (app_plan_edit.h): the document, its undo and redo stacks as printed
 * JSON (a change costs one print of the document, a keystroke nothing), and the checks a change
 * passes before it is taken. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_plan_edit.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/parse.h"
#include "gpuplan/xmem.h"

typedef struct stack {
    char **v;
    int n;
} stack;

struct gp_plan_edit {
    gp_session *ses;
    cJSON *doc;
    char name[GP_NAME_BYTES];
    char as_of[11];
    int version;
    stack undo, redo;
    /* undo.n when the document was opened or last saved; -1 once that state cannot come back
     * (a change made after undoing past it) */
    int saved;
};

static void push(stack *s, char *json) {
    s->v = gp_xrealloc(s->v, sizeof *s->v * (size_t)(s->n + 1));
    s->v[s->n++] = json;
}

static void clear(stack *s) {
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

gp_status gp_plan_edit_open(gp_session *s, const char *name, const char *as_of, gp_plan_edit **out,
                            gp_err *err) {
    *out = NULL;
    char *json = NULL;
    int version = 0;
    gp_status rc = gp_scenario_fetch(s, name, 0, &json, &version, NULL, err);
    if (rc)
        return rc;
    cJSON *doc = cJSON_Parse(json);
    free(json);
    if (!doc)
        return gp_errorf(err, GP_E_INPUT, NULL, "stored scenario \"%s\" is not JSON", name);
    gp_plan_edit *pe = gp_xcalloc(1, sizeof *pe);
    pe->ses = s;
    pe->doc = doc;
    snprintf(pe->name, sizeof pe->name, "%s", name);
    snprintf(pe->as_of, sizeof pe->as_of, "%s", as_of);
    pe->version = version;
    *out = pe;
    return GP_OK;
}

void gp_plan_edit_free(gp_plan_edit *pe) {
    if (!pe)
        return;
    cJSON_Delete(pe->doc);
    clear(&pe->undo);
    clear(&pe->redo);
    free(pe);
}

const cJSON *gp_plan_edit_doc(const gp_plan_edit *pe) {
    return pe->doc;
}
const char *gp_plan_edit_name(const gp_plan_edit *pe) {
    return pe->name;
}
int gp_plan_edit_version(const gp_plan_edit *pe) {
    return pe->version;
}
bool gp_plan_edit_dirty(const gp_plan_edit *pe) {
    return pe->undo.n != pe->saved;
}
bool gp_plan_edit_can_undo(const gp_plan_edit *pe) {
    return pe->undo.n > 0;
}
bool gp_plan_edit_can_redo(const gp_plan_edit *pe) {
    return pe->redo.n > 0;
}
cJSON *gp_plan_edit_copy(const gp_plan_edit *pe) {
    return cJSON_Duplicate(pe->doc, true);
}

/* One segment of a path: the key (NUL-terminated in place) and its index, -1 for none. */
static int split_index(char *seg) {
    char *br = strchr(seg, '[');
    if (!br)
        return -1;
    *br = '\0';
    char *end;
    long idx = strtol(br + 1, &end, 10);
    return *end == ']' && idx >= 0 && idx < 1000000 ? (int)idx : -2;
}

cJSON *gp_json_path_get(const cJSON *doc, const char *path) {
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return NULL;
    const cJSON *cur = doc;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg && cur; seg = strtok_r(NULL, ".", &save)) {
        int idx = split_index(seg);
        if (idx == -2)
            return NULL;
        cur = cJSON_GetObjectItemCaseSensitive(cur, seg);
        if (cur && idx >= 0)
            cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, idx) : NULL;
    }
    return (cJSON *)cur;
}

bool gp_json_path_set(cJSON *doc, const char *path, cJSON *item) {
    char buf[256];
    cJSON *cur = doc;
    char *save = NULL;
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf || !cJSON_IsObject(doc))
        goto refused;
    for (char *seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
        int idx = split_index(seg);
        if (idx == -2)
            break;
        bool last = !save || !*save;
        cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, seg);
        if (last && idx < 0) {
            if (!item)
                cJSON_DeleteItemFromObjectCaseSensitive(cur, seg);
            else if (next)
                cJSON_ReplaceItemInObjectCaseSensitive(cur, seg, item);
            else
                cJSON_AddItemToObject(cur, seg, item);
            return true;
        }
        if (!next) {
            if (idx >= 0 || !item)
                break; /* nothing to remove, or no such element */
            next = cJSON_AddObjectToObject(cur, seg);
        }
        if (idx >= 0)
            next = cJSON_IsArray(next) ? cJSON_GetArrayItem(next, idx) : NULL;
        if (!cJSON_IsObject(next))
            break;
        cur = next;
    }
refused:;
    bool removing = !item;
    cJSON_Delete(item);
    return removing;
}

gp_status gp_plan_edit_parse(const char *text, gp_edit_kind kind, bool optional, cJSON **item,
                             gp_err *err) {
    *item = NULL;
    if (!text[0] && optional)
        return GP_OK;
    if (kind == GP_EDIT_TEXT) {
        *item = cJSON_CreateString(text);
        return GP_OK;
    }
    double v;
    bool neg = text[0] == '-';
    if (strchr(text, '%')) { /* "70%" is 0.7, as the CLI takes percents */
        if (!gp_parse_share(text + neg, &v))
            return gp_errorf(err, GP_E_INPUT, NULL, "\"%s\" is not a percentage", text);
        v = neg ? -v : v;
    } else if (!gp_parse_double(text, &v)) {
        return gp_errorf(err, GP_E_INPUT, NULL, "\"%s\" is not a number", text);
    }
    if (kind == GP_EDIT_INTEGER && v != floor(v))
        return gp_errorf(err, GP_E_INPUT, NULL, "a whole number is needed");
    *item = cJSON_CreateNumber(v);
    return GP_OK;
}

/* err's where without the origin the scenario's checks put first: "$.json.path". */
static gp_status path_only(gp_err *err, gp_status rc) {
    const char *p = strstr(err->where, ":$");
    if (p)
        memmove(err->where, p + 1, strlen(p + 1) + 1);
    return rc;
}

static gp_status check_doc(gp_plan_edit *pe, const cJSON *doc, gp_edit_check check, gp_err *err) {
    gp_loaded sc;
    gp_err_clear(err);
    gp_status rc = gp_load_scenario_doc(pe->ses, doc, pe->name, pe->as_of, &sc, err);
    if (rc)
        return path_only(err, rc);
    if (check == GP_EDIT_EVALUATES) {
        gp_result *r = gp_xmalloc(sizeof *r);
        rc = gp_evaluate(&sc, r, err);
        free(r);
    }
    gp_loaded_done(&sc);
    return path_only(err, rc);
}

gp_status gp_plan_edit_replace(gp_plan_edit *pe, cJSON *doc, gp_edit_check check, gp_err *err) {
    if (!doc)
        return gp_errorf(err, GP_E_NOMEM, NULL, "no document");
    gp_status rc = check_doc(pe, doc, check, err);
    if (rc) {
        cJSON_Delete(doc);
        return rc;
    }
    char *before = cJSON_PrintUnformatted(pe->doc);
    if (!before) {
        cJSON_Delete(doc);
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory printing the document");
    }
    if (pe->saved > pe->undo.n)
        pe->saved = -1; /* the saved state was undone and is now beyond reach */
    push(&pe->undo, before);
    clear(&pe->redo);
    cJSON_Delete(pe->doc);
    pe->doc = doc;
    return GP_OK;
}

gp_status gp_plan_edit_set(gp_plan_edit *pe, const char *path, cJSON *item, gp_edit_check check,
                           gp_err *err) {
    const cJSON *now = gp_json_path_get(pe->doc, path);
    if (item ? now && cJSON_Compare(now, item, true) : !now) {
        cJSON_Delete(item);
        return GP_OK;
    }
    cJSON *doc = gp_plan_edit_copy(pe);
    if (!gp_json_path_set(doc, path, item)) {
        cJSON_Delete(doc);
        return gp_errorf(err, GP_E_INPUT, NULL, "cannot set %s", path);
    }
    return gp_plan_edit_replace(pe, doc, check, err);
}

/* Move the document onto to's top, pushing it on from: an undo or a redo. */
static gp_status step(gp_plan_edit *pe, stack *from, stack *to) {
    cJSON *doc = cJSON_Parse(from->v[from->n - 1]);
    char *now = cJSON_PrintUnformatted(pe->doc);
    if (!doc || !now) {
        cJSON_Delete(doc);
        free(now);
        return GP_E_NOMEM;
    }
    free(from->v[--from->n]);
    push(to, now);
    cJSON_Delete(pe->doc);
    pe->doc = doc;
    return GP_OK;
}

gp_status gp_plan_edit_undo(gp_plan_edit *pe, gp_err *err) {
    if (!pe->undo.n)
        return gp_errorf(err, GP_E_INPUT, NULL, "nothing to undo");
    if (step(pe, &pe->undo, &pe->redo))
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory undoing");
    return GP_OK;
}

gp_status gp_plan_edit_redo(gp_plan_edit *pe, gp_err *err) {
    if (!pe->redo.n)
        return gp_errorf(err, GP_E_INPUT, NULL, "nothing to redo");
    if (step(pe, &pe->redo, &pe->undo))
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory redoing");
    return GP_OK;
}

gp_status gp_plan_edit_save(gp_plan_edit *pe, const char *as, gp_err *err) {
    int version = 0;
    const char *name = as ? as : pe->name;
    gp_status rc = gp_scenario_save_doc(pe->ses, pe->doc, name, as != NULL, &version, err);
    if (rc)
        return rc;
    if (as) {
        /* The stored JSON names the scenario by the name it is stored under. */
        cJSON *nm = cJSON_CreateString(as);
        if (cJSON_GetObjectItemCaseSensitive(pe->doc, "name"))
            cJSON_ReplaceItemInObjectCaseSensitive(pe->doc, "name", nm);
        else
            cJSON_AddItemToObject(pe->doc, "name", nm);
        snprintf(pe->name, sizeof pe->name, "%s", as);
        clear(&pe->undo);
        clear(&pe->redo);
    }
    pe->version = version;
    pe->saved = pe->undo.n;
    return GP_OK;
}

gp_status gp_plan_edit_rename(gp_plan_edit *pe, const char *to, gp_err *err) {
    int version = 0;
    gp_status rc = gp_scenario_rename(pe->ses, pe->name, to, &version, err);
    if (rc)
        return rc;
    snprintf(pe->name, sizeof pe->name, "%s", to);
    cJSON_DeleteItemFromObjectCaseSensitive(pe->doc, "name");
    cJSON_AddStringToObject(pe->doc, "name", to);
    pe->version = version;
    return GP_OK;
}
