/* For tests of the store's statements: whether SQLite plans one as index searches only, read
 * from EXPLAIN QUERY PLAN on the store's file through a second connection. */
#ifndef GPUPLAN_TESTS_QUERY_PLAN_H
#define GPUPLAN_TESTS_QUERY_PLAN_H

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Fails the test when the plan of sql on the database at path scans a table (a "SCAN" step, or
 * a "SEARCH" that constrains no column), or when want (NULL: anything) is in none of its steps;
 * other steps are allowed. Prints the plan on failure. */
static inline void assert_index_plan(const char *path, const char *sql, const char *want) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char q[1024];
    snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &s, NULL), SQLITE_OK);
    int steps = 0, scans = 0, wanted = !want;
    char plan[2048] = "";
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *d = (const char *)sqlite3_column_text(s, 3);
        steps++;
        wanted |= want && strstr(d, want) != NULL;
        /* A SEARCH with no constraint list walks the whole key: a scan by another name. */
        scans += strncmp(d, "SCAN", 4) == 0 || (strncmp(d, "SEARCH", 6) == 0 && !strstr(d, "=?"));
        size_t l = strlen(plan);
        snprintf(plan + l, sizeof plan - l, "  %s\n", d);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    if (scans || !wanted)
        print_error("%s\n%s", sql, plan);
    assert_true(steps > 0);
    assert_int_equal(scans, 0);
    assert_true(wanted);
}

#endif
