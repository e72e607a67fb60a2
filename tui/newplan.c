/* The new-plan flow, over the tabs while it is open: the GPU model from the catalog, how
 * many, how busy, the horizon, the server price from the bundled hardware prices with their
 * dates, the electricity price from the bundled tariffs and state averages, the cloud offers
 * by provider and pricing kind, and a name. Enter goes on, Esc goes back; the last step
 * builds the scenario (app_newplan.h), saves it and opens it on the Plan tab. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "draw.h"
#include "gpuplan/app_newplan.h"
#include "gpuplan/app_scenarios.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/parse.h"
#include "scen.h"
#include "view.h"

enum { S_GPU, S_GPUS, S_UTIL, S_GROWTH, S_HORIZON, S_HW, S_POWER, S_CLOUD, S_NAME, S_N };
static const char *const step_title[S_N] = {
    "the GPU model (type to filter)",
    "how many GPUs the work needs",
    "how busy they are: utilization, 0..1",
    "how fast demand grows a month: 0 steady, 0.05 or 5% (commits a base, bursts above)",
    "the horizon in months",
    "the server price: a purchase price from the catalog",
    "the electricity price (type to filter)",
    "the cloud offers to compare (Space toggles)",
    "the plan's name",
};

struct tui_newplan {
    int step;
    gp_newplan_gpu *gpus;
    int n_gpus;
    gp_hw_price *hw; /* newest first */
    char (*hw_src)[256];
    int n_hw;
    gp_newplan_power *pw;
    int n_pw;
    gp_newplan_cloud *cl;
    bool *on;
    int n_cl;
    int sel[S_N], top[S_N];
    char filter[64];
    int *view, n_view; /* the rows of a filtered list that show */
    char text[S_N][GP_NAME_BYTES];
    bool text_sel;
    int count, horizon;
    double util, growth;
    bool named; /* the name was offered once: going back keeps what was typed */
    char error[256];
};

/* ---- loading ---------------------------------------------------------------------------- */

typedef struct grow {
    void **v;
    int *n;
    size_t cap, size;
} grow;

static void *push(grow *g) {
    *g->v = gp_xgrow(*g->v, &g->cap, (size_t)*g->n, g->size, 16);
    return (char *)*g->v + g->size * (size_t)(*g->n)++;
}

static int take_gpu(const gp_newplan_gpu *x, void *arg) {
    *(gp_newplan_gpu *)push(arg) = *x;
    return 0;
}

static int take_power(const gp_newplan_power *x, void *arg) {
    *(gp_newplan_power *)push(arg) = *x;
    return 0;
}

static int take_cloud(const gp_newplan_cloud *x, void *arg) {
    *(gp_newplan_cloud *)push(arg) = *x;
    return 0;
}

typedef struct hw_acc {
    struct tui_newplan *np;
    size_t cap, cap_src;
} hw_acc;

static int take_hw(const gp_hw_price *h, const char *source, void *arg) {
    hw_acc *a = arg;
    struct tui_newplan *np = a->np;
    np->hw = gp_xgrow(np->hw, &a->cap, (size_t)np->n_hw, sizeof *np->hw, 16);
    np->hw_src = gp_xgrow(np->hw_src, &a->cap_src, (size_t)np->n_hw, sizeof *np->hw_src, 16);
    np->hw[np->n_hw] = *h;
    snprintf(np->hw_src[np->n_hw++], sizeof np->hw_src[0], "%s", source);
    return 0;
}

static void np_free(struct tui_newplan *np) {
    if (!np)
        return;
    free(np->gpus);
    free(np->hw);
    free(np->hw_src);
    free(np->pw);
    free(np->cl);
    free(np->on);
    free(np->view);
    free(np);
}

static void close_flow(tui *t) {
    np_free(t->np);
    t->np = NULL;
}

/* The purchase prices and cloud offers of the GPU chosen; false when it has none. */
static bool load_gpu(tui *t) {
    struct tui_newplan *np = t->np;
    const char *gpu = np->gpus[np->sel[S_GPU]].gpu;
    free(np->hw), free(np->hw_src), free(np->cl), free(np->on);
    np->hw = NULL, np->hw_src = NULL, np->cl = NULL, np->on = NULL;
    np->n_hw = np->n_cl = 0;
    gp_err err;
    hw_acc ha = {np, 0, 0};
    grow gc = {(void **)&np->cl, &np->n_cl, 0, sizeof *np->cl};
    if (gp_newplan_hardware(t->ses, gpu, take_hw, &ha, &err) ||
        gp_newplan_cloud_choices(t->ses, gpu, t->today, take_cloud, &gc, &err)) {
        snprintf(np->error, sizeof np->error, "%s", err.msg);
        return false;
    }
    /* Newest price first: the one a plan made today would take. */
    for (int i = 0, j = np->n_hw - 1; i < j; i++, j--) {
        gp_hw_price h = np->hw[i];
        np->hw[i] = np->hw[j], np->hw[j] = h;
        char s[256];
        memcpy(s, np->hw_src[i], sizeof s);
        memcpy(np->hw_src[i], np->hw_src[j], sizeof s);
        memcpy(np->hw_src[j], s, sizeof s);
    }
    np->sel[S_HW] = np->top[S_HW] = 0;
    np->sel[S_CLOUD] = np->top[S_CLOUD] = 0;
    np->on = gp_xcalloc((size_t)(np->n_cl ? np->n_cl : 1), sizeof *np->on);
    if (!np->n_hw || !np->n_cl) {
        snprintf(np->error, sizeof np->error, "the catalog has no %s for %s",
                 np->n_hw ? "cloud offer" : "purchase price", gpu);
        return false;
    }
    return true;
}

/* The draft request the choices so far make. */
static void draft_request(const tui *t, gp_draft_request *d) {
    const struct tui_newplan *np = t->np;
    const gp_newplan_power *pw = &np->pw[np->sel[S_POWER]];
    gp_draft_defaults(d, t->today);
    d->gpu = np->gpus[np->sel[S_GPU]].gpu;
    d->gpus = np->count;
    d->utilization = np->util;
    d->horizon_months = np->horizon;
    d->tariff = pw->tariff ? pw->name : NULL;
    d->state = pw->tariff ? NULL : pw->name;
    d->hardware = &np->hw[np->sel[S_HW]];
    d->hardware_source = np->hw_src[np->sel[S_HW]];
}

/* Checked to begin with: the offers `scenario draft` picks for these choices, by the same
 * rule (gp_newplan_mark_drafted), so the plan's notes and its checks agree. */
static bool precheck(tui *t) {
    struct tui_newplan *np = t->np;
    gp_draft_request d;
    draft_request(t, &d);
    gp_err err;
    if (gp_newplan_mark_drafted(t->ses, &d, &np->cl, &np->n_cl, &err)) {
        snprintf(np->error, sizeof np->error, "%s", err.msg);
        return false;
    }
    free(np->on);
    np->on = gp_xcalloc((size_t)(np->n_cl ? np->n_cl : 1), sizeof *np->on);
    for (int i = 0; i < np->n_cl; i++)
        np->on[i] = np->cl[i].drafted;
    return true;
}

/* ---- filtered lists --------------------------------------------------------------------- */

static int list_n(const struct tui_newplan *np) {
    return np->step == S_GPU ? np->n_gpus : np->step == S_POWER ? np->n_pw : 0;
}

static bool row_matches(const struct tui_newplan *np, int i) {
    if (!np->filter[0])
        return true;
    char hay[512];
    if (np->step == S_GPU)
        snprintf(hay, sizeof hay, "%s %s", np->gpus[i].gpu, np->gpus[i].full_name);
    else
        snprintf(hay, sizeof hay, "%s %s", np->pw[i].name, np->pw[i].detail);
    /* Every word typed appears, in any case. */
    char f[64];
    snprintf(f, sizeof f, "%s", np->filter);
    char *save = NULL;
    for (char *w = strtok_r(f, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        bool found = false;
        for (const char *h = hay; *h && !found; h++)
            found = strncasecmp(h, w, strlen(w)) == 0;
        if (!found)
            return false;
    }
    return true;
}

static void refilter(struct tui_newplan *np) {
    free(np->view);
    int n = list_n(np);
    np->view = gp_xmalloc(sizeof *np->view * (size_t)(n ? n : 1));
    np->n_view = 0;
    for (int i = 0; i < n; i++)
        if (row_matches(np, i))
            np->view[np->n_view++] = i;
    np->sel[np->step] = 0;
    np->top[np->step] = 0;
}

/* ---- steps ------------------------------------------------------------------------------ */

static void enter_step(struct tui_newplan *np, int step) {
    np->step = step;
    np->error[0] = '\0';
    np->filter[0] = '\0';
    np->text_sel = true;
    if (step == S_GPU || step == S_POWER) {
        int keep = np->sel[step];
        refilter(np);
        np->sel[step] = keep < np->n_view ? keep : 0;
    }
}

static bool whole(const char *s, int lo, int hi, int *out) {
    double v;
    if (!gp_parse_double(s, &v) || v != (int)v || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Build, save and open the plan; false (np->error says why) when it cannot. */
static bool finish(tui *t) {
    struct tui_newplan *np = t->np;
    const char *name = np->text[S_NAME];
    gp_newplan_cloud *picks = gp_xmalloc(sizeof *picks * (size_t)np->n_cl);
    int n = 0;
    for (int i = 0; i < np->n_cl; i++)
        if (np->on[i])
            picks[n++] = np->cl[i];
    gp_newplan_request rq = {0};
    draft_request(t, &rq.draft);
    rq.draft.growth = np->growth;
    rq.draft.name = name;
    rq.hardware = &np->hw[np->sel[S_HW]];
    rq.hardware_source = np->hw_src[np->sel[S_HW]];
    rq.cloud = picks;
    rq.n_cloud = n;
    cJSON *doc = NULL;
    gp_err err;
    int version = 0;
    bool ok = !gp_newplan_build(t->ses, &rq, &doc, &err) &&
              !gp_scenario_save_doc(t->ses, doc, name, true, &version, &err);
    free(picks);
    cJSON_Delete(doc);
    if (!ok) {
        snprintf(np->error, sizeof np->error, "%s", err.msg);
        return false;
    }
    char saved[GP_NAME_BYTES];
    snprintf(saved, sizeof saved, "%s", name);
    close_flow(t);
    scen_load_names(t);
    scen_select(t, saved);
    t->tab = TAB_PLAN;
    if (scen_open(t, saved))
        t->focus_editor = true;
    tui_status(t, "saved \"%s\", version %d", saved, version);
    return true;
}

/* Enter on the current step. */
static void next(tui *t) {
    struct tui_newplan *np = t->np;
    np->error[0] = '\0';
    switch (np->step) {
    case S_GPU:
        if (!np->n_view)
            return;
        np->sel[S_GPU] = np->view[np->sel[S_GPU]];
        if (!load_gpu(t))
            return;
        np->named = false;
        enter_step(np, S_GPUS);
        return;
    case S_GPUS:
        if (!whole(np->text[S_GPUS], 1, 1000000, &np->count))
            snprintf(np->error, sizeof np->error, "a whole number of GPUs, 1 or more");
        else
            enter_step(np, S_UTIL);
        return;
    case S_UTIL: {
        double u;
        if (!gp_parse_share(np->text[S_UTIL], &u) || !(u >= 0 && u <= 1))
            snprintf(np->error, sizeof np->error, "a share of the time, 0..1 (0.6 is 60 %%)");
        else
            np->util = u, enter_step(np, S_GROWTH);
        return;
    }
    case S_GROWTH: {
        double g;
        const char *s = np->text[S_GROWTH];
        bool neg = s[0] == '-';
        if (!gp_parse_share(s + neg, &g) || (neg ? g : -g) < -1 || (neg && g > 0.5))
            snprintf(np->error, sizeof np->error,
                     "a share a month, -0.5..1 (0.05 or 5%% is 5 %% a month; 0: steady)");
        else
            np->growth = neg ? -g : g, enter_step(np, S_HORIZON);
        return;
    }
    case S_HORIZON:
        if (!whole(np->text[S_HORIZON], 1, 600, &np->horizon))
            snprintf(np->error, sizeof np->error, "a whole number of months, 1..600");
        else
            enter_step(np, S_HW);
        return;
    case S_HW:
        enter_step(np, S_POWER);
        return;
    case S_POWER:
        if (!np->n_view)
            return;
        np->sel[S_POWER] = np->view[np->sel[S_POWER]];
        if (!precheck(t))
            return;
        enter_step(np, S_CLOUD);
        return;
    case S_CLOUD: {
        int n = 0;
        for (int i = 0; i < np->n_cl; i++)
            n += np->on[i];
        if (!n) {
            snprintf(np->error, sizeof np->error, "check at least one offer (Space)");
            return;
        }
        if (!np->named)
            snprintf(np->text[S_NAME], sizeof np->text[S_NAME], "%d x %s: own or rent", np->count,
                     np->gpus[np->sel[S_GPU]].gpu);
        np->named = true;
        enter_step(np, S_NAME);
        return;
    }
    default:
        finish(t);
    }
}

static void back(tui *t) {
    struct tui_newplan *np = t->np;
    if ((np->step == S_GPU || np->step == S_POWER) && np->filter[0]) {
        np->filter[0] = '\0';
        refilter(np);
        return;
    }
    if (np->step == S_GPU) {
        close_flow(t);
        tui_status(t, "no new plan");
        return;
    }
    enter_step(np, np->step - 1);
}

static unsigned newplan_key(tui *t, int ch) {
    struct tui_newplan *np = t->np;
    int page = tui_rows() - TOP - 6;
    if (ch == 27) {
        back(t);
        return TUI_HANDLED;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        next(t);
        return TUI_HANDLED;
    }
    switch (np->step) {
    case S_GPU:
    case S_POWER:
        /* Letters filter (names have j and k in them): arrows and pages move. */
        if (ch == KEY_UP || ch == KEY_DOWN || ch == KEY_NPAGE || ch == KEY_PPAGE ||
            ch == KEY_HOME || ch == KEY_END) {
            tui_list_key(ch, &np->sel[np->step], np->n_view, page);
        } else {
            bool sel = false;
            if (tui_line_key(np->filter, sizeof np->filter, &sel, ch) == TUI_LINE_CHANGED)
                refilter(np);
        }
        break;
    case S_HW:
        tui_list_key(ch, &np->sel[S_HW], np->n_hw, page);
        break;
    case S_CLOUD:
        if (ch == ' ' && np->n_cl)
            np->on[np->sel[S_CLOUD]] = !np->on[np->sel[S_CLOUD]];
        else
            tui_list_key(ch, &np->sel[S_CLOUD], np->n_cl, page);
        break;
    default: /* a number or the name */
        if (np->step != S_NAME && ch >= 0x20 && ch < 0x7f && !strchr("0123456789.-+eE%", ch))
            break; /* numbers only */
        tui_line_key(np->text[np->step], sizeof np->text[0], &np->text_sel, ch);
        np->error[0] = '\0';
    }
    return TUI_HANDLED;
}

/* ---- drawing ---------------------------------------------------------------------------- */

/* A list row: text on the left shortened in the middle, figures on the right whole. */
static void row(int y, int w, const char *text, const char *figs, bool sel) {
    int attr = sel ? draw_attr(PAL_ACTIVE) : 0;
    draw_fill(y, 0, w, attr);
    int fw = draw_width(figs);
    if (fw > w - 12)
        fw = w - 12;
    draw_text_mid(y, 1, w - fw - 3, text, attr);
    draw_text(y, w - fw - 1, fw, figs, attr);
}

static void draw_summary(const tui *t, int y, int w) {
    const struct tui_newplan *np = t->np;
    char s[1024] = "", c[48];
    size_t n = 0;
    if (np->step > S_GPU)
        n += (size_t)snprintf(s + n, sizeof s - n, "%s", np->gpus[np->sel[S_GPU]].gpu);
    if (np->step > S_GPUS)
        n += (size_t)snprintf(s + n, sizeof s - n, ", %s",
                              gp_fmt_count(np->count, "GPU", "GPUs", c, sizeof c));
    if (np->step > S_UTIL)
        n += (size_t)snprintf(s + n, sizeof s - n, " at %.0f %%", np->util * 100);
    if (np->step > S_GROWTH && np->growth != 0)
        n += (size_t)snprintf(s + n, sizeof s - n, ", growing %.4g %% a month", np->growth * 100);
    if (np->step > S_HORIZON)
        n += (size_t)snprintf(s + n, sizeof s - n, ", %s",
                              gp_fmt_count(np->horizon, "month", "months", c, sizeof c));
    if (np->step > S_HW) {
        char m[48];
        const gp_hw_price *h = &np->hw[np->sel[S_HW]];
        draw_money(h->price_usd / h->gpus, m, sizeof m);
        n += (size_t)snprintf(s + n, sizeof s - n, ", %s USD a GPU (%s)", m, h->date);
    }
    if (np->step > S_POWER && n < sizeof s)
        snprintf(s + n, sizeof s - n, ", power %s", np->pw[np->sel[S_POWER]].name);
    draw_text_mid(y, 0, w, s, draw_attr(PAL_DIM));
}

/* Row k of the GPU models or of the electricity prices: its name, then its figures. */
static void filtered_row(const struct tui_newplan *np, int k, char *text, size_t tcap, char *figs,
                         size_t fcap) {
    if (np->step == S_GPU) {
        const gp_newplan_gpu *g = &np->gpus[k];
        snprintf(text, tcap, "%s  %s", g->gpu, g->full_name);
        char mem[24] = "";
        if (g->memory_gb > 0)
            snprintf(mem, sizeof mem, "%.0f GB", g->memory_gb);
        snprintf(figs, fcap, "%6s %5.0f W %3d offer%s, from %7.3f a GPU-hour", mem, g->tdp_w,
                 g->offers, g->offers == 1 ? " " : "s", g->cheapest_per_gpu_hour);
    } else {
        const gp_newplan_power *p = &np->pw[k];
        snprintf(text, tcap, "%s%s  (%s)", p->tariff ? "tariff " : "", p->name, p->detail);
        snprintf(figs, fcap, "%.4f USD/kWh %10s", p->price_per_kwh, p->date);
    }
}

/* The GPU models or the electricity prices: the filter typed above row y, then the rows that
 * match it, h at most. */
static void draw_filtered(struct tui_newplan *np, int y, int h, int cols) {
    draw_textf(y - 1, 0, cols, 0, "filter: %s_  (%d of %d)", np->filter, np->n_view, list_n(np));
    np->top[np->step] = tui_scroll(np->sel[np->step], np->top[np->step], h, np->n_view);
    for (int i = 0; i < h && np->top[np->step] + i < np->n_view; i++) {
        int v = np->top[np->step] + i;
        char text[400], figs[160];
        filtered_row(np, np->view[v], text, sizeof text, figs, sizeof figs);
        row(y + i, cols, text, figs, v == np->sel[np->step]);
    }
}

/* The server prices from row y, h at most, and under them what the selected one is and where
 * it comes from. */
static void draw_hw_prices(struct tui_newplan *np, int y, int h, int cols) {
    np->top[S_HW] = tui_scroll(np->sel[S_HW], np->top[S_HW], h, np->n_hw);
    for (int i = 0; i < h && np->top[S_HW] + i < np->n_hw; i++) {
        int k = np->top[S_HW] + i;
        const gp_hw_price *p = &np->hw[k];
        char m[48], per[48], figs[160];
        draw_money(p->price_usd, m, sizeof m);
        draw_money(p->price_usd / p->gpus, per, sizeof per);
        snprintf(figs, sizeof figs, "%d GPU%s %11s USD (%s a GPU) %s", p->gpus,
                 p->gpus == 1 ? " " : "s", m, per, p->date);
        row(y + i, cols, p->item, figs, k == np->sel[S_HW]);
    }
    if (np->n_hw) {
        char about[700];
        snprintf(about, sizeof about, "%s (%s)", np->hw[np->sel[S_HW]].note,
                 np->hw_src[np->sel[S_HW]]);
        draw_text_mid(tui_rows() - 4, 1, cols - 2, about, draw_attr(PAL_DIM));
    }
}

/* The cloud offers from row y, h at most, each checked or not. */
static void draw_clouds(struct tui_newplan *np, int y, int h, int cols) {
    np->top[S_CLOUD] = tui_scroll(np->sel[S_CLOUD], np->top[S_CLOUD], h, np->n_cl);
    for (int i = 0; i < h && np->top[S_CLOUD] + i < np->n_cl; i++) {
        int k = np->top[S_CLOUD] + i;
        const gp_newplan_cloud *c = &np->cl[k];
        char text[260], figs[160];
        snprintf(text, sizeof text, "[%c] %s", np->on[k] ? 'x' : ' ', c->label);
        snprintf(figs, sizeof figs, "%7.3f a GPU-hour %2g GPU%s %s", c->per_gpu_hour, c->gpus,
                 c->gpus == 1 ? " " : "s", c->effective_from);
        row(y + i, cols, text, figs, k == np->sel[S_CLOUD]);
    }
}

/* A number or the name, typed on row y, and what Enter does with it. */
static void draw_typed(const struct tui_newplan *np, int y, int cols) {
    static const char *const labels[S_N] = {"", "GPUs:", "utilization:", "growth:", "months:", "",
                                            "", "",      "name:"};
    tui_line_draw(y, 1, cols - 2, labels[np->step], np->text[np->step], np->text_sel, NULL);
    draw_text(y + 2, 1, cols - 2,
              np->step == S_NAME ? "Enter saves the plan and opens it on the Plan tab"
                                 : "typing replaces the value offered; Enter goes on",
              draw_attr(PAL_DIM));
}

static void newplan_draw(tui *t) {
    struct tui_newplan *np = t->np;
    int rows = tui_rows(), cols = tui_cols();
    draw_textf(TOP, 0, cols, draw_attr(PAL_TITLE), "New plan, step %d of %d: %s", np->step + 1, S_N,
               step_title[np->step]);
    draw_summary(t, TOP + 1, cols);
    int y0 = TOP + 3, h = rows - y0 - 4;
    if (np->step == S_GPU || np->step == S_POWER)
        draw_filtered(np, y0, h, cols);
    else if (np->step == S_HW)
        draw_hw_prices(np, y0, h, cols);
    else if (np->step == S_CLOUD)
        draw_clouds(np, y0, h, cols);
    else
        draw_typed(np, y0, cols);
    if (np->error[0])
        draw_text(rows - 3, 0, cols, np->error, draw_attr(PAL_BAD));
    draw_text(rows - 2, 0, cols,
              np->step == S_CLOUD ? "Space check/uncheck  Enter go on  Esc back"
              : np->step == S_GPU ? "Enter choose  Esc clears the filter, then leaves"
                                  : "Enter go on  Esc back",
              draw_attr(PAL_DIM));
}

/* Open the flow: the GPU models and electricity prices (the bundled catalog loads first on
 * a database that never had it: the frame before said so). */
static void newplan_start(tui *t) {
    close_flow(t);
    struct tui_newplan *np = gp_xcalloc(1, sizeof *np);
    gp_err err;
    grow gg = {(void **)&np->gpus, &np->n_gpus, 0, sizeof *np->gpus};
    grow gp = {(void **)&np->pw, &np->n_pw, 0, sizeof *np->pw};
    if (gp_newplan_gpus(t->ses, t->today, take_gpu, &gg, &err) ||
        gp_newplan_power_choices(t->ses, take_power, &gp, &err)) {
        tui_status(t, "no new plan: %s", err.msg);
        np_free(np);
        return;
    }
    if (!np->n_gpus || !np->n_pw) {
        tui_status(t, "no new plan: the catalog has no %s",
                   np->n_gpus ? "electricity price" : "GPU with a price and an offer");
        np_free(np);
        return;
    }
    gp_draft_request d;
    gp_draft_defaults(&d, t->today);
    snprintf(np->text[S_GPUS], sizeof np->text[0], "8");
    snprintf(np->text[S_UTIL], sizeof np->text[0], "%g", d.utilization);
    snprintf(np->text[S_GROWTH], sizeof np->text[0], "0");
    snprintf(np->text[S_HORIZON], sizeof np->text[0], "%d", d.horizon_months);
    t->np = np;
    enter_step(np, S_GPU);
}

static bool newplan_modal(const tui *t) {
    (void)t;
    return true;
}

static void newplan_done(tui *t) {
    close_flow(t);
}

const tui_screen_ops newplan_screen = {
    .name = "New plan",
    .draw = newplan_draw,
    .on_key = newplan_key,
    .modal = newplan_modal,
    .work = newplan_start,
    .done = newplan_done,
};
