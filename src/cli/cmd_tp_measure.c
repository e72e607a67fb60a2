/* gpuplan throughput import --prometheus URL --profile P: throughput measured from the serving
 * engine's token counters; gpuplan throughput history: the measured runs kept. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_tp_measure.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_tp_measure.h"

void cli_tp_measure_help(FILE *f) {
    fprintf(f,
            "usage: gpuplan throughput import --prometheus URL --profile P [--since 7d]\n"
            "                                 [--until TIME] [--match SELECTOR]\n"
            "                                 [--tokens output|input|total] [--token-file F]\n"
            "                                 [--org-id ID] [--cacert F] [--insecure]\n"
            "                                 [--timeout 120s] [--hosts-per-query 8]\n"
            "       gpuplan throughput import --node NAME --profile P [...]\n"
            "       gpuplan throughput history [--profile P] [--gpu G]\n\n"
            "Measures work per busy GPU-hour where the fleet serves: the serving engine's token\n"
            "counters (vLLM, SGLang, TGI) over the window, each pod's tokens attributed to the\n"
            "GPUs it held through dcgm-exporter's pod labels, stored per GPU model as the\n"
            "measured figure of P (it wins in compare, drafts and the TUI) with its window,\n"
            "tokens, GPU-hours and busy share; each run is kept (throughput history). --match\n"
            "narrows the token counters; --node uses the node's Prometheus source, whose\n"
            "selector narrows the GPUs. --tokens: generated (output, the default), prompt\n"
            "(input) or both. The GPU series are asked for 8 hosts (Hostname) a query.\n"
            "docs/compare.md lists the queries.\n");
}

enum {
    O_PROM = 300,
    O_NODE,
    O_PROFILE,
    O_SINCE,
    O_UNTIL,
    O_MATCH,
    O_TOKENS,
    O_TOKEN_FILE,
    O_ORG,
    O_CACERT,
    O_INSECURE,
    O_TIMEOUT,
    O_HOSTS
};

int cli_tp_measure(gp_session *ses, int argc, char **argv) {
    static const struct option longs[] = {{"prometheus", required_argument, NULL, O_PROM},
                                          {"node", required_argument, NULL, O_NODE},
                                          {"profile", required_argument, NULL, O_PROFILE},
                                          {"since", required_argument, NULL, O_SINCE},
                                          {"until", required_argument, NULL, O_UNTIL},
                                          {"match", required_argument, NULL, O_MATCH},
                                          {"tokens", required_argument, NULL, O_TOKENS},
                                          {"token-file", required_argument, NULL, O_TOKEN_FILE},
                                          {"org-id", required_argument, NULL, O_ORG},
                                          {"cacert", required_argument, NULL, O_CACERT},
                                          {"insecure", no_argument, NULL, O_INSECURE},
                                          {"timeout", required_argument, NULL, O_TIMEOUT},
                                          {"hosts-per-query", required_argument, NULL, O_HOSTS},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_tp_measure_request rq;
    gp_tp_measure_request_init(&rq);
    int64_t now = gp_now_ms(), ms;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case O_PROM:
            rq.opts.url = optarg;
            break;
        case O_NODE:
            rq.node = optarg;
            break;
        case O_PROFILE:
            rq.profile = optarg;
            break;
        case O_SINCE:
            if (!cli_duration_ms(optarg, &rq.window_ms))
                return cli_usage_error("--since: \"%s\" is not a window like 7d or 12h", optarg);
            break;
        case O_UNTIL:
            if (!cli_when_ms(optarg, now, &ms))
                return cli_usage_error("--until: \"%s\" is not a date, a UTC time or Unix seconds",
                                       optarg);
            rq.until_ms = ms;
            break;
        case O_MATCH:
            rq.opts.match = optarg;
            break;
        case O_TOKENS:
            if (!strcmp(optarg, "output"))
                rq.count = GP_TOK_OUTPUT;
            else if (!strcmp(optarg, "input"))
                rq.count = GP_TOK_INPUT;
            else if (!strcmp(optarg, "total"))
                rq.count = GP_TOK_TOTAL;
            else
                return cli_usage_error("--tokens: output, input or total");
            break;
        case O_TOKEN_FILE:
            rq.opts.token_file = optarg;
            break;
        case O_ORG:
            rq.opts.org_id = optarg;
            break;
        case O_CACERT:
            rq.opts.cacert = optarg;
            break;
        case O_INSECURE:
            rq.opts.insecure = true;
            break;
        case O_TIMEOUT:
            if (!cli_duration_ms(optarg, &ms) || ms > GP_HOUR_MS)
                return cli_usage_error("--timeout: \"%s\" is not a duration like 120s", optarg);
            rq.opts.total_timeout_ms = (long)ms;
            if (rq.opts.connect_timeout_ms > rq.opts.total_timeout_ms)
                rq.opts.connect_timeout_ms = rq.opts.total_timeout_ms;
            break;
        case O_HOSTS:
            if (!gp_parse_int(optarg, &rq.opts.hosts_per_query) || rq.opts.hosts_per_query < 1 ||
                rq.opts.hosts_per_query > 100000)
                return cli_usage_error("--hosts-per-query: a count >= 1");
            break;
        case 'h':
            return cli_tp_measure_help(stdout), 0;
        default:
            return cli_usage_error("throughput import: unknown option or missing value: %s",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("throughput import: unexpected argument \"%s\" with --prometheus",
                               argv[optind]);
    if (!rq.profile)
        return cli_usage_error("throughput import --prometheus needs --profile P");
    if (!rq.node && !*rq.opts.url)
        return cli_usage_error("throughput import: --prometheus URL or --node NAME");
    gp_err err;
    gp_err_clear(&err);
    gp_tp_measure_result r;
    bool shown = cli_progress_begin("querying the serving engine's counters");
    gp_status st = gp_throughput_measure(ses, &rq, &r, &err);
    if (shown)
        cli_progress_end();
    if (st)
        return cli_fail(&err);
    gp_buf out;
    gp_buf_init(&out, 16u << 20);
    st = gp_report_tp_measure_text(r.m, r.n, r.orphans, r.n_orphans, r.pods, r.idle_models,
                                   r.unnamed, &out);
    gp_tp_measure_result_done(&r);
    return cli_print_rendered(st, &out);
}

int cli_tp_history(gp_session *ses, int argc, char **argv) {
    static const struct option longs[] = {{"profile", required_argument, NULL, 'p'},
                                          {"gpu", required_argument, NULL, 'g'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *profile = NULL, *gpu = NULL;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (opt == 'p')
            profile = optarg;
        else if (opt == 'g')
            gpu = optarg;
        else if (opt == 'h')
            return cli_tp_measure_help(stdout), 0;
        else
            return cli_usage_error("throughput history: unknown option or missing value: %s",
                                   argv[optind - 1]);
    }
    if (optind != argc)
        return cli_usage_error("throughput history: unexpected argument \"%s\"", argv[optind]);
    gp_err err;
    gp_err_clear(&err);
    gp_tp_measurement *m;
    int n;
    if (gp_throughput_history(ses, profile, gpu, &m, &n, &err))
        return cli_fail(&err);
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_status st = gp_report_tp_history_text(m, n, &out);
    free(m);
    return cli_print_rendered(st, &out);
}
