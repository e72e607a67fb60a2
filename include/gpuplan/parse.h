/* Strict parsing of the numbers and dates people type, shared by both front ends.
 *
 * Ownership: nothing allocates. Each function returns false on anything but the whole
 * string being one value (no trailing junk, no hex floats, no nan or inf). */
#ifndef GPUPLAN_PARSE_H
#define GPUPLAN_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* A decimal int (strtol, then range-checked). */
bool gp_parse_int(const char *s, int *out);
/* A finite decimal double. */
bool gp_parse_double(const char *s, double *out);
/* A share, as people write it: "0.7" or "70%" (spaces allowed before the sign) both give
 * 0.7. Not negative; the caller checks the upper bound. */
bool gp_parse_share(const char *s, double *out);
/* A valid calendar date YYYY-MM-DD. */
bool gp_valid_date(const char *s);
/* The days from 1970-01-01 to a valid date YYYY-MM-DD into *days; false when not valid. */
bool gp_date_days(const char *s, long *days);
/* The index of the name in names[0..n) nearest to want by edit distance (letters compared
 * without case), or -1 when none is near enough to be what was meant (a third of its
 * length, at least 2). For "did you mean" in errors. */
int gp_nearest_name(const char *want, const char *const *names, int n);

/* Today's local date as YYYY-MM-DD into out (11 bytes). */
void gp_today(char *out);

#endif
