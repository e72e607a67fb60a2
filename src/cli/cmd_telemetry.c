/* gpuplan node add|list|rm|test, import nvsmi|prom, collect, fleet, db stats. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/collect.h"
#include "gpuplan/store_telemetry.h"

/* Outside text (node labels, hosts, models) reaches the terminal without control characters. */
static void safe(char *dst, size_t cap, const char *src) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(src ? src : ""); *p && n + 1 < cap; p++)
        dst[n++] = (*p < 0x20 || *p == 0x7f) ? '?' : (char)*p;
    dst[n] = '\0';
}

static void fmt_time(int64_t ms, char *out, size_t cap) {
    if (ms <= 0) {
        snprintf(out, cap, "never");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

/* ---- node ------------------------------------------------------------------------------------ */

static void node_help(FILE *f) {
    fprintf(
        f, "usage: gpuplan node add NAME [--dcgm URL] [--prometheus URL [--match SELECTOR]]\n"
           "                              [--redfish URL] [--nvsmi-local] [--cacert FILE]\n"
           "                              [--insecure] [--token-file FILE]\n"
           "       gpuplan node list\n"
           "       gpuplan node rm NAME\n"
           "       gpuplan node test NAME        one fetch per source; prints what was parsed\n\n"
           "A node has one or more sources: dcgm-exporter for its GPUs and Redfish for its wall\n"
           "power, say. Credentials come from ~/.netrc (basic auth, Redfish) or a token file\n"
           "(a bearer token), never from the command line; the database keeps only the path.\n"
           "Certificates are verified unless --cacert names a private CA or --insecure says so.\n");
}

static int print_node(const gp_node_info *n, void *arg) {
    int *count = arg;
    if ((*count)++ == 0)
        printf("%-24s %-22s %5s  %-19s  %s\n", "NODE", "SOURCES", "GPUS", "LAST SUCCESS",
               "LAST ERROR");
    char name[64], ok[32], kinds[64], error[200];
    safe(name, sizeof name, n->name);
    safe(kinds, sizeof kinds, n->kinds ? n->kinds : "(imports)");
    fmt_time(n->has_success ? n->last_success_ms : 0, ok, sizeof ok);
    safe(error, sizeof error, n->last_error ? n->last_error : "");
    printf("%-24s %-22s %5d  %-19s  %s\n", name, kinds, n->gpus, ok, error);
    return 0;
}

static int print_samples(const gp_source_cfg *src, const gp_source_result *r) {
    char url[200];
    safe(url, sizeof url, src->url[0] ? src->url : "local nvidia-smi");
    printf("%s %s: ", gp_source_kind_name(src->kind), url);
    if (r->status != GP_OK) {
        char e[300];
        safe(e, sizeof e, r->error);
        printf("FAILED: %s\n", e);
        return 1;
    }
    printf("%zu bytes, %zu GPUs, %zu samples", r->bytes, r->samples.n_gpus, r->samples.n);
    if (r->samples.blanks)
        printf(", %zu blank or placeholder values dropped", r->samples.blanks);
    if (r->samples.duplicates)
        printf(", %zu MIG repeats dropped", r->samples.duplicates);
    if (r->has_node_power)
        printf(", wall power %.1f W", r->node_power_w);
    printf("\n");
    for (size_t g = 0; g < r->samples.n_gpus; g++) {
        const gp_gpu_ref *ref = &r->samples.gpus[g];
        char host[64], uuid[100], model[64];
        safe(host, sizeof host, ref->host);
        safe(uuid, sizeof uuid, ref->uuid);
        safe(model, sizeof model, ref->model[0] ? ref->model : "?");
        printf("  gpu %d %s %s %s%s%s:", ref->index, model, uuid, host, ref->mig[0] ? " " : "",
               ref->mig);
        for (size_t i = 0; i < r->samples.n; i++)
            if (r->samples.s[i].gpu == (int)g)
                printf(" %s=%g", gp_metric_name(r->samples.s[i].metric), r->samples.s[i].value);
        printf("\n");
    }
    return 0;
}

int cmd_node(cli *c, int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error("node: which one? add, list, rm or test (see --help)");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        node_help(stdout);
        return 0;
    }
    enum { O_DCGM = 256, O_PROM, O_MATCH, O_REDFISH, O_NVSMI, O_CACERT, O_INSECURE, O_TOKEN };
    static const struct option longs[] = {{"dcgm", required_argument, NULL, O_DCGM},
                                          {"prometheus", required_argument, NULL, O_PROM},
                                          {"match", required_argument, NULL, O_MATCH},
                                          {"redfish", required_argument, NULL, O_REDFISH},
                                          {"nvsmi-local", no_argument, NULL, O_NVSMI},
                                          {"cacert", required_argument, NULL, O_CACERT},
                                          {"insecure", no_argument, NULL, O_INSECURE},
                                          {"token-file", required_argument, NULL, O_TOKEN},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_source_cfg src[8];
    int n = 0, opt;
    const char *match = "", *cacert = "", *token = "";
    bool insecure = false;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "h", longs, NULL)) != -1) {
        if (opt == O_DCGM || opt == O_PROM || opt == O_REDFISH || opt == O_NVSMI) {
            if (n == 8)
                return cli_usage_error("node: at most 8 sources a node");
            memset(&src[n], 0, sizeof src[n]);
            src[n].kind = opt == O_DCGM      ? GP_SRC_DCGM
                          : opt == O_PROM    ? GP_SRC_PROMETHEUS
                          : opt == O_REDFISH ? GP_SRC_REDFISH
                                             : GP_SRC_NVSMI;
            if (opt != O_NVSMI) {
                if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8))
                    return cli_usage_error("node: \"%s\" is not an http:// or https:// URL",
                                           optarg);
                if (strlen(optarg) >= sizeof src[n].url)
                    return cli_usage_error("node: URL too long");
                snprintf(src[n].url, sizeof src[n].url, "%s", optarg);
            }
            n++;
        } else if (opt == O_MATCH) {
            match = optarg;
        } else if (opt == O_CACERT) {
            cacert = optarg;
        } else if (opt == O_INSECURE) {
            insecure = true;
        } else if (opt == O_TOKEN) {
            token = optarg;
        } else if (opt == 'h') {
            node_help(stdout);
            return 0;
        } else {
            return cli_usage_error("node %s: unknown option or missing value: %s (see --help)", sub,
                                   argv[optind]);
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    if (!strcmp(sub, "list")) {
        if (nargs)
            return cli_usage_error("node list takes no arguments");
        int count = 0;
        c->read_only = true;
        if (cli_store(c, &st, &err) || gp_store_nodes(st, print_node, &count, &err))
            return cli_fail(&err);
        if (!count)
            printf("no nodes yet; add one with `gpuplan node add NAME --dcgm URL`\n");
        return 0;
    }
    if (nargs != 1)
        return cli_usage_error("node %s takes one NAME", sub);
    const char *name = args[0];
    if (!strcmp(sub, "add")) {
        if (!n)
            return cli_usage_error("node add needs a source: --dcgm, --prometheus, --redfish or "
                                   "--nvsmi-local");
        if (!*name || strlen(name) > 120)
            return cli_usage_error("node add: the name must be 1 to 120 characters");
        if (*match && *match != '{')
            return cli_usage_error("--match: a label selector in braces, like {cluster=\"a\"}");
        for (int i = 0; i < n; i++) {
            if (src[i].kind == GP_SRC_PROMETHEUS)
                snprintf(src[i].match, sizeof src[i].match, "%s", match);
            snprintf(src[i].cacert, sizeof src[i].cacert, "%s", cacert);
            snprintf(src[i].token_file, sizeof src[i].token_file, "%s", token);
            src[i].insecure = insecure;
        }
        if (cli_store(c, &st, &err) || gp_store_node_add(st, name, src, n, &err))
            return cli_fail(&err);
        gp_err warn;
        if (*token && gp_collect_token_file_check(token, &warn))
            fprintf(stderr, "gpuplan: warning: %s: %s\n", warn.where, warn.msg);
        printf("added node \"%s\" with %d source%s\n", name, n, n == 1 ? "" : "s");
        return 0;
    }
    if (!strcmp(sub, "rm")) {
        if (cli_store(c, &st, &err) || gp_store_node_rm(st, name, &err))
            return cli_fail(&err);
        printf("removed node \"%s\" and its samples\n", name);
        return 0;
    }
    if (!strcmp(sub, "test")) {
        gp_source_cfg *srcs;
        size_t ns;
        if (cli_store(c, &st, &err) || gp_store_sources(st, name, &srcs, &ns, &err))
            return cli_fail(&err);
        gp_collect_opts o;
        gp_collect_opts_init(&o);
        gp_source_result *r = gp_xcalloc(ns, sizeof *r);
        gp_collect_fetch(srcs, ns, &o, r, &err);
        int failed = 0;
        for (size_t i = 0; i < ns; i++) {
            failed += print_samples(&srcs[i], &r[i]);
            gp_source_result_done(&r[i]);
        }
        free(r);
        free(srcs);
        return failed ? 1 : 0;
    }
    return cli_usage_error("unknown node command \"%s\" (see gpuplan node --help)", sub);
}

/* ---- import -----------------------------------------------------------------------------------
 */

int cmd_import(cli *c, int argc, char **argv) {
    static const struct option longs[] = {{"node", required_argument, NULL, 'n'},
                                          {"fields", required_argument, NULL, 'f'},
                                          {"host", required_argument, NULL, 'H'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *node = NULL, *fields = NULL, *host = NULL;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case 'n':
            node = optarg;
            break;
        case 'f':
            fields = optarg;
            break;
        case 'H':
            host = optarg;
            break;
        case 'h':
            printf("usage: gpuplan import nvsmi FILE|- --node NAME [--fields a,b,c] [--host H]\n"
                   "       gpuplan import prom FILE|- --node NAME\n\n"
                   "Stores a captured nvidia-smi --query-gpu CSV (with its header, or noheader\n"
                   "with --fields naming the columns) or a saved Prometheus exposition scrape\n"
                   "(dcgm-exporter's /metrics) under node NAME, created when new. One\n"
                   "transaction: a file that cannot be read imports nothing.\n");
            return 0;
        default:
            return cli_usage_error("import: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("import takes a kind (nvsmi or prom) and a FILE (see --help)");
    const char *kind = argv[optind], *file = argv[optind + 1];
    if (strcmp(kind, "nvsmi") && strcmp(kind, "prom"))
        return cli_usage_error("import: \"%s\" is not nvsmi or prom", kind);
    if (!node)
        return cli_usage_error("import needs --node NAME");
    gp_err err;
    gp_err_clear(&err);
    gp_buf body;
    if (cli_read_file(file, 512u << 20, &body, &err))
        return cli_fail(&err);
    const char *origin = strcmp(file, "-") ? file : "<stdin>";
    gp_samples s;
    gp_samples_init(&s, 50u << 20);
    gp_status rc = !strcmp(kind, "nvsmi") ? gp_nvsmi_parse(body.data, body.len, origin, fields,
                                                           host ? host : node, &s, &err)
                                          : gp_dcgm_parse(body.data, body.len, origin, &s, &err);
    gp_buf_done(&body);
    gp_store *st;
    long long id = 0;
    size_t written = 0;
    int64_t now = gp_now_ms();
    if (rc == GP_OK)
        rc = cli_store(c, &st, &err);
    if (rc == GP_OK)
        rc = gp_store_begin(st, &err);
    if (rc == GP_OK) {
        gp_err lookup;
        gp_err_clear(&lookup);
        gp_status found = gp_store_node_id(st, node, &id, &lookup);
        if (found == GP_E_NOTFOUND)
            rc = gp_store_node_add(st, node, NULL, 0, &err) || gp_store_node_id(st, node, &id, &err)
                     ? err.code
                     : GP_OK;
        else if (found != GP_OK)
            rc = (err = lookup).code;
        if (rc == GP_OK)
            rc = gp_store_samples_write(st, id, &s, now, &written, &err);
        /* The node was last seen when its newest sample was taken, not when it was imported:
         * an old capture must not make its GPUs look missing. */
        int64_t newest = 0;
        for (size_t i = 0; i < s.n; i++) {
            int64_t ts = s.s[i].ts_ms ? s.s[i].ts_ms : now;
            if (ts > newest)
                newest = ts;
        }
        if (rc == GP_OK)
            rc = gp_store_node_status(st, id, newest ? newest : now, NULL, &err);
        if (rc == GP_OK)
            rc = gp_store_commit(st, &err);
        if (rc != GP_OK)
            gp_store_rollback(st);
    }
    if (rc == GP_OK)
        printf("imported %zu samples of %zu GPUs into node \"%s\"%s\n", written, s.n_gpus, node,
               s.blanks ? " (blank or placeholder values dropped)" : "");
    gp_samples_done(&s);
    return rc == GP_OK ? 0 : cli_fail(&err);
}

/* ---- collect ----------------------------------------------------------------------------------
 */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static bool parse_duration_ms(const char *s, long *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return false;
    double mult = !*end || !strcmp(end, "s") ? 1000
                  : !strcmp(end, "ms")       ? 1
                  : !strcmp(end, "m")        ? 60000
                  : !strcmp(end, "h")        ? 3600000
                                             : -1;
    if (mult < 0 || v * mult > 86400000.0)
        return false;
    *out = (long)(v * mult);
    return true;
}

int cmd_collect(cli *c, int argc, char **argv) {
    enum { O_ONCE = 256, O_INTERVAL, O_CONC, O_TIMEOUT, O_CYCLES, O_KEEP };
    static const struct option longs[] = {{"once", no_argument, NULL, O_ONCE},
                                          {"interval", required_argument, NULL, O_INTERVAL},
                                          {"concurrency", required_argument, NULL, O_CONC},
                                          {"timeout", required_argument, NULL, O_TIMEOUT},
                                          {"cycles", required_argument, NULL, O_CYCLES},
                                          {"keep-raw", required_argument, NULL, O_KEEP},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_collect_opts o;
    gp_collect_opts_init(&o);
    long interval = 15000;
    int cycles = 0, opt;
    bool once = false;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case O_ONCE:
            once = true;
            break;
        case O_INTERVAL:
            if (!parse_duration_ms(optarg, &interval))
                return cli_usage_error("--interval: \"%s\" is not a duration like 15s", optarg);
            break;
        case O_CONC:
            if (!cli_parse_int(optarg, &o.concurrency) || o.concurrency < 1 ||
                o.concurrency > GP_COLLECT_MAX_CONCURRENCY)
                return cli_usage_error("--concurrency: 1 to %d", GP_COLLECT_MAX_CONCURRENCY);
            break;
        case O_TIMEOUT:
            if (!parse_duration_ms(optarg, &o.total_timeout_ms))
                return cli_usage_error("--timeout: \"%s\" is not a duration like 10s", optarg);
            if (o.connect_timeout_ms > o.total_timeout_ms)
                o.connect_timeout_ms = o.total_timeout_ms;
            break;
        case O_CYCLES:
            if (!cli_parse_int(optarg, &cycles) || cycles < 1)
                return cli_usage_error("--cycles: a count >= 1");
            break;
        case O_KEEP:
            if (!parse_duration_ms(optarg, &o.raw_keep_ms))
                return cli_usage_error("--keep-raw: \"%s\" is not a duration like 48h", optarg);
            break;
        case 'h':
            printf("usage: gpuplan collect [--once] [--interval 15s] [--concurrency 64]\n"
                   "                       [--timeout 10s] [--cycles N] [--keep-raw 48h]\n\n"
                   "Fetches every node's sources concurrently (one libcurl multi loop), parses\n"
                   "them and writes each cycle in one transaction with every node's status.\n"
                   "A hung or broken node is recorded and never delays the rest past the\n"
                   "timeout. SIGINT or SIGTERM finish the cycle in hand and exit cleanly.\n");
            return 0;
        default:
            return cli_usage_error("collect: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("collect takes no arguments");
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    if (cli_store(c, &st, &err))
        return cli_fail(&err);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int done = 0, failed = 0;
    while (!stop_requested) {
        int64_t start = gp_now_ms();
        gp_cycle_stats cs;
        done++;
        if (gp_collect_cycle(st, &o, &cs, &err)) {
            if (once) /* a daemon goes on: a lock or a full disk passes, stored data stays */
                return cli_fail(&err);
            failed = failed < 6 ? failed + 1 : 6;
            fprintf(stderr, "gpuplan: cycle %d skipped: %s: %s (next try in %.1f s)\n", done,
                    err.where, err.msg, (double)(interval << failed) / 1000);
        } else {
            failed = 0;
            printf("cycle %d: %d nodes ok, %d failed, %zu samples in %.2f s\n", done, cs.nodes_ok,
                   cs.nodes_failed, cs.samples, cs.seconds);
            fflush(stdout);
        }
        if (once || (cycles && done >= cycles))
            break;
        /* Sleep out the interval (doubled after each failed cycle, up to 64 times) in short
         * steps, so a signal ends it promptly. */
        while (!stop_requested && gp_now_ms() - start < (interval << failed)) {
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

/* ---- fleet ------------------------------------------------------------------------------------
 */

typedef struct fleet_out {
    bool json;
    cJSON *arr;
    int n, alerts;
} fleet_out;

static int fleet_row(const gp_fleet_gpu *g, void *arg) {
    fleet_out *f = arg;
    char alerts[160];
    int an = cli_fleet_alerts(g, alerts, sizeof alerts);
    f->alerts += an > 0;
    if (f->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "node", g->node);
        cJSON_AddStringToObject(j, "host", g->host);
        cJSON_AddNumberToObject(j, "index", g->index);
        cJSON_AddStringToObject(j, "uuid", g->uuid);
        cJSON_AddStringToObject(j, "model", g->model);
        if (g->mig[0])
            cJSON_AddStringToObject(j, "mig", g->mig);
        for (int m = 0; m < GP_M_COUNT; m++)
            if (g->has[m])
                cJSON_AddNumberToObject(j, gp_metric_name((gp_metric)m), g->value[m]);
        cJSON_AddNumberToObject(j, "last_seen_ms", (double)g->last_seen_ms);
        cJSON *a = cJSON_AddArrayToObject(j, "alerts");
        char copy[160];
        snprintf(copy, sizeof copy, "%s", alerts);
        for (char *tok = copy, *sp; tok && *tok; tok = sp ? sp + 1 : NULL) {
            sp = strchr(tok, ' ');
            if (sp)
                *sp = '\0';
            cJSON_AddItemToArray(a, cJSON_CreateString(tok));
        }
        cJSON_AddItemToArray(f->arr, j);
        f->n++;
        return 0;
    }
    if (f->n++ == 0)
        printf("%-16s %-22s %3s %-12s %6s %11s %8s %6s  %-19s %s\n", "NODE", "HOST", "GPU", "MODEL",
               "UTIL%", "MEM MiB", "POWER W", "TEMP", "LAST SEEN", "ALERTS");
    char node[32], host[32], model[32], seen[32], mem[24], util[12], power[12], temp[12];
    safe(node, sizeof node, g->node);
    safe(host, sizeof host, g->host);
    safe(model, sizeof model, g->model[0] ? g->model : "?");
    fmt_time(g->last_seen_ms, seen, sizeof seen);
    snprintf(util, sizeof util, g->has[GP_M_GPU_UTIL] ? "%.0f" : "-", g->value[GP_M_GPU_UTIL]);
    snprintf(power, sizeof power, g->has[GP_M_POWER_W] ? "%.1f" : "-", g->value[GP_M_POWER_W]);
    snprintf(temp, sizeof temp, g->has[GP_M_TEMP_C] ? "%.0f C" : "-", g->value[GP_M_TEMP_C]);
    if (g->has[GP_M_MEM_USED_MIB])
        snprintf(mem, sizeof mem, "%.0f/%.0f", g->value[GP_M_MEM_USED_MIB],
                 g->has[GP_M_MEM_TOTAL_MIB] ? g->value[GP_M_MEM_TOTAL_MIB] : NAN);
    else
        snprintf(mem, sizeof mem, "-");
    char idx[16];
    snprintf(idx, sizeof idx, "%d%s", g->index, g->mig[0] ? "*" : "");
    printf("%-16.16s %-22.22s %3s %-12.12s %6s %11s %8s %6s  %-19s %s\n", node, host, idx, model,
           util, mem, power, temp, seen, alerts);
    return 0;
}

static int power_row(const char *node, double watts, int64_t ts, void *arg) {
    (void)arg;
    char n[64], t[32];
    safe(n, sizeof n, node);
    fmt_time(ts, t, sizeof t);
    printf("  %s: %.1f W at the wall (%s)\n", n, watts, t);
    return 0;
}

int cmd_fleet(cli *c, int argc, char **argv) {
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: gpuplan fleet [--json]\n\nNodes and GPUs with their latest "
                   "utilization, memory, power and temperature, and alerts: temperature >= 85 C,\n"
                   "memory >= 90 %%, node down, GPU missing since the last cycle, power above "
                   "the GPU's limit.\n");
            return 0;
        } else
            return cli_usage_error("fleet: unknown argument %s", argv[i]);
    }
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    c->read_only = true;
    if (cli_store(c, &st, &err))
        return cli_fail(&err);
    fleet_out f = {json, json ? cJSON_CreateArray() : NULL, 0, 0};
    int64_t now = gp_now_ms();
    if (gp_store_fleet(st, now, 7LL * 24 * 3600 * 1000, fleet_row, &f, &err)) {
        cJSON_Delete(f.arr);
        return cli_fail(&err);
    }
    if (json) {
        char *text = cJSON_Print(f.arr);
        cJSON_Delete(f.arr);
        puts(text ? text : "[]");
        free(text);
        return 0;
    }
    if (!f.n)
        printf("no GPUs seen yet: add nodes (gpuplan node add) and collect, or import a capture\n");
    else
        printf("%d GPUs, %d with alerts (* a MIG instance)\n", f.n, f.alerts);
    gp_store_node_power(st, now, 3600000, power_row, NULL, &err);
    return 0;
}

/* ---- db stats ---------------------------------------------------------------------------------
 */

int cmd_db(cli *c, int argc, char **argv) {
    if (argc != 2 || strcmp(argv[1], "stats") != 0) {
        if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            printf("usage: gpuplan db stats\n\nWhat the database holds and how large it is. Raw "
                   "samples are kept for 48 h\n(collect --keep-raw), 5-minute and 1-hour rollups "
                   "for a year.\n");
            return 0;
        }
        return cli_usage_error("db: usage: gpuplan db stats");
    }
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    gp_db_stats s;
    if (cli_store(c, &st, &err) || gp_store_stats(st, &s, &err))
        return cli_fail(&err);
    char a[32], b[32];
    fmt_time(s.oldest_sample_ms, a, sizeof a);
    fmt_time(s.newest_sample_ms, b, sizeof b);
    printf("file:        %.1f MB\nscenarios:   %lld\ncatalog:     %lld offers, %lld prices\n"
           "nodes:       %lld with %lld GPUs, %lld collection cycles\n"
           "series:      %lld\nraw samples: %lld (%s .. %s)\nrollups:     %lld of 5 min, %lld "
           "of 1 h\n",
           s.file_bytes / 1e6, s.scenarios, s.offers, s.prices, s.nodes, s.gpus, s.cycles, s.series,
           s.samples, a, b, s.rollups_5m, s.rollups_1h);
    return 0;
}
