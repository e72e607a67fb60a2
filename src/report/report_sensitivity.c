/* The sensitivity report: the one-screen tornado of the cheapest decision, the full table,
 * and the JSON and CSV of every row (report_sensitivity.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/report.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_sensitivity.h"
#include "gpuplan/text.h"

/* Append printf-style text unless an earlier append already failed. */
#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

enum { END_BASE, END_LOW, END_HIGH };

/* The total of side k (-1: self-hosted, else option k) at an end of row (NULL: the base). */
static double side_total(const gp_sensitivity *t, const gp_sens_row *row, int end, int k) {
    double self = end == END_BASE ? t->self_base : end == END_LOW ? row->self_low : row->self_high;
    if (k < 0)
        return self;
    double d = end == END_BASE ? 0 : end == END_LOW ? row->delta_low[k] : row->delta_high[k];
    return self + t->base_diff[k] + d;
}

/* The cheapest side at an end: the lowest total, self-hosted first on ties (docs/model.md). */
static int cheapest(const gp_sensitivity *t, const gp_sens_row *row, int end) {
    int best = -1;
    double low = side_total(t, row, end, -1);
    for (int k = 0; k < t->n_options; k++) {
        double v = side_total(t, row, end, k);
        if (v < low) {
            low = v;
            best = k;
        }
    }
    return best;
}

/* The lead of side w over the best other side at an end: positive while w is cheapest. */
static double lead(const gp_sensitivity *t, const gp_sens_row *row, int end, int w) {
    double rival = INFINITY;
    for (int k = -1; k < t->n_options; k++)
        if (k != w && side_total(t, row, end, k) < rival)
            rival = side_total(t, row, end, k);
    return rival - side_total(t, row, end, w);
}

static const char *side_name(const gp_scenario *s, int k) {
    return k < 0 ? "self-hosted" : s->options[k].name;
}

/* The owner of a row's input as a reader names it: the option, the tariff period, or the
 * section of the scenario. */
static void owner_name(const gp_scenario *s, const gp_sens_row *row, char *out, size_t cap) {
    if (row->option >= 0)
        snprintf(out, cap, "%s", s->options[row->option].name);
    else if (row->period >= 0)
        snprintf(out, cap, "tariff period %s", s->periods[row->period].name);
    else if (strncmp(row->input, "self_hosted.", 12) == 0)
        snprintf(out, cap, "self-hosted");
    else if (strncmp(row->input, "demand.", 7) == 0)
        snprintf(out, cap, "demand");
    else
        snprintf(out, cap, "scenario");
}

static void month(char *out, size_t cap, bool has, int m) {
    if (has)
        snprintf(out, cap, "%d", m);
    else
        snprintf(out, cap, "never");
}

static gp_status option_table(const gp_scenario *s, const gp_sensitivity *t, int i,
                              const gp_sens_ranking *rank, gp_buf *out) {
    gp_status st = GP_OK;
    char be[16];
    month(be, sizeof be, t->has_be_base[i], t->be_base[i]);
    char diff[64];
    gp_fmt_money(t->base_diff[i], diff, sizeof diff);
    P("\n%s: option - self-hosted = %s at the base point, break-even month %s\n",
      s->options[i].name, diff, be);
    P("  %-46s %12s %12s %16s %16s %6s %6s\n", "input", "low", "high", "change at low",
      "change at high", "BE lo", "BE hi");
    for (int j = 0; j < rank->n; j++) {
        const gp_sens_row *row = &t->rows[rank->order[j]];
        char lo[64], hi[64], bl[16], bh[16], vl[32], vh[32];
        gp_fmt_money(row->delta_low[i], lo, sizeof lo);
        gp_fmt_money(row->delta_high[i], hi, sizeof hi);
        month(bl, sizeof bl, row->has_be_low[i], row->be_low[i]);
        month(bh, sizeof bh, row->has_be_high[i], row->be_high[i]);
        P("  %-46s %12s %12s %16s %16s %6s %6s\n", row->input,
          gp_fmt_sig_grouped(row->low, 4, vl, sizeof vl),
          gp_fmt_sig_grouped(row->high, 4, vh, sizeof vh), lo, hi, bl, bh);
    }
    if (rank->quiet)
        P("  (%d more inputs change nothing for this option)\n", rank->quiet);
    return st;
}

static gp_status refused_line(const gp_sensitivity *t, gp_buf *out) {
    gp_status st = GP_OK;
    if (t->n_refused > 0)
        P("\n%d %s left out: the plan %s is refused (the first, %s: %s)\n", t->n_refused,
          t->n_refused == 1 ? "move" : "moves", t->n_refused == 1 ? "it makes" : "they make",
          t->refused_input, t->refused_error.msg);
    return st;
}

gp_status gp_report_sensitivity_text(const gp_scenario *s, const gp_sensitivity *t,
                                     const gp_sens_ranking *ranks, gp_buf *out) {
    gp_status st = GP_OK;
    P("Sensitivity of \"%s\": every input -%g%% / +%g%%, one at a time (%s).\n", s->name,
      t->delta * 100, t->delta * 100, s->currency);
    if (s->n_options == 0)
        P("The scenario has no cloud options to compare with.\n");
    for (int i = 0; i < s->n_options && st == GP_OK; i++)
        st = option_table(s, t, i, &ranks[i], out);
    return st ? st : refused_line(t, out);
}

/* ---- the one-screen summary ---------------------------------------------------------------- */

typedef struct driver {
    int row;
    double chg_low, chg_high; /* the change of the cheapest's lead at each end */
    int win_low, win_high;
} driver;

static int by_lead_swing(const void *a, const void *b) {
    const driver *x = a, *y = b;
    double sx = fabs(x->chg_high - x->chg_low), sy = fabs(y->chg_high - y->chg_low);
    if (sx != sy)
        return sx < sy ? 1 : -1;
    return x->row - y->row;
}

/* One tornado bar: `half` cells each side of the axis, a cell filled where an end's change
 * reaches it (scaled so the largest change fills its half). */
static void bar(double lo, double hi, double scale, int half, char *out) {
    int n = 0;
    double left = fmin(0, fmin(lo, hi)), right = fmax(0, fmax(lo, hi));
    for (int c = half; c > 0; c--)
        out[n++] = scale > 0 && -left / scale * half >= c - 0.5 ? '#' : ' ';
    out[n++] = '|';
    for (int c = 1; c <= half; c++)
        out[n++] = scale > 0 && right / scale * half >= c - 0.5 ? '#' : ' ';
    out[n] = '\0';
}

gp_status gp_report_sensitivity_summary(const gp_scenario *s, const gp_sensitivity *t,
                                        const gp_result *base, int top, gp_buf *out) {
    gp_status st = GP_OK;
    P("Sensitivity of \"%s\": every input -%g%% / +%g%%, one at a time (%s).\n", s->name,
      t->delta * 100, t->delta * 100, s->currency);
    if (s->n_options == 0) {
        P("The scenario has no cloud options to compare with.\n");
        return st;
    }
    int w = cheapest(t, NULL, END_BASE);
    double base_lead = lead(t, NULL, END_BASE, w);
    char total[64], by[64];
    gp_fmt_money(side_total(t, NULL, END_BASE, w), total, sizeof total);
    gp_fmt_money(base_lead, by, sizeof by);
    /* Equal totals (the model's Ties) are a tie, not a lead of 0.00: name the others. */
    double at_base[GP_MAX_OPTIONS + 1]; /* side k's total at k + 1 */
    int ties[GP_MAX_OPTIONS + 1];
    for (int k = -1; k < t->n_options; k++)
        at_base[k + 1] = side_total(t, NULL, END_BASE, k);
    int tied = gp_tied_totals(at_base, NULL, t->n_options + 1, w + 1, ties, GP_MAX_OPTIONS + 1);
    for (int i = 0; i < tied; i++) {
        if (i == 0)
            P("Cheapest at the base point: %s, %s; a tie: ", side_name(s, w), total);
        else
            P(", ");
        P("%s", side_name(s, ties[i] - 1));
    }
    if (tied)
        P(" %s the same (no lead).\n", tied == 1 ? "costs" : "cost");
    else
        P("Cheapest at the base point: %s, %s; its lead over the next best: %s.\n", side_name(s, w),
          total, by);
    /* Spot can be reclaimed: the report's headline caveat, in the same words. */
    char spot[GP_OPENING_BYTES];
    spot[0] = '\0';
    if (base && base->error.code == GP_OK)
        gp_report_spot_headline(s, base, spot, sizeof spot);
    if (*spot)
        P("%s\n", spot);
    driver *d = gp_xcalloc(t->n_rows ? (size_t)t->n_rows : 1, sizeof *d);
    int n = 0;
    double scale = 0;
    for (int k = 0; k < t->n_rows; k++) {
        const gp_sens_row *row = &t->rows[k];
        driver x = {k, lead(t, row, END_LOW, w) - base_lead, lead(t, row, END_HIGH, w) - base_lead,
                    cheapest(t, row, END_LOW), cheapest(t, row, END_HIGH)};
        if (x.chg_low == 0 && x.chg_high == 0 && x.win_low == w && x.win_high == w)
            continue;
        d[n++] = x;
    }
    qsort(d, (size_t)n, sizeof *d, by_lead_swing);
    int shown = n < top ? n : top;
    for (int j = 0; j < shown; j++)
        scale = fmax(scale, fmax(fabs(d[j].chg_low), fabs(d[j].chg_high)));
    enum { LABEL = 40, HALF = 12 };
    if (n == 0)
        P("No input moves that lead.\n");
    else
        P("The %d input%s that move%s that lead most (bars: its change at the low and the high "
          "value, "
          "shrinking to the left; ! another side is cheapest there):\n\n  %-*s %9s %9s  "
          "%*s|%-*s  change at low / high\n",
          shown, shown == 1 ? "" : "s", shown == 1 ? "s" : "", LABEL, "option: parameter", "low",
          "high", HALF, "shrinks ", HALF, " grows");
    for (int j = 0; j < shown && st == GP_OK; j++) {
        const gp_sens_row *row = &t->rows[d[j].row];
        char owner[GP_NAME_BYTES], label[GP_NAME_BYTES + 80], vl[32], vh[32], cl[64], ch[64],
            b[2 * HALF + 2], flip[2 * GP_NAME_BYTES + 40] = "";
        owner_name(s, row, owner, sizeof owner);
        snprintf(label, sizeof label, "%s: %s", owner, row->parameter);
        /* Long names are cut on a character boundary, so the bars stay in line. */
        size_t cut = gp_text_utf8_cut(label, strlen(label) < LABEL ? strlen(label) : LABEL);
        label[cut] = '\0';
        gp_fmt_money(d[j].chg_low, cl, sizeof cl);
        gp_fmt_money(d[j].chg_high, ch, sizeof ch);
        bar(d[j].chg_low, d[j].chg_high, scale, HALF, b);
        if (d[j].win_low != w || d[j].win_high != w)
            snprintf(flip, sizeof flip, "  ! %s%s%s%s%s", d[j].win_low != w ? "low: " : "",
                     d[j].win_low != w ? side_name(s, d[j].win_low) : "",
                     d[j].win_low != w && d[j].win_high != w ? ", " : "",
                     d[j].win_high != w ? "high: " : "",
                     d[j].win_high != w ? side_name(s, d[j].win_high) : "");
        P("  %-*s %9s %9s  %s  %s%s / %s%s%s\n", LABEL, label,
          gp_fmt_sig_grouped(row->low, 4, vl, sizeof vl),
          gp_fmt_sig_grouped(row->high, 4, vh, sizeof vh), b, d[j].chg_low > 0 ? "+" : "", cl,
          d[j].chg_high > 0 ? "+" : "", ch, flip);
    }
    if (n > shown)
        P("\n%d more input%s move%s it.", n - shown, n - shown == 1 ? "" : "s",
          n - shown == 1 ? "s" : "");
    P("%sEvery row, per option: --all; every row with the totals at each end: --format json "
      "or csv.\n",
      n > shown ? " " : "\n");
    free(d);
    return st ? st : refused_line(t, out);
}

/* ---- JSON and CSV: every row with the totals and the cheapest at each end ------------------ */

static cJSON *end_json(const gp_scenario *s, const gp_sensitivity *t, const gp_sens_row *row,
                       int end) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "self_hosted", side_total(t, row, end, -1));
    cJSON *opts = cJSON_AddArrayToObject(e, "options");
    for (int k = 0; k < t->n_options; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", s->options[k].name);
        cJSON_AddNumberToObject(o, "total", side_total(t, row, end, k));
        bool has = end == END_BASE  ? t->has_be_base[k]
                   : end == END_LOW ? row->has_be_low[k]
                                    : row->has_be_high[k];
        int m = end == END_BASE ? t->be_base[k] : end == END_LOW ? row->be_low[k] : row->be_high[k];
        if (has)
            cJSON_AddNumberToObject(o, "break_even_month", m);
        else
            cJSON_AddNullToObject(o, "break_even_month");
        cJSON_AddItemToArray(opts, o);
    }
    cJSON_AddStringToObject(e, "cheapest", side_name(s, cheapest(t, row, end)));
    return e;
}

gp_status gp_report_sensitivity_json(const gp_scenario *s, const gp_sensitivity *t, gp_buf *out,
                                     gp_err *err) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "scenario", s->name);
    cJSON_AddStringToObject(doc, "currency", s->currency);
    cJSON_AddNumberToObject(doc, "delta", t->delta);
    cJSON_AddItemToObject(doc, "base", end_json(s, t, NULL, END_BASE));
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    for (int k = 0; k < t->n_rows; k++) {
        const gp_sens_row *row = &t->rows[k];
        cJSON *r = cJSON_CreateObject();
        char owner[GP_NAME_BYTES];
        owner_name(s, row, owner, sizeof owner);
        cJSON_AddStringToObject(r, "option", owner);
        cJSON_AddStringToObject(r, "parameter", row->parameter);
        cJSON_AddStringToObject(r, "path", row->input);
        cJSON_AddNumberToObject(r, "base", row->base);
        cJSON_AddNumberToObject(r, "low", row->low);
        cJSON_AddNumberToObject(r, "high", row->high);
        cJSON_AddItemToObject(r, "at_low", end_json(s, t, row, END_LOW));
        cJSON_AddItemToObject(r, "at_high", end_json(s, t, row, END_HIGH));
        cJSON_AddItemToArray(rows, r);
    }
    cJSON *ref = cJSON_AddObjectToObject(doc, "refused");
    cJSON_AddNumberToObject(ref, "count", t->n_refused);
    if (t->n_refused > 0) {
        cJSON_AddStringToObject(ref, "first", t->refused_input);
        cJSON_AddStringToObject(ref, "error", t->refused_error.msg);
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory writing the sensitivity JSON");
    gp_status st = gp_buf_add(out, text, strlen(text));
    if (st == GP_OK)
        st = gp_buf_add(out, "\n", 1);
    free(text);
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "sensitivity JSON is larger than the output limit");
    return GP_OK;
}

gp_status gp_report_sensitivity_csv(const gp_scenario *s, const gp_sensitivity *t, gp_buf *out,
                                    gp_err *err) {
    gp_status st = GP_OK;
    P("option,parameter,path,base,low,high,cheapest_at_low,cheapest_at_high,"
      "self_hosted_at_low,self_hosted_at_high");
    for (int k = 0; k < t->n_options && st == GP_OK; k++) {
        char col[GP_NAME_BYTES + 16];
        for (int e = 0; e < 2 && st == GP_OK; e++) {
            snprintf(col, sizeof col, "%s at %s", s->options[k].name, e ? "high" : "low");
            st = gp_buf_add(out, ",", 1);
            if (st == GP_OK)
                st = gp_csv_field(out, col);
        }
    }
    P("\n");
    for (int j = 0; j < t->n_rows && st == GP_OK; j++) {
        const gp_sens_row *row = &t->rows[j];
        char owner[GP_NAME_BYTES], v[3][32], m[2][40];
        owner_name(s, row, owner, sizeof owner);
        st = gp_csv_field(out, owner);
        P(",");
        if (st == GP_OK)
            st = gp_csv_field(out, row->parameter);
        P(",%s,%s,%s,%s,", row->input, gp_fmt_sig(row->base, 4, v[0], sizeof v[0]),
          gp_fmt_sig(row->low, 4, v[1], sizeof v[1]), gp_fmt_sig(row->high, 4, v[2], sizeof v[2]));
        if (st == GP_OK)
            st = gp_csv_field(out, side_name(s, cheapest(t, row, END_LOW)));
        P(",");
        if (st == GP_OK)
            st = gp_csv_field(out, side_name(s, cheapest(t, row, END_HIGH)));
        for (int k = -1; k < t->n_options; k++)
            P(",%s,%s", gp_fmt_cents(side_total(t, row, END_LOW, k), m[0], sizeof m[0]),
              gp_fmt_cents(side_total(t, row, END_HIGH, k), m[1], sizeof m[1]));
        P("\n");
    }
    if (st != GP_OK)
        return gp_errorf(err, st, NULL, "sensitivity CSV is larger than the output limit");
    return GP_OK;
}
