/* gpuplan capacity: telemetry turned into the numbers a plan needs; and the options it shares
 * with scenario measure (cmd_scenario.c) and plan --mix (cmd_plan.c). Each command parses its
 * options into a gp_cap_query, asks src/app/capacity.c, and renders through
 * src/report/report_capacity.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_capacity.h"

/* ---- the options the three commands share ------------------------------------------------ */

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
    C_TARGET,
    C_FORCE,
    C_PROM,
    C_MATCH,
    C_TOKEN,
    C_ORG,
    C_CACERT,
    C_INSECURE,
    C_TIMEOUT,
    C_HOSTS,
    C_CONC,
    C_RECORDED,
    C_SLICE,
    C_PRINT_RULES
};

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

/* --growth 5%/month, 0.05, or trend. */
static bool parse_growth(const char *arg, gp_mix_request *rq) {
    rq->has_growth = true;
    if (!strcmp(arg, "trend"))
        return rq->trend = true;
    char buf[32];
    snprintf(buf, sizeof buf, "%s", arg);
    char *slash = strstr(buf, "/month");
    if (slash)
        *slash = '\0';
    size_t n = strlen(buf);
    bool pct = n && buf[n - 1] == '%';
    if (pct)
        buf[n - 1] = '\0';
    if (!gp_parse_double(buf, &rq->growth) || rq->growth <= -100 || rq->growth > 1000)
        return false;
    rq->growth /= pct || rq->growth >= 1 ? 100 : 1;
    return true;
}

/* The window and selection options into q; 0, or the exit status of a bad one. */
static int query_option(int opt, const char *v, gp_session *ses, gp_cap_query *q) {
    gp_err err;
    switch (opt) {
    case C_SINCE:
        return parse_since(v, &q->since_ms)
                   ? 0
                   : cli_usage_error("--since: \"%s\" is not a window like 30d, 12h or 2w", v);
    case C_NODE:
        if (q->n_nodes == 64)
            return cli_usage_error("at most 64 --node");
        q->nodes[q->n_nodes++] = v;
        return 0;
    case C_GPU:
        gp_gpu_normalize(v, 0, q->gpu, sizeof q->gpu);
        q->has_gpu = true;
        return 0;
    case C_PRICE:
        if (!gp_parse_double(v, &q->price) || q->price < 0)
            return cli_usage_error("--price-per-kwh: \"%s\" is not a price", v);
        q->has_price = true;
        return 0;
    case C_SCEN:
        return gp_cap_query_price_from(ses, v, q, &err) ? cli_fail(&err) : 0;
    default: /* C_THR */
        if (!gp_parse_int(v, &q->threshold) || q->threshold < 5 || q->threshold > 100 ||
            q->threshold % 5)
            return cli_usage_error("--busy-threshold: a multiple of 5 from 5 to 100 (the "
                                   "rollups keep 5 %% bins)");
        return 0;
    }
}

/* The options of --prometheus into o; 0, or the exit status of a bad one. */
static int remote_option(int opt, const char *v, gp_history_opts *o) {
    if (opt == C_HOSTS || opt == C_CONC) {
        int *n = opt == C_HOSTS ? &o->hosts_per_query : &o->concurrency;
        if (!gp_parse_int(v, n) || *n < 1 || *n > 100000)
            return cli_usage_error("%s: a count >= 1",
                                   opt == C_HOSTS ? "--hosts-per-query" : "--concurrency");
        return 0;
    }
    if (opt == C_TIMEOUT) {
        char *end;
        double x = strtod(v, &end);
        double unit = !strcmp(end, "s") ? 1000 : !strcmp(end, "m") ? GP_MINUTE_MS : -1;
        if (end == v || !(x > 0) || unit < 0 || x * unit > GP_HOUR_MS)
            return cli_usage_error("--timeout: \"%s\" is not a duration like 120s", v);
        o->total_timeout_ms = (long)(x * unit);
        if (o->connect_timeout_ms > o->total_timeout_ms)
            o->connect_timeout_ms = o->total_timeout_ms;
        return 0;
    }
    if (opt == C_INSECURE) {
        o->insecure = true;
        return 0;
    }
    *(opt == C_PROM    ? &o->url
      : opt == C_MATCH ? &o->match
      : opt == C_TOKEN ? &o->token_file
      : opt == C_ORG   ? &o->org_id
                       : &o->cacert) = v;
    return 0;
}

int cli_capacity_options(int argc, char **argv, gp_session *ses, gp_cap_query *q, cap_flags *f) {
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
                                          {"force-trend", no_argument, NULL, C_FORCE},
                                          {"prometheus", required_argument, NULL, C_PROM},
                                          {"match", required_argument, NULL, C_MATCH},
                                          {"token-file", required_argument, NULL, C_TOKEN},
                                          {"org-id", required_argument, NULL, C_ORG},
                                          {"cacert", required_argument, NULL, C_CACERT},
                                          {"insecure", no_argument, NULL, C_INSECURE},
                                          {"timeout", required_argument, NULL, C_TIMEOUT},
                                          {"hosts-per-query", required_argument, NULL, C_HOSTS},
                                          {"concurrency", required_argument, NULL, C_CONC},
                                          {"recorded", required_argument, NULL, C_RECORDED},
                                          {"slice", required_argument, NULL, C_SLICE},
                                          {"print-rules", no_argument, NULL, C_PRINT_RULES},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_cap_query_init(q);
    *f = (cap_flags){.mix_rq.target = 0.7};
    gp_history_opts_init(&f->remote);
    int opt, rc = 0;
    optind = 1;
    opterr = 0;
    while (!rc && (opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case C_SINCE:
        case C_NODE:
        case C_GPU:
        case C_PRICE:
        case C_SCEN:
        case C_THR:
            rc = query_option(opt, optarg, ses, q);
            break;
        case C_BY:
            q->by = optarg;
            break;
        case C_LDC:
        case C_JSON:
        case C_CSV:
            *(opt == C_LDC ? &f->ldc : opt == C_JSON ? &f->json : &f->csv) = true;
            break;
        case C_OPTION:
        case C_MIX:
            *(opt == C_MIX ? &f->mix : &f->option) = optarg;
            break;
        case C_GROWTH:
            if (!parse_growth(optarg, &f->mix_rq))
                rc = cli_usage_error("--growth: 5%%/month, or trend");
            break;
        case C_TARGET:
            if (!gp_parse_double(optarg, &f->mix_rq.target) ||
                !(f->mix_rq.target > 0 && f->mix_rq.target <= 1))
                rc = cli_usage_error("--target: a utilization in (0, 1]");
            break;
        case C_FORCE:
            f->mix_rq.force_trend = true;
            break;
        case C_PROM:
        case C_MATCH:
        case C_TOKEN:
        case C_ORG:
        case C_CACERT:
        case C_INSECURE:
        case C_TIMEOUT:
        case C_HOSTS:
        case C_CONC:
            rc = remote_option(opt, optarg, &f->remote);
            break;
        case C_RECORDED:
            f->recorded_set = true;
            if (!strcmp(optarg, "auto") || !strcmp(optarg, "yes") || !strcmp(optarg, "no"))
                q->recorded = optarg[0] == 'a'   ? GP_REC_AUTO
                              : optarg[0] == 'y' ? GP_REC_YES
                                                 : GP_REC_NO;
            else
                rc = cli_usage_error("--recorded: auto, yes or no");
            break;
        case C_SLICE:
            f->recorded_set = true; /* goes with --prometheus, as --recorded does */
            if (!parse_since(optarg, &q->slice_ms) || q->slice_ms % GP_HOUR_MS)
                rc = cli_usage_error("--slice: \"%s\" is not whole hours like 7d or 12h", optarg);
            break;
        case C_PRINT_RULES:
            f->print_rules = true;
            break;
        case 'h':
            f->help = true;
            return 0;
        default:
            rc = cli_usage_error("unknown option or missing value: %s (see --help)",
                                 argv[optind - 1]);
        }
    }
    if (!rc && f->remote.url[0]) {
        q->remote = &f->remote;
        gp_err warn;
        if (f->remote.token_file[0] &&
            gp_token_file_check(f->remote.token_file, &warn) == GP_E_INPUT)
            fprintf(stderr, "gpuplan: warning: %s: %s\n", warn.where, warn.msg);
    } else if (!rc && (f->remote.match[0] || f->remote.token_file[0] || f->remote.org_id[0] ||
                       f->remote.cacert[0] || f->remote.insecure || f->recorded_set))
        rc = cli_usage_error("--match, --token-file, --org-id, --cacert, --insecure, "
                             "--recorded and --slice go with --prometheus URL");
    return rc;
}

/* Write what a renderer put in out to stdout; 0, or the exit status of a failure. */
int cli_capacity_emit(gp_status st, gp_buf *out, gp_err *err) {
    if (st)
        gp_errorf(err, st, NULL, "the output is larger than %zu bytes", out->limit);
    else
        st = cli_write_output(NULL, out->data ? out->data : "", out->len, err);
    gp_buf_done(out);
    return st ? cli_fail(err) : 0;
}

/* ---- capacity ---------------------------------------------------------------------------------
 */

static void capacity_help(FILE *f) {
    fprintf(
        f,
        "usage: gpuplan capacity [--since 30d] [--node NAME]... [--gpu MODEL]\n"
        "                        [--price-per-kwh X | --scenario NAME|FILE] [--busy-threshold 5]\n"
        "                        [--by LABEL] [--ldc] [--json | --csv]\n"
        "                        [--prometheus URL [--match SELECTOR] [--token-file F]\n"
        "                         [--org-id TENANT] [--cacert FILE] [--insecure] [--timeout 120s]\n"
        "                         [--hosts-per-query 8] [--concurrency 4]\n"
        "                         [--recorded auto|yes|no] [--slice 31d]]\n"
        "       gpuplan capacity --print-rules\n\n"
        "Utilization, power, energy and memory per GPU, node, GPU model and fleet from stored\n"
        "telemetry; idle GPUs and what they cost; money per node; the fleet's load duration\n"
        "curve (busy GPU equivalents per 5-minute bucket, sorted); wall power against GPU\n"
        "power where Redfish reports it. A GPU is busy in a 5-minute bucket when its mean\n"
        "utilization there is at least the threshold (a multiple of 5). --by LABEL attributes\n"
        "GPU-hours, energy and cost to a workload label (namespace, pod, a job id). --ldc\n"
        "prints the whole curve as CSV; --csv one row a GPU. Missing data is counted, never\n"
        "interpolated. --prometheus URL computes the same figures on the fleet's\n"
        "Prometheus-compatible server (server-side aggregation, nothing imported; --node\n"
        "then names Hostname values, --gpu does not apply: select with --match); the\n"
        "queries it sends are listed in docs/telemetry.md. Where the server holds the\n"
        "series of gpuplan's recording rules for the window (--print-rules writes them,\n"
        "as contrib/prometheus/gpuplan-capacity.rules.yml), they are read instead of the\n"
        "raw ones (--recorded auto); the output says which. --slice asks for the window in\n"
        "time slices of that length (whole hours; a month by default), each host group's\n"
        "slices their own queries, so no answer grows with the window.\n");
}

int cmd_capacity(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = cli_capacity_options(argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? capacity_help(stdout), 0 : rc;
    if (optind != argc || flags.mix || flags.option)
        return cli_usage_error("capacity takes no arguments (see --help)");
    gp_err err;
    gp_err_clear(&err);
    if (flags.print_rules) {
        gp_buf rules;
        gp_buf_init(&rules, 1u << 20);
        return cli_capacity_emit(gp_capacity_rules_yaml(&rules), &rules, &err);
    }
    gp_capacity c;
    if (gp_capacity_analyse(ses, &q, gp_now_ms(), &c, &err)) {
        gp_capacity_done(&c);
        return cli_fail(&err);
    }
    gp_buf out;
    gp_buf_init(&out, 1u << 30);
    gp_status st = flags.ldc           ? gp_report_capacity_ldc(&c, &out)
                   : flags.csv && q.by ? gp_report_capacity_usage_csv(&c, &out)
                   : flags.csv         ? gp_report_capacity_csv(&c, &out)
                   : flags.json        ? gp_report_capacity_json(&c, &out)
                                       : gp_report_capacity_text(&c, &out);
    gp_capacity_done(&c);
    return cli_capacity_emit(st, &out, &err);
}
