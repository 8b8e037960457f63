/*
 * copy.c: lt_copy and lt_fill, plus the argument checks every kernel shares.
 *
 * A copy validates its views, removes any partial overlap with a temporary,
 * prepares a walk (threads.c) and runs the dtype pair's inner loop (cast.c)
 * over it. Transposing copies, where the two views are dense along different
 * dimensions, are walked in square tiles instead.
 */
#include <inttypes.h>
#include <stdint.h>

#include "kernels.h"

/* ------------------------------------------------------------ shared checks */

lt_status lt__check_dtype(lt_dtype dtype, const char *what)
{
    if (!lt__dtype_valid(dtype))
        return lt__fail(LT_EDTYPE, "%s is %d, which is not a dtype (valid values are 0 to %d)", what, (int)dtype,
                        LT_DTYPE_COUNT - 1);
    return LT_OK;
}

lt_status lt__check_operand(const char *what, const void *ptr, const int64_t *strides, lt_dtype dtype,
                            int32_t ndim, const int64_t *shape, int64_t numel)
{
    int64_t lo, hi;
    if (ndim > 0 && !strides)
        return lt__fail(LT_EINVAL, "%s strides are NULL for ndim %d", what, (int)ndim);
    if (!ptr && numel > 0)
        return lt__fail(LT_EINVAL, "%s data is NULL but the view has %" PRId64 " elements", what, numel);
    /* The extent bounds every offset a walk will form, so once it fits in
     * int64 no later stride * index product can overflow. */
    return lt_layout_extent(&lo, &hi, ndim, shape, strides, 0, lt_dtype_itemsize(dtype));
}

void lt__dense_strides(int64_t *out, int32_t ndim, const int64_t *shape)
{
    int64_t s = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        out[d] = s;
        s *= shape[d];
    }
}

/* [lo, hi): the addresses a validated view touches. */
static void byte_range(uintptr_t *lo, uintptr_t *hi, const void *ptr, const int64_t *strides, lt_dtype dtype,
                       int32_t ndim, const int64_t *shape)
{
    int64_t lo_byte = 0, hi_byte = 0;
    lt_status rc = lt_layout_extent(&lo_byte, &hi_byte, ndim, shape, strides, 0, lt_dtype_itemsize(dtype));
    LT__ASSERT(rc == LT_OK); /* checked by lt__check_operand */
    *lo = (uintptr_t)ptr + (uintptr_t)lo_byte;
    *hi = (uintptr_t)ptr + (uintptr_t)hi_byte;
}

int lt__views_overlap(const void *a, const int64_t *a_strides, lt_dtype a_dtype, const void *b,
                      const int64_t *b_strides, lt_dtype b_dtype, int32_t ndim, const int64_t *shape)
{
    uintptr_t a_lo, a_hi, b_lo, b_hi;
    byte_range(&a_lo, &a_hi, a, a_strides, a_dtype, ndim, shape);
    byte_range(&b_lo, &b_hi, b, b_strides, b_dtype, ndim, shape);
    return a_lo < a_hi && b_lo < b_hi && a_lo < b_hi && b_lo < a_hi;
}

int lt__views_identical(const void *a, const int64_t *a_strides, size_t a_itemsize, const void *b,
                        const int64_t *b_strides, size_t b_itemsize, int32_t ndim, const int64_t *shape)
{
    if (a != b || a_itemsize != b_itemsize)
        return 0;
    for (int32_t d = 0; d < ndim; d++)
        if (shape[d] > 1 && a_strides[d] != b_strides[d])
            return 0;
    return 1;
}

/* ------------------------------------------------------------ transposes */

/* Tiling, found by measurement on 8192^2 transposes: blocks of BLOCK x
 * BLOCK elements keep the pages and lines a block touches resident (TLB and
 * L2). Inside a block, runs of RUN(itemsize) dst elements are written for
 * ROWS successive rows, which reuse the src lines the previous rows brought
 * in. Runs are short because with power-of-two row strides every src line
 * of a run falls into the same L1 set; 16 float32 (one dst line) ran twice
 * as fast as 32 x 32 square tiles, and bytes and halves want shorter runs
 * still. */
#define BLOCK 256
#define ROWS 64
#define RUN(itemsize) ((itemsize) == 2 || (itemsize) == 8 ? 8 : (itemsize) == 16 ? 4 : 16)

typedef void (*block_move)(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp, ptrdiff_t src_sq,
                           int64_t np, int64_t nq);

typedef struct tile_job {
    const lt__walk *w;
    lt__kernel kernel;
    int64_t nblocks_p, nblocks_q; /* BLOCK-sized blocks along P and Q */
    int64_t run;                  /* dst elements per kernel call */
    block_move move;              /* set for same-dtype copies */
} tile_job;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Same-dtype block moves with the loops of tile_block inlined: a transpose
 * is millions of one-line runs, and a kernel call per run costs as much as
 * the run itself. dst is dense along Q (stride N); strides in bytes. */
#define BLOCK_MOVE(N, T)                                                                                    \
    static void move_block_##N(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp,              \
                               ptrdiff_t src_sq, int64_t np, int64_t nq)                                    \
    {                                                                                                       \
        for (int64_t i0 = 0; i0 < np; i0 += ROWS)                                                           \
            for (int64_t j0 = 0; j0 < nq; j0 += RUN(N))                                                     \
                for (int64_t i = i0, nj = min64(RUN(N), nq - j0); i < min64(i0 + ROWS, np); i++)            \
                    for (int64_t j = j0; j < j0 + nj; j++)                                                  \
                        LT__STORE(T, dst + i * dst_sp + j * N, LT__LOAD(T, src + i * src_sp + j * src_sq)); \
    }
BLOCK_MOVE(1, uint8_t)
BLOCK_MOVE(2, uint16_t)
BLOCK_MOVE(4, uint32_t)
BLOCK_MOVE(8, uint64_t)
BLOCK_MOVE(16, lt__c128)

/* One block: rows i (dimension P, dense in src) by columns j (Q, dense in
 * dst), both offsets already applied to base. */
static void tile_block(const tile_job *job, char *const base[2], int64_t np, int64_t nq)
{
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2, q = w->ndim - 1;
    const ptrdiff_t step[2] = {w->stride[q][0], w->stride[q][1]};
    if (job->move) { /* same dtype: inline moves, no call per run */
        job->move(base[0], w->stride[p][0], base[1], w->stride[p][1], w->stride[q][1], np, nq);
        return;
    }
    for (int64_t i0 = 0; i0 < np; i0 += ROWS) {
        for (int64_t j0 = 0; j0 < nq; j0 += job->run) {
            int64_t n = min64(job->run, nq - j0);
            for (int64_t i = i0; i < min64(i0 + ROWS, np); i++) {
                char *ptr[2];
                for (int k = 0; k < 2; k++)
                    ptr[k] = base[k] + i * w->stride[p][k] + j0 * w->stride[q][k];
                job->kernel(ptr, step, n);
            }
        }
    }
}

static void tile_range(void *ctx, int64_t lo, int64_t hi)
{
    const tile_job *job = ctx;
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2, q = w->ndim - 1;
    const int64_t per_outer = job->nblocks_p * job->nblocks_q;
    for (int64_t item = lo; item < hi; item++) {
        int64_t outer = item / per_outer, bp = item % per_outer / job->nblocks_q, bq = item % job->nblocks_q;
        char *base[2];
        for (int k = 0; k < 2; k++)
            base[k] = w->base[k] + bp * BLOCK * w->stride[p][k] + bq * BLOCK * w->stride[q][k];
        for (int32_t d = p - 1; d >= 0; d--) { /* unravel the outer index */
            for (int k = 0; k < 2; k++)
                base[k] += (outer % w->shape[d]) * w->stride[d][k];
            outer /= w->shape[d];
        }
        tile_block(job, base, min64(BLOCK, w->shape[p] - bp * BLOCK), min64(BLOCK, w->shape[q] - bq * BLOCK));
    }
}

/* Takes the tiled path when dst is dense along the innermost dimension but
 * src is denser along another one, and both are long enough for tiles to
 * pay. Returns 0 (nothing done) otherwise. */
static int copy_transposed(lt__walk *w, lt__kernel kernel, int same_dtype, size_t dst_itemsize,
                           int64_t bytes_per_element, int parallel)
{
    const int32_t q = w->ndim - 1;
    if (w->ndim < 2 || w->stride[q][0] != (ptrdiff_t)dst_itemsize || w->shape[q] < 16)
        return 0;
    int32_t p = -1;
    ptrdiff_t best = w->stride[q][1] < 0 ? -w->stride[q][1] : w->stride[q][1];
    for (int32_t d = 0; d < q; d++) {
        ptrdiff_t s = w->stride[d][1] < 0 ? -w->stride[d][1] : w->stride[d][1];
        if (s < best && w->shape[d] >= 16)
            best = s, p = d;
    }
    if (p < 0)
        return 0;
    for (int32_t d = p; d < q - 1; d++) { /* move P next to Q, keeping the rest in order */
        int64_t t = w->shape[d];
        w->shape[d] = w->shape[d + 1];
        w->shape[d + 1] = t;
        for (int k = 0; k < w->nops; k++) {
            ptrdiff_t s = w->stride[d][k];
            w->stride[d][k] = w->stride[d + 1][k];
            w->stride[d + 1][k] = s;
        }
    }
    int64_t outer = 1, bytes;
    for (int32_t d = 0; d < q - 1; d++)
        outer *= w->shape[d];
    static const block_move moves[17] = {[1] = move_block_1, [2] = move_block_2, [4] = move_block_4,
                                         [8] = move_block_8, [16] = move_block_16};
    tile_job job = {w, kernel, (w->shape[q - 1] + BLOCK - 1) / BLOCK, (w->shape[q] + BLOCK - 1) / BLOCK,
                    RUN(dst_itemsize), same_dtype ? moves[dst_itemsize] : NULL};
    int64_t items = outer * job.nblocks_p * job.nblocks_q;
    int big = lt__mul_overflow(outer * w->shape[q - 1] * w->shape[q], bytes_per_element, &bytes) ||
              bytes >= LT__PARALLEL_MIN_BYTES;
    if (parallel && big)
        lt__parallel_for(items, 1, tile_range, &job);
    else
        tile_range(&job, 0, items);
    return 1;
}

/* ------------------------------------------------------------ copy */

/* The copy proper, once overlap is out of the way. */
static void copy_views(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                       const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape)
{
    lt__walk w;
    char *base[2] = {dst, (char *)(uintptr_t)src};
    const int64_t *strides[2] = {dst_strides, src_strides};
    size_t itemsize[2] = {lt_dtype_itemsize(dst_dtype), lt_dtype_itemsize(src_dtype)};
    lt__walk_init(&w, 2, base, strides, itemsize, ndim, shape);
    lt__kernel kernel = lt__cast_kernel(dst_dtype, src_dtype);
    int64_t bpe = (int64_t)(itemsize[0] + itemsize[1]);
    /* Repeated writes to one dst element must land in order: no threads. */
    int parallel = !lt__walk_has_zero_stride(&w, 0);
    if (!copy_transposed(&w, kernel, dst_dtype == src_dtype, itemsize[0], bpe, parallel))
        lt__walk_run(&w, kernel, bpe, parallel);
}

/* Partial overlap: read all of src into a dense temporary first, so every
 * element is copied from its value before the copy began. */
static lt_status copy_through_temporary(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                                        const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim,
                                        const int64_t *shape, int64_t numel)
{
    size_t itemsize = lt_dtype_itemsize(src_dtype), nbytes;
    if (__builtin_mul_overflow((size_t)numel, itemsize, &nbytes))
        return lt__fail(LT_EOVERFLOW, "a temporary of %" PRId64 " elements of %zu bytes overflows", numel, itemsize);
    void *tmp = malloc(nbytes);
    if (!tmp)
        return lt__fail(LT_ENOMEM, "cannot allocate a %zu-byte temporary for an overlapping copy", nbytes);
    int64_t dense[LT_MAX_NDIM];
    lt__dense_strides(dense, ndim, shape);
    copy_views(tmp, dense, src_dtype, src, src_strides, src_dtype, ndim, shape);
    copy_views(dst, dst_strides, dst_dtype, tmp, dense, src_dtype, ndim, shape);
    free(tmp);
    return LT_OK;
}

lt_status lt_copy(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                  const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape)
{
    int64_t numel = 0;
    lt_status rc;
    if ((rc = lt__check_dtype(dst_dtype, "dst_dtype")) != LT_OK ||
        (rc = lt__check_dtype(src_dtype, "src_dtype")) != LT_OK ||
        (rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK ||
        (rc = lt__check_operand("dst", dst, dst_strides, dst_dtype, ndim, shape, numel)) != LT_OK ||
        (rc = lt__check_operand("src", src, src_strides, src_dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    if (numel == 0)
        return LT_OK;
    if (lt__views_identical(dst, dst_strides, lt_dtype_itemsize(dst_dtype), src, src_strides,
                            lt_dtype_itemsize(src_dtype), ndim, shape)) {
        /* Each element is read before it is written, so converting in place
         * is safe; copying a view onto itself changes nothing. */
        if (dst_dtype != src_dtype)
            copy_views(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape);
        return LT_OK;
    }
    if (lt__views_overlap(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape))
        return copy_through_temporary(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape, numel);
    copy_views(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape);
    return LT_OK;
}

/* ------------------------------------------------------------ fill */

lt_status lt_fill(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *value,
                  lt_dtype value_dtype, int32_t ndim, const int64_t *shape)
{
    static const int64_t zeros[LT_MAX_NDIM]; /* every element reads the one value */
    int64_t numel = 0;
    lt_status rc;
    if ((rc = lt__check_dtype(dst_dtype, "dst_dtype")) != LT_OK ||
        (rc = lt__check_dtype(value_dtype, "value_dtype")) != LT_OK ||
        (rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK ||
        (rc = lt__check_operand("dst", dst, dst_strides, dst_dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    if (numel == 0)
        return LT_OK;
    if (!value)
        return lt__fail(LT_EINVAL, "fill value is NULL");
    /* Convert once into a local element, so the value may even live inside
     * the view being filled. */
    _Alignas(16) char one[16];
    char *ptr[2] = {one, (char *)(uintptr_t)value};
    const ptrdiff_t step[2] = {0, 0};
    lt__cast_kernel(dst_dtype, value_dtype)(ptr, step, 1);
    copy_views(dst, dst_strides, dst_dtype, one, zeros, dst_dtype, ndim, shape);
    return LT_OK;
}
