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

#include "gpuplan/inputs.h"
#include "gpuplan/engine.h"
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
        snprintf(unit, sizeof unit, "%s per %s (of %s%s; see Sources)", s->currency, fx->currency,
                 fx->fx_date,
                 gp_fx_rate_age_days(fx, meta->as_of) > GP_FX_STALE_DAYS ? ", stale" : "");
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

/* The option inputs other sheets' formulas refer to, by O_ field: the rest are written and
 * referred to by none. */
static const char *const opt_keys[O_N] = {
    "hourly",
    "gpus_per_instance",
    "price_trend_per_year",
    "support_pct",
    "storage_gb",
    "storage_per_gb_month",
    "egress_gb_per_month",
    "egress_per_gb",
    "work_per_gpu_hour",
    "idle_overhead",
    "interruptions_per_hour",
    "checkpoint_interval_h",
    "restart_h",
    "upfront",
    "term_months",
    "base_gpus",
    "price_per_unit",
    "price_per_input_unit",
    "input_units_per_unit",
};

static int opt_field(const char *key) {
    for (int f = 0; f < O_N; f++)
        if (!strcmp(opt_keys[f], key))
            return f;
    return -1;
}

/* One option input's row (inputs.h); returns its row. An API's hourly is the formula of its
 * prices, above it; an exchanged catalog price the listed figure times the rate. */
static int option_input(inputs *in, const gp_option *o, const gp_option_input *oi, int f,
                        const opt_refs *r, const gp_price_source *fx, char rate_ref[64],
                        char listed_ref[2][64]) {
    char label[GP_NAME_BYTES + 64];
    int row;
    snprintf(label, sizeof label, "%s: %s", o->name, oi->sheet_what);
    if (o->pricing == GP_PER_UNIT && f == O_HOURLY) {
        snprintf(label, sizeof label, "%s: price a unit of work in all", o->name);
        row = in->row++;
        text_cell(in->b, in->ws, row, 0, label, NULL);
        gp_xlsx_formula(in->b, in->ws, row, 1, o->hourly, in->b->num, "=%s+%s*%s", r->h[O_PPU],
                        r->h[O_IUPU], r->h[O_PPIU]);
        text_cell(in->b, in->ws, row, 2, "per unit of work, its inputs included", NULL);
    } else if (fx && (f == O_HOURLY || f == O_UPFRONT)) {
        row = in->row++;
        text_cell(in->b, in->ws, row, 0, label, NULL);
        gp_xlsx_formula(in->b, in->ws, row, 1, oi->value(o), in->b->num, "=%s*%s",
                        listed_ref[f == O_UPFRONT], rate_ref);
        text_cell(in->b, in->ws, row, 2, oi->sheet_unit, NULL);
    } else {
        row = input(in, NULL, label, oi->value(o), oi->sheet_unit);
    }
    return row;
}

static void option_inputs(inputs *in, const gp_scenario *s, const gp_option *o,
                          const gp_report_meta *meta, opt_refs *r) {
    char label[GP_NAME_BYTES + 64];
    snprintf(label, sizeof label, "%s (%s%s%s)", o->name, gp_pricing_name(o->pricing),
             o->burst >= 0 ? ", bursts to " : "", o->burst >= 0 ? s->options[o->burst].name : "");
    in->row++;
    text_cell(in->b, in->ws, in->row++, 0, label, in->b->bold);
    char rate_ref[64] = "", listed_ref[2][64] = {"", ""};
    const gp_price_source *fx = option_fx_inputs(in, s, o, meta, rate_ref, listed_ref);
    for (int f = 0; f < O_N; f++)
        r->h[f][0] = '\0';
    for (int k = 0; k < gp_n_option_inputs; k++) {
        const gp_option_input *oi = &gp_option_inputs[k];
        if (!gp_option_input_shows(oi, oi->sheet_pricings, oi->sheet_when, s, o, o->has_catalog))
            continue;
        int f = opt_field(oi->key);
        int row = option_input(in, o, oi, f, r, fx, rate_ref, listed_ref);
        if (f == O_HOURLY)
            for (int i = 0; meta && i < meta->n_sources; i++)
                if (!strcmp(meta->sources[i].option, o->name))
                    text_cell(in->b, in->ws, row, 3, "catalog (see Sources)", NULL);
        if (f >= 0)
            ref(r->h[f], sizeof r->h[f], "Assumptions", row, 1);
    }
    /* An API is on-demand with one "GPU" an instance doing one unit of work an hour, no idle
     * overhead: those are fixed, not inputs. */
    if (o->pricing == GP_PER_UNIT) {
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
    /* Every scalar input of the scenario as the workbook names and shows it (inputs.h). */
    for (int k = 0; k < gp_n_inputs; k++) {
        const gp_input *ir = &gp_inputs[k];
        if (ir->sheet_section)
            heading(in, ir->sheet_section);
        if (ir->sheet_name && gp_input_shows(ir, ir->sheet_when, s))
            input(in, ir->sheet_name, ir->sheet_label, ir->value(s),
                  !ir->sheet_unit                        ? s->currency
                  : ir->sheet_unit == GP_INPUT_WORK_UNIT ? s->work_unit
                                                         : ir->sheet_unit);
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
