/* A scenario document's shape changed, its new keys filled from the scenario (app_reshape.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/app_reshape.h"
#include "gpuplan/scenario.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/store_throughput.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"

static double num(const cJSON *o, const char *key, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void put_num(cJSON *o, const char *key, double v) {
    cJSON *n = cJSON_CreateNumber(v);
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, n);
    else
        cJSON_AddItemToObject(o, key, n);
}

static void put_str(cJSON *o, const char *key, const char *v) {
    cJSON *n = cJSON_CreateString(v);
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, n);
    else
        cJSON_AddItemToObject(o, key, n);
}

static cJSON *object(cJSON *doc, const char *key) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, key);
    return cJSON_IsObject(o) ? o : NULL;
}

/* docs/model.md's ceil⁺: floating-point noise never adds a GPU. */
static double ceil_plus(double v) {
    return ceil(v - 1e-9 * (v > 1 ? v : 1));
}

/* ---- demand mode ------------------------------------------------------------------------- */

static int take_gpu(const gp_offer_price *p, void *arg) {
    char *gpu = arg;
    if (!p->gpu || !p->gpu[0])
        return 0;
    snprintf(gpu, GP_GPU_NAME_BYTES, "%s", p->gpu);
    return 1;
}

/* The GPU model of a catalog-backed option ("" when it has no catalog key or the catalog does
 * not know it). */
static gp_status option_gpu(gp_store *st, const cJSON *opt, char *out, size_t cap, gp_err *err) {
    out[0] = '\0';
    const char *ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt, "catalog"));
    char buf[GP_CATALOG_BYTES];
    if (!ref || snprintf(buf, sizeof buf, "%s", ref) >= (int)sizeof buf)
        return GP_OK;
    char *s1 = strchr(buf, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    if (!s2)
        return GP_OK;
    *s1 = *s2 = '\0';
    /* The offer's price rows (a keyed read) name its GPU; an unknown offer names none. */
    char gpu[GP_GPU_NAME_BYTES] = "";
    gp_err miss;
    gp_status rc = gp_store_catalog_history(st, buf, s1 + 1, s2 + 1, take_gpu, gpu, &miss);
    if (rc && rc != GP_E_NOTFOUND) {
        *err = miss;
        return rc;
    }
    snprintf(out, cap, "%s", gpu);
    return GP_OK;
}

/* The throughput table's figure for (gpu, profile), as gp_tp_effective gives it after a
 * refresh: the measured one, else the estimate from the GPU's spec row, computed here rather
 * than rewritten into the table, so a choice tried in the editor stays quick. */
typedef struct figure {
    const gp_profile *p;
    const char *gpu, *as_of;
    double value;
    bool found;
} figure;

static int take_measured(const gp_throughput *t, void *arg) {
    figure *f = arg;
    if (t->kind != GP_TP_MEASURED || strcmp(t->gpu, f->gpu) != 0)
        return 0;
    f->value = t->value;
    f->found = true;
    return 1;
}

static int take_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    figure *f = arg;
    gp_throughput t;
    if (strcmp(g->name, f->gpu) != 0 || !gp_throughput_estimate(f->p, g, source, f->as_of, &t))
        return 0;
    f->value = t.value;
    f->found = true;
    return 1;
}

static gp_status effective(gp_session *s, const gp_profile *p, const char *gpu, const char *as_of,
                           figure *out, gp_err *err) {
    *out = (figure){.p = p, .gpu = gpu, .as_of = as_of};
    gp_store *st, *cat;
    if (gp_session_store(s, &st, err) ||
        gp_store_throughputs(st, p->name, gpu, take_measured, out, err) ||
        (!out->found &&
         (gp_session_catalog(s, &cat, err) || gp_store_specs(cat, gpu, take_spec, out, err))))
        return err->code;
    return GP_OK;
}

/* Work per GPU-hour for self-hosted (*rho_s) and each option (rho[k]) under profile. */
static gp_status throughputs(gp_session *s, const cJSON *doc, const char *as_of,
                             const gp_profile *p, double *rho_s, double *rho, gp_err *err) {
    gp_store *st;
    if (gp_session_catalog(s, &st, err))
        return err->code;
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    int n = cJSON_GetArraySize(opts);
    char gpus[GP_MAX_OPTIONS][GP_GPU_NAME_BYTES];
    const char *own = NULL;
    for (int k = 0; k < n && k < GP_MAX_OPTIONS; k++) {
        if (option_gpu(st, cJSON_GetArrayItem(opts, k), gpus[k], sizeof gpus[k], err))
            return err->code;
        if (!own && gpus[k][0])
            own = gpus[k];
    }
    if (!own)
        return gp_errorf(err, GP_E_INPUT, "$.cloud_options",
                         "no option is a catalog offer, so the plan names no GPU model to take "
                         "%s throughput from (add one from the Catalog tab, or count GPU-hours)",
                         p->name);
    figure f;
    if (effective(s, p, own, as_of, &f, err))
        return err->code;
    if (!f.found)
        return gp_errorf(err, GP_E_INPUT, "$.cloud_options",
                         "the throughput table has no %s figure for %s (gpuplan throughput set)",
                         p->name, own);
    *rho_s = f.value;
    for (int k = 0; k < n && k < GP_MAX_OPTIONS; k++) {
        rho[k] = *rho_s;
        if (gpus[k][0] && strcmp(gpus[k], own) != 0) {
            if (effective(s, p, gpus[k], as_of, &f, err))
                return err->code;
            if (f.found)
                rho[k] = f.value;
        }
    }
    return GP_OK;
}

gp_status gp_reshape_work_mode(gp_session *s, cJSON *doc, const char *as_of, const char *profile,
                               gp_err *err) {
    gp_err_clear(err);
    cJSON *demand = object(doc, "demand");
    if (!demand || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(demand, "gpus")))
        return gp_errorf(err, GP_E_INPUT, "$.demand.gpus", "the demand is not in GPUs");
    double rho_s = 1, rho[GP_MAX_OPTIONS];
    const char *unit = "GPU-hours";
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    int n = cJSON_GetArraySize(opts);
    for (int k = 0; k < GP_MAX_OPTIONS; k++)
        rho[k] = 1;
    if (profile) {
        const gp_profile *p;
        if (gp_profile_lookup(profile, &p, err) || throughputs(s, doc, as_of, p, &rho_s, rho, err))
            return err->code;
        unit = p->unit;
    }
    /* Every month's GPUs and utilization in force, as work. */
    double gpus = num(demand, "gpus", 0), u = num(demand, "utilization", 0);
    if (!(u > 0))
        return gp_errorf(err, GP_E_INPUT, "$.demand.utilization",
                         "work mode needs a utilization above 0");
    cJSON *steps = cJSON_GetObjectItemCaseSensitive(demand, "steps");
    int i = 0;
    const cJSON *st;
    cJSON_ArrayForEach(st, steps) {
        if (!(num(st, "utilization", u) > 0)) {
            char where[48];
            snprintf(where, sizeof where, "$.demand.steps[%d].utilization", i);
            return gp_errorf(err, GP_E_INPUT, where, "work mode needs a utilization above 0");
        }
        i++;
    }
    put_num(demand, "work_per_month", gpus * GP_MONTH_HOURS * u * rho_s);
    cJSON_DeleteItemFromObjectCaseSensitive(demand, "gpus");
    put_str(demand, "work_unit", unit);
    cJSON *step;
    cJSON_ArrayForEach(step, steps) {
        gpus = num(step, "gpus", gpus);
        u = num(step, "utilization", u);
        cJSON_DeleteItemFromObjectCaseSensitive(step, "gpus");
        put_num(step, "work_per_month", gpus * GP_MONTH_HOURS * u * rho_s);
    }
    cJSON *sh = object(doc, "self_hosted");
    if (!sh)
        sh = cJSON_AddObjectToObject(doc, "self_hosted");
    put_num(sh, "work_per_gpu_hour", rho_s);
    for (int k = 0; k < n && k < GP_MAX_OPTIONS; k++)
        put_num(cJSON_GetArrayItem(opts, k), "work_per_gpu_hour", rho[k]);
    return GP_OK;
}

gp_status gp_reshape_gpu_mode(cJSON *doc, gp_err *err) {
    gp_err_clear(err);
    cJSON *demand = object(doc, "demand");
    cJSON *sh = object(doc, "self_hosted");
    if (!demand || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(demand, "work_per_month")))
        return gp_errorf(err, GP_E_INPUT, "$.demand.work_per_month", "the demand is not work");
    int k = 0;
    const cJSON *api;
    cJSON_ArrayForEach(api, cJSON_GetObjectItemCaseSensitive(doc, "cloud_options")) {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(api, "pricing"));
        if (p && !strcmp(p, "per_unit")) {
            char where[48];
            snprintf(where, sizeof where, "$.cloud_options[%d].pricing", k);
            return gp_errorf(err, GP_E_INPUT, where,
                             "an API (per_unit) prices work, not GPUs: change its pricing or "
                             "remove it first");
        }
        k++;
    }
    double rho = num(sh, "work_per_gpu_hour", 0), w = num(demand, "work_per_month", 0),
           u = num(demand, "utilization", 0);
    if (!(rho > 0) || !(u > 0))
        return gp_errorf(err, GP_E_INPUT,
                         rho > 0 ? "$.demand.utilization" : "$.self_hosted.work_per_gpu_hour",
                         "needs a value above 0 to count the work in GPUs");
    double g = ceil_plus(w / (rho * GP_MONTH_HOURS * u));
    if (g > 1000000)
        return gp_errorf(err, GP_E_INPUT, "$.demand.work_per_month",
                         "the work needs %.0f GPUs, more than 1,000,000", g);
    cJSON *steps = cJSON_GetObjectItemCaseSensitive(demand, "steps");
    int i = 0;
    const cJSON *st;
    cJSON_ArrayForEach(st, steps) {
        w = num(st, "work_per_month", w);
        u = num(st, "utilization", u);
        if (!(u > 0) || ceil_plus(w / (rho * GP_MONTH_HOURS * u)) > 1000000) {
            char where[48];
            snprintf(where, sizeof where, "$.demand.steps[%d]", i);
            return gp_errorf(err, GP_E_INPUT, where,
                             "its work cannot be counted in at most 1,000,000 GPUs");
        }
        i++;
    }
    w = num(demand, "work_per_month", 0);
    u = num(demand, "utilization", 0);
    put_num(demand, "gpus", g < 1 ? 1 : g);
    cJSON_DeleteItemFromObjectCaseSensitive(demand, "work_per_month");
    cJSON_DeleteItemFromObjectCaseSensitive(demand, "work_unit");
    cJSON *step;
    cJSON_ArrayForEach(step, steps) {
        w = num(step, "work_per_month", w);
        u = num(step, "utilization", u);
        cJSON_DeleteItemFromObjectCaseSensitive(step, "work_per_month");
        put_num(step, "gpus", ceil_plus(w / (rho * GP_MONTH_HOURS * u)));
    }
    cJSON_DeleteItemFromObjectCaseSensitive(sh, "work_per_gpu_hour");
    cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "cloud_options"))
        cJSON_DeleteItemFromObjectCaseSensitive(o, "work_per_gpu_hour");
    return GP_OK;
}

/* ---- pricing and financing --------------------------------------------------------------- */

/* A committed catalog reference without a term: the first of 12 and 36 months the catalog has
 * for its purchase option on as_of (12 when it has neither: the load then says why). */
static gp_status catalog_term(gp_session *s, cJSON *opt, const char *as_of, gp_err *err) {
    const char *ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt, "catalog"));
    char buf[GP_CATALOG_BYTES];
    if (!ref || cJSON_GetObjectItemCaseSensitive(opt, "term_months") ||
        snprintf(buf, sizeof buf, "%s", ref) >= (int)sizeof buf)
        return GP_OK;
    char *s1 = strchr(buf, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    if (!s2)
        return GP_OK;
    *s1 = *s2 = '\0';
    const char *pur = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt, "purchase"));
    gp_purchase purchase = !pur                              ? GP_NO_UPFRONT
                           : !strcmp(pur, "partial_upfront") ? GP_PARTIAL_UPFRONT
                           : !strcmp(pur, "all_upfront")     ? GP_ALL_UPFRONT
                                                             : GP_NO_UPFRONT;
    gp_store *st;
    if (gp_session_catalog(s, &st, err))
        return err->code;
    static const int terms[2] = {12, 36};
    for (int i = 0; i < 2; i++) {
        gp_catalog_entry e;
        gp_err miss;
        if (gp_store_catalog_lookup(st, buf, s1 + 1, s2 + 1, GP_COMMITTED, terms[i], purchase,
                                    as_of, &e, &miss) == GP_OK) {
            if (terms[i] != 12) /* 12 is the default */
                put_num(opt, "term_months", terms[i]);
            return GP_OK;
        }
    }
    return GP_OK;
}

gp_status gp_reshape_pricing(gp_session *s, cJSON *doc, int k, gp_pricing pricing,
                             const char *as_of, gp_err *err) {
    gp_err_clear(err);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    cJSON *opt = cJSON_GetArrayItem(opts, k);
    if (!cJSON_IsObject(opt))
        return gp_errorf(err, GP_E_INPUT, "$.cloud_options", "there is no option %d", k + 1);
    static const char *const committed_only[] = {"upfront", "term_months", "purchase", "base_gpus",
                                                 "burst"};
    static const char *const spot_only[] = {"interruptions_per_hour", "checkpoint_interval_h",
                                            "restart_h"};
    if (pricing != GP_COMMITTED)
        for (size_t i = 0; i < sizeof committed_only / sizeof *committed_only; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(opt, committed_only[i]);
    if (pricing != GP_SPOT)
        for (size_t i = 0; i < sizeof spot_only / sizeof *spot_only; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(opt, spot_only[i]);
    if (pricing == GP_COMMITTED) {
        cJSON_DeleteItemFromObjectCaseSensitive(opt, "idle_overhead");
        /* A bridge or a burst rents by the hour: a committed option can be neither. */
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt, "name"));
        cJSON *sh = object(doc, "self_hosted");
        const char *bridge = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sh, "bridge"));
        if (name && bridge && !strcmp(name, bridge))
            cJSON_DeleteItemFromObjectCaseSensitive(sh, "bridge");
        cJSON *o;
        cJSON_ArrayForEach(o, opts) {
            const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "burst"));
            if (name && b && !strcmp(name, b))
                cJSON_DeleteItemFromObjectCaseSensitive(o, "burst");
        }
    }
    const char *was = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(opt, "pricing"));
    bool from_api = was && !strcmp(was, "per_unit");
    if (pricing == GP_PER_UNIT && !from_api) {
        cJSON *demand = object(doc, "demand");
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(demand, "work_per_month")))
            return gp_errorf(err, GP_E_INPUT, "$.demand.work_per_month",
                             "an API (per_unit) prices work: state the demand as work first");
        /* Its price a unit: what the option cost a unit of work at full use (a catalog
         * reference's price is not in the document: 1, to be typed). */
        double g = num(opt, "gpus_per_instance", 0), rho = num(opt, "work_per_gpu_hour", 0);
        double h = num(opt, "hourly", -1);
        double ppu = h >= 0 && g > 0 && rho > 0 ? h / (g * rho) : 1.0;
        static const char *const hourly_only[] = {"hourly", "gpus_per_instance",
                                                  "work_per_gpu_hour", "catalog", "idle_overhead"};
        for (size_t i = 0; i < sizeof hourly_only / sizeof *hourly_only; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(opt, hourly_only[i]);
        put_num(opt, "price_per_unit", round(ppu * 1e6) / 1e6);
    } else if (pricing != GP_PER_UNIT && from_api) {
        /* Its on-demand equivalent (docs/model.md, Cloud options): one GPU an instance doing
         * one unit of work an hour at its price a unit in all, so the totals stay as they were
         * until a price is typed. */
        double ppu = num(opt, "price_per_unit", 0), in = num(opt, "price_per_input_unit", 0),
               ratio = num(opt, "input_units_per_unit", 0);
        static const char *const api_only[] = {"price_per_unit", "price_per_input_unit",
                                               "input_units_per_unit"};
        for (size_t i = 0; i < sizeof api_only / sizeof *api_only; i++)
            cJSON_DeleteItemFromObjectCaseSensitive(opt, api_only[i]);
        put_num(opt, "gpus_per_instance", 1);
        put_num(opt, "hourly", ppu + ratio * in);
        put_num(opt, "work_per_gpu_hour", 1);
    }
    if (pricing == GP_COMMITTED && catalog_term(s, opt, as_of, err))
        return err->code;
    put_str(opt, "pricing", gp_pricing_name(pricing));
    return GP_OK;
}

gp_status gp_reshape_financing(cJSON *doc, bool loan, gp_err *err) {
    gp_err_clear(err);
    cJSON *sh = object(doc, "self_hosted");
    if (!sh)
        sh = cJSON_AddObjectToObject(doc, "self_hosted");
    cJSON *f = object(sh, "financing");
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "kind"));
    if (!loan) {
        cJSON_DeleteItemFromObjectCaseSensitive(sh, "financing");
        return GP_OK;
    }
    if (kind && !strcmp(kind, "loan"))
        return GP_OK;
    double rate = num(doc, "discount_rate", 0), months = num(doc, "horizon_months", 36);
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "kind", "loan");
    cJSON_AddNumberToObject(l, "apr", rate > 0 ? rate : 0.07);
    cJSON_AddNumberToObject(l, "term_months", months > 360 ? 360 : months < 1 ? 1 : months);
    cJSON_DeleteItemFromObjectCaseSensitive(sh, "financing");
    cJSON_AddItemToObject(sh, "financing", l);
    return GP_OK;
}

/* ---- tariff periods and options ---------------------------------------------------------- */

cJSON *gp_reshape_periods_written(cJSON *doc, const gp_scenario *r) {
    cJSON *sh = object(doc, "self_hosted");
    if (!sh)
        sh = cJSON_AddObjectToObject(doc, "self_hosted");
    cJSON *tariff = object(sh, "tariff");
    if (!tariff)
        tariff = cJSON_AddObjectToObject(sh, "tariff");
    cJSON *p = cJSON_GetObjectItemCaseSensitive(tariff, "periods");
    if (cJSON_IsArray(p))
        return p;
    cJSON_DeleteItemFromObjectCaseSensitive(tariff, "periods");
    p = cJSON_AddArrayToObject(tariff, "periods");
    for (int k = 0; k < r->n_periods; k++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", r->periods[k].name);
        cJSON_AddNumberToObject(e, "hours_per_day", r->periods[k].hours_per_day);
        cJSON_AddNumberToObject(e, "price_per_kwh", r->periods[k].price_per_kwh);
        cJSON_AddItemToArray(p, e);
    }
    return p;
}

static bool name_taken(const cJSON *arr, const char *name) {
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        if (n && !strcmp(n, name))
            return true;
    }
    return false;
}

gp_status gp_reshape_period_add(cJSON *doc, const gp_scenario *resolved, gp_err *err) {
    gp_err_clear(err);
    const cJSON *have =
        cJSON_GetObjectItemCaseSensitive(object(object(doc, "self_hosted"), "tariff"), "periods");
    int n = cJSON_IsArray(have) ? cJSON_GetArraySize(have) : resolved->n_periods;
    if (n >= GP_MAX_PERIODS)
        return gp_errorf(err, GP_E_INPUT, "$.self_hosted.tariff.periods",
                         "a tariff has at most %d periods", GP_MAX_PERIODS);
    cJSON *p = gp_reshape_periods_written(doc, resolved);
    cJSON *longest = NULL;
    cJSON *e;
    cJSON_ArrayForEach(e, p) {
        if (!longest || num(e, "hours_per_day", 0) > num(longest, "hours_per_day", 0))
            longest = e;
    }
    if (!longest)
        return gp_errorf(err, GP_E_INPUT, "$.self_hosted.tariff.periods", "no period to split");
    double h = num(longest, "hours_per_day", 24) / 2;
    put_num(longest, "hours_per_day", h);
    char name[32];
    for (int i = n + 1;; i++) {
        snprintf(name, sizeof name, "period %d", i);
        if (!name_taken(p, name))
            break;
    }
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "name", name);
    cJSON_AddNumberToObject(row, "hours_per_day", h);
    cJSON_AddNumberToObject(row, "price_per_kwh", num(longest, "price_per_kwh", 0.12));
    cJSON_AddItemToArray(p, row);
    return GP_OK;
}

gp_status gp_reshape_period_remove(cJSON *doc, const gp_scenario *resolved, int k, gp_err *err) {
    gp_err_clear(err);
    cJSON *p = gp_reshape_periods_written(doc, resolved);
    int n = cJSON_GetArraySize(p);
    if (k < 0 || k >= n)
        return gp_errorf(err, GP_E_INPUT, "$.self_hosted.tariff.periods", "there is no period %d",
                         k + 1);
    if (n == 1)
        return gp_errorf(err, GP_E_INPUT, "$.self_hosted.tariff.periods",
                         "a tariff keeps at least one period");
    cJSON *gone = cJSON_GetArrayItem(p, k), *heir = cJSON_GetArrayItem(p, k ? k - 1 : 1);
    put_num(heir, "hours_per_day", num(heir, "hours_per_day", 0) + num(gone, "hours_per_day", 0));
    cJSON_DeleteItemFromArray(p, k);
    return GP_OK;
}

gp_status gp_reshape_option_add(cJSON *doc, const gp_scenario *resolved, gp_err *err) {
    gp_err_clear(err);
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    int n = cJSON_IsArray(opts) ? cJSON_GetArraySize(opts) : 0;
    if (n >= GP_MAX_OPTIONS)
        return gp_errorf(err, GP_E_INPUT, "$.cloud_options", "a scenario has at most %d options",
                         GP_MAX_OPTIONS);
    /* The price a GPU-hour of the first on-demand option, else of the first option. */
    const gp_option *like = NULL;
    for (int k = 0; k < resolved->n_options && !like; k++)
        if (resolved->options[k].pricing == GP_ON_DEMAND)
            like = &resolved->options[k];
    for (int k = 0; k < resolved->n_options && !like; k++)
        if (resolved->options[k].pricing != GP_PER_UNIT) /* an API has no GPU-hour price */
            like = &resolved->options[k];
    int g = resolved->gpus_per_server > 0 ? resolved->gpus_per_server : 8;
    double per_gpu =
        like && like->gpus_per_instance > 0 ? like->hourly / like->gpus_per_instance : 0;
    if (!cJSON_IsArray(opts)) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "cloud_options");
        opts = cJSON_AddArrayToObject(doc, "cloud_options");
    }
    char name[32];
    for (int i = n + 1;; i++) {
        snprintf(name, sizeof name, "on-demand %d", i);
        if (!name_taken(opts, name))
            break;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "pricing", "on_demand");
    cJSON_AddNumberToObject(o, "gpus_per_instance", g);
    /* Rounded to 1e-4, as catalog prices are given. */
    cJSON_AddNumberToObject(o, "hourly", round(per_gpu * g * 1e4) / 1e4);
    if (resolved->work_mode)
        cJSON_AddNumberToObject(o, "work_per_gpu_hour", resolved->work_per_gpu_hour);
    cJSON_AddItemToArray(opts, o);
    return GP_OK;
}
