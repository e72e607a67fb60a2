/* The Capacity tab, over the last 30 days of the fleet: the utilization distribution, the
 * load duration curve (busy GPUs, sorted), and the own-versus-rent curve of the open scenario
 * (own k GPUs, rent the overflow from its first on-demand or spot option) with its optimum. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "gpuplan/clock.h"
#include "gpuplan/numfmt.h"
#include "view.h"
#include "worker.h"

/* The utilization distribution in hw columns from row TOP + 1: 5 % bins as bars, merged
 * where fewer than h - 1 rows are left. */
static void utilization_bars(const cap_data *d, int hw, int h) {
    /* Whole, and a column short of the next title, so the two never read as one line. */
    static const char *const title[] = {"utilization: share of GPU-time", "GPU-time by utilization",
                                        "utilization", NULL};
    draw_text_fit(TOP + 1, 0, hw - 1, draw_attr(PAL_TITLE), title);
    long long total = 0, peak = 0;
    for (int k = 0; k < GP_UTIL_BINS; k++) {
        total += d->fleet.hist[k];
        peak = d->fleet.hist[k] > peak ? d->fleet.hist[k] : peak;
    }
    int bins = GP_UTIL_BINS < h - 1 ? GP_UTIL_BINS : h - 1 > 1 ? h - 1 : 1;
    int per = (GP_UTIL_BINS + bins - 1) / bins; /* bins merged per row on short terminals */
    for (int r = 0, k = 0; k < GP_UTIL_BINS; r++, k += per) {
        long long n = 0;
        for (int j = k; j < k + per && j < GP_UTIL_BINS; j++)
            n += d->fleet.hist[j];
        int yy = TOP + 2 + r;
        draw_textf(yy, 0, 9, draw_attr(PAL_DIM), "%3d%%%s", k * 5,
                   k + per >= GP_UTIL_BINS ? "+" : "");
        draw_bar(yy, 5, hw - 12, peak > 0 ? (double)n / (double)(peak * per) : 0,
                 draw_attr(PAL_SERIES0 + 1));
        draw_textf(yy, hw - 7, 7, 0, "%5.1f%%", total ? 100.0 * (double)n / (double)total : 0);
    }
}

/* The load duration curve at (TOP + 1, x), h rows: busy GPUs per 5-minute bucket, largest
 * first. */
static void load_duration(const cap_data *d, int x, int w, int h) {
    size_t n = d->nb;
    double *ldc = gp_xmalloc(sizeof *ldc * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        ldc[i] = d->busy[n - 1 - i];
    chart_series ls = {ldc, (int)n, "busy GPUs"};
    static const char *const title[] = {"load duration curve: busy GPUs (>= 5 %), sorted",
                                        "load duration: busy GPUs (>= 5 %)", "load duration", NULL};
    draw_text_fit(TOP + 1, x, w, draw_attr(PAL_TITLE), title);
    if (n >= 2)
        draw_chart(TOP + 2, x, h - 2, w, &ls, 1, 0, 100, "% of time", -1, NULL, false);
    free(ldc);
}

/* The scenario's first option rented by the hour (on-demand or spot), -1 none. */
static int hourly_option(const gp_scenario *s) {
    for (int i = 0; i < s->n_options; i++)
        if (s->options[i].pricing != GP_COMMITTED)
            return i;
    return -1;
}

/* Own k GPUs, rent the rest from option opt: the total against k at (y, x), h rows, under
 * the optimum. */
static void own_vs_rent_chart(const gp_scenario *s, int opt, const cap_data *d, int y, int x, int w,
                              int h) {
    double *curve = gp_xmalloc(sizeof *curve * (size_t)(s->gpus + 1));
    int best = 0;
    gp_err err;
    if (gp_model_mix(s, opt, d->busy, d->nb, curve, &best, &err)) {
        draw_text(y, x, w, err.msg, draw_attr(PAL_BAD));
        free(curve);
        return;
    }
    char m[40], all_own[40], all_rent[40];
    draw_money(curve[best], m, sizeof m);
    draw_money(curve[s->gpus], all_own, sizeof all_own);
    draw_money(curve[0], all_rent, sizeof all_rent);
    const char *from = "own k GPUs, rent the rest from ";
    if (draw_width(from) + draw_width(s->options[opt].name) > w)
        from = "own k, rent from ";
    int fw = draw_width(from);
    draw_text(y, x, w, from, draw_attr(PAL_TITLE));
    draw_text_mid(y, x + fw, w - fw, s->options[opt].name, draw_attr(PAL_TITLE));
    /* The optimum on one line where it fits whole; else the two extremes go to a line of
     * their own while the chart keeps 6 rows; else they are shortened (6.03M), then dropped.
     * The optimum's own figure is never cut. */
    char opt_s[96], ends[128], ends_c[96], full[256], own_c[16], rent_c[16];
    snprintf(opt_s, sizeof opt_s, "optimum: own %d, %s", best, m);
    snprintf(ends, sizeof ends, "all own %s, all rent %s", all_own, all_rent);
    draw_compact(curve[s->gpus], own_c, sizeof own_c);
    draw_compact(curve[0], rent_c, sizeof rent_c);
    snprintf(ends_c, sizeof ends_c, "all own %s, all rent %s", own_c, rent_c);
    int top = 1;
    if (draw_width(opt_s) + 3 + draw_width(ends) <= w) {
        snprintf(full, sizeof full, "%s (%s)", opt_s, ends);
        draw_text(y + 1, x, w, full, draw_attr(PAL_GOOD));
    } else if (h - 3 >= 6 && draw_width(ends) <= w) {
        draw_text(y + 1, x, w, opt_s, draw_attr(PAL_GOOD));
        draw_text(y + 2, x, w, ends, draw_attr(PAL_DIM));
        top = 2;
    } else {
        char shorter[256];
        snprintf(shorter, sizeof shorter, "%s (%s)", opt_s, ends_c);
        const char *const alts[] = {shorter, opt_s, NULL};
        draw_text_fit(y + 1, x, w, draw_attr(PAL_GOOD), alts);
    }
    chart_series cs = {curve, s->gpus + 1, "total"};
    char ml[32];
    snprintf(ml, sizeof ml, "k = %d", best);
    draw_chart(y + 1 + top, x, h - 1 - top, w, &cs, 1, 0, s->gpus, "GPUs owned", best, ml, true);
    free(curve);
}

/* The own-versus-rent curve at (y, x), h rows, or why there is none. */
static void own_vs_rent(const tui *t, const cap_data *d, int y, int x, int w, int h) {
    if (!t->has_sc) {
        draw_text(y, x, w, "Open a scenario (Plan tab) for the own-versus-rent curve.",
                  draw_attr(PAL_DIM));
        return;
    }
    int opt = hourly_option(t->sc.s);
    if (opt < 0 || d->nb == 0) {
        draw_text(y, x, w,
                  opt < 0 ? "The own-versus-rent curve needs an on-demand or spot option."
                          : "No complete 5-minute bucket in the window.",
                  draw_attr(PAL_DIM));
        return;
    }
    own_vs_rent_chart(t->sc.s, opt, d, y, x, w, h);
}

static void capacity_draw(tui *t) {
    int rows = tui_rows(), cols = tui_cols();
    cap_data *d = t->cap;
    if (!d) {
        draw_text(TOP, 0, cols, "Reading 30 days of telemetry...", draw_attr(PAL_DIM));
        return;
    }
    if (d->error[0]) {
        draw_text(TOP, 0, cols, d->error, draw_attr(PAL_BAD));
        return;
    }
    if (!d->gpus || !d->fleet.buckets) {
        draw_text(TOP, 0, cols,
                  "No utilization in the last 30 days. Collect telemetry first (gpuplan collect).",
                  draw_attr(PAL_DIM));
        return;
    }
    gp_cap_figures f;
    gp_cap_figures_of(&d->fleet, 5, &f);
    char ng[48], head[256], shorter[256], shortest[256];
    gp_fmt_count(d->gpus, "GPU", "GPUs", ng, sizeof ng);
    snprintf(head, sizeof head,
             "30 days, %s: mean %.1f %%, p50 %.0f %%, p95 %.0f %%, busy %.1f %% of GPU-hours", ng,
             f.util_mean, f.util_p50, f.util_p95, f.busy_share * 100);
    snprintf(shorter, sizeof shorter,
             "30 days, %s: mean %.1f %%, p50 %.0f %%, p95 %.0f %%, busy %.1f %%", ng, f.util_mean,
             f.util_p50, f.util_p95, f.busy_share * 100);
    snprintf(shortest, sizeof shortest, "30 days, %s: mean %.1f %%, busy %.1f %%", ng, f.util_mean,
             f.busy_share * 100);
    const char *const heads[] = {head, shorter, shortest, NULL};
    draw_text_fit(TOP, 0, cols, draw_attr(PAL_TITLE), heads);
    int hw = cols >= 110 ? 36 : 26;
    utilization_bars(d, hw, rows - TOP - 3);
    /* Right of the bars: the load duration curve above, own-versus-rent below. */
    int x = hw + 1, w = cols - x;
    int h1 = (rows - TOP - 2) / 2, h2 = rows - TOP - 2 - h1;
    load_duration(d, x, w, h1);
    own_vs_rent(t, d, TOP + h1, x, w, h2);
}

/* The Capacity screen's own state: when it last asked the worker (0 after done). */
typedef struct capacity_view {
    int64_t asked_ms;
} capacity_view;

static capacity_view *capv(const tui *t) {
    return t->view[TAB_CAPACITY];
}

static void *capacity_init(tui *t) {
    (void)t;
    return gp_xcalloc(1, sizeof(capacity_view));
}

static void capacity_request(tui *t) {
    int64_t now = gp_now_ms();
    if (now - capv(t)->asked_ms > GP_MINUTE_MS) {
        worker_ask(t, JOB_CAPACITY);
        capv(t)->asked_ms = now;
    }
}

static void capacity_done(tui *t) {
    cap_data_free(t->cap);
    t->cap = NULL;
    capv(t)->asked_ms = 0;
}

const tui_screen_ops capacity_screen = {
    .name = "Capacity",
    .draw = capacity_draw,
    .request = capacity_request,
    .done = capacity_done,
    .init = capacity_init,
};
