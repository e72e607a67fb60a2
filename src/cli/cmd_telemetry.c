/* gpuplan node add|list|rm|test, import nvsmi|prom|dmon|dcmi, collect, fleet, db stats. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/clock.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/text.h"

/* Outside text (node names, labels, hosts, models, a server's error text) leaves through the
 * one sanitiser, on a terminal or a pipe alike (cli.h, cli_text). */
static void safe(char *dst, size_t cap, const char *src) {
    cli_text(src, dst, cap);
}

/* ---- node ------------------------------------------------------------------------------------ */

static void node_help(FILE *f) {
    fprintf(
        f, "usage: gpuplan node add NAME [--dcgm URL] [--prometheus URL [--match SELECTOR]]\n"
           "                              [--redfish URL] [--nvsmi-local] [--ipmi-local]\n"
           "                              [--cacert FILE]\n"
           "                              [--insecure] [--token-file FILE]\n"
           "       gpuplan node list\n"
           "       gpuplan node rm NAME\n"
           "       gpuplan node test NAME        one fetch per source; prints what was parsed\n\n"
           "A node has one or more sources: dcgm-exporter for its GPUs and Redfish for its wall\n"
           "power, say. --ipmi-local reads this machine's wall power from its BMC with\n"
           "`ipmitool dcmi power reading`, within the cycle's timeout. Credentials come from "
           "~/.netrc (basic auth, Redfish) or a token file\n"
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
    gp_fmt_local_time(n->has_success ? n->last_success_ms : 0, ok, sizeof ok);
    safe(error, sizeof error, n->last_error ? n->last_error : "");
    printf("%-24s %-22s %5d  %-19s  %s\n", name, kinds, n->gpus, ok, error);
    return 0;
}

/* node list --names (not in --help: for the shell completions): one name a line, whole. */
static int print_node_name(const gp_node_info *n, void *arg) {
    int *count = arg;
    (*count)++;
    printf("%s\n", n->name);
    return 0;
}

static int print_samples(const gp_source_cfg *src, const gp_source_result *r) {
    char url[200];
    safe(url, sizeof url,
         src->url[0]                ? src->url
         : src->kind == GP_SRC_IPMI ? "local ipmitool dcmi power reading"
                                    : "local nvidia-smi");
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
    if (src->kind == GP_SRC_IPMI) {
        if (r->dcmi.has_min && r->dcmi.has_max)
            printf(" (%g to %g W", r->dcmi.min_w, r->dcmi.max_w);
        if (r->dcmi.has_avg)
            printf("%s average %g W", r->dcmi.has_min && r->dcmi.has_max ? "," : " (",
                   r->dcmi.avg_w);
        if (r->dcmi.period_ms >= 0 && (r->dcmi.has_avg || r->dcmi.has_min))
            printf(" over %.0f s", r->dcmi.period_ms / 1000.0);
        if (r->dcmi.has_avg || (r->dcmi.has_min && r->dcmi.has_max))
            printf(")");
    }
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

/* node add's options into def; 0, 1 for --help, or the exit status of a bad one. */
static int node_options(int argc, char **argv, gp_node_def *def, bool *names) {
    enum {
        O_DCGM = 256,
        O_PROM,
        O_MATCH,
        O_REDFISH,
        O_NVSMI,
        O_IPMI,
        O_CACERT,
        O_INSECURE,
        O_TOKEN
    };
    static const struct option longs[] = {{"dcgm", required_argument, NULL, O_DCGM},
                                          {"prometheus", required_argument, NULL, O_PROM},
                                          {"match", required_argument, NULL, O_MATCH},
                                          {"redfish", required_argument, NULL, O_REDFISH},
                                          {"nvsmi-local", no_argument, NULL, O_NVSMI},
                                          {"ipmi-local", no_argument, NULL, O_IPMI},
                                          {"cacert", required_argument, NULL, O_CACERT},
                                          {"insecure", no_argument, NULL, O_INSECURE},
                                          {"token-file", required_argument, NULL, O_TOKEN},
                                          {"names", no_argument, NULL, 'N'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, "h", longs, NULL)) != -1) {
        if (opt == O_DCGM || opt == O_PROM || opt == O_REDFISH || opt == O_NVSMI || opt == O_IPMI) {
            if (def->n_src == 8)
                return cli_usage_error("node: at most 8 sources a node");
            gp_source_cfg *src = &def->src[def->n_src++];
            memset(src, 0, sizeof *src);
            src->kind = opt == O_DCGM      ? GP_SRC_DCGM
                        : opt == O_PROM    ? GP_SRC_PROMETHEUS
                        : opt == O_REDFISH ? GP_SRC_REDFISH
                        : opt == O_IPMI    ? GP_SRC_IPMI
                                           : GP_SRC_NVSMI;
            if (opt == O_NVSMI || opt == O_IPMI)
                continue;
            if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8))
                return cli_usage_error("node: \"%s\" is not an http:// or https:// URL", optarg);
            if (strlen(optarg) >= sizeof src->url)
                return cli_usage_error("node: URL too long");
            snprintf(src->url, sizeof src->url, "%s", optarg);
        } else if (opt == O_MATCH || opt == O_CACERT || opt == O_TOKEN) {
            *(opt == O_MATCH    ? &def->match
              : opt == O_CACERT ? &def->cacert
                                : &def->token_file) = optarg;
        } else if (opt == O_INSECURE) {
            def->insecure = true;
        } else if (opt == 'N') {
            *names = true;
        } else if (opt == 'h') {
            node_help(stdout);
            return 1;
        } else {
            return cli_usage_error("node %s: unknown option or missing value: %s (see --help)",
                                   argv[1], argv[optind]);
        }
    }
    return 0;
}

/* node test: one fetch per source, what was parsed. */
static int node_test(gp_session *ses, const char *name) {
    gp_err err;
    gp_err_clear(&err);
    gp_node_probe p;
    if (gp_node_probe_run(ses, name, &p, &err) && !p.n) {
        gp_node_probe_done(&p);
        return cli_fail(&err);
    }
    int failed = 0;
    for (size_t i = 0; i < p.n; i++)
        failed += print_samples(&p.src[i], &p.result[i]);
    gp_node_probe_done(&p);
    return failed ? 1 : 0;
}

int cmd_node(gp_session *ses, int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error("node: which one? add, list, rm or test (see --help)");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h"))
        return node_help(stdout), 0;
    gp_node_def def = {.match = "", .cacert = "", .token_file = ""};
    bool names = false;
    int rc = node_options(argc, argv, &def, &names);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (names && strcmp(sub, "list") != 0)
        return cli_usage_error("--names applies to node list only");
    int nargs = argc - 1 - optind;
    gp_err err;
    gp_err_clear(&err);
    if (names && strcmp(sub, "list") != 0)
        return cli_usage_error("--names applies to node list only");
    if (!strcmp(sub, "list")) {
        if (nargs)
            return cli_usage_error("node list takes no arguments");
        int count = 0;
        ses->read_only = true;
        if (gp_node_list(ses, names ? print_node_name : print_node, &count, &err))
            return cli_fail(&err);
        if (!count && !names)
            printf("no nodes yet; add one with `gpuplan node add NAME --dcgm URL`\n");
        return 0;
    }
    if (nargs != 1)
        return cli_usage_error("node %s takes one NAME", sub);
    def.name = argv[1 + optind];
    if (!strcmp(sub, "add")) {
        if (gp_node_define(ses, &def, &err))
            return cli_fail(&err);
        gp_err warn;
        char a[sizeof warn.where], b[sizeof warn.msg], name[256];
        if (*def.token_file && gp_token_file_check(def.token_file, &warn))
            fprintf(stderr, "gpuplan: warning: %s: %s\n", cli_text(warn.where, a, sizeof a),
                    cli_text(warn.msg, b, sizeof b));
        printf("added node \"%s\" with %d source%s\n", cli_text(def.name, name, sizeof name),
               def.n_src, def.n_src == 1 ? "" : "s");
        return 0;
    }
    if (!strcmp(sub, "rm")) {
        if (gp_node_remove(ses, def.name, &err))
            return cli_fail(&err);
        char name[256];
        printf("removed node \"%s\" and its samples\n", cli_text(def.name, name, sizeof name));
        return 0;
    }
    if (!strcmp(sub, "test"))
        return node_test(ses, def.name);
    return cli_usage_error("unknown node command \"%s\" (see gpuplan node --help)", sub);
}

/* ---- import -----------------------------------------------------------------------------------
 */

static bool parse_duration_ms(const char *s, long *out);

/* --end: "2026-08-16 09:22:37" or "2026-08-16T09:22:37" in local time, with "Z" in UTC, or
 * "@SECONDS" since the epoch. */
static bool parse_when(const char *s, int64_t *ms) {
    if (s[0] == '@') {
        char *end;
        double v = strtod(s + 1, &end);
        if (end == s + 1 || *end || !(v > 0 && v < 253402300800.0))
            return false;
        *ms = (int64_t)(v * 1000);
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char sep, z[3] = "";
    int n = sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%2s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, z);
    if (n < 7 || (sep != ' ' && sep != 'T') || (n == 8 && strcmp(z, "Z")) || tm.tm_year < 1970 ||
        tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t t = n == 8 ? timegm(&tm) : mktime(&tm);
    if (t == (time_t)-1)
        return false;
    *ms = (int64_t)t * 1000;
    return true;
}

static void import_help(void) {
    printf("usage: gpuplan import nvsmi FILE|- --node NAME [--fields a,b,c] [--host H]\n"
           "       gpuplan import prom FILE|- --node NAME\n"
           "       gpuplan import dmon FILE|- --node NAME [--end TIME] [--interval 1s] [--host H]\n"
           "       gpuplan import dcmi FILE|- --node NAME\n"
           "       gpuplan import --prometheus URL --since 90d ...  (see its --help)\n\n"
           "Stores a captured nvidia-smi --query-gpu CSV (with its header, or noheader\n"
           "with --fields naming the columns), a saved Prometheus exposition scrape\n"
           "(dcgm-exporter's /metrics), an nvidia-smi dmon log or an `ipmitool dcmi power\n"
           "reading` under node NAME, created when new. One transaction: a file that cannot\n"
           "be read imports nothing.\n\n"
           "dmon: rows with -o DT (or T) times keep them; without, rows are --interval apart\n"
           "(dmon's -d, default 1s), the last at --end (\"2026-08-16 09:22:37\" local, a\n"
           "trailing Z for UTC, or @SECONDS), by default the file's modification time. GPU\n"
           "indexes take the UUIDs of the node's known GPUs.\n"
           "dcmi: the wall power, dated by the BMC's timestamp when plausible, else by the\n"
           "file's modification time; a deactivated reading stores nothing (exit status 4).\n");
}

static void print_import(const gp_import_request *rq, const gp_import_result *r) {
    char node[128], a[32], b[32];
    safe(node, sizeof node, rq->node);
    if (rq->kind == GP_CAPTURE_DCMI) {
        const gp_dcmi_reading *d = &r->dcmi;
        if (!r->stored) {
            printf("stored nothing in node \"%s\": %s\n", node, r->why);
            return;
        }
        gp_fmt_local_time(r->first_ms, a, sizeof a);
        printf("imported wall power %g W into node \"%s\"", d->watts, node);
        if (d->has_min && d->has_max && d->has_avg) {
            printf(" (%g to %g W, average %g W", d->min_w, d->max_w, d->avg_w);
            if (d->period_ms >= 0)
                printf(" over %.0f s", d->period_ms / 1000.0);
            printf(")");
        }
        printf(", dated %s (%s)\n", a,
               r->time == GP_TIME_OWN     ? "the BMC's timestamp"
               : r->time == GP_TIME_MTIME ? "the file's modification time"
                                          : "the time of the import");
        if (r->why[0]) {
            char why[240];
            safe(why, sizeof why, r->why);
            printf("  %s\n", why);
        }
        return;
    }
    printf("imported %zu sample%s of %zu GPU%s into node \"%s\"%s\n", r->samples,
           r->samples == 1 ? "" : "s", r->gpus, r->gpus == 1 ? "" : "s", node,
           r->dropped_blanks ? " (blank or placeholder values dropped)" : "");
    if (rq->kind != GP_CAPTURE_DMON)
        return;
    gp_fmt_local_time(r->first_ms, a, sizeof a);
    gp_fmt_local_time(r->last_ms, b, sizeof b);
    printf("  %zu row%s in %zu round%s, %s to %s", r->rows, r->rows == 1 ? "" : "s", r->rounds,
           r->rounds == 1 ? "" : "s", a, b);
    if (r->time == GP_TIME_OWN)
        printf(" (the log's own times)\n");
    else
        printf(" (no times in the log: rows %.3g s apart, the last at %s)\n",
               r->interval_ms / 1000.0,
               r->time == GP_TIME_END ? "--end" : "the file's modification time");
    if (r->mapped)
        printf("  %zu GPU%s matched by index to the node's known GPUs\n", r->mapped,
               r->mapped == 1 ? "" : "s");
}

int cmd_import(gp_session *ses, int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--prometheus", 12) || !strncmp(argv[i], "--since", 7))
            return cmd_import_history(ses, argc, argv);
    static const struct option longs[] = {{"node", required_argument, NULL, 'n'},
                                          {"fields", required_argument, NULL, 'f'},
                                          {"host", required_argument, NULL, 'H'},
                                          {"end", required_argument, NULL, 'e'},
                                          {"interval", required_argument, NULL, 'i'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_import_request rq = {0};
    bool has_end = false, has_interval = false;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (opt == 'n' || opt == 'f' || opt == 'H') {
            *(opt == 'n' ? &rq.node : opt == 'f' ? &rq.fields : &rq.host) = optarg;
        } else if (opt == 'e') {
            if (!parse_when(optarg, &rq.end_ms))
                return cli_usage_error("--end: \"%s\" is not a time like \"2026-08-16 09:22:37\"",
                                       optarg);
            has_end = true;
        } else if (opt == 'i') {
            long ms;
            if (!parse_duration_ms(optarg, &ms))
                return cli_usage_error("--interval: \"%s\" is not a duration like 1s", optarg);
            rq.interval_ms = ms;
            has_interval = true;
        } else if (opt == 'h') {
            import_help();
            return 0;
        } else {
            return cli_usage_error("import: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(
            "import takes a kind (nvsmi, prom, dmon or dcmi) and a FILE (see --help)");
    const char *kind = argv[optind];
    rq.file = argv[optind + 1];
    static const struct {
        const char *name;
        gp_capture_kind kind;
    } kinds[] = {{"nvsmi", GP_CAPTURE_NVSMI},
                 {"prom", GP_CAPTURE_PROM},
                 {"dmon", GP_CAPTURE_DMON},
                 {"dcmi", GP_CAPTURE_DCMI}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kind, kinds[k].name))
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return cli_usage_error("import: \"%s\" is not nvsmi, prom, dmon or dcmi", kind);
    rq.kind = kinds[k].kind;
    if (!rq.node)
        return cli_usage_error("import needs --node NAME");
    if ((has_end || has_interval) && rq.kind != GP_CAPTURE_DMON)
        return cli_usage_error("--end and --interval apply to import dmon only");
    if (rq.fields && rq.kind != GP_CAPTURE_NVSMI)
        return cli_usage_error("--fields applies to import nvsmi only");
    gp_err err;
    gp_err_clear(&err);
    gp_import_result r;
    char line[160];
    snprintf(line, sizeof line, "importing %.120s", rq.file);
    cli_progress_begin(line); /* a capture of a large fleet takes a while */
    gp_status st = gp_import_capture(ses, &rq, &r, &err);
    cli_progress_end();
    if (st)
        return cli_fail(&err);
    print_import(&rq, &r);
    return rq.kind == GP_CAPTURE_DCMI && !r.stored ? CLI_EXIT_ATTENTION : 0;
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
                  : !strcmp(end, "m")        ? GP_MINUTE_MS
                  : !strcmp(end, "h")        ? GP_HOUR_MS
                                             : -1;
    if (mult < 0 || v * mult > (double)GP_DAY_MS)
        return false;
    *out = (long)(v * mult);
    return true;
}

typedef struct collect_args {
    gp_collect_opts o;
    long interval;
    int cycles;
    bool once, fail_on_error;
} collect_args;

/* collect's options into a; 0, 1 for --help, or the exit status of a bad one. */
static int collect_options(int argc, char **argv, collect_args *a) {
    enum { O_ONCE = 256, O_INTERVAL, O_CONC, O_TIMEOUT, O_CYCLES, O_KEEP, O_FAIL };
    static const struct option longs[] = {{"once", no_argument, NULL, O_ONCE},
                                          {"interval", required_argument, NULL, O_INTERVAL},
                                          {"concurrency", required_argument, NULL, O_CONC},
                                          {"timeout", required_argument, NULL, O_TIMEOUT},
                                          {"cycles", required_argument, NULL, O_CYCLES},
                                          {"keep-raw", required_argument, NULL, O_KEEP},
                                          {"fail-on-error", no_argument, NULL, O_FAIL},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case O_ONCE:
            a->once = true;
            break;
        case O_FAIL:
            a->fail_on_error = true;
            break;
        case O_INTERVAL:
            if (!parse_duration_ms(optarg, &a->interval))
                return cli_usage_error("--interval: \"%s\" is not a duration like 15s", optarg);
            break;
        case O_CONC:
            if (!gp_parse_int(optarg, &a->o.concurrency) || a->o.concurrency < 1 ||
                a->o.concurrency > GP_COLLECT_MAX_CONCURRENCY)
                return cli_usage_error("--concurrency: 1 to %d", GP_COLLECT_MAX_CONCURRENCY);
            break;
        case O_TIMEOUT:
            if (!parse_duration_ms(optarg, &a->o.total_timeout_ms))
                return cli_usage_error("--timeout: \"%s\" is not a duration like 10s", optarg);
            if (a->o.connect_timeout_ms > a->o.total_timeout_ms)
                a->o.connect_timeout_ms = a->o.total_timeout_ms;
            break;
        case O_CYCLES:
            if (!gp_parse_int(optarg, &a->cycles) || a->cycles < 1)
                return cli_usage_error("--cycles: a count >= 1");
            break;
        case O_KEEP:
            if (!parse_duration_ms(optarg, &a->o.raw_keep_ms))
                return cli_usage_error("--keep-raw: \"%s\" is not a duration like 48h", optarg);
            break;
        case 'h':
            printf("usage: gpuplan collect [--once] [--interval 15s] [--concurrency 64]\n"
                   "                       [--timeout 10s] [--cycles N] [--keep-raw 48h]\n"
                   "                       [--fail-on-error]\n\n"
                   "Fetches every node's sources concurrently (one libcurl multi loop), parses\n"
                   "them and writes each cycle in one transaction with every node's status.\n"
                   "A hung or broken node is recorded and never delays the rest past the\n"
                   "timeout; each transfer gets a quarter of it to connect (at most 3 s), half\n"
                   "for a first byte, then 1 KiB/s. SIGINT or SIGTERM finish the cycle in hand\n"
                   "and exit cleanly, ending a wait on a locked database at once.\n"
                   "--fail-on-error: exit 4 when a node failed in any cycle (0 otherwise).\n");
            return 1;
        default:
            return cli_usage_error("collect: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        }
    }
    return optind != argc ? cli_usage_error("collect takes no arguments") : 0;
}

int cmd_collect(gp_session *ses, int argc, char **argv) {
    collect_args a = {.interval = 15000};
    gp_collect_opts_init(&a.o);
    int rc = collect_options(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    gp_err err;
    gp_err_clear(&err);
    if (gp_session_open(ses, &err))
        return cli_fail(&err);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    a.o.stop = &stop_requested; /* a lock wait or a retry pause ends at once on a signal */
    int done = 0, skipped = 0, failed_nodes = 0;
    while (!stop_requested) {
        int64_t start = gp_now_ms();
        gp_cycle_stats cs;
        done++;
        if (gp_collect_once(ses, &a.o, &cs, &err)) {
            if (a.once) /* a daemon goes on: a lock or a full disk passes, stored data stays */
                return cli_fail(&err);
            if (stop_requested) { /* the write gave up on the signal: say so, and stop */
                fprintf(stderr, "gpuplan: cycle %d not stored: stopped by a signal\n", done);
                break;
            }
            skipped = skipped < 6 ? skipped + 1 : 6;
            char w[sizeof err.where], m[sizeof err.msg];
            fprintf(stderr, "gpuplan: cycle %d skipped: %s: %s (next try in %.1f s)\n", done,
                    cli_text(err.where, w, sizeof w), cli_text(err.msg, m, sizeof m),
                    (double)(a.interval << skipped) / 1000);
        } else {
            skipped = 0;
            failed_nodes += cs.nodes_failed;
            printf("cycle %d: %d nodes ok, %d failed, %zu samples in %.2f s\n", done, cs.nodes_ok,
                   cs.nodes_failed, cs.samples, cs.seconds);
            fflush(stdout);
        }
        if (a.once || (a.cycles && done >= a.cycles))
            break;
        /* Sleep out the interval (doubled after each skipped cycle, up to 64 times) in short
         * steps, so a signal ends it promptly. */
        while (!stop_requested && gp_now_ms() - start < (a.interval << skipped)) {
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return a.fail_on_error && failed_nodes ? CLI_EXIT_ATTENTION : 0;
}

/* ---- fleet ------------------------------------------------------------------------------------
 */

int cmd_fleet(gp_session *ses, int argc, char **argv) {
    bool json = false, fail_on_alert = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--fail-on-alert"))
            *(argv[i][2] == 'j' ? &json : &fail_on_alert) = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: gpuplan fleet [--json] [--fail-on-alert]\n\nEvery GPU that ever "
                   "reported, with its last utilization, memory, power and temperature; one\n"
                   "not seen for 15 minutes shows its last values marked \"stale 3 d\" (--json:\n"
                   "stale, age_s). Alerts: temperature >= 85 C, memory >= 90 %%, node down, GPU\n"
                   "missing since the last cycle, power above the GPU's limit. --fail-on-alert:\n"
                   "exit 4 when a GPU has an alert.\n");
            return 0;
        } else
            return cli_usage_error("fleet: unknown argument %s", argv[i]);
    }
    gp_err err;
    gp_err_clear(&err);
    gp_fleet_state f;
    ses->read_only = true;
    if (gp_fleet_state_read(ses, gp_now_ms(), GP_FLEET_FRESH_MS, &f, &err)) {
        gp_fleet_state_done(&f);
        return cli_fail(&err);
    }
    gp_buf out;
    gp_buf_init(&out, 1u << 30);
    gp_status st = json ? gp_report_fleet_json(&f, &out) : gp_report_fleet_text(&f, &out);
    if (st)
        gp_errorf(&err, st, NULL, "the output is larger than %zu bytes", out.limit);
    else
        st = cli_write_output(NULL, out.data, out.len, &err);
    gp_buf_done(&out);
    int alerts = f.with_alerts;
    gp_fleet_state_done(&f);
    if (st)
        return cli_fail(&err);
    return fail_on_alert && alerts ? CLI_EXIT_ATTENTION : 0;
}

/* ---- db stats ---------------------------------------------------------------------------------
 */

static int print_space(const char *table, long long bytes, void *arg) {
    (void)arg;
    char mb[48];
    printf("  %-22s %12s MB\n", table, gp_fmt_grouped(bytes / 1e6, 2, mb, sizeof mb));
    return 0;
}

static void print_problem(const char *line, void *arg) {
    (void)arg;
    char clean[1024];
    gp_text_clean(line, clean, sizeof clean);
    printf("damaged: %s\n", clean);
}

/* db check: integrity_check and every chunk's checksum; exit 1 when something is damaged. */
static int db_check(gp_session *ses) {
    gp_err err;
    gp_err_clear(&err);
    gp_db_check c;
    ses->read_only = true;
    if (gp_db_verify(ses, print_problem, NULL, &c, &err))
        return cli_fail(&err);
    char n[6][32];
    long long all = c.chunks[0] + c.chunks[1] + c.chunks[2] + c.chunks[3];
    printf("integrity:   %s\nchunks:      %s checked (5 min %s, 1 h %s, capacity hours %s, fleet "
           "%s), %lld damaged\n",
           c.integrity_problems ? "problems found" : "ok",
           gp_fmt_grouped((double)all, 0, n[0], sizeof n[0]),
           gp_fmt_grouped((double)c.chunks[0], 0, n[1], sizeof n[1]),
           gp_fmt_grouped((double)c.chunks[1], 0, n[2], sizeof n[2]),
           gp_fmt_grouped((double)c.chunks[2], 0, n[3], sizeof n[3]),
           gp_fmt_grouped((double)c.chunks[3], 0, n[4], sizeof n[4]), c.damaged);
    if (c.unsummed)
        printf("             %s written before chunks carried a checksum (decoded, not verified)\n",
               gp_fmt_grouped((double)c.unsummed, 0, n[5], sizeof n[5]));
    if (c.damaged || c.integrity_problems) {
        fprintf(stderr,
                "gpuplan: %s: damaged: %lld chunks refused, %lld integrity_check problems\n",
                ses->path, c.damaged, c.integrity_problems);
        return 1;
    }
    return 0;
}

int cmd_db(gp_session *ses, int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "check"))
        return db_check(ses);
    bool space = argc == 3 && strcmp(argv[2], "--space") == 0;
    if ((argc != 2 && !space) || strcmp(argv[1], "stats") != 0) {
        if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            printf(
                "usage: gpuplan db stats [--space]\n       gpuplan db check\n\nstats: what the "
                "database holds and how large it is. Raw samples are kept for 48 h\n(collect "
                "--keep-raw), 5-minute and 1-hour rollups for a year.\n\n  --space   where the "
                "file's bytes go: the pages of each table with its indexes,\n            largest "
                "first, and the free pages (reads the whole file)\n\ncheck: SQLite's "
                "integrity_check and every day chunk decoded, its checksum\nverified; each "
                "damaged chunk is named with its series (or node) and day.\nExit 1 when "
                "something is damaged. Reads the whole file; works read-only.\n");
            return 0;
        }
        return cli_usage_error("db: usage: gpuplan db stats [--space] | gpuplan db check");
    }
    ses->read_only = true;
    gp_err err;
    gp_err_clear(&err);
    gp_db_stats s;
    if (gp_db_stats_read(ses, &s, &err))
        return cli_fail(&err);
    char a[32], b[32], n[5][32];
    gp_fmt_local_time(s.oldest_sample_ms, a, sizeof a);
    gp_fmt_local_time(s.newest_sample_ms, b, sizeof b);
    printf("file:        %s MB\nscenarios:   %lld\ncatalog:     %lld offers, %lld prices\n"
           "nodes:       %lld with %lld GPUs, %lld collection cycles\n"
           "series:      %s\nraw samples: %s (%s .. %s)\nrollups:     %s of 5 min, %s "
           "of 1 h\n",
           gp_fmt_grouped(s.file_bytes / 1e6, 1, n[0], sizeof n[0]), s.scenarios, s.offers,
           s.prices, s.nodes, s.gpus, s.cycles,
           gp_fmt_grouped((double)s.series, 0, n[1], sizeof n[1]),
           gp_fmt_grouped((double)s.samples, 0, n[2], sizeof n[2]), a, b,
           gp_fmt_grouped((double)s.rollups_5m, 0, n[3], sizeof n[3]),
           gp_fmt_grouped((double)s.rollups_1h, 0, n[4], sizeof n[4]));
    if (space) {
        printf("space:       pages of each table with its indexes\n");
        if (gp_db_space(ses, print_space, NULL, &err))
            return cli_fail(&err);
    }
    return 0;
}
