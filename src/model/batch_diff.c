/* Batch summaries and their comparison (batch_diff.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/batch_diff.h"
#include "gpuplan/engine.h"
#include "gpuplan/xmem.h"

gp_batch_scenario *gp_batch_summary_add(gp_batch_summary *sum) {
    if (sum->n >= GP_BATCH_MAX_SCENARIOS)
        return NULL;
    sum->s = gp_xgrow(sum->s, &sum->cap, sum->n, sizeof *sum->s, 16);
    gp_batch_scenario *sc = &sum->s[sum->n++];
    memset(sc, 0, sizeof *sc);
    return sc;
}

const gp_batch_scenario *gp_batch_summary_find(const gp_batch_summary *sum, const char *name) {
    for (size_t i = 0; i < sum->n; i++)
        if (strcmp(sum->s[i].name, name) == 0)
            return &sum->s[i];
    return NULL;
}

bool gp_batch_scenario_add_input(gp_batch_scenario *s, const char *path, const char *label,
                                 double value) {
    if (s->n_inputs >= GP_BATCH_MAX_INPUTS)
        return false;
    if (s->n_inputs == s->cap_inputs) {
        s->cap_inputs = s->cap_inputs ? 2 * s->cap_inputs : 64;
        s->inputs = gp_xrealloc(s->inputs, (size_t)s->cap_inputs * sizeof *s->inputs);
    }
    s->inputs[s->n_inputs++] = (gp_batch_input){gp_xstrdup(path), gp_xstrdup(label), value};
    return true;
}

static void inputs_done(gp_batch_scenario *s) {
    for (int k = 0; k < s->n_inputs; k++) {
        free(s->inputs[k].path);
        free(s->inputs[k].label);
    }
    free(s->inputs);
    s->inputs = NULL;
    s->n_inputs = s->cap_inputs = 0;
}

void gp_batch_summary_drop_inputs(gp_batch_summary *sum) {
    for (size_t i = 0; i < sum->n; i++)
        inputs_done(&sum->s[i]);
}

void gp_batch_summary_done(gp_batch_summary *sum) {
    for (size_t i = 0; i < sum->n; i++) {
        free(sum->s[i].choices);
        free(sum->s[i].prices);
        inputs_done(&sum->s[i]);
    }
    free(sum->s);
    sum->s = NULL;
    sum->n = sum->cap = 0;
}

void gp_batch_diff_done(gp_batch_diff *d) {
    free(d->c);
    d->c = NULL;
    d->n = d->cap = 0;
    d->flips = 0;
}

const char *gp_batch_change_name(gp_batch_change_kind k) {
    static const char *const names[] = {"price", "measured", "total",      "break_even", "flip",
                                        "added", "removed",  "exit_value", "input"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static gp_batch_change *add(gp_batch_diff *d, gp_batch_change_kind kind, const char *scenario,
                            const char *what) {
    d->c = gp_xgrow(d->c, &d->cap, d->n, sizeof *d->c, 16);
    gp_batch_change *c = &d->c[d->n++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    snprintf(c->scenario, sizeof c->scenario, "%s", scenario);
    snprintf(c->what, sizeof c->what, "%s", what);
    return c;
}

/* Two figures differ when they differ beyond rounding: the model's tie rule. */
static bool moved(double a, double b) {
    return !gp_money_equal(a, b);
}

static const gp_batch_price *price_of(const gp_batch_scenario *s, const gp_batch_price *p) {
    for (int i = 0; i < s->n_prices; i++)
        if (strcmp(s->prices[i].option, p->option) == 0)
            return &s->prices[i];
    for (int i = 0; i < s->n_prices; i++)
        if (!strcmp(s->prices[i].catalog, p->catalog) && !strcmp(s->prices[i].pricing, p->pricing))
            return &s->prices[i];
    return NULL;
}

static const gp_batch_choice *choice_of(const gp_batch_scenario *s, const char *name) {
    for (int i = 0; i < s->n_choices; i++)
        if (strcmp(s->choices[i].name, name) == 0)
            return &s->choices[i];
    return NULL;
}

static void diff_prices(const gp_batch_scenario *o, const gp_batch_scenario *n, gp_batch_diff *d) {
    for (int i = 0; i < n->n_prices; i++) {
        const gp_batch_price *np = &n->prices[i], *op = price_of(o, np);
        if (op && !moved(op->hourly, np->hourly) && !strcmp(op->catalog, np->catalog) &&
            !strcmp(op->effective_from, np->effective_from))
            continue;
        gp_batch_change *c = add(d, GP_CHANGE_PRICE, n->name, np->option);
        snprintf(c->catalog, sizeof c->catalog, "%s", np->catalog);
        c->has_old = op != NULL;
        c->old_v = op ? op->hourly : 0;
        c->has_new = true;
        c->new_v = np->hourly;
        snprintf(c->source, sizeof c->source, "%s", np->source);
        snprintf(c->effective_from, sizeof c->effective_from, "%s", np->effective_from);
    }
}

static void diff_measured(const gp_batch_scenario *o, const gp_batch_scenario *n,
                          gp_batch_diff *d) {
    /* Figures neither side measured are inputs someone typed: diff_inputs names them with their
     * path, rather than a "measured" change that says where they did not come from. */
    if (!o->measured && !n->measured && o->n_inputs && n->n_inputs)
        return;
    const struct {
        const char *what;
        double a, b;
    } f[] = {{"gpus", o->gpus, n->gpus},
             {"utilization", o->utilization, n->utilization},
             {"gpu_idle_w", o->gpu_idle_w, n->gpu_idle_w},
             {"gpu_tdp_w", o->gpu_tdp_w, n->gpu_tdp_w}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!moved(f[i].a, f[i].b))
            continue;
        gp_batch_change *c = add(d, GP_CHANGE_MEASURED, n->name, f[i].what);
        c->has_old = c->has_new = true;
        c->old_v = f[i].a;
        c->new_v = f[i].b;
    }
}

/* An input's share of change: |new - old| over the larger magnitude (1 when one side is 0). */
static double input_moved(const gp_batch_change *c) {
    double m = fmax(fabs(c->old_v), fabs(c->new_v));
    return m > 0 ? fabs(c->new_v - c->old_v) / m : 0;
}

static int by_moved(const void *a, const void *b) {
    double x = input_moved(a), y = input_moved(b);
    return x > y ? -1 : x < y ? 1 : 0;
}

/* Whether another change already names this input: an option's catalog hourly price, or a
 * measured figure (gpus, utilization, the idle and busy draw). */
static bool named_elsewhere(const gp_batch_diff *d, size_t first, const gp_batch_input *in) {
    static const char *const measured[][2] = {{"demand.gpus", "gpus"},
                                              {"demand.utilization", "utilization"},
                                              {"self_hosted.power.gpu_idle_w", "gpu_idle_w"},
                                              {"self_hosted.power.gpu_tdp_w", "gpu_tdp_w"}};
    for (size_t i = first; i < d->n; i++) {
        const gp_batch_change *c = &d->c[i];
        size_t len = strlen(c->what);
        if (c->kind == GP_CHANGE_PRICE && c->catalog[0] && !strncmp(in->label, c->what, len) &&
            !strncmp(in->label + len, ": ", 2) && strstr(in->path, "].hourly") &&
            !strstr(in->path, "].hourly")[8])
            return true;
        for (size_t k = 0; c->kind == GP_CHANGE_MEASURED && k < 4; k++)
            if (!strcmp(in->path, measured[k][0]) && !strcmp(c->what, measured[k][1]))
                return true;
    }
    return false;
}

/* The inputs that differ between two scenarios evaluated here (matched by label, so an option
 * is found by name), the largest relative change first; the scenario's changes so far are
 * d->c[first..). */
static void diff_inputs(const gp_batch_scenario *o, const gp_batch_scenario *n, size_t first,
                        gp_batch_diff *d) {
    if (!o->n_inputs || !n->n_inputs)
        return;
    size_t start = d->n;
    for (int i = 0; i < n->n_inputs; i++) {
        const gp_batch_input *ni = &n->inputs[i], *oi = NULL;
        for (int k = 0; k < o->n_inputs && !oi; k++)
            if (!strcmp(o->inputs[k].label, ni->label))
                oi = &o->inputs[k];
        if (!oi || !moved(oi->value, ni->value) || named_elsewhere(d, first, ni))
            continue;
        gp_batch_change *c = add(d, GP_CHANGE_INPUT, n->name, ni->label);
        snprintf(c->source, sizeof c->source, "%s", ni->path);
        c->has_old = c->has_new = true;
        c->old_v = oi->value;
        c->new_v = ni->value;
    }
    if (d->n > start) /* d->c may still be NULL */
        qsort(d->c + start, d->n - start, sizeof *d->c, by_moved);
}

/* "catalog pricing 40 -> 32 (source, date); utilization 0.5 -> 1" from the changes that are
 * the scenario's inputs: d->c[first..d->n). */
static void explain(const gp_batch_diff *d, size_t first, const gp_batch_scenario *o,
                    const gp_batch_scenario *n, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = first; i < d->n && len < cap; i++) {
        const gp_batch_change *c = &d->c[i];
        const char *sep = len ? "; " : "";
        int w;
        if (c->kind == GP_CHANGE_INPUT)
            w = snprintf(out + len, cap - len, "%s%s %.6g -> %.6g", sep, c->what, c->old_v,
                         c->new_v);
        else if (c->kind == GP_CHANGE_EXIT_VALUE)
            w = snprintf(out + len, cap - len, "%sexit value %.6g -> %.6g (%s)", sep, c->old_v,
                         c->new_v, c->what);
        else if (c->kind == GP_CHANGE_PRICE && c->has_old)
            w = snprintf(out + len, cap - len, "%s%s price %.6g -> %.6g (%s, %s)", sep, c->what,
                         c->old_v, c->new_v, c->source, c->effective_from);
        else if (c->kind == GP_CHANGE_PRICE)
            w = snprintf(out + len, cap - len, "%s%s priced at %.6g (%s, %s)", sep, c->what,
                         c->new_v, c->source, c->effective_from);
        else if (o->measured == n->measured)
            w = snprintf(out + len, cap - len, "%s%s %s %.6g -> %.6g", sep,
                         o->measured ? "measured" : "input", c->what, c->old_v, c->new_v);
        else /* measured on one side only: say which value is which */
            w = snprintf(out + len, cap - len, "%s%s %.6g (%s) -> %.6g (%s)", sep, c->what,
                         c->old_v, o->measured ? "measured" : "input", c->new_v,
                         n->measured ? "measured" : "input");
        len = w < 0 ? cap : len + (size_t)w;
    }
    if (!out[0] && o->version != n->version)
        snprintf(out, cap, "other inputs of the scenario (version %d -> %d)", o->version,
                 n->version);
}

static void diff_outcomes(const gp_batch_scenario *o, const gp_batch_scenario *n,
                          const char *because, gp_batch_diff *d) {
    for (int i = 0; i < n->n_choices; i++) {
        const gp_batch_choice *nc = &n->choices[i], *oc = choice_of(o, nc->name);
        if (!oc)
            continue;
        double base = fmax(fabs(oc->total), 1e-9);
        if (fabs(nc->total - oc->total) / base * 100.0 <= d->threshold_pct)
            continue;
        gp_batch_change *c = add(d, GP_CHANGE_TOTAL, n->name, nc->name);
        c->has_old = c->has_new = true;
        c->old_v = oc->total;
        c->new_v = nc->total;
        snprintf(c->because, sizeof c->because, "%s", because);
    }
    if (n->rival[0] && !strcmp(n->rival, o->rival) &&
        (n->has_break_even_month != o->has_break_even_month ||
         (n->has_break_even_month && n->break_even_month != o->break_even_month))) {
        gp_batch_change *c = add(d, GP_CHANGE_BREAK_EVEN, n->name, n->rival);
        c->has_old = o->has_break_even_month;
        c->old_v = o->break_even_month;
        c->has_new = n->has_break_even_month;
        c->new_v = n->break_even_month;
        snprintf(c->because, sizeof c->because, "%s", because);
    }
    if (strcmp(n->cheapest, o->cheapest) != 0) {
        gp_batch_change *c = add(d, GP_CHANGE_FLIP, n->name, n->cheapest);
        snprintf(c->old_s, sizeof c->old_s, "%s", o->cheapest);
        c->has_old = c->has_new = true;
        c->old_v = o->cheapest_total;
        c->new_v = n->cheapest_total;
        snprintf(c->because, sizeof c->because, "%s", because);
        d->flips++;
    }
}

static void diff_scenario(const gp_batch_scenario *o, const gp_batch_scenario *n,
                          gp_batch_diff *d) {
    size_t first = d->n;
    diff_prices(o, n, d);
    diff_measured(o, n, d);
    diff_inputs(o, n, first, d);
    /* 2.1: a moved exit value is named among the causes (a summary from before 2.1 has none
     * to compare). */
    if (o->exit_basis[0] && n->exit_basis[0] &&
        (moved(o->exit_value, n->exit_value) || strcmp(o->exit_basis, n->exit_basis))) {
        char basis[GP_NAME_BYTES];
        snprintf(basis, sizeof basis, strcmp(o->exit_basis, n->exit_basis) ? "%s -> %s" : "%s%s",
                 strcmp(o->exit_basis, n->exit_basis) ? o->exit_basis : "", n->exit_basis);
        gp_batch_change *c = add(d, GP_CHANGE_EXIT_VALUE, n->name, basis);
        c->has_old = c->has_new = true;
        c->old_v = o->exit_value;
        c->new_v = n->exit_value;
    }
    char because[1024];
    explain(d, first, o, n, because, sizeof because);
    diff_outcomes(o, n, because, d);
}

void gp_batch_diff_run(const gp_batch_summary *old_run, const gp_batch_summary *new_run,
                       double threshold_pct, gp_batch_diff *out) {
    memset(out, 0, sizeof *out);
    out->threshold_pct = threshold_pct;
    bool pair_any = old_run->n == 1 && new_run->n == 1;
    for (size_t i = 0; i < new_run->n; i++) {
        const gp_batch_scenario *n = &new_run->s[i];
        const gp_batch_scenario *o =
            pair_any ? &old_run->s[0] : gp_batch_summary_find(old_run, n->name);
        if (o)
            diff_scenario(o, n, out);
        else
            add(out, GP_CHANGE_ADDED, n->name, n->cheapest);
    }
    for (size_t i = 0; i < old_run->n && !pair_any; i++)
        if (!gp_batch_summary_find(new_run, old_run->s[i].name))
            add(out, GP_CHANGE_REMOVED, old_run->s[i].name, old_run->s[i].cheapest);
}
