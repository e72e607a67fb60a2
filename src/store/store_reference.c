/* Reference tables: GPU specs, hardware prices, electricity, PUE, tariff presets. */
#include <stdio.h>
#include <string.h>

#include "gpuplan/store_reference.h"
#include "store_int.h"

static void bind_opt(sqlite3_stmt *s, int i, bool has, double v) {
    if (has)
        sqlite3_bind_double(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

/* Step a write once; SQLITE_DONE is success. */
static gp_status step_done(gp_store *st, sqlite3_stmt *s, const char *what, gp_err *err) {
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? GP_OK : store_fail(st, err, what);
}

#define SXM_WINS "(excluded.full_name LIKE '%SXM%' AND full_name NOT LIKE '%SXM%')"
#define PICK(col)                                                                                  \
    col " = CASE WHEN " SXM_WINS " THEN coalesce(excluded." col ", " col ") ELSE coalesce(" col    \
        ", excluded." col ") END"

static const char SQL_SPEC[] =
    "INSERT INTO gpu_spec(name, full_name, vendor, memory_gb, tdp_w, fp32_tflops, fp16_tflops, "
    "bf16_tflops, mem_bw_gbs, release_date, source) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT(name) DO UPDATE SET "
    "full_name = CASE WHEN " SXM_WINS
    " THEN excluded.full_name ELSE full_name END, " PICK("memory_gb") ", " PICK("tdp_w") ", " PICK("fp32_tflops") ", " PICK(
        "fp16_tflops") ", " PICK("bf16_tflops") ", " PICK("mem_bw_gbs") ", " PICK("release_date") ", "
                                                                                                  "source = CASE "
                                                                                                  "WHEN " SXM_WINS
                                                                                                  " THEN excluded.source "
                                                                                                  "WHEN excluded.source = "
                                                                                                  "source "
                                                                                                  "THEN source ELSE source "
                                                                                                  "|| '; gaps from ' || "
                                                                                                  "excluded.source END";

gp_status gp_store_add_spec(gp_store *st, const gp_gpu_spec *g, const char *source, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_SPEC, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, g->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, g->full_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, g->vendor, -1, SQLITE_STATIC);
    for (int i = 0; i <= GP_SPEC_MEM_BW_GBS; i++)
        bind_opt(s, 4 + i, g->has[i], g->v[i]);
    if (g->release_date[0])
        sqlite3_bind_text(s, 10, g->release_date, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 10);
    sqlite3_bind_text(s, 11, source, -1, SQLITE_STATIC);
    if (step_done(st, s, "write a GPU spec", err))
        return err->code;
    if (!g->has[GP_SPEC_FP32_MATRIX])
        return GP_OK;
    /* the first source to give it wins, as for the other columns */
    if (store_prepare(st,
                      "INSERT OR IGNORE INTO gpu_spec_fp32_matrix(name, fp32_matrix_tflops) "
                      "VALUES (?1, ?2)",
                      &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, g->name, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 2, g->v[GP_SPEC_FP32_MATRIX]);
    return step_done(st, s, "write a GPU spec's FP32 matrix rate", err);
}

static const char SQL_HW[] =
    "INSERT INTO hardware_price(item, gpu, gpus, price, price_date, source, note) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING";

gp_status gp_store_add_hardware(gp_store *st, const gp_hw_price *h, const char *source,
                                gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HW, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, h->item, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, h->gpu, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, h->gpus);
    sqlite3_bind_double(s, 4, h->price_usd);
    sqlite3_bind_text(s, 5, h->date, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, source, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, h->note, -1, SQLITE_STATIC);
    return step_done(st, s, "write a hardware price", err);
}

static const char SQL_ELEC[] =
    "INSERT INTO electricity_price(region, sector, price_per_kwh, year, source) "
    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING";

gp_status gp_store_add_electricity(gp_store *st, const gp_elec_price *e, const char *year,
                                   const char *source, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_ELEC, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, e->region, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, e->sector, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 3, e->price_per_kwh);
    sqlite3_bind_text(s, 4, year, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, source, -1, SQLITE_STATIC);
    return step_done(st, s, "write an electricity price", err);
}

static const char SQL_PUE[] =
    "INSERT INTO pue_reference(scope, year, pue, source) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT DO NOTHING";

gp_status gp_store_add_pue(gp_store *st, const gp_pue_ref *p, const char *source, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_PUE, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, p->scope, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, p->year, -1, SQLITE_STATIC);
    sqlite3_bind_double(s, 3, p->pue);
    sqlite3_bind_text(s, 4, source, -1, SQLITE_STATIC);
    return step_done(st, s, "write a PUE value", err);
}

static const char SQL_TARIFF[] =
    "INSERT INTO tariff_preset(name, utility, description, tariff_json, effective_from, source) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(name) DO UPDATE SET utility = ?2, "
    "description = ?3, tariff_json = ?4, effective_from = ?5, source = ?6";

gp_status gp_store_add_tariff(gp_store *st, const gp_tariff_preset *t, const char *source,
                              gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_TARIFF, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, t->utility, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, t->description, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, t->tariff_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, t->effective_from, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, source, -1, SQLITE_STATIC);
    return step_done(st, s, "write a tariff preset", err);
}

/* ---- readers --------------------------------------------------------------------------------- */

static void text_col(sqlite3_stmt *s, int c, char *dst, size_t cap) {
    const unsigned char *t = sqlite3_column_text(s, c);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static const char SQL_SPECS[] =
    "SELECT g.name, full_name, vendor, memory_gb, tdp_w, fp32_tflops, fp16_tflops, bf16_tflops, "
    "mem_bw_gbs, release_date, source, m.fp32_matrix_tflops FROM gpu_spec g "
    "LEFT JOIN gpu_spec_fp32_matrix m ON m.name = g.name "
    "WHERE ?1 IS NULL OR g.name = ?1 OR g.name LIKE ?1 || '-%' ORDER BY g.name";

gp_status gp_store_specs(gp_store *st, const char *gpu,
                         int (*fn)(const gp_gpu_spec *, const char *source, void *), void *arg,
                         gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_SPECS, &s, err))
        return err->code;
    if (gpu)
        sqlite3_bind_text(s, 1, gpu, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 1);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_gpu_spec g = {0};
        text_col(s, 0, g.name, sizeof g.name);
        text_col(s, 1, g.full_name, sizeof g.full_name);
        text_col(s, 2, g.vendor, sizeof g.vendor);
        for (int i = 0; i < GP_SPEC_N; i++) {
            int col = i == GP_SPEC_FP32_MATRIX ? 11 : 3 + i;
            g.has[i] = sqlite3_column_type(s, col) != SQLITE_NULL;
            g.v[i] = sqlite3_column_double(s, col);
        }
        text_col(s, 9, g.release_date, sizeof g.release_date);
        if (fn(&g, (const char *)sqlite3_column_text(s, 10), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read GPU specs");
    sqlite3_finalize(s);
    return res;
}

static const char SQL_HWS[] =
    "SELECT item, gpu, gpus, price, price_date, note, source FROM hardware_price "
    "WHERE ?1 IS NULL OR gpu = ?1 OR gpu LIKE ?1 || '-%' ORDER BY gpu, price_date";

gp_status gp_store_hardware(gp_store *st, const char *gpu,
                            int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                            gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_HWS, &s, err))
        return err->code;
    if (gpu)
        sqlite3_bind_text(s, 1, gpu, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 1);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_hw_price h = {0};
        text_col(s, 0, h.item, sizeof h.item);
        text_col(s, 1, h.gpu, sizeof h.gpu);
        h.gpus = sqlite3_column_int(s, 2);
        h.price_usd = sqlite3_column_double(s, 3);
        text_col(s, 4, h.date, sizeof h.date);
        text_col(s, 5, h.note, sizeof h.note);
        if (fn(&h, (const char *)sqlite3_column_text(s, 6), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read hardware prices");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_electricity(gp_store *st,
                               int (*fn)(const gp_elec_price *, const char *year,
                                         const char *source, void *),
                               void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st,
                      "SELECT region, sector, price_per_kwh, year, source FROM electricity_price "
                      "ORDER BY region, CASE sector WHEN 'residential' THEN 0 WHEN 'commercial' "
                      "THEN 1 WHEN 'industrial' THEN 2 ELSE 3 END",
                      &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_elec_price e = {0};
        text_col(s, 0, e.region, sizeof e.region);
        text_col(s, 1, e.sector, sizeof e.sector);
        e.price_per_kwh = sqlite3_column_double(s, 2);
        if (fn(&e, (const char *)sqlite3_column_text(s, 3), (const char *)sqlite3_column_text(s, 4),
               arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read electricity prices");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_pue_refs(gp_store *st, int (*fn)(const gp_pue_ref *, const char *source, void *),
                            void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, "SELECT scope, year, pue, source FROM pue_reference ORDER BY year, scope",
                      &s, err))
        return err->code;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_pue_ref p = {0};
        text_col(s, 0, p.scope, sizeof p.scope);
        text_col(s, 1, p.year, sizeof p.year);
        p.pue = sqlite3_column_double(s, 2);
        if (fn(&p, (const char *)sqlite3_column_text(s, 3), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read PUE values");
    sqlite3_finalize(s);
    return res;
}

static const char SQL_TARIFFS[] =
    "SELECT name, utility, description, tariff_json, effective_from, source FROM tariff_preset "
    "WHERE ?1 IS NULL OR name = ?1 ORDER BY name";

static void tariff_row(sqlite3_stmt *s, gp_tariff_preset *t) {
    memset(t, 0, sizeof *t);
    text_col(s, 0, t->name, sizeof t->name);
    text_col(s, 1, t->utility, sizeof t->utility);
    text_col(s, 2, t->description, sizeof t->description);
    text_col(s, 3, t->tariff_json, sizeof t->tariff_json);
    text_col(s, 4, t->effective_from, sizeof t->effective_from);
}

gp_status gp_store_tariffs(gp_store *st,
                           int (*fn)(const gp_tariff_preset *, const char *source, void *),
                           void *arg, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_TARIFFS, &s, err))
        return err->code;
    sqlite3_bind_null(s, 1);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        gp_tariff_preset t;
        tariff_row(s, &t);
        if (fn(&t, (const char *)sqlite3_column_text(s, 5), arg)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    gp_status res = rc == SQLITE_DONE ? GP_OK : store_fail(st, err, "read tariff presets");
    sqlite3_finalize(s);
    return res;
}

gp_status gp_store_tariff(gp_store *st, const char *name, gp_tariff_preset *out, gp_err *err) {
    sqlite3_stmt *s;
    if (store_prepare(st, SQL_TARIFFS, &s, err))
        return err->code;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    gp_status res = GP_OK;
    if (rc == SQLITE_ROW)
        tariff_row(s, out);
    else if (rc == SQLITE_DONE)
        res = gp_errorf(err, GP_E_NOTFOUND, name, "no tariff preset named \"%s\"", name);
    else
        res = store_fail(st, err, "read a tariff preset");
    sqlite3_finalize(s);
    return res;
}
