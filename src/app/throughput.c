/* Throughput profiles, estimates and measured figures (app_throughput.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_throughput.h"
#include "gpuplan/files.h"
#include "gpuplan/parse.h"
#include "gpuplan/store_catalog.h"
#include "gpuplan/store_reference.h"
#include "gpuplan/store_throughput.h"
#include "gpuplan/workload_json.h"
#include "gpuplan/xmem.h"

/* The reference workloads of docs/compare.md. A dense 7e9-parameter model: training costs
 * 6 FLOP a parameter a token (forward and backward), so a GPU-hour at F TFLOP/s and
 * efficiency 1 trains 3600 * F * 1e12 / (6 * 7e9) tokens; decoding at batch 32 in BF16 reads
 * the 2 * 7e9 bytes of weights once a step for 32 tokens, so a GPU-hour at B GB/s decodes
 * 3600 * 32 * B * 1e9 / (2 * 7e9) tokens; FP32 work is counted in PFLOP. */
#define PARAMS 7e9
#define BATCH 32.0

const gp_profile gp_profiles[] = {
    {"llm-training", "M tokens",
     "dense LLM pre-training of a 7B model in BF16: compute-bound (tensor FLOP/s)",
     GP_TP_IN_TENSOR16, 0.40, 3600.0 * 1e12 / (6.0 * PARAMS) / 1e6,
     "M tokens/GPU-h = 3600 s x eff x F x 1e12 / (6 x 7e9 FLOP a token) / 1e6, F = dense BF16 "
     "tensor TFLOP/s (FP16 where the spec gives no BF16), eff = 0.40 (model FLOP utilization)",
     NULL},
    {"llm-inference-decode", "M tokens",
     "LLM decode of a 7B model in BF16 at batch 32: memory-bandwidth-bound (weights read a step)",
     GP_TP_IN_MEM_BW, 0.60, 3600.0 * BATCH * 1e9 / (2.0 * PARAMS) / 1e6,
     "M tokens/GPU-h = 3600 s x eff x B x 1e9 x 32 tokens a step / (2 x 7e9 bytes of weights) / "
     "1e6, B = memory bandwidth GB/s, eff = 0.60 (share of peak bandwidth reached)",
     NULL},
    {"fp32", "PFLOP", "a generic FP32 job (non-tensor single precision): compute-bound",
     GP_TP_IN_FP32, 0.50, 3600.0 * 1e12 / 1e15,
     "PFLOP/GPU-h = 3600 s x eff x F32 x 1e12 / 1e15, F32 = FP32 TFLOP/s, eff = 0.50 (share of "
     "peak reached)",
     NULL},
    {"llama2-70b-offline", "M tokens", NULL, 0, 0, 0, NULL, &gp_workloads[0]},
    {"llama3-8b-decode", "M tokens", NULL, 0, 0, 0, NULL, &gp_workloads[1]},
    {"llama3-70b-decode", "M tokens", NULL, 0, 0, 0, NULL, &gp_workloads[2]},
    {"llama2-7b-training", "M tokens", NULL, 0, 0, 0, NULL, &gp_workloads[3]},
};
const int gp_n_profiles = sizeof gp_profiles / sizeof gp_profiles[0];

const gp_profile *gp_profile_find(const char *name) {
    for (int i = 0; i < gp_n_profiles; i++)
        if (strcmp(name, gp_profiles[i].name) == 0)
            return &gp_profiles[i];
    return NULL;
}

gp_status gp_profile_lookup(const char *name, const gp_profile **out, gp_err *err) {
    *out = gp_profile_find(name);
    if (*out)
        return GP_OK;
    const char *names[32];
    char known[512] = "";
    int n = gp_n_profiles < 32 ? gp_n_profiles : 32;
    for (int i = 0; i < n; i++) {
        names[i] = gp_profiles[i].name;
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 names[i]);
    }
    int near = gp_nearest_name(name, names, n);
    char hint[80] = "";
    if (near >= 0)
        snprintf(hint, sizeof hint, "did you mean %s? ", names[near]);
    return gp_errorf(err, GP_E_INPUT, "--profile", "unknown profile \"%s\" (%sknown: %s)", name,
                     hint, known);
}

typedef struct stored_profile {
    gp_user_profile *buf;
    gp_status st;
    gp_err *err;
} stored_profile;

static int take_stored(const char *name, const char *json, void *arg) {
    stored_profile *sp = arg;
    char origin[80];
    snprintf(origin, sizeof origin, "stored profile %s", name);
    sp->st = gp_workload_json_parse(json, strlen(json), origin, &sp->buf->w, sp->err);
    if (sp->st == GP_OK)
        sp->buf->p = (gp_profile){sp->buf->w.name,   "M tokens", sp->buf->w.what, 0, 0, 0,
                                  sp->buf->w.source, &sp->buf->w};
    return 1;
}

gp_status gp_profile_resolve(gp_session *ses, const char *name, gp_user_profile *buf,
                             const gp_profile **out, gp_err *err) {
    *out = gp_profile_find(name);
    if (*out)
        return GP_OK;
    gp_store *st;
    stored_profile sp = {buf, GP_E_NOTFOUND, err};
    if (gp_session_store(ses, &st, err) ||
        gp_store_workload_profiles(st, name, take_stored, &sp, err))
        return err->code;
    if (sp.st == GP_OK) {
        *out = &buf->p;
        return GP_OK;
    }
    if (sp.st != GP_E_NOTFOUND)
        return sp.st;
    return gp_profile_lookup(name, out, err);
}

gp_status gp_profile_add(gp_session *ses, const char *path, gp_workload *added, gp_err *err) {
    gp_buf text;
    gp_buf_init(&text, 64u << 10);
    gp_store *st;
    gp_status rc = gp_read_file(path, 64u << 10, &text, err);
    if (rc == GP_OK)
        rc = gp_workload_json_parse(text.data, text.len, path, added, err);
    if (rc == GP_OK && gp_profile_find(added->name))
        rc = gp_errorf(err, GP_E_INPUT, path,
                       "$.name: \"%s\" is a bundled profile: give yours another name", added->name);
    if (rc == GP_OK)
        rc = gp_session_store(ses, &st, err);
    if (rc == GP_OK) {
        char *json = gp_xmalloc(text.len + 1);
        memcpy(json, text.data, text.len);
        json[text.len] = '\0';
        rc = gp_store_put_workload_profile(st, added->name, json, ses->today, err);
        free(json);
    }
    gp_buf_done(&text);
    return rc;
}

bool gp_throughput_estimate(const gp_profile *p, const gp_gpu_spec *g, const char *spec_source,
                            const char *as_of, gp_throughput *out) {
    if (p->wl)
        return false; /* estimated from the workload hardware table, not a spec row */
    int col;
    const char *what;
    switch (p->input) {
    case GP_TP_IN_TENSOR16:
        col = g->has[GP_SPEC_BF16] ? GP_SPEC_BF16 : GP_SPEC_FP16;
        what = g->has[GP_SPEC_BF16] ? "bf16_tflops" : "fp16_tflops";
        break;
    case GP_TP_IN_MEM_BW:
        col = GP_SPEC_MEM_BW_GBS;
        what = "mem_bw_gbs";
        break;
    default:
        col = GP_SPEC_FP32;
        what = "fp32_tflops";
        break;
    }
    if (!g->has[col] || !(g->v[col] > 0))
        return false;
    memset(out, 0, sizeof *out);
    snprintf(out->gpu, sizeof out->gpu, "%s", g->name);
    snprintf(out->profile, sizeof out->profile, "%s", p->name);
    out->kind = GP_TP_ESTIMATE;
    out->value = p->efficiency * g->v[col] * p->work_per_peak;
    snprintf(out->unit, sizeof out->unit, "%s", p->unit);
    snprintf(out->as_of, sizeof out->as_of, "%s", as_of);
    snprintf(out->source, sizeof out->source,
             "spec-derived estimate: %s; input %s = %g from the spec row gpu_spec \"%s\" (%s), "
             "%s",
             p->formula, what, g->v[col], g->name, g->full_name, spec_source);
    return true;
}

typedef struct derive {
    const gp_profile *p;
    const char *today;
    gp_throughput *rows;
    int n, cap;
} derive;

static int derive_one(const gp_gpu_spec *g, const char *source, void *arg) {
    derive *d = arg;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->rows = gp_xrealloc(d->rows, (size_t)d->cap * sizeof *d->rows);
    }
    if (gp_throughput_estimate(d->p, g, source, d->today, &d->rows[d->n]))
        d->n++;
    return 0;
}

/* Every fitting estimate of workload profile p from the hardware table, into d. */
static void derive_workload(derive *d) {
    const gp_workload *w = d->p->wl;
    for (int i = 0; i < gp_wl_n_hw; i++) {
        gp_wl_estimate e;
        gp_wl_estimate_on(w, &gp_wl_hw_table[i], &e);
        if (!e.fits || !(e.m_tokens_per_gpu_hour > 0))
            continue;
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 32;
            d->rows = gp_xrealloc(d->rows, (size_t)d->cap * sizeof *d->rows);
        }
        gp_throughput *t = &d->rows[d->n++];
        memset(t, 0, sizeof *t);
        snprintf(t->gpu, sizeof t->gpu, "%s", gp_wl_hw_table[i].gpu);
        snprintf(t->profile, sizeof t->profile, "%s", w->name);
        t->kind = GP_TP_ESTIMATE;
        t->value = e.m_tokens_per_gpu_hour;
        snprintf(t->unit, sizeof t->unit, "%s", d->p->unit);
        snprintf(t->as_of, sizeof t->as_of, "%s", d->today);
        snprintf(t->source, sizeof t->source,
                 "workload estimate (%s, %s): %s; efficiency: %s; hardware: %s; model: %s", w->name,
                 gp_wl_phase_name(w->phase), e.formula, e.eff.source, gp_wl_hw_table[i].source,
                 w->source);
    }
}

/* The bundled published results of workload profile p, as stored rows (per GPU), into
 * rows[0..*n), *n <= cap. */
static void published_rows(const gp_profile *p, gp_throughput *rows, int cap, int *n) {
    *n = 0;
    for (int i = 0; i < gp_wl_n_published && *n < cap; i++) {
        const gp_wl_published *r = &gp_wl_published_table[i];
        if (strcmp(r->profile, p->name) != 0)
            continue;
        gp_throughput *t = &rows[(*n)++];
        memset(t, 0, sizeof *t);
        snprintf(t->gpu, sizeof t->gpu, "%s", r->gpu);
        snprintf(t->profile, sizeof t->profile, "%s", r->profile);
        t->kind = GP_TP_PUBLISHED;
        t->value = r->tokens_per_s_system / r->gpus * 3600.0 / 1e6;
        snprintf(t->unit, sizeof t->unit, "%s", p->unit);
        snprintf(t->as_of, sizeof t->as_of, "%s", r->as_of);
        snprintf(t->source, sizeof t->source, "published: %g tokens/s over %d GPU%s at %s; %s",
                 r->tokens_per_s_system, r->gpus, r->gpus == 1 ? "" : "s", r->precision, r->source);
    }
}

bool gp_throughput_refusal(const gp_profile *p, const char *gpu, char *why, size_t cap) {
    if (!p->wl)
        return false;
    const gp_wl_hw *h = gp_wl_hw_find(gpu);
    if (!h) {
        snprintf(why, cap,
                 "no row for %s in the workload hardware table (precision rates, memory): "
                 "give a measured figure with gpuplan throughput set",
                 gpu);
        return true;
    }
    gp_wl_estimate e;
    gp_wl_estimate_on(p->wl, h, &e);
    if (e.fits)
        return false;
    snprintf(why, cap, "%s", e.why);
    return true;
}

/* One walk over every row the refresh derives: taking their fingerprint (FNV-1a over each
 * row, field by field) and, when write is set, storing them too. The rows are a function of
 * all the refresh's inputs (the spec rows, the bundled and stored profiles, the code that
 * derives them, today's date they are stamped with), so equal fingerprints mean the stored
 * rows are already these. */
typedef struct refresh_pass {
    gp_store *st;
    const char *today;
    bool write;
    uint64_t hash;
    long long rows; /* how many rows the walk derived */
    gp_status rc;
    gp_err *err;
} refresh_pass;

/* The meta key of the fingerprint of the rows last stored. */
#define TP_FINGERPRINT_KEY "throughput_refresh"

static void hash_bytes(uint64_t *h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 0x100000001b3ull;
}

static void hash_text(uint64_t *h, const char *s) {
    hash_bytes(h, s, strlen(s) + 1); /* the NUL too: "ab","c" is not "a","bc" */
}

/* Rows of one kind (estimates replaced, or published put) for profile into the pass. */
static gp_status pass_rows(refresh_pass *r, const char *what, const char *profile,
                           const gp_throughput *rows, int n) {
    hash_text(&r->hash, what);
    hash_text(&r->hash, profile);
    hash_bytes(&r->hash, &n, sizeof n);
    r->rows += n;
    for (int i = 0; i < n; i++) {
        const gp_throughput *t = &rows[i];
        hash_text(&r->hash, t->gpu);
        hash_text(&r->hash, t->profile);
        hash_bytes(&r->hash, &t->kind, sizeof t->kind);
        hash_bytes(&r->hash, &t->value, sizeof t->value);
        hash_text(&r->hash, t->unit);
        hash_text(&r->hash, t->source);
        hash_text(&r->hash, t->as_of);
    }
    if (!r->write)
        return GP_OK;
    if (!strcmp(what, "estimates"))
        return gp_store_replace_estimates(r->st, profile, rows, n, r->err);
    return n ? gp_store_put_throughputs(r->st, rows, n, r->err) : GP_OK;
}

/* One stored user profile: its estimates replace the stored ones (a profile that no longer
 * parses keeps none). */
static int refresh_user(const char *name, const char *json, void *arg) {
    refresh_pass *r = arg;
    gp_user_profile up;
    gp_err ignore;
    stored_profile sp = {&up, GP_E_NOTFOUND, &ignore};
    take_stored(name, json, &sp);
    derive d = {&up.p, r->today, NULL, 0, 0};
    if (sp.st == GP_OK)
        derive_workload(&d);
    r->rc = pass_rows(r, "estimates", name, d.rows, d.n);
    free(d.rows);
    return r->rc != GP_OK;
}

/* The bundled profiles' rows (estimates, and the published results of workload profiles),
 * then the stored profiles' estimates, through pass r. */
static gp_status refresh_walk(refresh_pass *r, gp_err *err) {
    for (int i = 0; i < gp_n_profiles; i++) {
        derive d = {&gp_profiles[i], r->today, NULL, 0, 0};
        gp_status rc = GP_OK;
        if (d.p->wl) {
            gp_throughput pub[16];
            int n;
            derive_workload(&d);
            published_rows(d.p, pub, 16, &n);
            rc = pass_rows(r, "published", d.p->name, pub, n);
        } else {
            rc = gp_store_specs(r->st, NULL, derive_one, &d, err);
        }
        if (rc == GP_OK)
            rc = pass_rows(r, "estimates", d.p->name, d.rows, d.n);
        free(d.rows);
        if (rc)
            return rc;
    }
    r->rc = GP_OK;
    if (gp_store_workload_profiles(r->st, NULL, refresh_user, r, err))
        return err->code;
    return r->rc;
}

gp_status gp_throughput_refresh(gp_session *ses, gp_err *err) {
    gp_store *st;
    if (gp_session_catalog(ses, &st, err))
        return err->code;
    if (gp_store_read_only(st))
        return GP_OK; /* the estimates as stored: replacing them is a write */
    refresh_pass r = {st, ses->today, false, 0xcbf29ce484222325ull, 0, GP_OK, err};
    char *stored = NULL, fp[17];
    long long held;
    if (refresh_walk(&r, err) || gp_store_meta_get(st, TP_FINGERPRINT_KEY, &stored, err) ||
        gp_store_derived_count(st, &held, err)) {
        free(stored);
        return err->code;
    }
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r.hash);
    /* The count too: rows deleted behind the fingerprint's back (by hand, a restore) are
     * stored again rather than missed until the inputs change. At least, not equal: a
     * published row an older bundle had stays (published rows are put, never replaced), and
     * must not make every read a write again. */
    bool same = stored && !strcmp(stored, fp) && held >= r.rows;
    free(stored);
    if (same)
        return GP_OK; /* the rows stored are these: a read stays a read */
    r.write = true;
    r.hash = 0xcbf29ce484222325ull;
    r.rows = 0;
    if (refresh_walk(&r, err))
        return err->code;
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)r.hash);
    return gp_store_meta_set(st, TP_FINGERPRINT_KEY, fp, err);
}

static int collect(const gp_throughput *t, void *arg) {
    gp_tp_list *l = arg;
    if ((l->n & (l->n - 1)) == 0) /* 0, 1, 2, 4, ...: grow at powers of two */
        l->rows = gp_xrealloc(l->rows, (size_t)(l->n ? 2 * l->n : 1) * sizeof *l->rows);
    l->rows[l->n++] = *t;
    return 0;
}

gp_status gp_throughput_list(gp_session *ses, const char *profile, const char *gpu, gp_tp_list *out,
                             gp_err *err) {
    memset(out, 0, sizeof *out);
    const gp_profile *p;
    gp_user_profile up;
    if (profile && gp_profile_resolve(ses, profile, &up, &p, err))
        return err->code;
    char name[GP_GPU_NAME_BYTES];
    if (gpu)
        gp_gpu_normalize(gpu, 0, name, sizeof name);
    gp_store *st;
    if (gp_throughput_refresh(ses, err) || gp_session_store(ses, &st, err))
        return err->code;
    if (gp_store_throughputs(st, profile, gpu ? name : NULL, collect, out, err)) {
        gp_tp_list_done(out);
        return err->code;
    }
    return GP_OK;
}

void gp_tp_list_done(gp_tp_list *l) {
    free(l->rows);
    l->rows = NULL;
    l->n = 0;
}

const gp_throughput *gp_tp_effective(const gp_tp_list *l, const char *gpu, const char *profile) {
    static const int rank[] = {[GP_TP_ESTIMATE] = 0, [GP_TP_PUBLISHED] = 1, [GP_TP_MEASURED] = 2};
    const gp_throughput *best = NULL;
    for (int i = 0; i < l->n; i++) {
        const gp_throughput *t = &l->rows[i];
        if (strcmp(t->gpu, gpu) != 0 || strcmp(t->profile, profile) != 0)
            continue;
        if (!best || rank[t->kind] > rank[best->kind])
            best = t;
    }
    return best;
}

/* A measured figure as the user gives it, checked against its profile. */
static gp_status check_measured(gp_session *ses, const gp_throughput *t, const char *where,
                                gp_err *err) {
    const gp_profile *p;
    gp_user_profile up;
    gp_err why;
    if (gp_profile_resolve(ses, t->profile, &up, &p, &why))
        return why.code == GP_E_INPUT ? gp_errorf(err, GP_E_INPUT, where, "%s", why.msg)
                                      : (*err = why, err->code);
    if (strcmp(t->unit, p->unit) != 0)
        return gp_errorf(err, GP_E_INPUT, where,
                         "unit \"%s\": profile %s is counted in \"%s\" per GPU-hour", t->unit,
                         p->name, p->unit);
    if (!(t->value > 0) || !isfinite(t->value))
        return gp_errorf(err, GP_E_INPUT, where, "the value must be a number above 0");
    if (!t->source[0])
        return gp_errorf(err, GP_E_INPUT, where, "--source is required: say where it comes from");
    return GP_OK;
}

gp_status gp_throughput_set(gp_session *ses, const char *gpu, const char *profile, double value,
                            const char *unit, const char *source, gp_throughput *stored,
                            gp_err *err) {
    gp_throughput t = {.kind = GP_TP_MEASURED, .value = value};
    gp_gpu_normalize(gpu, 0, t.gpu, sizeof t.gpu);
    snprintf(t.profile, sizeof t.profile, "%s", profile);
    snprintf(t.unit, sizeof t.unit, "%s", unit);
    snprintf(t.source, sizeof t.source, "%s", source);
    snprintf(t.as_of, sizeof t.as_of, "%s", ses->today);
    if (!t.gpu[0])
        return gp_errorf(err, GP_E_INPUT, "throughput set", "\"%s\" is not a GPU name", gpu);
    gp_store *st;
    if (check_measured(ses, &t, "throughput set", err) || gp_session_store(ses, &st, err) ||
        gp_store_put_throughput(st, &t, err))
        return err->code;
    if (stored)
        *stored = t;
    return GP_OK;
}

typedef struct import_rows {
    gp_tp_list l;
    gp_session *ses;
    const char *origin, *today;
} import_rows;

static gp_status take_row(const gp_throughput *t, void *arg, gp_err *err) {
    import_rows *ir = arg;
    char where[600];
    snprintf(where, sizeof where, "%s:%d", ir->origin, t->line);
    if (check_measured(ir->ses, t, where, err))
        return err->code;
    collect(t, &ir->l);
    gp_throughput *r = &ir->l.rows[ir->l.n - 1];
    if (!r->as_of[0])
        snprintf(r->as_of, sizeof r->as_of, "%s", ir->today);
    return GP_OK;
}

gp_status gp_throughput_import(gp_session *ses, const char *path, int *n, gp_err *err) {
    *n = 0;
    gp_buf text;
    gp_buf_init(&text, 16u << 20);
    import_rows ir = {{NULL, 0}, ses, path, ses->today};
    gp_store *st;
    gp_status rc = gp_read_file(path, 16u << 20, &text, err);
    if (rc == GP_OK)
        rc = gp_throughput_csv_parse(text.data, text.len, path, take_row, &ir, err);
    if (rc == GP_OK && ir.l.n == 0)
        rc = gp_errorf(err, GP_E_INPUT, path, "no figures: only a header");
    if (rc == GP_OK)
        rc = gp_session_store(ses, &st, err);
    if (rc == GP_OK)
        rc = gp_store_put_throughputs(st, ir.l.rows, ir.l.n, err);
    if (rc == GP_OK)
        *n = ir.l.n;
    gp_buf_done(&text);
    gp_tp_list_done(&ir.l);
    return rc;
}
