/* Front-end plumbing shared by the gpuplan commands: the command table, error lines, output.
 * What a command computes comes from src/app/; how it looks, from src/report/. Only front
 * ends print; every helper here reports through gp_err like the library does. */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuplan/app_capacity.h"
#include "gpuplan/app_demo.h"
#include "gpuplan/app_draft.h"
#include "gpuplan/app_export.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/report_fleet.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/app_telemetry.h"
#include "gpuplan/app_session.h"
#include "gpuplan/error.h"
#include "gpuplan/files.h"
#include "gpuplan/engine.h"
#include "gpuplan/parse.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"
#include "gpuplan/xmem.h"

/* The exit status of a run that worked but found something to act on: a failed node with
 * collect --fail-on-error, an alert with fleet --fail-on-alert, a deactivated BMC reading given
 * to import dcmi (cron and CI can tell it from 1, a failure of the world, and 2, bad input). */
#define CLI_EXIT_ATTENTION 4

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(gp_session *ses, int argc, char **argv);
} cli_command;

/* The session a command runs in: gp_session_init, plus a notice on a terminal when the
 * bundled catalog is loaded on first use. */
void cli_session_init(gp_session *s, const char *db_path);

/* A line on stderr while something slow runs ("gpuplan: WHAT..."), cleared by
 * cli_progress_end: on a terminal only, never with --quiet (cli_set_quiet). One at a time. */
bool cli_progress_begin(const char *what); /* false: nothing shown (or another line is) */
void cli_progress_end(void);
void cli_set_quiet(bool quiet);

/* One policy for text from outside (scenario and node names, a server's error text, labels,
 * catalogs): no control character leaves gpuplan, on a terminal, a pipe or a log alike.
 * stderr (messages only) always goes through a filter that drops C0 controls but newline, tab
 * and carriage return, DEL, C1 controls, U+FFFE and U+FFFF (gp_text_next's GP_TEXT_CONTROL);
 * stdout does when it is a terminal. Elsewhere stdout
 * carries reports byte for byte (a workbook to a pipe), so commands print outside names on it
 * through cli_text, and messages go through gp_text_clean too (cli_fail). Not for the TUI. */
void cli_guard_terminal(void);
/* s (NULL: "") through gp_text_clean, the one sanitiser, into buf[0..cap); returns buf. */
const char *cli_text(const char *s, char *buf, size_t cap);

/* Print "gpuplan: where: msg" on stderr, both through gp_text_clean, and return the exit status
 * for the code. */
int cli_fail(const gp_err *err);
/* Print "gpuplan: msg" for bad usage (through gp_text_clean: it may quote an argument) and
 * return 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write buf to path as output.h says (stdout for NULL or "-"; a device or FIFO in place; a
 * regular file atomically, its mode kept; a link followed), for every command's -o. */
gp_status cli_write_output(const char *path, const char *data, size_t len, gp_err *err);

/* Print what a renderer put in out (st: its status) to stdout, as the printf calls it replaced
 * did: stdout's write errors are not checked, so they leave the exit status as it was. Frees
 * out. 0, or the exit status of a renderer's failure. */
int cli_print_rendered(gp_status st, gp_buf *out);

/* "90d", "12h", "30m", "45s" into milliseconds; false for anything else. */
bool cli_duration_ms(const char *s, int64_t *out);
/* A time: a duration back from now_ms ("90d"), a date ("2026-01-31", UTC), a UTC time
 * ("2026-01-31T12:00:00Z") or Unix seconds, into Unix milliseconds; false for anything else. */
bool cli_when_ms(const char *s, int64_t now_ms, int64_t *out);

/* "500ms", "30s" (or "30"), "5m", "1h" into milliseconds, at most a day (collect --interval,
 * import dmon --interval); false for anything else. */
bool cli_interval_ms(const char *s, long *out);
/* "5", "5%" or "0.5 %" into a percentage (batch and diff --threshold); false for anything else. */
bool cli_percent(const char *s, double *out);

/* ---- the option table (cli_options.c) -------------------------------------------------------
 * Every command describes its options as a table of cli_opt, ended by an entry whose name is
 * NULL, and reads argv with cli_parse: one getopt_long loop for all of them. Values are checked
 * as they are read, before any is taken; a bad one is one line on stderr naming the option and
 * the value, exit status 2. The table's entries point into the command's own variables, so a table
 * is built where they live (on the stack); adding an option is one entry. */

typedef enum cli_opt_kind {
    CLI_OPT_FLAG = 1, /* bool *: set true; no value */
    CLI_OPT_HELP,     /* bool *: set true, and parsing stops there (the command prints help) */
    CLI_OPT_STRING,   /* const char **: the value as given (it points into argv) */
    CLI_OPT_INT,      /* int *: a whole number (gp_parse_int), in [min, max] when min < max */
    CLI_OPT_DOUBLE,   /* double *: a finite number (gp_parse_double), in [min, max] likewise */
    CLI_OPT_DURATION, /* int64_t *: cli_duration_ms ("90d", "12h", "30m", "45s") in ms, above 0
                       * and at most max ms when max > 0 */
    CLI_OPT_DATE,     /* char [11]: a calendar date YYYY-MM-DD (gp_valid_date) */
    CLI_OPT_ENUM,     /* int *: the index of the value in choices (ended by NULL) */
    CLI_OPT_LIST,     /* const char *[max]: the value appended at *count (repeatable) */
    CLI_OPT_CALL,     /* call(value, dest): whatever the others do not say */
    CLI_OPT_ACTION    /* call(NULL, dest), no value: a flag that does more than set a bool */
} cli_opt_kind;

/* What a CLI_OPT_CALL callback returns for a value it refuses: the parser prints the entry's
 * bad line. 0 accepts the value; any other number is the exit status of a line the callback
 * printed itself. A callback is called only once the whole line has been read and found good
 * (cli_parse), so it may do what cannot be undone (load a scenario, open a file). */
#define CLI_OPT_BAD (-1)

typedef struct cli_opt {
    const char *name; /* the long name without "--" ("since"); NULL ends the table */
    char letter;      /* the short one ('o' for -o), 0: none */
    cli_opt_kind kind;
    void *dest;                 /* where the value goes, as the kind says; not owned */
    double min, max;            /* INT and DOUBLE: the range, inclusive (none unless min < max);
                                 * DURATION: the longest in ms (0: none); LIST: the array's capacity */
    int *count;                 /* LIST: how many are in dest */
    const char *const *choices; /* ENUM: the names, NULL-ended */
    int (*call)(const char *value, void *dest); /* CALL, ACTION: 0, CLI_OPT_BAD or an exit
                                                 * status */
    const char *bad;   /* the line after "--name: " for a bad value, "%s" standing for the value;
                        * NULL: the kind's own words */
    bool *given;       /* set true when the option is given and taken; NULL: not tracked */
    const char *needs; /* the long name of another entry of the table that must be given
                        * with this one ("prometheus" for --match); NULL: none */
    bool hidden;       /* left out of --help on purpose (list --names, for the completions);
                        * the help test (tests/unit/test_cli_help.c) holds every other entry
                        * to its help's usage lines */
} cli_opt;

/* A count of hosts, queries or points (--concurrency, --hosts-per-query, --max-points): one
 * bound for every command that takes one. */
#define CLI_COUNT_MAX 1000000
#define CLI_COUNT(n, d)                                                                            \
    CLI_INT(n, d, 1, CLI_COUNT_MAX),                                                               \
        .bad = "\"%s\" is not a count from 1 to " CLI_STRING(CLI_COUNT_MAX)

/* A number macro as a string, for a bad line: "at most " CLI_STRING(GP_SENS_MAX_ROWS). */
#define CLI_STRING_(x) #x
#define CLI_STRING(x) CLI_STRING_(x)

/* The entries, as designators: {CLI_STR("node", &node)}, {CLI_STR("output", &out), .letter =
 * 'o'}, {CLI_INT("top", &top, 1, 512), .bad = "\"%s\" is not a count 1..512"}; {0} ends a
 * table. */
#define CLI_FLAG(n, d) .name = (n), .kind = CLI_OPT_FLAG, .dest = (d)
#define CLI_HELP(d) .name = "help", .letter = 'h', .kind = CLI_OPT_HELP, .dest = (d)
#define CLI_STR(n, d) .name = (n), .kind = CLI_OPT_STRING, .dest = (d)
#define CLI_INT(n, d, lo, hi)                                                                      \
    .name = (n), .kind = CLI_OPT_INT, .dest = (d), .min = (lo), .max = (hi)
#define CLI_DOUBLE(n, d, lo, hi)                                                                   \
    .name = (n), .kind = CLI_OPT_DOUBLE, .dest = (d), .min = (lo), .max = (hi)
#define CLI_DURATION(n, d, most) .name = (n), .kind = CLI_OPT_DURATION, .dest = (d), .max = (most)
#define CLI_DATE(n, d) .name = (n), .kind = CLI_OPT_DATE, .dest = (d)
#define CLI_ENUM(n, d, names) .name = (n), .kind = CLI_OPT_ENUM, .dest = (d), .choices = (names)
#define CLI_LIST(n, d, cnt, cap)                                                                   \
    .name = (n), .kind = CLI_OPT_LIST, .dest = (d), .count = (cnt), .max = (cap)
#define CLI_CALL(n, d, fn) .name = (n), .kind = CLI_OPT_CALL, .dest = (d), .call = (fn)
#define CLI_ACTION(n, d, fn) .name = (n), .kind = CLI_OPT_ACTION, .dest = (d), .call = (fn)

typedef struct cli_parser {
    const char *cmd;     /* names the command in the line for an unknown option ("batch:
                          * unknown option or missing value: --x (see --help)"); NULL: none */
    const cli_opt *opts; /* the table */
    bool cmd_in_values;  /* the line for a bad value names the command too */
    bool in_order;       /* the options end at the first argument (gpuplan's own, before the
                          * command): what follows it is left as it is */
    /* An argument that looks like an unknown option (the whole word, "-5"): 0 to say it is
     * one, else the exit status of the caller's own line. NULL: always unknown. */
    int (*unknown)(const char *word);
} cli_parser;

/* Read the options of argv[1..argc) (argv[0] names the command) by p's table, in any order
 * among the arguments, up to "--"; "--name value", "--name=value", "-o value" and "-ovalue"
 * alike. The arguments that are not options are moved, in their order, to argv[*first..argc).
 * 0, or the exit status of a usage error (one line on stderr, printed): an unknown option or
 * one without its value, a bad value, an option given without the one its entry needs
 * ("capacity: --match needs --prometheus (see --help)"), or a callback's refusal.
 * The line is read whole before anything is taken: a line refused for any of the first three
 * writes no destination and calls no callback, whatever stands before the fault on the line.
 * Then the values are taken and the callbacks called in the line's order; a callback that
 * refuses its value ends the parse there, the entries before it on the line taken (its
 * refusal is the only one that can come after a side effect). A CLI_OPT_HELP entry stops the
 * reading with 0 at once, its bool set and nothing else taken or called; faults before it on
 * the line are refused as above, those after it are not read. */
int cli_parse(const cli_parser *p, int argc, char **argv, int *first);

/* A CLI_OPT_CALL for --timeout on a gp_history_opts: a duration up to an hour ("120s", "2m")
 * as the total timeout of a query, the connect timeout capped by it. */
int cli_opt_history_timeout(const char *value, void *history_opts);

/* The connection options of --prometheus URL, into the gp_history_opts h: entries of the tables
 * of capacity (and scenario measure), import and throughput import, each needing the entry
 * named need (NULL: none, where a node's source may give the server). */
/* clang-format off */
#define CLI_PROMETHEUS_CONNECTION(h, need)                                                         \
    {CLI_STR("token-file", &(h)->token_file), .needs = (need)},                                    \
    {CLI_STR("org-id", &(h)->org_id), .needs = (need)},                                            \
    {CLI_STR("cacert", &(h)->cacert), .needs = (need)},                                            \
    {CLI_FLAG("insecure", &(h)->insecure), .needs = (need)},                                       \
    {CLI_CALL("timeout", (h), cli_opt_history_timeout), .needs = (need),                           \
     .bad = "\"%s\" is not a duration like 120s"}
/* clang-format on */

/* What capacity, scenario measure and plan take besides the query; each command reads the
 * fields it documents. */
typedef struct cap_flags {
    bool json, csv, ldc, help;
    const char *mix, *option; /* plan --mix SCENARIO --option NAME */
    gp_mix_request mix_rq;
    gp_history_opts remote; /* --prometheus URL and its connection options */
    bool print_rules;       /* capacity --print-rules */
    int first_arg;          /* argv[first_arg..argc): the arguments that are not options */
} cap_flags;

/* The commands that share capacity's options, each taking those it reads. */
typedef enum cap_command { CAP_CAPACITY, CAP_PLAN, CAP_MEASURE } cap_command;

/* The options of capacity, plan or scenario measure (cmd_capacity.c) into q and f. 0, or the
 * exit status of a usage error (printed, naming the command). */
int cli_capacity_options(cap_command cmd, int argc, char **argv, gp_session *ses, gp_cap_query *q,
                         cap_flags *f);
/* Write what a renderer put in out to stdout; 0, or the exit status of a failure. Frees out. */
int cli_capacity_emit(gp_status st, gp_buf *out, gp_err *err);

/* The commands, each in its own src/cli/cmd_<command>.c (cmd_scenario.c also holds
 * scenario draft and scenario measure). */
int cmd_report(gp_session *ses, int argc, char **argv);
int cmd_scenario(gp_session *ses, int argc, char **argv);
int cmd_scenario_draft(gp_session *ses, int argc, char **argv);
int cmd_sweep(gp_session *ses, int argc, char **argv);
int cmd_sensitivity(gp_session *ses, int argc, char **argv);
int cmd_pricing(gp_session *ses, int argc, char **argv);
int cmd_node(gp_session *ses, int argc, char **argv);
int cmd_import(gp_session *ses, int argc, char **argv);
int cmd_collect(gp_session *ses, int argc, char **argv);
int cmd_fleet(gp_session *ses, int argc, char **argv);
int cmd_db(gp_session *ses, int argc, char **argv);
int cmd_capacity(gp_session *ses, int argc, char **argv);
int cmd_plan(gp_session *ses, int argc, char **argv);
int cmd_scenario_measure(gp_session *ses, int argc, char **argv);
int cmd_batch(gp_session *ses, int argc, char **argv);
int cmd_diff(gp_session *ses, int argc, char **argv);
int cmd_compare(gp_session *ses, int argc, char **argv);
int cmd_throughput(gp_session *ses, int argc, char **argv);
int cmd_exporter(gp_session *ses, int argc, char **argv);

#endif
