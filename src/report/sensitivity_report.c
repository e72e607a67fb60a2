/* The sensitivity tornado table as text (report_sensitivity.h). */
#include <stdio.h>

#include "gpuplan/report.h"
#include "gpuplan/report_sensitivity.h"

/* Append printf-style text unless an earlier append already failed. */
#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

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
    gp_format_money(t->base_diff[i], diff, sizeof diff);
    P("\n%s: option - self-hosted = %s at the base point, break-even month %s\n",
      s->options[i].name, diff, be);
    P("  %-46s %12s %12s %16s %16s %6s %6s\n", "input", "low", "high", "change at low",
      "change at high", "BE lo", "BE hi");
    for (int j = 0; j < rank->n; j++) {
        const gp_sens_row *row = &t->rows[rank->order[j]];
        char lo[64], hi[64], bl[16], bh[16];
        gp_format_money(row->delta_low[i], lo, sizeof lo);
        gp_format_money(row->delta_high[i], hi, sizeof hi);
        month(bl, sizeof bl, row->has_be_low[i], row->be_low[i]);
        month(bh, sizeof bh, row->has_be_high[i], row->be_high[i]);
        P("  %-46s %12.6g %12.6g %16s %16s %6s %6s\n", row->input, row->low, row->high, lo, hi, bl,
          bh);
    }
    if (rank->quiet)
        P("  (%d more inputs change nothing for this option)\n", rank->quiet);
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
    if (t->n_refused > 0)
        P("\n%d moves left out: the plan they make is refused (the first, %s: %s)\n", t->n_refused,
          t->refused_input, t->refused_error.msg);
    return st;
}
