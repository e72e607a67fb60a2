/* Outside text made safe for a cell, a CSV field, a title or a document property.
 *
 * Ownership: nothing here allocates; the caller owns both buffers. */
#ifndef GPUPLAN_TEXT_H
#define GPUPLAN_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* What one character of outside text is, to the sanitisers below and to writers that
 * escape as they go (Markdown, SVG, the terminal). */
typedef enum gp_text_class {
    GP_TEXT_PLAIN,   /* a character to keep */
    GP_TEXT_LINE,    /* tab, newline or carriage return */
    GP_TEXT_CONTROL, /* another C0 control, DEL, a C1 control, U+FFFE or U+FFFF */
    GP_TEXT_BIDI,    /* a bidirectional mark or override: U+200E, U+200F, U+202A..U+202E,
                        U+2066..U+2069 (text that reads other than it is) */
    GP_TEXT_INVALID, /* one byte that does not begin valid UTF-8 (overlong forms, surrogates,
                        values past U+10FFFF and characters cut short included) */
} gp_text_class;

/* The class of the character at s[0..left) (left >= 1), and in *len its length in bytes
 * (1 for GP_TEXT_INVALID). */
gp_text_class gp_text_next(const char *s, size_t left, size_t *len);

/* What gp_text_clean_with keeps and what it puts in place of what it takes out. */
typedef struct gp_text_rules {
    const char *mark; /* put for each control and invalid byte; NULL: controls removed and
                         each invalid byte '?' (gp_text_clean) */
    bool keep_lines;  /* tab, newline and carriage return kept */
    bool drop_bidi;   /* bidirectional marks and overrides treated as controls */
} gp_text_rules;

/* Copy `in` into out[0..cap) (cap >= 1; always NUL-terminated) with C0 controls (tab and
 * newline included), DEL, C1 controls and the noncharacters U+FFFE and U+FFFF removed, and
 * each byte of invalid UTF-8 (a surrogate's three bytes included) replaced by '?'; text that
 * does not fit is cut at a character boundary. Returns the length written. What comes out
 * holds only characters XML 1.0 can carry. The one sanitiser for every outside string that
 * reaches a CSV field, a workbook, a terminal, a pipe or a log. */
size_t gp_text_clean(const char *in, char *out, size_t cap);

/* gp_text_clean under `rules`: the same classes, cut at a character boundary, always
 * NUL-terminated (cap >= 1); out must not overlap in. Returns the length written. */
size_t gp_text_clean_with(const char *in, char *out, size_t cap, const gp_text_rules *rules);

/* The length of the longest prefix of s[0..len) that ends on a UTF-8 character boundary
 * (len itself when s is valid UTF-8 or ends in a complete character). */
size_t gp_text_utf8_cut(const char *s, size_t len);

#endif
