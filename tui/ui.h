/* The TUI's shared state and the helpers every screen uses (tui/). A screen's own state is its
 * own (view.h's init, t->view); the worker (worker.h) fills fleet, capacity and catalog data
 * off the input thread and hands results over under its mutex. This header sits below every
 * other of tui/ but draw.h: it declares no function of a screen, the worker or the open
 * scenario. */
#ifndef GPUPLAN_TUI_UI_H
#define GPUPLAN_TUI_UI_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/app_compare.h"
#include "gpuplan/app_demo.h"
#include "gpuplan/app_export.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_session.h"
#include "gpuplan/parse.h"
#include "gpuplan/capacity.h"
#include "gpuplan/engine.h"
#include "gpuplan/reference.h"

enum {
    TAB_PLAN,
    TAB_COMPARE,
    TAB_BREAKEVEN,
    TAB_FLEET,
    TAB_CATALOG,
    TAB_CAPACITY,
    TAB_TIMELINE,
    TAB_N
};

/* How a field is edited: a number or a text typed, a choice cycled through, or the head of a
 * small list (steps, the resale curve, bulk tiers) whose rows follow it as fields. */
enum { FIELD_NUMBER, FIELD_TEXT, FIELD_CHOICE, FIELD_LIST };

/* One editable input of the open scenario: a JSON path and how to show it. */
typedef struct field {
    char path[96]; /* "demand.utilization", "cloud_options[1].hourly", "demand.steps" */
    char label[256];
    const char *unit;
    bool integer;
    int kind;      /* FIELD_ */
    bool optional; /* an empty value removes the key, so its default applies */
    char list[48]; /* the list a row (or a list's head) belongs to, "demand.steps"; else "" */
    int row;       /* the list element a row edits; -1 for the head and other fields */
} field;

/* ---- worker results (owned by whoever holds the pointer) ------------------------------- */

typedef struct fleet_gpu {
    char node[64], model[40], uuid[64], mig[24], alerts[64];
    char display[40], raw_model[96]; /* gp_gpu_display_name's, and as the source reported it */
    bool stale;                      /* not seen within GP_FLEET_FRESH_MS: old last values */
    int64_t last_seen_ms;
    int index;
    bool has_util, has_mem, has_power, has_temp;
    double util, mem_used, mem_total, power, temp, power_limit;
    double spark[12]; /* the last hour, 5-minute means of utilization */
    int n_spark;
    double kwh_today; /* IT side, from 5-minute power means since 00:00 UTC */
} fleet_gpu;

typedef struct fleet_data {
    fleet_gpu *g;
    int n, stale; /* rows; of them stale */
    int64_t at_ms;
    char error[256];
} fleet_data;

typedef struct cap_data {
    gp_cap_gpu fleet; /* every whole GPU merged: the utilization histogram */
    double *busy;     /* busy GPUs per 5-minute bucket (at 5 %), ascending */
    size_t nb;
    long long gpus;
    int64_t at_ms;
    char error[256];
} cap_data;

#define TUI_MAX_PROFILES 8 /* gp_profiles, the workload profiles of the throughput table */

typedef struct offer {
    char provider[16], instance[64], region[32], gpu[24], pricing[16], purchase[16];
    double gpus, hourly, per_gpu_hour;
    int term;
    char effective_from[11];
    /* work per GPU-hour of its GPU in each profile, the figure in use (measured, else
     * published, else the estimate); has_tp false where the GPU has none */
    double tp[TUI_MAX_PROFILES];
    bool has_tp[TUI_MAX_PROFILES], tp_measured[TUI_MAX_PROFILES], tp_published[TUI_MAX_PROFILES];
} offer;

typedef struct gpu_row {
    char name[40], vendor[24], released[11];
    double v[GP_SPEC_N]; /* reference.h's columns */
    bool has[GP_SPEC_N];
} gpu_row;

typedef struct catalog_data {
    offer *o;
    int n;
    gpu_row *g;
    int ng;
    char error[256];
} catalog_data;

/* A comparison of GPU generations (the Catalog's generations view, generations.c). */
typedef struct gen_data {
    gp_comparison c;
    gp_compare_request rq; /* as asked (its strings point at gp_profiles) */
    char error[256];       /* "" when c holds the comparison */
} gen_data;

typedef enum { JOB_FLEET, JOB_CAPACITY, JOB_CATALOG, JOB_COMPARE, JOB_N } job_kind;

typedef struct worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, quit;
    bool pending[JOB_N], running[JOB_N];
    void *ready[JOB_N]; /* results handed over; the TUI takes them */
    char path[4096];
    bool demo;
    gp_compare_request compare_rq; /* JOB_COMPARE's request, copied under mu */
} worker;

/* ---- the whole state ------------------------------------------------------------------- */

typedef struct tui {
    gp_session *ses;
    bool demo;
    int tab;
    bool help, quit;
    char status[256];
    int64_t status_ms;
    char today[11];

    /* A question over the screen (ASK_): the key that answers it goes to whoever asked. */
    int ask;
    char ask_name[GP_NAME_BYTES]; /* the scenario it is about */
    int ask_index;                /* the option it is about */

    /* A slow action (WORK_) run right after the next frame, which shows work_msg. */
    int work;
    char work_msg[128];

    /* The new-plan flow while it is open (newplan.c owns it). */
    struct tui_newplan *np;

    /* scenarios */
    char (*names)[GP_NAME_BYTES];
    int n_names, scen_sel;
    /* the open scenario: the editor's model (app_plan_edit.h: the document as edited, catalog
     * references kept, its undo and save; NULL when none is open), sc resolved from it */
    struct gp_plan_edit *pe;
    gp_loaded sc;
    bool has_sc;
    gp_result *r;
    char invalid[512];     /* why the value typed or committed is refused, or the document */
    char doc_invalid[512]; /* why the document itself is refused; "" when the engine takes it */
    field *fields;
    void *field_defs; /* the gp_plan_field behind each field (app_plan_fields.h) */
    int *field_index; /* the option or tariff period a field belongs to, -1 for none */
    int n_fields, field_sel, field_top;
    bool focus_editor;
    bool editing;
    char edit[192];  /* room for a work unit of 40 code points */
    bool edit_fresh; /* edit holds the value offered: the first key typed replaces it */
    bool edit_typed; /* edit was typed in: the results are not yet its (Enter evaluates) */
    int edit_choice; /* a FIELD_CHOICE being edited: the choice shown */

    /* the tariff presets scen_list_tariffs read (the Plan screen picks one) */
    char (*picks)[64];
    int n_picks;

    /* prompt (export path, save-as name, filters) */
    int prompt; /* 0 none, else a PROMPT_ value: the screen that asked takes the keys */
    char prompt_buf[512];
    const char *prompt_text; /* the text edited in place of prompt_buf (the Catalog's filter) */
    bool prompt_sel;         /* the text is selected: typing replaces it */
    char prompt_for[GP_NAME_BYTES];         /* the scenario a rename or copy is of */
    const char *prompt_label, *prompt_hint; /* on the status line around the text */

    /* Each screen's own state (view.h's init: plan, compare, timeline, fleet, catalog and
     * capacity), freed by tui.c. entered: the tab whose enter ran last. plan_gen: bumped when
     * another plan opens (scen.c), so a screen can tell. */
    void *view[TAB_N];
    int entered;
    unsigned plan_gen;

    /* fleet: the worker's last reading, and when the job now running or last run was asked
     * (GPUPLAN_TUI_TIMING's figure, tui.c) */
    fleet_data *fleet;
    int64_t fleet_job_ms;

    /* catalog: the worker's last reading (the Catalog's view of it is catalog.c's) */
    catalog_data *cat;

    /* the Catalog's generations view (generations.c owns both; NULL until first opened) */
    struct tui_gen *gen;
    gen_data *gen_res; /* the last comparison the worker handed over */

    /* capacity: the worker's last reading */
    cap_data *cap;

    worker w;
    /* GPUPLAN_TUI_TIMING */
    void *timing; /* FILE * */
} tui;

enum {
    PROMPT_NONE,
    PROMPT_EXPORT,
    PROMPT_SAVE_AS,
    PROMPT_FILTER,
    PROMPT_RENAME,
    PROMPT_COPY,
    PROMPT_GEN_WORK,    /* generations.c: the work a month */
    PROMPT_GEN_HORIZON, /* generations.c: the horizon */
    PROMPT_GEN_SAVE     /* generations.c: the name to save the chosen row under */
};
enum { ASK_NONE, ASK_QUIT, ASK_OPEN, ASK_NEW, ASK_DELETE, ASK_REMOVE_OPTION };
enum { WORK_NONE, WORK_DEMO, WORK_NEWPLAN, WORK_SCREEN };

/* Content area: below the tab bar, above the status line. */
#define TOP 2
int tui_rows(void);
int tui_cols(void);

/* A message on the status line for 8 s (control characters removed). */
void tui_status(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A key and what it does, as tig's keymaps: a screen's keys are tables of these, each ending
 * with a binding that runs nothing. */
typedef struct tui_binding {
    int key;
    void (*run)(tui *t);
} tui_binding;

/* Run ch's binding in table b; false when it has none. */
bool tui_run_binding(tui *t, int ch, const tui_binding *b);

/* Up/Down, j/k, PgUp/PgDn (page rows), Home/End over a list of n: true when ch was one. */
bool tui_list_key(int ch, int *sel, int n, int page);

/* A list's first visible row so that sel shows in h rows. */
int tui_scroll(int sel, int top, int h, int n);

/* A key into a one-line text field buf (cap bytes), readline's way: while *sel (the
 * pre-filled text is selected) a character replaces the text and Backspace clears it; Ctrl-U
 * deletes the line, Ctrl-W the word before the cursor (the cursor stays at the end). Returns
 * what became of it. */
enum { TUI_LINE_NONE, TUI_LINE_CHANGED, TUI_LINE_DONE, TUI_LINE_CANCEL };
int tui_line_key(char *buf, size_t cap, bool *sel, int ch);
/* Draw "label text_" at (y, x) in w columns, the text reversed while selected. */
void tui_line_draw(int y, int x, int w, const char *label, const char *text, bool sel,
                   const char *hint);

/* Start a prompt on the status line, pre-filled with text (selected). */
void tui_prompt(tui *t, int kind, const char *label, const char *text);

/* A box of n lines centred on the screen, title first (the help, questions, pop-ups): the
 * lines are wrapped at word boundaries to the box, never cut mid-word. */
void tui_box(const char *title, const char *const *lines, int n, int max_w);

#endif
