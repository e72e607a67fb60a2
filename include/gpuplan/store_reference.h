/* The reference tables in the store (specs, hardware prices, electricity, PUE, tariff presets):
 * what the bundled catalog and `pricing import` add, and what drafts, reports and the TUI read
 * back. Part of the store layer (src/store/store_reference.c).
 *
 * Ownership: every row handed to a callback is borrowed for the call only. Errors: GP_E_DB
 * for SQLite failures, GP_E_NOTFOUND for a missing entry, GP_E_INPUT for bad arguments. */
#ifndef GPUPLAN_STORE_REFERENCE_H
#define GPUPLAN_STORE_REFERENCE_H

#include "gpuplan/error.h"
#include "gpuplan/reference.h"
#include "gpuplan/store.h"

/* Add rows; repeated rows are ignored. A spec for a GPU already known fills its gaps, and a
 * spec of the SXM form factor takes over from another (servers are built on SXM boards). */
gp_status gp_store_add_spec(gp_store *st, const gp_gpu_spec *s, const char *source, gp_err *err);
gp_status gp_store_add_hardware(gp_store *st, const gp_hw_price *h, const char *source,
                                gp_err *err);
gp_status gp_store_add_electricity(gp_store *st, const gp_elec_price *e, const char *year,
                                   const char *source, gp_err *err);
gp_status gp_store_add_pue(gp_store *st, const gp_pue_ref *p, const char *source, gp_err *err);
gp_status gp_store_add_tariff(gp_store *st, const gp_tariff_preset *t, const char *source,
                              gp_err *err);

/* Readers: one callback per row (borrowed), ordered by name or date; non-zero stops. source is
 * the row's citation. gpu (NULL: all) filters hardware prices like gp_offer_filter.gpu. */
gp_status gp_store_specs(gp_store *st, const char *gpu,
                         int (*fn)(const gp_gpu_spec *, const char *source, void *), void *arg,
                         gp_err *err);
gp_status gp_store_hardware(gp_store *st, const char *gpu,
                            int (*fn)(const gp_hw_price *, const char *source, void *), void *arg,
                            gp_err *err);
gp_status gp_store_electricity(gp_store *st,
                               int (*fn)(const gp_elec_price *, const char *year,
                                         const char *source, void *),
                               void *arg, gp_err *err);
gp_status gp_store_pue_refs(gp_store *st, int (*fn)(const gp_pue_ref *, const char *source, void *),
                            void *arg, gp_err *err);
gp_status gp_store_tariffs(gp_store *st,
                           int (*fn)(const gp_tariff_preset *, const char *source, void *),
                           void *arg, gp_err *err);
/* One tariff preset by name into *out (GP_E_NOTFOUND when unknown). */
gp_status gp_store_tariff(gp_store *st, const char *name, gp_tariff_preset *out, gp_err *err);

#endif
