/* The exporter's metric families, computed from the store and kept between collection cycles
 * (app_exporter.h; the families and their labels are listed in docs/exporter.md). */
#include "gpuplan/app_exporter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "batch_int.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/parse.h"
#include "gpuplan/store.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/xmem.h"

/* What identifies the database's content without reading it: the file and its write-ahead
 * log, each by size and modification time (every commit changes one of them). */
typedef struct db_stamp {
    long long size[2], mtime_ns[2], ino[2];
} db_stamp;

struct gp_exporter {
    gp_session *s;
    gp_exporter_opts o;
    gp_metric_set set;
    bool have;
    db_stamp stamp;
    int64_t refreshed_ms;
    double refreshes, failures;
    unsigned long long generation; /* bumped whenever set changes */
};

void gp_exporter_opts_init(gp_exporter_opts *o) {
    memset(o, 0, sizeof *o);
    o->since_ms = 7 * GP_DAY_MS;
    o->threshold = 5;
    o->max_label_values = 50;
    o->max_age_ms = 5 * GP_MINUTE_MS;
}

static void stamp_of(const char *path, db_stamp *out) {
    memset(out, 0, sizeof *out);
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    const char *paths[2] = {path, wal};
    for (int i = 0; i < 2; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) == 0) {
            out->size[i] = (long long)sb.st_size;
            out->mtime_ns[i] = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
            out->ino[i] = (long long)sb.st_ino;
        }
    }
}

/* ---- the families ------------------------------------------------------------------------ */

static const char *const L_NODE[] = {"node", NULL};
static const char *const L_NODE_CUR[] = {"node", "currency", NULL};
static const char *const L_GPU[] = {"node", "gpu", "uuid", "model", "mig", NULL};
static const char *const L_GPU_CUR[] = {"node", "gpu", "uuid", "model", "mig", "currency", NULL};
static const char *const L_CUR[] = {"currency", NULL};
static const char *const L_CHARGE[] = {"label", "value", "currency", NULL};
static const char *const L_CHARGE_H[] = {"label", "value", NULL};
static const char *const L_SCEN[] = {"scenario", NULL};
static const char *const L_SCEN_OPT[] = {"scenario", "option", NULL};
static const char *const L_SCEN_OPT_CUR[] = {"scenario", "option", "currency", NULL};
static const char *const L_SCEN_BASIS_CUR[] = {"scenario", "basis", "currency", NULL};
static const char *const L_PROVIDER[] = {"provider", NULL};

#define F(name, type, unit, help, labels) gp_metric_family_add(set, name, type, unit, help, labels)

/* The money of one GPU or node over the window: idle money and the cost of a busy GPU-hour,
 * from the all-in rate when the fleet scenario gives one, else from the energy at the price. */
typedef struct money {
    bool ok, has_busy;
    double idle, per_busy_hour;
} money;

static money money_of(const gp_capacity *c, const gp_cap_gpu *g, const gp_cap_figures *f) {
    money m = {0};
    /* f->hours are GPU-hours: a group's figures sum its GPUs' buckets. */
    double busy_h = f->busy_share * f->hours;
    m.has_busy = busy_h > 0;
    if (c->has_allin) {
        m.ok = true;
        m.idle = (f->hours - busy_h) * c->allin_per_gpu_hour;
        m.per_busy_hour = m.has_busy ? f->hours * c->allin_per_gpu_hour / busy_h : 0;
    } else if (c->has_price && f->has_power) {
        double kwh = g->power_sum * 5.0 / 60.0 / 1000.0 * c->pue;
        double idle_kwh = (g->power_sum - g->busy_power_sum) * 5.0 / 60.0 / 1000.0 * c->pue;
        m.ok = true;
        m.idle = idle_kwh * c->price;
        m.per_busy_hour = m.has_busy ? kwh * c->price / busy_h : 0;
    } else {
        m.has_busy = false;
    }
    return m;
}

/* The per-GPU families, filled as the GPUs are read (gp_capacity_each): node_gpu_count and
 * node_gpu_hourly_cost come first in the scrape but are known only once every GPU is in. */
typedef struct gpu_families {
    gp_metric_family *count, *hourly, *busy, *idle;
} gpu_families;

static void gpu_families_add(gp_metric_set *set, const gp_cap_query *q, gpu_families *fs) {
    fs->count = F("node_gpu_count", GP_METRIC_GAUGE, NULL,
                  "GPUs of the node that reported in the window (OpenCost's name).", L_NODE);
    fs->hourly = q->has_allin
                     ? F("node_gpu_hourly_cost", GP_METRIC_GAUGE, NULL,
                         "All-in cost of one of the node's GPUs for an hour as the fleet "
                         "scenario prices owning it: ownership, energy at its tariff, "
                         "colocation, staff (OpenCost's name; in the scenario's currency).",
                         L_NODE)
                     : NULL;
    fs->busy = F(
        "gpuplan_gpu_busy_ratio", GP_METRIC_GAUGE, "ratio",
        "Share of the GPU's 5-minute buckets in the window at or above the busy threshold.", L_GPU);
    fs->idle = q->has_allin || q->has_price
                   ? F("gpuplan_gpu_idle_cost", GP_METRIC_GAUGE, NULL,
                       "What the GPU's idle hours in the window cost: at the all-in rate with a "
                       "fleet scenario, else the energy they drew at the power price.",
                       L_GPU_CUR)
                   : NULL;
}

static void take_row(const gp_capacity *c, const gp_cap_row *r, void *arg) {
    gpu_families *fs = arg;
    char idx[16];
    snprintf(idx, sizeof idx, "%d", r->g.index);
    gp_metric_add(fs->busy, r->f.busy_share,
                  (const char *[]){r->node, idx, r->uuid, r->model, r->mig});
    money m = money_of(c, &r->g, &r->f);
    if (fs->idle && m.ok)
        gp_metric_add(fs->idle, m.idle,
                      (const char *[]){r->node, idx, r->uuid, r->model, r->mig, c->currency});
}

/* The node and fleet families, once every GPU is in. */
static void capacity_families(gp_metric_set *set, const gp_capacity *c, const gpu_families *fs) {
    for (size_t i = 0; i < c->nn; i++)
        gp_metric_add(fs->count, (double)c->nodes[i].gpus, (const char *[]){c->nodes[i].key});
    for (size_t i = 0; fs->hourly && i < c->nn; i++)
        gp_metric_add(fs->hourly, c->allin_per_gpu_hour, (const char *[]){c->nodes[i].key});
    gp_metric_family *nbusy =
        F("gpuplan_node_busy_ratio", GP_METRIC_GAUGE, "ratio",
          "Share of the node's GPU-buckets in the window that were busy.", L_NODE);
    for (size_t i = 0; i < c->nn; i++)
        gp_metric_add(nbusy, c->nodes[i].f.busy_share, (const char *[]){c->nodes[i].key});
    bool priced = c->has_allin || c->has_price;
    if (priced) {
        gp_metric_family *nidle =
            F("gpuplan_node_idle_cost", GP_METRIC_GAUGE, NULL,
              "What the node's idle GPU-hours in the window cost.", L_NODE_CUR);
        gp_metric_family *nper =
            F("gpuplan_node_busy_gpu_hour_cost", GP_METRIC_GAUGE, NULL,
              "Cost of one busy GPU-hour on the node over the window: what its GPUs cost, busy "
              "or idle, over the hours they were busy.",
              L_NODE_CUR);
        for (size_t i = 0; i < c->nn; i++) {
            const gp_cap_group *n = &c->nodes[i];
            money m = money_of(c, &n->sum, &n->f);
            if (m.ok)
                gp_metric_add(nidle, m.idle, (const char *[]){n->key, c->currency});
            if (m.has_busy)
                gp_metric_add(nper, m.per_busy_hour, (const char *[]){n->key, c->currency});
        }
    }
    gp_metric_add(F("gpuplan_fleet_busy_ratio", GP_METRIC_GAUGE, "ratio",
                    "Share of the fleet's GPU-buckets in the window that were busy.", NULL),
                  c->n ? c->fleet_f.busy_share : 0, NULL);
    if (priced && c->n) {
        money m = money_of(c, &c->fleet, &c->fleet_f);
        if (m.ok)
            gp_metric_add(F("gpuplan_fleet_idle_cost", GP_METRIC_GAUGE, NULL,
                            "What the fleet's idle GPU-hours in the window cost.", L_CUR),
                          m.idle, (const char *[]){c->currency});
        if (m.has_busy)
            gp_metric_add(F("gpuplan_fleet_busy_gpu_hour_cost", GP_METRIC_GAUGE, NULL,
                            "Cost of one busy GPU-hour over the fleet and the window.", L_CUR),
                          m.per_busy_hour, (const char *[]){c->currency});
    }
}

/* The most GPU-time first; ties by value, so the values served past a bound are the same on
 * every refresh (samples without the label last). */
static int by_use_desc(const void *a, const void *b) {
    const gp_cap_usage *x = a, *y = b;
    if (x->util_sum != y->util_sum)
        return x->util_sum < y->util_sum ? 1 : -1;
    if (!x->value || !y->value)
        return !x->value - !y->value;
    return strcmp(x->value, y->value);
}

/* Chargeback by the --by label: each value's GPU-hours used (and their all-in cost), the
 * largest max_values of them, the rest as "(other)", samples without the label "(none)",
 * and what no value used "(idle)". */
static void chargeback_families(gp_metric_set *set, gp_capacity *c, int max_values) {
    if (!c->by)
        return;
    qsort(c->usage, c->nu, sizeof *c->usage, by_use_desc);
    gp_metric_family *hours = F("gpuplan_chargeback_used_gpu_seconds", GP_METRIC_GAUGE, "seconds",
                                "GPU-time used in the window by each value of the chargeback "
                                "label (utilization-weighted).",
                                L_CHARGE_H);
    gp_metric_family *cost = c->has_allin
                                 ? F("gpuplan_chargeback_cost", GP_METRIC_GAUGE, NULL,
                                     "All-in cost in the window of the GPU-time each value of the "
                                     "chargeback label used; \"(idle)\" is what none used.",
                                     L_CHARGE)
                                 : NULL;
    double other_s = 0, other_cost = 0;
    bool other = false;
    int served = 0;
    for (size_t i = 0; i < c->nu; i++) {
        const gp_cap_usage *u = &c->usage[i];
        double secs = u->util_sum / 100.0 * 300.0;
        if (u->value && served >= max_values) {
            other = true;
            other_s += secs;
            other_cost += u->allin;
            continue;
        }
        const char *v = u->value ? u->value : "(none)";
        served += u->value != NULL;
        gp_metric_add(hours, secs, (const char *[]){c->by, v});
        if (cost)
            gp_metric_add(cost, u->allin, (const char *[]){c->by, v, c->currency});
    }
    if (other) {
        gp_metric_add(hours, other_s, (const char *[]){c->by, "(other)"});
        if (cost)
            gp_metric_add(cost, other_cost, (const char *[]){c->by, "(other)", c->currency});
    }
    if (cost)
        gp_metric_add(cost, c->allin_idle, (const char *[]){c->by, "(idle)", c->currency});
}

/* ---- nodes, catalog, scenarios ------------------------------------------------------------ */

static int take_node(const gp_node_info *n, void *arg) {
    if (n->has_success)
        gp_metric_add(arg, (double)n->last_success_ms / 1000.0, (const char *[]){n->name});
    return 0;
}

/* Seconds since UTC midnight of day (YYYY-MM-DD) at now_ms; NAN for a bad date. */
static double age_of(const char *day, int64_t now_ms) {
    struct tm tm = {0};
    if (sscanf(day, "%4d-%2d-%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)now_ms / 1000.0 - (double)timegm(&tm);
}

typedef struct providers {
    gp_metric_family *age;
    int64_t now;
    int n;
} providers;

static int take_newest(const char *provider, const char *newest, void *arg) {
    providers *v = arg;
    if (v->n++ == 64)
        return 1; /* bounded: the bundled catalog has a dozen */
    if (newest && newest[0])
        gp_metric_add(v->age, age_of(newest, v->now), (const char *[]){provider});
    return 0;
}

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int take_name(const gp_scenario_info *info, void *arg) {
    names *l = arg;
    if (l->n >= GP_BATCH_MAX_SCENARIOS)
        return 1;
    l->v = gp_xgrow(l->v, &l->cap, l->n, sizeof *l->v, 16);
    l->v[l->n++] = gp_xstrdup(info->name);
    return 0;
}

/* One saved scenario evaluated into the summary; false when it does not load or evaluate. */
static bool summarise(gp_session *s, const char *name, gp_batch_summary *sum) {
    batch_item it;
    memset(&it, 0, sizeof it);
    gp_err err;
    gp_err_clear(&err);
    bool ok = false;
    if (batch_load(s, name, s->today, &it, &err) == GP_OK) {
        it.r = gp_xmalloc(sizeof *it.r);
        snprintf(it.stem, sizeof it.stem, "exporter");
        gp_batch_scenario *bs;
        if (gp_evaluate(&it.sc, it.r, &err) == GP_OK && (bs = gp_batch_summary_add(sum))) {
            batch_summarise(&it, bs);
            ok = true;
        }
    }
    batch_item_done(&it);
    return ok;
}

static gp_status scenario_families(gp_metric_set *set, gp_session *s, gp_store *st, int64_t now,
                                   gp_err *err) {
    names l = {0};
    if (gp_store_scenario_list(st, take_name, &l, err)) {
        for (size_t i = 0; i < l.n; i++)
            free(l.v[i]);
        free(l.v);
        return err->code;
    }
    gp_metric_family *up = F("gpuplan_scenario_up", GP_METRIC_GAUGE, NULL,
                             "1 when the saved scenario loads and evaluates against today's "
                             "catalog, else 0 (its other families are then absent).",
                             L_SCEN);
    gp_batch_summary sum = {0};
    for (size_t i = 0; i < l.n; i++) {
        bool ok = summarise(s, l.v[i], &sum);
        gp_metric_add(up, ok, (const char *[]){l.v[i]});
        free(l.v[i]);
    }
    free(l.v);
    gp_metric_family *cheap = F("gpuplan_scenario_cheapest", GP_METRIC_INFO, NULL,
                                "The saved scenario's cheapest choice over its horizon "
                                "(self_hosted or a cloud option).",
                                L_SCEN_OPT);
    gp_metric_family *hz = F("gpuplan_scenario_horizon_months", GP_METRIC_GAUGE, NULL,
                             "Months the saved scenario plans over.", L_SCEN);
    gp_metric_family *total =
        F("gpuplan_scenario_option_horizon_cost", GP_METRIC_GAUGE, NULL,
          "Total cost of each choice over the scenario's horizon.", L_SCEN_OPT_CUR);
    gp_metric_family *be = F("gpuplan_scenario_option_break_even_month", GP_METRIC_GAUGE, NULL,
                             "The month owning becomes cheaper than renting from the option "
                             "(absent when it never does within the horizon).",
                             L_SCEN_OPT);
    gp_metric_family *ev =
        F("gpuplan_scenario_exit_value", GP_METRIC_GAUGE, NULL,
          "The exit value within self_hosted's horizon cost: the book value of servers still "
          "owned, credited at the horizon (not cash); basis resale, straight_line or "
          "residual_pct.",
          L_SCEN_BASIS_CUR);
    gp_metric_family *guar = F("gpuplan_scenario_cheapest_guaranteed", GP_METRIC_INFO, NULL,
                               "When the scenario's cheapest choice rests on spot capacity, "
                               "which the provider can reclaim: the cheapest with guaranteed "
                               "capacity (self_hosted or a cloud option).",
                               L_SCEN_OPT);
    size_t priced = 0; /* a family only when some option is catalog-priced: no empty family */
    for (size_t i = 0; i < sum.n; i++)
        priced += (size_t)sum.s[i].n_prices;
    gp_metric_family *age =
        priced ? F("gpuplan_scenario_price_age_seconds", GP_METRIC_GAUGE, "seconds",
                   "Age of the catalog price each option of the scenario uses "
                   "(since its effective date).",
                   L_SCEN_OPT)
               : NULL;
    for (size_t i = 0; i < sum.n; i++) {
        const gp_batch_scenario *b = &sum.s[i];
        gp_metric_add(cheap, 1, (const char *[]){b->name, b->cheapest});
        gp_metric_add(hz, b->horizon_months, (const char *[]){b->name});
        if (b->exit_basis[0])
            gp_metric_add(ev, b->exit_value, (const char *[]){b->name, b->exit_basis, b->currency});
        if (b->guaranteed[0])
            gp_metric_add(guar, 1, (const char *[]){b->name, b->guaranteed});
        for (int k = 0; k < b->n_choices; k++) {
            const gp_batch_choice *ch = &b->choices[k];
            gp_metric_add(total, ch->total, (const char *[]){b->name, ch->name, b->currency});
            if (ch->has_break_even_month)
                gp_metric_add(be, ch->break_even_month, (const char *[]){b->name, ch->name});
        }
        for (int k = 0; age && k < b->n_prices; k++)
            gp_metric_add(age, age_of(b->prices[k].effective_from, now),
                          (const char *[]){b->name, b->prices[k].option});
    }
    gp_batch_summary_done(&sum);
    return GP_OK;
}

static gp_status catalog_families(gp_metric_set *set, gp_session *s, gp_store *st, int64_t now,
                                  gp_err *err) {
    providers v = {F("gpuplan_catalog_price_age_seconds", GP_METRIC_GAUGE, "seconds",
                     "Age of the provider's newest catalog price in force (since its effective "
                     "date).",
                     L_PROVIDER),
                   now, 0};
    return gp_store_catalog_newest(st, s->today, take_newest, &v, err);
}

/* Every family but the exporter's own, as of now. */
static gp_status compute(gp_exporter *x, int64_t now, gp_metric_set *set, gp_err *err) {
    gp_today(x->s->today); /* a service runs past midnight: prices in force today */
    gp_store *st;
    if (gp_session_catalog(x->s, &st, err))
        return err->code;
    gp_cap_query q;
    gp_cap_query_init(&q);
    q.since_ms = x->o.since_ms;
    q.threshold = x->o.threshold;
    q.by = x->o.by;
    if (x->o.scenario && gp_cap_query_price_from(x->s, x->o.scenario, &q, err))
        return err->code;
    if (!x->o.scenario && x->o.has_price) {
        q.has_price = true;
        q.price = x->o.price;
    }
    gp_metric_add(F("gpuplan_window_seconds", GP_METRIC_GAUGE, "seconds",
                    "The window the utilization and money families cover.", NULL),
                  (double)x->o.since_ms / 1000.0, NULL);
    gpu_families fs;
    gpu_families_add(set, &q, &fs);
    gp_capacity c;
    if (gp_capacity_each(x->s, &q, now, take_row, &fs, &c, err)) {
        gp_capacity_done(&c);
        return err->code;
    }
    capacity_families(set, &c, &fs);
    chargeback_families(set, &c, x->o.max_label_values);
    gp_capacity_done(&c);
    gp_metric_family *last =
        F("gpuplan_node_last_success_timestamp_seconds", GP_METRIC_GAUGE, "seconds",
          "When the node's last successful collection ended.", L_NODE);
    if (gp_store_nodes(st, take_node, last, err))
        return err->code;
    if (catalog_families(set, x->s, st, now, err))
        return err->code;
    return scenario_families(set, x->s, st, now, err);
}

/* The exporter's own families, last: their values change on every call. */
static void own_families(gp_exporter *x, double duration_s) {
    gp_metric_set *set = &x->set;
    gp_metric_add(F("gpuplan_exporter_refreshes", GP_METRIC_COUNTER, NULL,
                    "Times the figures were computed from the store.", NULL),
                  x->refreshes, NULL);
    gp_metric_add(F("gpuplan_exporter_refresh_failures", GP_METRIC_COUNTER, NULL,
                    "Refreshes that failed (the previous figures were served).", NULL),
                  x->failures, NULL);
    gp_metric_add(F("gpuplan_exporter_last_refresh_timestamp_seconds", GP_METRIC_GAUGE, "seconds",
                    "When the figures served were computed.", NULL),
                  (double)x->refreshed_ms / 1000.0, NULL);
    gp_metric_add(F("gpuplan_exporter_refresh_duration_seconds", GP_METRIC_GAUGE, "seconds",
                    "How long computing the figures served took.", NULL),
                  duration_s, NULL);
}

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static gp_status refresh(gp_exporter *x, int64_t now, gp_err *err) {
    double t0 = mono_s();
    gp_metric_set fresh = {0};
    db_stamp before;
    bool known = x->s->path[0] != '\0'; /* the path is known once the store is open */
    stamp_of(x->s->path, &before);      /* before reading: a commit during it refreshes again */
    gp_status rc = compute(x, now, &fresh, err);
    if (rc) {
        gp_metric_set_done(&fresh);
        x->failures++;
        x->generation++;
        gp_metric_family *f = gp_metric_family_find(&x->set, "gpuplan_exporter_refresh_failures");
        if (f && f->n)
            f->s[0].v = x->failures;
        return rc;
    }
    if (!known)
        stamp_of(x->s->path, &before);
    gp_metric_set_done(&x->set);
    x->set = fresh;
    x->have = true;
    x->stamp = before;
    x->refreshed_ms = now;
    x->refreshes++;
    x->generation++;
    own_families(x, mono_s() - t0);
    return GP_OK;
}

gp_status gp_exporter_open(gp_session *s, const gp_exporter_opts *o, int64_t now_ms,
                           gp_exporter **out, gp_err *err) {
    *out = NULL;
    if (o->threshold < 5 || o->threshold > 100 || o->threshold % 5 || o->since_ms < 300000 ||
        o->max_label_values < 1 || o->max_label_values > GP_EXPORTER_MAX_LABEL_VALUES ||
        o->max_age_ms < 1000)
        return gp_errorf(err, GP_E_INPUT, NULL, "exporter options out of range");
    gp_exporter *x = gp_xcalloc(1, sizeof *x);
    x->s = s;
    x->o = *o;
    if (refresh(x, now_ms, err)) {
        gp_exporter_close(x);
        return err->code;
    }
    *out = x;
    return GP_OK;
}

gp_status gp_exporter_metrics(gp_exporter *x, int64_t now_ms, const gp_metric_set **out,
                              gp_err *err) {
    db_stamp now_stamp;
    stamp_of(x->s->path, &now_stamp);
    gp_status rc = GP_OK;
    if (!x->have || memcmp(&now_stamp, &x->stamp, sizeof now_stamp) != 0 ||
        now_ms - x->refreshed_ms >= x->o.max_age_ms || now_ms < x->refreshed_ms)
        rc = refresh(x, now_ms, err);
    *out = x->have ? &x->set : NULL;
    return rc;
}

unsigned long long gp_exporter_generation(const gp_exporter *x) {
    return x->generation;
}

void gp_exporter_close(gp_exporter *x) {
    if (!x)
        return;
    gp_metric_set_done(&x->set);
    free(x);
}
