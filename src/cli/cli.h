/* Front-end plumbing shared by the gpuplan commands: the database, scenario loading, output.
 * Only front ends print; every helper here reports through gp_err like the library does. */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "gpuplan/error.h"
#include "gpuplan/model.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"
#include "gpuplan/store.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/xmem.h"

typedef struct cli {
    const char *db_path; /* --db, GPUPLAN_DB, or NULL for the default */
    gp_store *store;     /* opened on first use */
    char path[4096];     /* the file the store was opened on */
    bool quiet;          /* no chatter on stderr (the TUI owns the terminal) */
    bool read_only;      /* set before cli_store by commands that only read */
} cli;

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(cli *c, int argc, char **argv);
} cli_command;

/* When stdout or stderr is a terminal, route it through a filter that drops control and
 * escape characters, so names and labels from outside (scenario files, exporters, catalogs)
 * cannot drive the terminal. Pipes and files get the bytes as written. Not for the TUI. */
void cli_guard_terminal(void);

/* Print "gpuplan: where: msg" on stderr and return the exit status for the code. */
int cli_fail(const gp_err *err);
/* Print "gpuplan: msg" for bad usage and return 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* $XDG_DATA_HOME/gpuplan (else ~/.local/share/gpuplan) into out, created with mode 0700. */
gp_status cli_data_dir(char *out, size_t cap, gp_err *err);

/* Open the database on first use (creating its folder with mode 0700). */
gp_status cli_store(cli *c, gp_store **out, gp_err *err);

/* The store with the bundled catalog loaded (on first use: it says so on stderr). */
gp_status cli_catalog(cli *c, gp_store **out, gp_err *err);

/* Read a whole file ("-" is stdin) of at most cap bytes into out. */
gp_status cli_read_file(const char *path, size_t cap, gp_buf *out, gp_err *err);

/* Write buf to path atomically (a temporary file beside it, then rename), or to stdout when
 * path is NULL or "-". */
gp_status cli_write_output(const char *path, const char *data, size_t len, gp_err *err);

/* A loaded scenario: the struct, its JSON tree (catalog prices filled in), where it came from,
 * and the catalog prices used. */
typedef struct cli_scenario {
    gp_scenario *s; /* heap: the struct is large */
    cJSON *tree;
    char origin[512];
    int version; /* stored version, 0 for a file */
    gp_price_source sources[GP_MAX_OPTIONS];
    int n_sources;
} cli_scenario;

/* Load FILE.json (or "-") or a stored scenario NAME (version 0: the latest), validate it and
 * resolve catalog references as of as_of (YYYY-MM-DD). Free with cli_scenario_done. */
gp_status cli_scenario_load(cli *c, const char *arg, int version, const char *as_of,
                            cli_scenario *out, gp_err *err);
void cli_scenario_done(cli_scenario *sc);

/* The same from a parsed document (the TUI's editor): doc is copied, never changed. */
gp_status cli_scenario_from_tree(cli *c, const cJSON *doc, const char *origin, const char *as_of,
                                 cli_scenario *out, gp_err *err);

/* The fleet's alerts for one GPU, space-separated into out ("hot memory"); returns how many:
 * temperature >= 85 C, memory >= 90 %, node down, missing, over its power limit. */
int cli_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap);

/* Switch c to the demo database (c->db_path NULL: $XDG_DATA_HOME/gpuplan/demo.db) and fill
 * it: the bundled catalog, the demo scenarios, and a demo fleet's month of history topped up
 * to now. */
gp_status cli_demo_open(cli *c, gp_err *err);
/* The demo fleet's history from where it stopped (at most a month back) up to now: what
 * cli_demo_open runs, and what keeps the TUI's demo fleet moving. */
gp_status cli_demo_fleet(gp_store *st, gp_err *err);

/* Write sc's procurement workbook to path (report --format xlsx; x in the TUI). A measured
 * scenario gets a Telemetry sheet of its window's GPUs from the store. */
gp_status cli_export_xlsx(cli *c, const cli_scenario *sc, const gp_result *r, const char *as_of,
                          const char *path, gp_err *err);

/* Today's local date as YYYY-MM-DD into out (11 bytes). */
void cli_today(char *out);
/* True when s is a valid calendar date YYYY-MM-DD. */
bool cli_valid_date(const char *s);

/* Parse a non-negative integer / a finite double with strto*; false on junk. */
bool cli_parse_int(const char *s, int *out);
bool cli_parse_double(const char *s, double *out);

/* The commands (one file each under src/cli/). */
int cmd_report(cli *c, int argc, char **argv);
int cmd_scenario(cli *c, int argc, char **argv);
int cmd_scenario_draft(cli *c, int argc, char **argv);
int cmd_sweep(cli *c, int argc, char **argv);
int cmd_sensitivity(cli *c, int argc, char **argv);
int cmd_pricing(cli *c, int argc, char **argv);
int cmd_node(cli *c, int argc, char **argv);
int cmd_import(cli *c, int argc, char **argv);
int cmd_collect(cli *c, int argc, char **argv);
int cmd_fleet(cli *c, int argc, char **argv);
int cmd_db(cli *c, int argc, char **argv);
int cmd_capacity(cli *c, int argc, char **argv);
int cmd_plan(cli *c, int argc, char **argv);
int cmd_scenario_measure(cli *c, int argc, char **argv);

#endif
