/* summary.json, the changes and the tornado data of a batch run (report_batch.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/batch_json.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/xmem.h"

static void opt_num(cJSON *o, const char *key, bool has, double v) {
    if (has)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* A name, or null when "". */
static void opt_str(cJSON *o, const char *key, const char *v) {
    if (*v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *choice_tree(const gp_batch_choice *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddNumberToObject(o, "total", c->total);
    opt_num(o, "break_even_month", c->has_break_even_month, c->break_even_month);
    opt_num(o, "break_even_utilization", c->has_break_even_utilization, c->break_even_utilization);
    opt_num(o, "cost_per_gpu_hour", c->has_cost_per_gpu_hour, c->cost_per_gpu_hour);
    opt_num(o, "cost_per_work_unit", c->has_cost_per_work_unit, c->cost_per_work_unit);
    return o;
}

static cJSON *price_tree(const gp_batch_price *p) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "option", p->option);
    cJSON_AddStringToObject(o, "catalog", p->catalog);
    cJSON_AddStringToObject(o, "pricing", p->pricing);
    cJSON_AddNumberToObject(o, "hourly", p->hourly);
    cJSON_AddStringToObject(o, "effective_from", p->effective_from);
    cJSON_AddStringToObject(o, "source", p->source);
    if (p->fx_rate > 0) { /* 2.1: converted; the rate and its date, as the report's sources */
        cJSON_AddStringToObject(o, "currency", p->currency);
        cJSON_AddNumberToObject(o, "listed_hourly", p->listed_hourly);
        cJSON_AddNumberToObject(o, "fx_rate", p->fx_rate);
        cJSON_AddStringToObject(o, "fx_date", p->fx_date);
        cJSON_AddStringToObject(o, "fx_source", p->fx_source);
    }
    return o;
}

/* Into arr, the choices other than the cheapest at its total (report_opening.h's rule). */
static void tied_choices(const gp_batch_scenario *s, cJSON *arr) {
    int n = s->n_choices, w = -1;
    for (int i = 0; i < n && w < 0; i++)
        if (!strcmp(s->choices[i].name, s->cheapest))
            w = i;
    if (w < 0)
        return;
    double *total = gp_xmalloc(sizeof *total * (size_t)n);
    int *tied = gp_xmalloc(sizeof *tied * (size_t)n);
    for (int i = 0; i < n; i++)
        total[i] = s->choices[i].total;
    int nt = gp_tied_totals(total, NULL, n, w, tied, n);
    for (int i = 0; i < nt; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(s->choices[tied[i]].name));
    free(total);
    free(tied);
}

static cJSON *scenario_tree(const gp_batch_scenario *s) {
    static const char *const kinds[] = {"md", "csv", "json", "xlsx"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddNumberToObject(o, "version", s->version);
    cJSON_AddStringToObject(o, "currency", s->currency);
    cJSON_AddNumberToObject(o, "horizon_months", s->horizon_months);
    cJSON_AddStringToObject(o, "cheapest", s->cheapest);
    cJSON_AddNumberToObject(o, "cheapest_total", s->cheapest_total);
    /* Equal totals (the model's Ties): every other choice at the cheapest's total, in order;
     * [] when the cheapest wins outright. */
    cJSON *tied = cJSON_AddArrayToObject(o, "tied_with_cheapest");
    tied_choices(s, tied);
    const gp_batch_choice *best = NULL;
    for (int i = 0; i < s->n_choices; i++)
        if (!strcmp(s->choices[i].name, s->cheapest))
            best = &s->choices[i];
    opt_num(o, "cost_per_gpu_hour", best && best->has_cost_per_gpu_hour,
            best ? best->cost_per_gpu_hour : 0);
    opt_num(o, "cost_per_work_unit", best && best->has_cost_per_work_unit,
            best ? best->cost_per_work_unit : 0);
    opt_str(o, "work_unit", s->work_unit);
    cJSON_AddStringToObject(o, "rival", s->rival);
    opt_num(o, "break_even_month", s->has_break_even_month, s->break_even_month);
    cJSON_AddNumberToObject(o, "exit_value", s->exit_value);
    cJSON_AddStringToObject(o, "exit_value_basis", s->exit_basis);
    opt_str(o, "guaranteed", s->guaranteed);
    opt_str(o, "guaranteed_rival", s->guaranteed_rival);
    opt_num(o, "guaranteed_break_even_month", s->has_guaranteed_break_even_month,
            s->guaranteed_break_even_month);
    cJSON_AddBoolToObject(o, "measured", s->measured);
    cJSON_AddNumberToObject(o, "gpus", s->gpus);
    cJSON_AddNumberToObject(o, "utilization", s->utilization);
    cJSON_AddNumberToObject(o, "gpu_idle_w", s->gpu_idle_w);
    cJSON_AddNumberToObject(o, "gpu_tdp_w", s->gpu_tdp_w);
    cJSON *cs = cJSON_AddArrayToObject(o, "choices");
    for (int i = 0; i < s->n_choices; i++)
        cJSON_AddItemToArray(cs, choice_tree(&s->choices[i]));
    cJSON *ps = cJSON_AddArrayToObject(o, "prices");
    for (int i = 0; i < s->n_prices; i++)
        cJSON_AddItemToArray(ps, price_tree(&s->prices[i]));
    /* The numeric inputs, so that a later run's diff can name the ones that moved, each
     * [path, label, value] (an array prints on one line: a third of the size of objects);
     * absent in a summary written before them, or too large to keep them. */
    if (s->n_inputs) {
        cJSON *in = cJSON_AddArrayToObject(o, "inputs");
        for (int i = 0; i < s->n_inputs; i++) {
            cJSON *e = cJSON_CreateArray();
            cJSON_AddItemToArray(e, cJSON_CreateString(s->inputs[i].path));
            cJSON_AddItemToArray(e, cJSON_CreateString(s->inputs[i].label));
            cJSON_AddItemToArray(e, cJSON_CreateNumber(s->inputs[i].value));
            cJSON_AddItemToArray(in, e);
        }
    }
    cJSON *f = cJSON_AddObjectToObject(o, "files");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (s->files[k][0])
            cJSON_AddStringToObject(f, kinds[k], s->files[k]);
    return o;
}

cJSON *gp_report_batch_summary_tree(const gp_batch_summary *sum) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "format", GP_BATCH_FORMAT);
    cJSON_AddStringToObject(doc, "day", sum->day);
    cJSON_AddStringToObject(doc, "started_at", sum->started_at);
    cJSON_AddStringToObject(doc, "as_of", sum->as_of);
    cJSON *a = cJSON_AddArrayToObject(doc, "scenarios");
    for (size_t i = 0; i < sum->n; i++)
        cJSON_AddItemToArray(a, scenario_tree(&sum->s[i]));
    return doc;
}

gp_status gp_report_batch_summary_text(gp_batch_summary *sum, size_t max, cJSON **tree, char **text,
                                       bool *dropped, gp_err *err) {
    *dropped = false;
    for (;;) {
        *tree = gp_report_batch_summary_tree(sum);
        *text = *tree ? cJSON_Print(*tree) : NULL;
        if (!*text) {
            cJSON_Delete(*tree);
            *tree = NULL;
            return gp_errorf(err, GP_E_NOMEM, "summary.json", "cannot render");
        }
        size_t len = strlen(*text);
        if (len <= max)
            return GP_OK;
        cJSON_Delete(*tree);
        free(*text);
        *tree = NULL;
        *text = NULL;
        bool had = false;
        for (size_t i = 0; i < sum->n && !had; i++)
            had = sum->s[i].n_inputs > 0;
        if (!had)
            return gp_errorf(err, GP_E_LIMIT, "summary.json",
                             "%zu bytes, over the %zu a later run reads back: fewer scenarios a "
                             "run (--scenario)",
                             len, max);
        /* What a later run could not read back is not written: the inputs go first. */
        gp_batch_summary_drop_inputs(sum);
        *dropped = true;
    }
}

static cJSON *change_tree(const gp_batch_change *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", gp_batch_change_name(c->kind));
    cJSON_AddStringToObject(o, "scenario", c->scenario);
    cJSON_AddStringToObject(o, "what", c->what);
    if (c->kind == GP_CHANGE_PRICE) {
        cJSON_AddStringToObject(o, "catalog", c->catalog);
        cJSON_AddStringToObject(o, "source", c->source);
        cJSON_AddStringToObject(o, "effective_from", c->effective_from);
    }
    if (c->kind == GP_CHANGE_FLIP)
        cJSON_AddStringToObject(o, "was", c->old_s);
    if (c->kind == GP_CHANGE_INPUT)
        cJSON_AddStringToObject(o, "path", c->source);
    if (c->kind != GP_CHANGE_ADDED && c->kind != GP_CHANGE_REMOVED) {
        opt_num(o, "old", c->has_old, c->old_v);
        opt_num(o, "new", c->has_new, c->new_v);
    }
    if (c->kind == GP_CHANGE_TOTAL || c->kind == GP_CHANGE_BREAK_EVEN || c->kind == GP_CHANGE_FLIP)
        cJSON_AddStringToObject(o, "because", c->because);
    return o;
}

cJSON *gp_report_batch_diff_tree(const gp_batch_diff *d, const char *against) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "against", against ? against : "");
    cJSON_AddNumberToObject(doc, "threshold_pct", d->threshold_pct);
    cJSON_AddNumberToObject(doc, "flips", d->flips);
    cJSON *a = cJSON_AddArrayToObject(doc, "changes");
    for (size_t i = 0; i < d->n; i++)
        cJSON_AddItemToArray(a, change_tree(&d->c[i]));
    return doc;
}

static gp_status change_line(const gp_batch_change *c, gp_buf *out) {
    char a[48], b[48], x[40], y[40], moved[96];
    gp_fmt_money(c->old_v, a, sizeof a);
    gp_fmt_money(c->new_v, b, sizeof b);
    gp_fmt_sig(c->old_v, 4, x, sizeof x);
    gp_fmt_sig(c->new_v, 4, y, sizeof y);
    switch (c->kind) {
    case GP_CHANGE_FLIP:
        return gp_buf_printf(
            out, "FLIP  %s: %s is now the cheapest (was %s; %s -> %s) because %s\n", c->scenario,
            c->what, c->old_s, a, b, c->because[0] ? c->because : "its results moved");
    case GP_CHANGE_PRICE:
        /* first priced ("now"), or moved; a catalog's price is an offer's, dated; one without
         * is an API's, a unit of work's, written in the scenario (2.1) */
        if (c->has_old)
            snprintf(moved, sizeof moved, "%s -> %s", x, y);
        else
            snprintf(moved, sizeof moved, "now %s%s", c->catalog[0] ? "priced at " : "", y);
        if (!c->catalog[0])
            return gp_buf_printf(out, "price %s: %s %s a unit of work (%s)\n", c->scenario, c->what,
                                 moved, c->source);
        return gp_buf_printf(out, "price %s: %s (%s) %s (%s, %s)\n", c->scenario, c->what,
                             c->catalog, moved, c->source, c->effective_from);
    case GP_CHANGE_MEASURED:
        return gp_buf_printf(out, "measured %s: %s %s -> %s\n", c->scenario, c->what, x, y);
    case GP_CHANGE_TOTAL:
        return gp_buf_printf(out, "total %s: %s %s -> %s (%+.1f %%)\n", c->scenario, c->what, a, b,
                             c->old_v ? (c->new_v - c->old_v) / fabs(c->old_v) * 100 : 0);
    case GP_CHANGE_BREAK_EVEN:
        snprintf(a, sizeof a, c->has_old ? "month %.0f" : "never", c->old_v);
        snprintf(b, sizeof b, c->has_new ? "month %.0f" : "never", c->new_v);
        return gp_buf_printf(out, "break-even %s: against %s from %s to %s\n", c->scenario, c->what,
                             a, b);
    case GP_CHANGE_ADDED:
        return gp_buf_printf(out, "added %s (cheapest: %s)\n", c->scenario, c->what);
    case GP_CHANGE_REMOVED:
        return gp_buf_printf(out, "removed %s\n", c->scenario);
    case GP_CHANGE_EXIT_VALUE:
        return gp_buf_printf(out, "exit value %s: %s -> %s (%s)\n", c->scenario, a, b, c->what);
    case GP_CHANGE_INPUT:
        gp_fmt_sig(c->old_v, 6, x, sizeof x);
        gp_fmt_sig(c->new_v, 6, y, sizeof y);
        return gp_buf_printf(out, "input %s: %s %s -> %s (%s)\n", c->scenario, c->what, x, y,
                             c->source);
    }
    return GP_OK;
}

gp_status gp_report_batch_diff_text(const gp_batch_diff *d, const char *against, gp_buf *out) {
    if (gp_buf_printf(out, "Compared with %s: %d decision%s flipped, %zu change%s\n",
                      against ? against : "the previous run", d->flips, d->flips == 1 ? "" : "s",
                      d->n, d->n == 1 ? "" : "s"))
        return GP_E_LIMIT;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < d->n; i++)
            if ((d->c[i].kind == GP_CHANGE_FLIP) == (pass == 0) && change_line(&d->c[i], out))
                return GP_E_LIMIT;
    return GP_OK;
}

cJSON *gp_report_tornado_tree(const gp_sensitivity *sens, const gp_scenario *s, int option,
                              int top) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "option", s->options[option].name);
    cJSON_AddNumberToObject(doc, "delta", sens->delta);
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    /* Rows come sorted by the swing over every option; re-rank by this option's swing. */
    int order[GP_SENS_MAX_ROWS], n = 0;
    for (int i = 0; i < sens->n_rows; i++) {
        const gp_sens_row *r = &sens->rows[i];
        double sw = fabs(r->delta_high[option] - r->delta_low[option]);
        if (!(sw > 0))
            continue;
        int k = n++;
        while (k > 0) {
            const gp_sens_row *q = &sens->rows[order[k - 1]];
            if (fabs(q->delta_high[option] - q->delta_low[option]) >= sw)
                break;
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    for (int i = 0; i < n && i < top; i++) {
        const gp_sens_row *r = &sens->rows[order[i]];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "input", r->input);
        cJSON_AddStringToObject(o, "label", r->label); /* as the CLI names it */
        cJSON_AddNumberToObject(o, "base", r->base);
        cJSON_AddNumberToObject(o, "low", r->delta_low[option]);
        cJSON_AddNumberToObject(o, "high", r->delta_high[option]);
        cJSON_AddItemToArray(rows, o);
    }
    return doc;
}
