/* gpuplan capacity, scenario measure, plan --mix: telemetry turned into the numbers a plan
 * needs. Each command parses its options into a gp_cap_query, asks src/app/capacity_query.c,
 * and renders through src/report/capacity_report.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_capacity.h"

/* ---- the options the three commands share ------------------------------------------------ */

/* What capacity, scenario measure and plan take besides the query; each command reads the
 * fields it documents. */
typedef struct cap_flags {
    bool json, csv, ldc, help;
    const char *mix, *option; /* plan --mix SCENARIO --option NAME */
    gp_mix_request mix_rq;
    gp_history_opts remote; /* --prometheus URL and its connection options */
    bool recorded_set;      /* --recorded given */
    bool print_rules;       /* capacity --print-rules */
} cap_flags;

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

static int parse_common(int argc, char **argv, gp_session *ses, gp_cap_query *q, cap_flags *f) {
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
        rc = cli_usage_error("--match, --token-file, --org-id, --cacert, --insecure and "
                             "--recorded go with --prometheus URL");
    return rc;
}

/* Write what a renderer put in out to stdout; 0, or the exit status of a failure. */
static int emit(gp_status st, gp_buf *out, gp_err *err) {
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
        "                         [--recorded auto|yes|no]]\n"
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
        "raw ones (--recorded auto); the output says which.\n");
}

int cmd_capacity(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? capacity_help(stdout), 0 : rc;
    if (optind != argc || flags.mix || flags.option)
        return cli_usage_error("capacity takes no arguments (see --help)");
    gp_err err;
    gp_err_clear(&err);
    if (flags.print_rules) {
        gp_buf rules;
        gp_buf_init(&rules, 1u << 20);
        return emit(gp_capacity_rules_yaml(&rules), &rules, &err);
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
    return emit(st, &out, &err);
}

/* ---- scenario measure --------------------------------------------------------------------- */

static void measure_help(void) {
    printf("usage: gpuplan scenario measure NAME [--since 30d] [--node NAME]... [--gpu MODEL]\n"
           "                                     [--busy-threshold 5] [--growth trend\n"
           "                                     [--force-trend]] [--prometheus URL ...]\n\n"
           "Writes a new version of stored scenario NAME with demand.gpus, demand.utilization\n"
           "(the busy share), power.gpu_idle_w and power.gpu_tdp_w (the mean draw of idle and\n"
           "of busy GPU-buckets, split at 5 %%) and, where Redfish reports wall power,\n"
           "power.server_base_w, all from the window, and records the window, nodes and\n"
           "figures in the scenario's \"measured\" object. --growth trend also writes\n"
           "demand.growth_per_month from the trend of daily busy GPU-hours (as plan --growth\n"
           "trend fits it) when it is significant (or --force-trend) and within -50 %% to\n"
           "+100 %% a month; the fit is recorded in measured.growth either way.\n"
           "--prometheus URL (with the connection options of capacity) measures on the\n"
           "fleet's Prometheus-compatible server instead of stored telemetry.\n");
}

/* The line that says what was measured and saved. */
static void measure_said(const gp_measured *m, bool growth, bool forced) {
    printf("saved \"%s\" as version %d: %lld GPU%s, %.1f %% busy, idle %.1f W, busy %.1f W%s\n",
           m->name, m->version, m->gpus, m->gpus == 1 ? "" : "s", m->busy_share * 100,
           m->has_idle_w ? m->idle_w : 0, m->has_busy_w ? m->busy_w : 0,
           m->has_base ? ", server base from Redfish" : "");
    if (!growth)
        return;
    if (m->growth_written)
        printf("growth_per_month %+.4f (%+.2f %% a month, R^2 %.3f over %zu days)\n",
               m->trend.growth, m->trend.growth * 100, m->trend.r2, m->trend.days);
    else
        printf("growth_per_month left as it was: the trend (%+.2f %% a month, R^2 %.3f over %zu "
               "days) is %s\n",
               m->trend.growth * 100, m->trend.r2, m->trend.days,
               forced                  ? "outside -50 % to +100 % a month"
               : m->trend.days < 7     ? "fitted on fewer than 7 days"
               : !m->trend.significant ? "not significant (--force-trend writes it)"
                                       : "outside -50 % to +100 % a month");
}

int cmd_scenario_measure(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? measure_help(), 0 : rc;
    if (flags.print_rules)
        return cli_usage_error("--print-rules goes with capacity alone");
    if (argc - optind != 1)
        return cli_usage_error("scenario measure takes one scenario NAME");
    if (flags.mix_rq.has_growth && !flags.mix_rq.trend)
        return cli_usage_error("scenario measure --growth takes trend (a rate is not measured)");
    gp_measure_request rq = {flags.mix_rq.trend, flags.mix_rq.force_trend};
    gp_err err;
    gp_err_clear(&err);
    gp_measured m;
    if (gp_scenario_measure(ses, argv[optind], &q, &rq, gp_now_ms(), &m, &err))
        return cli_fail(&err);
    measure_said(&m, rq.growth, rq.force_trend);
    return 0;
}

/* ---- plan --mix ---------------------------------------------------------------------------- */

static void plan_help(void) {
    printf("usage: gpuplan plan --mix SCENARIO --option NAME [--since 30d] [--node NAME]...\n"
           "                    [--gpu MODEL] [--busy-threshold 5] [--csv]\n"
           "                    [--growth 5%%/month | --growth trend [--force-trend]]\n"
           "                    [--target 0.7]\n\n"
           "The mixed fleet (docs/model.md): for each owned fleet size k from 0 to demand.gpus,\n"
           "the total of owning k GPUs and renting the overflow from the on-demand or spot\n"
           "option, over the measured load duration curve. Prints the optimum, the savings\n"
           "against all-own and all-rent and the curve (--csv: the whole curve). --growth\n"
           "projects demand over the horizon (a rate, or the least-squares trend of daily\n"
           "busy GPU-hours with its R^2, standard error and 95 %% band) and says how many\n"
           "GPUs are needed at --target utilization and when the scenario's GPUs run out.\n"
           "A trend whose slope is within twice its standard error of 0 (or fitted on fewer\n"
           "than 7 days) is not projected unless --force-trend.\n");
}

int cmd_plan(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = parse_common(argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? plan_help(), 0 : rc;
    if (flags.print_rules)
        return cli_usage_error("--print-rules goes with capacity alone");
    if (!flags.mix || !flags.option)
        return cli_usage_error("plan needs --mix SCENARIO and --option NAME (see --help)");
    if (q.remote)
        return cli_usage_error("plan --mix plans on stored telemetry: import --prometheus first");
    if (optind != argc)
        return cli_usage_error("plan takes no other arguments");
    gp_err err;
    gp_err_clear(&err);
    flags.mix_rq.scenario = flags.mix;
    flags.mix_rq.option = flags.option;
    gp_mix_plan p;
    if (gp_plan_mix(ses, &q, &flags.mix_rq, gp_now_ms(), &p, &err)) {
        gp_mix_plan_done(&p);
        return cli_fail(&err);
    }
    gp_buf out;
    gp_buf_init(&out, 1u << 30);
    gp_status st =
        flags.csv ? gp_report_mix_csv(&p, &out) : gp_report_mix_text(&p, flags.option, &out);
    gp_mix_plan_done(&p);
    return emit(st, &out, &err);
}
