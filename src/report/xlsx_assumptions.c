/* The Assumptions sheet of the procurement workbook: every input a row (blue on light yellow,
 * unlocked, named where a formula uses it), the only sheet to edit. It fills the references
 * (wbctx) the other sheets' formulas use. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "gpuplan/model.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_sheets.h"

/* ---- Assumptions ------------------------------------------------------------------------ */

typedef struct inputs {
    book *b;
    lxw_worksheet *ws;
    int row;
} inputs;

static void define(book *b, const char *name, int row, int col) {
    char target[80], f[96];
    ref(target, sizeof target, "Assumptions", row, col);
    snprintf(f, sizeof f, "=%s", target);
    keep(b, workbook_define_name(b->wb, name, f));
}

/* One input a row: label, value, unit; named when name is given. Returns its row. */
static int input(inputs *in, const char *name, const char *label, double v, const char *unit) {
    int r = in->row++;
    text_cell(in->b, in->ws, r, 0, label, NULL);
    num_cell(in->b, in->ws, r, 1, v, in->b->in_num);
    text_cell(in->b, in->ws, r, 2, unit, NULL);
    if (name)
        define(in->b, name, r, 1);
    return r;
}

static void heading(inputs *in, const char *text) {
    in->row++;
    text_cell(in->b, in->ws, in->row++, 0, text, in->b->bold);
}

/* 2.1: a catalog price in another currency keeps its listed figures and the exchange rate as
 * inputs; hourly and upfront are their products, so a changed rate moves every total. Returns
 * the option's source with a rate (NULL when none) and the rows' references. */
static const gp_price_source *option_fx_inputs(inputs *in, const gp_scenario *s, const gp_option *o,
                                               const gp_report_meta *meta, char rate_ref[64],
                                               char listed_ref[2][64]) {
    bool committed = o->pricing == GP_COMMITTED;
    char label[GP_NAME_BYTES + 64];
    const gp_price_source *fx = NULL;
    for (int k = 0; meta && k < meta->n_sources; k++)
        if (meta->sources[k].fx_rate > 0 && !strcmp(meta->sources[k].option, o->name))
            fx = &meta->sources[k];
    if (fx) {
        char unit[96];
        snprintf(label, sizeof label, "%s: exchange rate", o->name);
        snprintf(unit, sizeof unit, "%s per %s (of %s; see Sources)", s->currency, fx->currency,
                 fx->fx_date);
        ref(rate_ref, 64, "Assumptions", input(in, NULL, label, fx->fx_rate, unit), 1);
        snprintf(label, sizeof label, "%s: hourly as listed", o->name);
        snprintf(unit, sizeof unit, "%s per instance-hour", fx->currency);
        ref(listed_ref[0], 64, "Assumptions", input(in, NULL, label, fx->listed_hourly, unit), 1);
        if (committed) {
            snprintf(label, sizeof label, "%s: upfront as listed", o->name);
            snprintf(unit, sizeof unit, "%s per instance per term", fx->currency);
            ref(listed_ref[1], 64, "Assumptions",
                input(in, NULL, label, o->upfront / fx->fx_rate, unit), 1);
        }
    }
    return fx;
}

/* The option's composite references: the spot factor, the monthly extras and a busy GPU-hour's
 * cost over hourly. */
static void option_composites(const gp_option *o, opt_refs *r) {
    bool committed = o->pricing == GP_COMMITTED;
    if (o->pricing == GP_SPOT)
        snprintf(r->phi, sizeof r->phi, "(1+%s*(%s/2+%s))", r->h[O_LAMBDA], r->h[O_CKPT],
                 r->h[O_RESTART]);
    else
        snprintf(r->phi, sizeof r->phi, "1");
    snprintf(r->extras, sizeof r->extras, "(%s*%s+%s*%s)", r->h[O_STOR_GB], r->h[O_STOR_RATE],
             r->h[O_EGRESS_GB], r->h[O_EGRESS_RATE]);
    snprintf(r->per_gpu_h, sizeof r->per_gpu_h, "(1+%s)*%s*(1+%s)/%s",
             committed ? "0" : r->h[O_IDLE], r->phi, r->h[O_SUPPORT], r->h[O_G]);
}

/* What each option input is and its unit, by O_ field. */
static const struct {
    const char *what, *unit;
} opt_fields[O_N] = {
    {"hourly", "per instance-hour"},
    {"GPUs an instance", "GPUs"},
    {"price trend", "a year"},
    {"support", "of compute"},
    {"storage GB", "GB"},
    {"storage price", "per GB-month"},
    {"egress GB a month", "GB"},
    {"egress price", "per GB"},
    {"work a GPU-hour", "units"},
    {"idle overhead", "x"},
    {"interruptions an hour", "/h"},
    {"checkpoint interval", "h"},
    {"restart time", "h"},
    {"upfront per instance per term", ""},
    {"term", "months"},
    {"committed base GPUs", "GPUs"},
    {"price a unit of work", "per unit of work"},
    {"price an input unit", "per input unit"},
    {"input units a unit of work", "units"},
};

/* Which of option o's fields are inputs (applies[f]). An API (per_unit) is on-demand with one
 * "GPU" an instance doing one unit of work an hour, no idle overhead: those are fixed, not
 * inputs, and its hourly is its prices' formula. */
static void option_applies(const gp_scenario *s, const gp_option *o, bool applies[O_N]) {
    bool committed = o->pricing == GP_COMMITTED, per_unit = o->pricing == GP_PER_UNIT;
    for (int f = 0; f < O_N; f++)
        applies[f] = true;
    applies[O_PPU] = applies[O_PPIU] = applies[O_IUPU] = per_unit;
    applies[O_G] = !per_unit;
    applies[O_RHO] = s->work_mode && !per_unit;
    applies[O_IDLE] = !committed && !per_unit;
    applies[O_LAMBDA] = applies[O_CKPT] = applies[O_RESTART] = o->pricing == GP_SPOT;
    applies[O_UPFRONT] = applies[O_TERM] = committed;
    applies[O_BASE] = committed && o->has_base_gpus;
}

static void option_inputs(inputs *in, const gp_scenario *s, const gp_option *o,
                          const gp_report_meta *meta, opt_refs *r) {
    double v[O_N] = {o->hourly,
                     o->gpus_per_instance,
                     o->price_trend_per_year,
                     o->support_pct,
                     o->storage_gb,
                     o->storage_per_gb_month,
                     o->egress_gb_per_month,
                     o->egress_per_gb,
                     o->work_per_gpu_hour,
                     o->idle_overhead,
                     o->interruptions_per_hour,
                     o->checkpoint_interval_h,
                     o->restart_h,
                     o->upfront,
                     o->term_months,
                     o->base_gpus,
                     o->price_per_unit,
                     o->price_per_input_unit,
                     o->input_units_per_unit};
    bool per_unit = o->pricing == GP_PER_UNIT;
    bool applies[O_N];
    option_applies(s, o, applies);
    char label[GP_NAME_BYTES + 64];
    snprintf(label, sizeof label, "%s (%s%s%s)", o->name, gp_pricing_name(o->pricing),
             o->burst >= 0 ? ", bursts to " : "", o->burst >= 0 ? s->options[o->burst].name : "");
    in->row++;
    text_cell(in->b, in->ws, in->row++, 0, label, in->b->bold);
    char rate_ref[64] = "", listed_ref[2][64] = {"", ""};
    const gp_price_source *fx = option_fx_inputs(in, s, o, meta, rate_ref, listed_ref);
    for (int f = O_PPU; f <= O_IUPU; f++)
        r->h[f][0] = '\0';
    if (per_unit) /* its prices first: the price a unit in all below is their formula */
        for (int f = O_PPU; f <= O_IUPU; f++) {
            snprintf(label, sizeof label, "%s: %s", o->name, opt_fields[f].what);
            ref(r->h[f], sizeof r->h[f], "Assumptions",
                input(in, NULL, label, v[f], opt_fields[f].unit), 1);
        }
    for (int f = 0; f < O_PPU; f++) {
        r->h[f][0] = '\0';
        if (!applies[f])
            continue;
        snprintf(label, sizeof label, "%s: %s", o->name, opt_fields[f].what);
        int row;
        if (per_unit && f == O_HOURLY) {
            snprintf(label, sizeof label, "%s: price a unit of work in all", o->name);
            row = in->row++;
            text_cell(in->b, in->ws, row, 0, label, NULL);
            gp_xlsx_formula(in->b, in->ws, row, 1, o->hourly, in->b->num, "=%s+%s*%s", r->h[O_PPU],
                            r->h[O_IUPU], r->h[O_PPIU]);
            text_cell(in->b, in->ws, row, 2, "per unit of work, its inputs included", NULL);
        } else if (fx && (f == O_HOURLY || f == O_UPFRONT)) {
            row = in->row++;
            text_cell(in->b, in->ws, row, 0, label, NULL);
            gp_xlsx_formula(in->b, in->ws, row, 1, v[f], in->b->num, "=%s*%s",
                            listed_ref[f == O_UPFRONT], rate_ref);
            text_cell(in->b, in->ws, row, 2, opt_fields[f].unit, NULL);
        } else {
            row = input(in, NULL, label, v[f], opt_fields[f].unit);
        }
        if (f == O_HOURLY)
            for (int k = 0; meta && k < meta->n_sources; k++)
                if (!strcmp(meta->sources[k].option, o->name))
                    text_cell(in->b, in->ws, row, 3, "catalog (see Sources)", NULL);
        ref(r->h[f], sizeof r->h[f], "Assumptions", row, 1);
    }
    if (per_unit) {
        snprintf(r->h[O_G], sizeof r->h[O_G], "1");
        snprintf(r->h[O_RHO], sizeof r->h[O_RHO], "1");
        snprintf(r->h[O_IDLE], sizeof r->h[O_IDLE], "0");
    }
    option_composites(o, r);
}

static int cmp_tier(const void *a, const void *b) {
    const gp_bulk_tier *x = a, *y = b;
    return (x->min_servers > y->min_servers) - (x->min_servers < y->min_servers);
}

/* The Assumptions sheet; fills the references the other sheets use. */
/* ---- the scenario's inputs, one a row ----------------------------------------------------
 * Every scalar input of the scenario as the workbook names and shows it: a new input is one
 * row here (and its value function above the table). A row with a heading opens a section. */

/* When a row applies. */
typedef enum { IN_ALWAYS, IN_WORK, IN_GPUS, IN_NO_RESALE } in_when;

/* A unit that stands for the scenario's unit of work; NULL stands for its currency. */
static const char WORK_UNIT[] = "work unit";

typedef struct input_row {
    const char *heading; /* a section's heading; the rest NULL */
    const char *name, *label, *unit;
    in_when when;
    double (*value)(const gp_scenario *s);
} input_row;

static double v_horizon_months(const gp_scenario *s) {
    return s->horizon_months;
}

static double v_discount_rate(const gp_scenario *s) {
    return s->discount_rate;
}

static double v_work_per_month(const gp_scenario *s) {
    return s->work_per_month;
}

static double v_gpus(const gp_scenario *s) {
    return s->gpus;
}

static double v_utilization(const gp_scenario *s) {
    return s->utilization;
}

static double v_growth(const gp_scenario *s) {
    return s->growth_per_month;
}

static double v_gpus_per_server(const gp_scenario *s) {
    return s->gpus_per_server;
}

static double v_server_price(const gp_scenario *s) {
    return s->server_price;
}

static double v_price_factor(const gp_scenario *s) {
    return s->price_factor;
}

static double v_hw_trend(const gp_scenario *s) {
    return s->server_price_trend_per_year;
}

static double v_network_per_server(const gp_scenario *s) {
    return s->network_per_server;
}

static double v_fixed_capex(const gp_scenario *s) {
    return s->fixed_capex;
}

static double v_as_needed(const gp_scenario *s) {
    return s->buy == GP_BUY_AS_NEEDED;
}

static double v_lead_time(const gp_scenario *s) {
    return s->lead_time_months;
}

static double v_order_every(const gp_scenario *s) {
    return s->order_every_months;
}

static double v_max_servers(const gp_scenario *s) {
    return s->has_max_servers ? s->max_servers : 0;
}

static double v_refresh_months(const gp_scenario *s) {
    return s->refresh_months;
}

static double v_residual_pct(const gp_scenario *s) {
    return s->residual_pct;
}

static double v_depreciation_years(const gp_scenario *s) {
    return s->depreciation_years;
}

static double v_warranty_months(const gp_scenario *s) {
    return s->warranty_months;
}

static double v_maintenance_pct(const gp_scenario *s) {
    return s->maintenance_pct_per_year;
}

static double v_staff_per_month(const gp_scenario *s) {
    return s->staff_per_month;
}

static double v_other_per_month(const gp_scenario *s) {
    return s->other_per_month;
}

static double v_colo_per_kw_month(const gp_scenario *s) {
    return s->colo_per_kw_month;
}

static double v_rho_s(const gp_scenario *s) {
    return s->work_per_gpu_hour;
}

static double v_server_base_w(const gp_scenario *s) {
    return s->server_base_w;
}

static double v_gpu_idle_w(const gp_scenario *s) {
    return s->gpu_idle_w;
}

static double v_gpu_tdp_w(const gp_scenario *s) {
    return s->gpu_tdp_w;
}

static double v_has_gpu_avg(const gp_scenario *s) {
    return s->has_gpu_avg_w;
}

static double v_gpu_avg_w(const gp_scenario *s) {
    return s->has_gpu_avg_w ? s->gpu_avg_w : 0;
}

static double v_pue(const gp_scenario *s) {
    return s->pue;
}

static double v_shift(const gp_scenario *s) {
    return s->shift_to_cheapest;
}

static double v_demand_charge(const gp_scenario *s) {
    return s->demand_charge_per_kw_month;
}

static double v_energy_trend(const gp_scenario *s) {
    return s->energy_price_trend_per_year;
}

static double v_loan(const gp_scenario *s) {
    return s->financing == GP_LOAN;
}

static double v_loan_fraction(const gp_scenario *s) {
    return s->loan_fraction;
}

static double v_loan_apr(const gp_scenario *s) {
    return s->loan_apr;
}

static double v_loan_term(const gp_scenario *s) {
    return s->loan_term_months;
}

static const input_row input_rows[] = {
    {NULL, "horizon_months", "horizon (keep: the rows are laid out for it)", "months", IN_ALWAYS,
     v_horizon_months},
    {NULL, "discount_rate", "discount rate (NPV)", "a year", IN_ALWAYS, v_discount_rate},
    {"Demand", NULL, NULL, NULL, IN_ALWAYS, NULL},
    {NULL, "work_per_month", "demand: work a month", WORK_UNIT, IN_WORK, v_work_per_month},
    {NULL, "gpus", "demand: GPUs", "GPUs", IN_GPUS, v_gpus},
    {NULL, "utilization", "demand: busy share of GPU-hours", "0..1", IN_ALWAYS, v_utilization},
    {NULL, "growth", "demand growth (compound; 0 with steps)", "a month", IN_ALWAYS, v_growth},
    {"Self-hosted", NULL, NULL, NULL, IN_ALWAYS, NULL},
    {NULL, "gpus_per_server", "GPUs a server", "GPUs", IN_ALWAYS, v_gpus_per_server},
    {NULL, "server_price", "server price", NULL, IN_ALWAYS, v_server_price},
    {NULL, "price_factor", "price factor (refurbished)", "x", IN_ALWAYS, v_price_factor},
    {NULL, "hw_trend", "server price trend", "a year", IN_ALWAYS, v_hw_trend},
    {NULL, "network_per_server", "network per server", NULL, IN_ALWAYS, v_network_per_server},
    {NULL, "fixed_capex", "fixed capex (install, racks)", NULL, IN_ALWAYS, v_fixed_capex},
    {NULL, "as_needed", "buy as needed (1) or all at once (0)", "0/1", IN_ALWAYS, v_as_needed},
    {NULL, "lead_time", "lead time", "months", IN_ALWAYS, v_lead_time},
    {NULL, "order_every", "order every", "months", IN_ALWAYS, v_order_every},
    {NULL, "max_servers", "at most servers (0: no cap)", "servers", IN_ALWAYS, v_max_servers},
    {NULL, "refresh_months", "refresh after (0: never)", "months", IN_ALWAYS, v_refresh_months},
    {NULL, "residual_pct",
     "residual value (bought as needed or refreshed: where the straight line from new ends; else "
     "flat)",
     "of hardware", IN_NO_RESALE, v_residual_pct},
    {NULL, "depreciation_years", "depreciation (the straight line's length)", "years", IN_ALWAYS,
     v_depreciation_years},
    {NULL, "warranty_months", "warranty", "months", IN_ALWAYS, v_warranty_months},
    {NULL, "maintenance_pct", "maintenance after warranty", "of hardware a year", IN_ALWAYS,
     v_maintenance_pct},
    {NULL, "staff_per_month", "staff", "a month", IN_ALWAYS, v_staff_per_month},
    {NULL, "other_per_month", "other costs", "a month", IN_ALWAYS, v_other_per_month},
    {NULL, "colo_per_kw_month", "colocation", "per kW-month", IN_ALWAYS, v_colo_per_kw_month},
    {NULL, "rho_s", "owned GPU: work a GPU-hour", WORK_UNIT, IN_WORK, v_rho_s},
    {NULL, "server_base_w", "server draw besides GPUs", "W", IN_ALWAYS, v_server_base_w},
    {NULL, "gpu_idle_w", "GPU idle draw", "W", IN_ALWAYS, v_gpu_idle_w},
    {NULL, "gpu_tdp_w", "GPU busy draw", "W", IN_ALWAYS, v_gpu_tdp_w},
    {NULL, "has_gpu_avg", "use a flat mean GPU draw (1) or idle/busy (0)", "0/1", IN_ALWAYS,
     v_has_gpu_avg},
    {NULL, "gpu_avg_w", "flat mean GPU draw", "W", IN_ALWAYS, v_gpu_avg_w},
    {NULL, "pue", "PUE", "x", IN_ALWAYS, v_pue},
    {NULL, "shift", "busy hours shifted to the cheapest periods", "0/1", IN_ALWAYS, v_shift},
    {NULL, "demand_charge", "demand charge", "per kW-month", IN_ALWAYS, v_demand_charge},
    {NULL, "energy_trend", "electricity price trend", "a year", IN_ALWAYS, v_energy_trend},
    {NULL, "loan", "financed with a loan", "0/1", IN_ALWAYS, v_loan},
    {NULL, "loan_fraction", "loan share of capex", "0..1", IN_ALWAYS, v_loan_fraction},
    {NULL, "loan_apr", "loan APR", "a year", IN_ALWAYS, v_loan_apr},
    {NULL, "loan_term", "loan term", "months", IN_ALWAYS, v_loan_term},
};

static bool input_applies(const input_row *r, const gp_scenario *s) {
    switch (r->when) {
    case IN_WORK:
        return s->work_mode;
    case IN_GPUS:
        return !s->work_mode;
    case IN_NO_RESALE:
        return s->n_resale == 0;
    case IN_ALWAYS:
        break;
    }
    return true;
}

/* The head row, the plan's dates and every scalar input of the scenario, named. */
static void assumptions_scalars(wbctx *x, inputs *in, const gp_report_meta *meta,
                                int fiscal_start) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    lxw_worksheet *as = in->ws;
    text_cell(b, as, 0, 0, "input (blue on yellow: edit these; everything else recalculates)",
              b->bold);
    text_cell(b, as, 0, 1, "value", b->bold);
    text_cell(b, as, 0, 2, "unit", b->bold);
    text_cell(b, as, 0, 3, "source", b->bold);
    text_cell(b, as, 0, 4, "tariff: hours of periods filled first", b->bold);
    const char *start = s->has_start_date ? s->start_date : meta && meta->as_of ? meta->as_of : "";
    int y = 2000, mo = 1, d = 1;
    if (sscanf(start, "%4d-%2d-%2d", &y, &mo, &d) != 3 || y < 1900)
        y = 1900, mo = 1, d = 1;
    int r = in->row++;
    text_cell(b, as, r, 0, "plan starts (month 1 begins)", NULL);
    num_cell(b, as, r, 1, date_serial(y, mo, d), b->in_date);
    text_cell(b, as, r, 2, "date", NULL);
    text_cell(b, as, r, 3, s->has_start_date ? "scenario start_date" : "report date (as_of)", NULL);
    define(b, "start_date", r, 1);
    input(in, "fiscal_start", "fiscal year starts in month (1 = calendar year)", fiscal_start,
          "1..12");
    for (size_t k = 0; k < sizeof input_rows / sizeof *input_rows; k++) {
        const input_row *ir = &input_rows[k];
        if (ir->heading)
            heading(in, ir->heading);
        else if (input_applies(ir, s))
            input(in, ir->name, ir->label, ir->value(s),
                  !ir->unit               ? s->currency
                  : ir->unit == WORK_UNIT ? s->work_unit
                                          : ir->unit);
    }
}

/* Each period's row is its hours, then its price: the rows are known before they are
 * written, so each hours row can hold the hours of the periods shifting fills first (a
 * lower price, or the same price given earlier), live on the prices. */
static void assumptions_tariff(wbctx *x, inputs *in) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    lxw_worksheet *as = in->ws;
    for (int k = 0; k < s->n_periods; k++) {
        x->ph[k] = in->row + 2 * k;
        x->pp[k] = in->row + 2 * k + 1;
    }
    x->cheaper_first = x->ph[0];
    x->cheaper_last = x->pp[s->n_periods - 1];
    for (int k = 0; k < s->n_periods; k++) {
        char label[GP_NAME_BYTES + 32];
        snprintf(label, sizeof label, "tariff %s: hours a day", s->periods[k].name);
        int hr = input(in, NULL, label, s->periods[k].hours_per_day, "h");
        char f[8192] = "=0", pk[64];
        ref(pk, sizeof pk, "Assumptions", x->pp[k], 1);
        double cheaper = 0;
        for (int i = 0; i < s->n_periods; i++) {
            if (i == k)
                continue;
            char hi[64], pi[64];
            ref(hi, sizeof hi, "Assumptions", x->ph[i], 1);
            ref(pi, sizeof pi, "Assumptions", x->pp[i], 1);
            size_t n = strlen(f);
            snprintf(f + n, sizeof f - n, "+%s*(%s%s%s)", hi, pi, i < k ? "<=" : "<", pk);
            double a = s->periods[i].price_per_kwh, c = s->periods[k].price_per_kwh;
            cheaper += (i < k ? a <= c : a < c) ? s->periods[i].hours_per_day : 0;
        }
        keep(b, worksheet_write_formula_num(as, (lxw_row_t)hr, 4, f, b->num, cheaper));
        snprintf(label, sizeof label, "tariff %s: price", s->periods[k].name);
        input(in, NULL, label, s->periods[k].price_per_kwh, "per kWh");
    }
}

/* The demand steps, the bulk tiers and the resale points: a table each, when given. */
static void assumptions_tables(wbctx *x, inputs *in) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    lxw_worksheet *as = in->ws;
    if (s->n_steps > 0) {
        heading(in, "Demand steps (\"-\": not given, the value before holds)");
        text_cell(b, as, in->row, 0, "step", b->bold);
        text_cell(b, as, in->row, 1, "month", b->bold);
        text_cell(b, as, in->row, 2, s->work_mode ? "work a month" : "GPUs", b->bold);
        text_cell(b, as, in->row++, 3, "utilization", b->bold);
        int r0 = in->row;
        for (int k = 0; k < s->n_steps; k++, in->row++) {
            const gp_step *st = &s->steps[k];
            char label[32];
            snprintf(label, sizeof label, "step %d", k + 1);
            text_cell(b, as, in->row, 0, label, NULL);
            num_cell(b, as, in->row, 1, st->month, b->in_num);
            bool has = s->work_mode ? st->has_work : st->has_gpus;
            if (has)
                num_cell(b, as, in->row, 2, s->work_mode ? st->work_per_month : st->gpus,
                         b->in_num);
            else
                text_cell(b, as, in->row, 2, "-", b->in_text);
            if (st->has_utilization)
                num_cell(b, as, in->row, 3, st->utilization, b->in_num);
            else
                text_cell(b, as, in->row, 3, "-", b->in_text);
        }
        range(x->steps_month, sizeof x->steps_month, "Assumptions", 1, r0, in->row - 1);
        range(x->steps_val, sizeof x->steps_val, "Assumptions", 2, r0, in->row - 1);
        range(x->steps_u, sizeof x->steps_u, "Assumptions", 3, r0, in->row - 1);
    }
    if (s->n_tiers > 0) {
        heading(in, "Bulk discounts (ascending servers)");
        text_cell(b, as, in->row, 1, "from servers", b->bold);
        text_cell(b, as, in->row++, 2, "discount", b->bold);
        gp_bulk_tier tiers[GP_MAX_TIERS];
        memcpy(tiers, s->tiers, sizeof tiers[0] * (size_t)s->n_tiers);
        qsort(tiers, (size_t)s->n_tiers, sizeof tiers[0], cmp_tier);
        int r0 = in->row;
        for (int k = 0; k < s->n_tiers; k++, in->row++) {
            text_cell(b, as, in->row, 0, "bulk tier", NULL);
            num_cell(b, as, in->row, 1, tiers[k].min_servers, b->in_num);
            num_cell(b, as, in->row, 2, tiers[k].pct, b->in_num);
        }
        range(x->tier_min, sizeof x->tier_min, "Assumptions", 1, r0, in->row - 1);
        range(x->tier_pct, sizeof x->tier_pct, "Assumptions", 2, r0, in->row - 1);
    }
    if (s->n_resale > 0) {
        heading(in, "Resale value by age (straight lines between points, flat after)");
        text_cell(b, as, in->row, 1, "age (months)", b->bold);
        text_cell(b, as, in->row++, 2, "share of new", b->bold);
        int r0 = in->row;
        text_cell(b, as, in->row, 0, "new", NULL);
        num_cell(b, as, in->row, 1, 0, NULL);
        num_cell(b, as, in->row++, 2, 1, NULL);
        for (int k = 0; k < s->n_resale; k++, in->row++) {
            text_cell(b, as, in->row, 0, "resale point", NULL);
            num_cell(b, as, in->row, 1, s->resale[k].age_months, b->in_num);
            num_cell(b, as, in->row, 2, s->resale[k].pct, b->in_num);
        }
        range(x->res_age, sizeof x->res_age, "Assumptions", 1, r0, in->row - 1);
        range(x->res_pct, sizeof x->res_pct, "Assumptions", 2, r0, in->row - 1);
    }
}

void gp_xlsx_assumptions(wbctx *x, lxw_worksheet *as, const gp_report_meta *meta,
                         int fiscal_start) {
    book *b = x->b;
    const gp_scenario *s = x->s;
    inputs in = {b, as, 1};
    assumptions_scalars(x, &in, meta, fiscal_start);
    assumptions_tariff(x, &in);
    assumptions_tables(x, &in);
    for (int i = 0; i < s->n_options; i++)
        option_inputs(&in, s, &s->options[i], meta, &x->o[i]);
    worksheet_set_column(as, 0, 0, 52, NULL);
    worksheet_set_column(as, 1, 1, 16, NULL);
    worksheet_set_column(as, 2, 3, 20, NULL);
    worksheet_freeze_panes(as, 1, 0);
    finish_sheet(as, false, 0);
    keep(b, workbook_define_name(b->wb, "refresh_step",
                                 "=INT((refresh_months+order_every-1)/"
                                 "order_every)*order_every"));
}
