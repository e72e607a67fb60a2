/* gpuplan sensitivity SCENARIO [--delta 20%] [--format md|json|csv] [--all]: the top drivers
 * of the cheapest decision as a text tornado, every row per option, or every row as data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_sensitivity.h"
#include "gpuplan/report_sensitivity.h"

static void help(FILE *f) {
    fprintf(f,
            "usage: gpuplan sensitivity FILE.json|NAME [--delta 20%%] [--as-of YYYY-MM-DD]\n"
            "                           [--format md|json|csv] [--all] [--top N] [--param P]...\n\n"
            "Moves every non-zero input a planner is unsure of (prices, utilization, demand\n"
            "and growth, throughput, power draw, lead time, trends, and the exit value's\n"
            "resale curve, residual_pct, depreciation_years, refresh_months) down and up by\n"
            "the delta (relative), one at a time, clamped to its valid range. The plan's\n"
            "shape (horizon, the discount rate, gpus_per_server, order cadence, max_servers,\n"
            "warranty, the loan's term and fraction) moves only when named: --param\n"
            "(repeatable; a JSON path such as\n"
            "cloud_options[0].hourly, or a key such as gpus_per_server) moves exactly the\n"
            "inputs named. md (default) prints one screen: the cheapest\n"
            "side, its lead over the next best, and the --top N (default 10) inputs that move\n"
            "that lead most as a text tornado, \"!\" where another side becomes cheapest.\n"
            "--all prints the full table instead: for each option, how (option total -\n"
            "self-hosted total) changes, and the break-even month at the low and the high\n"
            "value (positive: owning gains). json and csv give every row, named by option\n"
            "and parameter (the JSON path beside them), with each side's total and the\n"
            "cheapest at the low and the high value.\n");
}

static bool parse_delta(const char *s, double *out) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    size_t n = strlen(buf);
    bool pct = n > 0 && buf[n - 1] == '%';
    if (pct)
        buf[n - 1] = '\0';
    double v;
    if (!gp_parse_double(buf, &v))
        return false;
    *out = pct || v >= 1.0 ? v / 100.0 : v;
    return true;
}

static int delta_option(const char *v, void *dest) {
    return parse_delta(v, dest) ? 0 : CLI_OPT_BAD;
}

/* The analysis in the format asked for. */
static gp_status render(const gp_sens_analysis *an, const char *format, bool all, int top,
                        gp_buf *out, gp_err *err) {
    const gp_scenario *s = an->sc.s;
    gp_status st;
    if (!strcmp(format, "json"))
        return gp_report_sensitivity_json(s, an->table, out, err);
    if (!strcmp(format, "csv"))
        return gp_report_sensitivity_csv(s, an->table, out, err);
    st = all ? gp_report_sensitivity_text(s, an->table, an->ranks, out)
             : gp_report_sensitivity_summary(s, an->table, an->base, top, out);
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "the sensitivity report is larger than the output limit");
    return GP_OK;
}

int cmd_sensitivity(gp_session *ses, int argc, char **argv) {
    double delta = 0.2;
    const char *format = "md";
    bool all = false, asked = false;
    int top = 10, first;
    const char *params[64];
    int n_params = 0;
    char as_of[11];
    gp_today(as_of);
    const cli_opt opts[] = {
        {CLI_CALL("delta", &delta, delta_option), .bad = "\"%s\" is not a percentage"},
        {CLI_DATE("as-of", as_of)},
        {CLI_STR("format", &format), .letter = 'f'},
        {CLI_FLAG("all", &all)},
        {CLI_INT("top", &top, 1, GP_SENS_MAX_ROWS),
         .bad = "\"%s\" is not a count 1.." CLI_STRING(GP_SENS_MAX_ROWS)},
        {CLI_LIST("param", params, &n_params, 64), .bad = "at most 64"},
        {CLI_HELP(&asked)},
        {0}};
    int rc = cli_parse(&(cli_parser){.cmd = argv[0], .opts = opts}, argc, argv, &first);
    if (rc || asked)
        return asked ? help(stdout), 0 : rc;
    if (first != argc - 1) {
        return cli_usage_error("sensitivity takes one scenario");
    }
    if (strcmp(format, "md") && strcmp(format, "json") && strcmp(format, "csv"))
        return cli_usage_error("--format: \"%s\" is not md, json or csv", format);
    if (all && strcmp(format, "md"))
        return cli_usage_error("--all applies to --format md (json and csv give every row)");
    gp_err err;
    gp_err_clear(&err);
    gp_sens_analysis an;
    if (gp_sensitivity_analyze(ses, argv[first], as_of, delta, params, n_params, &an, &err))
        return cli_fail(&err);
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    if (render(&an, format, all, top, &out, &err)) {
        gp_buf_done(&out);
        rc = cli_fail(&err);
    } else {
        rc = cli_print_rendered(GP_OK, &out); /* frees out */
    }
    gp_sens_analysis_done(&an);
    return rc;
}
