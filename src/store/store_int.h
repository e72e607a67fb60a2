/* The store's private parts, shared by the files of src/store only. */
#ifndef GPUPLAN_STORE_INT_H
#define GPUPLAN_STORE_INT_H

#include <sqlite3.h>

#include "gpuplan/store.h"

struct gp_store {
    sqlite3 *db;
    char *path;
};

/* Fill err with GP_E_DB, the path and SQLite's message; returns GP_E_DB. */
gp_status store_fail(gp_store *st, gp_err *err, const char *what);
/* Prepare exactly one statement; a left-over tail is a programming error reported as such. */
gp_status store_prepare(gp_store *st, const char *sql, sqlite3_stmt **out, gp_err *err);
/* Run SQL without results (several statements allowed). */
gp_status store_exec(gp_store *st, const char *sql, gp_err *err);
/* ROLLBACK if a transaction is open; returns err->code. */
gp_status store_rollback(gp_store *st, gp_err *err);

#endif
