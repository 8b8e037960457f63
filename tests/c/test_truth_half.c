/* test_truth_half.c: lt_all_any (truth.c), and the float32 <-> float16
 * casts on both of cast.c's paths. meson runs this file twice: as built
 * (F16C where the CPU has it) and with LT_CAST_BASELINE=1 (the portable
 * loops). Each run holds the dense (vector) and strided (scalar) loops
 * against an independent reference written here with plain integer steps:
 * every half widened, and every float32 rounding boundary narrowed. */
#include <math.h>
#include <stdint.h>

#include "libtensor.h"
#include "minitest.h"

/* ------------------------------------------------------------ references */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float f32_from(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A half's float32 bits: normals re-biased, subnormals normalised by a loop,
 * NaNs quieted with their payload kept. */
static uint32_t ref_widen(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0);
    if (e == 0) {
        if (m == 0)
            return sign;
        int shift = 0;
        while (!(m & 0x400u)) {
            m <<= 1;
            shift++;
        }
        return sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3ffu) << 13);
    }
    return sign | ((e + 112) << 23) | (m << 13);
}

/* float32 bits to a half, round to nearest even, by cases. */
static uint16_t ref_narrow(uint32_t x)
{
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) /* 65520 and up (inf included) */
        return (uint16_t)(sign | 0x7c00u);
    int e = (int)(ax >> 23) - 127;
    uint64_t m = (ax & 0x7fffffu) | (e > -127 ? 0x800000u : 0); /* 24-bit significand */
    if (e == -127)
        e = -126;
    /* value = m * 2^(e - 23); a half's unit in the last place is 2^-24 (subnormal) or 2^(e - 10) */
    int ulp_exp = e < -14 ? -24 : e - 10;
    int drop = ulp_exp - (e - 23);
    if (drop >= 64)
        return (uint16_t)sign;
    uint64_t q = m >> drop, rem = m & ((UINT64_C(1) << drop) - 1), half = UINT64_C(1) << (drop - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    /* q units of 2^ulp_exp; a half's bits are then (biased exponent << 10) + mantissa for normals */
    if (ulp_exp == -24)
        return (uint16_t)(sign | q); /* a carry into 0x400 is the smallest normal: still right */
    uint32_t bits = ((uint32_t)(e + 15) << 10) + (uint32_t)(q - 0x400u);
    return (uint16_t)(sign | bits);
}

/* ------------------------------------------------------------ casts */

static void test_widen_every_half(void)
{
    enum { N = 1 << 16 };
    uint16_t *h = malloc(2 * N * sizeof *h);
    float *f = malloc(N * sizeof *f);
    for (uint32_t i = 0; i < N; i++)
        h[i] = h[N + i] = (uint16_t)i;
    for (int strided = 0; strided < 2; strided++) {
        int64_t shape[1] = {N}, dst_strides[1] = {1}, src_strides[1] = {strided ? 2 : 1};
        CHECK_INT(lt_copy(f, dst_strides, LT_FLOAT32, h, src_strides, LT_FLOAT16, 1, shape), LT_OK);
        int bad = 0;
        for (uint32_t i = 0; i < N; i++) {
            uint16_t src = strided ? h[2 * i] : h[i];
            if (f32_bits(f[i]) != ref_widen(src) && bad++ < 5)
                MT_FAIL("half 0x%04x widened to 0x%08x, expected 0x%08x (strided %d)", src, f32_bits(f[i]),
                        ref_widen(src), strided);
        }
        CHECK_INT(bad, 0);
    }
    free(h);
    free(f);
}

static void test_narrow_every_boundary(void)
{
    /* for every half pattern p: the float32 midpoint above it, one ulp either side, and p itself */
    enum { N = 4 << 16 };
    uint32_t *x = malloc(N * sizeof *x);
    uint16_t *h = malloc(N * sizeof *h);
    size_t n = 0;
    for (uint32_t p = 0; p < (1u << 16); p++) {
        uint32_t exact = ref_widen((uint16_t)p);
        if ((exact & 0x7fffffffu) >= 0x7f800000u)
            exact = 0x7f800000u | (p << 13); /* NaN patterns and inf: keep the raw bits */
        uint32_t mid = exact + 0x1000u;
        x[n++] = exact;
        x[n++] = mid - 1;
        x[n++] = mid;
        x[n++] = mid + 1;
    }
    for (int strided = 0; strided < 2; strided++) {
        int64_t count = strided ? (int64_t)n / 2 : (int64_t)n;
        int64_t shape[1] = {count}, dst_strides[1] = {1}, src_strides[1] = {strided ? 2 : 1};
        CHECK_INT(lt_copy(h, dst_strides, LT_FLOAT16, x, src_strides, LT_FLOAT32, 1, shape), LT_OK);
        int bad = 0;
        for (int64_t i = 0; i < count; i++) {
            uint32_t src = x[strided ? 2 * i : i];
            if (h[i] != ref_narrow(src) && bad++ < 5)
                MT_FAIL("float 0x%08x narrowed to 0x%04x, expected 0x%04x (strided %d)", src, h[i], ref_narrow(src),
                        strided);
        }
        CHECK_INT(bad, 0);
    }
    /* spot values torch gives */
    float v[5] = {65519.0f, 65520.0f, 0x1p-25f, 0x1.000002p-25f, -0.0f};
    uint16_t want[5] = {0x7bff, 0x7c00, 0x0000, 0x0001, 0x8000}, got[5];
    int64_t shape[1] = {5}, unit[1] = {1};
    CHECK_INT(lt_copy(got, unit, LT_FLOAT16, v, unit, LT_FLOAT32, 1, shape), LT_OK);
    for (int i = 0; i < 5; i++)
        CHECK_INT(got[i], want[i]);
    (void)f32_from;
    free(x);
    free(h);
}

/* ------------------------------------------------------------ lt_all_any */

static void test_all_any(void)
{
    float f[6] = {1.0f, -0.0f, NAN, 2.0f, 0.0f, 3.0f}; /* 2 x 3 */
    int64_t shape[2] = {2, 3}, src_strides[2] = {3, 1}, none[2] = {0, 0};
    uint8_t out[3] = {9, 9, 9};
    CHECK_INT(lt_all_any(out, none, LT_BOOL, f, src_strides, LT_FLOAT32, 2, shape, 1), LT_OK);
    CHECK_INT(out[0], 0); /* -0.0 is false */
    CHECK_INT(lt_all_any(out, none, LT_BOOL, f, src_strides, LT_FLOAT32, 2, shape, 0), LT_OK);
    CHECK_INT(out[0], 1);
    /* over dim 0: columns (1, 2), (-0, 0), (nan, 3) */
    int64_t cols[2] = {0, 1};
    CHECK_INT(lt_all_any(out, cols, LT_UINT8, f, src_strides, LT_FLOAT32, 2, shape, 1), LT_OK);
    CHECK_INT(out[0], 1);
    CHECK_INT(out[1], 0);
    CHECK_INT(out[2], 1); /* NaN is true */
    /* over dim 1 of the transposed view: the same columns */
    int64_t tshape[2] = {3, 2}, tstrides[2] = {1, 3}, rows[2] = {1, 0};
    CHECK_INT(lt_all_any(out, rows, LT_BOOL, f, tstrides, LT_FLOAT32, 2, tshape, 0), LT_OK);
    CHECK_INT(out[0], 1);
    CHECK_INT(out[1], 0);
    CHECK_INT(out[2], 1);
    /* empty: all() true, any() false */
    int64_t empty[1] = {0}, unit[1] = {1}, zero[1] = {0};
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, f, unit, LT_FLOAT32, 1, empty, 1), LT_OK);
    CHECK_INT(out[0], 1);
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, f, unit, LT_FLOAT32, 1, empty, 0), LT_OK);
    CHECK_INT(out[0], 0);
    /* a long run: the deciding element last, and a 0-d source */
    enum { N = 100003 };
    int16_t *big = calloc(N, sizeof *big);
    big[N - 1] = 7;
    int64_t bshape[1] = {N};
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, big, unit, LT_INT16, 1, bshape, 0), LT_OK);
    CHECK_INT(out[0], 1);
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, big, unit, LT_INT16, 1, bshape, 1), LT_OK);
    CHECK_INT(out[0], 0);
    CHECK_INT(lt_all_any(out, NULL, LT_BOOL, big + N - 1, NULL, LT_INT16, 0, NULL, 1), LT_OK);
    CHECK_INT(out[0], 1);
    /* complex: either part nonzero */
    float c[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    int64_t two[1] = {2};
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, c, unit, LT_COMPLEX64, 1, two, 1), LT_OK);
    CHECK_INT(out[0], 0);
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, c, unit, LT_COMPLEX64, 1, two, 0), LT_OK);
    CHECK_INT(out[0], 1);
    /* refusals */
    CHECK_INT(lt_all_any(out, zero, LT_INT32, big, unit, LT_INT16, 1, bshape, 1), LT_EDTYPE);
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, big, unit, LT_FLOAT4_E2M1FN_X2, 1, bshape, 1), LT_EDTYPE);
    CHECK_INT(lt_all_any(big, zero, LT_BOOL, big, unit, LT_INT16, 1, bshape, 1), LT_EINVAL); /* overlap */
    CHECK_INT(lt_all_any(out, zero, LT_BOOL, NULL, unit, LT_INT16, 1, bshape, 1), LT_EINVAL);
    free(big);
}

int main(void)
{
    test_widen_every_half();
    test_narrow_every_boundary();
    test_all_any();
    MT_DONE();
}
