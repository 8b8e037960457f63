/*
 * gather.c: the kernels behind advanced indexing (x[mask], x[idx], x[i, j],
 * their writes, index_put_ with accumulate, nonzero, where).
 *
 * NumPy's mapping code has three paths and so do we:
 *   - a bool mask over every dimension of the indexed view: count the true
 *     bytes, then one pass that skips runs of false bytes eight at a time
 *     and moves the elements under true ones (lt_mask_gather, lt_mask_scatter);
 *   - any other mix of index tensors (and masks turned into positions by
 *     lt_mask_positions): the index tensors become one array of element
 *     offsets, range-checked once (lt_index_offsets), and a strided walk
 *     reads or writes src + offsets[...] (lt_index_gather, lt_index_scatter);
 *   - a single index tensor is its own loop (lt_index_take), checking each
 *     index as it reads it: its innermost loop either copies a contiguous
 *     row (x[idx] of a matrix) or is the gather itself (x[:, idx]).
 *
 * These kernels move bytes: source and destination have one dtype, which the
 * caller has converted to. Only the accumulating scatter does arithmetic.
 * Offsets and strides are in elements; every address is
 *     base + (sum_d i[d] * strides[d] + offsets[sum_d i[d] * offset_strides[d]]) * itemsize.
 */
#include <inttypes.h>
#include <string.h>

#include "internal.h"
#include "kernels.h"

/* ------------------------------------------------------------ element moves */

/* Copies one element of itemsize bytes; fixed sizes compile to one move. */
static inline void move1(char *dst, const char *src, size_t itemsize)
{
    switch (itemsize) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, itemsize); break;
    }
}

/* dst += src for one element of dtype (torch's index_put_ accumulate rule:
 * integers wrap, bool is logical or, float16/bfloat16 add in float32 and
 * round once). The caller has refused dtypes without arithmetic. */
static void add1(char *dst, const char *src, lt_dtype dtype)
{
#define ADD(T)                                                   \
    do {                                                         \
        T a_ = LT__LOAD(T, dst), b_ = LT__LOAD(T, src);          \
        LT__STORE(T, dst, (T)(a_ + b_));                         \
    } while (0)
#define UADD(T, U)                                               \
    do { /* wrapping add through the unsigned type */            \
        T a_ = LT__LOAD(T, dst), b_ = LT__LOAD(T, src);          \
        LT__STORE(T, dst, (T)(U)((U)a_ + (U)b_));                \
    } while (0)
    switch (dtype) {
    case LT_BOOL: *dst = (char)((*dst != 0) | (*src != 0)); break;
    case LT_UINT8: UADD(uint8_t, uint8_t); break;
    case LT_UINT16: UADD(uint16_t, uint16_t); break;
    case LT_UINT32: UADD(uint32_t, uint32_t); break;
    case LT_UINT64: UADD(uint64_t, uint64_t); break;
    case LT_INT8: UADD(int8_t, uint8_t); break;
    case LT_INT16: UADD(int16_t, uint16_t); break;
    case LT_INT32: UADD(int32_t, uint32_t); break;
    case LT_INT64: UADD(int64_t, uint64_t); break;
    case LT_FLOAT32: ADD(float); break;
    case LT_FLOAT64: ADD(double); break;
    case LT_COMPLEX64:
        ADD(float);
        dst += 4, src += 4;
        ADD(float);
        break;
    case LT_COMPLEX128:
        ADD(double);
        dst += 8, src += 8;
        ADD(double);
        break;
    case LT_FLOAT16: {
        float s = lt__f16_to_f32(LT__LOAD(uint16_t, dst)) + lt__f16_to_f32(LT__LOAD(uint16_t, src));
        LT__STORE(uint16_t, dst, lt__f32_to_f16(s));
        break;
    }
    case LT_BFLOAT16: {
        float s = lt__bf16_to_f32(LT__LOAD(uint16_t, dst)) + lt__bf16_to_f32(LT__LOAD(uint16_t, src));
        LT__STORE(uint16_t, dst, lt__f32_to_bf16(s));
        break;
    }
    default: LT__ASSERT(0 && "accumulate dtype refused by the caller");
    }
#undef ADD
#undef UADD
}

static int has_add(lt_dtype dtype) { return dtype <= LT_COMPLEX128; }

/* ------------------------------------------------------------ argument checks */

static lt_status check_args(lt_dtype dtype, int32_t ndim, const int64_t *shape, int64_t *numel)
{
    lt_status rc;
    if ((rc = lt__check_dtype(dtype, "dtype")) != LT_OK || (rc = lt__check_shape(ndim, shape)) != LT_OK)
        return rc;
    return lt_layout_numel(numel, ndim, shape);
}

/* The first ndim - 1 coordinates of a row-major walk: the innermost
 * dimension is each kernel's own loop. Returns 0 when the walk is done. */
static int next_row(int64_t *idx, int32_t ndim, const int64_t *shape)
{
    for (int32_t d = ndim - 2; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

static int64_t dot(const int64_t *idx, const int64_t *strides, int32_t n)
{
    int64_t s = 0;
    for (int32_t d = 0; d < n; d++)
        s += idx[d] * strides[d];
    return s;
}

/* ------------------------------------------------------------ masks */

/* Whether any of the 8 mask bytes at p (mask stride 1) is set: lets the
 * walks below skip a run of false bytes eight at a time. */
static inline int any8(const uint8_t *p) { return LT__LOAD(uint64_t, p) != 0; }

/* How many of the 8 bytes of w are nonzero, without a branch per byte: a bool
 * byte is 0 or 1 in torch, but any nonzero byte counts as true. Per byte,
 * ((b & 0x7f) + 0x7f) | b has its top bit set exactly when b != 0. */
static inline int64_t nonzero_bytes(uint64_t w)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t top = (((w & low7) + low7) | w) & ~low7;
    return __builtin_popcountll(top);
}

lt_status lt_mask_count(int64_t *out, const void *mask, const int64_t *mask_strides, int32_t ndim,
                        const int64_t *shape)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0}, count = 0;
    lt_status rc = check_args(LT_BOOL, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("mask", mask, mask_strides, LT_BOOL, ndim, shape, numel);
    if (rc != LT_OK)
        return rc;
    if (!out)
        return lt__fail(LT_EINVAL, "lt_mask_count: out is NULL");
    if (numel > 0) {
        int64_t n = ndim ? shape[ndim - 1] : 1, st = ndim ? mask_strides[ndim - 1] : 0;
        do {
            const uint8_t *m = (const uint8_t *)mask + dot(idx, mask_strides, ndim > 0 ? ndim - 1 : 0);
            int64_t i = 0;
            if (st == 1)
                for (; i + 8 <= n; i += 8) {
                    count += nonzero_bytes(LT__LOAD(uint64_t, m + i));
                }
            for (; i < n; i++)
                count += m[i * st] != 0;
        } while (next_row(idx, ndim, shape));
    }
    *out = count;
    return LT_OK;
}

lt_status lt_mask_positions(int64_t *out, int64_t row_stride, int64_t col_stride, int64_t count, int32_t ncols,
                            const int64_t *weights, const void *mask, const int64_t *mask_strides, int32_t ndim,
                            const int64_t *shape)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0}, k = 0;
    lt_status rc = check_args(LT_BOOL, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("mask", mask, mask_strides, LT_BOOL, ndim, shape, numel);
    if (rc != LT_OK)
        return rc;
    if (ncols < 0 || (ncols > 0 && ndim > 0 && !weights) || (count > 0 && ncols > 0 && !out))
        return lt__fail(LT_EINVAL, "lt_mask_positions: %d columns need weights and an output", (int)ncols);
    if (numel > 0) {
        int64_t n = ndim ? shape[ndim - 1] : 1, st = ndim ? mask_strides[ndim - 1] : 0;
        /* column c of the element at last index i of a row is base[c] + i * step[c]:
         * one multiply-add per column instead of a dot over all dimensions */
        int64_t base[LT_MAX_NDIM], step[LT_MAX_NDIM];
        int fast = ndim > 0 && ncols <= LT_MAX_NDIM;
        do {
            const uint8_t *m = (const uint8_t *)mask + dot(idx, mask_strides, ndim > 0 ? ndim - 1 : 0);
            int64_t i = 0;
            if (fast && st == 1) {
                for (int32_t c = 0; c < ncols; c++) {
                    base[c] = dot(idx, weights + (int64_t)c * ndim, ndim); /* idx[ndim - 1] is 0 here */
                    step[c] = weights[(int64_t)c * ndim + ndim - 1];
                }
                /* groups of eight while eight more rows of out exist: each element is
                 * written at row k and k advances past the selected ones only, so a
                 * random mask costs no mispredicted branch */
                for (; i + 8 <= n && k + 8 <= count; i += 8) {
                    if (!any8(m + i))
                        continue;
                    for (int64_t j = i; j < i + 8; j++) {
                        int64_t *row = out + k * row_stride;
                        for (int32_t c = 0; c < ncols; c++)
                            row[c * col_stride] = base[c] + j * step[c];
                        k += m[j] != 0;
                    }
                }
            }
            for (; i < n; i++) {
                if (st == 1 && (i & 7) == 0 && i + 8 <= n && !any8(m + i)) {
                    i += 7;
                    continue;
                }
                if (!m[i * st])
                    continue;
                if (k == count)
                    return lt__fail(LT_EINVAL, "lt_mask_positions: the mask holds more than the %" PRId64
                                    " true elements counted (it changed in between)", count);
                if (ndim)
                    idx[ndim - 1] = i;
                for (int32_t c = 0; c < ncols; c++)
                    out[k * row_stride + c * col_stride] = dot(idx, weights + (int64_t)c * ndim, ndim);
                k++;
            }
            if (ndim)
                idx[ndim - 1] = 0;
        } while (next_row(idx, ndim, shape));
    }
    if (k != count)
        return lt__fail(LT_EINVAL, "lt_mask_positions: the mask holds %" PRId64 " true elements, not the %" PRId64
                        " counted", k, count);
    return LT_OK;
}

/* One row of x[mask]: appends the elements of v under true mask bytes to
 * packed from position k. Branch-free: each element is stored at packed[k]
 * and k advances only past a selected one, so a random mask costs no
 * mispredicted branches; runs of eight false bytes are skipped. Returns the
 * new k, or -1 when the mask holds more than count true bytes. */
#define GATHER_ROW(NAME, T)                                                                                  \
    static int64_t NAME(const char *v, int64_t vst, char *p, int64_t ps, const uint8_t *m, int64_t st,         \
                        int64_t n, int64_t k, int64_t count)                                                 \
    {                                                                                                        \
        for (int64_t i = 0; i < n;) {                                                                        \
            int64_t end = i + 1;                                                                             \
            if (st == 1 && i + 8 <= n) {                                                                     \
                if (!any8(m + i)) {                                                                          \
                    i += 8;                                                                                  \
                    continue;                                                                                \
                }                                                                                            \
                end = i + 8;                                                                                 \
            }                                                                                                \
            for (; i < end; i++) {                                                                           \
                int64_t sel = m[i * st] != 0;                                                                \
                if (k < count)                                                                               \
                    LT__STORE(T, p + k * ps * (int64_t)sizeof(T), LT__LOAD(T, v + i * vst * (int64_t)sizeof(T))); \
                else if (sel)                                                                                \
                    return -1;                                                                               \
                k += sel;                                                                                    \
            }                                                                                                \
        }                                                                                                    \
        return k;                                                                                            \
    }
GATHER_ROW(gather_row1, uint8_t)
GATHER_ROW(gather_row2, uint16_t)
GATHER_ROW(gather_row4, uint32_t)
GATHER_ROW(gather_row8, uint64_t)
#undef GATHER_ROW

static int64_t gather_row(const char *v, int64_t vst, char *p, int64_t ps, size_t isz, const uint8_t *m, int64_t st,
                          int64_t n, int64_t k, int64_t count)
{
    switch (isz) {
    case 1: return gather_row1(v, vst, p, ps, m, st, n, k, count);
    case 2: return gather_row2(v, vst, p, ps, m, st, n, k, count);
    case 4: return gather_row4(v, vst, p, ps, m, st, n, k, count);
    case 8: return gather_row8(v, vst, p, ps, m, st, n, k, count);
    default: break;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!m[i * st])
            continue;
        if (k == count)
            return -1;
        move1(p + k * ps * (int64_t)isz, v + i * vst * (int64_t)isz, isz);
        k++;
    }
    return k;
}

/* One dense row of x[mask] = packed, for 8 dense mask bytes with at least one
 * set: branch-free, each of the 8 elements is stored, the unselected ones
 * with their own value. The 8 elements share the selected one's cache line
 * or its neighbour, so no page is written that the write does not change. */
#define SCATTER_ROW(NAME, T)                                                                                  \
    static int64_t NAME(char *v, const char *p, int64_t ps, const uint8_t *m, int64_t n, int64_t k, int64_t count) \
    {                                                                                                        \
        int64_t i = 0;                                                                                       \
        for (; i + 8 <= n; i += 8) {                                                                         \
            if (!any8(m + i))                                                                                \
                continue;                                                                                    \
            for (int64_t j = i; j < i + 8; j++) {                                                            \
                int64_t sel = m[j] != 0;                                                                     \
                if (sel & (k >= count)) /* not &&: no branch on the mask byte */                              \
                    return -1;                                                                               \
                T mine = LT__LOAD(T, v + j * (int64_t)sizeof(T));                                            \
                int64_t at = k - (k >= count); /* in range even past the last selected one (count > 0) */     \
                T theirs = LT__LOAD(T, p + at * ps * (int64_t)sizeof(T));                                    \
                T keep = (T)(sel - 1); /* all ones when not selected */                                        \
                LT__STORE(T, v + j * (int64_t)sizeof(T), (T)((mine & keep) | (theirs & (T)~keep)));           \
                k += sel;                                                                                    \
            }                                                                                                \
        }                                                                                                    \
        for (; i < n; i++)                                                                                   \
            if (m[i]) {                                                                                      \
                if (k >= count)                                                                              \
                    return -1;                                                                               \
                LT__STORE(T, v + i * (int64_t)sizeof(T), LT__LOAD(T, p + k * ps * (int64_t)sizeof(T)));       \
                k++;                                                                                         \
            }                                                                                                \
        return k;                                                                                            \
    }
SCATTER_ROW(scatter_row1, uint8_t)
SCATTER_ROW(scatter_row2, uint16_t)
SCATTER_ROW(scatter_row4, uint32_t)
SCATTER_ROW(scatter_row8, uint64_t)
#undef SCATTER_ROW

/* One dense row of x[mask] = value (a stride-0 packed operand, as
 * t[mask] = 0): the number selected comes from a byte popcount, so the write
 * is a fixed-width blend with no dependence on a running k and vectorises;
 * groups of eight false bytes are still skipped unwritten, as above. */
#define FILL_ROW(NAME, T)                                                                                     \
    static int64_t NAME(char *v, const char *p, const uint8_t *m, int64_t n, int64_t k, int64_t count)         \
    {                                                                                                        \
        T val = LT__LOAD(T, p);                                                                              \
        int64_t i = 0;                                                                                       \
        for (; i + 8 <= n; i += 8) {                                                                         \
            uint64_t w = LT__LOAD(uint64_t, m + i);                                                          \
            if (!w)                                                                                          \
                continue;                                                                                    \
            k += nonzero_bytes(w);                                                                           \
            T *row = (T *)(void *)(v + i * (int64_t)sizeof(T));                                              \
            for (int j = 0; j < 8; j++) {                                                                    \
                T keep = (T)((T)(m[i + j] != 0) - 1); /* all ones when not selected */                         \
                T mine;                                                                                      \
                memcpy(&mine, row + j, sizeof(T));                                                           \
                mine = (T)((mine & keep) | (val & (T)~keep));                                                \
                memcpy(row + j, &mine, sizeof(T));                                                           \
            }                                                                                                \
        }                                                                                                    \
        for (; i < n; i++)                                                                                   \
            if (m[i]) {                                                                                      \
                LT__STORE(T, v + i * (int64_t)sizeof(T), val);                                               \
                k++;                                                                                         \
            }                                                                                                \
        return k > count ? -1 : k;                                                                           \
    }
FILL_ROW(fill_row1, uint8_t)
FILL_ROW(fill_row2, uint16_t)
FILL_ROW(fill_row4, uint32_t)
FILL_ROW(fill_row8, uint64_t)
#undef FILL_ROW

/* One row of x[mask] = packed: writes only the selected elements where the
 * row is strided (a store to every element could dirty pages of a mapped
 * file that the write does not change), skipping runs of eight false bytes.
 * Returns the new k, or -1. */
static int64_t scatter_row(char *v, int64_t vst, const char *p, int64_t ps, size_t isz, const uint8_t *m, int64_t st,
                           int64_t n, int64_t k, int64_t count)
{
    if (vst == 1 && st == 1 && count > 0 && ps == 0) {
        switch (isz) {
        case 1: return fill_row1(v, p, m, n, k, count);
        case 2: return fill_row2(v, p, m, n, k, count);
        case 4: return fill_row4(v, p, m, n, k, count);
        case 8: return fill_row8(v, p, m, n, k, count);
        default: break;
        }
    }
    if (vst == 1 && st == 1 && count > 0) {
        switch (isz) {
        case 1: return scatter_row1(v, p, ps, m, n, k, count);
        case 2: return scatter_row2(v, p, ps, m, n, k, count);
        case 4: return scatter_row4(v, p, ps, m, n, k, count);
        case 8: return scatter_row8(v, p, ps, m, n, k, count);
        default: break;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        if (st == 1 && (i & 7) == 0 && i + 8 <= n && !any8(m + i)) {
            i += 7; /* a run of eight false bytes */
            continue;
        }
        if (!m[i * st])
            continue;
        if (k == count)
            return -1;
        move1(v + i * vst * (int64_t)isz, p + k * ps * (int64_t)isz, isz);
        k++;
    }
    return k;
}

/* The shared walk of lt_mask_gather and lt_mask_scatter: for the k-th true
 * element of mask (row-major), view[i] and packed[k * packed_stride]. */
static lt_status mask_walk(char *view, const int64_t *view_strides, char *packed, int64_t packed_stride,
                           lt_dtype dtype, int to_view, const void *mask, const int64_t *mask_strides, int32_t ndim,
                           const int64_t *shape, int64_t count, const char *fn)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0}, k = 0;
    lt_status rc = check_args(dtype, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("mask", mask, mask_strides, LT_BOOL, ndim, shape, numel);
    if (rc == LT_OK)
        rc = lt__check_operand("view", view, view_strides, dtype, ndim, shape, numel);
    if (rc != LT_OK)
        return rc;
    if (count > 0 && !packed)
        return lt__fail(LT_EINVAL, "%s: the packed operand is NULL for %" PRId64 " elements", fn, count);
    size_t isz = lt_dtype_itemsize(dtype);
    if (numel > 0) {
        int64_t n = ndim ? shape[ndim - 1] : 1, st = ndim ? mask_strides[ndim - 1] : 0;
        int64_t vst = ndim ? view_strides[ndim - 1] : 0;
        do {
            int32_t outer = ndim > 0 ? ndim - 1 : 0;
            const uint8_t *m = (const uint8_t *)mask + dot(idx, mask_strides, outer);
            char *v = view + dot(idx, view_strides, outer) * (int64_t)isz;
            k = to_view ? scatter_row(v, vst, packed, packed_stride, isz, m, st, n, k, count)
                        : gather_row(v, vst, packed, packed_stride, isz, m, st, n, k, count);
            if (k < 0)
                return lt__fail(LT_EINVAL, "%s: the mask holds more than the %" PRId64 " true elements counted",
                                fn, count);
        } while (next_row(idx, ndim, shape));
    }
    if (k != count)
        return lt__fail(LT_EINVAL, "%s: the mask holds %" PRId64 " true elements, not the %" PRId64 " counted", fn,
                        k, count);
    return LT_OK;
}

lt_status lt_mask_gather(void *dst, const void *src, const int64_t *src_strides, lt_dtype dtype, const void *mask,
                         const int64_t *mask_strides, int32_t ndim, const int64_t *shape, int64_t count)
{
    /* the walk only reads through src when gathering */
    return mask_walk((char *)(uintptr_t)src, src_strides, dst, 1, dtype, 0, mask, mask_strides, ndim, shape, count,
                     "lt_mask_gather");
}

lt_status lt_mask_scatter(void *dst, const int64_t *dst_strides, const void *src, int64_t src_stride, lt_dtype dtype,
                          const void *mask, const int64_t *mask_strides, int32_t ndim, const int64_t *shape,
                          int64_t count)
{
    return mask_walk(dst, dst_strides, (char *)(uintptr_t)src, src_stride, dtype, 1, mask, mask_strides, ndim, shape,
                     count, "lt_mask_scatter");
}

/* ------------------------------------------------------------ index tensors */

lt_status lt_index_offsets(int64_t *out, int32_t nidx, const int64_t *const *index, const int64_t *index_strides,
                           const int64_t *dim_sizes, const int64_t *dim_strides, const int64_t *dim_ids,
                           int wrap_negative, int32_t ndim, const int64_t *shape)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0}, k = 0;
    lt_status rc = check_args(LT_INT64, ndim, shape, &numel);
    if (rc != LT_OK)
        return rc;
    if (nidx < 1 || nidx > LT_MAX_NDIM || !index || !dim_sizes || !dim_strides || !dim_ids ||
        (ndim > 0 && !index_strides) || (numel > 0 && !out))
        return lt__fail(LT_EINVAL, "lt_index_offsets: %d index tensors need their arrays and an output", (int)nidx);
    for (int32_t j = 0; j < nidx; j++) {
        if ((rc = lt__check_operand("index", index[j], index_strides + (int64_t)j * ndim, LT_INT64, ndim, shape,
                                    numel)) != LT_OK)
            return rc;
        if (dim_sizes[j] < 0)
            return lt__fail(LT_EINVAL, "lt_index_offsets: dimension %" PRId64 " has size %" PRId64, dim_ids[j],
                            dim_sizes[j]);
    }
    if (numel == 0)
        return LT_OK;
    int64_t n = ndim ? shape[ndim - 1] : 1;
    do {
        for (int64_t i = 0; i < n; i++, k++) {
            if (ndim)
                idx[ndim - 1] = i;
            int64_t off = 0;
            for (int32_t j = 0; j < nidx; j++) {
                int64_t v = index[j][dot(idx, index_strides + (int64_t)j * ndim, ndim)], size = dim_sizes[j];
                if (v < (wrap_negative ? -size : 0) || v >= size)
                    return lt__fail(LT_ERANGE, "index %" PRId64 " is out of bounds for dimension %" PRId64
                                    " with size %" PRId64, v, dim_ids[j], size);
                off += (v < 0 ? v + size : v) * dim_strides[j]; /* negative indices count from the end, as torch */
            }
            out[k] = off;
        }
        if (ndim)
            idx[ndim - 1] = 0;
    } while (next_row(idx, ndim, shape));
    return LT_OK;
}

/* The walk of both index kernels: over shape, element i of the view is at
 * view + (view_strides . i + offsets[offset_strides . i]) * itemsize, and
 * element i of the dense side at other + (other_strides . i) * itemsize. */
static lt_status index_walk(char *view, const int64_t *view_strides, const int64_t *offsets,
                            const int64_t *offset_strides, char *other, const int64_t *other_strides, lt_dtype dtype,
                            int mode, int32_t ndim, const int64_t *shape, const char *fn)
{
    enum { GATHER, SCATTER, ACCUMULATE };
    int64_t numel, idx[LT_MAX_NDIM] = {0};
    lt_status rc = check_args(dtype, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("other", other, other_strides, dtype, ndim, shape, numel);
    if (rc != LT_OK)
        return rc;
    if (numel > 0 && (!view || !offsets || (ndim > 0 && (!view_strides || !offset_strides))))
        return lt__fail(LT_EINVAL, "%s: NULL view, offsets or strides", fn);
    if (mode == ACCUMULATE && !has_add(dtype))
        return lt__fail(LT_EDTYPE, "%s: accumulate is not implemented for %s", fn, lt_dtype_name(dtype));
    if (numel == 0)
        return LT_OK;
    const int64_t isz = (int64_t)lt_dtype_itemsize(dtype);
    const int64_t n = ndim ? shape[ndim - 1] : 1;
    const int64_t vs = ndim ? view_strides[ndim - 1] : 0, os = ndim ? offset_strides[ndim - 1] : 0;
    const int64_t ds = ndim ? other_strides[ndim - 1] : 0;
    const int32_t outer = ndim > 0 ? ndim - 1 : 0;
    do {
        char *v = view + dot(idx, view_strides, outer) * isz, *o = other + dot(idx, other_strides, outer) * isz;
        const int64_t *off = offsets + dot(idx, offset_strides, outer);
        if (mode == GATHER && os == 0 && vs == 1 && ds == 1) {
            memcpy(o, v + off[0] * isz, (size_t)(n * isz)); /* a whole row: x[idx] of a matrix */
        } else if (mode == GATHER && vs == 0 && ds == 1 && os == 1 && isz == 4) {
            for (int64_t i = 0; i < n; i++) /* the gather itself: x[:, idx], x[idx] of a vector */
                memcpy(o + i * 4, v + off[i] * 4, 4);
        } else if (mode == GATHER) {
            for (int64_t i = 0; i < n; i++)
                move1(o + i * ds * isz, v + (i * vs + off[i * os]) * isz, (size_t)isz);
        } else if (mode == SCATTER && os == 0 && vs == 1 && ds == 1) {
            memcpy(v + off[0] * isz, o, (size_t)(n * isz)); /* a whole row: x[idx] = rows */
        } else if (mode == SCATTER) {
            for (int64_t i = 0; i < n; i++)
                move1(v + (i * vs + off[i * os]) * isz, o + i * ds * isz, (size_t)isz);
        } else {
            for (int64_t i = 0; i < n; i++)
                add1(v + (i * vs + off[i * os]) * isz, o + i * ds * isz, dtype);
        }
    } while (next_row(idx, ndim, shape));
    return LT_OK;
}

lt_status lt_index_gather(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                          const int64_t *offsets, const int64_t *offset_strides, lt_dtype dtype, int32_t ndim,
                          const int64_t *shape)
{
    return index_walk((char *)(uintptr_t)src, src_strides, offsets, offset_strides, dst, dst_strides, dtype, 0, ndim,
                      shape, "lt_index_gather");
}

lt_status lt_index_scatter(void *dst, const int64_t *dst_strides, const int64_t *offsets,
                           const int64_t *offset_strides, const void *src, const int64_t *src_strides, lt_dtype dtype,
                           int accumulate, int32_t ndim, const int64_t *shape)
{
    return index_walk(dst, dst_strides, offsets, offset_strides, (char *)(uintptr_t)src, src_strides, dtype,
                      accumulate ? 2 : 1, ndim, shape, "lt_index_scatter");
}

/* ------------------------------------------------------------ one index tensor */

/* index[j] as an element offset along a dimension of size and stride, or -1
 * (with the error recorded) when out of range. */
static inline int take_offset(int64_t *off, int64_t v, int64_t size, int64_t stride, int64_t dim_id, int wrap)
{
    if (v < (wrap ? -size : 0) || v >= size) {
        lt__fail(LT_ERANGE, "index %" PRId64 " is out of bounds for dimension %" PRId64 " with size %" PRId64, v,
                 dim_id, size);
        return -1;
    }
    *off = (v < 0 ? v + size : v) * stride;
    return 0;
}

lt_status lt_index_take(void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                        const int64_t *index, const int64_t *index_strides, int64_t dim_size, int64_t dim_stride,
                        int64_t dim_id, int wrap_negative, lt_dtype dtype, int32_t ndim, const int64_t *shape)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0}, off;
    lt_status rc = check_args(dtype, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("dst", dst, dst_strides, dtype, ndim, shape, numel);
    if (rc == LT_OK)
        rc = lt__check_operand("index", index, index_strides, LT_INT64, ndim, shape, numel);
    if (rc != LT_OK || numel == 0)
        return rc;
    if (!src || (ndim > 0 && !src_strides) || dim_size < 0)
        return lt__fail(LT_EINVAL, "lt_index_take: NULL source or a dimension of size %" PRId64, dim_size);
    const int64_t isz = (int64_t)lt_dtype_itemsize(dtype), n = ndim ? shape[ndim - 1] : 1;
    const int32_t outer = ndim > 0 ? ndim - 1 : 0;
    const int64_t ds = ndim ? dst_strides[outer] : 0, ss = ndim ? src_strides[outer] : 0;
    const int64_t xs = ndim ? index_strides[outer] : 0;
    do {
        char *o = (char *)dst + dot(idx, dst_strides, outer) * isz;
        const char *v = (const char *)src + dot(idx, src_strides, outer) * isz;
        const int64_t *x = index + dot(idx, index_strides, outer);
        if (xs == 0) { /* one index for the whole row: x[idx] of a matrix copies a row */
            if (take_offset(&off, x[0], dim_size, dim_stride, dim_id, wrap_negative))
                return LT_ERANGE;
            if (ss == 1 && ds == 1)
                memcpy(o, v + off * isz, (size_t)(n * isz));
            else
                for (int64_t i = 0; i < n; i++)
                    move1(o + i * ds * isz, v + (off + i * ss) * isz, (size_t)isz);
        } else { /* the gather itself: x[:, idx], x[idx] of a vector */
            for (int64_t i = 0; i < n; i++) {
                if (take_offset(&off, x[i * xs], dim_size, dim_stride, dim_id, wrap_negative))
                    return LT_ERANGE;
                move1(o + i * ds * isz, v + (off + i * ss) * isz, (size_t)isz);
            }
        }
    } while (next_row(idx, ndim, shape));
    return LT_OK;
}

/* ------------------------------------------------------------ where */

lt_status lt_where(void *dst, const int64_t *dst_strides, const void *cond, const int64_t *cond_strides,
                   const void *a, const int64_t *a_strides, const void *b, const int64_t *b_strides, lt_dtype dtype,
                   int32_t ndim, const int64_t *shape)
{
    int64_t numel, idx[LT_MAX_NDIM] = {0};
    lt_status rc = check_args(dtype, ndim, shape, &numel);
    if (rc == LT_OK)
        rc = lt__check_operand("dst", dst, dst_strides, dtype, ndim, shape, numel);
    if (rc == LT_OK)
        rc = lt__check_operand("cond", cond, cond_strides, LT_BOOL, ndim, shape, numel);
    if (rc == LT_OK)
        rc = lt__check_operand("a", a, a_strides, dtype, ndim, shape, numel);
    if (rc == LT_OK)
        rc = lt__check_operand("b", b, b_strides, dtype, ndim, shape, numel);
    if (rc != LT_OK || numel == 0)
        return rc;
    const int64_t isz = (int64_t)lt_dtype_itemsize(dtype), n = ndim ? shape[ndim - 1] : 1;
    const int32_t outer = ndim > 0 ? ndim - 1 : 0, last = ndim > 0 ? ndim - 1 : 0;
    const int64_t ds = ndim ? dst_strides[last] : 0, cs = ndim ? cond_strides[last] : 0;
    const int64_t as = ndim ? a_strides[last] : 0, bs = ndim ? b_strides[last] : 0;
    do {
        char *d = (char *)dst + dot(idx, dst_strides, outer) * isz;
        const uint8_t *c = (const uint8_t *)cond + dot(idx, cond_strides, outer);
        const char *pa = (const char *)a + dot(idx, a_strides, outer) * isz;
        const char *pb = (const char *)b + dot(idx, b_strides, outer) * isz;
        for (int64_t i = 0; i < n; i++)
            move1(d + i * ds * isz, c[i * cs] ? pa + i * as * isz : pb + i * bs * isz, (size_t)isz);
    } while (next_row(idx, ndim, shape));
    return LT_OK;
}
