/* gpuplan compare: GPU generations per unit of work (docs/compare.md). */
#include <limits.h>
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
               "                       [--server-overhead X] [--network-share X] [--spot]\n"
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

/* --growth and --utilization: 0.05 or 5%. */
static int rate(const char *v, void *dest) {
    return parse_rate(v, dest) ? 0 : CLI_OPT_BAD;
}

static const char *const formats[] = {"md", "csv", "json", "xlsx", NULL};

static int compare_parse(int argc, char **argv, compare_args *a) {
    memset(a, 0, sizeof *a);
    gp_today(a->as_of);
    gp_compare_defaults(&a->rq, a->as_of);
    a->rq.work_per_month = NAN; /* required */
    gp_compare_request *rq = &a->rq;
    int format = 0, first;
    const cli_opt opts[] = {
        {CLI_DOUBLE("work", &rq->work_per_month, 0, 0), .bad = "\"%s\" is not a number"},
        {CLI_STR("unit", &rq->unit)},
        {CLI_STR("profile", &rq->profile)},
        {CLI_CALL("growth", &rq->growth_per_month, rate), .bad = "\"%s\" is not a rate"},
        {CLI_INT("horizon", &rq->horizon_months, 0, 0),
         .bad = "\"%s\" is not a whole number of months"},
        {CLI_CALL("utilization", &rq->utilization, rate), .bad = "\"%s\" is not a share"},
        {CLI_LIST("provider", rq->providers, &rq->n_providers, GP_COMPARE_MAX_PROVIDERS),
         .bad = "at most " CLI_STRING(GP_COMPARE_MAX_PROVIDERS)},
        {CLI_STR("tariff", &rq->tariff)},
        {CLI_DATE("as-of", a->as_of)},
        {CLI_ENUM("format", &format, formats), .bad = "\"%s\" is not md, csv, json or xlsx"},
        {CLI_STR("output", &a->output), .letter = 'o'},
        {CLI_STR("save", &rq->save), .needs = "pick"},
        {CLI_INT("pick", &rq->pick, 1, INT_MAX), .bad = "\"%s\" is not a rank 1 or more",
         .needs = "save"},
        {CLI_STR("gpu", &rq->gpu)},
        {CLI_STR("pricing", &rq->pricing)},
        {CLI_STR("region", &rq->region)},
        {CLI_FLAG("spot", &rq->spot)},
        {CLI_DOUBLE("server-overhead", &rq->server_overhead, 0, 0),
         .bad = "\"%s\" is not a number"},
        {CLI_DOUBLE("network-share", &rq->network_share, 0, 0), .bad = "\"%s\" is not a number"},
        {CLI_HELP(&a->help)},
        {0}};
    int rc = cli_parse(&(cli_parser){.cmd = "compare", .opts = opts}, argc, argv, &first);
    a->format = formats[format];
    if (rc)
        return rc;
    if (a->help)
        return 0;
    if (first != argc)
        return cli_usage_error("compare: unexpected argument \"%s\"", argv[first]);
    if (isnan(a->rq.work_per_month) || !a->rq.unit || !a->rq.profile)
        return cli_usage_error("compare needs --work, --unit and --profile (see --help)");
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
