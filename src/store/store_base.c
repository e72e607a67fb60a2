/* The store's base: failures, statements, and the day arithmetic of chunks. Every other file
 * of src/store calls these and these call none of them, so calls between the store's files
 * run one way (docs/architecture.md, "A sample's life"). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

gp_status store_fail(gp_store *st, gp_err *err, const char *what) {
    st->failed_rc = sqlite3_errcode(st->db) & 0xff;
    return gp_errorf(err, GP_E_DB, st->path, "%s: %s", what, sqlite3_errmsg(st->db));
}

void store_day_text(int64_t day_ms, char out[16]) {
    time_t t = (time_t)(day_ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, 16, "%Y-%m-%d", &tm))
        snprintf(out, 16, "%lld ms", (long long)day_ms);
}

void store_chunk_where(char *out, size_t cap, const char *table, long long series, int64_t day_ms) {
    char day[16];
    store_day_text(day_ms, day);
    snprintf(out, cap, "%s, series %lld, day %s", table, series, day);
}

gp_status store_damaged(gp_store *st, gp_err *err) {
    char what[sizeof err->where + sizeof err->msg + 2];
    snprintf(what, sizeof what, "%s%s%s", err->where, err->where[0] ? ": " : "", err->msg);
    return gp_errorf(err, GP_E_DB, st->path, "%s", what);
}

gp_status store_prepare(gp_store *st, const char *sql, sqlite3_stmt **out, gp_err *err) {
    const char *tail = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, out, &tail) != SQLITE_OK)
        return store_fail(st, err, "prepare");
    if (tail && *tail) {
        sqlite3_finalize(*out);
        *out = NULL;
        return gp_errorf(err, GP_E_DB, st->path, "statement has an unused tail: %s", tail);
    }
    return GP_OK;
}

gp_status store_exec(gp_store *st, const char *sql, gp_err *err) {
    char *msg = NULL;
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        st->failed_rc = rc & 0xff;
        gp_errorf(err, GP_E_DB, st->path, "%s", msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return GP_E_DB;
    }
    return GP_OK;
}

/* ROLLBACK if a transaction is open; returns err->code. */
static gp_status store_rollback(gp_store *st, gp_err *err) {
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return err->code;
}

gp_status gp_store_in_tx(gp_store *st, gp_status (*fn)(gp_store *st, void *arg, gp_err *err),
                         void *arg, gp_err *err) {
    if (store_exec(st, "BEGIN IMMEDIATE", err))
        return err->code;
    if (fn(st, arg, err) || store_exec(st, "COMMIT", err))
        return store_rollback(st, err);
    return GP_OK;
}

gp_status store_each(gp_store *st, const void *rows, size_t n, size_t size,
                     gp_status (*put)(gp_store *st, const void *row, gp_err *err), gp_err *err) {
    for (size_t i = 0; i < n; i++)
        if (put(st, (const char *)rows + i * size, err))
            return err->code;
    return GP_OK;
}

/* store_each's arguments through gp_store_in_tx. */
typedef struct each_args {
    const void *rows;
    size_t n, size;
    gp_status (*put)(gp_store *st, const void *row, gp_err *err);
} each_args;

static gp_status each_tx(gp_store *st, void *arg, gp_err *err) {
    const each_args *a = arg;
    return store_each(st, a->rows, a->n, a->size, a->put, err);
}

gp_status store_each_in_tx(gp_store *st, const void *rows, size_t n, size_t size,
                           gp_status (*put)(gp_store *st, const void *row, gp_err *err),
                           gp_err *err) {
    each_args a = {rows, n, size, put};
    return gp_store_in_tx(st, each_tx, &a, err);
}

int64_t store_day_of(int64_t ms) {
    return ms - ((ms % GP_DAY_MS) + GP_DAY_MS) % GP_DAY_MS;
}

int64_t store_hour_of(int64_t ms) {
    return ms - ((ms % GP_HOUR_MS) + GP_HOUR_MS) % GP_HOUR_MS;
}

int64_t store_day_id(long long series, int64_t ms) {
    int64_t day = store_day_of(ms) / GP_DAY_MS;
    day = day < 0 ? 0 : day >= STORE_DAY_ID_SPAN ? STORE_DAY_ID_SPAN - 1 : day;
    return ((int64_t)series << STORE_DAY_BITS) + day;
}

gp_status store_day_check(gp_store *st, int64_t day_ms, const char *what, gp_err *err) {
    if (day_ms < 0 || day_ms / GP_DAY_MS >= STORE_DAY_ID_SPAN)
        return gp_errorf(err, GP_E_INPUT, st->path, "%s at %lld ms, before 1970 or past 4840", what,
                         (long long)day_ms);
    return GP_OK;
}
