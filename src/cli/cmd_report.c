/* gpuplan report SCENARIO [--format md|csv|json] [-o OUT] [--as-of DATE] [--version N] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gp_version.h"
#include "gpuplan/embedded.h"
#include "gpuplan/model.h"
#include "gpuplan/scenario_json.h"

static void help(FILE *f) {
    fprintf(f, "usage: gpuplan report FILE.json|NAME [--format md|csv|json|xlsx] [-o OUT]\n"
               "                      [--as-of YYYY-MM-DD] [--version N]\n\n"
               "Evaluates a scenario (a JSON file, \"-\" for stdin, or a stored scenario's name)\n"
               "and writes its report: md (default) is for people, csv the monthly cumulative\n"
               "series (one row a month, one column an option), json the shape of MODEL.md,\n"
               "xlsx the procurement workbook with live formulas (needs -o FILE.xlsx, or -o - into "
               "a pipe).\n"
               "--as-of fixes the date catalog prices are taken at (default today).\n"
               "-o writes the report to a file atomically instead of stdout.\n");
}

enum { OPT_AS_OF = 256, OPT_DEMO };

int cmd_report(cli *c, int argc, char **argv) {
    static const struct option longs[] = {{"format", required_argument, NULL, 'f'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"as-of", required_argument, NULL, OPT_AS_OF},
                                          {"version", required_argument, NULL, 'v'},
                                          {"demo", no_argument, NULL, OPT_DEMO},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *format = "md", *output = NULL;
    char as_of[11];
    cli_today(as_of);
    int version = 0, opt;
    bool demo = false;
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc, argv, "f:o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'f':
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case OPT_AS_OF:
            if (!cli_valid_date(optarg))
                return cli_usage_error("--as-of: \"%s\" is not a date YYYY-MM-DD", optarg);
            snprintf(as_of, sizeof as_of, "%s", optarg);
            break;
        case 'v':
            if (!cli_parse_int(optarg, &version) || version < 1)
                return cli_usage_error("--version: \"%s\" is not a version number", optarg);
            break;
        case OPT_DEMO:
            demo = true;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            return cli_usage_error("%s: unknown option or missing value: %s (see --help)", argv[0],
                                   argv[optind - 1]);
        }
    }
    if (strcmp(format, "md") && strcmp(format, "csv") && strcmp(format, "json") &&
        strcmp(format, "xlsx"))
        return cli_usage_error("--format: \"%s\" is not md, csv, json or xlsx", format);
    if (!strcmp(format, "xlsx") && (!output || (!strcmp(output, "-") && isatty(STDOUT_FILENO))))
        return cli_usage_error("--format xlsx writes a file: give -o FILE.xlsx");
    if (!demo && optind != argc - 1) {
        return cli_usage_error("report takes one scenario");
    }

    gp_err err;
    gp_err_clear(&err);
    cli_scenario sc;
    if (demo) {
        memset(&sc, 0, sizeof sc);
        sc.s = gp_xmalloc(sizeof *sc.s);
        snprintf(sc.origin, sizeof sc.origin, "%s", gp_demo_scenarios[0].name);
        if (gp_scenario_parse((const char *)gp_demo_scenarios[0].data, gp_demo_scenarios[0].len,
                              sc.origin, sc.s, &sc.tree, &err)) {
            cli_scenario_done(&sc);
            return cli_fail(&err);
        }
    } else if (cli_scenario_load(c, argv[optind], version, as_of, &sc, &err)) {
        return cli_fail(&err);
    }

    gp_result *r = gp_xmalloc(sizeof *r);
    gp_model_evaluate(sc.s, r);
    gp_report_meta meta = {as_of, sc.sources, sc.n_sources, sc.tree, GPUPLAN_VERSION};
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_status st;
    if (strcmp(format, "xlsx") == 0)
        st = cli_export_xlsx(c, &sc, r, as_of, output, &err);
    else if (strcmp(format, "json") == 0)
        st = gp_report_json(sc.s, r, &meta, &out, &err);
    else if (strcmp(format, "csv") == 0)
        st = gp_report_csv(sc.s, r, &out, &err);
    else
        st = gp_report_md(sc.s, r, &meta, &out, &err);
    if (st == GP_OK && strcmp(format, "xlsx") != 0)
        st = cli_write_output(output, out.data, out.len, &err);
    gp_buf_done(&out);
    free(r);
    cli_scenario_done(&sc);
    return st == GP_OK ? 0 : cli_fail(&err);
}
