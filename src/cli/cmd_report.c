/* gpuplan report SCENARIO [--format md|csv|json|xlsx] [-o OUT] [--as-of DATE] [--version N]
 * [--fiscal-year-start M] [--chargeback-by LABEL] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/engine.h"
#include "gpuplan/scenario_json.h"

static void help(FILE *f) {
    fprintf(f, "usage: gpuplan report FILE.json|NAME [--format md|csv|json|xlsx] [-o OUT]\n"
               "                      [--as-of YYYY-MM-DD] [--version N] [--fiscal-year-start M]\n"
               "                      [--chargeback-by LABEL]\n"
               "       gpuplan report --demo [--format md|csv|json|xlsx] [-o OUT] ...\n\n"
               "Evaluates a scenario (a JSON file, \"-\" for stdin, or a stored scenario's name;\n"
               "--demo: the bundled demo scenario)\n"
               "and writes its report: md (default) is for people, csv the plan month by month\n"
               "(one row a month-end: demand, servers, flows, each side's cumulative cost), json\n"
               "the Report JSON of docs/model.md (version 2),\n"
               "xlsx the procurement workbook with live formulas (needs -o FILE.xlsx, or -o -\n"
               "into a pipe).\n"
               "--as-of fixes the date catalog prices are taken at (default today).\n"
               "--fiscal-year-start M (1..12, xlsx): the workbook's fiscal years begin in month M\n"
               "(default 1: the calendar year); it stays an input of the workbook.\n"
               "--chargeback-by LABEL (xlsx, a measured scenario): the Telemetry sheet also\n"
               "shares the all-in cost of a GPU-hour by that workload label, as capacity --by\n"
               "LABEL --scenario does, with the idle GPU-hours as a row of their own.\n"
               "-o writes the report to a file (atomically, or in place for a device or FIFO)\n"
               "instead of stdout.\n");
}

/* What the command line asked for. */
typedef struct report_args {
    const char *format, *output;
    const char *chargeback_by; /* NULL: not given */
    char as_of[11];
    int version;
    int fiscal_year_start; /* 0: not given */
    int first;             /* argv[first]: the scenario */
    bool demo, help;
} report_args;

/* --chargeback-by LABEL: a label's name, never empty. */
static int label_name(const char *v, void *dest) {
    if (!*v)
        return CLI_OPT_BAD;
    *(const char **)dest = v;
    return 0;
}

/* 0 (with a->help set when --help was asked for), or the exit status of bad usage. */
static int parse_args(int argc, char **argv, report_args *a) {
    memset(a, 0, sizeof *a);
    a->format = "md";
    gp_today(a->as_of);
    const cli_opt opts[] = {
        {CLI_STR("format", &a->format), .letter = 'f'},
        {CLI_STR("output", &a->output), .letter = 'o'},
        {CLI_DATE("as-of", a->as_of)},
        {CLI_INT("version", &a->version, 1, INT_MAX), .bad = "\"%s\" is not a version number"},
        {CLI_FLAG("demo", &a->demo)},
        {CLI_INT("fiscal-year-start", &a->fiscal_year_start, 1, 12),
         .bad = "\"%s\" is not a month 1..12"},
        {CLI_CALL("chargeback-by", &a->chargeback_by, label_name),
         .bad = "\"%s\" is not a label name, like pod"},
        {CLI_HELP(&a->help)},
        {0}};
    int rc = cli_parse(&(cli_parser){.cmd = argv[0], .opts = opts}, argc, argv, &a->first);
    if (rc || a->help)
        return rc;
    const char *format = a->format, *output = a->output;
    if (strcmp(format, "md") && strcmp(format, "csv") && strcmp(format, "json") &&
        strcmp(format, "xlsx"))
        return cli_usage_error("--format: \"%s\" is not md, csv, json or xlsx", format);
    if (!strcmp(format, "xlsx") && (!output || (!strcmp(output, "-") && isatty(STDOUT_FILENO))))
        return cli_usage_error("--format xlsx writes a file: give -o FILE.xlsx");
    if (a->fiscal_year_start && strcmp(format, "xlsx"))
        return cli_usage_error("--fiscal-year-start applies to --format xlsx");
    if (a->chargeback_by && strcmp(format, "xlsx"))
        return cli_usage_error("--chargeback-by applies to --format xlsx (capacity --by LABEL "
                               "gives it as text)");
    if (!a->demo && a->first != argc - 1) {
        return cli_usage_error("report takes one scenario");
    }
    return 0;
}

/* The evaluated scenario in the format asked for, to -o or stdout. */
static gp_status write_report(gp_session *ses, const report_args *a, const gp_loaded *sc,
                              const gp_result *r, gp_err *err) {
    const char *format = a->format;
    gp_report_meta meta = gp_loaded_meta(sc, a->as_of);
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_status st;
    if (strcmp(format, "xlsx") == 0)
        st = gp_export_xlsx_opt(ses, sc, r, a->as_of,
                                &(gp_xlsx_options){.fiscal_year_start = a->fiscal_year_start,
                                                   .chargeback_by = a->chargeback_by},
                                a->output, err);
    else if (strcmp(format, "json") == 0)
        st = gp_report_json(sc->s, r, &meta, &out, err);
    else if (strcmp(format, "csv") == 0)
        st = gp_report_csv(sc->s, r, &meta, &out, err);
    else
        st = gp_report_md(sc->s, r, &meta, &out, err);
    if (st == GP_OK && strcmp(format, "xlsx") != 0)
        st = cli_write_output(a->output, out.data, out.len, err);
    gp_buf_done(&out);
    return st;
}

int cmd_report(gp_session *ses, int argc, char **argv) {
    report_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    if (a.help) {
        help(stdout);
        return 0;
    }
    gp_err err;
    gp_err_clear(&err);
    gp_loaded sc;
    if (a.demo ? gp_load_demo_scenario(&sc, &err)
               : gp_load_scenario(ses, argv[a.first], a.version, a.as_of, &sc, &err))
        return cli_fail(&err);
    gp_result *r = gp_xmalloc(sizeof *r);
    if (gp_evaluate(&sc, r, &err)) {
        free(r);
        gp_loaded_done(&sc);
        return cli_fail(&err);
    }
    gp_status st = write_report(ses, &a, &sc, r, &err);
    free(r);
    gp_loaded_done(&sc);
    return st == GP_OK ? 0 : cli_fail(&err);
}
