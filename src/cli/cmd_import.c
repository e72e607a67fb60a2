/* gpuplan import nvsmi|prom|dmon|dcmi FILE: a captured nvidia-smi CSV, /metrics scrape, dmon
 * or DCMI reading into the store; gpuplan import --prometheus URL --since 90d: the fleet's
 * past from its Prometheus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/app_history.h"
#include "gpuplan/clock.h"

typedef struct ticker {
    bool on;
} ticker;

static int on_progress(const gp_history_progress *p, void *arg) {
    ticker *t = arg;
    if (!t->on)
        return 0;
    double rate = p->seconds > 0 ? p->rows_written / p->seconds : 0;
    double eta =
        p->chunks_done ? p->seconds / p->chunks_done * (p->chunks_total - p->chunks_done) : 0;
    /* \r and a fixed width, no escape sequences: cli_guard_terminal passes only \r, \n, \t. */
    fprintf(stderr, "\rchunks %zu/%zu  %10.0f samples/s  %8.1f MB  ETA %d:%02d   ", p->chunks_done,
            p->chunks_total, rate, p->bytes / 1e6, (int)eta / 60, (int)eta % 60);
    fflush(stderr);
    return 0;
}

static void help(void) {
    printf("usage: gpuplan import --prometheus URL --since 90d [--until T] [--match SELECTOR]\n"
           "                      [--step 5m] [--node NAME] [--quiet] [--concurrency 4]\n"
           "                      [--hosts-per-query 8] [--max-points 11000] [--token-file F]\n"
           "                      [--org-id TENANT] [--cacert FILE] [--insecure]\n"
           "                      [--timeout 120s] [--recorded auto|yes|no]\n"
           "       gpuplan import --node NAME --since 90d    (the node's Prometheus source)\n"
           "       gpuplan import --print-rules\n\n"
           "Pulls the fleet's history through /api/v1/query_range, the server aggregating each\n"
           "metric to gpuplan's 5-minute buckets (count, sum, min and max over each step), and\n"
           "writes it straight into the 5-minute, hourly and capacity rollups. Whole hours\n"
           "only. Hosts are queried in groups, time in spans under the server's points limit;\n"
           "each chunk is committed whole, and a re-run asks only for what is new.\n"
           "Answers are parsed as they stream, within one 512 MiB budget; points outside the\n"
           "times asked for are not stored (exit 2, and a re-run asks again); what is not\n"
           "stored is said (docs/telemetry.md).\n"
           "T: a duration back from now (90d, 12h), 2026-01-31, 2026-01-31T12:00:00Z or Unix\n"
           "seconds. Each host (Hostname label, else instance) goes into a node of its name,\n"
           "created when new with the server as its Prometheus source; --node NAME puts\n"
           "everything into NAME instead. Credentials: ~/.netrc or --token-file.\n"
           "Where the server holds the series of gpuplan's recording rules for the window\n"
           "(--print-rules writes them, contrib/prometheus/gpuplan-history.rules.yml), they are\n"
           "read at a 5-minute step instead of the raw ones (--recorded auto); the output says\n"
           "which. --recorded yes refuses a window they do not cover; no reads the raw ones.\n");
}

/* What the command line asked for, before the times are read. */
typedef struct history_args {
    gp_history_request rq;
    const char *since, *until;
    bool quiet, help, print_rules;
} history_args;

static const char *const recorded_names[] = {"auto", "yes", "no", NULL}; /* GP_REC_ order */

/* The arguments and the window (since, until) read against now; 0 or an exit status. */
static int history_args_parse(int argc, char **argv, int64_t now, history_args *a) {
    gp_history_request *rq = &a->rq;
    gp_history_opts *h = &rq->opts;
    int recorded = (int)h->recorded;
    const cli_opt opts[] = {
        {CLI_STR("prometheus", &rq->url)},
        {CLI_STR("since", &a->since)},
        {CLI_STR("until", &a->until)},
        {CLI_STR("match", &rq->match)},
        {CLI_DURATION("step", &h->step_ms, 0), .bad = "\"%s\" is not a duration like 5m"},
        {CLI_STR("node", &rq->node)},
        {CLI_FLAG("quiet", &a->quiet)},
        {CLI_COUNT("concurrency", &h->concurrency)},
        {CLI_COUNT("hosts-per-query", &h->hosts_per_query)},
        {CLI_COUNT("max-points", &h->max_points)},
        {CLI_ENUM("recorded", &recorded, recorded_names), .bad = "\"%s\" is not auto, yes or no"},
        {CLI_FLAG("print-rules", &a->print_rules)},
        CLI_PROMETHEUS_CONNECTION(h, NULL),
        {CLI_HELP(&a->help)},
        {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "import", .opts = opts}, argc, argv, &first);
    h->recorded = (gp_recorded)recorded;
    if (rc || a->help || a->print_rules)
        return rc;
    if (first != argc)
        return cli_usage_error("import --prometheus takes no FILE (see --help)");
    if (!a->since)
        return cli_usage_error("import --prometheus needs --since (90d, 2026-01-31, ...)");
    if (!cli_when_ms(a->since, now, &a->rq.opts.since_ms))
        return cli_usage_error("--since: \"%s\" is not a time or duration", a->since);
    a->rq.opts.until_ms = now;
    if (a->until && !cli_when_ms(a->until, now, &a->rq.opts.until_ms))
        return cli_usage_error("--until: \"%s\" is not a time or duration", a->until);
    return 0;
}

static int cmd_import_history(gp_session *ses, int argc, char **argv) {
    history_args a = {0};
    gp_history_opts_init(&a.rq.opts);
    int rc = history_args_parse(argc, argv, (int64_t)time(NULL) * 1000, &a);
    if (rc || a.help)
        return a.help ? help(), 0 : rc;
    if (a.print_rules) {
        gp_buf rules;
        gp_buf_init(&rules, 1u << 20);
        gp_err err;
        gp_status st = gp_history_rules_yaml(&rules)
                           ? gp_errorf(&err, GP_E_LIMIT, NULL, "the rules pass 1 MiB")
                           : GP_OK;
        if (st == GP_OK)
            fwrite(rules.data, 1, rules.len, stdout);
        gp_buf_done(&rules);
        return st ? cli_fail(&err) : 0;
    }
    ticker t = {!a.quiet && isatty(STDERR_FILENO)};
    gp_err err;
    gp_err_clear(&err);
    const char *tf = a.rq.opts.token_file;
    if (tf && *tf && gp_token_file_check(tf, &err) == GP_E_INPUT)
        fprintf(stderr, "gpuplan: warning: %s: %s\n", err.where, err.msg);
    gp_err_clear(&err);
    gp_history_result r;
    gp_status st = gp_history_run(ses, &a.rq, on_progress, &t, &r, &err);
    if (t.on && r.p.chunks_done)
        fprintf(stderr, "\n");
    char node[256], who[300];
    cli_text(r.node, node, sizeof node);
    if (r.per_host && !r.p.hosts) /* no Hostname label: the instance label names them */
        snprintf(who, sizeof who, "hosts by their instance label (a node each, %zu new)",
                 r.p.nodes_created);
    else if (r.per_host)
        snprintf(who, sizeof who, "%zu host%s (a node each, %zu new)", r.p.hosts,
                 r.p.hosts == 1 ? "" : "s", r.p.nodes_created);
    else
        snprintf(who, sizeof who, "node \"%s\"%s", node, r.created ? " (new)" : "");
    const gp_history_progress *p = &r.p;
    if (r.p.chunks_total == 0 && st == GP_OK) {
        printf("%s: nothing new to import (%zu queries)\n", who, r.p.queries);
    } else if (r.p.chunks_done || st == GP_OK) {
        printf("%s: %zu of %zu chunks, %zu 5-minute samples stored, %zu already there, %zu "
               "queries, %.1f MB in %.1f s\n",
               who, r.p.chunks_done, r.p.chunks_total, r.p.rows_written, r.p.rows_skipped,
               r.p.queries, r.p.bytes / 1e6, r.p.seconds);
        if (p->series[0]) /* beside what was read: a refused import reads nothing */
            printf("  read the %s\n", p->series);
    }
    /* What the server sent that was not stored, said rather than dropped in silence. */
    if (p->blanks || p->incomplete || p->duplicates)
        printf("  not stored: %zu points without a reading (NaN, Inf, DCGM blanks, beyond "
               "+-1.4e14), %zu 5-minute rows incomplete or impossible, %zu series sent twice "
               "(the first kept)\n",
               p->blanks, p->incomplete, p->duplicates);
    if (st == GP_OK && p->outside)
        st = gp_errorf(&err, GP_E_INPUT, a.rq.url ? a.rq.url : r.node,
                       "the server answered with %zu points outside the times asked for (not "
                       "stored); %zu chunks are not marked imported, so a re-run asks again",
                       p->outside, p->chunks_held);
    return st ? cli_fail(&err) : 0;
}

/* --end: "2026-08-16 09:22:37" or "2026-08-16T09:22:37" in local time, with "Z" in UTC, or
 * "@SECONDS" since the epoch. */
static bool parse_when(const char *s, int64_t *ms) {
    if (s[0] == '@') {
        char *end;
        double v = strtod(s + 1, &end);
        if (end == s + 1 || *end || !(v > 0 && v < 253402300800.0))
            return false;
        *ms = (int64_t)(v * 1000);
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char sep, z[3] = "";
    int n = sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%2s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, z);
    if (n < 7 || (sep != ' ' && sep != 'T') || (n == 8 && strcmp(z, "Z")) || tm.tm_year < 1970 ||
        tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t t = n == 8 ? timegm(&tm) : mktime(&tm);
    if (t == (time_t)-1)
        return false;
    *ms = (int64_t)t * 1000;
    return true;
}

/* --end TIME as parse_when reads it. */
static int end_time(const char *v, void *dest) {
    return parse_when(v, dest) ? 0 : CLI_OPT_BAD;
}

/* --interval 1s: the rows' spacing in a log without times. */
static int interval(const char *v, void *dest) {
    long ms;
    if (!cli_interval_ms(v, &ms))
        return CLI_OPT_BAD;
    *(int64_t *)dest = ms;
    return 0;
}

static void import_help(void) {
    printf("usage: gpuplan import nvsmi FILE|- --node NAME [--fields a,b,c] [--host H]\n"
           "       gpuplan import prom FILE|- --node NAME\n"
           "       gpuplan import dmon FILE|- --node NAME [--end TIME] [--interval 1s] [--host H]\n"
           "       gpuplan import dcmi FILE|- --node NAME\n"
           "       gpuplan import --prometheus URL --since 90d ...  (see its --help)\n\n"
           "Stores a captured nvidia-smi --query-gpu CSV (with its header, or noheader\n"
           "with --fields naming the columns), a saved Prometheus exposition scrape\n"
           "(dcgm-exporter's /metrics), an nvidia-smi dmon log or an `ipmitool dcmi power\n"
           "reading` under node NAME, created when new. One transaction: a file that cannot\n"
           "be read imports nothing.\n\n"
           "dmon: rows with -o DT (or T) times keep them; without, rows are --interval apart\n"
           "(dmon's -d, default 1s), the last at --end (\"2026-08-16 09:22:37\" local, a\n"
           "trailing Z for UTC, or @SECONDS), by default the file's modification time. GPU\n"
           "indexes take the UUIDs of the node's known GPUs.\n"
           "dcmi: the wall power, dated by the BMC's timestamp when plausible, else by the\n"
           "file's modification time; a deactivated reading stores nothing (exit status 4).\n"
           "prom, nvsmi: samples keep their own timestamps; those without (dcgm-exporter\n"
           "writes none) are dated by the file's modification time.\n"
           "dcmi, prom, nvsmi read from stdin (-): dated by the time of the import.\n");
}

static void print_import(const gp_import_request *rq, const gp_import_result *r) {
    char node[128], a[32], b[32];
    cli_text(rq->node, node, sizeof node);
    if (rq->kind == GP_CAPTURE_DCMI) {
        const gp_dcmi_reading *d = &r->dcmi;
        if (!r->stored) {
            printf("stored nothing in node \"%s\": %s\n", node, r->why);
            return;
        }
        gp_fmt_local_time(r->first_ms, a, sizeof a);
        printf("imported wall power %g W into node \"%s\"", d->watts, node);
        if (d->has_min && d->has_max && d->has_avg) {
            printf(" (%g to %g W, average %g W", d->min_w, d->max_w, d->avg_w);
            if (d->period_ms >= 0)
                printf(" over %.0f s", d->period_ms / 1000.0);
            printf(")");
        }
        printf(", dated %s (%s)\n", a,
               r->time == GP_TIME_OWN     ? "the BMC's timestamp"
               : r->time == GP_TIME_MTIME ? "the file's modification time"
                                          : "the time of the import");
        if (r->why[0]) {
            char why[240];
            cli_text(r->why, why, sizeof why);
            printf("  %s\n", why);
        }
        return;
    }
    /* A MIG instance is a slice of a GPU: counted apart, as fleet and capacity count them. */
    size_t whole = r->gpus - r->mig_instances;
    char mig[64] = "";
    if (r->mig_instances)
        snprintf(mig, sizeof mig, " and %zu MIG instance%s", r->mig_instances,
                 r->mig_instances == 1 ? "" : "s");
    printf("imported %zu sample%s of %zu GPU%s%s into node \"%s\"%s\n", r->samples,
           r->samples == 1 ? "" : "s", whole, whole == 1 ? "" : "s", mig, node,
           r->dropped_blanks ? " (blank or placeholder values dropped)" : "");
    if (rq->kind != GP_CAPTURE_DMON) {
        if (!r->undated)
            return;
        /* Said as dcmi says it: an old capture's readings are dated when it was saved. */
        gp_fmt_local_time(r->dated_ms, a, sizeof a);
        if (r->undated < r->samples)
            printf("  %zu sample%s without a timestamp of %s own", r->undated,
                   r->undated == 1 ? "" : "s", r->undated == 1 ? "its" : "their");
        printf("%s dated %s (%s)\n", r->undated < r->samples ? "" : " ", a,
               r->time == GP_TIME_MTIME ? "the file's modification time"
                                        : "the time of the import");
        return;
    }
    gp_fmt_local_time(r->first_ms, a, sizeof a);
    gp_fmt_local_time(r->last_ms, b, sizeof b);
    printf("  %zu row%s in %zu round%s, %s to %s", r->rows, r->rows == 1 ? "" : "s", r->rounds,
           r->rounds == 1 ? "" : "s", a, b);
    if (r->time == GP_TIME_OWN)
        printf(" (the log's own times)\n");
    else
        printf(" (no times in the log: rows %.3g s apart, the last at %s)\n",
               r->interval_ms / 1000.0,
               r->time == GP_TIME_END ? "--end" : "the file's modification time");
    if (r->mapped)
        printf("  %zu GPU%s matched by index to the node's known GPUs\n", r->mapped,
               r->mapped == 1 ? "" : "s");
}

int cmd_import(gp_session *ses, int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--prometheus", 12) || !strncmp(argv[i], "--since", 7) ||
            !strcmp(argv[i], "--print-rules"))
            return cmd_import_history(ses, argc, argv);
    gp_import_request rq = {0};
    bool has_end = false, has_interval = false, help = false;
    const cli_opt opts[] = {{CLI_STR("node", &rq.node)},
                            {CLI_STR("fields", &rq.fields)},
                            {CLI_STR("host", &rq.host)},
                            {CLI_CALL("end", &rq.end_ms, end_time), .given = &has_end,
                             .bad = "\"%s\" is not a time like \"2026-08-16 09:22:37\""},
                            {CLI_CALL("interval", &rq.interval_ms, interval),
                             .given = &has_interval, .bad = "\"%s\" is not a duration like 1s"},
                            {CLI_HELP(&help)},
                            {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "import", .opts = opts}, argc, argv, &first);
    if (rc || help)
        return help ? import_help(), 0 : rc;
    if (argc - first != 2)
        return cli_usage_error(
            "import takes a kind (nvsmi, prom, dmon or dcmi) and a FILE (see --help)");
    const char *kind = argv[first];
    rq.file = argv[first + 1];
    static const struct {
        const char *name;
        gp_capture_kind kind;
    } kinds[] = {{"nvsmi", GP_CAPTURE_NVSMI},
                 {"prom", GP_CAPTURE_PROM},
                 {"dmon", GP_CAPTURE_DMON},
                 {"dcmi", GP_CAPTURE_DCMI}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kind, kinds[k].name))
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return cli_usage_error("import: \"%s\" is not nvsmi, prom, dmon or dcmi", kind);
    rq.kind = kinds[k].kind;
    if (!rq.node)
        return cli_usage_error("import needs --node NAME");
    if ((has_end || has_interval) && rq.kind != GP_CAPTURE_DMON)
        return cli_usage_error("--end and --interval apply to import dmon only");
    if (rq.fields && rq.kind != GP_CAPTURE_NVSMI)
        return cli_usage_error("--fields applies to import nvsmi only");
    gp_err err;
    gp_err_clear(&err);
    gp_import_result r;
    char line[160];
    snprintf(line, sizeof line, "importing %.120s", rq.file);
    cli_progress_begin(line); /* a capture of a large fleet takes a while */
    gp_status st = gp_import_capture(ses, &rq, &r, &err);
    cli_progress_end();
    if (st)
        return cli_fail(&err);
    print_import(&rq, &r);
    return rq.kind == GP_CAPTURE_DCMI && !r.stored ? CLI_EXIT_ATTENTION : 0;
}
