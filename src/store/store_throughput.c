/* The throughput table (store_throughput.h). */
#include <stdio.h>
#include <string.h>

#include "gpuplan/store_throughput.h"
#include "store_int.h"

static const char SQL_PUT[] =
    "INSERT INTO throughput(gpu, profile, kind, value, unit, source, as_of) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(gpu, profile, kind) DO UPDATE SET "
    "value = excluded.value, unit = excluded.unit, source = excluded.source, "
    "as_of = excluded.as_of";

gp_status gp_store_put_throughput(gp_store *st, const gp_throughput *t, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_PUT, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, t->gpu, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, t->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, gp_tp_kind_name(t->kind), -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 4, t->value);
    sqlite3_bind_text(s, 5, t->unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, t->source, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, t->as_of, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "write a throughput");
}

gp_status gp_store_put_throughputs(gp_store *st, const gp_throughput *rows, int n, gp_err *err) {
    if (store_exec(st, "BEGIN IMMEDIATE", err))
        return err->code;
    for (int i = 0; i < n; i++)
        if (gp_store_put_throughput(st, &rows[i], err))
            return store_rollback(st, err);
    if (store_exec(st, "COMMIT", err))
        return store_rollback(st, err);
    return GP_OK;
}

static const char SQL_DROP_ESTIMATES[] =
    "DELETE FROM throughput WHERE profile = ?1 AND kind = 'estimate'";

gp_status gp_store_replace_estimates(gp_store *st, const char *profile, const gp_throughput *rows,
                                     int n, gp_err *err) {
    if (store_exec(st, "BEGIN IMMEDIATE", err))
        return err->code;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_DROP_ESTIMATES, &s, err))
        return store_rollback(st, err);
    sqlite3_bind_text(s, 1, profile, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        store_fail(st, err, "remove the throughput estimates");
        return store_rollback(st, err);
    }
    for (int i = 0; i < n; i++)
        if (gp_store_put_throughput(st, &rows[i], err))
            return store_rollback(st, err);
    if (store_exec(st, "COMMIT", err))
        return store_rollback(st, err);
    return GP_OK;
}

static void column_text(sqlite3_stmt *s, int i, char *out, size_t cap) {
    const char *t = (const char *)sqlite3_column_text(s, i);
    snprintf(out, cap, "%s", t ? t : "");
}

static const char SQL_LIST[] =
    "SELECT gpu, profile, kind, value, unit, source, as_of FROM throughput "
    "WHERE (?1 IS NULL OR profile = ?1) AND (?2 IS NULL OR gpu = ?2) "
    "ORDER BY gpu, profile, CASE kind WHEN 'measured' THEN 0 WHEN 'published' THEN 1 ELSE 2 END";

gp_status gp_store_throughputs(gp_store *st, const char *profile, const char *gpu,
                               int (*fn)(const gp_throughput *, void *), void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_LIST, &s, err))
        return err->code;
    if (profile)
        sqlite3_bind_text(s, 1, profile, -1, SQLITE_STATIC);
    if (gpu)
        sqlite3_bind_text(s, 2, gpu, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_throughput t = {0};
        column_text(s, 0, t.gpu, sizeof t.gpu);
        column_text(s, 1, t.profile, sizeof t.profile);
        char kind[16];
        column_text(s, 2, kind, sizeof kind);
        t.kind = strcmp(kind, "measured") == 0    ? GP_TP_MEASURED
                 : strcmp(kind, "published") == 0 ? GP_TP_PUBLISHED
                                                  : GP_TP_ESTIMATE;
        t.value = sqlite3_column_double(s, 3);
        column_text(s, 4, t.unit, sizeof t.unit);
        column_text(s, 5, t.source, sizeof t.source);
        column_text(s, 6, t.as_of, sizeof t.as_of);
        if (fn(&t, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the throughput table");
}

gp_status gp_store_put_workload_profile(gp_store *st, const char *name, const char *json,
                                        const char *added, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO workload_profile(name, json, added) VALUES (?1, ?2, ?3) "
                      "ON CONFLICT(name) DO UPDATE SET json = excluded.json, added = "
                      "excluded.added",
                      &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, added, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "write a workload profile");
}

gp_status gp_store_workload_profiles(gp_store *st, const char *name,
                                     int (*fn)(const char *name, const char *json, void *),
                                     void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT name, json FROM workload_profile WHERE ?1 IS NULL OR name = ?1 "
                      "ORDER BY name",
                      &s, err))
        return err->code;
    if (name)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(s, 0);
        const char *j = (const char *)sqlite3_column_text(s, 1);
        if (fn(n ? n : "", j ? j : "", arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the workload profiles");
}
