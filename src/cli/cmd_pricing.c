/* gpuplan pricing list|show|gpus|hardware|tariffs|tariff|electricity|pue|import|diff|sources */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/app_pricing.h"
#include "gpuplan/numfmt.h"

static void help(FILE *f) {
    fprintf(
        f,
        "usage: gpuplan pricing list [--gpu H100] [--provider aws] [--region R]\n"
        "                            [--region-prefix us-] [--pricing on_demand|spot|committed]\n"
        "                            [--min-gpus N] [--sort hourly|gpu-hour|name] [--limit N]\n"
        "                            [--as-of DATE] [--json]\n"
        "       gpuplan pricing show PROVIDER/INSTANCE/REGION   every kind and its history\n"
        "       gpuplan pricing gpus [--gpu G] [--json]          GPU specs\n"
        "       gpuplan pricing hardware [--gpu G] [--json]      purchase prices\n"
        "       gpuplan pricing tariffs                           time-of-use presets\n"
        "       gpuplan pricing tariff NAME                       one preset as scenario JSON\n"
        "       gpuplan pricing electricity                       US prices by state (EIA)\n"
        "       gpuplan pricing pue                               reference PUE values\n"
        "       gpuplan pricing import FILE|URL [--format F] [--provider P] [--effective DATE]\n"
        "                            [--source TEXT] [--strict] [--cacert FILE] [--insecure]\n"
        "       gpuplan pricing diff --since DATE\n"
        "       gpuplan pricing fx list [--as-of DATE] [--currency CNY]  exchange rates in force\n"
        "       gpuplan pricing fx import FILE|URL [--source TEXT]  ECB reference-rate CSV\n"
        "       gpuplan pricing api list [--as-of DATE] [--provider P] [--model M] [--history]\n"
        "                                 hosted-model prices per M input and output tokens\n"
        "       gpuplan pricing api import FILE|URL   (or pricing import FILE --format api)\n"
        "       gpuplan pricing sources                           the bundled files, dated\n"
        "       gpuplan pricing reload                            load the bundled catalog "
        "again\n\n"
        "Formats for import: gpuplan, skypilot (provider from --provider or the file name),\n"
        "ec2instances, aws-offer, gcp-skus, gcp-cud, api (hosted-model prices); left out, the "
        "content decides. Imports add\n"
        "history and never overwrite. The bundled catalog loads on first use.\n");
}

typedef struct opts {
    gp_offer_filter f;
    bool json, strict, insecure, history;
    const char *format, *provider, *effective, *source, *cacert, *since, *currency, *model;
    char as_of[11];
    char gpu[GP_GPU_NAME_BYTES];
} opts;

/* --gpu G, normalised, into the offer filter. */
static int filter_gpu(const char *v, void *dest) {
    opts *o = dest;
    gp_gpu_normalize(v, 0, o->gpu, sizeof o->gpu);
    o->f.gpu = o->gpu;
    return 0;
}

/* --provider P: the offer filter's and import's. */
static int provider(const char *v, void *dest) {
    opts *o = dest;
    o->f.provider = o->provider = v;
    return 0;
}

static int pricing_kind(const char *v, void *dest) {
    int *p = dest; /* the filter's gp_pricing, or -1 */
    if (!strcmp(v, "on_demand") || !strcmp(v, "on-demand"))
        *p = GP_ON_DEMAND;
    else if (!strcmp(v, "spot"))
        *p = GP_SPOT;
    else if (!strcmp(v, "committed"))
        *p = GP_COMMITTED;
    else
        return CLI_OPT_BAD;
    return 0;
}

static int sort_order(const char *v, void *dest) {
    gp_offer_sort *s = dest;
    if (!strcmp(v, "hourly"))
        *s = GP_SORT_HOURLY;
    else if (!strcmp(v, "gpu-hour"))
        *s = GP_SORT_GPU_HOUR;
    else if (!strcmp(v, "name"))
        *s = GP_SORT_NAME;
    else
        return CLI_OPT_BAD;
    return 0;
}

/* --effective and --since: a date, kept as given. */
static int date(const char *v, void *dest) {
    return gp_valid_date(v) ? (*(const char **)dest = v, 0) : CLI_OPT_BAD;
}

static int currency(const char *v, void *dest) {
    return gp_fx_valid_code(v) ? (*(const char **)dest = v, 0) : CLI_OPT_BAD;
}

static int import_format(const char *v, void *dest) {
    if (strcmp(v, "api") != 0 && gp_catalog_format_from_name(v) == GP_FMT_UNKNOWN)
        return CLI_OPT_BAD;
    *(const char **)dest = v;
    return 0;
}

/* 0, -1 after printing the help, or the exit status of bad usage. */
static int parse_opts(int argc, char **argv, opts *o, int *first) {
    memset(o, 0, sizeof *o);
    o->f.pricing = -1;
    gp_today(o->as_of);
    bool asked = false;
    const cli_opt table[] = {
        {CLI_CALL("gpu", o, filter_gpu)},
        {CLI_CALL("provider", o, provider)},
        {CLI_STR("region", &o->f.region)},
        {CLI_STR("region-prefix", &o->f.region_prefix)},
        {CLI_CALL("pricing", &o->f.pricing, pricing_kind),
         .bad = "\"%s\" is not on_demand, spot or committed"},
        {CLI_DOUBLE("min-gpus", &o->f.min_gpus, 0, INFINITY), .bad = "\"%s\" is not a number"},
        {CLI_CALL("sort", &o->f.sort, sort_order), .bad = "\"%s\" is not hourly, gpu-hour or name"},
        {CLI_INT("limit", &o->f.limit, 0, INT_MAX), .bad = "\"%s\" is not a count"},
        {CLI_DATE("as-of", o->as_of)},
        {CLI_FLAG("json", &o->json)},
        {CLI_CALL("format", &o->format, import_format),
         .bad =
             "\"%s\" is not gpuplan, skypilot, ec2instances, aws-offer, gcp-skus, gcp-cud or api"},
        {CLI_CALL("effective", &o->effective, date), .bad = "\"%s\" is not a date YYYY-MM-DD"},
        {CLI_STR("source", &o->source)},
        {CLI_FLAG("strict", &o->strict)},
        {CLI_STR("cacert", &o->cacert)},
        {CLI_FLAG("insecure", &o->insecure)},
        {CLI_CALL("since", &o->since, date), .bad = "\"%s\" is not a date YYYY-MM-DD"},
        {CLI_CALL("currency", &o->currency, currency),
         .bad = "\"%s\" is not a currency code (CNY)"},
        {CLI_STR("model", &o->model)},
        {CLI_FLAG("history", &o->history)},
        {CLI_HELP(&asked)},
        {0}};
    int rc = cli_parse(&(cli_parser){.cmd = "pricing", .opts = table}, argc, argv, first);
    o->f.as_of = o->as_of;
    if (rc || asked)
        return asked ? help(stdout), -1 : rc;
    return 0;
}

static const char *purchase_name(gp_purchase p) {
    return p == GP_ALL_UPFRONT       ? "all_upfront"
           : p == GP_PARTIAL_UPFRONT ? "partial_upfront"
                                     : "no_upfront";
}

static void kind_label(const gp_offer_price *o, char *out, size_t cap) {
    if (o->pricing == GP_COMMITTED)
        snprintf(out, cap, "committed %dm %s", o->term_months, purchase_name(o->purchase));
    else
        snprintf(out, cap, "%s", gp_pricing_name(o->pricing));
}

/* ---- list --------------------------------------------------------------------------------- */

typedef struct lister {
    bool json;
    int n, shapes;
    cJSON *arr;
} lister;

static cJSON *offer_json(const gp_offer_price *o) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "provider", o->provider);
    cJSON_AddStringToObject(j, "instance", o->instance);
    cJSON_AddStringToObject(j, "region", o->region);
    char ref[300];
    snprintf(ref, sizeof ref, "%s/%s/%s", o->provider, o->instance, o->region);
    cJSON_AddStringToObject(j, "catalog", ref);
    cJSON_AddStringToObject(j, "gpu", o->gpu);
    cJSON_AddNumberToObject(j, "gpu_count", o->gpu_count);
    if (o->vcpus > 0)
        cJSON_AddNumberToObject(j, "vcpus", o->vcpus);
    if (o->memory_gib > 0)
        cJSON_AddNumberToObject(j, "memory_gib", o->memory_gib);
    if (o->unpriced) {
        /* A shape: known instance, no price in force; null, never 0 (0 would read "free"). */
        cJSON_AddNullToObject(j, "pricing");
        cJSON_AddNullToObject(j, "hourly");
        return j;
    }
    cJSON_AddStringToObject(j, "pricing", gp_pricing_name(o->pricing));
    if (o->pricing == GP_COMMITTED) {
        cJSON_AddNumberToObject(j, "term_months", o->term_months);
        cJSON_AddStringToObject(j, "purchase", purchase_name(o->purchase));
    }
    cJSON_AddNumberToObject(j, "hourly", o->hourly);
    cJSON_AddNumberToObject(j, "per_gpu_hour", o->hourly / o->gpu_count);
    if (o->has_range) {
        cJSON_AddNumberToObject(j, "low", o->low);
        cJSON_AddNumberToObject(j, "high", o->high);
    }
    cJSON_AddStringToObject(j, "currency", o->currency);
    cJSON_AddStringToObject(j, "effective_from", o->effective_from);
    cJSON_AddStringToObject(j, "source", o->source);
    return j;
}

static int list_row(const gp_offer_price *o, void *arg) {
    lister *l = arg;
    if (l->json) {
        cJSON_AddItemToArray(l->arr, offer_json(o));
        l->n++;
        return 0;
    }
    if (l->n++ == 0)
        printf("%-8s %-28s %-22s %-12s %5s  %-28s %12s %12s  %s\n", "PROVIDER", "INSTANCE",
               "REGION", "GPU", "GPUS", "PRICING", "PER HOUR", "PER GPU-H", "SINCE");
    char kind[48], ref_region[32], gpus[16];
    kind_label(o, kind, sizeof kind);
    snprintf(ref_region, sizeof ref_region, "%.22s", o->region);
    snprintf(gpus, sizeof gpus, "%g", o->gpu_count);
    if (o->unpriced) {
        char shape[48];
        snprintf(shape, sizeof shape, "%gx%s %g vCPU %g GiB", o->gpu_count, o->gpu, o->vcpus,
                 o->memory_gib);
        printf("%-8s %-28s %-22s %-12s %5s  %-28s %12s %12s  %s\n", o->provider, o->instance,
               ref_region, o->gpu, gpus, "no price (shape)", "-", "-", shape);
        l->shapes++;
        return 0;
    }
    printf("%-8s %-28s %-22s %-12s %5s  %-28s %12.4f %12.4f  %s %s\n", o->provider, o->instance,
           ref_region, o->gpu, gpus, kind, o->hourly, o->hourly / o->gpu_count, o->effective_from,
           strcmp(o->currency, "USD") ? o->currency : "");
    return 0;
}

static int print_json(cJSON *j) {
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    if (!text)
        return cli_usage_error("out of memory");
    puts(text);
    free(text);
    return 0;
}

static int do_list(gp_session *ses, const opts *o) {
    gp_err err;
    gp_err_clear(&err);
    lister l = {o->json, 0, 0, o->json ? cJSON_CreateArray() : NULL};
    gp_offer_filter f = o->f;
    f.with_shapes = true;
    if (gp_pricing_offers(ses, &f, list_row, &l, &err)) {
        cJSON_Delete(l.arr);
        return cli_fail(&err);
    }
    if (o->json)
        return print_json(l.arr);
    if (l.n == 0)
        printf("no offers match\n");
    else if (l.shapes)
        printf("%d prices, %d instance shapes without a price (import one: docs/catalog.md)\n",
               l.n - l.shapes, l.shapes);
    else
        printf("%d prices\n", l.n);
    return 0;
}

/* ---- show --------------------------------------------------------------------------------- */

typedef struct shower {
    int n;
    char last_kind[48];
    double last;
} shower;

static int show_row(const gp_offer_price *o, void *arg) {
    shower *s = arg;
    if (s->n++ == 0) {
        printf("%s/%s/%s: %g x %s", o->provider, o->instance, o->region, o->gpu_count, o->gpu);
        if (o->vcpus > 0)
            printf(", %g vCPUs", o->vcpus);
        if (o->memory_gib > 0)
            printf(", %g GiB", o->memory_gib);
        printf("\n");
    }
    char kind[48];
    kind_label(o, kind, sizeof kind);
    if (strcmp(kind, s->last_kind) != 0) {
        printf("\n  %s\n", kind);
        snprintf(s->last_kind, sizeof s->last_kind, "%s", kind);
        s->last = NAN;
    }
    printf("    %s  %10.4f %s/h  (%.4f per GPU-hour)", o->effective_from, o->hourly, o->currency,
           o->hourly / o->gpu_count);
    if (!isnan(s->last) && s->last > 0)
        printf("  %+.1f%%", (o->hourly / s->last - 1) * 100);
    if (o->has_range)
        printf("  [min %.4f, max %.4f]", o->low, o->high);
    printf("  %s\n", o->source);
    s->last = o->hourly;
    return 0;
}

static int split_ref(const char *ref, char *prov, char *inst, char *region) {
    const char *a = strchr(ref, '/'), *b = a ? strchr(a + 1, '/') : NULL;
    if (!a || !b || a == ref || b == a + 1 || !b[1] || a - ref >= 16 || b - a - 1 >= 96 ||
        strlen(b + 1) >= 64)
        return cli_usage_error("\"%s\" is not PROVIDER/INSTANCE/REGION", ref);
    snprintf(prov, 16, "%.*s", (int)(a - ref), ref);
    snprintf(inst, 96, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(region, 64, "%s", b + 1);
    return 0;
}

/* ---- specs, hardware, references ------------------------------------------------------------ */

static int spec_row(const gp_gpu_spec *g, const char *source, void *arg) {
    cJSON *arr = arg;
    static const char *const keys[GP_SPEC_N] = {"memory_gb",         "tdp_w",       "fp32_tflops",
                                                "fp16_tflops",       "bf16_tflops", "mem_bw_gbs",
                                                "fp32_matrix_tflops"};
    if (arr) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", g->name);
        cJSON_AddStringToObject(j, "full_name", g->full_name);
        for (int i = 0; i < GP_SPEC_N; i++) {
            if (g->has[i])
                cJSON_AddNumberToObject(j, keys[i], g->v[i]);
            else
                cJSON_AddNullToObject(j, keys[i]);
        }
        cJSON_AddStringToObject(j, "release_date", g->release_date);
        cJSON_AddStringToObject(j, "source", source);
        cJSON_AddItemToArray(arr, j);
        return 0;
    }
    char cells[GP_SPEC_N][16];
    for (int i = 0; i < GP_SPEC_N; i++)
        snprintf(cells[i], sizeof cells[i], g->has[i] ? "%.4g" : "-", g->v[i]);
    printf("%-14s %-32.32s %8s %7s %9s %9s %9s %9s %9s  %-10s\n", g->name, g->full_name, cells[0],
           cells[1], cells[2], cells[6], cells[3], cells[4], cells[5], g->release_date);
    return 0;
}

static int hw_row(const gp_hw_price *h, const char *source, void *arg) {
    cJSON *arr = arg;
    if (arr) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "item", h->item);
        cJSON_AddStringToObject(j, "gpu", h->gpu);
        cJSON_AddNumberToObject(j, "gpus", h->gpus);
        cJSON_AddNumberToObject(j, "price_usd", h->price_usd);
        cJSON_AddStringToObject(j, "date", h->date);
        cJSON_AddStringToObject(j, "note", h->note);
        cJSON_AddStringToObject(j, "source", source);
        cJSON_AddItemToArray(arr, j);
        return 0;
    }
    char price[32];
    gp_fmt_money(h->price_usd, price, sizeof price);
    printf("%-14s %-46.46s %5d %14s  %s\n", h->gpu, h->item, h->gpus, price, h->date);
    return 0;
}

static int tariff_row(const gp_tariff_preset *t, const char *source, void *arg) {
    (void)arg;
    printf("%-14s %-10s %-40.40s %.60s\n  %s\n  source: %s\n", t->name, t->effective_from,
           t->utility, t->description, t->tariff_json, source);
    return 0;
}

static int elec_row(const gp_elec_price *e, const char *year, const char *source, void *arg) {
    int *n = arg;
    if ((*n)++ == 0)
        printf("%-22s %-12s %10s  %s\n", "REGION", "SECTOR", "PER KWH", "YEAR");
    printf("%-22s %-12s %10.4f  %s  %s\n", e->region, e->sector, e->price_per_kwh, year,
           *n == 1 ? source : "");
    return 0;
}

static int pue_row(const gp_pue_ref *p, const char *source, void *arg) {
    (void)arg;
    printf("%-8s %5.2f  %-50.50s %.60s\n", p->year, p->pue, p->scope, source);
    return 0;
}

static int source_row(const char *path, const char *kind, const char *date, const char *license,
                      const char *source, void *arg) {
    (void)arg;
    printf("%-62s %-20s %-10s %s\n    %s\n", path, kind, date, license, source);
    return 0;
}

/* ---- import ------------------------------------------------------------------------------------
 */

static int do_import(gp_session *ses, const char *what, const opts *o) {
    gp_err err;
    gp_err_clear(&err);
    gp_pricing_import_request rq = {what,      o->format,    o->provider,
                                    o->source, o->effective, o->strict,
                                    o->cacert, o->insecure,  isatty(STDERR_FILENO)};
    gp_catalog_batch b;
    gp_import_stats s;
    /* A download draws its own bar; a file (tens of MB for an offer file) gets the line. */
    bool line = strncmp(what, "http://", 7) && strncmp(what, "https://", 8);
    char msg[160];
    snprintf(msg, sizeof msg, "importing %.120s", what);
    if (line)
        cli_progress_begin(msg);
    gp_status st = gp_pricing_import(ses, &rq, &b, &s, &err);
    cli_progress_end();
    if (st)
        return cli_fail(&err);
    printf("imported %s as %s%s%s: %zu prices read, %zu added, %zu unchanged, %zu new offers\n",
           what, gp_catalog_format_name(b.format), b.provider[0] ? " for " : "", b.provider, b.n,
           s.added, s.unchanged, s.offers_new);
    if (b.ignored)
        printf("  %zu records are no GPU offer (CPU instances, TPUs, other products)\n", b.ignored);
    if (b.skipped) {
        printf("  %zu records skipped:\n", b.skipped);
        for (int i = 0; i < b.n_reasons; i++)
            printf("    %6zu  %s%s%s%s\n", b.reasons[i].count, b.reasons[i].reason,
                   b.reasons[i].first[0] ? " (first at " : "", b.reasons[i].first,
                   b.reasons[i].first[0] ? ")" : "");
    }
    gp_catalog_batch_done(&b);
    return 0;
}

/* ---- diff
 * ---------------------------------------------------------------------------------------- */

typedef struct differ {
    int n[4];
    int last_kind;
} differ;

static int diff_row(const gp_price_change *c, void *arg) {
    differ *d = arg;
    static const char *const titles[] = {"cheaper", "dearer", "appeared", "disappeared"};
    if ((int)c->kind != d->last_kind) {
        printf("\n%s:\n", titles[c->kind]);
        d->last_kind = (int)c->kind;
    }
    d->n[c->kind]++;
    char kind[48];
    kind_label(&c->now, kind, sizeof kind);
    printf("  %s/%s/%s %-28s ", c->now.provider, c->now.instance, c->now.region, kind);
    switch (c->kind) {
    case GP_CHEAPER:
    case GP_DEARER:
        printf("%.4f -> %.4f %s/h (%+.1f%%) since %s\n", c->before, c->now.hourly, c->now.currency,
               (c->now.hourly / c->before - 1) * 100, c->now.effective_from);
        break;
    case GP_APPEARED:
        printf("%.4f %s/h from %s\n", c->now.hourly, c->now.currency, c->now.effective_from);
        break;
    case GP_DISAPPEARED:
        printf("last %.4f %s/h, last listed %s\n", c->now.hourly, c->now.currency, c->last_seen);
        break;
    }
    return 0;
}

/* ---- the subcommands ---------------------------------------------------------------------- */

/* Each runs on the catalog with the parsed options and its one argument (NULL if it takes
 * none); it returns the exit status. */
typedef struct sub_ctx {
    gp_session *ses;
    const opts *o;
    const char *arg;
} sub_ctx;

static int sub_list(const sub_ctx *c) {
    return do_list(c->ses, c->o);
}

static int sub_show(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    char prov[16], inst[96], region[64];
    if (split_ref(c->arg, prov, inst, region))
        return 2;
    shower s = {0, "", NAN};
    if (gp_pricing_history(c->ses, prov, inst, region, show_row, &s, &err))
        return cli_fail(&err);
    return 0;
}

/* gpus and hardware: a table, or a JSON array with --json. */
static int sub_specs(const sub_ctx *c, bool gpus) {
    gp_err err;
    gp_err_clear(&err);
    const opts *o = c->o;
    cJSON *arr = o->json ? cJSON_CreateArray() : NULL;
    gp_status rc;
    if (gpus) {
        if (!o->json)
            printf("%-14s %-32s %8s %7s %9s %9s %9s %9s %9s  %s\n", "GPU", "SPEC", "MEM GB",
                   "TDP W", "FP32 TF", "FP32M TF", "FP16 TF", "BF16 TF", "BW GB/s", "RELEASED");
        rc = gp_pricing_specs(c->ses, o->f.gpu, spec_row, arr, &err);
    } else {
        if (!o->json)
            printf("%-14s %-46s %5s %14s  %s\n", "GPU", "ITEM", "GPUS", "PRICE USD", "DATE");
        rc = gp_pricing_hardware(c->ses, o->f.gpu, hw_row, arr, &err);
    }
    if (rc) {
        cJSON_Delete(arr);
        return cli_fail(&err);
    }
    return o->json ? print_json(arr) : 0;
}

static int sub_gpus(const sub_ctx *c) {
    return sub_specs(c, true);
}

static int sub_hardware(const sub_ctx *c) {
    return sub_specs(c, false);
}

static int sub_tariffs(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    return gp_pricing_tariffs(c->ses, tariff_row, NULL, &err) ? cli_fail(&err) : 0;
}

static int sub_tariff(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    gp_tariff_preset t;
    if (gp_pricing_tariff(c->ses, c->arg, &t, &err))
        return cli_fail(&err);
    cJSON *j = cJSON_Parse(t.tariff_json);
    return j ? print_json(j) : cli_usage_error("stored tariff is not JSON");
}

static int sub_electricity(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    int n = 0;
    return gp_pricing_electricity(c->ses, elec_row, &n, &err) ? cli_fail(&err) : 0;
}

static int sub_pue(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    return gp_pricing_pue_refs(c->ses, pue_row, NULL, &err) ? cli_fail(&err) : 0;
}

static int sub_sources(const sub_ctx *c) {
    (void)c;
    gp_err err;
    gp_err_clear(&err);
    return gp_pricing_sources(source_row, NULL, &err) ? cli_fail(&err) : 0;
}

static int api_import(gp_session *ses, const char *what, const opts *o);

static int sub_import(const sub_ctx *c) {
    if (c->o->format && !strcmp(c->o->format, "api"))
        return api_import(c->ses, c->arg, c->o);
    return do_import(c->ses, c->arg, c->o);
}

static int sub_reload(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    gp_bundle_stats bs;
    if (gp_pricing_reload(c->ses, &bs, &err))
        return cli_fail(&err);
    printf("loaded %zu bundled files: %zu prices added, %zu unchanged, %zu skipped, "
           "in %.2f s\n",
           bs.files, bs.prices_added, bs.prices_unchanged, bs.skipped, bs.seconds);
    return 0;
}

static int sub_diff(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    const char *since = c->o->since;
    if (!since)
        return cli_usage_error("pricing diff needs --since DATE");
    differ d = {{0}, -1};
    if (gp_pricing_diff(c->ses, since, diff_row, &d, &err))
        return cli_fail(&err);
    printf("\n%d cheaper, %d dearer, %d appeared, %d disappeared since %s\n", d.n[0], d.n[1],
           d.n[2], d.n[3], since);
    return 0;
}

/* fx list / fx import: the argument is "list" or "import" (then the file's path after it). */
static int fx_row(const gp_fx_rate *r, const char *source, int history, void *arg) {
    int *n = arg;
    (*n)++;
    printf("%s/%s  %12.6g  from %s  (%d dated)  %s\n", r->base, r->quote, r->rate, r->date, history,
           source);
    return 0;
}

static int sub_fx(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    if (!strcmp(c->arg, "list")) {
        int n = 0;
        if (gp_pricing_fx_list(c->ses, c->o->as_of, c->o->currency, fx_row, &n, &err))
            return cli_fail(&err);
        if (n == 0)
            printf("no exchange rate in force on %s%s%s\n", c->o->as_of,
                   c->o->currency ? " for " : "", c->o->currency ? c->o->currency : "");
        return 0;
    }
    return cli_usage_error("pricing fx: \"%s\" is not list or import FILE|URL", c->arg);
}

static int fx_import(gp_session *ses, const char *what, const opts *o) {
    gp_err err;
    gp_err_clear(&err);
    gp_pricing_import_request rq = {.what = what,
                                    .source = o->source,
                                    .cacert = o->cacert,
                                    .insecure = o->insecure,
                                    .progress = isatty(STDERR_FILENO)};
    gp_fx_import_stats s;
    if (gp_pricing_fx_import(ses, &rq, &s, &err))
        return cli_fail(&err);
    printf("imported %s: %zu dated rows, %zu rates added, %zu already held\n", what, s.rows,
           s.added, s.kept);
    return 0;
}

/* api list / api import: hosted-model prices per million tokens. */
static int api_row(const gp_api_price *p, int history, void *arg) {
    int *n = arg;
    char src[GP_API_SOURCE_BYTES];
    if ((*n)++ == 0)
        printf("%-16s %-28s %10s %10s %-4s %-10s %7s  %s\n", "PROVIDER", "MODEL", "IN/M", "OUT/M",
               "CUR", "FROM", "DATED", "SOURCE");
    printf("%-16s %-28s %10.4f %10.4f %-4s %-10s %7d  %s\n", p->provider, p->model, p->input_per_m,
           p->output_per_m, p->currency, p->effective_from, history,
           cli_text(p->source, src, sizeof src));
    return 0;
}

static int sub_api(const sub_ctx *c) {
    gp_err err;
    gp_err_clear(&err);
    if (!strcmp(c->arg, "list")) {
        int n = 0;
        const opts *o = c->o;
        if (gp_pricing_api_list(c->ses, o->history ? NULL : o->as_of, o->provider, o->model,
                                api_row, &n, &err))
            return cli_fail(&err);
        if (n == 0)
            printf("no API price%s%s%s%s%s\n", o->history ? "" : " in force on ",
                   o->history ? "" : o->as_of, o->model ? " for " : "", o->model ? o->model : "",
                   o->provider ? " at that provider" : "");
        return 0;
    }
    return cli_usage_error("pricing api: \"%s\" is not list or import FILE|URL", c->arg);
}

static int api_import(gp_session *ses, const char *what, const opts *o) {
    gp_err err;
    gp_err_clear(&err);
    gp_pricing_import_request rq = {.what = what,
                                    .cacert = o->cacert,
                                    .insecure = o->insecure,
                                    .progress = isatty(STDERR_FILENO)};
    gp_api_import_stats s;
    if (gp_pricing_api_import(ses, &rq, &s, &err))
        return cli_fail(&err);
    printf("imported %s: %zu API prices read, %zu added, %zu already held\n", what, s.rows, s.added,
           s.kept);
    return 0;
}

static const struct {
    const char *name;
    bool takes_arg;
    int (*run)(const sub_ctx *c);
} subs[] = {{"list", false, sub_list},
            {"show", true, sub_show},
            {"gpus", false, sub_gpus},
            {"hardware", false, sub_hardware},
            {"tariffs", false, sub_tariffs},
            {"tariff", true, sub_tariff},
            {"electricity", false, sub_electricity},
            {"pue", false, sub_pue},
            {"sources", false, sub_sources},
            {"import", true, sub_import},
            {"reload", false, sub_reload},
            {"diff", false, sub_diff},
            {"fx", true, sub_fx},
            {"api", true, sub_api}};

/* ---- dispatch -----------------------------------------------------------------------------------
 */

int cmd_pricing(gp_session *ses, int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error(
            "pricing: which one? list, show, gpus, hardware, tariffs, tariff, "
            "electricity, pue, import, diff, sources, reload, fx, api (see --help)");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        help(stdout);
        return 0;
    }
    opts o;
    int first, prc = parse_opts(argc - 1, argv + 1, &o, &first);
    if (prc)
        return prc < 0 ? 0 : prc;
    int nargs = argc - 1 - first;
    char **args = argv + 1 + first;
    int k = 0, n_subs = (int)(sizeof subs / sizeof subs[0]);
    while (k < n_subs && strcmp(sub, subs[k].name) != 0)
        k++;
    /* An unknown subcommand takes no arguments: said so before it is found unknown. */
    bool takes_arg = k < n_subs && subs[k].takes_arg;
    /* fx import FILE: the one subcommand of two words and an argument. */
    if (k < n_subs && !strcmp(sub, "fx") && nargs == 2 && !strcmp(args[0], "import"))
        return fx_import(ses, args[1], &o);
    if (k < n_subs && !strcmp(sub, "api") && nargs == 2 && !strcmp(args[0], "import"))
        return api_import(ses, args[1], &o);
    if (nargs != (takes_arg ? 1 : 0))
        return cli_usage_error("pricing %s takes %s", sub,
                               takes_arg ? "one argument" : "no arguments");
    gp_err err;
    gp_err_clear(&err);
    sub_ctx c = {ses, &o, takes_arg ? args[0] : NULL};
    if (gp_pricing_ready(ses, &err))
        return cli_fail(&err);
    if (k == n_subs)
        return cli_usage_error("unknown pricing command \"%s\" (see gpuplan pricing --help)", sub);
    return subs[k].run(&c);
}
