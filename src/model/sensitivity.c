/* One-at-a-time sensitivity over every numeric input of a scenario. */
#include "gpuplan/sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/engine.h"

/* An input: where it lives in a scenario, its valid range and whether it is an integer. The
 * offset is applied to a gp_scenario, or to a gp_option / gp_period for the indexed kinds. */
typedef enum { IN_SCENARIO, IN_OPTION, IN_PERIOD, IN_RESALE } owner;

typedef struct input {
    const char *path;
    owner where;
    size_t offset;
    bool is_int;
    double lo, hi;
    int pricing_mask; /* IN_OPTION: which pricing kinds carry it (1 << gp_pricing) */
    bool structural;  /* the plan's shape, not an uncertainty: moved only when asked */
} input;

#define S(f) IN_SCENARIO, offsetof(gp_scenario, f)
#define O(f) IN_OPTION, offsetof(gp_option, f)
#define HOURLY ((1 << GP_ON_DEMAND) | (1 << GP_SPOT) | (1 << GP_COMMITTED))
#define ALL (HOURLY | (1 << GP_PER_UNIT))

static const input inputs[] = {
    {"horizon_months", S(horizon_months), true, 1, GP_MAX_MONTHS, 0, true},
    {"discount_rate", S(discount_rate), false, 0, 1, 0, true},
    {"demand.gpus", S(gpus), true, 1, 1000000, 0, false},
    {"demand.utilization", S(utilization), false, 0, 1, 0, false},
    {"self_hosted.gpus_per_server", S(gpus_per_server), true, 1, 64, 0, true},
    {"self_hosted.server_price", S(server_price), false, 0, INFINITY, 0, false},
    {"self_hosted.price_factor", S(price_factor), false, 1e-12, INFINITY, 0, false},
    {"self_hosted.network_per_server", S(network_per_server), false, 0, INFINITY, 0, false},
    {"self_hosted.fixed_capex", S(fixed_capex), false, 0, INFINITY, 0, false},
    {"self_hosted.residual_pct", S(residual_pct), false, 0, 1, 0, false},
    {"self_hosted.warranty_months", S(warranty_months), true, 0, 240, 0, true},
    {"self_hosted.maintenance_pct_per_year", S(maintenance_pct_per_year), false, 0, 1, 0, false},
    {"self_hosted.staff_per_month", S(staff_per_month), false, 0, INFINITY, 0, false},
    {"self_hosted.other_per_month", S(other_per_month), false, 0, INFINITY, 0, false},
    {"self_hosted.colo_per_kw_month", S(colo_per_kw_month), false, 0, INFINITY, 0, false},
    {"self_hosted.power.server_base_w", S(server_base_w), false, 0, INFINITY, 0, false},
    {"self_hosted.power.gpu_idle_w", S(gpu_idle_w), false, 0, INFINITY, 0, false},
    {"self_hosted.power.gpu_tdp_w", S(gpu_tdp_w), false, 0, INFINITY, 0, false},
    {"self_hosted.power.gpu_avg_w", S(gpu_avg_w), false, 0, INFINITY, 0, false},
    {"self_hosted.power.pue", S(pue), false, 1, 5, 0, false},
    {"self_hosted.tariff.demand_charge_per_kw_month", S(demand_charge_per_kw_month), false, 0,
     INFINITY, 0, false},
    {"self_hosted.financing.apr", S(loan_apr), false, 0, 1, 0, false},
    {"self_hosted.financing.term_months", S(loan_term_months), true, 1, 360, 0, true},
    {"self_hosted.financing.fraction", S(loan_fraction), false, 0, 1, 0, true},
    /* version 2 (0 where not in use, so left out there) */
    {"demand.work_per_month", S(work_per_month), false, 1e-12, INFINITY, 0, false},
    {"demand.growth_per_month", S(growth_per_month), false, -0.5, 1, 0, false},
    {"self_hosted.lead_time_months", S(lead_time_months), true, 0, 24, 0, false},
    {"self_hosted.order_every_months", S(order_every_months), true, 1, GP_MAX_MONTHS, 0, true},
    {"self_hosted.max_servers", S(max_servers), true, 1, 1000000, 0, true},
    {"self_hosted.server_price_trend_per_year", S(server_price_trend_per_year), false, -0.9, 1, 0,
     false},
    {"self_hosted.tariff.price_trend_per_year", S(energy_price_trend_per_year), false, -0.9, 1, 0,
     false},
    {"self_hosted.work_per_gpu_hour", S(work_per_gpu_hour), false, 1e-12, INFINITY, 0, false},
    /* the exit value's inputs: what hardware is worth when it leaves */
    {"self_hosted.depreciation_years", S(depreciation_years), false, 1, 50, 0, false},
    {"self_hosted.refresh_months", S(refresh_months), true, 12, 240, 0, false},
    {"self_hosted.resale", IN_RESALE, 0, false, 0, 1, 0, false},
    {"price_trend_per_year", O(price_trend_per_year), false, -0.9, 1, ALL, false},
    {"work_per_gpu_hour", O(work_per_gpu_hour), false, 1e-12, INFINITY, HOURLY, false},
    {"hourly", O(hourly), false, 0, INFINITY, HOURLY, false},
    {"price_per_unit", O(price_per_unit), false, 0, INFINITY, 1 << GP_PER_UNIT, false},
    {"price_per_input_unit", O(price_per_input_unit), false, 0, INFINITY, 1 << GP_PER_UNIT, false},
    {"input_units_per_unit", O(input_units_per_unit), false, 0, 1000000, 1 << GP_PER_UNIT, false},
    {"upfront", O(upfront), false, 0, INFINITY, 1 << GP_COMMITTED, false},
    {"idle_overhead", O(idle_overhead), false, 0, 10, (1 << GP_ON_DEMAND) | (1 << GP_SPOT), false},
    {"interruptions_per_hour", O(interruptions_per_hour), false, 0, 10, 1 << GP_SPOT, false},
    {"checkpoint_interval_h", O(checkpoint_interval_h), false, 1e-9, 1000, 1 << GP_SPOT, false},
    {"restart_h", O(restart_h), false, 0, 1000, 1 << GP_SPOT, false},
    {"storage_gb", O(storage_gb), false, 0, INFINITY, ALL, false},
    {"storage_per_gb_month", O(storage_per_gb_month), false, 0, INFINITY, ALL, false},
    {"egress_gb_per_month", O(egress_gb_per_month), false, 0, INFINITY, ALL, false},
    {"egress_per_gb", O(egress_per_gb), false, 0, INFINITY, ALL, false},
    {"support_pct", O(support_pct), false, 0, 1, ALL, false},
    {"price_per_kwh", IN_PERIOD, offsetof(gp_period, price_per_kwh), false, 0, INFINITY, 0, false},
};

static void *field(gp_scenario *s, const input *in, int index) {
    switch (in->where) {
    case IN_OPTION:
        return (char *)&s->options[index] + in->offset;
    case IN_PERIOD:
        return (char *)&s->periods[index] + in->offset;
    case IN_SCENARIO:
    case IN_RESALE:
        break;
    }
    return (char *)s + in->offset;
}

/* The resale curve moves as a whole: every point's share times the same factor, so it keeps
 * its shape (and stays non-increasing); its first point stands for it. */
static double get(gp_scenario *s, const input *in, int index) {
    if (in->where == IN_RESALE)
        return s->n_resale ? s->resale[0].pct : 0.0;
    void *p = field(s, in, index);
    return in->is_int ? *(int *)p : *(double *)p;
}

static void set(gp_scenario *s, const input *in, int index, double v) {
    if (in->where == IN_RESALE) {
        double f = v / s->resale[0].pct;
        for (int k = 0; k < s->n_resale; k++)
            s->resale[k].pct = fmin(1.0, s->resale[k].pct * f);
        return;
    }
    void *p = field(s, in, index);
    if (in->is_int)
        *(int *)p = (int)v;
    else
        *(double *)p = v;
    if (in->where == IN_OPTION)
        gp_option_per_unit_sync(&s->options[index]); /* an API's hourly follows its prices */
}

static bool is_field(const input *in, size_t offset) {
    return in->where == IN_SCENARIO && in->offset == offset;
}

/* The input's range in s: the key table's, narrowed by the rules between keys (a lead time
 * below the horizon, a cadence at most the horizon, and a plan over time never longer than its
 * own horizon, whose later steps were dropped when it was read). */
static void bounds(const gp_scenario *s, const input *in, double *lo, double *hi) {
    *lo = in->lo;
    *hi = in->hi;
    if (is_field(in, offsetof(gp_scenario, lead_time_months)))
        *hi = fmin(*hi, s->horizon_months - 1);
    if (is_field(in, offsetof(gp_scenario, order_every_months)))
        *hi = fmin(*hi, s->horizon_months);
    if (is_field(in, offsetof(gp_scenario, horizon_months))) {
        *lo = fmax(fmax(*lo, s->lead_time_months + 1), s->order_every_months);
        if (gp_scenario_uses_v2(s))
            *hi = s->horizon_months;
    }
}

static double moved(const gp_scenario *s, const input *in, double base, double factor) {
    double v = base * factor, lo, hi;
    bounds(s, in, &lo, &hi);
    if (in->is_int)
        v = floor(v + 0.5);
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return v;
}

/* The moved scenario must still be valid as a whole, not just field by field. */
static void keep_consistent(gp_scenario *s) {
    if (s->gpu_tdp_w < s->gpu_idle_w)
        s->gpu_tdp_w = s->gpu_idle_w;
}

/* GP_OK, or the engine's refusal (r->error) of s. */
static gp_status evaluate(const gp_scenario *s, gp_result *r, double *diff, bool *has_be, int *be) {
    gp_model_evaluate(s, r);
    if (r->error.code != GP_OK)
        return r->error.code;
    for (int i = 0; i < s->n_options; i++) {
        diff[i] = r->options[i].total - r->self.total;
        has_be[i] = r->options[i].has_break_even_month;
        be[i] = r->options[i].break_even_month;
    }
    return GP_OK;
}

static int by_swing(const void *a, const void *b) {
    const gp_sens_row *x = a, *y = b;
    if (x->swing != y->swing)
        return x->swing < y->swing ? 1 : -1;
    return strcmp(x->input, y->input);
}

static void add_row(const gp_scenario *base, const input *in, int index, const char *path,
                    double delta, gp_sensitivity *out, gp_result *r, gp_scenario *work) {
    /* The parameter without its owner's path: what a reader names beside the owner's name. */
    const char *param = in->path;
    if (in->where == IN_SCENARIO || in->where == IN_RESALE) {
        static const char *const owners[] = {"self_hosted.", "demand."};
        for (size_t k = 0; k < 2; k++)
            if (strncmp(param, owners[k], strlen(owners[k])) == 0)
                param += strlen(owners[k]);
    }
    if (out->n_rows >= GP_SENS_MAX_ROWS)
        return;
    *work = *base;
    double b = get(work, in, index);
    if (b == 0.0 || (in->where == IN_SCENARIO && in->offset == offsetof(gp_scenario, gpu_avg_w) &&
                     !base->has_gpu_avg_w))
        return;
    if (in->where == IN_SCENARIO && base->financing != GP_LOAN &&
        (in->offset == offsetof(gp_scenario, loan_apr) ||
         in->offset == offsetof(gp_scenario, loan_term_months) ||
         in->offset == offsetof(gp_scenario, loan_fraction)))
        return;
    gp_sens_row *row = &out->rows[out->n_rows];
    memset(row, 0, sizeof *row);
    snprintf(row->input, sizeof row->input, "%s", path);
    snprintf(row->parameter, sizeof row->parameter, "%s", param);
    row->option = in->where == IN_OPTION ? index : -1;
    row->period = in->where == IN_PERIOD ? index : -1;
    gp_sens_label(base, row, row->label, sizeof row->label);
    row->base = b;
    row->low = moved(base, in, b, 1.0 - delta);
    row->high = moved(base, in, b, 1.0 + delta);
    if (row->low == b && row->high == b)
        return; /* an integer too small to move, or pinned at both bounds */
    double d_low[GP_MAX_OPTIONS], d_high[GP_MAX_OPTIONS];
    set(work, in, index, row->low);
    keep_consistent(work);
    gp_status rc = evaluate(work, r, d_low, row->has_be_low, row->be_low);
    row->self_low = r->self.total;
    if (rc == GP_OK) {
        *work = *base;
        set(work, in, index, row->high);
        keep_consistent(work);
        rc = evaluate(work, r, d_high, row->has_be_high, row->be_high);
        row->self_high = r->self.total;
    }
    if (rc != GP_OK) { /* the plan this move makes is refused: say so, show no numbers */
        if (out->n_refused++ == 0) {
            snprintf(out->refused_input, sizeof out->refused_input, "%s", path);
            out->refused_error = r->error;
        }
        return;
    }
    for (int i = 0; i < base->n_options; i++) {
        row->delta_low[i] = d_low[i] - out->base_diff[i];
        row->delta_high[i] = d_high[i] - out->base_diff[i];
        double sw = fabs(row->delta_high[i] - row->delta_low[i]);
        if (sw > row->swing)
            row->swing = sw;
    }
    out->n_rows++;
}

void gp_sens_label(const gp_scenario *s, const gp_sens_row *row, char *out, size_t cap) {
    char who[GP_NAME_BYTES + 16];
    if (row->option >= 0)
        snprintf(who, sizeof who, "%s", s->options[row->option].name);
    else if (row->period >= 0)
        snprintf(who, sizeof who, "tariff period %s", s->periods[row->period].name);
    else if (strncmp(row->input, "self_hosted.", 12) == 0)
        snprintf(who, sizeof who, "self-hosted");
    else if (strncmp(row->input, "demand.", 7) == 0)
        snprintf(who, sizeof who, "demand");
    else
        snprintf(who, sizeof who, "scenario");
    snprintf(out, cap, "%s: %s", who, row->parameter);
}

/* Whether the input at path (its key param) is one of those asked for: by its JSON path or
 * by its key, which names it in every option or period. */
static bool asked(const char *const *params, int n, const char *path, const char *key) {
    for (int k = 0; k < n; k++)
        if (!strcmp(params[k], path) || !strcmp(params[k], key))
            return true;
    return false;
}

static const char *key_of(const input *in) {
    const char *dot = strrchr(in->path, '.');
    return in->where == IN_OPTION || in->where == IN_PERIOD || !dot ? in->path : dot + 1;
}

gp_status gp_sensitivity_run(const gp_scenario *s, double delta, gp_sensitivity *out, gp_err *err) {
    return gp_sensitivity_run_params(s, delta, NULL, 0, out, err);
}

gp_status gp_sensitivity_run_params(const gp_scenario *s, double delta, const char *const *params,
                                    int n_params, gp_sensitivity *out, gp_err *err) {
    /* Every name asked for must name an input: a typo must not give a quiet table. */
    for (int k = 0; k < n_params; k++) {
        bool known = false;
        char path[96];
        for (size_t j = 0; j < sizeof inputs / sizeof inputs[0] && !known; j++) {
            const input *in = &inputs[j];
            known = !strcmp(params[k], in->path) || !strcmp(params[k], key_of(in));
            for (int i = 0; i < s->n_options && !known && in->where == IN_OPTION; i++) {
                snprintf(path, sizeof path, "cloud_options[%d].%s", i, in->path);
                known = !strcmp(params[k], path);
            }
            for (int i = 0; i < s->n_periods && !known && in->where == IN_PERIOD; i++) {
                snprintf(path, sizeof path, "self_hosted.tariff.periods[%d].%s", i, in->path);
                known = !strcmp(params[k], path);
            }
        }
        if (!known)
            return gp_errorf(err, GP_E_INPUT, "--param",
                             "\"%s\" is no input sensitivity moves (a JSON path such as "
                             "self_hosted.gpus_per_server or cloud_options[0].hourly, or a key)",
                             params[k]);
    }
    if (!(delta > 0.0 && delta < 1.0))
        return gp_errorf(err, GP_E_INPUT, "--delta", "must be above 0%% and below 100%% (got %g%%)",
                         delta * 100.0);
    gp_result *r = &out->scratch_result;
    gp_scenario *work = &out->scratch_scenario;
    out->delta = delta;
    out->n_options = s->n_options;
    out->n_rows = 0;
    out->n_refused = 0;
    if (evaluate(s, r, out->base_diff, out->has_be_base, out->be_base) != GP_OK) {
        *err = r->error;
        return err->code;
    }
    out->self_base = r->self.total;
    char path[96];
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        const input *in = &inputs[k];
        /* Asked for by name: those only, the plan's shape included; else every uncertainty. */
#define WANTED(p) (n_params ? asked(params, n_params, (p), key_of(in)) : !in->structural)
        if (in->where == IN_SCENARIO || in->where == IN_RESALE) {
            if (WANTED(in->path))
                add_row(s, in, 0, in->path, delta, out, r, work);
        } else if (in->where == IN_OPTION) {
            for (int i = 0; i < s->n_options; i++) {
                if (!(in->pricing_mask & (1 << s->options[i].pricing)))
                    continue;
                snprintf(path, sizeof path, "cloud_options[%d].%s", i, in->path);
                if (WANTED(path))
                    add_row(s, in, i, path, delta, out, r, work);
            }
        } else {
            for (int i = 0; i < s->n_periods; i++) {
                snprintf(path, sizeof path, "self_hosted.tariff.periods[%d].%s", i, in->path);
                if (WANTED(path))
                    add_row(s, in, i, path, delta, out, r, work);
            }
        }
#undef WANTED
    }
    qsort(out->rows, (size_t)out->n_rows, sizeof out->rows[0], by_swing);
    return GP_OK;
}
