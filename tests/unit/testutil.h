/* Helpers for the cmocka unit tests. cmocka 1.1.5 has no double-precision assert. */
#ifndef GPUPLAN_TESTUTIL_H
#define GPUPLAN_TESTUTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

/* |a - b| <= rel * max(|a|, |b|), or both within 1e-12 of zero; prints both on failure. */
#define assert_close(a, b, rel)                                                                    \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        double tol_ = (rel)*fmax(fabs(a_), fabs(b_));                                              \
        int ok_ = fabs(a_ - b_) <= tol_ || fabs(a_ - b_) <= 1e-12;                                 \
        if (!ok_)                                                                                  \
            print_error("%s = %.17g, expected %s = %.17g (relative tolerance %g)\n", #a, a_, #b,   \
                        b_, (double)(rel));                                                        \
        assert_true(ok_);                                                                          \
    } while (0)

#define REL 1e-9

#include <stdlib.h>

/* The whole file GP_SOURCE_ROOT/rel, NUL-terminated (free() it), *len its size; NULL (and a
 * message) when it cannot be read. */
static inline char *test_slurp(const char *rel, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", getenv("GP_SOURCE_ROOT"), rel);
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_error("cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

#endif
