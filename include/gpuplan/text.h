/* Outside text made safe for a cell, a CSV field, a title or a document property.
 *
 * Ownership: nothing here allocates; the caller owns both buffers. */
#ifndef GPUPLAN_TEXT_H
#define GPUPLAN_TEXT_H

#include <stddef.h>

/* Copy `in` into out[0..cap) (cap >= 1; always NUL-terminated) with C0 controls (tab and
 * newline included), DEL, C1 controls and the noncharacters U+FFFE and U+FFFF removed, and
 * each byte of invalid UTF-8 (a surrogate's three bytes included) replaced by '?'; text that
 * does not fit is cut at a character boundary. Returns the length written. What comes out
 * holds only characters XML 1.0 can carry. The one sanitiser for every outside string that
 * reaches a CSV field, a workbook, a terminal, a pipe or a log. */
size_t gp_text_clean(const char *in, char *out, size_t cap);

/* The length of the longest prefix of s[0..len) that ends on a UTF-8 character boundary
 * (len itself when s is valid UTF-8 or ends in a complete character). */
size_t gp_text_utf8_cut(const char *s, size_t len);

#endif
