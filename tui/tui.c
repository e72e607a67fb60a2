/* The TUI's loop: one frame drawn from the state, keys and mouse dispatched to the tab, the
 * worker's results taken between keys. getch waits at most 100 ms, so the worker's results
 * and the clock show up without input. Between a key and its frame run only the engine and
 * single-row reads and writes (open, save, export); fleet, capacity and catalog reads are the
 * worker's. */
#include <curses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "gpuplan/collect.h"
#include "tui.h"
#include "tui_int.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
    stop_signal = sig;
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int tui_rows(void) {
    return LINES;
}
int tui_cols(void) {
    return COLS;
}

void tui_status(tui *t, const char *fmt, ...) {
    char raw[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    draw_clean(raw, t->status, sizeof t->status);
    t->status_ms = gp_now_ms();
}

bool tui_list_key(int ch, int *sel, int n, int page) {
    int to = *sel;
    switch (ch) {
    case KEY_DOWN:
    case 'j':
        to++;
        break;
    case KEY_UP:
    case 'k':
        to--;
        break;
    case KEY_NPAGE:
        to += page > 1 ? page : 1;
        break;
    case KEY_PPAGE:
        to -= page > 1 ? page : 1;
        break;
    case KEY_HOME:
        to = 0;
        break;
    case KEY_END:
        to = n - 1;
        break;
    default:
        return false;
    }
    *sel = to >= n ? n - 1 : to;
    if (*sel < 0)
        *sel = 0;
    return true;
}

int tui_scroll(int sel, int top, int h, int n) {
    if (h <= 0)
        return 0;
    if (sel < top)
        top = sel;
    if (sel >= top + h)
        top = sel - h + 1;
    if (top > n - h)
        top = n - h;
    return top < 0 ? 0 : top;
}

static const char *const tab_names[TAB_N] = {"Plan",  "Compare", "Break-even",
                                             "Fleet", "Catalog", "Capacity"};
static int tab_x[TAB_N + 1];

static void draw_tabs(tui *t) {
    int cols = COLS;
    draw_fill(0, 0, cols, draw_attr(PAL_TITLE));
    int x = 0;
    for (int i = 0; i < TAB_N; i++) {
        char label[32];
        /* Narrow terminals get the numbers and short names. */
        if (cols < 72)
            snprintf(label, sizeof label, " %d %.5s ", i + 1, tab_names[i]);
        else
            snprintf(label, sizeof label, " %d %s ", i + 1, tab_names[i]);
        tab_x[i] = x;
        x += draw_text(0, x, cols - x, label,
                       i == t->tab ? draw_attr(PAL_ACTIVE) : draw_attr(PAL_TITLE));
    }
    tab_x[TAB_N] = x;
    char right[96];
    snprintf(right, sizeof right, "%s%s", t->demo ? "demo  " : "", "gpuplan");
    int rw = (int)strlen(right);
    if (cols - rw - 1 > x)
        draw_text(0, cols - rw - 1, rw, right, draw_attr(PAL_TITLE));
}

static void draw_status(tui *t) {
    int y = LINES - 1, cols = COLS;
    draw_fill(y, 0, cols, draw_attr(PAL_ACTIVE));
    if (t->prompt == PROMPT_EXPORT || t->prompt == PROMPT_SAVE_AS) {
        draw_textf(y, 0, cols, draw_attr(PAL_EDIT), "%s %s_",
                   t->prompt == PROMPT_EXPORT ? "Export to XLSX:" : "Save as:", t->prompt_buf);
        return;
    }
    if (t->prompt == PROMPT_FILTER) {
        draw_textf(y, 0, cols, draw_attr(PAL_EDIT), "Filter: %s_  (Enter keeps, Esc clears)",
                   t->cat_filter);
        return;
    }
    /* What is running, with a spinner; else the last message for 8 s; else the keys. */
    static const char spin[] = "|/-\\";
    char running[96] = "";
    size_t n = 0;
    if (worker_busy(t, JOB_FLEET))
        n += (size_t)snprintf(running + n, sizeof running - n, " fleet");
    if (worker_busy(t, JOB_CAPACITY))
        n += (size_t)snprintf(running + n, sizeof running - n, " capacity");
    if (worker_busy(t, JOB_CATALOG))
        n += (size_t)snprintf(running + n, sizeof running - n, " catalog");
    int x = 0;
    if (n)
        x += draw_textf(y, 0, cols, draw_attr(PAL_ACTIVE), "%c reading%s  ",
                        spin[(gp_now_ms() / 150) % 4], running);
    if (t->status[0] && gp_now_ms() - t->status_ms < 8000)
        draw_text(y, x, cols - x, t->status, draw_attr(PAL_ACTIVE));
    else
        draw_text(y, x, cols - x, "? help  1-6 tabs  x export  q quit", draw_attr(PAL_ACTIVE));
}

static const char *const help_lines[] = {
    "Everywhere",
    "  1-6, Tab, Shift-Tab   switch tabs (or click a tab)",
    "  Up/Down, j/k          move;  PgUp/PgDn page;  g/G first/last (Plan)",
    "  x                     export the open scenario to XLSX (asks for the path)",
    "  ?                     this help;  q quits (Ctrl-C too)",
    "Plan",
    "  Enter                 open a scenario / edit a field",
    "  while editing         type digits . - e; Backspace; Enter commits, Esc cancels",
    "  Left/Right, h/l       scenarios <-> fields",
    "  s / S                 save a new version / save under a new name",
    "  u                     undo the last change;  t  pick a tariff preset",
    "Compare                 Left/Right sort column, r reverse (or click a header)",
    "Fleet                   Enter opens the node, Esc closes",
    "Catalog                 / filter, Left/Right sort, r reverse, a add the offer to the",
    "                        open scenario, g GPUs, o offers",
    "Any key closes this help.",
};

static void draw_help(void) {
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    int w = COLS - 4 < 84 ? COLS - 4 : 84, h = n + 2 < LINES - 2 ? n + 2 : LINES - 2;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    for (int r = 0; r < h; r++)
        draw_fill(y0 + r, x0, w, draw_attr(PAL_ACTIVE));
    draw_text(y0, x0 + 1, w - 2, "Keys", draw_attr(PAL_ACTIVE) | A_BOLD);
    for (int i = 0; i < n && i < h - 2; i++)
        draw_text(y0 + 1 + i, x0 + 1, w - 2, help_lines[i], draw_attr(PAL_ACTIVE));
}

enum { MIN_COLS = 50, MIN_ROWS = 12 };

static void draw_frame(tui *t) {
    erase();
    if (COLS < MIN_COLS || LINES < MIN_ROWS) {
        /* Too small to lay anything out: say so, and keep taking keys (q still quits). */
        draw_textf(0, 0, COLS, draw_attr(PAL_BAD), "gpuplan needs %dx%d;", MIN_COLS, MIN_ROWS);
        draw_textf(1, 0, COLS, draw_attr(PAL_BAD), "this is %dx%d", COLS, LINES);
        refresh();
        return;
    }
    draw_tabs(t);
    switch (t->tab) {
    case TAB_PLAN:
        plan_draw(t);
        break;
    case TAB_COMPARE:
        compare_draw(t);
        break;
    case TAB_BREAKEVEN:
        breakeven_draw(t);
        break;
    case TAB_FLEET:
        fleet_draw(t);
        break;
    case TAB_CATALOG:
        catalog_draw(t);
        break;
    default:
        capacity_draw(t);
    }
    draw_status(t);
    if (t->help)
        draw_help();
    refresh();
}

/* What a tab needs from the worker when it shows. */
static void tab_shown(tui *t) {
    int64_t now = gp_now_ms();
    if (t->tab == TAB_FLEET && now - t->fleet_asked_ms > 5000) {
        worker_ask(t, JOB_FLEET);
        t->fleet_asked_ms = now;
    }
    if (t->tab == TAB_CAPACITY && now - t->cap_asked_ms > 60000) {
        worker_ask(t, JOB_CAPACITY);
        t->cap_asked_ms = now;
    }
    if (t->tab == TAB_CATALOG && !t->cat && !worker_busy(t, JOB_CATALOG))
        worker_ask(t, JOB_CATALOG);
}

static void default_export_path(tui *t) {
    char base[GP_NAME_BYTES];
    size_t n = 0;
    for (const char *p = t->name; *p && n + 1 < sizeof base - 6; p++)
        base[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                            (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
                        ? *p
                        : '-';
    base[n] = '\0';
    snprintf(t->prompt_buf, sizeof t->prompt_buf, "%s.xlsx", n ? base : "plan");
}

static void prompt_key(tui *t, int ch) {
    bool filter = t->prompt == PROMPT_FILTER;
    char *buf = filter ? t->cat_filter : t->prompt_buf;
    size_t cap = filter ? sizeof t->cat_filter : sizeof t->prompt_buf, n = strlen(buf);
    if (ch == 27) {
        if (filter) {
            buf[0] = '\0';
            catalog_refilter(t);
        }
        t->prompt = PROMPT_NONE;
        return;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        int p = t->prompt;
        t->prompt = PROMPT_NONE;
        if (p == PROMPT_EXPORT && n) {
            gp_err err;
            gp_err_clear(&err);
            if (gp_export_xlsx(t->ses, &t->sc, t->r, t->today, buf, &err))
                tui_status(t, "not exported: %s", err.msg);
            else
                tui_status(t, "wrote %s", buf);
        } else if (p == PROMPT_SAVE_AS && n) {
            plan_save_as(t, buf);
        }
        return;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (n)
            buf[n - 1] = '\0';
    } else if (ch >= 0x20 && ch < 0x7f && n + 1 < cap) {
        buf[n] = (char)ch, buf[n + 1] = '\0';
    } else if (ch >= 0x80 && ch < 0x100 && n + 1 < cap) {
        buf[n] = (char)ch, buf[n + 1] = '\0'; /* UTF-8 bytes of names and paths */
    }
    if (filter) {
        t->cat_sel = t->cat_top = 0;
        catalog_refilter(t);
    }
}

static void mouse(tui *t) {
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return;
    if (ev.y == 0) {
        for (int i = 0; i < TAB_N; i++)
            if (ev.x >= tab_x[i] && ev.x < tab_x[i + 1])
                t->tab = i;
        return;
    }
    int row = ev.y;
    switch (t->tab) {
    case TAB_PLAN: {
        int lw = COLS >= 100 ? 34 : 28;
        if (ev.x < lw) {
            int k = t->scen_top + row - TOP - 1;
            if (k >= 0 && k < t->n_names && row > TOP) {
                t->scen_sel = k;
                t->focus_editor = false;
                if (plan_open(t, t->names[k]))
                    t->focus_editor = true;
            }
        } else if (!t->editing) {
            int k = t->field_top + row - TOP - 1;
            if (k >= 0 && k < t->n_fields && row > TOP)
                t->field_sel = k, t->focus_editor = true;
        }
        break;
    }
    case TAB_COMPARE:
        if (row == TOP + 2) {
            int c = compare_column_at(ev.x);
            if (c == t->cmp_col)
                t->cmp_desc = !t->cmp_desc;
            t->cmp_col = c;
        }
        break;
    case TAB_FLEET:
        if (t->fleet && row >= TOP + 3) {
            int k = t->fleet_top + row - TOP - 3;
            if (k < t->fleet->n)
                t->fleet_sel = k;
        }
        break;
    case TAB_CATALOG:
        if (row >= TOP + 2) {
            int k = t->cat_top + row - TOP - 2;
            if (k < t->n_view)
                t->cat_sel = k;
        }
        break;
    }
}

/* One key: the prompt or the editor first (they take every key), then the tab, then the
 * global keys. */
static void key(tui *t, int ch) {
    if (ch == KEY_RESIZE)
        return;
    if (ch == KEY_MOUSE) {
        if (!t->prompt && !t->help)
            mouse(t);
        return;
    }
    if (t->help) {
        t->help = false;
        return;
    }
    if (t->prompt) {
        prompt_key(t, ch);
        return;
    }
    if (t->tab == TAB_PLAN && (t->editing || t->picking)) {
        plan_key(t, ch);
        return;
    }
    bool used = false;
    switch (t->tab) {
    case TAB_PLAN:
        used = plan_key(t, ch);
        break;
    case TAB_COMPARE:
        used = compare_key(t, ch);
        break;
    case TAB_FLEET:
        used = fleet_key(t, ch);
        break;
    case TAB_CATALOG:
        used = catalog_key(t, ch);
        break;
    }
    if (used)
        return;
    if (ch >= '1' && ch <= '6')
        t->tab = ch - '1';
    else if (ch == '\t')
        t->tab = (t->tab + 1) % TAB_N;
    else if (ch == KEY_BTAB)
        t->tab = (t->tab + TAB_N - 1) % TAB_N;
    else if (ch == '?')
        t->help = true;
    else if (ch == 'q')
        t->quit = true;
    else if (ch == 'x') {
        if (!t->has_sc) {
            tui_status(t, "open a scenario first (Plan tab)");
        } else {
            t->prompt = PROMPT_EXPORT;
            default_export_path(t);
        }
    }
}

int tui_main(gp_session *ses, bool demo, double start_s) {
    tui *t = gp_xcalloc(1, sizeof *t);
    t->ses = ses;
    ses->catalog_loaded = NULL; /* the TUI owns the terminal: no notices on it */
    t->demo = demo;
    t->r = gp_xmalloc(sizeof *t->r);
    t->cmp_col = 1;
    t->cat_sort = 7; /* per GPU-hour */
    gp_today(t->today);
    gp_store *st;
    gp_err err;
    if (gp_session_store(ses, &st, &err)) {
        free(t->r);
        free(t);
        fprintf(stderr, "gpuplan: %s%s%s\n", err.where, err.where[0] ? ": " : "", err.msg);
        return gp_status_exit_code(err.code);
    }
    const char *timing = getenv("GPUPLAN_TUI_TIMING");
    if (timing && *timing)
        t->timing = fopen(timing, "w");

    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
    timeout(100);
    draw_init();
    if (getenv("GPUPLAN_ASCII"))
        draw_set_ascii(true);

    worker_start(t);
    plan_load_names(t);
    if (t->n_names && plan_open(t, t->names[0]))
        t->focus_editor = false;
    draw_frame(t);
    if (t->timing) {
        fprintf(t->timing, "first_frame_ms %.2f\n", (mono_s() - start_s) * 1e3);
        fflush(t->timing);
    }
    while (!t->quit && !stop_signal) {
        int ch = getch();
        double k0 = mono_s();
        if (ch == ERR) {
            tab_shown(t);
            bool spinning = worker_busy(t, JOB_FLEET) || worker_busy(t, JOB_CAPACITY) ||
                            worker_busy(t, JOB_CATALOG);
            bool had_fleet = t->fleet != NULL;
            bool changed = worker_collect(t);
            if (t->timing && !had_fleet && t->fleet) {
                fprintf(t->timing, "fleet_data_ms %.1f gpus %d\n",
                        (double)(gp_now_ms() - t->fleet_asked_ms), t->fleet->n);
                fflush(t->timing);
            }
            if (changed || spinning || (t->status[0] && gp_now_ms() - t->status_ms < 9000))
                draw_frame(t);
            continue;
        }
        key(t, ch);
        worker_collect(t);
        tab_shown(t);
        draw_frame(t);
        if (t->timing) {
            fprintf(t->timing, "key %d %.3f\n", ch, (mono_s() - k0) * 1e3);
            fflush(t->timing);
        }
    }
    endwin();
    worker_stop(t);
    fleet_data_free(t->fleet);
    cap_data_free(t->cap);
    catalog_data_free(t->cat);
    free(t->cat_view);
    plan_done(t);
    if (t->timing)
        fclose(t->timing);
    free(t->r);
    free(t);
    return 0;
}
