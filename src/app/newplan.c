/* A new plan chosen step by step (app_newplan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_newplan.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/xmem.h"

/* ---- cloud offers ----------------------------------------------------------------------- */

typedef struct cloud_acc {
    gp_newplan_cloud *c;
    size_t n, cap;
} cloud_acc;

static int rank(gp_pricing p) {
    return p == GP_ON_DEMAND ? 0 : p == GP_SPOT ? 1 : 2;
}

static int take_offer(const gp_offer_price *o, void *arg) {
    cloud_acc *a = arg;
    if (o->gpu_count != floor(o->gpu_count) || o->gpu_count < 1 || o->gpu_count > 64 ||
        strcmp(o->currency, "USD") != 0)
        return 0; /* a slice of a GPU, or another currency: a scenario cannot refer to it */
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->c[i].provider, o->provider) && a->c[i].pricing == o->pricing &&
            a->c[i].term_months == (o->pricing == GP_COMMITTED ? o->term_months : 0))
            return 0; /* rows come cheapest first: the group has its pick */
    a->c = gp_xgrow(a->c, &a->cap, a->n, sizeof *a->c, 16);
    gp_newplan_cloud *c = &a->c[a->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->provider, sizeof c->provider, "%s", o->provider);
    c->pricing = o->pricing;
    if (o->pricing == GP_COMMITTED)
        c->term_months = o->term_months, c->purchase = o->purchase;
    snprintf(c->catalog, sizeof c->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    char kind[32];
    if (o->pricing == GP_COMMITTED)
        snprintf(kind, sizeof kind, "%d-month commitment", o->term_months);
    else
        snprintf(kind, sizeof kind, "%s", o->pricing == GP_SPOT ? "spot" : "on-demand");
    snprintf(c->label, sizeof c->label, "%s %s %s %s", o->provider, o->instance, o->region, kind);
    c->gpus = o->gpu_count;
    c->per_gpu_hour = o->hourly / o->gpu_count;
    snprintf(c->effective_from, sizeof c->effective_from, "%s", o->effective_from);
    return 0;
}

static int cmp_cloud(const void *pa, const void *pb) {
    const gp_newplan_cloud *a = pa, *b = pb;
    int c = strcmp(a->provider, b->provider);
    if (!c)
        c = rank(a->pricing) - rank(b->pricing);
    if (!c)
        c = a->term_months - b->term_months;
    return c;
}

static gp_status cloud_list(gp_store *st, const char *gpu, const char *as_of, cloud_acc *a,
                            gp_err *err) {
    gp_offer_filter f = {.gpu = gpu, .pricing = -1, .as_of = as_of, .sort = GP_SORT_GPU_HOUR};
    if (gp_store_catalog_list(st, &f, take_offer, a, err))
        return err->code;
    if (a->n) /* qsort takes no NULL, even for nothing */
        qsort(a->c, a->n, sizeof *a->c, cmp_cloud);
    return GP_OK;
}

gp_status gp_newplan_cloud_choices(gp_session *s, const char *gpu, const char *as_of,
                                   int (*fn)(const gp_newplan_cloud *, void *), void *arg,
                                   gp_err *err) {
    gp_store *st;
    cloud_acc a = {0};
    if (gp_session_catalog(s, &st, err) || cloud_list(st, gpu, as_of, &a, err)) {
        free(a.c);
        return err->code;
    }
    for (size_t i = 0; i < a.n; i++)
        if (fn(&a.c[i], arg))
            break;
    free(a.c);
    return GP_OK;
}

/* ---- GPU models and their purchase prices ----------------------------------------------- */

typedef struct names {
    char (*v)[GP_GPU_NAME_BYTES];
    size_t n, cap;
} names;

static int take_hw_gpu(const gp_hw_price *h, const char *source, void *arg) {
    (void)source;
    names *a = arg;
    if (h->gpus < 1)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->v[i], h->gpu))
            return 0;
    a->v = gp_xgrow(a->v, &a->cap, a->n, sizeof *a->v, 64);
    snprintf(a->v[a->n++], GP_GPU_NAME_BYTES, "%s", h->gpu);
    return 0;
}

static int take_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    (void)source;
    gp_gpu_spec *out = arg;
    if (strcmp(g->name, out->name) != 0)
        return 0; /* "A100" also matches "A100-80GB": only the model itself */
    *out = *g;
    return 1;
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(a, b);
}

gp_status gp_newplan_gpus(gp_session *s, const char *as_of,
                          int (*fn)(const gp_newplan_gpu *, void *), void *arg, gp_err *err) {
    gp_store *st;
    names a = {0};
    if (gp_session_catalog(s, &st, err) || gp_store_hardware(st, NULL, take_hw_gpu, &a, err)) {
        free(a.v);
        return err->code;
    }
    if (a.n)
        qsort(a.v, a.n, sizeof *a.v, cmp_name);
    gp_status rc = GP_OK;
    for (size_t i = 0; i < a.n; i++) {
        gp_gpu_spec spec = {0};
        snprintf(spec.name, sizeof spec.name, "%s", a.v[i]);
        if ((rc = gp_store_specs(st, a.v[i], take_spec, &spec, err)))
            break;
        if (!spec.has[GP_SPEC_TDP_W])
            continue;
        cloud_acc c = {0};
        if ((rc = cloud_list(st, a.v[i], as_of, &c, err))) {
            free(c.c);
            break;
        }
        gp_newplan_gpu g = {0};
        snprintf(g.gpu, sizeof g.gpu, "%s", a.v[i]);
        snprintf(g.full_name, sizeof g.full_name, "%s", spec.full_name);
        g.tdp_w = spec.v[GP_SPEC_TDP_W];
        g.memory_gb = spec.has[GP_SPEC_MEMORY_GB] ? spec.v[GP_SPEC_MEMORY_GB] : 0;
        g.offers = (int)c.n;
        for (size_t k = 0; k < c.n; k++)
            if (k == 0 || c.c[k].per_gpu_hour < g.cheapest_per_gpu_hour)
                g.cheapest_per_gpu_hour = c.c[k].per_gpu_hour;
        free(c.c);
        if (g.offers && fn(&g, arg))
            break;
    }
    free(a.v);
    return rc;
}

typedef struct hw_filter {
    const char *gpu;
    int (*fn)(const gp_hw_price *, const char *, void *);
    void *arg;
} hw_filter;

static int take_hw(const gp_hw_price *h, const char *source, void *arg) {
    hw_filter *f = arg;
    if (h->gpus < 1 || strcmp(h->gpu, f->gpu) != 0)
        return 0;
    return f->fn(h, source, f->arg);
}

gp_status gp_newplan_hardware(gp_session *s, const char *gpu,
                              int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                              gp_err *err) {
    gp_store *st;
    hw_filter f = {gpu, fn, arg};
    if (gp_session_catalog(s, &st, err))
        return err->code;
    return gp_store_hardware(st, gpu, take_hw, &f, err);
}

/* ---- electricity ------------------------------------------------------------------------ */

typedef struct power_acc {
    int (*fn)(const gp_newplan_power *, void *);
    void *arg;
    bool stop;
} power_acc;

static int take_tariff(const gp_tariff_preset *t, const char *source, void *arg) {
    (void)source;
    power_acc *a = arg;
    gp_newplan_power p = {.tariff = true};
    snprintf(p.name, sizeof p.name, "%s", t->name);
    snprintf(p.date, sizeof p.date, "%s", t->effective_from);
    snprintf(p.detail, sizeof p.detail, "%s", t->utility);
    /* The time-weighted mean over a day, as the Fleet tab prices energy. */
    cJSON *j = cJSON_Parse(t->tariff_json), *per;
    double sum = 0;
    cJSON_ArrayForEach(per, cJSON_GetObjectItemCaseSensitive(j, "periods")) {
        double price = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(per, "price_per_kwh"));
        double hours = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(per, "hours_per_day"));
        if (isfinite(price) && isfinite(hours))
            sum += price * hours;
    }
    cJSON_Delete(j);
    p.price_per_kwh = sum / 24;
    a->stop = a->fn(&p, a->arg) != 0;
    return a->stop;
}

static int take_state(const gp_elec_price *e, const char *year, const char *source, void *arg) {
    (void)source;
    power_acc *a = arg;
    if (strcmp(e->sector, "industrial") != 0)
        return 0;
    gp_newplan_power p = {.tariff = false};
    snprintf(p.name, sizeof p.name, "%s", e->region);
    snprintf(p.date, sizeof p.date, "%s", year);
    snprintf(p.detail, sizeof p.detail, "industrial average");
    p.price_per_kwh = e->price_per_kwh;
    a->stop = a->fn(&p, a->arg) != 0;
    return a->stop;
}

gp_status gp_newplan_power_choices(gp_session *s, int (*fn)(const gp_newplan_power *, void *),
                                   void *arg, gp_err *err) {
    gp_store *st;
    power_acc a = {fn, arg, false};
    if (gp_session_catalog(s, &st, err) || gp_store_tariffs(st, take_tariff, &a, err))
        return err->code;
    if (!a.stop && gp_store_electricity(st, take_state, &a, err))
        return err->code;
    return GP_OK;
}

/* ---- the scenario ----------------------------------------------------------------------- */

static void set_number(cJSON *obj, const char *key, double v) {
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddNumberToObject(obj, key, v);
}

/* The draft's notes name the server price it took: name the one chosen instead. */
static void note_hardware(cJSON *doc, const gp_hw_price *h, const char *source) {
    const char *notes = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "notes"));
    char out[1200], what[600];
    snprintf(what, sizeof what, "Server price: %s (%s, %s)", h->item, h->date,
             source ? source : "catalog");
    const char *a = notes ? strstr(notes, "Server price: ") : NULL;
    const char *b = a ? strstr(a, " scaled to") : NULL;
    if (a && b)
        snprintf(out, sizeof out, "%.*s%s%s", (int)(a - notes), notes, what, b);
    else
        snprintf(out, sizeof out, "%s%s%s.", notes ? notes : "", notes ? " " : "", what);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "notes");
    cJSON_AddStringToObject(doc, "notes", out);
}

gp_status gp_newplan_build(gp_session *s, const gp_newplan_request *rq, cJSON **out, gp_err *err) {
    *out = NULL;
    cJSON *doc = NULL;
    if (gp_draft(s, &rq->draft, &doc, err))
        return err->code;
    if (rq->hardware) {
        const gp_hw_price *h = rq->hardware;
        cJSON *sh = cJSON_GetObjectItemCaseSensitive(doc, "self_hosted");
        set_number(sh, "server_price",
                   round(h->price_usd / h->gpus * rq->draft.gpus_per_server * 100) / 100);
        note_hardware(doc, h, rq->hardware_source);
    }
    if (rq->n_cloud > 0) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "cloud_options");
        cJSON *opts = cJSON_AddArrayToObject(doc, "cloud_options");
        static const char *const pn[] = {"no_upfront", "partial_upfront", "all_upfront"};
        for (int i = 0; i < rq->n_cloud; i++) {
            const gp_newplan_cloud *c = &rq->cloud[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", c->label);
            cJSON_AddStringToObject(o, "pricing", gp_pricing_name(c->pricing));
            cJSON_AddStringToObject(o, "catalog", c->catalog);
            if (c->pricing == GP_COMMITTED) {
                cJSON_AddNumberToObject(o, "term_months", c->term_months);
                cJSON_AddStringToObject(o, "purchase", pn[c->purchase]);
            }
            cJSON_AddItemToArray(opts, o);
        }
    }
    gp_loaded probe;
    if (gp_load_scenario_doc(s, doc, "new plan", rq->draft.as_of, &probe, err)) {
        cJSON_Delete(doc);
        return err->code;
    }
    gp_loaded_done(&probe);
    *out = doc;
    return GP_OK;
}
