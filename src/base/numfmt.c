/* Display rounding for Markdown, CSV and the TUI (numfmt.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/numfmt.h"

/* "-0", "-0.00": a rounded zero reads as a sign error, so its minus goes. */
static void drop_negative_zero(char *s) {
    if (s[0] != '-')
        return;
    if (strspn(s + 1, "0.") == strlen(s + 1))
        memmove(s, s + 1, strlen(s));
}

char *gp_fmt_fixed(double v, int decimals, char *out, size_t cap) {
    if (!isfinite(v)) {
        snprintf(out, cap, "%g", v);
        return out;
    }
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    drop_negative_zero(buf);
    snprintf(out, cap, "%s", buf);
    return out;
}

/* v to the cent as "%.2f" prints it, in integer arithmetic, into out (32 bytes or more);
 * false where v * 100, rounded once here, might round the other way (within 0.01 of a half
 * cent) or is too large for that error to stay below 0.002: then printf decides. */
static bool cents_fast(double v, char *out) {
    double a = fabs(v);
    if (!(a < 1e11))
        return false;
    double p = a * 100.0, f = floor(p), frac = p - f;
    if (fabs(frac - 0.5) < 0.01)
        return false;
    long long c = (long long)f + (frac > 0.5);
    bool minus = v < 0 && c != 0; /* no "-0.00" */
    char tmp[32];
    int n = 0;
    tmp[n++] = (char)('0' + c % 10);
    tmp[n++] = (char)('0' + c / 10 % 10);
    tmp[n++] = '.';
    c /= 100;
    do {
        tmp[n++] = (char)('0' + c % 10);
        c /= 10;
    } while (c);
    if (minus)
        tmp[n++] = '-';
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
    return true;
}

char *gp_fmt_cents(double v, char *out, size_t cap) {
    char buf[32];
    if (cap < sizeof buf || !cents_fast(v, buf))
        return gp_fmt_fixed(v, 2, out, cap);
    memcpy(out, buf, strlen(buf) + 1);
    return out;
}

char *gp_fmt_money(double v, char *out, size_t cap) {
    return gp_fmt_grouped(v, 2, out, cap);
}

char *gp_fmt_grouped(double v, int decimals, char *out, size_t cap) {
    if (!isfinite(v)) {
        snprintf(out, cap, "%g", v);
        return out;
    }
    char digits[400];
    gp_fmt_fixed(fabs(v), decimals, digits, sizeof digits);
    char *dot = strchr(digits, '.');
    size_t int_len = dot ? (size_t)(dot - digits) : strlen(digits);
    char tmp[600];
    size_t n = 0;
    if (v < 0 && strspn(digits, "0.") != strlen(digits)) /* no "-0.00" */
        tmp[n++] = '-';
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            tmp[n++] = ',';
        tmp[n++] = digits[i];
    }
    snprintf(tmp + n, sizeof tmp - n, "%s", dot ? dot : "");
    snprintf(out, cap, "%s", tmp);
    return out;
}

char *gp_fmt_sig(double v, int digits, char *out, size_t cap) {
    if (!isfinite(v)) {
        snprintf(out, cap, "%g", v);
        return out;
    }
    if (digits < 1)
        digits = 1;
    if (digits > 15)
        digits = 15;
    if (v == 0) {
        snprintf(out, cap, "0");
        return out;
    }
    /* The exponent after rounding to `digits` (9.99995 -> 1.000e+01), so the decimals count
     * from the rounded value. */
    char e[64];
    snprintf(e, sizeof e, "%.*e", digits - 1, v);
    const char *x = strchr(e, 'e');
    int exp10 = x ? (int)strtol(x + 1, NULL, 10) : 0;
    int decimals = digits - 1 - exp10;
    /* Display rounding, not notation: below 1e-15 a figure reads as 0. */
    if (decimals < 0)
        decimals = 0;
    if (decimals > 15)
        decimals = 15;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    if (strchr(buf, '.')) {
        size_t n = strlen(buf);
        while (n > 0 && buf[n - 1] == '0')
            buf[--n] = '\0';
        if (n > 0 && buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    drop_negative_zero(buf);
    snprintf(out, cap, "%s", buf);
    return out;
}

char *gp_fmt_sig_grouped(double v, int digits, char *out, size_t cap) {
    char plain[400];
    gp_fmt_sig(v, digits, plain, sizeof plain);
    const char *p = plain;
    char tmp[600];
    size_t n = 0;
    if (*p == '-')
        tmp[n++] = *p++;
    size_t int_len = strspn(p, "0123456789");
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            tmp[n++] = ',';
        tmp[n++] = p[i];
    }
    snprintf(tmp + n, sizeof tmp - n, "%s", p + int_len);
    snprintf(out, cap, "%s", tmp);
    return out;
}

char *gp_fmt_pct(double share, char *out, size_t cap) {
    return gp_fmt_sig(share * 100.0, 4, out, cap);
}

char *gp_fmt_count(long long n, const char *singular, const char *plural, char *out, size_t cap) {
    snprintf(out, cap, "%lld %s", n, n == 1 ? singular : plural);
    return out;
}
