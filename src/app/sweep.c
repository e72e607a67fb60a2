/* The summary of a grid sweep (app_sweep.h). */
#include <string.h>

#include "gpuplan/app_sweep.h"

typedef struct run {
    gp_sweep_summary *sum;
    int last_cheapest;
    double last_value;
    int steps_last; /* points in one row of the grid (the last axis) */
    int pos;        /* position of the next point in its row */
} run;

static int on_point(const double *values, double self, const double *opts, int cheapest,
                    void *arg) {
    (void)self;
    (void)opts;
    run *r = arg;
    gp_sweep_summary *sum = r->sum;
    sum->wins[cheapest + 1]++;
    /* A flip: the same row of the grid (not its first point), a different winner. */
    if (r->pos != 0 && cheapest != r->last_cheapest) {
        if (sum->n_flips < GP_SWEEP_MAX_FLIPS) {
            gp_sweep_flip *f = &sum->flips[sum->n_flips];
            memcpy(f->values, values, sizeof f->values);
            f->prev_last = r->last_value;
            f->from = r->last_cheapest;
            f->to = cheapest;
        }
        sum->n_flips++;
    }
    if (++r->pos == r->steps_last)
        r->pos = 0;
    r->last_cheapest = cheapest;
    r->last_value = values[sum->n_axes - 1];
    return 0;
}

gp_status gp_sweep_summarize(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                             gp_sweep_summary *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->n_axes = n_axes;
    run r = {out, 0, 0, axes[n_axes - 1].steps, 0};
    return gp_sweep_run(s, axes, n_axes, on_point, &r, &out->points, err);
}
