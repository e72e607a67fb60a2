/* A GPU's day of telemetry as a fleet's dcgm-exporter reports it, for the storage benchmarks:
 * a sample every 15 s of every canonical metric, folded into 5-minute buckets (20 samples:
 * count, sum, min, max) the way the collector and `import --prometheus` fold them, in double
 * arithmetic, sample after sample. Deterministic: a GPU and day give the same buckets.
 *
 * What it models (the figures are typical of H100 SXM nodes, not a measured trace): three GPUs
 * in ten sit idle all day; the others run jobs of a few hours with gaps, each job at its own
 * level of utilization with sample-to-sample noise and stalls. Whole percents, MiB, degrees and
 * MHz; watts and joules to three decimals (the exporter's %f), joules from DCGM's millijoule
 * counter times 1e-3 as src/formats/dcgm.c converts it; total memory and the power limit
 * constant. The noise is what makes a chunk cost bytes: tests/bench/bench_history.c's own
 * generator (one value an hour) is the easy case. */
#ifndef GPUPLAN_BENCH_FLEET_SIM_H
#define GPUPLAN_BENCH_FLEET_SIM_H

#include <math.h>
#include <stdint.h>

#include "gpuplan/chunk.h"
#include "gpuplan/samples.h"

#define SIM_SAMPLES 20 /* a 5-minute bucket of 15 s scrapes */

typedef struct sim_rng {
    uint64_t s;
} sim_rng;

static inline uint64_t sim_next(sim_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double sim_uniform(sim_rng *r) {
    return (double)(sim_next(r) >> 11) * 0x1p-53;
}

static inline double sim_normal(sim_rng *r) { /* Irwin-Hall: close enough, and cheap */
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += sim_uniform(r);
    return s - 6;
}

/* out[m] gets metric m's 288 buckets of GPU gpu on day day (days since 1970). */
static inline void sim_gpu_day(long gpu, long day, gp_chunk out[GP_M_COUNT]) {
    sim_rng r = {(uint64_t)gpu * 0x100000001b3ull ^ (uint64_t)day * 0xcbf29ce484222325ull};
    for (int m = 0; m < GP_M_COUNT; m++)
        gp_chunk_init(&out[m], GP_CHUNK_SLOTS_MAX);
    int idle_all_day = gpu % 10 < 3;
    double level = 0, temp = 33 + sim_uniform(&r) * 3, mem_job = 0;
    long long energy_mj = (long long)(sim_uniform(&r) * 4e12); /* since the driver loaded */
    int job_left = 0, gap_left = (int)(sim_uniform(&r) * 240);
    for (int b = 0; b < GP_CHUNK_SLOTS_MAX; b++) {
        for (int k = 0; k < SIM_SAMPLES; k++) {
            if (!idle_all_day) {
                if (job_left > 0 && --job_left == 0)
                    gap_left = 40 + (int)(sim_uniform(&r) * 480);
                else if (job_left == 0 && --gap_left <= 0) {
                    job_left = 240 + (int)(sim_uniform(&r) * 1200);
                    level = 40 + sim_uniform(&r) * 60;
                    mem_job = 20000 + floor(sim_uniform(&r) * 60000);
                }
            }
            int busy = job_left > 0;
            double util = 0;
            if (busy && sim_uniform(&r) > 0.05)
                util = fmin(100, fmax(0, nearbyint(level + 6 * sim_normal(&r))));
            double milliwatts =
                busy ? 90000 + 5500 * util + 12000 * sim_normal(&r) : 62000 + 1500 * sim_normal(&r);
            milliwatts = nearbyint(fmin(700000, fmax(20000, milliwatts)));
            energy_mj += (long long)milliwatts * 15; /* mW for 15 s: mJ */
            temp += ((busy ? 45 + util / 4 : 32) - temp) / 40 + 0.3 * sim_normal(&r);
            double mem_used = busy ? mem_job + 64 * floor(sim_uniform(&r) * 2) : 0;
            double clock =
                busy ? (sim_uniform(&r) < 0.1 ? 1755 + 15 * floor(sim_uniform(&r) * 16) : 1980)
                     : 345;
            double v[GP_M_COUNT] = {
                [GP_M_GPU_UTIL] = util,          [GP_M_MEM_USED_MIB] = mem_used,
                [GP_M_MEM_TOTAL_MIB] = 81559,    [GP_M_POWER_W] = milliwatts / 1000,
                [GP_M_TEMP_C] = nearbyint(temp), [GP_M_ENERGY_J] = (double)energy_mj * 1e-3,
                [GP_M_SM_CLOCK_MHZ] = clock,     [GP_M_POWER_LIMIT_W] = 700,
                [GP_M_NODE_POWER_W] = 0,
            };
            for (int m = 0; m < GP_M_COUNT; m++) {
                gp_chunk_bucket *x = &out[m].b[b];
                if (x->n == 0) {
                    x->sum = x->min = x->max = v[m];
                } else {
                    x->sum += v[m];
                    x->min = fmin(x->min, v[m]);
                    x->max = fmax(x->max, v[m]);
                }
                x->n++;
            }
        }
    }
}

#endif
