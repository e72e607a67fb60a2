/* The SQLite store: creation, migrations, refusal of newer or foreign files, scenarios. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../../src/store/store_int.h"
#include "gpuplan/store.h"
#include "gpuplan/store_catalog.h"
#include "testutil.h"

static char dir[] = "/tmp/gpuplan-store-XXXXXX";
static char path[256];

static int setup(void **state) {
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    static const char *const names[] = {"new.db", "newer.db", "other.db",  "text.db",
                                        "sc.db",  "two.db",   "rename.db", "tx.db"};
    static const char *const tails[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (size_t k = 0; k < 3; k++) {
            char p[300];
            snprintf(p, sizeof p, "%s/%s%s", dir, names[i], tails[k]);
            unlink(p);
        }
    }
    return rmdir(dir);
}

static void fresh(const char *name) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static void test_create_mode_and_pragmas(void **state) {
    (void)state;
    fresh("new.db");
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    gp_store_close(st);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(s, 0), gp_store_schema_version());
    sqlite3_finalize(s);
    sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &s, NULL);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(s, 0), GP_APPLICATION_ID);
    sqlite3_finalize(s);
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
    sqlite3_finalize(s);
    sqlite3_close(db);
    /* Opening again migrates nothing and succeeds. */
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    gp_store_close(st);
}

static long file_size(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static void test_newer_schema_is_refused_untouched(void **state) {
    (void)state;
    fresh("newer.db");
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    gp_store_close(st);
    sqlite3 *db;
    sqlite3_open(path, &db);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", gp_store_schema_version() + 1);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    long before = file_size(path);
    assert_int_equal(gp_store_open(path, &st, &err), GP_E_INPUT);
    assert_null(st);
    assert_non_null(strstr(err.msg, "newer gpuplan"));
    assert_int_equal(file_size(path), before);
}

static void test_foreign_files_are_refused(void **state) {
    (void)state;
    fresh("other.db");
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(db);
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "not a gpuplan database"));
    fresh("text.db");
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    const char junk[] = "this is not a database, not even close; it is plain text.......\n";
    for (int i = 0; i < 100; i++)
        assert_int_equal(write(fd, junk, sizeof junk - 1), (ssize_t)(sizeof junk - 1));
    close(fd);
    assert_int_not_equal(gp_store_open(path, &st, &err), GP_OK);
    assert_null(st);
}

static int count_cb(const gp_scenario_info *info, void *arg) {
    int *n = arg;
    (*n)++;
    assert_string_equal(info->name, "plan");
    assert_int_equal(info->versions, 2);
    return 0;
}

static void test_scenarios_keep_versions(void **state) {
    (void)state;
    fresh("sc.db");
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    int v = 0;
    assert_int_equal(gp_store_scenario_save(st, "plan", "{\"v\": 1}", &v, &err), GP_OK);
    assert_int_equal(v, 1);
    assert_int_equal(gp_store_scenario_save(st, "plan", "{\"v\": 2}", &v, &err), GP_OK);
    assert_int_equal(v, 2);
    char *json = NULL;
    int got = 0;
    assert_int_equal(gp_store_scenario_get(st, "plan", 0, &json, &got, NULL, &err), GP_OK);
    assert_string_equal(json, "{\"v\": 2}");
    assert_int_equal(got, 2);
    free(json);
    assert_int_equal(gp_store_scenario_get(st, "plan", 1, &json, &got, NULL, &err), GP_OK);
    assert_string_equal(json, "{\"v\": 1}");
    free(json);
    assert_int_equal(gp_store_scenario_get(st, "plan", 3, &json, &got, NULL, &err), GP_E_NOTFOUND);
    assert_null(json);
    int n = 0;
    assert_int_equal(gp_store_scenario_list(st, count_cb, &n, &err), GP_OK);
    assert_int_equal(n, 1);
    assert_int_equal(gp_store_scenario_rm(st, "plan", &err), GP_OK);
    assert_int_equal(gp_store_scenario_rm(st, "plan", &err), GP_E_NOTFOUND);
    assert_int_equal(gp_store_scenario_get(st, "plan", 0, &json, &got, NULL, &err), GP_E_NOTFOUND);
    gp_store_close(st);
}

static void test_scenario_rename(void **state) {
    (void)state;
    fresh("rename.db");
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    int v = 0;
    assert_int_equal(gp_store_scenario_save(st, "plan", "{\"v\": 1}", &v, &err), GP_OK);
    assert_int_equal(gp_store_scenario_save(st, "plan", "{\"v\": 2}", &v, &err), GP_OK);
    assert_int_equal(gp_store_scenario_save(st, "other", "{\"o\": 1}", &v, &err), GP_OK);
    /* Every version moves with the name. */
    assert_int_equal(gp_store_scenario_rename(st, "plan", "budget", &err), GP_OK);
    char *json = NULL;
    int got = 0;
    assert_int_equal(gp_store_scenario_get(st, "budget", 1, &json, &got, NULL, &err), GP_OK);
    assert_string_equal(json, "{\"v\": 1}");
    free(json);
    assert_int_equal(gp_store_scenario_get(st, "budget", 0, &json, &got, NULL, &err), GP_OK);
    assert_int_equal(got, 2);
    free(json);
    assert_int_equal(gp_store_scenario_get(st, "plan", 0, &json, &got, NULL, &err), GP_E_NOTFOUND);
    /* A name in use is refused and nothing changes; a missing one is not found. */
    assert_int_equal(gp_store_scenario_rename(st, "budget", "other", &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "exists"));
    assert_int_equal(gp_store_scenario_get(st, "other", 0, &json, &got, NULL, &err), GP_OK);
    assert_string_equal(json, "{\"o\": 1}");
    free(json);
    assert_int_equal(gp_store_scenario_get(st, "budget", 0, &json, &got, NULL, &err), GP_OK);
    free(json);
    assert_int_equal(gp_store_scenario_rename(st, "nothing", "x", &err), GP_E_NOTFOUND);
    /* The next save of the new name continues its history. */
    assert_int_equal(gp_store_scenario_save(st, "budget", "{\"v\": 3}", &v, &err), GP_OK);
    assert_int_equal(v, 3);
    gp_store_close(st);
}

/* Another process (this program run again; a forked child would share this one's SQLite
 * state): "read" opens the file, reads and closes; "max" prints the newest version saved. */
static int other_process(const char *what) {
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "test_store", "--other", what, path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int other_main(const char *what, const char *file) {
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int max = -1;
    if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT max(version) FROM scenario_version", -1, &q, NULL) ==
            SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        max = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return strcmp(what, "max") == 0 ? max : max >= 0 ? 0 : 100;
}

/* Two connections in one process (the TUI and its worker): opening the second must not drop
 * the first one's locks, or another process closing the file deletes the live WAL and every
 * later write of this process is lost to everyone else. */
static void test_second_connection_keeps_the_wal(void **state) {
    (void)state;
    fresh("two.db");
    gp_store *a = NULL, *b = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &a, &err), GP_OK);
    int v = 0;
    assert_int_equal(gp_store_scenario_save(a, "plan", "{\"v\": 1}", &v, &err), GP_OK);
    assert_int_equal(gp_store_open(path, &b, &err), GP_OK);
    assert_int_equal(other_process("read"), 0);
    assert_int_equal(gp_store_scenario_save(a, "plan", "{\"v\": 2}", &v, &err), GP_OK);
    assert_int_equal(other_process("max"), 2);
    gp_store_close(b);
    gp_store_close(a);
}

/* A row for store_each_in_tx: a meta key and value; a NULL key fails like a write would. */
typedef struct kv {
    const char *key, *value;
} kv;

static gp_status put_kv(gp_store *st, const void *row, gp_err *err) {
    const kv *r = row;
    if (!r->key)
        return gp_errorf(err, GP_E_DB, "test", "no key");
    return gp_store_meta_set(st, r->key, r->value, err);
}

static gp_status fail_after_one(gp_store *st, void *arg, gp_err *err) {
    if (gp_store_meta_set(st, arg, "kept?", err))
        return err->code;
    return gp_errorf(err, GP_E_INPUT, "test", "refused");
}

static void assert_meta(gp_store *st, const char *key, const char *want) {
    char *v = NULL;
    gp_err err;
    assert_int_equal(gp_store_meta_get(st, key, &v, &err), GP_OK);
    if (want)
        assert_string_equal(v, want);
    else
        assert_null(v);
    free(v);
}

/* store_each_in_tx writes every row or none; gp_store_in_tx keeps nothing of a function that
 * fails and hands on its error. */
static void test_each_in_one_transaction(void **state) {
    (void)state;
    fresh("tx.db");
    gp_store *st = NULL;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    const kv good[] = {{"tx_a", "1"}, {"tx_b", "2"}, {"tx_c", "3"}};
    assert_int_equal(store_each_in_tx(st, good, 3, sizeof good[0], put_kv, &err), GP_OK);
    assert_meta(st, "tx_a", "1");
    assert_meta(st, "tx_c", "3");
    const kv bad[] = {{"tx_a", "changed"}, {"tx_d", "4"}, {NULL, NULL}, {"tx_e", "5"}};
    assert_int_equal(store_each_in_tx(st, bad, 4, sizeof bad[0], put_kv, &err), GP_E_DB);
    assert_string_equal(err.msg, "no key");
    assert_meta(st, "tx_a", "1"); /* rolled back: the first rows too */
    assert_meta(st, "tx_d", NULL);
    assert_meta(st, "tx_e", NULL); /* stopped at the failing row */
    assert_int_equal(gp_store_in_tx(st, fail_after_one, "tx_f", &err), GP_E_INPUT);
    assert_string_equal(err.msg, "refused");
    assert_meta(st, "tx_f", NULL);
    assert_int_equal(store_each_in_tx(st, good, 0, sizeof good[0], put_kv, &err), GP_OK);
    /* No transaction is left open: the next one begins. */
    assert_int_equal(store_each_in_tx(st, good + 1, 1, sizeof good[0], put_kv, &err), GP_OK);
    gp_store_close(st);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--other") == 0)
        return other_main(argv[2], argv[3]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_mode_and_pragmas),
        cmocka_unit_test(test_newer_schema_is_refused_untouched),
        cmocka_unit_test(test_foreign_files_are_refused),
        cmocka_unit_test(test_scenarios_keep_versions),
        cmocka_unit_test(test_scenario_rename),
        cmocka_unit_test(test_second_connection_keeps_the_wal),
        cmocka_unit_test(test_each_in_one_transaction),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
