/* nvidia-smi dmon logs: whitespace-separated columns named by a "# gpu ..." header line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/samples.h"

#define MAX_COLS 128
#define MAX_INDEX 4096
#define DAY_S 86400

enum { C_OTHER, C_DATE, C_TIME, C_GPU, C_PWR, C_TEMP, C_SM, C_FB, C_PCLK };

static const struct {
    const char *name;
    int col;
    gp_metric metric;
    double max; /* a reading above this is not one */
} known_cols[] = {
    {"Date", C_DATE, 0, 0},
    {"Time", C_TIME, 0, 0},
    {"gpu", C_GPU, 0, 0},
    {"pwr", C_PWR, GP_M_POWER_W, 100000},
    {"gtemp", C_TEMP, GP_M_TEMP_C, 300},
    {"temp", C_TEMP, GP_M_TEMP_C, 300}, /* drivers before the gtemp/mtemp split */
    {"sm", C_SM, GP_M_GPU_UTIL, 100},
    {"fb", C_FB, GP_M_MEM_USED_MIB, 1e8}, /* headed "MB"; NVML's MiB */
    {"pclk", C_PCLK, GP_M_SM_CLOCK_MHZ, 100000},
};
#define N_KNOWN (sizeof known_cols / sizeof known_cols[0])

typedef struct tok {
    const char *p;
    size_t n;
} tok;

static int split(const char *s, size_t n, tok *t, int cap) {
    int k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == n)
            break;
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != '\t')
            i++;
        if (k == cap)
            return cap + 1;
        t[k++] = (tok){s + b, i - b};
    }
    return k;
}

static bool tok_is(tok t, const char *s) {
    return strlen(s) == t.n && !memcmp(t.p, s, t.n);
}

static bool number(tok t, double *out) {
    char tmp[40];
    if (t.n == 0 || t.n >= sizeof tmp)
        return false;
    memcpy(tmp, t.p, t.n);
    tmp[t.n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (*end || end == tmp || !isfinite(v) || tmp[0] == ' ')
        return false;
    *out = v;
    return true;
}

static bool digits(const char *p, size_t n, int *out) {
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return n > 0;
}

/* "20260816" (-o D). */
static bool parse_date(tok t, int *y, int *m, int *d) {
    return t.n == 8 && digits(t.p, 4, y) && digits(t.p + 4, 2, m) && digits(t.p + 6, 2, d) &&
           *y >= 1970 && *y <= 9999 && *m >= 1 && *m <= 12 && *d >= 1 && *d <= 31;
}

/* "09:22:34" (-o T): seconds of the day. */
static bool parse_time(tok t, int *sod) {
    int h, mi, s;
    if (t.n != 8 || t.p[2] != ':' || t.p[5] != ':' || !digits(t.p, 2, &h) ||
        !digits(t.p + 3, 2, &mi) || !digits(t.p + 6, 2, &s) || h > 23 || mi > 59 || s > 60)
        return false;
    *sod = h * 3600 + mi * 60 + s;
    return true;
}

/* The local time y-m-d h:00:00 (mday may run past the month: mktime normalises), in seconds.
 * The hour a DST change repeats reads as its first pass (daylight time), whatever mktime's
 * own choice: a log's second pass through it lands on the first's times. */
static int64_t hour_start(int y, int m, int d, int h) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = m - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    if (t == (time_t)-1)
        return INT64_MIN;
    for (int dst = 0; dst <= 1; dst++) {
        struct tm u = tm, back; /* tm normalised by mktime */
        u.tm_isdst = dst;
        time_t v = mktime(&u);
        /* The same wall hour, earlier: the repeated hour's first pass. */
        if (v != (time_t)-1 && v < t && localtime_r(&v, &back) && back.tm_hour == tm.tm_hour &&
            back.tm_mday == tm.tm_mday && back.tm_mon == tm.tm_mon)
            t = v;
    }
    return (int64_t)t;
}

/* A local date and second of the day as Unix milliseconds: mktime of the row's own hour, so
 * rows after a DST change keep their wall time; the last hour cached (a row a second costs
 * one mktime an hour). */
typedef struct hour_cache {
    int y, m, d, h;
    int64_t start;
} hour_cache;

static int64_t local_ms(hour_cache *c, int y, int m, int d, int sod) {
    int h = sod / 3600;
    if (c->y != y || c->m != m || c->d != d || c->h != h) {
        c->y = y, c->m = m, c->d = d, c->h = h;
        c->start = hour_start(y, m, d, h);
    }
    if (c->start == INT64_MIN)
        return 0;
    return (c->start + sod % 3600) * 1000;
}

static gp_status fail(gp_err *err, const char *origin, int line, const char *msg) {
    char where[300];
    snprintf(where, sizeof where, "%s:%d", origin, line);
    return gp_errorf(err, GP_E_INPUT, where, "%s", msg);
}

/* One parse under way: the current header's columns, how rows are timed, the round and the
 * tokens of the line being read. */
typedef struct dmon_state {
    tok *t;              /* MAX_COLS + 1 */
    unsigned char *seen; /* GPU indexes of this round, a bit each */
    int col[MAX_COLS], ncols, m_of[MAX_COLS];
    char name[MAX_COLS][12];
    double max_of[MAX_COLS];
    bool has_date, has_time;
    int prev_sod, day;
    int64_t round, last_rel;
    hour_cache dc;
    char msg[160];
} dmon_state;

/* A "# ..." line (text after the "#", n bytes): the names line sets the columns; its units
 * line and comments are passed over. */
static gp_status dmon_header(dmon_state *ds, const char *text, size_t n, const char *origin,
                             int line, gp_err *err) {
    int k = split(text, n, ds->t, MAX_COLS);
    bool names = false;
    for (int i = 0; i < k && i < MAX_COLS; i++)
        names |= tok_is(ds->t[i], "gpu");
    if (!names)
        return GP_OK;
    if (k > MAX_COLS) {
        return fail(err, origin, line, "more than 128 columns");
    }
    bool had_date = ds->has_date, had_time = ds->has_time, first_header = !ds->ncols;
    ds->ncols = k;
    ds->has_date = ds->has_time = false;
    for (int i = 0; i < k; i++) {
        ds->col[i] = C_OTHER;
        snprintf(ds->name[i], sizeof ds->name[i], "%.*s", (int)(ds->t[i].n < 11 ? ds->t[i].n : 11),
                 ds->t[i].p);
        for (size_t j = 0; j < N_KNOWN; j++)
            if (tok_is(ds->t[i], known_cols[j].name)) {
                ds->col[i] = known_cols[j].col;
                ds->m_of[i] = (int)known_cols[j].metric;
                ds->max_of[i] = known_cols[j].max;
            }
        ds->has_date |= ds->col[i] == C_DATE;
        ds->has_time |= ds->col[i] == C_TIME;
    }
    for (int i = 0; i < k; i++)
        if (tok_is(ds->t[i], "pid"))
            return fail(err, origin, line,
                        "nvidia-smi pmon output (a row per process), not dmon: its sm "
                        "and mem are a process's share");
    /* Rows are timed one way through a log: its own times, or rounds before an end. */
    if (!first_header && (ds->has_date != had_date || ds->has_time != had_time)) {
        return fail(err, origin, line,
                    "this header's Date and Time columns differ from the log's first: "
                    "one dmon run (one -o) per file");
    }
    return GP_OK;
}

/* A data row: its GPU, its time until the end settles it, and a sample a known column. */
static gp_status dmon_row(dmon_state *ds, const char *text, size_t n, const char *origin, int line,
                          const gp_dmon_opts *o, gp_samples *out, gp_dmon_info *info, gp_err *err) {
    gp_status st = GP_OK;
    int k = split(text, n, ds->t, MAX_COLS);
    if (k != ds->ncols) {
        snprintf(ds->msg, sizeof ds->msg, "%d fields where the header has %d",
                 k > MAX_COLS ? MAX_COLS + 1 : k, ds->ncols);
        st = fail(err, origin, line, ds->msg);
        return st;
    }
    int index = -1, y = 0, mo = 0, d = 0, sod = -1;
    for (int i = 0; i < k && st == GP_OK; i++) {
        bool ok = ds->col[i] == C_GPU ? ds->t[i].n <= 4 && digits(ds->t[i].p, ds->t[i].n, &index) &&
                                            index < MAX_INDEX
                  : ds->col[i] == C_DATE ? parse_date(ds->t[i], &y, &mo, &d)
                  : ds->col[i] == C_TIME ? parse_time(ds->t[i], &sod)
                                         : true;
        if (!ok) {
            snprintf(ds->msg, sizeof ds->msg, "%s \"%.*s\" is not %s", ds->name[i],
                     (int)(ds->t[i].n < 40 ? ds->t[i].n : 40), ds->t[i].p,
                     ds->col[i] == C_GPU    ? "a GPU index"
                     : ds->col[i] == C_DATE ? "YYYYMMDD"
                                            : "HH:MM:SS");
            st = fail(err, origin, line, ds->msg);
        }
    }
    if (st != GP_OK)
        return st;
    /* A round ends where a GPU index comes again. */
    if (ds->round < 0 || (ds->seen[index / 8] & (1u << (index % 8)))) {
        ds->round++;
        memset(ds->seen, 0, MAX_INDEX / 8);
    }
    ds->seen[index / 8] |= (unsigned char)(1u << (index % 8));
    info->rows++;
    /* Until the end, a row's time is: its own (date and time), its day count and second
     * (time only), or its round (no time). */
    int64_t ts;
    if (ds->has_time && ds->has_date) {
        ts = local_ms(&ds->dc, y, mo, d, sod);
    } else if (ds->has_time) {
        if (ds->prev_sod >= 0 && sod < ds->prev_sod - DAY_S / 2)
            ds->day++; /* past midnight */
        ds->prev_sod = sod;
        ts = (int64_t)ds->day * DAY_S + sod;
    } else {
        ts = ds->round;
    }
    ds->last_rel = ts;
    int gpu = -1;
    for (size_t g = 0; o && g < o->n_known; g++)
        if (o->known[g].index == index && !o->known[g].mig[0]) {
            gpu = gp_samples_gpu(out, o->known[g].uuid, index, "", o->known[g].raw_model,
                                 o->known[g].host);
            break;
        }
    if (gpu < 0)
        gpu = gp_samples_gpu(out, "", index, "", "", o && o->host ? o->host : "");
    for (int i = 0; i < k && st == GP_OK; i++) {
        if (ds->col[i] < C_PWR)
            continue;
        double v;
        char cell[48];
        snprintf(cell, sizeof cell, "%.*s", (int)(ds->t[i].n < 40 ? ds->t[i].n : 40), ds->t[i].p);
        if (tok_is(ds->t[i], "-")) {
            out->blanks++; /* not supported, or hidden under MIG */
        } else if (!number(ds->t[i], &v)) {
            snprintf(ds->msg, sizeof ds->msg, "%s \"%s\" is not a number or -", ds->name[i], cell);
            st = fail(err, origin, line, ds->msg);
        } else if (v < 0 || v > ds->max_of[i]) {
            snprintf(ds->msg, sizeof ds->msg, "%s %g is outside 0..%g", ds->name[i], v,
                     ds->max_of[i]);
            st = fail(err, origin, line, ds->msg);
        } else {
            st = gp_samples_add(out, gpu, (gp_metric)ds->m_of[i], v, ts, -1, err);
        }
    }
    return st;
}

/* Every row's time once the log is read: of day only, on end_ms's day; rounds, counted back
 * from end_ms by the interval. */
static void dmon_settle(dmon_state *ds, const gp_dmon_opts *o, gp_samples *out, size_t first,
                        const gp_dmon_info *info) {
    if (ds->has_time && !ds->has_date) {
        /* Time of day only: the last row falls on the day of end_ms, or the day before when
         * its time of day is later than end_ms's. */
        int64_t last = ds->last_rel;
        time_t e = (time_t)(o ? o->end_ms / 1000 : 0);
        struct tm tm;
        localtime_r(&e, &tm);
        int end_sod = tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
        int last_day = (int)(last / DAY_S);
        int shift = (int)(last % DAY_S) > end_sod + 60 ? 1 : 0;
        for (size_t i = first; i < out->n; i++) {
            int64_t rel = out->s[i].ts_ms;
            int dd = tm.tm_mday - shift - (last_day - (int)(rel / DAY_S));
            out->s[i].ts_ms =
                local_ms(&ds->dc, tm.tm_year + 1900, tm.tm_mon + 1, dd, (int)(rel % DAY_S));
        }
    } else if (!ds->has_time) {
        int64_t last_round = (int64_t)info->rounds - 1;
        int64_t step = o && o->interval_ms > 0 ? o->interval_ms : 1000;
        for (size_t i = first; i < out->n; i++)
            out->s[i].ts_ms = (o ? o->end_ms : 0) - (last_round - out->s[i].ts_ms) * step;
    }
}

/* The times of this parse's samples and how many GPUs matched a known UUID. */
static void dmon_span(const gp_dmon_opts *o, const gp_samples *out, size_t first,
                      gp_dmon_info *info) {
    info->first_ms = INT64_MAX;
    info->last_ms = INT64_MIN;
    for (size_t i = first; i < out->n; i++) {
        if (out->s[i].ts_ms < info->first_ms)
            info->first_ms = out->s[i].ts_ms;
        if (out->s[i].ts_ms > info->last_ms)
            info->last_ms = out->s[i].ts_ms;
    }
    if (out->n == first)
        info->first_ms = info->last_ms = 0;
    for (size_t g = 0; o && g < out->n_gpus; g++)
        for (size_t k2 = 0; k2 < o->n_known; k2++)
            if (o->known[k2].uuid[0] && !strcmp(out->gpus[g].uuid, o->known[k2].uuid)) {
                info->mapped++;
                break;
            }
}

gp_status gp_dmon_parse(const char *buf, size_t len, const char *origin, const gp_dmon_opts *o,
                        gp_samples *out, gp_dmon_info *info, gp_err *err) {
    gp_dmon_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    dmon_state *ds = calloc(1, sizeof *ds);
    tok *t = malloc((MAX_COLS + 1) * sizeof *t);
    unsigned char *seen = calloc(MAX_INDEX / 8, 1);
    if (!ds || !t || !seen) {
        free(ds);
        free(t);
        free(seen);
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
    }
    ds->t = t, ds->seen = seen;
    ds->prev_sod = -1, ds->round = -1;
    ds->dc = (hour_cache){0, 0, 0, -1, 0};
    size_t first = out->n; /* this parse's samples, whose times are settled at the end */
    const char *p = buf, *end = buf + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    int line = 0;
    gp_status st = GP_OK;
    while (p < end && st == GP_OK) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *text = p;
        size_t n = (size_t)((eol ? eol : end) - p);
        p = eol ? eol + 1 : end;
        if (n && text[n - 1] == '\r')
            n--;
        size_t lead = 0;
        while (lead < n && (text[lead] == ' ' || text[lead] == '\t'))
            lead++;
        if (lead == n)
            continue;
        if (memchr(text, '\0', n)) {
            st = fail(err, origin, line, "a NUL byte: not a dmon log");
            break;
        }
        if (text[lead] == '#') { /* the names line, its units line, or a comment */
            st = dmon_header(ds, text + lead + 1, n - lead - 1, origin, line, err);
            continue;
        }
        if (!ds->ncols) {
            st = fail(err, origin, line,
                      "a row before any \"# gpu ...\" header: not nvidia-smi dmon output");
            break;
        }
        st = dmon_row(ds, text, n, origin, line, o, out, info, err);
    }
    info->rounds = ds->round < 0 ? 0 : (size_t)ds->round + 1;
    if (st == GP_OK && !ds->ncols)
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "not nvidia-smi dmon output: no \"# gpu ...\" header line");
    if (st == GP_OK && info->rows == 0)
        st = gp_errorf(err, GP_E_INPUT, origin, "a dmon header and no rows");
    info->own_time = ds->has_time;
    if (st == GP_OK && ds->has_time && !ds->has_date && (!o || o->end_ms <= 0))
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "rows with a time of day (-o T) and no date: give the time of the "
                       "log's end (--end) for their day");
    if (st == GP_OK)
        dmon_settle(ds, o, out, first, info);
    if (st == GP_OK)
        dmon_span(o, out, first, info);
    free(t);
    free(seen);
    free(ds);
    return st;
}
