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

gp_status gp_csv_read(const char *buf, size_t len, const char *origin,
                      gp_status (*fn)(const gp_csv_record *rec, void *arg, gp_err *err), void *arg,
                      gp_err *err) {
    const char *p = buf, *end = buf + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    /* Field text is unescaped into scratch; offsets are fixed up into pointers per record. */
    /* A record is never longer than the input: small inputs get small scratch. */
    size_t scratch_cap = len < GP_CSV_MAX_RECORD ? len + GP_CSV_MAX_FIELDS : GP_CSV_MAX_RECORD;
    char *scratch = gp_xmalloc(scratch_cap + 1);
    size_t offs[GP_CSV_MAX_FIELDS];
    gp_csv_record rec;
    int line = 1;
    gp_status st = GP_OK;
    while (p < end && st == GP_OK) {
        if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) { /* blank line */
            p += *p == '\r' ? 2 : 1;
            line++;
            continue;
        }
        rec.line = line;
        rec.n = 0;
        size_t used = 0;
        bool done = false;
        while (!done) {
            if (rec.n == GP_CSV_MAX_FIELDS) {
                st = csv_fail(err, origin, rec.line, "more than 128 fields in a record");
                break;
            }
            offs[rec.n] = used;
            size_t start = used;
            if (p < end && *p == '"') {
                p++;
                for (;;) {
                    if (p >= end) {
                        st = csv_fail(err, origin, rec.line, "unterminated quoted field");
                        break;
                    }
                    if (*p == '"') {
                        if (p + 1 < end && p[1] == '"') {
                            p += 2;
                            if (used < scratch_cap)
                                scratch[used++] = '"';
                            continue;
                        }
                        p++;
                        break;
                    }
                    if (*p == '\n')
                        line++;
                    if (used < scratch_cap)
                        scratch[used++] = *p;
                    p++;
                }
                if (st != GP_OK)
                    break;
                if (p < end && *p != ',' && *p != '\n' && *p != '\r') {
                    st = csv_fail(err, origin, line, "text after a closing quote");
                    break;
                }
            } else {
                while (p < end && *p != ',' && *p != '\n' && *p != '\r') {
                    if (*p == '"') {
                        st = csv_fail(err, origin, line, "a quote inside an unquoted field");
                        break;
                    }
                    if (used < scratch_cap)
                        scratch[used++] = *p;
                    p++;
                }
                if (st != GP_OK)
                    break;
            }
            if (used >= scratch_cap) {
                st = csv_fail(err, origin, rec.line, "record longer than 1 MiB");
                break;
            }
            rec.len[rec.n] = used - start;
            scratch[used++] = '\0';
            rec.n++;
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == '\r')
                p++;
            if (p < end && *p == '\n')
                p++;
            line++;
            done = true;
        }
        if (st != GP_OK)
            break;
        for (int i = 0; i < rec.n; i++)
            rec.field[i] = scratch + offs[i];
        st = fn(&rec, arg, err);
    }
    free(scratch);
    return st;
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
