/*
 * cast.c: the 20 x 20 dtype conversion loops, generated from kernels.h's
 * dtype table (every dtype but the storage-only float4_e2m1fn_x2).
 *
 * Every pair gets one function with two loops: a dense one whose strides
 * are compile-time constants, so the compiler vectorizes it, and a strided
 * one. Same-dtype pairs instead move bytes unchanged (copy_N), keeping NaN
 * payloads and non-canonical bool bytes as they were, like memcpy.
 *
 * Semantics follow PyTorch 2.13 on x86-64 CPUs, checked value by value
 * against torch for every pair:
 *   - anything -> bool is x != 0 (NaN is true; complex: re != 0 || im != 0);
 *   - integer -> integer wraps (two's complement: keep the low bits);
 *   - complex -> real keeps the real part; real -> complex has imaginary 0;
 *   - -> float16 / bfloat16 converts to float32 first and then rounds to
 *     nearest even, so float64 and 64-bit integer sources round twice, as
 *     c10::Half(float(x)) does;
 *   - float -> integer truncates toward zero, with out-of-range values as
 *     described below;
 *   - the float8s decode to float32 (exactly) and encode from float32, so
 *     they convert as float16 does: float64 and 64-bit integers round twice,
 *     as c10::Float8_*(float(x)) does. kernels.h has the codecs.
 */
#include <stdlib.h>

#include "kernels.h"

/* ------------------------------------------------------------ float -> int */

/*
 * C leaves float -> integer conversion of NaN and out-of-range values
 * undefined (UBSan reports it), so these helpers range-check first and then
 * reproduce what x86-64's truncating conversions (cvttss2si, cvttsd2si)
 * return in the code torch is compiled to:
 *   cvt32(x) = trunc(x) when it fits int32, else INT32_MIN ("integer indefinite")
 *   cvt64(x) = trunc(x) when it fits int64, else INT64_MIN
 * and, per destination (what c10's static_cast compiles to):
 *   int8, int16, uint16, int32   the low bits of cvt32(x)
 *   uint8, uint32, int64         the low bits of cvt64(x)  (c10 sends uint8
 *                                through int64 on purpose)
 *   uint64                       x >= 2^63 ? cvt64(x - 2^63) ^ 2^63 : cvt64(x)
 * Examples: 300.5 -> uint8 44; -1.5 -> uint8 255; 1e10 -> int32 INT32_MIN;
 * 1e10 -> int16 0; 1e10 -> uint32 1410065408; NaN -> int64 INT64_MIN;
 * NaN -> uint64 2^63; inf -> uint64 0.
 * One divergence is deliberate: torch's vectorized dense float32, float64
 * and bfloat16 -> uint32 loops give other values for out-of-range inputs
 * (1e10 -> 0) than its own scalar and strided loops; we follow the scalar
 * rule everywhere, which is also what torch gives from float16 and complex.
 */
static inline int32_t cvt32_f(float x) { return x >= -0x1p31f && x < 0x1p31f ? (int32_t)x : INT32_MIN; }
static inline int32_t cvt32_d(double x) { return x > -2147483649.0 && x < 0x1p31 ? (int32_t)x : INT32_MIN; }
static inline int64_t cvt64_f(float x) { return x >= -0x1p63f && x < 0x1p63f ? (int64_t)x : INT64_MIN; }
static inline int64_t cvt64_d(double x) { return x >= -0x1p63 && x < 0x1p63 ? (int64_t)x : INT64_MIN; }

/* f2i_<f|d>_<DTYPE>(x): float or double x to each integer dtype. Converting
 * a negative int32/int64 to an unsigned type is defined (modulo 2^N);
 * narrowing to a signed type keeps the low bits in GCC and Clang
 * (implementation-defined, and documented so by both). */
#define F2I(T, NAME, cvt)                                             \
    static inline T f2i_f_##NAME(float x) { return (T)(cvt##_f(x)); } \
    static inline T f2i_d_##NAME(double x) { return (T)(cvt##_d(x)); }
F2I(int8_t, INT8, (uint32_t)cvt32)
F2I(int16_t, INT16, (uint32_t)cvt32)
F2I(uint16_t, UINT16, (uint32_t)cvt32)
F2I(int32_t, INT32, cvt32)
F2I(uint32_t, UINT32, (uint64_t)cvt64)
F2I(int64_t, INT64, cvt64)

static inline uint8_t f2i_d_UINT8(double x) { return (uint8_t)(uint64_t)cvt64_d(x); }
/* From float32 the int32 route gives the same low byte, and vectorizes: a
 * float of magnitude >= 2^31 is a multiple of 256, and INT32_MIN and
 * INT64_MIN both end in a zero byte. */
static inline uint8_t f2i_f_UINT8(float x) { return (uint8_t)(uint32_t)cvt32_f(x); }

static inline uint64_t f2i_f_UINT64(float x)
{
    return x >= 0x1p63f ? (uint64_t)cvt64_f(x - 0x1p63f) ^ (UINT64_C(1) << 63) : (uint64_t)cvt64_f(x);
}
static inline uint64_t f2i_d_UINT64(double x)
{
    return x >= 0x1p63 ? (uint64_t)cvt64_d(x - 0x1p63) ^ (UINT64_C(1) << 63) : (uint64_t)cvt64_d(x);
}

/* ------------------------------------------------------------ conversions */

/* CV_<dst kind>_<src kind>(D, x): the value x (of the source's value type)
 * converted to dtype D's value type. */
#define CV_BOOL_BOOL(D, x) (x)
#define CV_BOOL_INT(D, x) ((unsigned)((x) != 0))
#define CV_BOOL_R32(D, x) ((unsigned)((x) != 0))
#define CV_BOOL_R64(D, x) ((unsigned)((x) != 0))
#define CV_BOOL_C64(D, x) ((unsigned)((x).re != 0 || (x).im != 0))
#define CV_BOOL_C128(D, x) CV_BOOL_C64(D, x)
#define CV_INT_BOOL(D, x) ((LT__ST(D))(x))
#define CV_INT_INT(D, x) ((LT__ST(D))(x))
#define CV_INT_R32(D, x) f2i_f_##D(x)
#define CV_INT_R64(D, x) f2i_d_##D(x)
#define CV_INT_C64(D, x) f2i_f_##D((x).re)
#define CV_INT_C128(D, x) f2i_d_##D((x).re)
#define CV_FLT_BOOL(D, x) ((LT__VT(D))(x))
#define CV_FLT_INT(D, x) ((LT__VT(D))(x))
#define CV_FLT_R32(D, x) ((LT__VT(D))(x))
#define CV_FLT_R64(D, x) ((LT__VT(D))(x))
#define CV_FLT_C64(D, x) ((LT__VT(D))(x).re)
#define CV_FLT_C128(D, x) ((LT__VT(D))(x).re)
#define CV_CPLX_BOOL(D, x) ((LT__VT(D)){(LT__PT(D))(x), 0})
#define CV_CPLX_INT(D, x) ((LT__VT(D)){(LT__PT(D))(x), 0})
#define CV_CPLX_R32(D, x) ((LT__VT(D)){(LT__PT(D))(x), 0})
#define CV_CPLX_R64(D, x) ((LT__VT(D)){(LT__PT(D))(x), 0})
#define CV_CPLX_C64(D, x) ((LT__VT(D)){(LT__PT(D))(x).re, (LT__PT(D))(x).im})
#define CV_CPLX_C128(D, x) ((LT__VT(D)){(LT__PT(D))(x).re, (LT__PT(D))(x).im})
/* The fnuz float8s and e8m0fnu: float32 values, except that their NaN
 * converts to integer 0 (torch 2.13; the others' NaN follows float32's rule). */
#define CV_BOOL_R8Z CV_BOOL_R32
#define CV_INT_R8Z(D, x) ((x) != (x) ? (LT__ST(D))0 : f2i_f_##D(x))
#define CV_FLT_R8Z CV_FLT_R32
#define CV_CPLX_R8Z CV_CPLX_R32
#define CV_(dk, sk) CV_##dk##_##sk
#define CV(dk, sk) CV_(dk, sk)
#define CONVERT(D, S, x) CV(LT__DK(D), LT__SK(S))(D, x)

/* ------------------------------------------------------------ the loops */

#define CAST_LOOP(D, S, dstep, sstep)                                          \
    for (int64_t i = 0; i < n; i++) {                                          \
        LT__VT(S) x = LT__DEC(S)(LT__LOAD(LT__ST(S), src + i * (sstep)));      \
        LT__STORE(LT__ST(D), dst + i * (dstep), LT__ENC(D)(CONVERT(D, S, x))); \
    }

#define CAST_FN(D, S)                                                                        \
    LT__HOT static void cast_##D##_##S(char *const *ptr, const ptrdiff_t *stride, int64_t n) \
    {                                                                                        \
        char *dst = ptr[0];                                                                  \
        const char *src = ptr[1];                                                            \
        const ptrdiff_t dsz = sizeof(LT__ST(D)), ssz = sizeof(LT__ST(S));                    \
        if (stride[0] == dsz && stride[1] == ssz)                                            \
            CAST_LOOP(D, S, dsz, ssz)                                                        \
        else                                                                                 \
            CAST_LOOP(D, S, stride[0], stride[1])                                            \
    }

#define CAST_FNS_INTO(D) LT__EACH_DTYPE_WITH(CAST_FN, D)
LT__EACH_DTYPE(CAST_FNS_INTO)

/* ------------------------------------------------------------ float16 <-> float32 with F16C
 *
 * The portable codecs above vectorize but spend about twenty vector
 * operations per eight elements; x86's F16C converts eight in one
 * instruction (vcvtps2ph with round-to-nearest-even, vcvtph2ps exact), which
 * is what torch uses, so these two pairs run at memory speed. The results
 * are bit-identical to the portable codecs for every input (NaNs included:
 * both quiet a NaN and keep its top payload bits); tests compare both paths
 * against torch on all 2^16 halves and the rounding boundaries, with
 * LT_CAST_BASELINE=1 forcing the portable loops. bfloat16 gets AVX2 loops
 * beside them, under the same switch. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target)
#include <immintrin.h>
#define F16C_PATH 1

__attribute__((target("avx,f16c"))) static void f16c_from_f32(char *dst, const char *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i),
                         _mm256_cvtps_ph(_mm256_loadu_ps((const float *)(const void *)(src + 4 * i)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        LT__STORE(uint16_t, dst + 2 * i, lt__f32_to_f16(LT__LOAD(float, src + 4 * i)));
}

__attribute__((target("avx,f16c"))) static void f16c_to_f32(char *dst, const char *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps((float *)(void *)(dst + 4 * i),
                         _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i))));
    for (; i < n; i++)
        LT__STORE(float, dst + 4 * i, lt__f16_to_f32(LT__LOAD(uint16_t, src + 2 * i)));
}

/* bfloat16 <-> float32 with AVX2 integer vectors: the same bit steps as
 * lt__f32_to_bf16 / lt__bf16_to_f32, eight elements at a time (GCC's own
 * vectorization of the portable loop packs the halves slowly). */
__attribute__((target("avx2"))) static void avx2_bf16_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256i one = _mm256_set1_epi32(1), round = _mm256_set1_epi32(0x7fff), abs = _mm256_set1_epi32(0x7fffffff),
                  inf = _mm256_set1_epi32(0x7f800000), qnan = _mm256_set1_epi32(0x7fc0);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i r[2];
        for (int k = 0; k < 2; k++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * (i + 8 * k)));
            __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
            __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, round), lsb), 16);
            __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, abs), inf);
            r[k] = _mm256_blendv_epi8(rounded, qnan, is_nan);
        }
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r[0], r[1]), 0xd8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), packed);
    }
    for (; i < n; i++)
        LT__STORE(uint16_t, dst + 2 * i, lt__f32_to_bf16(LT__LOAD(float, src + 4 * i)));
}

__attribute__((target("avx2"))) static void avx2_bf16_to_f32(char *dst, const char *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
    for (; i < n; i++)
        LT__STORE(float, dst + 4 * i, lt__bf16_to_f32(LT__LOAD(uint16_t, src + 2 * i)));
}

/* float32 -> int64: AVX2 has no 64-bit conversion, so eight floats that
 * all lie within int32's range (the common case) convert with cvttps2dq and
 * are sign-extended, which is exactly cvt64_f's truncation there; a block
 * holding anything else (NaN, +-inf, |x| >= 2^31) takes cvt64_f. */
__attribute__((target("avx2"))) static void avx2_i64_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256 lim = _mm256_set1_ps(0x1p31f), abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps((const float *)(const void *)(src + 4 * i));
        __m256 inside = _mm256_cmp_ps(_mm256_and_ps(x, abs_mask), lim, _CMP_LT_OQ); /* false for NaN */
        if (_mm256_movemask_ps(inside) != 0xff) {
            for (int k = 0; k < 8; k++)
                LT__STORE(int64_t, dst + 8 * (i + k), cvt64_f(LT__LOAD(float, src + 4 * (i + k))));
            continue;
        }
        __m256i q = _mm256_cvttps_epi32(x);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 8 * i), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(q)));
        _mm256_storeu_si256((__m256i *)(void *)(dst + 8 * i + 32),
                            _mm256_cvtepi32_epi64(_mm256_extracti128_si256(q, 1)));
    }
    for (; i < n; i++)
        LT__STORE(int64_t, dst + 8 * i, cvt64_f(LT__LOAD(float, src + 4 * i)));
}

/* float32 -> int16 / int8: cvttps2dq gives exactly cvt32_f (its "integer
 * indefinite" INT32_MIN for NaN, +-inf and |x| >= 2^31), and the low 16 or 8
 * bits are kept by masking and then packing without saturation (every
 * masked value fits); the packs work within 128-bit lanes, so a permute puts
 * the blocks back in order. */
__attribute__((target("avx2"))) static void avx2_i16_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256i low16 = _mm256_set1_epi32(0xffff);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_loadu_ps((const float *)(const void *)(src + 4 * i))),
                                     low16);
        __m256i b = _mm256_and_si256(
            _mm256_cvttps_epi32(_mm256_loadu_ps((const float *)(const void *)(src + 4 * i + 32))), low16);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i),
                            _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
    }
    for (; i < n; i++)
        LT__STORE(int16_t, dst + 2 * i, f2i_f_INT16(LT__LOAD(float, src + 4 * i)));
}

__attribute__((target("avx2"))) static void avx2_i8_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256i low8 = _mm256_set1_epi32(0xff), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i q[4];
        for (int k = 0; k < 4; k++)
            q[k] = _mm256_and_si256(
                _mm256_cvttps_epi32(_mm256_loadu_ps((const float *)(const void *)(src + 4 * (i + 8 * k)))), low8);
        __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_permutevar8x32_epi32(bytes, order));
    }
    for (; i < n; i++)
        LT__STORE(int8_t, dst + i, f2i_f_INT8(LT__LOAD(float, src + 4 * i)));
}

/* float32 -> complex64 / complex128: each value beside a +0 imaginary part
 * (interleaved with zeros, then the 128-bit halves put in order). */
__attribute__((target("avx2"))) static void avx2_c64_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256 zero = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps((const float *)(const void *)(src + 4 * i));
        __m256 lo = _mm256_unpacklo_ps(x, zero), hi = _mm256_unpackhi_ps(x, zero);
        _mm256_storeu_ps((float *)(void *)(dst + 8 * i), _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps((float *)(void *)(dst + 8 * i + 32), _mm256_permute2f128_ps(lo, hi, 0x31));
    }
    for (; i < n; i++) {
        LT__STORE(float, dst + 8 * i, LT__LOAD(float, src + 4 * i));
        LT__STORE(float, dst + 8 * i + 4, 0.0f);
    }
}

__attribute__((target("avx2"))) static void avx2_c128_from_f32(char *dst, const char *src, int64_t n)
{
    const __m256d zero = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)(src + 4 * i)));
        __m256d lo = _mm256_unpacklo_pd(x, zero), hi = _mm256_unpackhi_pd(x, zero);
        _mm256_storeu_pd((double *)(void *)(dst + 16 * i), _mm256_permute2f128_pd(lo, hi, 0x20));
        _mm256_storeu_pd((double *)(void *)(dst + 16 * i + 32), _mm256_permute2f128_pd(lo, hi, 0x31));
    }
    for (; i < n; i++) {
        LT__STORE(double, dst + 16 * i, (double)LT__LOAD(float, src + 4 * i));
        LT__STORE(double, dst + 16 * i + 8, 0.0);
    }
}

/* Which vector loops this CPU runs (bit 1: F16C, bit 2: AVX2), none when
 * LT_CAST_BASELINE is "1"; racing first callers compute the same answer. */
static int vector_paths(void)
{
    static int cached = -1;
    int use = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (use < 0) {
        const char *force = getenv("LT_CAST_BASELINE");
        __builtin_cpu_init();
        use = force && *force == '1' ? 0
                                     : (__builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c") ? 1 : 0) |
                                           (__builtin_cpu_supports("avx2") ? 2 : 0);
        __atomic_store_n(&cached, use, __ATOMIC_RELAXED);
    }
    return use;
}

static int use_f16c(void) { return vector_paths() & 1; }
static int use_avx2(void) { return (vector_paths() & 2) != 0; }

static void cast_i64_f32_avx2(char *const *ptr, const ptrdiff_t *stride, int64_t n)
{
    if (stride[0] == 8 && stride[1] == 4)
        avx2_i64_from_f32(ptr[0], ptr[1], n);
    else
        cast_INT64_FLOAT32(ptr, stride, n);
}

/* The dense case of each pair takes its vector loop, any other stride the portable one. */
#define AVX2_DENSE(NAME, D, S, VEC)                                                \
    static void NAME(char *const *ptr, const ptrdiff_t *stride, int64_t n)      \
    {                                                                           \
        if (stride[0] == (ptrdiff_t)sizeof(LT__ST(D)) && stride[1] == (ptrdiff_t)sizeof(LT__ST(S))) \
            VEC(ptr[0], ptr[1], n);                                             \
        else                                                                    \
            cast_##D##_##S(ptr, stride, n);                                     \
    }
AVX2_DENSE(cast_i16_f32_avx2, INT16, FLOAT32, avx2_i16_from_f32)
AVX2_DENSE(cast_i8_f32_avx2, INT8, FLOAT32, avx2_i8_from_f32)
AVX2_DENSE(cast_c64_f32_avx2, COMPLEX64, FLOAT32, avx2_c64_from_f32)
AVX2_DENSE(cast_c128_f32_avx2, COMPLEX128, FLOAT32, avx2_c128_from_f32)
#undef AVX2_DENSE

static void cast_bf16_f32_avx2(char *const *ptr, const ptrdiff_t *stride, int64_t n)
{
    if (stride[0] == 2 && stride[1] == 4)
        avx2_bf16_from_f32(ptr[0], ptr[1], n);
    else
        cast_BFLOAT16_FLOAT32(ptr, stride, n);
}

static void cast_f32_bf16_avx2(char *const *ptr, const ptrdiff_t *stride, int64_t n)
{
    if (stride[0] == 4 && stride[1] == 2)
        avx2_bf16_to_f32(ptr[0], ptr[1], n);
    else
        cast_FLOAT32_BFLOAT16(ptr, stride, n);
}

static void cast_f16_f32_f16c(char *const *ptr, const ptrdiff_t *stride, int64_t n)
{
    if (stride[0] == 2 && stride[1] == 4)
        f16c_from_f32(ptr[0], ptr[1], n);
    else
        cast_FLOAT16_FLOAT32(ptr, stride, n);
}

static void cast_f32_f16_f16c(char *const *ptr, const ptrdiff_t *stride, int64_t n)
{
    if (stride[0] == 4 && stride[1] == 2)
        f16c_to_f32(ptr[0], ptr[1], n);
    else
        cast_FLOAT32_FLOAT16(ptr, stride, n);
}
#endif
#endif

#define CAST_ENTRY(D, S) [LT_##S] = cast_##D##_##S,
#define CAST_ROW(D) [LT_##D] = {LT__EACH_DTYPE_WITH(CAST_ENTRY, D)},
static const lt__kernel cast_table[LT_DTYPE_COUNT][LT_DTYPE_COUNT] = {LT__EACH_DTYPE(CAST_ROW)};

/* ------------------------------------------------------------ same-dtype moves */

/* Bytes move unchanged. A zero source stride into a contiguous destination
 * is a fill (lt_fill, broadcasting copies) and gets its own loop. */
#define COPY_FN(N, T)                                                                \
    LT__HOT static void copy_##N(char *const *ptr, const ptrdiff_t *stride, int64_t n) \
    {                                                                                \
        char *dst = ptr[0];                                                          \
        const char *src = ptr[1];                                                    \
        if (stride[0] == N && stride[1] == N) {                                      \
            memcpy(dst, src, (size_t)n * N);                                         \
        } else if (stride[0] == N && stride[1] == 0) {                               \
            T v = LT__LOAD(T, src);                                                  \
            for (int64_t i = 0; i < n; i++)                                          \
                LT__STORE(T, dst + i * N, v);                                        \
        } else {                                                                     \
            for (int64_t i = 0; i < n; i++)                                          \
                LT__STORE(T, dst + i * stride[0], LT__LOAD(T, src + i * stride[1])); \
        }                                                                            \
    }
COPY_FN(1, uint8_t)
COPY_FN(2, uint16_t)
COPY_FN(4, uint32_t)
COPY_FN(8, uint64_t)
COPY_FN(16, lt__c128)

lt_status lt__check_cast(lt_dtype dst, lt_dtype src)
{
    if (dst == src || cast_table[dst][src])
        return LT_OK;
    return lt__fail(LT_EDTYPE, "no conversion from %s to %s: %s is a storage-only dtype (as in torch)",
                    lt_dtype_name(src), lt_dtype_name(dst),
                    lt_dtype_name(dst == LT_FLOAT4_E2M1FN_X2 ? dst : src));
}

lt__kernel lt__cast_kernel(lt_dtype dst, lt_dtype src)
{
    LT__ASSERT(lt__dtype_valid(dst) && lt__dtype_valid(src));
#ifdef F16C_PATH
    if (dst == LT_FLOAT16 && src == LT_FLOAT32 && use_f16c())
        return cast_f16_f32_f16c;
    if (dst == LT_FLOAT32 && src == LT_FLOAT16 && use_f16c())
        return cast_f32_f16_f16c;
    if (dst == LT_INT64 && src == LT_FLOAT32 && use_avx2())
        return cast_i64_f32_avx2;
    if (src == LT_FLOAT32 && use_avx2()) {
        if (dst == LT_INT16)
            return cast_i16_f32_avx2;
        if (dst == LT_INT8)
            return cast_i8_f32_avx2;
        if (dst == LT_COMPLEX64)
            return cast_c64_f32_avx2;
        if (dst == LT_COMPLEX128)
            return cast_c128_f32_avx2;
    }
    if (dst == LT_BFLOAT16 && src == LT_FLOAT32 && use_avx2())
        return cast_bf16_f32_avx2;
    if (dst == LT_FLOAT32 && src == LT_BFLOAT16 && use_avx2())
        return cast_f32_bf16_avx2;
#endif
    if (dst != src)
        return cast_table[dst][src];
    switch (lt_dtype_itemsize(dst)) {
    case 1:
        return copy_1;
    case 2:
        return copy_2;
    case 4:
        return copy_4;
    case 8:
        return copy_8;
    default:
        return copy_16;
    }
}

/* ------------------------------------------------------------ complex sign flips */

/* One XOR per 64-bit word with the sign bits to flip (even words, odd
 * words): the compiler vectorizes it; a complex64 element is one word. */
LT__HOT static void xor_words(char *dst, const char *src, int64_t nwords, uint64_t even, uint64_t odd)
{
    for (int64_t i = 0; i + 2 <= nwords; i += 2) {
        LT__STORE(uint64_t, dst + 8 * i, LT__LOAD(uint64_t, src + 8 * i) ^ even);
        LT__STORE(uint64_t, dst + 8 * i + 8, LT__LOAD(uint64_t, src + 8 * i + 8) ^ odd);
    }
    if (nwords & 1)
        LT__STORE(uint64_t, dst + 8 * (nwords - 1), LT__LOAD(uint64_t, src + 8 * (nwords - 1)) ^ even);
}

lt_status lt_complex_negate_parts(void *dst, const void *src, int64_t n, lt_dtype dtype, int negate_real,
                                  int negate_imag)
{
    if (dtype != LT_COMPLEX64 && dtype != LT_COMPLEX128)
        return lt__fail(LT_EDTYPE, "lt_complex_negate_parts: %s is not a complex dtype", lt_dtype_name(dtype));
    if (!dst || !src || n < 0)
        return lt__fail(LT_EINVAL, "lt_complex_negate_parts: a NULL buffer or %lld elements", (long long)n);
    if (dtype == LT_COMPLEX64) { /* re in the low half of each word (little-endian), im in the high */
        uint64_t mask = (negate_real ? UINT64_C(0x80000000) : 0) | (negate_imag ? UINT64_C(0x80000000) << 32 : 0);
        xor_words((char *)dst, (const char *)src, n, mask, mask);
    } else {
        uint64_t sign = UINT64_C(1) << 63;
        xor_words((char *)dst, (const char *)src, 2 * n, negate_real ? sign : 0, negate_imag ? sign : 0);
    }
    return LT_OK;
}
