/* The fleet's state as a table and as JSON (report_fleet.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpuplan/report_fleet.h"

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

/* Outside text without control characters, cut to fit. */
static void safe(char *dst, size_t cap, const char *src) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && n + 1 < cap; p++)
        dst[n++] = (*p < 0x20 || *p == 0x7f) ? '?' : (char)*p;
    dst[n] = '\0';
}

static void local_time(int64_t ms, char *out, size_t cap) {
    if (ms <= 0) {
        snprintf(out, cap, "never");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

gp_status gp_report_fleet_json(const gp_fleet_state *f, gp_buf *out) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < f->n; i++) {
        const gp_fleet_row *g = &f->rows[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "node", g->node);
        cJSON_AddStringToObject(j, "host", g->host);
        cJSON_AddNumberToObject(j, "index", g->index);
        cJSON_AddStringToObject(j, "uuid", g->uuid);
        cJSON_AddStringToObject(j, "model", g->model);
        cJSON_AddStringToObject(j, "display", g->display);
        cJSON_AddStringToObject(j, "raw_model", g->raw_model);
        if (g->mig[0])
            cJSON_AddStringToObject(j, "mig", g->mig);
        for (int m = 0; m < GP_M_COUNT; m++)
            if (g->has[m])
                cJSON_AddNumberToObject(j, gp_metric_name((gp_metric)m), g->value[m]);
        cJSON_AddNumberToObject(j, "last_seen_ms", (double)g->last_seen_ms);
        cJSON_AddNumberToObject(j, "age_s", (double)((f->now_ms - g->last_seen_ms) / 1000));
        cJSON_AddBoolToObject(j, "stale", g->stale);
        cJSON *a = cJSON_AddArrayToObject(j, "alerts");
        char copy[160];
        snprintf(copy, sizeof copy, "%s", g->alerts);
        for (char *tok = copy, *sp; tok && *tok; tok = sp ? sp + 1 : NULL) {
            sp = strchr(tok, ' ');
            if (sp)
                *sp = '\0';
            cJSON_AddItemToArray(a, cJSON_CreateString(tok));
        }
        cJSON_AddItemToArray(arr, j);
    }
    char *text = cJSON_Print(arr);
    cJSON_Delete(arr);
    gp_status st = GP_OK;
    P("%s\n", text ? text : "[]");
    free(text);
    return st;
}

static gp_status row_text(const gp_fleet_state *f, const gp_fleet_row *g, gp_buf *out) {
    gp_status st = GP_OK;
    char node[32], host[32], model[GP_GPU_NAME_BYTES], seen[32], mem[24], util[12], power[12],
        temp[12];
    safe(node, sizeof node, g->node);
    safe(host, sizeof host, g->host);
    safe(model, sizeof model, g->display[0] ? g->display : "?");
    local_time(g->last_seen_ms, seen, sizeof seen);
    snprintf(util, sizeof util, g->has[GP_M_GPU_UTIL] ? "%.0f" : "-", g->value[GP_M_GPU_UTIL]);
    snprintf(power, sizeof power, g->has[GP_M_POWER_W] ? "%.1f" : "-", g->value[GP_M_POWER_W]);
    snprintf(temp, sizeof temp, g->has[GP_M_TEMP_C] ? "%.0f C" : "-", g->value[GP_M_TEMP_C]);
    if (g->has[GP_M_MEM_USED_MIB])
        snprintf(mem, sizeof mem, "%.0f/%.0f", g->value[GP_M_MEM_USED_MIB],
                 g->has[GP_M_MEM_TOTAL_MIB] ? g->value[GP_M_MEM_TOTAL_MIB] : NAN);
    else
        snprintf(mem, sizeof mem, "-");
    char idx[16], stale[32] = "";
    snprintf(idx, sizeof idx, "%d%s", g->index, g->mig[0] ? "*" : "");
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
    if (!f->n)
        P("no GPUs seen yet: add nodes (gpuplan node add) and collect, or import a capture\n");
    else if (f->stale)
        P("%zu GPU%s, %d with alerts, %d stale (not seen for 15 min or more: their last values) "
          "(* a MIG instance)\n",
          f->n, f->n == 1 ? "" : "s", f->with_alerts, f->stale);
    else
        P("%zu GPU%s, %d with alerts (* a MIG instance)\n", f->n, f->n == 1 ? "" : "s",
          f->with_alerts);
    for (size_t i = 0; i < f->nw; i++) {
        char n[64], t[32];
        safe(n, sizeof n, f->walls[i].node);
        local_time(f->walls[i].at_ms, t, sizeof t);
        P("  %s: %.1f W at the wall (%s)\n", n, f->walls[i].watts, t);
    }
    return st;
}
