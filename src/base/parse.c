/* Strict number and date parsing (gpuplan/parse.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <time.h>

#include "gpuplan/parse.h"

bool gp_parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < INT_MIN || v > INT_MAX)
        return false;
    *out = (int)v;
    return true;
}

bool gp_parse_double(const char *s, double *out) {
    /* strtod also takes hex floats, "nan(...)" and "inf": none of them is a price. */
    for (const char *p = s; *p; p++)
        if (*p == 'x' || *p == 'X' || *p == 'n' || *p == 'N' || *p == 'i' || *p == 'I')
            return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool gp_parse_share(const char *s, double *out) {
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    bool pct = false;
    while (n && buf[n - 1] == ' ')
        buf[--n] = '\0';
    if (n && buf[n - 1] == '%') {
        pct = true;
        buf[--n] = '\0';
        while (n && buf[n - 1] == ' ')
            buf[--n] = '\0';
    }
    double v;
    if (!gp_parse_double(buf, &v) || v < 0)
        return false;
    *out = pct ? v / 100.0 : v;
    return true;
}

bool gp_valid_date(const char *s) {
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[5] - '0') * 10 + (s[6] - '0');
    int d = (s[8] - '0') * 10 + (s[9] - '0');
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= days[m - 1] + (m == 2 && leap);
}

bool gp_date_days(const char *s, long *days) {
    if (!s || !gp_valid_date(s))
        return false;
    long y = atol(s), m = atol(s + 5), d = atol(s + 8);
    y -= m <= 2; /* the proleptic Gregorian day count, years from March */
    long era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    *days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    return true;
}

void gp_today(char *out) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

/* Levenshtein distance, case-insensitive, capped at 64 characters of each (names are short;
 * past that, nothing is "near" anyway). */
static int edit_distance(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    if (na > 64)
        na = 64;
    if (nb > 64)
        nb = 64;
    int row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diag + !same;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

int gp_nearest_name(const char *want, const char *const *names, int n) {
    int best = -1, best_d = 0;
    int limit = (int)strlen(want) / 3;
    if (limit < 2)
        limit = 2;
    for (int i = 0; i < n; i++) {
        int d = edit_distance(want, names[i]);
        if (d <= limit && (best < 0 || d < best_d))
            best = i, best_d = d;
    }
    return best;
}
