/*
 * boxmuller_f32.c: the float32 Box-Muller blocks of random.c's normal
 * sampler, torch's x86-64 kernel reproduced bit for bit: 16 uniforms in, 16
 * normals out, element j and j + 8 a pair (u1 = 1 - x[j], u2 = x[j + 8]):
 * radius = sqrt(-2 log u1), theta = 2 pi u2, x[j] = radius cos theta and
 * x[j + 8] = radius sin theta, each times std plus mean in one fused step.
 * The log and the sine/cosine are Cephes' single-precision polynomials (as
 * in Pommier's sse_mathfun), evaluated operation by operation in torch's
 * order, with an explicit fmaf exactly where GCC contracted torch's
 * multiply and add (found by comparing with torch 2.13 sample by sample).
 * Inputs are u in (0, 1] for the log and theta in [0, 2 pi) for sincos.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "boxmuller_f32.h"
#include "kernels.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The float32 block kernel is compiled twice on x86-64: once for the
 * baseline, where fmaf is a libm call, and once for CPUs with AVX2 and FMA,
 * where it is one instruction and the 8 pairs of a block run as one vector.
 * fmaf is exactly rounded in both, and nothing else may fuse (ISO C mode),
 * so both give the same bits; the faster is chosen at run time. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(LT_NO_CLONES)
#define FMA_CLONE 1
#endif

/* ------------------------------------------------------------ one lane */

static ALWAYS_INLINE float f32_and(float x, uint32_t m) { return lt__f32_from_bits(lt__f32_bits(x) & m); }

static ALWAYS_INLINE float cephes_logf(float x)
{
    if (x < 0x1p-126f) /* the smallest normal float: subnormals are cut off */
        x = 0x1p-126f;
    uint32_t bits = lt__f32_bits(x);
    float e = (float)((int32_t)(bits >> 23) - 0x7f);
    e = e + 1.0f;
    x = lt__f32_from_bits((bits & ~0x7f800000u) | lt__f32_bits(0.5f)); /* mantissa in [0.5, 1) */
    int below = x < 0.70710678118654752f;
    float tmp = below ? x : 0.0f;
    x = x - 1.0f;
    e = e - (below ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    static const float p[9] = {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f,
                               1.4249322787E-1f, -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f,
                               3.3333331174E-1f};
    float y = p[0];
    for (int i = 1; i < 9; i++)
        y = fmaf(y, x, p[i]);
    y = y * x;
    tmp = e * -2.12194440e-4f;
    y = fmaf(y, z, tmp);
    tmp = z * 0.5f;
    y = y - tmp;
    tmp = e * 0.693359375f;
    x = x + y;
    x = x + tmp;
    return x;
}

static ALWAYS_INLINE void cephes_sincosf(float x, float *s, float *c)
{
    uint32_t sign_sin = lt__f32_bits(x) & 0x80000000u;
    x = f32_and(x, 0x7fffffffu);
    float y = x * 1.27323954473516f; /* 4 / pi */
    int32_t j = (int32_t)y;          /* truncation, as cvttps */
    j = (j + 1) & ~1;
    y = (float)j;
    uint32_t swap_sin = (uint32_t)(j & 4) << 29;
    int poly_sin = (j & 2) == 0; /* the sine takes the sine polynomial */
    /* x - y * pi/4 in three parts, for extended precision */
    x = fmaf(y, -0.78515625f, x);
    x = fmaf(y, -2.4187564849853515625e-4f, x);
    x = fmaf(y, -3.77489497744594108e-8f, x);
    uint32_t sign_cos = (uint32_t)(~(j - 2) & 4) << 29;
    sign_sin ^= swap_sin;
    float z = x * x;
    float yc = fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f); /* cosine polynomial */
    yc = fmaf(yc, z, 4.166664568298827E-002f);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f); /* sine polynomial */
    ys = fmaf(ys, z, -1.6666654611E-1f);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    /* Each result is (one polynomial) + (+0 from the other), as the
     * vector code's masked sums: an exact -0 becomes +0 there too. */
    float sin_from_s = poly_sin ? ys : 0.0f, sin_from_c = poly_sin ? 0.0f : yc;
    float cos_from_s = ys - sin_from_s, cos_from_c = yc - sin_from_c;
    float sv = sin_from_c + sin_from_s, cv = cos_from_c + cos_from_s;
    *s = lt__f32_from_bits(lt__f32_bits(sv) ^ sign_sin);
    *c = lt__f32_from_bits(lt__f32_bits(cv) ^ sign_cos);
}

/* Turns one block of 16 float32 uniforms into 16 normals. */
static ALWAYS_INLINE void normal_block_f32(float *x, float mean, float std)
{
    const float two_pi = (float)(2.0 * 3.14159265358979323846);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - x[j], u2 = x[j + 8];
        float lg = cephes_logf(u1);
        float prod = -2.0f * lg;
        float radius = sqrtf(prod);
        float theta = two_pi * u2, s, c;
        cephes_sincosf(theta, &s, &c);
        float n1 = radius * c, n2 = radius * s;
        x[j] = fmaf(n1, std, mean); /* torch's kernel fuses this step explicitly */
        x[j + 8] = fmaf(n2, std, mean);
    }
}

/* Blocks lo .. hi - 1 of 16 float32 uniforms each, turned into normals. */
static ALWAYS_INLINE void blocks_f32_body(float *data, int64_t lo, int64_t hi, float mean, float std)
{
    for (int64_t b = lo; b < hi; b++)
        normal_block_f32(data + b * 16, mean, std);
}

static void blocks_f32_baseline(float *data, int64_t lo, int64_t hi, float mean, float std)
{
    blocks_f32_body(data, lo, hi, mean, std);
}

#ifdef FMA_CLONE
#include <immintrin.h>

#define AVX_FN __attribute__((target("avx2,fma"))) static inline

AVX_FN __m256 v_const(float c) { return _mm256_set1_ps(c); }
AVX_FN __m256 v_select(__m256 mask, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, mask); }

/* cephes_logf, eight lanes at a time: the same operations in the same order. */
AVX_FN __m256 v_logf(__m256 x)
{
    x = _mm256_max_ps(x, v_const(0x1p-126f));
    __m256i bits = _mm256_castps_si256(x);
    __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(0x7f)));
    e = _mm256_add_ps(e, v_const(1.0f));
    x = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(~0x7f800000)),
                                            _mm256_set1_epi32(0x3f000000)));
    __m256 below = _mm256_cmp_ps(x, v_const(0.70710678118654752f), _CMP_LT_OQ);
    __m256 tmp = _mm256_and_ps(x, below);
    x = _mm256_sub_ps(x, v_const(1.0f));
    e = _mm256_sub_ps(e, _mm256_and_ps(v_const(1.0f), below));
    x = _mm256_add_ps(x, tmp);
    __m256 z = _mm256_mul_ps(x, x);
    static const float p[9] = {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f,
                               1.4249322787E-1f, -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f,
                               3.3333331174E-1f};
    __m256 y = v_const(p[0]);
    for (int i = 1; i < 9; i++)
        y = _mm256_fmadd_ps(y, x, v_const(p[i]));
    y = _mm256_mul_ps(y, x);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, v_const(-2.12194440e-4f)));
    y = _mm256_sub_ps(y, _mm256_mul_ps(z, v_const(0.5f)));
    x = _mm256_add_ps(x, y);
    return _mm256_add_ps(x, _mm256_mul_ps(e, v_const(0.693359375f)));
}

/* cephes_sincosf, eight lanes at a time. */
AVX_FN void v_sincosf(__m256 x, __m256 *s, __m256 *c)
{
    __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
    __m256 sign_sin = _mm256_and_ps(x, sign_mask);
    x = _mm256_andnot_ps(sign_mask, x);
    __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, v_const(1.27323954473516f)));
    j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
    __m256 y = _mm256_cvtepi32_ps(j);
    __m256 swap_sin = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
    __m256 poly_sin = _mm256_castsi256_ps(
        _mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
    x = _mm256_fmadd_ps(y, v_const(-0.78515625f), x);
    x = _mm256_fmadd_ps(y, v_const(-2.4187564849853515625e-4f), x);
    x = _mm256_fmadd_ps(y, v_const(-3.77489497744594108e-8f), x);
    __m256i jm2 = _mm256_sub_epi32(j, _mm256_set1_epi32(2));
    __m256 sign_cos = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_andnot_si256(jm2, _mm256_set1_epi32(4)), 29));
    sign_sin = _mm256_xor_ps(sign_sin, swap_sin);
    __m256 z = _mm256_mul_ps(x, x);
    __m256 yc = _mm256_fmadd_ps(v_const(2.443315711809948E-005f), z, v_const(-1.388731625493765E-003f));
    yc = _mm256_fmadd_ps(yc, z, v_const(4.166664568298827E-002f));
    yc = _mm256_mul_ps(yc, z);
    yc = _mm256_fmadd_ps(yc, z, _mm256_sub_ps(_mm256_setzero_ps(), _mm256_mul_ps(z, v_const(0.5f))));
    yc = _mm256_add_ps(yc, v_const(1.0f));
    __m256 ys = _mm256_fmadd_ps(v_const(-1.9515295891E-4f), z, v_const(8.3321608736E-3f));
    ys = _mm256_fmadd_ps(ys, z, v_const(-1.6666654611E-1f));
    ys = _mm256_mul_ps(ys, z);
    ys = _mm256_fmadd_ps(ys, x, x);
    __m256 zero = _mm256_setzero_ps();
    __m256 sin_from_s = v_select(poly_sin, ys, zero), sin_from_c = v_select(poly_sin, zero, yc);
    __m256 cos_from_s = _mm256_sub_ps(ys, sin_from_s), cos_from_c = _mm256_sub_ps(yc, sin_from_c);
    *s = _mm256_xor_ps(_mm256_add_ps(sin_from_c, sin_from_s), sign_sin);
    *c = _mm256_xor_ps(_mm256_add_ps(cos_from_c, cos_from_s), sign_cos);
}

__attribute__((target("avx2,fma"))) static void blocks_f32_fma(float *data, int64_t lo, int64_t hi, float mean,
                                                               float std)
{
    const __m256 two_pi = v_const((float)(2.0 * 3.14159265358979323846)), m = v_const(mean), sd = v_const(std);
    for (int64_t b = lo; b < hi; b++) {
        float *x = data + b * 16;
        __m256 u1 = _mm256_sub_ps(v_const(1.0f), _mm256_loadu_ps(x)), u2 = _mm256_loadu_ps(x + 8);
        __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(v_const(-2.0f), v_logf(u1)));
        __m256 s, c;
        v_sincosf(_mm256_mul_ps(two_pi, u2), &s, &c);
        _mm256_storeu_ps(x, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), sd, m));
        _mm256_storeu_ps(x + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), sd, m));
    }
}
#endif

void lt__normal_blocks_f32(float *data, int64_t lo, int64_t hi, float mean, float std)
{
#ifdef FMA_CLONE
    /* LT_RANDOM_BASELINE=1 forces the baseline loop, so that tests can show
     * both give the same bits. Racing first callers compute the same answer. */
    static int has_fma = -1;
    int use = __atomic_load_n(&has_fma, __ATOMIC_RELAXED);
    if (use < 0) {
        const char *force = getenv("LT_RANDOM_BASELINE");
        __builtin_cpu_init();
        use = !(force && *force == '1') && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        __atomic_store_n(&has_fma, use, __ATOMIC_RELAXED);
    }
    if (use) {
        blocks_f32_fma(data, lo, hi, mean, std);
        return;
    }
#endif
    blocks_f32_baseline(data, lo, hi, mean, std);
}

