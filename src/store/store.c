/* SQLite store. Only this folder calls sqlite3_* (docs/architecture.md, Layers). */
#include "gpuplan/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/embedded.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static gp_status pragma_int(gp_store *st, const char *sql, int *out, gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, sql, &s, err))
        return err->code;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int(s, 0);
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) {
        if (rc == SQLITE_NOTADB)
            return gp_errorf(err, GP_E_INPUT, st->path, "not an SQLite database");
        return store_fail(st, err, "read header");
    }
    return GP_OK;
}

int gp_store_schema_version(void) {
    int n = 0;
    while (gp_migrations[n].name)
        n++;
    return n;
}

static gp_status check_header(gp_store *st, int *version, gp_err *err) {
    int app = 0, objects = 0;
    if (pragma_int(st, "PRAGMA application_id", &app, err) ||
        pragma_int(st, "PRAGMA user_version", version, err) ||
        pragma_int(st, "SELECT count(*) FROM sqlite_schema", &objects, err))
        return err->code;
    if (app != GP_APPLICATION_ID && (app != 0 || objects > 0))
        return gp_errorf(err, GP_E_INPUT, st->path,
                         "not a gpuplan database (application_id 0x%08x); refusing to touch it",
                         (unsigned)app);
    if (*version > gp_store_schema_version())
        return gp_errorf(err, GP_E_INPUT, st->path,
                         "made by a newer gpuplan (schema %d; this build knows up to %d); "
                         "upgrade gpuplan, the file was left untouched",
                         *version, gp_store_schema_version());
    return GP_OK;
}

/* The migrations from the version the header holds (re-read under the write lock) to this
 * build's, with the conversions the versions between them ask for. */
static gp_status migrate_locked(gp_store *st, void *arg, gp_err *err) {
    (void)arg;
    int have = 0, want = gp_store_schema_version();
    if (check_header(st, &have, err)) /* re-read under the lock */
        return err->code;
    for (int v = have; v < want; v++) {
        if (store_exec(st, (const char *)gp_migrations[v].data, err)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return gp_errorf(err, GP_E_DB, st->path, "migration %s: %s", gp_migrations[v].name,
                             msg);
        }
    }
    /* 009_chunks.sql made the tables; the rows of the days before today become chunks here,
     * in the same transaction, because SQL cannot write the chunk encoding. */
    size_t sealed;
    if (have < GP_SCHEMA_CHUNKS && want >= GP_SCHEMA_CHUNKS &&
        store_seal(st, (int64_t)time(NULL) * 1000, SIZE_MAX, &sealed, err))
        return err->code;
    /* 010_hour_chunks.sql: the util_hour rows of the days sealed before it become hour chunks
     * (days sealed just above took theirs along). */
    if (have < GP_SCHEMA_HOUR_CHUNKS && want >= GP_SCHEMA_HOUR_CHUNKS &&
        store_hours_convert(st, err))
        return err->code;
    /* 011_hour_rollup_chunks.sql: the same for the hourly rollups. */
    if (have < GP_SCHEMA_1H_CHUNKS && want >= GP_SCHEMA_1H_CHUNKS &&
        store_chunks_convert_1h(st, err))
        return err->code;
    /* 012_series_last.sql: each series' last chunked bucket. A database converted just above
     * got those rows as its chunks were written; filling again gives the same rows. */
    if (have < GP_SCHEMA_SERIES_LAST && want >= GP_SCHEMA_SERIES_LAST && store_last_fill(st, err))
        return err->code;
    /* 013_fleet_chunks.sql: fleet_5m's rows of the days before today become day chunks (a new
     * database has none: its days are sealed by retention and imports). */
    if (have > 0 && have < GP_SCHEMA_FLEET_CHUNKS && want >= GP_SCHEMA_FLEET_CHUNKS &&
        store_fleet_seal(st, (int64_t)time(NULL) * 1000, err))
        return err->code;
    if (have == want)
        return GP_OK;
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d; PRAGMA application_id = %d", want,
             GP_APPLICATION_ID);
    return store_exec(st, sql, err);
}

/* seen: the version check_header read before; a current schema takes no write lock, so a
 * read-only command is not held up by a long write elsewhere. */
static gp_status migrate(gp_store *st, int seen, gp_err *err) {
    if (seen == gp_store_schema_version())
        return GP_OK;
    return gp_store_in_tx(st, migrate_locked, NULL, err);
}

gp_status gp_store_open(const char *path, gp_store **out, gp_err *err) {
    *out = NULL;
    /* Create the file ourselves so it is 0600 from the first byte; SQLite gives its -wal and
     * -shm files the same mode. Only when it is new: close() on a file this process already
     * has open through SQLite would drop every POSIX lock the process holds on it (a second
     * connection, as the TUI's worker opens, would let another process delete the live WAL). */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST)
        return gp_errorf(err, GP_E_IO, path, "cannot open database: %s", strerror(errno));

    gp_store *st = gp_xcalloc(1, sizeof *st);
    st->path = gp_xstrdup(path);
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        store_fail(st, err, "open");
        goto fail;
    }
    sqlite3_busy_timeout(st->db, 5000);
    sqlite3_extended_result_codes(st->db, 0);
    if (store_chunks_open(st, err) || store_fleet_open(st, err))
        goto fail;
    int version = 0;
    /* Look before writing anything: a newer or foreign file must stay byte-for-byte as is. */
    if (check_header(st, &version, err))
        goto fail;
    /* None of these takes effect inside a transaction, so all come before migrate(). WAL
     * with synchronous=NORMAL cannot corrupt on a crash (a kill -9 loses at most the
     * transaction in flight); a 16 MB page cache keeps bulk writes off the disk. */
    /* A new file gets 16 KB pages: a day of a noisy series packs into a 2 KB chunk, and two of
     * those do not fit a 4 KB page (docs/telemetry.md, "Pages of 16 KB"). */
    if ((version == 0 && store_exec(st, "PRAGMA page_size = 16384", err)) ||
        store_exec(st, "PRAGMA journal_mode = WAL", err) ||
        store_exec(st, "PRAGMA synchronous = NORMAL", err) ||
        store_exec(st, "PRAGMA cache_size = -16384", err) ||
        store_exec(st, "PRAGMA foreign_keys = ON", err) || migrate(st, version, err))
        goto fail;
    *out = st;
    return GP_OK;
fail:
    gp_store_close(st);
    return err->code;
}

/* "file:" URI of path with immutable=1, for a database on read-only media. */
static void immutable_uri(const char *path, char *out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < cap; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._-~", *p))
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", *p);
    }
    snprintf(out + n, cap - n, "?immutable=1");
}

static gp_status open_ro(const char *path, bool immutable, gp_store **out, int *version,
                         gp_err *err) {
    gp_store *st = gp_xcalloc(1, sizeof *st);
    st->path = gp_xstrdup(path);
    char uri[8192];
    immutable_uri(path, uri, sizeof uri);
    int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0);
    if (sqlite3_open_v2(immutable ? uri : path, &st->db, flags, NULL) != SQLITE_OK) {
        store_fail(st, err, "open");
        goto fail;
    }
    sqlite3_busy_timeout(st->db, 5000);
    sqlite3_extended_result_codes(st->db, 0);
    if (store_chunks_open(st, err) || store_fleet_open(st, err) || check_header(st, version, err))
        goto fail;
    *out = st;
    return GP_OK;
fail:
    if (st->db &&
        (sqlite3_errcode(st->db) == SQLITE_CANTOPEN || sqlite3_errcode(st->db) == SQLITE_READONLY))
        err->code = GP_E_IO; /* no -shm to be had: told apart from a bad file by the caller */
    gp_store_close(st);
    return err->code;
}

gp_status gp_store_open_readonly(const char *path, gp_store **out, gp_err *err) {
    *out = NULL;
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return gp_store_open(path, out, err); /* nothing to read yet: create it */
    int version = 0;
    gp_status rc = open_ro(path, false, out, &version, err);
    /* A WAL database whose folder is read-only (a read-only mount, a folder without write
     * permission) cannot get its -shm file: nobody can be writing it there, so it is read as
     * immutable, unless its -wal file holds changes not yet in the database, which an immutable
     * reader would not see. */
    if (rc == GP_E_IO) {
        char wal[4096];
        struct stat sb;
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (stat(wal, &sb) == 0 && sb.st_size > 0)
            return gp_errorf(err, GP_E_IO, wal,
                             "holds changes not yet in the database, and they cannot be read "
                             "without writing (no -shm file can be made here): open the "
                             "database once where it can be written");
        rc = open_ro(path, true, out, &version, err);
    }
    if (rc != GP_OK)
        return rc;
    if (version < gp_store_schema_version()) { /* an older schema: migrating is a write */
        gp_store_close(*out);
        *out = NULL;
        return gp_store_open(path, out, err);
    }
    return GP_OK;
}

bool gp_store_read_only(const gp_store *st) {
    return sqlite3_db_readonly(st->db, "main") == 1;
}

bool gp_store_write_refused(const gp_store *st) {
    return st->failed_rc == SQLITE_READONLY;
}

void gp_store_close(gp_store *st) {
    if (!st)
        return;
    store_hours_done(st);
    store_fleet_done(st);
    store_chunks_done(st);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

/* ---- transactions ----------------------------------------------------------------------- */

gp_status gp_store_begin(gp_store *st, gp_err *err) {
    return store_exec(st, "BEGIN IMMEDIATE", err);
}

gp_status gp_store_commit(gp_store *st, gp_err *err) {
    return store_exec(st, "COMMIT", err);
}

void gp_store_rollback(gp_store *st) {
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- scenarios ------------------------------------------------------------------------- */

static const char SQL_SCENARIO_UPSERT[] =
    "INSERT INTO scenario(name) VALUES (?1) ON CONFLICT(name) DO NOTHING";
static const char SQL_SCENARIO_NEXT[] =
    "SELECT s.id, coalesce(max(v.version), 0) + 1 FROM scenario s "
    "LEFT JOIN scenario_version v ON v.scenario_id = s.id WHERE s.name = ?1 GROUP BY s.id";
static const char SQL_VERSION_INSERT[] =
    "INSERT INTO scenario_version(scenario_id, version, json) VALUES (?1, ?2, ?3)";

/* A scenario's name and the JSON of its next version; the version it got. */
typedef struct scenario_save {
    const char *name, *json;
    int version;
} scenario_save;

static gp_status save_version(gp_store *st, void *arg, gp_err *err) {
    scenario_save *sv = arg;
    sqlite3_stmt *up = NULL, *next = NULL, *ins = NULL;
    gp_status res = GP_OK;
    if (store_prepare(st, SQL_SCENARIO_UPSERT, &up, err) ||
        store_prepare(st, SQL_SCENARIO_NEXT, &next, err) ||
        store_prepare(st, SQL_VERSION_INSERT, &ins, err)) {
        res = err->code;
        goto done;
    }
    sqlite3_bind_text(up, 1, sv->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(next, 1, sv->name, -1, SQLITE_STATIC);
    if (sqlite3_step(up) != SQLITE_DONE || sqlite3_step(next) != SQLITE_ROW) {
        res = store_fail(st, err, "save scenario");
        goto done;
    }
    sv->version = sqlite3_column_int(next, 1);
    sqlite3_bind_int64(ins, 1, sqlite3_column_int64(next, 0));
    sqlite3_bind_int(ins, 2, sv->version);
    sqlite3_bind_text(ins, 3, sv->json, -1, SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE)
        res = store_fail(st, err, "save scenario");
done:
    sqlite3_finalize(up);
    sqlite3_finalize(next);
    sqlite3_finalize(ins);
    return res;
}

gp_status gp_store_scenario_save(gp_store *st, const char *name, const char *json, int *version,
                                 gp_err *err) {
    scenario_save sv = {name, json, 0};
    if (gp_store_in_tx(st, save_version, &sv, err))
        return err->code;
    *version = sv.version;
    return GP_OK;
}

static const char SQL_VERSION_GET[] =
    "SELECT v.json, v.version, v.saved_at FROM scenario_version v "
    "JOIN scenario s ON s.id = v.scenario_id "
    "WHERE s.name = ?1 AND (?2 = 0 OR v.version = ?2) ORDER BY v.version DESC LIMIT 1";

gp_status gp_store_scenario_get(gp_store *st, const char *name, int version, char **json,
                                int *version_out, char *saved_at, gp_err *err) {
    *json = NULL;
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_VERSION_GET, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, version);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW) {
        *json = gp_xstrdup((const char *)sqlite3_column_text(s, 0));
        if (version_out)
            *version_out = sqlite3_column_int(s, 1);
        if (saved_at)
            snprintf(saved_at, 21, "%s", (const char *)sqlite3_column_text(s, 2));
    } else if (rc == SQLITE_DONE) {
        if (version)
            res = gp_errorf(err, GP_E_NOTFOUND, name, "no version %d of scenario \"%s\"", version,
                            name);
        else
            res = gp_errorf(err, GP_E_NOTFOUND, name, "no scenario named \"%s\"", name);
    } else {
        res = store_fail(st, err, "read scenario");
    }
    sqlite3_finalize(s);
    return res;
}

static const char SQL_SCENARIO_LIST[] =
    "SELECT s.name, count(v.version), s.created_at, max(v.saved_at) FROM scenario s "
    "JOIN scenario_version v ON v.scenario_id = s.id GROUP BY s.id ORDER BY s.name";

gp_status gp_store_scenario_list(gp_store *st, int (*fn)(const gp_scenario_info *, void *),
                                 void *arg, gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_SCENARIO_LIST, &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_scenario_info info = {(const char *)sqlite3_column_text(s, 0), sqlite3_column_int(s, 1),
                                 (const char *)sqlite3_column_text(s, 2),
                                 (const char *)sqlite3_column_text(s, 3)};
        if (fn(&info, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "list scenarios");
    sqlite3_finalize(s);
    return res;
}

static const char SQL_VERSION_LIST[] =
    "SELECT v.version, v.saved_at FROM scenario_version v JOIN scenario s ON s.id = "
    "v.scenario_id WHERE s.name = ?1 ORDER BY v.version";

gp_status gp_store_scenario_versions(gp_store *st, const char *name,
                                     int (*fn)(int version, const char *saved_at, void *),
                                     void *arg, gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_VERSION_LIST, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc, rows = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        rows++;
        if (fn(sqlite3_column_int(s, 0), (const char *)sqlite3_column_text(s, 1), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = GP_OK;
    if (rc != SQLITE_DONE)
        res = store_fail(st, err, "list versions");
    else if (rows == 0)
        res = gp_errorf(err, GP_E_NOTFOUND, name, "no scenario named \"%s\"", name);
    sqlite3_finalize(s);
    return res;
}

static const char SQL_SCENARIO_RM[] = "DELETE FROM scenario WHERE name = ?1";

gp_status gp_store_scenario_rm(gp_store *st, const char *name, gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_SCENARIO_RM, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc != SQLITE_DONE)
        res = store_fail(st, err, "remove scenario");
    else if (sqlite3_changes(st->db) == 0)
        res = gp_errorf(err, GP_E_NOTFOUND, name, "no scenario named \"%s\"", name);
    sqlite3_finalize(s);
    return res;
}

static const char SQL_SCENARIO_RENAME[] = "UPDATE scenario SET name = ?2 WHERE name = ?1";

gp_status gp_store_scenario_rename(gp_store *st, const char *from, const char *to, gp_err *err) {
    sqlite3_stmt *s = NULL;
    if (store_prepare(st, SQL_SCENARIO_RENAME, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, to, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        res = gp_errorf(err, GP_E_INPUT, to, "a scenario named \"%s\" exists", to);
    else if (rc != SQLITE_DONE)
        res = store_fail(st, err, "rename scenario");
    else if (sqlite3_changes(st->db) == 0)
        res = gp_errorf(err, GP_E_NOTFOUND, from, "no scenario named \"%s\"", from);
    sqlite3_finalize(s);
    return res;
}

/* The busy timeout's 5 s in 10 ms naps, given up when the flag is set. */
static int busy_or_stop(void *arg, int count) {
    volatile sig_atomic_t *stop = arg;
    if (*stop || count >= 500)
        return 0;
    sqlite3_sleep(10);
    return !*stop;
}

void gp_store_stop_on(gp_store *st, volatile sig_atomic_t *stop) {
    if (st && st->db && stop)
        sqlite3_busy_handler(st->db, busy_or_stop, (void *)stop);
}
