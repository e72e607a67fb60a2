/* One-at-a-time sensitivity of a loaded scenario, ranked per option (app_sensitivity.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_sensitivity.h"
#include "gpuplan/engine.h"
#include "gpuplan/xmem.h"

/* Rows for one option, largest swing for that option first. */
static const gp_sensitivity *sort_table;
static int sort_option;

static double swing_of(const gp_sens_row *row, int i) {
    return fabs(row->delta_high[i] - row->delta_low[i]);
}

static int by_option_swing(const void *a, const void *b) {
    const gp_sens_row *x = &sort_table->rows[*(const int *)a];
    const gp_sens_row *y = &sort_table->rows[*(const int *)b];
    double sx = swing_of(x, sort_option), sy = swing_of(y, sort_option);
    if (sx != sy)
        return sx < sy ? 1 : -1;
    return strcmp(x->input, y->input);
}

static void rank_option(const gp_sensitivity *t, int i, gp_sens_ranking *r) {
    r->n = r->quiet = 0;
    for (int k = 0; k < t->n_rows; k++) {
        const gp_sens_row *row = &t->rows[k];
        bool moves = row->delta_low[i] != 0.0 || row->delta_high[i] != 0.0 ||
                     row->has_be_low[i] != t->has_be_base[i] ||
                     row->has_be_high[i] != t->has_be_base[i] || row->be_low[i] != t->be_base[i] ||
                     row->be_high[i] != t->be_base[i];
        if (moves)
            r->order[r->n++] = k;
        else
            r->quiet++;
    }
    sort_table = t;
    sort_option = i;
    qsort(r->order, (size_t)r->n, sizeof r->order[0], by_option_swing);
}

gp_status gp_sensitivity_analyze(gp_session *s, const char *scenario, const char *as_of,
                                 double delta, const char *const *params, int n_params,
                                 gp_sens_analysis *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    if (gp_load_scenario(s, scenario, 0, as_of, &out->sc, err))
        return err->code;
    out->table = gp_xmalloc(sizeof *out->table);
    if (gp_sensitivity_run_params(out->sc.s, delta, params, n_params, out->table, err)) {
        gp_loaded_blame(&out->sc, err);
        gp_sens_analysis_done(out);
        return err->code;
    }
    int n = out->sc.s->n_options;
    out->ranks = gp_xcalloc(n > 0 ? (size_t)n : 1, sizeof *out->ranks);
    for (int i = 0; i < n; i++)
        rank_option(out->table, i, &out->ranks[i]);
    out->base = gp_xmalloc(sizeof *out->base);
    gp_model_evaluate(out->sc.s, out->base);
    return GP_OK;
}

void gp_sens_analysis_done(gp_sens_analysis *a) {
    free(a->table);
    free(a->ranks);
    free(a->base);
    a->base = NULL;
    a->table = NULL;
    a->ranks = NULL;
    gp_loaded_done(&a->sc);
}
