/* gpuplan capacity, scenario measure, plan --mix: telemetry turned into the numbers a plan
 * needs. The figures come from model/capacity.c over the store's capacity rollups. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuplan/collect.h"
#include "gpuplan/model.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/store_telemetry.h"

/* ---- shared: window, selection, price ----------------------------------------------------- */

typedef struct cap_opts {
    long long since_ms;
    const char *nodes[64];
    int n_nodes;
    char gpu[GP_GPU_NAME_BYTES];
    bool has_gpu;
    int threshold;
    bool has_price;
    double price, pue;
    char currency[4];
    char nodes_json[4096];
} cap_opts;

/* The defaults: 30 days, every node and GPU, busy at 5 %, no price (PUE 1, USD). */
static void cap_opts_init(cap_opts *o) {
    memset(o, 0, sizeof *o);
    o->since_ms = 30LL * 86400000;
    o->threshold = 5;
    o->pue = 1.0;
    snprintf(o->currency, sizeof o->currency, "USD");
}

static bool parse_since(const char *s, long long *ms) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return false;
    double unit = !strcmp(end, "d")   ? 86400e3
                  : !strcmp(end, "h") ? 3600e3
                  : !strcmp(end, "w") ? 7 * 86400e3
                                      : -1;
    if (unit < 0 || v * unit > 3650 * 86400e3)
        return false;
    *ms = (long long)(v * unit);
    return true;
}

static void selection(cap_opts *o, gp_cap_select *sel, int64_t now) {
    sel->from_ms = now - o->since_ms;
    sel->to_ms = now + 1;
    sel->gpu = o->has_gpu ? o->gpu : NULL;
    sel->nodes_json = NULL;
    if (o->n_nodes) {
        cJSON *a = cJSON_CreateArray();
        for (int i = 0; i < o->n_nodes; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(o->nodes[i]));
        char *t = cJSON_PrintUnformatted(a);
        snprintf(o->nodes_json, sizeof o->nodes_json, "%s", t ? t : "[]");
        free(t);
        cJSON_Delete(a);
        sel->nodes_json = o->nodes_json;
    }
}

/* A scenario's power price: its tariff's time-weighted mean, and its PUE. */
static gp_status price_from_scenario(gp_session *ses, const char *arg, cap_opts *o, gp_err *err) {
    gp_loaded sc;
    char today[11];
    gp_today(today);
    if (gp_load_scenario(ses, arg, 0, today, &sc, err))
        return err->code;
    o->has_price = true;
    o->price = gp_tariff_mean_price(sc.s);
    o->pue = sc.s->pue;
    snprintf(o->currency, sizeof o->currency, "%s", sc.s->currency);
    gp_loaded_done(&sc);
    return GP_OK;
}

/* ---- collecting the window ---------------------------------------------------------------- */

typedef struct gpu_row {
    gp_cap_gpu g;
    char node[128], host[128], uuid[96], model[64], mig[32];
} gpu_row;

typedef struct gathered {
    gpu_row *rows;
    size_t n, cap;
    gp_cap_bucket *b;
    size_t nb, capb;
} gathered;

static int take_gpu(const gp_cap_gpu *g, void *arg) {
    gathered *x = arg;
    x->rows = gp_xgrow(x->rows, &x->cap, x->n, sizeof *x->rows, 64);
    gpu_row *r = &x->rows[x->n++];
    r->g = *g;
    snprintf(r->node, sizeof r->node, "%s", g->node);
    snprintf(r->host, sizeof r->host, "%s", g->host);
    snprintf(r->uuid, sizeof r->uuid, "%s", g->uuid);
    snprintf(r->model, sizeof r->model, "%s", g->model);
    snprintf(r->mig, sizeof r->mig, "%s", g->mig);
    r->g.node = r->node, r->g.host = r->host, r->g.uuid = r->uuid, r->g.model = r->model;
    r->g.mig = r->mig;
    return 0;
}

static int take_bucket(const gp_cap_bucket *b, void *arg) {
    gathered *x = arg;
    x->b = gp_xgrow(x->b, &x->capb, x->nb, sizeof *x->b, 1024);
    x->b[x->nb++] = *b;
    return 0;
}

static void gathered_done(gathered *x) {
    free(x->rows);
    free(x->b);
}

static gp_status gather(gp_store *st, const gp_cap_select *sel, int threshold, gathered *x,
                        gp_err *err) {
    memset(x, 0, sizeof *x);
    if (gp_store_capacity_gpus(st, sel, take_gpu, x, err) ||
        gp_store_capacity_buckets(st, sel, threshold, take_bucket, x, err))
        return err->code;
    return GP_OK;
}

/* Whole physical GPUs of the selection (MIG instances are parts of one). */
static long long whole_gpus(const gathered *x) {
    long long n = 0;
    for (size_t i = 0; i < x->n; i++)
        n += x->rows[i].mig[0] == '\0';
    return n;
}

/* ---- capacity ---------------------------------------------------------------------------------
 */

static void capacity_help(FILE *f) {
    fprintf(
        f,
        "usage: gpuplan capacity [--since 30d] [--node NAME]... [--gpu MODEL]\n"
        "                        [--price-per-kwh X | --scenario NAME|FILE] [--busy-threshold 5]\n"
        "                        [--by LABEL] [--ldc] [--json | --csv]\n\n"
        "Utilization, power, energy and memory per GPU, node, GPU model and fleet from stored\n"
        "telemetry; idle GPUs and what they cost; money per node; the fleet's load duration\n"
        "curve (busy GPU equivalents per 5-minute bucket, sorted); wall power against GPU\n"
        "power where Redfish reports it. A GPU is busy in a 5-minute bucket when its mean\n"
        "utilization there is at least the threshold (a multiple of 5). --by LABEL attributes\n"
        "GPU-hours, energy and cost to a workload label (namespace, pod, a job id). --ldc\n"
        "prints the whole curve as CSV; --csv one row a GPU. Missing data is counted, never\n"
        "interpolated.\n");
}

typedef struct group {
    char key[160];
    gp_cap_gpu sum;
    long long gpus;
    double power_now_w;
} group;

static group *group_of(group **gs, size_t *n, size_t *cap, const char *key) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*gs)[i].key, key))
            return &(*gs)[i];
    *gs = gp_xgrow(*gs, cap, *n, sizeof **gs, 16);
    group *g = &(*gs)[(*n)++];
    memset(g, 0, sizeof *g);
    snprintf(g->key, sizeof g->key, "%s", key);
    return g;
}

static cJSON *figures_json(const gp_cap_figures *f, const cap_opts *o, bool idle_cost) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "hours", f->hours);
    cJSON_AddNumberToObject(j, "util_mean", f->util_mean / 100);
    cJSON_AddNumberToObject(j, "util_p50", f->util_p50 / 100);
    cJSON_AddNumberToObject(j, "util_p95", f->util_p95 / 100);
    cJSON_AddNumberToObject(j, "util_p99", f->util_p99 / 100);
    cJSON_AddNumberToObject(j, "busy_share", f->busy_share);
    cJSON_AddNumberToObject(j, "busy_hours_per_day", f->busy_hours_per_day);
    if (f->has_power) {
        cJSON_AddNumberToObject(j, "power_mean_w", f->power_mean_w);
        cJSON_AddNumberToObject(j, "energy_kwh", f->energy_kwh);
    }
    if (f->has_idle_w)
        cJSON_AddNumberToObject(j, "idle_w", f->idle_w);
    if (f->has_busy_w)
        cJSON_AddNumberToObject(j, "busy_w", f->busy_w);
    if (idle_cost && o->has_price && f->has_power)
        cJSON_AddNumberToObject(j, "idle_cost_per_month",
                                f->power_mean_w * GP_MONTH_HOURS / 1000 * o->price * o->pue);
    return j;
}

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

typedef struct label_out {
    cJSON *arr;
    const cap_opts *o;
    bool json;
} label_out;

static int print_label(const gp_cap_label *l, void *arg) {
    label_out *lo = arg;
    double gpu_hours = l->util_sum / 100.0 * 5.0 / 60.0;
    double kwh = l->power_sum * 5.0 / 60.0 / 1000.0 * lo->o->pue;
    if (lo->json) {
        cJSON *j = cJSON_CreateObject();
        if (l->value)
            cJSON_AddStringToObject(j, "value", l->value);
        else
            cJSON_AddNullToObject(j, "value");
        cJSON_AddNumberToObject(j, "gpu_hours_used", gpu_hours);
        cJSON_AddNumberToObject(j, "gpu_hours_present", l->buckets * 5.0 / 60.0);
        cJSON_AddNumberToObject(j, "energy_kwh", kwh);
        if (lo->o->has_price)
            cJSON_AddNumberToObject(j, "cost", kwh * lo->o->price);
        cJSON_AddItemToArray(lo->arr, j);
        return 0;
    }
    char v[64];
    snprintf(v, sizeof v, "%.60s", l->value ? l->value : "(no label)");
    for (char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
    printf("  %-40s %12.1f %12.1f", v, gpu_hours, kwh);
    if (lo->o->has_price)
        printf(" %12.2f", kwh * lo->o->price);
    printf("\n");
    return 0;
}

typedef struct wall {
    const gathered *x;
    cJSON *arr;
    bool json;
    double base_sum;
    int base_n;
} wall;

static int print_wall(const char *node, double mean_w, void *arg) {
    wall *w = arg;
    double gpus_w = 0;
    for (size_t i = 0; i < w->x->n; i++) {
        const gpu_row *r = &w->x->rows[i];
        if (!strcmp(r->node, node) && !r->mig[0] && r->g.power_n)
            gpus_w += r->g.power_sum / (double)r->g.power_n;
    }
    w->base_sum += mean_w - gpus_w;
    w->base_n++;
    if (w->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "node", node);
        cJSON_AddNumberToObject(j, "wall_w", mean_w);
        cJSON_AddNumberToObject(j, "gpus_w", gpus_w);
        cJSON_AddNumberToObject(j, "non_gpu_w", mean_w - gpus_w);
        cJSON_AddItemToArray(w->arr, j);
    } else {
        printf("  %-24.24s wall %8.1f W, GPUs %8.1f W: %8.1f W besides the GPUs (server_base_w)\n",
               node, mean_w, gpus_w, mean_w - gpus_w);
    }
    return 0;
}

/* What capacity, scenario measure and plan take besides the selection; each command reads
 * the fields it documents. */
typedef struct cap_flags {
    bool json, csv, ldc, help;
    const char *by;           /* --by LABEL */
    const char *mix, *option; /* plan --mix SCENARIO --option NAME */
    bool has_growth, trend;   /* --growth RATE or --growth trend */
    double growth, target;    /* a month's rate; the utilization aimed at */
} cap_flags;

static int parse_common(int argc, char **argv, gp_session *ses, cap_opts *o, cap_flags *f) {
    *f = (cap_flags){.target = 0.7};
    enum {
        C_SINCE = 256,
        C_NODE,
        C_GPU,
        C_PRICE,
        C_SCEN,
        C_THR,
        C_BY,
        C_LDC,
        C_JSON,
        C_CSV,
        C_OPTION,
        C_MIX,
        C_GROWTH,
        C_TARGET
    };
    static const struct option longs[] = {{"since", required_argument, NULL, C_SINCE},
                                          {"node", required_argument, NULL, C_NODE},
                                          {"gpu", required_argument, NULL, C_GPU},
                                          {"price-per-kwh", required_argument, NULL, C_PRICE},
                                          {"scenario", required_argument, NULL, C_SCEN},
                                          {"busy-threshold", required_argument, NULL, C_THR},
                                          {"by", required_argument, NULL, C_BY},
                                          {"ldc", no_argument, NULL, C_LDC},
                                          {"json", no_argument, NULL, C_JSON},
                                          {"csv", no_argument, NULL, C_CSV},
                                          {"option", required_argument, NULL, C_OPTION},
                                          {"mix", required_argument, NULL, C_MIX},
                                          {"growth", required_argument, NULL, C_GROWTH},
                                          {"target", required_argument, NULL, C_TARGET},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    opterr = 0;
    gp_err err;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case C_SINCE:
            if (!parse_since(optarg, &o->since_ms))
                return cli_usage_error("--since: \"%s\" is not a window like 30d, 12h or 2w",
                                       optarg);
            break;
        case C_NODE:
            if (o->n_nodes == 64)
                return cli_usage_error("at most 64 --node");
            o->nodes[o->n_nodes++] = optarg;
            break;
        case C_GPU:
            gp_gpu_normalize(optarg, 0, o->gpu, sizeof o->gpu);
            o->has_gpu = true;
            break;
        case C_PRICE:
            if (!gp_parse_double(optarg, &o->price) || o->price < 0)
                return cli_usage_error("--price-per-kwh: \"%s\" is not a price", optarg);
            o->has_price = true;
            break;
        case C_SCEN:
            if (price_from_scenario(ses, optarg, o, &err))
                return cli_fail(&err);
            break;
        case C_THR:
            if (!gp_parse_int(optarg, &o->threshold) || o->threshold < 5 || o->threshold > 100 ||
                o->threshold % 5)
                return cli_usage_error("--busy-threshold: a multiple of 5 from 5 to 100 (the "
                                       "rollups keep 5 %% bins)");
            break;
        case C_BY:
            f->by = optarg;
            break;
        case C_LDC:
            f->ldc = true;
            break;
        case C_JSON:
            f->json = true;
            break;
        case C_CSV:
            f->csv = true;
            break;
        case C_OPTION:
            f->option = optarg;
            break;
        case C_MIX:
            f->mix = optarg;
            break;
        case C_GROWTH:
            f->has_growth = true;
            if (!strcmp(optarg, "trend")) {
                f->trend = true;
            } else {
                char buf[32];
                snprintf(buf, sizeof buf, "%s", optarg);
                char *slash = strstr(buf, "/month");
                if (slash)
                    *slash = '\0';
                size_t n = strlen(buf);
                bool pct = n && buf[n - 1] == '%';
                if (pct)
                    buf[n - 1] = '\0';
                if (!gp_parse_double(buf, &f->growth) || f->growth <= -100 || f->growth > 1000)
                    return cli_usage_error("--growth: 5%%/month, or trend");
                f->growth /= pct || f->growth >= 1 ? 100 : 1;
            }
            break;
        case C_TARGET:
            if (!gp_parse_double(optarg, &f->target) || !(f->target > 0 && f->target <= 1))
                return cli_usage_error("--target: a utilization in (0, 1]");
            break;
        case 'h':
            f->help = true;
            return 0;
        default:
            return cli_usage_error("unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        }
    }
    return 0;
}

int cmd_capacity(gp_session *ses, int argc, char **argv) {
    cap_opts o;
    cap_opts_init(&o);
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &o, &flags);
    if (rc)
        return rc;
    if (flags.help) {
        capacity_help(stdout);
        return 0;
    }
    if (optind != argc || flags.mix || flags.option)
        return cli_usage_error("capacity takes no arguments (see --help)");
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    if (gp_session_store(ses, &st, &err))
        return cli_fail(&err);
    int64_t now = gp_now_ms();
    gp_cap_select sel;
    selection(&o, &sel, now);
    gathered x;
    if (gather(st, &sel, o.threshold, &x, &err)) {
        gathered_done(&x);
        return cli_fail(&err);
    }
    long long expected = whole_gpus(&x) + 0;
    /* Complete buckets: every GPU of the selection (MIG instances included) reported. */
    long long units = (long long)x.n;
    double *ldcv = gp_xmalloc((x.nb + 1) * sizeof *ldcv);
    size_t nl = 0, partial = 0;
    for (size_t i = 0; i < x.nb; i++) {
        if (x.b[i].gpus >= units)
            ldcv[nl++] = x.b[i].util_sum / 100.0;
        else
            partial++;
    }
    qsort(ldcv, nl, sizeof *ldcv, cmp_desc);
    long long window = o.since_ms / 300000;
    long long empty = window - (long long)x.nb;
    if (empty < 0)
        empty = 0;

    if (flags.ldc) {
        printf("rank,hours_at_or_above,busy_gpu_equivalents\n");
        for (size_t i = 0; i < nl; i++)
            printf("%zu,%.4f,%.6f\n", i + 1, (i + 1) * 5.0 / 60.0, ldcv[i]);
        free(ldcv);
        gathered_done(&x);
        return 0;
    }
    if (flags.csv) {
        printf("node,host,gpu,uuid,model,mig,hours,util_mean,util_p50,util_p95,util_p99,"
               "busy_share,busy_hours_per_day,power_mean_w,power_p95_w,power_limit_w,energy_kwh,"
               "mem_headroom,idle\n");
        for (size_t i = 0; i < x.n; i++) {
            gp_cap_figures f;
            gp_cap_figures_of(&x.rows[i].g, o.threshold, &f);
            gp_buf line;
            gp_buf_init(&line, 4096);
            const gpu_row *r = &x.rows[i];
            gp_csv_field(&line, r->node);
            gp_buf_add(&line, ",", 1);
            gp_csv_field(&line, r->host);
            gp_buf_printf(&line, ",%d,", r->g.index);
            gp_csv_field(&line, r->uuid);
            gp_buf_add(&line, ",", 1);
            gp_csv_field(&line, r->model);
            gp_buf_add(&line, ",", 1);
            gp_csv_field(&line, r->mig);
            gp_buf_printf(&line, ",%.4f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,", f.hours, f.util_mean / 100,
                          f.util_p50 / 100, f.util_p95 / 100, f.util_p99 / 100, f.busy_share,
                          f.busy_hours_per_day);
            if (f.has_power)
                gp_buf_printf(&line, "%.3f,%.3f,", f.power_mean_w, r->g.power_p95_w);
            else
                gp_buf_add(&line, ",,", 2);
            if (r->g.has_limit)
                gp_buf_printf(&line, "%.1f", r->g.power_limit_w);
            gp_buf_printf(&line, ",%.4f,", f.energy_kwh);
            if (r->g.has_mem && r->g.mem_total_mib > 0)
                gp_buf_printf(&line, "%.6f", 1 - r->g.mem_used_p95_mib / r->g.mem_total_mib);
            gp_buf_printf(&line, ",%d\n", f.idle);
            fputs(line.data, stdout);
            gp_buf_done(&line);
        }
        free(ldcv);
        gathered_done(&x);
        return 0;
    }

    /* Groups: fleet, per model, per node. */
    gp_cap_gpu fleet = {0};
    group *models = NULL, *nodes = NULL;
    size_t nm = 0, cm = 0, nn = 0, cn = 0;
    for (size_t i = 0; i < x.n; i++) {
        gp_cap_gpu_merge(&fleet, &x.rows[i].g);
        group *m = group_of(&models, &nm, &cm, x.rows[i].model[0] ? x.rows[i].model : "?");
        gp_cap_gpu_merge(&m->sum, &x.rows[i].g);
        m->gpus += !x.rows[i].mig[0];
        group *n = group_of(&nodes, &nn, &cn, x.rows[i].node);
        gp_cap_gpu_merge(&n->sum, &x.rows[i].g);
        n->gpus += !x.rows[i].mig[0];
    }
    gp_cap_figures ff;
    gp_cap_figures_of(&fleet, o.threshold, &ff);
    static const double qs[] = {0, 0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1};
    /* Ascending copy for quantiles of the load (the curve itself is printed descending). */
    double *asc = gp_xmalloc((nl + 1) * sizeof *asc);
    for (size_t i = 0; i < nl; i++)
        asc[i] = ldcv[nl - 1 - i];

    if (flags.json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddNumberToObject(doc, "since_ms", (double)sel.from_ms);
        cJSON_AddNumberToObject(doc, "until_ms", (double)now);
        cJSON_AddNumberToObject(doc, "busy_threshold", o.threshold / 100.0);
        cJSON_AddNumberToObject(doc, "gpus", (double)expected);
        if (o.has_price) {
            cJSON_AddNumberToObject(doc, "price_per_kwh", o.price);
            cJSON_AddNumberToObject(doc, "pue", o.pue);
            cJSON_AddStringToObject(doc, "currency", o.currency);
        }
        cJSON *gaps = cJSON_AddObjectToObject(doc, "buckets");
        cJSON_AddNumberToObject(gaps, "window", (double)window);
        cJSON_AddNumberToObject(gaps, "complete", (double)nl);
        cJSON_AddNumberToObject(gaps, "partial", (double)partial);
        cJSON_AddNumberToObject(gaps, "empty", (double)empty);
        cJSON_AddItemToObject(doc, "fleet", figures_json(&ff, &o, false));
        cJSON *ms = cJSON_AddObjectToObject(doc, "models");
        for (size_t i = 0; i < nm; i++) {
            gp_cap_figures f;
            gp_cap_figures_of(&models[i].sum, o.threshold, &f);
            cJSON *j = figures_json(&f, &o, false);
            cJSON_AddNumberToObject(j, "gpus", (double)models[i].gpus);
            cJSON_AddItemToObject(ms, models[i].key, j);
        }
        cJSON *ns = cJSON_AddObjectToObject(doc, "nodes");
        for (size_t i = 0; i < nn; i++) {
            gp_cap_figures f;
            gp_cap_figures_of(&nodes[i].sum, o.threshold, &f);
            cJSON *j = figures_json(&f, &o, false);
            cJSON_AddNumberToObject(j, "gpus", (double)nodes[i].gpus);
            if (o.has_price && f.has_power) {
                double kwh = f.energy_kwh * o.pue;
                double idle_kwh = (nodes[i].sum.power_sum - nodes[i].sum.busy_power_sum) * 5.0 /
                                  60.0 / 1000.0 * o.pue;
                double busy_h = f.busy_share * f.hours;
                cJSON_AddNumberToObject(j, "power_cost_per_hour",
                                        f.power_mean_w * nodes[i].gpus / 1000 * o.price * o.pue);
                cJSON_AddNumberToObject(j, "facility_kwh", kwh);
                if (busy_h > 0)
                    cJSON_AddNumberToObject(j, "cost_per_useful_gpu_hour", kwh * o.price / busy_h);
                cJSON_AddNumberToObject(j, "idle_cost", idle_kwh * o.price);
            }
            cJSON_AddItemToObject(ns, nodes[i].key, j);
        }
        cJSON *gs = cJSON_AddArrayToObject(doc, "gpu_list");
        for (size_t i = 0; i < x.n; i++) {
            gp_cap_figures f;
            gp_cap_figures_of(&x.rows[i].g, o.threshold, &f);
            cJSON *j = figures_json(&f, &o, true);
            cJSON_AddStringToObject(j, "node", x.rows[i].node);
            cJSON_AddStringToObject(j, "uuid", x.rows[i].uuid);
            cJSON_AddStringToObject(j, "model", x.rows[i].model);
            cJSON_AddNumberToObject(j, "index", x.rows[i].g.index);
            if (x.rows[i].mig[0])
                cJSON_AddStringToObject(j, "mig", x.rows[i].mig);
            if (x.rows[i].g.has_power_p95)
                cJSON_AddNumberToObject(j, "power_p95_w", x.rows[i].g.power_p95_w);
            if (x.rows[i].g.has_mem && x.rows[i].g.mem_total_mib > 0)
                cJSON_AddNumberToObject(j, "mem_headroom",
                                        1 - x.rows[i].g.mem_used_p95_mib /
                                                x.rows[i].g.mem_total_mib);
            cJSON_AddBoolToObject(j, "idle", f.idle);
            cJSON_AddItemToArray(gs, j);
        }
        cJSON *l = cJSON_AddObjectToObject(doc, "load_duration");
        for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
            char k[16];
            snprintf(k, sizeof k, "p%g", qs[q] * 100);
            cJSON_AddNumberToObject(l, k, gp_sorted_quantile(asc, nl, qs[q]));
        }
        wall w = {&x, cJSON_AddArrayToObject(doc, "wall_power"), true, 0, 0};
        gp_store_capacity_node_power(st, &sel, print_wall, &w, &err);
        if (flags.by) {
            label_out lo = {cJSON_AddArrayToObject(doc, "by_label"), &o, true};
            cJSON_AddStringToObject(doc, "label", flags.by);
            if (gp_store_capacity_by_label(st, &sel, flags.by, print_label, &lo, &err)) {
                cJSON_Delete(doc);
                free(ldcv), free(asc), free(models), free(nodes);
                gathered_done(&x);
                return cli_fail(&err);
            }
        }
        char *text = cJSON_Print(doc);
        puts(text);
        free(text);
        cJSON_Delete(doc);
    } else {
        char from[32], to[32];
        time_t a = (time_t)(sel.from_ms / 1000), b = (time_t)(now / 1000);
        struct tm tm;
        localtime_r(&a, &tm);
        strftime(from, sizeof from, "%Y-%m-%d %H:%M", &tm);
        localtime_r(&b, &tm);
        strftime(to, sizeof to, "%Y-%m-%d %H:%M", &tm);
        printf("Capacity of %lld GPUs on %zu nodes, %s to %s (busy: a 5-minute mean of at least "
               "%d %%)\n",
               expected, nn, from, to, o.threshold);
        if (!x.n) {
            printf("No utilization in the window: collect (gpuplan collect) or import first.\n");
        } else {
            printf("Data: %zu of %lld 5-minute buckets complete; %zu partial (some GPUs missing), "
                   "%lld empty. Missing data is left out, never interpolated.\n\n",
                   nl, window, partial, empty);
            printf("%-26s %5s %7s %6s %6s %6s %8s %9s %9s %10s\n", "", "GPUS", "MEAN", "P50", "P95",
                   "P99", "BUSY h/d", "POWER W", "P95 W", "kWh");
            for (int pass = 0; pass < 3; pass++) {
                size_t count = pass == 0 ? 1 : pass == 1 ? nm : nn;
                for (size_t i = 0; i < count; i++) {
                    const gp_cap_gpu *sum = pass == 0   ? &fleet
                                            : pass == 1 ? &models[i].sum
                                                        : &nodes[i].sum;
                    long long gpus = pass == 0   ? expected
                                     : pass == 1 ? models[i].gpus
                                                 : nodes[i].gpus;
                    char label[64];
                    snprintf(label, sizeof label, "%s%.20s",
                             pass == 0   ? "fleet"
                             : pass == 1 ? "model "
                                         : "node ",
                             pass == 0   ? ""
                             : pass == 1 ? models[i].key
                                         : nodes[i].key);
                    gp_cap_figures f;
                    gp_cap_figures_of(sum, o.threshold, &f);
                    printf("%-26s %5lld %6.1f%% %5.0f%% %5.0f%% %5.0f%% %8.1f ", label, gpus,
                           f.util_mean, f.util_p50, f.util_p95, f.util_p99, f.busy_hours_per_day);
                    if (f.has_power)
                        printf("%9.1f %9s %10.1f\n", f.power_mean_w, "", f.energy_kwh);
                    else
                        printf("%9s %9s %10s\n", "-", "", "-");
                }
            }
            printf("\nPer GPU:\n");
            int idle = 0;
            for (size_t i = 0; i < x.n; i++) {
                const gpu_row *r = &x.rows[i];
                gp_cap_figures f;
                gp_cap_figures_of(&r->g, o.threshold, &f);
                idle += f.idle;
                char head[80];
                snprintf(head, sizeof head, "%.14s gpu %d%s%.12s %.10s", r->node, r->g.index,
                         r->mig[0] ? " " : "", r->mig, r->model);
                for (char *p = head; *p; p++)
                    if ((unsigned char)*p < 0x20)
                        *p = '?';
                printf("  %-42s %6.1f%% p95 %4.0f%% busy %5.1f h/d", head, f.util_mean, f.util_p95,
                       f.busy_hours_per_day);
                if (f.has_power)
                    printf("  %6.1f W (p95 %.1f)", f.power_mean_w, r->g.power_p95_w);
                if (r->g.has_limit)
                    printf(" limit %.0f W", r->g.power_limit_w);
                if (r->g.has_mem && r->g.mem_total_mib > 0)
                    printf("  mem headroom %.0f%%",
                           100 * (1 - r->g.mem_used_p95_mib / r->g.mem_total_mib));
                printf("%s\n", f.idle ? "  IDLE" : "");
            }
            if (idle) {
                printf("\nIdle GPUs (mean utilization under 5 %%): %d", idle);
                if (o.has_price) {
                    double month = 0;
                    for (size_t i = 0; i < x.n; i++) {
                        gp_cap_figures f;
                        gp_cap_figures_of(&x.rows[i].g, o.threshold, &f);
                        if (f.idle && f.has_power)
                            month += f.power_mean_w * GP_MONTH_HOURS / 1000 * o.price * o.pue;
                    }
                    printf(", their power costs %.2f %s a month", month, o.currency);
                }
                printf("\n");
            }
            if (o.has_price) {
                printf("\nMoney per node (%.4g %s/kWh, PUE %g):\n", o.price, o.currency, o.pue);
                for (size_t i = 0; i < nn; i++) {
                    gp_cap_figures f;
                    gp_cap_figures_of(&nodes[i].sum, o.threshold, &f);
                    if (!f.has_power)
                        continue;
                    double kwh = f.energy_kwh * o.pue;
                    double idle_kwh = (nodes[i].sum.power_sum - nodes[i].sum.busy_power_sum) * 5.0 /
                                      60.0 / 1000.0 * o.pue;
                    double busy_h = f.busy_share * f.hours;
                    printf("  %-24.24s %8.3f /h of power, %10.1f kWh, %8.4f per useful GPU-hour, "
                           "%10.2f on idle capacity\n",
                           nodes[i].key, f.power_mean_w * nodes[i].gpus / 1000 * o.price * o.pue,
                           kwh, busy_h > 0 ? kwh * o.price / busy_h : 0, idle_kwh * o.price);
                }
            } else {
                printf("\n(Give --price-per-kwh or --scenario for what the power costs.)\n");
            }
            printf("\nLoad duration (busy GPU equivalents per 5-minute bucket, %zu buckets):\n ",
                   nl);
            for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++)
                printf(" p%g %.2f", qs[q] * 100, gp_sorted_quantile(asc, nl, qs[q]));
            printf("\n");
            wall w = {&x, NULL, false, 0, 0};
            printf("\nWall power against GPU power (Redfish):\n");
            gp_store_capacity_node_power(st, &sel, print_wall, &w, &err);
            if (!w.base_n)
                printf("  no Redfish readings in the window\n");
            if (flags.by) {
                printf("\nBy %s:\n  %-40s %12s %12s%s\n", flags.by, "value", "GPU-hours", "kWh",
                       o.has_price ? "         cost" : "");
                label_out lo = {NULL, &o, false};
                if (gp_store_capacity_by_label(st, &sel, flags.by, print_label, &lo, &err)) {
                    free(ldcv), free(asc), free(models), free(nodes);
                    gathered_done(&x);
                    return cli_fail(&err);
                }
            }
        }
    }
    free(ldcv);
    free(asc);
    free(models);
    free(nodes);
    gathered_done(&x);
    return 0;
}

/* ---- scenario measure --------------------------------------------------------------------- */

static void set_num(cJSON *obj, const char *key, double v) {
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (old)
        cJSON_SetNumberValue(old, v);
    else
        cJSON_AddNumberToObject(obj, key, v);
}

static cJSON *child_object(cJSON *obj, const char *key) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key);
    return o ? o : cJSON_AddObjectToObject(obj, key);
}

int cmd_scenario_measure(gp_session *ses, int argc, char **argv) {
    cap_opts o;
    cap_opts_init(&o);
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &o, &flags);
    if (rc)
        return rc;
    if (flags.help) {
        printf("usage: gpuplan scenario measure NAME [--since 30d] [--node NAME]... [--gpu MODEL]\n"
               "                                     [--busy-threshold 5]\n\n"
               "Writes a new version of stored scenario NAME with demand.gpus, demand.utilization\n"
               "(the busy share), power.gpu_idle_w and power.gpu_tdp_w (the mean draw of idle and\n"
               "of busy GPU-buckets, split at 5 %%) and, where Redfish reports wall power,\n"
               "power.server_base_w, all from the window, and records the window, nodes and\n"
               "figures in the scenario's \"measured\" object.\n");
        return 0;
    }
    if (argc - optind != 1)
        return cli_usage_error("scenario measure takes one scenario NAME");
    const char *name = argv[optind];
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    char *json_text = NULL;
    int version = 0;
    if (gp_session_store(ses, &st, &err) ||
        gp_store_scenario_get(st, name, 0, &json_text, &version, NULL, &err))
        return cli_fail(&err);
    cJSON *doc = cJSON_Parse(json_text);
    free(json_text);
    if (!doc)
        return cli_usage_error("stored scenario \"%s\" is not JSON", name);
    int64_t now = gp_now_ms();
    gp_cap_select sel;
    selection(&o, &sel, now);
    gathered x;
    if (gather(st, &sel, o.threshold, &x, &err)) {
        cJSON_Delete(doc);
        gathered_done(&x);
        return cli_fail(&err);
    }
    long long gpus = whole_gpus(&x);
    if (gpus == 0) {
        cJSON_Delete(doc);
        gathered_done(&x);
        return cli_usage_error("no utilization in the window: nothing to measure");
    }
    gp_cap_gpu fleet = {0};
    for (size_t i = 0; i < x.n; i++)
        if (!x.rows[i].mig[0])
            gp_cap_gpu_merge(&fleet, &x.rows[i].g);
    gp_cap_figures f;
    gp_cap_figures_of(&fleet, o.threshold, &f);
    wall w = {&x, NULL, true, 0, 0};
    w.arr = cJSON_CreateArray();
    gp_store_capacity_node_power(st, &sel, print_wall, &w, &err);

    cJSON *demand = child_object(doc, "demand");
    set_num(demand, "gpus", (double)gpus);
    set_num(demand, "utilization", f.busy_share);
    cJSON *sh = child_object(doc, "self_hosted");
    cJSON *power = child_object(sh, "power");
    if (f.has_idle_w || f.has_busy_w) {
        double idle_w = f.has_idle_w ? f.idle_w : f.busy_w,
               busy_w = f.has_busy_w ? f.busy_w : idle_w;
        if (busy_w < idle_w)
            busy_w = idle_w; /* the model needs busy >= idle */
        set_num(power, "gpu_idle_w", idle_w);
        set_num(power, "gpu_tdp_w", busy_w);
        /* A flat mean draw would override the measured split: the split is what was measured. */
        cJSON_DeleteItemFromObjectCaseSensitive(power, "gpu_avg_w");
    }
    bool has_base = w.base_n > 0 && w.base_sum / w.base_n >= 0;
    if (has_base)
        set_num(power, "server_base_w", w.base_sum / w.base_n);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "measured");
    cJSON *m = cJSON_AddObjectToObject(doc, "measured");
    char since[32], until[32];
    time_t a = (time_t)(sel.from_ms / 1000), b = (time_t)(now / 1000);
    struct tm tm;
    gmtime_r(&a, &tm);
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gmtime_r(&b, &tm);
    strftime(until, sizeof until, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(m, "since", since);
    cJSON_AddStringToObject(m, "until", until);
    cJSON *nodes = cJSON_AddArrayToObject(m, "nodes");
    for (size_t i = 0; i < x.n; i++) {
        bool seen = false;
        cJSON *it;
        cJSON_ArrayForEach(it, nodes) seen = seen || !strcmp(it->valuestring, x.rows[i].node);
        if (!seen)
            cJSON_AddItemToArray(nodes, cJSON_CreateString(x.rows[i].node));
    }
    if (o.has_gpu)
        cJSON_AddStringToObject(m, "gpu", o.gpu);
    cJSON_AddNumberToObject(m, "gpus", (double)gpus);
    cJSON_AddNumberToObject(m, "busy_threshold", o.threshold / 100.0);
    cJSON_AddNumberToObject(m, "gpu_buckets", (double)fleet.buckets);
    cJSON_AddNumberToObject(m, "utilization", f.busy_share);
    cJSON_AddNumberToObject(m, "util_mean", f.util_mean / 100);
    if (f.has_idle_w)
        cJSON_AddNumberToObject(m, "gpu_idle_w", f.idle_w);
    if (f.has_busy_w)
        cJSON_AddNumberToObject(m, "gpu_busy_w", f.busy_w);
    if (has_base)
        cJSON_AddNumberToObject(m, "server_base_w", w.base_sum / w.base_n);
    cJSON_AddItemToObject(m, "wall_power", w.arr);
    char *text = cJSON_Print(doc);
    gp_scenario *s = gp_xmalloc(sizeof *s);
    int new_version = 0;
    gp_status st_rc = gp_scenario_parse(text, strlen(text), name, s, NULL, &err);
    if (st_rc == GP_OK)
        st_rc = gp_store_scenario_save(st, s->name, text, &new_version, &err);
    if (st_rc == GP_OK)
        printf("saved \"%s\" as version %d: %lld GPUs, %.1f %% busy, idle %.1f W, busy %.1f W%s\n",
               s->name, new_version, gpus, f.busy_share * 100, f.has_idle_w ? f.idle_w : 0,
               f.has_busy_w ? f.busy_w : 0, has_base ? ", server base from Redfish" : "");
    free(s);
    free(text);
    cJSON_Delete(doc);
    gathered_done(&x);
    return st_rc == GP_OK ? 0 : cli_fail(&err);
}

/* ---- plan --mix ---------------------------------------------------------------------------- */

int cmd_plan(gp_session *ses, int argc, char **argv) {
    cap_opts o;
    cap_opts_init(&o);
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &o, &flags);
    if (rc)
        return rc;
    if (flags.help) {
        printf("usage: gpuplan plan --mix SCENARIO --option NAME [--since 30d] [--node NAME]...\n"
               "                    [--gpu MODEL] [--busy-threshold 5] [--csv]\n"
               "                    [--growth 5%%/month | --growth trend] [--target 0.7]\n\n"
               "The mixed fleet of MODEL.md: for every owned fleet size k from 0 to demand.gpus,\n"
               "the total of owning k GPUs and renting the overflow from the on-demand or spot\n"
               "option, over the measured load duration curve. Prints the optimum, the savings\n"
               "against all-own and all-rent and the curve (--csv: the whole curve). --growth\n"
               "projects demand over the horizon (a rate, or the least-squares trend of daily\n"
               "busy GPU-hours with its R^2) and says how many GPUs are needed at --target\n"
               "utilization and when the current fleet runs out.\n");
        return 0;
    }
    if (!flags.mix || !flags.option)
        return cli_usage_error("plan needs --mix SCENARIO and --option NAME (see --help)");
    if (optind != argc)
        return cli_usage_error("plan takes no other arguments");
    gp_err err;
    gp_err_clear(&err);
    char today[11];
    gp_today(today);
    gp_loaded sc;
    if (gp_load_scenario(ses, flags.mix, 0, today, &sc, &err))
        return cli_fail(&err);
    int oi = -1;
    for (int i = 0; i < sc.s->n_options; i++)
        if (!strcmp(sc.s->options[i].name, flags.option))
            oi = i;
    if (oi < 0) {
        gp_loaded_done(&sc);
        return cli_usage_error("the scenario has no option \"%s\"", flags.option);
    }
    gp_store *st;
    if (gp_session_store(ses, &st, &err)) {
        gp_loaded_done(&sc);
        return cli_fail(&err);
    }
    int64_t now = gp_now_ms();
    gp_cap_select sel;
    selection(&o, &sel, now);
    gathered x;
    if (gather(st, &sel, o.threshold, &x, &err)) {
        gp_loaded_done(&sc);
        gathered_done(&x);
        return cli_fail(&err);
    }
    /* b_t: GPUs busy in each complete bucket; buckets with a GPU missing are gaps. */
    double *b = gp_xmalloc((x.nb + 1) * sizeof *b);
    long long units = (long long)x.n;
    size_t nt = gp_cap_complete_load(x.b, x.nb, units, b), gaps = x.nb - nt;
    if (nt == 0) {
        free(b);
        gp_loaded_done(&sc);
        gathered_done(&x);
        return cli_usage_error("no complete 5-minute buckets in the window: no load to plan on");
    }
    int n = sc.s->gpus;
    double *curve = gp_xmalloc(((size_t)n + 1) * sizeof *curve);
    int best = 0;
    if (gp_model_mix(sc.s, oi, b, nt, curve, &best, &err)) {
        free(b), free(curve);
        gp_loaded_done(&sc);
        gathered_done(&x);
        return cli_fail(&err);
    }
    if (flags.csv) {
        printf("owned_gpus,total\n");
        for (int k = 0; k <= n; k++)
            printf("%d,%.17g\n", k, curve[k]);
    } else {
        char t[64], own[64], rent[64];
        gp_format_money(curve[best], t, sizeof t);
        gp_format_money(curve[n] - curve[best], own, sizeof own);
        gp_format_money(curve[0] - curve[best], rent, sizeof rent);
        printf("Own %d of %d GPUs and rent the overflow from \"%s\": %s %s over %d months.\n", best,
               n, flags.option, t, sc.s->currency, sc.s->horizon_months);
        printf("Saves %s against owning all %d, %s against renting everything.\n", own, n, rent);
        printf("Load: %zu complete 5-minute buckets (%zu with a GPU missing left out), %lld GPUs "
               "measured; peak %.0f busy, median %.0f.\n",
               nt, gaps, units, b[nt - 1], gp_sorted_quantile(b, nt, 0.5));
        printf("\nTotal by owned fleet size:\n");
        int step = n > 40 ? n / 20 : 1;
        for (int k = 0; k <= n; k += step) {
            gp_format_money(curve[k], t, sizeof t);
            printf("  %6d %20s%s\n", k, t, k == best ? "  <- optimum" : "");
        }
        if (n % step) {
            gp_format_money(curve[n], t, sizeof t);
            printf("  %6d %20s\n", n, t);
        }
        if (best % step) {
            gp_format_money(curve[best], t, sizeof t);
            printf("  %6d %20s  <- optimum\n", best, t);
        }
    }
    if (flags.has_growth) {
        double busy_now = 0; /* busy GPU-equivalents now: the mean over the window */
        for (size_t i = 0; i < nt; i++)
            busy_now += b[i];
        busy_now /= (double)nt;
        double r2 = -1;
        if (flags.trend) {
            /* Least squares on daily busy GPU-hours (complete buckets only). */
            double xs[4000], ys[4000];
            size_t nd = 0;
            int64_t day0 = x.b[0].bucket_ms / 86400000;
            for (size_t i = 0; i < x.nb; i++) {
                if (x.b[i].gpus < units)
                    continue;
                int64_t d = x.b[i].bucket_ms / 86400000 - day0;
                if (d < 0 || d >= 4000)
                    continue;
                if (nd == 0 || xs[nd - 1] != (double)d) {
                    xs[nd] = (double)d;
                    ys[nd++] = 0;
                }
                ys[nd - 1] += (double)x.b[i].busy * 5.0 / 60.0;
            }
            double a, slope;
            gp_linear_fit(xs, ys, nd, &a, &slope, &r2);
            double level = a + slope * (nd ? xs[nd - 1] : 0);
            flags.growth = level > 0 ? slope * (GP_MONTH_HOURS / 24.0) / level : 0;
            printf(
                "\nTrend: %+.2f busy GPU-hours a day per day over %zu days (R^2 %.3f): %+.2f %% a "
                "month.\n",
                slope, nd, r2, flags.growth * 100);
        }
        double need_now = busy_now / flags.target;
        int runs_out = gp_months_until_exceeded(need_now, flags.growth, n, sc.s->horizon_months);
        printf("\nAt %.0f %% target utilization: %.1f GPUs needed now", flags.target * 100,
               need_now);
        for (int mth = 3; mth <= sc.s->horizon_months; mth += mth < 12 ? 3 : 6)
            printf(", %.1f at month %d", need_now * pow(1 + flags.growth, mth), mth);
        printf(".\n");
        if (runs_out < 0)
            printf("The current fleet of %d GPUs lasts the %d-month horizon.\n", n,
                   sc.s->horizon_months);
        else if (runs_out == 0)
            printf("The current fleet of %d GPUs is too small already.\n", n);
        else
            printf("The current fleet of %d GPUs runs out in month %d.\n", n, runs_out);
    }
    free(b);
    free(curve);
    gp_loaded_done(&sc);
    gathered_done(&x);
    return 0;
}
