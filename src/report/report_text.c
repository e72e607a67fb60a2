/* Human and spreadsheet text reports: Markdown and the monthly cumulative CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/report.h"
#include "gpuplan/text.h"

void gp_format_money(double v, char *out, size_t cap) {
    if (!isfinite(v)) {
        snprintf(out, cap, "%g", v);
        return;
    }
    char digits[64];
    double a = fabs(v);
    snprintf(digits, sizeof digits, "%.2f", a);
    char *dot = strchr(digits, '.');
    size_t int_len = dot ? (size_t)(dot - digits) : strlen(digits);
    char tmp[96];
    size_t n = 0;
    /* "-0.00" reads as a sign error: only print the minus for a non-zero rounded value. */
    if (v < 0 && strcmp(digits, "0.00") != 0)
        tmp[n++] = '-';
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            tmp[n++] = ',';
        tmp[n++] = digits[i];
    }
    snprintf(tmp + n, sizeof tmp - n, "%s", dot ? dot : "");
    snprintf(out, cap, "%s", tmp);
}

gp_status gp_csv_field(gp_buf *out, const char *text) {
    /* Strip first, then test: a leading control character or newline must not hide a formula
     * from the test, and spreadsheets skip leading spaces before = + - @. */
    char stripped[2 * GP_NAME_BYTES];
    gp_text_clean(text, stripped, sizeof stripped);
    char clean[2 * sizeof stripped + 4];
    size_t n = 0;
    bool quote = false;
    const char *lead = stripped + strspn(stripped, " ");
    if (*lead == '=' || *lead == '+' || *lead == '-' || *lead == '@') {
        clean[n++] = '\'';
        quote = true;
    }
    for (const char *p = stripped; *p; p++) {
        if (*p == '"') {
            clean[n++] = '"';
            quote = true;
        }
        if (*p == ',')
            quote = true;
        clean[n++] = *p;
    }
    clean[n] = '\0';
    if (quote)
        return gp_buf_printf(out, "\"%s\"", clean);
    return gp_buf_add(out, clean, n);
}

gp_status gp_report_csv(const gp_scenario *s, const gp_result *r, gp_buf *out, gp_err *err) {
    gp_status st = gp_buf_add(out, "month,self_hosted", 17);
    for (int i = 0; st == GP_OK && i < r->n_options; i++) {
        st = gp_buf_add(out, ",", 1);
        if (st == GP_OK)
            st = gp_csv_field(out, s->options[i].name);
    }
    if (st == GP_OK)
        st = gp_buf_add(out, "\n", 1);
    double cum_self = 0.0, cum[GP_MAX_OPTIONS] = {0};
    for (int m = 0; st == GP_OK && m <= r->horizon_months; m++) {
        cum_self += r->self.monthly[m];
        st = gp_buf_printf(out, "%d,%.17g", m, cum_self);
        for (int i = 0; st == GP_OK && i < r->n_options; i++) {
            cum[i] += r->options[i].monthly[m];
            st = gp_buf_printf(out, ",%.17g", cum[i]);
        }
        if (st == GP_OK)
            st = gp_buf_add(out, "\n", 1);
    }
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "CSV is larger than the output limit");
    return GP_OK;
}

/* Markdown table cells must not break the table: drop controls and escape pipes. */
static gp_status md_text(gp_buf *out, const char *text) {
    gp_status st = GP_OK;
    for (const unsigned char *p = (const unsigned char *)text; *p && st == GP_OK; p++) {
        if (*p < 0x20 || *p == 0x7f)
            continue;
        if (*p == '|')
            st = gp_buf_add(out, "\\|", 2);
        else
            st = gp_buf_add(out, p, 1);
    }
    return st;
}

typedef struct md {
    gp_buf *out;
    gp_status st;
} md;

static void put(md *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(md *w, const char *fmt, ...) {
    if (w->st != GP_OK)
        return;
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof small) {
        w->st = GP_E_LIMIT;
        return;
    }
    w->st = gp_buf_add(w->out, small, (size_t)n);
}

static void text(md *w, const char *t) {
    if (w->st == GP_OK)
        w->st = md_text(w->out, t);
}

static void money(md *w, double v) {
    char m[64];
    gp_format_money(v, m, sizeof m);
    put(w, "%s", m);
}

static void month_or_never(md *w, bool has, int m) {
    if (has)
        put(w, "%d", m);
    else
        put(w, "never");
}

static void assumptions(md *w, const gp_scenario *s) {
    put(w, "## Assumptions\n\n| input | value |\n|---|---|\n");
    put(w, "| horizon | %d months |\n", s->horizon_months);
    put(w, "| demand | %d GPUs, %.4g%% busy (%.0f h a year per GPU) |\n", s->gpus,
        s->utilization * 100.0, s->utilization * 8760.0);
    put(w, "| discount rate (NPV) | %.4g%% a year |\n", s->discount_rate * 100.0);
    put(w, "| server | %d GPUs, ", s->gpus_per_server);
    money(w, s->server_price);
    put(w, " %s", s->currency);
    if (s->price_factor != 1.0)
        put(w, " x %.4g (price factor)", s->price_factor);
    put(w, " |\n");
    if (s->n_tiers) {
        put(w, "| bulk discounts |");
        for (int i = 0; i < s->n_tiers; i++)
            put(w, "%s %d+ servers: %.4g%%", i ? "," : "", s->tiers[i].min_servers,
                s->tiers[i].pct * 100.0);
        put(w, " |\n");
    }
    if (s->network_per_server > 0 || s->fixed_capex > 0) {
        put(w, "| network per server / fixed capex | ");
        money(w, s->network_per_server);
        put(w, " / ");
        money(w, s->fixed_capex);
        put(w, " |\n");
    }
    put(w, "| power | base %g W/server, GPU idle %g W, busy %g W", s->server_base_w, s->gpu_idle_w,
        s->gpu_tdp_w);
    if (s->has_gpu_avg_w)
        put(w, ", measured mean %g W (replaces idle/busy for energy)", s->gpu_avg_w);
    put(w, ", PUE %g |\n", s->pue);
    put(w, "| tariff |");
    for (int i = 0; i < s->n_periods; i++) {
        put(w, "%s ", i ? "," : "");
        text(w, s->periods[i].name);
        put(w, " %g h at %g/kWh", s->periods[i].hours_per_day, s->periods[i].price_per_kwh);
    }
    if (s->shift_to_cheapest)
        put(w, s->has_gpu_avg_w ? "; shifting asked for, but a flat measured draw leaves "
                                  "nothing to shift"
                                : "; busy hours shifted to the cheapest periods");
    put(w, " |\n");
    if (s->demand_charge_per_kw_month > 0)
        put(w, "| demand charge | %g per kW-month |\n", s->demand_charge_per_kw_month);
    if (s->colo_per_kw_month > 0)
        put(w, "| colocation | %g per kW-month |\n", s->colo_per_kw_month);
    if (s->maintenance_pct_per_year > 0)
        put(w, "| maintenance | %.4g%% of hardware a year after %d months of warranty |\n",
            s->maintenance_pct_per_year * 100.0, s->warranty_months);
    if (s->staff_per_month > 0 || s->other_per_month > 0) {
        put(w, "| staff / other per month | ");
        money(w, s->staff_per_month);
        put(w, " / ");
        money(w, s->other_per_month);
        put(w, " |\n");
    }
    if (s->residual_pct > 0)
        put(w, "| residual value | %.4g%% of hardware at the end |\n", s->residual_pct * 100.0);
    if (s->financing == GP_LOAN)
        put(w, "| financing | loan of %.4g%% of capex at %.4g%% APR over %d months |\n",
            s->loan_fraction * 100.0, s->loan_apr * 100.0, s->loan_term_months);
    else
        put(w, "| financing | cash |\n");
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        put(w, "| ");
        text(w, o->name);
        put(w, " | %s, %d GPUs an instance, ", gp_pricing_name(o->pricing), o->gpus_per_instance);
        put(w, "%.10g an instance-hour", o->hourly);
        if (o->pricing == GP_COMMITTED) {
            put(w, ", %d-month term", o->term_months);
            if (o->upfront > 0) {
                put(w, ", ");
                money(w, o->upfront);
                put(w, " upfront each");
            }
        }
        if (o->idle_overhead > 0)
            put(w, ", idle overhead %.4g%%", o->idle_overhead * 100.0);
        if (o->pricing == GP_SPOT && o->interruptions_per_hour > 0)
            put(w, ", %g interruptions/h, checkpoint every %g h, restart %g h",
                o->interruptions_per_hour, o->checkpoint_interval_h, o->restart_h);
        if (o->has_catalog) {
            put(w, ", catalog ");
            text(w, o->catalog);
        }
        put(w, " |\n");
    }
    put(w, "\n");
}

gp_status gp_report_md(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_buf *out, gp_err *err) {
    md w = {out, GP_OK};
    int m = r->horizon_months;
    put(&w, "# ");
    text(&w, s->name);
    put(&w, "\n\n");
    const char *winner = r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name;
    double best = r->cheapest < 0 ? r->self.total : r->options[r->cheapest].total;
    put(&w, "**Cheapest over %d months: ", m);
    text(&w, winner);
    put(&w, "**, ");
    money(&w, best);
    put(&w, " %s in total.", s->currency);
    if (meta && meta->as_of)
        put(&w, " Prices as of %s.", meta->as_of);
    put(&w, "\n\n");
    assumptions(&w, s);

    put(&w, "## Totals (%s)\n\n", s->currency);
    put(&w, "| option | pricing | total | NPV | per GPU-hour | break-even month | payback month "
            "| break-even utilization | break-even hourly |\n");
    put(&w, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    put(&w, "| self-hosted (%d servers) | owned | ", r->self.servers);
    money(&w, r->self.total);
    put(&w, " | ");
    money(&w, r->self.npv);
    put(&w, " | ");
    if (r->self.has_cost_per_gpu_hour)
        put(&w, "%.4f", r->self.cost_per_gpu_hour);
    else
        put(&w, "n/a");
    put(&w, " | | | | |\n");
    for (int i = 0; i < r->n_options; i++) {
        const gp_option_result *o = &r->options[i];
        put(&w, "| ");
        text(&w, s->options[i].name);
        put(&w, " | %s | ", gp_pricing_name(s->options[i].pricing));
        money(&w, o->total);
        put(&w, " | ");
        money(&w, o->npv);
        put(&w, " | ");
        if (o->has_cost_per_gpu_hour)
            put(&w, "%.4f", o->cost_per_gpu_hour);
        else
            put(&w, "n/a");
        put(&w, " | ");
        month_or_never(&w, o->has_break_even_month, o->break_even_month);
        put(&w, " | ");
        month_or_never(&w, o->has_payback_month, o->payback_month);
        put(&w, " | ");
        if (o->has_break_even_utilization)
            put(&w, "%.2f%% (%.0f h/yr)", o->break_even_utilization * 100.0,
                o->break_even_utilization * 8760.0);
        else
            put(&w, "none");
        put(&w, " | ");
        if (o->has_break_even_hourly)
            put(&w, "%.4f", o->break_even_hourly);
        else
            put(&w, "none");
        put(&w, " |\n");
    }
    put(&w, "\nBreak-even month: the first month-end at which owning has cost no more than "
            "renting so far; payback: from then on for good. Break-even utilization: the busy "
            "share at which both totals are equal.\n\n");

    const gp_breakdown *b = &r->self.breakdown;
    put(&w, "## Self-hosted breakdown (%s)\n\n| category | total |\n|---|---:|\n", s->currency);
    const char *names[] = {"capex", "power", "colocation", "demand charge", "maintenance",
                           "staff", "other", "interest",   "residual"};
    double vals[] = {b->capex, b->power, b->colo,     b->demand_charge, b->maintenance,
                     b->staff, b->other, b->interest, b->residual};
    for (int i = 0; i < 9; i++) {
        put(&w, "| %s | ", names[i]);
        money(&w, vals[i]);
        put(&w, " |\n");
    }
    put(&w, "\nEnergy %.0f kWh over the horizon (%.0f kg CO2); depreciation ", r->self.energy_kwh,
        r->self.co2_kg);
    money(&w, r->self.depreciation_per_year);
    put(&w, " a year (informational).\n\n");

    put(&w, "## Cumulative cost by quarter (%s)\n\n| month | self-hosted", s->currency);
    for (int i = 0; i < r->n_options; i++) {
        put(&w, " | ");
        text(&w, s->options[i].name);
    }
    put(&w, " |\n|---:|---:");
    for (int i = 0; i < r->n_options; i++)
        put(&w, "|---:");
    put(&w, "|\n");
    double cs = 0.0, co[GP_MAX_OPTIONS] = {0};
    for (int j = 0; j <= m; j++) {
        cs += r->self.monthly[j];
        for (int i = 0; i < r->n_options; i++)
            co[i] += r->options[i].monthly[j];
        if (j % 3 != 0 && j != m)
            continue;
        put(&w, "| %d | ", j);
        money(&w, cs);
        for (int i = 0; i < r->n_options; i++) {
            put(&w, " | ");
            money(&w, co[i]);
        }
        put(&w, " |\n");
    }
    if (meta && meta->n_sources > 0) {
        put(&w, "\n## Catalog prices used\n\n| option | catalog entry | hourly | effective from "
                "| source |\n|---|---|---:|---|---|\n");
        for (int i = 0; i < meta->n_sources; i++) {
            const gp_price_source *ps = &meta->sources[i];
            put(&w, "| ");
            text(&w, ps->option);
            put(&w, " | ");
            text(&w, ps->catalog);
            put(&w, " | %.6g | %s | ", ps->hourly, ps->effective_from);
            text(&w, ps->source);
            put(&w, " |\n");
        }
    }
    put(&w, "\n_gpuplan %s, cost model version %d._\n", meta && meta->version ? meta->version : "",
        GP_MODEL_VERSION);
    if (w.st != GP_OK)
        return gp_errorf(err, w.st, NULL, "report is larger than the output limit");
    return GP_OK;
}
