/* The Plan tab: the stored scenarios, and an editor over every input of the open one with
 * its unit and validation message. A value typed is only read; Enter evaluates and commits it
 * (undo keeps the previous document), `s` saves a new version.
 * The document and its fields are scen.h's; this file draws them and takes the keys. */
#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/scenario.h"
#include "scen.h"
#include "view.h"

/* ---- drawing ---------------------------------------------------------------------------- */

/* The Plan screen's own state: the first scenario shown, and the tariff picker while it is
 * open (its choices are scen.h's t->picks). The fields and the value being edited are the open
 * scenario's (scen.h), which builds them. */
typedef struct plan_view {
    int scen_top;
    bool picking;
    int pick_sel;
} plan_view;

static plan_view *pv(const tui *t) {
    return t->view[TAB_PLAN];
}

static void *plan_init(tui *t) {
    (void)t;
    return gp_xcalloc(1, sizeof(plan_view));
}

/* text from row *y on, at most w columns a line, broken at spaces (a word longer than a line
 * is cut there), while *y < bottom. */
static void wrap_lines(int *y, int bottom, int w, const char *text, int attr) {
    const char *p = text;
    while (*p && *y < bottom && w > 0) {
        while (*p == ' ')
            p++;
        int n = (int)strlen(p);
        if (n > w) {
            n = w;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = w;
        }
        char line[512];
        snprintf(line, sizeof line, "%.*s", n, p);
        draw_text((*y)++, 0, w, line, attr);
        p += n;
    }
}

/* The left pane (scenarios, then results): wide enough for the longest name where the
 * terminal allows, 28 to 2/5 of the screen (34 from 100 columns). */
static int left_width(const tui *t) {
    int cols = tui_cols(), lo = cols >= 100 ? 34 : 28, hi = cols * 2 / 5, want = 0;
    for (int i = 0; i < t->n_names; i++) {
        int w = draw_width(t->names[i]) + 3;
        want = w > want ? w : want;
    }
    if (hi < lo)
        hi = lo;
    return want < lo ? lo : want > hi ? hi : want;
}

/* label on the left, a figure on the right of w columns: the figure whole (or compact), the
 * label shortened in the middle. */
static void label_and_figure(int y, int x, int w, const char *label, const char *fig, int attr) {
    int fw = draw_width(fig);
    draw_text_mid(y, x, w - fw - 1, label, attr);
    draw_text(y, x + w - fw, fw, fig, attr);
}

static const char *const first_run[] = {
    "This database has no plan yet. gpuplan weighs owning GPU servers against",
    "renting them, priced from the bundled catalog.",
    "",
    "  n   a new plan: the GPU model, how many, how busy, the server price, the",
    "      electricity price and the cloud offers; saved, then opened here",
    "  d   the demo: sample plans and a fleet with a month of telemetry",
    "      (its own database file; this one stays as it is)",
    "  ?   every key",
    "",
    "Telemetry from your own GPUs, in a shell (the Fleet and Capacity tabs show it):",
    "  gpuplan node add NAME --dcgm URL     a node and its dcgm-exporter",
    "  gpuplan collect                      pull it, once or on an interval",
    "  gpuplan import nvsmi FILE --node N   or a captured nvidia-smi CSV",
};

static void draw_first_run(void) {
    int cols = tui_cols(), rows = tui_rows();
    draw_text(TOP, 0, cols, "Welcome to gpuplan", draw_attr(PAL_TITLE));
    int n = (int)(sizeof first_run / sizeof first_run[0]);
    for (int i = 0; i < n && TOP + 2 + i < rows - 1; i++)
        draw_text(TOP + 2 + i, 1, cols - 1, first_run[i],
                  first_run[i][0] == ' ' && first_run[i][2] != ' ' ? draw_attr(PAL_NORMAL)
                                                                   : draw_attr(PAL_DIM));
}

/* A plain number as the editor shows it (not as it pre-fills an edit): thousands separated
 * from 10,000 on ("230,000", "1,234.5"); anything else (words, dates, 1e-05) as it is. */
static void group_digits(char *text, size_t cap) {
    size_t start = text[0] == '-', n = strlen(text), digits = strspn(text + start, "0123456789");
    if (digits < 5 || (text[start + digits] &&
                       (text[start + digits] != '.' ||
                        strspn(text + start + digits + 1, "0123456789") != n - start - digits - 1)))
        return;
    char out[256];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < sizeof out; i++) {
        if (i > start && i < start + digits && (start + digits - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = text[i];
    }
    out[o] = '\0';
    snprintf(text, cap, "%s", out);
}

/* ---- the left pane: the scenarios, then the open one's results -------------------------- */

/* The stored scenarios, the open one marked "> "; a third of the pane at most, two rows at
 * least. Returns the rows the list takes. */
static int draw_scenarios(tui *t, int lw, int h) {
    int list_h = t->n_names < h / 3 ? (t->n_names > 2 ? t->n_names : 2) : h / 3;
    draw_text(TOP, 0, lw, "Scenarios", draw_attr(PAL_TITLE));
    pv(t)->scen_top = tui_scroll(t->scen_sel, pv(t)->scen_top, list_h, t->n_names);
    for (int i = 0; i < list_h && pv(t)->scen_top + i < t->n_names; i++) {
        int k = pv(t)->scen_top + i;
        bool sel = k == t->scen_sel;
        int attr = sel && !t->focus_editor ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_NORMAL);
        draw_fill(TOP + 1 + i, 0, lw - 1, attr);
        draw_text(TOP + 1 + i, 0, 2, !strcmp(t->names[k], scen_name(t)) ? "> " : "  ", attr);
        draw_text_mid(TOP + 1 + i, 2, lw - 3, t->names[k], attr);
    }
    return list_h;
}

/* A refused value has no results: its reason, whole, where they would be. */
static void draw_refused(const tui *t, int y, int lw) {
    draw_text(y++, 0, lw, "Results", draw_attr(PAL_TITLE));
    draw_text(y++, 0, lw - 1, "refused, so none:", draw_attr(PAL_BAD));
    wrap_lines(&y, tui_rows() - 1, lw - 1, t->invalid, draw_attr(PAL_BAD));
}

/* 2.1: owning, the guaranteed choice, has a book value (its exit value) within its total: that
 * credit, and the guaranteed choice there would be without it. */
static void draw_guaranteed_exit(const tui *t, int *y, int w) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    int wo;
    if (!(r->self.exit_value > 0 && gp_report_guaranteed_without_exit(s, r, &wo)))
        return;
    char m[48];
    draw_money_fit(r->self.exit_value, w - 22, m, sizeof m);
    label_and_figure((*y)++, 0, w, "  exit value credited", m, draw_attr(PAL_DIM));
    if (wo >= 0) {
        int at = (int)strlen("  without it: ");
        draw_text(*y, 0, w, "  without it: ", draw_attr(PAL_DIM));
        if (at < w)
            draw_text_mid(*y, at, w - at, s->options[wo].name, draw_attr(PAL_DIM));
        (*y)++;
    }
}

/* The cheapest choice; spot can be reclaimed, so when it rests on spot the cheapest with
 * guaranteed capacity follows, with what it costs more. */
static void draw_cheapest(const tui *t, int *y, int w) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    const char *cheapest = r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name;
    draw_text(*y, 0, w, "cheapest: ", draw_attr(PAL_GOOD));
    draw_text_mid((*y)++, 10, w - 10, cheapest, draw_attr(PAL_GOOD));
    /* Equal totals (the model's Ties) are a tie, not a win: the others at the same total. */
    char tied[256];
    size_t tl = 0;
    int k[GP_MAX_OPTIONS + 1], n = gp_report_tied(r, r->cheapest, k, GP_MAX_OPTIONS + 1);
    tied[0] = '\0';
    for (int i = 0; i < n && tl < sizeof tied; i++) {
        int c = snprintf(tied + tl, sizeof tied - tl, "%s%s", i ? ", " : "",
                         k[i] < 0 ? "self-hosted" : s->options[k[i]].name);
        tl += c > 0 ? (size_t)c : 0;
    }
    if (n) {
        draw_text(*y, 0, w, "a tie: ", draw_attr(PAL_GOOD));
        char line[300];
        snprintf(line, sizeof line, "%s %s the same", tied, n == 1 ? "costs" : "cost");
        draw_text_mid((*y)++, 7, w - 7, line, 0);
    }
    int g;
    if (!(gp_report_rests_on_spot(s, r, r->cheapest) && gp_report_guaranteed(s, r, &g)))
        return;
    double more = (g < 0 ? r->self.total : r->options[g].total) -
                  (r->cheapest < 0 ? r->self.total : r->options[r->cheapest].total);
    char m[48];
    draw_money_fit(more, w - 20, m, sizeof m);
    draw_textf(*y, 0, w, draw_attr(PAL_BAD), "spot; guaranteed (+%s): ", m);
    int used = (int)strlen("spot; guaranteed (+): ") + (int)strlen(m);
    if (used < w)
        draw_text_mid(*y, used, w - used, g < 0 ? "self-hosted" : s->options[g].name, 0);
    (*y)++;
    if (g < 0)
        draw_guaranteed_exit(t, y, w);
}

/* Owning's total; 2.1: the book value credited within it, and why. */
static void draw_self_total(const tui *t, int *y, int w) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    char m[48], fig[64];
    draw_money_fit(r->self.total, w - 16, m, sizeof m);
    snprintf(fig, sizeof fig, "%s %s", m, s->currency);
    label_and_figure((*y)++, 0, w, "self-hosted", fig, 0);
    if (r->self.exit_value == 0.0)
        return;
    char basis[96];
    gp_exit_basis_short(s, basis, sizeof basis);
    draw_money_fit(r->self.exit_value, w - 20, m, sizeof m);
    char line[192];
    snprintf(line, sizeof line, "  exit value credited %s (%s)", m, basis);
    if (draw_width(line) <= w) {
        draw_text((*y)++, 0, w, line, draw_attr(PAL_DIM));
    } else { /* narrow: the amount, then its basis */
        label_and_figure((*y)++, 0, w, "  exit value credited", m, draw_attr(PAL_DIM));
        draw_textf((*y)++, 0, w, draw_attr(PAL_DIM), "    (%s)", basis);
    }
}

/* Owning's cost a GPU-hour; in work mode, beside it, a unit of work and the GPUs month 1's
 * work needs (work mode has no GPU count to edit), owned, so rounded up. */
static void draw_unit_costs(const tui *t, int *y, int w) {
    const gp_scenario *s = t->sc.s;
    const gp_result *r = t->r;
    double per;
    if (gp_result_cost_per_gpu_hour(s, r, -1, &per))
        draw_textf((*y)++, 0, w, draw_attr(PAL_DIM), "  %.2f a %sGPU-hour", per,
                   r->work_mode ? "busy " : "");
    if (gp_result_cost_per_work_unit(r, -1, &per)) {
        char unit[GP_UNIT_BYTES + 8], fig[64];
        snprintf(unit, sizeof unit, "  per %s", s->work_unit);
        snprintf(fig, sizeof fig, "%.6g", per);
        label_and_figure((*y)++, 0, w, unit, fig, draw_attr(PAL_DIM));
    }
    if (s->work_mode && r->demand_utilization[0] > 0 && s->work_per_gpu_hour > 0) {
        double need = r->demand_work_month[0] / s->work_per_gpu_hour /
                      (GP_MONTH_HOURS * r->demand_utilization[0]);
        char gn[48];
        gp_fmt_grouped(ceil(need - 1e-9 * fmax(1.0, need)), 0, gn, sizeof gn);
        label_and_figure((*y)++, 0, w, "  GPUs needed, month 1", gn, draw_attr(PAL_DIM));
    }
}

/* Cloud option i: its total, when and at what utilization it breaks even (dated from
 * start_date; the date gives way before a figure is cut) and, 2.1, a catalog price in another
 * currency with the rate (scenario currency per unit of it) and date that converted it, and
 * its age when stale. */
static void draw_option(const tui *t, int i, int *y, int w, int bottom) {
    int later = t->sc.s->n_options - i - 1; /* options under this one, two rows each */
    const gp_scenario *s = t->sc.s;
    const gp_option_result *o = &t->r->options[i];
    char m[48];
    draw_money_fit(o->total, w - 12, m, sizeof m);
    label_and_figure((*y)++, 0, w, s->options[i].name, m,
                     i == t->r->cheapest ? draw_attr(PAL_GOOD) : 0);
    if (*y >= bottom)
        return;
    char be[48] = "never", bd[48] = "never", bu[32] = "-", lab[16];
    if (o->has_break_even_utilization)
        snprintf(bu, sizeof bu, "%.1f %%", o->break_even_utilization * 100);
    if (o->has_break_even_month) {
        scen_month_label(t, o->break_even_month, lab, sizeof lab);
        snprintf(bd, sizeof bd, "month %d (%s)", o->break_even_month, lab);
        snprintf(be, sizeof be, "month %d", o->break_even_month);
    }
    /* One line where it fits (the date giving way first); else the utilization on a line of
     * its own, as the exit value's basis wraps, where the panel has the row with every option
     * under this one still shown; else the words
     * give way, then the utilization. The month is never cut. */
    char l[6][128];
    snprintf(l[0], sizeof l[0], "  breaks even %s; at %s busy", bd, bu);
    snprintf(l[1], sizeof l[1], "  breaks even %s; at %s busy", be, bu);
    int attr = draw_attr(PAL_DIM);
    if (draw_width(l[1]) > w && *y + 1 + 2 * later < bottom) {
        snprintf(l[2], sizeof l[2], "  breaks even %s", bd);
        snprintf(l[3], sizeof l[3], "  breaks even %s", be);
        snprintf(l[4], sizeof l[4], "    at %s busy", bu);
        const char *const head[] = {l[2], l[3], NULL};
        draw_text_fit((*y)++, 0, w, attr, head);
        draw_text((*y)++, 0, w, l[4], attr);
    } else {
        snprintf(l[2], sizeof l[2], "  even %s; at %s busy", be, bu);
        snprintf(l[3], sizeof l[3], "  even %s; %s busy", be, bu);
        snprintf(l[4], sizeof l[4], "  even %s", be);
        const char *const lines[] = {l[0], l[1], l[2], l[3], l[4], NULL};
        draw_text_fit((*y)++, 0, w, attr, lines);
    }
    for (int k = 0; k < t->sc.n_sources && *y < bottom; k++) {
        const gp_price_source *ps = &t->sc.sources[k];
        if (ps->fx_rate <= 0 || strcmp(ps->option, s->options[i].name))
            continue;
        draw_textf((*y)++, 0, w, draw_attr(PAL_DIM), "  %s at %.6g of %s", ps->currency,
                   ps->fx_rate, ps->fx_date); /* the panel is narrow */
        /* A stale rate flagged under it, as the Markdown's sources word it; the date (today,
         * the TUI's as-of) gives way first where the panel is narrow. */
        long age = gp_fx_rate_age_days(ps, t->today);
        if (age <= GP_FX_STALE_DAYS || *y >= bottom)
            continue;
        char on[24], flag[96];
        snprintf(on, sizeof on, " on %s", t->today);
        snprintf(flag, sizeof flag, "  rate %ld days old%s (over %d)", age, on, GP_FX_STALE_DAYS);
        if ((int)strlen(flag) > w)
            snprintf(flag, sizeof flag, "  rate %ld days old (over %d)", age, GP_FX_STALE_DAYS);
        draw_text((*y)++, 0, w, flag, draw_attr(PAL_BAD));
    }
}

/* The open scenario's results from row y down, in a pane lw wide. */
static void draw_results(const tui *t, int y, int lw) {
    int w = lw - 1, bottom = tui_rows() - 1;
    draw_text(y++, 0, lw, "Results", draw_attr(PAL_TITLE));
    draw_cheapest(t, &y, w);
    draw_self_total(t, &y, w);
    draw_unit_costs(t, &y, w);
    for (int i = 0; i < t->sc.s->n_options && y < bottom; i++)
        draw_option(t, i, &y, w, bottom);
}

/* ---- the editor: every input of the open scenario --------------------------------------- */

/* The scenario's name (shortened in the middle), its version, and whether it has edits. */
static void draw_editor_title(const tui *t, int x, int w) {
    char suffix[64];
    snprintf(suffix, sizeof suffix, " (version %d)%s", scen_version(t),
             scen_dirty(t) ? " *modified*" : "");
    int sw = draw_width(suffix);
    int tw = draw_text_mid(TOP, x, w - sw, scen_name(t), draw_attr(PAL_TITLE));
    draw_text(TOP, x + tw, w - tw, suffix, draw_attr(PAL_TITLE));
}

/* The label column: the longest label, 22 at least, narrowed (to 16 at least) so the unit
 * keeps 10 columns beside a value val_w wide. */
static int label_width(const tui *t, int w, int val_w) {
    int lab_w = 22;
    for (int k = 0; k < t->n_fields; k++) {
        int lw = draw_width(t->fields[k].label);
        lab_w = lw > lab_w ? lw : lab_w;
    }
    if (lab_w > w - val_w - 12)
        lab_w = w - val_w - 12 > 16 ? w - val_w - 12 : 16;
    return lab_w;
}

/* Field k's value at (y, x), val_w wide: while it is typed, its end in view (that is where
 * typing goes); else numbers to the right, a name or a choice whole where it fits, else
 * shortened in the middle. */
static void draw_field_value(const tui *t, int k, bool sel, int y, int x, int val_w) {
    char v[256];
    if (sel && t->editing && t->fields[k].kind != FIELD_CHOICE) {
        snprintf(v, sizeof v, "%s_", t->edit);
        draw_fill(y, x, val_w, draw_attr(PAL_EDIT));
        int len = (int)strlen(v);
        draw_text(y, x, val_w, v + (len > val_w ? len - val_w : 0), draw_attr(PAL_EDIT));
        return;
    }
    char text[256];
    scen_field_text(t, k, text, sizeof text);
    group_digits(text, sizeof text);
    if (draw_width(text) <= val_w)
        snprintf(v, sizeof v, "%*s", val_w - draw_width(text) + (int)strlen(text), text);
    else
        draw_shorten(text, val_w, v, sizeof v);
    int attr = sel && t->editing ? draw_attr(PAL_EDIT) : sel ? draw_attr(PAL_ACTIVE) : 0;
    draw_text(y, x, val_w, v, attr);
}

/* f's unit in the scenario's own words: work in its work unit ("M tokens", not "units"),
 * money in its currency for "$cur". */
static void field_unit(const tui *t, const field *f, char *unit, size_t cap) {
    snprintf(unit, cap, "%s", f->unit);
    if (t->sc.s->work_mode && !strncmp(unit, "units", 5)) {
        char rest[32];
        snprintf(rest, sizeof rest, "%s", unit + 5);
        snprintf(unit, cap, "%s%s", t->sc.s->work_unit, rest);
    }
    char *cur = strstr(unit, "$cur");
    if (cur) {
        char rest[32];
        snprintf(rest, sizeof rest, "%s", cur + 4);
        snprintf(cur, cap - (size_t)(cur - unit), "%s%s", t->sc.s->currency, rest);
    }
}

/* The editor's fields from row TOP + 1, eh rows, scrolled to keep the selected one in view:
 * a label, a value and a unit each. */
static void draw_fields(tui *t, int x, int w, int eh) {
    t->field_top = tui_scroll(t->field_sel, t->field_top, eh, t->n_fields);
    int val_w = 14, lab_w = label_width(t, w, val_w);
    for (int i = 0; i < eh && t->field_top + i < t->n_fields; i++) {
        int k = t->field_top + i, fy = TOP + 1 + i;
        bool sel = k == t->field_sel && t->focus_editor;
        int row_attr = sel && !t->editing ? draw_attr(PAL_ACTIVE) : 0;
        draw_fill(fy, x, w, row_attr);
        draw_text_mid(fy, x, lab_w, t->fields[k].label, row_attr);
        draw_field_value(t, k, sel, fy, x + lab_w + 1, val_w);
        char unit[GP_UNIT_BYTES + 32];
        field_unit(t, &t->fields[k], unit, sizeof unit);
        draw_text(fy, x + lab_w + 2 + val_w, w - lab_w - val_w - 2, unit,
                  sel && !t->editing ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_DIM));
    }
}

/* The keys that apply now, by what is edited or selected. */
static const char *editor_hint(const tui *t) {
    const field *fs = t->n_fields ? &t->fields[t->field_sel] : NULL;
    return t->editing && fs && fs->kind == FIELD_CHOICE
               ? "Left/Right choose  Enter commit  Esc cancel"
           : t->editing && fs && fs->optional ? "Enter commit (empty: the default)  Esc cancel"
           : t->editing                       ? "Enter commit  Esc cancel"
           : !t->focus_editor   ? "Enter open  n new  c copy  r rename  d delete  s save  x export"
           : fs && fs->row >= 0 ? "Enter edit  a add row  d remove row  u undo  s save"
           : fs && fs->kind == FIELD_LIST ? "Enter/a add a row  u undo  s save"
           : scen_field_option(t, t->field_sel) >= 0
               ? "Enter edit  a add option  d remove option  s save  u undo"
               : "Enter edit  s save  S save as  u undo  t tariff  n new  x export";
}

/* Under the fields: the message line (a refused value's reason, or the state of the value
 * being typed), then the hint. */
static void draw_editor_footer(const tui *t, int x, int w) {
    int rows = tui_rows(), my = rows - 3;
    if (t->invalid[0])
        draw_text(my, x, w, t->invalid, draw_attr(PAL_BAD));
    else if (t->editing && t->edit_typed)
        draw_text(my, x, w, "a value: Enter evaluates it", draw_attr(PAL_GOOD));
    else if (t->editing)
        draw_text(my, x, w, "valid: the results show this value", draw_attr(PAL_GOOD));
    draw_text(rows - 2, x, w, editor_hint(t), draw_attr(PAL_DIM));
}

/* The tariff presets, a box over the screen's middle at most 50 wide and h - 2 high. */
static void draw_tariff_picker(const tui *t, int h) {
    int cols = tui_cols();
    int ph = t->n_picks + 2 < h - 2 ? t->n_picks + 2 : h - 2, pw = 50 < cols - 4 ? 50 : cols - 4;
    int py = TOP + 1, px = (cols - pw) / 2;
    for (int r = 0; r < ph; r++)
        draw_fill(py + r, px, pw, draw_attr(PAL_ACTIVE));
    draw_text(py, px + 1, pw - 2, "Tariff preset (Enter apply, Esc close)", draw_attr(PAL_ACTIVE));
    int top = tui_scroll(pv(t)->pick_sel, 0, ph - 2, t->n_picks);
    for (int i = 0; i < ph - 2 && top + i < t->n_picks; i++) {
        int k = top + i;
        int attr = k == pv(t)->pick_sel ? draw_attr(PAL_EDIT) : draw_attr(PAL_ACTIVE);
        draw_fill(py + 1 + i, px + 1, pw - 2, attr);
        draw_text_mid(py + 1 + i, px + 1, pw - 2, t->picks[k], attr);
    }
}

/* The right pane, from column x on, h rows: the open scenario's editor, or how to open one. */
static void draw_editor(tui *t, int x, int h) {
    int w = tui_cols() - x;
    if (!t->pe) {
        draw_text(TOP, x, w, "Open a scenario: Enter on its name.  n: a new plan",
                  draw_attr(PAL_DIM));
        return;
    }
    draw_editor_title(t, x, w);
    draw_fields(t, x, w, h - 3); /* less the title, the message line and the hint */
    draw_editor_footer(t, x, w);
    if (pv(t)->picking)
        draw_tariff_picker(t, h);
}

static void plan_draw(tui *t) {
    if (!t->n_names && !t->pe) {
        draw_first_run();
        return;
    }
    int lw = left_width(t), h = tui_rows() - TOP - 1;
    int y = TOP + 2 + draw_scenarios(t, lw, h);
    if (t->has_sc && t->invalid[0])
        draw_refused(t, y, lw);
    else if (t->has_sc)
        draw_results(t, y, lw);
    draw_editor(t, lw + 1, h);
}

/* ---- keys ------------------------------------------------------------------------------- */

/* A key while a field is edited: a choice moves through its choices (each evaluated); a value
 * is typed through the one line editor (tui_line_key), read as it is typed and evaluated on
 * Enter. */
static void edit_key(tui *t, int ch) {
    int kind = t->fields[t->field_sel].kind;
    if (kind == FIELD_CHOICE) {
        if (ch == 27)
            scen_cancel_edit(t);
        else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
            scen_commit_edit(t);
        else if (ch == KEY_RIGHT || ch == 'l' || ch == ' ' || ch == KEY_DOWN || ch == 'j')
            scen_edit_choice(t, 1);
        else if (ch == KEY_LEFT || ch == 'h' || ch == KEY_UP || ch == 'k')
            scen_edit_choice(t, -1);
        return;
    }
    /* A number takes only what a number can hold; Backspace edits the value offered rather
     * than clearing it (the first other key replaces it). */
    if (kind != FIELD_TEXT && ((ch >= 0x20 && ch < 0x7f && !isdigit(ch) && !strchr(".-+eE%", ch)) ||
                               (ch >= 0x80 && ch < 0x100)))
        return;
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8)
        t->edit_fresh = false;
    switch (tui_line_key(t->edit, sizeof t->edit, &t->edit_fresh, ch)) {
    case TUI_LINE_CANCEL:
        scen_cancel_edit(t);
        return;
    case TUI_LINE_DONE:
        scen_commit_edit(t);
        return;
    case TUI_LINE_CHANGED:
        t->edit_typed = true;
        scen_reevaluate(t);
        return;
    }
}

static bool prompting(const tui *t) {
    return t->prompt == PROMPT_SAVE_AS || t->prompt == PROMPT_RENAME || t->prompt == PROMPT_COPY;
}

static void prompt_key(tui *t, int ch) {
    int r = tui_line_key(t->prompt_buf, sizeof t->prompt_buf, &t->prompt_sel, ch);
    if (r != TUI_LINE_CANCEL && r != TUI_LINE_DONE)
        return;
    int p = t->prompt;
    t->prompt = PROMPT_NONE;
    if (r == TUI_LINE_CANCEL || !t->prompt_buf[0])
        return;
    if (p == PROMPT_SAVE_AS)
        scen_save(t, t->prompt_buf);
    else if (p == PROMPT_RENAME && strcmp(t->prompt_for, t->prompt_buf) != 0)
        scen_rename(t, t->prompt_for, t->prompt_buf);
    else if (p == PROMPT_COPY)
        scen_copy(t, t->prompt_for, t->prompt_buf);
}

/* A key while the tariff picker is open: Enter applies the preset selected, Esc closes. */
static void pick_key(tui *t, int ch) {
    if (ch == 27 || ch == 'q') {
        pv(t)->picking = false;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        pv(t)->picking = false;
        scen_apply_tariff(t, t->picks[pv(t)->pick_sel]);
    } else {
        tui_list_key(ch, &pv(t)->pick_sel, t->n_picks, tui_rows() - TOP - 4);
    }
}

static void start_new_plan(tui *t) {
    t->work = WORK_NEWPLAN;
    snprintf(t->work_msg, sizeof t->work_msg, "reading the catalog for a new plan...");
}

/* Open name, asking first when that would drop unsaved edits. */
static void open_name(tui *t, const char *name) {
    if (scen_dirty(t) && t->pe && strcmp(name, scen_name(t)) != 0) {
        t->ask = ASK_OPEN;
        snprintf(t->ask_name, sizeof t->ask_name, "%s", name);
        return;
    }
    if (scen_open(t, name))
        t->focus_editor = true;
}

static void ask_key(tui *t, int ch) {
    int a = t->ask;
    bool yes = ch == 'y', save = ch == 's', discard = ch == 'd';
    if (ch == 27 || ch == 'n' || ch == 'q') {
        t->ask = ASK_NONE;
        return;
    }
    if (a == ASK_DELETE && yes) {
        t->ask = ASK_NONE;
        scen_delete(t, t->ask_name);
    } else if (a == ASK_REMOVE_OPTION && yes) {
        t->ask = ASK_NONE;
        scen_remove_option(t, t->ask_index);
    } else if ((a == ASK_OPEN || a == ASK_NEW) && (save || discard || yes)) {
        t->ask = ASK_NONE;
        if (save && !scen_save(t, NULL))
            return; /* the status line says why; the edits stay */
        if (a == ASK_OPEN) {
            if (scen_open(t, t->ask_name))
                t->focus_editor = true;
        } else {
            char name[GP_NAME_BYTES];
            snprintf(name, sizeof name, "%s", scen_name(t));
            if (!save && t->pe)
                scen_open(t, name); /* the saved version, the edits dropped */
            start_new_plan(t);
        }
    }
}

/* The keys outside a modal state (tui_binding tables): one table for anywhere, one for the
 * first-run screen, one while the scenario list has the focus, one while the editor has it,
 * and the open document's, which either focus reaches. */

/* n: a new plan, asking first when that would drop unsaved edits. */
static void new_plan(tui *t) {
    if (scen_dirty(t) && t->pe)
        t->ask = ASK_NEW;
    else
        start_new_plan(t);
}

static void build_demo(tui *t) {
    t->work = WORK_DEMO;
    snprintf(t->work_msg, sizeof t->work_msg,
             "building the demo database (a month of fleet history)...");
}

static const char *list_selected(const tui *t) {
    return t->n_names ? t->names[t->scen_sel] : NULL;
}

static void list_open(tui *t) {
    const char *sel = list_selected(t);
    if (sel)
        open_name(t, sel);
}

/* Right on the open scenario moves into its editor; on another, opens that one. */
static void list_enter_editor(tui *t) {
    const char *sel = list_selected(t);
    if (sel && t->pe && !strcmp(sel, scen_name(t)))
        t->focus_editor = true;
    else
        list_open(t);
}

static void list_delete(tui *t) {
    const char *sel = list_selected(t);
    if (sel) {
        t->ask = ASK_DELETE;
        snprintf(t->ask_name, sizeof t->ask_name, "%s", sel);
    }
}

/* Ask for a new name for the selected scenario, pre-filled with its name and suffix. */
static void list_ask_name(tui *t, int prompt, const char *label, const char *suffix) {
    const char *sel = list_selected(t);
    if (!sel)
        return;
    char pre[GP_NAME_BYTES + 8];
    snprintf(pre, sizeof pre, "%s%s", sel, suffix);
    tui_prompt(t, prompt, label, pre);
    snprintf(t->prompt_for, sizeof t->prompt_for, "%s", sel);
}

static void list_rename(tui *t) {
    list_ask_name(t, PROMPT_RENAME, "Rename to:", "");
}

static void list_copy(tui *t) {
    list_ask_name(t, PROMPT_COPY, "Copy as:", " (copy)");
}

static void field_first(tui *t) {
    t->field_sel = 0;
}

static void field_last(tui *t) {
    t->field_sel = t->n_fields ? t->n_fields - 1 : 0;
}

static void focus_list(tui *t) {
    t->focus_editor = false;
}

static void field_edit(tui *t) {
    if (t->n_fields)
        scen_start_edit(t);
}

static void field_add_row(tui *t) {
    if (t->n_fields && t->fields[t->field_sel].list[0])
        scen_list_add(t, t->field_sel);
    else
        tui_status(t, "a adds a row to a list (steps, tiers, resale, tariff periods) "
                      "or a cloud option");
}

/* d on a list row removes it; on a cloud option's field, asks first, then removes the option. */
static void field_remove(tui *t) {
    if (t->n_fields && t->fields[t->field_sel].row >= 0) {
        scen_list_remove(t, t->field_sel);
        return;
    }
    int k = scen_field_option(t, t->field_sel);
    if (k < 0) {
        tui_status(t, "d removes a list row or a cloud option: select one of its fields");
    } else {
        t->ask = ASK_REMOVE_OPTION;
        t->ask_index = k;
        snprintf(t->ask_name, sizeof t->ask_name, "%s", t->sc.s->options[k].name);
    }
}

static void doc_save(tui *t) {
    scen_save(t, NULL);
}

static void doc_save_as(tui *t) {
    char pre[GP_NAME_BYTES + 8];
    snprintf(pre, sizeof pre, "%s (copy)", scen_name(t));
    tui_prompt(t, PROMPT_SAVE_AS, "Save as:", pre);
}

static void doc_undo(tui *t) {
    scen_undo(t);
}

static void doc_redo(tui *t) {
    scen_redo(t);
}

static void doc_tariff(tui *t) {
    if (scen_list_tariffs(t)) {
        pv(t)->picking = true;
        pv(t)->pick_sel = 0;
    }
}

static const tui_binding anywhere_keys[] = {{'n', new_plan}, {0, NULL}};
static const tui_binding first_run_keys[] = {{'d', build_demo}, {0, NULL}};
static const tui_binding list_keys[] = {
    {'\n', list_open},
    {'\r', list_open},
    {KEY_ENTER, list_open},
    {KEY_RIGHT, list_enter_editor},
    {'l', list_enter_editor},
    {'d', list_delete},
    {'r', list_rename},
    {'c', list_copy},
    {0, NULL},
};
static const tui_binding editor_keys[] = {
    {'g', field_first},  {'G', field_last},  {KEY_LEFT, focus_list},  {'h', focus_list},
    {'\n', field_edit},  {'\r', field_edit}, {KEY_ENTER, field_edit}, {'a', field_add_row},
    {'d', field_remove}, {0, NULL},
};
static const tui_binding document_keys[] = {
    {'s', doc_save},
    {'S', doc_save_as},
    {'u', doc_undo},
    {'U', doc_redo},
    {18 /* Ctrl-R, as vi redoes */, doc_redo},
    {'t', doc_tariff},
    {0, NULL},
};

/* A key outside a modal state: the focused pane's list moves first, then its table, then the
 * open document's. */
static unsigned browse_key(tui *t, int ch) {
    if (tui_run_binding(t, ch, anywhere_keys))
        return TUI_HANDLED;
    if (!t->n_names && !t->pe)
        return tui_run_binding(t, ch, first_run_keys) ? TUI_HANDLED : 0;
    int page = tui_rows() - TOP - 4;
    bool used = t->focus_editor ? tui_list_key(ch, &t->field_sel, t->n_fields, page) ||
                                      tui_run_binding(t, ch, editor_keys)
                                : tui_list_key(ch, &t->scen_sel, t->n_names, page) ||
                                      tui_run_binding(t, ch, list_keys);
    if (!used && t->pe)
        used = tui_run_binding(t, ch, document_keys);
    return used ? TUI_HANDLED : 0;
}

/* A modal state (a question, a prompt, the tariff picker, a field edited) takes every key. */
static unsigned plan_key(tui *t, int ch) {
    if (t->ask)
        ask_key(t, ch);
    else if (prompting(t))
        prompt_key(t, ch);
    else if (pv(t)->picking)
        pick_key(t, ch);
    else if (t->editing)
        edit_key(t, ch);
    else
        return browse_key(t, ch);
    return TUI_HANDLED;
}

static bool plan_modal(const tui *t) {
    return t->editing || pv(t)->picking || prompting(t);
}

static void plan_click(tui *t, int row, int x) {
    if (x < left_width(t)) {
        int k = pv(t)->scen_top + row - TOP - 1;
        if (k >= 0 && k < t->n_names && row > TOP) {
            t->scen_sel = k;
            t->focus_editor = false;
            open_name(t, t->names[k]);
        }
    } else if (!t->editing) {
        int k = t->field_top + row - TOP - 1;
        if (k >= 0 && k < t->n_fields && row > TOP)
            t->field_sel = k, t->focus_editor = true;
    }
}

const tui_screen_ops plan_screen = {
    .name = "Plan",
    .draw = plan_draw,
    .on_key = plan_key,
    .modal = plan_modal,
    .click = plan_click,
    .done = scen_done,
    .init = plan_init,
};
