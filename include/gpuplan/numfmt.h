/* Numbers as people read them in Markdown, CSV and the TUI: money to cents, rates to 4
 * significant digits, counts as integers with the right plural. JSON and workbook cells keep
 * full precision and never go through here.
 *
 * Ownership: nothing here allocates; each function writes into the caller's out[0..cap)
 * (cap >= 1; always NUL-terminated, cut when too small) and returns out. */
#ifndef GPUPLAN_NUMFMT_H
#define GPUPLAN_NUMFMT_H

#include <stddef.h>

/* Money with thousands separators and two decimals ("1,562,288.00"), no "-0.00". */
char *gp_fmt_money(double v, char *out, size_t cap);

/* v to a fixed number of decimals (0..9) with thousands separators ("3,475,303"), no "-0". */
char *gp_fmt_grouped(double v, int decimals, char *out, size_t cap);

/* Money for a CSV cell: two decimals, no separators ("656614.79"), no "-0.00". */
char *gp_fmt_cents(double v, char *out, size_t cap);

/* v to `digits` significant digits (1..15) without an exponent and without trailing zeros:
 * 88.4899999 -> "88.49", 0.000123456 -> "0.0001235", 0.6 -> "0.6". Digits left of the point
 * are never dropped (656614.792 -> "656615"); at most 15 decimals. A non-finite v prints as %g
 * does. */
char *gp_fmt_sig(double v, int digits, char *out, size_t cap);

/* gp_fmt_sig with thousands separators in the digits left of the point, for amounts people
 * read in Markdown and the TUI (10398873 -> "10,398,873", 1234.51 -> "1,235", 0.5 -> "0.5");
 * never for CSV cells. */
char *gp_fmt_sig_grouped(double v, int digits, char *out, size_t cap);

/* v to a fixed number of decimals (0..9), the natural precision of a unit (kWh to 1, watts to
 * 1, GPU-hours to 1), no "-0.0". */
char *gp_fmt_fixed(double v, int decimals, char *out, size_t cap);

/* A share (0.6) as a percentage to 4 significant digits without the sign ("60", "31.25"). */
char *gp_fmt_pct(double share, char *out, size_t cap);

/* "1 GPU", "2 GPUs", "0 GPUs": n and the noun, singular only for exactly 1. */
char *gp_fmt_count(long long n, const char *singular, const char *plural, char *out, size_t cap);

#endif
