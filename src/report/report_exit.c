/* The exit value's amount and basis in words (report_exit.h). */
#include <stdio.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/report_exit.h"

gp_exit_basis gp_exit_basis_of(const gp_scenario *s) {
    if (s->n_resale > 0)
        return GP_EXIT_RESALE;
    if (s->buy == GP_BUY_AS_NEEDED || s->refresh_months > 0)
        return GP_EXIT_STRAIGHT_LINE;
    return GP_EXIT_RESIDUAL_PCT;
}

const char *gp_exit_basis_key(gp_exit_basis b) {
    return b == GP_EXIT_RESALE          ? "resale"
           : b == GP_EXIT_STRAIGHT_LINE ? "straight_line"
                                        : "residual_pct";
}

void gp_exit_basis_text(const gp_scenario *s, char *out, size_t cap) {
    char pct[32], y[32];
    size_t n = 0;
    switch (gp_exit_basis_of(s)) {
    case GP_EXIT_RESALE:
        n = (size_t)snprintf(out, cap, "the resale curve (");
        for (int i = 0; i < s->n_resale && n < cap; i++) {
            gp_fmt_pct(s->resale[i].pct, pct, sizeof pct);
            n += (size_t)snprintf(out + n, cap - n, "%s%s %% at %d months", i ? ", " : "", pct,
                                  s->resale[i].age_months);
        }
        if (n < cap)
            snprintf(out + n, cap - n, ")");
        return;
    case GP_EXIT_STRAIGHT_LINE:
        gp_fmt_pct(s->residual_pct, pct, sizeof pct);
        gp_fmt_sig(12.0 * s->depreciation_years, 4, y, sizeof y);
        snprintf(out, cap,
                 "straight line from 100 %% new to %s %% at %s months (residual_pct over "
                 "depreciation_years; %s)",
                 pct, y, s->refresh_months > 0 ? "servers refreshed" : "buy as needed");
        return;
    case GP_EXIT_RESIDUAL_PCT:
        gp_fmt_pct(s->residual_pct, pct, sizeof pct);
        snprintf(out, cap, "flat %s %% of hardware cost (residual_pct)", pct);
        return;
    }
}

void gp_exit_basis_short(const gp_scenario *s, char *out, size_t cap) {
    char pct[32], y[32];
    gp_fmt_pct(s->residual_pct, pct, sizeof pct);
    switch (gp_exit_basis_of(s)) {
    case GP_EXIT_RESALE:
        snprintf(out, cap, "resale curve");
        return;
    case GP_EXIT_STRAIGHT_LINE:
        gp_fmt_sig(12.0 * s->depreciation_years, 4, y, sizeof y);
        snprintf(out, cap, "straight line to %s %% at %s months", pct, y);
        return;
    case GP_EXIT_RESIDUAL_PCT:
        snprintf(out, cap, "flat %s %%", pct);
        return;
    }
}

void gp_exit_line(const gp_scenario *s, const gp_result *r, char *out, size_t cap) {
    if (r->self.exit_value == 0.0) {
        out[0] = '\0';
        return;
    }
    char v[48], basis[512];
    gp_fmt_money(r->self.exit_value, v, sizeof v);
    gp_exit_basis_text(s, basis, sizeof basis);
    snprintf(out, cap,
             "exit value of %s %s credited at month %d (book value of hardware still held, not "
             "cash): %s",
             v, s->currency, s->horizon_months, basis);
}
