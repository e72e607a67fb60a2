/* "What decides this" and the inputs left unset (report_opening.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/text.h"

static void addf(gp_opening *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(gp_opening *o, const char *fmt, ...) {
    if (o->n >= GP_OPENING_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *line = o->line[o->n++];
    vsnprintf(line, GP_OPENING_BYTES, fmt, ap);
    va_end(ap);
    line[gp_text_utf8_cut(line, strlen(line))] = '\0';
}

/* A name cut to 200 bytes at a character boundary, so a line keeps room for its numbers. */
static const char *short_name(const char *name, char out[204]) {
    size_t n = gp_text_utf8_cut(name, strnlen(name, 200));
    memcpy(out, name, n);
    out[n] = '\0';
    return out;
}

static const cJSON *member(const cJSON *o, const char *key) {
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* In GPU mode: month 1's busy GPU-hours and what each option bills for them. */
static void billing_line(const gp_scenario *s, const gp_result *r, gp_opening *o) {
    char u[32], busy[48], n[48], extra[512] = "";
    gp_fmt_pct(r->demand_utilization[0], u, sizeof u);
    bool changes = s->growth_per_month != 0.0 || s->n_steps > 0;
    size_t used = 0;
    int shown = 0, with = 0;
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *op = &s->options[i];
        if (op->pricing == GP_COMMITTED || op->idle_overhead <= 0)
            continue;
        with++;
        if (shown == 2)
            continue;
        char b[48], pct[32], nm[204];
        gp_fmt_grouped(r->demand_work_month[0] * (1 + op->idle_overhead), 0, b, sizeof b);
        gp_fmt_pct(op->idle_overhead, pct, sizeof pct);
        used += (size_t)snprintf(extra + used, sizeof extra - used,
                                 "; \"%s\" bills %s with its %s %% idle overhead",
                                 short_name(op->name, nm), b, pct);
        shown++;
    }
    if (with > shown && used < sizeof extra)
        snprintf(extra + used, sizeof extra - used, "; %d more options with an idle overhead",
                 with - shown);
    if (s->work_mode) {
        char w[48];
        gp_fmt_sig_grouped(r->demand_work_month[0], 4, w, sizeof w);
        addf(o,
             "Rented GPUs are billed only for busy hours, utilization x (1 + idle overhead): the "
             "%s %s of month 1 take the busy GPU-hours of each option's throughput, times (1 + its "
             "idle overhead); owned servers are provisioned for %s %% busy and cost the same busy "
             "or idle%s.",
             w, s->work_unit, u, extra);
        return;
    }
    gp_fmt_grouped(r->demand_work_month[0], 0, busy, sizeof busy);
    gp_fmt_count(r->demand_gpus[0], "GPU", "GPUs", n, sizeof n);
    addf(o,
         "Rented GPUs are billed only for busy hours, utilization x (1 + idle overhead): %s at "
         "%s %% busy are %s busy GPU-hours in month 1%s, and a rented option pays for those%s%s; "
         "owned servers cost the same busy or idle.",
         n, u, busy, changes ? " (demand changes over the plan)" : "",
         with ? "" : " (no option has an idle overhead)", extra);
}

/* The utilization and where it comes from: given, or the "measured" record's window. */
static void utilization_line(const gp_scenario *s, const gp_report_meta *meta, gp_opening *o) {
    char u[32];
    gp_fmt_pct(s->utilization, u, sizeof u);
    const cJSON *m = meta ? member(meta->scenario_json, "measured") : NULL;
    const cJSON *mu = member(m, "utilization"), *since = member(m, "since"),
                *until = member(m, "until"), *gpus = member(m, "gpus"),
                *thr = member(m, "busy_threshold");
    if (!cJSON_IsNumber(mu)) {
        addf(o, "Utilization %s %%: given in the scenario, not measured.", u);
        return;
    }
    char window[160] = "", who[96] = "", mpct[32];
    if (cJSON_IsString(since) && cJSON_IsString(until))
        snprintf(window, sizeof window, " from %.40s to %.40s", since->valuestring,
                 until->valuestring);
    if (cJSON_IsNumber(gpus)) {
        char g[48];
        gp_fmt_count((long long)gpus->valuedouble, "GPU", "GPUs", g, sizeof g);
        char t[32] = "";
        if (cJSON_IsNumber(thr))
            gp_fmt_pct(thr->valuedouble, t, sizeof t);
        snprintf(who, sizeof who, " over %s%s%s%s", g, *t ? ", busy at " : "", t,
                 *t ? " % utilization or more" : "");
    }
    gp_fmt_pct(mu->valuedouble, mpct, sizeof mpct);
    if (fabs(mu->valuedouble - s->utilization) <= 1e-9)
        addf(o, "Utilization %s %%: measured by `scenario measure`%s%s.", u, window, who);
    else
        addf(o, "Utilization %s %%: given in the scenario; `scenario measure` measured %s %%%s%s.",
             u, mpct, window, who);
}

/* The electricity price and its source: the default flat tariff, or the periods by name. */
static void electricity_line(const gp_scenario *s, const gp_report_meta *meta, gp_opening *o) {
    char price[32], charge[96] = "";
    gp_fmt_sig(gp_tariff_mean_price(s), 4, price, sizeof price);
    if (s->demand_charge_per_kw_month > 0) {
        char c[32];
        gp_fmt_sig(s->demand_charge_per_kw_month, 4, c, sizeof c);
        snprintf(charge, sizeof charge, ", plus a demand charge of %s %s a kW-month", c,
                 s->currency);
    }
    const cJSON *sh = meta ? member(meta->scenario_json, "self_hosted") : NULL;
    if (meta && meta->scenario_json && !member(member(sh, "tariff"), "periods")) {
        addf(o, "Electricity %s %s a kWh: not given, so the model's default flat tariff%s.", price,
             s->currency, charge);
        return;
    }
    char names[640], nm[204];
    size_t used = 0;
    int shown = s->n_periods < 2 ? s->n_periods : 2;
    for (int k = 0; k < shown; k++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s\"%s\"", k ? ", " : "",
                                 short_name(s->periods[k].name, nm));
    if (s->n_periods > shown && used < sizeof names)
        snprintf(names + used, sizeof names - used, " and %d more", s->n_periods - shown);
    if (s->n_periods == 1)
        addf(o, "Electricity %s %s a kWh: the scenario's tariff %s%s.", price, s->currency, names,
             charge);
    else
        addf(o,
             "Electricity %s %s a kWh, the time-weighted mean of the scenario's %d tariff "
             "periods (%s)%s.",
             price, s->currency, s->n_periods, names, charge);
}

/* 2.1: where owning wins against option i only through the exit value (a book value, not
 * cash), "; only with the exit value: without its ... renting is cheaper ..." (the
 * *_without_exit months); "" when leaving it out changes nothing. */
static void exit_clause(const gp_scenario *s, const gp_result *r, int i, char *out, size_t cap) {
    const gp_option_result * or = &r->options[i];
    double v = r->self.exit_value, without = r->self.total + v;
    out[0] = '\0';
    if (v == 0.0 || or->total < r->self.total)
        return;
    bool total_flips = without > or->total && !gp_money_equal(without, or->total);
    bool be_moves =
        or->has_break_even_month != or->has_break_even_month_without_exit ||
        (or->has_break_even_month && or->break_even_month != or->break_even_month_without_exit);
    bool pb_moves = or->has_payback_month != or->has_payback_month_without_exit ||
                    (or->has_payback_month && or->payback_month != or->payback_month_without_exit);
    if (!total_flips && !be_moves && !pb_moves)
        return;
    char ev[48], d[48], be[64] = "never breaks even", pb[64] = "never pays back";
    gp_fmt_money(v, ev, sizeof ev);
    size_t n = (size_t)snprintf(out, cap,
                                "; only with the exit value: without its %s %s of book "
                                "value at month %d,",
                                ev, s->currency, s->horizon_months);
    if (total_flips && n < cap) {
        gp_fmt_money(without - or->total, d, sizeof d);
        n += (size_t)snprintf(out + n, cap - n, " renting is cheaper by %s %s and", d, s->currency);
    }
    if (or->has_break_even_month_without_exit)
        snprintf(be, sizeof be, "breaks even at month %d", or->break_even_month_without_exit);
    if (or->has_payback_month_without_exit)
        snprintf(pb, sizeof pb, "pays back at month %d", or->payback_month_without_exit);
    if (n < cap)
        snprintf(out + n, cap - n, " owning %s and %s", be, pb);
}

/* Where owning and one option cost the same, against the scenario's own figures. */
static void break_even_line(const gp_scenario *s, const gp_result *r, int i, gp_opening *o) {
    const gp_option *op = &s->options[i];
    const gp_option_result * or = &r->options[i];
    char util[160] = "", price[160] = "", diff[48], nm[204];
    if (or->has_break_even_utilization) {
        char b[32], now[32], h[32];
        gp_fmt_pct(or->break_even_utilization, b, sizeof b);
        gp_fmt_pct(s->utilization, now, sizeof now);
        gp_fmt_grouped(or->break_even_utilization * 8760.0, 0, h, sizeof h);
        snprintf(util, sizeof util,
                 "at %s %% utilization (%s h a year per GPU; the scenario: %s %%)", b, h, now);
    }
    if (or->has_break_even_hourly) {
        char b[32], now[32];
        gp_fmt_sig(or->break_even_hourly, 4, b, sizeof b);
        if (op->pricing == GP_PER_UNIT) { /* an API: its price a unit of work, inputs held */
            gp_fmt_sig(op->price_per_unit, 4, now, sizeof now);
            snprintf(price, sizeof price, "at %s a %s (the scenario: %s)", b,
                     s->work_unit[0] ? s->work_unit : "unit of work", now);
        } else {
            gp_fmt_sig(op->hourly, 4, now, sizeof now);
            snprintf(price, sizeof price, "at %s an instance-hour (the scenario: %s)", b, now);
        }
    }
    /* Equal totals (Ties) are no side's win: "as given, both cost X", never "cheaper by 0.00". */
    char given[160];
    if (gp_money_equal(or->total, r->self.total)) {
        char t[48];
        gp_fmt_money(r->self.total, t, sizeof t);
        snprintf(given, sizeof given, "both cost the same, %s %s (a tie)", t, s->currency);
    } else {
        gp_fmt_money(fabs(or->total - r->self.total), diff, sizeof diff);
        snprintf(given, sizeof given, "%s is cheaper by %s %s",
                 or->total > r->self.total ? "owning" : "renting", diff, s->currency);
    }
    if (!*util && !*price) {
        char exit[512];
        exit_clause(s, r, i, exit, sizeof exit);
        addf(o, "Against \"%s\": no break-even utilization or price; %s%s.",
             short_name(op->name, nm), given, exit);
        return;
    }
    char exit[512];
    exit_clause(s, r, i, exit, sizeof exit);
    addf(o, "Against \"%s\": owning and renting cost the same %s%s%s; as given, %s%s.",
         short_name(op->name, nm), util, *util && *price ? " and " : "", price, given, exit);
}

void gp_report_opening(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_opening *out) {
    memset(out, 0, sizeof *out);
    billing_line(s, r, out);
    utilization_line(s, meta, out);
    electricity_line(s, meta, out);
    char spot[GP_OPENING_BYTES];
    if (gp_report_spot_line(s, meta, spot, sizeof spot))
        addf(out, "%s", spot);
    int room = GP_OPENING_LINES - out->n - 1, shown = 0;
    for (int i = 0; i < s->n_options && shown < room; i++, shown++)
        break_even_line(s, r, i, out);
    if (s->n_options > shown)
        addf(out, "%d more options: their break-even points are in the Totals.",
             s->n_options - shown);
}

/* 1 when the JSON gives key under path (NULL: the top level), 0 when it does not, -1 when
 * there is no JSON to tell. */
static int given(const gp_report_meta *meta, const char *a, const char *b, const char *key) {
    if (!meta || !meta->scenario_json)
        return -1;
    const cJSON *o = meta->scenario_json;
    if (a)
        o = member(o, a);
    if (b)
        o = member(o, b);
    return member(o, key) != NULL;
}

int gp_report_unset_inputs(const gp_scenario *s, const gp_report_meta *meta,
                           gp_unset_input out[GP_MAX_UNSET]) {
    int n = 0;
    for (int i = 0; i < GP_N_ZERO_COSTS; i++) {
        if (gp_zero_cost_value(s, i) != 0.0)
            continue;
        int g = given(meta, "self_hosted", NULL, gp_zero_costs[i].key);
        snprintf(out[n].label, sizeof out[n].label, "%s", gp_zero_costs[i].label);
        snprintf(out[n].text, sizeof out[n].text, "0 — %s (%s)",
                 g == 1 ? "given as 0" : "not given", gp_zero_costs[i].key);
        n++;
    }
    /* Beyond the running costs, the defaults docs/model.md fills in for keys left out. */
    static const struct {
        const char *label, *section, *key, *text;
    } defaults[] = {
        {"server base draw", "power", "server_base_w", "0 W — not given"},
        {"GPU idle draw", "power", "gpu_idle_w", "0 W — not given"},
        {"GPU busy draw", "power", "gpu_tdp_w", "0 W — not given"},
        {"PUE", "power", "pue", "1 — not given (the default)"},
        {"electricity", "tariff", "periods", "flat 0.12 a kWh — not given (the default)"},
        {"resale value", NULL, "residual_pct", "0 — not given"},
    };
    for (size_t k = 0; k < sizeof defaults / sizeof *defaults && n < GP_MAX_UNSET; k++) {
        int g;
        if (!strcmp(defaults[k].key, "residual_pct"))
            g = given(meta, "self_hosted", NULL, "residual_pct") == 1 ||
                        given(meta, "self_hosted", NULL, "resale") == 1
                    ? 1
                    : given(meta, "self_hosted", NULL, "residual_pct");
        else
            g = given(meta, "self_hosted", defaults[k].section, defaults[k].key);
        if (g != 0)
            continue; /* given, or no JSON to tell: the Assumptions rows show the value */
        snprintf(out[n].label, sizeof out[n].label, "%s", defaults[k].label);
        snprintf(out[n].text, sizeof out[n].text, "%s", defaults[k].text);
        /* 2.1: bought as needed or refreshed, hardware is valued on the straight line down to
         * residual_pct, so an unset residual_pct still credits a value until its end. */
        if (!strcmp(defaults[k].key, "residual_pct") && s->n_resale == 0 &&
            gp_exit_basis_of(s) == GP_EXIT_STRAIGHT_LINE) {
            char y[32];
            gp_fmt_sig(12.0 * s->depreciation_years, 4, y, sizeof y);
            snprintf(out[n].label, sizeof out[n].label, "residual value");
            snprintf(out[n].text, sizeof out[n].text,
                     "0 %% at %s months, the straight line's end — not given (residual_pct)", y);
        }
        n++;
    }
    return n;
}
