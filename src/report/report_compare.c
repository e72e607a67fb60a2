/* Comparison and throughput renderers (report_compare.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/report.h"
#include "gpuplan/report_compare.h"

/* Append printf-style text unless an earlier append already failed. */
#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

/* An API row has no GPU: its GPU column says so. */
static const char *gpu_of(const gp_compare_row *r) {
    return r->api ? "API" : r->gpu;
}

static const char *side(const gp_compare_row *r) {
    return r->own ? "own" : r->provider[0] ? r->provider : "-";
}

/* The ranked rows of the comparison's table. */
static gp_status compare_md_ranked(const gp_comparison *c, gp_buf *out) {
    gp_status st = GP_OK;
    for (int i = 0; i < c->n_ranked; i++) {
        const gp_compare_row *r = &c->rows[i];
        char total[64], be[96], tp[40], per[40], gpus[16];
        gp_fmt_money(r->total, total, sizeof total);
        if (r->api) { /* no GPU: no throughput, no GPUs */
            snprintf(tp, sizeof tp, "-");
            snprintf(gpus, sizeof gpus, "-");
        } else {
            gp_fmt_sig(r->throughput, 4, tp, sizeof tp);
            snprintf(gpus, sizeof gpus, "%d", r->gpus_needed);
        }
        if (r->own)
            snprintf(be, sizeof be, "-");
        else if (r->has_break_even)
            snprintf(be, sizeof be, "month %d (%s)", r->break_even_month, r->vs_gpu);
        else
            snprintf(be, sizeof be, "never (%s)", r->vs_gpu);
        P("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->rank, gpu_of(r),
          side(r), r->pricing, r->offer, r->price_date, tp,
          r->api ? "api" : gp_tp_kind_name(r->tp_kind), gpus, total,
          gp_fmt_sig(r->cost_per_unit, 4, per, sizeof per), be);
    }
    return st;
}

/* The API rows' prices, when there are any. */
static gp_status compare_md_api(const gp_comparison *c, gp_buf *out) {
    gp_status st = GP_OK;
    bool any_api = false;
    for (int i = 0; i < c->n; i++)
        any_api |= c->rows[i].api;
    if (any_api) {
        P("\n## API rows\n\nThe profile's model bought from a hosted API per %s, no hardware: "
          "utilization and throughput do not change its cost. Priced as the catalog's output "
          "price a M tokens plus its input price times the input tokens an output token the "
          "profile's serving point reads (prompt over generated tokens); each set against owning "
          "the GPU model named for the break-even.\n\n",
          c->unit);
        P("| provider | model | output a M | input a M | input per output | per %s | source |\n"
          "|---|---|---:|---:|---:|---:|---|\n",
          c->unit);
        for (int i = 0; i < c->n; i++) {
            const gp_compare_row *r = &c->rows[i];
            if (!r->api)
                continue;
            char per[40];
            gp_fmt_sig(r->price_per_unit + r->input_units_per_unit * r->price_per_input_unit, 4,
                       per, sizeof per);
            P("| %s | %s | %g | %g | %g | %s | %s (from %s) |\n", r->provider, r->api_model,
              r->price_per_unit, r->price_per_input_unit, r->input_units_per_unit, per,
              r->api_source, r->price_date);
        }
    }
    return st;
}

gp_status gp_report_compare_md(const gp_comparison *c, int horizon_months, gp_buf *out) {
    gp_status st = GP_OK;
    P("# GPU generations per unit of work: %s\n\n", c->profile);
    char work[40];
    P("%s %s over %d months, prices as of %s. Ranked by total cost. Break-even vs owning: the "
      "engine's first month-end at which owning the GPU model named has cost no more than "
      "renting so far (never: it does not within the horizon).\n\n",
      gp_fmt_sig_grouped(c->work, 4, work, sizeof work), c->unit, horizon_months, c->as_of);
    int kinds[3] = {0, 0, 0};
    int apis = 0;
    for (int i = 0; i < c->n_ranked; i++) {
        if (c->rows[i].api)
            apis++;
        else
            kinds[c->rows[i].tp_kind]++;
    }
    P("Throughputs: %d row%s on an estimate, %d on a published result, %d on a "
      "measured figure (see gpuplan throughput list --profile %s for each figure's source)",
      kinds[GP_TP_ESTIMATE], kinds[GP_TP_ESTIMATE] == 1 ? "" : "s", kinds[GP_TP_PUBLISHED],
      kinds[GP_TP_MEASURED], c->profile);
    if (apis)
        P("; %d API row%s, priced per %s with no hardware (see API rows below)", apis,
          apis == 1 ? "" : "s", c->unit);
    P(".\n\n");
    P("| rank | GPU | side | pricing | offer or server | price date | %s a GPU-hour | figure | "
      "GPUs | total | per %s | break-even vs owning |\n",
      c->unit, c->unit);
    P("|---:|---|---|---|---|---|---:|---|---:|---:|---:|---|\n");
    if (st == GP_OK)
        st = compare_md_ranked(c, out);
    if (st == GP_OK)
        st = compare_md_api(c, out);
    if (c->n_ranked == c->n)
        return st;
    P("\n## Not compared\n\n| GPU | side | offer or server | what is missing "
      "|\n|---|---|---|---|\n");
    for (int i = c->n_ranked; i < c->n; i++) {
        const gp_compare_row *r = &c->rows[i];
        P("| %s | %s | %s | %s |\n", gpu_of(r), side(r), r->offer[0] ? r->offer : "-", r->missing);
    }
    return st;
}

gp_status gp_report_compare_csv(const gp_comparison *c, gp_buf *out) {
    gp_status st = GP_OK;
    P("rank,gpu,side,pricing,offer,price_date,work_per_gpu_hour,throughput_kind,gpus_needed,"
      "total,cost_per_unit,vs_owning,break_even_month,missing,source\n");
    for (int i = 0; i < c->n; i++) {
        const gp_compare_row *r = &c->rows[i];
        bool ok = !r->missing[0];
        char tp[40], total[40], per[40];
        P("%d,", r->rank);
        const char *text[] = {r->gpu, side(r), r->pricing, r->offer, r->price_date};
        for (int k = 0; k < 5 && !st; k++) {
            st = gp_csv_field(out, strcmp(text[k], "-") ? text[k] : "");
            P(",");
        }
        if (r->throughput > 0)
            P("%s,%s", gp_fmt_sig(r->throughput, 4, tp, sizeof tp), gp_tp_kind_name(r->tp_kind));
        else
            P(",");
        if (ok && r->api)
            P(",,%s,%s,", gp_fmt_cents(r->total, total, sizeof total),
              gp_fmt_sig(r->cost_per_unit, 4, per, sizeof per));
        else if (ok)
            P(",%d,%s,%s,", r->gpus_needed, gp_fmt_cents(r->total, total, sizeof total),
              gp_fmt_sig(r->cost_per_unit, 4, per, sizeof per));
        else
            P(",,,,");
        if (!st)
            st = gp_csv_field(out, r->vs_gpu);
        if (ok && r->has_break_even)
            P(",%d,", r->break_even_month);
        else
            P(",,");
        if (!st)
            st = gp_csv_field(out, r->missing);
        P(",");
        if (!st)
            st = gp_csv_field(out, r->api_source);
        P("\n");
    }
    return st;
}

static void add_opt_string(cJSON *o, const char *key, const char *v) {
    if (v[0])
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *row_json(const gp_compare_row *r) {
    cJSON *o = cJSON_CreateObject();
    bool ok = !r->missing[0];
    if (ok)
        cJSON_AddNumberToObject(o, "rank", r->rank);
    else
        cJSON_AddNullToObject(o, "rank");
    if (r->api)
        cJSON_AddNullToObject(o, "gpu");
    else
        cJSON_AddStringToObject(o, "gpu", r->gpu);
    cJSON_AddStringToObject(o, "side", side(r));
    add_opt_string(o, "pricing", r->pricing);
    add_opt_string(o, "offer", r->offer);
    add_opt_string(o, "price_date", r->price_date);
    if (r->throughput > 0) {
        cJSON_AddNumberToObject(o, "work_per_gpu_hour", r->throughput);
        cJSON_AddStringToObject(o, "throughput_kind", gp_tp_kind_name(r->tp_kind));
    } else {
        cJSON_AddNullToObject(o, "work_per_gpu_hour");
        cJSON_AddNullToObject(o, "throughput_kind");
    }
    if (ok && r->api) {
        cJSON_AddNullToObject(o, "gpus_needed");
        cJSON_AddNumberToObject(o, "total", r->total);
        cJSON_AddNumberToObject(o, "cost_per_unit", r->cost_per_unit);
    } else if (ok) {
        cJSON_AddNumberToObject(o, "gpus_needed", r->gpus_needed);
        cJSON_AddNumberToObject(o, "total", r->total);
        cJSON_AddNumberToObject(o, "cost_per_unit", r->cost_per_unit);
    }
    add_opt_string(o, "vs_owning", r->vs_gpu);
    if (ok && r->has_break_even)
        cJSON_AddNumberToObject(o, "break_even_month", r->break_even_month);
    else
        cJSON_AddNullToObject(o, "break_even_month");
    add_opt_string(o, "missing", r->missing);
    if (!r->api)
        return o;
    /* what the API row is priced from, as the catalog holds it */
    cJSON *a = cJSON_AddObjectToObject(o, "api");
    cJSON_AddStringToObject(a, "provider", r->provider);
    cJSON_AddStringToObject(a, "model", r->api_model);
    cJSON_AddNumberToObject(a, "price_per_unit", r->price_per_unit);
    cJSON_AddNumberToObject(a, "price_per_input_unit", r->price_per_input_unit);
    cJSON_AddNumberToObject(a, "input_units_per_unit", r->input_units_per_unit);
    cJSON_AddStringToObject(a, "effective_from", r->price_date);
    cJSON_AddStringToObject(a, "source", r->api_source);
    return o;
}

static gp_status print_json(cJSON *doc, gp_buf *out) {
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    gp_status st = GP_OK;
    P("%s\n", text ? text : "{}");
    free(text);
    return st;
}

gp_status gp_report_compare_json(const gp_comparison *c, gp_buf *out) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "profile", c->profile);
    cJSON_AddStringToObject(doc, "unit", c->unit);
    cJSON_AddNumberToObject(doc, "work", c->work);
    cJSON_AddStringToObject(doc, "as_of", c->as_of);
    /* what the ranked rows' throughputs are, as the Markdown's line above the rows says */
    cJSON *kinds = cJSON_AddObjectToObject(doc, "ranked_throughputs");
    static const gp_tp_kind order[] = {GP_TP_ESTIMATE, GP_TP_PUBLISHED, GP_TP_MEASURED};
    for (int k = 0; k < 3; k++) {
        int n = 0;
        for (int i = 0; i < c->n_ranked; i++)
            n += !c->rows[i].api && c->rows[i].tp_kind == order[k];
        cJSON_AddNumberToObject(kinds, gp_tp_kind_name(order[k]), n);
    }
    int apis = 0;
    for (int i = 0; i < c->n_ranked; i++)
        apis += c->rows[i].api;
    cJSON_AddNumberToObject(kinds, "api", apis);
    cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
    for (int i = 0; i < c->n; i++)
        cJSON_AddItemToArray(rows, row_json(&c->rows[i]));
    return print_json(doc, out);
}

/* The figure's rank: a measured figure beats a published one, which beats an estimate. */
static int kind_rank(gp_tp_kind k) {
    return k == GP_TP_MEASURED ? 2 : k == GP_TP_PUBLISHED ? 1 : 0;
}

/* Whether rows[i] is the figure in use: no other figure of its (GPU, profile) outranks it;
 * *winner gets the kind that does when one does. */
static bool in_use(const gp_throughput *rows, int n, int i, gp_tp_kind *winner) {
    for (int k = 0; k < n; k++)
        if (k != i && kind_rank(rows[k].kind) > kind_rank(rows[i].kind) &&
            !strcmp(rows[k].gpu, rows[i].gpu) && !strcmp(rows[k].profile, rows[i].profile)) {
            if (winner)
                *winner = rows[k].kind;
            return false;
        }
    return true;
}

gp_status gp_report_throughput_text(const gp_throughput *rows, int n, gp_buf *out) {
    gp_status st = GP_OK;
    P("%-14s %-22s %12s %-10s %-9s %-10s %s\n", "GPU", "PROFILE", "PER GPU-H", "UNIT", "KIND",
      "AS OF", "IN USE");
    for (int i = 0; i < n; i++) {
        const gp_throughput *t = &rows[i];
        gp_tp_kind w = GP_TP_MEASURED;
        bool use = in_use(rows, n, i, &w);
        P("%-14s %-22s %12.4f %-10s %-9s %-10s %s%s%s\n", t->gpu, t->profile, t->value, t->unit,
          gp_tp_kind_name(t->kind), t->as_of, use ? "yes" : "no: the ",
          use ? "" : gp_tp_kind_name(w), use ? "" : " figure wins");
        P("    source: %s\n", t->source);
    }
    if (n == 0)
        P("no throughput figures match\n");
    return st;
}

gp_status gp_report_throughput_json(const gp_throughput *rows, int n, gp_buf *out) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        const gp_throughput *t = &rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "gpu", t->gpu);
        cJSON_AddStringToObject(o, "profile", t->profile);
        cJSON_AddNumberToObject(o, "value", t->value);
        cJSON_AddStringToObject(o, "unit", t->unit);
        cJSON_AddStringToObject(o, "kind", gp_tp_kind_name(t->kind));
        cJSON_AddStringToObject(o, "source", t->source);
        cJSON_AddStringToObject(o, "as_of", t->as_of);
        cJSON_AddBoolToObject(o, "in_use", in_use(rows, n, i, NULL));
        cJSON_AddItemToArray(arr, o);
    }
    return print_json(arr, out);
}
