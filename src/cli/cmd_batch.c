/* gpuplan batch --out DIR [--scenario NAME]... [--jobs N] [--since DATE | --against DIR]
 *               [--threshold PCT] [--keep-days N]
 * gpuplan diff A B [--threshold PCT] [--json] */
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

/* "5", "5%" or "0.5 %" into a percentage. */
static bool parse_pct(const char *s, double *out) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '%' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return n && gp_parse_double(buf, out) && *out >= 0;
}

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
        else if (opt == OPT_THRESHOLD && !parse_pct(optarg, &a->o.threshold_pct))
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

static void diff_help(FILE *f) {
    fprintf(f,
            "usage: gpuplan diff A B [--threshold PCT] [--json]\n\n"
            "What changed from A to B, the way `batch` compares runs: catalog prices (old -> new,\n"
            "source and date), measured figures, totals moving by more than --threshold %%\n"
            "(default 1), break-even months and flipped decisions, each flip explained by what\n"
            "moved. A and B are each a batch run folder, a summary.json, the day of a recorded\n"
            "run (YYYY-MM-DD), or a scenario (a JSON file or a stored name, evaluated today).\n\n"
            "Exit status: 0 no decision flipped, %d a decision flipped, 1 runtime failure,\n"
            "2 bad usage or bad input.\n",
            GP_EXIT_FLIPPED);
}

int cmd_diff(gp_session *ses, int argc, char **argv) {
    const char *side[2] = {NULL, NULL};
    double threshold = 1.0;
    bool json = false;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return diff_help(stdout), 0;
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) {
            if (!parse_pct(argv[++i], &threshold))
                return cli_usage_error("--threshold: \"%s\" is not a percentage", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("diff: unknown option %s (see --help)", argv[i]);
        else if (n < 2)
            side[n++] = argv[i];
        else
            return cli_usage_error("diff takes two runs or scenarios (see --help)");
    }
    if (n != 2)
        return cli_usage_error("diff takes two runs or scenarios (see --help)");
    gp_err err;
    gp_err_clear(&err);
    gp_batch_diff d;
    char la[256], lb[256];
    if (gp_batch_compare(ses, side[0], side[1], threshold, &d, la, lb, &err))
        return cli_fail(&err);
    gp_buf b;
    gp_buf_init(&b, 64u << 20);
    if (json) {
        cJSON *t = gp_report_batch_diff_tree(&d, la);
        char *text = cJSON_Print(t);
        gp_buf_printf(&b, "%s\n", text ? text : "{}");
        free(text);
        cJSON_Delete(t);
    } else {
        gp_report_batch_diff_text(&d, la, &b);
    }
    fwrite(b.data, 1, b.len, stdout);
    gp_buf_done(&b);
    int rc = d.flips ? GP_EXIT_FLIPPED : 0;
    gp_batch_diff_done(&d);
    return rc;
}
