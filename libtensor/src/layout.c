/* layout.c: shape and stride arithmetic, every product and sum checked for
 * int64 overflow, because shapes and strides arrive from users and from
 * foreign DLPack producers. */
#include <inttypes.h>

#include "internal.h"

lt_status lt__check_shape(int32_t ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > LT_MAX_NDIM)
        return lt__fail(LT_EINVAL, "ndim %d is outside [0, %d]", (int)ndim, LT_MAX_NDIM);
    if (ndim > 0 && !shape)
        return lt__fail(LT_EINVAL, "shape is NULL for ndim %d", (int)ndim);
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] < 0)
            return lt__fail(LT_EINVAL, "shape[%d] is %" PRId64 "; extents must be >= 0", (int)i, shape[i]);
    return LT_OK;
}

lt_status lt_layout_numel(int64_t *out, int32_t ndim, const int64_t *shape)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++)
        if (lt__mul_overflow(n, shape[i], &n))
            return lt__fail(LT_EOVERFLOW, "the product of the shape overflows int64 at dimension %d", (int)i);
    *out = n;
    return LT_OK;
}

lt_status lt_layout_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, size_t itemsize)
{
    int64_t numel = 0;
    lt_status rc = lt_layout_numel(&numel, ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "strides is NULL for ndim %d", (int)ndim);
    int64_t isz = (int64_t)itemsize, lo = offset, hi = offset, t;
    if (numel == 0) {
        if (lt__mul_overflow(offset, isz, &lo))
            return lt__fail(LT_EOVERFLOW, "offset %" PRId64 " * itemsize overflows", offset);
        *lo_byte = *hi_byte = lo;
        return LT_OK;
    }
    for (int32_t i = 0; i < ndim; i++) {
        /* the last index along i contributes (shape[i]-1)*strides[i] */
        if (lt__mul_overflow(shape[i] - 1, strides[i], &t))
            return lt__fail(LT_EOVERFLOW, "(shape[%d]-1) * stride %" PRId64 " overflows", (int)i, strides[i]);
        if (t < 0 ? lt__add_overflow(lo, t, &lo) : lt__add_overflow(hi, t, &hi))
            return lt__fail(LT_EOVERFLOW, "the view's element extent overflows at dimension %d", (int)i);
    }
    if (lt__add_overflow(hi, 1, &hi) || lt__mul_overflow(lo, isz, &lo) || lt__mul_overflow(hi, isz, &hi))
        return lt__fail(LT_EOVERFLOW, "the view's byte extent overflows int64");
    *lo_byte = lo;
    *hi_byte = hi;
    return LT_OK;
}

lt_status lt_layout_check(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                          size_t itemsize, size_t storage_nbytes)
{
    int64_t lo, hi;
    lt_status rc = lt_layout_extent(&lo, &hi, ndim, shape, strides, offset, itemsize);
    if (rc != LT_OK)
        return rc;
    if (lo == hi && lo >= 0 && (uint64_t)lo <= storage_nbytes)
        return LT_OK;
    if (lo < 0 || (uint64_t)hi > storage_nbytes)
        return lt__fail(LT_ERANGE, "view needs bytes [%" PRId64 ", %" PRId64 ") but the storage holds %zu bytes",
                        lo, hi, storage_nbytes);
    return LT_OK;
}

int lt_layout_is_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] == 0)
            return 1; /* no elements: any strides describe them */
    int64_t expected = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1 && strides[i] != expected)
            return 0;
        expected *= shape[i];
    }
    return 1;
}
