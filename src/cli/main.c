/* gpuplan: own or rent GPUs, how many, and when it pays off. Command dispatch. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../../tui/tui.h"
#include "gp_version.h"

static const cli_command commands[] = {
    {"report", "evaluate a scenario: Markdown, CSV, JSON or XLSX report", cmd_report},
    {"scenario", "save, list, show, export and remove stored scenarios", cmd_scenario},
    {"sweep", "evaluate a grid of inputs; where does the answer flip?", cmd_sweep},
    {"sensitivity", "move every input by a delta: a tornado table", cmd_sensitivity},
    {"pricing", "the price and hardware catalog: list, show, import, diff", cmd_pricing},
    {"node", "the fleet's nodes and their telemetry sources", cmd_node},
    {"import", "store a captured nvidia-smi CSV or /metrics scrape", cmd_import},
    {"collect", "pull telemetry from every node, once or on an interval", cmd_collect},
    {"fleet", "nodes and GPUs now, with alerts", cmd_fleet},
    {"db", "database statistics", cmd_db},
    {"capacity", "utilization, power and cost from stored telemetry", cmd_capacity},
    {"plan", "own k GPUs, rent the rest: the mixed-fleet optimum", cmd_plan},
    {"batch", "report every saved scenario into a dated folder, with what changed", cmd_batch},
    {"diff", "what changed between two batch runs or two scenarios", cmd_diff},
    {"compare", "GPU generations owned or rented, per unit of work: a ranked table", cmd_compare},
    {"throughput", "work per GPU-hour by GPU model and profile: list, set, import", cmd_throughput},
    {"exporter", "serve /metrics for Prometheus: cost beside utilization", cmd_exporter},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
    fprintf(f, "usage: gpuplan [--db PATH] [--quiet] COMMAND [options] (--db may come anywhere)\n"
               "       gpuplan --version | --help\n\n"
               "       gpuplan [--db PATH] [--demo]\n\n"
               "With no command, opens the TUI: plan, compare, break-even, fleet, catalog,\n"
               "capacity and the plan's timeline in one terminal. --demo opens it on a demo\n"
               "database (the bundled catalog, the demo scenarios and a demo fleet with a\n"
               "month of history) in $XDG_DATA_HOME/gpuplan/demo.db, or in the file --db names.\n\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nThe database is --db PATH, else $GPUPLAN_DB, else "
               "$XDG_DATA_HOME/gpuplan/gpuplan.db.\n"
               "On a terminal, a line on stderr tells what takes a while (loading the bundled\n"
               "catalog into a new database, preparing the demo); --quiet leaves it out.\n"
               "Exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input, 3 a decision\n"
               "flipped (batch, diff), 4 something needs attention (collect --fail-on-error: a\n"
               "node failed; fleet --fail-on-alert: a GPU has an alert).\n"
               "Run `gpuplan COMMAND --help` for a command's options.\n");
}

/* --db PATH (or --db=PATH) after the command name, where people also put it: taken out of
 * the command's arguments (up to a "--") into the session; returns the arguments left. A word
 * that is another option's value and reads "--db" is taken too (no command has such a value).
 * *empty is set when a path given is "" (--db="$UNSET"), which the caller refuses. */
static int take_db_option(int argc, char **argv, gp_session *ses, bool *empty) {
    int out = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < argc)
                argv[out++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            ses->db_path = argv[++i];
        else if (!strncmp(argv[i], "--db=", 5))
            ses->db_path = argv[i] + 5;
        else {
            argv[out++] = argv[i];
            continue;
        }
        *empty = *empty || !*ses->db_path;
    }
    argv[out] = NULL;
    return out;
}

/* --db before the command: a path, never "" (which would open the default database). */
static int db_option(const char *v, void *dest) {
    if (!*v)
        return CLI_OPT_BAD;
    *(const char **)dest = v;
    return 0;
}

int main(int argc, char **argv) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    setlocale(LC_CTYPE, ""); /* never LC_NUMERIC: the decimal point stays "." */
    bool demo = false;
    gp_session ses;
    cli_session_init(&ses, getenv("GPUPLAN_DB"));
    bool db_flag = false; /* --db given: the one database --demo may be pointed at */
    bool version = false, help = false, quiet = false;
    const cli_opt opts[] = {
        {.name = "version", .kind = CLI_OPT_HELP, .dest = &version},
        {CLI_HELP(&help)},
        {CLI_CALL("db", &ses.db_path, db_option), .given = &db_flag, .bad = "the path is empty"},
        {CLI_FLAG("demo", &demo)},
        {CLI_FLAG("quiet", &quiet)},
        {0}};
    int i, bad = cli_parse(&(cli_parser){.opts = opts, .in_order = true}, argc, argv, &i);
    if (bad)
        return bad;
    if (version) {
        printf("gpuplan %s (cost model %d)\n", GPUPLAN_VERSION, 2);
        return 0;
    }
    if (help) {
        usage(stdout);
        return 0;
    }
    cli_set_quiet(quiet);
    int rc;
    if (i == argc) {
        /* The main job: the TUI. */
        gp_err err;
        gp_err_clear(&err);
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
            return cli_usage_error("the TUI needs a terminal; see gpuplan --help for the commands");
        if (demo && !db_flag)
            ses.db_path = NULL; /* never fill $GPUPLAN_DB, the user's own, with demo data */
        /* Building the demo the first time takes seconds: say so on the terminal, then
         * clear the line for the TUI (nothing is written when stderr is not a terminal). */
        if (demo)
            cli_progress_begin("preparing the demo database (a month of fleet history)");
        gp_status demo_rc = demo ? gp_demo_open(&ses, &err) : GP_OK;
        cli_progress_end();
        if (demo_rc)
            rc = cli_fail(&err);
        else
            rc = tui_main(&ses, demo, (double)t0.tv_sec + (double)t0.tv_nsec * 1e-9);
    } else {
        const cli_command *cmd = NULL;
        for (size_t k = 0; k < N_COMMANDS; k++)
            if (strcmp(argv[i], commands[k].name) == 0)
                cmd = &commands[k];
        if (!cmd) {
            return cli_usage_error("unknown command \"%s\" (see gpuplan --help)", argv[i]);
        }
        if (demo)
            return cli_usage_error("--demo opens the TUI; it takes no command");
        bool empty = false;
        argc = i + take_db_option(argc - i, argv + i, &ses, &empty);
        if (empty)
            return cli_usage_error("--db: the path is empty");
        cli_guard_terminal();
        rc = cmd->run(&ses, argc - i, argv + i);
    }
    gp_session_close(&ses);
    return rc;
}
