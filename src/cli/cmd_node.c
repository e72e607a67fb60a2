/* gpuplan node add|list|rm|test: the fleet's nodes and their telemetry sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/clock.h"

/* Outside text (node names, labels, hosts, models, a server's error text) leaves through the
 * one sanitiser, on a terminal or a pipe alike (cli.h, cli_text). */
static void safe(char *dst, size_t cap, const char *src) {
    cli_text(src, dst, cap);
}

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

/* A source of a node: --dcgm, --prometheus and --redfish with a URL, the local ones without. */
typedef struct source_opt {
    gp_node_def *def;
    gp_source_kind kind;
} source_opt;

static gp_source_cfg *add_source(source_opt *so) {
    if (so->def->n_src == 8) {
        cli_usage_error("node: at most 8 sources a node");
        return NULL;
    }
    gp_source_cfg *src = &so->def->src[so->def->n_src++];
    memset(src, 0, sizeof *src);
    src->kind = so->kind;
    return src;
}

static int url_source(const char *v, void *dest) {
    gp_source_cfg *src = add_source(dest);
    if (!src)
        return 2;
    if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
        return cli_usage_error("node: \"%s\" is not an http:// or https:// URL", v);
    if (strlen(v) >= sizeof src->url)
        return cli_usage_error("node: URL too long");
    snprintf(src->url, sizeof src->url, "%s", v);
    return 0;
}

/* --nvsmi-local and --ipmi-local: a source without a URL, in its place among the others. */
static int local_source(const char *none, void *dest) {
    (void)none;
    return add_source(dest) ? 0 : 2;
}

/* node add's options into def; 0, 1 for --help, or the exit status of a bad one. */
static int node_options(int argc, char **argv, gp_node_def *def, bool *names, int *first) {
    source_opt dcgm = {def, GP_SRC_DCGM}, prom = {def, GP_SRC_PROMETHEUS},
               redfish = {def, GP_SRC_REDFISH}, nvsmi = {def, GP_SRC_NVSMI},
               ipmi = {def, GP_SRC_IPMI};
    bool help = false;
    const cli_opt opts[] = {{CLI_CALL("dcgm", &dcgm, url_source)},
                            {CLI_CALL("prometheus", &prom, url_source)},
                            {CLI_STR("match", &def->match), .needs = "prometheus"},
                            {CLI_CALL("redfish", &redfish, url_source)},
                            {CLI_ACTION("nvsmi-local", &nvsmi, local_source)},
                            {CLI_ACTION("ipmi-local", &ipmi, local_source)},
                            {CLI_STR("cacert", &def->cacert)},
                            {CLI_FLAG("insecure", &def->insecure)},
                            {CLI_STR("token-file", &def->token_file)},
                            {CLI_FLAG("names", names), .hidden = true}, /* completions */
                            {CLI_HELP(&help)},
                            {0}};
    char cmd[64];
    snprintf(cmd, sizeof cmd, "node %s", argv[1]);
    int rc = cli_parse(&(cli_parser){.cmd = cmd, .opts = opts}, argc - 1, argv + 1, first);
    if (rc || help)
        return help ? node_help(stdout), 1 : rc;
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
    int first, rc = node_options(argc, argv, &def, &names, &first);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (names && strcmp(sub, "list") != 0)
        return cli_usage_error("--names applies to node list only");
    int nargs = argc - 1 - first;
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
    def.name = argv[1 + first];
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
