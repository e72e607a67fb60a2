/* gpuplan sensitivity SCENARIO [--delta 20%] [--json]: a tornado table. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/sensitivity.h"

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
    if (!cli_parse_double(buf, &v))
        return false;
    *out = pct || v >= 1.0 ? v / 100.0 : v;
    return true;
}

/* Rows for one option, largest swing for that option first. */
static const gp_sensitivity *sort_table;
static int sort_option;

static double swing_of(const gp_sens_row *row, int i) {
    return fabs(row->delta_high[i] - row->delta_low[i]);
}

static int by_option_swing(const void *a, const void *b) {
    const gp_sens_row *x = &sort_table->rows[*(const int *)a];
    const gp_sens_row *y = &sort_table->rows[*(const int *)b];
    double sx = swing_of(x, sort_option), sy = swing_of(y, sort_option);
    if (sx != sy)
        return sx < sy ? 1 : -1;
    return strcmp(x->input, y->input);
}

static void month(char *out, size_t cap, bool has, int m) {
    if (has)
        snprintf(out, cap, "%d", m);
    else
        snprintf(out, cap, "never");
}

int cmd_sensitivity(cli *c, int argc, char **argv) {
    enum { OPT_AS_OF = 256 };
    static const struct option longs[] = {{"delta", required_argument, NULL, 'd'},
                                          {"as-of", required_argument, NULL, OPT_AS_OF},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    double delta = 0.2;
    char as_of[11];
    cli_today(as_of);
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
            if (!cli_valid_date(optarg))
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
    cli_scenario sc;
    if (cli_scenario_load(c, argv[optind], 0, as_of, &sc, &err))
        return cli_fail(&err);
    gp_sensitivity *t = gp_xmalloc(sizeof *t);
    if (gp_sensitivity_run(sc.s, delta, t, &err)) {
        free(t);
        cli_scenario_done(&sc);
        return cli_fail(&err);
    }
    const gp_scenario *s = sc.s;
    printf("Sensitivity of \"%s\": every input -%g%% / +%g%%, one at a time (%s).\n", s->name,
           delta * 100, delta * 100, s->currency);
    if (s->n_options == 0)
        printf("The scenario has no cloud options to compare with.\n");
    for (int i = 0; i < s->n_options; i++) {
        char be[16];
        month(be, sizeof be, t->has_be_base[i], t->be_base[i]);
        char diff[64];
        gp_format_money(t->base_diff[i], diff, sizeof diff);
        printf("\n%s: option - self-hosted = %s at the base point, break-even month %s\n",
               s->options[i].name, diff, be);
        printf("  %-46s %12s %12s %16s %16s %6s %6s\n", "input", "low", "high", "change at low",
               "change at high", "BE lo", "BE hi");
        int order[GP_SENS_MAX_ROWS], n = 0, quiet = 0;
        for (int k = 0; k < t->n_rows; k++) {
            const gp_sens_row *row = &t->rows[k];
            bool moves = row->delta_low[i] != 0.0 || row->delta_high[i] != 0.0 ||
                         row->has_be_low[i] != t->has_be_base[i] ||
                         row->has_be_high[i] != t->has_be_base[i] ||
                         row->be_low[i] != t->be_base[i] || row->be_high[i] != t->be_base[i];
            if (moves)
                order[n++] = k;
            else
                quiet++;
        }
        sort_table = t;
        sort_option = i;
        qsort(order, (size_t)n, sizeof order[0], by_option_swing);
        for (int j = 0; j < n; j++) {
            const gp_sens_row *row = &t->rows[order[j]];
            char lo[64], hi[64], bl[16], bh[16];
            gp_format_money(row->delta_low[i], lo, sizeof lo);
            gp_format_money(row->delta_high[i], hi, sizeof hi);
            month(bl, sizeof bl, row->has_be_low[i], row->be_low[i]);
            month(bh, sizeof bh, row->has_be_high[i], row->be_high[i]);
            printf("  %-46s %12.6g %12.6g %16s %16s %6s %6s\n", row->input, row->low, row->high, lo,
                   hi, bl, bh);
        }
        if (quiet)
            printf("  (%d more inputs change nothing for this option)\n", quiet);
    }
    if (t->n_refused > 0)
        printf("\n%d moves left out: the plan they make is refused (the first, %s: %s)\n",
               t->n_refused, t->refused_input, t->refused_error.msg);
    free(t);
    cli_scenario_done(&sc);
    return 0;
}
