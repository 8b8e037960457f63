/* minitest.h: the smallest assertion kit that prints both operands, so a
 * failure reads "expected 3 == 4" rather than just "failed". */
#ifndef MINITEST_H
#define MINITEST_H
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_failures;

#define MT_FAIL(...)                                            \
    do {                                                        \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);         \
        fprintf(stderr, __VA_ARGS__);                           \
        fputc('\n', stderr);                                    \
        mt_failures++;                                          \
    } while (0)

#define CHECK(cond)                                             \
    do {                                                        \
        if (!(cond))                                            \
            MT_FAIL("check failed: %s", #cond);                 \
    } while (0)

#define CHECK_INT(a, b)                                                              \
    do {                                                                             \
        long long a_ = (long long)(a), b_ = (long long)(b);                          \
        if (a_ != b_)                                                                \
            MT_FAIL("expected %s == %s, got %lld vs %lld", #a, #b, a_, b_);          \
    } while (0)

#define CHECK_DBL(a, b)                                                              \
    do {                                                                             \
        double a_ = (double)(a), b_ = (double)(b);                                   \
        if (!(a_ == b_ || (a_ != a_ && b_ != b_)))                                   \
            MT_FAIL("expected %s == %s, got %.17g vs %.17g", #a, #b, a_, b_);        \
    } while (0)

#define CHECK_STR(a, b)                                                              \
    do {                                                                             \
        const char *a_ = (a), *b_ = (b);                                             \
        if (strcmp(a_, b_) != 0)                                                     \
            MT_FAIL("expected %s == %s, got \"%s\" vs \"%s\"", #a, #b, a_, b_);      \
    } while (0)

/* Ends main(): prints a summary and returns the exit status meson reads. */
#define MT_DONE()                                                                    \
    do {                                                                             \
        if (mt_failures)                                                             \
            fprintf(stderr, "%d check(s) failed\n", mt_failures);                    \
        return mt_failures ? 1 : 0;                                                  \
    } while (0)
#endif
