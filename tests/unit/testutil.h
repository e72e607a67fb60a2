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
#define assert_close(a, b, rel)                                                                  \
    do {                                                                                         \
        double a_ = (a), b_ = (b);                                                               \
        double tol_ = (rel) * fmax(fabs(a_), fabs(b_));                                          \
        int ok_ = fabs(a_ - b_) <= tol_ || fabs(a_ - b_) <= 1e-12;                               \
        if (!ok_)                                                                                \
            print_error("%s = %.17g, expected %s = %.17g (relative tolerance %g)\n", #a, a_,     \
                        #b, b_, (double)(rel));                                                  \
        assert_true(ok_);                                                                        \
    } while (0)

#define REL 1e-9

#endif
