/* The XLSX export's speed targets (README "Speed"):
 *   bench_xlsx options OUT.xlsx   a 60-month scenario with 10 options: best of 20 exports,
 *                                 target under 200 ms;
 *   bench_xlsx rows N OUT.xlsx    the demo scenario with a Telemetry sheet of N rows x 8
 *                                 columns streamed through the constant-memory writer; run
 *                                 under /usr/bin/time by bench_xlsx.sh beside xlsx_python.py
 *                                 writing the same rows (target: 3x faster, under 64 MB).
 * The rows are the ones xlsx_python.py makes: node-%06d, GPUs 0..7, fixed model, a UUID from
 * the row number, and figures from the row number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/embedded.h"
#include "gpuplan/engine.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/scenario_json.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct gen {
    long n, i;
    char node[32], uuid[48];
} gen;

static int next_row(void *arg, gp_xlsx_gpu *row) {
    gen *g = arg;
    if (g->i >= g->n)
        return 0;
    long i = g->i++;
    snprintf(g->node, sizeof g->node, "node-%06ld", i / 8);
    snprintf(g->uuid, sizeof g->uuid, "GPU-%08lx-0000-4000-8000-%012lx", i, i * 7919);
    *row = (gp_xlsx_gpu){.node = g->node,
                         .model = "NVIDIA H100 80GB HBM3",
                         .uuid = g->uuid,
                         .index = (int)(i % 8),
                         .hours = 720,
                         .util_mean = (double)(i % 101) / 100,
                         .busy_share = (double)(i % 97) / 96,
                         .has_power = true,
                         .power_mean_w = 60 + (double)(i % 641)};
    return 1;
}

static int parse(const char *text, size_t len, gp_scenario *s) {
    gp_err err;
    if (gp_scenario_parse(text, len, "bench", s, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "options") && strcmp(argv[1], "rows")) ||
        (!strcmp(argv[1], "rows") && argc < 4)) {
        fprintf(stderr, "usage: bench_xlsx options OUT.xlsx | rows N OUT.xlsx\n");
        return 2;
    }
    gp_scenario *s = malloc(sizeof *s);
    gp_result *r = malloc(sizeof *r);
    gp_err err;
    if (!strcmp(argv[1], "options")) {
        char text[8192];
        int n = snprintf(text, sizeof text,
                         "{\"name\": \"ten options\", \"horizon_months\": 60,"
                         " \"demand\": {\"gpus\": 64, \"utilization\": 0.6},"
                         " \"self_hosted\": {\"server_price\": 250000, \"tariff\": {\"periods\": ["
                         "{\"name\": \"peak\", \"hours_per_day\": 10, \"price_per_kwh\": 0.2},"
                         "{\"name\": \"off\", \"hours_per_day\": 14, \"price_per_kwh\": 0.08}]}},"
                         " \"cloud_options\": [");
        for (int i = 0; i < 10; i++) {
            const char *pricing = i % 3 == 0 ? "on_demand" : i % 3 == 1 ? "spot" : "committed";
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "%s{\"name\": \"option %d\", \"pricing\": \"%s\", \"gpus_per_instance\": "
                          "8, \"hourly\": %d%s}",
                          i ? "," : "", i, pricing, 20 + i,
                          i % 3 == 2 ? ", \"term_months\": 36, \"upfront\": 50000" : "");
        }
        snprintf(text + n, sizeof text - (size_t)n, "]}");
        if (parse(text, strlen(text), s))
            return 1;
        gp_model_evaluate(s, r);
        gp_report_meta meta = {"2026-11-22", NULL, 0, NULL, "bench"};
        double best = 1e9;
        for (int k = 0; k < 20; k++) {
            double t0 = now_s();
            if (gp_report_xlsx(s, r, &meta, NULL, argv[2], &err)) {
                fprintf(stderr, "%s: %s\n", err.where, err.msg);
                return 1;
            }
            double t = now_s() - t0;
            if (t < best)
                best = t;
        }
        printf("xlsx: %d months, %d options: best of 20 exports %.1f ms\n", s->horizon_months,
               s->n_options, best * 1e3);
    } else {
        if (parse((const char *)gp_demo_scenarios[0].data, gp_demo_scenarios[0].len, s))
            return 1;
        gp_model_evaluate(s, r);
        gp_report_meta meta = {"2026-11-22", NULL, 0, NULL, "bench"};
        gen g = {.n = atol(argv[2])};
        gp_xlsx_telemetry tel = {.since = "2026-10-23T00:00:00Z",
                                 .until = "2026-11-22T00:00:00Z",
                                 .busy_threshold = 0.05,
                                 .next = next_row,
                                 .arg = &g};
        double t0 = now_s();
        if (gp_report_xlsx(s, r, &meta, &tel, argv[3], &err)) {
            fprintf(stderr, "%s: %s\n", err.where, err.msg);
            return 1;
        }
        printf("xlsx: Telemetry sheet of %ld rows x 8 columns: %.2f s\n", g.n, now_s() - t0);
    }
    free(s);
    free(r);
    return 0;
}
