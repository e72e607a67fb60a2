/* Drafting a scenario from the catalog (app_draft.h). */
#define _GNU_SOURCE /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/scenario.h"
#include "gpuplan/xmem.h"

#include "gpuplan/app_draft.h"
#include "gpuplan/catalog.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/store_catalog.h"

typedef struct pick {
    bool found;
    char catalog[300], label[160];
    gp_pricing pricing;
    int term;
    gp_purchase purchase;
    double per_gpu_hour;
    char band[8]; /* spot: the catalog's interruption band, "" when none */
} pick;

/* Peer-to-peer marketplaces: a host's box, not a provider's capacity; offered only when the
 * user names them (--provider) or asks (--marketplace). */
static const char *const marketplaces[] = {"vast"};

static bool is_marketplace(const char *provider) {
    for (size_t i = 0; i < sizeof marketplaces / sizeof marketplaces[0]; i++)
        if (!strcmp(provider, marketplaces[i]))
            return true;
    return false;
}

/* The form factor a name states ("H100 SXM5", "gpu_1x_h100_pcie", "H100_NVL"), "" when none:
 * a PCIe card draws and performs differently from the SXM module the servers are priced for. */
static const char *form_factor(const char *name) {
    return strcasestr(name, "pcie")  ? "pcie"
           : strcasestr(name, "nvl") ? "nvl"
           : strcasestr(name, "sxm") ? "sxm"
                                     : "";
}

/* What an offer must be to stand against the servers being priced. */
typedef struct pick_rule {
    const char *form;     /* the servers' form factor; "" accepts any */
    bool marketplace;     /* marketplace offers allowed */
    const char *provider; /* the one provider walked, or NULL */
    pick *best;           /* the cheapest so far, across providers */
} pick_rule;

static int take_first_fit(const gp_offer_price *o, void *arg) {
    pick_rule *r = arg;
    if (o->gpu_count != (int)o->gpu_count || strcmp(o->currency, "USD") != 0)
        return 0; /* a slice of a GPU, or another currency: not referable */
    if (!r->marketplace && !r->provider && is_marketplace(o->provider))
        return 0;
    const char *form = form_factor(o->instance);
    if (*r->form && *form && strcmp(form, r->form) != 0)
        return 0;
    double per_gpu_hour = o->hourly / o->gpu_count;
    pick *p = r->best;
    if (p->found && p->per_gpu_hour <= per_gpu_hour)
        return 1; /* rows come cheapest first: this walk has nothing cheaper */
    p->found = true;
    snprintf(p->catalog, sizeof p->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    snprintf(p->label, sizeof p->label, "%s %s %s %s", o->provider, o->instance, o->region,
             o->pricing == GP_COMMITTED ? (o->term_months == 12 ? "1-year" : "3-year")
             : o->pricing == GP_SPOT    ? "spot"
                                        : "on-demand");
    p->pricing = o->pricing;
    p->term = o->term_months;
    p->purchase = o->purchase;
    p->per_gpu_hour = per_gpu_hour;
    snprintf(p->band, sizeof p->band, "%s", o->interruption_band);
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

/* The cheapest offer per GPU-hour of each kind (on-demand, spot, committed) that stands
 * against the servers: the same GPU and form factor, at least as many GPUs an instance as a
 * server holds (or the whole demand, when smaller), from the providers asked for. */
static gp_status pick_offers(gp_store *st, const gp_draft_request *rq, const char *gpu,
                             const char *form, pick picks[3], gp_err *err) {
    static const gp_pricing kinds[3] = {GP_ON_DEMAND, GP_SPOT, GP_COMMITTED};
    int walks = rq->n_providers ? rq->n_providers : 1;
    for (int k = 0; k < 3; k++) {
        for (int w = 0; w < walks; w++) {
            gp_offer_filter f = {0};
            f.gpu = gpu;
            f.provider = rq->n_providers ? rq->providers[w] : NULL;
            f.region_prefix = rq->region_prefix;
            f.pricing = kinds[k];
            f.min_gpus = rq->gpus < rq->gpus_per_server ? rq->gpus : rq->gpus_per_server;
            f.as_of = rq->as_of;
            f.sort = GP_SORT_GPU_HOUR;
            pick_rule r = {form, rq->marketplace, f.provider, &picks[k]};
            if (gp_store_catalog_list(st, &f, take_first_fit, &r, err))
                return err->code;
        }
    }
    return GP_OK;
}

/* The tariff asked for (a preset, a state's industrial average) into self_hosted, and what the
 * electricity price is and where it comes from into note. */
static gp_status add_tariff(gp_store *st, const gp_draft_request *rq, cJSON *sh, char *note,
                            size_t cap, gp_err *err) {
    if (rq->tariff) {
        gp_tariff_preset t;
        if (gp_store_tariff(st, rq->tariff, &t, err))
            return err->code;
        cJSON *tj = cJSON_Parse(t.tariff_json);
        /* Periods named after the preset and its date, so a report of the scenario can say
         * where its electricity price comes from (a scenario has no other place for it). */
        cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(tj, "periods")) {
            cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
            char pname[200];
            snprintf(pname, sizeof pname, "%s %s (catalog, from %s)", rq->tariff,
                     cJSON_IsString(nm) ? nm->valuestring : "period", t.effective_from);
            if (cJSON_IsString(nm))
                cJSON_SetValuestring(nm, pname);
        }
        cJSON_AddItemToObject(sh, "tariff", tj);
        snprintf(note, cap, "the tariff preset \"%s\" (effective from %s) from the catalog",
                 rq->tariff, t.effective_from);
        return GP_OK;
    }
    if (!rq->state) {
        gp_scenario *d = gp_xmalloc(sizeof *d); /* large */
        gp_scenario_defaults(d);
        snprintf(note, cap,
                 "not given, so the model's default flat %g a kWh, not a price from the catalog "
                 "(give --tariff or --state)",
                 d->periods[0].price_per_kwh);
        free(d);
        return GP_OK;
    }
    state_price sp = {rq->state, 0, "", false};
    if (gp_store_electricity(st, find_state, &sp, err))
        return err->code;
    if (!sp.found)
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "no industrial electricity price for \"%s\" "
                         "(see gpuplan pricing electricity)",
                         rq->state);
    cJSON *t = cJSON_AddObjectToObject(sh, "tariff");
    cJSON *ps = cJSON_AddArrayToObject(t, "periods");
    cJSON *p = cJSON_CreateObject();
    char pname[96];
    snprintf(pname, sizeof pname, "%s industrial average %s", rq->state, sp.year);
    cJSON_AddStringToObject(p, "name", pname);
    cJSON_AddNumberToObject(p, "hours_per_day", 24);
    cJSON_AddNumberToObject(p, "price_per_kwh", sp.price);
    cJSON_AddItemToArray(ps, p);
    snprintf(note, cap, "%g a kWh, the %s industrial average of %s (EIA, in the catalog)", sp.price,
             rq->state, sp.year);
    return GP_OK;
}

void gp_draft_defaults(gp_draft_request *rq, const char *as_of) {
    *rq = (gp_draft_request){.utilization = 0.6,
                             .horizon_months = 36,
                             .gpus_per_server = 8,
                             .server_base_w = -1,
                             .gpu_idle_w = -1,
                             .spot_interruptions = -1,
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

    const char *form = form_factor(hw.h.item);
    pick picks[3] = {{0}};
    if (pick_offers(st, rq, gpu, form, picks, err))
        return err->code;
    if (!picks[0].found && !picks[1].found && !picks[2].found)
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "no %s offer with %s%s%s and at least %d GPUs an instance in the catalog "
                         "(see gpuplan pricing list)",
                         *form ? form : "whole-GPU", gpu, prefix ? " in regions " : "",
                         prefix ? prefix : "", gpus < per_server ? gpus : per_server);

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
    cJSON *notes = cJSON_AddStringToObject(doc, "notes", "");
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
    char electricity[256];
    if (add_tariff(st, rq, sh, electricity, sizeof electricity, err)) {
        cJSON_Delete(doc);
        return err->code;
    }
    cJSON *opts = cJSON_AddArrayToObject(doc, "cloud_options");
    double spot_rate =
        rq->spot_interruptions >= 0 ? rq->spot_interruptions : GP_DRAFT_SPOT_INTERRUPTIONS;
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
        /* Spot with no band in the catalog is not free of interruptions: a stated rate. */
        if (picks[k].pricing == GP_SPOT && (rq->spot_interruptions >= 0 || !*picks[k].band))
            cJSON_AddNumberToObject(o, "interruptions_per_hour", spot_rate / 730.0);
        cJSON_AddItemToArray(opts, o);
    }
    char zeros[512];
    size_t nz = 0;
    for (int i = 0; i < GP_N_ZERO_COSTS; i++)
        nz += (size_t)snprintf(zeros + nz, sizeof zeros - nz, "%s%s (%s)", i ? ", " : "",
                               gp_zero_costs[i].label, gp_zero_costs[i].key);
    char spot[400] = "";
    if (picks[1].found) {
        char pct[32];
        gp_fmt_pct(spot_rate, pct, sizeof pct);
        if (rq->spot_interruptions >= 0)
            snprintf(spot, sizeof spot,
                     " Spot: priced at %s %% of instances interrupted a month "
                     "(--spot-interruptions).",
                     pct);
        else if (*picks[1].band)
            snprintf(spot, sizeof spot,
                     " Spot: interruptions from the catalog's band %s a month.", picks[1].band);
        else
            snprintf(spot, sizeof spot,
                     " Spot: the catalog gives no interruption band, so the draft's default of "
                     "%s %% of instances interrupted a month (the middle of AWS Spot Advisor's "
                     "bands; --spot-interruptions to change it); spot capacity can be reclaimed.",
                     pct);
    }
    char text[2600];
    snprintf(text, sizeof text,
             "Drafted by gpuplan on %s. Server price: %s (%s, %s) scaled to %d GPUs a server. "
             "GPU busy draw: TDP %g W (%s). Electricity: %s. Assumed, not from the catalog: idle "
             "draw %g W a GPU, %g W a server besides its GPUs, PUE %g%s. Not given, so 0: %s. "
             "Rented GPUs are billed for busy hours only (utilization "
             "%g, times each option's idle overhead). Cloud offers: the cheapest per GPU-hour as "
             "of %s of the same GPU%s%s%s with at least %d GPUs an instance, %s.%s",
             as_of, hw.h.item, hw.h.date, hw.source, per_server, tdp, spec.full_name, electricity,
             idle_w, base_w, pue, pue == 1.56 ? " (Uptime 2024 average)" : "", zeros,
             rq->utilization, as_of, *form ? " and form factor (" : "", form, *form ? ")" : "",
             gpus < per_server ? gpus : per_server,
             rq->n_providers   ? "from the providers asked for"
             : rq->marketplace ? "marketplaces included"
                               : "hyperscalers and GPU clouds (marketplaces left out)",
             spot);
    cJSON_SetValuestring(notes, text);
    *out = doc;
    return GP_OK;
}
