/* The Plan tab: the stored scenarios, and an editor over every input of the open one with
 * its unit and validation message. The results re-evaluate on every keystroke from the value
 * being typed; Enter commits it (undo keeps the previous document), `s` saves a new version.
 * The document and its fields are scen.h's; this file draws them and takes the keys. */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "scen.h"
#include "view.h"

/* ---- drawing ---------------------------------------------------------------------------- */

static void plan_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    int lw = cols >= 100 ? 34 : 28; /* the left pane: scenarios, then results */
    int h = rows - TOP - 1;
    int list_h = t->n_names < h / 3 ? (t->n_names > 2 ? t->n_names : 2) : h / 3;
    draw_text(TOP, 0, lw, "Scenarios", draw_attr(PAL_TITLE));
    t->scen_top = tui_scroll(t->scen_sel, t->scen_top, list_h, t->n_names);
    for (int i = 0; i < list_h && t->scen_top + i < t->n_names; i++) {
        int k = t->scen_top + i;
        bool sel = k == t->scen_sel;
        int attr = sel && !t->focus_editor ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_NORMAL);
        draw_fill(TOP + 1 + i, 0, lw - 1, attr);
        draw_textf(TOP + 1 + i, 0, lw - 1, attr, "%s%s",
                   !strcmp(t->names[k], t->name) ? "> " : "  ", t->names[k]);
    }
    if (!t->n_names)
        draw_text(TOP + 1, 0, lw - 1, "(none: gpuplan scenario save FILE)", draw_attr(PAL_DIM));
    int y = TOP + 2 + list_h;
    if (t->has_sc) {
        const gp_scenario *s = t->sc.s;
        const gp_result *r = t->r;
        char m[48];
        draw_text(y++, 0, lw, "Results", draw_attr(PAL_TITLE));
        const char *cheapest = r->cheapest < 0 ? "self-hosted" : s->options[r->cheapest].name;
        draw_textf(y++, 0, lw - 1, draw_attr(PAL_GOOD), "cheapest: %s", cheapest);
        draw_money(r->self.total, m, sizeof m);
        draw_textf(y++, 0, lw - 1, 0, "self-hosted %s %s", m, s->currency);
        if (r->self.has_cost_per_gpu_hour)
            draw_textf(y++, 0, lw - 1, draw_attr(PAL_DIM), "  %.2f a GPU-hour",
                       r->self.cost_per_gpu_hour);
        for (int i = 0; i < s->n_options && y < rows - 1; i++) {
            const gp_option_result *o = &r->options[i];
            draw_money(o->total, m, sizeof m);
            draw_textf(y++, 0, lw - 1, i == r->cheapest ? draw_attr(PAL_GOOD) : 0, "%s %s",
                       s->options[i].name, m);
            if (y >= rows - 1)
                break;
            char be[32] = "never", bu[32] = "-";
            if (o->has_break_even_month)
                snprintf(be, sizeof be, "month %d", o->break_even_month);
            if (o->has_break_even_utilization)
                snprintf(bu, sizeof bu, "%.1f %%", o->break_even_utilization * 100);
            draw_textf(y++, 0, lw - 1, draw_attr(PAL_DIM), "  even %s, at u %s", be, bu);
        }
    }

    /* The editor. */
    int x = lw + 1, w = cols - x;
    if (!t->doc) {
        draw_text(TOP, x, w, "Open a scenario: Enter on its name.", draw_attr(PAL_DIM));
        return;
    }
    draw_textf(TOP, x, w, draw_attr(PAL_TITLE), "%s (version %d)%s", t->name, t->version,
               t->dirty ? " *modified*" : "");
    int eh = h - 3; /* title, message line, hint */
    t->field_top = tui_scroll(t->field_sel, t->field_top, eh, t->n_fields);
    int lab_w = w - 30 > 40 ? 40 : w - 30 > 22 ? w - 30 : 22, val_w = 14;
    for (int i = 0; i < eh && t->field_top + i < t->n_fields; i++) {
        int k = t->field_top + i;
        field *f = &t->fields[k];
        int fy = TOP + 1 + i;
        bool sel = k == t->field_sel && t->focus_editor;
        draw_fill(fy, x, w, sel && !t->editing ? draw_attr(PAL_ACTIVE) : 0);
        draw_text(fy, x, lab_w, f->label, sel && !t->editing ? draw_attr(PAL_ACTIVE) : 0);
        char v[64];
        if (sel && t->editing) {
            snprintf(v, sizeof v, "%s_", t->edit);
            draw_fill(fy, x + lab_w + 1, val_w, draw_attr(PAL_EDIT));
            draw_text(fy, x + lab_w + 1, val_w, v, draw_attr(PAL_EDIT));
        } else {
            double d = scen_field_value(t, k);
            if (f->integer)
                snprintf(v, sizeof v, "%14.0f", d);
            else
                snprintf(v, sizeof v, "%14.6g", d);
            draw_text(fy, x + lab_w + 1, val_w, v, sel ? draw_attr(PAL_ACTIVE) : 0);
        }
        char unit[24];
        snprintf(unit, sizeof unit, "%s", f->unit);
        char *cur = strstr(unit, "$cur");
        if (cur) {
            char rest[24];
            snprintf(rest, sizeof rest, "%s", cur + 4);
            snprintf(cur, sizeof unit - (size_t)(cur - unit), "%s%s", t->sc.s->currency, rest);
        }
        draw_text(fy, x + lab_w + 2 + val_w, w - lab_w - val_w - 2, unit,
                  sel && !t->editing ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_DIM));
    }
    int my = rows - 3;
    if (t->invalid[0])
        draw_text(my, x, w, t->invalid, draw_attr(PAL_BAD));
    else if (t->editing)
        draw_text(my, x, w, "valid: the results show this value", draw_attr(PAL_GOOD));
    draw_text(rows - 2, x, w,
              t->editing ? "Enter commit  Esc cancel"
                         : "Enter edit  s save  S save as  u undo  t tariff  x export",
              draw_attr(PAL_DIM));
    if (t->picking) {
        int ph = t->n_picks + 2 < h - 2 ? t->n_picks + 2 : h - 2,
            pw = 50 < cols - 4 ? 50 : cols - 4;
        int py = TOP + 1, px = (cols - pw) / 2;
        for (int r = 0; r < ph; r++)
            draw_fill(py + r, px, pw, draw_attr(PAL_ACTIVE));
        draw_text(py, px + 1, pw - 2, "Tariff preset (Enter apply, Esc close)",
                  draw_attr(PAL_ACTIVE));
        int top = tui_scroll(t->pick_sel, 0, ph - 2, t->n_picks);
        for (int i = 0; i < ph - 2 && top + i < t->n_picks; i++) {
            int k = top + i;
            int attr = k == t->pick_sel ? draw_attr(PAL_EDIT) : draw_attr(PAL_ACTIVE);
            draw_fill(py + 1 + i, px + 1, pw - 2, attr);
            draw_text(py + 1 + i, px + 1, pw - 2, t->picks[k], attr);
        }
    }
}

/* ---- keys ------------------------------------------------------------------------------- */

static void edit_key(tui *t, int ch) {
    size_t n = strlen(t->edit);
    if (ch == 27) { /* Esc: cancel */
        scen_cancel_edit(t);
        return;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        scen_commit_edit(t);
        return;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (n)
            t->edit[n - 1] = '\0';
    } else if (ch >= 0x20 && ch < 0x7f && (isdigit(ch) || strchr(".-+eE", ch))) {
        if (n + 1 < sizeof t->edit)
            t->edit[n] = (char)ch, t->edit[n + 1] = '\0';
    } else {
        return; /* other keys do nothing while editing */
    }
    scen_reevaluate(t);
}

static void save_as_key(tui *t, int ch) {
    int r = tui_line_key(t->prompt_buf, sizeof t->prompt_buf, ch);
    if (r == TUI_LINE_CANCEL || r == TUI_LINE_DONE)
        t->prompt = PROMPT_NONE;
    if (r == TUI_LINE_DONE && t->prompt_buf[0])
        scen_save(t, t->prompt_buf);
}

static unsigned plan_key(tui *t, int ch) {
    if (t->prompt == PROMPT_SAVE_AS) {
        save_as_key(t, ch);
        return TUI_HANDLED;
    }
    if (t->picking) {
        if (ch == 27 || ch == 'q') {
            t->picking = false;
        } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
            t->picking = false;
            scen_apply_tariff(t, t->picks[t->pick_sel]);
        } else {
            tui_list_key(ch, &t->pick_sel, t->n_picks, tui_rows() - TOP - 4);
        }
        return TUI_HANDLED;
    }
    if (t->editing) {
        edit_key(t, ch);
        return TUI_HANDLED;
    }
    int page = tui_rows() - TOP - 4;
    if (!t->focus_editor) {
        if (tui_list_key(ch, &t->scen_sel, t->n_names, page))
            return TUI_HANDLED;
        switch (ch) {
        case '\n':
        case '\r':
        case KEY_ENTER:
        case KEY_RIGHT:
        case 'l':
            if (t->n_names && (ch == KEY_RIGHT || ch == 'l') && t->doc &&
                !strcmp(t->names[t->scen_sel], t->name)) {
                t->focus_editor = true;
                return TUI_HANDLED;
            }
            if (t->n_names && scen_open(t, t->names[t->scen_sel]))
                t->focus_editor = true;
            return TUI_HANDLED;
        }
    } else {
        if (tui_list_key(ch, &t->field_sel, t->n_fields, page))
            return TUI_HANDLED;
        switch (ch) {
        case 'g':
            t->field_sel = 0;
            return TUI_HANDLED;
        case 'G':
            t->field_sel = t->n_fields ? t->n_fields - 1 : 0;
            return TUI_HANDLED;
        case KEY_LEFT:
        case 'h':
            t->focus_editor = false;
            return TUI_HANDLED;
        case '\n':
        case '\r':
        case KEY_ENTER:
            if (!t->n_fields)
                return TUI_HANDLED;
            t->editing = true;
            snprintf(t->edit, sizeof t->edit, "%.10g", scen_field_value(t, t->field_sel));
            scen_reevaluate(t);
            return TUI_HANDLED;
        }
    }
    if (!t->doc)
        return 0;
    switch (ch) {
    case 's':
        scen_save(t, NULL);
        return TUI_HANDLED;
    case 'S':
        t->prompt = PROMPT_SAVE_AS;
        t->prompt_label = "Save as:";
        t->prompt_hint = "";
        snprintf(t->prompt_buf, sizeof t->prompt_buf, "%s (copy)", t->name);
        return TUI_HANDLED;
    case 'u':
        scen_undo(t);
        return TUI_HANDLED;
    case 't':
        if (scen_list_tariffs(t)) {
            t->picking = true;
            t->pick_sel = 0;
        }
        return TUI_HANDLED;
    }
    return 0;
}

static bool plan_modal(const tui *t) {
    return t->editing || t->picking || t->prompt == PROMPT_SAVE_AS;
}

static void plan_click(tui *t, int row, int x) {
    int lw = tui_cols() >= 100 ? 34 : 28;
    if (x < lw) {
        int k = t->scen_top + row - TOP - 1;
        if (k >= 0 && k < t->n_names && row > TOP) {
            t->scen_sel = k;
            t->focus_editor = false;
            if (scen_open(t, t->names[k]))
                t->focus_editor = true;
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
};
