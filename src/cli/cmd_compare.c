/* gpuplan compare: GPU generations per unit of work; gpuplan throughput: the work per
 * GPU-hour of each GPU model and profile (docs/compare.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/app_compare.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/report_compare.h"

static void compare_help(FILE *f) {
    fprintf(f, "usage: gpuplan compare --work VALUE --unit UNIT --profile P [--growth RATE]\n"
               "                       [--horizon N] [--utilization U] [--provider P]...\n"
               "                       [--tariff NAME] [--as-of YYYY-MM-DD] [-o OUT]\n"
               "                       [--gpu G] [--pricing KIND] [--region R]\n"
               "                       [--server-overhead X] [--network-share X]\n"
               "                       [--format md|csv|json|xlsx] [--save NAME --pick RANK]\n\n"
               "Ranks every GPU model with a throughput for the profile, owned (servers of 8\n"
               "GPUs, 1 for GH200, priced by the rule of docs/compare.md) and rented (the\n"
               "cheapest offer of each provider and pricing kind), by total cost for VALUE\n"
               "units of work a month: GPUs needed, total, cost per unit of work, break-even\n"
               "month against owning. Each candidate is a version 2 scenario in work mode\n"
               "evaluated by the engine; --save stores the one ranked --pick as a scenario\n"
               "(then: gpuplan report NAME). A GPU model without a throughput or a price is\n"
               "listed with what is missing. A profile whose model has API prices in force\n"
               "(gpuplan pricing api list) also gets one API row a provider, priced per unit of\n"
               "work with no hardware (docs/compare.md \"API rows\").\n\n"
               "  --work VALUE     work a month, > 0          --unit UNIT   the profile's unit\n"
               "  --profile P      a profile of gpuplan throughput list (llm-training,\n"
               "                   llama2-70b-offline, ...) or one you added\n"
               "  --growth RATE    work growth a month (0.03 or 3%%; default 0)\n"
               "  --horizon N      months (default 36)        --utilization U  busy share (0.6)\n"
               "  --provider P     only this provider's offers (repeatable)\n"
               "  --tariff NAME    a tariff preset (gpuplan pricing tariffs) for owned power\n"
               "  --as-of DATE     prices in force on that day, YYYY-MM-DD (default today)\n"
               "  --gpu G          only rows of this GPU model\n"
               "  --pricing KIND   only own, on_demand, spot, committed or api rows\n"
               "  --region R       only rented offers in this region (us-east-1, ...)\n"
               "  --server-overhead X  owned server over its GPUs' price when no node price\n"
               "                   exists (default 1.6)\n"
               "  --network-share X  cluster network over the servers' price (default 1.15)\n"
               "  --spot           rank spot rows for a horizon over 12 months too (else\n"
               "                   listed as not ranked, with their interruption assumption)\n"
               "  --format F       md (default), csv, json, or xlsx: a workbook, its Generations\n"
               "                   sheet every candidate's inputs as cells to edit and every\n"
               "                   figure a live formula (needs -o FILE.xlsx)\n"
               "  -o OUT           write to the file OUT (whole or not at all), not stdout\n"
               "  --save NAME      store the candidate ranked --pick RANK as the scenario NAME\n"
               "  --pick RANK      (with --save) its rank in the table\n");
}

typedef struct compare_args {
    gp_compare_request rq;
    const char *format, *output;
    bool help;
    char as_of[11];
} compare_args;

static bool parse_rate(const char *s, double *out) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    size_t n = strlen(buf);
    bool pct = n > 0 && buf[n - 1] == '%';
    if (pct)
        buf[n - 1] = '\0';
    if (!gp_parse_double(buf, out))
        return false;
    if (pct)
        *out /= 100.0;
    return true;
}

static int compare_option(compare_args *a, int opt, const char *arg) {
    gp_compare_request *rq = &a->rq;
    switch (opt) {
    case 'w':
        return gp_parse_double(arg, &rq->work_per_month)
                   ? 0
                   : cli_usage_error("--work: \"%s\" is not a number", arg);
    case 'u':
        rq->unit = arg;
        return 0;
    case 'p':
        rq->profile = arg;
        return 0;
    case 'g':
        return parse_rate(arg, &rq->growth_per_month)
                   ? 0
                   : cli_usage_error("--growth: \"%s\" is not a rate", arg);
    case 'H':
        return gp_parse_int(arg, &rq->horizon_months)
                   ? 0
                   : cli_usage_error("--horizon: \"%s\" is not a whole number of months", arg);
    case 'U':
        return parse_rate(arg, &rq->utilization)
                   ? 0
                   : cli_usage_error("--utilization: \"%s\" is not a share", arg);
    case 'P':
        if (rq->n_providers == GP_COMPARE_MAX_PROVIDERS)
            return cli_usage_error("--provider: at most %d", GP_COMPARE_MAX_PROVIDERS);
        rq->providers[rq->n_providers++] = arg;
        return 0;
    case 't':
        rq->tariff = arg;
        return 0;
    case 'a':
        if (!gp_valid_date(arg))
            return cli_usage_error("--as-of: \"%s\" is not a date YYYY-MM-DD", arg);
        snprintf(a->as_of, sizeof a->as_of, "%s", arg);
        return 0;
    case 'f':
        if (strcmp(arg, "md") && strcmp(arg, "csv") && strcmp(arg, "json") && strcmp(arg, "xlsx"))
            return cli_usage_error("--format: \"%s\" is not md, csv, json or xlsx", arg);
        a->format = arg;
        return 0;
    case 'o':
        a->output = arg;
        return 0;
    case 's':
        rq->save = arg;
        return 0;
    case 'G':
        rq->gpu = arg;
        return 0;
    case 'K':
        rq->pricing = arg;
        return 0;
    case 'R':
        rq->region = arg;
        return 0;
    case 'S':
        rq->spot = true;
        return 0;
    case 'O':
        return gp_parse_double(arg, &rq->server_overhead)
                   ? 0
                   : cli_usage_error("--server-overhead: \"%s\" is not a number", arg);
    case 'N':
        return gp_parse_double(arg, &rq->network_share)
                   ? 0
                   : cli_usage_error("--network-share: \"%s\" is not a number", arg);
    case 'k':
        return gp_parse_int(arg, &rq->pick) && rq->pick >= 1
                   ? 0
                   : cli_usage_error("--pick: \"%s\" is not a rank 1 or more", arg);
    default:
        a->help = true;
        return 0;
    }
}

static int compare_parse(int argc, char **argv, compare_args *a) {
    static const struct option longs[] = {{"work", required_argument, NULL, 'w'},
                                          {"unit", required_argument, NULL, 'u'},
                                          {"profile", required_argument, NULL, 'p'},
                                          {"growth", required_argument, NULL, 'g'},
                                          {"horizon", required_argument, NULL, 'H'},
                                          {"utilization", required_argument, NULL, 'U'},
                                          {"provider", required_argument, NULL, 'P'},
                                          {"tariff", required_argument, NULL, 't'},
                                          {"as-of", required_argument, NULL, 'a'},
                                          {"format", required_argument, NULL, 'f'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"save", required_argument, NULL, 's'},
                                          {"pick", required_argument, NULL, 'k'},
                                          {"gpu", required_argument, NULL, 'G'},
                                          {"pricing", required_argument, NULL, 'K'},
                                          {"region", required_argument, NULL, 'R'},
                                          {"spot", no_argument, NULL, 'S'},
                                          {"server-overhead", required_argument, NULL, 'O'},
                                          {"network-share", required_argument, NULL, 'N'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    gp_today(a->as_of);
    gp_compare_defaults(&a->rq, a->as_of);
    a->rq.work_per_month = NAN; /* required */
    a->format = "md";
    int opt, rc;
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
        if (opt == '?' || opt == ':')
            return cli_usage_error("compare: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
        if ((rc = compare_option(a, opt, optarg)))
            return rc;
    }
    if (a->help)
        return 0;
    if (optind != argc)
        return cli_usage_error("compare: unexpected argument \"%s\"", argv[optind]);
    if (isnan(a->rq.work_per_month) || !a->rq.unit || !a->rq.profile)
        return cli_usage_error("compare needs --work, --unit and --profile (see --help)");
    if (!a->rq.save != !a->rq.pick)
        return cli_usage_error("--save NAME and --pick RANK go together");
    if (!strcmp(a->format, "xlsx") &&
        (!a->output || (!strcmp(a->output, "-") && isatty(STDOUT_FILENO))))
        return cli_usage_error("--format xlsx writes a file: give -o FILE.xlsx");
    return 0;
}

int cmd_compare(gp_session *ses, int argc, char **argv) {
    compare_args a;
    int rc = compare_parse(argc, argv, &a);
    if (rc)
        return rc;
    if (a.help) {
        compare_help(stdout);
        return 0;
    }
    gp_err err;
    gp_err_clear(&err);
    gp_comparison c;
    if (gp_compare(ses, &a.rq, &c, &err))
        return cli_fail(&err);
    if (!strcmp(a.format, "xlsx")) {
        gp_status st = gp_report_compare_xlsx(&c, a.output, &err);
        int saved = c.saved_version;
        gp_comparison_done(&c);
        if (st)
            return cli_fail(&err);
        if (a.rq.save)
            fprintf(stderr, "saved rank %d as \"%s\" version %d (gpuplan report \"%s\")\n",
                    a.rq.pick, a.rq.save, saved, a.rq.save);
        return 0;
    }
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_status st = !strcmp(a.format, "json")  ? gp_report_compare_json(&c, &out)
                   : !strcmp(a.format, "csv") ? gp_report_compare_csv(&c, &out)
                                              : gp_report_compare_md(&c, a.rq.horizon_months, &out);
    if (st == GP_OK)
        st = cli_write_output(a.output, out.data, out.len, &err);
    else
        gp_errorf(&err, st, "compare", "the report does not fit in memory");
    gp_buf_done(&out);
    int saved = c.saved_version;
    gp_comparison_done(&c);
    if (st)
        return cli_fail(&err);
    if (a.rq.save)
        fprintf(stderr, "saved rank %d as \"%s\" version %d (gpuplan report \"%s\")\n", a.rq.pick,
                a.rq.save, saved, a.rq.save);
    return 0;
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
    static const struct option longs[] = {{"profile", required_argument, NULL, 'p'},
                                          {"gpu", required_argument, NULL, 'g'},
                                          {"json", no_argument, NULL, 'j'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *profile = NULL, *gpu = NULL;
    bool json = false;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (opt == 'p')
            profile = optarg;
        else if (opt == 'g')
            gpu = optarg;
        else if (opt == 'j')
            json = true;
        else if (opt == 'h')
            return throughput_help(stdout), 0;
        else
            return cli_usage_error("throughput list: unknown option or missing value: %s",
                                   argv[optind - 1]);
    }
    if (optind != argc)
        return cli_usage_error("throughput list: unexpected argument \"%s\"", argv[optind]);
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

static int throughput_set(gp_session *ses, int argc, char **argv) {
    static const struct option longs[] = {{"unit", required_argument, NULL, 'u'},
                                          {"source", required_argument, NULL, 's'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *unit = NULL, *source = NULL;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (opt == 'u')
            unit = optarg;
        else if (opt == 's')
            source = optarg;
        else if (opt == 'h')
            return throughput_help(stdout), 0;
        else if (gp_parse_double(argv[optind - 1], &(double){0}))
            /* getopt takes "-5" for an option: it is the VALUE, below 0 */
            return cli_usage_error("throughput set: VALUE %s: must be a number above 0",
                                   argv[optind - 1]);
        else
            return cli_usage_error("throughput set: unknown option or missing value: %s",
                                   argv[optind - 1]);
    }
    double value;
    if (argc - optind != 3)
        return cli_usage_error("throughput set takes MODEL PROFILE VALUE --unit U --source TEXT");
    if (!gp_parse_double(argv[optind + 2], &value))
        return cli_usage_error("throughput set: \"%s\" is not a number", argv[optind + 2]);
    if (!unit || !source)
        return cli_usage_error("throughput set needs --unit and --source");
    gp_err err;
    gp_err_clear(&err);
    gp_throughput t;
    if (gp_throughput_set(ses, argv[optind], argv[optind + 1], value, unit, source, &t, &err))
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
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
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
