/* `ipmitool dcmi power reading`: "key: value" lines, one reading of the server's wall power. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gpuplan/clock.h"
#include "gpuplan/samples.h"

enum { K_NONE, K_NOW, K_MIN, K_MAX, K_AVG, K_STAMP, K_PERIOD, K_STATE };

static const struct {
    const char *key;
    int k;
} keys[] = {
    {"Instantaneous power reading", K_NOW},
    {"Minimum during sampling period", K_MIN},
    {"Maximum during sampling period", K_MAX},
    {"Average power reading over sample period", K_AVG},
    {"IPMI timestamp", K_STAMP},
    {"Sampling period", K_PERIOD},
    {"Power reading state is", K_STATE},
};

static void trim(const char **p, size_t *n) {
    while (*n && isspace((unsigned char)**p))
        (*p)++, (*n)--;
    while (*n && isspace((unsigned char)(*p)[*n - 1]))
        (*n)--;
}

static int key_of(const char *p, size_t n) {
    trim(&p, &n);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i].key) == n && !strncasecmp(p, keys[i].key, n))
            return keys[i].k;
    return K_NONE;
}

/* "215 Watts": the number, then an optional unit. */
static bool watts(const char *p, size_t n, double *out) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return false;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (end == tmp || !isfinite(v) || v < 0 || v > 1e6)
        return false;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end && strcasecmp(end, "Watts") && strcasecmp(end, "W"))
        return false;
    *out = v;
    return true;
}

/* "00000000 Seconds.", "1000 Milliseconds", "5 min", "1 hour": milliseconds, -1 if neither. */
static int64_t period_ms(const char *p, size_t n) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (end == tmp || !isfinite(v) || v < 0 || v > 1e10)
        return -1;
    while (*end == ' ')
        end++;
    double mult = !*end || !strncasecmp(end, "sec", 3) || !strcasecmp(end, "s") ? 1000
                  : !strncasecmp(end, "milli", 5) || !strcasecmp(end, "ms")     ? 1
                  : !strncasecmp(end, "min", 3)                                 ? GP_MINUTE_MS
                  : !strncasecmp(end, "hour", 4)                                ? GP_HOUR_MS
                  : !strncasecmp(end, "day", 3)                                 ? GP_DAY_MS
                                                                                : -1;
    return mult < 0 ? -1 : (int64_t)(v * mult);
}

static int64_t to_ms(struct tm *tm, bool utc) {
    tm->tm_isdst = -1;
    time_t t = utc ? timegm(tm) : mktime(tm);
    return t == (time_t)-1 ? 0 : (int64_t)t * 1000;
}

/* ipmitool 1.8.18's ctime ("Thu Jan  1 00:00:00 1970", local), 1.8.19's numeric
 * ("07/26/26 16:57:12 CDT", local unless UTC/GMT) or ISO ("2024-05-05 13:06:44 UTC"). */
static int64_t stamp_ms(const char *text) {
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char wd[4], mon[4], zone[8] = "";
    int y, mo, d;
    if (sscanf(text, "%3s %3s %d %d:%d:%d %d", wd, mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &y) == 7) {
        const char *at = strstr(months, mon);
        if (!at || (at - months) % 3 || strlen(mon) != 3)
            return 0;
        tm.tm_mon = (int)(at - months) / 3;
    } else if (sscanf(text, "%d/%d/%d %d:%d:%d %7s", &mo, &d, &y, &tm.tm_hour, &tm.tm_min,
                      &tm.tm_sec, zone) >= 6 ||
               (sscanf(text, "%d-%d-%d %d:%d:%d %7s", &y, &mo, &d, &tm.tm_hour, &tm.tm_min,
                       &tm.tm_sec, zone) >= 6 &&
                y > 1900)) {
        if (strchr(text, '/')) /* %m/%d/%y */
            y += y < 70 ? 2000 : y < 100 ? 1900 : 0;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
    } else {
        return 0;
    }
    if (y < 1970 || y > 9999 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
        tm.tm_mday > 31 || tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 ||
        tm.tm_sec < 0 || tm.tm_sec > 60)
        return 0;
    tm.tm_year = y - 1900;
    return to_ms(&tm, !strcmp(zone, "UTC") || !strcmp(zone, "GMT"));
}

bool gp_dcmi_time_plausible(int64_t bmc_ms, int64_t now_ms) {
    return bmc_ms >= 978307200000LL && bmc_ms <= now_ms + GP_DAY_MS;
}

static gp_status fail(gp_err *err, const char *origin, int line, const char *what, const char *p,
                      size_t n) {
    char where[300];
    snprintf(where, sizeof where, "%s:%d", origin, line);
    return gp_errorf(err, GP_E_INPUT, where, "%s \"%.*s\"", what, (int)(n < 40 ? n : 40), p);
}

/* One field (key k, value v of vn bytes, trimmed) of line `line` into r; *has_now and
 * *has_state say whether the reading and its state were seen. */
static gp_status dcmi_field(int k, const char *v, size_t vn, const char *origin, int line,
                            gp_dcmi_reading *r, bool *has_now, bool *has_state, gp_err *err) {
    double w;
    switch (k) {
    case K_NOW:
    case K_MIN:
    case K_MAX:
    case K_AVG:
        if (!watts(v, vn, &w))
            return fail(err, origin, line, "not a reading in watts:", v, vn);
        if (k == K_NOW)
            r->watts = w, *has_now = true;
        else if (k == K_MIN)
            r->min_w = w, r->has_min = true;
        else if (k == K_MAX)
            r->max_w = w, r->has_max = true;
        else
            r->avg_w = w, r->has_avg = true;
        break;
    case K_STAMP:
        snprintf(r->bmc_text, sizeof r->bmc_text, "%.*s",
                 (int)(vn < sizeof r->bmc_text - 1 ? vn : sizeof r->bmc_text - 1), v);
        r->bmc_ms = stamp_ms(r->bmc_text);
        break;
    case K_PERIOD:
        r->period_ms = period_ms(v, vn);
        break;
    case K_STATE:
        if ((vn == 9 && !strncasecmp(v, "activated", 9)) ||
            (vn == 6 && !strncasecmp(v, "active", 6)))
            r->active = true;
        else if (!((vn == 11 && !strncasecmp(v, "deactivated", 11)) ||
                   (vn == 8 && !strncasecmp(v, "inactive", 8))))
            return fail(err, origin, line,
                        "power reading state is neither activated nor "
                        "deactivated:",
                        v, vn);
        *has_state = true;
        break;
    default:
        break; /* a line of another command, or a tool's banner */
    }
    return GP_OK;
}

gp_status gp_dcmi_parse(const char *buf, size_t len, const char *origin, gp_dcmi_reading *r,
                        gp_err *err) {
    memset(r, 0, sizeof *r);
    r->period_ms = -1;
    bool has_now = false, has_state = false;
    const char *p = buf, *end = buf + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) /* saved by a Windows editor */
        p += 3;
    int line = 0;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *text = p;
        size_t n = (size_t)((eol ? eol : end) - p);
        p = eol ? eol + 1 : end;
        if (memchr(text, '\0', n))
            return fail(err, origin, line, "a NUL byte in", "", 0);
        /* ipmitool 1.8.19 prints no newline after the timestamp: the sampling period runs on
         * in the same line, so a line may hold two fields. */
        while (n) {
            const char *colon = memchr(text, ':', n);
            if (!colon)
                break;
            int k = key_of(text, (size_t)(colon - text));
            const char *v = colon + 1;
            size_t vn = n - (size_t)(v - text);
            const char *next = NULL;
            if (k == K_STAMP) {
                for (const char *q = v; q + 15 <= v + vn; q++)
                    if (!strncasecmp(q, "Sampling period", 15)) {
                        next = q;
                        break;
                    }
            }
            size_t rest = next ? (size_t)(v + vn - next) : 0;
            if (next)
                vn = (size_t)(next - v);
            trim(&v, &vn);
            gp_status st = dcmi_field(k, v, vn, origin, line, r, &has_now, &has_state, err);
            if (st)
                return st;
            text = next;
            n = rest;
        }
    }
    if (!has_now)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "not `ipmitool dcmi power reading` output: no \"Instantaneous power "
                         "reading\" line");
    if (!has_state)
        return gp_errorf(err, GP_E_INPUT, origin,
                         "no \"Power reading state is\" line: whether the reading is live cannot "
                         "be told");
    return GP_OK;
}
