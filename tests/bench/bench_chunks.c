/* Chunk sizes and speed (src/formats/chunk.c) on a simulated fleet's telemetry (fleet_sim.h):
 * bytes per bucket of each canonical metric, as 5-minute chunks (288 buckets a day) and as
 * hourly chunks (24 buckets folded from them), then the encoder's and decoder's speed. The
 * database's pages add the row and B-tree overhead on top (bench_history measures those).
 * Usage: bench_chunks [GPUS [DAYS]]   (default 200 GPUs x 3 days) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fleet_sim.h"

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *const NAMES[GP_M_COUNT] = {
    [GP_M_GPU_UTIL] = "utilization",       [GP_M_MEM_USED_MIB] = "memory used",
    [GP_M_MEM_TOTAL_MIB] = "memory total", [GP_M_POWER_W] = "power",
    [GP_M_TEMP_C] = "temperature",         [GP_M_ENERGY_J] = "energy",
    [GP_M_SM_CLOCK_MHZ] = "SM clock",      [GP_M_POWER_LIMIT_W] = "power limit",
};

/* The hourly chunk of a 5-minute day: 12 buckets a slot, merged in bucket order. */
static void hourly(const gp_chunk *c5, gp_chunk *h) {
    gp_chunk_init(h, 24);
    for (int i = 0; i < c5->slots; i++) {
        const gp_chunk_bucket *b = &c5->b[i];
        gp_chunk_bucket *x = &h->b[i / 12];
        if (b->n == 0)
            continue;
        if (x->n == 0) {
            *x = *b;
            continue;
        }
        x->n += b->n;
        x->sum += b->sum;
        x->min = b->min < x->min ? b->min : x->min;
        x->max = b->max > x->max ? b->max : x->max;
    }
}

static size_t encoded(const gp_chunk *c) {
    static unsigned char buf[GP_CHUNK_MAX_BYTES];
    size_t len;
    gp_err err;
    if (gp_chunk_encode(c, buf, &len, &err) != GP_OK) {
        fprintf(stderr, "bench_chunks: %s\n", err.msg);
        exit(1);
    }
    return len;
}

int main(int argc, char **argv) {
    long gpus = argc > 1 ? atol(argv[1]) : 200, days = argc > 2 ? atol(argv[2]) : 3;
    if (gpus < 1 || days < 1)
        return fprintf(stderr, "usage: bench_chunks [GPUS [DAYS]]\n"), 2;
    static gp_chunk day[GP_M_COUNT];
    gp_chunk h;
    double bytes5[GP_M_COUNT] = {0}, bytes1h[GP_M_COUNT] = {0};
    for (long g = 0; g < gpus; g++)
        for (long d = 0; d < days; d++) {
            sim_gpu_day(g, 20000 + d, day);
            for (int m = 0; m < GP_M_COUNT; m++) {
                if (m == GP_M_NODE_POWER_W)
                    continue;
                bytes5[m] += (double)encoded(&day[m]);
                hourly(&day[m], &h);
                bytes1h[m] += (double)encoded(&h);
            }
        }
    double series_days = (double)gpus * (double)days, all5 = 0, all1h = 0;
    printf("%ld GPUs x %ld days of simulated telemetry (tests/bench/fleet_sim.h)\n", gpus, days);
    printf("%-14s %12s %12s %12s %12s\n", "metric", "5m B/day", "5m B/bucket", "1h B/day",
           "1h B/bucket");
    for (int m = 0; m < GP_M_COUNT; m++) {
        if (m == GP_M_NODE_POWER_W)
            continue;
        double d5 = bytes5[m] / series_days, d1 = bytes1h[m] / series_days;
        all5 += d5;
        all1h += d1;
        printf("%-14s %12.0f %12.2f %12.0f %12.2f\n", NAMES[m], d5, d5 / GP_CHUNK_SLOTS_MAX, d1,
               d1 / 24);
    }
    printf("%-14s %12.0f %12.2f %12.0f %12.2f\n", "a GPU, all 8", all5, all5 / GP_CHUNK_SLOTS_MAX,
           all1h, all1h / 24);
    printf("10,000 GPUs x 30 days, chunk bytes alone: 5-minute %.2f GB, hourly %.2f GB\n",
           all5 * 3e5 / 1e9, all1h * 3e5 / 1e9);

    /* Speed: every metric's day of one GPU, encoded and decoded again and again. */
    sim_gpu_day(7, 20000, day);
    static unsigned char buf[GP_M_COUNT][GP_CHUNK_MAX_BYTES];
    size_t len[GP_M_COUNT];
    gp_err err;
    long rounds = 2000;
    double t0 = cpu_s();
    for (long i = 0; i < rounds; i++)
        for (int m = 0; m < GP_M_NODE_POWER_W; m++) /* the eight a GPU's */
            if (gp_chunk_encode(&day[m], buf[m], &len[m], &err) != GP_OK)
                return fprintf(stderr, "%s\n", err.msg), 1;
    double t1 = cpu_s();
    gp_chunk back;
    for (long i = 0; i < rounds; i++)
        for (int m = 0; m < GP_M_NODE_POWER_W; m++)
            if (gp_chunk_decode(buf[m], len[m], "bench", &back, &err) != GP_OK)
                return fprintf(stderr, "%s\n", err.msg), 1;
    double t2 = cpu_s(), buckets = (double)rounds * GP_M_NODE_POWER_W * GP_CHUNK_SLOTS_MAX;
    printf("encode %.1f M buckets/s, decode %.1f M buckets/s (CPU)\n", buckets / (t1 - t0) / 1e6,
           buckets / (t2 - t1) / 1e6);
    return 0;
}
