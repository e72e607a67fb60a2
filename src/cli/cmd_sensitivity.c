/* gpuplan sensitivity SCENARIO [--delta 20%] [--json]: a tornado table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_sensitivity.h"
#include "gpuplan/report_sensitivity.h"

static void help(FILE *f) {
    fprintf(f, "usage: gpuplan sensitivity FILE.json|NAME [--delta 20%%] [--as-of YYYY-MM-DD]\n\n"
               "Moves every non-zero numeric input down and up by the delta (relative), one at a\n"
               "time, clamped to its valid range, and prints a tornado table, largest swing\n"
               "first: for each option, how (option total - self-hosted total) changes, and the\n"
               "break-even month at the low and the high value. Positive: owning gains.\n");
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

int cmd_sensitivity(gp_session *ses, int argc, char **argv) {
    enum { OPT_AS_OF = 256 };
    static const struct option longs[] = {{"delta", required_argument, NULL, 'd'},
                                          {"as-of", required_argument, NULL, OPT_AS_OF},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    double delta = 0.2;
    char as_of[11];
    gp_today(as_of);
    int opt;
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_delta(optarg, &delta))
                return cli_usage_error("--delta: \"%s\" is not a percentage", optarg);
            break;
        case OPT_AS_OF:
            if (!gp_valid_date(optarg))
                return cli_usage_error("--as-of: \"%s\" is not a date YYYY-MM-DD", optarg);
            snprintf(as_of, sizeof as_of, "%s", optarg);
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            return cli_usage_error("%s: unknown option or missing value: %s (see --help)", argv[0],
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1) {
        return cli_usage_error("sensitivity takes one scenario");
    }
    gp_err err;
    gp_err_clear(&err);
    gp_sens_analysis an;
    if (gp_sensitivity_analyze(ses, argv[optind], as_of, delta, &an, &err))
        return cli_fail(&err);
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    int rc =
        cli_print_rendered(gp_report_sensitivity_text(an.sc.s, an.table, an.ranks, &out), &out);
    gp_sens_analysis_done(&an);
    return rc;
}
