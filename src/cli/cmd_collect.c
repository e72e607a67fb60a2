/* gpuplan collect: pull telemetry from every node, once or on an interval. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuplan/clock.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

typedef struct collect_args {
    gp_collect_opts o;
    long interval;
    int cycles;
    bool once, fail_on_error;
} collect_args;

/* A duration from 1 ms to a day ("500ms", "15s", "48h") into a long of milliseconds. */
static int interval(const char *v, void *dest) {
    return cli_interval_ms(v, dest) ? 0 : CLI_OPT_BAD;
}

static void collect_help(void) {
    printf("usage: gpuplan collect [--once] [--interval 15s] [--concurrency 64]\n"
           "                       [--timeout 10s] [--cycles N] [--keep-raw 48h]\n"
           "                       [--fail-on-error]\n\n"
           "Fetches every node's sources concurrently (one libcurl multi loop), parses\n"
           "them and writes each cycle in one transaction with every node's status.\n"
           "A hung or broken node is recorded and never delays the rest past the\n"
           "timeout; each transfer gets a quarter of it to connect (at most 3 s), half\n"
           "for a first byte, then 1 KiB/s. SIGINT or SIGTERM finish the cycle in hand\n"
           "and exit cleanly, ending a wait on a locked database at once.\n"
           "--fail-on-error: exit 4 when a node failed in any cycle (0 otherwise).\n");
}

/* collect's options into a; 0, 1 for --help, or the exit status of a bad one. */
static int collect_options(int argc, char **argv, collect_args *a) {
    bool help = false;
    const cli_opt opts[] = {
        {CLI_FLAG("once", &a->once)},
        {CLI_CALL("interval", &a->interval, interval), .bad = "\"%s\" is not a duration like 15s"},
        {CLI_INT("concurrency", &a->o.concurrency, 1, GP_COLLECT_MAX_CONCURRENCY),
         .bad = "\"%s\" is not a count from 1 to " CLI_STRING(GP_COLLECT_MAX_CONCURRENCY)},
        {CLI_CALL("timeout", &a->o.total_timeout_ms, interval),
         .bad = "\"%s\" is not a duration like 10s"},
        {CLI_INT("cycles", &a->cycles, 1, INT_MAX), .bad = "\"%s\" is not a count of 1 or more"},
        {CLI_CALL("keep-raw", &a->o.raw_keep_ms, interval),
         .bad = "\"%s\" is not a duration like 48h"},
        {CLI_FLAG("fail-on-error", &a->fail_on_error)},
        {CLI_HELP(&help)},
        {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "collect", .opts = opts}, argc, argv, &first);
    if (rc || help)
        return help ? collect_help(), 1 : rc;
    if (a->o.connect_timeout_ms > a->o.total_timeout_ms)
        a->o.connect_timeout_ms = a->o.total_timeout_ms;
    return first != argc ? cli_usage_error("collect takes no arguments") : 0;
}

int cmd_collect(gp_session *ses, int argc, char **argv) {
    collect_args a = {.interval = 15000};
    gp_collect_opts_init(&a.o);
    int rc = collect_options(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    gp_err err;
    gp_err_clear(&err);
    if (gp_session_open(ses, &err))
        return cli_fail(&err);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    a.o.stop = &stop_requested; /* a lock wait or a retry pause ends at once on a signal */
    int done = 0, skipped = 0, failed_nodes = 0;
    while (!stop_requested) {
        int64_t start = gp_now_ms();
        gp_cycle_stats cs;
        done++;
        if (gp_collect_once(ses, &a.o, &cs, &err)) {
            if (a.once) /* a daemon goes on: a lock or a full disk passes, stored data stays */
                return cli_fail(&err);
            if (stop_requested) { /* the write gave up on the signal: say so, and stop */
                fprintf(stderr, "gpuplan: cycle %d not stored: stopped by a signal\n", done);
                break;
            }
            skipped = skipped < 6 ? skipped + 1 : 6;
            char w[sizeof err.where], m[sizeof err.msg];
            fprintf(stderr, "gpuplan: cycle %d skipped: %s: %s (next try in %.1f s)\n", done,
                    cli_text(err.where, w, sizeof w), cli_text(err.msg, m, sizeof m),
                    (double)(a.interval << skipped) / 1000);
        } else {
            skipped = 0;
            failed_nodes += cs.nodes_failed;
            printf("cycle %d: %d node%s ok, %d failed, %zu sample%s in %.2f s\n", done, cs.nodes_ok,
                   cs.nodes_ok == 1 ? "" : "s", cs.nodes_failed, cs.samples,
                   cs.samples == 1 ? "" : "s", cs.seconds);
            fflush(stdout);
        }
        if (a.once || (a.cycles && done >= a.cycles))
            break;
        /* Sleep out the interval (doubled after each skipped cycle, up to 64 times) in short
         * steps, so a signal ends it promptly. */
        while (!stop_requested && gp_now_ms() - start < (a.interval << skipped)) {
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return a.fail_on_error && failed_nodes ? CLI_EXIT_ATTENTION : 0;
}
