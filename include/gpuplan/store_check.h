/* The database checked (src/store/store_check.c, `gpuplan db check`): SQLite's integrity check
 * and every day chunk decoded against its checksum.
 *
 * Ownership: the problem lines are borrowed for the callback. Errors: GP_E_DB only when the
 * check cannot start; problems found are counted, not errors. */
#ifndef GPUPLAN_STORE_CHECK_H
#define GPUPLAN_STORE_CHECK_H

#include "gpuplan/error.h"
#include "gpuplan/store.h"

/* What gp_store_check found: day chunks read per table (rollup_5m_day, rollup_1h_day,
 * util_hour_day, fleet_5m_day), those refused (a checksum mismatch, or a layout that does not
 * decode), those written before chunks carried a checksum (decoded, not verifiable), and the
 * rows of PRAGMA integrity_check that are not "ok". */
typedef struct gp_db_check {
    long long chunks[4], damaged, unsummed, integrity_problems;
} gp_db_check;

/* Called once per problem with one line naming it ("rollup_5m_day, series 12, day 2026-11-20:
 * chunk: checksum mismatch ..." or "integrity_check: ..."); the line is borrowed for the call. */
typedef void (*gp_check_fn)(const char *line, void *arg);

/* Run PRAGMA integrity_check (its first 100 problems, a line each) and decode every day chunk,
 * verifying its checksum: problems go to fn and are counted in *out, a table that cannot be
 * read to its end among them, and the check goes on; the return is GP_OK even when some were
 * found (GP_E_DB only when integrity_check cannot even start). Reads every page. */
gp_status gp_store_check(gp_store *st, gp_check_fn fn, void *arg, gp_db_check *out, gp_err *err);

#endif
