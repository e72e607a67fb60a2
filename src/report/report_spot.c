/* Spot in the opening: which side rests on spot, the cheapest with guaranteed capacity, and
 * how each spot option's interruptions are priced (report_opening.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/scenario.h"

static bool is_spot(const gp_scenario *s, int i) {
    return i >= 0 && i < s->n_options && s->options[i].pricing == GP_SPOT;
}

bool gp_report_rests_on_spot(const gp_scenario *s, const gp_result *r, int side) {
    if (side < 0) /* self-hosted: only when a spot bridge does some of its work */
        return is_spot(s, s->bridge) && r->self.breakdown.bridge > 0;
    const gp_option *o = &s->options[side];
    if (o->pricing == GP_SPOT)
        return true;
    return o->pricing == GP_COMMITTED && is_spot(s, o->burst) && r->options[side].burst > 0;
}

bool gp_report_guaranteed(const gp_scenario *s, const gp_result *r, int *side) {
    bool found = false;
    double low = 0;
    for (int k = -1; k < s->n_options; k++) {
        if (gp_report_rests_on_spot(s, r, k))
            continue;
        double total = k < 0 ? r->self.total : r->options[k].total;
        if (!found || (total < low && !gp_money_equal(total, low))) {
            found = true;
            low = total;
            *side = k;
        }
    }
    return found;
}

int gp_tied_totals(const double *total, const bool *skip, int n, int w, int *tied, int cap) {
    int t = 0;
    for (int i = 0; i < n; i++)
        if (i != w && !(skip && skip[i]) && gp_money_equal(total[i], total[w])) {
            if (t < cap)
                tied[t] = i;
            t++;
        }
    return t;
}

/* Side k's total at totals[k + 1] and, for the guaranteed, whether it rests on spot. */
static int sides_tied(const gp_scenario *s, const gp_result *r, int w, int *tied, int cap) {
    double total[GP_MAX_OPTIONS + 1];
    bool spot[GP_MAX_OPTIONS + 1];
    int n = r->n_options + 1, out[GP_MAX_OPTIONS + 1];
    for (int k = -1; k < r->n_options; k++) {
        total[k + 1] = k < 0 ? r->self.total : r->options[k].total;
        spot[k + 1] = s && gp_report_rests_on_spot(s, r, k);
    }
    int nt = gp_tied_totals(total, spot, n, w + 1, out, GP_MAX_OPTIONS + 1);
    for (int i = 0; i < nt && i < cap; i++)
        tied[i] = out[i] - 1;
    return nt;
}

int gp_report_tied(const gp_result *r, int w, int *tied, int cap) {
    return sides_tied(NULL, r, w, tied, cap);
}

int gp_report_guaranteed_tied(const gp_scenario *s, const gp_result *r, int g, int *tied, int cap) {
    return sides_tied(s, r, g, tied, cap);
}

bool gp_report_guaranteed_without_exit(const gp_scenario *s, const gp_result *r, int *side) {
    bool found = false;
    double low = 0;
    for (int k = -1; k < s->n_options; k++) {
        if (gp_report_rests_on_spot(s, r, k))
            continue;
        double total = k < 0 ? r->self.total + r->self.exit_value : r->options[k].total;
        if (!found || (total < low && !gp_money_equal(total, low))) {
            found = true;
            low = total;
            *side = k;
        }
    }
    return found;
}

/* 2.1: when the guaranteed side is self-hosted, its total holds the exit value (book value,
 * not cash): say so beside the figure (of), and who is cheapest without it when someone else
 * (without). Both "" otherwise. */
static void exit_beside(const gp_scenario *s, const gp_result *r, int g, char *of, char *without,
                        size_t cap) {
    *of = *without = '\0';
    if (g >= 0 || r->self.exit_value <= 0)
        return;
    char v[48], basis[96];
    gp_fmt_money(r->self.exit_value, v, sizeof v);
    gp_exit_basis_short(s, basis, sizeof basis);
    snprintf(of, cap, " (after crediting %s of exit value, %s)", v, basis);
    int w;
    if (gp_report_guaranteed_without_exit(s, r, &w) && w >= 0) {
        char t[48];
        gp_fmt_money(r->options[w].total, t, sizeof t);
        snprintf(without, cap, "; without it: %s, %s %s", s->options[w].name, t, s->currency);
    }
}

void gp_report_spot_headline(const gp_scenario *s, const gp_result *r, char *out, size_t cap) {
    *out = '\0';
    if (!gp_report_rests_on_spot(s, r, r->cheapest))
        return;
    const char *what = r->cheapest >= 0 && s->options[r->cheapest].pricing == GP_SPOT
                           ? "It is spot capacity, which the provider can reclaim"
                           : "It rests on spot capacity, which the provider can reclaim";
    int g;
    if (!gp_report_guaranteed(s, r, &g)) {
        snprintf(out, cap, "%s; no side of this plan has guaranteed capacity.", what);
        return;
    }
    double best = r->cheapest < 0 ? r->self.total : r->options[r->cheapest].total;
    double total = g < 0 ? r->self.total : r->options[g].total;
    char t[48], more[48], pct[32] = "";
    gp_fmt_money(total, t, sizeof t);
    gp_fmt_money(total - best, more, sizeof more);
    if (best > 0)
        gp_fmt_pct((total - best) / best, pct, sizeof pct);
    char of[256], without[256], tie[256] = "";
    exit_beside(s, r, g, of, without, sizeof of);
    int tied[8], nt = gp_report_guaranteed_tied(s, r, g, tied, 8);
    for (int i = 0; i < nt && i < 8; i++) { /* "(a tie with od, od2: the same total)" */
        size_t l = strlen(tie);
        snprintf(tie + l, sizeof tie - l, "%s%s", i ? ", " : " (a tie with ",
                 tied[i] < 0 ? "self-hosted" : s->options[tied[i]].name);
    }
    if (nt) {
        size_t l = strlen(tie);
        snprintf(tie + l, sizeof tie - l, "%s: the same total)", nt > 8 ? ", ..." : "");
    }
    snprintf(out, cap,
             "%s: the cheapest with guaranteed capacity is %s%s, %s %s in total%s, %s %s "
             "more%s%s%s%s.",
             what, g < 0 ? "self-hosted" : s->options[g].name, tie, t, s->currency, of, more,
             s->currency, *pct ? " (" : "", pct, *pct ? " %)" : "", without);
}

/* The band the catalog gave option i's spot price, "" when none. */
static const char *band_of(const gp_scenario *s, const gp_report_meta *meta, int i) {
    for (int k = 0; meta && k < meta->n_sources; k++)
        if (meta->sources[k].pricing == GP_SPOT &&
            !strcmp(meta->sources[k].option, s->options[i].name))
            return meta->sources[k].interruption_band;
    return "";
}

/* Whether the scenario's notes say a draft priced spot at its default rate (app_draft.h). */
static bool drafted_default(const gp_report_meta *meta) {
    const char *notes =
        meta && meta->scenario_json
            ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta->scenario_json, "notes"))
            : NULL;
    return notes && strstr(notes, "no interruption band, so the draft's default");
}

bool gp_report_spot_line(const gp_scenario *s, const gp_report_meta *meta, char *out, size_t cap) {
    size_t used = 0;
    int n = 0, more = 0;
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        if (o->pricing != GP_SPOT)
            continue;
        if (n == 2) {
            more++;
            continue;
        }
        char month[32], hours[32], where[96];
        gp_fmt_pct(o->interruptions_per_hour * GP_MONTH_HOURS, month, sizeof month);
        gp_fmt_sig(o->checkpoint_interval_h / 2 + o->restart_h, 4, hours, sizeof hours);
        const char *band = band_of(s, meta, i);
        if (o->has_interruptions_per_hour && drafted_default(meta))
            snprintf(where, sizeof where,
                     "set in the scenario: the draft's default, the catalog giving no band");
        else if (o->has_interruptions_per_hour)
            snprintf(where, sizeof where, "set in the scenario");
        else if (*band)
            snprintf(where, sizeof where, "the catalog's interruption band %s", band);
        else
            snprintf(where, sizeof where,
                     "none: the catalog gives no band and the scenario sets none");
        used += (size_t)snprintf(out + used, cap - used,
                                 "%s\"%.200s\" is priced at %s %% of its instances interrupted a "
                                 "month (%s), each costing %s h of lost work",
                                 n ? "; " : "Spot: ", o->name, month, where, hours);
        if (used >= cap)
            return true;
        n++;
    }
    if (!n)
        return false;
    if (more)
        used += (size_t)snprintf(out + used, cap - used, "; %d more spot option%s", more,
                                 more == 1 ? "" : "s");
    if (used < cap)
        snprintf(out + used, cap - used,
                 ". Interruptions add little to a spot bill; the risk is capacity: the provider "
                 "can reclaim it, so spot is no guarantee of GPUs.");
    return true;
}
