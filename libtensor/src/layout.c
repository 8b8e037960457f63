/* layout.c: every shape and stride rule of libtensor, pytensor and the
 * inspector: element counts, byte extents, contiguity, row-major strides,
 * view/reshape shape inference and strides, broadcasting, and the dimension
 * merging kernels walk with. Each product and sum is checked for int64
 * overflow, because shapes and strides arrive from users and from foreign
 * DLPack producers. */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

#if defined(__GNUC__)
#define LT__ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define LT__ALWAYS_INLINE static inline
#endif

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

/* Appends Python's repr of a list of ints ("[2, -1]") to buf at *len. */
static void format_list(char *buf, size_t cap, size_t *len, int32_t n, const int64_t *v)
{
    *len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "[");
    for (int32_t i = 0; i < n; i++)
        *len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "%s%" PRId64, i ? ", " : "", v[i]);
    *len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "]");
}

/* torch's numel rule (TensorImpl's safe_compute_numel), the one every shape
 * of every tensor passes: the extents are multiplied left to right in
 * uint64, and the shape is refused when a step overflows uint64 or the
 * product exceeds int64, even where a later extent is 0. So
 * (2^62, 2^62, 0) is refused, as torch and NumPy refuse it, while
 * (3, 2^62, 0) and (INT64_MAX, 2, 0) hold 0 elements, as in torch. A rule
 * that ignored every product once a 0 appears would accept shapes whose
 * other dimensions no loop can count. */
lt_status lt_layout_numel(int64_t *out, int32_t ndim, const int64_t *shape)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    uint64_t n = 1;
    for (int32_t i = 0; i < ndim; i++)
        if (__builtin_mul_overflow(n, (uint64_t)shape[i], &n))
            return lt__fail(LT_EOVERFLOW, "the product of the shape overflows int64 at dimension %d", (int)i);
    if (n > (uint64_t)INT64_MAX)
        return lt__fail(LT_EOVERFLOW, "the product of the shape, %" PRIu64 ", overflows int64", n);
    *out = (int64_t)n;
    return LT_OK;
}

/* The refusal of lt_layout_nbytes: torch's words, then the sizes, then why. */
static lt_status storage_overflow(int32_t ndim, const int64_t *shape, const char *why, int64_t numel, size_t itemsize)
{
    char list[LT_MAX_NDIM * 22 + 3];
    size_t len = 0;
    format_list(list, sizeof list, &len, ndim, shape);
    if (why)
        return lt__fail(LT_EOVERFLOW, "Storage size calculation overflowed with sizes=%s: %s", list, why);
    return lt__fail(LT_EOVERFLOW, "Storage size calculation overflowed with sizes=%s: %" PRId64 " elements of %zu "
                    "bytes exceed int64 bytes", list, numel, itemsize);
}

lt_status lt_layout_nbytes(int64_t *out, int32_t ndim, const int64_t *shape, size_t itemsize)
{
    int64_t numel = 0, nbytes = 0; /* nbytes = numel * itemsize */
    lt_status rc = lt_layout_numel(&numel, ndim, shape);
    if (rc == LT_EOVERFLOW)
        return storage_overflow(ndim, shape, "the product of the sizes leaves int64", 0, itemsize);
    if (rc != LT_OK)
        return rc;
    if (itemsize > INT64_MAX || lt__mul_overflow(numel, (int64_t)itemsize, &nbytes))
        return storage_overflow(ndim, shape, NULL, numel, itemsize);
    *out = nbytes;
    return LT_OK;
}

/* ------------------------------------------------------------ extents */

/* The one extent rule. With every stride in units of `scale` bytes and
 * element 0 at byte `base`:
 *   lo = base + sum over negative strides of (shape[i]-1)*strides[i]*scale
 *   hi = base + sum over positive strides of (shape[i]-1)*strides[i]*scale + itemsize
 * and lo == hi == base for a view with no elements. Each term is formed in
 * the stride's unit first, so an extent-1 dimension contributes 0 whatever
 * its stride, and every partial sum is checked. Inlined into its two
 * callers: views are checked on every creation and kernels check theirs on
 * every call, so the wrapper must cost nothing. */
LT__ALWAYS_INLINE lt_status span(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                      const int64_t *strides, int64_t scale, int64_t base, int64_t itemsize, const char *base_overflows)
{
    int64_t numel = 0;
    lt_status rc = lt_layout_numel(&numel, ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (base_overflows)
        return lt__fail(LT_EOVERFLOW, "%s", base_overflows);
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "strides is NULL for ndim %d", (int)ndim);
    int64_t lo = base, hi = base, t;
    if (numel == 0) {
        *lo_byte = *hi_byte = base;
        return LT_OK;
    }
    for (int32_t i = 0; i < ndim; i++) {
        /* the last index along i contributes (shape[i]-1)*strides[i] */
        if (lt__mul_overflow(shape[i] - 1, strides[i], &t) || lt__mul_overflow(t, scale, &t))
            return lt__fail(LT_EOVERFLOW, "(shape[%d]-1) * stride %" PRId64 " overflows int64 in bytes", (int)i, strides[i]);
        if (t < 0 ? lt__add_overflow(lo, t, &lo) : lt__add_overflow(hi, t, &hi))
            return lt__fail(LT_EOVERFLOW, "the view's extent overflows int64 at dimension %d", (int)i);
    }
    if (lt__add_overflow(hi, itemsize, &hi))
        return lt__fail(LT_EOVERFLOW, "the view's byte extent overflows int64");
    *lo_byte = lo;
    *hi_byte = hi;
    return LT_OK;
}

lt_status lt_layout_byte_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                                const int64_t *byte_strides, int64_t byte_offset, size_t itemsize)
{
    const char *bad = itemsize > INT64_MAX ? "itemsize overflows int64" : NULL;
    return span(lo_byte, hi_byte, ndim, shape, byte_strides, 1, byte_offset, (int64_t)itemsize, bad);
}

lt_status lt_layout_extent(int64_t *lo_byte, int64_t *hi_byte, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, size_t itemsize)
{
    int64_t isz = (int64_t)itemsize, byte_offset = 0; /* byte_offset = offset * itemsize */
    int bad = itemsize > INT64_MAX || lt__mul_overflow(offset, isz, &byte_offset);
    return span(lo_byte, hi_byte, ndim, shape, strides, isz, byte_offset, isz,
                bad ? "the view's offset * itemsize overflows int64" : NULL);
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

/* ------------------------------------------------------------ contiguity */

int lt_layout_is_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] == 0)
            return 1; /* no elements: any strides describe them */
    int64_t expected = 1;
    int past_int64 = 0; /* expected no longer fits: no stride can equal it */
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (shape[i] != 1 && (past_int64 || strides[i] != expected))
            return 0;
        past_int64 |= lt__mul_overflow(expected, shape[i], &expected);
    }
    return 1;
}

int lt_layout_has_internal_overlap(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    int repeats = 0; /* a stride 0 over more than one element: those elements are one location */
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == 0)
            return 0; /* no elements: nothing can be written twice */
        repeats |= strides[i] == 0 && shape[i] > 1;
    }
    return repeats;
}

lt_status lt_layout_contiguous_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    /* strides[i] = prod(max(shape[j], 1) for j > i): extent-0 dims count as 1, as torch */
    int64_t acc = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        out_strides[i] = acc;
        if (i > 0 && lt__mul_overflow(acc, shape[i] > 1 ? shape[i] : 1, &acc))
            return lt__fail(LT_EOVERFLOW, "the row-major stride of dimension %d overflows int64", (int)i - 1);
    }
    return LT_OK;
}

/* ------------------------------------------------------------ view and reshape */

static lt_status invalid_for_size(int32_t ndim, const int64_t *shape, int64_t numel)
{
    char list[LT_MAX_NDIM * 22 + 3];
    size_t len = 0;
    format_list(list, sizeof list, &len, ndim, shape);
    return lt__fail(LT_EINVAL, "shape '%s' is invalid for input of size %" PRId64, list, numel);
}

lt_status lt_layout_infer_shape(int64_t *out_shape, int32_t ndim, const int64_t *shape, int64_t numel)
{
    if (ndim < 0 || ndim > LT_MAX_NDIM)
        return lt__fail(LT_EINVAL, "ndim %d is outside [0, %d]", (int)ndim, LT_MAX_NDIM);
    if (ndim > 0 && !shape)
        return lt__fail(LT_EINVAL, "shape is NULL for ndim %d", (int)ndim);
    if (numel < 0)
        return lt__fail(LT_EINVAL, "numel is %" PRId64 "; it must be >= 0", numel);
    int32_t infer = -1, ninfer = 0;
    int64_t lowest = 0, rest = 1;
    int rest_overflows = 0; /* the product of the known sizes exceeds int64, so it cannot divide numel > 0 */
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == -1)
            infer = i, ninfer++;
        else
            rest_overflows |= lt__mul_overflow(rest, shape[i], &rest);
        lowest = shape[i] < lowest ? shape[i] : lowest;
    }
    if (ninfer > 1)
        return lt__fail(LT_EINVAL, "only one dimension can be inferred");
    if (lowest < -1)
        return lt__fail(LT_EINVAL, "invalid shape dimension %" PRId64, lowest);
    /* Every size is now >= 0, so an overflowing product has no zero factor
     * and exceeds numel: only numel == 0 with an inferred size survives it. */
    if (infer >= 0 && (rest == 0 || (rest_overflows ? numel != 0 : numel % rest != 0)))
        return invalid_for_size(ndim, shape, numel);
    /* No size to infer: the sizes must hold numel elements by the numel
     * rule itself, so (3, 2^62, 0) holds 0 elements here as everywhere. */
    int64_t holds = 0;
    if (infer < 0 && (lt_layout_numel(&holds, ndim, shape) != LT_OK || holds != numel))
        return invalid_for_size(ndim, shape, numel);
    if (ndim > 0) /* memmove's pointers must be valid even for 0 bytes */
        memmove(out_shape, shape, (size_t)ndim * sizeof *shape);
    if (infer >= 0)
        out_shape[infer] = rest_overflows ? 0 : numel / rest;
    return LT_OK;
}

/* torch's computeStride. The old dimensions fall into chunks that are
 * contiguous among themselves (stride[d-1] == shape[d] * stride[d], extent-1
 * dimensions joining any chunk); each chunk is split across the new
 * dimensions that consume exactly its elements, whose strides are then
 *   new_strides[v] = (product of the chunk's new sizes inner to v) * the chunk's innermost stride.
 * A product beyond int64 equals no int64 stride and no element count, so it
 * ends a chunk, or shows that no strides exist; only a stride of the answer
 * itself that overflows is an error. */
static int view_strides(int64_t *out_strides, int *overflow, int32_t old_ndim, const int64_t *old_shape,
                        const int64_t *old_strides, int32_t new_ndim, const int64_t *new_shape)
{
    int32_t view_d = new_ndim - 1;
    int64_t chunk_base_stride = old_strides[old_ndim - 1], tensor_numel = 1, view_numel = 1, t;
    for (int32_t d = old_ndim - 1; d >= 0; d--) {
        tensor_numel *= old_shape[d]; /* cannot overflow: the caller checked the old numel */
        if (d == 0 || (old_shape[d - 1] != 1 && (lt__mul_overflow(tensor_numel, chunk_base_stride, &t) ||
                                                 old_strides[d - 1] != t))) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
                *overflow |= lt__mul_overflow(view_numel, chunk_base_stride, &out_strides[view_d]);
                if (lt__mul_overflow(view_numel, new_shape[view_d], &view_numel))
                    return 0; /* more new elements than the chunk holds */
                view_d--;
            }
            if (view_numel != tensor_numel)
                return 0;
            if (d > 0) {
                chunk_base_stride = old_strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

lt_status lt_layout_view_strides(int64_t *out_strides, int *out_viewable, int32_t old_ndim, const int64_t *old_shape,
                                 const int64_t *old_strides, int32_t new_ndim, const int64_t *new_shape)
{
    int64_t old_numel = 0;
    lt_status rc = lt_layout_numel(&old_numel, old_ndim, old_shape);
    if (rc != LT_OK || (rc = lt__check_shape(new_ndim, new_shape)) != LT_OK)
        return rc;
    if (old_ndim > 0 && !old_strides)
        return lt__fail(LT_EINVAL, "old strides are NULL for ndim %d", (int)old_ndim);
    *out_viewable = 1;
    if (old_numel == 0 && old_ndim == new_ndim &&
        (old_ndim == 0 || memcmp(old_shape, new_shape, (size_t)new_ndim * sizeof *new_shape) == 0)) {
        /* torch (and NumPy) keep the strides of an unchanged empty shape */
        memmove(out_strides, old_strides, (size_t)new_ndim * sizeof *old_strides);
        return LT_OK;
    }
    if (old_numel == 0 || old_ndim == 0) /* nothing to preserve: row-major */
        return lt_layout_contiguous_strides(out_strides, new_ndim, new_shape);
    int overflow = 0;
    *out_viewable = view_strides(out_strides, &overflow, old_ndim, old_shape, old_strides, new_ndim, new_shape);
    if (*out_viewable && overflow) {
        *out_viewable = 0;
        return lt__fail(LT_EOVERFLOW, "a stride of the view overflows int64");
    }
    return LT_OK;
}

/* torch's inferUnsqueezeGeometry: the new extent-1 dimension takes the
 * stride that steps over the whole dimension it is put before (1 at the
 * end), so the view stays contiguous when its source was. */
lt_status lt_layout_unsqueeze_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape,
                                      const int64_t *strides, int32_t dim)
{
    if (ndim >= LT_MAX_NDIM)
        return lt__fail(LT_EINVAL, "unsqueeze of a %d-d view would exceed %d dimensions", (int)ndim, LT_MAX_NDIM);
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "strides is NULL for ndim %d", (int)ndim);
    if (dim < 0 || dim > ndim)
        return lt__fail(LT_EINVAL, "dim %d is outside [0, %d]", (int)dim, (int)ndim);
    int64_t step = 1;
    if (dim < ndim && lt__mul_overflow(shape[dim], strides[dim], &step))
        return lt__fail(LT_EOVERFLOW,
                        "unsqueeze(%d): the new stride, size %" PRId64 " times stride %" PRId64 ", overflows int64",
                        (int)dim, shape[dim], strides[dim]);
    /* from the end, so out_strides may be strides itself */
    for (int32_t i = ndim; i > dim; i--)
        out_strides[i] = strides[i - 1];
    out_strides[dim] = step;
    for (int32_t i = dim - 1; i >= 0; i--)
        out_strides[i] = strides[i];
    return LT_OK;
}

/* ------------------------------------------------------------ broadcasting */

lt_status lt_layout_broadcast_shapes(int64_t *out_shape, int32_t *out_ndim, int32_t nshapes, const int32_t *ndims,
                                     const int64_t *const *shapes)
{
    if (nshapes < 0 || (nshapes > 0 && (!ndims || !shapes)))
        return lt__fail(LT_EINVAL, "%d shapes given with NULL ndims or shapes", (int)nshapes);
    int32_t ndim = 0;
    for (int32_t s = 0; s < nshapes; s++) {
        if (ndims[s] < 0 || ndims[s] > LT_MAX_NDIM)
            return lt__fail(LT_EINVAL, "shape %d has ndim %d, outside [0, %d]", (int)s, (int)ndims[s], LT_MAX_NDIM);
        if (ndims[s] > 0 && !shapes[s])
            return lt__fail(LT_EINVAL, "shape %d is NULL for ndim %d", (int)s, (int)ndims[s]);
        ndim = ndims[s] > ndim ? ndims[s] : ndim;
    }
    for (int32_t j = 0; j < ndim; j++)
        out_shape[j] = 1;
    /* Right-aligned: size i of shape s (of n dims) meets result dimension j = ndim - n + i. */
    for (int32_t s = 0; s < nshapes; s++) {
        for (int32_t i = 0; i < ndims[s]; i++) {
            int64_t n = shapes[s][i];
            int32_t j = ndim - ndims[s] + i, from_end = ndims[s] - i;
            if (out_shape[j] == 1) {
                out_shape[j] = n;
            } else if (n != 1 && n != out_shape[j]) {
                /* torch names the first shape's size at the same place from the end ("a") */
                int64_t a = from_end <= ndims[0] ? shapes[0][ndims[0] - from_end] : 1;
                return lt__fail(LT_EINVAL,
                                "The size of tensor a (%" PRId64 ") must match the size of tensor b (%" PRId64
                                ") at non-singleton dimension %d",
                                a, n, (int)j);
            }
        }
    }
    *out_ndim = ndim;
    return LT_OK;
}

/* torch's expand: a missing dimension, or an extent 1 stretched to more,
 * walks with stride 0; every other dimension keeps its stride (an extent 1
 * that stays 1 included). */
lt_status lt_layout_broadcast_strides(int64_t *out_strides, int32_t ndim, const int64_t *shape, int32_t op_ndim,
                                      const int64_t *op_shape, const int64_t *op_strides)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if ((rc = lt__check_shape(op_ndim, op_shape)) != LT_OK)
        return rc;
    if (op_ndim > ndim)
        return lt__fail(LT_EINVAL, "an operand of %d dims does not broadcast to %d dims", (int)op_ndim, (int)ndim);
    if (op_ndim > 0 && !op_strides)
        return lt__fail(LT_EINVAL, "op_strides is NULL for op_ndim %d", (int)op_ndim);
    int32_t pad = ndim - op_ndim;
    for (int32_t d = 0; d < pad; d++)
        out_strides[d] = 0;
    for (int32_t i = 0; i < op_ndim; i++) {
        int64_t n = op_shape[i], r = shape[pad + i];
        if (n != r && n != 1)
            return lt__fail(LT_EINVAL, "extent %" PRId64 " at dim %d does not broadcast to %" PRId64, n, (int)i, r);
        out_strides[pad + i] = n == 1 && r != 1 ? 0 : op_strides[i];
    }
    return LT_OK;
}

/* ------------------------------------------------------------ views of part of a tensor */

/* The checks every rule below starts with: a valid shape, strides present,
 * and dim one of its dimensions. */
static lt_status check_view_dim(int32_t ndim, const int64_t *shape, const int64_t *strides, int32_t dim,
                                const char *what)
{
    lt_status rc = lt__check_shape(ndim, shape);
    if (rc != LT_OK)
        return rc;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "%s: strides is NULL for ndim %d", what, (int)ndim);
    if (dim < 0 || dim >= ndim)
        return lt__fail(LT_EINVAL, "%s: dim %d is not one of the %d dimensions", what, (int)dim, (int)ndim);
    return LT_OK;
}

/* torch's diagonal: the two dims go, the diagonal comes last. Its length is
 * min(shape[dim1], shape[dim2] - diag_offset) for diag_offset >= 0 and
 * min(shape[dim1] + diag_offset, shape[dim2]) below, at least 0 (neither
 * difference can leave int64: the extents are >= 0). Element 0 moves by
 * diag_offset steps along dim2 (or -diag_offset along dim1) only when the
 * diagonal has elements, as torch, so an empty diagonal of huge strides
 * keeps its offset. The diagonal's stride, the sum of the two, is formed
 * even when it is empty: a stride is part of the view. */
lt_status lt_layout_diagonal(int64_t *out_shape, int64_t *out_strides, int64_t *out_offset, int32_t ndim,
                             const int64_t *shape, const int64_t *strides, int64_t offset, int64_t diag_offset,
                             int32_t dim1, int32_t dim2)
{
    if (ndim < 2)
        return lt__fail(LT_EINVAL, "diagonal needs at least 2 dimensions, got %d", (int)ndim);
    lt_status rc = check_view_dim(ndim, shape, strides, dim1, "diagonal");
    if (rc != LT_OK)
        return rc;
    if (dim2 < 0 || dim2 >= ndim)
        return lt__fail(LT_EINVAL, "diagonal: dim %d is not one of the %d dimensions", (int)dim2, (int)ndim);
    if (dim1 == dim2)
        return lt__fail(LT_EINVAL, "diagonal dimensions cannot be identical %d, %d", (int)dim1, (int)dim2);
    int64_t s1 = shape[dim1], s2 = shape[dim2], st1 = strides[dim1], st2 = strides[dim2], len, stride, start = 0;
    if (diag_offset >= 0)
        len = s1 < s2 - diag_offset ? s1 : s2 - diag_offset;
    else
        len = s1 + diag_offset < s2 ? s1 + diag_offset : s2;
    len = len > 0 ? len : 0;
    if (lt__add_overflow(st1, st2, &stride))
        return lt__fail(LT_EOVERFLOW,
                        "diagonal(%" PRId64 ", %d, %d): the diagonal's stride, %" PRId64 " + %" PRId64
                        ", overflows int64",
                        diag_offset, (int)dim1, (int)dim2, st1, st2);
    /* len > 0 bounds |diag_offset| by an extent, so -diag_offset exists */
    if (len > 0 && (diag_offset >= 0 ? lt__mul_overflow(diag_offset, st2, &start)
                                     : lt__mul_overflow(-diag_offset, st1, &start)))
        return lt__fail(LT_EOVERFLOW, "diagonal(%" PRId64 ", %d, %d): the start, %" PRId64 " steps of stride %" PRId64
                        ", overflows int64", diag_offset, (int)dim1, (int)dim2, diag_offset >= 0 ? diag_offset
                        : -diag_offset, diag_offset >= 0 ? st2 : st1);
    if (lt__add_overflow(offset, start, &start))
        return lt__fail(LT_EOVERFLOW, "diagonal(%" PRId64 ", %d, %d): offset %" PRId64 " + %" PRId64
                        " overflows int64", diag_offset, (int)dim1, (int)dim2, offset, start);
    /* forward, so the outputs may be the inputs: k never passes i */
    int32_t k = 0;
    for (int32_t i = 0; i < ndim; i++)
        if (i != dim1 && i != dim2) {
            out_shape[k] = shape[i];
            out_strides[k++] = strides[i];
        }
    out_shape[k] = len;
    out_strides[k] = stride;
    *out_offset = start;
    return LT_OK;
}

/* torch's select: dim goes, element 0 moves index steps along it. */
lt_status lt_layout_select(int64_t *out_shape, int64_t *out_strides, int64_t *out_offset, int32_t ndim,
                           const int64_t *shape, const int64_t *strides, int64_t offset, int32_t dim, int64_t index)
{
    lt_status rc = check_view_dim(ndim, shape, strides, dim, "select");
    if (rc != LT_OK)
        return rc;
    if (index < 0 || index >= shape[dim])
        return lt__fail(LT_ERANGE, "select: index %" PRId64 " is outside [0, %" PRId64 ") of dimension %d", index,
                        shape[dim], (int)dim);
    int64_t at, step = strides[dim];
    if (lt__mul_overflow(index, step, &at) || lt__add_overflow(offset, at, &at))
        return lt__fail(LT_EOVERFLOW, "select(%d, %" PRId64 "): offset %" PRId64 " + %" PRId64 " * stride %" PRId64
                        " overflows int64", (int)dim, index, offset, index, step);
    for (int32_t i = 0, k = 0; i < ndim; i++) /* forward: the outputs may be the inputs */
        if (i != dim) {
            out_shape[k] = shape[i];
            out_strides[k++] = strides[i];
        }
    *out_offset = at;
    return LT_OK;
}

/* torch's narrow: dim keeps its stride and gets length elements from
 * start; element 0 moves start steps along it (even for length 0, as
 * torch). */
lt_status lt_layout_narrow(int64_t *out_shape, int64_t *out_offset, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, int32_t dim, int64_t start, int64_t length)
{
    lt_status rc = check_view_dim(ndim, shape, strides, dim, "narrow");
    if (rc != LT_OK)
        return rc;
    if (start < 0 || length < 0 || start > shape[dim] || length > shape[dim] - start)
        return lt__fail(LT_ERANGE, "narrow: start %" PRId64 " and length %" PRId64 " do not fit in [0, %" PRId64
                        "] of dimension %d", start, length, shape[dim], (int)dim);
    int64_t at, step = strides[dim];
    if (lt__mul_overflow(start, step, &at) || lt__add_overflow(offset, at, &at))
        return lt__fail(LT_EOVERFLOW, "narrow(%d, %" PRId64 ", %" PRId64 "): offset %" PRId64 " + %" PRId64
                        " * stride %" PRId64 " overflows int64", (int)dim, start, length, offset, start, step);
    if (ndim > 0) /* memmove: out_shape may be shape itself */
        memmove(out_shape, shape, (size_t)ndim * sizeof *shape);
    out_shape[dim] = length;
    *out_offset = at;
    return LT_OK;
}

/* torch's unfold: dim becomes the windows, (extent - size) / step + 1 of
 * them, step elements apart (stride strides[dim] * step), and a new last
 * dim walks one window (size elements of stride strides[dim]). A 0-d view
 * unfolds as one element of stride 1, as torch's. */
lt_status lt_layout_unfold(int64_t *out_shape, int64_t *out_strides, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int32_t dim, int64_t size, int64_t step)
{
    if (ndim >= LT_MAX_NDIM)
        return lt__fail(LT_EINVAL, "unfold of a %d-d view would exceed %d dimensions", (int)ndim, LT_MAX_NDIM);
    lt_status rc = ndim == 0 && dim == 0 ? LT_OK : check_view_dim(ndim, shape, strides, dim, "unfold");
    if (rc != LT_OK)
        return rc;
    int64_t extent = ndim ? shape[dim] : 1, along = ndim ? strides[dim] : 1, window_stride;
    if (step <= 0 || size < 0 || size > extent)
        return lt__fail(LT_EINVAL, "unfold: windows of size %" PRId64 " every %" PRId64 " do not fit an extent of %"
                        PRId64 " (0 <= size <= extent, step > 0)", size, step, extent);
    if (lt__mul_overflow(along, step, &window_stride))
        return lt__fail(LT_EOVERFLOW, "unfold(): step %" PRId64 " times stride %" PRId64 " of dimension %d does not "
                        "fit in int64; use a smaller step", step, along, (int)dim);
    out_shape[ndim] = size; /* past the inputs' last entry: the outputs may be the inputs */
    out_strides[ndim] = along;
    for (int32_t i = 0; i < ndim; i++) {
        out_shape[i] = shape[i];
        out_strides[i] = strides[i];
    }
    if (ndim == 0) {
        out_strides[0] = 1;
        return LT_OK;
    }
    out_shape[dim] = (extent - size) / step + 1;
    out_strides[dim] = window_stride;
    return LT_OK;
}

/* torch's split(split_size): ceil(size / split_size) pieces, at least one
 * (an empty dimension gives one empty piece), each split_size long but the
 * last, which holds the rest. The ceiling is formed without size +
 * split_size - 1, which could leave int64. */
lt_status lt_layout_split_lengths(int64_t *out_count, int64_t *out_length, int64_t *out_last, int64_t size,
                                  int64_t split_size)
{
    if (size < 0 || split_size < 0 || (split_size == 0 && size != 0))
        return lt__fail(LT_EINVAL, "split: split_size %" PRId64 " cannot split an extent of %" PRId64
                        " (it must be >= 0, and 0 only for an extent of 0)", split_size, size);
    int64_t count = split_size ? size / split_size + (size % split_size != 0) : 1;
    count = count > 0 ? count : 1;
    *out_count = count;
    *out_length = split_size;
    *out_last = size - (count - 1) * split_size; /* <= size: no overflow */
    return LT_OK;
}

/* torch's chunk(chunks): split by ceil(size / chunks), so fewer than chunks
 * pieces where the extent does not fill them; an empty dimension gives
 * chunks empty pieces. */
lt_status lt_layout_chunk_lengths(int64_t *out_count, int64_t *out_length, int64_t *out_last, int64_t size,
                                  int64_t chunks)
{
    if (size < 0 || chunks <= 0)
        return lt__fail(LT_EINVAL, "chunk: %" PRId64 " chunks of an extent of %" PRId64
                        " (chunks must be > 0, the extent >= 0)", chunks, size);
    if (size == 0) {
        *out_count = chunks;
        *out_length = *out_last = 0;
        return LT_OK;
    }
    return lt_layout_split_lengths(out_count, out_length, out_last, size, size / chunks + (size % chunks != 0));
}
