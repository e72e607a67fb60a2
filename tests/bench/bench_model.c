/* One scenario (36 months, 3 options, every break-even point) evaluated over and over:
 * prints the mean time per evaluation. Target: under 50 us. Usage: bench_model [SCENARIO] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuplan/embedded.h"
#include "gpuplan/model.h"
#include "gpuplan/scenario_json.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    int rounds = 200000;
    double t0 = now_s();
    double sink = 0;
    for (int i = 0; i < rounds; i++) {
        gp_model_evaluate(s, r);
        sink += r->self.total;
    }
    double per = (now_s() - t0) / rounds;
    printf("model: \"%s\": %d months, %d options: %.2f us per evaluation (%d rounds, check %g)\n",
           s->name, s->horizon_months, s->n_options, per * 1e6, rounds, sink / rounds);
    free(s);
    free(r);
    free(file);
    return 0;
}
