/* Allocation that cannot fail, and a growable byte buffer with a hard cap.
 *
 * Ownership: gp_xmalloc/gp_xcalloc/gp_xstrdup hand over memory the caller frees with free().
 * They print one line and exit(1) on out-of-memory, so only call them with sizes that are
 * fixed or capped first (docs/development.md). A gp_buf owns its bytes; gp_buf_done frees them. */
#ifndef GPUPLAN_XMEM_H
#define GPUPLAN_XMEM_H

#include <stddef.h>

#include "gpuplan/error.h"

void *gp_xmalloc(size_t n);
void *gp_xcalloc(size_t count, size_t size);
void *gp_xrealloc(void *p, size_t n);
char *gp_xstrdup(const char *s);
/* Room for element n of the array p: when n == *cap, grows *cap (to first, then doubling) and
 * reallocates; returns the array. For arrays whose length is bounded (docs/development.md). */
void *gp_xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first);

typedef struct gp_buf {
    char *data; /* NUL-terminated after every successful add; NULL while empty */
    size_t len;
    size_t cap;
    size_t limit; /* adding past this many bytes fails with GP_E_LIMIT */
} gp_buf;

/* Start an empty buffer that may hold at most limit bytes. */
void gp_buf_init(gp_buf *b, size_t limit);
/* Free the bytes and leave the buffer empty (limit kept). */
void gp_buf_done(gp_buf *b);
/* Append n bytes. On GP_E_LIMIT the buffer is unchanged. */
gp_status gp_buf_add(gp_buf *b, const void *data, size_t n);
/* Append printf-style text. On GP_E_LIMIT the buffer is unchanged. */
gp_status gp_buf_printf(gp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
