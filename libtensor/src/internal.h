/*
 * internal.h: helpers shared by libtensor's .c files. Not installed, not
 * part of the contract; names carry the lt__ prefix.
 */
#ifndef LIBTENSOR_INTERNAL_H
#define LIBTENSOR_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include "libtensor.h"

/* Records a detail message for lt_last_error() on this thread and returns
 * status, so a failure reads: return lt__fail(LT_EINVAL, "ndim %d ...", n); */
lt_status lt__fail(lt_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Internal invariants only: never reachable from user input. */
#define LT__ASSERT(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "libtensor: internal error %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* Overflow-checked int64 arithmetic: return 1 on overflow. */
static inline int lt__mul_overflow(int64_t a, int64_t b, int64_t *out) { return __builtin_mul_overflow(a, b, out); }
static inline int lt__add_overflow(int64_t a, int64_t b, int64_t *out) { return __builtin_add_overflow(a, b, out); }

/* Validates ndim against [0, LT_MAX_NDIM] and shape entries against >= 0. */
lt_status lt__check_shape(int32_t ndim, const int64_t *shape);

#endif
