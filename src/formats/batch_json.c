/* summary.json read back (batch_json.h). The shape is the one report_batch.c writes:
 * {"format": "gpuplan-batch-summary", "day", "started_at", "as_of", "scenarios": [...]}. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/batch_json.h"
#include "gpuplan/xmem.h"

typedef struct ctx {
    const char *origin;
    char path[160];
    gp_err *err;
} ctx;

static gp_status bad(ctx *c, const char *key, const char *msg) {
    char where[256];
    snprintf(where, sizeof where, "%s:%s%s%s", c->origin, c->path, key ? "." : "", key ? key : "");
    return gp_errorf(c->err, GP_E_INPUT, where, "%s", msg);
}

/* A string member copied into out[cap]: required unless optional (then "" when absent). */
static gp_status str(ctx *c, const cJSON *o, const char *key, char *out, size_t cap,
                     bool optional) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if (!v && optional)
        return GP_OK;
    if (!cJSON_IsString(v))
        return bad(c, key, "must be a string");
    if (strlen(v->valuestring) >= cap)
        return bad(c, key, "is too long");
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return GP_OK;
}

/* A string, null or absent (summaries written before the key existed): "" for the last two. */
static gp_status opt_str(ctx *c, const cJSON *o, const char *key, char *out, size_t cap) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    return !v || cJSON_IsNull(v) ? GP_OK : str(c, o, key, out, cap, false);
}

static gp_status num(ctx *c, const cJSON *o, const char *key, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return bad(c, key, "must be a finite number");
    *out = v->valuedouble;
    return GP_OK;
}

/* A number or null (or absent): *has tells which. */
static gp_status opt_num(ctx *c, const cJSON *o, const char *key, bool *has, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *has = false;
    *out = 0;
    if (!v || cJSON_IsNull(v))
        return GP_OK;
    *has = true;
    return num(c, o, key, out);
}

static gp_status month(ctx *c, const cJSON *o, const char *key, bool *has, int *out) {
    double v;
    *out = 0;
    if (opt_num(c, o, key, has, &v))
        return c->err->code;
    if (*has && !(v >= 0 && v <= GP_MAX_MONTHS && v == floor(v)))
        return bad(c, key, "must be a month 0..240");
    *out = *has ? (int)v : 0;
    return GP_OK;
}

static gp_status choice(ctx *c, const cJSON *o, gp_batch_choice *ch) {
    if (!cJSON_IsObject(o))
        return bad(c, NULL, "must be an object");
    if (str(c, o, "name", ch->name, sizeof ch->name, false) || num(c, o, "total", &ch->total) ||
        month(c, o, "break_even_month", &ch->has_break_even_month, &ch->break_even_month) ||
        opt_num(c, o, "break_even_utilization", &ch->has_break_even_utilization,
                &ch->break_even_utilization) ||
        opt_num(c, o, "cost_per_gpu_hour", &ch->has_cost_per_gpu_hour, &ch->cost_per_gpu_hour) ||
        opt_num(c, o, "cost_per_work_unit", &ch->has_cost_per_work_unit, &ch->cost_per_work_unit))
        return c->err->code;
    return GP_OK;
}

static gp_status price(ctx *c, const cJSON *o, gp_batch_price *p) {
    if (!cJSON_IsObject(o))
        return bad(c, NULL, "must be an object");
    if (str(c, o, "option", p->option, sizeof p->option, false) ||
        str(c, o, "catalog", p->catalog, sizeof p->catalog, false) ||
        str(c, o, "pricing", p->pricing, sizeof p->pricing, false) ||
        num(c, o, "hourly", &p->hourly) ||
        str(c, o, "effective_from", p->effective_from, sizeof p->effective_from, false) ||
        str(c, o, "source", p->source, sizeof p->source, false))
        return c->err->code;
    bool has_rate, has_listed;
    if (opt_num(c, o, "fx_rate", &has_rate, &p->fx_rate) ||
        opt_num(c, o, "listed_hourly", &has_listed, &p->listed_hourly) ||
        str(c, o, "currency", p->currency, sizeof p->currency, !has_rate) ||
        str(c, o, "fx_date", p->fx_date, sizeof p->fx_date, !has_rate) ||
        str(c, o, "fx_source", p->fx_source, sizeof p->fx_source, !has_rate))
        return c->err->code;
    if (has_rate && (p->fx_rate <= 0 || !has_listed))
        return bad(c, "fx_rate", "must be > 0, with listed_hourly beside it");
    return GP_OK;
}

/* "inputs": [[path, label, value], ...], at most GP_BATCH_MAX_INPUTS. */
static gp_status inputs(ctx *c, const cJSON *o, gp_batch_scenario *s) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "inputs");
    if (!a) /* a summary written before the inputs were kept: the diff then names none */
        return GP_OK;
    if (!cJSON_IsArray(a))
        return bad(c, "inputs", "must be an array");
    if (cJSON_GetArraySize(a) > GP_BATCH_MAX_INPUTS)
        return bad(c, "inputs", "has too many entries");
    size_t base = strlen(c->path);
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, a) {
        snprintf(c->path + base, sizeof c->path - base, ".inputs[%d]", i++);
        const cJSON *p = cJSON_GetArrayItem(e, 0), *l = cJSON_GetArrayItem(e, 1),
                    *v = cJSON_GetArrayItem(e, 2);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3 || !cJSON_IsString(p) ||
            !cJSON_IsString(l) || !cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return bad(c, NULL, "must be [path, label, finite number]");
        if (strlen(p->valuestring) > GP_NAME_BYTES + 48 ||
            strlen(l->valuestring) > GP_NAME_BYTES + 48)
            return bad(c, NULL, "has a path or label too long");
        gp_batch_scenario_add_input(s, p->valuestring, l->valuestring, v->valuedouble);
        c->path[base] = '\0';
    }
    return GP_OK;
}

/* An array member of at most GP_MAX_OPTIONS + 1 objects, each read by fn into a new array. */
static gp_status list(ctx *c, const cJSON *o, const char *key, size_t size, void **out, int *n,
                      gp_status (*fn)(ctx *, const cJSON *, void *)) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(a))
        return bad(c, key, "must be an array");
    int count = cJSON_GetArraySize(a);
    if (count > GP_MAX_OPTIONS + 1)
        return bad(c, key, "has too many entries");
    if (count == 0)
        return GP_OK;
    *out = gp_xcalloc((size_t)count, size);
    size_t base = strlen(c->path);
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        snprintf(c->path + base, sizeof c->path - base, ".%s[%d]", key, *n);
        if (fn(c, e, (char *)*out + (size_t)*n * size))
            return c->err->code;
        (*n)++;
        c->path[base] = '\0';
    }
    return GP_OK;
}

static gp_status choice_fn(ctx *c, const cJSON *o, void *out) {
    return choice(c, o, out);
}
static gp_status price_fn(ctx *c, const cJSON *o, void *out) {
    return price(c, o, out);
}

static gp_status files(ctx *c, const cJSON *o, gp_batch_scenario *s) {
    static const char *const kinds[] = {"md", "csv", "json", "xlsx"};
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "files");
    if (!f)
        return GP_OK;
    if (!cJSON_IsObject(f))
        return bad(c, "files", "must be an object");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (str(c, f, kinds[k], s->files[k], sizeof s->files[k], true))
            return c->err->code;
    return GP_OK;
}

static gp_status scenario(ctx *c, const cJSON *o, gp_batch_scenario *s) {
    double version = 0, horizon = 0;
    bool has_cheapest_total, has_exit;
    if (!cJSON_IsObject(o))
        return bad(c, NULL, "must be an object");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "measured");
    if (m && !cJSON_IsBool(m))
        return bad(c, "measured", "must be true or false");
    s->measured = cJSON_IsTrue(m);
    if (str(c, o, "name", s->name, sizeof s->name, false) || num(c, o, "version", &version) ||
        str(c, o, "currency", s->currency, sizeof s->currency, false) ||
        num(c, o, "horizon_months", &horizon) ||
        str(c, o, "cheapest", s->cheapest, sizeof s->cheapest, false) ||
        opt_num(c, o, "cheapest_total", &has_cheapest_total, &s->cheapest_total) ||
        str(c, o, "rival", s->rival, sizeof s->rival, true) ||
        month(c, o, "break_even_month", &s->has_break_even_month, &s->break_even_month) ||
        num(c, o, "gpus", &s->gpus) || num(c, o, "utilization", &s->utilization) ||
        num(c, o, "gpu_idle_w", &s->gpu_idle_w) || num(c, o, "gpu_tdp_w", &s->gpu_tdp_w) ||
        opt_str(c, o, "work_unit", s->work_unit, sizeof s->work_unit) ||
        opt_str(c, o, "exit_value_basis", s->exit_basis, sizeof s->exit_basis) ||
        opt_num(c, o, "exit_value", &has_exit, &s->exit_value) ||
        opt_str(c, o, "guaranteed", s->guaranteed, sizeof s->guaranteed) ||
        opt_str(c, o, "guaranteed_rival", s->guaranteed_rival, sizeof s->guaranteed_rival) ||
        month(c, o, "guaranteed_break_even_month", &s->has_guaranteed_break_even_month,
              &s->guaranteed_break_even_month) ||
        files(c, o, s))
        return c->err->code;
    if (!(version >= 0 && version <= 1e9 && version == floor(version)))
        return bad(c, "version", "must be a version number");
    if (!(horizon >= 1 && horizon <= GP_MAX_MONTHS && horizon == floor(horizon)))
        return bad(c, "horizon_months", "must be 1..240");
    s->version = (int)version;
    s->horizon_months = (int)horizon;
    void *arr;
    if (list(c, o, "choices", sizeof *s->choices, &arr, &s->n_choices, choice_fn)) {
        s->choices = arr;
        return c->err->code;
    }
    s->choices = arr;
    if (list(c, o, "prices", sizeof *s->prices, &arr, &s->n_prices, price_fn)) {
        s->prices = arr;
        return c->err->code;
    }
    s->prices = arr;
    return inputs(c, o, s);
}

gp_status gp_batch_summary_from_cjson(const cJSON *doc, const char *origin, gp_batch_summary *out,
                                      gp_err *err) {
    ctx c = {origin ? origin : "<summary>", "$", err};
    memset(out, 0, sizeof *out);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
    if (!cJSON_IsObject(doc) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, GP_BATCH_FORMAT))
        return bad(&c, "format", "is not a gpuplan batch summary (\"" GP_BATCH_FORMAT "\")");
    if (str(&c, doc, "day", out->day, sizeof out->day, false) ||
        str(&c, doc, "started_at", out->started_at, sizeof out->started_at, true) ||
        str(&c, doc, "as_of", out->as_of, sizeof out->as_of, true))
        return err->code;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "scenarios");
    if (!cJSON_IsArray(a))
        return bad(&c, "scenarios", "must be an array");
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, a) {
        gp_batch_scenario *s = gp_batch_summary_add(out);
        if (!s) {
            gp_batch_summary_done(out);
            return gp_errorf(err, GP_E_LIMIT, c.origin, "more than %d scenarios",
                             GP_BATCH_MAX_SCENARIOS);
        }
        snprintf(c.path, sizeof c.path, "$.scenarios[%d]", i++);
        if (scenario(&c, e, s)) {
            gp_batch_summary_done(out);
            return err->code;
        }
    }
    return GP_OK;
}

static void line_col(const char *buf, size_t off, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

gp_status gp_batch_summary_parse(const char *buf, size_t len, const char *origin,
                                 gp_batch_summary *out, gp_err *err) {
    origin = origin ? origin : "<summary>";
    memset(out, 0, sizeof *out);
    if (len > GP_BATCH_SUMMARY_MAX_BYTES)
        return gp_errorf(err, GP_E_LIMIT, origin, "summary is larger than %u bytes",
                         GP_BATCH_SUMMARY_MAX_BYTES);
    if (memchr(buf, '\0', len))
        return gp_errorf(err, GP_E_INPUT, origin, "NUL characters are not allowed");
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (!doc) {
        char where[256];
        int line, col;
        size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
        line_col(buf, off, &line, &col);
        snprintf(where, sizeof where, "%s:%d:%d", origin, line, col);
        return gp_errorf(err, GP_E_INPUT, where, "malformed JSON");
    }
    gp_status st = gp_batch_summary_from_cjson(doc, origin, out, err);
    cJSON_Delete(doc);
    return st;
}
