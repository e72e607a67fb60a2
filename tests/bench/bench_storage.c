/* Storage of a fleet's month with every canonical metric: GPUS GPUs (nodes of 8) x DAYS days of
 * the simulated telemetry of fleet_sim.h (a sample every 15 s, noise and all) folded into
 * 5-minute buckets and written through the history writer, as `import --prometheus` writes
 * them (5-minute and hourly chunks, capacity hours, the fleet rollups); then the pages each
 * table uses (`db stats --space`), per GPU and day, and that extrapolated to 10,000 GPUs x 30
 * days. Storage grows with GPUs x days (the per-node fleet rows with nodes), so a tenth of the
 * fleet measures it without an hour of generating.
 * Usage: bench_storage [GPUS [DAYS [DB]]]   (default 1,000 GPUs x 30 days; DB: a scratch file
 * in $TMPDIR or /var/tmp, removed at the end unless named) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/prom_range.h"
#include "gpuplan/store_history.h"
#include "gpuplan/store_telemetry.h"
#include "../dbfile.h"
#include "fleet_sim.h"

#define DAY_MS 86400000LL

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct usage {
    double scale; /* to 10,000 GPUs x 30 days */
    long long total;
} usage;

static int show(const char *table, long long bytes, void *arg) {
    usage *u = arg;
    u->total += bytes;
    if (bytes >= 1 << 17) /* 128 KB */
        printf("  %-16s %10.1f MB   %7.2f GB at 10,000 GPUs x 30 days\n", table, bytes / 1e6,
               bytes * u->scale / 1e9);
    return 0;
}

int main(int argc, char **argv) {
    int gpus = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1000;
    int days = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 30;
    if (gpus < 8 || gpus % 8 || days < 1 || days > 400)
        return fprintf(stderr, "usage: bench_storage [GPUS (a multiple of 8) [DAYS [DB]]]\n"), 2;
    char tmp[4096];
    const char *db = argc > 3 ? argv[3] : NULL;
    if (!db) {
        test_scratch_db(tmp, sizeof tmp, "gpuplan-bench-storage");
        db = tmp;
    }
    gp_store *st;
    gp_err err;
    if (gp_store_open(db, &st, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    int64_t end = (int64_t)time(NULL) * 1000 / DAY_MS * DAY_MS - DAY_MS;
    int64_t start = end - days * DAY_MS;
    static gp_chunk day[GP_M_COUNT];
    size_t rows = 0;
    double writing = 0;
    for (int node = 0; node < gpus / 8; node++) {
        char name[32];
        long long id;
        snprintf(name, sizeof name, "node%05d", node);
        if (gp_store_node_add(st, name, NULL, 0, &err) || gp_store_node_id(st, name, &id, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        gp_rollups b;
        gp_rollups_init(&b, 1u << 26);
        for (int g = 0; g < 8; g++) {
            char uuid[48];
            snprintf(uuid, sizeof uuid, "GPU-%05d-%d", node, g);
            int gi = gp_samples_gpu(&b.gpus, uuid, g, "", "NVIDIA H100 80GB HBM3", name);
            for (int d = 0; d < days; d++) {
                int64_t day_ms = start + d * DAY_MS;
                sim_gpu_day(node * 8L + g, day_ms / DAY_MS, day);
                for (int m = 0; m < GP_M_COUNT; m++) {
                    if (m == GP_M_NODE_POWER_W)
                        continue; /* a node's, from Redfish: not a GPU's */
                    for (int i = 0; i < GP_CHUNK_SLOTS_MAX; i++) {
                        const gp_chunk_bucket *x = &day[m].b[i];
                        if (gp_rollups_add(&b, gi, (gp_metric)m, day_ms + i * 300000LL, x->n,
                                           x->sum, x->min, x->max, &err))
                            return fprintf(stderr, "%s\n", err.msg), 1;
                    }
                }
            }
        }
        gp_rollups_finish(&b);
        double c0 = cpu_s();
        size_t written, skipped;
        if (gp_store_begin(st, &err) ||
            gp_store_rollups_write(st, id, &b, &written, &skipped, &err) ||
            gp_store_commit(st, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        writing += cpu_s() - c0;
        rows += written;
        gp_rollups_done(&b);
    }
    gp_db_stats stats;
    if (gp_store_stats(st, &stats, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    usage u = {10000.0 * 30 / ((double)gpus * days), 0};
    printf("storage: %d GPUs x %d days x 8 metrics of fleet_sim.h's telemetry: %.1f M 5-minute "
           "buckets written in %.1f s of CPU (%.2f M rows per CPU second)\n",
           gpus, days, rows / 1e6, writing, rows / writing / 1e6);
    printf("storage: tables of 128 KB or more, with their indexes:\n");
    if (gp_store_space(st, show, &u, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    printf("storage: pages %.1f MB: %.0f bytes a GPU and day, %.1f a 5-minute bucket of one "
           "metric; 10,000 GPUs x 30 days: %.2f GB\n",
           u.total / 1e6, u.total / ((double)gpus * days),
           u.total / ((double)gpus * days * 8 * GP_CHUNK_SLOTS_MAX), u.total * u.scale / 1e9);
    gp_store_close(st);
    if (db == tmp)
        test_remove_db(tmp);
    return 0;
}
