/* The exit value (docs/model.md Results, revision 2.1): the book value of hardware still held at
 * the horizon, credited in self-hosted's total, said with its amount and basis wherever that
 * total is shown (Markdown, CSV, JSON, the TUI, the workbook, the batch page).
 *
 * Ownership: nothing here allocates; text goes to the caller's out[0..cap) (cap >= 1, always
 * NUL-terminated, cut when too small). Plain text: each writer makes it safe for its format. */
#ifndef GPUPLAN_REPORT_EXIT_H
#define GPUPLAN_REPORT_EXIT_H

#include <stddef.h>

#include "gpuplan/engine.h"
#include "gpuplan/scenario.h"

/* How a batch is valued at its exit (docs/model.md pct(t)). */
typedef enum gp_exit_basis {
    GP_EXIT_RESALE,        /* the scenario's resale curve */
    GP_EXIT_STRAIGHT_LINE, /* 1 at age 0 to residual_pct at 12 * depreciation_years */
    GP_EXIT_RESIDUAL_PCT   /* the flat residual_pct at every age */
} gp_exit_basis;

gp_exit_basis gp_exit_basis_of(const gp_scenario *s);

/* The basis's name in the report JSON: "resale", "straight_line", "residual_pct". */
const char *gp_exit_basis_key(gp_exit_basis b);

/* The basis in words, with the scenario's figures: "the resale curve (60 % at 12 months, 45 %
 * at 36 months)", "straight line from 100 % new to 20 % at 48 months (residual_pct over
 * depreciation_years; buy as needed)", "flat 20 % of hardware cost (residual_pct)". */
void gp_exit_basis_text(const gp_scenario *s, char *out, size_t cap);

/* The basis in a few words, for narrow places (the TUI, the batch page): "resale curve",
 * "straight line to 20 % at 60 months", "flat 20 %". */
void gp_exit_basis_short(const gp_scenario *s, char *out, size_t cap);

/* "exit value of 236,000.00 USD credited at month 36 (book value of hardware still held, not cash):
 * <basis>", or "" when r's exit value is 0 (then nothing needs saying). */
void gp_exit_line(const gp_scenario *s, const gp_result *r, char *out, size_t cap);

#endif
