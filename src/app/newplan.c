/* A new plan chosen step by step (app_newplan.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_newplan.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"
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
    gp_draft_offer_of(o, &a->c[a->n++]); /* named as a draft names it */
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

gp_status gp_newplan_mark_drafted(gp_session *s, const gp_draft_request *rq,
                                  gp_newplan_cloud **list, int *n, gp_err *err) {
    gp_draft_offer picks[3];
    int np;
    if (gp_draft_picks(s, rq, picks, &np, err))
        return err->code;
    for (int i = 0; i < *n; i++)
        (*list)[i].drafted = false;
    for (int k = 0; k < np; k++) {
        int at = -1;
        for (int i = 0; i < *n && at < 0; i++)
            if (!strcmp((*list)[i].catalog, picks[k].catalog) &&
                (*list)[i].pricing == picks[k].pricing &&
                (*list)[i].term_months == picks[k].term_months &&
                (*list)[i].purchase == picks[k].purchase)
                at = i;
        if (at < 0) { /* the list shows each group's cheapest; the rule may pick another */
            *list = gp_xrealloc(*list, sizeof **list * (size_t)(*n + 1));
            at = (*n)++;
            (*list)[at] = picks[k];
        }
        (*list)[at].drafted = true;
    }
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

gp_status gp_newplan_build(gp_session *s, const gp_newplan_request *rq, cJSON **out, gp_err *err) {
    *out = NULL;
    cJSON *doc = NULL;
    /* One draft with the choices in it, so its notes say what was chosen and why. */
    gp_draft_request d = rq->draft;
    d.hardware = rq->hardware;
    d.hardware_source = rq->hardware_source;
    d.offers = rq->cloud;
    d.n_offers = rq->n_cloud;
    if (gp_draft(s, &d, &doc, err))
        return err->code;
    gp_loaded probe;
    if (gp_load_scenario_doc(s, doc, "new plan", rq->draft.as_of, &probe, err)) {
        cJSON_Delete(doc);
        return err->code;
    }
    gp_loaded_done(&probe);
    *out = doc;
    return GP_OK;
}
