/* The Catalog tab: every offer in force today (or the GPU specs), narrowed by a filter that
 * matches any column, sorted by any column; `a` adds the offer to the open scenario as a
 * catalog reference, so its price keeps its source and date. */
#define _GNU_SOURCE /* strcasestr */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "draw.h"
#include "generations.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/numfmt.h"
#include "scen.h"
#include "view.h"
#include "worker.h"

/* O_UNIT: the cost per unit of work of the profile chosen (p), its GPU-hour over the GPU's
 * throughput, marked est (a spec estimate) or meas (a measured figure). */
enum { O_PROVIDER, O_INSTANCE, O_REGION, O_GPU, O_COUNT, O_PRICING, O_HOURLY, O_GPUH, O_UNIT, O_N };
/* The Catalog screen's own state: the list shown (offers or GPUs), its filter, the rows it
 * lets through in the order shown, the selection, the sort and the profile of the cost-per-unit
 * column (an index into gp_profiles). */
typedef struct catalog_view {
    bool gpus;
    char filter[64];
    int *view, n_view, sel, top, sort;
    bool desc;
    int profile;
} catalog_view;

static catalog_view *cat_v(const tui *t) {
    return t->view[TAB_CATALOG];
}

static void *catalog_init(tui *t) {
    (void)t;
    catalog_view *v = gp_xcalloc(1, sizeof *v);
    v->sort = 7; /* per GPU-hour */
    return v;
}

static const char *const ohead[O_N] = {"provider", "instance", "region",    "GPU",     "GPUs",
                                       "pricing",  "hourly",   "per GPU-h", "per unit"};
enum { G_NAME, G_VENDOR, G_MEM, G_TDP, G_FP16, G_RELEASED, G_N };
static const char *const ghead[G_N] = {"GPU",   "vendor",      "memory GB",
                                       "TDP W", "FP16 TFLOPS", "released"};

static bool matches(const tui *t, int i) {
    if (!cat_v(t)->filter[0])
        return true;
    char hay[256];
    if (cat_v(t)->gpus) {
        const gpu_row *g = &t->cat->g[i];
        snprintf(hay, sizeof hay, "%s %s %s", g->name, g->vendor, g->released);
    } else {
        const offer *o = &t->cat->o[i];
        snprintf(hay, sizeof hay, "%s %s %s %s %s %s", o->provider, o->instance, o->region, o->gpu,
                 o->pricing, o->purchase);
    }
    /* Every word of the filter must appear, case-insensitively. */
    char f[64];
    snprintf(f, sizeof f, "%s", cat_v(t)->filter);
    char *save = NULL;
    for (char *w = strtok_r(f, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!strcasestr(hay, w))
            return false;
    return true;
}

static const tui *sorting; /* qsort's context: the TUI runs on one thread */

static int cmp_num(double a, double b) {
    return (a > b) - (a < b);
}

static int cmp_view(const void *pa, const void *pb) {
    const tui *t = sorting;
    int a = *(const int *)pa, b = *(const int *)pb, c = 0;
    if (cat_v(t)->gpus) {
        const gpu_row *x = &t->cat->g[a], *y = &t->cat->g[b];
        switch (cat_v(t)->sort) {
        case G_NAME:
            c = strcmp(x->name, y->name);
            break;
        case G_VENDOR:
            c = strcmp(x->vendor, y->vendor);
            break;
        case G_MEM:
            c = cmp_num(x->v[GP_SPEC_MEMORY_GB], y->v[GP_SPEC_MEMORY_GB]);
            break;
        case G_TDP:
            c = cmp_num(x->v[GP_SPEC_TDP_W], y->v[GP_SPEC_TDP_W]);
            break;
        case G_FP16:
            c = cmp_num(x->v[GP_SPEC_FP16], y->v[GP_SPEC_FP16]);
            break;
        default:
            c = strcmp(x->released, y->released);
        }
    } else {
        const offer *x = &t->cat->o[a], *y = &t->cat->o[b];
        switch (cat_v(t)->sort) {
        case O_PROVIDER:
            c = strcmp(x->provider, y->provider);
            break;
        case O_INSTANCE:
            c = strcmp(x->instance, y->instance);
            break;
        case O_REGION:
            c = strcmp(x->region, y->region);
            break;
        case O_GPU:
            c = strcmp(x->gpu, y->gpu);
            break;
        case O_COUNT:
            c = cmp_num(x->gpus, y->gpus);
            break;
        case O_PRICING:
            c = strcmp(x->pricing, y->pricing);
            break;
        case O_HOURLY:
            c = cmp_num(x->hourly, y->hourly);
            break;
        case O_UNIT: {
            int p = cat_v(t)->profile;
            if (x->has_tp[p] != y->has_tp[p])
                return x->has_tp[p] ? -1 : 1; /* without a throughput: last, either way */
            c = x->has_tp[p] ? cmp_num(x->per_gpu_hour / x->tp[p], y->per_gpu_hour / y->tp[p]) : 0;
            break;
        }
        default:
            c = cmp_num(x->per_gpu_hour, y->per_gpu_hour);
        }
    }
    if (cat_v(t)->desc)
        c = -c;
    return c ? c : a - b; /* stable: the store's order breaks ties */
}

static void catalog_refilter(tui *t) {
    free(cat_v(t)->view);
    cat_v(t)->view = NULL;
    cat_v(t)->n_view = 0;
    if (!t->cat)
        return;
    int n = cat_v(t)->gpus ? t->cat->ng : t->cat->n;
    cat_v(t)->view = gp_xmalloc(sizeof *cat_v(t)->view * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        if (matches(t, i))
            cat_v(t)->view[cat_v(t)->n_view++] = i;
    sorting = t;
    qsort(cat_v(t)->view, (size_t)cat_v(t)->n_view, sizeof *cat_v(t)->view, cmp_view);
    if (cat_v(t)->sel >= cat_v(t)->n_view)
        cat_v(t)->sel = cat_v(t)->n_view ? cat_v(t)->n_view - 1 : 0;
}

/* The cells of view row k (a catalog row index) into cells. */
static void cells_of(const tui *t, int k, char cells[O_N][96]) {
    if (cat_v(t)->gpus) {
        const gpu_row *g = &t->cat->g[k];
        snprintf(cells[0], 96, "%s", g->name);
        snprintf(cells[1], 96, "%s", g->vendor);
        snprintf(cells[2], 96, g->has[GP_SPEC_MEMORY_GB] ? "%.0f" : "-", g->v[GP_SPEC_MEMORY_GB]);
        snprintf(cells[3], 96, g->has[GP_SPEC_TDP_W] ? "%.0f" : "-", g->v[GP_SPEC_TDP_W]);
        snprintf(cells[4], 96, g->has[GP_SPEC_FP16] ? "%.1f" : "-", g->v[GP_SPEC_FP16]);
        snprintf(cells[5], 96, "%s", g->released);
        return;
    }
    const offer *o = &t->cat->o[k];
    snprintf(cells[0], 96, "%s", o->provider);
    snprintf(cells[1], 96, "%s", o->instance);
    snprintf(cells[2], 96, "%s", o->region);
    snprintf(cells[3], 96, "%s", o->gpu);
    snprintf(cells[4], 96, "%g", o->gpus);
    if (o->term)
        snprintf(cells[5], 96, "commit %dm", o->term);
    else
        snprintf(cells[5], 96, "%s", o->pricing);
    snprintf(cells[6], 96, "%.3f", o->hourly);
    snprintf(cells[7], 96, "%.3f", o->per_gpu_hour);
    int p = cat_v(t)->profile;
    if (o->has_tp[p])
        snprintf(cells[8], 96, "%.4g %s", o->per_gpu_hour / o->tp[p],
                 o->tp_measured[p]    ? "meas"
                 : o->tp_published[p] ? "pub"
                                      : "est");
    else
        snprintf(cells[8], 96, "-");
}

/* Columns as wide as their widest cell among the rows that show, and their header. When
 * that does not fit, headers wider than their cells give first (down to 6 columns), then
 * the widest text column gives a column at a time, down to 6. Numbers never give: they are
 * drawn whole. */
static void fit_columns(const tui *t, int top, int h, int *wd) {
    int nc = cat_v(t)->gpus ? G_N : O_N;
    const char *const *hd = cat_v(t)->gpus ? ghead : ohead;
    bool text[O_N];
    int data[O_N];
    for (int c = 0; c < nc; c++) {
        data[c] = 1;
        text[c] = cat_v(t)->gpus ? c <= G_VENDOR : c <= O_GPU || c == O_PRICING;
    }
    for (int i = 0; i < h && top + i < cat_v(t)->n_view; i++) {
        char cells[O_N][96];
        cells_of(t, cat_v(t)->view[top + i], cells);
        for (int c = 0; c < nc; c++) {
            int w = draw_width(cells[c]);
            data[c] = w > data[c] ? w : data[c];
        }
    }
    int total = 0;
    for (int c = 0; c < nc; c++) {
        int hw = draw_width(hd[c]) + (c == cat_v(t)->sort ? 2 : 0);
        wd[c] = hw > data[c] ? hw : data[c];
        total += wd[c] + 1;
    }
    for (int phase = 0; phase < 2 && total > tui_cols(); phase++)
        while (total > tui_cols()) {
            int pick = -1;
            for (int c = 0; c < nc; c++) {
                int floor = phase == 0 ? (data[c] > 6 ? data[c] : 6) : 6;
                if ((phase == 1 && !text[c]) || wd[c] <= floor)
                    continue;
                int excess = phase == 0 ? wd[c] - data[c] : wd[c];
                int best = pick < 0 ? -1 : phase == 0 ? wd[pick] - data[pick] : wd[pick];
                if (excess > best)
                    pick = c;
            }
            if (pick < 0)
                break;
            wd[pick]--, total--;
        }
}

static void catalog_draw(tui *t) {
    if (gen_showing(t)) {
        gen_draw(t);
        return;
    }
    int rows = tui_rows(), cols = tui_cols();
    if (!t->cat) {
        draw_text(TOP, 0, cols, "Reading the catalog...", draw_attr(PAL_DIM));
        return;
    }
    if (t->cat->error[0])
        draw_text(rows - 3, 0, cols, t->cat->error, draw_attr(PAL_BAD));
    int total = cat_v(t)->gpus ? t->cat->ng : t->cat->n;
    /* The counts whole; what the per-unit column holds in the room left, shortened there. */
    char left[256], shown[32], all[32];
    snprintf(left, sizeof left, "%s: %s of %s%s%s%s",
             cat_v(t)->gpus ? "GPUs" : "Offers in force today",
             gp_fmt_grouped(cat_v(t)->n_view, 0, shown, sizeof shown),
             gp_fmt_grouped(total, 0, all, sizeof all), cat_v(t)->filter[0] ? "  filter: " : "",
             cat_v(t)->filter, t->prompt == PROMPT_FILTER ? "_" : "");
    int lw = draw_text(TOP, 0, cols, left, draw_attr(PAL_TITLE));
    if (!cat_v(t)->gpus && cols - lw > 14) {
        const gp_profile *pf = &gp_profiles[cat_v(t)->profile];
        char unit[128];
        snprintf(unit, sizeof unit, "per unit: %s, %s (p)", pf->unit, pf->name);
        int uw = draw_width(unit) < cols - lw - 2 ? draw_width(unit) : cols - lw - 2;
        draw_text_mid(TOP, cols - uw, uw, unit, draw_attr(PAL_DIM));
    }
    int nc = cat_v(t)->gpus ? G_N : O_N;
    const char *const *hd = cat_v(t)->gpus ? ghead : ohead;
    int y = TOP + 1, h = rows - y - 3;
    cat_v(t)->top = tui_scroll(cat_v(t)->sel, cat_v(t)->top, h, cat_v(t)->n_view);
    int wd[O_N];
    fit_columns(t, cat_v(t)->top, h, wd);
    int x = 0;
    for (int c = 0; c < nc && x < cols; c++) {
        char hh[32];
        snprintf(hh, sizeof hh, "%s%s", hd[c],
                 c == cat_v(t)->sort ? (cat_v(t)->desc ? " v" : " ^") : "");
        draw_text_mid(y, x, wd[c], hh,
                      c == cat_v(t)->sort ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_TITLE));
        x += wd[c] + 1;
    }
    for (int i = 0; i < h && cat_v(t)->top + i < cat_v(t)->n_view; i++) {
        int k = cat_v(t)->view[cat_v(t)->top + i];
        bool sel = cat_v(t)->top + i == cat_v(t)->sel;
        int attr = sel ? draw_attr(PAL_ACTIVE) : 0;
        int yy = y + 1 + i;
        draw_fill(yy, 0, cols, attr);
        char cells[O_N][96];
        cells_of(t, k, cells);
        x = 0;
        for (int c = 0; c < nc && x < cols; c++) {
            draw_text_mid(yy, x, wd[c], cells[c], attr);
            x += wd[c] + 1;
        }
    }
    draw_text(rows - 2, 0, cols,
              cat_v(t)->gpus ? "/ filter  Left/Right sort  r reverse  o offers  w generations"
                             : "/ filter  Left/Right sort  r reverse  a add  p profile  g GPUs  "
                               "w generations",
              draw_attr(PAL_DIM));
}

static void filter_key(tui *t, int ch) {
    bool sel = false; /* the filter is never pre-filled */
    int r = tui_line_key(cat_v(t)->filter, sizeof cat_v(t)->filter, &sel, ch);
    if (r == TUI_LINE_CANCEL)
        cat_v(t)->filter[0] = '\0';
    if (r == TUI_LINE_CANCEL || r == TUI_LINE_DONE)
        t->prompt = PROMPT_NONE;
    if (r == TUI_LINE_CANCEL) {
        catalog_refilter(t);
    } else if (r == TUI_LINE_CHANGED) {
        cat_v(t)->sel = cat_v(t)->top = 0;
        catalog_refilter(t);
    }
}

static unsigned catalog_key(tui *t, int ch) {
    if (t->prompt == PROMPT_FILTER) {
        filter_key(t, ch);
        return TUI_HANDLED;
    }
    if (gen_showing(t)) {
        if (gen_modal(t) || (ch != 'o' && ch != 'g'))
            return (gen_key(t, ch) & TUI_HANDLED) || ch == 'w' ? TUI_HANDLED : 0;
        gen_show(t, false); /* o or g: back to the lists */
    } else if (ch == 'w') {
        gen_show(t, true);
        return TUI_HANDLED;
    }
    int page = tui_rows() - TOP - 5;
    int nc = cat_v(t)->gpus ? G_N : O_N;
    if (tui_list_key(ch, &cat_v(t)->sel, cat_v(t)->n_view, page))
        return TUI_HANDLED;
    switch (ch) {
    case KEY_LEFT:
    case 'h':
        cat_v(t)->sort = (cat_v(t)->sort + nc - 1) % nc;
        catalog_refilter(t);
        return TUI_HANDLED;
    case KEY_RIGHT:
    case 'l':
        cat_v(t)->sort = (cat_v(t)->sort + 1) % nc;
        catalog_refilter(t);
        return TUI_HANDLED;
    case 'r':
        cat_v(t)->desc = !cat_v(t)->desc;
        catalog_refilter(t);
        return TUI_HANDLED;
    case 'p':
        if (cat_v(t)->gpus)
            return 0;
        cat_v(t)->profile = (cat_v(t)->profile + 1) %
                            (gp_n_profiles < TUI_MAX_PROFILES ? gp_n_profiles : TUI_MAX_PROFILES);
        catalog_refilter(t);
        return TUI_HANDLED;
    case 'g':
    case 'o':
        if ((ch == 'g') == cat_v(t)->gpus)
            return TUI_HANDLED;
        cat_v(t)->gpus = ch == 'g';
        cat_v(t)->sort = cat_v(t)->gpus ? G_NAME : O_GPUH;
        cat_v(t)->sel = cat_v(t)->top = 0;
        catalog_refilter(t);
        return TUI_HANDLED;
    case '/':
        t->prompt = PROMPT_FILTER;
        t->prompt_label = "Filter:";
        t->prompt_hint = "  (Enter keeps, Esc clears)";
        t->prompt_text = cat_v(t)->filter;
        return TUI_HANDLED;
    case 'a':
        if (cat_v(t)->gpus || !t->cat || !cat_v(t)->n_view)
            return TUI_HANDLED;
        if (!t->pe)
            tui_status(t, "open a scenario first (Plan tab)");
        else
            scen_add_option(t, &t->cat->o[cat_v(t)->view[cat_v(t)->sel]]);
        return TUI_HANDLED;
    }
    return 0;
}

static bool catalog_modal(const tui *t) {
    return t->prompt == PROMPT_FILTER || gen_modal(t);
}

static void catalog_request(tui *t) {
    if (!t->cat && !worker_busy(t, JOB_CATALOG))
        worker_ask(t, JOB_CATALOG);
}

static void catalog_refresh(tui *t, unsigned jobs) {
    if (jobs & (1u << JOB_CATALOG))
        catalog_refilter(t);
    if (jobs & (1u << JOB_COMPARE))
        gen_on_data(t);
}

static void catalog_click(tui *t, int row, int x) {
    if (gen_showing(t)) {
        gen_click(t, row, x);
        return;
    }
    if (row >= TOP + 2) {
        int k = cat_v(t)->top + row - TOP - 2;
        if (k < cat_v(t)->n_view)
            cat_v(t)->sel = k;
    }
}

static void catalog_done(tui *t) {
    catalog_data_free(t->cat);
    t->cat = NULL;
    free(cat_v(t)->view);
    cat_v(t)->view = NULL;
    gen_done(t);
}

const tui_screen_ops catalog_screen = {
    .name = "Catalog",
    .draw = catalog_draw,
    .on_key = catalog_key,
    .modal = catalog_modal,
    .request = catalog_request,
    .on_data = catalog_refresh,
    .click = catalog_click,
    .done = catalog_done,
    .init = catalog_init,
};
