/* The throughput CSV (throughput.h). */
#include "gpuplan/throughput.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "gpuplan/parse.h"
#include "gpuplan/xmem.h"

const char *gp_tp_kind_name(gp_tp_kind k) {
    return k == GP_TP_MEASURED ? "measured" : k == GP_TP_PUBLISHED ? "published" : "estimate";
}

enum { C_GPU, C_PROFILE, C_VALUE, C_UNIT, C_SOURCE, C_DATE, C_N };
static const char *const columns[C_N] = {"gpu", "profile", "value", "unit", "source", "date"};

#define MAX_SEEN 4096

typedef struct reader {
    const char *origin;
    int col[C_N];
    bool header_seen;
    gp_status (*fn)(const gp_throughput *, void *, gp_err *);
    void *arg;
    int n_seen;
    char (*seen)[GP_GPU_NAME_BYTES + GP_PROFILE_BYTES];
} reader;

/* Field c of r copied into out (cap bytes): false when absent, empty or too long. */
static bool field(const reader *rd, const gp_csv_record *r, int c, char *out, size_t cap) {
    return gp_csv_field_copy(r, rd->col[c], out, cap);
}

static gp_status bad(const reader *rd, const gp_csv_record *r, gp_err *err, const char *what) {
    char where[600];
    snprintf(where, sizeof where, "%s:%d", rd->origin, r->line);
    return gp_errorf(err, GP_E_INPUT, where, "%s", what);
}

static gp_status header(reader *rd, const gp_csv_record *r, gp_err *err) {
    rd->header_seen = true;
    return gp_csv_require_columns(r, rd->origin, columns, C_N, 1ull << C_DATE, rd->col, err);
}

static gp_status row(const gp_csv_record *r, void *arg, gp_err *err) {
    reader *rd = arg;
    if (!rd->header_seen)
        return header(rd, r, err);
    gp_throughput t = {.kind = GP_TP_MEASURED, .line = r->line};
    char raw[GP_GPU_NAME_BYTES], value[64];
    if (!field(rd, r, C_GPU, raw, sizeof raw))
        return bad(rd, r, err, "gpu: empty or too long");
    gp_gpu_normalize(raw, 0, t.gpu, sizeof t.gpu);
    if (!t.gpu[0])
        return bad(rd, r, err, "gpu: not a GPU name");
    if (!field(rd, r, C_PROFILE, t.profile, sizeof t.profile))
        return bad(rd, r, err, "profile: empty or too long");
    if (!field(rd, r, C_VALUE, value, sizeof value) || !gp_parse_double(value, &t.value) ||
        !(t.value > 0) || !isfinite(t.value))
        return bad(rd, r, err, "value: not a number above 0");
    if (!field(rd, r, C_UNIT, t.unit, sizeof t.unit))
        return bad(rd, r, err, "unit: empty or too long");
    if (!field(rd, r, C_SOURCE, t.source, sizeof t.source))
        return bad(rd, r, err, "source: empty or too long (say where the figure comes from)");
    if (rd->col[C_DATE] >= 0 && rd->col[C_DATE] < r->n && r->len[rd->col[C_DATE]] > 0 &&
        (!field(rd, r, C_DATE, t.as_of, sizeof t.as_of) || !gp_valid_date(t.as_of)))
        return bad(rd, r, err, "date: not a date YYYY-MM-DD");
    char key[GP_GPU_NAME_BYTES + GP_PROFILE_BYTES];
    snprintf(key, sizeof key, "%s\x1f%s", t.gpu, t.profile);
    for (int i = 0; i < rd->n_seen; i++)
        if (strcmp(rd->seen[i], key) == 0)
            return bad(rd, r, err, "this gpu and profile are given twice");
    if (rd->n_seen == MAX_SEEN)
        return bad(rd, r, err, "more than 4096 figures in one file");
    memcpy(rd->seen[rd->n_seen++], key, sizeof key);
    return rd->fn(&t, rd->arg, err);
}

gp_status gp_throughput_csv_parse(const char *buf, size_t len, const char *origin,
                                  gp_status (*fn)(const gp_throughput *, void *, gp_err *),
                                  void *arg, gp_err *err) {
    reader rd = {.origin = origin, .fn = fn, .arg = arg};
    rd.seen = gp_xmalloc(MAX_SEEN * sizeof *rd.seen);
    gp_status st = gp_csv_read(buf, len, origin, row, &rd, err);
    free(rd.seen);
    if (st == GP_OK && !rd.header_seen)
        return gp_errorf(err, GP_E_INPUT, origin, "empty: no header");
    return st;
}
