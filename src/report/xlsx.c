/* The procurement workbook. Layout: Summary, Assumptions (the only sheet to edit), Self-hosted
 * (derived figures, then one row a month), Cloud (one column an option), Break-even (the
 * cumulative series and a line chart), BOM, Sources. Formulas follow MODEL.md term by term;
 * cached values are the engine's. The month rows are laid out for the scenario's horizon, so
 * the horizon is the one assumption a spreadsheet user should not change. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "gpuplan/model.h"
#include "gpuplan/output.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"

typedef struct book {
    lxw_workbook *wb;
    lxw_format *bold, *money, *num, *pct, *text;
    lxw_error rc;
} book;

/* Column letters for A1 references. */
static void col_name(int col, char *out) {
    char tmp[8];
    int n = 0;
    col++;
    while (col > 0) {
        tmp[n++] = (char)('A' + (col - 1) % 26);
        col = (col - 1) / 26;
    }
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* "Sheet!$C$5" into out. */
static void ref(char *out, size_t cap, const char *sheet, int row, int col) {
    char c[8];
    col_name(col, c);
    snprintf(out, cap, "'%s'!$%s$%d", sheet, c, row + 1);
}

/* Outside text: through gp_text_clean, the one sanitiser for every string that reaches the
 * workbook (cells, cached formula strings, document properties); always written as a string,
 * never a formula. */
static void text_cell(book *b, lxw_worksheet *ws, int row, int col, const char *s, lxw_format *f) {
    char clean[4096];
    gp_text_clean(s, clean, sizeof clean);
    lxw_error e = worksheet_write_string(ws, (lxw_row_t)row, (lxw_col_t)col, clean, f);
    if (e && !b->rc)
        b->rc = e;
}

static void num_cell(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f) {
    lxw_error e = worksheet_write_number(ws, (lxw_row_t)row, (lxw_col_t)col, v, f);
    if (e && !b->rc)
        b->rc = e;
}

static void formula(book *b, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void formula(book *b, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                    const char *fmt, ...) {
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    lxw_error e = worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, cached);
    if (e && !b->rc)
        b->rc = e;
}

/* ---- Assumptions ------------------------------------------------------------------------------
 */

typedef struct inputs {
    lxw_worksheet *ws;
    int row;
} inputs;

/* One input a row: label, value, unit, source; named when name is given. Returns its row. */
static int input(book *b, inputs *in, const char *name, const char *label, double v,
                 const char *unit, const char *source) {
    int r = in->row++;
    text_cell(b, in->ws, r, 0, label, NULL);
    num_cell(b, in->ws, r, 1, v, b->num);
    text_cell(b, in->ws, r, 2, unit, NULL);
    text_cell(b, in->ws, r, 3, source, NULL);
    if (name) {
        char target[64];
        ref(target, sizeof target, "Assumptions", r, 1);
        char f[80];
        snprintf(f, sizeof f, "=%s", target);
        lxw_error e = workbook_define_name(b->wb, name, f);
        if (e && !b->rc)
            b->rc = e;
    }
    return r;
}

/* A line chart of the Break-even sheet's cumulative series: months 0..M down column A, then
 * self-hosted and each of the no options in the columns beside it, named by their headers. */
static lxw_chart *cumulative_chart(book *b, const char *title, int M, int no) {
    lxw_chart *chart = workbook_add_chart(b->wb, LXW_CHART_LINE);
    chart_title_set_name(chart, title);
    for (int c = 0; c <= no; c++) {
        lxw_chart_series *se = chart_add_series(chart, NULL, NULL);
        chart_series_set_categories(se, "Break-even", 1, 0, (lxw_row_t)(M + 1), 0);
        chart_series_set_values(se, "Break-even", 1, (lxw_col_t)(1 + c), (lxw_row_t)(M + 1),
                                (lxw_col_t)(1 + c));
        chart_series_set_name_range(se, "Break-even", 0, (lxw_col_t)(1 + c));
    }
    return chart;
}

/* The Telemetry sheet: the window, then one row a GPU, streamed from tel->next. Plain values
 * (measurements, not formulas); the hot loop of a large fleet export. */
static void telemetry_sheet(book *b, lxw_worksheet *ws, const gp_xlsx_telemetry *tel) {
    text_cell(b, ws, 0, 0, "measured from", b->bold);
    text_cell(b, ws, 0, 1, tel->since ? tel->since : "", NULL);
    text_cell(b, ws, 0, 2, "until", b->bold);
    text_cell(b, ws, 0, 3, tel->until ? tel->until : "", NULL);
    text_cell(b, ws, 0, 4, "busy at", b->bold);
    num_cell(b, ws, 0, 5, tel->busy_threshold, b->pct);
    static const char *const heads[] = {
        "node",       "GPU",         "model", "UUID", "hours observed", "mean utilization",
        "busy share", "mean power W"};
    enum { HEAD = 2 };
    for (int c = 0; c < 8; c++)
        text_cell(b, ws, HEAD, c, heads[c], b->bold);
    lxw_row_t row = HEAD + 1;
    gp_xlsx_gpu g;
    while (!b->rc && row < LXW_ROW_MAX && tel->next(tel->arg, &g) == 1) {
        text_cell(b, ws, (int)row, 0, g.node ? g.node : "", NULL);
        num_cell(b, ws, (int)row, 1, g.index, NULL);
        text_cell(b, ws, (int)row, 2, g.model ? g.model : "", NULL);
        text_cell(b, ws, (int)row, 3, g.uuid ? g.uuid : "", NULL);
        num_cell(b, ws, (int)row, 4, g.hours, b->num);
        num_cell(b, ws, (int)row, 5, g.util_mean, b->pct);
        num_cell(b, ws, (int)row, 6, g.busy_share, b->pct);
        if (g.has_power)
            num_cell(b, ws, (int)row, 7, g.power_mean_w, b->num);
        row++;
    }
    worksheet_set_column(ws, 0, 0, 24, NULL);
    worksheet_set_column(ws, 1, 1, 6, NULL);
    worksheet_set_column(ws, 2, 2, 18, NULL);
    worksheet_set_column(ws, 3, 3, 42, NULL);
    worksheet_set_column(ws, 4, 7, 16, NULL);
    worksheet_freeze_panes(ws, HEAD + 1, 0);
    if (row > HEAD + 1)
        worksheet_autofilter(ws, HEAD, 0, row - 1, 7);
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_repeat_rows(ws, HEAD, HEAD);
}

/* The whole workbook into file `tmp`; the first error libxlsxwriter returned, or LXW_NO_ERROR. */
static lxw_error write_book(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                            const gp_xlsx_telemetry *tel, const char *tmp) {
    book b = {0};
    /* Constant memory: every sheet is written row by row, so a Telemetry sheet of a million
     * rows costs one row of memory. */
    lxw_workbook_options opt = {.constant_memory = LXW_TRUE};
    b.wb = workbook_new_opt(tmp, &opt);
    if (!b.wb)
        return LXW_ERROR_CREATING_XLSX_FILE;
    b.bold = workbook_add_format(b.wb);
    format_set_bold(b.bold);
    char money_fmt[64];
    snprintf(money_fmt, sizeof money_fmt, "#,##0.00 \"%s\"", s->currency);
    b.money = workbook_add_format(b.wb);
    format_set_num_format(b.money, money_fmt);
    b.num = workbook_add_format(b.wb);
    format_set_num_format(b.num, "General");
    b.pct = workbook_add_format(b.wb);
    format_set_num_format(b.pct, "0.00%");

    int M = s->horizon_months, no = s->n_options;
    lxw_worksheet *sum = workbook_add_worksheet(b.wb, "Summary");
    lxw_worksheet *as = workbook_add_worksheet(b.wb, "Assumptions");
    lxw_worksheet *sh = workbook_add_worksheet(b.wb, "Self-hosted");
    lxw_worksheet *cl = workbook_add_worksheet(b.wb, "Cloud");
    lxw_worksheet *be = workbook_add_worksheet(b.wb, "Break-even");
    lxw_worksheet *bom = workbook_add_worksheet(b.wb, "BOM");
    lxw_worksheet *tw = tel ? workbook_add_worksheet(b.wb, "Telemetry") : NULL;
    lxw_worksheet *src = workbook_add_worksheet(b.wb, "Sources");

    /* Assumptions. */
    inputs in = {as, 1};
    text_cell(&b, as, 0, 0, "input", b.bold);
    text_cell(&b, as, 0, 1, "value", b.bold);
    text_cell(&b, as, 0, 2, "unit", b.bold);
    text_cell(&b, as, 0, 3, "source", b.bold);
    const char *scen = "scenario";
    input(&b, &in, "horizon_months", "horizon (keep: month rows are laid out for it)", M, "months",
          scen);
    input(&b, &in, "gpus", "demand: GPUs", s->gpus, "GPUs", scen);
    input(&b, &in, "utilization", "demand: busy share of GPU-hours", s->utilization, "0..1", scen);
    input(&b, &in, "discount_rate", "discount rate (NPV)", s->discount_rate, "a year", scen);
    input(&b, &in, "gpus_per_server", "GPUs a server", s->gpus_per_server, "GPUs", scen);
    input(&b, &in, "server_price", "server price", s->server_price, s->currency, scen);
    input(&b, &in, "price_factor", "price factor (refurbished)", s->price_factor, "x", scen);
    input(&b, &in, "bulk_discount", "bulk discount (tier reached)", r->self.bulk_pct, "0..1",
          "scenario tiers");
    input(&b, &in, "network_per_server", "network per server", s->network_per_server, s->currency,
          scen);
    input(&b, &in, "fixed_capex", "fixed capex (install, racks)", s->fixed_capex, s->currency,
          scen);
    input(&b, &in, "residual_pct", "residual value", s->residual_pct, "of hardware", scen);
    input(&b, &in, "warranty_months", "warranty", s->warranty_months, "months", scen);
    input(&b, &in, "maintenance_pct", "maintenance after warranty", s->maintenance_pct_per_year,
          "of hardware a year", scen);
    input(&b, &in, "staff_per_month", "staff", s->staff_per_month, "a month", scen);
    input(&b, &in, "other_per_month", "other costs", s->other_per_month, "a month", scen);
    input(&b, &in, "colo_per_kw_month", "colocation", s->colo_per_kw_month, "per kW-month", scen);
    input(&b, &in, "server_base_w", "server draw besides GPUs", s->server_base_w, "W", scen);
    input(&b, &in, "gpu_idle_w", "GPU idle draw", s->gpu_idle_w, "W", scen);
    input(&b, &in, "gpu_tdp_w", "GPU busy draw", s->gpu_tdp_w, "W", scen);
    input(&b, &in, "has_gpu_avg", "use a flat mean GPU draw (1) or idle/busy (0)", s->has_gpu_avg_w,
          "0/1", scen);
    input(&b, &in, "gpu_avg_w", "flat mean GPU draw", s->has_gpu_avg_w ? s->gpu_avg_w : 0, "W",
          scen);
    input(&b, &in, "pue", "PUE", s->pue, "x", scen);
    input(&b, &in, "shift", "busy hours shifted to the cheapest periods", s->shift_to_cheapest,
          "0/1", scen);
    input(&b, &in, "demand_charge", "demand charge", s->demand_charge_per_kw_month, "per kW-month",
          scen);
    input(&b, &in, "loan", "financed with a loan", s->financing == GP_LOAN, "0/1", scen);
    input(&b, &in, "loan_fraction", "loan share of capex", s->loan_fraction, "0..1", scen);
    input(&b, &in, "loan_apr", "loan APR", s->loan_apr, "a year", scen);
    input(&b, &in, "loan_term", "loan term", s->loan_term_months, "months", scen);
    input(&b, &in, "depreciation_years", "depreciation (informational)", s->depreciation_years,
          "years", scen);
    int ph[GP_MAX_PERIODS], pp[GP_MAX_PERIODS];
    for (int k = 0; k < s->n_periods; k++) {
        char label[GP_NAME_BYTES + 32];
        snprintf(label, sizeof label, "tariff %s: hours a day", s->periods[k].name);
        ph[k] = input(&b, &in, NULL, label, s->periods[k].hours_per_day, "h", scen);
        snprintf(label, sizeof label, "tariff %s: price", s->periods[k].name);
        pp[k] = input(&b, &in, NULL, label, s->periods[k].price_per_kwh, "per kWh", scen);
    }
    enum {
        O_HOURLY,
        O_G,
        O_UPFRONT,
        O_TERM,
        O_IDLE,
        O_LAMBDA,
        O_CKPT,
        O_RESTART,
        O_STOR_GB,
        O_STOR_RATE,
        O_EGRESS_GB,
        O_EGRESS_RATE,
        O_SUPPORT,
        O_N
    };
    int orow[GP_MAX_OPTIONS][O_N];
    for (int i = 0; i < no; i++) {
        const gp_option *o = &s->options[i];
        static const char *const what[O_N] = {"hourly",
                                              "GPUs an instance",
                                              "upfront per instance per term",
                                              "term",
                                              "idle overhead",
                                              "interruptions an hour",
                                              "checkpoint interval",
                                              "restart time",
                                              "storage GB",
                                              "storage price",
                                              "egress GB a month",
                                              "egress price",
                                              "support"};
        static const char *const units[O_N] = {
            "per instance-hour", "GPUs", "",       "months",    "x", "/h", "h", "h", "GB",
            "per GB-month",      "GB",   "per GB", "of compute"};
        double v[O_N] = {o->hourly,
                         o->gpus_per_instance,
                         o->upfront,
                         o->term_months,
                         o->idle_overhead,
                         o->interruptions_per_hour,
                         o->checkpoint_interval_h,
                         o->restart_h,
                         o->storage_gb,
                         o->storage_per_gb_month,
                         o->egress_gb_per_month,
                         o->egress_per_gb,
                         o->support_pct};
        const char *source = "scenario";
        for (int k = 0; meta && k < meta->n_sources; k++)
            if (!strcmp(meta->sources[k].option, o->name))
                source = "catalog (see Sources)";
        for (int f = 0; f < O_N; f++) {
            char label[GP_NAME_BYTES + 48];
            snprintf(label, sizeof label, "%s: %s", o->name, what[f]);
            orow[i][f] = input(&b, &in, NULL, label, v[f], units[f], f == O_HOURLY ? source : scen);
        }
    }
    worksheet_set_column(as, 0, 0, 48, NULL);
    worksheet_set_column(as, 1, 1, 16, NULL);
    worksheet_set_column(as, 2, 3, 22, NULL);
    worksheet_freeze_panes(as, 1, 0);

    /* Self-hosted: derived figures. */
    const gp_self_result *sr = &r->self;
    int row = 0;
    text_cell(&b, sh, row++, 0, "Self-hosted: derived figures", b.bold);
    int r_servers = row++, r_hw = row++, r_capex = row++, r_base = row++, r_inc = row++,
        r_busy = row++;
    text_cell(&b, sh, r_servers, 0, "servers", NULL);
    formula(&b, sh, r_servers, 1, sr->servers, NULL, "=ROUNDUP(gpus/gpus_per_server,0)");
    text_cell(&b, sh, r_hw, 0, "hardware capex", NULL);
    formula(&b, sh, r_hw, 1, sr->hardware_capex, b.money,
            "=B%d*server_price*price_factor*(1-bulk_discount)+B%d*network_per_server",
            r_servers + 1, r_servers + 1);
    text_cell(&b, sh, r_capex, 0, "capex", NULL);
    formula(&b, sh, r_capex, 1, sr->capex, b.money, "=B%d+fixed_capex", r_hw + 1);
    double base_w = sr->servers * s->server_base_w +
                    s->gpus * (s->has_gpu_avg_w ? s->gpu_avg_w : s->gpu_idle_w);
    double inc_w = s->has_gpu_avg_w ? 0 : s->gpu_tdp_w - s->gpu_idle_w;
    double busy = 24.0 * s->gpus * s->utilization;
    text_cell(&b, sh, r_base, 0, "base load W (around the clock)", NULL);
    formula(&b, sh, r_base, 1, base_w, b.num,
            "=B%d*server_base_w+gpus*IF(has_gpu_avg=1,gpu_avg_w,gpu_idle_w)", r_servers + 1);
    text_cell(&b, sh, r_inc, 0, "busy increment W a GPU", NULL);
    formula(&b, sh, r_inc, 1, inc_w, b.num, "=IF(has_gpu_avg=1,0,gpu_tdp_w-gpu_idle_w)");
    text_cell(&b, sh, r_busy, 0, "busy GPU-hours a day", NULL);
    formula(&b, sh, r_busy, 1, busy, b.num, "=24*gpus*utilization");
    /* Periods in the engine's fill order for shifting (cheapest first, ties as given). */
    int order[GP_MAX_PERIODS];
    gp_model_fill_order(s, order);
    int r_y[GP_MAX_PERIODS], r_e[GP_MAX_PERIODS];
    double yv[GP_MAX_PERIODS], ev[GP_MAX_PERIODS];
    char before[2048] = "0";
    double before_h = 0;
    for (int i = 0; i < s->n_periods; i++) {
        int k = order[i];
        char hk[64];
        ref(hk, sizeof hk, "Assumptions", ph[k], 1);
        r_y[k] = row++;
        double room = s->gpus * s->periods[k].hours_per_day;
        double left = busy - s->gpus * before_h;
        yv[k] = s->has_gpu_avg_w       ? 0
                : s->shift_to_cheapest ? fmin(room, fmax(0, left))
                                       : busy * s->periods[k].hours_per_day / 24;
        char label[GP_NAME_BYTES + 40];
        snprintf(label, sizeof label, "busy GPU-hours in %s", s->periods[k].name);
        text_cell(&b, sh, r_y[k], 0, label, NULL);
        formula(&b, sh, r_y[k], 1, yv[k], b.num,
                "=IF(has_gpu_avg=1,0,IF(shift=1,MIN(gpus*%s,MAX(0,B%d-gpus*(%s))),B%d*%s/24))", hk,
                r_busy + 1, before, r_busy + 1, hk);
        size_t bl = strlen(before);
        snprintf(before + bl, sizeof before - bl, "+%s", hk);
        before_h += s->periods[k].hours_per_day;
    }
    double cost = 0, kwh = 0;
    char sumprod[4096] = "0", sume[2048] = "0";
    for (int k = 0; k < s->n_periods; k++) {
        char hk[64], pk[64];
        ref(hk, sizeof hk, "Assumptions", ph[k], 1);
        ref(pk, sizeof pk, "Assumptions", pp[k], 1);
        r_e[k] = row++;
        ev[k] = (base_w * s->periods[k].hours_per_day + inc_w * yv[k]) / 1000;
        cost += ev[k] * s->periods[k].price_per_kwh;
        kwh += ev[k];
        char label[GP_NAME_BYTES + 40];
        snprintf(label, sizeof label, "IT kWh a day in %s", s->periods[k].name);
        text_cell(&b, sh, r_e[k], 0, label, NULL);
        formula(&b, sh, r_e[k], 1, ev[k], b.num, "=(B%d*%s+B%d*B%d)/1000", r_base + 1, hk,
                r_inc + 1, r_y[k] + 1);
        size_t n1 = strlen(sumprod), n2 = strlen(sume);
        snprintf(sumprod + n1, sizeof sumprod - n1, "+B%d*%s", r_e[k] + 1, pk);
        snprintf(sume + n2, sizeof sume - n2, "+B%d", r_e[k] + 1);
    }
    int r_power = row++, r_energy = row++, r_peak = row++, r_colo = row++, r_dem = row++,
        r_maint = row++, r_principal = row++, r_pay = row++, r_payoff = row++, r_resid = row++;
    text_cell(&b, sh, r_power, 0, "power a month", NULL);
    formula(&b, sh, r_power, 1, sr->power_per_month, b.money, "=pue*(%s)*730/24", sumprod);
    text_cell(&b, sh, r_energy, 0, "facility kWh a month", NULL);
    formula(&b, sh, r_energy, 1, s->pue * kwh * 730 / 24, b.num, "=pue*(%s)*730/24", sume);
    text_cell(&b, sh, r_peak, 0, "peak IT kW", NULL);
    formula(&b, sh, r_peak, 1, sr->peak_it_kw, b.num,
            "=(B%d*server_base_w+gpus*MAX(gpu_tdp_w,IF(has_gpu_avg=1,gpu_avg_w,0)))/1000",
            r_servers + 1);
    text_cell(&b, sh, r_colo, 0, "colocation a month", NULL);
    formula(&b, sh, r_colo, 1, sr->colo_per_month, b.money, "=colo_per_kw_month*B%d", r_peak + 1);
    text_cell(&b, sh, r_dem, 0, "demand charge a month", NULL);
    formula(&b, sh, r_dem, 1, sr->demand_charge_per_month, b.money, "=demand_charge*B%d*pue",
            r_peak + 1);
    double maint = s->maintenance_pct_per_year * sr->hardware_capex / 12;
    text_cell(&b, sh, r_maint, 0, "maintenance a month after warranty", NULL);
    formula(&b, sh, r_maint, 1, maint, b.money, "=maintenance_pct*B%d/12", r_hw + 1);
    text_cell(&b, sh, r_principal, 0, "loan principal", NULL);
    formula(&b, sh, r_principal, 1, sr->loan_principal, b.money, "=IF(loan=1,B%d*loan_fraction,0)",
            r_capex + 1);
    text_cell(&b, sh, r_pay, 0, "loan payment a month", NULL);
    formula(&b, sh, r_pay, 1, sr->loan_payment, b.money,
            "=IF(loan=1,IF(loan_apr=0,B%d/loan_term,B%d*(loan_apr/12)/(1-(1+loan_apr/"
            "12)^(-loan_term))),0)",
            r_principal + 1, r_principal + 1);
    double payoff = 0;
    if (s->financing == GP_LOAN && s->loan_term_months > M) {
        double rr = s->loan_apr / 12, L = sr->loan_principal, A = sr->loan_payment;
        payoff = rr == 0 ? L - A * M : L * pow(1 + rr, M) - A * (pow(1 + rr, M) - 1) / rr;
    }
    text_cell(&b, sh, r_payoff, 0, "balance paid at the horizon", NULL);
    formula(&b, sh, r_payoff, 1, payoff, b.money,
            "=IF(AND(loan=1,loan_term>horizon_months),IF(loan_apr=0,B%d-B%d*horizon_months,"
            "B%d*(1+loan_apr/12)^horizon_months-B%d*((1+loan_apr/12)^horizon_months-1)/(loan_apr/"
            "12)),0)",
            r_principal + 1, r_pay + 1, r_principal + 1, r_pay + 1);
    text_cell(&b, sh, r_resid, 0, "residual value recovered", NULL);
    formula(&b, sh, r_resid, 1, s->residual_pct * sr->hardware_capex, b.money, "=residual_pct*B%d",
            r_hw + 1);

    /* Self-hosted: one row a month. */
    row++;
    static const char *const heads[] = {"month",         "capex",       "power",    "colocation",
                                        "demand charge", "maintenance", "staff",    "other",
                                        "loan payment",  "loan payoff", "residual", "total",
                                        "cumulative",    "discounted"};
    int r_head = row++;
    for (int c = 0; c < 14; c++)
        text_cell(&b, sh, r_head, c, heads[c], b.bold);
    int r_m0 = row;
    double cum = 0;
    for (int m = 0; m <= M; m++, row++) {
        int R = row + 1;
        num_cell(&b, sh, row, 0, m, NULL);
        bool first = m == 0;
        double v_capex = first ? sr->monthly[0] : 0;
        double v_maint = !first && m > s->warranty_months ? maint : 0;
        double v_pay =
            !first && s->financing == GP_LOAN && m <= s->loan_term_months ? sr->loan_payment : 0;
        double v_payoff = m == M ? payoff : 0,
               v_res = m == M ? -s->residual_pct * sr->hardware_capex : 0;
        if (first)
            formula(&b, sh, row, 1, v_capex, b.money, "=IF(loan=1,B%d*(1-loan_fraction),B%d)",
                    r_capex + 1, r_capex + 1);
        else
            num_cell(&b, sh, row, 1, 0, b.money);
        formula(&b, sh, row, 2, first ? 0 : sr->power_per_month, b.money, "=IF(A%d=0,0,$B$%d)", R,
                r_power + 1);
        formula(&b, sh, row, 3, first ? 0 : sr->colo_per_month, b.money, "=IF(A%d=0,0,$B$%d)", R,
                r_colo + 1);
        formula(&b, sh, row, 4, first ? 0 : sr->demand_charge_per_month, b.money,
                "=IF(A%d=0,0,$B$%d)", R, r_dem + 1);
        formula(&b, sh, row, 5, v_maint, b.money, "=IF(AND(A%d>0,A%d>warranty_months),$B$%d,0)", R,
                R, r_maint + 1);
        formula(&b, sh, row, 6, first ? 0 : s->staff_per_month, b.money,
                "=IF(A%d=0,0,staff_per_month)", R);
        formula(&b, sh, row, 7, first ? 0 : s->other_per_month, b.money,
                "=IF(A%d=0,0,other_per_month)", R);
        formula(&b, sh, row, 8, v_pay, b.money, "=IF(AND(A%d>0,loan=1,A%d<=loan_term),$B$%d,0)", R,
                R, r_pay + 1);
        formula(&b, sh, row, 9, v_payoff, b.money, "=IF(A%d=horizon_months,$B$%d,0)", R,
                r_payoff + 1);
        formula(&b, sh, row, 10, v_res, b.money, "=IF(A%d=horizon_months,-$B$%d,0)", R,
                r_resid + 1);
        cum += sr->monthly[m];
        formula(&b, sh, row, 11, sr->monthly[m], b.money, "=SUM(B%d:K%d)", R, R);
        if (first)
            formula(&b, sh, row, 12, cum, b.money, "=L%d", R);
        else
            formula(&b, sh, row, 12, cum, b.money, "=M%d+L%d", R - 1, R);
        formula(&b, sh, row, 13, sr->monthly[m] / pow(1 + s->discount_rate, m / 12.0), b.money,
                "=L%d/(1+discount_rate)^(A%d/12)", R, R);
    }
    int r_mend = row - 1;
    int r_tot = row++;
    text_cell(&b, sh, r_tot, 0, "total", b.bold);
    for (int c = 1; c <= 11; c++) {
        char cn[8];
        col_name(c, cn);
        double v = 0;
        const gp_breakdown *bd = &sr->breakdown;
        double vals[] = {0,
                         bd->capex * (s->financing == GP_LOAN ? 1 - s->loan_fraction : 1),
                         bd->power,
                         bd->colo,
                         bd->demand_charge,
                         bd->maintenance,
                         bd->staff,
                         bd->other,
                         sr->loan_payment *
                             (s->financing == GP_LOAN ? fmin(s->loan_term_months, M) : 0),
                         payoff,
                         bd->residual,
                         sr->total};
        v = vals[c];
        formula(&b, sh, r_tot, c, v, b.money, "=SUM(%s%d:%s%d)", cn, r_m0 + 1, cn, r_mend + 1);
    }
    text_cell(&b, sh, r_tot + 1, 0, "NPV", b.bold);
    formula(&b, sh, r_tot + 1, 11, sr->npv, b.money, "=SUM(N%d:N%d)", r_m0 + 1, r_mend + 1);
    worksheet_set_column(sh, 0, 0, 40, NULL);
    worksheet_set_column(sh, 1, 13, 15, NULL);
    worksheet_freeze_panes(sh, r_head + 1, 1);
    worksheet_set_landscape(sh);
    worksheet_fit_to_pages(sh, 1, 0);
    worksheet_repeat_rows(sh, (lxw_row_t)r_head, (lxw_row_t)r_head);
    char self_total[64], self_npv[64];
    ref(self_total, sizeof self_total, "Self-hosted", r_tot, 11);
    ref(self_npv, sizeof self_npv, "Self-hosted", r_tot + 1, 11);

    /* Cloud: derived rows, then one row a month, one column an option. */
    enum { C_INST, C_Q, C_IH, C_COMPUTE, C_RECUR, C_EXTRAS, C_UPFRONT, C_AFTER, C_N };
    static const char *const clabels[C_N] = {"instances for full coverage",
                                             "busy GPU-hours a month",
                                             "instance-hours a month",
                                             "compute a month",
                                             "with support",
                                             "storage and egress a month",
                                             "upfront (all instances) per term",
                                             "months owed after the horizon"};
    /* Written row by row, left to right: constant-memory mode flushes each row as the next
     * one starts. */
    typedef struct cloud_col {
        char cn[8], h[O_N][64];
        double q, recurring, extras;
        bool committed;
        int after;
    } cloud_col;
    cloud_col *cc = gp_xmalloc(sizeof *cc * (size_t)(no > 0 ? no : 1));
    for (int i = 0; i < no; i++) {
        const gp_option *o = &s->options[i];
        const gp_option_result *orr = &r->options[i];
        cloud_col *c = &cc[i];
        col_name(1 + i, c->cn);
        for (int f = 0; f < O_N; f++)
            ref(c->h[f], sizeof c->h[f], "Assumptions", orow[i][f], 1);
        c->q = s->gpus * 730.0 * s->utilization;
        c->recurring = orr->instance_hours_per_month * o->hourly * (1 + o->support_pct);
        c->extras =
            o->storage_gb * o->storage_per_gb_month + o->egress_gb_per_month * o->egress_per_gb;
        c->committed = o->pricing == GP_COMMITTED;
        int T = o->term_months;
        int inside = c->committed ? (M - 1) / T : 0;
        c->after = c->committed && inside * T + T > M ? inside * T + T - M : 0;
    }
    int c_head = 1 + C_N + 1, c_m0 = c_head + 1, c_tot = c_m0 + M + 1;
    text_cell(&b, cl, 0, 0, "option", b.bold);
    for (int i = 0; i < no; i++)
        text_cell(&b, cl, 0, 1 + i, s->options[i].name, b.bold);
    for (int k = 0; k < C_N; k++) {
        int row_k = 1 + k;
        text_cell(&b, cl, row_k, 0, clabels[k], NULL);
        for (int i = 0; i < no; i++) {
            const gp_option *o = &s->options[i];
            const gp_option_result *orr = &r->options[i];
            const cloud_col *c = &cc[i];
            const char *cn = c->cn;
            int col = 1 + i;
            switch (k) {
            case C_INST:
                formula(&b, cl, row_k, col, orr->instances, NULL, "=ROUNDUP(gpus/%s,0)", c->h[O_G]);
                break;
            case C_Q:
                formula(&b, cl, row_k, col, c->q, b.num, "=gpus*730*utilization");
                break;
            case C_IH:
                if (o->pricing == GP_ON_DEMAND)
                    formula(&b, cl, row_k, col, orr->instance_hours_per_month, b.num,
                            "=%s%d/%s*(1+%s)", cn, 2 + C_Q, c->h[O_G], c->h[O_IDLE]);
                else if (o->pricing == GP_SPOT)
                    formula(&b, cl, row_k, col, orr->instance_hours_per_month, b.num,
                            "=%s%d/%s*(1+%s)*(1+%s*(%s/2+%s))", cn, 2 + C_Q, c->h[O_G],
                            c->h[O_IDLE], c->h[O_LAMBDA], c->h[O_CKPT], c->h[O_RESTART]);
                else
                    formula(&b, cl, row_k, col, orr->instance_hours_per_month, b.num, "=%s%d*730",
                            cn, 2 + C_INST);
                break;
            case C_COMPUTE:
                formula(&b, cl, row_k, col, orr->instance_hours_per_month * o->hourly, b.money,
                        "=%s%d*%s", cn, 2 + C_IH, c->h[O_HOURLY]);
                break;
            case C_RECUR:
                formula(&b, cl, row_k, col, c->recurring, b.money, "=%s%d*(1+%s)", cn,
                        2 + C_COMPUTE, c->h[O_SUPPORT]);
                break;
            case C_EXTRAS:
                formula(&b, cl, row_k, col, c->extras, b.money, "=%s*%s+%s*%s", c->h[O_STOR_GB],
                        c->h[O_STOR_RATE], c->h[O_EGRESS_GB], c->h[O_EGRESS_RATE]);
                break;
            case C_UPFRONT:
                formula(&b, cl, row_k, col, c->committed ? orr->instances * o->upfront : 0, b.money,
                        c->committed ? "=%s%d*%s" : "=0*%s%d*%s", cn, 2 + C_INST, c->h[O_UPFRONT]);
                break;
            default: /* C_AFTER */
                if (c->committed)
                    formula(&b, cl, row_k, col, c->after, b.num,
                            "=MAX(0,INT((horizon_months-1)/%s)*%s+%s-horizon_months)", c->h[O_TERM],
                            c->h[O_TERM], c->h[O_TERM]);
                else
                    num_cell(&b, cl, row_k, col, 0, b.num);
                break;
            }
        }
    }
    text_cell(&b, cl, c_head, 0, "month", b.bold);
    for (int m = 0; m <= M; m++) {
        int R = c_m0 + m + 1;
        num_cell(&b, cl, c_m0 + m, 0, m, NULL);
        for (int i = 0; i < no; i++) {
            const cloud_col *c = &cc[i];
            const char *cn = c->cn;
            double v = r->options[i].monthly[m];
            if (c->committed)
                formula(&b, cl, c_m0 + m, 1 + i, v, b.money,
                        "=IF($A%d=0,%s$%d,%s$%d+%s$%d+IF(AND(MOD($A%d,%s)=0,$A%d<horizon_months),"
                        "%s$%d,0)+IF($A%d=horizon_months,%s$%d*%s$%d,0))",
                        R, cn, 2 + C_UPFRONT, cn, 2 + C_RECUR, cn, 2 + C_EXTRAS, R, c->h[O_TERM], R,
                        cn, 2 + C_UPFRONT, R, cn, 2 + C_AFTER, cn, 2 + C_RECUR);
            else
                formula(&b, cl, c_m0 + m, 1 + i, v, b.money, "=IF($A%d=0,0,%s$%d+%s$%d)", R, cn,
                        2 + C_RECUR, cn, 2 + C_EXTRAS);
        }
    }
    text_cell(&b, cl, c_tot, 0, "total", b.bold);
    for (int i = 0; i < no; i++)
        formula(&b, cl, c_tot, 1 + i, r->options[i].total, b.money, "=SUM(%s%d:%s%d)", cc[i].cn,
                c_m0 + 1, cc[i].cn, c_m0 + M + 1);
    text_cell(&b, cl, c_tot + 1, 0, "NPV", b.bold);
    for (int i = 0; i < no; i++) {
        const char *cn = cc[i].cn;
        formula(&b, cl, c_tot + 1, 1 + i, r->options[i].npv, b.money,
                "=SUMPRODUCT(%s%d:%s%d/(1+discount_rate)^($A%d:$A%d/12))", cn, c_m0 + 1, cn,
                c_m0 + M + 1, c_m0 + 1, c_m0 + M + 1);
    }
    free(cc);
    worksheet_set_column(cl, 0, 0, 34, NULL);
    worksheet_set_column(cl, 1, (lxw_col_t)(no > 0 ? no : 1), 18, NULL);
    worksheet_freeze_panes(cl, 1, 1);
    worksheet_set_landscape(cl);
    worksheet_fit_to_pages(cl, 1, 0);

    /* Break-even: cumulative series and a line chart. */
    text_cell(&b, be, 0, 0, "month", b.bold);
    text_cell(&b, be, 0, 1, "self-hosted", b.bold);
    for (int i = 0; i < no; i++)
        text_cell(&b, be, 0, 2 + i, s->options[i].name, b.bold);
    double ccum[GP_MAX_OPTIONS] = {0};
    cum = 0;
    for (int m = 0; m <= M; m++) {
        int R = m + 2;
        num_cell(&b, be, m + 1, 0, m, NULL);
        cum += sr->monthly[m];
        formula(&b, be, m + 1, 1, cum, b.money, "='Self-hosted'!M%d", r_m0 + m + 1);
        for (int i = 0; i < no; i++) {
            char cn[8];
            col_name(1 + i, cn);
            ccum[i] += r->options[i].monthly[m];
            char mine[8];
            col_name(2 + i, mine);
            if (m == 0)
                formula(&b, be, m + 1, 2 + i, ccum[i], b.money, "=Cloud!%s%d", cn, c_m0 + 1);
            else
                formula(&b, be, m + 1, 2 + i, ccum[i], b.money, "=%s%d+Cloud!%s%d", mine, R - 1, cn,
                        c_m0 + m + 1);
        }
    }
    lxw_chart *chart = cumulative_chart(&b, "Cumulative cost", M, no);
    chart_axis_set_name(chart->x_axis, "month");
    chart_axis_set_name(chart->y_axis, s->currency);
    worksheet_insert_chart(be, 1, (lxw_col_t)(3 + no), chart);
    worksheet_freeze_panes(be, 1, 1);
    worksheet_set_column(be, 1, (lxw_col_t)(1 + no), 18, NULL);

    /* Summary. */
    text_cell(&b, sum, 0, 0, s->name, b.bold);
    text_cell(&b, sum, 1, 0, "cheapest", NULL);
    /* A formula, so edits to the assumptions can change the answer; MATCH takes the first
     * minimum, as the engine keeps self-hosted (row 7) on a tie. */
    char cheapest_f[128];
    snprintf(cheapest_f, sizeof cheapest_f,
             "=INDEX($A$7:$A$%d,MATCH(MIN($B$7:$B$%d),$B$7:$B$%d,0))", 7 + no, 7 + no, 7 + no);
    char cheapest[GP_NAME_BYTES];
    gp_text_clean(r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name, cheapest,
                  sizeof cheapest);
    lxw_error ce = worksheet_write_formula_str(sum, 1, 1, cheapest_f, b.bold, cheapest);
    if (ce && !b.rc)
        b.rc = ce;
    text_cell(&b, sum, 2, 0, "busy share of GPU-hours", NULL);
    formula(&b, sum, 2, 1, s->utilization, b.pct, "=utilization");
    text_cell(&b, sum, 3, 0, "busy hours a year per GPU", NULL);
    formula(&b, sum, 3, 1, s->utilization * 8760, b.num, "=utilization*8760");
    static const char *const sh_heads[] = {
        "option", "total", "NPV", "per GPU-hour", "option - self-hosted", "break-even month"};
    for (int c = 0; c < 6; c++)
        text_cell(&b, sum, 5, c, sh_heads[c], b.bold);
    text_cell(&b, sum, 6, 0, "self-hosted", NULL);
    formula(&b, sum, 6, 1, sr->total, b.money, "=%s", self_total);
    formula(&b, sum, 6, 2, sr->npv, b.money, "=%s", self_npv);
    double dg = r->demand_gpu_hours;
    formula(&b, sum, 6, 3, dg > 0 ? sr->total / dg : 0, b.money,
            "=IF(utilization=0,0,B7/(gpus*730*utilization*horizon_months))");
    for (int i = 0; i < no; i++) {
        int R = 7 + i;
        char cn[8];
        col_name(1 + i, cn);
        text_cell(&b, sum, R, 0, s->options[i].name, NULL);
        formula(&b, sum, R, 1, r->options[i].total, b.money, "=Cloud!%s%d", cn, c_tot + 1);
        formula(&b, sum, R, 2, r->options[i].npv, b.money, "=Cloud!%s%d", cn, c_tot + 2);
        formula(&b, sum, R, 3, dg > 0 ? r->options[i].total / dg : 0, b.money,
                "=IF(utilization=0,0,B%d/(gpus*730*utilization*horizon_months))", R + 1);
        formula(&b, sum, R, 4, r->options[i].total - sr->total, b.money, "=B%d-$B$7", R + 1);
        /* The first month-end at which cumulative self-hosted <= cumulative option. */
        char bc[8];
        col_name(2 + i, bc);
        double bem = r->options[i].has_break_even_month ? r->options[i].break_even_month : -1;
        formula(
            &b, sum, R, 5, bem, b.num,
            "=IFERROR(MATCH(1,INDEX(('Break-even'!$B$2:$B$%d<='Break-even'!%s2:%s%d)*1,0),0)-1,-1)",
            M + 2, bc, bc, M + 2);
    }
    worksheet_set_column(sum, 0, 0, 36, NULL);
    worksheet_set_column(sum, 1, 5, 20, NULL);
    text_cell(&b, sum, 8 + no, 0, "break-even month -1: never within the horizon", NULL);
    worksheet_insert_chart(sum, (lxw_row_t)(10 + no), 0,
                           cumulative_chart(&b, "Cumulative cost by month", M, no));

    /* BOM. */
    static const char *const bh[] = {"item", "quantity", "unit price", "discount", "extended"};
    for (int c = 0; c < 5; c++)
        text_cell(&b, bom, 0, c, bh[c], b.bold);
    char srv[64];
    ref(srv, sizeof srv, "Self-hosted", r_servers, 1);
    text_cell(&b, bom, 1, 0, "GPU servers", NULL);
    formula(&b, bom, 1, 1, sr->servers, NULL, "=%s", srv);
    formula(&b, bom, 1, 2, s->server_price * s->price_factor, b.money,
            "=server_price*price_factor");
    formula(&b, bom, 1, 3, sr->bulk_pct, b.pct, "=bulk_discount");
    formula(&b, bom, 1, 4, sr->servers * s->server_price * s->price_factor * (1 - sr->bulk_pct),
            b.money, "=B2*C2*(1-D2)");
    text_cell(&b, bom, 2, 0, "network per server", NULL);
    formula(&b, bom, 2, 1, sr->servers, NULL, "=%s", srv);
    formula(&b, bom, 2, 2, s->network_per_server, b.money, "=network_per_server");
    num_cell(&b, bom, 2, 3, 0, b.pct);
    formula(&b, bom, 2, 4, sr->servers * s->network_per_server, b.money, "=B3*C3*(1-D3)");
    text_cell(&b, bom, 3, 0, "fixed capex (install, racks)", NULL);
    num_cell(&b, bom, 3, 1, 1, NULL);
    formula(&b, bom, 3, 2, s->fixed_capex, b.money, "=fixed_capex");
    num_cell(&b, bom, 3, 3, 0, b.pct);
    formula(&b, bom, 3, 4, s->fixed_capex, b.money, "=B4*C4*(1-D4)");
    text_cell(&b, bom, 4, 0, "total", b.bold);
    formula(&b, bom, 4, 4, sr->capex, b.money, "=SUM(E2:E4)");
    worksheet_set_column(bom, 0, 0, 32, NULL);
    worksheet_set_column(bom, 1, 4, 16, NULL);
    worksheet_autofilter(bom, 0, 0, 3, 4);
    worksheet_freeze_panes(bom, 1, 0);

    if (tw)
        telemetry_sheet(&b, tw, tel);

    /* Sources. */
    int sr_row = 0;
    text_cell(&b, src, sr_row, 0, "gpuplan", b.bold);
    text_cell(&b, src, sr_row++, 1, meta && meta->version ? meta->version : "", NULL);
    text_cell(&b, src, sr_row, 0, "cost model", b.bold);
    num_cell(&b, src, sr_row++, 1, GP_MODEL_VERSION, NULL);
    text_cell(&b, src, sr_row, 0, "prices as of", b.bold);
    text_cell(&b, src, sr_row++, 1, meta && meta->as_of ? meta->as_of : "", NULL);
    sr_row++;
    static const char *const sh2[] = {"option", "catalog entry",  "pricing",
                                      "hourly", "effective from", "source"};
    for (int c = 0; c < 6; c++)
        text_cell(&b, src, sr_row, c, sh2[c], b.bold);
    sr_row++;
    for (int k = 0; meta && k < meta->n_sources; k++, sr_row++) {
        const gp_price_source *ps = &meta->sources[k];
        text_cell(&b, src, sr_row, 0, ps->option, NULL);
        text_cell(&b, src, sr_row, 1, ps->catalog, NULL);
        text_cell(&b, src, sr_row, 2, gp_pricing_name(ps->pricing), NULL);
        num_cell(&b, src, sr_row, 3, ps->hourly, b.num);
        text_cell(&b, src, sr_row, 4, ps->effective_from, NULL);
        text_cell(&b, src, sr_row, 5, ps->source, NULL);
    }
    sr_row++;
    text_cell(&b, src, sr_row++, 0, "scenario JSON", b.bold);
    char *json = meta && meta->scenario_json ? cJSON_PrintUnformatted(meta->scenario_json) : NULL;
    /* Chunks end on a character boundary, so the sanitiser has no half character to replace. */
    for (size_t off = 0, n = json ? strlen(json) : 0, k; off < n; off += k, sr_row++) {
        k = gp_text_utf8_cut(json + off, n - off < 4000 ? n - off : 4000);
        if (k == 0)
            k = 1; /* invalid UTF-8 at the start: let the sanitiser replace that byte */
        char raw[4001], chunk[4001];
        memcpy(raw, json + off, k);
        raw[k] = '\0';
        gp_text_clean(raw, chunk, sizeof chunk);
        lxw_error e = worksheet_write_string(src, (lxw_row_t)sr_row, 0, chunk, NULL);
        if (e && !b.rc)
            b.rc = e;
    }
    free(json);
    worksheet_set_column(src, 0, 0, 30, NULL);
    worksheet_set_column(src, 1, 5, 24, NULL);

    char title[GP_NAME_BYTES];
    gp_text_clean(s->name, title, sizeof title);
    lxw_doc_properties props = {0};
    props.title = title;
    props.subject = "GPU own-or-rent plan";
    props.author = "gpuplan";
    props.comments = "Edit the Assumptions sheet; every other sheet recalculates.";
    workbook_set_properties(b.wb, &props);
    lxw_error rc = workbook_close(b.wb);
    return b.rc ? b.rc : rc;
}

/* libxlsxwriter reports a failure on stderr itself ("[ERROR] workbook_close(): ...") before it
 * returns the code, and a library must not print (STYLE E1). While it runs, fd 2 points at a
 * scratch file; the system error it names is folded into gpuplan's one line. The TUI writes
 * nothing to stderr while curses owns the terminal, so nothing else is caught in between. */
typedef struct quiet {
    int saved;
    FILE *scratch;
} quiet;

static void quiet_begin(quiet *q) {
    fflush(stderr);
    q->saved = -1;
    q->scratch = tmpfile();
    if (!q->scratch)
        return; /* no scratch file: libxlsxwriter's lines go through, nothing is lost */
    q->saved = dup(STDERR_FILENO);
    if (q->saved < 0 || dup2(fileno(q->scratch), STDERR_FILENO) < 0) {
        if (q->saved >= 0)
            close(q->saved);
        q->saved = -1;
    }
}

/* Restore fd 2; said gets what follows "System error = " in what libxlsxwriter printed. */
static void quiet_end(quiet *q, char *said, size_t cap) {
    said[0] = '\0';
    fflush(stderr);
    if (q->saved >= 0) {
        dup2(q->saved, STDERR_FILENO);
        close(q->saved);
    }
    if (!q->scratch)
        return;
    char text[2048];
    rewind(q->scratch);
    size_t n = fread(text, 1, sizeof text - 1, q->scratch);
    text[n] = '\0';
    fclose(q->scratch);
    const char *sys = strstr(text, "System error = ");
    if (sys) {
        sys += strlen("System error = ");
        snprintf(said, cap, "%.*s", (int)strcspn(sys, "\r\n"), sys);
    }
}

gp_status gp_report_xlsx(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         const gp_xlsx_telemetry *tel, const char *path, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    /* The sheets' formulas are version 1's steady state: a plan over time would get numbers
     * that are not its own. */
    if (gp_scenario_uses_v2(s))
        return gp_errorf(err, GP_E_INPUT, "$",
                         "the workbook lays out version 1 scenarios; this one plans over time "
                         "(use --format md, csv or json)");
    /* libxlsxwriter writes by name: a temporary file that gp_output then publishes, so -o keeps
     * its meaning (stdout, a device written in place, a regular file replaced atomically). */
    gp_output out;
    if (gp_output_open_named(&out, path, err))
        return err->code;
    quiet q;
    quiet_begin(&q);
    lxw_error rc = write_book(s, r, meta, tel, out.tmp);
    char said[160];
    quiet_end(&q, said, sizeof said);
    if (rc) {
        gp_output_abort(&out);
        return gp_errorf(err, GP_E_IO, path ? path : "-", "cannot write the workbook: %s%s%s%s",
                         lxw_strerror(rc), said[0] ? " (" : "", said, said[0] ? ")" : "");
    }
    return gp_output_commit(&out, err);
}
