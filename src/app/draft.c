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
#include "gpuplan/app_pricing.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/store_fx.h"
#include "gpuplan/catalog.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"

typedef struct pick {
    bool found;
    gp_draft_offer o;
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
    if (p->found && p->o.per_gpu_hour <= per_gpu_hour)
        return 1; /* rows come cheapest first: this walk has nothing cheaper */
    p->found = true;
    gp_draft_offer_of(o, &p->o);
    p->o.drafted = true;
    return 1;
}

void gp_draft_offer_of(const gp_offer_price *o, gp_draft_offer *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->provider, sizeof out->provider, "%s", o->provider);
    out->pricing = o->pricing;
    if (o->pricing == GP_COMMITTED)
        out->term_months = o->term_months, out->purchase = o->purchase;
    snprintf(out->catalog, sizeof out->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    char kind[32];
    if (o->pricing == GP_COMMITTED && (o->term_months == 12 || o->term_months == 36))
        snprintf(kind, sizeof kind, "%d-year", o->term_months / 12);
    else if (o->pricing == GP_COMMITTED)
        snprintf(kind, sizeof kind, "%d-month commitment", o->term_months);
    else
        snprintf(kind, sizeof kind, "%s", o->pricing == GP_SPOT ? "spot" : "on-demand");
    snprintf(out->label, sizeof out->label, "%s %s %s %s", o->provider, o->instance, o->region,
             kind);
    out->gpus = o->gpu_count;
    out->per_gpu_hour = o->hourly / o->gpu_count;
    snprintf(out->effective_from, sizeof out->effective_from, "%s", o->effective_from);
    snprintf(out->band, sizeof out->band, "%s", o->interruption_band ? o->interruption_band : "");
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
/* Multiply a number member of o, if there, by rate. */
static void scale_member(cJSON *o, const char *key, double rate) {
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(v))
        cJSON_SetNumberValue(v, v->valuedouble * rate);
}

/* fx: the scenario's currency per USD (the catalog's electricity and tariffs are in USD). */
static gp_status add_tariff(gp_store *st, const gp_draft_request *rq, double fx, cJSON *sh,
                            char *note, size_t cap, gp_err *err) {
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
            scale_member(p, "price_per_kwh", fx);
        }
        scale_member(tj, "demand_charge_per_kw_month", fx);
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
    cJSON_AddNumberToObject(p, "price_per_kwh", sp.price * fx);
    cJSON_AddItemToArray(ps, p);
    snprintf(note, cap, "%g a kWh, the %s industrial average of %s (EIA, in the catalog)",
             sp.price * fx, rq->state, sp.year);
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

/* The GPU, its spec and its purchase price (the newest, or the one chosen), and the form
 * factor the offers must match. */
typedef struct draft_base {
    char gpu[GP_GPU_NAME_BYTES];
    gp_gpu_spec spec;
    hw_pick hw;
    const char *form;
} draft_base;

static gp_status draft_base_of(gp_store *st, const gp_draft_request *rq, draft_base *b,
                               gp_err *err) {
    memset(b, 0, sizeof *b);
    gp_gpu_normalize(rq->gpu, 0, b->gpu, sizeof b->gpu);
    if (gp_store_specs(st, b->gpu, first_spec, &b->spec, err) ||
        gp_store_hardware(st, b->gpu, newest_hw, &b->hw, err))
        return err->code;
    if (!b->spec.has[GP_SPEC_TDP_W])
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "the catalog has no TDP for %s (see gpuplan pricing gpus)", b->gpu);
    if (!b->hw.found)
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "the catalog has no purchase price for %s (see "
                         "gpuplan pricing hardware)",
                         b->gpu);
    if (rq->hardware) {
        b->hw.h = *rq->hardware;
        snprintf(b->hw.source, sizeof b->hw.source, "%s",
                 rq->hardware_source ? rq->hardware_source : "catalog");
    }
    b->form = form_factor(b->hw.h.item);
    return GP_OK;
}

gp_status gp_draft_picks(gp_session *ses, const gp_draft_request *rq, gp_draft_offer out[3], int *n,
                         gp_err *err) {
    *n = 0;
    gp_store *st;
    draft_base b;
    if (gp_session_catalog(ses, &st, err) || draft_base_of(st, rq, &b, err))
        return err->code;
    pick picks[3] = {{0}};
    if (pick_offers(st, rq, b.gpu, b.form, picks, err))
        return err->code;
    for (int k = 0; k < 3; k++)
        if (picks[k].found)
            out[(*n)++] = picks[k].o;
    return GP_OK;
}

/* Why an offer chosen by hand stands apart from the draft's rule, "" when it does not. */
static void apart(const gp_draft_request *rq, const draft_base *b, const gp_draft_offer *o,
                  char *out, size_t cap) {
    size_t used = 0;
    *out = '\0';
    int min = rq->gpus < rq->gpus_per_server ? rq->gpus : rq->gpus_per_server;
    const char *form = form_factor(o->catalog);
    if (o->gpus < min)
        used += (size_t)snprintf(out + used, cap - used, ", fewer GPUs an instance than %d", min);
    if (is_marketplace(o->provider) && used < cap)
        used += (size_t)snprintf(out + used, cap - used, ", a marketplace host's box");
    if (*b->form && *form && strcmp(form, b->form) != 0 && used < cap)
        snprintf(out + used, cap - used, ", %s against %s servers", form, b->form);
}

/* What the options are and why: the draft's rule when they are its picks, else each offer
 * chosen by hand with how it stands apart from that rule. */
static void offers_note(const gp_draft_request *rq, const draft_base *b, const gp_draft_offer *o,
                        int n, char *out, size_t cap) {
    bool by_rule = true;
    for (int i = 0; i < n; i++)
        by_rule = by_rule && o[i].drafted;
    int min = rq->gpus < rq->gpus_per_server ? rq->gpus : rq->gpus_per_server;
    const char *form = b->form;
    size_t used;
    if (by_rule)
        used = (size_t)snprintf(
            out, cap,
            "Cloud offers: the cheapest per GPU-hour as of %s of the same GPU%s%s%s with at least "
            "%d GPUs an instance, %s:",
            rq->as_of, *form ? " and form factor (" : "", form, *form ? ")" : "", min,
            rq->n_providers   ? "from the providers asked for"
            : rq->marketplace ? "marketplaces included"
                              : "hyperscalers and GPU clouds (marketplaces left out)");
    else
        used = (size_t)snprintf(out, cap, "Cloud offers: chosen by hand as of %s:", rq->as_of);
    for (int i = 0; i < n && used < cap; i++) {
        char why[160];
        apart(rq, b, &o[i], why, sizeof why);
        used +=
            (size_t)snprintf(out + used, cap - used, "%s \"%s\" (%g GPU%s an instance%s)",
                             i ? ";" : "", o[i].label, o[i].gpus, o[i].gpus == 1 ? "" : "s", why);
    }
    if (used < cap)
        snprintf(out + used, cap - used, ".");
}

/* A work-mode draft's side: the profile's unit and shape, the GPU's throughput and where it
 * comes from, and the month-1 GPUs the work needs. */
typedef struct work_side {
    char profile[GP_PROFILE_BYTES], unit[GP_WORK_UNIT_BYTES];
    double rho;
    char tp_note[GP_TP_SOURCE_BYTES + 64];
    int gpus;
    bool serving; /* decode or offline: its unit is generated tokens */
    int input_len, output_len;
} work_side;

static gp_status work_of(gp_session *ses, const gp_draft_request *rq, work_side *w, gp_err *err) {
    memset(w, 0, sizeof *w);
    gp_user_profile up;
    const gp_profile *p;
    if (!rq->profile)
        return gp_errorf(err, GP_E_INPUT, "scenario draft", "work mode needs a profile");
    if (gp_profile_resolve(ses, rq->profile, &up, &p, err))
        return err->code;
    bool user = p == &up.p;
    snprintf(w->profile, sizeof w->profile, "%s", user ? rq->profile : p->name);
    snprintf(w->unit, sizeof w->unit, "%s", user ? "M tokens" : p->unit);
    if (p->wl) {
        w->serving = p->wl->phase == GP_WL_DECODE || p->wl->phase == GP_WL_OFFLINE;
        w->input_len = p->wl->input_len;
        w->output_len = p->wl->output_len;
    }
    char gpu[GP_GPU_NAME_BYTES];
    gp_gpu_normalize(rq->gpu, 0, gpu, sizeof gpu);
    gp_tp_list tl;
    if (gp_throughput_list(ses, w->profile, gpu, &tl, err))
        return err->code;
    const gp_throughput *t = gp_tp_effective(&tl, gpu, w->profile);
    if (t) {
        w->rho = t->value;
        snprintf(w->tp_note, sizeof w->tp_note, "%g %s a GPU-hour (%s: %s)", t->value, w->unit,
                 gp_tp_kind_name(t->kind), t->source);
    }
    gp_tp_list_done(&tl);
    if (!(w->rho > 0))
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "no throughput for %s on profile %s (see gpuplan throughput list)", gpu,
                         w->profile);
    double n = ceil(rq->work_per_month / (GP_MONTH_HOURS * rq->utilization * w->rho) - 1e-9);
    w->gpus = n < 1 ? 1 : n > 1000000 ? 1000000 : (int)n;
    return GP_OK;
}

/* The API option of rq->api priced from the catalog (in the scenario's currency cur), and
 * what it is priced from into note. */
static gp_status api_option(gp_session *ses, gp_store *st, const gp_draft_request *rq,
                            const work_side *w, const char *cur, cJSON **opt, char *note,
                            size_t cap, gp_err *err) {
    if (!w->serving)
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "--api: profile %s does not count generated tokens (an API is priced "
                         "a M output tokens: give a decode or offline profile)",
                         w->profile);
    /* The whole name as a model first (a model's name may hold a '/'), else PROVIDER/MODEL. */
    gp_api_price a;
    gp_err e;
    gp_status rc = gp_api_price_in_force(ses, rq->api, NULL, rq->as_of, &a, &e);
    const char *slash = strchr(rq->api, '/');
    if (rc == GP_E_NOTFOUND && slash) {
        char provider[GP_API_NAME_BYTES];
        snprintf(provider, sizeof provider, "%.*s", (int)(slash - rq->api), rq->api);
        rc = gp_api_price_in_force(ses, slash + 1, provider, rq->as_of, &a, &e);
    }
    if (rc == GP_E_NOTFOUND)
        return gp_errorf(err, GP_E_INPUT, "scenario draft", "--api %s: %s", rq->api, e.msg);
    if (rc)
        return *err = e, err->code;
    gp_fx_quote fx = {.rate = 1};
    if (strcmp(a.currency, cur) != 0 &&
        gp_store_fx_convert(st, a.currency, cur, rq->as_of, &fx, &e))
        return e.code == GP_E_NOTFOUND
                   ? gp_errorf(err, GP_E_INPUT, "scenario draft", "--api %s: %s", rq->api, e.msg)
                   : (*err = e, err->code);
    double ratio = w->output_len > 0 ? (double)w->input_len / w->output_len : 0.0;
    char name[200];
    snprintf(name, sizeof name, "%s %s API", a.provider, a.model);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "pricing", "per_unit");
    cJSON_AddNumberToObject(o, "price_per_unit", a.output_per_m * fx.rate);
    if (ratio > 0 && a.input_per_m > 0) {
        cJSON_AddNumberToObject(o, "price_per_input_unit", a.input_per_m * fx.rate);
        cJSON_AddNumberToObject(o, "input_units_per_unit", ratio);
    }
    *opt = o;
    char conv[160] = "";
    if (fx.rate != 1)
        snprintf(conv, sizeof conv, ", converted at %.6g %s per %s (%s)", fx.rate, cur, a.currency,
                 fx.date);
    snprintf(note, cap,
             " API \"%s\": %s at %s, %g %s a M output tokens and %g a M input tokens%s (catalog, "
             "from %s: %s); %g input tokens an output token (profile %s: %d prompt and %d "
             "generated tokens); billed per unit of work, no hardware, no idle time.",
             name, a.model, a.provider, a.output_per_m, a.currency, a.input_per_m, conv,
             a.effective_from, a.source, ratio, w->profile, w->input_len, w->output_len);
    return GP_OK;
}

/* One draft as it is built: the request (sized by the work, in work mode), the servers, the
 * options, the currency, and the commitment plan and spot option the notes describe. */
typedef struct draft {
    const gp_draft_request *rq;
    bool work;
    work_side ws;
    draft_base b;
    gp_draft_offer *offers; /* the caller's to free */
    int n_offers;
    const char *cur; /* the scenario's currency */
    gp_fx_quote fx;  /* cur per USD */
    char fx_note[600];
    double base_w, idle_w, pue;
    int last, peak, base;        /* GPUs: the last month's demand, the peak, a commitment's base */
    const gp_draft_offer *burst; /* what a committed base bursts to, or NULL */
    bool based;                  /* some committed option commits a base */
    double spot_rate;            /* interruptions a month a stated spot option is priced at */
    const gp_draft_offer *spot;  /* the first spot option, or NULL */
} draft;

/* Whether offer o is one of the rule's picks (same entry, pricing and commitment). */
static bool picked(const pick picks[3], const gp_draft_offer *o) {
    for (int k = 0; k < 3; k++)
        if (picks[k].found && !strcmp(picks[k].o.catalog, o->catalog) &&
            picks[k].o.pricing == o->pricing && picks[k].o.term_months == o->term_months &&
            picks[k].o.purchase == o->purchase)
            return true;
    return false;
}

/* The options: chosen by hand, else the rule's picks; either way marked by the rule. */
static gp_status choose_offers(gp_store *st, draft *d, gp_err *err) {
    const gp_draft_request *rq = d->rq;
    pick picks[3] = {{0}};
    if (pick_offers(st, rq, d->b.gpu, d->b.form, picks, err))
        return err->code;
    d->offers = gp_xcalloc((size_t)(rq->n_offers > 3 ? rq->n_offers : 3), sizeof *d->offers);
    for (int i = 0; i < rq->n_offers; i++) {
        d->offers[d->n_offers] = rq->offers[i];
        d->offers[d->n_offers].drafted = picked(picks, &rq->offers[i]);
        d->n_offers++;
    }
    for (int k = 0; k < 3 && rq->n_offers <= 0; k++)
        if (picks[k].found)
            d->offers[d->n_offers++] = picks[k].o;
    if (d->n_offers)
        return GP_OK;
    const char *prefix = rq->region_prefix;
    return gp_errorf(err, GP_E_INPUT, "scenario draft",
                     "no %s offer with %s%s%s and at least %d GPUs an instance in the catalog "
                     "(see gpuplan pricing list)",
                     *d->b.form ? d->b.form : "whole-GPU", d->b.gpu, prefix ? " in regions " : "",
                     prefix ? prefix : "",
                     rq->gpus < rq->gpus_per_server ? rq->gpus : rq->gpus_per_server);
}

/* 2.1: the catalog's USD inputs in the scenario's currency, at the rate in force on as_of. */
static gp_status draft_currency(gp_store *st, draft *d, gp_err *err) {
    const gp_draft_request *rq = d->rq;
    d->cur = rq->currency && *rq->currency ? rq->currency : "USD";
    d->fx = (gp_fx_quote){.rate = 1};
    if (strcmp(d->cur, "USD") == 0)
        return GP_OK;
    gp_err q;
    if (gp_store_fx_convert(st, "USD", d->cur, rq->as_of, &d->fx, &q)) {
        if (q.code != GP_E_NOTFOUND)
            return *err = q, err->code;
        return gp_errorf(err, GP_E_INPUT, "scenario draft", "--currency %s: %s", d->cur, q.msg);
    }
    snprintf(d->fx_note, sizeof d->fx_note,
             " Money in %s: the catalog's purchase price and electricity (in USD) converted "
             "at %.6g %s per USD, the rate of %s (%s); cloud offers are converted when the "
             "plan is reported, at the rate in force on its as_of.",
             d->cur, d->fx.rate, d->cur, d->fx.date, d->fx.source);
    return GP_OK;
}

/* The power figures not taken from the catalog, where the request leaves them to the draft. */
static void draft_power(draft *d) {
    const gp_draft_request *rq = d->rq;
    d->base_w = rq->server_base_w, d->idle_w = rq->gpu_idle_w, d->pue = rq->pue;
    if (d->base_w < 0) /* CPUs, memory, NICs, fans of an 8-GPU server */
        d->base_w = 1500.0 * rq->gpus_per_server / 8;
    if (d->idle_w < 0)
        d->idle_w = 0.15 * d->b.spec.v[GP_SPEC_TDP_W];
    if (d->pue == 0)
        d->pue = 1.56; /* Uptime Institute 2024 survey average (pricing pue) */
}

/* A growing plan (or a share asked for) commits a base and bursts to the on-demand option
 * drafted (else spot) instead of committing the largest demand of each term. */
static void plan_commitment(draft *d) {
    const gp_draft_request *rq = d->rq;
    int gpus = rq->gpus;
    d->last = (int)ceil(gpus * pow(1 + rq->growth, rq->horizon_months - 1) - 1e-9);
    d->peak = d->last > gpus ? d->last : gpus;
    d->base = rq->commit_share > 0 ? (int)ceil(rq->commit_share * d->peak - 1e-9) : gpus;
    if (d->base < 1)
        d->base = 1;
    bool want_base = rq->growth != 0 || rq->commit_share > 0;
    d->burst = NULL;
    for (int i = 0; i < d->n_offers && want_base && !d->burst; i++)
        if (d->offers[i].pricing == GP_ON_DEMAND)
            d->burst = &d->offers[i];
    for (int i = 0; i < d->n_offers && want_base && !d->burst; i++)
        if (d->offers[i].pricing == GP_SPOT)
            d->burst = &d->offers[i];
}

/* The document's head: its name, currency, horizon, the notes (filled last) and the demand. */
static cJSON *draft_head(const draft *d, cJSON **notes) {
    const gp_draft_request *rq = d->rq;
    const char *prefix = rq->region_prefix;
    cJSON *doc = cJSON_CreateObject();
    char title[200];
    if (d->work)
        snprintf(title, sizeof title, "%g %s a month of %s on %s: own%s%s%s", rq->work_per_month,
                 d->ws.unit, d->ws.profile, d->b.gpu, rq->api ? ", rent or API" : " or rent",
                 prefix ? " in " : "", prefix ? prefix : "");
    else
        snprintf(title, sizeof title, "%d x %s: own or rent%s%s", rq->gpus, d->b.gpu,
                 prefix ? " in " : "", prefix ? prefix : "");
    cJSON_AddStringToObject(doc, "name", rq->name ? rq->name : title);
    if (strcmp(d->cur, "USD") != 0)
        cJSON_AddStringToObject(doc, "currency", d->cur);
    cJSON_AddNumberToObject(doc, "horizon_months", rq->horizon_months);
    *notes = cJSON_AddStringToObject(doc, "notes", "");
    cJSON *dm = cJSON_AddObjectToObject(doc, "demand");
    if (d->work) {
        cJSON_AddNumberToObject(dm, "work_per_month", rq->work_per_month);
        cJSON_AddStringToObject(dm, "work_unit", d->ws.unit);
    } else {
        cJSON_AddNumberToObject(dm, "gpus", rq->gpus);
    }
    cJSON_AddNumberToObject(dm, "utilization", rq->utilization);
    if (rq->growth != 0)
        cJSON_AddNumberToObject(dm, "growth_per_month", rq->growth);
    return doc;
}

/* The servers: their price (the purchase price scaled to a server, in the scenario's
 * currency), power and tariff; what the electricity is into electricity. */
static gp_status add_self_hosted(gp_store *st, const draft *d, cJSON *doc, char *electricity,
                                 size_t cap, gp_err *err) {
    const gp_draft_request *rq = d->rq;
    const gp_hw_price *h = &d->b.hw.h;
    double server_price = h->price_usd / h->gpus * rq->gpus_per_server * d->fx.rate;
    cJSON *sh = cJSON_AddObjectToObject(doc, "self_hosted");
    cJSON_AddNumberToObject(sh, "gpus_per_server", rq->gpus_per_server);
    cJSON_AddNumberToObject(sh, "server_price", round(server_price * 100) / 100);
    if (rq->growth != 0) /* buy for the demand as it comes, not the last month's from the start */
        cJSON_AddStringToObject(sh, "buy", "as_needed");
    cJSON *pw = cJSON_AddObjectToObject(sh, "power");
    cJSON_AddNumberToObject(pw, "server_base_w", d->base_w);
    cJSON_AddNumberToObject(pw, "gpu_idle_w", d->idle_w);
    cJSON_AddNumberToObject(pw, "gpu_tdp_w", d->b.spec.v[GP_SPEC_TDP_W]);
    cJSON_AddNumberToObject(pw, "pue", d->pue);
    if (d->work)
        cJSON_AddNumberToObject(sh, "work_per_gpu_hour", d->ws.rho);
    return add_tariff(st, rq, d->fx.rate, sh, electricity, cap, err);
}

/* One cloud option of offer f; notes which is the spot option and whether a base is set. */
static cJSON *cloud_option(draft *d, const gp_draft_offer *f) {
    static const char *const purchase_names[] = {"no_upfront", "partial_upfront", "all_upfront"};
    const gp_draft_request *rq = d->rq;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", f->label);
    cJSON_AddStringToObject(o, "pricing", gp_pricing_name(f->pricing));
    cJSON_AddStringToObject(o, "catalog", f->catalog);
    if (f->pricing == GP_COMMITTED) {
        cJSON_AddNumberToObject(o, "term_months", f->term_months);
        cJSON_AddStringToObject(o, "purchase", purchase_names[f->purchase]);
        if (d->burst && d->base < d->peak) {
            cJSON_AddNumberToObject(o, "base_gpus", d->base);
            cJSON_AddStringToObject(o, "burst", d->burst->label);
            d->based = true;
        }
    }
    /* Spot with no band in the catalog is not free of interruptions: a stated rate. */
    if (f->pricing == GP_SPOT && (rq->spot_interruptions >= 0 || !*f->band)) {
        cJSON_AddNumberToObject(o, "interruptions_per_hour", d->spot_rate / GP_MONTH_HOURS);
        if (!d->spot)
            d->spot = f;
    } else if (f->pricing == GP_SPOT && !d->spot) {
        d->spot = f;
    }
    if (d->work)
        cJSON_AddNumberToObject(o, "work_per_gpu_hour", d->ws.rho);
    return o;
}

/* What spot is priced at, "" when the draft has no spot option. */
static void spot_note(const draft *d, char *out, size_t cap) {
    *out = '\0';
    if (!d->spot)
        return;
    char pct[32];
    gp_fmt_pct(d->spot_rate, pct, sizeof pct);
    if (d->rq->spot_interruptions >= 0)
        snprintf(out, cap,
                 " Spot: priced at %s %% of instances interrupted a month "
                 "(--spot-interruptions).",
                 pct);
    else if (*d->spot->band)
        snprintf(out, cap, " Spot: interruptions from the catalog's band %s a month.",
                 d->spot->band);
    else
        snprintf(out, cap,
                 " Spot: the catalog gives no interruption band, so the draft's default of "
                 "%s %% of instances interrupted a month (the middle of AWS Spot Advisor's "
                 "bands; --spot-interruptions to change it); spot capacity can be reclaimed.",
                 pct);
}

/* How demand grows and what a commitment's base covers, "" for a steady plan with none. */
static void growth_note(const draft *d, char *out, size_t cap) {
    const gp_draft_request *rq = d->rq;
    *out = '\0';
    if (rq->growth != 0) {
        char g[32];
        gp_fmt_pct(rq->growth, g, sizeof g);
        int len =
            snprintf(out, cap,
                     " Demand grows %s %% a month, from %d GPUs in month 1 to %d in month "
                     "%d; servers are bought as needed (each batch valued at the end on "
                     "the straight line to residual_pct, 0 unless given, over depreciation_years)",
                     g, rq->gpus, d->last, rq->horizon_months);
        if (len > 0 && (size_t)len < cap)
            snprintf(out + len, cap - (size_t)len, ".");
    }
    if (d->based) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len,
                 " The commitment covers a base of %d GPUs (%s) and bursts to \"%s\" above it.",
                 d->base,
                 rq->commit_share > 0 ? "the share of the peak asked for" : "month 1's demand",
                 d->burst->label);
    }
}

/* The notes: every input, where it comes from, and every assumption not from the catalog. */
static void draft_notes(const draft *d, const char *electricity, const char *api_note, char *text,
                        size_t cap) {
    const gp_draft_request *rq = d->rq;
    char work_note[GP_TP_SOURCE_BYTES + 300] = "";
    if (d->work)
        snprintf(work_note, sizeof work_note,
                 " Work: %g %s a month (profile %s); %s and every offer of it do %s, so month 1 "
                 "needs %d GPUs at utilization %g.",
                 rq->work_per_month, d->ws.unit, d->ws.profile, d->b.gpu, d->ws.tp_note, rq->gpus,
                 rq->utilization);
    char zeros[512];
    size_t nz = 0;
    for (int i = 0; i < GP_N_ZERO_COSTS; i++)
        nz += (size_t)snprintf(zeros + nz, sizeof zeros - nz, "%s%s (%s)", i ? ", " : "",
                               gp_zero_costs[i].label, gp_zero_costs[i].key);
    char spot[400], growth[600], cloud[1600];
    spot_note(d, spot, sizeof spot);
    growth_note(d, growth, sizeof growth);
    offers_note(rq, &d->b, d->offers, d->n_offers, cloud, sizeof cloud);
    const hw_pick *hw = &d->b.hw;
    snprintf(text, cap,
             "Drafted by gpuplan on %s. Server price: %s (%s, %s) scaled to %d GPUs a server. "
             "GPU busy draw: TDP %g W (%s). Electricity: %s. Assumed, not from the catalog: idle "
             "draw %g W a GPU, %g W a server besides its GPUs, PUE %g%s. Not given, so 0: %s. "
             "Rented GPUs are billed for busy hours only (utilization "
             "%g, times each option's idle overhead).%s%s %s%s%s%s",
             rq->as_of, hw->h.item, hw->h.date, hw->source, rq->gpus_per_server,
             d->b.spec.v[GP_SPEC_TDP_W], d->b.spec.full_name, electricity, d->idle_w, d->base_w,
             d->pue, d->pue == 1.56 ? " (Uptime 2024 average)" : "", zeros, rq->utilization,
             work_note, growth, cloud, spot, api_note, d->fx_note);
}

/* The scenario of draft d, its servers and options chosen, into *out. */
static gp_status draft_doc(gp_session *ses, gp_store *st, draft *d, cJSON **out, gp_err *err) {
    const gp_draft_request *rq = d->rq;
    if (draft_currency(st, d, err))
        return err->code;
    draft_power(d);
    cJSON *notes;
    cJSON *doc = draft_head(d, &notes);
    char electricity[256];
    if (add_self_hosted(st, d, doc, electricity, sizeof electricity, err)) {
        cJSON_Delete(doc);
        return err->code;
    }
    plan_commitment(d);
    d->spot_rate =
        rq->spot_interruptions >= 0 ? rq->spot_interruptions : GP_DRAFT_SPOT_INTERRUPTIONS;
    cJSON *opts = cJSON_AddArrayToObject(doc, "cloud_options");
    for (int k = 0; k < d->n_offers; k++)
        cJSON_AddItemToArray(opts, cloud_option(d, &d->offers[k]));
    char api_note[1200] = "";
    if (rq->api) {
        cJSON *o = NULL;
        if (api_option(ses, st, rq, &d->ws, d->cur, &o, api_note, sizeof api_note, err)) {
            cJSON_Delete(doc);
            return err->code;
        }
        cJSON_AddItemToArray(opts, o);
    }
    char text[8192];
    draft_notes(d, electricity, api_note, text, sizeof text);
    cJSON_SetValuestring(notes, text);
    *out = doc;
    return GP_OK;
}

gp_status gp_draft(gp_session *ses, const gp_draft_request *rq, cJSON **out, gp_err *err) {
    *out = NULL;
    gp_store *st;
    if (gp_session_catalog(ses, &st, err))
        return err->code;
    if (rq->api && !(rq->work_per_month > 0))
        return gp_errorf(err, GP_E_INPUT, "scenario draft",
                         "--api prices work: a work-mode draft (--work and --profile) only");
    draft *d = gp_xcalloc(1, sizeof *d);
    /* Work mode: the month-1 GPUs the work needs size the offers, as --gpus does. */
    gp_draft_request wrq;
    d->work = rq->work_per_month > 0;
    if (d->work) {
        if (work_of(ses, rq, &d->ws, err)) {
            free(d);
            return err->code;
        }
        wrq = *rq;
        wrq.gpus = d->ws.gpus;
        rq = &wrq;
    }
    d->rq = rq;
    gp_status rc = GP_OK;
    if (draft_base_of(st, rq, &d->b, err) || choose_offers(st, d, err) ||
        draft_doc(ses, st, d, out, err))
        rc = err->code;
    free(d->offers);
    free(d);
    return rc;
}
