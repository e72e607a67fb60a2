/* History import speed: 5-minute rollup rows written straight into the rollups (the store half
 * of `gpuplan import --prometheus`) into a database already holding 30 days of a large fleet.
 * The fleet (GPUS GPUs in nodes of 8, utilization and power every 5 minutes for 30 days) is
 * generated once through the same writer, and kept when DB is named; then one more day of every
 * GPU, with six metrics, is imported in chunks of 8 nodes a transaction, as the importer commits
 * them, and timed (writes and commits only, not the making of the rows).
 * Usage: bench_history [DB [GPUS]]   (default DB: $TMPDIR (or /var/tmp)/gpuplan-bench-history-
 * GPUSgpus-30d-s11.db, kept so a rerun reuses the fleet; "-": a scratch database; 10,000 GPUs).
 * Each run imports one more day: delete the file to start over. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/prom_range.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/store_history.h"
#include "gpuplan/store_telemetry.h"
#include "../dbfile.h"

#define DAY_MS 86400000LL

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int count_gpu(const gp_cap_gpu *g, void *arg) {
    (void)g;
    (*(long *)arg)++;
    return 0;
}

/* One batch: nodes [n0, n1) of 8 GPUs over [from, to), with the given metrics. */
static int make_batch(gp_rollups *b, int n0, int n1, int64_t from, int64_t to, const int *metrics,
                      int n_metrics) {
    gp_err err;
    for (int node = n0; node < n1; node++) {
        char host[32];
        snprintf(host, sizeof host, "host%05d", node);
        for (int g = 0; g < 8; g++) {
            char uuid[48];
            snprintf(uuid, sizeof uuid, "GPU-%05d-%d", node, g);
            int gi = gp_samples_gpu(&b->gpus, uuid, g, "", "NVIDIA H100 80GB HBM3", host);
            for (int64_t ts = from; ts < to; ts += GP_BUCKET_MS) {
                double hour = (double)((ts / 3600000) % 24);
                /* As dcgm-exporter reports them: whole percents, MiB, degrees and MHz, watts to
                 * three decimals; a bucket holds 20 samples (15 s scrapes). */
                long long util =
                    (g + node) % 4 == 0 ? 0 : llround(50 + 50 * sin(hour / 24 * 6.2832 + g));
                for (int k = 0; k < n_metrics; k++) {
                    long long milli = metrics[k] == GP_M_GPU_UTIL  ? util * 1000
                                      : metrics[k] == GP_M_POWER_W ? 60000 + util * 6417
                                                                   : 40000 + util / 4 * 1000;
                    long long spread = metrics[k] == GP_M_POWER_W ? 12345 : 3000;
                    if (gp_rollups_add(b, gi, (gp_metric)metrics[k], ts, 20,
                                       (double)(milli * 20) / 1000, (double)(milli - spread) / 1000,
                                       (double)(milli + spread) / 1000, &err))
                        return fprintf(stderr, "%s\n", err.msg), 1;
                }
            }
        }
    }
    gp_rollups_finish(b);
    return 0;
}

/* Import nodes [0, nodes) over [from, to) in chunks of 8 nodes; *secs and *cpu get the wall and
 * CPU seconds spent writing (CPU time says more on a machine shared with other work). */
static int import(gp_store *st, long long *ids, int nodes, int64_t from, int64_t to,
                  const int *metrics, int n_metrics, double *secs, double *cpu, size_t *rows) {
    gp_err err;
    *secs = 0;
    *cpu = 0;
    *rows = 0;
    for (int n0 = 0; n0 < nodes; n0 += 8) {
        int n1 = n0 + 8 < nodes ? n0 + 8 : nodes;
        gp_rollups b;
        gp_rollups_init(&b, 1u << 26);
        if (make_batch(&b, n0, n1, from, to, metrics, n_metrics))
            return 1;
        /* Every GPU of these nodes under the first node of the chunk would skew nothing but
         * the fleet's per-node rows: write each node's GPUs under its own node id. */
        double t0 = now_s(), c0 = cpu_s();
        if (gp_store_begin(st, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        gp_rollups per;
        for (int node = n0; node < n1; node++) {
            gp_rollups_init(&per, 1u << 26);
            per.gpus = b.gpus; /* borrowed: the rows of this node only */
            per.r = b.r + (size_t)(node - n0) * (b.n / (size_t)(n1 - n0));
            per.n = b.n / (size_t)(n1 - n0);
            size_t w, skipped;
            if (gp_store_rollups_write(st, ids[node], &per, &w, &skipped, &err))
                return fprintf(stderr, "%s\n", err.msg), 1;
            *rows += w;
        }
        if (gp_store_commit(st, &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
        *secs += now_s() - t0;
        *cpu += cpu_s() - c0;
        gp_rollups_done(&b);
    }
    return 0;
}

int main(int argc, char **argv) {
    char tmp[4096];
    const char *db = argc > 1 ? argv[1] : NULL;
    int gpus = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 10000;
    if (gpus < 8 || gpus > 100000)
        return fprintf(stderr, "usage: bench_history [DB [GPUS]]\n"), 2;
    int nodes = gpus / 8;
    char kept[512];
    if (!db) { /* named by its parameters and the schema that made it */
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
        snprintf(kept, sizeof kept, "%s/gpuplan-bench-history-%dgpus-30d-s11.db", dir, gpus);
        db = kept;
        printf("history: database %s\n", db);
    } else if (strcmp(db, "-") == 0) {
        test_scratch_db(tmp, sizeof tmp, "gpuplan-bench-hist");
        db = tmp;
    }
    gp_store *st;
    gp_err err;
    if (gp_store_open(db, &st, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    int64_t end = (int64_t)time(NULL) * 1000 / DAY_MS * DAY_MS - DAY_MS;
    int64_t start = end - 30 * DAY_MS;
    long long *ids = malloc((size_t)nodes * sizeof *ids);
    for (int node = 0; node < nodes; node++) {
        char name[32];
        snprintf(name, sizeof name, "node%05d", node);
        if (gp_store_node_id(st, name, &ids[node], &err) == GP_E_NOTFOUND &&
            (gp_store_node_add(st, name, NULL, 0, &err) ||
             gp_store_node_id(st, name, &ids[node], &err)))
            return fprintf(stderr, "%s\n", err.msg), 1;
    }
    long have = 0;
    gp_cap_select all = {start, end, NULL, NULL};
    gp_store_capacity_gpus(st, &all, count_gpu, &have, &err);
    static const int base[] = {GP_M_GPU_UTIL, GP_M_POWER_W};
    if (have < gpus) {
        double secs, cpu;
        size_t rows;
        double t0 = now_s();
        if (import(st, ids, nodes, start, end, base, 2, &secs, &cpu, &rows))
            return 1;
        printf("history: generated %d GPUs x 30 days (%.1f M rows of utilization and power) in "
               "%.0f s (%.0f rows/s writing)\n",
               gpus, rows / 1e6, now_s() - t0, rows / secs);
    }
    /* The measured import: the next day of every GPU, six metrics. */
    static const int six[] = {GP_M_GPU_UTIL, GP_M_POWER_W,  GP_M_MEM_USED_MIB,
                              GP_M_TEMP_C,   GP_M_ENERGY_J, GP_M_SM_CLOCK_MHZ};
    int64_t day = end;
    for (int d = 0;; d++) { /* a kept database: the first day not imported yet */
        long n = 0;
        gp_cap_select sel = {day, day + DAY_MS, NULL, NULL};
        gp_store_capacity_gpus(st, &sel, count_gpu, &n, &err);
        if (n == 0 || d > 60)
            break;
        day += DAY_MS;
    }
    double secs, cpu;
    size_t rows;
    if (import(st, ids, nodes, day, day + DAY_MS, six, 6, &secs, &cpu, &rows))
        return 1;
    printf("history: imported 1 day x %d GPUs x 6 metrics (%zu 5-minute rows) into 30 days of "
           "%d GPUs: %.2f s, %.3f M rows/s (CPU %.2f s: %.3f M rows per CPU second)\n",
           gpus, rows, gpus, secs, rows / secs / 1e6, cpu, rows / cpu / 1e6);
    long n = 0;
    double t0 = now_s();
    gp_cap_select month = {day + DAY_MS - 30 * DAY_MS, day + DAY_MS, NULL, NULL};
    gp_store_capacity_gpus(st, &month, count_gpu, &n, &err);
    printf("history: capacity GPUs read over 30 days of %ld GPUs: %.3f s\n", n, now_s() - t0);
    gp_db_stats stats;
    if (gp_store_stats(st, &stats, &err) == GP_OK)
        printf("history: database %.2f GB, %lld 5-minute rows\n", stats.file_bytes / 1e9,
               stats.rollups_5m);
    free(ids);
    gp_store_close(st);
    if (db == tmp)
        test_remove_db(tmp);
    return 0;
}
