/* Strict parsing of the numbers and dates people type, shared by both front ends.
 *
 * Ownership: nothing allocates. Each function returns false on anything but the whole
 * string being one value (no trailing junk, no hex floats, no nan or inf). */
#ifndef GPUPLAN_PARSE_H
#define GPUPLAN_PARSE_H

#include <stdbool.h>

/* A decimal int (strtol, then range-checked). */
bool gp_parse_int(const char *s, int *out);
/* A finite decimal double. */
bool gp_parse_double(const char *s, double *out);
/* A valid calendar date YYYY-MM-DD. */
bool gp_valid_date(const char *s);
/* Today's local date as YYYY-MM-DD into out (11 bytes). */
void gp_today(char *out);

#endif
