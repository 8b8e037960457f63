/* layout_order.c: the layout a new tensor made from existing ones gets.
 *
 * torch gives a result the memory order of its inputs instead of always
 * row-major: `(x.T * 2).stride()` is column-major like x.T, and
 * empty_like/clone/casts of a dense tensor keep its strides. These are
 * layout rules, so they live here (next to layout.c) and pytensor asks
 * them through pytensor/_layout.py. They follow torch 2.13's
 * TensorIteratorBase (fast_set_up, reorder_dimensions, compatible_stride)
 * and empty_like's preserve_format (infer_dense_strides); the one case
 * left out is TensorIterator's channels-last fast set-up (see the header). */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

int lt_layout_is_non_overlapping_and_dense(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    if (lt_layout_is_contiguous(ndim, shape, strides))
        return 1; /* also every tensor with no elements, as torch */
    /* the dims of extent >= 2, ordered by ascending stride, must chain row-major
     * from stride 1: stride[d_k] == product of the extents of d_0..d_{k-1} */
    int32_t dims[LT_MAX_NDIM];
    int32_t n = 0;
    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] < 2)
            continue;
        int32_t j = n++;
        for (; j > 0 && strides[dims[j - 1]] > strides[d]; j--)
            dims[j] = dims[j - 1];
        dims[j] = d;
    }
    int64_t want = 1;
    for (int32_t k = 0; k < n; k++) {
        if (strides[dims[k]] != want)
            return 0;
        if (lt__mul_overflow(want, shape[dims[k]], &want))
            return 0; /* the next stride would have to exceed int64 */
    }
    return 1;
}

/* Row-major strides over the order perm (perm[0] innermost):
 *   out[perm[0]] = 1, out[perm[k]] = out[perm[k-1]] * size(perm[k-1])
 * where size counts an extent below 2 as 1 when skip_small (empty_like's
 * infer_dense_strides) and as itself otherwise (TensorIterator's
 * compatible_stride, so a result with an extent-0 dim gets zero strides
 * outside it, as torch's does). */
static lt_status strides_from_order(int64_t *out, int32_t ndim, const int64_t *shape, const int32_t *perm,
                                    int skip_small)
{
    int64_t acc = 1;
    for (int32_t k = 0; k < ndim; k++) {
        int32_t d = perm[k];
        out[d] = acc;
        int64_t size = skip_small && shape[d] < 2 ? 1 : shape[d];
        if (lt__mul_overflow(acc, size, &acc))
            return lt__fail(LT_EOVERFLOW, "the stride outside dimension %d overflows int64", (int)d);
    }
    return LT_OK;
}

/* Operand k's stride along result dim d, broadcast as TensorIterator's
 * compute_strides does: 0 for a missing dim and for an extent-1 dim that
 * stretches; an extent-1 dim that stays extent 1 keeps its stride. */
static int64_t bstride(int32_t k, int32_t d, int32_t ndim, const int64_t *shape, const int32_t *ndims,
                       const int64_t *const *shapes, const int64_t *const *strides)
{
    int32_t i = d - (ndim - ndims[k]);
    if (i < 0 || (shapes[k][i] == 1 && shape[d] != 1))
        return 0;
    return strides[k][i];
}

/* reorder_dimensions' comparison: > 0 when dim a must go outside dim b, < 0
 * when it must stay inside, 0 when no operand decides. The first operand
 * with distinct nonzero strides decides; equal strides put the smaller
 * extent inside (and only decide when that means a swap). */
static int should_swap(int32_t a, int32_t b, int32_t ndim, const int64_t *shape, int32_t nops, const int32_t *ndims,
                       const int64_t *const *shapes, const int64_t *const *strides)
{
    for (int32_t k = 0; k < nops; k++) {
        int64_t sa = bstride(k, a, ndim, shape, ndims, shapes, strides);
        int64_t sb = bstride(k, b, ndim, shape, ndims, shapes, strides);
        if (sa == 0 || sb == 0)
            continue;
        if (sa != sb)
            return sa < sb ? -1 : 1;
        if (shape[a] > shape[b])
            return 1;
    }
    return 0;
}

/* An insertion sort that tolerates "no opinion" (torch's): perm starts
 * row-major (perm[0] = ndim-1 innermost); a dim moves inward past those
 * that must go outside it and stops at the first that must stay inside. */
static void sort_dims(int32_t *perm, int32_t ndim, const int64_t *shape, int32_t nops, const int32_t *ndims,
                      const int64_t *const *shapes, const int64_t *const *strides)
{
    for (int32_t i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int32_t i = 1; i < ndim; i++) {
        int32_t moving = i;
        for (int32_t j = i - 1; j >= 0; j--) {
            int c = should_swap(perm[j], perm[moving], ndim, shape, nops, ndims, shapes, strides);
            if (c > 0) {
                int32_t t = perm[j];
                perm[j] = perm[moving];
                perm[moving] = t;
                moving = j;
            } else if (c < 0) {
                break;
            }
        }
    }
}

static int same_shape(int32_t ndim, const int64_t *shape, int32_t nd, const int64_t *s)
{
    return nd == ndim && (ndim == 0 || memcmp(shape, s, (size_t)ndim * sizeof *shape) == 0);
}

/* TensorIterator's fast set-up: every operand of the result's exact shape,
 * all contiguous (row-major result) or all dense with identical strides
 * (the result copies them). Returns 1 when it applies (out written). */
static int fast_set_up(int64_t *out, int32_t ndim, const int64_t *shape, int32_t nops, const int32_t *ndims,
                       const int64_t *const *shapes, const int64_t *const *strides)
{
    int all_contiguous = 1, all_same_dense = 1;
    for (int32_t k = 0; k < nops; k++) {
        if (!same_shape(ndim, shape, ndims[k], shapes[k]))
            return 0;
        all_contiguous &= lt_layout_is_contiguous(ndim, shape, strides[k]);
        all_same_dense &= lt_layout_is_non_overlapping_and_dense(ndim, shape, strides[k]) &&
                          (ndim == 0 || memcmp(strides[k], strides[0], (size_t)ndim * sizeof *out) == 0);
    }
    if (all_contiguous)
        return lt_layout_contiguous_strides(out, ndim, shape) == LT_OK;
    if (all_same_dense && ndim > 0)
        memcpy(out, strides[0], (size_t)ndim * sizeof *out);
    return all_same_dense;
}

lt_status lt_layout_result_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, int32_t noperands,
                                   const int32_t *ndims, const int64_t *const *shapes,
                                   const int64_t *const *strides)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (noperands < 0 || (noperands > 0 && (!ndims || !shapes || !strides)))
        return lt__fail(LT_EINVAL, "noperands is %d with NULL operand arrays", (int)noperands);
    for (int32_t k = 0; k < noperands; k++) {
        if (ndims[k] < 0 || ndims[k] > ndim)
            return lt__fail(LT_EINVAL, "operand %d has %d dims; the result has %d", (int)k, (int)ndims[k], (int)ndim);
        if (ndims[k] > 0 && (!shapes[k] || !strides[k]))
            return lt__fail(LT_EINVAL, "operand %d has NULL shape or strides", (int)k);
        for (int32_t i = 0; i < ndims[k]; i++) {
            int64_t n = shapes[k][i], r = shape[ndim - ndims[k] + i];
            if (n != r && n != 1)
                return lt__fail(LT_EINVAL, "operand %d's extent %" PRId64 " at dim %d does not broadcast to %" PRId64,
                                (int)k, n, (int)i, r);
        }
    }
    if (noperands == 0 || ndim < 2)
        return lt_layout_contiguous_strides(out_strides, ndim, shape);
    if (fast_set_up(out_strides, ndim, shape, noperands, ndims, shapes, strides))
        return LT_OK;
    int32_t perm[LT_MAX_NDIM];
    sort_dims(perm, ndim, shape, noperands, ndims, shapes, strides);
    int row_major = 1;
    for (int32_t i = 0; i < ndim; i++)
        row_major &= perm[i] == ndim - 1 - i;
    if (row_major) /* torch allocates these with empty(), so extent-0 dims count as 1 */
        return lt_layout_contiguous_strides(out_strides, ndim, shape);
    return strides_from_order(out_strides, ndim, shape, perm, 0);
}

/* infer_dense_strides' comparison: a zero stride has no opinion (the dim
 * keeps its row-major place), equal strides put the smaller extent inside. */
static int preserve_swap(int32_t a, int32_t b, const int64_t *shape, const int64_t *strides)
{
    if (strides[a] == 0 || strides[b] == 0)
        return 0;
    if (strides[a] != strides[b])
        return strides[a] < strides[b] ? -1 : 1;
    return shape[a] > shape[b] ? 1 : 0;
}

lt_status lt_layout_infer_dense_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape,
                                        const int64_t *strides)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "strides is NULL for ndim %d", (int)ndim);
    int32_t perm[LT_MAX_NDIM];
    for (int32_t i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int32_t i = 1; i < ndim; i++) {
        int32_t moving = i;
        for (int32_t j = i - 1; j >= 0; j--) {
            int c = preserve_swap(perm[j], perm[moving], shape, strides);
            if (c > 0) {
                int32_t t = perm[j];
                perm[j] = perm[moving];
                perm[moving] = t;
                moving = j;
            } else if (c < 0) {
                break;
            }
        }
    }
    return strides_from_order(out_strides, ndim, shape, perm, 1);
}

lt_status lt_layout_preserve_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "strides is NULL for ndim %d", (int)ndim);
    if (lt_layout_is_non_overlapping_and_dense(ndim, shape, strides)) {
        if (ndim > 0)
            memmove(out_strides, strides, (size_t)ndim * sizeof *out_strides);
        return LT_OK;
    }
    return lt_layout_infer_dense_strides(out_strides, ndim, shape, strides);
}
