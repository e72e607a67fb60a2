/* sweep --summary's engine on one grid: the summary solved row by row, timed (wall and CPU,
 * points a second), then checked against the summary walked point by point on the same grid
 * or, for a grid too large to walk here, on its first CHECK_ROWS rows (0: the whole grid).
 * Target: a sweep over a version 2 parameter at >= 1,000,000 grid points a second on one core.
 * Usage: bench_sweep SCENARIO CHECK_ROWS PARAM[:OPTION_INDEX]=FROM:TO:STEPS... (the last changes
 * fastest) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/scenario_json.h"
#include "gpuplan/sweep.h"

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int parse_axis(const char *spec, gp_sweep_axis *a) {
    char name[64];
    const char *eq = strchr(spec, '=');
    if (!eq || eq - spec >= (int)sizeof name)
        return 1;
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    gp_err err;
    memset(a, 0, sizeof *a);
    char *colon = strchr(name, ':'); /* NAME:OPTION, the option by its index */
    if (colon) {
        *colon = '\0';
        a->option = (int)strtol(colon + 1, NULL, 10);
    }
    if (gp_sweep_param_find(name, &a->param, &err))
        return 1;
    if (colon && a->param == GP_SWEEP_WORK_PER_GPU_HOUR)
        a->param = GP_SWEEP_OPTION_WORK_PER_GPU;
    return sscanf(eq + 1, "%lf:%lf:%d", &a->from, &a->to, &a->steps) != 3;
}

static int same(const gp_sweep_summary *a, const gp_sweep_summary *b, int n_contenders) {
    if (a->points != b->points || a->n_flips != b->n_flips)
        return 0;
    for (int c = 0; c < n_contenders; c++)
        if (a->wins[c] != b->wins[c])
            return 0;
    for (uint64_t k = 0; k < a->n_flips && k < GP_SWEEP_MAX_FLIPS; k++)
        if (a->flips[k].from != b->flips[k].from || a->flips[k].to != b->flips[k].to ||
            memcmp(a->flips[k].values, b->flips[k].values, sizeof a->flips[k].values) != 0 ||
            a->flips[k].prev_last != b->flips[k].prev_last)
            return 0;
    return 1;
}

static int run(const gp_scenario *s, const gp_sweep_axis *axes, int n, bool rows,
               gp_sweep_summary *out, const char *what) {
    gp_err err;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    gp_status rc = rows ? gp_sweep_summarize_rows(s, axes, n, out, &err)
                        : gp_sweep_summarize_points(s, axes, n, out, &err);
    double wall = clock_s(CLOCK_MONOTONIC) - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 1;
    }
    printf("  %-9s %12llu points in %8.4f s wall, %8.4f s CPU: %8.2f M points/s (CPU); "
           "%llu evaluations, rows %llu solved, %llu walked\n",
           what, (unsigned long long)out->points, wall, cpu, out->points / cpu / 1e6,
           (unsigned long long)out->evaluations, (unsigned long long)out->rows_solved,
           (unsigned long long)out->rows_walked);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_sweep SCENARIO CHECK_ROWS PARAM=FROM:TO:STEPS...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char *text = malloc(GP_SCENARIO_MAX_BYTES);
    size_t len = fread(text, 1, GP_SCENARIO_MAX_BYTES, f);
    fclose(f);
    gp_scenario *s = malloc(sizeof *s);
    gp_err err;
    if (gp_scenario_parse(text, len, argv[1], s, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return 1;
    }
    char *end;
    long check_rows = strtol(argv[2], &end, 10);
    if (*end != '\0' || check_rows < 0 || check_rows > 1000000) {
        fprintf(stderr, "bad CHECK_ROWS %s\n", argv[2]);
        return 2;
    }
    gp_sweep_axis axes[GP_SWEEP_MAX_AXES];
    int n = argc - 3;
    for (int k = 0; k < n && k < GP_SWEEP_MAX_AXES; k++) {
        if (parse_axis(argv[3 + k], &axes[k])) {
            fprintf(stderr, "bad axis %s\n", argv[3 + k]);
            return 2;
        }
    }
    static gp_sweep_summary fast, slow;
    printf("sweep --summary: \"%s\"\n", s->name);
    if (run(s, axes, n, true, &fast, "rows"))
        return 1;
    if (check_rows > 0 && n > 1 && check_rows < axes[0].steps) {
        axes[0].to = gp_sweep_value(&axes[0], (int)check_rows - 1);
        axes[0].steps = (int)check_rows;
        if (run(s, axes, n, true, &fast, "rows"))
            return 1;
    }
    if (run(s, axes, n, false, &slow, "points"))
        return 1;
    int ok = same(&fast, &slow, s->n_options + 1);
    printf("  the two summaries %s\n", ok ? "agree (wins, flips and their order)" : "DIFFER");
    free(s);
    free(text);
    return ok ? 0 : 1;
}
