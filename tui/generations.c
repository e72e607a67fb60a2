/* The generations view of the Catalog tab (generations.h): the comparison of GPU generations
 * per unit of work that `gpuplan compare` prints, asked of the same service on the worker
 * thread, ranked, sortable, saved a row at a time as a scenario. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/numfmt.h"
#include "generations.h"
#include "scen.h"
#include "view.h"
#include "worker.h"

typedef struct tui_gen {
    bool open;
    double work_per_month;
    int profile, horizon_months; /* profile: an index into gp_profiles */
    int sel, top, sort;
    bool desc;
    int *view, n_view; /* row indices of t->gen_res->c, in the order shown */
} tui_gen;

enum { K_RANK, K_GPU, K_SIDE, K_PRICING, K_TP, K_KIND, K_GPUS, K_TOTAL, K_UNIT, K_EVEN, K_N };
static const char *const head[K_N] = {"#",      "GPU",  "side",  "pricing",  "work/h",
                                      "figure", "GPUs", "total", "per unit", "even"};
/* Text columns give way (middle ellipsis) when the screen is narrow; numbers never do. */
static const bool text_col[K_N] = {false, true,  true,  true,  false,
                                   false, false, false, false, false};

static tui_gen *gen_of(tui *t) {
    if (!t->gen) {
        t->gen = gp_xcalloc(1, sizeof *t->gen);
        t->gen->work_per_month = 200000;
        t->gen->horizon_months = 36;
    }
    return t->gen;
}

bool gen_showing(const tui *t) {
    return t->gen && t->gen->open;
}

static void request(const tui_gen *g, const char *as_of, gp_compare_request *rq) {
    gp_compare_defaults(rq, as_of);
    rq->work_per_month = g->work_per_month;
    rq->profile = gp_profiles[g->profile].name;
    rq->unit = gp_profiles[g->profile].unit;
    rq->horizon_months = g->horizon_months;
}

static void ask(tui *t) {
    gp_compare_request rq;
    request(t->gen, t->today, &rq);
    worker_ask_compare(t, &rq);
}

/* Whether the comparison in hand is the one the form asks for. */
static bool current(const tui *t) {
    const gen_data *d = t->gen_res;
    const tui_gen *g = t->gen;
    return d && d->rq.work_per_month == g->work_per_month &&
           d->rq.horizon_months == g->horizon_months &&
           !strcmp(d->rq.profile, gp_profiles[g->profile].name);
}

void gen_show(tui *t, bool show) {
    tui_gen *g = gen_of(t);
    g->open = show;
    if (show && !current(t) && !worker_busy(t, JOB_COMPARE))
        ask(t);
}

/* ---- cells, sorting ----------------------------------------------------------------------- */

static const tui *sorting; /* qsort's context: the TUI runs on one thread */

static double num_of(const gp_compare_row *r, int k) {
    switch (k) {
    case K_RANK:
        return r->rank;
    case K_TP:
        return r->throughput;
    case K_GPUS:
        return r->gpus_needed;
    case K_TOTAL:
        return r->total;
    case K_UNIT:
        return r->cost_per_unit;
    default: /* K_EVEN: never after any month */
        return r->has_break_even ? r->break_even_month : r->own ? -1 : 1e9;
    }
}

static const char *side_of(const gp_compare_row *r) {
    return r->own ? "own" : r->provider[0] ? r->provider : "-";
}

/* An API row has no GPU (docs/compare.md "API rows"). */
static const char *gpu_of(const gp_compare_row *r) {
    return r->api ? "API" : r->gpu;
}

static const char *text_of(const gp_compare_row *r, int k) {
    return k == K_GPU       ? gpu_of(r)
           : k == K_SIDE    ? side_of(r)
           : k == K_PRICING ? r->pricing
                            : gp_tp_kind_name(r->tp_kind);
}

static int cmp_rows(const void *pa, const void *pb) {
    const tui *t = sorting;
    int a = *(const int *)pa, b = *(const int *)pb;
    const gp_compare_row *x = &t->gen_res->c.rows[a], *y = &t->gen_res->c.rows[b];
    bool mx = x->missing[0], my = y->missing[0];
    if (mx != my)
        return mx ? 1 : -1; /* what could not be compared stays last, either direction */
    int k = t->gen->sort, c;
    if (mx || k == K_RANK)
        c = mx ? strcmp(x->gpu, y->gpu) : (x->rank > y->rank) - (x->rank < y->rank);
    else if (text_col[k] || k == K_KIND)
        c = strcmp(text_of(x, k), text_of(y, k));
    else
        c = (num_of(x, k) > num_of(y, k)) - (num_of(x, k) < num_of(y, k));
    if (t->gen->desc && !mx)
        c = -c;
    return c ? c : a - b;
}

static void resort(tui *t) {
    tui_gen *g = t->gen;
    free(g->view);
    g->view = NULL;
    g->n_view = 0;
    if (!t->gen_res || t->gen_res->error[0])
        return;
    int n = t->gen_res->c.n;
    g->view = gp_xmalloc(sizeof *g->view * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        g->view[g->n_view++] = i;
    sorting = t;
    qsort(g->view, (size_t)g->n_view, sizeof *g->view, cmp_rows);
    if (g->sel >= g->n_view)
        g->sel = g->n_view ? g->n_view - 1 : 0;
}

void gen_on_data(tui *t) {
    if (t->gen)
        resort(t);
}

/* The cells of a ranked row (a missing one has its own line). */
static void cells_of(const gp_compare_row *r, char cells[K_N][320]) {
    snprintf(cells[K_RANK], 320, "%d", r->rank);
    for (int k = K_GPU; k <= K_PRICING; k++)
        snprintf(cells[k], 320, "%s", text_of(r, k));
    if (r->api) { /* bought per unit of work: no throughput, no GPUs */
        snprintf(cells[K_TP], 320, "-");
        snprintf(cells[K_KIND], 320, "api");
        snprintf(cells[K_GPUS], 320, "-");
    } else {
        snprintf(cells[K_TP], 320, "%.4g", r->throughput);
        snprintf(cells[K_KIND], 320, "%s", gp_tp_kind_name(r->tp_kind));
        snprintf(cells[K_GPUS], 320, "%d", r->gpus_needed);
    }
    draw_money(r->total, cells[K_TOTAL], 320);
    snprintf(cells[K_UNIT], 320, "%.6g", r->cost_per_unit);
    if (r->own)
        snprintf(cells[K_EVEN], 320, "-");
    else if (r->has_break_even)
        snprintf(cells[K_EVEN], 320, "%d", r->break_even_month);
    else
        snprintf(cells[K_EVEN], 320, "never");
}

/* Column widths: each number as wide as its widest cell (and its header); the text columns
 * share what is left, the pricing first to give way, none below 5. */
static void fit(const tui *t, int *wd) {
    const gen_data *d = t->gen_res;
    for (int k = 0; k < K_N; k++)
        wd[k] = draw_width(head[k]) + (k == t->gen->sort ? 2 : 0);
    for (int i = 0; i < d->c.n_ranked; i++) {
        char cells[K_N][320];
        cells_of(&d->c.rows[i], cells);
        for (int k = 0; k < K_N; k++) {
            int w = draw_width(cells[k]);
            wd[k] = w > wd[k] ? w : wd[k];
        }
    }
    for (int i = d->c.n_ranked; i < d->c.n; i++) { /* a GPU not compared shows its name too */
        int w = draw_width(d->c.rows[i].gpu);
        wd[K_GPU] = w > wd[K_GPU] ? w : wd[K_GPU];
    }
    int total = 0;
    for (int k = 0; k < K_N; k++)
        total += wd[k] + 1;
    static const int give[3] = {K_PRICING, K_GPU, K_SIDE};
    for (int g = 0; g < 3 && total > tui_cols(); g++) {
        int k = give[g], cut = total - tui_cols(), room = wd[k] - 5;
        int by = cut < room ? cut : room > 0 ? room : 0;
        wd[k] -= by, total -= by;
    }
}

/* ---- drawing ------------------------------------------------------------------------------ */

void gen_draw(tui *t) {
    tui_gen *g = t->gen;
    int rows = tui_rows(), cols = tui_cols();
    const gp_profile *p = &gp_profiles[g->profile];
    char title[256], work[48]; /* the inputs whole: the longer wording only where it fits */
    gp_fmt_sig_grouped(g->work_per_month, 10, work, sizeof work);
    snprintf(title, sizeof title,
             "Generations per unit of work: %s %s a month, profile %s, %d months, as of %s", work,
             p->unit, p->name, g->horizon_months, t->today);
    if (draw_width(title) > cols)
        snprintf(title, sizeof title, "%s %s a month, %s, %d months, as of %s", work, p->unit,
                 p->name, g->horizon_months, t->today);
    draw_text(TOP, 0, cols, title, draw_attr(PAL_TITLE));
    const gen_data *d = t->gen_res;
    if (!d || !current(t)) {
        draw_text(TOP + 2, 0, cols, "Comparing every GPU model, owned and rented...",
                  draw_attr(PAL_DIM));
    } else if (d->error[0]) {
        draw_text(TOP + 2, 0, cols, d->error, draw_attr(PAL_BAD));
    } else {
        int wd[K_N], y = TOP + 1, x = 0;
        fit(t, wd);
        for (int k = 0; k < K_N && x < cols; k++) {
            char h[32];
            snprintf(h, sizeof h, "%s%s", head[k], k == g->sort ? (g->desc ? " v" : " ^") : "");
            int attr = k == g->sort ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_TITLE);
            if (text_col[k] || k == K_KIND)
                draw_text_mid(y, x, wd[k], h, attr);
            else
                draw_textf(y, x, wd[k], attr, "%*s", wd[k], h);
            x += wd[k] + 1;
        }
        int h = rows - y - 3;
        g->top = tui_scroll(g->sel, g->top, h, g->n_view);
        for (int i = 0; i < h && g->top + i < g->n_view; i++) {
            const gp_compare_row *r = &d->c.rows[g->view[g->top + i]];
            bool sel = g->top + i == g->sel;
            int attr = sel ? draw_attr(PAL_ACTIVE) : r->rank == 1 ? draw_attr(PAL_GOOD) : 0;
            int yy = y + 1 + i;
            draw_fill(yy, 0, cols, attr);
            x = 0;
            if (r->missing[0]) { /* shown as such: the GPU model and what it lacks */
                draw_textf(yy, x, wd[K_RANK], attr, "%*s", wd[K_RANK], "-");
                x += wd[K_RANK] + 1;
                draw_text_mid(yy, x, wd[K_GPU], gpu_of(r), attr);
                x += wd[K_GPU] + 1;
                char why[400];
                if (strcmp(side_of(r), "-"))
                    snprintf(why, sizeof why, "%s: %s", side_of(r), r->missing);
                else
                    snprintf(why, sizeof why, "%s", r->missing);
                draw_text_mid(yy, x, cols - x, why, attr | draw_attr(PAL_DIM));
                continue;
            }
            char cells[K_N][320];
            cells_of(r, cells);
            for (int k = 0; k < K_N && x < cols; k++) {
                if (text_col[k] || k == K_KIND)
                    draw_text_mid(yy, x, wd[k], cells[k], attr);
                else
                    draw_textf(yy, x, wd[k], attr, "%*s", wd[k], cells[k]);
                x += wd[k] + 1;
            }
        }
    }
    draw_text(rows - 2, 0, cols,
              "W work  p profile  H horizon  Left/Right sort  r reverse  s save  o offers",
              draw_attr(PAL_DIM));
}

/* ---- keys --------------------------------------------------------------------------------- */

bool gen_modal(const tui *t) {
    return t->prompt == PROMPT_GEN_WORK || t->prompt == PROMPT_GEN_HORIZON ||
           t->prompt == PROMPT_GEN_SAVE;
}

/* The row selected, if it is ranked. */
static const gp_compare_row *selected(const tui *t) {
    const tui_gen *g = t->gen;
    if (!t->gen_res || !current(t) || t->gen_res->error[0] || !g->n_view)
        return NULL;
    const gp_compare_row *r = &t->gen_res->c.rows[g->view[g->sel]];
    return r->missing[0] ? NULL : r;
}

static void save_row(tui *t, const char *name) {
    const gp_compare_row *r = selected(t);
    if (!r)
        return;
    gp_err err;
    gp_err_clear(&err);
    int version;
    if (gp_compare_save(t->ses, &t->gen_res->c, r->rank, name, &version, &err)) {
        tui_status(t, "not saved: %s", err.msg);
        return;
    }
    scen_load_names(t);
    tui_status(t, "saved \"%s\", version %d: rank %d, %s %s %s", name, version, r->rank, gpu_of(r),
               side_of(r), r->pricing);
}

static void prompt_key(tui *t, int ch) {
    tui_gen *g = t->gen;
    int kind = t->prompt;
    int r = tui_line_key(t->prompt_buf, sizeof t->prompt_buf, &t->prompt_sel, ch);
    if (r == TUI_LINE_CANCEL || r == TUI_LINE_DONE)
        t->prompt = PROMPT_NONE;
    if (r != TUI_LINE_DONE)
        return;
    if (kind == PROMPT_GEN_SAVE) {
        if (t->prompt_buf[0])
            save_row(t, t->prompt_buf);
        return;
    }
    double v;
    int n;
    if (kind == PROMPT_GEN_WORK) {
        if (!gp_parse_double(t->prompt_buf, &v) || !(v > 0) || !isfinite(v)) {
            tui_status(t, "work a month: \"%s\" is not a number above 0", t->prompt_buf);
            return;
        }
        g->work_per_month = v;
    } else {
        if (!gp_parse_int(t->prompt_buf, &n) || n < 1 || n > GP_MAX_MONTHS) {
            tui_status(t, "horizon: \"%s\" is not 1..%d months", t->prompt_buf, GP_MAX_MONTHS);
            return;
        }
        g->horizon_months = n;
    }
    ask(t);
}

unsigned gen_key(tui *t, int ch) {
    tui_gen *g = t->gen;
    if (gen_modal(t)) {
        prompt_key(t, ch);
        return TUI_HANDLED;
    }
    if (tui_list_key(ch, &g->sel, g->n_view, tui_rows() - TOP - 5))
        return TUI_HANDLED;
    char buf[64];
    switch (ch) {
    case KEY_LEFT:
    case 'h':
    case KEY_RIGHT:
    case 'l':
        g->sort = (g->sort + (ch == KEY_LEFT || ch == 'h' ? K_N - 1 : 1)) % K_N;
        resort(t);
        return TUI_HANDLED;
    case 'r':
        g->desc = !g->desc;
        resort(t);
        return TUI_HANDLED;
    case 'p':
        g->profile = (g->profile + 1) % gp_n_profiles;
        ask(t);
        return TUI_HANDLED;
    case 'W':
        snprintf(buf, sizeof buf, "%.10g", g->work_per_month);
        tui_prompt(t, PROMPT_GEN_WORK, "Work a month:", buf);
        t->prompt_hint = gp_profiles[g->profile].unit;
        return TUI_HANDLED;
    case 'H':
        snprintf(buf, sizeof buf, "%d", g->horizon_months);
        tui_prompt(t, PROMPT_GEN_HORIZON, "Horizon (months):", buf);
        return TUI_HANDLED;
    case 's': {
        const gp_compare_row *r = selected(t);
        if (!r) {
            tui_status(t, "choose a ranked row to save");
            return TUI_HANDLED;
        }
        char name[GP_NAME_BYTES];
        snprintf(name, sizeof name, "%s %s %s per %s", gpu_of(r), side_of(r), r->pricing,
                 gp_profiles[g->profile].unit);
        tui_prompt(t, PROMPT_GEN_SAVE, "Save as scenario:", name);
        return TUI_HANDLED;
    }
    }
    return 0;
}

void gen_click(tui *t, int y, int x) {
    (void)x;
    tui_gen *g = t->gen;
    int k = g->top + y - TOP - 2;
    if (y >= TOP + 2 && k < g->n_view)
        g->sel = k;
}

void gen_done(tui *t) {
    if (t->gen)
        free(t->gen->view);
    free(t->gen);
    t->gen = NULL;
    gen_data_free(t->gen_res);
    t->gen_res = NULL;
}
