/* gpuplan sweep SCENARIO --vary PARAM=FROM:TO:STEPS ... [--summary] [-o OUT] */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/app_sweep.h"
#include "gpuplan/output.h"
#include "gpuplan/report_sweep.h"

static void help(FILE *f) {
    fprintf(f,
            "usage: gpuplan sweep FILE.json|NAME --vary PARAM=FROM:TO:STEPS [--vary ...]\n"
            "                     [--summary] [-o OUT.csv] [--as-of YYYY-MM-DD]\n\n"
            "Evaluates every point of the grid (the last --vary changes fastest) and writes one\n"
            "CSV row a point: the swept values, each total and the cheapest. --summary prints\n"
            "only each contender's share of the grid and where the answer flips along the last\n"
            "axis, solved from where the totals cross along the last axis when it is a price,\n"
            "pue or utilization (GPU mode), else along the axis before it when that one is,\n"
            "with the same result as evaluating every point.\n"
            "PARAM is one of utilization, gpus, horizon_months, price_per_kwh (the tariff's\n"
            "mean; every period scales with it), server_price, pue, hourly:OPTION, and for\n"
            "plans over time growth_per_month, lead_time_months, order_every_months,\n"
            "max_servers, server_price_trend_per_year, energy_price_trend_per_year (the\n"
            "tariff's), price_trend_per_year:OPTION, work_per_gpu_hour and\n"
            "work_per_gpu_hour:OPTION (work mode), price_per_unit:OPTION (an API priced per\n"
            "unit of work, in place of its hourly). Integer parameters (gpus, horizon_months,\n"
            "lead_time_months, order_every_months, max_servers) are rounded to the nearest\n"
            "integer.\n\n"
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
    /* NAME or NAME:OPTION (the per-option ones: hourly, price_trend_per_year,
     * work_per_gpu_hour). */
    char *colon = strchr(name, ':');
    if (colon)
        *colon = '\0';
    gp_err err;
    if (gp_sweep_param_find(name, &a->param, &err)) {
        char list[512];
        gp_sweep_param_list(list, sizeof list);
        return cli_usage_error("--vary %s: %s; one of %s", spec, err.msg, list);
    }
    if (colon) {
        if (a->param == GP_SWEEP_WORK_PER_GPU_HOUR)
            a->param = GP_SWEEP_OPTION_WORK_PER_GPU;
        if (!gp_sweep_param_per_option(a->param))
            return cli_usage_error("--vary %s: %s belongs to no option (write it without \":\")",
                                   spec, name);
        a->option = -1;
        for (int i = 0; i < s->n_options; i++)
            if (strcmp(s->options[i].name, colon + 1) == 0)
                a->option = i;
        if (a->option < 0)
            return cli_usage_error("--vary %s: the scenario has no option \"%s\"", spec, colon + 1);
    } else if (gp_sweep_param_per_option(a->param)) {
        return cli_usage_error("--vary %s: write %s:OPTION, naming one of the scenario's options",
                               spec, name);
    }
    char range[128];
    snprintf(range, sizeof range, "%s", eq + 1);
    char *c1 = strchr(range, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2)
        return cli_usage_error("--vary %s: expected FROM:TO:STEPS", spec);
    *c1 = *c2 = '\0';
    if (!gp_parse_double(range, &a->from) || !gp_parse_double(c1 + 1, &a->to) ||
        !gp_parse_int(c2 + 1, &a->steps) || a->steps < 1)
        return cli_usage_error("--vary %s: FROM and TO must be numbers, STEPS an integer >= 1",
                               spec);
    return 0;
}

/* The CSV streams to its file while the grid is walked (up to 2^40 points), one row a point,
 * so it is written here rather than rendered into a buffer. */
typedef struct csv_out {
    const gp_scenario *s;
    int n_axes;
    const char *output; /* NULL or "-": stdout */
    gp_output out;      /* output.h: stdout, in place, or a temporary file renamed at the end */
    FILE *csv;          /* out.f */
    bool write_failed;
    /* Each axis' value as printed, redone only when it moves (outer axes seldom do); each
     * contender's name as a CSV field, self-hosted first. */
    double last[GP_SWEEP_MAX_AXES];
    bool have[GP_SWEEP_MAX_AXES];
    char value[GP_SWEEP_MAX_AXES][32];
    char name[GP_MAX_OPTIONS + 1][4 * GP_NAME_BYTES];
} csv_out;

static void csv_name(FILE *f, const char *text) {
    gp_buf b;
    gp_buf_init(&b, 4 * GP_NAME_BYTES);
    gp_csv_field(&b, text);
    if (b.data)
        fputs(b.data, f);
    gp_buf_done(&b);
}

/* Append text to line[*n..]; the caller sized line for the longest row. */
static void put(char *line, size_t *n, const char *text) {
    size_t len = strlen(text);
    memcpy(line + *n, text, len);
    *n += len;
}

/* One row: the axes' values, each total to the cent (numfmt.h), the cheapest's name. */
static int on_point(const double *values, double self, const double *opts, int cheapest,
                    void *arg) {
    csv_out *r = arg;
    char line[GP_SWEEP_MAX_AXES * 33 + (GP_MAX_OPTIONS + 1) * 41 + 4 * GP_NAME_BYTES + 2];
    size_t n = 0;
    for (int k = 0; k < r->n_axes; k++) {
        if (!r->have[k] || memcmp(&values[k], &r->last[k], sizeof values[k]) != 0) {
            snprintf(r->value[k], sizeof r->value[k], "%.10g", values[k]);
            r->last[k] = values[k];
            r->have[k] = true;
        }
        put(line, &n, r->value[k]);
        line[n++] = ',';
    }
    char m[40];
    put(line, &n, gp_fmt_cents(self, m, sizeof m));
    for (int i = 0; i < r->s->n_options; i++) {
        line[n++] = ',';
        put(line, &n, gp_fmt_cents(opts[i], m, sizeof m));
    }
    line[n++] = ',';
    put(line, &n, r->name[cheapest + 1]);
    line[n++] = '\n';
    if (fwrite(line, 1, n, r->csv) != n) {
        r->write_failed = true;
        return 1;
    }
    return 0;
}

/* Open the output (a temporary file beside it, or stdout) and write the header. */
static gp_status open_csv(csv_out *c, const gp_sweep_axis *axes, gp_err *err) {
    if (gp_output_open(&c->out, c->output, err))
        return err->code;
    c->csv = c->out.f;
    for (int k = 0; k < c->n_axes; k++) {
        char label[GP_NAME_BYTES + 16];
        gp_sweep_axis_label(label, sizeof label, c->s, &axes[k]);
        csv_name(c->csv, label);
        fputc(',', c->csv);
    }
    fputs("self_hosted", c->csv);
    for (int i = 0; i < c->s->n_options; i++) {
        fputc(',', c->csv);
        csv_name(c->csv, c->s->options[i].name);
    }
    fputs(",cheapest\n", c->csv);
    for (int i = -1; i < c->s->n_options; i++) {
        gp_buf b;
        gp_buf_init(&b, 4 * GP_NAME_BYTES);
        gp_csv_field(&b, gp_sweep_contender(c->s, i));
        snprintf(c->name[i + 1], sizeof c->name[i + 1], "%s", b.data ? b.data : "");
        gp_buf_done(&b);
    }
    return GP_OK;
}

/* Every point of the grid as a CSV row, to output atomically or to stdout. */
static gp_status write_csv(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                           const char *output, gp_err *err) {
    csv_out *c = gp_xcalloc(1, sizeof *c);
    c->s = s;
    c->n_axes = n_axes;
    c->output = output;
    if (open_csv(c, axes, err)) {
        free(c);
        return err->code;
    }
    uint64_t points = 0;
    if (gp_sweep_run(s, axes, n_axes, on_point, c, &points, err) == GP_OK &&
        (c->write_failed || fflush(c->csv) != 0 || ferror(c->csv)))
        gp_errorf(err, GP_E_IO, output ? output : "stdout", "write failed: %s", strerror(errno));
    if (err->code == GP_OK)
        gp_output_commit(&c->out, err);
    else
        gp_output_abort(&c->out);
    free(c);
    return err->code;
}

/* What the command line asked for. */
typedef struct sweep_args {
    const char *specs[GP_SWEEP_MAX_AXES];
    int n_axes;
    bool summary, help;
    const char *output;
    char as_of[11];
    int first; /* argv[first]: the scenario */
} sweep_args;

/* 0 (with a->help set when --help was asked for), or the exit status of bad usage. */
static int parse_args(int argc, char **argv, sweep_args *a) {
    memset(a, 0, sizeof *a);
    gp_today(a->as_of);
    const cli_opt opts[] = {{CLI_LIST("vary", a->specs, &a->n_axes, GP_SWEEP_MAX_AXES),
                             .bad = "at most " CLI_STRING(GP_SWEEP_MAX_AXES) " axes"},
                            {CLI_FLAG("summary", &a->summary)},
                            {CLI_STR("output", &a->output), .letter = 'o'},
                            {CLI_DATE("as-of", a->as_of)},
                            {CLI_HELP(&a->help)},
                            {0}};
    int rc = cli_parse(&(cli_parser){.cmd = argv[0], .opts = opts}, argc, argv, &a->first);
    if (rc || a->help)
        return rc;
    if (a->first != argc - 1) {
        return cli_usage_error("sweep takes one scenario");
    }
    if (a->n_axes == 0)
        return cli_usage_error("sweep needs at least one --vary PARAM=FROM:TO:STEPS");
    if (a->summary && a->output)
        return cli_usage_error("--summary prints to stdout; it takes no -o");
    return 0;
}

int cmd_sweep(gp_session *ses, int argc, char **argv) {
    sweep_args a;
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
    if (gp_load_scenario(ses, argv[a.first], 0, a.as_of, &sc, &err))
        return cli_fail(&err);
    gp_sweep_axis axes[GP_SWEEP_MAX_AXES];
    for (int k = 0; k < a.n_axes; k++) {
        if (parse_axis(a.specs[k], sc.s, &axes[k])) {
            gp_loaded_done(&sc);
            return 2;
        }
    }
    if (gp_sweep_check(sc.s, axes, a.n_axes, &err)) {
        gp_loaded_blame(&sc, &err);
        gp_loaded_done(&sc);
        return cli_fail(&err);
    }
    if (a.summary) {
        gp_sweep_summary sum;
        if (gp_sweep_summarize(sc.s, axes, a.n_axes, &sum, &err) == GP_OK) {
            gp_buf out;
            gp_buf_init(&out, 64u << 20);
            rc = cli_print_rendered(gp_report_sweep_summary(sc.s, axes, &sum, &out), &out);
        }
    } else {
        write_csv(sc.s, axes, a.n_axes, a.output, &err);
    }
    gp_loaded_blame(&sc, &err);
    gp_loaded_done(&sc);
    return err.code != GP_OK ? cli_fail(&err) : rc;
}
