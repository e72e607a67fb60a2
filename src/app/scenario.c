/* Loading, resolving and evaluating scenarios (app_scenario.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gp_version.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/catalog.h"
#include "gpuplan/embedded.h"
#include "gpuplan/files.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_fx.h"
#include "gpuplan/xmem.h"

/* A file when arg is "-" or an existing file; a stored scenario when the database has that
 * name (names may hold a '/': "A100/H100 mix"); otherwise an argument that looks like a path
 * (a '/' or ".json") is a missing file, and anything else an unknown name (with the nearest). */
static bool looks_like_file(gp_session *ses, const char *arg) {
    struct stat sb;
    if (strcmp(arg, "-") == 0 || (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode)))
        return true;
    size_t n = strlen(arg);
    if (!strchr(arg, '/') && !(n > 5 && strcmp(arg + n - 5, ".json") == 0))
        return false;
    if (!gp_session_has_database(ses))
        return true;
    char *json = NULL;
    gp_store *st;
    gp_err probe;
    bool stored = gp_session_store(ses, &st, &probe) == GP_OK &&
                  gp_store_scenario_get(st, arg, 0, &json, NULL, NULL, &probe) == GP_OK;
    free(json);
    return !stored;
}

/* A catalog reference's parts: PROVIDER/INSTANCE/REGION (checked when the scenario was read). */
typedef struct catalog_ref {
    char prov[16], inst[96], region[64];
} catalog_ref;

static void catalog_ref_of(const char *catalog, catalog_ref *r) {
    const char *a = strchr(catalog, '/'), *b = strchr(a + 1, '/');
    snprintf(r->prov, sizeof r->prov, "%.*s", (int)(a - catalog), catalog);
    snprintf(r->inst, sizeof r->inst, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(r->region, sizeof r->region, "%s", b + 1);
}

/* Option o's entry in force on as_of into e, in currency cur (2.1: an entry in another
 * currency converts at the rate in force on as_of, which goes into fx; fx->rate 0 when the
 * entry needs none). GP_E_INPUT at where when there is no such entry or rate, or the entry's
 * GPUs an instance are no whole number 1..576. */
static gp_status catalog_entry(gp_store *st, const gp_option *o, const catalog_ref *r,
                               const char *as_of, const char *cur, const char *where,
                               gp_catalog_entry *e, gp_fx_quote *fx, gp_err *err) {
    gp_err lookup;
    if (gp_store_catalog_lookup(st, r->prov, r->inst, r->region, o->pricing, o->term_months,
                                o->purchase, as_of, e, &lookup)) {
        if (lookup.code != GP_E_NOTFOUND)
            return *err = lookup, err->code;
        return gp_errorf(err, GP_E_INPUT, where, "%s", lookup.msg);
    }
    *fx = (gp_fx_quote){.rate = 0};
    if (strcmp(e->currency, cur) != 0) {
        gp_err q;
        if (gp_store_fx_convert(st, e->currency, cur, as_of, fx, &q)) {
            if (q.code != GP_E_NOTFOUND)
                return *err = q, err->code;
            return gp_errorf(err, GP_E_INPUT, where, "the entry is priced in %s: %s", e->currency,
                             q.msg);
        }
        e->hourly *= fx->rate;
        e->recurring *= fx->rate;
        e->upfront *= fx->rate;
    }
    if (e->gpu_count != floor(e->gpu_count) || e->gpu_count < 1 || e->gpu_count > 576)
        return gp_errorf(err, GP_E_INPUT, where,
                         "the entry has %g GPUs an instance; a whole number 1..576 is needed",
                         e->gpu_count);
    return GP_OK;
}

/* Option o priced from entry e. A commitment's fee and rate as the source gives them, else
 * split from its effective rate by purchase option (*derived); a spot band sets the
 * interruptions unless the option does (*band). */
static void price_option(gp_option *o, const gp_catalog_entry *e, bool *derived, bool *band) {
    *derived = *band = false;
    o->hourly = e->hourly;
    o->upfront = 0;
    if (o->pricing == GP_COMMITTED && e->has_split) {
        o->hourly = e->recurring;
        o->upfront = e->upfront;
    } else if (o->pricing == GP_COMMITTED) {
        *derived =
            gp_commitment_split(o->purchase, o->term_months, e->hourly, &o->hourly, &o->upfront);
    }
    if (o->pricing == GP_SPOT && !o->has_interruptions_per_hour)
        *band = gp_spot_band_interruptions(e->interruption_band, &o->interruptions_per_hour);
    o->gpus_per_instance = (int)e->gpu_count;
}

/* Where option o's price came from, for the report (fx->rate > 0: converted). */
static void record_source(gp_price_source *ps, const gp_option *o, const gp_catalog_entry *e,
                          bool derived, const gp_fx_quote *fx) {
    snprintf(ps->option, sizeof ps->option, "%s", o->name);
    snprintf(ps->catalog, sizeof ps->catalog, "%s", o->catalog);
    ps->pricing = o->pricing;
    ps->hourly = o->hourly;
    ps->upfront = o->upfront;
    ps->split_derived = derived;
    snprintf(ps->interruption_band, sizeof ps->interruption_band, "%s", e->interruption_band);
    snprintf(ps->effective_from, sizeof ps->effective_from, "%s", e->effective_from);
    snprintf(ps->source, sizeof ps->source, "%s", e->source);
    if (fx->rate > 0) {
        snprintf(ps->currency, sizeof ps->currency, "%s", e->currency);
        ps->fx_rate = fx->rate;
        ps->listed_hourly = o->hourly / fx->rate; /* `hourly` before the conversion */
        snprintf(ps->fx_date, sizeof ps->fx_date, "%s", fx->date);
        snprintf(ps->fx_source, sizeof ps->fx_source, "%s", fx->source);
    }
}

/* The option's JSON j with the entry's figures in place of its reference. */
static void fill_option_json(cJSON *j, const gp_option *o, const catalog_ref *r, bool band) {
    cJSON_DeleteItemFromObjectCaseSensitive(j, "catalog");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "purchase");
    if (!cJSON_GetObjectItemCaseSensitive(j, "provider"))
        cJSON_AddStringToObject(j, "provider", r->prov);
    if (!cJSON_GetObjectItemCaseSensitive(j, "instance"))
        cJSON_AddStringToObject(j, "instance", r->inst);
    if (!cJSON_GetObjectItemCaseSensitive(j, "region"))
        cJSON_AddStringToObject(j, "region", r->region);
    cJSON_AddNumberToObject(j, "gpus_per_instance", o->gpus_per_instance);
    cJSON_AddNumberToObject(j, "hourly", o->hourly);
    if (o->pricing == GP_COMMITTED)
        cJSON_AddNumberToObject(j, "upfront", o->upfront);
    if (band)
        cJSON_AddNumberToObject(j, "interruptions_per_hour", o->interruptions_per_hour);
}

/* docs/model.md "Catalog references": an option naming a catalog entry takes its hourly price and
 * GPUs per instance from the entry in force on as_of; the scenario JSON a report embeds gets
 * them filled in (and loses "catalog" and "purchase"), so the report reproduces from itself. */
static gp_status resolve_catalog(gp_session *ses, gp_loaded *sc, const char *as_of, gp_err *err) {
    gp_store *st = NULL;
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(sc->tree, "cloud_options");
    for (int i = 0; i < sc->s->n_options; i++) {
        gp_option *o = &sc->s->options[i];
        if (!o->has_catalog)
            continue;
        char where[600];
        snprintf(where, sizeof where, "%s:$.cloud_options[%d].catalog", sc->origin, i);
        if (!st && gp_session_catalog(ses, &st, err))
            return err->code;
        catalog_ref r;
        catalog_ref_of(o->catalog, &r);
        gp_catalog_entry e;
        gp_fx_quote fx;
        if (catalog_entry(st, o, &r, as_of, sc->s->currency, where, &e, &fx, err))
            return err->code;
        bool derived, band;
        price_option(o, &e, &derived, &band);
        record_source(&sc->sources[sc->n_sources++], o, &e, derived, &fx);
        fill_option_json(cJSON_GetArrayItem(opts, i), o, &r, band);
        o->has_catalog = false;
    }
    return GP_OK;
}

gp_status gp_load_scenario(gp_session *ses, const char *arg, int version, const char *as_of,
                           gp_loaded *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->s = gp_xmalloc(sizeof *out->s);
    gp_buf text;
    gp_buf_init(&text, GP_SCENARIO_MAX_BYTES);
    if (looks_like_file(ses, arg)) {
        if (version) {
            gp_errorf(err, GP_E_INPUT, arg, "--version applies to stored scenarios only");
            goto fail;
        }
        snprintf(out->origin, sizeof out->origin, "%s", strcmp(arg, "-") == 0 ? "<stdin>" : arg);
        if (gp_read_file(arg, GP_SCENARIO_MAX_BYTES, &text, err))
            goto fail;
    } else {
        char *json = NULL;
        if (gp_scenario_fetch(ses, arg, version, &json, &out->version, NULL, err))
            goto fail;
        snprintf(out->origin, sizeof out->origin, "%s@%d", arg, out->version);
        gp_buf_add(&text, json, strlen(json));
        free(json);
    }
    if (gp_scenario_parse(text.data, text.len, out->origin, out->s, &out->tree, err) ||
        resolve_catalog(ses, out, as_of, err))
        goto fail;
    gp_buf_done(&text);
    return GP_OK;
fail:
    gp_buf_done(&text);
    gp_loaded_done(out);
    return err->code;
}

gp_status gp_load_scenario_doc(gp_session *ses, const cJSON *doc, const char *origin,
                               const char *as_of, gp_loaded *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->s = gp_xmalloc(sizeof *out->s);
    snprintf(out->origin, sizeof out->origin, "%s", origin);
    out->tree = cJSON_Duplicate(doc, true);
    if (!out->tree) {
        gp_loaded_done(out);
        return gp_errorf(err, GP_E_LIMIT, origin, "out of memory");
    }
    if (gp_scenario_from_cjson(out->tree, out->origin, out->s, err) ||
        resolve_catalog(ses, out, as_of, err)) {
        gp_loaded_done(out);
        return err->code;
    }
    return GP_OK;
}

gp_status gp_load_demo_scenario(gp_loaded *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->s = gp_xmalloc(sizeof *out->s);
    const gp_embedded *e = &gp_demo_scenarios[0];
    snprintf(out->origin, sizeof out->origin, "%s", e->name);
    if (gp_scenario_parse((const char *)e->data, e->len, out->origin, out->s, &out->tree, err)) {
        gp_loaded_done(out);
        return err->code;
    }
    return GP_OK;
}

void gp_loaded_done(gp_loaded *sc) {
    free(sc->s);
    sc->s = NULL;
    cJSON_Delete(sc->tree);
    sc->tree = NULL;
}

gp_status gp_evaluate(const gp_loaded *sc, gp_result *out, gp_err *err) {
    gp_model_evaluate(sc->s, out);
    if (out->error.code == GP_OK)
        return GP_OK;
    /* What only the plan shows (a month with no bridge, a non-finite total) names its JSON
     * path; the report says in which scenario. */
    *err = out->error;
    gp_loaded_blame(sc, err);
    return err->code;
}

void gp_loaded_blame(const gp_loaded *sc, gp_err *err) {
    if (err->where[0] != '$')
        return;
    char path[sizeof err->where];
    snprintf(path, sizeof path, "%s", err->where);
    snprintf(err->where, sizeof err->where, "%s:%s", sc->origin, path);
}

gp_report_meta gp_loaded_meta(const gp_loaded *sc, const char *as_of) {
    return (gp_report_meta){as_of, sc->sources, sc->n_sources, sc->tree, GPUPLAN_VERSION};
}
