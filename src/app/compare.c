/* Comparing GPU generations per unit of work (app_compare.h). */
#define _GNU_SOURCE /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_compare.h"
#include "gpuplan/app_pricing.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/reference.h"
#include "gpuplan/scenario.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"
#include "gpuplan/xmem.h"

/* What the catalog does not know about owned servers, as `scenario draft` assumes it. */
#define PER_SERVER 8    /* GPUs an owned server holds where the hardware table does not say */
#define BASE_W 1500.0   /* CPUs, memory, NICs, fans of an 8-GPU server */
#define IDLE_SHARE 0.15 /* idle draw, share of TDP */
#define PUE 1.56        /* Uptime Institute 2024 survey average */

/* The cheapest offer a GPU-hour of one (GPU, provider, pricing kind). */
typedef struct pick {
    char gpu[GP_GPU_NAME_BYTES], provider[16], catalog[300], date[11];
    gp_pricing pricing;
    int term;
    gp_purchase purchase;
} pick;

/* One GPU model: its spec, its purchase price, its throughput, its owned total. */
typedef struct model {
    char gpu[GP_GPU_NAME_BYTES];
    bool has_spec, has_hw, owned;
    gp_gpu_spec spec;
    gp_hw_price hw; /* the price row chosen (for a median of several: the first of them) */
    char hw_source[256];
    gp_hw_price prices[32]; /* the catalog's prices up to as_of of the spec's form factor */
    int n_prices;
    double server_price;  /* an 8-GPU server as the rule prices it */
    char price_rule[200]; /* the rule in words, for the offer column and the notes */
    const gp_throughput *tp;
    const char *as_of; /* purchase prices dated up to then */
    double own_total;
    int n_picks;
    int per_server; /* GPUs an owned server holds: the workload hardware table's, else 8 */
    int replica;    /* GPUs one replica of the profile's model spans (tensor parallel), 1 or more */
    int n_small;    /* offers left out: their instance holds fewer GPUs than a replica */
} model;

typedef struct ctx {
    gp_session *ses;
    gp_store *st;
    const gp_compare_request *rq;
    const gp_profile *p;
    gp_user_profile up; /* the profile when it is a user's */
    gp_tp_list tl;
    pick *picks;
    int n_picks, cap_picks;
    model *models;
    int n_models, cap_models;
    gp_comparison *out;
    int cap_rows;
    gp_result *r;
    cJSON *tariff;         /* the preset's tariff object, or NULL */
    gp_api_price apis[32]; /* the API prices in force for the profile's model, one a provider */
    int n_apis;
} ctx;

/* The form factor a name states, "" when none (as `scenario draft` reads it). */
static const char *form_factor(const char *name) {
    return strcasestr(name, "pcie")  ? "pcie"
           : strcasestr(name, "nvl") ? "nvl"
           : strcasestr(name, "sxm") ? "sxm"
                                     : "";
}

/* The GPUs one replica of p's model spans on gpu: the estimate's tensor-parallel width for a
 * workload profile that fits, else 1. A rented instance must hold a whole replica: the model
 * splits a model across the GPUs of one server, never across instances. */
static int replica_gpus(const gp_profile *p, const char *gpu) {
    const gp_wl_hw *h = p->wl ? gp_wl_hw_find(gpu) : NULL;
    if (!h)
        return 1;
    gp_wl_estimate e;
    gp_wl_estimate_on(p->wl, h, &e);
    return e.fits && e.tp > 1 ? e.tp : 1;
}

static model *find_model(ctx *c, const char *gpu, bool add) {
    for (int i = 0; i < c->n_models; i++)
        if (strcmp(c->models[i].gpu, gpu) == 0)
            return &c->models[i];
    if (!add)
        return NULL;
    if (c->n_models == c->cap_models) {
        c->cap_models = c->cap_models ? 2 * c->cap_models : 32;
        c->models = gp_xrealloc(c->models, (size_t)c->cap_models * sizeof *c->models);
    }
    model *m = &c->models[c->n_models++];
    memset(m, 0, sizeof *m);
    snprintf(m->gpu, sizeof m->gpu, "%s", gpu);
    m->as_of = c->rq->as_of;
    m->replica = replica_gpus(c->p, gpu);
    const gp_wl_hw *h = gp_wl_hw_find(gpu);
    m->per_server = h && h->per_server > 0 ? h->per_server : PER_SERVER;
    return m;
}

static int take_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    (void)source;
    model *m = arg;
    if (strcmp(g->name, m->gpu) != 0)
        return 0;
    m->spec = *g;
    m->has_spec = true;
    return 1;
}

/* Every purchase price of m up to as_of whose item states no other form factor than the
 * spec's (an SXM spec is not priced by PCIe cards). */
static int take_hw(const gp_hw_price *h, const char *source, void *arg) {
    model *m = arg;
    if (h->gpus < 1 || strcmp(h->gpu, m->gpu) != 0 || strcmp(h->date, m->as_of) > 0 ||
        !(h->price_usd > 0))
        return 0;
    const char *want = m->has_spec ? form_factor(m->spec.full_name) : "";
    const char *form = form_factor(h->item);
    if (*want && *form && strcmp(want, form) != 0)
        return 0;
    if (m->n_prices < (int)(sizeof m->prices / sizeof m->prices[0]))
        m->prices[m->n_prices++] = *h;
    snprintf(m->hw_source, sizeof m->hw_source, "%s", source);
    return 0;
}

static int by_per_gpu(const void *a, const void *b) {
    const gp_hw_price *x = a, *y = b;
    double u = x->price_usd / x->gpus, v = y->price_usd / y->gpus;
    return u < v ? -1 : u > v;
}

/* The rule (docs/compare.md "Owned servers"): node prices (rows buying more than one GPU)
 * before GPU prices; of those, the newest date; of several that date, the median price a GPU
 * (the mean of the middle two for an even count). A node is scaled to 8 GPUs; GPU prices are
 * x 8 x the server overhead; both x the network share. */
static void price_server(const ctx *c, model *m) {
    bool nodes = false;
    for (int i = 0; i < m->n_prices; i++)
        nodes |= m->prices[i].gpus > 1;
    const char *newest = NULL;
    for (int i = 0; i < m->n_prices; i++)
        if ((m->prices[i].gpus > 1) == nodes && (!newest || strcmp(m->prices[i].date, newest) > 0))
            newest = m->prices[i].date;
    if (!newest)
        return;
    gp_hw_price same[32];
    int n = 0;
    for (int i = 0; i < m->n_prices; i++)
        if ((m->prices[i].gpus > 1) == nodes && strcmp(m->prices[i].date, newest) == 0)
            same[n++] = m->prices[i];
    qsort(same, (size_t)n, sizeof *same, by_per_gpu);
    double per_gpu = n % 2 ? same[n / 2].price_usd / same[n / 2].gpus
                           : (same[n / 2 - 1].price_usd / same[n / 2 - 1].gpus +
                              same[n / 2].price_usd / same[n / 2].gpus) /
                                 2;
    m->hw = same[n / 2];
    m->has_hw = true;
    double server = per_gpu * m->per_server * (nodes ? 1.0 : c->rq->server_overhead);
    m->server_price = round(server * c->rq->network_share * 100) / 100;
    char which[96];
    if (n == 1)
        snprintf(which, sizeof which, "%s", same[0].item);
    else
        snprintf(which, sizeof which, "median of %d prices", n);
    if (nodes)
        snprintf(m->price_rule, sizeof m->price_rule, "node: %s, %.0f a GPU x %d x %g network",
                 which, per_gpu, m->per_server, c->rq->network_share);
    else
        snprintf(m->price_rule, sizeof m->price_rule,
                 "%d x %s, %.0f a GPU x %g server x %g network", m->per_server, which, per_gpu,
                 c->rq->server_overhead, c->rq->network_share);
}

static bool provider_wanted(const gp_compare_request *rq, const char *provider) {
    if (!rq->n_providers)
        return true;
    for (int i = 0; i < rq->n_providers; i++)
        if (strcmp(rq->providers[i], provider) == 0)
            return true;
    return false;
}

/* Offers come cheapest a GPU-hour first: keep the first of each (GPU, provider, kind) that a
 * scenario can reference, of the spec's form factor where both state one. */
static int take_offer(const gp_offer_price *o, void *arg) {
    ctx *c = arg;
    if (o->gpu_count != floor(o->gpu_count) || o->gpu_count < 1 || o->gpu_count > 576 ||
        strcmp(o->currency, "USD") != 0 || !provider_wanted(c->rq, o->provider) ||
        (c->rq->region && strcmp(o->region, c->rq->region) != 0))
        return 0;
    for (int i = 0; i < c->n_picks; i++)
        if (c->picks[i].pricing == o->pricing && strcmp(c->picks[i].gpu, o->gpu) == 0 &&
            strcmp(c->picks[i].provider, o->provider) == 0)
            return 0;
    model *m = find_model(c, o->gpu, true);
    if (o->gpu_count < m->replica) {
        m->n_small++;
        return 0;
    }
    const char *want = m->has_spec ? form_factor(m->spec.full_name) : "";
    const char *form = form_factor(o->instance);
    if (*want && *form && strcmp(want, form) != 0)
        return 0;
    if (c->n_picks == c->cap_picks) {
        c->cap_picks = c->cap_picks ? 2 * c->cap_picks : 64;
        c->picks = gp_xrealloc(c->picks, (size_t)c->cap_picks * sizeof *c->picks);
    }
    pick *p = &c->picks[c->n_picks++];
    snprintf(p->gpu, sizeof p->gpu, "%s", o->gpu);
    snprintf(p->provider, sizeof p->provider, "%s", o->provider);
    snprintf(p->catalog, sizeof p->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    snprintf(p->date, sizeof p->date, "%s", o->effective_from);
    p->pricing = o->pricing;
    p->term = o->term_months;
    p->purchase = o->purchase;
    m->n_picks++;
    return 0;
}

/* The API prices in force for the profile's model: one a provider (the store gives each
 * (provider, model)'s latest row), of the providers asked for. */
static int take_api(const gp_api_price *p, int history, void *arg) {
    (void)history;
    ctx *c = arg;
    if (provider_wanted(c->rq, p->provider) &&
        c->n_apis < (int)(sizeof c->apis / sizeof c->apis[0]))
        c->apis[c->n_apis++] = *p;
    return 0;
}

/* Every GPU model with a throughput for the profile or an offer, with its spec and price. */
static gp_status gather(ctx *c, gp_err *err) {
    if (gp_throughput_list(c->ses, c->p->name, NULL, &c->tl, err) ||
        gp_session_catalog(c->ses, &c->st, err))
        return err->code;
    for (int i = 0; i < c->tl.n; i++)
        find_model(c, c->tl.rows[i].gpu, true);
    for (int i = 0; i < c->n_models; i++) /* specs first: offers check the form factor */
        if (gp_store_specs(c->st, c->models[i].gpu, take_spec, &c->models[i], err))
            return err->code;
    static const gp_pricing kinds[3] = {GP_ON_DEMAND, GP_SPOT, GP_COMMITTED};
    for (int k = 0; k < 3; k++) {
        gp_offer_filter f = {.pricing = kinds[k], .as_of = c->rq->as_of, .sort = GP_SORT_GPU_HOUR};
        if (gp_store_catalog_list(c->st, &f, take_offer, c, err))
            return err->code;
    }
    const gp_workload *wl = c->p->wl;
    if (wl && wl->api_model[0] && (wl->phase == GP_WL_DECODE || wl->phase == GP_WL_OFFLINE) &&
        gp_pricing_api_list(c->ses, c->rq->as_of, NULL, wl->api_model, take_api, c, err))
        return err->code;
    for (int k = 0; k < c->rq->n_providers; k++) {
        bool any = false;
        for (int i = 0; i < c->n_picks && !any; i++)
            any = strcmp(c->picks[i].provider, c->rq->providers[k]) == 0;
        for (int i = 0; i < c->n_apis && !any; i++)
            any = strcmp(c->apis[i].provider, c->rq->providers[k]) == 0;
        if (!any)
            return gp_errorf(err, GP_E_INPUT, "--provider",
                             "no offer from \"%s\" in the catalog as of %s (see gpuplan pricing "
                             "list)",
                             c->rq->providers[k], c->rq->as_of);
    }
    for (int i = 0; i < c->n_models; i++) {
        model *m = &c->models[i];
        m->tp = gp_tp_effective(&c->tl, m->gpu, c->p->name);
        if ((!m->has_spec && gp_store_specs(c->st, m->gpu, take_spec, m, err)) ||
            gp_store_hardware(c->st, m->gpu, take_hw, m, err))
            return err->code;
        price_server(c, m);
    }
    return GP_OK;
}

static gp_compare_row *add_row(ctx *c, const char *gpu) {
    gp_comparison *o = c->out;
    if (o->n == c->cap_rows) {
        c->cap_rows = c->cap_rows ? 2 * c->cap_rows : 64;
        o->rows = gp_xrealloc(o->rows, (size_t)c->cap_rows * sizeof *o->rows);
    }
    gp_compare_row *row = &o->rows[o->n++];
    memset(row, 0, sizeof *row);
    snprintf(row->gpu, sizeof row->gpu, "%s", gpu);
    return row;
}

/* The self_hosted object of a scenario owning servers of m. */
static cJSON *self_hosted(const ctx *c, const model *m) {
    double tdp = m->spec.v[GP_SPEC_TDP_W];
    cJSON *sh = cJSON_CreateObject();
    cJSON_AddNumberToObject(sh, "gpus_per_server", m->per_server);
    cJSON_AddNumberToObject(sh, "server_price", m->server_price);
    cJSON *pw = cJSON_AddObjectToObject(sh, "power");
    cJSON_AddNumberToObject(pw, "server_base_w", BASE_W);
    cJSON_AddNumberToObject(pw, "gpu_idle_w", IDLE_SHARE * tdp);
    cJSON_AddNumberToObject(pw, "gpu_tdp_w", tdp);
    cJSON_AddNumberToObject(pw, "pue", PUE);
    if (c->tariff)
        cJSON_AddItemToObject(sh, "tariff", cJSON_Duplicate(c->tariff, true));
    cJSON_AddNumberToObject(sh, "work_per_gpu_hour", m->tp->value);
    return sh;
}

/* Where a candidate's figures come from, for its scenario's notes. */
static void notes(const ctx *c, const model *own, const model *rent, char *out, size_t cap) {
    int k = snprintf(out, cap,
                     "Drafted by gpuplan compare on %s for %g %s a month (profile %s). Owned: "
                     "%s servers of %d GPUs priced %s (%s, %s), TDP %g W (%s); "
                     "assumed idle draw 15 %% of TDP, %g W a server besides its GPUs, PUE %g; "
                     "tariff %s. Throughput %s %g %s a GPU-hour (%s: %s).",
                     c->rq->as_of, c->rq->work_per_month, c->p->unit, c->p->name, own->gpu,
                     own->per_server, own->price_rule, own->hw.date, own->hw_source,
                     own->spec.v[GP_SPEC_TDP_W], own->spec.full_name, BASE_W, PUE,
                     c->rq->tariff ? c->rq->tariff : "the model's default flat price", own->gpu,
                     own->tp->value, c->p->unit, gp_tp_kind_name(own->tp->kind), own->tp->source);
    if (rent && k > 0 && (size_t)k < cap)
        snprintf(out + k, cap - (size_t)k, " Rented: %s %g %s a GPU-hour (%s: %s).", rent->gpu,
                 rent->tp->value, c->p->unit, gp_tp_kind_name(rent->tp->kind), rent->tp->source);
}

static const char *const purchase_names[] = {"no_upfront", "partial_upfront", "all_upfront"};

/* The scenario of a candidate: owning own, and renting pk of rent when pk is given. */
static cJSON *build_doc(const ctx *c, const model *own, const model *rent, const pick *pk) {
    const gp_compare_request *rq = c->rq;
    cJSON *doc = cJSON_CreateObject();
    char name[400];
    if (pk)
        snprintf(name, sizeof name, "%s %s %s against owning %s", pk->gpu, pk->provider,
                 gp_pricing_name(pk->pricing), own->gpu);
    else
        snprintf(name, sizeof name, "own %s", own->gpu);
    cJSON_AddStringToObject(doc, "name", name);
    cJSON_AddNumberToObject(doc, "horizon_months", rq->horizon_months);
    char text[4096];
    notes(c, own, pk ? rent : NULL, text, sizeof text);
    cJSON_AddStringToObject(doc, "notes", text);
    cJSON *d = cJSON_AddObjectToObject(doc, "demand");
    cJSON_AddNumberToObject(d, "work_per_month", rq->work_per_month);
    cJSON_AddStringToObject(d, "work_unit", c->p->unit);
    cJSON_AddNumberToObject(d, "utilization", rq->utilization);
    cJSON_AddNumberToObject(d, "growth_per_month", rq->growth_per_month);
    cJSON_AddItemToObject(doc, "self_hosted", self_hosted(c, own));
    if (!pk)
        return doc;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", pk->catalog);
    cJSON_AddStringToObject(o, "pricing", gp_pricing_name(pk->pricing));
    cJSON_AddStringToObject(o, "catalog", pk->catalog);
    if (pk->pricing == GP_COMMITTED) {
        cJSON_AddNumberToObject(o, "term_months", pk->term);
        cJSON_AddStringToObject(o, "purchase", purchase_names[pk->purchase]);
    }
    cJSON_AddNumberToObject(o, "work_per_gpu_hour", rent->tp->value);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "cloud_options"), o);
    return doc;
}

/* The most GPUs a side of throughput rho needs in any month (docs/model.md "Demand"). */
static int gpus_needed(const gp_result *r, double rho) {
    int most = 0;
    for (int j = 0; j < r->horizon_months; j++) {
        double u = r->demand_utilization[j], q = r->demand_work_month[j] / rho;
        if (u <= 0 || q <= 0)
            continue;
        double n = ceil(q / (GP_MONTH_HOURS * u) - 1e-9);
        if (n > most)
            most = (int)n;
    }
    return most;
}

/* The inputs the engine used, for the workbook (compare.h). */
static void resolved_inputs(ctx *c, gp_compare_row *row, const gp_scenario *s, const model *m) {
    snprintf(row->tp_source, sizeof row->tp_source, "%s", m->tp->source);
    row->gpus_per_server = s->gpus_per_server;
    row->server_price = s->server_price;
    row->server_base_w = s->server_base_w;
    row->gpu_idle_w = s->gpu_idle_w;
    row->gpu_tdp_w = s->gpu_tdp_w;
    row->pue = s->pue;
    if (s->n_options > 0) {
        const gp_option *o = &s->options[0];
        row->gpus_per_instance = o->gpus_per_instance;
        row->term_months = o->pricing == GP_COMMITTED ? o->term_months : 0;
        row->hourly = o->hourly;
        row->upfront = o->upfront;
        row->interruptions_per_hour = o->pricing == GP_SPOT ? o->interruptions_per_hour : 0;
        row->checkpoint_interval_h = o->checkpoint_interval_h;
        row->restart_h = o->restart_h;
    }
    gp_comparison *out = c->out;
    double day = 0.0;
    for (int k = 0; k < s->n_periods; k++)
        day += s->periods[k].hours_per_day * s->periods[k].price_per_kwh;
    out->price_per_kwh = day / 24.0;
    out->demand_charge_per_kw_month = s->demand_charge_per_kw_month;
    out->energy_trend_per_year = s->energy_price_trend_per_year;
    out->shift_to_cheapest = s->shift_to_cheapest && s->n_periods > 1;
}

/* One engine call: row gets the candidate's total and break-even, or why it has none. m: the
 * GPU model whose figures the row uses (NULL for an API row). False when not evaluated. */
static bool run_engine(ctx *c, gp_compare_row *row, cJSON *doc, const model *m) {
    gp_err err;
    gp_err_clear(&err);
    gp_loaded ld;
    row->doc = doc;
    if (gp_load_scenario_doc(c->ses, doc, row->api ? row->offer : row->gpu, c->rq->as_of, &ld,
                             &err) ||
        gp_evaluate(&ld, c->r, &err)) {
        snprintf(row->missing, sizeof row->missing, "not evaluated: %s", err.msg);
        cJSON_Delete(doc);
        row->doc = NULL;
        gp_loaded_done(&ld);
        return false;
    }
    if (m)
        resolved_inputs(c, row, ld.s, m);
    gp_loaded_done(&ld);
    return true;
}

static void evaluate(ctx *c, gp_compare_row *row, cJSON *doc, const model *m) {
    if (!run_engine(c, row, doc, m))
        return;
    const gp_result *r = c->r;
    row->throughput = m->tp->value;
    row->tp_kind = m->tp->kind;
    row->gpus_needed = gpus_needed(r, m->tp->value);
    if (row->own) {
        row->total = r->self.total;
    } else {
        row->total = r->options[0].total;
        row->has_break_even = r->options[0].has_break_even_month;
        row->break_even_month = r->options[0].break_even_month;
    }
    row->cost_per_unit = r->demand_work > 0 ? row->total / r->demand_work : 0;
    c->out->work = r->demand_work;
}

static void own_rows(ctx *c) {
    for (int i = 0; i < c->n_models; i++) {
        model *m = &c->models[i];
        if (!m->tp || !m->has_hw)
            continue;
        gp_compare_row *row = add_row(c, m->gpu);
        row->own = true;
        snprintf(row->pricing, sizeof row->pricing, "own");
        snprintf(row->offer, sizeof row->offer, "%s", m->price_rule);
        snprintf(row->price_date, sizeof row->price_date, "%s", m->hw.date);
        if (!m->has_spec || !m->spec.has[GP_SPEC_TDP_W]) {
            snprintf(row->missing, sizeof row->missing,
                     "own: no TDP in the spec to price its power (see gpuplan pricing gpus)");
            continue;
        }
        evaluate(c, row, build_doc(c, m, NULL, NULL), m);
        m->owned = !row->missing[0];
        m->own_total = row->total;
    }
}

/* The owned GPU model a rented candidate of m is set against: m itself when owned, else the
 * one owned at the lowest total. */
static const model *owning_for(const ctx *c, const model *m) {
    if (m && m->owned)
        return m;
    const model *best = NULL;
    for (int i = 0; i < c->n_models; i++) {
        const model *o = &c->models[i];
        if (o->owned && (!best || o->own_total < best->own_total))
            best = o;
    }
    return best;
}

static void rent_rows(ctx *c) {
    for (int i = 0; i < c->n_picks; i++) {
        const pick *pk = &c->picks[i];
        model *m = find_model(c, pk->gpu, false);
        if (!m->tp)
            continue;
        gp_compare_row *row = add_row(c, pk->gpu);
        snprintf(row->provider, sizeof row->provider, "%s", pk->provider);
        if (pk->pricing == GP_COMMITTED)
            snprintf(row->pricing, sizeof row->pricing, "committed %d months %s", pk->term,
                     purchase_names[pk->purchase]);
        else
            snprintf(row->pricing, sizeof row->pricing, "%s", gp_pricing_name(pk->pricing));
        snprintf(row->offer, sizeof row->offer, "%s", pk->catalog);
        snprintf(row->price_date, sizeof row->price_date, "%s", pk->date);
        const model *own = owning_for(c, m);
        if (!own) {
            snprintf(row->missing, sizeof row->missing,
                     "no GPU model with a purchase price to set it against");
            continue;
        }
        snprintf(row->vs_gpu, sizeof row->vs_gpu, "%s", own->gpu);
        evaluate(c, row, build_doc(c, own, m, pk), m);
        if (pk->pricing != GP_SPOT || row->missing[0])
            continue;
        /* The interruption assumption is the engine's (the offer's or the model's default). */
        snprintf(row->pricing, sizeof row->pricing, "spot, %g interruptions/h",
                 row->interruptions_per_hour);
        if (c->rq->horizon_months > GP_COMPARE_SPOT_MONTHS && !c->rq->spot &&
            !(c->rq->pricing && strcmp(c->rq->pricing, "spot") == 0))
            snprintf(row->missing, sizeof row->missing,
                     "spot (%g interruptions/h assumed, total %.0f): not ranked for a horizon "
                     "over %d months; --spot ranks it",
                     row->interruptions_per_hour, row->total, GP_COMPARE_SPOT_MONTHS);
    }
}

/* The input units an output unit of the profile: its prompt over its generated tokens (decode,
 * offline); 0 when it states no output length. */
static double input_ratio(const ctx *c) {
    const gp_workload *w = c->p->wl;
    return w && w->output_len > 0 ? (double)w->input_len / w->output_len : 0.0;
}

/* An API row's scenario: the owning of own (for the break-even) against one per_unit option,
 * the API's output price a unit of work and its input price through the profile's ratio. */
static cJSON *api_doc(const ctx *c, const model *own, const gp_compare_row *row) {
    cJSON *doc = build_doc(c, own, NULL, NULL);
    char name[400];
    snprintf(name, sizeof name, "API %s against owning %s", row->offer, own->gpu);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "name", cJSON_CreateString(name));
    const cJSON *nt = cJSON_GetObjectItemCaseSensitive(doc, "notes");
    char text[5200];
    snprintf(text, sizeof text,
             "%s API: %s at %s, %g a M output tokens and %g a M input tokens (%s, from %s: "
             "%s); %g input tokens an output token (the profile's %d prompt and %d generated "
             "tokens).",
             cJSON_GetStringValue(nt), row->api_model, row->provider, row->price_per_unit,
             row->price_per_input_unit, "USD", row->price_date, row->api_source,
             row->input_units_per_unit, c->p->wl->input_len, c->p->wl->output_len);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "notes", cJSON_CreateString(text));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", row->offer);
    cJSON_AddStringToObject(o, "pricing", "per_unit");
    cJSON_AddNumberToObject(o, "price_per_unit", row->price_per_unit);
    if (row->input_units_per_unit > 0 && row->price_per_input_unit > 0) {
        cJSON_AddNumberToObject(o, "price_per_input_unit", row->price_per_input_unit);
        cJSON_AddNumberToObject(o, "input_units_per_unit", row->input_units_per_unit);
    }
    cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "cloud_options"), o);
    return doc;
}

/* One row a provider of an API price for the profile's model, set against the owned GPU
 * model of the lowest total (docs/compare.md "API rows"). */
static void api_rows(ctx *c) {
    const model *own = owning_for(c, NULL);
    for (int i = 0; i < c->n_apis; i++) {
        const gp_api_price *a = &c->apis[i];
        gp_compare_row *row = add_row(c, "");
        row->api = true;
        snprintf(row->provider, sizeof row->provider, "%s", a->provider);
        snprintf(row->pricing, sizeof row->pricing, "api");
        snprintf(row->offer, sizeof row->offer, "%s/%s", a->provider, a->model);
        snprintf(row->price_date, sizeof row->price_date, "%s", a->effective_from);
        snprintf(row->api_model, sizeof row->api_model, "%s", a->model);
        snprintf(row->api_source, sizeof row->api_source, "%s", a->source);
        row->price_per_unit = a->output_per_m;
        row->price_per_input_unit = a->input_per_m;
        row->input_units_per_unit = input_ratio(c);
        if (strcmp(a->currency, "USD") != 0) {
            snprintf(row->missing, sizeof row->missing, "api: priced in %s; compare prices in USD",
                     a->currency);
            continue;
        }
        if (!own) {
            snprintf(row->missing, sizeof row->missing,
                     "no GPU model with a purchase price to set it against");
            continue;
        }
        snprintf(row->vs_gpu, sizeof row->vs_gpu, "%s", own->gpu);
        if (!run_engine(c, row, api_doc(c, own, row), NULL))
            continue;
        const gp_result *r = c->r;
        row->total = r->options[0].total;
        row->has_break_even = r->options[0].has_break_even_month;
        row->break_even_month = r->options[0].break_even_month;
        row->cost_per_unit = r->demand_work > 0 ? row->total / r->demand_work : 0;
        c->out->work = r->demand_work;
    }
}

/* GPU models that cannot be compared, with what is missing. */
static void missing_rows(ctx *c) {
    for (int i = 0; i < c->n_models; i++) {
        const model *m = &c->models[i];
        const char *why = NULL;
        char buf[300];
        char refusal[220];
        if (!m->tp && gp_throughput_refusal(c->p, m->gpu, refusal, sizeof refusal)) {
            snprintf(buf, sizeof buf, "%s", refusal);
            why = buf;
        } else if (!m->tp) {
            snprintf(buf, sizeof buf, "no throughput for %s: %s (see gpuplan throughput set)",
                     c->p->name,
                     m->has_spec ? "the spec lacks the input its estimate needs"
                                 : "no spec in the catalog");
            why = buf;
        } else if (!m->n_picks && m->n_small) {
            snprintf(buf, sizeof buf,
                     "%s%d offers left out: a replica spans %d GPUs (tensor parallel) and "
                     "their instances hold fewer",
                     m->has_hw ? "rent: " : "own: no purchase price; rent: ", m->n_small,
                     m->replica);
            why = buf;
        } else if (!m->has_hw && !m->n_picks) {
            why = "no price: no purchase price and no offer in the catalog";
        } else if (!m->has_hw) {
            why = "own: no purchase price (see gpuplan pricing hardware)";
        } else if (!m->n_picks) {
            why = "rent: no offer in the catalog (see gpuplan pricing list)";
        }
        if (!why)
            continue;
        gp_compare_row *row = add_row(c, m->gpu);
        snprintf(row->missing, sizeof row->missing, "%s", why);
        if (m->tp) {
            row->throughput = m->tp->value;
            row->tp_kind = m->tp->kind;
        }
    }
}

/* Whether row r passes the request's --gpu and --pricing filters. */
static bool wanted(const gp_compare_request *rq, const char *gpu, const gp_compare_row *r) {
    if (gpu && strcmp(r->gpu, gpu) != 0)
        return false;
    if (!rq->pricing)
        return true;
    if (strcmp(rq->pricing, "own") == 0)
        return r->own;
    if (strcmp(rq->pricing, "api") == 0)
        return r->api;
    return !r->own && !r->api && strncmp(r->pricing, rq->pricing, strlen(rq->pricing)) == 0;
}

/* Drop the rows the filters leave out; GP_E_INPUT when none is left. */
static gp_status filter_rows(ctx *c, gp_err *err) {
    const gp_compare_request *rq = c->rq;
    char gpu[GP_GPU_NAME_BYTES];
    if (rq->gpu)
        gp_gpu_normalize(rq->gpu, 0, gpu, sizeof gpu);
    gp_comparison *o = c->out;
    int n = 0;
    for (int i = 0; i < o->n; i++) {
        if (wanted(rq, rq->gpu ? gpu : NULL, &o->rows[i]))
            o->rows[n++] = o->rows[i];
        else
            cJSON_Delete(o->rows[i].doc);
    }
    o->n = n;
    if (n || (!rq->gpu && !rq->pricing))
        return GP_OK;
    return gp_errorf(err, GP_E_INPUT, rq->gpu ? "--gpu" : "--pricing",
                     "no candidate of %s%s%s%s for profile %s as of %s", rq->gpu ? "GPU " : "",
                     rq->gpu ? gpu : "", rq->gpu && rq->pricing ? " and pricing " : "",
                     rq->pricing ? rq->pricing : "", rq->profile, rq->as_of);
}

static int by_rank(const void *a, const void *b) {
    const gp_compare_row *x = a, *y = b;
    bool mx = x->missing[0] != 0, my = y->missing[0] != 0;
    if (mx != my)
        return mx ? 1 : -1;
    if (!mx && x->total != y->total)
        return x->total < y->total ? -1 : 1;
    int k = strcmp(x->gpu, y->gpu);
    if (k)
        return k;
    if (x->own != y->own)
        return x->own ? -1 : 1;
    k = strcmp(x->offer, y->offer);
    return k ? k : strcmp(x->pricing, y->pricing);
}

static gp_status check_request(ctx *c, gp_err *err) {
    const gp_compare_request *rq = c->rq;
    if (gp_profile_resolve(c->ses, rq->profile, &c->up, &c->p, err))
        return err->code;
    if (strcmp(rq->unit, c->p->unit) != 0)
        return gp_errorf(err, GP_E_INPUT, "--unit",
                         "\"%s\": profile %s is counted in \"%s\" (give --unit \"%s\")", rq->unit,
                         c->p->name, c->p->unit, c->p->unit);
    if (!(rq->work_per_month > 0) || !isfinite(rq->work_per_month))
        return gp_errorf(err, GP_E_INPUT, "--work", "must be a number above 0");
    if (rq->horizon_months < 1 || rq->horizon_months > GP_MAX_MONTHS)
        return gp_errorf(err, GP_E_INPUT, "--horizon", "must be 1..%d months", GP_MAX_MONTHS);
    if (!(rq->growth_per_month >= -0.5 && rq->growth_per_month <= 1))
        return gp_errorf(err, GP_E_INPUT, "--growth", "must be in [-0.5, 1] a month");
    if (!(rq->utilization > 0 && rq->utilization <= 1))
        return gp_errorf(err, GP_E_INPUT, "--utilization", "must be in (0, 1]");
    if (!(rq->server_overhead >= 1 && rq->server_overhead <= 10))
        return gp_errorf(err, GP_E_INPUT, "--server-overhead", "must be in [1, 10]");
    if (!(rq->network_share >= 1 && rq->network_share <= 10))
        return gp_errorf(err, GP_E_INPUT, "--network-share", "must be in [1, 10]");
    if (rq->pricing && strcmp(rq->pricing, "own") && strcmp(rq->pricing, "on_demand") &&
        strcmp(rq->pricing, "spot") && strcmp(rq->pricing, "committed") &&
        strcmp(rq->pricing, "api"))
        return gp_errorf(err, GP_E_INPUT, "--pricing",
                         "\"%s\" is not own, on_demand, spot, committed or api", rq->pricing);
    if (!rq->tariff)
        return GP_OK;
    gp_tariff_preset t;
    if (gp_session_catalog(c->ses, &c->st, err))
        return err->code;
    gp_err e;
    if (gp_store_tariff(c->st, rq->tariff, &t, &e))
        return e.code == GP_E_NOTFOUND ? gp_errorf(err, GP_E_INPUT, "--tariff",
                                                   "no tariff preset \"%s\" (see gpuplan "
                                                   "pricing tariffs)",
                                                   rq->tariff)
                                       : (*err = e, err->code);
    c->tariff = cJSON_Parse(t.tariff_json);
    return GP_OK;
}

void gp_compare_defaults(gp_compare_request *rq, const char *as_of) {
    *rq = (gp_compare_request){.horizon_months = 36,
                               .utilization = 0.6,
                               .as_of = as_of,
                               .server_overhead = 1.6,
                               .network_share = 1.15};
}

gp_status gp_compare(gp_session *ses, const gp_compare_request *rq, gp_comparison *out,
                     gp_err *err) {
    memset(out, 0, sizeof *out);
    ctx c = {.ses = ses, .rq = rq, .out = out};
    gp_status st = check_request(&c, err);
    if (st == GP_OK)
        st = gather(&c, err);
    if (st == GP_OK) {
        c.r = gp_xmalloc(sizeof *c.r);
        own_rows(&c);
        rent_rows(&c);
        api_rows(&c);
        missing_rows(&c);
        free(c.r);
        st = filter_rows(&c, err);
    }
    if (st == GP_OK) {
        qsort(out->rows, (size_t)out->n, sizeof *out->rows, by_rank);
        for (int i = 0; i < out->n && !out->rows[i].missing[0]; i++)
            out->rows[i].rank = ++out->n_ranked;
        out->work_per_month = rq->work_per_month;
        out->growth_per_month = rq->growth_per_month;
        out->utilization = rq->utilization;
        out->horizon_months = rq->horizon_months;
        snprintf(out->tariff, sizeof out->tariff, "%s", rq->tariff ? rq->tariff : "");
        /* A user's profile lives in c: name it by the request's string (the caller's). */
        bool user = c.p == &c.up.p;
        out->profile = user ? rq->profile : c.p->name;
        out->unit = user ? "M tokens" : c.p->unit;
        snprintf(out->as_of, sizeof out->as_of, "%s", rq->as_of);
        if (rq->save)
            st = gp_compare_save(ses, out, rq->pick, rq->save, &out->saved_version, err);
    }
    gp_tp_list_done(&c.tl);
    free(c.picks);
    free(c.models);
    cJSON_Delete(c.tariff);
    if (st)
        gp_comparison_done(out);
    return st;
}

void gp_comparison_done(gp_comparison *c) {
    for (int i = 0; i < c->n; i++)
        cJSON_Delete(c->rows[i].doc);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

gp_status gp_compare_save(gp_session *ses, const gp_comparison *c, int rank, const char *name,
                          int *version, gp_err *err) {
    if (rank < 1 || rank > c->n_ranked)
        return gp_errorf(err, GP_E_INPUT, "--pick", "no row ranked %d (1..%d)", rank, c->n_ranked);
    cJSON *doc = cJSON_Duplicate(c->rows[rank - 1].doc, true);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "name", cJSON_CreateString(name));
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    char stored[GP_NAME_BYTES];
    gp_status st =
        gp_scenario_store(ses, text, strlen(text), "compare --save", stored, version, err);
    free(text);
    return st;
}
