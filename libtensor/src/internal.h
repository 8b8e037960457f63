/*
 * internal.h: helpers shared by libtensor's .c files. Not installed, not
 * part of the contract; names carry the lt__ prefix.
 */
#ifndef LIBTENSOR_INTERNAL_H
#define LIBTENSOR_INTERNAL_H

#include <stddef.h>
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

/* ------------------------------------------------------------ kernel dimension order
 *
 * The rule kernels use to walk memory well, over ndim dimensions of nops
 * operands: strides[k * op_step + d * dim_step] is operand k's stride along
 * dimension d, in any one unit (kernels use bytes), so a caller may keep its
 * strides operand by operand (op_step LT_MAX_NDIM, dim_step 1: ops.c) or
 * dimension by dimension (op_step 1, dim_step the operand count: threads.c's
 * walk). Both work in place and allocate nothing. They are defined here,
 * inline, because they run on every kernel call: inlined, each caller's
 * constant steps compile to plain indexing.
 *
 * lt__layout_sort_dims orders the dimensions outermost first by descending
 * |stride| of operand 0, ties broken by the later operands in turn (a stable
 * sort), so the innermost dimension is the densest.
 *
 * lt__layout_merge_dims merges each dimension d into the kept dimension
 * before it (o) wherever every operand chains,
 *   strides[k][o] == strides[k][d] * shape[d]   (a product beyond ptrdiff_t never chains),
 * giving extent shape[o] * shape[d] and d's stride; order is kept. Returns the
 * new ndim (0 and 1 are returned unchanged). Callers drop extent-1
 * dimensions first; merged extents are bounded by the element count. */

static inline ptrdiff_t lt__abs_stride(ptrdiff_t s) { return s < 0 ? -s : s; }

/* Dimension a goes outside dimension b. */
static inline int lt__outer_than(const ptrdiff_t *strides, int nops, ptrdiff_t op_step, ptrdiff_t dim_step, int32_t a,
                                 int32_t b)
{
    for (int k = 0; k < nops; k++) {
        ptrdiff_t sa = lt__abs_stride(strides[k * op_step + a * dim_step]);
        ptrdiff_t sb = lt__abs_stride(strides[k * op_step + b * dim_step]);
        if (sa != sb)
            return sa > sb;
    }
    return 0;
}

static inline void lt__layout_sort_dims(int32_t ndim, int64_t *shape, int nops, ptrdiff_t *strides,
                                        ptrdiff_t op_step, ptrdiff_t dim_step)
{
    for (int32_t i = 1; i < ndim; i++) /* insertion sort: ndim is small, and it is stable */
        for (int32_t j = i; j > 0 && lt__outer_than(strides, nops, op_step, dim_step, j, j - 1); j--) {
            int64_t t = shape[j];
            shape[j] = shape[j - 1];
            shape[j - 1] = t;
            for (int k = 0; k < nops; k++) {
                ptrdiff_t *a = &strides[k * op_step + j * dim_step], *b = a - dim_step, s = *a;
                *a = *b;
                *b = s;
            }
        }
}

static inline int32_t lt__layout_merge_dims(int32_t ndim, int64_t *shape, int nops, ptrdiff_t *strides,
                                            ptrdiff_t op_step, ptrdiff_t dim_step)
{
    if (ndim <= 1)
        return ndim;
    int32_t out = 0;
    for (int32_t d = 1; d < ndim; d++) {
        int chains = 1; /* every operand steps from dim out to dim d as one longer dimension */
        for (int k = 0; k < nops && chains; k++) {
            ptrdiff_t inner_span; /* stride[d] * shape[d]; beyond ptrdiff_t it chains with nothing */
            const ptrdiff_t *sk = strides + k * op_step;
            chains = !__builtin_mul_overflow(sk[d * dim_step], shape[d], &inner_span) && sk[out * dim_step] == inner_span;
        }
        /* merged: extent shape[out] * shape[d] (at most numel), stepping like dim d */
        int32_t to = chains ? out : ++out;
        int64_t extent = chains ? shape[out] * shape[d] : shape[d];
        for (int k = 0; k < nops; k++)
            strides[k * op_step + to * dim_step] = strides[k * op_step + d * dim_step];
        shape[to] = extent;
    }
    return out + 1;
}

#endif
