/* The TUI's state and the functions its tabs share (tui/). One struct owns everything on
 * screen; the worker (worker.c) fills fleet, capacity and catalog data off the input thread
 * and hands results over under its mutex. */
#ifndef GPUPLAN_TUI_INT_H
#define GPUPLAN_TUI_INT_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/app_demo.h"
#include "gpuplan/app_export.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/app_session.h"
#include "gpuplan/parse.h"
#include "gpuplan/capacity.h"
#include "gpuplan/model.h"
#include "gpuplan/reference.h"

enum { TAB_PLAN, TAB_COMPARE, TAB_BREAKEVEN, TAB_FLEET, TAB_CATALOG, TAB_CAPACITY, TAB_N };

/* One editable input of the open scenario: a JSON path and how to show it. */
typedef struct field {
    char path[96]; /* "demand.utilization", "cloud_options[1].hourly" */
    char label[80];
    const char *unit;
    bool integer;
} field;

/* ---- worker results (owned by whoever holds the pointer) ------------------------------- */

typedef struct fleet_gpu {
    char node[64], model[40], uuid[64], mig[24], alerts[64];
    int index;
    bool has_util, has_mem, has_power, has_temp;
    double util, mem_used, mem_total, power, temp, power_limit;
    double spark[12]; /* the last hour, 5-minute means of utilization */
    int n_spark;
    double kwh_today; /* IT side, from 5-minute power means since 00:00 UTC */
} fleet_gpu;

typedef struct fleet_data {
    fleet_gpu *g;
    int n;
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

typedef struct offer {
    char provider[16], instance[64], region[32], gpu[24], pricing[16], purchase[16];
    double gpus, hourly, per_gpu_hour;
    int term;
    char effective_from[11];
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

typedef enum { JOB_FLEET, JOB_CAPACITY, JOB_CATALOG, JOB_N } job_kind;

typedef struct worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, quit;
    bool pending[JOB_N], running[JOB_N];
    void *ready[JOB_N]; /* results handed over; the TUI takes them */
    char path[4096];
    bool demo;
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

    /* scenarios */
    char (*names)[GP_NAME_BYTES];
    int n_names, scen_sel, scen_top;
    /* the open scenario: doc as edited (catalog references kept), sc resolved from it */
    cJSON *doc;
    char name[GP_NAME_BYTES];
    int version;
    gp_loaded sc;
    bool has_sc;
    gp_result *r;
    char invalid[512]; /* the validation message of the value being typed, or of doc */
    field *fields;
    void *field_defs; /* plan.c's table row behind each field */
    int *field_index; /* the option or tariff period a field belongs to, -1 for none */
    int n_fields, field_sel, field_top;
    bool focus_editor;
    bool editing;
    char edit[64];
    char **undo;
    int n_undo;
    bool dirty;

    /* pickers (tariff presets) */
    bool picking;
    char (*picks)[64];
    int n_picks, pick_sel;

    /* prompt (export path, save-as name, filters) */
    int prompt; /* 0 none, else a PROMPT_ value */
    char prompt_buf[512];

    /* compare */
    int cmp_col;
    bool cmp_desc;

    /* fleet */
    fleet_data *fleet;
    int fleet_sel, fleet_top;
    bool fleet_detail;
    int64_t fleet_asked_ms;

    /* catalog */
    catalog_data *cat;
    bool cat_gpus; /* the GPUs list instead of offers */
    char cat_filter[64];
    int *cat_view, n_view, cat_sel, cat_top, cat_sort;
    bool cat_desc;

    /* capacity */
    cap_data *cap;
    int64_t cap_asked_ms;

    worker w;
    /* GPUPLAN_TUI_TIMING */
    void *timing; /* FILE * */
} tui;

enum { PROMPT_NONE, PROMPT_EXPORT, PROMPT_SAVE_AS, PROMPT_FILTER };

/* Content area: below the tab bar, above the status line. */
#define TOP 2
int tui_rows(void);
int tui_cols(void);

void tui_status(tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* plan.c */
void plan_load_names(tui *t);
bool plan_open(tui *t, const char *name);
void plan_reevaluate(tui *t);
void plan_draw(tui *t);
bool plan_key(tui *t, int ch);
bool plan_add_option(tui *t, const offer *o);
void plan_save_as(tui *t, const char *name);
void plan_done(tui *t);

/* views.c: Compare and Break-even */
void compare_draw(tui *t);
bool compare_key(tui *t, int ch);
int compare_column_at(int x); /* the column under a click on the header */
void breakeven_draw(tui *t);

/* fleet.c */
void fleet_draw(tui *t);
bool fleet_key(tui *t, int ch);

/* catalog.c */
void catalog_draw(tui *t);
bool catalog_key(tui *t, int ch);
void catalog_refilter(tui *t);

/* capacity.c */
void capacity_draw(tui *t);

/* worker.c */
void worker_start(tui *t);
void worker_stop(tui *t);
void worker_ask(tui *t, job_kind k);
bool worker_busy(tui *t, job_kind k);
/* Take finished results into t; true when something changed. */
bool worker_collect(tui *t);
void fleet_data_free(fleet_data *f);
void cap_data_free(cap_data *c);
void catalog_data_free(catalog_data *c);

/* Up/Down, j/k, PgUp/PgDn (page rows), Home/End over a list of n: true when ch was one. */
bool tui_list_key(int ch, int *sel, int n, int page);

/* A list's first visible row so that sel shows in h rows. */
int tui_scroll(int sel, int top, int h, int n);

#endif
