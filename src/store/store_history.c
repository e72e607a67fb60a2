/* Imported history: rollup rows straight into rollup_5m, rollup_1h and the capacity rollups
 * (store_history.h). The capacity rollups are computed here in C from the batch instead of by
 * gp_store_capacity_refresh's SQL, which re-reads every row it rolls up: that keeps a bulk import
 * at one B-tree insert per row. Where the batch meets rows stored before (a bucket collected
 * already, an hour half imported, another series of the same GPU), the hours concerned are
 * recomputed by gp_store_capacity_refresh instead, so the figures stay exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/store_capacity.h"
#include "gpuplan/store_history.h"
#include "gpuplan/xmem.h"
#include "store_int.h"

static const char SQL_GPU[] =
    "INSERT INTO gpu(node_id, uuid, idx, mig, host, model, raw_model, first_seen_ms, "
    "last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
    "ON CONFLICT(node_id, uuid, idx, mig, host) DO UPDATE SET "
    "model = CASE WHEN excluded.model <> '' THEN excluded.model ELSE model END, "
    "raw_model = CASE WHEN excluded.raw_model <> '' THEN excluded.raw_model ELSE raw_model END, "
    "first_seen_ms = min(first_seen_ms, excluded.first_seen_ms), "
    "last_seen_ms = max(last_seen_ms, excluded.last_seen_ms) RETURNING id, model";
static const char SQL_SERIES[] =
    "INSERT INTO series(node_id, gpu_id, metric, labels_id) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT DO UPDATE SET metric = metric RETURNING id";
static const char SQL_LABEL[] =
    "INSERT INTO label_set(json) VALUES (?1) ON CONFLICT(json) DO UPDATE SET json = json "
    "RETURNING id";
/* Another series of the GPU and metric (workload labels) with rows in the window. */
static const char SQL_OTHER[] =
    "SELECT 1 FROM series s CROSS JOIN rollup_5m_all r ON r.series_id = s.id AND r.bucket_ms >= ?4 "
    "AND r.bucket_ms < ?5 WHERE s.gpu_id = ?1 AND s.metric = ?2 AND s.id <> ?3 LIMIT 1";
static const char SQL_5M[] = "INSERT OR IGNORE INTO rollup_5m(series_id, bucket_ms, n, sum, min, "
                             "max) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char SQL_1H[] =
    "INSERT INTO rollup_1h(series_id, bucket_ms, n, sum, min, max) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6) ON CONFLICT DO UPDATE SET n = n + excluded.n, sum = sum + excluded.sum, "
    "min = min(min, excluded.min), max = max(max, excluded.max)";
static const char SQL_UTIL_HOUR[] =
    "INSERT OR IGNORE INTO util_hour(series_id, hour_ms, buckets, util_sum, power_n, power_sum, "
    "busy_power_n, busy_power_sum, hist) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
static const char SQL_FLEET[] =
    "INSERT INTO fleet_5m(node_id, model, bucket_ms, gpus, util_sum, h00, h01, h02, h03, h04, "
    "h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20) VALUES (?1, "
    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
    "?22, ?23, ?24, ?25, ?26) ON CONFLICT DO UPDATE SET gpus = gpus + excluded.gpus, "
    "util_sum = util_sum + excluded.util_sum, h00 = h00 + excluded.h00, h01 = h01 + excluded.h01, "
    "h02 = h02 + excluded.h02, h03 = h03 + excluded.h03, h04 = h04 + excluded.h04, "
    "h05 = h05 + excluded.h05, h06 = h06 + excluded.h06, h07 = h07 + excluded.h07, "
    "h08 = h08 + excluded.h08, h09 = h09 + excluded.h09, h10 = h10 + excluded.h10, "
    "h11 = h11 + excluded.h11, h12 = h12 + excluded.h12, h13 = h13 + excluded.h13, "
    "h14 = h14 + excluded.h14, h15 = h15 + excluded.h15, h16 = h16 + excluded.h16, "
    "h17 = h17 + excluded.h17, h18 = h18 + excluded.h18, h19 = h19 + excluded.h19, "
    "h20 = h20 + excluded.h20";

typedef struct row_ref {
    long long series;
    int64_t bucket;
    size_t row;
} row_ref;

static int by_series_bucket(const void *a, const void *b) {
    const row_ref *x = a, *y = b;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The fleet_5m contribution of one model and bucket. */
typedef struct fleet_acc {
    int model;
    int64_t bucket;
    long long gpus;
    double util_sum;
    long long h[21];
} fleet_acc;

static int by_model_bucket(const void *a, const void *b) {
    const fleet_acc *x = a, *y = b;
    if (x->bucket != y->bucket)
        return (x->bucket > y->bucket) - (x->bucket < y->bucket);
    return (x->model > y->model) - (x->model < y->model);
}

/* Hours whose capacity rollups need the SQL recomputation, as a sorted, unique list. */
typedef struct hours {
    int64_t *h;
    size_t n, cap;
} hours;

static void hours_add(hours *s, int64_t from_ms, int64_t to_ms) {
    for (int64_t h = from_ms - from_ms % GP_HOUR_MS; h < to_ms; h += GP_HOUR_MS) {
        s->h = gp_xgrow(s->h, &s->cap, s->n, sizeof *s->h, 64);
        s->h[s->n++] = h;
    }
}

static int by_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int bin_of(double m) {
    int b = (int)(m / 5); /* CAST(x AS INTEGER) truncates the same way */
    return b < 0 ? 0 : b > 20 ? 20 : b;
}

static gp_status step_done(gp_store *st, sqlite3_stmt *s, const char *what, gp_err *err) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, what);
}

typedef struct writer {
    gp_store *st;
    long long node_id;
    const gp_rollups *b;
    long long *gpu_id;  /* per batch GPU */
    int *gpu_model;     /* index into models */
    char (*models)[64]; /* distinct models of the batch */
    size_t n_models;
    long long *series;   /* per (GPU, metric), 0 until needed */
    long long *label_id; /* per label set of the batch, 0 until needed */
    row_ref *order;      /* rows by (series, bucket) */
    unsigned char *kept; /* per row: newly stored */
    double *power;       /* per order position of a util row: the GPU's power, NaN if none */
    hours fallback;
    sqlite3_stmt *gpu, *ser, *other, *r5, *r1, *uh, *fl, *lab;
    /* The sealed day being filled (store_chunks.c): a series' rows come in bucket order, so
     * each imported day of a series is read and written once. */
    gp_chunk *day;
    long long day_series;
    int64_t day_ms;
    bool day_dirty;
    /* The same for the hourly rollups' sealed days. */
    gp_chunk *hr;
    long long hr_series;
    int64_t hr_ms;
    bool hr_dirty;
    /* The same for util_hour's sealed days (store_hours.c). */
    gp_hours *hday;
    long long hday_series;
    int64_t hday_ms;
    bool hday_dirty;
} writer;

static gp_status record_gpus(writer *w, gp_err *err) {
    const gp_rollups *b = w->b;
    size_t ng = b->gpus.n_gpus;
    int64_t *first = gp_xmalloc((ng ? ng : 1) * sizeof *first);
    int64_t *last = gp_xmalloc((ng ? ng : 1) * sizeof *last);
    for (size_t g = 0; g < ng; g++)
        first[g] = INT64_MAX, last[g] = INT64_MIN;
    for (size_t i = 0; i < b->n; i++) {
        const gp_rollup *r = &b->r[i];
        if (r->bucket_ms < first[r->gpu])
            first[r->gpu] = r->bucket_ms;
        if (r->bucket_ms + GP_BUCKET_MS - 1 > last[r->gpu])
            last[r->gpu] = r->bucket_ms + GP_BUCKET_MS - 1;
    }
    gp_status res = GP_OK;
    for (size_t g = 0; g < ng && res == GP_OK; g++) {
        const gp_gpu_ref *r = &b->gpus.gpus[g];
        if (first[g] == INT64_MAX)
            continue; /* no row of it survived */
        sqlite3_bind_int64(w->gpu, 1, w->node_id);
        sqlite3_bind_text(w->gpu, 2, r->uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int(w->gpu, 3, r->index);
        sqlite3_bind_text(w->gpu, 4, r->mig, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 5, r->host, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 6, r->model, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->gpu, 7, r->raw_model, -1, SQLITE_STATIC);
        sqlite3_bind_int64(w->gpu, 8, first[g]);
        sqlite3_bind_int64(w->gpu, 9, last[g]);
        if (sqlite3_step(w->gpu) != SQLITE_ROW) {
            res = store_fail(w->st, err, "record a GPU");
            break;
        }
        w->gpu_id[g] = sqlite3_column_int64(w->gpu, 0);
        const unsigned char *model = sqlite3_column_text(w->gpu, 1);
        char name[64];
        snprintf(name, sizeof name, "%s", model ? (const char *)model : "");
        while (sqlite3_step(w->gpu) == SQLITE_ROW)
            ;
        sqlite3_reset(w->gpu);
        size_t k = 0;
        while (k < w->n_models && strcmp(w->models[k], name) != 0)
            k++;
        if (k == w->n_models)
            memcpy(w->models[w->n_models++], name, sizeof name);
        w->gpu_model[g] = (int)k;
    }
    free(first);
    free(last);
    return res;
}

/* The id of a batch entry's workload labels in label_set; 0 for none. */
static gp_status labels_of(writer *w, int gpu, long long *out, gp_err *err) {
    int set = w->b->gpus.gpus[gpu].label_set;
    *out = 0;
    if (!set)
        return GP_OK;
    long long *slot = &w->label_id[set - 1];
    if (!*slot) {
        sqlite3_bind_text(w->lab, 1, w->b->gpus.label_sets[set - 1], -1, SQLITE_STATIC);
        if (sqlite3_step(w->lab) != SQLITE_ROW) {
            sqlite3_reset(w->lab);
            return store_fail(w->st, err, "record a label set");
        }
        *slot = sqlite3_column_int64(w->lab, 0);
        while (sqlite3_step(w->lab) == SQLITE_ROW)
            ;
        sqlite3_reset(w->lab);
    }
    *out = *slot;
    return GP_OK;
}

static gp_status series_of(writer *w, int gpu, gp_metric m, long long *out, gp_err *err) {
    long long *slot = &w->series[(size_t)gpu * GP_M_COUNT + (size_t)m];
    if (!*slot) {
        long long labels;
        if (labels_of(w, gpu, &labels, err))
            return err->code;
        sqlite3_bind_int64(w->ser, 1, w->node_id);
        sqlite3_bind_int64(w->ser, 2, w->gpu_id[gpu]);
        sqlite3_bind_int(w->ser, 3, (int)m);
        sqlite3_bind_int64(w->ser, 4, labels);
        if (sqlite3_step(w->ser) != SQLITE_ROW) {
            sqlite3_reset(w->ser);
            return store_fail(w->st, err, "record a series");
        }
        *slot = sqlite3_column_int64(w->ser, 0);
        while (sqlite3_step(w->ser) == SQLITE_ROW)
            ;
        sqlite3_reset(w->ser);
    }
    *out = *slot;
    return GP_OK;
}

/* Utilization and power of a GPU stored under other series too (workload labels, collected
 * before): its hours in the window take the SQL path. */
static gp_status check_others(writer *w, size_t lo, size_t hi, gp_err *err) {
    const gp_rollup *r = &w->b->r[w->order[lo].row];
    if (r->metric != GP_M_GPU_UTIL && r->metric != GP_M_POWER_W)
        return GP_OK;
    int64_t from = w->order[lo].bucket, to = w->order[hi - 1].bucket + GP_BUCKET_MS;
    sqlite3_bind_int64(w->other, 1, w->gpu_id[r->gpu]);
    sqlite3_bind_int(w->other, 2, (int)r->metric);
    sqlite3_bind_int64(w->other, 3, w->order[lo].series);
    sqlite3_bind_int64(w->other, 4, from);
    sqlite3_bind_int64(w->other, 5, to);
    int rc = sqlite3_step(w->other);
    sqlite3_reset(w->other);
    if (rc == SQLITE_ROW)
        hours_add(&w->fallback, from, to);
    else if (rc != SQLITE_DONE)
        return store_fail(w->st, err, "look for other series");
    return GP_OK;
}

static gp_status day_flush(writer *w, gp_err *err) {
    if (w->day_dirty && store_chunk_save(w->st, STORE_5M, w->day_series, w->day_ms, w->day, err))
        return err->code;
    w->day_dirty = false;
    w->day_series = 0;
    return GP_OK;
}

/* Store one row of a sealed day into its chunk; *stored false when the bucket is there. */
static gp_status day_put(writer *w, long long series, const gp_rollup *r, bool *stored,
                         gp_err *err) {
    int64_t day = store_day_of(r->bucket_ms);
    if (series != w->day_series || day != w->day_ms) {
        bool found;
        if (day_flush(w, err) ||
            store_chunk_load(w->st, STORE_5M, series, day, w->day, &found, err))
            return err->code;
        w->day_series = series;
        w->day_ms = day;
    }
    gp_chunk_bucket *b = &w->day->b[(r->bucket_ms - day) / GP_BUCKET_MS];
    *stored = b->n == 0;
    if (*stored) {
        *b = (gp_chunk_bucket){r->n, r->sum, r->min, r->max};
        w->day_dirty = true;
    }
    return GP_OK;
}

static gp_status hr_flush(writer *w, gp_err *err) {
    if (w->hr_dirty && store_chunk_save(w->st, STORE_1H, w->hr_series, w->hr_ms, w->hr, err))
        return err->code;
    w->hr_dirty = false;
    w->hr_series = 0;
    return GP_OK;
}

/* An hour of a sealed day added into its chunk, as the upsert adds into a row. */
static gp_status hr_add(writer *w, long long series, int64_t hour, long long n, double sum,
                        double min, double max, gp_err *err) {
    int64_t day = store_day_of(hour);
    if (series != w->hr_series || day != w->hr_ms) {
        bool found;
        if (hr_flush(w, err) || store_chunk_load(w->st, STORE_1H, series, day, w->hr, &found, err))
            return err->code;
        w->hr_series = series;
        w->hr_ms = day;
    }
    store_bucket_add(&w->hr->b[(hour - day) / GP_HOUR_MS], n, sum, min, max);
    w->hr_dirty = true;
    return GP_OK;
}

typedef struct group_ref {
    long long series;
    size_t key, start; /* key: GPU x GP_M_COUNT + metric */
} group_ref;

static int by_group_series(const void *a, const void *b) {
    const group_ref *x = a, *y = b;
    return (x->series > y->series) - (x->series < y->series);
}

/* w->order by (series, bucket). A batch comes series by series in time order, mostly: the
 * rows are placed by their (GPU, metric) group, groups in series order, keeping the batch's
 * order within a group, which a pass then checks; only a batch out of order, or with two
 * groups of one series, takes the sort (a comparison sort of every row was a tenth of an
 * import's time). */
static void order_rows(writer *w) {
    const gp_rollups *b = w->b;
    size_t n_keys = b->gpus.n_gpus * GP_M_COUNT, n_groups = 0;
    size_t *slot = gp_xcalloc(n_keys, sizeof *slot); /* 1 + the group's index, 0: none yet */
    group_ref *g = gp_xmalloc(n_keys * sizeof *g);
    size_t *count = gp_xcalloc(n_keys, sizeof *count);
    for (size_t i = 0; i < b->n; i++) {
        size_t key = (size_t)b->r[i].gpu * GP_M_COUNT + (size_t)b->r[i].metric;
        if (!slot[key]) {
            g[n_groups] = (group_ref){w->order[i].series, key, 0};
            slot[key] = ++n_groups;
        }
        count[key]++;
    }
    qsort(g, n_groups, sizeof *g, by_group_series);
    size_t at = 0;
    for (size_t k = 0; k < n_groups; k++) {
        g[k].start = at;
        at += count[g[k].key];
        slot[g[k].key] = k; /* now the group's place in series order */
    }
    row_ref *out = gp_xmalloc(b->n * sizeof *out);
    for (size_t i = 0; i < b->n; i++) {
        group_ref *x = &g[slot[(size_t)b->r[i].gpu * GP_M_COUNT + (size_t)b->r[i].metric]];
        out[x->start++] = w->order[i];
    }
    bool sorted = true;
    for (size_t i = 1; i < b->n && sorted; i++)
        sorted = by_series_bucket(&out[i - 1], &out[i]) < 0;
    if (!sorted)
        qsort(out, b->n, sizeof *out, by_series_bucket);
    free(w->order);
    w->order = out;
    free(slot);
    free(g);
    free(count);
}

/* rollup_5m row by row, and rollup_1h per series and hour from the rows newly stored (into
 * their day chunks before the series' sealed_ms). The days of a
 * series that the batch covers to their end are sealed first, so they take the chunk path: an
 * imported day of a series is one row write; a day the batch ends in stays rows. */
static gp_status write_rows(writer *w, size_t *written, size_t *skipped, gp_err *err) {
    const gp_rollups *b = w->b;
    size_t i = 0;
    while (i < b->n) {
        size_t j = i;
        while (j < b->n && w->order[j].series == w->order[i].series)
            j++;
        int64_t sealed;
        if (check_others(w, i, j, err) ||
            store_seal_series(w->st, w->order[i].series, w->order[j - 1].bucket + GP_BUCKET_MS,
                              err) ||
            store_sealed_ms(w->st, w->order[i].series, &sealed, err))
            return err->code;
        /* One series: its rows in time order, summed per hour as they go. */
        long long hn = 0;
        double hsum = 0, hmin = 0, hmax = 0;
        int64_t hour = INT64_MIN;
        for (size_t k = i; k <= j; k++) {
            const gp_rollup *r = k < j ? &b->r[w->order[k].row] : NULL;
            int64_t h = r ? r->bucket_ms - r->bucket_ms % GP_HOUR_MS : INT64_MAX;
            if (h != hour && hn && hour < sealed) {
                if (hr_add(w, w->order[i].series, hour, hn, hsum, hmin, hmax, err))
                    return err->code;
                hn = 0;
                hsum = 0;
            } else if (h != hour && hn) {
                sqlite3_bind_int64(w->r1, 1, w->order[i].series);
                sqlite3_bind_int64(w->r1, 2, hour);
                sqlite3_bind_int64(w->r1, 3, hn);
                sqlite3_bind_double(w->r1, 4, hsum);
                sqlite3_bind_double(w->r1, 5, hmin);
                sqlite3_bind_double(w->r1, 6, hmax);
                if (step_done(w->st, w->r1, "write an hourly rollup", err))
                    return err->code;
                hn = 0;
                hsum = 0;
            }
            hour = h;
            if (!r)
                break;
            bool stored = false;
            if (r->bucket_ms < sealed) {
                if (day_put(w, w->order[k].series, r, &stored, err))
                    return err->code;
            } else {
                sqlite3_bind_int64(w->r5, 1, w->order[k].series);
                sqlite3_bind_int64(w->r5, 2, r->bucket_ms);
                sqlite3_bind_int64(w->r5, 3, r->n);
                sqlite3_bind_double(w->r5, 4, r->sum);
                sqlite3_bind_double(w->r5, 5, r->min);
                sqlite3_bind_double(w->r5, 6, r->max);
                if (step_done(w->st, w->r5, "write a 5-minute rollup", err))
                    return err->code;
                stored = sqlite3_changes(w->st->db) > 0;
            }
            if (!stored) {
                (*skipped)++;
                hours_add(&w->fallback, r->bucket_ms, r->bucket_ms + 1);
                continue;
            }
            (*written)++;
            w->kept[k] = 1;
            if (!hn || r->min < hmin)
                hmin = r->min;
            if (!hn || r->max > hmax)
                hmax = r->max;
            hn += r->n;
            hsum += r->sum;
        }
        if (day_flush(w, err) || hr_flush(w, err))
            return err->code;
        i = j;
    }
    return GP_OK;
}

/* Per GPU and bucket, its power: looked up for the utilization rows. A GPU's power rows are
 * one series, so in (series, bucket) order they form one run, sorted by bucket. */
static void match_power(writer *w) {
    const gp_rollups *b = w->b;
    size_t ng = b->gpus.n_gpus;
    size_t *pw_lo = gp_xcalloc(ng ? ng : 1, sizeof *pw_lo);
    size_t *pw_hi = gp_xcalloc(ng ? ng : 1, sizeof *pw_hi);
    for (size_t k = 0; k < b->n; k++) {
        const gp_rollup *r = &b->r[w->order[k].row];
        if (r->metric != GP_M_POWER_W)
            continue;
        if (pw_hi[r->gpu] == 0)
            pw_lo[r->gpu] = k;
        pw_hi[r->gpu] = k + 1;
    }
    for (size_t k = 0; k < b->n; k++) {
        const gp_rollup *r = &b->r[w->order[k].row];
        w->power[k] = NAN;
        if (r->metric != GP_M_GPU_UTIL || !pw_hi[r->gpu])
            continue;
        /* binary search the GPU's power run for this bucket */
        size_t lo = pw_lo[r->gpu], hi = pw_hi[r->gpu];
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (w->order[mid].bucket < r->bucket_ms)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < pw_hi[r->gpu] && w->order[lo].bucket == r->bucket_ms) {
            const gp_rollup *p = &b->r[w->order[lo].row];
            w->power[k] = p->sum / (double)p->n;
        }
    }
    free(pw_lo);
    free(pw_hi);
}

static gp_status hday_flush(writer *w, gp_err *err) {
    if (w->hday_dirty && store_hours_save(w->st, w->hday_series, w->hday_ms, w->hday, err))
        return err->code;
    w->hday_dirty = false;
    w->hday_series = 0;
    return GP_OK;
}

/* One hour of a sealed day into its chunk; *stored false when the hour is there. */
static gp_status hday_put(writer *w, long long series, int64_t hour, const gp_hour *h, bool *stored,
                          gp_err *err) {
    int64_t day = store_day_of(hour);
    if (series != w->hday_series || day != w->hday_ms) {
        bool found;
        if (hday_flush(w, err) || store_hours_load(w->st, series, day, w->hday, &found, err))
            return err->code;
        w->hday_series = series;
        w->hday_ms = day;
    }
    gp_hour *slot = &w->hday->h[(hour - day) / GP_HOUR_MS];
    *stored = slot->buckets == 0;
    if (*stored) {
        *slot = *h;
        w->hday_dirty = true;
    }
    return GP_OK;
}

/* util_hour per utilization series and hour (into its day chunk before the series' sealed_ms),
 * and fleet_5m per model and bucket, from the utilization rows newly stored. */
/* The GPU utilization rows kept, an hour of a series at a time: into the series' day chunk
 * when its day is sealed, else upserted into the hourly rows; each non-MIG GPU's buckets also
 * into *fa (the fleet's accumulators, *nf of them, grown). */
/* One hour of a series' utilization (h, its histogram counts in hcount): into the day chunk
 * when the hour is sealed, else upserted into the hourly rows; an hour already there is left
 * to the fallback. */
static gp_status hour_store(writer *w, long long series, int64_t hour, bool sealed,
                            const gp_hour *h, const int hcount[21], gp_err *err) {
    gp_status res;
    if (sealed) {
        bool stored;
        res = hday_put(w, series, hour, h, &stored, err);
        if (res == GP_OK && !stored)
            hours_add(&w->fallback, hour, hour + 1); /* the hour was there already */
        return res;
    }
    char hist[22];
    for (int i = 0; i < 21; i++)
        hist[i] = (char)(48 + hcount[i]);
    hist[21] = '\0';
    sqlite3_bind_int64(w->uh, 1, series);
    sqlite3_bind_int64(w->uh, 2, hour);
    sqlite3_bind_int64(w->uh, 3, h->buckets);
    sqlite3_bind_double(w->uh, 4, h->util_sum);
    sqlite3_bind_int64(w->uh, 5, h->power_n);
    sqlite3_bind_double(w->uh, 6, h->power_sum);
    sqlite3_bind_int64(w->uh, 7, h->busy_power_n);
    sqlite3_bind_double(w->uh, 8, h->busy_power_sum);
    sqlite3_bind_text(w->uh, 9, hist, 21, SQLITE_TRANSIENT);
    res = step_done(w->st, w->uh, "write an hour of utilization", err);
    if (res == GP_OK && sqlite3_changes(w->st->db) == 0)
        hours_add(&w->fallback, hour, hour + 1); /* the hour had rows already */
    return res;
}

static gp_status write_capacity_hours(writer *w, fleet_acc **fa_out, size_t *nf_out, gp_err *err) {
    const gp_rollups *b = w->b;
    fleet_acc *fa = NULL;
    size_t nf = 0, capf = 0;
    gp_status res = GP_OK;
    size_t k = 0;
    long long sealed_series = 0;
    int64_t sealed = 0;
    while (k < b->n && res == GP_OK) {
        const gp_rollup *r = &b->r[w->order[k].row];
        if (r->metric != GP_M_GPU_UTIL || !w->kept[k]) {
            k++;
            continue;
        }
        if (w->order[k].series != sealed_series) {
            sealed_series = w->order[k].series;
            if (store_sealed_ms(w->st, sealed_series, &sealed, err)) {
                res = err->code;
                break;
            }
        }
        int64_t hour = r->bucket_ms - r->bucket_ms % GP_HOUR_MS;
        long long buckets = 0, power_n = 0, busy_n = 0;
        double util_sum = 0, power_sum = 0, busy_sum = 0;
        int hcount[21] = {0};
        size_t j = k;
        for (; j < b->n && w->order[j].series == w->order[k].series; j++) {
            const gp_rollup *x = &b->r[w->order[j].row];
            if (x->bucket_ms - x->bucket_ms % GP_HOUR_MS != hour)
                break;
            if (!w->kept[j])
                continue;
            double m = x->sum / (double)x->n;
            int bin = bin_of(m);
            buckets++;
            util_sum += m;
            hcount[bin]++;
            if (!isnan(w->power[j])) {
                power_n++;
                power_sum += w->power[j];
                if (m >= 5) {
                    busy_n++;
                    busy_sum += w->power[j];
                }
            }
            if (b->gpus.gpus[x->gpu].mig[0])
                continue; /* in its GPU's rolled-up utilization (prom_range.h) */
            fa = gp_xgrow(fa, &capf, nf, sizeof *fa, 1024);
            fleet_acc *f = &fa[nf++];
            memset(f, 0, sizeof *f);
            f->model = w->gpu_model[x->gpu];
            f->bucket = x->bucket_ms;
            f->gpus = 1;
            f->util_sum = m;
            f->h[bin] = 1;
        }
        gp_hour h = {buckets, power_n, busy_n, util_sum, power_sum, busy_sum, {0}};
        for (int i = 0; i < 21; i++)
            h.hist[i] = (unsigned char)hcount[i];
        res = hour_store(w, w->order[k].series, hour, hour < sealed, &h, hcount, err);
        k = j;
    }
    if (res == GP_OK && hday_flush(w, err))
        res = err->code;
    *fa_out = fa;
    *nf_out = nf;
    return res;
}

/* Sum per (model, bucket), then add to the node's rows and the fleet's total. The days the
 * batch covers to their end are sealed first, so they go straight into day chunks
 * (store_fleet.c), added as the upsert adds into a row. fa is sorted here. */
static gp_status write_capacity_fleet(writer *w, fleet_acc *fa, size_t nf, gp_err *err) {
    gp_status res = GP_OK;
    if (nf)
        qsort(fa, nf, sizeof *fa, by_model_bucket);
    int64_t fleet_sealed = 0, newest = INT64_MIN;
    for (size_t i = 0; i < nf; i++) /* by model first: the last row is not the newest */
        newest = fa[i].bucket > newest ? fa[i].bucket : newest;
    if (res == GP_OK && nf &&
        (store_fleet_seal(w->st, newest + GP_BUCKET_MS, err) ||
         store_fleet_sealed(w->st, &fleet_sealed, err)))
        res = err->code;
    for (size_t i = 0; res == GP_OK && i < nf;) {
        fleet_acc t = fa[i], all = fa[i];
        size_t j = i + 1;
        for (; j < nf && fa[j].bucket == t.bucket && fa[j].model == t.model; j++) {
            t.gpus += fa[j].gpus;
            t.util_sum += fa[j].util_sum;
            for (int h = 0; h < GP_FLEET_BINS; h++)
                t.h[h] += fa[j].h[h];
        }
        bool first_of_bucket = i == 0 || fa[i - 1].bucket != t.bucket;
        if (first_of_bucket) {
            /* the fleet total of this bucket: every model of it */
            all = t;
            all.gpus = 0, all.util_sum = 0;
            memset(all.h, 0, sizeof all.h);
            size_t e = i;
            for (; e < nf && fa[e].bucket == t.bucket; e++) {
                all.gpus += fa[e].gpus;
                all.util_sum += fa[e].util_sum;
                for (int h = 0; h < 21; h++)
                    all.h[h] += fa[e].h[h];
            }
        }
        for (int pass = 0; pass < (first_of_bucket ? 2 : 1) && res == GP_OK; pass++) {
            const fleet_acc *x = pass ? &all : &t;
            if (x->bucket < fleet_sealed) {
                gp_fleet_bucket fb = {x->gpus, x->util_sum, {0}};
                for (int h = 0; h < 21; h++)
                    fb.bins[h] = (unsigned)x->h[h];
                res = store_fleet_add(w->st, pass ? 0 : w->node_id,
                                      pass ? "*" : w->models[x->model], x->bucket, &fb, err);
                continue;
            }
            sqlite3_bind_int64(w->fl, 1, pass ? 0 : w->node_id);
            sqlite3_bind_text(w->fl, 2, pass ? "*" : w->models[x->model], -1, SQLITE_STATIC);
            sqlite3_bind_int64(w->fl, 3, x->bucket);
            sqlite3_bind_int64(w->fl, 4, x->gpus);
            sqlite3_bind_double(w->fl, 5, x->util_sum);
            for (int h = 0; h < 21; h++)
                sqlite3_bind_int64(w->fl, 6 + h, x->h[h]);
            res = step_done(w->st, w->fl, "add to the fleet's 5-minute rollup", err);
        }
        i = j;
    }
    if (res == GP_OK && store_fleet_flush(w->st, err))
        res = err->code;
    return res;
}

static gp_status write_capacity(writer *w, gp_err *err) {
    fleet_acc *fa = NULL;
    size_t nf = 0;
    gp_status res = write_capacity_hours(w, &fa, &nf, err);
    if (res == GP_OK)
        res = write_capacity_fleet(w, fa, nf, err);
    free(fa);
    return res;
}

/* The SQL recomputation of the hours that met stored rows, in contiguous runs. */
static gp_status refresh_fallback(writer *w, gp_err *err) {
    hours *f = &w->fallback;
    if (!f->n)
        return GP_OK;
    qsort(f->h, f->n, sizeof *f->h, by_i64);
    for (size_t i = 0; i < f->n;) {
        size_t j = i + 1;
        while (j < f->n && f->h[j] <= f->h[j - 1] + GP_HOUR_MS)
            j++;
        if (gp_store_capacity_refresh(w->st, w->node_id, f->h[i], f->h[j - 1] + GP_HOUR_MS, err))
            return err->code;
        i = j;
    }
    return GP_OK;
}

gp_status gp_store_rollups_write(gp_store *st, long long node_id, const gp_rollups *b,
                                 size_t *written, size_t *skipped, gp_err *err) {
    *written = *skipped = 0;
    if (!b->n)
        return GP_OK;
    writer w = {.st = st, .node_id = node_id, .b = b};
    size_t ng = b->gpus.n_gpus ? b->gpus.n_gpus : 1;
    w.gpu_id = gp_xcalloc(ng, sizeof *w.gpu_id);
    w.gpu_model = gp_xcalloc(ng, sizeof *w.gpu_model);
    w.models = gp_xcalloc(ng, sizeof *w.models);
    w.series = gp_xcalloc(ng * GP_M_COUNT, sizeof *w.series);
    w.label_id = gp_xcalloc(b->gpus.n_labels + 1, sizeof *w.label_id);
    w.order = gp_xmalloc(b->n * sizeof *w.order);
    w.kept = gp_xcalloc(b->n, 1);
    w.power = gp_xmalloc(b->n * sizeof *w.power);
    w.day = gp_xmalloc(sizeof *w.day);
    w.hday = gp_xmalloc(sizeof *w.hday);
    w.hr = gp_xmalloc(sizeof *w.hr);
    bool ok = false;
    if (store_exec(st, "SAVEPOINT rollups", err))
        goto out;
    if (store_prepare(st, SQL_GPU, &w.gpu, err) || store_prepare(st, SQL_SERIES, &w.ser, err) ||
        store_prepare(st, SQL_OTHER, &w.other, err) || store_prepare(st, SQL_5M, &w.r5, err) ||
        store_prepare(st, SQL_1H, &w.r1, err) || store_prepare(st, SQL_UTIL_HOUR, &w.uh, err) ||
        store_prepare(st, SQL_FLEET, &w.fl, err) || store_prepare(st, SQL_LABEL, &w.lab, err) ||
        record_gpus(&w, err))
        goto fail;
    for (size_t i = 0; i < b->n; i++) {
        const gp_rollup *r = &b->r[i];
        w.order[i].row = i;
        w.order[i].bucket = r->bucket_ms;
        if (series_of(&w, r->gpu, r->metric, &w.order[i].series, err))
            goto fail;
    }
    order_rows(&w);
    if (write_rows(&w, written, skipped, err))
        goto fail;
    match_power(&w);
    if (write_capacity(&w, err) || refresh_fallback(&w, err))
        goto fail;
    ok = true;
fail:
    sqlite3_finalize(w.gpu);
    sqlite3_finalize(w.ser);
    sqlite3_finalize(w.other);
    sqlite3_finalize(w.r5);
    sqlite3_finalize(w.r1);
    sqlite3_finalize(w.uh);
    sqlite3_finalize(w.fl);
    sqlite3_finalize(w.lab);
    if (ok) {
        if (store_exec(st, "RELEASE rollups", err) == GP_OK)
            goto out;
    }
    store_fleet_discard(st);
    sqlite3_exec(st->db, "ROLLBACK TO rollups; RELEASE rollups", NULL, NULL, NULL);
    *written = *skipped = 0;
    ok = false;
out:
    free(w.gpu_id);
    free(w.gpu_model);
    free(w.models);
    free(w.series);
    free(w.label_id);
    free(w.order);
    free(w.kept);
    free(w.power);
    free(w.day);
    free(w.hday);
    free(w.hr);
    free(w.fallback.h);
    return ok ? GP_OK : err->code;
}

gp_status gp_store_history_mark(gp_store *st, long long node_id, const char *source,
                                gp_metric metric, const char *host, bool *has, int64_t *done_ms,
                                gp_err *err) {
    *has = false;
    *done_ms = 0;
    sqlite3_stmt *s;
    /* node_id 0: the earliest mark of any node (a host's GPUs split into nodes by label). */
    if (store_prepare(st, node_id ? STORE_SQL_MARK_NODE : STORE_SQL_MARK_ANY, &s, err))
        return err->code;
    if (node_id)
        sqlite3_bind_int64(s, 1, node_id);
    sqlite3_bind_text(s, 2, source, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, (int)metric);
    sqlite3_bind_text(s, 4, host, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        *has = true;
        *done_ms = sqlite3_column_int64(s, 0);
    }
    gp_status res =
        rc == SQLITE_ROW || rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read an import mark");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_history_mark_set(gp_store *st, long long node_id, const char *source,
                                    gp_metric metric, const char *host, int64_t done_ms,
                                    gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "INSERT INTO history_mark(node_id, source, metric, host, done_ms) VALUES "
                      "(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO UPDATE SET done_ms = "
                      "max(done_ms, excluded.done_ms)",
                      &s, err))
        return err->code;
    sqlite3_bind_int64(s, 1, node_id);
    sqlite3_bind_text(s, 2, source, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, (int)metric);
    sqlite3_bind_text(s, 4, host, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, done_ms);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "record an import mark");
}
