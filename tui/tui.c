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
#include "gpuplan/clock.h"
#include "scen.h"
#include "screens.h"
#include "tui.h"
#include "worker.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
    stop_signal = sig;
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The tabs, in order (TAB_ in ui.h); the new-plan flow covers them while it is open. */
static const tui_screen_ops *const screens[TAB_N] = {
    &plan_screen,    &compare_screen,  &breakeven_screen, &fleet_screen,
    &catalog_screen, &capacity_screen, &timeline_screen,
};
static int tab_x[TAB_N + 1];

static const tui_screen_ops *current(const tui *t) {
    return t->np ? &newplan_screen : screens[t->tab];
}

static void draw_tabs(tui *t) {
    int cols = COLS;
    draw_fill(0, 0, cols, draw_attr(PAL_TITLE));
    int x = 0;
    for (int i = 0; i < TAB_N; i++) {
        char label[32];
        /* Narrow terminals get the numbers and short names. */
        if (cols < 72)
            snprintf(label, sizeof label, " %d %.5s ", i + 1, screens[i]->name);
        else
            snprintf(label, sizeof label, " %d %s ", i + 1, screens[i]->name);
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
    if (t->prompt) {
        bool own = t->prompt_text != NULL;
        tui_line_draw(y, 0, cols, t->prompt_label, own ? t->prompt_text : t->prompt_buf,
                      !own && t->prompt_sel, t->prompt_hint);
        return;
    }
    if (t->work) {
        draw_text(y, 0, cols, t->work_msg, draw_attr(PAL_ACTIVE));
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
        draw_text(y, x, cols - x, "? help  1-7 tabs  x export  q quit", draw_attr(PAL_ACTIVE));
}

static const char *const help_lines[] = {
    "Everywhere",
    "  1-7, Tab, Shift-Tab  tabs (or a click);  j/k, arrows, PgUp/PgDn  move",
    "  x  export to XLSX;  ?  this help;  q  quit (asks if edits are unsaved)",
    "  in a prompt: typing replaces the text offered, Ctrl-U clears, Ctrl-W",
    "  deletes a word;  Ctrl-C quits at once",
    "Plan",
    "  n  new plan: GPU, count, use, horizon, server, power, cloud offers",
    "  Enter  open a scenario, edit a field;  h/l, Left/Right  list <-> fields",
    "  c / r / d  copy, rename, delete a scenario;  g / G  first / last field",
    "  a / d on a cloud option's field  add / remove it;  u / U  undo / redo",
    "  editing: digits . - e, Ctrl-U; Enter commits (empty: the default), Esc",
    "  cancels; a choice: Left/Right (demand counted in GPUs or work, pricing",
    "  and financing reshape the plan);  lists, periods too: a adds, d removes",
    "  s / S  save a new version / under a new name;  t  tariff preset",
    "Compare  Left/Right sort column, r reverse (or click a header)",
    "Fleet  Enter opens the node, Esc closes",
    "Catalog  / filter, Left/Right sort, r reverse, a add the offer to the open",
    "  scenario, g GPUs, o offers, p profile, w generations per unit of work",
    "Timeline  Left/Right: the option whose break-even month is marked",
    "Any key closes this help.",
};

static void draw_help(void) {
    tui_box("Keys", help_lines, (int)(sizeof help_lines / sizeof help_lines[0]), 80);
}

/* The question in t->ask. */
static void draw_ask(tui *t) {
    char l0[GP_NAME_BYTES + 96], l1[GP_NAME_BYTES + 64], l2[96];
    const char *lines[4] = {l0, l1, l2, "Esc  keep it as it is"};
    const char *title = "Unsaved changes";
    snprintf(l0, sizeof l0, "\"%s\" has changes that are not saved.", scen_name(t));
    switch (t->ask) {
    case ASK_QUIT:
        snprintf(l1, sizeof l1, "s  save a new version, then quit");
        snprintf(l2, sizeof l2, "d  discard the changes and quit");
        break;
    case ASK_OPEN:
        snprintf(l1, sizeof l1, "s  save a new version, then open \"%s\"", t->ask_name);
        snprintf(l2, sizeof l2, "d  discard the changes and open it");
        break;
    case ASK_NEW:
        snprintf(l1, sizeof l1, "s  save a new version, then start a new plan");
        snprintf(l2, sizeof l2, "d  discard the changes and start a new plan");
        break;
    case ASK_DELETE:
        title = "Delete";
        snprintf(l0, sizeof l0, "Delete \"%s\" and every version of it?", t->ask_name);
        snprintf(l1, sizeof l1, "y  delete it");
        snprintf(l2, sizeof l2, "n  keep it");
        break;
    default: /* ASK_REMOVE_OPTION */
        title = "Remove an option";
        snprintf(l0, sizeof l0, "Remove the cloud option \"%s\" from \"%s\"?", t->ask_name,
                 scen_name(t));
        snprintf(l1, sizeof l1, "y  remove it (u brings it back; s saves)");
        snprintf(l2, sizeof l2, "n  keep it");
    }
    tui_box(title, lines, 4, 72);
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
    if (t->entered != t->tab) {
        t->entered = t->tab;
        if (screens[t->tab]->enter)
            screens[t->tab]->enter(t);
    }
    draw_tabs(t);
    current(t)->draw(t);
    draw_status(t);
    if (t->ask)
        draw_ask(t);
    if (t->help)
        draw_help();
    refresh();
}

/* What the tab shown needs from the worker. */
static void tab_shown(tui *t) {
    if (current(t)->request)
        current(t)->request(t);
}

/* Take the worker's results and tell every screen: true when something came in. */
static bool collect(tui *t) {
    unsigned jobs = worker_collect(t);
    for (int i = 0; jobs && i < TAB_N; i++)
        if (screens[i]->on_data)
            screens[i]->on_data(t, jobs);
    return jobs != 0;
}

/* The scenario's name as a file name: letters, digits and _ kept, every other run of
 * characters one "-", none at either end ("Demo: H100, loan" -> "Demo-H100-loan.xlsx"). */
static void default_export_path(const tui *t, char *out, size_t cap) {
    char base[GP_NAME_BYTES];
    size_t n = 0;
    for (const char *p = scen_name(t); *p && n + 1 < sizeof base - 6; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '_')
            base[n++] = *p;
        else if (n > 0 && base[n - 1] != '-')
            base[n++] = '-';
    }
    while (n > 0 && base[n - 1] == '-')
        n--;
    base[n] = '\0';
    snprintf(out, cap, "%s.xlsx", n ? base : "plan");
}

static void export_key(tui *t, int ch) {
    int r = tui_line_key(t->prompt_buf, sizeof t->prompt_buf, &t->prompt_sel, ch);
    if (r == TUI_LINE_CANCEL || r == TUI_LINE_DONE)
        t->prompt = PROMPT_NONE;
    if (r != TUI_LINE_DONE || !t->prompt_buf[0])
        return;
    gp_err err;
    gp_err_clear(&err);
    if (gp_export_xlsx(t->ses, &t->sc, t->r, t->today, t->prompt_buf, &err))
        tui_status(t, "not exported: %s", err.msg);
    else
        tui_status(t, "wrote %s", t->prompt_buf);
}

/* The question before quitting with unsaved changes: s saves and quits, d or y quits
 * without, Esc or n stays. */
static void quit_save(tui *t) {
    t->ask = ASK_NONE;
    scen_save(t, NULL);
    t->quit = !scen_dirty(t); /* a save that failed says why and keeps the TUI open */
}

static void quit_discard(tui *t) {
    t->ask = ASK_NONE;
    t->quit = true;
}

static void quit_stay(tui *t) {
    t->ask = ASK_NONE;
}

static const tui_binding quit_keys[] = {
    {'s', quit_save}, {'d', quit_discard}, {'y', quit_discard},
    {27, quit_stay},  {'n', quit_stay},    {0, NULL},
};

/* Leave the database this TUI was opened on for the demo's own file, and show it. */
static void open_demo(tui *t) {
    worker_stop(t);
    for (int i = 0; i < TAB_N; i++)
        if (screens[i]->done)
            screens[i]->done(t);
    gp_session_close(t->ses);
    t->ses->db_path = NULL; /* gp_demo_open: $XDG_DATA_HOME/gpuplan/demo.db */
    gp_err err;
    gp_err_clear(&err);
    if (gp_demo_open(t->ses, &err)) {
        tui_status(t, "the demo: %s", err.msg);
    } else {
        t->demo = true;
        tui_status(t, "the demo database: sample scenarios and a fleet");
    }
    worker_start(t);
    t->fleet_job_ms = 0; /* the screens' done forgot when they asked */
    scen_load_names(t);
    t->scen_sel = 0;
    if (t->n_names)
        scen_open(t, t->names[0]);
}

/* Run the slow action asked for; the frame before it showed work_msg. */
static void run_work(tui *t) {
    int w = t->work;
    t->work = WORK_NONE;
    if (w == WORK_DEMO)
        open_demo(t);
    else if (w == WORK_NEWPLAN)
        newplan_screen.work(t); /* opens the flow */
    else if (current(t)->work)
        current(t)->work(t);
}

static void mouse(tui *t) {
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return;
    if (t->ask || t->np)
        return;
    if (ev.y == 0) {
        for (int i = 0; i < TAB_N; i++)
            if (ev.x >= tab_x[i] && ev.x < tab_x[i + 1])
                t->tab = i;
        return;
    }
    if (ev.y >= TOP && ev.y < LINES - 1 && screens[t->tab]->click)
        screens[t->tab]->click(t, ev.y, ev.x);
}

/* The global keys (tui_binding, as the screens' tables), after the tab's own; the digits
 * 1 to TAB_N pick a tab besides. */
static void tab_next(tui *t) {
    t->tab = (t->tab + 1) % TAB_N;
}

static void tab_previous(tui *t) {
    t->tab = (t->tab + TAB_N - 1) % TAB_N;
}

static void show_help(tui *t) {
    t->help = true;
}

/* q: quit, asking first when that would drop unsaved edits. */
static void quit(tui *t) {
    if (scen_dirty(t) && t->pe)
        t->ask = ASK_QUIT;
    else
        t->quit = true;
}

static void export_ask(tui *t) {
    if (!t->has_sc) {
        tui_status(t, "open a scenario first (Plan tab)");
        return;
    }
    char path[512];
    default_export_path(t, path, sizeof path);
    tui_prompt(t, PROMPT_EXPORT, "Export to XLSX:", path);
}

static const tui_binding global_keys[] = {
    {'\t', tab_next}, {KEY_BTAB, tab_previous}, {'?', show_help},
    {'q', quit},      {'x', export_ask},        {0, NULL},
};

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
    const tui_screen_ops *sc = current(t);
    if (t->ask == ASK_QUIT) {
        tui_run_binding(t, ch, quit_keys);
        return;
    }
    if (t->prompt == PROMPT_EXPORT) {
        export_key(t, ch);
        return;
    }
    if (t->ask || (sc->modal && sc->modal(t))) {
        sc->on_key(t, ch);
        return;
    }
    bool used = sc->on_key && (sc->on_key(t, ch) & TUI_HANDLED);
    if (used)
        return;
    if (ch >= '1' && ch < '1' + TAB_N)
        t->tab = ch - '1';
    else
        tui_run_binding(t, ch, global_keys);
}

/* A TUI on the session, its screens' state made and GPUPLAN_TUI_TIMING's file open; NULL
 * when the database does not open (said on stderr, *status then the exit status). */
static tui *tui_new(gp_session *ses, bool demo, int *status) {
    tui *t = gp_xcalloc(1, sizeof *t);
    t->ses = ses;
    ses->catalog_loaded = NULL; /* the TUI owns the terminal: no notices on it */
    ses->catalog_loading = NULL;
    t->demo = demo;
    t->r = gp_xmalloc(sizeof *t->r);
    gp_today(t->today);
    gp_err err;
    if (gp_session_open(ses, &err)) {
        free(t->r);
        free(t);
        fprintf(stderr, "gpuplan: %s%s%s\n", err.where, err.where[0] ? ": " : "", err.msg);
        *status = gp_status_exit_code(err.code);
        return NULL;
    }
    t->entered = -1;
    for (int i = 0; i < TAB_N; i++)
        if (screens[i]->init)
            t->view[i] = screens[i]->init(t);
    const char *timing = getenv("GPUPLAN_TUI_TIMING");
    if (timing && *timing)
        t->timing = fopen(timing, "w");
    return t;
}

/* Take the terminal: the signals that end the loop, keys one at a time without echo, the
 * mouse, and getch waiting at most 100 ms. */
static void term_start(void) {
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
}

/* A turn with no key: ask for what the tab needs, take what came in, and draw when it
 * changed something, a spinner turns or a message is still shown. */
static void idle_turn(tui *t) {
    tab_shown(t);
    bool spinning =
        worker_busy(t, JOB_FLEET) || worker_busy(t, JOB_CAPACITY) || worker_busy(t, JOB_CATALOG);
    bool had_fleet = t->fleet != NULL;
    bool changed = collect(t);
    if (t->timing && !had_fleet && t->fleet) {
        fprintf(t->timing, "fleet_data_ms %.1f gpus %d\n", (double)(gp_now_ms() - t->fleet_job_ms),
                t->fleet->n);
        fflush(t->timing);
    }
    if (changed || spinning || (t->status[0] && gp_now_ms() - t->status_ms < 9000))
        draw_frame(t);
}

/* A turn with key ch: the key, its frame, then the slow work it asked for with a frame after
 * each; the time to the last frame recorded under GPUPLAN_TUI_TIMING. */
static void key_turn(tui *t, int ch) {
    double k0 = mono_s();
    key(t, ch);
    collect(t);
    tab_shown(t);
    draw_frame(t);
    while (t->work) {
        run_work(t);
        collect(t);
        tab_shown(t);
        draw_frame(t);
    }
    if (t->timing) {
        fprintf(t->timing, "key %d %.3f\n", ch, (mono_s() - k0) * 1e3);
        fflush(t->timing);
    }
}

/* Stop the worker and free the screens' data and state, then the TUI. */
static void tui_free(tui *t) {
    worker_stop(t);
    for (int i = 0; i < TAB_N; i++)
        if (screens[i]->done)
            screens[i]->done(t);
    newplan_screen.done(t);
    for (int i = 0; i < TAB_N; i++)
        free(t->view[i]);
    if (t->timing)
        fclose(t->timing);
    free(t->r);
    free(t);
}

int tui_main(gp_session *ses, bool demo, double start_s) {
    int status = 0;
    tui *t = tui_new(ses, demo, &status);
    if (!t)
        return status;
    term_start();
    worker_start(t);
    scen_load_names(t);
    if (t->n_names && scen_open(t, t->names[0]))
        t->focus_editor = false;
    draw_frame(t);
    if (t->timing) {
        fprintf(t->timing, "first_frame_ms %.2f\n", (mono_s() - start_s) * 1e3);
        fflush(t->timing);
    }
    while (!t->quit && !stop_signal) {
        int ch = getch();
        if (ch == ERR)
            idle_turn(t);
        else
            key_turn(t, ch);
    }
    endwin();
    tui_free(t);
    return 0;
}
