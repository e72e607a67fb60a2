/* One scenario of a batch run: load, evaluate, write its reports, summarise (batch_int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"
#include "gpuplan/app_export.h"
#include "gpuplan/inputs.h"
#include "gpuplan/report.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store.h"

#define TORNADO_ROWS 8

gp_status batch_write(const char *dir, const char *name, const char *data, size_t len,
                      gp_err *err) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return gp_errorf(err, GP_E_IO, path, "cannot create: %s", strerror(errno));
    bool ok = fwrite(data ? data : "", 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? GP_OK : gp_errorf(err, GP_E_IO, path, "cannot write: %s", strerror(errno));
}

gp_status batch_load(gp_session *ses, const char *name, const char *as_of, batch_item *it,
                     gp_err *err) {
    gp_store *st;
    char *json = NULL, origin[512];
    int version = 0;
    if (gp_session_store(ses, &st, err) ||
        gp_store_scenario_get(st, name, 0, &json, &version, NULL, err))
        return err->code;
    snprintf(origin, sizeof origin, "%s@%d", name, version);
    cJSON *doc = NULL;
    gp_scenario *tmp = gp_xmalloc(sizeof *tmp);
    gp_status rc = gp_scenario_parse(json, strlen(json), origin, tmp, &doc, err);
    free(tmp);
    free(json);
    if (rc == GP_OK)
        rc = gp_load_scenario_doc(ses, doc, origin, as_of, &it->sc, err);
    cJSON_Delete(doc);
    if (rc)
        return rc;
    it->sc.version = version;
    it->measured = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(it->sc.tree, "measured"));
    return GP_OK;
}

/* The cheapest option: the strongest rental against owning (-1 when none). */
static int rival_of(const gp_result *r) {
    int best = -1;
    for (int i = 0; i < r->n_options; i++)
        if (best < 0 || r->options[i].total < r->options[best].total)
            best = i;
    return best;
}

static gp_status write_text(batch_item *it, const char *dir, const char *ext, gp_buf *b) {
    char name[128];
    snprintf(name, sizeof name, "scenarios/%s.%s", it->stem, ext);
    gp_status st = batch_write(dir, name, b->data, b->len, &it->err);
    gp_buf_done(b);
    return st;
}

void batch_render(batch_item *it, const char *dir, const char *as_of, gp_sensitivity *sens) {
    gp_err_clear(&it->err);
    it->r = gp_xmalloc(sizeof *it->r);
    it->st = gp_evaluate(&it->sc, it->r, &it->err);
    if (it->st)
        return;
    gp_report_meta meta = gp_loaded_meta(&it->sc, as_of);
    gp_buf b;
    char xlsx[4400];
    gp_buf_init(&b, 64u << 20);
    if (gp_report_json(it->sc.s, it->r, &meta, &b, &it->err) || write_text(it, dir, "json", &b))
        goto fail;
    gp_buf_init(&b, 64u << 20);
    if (gp_report_md(it->sc.s, it->r, &meta, &b, &it->err) || write_text(it, dir, "md", &b))
        goto fail;
    gp_buf_init(&b, 64u << 20);
    if (gp_report_csv(it->sc.s, it->r, &meta, &b, &it->err) || write_text(it, dir, "csv", &b))
        goto fail;
    snprintf(xlsx, sizeof xlsx, "%s/scenarios/%s.xlsx", dir, it->stem);
    /* Every scenario, version 1 or 2, gets its workbook as `report --format xlsx` writes it
     * (a measured one after the pool: batch_xlsx_measured). */
    if (!it->measured && gp_report_xlsx(it->sc.s, it->r, &meta, NULL, xlsx, &it->err))
        goto fail;
    it->report = gp_report_json_tree(it->sc.s, it->r, &meta);
    int rival = rival_of(it->r);
    if (rival >= 0 && gp_sensitivity_run(it->sc.s, 0.2, sens, &it->err) == GP_OK)
        it->tornado = gp_report_tornado_tree(sens, it->sc.s, rival, TORNADO_ROWS);
    it->st = GP_OK;
    return;
fail:
    gp_buf_done(&b);
    it->st = it->err.code ? it->err.code : GP_E_IO;
}

gp_status batch_xlsx_measured(gp_session *ses, batch_item *it, const char *dir, const char *as_of,
                              gp_err *err) {
    char xlsx[4400];
    snprintf(xlsx, sizeof xlsx, "%s/scenarios/%s.xlsx", dir, it->stem);
    return gp_export_xlsx(ses, &it->sc, it->r, as_of, xlsx, err);
}

/* Side -1 (owning) or an option: its total, and its cost per GPU-hour with, in work mode, its
 * cost per unit of work beside it. */
static void choice_of(gp_batch_choice *c, const char *name, const gp_scenario *s,
                      const gp_result *r, int side) {
    snprintf(c->name, sizeof c->name, "%s", name);
    c->total = side < 0 ? r->self.total : r->options[side].total;
    c->has_cost_per_gpu_hour = gp_result_cost_per_gpu_hour(s, r, side, &c->cost_per_gpu_hour);
    c->has_cost_per_work_unit = gp_result_cost_per_work_unit(r, side, &c->cost_per_work_unit);
}

/* The catalog prices used, then each API's price a unit of work (2.1: written in the scenario,
 * no catalog entry), so the next run's diff names a price that moved. */
static void prices_of(const gp_loaded *sc, gp_batch_scenario *out) {
    const gp_scenario *s = sc->s;
    int apis = 0;
    for (int i = 0; i < s->n_options; i++)
        apis += s->options[i].pricing == GP_PER_UNIT;
    out->n_prices = sc->n_sources + apis;
    out->prices = out->n_prices ? gp_xcalloc((size_t)out->n_prices, sizeof *out->prices) : NULL;
    for (int i = 0, k = sc->n_sources; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        if (o->pricing != GP_PER_UNIT)
            continue;
        gp_batch_price *q = &out->prices[k++];
        snprintf(q->option, sizeof q->option, "%s", o->name);
        snprintf(q->pricing, sizeof q->pricing, "%s", gp_pricing_name(o->pricing));
        q->hourly = o->hourly; /* price_per_unit + its input units at their price */
        snprintf(q->source, sizeof q->source, "the scenario");
    }
    for (int i = 0; i < sc->n_sources; i++) {
        const gp_price_source *p = &sc->sources[i];
        gp_batch_price *q = &out->prices[i];
        snprintf(q->option, sizeof q->option, "%s", p->option);
        snprintf(q->catalog, sizeof q->catalog, "%s", p->catalog);
        snprintf(q->pricing, sizeof q->pricing, "%s", gp_pricing_name(p->pricing));
        q->hourly = p->hourly;
        snprintf(q->effective_from, sizeof q->effective_from, "%s", p->effective_from);
        snprintf(q->source, sizeof q->source, "%s", p->source);
        if (p->fx_rate > 0) {
            snprintf(q->currency, sizeof q->currency, "%s", p->currency);
            q->listed_hourly = p->listed_hourly;
            q->fx_rate = p->fx_rate;
            snprintf(q->fx_date, sizeof q->fx_date, "%s", p->fx_date);
            snprintf(q->fx_source, sizeof q->fx_source, "%s", p->fx_source);
        }
    }
}

/* Every numeric input that applies to s (inputs.h), for diff to name what changed. */
static void summarise_inputs(const gp_scenario *s, gp_batch_scenario *out) {
    for (int k = 0; k < gp_n_inputs; k++) {
        const gp_input *in = &gp_inputs[k];
        if (!in->key || !in->value || !gp_input_mode_fits(in->mode, s))
            continue;
        gp_batch_scenario_add_input(out, in->key,
                                    in->sheet_label  ? in->sheet_label
                                    : in->edit_label ? in->edit_label
                                                     : in->key,
                                    in->value(s));
    }
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        for (int k = 0; k < gp_n_option_inputs; k++) {
            const gp_option_input *in = &gp_option_inputs[k];
            unsigned pricings = in->sheet_pricings | in->edit_pricings;
            if (!in->key || !in->value || !(pricings & (1u << o->pricing)) ||
                !gp_input_mode_fits(in->mode, s))
                continue;
            char path[64 + 48], label[GP_NAME_BYTES + 48];
            snprintf(path, sizeof path, "cloud_options[%d].%s", i, in->key);
            snprintf(label, sizeof label, "%s: %s", o->name,
                     in->sheet_what   ? in->sheet_what
                     : in->edit_label ? in->edit_label
                                      : in->key);
            gp_batch_scenario_add_input(out, path, label, in->value(o));
        }
    }
}

void batch_summarise(const batch_item *it, gp_batch_scenario *out) {
    const gp_scenario *s = it->sc.s;
    const gp_result *r = it->r;
    snprintf(out->name, sizeof out->name, "%s", s->name);
    out->version = it->sc.version;
    snprintf(out->currency, sizeof out->currency, "%s", s->currency);
    out->horizon_months = s->horizon_months;
    out->measured = it->measured;
    out->gpus = s->gpus;
    out->utilization = s->utilization;
    out->gpu_idle_w = s->gpu_idle_w;
    out->gpu_tdp_w = s->gpu_tdp_w;
    summarise_inputs(s, out);
    out->n_choices = 1 + r->n_options;
    out->choices = gp_xcalloc((size_t)out->n_choices, sizeof *out->choices);
    if (s->work_mode)
        snprintf(out->work_unit, sizeof out->work_unit, "%s", s->work_unit);
    choice_of(&out->choices[0], GP_BATCH_SELF, s, r, -1);
    for (int i = 0; i < r->n_options; i++) {
        const gp_option_result *o = &r->options[i];
        gp_batch_choice *c = &out->choices[1 + i];
        choice_of(c, s->options[i].name, s, r, i);
        /* The figures behind a has_ flag that is false are not set by the model. */
        c->has_break_even_month = o->has_break_even_month;
        c->break_even_month = o->has_break_even_month ? o->break_even_month : 0;
        c->has_break_even_utilization = o->has_break_even_utilization;
        c->break_even_utilization = o->has_break_even_utilization ? o->break_even_utilization : 0;
    }
    const gp_batch_choice *best = &out->choices[r->cheapest < 0 ? 0 : 1 + r->cheapest];
    snprintf(out->cheapest, sizeof out->cheapest, "%s", best->name);
    out->cheapest_total = best->total;
    int rival = rival_of(r);
    if (rival >= 0) {
        snprintf(out->rival, sizeof out->rival, "%s", s->options[rival].name);
        out->has_break_even_month = r->options[rival].has_break_even_month;
        out->break_even_month = out->has_break_even_month ? r->options[rival].break_even_month : 0;
    }
    out->exit_value = r->self.exit_value;
    snprintf(out->exit_basis, sizeof out->exit_basis, "%s", gp_exit_basis_key(gp_exit_basis_of(s)));
    int g;
    if (gp_report_rests_on_spot(s, r, r->cheapest) && gp_report_guaranteed(s, r, &g))
        snprintf(out->guaranteed, sizeof out->guaranteed, "%s",
                 g < 0 ? GP_BATCH_SELF : s->options[g].name);
    if (rival >= 0 && gp_report_rests_on_spot(s, r, rival)) {
        int k = -1; /* the strongest rental with guaranteed capacity */
        for (int i = 0; i < r->n_options; i++)
            if (!gp_report_rests_on_spot(s, r, i) &&
                (k < 0 || r->options[i].total < r->options[k].total))
                k = i;
        if (k >= 0) {
            snprintf(out->guaranteed_rival, sizeof out->guaranteed_rival, "%s", s->options[k].name);
            out->has_guaranteed_break_even_month = r->options[k].has_break_even_month;
            out->guaranteed_break_even_month =
                r->options[k].has_break_even_month ? r->options[k].break_even_month : 0;
        }
    }
    prices_of(&it->sc, out);
    static const char *const ext[] = {"md", "csv", "json", "xlsx"};
    for (int k = 0; k < 4; k++)
        snprintf(out->files[k], sizeof out->files[k], "scenarios/%s.%s", it->stem, ext[k]);
}

void batch_item_done(batch_item *it) {
    gp_loaded_done(&it->sc);
    free(it->r);
    cJSON_Delete(it->report);
    cJSON_Delete(it->tornado);
    memset(it, 0, sizeof *it);
}
