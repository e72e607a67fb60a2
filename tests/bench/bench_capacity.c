/* Capacity speed targets: `capacity --since 30d` over 1,000 GPUs with 30 days of telemetry
 * (< 1 s: the reads the command makes, on the rollups), and the mix curve for N = 1,000
 * (< 100 ms). The telemetry is generated (125 nodes of 8 GPUs, a sample every 5 minutes) and
 * stored through the real store first. Usage: bench_capacity [DB] (kept if named). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/engine.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/store_telemetry.h"
#include "../dbfile.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int count_gpu(const gp_cap_gpu *g, void *arg) {
    (void)g;
    (*(long *)arg)++;
    return 0;
}

typedef struct loads {
    gp_cap_bucket *rows;
    double *b;
    size_t n;
} loads;

static int take(const gp_cap_bucket *b, void *arg) {
    loads *l = arg;
    if (l->n < 9000)
        l->rows[l->n++] = *b;
    return 0;
}

int main(int argc, char **argv) {
    char tmp[4096];
    const char *db = argc > 1 ? argv[1] : NULL;
    if (!db) {
        test_scratch_db(tmp, sizeof tmp, "gpuplan-bench-cap");
        db = tmp;
    }
    gp_store *st;
    gp_err err;
    if (gp_store_open(db, &st, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    int64_t end = (int64_t)time(NULL) * 1000 / 300000 * 300000;
    int64_t start = end - 30LL * 86400000;
    long have = 0;
    gp_cap_select all = {start, end + 1, NULL, NULL};
    gp_store_capacity_gpus(st, &all, count_gpu, &have, &err);
    if (have < 1000) {
        double t0 = now_s();
        for (int node = 0; node < 125; node++) {
            char name[32];
            snprintf(name, sizeof name, "node%03d", node);
            gp_source_cfg src = {0};
            long long id;
            gp_store_node_add(st, name, &src, 0, &err);
            gp_store_node_id(st, name, &id, &err);
            gp_samples s;
            gp_samples_init(&s, 1u << 24);
            for (int g = 0; g < 8; g++) {
                char uuid[32];
                snprintf(uuid, sizeof uuid, "GPU-%03d-%d", node, g);
                int gi = gp_samples_gpu(&s, uuid, g, "", "NVIDIA H100 80GB HBM3", name);
                for (int64_t ts = start; ts < end; ts += 300000) {
                    /* A daily wave: busy by day, a share of GPUs by night. */
                    double hour = (double)((ts / 3600000) % 24);
                    double util = (g + node) % 4 == 0 ? 0 : 50 + 50 * sin(hour / 24 * 6.2832 + g);
                    gp_samples_add(&s, gi, GP_M_GPU_UTIL, util, ts, -1, &err);
                    gp_samples_add(&s, gi, GP_M_POWER_W, 60 + util * 6.4, ts, -1, &err);
                }
            }
            size_t written;
            gp_store_begin(st, &err);
            if (gp_store_samples_write(st, id, &s, end, &written, &err) ||
                gp_store_commit(st, &err))
                return fprintf(stderr, "%s\n", err.msg), 1;
            gp_samples_done(&s);
        }
        printf("capacity: stored 1,000 GPUs x 30 days (17.3 M samples) in %.1f s\n", now_s() - t0);
    }
    /* What `capacity --since 30d` reads: every GPU's hours, and the fleet's 5-minute rows. */
    double t0 = now_s();
    long n = 0;
    loads l = {malloc(9000 * sizeof(gp_cap_bucket)), malloc(9000 * sizeof(double)), 0};
    gp_store_capacity_gpus(st, &all, count_gpu, &n, &err);
    gp_store_capacity_buckets(st, &all, 5, take, &l, &err);
    double t_read = now_s() - t0;
    printf("capacity: --since 30d over %ld GPUs: %.3f s (%zu fleet buckets)\n", n, t_read, l.n);
    l.n = gp_cap_complete_load(l.rows, l.n, n, l.b);
    gp_scenario *sc = malloc(sizeof *sc);
    gp_scenario_defaults(sc);
    sc->horizon_months = 36;
    sc->gpus = 1000;
    sc->utilization = 0.5;
    sc->server_price = 250000;
    sc->gpu_tdp_w = 700;
    sc->gpu_idle_w = 100;
    sc->server_base_w = 1500;
    sc->n_options = 1;
    gp_option_defaults(&sc->options[0]);
    snprintf(sc->options[0].name, sizeof sc->options[0].name, "od");
    sc->options[0].gpus_per_instance = 8;
    sc->options[0].hourly = 55.04;
    double *curve = malloc(1001 * sizeof *curve);
    int best;
    t0 = now_s();
    for (int r = 0; r < 10; r++)
        gp_model_mix(sc, 0, l.b, l.n, curve, &best, &err);
    printf("capacity: mix curve for N = 1,000 over %zu buckets: %.2f ms (optimum %d GPUs)\n", l.n,
           (now_s() - t0) / 10 * 1e3, best);
    free(curve);
    free(sc);
    free(l.b);
    free(l.rows);
    gp_store_close(st);
    if (db == tmp) {
        test_remove_db(tmp);
    }
    return 0;
}
