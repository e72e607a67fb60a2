/* A strict RFC 4180 CSV reader over a buffer: quoted fields with "" escapes, CRLF or LF,
 * a UTF-8 byte-order mark skipped. No I/O: bytes in, one callback per record.
 *
 * Fields are handed to the callback as pointers into a reader-owned scratch buffer, valid for
 * the call only. Errors (an unterminated quote, a quote inside an unquoted field, a record
 * over the caps) fill err with "origin:line" and stop the read. */
#ifndef GPUPLAN_CSV_H
#define GPUPLAN_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/error.h"

#define GP_CSV_MAX_FIELDS 128
#define GP_CSV_MAX_RECORD (1u << 20)

typedef struct gp_csv_record {
    int line; /* the line the record starts on, 1-based */
    int n;    /* number of fields */
    const char *field[GP_CSV_MAX_FIELDS];
    size_t len[GP_CSV_MAX_FIELDS];
} gp_csv_record;

/* Call fn for every record of buf[0..len), the header included. A non-zero return from fn
 * stops the read and is returned as the status (fn fills err itself). Blank lines are
 * skipped. */
gp_status gp_csv_read(const char *buf, size_t len, const char *origin,
                      gp_status (*fn)(const gp_csv_record *rec, void *arg, gp_err *err), void *arg,
                      gp_err *err);

/* Index of the column named `name` in a header record, or -1. */
int gp_csv_column(const gp_csv_record *header, const char *name);
/* Field i of r copied into out (cap bytes) as a C string: false when i is not a field of r
 * (a column the header lacks: i < 0), or the field is empty, too long or holds a NUL. */
bool gp_csv_field_copy(const gp_csv_record *r, int i, char *out, size_t cap);

/* The columns names[0..n) (n <= 64) by name in header, their indices into col[0..n) (-1 for
 * one absent); bit i of optional set: names[i] may be absent. A required column absent:
 * GP_E_INPUT at "origin:LINE" (the header's), 'no "NAME" column: the header needs A, B, C (and
 * optionally D)', the required names and then the optional ones in the order given. */
gp_status gp_csv_require_columns(const gp_csv_record *header, const char *origin,
                                 const char *const *names, int n, unsigned long long optional,
                                 int *col, gp_err *err);

#endif
