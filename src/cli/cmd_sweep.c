/* gpuplan sweep SCENARIO --vary PARAM=FROM:TO:STEPS ... [--summary] [-o OUT] */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/output.h"
#include "gpuplan/sweep.h"

static void help(FILE *f) {
    fprintf(f,
            "usage: gpuplan sweep FILE.json|NAME --vary PARAM=FROM:TO:STEPS [--vary ...]\n"
            "                     [--summary] [-o OUT.csv] [--as-of YYYY-MM-DD]\n\n"
            "Evaluates every point of the grid (the last --vary changes fastest) and writes one\n"
            "CSV row a point: the swept values, each total and the cheapest. --summary prints\n"
            "only each contender's share of the grid and where the answer flips along the last\n"
            "axis. PARAM is one of utilization, gpus, horizon_months, price_per_kwh (the\n"
            "tariff's mean; every period scales with it), server_price, pue, hourly:OPTION.\n"
            "Integer parameters (gpus, horizon_months) are rounded to the nearest integer.\n\n"
            "  gpuplan sweep plan.json --vary utilization=0.05:1:20 --summary\n"
            "  gpuplan sweep plan.json --vary price_per_kwh=0.05:0.4:8 --vary gpus=8:256:32\n");
}

static int parse_axis(const char *spec, const gp_scenario *s, gp_sweep_axis *a) {
    const char *eq = strrchr(spec, '=');
    if (!eq)
        return cli_usage_error("--vary %s: expected PARAM=FROM:TO:STEPS", spec);
    char name[GP_NAME_BYTES + 16];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    memset(a, 0, sizeof *a);
    static const struct {
        const char *name;
        gp_sweep_param p;
    } params[] = {
        {"utilization", GP_SWEEP_UTILIZATION},   {"gpus", GP_SWEEP_GPUS},
        {"horizon_months", GP_SWEEP_HORIZON},    {"price_per_kwh", GP_SWEEP_PRICE_PER_KWH},
        {"server_price", GP_SWEEP_SERVER_PRICE}, {"pue", GP_SWEEP_PUE}};
    bool found = false;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        if (strcmp(name, params[i].name) == 0) {
            a->param = params[i].p;
            found = true;
        }
    }
    if (!found && strncmp(name, "hourly:", 7) == 0) {
        a->param = GP_SWEEP_HOURLY;
        a->option = -1;
        for (int i = 0; i < s->n_options; i++)
            if (strcmp(s->options[i].name, name + 7) == 0)
                a->option = i;
        if (a->option < 0)
            return cli_usage_error("--vary %s: the scenario has no option \"%s\"", spec, name + 7);
        found = true;
    }
    if (!found)
        return cli_usage_error("--vary %s: unknown parameter \"%s\"", spec, name);
    char range[128];
    snprintf(range, sizeof range, "%s", eq + 1);
    char *c1 = strchr(range, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2)
        return cli_usage_error("--vary %s: expected FROM:TO:STEPS", spec);
    *c1 = *c2 = '\0';
    if (!cli_parse_double(range, &a->from) || !cli_parse_double(c1 + 1, &a->to) ||
        !cli_parse_int(c2 + 1, &a->steps) || a->steps < 1)
        return cli_usage_error("--vary %s: FROM and TO must be numbers, STEPS an integer >= 1",
                               spec);
    return 0;
}

typedef struct flip {
    double values[GP_SWEEP_MAX_AXES];
    double prev_last;
    int from, to;
} flip;

#define MAX_FLIPS 20

typedef struct run {
    const gp_scenario *s;
    int n_axes;
    FILE *csv;
    bool summary;
    uint64_t wins[GP_MAX_OPTIONS + 1]; /* [0] self-hosted, [i + 1] option i */
    int last_cheapest;
    double last_value;
    int steps_last; /* points in one row of the grid (the last axis) */
    int pos;        /* position of the next point in its row */
    uint64_t n_flips;
    flip flips[MAX_FLIPS];
    bool write_failed;
} run;

static void csv_name(FILE *f, const char *text) {
    gp_buf b;
    gp_buf_init(&b, 4 * GP_NAME_BYTES);
    gp_csv_field(&b, text);
    if (b.data)
        fputs(b.data, f);
    gp_buf_done(&b);
}

static const char *contender(const gp_scenario *s, int i) {
    return i < 0 ? "self_hosted" : s->options[i].name;
}

static int on_point(const double *values, double self, const double *opts, int cheapest,
                    void *arg) {
    run *r = arg;
    int last = r->n_axes - 1;
    if (r->summary) {
        r->wins[cheapest + 1]++;
        /* A flip: the same row of the grid (not its first point), a different winner. */
        if (r->pos != 0 && cheapest != r->last_cheapest) {
            if (r->n_flips < MAX_FLIPS) {
                flip *f = &r->flips[r->n_flips];
                memcpy(f->values, values, sizeof f->values);
                f->prev_last = r->last_value;
                f->from = r->last_cheapest;
                f->to = cheapest;
            }
            r->n_flips++;
        }
        if (++r->pos == r->steps_last)
            r->pos = 0;
        r->last_cheapest = cheapest;
        r->last_value = values[last];
        return 0;
    }
    for (int k = 0; k < r->n_axes; k++)
        fprintf(r->csv, "%.10g,", values[k]);
    fprintf(r->csv, "%.17g", self);
    for (int i = 0; i < r->s->n_options; i++)
        fprintf(r->csv, ",%.17g", opts[i]);
    fputc(',', r->csv);
    csv_name(r->csv, contender(r->s, cheapest));
    if (fputc('\n', r->csv) == EOF) {
        r->write_failed = true;
        return 1;
    }
    return 0;
}

static void axis_label(char *out, size_t cap, const gp_scenario *s, const gp_sweep_axis *a) {
    if (a->param == GP_SWEEP_HOURLY)
        snprintf(out, cap, "hourly:%s", s->options[a->option].name);
    else
        snprintf(out, cap, "%s", gp_sweep_param_name(a->param));
}

static void print_summary(const run *r, const gp_sweep_axis *axes, uint64_t points) {
    const gp_scenario *s = r->s;
    printf("%llu grid points\n\nshare of the grid won:\n", (unsigned long long)points);
    for (int i = -1; i < s->n_options; i++) {
        uint64_t w = r->wins[i + 1];
        printf("  %-40s %6.2f%%  (%llu points)\n", contender(s, i),
               points ? 100.0 * (double)w / (double)points : 0.0, (unsigned long long)w);
    }
    char label[GP_NAME_BYTES + 16];
    axis_label(label, sizeof label, s, &axes[r->n_axes - 1]);
    if (r->n_flips == 0) {
        printf("\nthe answer never flips along %s\n", label);
        return;
    }
    printf("\nwhere the answer flips along %s (%llu flips%s):\n", label,
           (unsigned long long)r->n_flips, r->n_flips > MAX_FLIPS ? ", the first 20" : "");
    for (uint64_t k = 0; k < r->n_flips && k < MAX_FLIPS; k++) {
        const flip *f = &r->flips[k];
        printf("  %s -> %s between %s %.6g and %.6g", contender(s, f->from), contender(s, f->to),
               label, f->prev_last, f->values[r->n_axes - 1]);
        for (int a = 0; a + 1 < r->n_axes; a++) {
            char other[GP_NAME_BYTES + 16];
            axis_label(other, sizeof other, s, &axes[a]);
            printf("%s%s=%.6g", a == 0 ? " (at " : ", ", other, f->values[a]);
        }
        printf("%s\n", r->n_axes > 1 ? ")" : "");
    }
}

int cmd_sweep(cli *c, int argc, char **argv) {
    enum { OPT_AS_OF = 256 };
    static const struct option longs[] = {
        {"vary", required_argument, NULL, 'v'},   {"summary", no_argument, NULL, 's'},
        {"output", required_argument, NULL, 'o'}, {"as-of", required_argument, NULL, OPT_AS_OF},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    const char *specs[GP_SWEEP_MAX_AXES];
    int n_axes = 0, opt;
    bool summary = false;
    const char *output = NULL;
    char as_of[11];
    cli_today(as_of);
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'v':
            if (n_axes == GP_SWEEP_MAX_AXES)
                return cli_usage_error("at most %d --vary axes", GP_SWEEP_MAX_AXES);
            specs[n_axes++] = optarg;
            break;
        case 's':
            summary = true;
            break;
        case 'o':
            output = optarg;
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
        return cli_usage_error("sweep takes one scenario");
    }
    if (n_axes == 0)
        return cli_usage_error("sweep needs at least one --vary PARAM=FROM:TO:STEPS");
    if (summary && output)
        return cli_usage_error("--summary prints to stdout; it takes no -o");

    gp_err err;
    gp_err_clear(&err);
    cli_scenario sc;
    if (cli_scenario_load(c, argv[optind], 0, as_of, &sc, &err))
        return cli_fail(&err);
    gp_sweep_axis axes[GP_SWEEP_MAX_AXES];
    for (int k = 0; k < n_axes; k++) {
        if (parse_axis(specs[k], sc.s, &axes[k])) {
            cli_scenario_done(&sc);
            return 2;
        }
    }
    if (gp_sweep_check(sc.s, axes, n_axes, &err)) {
        cli_scenario_done(&sc);
        return cli_fail(&err);
    }

    run *r = gp_xcalloc(1, sizeof *r);
    r->s = sc.s;
    r->n_axes = n_axes;
    r->summary = summary;
    r->steps_last = axes[n_axes - 1].steps;
    gp_output out = {0};
    if (!summary) {
        if (gp_output_open(&out, output, &err))
            goto done;
        r->csv = out.f;
        for (int k = 0; k < n_axes; k++) {
            char label[GP_NAME_BYTES + 16];
            axis_label(label, sizeof label, sc.s, &axes[k]);
            csv_name(r->csv, label);
            fputc(',', r->csv);
        }
        fputs("self_hosted", r->csv);
        for (int i = 0; i < sc.s->n_options; i++) {
            fputc(',', r->csv);
            csv_name(r->csv, sc.s->options[i].name);
        }
        fputs(",cheapest\n", r->csv);
    }
    uint64_t points = 0;
    if (gp_sweep_run(sc.s, axes, n_axes, on_point, r, &points, &err) == GP_OK) {
        if (summary) {
            print_summary(r, axes, points);
        } else if (r->write_failed || fflush(r->csv) != 0 || ferror(r->csv)) {
            gp_errorf(&err, GP_E_IO, output ? output : "stdout", "write failed: %s",
                      strerror(errno));
        }
    }
    if (r->csv && err.code == GP_OK)
        gp_output_commit(&out, &err);
    else if (r->csv)
        gp_output_abort(&out);
done:
    free(r);
    cli_scenario_done(&sc);
    return err.code == GP_OK ? 0 : cli_fail(&err);
}
