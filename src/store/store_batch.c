/* Batch runs (store_batch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_batch.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char SQL_RUN[] =
    "INSERT INTO batch_run(day, started_at, out_dir, scenarios, flipped, summary) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char SQL_PRICE[] =
    "INSERT INTO batch_price(run_id, scenario, option, catalog, pricing, hourly, effective_from, "
    "source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char SQL_MEASURE[] =
    "INSERT INTO batch_measure(run_id, scenario, measured, gpus, utilization, gpu_idle_w, "
    "gpu_tdp_w) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char SQL_LATEST[] =
    "SELECT summary, day FROM batch_run WHERE day <= ?1 ORDER BY day DESC, id DESC LIMIT 1";
static const char SQL_FORGET[] =
    "DELETE FROM batch_run WHERE day = ?1 AND started_at = ?2 AND out_dir = ?3";
static const char SQL_BEFORE[] =
    "SELECT day, started_at, out_dir FROM batch_run WHERE day < ?1 ORDER BY day, id";
static const char SQL_KNOWN[] =
    "SELECT 1 FROM batch_run WHERE day = ?1 AND started_at = ?2 AND out_dir = ?3 LIMIT 1";

static gp_status step_done(gp_store *st, sqlite3_stmt *s, const char *what, gp_err *err) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, what);
}

static gp_status rows(gp_store *st, long long id, const gp_batch_summary *sum, sqlite3_stmt *pr,
                      sqlite3_stmt *me, gp_err *err) {
    for (size_t i = 0; i < sum->n; i++) {
        const gp_batch_scenario *s = &sum->s[i];
        for (int k = 0; k < s->n_prices; k++) {
            const gp_batch_price *p = &s->prices[k];
            sqlite3_bind_int64(pr, 1, id);
            sqlite3_bind_text(pr, 2, s->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(pr, 3, p->option, -1, SQLITE_STATIC);
            sqlite3_bind_text(pr, 4, p->catalog, -1, SQLITE_STATIC);
            sqlite3_bind_text(pr, 5, p->pricing, -1, SQLITE_STATIC);
            sqlite3_bind_double(pr, 6, p->hourly);
            sqlite3_bind_text(pr, 7, p->effective_from, -1, SQLITE_STATIC);
            sqlite3_bind_text(pr, 8, p->source, -1, SQLITE_STATIC);
            if (step_done(st, pr, "record a batch price", err))
                return err->code;
        }
        sqlite3_bind_int64(me, 1, id);
        sqlite3_bind_text(me, 2, s->name, -1, SQLITE_STATIC);
        sqlite3_bind_int(me, 3, s->measured);
        sqlite3_bind_double(me, 4, s->gpus);
        sqlite3_bind_double(me, 5, s->utilization);
        sqlite3_bind_double(me, 6, s->gpu_idle_w);
        sqlite3_bind_double(me, 7, s->gpu_tdp_w);
        if (step_done(st, me, "record a batch measure", err))
            return err->code;
    }
    return GP_OK;
}

/* A batch run to record; the id of its row. */
typedef struct batch_run {
    const gp_batch_record *rec;
    long long id;
} batch_run;

static gp_status record_run(gp_store *st, void *arg, gp_err *err) {
    batch_run *br = arg;
    const gp_batch_record *rec = br->rec;
    const gp_batch_summary *sum = rec->summary;
    sqlite3_stmt *run = NULL, *pr = NULL, *me = NULL;
    gp_status res = GP_OK;
    if (store_prepare(st, SQL_RUN, &run, err) || store_prepare(st, SQL_PRICE, &pr, err) ||
        store_prepare(st, SQL_MEASURE, &me, err)) {
        res = err->code;
        goto done;
    }
    sqlite3_bind_text(run, 1, sum->day, -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 2, sum->started_at, -1, SQLITE_STATIC);
    sqlite3_bind_text(run, 3, rec->out_dir, -1, SQLITE_STATIC);
    sqlite3_bind_int64(run, 4, (long long)sum->n);
    sqlite3_bind_int(run, 5, rec->flipped);
    sqlite3_bind_text(run, 6, rec->summary_json, -1, SQLITE_STATIC);
    if (step_done(st, run, "record a batch run", err)) {
        res = err->code;
        goto done;
    }
    br->id = sqlite3_last_insert_rowid(st->db);
    res = rows(st, br->id, sum, pr, me, err);
done:
    sqlite3_finalize(run);
    sqlite3_finalize(pr);
    sqlite3_finalize(me);
    return res;
}

gp_status gp_store_batch_record(gp_store *st, const gp_batch_record *rec, long long *id,
                                gp_err *err) {
    batch_run br = {rec, 0};
    if (gp_store_in_tx(st, record_run, &br, err))
        return err->code;
    if (id)
        *id = br.id;
    return GP_OK;
}

gp_status gp_store_batch_latest(gp_store *st, const char *day, char **summary, char *day_out,
                                gp_err *err) {
    sqlite3_stmt *s = NULL;
    *summary = NULL;
    if (store_prepare(st, SQL_LATEST, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, day ? day : "9999-12-31", -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        *summary = gp_xstrdup((const char *)sqlite3_column_text(s, 0));
        if (day_out)
            snprintf(day_out, 11, "%s", (const char *)sqlite3_column_text(s, 1));
    } else if (rc == SQLITE_DONE) {
        res = gp_errorf(err, GP_E_NOTFOUND, NULL, "no batch run recorded%s%s",
                        day ? " on or before " : "", day ? day : "");
    } else {
        res = store_fail(st, err, "read a batch run");
    }
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_batch_forget(gp_store *st, const char *day, const char *started_at,
                                const char *out_dir, int *n, gp_err *err) {
    sqlite3_stmt *s = NULL;
    *n = 0;
    if (store_prepare(st, SQL_FORGET, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, day, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, started_at, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, out_dir, -1, SQLITE_STATIC);
    gp_status res =
        sqlite3_step(s) == SQLITE_DONE ? GP_OK : store_fail(st, err, "forget a batch run");
    if (res == GP_OK)
        *n = sqlite3_changes(st->db);
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_batch_runs_before(gp_store *st, const char *before,
                                     int (*f)(const gp_batch_run_ref *run, void *arg), void *arg,
                                     gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_BEFORE, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, before, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_batch_run_ref run = {(const char *)sqlite3_column_text(s, 0),
                                (const char *)sqlite3_column_text(s, 1),
                                (const char *)sqlite3_column_text(s, 2)};
        if (f(&run, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the batch runs");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_batch_known(gp_store *st, const char *day, const char *started_at,
                               const char *out_dir, bool *yes, gp_err *err) {
    sqlite3_stmt *s = NULL;
    *yes = false;
    if (store_prepare(st, SQL_KNOWN, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, day, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, started_at, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, out_dir, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    *yes = rc == SQLITE_ROW;
    gp_status res =
        rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the batch runs");
    sqlite3_finalize(s);
    return res;
}
