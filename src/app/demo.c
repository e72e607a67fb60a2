/* The demo database (app_demo.h): fixed daily profiles, a seeded generator. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/app_demo.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/clock.h"
#include "gpuplan/collect.h"
#include "gpuplan/embedded.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store_seal.h"
#include "gpuplan/store_telemetry.h"
#include "gpuplan/xmem.h"

#define STEP_MS 300000LL
#define DAYS 30

typedef struct demo_node {
    const char *name, *model;
    int profile; /* 0: training around the clock, 1: inference following the day, 2: dev */
} demo_node;

static const demo_node nodes[] = {{"demo-train-01", "NVIDIA H100 80GB HBM3", 0},
                                  {"demo-infer-01", "NVIDIA A100-SXM4-80GB", 1},
                                  {"demo-dev-01", "NVIDIA A100-SXM4-80GB", 2}};

static uint64_t rng_next(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static double rng_unit(uint64_t *x) {
    return (double)(rng_next(x) >> 11) / 9007199254740992.0;
}

/* Utilization (%) of GPU g of a profile at a time. */
static double util_at(int profile, int g, int64_t ts, uint64_t *rng) {
    double hour = (double)(ts / 1000 % 86400) / 3600;
    double noise = rng_unit(rng) * 10 - 5;
    double u;
    switch (profile) {
    case 0: /* a training job on six GPUs, two left for experiments in working hours */
        u = g < 6 ? 95 + noise / 2 : (hour >= 9 && hour < 18 ? 60 + noise * 3 : 0);
        break;
    case 1: /* inference: a daily wave peaking mid-afternoon */
        u = 45 + 40 * sin((hour - 9) / 24 * 2 * M_PI) + noise - g * 3;
        break;
    default: /* development: bursts in working hours, idle at night; GPU 7 never used */
        u = g == 7 ? 0 : (hour >= 10 && hour < 17 && rng_unit(rng) < 0.5 ? 70 + noise * 4 : 0);
        break;
    }
    return u < 0 ? 0 : u > 100 ? 100 : u;
}

/* The workload labels dcgm-exporter attaches to GPU g of node k (its pod's namespace, pod and
 * container), so the demo can show chargeback (`capacity --by namespace`); -1 for an unused
 * GPU. */
static int demo_labels(int k, int g, gp_samples *s) {
    char json[200];
    if (k == 0 && g < 6)
        snprintf(json, sizeof json,
                 "{\"namespace\":\"llm-train\",\"pod\":\"pretrain-0\",\"container\":\"trainer\"}");
    else if (k == 0)
        snprintf(json, sizeof json,
                 "{\"namespace\":\"research\",\"pod\":\"ablation-%d\",\"container\":\"trainer\"}",
                 g - 5);
    else if (k == 1)
        snprintf(json, sizeof json,
                 "{\"namespace\":\"inference\",\"pod\":\"serve-%d\",\"container\":\"vllm\"}", g);
    else if (g < 7)
        snprintf(json, sizeof json,
                 "{\"namespace\":\"%s\",\"pod\":\"notebook-%d\",\"container\":\"jupyter\"}",
                 g < 4 ? "research" : "dev", g);
    else
        return -1;
    return gp_samples_labels(s, json);
}

/* Samples of every GPU of node k for [from, to) into s. */
static gp_status node_samples(int k, int64_t from, int64_t to, int64_t recent, gp_samples *s,
                              gp_err *err) {
    const demo_node *n = &nodes[k];
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(k + 1) ^ (uint64_t)from;
    int idx[8], lab[8];
    for (int g = 0; g < 8; g++) {
        char uuid[64];
        snprintf(uuid, sizeof uuid, "GPU-de300000-0000-4000-8000-%02d00000000%02d", k, g);
        idx[g] = gp_samples_gpu(s, uuid, g, "", n->model, n->name);
        lab[g] = demo_labels(k, g, s);
    }
    bool h100 = k == 0;
    double idle_w = h100 ? 70 : 55, busy_w = h100 ? 690 : 390, mem = h100 ? 81559 : 81920;
    for (int64_t ts = from; ts < to; ts += STEP_MS)
        for (int g = 0; g < 8; g++) {
            double u = util_at(n->profile, g, ts, &rng);
            double w = idle_w + (busy_w - idle_w) * u / 100;
            /* One GPU of the inference node runs hot (at least 86 C whatever the hour: a fan
             * fault, not load): an alert to see at any time of day. */
            double temp = k == 1 && g == 3 ? 86 + u * 0.1 : 32 + u * 0.45;
            double used = u > 0 ? mem * (0.35 + u / 200) : 4;
            if (gp_samples_add(s, idx[g], GP_M_GPU_UTIL, u, ts, lab[g], err) ||
                gp_samples_add(s, idx[g], GP_M_POWER_W, w, ts, lab[g], err))
                return err->code;
            /* The rest only for the last two days: the month needs utilization and power,
             * and the file stays small. */
            if (ts < recent)
                continue;
            if (gp_samples_add(s, idx[g], GP_M_TEMP_C, temp, ts, lab[g], err) ||
                gp_samples_add(s, idx[g], GP_M_MEM_USED_MIB, used, ts, lab[g], err) ||
                gp_samples_add(s, idx[g], GP_M_MEM_TOTAL_MIB, mem, ts, lab[g], err) ||
                gp_samples_add(s, idx[g], GP_M_POWER_LIMIT_W, h100 ? 700 : 400, ts, lab[g], err))
                return err->code;
        }
    return GP_OK;
}

typedef struct newest {
    int64_t ms;
} newest;

static int newest_of(const gp_node_info *n, void *arg) {
    newest *x = arg;
    if (!strncmp(n->name, "demo-", 5) && n->has_success && n->last_success_ms > x->ms)
        x->ms = n->last_success_ms;
    return 0;
}

/* A day of a node's samples, what its transaction writes. */
typedef struct demo_day {
    long long id;
    const gp_samples *s;
    int64_t now, last; /* last: the node's status is as of its day's last millisecond */
} demo_day;

static gp_status write_day(gp_store *st, void *arg, gp_err *err) {
    const demo_day *d = arg;
    size_t written;
    if (gp_store_samples_write(st, d->id, d->s, d->now, &written, err) ||
        gp_store_node_status(st, d->id, d->last, NULL, err))
        return err->code;
    return GP_OK;
}

/* History from where it stopped (or a month back) up to now, a day per transaction. */
static gp_status demo_fleet(gp_store *st, gp_err *err) {
    newest nw = {0};
    if (gp_store_nodes(st, newest_of, &nw, err))
        return err->code;
    int64_t now = gp_now_ms() / STEP_MS * STEP_MS;
    int64_t from = nw.ms ? nw.ms + STEP_MS : now - DAYS * GP_DAY_MS;
    if (from < now - DAYS * GP_DAY_MS)
        from = now - DAYS * GP_DAY_MS;
    if (from > now)
        return GP_OK; /* up to date: the TUI asks every few seconds */
    for (int k = 0; k < (int)(sizeof nodes / sizeof nodes[0]); k++) {
        long long id;
        gp_err e;
        gp_status found = gp_store_node_id(st, nodes[k].name, &id, &e);
        if (found == GP_E_NOTFOUND) {
            if (gp_store_node_add(st, nodes[k].name, NULL, 0, err) ||
                gp_store_node_id(st, nodes[k].name, &id, err))
                return err->code;
        } else if (found != GP_OK) {
            *err = e;
            return err->code;
        }
        for (int64_t a = from; a <= now; a += GP_DAY_MS) {
            int64_t b = a + GP_DAY_MS > now + 1 ? now + 1 : a + GP_DAY_MS;
            gp_samples s;
            gp_samples_init(&s, 64u << 20);
            demo_day d = {id, &s, now, b - 1};
            gp_status rc = node_samples(k, a, b, now - 2 * GP_DAY_MS, &s, err);
            if (!rc)
                rc = gp_store_in_tx(st, write_day, &d, err);
            gp_samples_done(&s);
            if (rc)
                return rc;
        }
    }
    /* Raw samples for two days, as a collector would keep them; rollups for the month. */
    if (gp_store_retention(st, now, 2 * GP_DAY_MS, 400 * GP_DAY_MS, err))
        return err->code;
    return gp_store_seal_days(st, now, NULL, err);
}

gp_status gp_demo_open(gp_session *ses, gp_err *err) {
    static char path[PATH_MAX];
    if (!ses->db_path || !*ses->db_path) {
        char dir[PATH_MAX - 16];
        if (gp_data_dir(dir, sizeof dir, err))
            return err->code;
        snprintf(path, sizeof path, "%s/demo.db", dir);
        ses->db_path = path;
    }
    gp_store *st;
    if (gp_session_catalog(ses, &st, err))
        return err->code;
    for (const gp_embedded *e = gp_demo_scenarios; e->name; e++) {
        gp_scenario *s = gp_xmalloc(sizeof *s);
        cJSON *tree = NULL;
        gp_status rc = gp_scenario_parse((const char *)e->data, e->len, e->name, s, &tree, err);
        char *json = NULL;
        gp_err missing;
        int version;
        if (!rc &&
            gp_store_scenario_get(st, s->name, 0, &json, NULL, NULL, &missing) == GP_E_NOTFOUND)
            rc = gp_store_scenario_save(st, s->name, (const char *)e->data, &version, err);
        free(json);
        cJSON_Delete(tree);
        free(s);
        if (rc)
            return rc;
    }
    return demo_fleet(st, err);
}

gp_status gp_demo_fleet(gp_session *s, gp_err *err) {
    gp_store *st;
    if (gp_session_store(s, &st, err))
        return err->code;
    return demo_fleet(st, err);
}
