/* The readers' virtual tables (src/store/store_vtab.c) on a store whose first two days are
 * sealed into chunks and whose third is rows: what each plan the module offers SQLite yields
 * (a key, an IN list, bucket_ms = ?, DESC) against the same question asked so that SQLite
 * cannot hand the constraint to the module (it then walks everything and filters itself). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_seal.h"
#include "gpuplan/store_telemetry.h"
#include "testutil.h"
#include "scratch_store.h"
#include "../../src/store/store_int.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z */
#define DAY 86400000LL

static scratch_path path;

/* Every row of sql (bound to ?1 = T0) as text, doubles exact. */
static char *rows_of(gp_store *st, const char *sql, int *n) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(st->db));
    sqlite3_bind_int64(s, 1, T0);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    out[0] = 0;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        (*n)++;
        for (int c = 0; c < sqlite3_column_count(s); c++) {
            char cell[64];
            if (sqlite3_column_type(s, c) == SQLITE_FLOAT)
                snprintf(cell, sizeof cell, "%a ", sqlite3_column_double(s, c));
            else if (sqlite3_column_type(s, c) == SQLITE_INTEGER)
                snprintf(cell, sizeof cell, "%lld ", (long long)sqlite3_column_int64(s, c));
            else
                snprintf(cell, sizeof cell, "'%s' ", (const char *)sqlite3_column_text(s, c));
            size_t l = strlen(cell);
            if (len + l + 2 > cap)
                out = realloc(out, cap *= 2);
            memcpy(out + len, cell, l + 1);
            len += l;
        }
        out[len++] = '\n';
        out[len] = 0;
    }
    if (rc != SQLITE_DONE)
        fail_msg("%s: %s", sql, sqlite3_errmsg(st->db));
    sqlite3_finalize(s);
    return out;
}

/* a and b yield the same rows in the same order, at least min of them. */
static void same(gp_store *st, const char *a, const char *b, int min) {
    int na, nb;
    char *x = rows_of(st, a, &na), *y = rows_of(st, b, &nb);
    if (na < min || strcmp(x, y) != 0)
        fail_msg("%s (%d rows)\n  against\n%s (%d rows)", a, na, b, nb);
    free(x);
    free(y);
}

static long long count(gp_store *st, const char *sql) {
    int n;
    free(rows_of(st, sql, &n));
    return n;
}

static void generate(gp_store *st) {
    gp_err err;
    unsigned seed = 5;
    for (int n = 0; n < 3; n++) {
        char name[16];
        snprintf(name, sizeof name, "node%d", n);
        long long id;
        assert_int_equal(gp_store_node_add(st, name, NULL, 0, &err), GP_OK);
        assert_int_equal(gp_store_node_id(st, name, &id, &err), GP_OK);
        for (int64_t hour = T0; hour < T0 + 3 * DAY; hour += 3600000) {
            gp_samples s;
            gp_samples_init(&s, 100000);
            for (int g = 0; g < 2; g++) {
                char uuid[32];
                snprintf(uuid, sizeof uuid, "GPU-%d-%d", n, g);
                int gi =
                    gp_samples_gpu(&s, uuid, g, "", n == 2 ? "NVIDIA A100" : "NVIDIA H100", name);
                for (int64_t t = hour; t < hour + 3600000; t += 300000) {
                    double u = (double)(rand_r(&seed) % 101);
                    assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, u, t, -1, &err), GP_OK);
                    assert_int_equal(gp_samples_add(&s, gi, GP_M_POWER_W, 60 + u * 6, t, -1, &err),
                                     GP_OK);
                }
            }
            size_t written;
            assert_int_equal(gp_store_samples_write(st, id, &s, hour, &written, &err), GP_OK);
            gp_samples_done(&s);
        }
    }
    int64_t now = T0 + 2 * DAY + 2 * 3600000;
    assert_int_equal(gp_store_retention(st, now, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, now, NULL, &err), GP_OK);
}

static void test_views(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-vtab", &st), 0);
    generate(st);
    /* Both forms are there: two days of chunks, a day of rows. */
    assert_true(count(st, "SELECT 1 FROM rollup_5m_day") > 0);
    assert_true(count(st, "SELECT 1 FROM rollup_5m") > 0);
    assert_true(count(st, "SELECT 1 FROM rollup_1h_day") > 0);
    assert_true(count(st, "SELECT 1 FROM fleet_5m_day") > 0);
    assert_true(count(st, "SELECT 1 FROM fleet_5m") > 0);

    /* An IN list that selects nothing, on a fresh connection: its cursors have never held an
     * IN list, so the list's buffer is NULL (bsearch and qsort may not be given one). The
     * first is what capacity --node asks of a name no node has; SQLite hands its subquery's
     * empty result to the module as the IN list. */
    gp_store_close(st);
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    same(st,
         "SELECT * FROM fleet_5m_all WHERE node_id IN (SELECT id FROM node WHERE name = "
         "'nosuch') AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 IN (SELECT id FROM node WHERE name = "
         "'nosuch') ORDER BY bucket_ms, node_id, model",
         0);
    assert_int_equal(count(st, "SELECT * FROM fleet_5m_all WHERE bucket_ms >= ?1"), 4 * 864);
    gp_store_close(st);
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id IN ('x', 'y') AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 IN ('x', 'y') ORDER BY bucket_ms, node_id, "
         "model",
         0);

    /* rollup_5m_all and rollup_1h_all: a series, in bucket order either way; a range; one
     * bucket; every series; a key that cannot match. */
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 3",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 3 ORDER BY bucket_ms", 864);
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 3 ORDER BY bucket_ms DESC",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 3 ORDER BY bucket_ms DESC", 864);
    same(st, "SELECT * FROM rollup_1h_all WHERE series_id = 2 ORDER BY bucket_ms DESC",
         "SELECT * FROM rollup_1h_all WHERE series_id + 0 = 2 ORDER BY bucket_ms DESC", 72);
    same(st,
         "SELECT * FROM rollup_5m_all WHERE series_id = 4 AND bucket_ms >= ?1 + 86000000 AND "
         "bucket_ms < ?1 + 2 * 86400000 + 3600000",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 4 AND bucket_ms + 0 >= ?1 + 86000000 "
         "AND bucket_ms + 0 < ?1 + 2 * 86400000 + 3600000 ORDER BY bucket_ms",
         300);
    same(st,
         "SELECT * FROM rollup_5m_all WHERE series_id = 1 AND bucket_ms = ?1 + 86400000 - 300000",
         "SELECT * FROM rollup_5m_all WHERE series_id = 1 AND bucket_ms + 0 = ?1 + 86400000 - "
         "300000",
         1);
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 1 AND bucket_ms = ?1 + 2.5 * 86400000",
         "SELECT * FROM rollup_5m_all WHERE series_id = 1 AND bucket_ms + 0 = ?1 + 2.5 * 86400000",
         1);
    same(st, "SELECT * FROM rollup_5m_all",
         "SELECT r.* FROM series s, rollup_5m_all r WHERE "
         "r.series_id = s.id ORDER BY s.id, r.bucket_ms",
         12 * 864);
    assert_int_equal(count(st, "SELECT * FROM rollup_5m_all WHERE series_id = 'x'"), 0);
    /* A REAL key compares as SQLite compares it with an INTEGER column: 3.0 is 3, and 3.5
     * (or a number past every integer) is none. */
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 3.0",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 3.0 ORDER BY bucket_ms", 864);
    same(st, "SELECT * FROM rollup_1h_all WHERE series_id = 2.0 ORDER BY bucket_ms DESC",
         "SELECT * FROM rollup_1h_all WHERE series_id + 0 = 2.0 ORDER BY bucket_ms DESC", 72);
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 3.5",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 3.5 ORDER BY bucket_ms", 0);
    same(st, "SELECT * FROM rollup_5m_all WHERE series_id = 1e19",
         "SELECT * FROM rollup_5m_all WHERE series_id + 0 = 1e19 ORDER BY bucket_ms", 0);

    /* fleet_5m_all: bucket, node, model order; one node and model (the probes of the open
     * day); an IN list taken whole; one bucket; a key of the wrong type. */
    same(st, "SELECT * FROM fleet_5m_all WHERE bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE bucket_ms + 0 >= ?1 ORDER BY bucket_ms, node_id, model",
         4 * 864);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id = 0 AND model = '*' AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 = 0 AND model || '' = '*' ORDER BY "
         "bucket_ms",
         864);
    same(st,
         "SELECT * FROM fleet_5m_all WHERE node_id = 3 AND model = (SELECT min(model) FROM "
         "fleet_5m WHERE node_id = 3) AND "
         "bucket_ms >= "
         "?1 + 86400000 + 3600000 AND bucket_ms < ?1 + 2 * 86400000 + 7200000",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 = 3 AND model || '' = (SELECT min(model) "
         "FROM fleet_5m WHERE node_id = 3) AND "
         "bucket_ms + 0 >= ?1 + 86400000 + 3600000 AND bucket_ms + 0 < ?1 + 2 * 86400000 + "
         "7200000 ORDER BY bucket_ms",
         288);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id IN (1, 3, 'x') AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 IN (1, 3) ORDER BY bucket_ms, node_id, "
         "model",
         2 * 864);
    /* REAL keys and IN lists: 1.0 and 3.0 are nodes 1 and 3, 3.5 is no node. */
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id = 0.0 AND model = '*' AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 = 0.0 AND model || '' = '*' ORDER BY "
         "bucket_ms",
         864);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id = 0.5 AND model = '*' AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 = 0.5 AND model || '' = '*' ORDER BY "
         "bucket_ms",
         0);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id IN (1.0, 3.5, 3.0) AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 IN (1.0, 3.5, 3.0) ORDER BY bucket_ms, "
         "node_id, model",
         2 * 864);
    same(st, "SELECT * FROM fleet_5m_all WHERE node_id IN (1.5, 3.5) AND bucket_ms >= ?1",
         "SELECT * FROM fleet_5m_all WHERE node_id + 0 IN (1.5, 3.5) ORDER BY bucket_ms, node_id, "
         "model",
         0);
    same(st, "SELECT * FROM fleet_5m_all WHERE bucket_ms = ?1 + 86400000 + 600000",
         "SELECT * FROM fleet_5m_all WHERE bucket_ms + 0 = ?1 + 86400000 + 600000 ORDER BY "
         "node_id, model",
         4);
    assert_int_equal(count(st, "SELECT * FROM fleet_5m_all WHERE node_id = 1 AND model = 5"), 0);
    scratch_store_close(st, path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
