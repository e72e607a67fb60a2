/* Prometheus text exposition format (version 0.0.4), as dcgm-exporter writes it and as
 * people save it. Cursor helpers move p only on success (docs/development.md, Parsers). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_blanks(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

static bool name_start(char ch) {
    return isalpha((unsigned char)ch) || ch == '_' || ch == ':';
}

static bool name_char(char ch) {
    return isalnum((unsigned char)ch) || ch == '_' || ch == ':';
}

/* A metric or label name into dst (NUL-terminated); false leaves c where it was. */
static bool lex_name(cursor *c, char *dst, size_t cap, bool metric) {
    const char *q = c->p;
    if (q >= c->end || !name_start(*q) || (!metric && *q == ':'))
        return false;
    while (q < c->end && name_char(*q))
        q++;
    size_t n = (size_t)(q - c->p);
    if (n >= cap)
        return false;
    memcpy(dst, c->p, n);
    dst[n] = '\0';
    c->p = q;
    return true;
}

/* A quoted label value with \\ \" \n escapes; dst gets the unescaped text. */
static bool lex_quoted(cursor *c, char *dst, size_t cap) {
    const char *q = c->p;
    if (q >= c->end || *q != '"')
        return false;
    q++;
    size_t n = 0;
    while (q < c->end && *q != '"') {
        char ch = *q++;
        if (ch == '\n')
            return false;
        if (ch == '\\') {
            if (q >= c->end)
                return false;
            char e = *q++;
            ch = e == 'n' ? '\n' : e; /* \\ and \" stand for themselves; others are kept */
        }
        if (n + 1 >= cap)
            return false;
        dst[n++] = ch;
    }
    if (q >= c->end)
        return false;
    dst[n] = '\0';
    c->p = q + 1;
    return true;
}

/* A sample value: a float, NaN, +Inf, -Inf (hex floats and nan(...) refused). */
static bool lex_value(cursor *c, double *out) {
    const char *q = c->p;
    char tmp[64];
    size_t n = 0;
    while (q < c->end && !isspace((unsigned char)*q) && n + 1 < sizeof tmp)
        tmp[n++] = *q++;
    tmp[n] = '\0';
    if (n == 0 || (q < c->end && !isspace((unsigned char)*q)))
        return false;
    if (!strcmp(tmp, "NaN")) {
        *out = NAN;
    } else if (!strcmp(tmp, "+Inf") || !strcmp(tmp, "Inf")) {
        *out = INFINITY;
    } else if (!strcmp(tmp, "-Inf")) {
        *out = -INFINITY;
    } else {
        for (size_t i = 0; i < n; i++)
            if (!(isdigit((unsigned char)tmp[i]) || strchr("+-.eE", tmp[i])))
                return false;
        char *end;
        errno = 0;
        double v = strtod(tmp, &end);
        if (*end || end == tmp)
            return false;
        *out = v; /* overflow gives +-HUGE_VAL: an infinite reading, dropped downstream */
    }
    c->p = q;
    return true;
}

static bool lex_timestamp(cursor *c, int64_t *out) {
    const char *q = c->p;
    bool neg = q < c->end && *q == '-';
    if (neg)
        q++;
    if (q >= c->end || !isdigit((unsigned char)*q))
        return false;
    int64_t v = 0;
    while (q < c->end && isdigit((unsigned char)*q)) {
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (*q - '0');
        q++;
    }
    *out = neg ? -v : v;
    c->p = q;
    return true;
}

typedef struct family_type {
    char name[128];
    char type[16];
} family_type;

/* After "#": "TYPE name type" tells counters from gauges (into *type); other comments are
 * ignored. */
static void lex_type_comment(cursor *c, family_type *type) {
    skip_blanks(c);
    if (c->end - c->p > 5 && !strncmp(c->p, "TYPE", 4) && (c->p[4] == ' ' || c->p[4] == '\t')) {
        c->p += 5;
        skip_blanks(c);
        if (lex_name(c, type->name, sizeof type->name, true)) {
            skip_blanks(c);
            size_t n = (size_t)(c->end - c->p);
            snprintf(type->type, sizeof type->type, "%.*s", (int)(n < 15 ? n : 15), c->p);
        }
    }
}

/* The label set after "{" into s's labels, their names and unescaped values in scratch (cap
 * bytes); false when it is malformed. */
static bool lex_labels(cursor *c, gp_prom_sample *s, char *scratch, size_t cap) {
    size_t used = 0;
    for (;;) {
        skip_blanks(c);
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return true;
        }
        char lname[128];
        char *val = scratch + used;
        size_t room = cap - used;
        if (s->n_labels == GP_PROM_MAX_LABELS || !lex_name(c, lname, sizeof lname, false))
            return false;
        skip_blanks(c);
        if (c->p >= c->end || *c->p != '=')
            return false;
        c->p++;
        skip_blanks(c);
        /* The name goes into scratch too, after the value. */
        if (!lex_quoted(c, val, room))
            return false;
        size_t vlen = strlen(val) + 1;
        char *nm = val + vlen;
        size_t nlen = strlen(lname) + 1;
        if (used + vlen + nlen > cap)
            return false;
        memcpy(nm, lname, nlen);
        used += vlen + nlen;
        s->labels[s->n_labels].name = nm;
        s->labels[s->n_labels].value = val;
        s->n_labels++;
        skip_blanks(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return true;
        }
        return false;
    }
}

gp_status gp_prom_text_parse(const char *buf, size_t len, const char *origin,
                             gp_status (*fn)(const gp_prom_sample *, void *, gp_err *), void *arg,
                             gp_err *err) {
    /* Label text is unescaped into one scratch area per line, as long as the line. */
    char *scratch = gp_xmalloc(len + 2);
    char name[256];
    family_type type = {"", ""};
    gp_prom_sample s;
    const char *p = buf, *end = buf + len;
    int line = 0;
    gp_status st = GP_OK;
    char where[300];
    while (p < end && st == GP_OK) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *stop = eol ? eol : end;
        const char *next = eol ? eol + 1 : end;
        if (stop > p && stop[-1] == '\r')
            stop--;
        cursor c = {p, stop};
        p = next;
        skip_blanks(&c);
        if (c.p == c.end)
            continue;
        if (*c.p == '#') {
            c.p++;
            lex_type_comment(&c, &type);
            continue;
        }
        if (!lex_name(&c, name, sizeof name, true)) {
            snprintf(where, sizeof where, "%s:%d", origin, line);
            st = gp_errorf(err, GP_E_INPUT, where, "expected a metric name");
            break;
        }
        s.name = name;
        s.n_labels = 0;
        s.line = line;
        s.type = strcmp(type.name, name) == 0 ? type.type : "";
        skip_blanks(&c);
        if (c.p < c.end && *c.p == '{') {
            c.p++;
            if (!lex_labels(&c, &s, scratch, len + 2)) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where, "malformed label set");
                break;
            }
        }
        skip_blanks(&c);
        if (!lex_value(&c, &s.value)) {
            snprintf(where, sizeof where, "%s:%d", origin, line);
            st = gp_errorf(err, GP_E_INPUT, where, "expected a sample value");
            break;
        }
        skip_blanks(&c);
        s.has_ts = false;
        if (c.p < c.end) {
            if (!lex_timestamp(&c, &s.ts_ms)) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where, "expected a timestamp or the line's end");
                break;
            }
            s.has_ts = true;
            skip_blanks(&c);
            if (c.p < c.end) {
                snprintf(where, sizeof where, "%s:%d", origin, line);
                st = gp_errorf(err, GP_E_INPUT, where, "text after the timestamp");
                break;
            }
        }
        st = fn(&s, arg, err);
    }
    free(scratch);
    return st;
}
