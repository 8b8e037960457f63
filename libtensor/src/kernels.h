/*
 * kernels.h: what copy.c, cast.c, ops.c and threads.c share. Not installed,
 * not part of the contract; names carry the lt__ prefix.
 *
 * Kernels walk memory with BYTE strides internally (the public API speaks in
 * elements): a byte stride is  stride_elements * itemsize,  and every such
 * product has been checked for overflow by lt__check_operand before any
 * kernel runs.
 */
#ifndef LIBTENSOR_KERNELS_H
#define LIBTENSOR_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* The most operands one walk carries: out, a, b. */
#define LT__MAX_OPS 3

/* A 1-D inner loop over n elements: operand k starts at ptr[k] and steps
 * stride[k] bytes. Operand 0 is always the one written. */
typedef void (*lt__kernel)(char *const *ptr, const ptrdiff_t *stride, int64_t n);

/* Generated hot loops get an AVX2 clone beside the baseline x86-64 one,
 * chosen once at load time (GNU ifunc); the half-float codecs and integer
 * loops run up to twice as fast with 256-bit vectors. The clone has no FMA,
 * so both compute bit-identical results. Define LT_NO_CLONES to opt out. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(LT_NO_CLONES)
#if __has_attribute(target_clones)
#define LT__HOT __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LT__HOT
#define LT__HOT
#endif

/* ------------------------------------------------------------ validation */

static inline int lt__dtype_valid(lt_dtype dtype) { return (unsigned)dtype < LT_DTYPE_COUNT; }

/* LT_EDTYPE naming the argument ("dst_dtype") when dtype is outside the enum. */
lt_status lt__check_dtype(lt_dtype dtype, const char *what);

/* Checks one view argument of a kernel: ptr may be NULL only when numel is
 * 0, strides may be NULL only when ndim is 0, and the view's byte extent must
 * fit in int64 (so later pointer arithmetic cannot overflow). */
lt_status lt__check_operand(const char *what, const void *ptr, const int64_t *strides, lt_dtype dtype,
                            int32_t ndim, const int64_t *shape, int64_t numel);

/* 1 when the byte ranges the two views touch intersect. */
int lt__views_overlap(const void *a, const int64_t *a_strides, lt_dtype a_dtype, const void *b,
                      const int64_t *b_strides, lt_dtype b_dtype, int32_t ndim, const int64_t *shape);

/* 1 when a and b are the same elements in the same order: equal pointers,
 * equal itemsizes and equal strides on every dimension of extent > 1. An
 * elementwise kernel may then read and write in place. */
int lt__views_identical(const void *a, const int64_t *a_strides, size_t a_itemsize, const void *b,
                        const int64_t *b_strides, size_t b_itemsize, int32_t ndim, const int64_t *shape);

/* ------------------------------------------------------------ casts (cast.c) */

/* The inner loop converting src (ptr[1]) of src dtype into dst (ptr[0]).
 * Same-dtype pairs move bytes unchanged. Both dtypes must be valid and the
 * pair convertible (lt__check_cast). */
lt__kernel lt__cast_kernel(lt_dtype dst, lt_dtype src);

/* LT_OK when src converts to dst: every pair but float4_e2m1fn_x2 with
 * another dtype (a storage-only dtype). Both dtypes must be valid. */
lt_status lt__check_cast(lt_dtype dst, lt_dtype src);

/* --------------------------------------------------- threads and walks (threads.c) */

/* Jobs that move fewer bytes (source plus destination) than this run on the
 * calling thread. Measured here (2 vCPUs, 32 MiB L3): a second thread makes
 * copies of 1-4 MiB 1.5-2x slower (the thread start and a shared cache cost
 * more than the work), breaks even at 8-16 MiB and halves a 32 MiB copy. */
#define LT__PARALLEL_MIN_BYTES ((int64_t)16 << 20)

/* Calls fn(ctx, lo, hi) over disjoint ranges covering [0, n), on up to
 * lt_get_num_threads() threads (the caller runs the first range), each range
 * at least min_chunk long. Returns when every range is done. When a thread
 * cannot be started its range runs on the caller, so this never fails. */
typedef void (*lt__range_fn)(void *ctx, int64_t lo, int64_t hi);
void lt__parallel_for(int64_t n, int64_t min_chunk, lt__range_fn fn, void *ctx);

/* An n-d elementwise walk over nops operands, prepared for fast iteration:
 * extent-1 dimensions dropped, dimensions ordered by operand 0's stride
 * (largest outermost), operand 0's negative strides flipped, and adjacent
 * dimensions merged wherever every operand's strides chain
 * (stride[d-1] == stride[d] * shape[d]). Dimension ndim-1 is innermost; ndim
 * is at least 1 (a scalar walks one element). */
typedef struct lt__walk {
    int nops;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM];
    ptrdiff_t stride[LT_MAX_NDIM][LT__MAX_OPS]; /* bytes: stride_elements * itemsize */
    char *base[LT__MAX_OPS];
} lt__walk;

/* Fills w from element strides. Reordering and flipping are safe because
 * callers only use walks where elements are independent (no partial overlap,
 * which lt_copy removes with a temporary first). numel must be > 0. */
void lt__walk_init(lt__walk *w, int nops, char *const base[], const int64_t *const strides[],
                   const size_t itemsize[], int32_t ndim, const int64_t *shape);

/* Runs kernel over every element of w, splitting across threads when the
 * job moves at least LT__PARALLEL_MIN_BYTES (bytes_per_element is the sum of
 * the operands' itemsizes) and parallel is non-zero. */
void lt__walk_run(const lt__walk *w, lt__kernel kernel, int64_t bytes_per_element, int parallel);

/* Runs kernel over rows [row_lo, row_hi) of w (a row is one pass over the
 * innermost dimension), restricted to inner elements [in_lo, in_hi). */
void lt__walk_rows(const lt__walk *w, lt__kernel kernel, int64_t row_lo, int64_t row_hi, int64_t in_lo,
                   int64_t in_hi);

/* 1 when operand k revisits an element (a zero stride on a dimension of
 * extent > 1). Kernels then stay on one thread when k is written, so the
 * last write wins deterministically. */
int lt__walk_has_zero_stride(const lt__walk *w, int k);

/* Product of every extent but the innermost. */
int64_t lt__walk_nrows(const lt__walk *w);

/* ------------------------------------------------------------ element codecs */

/* Unaligned loads and stores: views of borrowed buffers (numpy, bytes at odd
 * offsets) need not be aligned, and memcpy is how C says "unaligned" without
 * undefined behaviour. Compilers turn these into plain moves. */
#define LT__LOAD(T, p) (__extension__({ T l_; memcpy(&l_, (p), sizeof l_); l_; }))
#define LT__STORE(T, p, ...)         \
    do {                             \
        T v_ = (__VA_ARGS__);        \
        memcpy((p), &v_, sizeof v_); \
    } while (0)

static inline uint32_t lt__f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float lt__f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* All ones when c holds, else zero. The half codecs below select between
 * candidate results with these masks rather than ?: so that every float
 * operation runs unconditionally: GCC will not vectorize a loop that would
 * have to speculate a float operation it moved into a branch (it could
 * raise a floating-point exception), and these loops must vectorize. */
static inline uint32_t lt__mask(int c) { return 0u - (uint32_t)c; }

/* float16 -> float32 is exact. Subnormal halves are m * 2^-24, which the
 * float multiply below computes exactly; everything else re-biases the
 * exponent (112 = 127 - 15). NaNs keep their payload and come out quiet,
 * as c10's scalar conversion gives. */
static inline float lt__f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    uint32_t normal = (em << 13) + (112u << 23);
    uint32_t special = 0x7f800000u | ((em & 0x3ffu) << 13) | (uint32_t)(em > 0x7c00u) << 22;
    uint32_t sub = lt__f32_bits((float)em * 0x1p-24f);
    uint32_t is_special = lt__mask(em >= 0x7c00u), is_sub = lt__mask(em < 0x0400u);
    uint32_t bits = (special & is_special) | (sub & is_sub) | (normal & ~(is_special | is_sub));
    return lt__f32_from_bits(sign | bits);
}

/* float32 -> float16, round to nearest even.
 *   normal results: drop 13 mantissa bits, adding 0xfff plus the lowest kept
 *     bit so that ties go to even; a carry rolls into the exponent, and
 *     anything from 65520 up becomes inf;
 *   subnormal results (|f| < 2^-14): |f| + 0.5 rounds f to a multiple of
 *     2^-24 in the FPU's own round-to-nearest-even, and the low bits of the
 *     sum are the half's mantissa (0x400 when it rounds up to 2^-14);
 *   NaN stays NaN with its top payload bits and the quiet bit set (what
 *     PyTorch and F16C's vcvtps2ph produce). */
static inline uint16_t lt__f32_to_f16(float f)
{
    uint32_t x = lt__f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    uint32_t normal = (ax - (112u << 23) + 0xfffu + ((ax >> 13) & 1u)) >> 13;
    uint32_t sub = lt__f32_bits(lt__f32_from_bits(ax) + 0.5f) - 0x3f000000u;
    uint32_t nan = 0x7e00u | ((ax >> 13) & 0x3ffu);
    uint32_t is_nan = lt__mask(ax > 0x7f800000u), is_inf = lt__mask(ax >= 0x477ff000u) & ~is_nan;
    uint32_t is_sub = lt__mask(ax < 0x38800000u), is_normal = ~(is_nan | is_inf | is_sub);
    uint32_t h = (nan & is_nan) | (0x7c00u & is_inf) | (normal & is_normal) | (sub & is_sub);
    return (uint16_t)(sign | h);
}

static inline float lt__bf16_to_f32(uint16_t b) { return lt__f32_from_bits((uint32_t)b << 16); }

/* float32 -> bfloat16, round to nearest even (the carry of 0x7fff plus the
 * lowest kept bit); overflow reaches inf naturally. NaN becomes 0x7fc0, as in
 * c10::BFloat16 (torch's AVX-512 path writes 0xffff, also a NaN). */
static inline uint16_t lt__f32_to_bf16(float f)
{
    uint32_t x = lt__f32_bits(f);
    uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16, is_nan = lt__mask((x & 0x7fffffffu) > 0x7f800000u);
    return (uint16_t)((0x7fc0u & is_nan) | (r & ~is_nan));
}

/* ------------------------------------------------------------ float8 codecs
 *
 * Bit-exact with torch 2.13's c10 conversions, checked against torch for
 * every byte (decode) and across float32's range (encode). A float8 value
 * is sign, E exponent bits and M mantissa bits with bias B:
 *   exponent field e > 0:  (1 + m / 2^M) * 2^(e - B)
 *   e == 0 (subnormal):    (m / 2^M) * 2^(1 - B)
 * The "fnuz" formats have no negative zero: 0x80 is their only NaN. */

/* 2^k as a float, for the normal range of k. */
static inline float lt__pow2f(int k) { return lt__f32_from_bits((uint32_t)(127 + k) << 23); }

/* The magnitude encoded by the low 7 bits of an M-mantissa-bit, bias-B byte. */
static inline float lt__fp8_magnitude(uint32_t b, int M, int B)
{
    uint32_t e = (b & 0x7fu) >> M, m = b & ((1u << M) - 1);
    return e ? (float)(m | (1u << M)) * lt__pow2f((int)e - B - M) : (float)m * lt__pow2f(1 - B - M);
}

/* |f|'s bits ax (not NaN, below the format's overflow) rounded to nearest
 * even, as the 7 low bits of an M-bit, bias-B float8 (a carry may reach 0x80).
 * Subnormal results: adding 2^(23 + 1 - B - M) lines f's mantissa up with the
 * float8's last subnormal bit, and the FPU's own rounding does the rest.
 * Normal results: re-bias the exponent and drop 23 - M mantissa bits, adding
 * half of the dropped unit minus one plus the lowest kept bit (ties to even). */
static inline uint32_t lt__fp8_round(uint32_t ax, int M, int B)
{
    if (ax < (uint32_t)(127 + 1 - B) << 23) {
        uint32_t denorm = (uint32_t)(127 + 23 + 1 - B - M) << 23;
        return lt__f32_bits(lt__f32_from_bits(ax) + lt__f32_from_bits(denorm)) - denorm;
    }
    int shift = 23 - M;
    return (ax + ((uint32_t)(B - 127) << 23) + ((1u << (shift - 1)) - 1) + ((ax >> shift) & 1u)) >> shift;
}

/* e4m3fn: B = 7, no infinity, NaN is S.1111.111. Out-of-range values,
 * infinities included, saturate to +-448 (torch 2.13's conversion); NaN
 * decodes with torch's payload (0x7ff00000). */
static inline float lt__e4m3fn_to_f32(uint8_t b)
{
    uint32_t sign = (uint32_t)(b & 0x80u) << 24;
    if ((b & 0x7fu) == 0x7fu)
        return lt__f32_from_bits(sign | 0x7ff00000u);
    return lt__f32_from_bits(sign | lt__f32_bits(lt__fp8_magnitude(b, 3, 7)));
}
static inline uint8_t lt__f32_to_e4m3fn(float f)
{
    uint32_t x = lt__f32_bits(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    if (ax >= 0x43e00000u) /* 448: the largest finite value */
        return (uint8_t)(sign | 0x7eu);
    return (uint8_t)(sign | lt__fp8_round(ax, 3, 7));
}

/* e5m2: B = 15, float16 with its low byte dropped, infinities and NaNs
 * included; decoding is float16's (quieted NaNs, as torch). Overflow rounds
 * to infinity. */
static inline float lt__e5m2_to_f32(uint8_t b) { return lt__f16_to_f32((uint16_t)(b << 8)); }
static inline uint8_t lt__f32_to_e5m2(float f)
{
    uint32_t x = lt__f32_bits(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    if (ax >= 0x47800000u) /* 2^16: past the largest finite value (57344) whatever the rounding */
        return (uint8_t)(sign | 0x7cu);
    return (uint8_t)(sign | lt__fp8_round(ax, 2, 15));
}

/* The fnuz formats (e4m3fnuz: B = 8; e5m2fnuz: B = 16): NaN, infinities and
 * overflow all become 0x80, which decodes to torch's NaN (0x7f800001); a
 * result that rounds to zero is +0. */
static inline float lt__fnuz_to_f32(uint8_t b, int M, int B)
{
    if (b == 0x80u)
        return lt__f32_from_bits(0x7f800001u);
    return lt__f32_from_bits((uint32_t)(b & 0x80u) << 24 | lt__f32_bits(lt__fp8_magnitude(b, M, B)));
}
static inline uint8_t lt__f32_to_fnuz(float f, int M, int B)
{
    uint32_t x = lt__f32_bits(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax >= (uint32_t)(127 + 1 + (1 << (7 - M)) - 1 - B) << 23) /* NaN, inf, or >= 2^(emax - B + 1) */
        return 0x80u;
    uint32_t r = lt__fp8_round(ax, M, B);
    return (uint8_t)(r >= 0x80u ? 0x80u : r ? sign | r : 0u);
}
static inline float lt__e4m3fnuz_to_f32(uint8_t b) { return lt__fnuz_to_f32(b, 3, 8); }
static inline uint8_t lt__f32_to_e4m3fnuz(float f) { return lt__f32_to_fnuz(f, 3, 8); }
static inline float lt__e5m2fnuz_to_f32(uint8_t b) { return lt__fnuz_to_f32(b, 2, 16); }
static inline uint8_t lt__f32_to_e5m2fnuz(float f) { return lt__f32_to_fnuz(f, 2, 16); }

/* e8m0fnu: an unsigned power of two, 2^(e - 127); 0xff is NaN. Encoding
 * keeps float32's exponent, ignores the sign, and rounds the mantissa to
 * nearest even with guard, round and sticky bits (torch's rule: the implied
 * bit is the LSB, so 1.5 * 2^k goes up to 2^(k+1)); NaN and infinity give
 * NaN. */
static inline float lt__e8m0fnu_to_f32(uint8_t b)
{
    return lt__f32_from_bits(b == 0xffu ? 0x7f800001u : b ? (uint32_t)b << 23 : 0x00400000u);
}
static inline uint8_t lt__f32_to_e8m0fnu(float f)
{
    uint32_t x = lt__f32_bits(f), e = (x >> 23) & 0xffu;
    if (e == 0xffu)
        return 0xffu;
    uint32_t guard = (x >> 22) & 1u, rest = x & 0x3fffffu, lsb = e > 0;
    return (uint8_t)(e + (guard && (rest || lsb)));
}

typedef struct lt__c64 {
    float re, im;
} lt__c64;
typedef struct lt__c128 {
    double re, im;
} lt__c128;

/* ------------------------------------------------------------ the dtype table */

/*
 * One row per dtype, read by the macros that generate cast.c's and ops.c's
 * loops. Columns:
 *   storage   the C type of the bytes in memory
 *   value     the type arithmetic sees once decoded (float for the 16-bit floats)
 *   part      the real type of a complex value (the value type otherwise)
 *   src kind  how a value converts into others: BOOL INT R32 R64 C64 C128, and
 *             R8Z for the float8s whose NaN becomes integer 0 (torch's rule
 *             for the fnuz formats and e8m0fnu; otherwise R32)
 *   dst kind  how a value is made from others:  BOOL INT FLT CPLX
 *   op kind   which arithmetic applies:         BOOL INT FLT CPLX
 *   wide      an unsigned type at least as wide as int and as the storage, so
 *             integer arithmetic wraps instead of overflowing (a uint16 product
 *             would otherwise promote to signed int and overflow)
 *   decode    storage -> value;  encode: value -> storage
 */
#define LT__ROW_BOOL uint8_t, unsigned, unsigned, BOOL, BOOL, BOOL, unsigned, LT__DEC_BOOL, LT__SAME
#define LT__ROW_UINT8 uint8_t, uint8_t, uint8_t, INT, INT, INT, unsigned, LT__SAME, LT__SAME
#define LT__ROW_UINT16 uint16_t, uint16_t, uint16_t, INT, INT, INT, unsigned, LT__SAME, LT__SAME
#define LT__ROW_UINT32 uint32_t, uint32_t, uint32_t, INT, INT, INT, uint32_t, LT__SAME, LT__SAME
#define LT__ROW_UINT64 uint64_t, uint64_t, uint64_t, INT, INT, INT, uint64_t, LT__SAME, LT__SAME
#define LT__ROW_INT8 int8_t, int8_t, int8_t, INT, INT, INT, unsigned, LT__SAME, LT__SAME
#define LT__ROW_INT16 int16_t, int16_t, int16_t, INT, INT, INT, unsigned, LT__SAME, LT__SAME
#define LT__ROW_INT32 int32_t, int32_t, int32_t, INT, INT, INT, uint32_t, LT__SAME, LT__SAME
#define LT__ROW_INT64 int64_t, int64_t, int64_t, INT, INT, INT, uint64_t, LT__SAME, LT__SAME
#define LT__ROW_FLOAT16 uint16_t, float, float, R32, FLT, FLT, float, lt__f16_to_f32, lt__f32_to_f16
#define LT__ROW_BFLOAT16 uint16_t, float, float, R32, FLT, FLT, float, lt__bf16_to_f32, lt__f32_to_bf16
#define LT__ROW_FLOAT32 float, float, float, R32, FLT, FLT, float, LT__SAME, LT__SAME
#define LT__ROW_FLOAT64 double, double, double, R64, FLT, FLT, double, LT__SAME, LT__SAME
#define LT__ROW_COMPLEX64 lt__c64, lt__c64, float, C64, CPLX, CPLX, float, LT__SAME, LT__SAME
#define LT__ROW_COMPLEX128 lt__c128, lt__c128, double, C128, CPLX, CPLX, double, LT__SAME, LT__SAME
#define LT__ROW_FLOAT8_E4M3FN uint8_t, float, float, R32, FLT, FLT, float, lt__e4m3fn_to_f32, lt__f32_to_e4m3fn
#define LT__ROW_FLOAT8_E4M3FNUZ uint8_t, float, float, R8Z, FLT, FLT, float, lt__e4m3fnuz_to_f32, lt__f32_to_e4m3fnuz
#define LT__ROW_FLOAT8_E5M2 uint8_t, float, float, R32, FLT, FLT, float, lt__e5m2_to_f32, lt__f32_to_e5m2
#define LT__ROW_FLOAT8_E5M2FNUZ uint8_t, float, float, R8Z, FLT, FLT, float, lt__e5m2fnuz_to_f32, lt__f32_to_e5m2fnuz
#define LT__ROW_FLOAT8_E8M0FNU uint8_t, float, float, R8Z, FLT, FLT, float, lt__e8m0fnu_to_f32, lt__f32_to_e8m0fnu

#define LT__SAME(...) (__VA_ARGS__)
#define LT__DEC_BOOL(x) ((unsigned)((x) != 0))

/* Column accessors: LT__ST(INT8) is int8_t. The extra level lets the row
 * expand into its columns before they are counted. */
#define LT__COL(pick, row) pick(row)
#define LT__C1(...) LT__C1_(__VA_ARGS__)
#define LT__C2(...) LT__C2_(__VA_ARGS__)
#define LT__C3(...) LT__C3_(__VA_ARGS__)
#define LT__C4(...) LT__C4_(__VA_ARGS__)
#define LT__C5(...) LT__C5_(__VA_ARGS__)
#define LT__C6(...) LT__C6_(__VA_ARGS__)
#define LT__C7(...) LT__C7_(__VA_ARGS__)
#define LT__C8(...) LT__C8_(__VA_ARGS__)
#define LT__C9(...) LT__C9_(__VA_ARGS__)
#define LT__C1_(a, b, c, d, e, f, g, h, i) a
#define LT__C2_(a, b, c, d, e, f, g, h, i) b
#define LT__C3_(a, b, c, d, e, f, g, h, i) c
#define LT__C4_(a, b, c, d, e, f, g, h, i) d
#define LT__C5_(a, b, c, d, e, f, g, h, i) e
#define LT__C6_(a, b, c, d, e, f, g, h, i) f
#define LT__C7_(a, b, c, d, e, f, g, h, i) g
#define LT__C8_(a, b, c, d, e, f, g, h, i) h
#define LT__C9_(a, b, c, d, e, f, g, h, i) i
#define LT__ST(D) LT__COL(LT__C1, LT__ROW_##D)
#define LT__VT(D) LT__COL(LT__C2, LT__ROW_##D)
#define LT__PT(D) LT__COL(LT__C3, LT__ROW_##D)
#define LT__SK(D) LT__COL(LT__C4, LT__ROW_##D)
#define LT__DK(D) LT__COL(LT__C5, LT__ROW_##D)
#define LT__AK(D) LT__COL(LT__C6, LT__ROW_##D)
#define LT__WT(D) LT__COL(LT__C7, LT__ROW_##D)
#define LT__DEC(D) LT__COL(LT__C8, LT__ROW_##D)
#define LT__ENC(D) LT__COL(LT__C9, LT__ROW_##D)

/* Pastes after expanding: LT__CAT(LT__AK(D), _ADD) is INT_ADD for an integer D. */
#define LT__CAT(a, b) LT__CAT_(a, b)
#define LT__CAT_(a, b) a##b

/* The dtypes with arithmetic (ops.c's loops). */
#define LT__EACH_ARITH_DTYPE(X)                                                       \
    X(BOOL) X(UINT8) X(UINT16) X(UINT32) X(UINT64) X(INT8) X(INT16) X(INT32) X(INT64) \
    X(FLOAT16) X(BFLOAT16) X(FLOAT32) X(FLOAT64) X(COMPLEX64) X(COMPLEX128)

/* The dtypes with conversions (cast.c's loops): those with arithmetic and the
 * float8s. Two spellings: the preprocessor will not expand a macro inside its
 * own expansion, so nested loops (rows of pairs) need one each. */
#define LT__EACH_DTYPE(X)                                                                      \
    LT__EACH_ARITH_DTYPE(X)                                                                    \
    X(FLOAT8_E4M3FN) X(FLOAT8_E4M3FNUZ) X(FLOAT8_E5M2) X(FLOAT8_E5M2FNUZ) X(FLOAT8_E8M0FNU)
#define LT__EACH_DTYPE_WITH(X, D)                                                               \
    X(D, BOOL) X(D, UINT8) X(D, UINT16) X(D, UINT32) X(D, UINT64) X(D, INT8) X(D, INT16)        \
    X(D, INT32) X(D, INT64) X(D, FLOAT16) X(D, BFLOAT16) X(D, FLOAT32) X(D, FLOAT64)            \
    X(D, COMPLEX64) X(D, COMPLEX128) X(D, FLOAT8_E4M3FN) X(D, FLOAT8_E4M3FNUZ) X(D, FLOAT8_E5M2) \
    X(D, FLOAT8_E5M2FNUZ) X(D, FLOAT8_E8M0FNU)

#endif
