/* Capacity rollups and reads. Every query walks series first (CROSS JOIN fixes that order in
 * SQLite), then each series' rows by primary key over the window, which is far faster than the
 * time indexes over a large fleet. The 5 % busy split of util_hour and the bins are described in
 * db/004_capacity.sql; every query here reads hours or 5-minute fleet rows, never per-GPU
 * 5-minute rows, so a month of a thousand GPUs answers in well under a second. */
#include <ctype.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_capacity.h"
#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

/* util_hour: per utilization series and hour; each bucket's mean power is the GPU's power in
 * that same bucket, from its power series. */
static const char SQL_UTIL_HOUR[] =
    "INSERT OR REPLACE INTO util_hour(series_id, hour_ms, buckets, util_sum, power_n, "
    "power_sum, busy_power_n, busy_power_sum, hist) "
    "SELECT series_id, hour_ms, count(*), sum(m), count(p), coalesce(sum(p), 0), "
    "sum(p IS NOT NULL AND m >= 5), coalesce(sum(CASE WHEN m >= 5 THEN p END), 0), "
    "char(48 + sum(b = 0), 48 + sum(b = 1), 48 + sum(b = 2), 48 + sum(b = 3), 48 + sum(b = 4), 48 "
    "+ sum(b = 5), 48 + sum(b = 6), 48 + sum(b = 7), 48 + sum(b = 8), 48 + sum(b = 9), 48 + sum(b "
    "= 10), 48 + sum(b = 11), 48 + sum(b = 12), 48 + sum(b = 13), 48 + sum(b = 14), 48 + sum(b = "
    "15), 48 + sum(b = 16), 48 + sum(b = 17), 48 + sum(b = 18), 48 + sum(b = 19), 48 + sum(b = "
    "20)) "
    "FROM (SELECT r.series_id, r.bucket_ms - r.bucket_ms % " SQL_HOUR_MS
    " AS hour_ms, r.sum / r.n AS m, "
    "  min(20, max(0, CAST(r.sum / r.n / 5 AS INTEGER))) AS b, "
    "  (SELECT sum(pr.sum) / sum(pr.n) FROM series ps "
    "   JOIN rollup_5m_all pr ON pr.series_id = ps.id AND pr.bucket_ms = r.bucket_ms "
    "   WHERE ps.gpu_id = s.gpu_id AND ps.metric = ?3) AS p "
    "  FROM series s CROSS JOIN rollup_5m_all r ON r.series_id = s.id "
    "  WHERE s.metric = ?4 AND s.gpu_id <> 0 AND s.node_id = ?5 AND r.bucket_ms >= ?1 "
    "  AND r.bucket_ms < ?2) "
    "GROUP BY series_id, hour_ms";

/* fleet_5m: per node, model and bucket; a GPU with several label sets in one bucket counts
 * once, at its mean. Physical GPUs only: a MIG instance is in its GPU's rolled-up utilization
 * (samples.h). */
static const char SQL_FLEET_5M[] =
    "INSERT OR REPLACE INTO fleet_5m(node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, "
    "h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20) "
    "SELECT node_id, model, bucket_ms, count(*), sum(m), sum(b = 0), sum(b = 1), sum(b = 2), sum(b "
    "= 3), sum(b = 4), sum(b = 5), sum(b = 6), sum(b = 7), sum(b = 8), sum(b = 9), sum(b = 10), "
    "sum(b = 11), sum(b = 12), sum(b = 13), sum(b = 14), sum(b = 15), sum(b = 16), sum(b = 17), "
    "sum(b = 18), sum(b = 19), sum(b = 20) FROM ("
    "  SELECT s.node_id, g.model, r.bucket_ms, s.gpu_id, sum(r.sum) / sum(r.n) AS m, "
    "  min(20, max(0, CAST(sum(r.sum) / sum(r.n) / 5 AS INTEGER))) AS b "
    "  FROM series s CROSS JOIN rollup_5m_all r ON r.series_id = s.id "
    "  JOIN gpu g ON g.id = s.gpu_id "
    "  WHERE s.metric = ?3 AND s.node_id = ?4 AND g.mig = '' AND r.bucket_ms >= ?1 "
    "  AND r.bucket_ms < ?2 GROUP BY s.gpu_id, r.bucket_ms) "
    "GROUP BY node_id, model, bucket_ms";

/* The fleet total per bucket (node_id 0, model '*'), so the unfiltered question reads one
 * row a bucket instead of one per node and model. %s: fleet_5m, or fleet_5m_all where the
 * window reaches into sealed days (their buckets are chunks: store_fleet.c); both add the
 * nodes of a bucket in the same order. */
static const char SQL_FLEET_TOTAL_FMT[] =
    "INSERT OR REPLACE INTO fleet_5m(node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, "
    "h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20) "
    "SELECT 0, '*', bucket_ms, sum(gpus), sum(util_sum), sum(h00), sum(h01), sum(h02), sum(h03), "
    "sum(h04), sum(h05), sum(h06), sum(h07), sum(h08), sum(h09), sum(h10), sum(h11), sum(h12), "
    "sum(h13), sum(h14), sum(h15), sum(h16), sum(h17), sum(h18), sum(h19), sum(h20) FROM %s "
    "WHERE node_id <> 0 AND bucket_ms >= ?1 AND bucket_ms < ?2 GROUP BY bucket_ms";

gp_status gp_store_capacity_refresh(gp_store *st, long long node_id, int64_t from_ms, int64_t to_ms,
                                    gp_err *err) {
    int64_t from = store_hour_of(from_ms);
    int64_t to = to_ms == store_hour_of(to_ms) ? to_ms : store_hour_of(to_ms) + GP_HOUR_MS;
    if (to <= from)
        to = from + GP_HOUR_MS;
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_UTIL_HOUR, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    sqlite3_bind_int(s, 3, GP_M_POWER_W);
    sqlite3_bind_int(s, 4, GP_M_GPU_UTIL);
    sqlite3_bind_int64(s, 5, node_id);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "roll up utilization by hour");
    /* Hours of days already sealed go into their chunks (store_hours.c). */
    if (store_hours_settle(st, node_id, GP_M_GPU_UTIL, from, to, err))
        return err->code;
    if (store_prepare(st, SQL_FLEET_5M, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    sqlite3_bind_int(s, 3, GP_M_GPU_UTIL);
    sqlite3_bind_int64(s, 4, node_id);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "roll up the fleet by 5 minutes");
    /* Buckets of days already sealed go into their chunks (store_fleet.c), the node's before
     * the total reads them, the total's after. */
    int64_t sealed;
    if (store_fleet_sealed(st, &sealed, err) || store_fleet_settle(st, from, to, err))
        return err->code;
    char total[sizeof SQL_FLEET_TOTAL_FMT + 16];
    snprintf(total, sizeof total, SQL_FLEET_TOTAL_FMT, from < sealed ? "fleet_5m_all" : "fleet_5m");
    if (store_prepare(st, total, &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, from);
    sqlite3_bind_int64(s, 2, to);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, err, "total the fleet by 5 minutes");
    return store_fleet_settle(st, from, to, err);
}

#define SELECTION                                                                                  \
    " AND (?3 IS NULL OR n.name IN (SELECT value FROM json_each(?3)))"                             \
    " AND (?4 IS NULL OR g.model = ?4 OR g.model LIKE ?4 || '-%')"

static void bind_selection(sqlite3_stmt *s, const gp_cap_select *sel) {
    sqlite3_bind_int64(s, 1, sel->from_ms);
    sqlite3_bind_int64(s, 2, sel->to_ms);
    if (sel->nodes_json)
        sqlite3_bind_text(s, 3, sel->nodes_json, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 3);
    if (sel->gpu)
        sqlite3_bind_text(s, 4, sel->gpu, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 4);
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The k-th smallest of v[0..n) at v[k], the smaller ones before it and the larger after
 * (Wirth's selection): what a sort would put there, in linear time. */
static double kth(double *v, size_t n, size_t k) {
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double x = v[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return v[k];
}

/* gp_sorted_quantile(sorted v, 0.95) without sorting: the two order statistics it reads are
 * selected, so the figure is the same double. A NaN has no place in an order: then sort. */
static double p95(double *v, size_t n) {
    if (n == 0)
        return gp_sorted_quantile(v, n, 0.95);
    for (size_t i = 0; i < n; i++)
        if (v[i] != v[i]) {
            qsort(v, n, sizeof *v, by_double);
            return gp_sorted_quantile(v, n, 0.95);
        }
    double pos = 0.95 * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n)
        return kth(v, n, n - 1);
    double a = kth(v, n, lo), b = v[lo + 1];
    for (size_t i = lo + 2; i < n; i++)
        if (v[i] < b)
            b = v[i];
    return a + (b - a) * (pos - (double)lo);
}

/* Per GPU: memory (hourly peaks of used, the largest total) and the power limit. */
typedef struct gpu_mem {
    long long gpu_id;
    double *used;
    size_t n, cap;
    double total, limit;
    bool has_total, has_limit;
} gpu_mem;

static int mem_cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = ((const gpu_mem *)b)->gpu_id;
    return x < y ? -1 : x > y;
}

/* The memory and power limit series of the selection, in the order of series_gpu (GPU, metric,
 * series): each one's hourly peaks are read in C. */
static const char SQL_MEM_SERIES[] =
    "SELECT s.id, s.gpu_id, s.metric FROM series s JOIN gpu g ON g.id = s.gpu_id "
    "JOIN node n ON n.id = s.node_id WHERE s.metric IN (?5, ?6, ?7)" SELECTION
    " ORDER BY s.gpu_id, s.metric, s.id";

typedef struct mem_walk {
    gpu_mem *m;
    int metric;
} mem_walk;

/* One hourly bucket of a memory or power limit series (its peak) into its GPU's entry. */
static void add_mem(int64_t bucket_ms, const gp_chunk_bucket *b, void *arg) {
    (void)bucket_ms;
    mem_walk *w = arg;
    gpu_mem *m = w->m;
    double v = b->max;
    if (w->metric == GP_M_MEM_USED_MIB) {
        m->used = gp_xgrow(m->used, &m->cap, m->n, sizeof *m->used, 64);
        m->used[m->n++] = v;
    } else if (w->metric == GP_M_MEM_TOTAL_MIB) {
        if (!m->has_total || v > m->total)
            m->total = v;
        m->has_total = true;
    } else {
        if (!m->has_limit || v > m->limit)
            m->limit = v;
        m->has_limit = true;
    }
}

/* The utilization series of the selection with their GPU, in display order (a GPU's series
 * together, by id): each GPU's hours (day chunks, then rows) are summed in C and the GPU is
 * handed on when its last series is read, so nothing a GPU is kept past it. */
static const char SQL_GPU_SERIES[] =
    "SELECT s.id, g.id, n.name, g.host, g.uuid, g.model, g.mig, g.idx, g.raw_model FROM series s "
    "JOIN gpu g ON g.id = s.gpu_id JOIN node n ON n.id = s.node_id WHERE s.metric = ?5" SELECTION
    " ORDER BY n.name, g.host, g.idx, g.mig, g.id, s.id";

/* A GPU's hourly means of power, their 10 W bins (one byte each) and the values p95_binned
 * picks among; kept from GPU to GPU. */
typedef struct power_scratch {
    unsigned char *bin;
    double *pick;
    size_t cap;
} power_scratch;

_Static_assert(GP_POWER_BINS <= 256, "a power bin fits in a byte");

/* The 10 W bin of an hourly mean, as gp_cap_gpu.power_hist counts it (a NaN in bin 0). */
static int power_bin(double mean) {
    double bin = floor(mean / GP_POWER_BIN_W);
    return bin >= GP_POWER_BINS ? GP_POWER_BINS - 1 : bin >= 0 ? (int)bin : 0;
}

/* p95(v, n) for values without a NaN, bin[i] the bin of v[i] and hist their counts: the two
 * order statistics p95 reads lie in known bins, so only those bins' values are selected among
 * (a few dozen of a month's 720), and the figure is the same double. */
static double p95_binned(const double *v, const unsigned char *bin, size_t n, const long long *hist,
                         double *pick) {
    double pos = 0.95 * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    size_t below = 0; /* values in the bins before first */
    int first = 0, last;
    while (below + (size_t)hist[first] <= lo)
        below += (size_t)hist[first++];
    size_t upto = below + (size_t)hist[first];
    for (last = first; upto <= hi;)
        upto += (size_t)hist[++last];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (bin[i] >= first && bin[i] <= last)
            pick[k++] = v[i];
    if (lo + 1 >= n)
        return kth(pick, k, lo - below);
    size_t j = lo - below;
    double a = kth(pick, k, j), b = pick[j + 1];
    for (size_t i = j + 2; i < k; i++)
        if (pick[i] < b)
            b = pick[i];
    return a + (b - a) * (pos - (double)lo);
}

/* A GPU's hours, summed over its series, into g's figures: the sums and, when m is given, the
 * P95 of its hourly means of power and their 10 W bins. Returns false for a GPU without an
 * hour in the window. */
static bool gpu_figures(const gp_hours_total *t, const store_means *m, power_scratch *ps,
                        gp_cap_gpu *g) {
    if (t->buckets == 0) /* every hour holds at least one bucket */
        return false;
    g->buckets = t->buckets;
    g->util_sum = t->util_sum;
    g->power_n = t->power_n;
    g->power_sum = t->power_sum;
    g->busy_power_n = t->busy_power_n;
    g->busy_power_sum = t->busy_power_sum;
    for (int k = 0; k < GP_UTIL_BINS; k++)
        g->hist[k] = t->hist[k];
    if (!m || m->n == 0)
        return true;
    if (ps->cap < m->n) {
        ps->cap = m->cap;
        ps->bin = gp_xrealloc(ps->bin, ps->cap);
        ps->pick = gp_xrealloc(ps->pick, ps->cap * sizeof *ps->pick);
    }
    bool nan = false;
    for (size_t i = 0; i < m->n; i++) {
        int bin = power_bin(m->v[i]);
        nan |= m->v[i] != m->v[i];
        ps->bin[i] = (unsigned char)bin;
        g->power_hist[bin]++;
    }
    g->has_power_p95 = true;
    g->power_p95_w =
        nan ? p95(m->v, m->n) : p95_binned(m->v, ps->bin, m->n, g->power_hist, ps->pick);
    return true;
}

/* The text columns 2..8 of SQL_GPU_SERIES's row, kept while the GPU's series are read (a
 * column's text lives only until the next step). */
typedef struct gpu_text {
    char *buf;
    size_t cap;
    size_t at[6]; /* node, host, uuid, model, mig, raw_model: offsets into buf */
    bool null_raw;
} gpu_text;

static void text_keep(gpu_text *x, sqlite3_stmt *s) {
    static const int cols[6] = {2, 3, 4, 5, 6, 8};
    size_t need = 0;
    for (int i = 0; i < 6; i++)
        need += (size_t)sqlite3_column_bytes(s, cols[i]) + 1;
    if (x->cap < need)
        x->buf = gp_xgrow(x->buf, &x->cap, need - 1, 1, 1024);
    size_t n = 0;
    for (int i = 0; i < 6; i++) {
        const unsigned char *t = sqlite3_column_text(s, cols[i]);
        size_t len = (size_t)sqlite3_column_bytes(s, cols[i]);
        x->at[i] = n;
        if (len)
            memcpy(x->buf + n, t, len);
        x->buf[n + len] = '\0';
        n += len + 1;
    }
    x->null_raw = sqlite3_column_type(s, 8) == SQLITE_NULL;
}

/* Each selected GPU's memory used by hour, memory total and power limit, in GPU order, one
 * entry a GPU, into *mem (n entries; mem_free frees them, also after an error). */
static gp_status read_mem(gp_store *st, const gp_cap_select *sel, gpu_mem **mem, size_t *n,
                          gp_err *err) {
    sqlite3_stmt *s;
    size_t cap = 0;
    if (store_prepare(st, SQL_MEM_SERIES, &s, err))
        return err->code;
    bind_selection(s, sel);
    sqlite3_bind_int(s, 5, GP_M_MEM_USED_MIB);
    sqlite3_bind_int(s, 6, GP_M_MEM_TOTAL_MIB);
    sqlite3_bind_int(s, 7, GP_M_POWER_LIMIT_W);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(s, 1);
        if (!*n || (*mem)[*n - 1].gpu_id != id) {
            *mem = gp_xgrow(*mem, &cap, *n, sizeof **mem, 64);
            memset(&(*mem)[*n], 0, sizeof **mem);
            (*mem)[(*n)++].gpu_id = id;
        }
        mem_walk w = {&(*mem)[*n - 1], sqlite3_column_int(s, 2)};
        if (store_1h_each(st, sqlite3_column_int64(s, 0), sel->from_ms, sel->to_ms, add_mem, &w,
                          err)) {
            sqlite3_finalize(s);
            return err->code;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read memory by hour");
}

static void mem_free(gpu_mem *mem, size_t n) {
    for (size_t k = 0; k < n; k++)
        free(mem[k].used);
    free(mem);
}

/* One walk over the GPUs' hours: the GPU being summed (its id, index, text columns and hours so
 * far), the scratch its figures are made in, and the memory read before (read_mem). */
typedef struct gpu_walk {
    bool sums_only;
    store_means means;
    power_scratch scratch;
    gpu_text text;
    gp_hours_total t;
    long long gpu;
    int index;
    const gpu_mem *mem;
    size_t n_mem;
} gpu_walk;

/* The figures of the GPU w has summed, handed to fn (none for a GPU without hours): fn's
 * answer, nonzero to stop. */
static int gpu_hand_on(gpu_walk *w, int (*fn)(const gp_cap_gpu *, void *), void *arg) {
    gp_cap_gpu g;
    memset(&g, 0, sizeof g);
    if (!gpu_figures(&w->t, w->sums_only ? NULL : &w->means, &w->scratch, &g))
        return 0;
    const gpu_text *text = &w->text;
    g.id = w->gpu;
    g.node = text->buf + text->at[0];
    g.host = text->buf + text->at[1];
    g.uuid = text->buf + text->at[2];
    g.model = text->buf + text->at[3];
    g.mig = text->buf + text->at[4];
    g.raw_model = text->null_raw ? NULL : text->buf + text->at[5];
    g.index = w->index;
    /* mem is in GPU order, one entry a GPU (SQL_MEM_SERIES orders by it). */
    const gpu_mem *m =
        w->n_mem > 0 ? bsearch(&w->gpu, w->mem, w->n_mem, sizeof *w->mem, mem_cmp) : NULL;
    if (m) {
        if (m->n) {
            g.has_mem = true;
            g.mem_used_p95_mib = p95(m->used, m->n);
            g.mem_total_mib = m->total;
        }
        g.has_limit = m->has_limit;
        g.power_limit_w = m->limit;
    }
    return fn(&g, arg);
}

/* Every hour of every GPU, summed per GPU (its series come together, in hour order); a GPU's
 * figures are made and handed on when its last series is read. */
static gp_status walk_gpus(gp_store *st, const gp_cap_select *sel, gpu_walk *w,
                           int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_GPU_SERIES, &s, err))
        return err->code;
    bind_selection(s, sel);
    sqlite3_bind_int(s, 5, GP_M_GPU_UTIL);
    gp_status res = GP_OK;
    bool open = false, stopped = false;
    int rc;
    for (;;) {
        rc = sqlite3_step(s);
        long long id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 1) : 0;
        if (open && (rc != SQLITE_ROW || id != w->gpu)) {
            open = false;
            if (gpu_hand_on(w, fn, arg)) {
                stopped = true;
                break;
            }
        }
        if (rc != SQLITE_ROW)
            break;
        if (!open) {
            memset(&w->t, 0, sizeof w->t);
            w->means.n = 0;
            w->gpu = id;
            w->index = sqlite3_column_int(s, 7);
            text_keep(&w->text, s);
            open = true;
        }
        if (store_hours_add(st, sqlite3_column_int64(s, 0), sel->from_ms, sel->to_ms, &w->t,
                            w->sums_only ? NULL : &w->means, err)) {
            res = err->code;
            break;
        }
    }
    if (res == GP_OK && !stopped && rc != SQLITE_DONE)
        res = store_fail(st, err, "read utilization by hour");
    sqlite3_finalize(s);
    return res;
}

static gp_status capacity_gpus(gp_store *st, const gp_cap_select *sel, bool sums_only,
                               int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err) {
    gpu_mem *mem = NULL;
    size_t n_mem = 0;
    if (!sums_only && read_mem(st, sel, &mem, &n_mem, err)) {
        mem_free(mem, n_mem);
        return err->code;
    }
    gpu_walk w = {.sums_only = sums_only, .mem = mem, .n_mem = n_mem};
    gp_status res = walk_gpus(st, sel, &w, fn, arg, err);
    free(w.means.v);
    free(w.scratch.bin);
    free(w.scratch.pick);
    free(w.text.buf);
    mem_free(mem, n_mem);
    return res;
}

gp_status gp_store_capacity_gpus(gp_store *st, const gp_cap_select *sel,
                                 int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err) {
    return capacity_gpus(st, sel, false, fn, arg, err);
}

gp_status gp_store_capacity_sums(gp_store *st, const gp_cap_select *sel,
                                 int (*fn)(const gp_cap_gpu *, void *), void *arg, gp_err *err) {
    return capacity_gpus(st, sel, true, fn, arg, err);
}

/* The selected nodes' ids, handed to fleet_5m_all whole (store_fleet.c): it then reads only
 * their chunks, still in bucket order. */
#define NODE_IDS                                                                                   \
    "AND f.node_id IN (SELECT id FROM node WHERE ?3 IS NULL OR name IN "                           \
    "(SELECT value FROM json_each(?3))) "

/* Three sums a bucket: busy counts are the bins at or above the threshold, added in SQL
 * (%s below), so a month of a large fleet returns 8,640 short rows. */
static const char SQL_BUCKETS_FMT[] =
    "SELECT f.bucket_ms, sum(f.gpus), sum(f.util_sum), sum(%s) "
    "FROM fleet_5m_all f JOIN node n ON n.id = f.node_id "
    "WHERE f.bucket_ms >= ?1 AND f.bucket_ms < ?2 %s"
    "AND (?3 IS NULL OR n.name IN (SELECT value FROM json_each(?3))) "
    "AND (?4 IS NULL OR f.model = ?4 OR f.model LIKE ?4 || '-%%') "
    "GROUP BY f.bucket_ms ORDER BY f.bucket_ms";
/* The fleet's total rows (node 0): one chunk a sealed day, then one primary-key probe per
 * 5-minute bucket of the open days (fleet_5m_all, store_fleet.c): a range scan on bucket_ms
 * would read every node's rows of the window to keep node 0's. */
static const char SQL_BUCKETS_ALL_FMT[] =
    "SELECT f.bucket_ms, f.gpus, f.util_sum, %s FROM fleet_5m_all f "
    "WHERE f.node_id = 0 AND f.model = '*' AND f.bucket_ms >= ?1 AND f.bucket_ms < ?2 "
    "ORDER BY f.bucket_ms";

gp_status gp_store_capacity_buckets(gp_store *st, const gp_cap_select *sel, int threshold_pct,
                                    int (*fn)(const gp_cap_bucket *, void *), void *arg,
                                    gp_err *err) {
    char bins[160] = "", sql[sizeof SQL_BUCKETS_FMT + sizeof NODE_IDS + 200];
    size_t n = 0;
    int first = threshold_pct / 5;
    if (first < 0 || first >= GP_UTIL_BINS)
        return gp_errorf(err, GP_E_INPUT, NULL, "a busy threshold of 0 to 100 %%");
    for (int k = first; k < GP_UTIL_BINS; k++)
        n += (size_t)snprintf(bins + n, sizeof bins - n, "%sf.h%02d", k > first ? " + " : "", k);
    bool all = !sel->nodes_json && !sel->gpu;
    snprintf(sql, sizeof sql, all ? SQL_BUCKETS_ALL_FMT : SQL_BUCKETS_FMT, bins,
             sel->nodes_json ? NODE_IDS : "");
    sqlite3_stmt *s;
    if (store_prepare(st, sql, &s, err))
        return err->code;
    if (all) {
        sqlite3_bind_int64(s, 1, sel->from_ms);
        sqlite3_bind_int64(s, 2, sel->to_ms);
    } else {
        bind_selection(s, sel);
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_cap_bucket b;
        b.bucket_ms = sqlite3_column_int64(s, 0);
        b.gpus = sqlite3_column_int64(s, 1);
        b.util_sum = sqlite3_column_double(s, 2);
        b.busy = sqlite3_column_int64(s, 3);
        if (fn(&b, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the fleet by 5 minutes");
    sqlite3_finalize(s);
    return res;
}

static const char SQL_NODE_POWER[] =
    "SELECT n.name, sum(r.sum) / sum(r.n) FROM series s CROSS JOIN rollup_1h_all r "
    "ON r.series_id = s.id JOIN node n ON n.id = s.node_id WHERE s.gpu_id = 0 AND s.metric = ?5 "
    "AND r.bucket_ms >= ?1 AND r.bucket_ms < ?2 "
    "AND (?3 IS NULL OR n.name IN (SELECT value FROM json_each(?3))) AND (?4 IS NULL OR 1) "
    "GROUP BY n.name ORDER BY n.name";

gp_status gp_store_capacity_node_power(gp_store *st, const gp_cap_select *sel,
                                       int (*fn)(const char *node, double mean_w, void *),
                                       void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_NODE_POWER, &s, err))
        return err->code;
    bind_selection(s, sel);
    sqlite3_bind_int(s, 5, GP_M_NODE_POWER_W);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (fn((const char *)sqlite3_column_text(s, 0), sqlite3_column_double(s, 1), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read node power");
    sqlite3_finalize(s);
    return res;
}

/* Mean utilization per node and UTC hour of day, from the 5-minute fleet rollups. */
static const char SQL_HEATMAP[] =
    "SELECT n.name, (f.bucket_ms / " SQL_HOUR_MS ") % 24 AS h, sum(f.util_sum) / sum(f.gpus), "
    "CAST(sum(f.gpus) AS REAL) / count(DISTINCT f.bucket_ms) "
    "FROM fleet_5m_all f JOIN node n ON n.id = f.node_id "
    "WHERE f.bucket_ms >= ?1 AND f.bucket_ms < ?2 " NODE_IDS
    "AND (?3 IS NULL OR n.name IN (SELECT value FROM json_each(?3))) "
    "AND (?4 IS NULL OR f.model = ?4 OR f.model LIKE ?4 || '-%') "
    "GROUP BY n.name, h ORDER BY n.name, h";

gp_status gp_store_capacity_heatmap(gp_store *st, const gp_cap_select *sel,
                                    int (*fn)(const gp_cap_hour *, void *), void *arg,
                                    gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HEATMAP, &s, err))
        return err->code;
    bind_selection(s, sel);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_cap_hour h = {(const char *)sqlite3_column_text(s, 0), sqlite3_column_int(s, 1),
                         sqlite3_column_double(s, 2), sqlite3_column_double(s, 3)};
        if (fn(&h, arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read the hours of day");
    sqlite3_finalize(s);
    return res;
}

/* The utilization series of the selection with their label's value; their hours are summed
 * per value in C (series order, hour order). A MIG instance's series counts at its share of
 * the GPU (gp_mig_weight); its GPU's rolled-up series, which carries no workload label, is
 * left out (its utilization is the instances'). */
static const char SQL_BY_LABEL[] =
    "SELECT s.id, json_extract(l.json, ?5), g.mig, g.model FROM series s "
    "JOIN gpu g ON g.id = s.gpu_id "
    "JOIN node n ON n.id = s.node_id LEFT JOIN label_set l ON l.id = s.labels_id "
    "WHERE s.metric = ?6" SELECTION
    " AND NOT (g.mig = '' AND g.uuid <> '' AND EXISTS (SELECT 1 FROM gpu c WHERE "
    "c.node_id = g.node_id AND c.uuid = g.uuid AND c.mig <> '')) ORDER BY s.id";

typedef struct label_acc {
    char *value; /* NULL: the series has no such label */
    gp_hours_total t;
    double mig_buckets, mig_util, mig_power; /* MIG instances' series, weighted */
} label_acc;

static double acc_util(const label_acc *a) {
    return a->t.util_sum + a->mig_util;
}

static int by_util_desc(const void *a, const void *b) {
    const label_acc *x = a, *y = b;
    if (acc_util(x) != acc_util(y))
        return acc_util(x) > acc_util(y) ? -1 : 1;
    if (!x->value || !y->value)
        return !!x->value - !!y->value;
    return strcmp(x->value, y->value);
}

gp_status gp_store_capacity_by_label(gp_store *st, const gp_cap_select *sel, const char *label,
                                     int (*fn)(const gp_cap_label *, void *), void *arg,
                                     gp_err *err) {
    for (const char *p = label; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return gp_errorf(err, GP_E_INPUT, label, "a label name is letters, digits and _");
    char path[160];
    snprintf(path, sizeof path, "$.\"%s\"", label);
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_BY_LABEL, &s, err))
        return err->code;
    bind_selection(s, sel);
    sqlite3_bind_text(s, 5, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(s, 6, GP_M_GPU_UTIL);
    label_acc *groups = NULL;
    size_t ng = 0, capg = 0;
    gp_status res = GP_OK;
    int rc;
    while (res == GP_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(s, 1);
        size_t k = 0;
        while (k < ng &&
               !(v ? groups[k].value && strcmp(groups[k].value, v) == 0 : !groups[k].value))
            k++;
        if (k == ng) {
            groups = gp_xgrow(groups, &capg, ng, sizeof *groups, 16);
            memset(&groups[ng], 0, sizeof groups[ng]);
            groups[ng++].value = v ? gp_xstrdup(v) : NULL;
        }
        const char *mig = (const char *)sqlite3_column_text(s, 2);
        if (mig && *mig) {
            gp_hours_total t;
            memset(&t, 0, sizeof t);
            res = store_hours_add(st, sqlite3_column_int64(s, 0), sel->from_ms, sel->to_ms, &t,
                                  NULL, err);
            double w = gp_mig_weight(mig, (const char *)sqlite3_column_text(s, 3));
            groups[k].mig_buckets += w * (double)t.buckets;
            groups[k].mig_util += w * t.util_sum;
            groups[k].mig_power += w * t.power_sum;
        } else {
            res = store_hours_add(st, sqlite3_column_int64(s, 0), sel->from_ms, sel->to_ms,
                                  &groups[k].t, NULL, err);
        }
    }
    if (res == GP_OK && rc != SQLITE_DONE)
        res = store_fail(st, err, "attribute by label");
    sqlite3_finalize(s);
    size_t kept = 0;
    for (size_t k = 0; k < ng; k++) {
        if (groups[k].t.buckets > 0 || groups[k].mig_buckets > 0) /* an hour in the window */
            groups[kept++] = groups[k];
        else
            free(groups[k].value);
    }
    if (kept > 0)
        qsort(groups, kept, sizeof *groups, by_util_desc);
    for (size_t k = 0; res == GP_OK && k < kept; k++) {
        gp_cap_label l = {groups[k].value, (double)groups[k].t.buckets + groups[k].mig_buckets,
                          acc_util(&groups[k]), groups[k].t.power_sum + groups[k].mig_power};
        if (fn(&l, arg))
            break;
    }
    for (size_t k = 0; k < kept; k++)
        free(groups[k].value);
    free(groups);
    return res;
}
