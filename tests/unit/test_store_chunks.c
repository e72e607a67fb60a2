/* Chunked 5-minute rollups (db/009_chunks.sql): a database made before migration 009 is
 * converted on open, and every figure read from it stays the same, bit for bit (doubles are
 * compared as %a); capacity rollups recomputed from the chunks equal the ones computed from the
 * rows; late samples and imported history merge into sealed days as they did into rows. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "gpuplan/chunk.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/store_check.h"
#include "gpuplan/store_history.h"
#include "gpuplan/store_seal.h"
#include "gpuplan/store_telemetry.h"
#include "testutil.h"
#include "scratch_store.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z, long before any clock running the test */
#define DAY 86400000LL
#define DAYS 3
#define NODES 3
#define GPUS 4

static scratch_path path;

static void sql(const char *q) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", q, msg);
    sqlite3_close(db);
}

static long long scalar(const char *q) {
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, q, -1, &s, NULL);
    long long v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* Utilization, power and memory of NODES x GPUS GPUs every 60 s for DAYS days: whole numbers,
 * two decimals and thirds (which only the raw form of the encoding holds exactly). */
static void generate(gp_store *st) {
    gp_err err;
    unsigned seed = 9;
    for (int n = 0; n < NODES; n++) {
        char name[16];
        snprintf(name, sizeof name, "node%d", n);
        long long id;
        assert_int_equal(gp_store_node_add(st, name, NULL, 0, &err), GP_OK);
        assert_int_equal(gp_store_node_id(st, name, &id, &err), GP_OK);
        for (int64_t hour = T0; hour < T0 + DAYS * DAY; hour += 3600000) {
            gp_samples s;
            gp_samples_init(&s, 1000000);
            for (int g = 0; g < GPUS; g++) {
                char uuid[32];
                snprintf(uuid, sizeof uuid, "GPU-%d-%d", n, g);
                int gi = gp_samples_gpu(&s, uuid, g, "", "NVIDIA H100 80GB HBM3", name);
                if (g == 3 && hour >= T0 + DAY && hour < T0 + 2 * DAY)
                    continue; /* a GPU that goes away for a day */
                for (int64_t t = hour; t < hour + 3600000; t += 60000) {
                    double u = g == 0 ? 0 : (double)(rand_r(&seed) % 101);
                    if (g == 2)
                        u = (rand_r(&seed) % 300) / 3.0;
                    double w = 60 + (rand_r(&seed) % 60000) / 100.0;
                    assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, u, t, -1, &err), GP_OK);
                    assert_int_equal(gp_samples_add(&s, gi, GP_M_POWER_W, w, t, -1, &err), GP_OK);
                    assert_int_equal(
                        gp_samples_add(&s, gi, GP_M_MEM_USED_MIB, 1000 + g * 7, t, -1, &err),
                        GP_OK);
                }
            }
            size_t written;
            assert_int_equal(gp_store_samples_write(st, id, &s, hour, &written, &err), GP_OK);
            gp_samples_done(&s);
        }
    }
}

static int on_gpu(const gp_cap_gpu *g, void *arg) {
    FILE *f = arg;
    fprintf(f, "gpu %s %s %d %lld %a %lld %a %lld %a %d %a %d %a %a\n", g->node, g->uuid, g->index,
            g->buckets, g->util_sum, g->power_n, g->power_sum, g->busy_power_n, g->busy_power_sum,
            g->has_power_p95, g->power_p95_w, g->has_mem, g->mem_used_p95_mib, g->mem_total_mib);
    for (int k = 0; k < GP_UTIL_BINS; k++)
        fprintf(f, " %lld", g->hist[k]);
    fprintf(f, "\n");
    return 0;
}

static int on_bucket(const gp_cap_bucket *b, void *arg) {
    fprintf(arg, "bucket %lld %lld %a %lld\n", (long long)b->bucket_ms, b->gpus, b->util_sum,
            b->busy);
    return 0;
}

static int on_point(const gp_gpu_point *p, void *arg) {
    fprintf(arg, "point %s %s %d %lld %a\n", p->node, p->uuid, p->index, (long long)p->bucket_ms,
            p->mean);
    return 0;
}

static int on_hour(const gp_cap_hour *h, void *arg) {
    fprintf(arg, "hour %s %d %a %a\n", h->node, h->hour, h->util_pct, h->gpus);
    return 0;
}

/* Every figure the readers give over the data: capacity per GPU and per bucket (two
 * thresholds), the hours of day, and the 5-minute history of two metrics. */
static char *figures(gp_store *st) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    gp_cap_select all = {T0, T0 + DAYS * DAY, NULL, NULL};
    gp_cap_select one = {T0 + 3600000, T0 + 2 * DAY, "[\"node1\"]", NULL};
    assert_int_equal(gp_store_capacity_gpus(st, &all, on_gpu, f, &err), GP_OK);
    assert_int_equal(gp_store_capacity_buckets(st, &all, 5, on_bucket, f, &err), GP_OK);
    assert_int_equal(gp_store_capacity_buckets(st, &one, 50, on_bucket, f, &err), GP_OK);
    assert_int_equal(gp_store_capacity_heatmap(st, &all, on_hour, f, &err), GP_OK);
    assert_int_equal(
        gp_store_gpu_history(st, GP_M_GPU_UTIL, T0, T0 + DAYS * DAY, on_point, f, &err), GP_OK);
    assert_int_equal(gp_store_gpu_history(st, GP_M_POWER_W, T0 + 7 * 300000, T0 + DAY + 3600000,
                                          on_point, f, &err),
                     GP_OK);
    gp_db_stats stats;
    assert_int_equal(gp_store_stats(st, &stats, &err), GP_OK);
    fprintf(f, "rollups %lld %lld\n", stats.rollups_5m, stats.rollups_1h);
    fclose(f);
    return text;
}

/* What a database of version 12 held for what 013_fleet_chunks.sql keeps in day chunks: the
 * chunks turned back into fleet_5m rows, fleet_5m_day and fleet_sealed gone. */
static void make_version_12(void) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *sel, *ins;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT day_ms, node_id, model, buckets FROM fleet_5m_day",
                                        -1, &sel, NULL),
                     SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "INSERT INTO fleet_5m VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                           "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, "
                           "?25, ?26)",
                           -1, &ins, NULL),
        SQLITE_OK);
    gp_fleet_day *d = malloc(sizeof *d);
    gp_err err;
    while (sqlite3_step(sel) == SQLITE_ROW) {
        assert_int_equal(gp_fleet_decode(sqlite3_column_blob(sel, 3),
                                         (size_t)sqlite3_column_bytes(sel, 3), "test", d, &err),
                         GP_OK);
        for (int i = 0; i < GP_FLEET_SLOTS; i++) {
            if (!d->b[i].gpus)
                continue;
            sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 1));
            sqlite3_bind_text(ins, 2, (const char *)sqlite3_column_text(sel, 2), -1,
                              SQLITE_TRANSIENT);
            sqlite3_bind_int64(ins, 3, sqlite3_column_int64(sel, 0) + i * 300000LL);
            sqlite3_bind_int64(ins, 4, d->b[i].gpus);
            sqlite3_bind_double(ins, 5, d->b[i].util_sum);
            for (int k = 0; k < GP_FLEET_BINS; k++)
                sqlite3_bind_int64(ins, 6 + k, d->b[i].bins[k]);
            assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
    }
    free(d);
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    assert_int_equal(sqlite3_exec(db,
                                  "DROP TABLE fleet_5m_day; DROP TABLE fleet_sealed; PRAGMA "
                                  "user_version = 12",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
}

/* What migration 009 found: the schema of version 8, every bucket a row of rollup_5m (and no
 * util_hour_day or rollup_1h_day of migrations 010 and 011: nothing was sealed, so they are
 * empty). */
static void make_version_8(void) {
    make_version_12();
    sql("DROP TABLE series_last; DROP TABLE rollup_1h_day; DROP TABLE util_hour_day; DROP TABLE "
        "rollup_5m_day; DROP INDEX "
        "series_sealed; ALTER TABLE "
        "series DROP COLUMN "
        "sealed_ms; CREATE INDEX rollup_5m_time ON rollup_5m(bucket_ms); CREATE INDEX "
        "rollup_1h_time ON "
        "rollup_1h(bucket_ms); CREATE INDEX util_hour_time ON util_hour(hour_ms); PRAGMA "
        "user_version = 8");
}

static void test_migration_keeps_figures(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    generate(st);
    gp_store_close(st);
    /* Nothing was sealed yet (no retention ran): rows only, as before chunks. */
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), 0);
    long long rows = scalar("SELECT count(*) FROM rollup_5m");
    assert_int_equal(rows, NODES * (GPUS * DAYS - 1) * 3 * 288);
    make_version_8();

    assert_int_equal(gp_store_open_readonly(path, &st, &err), GP_OK); /* migrates: a write */
    gp_store_close(st);
    /* Opened by this build: converted, every day of every series one chunk. */
    assert_int_equal(scalar("PRAGMA user_version"), gp_store_schema_version());
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), NODES * (GPUS * DAYS - 1) * 3);
    assert_int_equal(scalar("SELECT count(*) FROM series WHERE sealed_ms < 1767225600000"), 0);

    /* Figures of the converted file against those of the same rows unconverted. */
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    char *after = figures(st);
    gp_store_close(st);
    test_remove_db(path);
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    generate(st);
    char *before = figures(st);
    gp_store_close(st);
    assert_true(strlen(before) > 100000);
    if (strcmp(before, after) != 0)
        fail_msg("figures differ after the conversion");
    free(after);

    /* The capacity rollups recomputed from the chunks: the same figures again. */
    make_version_8();
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    for (long long id = 1; id <= NODES; id++)
        assert_int_equal(gp_store_capacity_refresh(st, id, T0, T0 + DAYS * DAY, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
    char *again = figures(st);
    if (strcmp(before, again) != 0)
        fail_msg("capacity rollups recomputed from the chunks differ");
    free(again);
    free(before);
    gp_store_close(st);
}

typedef struct one_gpu {
    const char *uuid;
    double mean;
} one_gpu;

static int on_uuid(const gp_gpu_point *p, void *arg) {
    one_gpu *o = arg;
    if (strcmp(p->uuid, o->uuid) != 0)
        return 0;
    o->mean = p->mean;
    return 1;
}

/* After the conversion (the database the test before left at path): a late sample lands in its
 * sealed day, and imported history neither stores a bucket twice nor loses one. */
static void test_sealed_days_take_writes(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    long long node1;
    assert_int_equal(gp_store_node_id(st, "node1", &node1, &err), GP_OK);
    one_gpu mean = {"GPU-1-0", -1};
    int64_t b = T0 + DAY + 5 * 300000;
    assert_int_equal(
        gp_store_gpu_history(st, GP_M_MEM_USED_MIB, b, b + 300000, on_uuid, &mean, &err), GP_OK);
    assert_close(mean.mean, 1000, REL); /* node1's GPU 0: 1000 MiB, 5 samples */
    gp_samples s;
    gp_samples_init(&s, 100);
    int gi = gp_samples_gpu(&s, "GPU-1-0", 0, "", "NVIDIA H100 80GB HBM3", "node1");
    assert_int_equal(gp_samples_add(&s, gi, GP_M_MEM_USED_MIB, 1600, b + 1000, -1, &err), GP_OK);
    size_t written;
    assert_int_equal(gp_store_samples_write(st, node1, &s, b + 60000, &written, &err), GP_OK);
    assert_int_equal(written, 1);
    gp_samples_done(&s);
    assert_int_equal(
        gp_store_gpu_history(st, GP_M_MEM_USED_MIB, b, b + 300000, on_uuid, &mean, &err), GP_OK);
    assert_close(mean.mean, (5 * 1000 + 1600) / 6.0, REL);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0); /* merged, not a row */

    /* History: one bucket stored already (skipped), one of the day that GPU 3 missed. */
    gp_rollups r;
    gp_rollups_init(&r, 1000);
    int g3 = gp_samples_gpu(&r.gpus, "GPU-1-3", 3, "", "NVIDIA H100 80GB HBM3", "node1");
    int g0 = gp_samples_gpu(&r.gpus, "GPU-1-0", 0, "", "NVIDIA H100 80GB HBM3", "node1");
    int64_t gap = T0 + DAY + 40 * 300000;
    assert_int_equal(gp_rollups_add(&r, g3, GP_M_GPU_UTIL, gap, 1, 42.25, 42.25, 42.25, &err),
                     GP_OK);
    assert_int_equal(gp_rollups_add(&r, g0, GP_M_GPU_UTIL, b, 1, 99, 99, 99, &err), GP_OK);
    gp_rollups_finish(&r);
    size_t skipped;
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    assert_int_equal(gp_store_rollups_write(st, node1, &r, &written, &skipped, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
    gp_rollups_done(&r);
    assert_int_equal(written, 1);
    assert_int_equal(skipped, 1);
    mean = (one_gpu){"GPU-1-3", -1};
    assert_int_equal(
        gp_store_gpu_history(st, GP_M_GPU_UTIL, gap, gap + 300000, on_uuid, &mean, &err), GP_OK);
    assert_close(mean.mean, 42.25, REL);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);

    /* Retention takes a chunk when its whole day is out of the window: with the cut at the
     * end of the first day, the first day of every series goes, the second stays. */
    long long chunks = scalar("SELECT count(*) FROM rollup_5m_day");
    assert_int_equal(gp_store_retention(st, T0 + DAY + DAY / 2, DAY, DAY / 2, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + DAY + DAY / 2, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), chunks - NODES * GPUS * 3);
    assert_int_equal(scalar("SELECT min(day_ms) FROM rollup_5m_day"), T0 + DAY);
    scratch_store_close(st, path);
}

/* ---- capacity hours per day (db/010_hour_chunks.sql) ---- */

static scratch_path path2;

static int on_label(const gp_cap_label *l, void *arg) {
    fprintf(arg, "label %s %.0f %a %a\n", l->value ? l->value : "(none)", l->buckets, l->util_sum,
            l->power_sum);
    return 0;
}

/* capacity's per-GPU figures and the label attribution over windows that start and end inside
 * days (a --since boundary is rarely a midnight, or even an hour), one hour, and a node. */
static char *hour_figures(gp_store *st) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    const int64_t H = 3600000;
    gp_cap_select w[] = {{T0, T0 + DAYS * DAY, NULL, NULL},
                         {T0 + 5 * H, T0 + DAY + 7 * H, NULL, NULL},
                         {T0 + 5 * H + 1234, T0 + 2 * DAY + 17 * H + 1, NULL, NULL},
                         {T0 + DAY + 10 * H, T0 + DAY + 11 * H, NULL, NULL},
                         {T0 + 3 * H, T0 + 4 * H, NULL, NULL},
                         {T0 + DAY - 1, T0 + 3 * DAY, "[\"node2\"]", NULL},
                         {T0 - DAY, T0 + H, NULL, "H100"}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        fprintf(f, "window %zu\n", i);
        assert_int_equal(gp_store_capacity_gpus(st, &w[i], on_gpu, f, &err), GP_OK);
        assert_int_equal(gp_store_capacity_by_label(st, &w[i], "job", on_label, f, &err), GP_OK);
    }
    fclose(f);
    return text;
}

static int on_fleet(const gp_fleet_gpu *g, void *arg) {
    fprintf(arg, "fleet %s %s %d", g->node, g->uuid, g->index);
    for (int m = 0; m < GP_M_COUNT; m++)
        if (g->has[m])
            fprintf(arg, " %d:%a", m, g->value[m]);
    fprintf(arg, "\n");
    return 0;
}

/* The fleet's last values: with no raw sample, the newest 5-minute mean, from a row or from
 * the newest chunk (kept in series_last). */
static char *fleet_figures(gp_store *st) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    int64_t now = T0 + DAYS * DAY + 3600000;
    assert_int_equal(gp_store_fleet(st, now, now, on_fleet, f, &err), GP_OK);
    assert_int_equal(gp_store_fleet(st, now, DAY + 3600000 + 1, on_fleet, f, &err), GP_OK);
    fclose(f);
    return text;
}

typedef struct gpu_sums {
    const char *uuid;
    long long buckets, power_n;
    double util_sum, mem_p95;
} gpu_sums;

static int on_gpu_sums(const gp_cap_gpu *g, void *arg) {
    gpu_sums *o = arg;
    if (strcmp(g->uuid, o->uuid) == 0) {
        o->buckets = g->buckets;
        o->power_n = g->power_n;
        o->util_sum = g->util_sum;
        o->mem_p95 = g->mem_used_p95_mib;
    }
    return 0;
}

static gpu_sums sums_of(gp_store *st, const char *uuid, int64_t from, int64_t to) {
    gpu_sums o = {uuid, -1, -1, -1, -1};
    gp_cap_select w = {from, to, NULL, NULL};
    gp_err err;
    assert_int_equal(gp_store_capacity_gpus(st, &w, on_gpu_sums, &o, &err), GP_OK);
    return o;
}

/* Seal days 0 and 1 (sealing an hour into day 2 seals what ended before today). */
static void seal_two_days(gp_store *st) {
    gp_err err;
    assert_int_equal(
        gp_store_retention(st, T0 + 2 * DAY + 2 * 3600000, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 2 * DAY + 2 * 3600000, NULL, &err), GP_OK);
}

/* Sealing is its own step (docs/architecture.md, "A sample's life"): retention seals nothing;
 * gp_store_seal_days moves the days that are over into chunks (5-minute and hourly rollups,
 * capacity hours, fleet buckets), says how many series it sealed, and the figures read back
 * the same; a second call finds nothing left to seal. */
static void test_sealing_is_a_step(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    long long id;
    assert_int_equal(gp_store_node_add(st, "node1", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "node1", &id, &err), GP_OK);
    unsigned seed = 5;
    for (int64_t hour = T0; hour < T0 + 2 * DAY; hour += 3600000) {
        gp_samples s;
        gp_samples_init(&s, 10000);
        int gi = gp_samples_gpu(&s, "GPU-1-0", 0, "", "NVIDIA H100 80GB HBM3", "node1");
        for (int64_t t = hour; t < hour + 3600000; t += 300000) {
            double u = (double)(rand_r(&seed) % 101), w = 60 + (rand_r(&seed) % 60000) / 100.0;
            assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, u, t, -1, &err), GP_OK);
            assert_int_equal(gp_samples_add(&s, gi, GP_M_POWER_W, w, t, -1, &err), GP_OK);
        }
        size_t written;
        assert_int_equal(gp_store_samples_write(st, id, &s, hour, &written, &err), GP_OK);
        gp_samples_done(&s);
    }
    char *before = figures(st);
    int64_t now = T0 + 2 * DAY + 2 * 3600000;
    assert_int_equal(gp_store_retention(st, now, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    const char *chunks[] = {"rollup_5m_day", "rollup_1h_day", "util_hour_day", "fleet_5m_day"};
    for (int i = 0; i < 4; i++) {
        char q[64];
        snprintf(q, sizeof q, "SELECT count(*) FROM %s", chunks[i]);
        assert_int_equal(scalar(q), 0); /* retention sealed nothing */
    }
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 2 * 2 * 288);
    size_t sealed = 99;
    assert_int_equal(gp_store_seal_days(st, now, &sealed, &err), GP_OK);
    assert_int_equal(sealed, 2); /* utilization and power */
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m_day"), 2 * 2);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h_day"), 2 * 2);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour_day"), 2);
    assert_int_equal(scalar("SELECT count(DISTINCT day_ms) FROM fleet_5m_day"), 2);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m") +
                         scalar("SELECT count(*) FROM "
                                "rollup_1h") +
                         scalar("SELECT count(*) FROM util_hour") +
                         scalar("SELECT count(*) FROM fleet_5m"),
                     0);
    char *after = figures(st);
    assert_string_equal(before, after);
    assert_int_equal(gp_store_seal_days(st, now, &sealed, &err), GP_OK);
    assert_int_equal(sealed, 0);
    free(before);
    free(after);
    scratch_store_close(st, path);
}

static void on_problem(const char *line, void *arg) {
    char *seen = arg;
    if (!seen[0])
        snprintf(seen, 512, "%s", line);
    else
        snprintf(seen, 512, "more than one: %s", line);
}

/* The hours of a sealed day are one chunk per series and day and read back exactly as the
 * rows did, over windows cut inside days; a GPU away for a day has no chunk for it. */
static void test_hour_chunks_keep_figures(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    generate(st);
    char *rows = hour_figures(st);
    sql("DELETE FROM sample"); /* as after imported history: the fleet reads rollups */
    char *fleet_rows = fleet_figures(st);
    assert_non_null(strstr(fleet_rows, "fleet node2 GPU-2-3 3 0:"));
    assert_int_equal(scalar("SELECT count(*) FROM util_hour_day"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour"), NODES * (GPUS * DAYS - 1) * 24);
    /* The figures themselves: a window from 05:00 of day 0 to 07:00 of day 1 holds 19 + 7 hours
     * of a GPU that stayed, 19 of the one away on day 1, 12 buckets an hour. */
    const int64_t H = 3600000;
    assert_int_equal(sums_of(st, "GPU-1-1", T0 + 5 * H, T0 + DAY + 7 * H).buckets, 26 * 12);
    assert_int_equal(sums_of(st, "GPU-1-3", T0 + 5 * H, T0 + DAY + 7 * H).buckets, 19 * 12);
    assert_int_equal(sums_of(st, "GPU-1-3", T0 + 5 * H + 1, T0 + DAY + 7 * H).buckets, 18 * 12);

    seal_two_days(st);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour_day"), NODES * (GPUS * 2 - 1));
    assert_int_equal(scalar("SELECT count(*) FROM util_hour"), NODES * GPUS * 24);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour WHERE hour_ms < 1767398400000"), 0);
    char *chunks = hour_figures(st);
    assert_true(strlen(rows) > 10000);
    if (strcmp(rows, chunks) != 0)
        fail_msg("capacity figures differ once the hours are chunks");
    free(chunks);
    /* Every day sealed: the fleet's last values come from the newest chunk, read backwards. */
    char *fleet_some = fleet_figures(st);
    assert_int_equal(
        gp_store_retention(st, T0 + DAYS * DAY + 2 * 3600000, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + DAYS * DAY + 2 * 3600000, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);
    char *fleet_chunks = fleet_figures(st);
    if (strcmp(fleet_rows, fleet_some) != 0 || strcmp(fleet_rows, fleet_chunks) != 0)
        fail_msg("the fleet's last values differ once the days are chunks");
    free(fleet_some);
    free(fleet_chunks);
    free(fleet_rows);
    /* A damaged hour chunk is a damaged database: one line naming its series and day, refused
     * by its checksum (a byte added), or at its byte when the checksum fits the damage. */
    long long id = scalar("SELECT min(id) FROM util_hour_day");
    sql("UPDATE util_hour_day SET hours = hours || x'00' WHERE id = (SELECT min(id) FROM "
        "util_hour_day)");
    char where[96], day[16];
    time_t t = (time_t)((id & ((1 << 20) - 1)) * DAY / 1000);
    struct tm tm;
    strftime(day, sizeof day, "%Y-%m-%d", gmtime_r(&t, &tm));
    snprintf(where, sizeof where, "util_hour_day, series %lld, day %s: hour chunk: ", id >> 20,
             day);
    gpu_sums o = {"GPU-0-0", -1, -1, -1, -1};
    gp_cap_select all = {T0, T0 + DAYS * DAY, NULL, NULL};
    assert_int_equal(gp_store_capacity_gpus(st, &all, on_gpu_sums, &o, &err), GP_E_DB);
    assert_ptr_equal(strstr(err.msg, where), err.msg);
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    assert_int_equal(gp_store_capacity_by_label(st, &all, "job", on_label, stderr, &err), GP_E_DB);
    assert_ptr_equal(strstr(err.msg, where), err.msg);
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    /* db check names it, and only it, and counts every chunk it read. */
    char seen[512] = "";
    gp_db_check chk;
    assert_int_equal(gp_store_check(st, on_problem, seen, &chk, &err), GP_OK);
    assert_int_equal(chk.damaged, 1);
    assert_int_equal(chk.integrity_problems, 0);
    assert_int_equal(chk.chunks[2], scalar("SELECT count(*) FROM util_hour_day"));
    assert_int_equal(chk.chunks[0], scalar("SELECT count(*) FROM rollup_5m_day"));
    assert_int_equal(chk.unsummed, 0);
    assert_ptr_equal(strstr(seen, where), seen);
    scratch_store_close(st, path);
    free(rows);
}

typedef struct mem_seen {
    const char *uuid;
    bool found, has_mem, has_limit;
    double p95, total, limit;
} mem_seen;

static int on_mem(const gp_cap_gpu *g, void *arg) {
    mem_seen *m = arg;
    if (strcmp(g->uuid, m->uuid) == 0)
        *m = (mem_seen){
            m->uuid,         true, g->has_mem, g->has_limit, g->mem_used_p95_mib, g->mem_total_mib,
            g->power_limit_w};
    return 0;
}

static mem_seen mem_of(gp_store *st, const char *uuid, int64_t from, int64_t to) {
    mem_seen m = {uuid, false, false, false, 0, 0, 0};
    gp_cap_select w = {from, to, NULL, NULL};
    gp_err err;
    assert_int_equal(gp_store_capacity_gpus(st, &w, on_mem, &m, &err), GP_OK);
    assert_true(m.found);
    return m;
}

/* Memory and the power limit per GPU from hourly peaks, day 0 in chunks and day 1 in rows: the
 * P95 of used memory's hourly peaks, the largest total and limit, only inside the window; a GPU
 * without those series has none. */
static void test_memory_and_limit(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    const int64_t H = 3600000;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    long long id;
    assert_int_equal(gp_store_node_add(st, "n0", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "n0", &id, &err), GP_OK);
    for (int64_t hour = T0; hour < T0 + 2 * DAY; hour += H) {
        gp_samples s;
        gp_samples_init(&s, 100000);
        int g0 = gp_samples_gpu(&s, "GPU-m-0", 0, "", "NVIDIA H100 80GB HBM3", "n0");
        int g1 = gp_samples_gpu(&s, "GPU-m-1", 1, "", "NVIDIA H100 80GB HBM3", "n0");
        bool day1 = hour >= T0 + DAY;
        for (int64_t t = hour; t < hour + H; t += 300000) {
            /* used peaks at 1000 + the hour's index (0 to 47) in its last bucket */
            double used = 1000 + (double)((hour - T0) / H) - (t + 300000 < hour + H ? 0.5 : 0);
            assert_int_equal(gp_samples_add(&s, g0, GP_M_GPU_UTIL, 50, t, -1, &err), GP_OK);
            assert_int_equal(gp_samples_add(&s, g1, GP_M_GPU_UTIL, 20, t, -1, &err), GP_OK);
            assert_int_equal(gp_samples_add(&s, g0, GP_M_MEM_USED_MIB, used, t, -1, &err), GP_OK);
            assert_int_equal(
                gp_samples_add(&s, g0, GP_M_MEM_TOTAL_MIB, day1 ? 81920 : 81559, t, -1, &err),
                GP_OK);
            assert_int_equal(
                gp_samples_add(&s, g0, GP_M_POWER_LIMIT_W, day1 ? 650 : 700, t, -1, &err), GP_OK);
        }
        size_t written;
        assert_int_equal(gp_store_samples_write(st, id, &s, hour, &written, &err), GP_OK);
        gp_samples_done(&s);
    }
    /* Seal day 0: its hourly peaks are a chunk, day 1's are rows. */
    assert_int_equal(gp_store_retention(st, T0 + DAY + 2 * H, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + DAY + 2 * H, NULL, &err), GP_OK);
    assert_true(scalar("SELECT count(*) FROM rollup_1h_day") > 0);
    assert_true(scalar("SELECT count(*) FROM rollup_1h") > 0);
    mem_seen m = mem_of(st, "GPU-m-0", T0, T0 + 2 * DAY);
    assert_true(m.has_mem && m.has_limit);
    assert_close(m.p95, 1044.65, REL); /* 1000 .. 1047: 0.95 x 47 = 44.65 */
    assert_true(m.total == 81920);
    assert_true(m.limit == 700);
    m = mem_of(st, "GPU-m-0", T0 + DAY + 3 * H, T0 + 2 * DAY); /* rows only: 1027 .. 1047 */
    assert_close(m.p95, 1046, REL);
    assert_true(m.total == 81920);
    assert_true(m.limit == 650);
    m = mem_of(st, "GPU-m-0", T0 + 1, T0 + 5 * H); /* the chunk's hours 1 to 4 */
    assert_close(m.p95, 1003.85, REL);
    assert_true(m.total == 81559);
    assert_true(m.limit == 700);
    m = mem_of(st, "GPU-m-1", T0, T0 + 2 * DAY);
    assert_false(m.has_mem || m.has_limit);
    scratch_store_close(st, path);
}

typedef struct p95_seen {
    bool found, has;
    double p95;
} p95_seen;

static int on_p95(const gp_cap_gpu *g, void *arg) {
    p95_seen *p = arg;
    *p = (p95_seen){true, g->has_power_p95, g->power_p95_w};
    return 0;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A GPU's P95 W is the 95th percentile of its hourly means, exactly gp_sorted_quantile's, over
 * windows of 1 to 48 hours: hourly powers in quarter watts (exact means) that crowd bins and
 * sit on their edges (599.75, 600, 600.25 W), half a day's in one bin. */
static void test_power_p95(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    const int64_t H = 3600000;
    double w[48];
    unsigned seed = 17;
    for (int h = 0; h < 48; h++) {
        int kind = rand_r(&seed) % 4;
        w[h] = kind == 0   ? 599.75 + 0.25 * (rand_r(&seed) % 3)
               : kind == 1 ? 50 + (rand_r(&seed) % 2800) / 4.0
               : h < 24    ? 300 + (rand_r(&seed) % 40) / 4.0
                           : 700 + (rand_r(&seed) % 4) * 10;
    }
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    long long id;
    assert_int_equal(gp_store_node_add(st, "n0", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "n0", &id, &err), GP_OK);
    for (int h = 0; h < 48; h++) {
        gp_samples s;
        gp_samples_init(&s, 100000);
        int g = gp_samples_gpu(&s, "GPU-p-0", 0, "", "NVIDIA H100 80GB HBM3", "n0");
        for (int64_t t = T0 + h * H; t < T0 + (h + 1) * H; t += 300000) {
            assert_int_equal(gp_samples_add(&s, g, GP_M_GPU_UTIL, 50, t, -1, &err), GP_OK);
            assert_int_equal(gp_samples_add(&s, g, GP_M_POWER_W, w[h], t, -1, &err), GP_OK);
        }
        size_t written;
        assert_int_equal(gp_store_samples_write(st, id, &s, T0 + h * H, &written, &err), GP_OK);
        gp_samples_done(&s);
    }
    assert_int_equal(gp_store_retention(st, T0 + DAY + 2 * H, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + DAY + 2 * H, NULL, &err), GP_OK);
    static const int spans[][2] = {{0, 1}, {0, 2}, {3, 23}, {0, 24}, {10, 40}, {0, 48}, {24, 48}};
    for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
        int a = spans[i][0], b = spans[i][1];
        double v[48];
        for (int h = a; h < b; h++)
            v[h - a] = w[h];
        qsort(v, (size_t)(b - a), sizeof *v, by_value);
        p95_seen p = {false, false, 0};
        gp_cap_select sel = {T0 + a * H, T0 + b * H, NULL, NULL};
        assert_int_equal(gp_store_capacity_gpus(st, &sel, on_p95, &p, &err), GP_OK);
        assert_true(p.found && p.has);
        double want = gp_sorted_quantile(v, (size_t)(b - a), 0.95);
        if (memcmp(&p.p95, &want, sizeof want) != 0)
            fail_msg("hours %d to %d: %.17g, want %.17g", a, b, p.p95, want);
    }
    scratch_store_close(st, path);
}

/* What migration 010 (version 9) or 011 (version 10) found: the 5-minute days sealed, every
 * hourly rollup a rollup_1h row and, before 010, every capacity hour a util_hour row. */
static void make_version(int version) {
    sql("CREATE TABLE uh_copy AS SELECT * FROM util_hour; CREATE TABLE r1_copy AS SELECT * FROM "
        "rollup_1h");
    gp_store *st;
    gp_err err;
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    seal_two_days(st);
    gp_store_close(st);
    make_version_12();
    sql("DROP TABLE series_last; DROP TABLE rollup_1h_day; INSERT OR IGNORE INTO rollup_1h "
        "SELECT * FROM r1_copy; DROP TABLE r1_copy");
    if (version == 9)
        sql("DROP TABLE util_hour_day; INSERT OR IGNORE INTO util_hour SELECT * FROM uh_copy");
    sql("DROP TABLE uh_copy");
    char q[64];
    snprintf(q, sizeof q, "PRAGMA user_version = %d", version);
    sql(q);
}

/* A database of version 9 or 10 converted on open: the same chunks and figures as sealed by
 * this build; then late samples and imported history in sealed days give the same figures as
 * on a database whose hours are rows (path2, never sealed). */
static void migration_and_writes(int version) {
    gp_store *st, *ref;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    generate(st);
    char *rows = hour_figures(st);
    gp_store_close(st);
    make_version(version);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour"),
                     version == 9 ? NODES * (GPUS * DAYS - 1) * 24 : NODES * GPUS * 24);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h"), NODES * (GPUS * DAYS - 1) * 24 * 3);
    assert_int_equal(scalar("SELECT count(*) FROM series WHERE sealed_ms = 1767398400000"),
                     NODES * GPUS * 3);

    assert_int_equal(gp_store_open(path, &st, &err), GP_OK); /* migrates */
    assert_int_equal(scalar("PRAGMA user_version"), gp_store_schema_version());
    assert_int_equal(scalar("SELECT count(*) FROM util_hour_day"), NODES * (GPUS * 2 - 1));
    assert_int_equal(scalar("SELECT count(*) FROM util_hour"), NODES * GPUS * 24);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h_day"), NODES * (GPUS * 2 - 1) * 3);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h"), NODES * GPUS * 24 * 3);
    char *converted = hour_figures(st);
    if (strcmp(rows, converted) != 0)
        fail_msg("capacity figures differ after migration 010");
    free(converted);
    free(rows);

    assert_int_equal(scratch_store_open(path2, "gpuplan-hours", &ref), 0);
    generate(ref);
    gp_store *both[2] = {st, ref};
    const int64_t H = 3600000;
    for (int i = 0; i < 2; i++) {
        long long node0;
        assert_int_equal(gp_store_node_id(both[i], "node0", &node0, &err), GP_OK);
        /* A late sample in 03:00 of day 0: that hour is recomputed into its chunk. */
        gp_samples s;
        gp_samples_init(&s, 100);
        int gi = gp_samples_gpu(&s, "GPU-0-1", 1, "", "NVIDIA H100 80GB HBM3", "node0");
        assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, 77.5, T0 + 3 * H + 1000, -1, &err),
                         GP_OK);
        assert_int_equal(
            gp_samples_add(&s, gi, GP_M_MEM_USED_MIB, 5000, T0 + 3 * H + 1000, -1, &err), GP_OK);
        size_t written;
        assert_int_equal(
            gp_store_samples_write(both[i], node0, &s, T0 + 3 * H + 2000, &written, &err), GP_OK);
        assert_int_equal(written, 2);
        /* The hour's peak of memory used (its hourly rollup's max) is the late sample. */
        assert_true(sums_of(both[i], "GPU-0-1", T0 + 3 * H, T0 + 4 * H).mem_p95 == 5000);
        gp_samples_done(&s);
        /* History: an hour of day 1, when GPU 3 was away (new), and one stored already. */
        gp_rollups r;
        gp_rollups_init(&r, 1000);
        int g3 = gp_samples_gpu(&r.gpus, "GPU-0-3", 3, "", "NVIDIA H100 80GB HBM3", "node0");
        assert_int_equal(
            gp_rollups_add(&r, g3, GP_M_GPU_UTIL, T0 + DAY + 10 * H, 1, 42.25, 42.25, 42.25, &err),
            GP_OK);
        assert_int_equal(gp_rollups_add(&r, g3, GP_M_GPU_UTIL, T0 + 4 * H, 1, 99, 99, 99, &err),
                         GP_OK);
        gp_rollups_finish(&r);
        size_t skipped;
        assert_int_equal(gp_store_begin(both[i], &err), GP_OK);
        assert_int_equal(gp_store_rollups_write(both[i], node0, &r, &written, &skipped, &err),
                         GP_OK);
        assert_int_equal(gp_store_commit(both[i], &err), GP_OK);
        gp_rollups_done(&r);
        assert_int_equal(written, 1);
        assert_int_equal(skipped, 1);
        gpu_sums g = sums_of(both[i], "GPU-0-3", T0 + DAY + 10 * H, T0 + DAY + 11 * H);
        assert_int_equal(g.buckets, 1);
        assert_int_equal(g.power_n, 0);
        assert_true(g.util_sum == 42.25);
    }
    /* The sealed database kept its hours before day 2 in chunks only. */
    assert_int_equal(scalar("SELECT count(*) FROM util_hour WHERE hour_ms < 1767398400000"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h WHERE bucket_ms < 1767398400000"), 0);
    char *a = hour_figures(st), *b = hour_figures(ref);
    if (strcmp(a, b) != 0)
        fail_msg("writes into sealed days give other figures than into rows");
    free(a);
    free(b);
    /* Removing a node takes its chunks. */
    long long before = scalar("SELECT count(*) FROM util_hour_day");
    long long before_1h = scalar("SELECT count(*) FROM rollup_1h_day");
    assert_int_equal(gp_store_node_rm(st, "node2", &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM util_hour_day"), before - (GPUS * 2 - 1));
    assert_int_equal(scalar("SELECT count(*) FROM rollup_1h_day"), before_1h - (GPUS * 2 - 1) * 3);
    scratch_store_close(st, path);
    scratch_store_close(ref, path2);
}

static void test_hour_chunks_migration_009_and_writes(void **state) {
    (void)state;
    migration_and_writes(9);
}

static void test_hour_chunks_migration_010_and_writes(void **state) {
    (void)state;
    migration_and_writes(10);
}

/* The fleet's line for one GPU (fleet_figures' format), now = T0 + 2 days + 2 h. */
static void fleet_line(gp_store *st, const char *uuid, char *out, size_t cap) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    int64_t now = T0 + 2 * DAY + 2 * 3600000;
    assert_int_equal(gp_store_fleet(st, now, now, on_fleet, f, &err), GP_OK);
    fclose(f);
    char key[64];
    snprintf(key, sizeof key, " %s ", uuid);
    const char *at = strstr(text, key);
    assert_non_null(at);
    while (at > text && at[-1] != '\n')
        at--;
    size_t n = strcspn(at, "\n");
    snprintf(out, cap, "%.*s", (int)n, at);
    free(text);
}

/* series_last's rows, one line each, in id order. */
static char *last_rows(void) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT series_id, day_ms, bucket_ms, n, sum, min, max "
                                        "FROM series_last ORDER BY series_id",
                                        -1, &q, NULL),
                     SQLITE_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    while (sqlite3_step(q) == SQLITE_ROW)
        fprintf(f, "%lld %lld %lld %lld %a %a %a\n", sqlite3_column_int64(q, 0),
                sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), sqlite3_column_int64(q, 3),
                sqlite3_column_double(q, 4), sqlite3_column_double(q, 5),
                sqlite3_column_double(q, 6));
    fclose(f);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return text;
}

static double imported_util(int64_t bucket) {
    return (double)((bucket - T0) / 300000 % 97) + 0.25;
}

static void one_sample(gp_store *st, const char *node, const char *uuid, int index, double v,
                       int64_t ts) {
    gp_err err;
    long long id;
    assert_int_equal(gp_store_node_id(st, node, &id, &err), GP_OK);
    gp_samples s;
    gp_samples_init(&s, 100);
    int gi = gp_samples_gpu(&s, uuid, index, "", "NVIDIA H100 80GB HBM3", node);
    assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, v, ts, -1, &err), GP_OK);
    size_t written;
    assert_int_equal(gp_store_samples_write(st, id, &s, ts + 1000, &written, &err), GP_OK);
    assert_int_equal(written, 1);
    gp_samples_done(&s);
}

/* series_last (db/012_series_last.sql) keeps each series' last chunked bucket where it changes:
 * an imported fleet (two days of one GPU, half a day of another that then goes away) and a
 * collected one, once their days are sealed and no raw sample is left, show the newest
 * bucket's mean as the rows did; a late sample after a sealed day's last bucket moves it, one
 * into an older day does not; migration 012 fills the same rows; retention drops a series
 * whose every chunk it drops, and node rm a node's rows. */
static void test_series_last(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    const int64_t H = 3600000, B = 300000;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    long long imp, col;
    assert_int_equal(gp_store_node_add(st, "imp", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "imp", &imp, &err), GP_OK);
    assert_int_equal(gp_store_node_add(st, "col", NULL, 0, &err), GP_OK);
    assert_int_equal(gp_store_node_id(st, "col", &col, &err), GP_OK);
    gp_rollups r;
    gp_rollups_init(&r, 100000);
    int g0 = gp_samples_gpu(&r.gpus, "GPU-I-0", 0, "", "NVIDIA H100 80GB HBM3", "imp");
    int g1 = gp_samples_gpu(&r.gpus, "GPU-I-1", 1, "", "NVIDIA H100 80GB HBM3", "imp");
    for (int64_t b = T0; b < T0 + 2 * DAY; b += B) {
        double u = imported_util(b);
        assert_int_equal(gp_rollups_add(&r, g0, GP_M_GPU_UTIL, b, 1, u, u, u, &err), GP_OK);
        assert_int_equal(gp_rollups_add(&r, g0, GP_M_POWER_W, b, 4, 4 * (100 + u), 99, 300, &err),
                         GP_OK);
        if (b < T0 + 12 * H)
            assert_int_equal(gp_rollups_add(&r, g1, GP_M_GPU_UTIL, b, 1, u, u, u, &err), GP_OK);
    }
    gp_rollups_finish(&r);
    size_t written, skipped;
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    assert_int_equal(gp_store_rollups_write(st, imp, &r, &written, &skipped, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
    gp_rollups_done(&r);
    /* Collected: a GPU reporting every minute of day 0 and of day 1 until 20:00, 7 % to 13 %. */
    for (int64_t hour = T0; hour < T0 + DAY + 20 * H; hour += H) {
        gp_samples s;
        gp_samples_init(&s, 100000);
        int gi = gp_samples_gpu(&s, "GPU-C-0", 0, "", "NVIDIA H100 80GB HBM3", "col");
        for (int64_t t = hour; t < hour + H; t += 60000)
            assert_int_equal(
                gp_samples_add(&s, gi, GP_M_GPU_UTIL, (double)(7 + (t - T0) / B % 7), t, -1, &err),
                GP_OK);
        assert_int_equal(gp_store_samples_write(st, col, &s, hour + H, &written, &err), GP_OK);
        gp_samples_done(&s);
    }
    sql("DELETE FROM sample"); /* the fleet reads rollups */
    char before[512], line[512], want[512];
    fleet_line(st, "GPU-C-0", before, sizeof before);
    /* Every day sealed: the values come from series_last alone. */
    assert_int_equal(gp_store_retention(st, T0 + 2 * DAY + 2 * H, 1000 * DAY, 1000 * DAY, &err),
                     GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 2 * DAY + 2 * H, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM series_last"), 4);
    assert_int_equal(scalar("SELECT count(*) FROM series_last WHERE n > 0"), 4);
    fleet_line(st, "GPU-C-0", line, sizeof line);
    assert_string_equal(line, before);
    int64_t last = T0 + DAY + 20 * H - B;
    snprintf(want, sizeof want, "fleet col GPU-C-0 0 %d:%a", GP_M_GPU_UTIL,
             (double)(7 + (last - T0) / B % 7));
    assert_string_equal(line, want);
    last = T0 + 2 * DAY - B;
    fleet_line(st, "GPU-I-0", line, sizeof line);
    double u = imported_util(last);
    snprintf(want, sizeof want, "fleet imp GPU-I-0 0 %d:%a %d:%a", GP_M_GPU_UTIL, u, GP_M_POWER_W,
             4 * (100 + u) / 4);
    assert_string_equal(line, want);
    fleet_line(st, "GPU-I-1", line, sizeof line); /* gone since noon of day 0 */
    snprintf(want, sizeof want, "fleet imp GPU-I-1 1 %d:%a", GP_M_GPU_UTIL,
             imported_util(T0 + 12 * H - B));
    assert_string_equal(line, want);

    /* Late samples: after GPU-I-1's last bucket, in its newest (sealed) day, it becomes the
     * last value; one in GPU-I-0's older day leaves its last value as it was. */
    one_sample(st, "imp", "GPU-I-1", 1, 12.5, T0 + 15 * H + 1000);
    one_sample(st, "imp", "GPU-I-0", 0, 3.75, T0 + 3 * H + 1000);
    sql("DELETE FROM sample");
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0); /* merged into chunks */
    fleet_line(st, "GPU-I-1", line, sizeof line);
    snprintf(want, sizeof want, "fleet imp GPU-I-1 1 %d:%a", GP_M_GPU_UTIL, 12.5);
    assert_string_equal(line, want);
    fleet_line(st, "GPU-I-0", line, sizeof line);
    snprintf(want, sizeof want, "fleet imp GPU-I-0 0 %d:%a %d:%a", GP_M_GPU_UTIL, u, GP_M_POWER_W,
             4 * (100 + u) / 4);
    assert_string_equal(line, want);
    assert_int_equal(scalar("SELECT bucket_ms FROM series_last l JOIN series s ON s.id = "
                            "l.series_id JOIN gpu g ON g.id = s.gpu_id WHERE g.uuid = 'GPU-I-1'"),
                     T0 + 15 * H);
    gp_store_close(st);

    /* A database of version 11: migration 012 fills the same rows from the chunks. */
    char *kept = last_rows();
    make_version_12();
    sql("DROP TABLE series_last; PRAGMA user_version = 11");
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    assert_int_equal(scalar("PRAGMA user_version"), gp_store_schema_version());
    char *filled = last_rows();
    assert_true(strlen(kept) > 40);
    assert_string_equal(filled, kept);
    free(kept);
    free(filled);

    /* Retention keeping one day: GPU-I-1 had only day 0, so its row and value go. */
    assert_int_equal(gp_store_retention(st, T0 + 2 * DAY + 2 * H, DAY, DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 2 * DAY + 2 * H, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM series_last"), 3);
    assert_int_equal(scalar("SELECT count(*) FROM series_last WHERE day_ms < 1767312000000"), 0);
    fleet_line(st, "GPU-I-1", line, sizeof line);
    assert_string_equal(line, "fleet imp GPU-I-1 1");
    fleet_line(st, "GPU-C-0", line, sizeof line);
    assert_string_equal(line, before);

    /* node rm: the node's rows go, the other node's stay. */
    assert_int_equal(gp_store_node_rm(st, "imp", &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM series_last"), 1);
    assert_int_equal(
        scalar("SELECT count(*) FROM series_last WHERE series_id NOT IN (SELECT id FROM series)"),
        0);
    fleet_line(st, "GPU-C-0", line, sizeof line);
    assert_string_equal(line, before);
    scratch_store_close(st, path);
}

/* SQL_HISTORY's text over rollup_5m rows (a database never sealed), as on_point prints it. */
static char *history_by_sql(int metric, int64_t from, int64_t to) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT n.name, g.uuid, g.mig, g.idx, r.bucket_ms, sum(r.sum) / "
                           "sum(r.n) FROM series s CROSS JOIN rollup_5m r ON r.series_id = s.id "
                           "JOIN gpu g ON g.id = s.gpu_id JOIN node n ON n.id = s.node_id "
                           "WHERE r.bucket_ms >= ?1 AND r.bucket_ms < ?2 AND s.metric = ?3 "
                           "GROUP BY g.id, r.bucket_ms ORDER BY n.name, g.idx, g.mig, g.id, "
                           "r.bucket_ms",
                           -1, &q, NULL),
        SQLITE_OK);
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    sqlite3_bind_int(q, 3, metric);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    while (sqlite3_step(q) == SQLITE_ROW)
        fprintf(f, "point %s %s %d %lld %a\n", sqlite3_column_text(q, 0), sqlite3_column_text(q, 1),
                sqlite3_column_int(q, 3), (long long)sqlite3_column_int64(q, 4),
                sqlite3_column_double(q, 5));
    fclose(f);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return text;
}

static char *history_by_store(gp_store *st, gp_metric m, int64_t from, int64_t to) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    assert_int_equal(gp_store_gpu_history(st, m, from, to, on_point, f, &err), GP_OK);
    fclose(f);
    return text;
}

/* gp_store_gpu_history reads a GPU's one series in bucket order without the GROUP BY's sort:
 * the same points, to the bit, as the grouped query over the rows, and again once the days are
 * chunks; a GPU with a second label set takes the grouped query (both label sets averaged). */
static void test_history_one_series(void **state) {
    (void)state;
    gp_store *st;
    gp_err err;
    const int64_t H = 3600000;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    generate(st);
    /* Edge means in one bucket of GPU-0-1's power: -0, and a sum that is not a whole number. */
    sql("UPDATE rollup_5m SET sum = -0.0, min = -0.0, max = -0.0 WHERE bucket_ms = 1767229200000 "
        "AND series_id = (SELECT s.id FROM series s JOIN gpu g ON g.id = s.gpu_id WHERE g.uuid = "
        "'GPU-0-1' AND s.metric = 3)");
    int64_t w[][2] = {{T0, T0 + DAYS * DAY}, {T0 + 5 * H + 1234, T0 + DAY + 7 * H}};
    gp_metric ms[] = {GP_M_GPU_UTIL, GP_M_POWER_W};
    char *want[4];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            want[i * 2 + k] = history_by_sql((int)ms[k], w[i][0], w[i][1]);
            assert_true(strlen(want[i * 2 + k]) > 1000);
            char *got = history_by_store(st, ms[k], w[i][0], w[i][1]);
            assert_string_equal(got, want[i * 2 + k]);
            free(got);
        }
    assert_int_equal(gp_store_retention(st, T0 + DAYS * DAY + 2 * H, 1000 * DAY, 1000 * DAY, &err),
                     GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + DAYS * DAY + 2 * H, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT count(*) FROM rollup_5m"), 0);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            char *got = history_by_store(st, ms[k], w[i][0], w[i][1]);
            assert_string_equal(got, want[i * 2 + k]);
            free(got);
            free(want[i * 2 + k]);
        }
    /* An imported bucket of -0 W in a day GPU 3 missed, now sealed: one point, 0, as the
     * grouped query gives it (SQL's sum() is 0.0 + the values). */
    long long node0;
    assert_int_equal(gp_store_node_id(st, "node0", &node0, &err), GP_OK);
    gp_rollups r;
    gp_rollups_init(&r, 100);
    int g3 = gp_samples_gpu(&r.gpus, "GPU-0-3", 3, "", "NVIDIA H100 80GB HBM3", "node0");
    int64_t away = T0 + DAY + 10 * H;
    assert_int_equal(gp_rollups_add(&r, g3, GP_M_POWER_W, away, 1, -0.0, -0.0, -0.0, &err), GP_OK);
    gp_rollups_finish(&r);
    size_t written, skipped;
    assert_int_equal(gp_store_begin(st, &err), GP_OK);
    assert_int_equal(gp_store_rollups_write(st, node0, &r, &written, &skipped, &err), GP_OK);
    assert_int_equal(gp_store_commit(st, &err), GP_OK);
    gp_rollups_done(&r);
    assert_int_equal(written, 1);
    char *zero = history_by_store(st, GP_M_POWER_W, away, away + 300000);
    char line[128];
    snprintf(line, sizeof line, "point node0 GPU-0-3 3 %lld 0x0p+0\n", (long long)away);
    const char *at = strstr(zero, "point node0 GPU-0-3 ");
    assert_non_null(at);
    assert_memory_equal(at, line, strlen(line));
    free(zero);

    /* A second label set on one GPU: its points are the two sets' sums over their counts. */
    gp_samples s;
    gp_samples_init(&s, 100);
    int gi = gp_samples_gpu(&s, "GPU-0-1", 1, "", "NVIDIA H100 80GB HBM3", "node0");
    int lab = gp_samples_labels(&s, "{\"job\":\"x\"}");
    int64_t b = T0 + 2 * DAY + 10 * H;
    assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, 1000, b + 1000, lab, &err), GP_OK);
    assert_int_equal(gp_store_samples_write(st, node0, &s, b + 2000, &written, &err), GP_OK);
    gp_samples_done(&s);
    char *got = history_by_store(st, GP_M_GPU_UTIL, b, b + 300000);
    assert_non_null(strstr(got, "point node0 GPU-0-1 1 "));
    double mean = 0;
    one_gpu o = {"GPU-0-1", -1};
    assert_int_equal(gp_store_gpu_history(st, GP_M_GPU_UTIL, b, b + 300000, on_uuid, &o, &err),
                     GP_OK);
    mean = o.mean;
    assert_true(mean > 100); /* 5 samples of at most 100 and one of 1000, averaged together */
    free(got);
    scratch_store_close(st, path);
}

/* ---- fleet_5m per day (db/013_fleet_chunks.sql) ---- */

/* The readers of fleet_5m: the buckets of the fleet, of nodes and of a model at two
 * thresholds, over windows that start and end inside days, and the hours of day. */
static char *fleet_5m_figures(gp_store *st) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gp_err err;
    const int64_t H = 3600000;
    gp_cap_select w[] = {{T0 - DAY, T0 + 8 * DAY, NULL, NULL},
                         {T0 + 5 * H + 1234, T0 + 2 * DAY + 17 * H + 1, NULL, NULL},
                         {T0 + DAY - 1, T0 + 6 * DAY, "[\"node0\",\"node2\"]", NULL},
                         {T0 + 3 * H, T0 + 6 * DAY, NULL, "H100"},
                         {T0 + 3 * H, T0 + 4 * H, "[\"node1\"]", "H100"}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        fprintf(f, "window %zu\n", i);
        assert_int_equal(gp_store_capacity_buckets(st, &w[i], 5, on_bucket, f, &err), GP_OK);
        assert_int_equal(gp_store_capacity_buckets(st, &w[i], 55, on_bucket, f, &err), GP_OK);
        assert_int_equal(gp_store_capacity_heatmap(st, &w[i], on_hour, f, &err), GP_OK);
    }
    fclose(f);
    return text;
}

/* fleet_5m's days sealed into chunks, by retention and by migration 013, give the figures of
 * rows; late samples and imported history into sealed days merge into the chunks, and a day
 * imported whole goes straight into chunks, with the figures of a database that keeps rows
 * (path2) where those days were never sealed. */
static void test_fleet_chunks(void **state) {
    (void)state;
    gp_store *st, *ref;
    gp_err err;
    assert_int_equal(scratch_store_open(path, "gpuplan-chunks", &st), 0);
    assert_int_equal(scratch_store_open(path2, "gpuplan-hours", &ref), 0);
    generate(st);
    generate(ref);
    char *rows = fleet_5m_figures(ref);
    assert_true(strlen(rows) > 50000);
    /* 3 nodes of one model and the total, 288 buckets a day */
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m"), (NODES + 1) * 288 * DAYS);

    /* Retention seals days 0 and 1: their buckets are chunks, day 2 stays rows. */
    assert_int_equal(
        gp_store_retention(st, T0 + 2 * DAY + 2 * 3600000, 1000 * DAY, 1000 * DAY, &err), GP_OK);
    assert_int_equal(gp_store_seal_days(st, T0 + 2 * DAY + 2 * 3600000, NULL, &err), GP_OK);
    assert_int_equal(scalar("SELECT sealed_ms FROM fleet_sealed"), T0 + 2 * DAY);
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m_day"), (NODES + 1) * 2);
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m"), (NODES + 1) * 288);
    assert_int_equal(scalar("SELECT min(bucket_ms) FROM fleet_5m"), T0 + 2 * DAY);
    char *sealed = fleet_5m_figures(st);
    if (strcmp(rows, sealed) != 0)
        fail_msg("fleet figures differ once days are chunks");
    free(sealed);
    gp_store_close(st);

    /* A database of version 12 (its fleet_5m all rows again): migration 013 packs every day
     * before today, which is all of them here. */
    make_version_12();
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m"), (NODES + 1) * 288 * DAYS);
    assert_int_equal(gp_store_open(path, &st, &err), GP_OK);
    assert_int_equal(scalar("PRAGMA user_version"), gp_store_schema_version());
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m_day"), (NODES + 1) * DAYS);
    char *migrated = fleet_5m_figures(st);
    if (strcmp(rows, migrated) != 0)
        fail_msg("fleet figures differ after migration 013");
    free(migrated);
    free(rows);

    gp_store *both[2] = {st, ref};
    const int64_t H = 3600000;
    for (int i = 0; i < 2; i++) {
        long long node0, node1;
        assert_int_equal(gp_store_node_id(both[i], "node0", &node0, &err), GP_OK);
        assert_int_equal(gp_store_node_id(both[i], "node1", &node1, &err), GP_OK);
        /* A late sample in 03:00 of day 0: its bucket is recomputed into the chunks. */
        gp_samples s;
        gp_samples_init(&s, 100);
        int gi = gp_samples_gpu(&s, "GPU-0-1", 1, "", "NVIDIA H100 80GB HBM3", "node0");
        assert_int_equal(gp_samples_add(&s, gi, GP_M_GPU_UTIL, 3.5, T0 + 3 * H + 1000, -1, &err),
                         GP_OK);
        size_t written;
        assert_int_equal(
            gp_store_samples_write(both[i], node0, &s, T0 + 3 * H + 2000, &written, &err), GP_OK);
        assert_int_equal(written, 1);
        gp_samples_done(&s);
        /* History into node1: a GPU new to day 1 (added into the chunks), a bucket of a GPU
         * stored already (skipped), and a whole day 5 of a new GPU, which the batch covers to
         * its end: sealed first, so it goes straight into chunks. */
        gp_rollups r;
        gp_rollups_init(&r, 1000);
        int g9 = gp_samples_gpu(&r.gpus, "GPU-1-9", 9, "", "NVIDIA H100 80GB HBM3", "node1");
        int g0 = gp_samples_gpu(&r.gpus, "GPU-1-0", 0, "", "NVIDIA H100 80GB HBM3", "node1");
        assert_int_equal(
            gp_rollups_add(&r, g9, GP_M_GPU_UTIL, T0 + DAY + 10 * H, 1, 42.25, 42.25, 42.25, &err),
            GP_OK);
        assert_int_equal(gp_rollups_add(&r, g0, GP_M_GPU_UTIL, T0 + 4 * H, 1, 99, 99, 99, &err),
                         GP_OK);
        for (int64_t b = T0 + 5 * DAY; b < T0 + 6 * DAY; b += 300000)
            assert_int_equal(gp_rollups_add(&r, g9, GP_M_GPU_UTIL, b, 2, (double)(b / 300000 % 201),
                                            0, 100, &err),
                             GP_OK);
        gp_rollups_finish(&r);
        size_t skipped;
        assert_int_equal(gp_store_begin(both[i], &err), GP_OK);
        assert_int_equal(gp_store_rollups_write(both[i], node1, &r, &written, &skipped, &err),
                         GP_OK);
        assert_int_equal(gp_store_commit(both[i], &err), GP_OK);
        gp_rollups_done(&r);
        assert_int_equal(written, 1 + 288);
        assert_int_equal(skipped, 1);
    }
    /* Everything went into chunks: node1's day 5 and the total's, and no row was left. */
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM fleet_5m_day WHERE day_ms = 1767657600000"), 2);
    /* (sealed up to the day migration 013 ran, which is after day 5) */
    assert_true(scalar("SELECT sealed_ms FROM fleet_sealed") >= T0 + 6 * DAY);
    char *a = fleet_5m_figures(st), *b = fleet_5m_figures(ref);
    /* day 5's first bucket: one GPU at a mean of 78 / 2, busy */
    assert_non_null(strstr(a, "bucket 1767657600000 1 0x1.38p+5 1\n"));
    if (strcmp(a, b) != 0)
        fail_msg("fleet figures differ after writes into sealed days");
    free(a);
    free(b);
    scratch_store_close(st, path);
    scratch_store_close(ref, path2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migration_keeps_figures),
        cmocka_unit_test(test_sealed_days_take_writes),
        cmocka_unit_test(test_hour_chunks_keep_figures),
        cmocka_unit_test(test_sealing_is_a_step),
        cmocka_unit_test(test_memory_and_limit),
        cmocka_unit_test(test_power_p95),
        cmocka_unit_test(test_hour_chunks_migration_009_and_writes),
        cmocka_unit_test(test_hour_chunks_migration_010_and_writes),
        cmocka_unit_test(test_series_last),
        cmocka_unit_test(test_history_one_series),
        cmocka_unit_test(test_fleet_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
