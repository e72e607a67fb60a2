#include "gpuplan/xmem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n) {
    fprintf(stderr, "gpuplan: out of memory (asked for %zu bytes)\n", n);
    exit(1);
}

void *gp_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *gp_xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *gp_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void *gp_xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first) {
    if (n < *cap)
        return p;
    size_t c = *cap ? 2 * *cap : first;
    if (c < *cap || c > SIZE_MAX / size)
        oom(SIZE_MAX);
    *cap = c;
    return gp_xrealloc(p, c * size);
}

char *gp_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = gp_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void gp_buf_init(gp_buf *b, size_t limit) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->limit = limit;
}

void gp_buf_done(gp_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

gp_status gp_buf_add(gp_buf *b, const void *data, size_t n) {
    if (n > b->limit || b->len > b->limit - n)
        return GP_E_LIMIT;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = gp_xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
    return GP_OK;
}

gp_status gp_buf_printf(gp_buf *b, const char *fmt, ...) {
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return GP_E_INPUT;
    if ((size_t)n < sizeof small)
        return gp_buf_add(b, small, (size_t)n);
    char *big = gp_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gp_status st = gp_buf_add(b, big, (size_t)n);
    free(big);
    return st;
}
