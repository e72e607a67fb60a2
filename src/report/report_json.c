/* The report JSON of docs/model.md (version 2). Optional figures (has_x false) become null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/parse.h"
#include "gpuplan/report.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"

static void add_opt_num(cJSON *o, const char *key, bool has, double v) {
    if (has)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *series(const double *v, int m) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i <= m; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *int_list(const int *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *num_list(const double *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *demand_json(const gp_scenario *s, const gp_result *r) {
    int m = r->horizon_months;
    cJSON *o = cJSON_CreateObject();
    if (r->work_mode)
        cJSON_AddNullToObject(o, "gpus");
    else
        cJSON_AddItemToObject(o, "gpus", int_list(r->demand_gpus, m));
    cJSON_AddItemToObject(o, "utilization", num_list(r->demand_utilization, m));
    cJSON_AddItemToObject(o, "work", num_list(r->demand_work_month, m));
    if (r->work_mode)
        cJSON_AddStringToObject(o, "work_unit", s->work_unit);
    else
        cJSON_AddNullToObject(o, "work_unit");
    return o;
}

static cJSON *batches_json(const gp_self_result *r) {
    cJSON *purchases = cJSON_CreateArray();
    for (int i = 0; i < r->n_batches; i++) {
        const gp_batch *b = &r->batches[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", b->index);
        cJSON_AddNumberToObject(o, "servers", b->servers);
        cJSON_AddNumberToObject(o, "hardware_capex", b->hardware_capex);
        cJSON_AddBoolToObject(o, "refresh", b->refresh);
        cJSON_AddItemToArray(purchases, o);
    }
    return purchases;
}

static cJSON *sales_json(const gp_self_result *r, int m) {
    cJSON *sales = cJSON_CreateArray();
    for (int i = 0; i < r->n_batches; i++) {
        const gp_batch *b = &r->batches[r->sale_order[i]];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", b->exit);
        cJSON_AddNumberToObject(o, "servers", b->servers);
        cJSON_AddNumberToObject(o, "age_months", b->exit - b->index);
        cJSON_AddNumberToObject(o, "value", b->value);
        cJSON_AddBoolToObject(o, "end", b->exit == m);
        cJSON_AddItemToArray(sales, o);
    }
    return sales;
}

static cJSON *self_json(const gp_scenario *s, const gp_self_result *r, int m) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "servers", r->servers);
    cJSON_AddNumberToObject(o, "hardware_capex", r->hardware_capex);
    cJSON_AddNumberToObject(o, "capex", r->capex);
    cJSON_AddNumberToObject(o, "total", r->total);
    cJSON_AddNumberToObject(o, "npv", r->npv);
    add_opt_num(o, "cost_per_gpu_hour", r->has_cost_per_gpu_hour, r->cost_per_gpu_hour);
    add_opt_num(o, "cost_per_work_unit", r->has_cost_per_work_unit, r->cost_per_work_unit);
    cJSON_AddNumberToObject(o, "energy_kwh", r->energy_kwh);
    cJSON_AddNumberToObject(o, "co2_kg", r->co2_kg);
    cJSON_AddNumberToObject(o, "depreciation_per_year", r->depreciation_per_year);
    /* 2.1: the exit value credited at M (a book value, within total) and how it was valued. */
    cJSON_AddNumberToObject(o, "exit_value", r->exit_value);
    cJSON_AddStringToObject(o, "exit_value_basis", gp_exit_basis_key(gp_exit_basis_of(s)));
    cJSON_AddNumberToObject(o, "bulk_discount_pct", r->bulk_pct);
    cJSON_AddNumberToObject(o, "power_per_month", r->power_per_month);
    cJSON_AddNumberToObject(o, "peak_it_kw", r->peak_it_kw);
    cJSON *b = cJSON_AddObjectToObject(o, "breakdown");
    const gp_breakdown *d = &r->breakdown;
    cJSON_AddNumberToObject(b, "capex", d->capex);
    cJSON_AddNumberToObject(b, "power", d->power);
    cJSON_AddNumberToObject(b, "colo", d->colo);
    cJSON_AddNumberToObject(b, "demand_charge", d->demand_charge);
    cJSON_AddNumberToObject(b, "maintenance", d->maintenance);
    cJSON_AddNumberToObject(b, "staff", d->staff);
    cJSON_AddNumberToObject(b, "other", d->other);
    cJSON_AddNumberToObject(b, "interest", d->interest);
    cJSON_AddNumberToObject(b, "residual", d->residual);
    cJSON_AddNumberToObject(b, "bridge", d->bridge);
    cJSON_AddItemToObject(o, "monthly", series(r->monthly, m));
    cJSON_AddItemToObject(o, "servers_in_service", int_list(r->servers_in_service, m));
    cJSON_AddItemToObject(o, "purchases", batches_json(r));
    cJSON_AddItemToObject(o, "sales", sales_json(r, m));
    return o;
}

static cJSON *option_json(const gp_option *opt, const gp_option_result *r, int m) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", opt->name);
    cJSON_AddStringToObject(o, "pricing", gp_pricing_name(opt->pricing));
    cJSON_AddNumberToObject(o, "total", r->total);
    cJSON_AddNumberToObject(o, "npv", r->npv);
    add_opt_num(o, "cost_per_gpu_hour", r->has_cost_per_gpu_hour, r->cost_per_gpu_hour);
    add_opt_num(o, "cost_per_work_unit", r->has_cost_per_work_unit, r->cost_per_work_unit);
    add_opt_num(o, "break_even_month", r->has_break_even_month, r->break_even_month);
    add_opt_num(o, "payback_month", r->has_payback_month, r->payback_month);
    add_opt_num(o, "break_even_month_without_exit", r->has_break_even_month_without_exit,
                r->break_even_month_without_exit);
    add_opt_num(o, "payback_month_without_exit", r->has_payback_month_without_exit,
                r->payback_month_without_exit);
    add_opt_num(o, "break_even_utilization", r->has_break_even_utilization,
                r->break_even_utilization);
    add_opt_num(o, "break_even_hours_per_year", r->has_break_even_utilization,
                r->break_even_utilization * 8760.0);
    add_opt_num(o, "break_even_hourly", r->has_break_even_hourly, r->break_even_hourly);
    cJSON_AddNumberToObject(o, "burst", r->burst);
    cJSON_AddNumberToObject(o, "instances", r->instances);
    cJSON_AddNumberToObject(o, "instance_hours_per_month", r->instance_hours_per_month);
    cJSON_AddItemToObject(o, "monthly", series(r->monthly, m));
    return o;
}

cJSON *gp_report_json_tree(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta) {
    int m = r->horizon_months;
    cJSON *doc = cJSON_CreateObject();
    if (!doc)
        return NULL;
    cJSON_AddNumberToObject(doc, "model_version", GP_MODEL_VERSION);
    cJSON_AddStringToObject(doc, "scenario", s->name);
    cJSON_AddStringToObject(doc, "currency", s->currency);
    cJSON_AddNumberToObject(doc, "horizon_months", m);
    const char *as_of = meta && meta->as_of ? meta->as_of : "";
    cJSON_AddStringToObject(doc, "as_of", as_of);
    cJSON_AddStringToObject(doc, "start_date", s->has_start_date ? s->start_date : as_of);
    add_opt_num(doc, "demand_gpu_hours", !r->work_mode, r->demand_gpu_hours);
    cJSON_AddNumberToObject(doc, "demand_work", r->demand_work);
    cJSON_AddItemToObject(doc, "demand", demand_json(s, r));
    cJSON_AddItemToObject(doc, "self_hosted", self_json(s, &r->self, m));
    cJSON *opts = cJSON_AddArrayToObject(doc, "options");
    for (int i = 0; i < r->n_options; i++)
        cJSON_AddItemToArray(opts, option_json(&s->options[i], &r->options[i], m));
    cJSON_AddStringToObject(doc, "cheapest",
                            r->cheapest < 0 ? "self_hosted" : s->options[r->cheapest].name);
    /* Equal totals (the model's Ties) are a tie: `cheapest` names the first in order, and
     * `tied_with_cheapest` every other side at the same total ([] when it wins outright). */
    cJSON *tied = cJSON_AddArrayToObject(doc, "tied_with_cheapest");
    int t[GP_MAX_OPTIONS + 1], nt = gp_report_tied(r, r->cheapest, t, GP_MAX_OPTIONS + 1);
    for (int i = 0; i < nt; i++)
        cJSON_AddItemToArray(tied,
                             cJSON_CreateString(t[i] < 0 ? "self_hosted" : s->options[t[i]].name));
    /* Spot can be reclaimed: the cheapest side with guaranteed capacity beside the cheapest. */
    cJSON_AddBoolToObject(doc, "cheapest_rests_on_spot",
                          gp_report_rests_on_spot(s, r, r->cheapest));
    int g;
    /* `guaranteed_tied_with`: the other guaranteed sides at its total ([] when none). */
    cJSON *gtied = cJSON_CreateArray();
    if (gp_report_guaranteed(s, r, &g)) {
        cJSON_AddStringToObject(doc, "cheapest_guaranteed",
                                g < 0 ? "self_hosted" : s->options[g].name);
        nt = gp_report_guaranteed_tied(s, r, g, t, GP_MAX_OPTIONS + 1);
        for (int i = 0; i < nt; i++)
            cJSON_AddItemToArray(
                gtied, cJSON_CreateString(t[i] < 0 ? "self_hosted" : s->options[t[i]].name));
    } else {
        cJSON_AddNullToObject(doc, "cheapest_guaranteed");
    }
    cJSON_AddItemToObject(doc, "guaranteed_tied_with", gtied);
    if (gp_report_guaranteed_without_exit(s, r, &g)) /* self-hosted less its exit value */
        cJSON_AddStringToObject(doc, "cheapest_guaranteed_without_exit",
                                g < 0 ? "self_hosted" : s->options[g].name);
    else
        cJSON_AddNullToObject(doc, "cheapest_guaranteed_without_exit");
    cJSON *src = cJSON_AddArrayToObject(doc, "sources");
    for (int i = 0; meta && i < meta->n_sources; i++) {
        const gp_price_source *ps = &meta->sources[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "option", ps->option);
        cJSON_AddStringToObject(o, "catalog", ps->catalog);
        cJSON_AddStringToObject(o, "pricing", gp_pricing_name(ps->pricing));
        cJSON_AddNumberToObject(o, "hourly", ps->hourly);
        if (ps->pricing == GP_COMMITTED) {
            cJSON_AddNumberToObject(o, "upfront", ps->upfront);
            cJSON_AddBoolToObject(o, "split_derived", ps->split_derived);
        }
        if (ps->interruption_band[0])
            cJSON_AddStringToObject(o, "interruption_band", ps->interruption_band);
        cJSON_AddStringToObject(o, "effective_from", ps->effective_from);
        cJSON_AddStringToObject(o, "source", ps->source);
        if (ps->fx_rate > 0) {
            cJSON_AddStringToObject(o, "currency", ps->currency);
            cJSON_AddNumberToObject(o, "listed_hourly", ps->listed_hourly);
            cJSON_AddNumberToObject(o, "fx_rate", ps->fx_rate);
            cJSON_AddStringToObject(o, "fx_date", ps->fx_date);
            cJSON_AddStringToObject(o, "fx_source", ps->fx_source);
            /* the rate's age on as_of, and whether it passes GP_FX_STALE_DAYS */
            long age = gp_fx_rate_age_days(ps, as_of);
            add_opt_num(o, "fx_age_days", age >= 0, (double)age);
            cJSON_AddBoolToObject(o, "fx_stale", age > GP_FX_STALE_DAYS);
        }
        cJSON_AddItemToArray(src, o);
    }
    if (meta && meta->scenario_json)
        cJSON_AddItemToObject(doc, "scenario_json", cJSON_Duplicate(meta->scenario_json, 1));
    else
        cJSON_AddNullToObject(doc, "scenario_json");
    return doc;
}

long gp_fx_rate_age_days(const gp_price_source *ps, const char *as_of) {
    long a, r;
    if (ps->fx_rate <= 0 || !gp_date_days(as_of, &a) || !gp_date_days(ps->fx_date, &r))
        return -1;
    return a - r;
}

gp_status gp_report_check(const gp_result *r, gp_err *err) {
    if (r->error.code == GP_OK)
        return GP_OK;
    if (err)
        *err = r->error;
    return r->error.code;
}

gp_status gp_report_json(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         gp_buf *out, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    cJSON *doc = gp_report_json_tree(s, r, meta);
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return gp_errorf(err, GP_E_NOMEM, NULL, "cannot render the report JSON");
    gp_status st = gp_buf_add(out, text, strlen(text));
    if (st == GP_OK)
        st = gp_buf_add(out, "\n", 1);
    free(text);
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "report is larger than the output limit");
    return GP_OK;
}
