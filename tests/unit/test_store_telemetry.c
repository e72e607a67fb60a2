/* Telemetry in the store: samples and their rollups, repeats, retention, nodes, the fleet. */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "gpuplan/store_seal.h"
#include "gpuplan/store_telemetry.h"
#include "testutil.h"
#include "scratch_store.h"

static scratch_path path;
static gp_store *st;
static long long node;

static int setup(void **state) {
    (void)state;
    gp_err err;
    gp_source_cfg src = {0};
    src.kind = GP_SRC_DCGM;
    snprintf(src.url, sizeof src.url, "http://127.0.0.1:1/metrics");
    if (scratch_store_open(path, "gpuplan-telemetry", &st) ||
        gp_store_node_add(st, "n1", &src, 1, &err) || gp_store_node_id(st, "n1", &node, &err))
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    scratch_store_close(st, path);
    return 0;
}

static long long scalar(const char *sql) {
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    long long v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

static double scalar_d(const char *sql) {
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, sql, -1, &s, NULL);
    double v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_double(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* 2026-01-01T00:00:00Z */
#define T0 1767225600000LL

static void test_samples_and_rollups(void **state) {
    (void)state;
    gp_samples s;
    gp_samples_init(&s, 100000);
    gp_err err;
    int g = gp_samples_gpu(&s, "GPU-a", 0, "", "NVIDIA H100 80GB HBM3", "h");
    /* Every 15 s for an hour: utilization i % 100. */
    for (int i = 0; i < 240; i++)
        assert_int_equal(gp_samples_add(&s, g, GP_M_GPU_UTIL, i % 100, T0 + i * 15000LL, -1, &err),
                         GP_OK);
    size_t written;
    assert_int_equal(gp_store_samples_write(st, node, &s, T0, &written, &err), GP_OK);
    assert_int_equal(written, 240);
    assert_int_equal(scalar("SELECT count(*) FROM sample"), 240);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 12);
    assert_int_equal(scalar("SELECT n FROM rollup_5m ORDER BY bucket_ms LIMIT 1"), 20);
    assert_close(scalar_d("SELECT sum FROM rollup_5m ORDER BY bucket_ms LIMIT 1"), 190, REL);
    assert_close(scalar_d("SELECT max FROM rollup_5m ORDER BY bucket_ms LIMIT 1 OFFSET 4"), 99,
                 REL);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h"), 1);
    assert_int_equal(scalar("SELECT n FROM rollup_1h"), 240);
    /* i % 100 over 240 samples: 0..99 twice, then 0..39. */
    assert_close(scalar_d("SELECT sum FROM rollup_1h"), 2 * 4950 + 780, REL);
    /* The same batch again: nothing new, rollups unchanged. */
    assert_int_equal(gp_store_samples_write(st, node, &s, T0, &written, &err), GP_OK);
    assert_int_equal(written, 0);
    assert_int_equal(scalar("SELECT n FROM rollup_1h"), 240);
    gp_samples_done(&s);
    assert_int_equal(scalar("SELECT count(*) FROM gpu WHERE uuid = 'GPU-a' AND model = 'H100'"), 1);
}

typedef struct seen {
    int n;
    bool missing;
    double util;
} seen;

static int on_gpu(const gp_fleet_gpu *g, void *arg) {
    seen *s = arg;
    s->n++;
    s->missing = g->missing;
    s->util = g->value[GP_M_GPU_UTIL];
    return 0;
}

static void test_fleet_and_status(void **state) {
    (void)state;
    gp_err err;
    assert_int_equal(gp_store_node_status(st, node, T0 + 3600000, NULL, &err), GP_OK);
    seen s = {0, false, 0};
    assert_int_equal(gp_store_fleet(st, T0 + 3600000, 7200000, on_gpu, &s, &err), GP_OK);
    assert_int_equal(s.n, 1);
    assert_close(s.util, 39, REL); /* the newest sample: i = 239 -> 39 */
    assert_false(s.missing);
    /* A cycle an hour later without this GPU: it is missing. */
    assert_int_equal(gp_store_node_status(st, node, T0 + 2 * 3600000, NULL, &err), GP_OK);
    s = (seen){0, false, 0};
    assert_int_equal(gp_store_fleet(st, T0 + 2 * 3600000, 7200000, on_gpu, &s, &err), GP_OK);
    assert_true(s.missing);
}

static int first_point(const gp_gpu_point *p, void *arg) {
    *(double *)arg = p->mean;
    return 1;
}

typedef struct space_seen {
    long long total, chunks, free;
} space_seen;

static int add_space(const char *table, long long bytes, void *arg) {
    space_seen *s = arg;
    s->total += bytes;
    if (strcmp(table, "rollup_5m_day") == 0)
        s->chunks = bytes;
    if (strcmp(table, "(free)") == 0)
        s->free = bytes;
    return 0;
}

static void test_retention_and_rm(void **state) {
    (void)state;
    gp_err err;
    /* 48 h later the raw samples go; the rollups stay for the year. */
    assert_int_equal(
        gp_store_retention(st, T0 + 50 * 3600000LL, 48 * 3600000LL, 365LL * 24 * 3600000, &err),
        GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 50 * 3600000LL, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM sample"), 0);
    /* The day is over: its 12 buckets were sealed into one chunk (db/009_chunks.sql), and the
     * store still counts and reads every one of them, with the same figures. */
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), 1);
    gp_db_stats stats;
    assert_int_equal(gp_store_stats(st, &stats, &err), GP_OK);
    assert_int_equal(stats.rollups_5m, 12);
    /* Where the bytes go: every page of the file once, the chunk's table among them. */
    space_seen used = {0, 0, -1};
    assert_int_equal(gp_store_space(st, add_space, &used, &err), GP_OK);
    assert_int_equal(used.total, stats.file_bytes);
    assert_true(used.chunks > 0);
    assert_int_equal(used.free, scalar("SELECT freelist_count * page_size FROM "
                                       "pragma_freelist_count(), pragma_page_size()"));
    double first_mean = -1;
    assert_int_equal(
        gp_store_gpu_history(st, GP_M_GPU_UTIL, T0, T0 + 300000, first_point, &first_mean, &err),
        GP_OK);
    assert_close(first_mean, 190 / 20.0, REL);
    /* A window of an hour: the day is past it, and every rollup of it goes, capacity's hours
     * and the fleet's buckets with the 5-minute and hourly ones. */
    assert_true(scalar("SELECT count(*) FROM util_hour_day") +
                    scalar("SELECT count(*) FROM util_hour") >
                0);
    assert_true(
        scalar("SELECT count(*) FROM fleet_5m_day") + scalar("SELECT count(*) FROM fleet_5m") > 0);
    assert_int_equal(gp_store_retention(st, T0 + 50 * 3600000LL, 48 * 3600000LL, 3600000, &err),
                     GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 50 * 3600000LL, NULL, &err), GP_OK);
    static const char *const gone[] = {"rollup_5m",     "rollup_5m_day", "rollup_1h",
                                       "rollup_1h_day", "util_hour",     "util_hour_day",
                                       "fleet_5m",      "fleet_5m_day",  "series_last"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", gone[i]);
        if (scalar(sql) != 0)
            fail_msg("%s kept %lld rows past the window", gone[i], scalar(sql));
    }
    assert_int_equal(gp_store_node_rm(st, "n1", &err), GP_OK);
    assert_int_equal(gp_store_stats(st, &stats, &err), GP_OK);
    assert_int_equal(stats.rollups_5m, 0);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM gpu"), 0);
    assert_int_equal(gp_store_node_rm(st, "n1", &err), GP_E_NOTFOUND);
}

static int take_gpu(const gp_gpu_ref *g, void *arg) {
    gp_gpu_ref *out = arg;
    int i = 0;
    while (out[i].uuid[0])
        i++;
    if (i < 3)
        out[i] = *g;
    return 0;
}

/* gp_store_node_gpus: the whole GPUs known by UUID, for a dmon import to land on. */
static void test_node_gpus(void **state) {
    (void)state;
    gp_err err;
    long long id;
    assert_int_equal(gp_store_node_add(st, "known", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "known", &id, &err), GP_OK);
    gp_samples s;
    gp_samples_init(&s, 100);
    int a = gp_samples_gpu(&s, "GPU-a", 0, "", "NVIDIA H100 80GB HBM3", "h");
    int mig = gp_samples_gpu(&s, "GPU-a", 0, "GI 1/1g.10gb", "NVIDIA H100 80GB HBM3", "h");
    int bare = gp_samples_gpu(&s, "", 1, "", "", "h");
    assert_int_equal(gp_samples_add(&s, a, GP_M_POWER_W, 100, T0, -1, &err), GP_OK);
    assert_int_equal(gp_samples_add(&s, mig, GP_M_GPU_UTIL, 10, T0, -1, &err), GP_OK);
    assert_int_equal(gp_samples_add(&s, bare, GP_M_POWER_W, 50, T0, -1, &err), GP_OK);
    size_t written;
    assert_int_equal(gp_store_samples_write(st, id, &s, T0, &written, &err), GP_OK);
    gp_samples_done(&s);
    gp_gpu_ref got[4];
    memset(got, 0, sizeof got);
    assert_int_equal(gp_store_node_gpus(st, id, take_gpu, got, &err), GP_OK);
    assert_string_equal(got[0].uuid, "GPU-a");
    assert_int_equal(got[0].index, 0);
    assert_string_equal(got[0].host, "h");
    assert_string_equal(got[0].raw_model, "NVIDIA H100 80GB HBM3");
    assert_string_equal(got[1].uuid, ""); /* neither the MIG instance nor the GPU without UUID */
}

/* db/014_ipmi_source.sql: a database of schema 13, whose node_source refuses 'ipmi', keeps its
 * sources and takes an ipmi one after the migration. */
static void test_ipmi_source_migration(void **state) {
    (void)state;
    scratch_path p2;
    gp_err err;
    gp_store *s2;
    gp_source_cfg src = {0};
    src.kind = GP_SRC_REDFISH;
    snprintf(src.url, sizeof src.url, "https://bmc/redfish/v1/Chassis/1/Power");
    assert_int_equal(scratch_store_open(p2, "gpuplan-ipmi", &s2), 0);
    assert_int_equal(gp_store_node_add(s2, "old", &src, 1, &err), GP_OK);
    gp_store_close(s2);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(p2, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db,
                     "CREATE TABLE ns13 (id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL "
                     "REFERENCES node(id) ON DELETE CASCADE, kind TEXT NOT NULL CHECK (kind IN "
                     "('dcgm', 'prometheus', 'nvsmi', 'redfish')), url TEXT NOT NULL DEFAULT '', "
                     "match TEXT NOT NULL DEFAULT '', insecure INTEGER NOT NULL DEFAULT 0, cacert "
                     "TEXT NOT NULL DEFAULT '', token_file TEXT NOT NULL DEFAULT '', UNIQUE "
                     "(node_id, kind, url)); INSERT INTO ns13 SELECT * FROM node_source; DROP "
                     "TABLE node_source; ALTER TABLE ns13 RENAME TO node_source; "
                     /* and what later migrations made, so the file is schema 13 throughout */
                     "DROP TABLE fx_rate; PRAGMA user_version = 13",
                     NULL, NULL, NULL),
        SQLITE_OK);
    /* The old CHECK indeed refuses the new kind. */
    assert_int_not_equal(sqlite3_exec(db,
                                      "INSERT INTO node_source(node_id, kind) SELECT id, 'ipmi' "
                                      "FROM node",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(gp_store_open(p2, &s2, &err), GP_OK);
    gp_source_cfg ipmi = {0};
    ipmi.kind = GP_SRC_IPMI;
    assert_int_equal(gp_store_node_add(s2, "new", &ipmi, 1, &err), GP_OK);
    gp_source_cfg *all;
    size_t n;
    assert_int_equal(gp_store_sources(s2, NULL, &all, &n, &err), GP_OK);
    assert_int_equal(n, 2);
    assert_string_equal(all[0].node, "new");
    assert_int_equal(all[0].kind, GP_SRC_IPMI);
    assert_string_equal(all[1].node, "old");
    assert_int_equal(all[1].kind, GP_SRC_REDFISH);
    assert_string_equal(all[1].url, "https://bmc/redfish/v1/Chassis/1/Power");
    free(all);
    scratch_store_close(s2, p2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_and_rollups),   cmocka_unit_test(test_fleet_and_status),
        cmocka_unit_test(test_retention_and_rm),      cmocka_unit_test(test_node_gpus),
        cmocka_unit_test(test_ipmi_source_migration),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
