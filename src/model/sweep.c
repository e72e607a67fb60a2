/* Grid sweeps: set the swept inputs, take the totals, pick the cheapest; and the summary of a
 * grid solved row by row from the linear pieces of its totals. */
#include "gpuplan/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "gpuplan/engine.h"
#include "gpuplan/xmem.h"

typedef struct param_info {
    const char *name;
    bool per_option, is_int, v2;
    bool min_open; /* the range excludes min */
    double min, max;
} param_info;

static const param_info params[GP_SWEEP_N_PARAMS] = {
    [GP_SWEEP_UTILIZATION] = {"utilization", false, false, false, false, 0.0, 1.0},
    [GP_SWEEP_GPUS] = {"gpus", false, true, false, false, 1.0, 1000000.0},
    [GP_SWEEP_HORIZON] = {"horizon_months", false, true, false, false, 1.0, GP_MAX_MONTHS},
    [GP_SWEEP_PRICE_PER_KWH] = {"price_per_kwh", false, false, false, false, 0.0, GP_MONEY_MAX},
    [GP_SWEEP_SERVER_PRICE] = {"server_price", false, false, false, false, 0.0, GP_MONEY_MAX},
    [GP_SWEEP_PUE] = {"pue", false, false, false, false, 1.0, 5.0},
    [GP_SWEEP_HOURLY] = {"hourly", true, false, false, false, 0.0, GP_MONEY_MAX},
    [GP_SWEEP_GROWTH] = {"growth_per_month", false, false, true, false, -0.5, 1.0},
    [GP_SWEEP_LEAD_TIME] = {"lead_time_months", false, true, true, false, 0.0, 24.0},
    [GP_SWEEP_ORDER_EVERY] = {"order_every_months", false, true, true, false, 1.0, GP_MAX_MONTHS},
    [GP_SWEEP_MAX_SERVERS] = {"max_servers", false, true, true, false, 1.0, 1000000.0},
    [GP_SWEEP_SERVER_PRICE_TREND] = {"server_price_trend_per_year", false, false, true, false, -0.9,
                                     1.0},
    [GP_SWEEP_ENERGY_PRICE_TREND] = {"energy_price_trend_per_year", false, false, true, false, -0.9,
                                     1.0},
    [GP_SWEEP_OPTION_PRICE_TREND] = {"price_trend_per_year", true, false, true, false, -0.9, 1.0},
    [GP_SWEEP_WORK_PER_GPU_HOUR] = {"work_per_gpu_hour", false, false, true, true, 0.0, INFINITY},
    [GP_SWEEP_OPTION_WORK_PER_GPU] = {"work_per_gpu_hour", true, false, true, true, 0.0, INFINITY},
    [GP_SWEEP_PRICE_PER_UNIT] = {"price_per_unit", true, false, false, false, 0.0, GP_MONEY_MAX},
};

const char *gp_sweep_param_name(gp_sweep_param p) {
    return params[p].name;
}

bool gp_sweep_param_per_option(gp_sweep_param p) {
    return params[p].per_option;
}

gp_status gp_sweep_param_find(const char *name, gp_sweep_param *p, gp_err *err) {
    /* "work_per_gpu_hour" is self-hosted's; its per-option twin shares the name, and the
     * caller that saw ":OPTION" picks it. */
    for (int i = 0; i < GP_SWEEP_N_PARAMS; i++) {
        if (strcmp(name, params[i].name) == 0) {
            *p = (gp_sweep_param)i;
            return GP_OK;
        }
    }
    return gp_errorf(err, GP_E_NOTFOUND, "--vary", "unknown parameter \"%.80s\"", name);
}

size_t gp_sweep_param_list(char *out, size_t cap) {
    size_t n = 0;
    for (int i = 0; i < GP_SWEEP_N_PARAMS; i++) {
        int w = snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%s%s", i ? ", " : "",
                         params[i].name, params[i].per_option ? ":OPTION" : "");
        if (w > 0)
            n += (size_t)w;
    }
    return n;
}

static bool is_integer_param(gp_sweep_param p) {
    return params[p].is_int;
}

double gp_sweep_value(const gp_sweep_axis *a, int i) {
    double v = a->steps <= 1 ? a->from : a->from + (a->to - a->from) / (a->steps - 1) * i;
    if (a->steps > 1 && i == a->steps - 1)
        v = a->to; /* exact endpoint, whatever the rounding of the step */
    return is_integer_param(a->param) ? floor(v + 0.5) : v;
}

static void axis_range(const gp_sweep_axis *a, double *lo, double *hi) {
    *lo = a->from < a->to ? a->from : a->to;
    *hi = a->from < a->to ? a->to : a->from;
    if (is_integer_param(a->param)) {
        *lo = floor(*lo + 0.5);
        *hi = floor(*hi + 0.5);
    }
}

/* The range an axis sweeps for p, or the scenario's own value own when no axis sweeps it. */
static void swept_or_own(const gp_sweep_axis *axes, int n_axes, gp_sweep_param p, double own,
                         double *lo, double *hi) {
    *lo = *hi = own;
    for (int k = 0; k < n_axes; k++)
        if (axes[k].param == p)
            axis_range(&axes[k], lo, hi);
}

/* The rules a parameter's axis must keep with the scenario it varies (its demand's mode, an
 * option's pricing); lo is the axis's lower bound. */
static gp_status check_axis_fits(const gp_scenario *s, const gp_sweep_axis *a, const char *name,
                                 double lo, gp_err *err) {
    switch (a->param) {
    case GP_SWEEP_UTILIZATION:
        if (s->work_mode && !(lo > 0.0))
            return gp_errorf(err, GP_E_INPUT, name, "must stay > 0 in work mode (got %g..%g)",
                             a->from, a->to);
        break;
    case GP_SWEEP_GPUS:
        if (s->work_mode)
            return gp_errorf(err, GP_E_INPUT, name,
                             "the scenario states its demand as work_per_month (work mode)");
        break;
    case GP_SWEEP_GROWTH:
        if (s->n_steps > 0)
            return gp_errorf(err, GP_E_INPUT, name,
                             "the scenario has demand.steps; growth_per_month must stay 0");
        break;
    case GP_SWEEP_WORK_PER_GPU_HOUR:
    case GP_SWEEP_OPTION_WORK_PER_GPU:
        if (!s->work_mode)
            return gp_errorf(err, GP_E_INPUT, name,
                             "throughputs apply in work mode only (demand.work_per_month)");
        if (a->param == GP_SWEEP_OPTION_WORK_PER_GPU &&
            s->options[a->option].pricing == GP_PER_UNIT)
            return gp_errorf(err, GP_E_INPUT, name,
                             "option \"%s\" is per_unit: it bills the work, at no throughput",
                             s->options[a->option].name);
        break;
    case GP_SWEEP_HOURLY:
        if (s->options[a->option].pricing == GP_PER_UNIT)
            return gp_errorf(err, GP_E_INPUT, name,
                             "option \"%s\" is per_unit: vary price_per_unit:%s instead",
                             s->options[a->option].name, s->options[a->option].name);
        break;
    case GP_SWEEP_PRICE_PER_UNIT:
        if (s->options[a->option].pricing != GP_PER_UNIT)
            return gp_errorf(err, GP_E_INPUT, name, "option \"%s\" is %s: vary hourly:%s instead",
                             s->options[a->option].name,
                             gp_pricing_name(s->options[a->option].pricing),
                             s->options[a->option].name);
        break;
    default:
        break;
    }
    return GP_OK;
}

/* Axis k of axes on its own: a known parameter, steps and finite bounds, an option that
 * exists, not swept twice, fitting the scenario, its range within the parameter's. */
static gp_status check_axis(const gp_scenario *s, const gp_sweep_axis *axes, int k, gp_err *err) {
    const gp_sweep_axis *a = &axes[k];
    if ((int)a->param < 0 || a->param >= GP_SWEEP_N_PARAMS)
        return gp_errorf(err, GP_E_INPUT, "--vary", "no such parameter (%d)", (int)a->param);
    const param_info *pi = &params[a->param];
    const char *name = pi->name;
    if (a->steps < 1)
        return gp_errorf(err, GP_E_INPUT, name, "steps must be >= 1 (got %d)", a->steps);
    if (!isfinite(a->from) || !isfinite(a->to))
        return gp_errorf(err, GP_E_INPUT, name, "bounds must be finite numbers");
    if (pi->per_option && (a->option < 0 || a->option >= s->n_options))
        return gp_errorf(err, GP_E_INPUT, name, "no such option");
    for (int j = 0; j < k; j++)
        if (axes[j].param == a->param && (!pi->per_option || axes[j].option == a->option))
            return gp_errorf(err, GP_E_INPUT, name, "is swept twice (--vary %d and %d)", j + 1,
                             k + 1);
    double lo, hi;
    axis_range(a, &lo, &hi);
    gp_status st = check_axis_fits(s, a, name, lo, err);
    if (st)
        return st;
    double min = pi->min, max = pi->max;
    if (lo < min || hi > max || (pi->min_open && lo <= min)) {
        if (isinf(max))
            return gp_errorf(err, GP_E_INPUT, name, "must stay %s %g (got %g..%g)",
                             pi->min_open ? ">" : ">=", min, a->from, a->to);
        return gp_errorf(err, GP_E_INPUT, name, "must stay in [%g, %g] (got %g..%g)", min, max,
                         a->from, a->to);
    }
    return GP_OK;
}

/* Rules between keys (docs/model.md's key table), over every combination the grid holds. */
static gp_status check_between_keys(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                                    gp_err *err) {
    double m_lo, m_hi, lead_lo, lead_hi, every_lo, every_hi;
    swept_or_own(axes, n_axes, GP_SWEEP_HORIZON, s->horizon_months, &m_lo, &m_hi);
    swept_or_own(axes, n_axes, GP_SWEEP_LEAD_TIME, s->lead_time_months, &lead_lo, &lead_hi);
    swept_or_own(axes, n_axes, GP_SWEEP_ORDER_EVERY, s->order_every_months, &every_lo, &every_hi);
    /* Only the largest lead time and cadence matter against the shortest horizon. */
    (void)lead_lo, (void)every_lo;
    if (!(lead_hi < m_lo))
        return gp_errorf(err, GP_E_INPUT,
                         lead_hi > s->lead_time_months ? "lead_time_months" : "horizon_months",
                         "lead_time_months must stay below horizon_months (up to %g and down to "
                         "%g)",
                         lead_hi, m_lo);
    if (!(every_hi <= m_lo))
        return gp_errorf(err, GP_E_INPUT,
                         every_hi > s->order_every_months ? "order_every_months" : "horizon_months",
                         "order_every_months must stay at most horizon_months (up to %g and down "
                         "to %g)",
                         every_hi, m_lo);
    /* Steps past the scenario's horizon were dropped when it was read, so a longer horizon
     * would silently lose them. */
    if (m_hi > s->horizon_months && (s->n_steps > 0 || s->work_mode || gp_scenario_uses_v2(s)))
        return gp_errorf(err, GP_E_INPUT, "horizon_months",
                         "a plan over time sweeps horizon_months up to its own %d at most (got "
                         "up to %g)",
                         s->horizon_months, m_hi);
    return GP_OK;
}

gp_status gp_sweep_check(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes, gp_err *err) {
    if (n_axes < 1 || n_axes > GP_SWEEP_MAX_AXES)
        return gp_errorf(err, GP_E_INPUT, "--vary", "give 1 to %d --vary axes", GP_SWEEP_MAX_AXES);
    double points = 1.0;
    for (int k = 0; k < n_axes; k++) {
        gp_status st = check_axis(s, axes, k, err);
        if (st)
            return st;
        points *= axes[k].steps;
    }
    if (points > 1099511627776.0)
        return gp_errorf(err, GP_E_INPUT, "--vary", "the grid has %.3g points; at most 2^40",
                         points);
    return check_between_keys(s, axes, n_axes, err);
}

static void apply(gp_scenario *s, const gp_scenario *base, double base_mean, const gp_sweep_axis *a,
                  double v) {
    switch (a->param) {
    case GP_SWEEP_UTILIZATION:
        s->utilization = v;
        break;
    case GP_SWEEP_GPUS:
        s->gpus = (int)v;
        break;
    case GP_SWEEP_HORIZON:
        s->horizon_months = (int)v;
        break;
    case GP_SWEEP_PRICE_PER_KWH:
        /* Keep the tariff's shape: every period scales by v / mean (a free tariff goes flat). */
        for (int k = 0; k < s->n_periods; k++)
            s->periods[k].price_per_kwh =
                base_mean > 0.0 ? base->periods[k].price_per_kwh * (v / base_mean) : v;
        break;
    case GP_SWEEP_SERVER_PRICE:
        s->server_price = v;
        break;
    case GP_SWEEP_PUE:
        s->pue = v;
        break;
    case GP_SWEEP_HOURLY:
        s->options[a->option].hourly = v;
        break;
    case GP_SWEEP_PRICE_PER_UNIT:
        s->options[a->option].price_per_unit = v;
        gp_option_per_unit_sync(&s->options[a->option]);
        break;
    case GP_SWEEP_GROWTH:
        s->growth_per_month = v;
        break;
    case GP_SWEEP_LEAD_TIME:
        s->lead_time_months = (int)v;
        break;
    case GP_SWEEP_ORDER_EVERY:
        s->order_every_months = (int)v;
        break;
    case GP_SWEEP_MAX_SERVERS:
        s->has_max_servers = true;
        s->max_servers = (int)v;
        break;
    case GP_SWEEP_SERVER_PRICE_TREND:
        s->server_price_trend_per_year = v;
        break;
    case GP_SWEEP_ENERGY_PRICE_TREND:
        s->energy_price_trend_per_year = v;
        break;
    case GP_SWEEP_OPTION_PRICE_TREND:
        s->options[a->option].price_trend_per_year = v;
        break;
    case GP_SWEEP_WORK_PER_GPU_HOUR:
        s->work_per_gpu_hour = v;
        break;
    case GP_SWEEP_OPTION_WORK_PER_GPU:
        s->options[a->option].work_per_gpu_hour = v;
        break;
    case GP_SWEEP_N_PARAMS:
        break;
    }
}

/* ---- the walk ------------------------------------------------------------------------- */

/* One walk's state: the scenario as swept so far and what evaluates it. */
typedef struct walker {
    const gp_scenario *base;
    const gp_sweep_axis *axes;
    int n_axes;
    gp_scenario *s; /* heap: a scenario is large */
    steady_cache cache;
    double base_mean;
    bool v2_axes; /* an axis can turn version 2 keys on or off */
    double values[GP_SWEEP_MAX_AXES];
    uint64_t evaluations;
    /* A version 2 point's totals, kept per contender until an axis that moves it changes:
     * self_ok for t[0], bit i of opts_ok for t[i + 1]. max_want: the most servers any month
     * wants at the self-hosted total kept (max_servers at or above it caps nothing). */
    double t[GP_MAX_OPTIONS + 1];
    bool self_ok;
    unsigned redo;     /* the parts of self-hosted's total to redo (engine_redo bits) */
    bool demand_moved; /* an axis of the demand moved: engine_demand tells whether it changed */
    uint64_t opts_ok, opts_all;
    int max_want;
    engine_keep *keep;
} walker;

static void walker_done(walker *w) {
    engine_keep_free(w->keep);
    free(w->cache.scratch);
    free(w->s);
}

static void walker_init(walker *w, const gp_scenario *base, const gp_sweep_axis *axes, int n_axes) {
    memset(w, 0, sizeof *w);
    w->base = base;
    w->axes = axes;
    w->n_axes = n_axes;
    w->s = gp_xmalloc(sizeof *w->s);
    *w->s = *base;
    steady_cache_init(&w->cache, w->s); /* scaling prices keeps their order */
    w->base_mean = gp_tariff_mean_price(base);
    for (int k = 0; k < n_axes; k++)
        w->v2_axes |= params[axes[k].param].v2;
    if (w->cache.uses_v2 || w->v2_axes) {
        w->cache.scratch = gp_xmalloc(sizeof *w->cache.scratch);
        w->keep = engine_keep_new();
    }
    w->redo = ENGINE_REDO_PLAN;
    w->demand_moved = true;
    for (int k = 0; k < n_axes; k++) {
        w->values[k] = gp_sweep_value(&axes[k], 0);
        apply(w->s, base, w->base_mean, &axes[k], w->values[k]);
    }
    if (w->v2_axes)
        w->cache.uses_v2 = gp_scenario_uses_v2(w->s);
    w->opts_all = base->n_options == 64 ? ~(uint64_t)0 : ((uint64_t)1 << base->n_options) - 1;
}

static void forget_self(walker *w, engine_redo part) {
    w->self_ok = false;
    w->redo |= part;
}

/* Keep nothing: the next version 2 point is evaluated from its demand up. */
static void walker_forget_all(walker *w) {
    forget_self(w, ENGINE_REDO_PLAN);
    w->opts_ok = 0;
    w->demand_moved = true;
    if (w->keep)
        engine_keep_forget(w->keep);
}

/* Forget the kept totals that axis k, moved from old to v, can change (engine.c: demand moves
 * everything; self-hosted's keys and the bridge's prices move self-hosted's total, from the
 * level of the engine they enter; an option's keys move its total and that of each committed
 * base bursting into it). */
static void walker_forget(walker *w, int k, double old, double v) {
    const gp_sweep_axis *a = &w->axes[k];
    const gp_scenario *s = w->s;
    switch (a->param) {
    case GP_SWEEP_PRICE_PER_KWH:
    case GP_SWEEP_PUE:
        forget_self(w, ENGINE_REDO_RUNNING);
        return;
    case GP_SWEEP_ENERGY_PRICE_TREND:
        forget_self(w, ENGINE_REDO_TREND);
        return;
    case GP_SWEEP_SERVER_PRICE:
    case GP_SWEEP_SERVER_PRICE_TREND:
        forget_self(w, ENGINE_REDO_FIXED);
        return;
    case GP_SWEEP_LEAD_TIME:
    case GP_SWEEP_ORDER_EVERY:
        forget_self(w, ENGINE_REDO_PLAN);
        return;
    case GP_SWEEP_WORK_PER_GPU_HOUR:
        forget_self(w, ENGINE_REDO_NEED);
        return;
    case GP_SWEEP_MAX_SERVERS:
        /* The plan is the same under any cap at or above what every month wants. */
        if (!(w->self_ok && old >= w->max_want && v >= w->max_want))
            forget_self(w, ENGINE_REDO_PLAN);
        return;
    case GP_SWEEP_HOURLY:
    case GP_SWEEP_PRICE_PER_UNIT:
    case GP_SWEEP_OPTION_PRICE_TREND:
    case GP_SWEEP_OPTION_WORK_PER_GPU:
        w->opts_ok &= ~((uint64_t)1 << a->option);
        if (s->bridge == a->option) /* its throughput moves the hours rented, its prices not */
            forget_self(w, a->param == GP_SWEEP_OPTION_WORK_PER_GPU ? ENGINE_REDO_RUNNING
                                                                    : ENGINE_REDO_BRIDGE);
        for (int i = 0; i < s->n_options; i++)
            if (s->options[i].has_base_gpus && s->options[i].burst == a->option)
                w->opts_ok &= ~((uint64_t)1 << i);
        return;
    default: /* utilization, gpus, horizon, growth: the demand, if its months change */
        w->demand_moved = true;
        return;
    }
}

static void walker_set(walker *w, int k, int i) {
    double old = w->values[k], v = gp_sweep_value(&w->axes[k], i);
    if (memcmp(&old, &v, sizeof v) == 0)
        return; /* an integer axis often rounds to the same value */
    w->values[k] = v;
    apply(w->s, w->base, w->base_mean, &w->axes[k], v);
    walker_forget(w, k, old, v);
    if (params[w->axes[k].param].v2)
        w->cache.uses_v2 = gp_scenario_uses_v2(w->s);
}

/* The first total equal to the lowest (docs/model.md, Ties): -1 self-hosted, else an option. */
static int cheapest_of(const double *t, int n_contenders) {
    double best = t[0];
    for (int i = 1; i < n_contenders; i++)
        best = t[i] < best ? t[i] : best;
    for (int i = 0; i < n_contenders; i++)
        if (gp_money_equal(t[i], best))
            return i - 1;
    return -1;
}

/* A point's outcome for the summary: the winner (-1 self-hosted, else an option) when one
 * total is lowest alone; at a tie (two or more equal to the lowest, Ties) a code below
 * TIE_BASE naming the first two tied in order. A tie is no side's win (docs/planning.md). */
#define TIE_BASE (-1000)
static int tie_code(int a, int b) {
    return TIE_BASE - ((a + 1) * 128 + (b + 1));
}
static bool is_tie(int code) {
    return code <= TIE_BASE;
}
static bool tie_has(int code, int c) {
    int k = TIE_BASE - code;
    return k / 128 - 1 == c || k % 128 - 1 == c;
}
static int tie_first(int code) {
    return (TIE_BASE - code) / 128 - 1;
}

static int winner_of(const double *t, int n_contenders) {
    int a = cheapest_of(t, n_contenders);
    for (int i = a + 2; i < n_contenders; i++)
        if (gp_money_equal(t[i], t[a + 1]))
            return tie_code(a, i - 1);
    return a;
}

/* Totals at the current point into t[0] (self-hosted) and t[1..]; a point the engine refuses
 * fills err. */
static gp_status walker_eval(walker *w, double *t, gp_err *err) {
    w->evaluations++;
    int nc = w->s->n_options + 1;
    if (!w->cache.uses_v2) { /* steady totals; the totals kept belong to version 2 points */
        walker_forget_all(w);
        steady_totals(w->s, &w->cache, &t[0], &t[1]);
        return GP_OK;
    }
    if (w->demand_moved) {
        w->demand_moved = false;
        if (engine_demand(w->s, w->keep)) {
            forget_self(w, ENGINE_REDO_NEED);
            w->opts_ok = 0;
        }
    }
    engine_want want = {!w->self_ok, w->redo, w->opts_all & ~w->opts_ok};
    if (!want.self && !want.options) {
        memcpy(t, w->t, sizeof(double) * (size_t)nc);
        return GP_OK;
    }
    int most = 0;
    if (engine_totals(w->s, w->cache.scratch, w->keep, want, &w->t[0], &w->t[1], &most)) {
        if (want.self) {
            w->self_ok = true;
            w->redo = 0;
            w->max_want = most;
        }
        w->opts_ok |= want.options;
        memcpy(t, w->t, sizeof(double) * (size_t)nc);
        return GP_OK;
    }
    /* The engine might refuse this point: evaluate it in full for its totals or its error. */
    walker_forget_all(w);
    gp_model_totals_v2(w->s, w->cache.scratch, &t[0], &t[1]);
    if (w->cache.scratch->error.code != GP_OK) {
        char at[160];
        size_t n = 0;
        at[0] = '\0';
        for (int k = 0; k < w->n_axes && n < sizeof at; k++) {
            int c = snprintf(at + n, sizeof at - n, "%s%s=%g", k ? ", " : "",
                             params[w->axes[k].param].name, w->values[k]);
            if (c < 0)
                break;
            n += (size_t)c;
        }
        return gp_errorf(err, GP_E_INPUT, w->cache.scratch->error.where, "at %s: %s", at,
                         w->cache.scratch->error.msg);
    }
    return GP_OK;
}

gp_status gp_sweep_run(const gp_scenario *base, const gp_sweep_axis *axes, int n_axes,
                       gp_sweep_fn fn, void *arg, uint64_t *points, gp_err *err) {
    *points = 0;
    if (gp_sweep_check(base, axes, n_axes, err))
        return err->code;
    walker w;
    walker_init(&w, base, axes, n_axes);
    int idx[GP_SWEEP_MAX_AXES] = {0};
    double t[GP_MAX_OPTIONS + 1];
    int nc = base->n_options + 1;
    uint64_t n = 0;
    gp_status rc = GP_OK;
    for (;;) {
        rc = walker_eval(&w, t, err);
        if (rc)
            break;
        n++;
        if (fn(w.values, t[0], &t[1], cheapest_of(t, nc), arg))
            break;
        /* Odometer: advance the last axis, carry leftwards, touching only what changed. */
        int k = n_axes - 1;
        while (k >= 0 && ++idx[k] == axes[k].steps) {
            idx[k] = 0;
            walker_set(&w, k, 0);
            k--;
        }
        if (k < 0)
            break;
        walker_set(&w, k, idx[k]);
    }
    *points = n;
    walker_done(&w);
    return rc;
}

/* ---- summaries ------------------------------------------------------------------------ */

/* Wins and flips of one row, kept apart until the row is done (a row whose solution cannot be
 * confirmed is walked again point by point). */
typedef struct row_tally {
    uint64_t wins[GP_MAX_OPTIONS + 1];
    uint64_t ties;
    uint64_t n_flips;
    gp_sweep_flip flips[GP_SWEEP_MAX_FLIPS];
    int prev; /* the side of the last point counted (a tie's first in order); -2 before one */
    int tie;  /* the tie code of the points just counted, or 0 after a win */
    int tie_i0, tie_i1; /* where those tie points run */
    int next_i;         /* the index the next run must start at */
} row_tally;

static void tally_start(row_tally *r) {
    memset(r->wins, 0, sizeof r->wins);
    r->ties = 0;
    r->n_flips = 0;
    r->prev = -2;
    r->tie = 0;
    r->next_i = 0;
}

/* A flip from r->prev to c at point i0; tied: through the tie points r->tie_i0..tie_i1. */
static void tally_flip(row_tally *r, const walker *w, int i0, int c, bool tied) {
    int last = w->n_axes - 1;
    if (r->n_flips < GP_SWEEP_MAX_FLIPS) {
        gp_sweep_flip *f = &r->flips[r->n_flips];
        memset(f, 0, sizeof *f);
        memcpy(f->values, w->values, sizeof(double) * (size_t)w->n_axes);
        f->values[last] = gp_sweep_value(&w->axes[last], i0);
        f->prev_last = gp_sweep_value(&w->axes[last], (tied ? r->tie_i0 : i0) - 1);
        f->from = r->prev;
        f->to = c;
        f->tied = tied;
        if (tied) {
            f->tie_first = gp_sweep_value(&w->axes[last], r->tie_i0);
            f->tie_last = gp_sweep_value(&w->axes[last], r->tie_i1);
        }
    }
    r->n_flips++;
}

/* Points i0..i1 of the row (the current walker values for the outer axes) all have outcome c:
 * won by c, or a tie. A tie point is no win: when the answer goes from A to B through points
 * where A and B tie, the flip is told at the tie; A, a tie, A again is no flip. */
static void tally_run(row_tally *r, const walker *w, int i0, int i1, int c) {
    if (is_tie(c)) {
        r->ties += (uint64_t)(i1 - i0 + 1);
        if (r->prev == -2) {
            r->prev = tie_first(c);
        } else if (!tie_has(c, r->prev)) { /* a tie the side before has no part in */
            r->tie = 0;
            tally_flip(r, w, i0, tie_first(c), false);
            r->prev = tie_first(c);
        }
        if (r->tie != c) {
            r->tie = c;
            r->tie_i0 = i0;
        }
        r->tie_i1 = i1;
    } else {
        r->wins[c + 1] += (uint64_t)(i1 - i0 + 1);
        if (r->prev != -2 && c != r->prev)
            tally_flip(r, w, i0, c, r->tie && tie_has(r->tie, r->prev) && tie_has(r->tie, c));
        r->prev = c;
        r->tie = 0;
    }
    r->next_i = i1 + 1;
}

static void tally_commit(const row_tally *r, gp_sweep_summary *out, int n_contenders) {
    out->ties += r->ties;
    for (int c = 0; c < n_contenders; c++)
        out->wins[c] += r->wins[c];
    for (uint64_t k = 0; k < r->n_flips; k++) {
        if (out->n_flips < GP_SWEEP_MAX_FLIPS)
            out->flips[out->n_flips] = r->flips[k]; /* k < GP_SWEEP_MAX_FLIPS here */
        out->n_flips++;
    }
}

/* Where a line's winners go, run by run and in order: points i0..i1 of the line all won by c. */
typedef struct line_sink {
    void (*run)(void *ctx, int i0, int i1, int c);
    void *ctx;
} line_sink;

/* A row's runs into its tally. */
typedef struct row_ctx {
    row_tally *r;
    const walker *w;
} row_ctx;

static void tally_sink(void *ctx, int i0, int i1, int c) {
    row_ctx *x = ctx;
    tally_run(x->r, x->w, i0, i1, c);
}

/* Every point of the line along axis k (the other axes as they are), evaluated. */
static gp_status walk_line(walker *w, int k, const line_sink *out, gp_err *err) {
    double t[GP_MAX_OPTIONS + 1];
    int nc = w->base->n_options + 1;
    for (int i = 0; i < w->axes[k].steps; i++) {
        walker_set(w, k, i);
        if (walker_eval(w, t, err))
            return err->code;
        out->run(out->ctx, i, i, winner_of(t, nc));
    }
    return GP_OK;
}

/* ---- rows solved from linear pieces --------------------------------------------------- */

/* Relative tolerance of the midpoint check, and the error allowed between a total evaluated at
 * a point and its linear model on a confirmed piece: rounding only, since a confirmed piece is
 * linear to LINEAR_TOL, and a convex total (all of those solved here are) off its chord by d
 * at the midpoint is off by at most 2d anywhere on the piece. A point whose winner the model
 * cannot tell apart by more than the Ties rule plus this error is evaluated. */
#define LINEAR_TOL 1e-12
#define MODEL_ERR 1e-10
/* Pieces this short, and rows shorter than twice this, are evaluated point by point. */
#define SHORT_PIECE 4
#define MAX_DEPTH 64

typedef struct solver {
    walker *w;
    const line_sink *out;
    const gp_sweep_axis *axis; /* the one swept along the line */
    int k, nc;
    bool unsure; /* a check failed: the row is walked point by point instead */
    gp_status rc;
    gp_err *err;
} solver;

/* A confirmed linear piece: the totals at its end points (evaluated) and each one's error. */
typedef struct piece_model {
    double va, vb;
    const double *ta, *tb;
    double e[GP_MAX_OPTIONS + 1];
} piece_model;

/* Whether every total is affine or piecewise linear and convex along the last axis (docs/model.md:
 * totals are affine in a price, PUE or the server price; in GPU mode, piecewise linear in
 * utilization between the tariff's shift breaks, with a jump at 0 alone), and whether the
 * points the engine refuses are the same all along the row (they follow the plan's GPUs and
 * batches, which none of these move; utilization 0 is evaluated on its own). */
static bool line_solvable(const walker *w, int k) {
    const gp_sweep_axis *a = &w->axes[k];
    if (a->from == a->to || a->steps < 2 * SHORT_PIECE)
        return false;
    switch (a->param) {
    case GP_SWEEP_PRICE_PER_KWH:
    case GP_SWEEP_SERVER_PRICE:
    case GP_SWEEP_PUE:
    case GP_SWEEP_HOURLY:
    case GP_SWEEP_PRICE_PER_UNIT:
        return true;
    case GP_SWEEP_UTILIZATION:
        return !w->s->work_mode;
    default:
        return false;
    }
}

/* Evaluate point i of the row into t; its cheapest, or -2 on an error (v->rc set). */
static int eval_at(solver *v, int i, double *t) {
    walker_set(v->w, v->k, i);
    if (walker_eval(v->w, t, v->err)) {
        v->rc = v->err->code;
        return -2;
    }
    return winner_of(t, v->nc);
}

static void model_at(const piece_model *pm, const solver *v, int i, double *l) {
    double f = (gp_sweep_value(v->axis, i) - pm->va) / (pm->vb - pm->va);
    for (int c = 0; c < v->nc; c++)
        l[c] = pm->ta[c] + (pm->tb[c] - pm->ta[c]) * f;
}

static double max4(double a, double b, double c, double d) {
    double m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

/* The contender that wins every point between two model points by more than the Ties rule and
 * the model's error, or -2 when there is none. Each difference is linear between them and each
 * tie threshold convex, so the ends decide. */
static int clear_winner(const piece_model *pm, const solver *v, const double *li,
                        const double *lj) {
    int ci = 0, cj = 0;
    for (int c = 1; c < v->nc; c++) {
        ci = li[c] < li[ci] ? c : ci;
        cj = lj[c] < lj[cj] ? c : cj;
    }
    if (ci != cj)
        return -2;
    for (int c = 0; c < v->nc; c++) {
        if (c == ci)
            continue;
        double d = li[c] - li[ci] < lj[c] - lj[ci] ? li[c] - li[ci] : lj[c] - lj[ci];
        double scale = max4(1.0, fmax(fabs(li[c]), fabs(lj[c])), fabs(li[ci]), fabs(lj[ci]));
        double thr = 1e-9 * scale + 1.001 * (pm->e[c] + pm->e[ci]);
        if (!(d > thr))
            return -2;
    }
    return ci - 1;
}

/* Points i+1..j of a confirmed piece, in order. */
static void classify(solver *v, const piece_model *pm, int i, int j) {
    if (v->rc || v->unsure)
        return;
    double li[GP_MAX_OPTIONS + 1], lj[GP_MAX_OPTIONS + 1];
    model_at(pm, v, i, li);
    model_at(pm, v, j, lj);
    int c = clear_winner(pm, v, li, lj);
    if (c != -2) {
        v->out->run(v->out->ctx, i + 1, j, c);
        return;
    }
    if (j - i <= 2) {
        double t[GP_MAX_OPTIONS + 1];
        for (int k = i + 1; k <= j; k++) {
            int ck = eval_at(v, k, t);
            if (ck == -2)
                return;
            /* The model must hold where it is looked at: otherwise walk the row. */
            model_at(pm, v, k, li);
            for (int n = 0; n < v->nc; n++)
                if (!(fabs(t[n] - li[n]) <= pm->e[n]))
                    v->unsure = true;
            v->out->run(v->out->ctx, k, k, ck);
        }
        return;
    }
    int m = i + (j - i) / 2;
    classify(v, pm, i, m);
    classify(v, pm, m, j);
}

/* Points a+1..b, a and b evaluated into ta and tb (a already counted): cut where the midpoint
 * is off the chord, classify where it is on it. */
static void piece(solver *v, int a, const double *ta, int b, const double *tb, int depth) {
    if (v->rc || v->unsure)
        return;
    double tm[GP_MAX_OPTIONS + 1];
    if (b - a <= SHORT_PIECE || depth > MAX_DEPTH) {
        for (int i = a + 1; i < b; i++) {
            int c = eval_at(v, i, tm);
            if (c == -2)
                return;
            v->out->run(v->out->ctx, i, i, c);
        }
        v->out->run(v->out->ctx, b, b, winner_of(tb, v->nc));
        return;
    }
    int m = a + (b - a) / 2;
    if (eval_at(v, m, tm) == -2)
        return;
    piece_model pm = {gp_sweep_value(v->axis, a), gp_sweep_value(v->axis, b), ta, tb, {0}};
    if (!(pm.vb != pm.va)) {
        v->unsure = true;
        return;
    }
    double f = (gp_sweep_value(v->axis, m) - pm.va) / (pm.vb - pm.va);
    bool linear = true;
    for (int c = 0; c < v->nc; c++) {
        double chord = ta[c] + (tb[c] - ta[c]) * f;
        double scale = max4(1.0, fabs(ta[c]), fabs(tb[c]), fabs(tm[c]));
        double off = fabs(tm[c] - chord);
        if (!(off <= LINEAR_TOL * scale))
            linear = false;
        pm.e[c] = MODEL_ERR * scale + 2.0 * off;
    }
    if (!linear) {
        piece(v, a, ta, m, tm, depth + 1);
        piece(v, m, tm, b, tb, depth + 1);
        return;
    }
    classify(v, &pm, a, b);
}

/* The line along axis k: its runs into out, solved from its pieces (*solved) when
 * line_solvable allows and every check holds; otherwise *solved is false, out may have had
 * some runs, and the caller walks the line instead. */
static gp_status solve_line(walker *w, int k, const line_sink *out, gp_err *err, bool *solved) {
    const gp_sweep_axis *a = &w->axes[k];
    *solved = false;
    if (!line_solvable(w, k))
        return GP_OK;
    solver v = {w, out, a, k, w->base->n_options + 1, false, GP_OK, err};
    double tlo[GP_MAX_OPTIONS + 1], thi[GP_MAX_OPTIONS + 1], tz[GP_MAX_OPTIONS + 1];
    int lo = 0, hi = a->steps - 1;
    bool util = a->param == GP_SWEEP_UTILIZATION;
    int c = eval_at(&v, lo, tlo);
    if (c == -2)
        return v.rc;
    out->run(out->ctx, lo, lo, c);
    if (util && gp_sweep_value(a, lo) == 0.0) { /* the jump at 0: that point alone */
        c = eval_at(&v, ++lo, tlo);
        if (c == -2)
            return v.rc;
        out->run(out->ctx, lo, lo, c);
    }
    bool zero_end = util && gp_sweep_value(a, hi) == 0.0;
    if (zero_end)
        hi--;
    if (eval_at(&v, hi, thi) == -2)
        return v.rc;
    piece(&v, lo, tlo, hi, thi, 0);
    if (!v.rc && !v.unsure && zero_end) {
        c = eval_at(&v, hi + 1, tz);
        if (c != -2)
            out->run(out->ctx, hi + 1, hi + 1, c);
    }
    if (v.rc)
        return v.rc;
    *solved = !v.unsure;
    return GP_OK;
}

/* ---- blocks solved by columns --------------------------------------------------------- */

/* When the last axis has no linear pieces (a version 2 parameter, say) but the one before it
 * has, each column (a point of the last axis) is solved along the axis before it into runs of
 * winners, and the rows are then read from the columns: the same points, wins and flips in
 * the same order. The runs are kept for one block of the two axes at a time, up to a cap
 * (memory does not grow with the grid); a block past it is walked point by point. */
#define MAX_COLUMNS (1 << 20)
#define MAX_RUNS (1 << 22)

typedef struct columns {
    int n_cols;
    int *first;      /* [n_cols + 1]: column l's runs are first[l] .. first[l + 1] - 1 */
    int *cursor;     /* [n_cols]: the run in force at the row being read */
    int *run_start;  /* [cap]: the index along the axis before the last where a run starts */
    int *run_winner; /* a winner or a tie code */
    int n_runs, cap;
    bool overflow;
} columns;

static void columns_sink(void *ctx, int i0, int i1, int c) {
    (void)i1;
    columns *x = ctx;
    if (x->n_runs > x->first[x->n_cols] && x->run_winner[x->n_runs - 1] == c)
        return; /* the same winner goes on */
    if (x->n_runs == x->cap) {
        if (x->cap == MAX_RUNS) {
            x->overflow = true;
            return;
        }
        x->cap = x->cap * 2 < MAX_RUNS ? x->cap * 2 : MAX_RUNS;
        x->run_start = gp_xrealloc(x->run_start, sizeof *x->run_start * (size_t)x->cap);
        x->run_winner = gp_xrealloc(x->run_winner, sizeof *x->run_winner * (size_t)x->cap);
    }
    x->run_start[x->n_runs] = i0;
    x->run_winner[x->n_runs] = c;
    x->n_runs++;
}

/* The block of the last two axes at the current values of the others: *done false when it
 * must be walked instead (a column past the cap). Rows go into out as solved rows. */
static gp_status solve_block(walker *w, columns *x, row_tally *r, gp_sweep_summary *out,
                             gp_err *err, bool *done) {
    int last = w->n_axes - 1, k = last - 1, nc = w->base->n_options + 1;
    int n_cols = w->axes[last].steps, n_rows = w->axes[k].steps;
    *done = false;
    x->n_runs = 0;
    x->overflow = false;
    line_sink sink = {columns_sink, x};
    for (int l = 0; l < n_cols; l++) {
        walker_set(w, last, l);
        x->n_cols = l;
        x->first[l] = x->n_runs;
        bool solved = false;
        gp_status rc = solve_line(w, k, &sink, err, &solved);
        if (rc)
            return rc;
        if (!solved) {
            x->n_runs = x->first[l];
            rc = walk_line(w, k, &sink, err);
            if (rc)
                return rc;
        }
        if (x->overflow)
            return GP_OK;
    }
    x->n_cols = n_cols;
    x->first[n_cols] = x->n_runs;
    for (int l = 0; l < n_cols; l++)
        x->cursor[l] = x->first[l];
    row_ctx rx = {r, w};
    for (int i = 0; i < n_rows; i++) {
        walker_set(w, k, i);
        tally_start(r);
        int from = 0, c_run = -2;
        for (int l = 0; l < n_cols; l++) {
            int *cur = &x->cursor[l];
            while (*cur + 1 < x->first[l + 1] && x->run_start[*cur + 1] <= i)
                (*cur)++;
            int c = x->run_winner[*cur];
            if (c != c_run) {
                if (c_run != -2)
                    tally_sink(&rx, from, l - 1, c_run);
                from = l;
                c_run = c;
            }
        }
        tally_sink(&rx, from, n_cols - 1, c_run);
        tally_commit(r, out, nc);
        out->points += (uint64_t)n_cols;
        out->rows_solved++;
    }
    *done = true;
    return GP_OK;
}

/* The block of the last two axes, or every row, at the current values of the other axes. */
static gp_status summarize_rows_here(walker *w, columns *x, row_tally *r, bool by_rows,
                                     bool by_columns, gp_sweep_summary *out, gp_err *err) {
    int last = w->n_axes - 1, nc = w->base->n_options + 1;
    if (by_columns) {
        bool done = false;
        gp_status rc = solve_block(w, x, r, out, err, &done);
        if (rc || done)
            return rc;
    }
    /* Every row of the block (by_columns), or the one row. */
    int n_rows = by_columns ? w->axes[last - 1].steps : 1;
    row_ctx rx = {r, w};
    line_sink sink = {tally_sink, &rx};
    for (int i = 0; i < n_rows; i++) {
        if (by_columns)
            walker_set(w, last - 1, i);
        bool solved = false;
        tally_start(r);
        gp_status rc = by_rows ? solve_line(w, last, &sink, err, &solved) : GP_OK;
        if (!rc && !solved) {
            tally_start(r);
            rc = walk_line(w, last, &sink, err);
        }
        if (rc)
            return rc;
        tally_commit(r, out, nc);
        out->points += (uint64_t)w->axes[last].steps;
        if (solved)
            out->rows_solved++;
        else
            out->rows_walked++;
    }
    return GP_OK;
}

static gp_status summarize(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                           bool by_rows, gp_sweep_summary *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->n_axes = n_axes;
    if (gp_sweep_check(s, axes, n_axes, err))
        return err->code;
    walker w;
    walker_init(&w, s, axes, n_axes);
    row_tally *r = gp_xmalloc(sizeof *r);
    int last = n_axes - 1;
    columns x;
    memset(&x, 0, sizeof x);
    bool by_columns = by_rows && n_axes >= 2 && !line_solvable(&w, last) &&
                      line_solvable(&w, last - 1) && axes[last].steps <= MAX_COLUMNS;
    if (by_columns) {
        x.first = gp_xmalloc(sizeof *x.first * ((size_t)axes[last].steps + 1));
        x.cursor = gp_xmalloc(sizeof *x.cursor * (size_t)axes[last].steps);
        x.cap = 4 * axes[last].steps < MAX_RUNS ? 4 * axes[last].steps : MAX_RUNS;
        x.run_start = gp_xmalloc(sizeof *x.run_start * (size_t)x.cap);
        x.run_winner = gp_xmalloc(sizeof *x.run_winner * (size_t)x.cap);
    }
    /* Odometer over the axes outside the block (the last one, or the last two by columns). */
    int outer = by_columns ? last - 1 : last;
    int idx[GP_SWEEP_MAX_AXES] = {0};
    gp_status rc = GP_OK;
    for (;;) {
        rc = summarize_rows_here(&w, &x, r, by_rows, by_columns, out, err);
        if (rc)
            break;
        int k = outer - 1;
        while (k >= 0 && ++idx[k] == axes[k].steps) {
            idx[k] = 0;
            walker_set(&w, k, 0);
            k--;
        }
        if (k < 0)
            break;
        walker_set(&w, k, idx[k]);
    }
    out->evaluations = w.evaluations;
    free(x.first);
    free(x.cursor);
    free(x.run_start);
    free(x.run_winner);
    free(r);
    walker_done(&w);
    if (rc) {
        memset(out, 0, sizeof *out);
        out->n_axes = n_axes;
    }
    return rc;
}

gp_status gp_sweep_summarize_points(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                                    gp_sweep_summary *out, gp_err *err) {
    return summarize(s, axes, n_axes, false, out, err);
}

gp_status gp_sweep_summarize_rows(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes,
                                  gp_sweep_summary *out, gp_err *err) {
    return summarize(s, axes, n_axes, true, out, err);
}
