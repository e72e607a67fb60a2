/* Drafting a scenario from the catalog (app_draft.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/app_draft.h"
#include "gpuplan/catalog.h"
#include "gpuplan/store_catalog.h"

typedef struct pick {
    bool found;
    char catalog[300], label[160];
    gp_pricing pricing;
    int term;
    gp_purchase purchase;
    double per_gpu_hour;
} pick;

static int take_first_whole(const gp_offer_price *o, void *arg) {
    pick *p = arg;
    if (o->gpu_count != (int)o->gpu_count || strcmp(o->currency, "USD") != 0)
        return 0; /* a slice of a GPU, or another currency: not referable */
    p->found = true;
    snprintf(p->catalog, sizeof p->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    snprintf(p->label, sizeof p->label, "%s %s %s", o->instance, o->region,
             o->pricing == GP_COMMITTED ? (o->term_months == 12 ? "1-year" : "3-year")
             : o->pricing == GP_SPOT    ? "spot"
                                        : "on-demand");
    p->pricing = o->pricing;
    p->term = o->term_months;
    p->purchase = o->purchase;
    p->per_gpu_hour = o->hourly / o->gpu_count;
    return 1;
}

typedef struct hw_pick {
    bool found;
    gp_hw_price h;
    char source[256];
} hw_pick;

static int newest_hw(const gp_hw_price *h, const char *source, void *arg) {
    hw_pick *p = arg;
    if (h->gpus < 1)
        return 0;
    if (!p->found || strcmp(h->date, p->h.date) >= 0) { /* rows come oldest first */
        p->found = true;
        p->h = *h;
        snprintf(p->source, sizeof p->source, "%s", source);
    }
    return 0;
}

static int first_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    (void)source;
    *(gp_gpu_spec *)arg = *g;
    return 1;
}

typedef struct state_price {
    const char *want;
    double price;
    char year[16];
    bool found;
} state_price;

static int find_state(const gp_elec_price *e, const char *year, const char *source, void *arg) {
    (void)source;
    state_price *sp = arg;
    if (strcasecmp(e->region, sp->want) == 0 && strcmp(e->sector, "industrial") == 0) {
        sp->price = e->price_per_kwh;
        snprintf(sp->year, sizeof sp->year, "%s", year);
        sp->found = true;
        return 1;
    }
    return 0;
}

void gp_draft_defaults(gp_draft_request *rq, const char *as_of) {
    *rq = (gp_draft_request){.utilization = 0.6,
                             .horizon_months = 36,
                             .gpus_per_server = 8,
                             .server_base_w = -1,
                             .gpu_idle_w = -1,
                             .as_of = as_of};
}

gp_status gp_draft(gp_session *ses, const gp_draft_request *rq, cJSON **out, gp_err *err) {
    *out = NULL;
    gp_store *st;
    if (gp_session_catalog(ses, &st, err))
        return err->code;
    char gpu[GP_GPU_NAME_BYTES];
    gp_gpu_normalize(rq->gpu, 0, gpu, sizeof gpu);
    const char *prefix = rq->region_prefix, *as_of = rq->as_of;
    int per_server = rq->gpus_per_server, gpus = rq->gpus;
    double base_w = rq->server_base_w, idle_w = rq->gpu_idle_w, pue = rq->pue;

    gp_gpu_spec spec = {0};
    hw_pick hw = {0};
    if (gp_store_specs(st, gpu, first_spec, &spec, err) ||
        gp_store_hardware(st, gpu, newest_hw, &hw, err))
        return err->code;
    if (!spec.has[GP_SPEC_TDP_W])
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "the catalog has no TDP for %s (see gpuplan pricing gpus)", gpu);
    if (!hw.found)
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "the catalog has no purchase price for %s (see "
                         "gpuplan pricing hardware)",
                         gpu);

    pick picks[3] = {{0}};
    static const gp_pricing kinds[3] = {GP_ON_DEMAND, GP_SPOT, GP_COMMITTED};
    for (int k = 0; k < 3; k++) {
        gp_offer_filter f = {0};
        f.gpu = gpu;
        f.region_prefix = prefix;
        f.pricing = kinds[k];
        f.as_of = as_of;
        f.sort = GP_SORT_GPU_HOUR;
        if (gp_store_catalog_list(st, &f, take_first_whole, &picks[k], err))
            return err->code;
    }
    if (!picks[0].found && !picks[1].found && !picks[2].found)
        return gp_errorf(err, GP_E_INPUT, "scenario draft", "no offer with %s%s%s in the catalog",
                         gpu, prefix ? " in regions " : "", prefix ? prefix : "");

    double server_price = hw.h.price_usd / hw.h.gpus * per_server;
    double tdp = spec.v[GP_SPEC_TDP_W];
    if (base_w < 0)
        base_w = 1500.0 * per_server / 8; /* CPUs, memory, NICs, fans of an 8-GPU server */
    if (idle_w < 0)
        idle_w = 0.15 * tdp;
    if (pue == 0)
        pue = 1.56; /* Uptime Institute 2024 survey average (pricing pue) */

    cJSON *doc = cJSON_CreateObject();
    char title[200];
    snprintf(title, sizeof title, "%d x %s: own or rent%s%s", gpus, gpu, prefix ? " in " : "",
             prefix ? prefix : "");
    cJSON_AddStringToObject(doc, "name", rq->name ? rq->name : title);
    cJSON_AddNumberToObject(doc, "horizon_months", rq->horizon_months);
    char notes[1024];
    snprintf(notes, sizeof notes,
             "Drafted by gpuplan on %s. Server price: %s (%s, %s) scaled to %d GPUs a server. "
             "GPU busy draw: TDP %g W (%s). Assumed, not from the catalog: idle draw %g W a GPU, "
             "%g W a server besides its GPUs, PUE %g%s. Cloud offers: the cheapest per GPU-hour "
             "as of %s.",
             as_of, hw.h.item, hw.h.date, hw.source, per_server, tdp, spec.full_name, idle_w,
             base_w, pue, pue == 1.56 ? " (Uptime 2024 average)" : "", as_of);
    cJSON_AddStringToObject(doc, "notes", notes);
    cJSON *d = cJSON_AddObjectToObject(doc, "demand");
    cJSON_AddNumberToObject(d, "gpus", gpus);
    cJSON_AddNumberToObject(d, "utilization", rq->utilization);
    cJSON *sh = cJSON_AddObjectToObject(doc, "self_hosted");
    cJSON_AddNumberToObject(sh, "gpus_per_server", per_server);
    cJSON_AddNumberToObject(sh, "server_price", round(server_price * 100) / 100);
    cJSON *pw = cJSON_AddObjectToObject(sh, "power");
    cJSON_AddNumberToObject(pw, "server_base_w", base_w);
    cJSON_AddNumberToObject(pw, "gpu_idle_w", idle_w);
    cJSON_AddNumberToObject(pw, "gpu_tdp_w", tdp);
    cJSON_AddNumberToObject(pw, "pue", pue);
    if (rq->tariff) {
        gp_tariff_preset t;
        if (gp_store_tariff(st, rq->tariff, &t, err)) {
            cJSON_Delete(doc);
            return err->code;
        }
        cJSON_AddItemToObject(sh, "tariff", cJSON_Parse(t.tariff_json));
    } else if (rq->state) {
        state_price sp = {rq->state, 0, "", false};
        if (gp_store_electricity(st, find_state, &sp, err)) {
            cJSON_Delete(doc);
            return err->code;
        }
        if (!sp.found) {
            cJSON_Delete(doc);
            return gp_errorf(err, GP_E_INPUT, "scenario draft",
                             "no industrial electricity price for \"%s\" "
                             "(see gpuplan pricing electricity)",
                             rq->state);
        }
        cJSON *t = cJSON_AddObjectToObject(sh, "tariff");
        cJSON *ps = cJSON_AddArrayToObject(t, "periods");
        cJSON *p = cJSON_CreateObject();
        char pname[96];
        snprintf(pname, sizeof pname, "%s industrial average %s", rq->state, sp.year);
        cJSON_AddStringToObject(p, "name", pname);
        cJSON_AddNumberToObject(p, "hours_per_day", 24);
        cJSON_AddNumberToObject(p, "price_per_kwh", sp.price);
        cJSON_AddItemToArray(ps, p);
    }
    cJSON *opts = cJSON_AddArrayToObject(doc, "cloud_options");
    for (int k = 0; k < 3; k++) {
        if (!picks[k].found)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", picks[k].label);
        cJSON_AddStringToObject(o, "pricing", gp_pricing_name(picks[k].pricing));
        cJSON_AddStringToObject(o, "catalog", picks[k].catalog);
        if (picks[k].pricing == GP_COMMITTED) {
            cJSON_AddNumberToObject(o, "term_months", picks[k].term);
            static const char *const pn[] = {"no_upfront", "partial_upfront", "all_upfront"};
            cJSON_AddStringToObject(o, "purchase", pn[picks[k].purchase]);
        }
        cJSON_AddItemToArray(opts, o);
    }
    *out = doc;
    return GP_OK;
}
