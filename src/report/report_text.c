/* Human and spreadsheet text reports: Markdown and the monthly cumulative CSV. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/inputs.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/text.h"

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

/* The date month j begins on, as "YYYY-MM": start_date (else as_of) plus j - 1 months. */
static void month_label(const gp_scenario *s, const gp_report_meta *meta, int j, char *out,
                        size_t cap) {
    const char *start = s->has_start_date ? s->start_date : meta && meta->as_of ? meta->as_of : "";
    int y, mo;
    if (sscanf(start, "%4d-%2d", &y, &mo) != 2) {
        snprintf(out, cap, "month %d", j);
        return;
    }
    int k = (y * 12 + mo - 1) + (j - 1);
    snprintf(out, cap, "%04d-%02d", k / 12, k % 12 + 1);
}

/* Servers bought and sold at index m (sales include the exit at M). */
static void traded_at(const gp_self_result *r, int m, int *bought, int *sold) {
    *bought = *sold = 0;
    for (int i = 0; i < r->n_batches; i++) {
        if (r->batches[i].index == m)
            *bought += r->batches[i].servers;
        if (r->batches[i].exit == m)
            *sold += r->batches[i].servers;
    }
}

/* The end of row m: the options breaking even here, "; "-joined into one field (names
 * clipped to fit); at M, the exit value within self-hosted's cumulative and its basis (2.1). */
static gp_status csv_row_end(gp_buf *out, const gp_scenario *s, const gp_result *r, int m) {
    gp_status st = GP_OK;
    char marks[GP_NAME_BYTES];
    size_t used = 0;
    marks[0] = '\0';
    for (int i = 0; i < r->n_options; i++) {
        const gp_option_result *o = &r->options[i];
        if (o->has_break_even_month && o->break_even_month == m && used + 3 < sizeof marks)
            used += (size_t)snprintf(marks + used, sizeof marks - used, "%s%s", used ? "; " : "",
                                     s->options[i].name);
    }
    if (st == GP_OK)
        st = gp_buf_add(out, ",", 1);
    if (st == GP_OK)
        st = gp_csv_field(out, marks);
    /* 2.1: the exit value within self-hosted's cumulative at M, and its basis. */
    if (st == GP_OK && m == r->horizon_months && r->self.exit_value != 0.0) {
        char v[40], basis[512];
        gp_exit_basis_text(s, basis, sizeof basis);
        st = gp_buf_printf(out, ",%s,", gp_fmt_cents(r->self.exit_value, v, sizeof v));
        if (st == GP_OK)
            st = gp_csv_field(out, basis);
    } else if (st == GP_OK) {
        st = gp_buf_add(out, ",,", 2);
    }
    if (st == GP_OK)
        st = gp_buf_add(out, "\n", 1);
    return st;
}

gp_status gp_report_csv(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                        gp_buf *out, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    gp_status st = gp_buf_printf(out, "index,month,gpus,work,utilization,servers_in_service,"
                                      "gpus_at_work,servers_bought,servers_sold,bridge_hours,"
                                      "self_hosted,self_hosted_cumulative");
    for (int i = 0; st == GP_OK && i < r->n_options; i++) {
        char col[GP_NAME_BYTES + 32];
        const char *suffix[] = {"", " cumulative", " burst_hours"};
        for (int k = 0; st == GP_OK && k < 3; k++) {
            snprintf(col, sizeof col, "%s%s", s->options[i].name, suffix[k]);
            st = gp_buf_add(out, ",", 1);
            if (st == GP_OK)
                st = gp_csv_field(out, col);
        }
    }
    if (st == GP_OK)
        st = gp_buf_printf(out, ",break_even,exit_value,exit_value_basis\n");
    double cum_self = 0.0, cum[GP_MAX_OPTIONS] = {0};
    for (int m = 0; st == GP_OK && m <= r->horizon_months; m++) {
        cum_self += r->self.monthly[m];
        int bought, sold;
        traded_at(&r->self, m, &bought, &sold);
        if (m == 0) {
            const char *start = s->has_start_date     ? s->start_date
                                : meta && meta->as_of ? meta->as_of
                                                      : "";
            char f[40], c[40];
            st = gp_buf_printf(out, "0,%s,,,,0,0,%d,%d,0,%s,%s", start, bought, sold,
                               gp_fmt_cents(r->self.monthly[0], f, sizeof f),
                               gp_fmt_cents(cum_self, c, sizeof c));
        } else {
            char label[32], gpus[16] = "";
            month_label(s, meta, m, label, sizeof label);
            if (!r->work_mode)
                snprintf(gpus, sizeof gpus, "%d", r->demand_gpus[m - 1]);
            char w[40], u[40], bh[40], f[40], c[40];
            st = gp_buf_printf(
                out, "%d,%s,%s,%s,%s,%d,%d,%d,%d,%s,%s,%s", m, label, gpus,
                gp_fmt_sig(r->demand_work_month[m - 1], 4, w, sizeof w),
                gp_fmt_sig(r->demand_utilization[m - 1], 4, u, sizeof u),
                r->self.servers_in_service[m - 1], r->self.gpus_at_work[m - 1], bought, sold,
                gp_fmt_fixed(r->self.bridge_hours[m - 1], 1, bh, sizeof bh),
                gp_fmt_cents(r->self.monthly[m], f, sizeof f), gp_fmt_cents(cum_self, c, sizeof c));
        }
        for (int i = 0; st == GP_OK && i < r->n_options; i++) {
            const gp_option_result *o = &r->options[i];
            cum[i] += o->monthly[m];
            char f[40], c[40], bh[40];
            st = gp_buf_printf(out, ",%s,%s,%s", gp_fmt_cents(o->monthly[m], f, sizeof f),
                               gp_fmt_cents(cum[i], c, sizeof c),
                               gp_fmt_fixed(m > 0 ? o->burst_hours[m - 1] : 0.0, 1, bh, sizeof bh));
        }
        if (st == GP_OK)
            st = csv_row_end(out, s, r, m);
    }
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "CSV is larger than the output limit");
    return GP_OK;
}

/* Markdown table cells must not break the table: controls dropped as gp_text_clean drops
 * them, pipes escaped. */
static gp_status md_text(gp_buf *out, const char *text) {
    gp_status st = GP_OK;
    size_t left = strlen(text);
    for (const char *p = text; left > 0 && st == GP_OK;) {
        size_t len;
        gp_text_class k = gp_text_next(p, left, &len);
        if (k == GP_TEXT_INVALID)
            st = gp_buf_add(out, "?", 1);
        else if (*p == '|')
            st = gp_buf_add(out, "\\|", 2);
        else if (k == GP_TEXT_PLAIN || k == GP_TEXT_BIDI)
            st = gp_buf_add(out, p, len);
        p += len;
        left -= len;
    }
    return st;
}

/* The most rows of the table of inputs (inputs.h) the Assumptions can mark as said. */
#define MD_MAX_INPUTS 128

typedef struct md {
    gp_buf *out;
    gp_status st;
    bool said[MD_MAX_INPUTS]; /* gp_inputs[i] said by the Assumptions' prose */
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
    gp_fmt_money(v, m, sizeof m);
    put(w, "%s", m);
}

/* v to 4 significant digits: rates, prices per hour, shares. */
static void sig(md *w, double v) {
    char b[64];
    put(w, "%s", gp_fmt_sig(v, 4, b, sizeof b));
}

static void count(md *w, long long n, const char *one, const char *many) {
    char b[96];
    put(w, "%s", gp_fmt_count(n, one, many, b, sizeof b));
}

static void month_or_never(md *w, bool has, int m) {
    if (has)
        put(w, "%d", m);
    else
        put(w, "never");
}

/* The opening: the assumptions that decide the answer, said with the scenario's numbers. */
static void what_decides(md *w, const gp_scenario *s, const gp_result *r,
                         const gp_report_meta *meta) {
    gp_opening *o = gp_xmalloc(sizeof *o);
    gp_report_opening(s, r, meta, o);
    put(w, "## What decides this\n\n");
    for (int i = 0; i < o->n; i++) {
        put(w, "- ");
        text(w, o->line[i]);
        put(w, "\n");
    }
    put(w, "\n");
    free(o);
}

/* The input of key (inputs.h) in s, marked as said: the prose takes each number it writes from
 * the table of inputs, and a row it never asks for gets a line of its own (leftovers). */
static void mark_said(md *w, const gp_input *in) {
    ptrdiff_t i = in - gp_inputs;
    if (i < MD_MAX_INPUTS)
        w->said[i] = true;
}

static double in_value(md *w, const gp_scenario *s, const char *key) {
    const gp_input *in = gp_input_find(key);
    mark_said(w, in);
    return in->value(s);
}

/* Rows the prose says only when they apply (a cap, a flat draw, a loan's terms, the warranty
 * when maintenance follows it) or elsewhere in the report (depreciation and CO2 under the
 * breakdown). */
static void said_elsewhere(md *w) {
    static const char *const keys[] = {
        "self_hosted.max_servers",           "self_hosted.power.gpu_avg_w",
        "self_hosted.financing.fraction",    "self_hosted.financing.apr",
        "self_hosted.financing.term_months", "self_hosted.depreciation_years",
        "self_hosted.grid_kg_co2_per_kwh",   "self_hosted.warranty_months",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        mark_said(w, gp_input_find(keys[i]));
}

/* Every number of the table of inputs the prose above did not say: a line each, as the editor
 * labels it, so a new input shows here with no more than its row. */
static void leftovers(md *w, const gp_scenario *s) {
    for (int i = 0; i < gp_n_inputs; i++) {
        const gp_input *in = &gp_inputs[i];
        if ((i < MD_MAX_INPUTS && w->said[i]) || !in->key || !in->value || !in->edit_label ||
            !gp_input_mode_fits(in->mode, s))
            continue;
        char v[40];
        put(w, "| %s | %s ", in->edit_label, gp_fmt_sig(in->value(s), 4, v, sizeof v));
        bool cur = !strncmp(in->edit_unit, "$cur", 4); /* "$cur/mo": the currency a month */
        if (cur)
            text(w, s->currency);
        text(w, in->edit_unit + (cur ? 4 : 0));
        put(w, " |\n");
    }
}

/* Assumptions: the horizon, demand, its growth and steps. */
static void assumptions_demand(md *w, const gp_scenario *s) {
    put(w, "| horizon | ");
    count(w, (int)in_value(w, s, "horizon_months"), "month", "months");
    put(w, " |\n");
    if (s->work_mode) {
        put(w, "| demand | ");
        sig(w, in_value(w, s, "demand.work_per_month"));
        put(w, " ");
        text(w, s->work_unit);
        put(w, " a month, provisioned for ");
        sig(w, in_value(w, s, "demand.utilization") * 100.0);
        put(w, "%% busy |\n");
    } else {
        put(w, "| demand | ");
        count(w, (int)in_value(w, s, "demand.gpus"), "GPU", "GPUs");
        put(w, ", ");
        sig(w, in_value(w, s, "demand.utilization") * 100.0);
        char h[32];
        put(w, "%% busy (%s h a year per GPU) |\n",
            gp_fmt_grouped(in_value(w, s, "demand.utilization") * 8760.0, 0, h, sizeof h));
    }
    if (in_value(w, s, "demand.growth_per_month") != 0.0)
        put(w, "| demand growth | %.4g%% a month, compound |\n",
            in_value(w, s, "demand.growth_per_month") * 100.0);
    for (int i = 0; i < s->n_steps; i++) {
        const gp_step *st = &s->steps[i];
        put(w, "| step from month %d |", st->month);
        if (st->has_gpus) {
            put(w, " ");
            count(w, st->gpus, "GPU", "GPUs");
        }
        if (st->has_work) {
            put(w, " ");
            sig(w, st->work_per_month);
            put(w, " a month");
        }
        if (st->has_utilization)
            put(w, "%s%.4g%% busy", st->has_gpus || st->has_work ? ", " : " ",
                st->utilization * 100.0);
        put(w, " |\n");
    }
}

/* Assumptions: the discount rate, the server, power, the tariff and the running costs. */
static void assumptions_self(md *w, const gp_scenario *s, const gp_report_meta *meta) {
    put(w, "| discount rate (NPV) | ");
    sig(w, in_value(w, s, "discount_rate") * 100.0);
    put(w, "%% a year%s |\n",
        meta && meta->scenario_json &&
                !cJSON_GetObjectItemCaseSensitive(meta->scenario_json, "discount_rate")
            ? " — not given"
            : "");
    put(w, "| server | ");
    count(w, (int)in_value(w, s, "self_hosted.gpus_per_server"), "GPU", "GPUs");
    put(w, ", ");
    money(w, in_value(w, s, "self_hosted.server_price"));
    put(w, " %s", s->currency);
    if (in_value(w, s, "self_hosted.price_factor") != 1.0)
        put(w, " x %.4g (price factor)", in_value(w, s, "self_hosted.price_factor"));
    put(w, " |\n");
    if (s->n_tiers) {
        put(w, "| bulk discounts |");
        for (int i = 0; i < s->n_tiers; i++)
            put(w, "%s %d+ servers: %.4g%%", i ? "," : "", s->tiers[i].min_servers,
                s->tiers[i].pct * 100.0);
        put(w, " |\n");
    }
    if (in_value(w, s, "self_hosted.network_per_server") > 0 ||
        in_value(w, s, "self_hosted.fixed_capex") > 0) {
        put(w, "| network per server / fixed capex | ");
        money(w, in_value(w, s, "self_hosted.network_per_server"));
        put(w, " / ");
        money(w, in_value(w, s, "self_hosted.fixed_capex"));
        put(w, " |\n");
    }
    char b1[40], b2[40], b3[40];
    put(w, "| power | base %s W/server, GPU idle %s W, busy %s W",
        gp_fmt_sig(in_value(w, s, "self_hosted.power.server_base_w"), 4, b1, sizeof b1),
        gp_fmt_sig(in_value(w, s, "self_hosted.power.gpu_idle_w"), 4, b2, sizeof b2),
        gp_fmt_sig(in_value(w, s, "self_hosted.power.gpu_tdp_w"), 4, b3, sizeof b3));
    if (s->has_gpu_avg_w)
        put(w, ", measured mean %s W (replaces idle/busy for energy)",
            gp_fmt_sig(in_value(w, s, "self_hosted.power.gpu_avg_w"), 4, b1, sizeof b1));
    put(w, ", PUE %s |\n", gp_fmt_sig(in_value(w, s, "self_hosted.power.pue"), 4, b1, sizeof b1));
    put(w, "| tariff |");
    for (int i = 0; i < s->n_periods; i++) {
        put(w, "%s ", i ? "," : "");
        text(w, s->periods[i].name);
        put(w, " ");
        sig(w, s->periods[i].hours_per_day);
        put(w, " h at ");
        sig(w, s->periods[i].price_per_kwh);
        put(w, "/kWh");
    }
    if (in_value(w, s, "self_hosted.tariff.shift_to_cheapest"))
        put(w, s->has_gpu_avg_w ? "; shifting asked for, but a flat measured draw leaves "
                                  "nothing to shift"
                                : "; busy hours shifted to the cheapest periods");
    put(w, " |\n");
    if (in_value(w, s, "self_hosted.tariff.demand_charge_per_kw_month") > 0)
        put(w, "| demand charge | %s per kW-month |\n",
            gp_fmt_sig(in_value(w, s, "self_hosted.tariff.demand_charge_per_kw_month"), 4, b1,
                       sizeof b1));
    if (in_value(w, s, "self_hosted.colo_per_kw_month") > 0)
        put(w, "| colocation | %s per kW-month |\n",
            gp_fmt_sig(in_value(w, s, "self_hosted.colo_per_kw_month"), 4, b1, sizeof b1));
    if (in_value(w, s, "self_hosted.maintenance_pct_per_year") > 0)
        put(w, "| maintenance | %.4g%% of hardware a year after %d months of warranty |\n",
            in_value(w, s, "self_hosted.maintenance_pct_per_year") * 100.0,
            (int)in_value(w, s, "self_hosted.warranty_months"));
    if (in_value(w, s, "self_hosted.staff_per_month") > 0 ||
        in_value(w, s, "self_hosted.other_per_month") > 0) {
        put(w, "| staff / other per month | ");
        money(w, in_value(w, s, "self_hosted.staff_per_month"));
        put(w, " / ");
        money(w, in_value(w, s, "self_hosted.other_per_month"));
        put(w, " |\n");
    }
}

/* Assumptions: buying, trends, throughput, the value at exit and financing. */
static void assumptions_buying(md *w, const gp_scenario *s) {
    put(w, "| buying | %s", in_value(w, s, "self_hosted.buy") ? "as needed" : "all at once");
    if ((int)in_value(w, s, "self_hosted.lead_time_months") > 0)
        put(w, ", %d-month lead time", (int)in_value(w, s, "self_hosted.lead_time_months"));
    if ((int)in_value(w, s, "self_hosted.order_every_months") > 1)
        put(w, ", orders every %d months", (int)in_value(w, s, "self_hosted.order_every_months"));
    if (s->has_max_servers)
        put(w, ", at most %d servers", (int)in_value(w, s, "self_hosted.max_servers"));
    if ((int)in_value(w, s, "self_hosted.refresh_months") > 0)
        put(w, ", refreshed after %d months", (int)in_value(w, s, "self_hosted.refresh_months"));
    if (s->bridge >= 0) {
        put(w, "; bridge: ");
        text(w, s->options[s->bridge].name);
    }
    put(w, " |\n");
    if (in_value(w, s, "self_hosted.server_price_trend_per_year") != 0.0 ||
        in_value(w, s, "self_hosted.tariff.price_trend_per_year") != 0.0)
        put(w, "| price trends | hardware %+.4g%% a year, electricity %+.4g%% a year |\n",
            in_value(w, s, "self_hosted.server_price_trend_per_year") * 100.0,
            in_value(w, s, "self_hosted.tariff.price_trend_per_year") * 100.0);
    if (s->work_mode) {
        put(w, "| owned throughput | ");
        sig(w, in_value(w, s, "self_hosted.work_per_gpu_hour"));
        put(w, " a busy GPU-hour |\n");
    }
    /* The basis the exit value and every sale are valued on (2.1: never "0" while the
     * derived straight line credits a value). */
    if (in_value(w, s, "self_hosted.residual_pct") > 0 ||
        gp_exit_basis_of(s) != GP_EXIT_RESIDUAL_PCT) {
        char basis[512];
        gp_exit_basis_text(s, basis, sizeof basis);
        put(w, "| value of hardware at a sale or the end | ");
        text(w, basis);
        put(w, " |\n");
    }
    if (in_value(w, s, "self_hosted.financing.kind"))
        put(w, "| financing | loan of %.4g%% of capex at %.4g%% APR over %d months |\n",
            in_value(w, s, "self_hosted.financing.fraction") * 100.0,
            in_value(w, s, "self_hosted.financing.apr") * 100.0,
            (int)in_value(w, s, "self_hosted.financing.term_months"));
    else
        put(w, "| financing | cash |\n");
}

/* Assumptions: one option's row. */
static void assumptions_option(md *w, const gp_scenario *s, const gp_option *o) {
    put(w, "| ");
    text(w, o->name);
    put(w, " | %s, ", gp_pricing_name(o->pricing));
    if (o->pricing == GP_PER_UNIT) {
        /* An API: the work itself is billed, no GPUs or instances. */
        sig(w, o->price_per_unit);
        put(w, " a ");
        text(w, s->work_unit[0] ? s->work_unit : "unit of work");
        if (o->input_units_per_unit > 0) {
            put(w, " plus ");
            sig(w, o->input_units_per_unit);
            put(w, " input units at ");
            sig(w, o->price_per_input_unit);
            put(w, " (");
            sig(w, o->hourly);
            put(w, " in all)");
        }
    } else {
        count(w, o->gpus_per_instance, "GPU", "GPUs");
        put(w, " an instance, ");
        sig(w, o->hourly);
        put(w, " an instance-hour");
    }
    if (o->pricing == GP_COMMITTED) {
        put(w, ", %d-month term", o->term_months);
        if (o->upfront > 0) {
            put(w, ", ");
            money(w, o->upfront);
            put(w, " upfront each");
        }
    }
    if (o->has_base_gpus) {
        put(w, ", base of ");
        count(w, o->base_gpus, "GPU", "GPUs");
        if (o->burst >= 0) {
            put(w, ", bursting to ");
            text(w, s->options[o->burst].name);
        }
    }
    if (o->price_trend_per_year != 0.0)
        put(w, ", price %+.4g%% a year", o->price_trend_per_year * 100.0);
    if (s->work_mode && o->pricing != GP_PER_UNIT) {
        put(w, ", ");
        sig(w, o->work_per_gpu_hour);
        put(w, " a busy GPU-hour");
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

static void assumptions(md *w, const gp_scenario *s, const gp_report_meta *meta) {
    put(w, "## Assumptions\n\n| input | value |\n|---|---|\n");
    assumptions_demand(w, s);
    assumptions_self(w, s, meta);
    assumptions_buying(w, s);
    for (int i = 0; i < s->n_options; i++)
        assumptions_option(w, s, &s->options[i]);
    said_elsewhere(w);
    leftovers(w, s);
    gp_unset_input unset[GP_MAX_UNSET];
    int nu = gp_report_unset_inputs(s, meta, unset);
    for (int i = 0; i < nu; i++)
        put(w, "| %s | %s |\n", unset[i].label, unset[i].text);
    put(w, "\n");
}

/* The plan month by month: one row per index, row 0 the start and row j the close of month j. */
/* The purchases and sales: a row a batch, delivered, served, its value and how it leaves. */
static void md_batches(md *w, const gp_scenario *s, const gp_result *r,
                       const gp_report_meta *meta) {
    int m = r->horizon_months;
    put(w,
        "### Purchases and sales (%s)\n\n| batch | delivered at m | serves from | servers | "
        "hardware capex | kind | leaves at m | age (months) | value | how |\n"
        "|---:|---:|---|---:|---:|---|---:|---:|---:|---|\n",
        s->currency);
    for (int i = 0; i < r->self.n_batches; i++) {
        const gp_batch *b = &r->self.batches[i];
        char label[32];
        month_label(s, meta, b->index + 1, label, sizeof label);
        put(w, "| %d | %d | %s | %d | ", i + 1, b->index, label, b->servers);
        money(w, b->hardware_capex);
        put(w, " | %s | %d | %d | ", b->refresh ? "refresh" : "new", b->exit, b->exit - b->index);
        money(w, b->value);
        put(w, " | %s |\n", b->exit == m ? "exit value at the end" : "sold at a refresh");
    }
    put(w, "\n");
}

/* The plan table's title, note and head row. */
static void plan_head(md *w, const gp_scenario *s, const gp_result *r) {
    put(w, "## The plan month by month (%s)\n\n", s->currency);
    put(w, "Flows are dated at the close of each month (row 0: the start); bought and sold are "
           "servers delivered or leaving at that date, sales at the end included.\n\n");
    /* An API (per_unit) rents units of work, not GPU-hours (2.1). */
    const char *unit = s->work_unit[0] ? s->work_unit : "units";
    bool api_bridge = s->bridge >= 0 && s->options[s->bridge].pricing == GP_PER_UNIT;
    put(w, "| m | month | demand | busy | servers in service | GPUs at work | bought | sold | "
           "bridge ");
    if (api_bridge)
        text(w, unit);
    else
        put(w, "GPU-h");
    put(w, " | self-hosted | cumulative");
    for (int i = 0; i < r->n_options; i++) {
        put(w, " | ");
        text(w, s->options[i].name);
        put(w, " | cumulative");
        if (s->options[i].has_base_gpus) {
            int b = s->options[i].burst;
            put(w, " | burst ");
            if (b >= 0 && s->options[b].pricing == GP_PER_UNIT)
                text(w, unit);
            else
                put(w, "GPU-h");
        }
    }
    put(w, " | break-even |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:");
    for (int i = 0; i < r->n_options; i++)
        put(w, s->options[i].has_base_gpus ? "|---:|---:|---:" : "|---:|---:");
    put(w, "|---|\n");
}

/* Row j's self-hosted cells up to its month's cost: the date, demand, servers and bridge. */
static void plan_row_self(md *w, const gp_scenario *s, const gp_result *r,
                          const gp_report_meta *meta, int j) {
    int bought, sold;
    traded_at(&r->self, j, &bought, &sold);
    if (j == 0) {
        put(w, "| 0 | %s | | | | | %d | %d | | ",
            s->has_start_date     ? s->start_date
            : meta && meta->as_of ? meta->as_of
                                  : "start",
            bought, sold);
        return;
    }
    char label[32], bh[40];
    month_label(s, meta, j, label, sizeof label);
    put(w, "| %d | %s | ", j, label);
    if (r->work_mode)
        sig(w, r->demand_work_month[j - 1]);
    else
        count(w, r->demand_gpus[j - 1], "GPU", "GPUs");
    put(w, " | ");
    sig(w, r->demand_utilization[j - 1] * 100.0);
    put(w, "%% | %d | %d | %d | %d | %s | ", r->self.servers_in_service[j - 1],
        r->self.gpus_at_work[j - 1], bought, sold,
        gp_fmt_fixed(r->self.bridge_hours[j - 1], 1, bh, sizeof bh));
}

/* Row j's options: each month's cost, the cumulative (co, carried row to row), the burst hours;
 * then the options breaking even here. */
static void plan_row_options(md *w, const gp_scenario *s, const gp_result *r, int j, double *co) {
    for (int i = 0; i < r->n_options; i++) {
        co[i] += r->options[i].monthly[j];
        put(w, " | ");
        money(w, r->options[i].monthly[j]);
        put(w, " | ");
        money(w, co[i]);
        if (s->options[i].has_base_gpus) {
            char bh[40];
            put(w, " | %s",
                gp_fmt_fixed(j > 0 ? r->options[i].burst_hours[j - 1] : 0.0, 1, bh, sizeof bh));
        }
    }
    put(w, " |");
    bool first = true;
    for (int i = 0; i < r->n_options; i++) {
        const gp_option_result *o = &r->options[i];
        if (!o->has_break_even_month || o->break_even_month != j)
            continue;
        put(w, first ? " **break-even: " : ", ");
        text(w, s->options[i].name);
        first = false;
    }
    put(w, first ? " |\n" : "** |\n");
}

static void plan_table(md *w, const gp_scenario *s, const gp_result *r,
                       const gp_report_meta *meta) {
    plan_head(w, s, r);
    double cs = 0.0, co[GP_MAX_OPTIONS] = {0};
    for (int j = 0; j <= r->horizon_months; j++) {
        cs += r->self.monthly[j];
        plan_row_self(w, s, r, meta, j);
        money(w, r->self.monthly[j]);
        put(w, " | ");
        money(w, cs);
        plan_row_options(w, s, r, j, co);
    }
    put(w, "\n");
    if (r->self.n_batches > 0)
        md_batches(w, s, r, meta);
}

/* A side's cost per GPU-hour cell, and in work mode its cost per unit of work cell beside it. */
static void per_hour_and_unit(md *w, const gp_scenario *s, const gp_result *r, int side) {
    double v;
    if (gp_result_cost_per_gpu_hour(s, r, side, &v))
        put(w, "%.4f", v);
    else
        put(w, "n/a");
    if (!r->work_mode)
        return;
    put(w, " | ");
    if (gp_result_cost_per_work_unit(r, side, &v))
        sig(w, v);
    else
        put(w, "n/a");
}

/* The title and the headline: the cheapest side, its total, the exit value it includes, the
 * prices' date and spot's caveat. */
static void md_headline(md *w, const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                        const char *exit_line) {
    int m = r->horizon_months;
    put(w, "# ");
    text(w, s->name);
    put(w, "\n\n");
    const char *winner = r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name;
    double best = r->cheapest < 0 ? r->self.total : r->options[r->cheapest].total;
    put(w, "**Cheapest over ");
    count(w, m, "month", "months");
    put(w, ": ");
    text(w, winner);
    put(w, "**, ");
    money(w, best);
    put(w, " %s in total.", s->currency);
    /* Equal totals (the model's Ties) are a tie: name every side that shares the lowest
     * total, since `cheapest` names only the first in order. */
    int t[GP_MAX_OPTIONS + 1], tied = gp_report_tied(r, r->cheapest, t, GP_MAX_OPTIONS + 1);
    for (int i = 0; i < tied; i++) {
        put(w, i ? ", " : " A tie: ");
        text(w, t[i] < 0 ? "self-hosted" : s->options[t[i]].name);
    }
    if (tied)
        put(w, " %s the same (equal totals; the first in order is named).",
            tied == 1 ? "costs" : "cost");
    if (r->cheapest < 0 && *exit_line) {
        put(w, " That includes an ");
        text(w, exit_line);
        put(w, ".");
    }
    /* --as-of dates catalog prices only; prices written into the scenario have no date. */
    if (meta && meta->as_of && meta->n_sources > 0)
        put(w, " Catalog prices as of %s.", meta->as_of);
    else if (meta && meta->as_of)
        put(w, " Prices as given in the scenario (no catalog price used).");
    char spot[GP_OPENING_BYTES];
    gp_report_spot_headline(s, r, spot, sizeof spot);
    if (*spot) {
        put(w, " ");
        text(w, spot);
    }
    put(w, "\n\n");
}

/* Totals: a row a side, the break-even months, utilization and hourly; the exit value's line. */
static void md_totals(md *w, const gp_scenario *s, const gp_result *r, const char *exit_line) {
    put(w, "## Totals (%s)\n\n", s->currency);
    /* Work mode: a busy GPU-hour's cost (of the side's own hours) beside a unit of work's. */
    put(w, "| option | pricing | total | NPV | per %sGPU-hour | ", r->work_mode ? "busy " : "");
    if (r->work_mode) {
        put(w, "per ");
        text(w, s->work_unit[0] ? s->work_unit : "work unit");
        put(w, " | ");
    }
    put(w, "break-even month | payback month | without exit values | break-even utilization "
           "| break-even hourly |\n");
    put(w, "|---|---|---:|---:|---:|%s---:|---:|---:|---:|---:|\n", r->work_mode ? "---:|" : "");
    put(w, "| self-hosted (");
    count(w, r->self.servers, "server", "servers");
    put(w, ") | owned | ");
    money(w, r->self.total);
    put(w, " | ");
    money(w, r->self.npv);
    put(w, " | ");
    per_hour_and_unit(w, s, r, -1);
    put(w, " | | | | | |\n");
    for (int i = 0; i < r->n_options; i++) {
        const gp_option_result *o = &r->options[i];
        put(w, "| ");
        text(w, s->options[i].name);
        put(w, " | %s | ", gp_pricing_name(s->options[i].pricing));
        money(w, o->total);
        put(w, " | ");
        money(w, o->npv);
        put(w, " | ");
        per_hour_and_unit(w, s, r, i);
        put(w, " | ");
        month_or_never(w, o->has_break_even_month, o->break_even_month);
        put(w, " | ");
        month_or_never(w, o->has_payback_month, o->payback_month);
        put(w, " | ");
        month_or_never(w, o->has_break_even_month_without_exit, o->break_even_month_without_exit);
        put(w, " / ");
        month_or_never(w, o->has_payback_month_without_exit, o->payback_month_without_exit);
        put(w, " | ");
        char h[32];
        if (o->has_break_even_utilization)
            put(w, "%.2f%% (%s h/yr)", o->break_even_utilization * 100.0,
                gp_fmt_grouped(o->break_even_utilization * 8760.0, 0, h, sizeof h));
        else
            put(w, "none");
        put(w, " | ");
        if (o->has_break_even_hourly)
            put(w, "%.4f", o->break_even_hourly);
        else
            put(w, "none");
        put(w, " |\n");
    }
    if (*exit_line) {
        put(w, "\nSelf-hosted's total includes an ");
        text(w, exit_line);
        put(w, ".\n");
    } else if (r->self.servers > 0) { /* said, so a missing resale value is not missed */
        put(w,
            "\nSelf-hosted's total includes no exit value: hardware still held at month %d is "
            "credited at 0.\n",
            r->horizon_months);
    }
    put(w, "\nBreak-even month: the first month-end at which owning has cost no more than "
           "renting so far (m = 0 is the start); payback: from then on for good. Without exit "
           "values: the same with the book value of hardware still held at the end left out. "
           "Break-even utilization: the busy share at which both totals are equal.\n\n");
}

/* Self-hosted's breakdown by category, its energy, CO2 and depreciation. */
static void md_breakdown(md *w, const gp_scenario *s, const gp_result *r) {
    const gp_breakdown *b = &r->self.breakdown;
    put(w, "## Self-hosted breakdown (%s)\n\n| category | total |\n|---|---:|\n", s->currency);
    const char *names[] = {"capex", "power", "colocation", "demand charge", "maintenance",
                           "staff", "other", "interest",   "residual",      "bridge"};
    double vals[] = {b->capex, b->power, b->colo,     b->demand_charge, b->maintenance,
                     b->staff, b->other, b->interest, b->residual,      b->bridge};
    for (int i = 0; i < 10; i++) {
        put(w, "| %s | ", names[i]);
        money(w, vals[i]);
        put(w, " |\n");
    }
    char kwh[64], co2[64];
    put(w, "\nEnergy %s kWh over the horizon ",
        gp_fmt_grouped(r->self.energy_kwh, 0, kwh, sizeof kwh));
    /* Without a grid intensity the CO2 is not known, not zero. */
    if (s->grid_kg_co2_per_kwh > 0)
        put(w, "(%s kg CO2); depreciation ", gp_fmt_grouped(r->self.co2_kg, 0, co2, sizeof co2));
    else
        put(w, "(CO2 not computed: no grid_kg_co2_per_kwh); depreciation ");
    money(w, r->self.depreciation_per_year);
    put(w, " a year (informational).\n\n");
}

/* The catalog prices used, with their dates, sources and exchange rates. */
static void md_sources(md *w, const gp_scenario *s, const gp_report_meta *meta) {
    put(w, "\n## Catalog prices used\n\n| option | catalog entry | hourly | upfront or spot "
           "band | "
           "effective from | source |\n|---|---|---:|---|---|---|\n");
    for (int i = 0; i < meta->n_sources; i++) {
        const gp_price_source *ps = &meta->sources[i];
        put(w, "| ");
        text(w, ps->option);
        put(w, " | ");
        text(w, ps->catalog);
        put(w, " | %.6g | ", ps->hourly);
        if (ps->pricing == GP_COMMITTED) {
            money(w, ps->upfront);
            put(w, " a term%s", ps->split_derived ? " (half and half of the effective rate)" : "");
        }
        if (ps->interruption_band[0])
            put(w, "spot interruptions %s a month", ps->interruption_band);
        put(w, " | %s | ", ps->effective_from);
        text(w, ps->source);
        if (ps->fx_rate > 0) {
            put(w, "; listed %.6g %s/h, converted at %.6g %s per %s of %s (", ps->listed_hourly,
                ps->currency, ps->fx_rate, s->currency, ps->currency, ps->fx_date);
            text(w, ps->fx_source);
            put(w, ")");
            long age = gp_fx_rate_age_days(ps, meta->as_of);
            if (age > GP_FX_STALE_DAYS) /* a short flag: the reader judges a stale rate */
                put(w, "; **rate %ld days old on %s** (over %d)", age, meta->as_of,
                    GP_FX_STALE_DAYS);
        }
        put(w, " |\n");
    }
}

gp_status gp_report_md(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                       gp_buf *out, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    md w = {.out = out, .st = GP_OK};
    char exit_line[768];
    gp_exit_line(s, r, exit_line, sizeof exit_line);
    md_headline(&w, s, r, meta, exit_line);
    what_decides(&w, s, r, meta);
    assumptions(&w, s, meta);
    md_totals(&w, s, r, exit_line);
    md_breakdown(&w, s, r);
    plan_table(&w, s, r, meta);
    if (meta && meta->n_sources > 0)
        md_sources(&w, s, meta);
    put(&w, "\n_gpuplan %s, cost model version %d._\n", meta && meta->version ? meta->version : "",
        GP_MODEL_VERSION);
    if (w.st != GP_OK)
        return gp_errorf(err, w.st, NULL, "report is larger than the output limit");
    return GP_OK;
}
