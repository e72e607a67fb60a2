/* Imported history in the store: rollup rows straight into the rollups, the capacity rollups
 * computed in C equal to gp_store_capacity_refresh's SQL, buckets never stored twice (against
 * a re-import and against collected samples), and the import marks. */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_capacity.h"
#include "gpuplan/store_history.h"
#include "gpuplan/store_seal.h"
#include "gpuplan/store_telemetry.h"
#include "testutil.h"
#include "scratch_store.h"
#include "../../src/store/store_int.h"
#include "query_plan.h"

#define H 3600000LL
#define T0 (1795000000000LL / H * H)

static scratch_path path;
static gp_store *st;
static long long node;

static int setup(void **state) {
    (void)state;
    gp_err err;
    if (scratch_store_open(path, "gpuplan-history", &st) ||
        gp_store_node_add(st, "n1", NULL, 0, &err) || gp_store_node_id(st, "n1", &node, &err))
        return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    scratch_store_close(st, path);
    return 0;
}

/* Everything capacity reads of the window, as text, so two states compare with strcmp. */
typedef struct dump {
    char *text;
    size_t len, cap;
} dump;

static void put(dump *d, const char *s) {
    size_t l = strlen(s);
    if (d->len + l + 1 > d->cap) {
        d->cap = (d->len + l + 1) * 2;
        d->text = realloc(d->text, d->cap);
    }
    memcpy(d->text + d->len, s, l + 1);
    d->len += l;
}

static int gpu_row(const gp_cap_gpu *g, void *arg) {
    char line[512];
    snprintf(line, sizeof line,
             "%s %d %s b=%lld u=%.6f pn=%lld ps=%.6f bn=%lld bs=%.6f h=%lld,%lld\n", g->uuid,
             g->index, g->mig, g->buckets, g->util_sum, g->power_n, g->power_sum, g->busy_power_n,
             g->busy_power_sum, g->hist[0], g->hist[10]);
    put(arg, line);
    return 0;
}

static int bucket_row(const gp_cap_bucket *b, void *arg) {
    char line[128];
    snprintf(line, sizeof line, "%lld g=%lld u=%.6f busy=%lld\n", (long long)b->bucket_ms, b->gpus,
             b->util_sum, b->busy);
    put(arg, line);
    return 0;
}

static char *capacity_dump(void) {
    dump d = {0};
    put(&d, "");
    gp_cap_select sel = {T0 - 24 * H, T0 + 48 * H, NULL, NULL};
    gp_err err;
    assert_int_equal(gp_store_capacity_gpus(st, &sel, gpu_row, &d, &err), GP_OK);
    assert_int_equal(gp_store_capacity_buckets(st, &sel, 50, bucket_row, &d, &err), GP_OK);
    return d.text;
}

/* Two GPUs (and a MIG instance) over [from, to): utilization and power. */
static void batch(gp_rollups *b, int64_t from, int64_t to) {
    gp_err err;
    gp_rollups_init(b, 100000);
    int g0 = gp_samples_gpu(&b->gpus, "GPU-a", 0, "", "NVIDIA H100 80GB HBM3", "h");
    int g1 = gp_samples_gpu(&b->gpus, "GPU-b", 1, "", "NVIDIA A100-SXM4-80GB", "h");
    int gm = gp_samples_gpu(&b->gpus, "GPU-b", 1, "GI 1 3g.40gb", "NVIDIA A100-SXM4-80GB", "h");
    for (int64_t t = from; t < to; t += GP_BUCKET_MS) {
        double u0 = (t / GP_BUCKET_MS) % 3 ? 100 : 2, u1 = 40 + (double)((t / H) % 5) * 7;
        assert_int_equal(gp_rollups_add(b, g0, GP_M_GPU_UTIL, t, 5, u0 * 5, u0, u0, &err), GP_OK);
        assert_int_equal(
            gp_rollups_add(b, g0, GP_M_POWER_W, t, 5, (60 + u0 * 3) * 5, 60, 400, &err), GP_OK);
        assert_int_equal(gp_rollups_add(b, g1, GP_M_GPU_UTIL, t, 4, u1 * 4, u1, u1, &err), GP_OK);
        if ((t / H) % 2) /* power only every other hour */
            assert_int_equal(gp_rollups_add(b, g1, GP_M_POWER_W, t, 4, 800, 200, 200, &err), GP_OK);
        assert_int_equal(gp_rollups_add(b, gm, GP_M_GPU_UTIL, t, 1, 30, 30, 30, &err), GP_OK);
    }
    gp_rollups_finish(b);
}

static void write_batch(gp_rollups *b, size_t *written, size_t *skipped) {
    gp_err err;
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    assert_int_equal(gp_store_rollups_write(st, node, b, written, skipped, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
}

/* The capacity rollups as they are, then as the SQL recomputes them: the same. */
static void assert_capacity_exact(void) {
    char *fast = capacity_dump();
    gp_err err;
    assert_int_equal(gp_store_capacity_refresh(st, node, T0 - 24 * H, T0 + 48 * H, &err), GP_OK);
    char *sql = capacity_dump();
    assert_true(strlen(fast) > 100);
    assert_string_equal(fast, sql);
    free(fast);
    free(sql);
}

static void test_write_and_never_twice(void **state) {
    (void)state;
    gp_rollups b;
    size_t w, s;
    batch(&b, T0, T0 + 6 * H);
    write_batch(&b, &w, &s);
    assert_int_equal(w, b.n);
    assert_int_equal(s, 0);
    assert_capacity_exact();
    /* Again: nothing stored twice, the figures unchanged. */
    char *before = capacity_dump();
    write_batch(&b, &w, &s);
    assert_int_equal(w, 0);
    assert_int_equal(s, b.n);
    char *after = capacity_dump();
    assert_string_equal(before, after);
    free(before);
    free(after);
    gp_rollups_done(&b);
    /* Half an hour collected first, then history over it: the collected buckets win, the
     * hours they share are recomputed, the figures stay exact. */
    gp_samples c;
    gp_err err;
    gp_samples_init(&c, 1000);
    int g = gp_samples_gpu(&c, "GPU-a", 0, "", "NVIDIA H100 80GB HBM3", "h");
    for (int64_t t = T0 + 10 * H; t < T0 + 10 * H + H / 2; t += 15000)
        assert_int_equal(gp_samples_add(&c, g, GP_M_GPU_UTIL, 10, t, -1, &err), GP_OK);
    size_t cw;
    assert_int_equal(gp_store_samples_write(st, node, &c, T0, &cw, &err), GP_OK);
    gp_samples_done(&c);
    batch(&b, T0 + 8 * H, T0 + 12 * H);
    write_batch(&b, &w, &s);
    assert_int_equal(s, 6); /* GPU-a's utilization in the 6 collected buckets */
    assert_int_equal(w + s, b.n);
    assert_capacity_exact();
    gp_rollups_done(&b);
}

static void test_marks(void **state) {
    (void)state;
    gp_err err;
    bool has;
    int64_t done;
    assert_int_equal(
        gp_store_history_mark(st, node, "http://p {}", GP_M_POWER_W, "h0", &has, &done, &err),
        GP_OK);
    assert_false(has);
    assert_int_equal(
        gp_store_history_mark_set(st, node, "http://p {}", GP_M_POWER_W, "h0", 7200000, &err),
        GP_OK);
    /* A mark never moves back. */
    assert_int_equal(
        gp_store_history_mark_set(st, node, "http://p {}", GP_M_POWER_W, "h0", 3600000, &err),
        GP_OK);
    assert_int_equal(
        gp_store_history_mark(st, node, "http://p {}", GP_M_POWER_W, "h0", &has, &done, &err),
        GP_OK);
    assert_true(has);
    assert_int_equal(done, 7200000);
    assert_int_equal(
        gp_store_history_mark(st, node, "http://p {}", GP_M_POWER_W, "h1", &has, &done, &err),
        GP_OK);
    assert_false(has);
    /* Node 0: the earliest mark of the host over all its nodes. */
    long long n2;
    assert_int_equal(gp_store_node_add(st, "n2", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "n2", &n2, &err), GP_OK);
    assert_int_equal(
        gp_store_history_mark_set(st, n2, "http://p {}", GP_M_POWER_W, "h0", 3600000, &err), GP_OK);
    assert_int_equal(
        gp_store_history_mark(st, 0, "http://p {}", GP_M_POWER_W, "h0", &has, &done, &err), GP_OK);
    assert_true(has);
    assert_int_equal(done, 3600000);
    assert_int_equal(
        gp_store_history_mark(st, 0, "http://p {}", GP_M_GPU_UTIL, "h0", &has, &done, &err), GP_OK);
    assert_false(has);
}

/* Both mark lookups search an index: group_marks asks 4 times per host per import, and a scan
 * of history_mark each time takes minutes at 20k hosts. */
static void test_mark_plans(void **state) {
    (void)state;
    assert_index_plan(path, STORE_SQL_MARK_NODE, "PRIMARY KEY (node_id=?");
    assert_index_plan(path, STORE_SQL_MARK_ANY, NULL);
}

/* The fleet of a node known by its history alone: every GPU with its last 5-minute means and
 * its raw model name, never an empty row. */
typedef struct fleet_seen {
    int rows;
    double util[2], power0;
    bool has_util[2], has_power0;
    char raw[2][96];
} fleet_seen;

static int fleet_row(const gp_fleet_gpu *g, void *arg) {
    fleet_seen *f = arg;
    if (strcmp(g->node, "hist") || g->mig[0] || g->index < 0 || g->index > 1)
        return 0;
    f->rows++;
    f->has_util[g->index] = g->has[GP_M_GPU_UTIL];
    f->util[g->index] = g->value[GP_M_GPU_UTIL];
    snprintf(f->raw[g->index], sizeof f->raw[0], "%s", g->raw_model);
    if (g->index == 0) {
        f->has_power0 = g->has[GP_M_POWER_W];
        f->power0 = g->value[GP_M_POWER_W];
    }
    return 0;
}

static void test_fleet_from_history(void **state) {
    (void)state;
    gp_err err;
    long long hist;
    assert_int_equal(gp_store_node_add(st, "hist", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "hist", &hist, &err), GP_OK);
    gp_rollups b;
    size_t w, s;
    int64_t to = T0 + 30 * H;
    batch(&b, T0 + 24 * H, to);
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    assert_int_equal(gp_store_rollups_write(st, hist, &b, &w, &s, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
    gp_rollups_done(&b);
    /* Three days on, everything it ever reported. */
    int64_t now = to + 72 * H;
    fleet_seen f = {0};
    assert_int_equal(gp_store_fleet(st, now, now, fleet_row, &f, &err), GP_OK);
    assert_int_equal(f.rows, 2);
    int64_t last = to - GP_BUCKET_MS; /* batch()'s values in its last bucket */
    double u0 = (last / GP_BUCKET_MS) % 3 ? 100 : 2, u1 = 40 + (double)((last / H) % 5) * 7;
    assert_true(f.has_util[0] && f.has_util[1] && f.has_power0);
    assert_close(f.util[0], u0, REL);
    assert_close(f.util[1], u1, REL);
    assert_close(f.power0, 60 + u0 * 3, REL);
    assert_string_equal(f.raw[0], "NVIDIA H100 80GB HBM3");
    assert_string_equal(f.raw[1], "NVIDIA A100-SXM4-80GB");
    /* Once those days are sealed into chunks (db/009_chunks.sql), the last values come from the
     * newest chunk: the same figures. */
    assert_int_equal(gp_store_retention(st, now, 48 * H, 365 * 24 * H, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, now, NULL, &err), GP_OK);
    fleet_seen g = {0};
    assert_int_equal(gp_store_fleet(st, now, now, fleet_row, &g, &err), GP_OK);
    assert_int_equal(g.rows, 2);
    assert_true(g.has_util[0] && g.has_util[1] && g.has_power0);
    assert_true(g.util[0] == f.util[0] && g.util[1] == f.util[1] && g.power0 == f.power0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_and_never_twice),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_mark_plans),
        cmocka_unit_test(test_fleet_from_history),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
