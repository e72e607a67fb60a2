#include "gpuplan/csv.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/xmem.h"

static gp_status csv_fail(gp_err *err, const char *origin, int line, const char *msg) {
    char where[256];
    snprintf(where, sizeof where, "%s:%d", origin, line);
    return gp_errorf(err, GP_E_INPUT, where, "%s", msg);
}

/* Where a read stands: the input left, the current line, and the scratch area fields are
 * unescaped into (used of cap bytes; text past cap is dropped and the record refused). */
typedef struct csv_cursor {
    const char *p, *end;
    int line;
    char *scratch;
    size_t cap, used;
} csv_cursor;

/* A quoted field, after its opening quote: "" is a quote, newlines are kept. */
static gp_status csv_quoted(csv_cursor *c, const char *origin, int rec_line, gp_err *err) {
    for (;;) {
        if (c->p >= c->end)
            return csv_fail(err, origin, rec_line, "unterminated quoted field");
        if (*c->p == '"') {
            if (c->p + 1 < c->end && c->p[1] == '"') {
                c->p += 2;
                if (c->used < c->cap)
                    c->scratch[c->used++] = '"';
                continue;
            }
            c->p++;
            break;
        }
        if (*c->p == '\n')
            c->line++;
        if (c->used < c->cap)
            c->scratch[c->used++] = *c->p;
        c->p++;
    }
    if (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r')
        return csv_fail(err, origin, c->line, "text after a closing quote");
    return GP_OK;
}

/* An unquoted field: up to a comma or the line's end; a quote in it is an error. */
static gp_status csv_plain(csv_cursor *c, const char *origin, gp_err *err) {
    while (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
        if (*c->p == '"')
            return csv_fail(err, origin, c->line, "a quote inside an unquoted field");
        if (c->used < c->cap)
            c->scratch[c->used++] = *c->p;
        c->p++;
    }
    return GP_OK;
}

gp_status gp_csv_read(const char *buf, size_t len, const char *origin,
                      gp_status (*fn)(const gp_csv_record *rec, void *arg, gp_err *err), void *arg,
                      gp_err *err) {
    csv_cursor c = {buf, buf + len, 1, NULL, 0, 0};
    if (len >= 3 && memcmp(c.p, "\xEF\xBB\xBF", 3) == 0)
        c.p += 3;
    /* Field text is unescaped into scratch; offsets are fixed up into pointers per record. */
    /* A record is never longer than the input: small inputs get small scratch. */
    c.cap = len < GP_CSV_MAX_RECORD ? len + GP_CSV_MAX_FIELDS : GP_CSV_MAX_RECORD;
    c.scratch = gp_xmalloc(c.cap + 1);
    size_t offs[GP_CSV_MAX_FIELDS];
    gp_csv_record rec;
    gp_status st = GP_OK;
    while (c.p < c.end && st == GP_OK) {
        if (*c.p == '\n' || (*c.p == '\r' && c.p + 1 < c.end && c.p[1] == '\n')) { /* blank line */
            c.p += *c.p == '\r' ? 2 : 1;
            c.line++;
            continue;
        }
        rec.line = c.line;
        rec.n = 0;
        c.used = 0;
        bool done = false;
        while (!done) {
            if (rec.n == GP_CSV_MAX_FIELDS) {
                st = csv_fail(err, origin, rec.line, "more than 128 fields in a record");
                break;
            }
            offs[rec.n] = c.used;
            size_t start = c.used;
            if (c.p < c.end && *c.p == '"') {
                c.p++;
                st = csv_quoted(&c, origin, rec.line, err);
            } else {
                st = csv_plain(&c, origin, err);
            }
            if (st != GP_OK)
                break;
            if (c.used >= c.cap) {
                st = csv_fail(err, origin, rec.line, "record longer than 1 MiB");
                break;
            }
            rec.len[rec.n] = c.used - start;
            c.scratch[c.used++] = '\0';
            rec.n++;
            if (c.p < c.end && *c.p == ',') {
                c.p++;
                continue;
            }
            if (c.p < c.end && *c.p == '\r')
                c.p++;
            if (c.p < c.end && *c.p == '\n')
                c.p++;
            c.line++;
            done = true;
        }
        if (st != GP_OK)
            break;
        for (int i = 0; i < rec.n; i++)
            rec.field[i] = c.scratch + offs[i];
        st = fn(&rec, arg, err);
    }
    free(c.scratch);
    return st;
}

bool gp_csv_field_copy(const gp_csv_record *r, int i, char *out, size_t cap) {
    if (i < 0 || i >= r->n || r->len[i] == 0 || r->len[i] >= cap ||
        memchr(r->field[i], 0, r->len[i]))
        return false;
    memcpy(out, r->field[i], r->len[i]);
    out[r->len[i]] = '\0';
    return true;
}

int gp_csv_column(const gp_csv_record *header, const char *name) {
    for (int i = 0; i < header->n; i++) {
        const char *f = header->field[i];
        while (*f == ' ')
            f++; /* mlco2's " TFLOPS16" */
        if (strcmp(f, name) == 0)
            return i;
    }
    return -1;
}

/* ", "-joined names[i] whose optional bit is want, appended to out (cap bytes). */
static void names_joined(char *out, size_t cap, const char *const *names, int n,
                         unsigned long long optional, bool want) {
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (((optional >> i) & 1u) != want)
            continue;
        size_t at = strlen(out);
        snprintf(out + at, cap - at, "%s%s", first ? "" : ", ", names[i]);
        first = false;
    }
}

gp_status gp_csv_require_columns(const gp_csv_record *header, const char *origin,
                                 const char *const *names, int n, unsigned long long optional,
                                 int *col, gp_err *err) {
    int missing = -1;
    for (int i = 0; i < n; i++) {
        col[i] = gp_csv_column(header, names[i]);
        if (col[i] < 0 && !((optional >> i) & 1u) && missing < 0)
            missing = i;
    }
    if (missing < 0)
        return GP_OK;
    char needs[512] = "";
    names_joined(needs, sizeof needs, names, n, optional, false);
    if (optional & (n >= 64 ? ~0ull : (1ull << n) - 1)) {
        size_t at = strlen(needs);
        snprintf(needs + at, sizeof needs - at, " (and optionally ");
        names_joined(needs, sizeof needs, names, n, optional, true);
        at = strlen(needs);
        snprintf(needs + at, sizeof needs - at, ")");
    }
    char where[600];
    snprintf(where, sizeof where, "%s:%d", origin, header->line);
    return gp_errorf(err, GP_E_INPUT, where, "no \"%s\" column: the header needs %s",
                     names[missing], needs);
}
