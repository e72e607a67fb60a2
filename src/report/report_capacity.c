/* Capacity and mixed-fleet results as text, JSON and CSV (report_capacity.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpuplan/catalog.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/report.h"
#include "gpuplan/report_capacity.h"
#include "gpuplan/scenario.h"
#include "gpuplan/text.h"

/* Append printf-style text unless an earlier append already failed. */
#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

static const double quantiles[] = {0, 0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1};
#define N_QUANTILES (sizeof quantiles / sizeof quantiles[0])

/* The load's ascending copy, for quantiles (the curve is kept descending). */
static double *ascending(const gp_capacity *c) {
    double *asc = gp_xmalloc((c->nl + 1) * sizeof *asc);
    for (size_t i = 0; i < c->nl; i++)
        asc[i] = c->ldc[c->nl - 1 - i];
    return asc;
}

/* What an idle GPU's power costs a month at c's price. */
static double idle_month(const gp_capacity *c, const gp_cap_figures *f) {
    return f->power_mean_w * GP_MONTH_HOURS / 1000 * c->price * c->pue;
}

/* A node's power money: per hour, facility kWh, per useful GPU-hour, on idle capacity. */
typedef struct node_money {
    double per_hour, kwh, per_useful_hour, idle;
    bool has_useful;
} node_money;

static node_money money_of(const gp_capacity *c, const gp_cap_group *n) {
    node_money m;
    m.kwh = n->f.energy_kwh * c->pue;
    double idle_kwh = (n->sum.power_sum - n->sum.busy_power_sum) * 5.0 / 60.0 / 1000.0 * c->pue;
    double busy_h = n->f.busy_share * n->f.hours;
    m.per_hour = n->f.power_mean_w * (double)n->gpus / 1000 * c->price * c->pue;
    m.has_useful = busy_h > 0;
    m.per_useful_hour = busy_h > 0 ? m.kwh * c->price / busy_h : 0;
    m.idle = idle_kwh * c->price;
    return m;
}

/* A label's use: GPU-hours used and facility kWh. */
static void usage_of(const gp_capacity *c, const gp_cap_usage *u, double *gpu_hours, double *kwh) {
    *gpu_hours = u->util_sum / 100.0 * 5.0 / 60.0;
    *kwh = u->power_sum * 5.0 / 60.0 / 1000.0 * c->pue;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* A GPU's name as people read it (gpu_names.c): from the name it reported, else its key. */
static const char *display_of(const char *raw, const char *key, char *out, size_t cap) {
    if (!(raw && raw[0] && gp_gpu_display_name(raw, out, cap)) &&
        !gp_gpu_display_name(key, out, cap))
        snprintf(out, cap, "%s", key);
    return out;
}

/* A group's (fleet, model, node) or a GPU's figures; a GPU row adds its idle cost, and its
 * exact power p95 is added by the caller. */
static cJSON *figures_json(const gp_cap_figures *f, const gp_capacity *c, bool gpu_row) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "hours", f->hours);
    cJSON_AddNumberToObject(j, "util_mean", f->util_mean / 100);
    cJSON_AddNumberToObject(j, "util_p50", f->util_p50 / 100);
    cJSON_AddNumberToObject(j, "util_p95", f->util_p95 / 100);
    cJSON_AddNumberToObject(j, "util_p99", f->util_p99 / 100);
    cJSON_AddNumberToObject(j, "busy_share", f->busy_share);
    cJSON_AddNumberToObject(j, "busy_hours_per_day", f->busy_hours_per_day);
    if (f->has_power) {
        cJSON_AddNumberToObject(j, "power_mean_w", f->power_mean_w);
        cJSON_AddNumberToObject(j, "energy_kwh", f->energy_kwh);
    }
    if (f->has_idle_w)
        cJSON_AddNumberToObject(j, "idle_w", f->idle_w);
    if (f->has_busy_w)
        cJSON_AddNumberToObject(j, "busy_w", f->busy_w);
    if (!gpu_row && f->has_power_p95)
        cJSON_AddNumberToObject(j, "power_p95_w", f->power_p95_w);
    if (gpu_row && c->has_price && f->has_power)
        cJSON_AddNumberToObject(j, "idle_cost_per_month", idle_month(c, f));
    return j;
}

static void groups_json(cJSON *doc, const gp_capacity *c) {
    cJSON *ms = cJSON_AddObjectToObject(doc, "models");
    for (size_t i = 0; i < c->nm; i++) {
        cJSON *j = figures_json(&c->models[i].f, c, false);
        cJSON_AddNumberToObject(j, "gpus", (double)c->models[i].gpus);
        cJSON_AddStringToObject(j, "display", c->models[i].display);
        cJSON_AddItemToObject(ms, c->models[i].key, j);
    }
    cJSON *ns = cJSON_AddObjectToObject(doc, "nodes");
    for (size_t i = 0; i < c->nn; i++) {
        const gp_cap_group *n = &c->nodes[i];
        cJSON *j = figures_json(&n->f, c, false);
        cJSON_AddNumberToObject(j, "gpus", (double)n->gpus);
        if (c->has_price && n->f.has_power) {
            node_money m = money_of(c, n);
            cJSON_AddNumberToObject(j, "power_cost_per_hour", m.per_hour);
            cJSON_AddNumberToObject(j, "facility_kwh", m.kwh);
            if (m.has_useful)
                cJSON_AddNumberToObject(j, "cost_per_useful_gpu_hour", m.per_useful_hour);
            cJSON_AddNumberToObject(j, "idle_cost", m.idle);
        }
        cJSON_AddItemToObject(ns, n->key, j);
    }
}

static void gpus_json(cJSON *doc, const gp_capacity *c) {
    cJSON *gs = cJSON_AddArrayToObject(doc, "gpu_list");
    for (size_t i = 0; i < c->n; i++) {
        const gp_cap_row *r = &c->rows[i];
        cJSON *j = figures_json(&r->f, c, true);
        cJSON_AddStringToObject(j, "node", r->node);
        cJSON_AddStringToObject(j, "uuid", r->uuid);
        cJSON_AddStringToObject(j, "model", r->model);
        char name[64];
        cJSON_AddStringToObject(j, "display",
                                display_of(r->raw_model, r->model, name, sizeof name));
        cJSON_AddNumberToObject(j, "index", r->g.index);
        if (r->mig[0])
            cJSON_AddStringToObject(j, "mig", r->mig);
        if (r->g.has_power_p95)
            cJSON_AddNumberToObject(j, "power_p95_w", r->g.power_p95_w);
        if (r->g.has_mem && r->g.mem_total_mib > 0)
            cJSON_AddNumberToObject(j, "mem_headroom",
                                    1 - r->g.mem_used_p95_mib / r->g.mem_total_mib);
        cJSON_AddBoolToObject(j, "idle", r->f.idle);
        cJSON_AddItemToArray(gs, j);
    }
}

cJSON *gp_report_capacity_walls(const gp_capacity *c) {
    cJSON *wp = cJSON_CreateArray();
    for (size_t i = 0; i < c->nw; i++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "node", c->walls[i].node);
        cJSON_AddNumberToObject(j, "wall_w", c->walls[i].wall_w);
        cJSON_AddNumberToObject(j, "gpus_w", c->walls[i].gpus_w);
        cJSON_AddNumberToObject(j, "non_gpu_w", c->walls[i].wall_w - c->walls[i].gpus_w);
        cJSON_AddItemToArray(wp, j);
    }
    return wp;
}

static void tail_json(cJSON *doc, const gp_capacity *c) {
    cJSON *l = cJSON_AddObjectToObject(doc, "load_duration");
    double *asc = ascending(c);
    for (size_t q = 0; q < N_QUANTILES; q++) {
        char k[16];
        snprintf(k, sizeof k, "p%g", quantiles[q] * 100);
        if (c->nl)
            cJSON_AddNumberToObject(l, k, gp_sorted_quantile(asc, c->nl, quantiles[q]));
        else /* no complete bucket: no curve, not a load of 0 */
            cJSON_AddNullToObject(l, k);
    }
    free(asc);
    cJSON_AddItemToObject(doc, "wall_power", gp_report_capacity_walls(c));
    if (!c->by)
        return;
    cJSON *arr = cJSON_AddArrayToObject(doc, "by_label");
    cJSON_AddStringToObject(doc, "label", c->by);
    for (size_t i = 0; i < c->nu; i++) {
        const gp_cap_usage *u = &c->usage[i];
        double gpu_hours, kwh;
        usage_of(c, u, &gpu_hours, &kwh);
        cJSON *j = cJSON_CreateObject();
        if (u->value)
            cJSON_AddStringToObject(j, "value", u->value);
        else
            cJSON_AddNullToObject(j, "value");
        cJSON_AddNumberToObject(j, "gpu_hours_used", gpu_hours);
        cJSON_AddNumberToObject(j, "gpu_hours_present", (double)u->buckets * 5.0 / 60.0);
        cJSON_AddNumberToObject(j, "energy_kwh", kwh);
        if (c->has_price)
            cJSON_AddNumberToObject(j, "cost", kwh * c->price);
        if (c->has_allin)
            cJSON_AddNumberToObject(j, "allin_cost", u->allin);
        cJSON_AddItemToArray(arr, j);
    }
    if (c->has_allin) {
        cJSON *a = cJSON_AddObjectToObject(doc, "chargeback");
        cJSON_AddNumberToObject(a, "allin_per_gpu_hour", c->allin_per_gpu_hour);
        cJSON_AddNumberToObject(a, "fleet_cost", c->allin_fleet);
        cJSON_AddNumberToObject(a, "idle_cost", c->allin_idle);
    }
}

gp_status gp_report_capacity_json(const gp_capacity *c, gp_buf *out) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "since_ms", (double)c->from_ms);
    cJSON_AddNumberToObject(doc, "until_ms", (double)c->until_ms);
    cJSON_AddNumberToObject(doc, "busy_threshold", c->threshold / 100.0);
    if (c->server[0]) { /* the figures came from a server's aggregation (capacity --prometheus) */
        cJSON *src = cJSON_AddObjectToObject(doc, "server");
        cJSON_AddStringToObject(src, "url", c->server);
        cJSON_AddStringToObject(src, "series", c->series);
        cJSON_AddNumberToObject(src, "bucket_s", 300);
        cJSON_AddStringToObject(src, "util_percentiles", "5 % bins of 5-minute means");
        cJSON_AddStringToObject(src, "gpu_power_p95", "quantile_over_time of hourly means");
        cJSON_AddStringToObject(src, "group_power_p95", "10 W bins of hourly means");
    }
    cJSON_AddNumberToObject(doc, "gpus", (double)c->gpus);
    if (c->has_price) {
        cJSON_AddNumberToObject(doc, "price_per_kwh", c->price);
        cJSON_AddNumberToObject(doc, "pue", c->pue);
        cJSON_AddStringToObject(doc, "currency", c->currency);
    }
    cJSON *gaps = cJSON_AddObjectToObject(doc, "buckets");
    cJSON_AddNumberToObject(gaps, "window", (double)c->window);
    cJSON_AddNumberToObject(gaps, "complete", (double)c->nl);
    cJSON_AddNumberToObject(gaps, "partial", (double)c->partial);
    cJSON_AddNumberToObject(gaps, "empty", (double)c->empty);
    cJSON_AddItemToObject(doc, "fleet", figures_json(&c->fleet_f, c, false));
    groups_json(doc, c);
    gpus_json(doc, c);
    tail_json(doc, c);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    gp_status st = GP_OK;
    P("%s\n", text ? text : "{}");
    free(text);
    return st;
}

/* ---- CSV ----------------------------------------------------------------------------------- */

gp_status gp_report_capacity_ldc(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("rank,hours_at_or_above,busy_gpu_equivalents\n");
    for (size_t i = 0; i < c->nl; i++)
        P("%zu,%.4f,%.6f\n", i + 1, (double)(i + 1) * 5.0 / 60.0, c->ldc[i]);
    return st;
}

gp_status gp_report_capacity_csv(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("node,host,gpu,uuid,model,mig,hours,util_mean,util_p50,util_p95,util_p99,"
      "busy_share,busy_hours_per_day,power_mean_w,power_p95_w,power_limit_w,energy_kwh,"
      "mem_headroom,idle\n");
    for (size_t i = 0; i < c->n && !st; i++) {
        const gp_cap_row *r = &c->rows[i];
        const gp_cap_figures *f = &r->f;
        gp_csv_field(out, r->node);
        P(",");
        gp_csv_field(out, r->host);
        P(",%d,", r->g.index);
        gp_csv_field(out, r->uuid);
        P(",");
        gp_csv_field(out, r->model);
        P(",");
        gp_csv_field(out, r->mig);
        P(",%.4f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,", f->hours, f->util_mean / 100, f->util_p50 / 100,
          f->util_p95 / 100, f->util_p99 / 100, f->busy_share, f->busy_hours_per_day);
        if (f->has_power)
            P("%.3f,%.3f,", f->power_mean_w, r->g.power_p95_w);
        else
            P(",,");
        if (r->g.has_limit)
            P("%.1f", r->g.power_limit_w);
        P(",%.4f,", f->energy_kwh);
        if (r->g.has_mem && r->g.mem_total_mib > 0)
            P("%.6f", 1 - r->g.mem_used_p95_mib / r->g.mem_total_mib);
        P(",%d\n", f->idle);
    }
    return st;
}

/* ---- text ---------------------------------------------------------------------------------- */

/* Control characters of outside names shown as '?' (gp_text_clean_with). */
static void printable(char *s, size_t cap) {
    char raw[128];
    snprintf(raw, sizeof raw, "%s", s);
    gp_text_clean_with(raw, s, cap, &(gp_text_rules){.mark = "?"});
}

static gp_status text_table(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("%-26s %5s %7s %6s %6s %6s %8s %9s %9s %10s\n", "", "GPUS", "MEAN", "P50", "P95", "P99",
      "BUSY h/d", "POWER W", "P95 W", "kWh");
    for (int pass = 0; pass < 3; pass++) {
        size_t count = pass == 0 ? 1 : pass == 1 ? c->nm : c->nn;
        for (size_t i = 0; i < count; i++) {
            const gp_cap_group *g = pass == 1 ? &c->models[i] : pass == 2 ? &c->nodes[i] : NULL;
            const gp_cap_figures *f = g ? &g->f : &c->fleet_f;
            char label[64];
            snprintf(label, sizeof label, "%s%.20s",
                     pass == 0   ? "fleet"
                     : pass == 1 ? "model "
                                 : "node ",
                     g ? g->display : "");
            P("%-26s %5lld %6.1f%% %5.0f%% %5.0f%% %5.0f%% %8.1f ", label, g ? g->gpus : c->gpus,
              f->util_mean, f->util_p50, f->util_p95, f->util_p99, f->busy_hours_per_day);
            if (f->has_power)
                P("%9.1f %9.0f %10.1f\n", f->power_mean_w, f->power_p95_w, f->energy_kwh);
            else
                P("%9s %9s %10s\n", "-", "-", "-");
        }
    }
    return st;
}

static gp_status text_gpus(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("\nPer GPU:\n");
    int idle = 0;
    double idle_money = 0;
    for (size_t i = 0; i < c->n; i++) {
        const gp_cap_row *r = &c->rows[i];
        const gp_cap_figures *f = &r->f;
        idle += f->idle;
        if (f->idle && f->has_power)
            idle_money += idle_month(c, f);
        char head[80], name[64];
        display_of(r->raw_model, r->model, name, sizeof name);
        snprintf(head, sizeof head, "%.14s gpu %d%s%.12s %.14s", r->node, r->g.index,
                 r->mig[0] ? " " : "", r->mig, name);
        printable(head, sizeof head);
        P("  %-42s %6.1f%% p95 %4.0f%% busy %5.1f h/d", head, f->util_mean, f->util_p95,
          f->busy_hours_per_day);
        if (f->has_power)
            P("  %6.1f W (p95 %.1f)", f->power_mean_w, r->g.power_p95_w);
        if (r->g.has_limit)
            P(" limit %.0f W", r->g.power_limit_w);
        if (r->g.has_mem && r->g.mem_total_mib > 0)
            P("  mem headroom %.0f%%", 100 * (1 - r->g.mem_used_p95_mib / r->g.mem_total_mib));
        P("%s\n", f->idle ? "  IDLE" : "");
    }
    if (idle) {
        P("\nIdle GPUs (mean utilization under 5 %%): %d", idle);
        if (c->has_price)
            P(", their power costs %.2f %s a month", idle_money, c->currency);
        P("\n");
    }
    return st;
}

static gp_status text_money(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    if (!c->has_price)
        return P("\n(Give --price-per-kwh or --scenario for what the power costs.)\n");
    P("\nMoney per node (%.4g %s/kWh, PUE %g):\n", c->price, c->currency, c->pue);
    for (size_t i = 0; i < c->nn; i++) {
        if (!c->nodes[i].f.has_power)
            continue;
        node_money m = money_of(c, &c->nodes[i]);
        /* No busy GPU-hour: the cost of one is undefined, not 0 (--json leaves it out). */
        char useful[32] = "       -";
        if (m.has_useful)
            snprintf(useful, sizeof useful, "%8.4f", m.per_useful_hour);
        P("  %-24.24s %8.3f /h of power, %10.1f kWh, %s per useful GPU-hour, "
          "%10.2f on idle capacity\n",
          c->nodes[i].key, m.per_hour, m.kwh, useful, m.idle);
    }
    return st;
}

static gp_status text_tail(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("\nLoad duration (busy GPU equivalents per 5-minute bucket, %zu bucket%s):\n ", c->nl,
      c->nl == 1 ? "" : "s");
    if (!c->nl) /* no curve: a row of zeros would read as a fleet measured idle */
        P(" none: no complete 5-minute bucket in the window (one where every GPU reported)");
    double *asc = ascending(c);
    for (size_t q = 0; q < N_QUANTILES && c->nl; q++)
        P(" p%g %.2f", quantiles[q] * 100, gp_sorted_quantile(asc, c->nl, quantiles[q]));
    free(asc);
    P("\n");
    P("\nWall power against GPU power (Redfish, IPMI DCMI):\n");
    for (size_t i = 0; i < c->nw; i++) {
        const gp_cap_wall *w = &c->walls[i];
        P("  %-24.24s wall %8.1f W, GPUs %8.1f W: %8.1f W besides the GPUs (%s)\n", w->node,
          w->wall_w, w->gpus_w, w->wall_w - w->gpus_w,
          gp_cap_wall_is_base(w) ? "server_base_w"
          : w->gpus_w > 0        ? "below the GPUs' draw: not their server's wall; not a base"
                                 : "no GPU power here: not a server base");
    }
    if (!c->nw)
        P("  no wall power readings (Redfish, IPMI DCMI) in the window\n");
    if (!c->by)
        return st;
    P("\nBy %s:\n  %-40s %12s %12s%s%s\n", c->by, "value", "GPU-hours", "kWh",
      c->has_price ? "  energy cost" : "", c->has_allin ? "  all-in cost" : "");
    for (size_t i = 0; i < c->nu; i++) {
        double gpu_hours, kwh;
        usage_of(c, &c->usage[i], &gpu_hours, &kwh);
        char v[64];
        snprintf(v, sizeof v, "%.60s", c->usage[i].value ? c->usage[i].value : "(no label)");
        printable(v, sizeof v);
        P("  %-40s %12.1f %12.1f", v, gpu_hours, kwh);
        if (c->has_price)
            P(" %12.2f", kwh * c->price);
        if (c->has_allin)
            P(" %12.2f", c->usage[i].allin);
        P("\n");
    }
    if (c->has_allin) {
        P("  %-40s %12s %12s%s %12.2f\n", "(idle: present, used by no one)", "", "",
          c->has_price ? "             " : "", c->allin_idle);
        P("  All-in: %.4f %s a GPU-hour as the scenario prices owning (its self-hosted total "
          "over its GPUs and months), shared by GPU-hours used; the rows sum to the fleet's "
          "%.2f %s over the GPU-hours present.\n",
          c->allin_per_gpu_hour, c->currency, c->allin_fleet, c->currency);
    }
    return st;
}

gp_status gp_report_capacity_usage_csv(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("value,gpu_hours_used,gpu_hours_present,energy_kwh,energy_cost,allin_cost\n");
    for (size_t i = 0; i < c->nu && !st; i++) {
        const gp_cap_usage *u = &c->usage[i];
        double gpu_hours, kwh;
        usage_of(c, u, &gpu_hours, &kwh);
        gp_csv_field(out, u->value ? u->value : "");
        P(",%.4f,%.4f,%.4f,", gpu_hours, (double)u->buckets * 5.0 / 60.0, kwh);
        if (c->has_price)
            P("%.2f", kwh * c->price);
        P(",");
        if (c->has_allin)
            P("%.2f", u->allin);
        P("\n");
    }
    if (c->has_allin)
        P("(idle),,,,,%.2f\n", c->allin_idle);
    return st;
}

gp_status gp_report_capacity_text(const gp_capacity *c, gp_buf *out) {
    gp_status st = GP_OK;
    char from[32], to[32];
    time_t a = (time_t)(c->from_ms / 1000), b = (time_t)(c->until_ms / 1000);
    struct tm tm;
    localtime_r(&a, &tm);
    strftime(from, sizeof from, "%Y-%m-%d %H:%M", &tm);
    localtime_r(&b, &tm);
    strftime(to, sizeof to, "%Y-%m-%d %H:%M", &tm);
    char n1[32], n2[32], n3[32], n4[32];
    P("Capacity of %s GPU%s on %s node%s, %s to %s (busy: a 5-minute mean of at least %d %%)\n",
      gp_fmt_grouped((double)c->gpus, 0, n1, sizeof n1), c->gpus == 1 ? "" : "s",
      gp_fmt_grouped((double)c->nn, 0, n2, sizeof n2), c->nn == 1 ? "" : "s", from, to,
      c->threshold);
    if (!c->n)
        return P("No utilization in the window: collect (gpuplan collect) or import first.\n");
    P("Data: %s of %s 5-minute buckets complete; %s partial (some GPUs missing), %s empty. "
      "Missing data is left out, never interpolated.\n",
      gp_fmt_grouped((double)c->nl, 0, n1, sizeof n1),
      gp_fmt_grouped((double)c->window, 0, n2, sizeof n2),
      gp_fmt_grouped((double)c->partial, 0, n3, sizeof n3),
      gp_fmt_grouped((double)c->empty, 0, n4, sizeof n4));
    P("Percentiles of a GPU's 5-minute mean utilization are read from 5 %% bins (+-5 %%); P95 W "
      "is the 95th percentile of a GPU's hourly mean power, to the 10 W above it for a group "
      "and exact for one GPU.\n");
    if (c->server[0])
        P("Computed by the server %s (nothing imported): per GPU, its 5-minute means "
          "(avg_over_time over 5 minutes) summed and counted into the same 5 %% bins with "
          "count_values; its hourly means of power and memory used asked for as points, "
          "binned into the same 10 W bins and their P95 taken as quantile_over_time takes it; "
          "no wall power. It read the %s.\n",
          c->server, c->series);
    P("\n");
    if (!st)
        st = text_table(c, out);
    if (!st)
        st = text_gpus(c, out);
    if (!st)
        st = text_money(c, out);
    if (!st)
        st = text_tail(c, out);
    return st;
}

/* ---- plan --mix ---------------------------------------------------------------------------- */

/* "24 GPUs (16 A100, 8 H100)": the measured fleet by model. */
static gp_status measured_fleet(const gp_mix_plan *p, gp_buf *out) {
    gp_status st = GP_OK;
    P("Measured fleet: %lld GPU%s", p->measured_gpus, p->measured_gpus == 1 ? "" : "s");
    for (int i = 0; i < p->n_models; i++) {
        char name[64];
        display_of(p->models[i].raw_model, p->models[i].model, name, sizeof name);
        P("%s%lld %s", i ? ", " : " (", p->models[i].gpus, name);
    }
    P("%s.\n", p->n_models ? ")" : "");
    /* The mix prices every busy GPU as the scenario's: a load of several models is not one. */
    if (p->n_models > 1)
        P("%d GPU models: their load is planned as one; --gpu MODEL plans one of them.\n",
          p->n_models);
    return st;
}

/* with_fleet: the measured fleet's line here (the CSV); the text gives it under the load. */
static gp_status mix_growth(const gp_mix_plan *p, bool with_fleet, gp_buf *out) {
    gp_status st = GP_OK;
    if (p->trend) {
        /* A slope from one or two days has no standard error: none is printed. */
        P("\nTrend: %+.2f", p->tr.slope);
        if (isfinite(p->tr.slope_se))
            P(" (+-%.2f)", p->tr.slope_se);
        P(" busy GPU-hours a day per day over %zu day%s (R^2 %.3f): %+.2f %% a month", p->tr.days,
          p->tr.days == 1 ? "" : "s", p->tr.r2, p->tr.growth * 100);
        if (isfinite(p->tr.growth_se))
            P(", 95 %% band %+.2f %% to %+.2f %%", (p->tr.growth - 1.96 * p->tr.growth_se) * 100,
              (p->tr.growth + 1.96 * p->tr.growth_se) * 100);
        P(".\n");
        if (!p->projected && p->tr.days < 7)
            return P("Too few days for a trend (%zu; 7 needed), so no projection. Give --growth "
                     "RATE, or --force-trend to project it anyway.\n",
                     p->tr.days);
        if (!p->projected)
            return P("No significant trend over %zu days (R^2 %.3f: the slope is within twice "
                     "its standard error of 0), so no projection. Give --growth RATE, or "
                     "--force-trend to project it anyway.\n",
                     p->tr.days, p->tr.r2);
    }
    P("\nAt %.0f %% target utilization: %.1f GPUs needed now", p->target * 100, p->need_now);
    for (int mth = 3; mth <= p->horizon_months; mth += mth < 12 ? 3 : 6)
        P(", %.1f at month %d", p->need_now * pow(1 + p->growth, mth), mth);
    P(".\n");
    if (st == GP_OK && with_fleet)
        st = measured_fleet(p, out);
    if (p->runs_out < 0)
        P("The scenario's %d GPUs (demand.gpus) last the %d-month horizon.\n", p->n,
          p->horizon_months);
    else if (p->runs_out == 0)
        P("The scenario's %d GPUs (demand.gpus) are too few already.\n", p->n);
    else
        P("The scenario's %d GPUs (demand.gpus) run out in month %d.\n", p->n, p->runs_out);
    return st;
}

gp_status gp_report_mix_csv(const gp_mix_plan *p, gp_buf *out) {
    gp_status st = GP_OK;
    P("owned_gpus,total\n");
    for (int k = 0; k <= p->n; k++) {
        char t[40];
        P("%d,%s\n", k, gp_fmt_cents(p->curve[k], t, sizeof t)); /* money to the cent */
    }
    return st ? st : p->has_growth ? mix_growth(p, true, out) : GP_OK;
}

gp_status gp_report_mix_text(const gp_mix_plan *p, const char *option, gp_buf *out) {
    gp_status st = GP_OK;
    int n = p->n, best = p->best;
    char t[64], own[64], rent[64];
    gp_fmt_money(p->curve[best], t, sizeof t);
    gp_fmt_money(p->curve[n] - p->curve[best], own, sizeof own);
    gp_fmt_money(p->curve[0] - p->curve[best], rent, sizeof rent);
    P("Own %d of %d GPU%s and rent the overflow from \"%s\": %s %s over %d months.\n", best, n,
      n == 1 ? "" : "s", option, t, p->currency, p->horizon_months);
    P("Saves %s against owning all %d, %s against renting everything.\n", own, n, rent);
    P("Load: %zu complete 5-minute bucket%s (%zu with a GPU missing left out), %lld GPU%s "
      "measured; peak %.0f busy, median %.0f.\n",
      p->buckets, p->buckets == 1 ? "" : "s", p->gaps, p->units, p->units == 1 ? "" : "s", p->peak,
      p->median);
    if (st == GP_OK)
        st = measured_fleet(p, out);
    P("\nTotal by owned fleet size:\n");
    int step = n > 40 ? n / 20 : 1;
    for (int k = 0; k <= n; k += step) {
        gp_fmt_money(p->curve[k], t, sizeof t);
        P("  %6d %20s%s\n", k, t, k == best ? "  <- optimum" : "");
    }
    if (n % step) {
        gp_fmt_money(p->curve[n], t, sizeof t);
        P("  %6d %20s\n", n, t);
    }
    if (best % step) {
        gp_fmt_money(p->curve[best], t, sizeof t);
        P("  %6d %20s  <- optimum\n", best, t);
    }
    /* The mixed fleet is sized on the measured load (docs/model.md): growth moves only the
     * projection below, which sits next to the answer, so say so. */
    if (p->has_growth)
        P("\nThe optimum above is for the measured load; --growth does not change it, only the "
          "GPUs needed below.\n");
    return st ? st : p->has_growth ? mix_growth(p, false, out) : GP_OK;
}
