/* gpuplan db check: SQLite's integrity check and every day chunk decoded, its checksum verified
 * (store_check.h, gp_store_check; docs/telemetry.md "Chunk encoding").
 *
 * Each chunk table is read in its own order and each chunk decoded as its readers decode it,
 * so a chunk a report would refuse is named here first, with its series (or node and model)
 * and day. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/chunk.h"
#include "gpuplan/store_check.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

enum { T_5M, T_1H, T_HOURS, T_FLEET };

static const char *const SQL_TABLE[] = {
    "SELECT id, buckets FROM rollup_5m_day ORDER BY id",
    "SELECT id, buckets FROM rollup_1h_day ORDER BY id",
    "SELECT id, hours FROM util_hour_day ORDER BY id",
    "SELECT node_id, model, day_ms, buckets FROM fleet_5m_day ORDER BY day_ms, node_id, model"};
static const char *const TABLE[] = {"rollup_5m_day", "rollup_1h_day", "util_hour_day",
                                    "fleet_5m_day"};

/* The decoded forms, on the heap: a fleet day is 30 KB. */
typedef union decoded {
    gp_chunk chunk;
    gp_hours hours;
    gp_fleet_day fleet;
} decoded;

/* Decode one chunk of table t; GP_OK, or err naming where and the fault. */
static gp_status check_one(int t, const unsigned char *buf, size_t len, const char *where,
                           decoded *d, gp_err *err) {
    switch (t) {
    case T_5M:
    case T_1H:
        if (gp_chunk_decode(buf, len, where, &d->chunk, err))
            return err->code;
        if (d->chunk.slots != (t == T_5M ? GP_CHUNK_SLOTS_MAX : 24))
            return gp_errorf(err, GP_E_DB, where, "%d buckets in a day", d->chunk.slots);
        return GP_OK;
    case T_HOURS:
        return gp_hours_decode(buf, len, where, &d->hours, err);
    default:
        return gp_fleet_decode(buf, len, where, &d->fleet, err);
    }
}

static int version_of(int t) {
    return t == T_HOURS ? GP_HOURS_VERSION : t == T_FLEET ? GP_FLEET_VERSION : GP_CHUNK_VERSION;
}

static void problem(gp_check_fn fn, void *arg, long long *count, const char *what,
                    const char *text) {
    char line[1024];
    snprintf(line, sizeof line, "%s: %s", what, text);
    (*count)++;
    if (fn)
        fn(line, arg);
}

/* Decode every chunk of table t; a table that cannot be read (a damaged page) is one problem
 * of the file's, and the check goes on with the next. */
static void check_table(gp_store *st, int t, decoded *d, gp_check_fn fn, void *arg,
                        gp_db_check *out) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, SQL_TABLE[t], -1, &s, NULL) != SQLITE_OK) {
        problem(fn, arg, &out->integrity_problems, TABLE[t], sqlite3_errmsg(st->db));
        sqlite3_finalize(s);
        return;
    }
    int blob = t == T_FLEET ? 3 : 1, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        char where[200];
        if (t == T_FLEET) {
            char day[16];
            const unsigned char *model = sqlite3_column_text(s, 1);
            store_day_text(sqlite3_column_int64(s, 2), day);
            snprintf(where, sizeof where, "fleet_5m_day, node %lld, model %s, day %s",
                     (long long)sqlite3_column_int64(s, 0), model ? (const char *)model : "?", day);
        } else {
            int64_t id = sqlite3_column_int64(s, 0);
            store_chunk_where(where, sizeof where, TABLE[t], (long long)(id >> STORE_DAY_BITS),
                              (id & (STORE_DAY_ID_SPAN - 1)) * GP_DAY_MS);
        }
        const unsigned char *buf = sqlite3_column_blob(s, blob);
        size_t len = (size_t)sqlite3_column_bytes(s, blob);
        out->chunks[t]++;
        if (len > 0 && buf[0] != version_of(t))
            out->unsummed++;
        gp_err e;
        gp_err_clear(&e);
        if (check_one(t, buf, len, where, d, &e) != GP_OK) {
            char line[sizeof e.where + sizeof e.msg + 2];
            snprintf(line, sizeof line, "%s: %s", e.where, e.msg);
            out->damaged++;
            if (fn)
                fn(line, arg);
        }
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        char what[64];
        snprintf(what, sizeof what, "%s cannot be read to its end", TABLE[t]);
        problem(fn, arg, &out->integrity_problems, what, sqlite3_errmsg(st->db));
    }
    sqlite3_finalize(s);
}

/* SQLite 3.40 (Debian 12's) reports "NULL value in T.C" for a NOT NULL column of a WITHOUT
 * ROWID table whose primary key does not list its columns in table order (pue_reference.pue,
 * in every database): true only when a query finds such a NULL. */
static bool null_reported_falsely(gp_store *st, const char *row) {
    static const char prefix[] = "NULL value in ";
    if (strncmp(row, prefix, sizeof prefix - 1))
        return false;
    char table[256];
    snprintf(table, sizeof table, "%s", row + sizeof prefix - 1);
    char *dot = strrchr(table, '.');
    if (!dot)
        return false;
    *dot = '\0';
    char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\" WHERE \"%w\" IS NULL", table, dot + 1);
    sqlite3_stmt *s = NULL;
    bool none = false;
    if (sql && sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        none = sqlite3_column_int64(s, 0) == 0;
    sqlite3_finalize(s);
    sqlite3_free(sql);
    return none;
}

gp_status gp_store_check(gp_store *st, gp_check_fn fn, void *arg, gp_db_check *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s;
    if (store_prepare(st, "PRAGMA integrity_check(100)", &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        /* one row may hold several problems, a line each */
        const char *row = (const char *)sqlite3_column_text(s, 0);
        for (const char *p = row ? row : ""; *p;) {
            size_t n = strcspn(p, "\n");
            char one[512];
            snprintf(one, sizeof one, "%.*s", (int)n, p);
            p += n + (p[n] == '\n');
            if (!one[0] || !strcmp(one, "ok") || !strncmp(one, "*** in database", 15) ||
                null_reported_falsely(st, one))
                continue;
            problem(fn, arg, &out->integrity_problems, "integrity_check", one);
        }
    }
    if (rc != SQLITE_DONE) /* a page it cannot read at all: a problem, and the chunks next */
        problem(fn, arg, &out->integrity_problems, "integrity_check stopped",
                sqlite3_errmsg(st->db));
    sqlite3_finalize(s);
    decoded *d = gp_xmalloc(sizeof *d);
    for (int t = T_5M; t <= T_FLEET; t++)
        check_table(st, t, d, fn, arg, out);
    free(d);
    return GP_OK;
}
