/* capacity --prometheus: the figures of `capacity` computed by the fleet's own
 * Prometheus-compatible server (app_capacity.h), for fleets too large to import. Nothing is
 * copied into the database: the server answers a handful of aggregates per GPU, per label value
 * and per 5-minute bucket of the fleet, and model/capacity.c derives the figures from them as it
 * does from the store's rollups.
 *
 * The 5-minute mean of a GPU at bucket b is the mean of its samples in [b - 1 ms, b + 5 min
 * - 1 ms], the bucket `import --prometheus` stores (its points are evaluated at the bucket's end
 * - 1 ms); here `avg_over_time(X[5m] offset 1ms)` evaluated at b + 5 min. Utilization is counted
 * into the 5 % bins of db/004_capacity.sql on the server (count_values of the bin, then
 * sum_over_time), so the busy share at any threshold and the percentiles (read from the bins as for
 * stored data) equal those computed after an import. The queries are listed in docs/telemetry.md.
 * Where the server holds the series of gpuplan's recording rules (rec_rules below, shipped as
 * contrib/prometheus/gpuplan-capacity.rules.yml) for the window, the same figures are read from
 * them: sums and counts of points recorded every 5 minutes instead of subqueries over raw ones.
 * A GPU's hourly means of power and peaks of memory come back as points (a range query), and
 * their P95s and 10 W bins are taken here; so every other figure is a sum, count or maximum and
 * the window can be asked for in time slices (--slice) as well as host groups, each answer
 * folded in as it is parsed.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity_int.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/collect_history.h"
#include "gpuplan/prom_range.h"
#include "gpuplan/url.h"
#include "gpuplan/xmem.h"

#define BUCKET_MS 300000LL
/* Points per series of one range query: under Prometheus' 11,000. */
#define RANGE_POINTS 10000
/* Points of one answer (about 100 bytes each in memory): each is folded in and dropped. */
#define MAX_ITEMS (1u << 24)
/* The time slice when none is asked for: a month of a host group's points in an answer. */
#define AUTO_SLICE_MS (31LL * GP_DAY_MS)

/* The expressions every query is built of, for one selector. */
typedef struct exprs {
    gp_buf u;       /* a GPU's (or MIG instance's) 5-minute mean utilization, % */
    gp_buf phys;    /* a physical GPU's: its own, or its MIG instances' rolled up */
    gp_buf p;       /* its 5-minute mean power, W, where the physical GPU has utilization */
    gp_buf uw;      /* for --by: utilization, a MIG instance's at its share of the GPU */
    gp_buf cw;      /* for --by: GPU-buckets, a MIG instance's at its share */
    gp_buf pw;      /* for --by: power of whole GPUs (a MIG GPU's is no instance's) */
    const char *on; /* how power meets the physical GPU's utilization */
} exprs;

/* The MIG profiles the server holds: each (profile, model) pair's share of its GPU. */
typedef struct mig_pair {
    const char *profile, *model; /* borrowed from the label lists */
    double w;                    /* gp_mig_weight */
} mig_pair;

typedef struct mig_set {
    mig_pair *p;
    size_t n;
} mig_set;

/* The MIG terms of a query: (profile, model) pairs, and the length of either label. */
#define GP_MIG_PAIRS_MAX 64
#define GP_MIG_LABEL_MAX 128

/* A label value as a PromQL string's content (quotes and backslashes escaped). */
static void quoted(gp_buf *out, const char *v) {
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            gp_buf_add(out, "\\", 1);
        gp_buf_add(out, v, 1);
    }
}

/* MIG instances' utilization (where their GPU reports no GPU_UTIL) weighted by their share of
 * the GPU, as gp_mig_weight weighs them: a term per (profile, model) the server holds. count:
 * the share alone a bucket instead of the utilization. Empty without MIG. */
static void mig_weighted(const char *sel, const mig_set *m, bool count, gp_buf *out) {
    if (!m->n)
        return;
    size_t inner = strlen(sel) > 2 ? strlen(sel) - 2 : 0; /* sel is "{...}" */
    gp_buf_add(out, "((", 2);
    for (size_t i = 0; i < m->n; i++) {
        gp_buf_printf(out, "%s%savg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{%.*s%sGPU_I_PROFILE=\"",
                      i ? " or " : "", count ? "0 * " : "", (int)inner, sel + 1, inner ? "," : "");
        quoted(out, m->p[i].profile);
        if (m->p[i].model) {
            gp_buf_printf(out, "\",modelName=\"");
            quoted(out, m->p[i].model);
        }
        gp_buf_printf(out, "\"}[5m] offset 1ms) %s %.17g", count ? "+" : "*",
                      count ? m->p[i].w : 100 * m->p[i].w);
    }
    gp_buf_printf(
        out, ") unless on(UUID, gpu) count_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms))", sel);
}

/* Each expression repeats sel and the MIG terms a few times: its limit is sized from them, so
 * no part is ever cut off (the pairs and their label values are bounded in mig_profiles). */
static void exprs_of(const char *sel, const mig_set *m, exprs *e) {
    size_t lim = 8 * (m->n + 8) * (strlen(sel) + 1024);
    gp_buf_init(&e->u, lim);
    gp_buf_init(&e->phys, lim);
    gp_buf_init(&e->p, lim);
    gp_buf_init(&e->uw, lim);
    gp_buf_init(&e->cw, lim);
    gp_buf mig;
    gp_buf_init(&mig, lim);
    mig_weighted(sel, m, false, &mig);
    const char *w = mig.data ? mig.data : "";
    /* The physical GPU of MIG instances: their weighted utilization summed (an unused slice
     * idles). */
    gp_buf_printf(&e->phys, "(avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms)", sel);
    if (*w)
        gp_buf_printf(&e->phys, " or sum by (Hostname, UUID, gpu, modelName) %s", w);
    gp_buf_add(&e->phys, ")", 1);
    gp_buf_printf(&e->u,
                  "(avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms) or (100 * "
                  "avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE%s[5m] offset 1ms) unless on(UUID, "
                  "gpu) count_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms))",
                  sel, sel, sel);
    if (*w)
        gp_buf_printf(&e->u, " or %s", e->phys.data ? e->phys.data : "");
    gp_buf_add(&e->u, ")", 1);
    /* Power belongs to the physical GPU (under MIG, its repeats on each instance are one). */
    e->on = *w ? "on(Hostname, UUID, gpu) " : "";
    gp_buf_init(&e->pw, lim);
    if (*w) {
        /* Under MIG, dcgm-exporter repeats the GPU's power on each instance with the
         * instance's labels: one series a GPU, their mean. */
        size_t inner = strlen(sel) > 2 ? strlen(sel) - 2 : 0;
        gp_buf_printf(&e->p,
                      "((avg by (Hostname, UUID, gpu, modelName) (avg_over_time("
                      "DCGM_FI_DEV_POWER_USAGE{%.*s%sGPU_I_ID!=\"\"}[5m] offset 1ms)) or "
                      "avg_over_time(DCGM_FI_DEV_POWER_USAGE{%.*s%sGPU_I_ID=\"\"}[5m] offset 1ms)) "
                      "and on(Hostname, UUID, gpu) %s)",
                      (int)inner, sel + 1, inner ? "," : "", (int)inner, sel + 1, inner ? "," : "",
                      e->phys.data ? e->phys.data : "");
        gp_buf_printf(&e->pw,
                      "(avg_over_time(DCGM_FI_DEV_POWER_USAGE%s[5m] offset 1ms) and "
                      "avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms))",
                      sel, sel);
    } else
        gp_buf_printf(&e->p, "(avg_over_time(DCGM_FI_DEV_POWER_USAGE%s[5m] offset 1ms) and %s)",
                      sel, e->u.data ? e->u.data : "");
    if (!*w)
        gp_buf_printf(&e->pw, "%s", e->p.data ? e->p.data : "");
    gp_buf_printf(&e->uw, "(avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms)%s%s)", sel,
                  *w ? " or " : "", w);
    mig.len = 0;
    mig_weighted(sel, m, true, &mig);
    gp_buf_printf(&e->cw, "(0 * avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[5m] offset 1ms) + 1%s%s)", sel,
                  mig.len ? " or " : "", mig.data && mig.len ? mig.data : "");
    gp_buf_done(&mig);
}

static void exprs_done(exprs *e) {
    gp_buf_done(&e->u);
    gp_buf_done(&e->phys);
    gp_buf_done(&e->p);
    gp_buf_done(&e->uw);
    gp_buf_done(&e->cw);
    gp_buf_done(&e->pw);
}

/* The expression in x as one tagged term of q, " or label_replace(X, "gpuplan_agg", "tag", "",
 * "")"; x is emptied for the next. */
static void term(gp_buf *q, const char *tag, gp_buf *x) {
    gp_buf_printf(q, "%slabel_replace(%s, \"%s\", \"%s\", \"\", \"\")", q->len ? " or " : "",
                  x->data ? x->data : "", GP_RANGE_AGG_LABEL, tag);
    x->len = 0;
}

/* The window: the store's hours [start, at) and its fleet buckets from bstart on. */
typedef struct window {
    int64_t start, at; /* whole hours */
    long long w_ms;
    int64_t bstart; /* the fleet's buckets start here, a whole 5 minutes (as the store's do) */
} window;

/* One time slice of the window, [s0, s1) in whole hours: its instant queries are evaluated at
 * s1, where a range (or subquery range) of s1 - s0 - 1 ms holds the points of (s0, s1], so the
 * buckets and hours of [s0, s1); its range queries ask for the hours and fleet buckets ending
 * in (s0, s1] (the first slice's buckets from the window's bstart). Sums, counts and maxima
 * add up over slices; the hourly P95s are taken from the hourly points themselves. */
typedef struct slice {
    int64_t s0, s1, b0;
    long long r; /* s1 - s0 - 1 */
} slice;

/* The calls of a batch: each with the tag its untagged points take ("" to keep theirs), the
 * texts they send owned here (a range's spans share one). */
typedef struct callset {
    gp_prom_call *c;
    const char **tag;
    size_t n, cap;
    gp_buf **text;
    size_t nt, ct;
} callset;

/* A new empty text of the batch. */
static gp_buf *cs_text(callset *s) {
    s->text = gp_xgrow(s->text, &s->ct, s->nt, sizeof *s->text, 16);
    gp_buf *t = s->text[s->nt++] = gp_xmalloc(sizeof *t);
    gp_buf_init(t, 1u << 24);
    return t;
}

static gp_prom_call *cs_add(callset *s, const gp_buf *t, const char *tag) {
    s->c = gp_xgrow(s->c, &s->cap, s->n, sizeof *s->c, 16);
    s->tag = gp_xrealloc(s->tag, s->cap * sizeof *s->tag);
    s->tag[s->n] = tag;
    gp_prom_call *c = &s->c[s->n++];
    *c = (gp_prom_call){.query = t->data ? t->data : ""};
    return c;
}

/* Text t (not empty) as an instant query at at. */
static void cs_instant(callset *s, const gp_buf *t, int64_t at) {
    if (t->len)
        cs_add(s, t, "")->time_ms = at;
}

/* Text t as range queries of the points first, first + step, ..., last: spans of at most
 * RANGE_POINTS (under Prometheus' 11,000 a series). Untagged points take tag. */
static void cs_range(callset *s, const gp_buf *t, int64_t first, int64_t last, int64_t step,
                     const char *tag) {
    for (int64_t a = first; a <= last; a += RANGE_POINTS * step) {
        int64_t b = a + (RANGE_POINTS - 1) * step;
        gp_prom_call *c = cs_add(s, t, tag);
        c->range = true;
        c->time_ms = a;
        c->end_ms = b < last ? b : last;
        c->step_ms = step;
    }
}

static void cs_done(callset *s) {
    for (size_t i = 0; i < s->nt; i++) {
        gp_buf_done(s->text[i]);
        free(s->text[i]);
    }
    free(s->text);
    free(s->c);
    free(s->tag);
    memset(s, 0, sizeof *s);
}

/* The hourly range queries of a slice: each GPU's hourly mean power ("ph", from which its P95 W
 * and 10 W bins are taken here, pooled as the store pools them) and hourly peak memory used
 * ("mh", for its P95), at the hours ending in (s0, s1]. */
static void hourly_calls(callset *s, const slice *sl, const char *power, const char *mem) {
    gp_buf *t = cs_text(s);
    gp_buf_printf(t, "%s", power);
    cs_range(s, t, sl->s0 + GP_HOUR_MS, sl->s1, GP_HOUR_MS, "ph");
    t = cs_text(s);
    gp_buf_printf(t, "%s", mem);
    cs_range(s, t, sl->s0 + GP_HOUR_MS, sl->s1, GP_HOUR_MS, "mh");
}

/* The per-GPU queries of one host group and slice: utilization sums and bins, power, memory. */
static void gpu_queries(const exprs *e, const char *sel, const slice *sl, callset *s, gp_buf *x) {
    const char *u = e->u.data, *p = e->p.data;
    long long r = sl->r;
    gp_buf *q0 = cs_text(s), *q1 = cs_text(s);
    gp_buf_printf(x, "sum_over_time(%s[%lldms:5m])", u, r);
    term(q0, "sum", x);
    /* The whole histogram in one evaluation of the means: count_values gives each GPU one
     * series per bin (its labels kept) worth 1 at each bucket it falls in, and
     * sum_over_time counts them; the tag becomes "h" and the bin. */
    gp_buf_printf(q0,
                  " or label_replace(sum_over_time((count_values without () (\"gpuplan_bin\", "
                  "clamp(floor(%s / 5), 0, %d)))[%lldms:5m]), \"%s\", \"h$1\", \"gpuplan_bin\", "
                  "\"(.*)\")",
                  u, GP_UTIL_BINS - 1, r, GP_RANGE_AGG_LABEL);
    gp_buf_printf(x, "count_over_time(%s[%lldms:5m])", p, r);
    term(q1, "pn", x);
    gp_buf_printf(x, "sum_over_time(%s[%lldms:5m])", p, r);
    term(q1, "ps", x);
    /* Busy for the power split at 5 %, as the store splits it (db/004_capacity.sql). */
    const char *ph = e->phys.data;
    gp_buf_printf(x, "count_over_time((%s and %s%s >= 5)[%lldms:5m])", p, e->on, ph, r);
    term(q1, "bn", x);
    gp_buf_printf(x, "sum_over_time((%s and %s%s >= 5)[%lldms:5m])", p, e->on, ph, r);
    term(q1, "bs", x);
    gp_buf_printf(x,
                  "max_over_time((max_over_time(DCGM_FI_DEV_FB_USED%s[5m] offset 1ms) + "
                  "max_over_time(DCGM_FI_DEV_FB_FREE%s[5m] offset 1ms))[%lldms:5m])",
                  sel, sel, r);
    term(q1, "mt", x);
    cs_instant(s, q0, sl->s1);
    cs_instant(s, q1, sl->s1);
    gp_buf_printf(x, "avg_over_time(%s[3599999ms:5m])", p);
    gp_buf *mem = cs_text(s);
    gp_buf_printf(mem, "max_over_time(DCGM_FI_DEV_FB_USED%s[1h] offset 1ms)", sel);
    hourly_calls(s, sl, x->data ? x->data : "", mem->data ? mem->data : "");
    x->len = 0;
}

/* The fleet's buckets (a range query: GPUs reporting, utilization summed, busy at the
 * threshold) and, with by, the use of each label value. */
static void fleet_queries(const exprs *e, const slice *sl, int threshold, const char *by,
                          callset *s, gp_buf *x) {
    /* Physical GPUs: a MIG instance is in its GPU's rolled-up utilization. */
    const char *u = e->phys.data;
    gp_buf *ldc = cs_text(s);
    gp_buf_printf(x, "count(%s)", u);
    term(ldc, "g", x);
    gp_buf_printf(x, "sum(%s)", u);
    term(ldc, "u", x);
    gp_buf_printf(x, "count(%s >= %d)", u, threshold);
    term(ldc, "b", x);
    cs_range(s, ldc, sl->b0 + BUCKET_MS, sl->s1, BUCKET_MS, "");
    if (!by)
        return;
    gp_buf *use = cs_text(s);
    long long r = sl->r;
    gp_buf_printf(x, "sum by (%s) (sum_over_time(%s[%lldms:5m]))", by, e->cw.data, r);
    term(use, "ln", x);
    gp_buf_printf(x, "sum by (%s) (sum_over_time(%s[%lldms:5m]))", by, e->uw.data, r);
    term(use, "lu", x);
    gp_buf_printf(x, "sum by (%s) (sum_over_time(%s[%lldms:5m]))", by, e->pw.data, r);
    term(use, "lp", x);
    cs_instant(s, use, sl->s1);
}

/* ---- the recorded series (contrib/prometheus/gpuplan-capacity.rules.yml) --------------------- */

/* The rules file is this table as YAML (gp_capacity_rules_yaml, `capacity --print-rules`), so
 * the series the rules record are the ones the queries below read. Each rule is written on the
 * raw series alone: promtool backfills no rule that reads another rule's output. The 5-minute
 * windows end 1 ms before the evaluation, as those of today's queries do, so rules evaluated
 * every 5 minutes from a whole 5 minutes (a backfill) record exactly their means. */
#define U_RAW "avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m] offset 1ms)"
#define E_RAW                                                                                      \
    "100 * avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[5m] offset 1ms) unless on(UUID, gpu) "      \
    "count_over_time(DCGM_FI_DEV_GPU_UTIL[5m] offset 1ms)"
#define P_RAW "avg_over_time(DCGM_FI_DEV_POWER_USAGE[5m] offset 1ms)"

enum { R_UTIL, R_ENGINE, R_BINS, R_POWER, R_BUSY_POWER, R_FB_USED, R_FB_TOTAL, R_N };

/* The bins rule clamps to the last bin, 100 % in a bin of its own. */
_Static_assert(GP_UTIL_BINS == 21, "gpu:gpuplan_util_bin:count5m clamps to bin 20");

static const struct rec_rule {
    const char *name, *expr, *why;
} rec_rules[R_N] = {
    {"gpu:gpuplan_gpu_util:avg5m", U_RAW, "a GPU's mean GPU_UTIL, %"},
    {"gpu:gpuplan_engine_active:avg5m", E_RAW,
     "a MIG instance's (or GPU's without GPU_UTIL) mean graphics engine activity, %"},
    {"gpu:gpuplan_util_bin:count5m",
     "count_values without () (\"gpuplan_bin\", clamp(floor((" U_RAW " or (" E_RAW
     ")) / 5), 0, 20))",
     "the 5 % bin of its mean utilization, for the percentiles and busy shares"},
    {"gpu:gpuplan_power:avg5m", P_RAW " and (" U_RAW " or (" E_RAW "))",
     "mean power, W, where the GPU reports utilization"},
    {"gpu:gpuplan_busy_power:avg5m", P_RAW " and " U_RAW " >= 5",
     "mean power, W, where the GPU is busy at 5 %"},
    {"gpu:gpuplan_fb_used:max5m", "max_over_time(DCGM_FI_DEV_FB_USED[5m] offset 1ms)",
     "peak framebuffer used, MiB"},
    {"gpu:gpuplan_fb_total:max5m",
     "max_over_time(DCGM_FI_DEV_FB_USED[5m] offset 1ms) + "
     "max_over_time(DCGM_FI_DEV_FB_FREE[5m] offset 1ms)",
     "peak framebuffer used + free, MiB"},
};

gp_status gp_capacity_rules_yaml(gp_buf *out) {
    gp_status st = gp_buf_printf(
        out, "# Recording rules for `gpuplan capacity --prometheus` (docs/telemetry.md, "
             "Recorded series):\n"
             "# per GPU (or MIG instance) and 5 minutes, the aggregates capacity reads "
             "instead of the raw\n"
             "# dcgm-exporter series. Written by `gpuplan capacity --print-rules`; "
             "tests/cli/test_capacity_rules.sh\n"
             "# checks that this file is what the binary reads. Evaluate every 5 minutes; "
             "backfill with\n"
             "# promtool tsdb create-blocks-from rules (or vmalert -replay.*).\n"
             "groups:\n"
             "  - name: gpuplan-capacity\n"
             "    interval: 5m\n"
             "    rules:\n");
    for (int i = 0; i < R_N && !st; i++)
        st = gp_buf_printf(out, "      # %s\n      - record: %s\n        expr: '%s'\n",
                           rec_rules[i].why, rec_rules[i].name, rec_rules[i].expr);
    return st;
}

/* The per-GPU queries of one host group and slice from the recorded series: sums and counts
 * over the slice, no subquery; the hourly points from 12 recorded ones each. */
static void rec_gpu_queries(const char *sel, const slice *sl, callset *s, gp_buf *x) {
    long long r = sl->r;
    const char *a = rec_rules[R_UTIL].name, *e = rec_rules[R_ENGINE].name,
               *p = rec_rules[R_POWER].name, *b = rec_rules[R_BUSY_POWER].name;
    gp_buf *q0 = cs_text(s), *q1 = cs_text(s);
    /* A GPU has GPU_UTIL or engine activity in a bucket, never both: the two sums add up. */
    gp_buf_printf(x, "sum_over_time(%s%s[%lldms])", a, sel, r);
    term(q0, "sum", x);
    gp_buf_printf(x, "sum_over_time(%s%s[%lldms])", e, sel, r);
    term(q0, "sue", x);
    gp_buf_printf(q0,
                  " or label_replace(sum_over_time(%s%s[%lldms]), \"%s\", \"h$1\", "
                  "\"gpuplan_bin\", \"(.*)\")",
                  rec_rules[R_BINS].name, sel, r, GP_RANGE_AGG_LABEL);
    gp_buf_printf(x, "count_over_time(%s%s[%lldms])", p, sel, r);
    term(q1, "pn", x);
    gp_buf_printf(x, "sum_over_time(%s%s[%lldms])", p, sel, r);
    term(q1, "ps", x);
    gp_buf_printf(x, "count_over_time(%s%s[%lldms])", b, sel, r);
    term(q1, "bn", x);
    gp_buf_printf(x, "sum_over_time(%s%s[%lldms])", b, sel, r);
    term(q1, "bs", x);
    gp_buf_printf(x, "max_over_time(%s%s[%lldms])", rec_rules[R_FB_TOTAL].name, sel, r);
    term(q1, "mt", x);
    cs_instant(s, q0, sl->s1);
    cs_instant(s, q1, sl->s1);
    /* An hour's 12 recorded means end at h - 55 min .. h, as the raw subquery's points do. */
    gp_buf_printf(x, "avg_over_time(%s%s[3599999ms])", p, sel);
    gp_buf *mem = cs_text(s);
    gp_buf_printf(mem, "max_over_time(%s%s[3599999ms])", rec_rules[R_FB_USED].name, sel);
    hourly_calls(s, sl, x->data ? x->data : "", mem->data ? mem->data : "");
    x->len = 0;
}

/* The fleet's buckets and the use per label value from the recorded series: a bucket's point is
 * its one recorded mean (a range under 5 minutes holds one evaluation). Three plain aggregates,
 * each its own range query: Prometheus evaluates them several times faster than one
 * count_values or one `or` of tagged terms at each of the steps. */
static void rec_fleet_queries(const char *sel, const slice *sl, int threshold, const char *by,
                              callset *s, gp_buf *x) {
    const char *a = rec_rules[R_UTIL].name;
    static const char *const tags[3] = {"g", "u", "b"};
    for (int i = 0; i < 3; i++) {
        gp_buf *t = cs_text(s);
        gp_buf_printf(t, "%s(last_over_time(%s%s[299999ms])", i == 1 ? "sum" : "count", a, sel);
        if (i == 2)
            gp_buf_printf(t, " >= %d", threshold);
        gp_buf_add(t, ")", 1);
        cs_range(s, t, sl->b0 + BUCKET_MS, sl->s1, BUCKET_MS, tags[i]);
    }
    if (!by)
        return;
    gp_buf *use = cs_text(s);
    long long r = sl->r;
    gp_buf_printf(x, "sum by (%s) (count_over_time(%s%s[%lldms]))", by, a, sel, r);
    term(use, "ln", x);
    gp_buf_printf(x, "sum by (%s) (sum_over_time(%s%s[%lldms]))", by, a, sel, r);
    term(use, "lu", x);
    gp_buf_printf(x, "sum by (%s) (sum_over_time(%s%s[%lldms]))", by, rec_rules[R_POWER].name, sel,
                  r);
    term(use, "lp", x);
    cs_instant(s, use, sl->s1);
}

/* ---- the answers into a gp_capacity --------------------------------------------------------- */

/* A list of hourly points of one GPU. */
typedef struct hours {
    double *v;
    size_t n, cap;
} hours;

typedef struct acc {
    double sum, hist[GP_UTIL_BINS];
    double pn, ps, bn, bs;
    bool has_mt;
    double mt;
    hours ph, mh; /* hourly mean power, hourly peak memory used */
} acc;

/* What the answers add up to while they arrive (each answer folded in and dropped): per GPU
 * (indexed as v.gpus), the fleet's buckets, the use per label value. */
typedef struct fold {
    gp_promvec v;
    acc *a;
    size_t na;
    gp_cap_bucket *all;
    double *util;
    size_t nbk;
    size_t ucap;
} fold;

static long long count_of(double v) {
    return v > 0 ? (long long)llround(v) : 0;
}

static int row_cmp(const void *a, const void *b) {
    const gp_cap_row *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (!c)
        c = (x->g.index > y->g.index) - (x->g.index < y->g.index);
    if (!c)
        c = strcmp(x->mig, y->mig);
    return c ? c : strcmp(x->uuid, y->uuid);
}

static int usage_cmp(const void *a, const void *b) {
    double x = ((const gp_cap_usage *)a)->util_sum, y = ((const gp_cap_usage *)b)->util_sum;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (n > 0; sorted here) as Prometheus' quantile_over_time takes it,
 * operation for operation, so the figure is the one the server would have answered. */
static double prom_quantile(double *v, size_t n, double q) {
    qsort(v, n, sizeof *v, dbl_cmp);
    double rank = q * (double)(n - 1);
    double lo = fmax(0, floor(rank)), up = fmin((double)n - 1, lo + 1);
    double weight = rank - floor(rank);
    return v[(size_t)lo] * (1 - weight) + v[(size_t)up] * weight;
}

/* A GPU's hourly figures: its P95 W and its hours in the store's 10 W bins (so that a node's,
 * a model's and the fleet's P95 W pool their GPUs' hours as the store's do), its memory P95. */
static void hourly_figures(acc *a, gp_cap_gpu *g) {
    for (size_t k = 0; k < a->ph.n; k++) {
        double b = floor(a->ph.v[k] / GP_POWER_BIN_W); /* as clamp(floor(x / 10), 0, N - 1) */
        b = b < 0 ? 0 : b > GP_POWER_BINS - 1 ? GP_POWER_BINS - 1 : b;
        g->power_hist[(int)b]++;
    }
    g->has_power_p95 = a->ph.n > 0;
    g->power_p95_w = a->ph.n ? prom_quantile(a->ph.v, a->ph.n, 0.95) : 0;
    g->has_mem = a->mh.n > 0 && a->has_mt;
    g->mem_used_p95_mib = a->mh.n ? prom_quantile(a->mh.v, a->mh.n, 0.95) : 0;
    g->mem_total_mib = a->mt;
}

/* A row's strings and the GPU's figures from its accumulator. */
static void row_of(const gp_gpu_ref *ref, acc *a, long long id, long long buckets, int threshold,
                   gp_cap_row *r) {
    snprintf(r->host, sizeof r->host, "%s", ref->host);
    snprintf(r->node, sizeof r->node, "%s", ref->host[0] ? ref->host : "?");
    snprintf(r->uuid, sizeof r->uuid, "%s", ref->uuid);
    snprintf(r->model, sizeof r->model, "%s", ref->model);
    snprintf(r->raw_model, sizeof r->raw_model, "%s", ref->raw_model);
    snprintf(r->mig, sizeof r->mig, "%s", ref->mig);
    gp_cap_gpu *g = &r->g;
    g->id = id;
    g->index = ref->index;
    g->buckets = buckets;
    g->util_sum = a->sum;
    for (int k = 0; k < GP_UTIL_BINS; k++)
        g->hist[k] = count_of(a->hist[k]);
    g->power_n = count_of(a->pn);
    g->power_sum = a->ps;
    g->busy_power_n = count_of(a->bn);
    g->busy_power_sum = a->bs;
    hourly_figures(a, g);
    gp_cap_figures_of(g, threshold, &r->f);
}

/* Each GPU with utilization in the window becomes a row. */
static void take_rows(fold *f, gp_capacity *c) {
    size_t ng = f->v.gpus.n_gpus;
    c->rows = gp_xcalloc(ng ? ng : 1, sizeof *c->rows);
    for (size_t i = 0; i < ng && i < f->na; i++) {
        long long buckets = 0;
        for (int k = 0; k < GP_UTIL_BINS; k++)
            buckets += count_of(f->a[i].hist[k]);
        if (buckets > 0)
            row_of(&f->v.gpus.gpus[i], &f->a[i], (long long)i + 1, buckets, c->threshold,
                   &c->rows[c->n++]);
    }
    if (c->n)
        qsort(c->rows, c->n, sizeof *c->rows, row_cmp);
    for (size_t i = 0; i < c->n; i++) {
        gp_cap_row *r = &c->rows[i];
        r->g.node = r->node, r->g.host = r->host, r->g.uuid = r->uuid, r->g.model = r->model;
        r->g.mig = r->mig, r->g.raw_model = r->raw_model;
    }
}

static void hours_add(hours *h, double v) {
    h->v = gp_xgrow(h->v, &h->cap, h->n, sizeof *h->v, 64);
    h->v[h->n++] = v;
}

/* A per-GPU point into its accumulator. */
static void gpu_point(const gp_promvec_item *it, acc *a) {
    const char *t = it->agg;
    if (!strcmp(t, "sum") || !strcmp(t, "sue"))
        a->sum += it->v;
    else if (t[0] == 'h' && isdigit((unsigned char)t[1])) {
        char *end;
        long k = strtol(t + 1, &end, 10);
        if (!*end && k >= 0 && k < GP_UTIL_BINS)
            a->hist[k] += it->v;
    } else if (!strcmp(t, "pn"))
        a->pn += it->v;
    else if (!strcmp(t, "ps"))
        a->ps += it->v;
    else if (!strcmp(t, "bn"))
        a->bn += it->v;
    else if (!strcmp(t, "bs"))
        a->bs += it->v;
    else if (!strcmp(t, "ph"))
        hours_add(&a->ph, it->v);
    else if (!strcmp(t, "mh"))
        hours_add(&a->mh, it->v);
    else if (!strcmp(t, "mt") && (!a->has_mt || it->v > a->mt))
        a->has_mt = true, a->mt = it->v;
}

/* A workload label's use, summed over host groups. */
static void usage_point(const gp_promvec_item *it, gp_capacity *c, size_t *cap) {
    gp_cap_usage *u = NULL;
    for (size_t i = 0; i < c->nu && !u; i++) {
        const char *v = c->usage[i].value;
        if ((!v && !it->by) || (v && it->by && !strcmp(v, it->by)))
            u = &c->usage[i];
    }
    if (!u) {
        c->usage = gp_xgrow(c->usage, cap, c->nu, sizeof *c->usage, 16);
        u = &c->usage[c->nu++];
        *u = (gp_cap_usage){it->by ? gp_xstrdup(it->by) : NULL, 0, 0, 0, 0};
    }
    if (!strcmp(it->agg, "ln"))
        u->buckets += it->v > 0 ? it->v : 0; /* GPU-buckets, a MIG instance's weighted */
    else if (!strcmp(it->agg, "lu"))
        u->util_sum += it->v;
    else
        u->power_sum += it->v;
}

/* A fleet point: the point at p is the bucket [p - 5 min, p), summed over host groups and
 * slices. */
static void bucket_point(const gp_promvec_item *it, const window *w, fold *f) {
    int64_t k = (it->t_ms - w->bstart) / BUCKET_MS - 1;
    if (k < 0 || k >= (int64_t)f->nbk)
        return;
    if (it->agg[0] == 'g')
        f->all[k].gpus += count_of(it->v);
    else if (it->agg[0] == 'u')
        f->util[k] += it->v;
    else
        f->all[k].busy += count_of(it->v);
}

/* The points of one answer (those in f->v) folded in, then dropped; untagged ones take tag. */
static void fold_answer(fold *f, const window *w, const char *tag, gp_capacity *c) {
    gp_promvec *v = &f->v;
    if (v->gpus.n_gpus > f->na) {
        size_t na = v->gpus.n_gpus * 2;
        f->a = gp_xrealloc(f->a, na * sizeof *f->a);
        memset(f->a + f->na, 0, (na - f->na) * sizeof *f->a);
        f->na = na;
    }
    for (size_t i = 0; i < v->n; i++) {
        gp_promvec_item *it = &v->it[i];
        if (!it->agg[0])
            snprintf(it->agg, sizeof it->agg, "%s", tag);
        const char *t = it->agg;
        if (t[0] == 'l' && c->by)
            usage_point(it, c, &f->ucap);
        else if (t[0] && !t[1] && strchr("gub", t[0]))
            bucket_point(it, w, f);
        else if (it->gpu >= 0 && (size_t)it->gpu < f->na)
            gpu_point(it, &f->a[it->gpu]);
        free(it->by);
    }
    v->n = 0;
}

/* The fleet's buckets: those without data are left out, as the store leaves them. */
static void take_buckets(const fold *f, const window *w, gp_capacity *c) {
    c->b = gp_xcalloc(f->nbk ? f->nbk : 1, sizeof *c->b);
    for (size_t k = 0; k < f->nbk; k++) {
        if (f->all[k].gpus <= 0)
            continue;
        gp_cap_bucket *b = &c->b[c->nb++];
        *b = f->all[k];
        b->bucket_ms = w->bstart + (int64_t)k * BUCKET_MS;
        b->util_sum = f->util[k];
    }
}

static void fold_init(fold *f, const window *w) {
    memset(f, 0, sizeof *f);
    gp_promvec_init(&f->v, MAX_ITEMS);
    f->nbk = (size_t)((w->at - w->bstart) / BUCKET_MS);
    f->all = gp_xcalloc(f->nbk ? f->nbk : 1, sizeof *f->all);
    f->util = gp_xcalloc(f->nbk ? f->nbk : 1, sizeof *f->util);
}

static void fold_done(fold *f) {
    for (size_t i = 0; i < f->na; i++) {
        free(f->a[i].ph.v);
        free(f->a[i].mh.v);
    }
    free(f->a);
    free(f->all);
    free(f->util);
    gp_promvec_done(&f->v);
}

static bool label_name_ok(const char *s) {
    if (!*s || isdigit((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static int64_t ceil_hour(int64_t ms) {
    return (ms + GP_HOUR_MS - 1) / GP_HOUR_MS * GP_HOUR_MS;
}

/* The MIG profiles and GPU models of the instances in the window (two label lists, no samples
 * read), each pair weighed as gp_mig_weight weighs it; none without MIG. */
static gp_status mig_profiles(const gp_history_opts *o, const window *w, char ***profiles,
                              size_t *n_prof, char ***models, size_t *n_models, mig_set *m,
                              gp_err *err) {
    gp_history_opts lo = *o;
    lo.since_ms = w->start;
    lo.until_ms = w->at;
    static const char extra[] = "__name__=\"DCGM_FI_PROF_GR_ENGINE_ACTIVE\",GPU_I_PROFILE!=\"\"";
    if (gp_history_label_values(&lo, "GPU_I_PROFILE", extra, profiles, n_prof, err) ||
        (*n_prof && gp_history_label_values(&lo, "modelName", extra, models, n_models, err)))
        return err->code;
    /* A term a pair in every query: a server listing more is refused, not half-weighed. */
    size_t pairs = *n_prof * (*n_models ? *n_models : 1);
    for (size_t i = 0; i < *n_prof + *n_models; i++) {
        const char *v = i < *n_prof ? (*profiles)[i] : (*models)[i - *n_prof];
        if (strlen(v) > GP_MIG_LABEL_MAX)
            return gp_errorf(err, GP_E_INPUT, o->url,
                             "a MIG profile or GPU model label of %zu bytes (at most %d)",
                             strlen(v), GP_MIG_LABEL_MAX);
    }
    if (pairs > GP_MIG_PAIRS_MAX)
        return gp_errorf(err, GP_E_INPUT, o->url,
                         "%zu MIG profiles and %zu GPU models in the window: at most %d pairs are "
                         "weighed; narrow it with --match",
                         *n_prof, *n_models, GP_MIG_PAIRS_MAX);
    m->p = gp_xcalloc(pairs + 1, sizeof *m->p);
    for (size_t i = 0; i < *n_prof; i++)
        for (size_t k = 0; k < (*n_models ? *n_models : 1); k++) {
            /* Series without a modelName: the GPU's slices are 7, as the store takes them. */
            const char *model = *n_models ? (*models)[k] : NULL;
            char mig[160], key[GP_GPU_NAME_BYTES] = "";
            snprintf(mig, sizeof mig, "GI 0 %s", (*profiles)[i]);
            if (model)
                gp_gpu_normalize(model, 0, key, sizeof key);
            m->p[m->n++] = (mig_pair){(*profiles)[i], model, gp_mig_weight(mig, key)};
        }
    return GP_OK;
}

/* Whether the recorded series answer for this window (q->recorded, else detected): they do
 * when, in hours spread through the window, as many GPUs have a recorded mean as have raw
 * GPU_UTIL (a backfill and the live rules covering it), and some do (gp_history_coverage, as the
 * import decides). Without MIG only: the instances' weights are the server's profiles
 * (mig_profiles), not rules'. c->series says which was read and why. */
static gp_status recorded_or_raw(const gp_cap_query *q, const window *w, const mig_set *m,
                                 gp_capacity *c, bool *rec, gp_err *err) {
    *rec = false;
    if (q->recorded == GP_REC_NO) {
        snprintf(c->series, sizeof c->series, "raw series (--recorded no)");
        return GP_OK;
    }
    if (m->n) {
        if (q->recorded == GP_REC_YES)
            return gp_errorf(err, GP_E_INPUT, "--recorded",
                             "the server holds MIG instances: their weighted roll-up is "
                             "computed from the raw series only (--recorded auto)");
        snprintf(c->series, sizeof c->series, "raw series (MIG instances in the window)");
        return GP_OK;
    }
    if (q->recorded == GP_REC_YES) {
        *rec = true;
        snprintf(c->series, sizeof c->series, "recorded series (--recorded yes)");
        return GP_OK;
    }
    gp_rec_coverage cov;
    if (gp_history_coverage(q->remote, rec_rules[R_UTIL].name, w->start + GP_HOUR_MS, w->at, &cov,
                            err))
        return err->code;
    *rec = cov.covered;
    if (*rec)
        snprintf(c->series, sizeof c->series,
                 "recorded series (%s and the rest of "
                 "contrib/prometheus/gpuplan-capacity.rules.yml)",
                 rec_rules[R_UTIL].name);
    else
        snprintf(c->series, sizeof c->series, "raw series (%s)", cov.why);
    return GP_OK;
}

/* The window's time slices: q->slice_ms long (whole hours; 0: AUTO_SLICE_MS), the last one
 * ending at the window's end. */
static size_t slice_count(const gp_cap_query *q, const window *w, int64_t *len) {
    int64_t l = q->slice_ms > 0 ? q->slice_ms : AUTO_SLICE_MS;
    l = (l + GP_HOUR_MS - 1) / GP_HOUR_MS * GP_HOUR_MS;
    *len = l;
    return (size_t)((w->w_ms + l - 1) / l);
}

static slice slice_of(const window *w, int64_t len, size_t i) {
    slice s = {.s0 = w->start + (int64_t)i * len};
    s.s1 = s.s0 + len < w->at ? s.s0 + len : w->at;
    s.b0 = i ? s.s0 : w->bstart;
    s.r = s.s1 - s.s0 - 1;
    return s;
}

/* The calls of one host group (hosts[0..n), all hosts when n is 0) over one slice. */
static void unit_calls(const gp_cap_query *q, const mig_set *m, bool rec, char *const *hosts,
                       size_t n, const slice *sl, callset *cs, gp_buf *x) {
    gp_buf sel;
    gp_buf_init(&sel, 4u << 20);
    gp_history_selector(q->remote->match, n ? hosts : NULL, n, &sel);
    const char *s = sel.data ? sel.data : "{}";
    if (rec) {
        rec_gpu_queries(s, sl, cs, x);
        rec_fleet_queries(s, sl, q->threshold, q->by, cs, x);
    } else {
        exprs e;
        exprs_of(s, m, &e);
        gpu_queries(&e, s, sl, cs, x);
        fleet_queries(&e, sl, q->threshold, q->by, cs, x);
        exprs_done(&e);
    }
    gp_buf_done(&sel);
}

/* The units [u0, u1) (host group u / n_slices, slice u % n_slices), sent together and each
 * answer folded into f as it is parsed. */
static gp_status ask_units(const gp_cap_query *q, const window *w, const mig_set *m, bool rec,
                           char *const *hosts, size_t n_hosts, size_t u0, size_t u1, fold *f,
                           gp_capacity *c, gp_err *err) {
    const gp_history_opts *o = q->remote;
    size_t hpq = (size_t)o->hosts_per_query;
    int64_t len;
    size_t ns = slice_count(q, w, &len);
    callset cs = {0};
    gp_buf x;
    gp_buf_init(&x, 1u << 22);
    for (size_t u = u0; u < u1; u++) {
        size_t first = u / ns * hpq;
        size_t count = n_hosts ? (n_hosts - first < hpq ? n_hosts - first : hpq) : 0;
        slice sl = slice_of(w, len, u % ns);
        unit_calls(q, m, rec, n_hosts ? hosts + first : NULL, count, &sl, &cs, &x);
    }
    gp_buf_done(&x);
    gp_status rc = gp_history_query(o, cs.c, cs.n, err);
    for (size_t i = 0; i < cs.n; i++) {
        gp_prom_call *k = &cs.c[i];
        if (rc == GP_OK)
            rc = gp_promvec_parse(k->body.data ? k->body.data : "", k->body.len, o->url,
                                  k->http_status, q->by, &f->v, err);
        if (rc == GP_OK)
            fold_answer(f, w, cs.tag[i], c);
        gp_buf_done(&k->body);
    }
    cs_done(&cs);
    return rc;
}

/* Every host group and slice, a batch at a time: the answers held at once stay a few per query
 * in flight, however large the fleet and long the window. */
static gp_status ask(const gp_cap_query *q, const window *w, const mig_set *m, bool rec,
                     char *const *hosts, size_t n_hosts, fold *f, gp_capacity *c, gp_err *err) {
    size_t hpq = (size_t)q->remote->hosts_per_query;
    size_t groups = n_hosts ? (n_hosts + hpq - 1) / hpq : 1;
    int64_t len;
    size_t units = groups * slice_count(q, w, &len);
    size_t batch = 4 * (size_t)q->remote->concurrency;
    gp_status rc = GP_OK;
    for (size_t u0 = 0; u0 < units && rc == GP_OK; u0 += batch)
        rc = ask_units(q, w, m, rec, hosts, n_hosts, u0, u0 + batch < units ? u0 + batch : units, f,
                       c, err);
    return rc;
}

/* The query's options checked, the window it answers for and the capacity's header filled. */
static gp_status cap_begin(const gp_cap_query *q, int64_t now, gp_capacity *c, window *w,
                           gp_err *err) {
    const gp_history_opts *o = q->remote;
    gp_err bad;
    if (gp_url_check_source(o->url, &bad)) /* never repeated: the URL may hold a password */
        return gp_errorf(err, GP_E_INPUT, "--prometheus", "%s", bad.msg);
    if (q->has_gpu)
        return gp_errorf(err, GP_E_INPUT, NULL,
                         "--gpu does not apply with --prometheus: select the GPUs with --match "
                         "(for example '{modelName=~\".*H100.*\"}')");
    if (q->by && !label_name_ok(q->by))
        return gp_errorf(err, GP_E_INPUT, q->by, "a label name is letters, digits and _");
    if (o->hosts_per_query < 1 || o->concurrency < 1)
        return gp_errorf(err, GP_E_INPUT, NULL, "hosts per query and concurrency must be >= 1");
    /* The store's window: its hours from now - since on (the hour in progress included), and its
     * fleet buckets from the 5 minutes after now - since on. */
    *w = (window){.start = ceil_hour(now - q->since_ms), .at = ceil_hour(now + 1)};
    w->w_ms = w->at - w->start;
    w->bstart = (now - q->since_ms + BUCKET_MS - 1) / BUCKET_MS * BUCKET_MS;
    c->from_ms = now - q->since_ms;
    c->until_ms = now;
    c->threshold = q->threshold;
    c->has_price = q->has_price;
    c->price = q->price;
    c->pue = q->pue;
    snprintf(c->currency, sizeof c->currency, "%s", q->currency);
    snprintf(c->server, sizeof c->server, "%s", o->url);
    c->window = q->since_ms / BUCKET_MS;
    c->by = q->by;
    return GP_OK;
}

/* The folded answers into c: a row per GPU, the fleet's buckets, the use per label value. */
static void cap_take(const gp_cap_query *q, const window *w, fold *f, gp_capacity *c) {
    take_rows(f, c);
    take_buckets(f, w, c);
    for (size_t i = 0; i < c->n; i++)
        c->gpus += !c->rows[i].mig[0];
    cap_summarise(c);
    if (q->by) {
        if (c->nu)
            qsort(c->usage, c->nu, sizeof *c->usage, usage_cmp);
        if (q->has_allin)
            cap_chargeback(c, q->allin_per_gpu_hour);
    }
}

gp_status gp_capacity_remote(const gp_cap_query *q, int64_t now, gp_capacity *c, gp_err *err) {
    memset(c, 0, sizeof *c);
    const gp_history_opts *o = q->remote;
    window w = {0};
    if (cap_begin(q, now, c, &w, err))
        return err->code;
    char **listed = NULL;
    size_t n_hosts = (size_t)q->n_nodes;
    gp_status rc = GP_OK;
    if (!n_hosts) {
        gp_history_opts lo = *o;
        lo.since_ms = w.start;
        lo.until_ms = w.at;
        rc = gp_history_hosts(&lo, &listed, &n_hosts, err);
    }
    char **profiles = NULL, **models = NULL;
    size_t n_prof = 0, n_models = 0;
    mig_set m = {0};
    if (rc == GP_OK)
        rc = mig_profiles(o, &w, &profiles, &n_prof, &models, &n_models, &m, err);
    bool rec = false;
    if (rc == GP_OK)
        rc = recorded_or_raw(q, &w, &m, c, &rec, err);
    fold f;
    fold_init(&f, &w);
    if (rc == GP_OK)
        rc =
            ask(q, &w, &m, rec, q->n_nodes ? (char *const *)q->nodes : listed, n_hosts, &f, c, err);
    free(listed);
    free(profiles);
    free(models);
    free(m.p);
    if (rc == GP_OK)
        cap_take(q, &w, &f, c);
    fold_done(&f);
    return rc;
}
