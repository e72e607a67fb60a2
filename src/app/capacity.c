/* Capacity from stored telemetry (app_capacity.h): gathering a window's GPUs and buckets from
 * the store, grouping them, and the mixed-fleet plan and measured scenario built on them. The
 * figures themselves come from model/capacity.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/app_capacity.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/catalog.h"
#include "gpuplan/clock.h"
#include "gpuplan/engine.h"
#include "gpuplan/report_capacity.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store_capacity.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/xmem.h"
#include "capacity_int.h"

void gp_cap_query_init(gp_cap_query *q) {
    memset(q, 0, sizeof *q);
    q->since_ms = 30 * GP_DAY_MS;
    q->threshold = 5;
    q->pue = 1.0;
    snprintf(q->currency, sizeof q->currency, "USD");
}

gp_status gp_cap_query_price_from(gp_session *ses, const char *arg, gp_cap_query *q, gp_err *err) {
    gp_loaded sc;
    if (gp_load_scenario(ses, arg, 0, ses->today, &sc, err))
        return err->code;
    q->has_price = true;
    q->price = gp_tariff_mean_price(sc.s);
    q->pue = sc.s->pue;
    snprintf(q->currency, sizeof q->currency, "%s", sc.s->currency);
    gp_result *r = gp_xmalloc(sizeof *r);
    gp_status rc = gp_evaluate(&sc, r, err);
    if (rc == GP_OK) {
        q->has_allin = true;
        q->allin_per_gpu_hour =
            r->self.total / ((double)sc.s->gpus * sc.s->horizon_months * GP_MONTH_HOURS);
    }
    free(r);
    gp_loaded_done(&sc);
    return rc;
}

/* The store's selection for q's window; nodes_json is room for the node list as JSON. */
static void selection(const gp_cap_query *q, int64_t now, gp_cap_select *sel, char *nodes_json,
                      size_t cap) {
    sel->from_ms = now - q->since_ms;
    sel->to_ms = now + 1;
    sel->gpu = q->has_gpu ? q->gpu : NULL;
    sel->nodes_json = NULL;
    if (q->n_nodes) {
        cJSON *a = cJSON_CreateArray();
        for (int i = 0; i < q->n_nodes; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(q->nodes[i]));
        char *t = cJSON_PrintUnformatted(a);
        snprintf(nodes_json, cap, "%s", t ? t : "[]");
        free(t);
        cJSON_Delete(a);
        sel->nodes_json = nodes_json;
    }
}

/* --gpu as typed, normalized (gp_gpu_normalize), against the keys stored: a key is matched as
 * is (and its memory variants, the store's selection); a model the catalog does not know is
 * keyed by its whole cleaned name ("RTX2000ADAGENERATION"), so the name people read for it
 * ("RTX 2000 Ada", normalized "RTX2000ADA") finds it too. */
typedef struct gpu_pick {
    const char *want;
    bool exact;
    char key[GP_GPU_NAME_BYTES];
} gpu_pick;

static int pick_gpu(const char *key, const char *raw, void *arg) {
    gpu_pick *p = arg;
    size_t n = strlen(p->want);
    if (!strcmp(key, p->want) || (!strncmp(key, p->want, n) && key[n] == '-')) {
        p->exact = true;
        return 1;
    }
    char shown[GP_GPU_NAME_BYTES], norm[GP_GPU_NAME_BYTES];
    if (!p->key[0] && (gp_gpu_display_name(raw, shown, sizeof shown) ||
                       gp_gpu_display_name(key, shown, sizeof shown))) {
        gp_gpu_normalize(shown, 0, norm, sizeof norm);
        if (!strcmp(norm, p->want))
            snprintf(p->key, sizeof p->key, "%s", key);
    }
    return 0;
}

/* sel->gpu: the key --gpu finds among those stored (key holds it). */
static gp_status resolve_gpu(gp_store *st, gp_cap_select *sel, char *key, size_t cap, gp_err *err) {
    if (!sel->gpu)
        return GP_OK;
    gpu_pick p = {.want = sel->gpu};
    if (gp_store_gpu_models(st, pick_gpu, &p, err))
        return err->code;
    if (!p.exact && p.key[0]) {
        snprintf(key, cap, "%s", p.key);
        sel->gpu = key;
    }
    return GP_OK;
}

/* What a capacity read selects: q's window, nodes and GPU key, the texts sel points to held
 * here (so a cap_sel is not copied). */
typedef struct cap_sel {
    gp_cap_select sel;
    char nodes_json[4096], key[GP_GPU_NAME_BYTES];
} cap_sel;

static gp_status select_of(gp_store *st, const gp_cap_query *q, int64_t now, cap_sel *s,
                           gp_err *err) {
    selection(q, now, &s->sel, s->nodes_json, sizeof s->nodes_json);
    return resolve_gpu(st, &s->sel, s->key, sizeof s->key, err);
}

/* ---- gathering the window ----------------------------------------------------------------- */

typedef struct gathered {
    gp_cap_row *rows;
    size_t n, cap;
    gp_cap_bucket *b;
    size_t nb, capb;
    int threshold;
} gathered;

/* snprintf(out, cap, "%s", s) without the format machinery (six strings a GPU). */
static void copy_text(char *out, size_t cap, const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(out, s, n);
    out[n] = '\0';
}

/* g as a row of its own: its strings copied into the row (r->g's still point at g's), its
 * figures at threshold. */
static void row_of(gp_cap_row *r, const gp_cap_gpu *g, int threshold) {
    r->g = *g;
    copy_text(r->node, sizeof r->node, g->node);
    copy_text(r->host, sizeof r->host, g->host);
    copy_text(r->uuid, sizeof r->uuid, g->uuid);
    copy_text(r->model, sizeof r->model, g->model);
    copy_text(r->mig, sizeof r->mig, g->mig);
    copy_text(r->raw_model, sizeof r->raw_model, g->raw_model ? g->raw_model : "");
    gp_cap_figures_of(&r->g, threshold, &r->f);
}

/* r->g's strings into r itself. */
static void row_own(gp_cap_row *r) {
    r->g.node = r->node, r->g.host = r->host, r->g.uuid = r->uuid, r->g.model = r->model;
    r->g.mig = r->mig, r->g.raw_model = r->raw_model;
}

static int take_gpu(const gp_cap_gpu *g, void *arg) {
    gathered *x = arg;
    x->rows = gp_xgrow(x->rows, &x->cap, x->n, sizeof *x->rows, 64);
    row_of(&x->rows[x->n++], g, x->threshold);
    return 0;
}

static int take_bucket(const gp_cap_bucket *b, void *arg) {
    gathered *x = arg;
    x->b = gp_xgrow(x->b, &x->capb, x->nb, sizeof *x->b, 1024);
    x->b[x->nb++] = *b;
    return 0;
}

/* The window's GPUs and buckets; each row's strings point into the row (after the array has
 * stopped moving). */
static gp_status gather(gp_store *st, const gp_cap_select *sel, int threshold, gathered *x,
                        gp_err *err) {
    memset(x, 0, sizeof *x);
    x->threshold = threshold;
    if (gp_store_capacity_gpus(st, sel, take_gpu, x, err) ||
        gp_store_capacity_buckets(st, sel, threshold, take_bucket, x, err))
        return err->code;
    for (size_t i = 0; i < x->n; i++)
        row_own(&x->rows[i]);
    return GP_OK;
}

/* Whole physical GPUs (MIG instances are parts of one). */
static long long whole_gpus(const gp_cap_row *rows, size_t n) {
    long long k = 0;
    for (size_t i = 0; i < n; i++)
        k += rows[i].mig[0] == '\0';
    return k;
}

static gp_cap_group *group_of(gp_cap_group **gs, size_t *n, size_t *cap, const char *key) {
    /* Rows come in node order: a node's GPUs find their group at the end (1,250 nodes). */
    if (*n > 0 && !strcmp((*gs)[*n - 1].key, key))
        return &(*gs)[*n - 1];
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*gs)[i].key, key))
            return &(*gs)[i];
    *gs = gp_xgrow(*gs, cap, *n, sizeof **gs, 16);
    gp_cap_group *g = &(*gs)[(*n)++];
    memset(g, 0, sizeof *g);
    snprintf(g->key, sizeof g->key, "%s", key);
    snprintf(g->display, sizeof g->display, "%s", key);
    return g;
}

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x > y ? -1 : x < y;
}

typedef struct walls {
    gp_capacity *c;
    size_t cap;
} walls;

static int take_wall(const char *node, double mean_w, void *arg) {
    walls *w = arg;
    gp_capacity *c = w->c;
    double gpus_w = 0;
    for (size_t i = 0; i < c->n; i++) {
        const gp_cap_row *r = &c->rows[i];
        if (!strcmp(r->node, node) && !r->mig[0] && r->g.power_n)
            gpus_w += r->g.power_sum / (double)r->g.power_n;
    }
    c->walls = gp_xgrow(c->walls, &w->cap, c->nw, sizeof *c->walls, 8);
    gp_cap_wall *x = &c->walls[c->nw++];
    snprintf(x->node, sizeof x->node, "%s", node);
    x->wall_w = mean_w;
    x->gpus_w = gpus_w;
    return 0;
}

typedef struct usage {
    gp_capacity *c;
    size_t cap;
} usage;

static int take_usage(const gp_cap_label *l, void *arg) {
    usage *u = arg;
    gp_capacity *c = u->c;
    c->usage = gp_xgrow(c->usage, &u->cap, c->nu, sizeof *c->usage, 16);
    c->usage[c->nu++] = (gp_cap_usage){l->value ? gp_xstrdup(l->value) : NULL, l->buckets,
                                       l->util_sum, l->power_sum, 0};
    return 0;
}

/* One row into the fleet and its model's and node's groups (*cm, *cn: their arrays' room). */
static void cap_add_row(gp_capacity *c, const gp_cap_row *r, size_t *cm, size_t *cn) {
    if (r->mig[0])
        return; /* a MIG instance is in its GPU's rolled-up row (samples.h) */
    gp_cap_gpu_merge(&c->fleet, &r->g);
    size_t had = c->nm;
    gp_cap_group *m = group_of(&c->models, &c->nm, cm, r->model[0] ? r->model : "?");
    /* A model is named as its first GPU reported it, else after its key. */
    if (c->nm > had && !gp_gpu_display_name(r->raw_model, m->display, sizeof m->display))
        gp_gpu_display_name(m->key, m->display, sizeof m->display);
    if (!m->display[0]) /* a dmon log names no model: said, never a blank */
        snprintf(m->display, sizeof m->display, "(unknown model)");
    gp_cap_gpu_merge(&m->sum, &r->g);
    m->gpus++;
    gp_cap_group *nd = group_of(&c->nodes, &c->nn, cn, r->node);
    gp_cap_gpu_merge(&nd->sum, &r->g);
    nd->gpus++;
}

/* The fleet's and the groups' figures, once every row is in. */
static void cap_group_figures(gp_capacity *c) {
    gp_cap_figures_of(&c->fleet, c->threshold, &c->fleet_f);
    for (size_t i = 0; i < c->nm; i++)
        gp_cap_figures_of(&c->models[i].sum, c->threshold, &c->models[i].f);
    for (size_t i = 0; i < c->nn; i++)
        gp_cap_figures_of(&c->nodes[i].sum, c->threshold, &c->nodes[i].f);
}

/* The groups (fleet, per model, per node) and the load duration curve of what was gathered. */
void cap_summarise(gp_capacity *c) {
    size_t cm = 0, cn = 0;
    for (size_t i = 0; i < c->n; i++)
        cap_add_row(c, &c->rows[i], &cm, &cn);
    cap_group_figures(c);
    /* Complete buckets: every physical GPU of the selection reported. */
    long long units = whole_gpus(c->rows, c->n);
    c->ldc = gp_xmalloc((c->nb + 1) * sizeof *c->ldc);
    for (size_t i = 0; i < c->nb; i++) {
        if (c->b[i].gpus >= units)
            c->ldc[c->nl++] = c->b[i].util_sum / 100.0;
        else
            c->partial++;
    }
    if (c->nl)
        qsort(c->ldc, c->nl, sizeof *c->ldc, cmp_desc);
    c->empty = c->window - (long long)c->nb;
    if (c->empty < 0)
        c->empty = 0;
}

/* A GPU-hour present: a physical GPU's bucket counted in hours (a MIG instance's hours are its
 * GPU's). */
static double present_hours_of(const gp_cap_row *r) {
    return r->mig[0] ? 0 : (double)r->g.buckets * 5.0 / 60.0;
}

/* OpenCost's manner: each label value pays for the GPU-hours it used at the all-in rate; what
 * the fleet's present GPU-hours cost beyond that is idle, a row of its own. */
static void chargeback_over(gp_capacity *c, double rate, double present_hours) {
    double allocated = 0;
    for (size_t i = 0; i < c->nu; i++) {
        c->usage[i].allin = c->usage[i].util_sum / 100.0 * 5.0 / 60.0 * rate;
        allocated += c->usage[i].allin;
    }
    c->has_allin = true;
    c->allin_per_gpu_hour = rate;
    c->allin_fleet = present_hours * rate;
    c->allin_idle = c->allin_fleet - allocated;
}

void cap_chargeback(gp_capacity *c, double rate) {
    double present_hours = 0;
    for (size_t i = 0; i < c->n; i++)
        present_hours += present_hours_of(&c->rows[i]);
    chargeback_over(c, rate, present_hours);
}

/* The opening gp_capacity_analyse and gp_capacity_each share: c zeroed, then its window and
 * prices from q, the store and q's selection in *st and *s; nothing read yet. */
static gp_status cap_begin(gp_session *ses, const gp_cap_query *q, int64_t now, gp_capacity *c,
                           gp_store **st, cap_sel *s, gp_err *err) {
    memset(c, 0, sizeof *c);
    if (gp_session_store(ses, st, err) || select_of(*st, q, now, s, err))
        return err->code;
    c->from_ms = s->sel.from_ms;
    c->until_ms = now;
    c->threshold = q->threshold;
    c->has_price = q->has_price;
    c->price = q->price;
    c->pue = q->pue;
    snprintf(c->currency, sizeof c->currency, "%s", q->currency);
    c->window = q->since_ms / 300000;
    return GP_OK;
}

gp_status gp_capacity_analyse(gp_session *ses, const gp_cap_query *q, int64_t now, gp_capacity *c,
                              gp_err *err) {
    if (q->remote) /* the server aggregates: nothing is read from the store */
        return gp_capacity_remote(q, now, c, err);
    gp_store *st;
    cap_sel s;
    if (cap_begin(ses, q, now, c, &st, &s, err))
        return err->code;
    const gp_cap_select *sel = &s.sel;
    gathered x;
    gp_status rc = gather(st, sel, q->threshold, &x, err);
    c->rows = x.rows, c->n = x.n, c->b = x.b, c->nb = x.nb;
    if (rc)
        return rc;
    c->gpus = whole_gpus(c->rows, c->n);
    cap_summarise(c);
    walls w = {c, 0};
    gp_err ignored; /* wall power is a side figure: a failed read leaves the list empty */
    gp_store_capacity_node_power(st, sel, take_wall, &w, &ignored);
    if (q->by) {
        c->by = q->by;
        usage u = {c, 0};
        if (gp_store_capacity_by_label(st, sel, q->by, take_usage, &u, err))
            return err->code;
        if (q->has_allin)
            cap_chargeback(c, q->allin_per_gpu_hour);
    }
    return GP_OK;
}

/* gp_capacity_each's walk: one row, reused from GPU to GPU. */
typedef struct streamed {
    gp_capacity *c;
    gp_cap_row *row;
    size_t cm, cn;
    double present_hours;
    void (*fn)(const gp_capacity *, const gp_cap_row *, void *);
    void *arg;
} streamed;

static int take_streamed(const gp_cap_gpu *g, void *arg) {
    streamed *x = arg;
    gp_cap_row *r = x->row;
    row_of(r, g, x->c->threshold);
    row_own(r);
    x->c->n++;
    x->c->gpus += r->mig[0] == '\0';
    x->present_hours += present_hours_of(r);
    cap_add_row(x->c, r, &x->cm, &x->cn);
    x->fn(x->c, r, x->arg);
    return 0;
}

gp_status gp_capacity_each(gp_session *ses, const gp_cap_query *q, int64_t now,
                           void (*fn)(const gp_capacity *c, const gp_cap_row *r, void *arg),
                           void *arg, gp_capacity *c, gp_err *err) {
    gp_store *st;
    cap_sel s;
    if (cap_begin(ses, q, now, c, &st, &s, err))
        return err->code;
    const gp_cap_select *sel = &s.sel;
    c->has_allin = q->has_allin; /* known before the rows: fn prices each one */
    c->allin_per_gpu_hour = q->allin_per_gpu_hour;
    streamed x = {c, gp_xmalloc(sizeof *x.row), 0, 0, 0, fn, arg};
    gp_status rc = gp_store_capacity_sums(st, sel, take_streamed, &x, err);
    free(x.row);
    if (rc)
        return rc;
    cap_group_figures(c);
    if (q->by) {
        c->by = q->by;
        usage u = {c, 0};
        if (gp_store_capacity_by_label(st, sel, q->by, take_usage, &u, err))
            return err->code;
        if (q->has_allin)
            chargeback_over(c, q->allin_per_gpu_hour, x.present_hours);
    }
    return GP_OK;
}

void gp_capacity_done(gp_capacity *c) {
    free(c->rows);
    free(c->b);
    free(c->ldc);
    free(c->models);
    free(c->nodes);
    free(c->walls);
    for (size_t i = 0; i < c->nu; i++)
        free(c->usage[i].value);
    free(c->usage);
    memset(c, 0, sizeof *c);
}

/* ---- plan --mix ---------------------------------------------------------------------------- */

/* A trend's slope must be this many standard errors from zero to be significant. */
#define TREND_T 2.0

/* Least squares on daily busy GPU-hours of the complete buckets (all `units` reported): the
 * month's growth rate and its confidence. */
static void trend_of(const gp_cap_bucket *b, size_t nb, long long units, gp_cap_trend *t) {
    double xs[4000] = {0}, ys[4000] = {0}; /* zeroed: the compiler cannot see nd bound the reads */
    size_t nd = 0;
    int64_t day0 = nb ? b[0].bucket_ms / GP_DAY_MS : 0;
    for (size_t i = 0; i < nb; i++) {
        if (b[i].gpus < units)
            continue;
        int64_t d = b[i].bucket_ms / GP_DAY_MS - day0;
        if (d < 0 || d >= 4000)
            continue;
        if (nd == 0 || xs[nd - 1] != (double)d) {
            xs[nd] = (double)d;
            ys[nd++] = 0;
        }
        ys[nd - 1] += (double)b[i].busy * 5.0 / 60.0;
    }
    double a;
    gp_linear_fit(xs, ys, nd, &a, &t->slope, &t->r2);
    double level = a + t->slope * (nd ? xs[nd - 1] : 0);
    double per_month = level > 0 ? (GP_MONTH_HOURS / 24.0) / level : 0;
    t->growth = t->slope * per_month;
    t->slope_se = gp_slope_stderr(xs, ys, nd, a, t->slope);
    t->growth_se = isfinite(t->slope_se) ? t->slope_se * per_month : NAN;
    t->days = nd;
    t->significant = nd >= 7 && isfinite(t->slope_se) && fabs(t->slope) >= TREND_T * t->slope_se;
}

/* The measured fleet's whole GPUs by model, largest first. */
static void measured_models(const gp_cap_row *rows, size_t n, gp_mix_plan *p) {
    for (size_t i = 0; i < n; i++) {
        if (rows[i].mig[0])
            continue;
        p->measured_gpus++;
        const char *model = rows[i].model[0] ? rows[i].model : "?";
        int k = 0;
        while (k < p->n_models && strcmp(p->models[k].model, model) != 0)
            k++;
        if (k == p->n_models) {
            if (k == 8)
                continue; /* counted in the total, not named */
            snprintf(p->models[k].model, sizeof p->models[k].model, "%s", model);
            snprintf(p->models[k].raw_model, sizeof p->models[k].raw_model, "%s",
                     rows[i].raw_model);
            p->n_models++;
        }
        p->models[k].gpus++;
    }
    for (int i = 1; i < p->n_models; i++) /* a handful: insertion sort */
        for (int j = i; j > 0 && p->models[j].gpus > p->models[j - 1].gpus; j--) {
            gp_mix_model t = p->models[j];
            p->models[j] = p->models[j - 1];
            p->models[j - 1] = t;
        }
}

static gp_status mix_on(gp_store *st, const gp_loaded *sc, int oi, const gp_cap_query *q,
                        const gp_mix_request *rq, int64_t now, gp_mix_plan *p, gp_err *err) {
    cap_sel s;
    if (select_of(st, q, now, &s, err))
        return err->code;
    gathered x;
    gp_status rc = gather(st, &s.sel, q->threshold, &x, err);
    /* b_t: GPUs busy in each complete bucket; buckets with a GPU missing are gaps. */
    double *b = gp_xmalloc((x.nb + 1) * sizeof *b);
    p->units = whole_gpus(x.rows, x.n);
    size_t nt = rc ? 0 : gp_cap_complete_load(x.b, x.nb, p->units, b);
    if (!rc && nt == 0)
        rc = gp_errorf(err, GP_E_INPUT, NULL,
                       "no complete 5-minute buckets in the window: no load to plan on");
    if (!rc)
        measured_models(x.rows, x.n, p);
    if (!rc) {
        p->buckets = nt, p->gaps = x.nb - nt;
        p->peak = b[nt - 1];
        p->median = gp_sorted_quantile(b, nt, 0.5);
        p->n = sc->s->gpus;
        p->curve = gp_xmalloc(((size_t)p->n + 1) * sizeof *p->curve);
        rc = gp_model_mix(sc->s, oi, b, nt, p->curve, &p->best, err);
    }
    if (!rc && rq->has_growth) {
        p->has_growth = true;
        p->trend = rq->trend;
        p->growth = rq->growth;
        p->target = rq->target;
        for (size_t i = 0; i < nt; i++)
            p->busy_now += b[i];
        p->busy_now /= (double)nt;
        p->projected = true;
        if (rq->trend) {
            trend_of(x.b, x.nb, p->units, &p->tr);
            p->growth = p->tr.growth;
            p->projected = p->tr.significant || rq->force_trend;
        }
        p->need_now = p->busy_now / rq->target;
        p->runs_out = gp_months_until_exceeded(p->need_now, p->growth, p->n, sc->s->horizon_months);
    }
    free(b);
    free(x.rows);
    free(x.b);
    return rc;
}

/* The scenario's option names, quoted, as far as the room allows: "a", "b" and 2 more. */
static void option_names(const gp_scenario *s, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n_options; i++) {
        size_t need = strlen(s->options[i].name) + 4;
        if (n + need + 16 > cap) {
            snprintf(out + n, cap - n, " and %d more", s->n_options - i);
            return;
        }
        n += (size_t)snprintf(out + n, cap - n, "%s\"%s\"", i ? ", " : "", s->options[i].name);
    }
}

gp_status gp_plan_mix(gp_session *ses, const gp_cap_query *q, const gp_mix_request *rq, int64_t now,
                      gp_mix_plan *p, gp_err *err) {
    memset(p, 0, sizeof *p);
    gp_loaded sc;
    if (gp_load_scenario(ses, rq->scenario, 0, ses->today, &sc, err))
        return err->code;
    int oi = -1;
    for (int i = 0; i < sc.s->n_options; i++)
        if (!strcmp(sc.s->options[i].name, rq->option))
            oi = i;
    snprintf(p->currency, sizeof p->currency, "%s", sc.s->currency);
    p->horizon_months = sc.s->horizon_months;
    gp_store *st;
    gp_status rc;
    if (oi < 0) {
        char names[160];
        option_names(sc.s, names, sizeof names);
        rc = gp_errorf(err, GP_E_INPUT, NULL, "the scenario has no option \"%s\"%s%s%s", rq->option,
                       sc.s->n_options ? " (its options: " : " (it has no cloud option)", names,
                       sc.s->n_options ? ")" : "");
    } else if (!(rc = gp_session_store(ses, &st, err)))
        rc = mix_on(st, &sc, oi, q, rq, now, p, err);
    gp_loaded_done(&sc);
    return rc;
}

void gp_mix_plan_done(gp_mix_plan *p) {
    free(p->curve);
    p->curve = NULL;
}

/* ---- scenario measure ---------------------------------------------------------------------- */

/* v to a number of decimals: a measured figure is written at the precision it means (a
 * utilization to 0.0001 %, watts to 0.01 W), not with the float noise of its arithmetic. */
static double at(double v, int decimals) {
    double k = pow(10, decimals);
    return round(v * k) / k;
}

static void set_num(cJSON *obj, const char *key, double v) {
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (old)
        cJSON_SetNumberValue(old, v);
    else
        cJSON_AddNumberToObject(obj, key, v);
}

static cJSON *child_object(cJSON *obj, const char *key) {
    cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key);
    return o ? o : cJSON_AddObjectToObject(obj, key);
}

static void utc_text(int64_t ms, char *out, size_t cap) {
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The demand and power figures of c written into the scenario doc, and its "measured" record
 * (window, nodes, figures, wall power). */
static void write_measured(cJSON *doc, const gp_capacity *c, const gp_cap_query *q,
                           const gp_cap_gpu *fleet, const gp_cap_figures *f, gp_measured *out) {
    cJSON *demand = child_object(doc, "demand");
    set_num(demand, "gpus", (double)out->gpus);
    set_num(demand, "utilization", at(f->busy_share, 6));
    cJSON *power = child_object(child_object(doc, "self_hosted"), "power");
    if (f->has_idle_w || f->has_busy_w) {
        double idle_w = f->has_idle_w ? f->idle_w : f->busy_w,
               busy_w = f->has_busy_w ? f->busy_w : idle_w;
        if (busy_w < idle_w)
            busy_w = idle_w; /* the model needs busy >= idle */
        set_num(power, "gpu_idle_w", at(idle_w, 2));
        set_num(power, "gpu_tdp_w", at(busy_w, 2));
        /* A flat mean draw would override the measured split: the split is what was measured. */
        cJSON_DeleteItemFromObjectCaseSensitive(power, "gpu_avg_w");
    }
    /* A server's base is its wall less its GPUs: only a node with GPU power in the window
     * says it (a BMC-only node's wall is no server's base), and a wall below its GPUs' draw
     * measured something else (another chassis, a PSU alone), so neither is averaged in. */
    double base_sum = 0;
    size_t n_base = 0;
    for (size_t i = 0; i < c->nw; i++)
        if (gp_cap_wall_is_base(&c->walls[i])) {
            base_sum += c->walls[i].wall_w - c->walls[i].gpus_w;
            n_base++;
        }
    out->has_base = n_base > 0;
    out->base_w = n_base ? base_sum / (double)n_base : 0;
    if (out->has_base)
        set_num(power, "server_base_w", at(out->base_w, 2));
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "measured");
    cJSON *m = cJSON_AddObjectToObject(doc, "measured");
    char since[32], until[32];
    utc_text(c->from_ms, since, sizeof since);
    utc_text(c->until_ms, until, sizeof until);
    cJSON_AddStringToObject(m, "since", since);
    cJSON_AddStringToObject(m, "until", until);
    cJSON *nodes = cJSON_AddArrayToObject(m, "nodes");
    for (size_t i = 0; i < c->nn; i++)
        cJSON_AddItemToArray(nodes, cJSON_CreateString(c->nodes[i].key));
    if (q->has_gpu)
        cJSON_AddStringToObject(m, "gpu", q->gpu);
    cJSON_AddNumberToObject(m, "gpus", (double)out->gpus);
    cJSON_AddNumberToObject(m, "busy_threshold", q->threshold / 100.0);
    cJSON_AddNumberToObject(m, "gpu_buckets", (double)fleet->buckets);
    cJSON_AddNumberToObject(m, "utilization", at(f->busy_share, 6));
    cJSON_AddNumberToObject(m, "util_mean", at(f->util_mean / 100, 6));
    if (f->has_idle_w)
        cJSON_AddNumberToObject(m, "gpu_idle_w", at(f->idle_w, 2));
    if (f->has_busy_w)
        cJSON_AddNumberToObject(m, "gpu_busy_w", at(f->busy_w, 2));
    if (out->has_base)
        cJSON_AddNumberToObject(m, "server_base_w", at(out->base_w, 2));
    cJSON_AddItemToObject(m, "wall_power", gp_report_capacity_walls(c));
    out->busy_share = f->busy_share;
    out->has_idle_w = f->has_idle_w, out->idle_w = f->idle_w;
    out->has_busy_w = f->has_busy_w, out->busy_w = f->busy_w;
}

/* The window's trend into demand.growth_per_month when it can be trusted (or is forced) and
 * fits docs/model.md's range; the fit is recorded in "measured" either way. Steps and a growth
 * rate exclude each other: a measured rate replaces the steps. */
static void write_growth(cJSON *doc, const gp_capacity *c, const gp_measure_request *rq,
                         gp_measured *out) {
    trend_of(c->b, c->nb, whole_gpus(c->rows, c->n), &out->trend);
    const gp_cap_trend *t = &out->trend;
    cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "measured");
    cJSON *j = cJSON_AddObjectToObject(m, "growth");
    cJSON_AddNumberToObject(j, "per_month", at(t->growth, 6));
    if (isfinite(t->growth_se))
        cJSON_AddNumberToObject(j, "standard_error", at(t->growth_se, 6));
    cJSON_AddNumberToObject(j, "r2", at(t->r2, 6));
    cJSON_AddNumberToObject(j, "days", (double)t->days);
    cJSON_AddBoolToObject(j, "significant", t->significant);
    out->growth_written = (t->significant || rq->force_trend) && isfinite(t->growth) &&
                          t->growth >= -0.5 && t->growth <= 1;
    if (!out->growth_written)
        return;
    cJSON *demand = child_object(doc, "demand");
    cJSON_DeleteItemFromObjectCaseSensitive(demand, "steps");
    set_num(demand, "growth_per_month", at(t->growth, 6));
}

/* A scenario plans one GPU model: a window of several is refused, naming them and how to pick
 * one (--gpu from the store; the server selects by its modelName label). */
static gp_status several_models(const gp_capacity *c, const gp_cap_query *q, gp_err *err) {
    char names[400];
    size_t n = 0, top = 0;
    names[0] = '\0';
    bool *done = gp_xcalloc(c->nm, sizeof *done);
    for (size_t i = 0; i < c->nm && n + 80 < sizeof names; i++) { /* the largest first */
        size_t k = c->nm;
        for (size_t j = 0; j < c->nm; j++)
            if (!done[j] && (k == c->nm || c->models[j].gpus > c->models[k].gpus))
                k = j;
        done[k] = true;
        if (i == 0 || !strcmp(c->models[top].key, "?"))
            top = k; /* --gpu cannot name an unknown model: suggest a known one */
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%lld %s", i ? ", " : "",
                              c->models[k].gpus, c->models[k].display);
    }
    free(done);
    const gp_cap_row *first = NULL; /* a GPU of the largest model, for its raw name */
    for (size_t i = 0; i < c->n && !first; i++)
        if (!c->rows[i].mig[0] &&
            !strcmp(c->rows[i].model[0] ? c->rows[i].model : "?", c->models[top].key))
            first = &c->rows[i];
    if (q->remote)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "the window holds %zu GPU models (%s): measure one, selected with "
                         "--match '{modelName=\"%s\"}'",
                         c->nm, names, first && first->raw_model[0] ? first->raw_model : "...");
    return gp_errorf(err, GP_E_INPUT, NULL,
                     "the window holds %zu GPU models (%s): measure one with --gpu \"%s\"", c->nm,
                     names, c->models[top].display);
}

gp_status gp_scenario_measure(gp_session *ses, const char *name, const gp_cap_query *q,
                              const gp_measure_request *rq, int64_t now, gp_measured *out,
                              gp_err *err) {
    memset(out, 0, sizeof *out);
    gp_store *st;
    char *json_text = NULL;
    int version = 0;
    if (gp_session_store(ses, &st, err) ||
        gp_store_scenario_get(st, name, 0, &json_text, &version, NULL, err))
        return err->code;
    cJSON *doc = cJSON_Parse(json_text);
    free(json_text);
    if (!doc)
        return gp_errorf(err, GP_E_INPUT, NULL, "stored scenario \"%s\" is not JSON", name);
    gp_cap_query nq = *q;
    nq.by = NULL;
    gp_capacity c;
    gp_status rc = gp_capacity_analyse(ses, &nq, now, &c, err);
    if (!rc && (out->gpus = c.gpus) == 0)
        rc = gp_errorf(err, GP_E_INPUT, NULL, "no utilization in the window: nothing to measure");
    if (!rc && c.nm > 1 && !q->has_gpu)
        rc = several_models(&c, q, err);
    if (!rc) {
        /* The fleet of whole GPUs: MIG instances are counted in their parent's figures. */
        gp_cap_gpu fleet = {0};
        for (size_t i = 0; i < c.n; i++)
            if (!c.rows[i].mig[0])
                gp_cap_gpu_merge(&fleet, &c.rows[i].g);
        gp_cap_figures f;
        gp_cap_figures_of(&fleet, q->threshold, &f);
        write_measured(doc, &c, q, &fleet, &f, out);
        if (rq->growth)
            write_growth(doc, &c, rq, out);
        char *text = cJSON_Print(doc);
        gp_scenario *s = gp_xmalloc(sizeof *s);
        rc = gp_scenario_parse(text, strlen(text), name, s, NULL, err);
        if (rc == GP_OK)
            rc = gp_store_scenario_save(st, s->name, text, &out->version, err);
        snprintf(out->name, sizeof out->name, "%s", s->name);
        free(s);
        free(text);
    }
    gp_capacity_done(&c);
    cJSON_Delete(doc);
    return rc;
}
