/* The TUI's worker thread: fleet, capacity and catalog reads run here in a session of their
 * own, a second connection to the same database (WAL lets it read while anything else writes),
 * so a slow query never holds up a keystroke. Fleet and capacity ask the services `gpuplan
 * fleet` and `gpuplan capacity` ask. The input loop asks (worker_ask) and, between keys, takes
 * what is done (worker_collect). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/app_capacity.h"
#include "gpuplan/app_demo.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/app_throughput.h"
#include "gpuplan/clock.h"
#include "gpuplan/app_pricing.h"
#include "worker.h"

/* ---- fleet ------------------------------------------------------------------------------ */

typedef struct fleet_acc {
    fleet_data *d;
    int cursor;
} fleet_acc;

static void take_fleet(fleet_data *d, const gp_fleet_row *g) {
    fleet_gpu *f = &d->g[d->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->node, sizeof f->node, "%s", g->node);
    snprintf(f->model, sizeof f->model, "%s", g->model);
    snprintf(f->display, sizeof f->display, "%s", g->display);
    snprintf(f->raw_model, sizeof f->raw_model, "%s", g->raw_model);
    snprintf(f->uuid, sizeof f->uuid, "%s", g->uuid);
    snprintf(f->mig, sizeof f->mig, "%s", g->mig);
    f->index = g->index;
    f->stale = g->stale;
    f->last_seen_ms = g->last_seen_ms;
    snprintf(f->alerts, sizeof f->alerts, "%s", g->alerts);
    f->has_util = g->has[GP_M_GPU_UTIL], f->util = g->value[GP_M_GPU_UTIL];
    f->has_mem = g->has[GP_M_MEM_USED_MIB] && g->has[GP_M_MEM_TOTAL_MIB];
    f->mem_used = g->value[GP_M_MEM_USED_MIB], f->mem_total = g->value[GP_M_MEM_TOTAL_MIB];
    f->has_power = g->has[GP_M_POWER_W], f->power = g->value[GP_M_POWER_W];
    f->has_temp = g->has[GP_M_TEMP_C], f->temp = g->value[GP_M_TEMP_C];
    f->power_limit = g->has[GP_M_POWER_LIMIT_W] ? g->value[GP_M_POWER_LIMIT_W] : 0;
}

/* The fleet row of a history point: both lists are in node order, so the search starts where
 * the last one ended. */
static fleet_gpu *row_of(fleet_acc *a, const gp_gpu_point *p) {
    for (int k = 0; k < a->d->n; k++) {
        int i = (a->cursor + k) % a->d->n;
        fleet_gpu *f = &a->d->g[i];
        if (f->index == p->index && !strcmp(f->uuid, p->uuid) && !strcmp(f->node, p->node) &&
            !strcmp(f->mig, p->mig)) {
            a->cursor = i;
            return f;
        }
    }
    return NULL;
}

static int take_util(const gp_gpu_point *p, void *arg) {
    fleet_gpu *f = row_of(arg, p);
    if (f) {
        if (f->n_spark == 12)
            memmove(f->spark, f->spark + 1, sizeof f->spark - sizeof f->spark[0]), f->n_spark--;
        f->spark[f->n_spark++] = p->mean;
    }
    return 0;
}

static int take_power(const gp_gpu_point *p, void *arg) {
    fleet_gpu *f = row_of(arg, p);
    if (f)
        f->kwh_today += p->mean * (5.0 / 60) / 1000;
    return 0;
}

/* Each job returns its result; with no database (have_db false) the result carries why. */
static void *job_fleet(gp_session *ses, bool have_db, bool demo, const char *no_db) {
    fleet_data *d = gp_xcalloc(1, sizeof *d);
    if (!have_db) {
        snprintf(d->error, sizeof d->error, "%s", no_db);
        return d;
    }
    gp_err err;
    gp_err_clear(&err);
    if (demo && gp_demo_fleet(ses, &err))
        snprintf(d->error, sizeof d->error, "demo fleet: %s", err.msg);
    int64_t now = gp_now_ms();
    d->at_ms = now;
    /* Every GPU that ever reported, as `gpuplan fleet` shows it: old values marked stale. */
    gp_fleet_state fs;
    if (gp_fleet_state_read(ses, now, GP_FLEET_FRESH_MS, &fs, &err)) {
        snprintf(d->error, sizeof d->error, "%s", err.msg);
        gp_fleet_state_done(&fs);
        return d;
    }
    d->g = gp_xcalloc(fs.n ? fs.n : 1, sizeof *d->g);
    for (size_t i = 0; i < fs.n; i++)
        take_fleet(d, &fs.rows[i]);
    d->stale = fs.stale;
    gp_fleet_state_done(&fs);
    fleet_acc a = {d, 0};
    if (gp_fleet_history(ses, GP_M_GPU_UTIL, now - GP_HOUR_MS, now + 1, take_util, &a, &err) ||
        gp_fleet_history(ses, GP_M_POWER_W, now - now % GP_DAY_MS, now + 1, take_power, &a, &err))
        snprintf(d->error, sizeof d->error, "%s", err.msg);
    return d;
}

/* ---- capacity --------------------------------------------------------------------------- */

/* The fleet's last 30 days as `gpuplan capacity` reads them: the histogram of its whole GPUs
 * merged, and the load of every complete bucket as `plan --mix` takes it. */
static void *job_capacity(gp_session *ses, bool have_db, const char *no_db) {
    cap_data *d = gp_xcalloc(1, sizeof *d);
    if (!have_db) {
        snprintf(d->error, sizeof d->error, "%s", no_db);
        return d;
    }
    int64_t now = gp_now_ms();
    d->at_ms = now;
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.since_ms = 30 * GP_DAY_MS;
    q.threshold = 5;
    gp_capacity c;
    gp_err err;
    if (gp_capacity_analyse(ses, &q, now, &c, &err))
        snprintf(d->error, sizeof d->error, "%s", err.msg);
    for (size_t i = 0; i < c.n; i++)
        if (!c.rows[i].mig[0])
            gp_cap_gpu_merge(&d->fleet, &c.rows[i].g);
    d->gpus = c.gpus;
    d->busy = gp_xmalloc(sizeof *d->busy * (c.nb ? c.nb : 1));
    d->nb = gp_cap_complete_load(c.b, c.nb, (long long)c.n, d->busy);
    gp_capacity_done(&c);
    return d;
}

/* ---- catalog ---------------------------------------------------------------------------- */

typedef struct cat_acc {
    catalog_data *d;
    size_t cap, capg;
} cat_acc;

static int take_offer(const gp_offer_price *p, void *arg) {
    cat_acc *a = arg;
    a->d->o = gp_xgrow(a->d->o, &a->cap, (size_t)a->d->n, sizeof *a->d->o, 1024);
    offer *o = &a->d->o[a->d->n++];
    memset(o, 0, sizeof *o);
    snprintf(o->provider, sizeof o->provider, "%s", p->provider);
    snprintf(o->instance, sizeof o->instance, "%s", p->instance);
    snprintf(o->region, sizeof o->region, "%s", p->region);
    snprintf(o->gpu, sizeof o->gpu, "%s", p->gpu);
    snprintf(o->pricing, sizeof o->pricing, "%s", gp_pricing_name(p->pricing));
    if (p->pricing == GP_COMMITTED)
        snprintf(o->purchase, sizeof o->purchase, "%s",
                 p->purchase == GP_PARTIAL_UPFRONT ? "partial_upfront"
                 : p->purchase == GP_ALL_UPFRONT   ? "all_upfront"
                                                   : "no_upfront");
    o->gpus = p->gpu_count;
    o->hourly = p->hourly;
    o->per_gpu_hour = p->gpu_count > 0 ? p->hourly / p->gpu_count : 0;
    o->term = p->term_months;
    snprintf(o->effective_from, sizeof o->effective_from, "%s", p->effective_from);
    return 0;
}

static int take_spec(const gp_gpu_spec *s, const char *source, void *arg) {
    (void)source;
    cat_acc *a = arg;
    a->d->g = gp_xgrow(a->d->g, &a->capg, (size_t)a->d->ng, sizeof *a->d->g, 64);
    gpu_row *g = &a->d->g[a->d->ng++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", s->name);
    snprintf(g->vendor, sizeof g->vendor, "%s", s->vendor);
    snprintf(g->released, sizeof g->released, "%s", s->release_date);
    memcpy(g->v, s->v, sizeof g->v);
    memcpy(g->has, s->has, sizeof g->has);
    return 0;
}

/* Each offer's throughput in each profile: the figures in use of the throughput table, read
 * through the worker's session (it refreshes the estimates from the specs). */
static void throughputs(gp_session *ses, catalog_data *d) {
    gp_tp_list l;
    gp_err err;
    gp_err_clear(&err);
    if (gp_throughput_list(ses, NULL, NULL, &l, &err)) {
        snprintf(d->error, sizeof d->error, "throughput: %s", err.msg);
        return;
    }
    for (int i = 0; i < d->n; i++)
        for (int p = 0; p < gp_n_profiles && p < TUI_MAX_PROFILES; p++) {
            const gp_throughput *e = gp_tp_effective(&l, d->o[i].gpu, gp_profiles[p].name);
            d->o[i].has_tp[p] = e != NULL;
            d->o[i].tp[p] = e ? e->value : 0;
            d->o[i].tp_measured[p] = e && e->kind == GP_TP_MEASURED;
            d->o[i].tp_published[p] = e && e->kind == GP_TP_PUBLISHED;
        }
    gp_tp_list_done(&l);
}

static void *job_catalog(gp_session *ses, bool have_db, const char *no_db) {
    catalog_data *d = gp_xcalloc(1, sizeof *d);
    if (!have_db) {
        snprintf(d->error, sizeof d->error, "%s", no_db);
        return d;
    }
    char today[11];
    gp_today(today);
    gp_offer_filter f = {.pricing = -1, .as_of = today, .sort = GP_SORT_GPU_HOUR};
    cat_acc a = {d, 0, 0};
    gp_err err;
    /* A database that never had the catalog gets the bundled one first (the pricing service
     * loads it), here off the input thread. */
    if (gp_pricing_offers(ses, &f, take_offer, &a, &err) ||
        gp_pricing_specs(ses, NULL, take_spec, &a, &err))
        snprintf(d->error, sizeof d->error, "%s", err.msg);
    else
        throughputs(ses, d);
    return d;
}

/* ---- a comparison of GPU generations ------------------------------------------------------ */

/* gp_compare through the worker's session: it evaluates a scenario a candidate (about half a
 * second over the bundled catalog), too slow for the input thread. */
static void *job_compare(gp_session *ses, const gp_compare_request *rq) {
    gen_data *g = gp_xcalloc(1, sizeof *g);
    g->rq = *rq;
    gp_err err;
    gp_err_clear(&err);
    if (gp_compare(ses, rq, &g->c, &err))
        snprintf(g->error, sizeof g->error, "%s%s%s", err.where, err.where[0] ? ": " : "", err.msg);
    return g;
}

/* ---- the thread ------------------------------------------------------------------------- */

static void free_result(job_kind k, void *p) {
    if (k == JOB_FLEET)
        fleet_data_free(p);
    else if (k == JOB_CAPACITY)
        cap_data_free(p);
    else if (k == JOB_COMPARE)
        gen_data_free(p);
    else
        catalog_data_free(p);
}

static void *run(void *arg) {
    worker *w = arg;
    gp_session ses;
    gp_session_init(&ses, w->path);
    gp_err err;
    gp_err_clear(&err);
    bool have_db = gp_session_open(&ses, &err) == GP_OK; /* false: every result says why */
    pthread_mutex_lock(&w->mu);
    for (;;) {
        int k = -1;
        while (!w->quit) {
            for (int i = 0; i < JOB_N && k < 0; i++)
                if (w->pending[i])
                    k = i;
            if (k >= 0)
                break;
            pthread_cond_wait(&w->cv, &w->mu);
        }
        if (w->quit)
            break;
        w->pending[k] = false;
        w->running[k] = true;
        gp_compare_request rq = w->compare_rq;
        pthread_mutex_unlock(&w->mu);
        void *res = k == JOB_FLEET      ? job_fleet(&ses, have_db, w->demo, err.msg)
                    : k == JOB_CAPACITY ? job_capacity(&ses, have_db, err.msg)
                    : k == JOB_COMPARE  ? job_compare(&ses, &rq)
                                        : job_catalog(&ses, have_db, err.msg);
        pthread_mutex_lock(&w->mu);
        if (w->ready[k])
            free_result((job_kind)k, w->ready[k]);
        w->ready[k] = res;
        w->running[k] = false;
    }
    pthread_mutex_unlock(&w->mu);
    gp_session_close(&ses);
    return NULL;
}

void worker_start(tui *t) {
    worker *w = &t->w;
    memset(w, 0, sizeof *w);
    snprintf(w->path, sizeof w->path, "%s", t->ses->path);
    w->demo = t->demo;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->started = pthread_create(&w->thread, NULL, run, w) == 0;
}

void worker_stop(tui *t) {
    worker *w = &t->w;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->quit = true;
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    for (int k = 0; k < JOB_N; k++)
        if (w->ready[k])
            free_result((job_kind)k, w->ready[k]);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
}

void worker_ask(tui *t, job_kind k) {
    worker *w = &t->w;
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    if (!w->running[k])
        w->pending[k] = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void worker_ask_compare(tui *t, const gp_compare_request *rq) {
    worker *w = &t->w;
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->compare_rq = *rq;
    w->pending[JOB_COMPARE] = true; /* a running one's result is replaced by this one's */
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

bool worker_busy(tui *t, job_kind k) {
    worker *w = &t->w;
    pthread_mutex_lock(&w->mu);
    bool b = w->pending[k] || w->running[k];
    pthread_mutex_unlock(&w->mu);
    return b;
}

unsigned worker_collect(tui *t) {
    worker *w = &t->w;
    if (!w->started)
        return 0;
    void *got[JOB_N];
    pthread_mutex_lock(&w->mu);
    for (int k = 0; k < JOB_N; k++) {
        got[k] = w->ready[k];
        w->ready[k] = NULL;
    }
    pthread_mutex_unlock(&w->mu);
    unsigned changed = 0;
    if (got[JOB_FLEET]) {
        fleet_data_free(t->fleet);
        t->fleet = got[JOB_FLEET];
        changed |= 1u << JOB_FLEET;
    }
    if (got[JOB_CAPACITY]) {
        cap_data_free(t->cap);
        t->cap = got[JOB_CAPACITY];
        changed |= 1u << JOB_CAPACITY;
    }
    if (got[JOB_CATALOG]) {
        catalog_data_free(t->cat);
        t->cat = got[JOB_CATALOG];
        changed |= 1u << JOB_CATALOG;
    }
    if (got[JOB_COMPARE]) {
        gen_data_free(t->gen_res);
        t->gen_res = got[JOB_COMPARE];
        changed |= 1u << JOB_COMPARE;
    }
    return changed;
}

void fleet_data_free(fleet_data *f) {
    if (f)
        free(f->g);
    free(f);
}

void cap_data_free(cap_data *c) {
    if (c)
        free(c->busy);
    free(c);
}

void gen_data_free(gen_data *g) {
    if (g)
        gp_comparison_done(&g->c);
    free(g);
}

void catalog_data_free(catalog_data *c) {
    if (c) {
        free(c->o);
        free(c->g);
    }
    free(c);
}
