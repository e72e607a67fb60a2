/* nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]: any field list and order. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gpuplan/samples.h"

#define MAX_COLS 320

enum {
    F_OTHER,
    F_TIMESTAMP,
    F_INDEX,
    F_UUID,
    F_NAME,
    F_UTIL,
    F_MEM_USED,
    F_MEM_TOTAL,
    F_POWER,
    F_POWER_INSTANT,
    F_POWER_AVERAGE,
    F_TEMP,
    F_SM_CLOCK,
    F_POWER_LIMIT
};

static const struct {
    const char *name;
    int field;
} known[] = {
    {"timestamp", F_TIMESTAMP},
    {"index", F_INDEX},
    {"uuid", F_UUID},
    {"name", F_NAME},
    {"gpu_name", F_NAME},
    {"utilization.gpu", F_UTIL},
    {"memory.used", F_MEM_USED},
    {"memory.total", F_MEM_TOTAL},
    {"power.draw", F_POWER},
    {"power.draw.instant", F_POWER_INSTANT},
    {"power.draw.average", F_POWER_AVERAGE},
    {"temperature.gpu", F_TEMP},
    {"clocks.sm", F_SM_CLOCK},
    {"clocks.current.sm", F_SM_CLOCK},
    {"power.limit", F_POWER_LIMIT},
    {"enforced.power.limit", F_POWER_LIMIT},
};

/* The field a header cell or --fields entry names: "memory.used [MiB]" is memory.used. */
static int classify(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    const char *br = memchr(s, '[', n);
    if (br)
        n = (size_t)(br - s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].name) == n && !strncasecmp(s, known[i].name, n))
            return known[i].field;
    return F_OTHER;
}

typedef struct cell {
    const char *p;
    size_t n;
} cell;

/* nvidia-smi separates with ", " and never quotes: split on commas, trim the spaces. */
static int split(const char *line, size_t len, cell *cells) {
    int n = 0;
    const char *p = line, *end = line + len;
    while (n < MAX_COLS) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *a = p, *b = stop;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
            b--;
        cells[n].p = a;
        cells[n].n = (size_t)(b - a);
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return n;
}

/* Placeholders in brackets ("[N/A]", "[Not Supported]"), N/A and an empty cell: absent. */
static bool placeholder(cell c) {
    return c.n == 0 || c.p[0] == '[' || (c.n >= 3 && !strncmp(c.p, "N/A", 3));
}

/* The field's name as nvidia-smi spells it, for messages. */
static const char *field_name(int field) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].field == field)
            return known[i].name;
    return "field";
}

/* What may follow a number: nothing, "%" (with or without a space), or after a space a unit
 * of letters and '/' ("W", "MiB", "MHz", "KB/s"). "5O %" or "50 %x" is garbled, not 5 or 50. */
static bool unit_tail(const char *p, size_t n) {
    if (n == 0 || (n == 1 && p[0] == '%'))
        return true;
    if (p[0] != ' ')
        return false;
    while (n > 0 && p[0] == ' ')
        p++, n--;
    if (n == 1 && p[0] == '%')
        return true;
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)p[i]) && p[i] != '/')
            return false;
    return n > 0;
}

/* A number with an optional unit ("631.95 W", "100 %", "19818 MiB"); a placeholder is
 * absent. */
static bool number(cell c, double *out) {
    if (placeholder(c))
        return false;
    char tmp[64];
    size_t n = 0;
    while (n < c.n && n + 1 < sizeof tmp &&
           (isdigit((unsigned char)c.p[n]) || c.p[n] == '.' || c.p[n] == '-' || c.p[n] == '+'))
        n++;
    if (n == 0 || !unit_tail(c.p + n, c.n - n))
        return false;
    memcpy(tmp, c.p, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (*end)
        return false;
    *out = v;
    return true;
}

/* "2026/07/03 22:22:27.218", local time, no zone: milliseconds since the epoch. */
static bool timestamp(cell c, int64_t *ms) {
    char tmp[32];
    if (c.n < 19 || c.n >= sizeof tmp)
        return false;
    memcpy(tmp, c.p, c.n);
    tmp[c.n] = '\0';
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int msec = 0;
    if (sscanf(tmp, "%d/%d/%d %d:%d:%d.%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &msec) < 6)
        return false;
    if (tm.tm_year < 1970 || tm.tm_year > 9999 || tm.tm_mon < 1 || tm.tm_mon > 12 ||
        tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 ||
        msec < 0 || msec > 999)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    if (t == (time_t)-1)
        return false;
    *ms = (int64_t)t * 1000 + msec;
    return true;
}

/* One data row's cells, read. */
typedef struct nvsmi_row {
    int64_t ts;
    int index;
    char uuid[96], name[96];
    double v[F_POWER_LIMIT + 1];
    bool has[F_POWER_LIMIT + 1];
} nvsmi_row;

/* Reads the n cells of row `line` into r; a cell that is not what its column holds is
 * an error. */
static gp_status nvsmi_cells(const cell *cells, const int *col, int n, const char *origin, int line,
                             gp_samples *out, nvsmi_row *r, gp_err *err) {
    gp_status st = GP_OK;
    char where[300];
    memset(r, 0, sizeof *r);
    r->index = -1;
    for (int i = 0; i < n; i++) {
        cell c = cells[i];
        switch (col[i]) {
        case F_TIMESTAMP:
            if (!timestamp(c, &r->ts)) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where,
                               "timestamp \"%.*s\" is not "
                               "YYYY/MM/DD HH:MM:SS.mmm",
                               (int)(c.n < 40 ? c.n : 40), c.p);
            }
            break;
        case F_INDEX: {
            /* A garbled index would file the row under a GPU that does not exist. */
            double x;
            if (number(c, &x) && x >= 0 && x < 4096 && x == (int)x) {
                r->index = (int)x;
            } else if (!placeholder(c)) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where,
                               "index \"%.*s\" is not a GPU index (0 to 4095)",
                               (int)(c.n < 40 ? c.n : 40), c.p);
            }
            break;
        }
        case F_UUID:
            snprintf(r->uuid, sizeof r->uuid, "%.*s", (int)(c.n < 95 ? c.n : 95), c.p);
            break;
        case F_NAME:
            snprintf(r->name, sizeof r->name, "%.*s", (int)(c.n < 95 ? c.n : 95), c.p);
            break;
        case F_OTHER:
            break;
        default:
            if (number(c, &r->v[col[i]])) {
                r->has[col[i]] = true;
            } else if (!placeholder(c)) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where, "%s \"%.*s\" is not a number",
                               field_name(col[i]), (int)(c.n < 40 ? c.n : 40), c.p);
            } else if (c.n && c.p[0] == '[') {
                out->blanks++;
            }
            break;
        }
    }
    return st;
}

/* Row r's samples for GPU gpu: power.draw, else the instant reading, else the average. */
static gp_status nvsmi_samples(gp_samples *out, int gpu, nvsmi_row *r, gp_err *err) {
    gp_status st = GP_OK;
    if (!r->has[F_POWER] && r->has[F_POWER_INSTANT])
        r->v[F_POWER] = r->v[F_POWER_INSTANT], r->has[F_POWER] = true;
    if (!r->has[F_POWER] && r->has[F_POWER_AVERAGE])
        r->v[F_POWER] = r->v[F_POWER_AVERAGE], r->has[F_POWER] = true;
    static const struct {
        int field;
        gp_metric m;
    } map[] = {{F_UTIL, GP_M_GPU_UTIL},
               {F_MEM_USED, GP_M_MEM_USED_MIB},
               {F_MEM_TOTAL, GP_M_MEM_TOTAL_MIB},
               {F_POWER, GP_M_POWER_W},
               {F_TEMP, GP_M_TEMP_C},
               {F_SM_CLOCK, GP_M_SM_CLOCK_MHZ},
               {F_POWER_LIMIT, GP_M_POWER_LIMIT_W}};
    for (size_t k = 0; k < sizeof map / sizeof map[0] && st == GP_OK; k++)
        if (r->has[map[k].field])
            st = gp_samples_add(out, gpu, map[k].m, r->v[map[k].field], r->ts, -1, err);
    return st;
}

gp_status gp_nvsmi_parse(const char *buf, size_t len, const char *origin, const char *fields,
                         const char *host, gp_samples *out, gp_err *err) {
    int col[MAX_COLS], ncols = 0;
    cell *cells = malloc(MAX_COLS * sizeof *cells);
    if (!cells)
        return gp_errorf(err, GP_E_NOMEM, NULL, "out of memory");
    if (fields) {
        ncols = split(fields, strlen(fields), cells);
        for (int i = 0; i < ncols; i++)
            col[i] = classify(cells[i].p, cells[i].n);
    }
    const char *p = buf, *end = buf + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    int line = 0, row_in_ts = 0;
    int64_t last_ts = -1;
    char where[300];
    gp_status st = GP_OK;
    const char *header_text = NULL;
    size_t header_len = 0;
    while (p < end && st == GP_OK) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *stop = eol ? eol : end;
        const char *text = p;
        size_t tlen = (size_t)(stop - p);
        p = eol ? eol + 1 : end;
        while (tlen && (text[tlen - 1] == '\r' || text[tlen - 1] == ' '))
            tlen--;
        if (tlen == 0)
            continue;
        if (ncols == 0) { /* the header */
            ncols = split(text, tlen, cells);
            int known_cols = 0;
            for (int i = 0; i < ncols; i++)
                known_cols += (col[i] = classify(cells[i].p, cells[i].n)) != F_OTHER;
            if (!known_cols) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where,
                               "not an nvidia-smi --query-gpu header (for noheader output, "
                               "name the fields with --fields)");
            }
            header_text = text;
            header_len = tlen;
            continue;
        }
        if (header_text && tlen == header_len && !memcmp(text, header_text, tlen))
            continue; /* appended captures repeat the header */
        int n = split(text, tlen, cells);
        if (n != ncols) {
            snprintf(where, sizeof where, "%s:%d", origin, line);
            st = gp_errorf(err, GP_E_INPUT, where, "%d fields where the header has %d", n, ncols);
            break;
        }
        nvsmi_row r;
        st = nvsmi_cells(cells, col, n, origin, line, out, &r, err);
        if (st != GP_OK)
            break;
        /* Without index or UUID (the classic cron script), rows of one timestamp are the
         * GPUs 0, 1, 2... in order. */
        if (r.ts != last_ts)
            row_in_ts = 0;
        last_ts = r.ts;
        if (r.index < 0 && !r.uuid[0])
            r.index = row_in_ts;
        row_in_ts++;
        if (!strncmp(r.uuid, "[", 1))
            r.uuid[0] = '\0';
        int gpu = gp_samples_gpu(out, r.uuid, r.index, "", r.name, host);
        st = nvsmi_samples(out, gpu, &r, err);
    }
    if (st == GP_OK && ncols == 0)
        st = gp_errorf(err, GP_E_INPUT, origin, "empty input: no header and no rows");
    free(cells);
    return st;
}
