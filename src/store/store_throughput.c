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

static gp_status put_throughput_row(gp_store *st, const void *row, gp_err *err) {
    return gp_store_put_throughput(st, row, err);
}

gp_status gp_store_put_throughputs(gp_store *st, const gp_throughput *rows, int n, gp_err *err) {
    return store_each_in_tx(st, rows, n > 0 ? (size_t)n : 0, sizeof *rows, put_throughput_row, err);
}

static const char SQL_DROP_ESTIMATES[] =
    "DELETE FROM throughput WHERE profile = ?1 AND kind = 'estimate'";

typedef struct estimates {
    const char *profile;
    const gp_throughput *rows;
    int n;
} estimates;

static gp_status replace_estimates(gp_store *st, void *arg, gp_err *err) {
    const estimates *e = arg;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_DROP_ESTIMATES, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, e->profile, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "remove the throughput estimates");
    return store_each(st, e->rows, e->n > 0 ? (size_t)e->n : 0, sizeof *e->rows, put_throughput_row,
                      err);
}

gp_status gp_store_replace_estimates(gp_store *st, const char *profile, const gp_throughput *rows,
                                     int n, gp_err *err) {
    estimates e = {profile, rows, n};
    return gp_store_in_tx(st, replace_estimates, &e, err);
}

static const char SQL_DERIVED_COUNT[] =
    "SELECT count(*) FROM throughput WHERE kind IN ('estimate', 'published')";

gp_status gp_store_derived_count(gp_store *st, long long *n, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_DERIVED_COUNT, &s, err))
        return err->code;
    int rc = sqlite3_step(s);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    if (rc != SQLITE_ROW)
        return store_fail(st, err, "count the throughput rows");
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

static const char SQL_PUT_MEASUREMENT[] =
    "INSERT INTO throughput_measurement(gpu, profile, value, unit, source, engine, counted, "
    "window_from, window_to, tokens, gpu_hours, busy_share, mean_util, pods) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

static gp_status put_measurement(gp_store *st, const void *row, gp_err *err) {
    const gp_tp_measurement *m = row;
    if (gp_store_put_throughput(st, &m->t, err))
        return err->code;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_PUT_MEASUREMENT, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, m->t.gpu, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, m->t.profile, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 3, m->t.value);
    sqlite3_bind_text(s, 4, m->t.unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, m->t.source, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, m->engine, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, m->counted, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 8, m->window_from, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 9, m->window_to, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 10, m->tokens);
    sqlite3_bind_double(s, 11, m->gpu_hours);
    sqlite3_bind_double(s, 12, m->busy_share);
    sqlite3_bind_double(s, 13, m->mean_util);
    sqlite3_bind_int(s, 14, m->pods);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "write a throughput measurement");
}

gp_status gp_store_put_measurements(gp_store *st, const gp_tp_measurement *m, int n, gp_err *err) {
    return store_each_in_tx(st, m, n > 0 ? (size_t)n : 0, sizeof *m, put_measurement, err);
}

static const char SQL_MEASUREMENTS[] =
    "SELECT gpu, profile, value, unit, source, engine, counted, window_from, window_to, tokens, "
    "gpu_hours, busy_share, mean_util, pods, measured_at FROM throughput_measurement "
    "WHERE (?1 IS NULL OR profile = ?1) AND (?2 IS NULL OR gpu = ?2) ORDER BY gpu, profile, id";

gp_status gp_store_measurements(gp_store *st, const char *profile, const char *gpu,
                                int (*fn)(const gp_tp_measurement *, void *), void *arg,
                                gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_MEASUREMENTS, &s, err))
        return err->code;
    if (profile)
        sqlite3_bind_text(s, 1, profile, -1, SQLITE_STATIC);
    if (gpu)
        sqlite3_bind_text(s, 2, gpu, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_tp_measurement m;
        memset(&m, 0, sizeof m);
        m.t.kind = GP_TP_MEASURED;
        column_text(s, 0, m.t.gpu, sizeof m.t.gpu);
        column_text(s, 1, m.t.profile, sizeof m.t.profile);
        m.t.value = sqlite3_column_double(s, 2);
        column_text(s, 3, m.t.unit, sizeof m.t.unit);
        column_text(s, 4, m.t.source, sizeof m.t.source);
        column_text(s, 5, m.engine, sizeof m.engine);
        column_text(s, 6, m.counted, sizeof m.counted);
        column_text(s, 7, m.window_from, sizeof m.window_from);
        column_text(s, 8, m.window_to, sizeof m.window_to);
        m.tokens = sqlite3_column_double(s, 9);
        m.gpu_hours = sqlite3_column_double(s, 10);
        m.busy_share = sqlite3_column_double(s, 11);
        m.mean_util = sqlite3_column_double(s, 12);
        m.pods = sqlite3_column_int(s, 13);
        column_text(s, 14, m.measured_at, sizeof m.measured_at);
        snprintf(m.t.as_of, sizeof m.t.as_of, "%.10s", m.window_to);
        if (fn(&m, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the throughput measurements");
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
