/* gpuplan batch --out DIR [--scenario NAME]... [--jobs N] [--since DATE | --against DIR]
 *               [--threshold PCT] [--keep-days N] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/app_batch.h"
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

enum { OPT_SINCE = 256, OPT_AGAINST, OPT_THRESHOLD, OPT_KEEP };

typedef struct batch_args {
    gp_batch_opts o;
    const char *names[MAX_NAMES];
} batch_args;

static int parse(int argc, char **argv, batch_args *a) {
    static const struct option longs[] = {{"out", required_argument, NULL, 'o'},
                                          {"scenario", required_argument, NULL, 's'},
                                          {"jobs", required_argument, NULL, 'j'},
                                          {"since", required_argument, NULL, OPT_SINCE},
                                          {"against", required_argument, NULL, OPT_AGAINST},
                                          {"threshold", required_argument, NULL, OPT_THRESHOLD},
                                          {"keep-days", required_argument, NULL, OPT_KEEP},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:s:j:h", longs, NULL)) != -1) {
        if (opt == 'o')
            a->o.out_dir = optarg;
        else if (opt == 's' && a->o.n_names < MAX_NAMES)
            a->names[a->o.n_names++] = optarg;
        else if (opt == 's')
            return cli_usage_error("--scenario: at most %d", MAX_NAMES);
        else if (opt == 'j' && !(gp_parse_int(optarg, &a->o.jobs) && a->o.jobs >= 1))
            return cli_usage_error("--jobs: \"%s\" is not a number >= 1", optarg);
        else if (opt == OPT_SINCE)
            a->o.since = optarg;
        else if (opt == OPT_AGAINST)
            a->o.against = optarg;
        else if (opt == OPT_THRESHOLD && !cli_percent(optarg, &a->o.threshold_pct))
            return cli_usage_error("--threshold: \"%s\" is not a percentage", optarg);
        else if (opt == OPT_KEEP && !(gp_parse_int(optarg, &a->o.keep_days) && a->o.keep_days >= 0))
            return cli_usage_error("--keep-days: \"%s\" is not a number of days", optarg);
        else if (opt == 'h')
            return help(stdout), -1;
        else if (opt == '?' || opt == ':')
            return cli_usage_error("batch: unknown option or missing value: %s (see --help)",
                                   argv[optind - 1]);
    }
    if (optind != argc)
        return cli_usage_error("batch: unexpected argument %s (see --help)", argv[optind]);
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
