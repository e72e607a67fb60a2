/* Grid sweeps: set the swept inputs, take closed-form totals, pick the cheapest. */
#include "gpuplan/sweep.h"

#include <math.h>
#include <string.h>

#include "gpuplan/model.h"

static const char *const param_names[] = {"utilization",  "gpus", "horizon_months", "price_per_kwh",
                                          "server_price", "pue",  "hourly"};

const char *gp_sweep_param_name(gp_sweep_param p) {
    return param_names[p];
}

static bool is_integer_param(gp_sweep_param p) {
    return p == GP_SWEEP_GPUS || p == GP_SWEEP_HORIZON;
}

double gp_sweep_value(const gp_sweep_axis *a, int i) {
    double v = a->steps <= 1 ? a->from : a->from + (a->to - a->from) / (a->steps - 1) * i;
    if (a->steps > 1 && i == a->steps - 1)
        v = a->to; /* exact endpoint, whatever the rounding of the step */
    return is_integer_param(a->param) ? floor(v + 0.5) : v;
}

gp_status gp_sweep_check(const gp_scenario *s, const gp_sweep_axis *axes, int n_axes, gp_err *err) {
    if (n_axes < 1 || n_axes > GP_SWEEP_MAX_AXES)
        return gp_errorf(err, GP_E_INPUT, "--vary", "give 1 to %d --vary axes", GP_SWEEP_MAX_AXES);
    /* The sweep evaluates each point in closed form, which only a steady state has. */
    if (gp_scenario_uses_v2(s))
        return gp_errorf(err, GP_E_INPUT, "$",
                         "the sweep takes version 1 scenarios; this one plans over time "
                         "(version 2 keys such as growth, steps, buy, lead time or trends)");
    double points = 1.0;
    for (int k = 0; k < n_axes; k++) {
        const gp_sweep_axis *a = &axes[k];
        const char *name = gp_sweep_param_name(a->param);
        if (a->steps < 1)
            return gp_errorf(err, GP_E_INPUT, name, "steps must be >= 1 (got %d)", a->steps);
        if (!isfinite(a->from) || !isfinite(a->to))
            return gp_errorf(err, GP_E_INPUT, name, "bounds must be finite numbers");
        points *= a->steps;
        double lo = a->from < a->to ? a->from : a->to, hi = a->from < a->to ? a->to : a->from;
        double min = 0.0, max = INFINITY;
        switch (a->param) {
        case GP_SWEEP_UTILIZATION:
            max = 1.0;
            break;
        case GP_SWEEP_GPUS:
            min = 1.0, max = 1000000.0;
            break;
        case GP_SWEEP_HORIZON:
            min = 1.0, max = GP_MAX_MONTHS;
            break;
        case GP_SWEEP_PUE:
            min = 1.0, max = 5.0;
            break;
        case GP_SWEEP_HOURLY:
            if (a->option < 0 || a->option >= s->n_options)
                return gp_errorf(err, GP_E_INPUT, name, "no such option");
            break;
        case GP_SWEEP_PRICE_PER_KWH:
        case GP_SWEEP_SERVER_PRICE:
            break;
        }
        if (is_integer_param(a->param)) {
            lo = floor(lo + 0.5);
            hi = floor(hi + 0.5);
        }
        if (lo < min || hi > max) {
            if (isinf(max))
                return gp_errorf(err, GP_E_INPUT, name, "must stay >= %g (got %g..%g)", min,
                                 a->from, a->to);
            return gp_errorf(err, GP_E_INPUT, name, "must stay in [%g, %g] (got %g..%g)", min, max,
                             a->from, a->to);
        }
    }
    if (points > 1099511627776.0)
        return gp_errorf(err, GP_E_INPUT, "--vary", "the grid has %.3g points; at most 2^40",
                         points);
    return GP_OK;
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
    }
}

gp_status gp_sweep_run(const gp_scenario *base, const gp_sweep_axis *axes, int n_axes,
                       gp_sweep_fn fn, void *arg, uint64_t *points, gp_err *err) {
    *points = 0;
    if (gp_sweep_check(base, axes, n_axes, err))
        return err->code;
    gp_scenario s = *base;
    gp_model_cache cache;
    gp_model_cache_init(&cache, &s); /* scaling prices keeps their order */
    double base_mean = gp_tariff_mean_price(base);
    int idx[GP_SWEEP_MAX_AXES] = {0};
    double values[GP_SWEEP_MAX_AXES];
    for (int k = 0; k < n_axes; k++) {
        values[k] = gp_sweep_value(&axes[k], 0);
        apply(&s, base, base_mean, &axes[k], values[k]);
    }
    double opts[GP_MAX_OPTIONS];
    uint64_t n = 0;
    for (;;) {
        double self;
        gp_model_totals(&s, &cache, &self, opts);
        /* The first total equal to the lowest (MODEL.md, Ties). */
        double best = self;
        for (int i = 0; i < s.n_options; i++)
            best = opts[i] < best ? opts[i] : best;
        int cheapest = -1;
        for (int i = -1; i < s.n_options; i++) {
            double v = i < 0 ? self : opts[i];
            double scale = fabs(v) > fabs(best) ? fabs(v) : fabs(best);
            if (fabs(v - best) <= 1e-9 * (scale > 1.0 ? scale : 1.0)) {
                cheapest = i;
                break;
            }
        }
        n++;
        if (fn(values, self, opts, cheapest, arg))
            break;
        /* Odometer: advance the last axis, carry leftwards, touching only what changed. */
        int k = n_axes - 1;
        while (k >= 0 && ++idx[k] == axes[k].steps) {
            idx[k] = 0;
            values[k] = gp_sweep_value(&axes[k], 0);
            apply(&s, base, base_mean, &axes[k], values[k]);
            k--;
        }
        if (k < 0)
            break;
        values[k] = gp_sweep_value(&axes[k], idx[k]);
        apply(&s, base, base_mean, &axes[k], values[k]);
    }
    *points = n;
    return GP_OK;
}
