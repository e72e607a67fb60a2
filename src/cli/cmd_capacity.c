/* gpuplan capacity: telemetry turned into the numbers a plan needs; and the options it shares
 * with scenario measure (cmd_scenario.c) and plan --mix (cmd_plan.c). Each command parses its
 * options into a gp_cap_query, asks src/app/capacity.c, and renders through
 * src/report/report_capacity.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_capacity.h"

/* ---- the options the three commands share ------------------------------------------------ */

/* --since 30d, 12h or 2w, at most ten years. */
static int parse_since(const char *s, void *dest) {
    long long *ms = dest;
    char num[32];
    size_t n = strlen(s);
    if (n < 2 || n >= sizeof num)
        return CLI_OPT_BAD;
    memcpy(num, s, n - 1); /* the number before its one-letter unit, read as every number is */
    num[n - 1] = '\0';
    double v;
    if (!gp_parse_double(num, &v) || !(v > 0))
        return CLI_OPT_BAD;
    double unit = s[n - 1] == 'd'   ? (double)GP_DAY_MS
                  : s[n - 1] == 'h' ? (double)GP_HOUR_MS
                  : s[n - 1] == 'w' ? 7.0 * GP_DAY_MS
                                    : -1;
    if (unit < 0 || v * unit > 3650.0 * GP_DAY_MS)
        return CLI_OPT_BAD;
    *ms = (long long)(v * unit);
    return 0;
}

/* --slice: a window (as --since) of whole hours. */
static int parse_slice(const char *s, void *dest) {
    return parse_since(s, dest) || *(long long *)dest % GP_HOUR_MS ? CLI_OPT_BAD : 0;
}

/* --growth 5%/month, 0.05, or trend. */
static int parse_growth(const char *arg, void *dest) {
    gp_mix_request *rq = dest;
    rq->has_growth = true;
    if (!strcmp(arg, "trend"))
        return rq->trend = true, 0;
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
        return CLI_OPT_BAD;
    rq->growth /= pct || rq->growth >= 1 ? 100 : 1;
    return 0;
}

/* --gpu MODEL, normalised, into the query. */
static int query_gpu(const char *v, void *dest) {
    gp_cap_query *q = dest;
    gp_gpu_normalize(v, 0, q->gpu, sizeof q->gpu);
    q->has_gpu = true;
    return 0;
}

/* --price-per-kwh X: a price of 0 or more. */
static int query_price(const char *v, void *dest) {
    gp_cap_query *q = dest;
    if (!gp_parse_double(v, &q->price) || q->price < 0)
        return CLI_OPT_BAD;
    q->has_price = true;
    return 0;
}

/* --scenario NAME|FILE: the price of power (and more) from a scenario. */
typedef struct scenario_price {
    gp_session *ses;
    gp_cap_query *q;
} scenario_price;

static int query_scenario(const char *v, void *dest) {
    scenario_price *sp = dest;
    gp_err err;
    return gp_cap_query_price_from(sp->ses, v, sp->q, &err) ? cli_fail(&err) : 0;
}

/* --busy-threshold: the rollups keep 5 % bins. */
static int query_threshold(const char *v, void *dest) {
    int *t = dest;
    return gp_parse_int(v, t) && *t >= 5 && *t <= 100 && *t % 5 == 0 ? 0 : CLI_OPT_BAD;
}

/* --target: a utilization in (0, 1]. */
static int mix_target(const char *v, void *dest) {
    double *t = dest;
    return gp_parse_double(v, t) && *t > 0 && *t <= 1 ? 0 : CLI_OPT_BAD;
}

static const char *const recorded_names[] = {"auto", "yes", "no", NULL}; /* GP_REC_ order */

/* plan's line for --prometheus, which it does not take: where its telemetry comes from. */
static int plan_unknown(const char *word) {
    if (strncmp(word, "--prometheus", 12))
        return 0;
    return cli_usage_error("plan --mix plans on stored telemetry: import --prometheus first");
}

/* The n entries of part after the *len already in table. */
static void append(cli_opt *table, size_t *len, const cli_opt *part, size_t n) {
    memcpy(table + *len, part, n * sizeof *part);
    *len += n;
}
#define APPEND(table, len, part) append(table, len, part, sizeof part / sizeof part[0])

int cli_capacity_options(cap_command cmd, int argc, char **argv, gp_session *ses, gp_cap_query *q,
                         cap_flags *f) {
    gp_cap_query_init(q);
    *f = (cap_flags){.mix_rq.target = 0.7};
    gp_history_opts_init(&f->remote);
    gp_history_opts *h = &f->remote;
    scenario_price sp = {ses, q};
    int recorded = (int)q->recorded;
    /* Each command's table is the parts it reads, so an option it would ignore is refused;
     * all three read the selection. */
    const cli_opt selection[] = {
        {CLI_CALL("since", &q->since_ms, parse_since),
         .bad = "\"%s\" is not a window like 30d, 12h or 2w"},
        {CLI_LIST("node", q->nodes, &q->n_nodes, 64), .bad = "at most 64"},
        {CLI_CALL("gpu", q, query_gpu)},
        {CLI_CALL("busy-threshold", &q->threshold, query_threshold),
         .bad = "\"%s\" is not a multiple of 5 from 5 to 100 (the rollups keep 5 % bins)"},
        {CLI_HELP(&f->help)}};
    const cli_opt capacity[] = {
        {CLI_CALL("price-per-kwh", q, query_price), .bad = "\"%s\" is not a price"},
        {CLI_CALL("scenario", &sp, query_scenario)},
        {CLI_STR("by", &q->by)},
        {CLI_FLAG("ldc", &f->ldc)},
        {CLI_FLAG("json", &f->json)},
        {CLI_FLAG("print-rules", &f->print_rules)}};
    const cli_opt csv[] = {{CLI_FLAG("csv", &f->csv)}};
    const cli_opt mix[] = {{CLI_STR("mix", &f->mix)},
                           {CLI_STR("option", &f->option)},
                           {CLI_CALL("target", &f->mix_rq.target, mix_target),
                            .bad = "\"%s\" is not a utilization in (0, 1]"}};
    const cli_opt growth[] = {{CLI_CALL("growth", &f->mix_rq, parse_growth),
                               .bad = "\"%s\" is not a growth like 5%/month, or trend"},
                              {CLI_FLAG("force-trend", &f->mix_rq.force_trend), .needs = "growth"}};
    const cli_opt remote[] = {
        {CLI_STR("prometheus", &h->url)},
        {CLI_STR("match", &h->match), .needs = "prometheus"},
        CLI_PROMETHEUS_CONNECTION(h, "prometheus"),
        {CLI_COUNT("hosts-per-query", &h->hosts_per_query), .needs = "prometheus"},
        {CLI_COUNT("concurrency", &h->concurrency), .needs = "prometheus"},
        {CLI_ENUM("recorded", &recorded, recorded_names), .bad = "\"%s\" is not auto, yes or no",
         .needs = "prometheus"},
        {CLI_CALL("slice", &q->slice_ms, parse_slice),
         .bad = "\"%s\" is not whole hours like 7d or 12h", .needs = "prometheus"}};
    cli_opt opts[sizeof selection / sizeof *selection + sizeof capacity / sizeof *capacity + 1 +
                 sizeof mix / sizeof *mix + sizeof growth / sizeof *growth +
                 sizeof remote / sizeof *remote + 1];
    size_t n = 0;
    APPEND(opts, &n, selection);
    if (cmd == CAP_CAPACITY)
        APPEND(opts, &n, capacity);
    if (cmd != CAP_MEASURE)
        APPEND(opts, &n, csv);
    if (cmd == CAP_PLAN)
        APPEND(opts, &n, mix);
    if (cmd != CAP_CAPACITY)
        APPEND(opts, &n, growth);
    if (cmd != CAP_PLAN)
        APPEND(opts, &n, remote);
    opts[n] = (cli_opt){0};
    static const char *const names[] = {"capacity", "plan", "scenario measure"};
    int rc = cli_parse(&(cli_parser){.cmd = names[cmd],
                                     .opts = opts,
                                     .unknown = cmd == CAP_PLAN ? plan_unknown : NULL},
                       argc, argv, &f->first_arg);
    q->recorded = recorded;
    if (rc || f->help || !h->url[0])
        return rc;
    q->remote = h;
    gp_err warn;
    if (h->token_file[0] && gp_token_file_check(h->token_file, &warn) == GP_E_INPUT)
        fprintf(stderr, "gpuplan: warning: %s: %s\n", warn.where, warn.msg);
    return 0;
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
    int rc = cli_capacity_options(CAP_CAPACITY, argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? capacity_help(stdout), 0 : rc;
    if (flags.first_arg != argc)
        return cli_usage_error("capacity takes no arguments (see --help)");
    /* Each prints a different output: two given would silently print only one of them. */
    if (flags.ldc + flags.csv + flags.json > 1)
        return cli_usage_error("capacity: %s and %s print different outputs: give one (see --help)",
                               flags.ldc ? "--ldc" : "--csv", flags.json ? "--json" : "--csv");
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
