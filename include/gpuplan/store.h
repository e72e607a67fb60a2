/* The SQLite store: one file, WAL, foreign keys, migrations from db/ applied in order in one
 * transaction and tracked by PRAGMA user_version (docs/architecture.md, "Storage").
 *
 * Ownership: gp_store is opaque; gp_store_open hands one over, gp_store_close frees it.
 * Strings handed out (*json) are the caller's to free(). Every call fills err on failure:
 * GP_E_DB for SQLite failures, GP_E_NOTFOUND for a missing scenario, GP_E_INPUT for a file
 * that is not a gpuplan database or is newer than this build. */
#ifndef GPUPLAN_STORE_H
#define GPUPLAN_STORE_H

#include <signal.h>
#include <stdbool.h>

#include "gpuplan/error.h"

typedef struct gp_store gp_store;

#define GP_APPLICATION_ID 0x67706c6e /* "gpln", at offset 68 of the file header */

/* The schema version this build migrates to (the number of files in db/). */
int gp_store_schema_version(void);

/* Open or create the database at path (created with mode 0600; its folder must exist).
 * Refuses, without writing anything, a file from a newer gpuplan or another application. */
gp_status gp_store_open(const char *path, gp_store **out, gp_err *err);
/* Open for reading only (SQLITE_OPEN_READONLY; immutable on read-only media): no write lock,
 * so a long write elsewhere does not block it. A missing file or an older schema needs a
 * write, and gets gp_store_open instead. Errors as gp_store_open; writes then fail GP_E_DB. */
gp_status gp_store_open_readonly(const char *path, gp_store **out, gp_err *err);
/* True when st cannot be written (opened read-only): what a read does on the side (loading the
 * bundled catalog, refreshing throughput estimates) is then left out. */
bool gp_store_read_only(const gp_store *st);
/* True when the last SQLite failure st reported (GP_E_DB) was its refusal to write
 * (SQLITE_READONLY), told apart from a damaged, locked or full database. */
bool gp_store_write_refused(const gp_store *st);
void gp_store_close(gp_store *st);

/* From now on, a wait on another process's lock (up to 5 s) ends as soon as *stop is non-zero
 * (a signal handler's flag), failing the statement with GP_E_DB "database is locked", so a
 * daemon told to stop does not wait the lock out. The flag is borrowed for the store's life. */
void gp_store_stop_on(gp_store *st, volatile sig_atomic_t *stop);

/* Save json as the next version of scenario `name` (version 1 when new); *version gets it. */
gp_status gp_store_scenario_save(gp_store *st, const char *name, const char *json, int *version,
                                 gp_err *err);

/* The JSON of version `version` of `name` (0: the latest). *json is the caller's to free();
 * *version_out and saved_at (21 bytes) receive the version and its time when not NULL. */
gp_status gp_store_scenario_get(gp_store *st, const char *name, int version, char **json,
                                int *version_out, char *saved_at, gp_err *err);

typedef struct gp_scenario_info {
    const char *name;
    int versions;
    const char *created_at, *saved_at; /* of the first and of the latest version */
} gp_scenario_info;

/* Call fn once per scenario, by name; the info is borrowed for the call only. A non-zero
 * return from fn stops the walk. */
gp_status gp_store_scenario_list(gp_store *st, int (*fn)(const gp_scenario_info *, void *),
                                 void *arg, gp_err *err);

/* Call fn once per saved version of `name`, oldest first (GP_E_NOTFOUND when none). */
gp_status gp_store_scenario_versions(gp_store *st, const char *name,
                                     int (*fn)(int version, const char *saved_at, void *),
                                     void *arg, gp_err *err);

/* A transaction held by hand across several calls (the tests and benchmarks; the program
 * uses gp_store_in_tx): begin takes the write lock at once (BEGIN IMMEDIATE); rollback is a
 * no-op when none is open. */
gp_status gp_store_begin(gp_store *st, gp_err *err);
gp_status gp_store_commit(gp_store *st, gp_err *err);
void gp_store_rollback(gp_store *st);
/* fn(st, arg, err) in a transaction of its own (BEGIN IMMEDIATE ... COMMIT): all its writes, or
 * none when it or the commit fails (ROLLBACK). Returns GP_OK, or fn's or the commit's error.
 * Not inside another transaction: a write nested in one takes a SAVEPOINT instead. */
gp_status gp_store_in_tx(gp_store *st, gp_status (*fn)(gp_store *st, void *arg, gp_err *err),
                         void *arg, gp_err *err);

/* Delete a scenario and every version of it. */
gp_status gp_store_scenario_rm(gp_store *st, const char *name, gp_err *err);

/* Give scenario `from` and every version of it the name `to`. GP_E_NOTFOUND when there is no
 * `from`; GP_E_INPUT, and nothing changed, when a scenario named `to` exists. */
gp_status gp_store_scenario_rename(gp_store *st, const char *from, const char *to, gp_err *err);

#endif
