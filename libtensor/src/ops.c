/*
 * ops.c: elementwise arithmetic and comparison (lt_binary), equality of two
 * views with an early exit (lt_equal) and summation (lt_sum), generated per dtype from kernels.h's dtype table.
 *
 * Arithmetic follows PyTorch's CPU kernels, and matches torch 2.13 bit for
 * bit on dense inputs: integers wrap (computed in an unsigned type, so no
 * signed overflow occurs); bool ADD is or and MUL is and; float16 and
 * bfloat16 decode to float32, compute and round once; complex multiplication
 * is the textbook (ac - bd, ad + bc) of torch's vectorized loop (its strided
 * loop fuses multiply-adds and can differ in the last bit), and division is
 * Smith's scaled algorithm with fused multiply-adds, as torch's vectorized
 * loop computes it. One known difference: torch adds complex numbers as
 * a + 1*b, which turns an infinite part into NaN; we add plainly.
 */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>

#include "kernels.h"

/* ------------------------------------------------------------ complex */

#define COMPLEX_FNS(D, P, FMA, FABS)                                              \
    static inline LT__VT(D) cadd_##D(LT__VT(D) x, LT__VT(D) y)                    \
    {                                                                             \
        return (LT__VT(D)){x.re + y.re, x.im + y.im};                             \
    }                                                                             \
    static inline LT__VT(D) csub_##D(LT__VT(D) x, LT__VT(D) y)                    \
    {                                                                             \
        return (LT__VT(D)){x.re - y.re, x.im - y.im};                             \
    }                                                                             \
    static inline LT__VT(D) cmul_##D(LT__VT(D) x, LT__VT(D) y)                    \
    {                                                                             \
        return (LT__VT(D)){x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; \
    }                                                                             \
    /* Smith: divide through by the larger of |c| and |d| so that c^2 + d^2       \
     * is never formed and cannot overflow or underflow. */                       \
    static inline LT__VT(D) cdiv_##D(LT__VT(D) x, LT__VT(D) y)                    \
    {                                                                             \
        P a = x.re, b = x.im, c = y.re, d = y.im;                                 \
        if (c == 0 && d == 0) /* a complex inf or nan, as torch gives */          \
            return (LT__VT(D)){a / FABS(c), b / FABS(d)};                         \
        if (FABS(c) >= FABS(d)) {                                                 \
            P rat = d / c, scl = (P)1 / FMA(d, rat, c);                           \
            return (LT__VT(D)){FMA(b, rat, a) * scl, FMA(-a, rat, b) * scl};      \
        }                                                                         \
        P rat = c / d, scl = (P)1 / FMA(c, rat, d);                               \
        return (LT__VT(D)){FMA(a, rat, b) * scl, FMA(b, rat, -a) * scl};          \
    }
COMPLEX_FNS(COMPLEX64, float, fmaf, fabsf)
COMPLEX_FNS(COMPLEX128, double, fma, fabs)

/* ------------------------------------------------------------ the operations */

/* <KIND>_<OP>(D, x, y) on decoded values; integer arithmetic goes through
 * the table's wide unsigned type and back (WRAP). */
#define WRAP(D, x, op, y) ((LT__ST(D))((LT__WT(D))(x) op (LT__WT(D))(y)))
#define INT_ADD(D, x, y) WRAP(D, x, +, y)
#define INT_SUB(D, x, y) WRAP(D, x, -, y)
#define INT_MUL(D, x, y) WRAP(D, x, *, y)
#define BOOL_ADD(D, x, y) ((x) | (y))
#define BOOL_MUL(D, x, y) ((x) & (y))
#define FLT_ADD(D, x, y) ((x) + (y))
#define FLT_SUB(D, x, y) ((x) - (y))
#define FLT_MUL(D, x, y) ((x) * (y))
#define FLT_DIV(D, x, y) ((x) / (y))
#define CPLX_ADD(D, x, y) cadd_##D(x, y)
#define CPLX_SUB(D, x, y) csub_##D(x, y)
#define CPLX_MUL(D, x, y) cmul_##D(x, y)
#define CPLX_DIV(D, x, y) cdiv_##D(x, y)
#define CPLX_EQ(D, x, y) ((x).re == (y).re && (x).im == (y).im)
#define CPLX_NE(D, x, y) (!CPLX_EQ(D, x, y))
#define BOOL_EQ(D, x, y) ((x) == (y))
#define BOOL_NE(D, x, y) ((x) != (y))
#define BOOL_LT(D, x, y) ((x) < (y))
#define BOOL_LE(D, x, y) ((x) <= (y))
#define BOOL_GT(D, x, y) ((x) > (y))
#define BOOL_GE(D, x, y) ((x) >= (y))
#define INT_EQ BOOL_EQ
#define INT_NE BOOL_NE
#define INT_LT BOOL_LT
#define INT_LE BOOL_LE
#define INT_GT BOOL_GT
#define INT_GE BOOL_GE
#define FLT_EQ BOOL_EQ
#define FLT_NE BOOL_NE
#define FLT_LT BOOL_LT
#define FLT_LE BOOL_LE
#define FLT_GT BOOL_GT
#define FLT_GE BOOL_GE

/* Which operations each kind supports, and whether each writes the dtype
 * itself (ARITH) or bool (CMP). Missing entries are refused by lt_binary. */
#define CMPS(X, D) X(D, EQ, CMP) X(D, NE, CMP) X(D, LT, CMP) X(D, LE, CMP) X(D, GT, CMP) X(D, GE, CMP)
#define OPS_BOOL(X, D) X(D, ADD, ARITH) X(D, MUL, ARITH) CMPS(X, D)
#define OPS_INT(X, D) X(D, ADD, ARITH) X(D, SUB, ARITH) X(D, MUL, ARITH) CMPS(X, D)
#define OPS_FLT(X, D) X(D, ADD, ARITH) X(D, SUB, ARITH) X(D, MUL, ARITH) X(D, DIV, ARITH) CMPS(X, D)
#define OPS_CPLX(X, D) \
    X(D, ADD, ARITH) X(D, SUB, ARITH) X(D, MUL, ARITH) X(D, DIV, ARITH) X(D, EQ, CMP) X(D, NE, CMP)
#define EACH_OP(X, D) LT__CAT(OPS_, LT__AK(D))(X, D)

#define OUT_T_ARITH(D) LT__ST(D)
#define OUT_T_CMP(D) uint8_t
#define OUT_ARITH(D, v) LT__ENC(D)(v)
#define OUT_CMP(D, v) ((uint8_t)(v))

#define LOADV(D, p) LT__DEC(D)(LT__LOAD(LT__ST(D), p))
#define APPLY(D, OP, x, y) LT__CAT(LT__AK(D), _##OP)(D, x, y)
#define PUT(D, OP, RES, p, x, y) LT__STORE(OUT_T_##RES(D), p, OUT_##RES(D, APPLY(D, OP, x, y)))

/* The elementwise loops get an AVX-512 clone as well as kernels.h's AVX2
 * one, as the sums below do: at 10^5 float32 elements (in cache) -a and
 * a += b ran 1.1-1.2x torch's time with 256-bit vectors and 0.8x with
 * 512-bit ones. No clone contracts a multiply and an add (AVX-512F brings
 * no FMA of its own here), so every clone computes bit-identical results. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(LT_NO_CLONES)
#if __has_attribute(target_clones)
#define BIN_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef BIN_HOT
#define BIN_HOT LT__HOT
#endif

/* Five loops per function: all dense, a or b a broadcast scalar (loaded
 * once, so nothing stops vectorization), both broadcast (one value computed
 * and stored n times: the backward of a sum multiplies an expanded
 * one this way, and the strided loop took 8x as long), and the general
 * strided one. */
#define BIN_FN(D, OP, RES)                                                                     \
    BIN_HOT static void bin_##D##_##OP(char *const *ptr, const ptrdiff_t *s, int64_t n)        \
    {                                                                                          \
        char *o = ptr[0];                                                                      \
        const char *a = ptr[1], *b = ptr[2];                                                   \
        const ptrdiff_t osz = sizeof(OUT_T_##RES(D)), sz = sizeof(LT__ST(D));                  \
        if (s[0] == osz && s[1] == sz && s[2] == sz) {                                         \
            for (int64_t i = 0; i < n; i++)                                                    \
                PUT(D, OP, RES, o + i * osz, LOADV(D, a + i * sz), LOADV(D, b + i * sz));      \
        } else if (s[0] == osz && s[1] == sz && s[2] == 0) {                                   \
            const LT__VT(D) y = LOADV(D, b);                                                   \
            for (int64_t i = 0; i < n; i++)                                                    \
                PUT(D, OP, RES, o + i * osz, LOADV(D, a + i * sz), y);                         \
        } else if (s[0] == osz && s[1] == 0 && s[2] == sz) {                                   \
            const LT__VT(D) x = LOADV(D, a);                                                   \
            for (int64_t i = 0; i < n; i++)                                                    \
                PUT(D, OP, RES, o + i * osz, x, LOADV(D, b + i * sz));                         \
        } else if (s[0] == osz && s[1] == 0 && s[2] == 0 && n > 0) {                           \
            PUT(D, OP, RES, o, LOADV(D, a), LOADV(D, b));                                      \
            OUT_T_##RES(D) v;                                                                  \
            memcpy(&v, o, sizeof v);                                                           \
            for (int64_t i = 1; i < n; i++)                                                    \
                memcpy(o + i * osz, &v, sizeof v);                                             \
        } else {                                                                               \
            for (int64_t i = 0; i < n; i++)                                                    \
                PUT(D, OP, RES, o + i * s[0], LOADV(D, a + i * s[1]), LOADV(D, b + i * s[2])); \
        }                                                                                      \
    }
#define BIN_FNS(D) EACH_OP(BIN_FN, D)
LT__EACH_ARITH_DTYPE(BIN_FNS)

#define BIN_ENTRY(D, OP, RES) [LT_OP_##OP][LT_##D] = bin_##D##_##OP,
#define BIN_ENTRIES(D) EACH_OP(BIN_ENTRY, D)
static const lt__kernel bin_table[LT_OP_GE + 1][LT_DTYPE_COUNT] = {LT__EACH_ARITH_DTYPE(BIN_ENTRIES)};

/* ------------------------------------------------------------ lt_binary */

static const char *const op_names[] = {"ADD", "SUB", "MUL", "DIV", "EQ", "NE", "LT", "LE", "GT", "GE"};

static lt_status refuse_op(lt_binop op, lt_dtype dtype)
{
    const char *name = lt_dtype_name(dtype);
    if (op == LT_OP_DIV)
        return lt__fail(LT_EDTYPE, "true division (DIV) of %s is not supported; promote to a floating dtype first",
                        name);
    if (dtype >= LT_FLOAT8_E4M3FN)
        return lt__fail(LT_EDTYPE, "%s has no arithmetic or comparison (%s), as in torch; convert it to float32 first",
                        name, op_names[op]);
    if (op == LT_OP_SUB)
        return lt__fail(LT_EDTYPE, "subtraction (SUB) of bool is not supported; use NE (logical xor) instead");
    return lt__fail(LT_EDTYPE, "ordered comparison (%s) of %s is not supported: complex numbers have no order",
                    op_names[op], name);
}

/* 1 when out partially overlaps in: then out is computed into a temporary. */
static int clobbers(const void *out, const int64_t *out_strides, lt_dtype out_dtype, const void *in,
                    const int64_t *in_strides, lt_dtype dtype, int32_t ndim, const int64_t *shape)
{
    return !lt__views_identical(out, out_strides, lt_dtype_itemsize(out_dtype), in, in_strides,
                                lt_dtype_itemsize(dtype), ndim, shape) &&
           lt__views_overlap(out, out_strides, out_dtype, in, in_strides, dtype, ndim, shape);
}

static void binary_views(lt__kernel kernel, lt_dtype dtype, lt_dtype out_dtype, int32_t ndim, const int64_t *shape,
                         void *out, const int64_t *out_strides, const void *a, const int64_t *a_strides,
                         const void *b, const int64_t *b_strides)
{
    lt__walk w;
    char *base[3] = {out, (char *)(uintptr_t)a, (char *)(uintptr_t)b};
    const int64_t *strides[3] = {out_strides, a_strides, b_strides};
    size_t isz = lt_dtype_itemsize(dtype), itemsize[3] = {lt_dtype_itemsize(out_dtype), isz, isz};
    lt__walk_init(&w, 3, base, strides, itemsize, ndim, shape);
    lt__walk_run(&w, kernel, (int64_t)(itemsize[0] + 2 * isz), !lt__walk_has_zero_stride(&w, 0));
}

lt_status lt_binary(lt_binop op, lt_dtype dtype, int32_t ndim, const int64_t *shape, void *out,
                    const int64_t *out_strides, const void *a, const int64_t *a_strides, const void *b,
                    const int64_t *b_strides)
{
    int64_t numel = 0;
    lt_status rc;
    if ((unsigned)op > LT_OP_GE)
        return lt__fail(LT_EINVAL, "op is %d, which is not an lt_binop (valid values are 0 to %d)", (int)op,
                        (int)LT_OP_GE);
    if ((rc = lt__check_dtype(dtype, "dtype")) != LT_OK)
        return rc;
    lt__kernel kernel = bin_table[op][dtype];
    if (!kernel)
        return refuse_op(op, dtype);
    lt_dtype out_dtype = op >= LT_OP_EQ ? LT_BOOL : dtype;
    if ((rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK ||
        (rc = lt__check_operand("out", out, out_strides, out_dtype, ndim, shape, numel)) != LT_OK ||
        (rc = lt__check_operand("a", a, a_strides, dtype, ndim, shape, numel)) != LT_OK ||
        (rc = lt__check_operand("b", b, b_strides, dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    if (numel == 0)
        return LT_OK;
    if (!clobbers(out, out_strides, out_dtype, a, a_strides, dtype, ndim, shape) &&
        !clobbers(out, out_strides, out_dtype, b, b_strides, dtype, ndim, shape)) {
        binary_views(kernel, dtype, out_dtype, ndim, shape, out, out_strides, a, a_strides, b, b_strides);
        return LT_OK;
    }
    /* out partially overlaps an input: compute densely, then copy over. */
    size_t nbytes;
    if (__builtin_mul_overflow((size_t)numel, lt_dtype_itemsize(out_dtype), &nbytes))
        return lt__fail(LT_EOVERFLOW, "a temporary of %" PRId64 " elements overflows size_t", numel);
    int64_t dense[LT_MAX_NDIM];
    lt_status dense_rc = lt_layout_contiguous_strides(dense, ndim, shape);
    LT__ASSERT(dense_rc == LT_OK); /* no overflow: every stride is at most numel */
    void *tmp = malloc(nbytes);
    if (!tmp)
        return lt__fail(LT_ENOMEM, "cannot allocate a %zu-byte temporary for an overlapping output", nbytes);
    binary_views(kernel, dtype, out_dtype, ndim, shape, tmp, dense, a, a_strides, b, b_strides);
    rc = lt_copy(out, out_strides, out_dtype, tmp, dense, out_dtype, ndim, shape);
    free(tmp);
    return rc;
}

/* ------------------------------------------------------------ lt_equal */

/* Elements compared per kernel call: the EQ kernel writes this many flags
 * into a stack buffer, then one memchr looks for a difference, so an
 * unequal pair stops within one chunk of its first difference. */
#define EQUAL_CHUNK 4096

/* Drops extent-1 dims, puts byte strides in op-major order (a's, then b's at
 * LT_MAX_NDIM) and merges what chains. Returns the new ndim (at least 1). */
static int32_t equal_plan(int64_t *sh, ptrdiff_t *st, size_t isz, int32_t ndim, const int64_t *shape,
                          const int64_t *a_strides, const int64_t *b_strides)
{
    int32_t n = 0;
    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] == 1)
            continue;
        sh[n] = shape[d];
        st[n] = (ptrdiff_t)a_strides[d] * (ptrdiff_t)isz; /* bounded: lt__check_operand checked the extent */
        st[LT_MAX_NDIM + n] = (ptrdiff_t)b_strides[d] * (ptrdiff_t)isz;
        n++;
    }
    if (n == 0) {
        sh[0] = 1;
        st[0] = st[LT_MAX_NDIM] = 0;
        return 1;
    }
    lt__layout_sort_dims(n, sh, 2, st, LT_MAX_NDIM, 1);
    return lt__layout_merge_dims(n, sh, 2, st, LT_MAX_NDIM, 1);
}

lt_status lt_equal(int *out_equal, lt_dtype dtype, int32_t ndim, const int64_t *shape, const void *a,
                   const int64_t *a_strides, const void *b, const int64_t *b_strides)
{
    int64_t numel = 0;
    lt_status rc;
    if (!out_equal)
        return lt__fail(LT_EINVAL, "out_equal is NULL");
    if ((rc = lt__check_dtype(dtype, "dtype")) != LT_OK)
        return rc;
    lt__kernel kernel = bin_table[LT_OP_EQ][dtype];
    if (!kernel)
        return refuse_op(LT_OP_EQ, dtype);
    if ((rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK ||
        (rc = lt__check_operand("a", a, a_strides, dtype, ndim, shape, numel)) != LT_OK ||
        (rc = lt__check_operand("b", b, b_strides, dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    *out_equal = 1;
    if (numel == 0)
        return LT_OK;
    int64_t sh[LT_MAX_NDIM], idx[LT_MAX_NDIM] = {0};
    ptrdiff_t st[2 * LT_MAX_NDIM];
    int32_t n = equal_plan(sh, st, lt_dtype_itemsize(dtype), ndim, shape, a_strides, b_strides);
    const ptrdiff_t sa = st[n - 1], sb = st[LT_MAX_NDIM + n - 1];
    const int64_t inner = sh[n - 1];
    uint8_t flags[EQUAL_CHUNK];
    const char *pa = a, *pb = b;
    for (int64_t row = 0; row < numel / inner; row++) {
        for (int64_t i = 0; i < inner; i += EQUAL_CHUNK) {
            int64_t m = inner - i < EQUAL_CHUNK ? inner - i : EQUAL_CHUNK;
            char *ptr[3] = {(char *)flags, (char *)(uintptr_t)(pa + i * sa), (char *)(uintptr_t)(pb + i * sb)};
            const ptrdiff_t s[3] = {1, sa, sb};
            kernel(ptr, s, m);
            if (memchr(flags, 0, (size_t)m)) {
                *out_equal = 0;
                return LT_OK;
            }
        }
        /* the next row: an odometer over the outer dims, innermost first */
        for (int32_t d = n - 2; d >= 0; d--) {
            pa += st[d];
            pb += st[LT_MAX_NDIM + d];
            if (++idx[d] < sh[d])
                break;
            pa -= st[d] * sh[d];
            pb -= st[LT_MAX_NDIM + d] * sh[d];
            idx[d] = 0;
        }
    }
    return LT_OK;
}

/* ------------------------------------------------------------ summation */

/* Accumulators: bool and integers sum in uint64 (wrapping, and stored as
 * int64's bits), the 16-bit floats in float32, everything else in itself. */
#define ACC_T_BOOL(D) uint64_t
#define ACC_T_INT(D) uint64_t
#define ACC_T_FLT(D) LT__VT(D)
#define ACC_T_CPLX(D) LT__VT(D)
#define ACC_T(D) LT__CAT(ACC_T_, LT__AK(D))(D)
#define ACC_ADD_BOOL(D, x, y) ((x) + (y))
#define ACC_ADD_INT(D, x, y) ((x) + (y))
#define ACC_ADD_FLT(D, x, y) ((x) + (y))
#define ACC_ADD_CPLX(D, x, y) cadd_##D(x, y)
#define ACC_ADD(D, x, y) LT__CAT(ACC_ADD_, LT__AK(D))(D, x, y)
#define ACC_LOAD_BOOL(D, p) ((uint64_t)LOADV(D, p))
#define ACC_LOAD_INT(D, p) ((uint64_t)LOADV(D, p))
#define ACC_LOAD_FLT(D, p) LOADV(D, p)
#define ACC_LOAD_CPLX(D, p) LOADV(D, p)
#define ACC_LOAD(D, p) LT__CAT(ACC_LOAD_, LT__AK(D))(D, p)
#define ACC_PUT_BOOL(D, p, v) LT__STORE(uint64_t, p, v)
#define ACC_PUT_INT(D, p, v) LT__STORE(uint64_t, p, v)
/* A float sum is stored plus +0.0: torch's sums start from +0.0, so a sum of
 * -0.0 terms (or one -0.0 term) is +0.0 there, and adding +0.0 changes no
 * other value (a NaN keeps its payload). */
#define ACC_PUT_FLT(D, p, v) LT__STORE(LT__ST(D), p, LT__ENC(D)((v) + (ACC_T(D))0))
#define ACC_PUT_CPLX(D, p, v) LT__STORE(LT__ST(D), p, cadd_##D(v, (LT__VT(D)){0, 0}))
#define ACC_PUT(D, p, v) LT__CAT(ACC_PUT_, LT__AK(D))(D, p, v)
/* Bytes one ACC_PUT writes: int64 for bool and integers, the dtype's own otherwise. */
#define ACC_PUT_SIZE_BOOL(D) ((ptrdiff_t)sizeof(uint64_t))
#define ACC_PUT_SIZE_INT(D) ((ptrdiff_t)sizeof(uint64_t))
#define ACC_PUT_SIZE_FLT(D) ((ptrdiff_t)sizeof(LT__ST(D)))
#define ACC_PUT_SIZE_CPLX(D) ((ptrdiff_t)sizeof(LT__ST(D)))
#define ACC_PUT_SIZE(D) LT__CAT(ACC_PUT_SIZE_, LT__AK(D))(D)
#define SUM_DST_BOOL(D) LT_INT64
#define SUM_DST_INT(D) LT_INT64
#define SUM_DST_FLT(D) LT_##D
#define SUM_DST_CPLX(D) LT_##D
#define SUM_DST(D) LT__CAT(SUM_DST_, LT__AK(D))(D)

/* The summation loops get an AVX-512 clone as well as kernels.h's AVX2 one:
 * a sum does one add per element loaded, so on cores with 512-bit loads the
 * wider vectors are what keep up with memory (a float32 sum of 10^7 ran at
 * 49 GB/s with AVX2, 55 with AVX-512, on an AMD EPYC). The association
 * order is fixed by the C code (the LANES below), so every clone computes
 * bit-identical sums. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(LT_NO_CLONES)
#if __has_attribute(target_clones)
#define SUM_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef SUM_HOT
#define SUM_HOT LT__HOT
#endif

/* How far ahead of the loads a sum prefetches: the hardware prefetchers
 * stop at 4 KiB pages and ramp up again after each, and a sum has too
 * little work per byte to hide that; 16 KiB ahead took a float32 sum of
 * 10^7 from 1.1 ms to 0.65 ms. Prefetching past the end is harmless (a
 * prefetch never faults). */
#define SUM_PREFETCH_BYTES 16384

/* Pairwise summation, as NumPy does it: blocks of 32 * LANES elements are
 * summed in LANES interleaved partial sums (32 terms each), which the
 * compiler keeps in vector registers as several independent add chains,
 * and the block sums are combined pairwise. Rounding error grows as
 * O(log n), not O(n). n >= 1. LANES is 256 bytes of accumulators (64
 * float32 sums, 32 double or int64 ones): eight 256-bit chains, enough to
 * hide the adds' latency, so a sum runs at the speed its memory streams
 * in. Splits fall on whole blocks so that every block but the last runs
 * the full 32 rounds: shorter blocks spent as long folding their lanes as
 * adding. The fold is unrolled so the lanes stay in registers. A tail of
 * fewer than LANES elements adds one more term to the first lanes rather
 * than a chain of up to LANES - 1 additions after the fold, which took as
 * long as the rest of a 1000-element row.
 *
 * A real or integer row of 1 to 8 vectors' worth (16 to 127 float32
 * terms) is summed in one 64-byte vector of lanes instead, its last partial
 * vector padded with zeros (so a lane of -0.0 sums may end +0.0, as
 * torch's zero-started sums do), and folded pairwise in registers: with
 * LANES lanes its tail went one lane at a time through the stack and the
 * fold stalled on store forwarding, and 1000 x 100 sum(1) was 2.6x torch. */
#define PW_SHORT_VEC(D, STEP)                                                                 \
    {                                                                                         \
        typedef ACC_T(D) pwv_t __attribute__((vector_size(64)));                              \
        enum { V = 64 / sizeof(ACC_T(D)) };                                                   \
        if (n >= V && n < 2 * L) {                                                            \
            pwv_t r, x;                                                                       \
            for (int k = 0; k < V; k++)                                                       \
                r[k] = ACC_LOAD(D, p + k * (STEP));                                           \
            int64_t j = V;                                                                    \
            for (; j + V <= n; j += V) {                                                      \
                if (sizeof(ACC_T(D)) == sizeof(LT__ST(D)) && (STEP) == (ptrdiff_t)sizeof(LT__ST(D))) \
                    memcpy(&x, p + j * (STEP), 64); /* one vector load: the same bits */      \
                else                                                                          \
                    for (int k = 0; k < V; k++)                                               \
                        x[k] = ACC_LOAD(D, p + (j + k) * (STEP));                             \
                r += x;                                                                       \
            }                                                                                 \
            if (j < n) {                                                                      \
                for (int k = 0; k < V; k++)                                                   \
                    x[k] = j + k < n ? ACC_LOAD(D, p + (j + k) * (STEP)) : (ACC_T(D))0;       \
                r += x;                                                                       \
            }                                                                                 \
            /* the pairwise fold, lanes k and k + w, as halves of the vector */             \
            typedef ACC_T(D) pwh_t __attribute__((vector_size(32)));                          \
            typedef ACC_T(D) pwq_t __attribute__((vector_size(16)));                          \
            pwh_t h0, h1;                                                                     \
            pwq_t q0, q1;                                                                     \
            memcpy(&h0, &r, 32), memcpy(&h1, (char *)&r + 32, 32), h0 += h1;                  \
            memcpy(&q0, &h0, 16), memcpy(&q1, (char *)&h0 + 16, 16), q0 += q1;                \
            _Pragma("GCC unroll 4") for (int w = V / 8; w >= 1; w /= 2)                      \
                _Pragma("GCC unroll 4") for (int k = 0; k < w; k++) q0[k] += q0[k + w];      \
            return q0[0];                                                                     \
        }                                                                                     \
    }
#define PW_SHORT_BOOL(D, STEP) PW_SHORT_VEC(D, STEP)
#define PW_SHORT_INT(D, STEP) PW_SHORT_VEC(D, STEP)
#define PW_SHORT_FLT(D, STEP) PW_SHORT_VEC(D, STEP)
#define PW_SHORT_CPLX(D, STEP) /* complex rows keep the lanes below */
#define PW_SHORT(D, STEP) LT__CAT(PW_SHORT_, LT__AK(D))(D, STEP)
#define PW_FN(D, NAME, STEP, PF)                                                              \
    SUM_HOT static ACC_T(D) NAME##_##D(const char *p, ptrdiff_t s, int64_t n)               \
    {                                                                                       \
        enum { L = 256 / sizeof(ACC_T(D)), B = 32 * L };                         \
        (void)s;                                                                            \
        if (n > B) {                                                                        \
            int64_t h = (n / B + 1) / 2 * B; /* whole blocks, at least one on each side */  \
            return ACC_ADD(D, NAME##_##D(p, s, h), NAME##_##D(p + h * (STEP), s, n - h));   \
        }                                                                                   \
        ACC_T(D) t = ACC_LOAD(D, p);                                                        \
        int64_t i = 1;                                                                      \
        PW_SHORT(D, STEP) /* a short row: one 64-byte vector of sums, see above */         \
        if (n >= L) {                                                                       \
            ACC_T(D) r[L];                                                                  \
            for (int k = 0; k < L; k++)                                                     \
                r[k] = ACC_LOAD(D, p + k * (STEP));                                         \
            _Pragma("GCC unroll 1") /* a loop, not unrolled runs that spill r */           \
            for (i = L; i + L <= n; i += L) {                                               \
                for (ptrdiff_t c = 0; PF && c < L * (ptrdiff_t)sizeof(LT__ST(D)); c += 64)  \
                    __builtin_prefetch((const void *)((uintptr_t)p + (uintptr_t)(i * (STEP) + c + SUM_PREFETCH_BYTES))); \
                for (int k = 0; k < L; k++)                                                 \
                    r[k] = ACC_ADD(D, r[k], ACC_LOAD(D, p + (i + k) * (STEP)));             \
            }                                                                               \
            for (int k = 0; i < n; k++, i++) /* the tail: one more term in the first lanes */ \
                r[k] = ACC_ADD(D, r[k], ACC_LOAD(D, p + i * (STEP)));                       \
            _Pragma("GCC unroll 8") /* fold the lanes pairwise */                          \
            for (int w = L / 2; w >= 1; w /= 2)                                             \
                _Pragma("GCC unroll 32") for (int k = 0; k < w; k++) r[k] = ACC_ADD(D, r[k], r[k + w]); \
            t = r[0];                                                                       \
        }                                                                                   \
        for (; i < n; i++)                                                                  \
            t = ACC_ADD(D, t, ACC_LOAD(D, p + i * (STEP)));                                 \
        return t;                                                                           \
    }

/* The per-dtype pieces the generic reduction below is built from. Vectors
 * of accumulators (acc) are ACC_T(D) arrays. */
typedef struct sum_vt {
    lt_dtype dst;    /* the only accepted dst dtype */
    size_t acc_size; /* bytes per accumulator */
    void (*row)(void *acc, const char *p, ptrdiff_t s, int64_t n);   /* acc[0] = pairwise sum of n */
    /* acc[j] = q[0][j] + q[1][j] + ... + q[nq-1][j], added in that order */
    void (*rows)(void *acc, const char *const *q, int nq, ptrdiff_t s, int64_t n);
    void (*merge)(void *acc, const void *x, int64_t n);             /* acc[j] += x[j] */
    void (*put)(char *dst, ptrdiff_t ds, const void *acc, int64_t n); /* dst[j] = acc[j] */
    /* dst[j] = the one-term sum of p[j]: what row() then put() give for n == 1 */
    void (*one)(char *dst, ptrdiff_t ds, const char *p, ptrdiff_t s, int64_t n);
    /* dst[j * ds] = the pairwise sum of the m terms p + j * ps + i * s, j < n:
     * what row() then put() give per row, without two calls per row */
    void (*hrows)(char *dst, ptrdiff_t ds, const char *p, ptrdiff_t ps, ptrdiff_t s, int64_t m, int64_t n);
} sum_vt;

/* Eight terms at byte offset off of rows r0..r7, added in that order. */
#define CHAIN8(D, off, r0, r1, r2, r3, r4, r5, r6, r7)                                                  \
    ACC_ADD(D,                                                                                          \
            ACC_ADD(D,                                                                                  \
                    ACC_ADD(D,                                                                          \
                            ACC_ADD(D,                                                                  \
                                    ACC_ADD(D,                                                          \
                                            ACC_ADD(D, ACC_ADD(D, ACC_LOAD(D, r0 + (off)), ACC_LOAD(D, r1 + (off))), \
                                                    ACC_LOAD(D, r2 + (off))),                           \
                                            ACC_LOAD(D, r3 + (off))),                                   \
                                    ACC_LOAD(D, r4 + (off))),                                           \
                            ACC_LOAD(D, r5 + (off))),                                                   \
                    ACC_LOAD(D, r6 + (off))),                                                           \
            ACC_LOAD(D, r7 + (off)))

#define SUM_FNS(D)                                                                                \
    PW_FN(D, pw_dense, (ptrdiff_t)sizeof(LT__ST(D)), 1)                                            \
    PW_FN(D, pw_strided, s, 0)                                                                     \
    static void row_##D(void *acc, const char *p, ptrdiff_t s, int64_t n)                         \
    {                                                                                             \
        ACC_T(D) *a = acc;                                                                        \
        *a = s == (ptrdiff_t)sizeof(LT__ST(D)) ? pw_dense_##D(p, s, n) : pw_strided_##D(p, s, n); \
    }                                                                                             \
    /* Eight rows (VLEAF) in one pass over acc, not eight passes: one load   \
     * stream per row and one store stream, each sum kept in a register     \
     * while its eight terms are added. Sixteen rows are two such chains    \
     * added, in the same pass: the pair vreduce would form from two        \
     * eight-row leaves, without storing either (a merge pass per pair of   \
     * leaves was a fifth of a 100 x 1000 column sum). Other counts (a      \
     * remainder leaf) go row by row. */                                    \
    /* acc is scratch, never a source row: restrict spares the loops overlap checks */           \
    SUM_HOT static void rows_##D(void *restrict acc, const char *const *q, int nq, ptrdiff_t s, int64_t n) \
    {                                                                                             \
        ACC_T(D) *a = acc;                                                                        \
        const ptrdiff_t sz = sizeof(LT__ST(D));                                                   \
        if (nq == 8 || nq == 16) { /* the row pointers in locals, which the loops keep in registers */ \
            const char *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];                            \
            const char *q4 = q[4], *q5 = q[5], *q6 = q[6], *q7 = q[7];                            \
            if (nq == 8 && s == sz)                                                               \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = CHAIN8(D, j * sz, q0, q1, q2, q3, q4, q5, q6, q7);                     \
            if (nq == 8 && s != sz)                                                               \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = CHAIN8(D, j * s, q0, q1, q2, q3, q4, q5, q6, q7);                      \
            if (nq == 8)                                                                          \
                return;                                                                           \
            const char *q8 = q[8], *q9 = q[9], *q10 = q[10], *q11 = q[11];                        \
            const char *q12 = q[12], *q13 = q[13], *q14 = q[14], *q15 = q[15];                    \
            if (s == sz)                                                                          \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = ACC_ADD(D, CHAIN8(D, j * sz, q0, q1, q2, q3, q4, q5, q6, q7),          \
                                   CHAIN8(D, j * sz, q8, q9, q10, q11, q12, q13, q14, q15));      \
            else                                                                                  \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = ACC_ADD(D, CHAIN8(D, j * s, q0, q1, q2, q3, q4, q5, q6, q7),           \
                                   CHAIN8(D, j * s, q8, q9, q10, q11, q12, q13, q14, q15));       \
            return;                                                                               \
        }                                                                                         \
        if (s == sz) { /* dense rows: the constant stride lets the loops load whole vectors */  \
            for (int64_t j = 0; j < n; j++)                                                       \
                a[j] = ACC_LOAD(D, q[0] + j * sz);                                                \
            int m = 1;                                                                            \
            /* two rows a pass, written out: GCC fused the passes of the plain loop   \
             * in pairs itself and then ran them scalar (a twelfth of a column sum) */ \
            for (; m + 1 < nq; m += 2) {                                                          \
                const char *r = q[m], *r2 = q[m + 1];                                             \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = ACC_ADD(D, ACC_ADD(D, a[j], ACC_LOAD(D, r + j * sz)), ACC_LOAD(D, r2 + j * sz)); \
            }                                                                                     \
            if (m < nq) {                                                                         \
                const char *r = q[m];                                                             \
                for (int64_t j = 0; j < n; j++)                                                   \
                    a[j] = ACC_ADD(D, a[j], ACC_LOAD(D, r + j * sz));                             \
            }                                                                                     \
            return;                                                                               \
        }                                                                                         \
        for (int64_t j = 0; j < n; j++)                                                           \
            a[j] = ACC_LOAD(D, q[0] + j * s);                                                     \
        for (int m = 1; m < nq; m++)                                                              \
            for (int64_t j = 0; j < n; j++)                                                       \
                a[j] = ACC_ADD(D, a[j], ACC_LOAD(D, q[m] + j * s));                               \
    }                                                                                             \
    SUM_HOT static void merge_##D(void *acc, const void *x, int64_t n)                            \
    {                                                                                             \
        ACC_T(D) *a = acc;                                                                        \
        const ACC_T(D) *b = x;                                                                    \
        for (int64_t j = 0; j < n; j++)                                                           \
            a[j] = ACC_ADD(D, a[j], b[j]);                                                        \
    }                                                                                             \
    LT__HOT static void put_##D(char *dst, ptrdiff_t ds, const void *acc, int64_t n)              \
    {                                                                                             \
        const ACC_T(D) *a = acc;                                                                  \
        const ptrdiff_t sz = ACC_PUT_SIZE(D);                                                     \
        if (ds == sz)                                                                             \
            for (int64_t j = 0; j < n; j++)                                                       \
                ACC_PUT(D, dst + j * sz, a[j]);                                                   \
        else                                                                                      \
            for (int64_t j = 0; j < n; j++)                                                       \
                ACC_PUT(D, dst + j * ds, a[j]);                                                   \
    }                                                                                             \
    LT__HOT static void one_##D(char *dst, ptrdiff_t ds, const char *p, ptrdiff_t s, int64_t n)   \
    {                                                                                             \
        const ptrdiff_t sz = sizeof(LT__ST(D)), dsz = ACC_PUT_SIZE(D);                            \
        if (s == sz && ds == dsz) { /* constant strides: the loop vectorizes */                   \
            for (int64_t j = 0; j < n; j++)                                                       \
                ACC_PUT(D, dst + j * dsz, ACC_LOAD(D, p + j * sz));                               \
            return;                                                                               \
        }                                                                                         \
        for (int64_t j = 0; j < n; j++)                                                           \
            ACC_PUT(D, dst + j * ds, ACC_LOAD(D, p + j * s));                                     \
    }                                                                                             \
    SUM_HOT static void hrows_##D(char *dst, ptrdiff_t ds, const char *p, ptrdiff_t ps, ptrdiff_t s, \
                                  int64_t m, int64_t n)                                           \
    {                                                                                             \
        const int dense = s == (ptrdiff_t)sizeof(LT__ST(D));                                      \
        for (int64_t j = 0; j < n; j++)                                                           \
            ACC_PUT(D, dst + j * ds, dense ? pw_dense_##D(p + j * ps, s, m) : pw_strided_##D(p + j * ps, s, m)); \
    }
LT__EACH_ARITH_DTYPE(SUM_FNS)

#define SUM_ENTRY(D) \
    [LT_##D] = {SUM_DST(D), sizeof(ACC_T(D)), row_##D, rows_##D, merge_##D, put_##D, one_##D, hrows_##D},
static const sum_vt sum_table[LT_DTYPE_COUNT] = {LT__EACH_ARITH_DTYPE(SUM_ENTRY)};

/* Room for one accumulator of any dtype. */
typedef union acc_any {
    uint64_t u;
    double d;
    lt__c128 c;
} acc_any;

/* A reduction split into kept dimensions (dst stride != 0; nk of them, the
 * last the densest in src) and reduced ones (dst stride 0; nr >= 1 of them,
 * the last the densest in src). Strides in bytes. */
typedef struct sum_plan {
    const sum_vt *vt;
    char *dst;
    const char *src;
    int32_t nk, nr;
    int64_t kshape[LT_MAX_NDIM], rshape[LT_MAX_NDIM];
    union { /* one array, so the dimension order (internal.h) sees both operands */
        ptrdiff_t kstrides[2][LT_MAX_NDIM];
        struct {
            ptrdiff_t ksrc[LT_MAX_NDIM], kdst[LT_MAX_NDIM];
        };
    };
    ptrdiff_t rsrc[LT_MAX_NDIM];
    int64_t kcount, rrows, rtotal; /* kept elements, reduced rows, reduced elements */
} sum_plan;

static ptrdiff_t absd(ptrdiff_t x) { return x < 0 ? -x : x; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Start of part t when [0, n) is cut into `parts` near-equal parts; no
 * product n * t is formed, so it cannot overflow. */
static int64_t part_start(int64_t n, int64_t parts, int64_t t) { return t * (n / parts) + min64(t, n % parts); }

/* Orders n dims of nops operands, strides[k * LT_MAX_NDIM + d], by |stride|
 * descending (operand 0 first) and merges neighbours whose strides chain in
 * every operand: the kernels' dimension order (internal.h). */
static void sort_merge(int32_t *n, int64_t *shape, ptrdiff_t *strides, int nops)
{
    lt__layout_sort_dims(*n, shape, nops, strides, LT_MAX_NDIM, 1);
    *n = lt__layout_merge_dims(*n, shape, nops, strides, LT_MAX_NDIM, 1);
}

static void plan_init(sum_plan *pl, const sum_vt *vt, char *dst, const int64_t *dst_strides, size_t dsz,
                      const char *src, const int64_t *src_strides, size_t ssz, int32_t ndim, const int64_t *shape)
{
    *pl = (sum_plan){.vt = vt, .dst = dst, .src = src};
    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] == 1)
            continue;
        ptrdiff_t ss = (ptrdiff_t)(src_strides[d] * (int64_t)ssz); /* bytes = elements * itemsize */
        if (dst_strides[d] == 0) {
            pl->rshape[pl->nr] = shape[d], pl->rsrc[pl->nr] = ss;
            pl->nr++;
        } else {
            pl->kshape[pl->nk] = shape[d], pl->ksrc[pl->nk] = ss;
            pl->kdst[pl->nk] = (ptrdiff_t)(dst_strides[d] * (int64_t)dsz);
            pl->nk++;
        }
    }
    sort_merge(&pl->nr, pl->rshape, pl->rsrc, 1);
    sort_merge(&pl->nk, pl->kshape, &pl->kstrides[0][0], 2); /* src first, then dst */
    if (pl->nr == 0) { /* nothing reduced: every sum has one term */
        pl->nr = 1, pl->rshape[0] = 1, pl->rsrc[0] = 0;
    }
    pl->kcount = 1, pl->rrows = 1;
    for (int32_t d = 0; d < pl->nk; d++)
        pl->kcount *= pl->kshape[d];
    for (int32_t d = 0; d + 1 < pl->nr; d++)
        pl->rrows *= pl->rshape[d];
    pl->rtotal = pl->rrows * pl->rshape[pl->nr - 1];
}

/* Byte offset of linear index i over dims [0, n): row-major unravel. */
static ptrdiff_t unravel(int64_t i, int32_t n, const int64_t *shape, const ptrdiff_t *stride)
{
    ptrdiff_t off = 0;
    for (int32_t d = n - 1; d >= 0; d--) {
        off += (i % shape[d]) * stride[d];
        i /= shape[d];
    }
    return off;
}

/* Horizontal: each kept element's terms are reduced rows [lo, hi), each
 * row a pairwise sum, the rows themselves combined pairwise. */
static void reduce_rows(const sum_plan *pl, void *acc, const char *p, int64_t lo, int64_t hi)
{
    const int32_t in = pl->nr - 1;
    if (hi - lo == 1) {
        pl->vt->row(acc, p + unravel(lo, in, pl->rshape, pl->rsrc), pl->rsrc[in], pl->rshape[in]);
        return;
    }
    acc_any t;
    int64_t mid = lo + (hi - lo) / 2;
    reduce_rows(pl, acc, p, lo, mid);
    reduce_rows(pl, &t, p, mid, hi);
    pl->vt->merge(acc, &t, 1);
}

/* Kept elements [lo, hi) in row-major order. Their offsets come from an
 * odometer started at lo: two unravels per element (four 64-bit divisions)
 * were a third of the time of a sum over short rows. */
static void horizontal_range(void *ctx, int64_t lo, int64_t hi)
{
    const sum_plan *pl = ctx;
    if (pl->nr == 1 && pl->nk > 0) { /* one row per kept element: runs along the innermost kept dim */
        const int32_t kin = pl->nk - 1;
        const int64_t width = pl->kshape[kin];
        for (int64_t k = lo; k < hi;) {
            const int64_t row = k / width, j = k % width, n = min64(width - j, hi - k);
            pl->vt->hrows(pl->dst + unravel(row, kin, pl->kshape, pl->kdst) + j * pl->kdst[kin], pl->kdst[kin],
                          pl->src + unravel(row, kin, pl->kshape, pl->ksrc) + j * pl->ksrc[kin], pl->ksrc[kin],
                          pl->rsrc[0], pl->rshape[0], n);
            k += n;
        }
        return;
    }
    int64_t idx[LT_MAX_NDIM];
    ptrdiff_t so = 0, dof = 0;
    int64_t rest = lo;
    for (int32_t d = pl->nk - 1; d >= 0; d--) { /* unravel lo once */
        idx[d] = rest % pl->kshape[d], rest /= pl->kshape[d];
        so += idx[d] * pl->ksrc[d], dof += idx[d] * pl->kdst[d];
    }
    for (int64_t k = lo; k < hi; k++) {
        acc_any a;
        reduce_rows(pl, &a, pl->src + so, 0, pl->rrows);
        pl->vt->put(pl->dst + dof, 0, &a, 1);
        for (int32_t d = pl->nk - 1; d >= 0; d--) { /* the odometer's next step */
            so += pl->ksrc[d], dof += pl->kdst[d];
            if (++idx[d] < pl->kshape[d])
                break;
            so -= pl->ksrc[d] * pl->kshape[d], dof -= pl->kdst[d] * pl->kshape[d];
            idx[d] = 0;
        }
    }
}

/* Sums of one term each (x.sum(d) with x.shape[d] == 1), kept elements
 * [lo, hi) in row-major order: one conversion loop per run along the
 * innermost kept dim, where a call per element cost 5 ns (20x torch). */
static void one_term_range(void *ctx, int64_t lo, int64_t hi)
{
    const sum_plan *pl = ctx;
    const int32_t kin = pl->nk - 1;
    const int64_t width = pl->nk > 0 ? pl->kshape[kin] : 1;
    const ptrdiff_t ss = pl->nk > 0 ? pl->ksrc[kin] : 0, ds = pl->nk > 0 ? pl->kdst[kin] : 0;
    for (int64_t k = lo; k < hi;) {
        const int64_t row = k / width, j = k % width, n = min64(width - j, hi - k);
        const char *p = pl->src + unravel(row, kin < 0 ? 0 : kin, pl->kshape, pl->ksrc) + j * ss;
        pl->vt->one(pl->dst + unravel(row, kin < 0 ? 0 : kin, pl->kshape, pl->kdst) + j * ds, ds, p, ss, n);
        k += n;
    }
}

/* One full reduction (a single kept element) split into parts: whole rows
 * when there are enough, else segments of each row. Partial sums are added
 * in order afterwards, which keeps the sum pairwise-shaped. */
typedef struct split_job {
    const sum_plan *pl;
    int64_t nparts, row; /* row: the row being segmented, or -1 to split rows */
    acc_any part[8];
} split_job;

static void split_range(void *ctx, int64_t lo, int64_t hi)
{
    split_job *job = ctx;
    const sum_plan *pl = job->pl;
    const int32_t in = pl->nr - 1;
    for (int64_t t = lo; t < hi; t++) {
        if (job->row < 0) {
            reduce_rows(pl, &job->part[t], pl->src, part_start(pl->rrows, job->nparts, t),
                        part_start(pl->rrows, job->nparts, t + 1));
            continue;
        }
        int64_t n = pl->rshape[in], a = part_start(n, job->nparts, t), b = part_start(n, job->nparts, t + 1);
        const char *p = pl->src + unravel(job->row, in, pl->rshape, pl->rsrc) + a * pl->rsrc[in];
        pl->vt->row(&job->part[t], p, pl->rsrc[in], b - a);
    }
}

static void sum_split(const sum_plan *pl, int nthreads)
{
    /* Callers ensure rtotal >= 8 * nthreads, so with fewer rows than parts
     * every row is long enough to give each part a non-empty segment. */
    split_job job = {.pl = pl, .nparts = nthreads < 8 ? nthreads : 8, .row = -1};
    acc_any total, row_total;
    if (pl->rrows >= job.nparts) {
        lt__parallel_for(job.nparts, 1, split_range, &job);
        total = job.part[0];
        for (int64_t t = 1; t < job.nparts; t++)
            pl->vt->merge(&total, &job.part[t], 1);
    } else {
        for (job.row = 0; job.row < pl->rrows; job.row++) {
            lt__parallel_for(job.nparts, 1, split_range, &job);
            row_total = job.part[0];
            for (int64_t t = 1; t < job.nparts; t++)
                pl->vt->merge(&row_total, &job.part[t], 1);
            if (job.row == 0)
                total = row_total;
            else
                pl->vt->merge(&total, &row_total, 1);
        }
    }
    pl->vt->put(pl->dst, 0, &total, 1);
}

/* Vertical: when a kept dimension is denser in src than every reduced one
 * (sum over dim 0 of a row-major matrix), reduce whole vectors of up to
 * VTILE adjacent kept elements at once, streaming along src rows; the
 * reduced positions are combined pairwise, with one scratch vector per
 * recursion level. Long contiguous row runs matter most: 256-element tiles
 * ran at half the speed of whole 2500-element rows. When there are fewer
 * tiles than threads, the reduced positions are split instead, and the
 * per-part vectors are added in order at the end. */
/* The order, and so the error bound, of each column's sum is fixed by the
 * C code and independent of the vector width: the R terms go in leaves of
 * eight added in order, the leaves paired at whole-leaf midpoints
 * (vreduce). A term passes through at most 7 additions in its leaf and
 * ceil(log2(ceil(R / 8))) pairings, so with u the unit roundoff (2^-24 for
 * float32) |computed - exact| <= (7 + ceil(log2(ceil(R / 8)))) * u * sum|x_i|
 * to first order: 11u for a 100-row column, where a running sum gives 99u.
 * (A single tile split across T threads adds its T parts in order at the
 * end: T - 1 more.) */
#define VTILE 4096
#define VLEAF 8 /* reduced positions added in order, in one pass, before pairing */

typedef struct vertical_job {
    const sum_plan *pl;
    int64_t ntiles, nsplit, levels; /* items = outer kept positions x ntiles x nsplit */
    char *parts;                    /* nsplit result vectors when nsplit > 1 */
    atomic_int failed;
} vertical_job;

static void vreduce(const sum_plan *pl, char *acc, char *scratch, const char *p, int64_t lo, int64_t hi,
                    int64_t n)
{
    const ptrdiff_t ks = pl->ksrc[pl->nk - 1];
    if (hi - lo <= VLEAF || hi - lo == 2 * VLEAF) { /* rows() adds a pair of full leaves itself */
        const char *q[2 * VLEAF];
        for (int64_t r = lo; r < hi; r++) /* one reduced dim (the common case) needs no division */
            q[r - lo] = p + (pl->nr == 1 ? r * pl->rsrc[0] : unravel(r, pl->nr, pl->rshape, pl->rsrc));
        pl->vt->rows(acc, q, (int)(hi - lo), ks, n);
        return;
    }
    int64_t mid = lo + ((hi - lo) / VLEAF + 1) / 2 * VLEAF; /* whole leaves, as in PW_FN */
    vreduce(pl, acc, scratch, p, lo, mid, n);
    vreduce(pl, scratch, scratch + n * pl->vt->acc_size, p, mid, hi, n);
    pl->vt->merge(acc, scratch, n);
}

static void vertical_range(void *ctx, int64_t lo, int64_t hi)
{
    vertical_job *job = ctx;
    const sum_plan *pl = job->pl;
    const int32_t kin = pl->nk - 1;
    const size_t vec = (size_t)min64(VTILE, pl->kshape[kin]) * pl->vt->acc_size;
    char *buf = malloc((size_t)(job->levels + 1) * vec);
    if (!buf) {
        atomic_store(&job->failed, 1);
        return;
    }
    for (int64_t item = lo; item < hi; item++) {
        int64_t part = item % job->nsplit, tile = item / job->nsplit % job->ntiles;
        int64_t outer = item / job->nsplit / job->ntiles, j0 = tile * VTILE, n = min64(VTILE, pl->kshape[kin] - j0);
        int64_t r0 = part_start(pl->rtotal, job->nsplit, part), r1 = part_start(pl->rtotal, job->nsplit, part + 1);
        char *acc = job->nsplit > 1 ? job->parts + part * vec : buf;
        const char *p = pl->src + unravel(outer, kin, pl->kshape, pl->ksrc) + j0 * pl->ksrc[kin];
        vreduce(pl, acc, acc == buf ? buf + vec : buf, p, r0, r1, n);
        if (job->nsplit == 1)
            pl->vt->put(pl->dst + unravel(outer, kin, pl->kshape, pl->kdst) + j0 * pl->kdst[kin], pl->kdst[kin], buf,
                        n);
    }
    free(buf);
}

static lt_status sum_vertical(const sum_plan *pl, int parallel)
{
    const int32_t kin = pl->nk - 1;
    const int64_t width = pl->kshape[kin], outer = pl->kcount / width, nt = parallel ? lt_get_num_threads() : 1;
    vertical_job job = {.pl = pl, .ntiles = (width + VTILE - 1) / VTILE, .nsplit = 1};
    if (outer * job.ntiles == 1 && nt > 1 && pl->rtotal >= 16 * nt) { /* one tile: split its rows */
        job.nsplit = nt;
        if (!(job.parts = malloc((size_t)nt * (size_t)width * pl->vt->acc_size)))
            return lt__fail(LT_ENOMEM, "cannot allocate %" PRId64 " partial sums for a reduction", nt * width);
    }
    for (int64_t m = pl->rtotal / job.nsplit + 1; m > VLEAF; m = (m + 1) / 2) /* vreduce's recursion depth */
        job.levels++;
    int64_t items = outer * job.ntiles * job.nsplit;
    if (parallel)
        lt__parallel_for(items, 1, vertical_range, &job);
    else
        vertical_range(&job, 0, items);
    if (!atomic_load(&job.failed) && job.nsplit > 1) {
        for (int64_t t = 1; t < job.nsplit; t++)
            pl->vt->merge(job.parts, job.parts + t * width * pl->vt->acc_size, width);
        pl->vt->put(pl->dst, pl->kdst[kin], job.parts, width);
    }
    free(job.parts);
    if (atomic_load(&job.failed))
        return lt__fail(LT_ENOMEM, "cannot allocate %" PRId64 " scratch vectors for a reduction", job.levels + 1);
    return LT_OK;
}

static lt_status sum_views(const sum_vt *vt, void *dst, const int64_t *dst_strides, const void *src,
                           const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape)
{
    sum_plan pl;
    plan_init(&pl, vt, dst, dst_strides, lt_dtype_itemsize(vt->dst), src, src_strides, lt_dtype_itemsize(src_dtype),
              ndim, shape);
    int64_t bytes, nt = lt_get_num_threads();
    int big = lt__mul_overflow(pl.kcount * pl.rtotal, (int64_t)lt_dtype_itemsize(src_dtype), &bytes) ||
              bytes >= LT__PARALLEL_MIN_BYTES;
    int parallel = big && nt > 1;
    const int32_t rin = pl.nr - 1;
    if (pl.rtotal == 1) { /* nothing (or only extent 1) reduced: a conversion, not a reduction */
        if (parallel)
            lt__parallel_for(pl.kcount, 1, one_term_range, &pl);
        else
            one_term_range(&pl, 0, pl.kcount);
        return LT_OK;
    }
    if (pl.nk > 0 && pl.rtotal > 1 && absd(pl.ksrc[pl.nk - 1]) < absd(pl.rsrc[rin]))
        return sum_vertical(&pl, parallel);
    if (parallel && pl.kcount == 1 && pl.rtotal >= 8 * nt)
        sum_split(&pl, (int)nt);
    else if (parallel)
        lt__parallel_for(pl.kcount, 1, horizontal_range, &pl);
    else
        horizontal_range(&pl, 0, pl.kcount);
    return LT_OK;
}

lt_status lt_sum(void *dst, const int64_t *dst_strides, lt_dtype dst_dtype, const void *src,
                 const int64_t *src_strides, lt_dtype src_dtype, int32_t ndim, const int64_t *shape)
{
    int64_t numel = 0, kept_numel = 0, kept[LT_MAX_NDIM];
    lt_status rc;
    if ((rc = lt__check_dtype(dst_dtype, "dst_dtype")) != LT_OK ||
        (rc = lt__check_dtype(src_dtype, "src_dtype")) != LT_OK)
        return rc;
    const sum_vt *vt = &sum_table[src_dtype];
    if (!vt->row)
        return lt__fail(LT_EDTYPE, "a sum of %s is not supported, as in torch; convert it to float32 first",
                        lt_dtype_name(src_dtype));
    if (dst_dtype != vt->dst)
        return lt__fail(LT_EDTYPE, "a sum of %s accumulates in %s, so dst_dtype must be %s, not %s",
                        lt_dtype_name(src_dtype), lt_dtype_name(vt->dst), lt_dtype_name(vt->dst),
                        lt_dtype_name(dst_dtype));
    if ((rc = lt_layout_numel(&numel, ndim, shape)) != LT_OK ||
        (rc = lt__check_operand("dst", dst, dst_strides, dst_dtype, ndim, shape, numel)) != LT_OK ||
        (rc = lt__check_operand("src", src, src_strides, src_dtype, ndim, shape, numel)) != LT_OK)
        return rc;
    /* The dst view proper: reduced dimensions collapse to extent 1. */
    for (int32_t d = 0; d < ndim; d++)
        kept[d] = dst_strides[d] == 0 ? 1 : shape[d];
    if ((rc = lt_layout_numel(&kept_numel, ndim, kept)) != LT_OK)
        return rc;
    if (numel == 0) { /* empty sums are 0; an empty dst needs nothing */
        static const int64_t zero = 0;
        if (kept_numel > 0 && !dst)
            return lt__fail(LT_EINVAL, "dst data is NULL but the view has %" PRId64 " elements", kept_numel);
        return kept_numel ? lt_fill(dst, dst_strides, dst_dtype, &zero, LT_INT64, ndim, kept) : LT_OK;
    }
    if (!lt__views_overlap(dst, dst_strides, dst_dtype, src, src_strides, src_dtype, ndim, shape))
        return sum_views(vt, dst, dst_strides, src, src_strides, src_dtype, ndim, shape);
    /* dst overlaps src: sum into a dense temporary, then copy it over. */
    int64_t dense[LT_MAX_NDIM];
    lt_status dense_rc = lt_layout_contiguous_strides(dense, ndim, kept);
    LT__ASSERT(dense_rc == LT_OK); /* no overflow: every stride is at most numel */
    for (int32_t d = 0; d < ndim; d++) /* reduced dimensions keep stride 0 */
        dense[d] = dst_strides[d] == 0 ? 0 : dense[d];
    size_t nbytes;
    void *tmp = NULL;
    if (!__builtin_mul_overflow((size_t)kept_numel, lt_dtype_itemsize(dst_dtype), &nbytes))
        tmp = malloc(nbytes);
    if (!tmp)
        return lt__fail(LT_ENOMEM, "cannot allocate a temporary of %" PRId64 " sums", kept_numel);
    rc = sum_views(vt, tmp, dense, src, src_strides, src_dtype, ndim, shape);
    if (rc == LT_OK)
        rc = lt_copy(dst, dst_strides, dst_dtype, tmp, dense, dst_dtype, ndim, kept);
    free(tmp);
    return rc;
}
