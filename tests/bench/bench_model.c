/* One scenario evaluated over and over (every break-even point): prints the mean time per
 * evaluation. Targets: under 50 us for the version 1 seed (36 months, 3 options), under 20 us
 * for tests/bench/v2-plan-60.json (60 months, growth, as_needed, lead time, bridge, 3
 * options). Usage: bench_model [SCENARIO] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuplan/embedded.h"
#include "gpuplan/engine.h"
#include "gpuplan/scenario_json.h"

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *text = (const char *)gp_demo_scenarios[0].data;
    size_t len = gp_demo_scenarios[0].len;
    char *file = NULL;
    if (argc > 1) {
        FILE *f = fopen(argv[1], "rb");
        if (!f) {
            perror(argv[1]);
            return 1;
        }
        file = malloc(GP_SCENARIO_MAX_BYTES);
        len = fread(file, 1, GP_SCENARIO_MAX_BYTES, f);
        fclose(f);
        text = file;
    }
    gp_scenario *s = malloc(sizeof *s);
    gp_result *r = malloc(sizeof *r);
    gp_err err;
    if (gp_scenario_parse(text, len, argc > 1 ? argv[1] : "demo", s, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 1;
    }
    /* Warm up, then time enough rounds for a stable mean. */
    for (int i = 0; i < 1000; i++)
        gp_model_evaluate(s, r);
    if (r->error.code != GP_OK) {
        fprintf(stderr, "%s: %s\n", r->error.where, r->error.msg);
        return 1;
    }
    int rounds = 200000;
    /* Wall time and this process's CPU time: on a shared machine the second leaves out the
     * time the process waited for a core. */
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    double sink = 0;
    for (int i = 0; i < rounds; i++) {
        gp_model_evaluate(s, r);
        sink += r->self.total;
    }
    double per = (clock_s(CLOCK_MONOTONIC) - t0) / rounds;
    double cpu = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / rounds;
    printf("model: \"%s\": %d months, %d options: %.2f us per evaluation, %.2f us CPU "
           "(%d rounds, check %g)\n",
           s->name, s->horizon_months, s->n_options, per * 1e6, cpu * 1e6, rounds, sink / rounds);
    free(s);
    free(r);
    free(file);
    return 0;
}
