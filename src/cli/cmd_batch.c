/* gpuplan batch --out DIR [--scenario NAME]... [--jobs N] [--since DATE | --against DIR]
 *               [--threshold PCT] [--keep-days N] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/app_batch.h"
#include "gpuplan/batch_json.h"
#include "gpuplan/report_batch.h"

#define MAX_NAMES 1024

static void help(FILE *f) {
    fprintf(f,
            "usage: gpuplan batch --out DIR [--scenario NAME]... [--jobs N]\n"
            "                     [--since YYYY-MM-DD | --against RUN_DIR] [--threshold PCT]\n"
            "                     [--keep-days N]\n\n"
            "Reports every saved scenario (or each --scenario) against today's catalog and\n"
            "measured telemetry into DIR/YYYY-MM-DD (UTC): per scenario its md, csv, json and\n"
            "xlsx reports under scenarios/, fleet.json, capacity.{json,txt,csv}, summary.json,\n"
            "changes.{json,txt} and a self-contained index.html. A second run the same day\n"
            "replaces the folder whole. Each run is recorded in the database and compared with\n"
            "the previous one (--since: the latest on or before a day; --against: a run folder):\n"
            "catalog prices, measured figures, totals moving by more than --threshold %%\n"
            "(default 1), break-even months and flipped decisions. Runs older than --keep-days\n"
            "(default 90; 0 keeps all) are forgotten, and their folders removed only where\n"
            "each still holds its .gpuplan-batch-run marker (never another folder, never\n"
            "through a link); each removal is named. --jobs: evaluations in parallel (default:\n"
            "one a CPU).\n\n"
            "Exit status: 0 no decision flipped, %d a decision flipped, 1 runtime failure,\n"
            "2 bad usage or bad input.\n",
            GP_EXIT_FLIPPED);
}

typedef struct batch_args {
    gp_batch_opts o;
    const char *names[MAX_NAMES];
} batch_args;

/* --threshold 5 or 5%. */
static int percent(const char *v, void *dest) {
    return cli_percent(v, dest) ? 0 : CLI_OPT_BAD;
}

static int parse(int argc, char **argv, batch_args *a) {
    bool asked = false;
    const cli_opt opts[] = {
        {CLI_STR("out", &a->o.out_dir), .letter = 'o'},
        {CLI_LIST("scenario", a->names, &a->o.n_names, MAX_NAMES), .letter = 's',
         .bad = "at most " CLI_STRING(MAX_NAMES)},
        {CLI_INT("jobs", &a->o.jobs, 1, INT_MAX), .letter = 'j',
         .bad = "\"%s\" is not a number >= 1"},
        {CLI_STR("since", &a->o.since)},
        {CLI_STR("against", &a->o.against)},
        {CLI_CALL("threshold", &a->o.threshold_pct, percent), .bad = "\"%s\" is not a percentage"},
        {CLI_INT("keep-days", &a->o.keep_days, 0, INT_MAX),
         .bad = "\"%s\" is not a number of days"},
        {CLI_HELP(&asked)},
        {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "batch", .opts = opts}, argc, argv, &first);
    if (rc || asked)
        return asked ? help(stdout), -1 : rc;
    if (first != argc)
        return cli_usage_error("batch: unexpected argument %s (see --help)", argv[first]);
    if (!a->o.out_dir)
        return cli_usage_error("batch: --out DIR is needed (see --help)");
    a->o.names = a->names;
    return 0;
}

/* "[3/100] name" on stderr, overwritten in place (a carriage return and padding: the terminal
 * guard lets no escape sequence through): on a terminal only. */
static void progress(size_t done, size_t total, const char *name, void *arg) {
    (void)arg;
    fprintf(stderr, "\r[%zu/%zu] %-60.60s%s", done, total, name, done == total ? "\n" : "");
    fflush(stderr);
}

int cmd_batch(gp_session *ses, int argc, char **argv) {
    batch_args a;
    memset(&a, 0, sizeof a);
    gp_batch_opts_init(&a.o, NULL);
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (isatty(STDERR_FILENO))
        a.o.progress = progress;
    gp_err err;
    gp_err_clear(&err);
    gp_batch_outcome out;
    if (gp_batch_run(ses, &a.o, &out, &err))
        return cli_fail(&err);
    gp_buf b;
    gp_buf_init(&b, 64u << 20);
    gp_buf_printf(&b, "wrote %s: %zu scenario%s%s\n", out.dir, out.summary.n,
                  out.summary.n == 1 ? "" : "s", out.fleet ? ", fleet and capacity" : "");
    if (out.inputs_dropped)
        gp_buf_printf(&b,
                      "summary.json keeps no scenario inputs (with them it would pass the "
                      "%u MiB a run reads back): the next comparison names no edited input\n",
                      GP_BATCH_SUMMARY_MAX_BYTES >> 20);
    for (size_t i = 0; i < out.n_removed; i++)
        gp_buf_printf(&b, "removed %s (a run older than --keep-days)\n", out.removed[i]);
    for (size_t i = 0; i < out.n_kept; i++)
        gp_buf_printf(&b, "left %s\n", out.kept[i]);
    if (out.compared)
        gp_report_batch_diff_text(&out.diff, out.against, &b);
    else
        gp_buf_printf(&b, "no earlier run to compare with\n");
    fwrite(b.data, 1, b.len, stdout);
    gp_buf_done(&b);
    rc = out.diff.flips ? GP_EXIT_FLIPPED : 0;
    gp_batch_outcome_done(&out);
    return rc;
}
