/* The fleet's state as a table and as JSON (report_fleet.h). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/report_fleet.h"
#include "gpuplan/text.h"
#include "gpuplan/clock.h"

#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

void gp_format_age(int64_t ms, char *out, size_t cap) {
    int64_t s = ms < 0 ? 0 : ms / 1000;
    if (s < 60)
        snprintf(out, cap, "%lld s", (long long)s);
    else if (s < 3600)
        snprintf(out, cap, "%lld min", (long long)(s / 60));
    else if (s < 2 * 86400)
        snprintf(out, cap, "%lld h", (long long)(s / 3600));
    else
        snprintf(out, cap, "%lld d", (long long)(s / 86400));
}

/* Outside text with each control character shown as '?', cut to fit. */
static void safe(char *dst, size_t cap, const char *src) {
    gp_text_clean_with(src, dst, cap, &(gp_text_rules){.mark = "?"});
}

/* The JSON is written directly, byte for byte as cJSON_Print formatted it before (cJSON 1.7:
 * objects one member a line, indented with tabs, arrays on one line), without building a
 * tree of 200,000 items for 10,000 GPUs (tests/unit/test_report.c compares the two). */

/* The output and its first failure (the output's size limit): nothing is added after it. */
typedef struct jw {
    gp_buf *out;
    gp_status st;
} jw;

static void put(jw *w, const char *s, size_t n) {
    if (w->st == GP_OK)
        w->st = gp_buf_add(w->out, s, n);
}

/* cJSON's print_string_ptr: ", \ and the control characters escaped, the rest as is. */
static void json_string(jw *w, const char *s) {
    char tmp[1024];
    size_t n = 0;
    tmp[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (n + 8 > sizeof tmp) {
            put(w, tmp, n);
            n = 0;
        }
        unsigned char c = *p;
        if (c >= 32 && c != '"' && c != '\\') {
            tmp[n++] = (char)c;
            continue;
        }
        tmp[n++] = '\\';
        switch (c) {
        case '"':
        case '\\':
            tmp[n++] = (char)c;
            break;
        case '\b':
            tmp[n++] = 'b';
            break;
        case '\f':
            tmp[n++] = 'f';
            break;
        case '\n':
            tmp[n++] = 'n';
            break;
        case '\r':
            tmp[n++] = 'r';
            break;
        case '\t':
            tmp[n++] = 't';
            break;
        default:
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "u%04x", c);
        }
    }
    tmp[n++] = '"';
    put(w, tmp, n);
}

/* cJSON's print_number (Debian 12's 1.7.15): null for NaN and infinities, else %1.15g when
 * that reads back within DBL_EPSILON, else %1.17g (so -0 stays "-0"). */
static void json_number(jw *w, double d) {
    char b[32];
    int n;
    if (isnan(d) || isinf(d)) {
        n = snprintf(b, sizeof b, "null");
    } else {
        n = snprintf(b, sizeof b, "%1.15g", d);
        double back = strtod(b, NULL);
        double most = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
        if (!(fabs(back - d) <= most * DBL_EPSILON))
            n = snprintf(b, sizeof b, "%1.17g", d);
    }
    put(w, b, (size_t)n);
}

/* A member of a GPU's object: two tabs, the key, a colon and a tab. */
static void json_key(jw *w, const char *key) {
    put(w, "\t\t", 2);
    json_string(w, key);
    put(w, ":\t", 2);
}

/* "\t\tkey:\tvalue,\n": a string or a number member, not the last. */
static void member_string(jw *w, const char *key, const char *v) {
    json_key(w, key);
    json_string(w, v);
    put(w, ",\n", 2);
}

static void member_number(jw *w, const char *key, double v) {
    json_key(w, key);
    json_number(w, v);
    put(w, ",\n", 2);
}

gp_status gp_report_fleet_json(const gp_fleet_state *f, gp_buf *out) {
    jw wr = {out, GP_OK}, *w = &wr;
    put(w, "[", 1);
    for (size_t i = 0; i < f->n; i++) {
        const gp_fleet_row *g = &f->rows[i];
        put(w, i ? ", {\n" : "{\n", i ? 4 : 2);
        member_string(w, "node", g->node);
        member_string(w, "host", g->host);
        member_number(w, "index", g->index);
        member_string(w, "uuid", g->uuid);
        member_string(w, "model", g->model);
        member_string(w, "display", g->display);
        member_string(w, "raw_model", g->raw_model);
        if (g->mig[0])
            member_string(w, "mig", g->mig);
        for (int m = 0; m < GP_M_COUNT; m++)
            if (g->has[m])
                member_number(w, gp_metric_name((gp_metric)m), g->value[m]);
        member_number(w, "last_seen_ms", (double)g->last_seen_ms);
        member_number(w, "age_s", (double)((f->now_ms - g->last_seen_ms) / 1000));
        json_key(w, "stale");
        put(w, g->stale ? "true,\n" : "false,\n", g->stale ? 6 : 7);
        json_key(w, "alerts");
        put(w, "[", 1);
        char copy[160];
        snprintf(copy, sizeof copy, "%s", g->alerts);
        bool first = true;
        for (char *tok = copy, *sp; tok && *tok; tok = sp ? sp + 1 : NULL) {
            sp = strchr(tok, ' ');
            if (sp)
                *sp = '\0';
            if (!first)
                put(w, ", ", 2);
            json_string(w, tok);
            first = false;
        }
        put(w, "]\n\t}", 4);
    }
    put(w, "]\n", 2);
    return w->st;
}

static gp_status row_text(const gp_fleet_state *f, const gp_fleet_row *g, gp_buf *out) {
    gp_status st = GP_OK;
    char node[32], host[32], model[GP_GPU_NAME_BYTES], seen[32], mem[24], util[12], power[12],
        temp[12];
    safe(node, sizeof node, g->node);
    safe(host, sizeof host, g->host);
    safe(model, sizeof model, g->display[0] ? g->display : "?");
    gp_fmt_local_time(g->last_seen_ms, seen, sizeof seen);
    snprintf(util, sizeof util, g->has[GP_M_GPU_UTIL] ? "%.0f" : "-", g->value[GP_M_GPU_UTIL]);
    snprintf(power, sizeof power, g->has[GP_M_POWER_W] ? "%.1f" : "-", g->value[GP_M_POWER_W]);
    snprintf(temp, sizeof temp, g->has[GP_M_TEMP_C] ? "%.0f C" : "-", g->value[GP_M_TEMP_C]);
    if (g->has[GP_M_MEM_USED_MIB] && g->has[GP_M_MEM_TOTAL_MIB])
        snprintf(mem, sizeof mem, "%.0f/%.0f", g->value[GP_M_MEM_USED_MIB],
                 g->value[GP_M_MEM_TOTAL_MIB]);
    else if (g->has[GP_M_MEM_USED_MIB]) /* dmon's fb: no total */
        snprintf(mem, sizeof mem, "%.0f/-", g->value[GP_M_MEM_USED_MIB]);
    else
        snprintf(mem, sizeof mem, "-");
    char idx[16], stale[32] = "";
    if (g->index >= 0) /* a source that names GPUs by UUID alone has no index: "-" */
        snprintf(idx, sizeof idx, "%d%s", g->index, g->mig[0] ? "*" : "");
    else
        snprintf(idx, sizeof idx, "-%s", g->mig[0] ? "*" : "");
    if (g->stale) {
        char age[24];
        gp_format_age(f->now_ms - g->last_seen_ms, age, sizeof age);
        snprintf(stale, sizeof stale, "stale %s%s", age, g->alerts[0] ? " " : "");
    }
    return P("%-16.16s %-22.22s %3s %-14.14s %6s %11s %8s %6s  %-19s %s%s\n", node, host, idx,
             model, util, mem, power, temp, seen, stale, g->alerts);
}

gp_status gp_report_fleet_text(const gp_fleet_state *f, gp_buf *out) {
    gp_status st = GP_OK;
    if (f->n)
        P("%-16s %-22s %3s %-14s %6s %11s %8s %6s  %-19s %s\n", "NODE", "HOST", "GPU", "MODEL",
          "UTIL%", "MEM MiB", "POWER W", "TEMP", "LAST SEEN", "ALERTS");
    for (size_t i = 0; i < f->n && !st; i++)
        st = row_text(f, &f->rows[i], out);
    /* Physical GPUs and MIG instances apart: an instance is a slice of a GPU, not a GPU. */
    size_t mig = 0;
    for (size_t i = 0; i < f->n; i++)
        mig += f->rows[i].mig[0] != '\0';
    char count[96];
    if (mig)
        snprintf(count, sizeof count, "%zu GPU%s and %zu MIG instance%s", f->n - mig,
                 f->n - mig == 1 ? "" : "s", mig, mig == 1 ? "" : "s");
    else
        snprintf(count, sizeof count, "%zu GPU%s", f->n, f->n == 1 ? "" : "s");
    if (!f->n)
        P("no GPUs seen yet: add nodes (gpuplan node add) and collect, or import a capture\n");
    else if (f->stale)
        P("%s, %d with alerts, %d stale (not seen for 15 min or more: their last values)%s\n",
          count, f->with_alerts, f->stale, mig ? " (* a MIG instance)" : "");
    else
        P("%s, %d with alerts%s\n", count, f->with_alerts, mig ? " (* a MIG instance)" : "");
    for (size_t i = 0; i < f->nw; i++) {
        char n[64], t[32];
        safe(n, sizeof n, f->walls[i].node);
        gp_fmt_local_time(f->walls[i].at_ms, t, sizeof t);
        P("  %s: %.1f W at the wall (%s)\n", n, f->walls[i].watts, t);
    }
    return st;
}
