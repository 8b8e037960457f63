/*
 * copy.c: lt_copy and lt_fill, plus the argument checks every kernel shares.
 *
 * A copy validates its views, removes any partial overlap with a temporary,
 * prepares a walk (threads.c) and runs the dtype pair's inner loop (cast.c)
 * over it. Transposing copies, where the two views are dense along different
 * dimensions, are walked in cache-oblivious tiles instead.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/*
 * A transposing copy reads src along P (src's densest dimension) and writes
 * dst along Q (dst's innermost, dense). Every element is touched once, so
 * the cost is cache misses: each src line and each dst line should come into
 * cache once and be used whole before it leaves.
 *
 * No block size is measured on one CPU. The P x Q plane is halved along its
 * longer side, recursively, until a block's footprint in both views,
 *   np * nq * (dst_itemsize + src_itemsize)  <=  leaf_bytes,
 * fits the L1 data cache that sysconf reports. Above that the recursion is
 * cache oblivious: whatever the sizes of L2, L3 and the TLB's reach, some
 * level of halving fits each, and a block never spans more pages than its
 * area needs. Inside a leaf:
 *   - same-dtype moves of 1, 2 or 4 bytes with src dense along P go by line
 *     blocks (line_block_N): 64 x 64 bytes, read through a small buffer and
 *     transposed in 16-byte registers with SSE2 unpacks;
 *   - everything else walks strips one cache line (sysconf) wide: for each
 *     of the leaf's rows, one line of dst is written from run src columns,
 *     whose lines the next rows reuse.
 *   leaf_bytes = max(L1d / 4, one line block) for line blocks, and
 *   leaf_bytes = 2 * L1d for strips (which keep one strip hot at a time).
 * The divisors were chosen by measurement across 256^2..8192^2, 64^3
 * permutes and 1..8-byte elements (L1d / 8 and / 2 were no better than / 4,
 * strips lose to the recursion's overhead below 2 * L1d); the formula, not
 * a constant, is what carries to another CPU. Thread pieces (plan_slabs) and
 * recursion splits fall on multiples of SPLIT_ALIGN, so only a view's own
 * ragged edge leaves whole line blocks.
 */

/* Recursion splits at multiples of this many elements, so leaves stay whole
 * line blocks (64 bytes is the line block side for bytes, a multiple of the
 * others). */
#define SPLIT_ALIGN 64

/* The side of a line block in bytes (see line_block_N). */
#define LINE_BLOCK_BYTES 64

typedef struct cache_geometry {
    int64_t line_bytes, l1_bytes;
} cache_geometry;

static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* sysconf reports 0 or -1 where the C library or the VM does not know; the
 * fallbacks are the line and L1d of every x86-64 and most arm64 cores. */
static cache_geometry cache_geometry_read(void)
{
    long line = 0, l1 = 0;
#if defined(_SC_LEVEL1_DCACHE_LINESIZE) && defined(_SC_LEVEL1_DCACHE_SIZE)
    line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
#endif
    cache_geometry g = {line > 0 ? line : 64, l1 > 0 ? l1 : 32 << 10};
    g.line_bytes = clamp64(g.line_bytes, 16, 256);
    g.l1_bytes = clamp64(g.l1_bytes, 8 << 10, 1 << 20);
    return g;
}

/* Read once; racing first callers compute and store the same values. */
static cache_geometry cache_geometry_get(void)
{
    static atomic_llong line_bytes, l1_bytes;
    cache_geometry g = {atomic_load_explicit(&line_bytes, memory_order_relaxed),
                        atomic_load_explicit(&l1_bytes, memory_order_relaxed)};
    if (g.line_bytes > 0 && g.l1_bytes > 0)
        return g;
    g = cache_geometry_read();
    atomic_store_explicit(&l1_bytes, g.l1_bytes, memory_order_relaxed);
    atomic_store_explicit(&line_bytes, g.line_bytes, memory_order_relaxed);
    return g;
}

/* A leaf: dst[i][j] = src[i][j] for i < np (P) and j < nq (Q). dst steps
 * dst_sp bytes along P and one element along Q; src steps src_sp and
 * src_sq. */
typedef void (*leaf_fn)(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp, ptrdiff_t src_sq,
                        int64_t np, int64_t nq, int64_t run);

/* Strips of run dst elements (one dst line) for every row, then the next
 * strip. Same-dtype moves inline the loops: a kernel call per run costs as
 * much as the run. */
#define STRIP_MOVE(N, T)                                                                                    \
    static void strip_move_##N(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp,              \
                               ptrdiff_t src_sq, int64_t np, int64_t nq, int64_t run)                       \
    {                                                                                                       \
        for (int64_t j0 = 0; j0 < nq; j0 += run)                                                            \
            for (int64_t i = 0, j1 = min64(j0 + run, nq); i < np; i++)                                      \
                for (int64_t j = j0; j < j1; j++)                                                           \
                    LT__STORE(T, dst + i * dst_sp + j * N, LT__LOAD(T, src + i * src_sp + j * src_sq));     \
    }
STRIP_MOVE(1, uint8_t)
STRIP_MOVE(2, uint16_t)
STRIP_MOVE(4, uint32_t)
STRIP_MOVE(8, uint64_t)
STRIP_MOVE(16, lt__c128)

#if defined(__SSE2__)
/* Transposes n = 16 / N rows of 16 bytes in registers. Each of log2(n)
 * rounds interleaves row k with row k + n/2 at twice the previous grain
 * (N bytes, then 2N, ... up to 8); after the last round row j holds column
 * j, provided the rows went in bit-reversed (r[rev(k)] = src row k). */
static inline int bit_reverse(int k, int n)
{
    int r = 0;
    for (int b = 1; b < n; b <<= 1)
        r = (r << 1) | ((k & b) != 0);
    return r;
}

static inline void transpose_registers(__m128i *r, int item_bytes)
{
    const int n = 16 / item_bytes;
    for (int grain = item_bytes; grain < 16; grain *= 2) {
        __m128i o[16];
        for (int k = 0; k < n / 2; k++) {
            __m128i a = r[k], b = r[k + n / 2];
            switch (grain) {
            case 1: o[2 * k] = _mm_unpacklo_epi8(a, b), o[2 * k + 1] = _mm_unpackhi_epi8(a, b); break;
            case 2: o[2 * k] = _mm_unpacklo_epi16(a, b), o[2 * k + 1] = _mm_unpackhi_epi16(a, b); break;
            case 4: o[2 * k] = _mm_unpacklo_epi32(a, b), o[2 * k + 1] = _mm_unpackhi_epi32(a, b); break;
            default: o[2 * k] = _mm_unpacklo_epi64(a, b), o[2 * k + 1] = _mm_unpackhi_epi64(a, b); break;
            }
        }
        for (int k = 0; k < n; k++)
            r[k] = o[k];
    }
}

/* n x n tiles straight from src to dst over the first np - np % n rows
 * and nq - nq % n columns (src dense along P: src_sp is N); the ragged
 * edges go through the strips. Serves the edges of line blocks. */
#define REGISTER_TILES(N)                                                                                   \
    static void register_tiles_##N(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp,          \
                                   ptrdiff_t src_sq, int64_t np, int64_t nq, int64_t run)                   \
    {                                                                                                       \
        enum { n = 16 / N };                                                                                \
        const int64_t np_tiled = np - np % n, nq_tiled = nq - nq % n;                                       \
        for (int64_t j = 0; j < nq_tiled; j += n)                                                           \
            for (int64_t i = 0; i < np_tiled; i += n) {                                                     \
                __m128i r[n];                                                                               \
                for (int k = 0; k < n; k++)                                                                 \
                    r[bit_reverse(k, n)] = _mm_loadu_si128((const __m128i *)(src + i * N + (j + k) * src_sq)); \
                transpose_registers(r, N);                                                                  \
                for (int k = 0; k < n; k++)                                                                 \
                    _mm_storeu_si128((__m128i *)(dst + (i + k) * dst_sp + j * N), r[k]);                    \
            }                                                                                               \
        if (np_tiled < np) /* the last rows, every column */                                                \
            strip_move_##N(dst + np_tiled * dst_sp, dst_sp, src + np_tiled * src_sp, src_sp, src_sq,        \
                           np - np_tiled, nq, run);                                                         \
        if (nq_tiled < nq) /* the last columns of the tiled rows */                                         \
            strip_move_##N(dst + nq_tiled * N, dst_sp, src + nq_tiled * src_sq, src_sp, src_sq, np_tiled,   \
                           nq - nq_tiled, run);                                                             \
    }

/* A line block is LINE_BLOCK_BYTES of P by as many bytes of Q: B = 64 / N
 * src lines in, B dst lines out. Its src lines are first copied whole into
 * a contiguous buffer, then n x n tiles go from the buffer to dst, n dst
 * rows at a time, so every src line is read once and every dst line is
 * written whole before the next. With power-of-two strides all B src lines
 * (and all B dst lines) share one L1 set; neither side then has more than n
 * lines in flight, which the smallest associativity (8) holds, where tiles
 * straight from src to dst revisit each line B / n times with B lines of
 * the same set in between (1024 x 1024 int16 and 64^3 permutes ran 1.5-2x
 * slower that way). */
#define REGISTER_MOVE(N)                                                                                    \
    REGISTER_TILES(N)                                                                                       \
    static void line_block_##N(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sq)             \
    {                                                                                                       \
        enum { n = 16 / N, B = LINE_BLOCK_BYTES / N };                                                      \
        _Alignas(16) char buffer[B][LINE_BLOCK_BYTES];                                                      \
        for (int j = 0; j < B; j++)                                                                         \
            memcpy(buffer[j], src + j * src_sq, LINE_BLOCK_BYTES);                                          \
        for (int i = 0; i < B; i += n)                                                                      \
            for (int j = 0; j < B; j += n) {                                                                \
                __m128i r[n];                                                                               \
                for (int k = 0; k < n; k++)                                                                 \
                    r[bit_reverse(k, n)] = _mm_load_si128((const __m128i *)(buffer[j + k] + i * N));        \
                transpose_registers(r, N);                                                                  \
                for (int k = 0; k < n; k++)                                                                 \
                    _mm_storeu_si128((__m128i *)(dst + (i + k) * dst_sp + j * N), r[k]);                    \
            }                                                                                               \
    }                                                                                                       \
    static void register_move_##N(char *dst, ptrdiff_t dst_sp, const char *src, ptrdiff_t src_sp,           \
                                  ptrdiff_t src_sq, int64_t np, int64_t nq, int64_t run)                    \
    {                                                                                                       \
        enum { B = LINE_BLOCK_BYTES / N };                                                                  \
        const int64_t np_blocked = np - np % B, nq_blocked = nq - nq % B;                                   \
        for (int64_t j = 0; j < nq_blocked; j += B)                                                         \
            for (int64_t i = 0; i < np_blocked; i += B)                                                     \
                line_block_##N(dst + i * dst_sp + j * N, dst_sp, src + i * N + j * src_sq, src_sq);         \
        if (np_blocked < np)                                                                                \
            register_tiles_##N(dst + np_blocked * dst_sp, dst_sp, src + np_blocked * src_sp, src_sp, src_sq, \
                               np - np_blocked, nq, run);                                                   \
        if (nq_blocked < nq)                                                                                \
            register_tiles_##N(dst + nq_blocked * N, dst_sp, src + nq_blocked * src_sq, src_sp, src_sq,     \
                               np_blocked, nq - nq_blocked, run);                                           \
    }
REGISTER_MOVE(1)
REGISTER_MOVE(2)
REGISTER_MOVE(4)
#endif

typedef struct tile_job {
    const lt__walk *w;        /* P = ndim-2, Q = ndim-1; the rest outer */
    lt__kernel kernel;        /* the conversion; NULL for same-dtype moves */
    leaf_fn move;             /* the transposing move of src's element size */
    int64_t src_itemsize;
    int64_t leaf_bytes;       /* the most a leaf may touch (see above) */
    int64_t bytes_per_element; /* dst_itemsize + src_itemsize */
    int64_t run;              /* elements per strip: one line of src's dtype */
    int32_t slab_dim;         /* P or Q: the dimension cut between threads */
    int64_t nslabs, slab;     /* pieces per outer index, and their extent */
} tile_job;

/* A converting leaf transposes src, unconverted, into a stack buffer laid
 * out as the dst block (so the move is the same one a same-dtype copy uses)
 * and converts that buffer row by row: one kernel call per leaf row over
 * contiguous elements, where converting in place of the transpose would
 * call the kernel once per cache line. leaf_bytes keeps the block within
 * the buffer: np * nq * src_itemsize < leaf_bytes <= CAST_BUFFER_BYTES. */
#define CAST_BUFFER_BYTES 16384

static void cast_leaf(const tile_job *job, char *dst, const char *src, int64_t np, int64_t nq)
{
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2, q = w->ndim - 1;
    _Alignas(64) char buffer[CAST_BUFFER_BYTES];
    const ptrdiff_t row_bytes = nq * job->src_itemsize, step[2] = {w->stride[q][0], job->src_itemsize};
    LT__ASSERT(np * row_bytes <= CAST_BUFFER_BYTES);
    job->move(buffer, row_bytes, src, w->stride[p][1], w->stride[q][1], np, nq, job->run);
    for (int64_t i = 0; i < np; i++) {
        char *ptr[2] = {dst + i * w->stride[p][0], buffer + i * row_bytes};
        job->kernel(ptr, step, nq);
    }
}

/* Halves the longer side (at a multiple of SPLIT_ALIGN where it has one)
 * until the block fits leaf_bytes, then runs the leaf. Depth is at most
 * log2(np * nq), so the stack stays small. */
static void tile_recurse(const tile_job *job, char *dst, const char *src, int64_t np, int64_t nq)
{
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2, q = w->ndim - 1;
    while (np * nq * job->bytes_per_element > job->leaf_bytes && (np > 1 || nq > 1)) {
        int along_p = np >= nq;
        int64_t n = along_p ? np : nq, half = n / 2 / SPLIT_ALIGN * SPLIT_ALIGN;
        if (half == 0)
            half = n / 2;
        int32_t d = along_p ? p : q;
        tile_recurse(job, dst, src, along_p ? half : np, along_p ? nq : half);
        dst += half * w->stride[d][0];
        src += half * w->stride[d][1];
        *(along_p ? &np : &nq) -= half;
    }
    if (job->kernel)
        cast_leaf(job, dst, src, np, nq);
    else
        job->move(dst, w->stride[p][0], src, w->stride[p][1], w->stride[q][1], np, nq, job->run);
}

/* Items are (outer index, slab): the outer index unravels over dimensions
 * 0..P-1, and the slab is a piece of slab_dim for the threads to share. */
static void tile_range(void *ctx, int64_t lo, int64_t hi)
{
    const tile_job *job = ctx;
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2;
    for (int64_t item = lo; item < hi; item++) {
        int64_t outer = item / job->nslabs, first = item % job->nslabs * job->slab;
        int64_t extent = min64(job->slab, w->shape[job->slab_dim] - first);
        char *base[2];
        for (int k = 0; k < 2; k++)
            base[k] = w->base[k] + first * w->stride[job->slab_dim][k];
        for (int32_t d = p - 1; d >= 0; d--) { /* unravel the outer index */
            for (int k = 0; k < 2; k++)
                base[k] += (outer % w->shape[d]) * w->stride[d][k];
            outer /= w->shape[d];
        }
        int64_t np = job->slab_dim == p ? extent : w->shape[p], nq = job->slab_dim == p ? w->shape[p + 1] : extent;
        tile_recurse(job, base[0], base[1], np, nq);
    }
}

/* The same-dtype leaf for these strides: register tiles where src is dense
 * along P and the element is 1, 2 or 4 bytes, strips otherwise. */
static leaf_fn pick_move(const lt__walk *w, size_t itemsize)
{
    static const leaf_fn strips[17] = {[1] = strip_move_1, [2] = strip_move_2, [4] = strip_move_4,
                                       [8] = strip_move_8, [16] = strip_move_16};
#if defined(__SSE2__)
    static const leaf_fn registers[5] = {[1] = register_move_1, [2] = register_move_2, [4] = register_move_4};
    if (itemsize <= 4 && w->stride[w->ndim - 2][1] == (ptrdiff_t)itemsize)
        return registers[itemsize];
#endif
    return strips[itemsize];
}

/* Chooses the leaf and its budget (see the comment at the top of this
 * section) from the cache geometry the machine reports. */
static void plan_leaves(tile_job *job, const lt__walk *w, lt__kernel kernel, int64_t dst_itemsize,
                        int64_t bytes_per_element)
{
    cache_geometry geom = cache_geometry_get();
    int64_t src_itemsize = bytes_per_element - dst_itemsize;
    *job = (tile_job){.w = w, .kernel = kernel, .move = pick_move(w, (size_t)src_itemsize),
                      .src_itemsize = src_itemsize, .bytes_per_element = bytes_per_element,
                      .run = clamp64(geom.line_bytes / src_itemsize, 1, 64)};
    int registers = 0;
#if defined(__SSE2__)
    registers = job->move == register_move_1 || job->move == register_move_2 || job->move == register_move_4;
#endif
    int64_t block = LINE_BLOCK_BYTES / src_itemsize; /* a leaf holds at least one line block */
    job->leaf_bytes = registers ? max64(geom.l1_bytes / 4, block * block * bytes_per_element)
                                : geom.l1_bytes * 2;
    if (kernel)
        job->leaf_bytes = min64(job->leaf_bytes, CAST_BUFFER_BYTES);
}

/* Splits the job between threads along the longer of P and Q when there
 * are fewer outer indices than threads; otherwise outer indices are the
 * pieces. Slabs are SPLIT_ALIGN multiples so leaves stay whole tiles. */
static void plan_slabs(tile_job *job, int64_t outer, int threads)
{
    const lt__walk *w = job->w;
    const int32_t p = w->ndim - 2, q = w->ndim - 1;
    job->slab_dim = w->shape[p] >= w->shape[q] ? p : q;
    int64_t n = w->shape[job->slab_dim];
    job->nslabs = outer >= threads ? 1 : threads;
    int64_t slab = (n + job->nslabs - 1) / job->nslabs;
    job->slab = clamp64((slab + SPLIT_ALIGN - 1) / SPLIT_ALIGN * SPLIT_ALIGN, 1, n);
    job->nslabs = (n + job->slab - 1) / job->slab;
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
        /* a zero stride (a broadcast source) is no dense dimension: a row
         * repeated down the rows is a run of contiguous copies, not a transpose */
        if (s != 0 && s < best && w->shape[d] >= 16)
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
    tile_job job;
    plan_leaves(&job, w, same_dtype ? NULL : kernel, (int64_t)dst_itemsize, bytes_per_element);
    int big = lt__mul_overflow(outer * w->shape[q - 1] * w->shape[q], bytes_per_element, &bytes) ||
              bytes >= LT__PARALLEL_MIN_BYTES;
    int threads = parallel && big ? lt_get_num_threads() : 1;
    plan_slabs(&job, outer, threads);
    if (threads > 1)
        lt__parallel_for(outer * job.nslabs, 1, tile_range, &job);
    else
        tile_range(&job, 0, outer * job.nslabs);
    return 1;
}

/* ------------------------------------------------------------ copy */

/* A row broadcast into dense rows (same dtype; after the walk's merging: two
 * dims, the inner one dense in both, src's outer stride 0 and dst's outer
 * stride one row): copy the row once, then copy the rows already written,
 * doubling the block while it is under BROADCAST_BLOCK_BYTES and then
 * repeating that block, so the source of every copy is the start of dst,
 * hot in cache, and a large dst is read back no more than a row source is.
 * One memcpy per block instead of one per row. float32 on the EPYC this was
 * measured on, before -> after (torch): 100x1000 4.1 -> 3.1 us (3.2),
 * 1000x100 8.1 -> 3.1 (4.4), 10000x10 39 -> 3.2 (20), 10x10000 3.1 -> 3.2
 * (3.9); a 32 KB block (L1) beat 8, 16, 64 and 256 KB at 10^5 elements.
 * Returns 0 when w is not such a copy. */
#define BROADCAST_BLOCK_BYTES ((int64_t)32 << 10)
static int copy_broadcast_rows(const lt__walk *w, size_t itemsize)
{
    if (w->ndim != 2 || w->stride[1][0] != (ptrdiff_t)itemsize || w->stride[1][1] != (ptrdiff_t)itemsize ||
        w->stride[0][1] != 0 || w->stride[0][0] != (ptrdiff_t)(w->shape[1] * (int64_t)itemsize))
        return 0;
    char *dst = w->base[0];
    int64_t rows = w->shape[0], row_bytes = w->shape[1] * (int64_t)itemsize, done = 1, block = 1;
    memcpy(dst, w->base[1], (size_t)row_bytes);
    while (done < rows) {
        int64_t k = min64(block, rows - done);
        memcpy(dst + done * row_bytes, dst, (size_t)(k * row_bytes));
        done += k;
        if ((block * 2) * row_bytes <= BROADCAST_BLOCK_BYTES && block * 2 <= done)
            block *= 2;
    }
    return 1;
}

/* A src of one element (every stride 0, e.g. a (n, 1) dst from one value)
 * is a fill: the fill kernels store a register in unrolled blocks where the
 * move kernel reloaded the value per element ((100000, 1) float32: 3.6 us,
 * torch 2.3 us). Returns 0 when src has a non-zero stride. */
static lt__kernel fill_kernel(size_t itemsize);
static int copy_one_value(const lt__walk *w, size_t itemsize, int64_t bytes_per_element)
{
    for (int32_t d = 0; d < w->ndim; d++)
        if (w->stride[d][1] != 0)
            return 0;
    lt__walk_run(w, fill_kernel(itemsize), bytes_per_element, !lt__walk_has_zero_stride(w, 0));
    return 1;
}

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
    if (dst_dtype == src_dtype && copy_broadcast_rows(&w, itemsize[0]))
        return;
    if (dst_dtype == src_dtype && copy_one_value(&w, itemsize[0], (int64_t)(itemsize[0] + itemsize[1])))
        return;
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
    lt_status dense_rc = lt_layout_contiguous_strides(dense, ndim, shape);
    LT__ASSERT(dense_rc == LT_OK); /* no overflow: every stride is at most numel */
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
        (rc = lt__check_cast(dst_dtype, src_dtype)) != LT_OK ||
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

/* The inner loops of a fill: ptr[0] walks the destination, ptr[1] is the one
 * converted value (stride 0). A dense row is stored in blocks of 32 elements
 * so that the compiler unrolls the vector stores: the plain loop issues one
 * 32-byte store per iteration and ran at half the store rate of the unrolled
 * one (400 KB of float32: 3.1 us against 1.6 us on the EPYC this was measured
 * on; torch's vectorised fill takes 2.4 us there). */
#define FILL_FN(N, T)                                                                  \
    LT__HOT static void fill_##N(char *const *ptr, const ptrdiff_t *stride, int64_t n) \
    {                                                                                  \
        char *dst = ptr[0];                                                            \
        const T v = LT__LOAD(T, ptr[1]);                                               \
        int64_t i = 0;                                                                 \
        if (stride[0] == N) {                                                          \
            for (; i + 32 <= n; i += 32) {                                             \
                _Pragma("GCC unroll 32") for (int k = 0; k < 32; k++)                  \
                    LT__STORE(T, dst + (i + k) * N, v);                                \
            }                                                                          \
            for (; i < n; i++)                                                         \
                LT__STORE(T, dst + i * N, v);                                          \
        } else {                                                                       \
            for (; i < n; i++)                                                         \
                LT__STORE(T, dst + i * stride[0], v);                                  \
        }                                                                              \
    }
FILL_FN(1, uint8_t)
FILL_FN(2, uint16_t)
FILL_FN(4, uint32_t)
FILL_FN(8, uint64_t)
FILL_FN(16, lt__c128)

static lt__kernel fill_kernel(size_t itemsize)
{
    switch (itemsize) {
    case 1: return fill_1;
    case 2: return fill_2;
    case 4: return fill_4;
    case 8: return fill_8;
    default: LT__ASSERT(itemsize == 16); return fill_16;
    }
}

lt_status lt_fill(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *value,
                  lt_dtype value_dtype, int32_t ndim, const int64_t *shape)
{
    static const int64_t zeros[LT_MAX_NDIM]; /* every element reads the one value */
    int64_t numel = 0;
    lt_status rc;
    if ((rc = lt__check_dtype(dst_dtype, "dst_dtype")) != LT_OK ||
        (rc = lt__check_dtype(value_dtype, "value_dtype")) != LT_OK ||
        (rc = lt__check_cast(dst_dtype, value_dtype)) != LT_OK ||
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
    lt__walk w;
    char *base[2] = {dst, one};
    const int64_t *strides[2] = {dst_strides, zeros};
    size_t itemsize = lt_dtype_itemsize(dst_dtype), itemsizes[2] = {itemsize, itemsize};
    lt__walk_init(&w, 2, base, strides, itemsizes, ndim, shape);
    /* an expanded destination is written many times per element: one thread, so the order is fixed */
    lt__walk_run(&w, fill_kernel(itemsize), (int64_t)(2 * itemsize), !lt__walk_has_zero_stride(&w, 0));
    return LT_OK;
}
