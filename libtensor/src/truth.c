/*
 * truth.c: lt_all_any, the reduction behind all() and any().
 *
 * Each source row is converted to bool bytes by cast.c's own x != 0 loops
 * (so NaN is true, -0 is false and complex tests both parts, exactly as a
 * cast to bool), a chunk at a time into a stack buffer, and folded into dst.
 * A reduction to one element stops at the first element that decides it:
 * any() of an array that starts with a nonzero element reads one chunk.
 */
#include <inttypes.h>

#include "kernels.h"

#define CHUNK 2048

/* Index of the first byte of buf[0..n) that is zero (want_zero) or nonzero, or n. */
static int64_t find_byte(const uint8_t *buf, int64_t n, int want_zero)
{
    int64_t i = 0;
    if (want_zero) {
        const void *z = memchr(buf, 0, (size_t)n);
        return z ? (const uint8_t *)z - buf : n;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        if (w)
            break;
    }
    for (; i < n; i++)
        if (buf[i])
            return i;
    return n;
}

/* Folds one row of n source elements into dst. Returns 1 when a reduction
 * to a single element is decided (the caller stops). */
static int fold_row(lt__kernel to_bool, char *q, ptrdiff_t ds, const char *p, ptrdiff_t ss, int64_t n, int want_all,
                    int single)
{
    uint8_t buf[CHUNK];
    const ptrdiff_t step[2] = {1, ss};
    for (int64_t lo = 0; lo < n; lo += CHUNK) {
        int64_t m = n - lo < CHUNK ? n - lo : CHUNK;
        char *ptr[2] = {(char *)buf, (char *)(uintptr_t)(p + lo * ss)};
        to_bool(ptr, step, m);
        if (ds == 0) {
            /* all: the first false decides; any: the first true */
            if (find_byte(buf, m, want_all) < m) {
                *(uint8_t *)q = (uint8_t)!want_all;
                if (single)
                    return 1;
                break;
            }
            continue;
        }
        char *d = q + lo * ds;
        if (want_all)
            for (int64_t j = 0; j < m; j++)
                d[j * ds] = (char)(d[j * ds] & (buf[j] != 0));
        else
            for (int64_t j = 0; j < m; j++)
                d[j * ds] = (char)(d[j * ds] | (buf[j] != 0));
    }
    return 0;
}

lt_status lt_all_any(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                     const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape,
                     int want_all)
{
    int64_t numel = 0, kept_numel = 0, kept[LT_MAX_NDIM];
    lt_status rc;
    if ((rc = lt__check_dtype(dst_dtype, "dst_dtype")) != LT_OK ||
        (rc = lt__check_dtype(src_dtype, "src_dtype")) != LT_OK)
        return rc;
    if (dst_dtype != LT_BOOL && dst_dtype != LT_UINT8)
        return lt__fail(LT_EDTYPE, "all() and any() write bool or uint8, not %s", lt_dtype_name(dst_dtype));
    if ((rc = lt__check_cast(LT_BOOL, src_dtype)) != LT_OK)
        return rc;
    if ((rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK)
        return rc;
    for (int32_t d = 0; d < ndim; d++)
        kept[d] = dst_strides && dst_strides[d] == 0 ? 1 : shape[d];
    if ((rc = lt_layout_numel(&kept_numel, ndim, kept)) != LT_OK ||
        (rc = lt__check_operand("dst", dst, dst_strides, dst_dtype, ndim, kept, kept_numel)) != LT_OK ||
        (rc = lt__check_operand("src", src, src_strides, src_dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    if (kept_numel == 0)
        return LT_OK;
    if (lt__views_overlap(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape))
        return lt__fail(LT_EINVAL, "all()/any(): dst overlaps src; reduce into new memory");
    const uint8_t init = (uint8_t)(want_all != 0);
    if ((rc = lt_fill(dst, dst_strides, dst_dtype, &init, LT_BOOL, ndim, kept)) != LT_OK || numel == 0)
        return rc;
    lt__walk w;
    char *base[2] = {dst, (char *)(uintptr_t)src};
    const int64_t *strides[2] = {dst_strides, src_strides};
    size_t itemsize[2] = {1, lt_dtype_itemsize(src_dtype)};
    lt__walk_init(&w, 2, base, strides, itemsize, ndim, shape);
    lt__kernel to_bool = lt__cast_kernel(LT_BOOL, src_dtype);
    const int32_t in = w.ndim - 1;
    int64_t idx[LT_MAX_NDIM] = {0}, rows = lt__walk_nrows(&w);
    char *q = w.base[0];
    const char *p = w.base[1];
    for (int64_t r = 0; r < rows; r++) {
        if (fold_row(to_bool, q, w.stride[in][0], p, w.stride[in][1], w.shape[in], want_all, kept_numel == 1))
            return LT_OK;
        for (int32_t d = in - 1; d >= 0; d--) { /* odometer over the outer dimensions */
            q += w.stride[d][0];
            p += w.stride[d][1];
            if (++idx[d] < w.shape[d])
                break;
            q -= w.stride[d][0] * w.shape[d];
            p -= w.stride[d][1] * w.shape[d];
            idx[d] = 0;
        }
    }
    return LT_OK;
}
