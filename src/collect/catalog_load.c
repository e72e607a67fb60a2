/* Imports into the catalog, and the bundled catalog of pricing/ loaded through the same
 * importers users run. */
#include "gpuplan/catalog_load.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/csv.h"
#include "gpuplan/embedded.h"
#include "gpuplan/fx.h"
#include "gpuplan/store_api_price.h"
#include "gpuplan/store_fx.h"
#include "gpuplan/store_reference.h"
#include "gpuplan/reference.h"

gp_status gp_catalog_import(gp_store *st, const char *buf, size_t len, const char *origin,
                            gp_catalog_format format, const char *provider, const char *source,
                            const char *effective_from, const char *today, bool strict,
                            gp_catalog_batch *batch, gp_import_stats *stats, gp_err *err) {
    memset(stats, 0, sizeof *stats);
    if (format == GP_FMT_UNKNOWN)
        format = gp_catalog_detect(buf, len, origin);
    if (format == GP_FMT_UNKNOWN)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "cannot tell the catalog format from the content; give --format "
                         "(gpuplan, skypilot, ec2instances, aws-offer, gcp-skus, gcp-cud)");
    if ((!provider || !*provider) && format == GP_FMT_SKYPILOT)
        provider = gp_catalog_provider_from_name(origin);
    if (gp_catalog_parse(format, buf, len, origin, provider, batch, err))
        return err->code;
    if (strict && batch->skipped > 0) {
        const gp_skip_reason *r = &batch->reasons[0];
        char where[300];
        snprintf(where, sizeof where, "%s%s%s", origin, r->first[0] ? ": " : "", r->first);
        return gp_errorf(err, GP_E_INPUT, where,
                         "--strict: %zu records skipped, first: %s; nothing imported",
                         batch->skipped, r->reason);
    }
    const char *eff = effective_from && *effective_from ? effective_from
                      : batch->effective_from[0]        ? batch->effective_from
                                                        : today;
    return gp_store_catalog_import(st, batch, origin, source ? source : origin, eff, stats, err);
}

typedef struct fx_ctx {
    gp_store *st;
    const char *source;
    gp_fx_import_stats *stats;
} fx_ctx;

static gp_status on_fx(const gp_fx_rate *r, void *arg, gp_err *err) {
    fx_ctx *c = arg;
    bool added;
    if (gp_store_fx_add(c->st, r, c->source, &added, err))
        return err->code;
    if (added)
        c->stats->added++;
    else
        c->stats->kept++;
    return GP_OK;
}

/* One file's text to parse into the store. */
typedef struct load_args {
    const char *buf, *origin, *source;
    size_t len;
    gp_fx_import_stats *fx;   /* the counts of an FX file */
    gp_api_import_stats *api; /* or of an API price file */
} load_args;

static gp_status fx_load(gp_store *st, void *arg, gp_err *err) {
    load_args *a = arg;
    gp_fx_import_stats *out = a->fx;
    memset(out, 0, sizeof *out);
    fx_ctx c = {st, a->source && *a->source ? a->source : a->origin, out};
    return gp_fx_parse_ecb(a->buf, a->len, a->origin, on_fx, &c, &out->rows, err);
}

gp_status gp_fx_import(gp_store *st, const char *buf, size_t len, const char *origin,
                       const char *source, gp_fx_import_stats *out, gp_err *err) {
    load_args a = {buf, origin, source, len, .fx = out};
    return gp_store_in_tx(st, fx_load, &a, err);
}

typedef struct api_ctx {
    gp_store *st;
    gp_api_import_stats *stats;
} api_ctx;

static gp_status on_api(const gp_api_price *p, void *arg, gp_err *err) {
    api_ctx *c = arg;
    bool added;
    if (gp_store_api_price_add(c->st, p, &added, err))
        return err->code;
    if (added)
        c->stats->added++;
    else
        c->stats->kept++;
    return GP_OK;
}

static gp_status api_load(gp_store *st, void *arg, gp_err *err) {
    load_args *a = arg;
    gp_api_import_stats *out = a->api;
    memset(out, 0, sizeof *out);
    api_ctx c = {st, out};
    return gp_api_price_parse(a->buf, a->len, a->origin, on_api, &c, &out->rows, err);
}

gp_status gp_api_price_import(gp_store *st, const char *buf, size_t len, const char *origin,
                              gp_api_import_stats *out, gp_err *err) {
    load_args a = {buf, origin, NULL, len, .api = out};
    return gp_store_in_tx(st, api_load, &a, err);
}

/* ---- the bundle ----------------------------------------------------------------------------- */

typedef struct manifest_row {
    char path[160], kind[32], format[32], provider[16], date[16], license[96], name[64],
        source[256];
} manifest_row;

typedef struct manifest {
    manifest_row rows[64];
    int n;
    int col[8];
    bool header;
} manifest;

static const char *const manifest_cols[8] = {"path",           "kind",    "format", "provider",
                                             "effective_from", "license", "name",   "source"};

static gp_status manifest_row_cb(const gp_csv_record *r, void *arg, gp_err *err) {
    manifest *m = arg;
    if (!m->header) {
        for (int i = 0; i < 8; i++)
            if ((m->col[i] = gp_csv_column(r, manifest_cols[i])) < 0)
                return gp_errorf(err, GP_E_INPUT, "pricing/MANIFEST.csv", "no column %s",
                                 manifest_cols[i]);
        m->header = true;
        return GP_OK;
    }
    if (m->n == 64)
        return gp_errorf(err, GP_E_LIMIT, "pricing/MANIFEST.csv", "more than 64 files");
    manifest_row *row = &m->rows[m->n++];
    char *dst[8] = {row->path, row->kind,    row->format, row->provider,
                    row->date, row->license, row->name,   row->source};
    size_t cap[8] = {sizeof row->path,     sizeof row->kind,  sizeof row->format,
                     sizeof row->provider, sizeof row->date,  sizeof row->license,
                     sizeof row->name,     sizeof row->source};
    for (int i = 0; i < 8; i++) {
        int c = m->col[i];
        snprintf(dst[i], cap[i], "%.*s", c < r->n ? (int)r->len[c] : 0,
                 c < r->n ? r->field[c] : "");
    }
    return GP_OK;
}

static gp_status read_manifest(manifest *m, gp_err *err) {
    memset(m, 0, sizeof *m);
    return gp_csv_read((const char *)gp_bundle[0].data, gp_bundle[0].len, "pricing/MANIFEST.csv",
                       manifest_row_cb, m, err);
}

static const gp_embedded *bundled(const char *path) {
    for (const gp_embedded *e = gp_bundle; e->name; e++)
        if (strcmp(e->name, path) == 0)
            return e;
    return NULL;
}

/* FNV-1a over every bundled byte: a new bundle (new prices) loads once, on first use. */
/* The bundle's hash, over megabytes of embedded data: computed once a process (it is constant),
 * since every catalog read asks for it (a catalog plan's evaluation on each keystroke). */
static unsigned long long bundle_hash;
static pthread_once_t bundle_once = PTHREAD_ONCE_INIT;

static void hash_bundle(void) {
    unsigned long long h = 1469598103934665603ull;
    for (const gp_embedded *e = gp_bundle; e->name; e++) {
        for (const char *p = e->name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        for (size_t i = 0; i < e->len; i++)
            h = (h ^ e->data[i]) * 1099511628211ull;
    }
    bundle_hash = h;
}

static void bundle_id(char *out, size_t cap) {
    pthread_once(&bundle_once, hash_bundle);
    snprintf(out, cap, "%016llx", bundle_hash);
}

typedef struct ref_ctx {
    gp_store *st;
    const manifest_row *row;
    gp_bundle_stats *stats;
} ref_ctx;

static gp_status on_spec(const gp_gpu_spec *s, void *arg, gp_err *err) {
    ref_ctx *c = arg;
    c->stats->specs++;
    return gp_store_add_spec(c->st, s, c->row->source, err);
}

static gp_status on_hw(const gp_hw_price *h, void *arg, gp_err *err) {
    ref_ctx *c = arg;
    c->stats->hardware++;
    return gp_store_add_hardware(c->st, h, c->row->source, err);
}

static gp_status on_elec(const gp_elec_price *e, void *arg, gp_err *err) {
    ref_ctx *c = arg;
    return gp_store_add_electricity(c->st, e, c->row->date, c->row->source, err);
}

static gp_status on_pue(const gp_pue_ref *p, void *arg, gp_err *err) {
    ref_ctx *c = arg;
    return gp_store_add_pue(c->st, p, c->row->source, err);
}

static gp_status on_tariff(const gp_tariff_preset *t, void *arg, gp_err *err) {
    ref_ctx *c = arg;
    c->stats->tariffs++;
    return gp_store_add_tariff(c->st, t, c->row->source, err);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

gp_status gp_catalog_bundle_current(gp_store *st, bool *current, gp_err *err) {
    char id[32], *have = NULL;
    bundle_id(id, sizeof id);
    *current = false;
    if (gp_store_meta_get(st, "bundle", &have, err))
        return err->code;
    *current = have && strcmp(have, id) == 0;
    free(have);
    return GP_OK;
}

/* One file of the bundle into the store, its counts into out; inside the bundle's
 * transaction. */
static gp_status load_file(gp_store *st, const manifest_row *row, gp_bundle_stats *out,
                           gp_err *err) {
    const gp_embedded *e = bundled(row->path);
    char origin[200];
    snprintf(origin, sizeof origin, "pricing/%s", row->path);
    if (!e)
        return gp_errorf(err, GP_E_IO, origin, "listed in the manifest but not bundled");
    out->files++;
    if (strcmp(row->kind, "prices") == 0) {
        gp_catalog_batch b;
        gp_catalog_batch_init(&b, 1u << 22);
        gp_import_stats s;
        gp_status rc = gp_catalog_import(st, (const char *)e->data, e->len, origin,
                                         gp_catalog_format_from_name(row->format), row->provider,
                                         row->source, row->date, row->date, false, &b, &s, err);
        out->skipped += b.skipped;
        gp_catalog_batch_done(&b);
        out->prices_added += s.added;
        out->prices_unchanged += s.unchanged;
        out->offers += s.offers_new;
        return rc;
    }
    if (strcmp(row->kind, "fx-ecb") == 0) {
        gp_fx_import_stats s;
        load_args a = {(const char *)e->data, origin, row->source, e->len, .fx = &s};
        gp_status rc = fx_load(st, &a, err);
        out->fx_rates += s.added;
        return rc;
    }
    if (strcmp(row->kind, "api-prices") == 0) {
        gp_api_import_stats s;
        load_args a = {(const char *)e->data, origin, NULL, e->len, .api = &s};
        gp_status rc = api_load(st, &a, err);
        out->api_prices += s.added;
        return rc;
    }
    int kind = gp_reference_kind_from_name(row->kind);
    if (kind < 0)
        return gp_errorf(err, GP_E_INPUT, origin, "unknown kind \"%s\" in the manifest", row->kind);
    ref_ctx c = {st, row, out};
    gp_reference_sink sink = {on_spec, on_hw, on_elec, on_pue, on_tariff, &c};
    size_t skipped = 0;
    gp_status rc = gp_reference_parse((gp_reference_kind)kind, (const char *)e->data, e->len,
                                      origin, row->name, &sink, &skipped, err);
    out->skipped += skipped;
    return rc;
}

typedef struct bundle_load {
    const manifest *m;
    const char *id;
    gp_bundle_stats *out;
} bundle_load;

/* Every file of the manifest, then the bundle's id: one transaction (gp_store_in_tx). */
static gp_status load_files(gp_store *st, void *arg, gp_err *err) {
    bundle_load *b = arg;
    for (int i = 0; i < b->m->n; i++)
        if (load_file(st, &b->m->rows[i], b->out, err))
            return err->code;
    return gp_store_meta_set(st, "bundle", b->id, err);
}

gp_status gp_catalog_load_bundle(gp_store *st, bool force, gp_bundle_stats *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    char id[32];
    bundle_id(id, sizeof id);
    bool same;
    if (gp_catalog_bundle_current(st, &same, err))
        return err->code;
    if (same && !force)
        return GP_OK;
    manifest *m = malloc(sizeof *m);
    if (!m)
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
    bundle_load b = {m, id, out};
    gp_status rc = read_manifest(m, err);
    if (rc == GP_OK)
        rc = gp_store_in_tx(st, load_files, &b, err);
    free(m);
    if (rc)
        return rc;
    out->loaded = true;
    out->seconds = now_s() - t0;
    return GP_OK;
}

gp_status gp_catalog_bundle_sources(int (*fn)(const char *path, const char *kind,
                                              const char *effective_from, const char *license,
                                              const char *source, void *),
                                    void *arg, gp_err *err) {
    manifest *m = malloc(sizeof *m);
    if (!m)
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
    gp_status st = read_manifest(m, err);
    for (int i = 0; st == GP_OK && i < m->n; i++)
        if (fn(m->rows[i].path, m->rows[i].kind, m->rows[i].date, m->rows[i].license,
               m->rows[i].source, arg))
            break;
    free(m);
    return st;
}
