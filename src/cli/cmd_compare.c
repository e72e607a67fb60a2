/* gpuplan compare: GPU generations per unit of work (docs/compare.md). */
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
