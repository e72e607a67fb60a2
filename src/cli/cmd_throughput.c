/* gpuplan throughput list|set|import|profile: the work per GPU-hour of each GPU model and
 * profile (docs/compare.md); throughput import --prometheus URL --profile P: throughput measured
 * from the serving engine's token counters; throughput history: the measured runs kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/app_tp_measure.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_compare.h"
#include "gpuplan/report_tp_measure.h"

static void cli_tp_measure_help(FILE *f) {
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

static const char *const token_counts[] = {"output", "input", "total", NULL};

static int cli_tp_measure(gp_session *ses, int argc, char **argv) {
    gp_tp_measure_request rq;
    gp_tp_measure_request_init(&rq);
    const char *until = NULL;
    int count = (int)rq.count, first; /* token_counts is gp_tok_count's order */
    bool help = false;
    gp_history_opts *h = &rq.opts;
    const cli_opt opts[] = {
        {CLI_STR("prometheus", &h->url)},
        {CLI_STR("node", &rq.node)},
        {CLI_STR("profile", &rq.profile)},
        {CLI_DURATION("since", &rq.window_ms, 0), .bad = "\"%s\" is not a window like 7d or 12h"},
        {CLI_STR("until", &until)},
        {CLI_STR("match", &h->match)},
        {CLI_ENUM("tokens", &count, token_counts), .bad = "\"%s\" is not output, input or total"},
        CLI_PROMETHEUS_CONNECTION(h, NULL),
        {CLI_COUNT("hosts-per-query", &h->hosts_per_query)},
        {CLI_HELP(&help)},
        {0}};
    int rc = cli_parse(&(cli_parser){.cmd = "throughput import", .opts = opts}, argc, argv, &first);
    if (rc || help)
        return help ? cli_tp_measure_help(stdout), 0 : rc;
    rq.count = (gp_tok_count)count;
    if (until && !cli_when_ms(until, gp_now_ms(), &rq.until_ms))
        return cli_usage_error("--until: \"%s\" is not a date, a UTC time or Unix seconds", until);
    if (first != argc)
        return cli_usage_error("throughput import: unexpected argument \"%s\" with --prometheus",
                               argv[first]);
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

static int cli_tp_history(gp_session *ses, int argc, char **argv) {
    const char *profile = NULL, *gpu = NULL;
    bool help = false;
    int first;
    const cli_opt opts[] = {
        {CLI_STR("profile", &profile)}, {CLI_STR("gpu", &gpu)}, {CLI_HELP(&help)}, {0}};
    int rc =
        cli_parse(&(cli_parser){.cmd = "throughput history", .opts = opts}, argc, argv, &first);
    if (rc || help)
        return help ? cli_tp_measure_help(stdout), 0 : rc;
    if (first != argc)
        return cli_usage_error("throughput history: unexpected argument \"%s\"", argv[first]);
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

static void throughput_help(FILE *f) {
    fprintf(f, "usage: gpuplan throughput list [--profile P] [--gpu G] [--json]\n"
               "       gpuplan throughput set MODEL PROFILE VALUE --unit UNIT --source TEXT\n"
               "       gpuplan throughput import FILE.csv\n"
               "       gpuplan throughput import --prometheus URL --profile P [--since 7d] ...\n"
               "       gpuplan throughput history [--profile P] [--gpu G]\n"
               "       gpuplan throughput profile add FILE.json\n\n"
               "Work per GPU-hour by GPU model and workload profile (llm-training and\n"
               "llm-inference-decode in M tokens, fp32 in PFLOP; the workload profiles\n"
               "llama2-70b-offline, llama3-8b-decode, llama3-70b-decode, llama2-7b-training and\n"
               "your own in M tokens). Estimates follow the specs (docs/compare.md has the\n"
               "formulas and efficiency factors); published results (bundled, dated, cited) win\n"
               "over them; measured figures, set or imported (CSV header\n"
               "gpu,profile,value,unit,source and optionally date) or measured from the serving\n"
               "engine (throughput import --prometheus --help), win over both.\n");
}

static int throughput_list(gp_session *ses, int argc, char **argv) {
    const char *profile = NULL, *gpu = NULL;
    bool json = false, help = false;
    int first;
    const cli_opt opts[] = {{CLI_STR("profile", &profile)},
                            {CLI_STR("gpu", &gpu)},
                            {CLI_FLAG("json", &json)},
                            {CLI_HELP(&help)},
                            {0}};
    int rc = cli_parse(&(cli_parser){.cmd = "throughput list", .opts = opts}, argc, argv, &first);
    if (rc || help)
        return help ? throughput_help(stdout), 0 : rc;
    if (first != argc)
        return cli_usage_error("throughput list: unexpected argument \"%s\"", argv[first]);
    gp_err err;
    gp_err_clear(&err);
    gp_tp_list l;
    if (gp_throughput_list(ses, profile, gpu, &l, &err))
        return cli_fail(&err);
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_status st = json ? gp_report_throughput_json(l.rows, l.n, &out)
                        : gp_report_throughput_text(l.rows, l.n, &out);
    gp_tp_list_done(&l);
    return cli_print_rendered(st, &out);
}

/* getopt takes "-5" for an option: it is the VALUE, below 0. */
static int negative_value(const char *word) {
    if (!gp_parse_double(word, &(double){0}))
        return 0;
    return cli_usage_error("throughput set: VALUE %s: must be a number above 0", word);
}

static int throughput_set(gp_session *ses, int argc, char **argv) {
    const char *unit = NULL, *source = NULL;
    bool help = false;
    int first;
    const cli_opt opts[] = {
        {CLI_STR("unit", &unit)}, {CLI_STR("source", &source)}, {CLI_HELP(&help)}, {0}};
    int rc =
        cli_parse(&(cli_parser){.cmd = "throughput set", .opts = opts, .unknown = negative_value},
                  argc, argv, &first);
    if (rc || help)
        return help ? throughput_help(stdout), 0 : rc;
    double value;
    if (argc - first != 3)
        return cli_usage_error("throughput set takes MODEL PROFILE VALUE --unit U --source TEXT");
    if (!gp_parse_double(argv[first + 2], &value))
        return cli_usage_error("throughput set: \"%s\" is not a number", argv[first + 2]);
    if (!unit || !source)
        return cli_usage_error("throughput set needs --unit and --source");
    gp_err err;
    gp_err_clear(&err);
    gp_throughput t;
    if (gp_throughput_set(ses, argv[first], argv[first + 1], value, unit, source, &t, &err))
        return cli_fail(&err);
    printf("%s %s: %g %s a GPU-hour, measured (%s), used instead of the estimate\n", t.gpu,
           t.profile, t.value, t.unit, t.source);
    return 0;
}

static int throughput_import(gp_session *ses, int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--prometheus", 12) || !strncmp(argv[i], "--node", 6))
            return cli_tp_measure(ses, argc, argv);
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return throughput_help(stdout), 0;
    if (argc != 2 || argv[1][0] == '-')
        return cli_usage_error("throughput import takes one FILE.csv");
    gp_err err;
    gp_err_clear(&err);
    int n;
    if (gp_throughput_import(ses, argv[1], &n, &err))
        return cli_fail(&err);
    printf("imported %d measured figure%s from %s\n", n, n == 1 ? "" : "s", argv[1]);
    return 0;
}

static int throughput_profile(gp_session *ses, int argc, char **argv) {
    for (int i = 1; i < argc; i++) /* profile --help and profile add --help alike */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return throughput_help(stdout), 0;
    if (argc != 3 || strcmp(argv[1], "add") != 0 || argv[2][0] == '-')
        return cli_usage_error("throughput profile takes add FILE.json");
    gp_err err;
    gp_err_clear(&err);
    gp_workload w;
    if (gp_profile_add(ses, argv[2], &w, &err))
        return cli_fail(&err);
    printf("added profile %s (%s, %g B parameters) from %s: use --profile %s\n", w.name,
           gp_wl_phase_name(w.phase), w.params_b, argv[2], w.name);
    return 0;
}

int cmd_throughput(gp_session *ses, int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        throughput_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "list"))
        return throughput_list(ses, argc - 1, argv + 1);
    if (!strcmp(argv[1], "set"))
        return throughput_set(ses, argc - 1, argv + 1);
    if (!strcmp(argv[1], "import"))
        return throughput_import(ses, argc - 1, argv + 1);
    if (!strcmp(argv[1], "profile"))
        return throughput_profile(ses, argc - 1, argv + 1);
    if (!strcmp(argv[1], "history"))
        return cli_tp_history(ses, argc - 1, argv + 1);
    return cli_usage_error(
        "throughput: unknown subcommand \"%s\" (list, set, import, history, profile)", argv[1]);
}
