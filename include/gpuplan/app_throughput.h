/* Work per GPU-hour by GPU model and workload profile (docs/compare.md): the profiles, the
 * spec-derived estimates and the user's measured figures, which win over the estimates.
 *
 * A workload profile (workload.h) is estimated from the workload hardware table instead, per
 * GPU model at the profile's precision and serving point, with tensor parallelism inside one
 * server; a GPU model that cannot run it gets no estimate (gp_throughput_refusal says why).
 * Its bundled published results are stored as kind "published" on every refresh.
 *
 * An estimate of the three spec-scaled profiles is one formula over one spec row (gpu_spec, as
 * `pricing gpus` lists it) with a stated efficiency factor per profile; it is recomputed from the
 * session's catalog whenever a service here reads the table, so it follows the specs. A measured
 * figure is stored as given
 * (`throughput set`, `throughput import`) with its source and date, and is never overwritten
 * by an estimate.
 *
 * Ownership: a gp_tp_list owns its rows (gp_tp_list_done). Errors: GP_E_INPUT for an unknown
 * profile (with "did you mean"), a unit other than the profile's, a value not above 0, an empty
 * source, a bad CSV (origin:line); store errors as the store reports them. */
#ifndef GPUPLAN_APP_THROUGHPUT_H
#define GPUPLAN_APP_THROUGHPUT_H

#include <stdbool.h>

#include "gpuplan/app_session.h"
#include "gpuplan/reference.h"
#include "gpuplan/throughput.h"
#include "gpuplan/workload.h"

typedef enum gp_tp_input { GP_TP_IN_TENSOR16, GP_TP_IN_MEM_BW, GP_TP_IN_FP32 } gp_tp_input;

/* A workload profile: what one unit of work is and how an estimate is derived. */
typedef struct gp_profile {
    const char *name;     /* "llm-training" */
    const char *unit;     /* the unit of work its figures are in, "M tokens" */
    const char *what;     /* one line: the workload and what bounds it */
    gp_tp_input input;    /* the spec column the estimate scales with */
    double efficiency;    /* the stated share of the spec's peak reached */
    double work_per_peak; /* units of work a GPU-hour per spec unit at efficiency 1 */
    const char *formula;  /* the formula, in words and symbols */
    /* A workload profile (workload.h): its estimates come from the workload hardware table
     * (gp_wl_estimate_on) and its published results are bundled; NULL for the three
     * spec-scaled profiles above, whose fields input..work_per_peak apply instead. */
    const gp_workload *wl;
} gp_profile;

extern const gp_profile gp_profiles[];
extern const int gp_n_profiles;

/* The profile called name, or NULL. */
const gp_profile *gp_profile_find(const char *name);
/* The same, GP_E_INPUT naming the known profiles (and the nearest) when unknown. */
gp_status gp_profile_lookup(const char *name, const gp_profile **out, gp_err *err);

/* A user's workload profile resolved for use: p points at w, its unit M tokens. */
typedef struct gp_user_profile {
    gp_profile p;
    gp_workload w;
} gp_user_profile;

/* The profile called name: a bundled one, else one the user added (`throughput profile add`),
 * filled into *buf; GP_E_INPUT naming the known profiles when neither has it. */
gp_status gp_profile_resolve(gp_session *s, const char *name, gp_user_profile *buf,
                             const gp_profile **out, gp_err *err);
/* Add the workload profile in the JSON file at path (workload_json.h, gp_workload_json_parse),
 * replacing a user profile of the same name; a bundled profile's name is GP_E_INPUT. *added
 * gets the profile as parsed. */
gp_status gp_profile_add(gp_session *s, const char *path, gp_workload *added, gp_err *err);

/* The estimate of profile p for the spec row g (cited as spec_source), dated as_of, into out.
 * False when the spec lacks the input the profile needs (out untouched). */
bool gp_throughput_estimate(const gp_profile *p, const gp_gpu_spec *g, const char *spec_source,
                            const char *as_of, gp_throughput *out);

typedef struct gp_tp_list {
    gp_throughput *rows; /* by GPU, profile; a measured figure before the estimate it beats */
    int n;
} gp_tp_list;

/* Why workload profile p has no estimate for gpu, into why (cap bytes): "does not fit: ...",
 * "precision: ..." or "no row in the workload hardware table"; false when it has one or p is
 * not a workload profile. */
bool gp_throughput_refusal(const gp_profile *p, const char *gpu, char *why, size_t cap);

/* Recompute every estimate from the catalog's specs (dated today). */
gp_status gp_throughput_refresh(gp_session *s, gp_err *err);
/* The table after a refresh, filtered by profile and GPU (NULL: any; the GPU normalized). */
gp_status gp_throughput_list(gp_session *s, const char *profile, const char *gpu, gp_tp_list *out,
                             gp_err *err);
void gp_tp_list_done(gp_tp_list *l);
/* The figure that counts for (gpu, profile) in l: the measured one, else the published one,
 * else the estimate; NULL when l has none. */
const gp_throughput *gp_tp_effective(const gp_tp_list *l, const char *gpu, const char *profile);

/* Store a measured figure (dated today); *stored gets the row as stored (normalized GPU). */
gp_status gp_throughput_set(gp_session *s, const char *gpu, const char *profile, double value,
                            const char *unit, const char *source, gp_throughput *stored,
                            gp_err *err);
/* Import measured figures from a CSV file (throughput.h): all or none; *n gets the count. */
gp_status gp_throughput_import(gp_session *s, const char *path, int *n, gp_err *err);

#endif
