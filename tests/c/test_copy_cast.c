/* test_copy_cast.c: lt_copy and lt_fill. Conversions between every dtype
 * pair (values checked against PyTorch 2.13), strided, negative, zero and
 * overlapping views, transposes, zero-size and 0-d shapes, argument errors,
 * and, after every strided write, that bytes around the view are untouched. */
#include <math.h>
#include <stdint.h>

#include "libtensor.h"
#include "minitest.h"

#define GUARD 0xA5

/* A buffer with guard bytes everywhere; the view starts at `origin`. */
typedef struct guarded {
    unsigned char *bytes;
    size_t nbytes;
} guarded;

static guarded guarded_new(size_t nbytes)
{
    guarded g = {malloc(nbytes), nbytes};
    memset(g.bytes, GUARD, nbytes);
    return g;
}

/* Counts bytes outside the view's elements that lost the guard pattern. */
static int guard_damage(const guarded *g, size_t origin, int32_t ndim, const int64_t *shape, const int64_t *strides,
                        size_t itemsize)
{
    unsigned char *inside = calloc(g->nbytes, 1);
    int64_t idx[LT_MAX_NDIM] = {0}, numel = 1;
    for (int32_t d = 0; d < ndim; d++)
        numel *= shape[d];
    for (int64_t e = 0; e < numel; e++) {
        int64_t off = 0, r = e;
        for (int32_t d = ndim - 1; d >= 0; d--) {
            idx[d] = r % shape[d];
            r /= shape[d];
            off += idx[d] * strides[d];
        }
        memset(inside + origin + off * (int64_t)itemsize, 1, itemsize);
    }
    int damage = 0;
    for (size_t i = 0; i < g->nbytes; i++)
        damage += !inside[i] && g->bytes[i] != GUARD;
    free(inside);
    return damage;
}

/* One element converted from src_dtype to dst_dtype, as bytes. */
static void convert1(void *dst, lt_dtype dt, const void *src, lt_dtype st)
{
    CHECK_INT(lt_copy(dst, NULL, dt, src, NULL, st, 0, NULL), LT_OK);
}

static int64_t f64_to_i(double x, lt_dtype dt)
{
    unsigned char out[16] = {0};
    convert1(out, dt, &x, LT_FLOAT64);
    switch (dt) {
    case LT_UINT8: return out[0];
    case LT_INT8: return (int8_t)out[0];
    case LT_UINT16: { uint16_t v; memcpy(&v, out, 2); return v; }
    case LT_INT16: { int16_t v; memcpy(&v, out, 2); return v; }
    case LT_UINT32: { uint32_t v; memcpy(&v, out, 4); return v; }
    case LT_INT32: { int32_t v; memcpy(&v, out, 4); return v; }
    default: { int64_t v; memcpy(&v, out, 8); return v; }
    }
}

static uint64_t f64_to_u64(double x)
{
    uint64_t v;
    convert1(&v, LT_UINT64, &x, LT_FLOAT64);
    return v;
}

static uint16_t f32_to_half(float x, lt_dtype dt)
{
    uint16_t h;
    convert1(&h, dt, &x, LT_FLOAT32);
    return h;
}

static float half_to_f32(uint16_t h, lt_dtype dt)
{
    float f;
    convert1(&f, LT_FLOAT32, &h, dt);
    return f;
}

/* Out-of-range float -> int follows x86-64's truncating conversions as torch
 * compiles them; every value here was read from torch 2.13. */
static void test_float_to_int_rules(void)
{
    CHECK_INT(f64_to_i(300.5, LT_UINT8), 44);
    CHECK_INT(f64_to_i(-1.5, LT_UINT8), 255);
    CHECK_INT(f64_to_i(-300.5, LT_UINT8), 212);
    CHECK_INT(f64_to_i(4294967301.0, LT_UINT8), 5); /* uint8 goes through int64 */
    CHECK_INT(f64_to_i(4294967301.0, LT_INT8), 0);  /* int8 goes through int32 */
    CHECK_INT(f64_to_i(-300.5, LT_INT8), -44);
    CHECK_INT(f64_to_i(1e10, LT_INT16), 0);
    CHECK_INT(f64_to_i(-1.5, LT_UINT16), 65535);
    CHECK_INT(f64_to_i(1e10, LT_INT32), INT32_MIN);
    CHECK_INT(f64_to_i(NAN, LT_INT32), INT32_MIN);
    CHECK_INT(f64_to_i(-INFINITY, LT_INT32), INT32_MIN);
    CHECK_INT(f64_to_i(1e10, LT_UINT32), 1410065408);
    CHECK_INT(f64_to_i(-1e10, LT_UINT32), 2884901888);
    CHECK_INT(f64_to_i(1e10, LT_INT64), 10000000000);
    CHECK_INT(f64_to_i(NAN, LT_INT64), INT64_MIN);
    CHECK_INT(f64_to_i(1e20, LT_INT64), INT64_MIN);
    CHECK(f64_to_u64(NAN) == UINT64_C(9223372036854775808));
    CHECK(f64_to_u64(INFINITY) == 0);
    CHECK(f64_to_u64(-INFINITY) == UINT64_C(9223372036854775808));
    CHECK(f64_to_u64(-1.5) == UINT64_MAX);
    CHECK(f64_to_u64(0x1p63) == UINT64_C(9223372036854775808));
    CHECK(f64_to_u64(0x1p64) == 0);
    CHECK(f64_to_u64(-1e10) == UINT64_C(18446744063709551616));
    float f = 2.9f; /* plain truncation toward zero in range */
    int32_t i;
    convert1(&i, LT_INT32, &f, LT_FLOAT32);
    CHECK_INT(i, 2);
    f = -2.9f;
    convert1(&i, LT_INT32, &f, LT_FLOAT32);
    CHECK_INT(i, -2);
}

static void test_half_rounding(void)
{
    CHECK_INT(f32_to_half(1.0f, LT_FLOAT16), 0x3c00);
    CHECK_INT(f32_to_half(65504.0f, LT_FLOAT16), 0x7bff);
    CHECK_INT(f32_to_half(65519.0f, LT_FLOAT16), 0x7bff);
    CHECK_INT(f32_to_half(65520.0f, LT_FLOAT16), 0x7c00); /* the tie rounds to even: inf */
    CHECK_INT(f32_to_half(2049.0f, LT_FLOAT16), 0x6800);  /* 2048: tie to even */
    CHECK_INT(f32_to_half(2051.0f, LT_FLOAT16), 0x6802);  /* 2052: tie to even */
    CHECK_INT(f32_to_half(0x1p-24f, LT_FLOAT16), 0x0001); /* smallest subnormal */
    CHECK_INT(f32_to_half(0x1p-25f, LT_FLOAT16), 0x0000); /* tie to even: zero */
    CHECK_INT(f32_to_half(0x1.8p-25f, LT_FLOAT16), 0x0001);
    CHECK_INT(f32_to_half(0x1.ffcp-15f, LT_FLOAT16), 0x0400); /* a subnormal rounding up to normal */
    CHECK_INT(f32_to_half(-0.0f, LT_FLOAT16), 0x8000);
    CHECK_INT(f32_to_half(-INFINITY, LT_FLOAT16), 0xfc00);
    CHECK_INT(f32_to_half(NAN, LT_FLOAT16) & 0x7e00, 0x7e00);
    CHECK_INT(f32_to_half(1.0f + 0x1p-8f, LT_BFLOAT16), 0x3f80); /* tie to even */
    CHECK_INT(f32_to_half(1.0f + 0x3p-8f, LT_BFLOAT16), 0x3f82);
    CHECK_INT(f32_to_half(3.4e38f, LT_BFLOAT16), 0x7f80); /* overflows to inf */
    CHECK_INT(f32_to_half(NAN, LT_BFLOAT16), 0x7fc0);
    CHECK_DBL(half_to_f32(0x0001, LT_FLOAT16), 0x1p-24);
    CHECK_DBL(half_to_f32(0x03ff, LT_FLOAT16), 0x3ffp-24);
    CHECK_DBL(half_to_f32(0xc000, LT_FLOAT16), -2.0);
    CHECK_DBL(half_to_f32(0x7c00, LT_FLOAT16), INFINITY);
    CHECK(isnan(half_to_f32(0x7c01, LT_FLOAT16)));
    CHECK_DBL(half_to_f32(0x3f80, LT_BFLOAT16), 1.0);
    /* float64 and int64 sources round to float32 first, as torch does */
    double d = 1.0 + 0x1p-11 + 0x1p-40;
    uint16_t h;
    convert1(&h, LT_FLOAT16, &d, LT_FLOAT64);
    CHECK_INT(h, 0x3c00);
    int64_t big = (1 << 24) + (1 << 16) + 1;
    convert1(&h, LT_BFLOAT16, &big, LT_INT64);
    CHECK_INT(h, 0x4b80); /* 2^24, not 2^24 + 2^17 */
}

static void test_other_conversions(void)
{
    double nan = NAN, half = 0.5, zero = -0.0;
    uint8_t b;
    convert1(&b, LT_BOOL, &nan, LT_FLOAT64);
    CHECK_INT(b, 1);
    convert1(&b, LT_BOOL, &half, LT_FLOAT64);
    CHECK_INT(b, 1);
    convert1(&b, LT_BOOL, &zero, LT_FLOAT64);
    CHECK_INT(b, 0);
    float c[2] = {0.0f, 2.0f}; /* complex64 0+2i */
    convert1(&b, LT_BOOL, c, LT_COMPLEX64);
    CHECK_INT(b, 1);
    double re;
    c[0] = -1.5f;
    convert1(&re, LT_FLOAT64, c, LT_COMPLEX64);
    CHECK_DBL(re, -1.5);
    int16_t i16 = -7;
    double z[2] = {9, 9};
    convert1(z, LT_COMPLEX128, &i16, LT_INT16);
    CHECK_DBL(z[0], -7.0);
    CHECK_DBL(z[1], 0.0);
    int64_t neg = -1;
    uint8_t u8;
    convert1(&u8, LT_UINT8, &neg, LT_INT64);
    CHECK_INT(u8, 255);
    uint8_t odd_bool = 7; /* any non-zero byte reads as true */
    int32_t i32;
    convert1(&i32, LT_INT32, &odd_bool, LT_BOOL);
    CHECK_INT(i32, 1);
    uint64_t u64 = UINT64_MAX;
    float f;
    convert1(&f, LT_FLOAT32, &u64, LT_UINT64);
    CHECK_DBL(f, 0x1p64);
}

/* Every pair: small integers survive a round trip through any dtype. */
static void test_all_pairs_round_trip(void)
{
    const double vals[4] = {0, 1, 3, 100};
    for (int s = 0; s < LT_DTYPE_COUNT; s++) {
        for (int d = 0; d < LT_DTYPE_COUNT; d++) {
            if (s == LT_FLOAT4_E2M1FN_X2 || d == LT_FLOAT4_E2M1FN_X2)
                continue; /* storage only: test_low_precision */
            for (int v = 0; v < 4; v++) {
                if ((s == LT_FLOAT8_E8M0FNU || d == LT_FLOAT8_E8M0FNU) && vals[v] != 1)
                    continue; /* powers of two only, and no zero */
                if ((s >= LT_FLOAT8_E4M3FN || d >= LT_FLOAT8_E4M3FN) && vals[v] == 100)
                    continue; /* e4m3 holds 96 and 104 */
                unsigned char a[16] = {0}, m[16] = {0};
                double back = -1;
                double x = (s == LT_BOOL || d == LT_BOOL) ? (vals[v] != 0) : vals[v];
                convert1(a, (lt_dtype)s, &x, LT_FLOAT64);
                convert1(m, (lt_dtype)d, a, (lt_dtype)s);
                convert1(&back, LT_FLOAT64, m, (lt_dtype)d);
                if (back != x)
                    MT_FAIL("%s -> %s lost %g (got %g)", lt_dtype_name(s), lt_dtype_name(d), x, back);
            }
        }
    }
}

static void test_header_example(void)
{
    float f[8];
    for (int i = 0; i < 8; i++)
        f[i] = (float)i;
    int64_t shape[1] = {4}, unit[1] = {1};
    CHECK_INT(lt_copy(f + 2, unit, LT_FLOAT32, f + 0, unit, LT_FLOAT32, 1, shape), LT_OK);
    const float want[8] = {0, 1, 0, 1, 2, 3, 6, 7};
    for (int i = 0; i < 8; i++)
        CHECK_DBL(f[i], want[i]);
    /* the other direction, and a reversal onto itself */
    for (int i = 0; i < 8; i++)
        f[i] = (float)i;
    CHECK_INT(lt_copy(f + 0, unit, LT_FLOAT32, f + 2, unit, LT_FLOAT32, 1, shape), LT_OK);
    CHECK_DBL(f[0], 2);
    CHECK_DBL(f[3], 5);
    int64_t s8[1] = {8}, rev[1] = {-1};
    CHECK_INT(lt_copy(f, unit, LT_FLOAT32, f + 7, rev, LT_FLOAT32, 1, s8), LT_OK);
    CHECK_DBL(f[0], 7);
    CHECK_DBL(f[7], 2);
}

/* A strided, negative-stride write into the middle of a guarded buffer. */
static void test_strided_writes_keep_guards(void)
{
    int64_t shape[2] = {3, 4};
    int64_t dst_strides[2] = {-10, 3}; /* rows backwards, every third element */
    size_t origin = 64 + 20 * 8;      /* element [0][0] of the view */
    guarded g = guarded_new(512);
    int32_t src[12];
    for (int i = 0; i < 12; i++)
        src[i] = i * 11 - 40;
    int64_t src_strides[2] = {4, 1};
    CHECK_INT(lt_copy(g.bytes + origin, dst_strides, LT_INT64, src, src_strides, LT_INT32, 2, shape), LT_OK);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            int64_t v;
            memcpy(&v, g.bytes + origin + (i * dst_strides[0] + j * dst_strides[1]) * 8, 8);
            CHECK_INT(v, src[i * 4 + j]);
        }
    }
    CHECK_INT(guard_damage(&g, origin, 2, shape, dst_strides, 8), 0);
    /* broadcasting: a zero-stride source row fills every row */
    int64_t bcast[2] = {0, 1};
    CHECK_INT(lt_copy(g.bytes + origin, dst_strides, LT_INT64, src, bcast, LT_INT32, 2, shape), LT_OK);
    int64_t v;
    memcpy(&v, g.bytes + origin + (2 * dst_strides[0] + 3 * dst_strides[1]) * 8, 8);
    CHECK_INT(v, src[3]);
    CHECK_INT(guard_damage(&g, origin, 2, shape, dst_strides, 8), 0);
    /* odd byte alignment: float16 view at an odd address */
    int64_t s5[1] = {5}, unit[1] = {1}, two[1] = {2};
    float five[5] = {1, 2, 3, 4, 5};
    memset(g.bytes, GUARD, g.nbytes);
    CHECK_INT(lt_copy(g.bytes + 301, two, LT_FLOAT16, five, unit, LT_FLOAT32, 1, s5), LT_OK);
    CHECK_INT(guard_damage(&g, 301, 1, s5, two, 2), 0);
    float back[5];
    CHECK_INT(lt_copy(back, unit, LT_FLOAT32, g.bytes + 301, two, LT_FLOAT16, 1, s5), LT_OK);
    CHECK_DBL(back[4], 5);
    free(g.bytes);
}

static void test_shapes(void)
{
    /* ndim 0 copies one element */
    double x = 2.75;
    float y = 0;
    CHECK_INT(lt_copy(&y, NULL, LT_FLOAT32, &x, NULL, LT_FLOAT64, 0, NULL), LT_OK);
    CHECK_DBL(y, 2.75);
    /* zero-size: nothing written, NULL pointers fine */
    int64_t empty[2] = {3, 0}, st[2] = {0, 0};
    CHECK_INT(lt_copy(NULL, st, LT_INT8, NULL, st, LT_FLOAT32, 2, empty), LT_OK);
    guarded g = guarded_new(64);
    int64_t s2[2] = {2, 1};
    CHECK_INT(lt_copy(g.bytes, s2, LT_INT8, g.bytes + 8, s2, LT_INT8, 2, empty), LT_OK);
    CHECK_INT(guard_damage(&g, 0, 0, NULL, NULL, 1), 0);
    free(g.bytes);
    /* 64 dimensions, mostly extent 1, with two real ones in the middle */
    int64_t shape[LT_MAX_NDIM], sd[LT_MAX_NDIM], ss[LT_MAX_NDIM];
    for (int d = 0; d < LT_MAX_NDIM; d++)
        shape[d] = 1, sd[d] = 1000, ss[d] = -7;
    shape[20] = 3, sd[20] = 1, ss[20] = 1;
    shape[40] = 2, sd[40] = 3, ss[40] = 3;
    int16_t src[6] = {1, 2, 3, 4, 5, 6}, dst[6] = {0};
    CHECK_INT(lt_copy(dst, sd, LT_INT16, src, ss, LT_INT16, LT_MAX_NDIM, shape), LT_OK);
    CHECK_INT(dst[1], 2); /* index [20]=1, [40]=0 */
    CHECK_INT(dst[3], 4); /* index [20]=0, [40]=1: offset 3 in both */
    CHECK_INT(dst[0], 1);
    CHECK_INT(dst[5], 6);
}

static void test_errors(void)
{
    float a[4] = {0}, b[4] = {0};
    int64_t shape[1] = {4}, unit[1] = {1};
    CHECK_INT(lt_copy(a, unit, (lt_dtype)99, b, unit, LT_FLOAT32, 1, shape), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "99") != NULL);
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, b, unit, (lt_dtype)-1, 1, shape), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "-1") != NULL);
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, b, unit, LT_FLOAT32, 65, shape), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "65") != NULL);
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, b, unit, LT_FLOAT32, -1, shape), LT_EINVAL);
    CHECK_INT(lt_copy(NULL, unit, LT_FLOAT32, b, unit, LT_FLOAT32, 1, shape), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "4 elements") != NULL);
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, NULL, unit, LT_FLOAT32, 1, shape), LT_EINVAL);
    CHECK_INT(lt_copy(a, NULL, LT_FLOAT32, b, unit, LT_FLOAT32, 1, shape), LT_EINVAL);
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, b, unit, LT_FLOAT32, 1, NULL), LT_EINVAL);
    int64_t neg[1] = {-2}, huge[1] = {INT64_MAX / 2};
    CHECK_INT(lt_copy(a, unit, LT_FLOAT32, b, unit, LT_FLOAT32, 1, neg), LT_EINVAL);
    CHECK_INT(lt_copy(a, huge, LT_FLOAT32, b, unit, LT_FLOAT32, 1, shape), LT_EOVERFLOW);
    CHECK_INT(lt_fill(a, unit, LT_FLOAT32, NULL, LT_FLOAT32, 1, shape), LT_EINVAL);
    CHECK_INT(lt_fill(a, unit, LT_FLOAT32, b, LT_DTYPE_COUNT, 1, shape), LT_EDTYPE);
}

static void test_fill(void)
{
    guarded g = guarded_new(256);
    int64_t shape[2] = {3, 2}, strides[2] = {-5, 2};
    size_t origin = 100;
    double v = -2.5;
    CHECK_INT(lt_fill(g.bytes + origin, strides, LT_INT32, &v, LT_FLOAT64, 2, shape), LT_OK);
    int32_t got;
    memcpy(&got, g.bytes + origin + (2 * -5 + 1 * 2) * 4, 4);
    CHECK_INT(got, -2);
    CHECK_INT(guard_damage(&g, origin, 2, shape, strides, 4), 0);
    free(g.bytes);
    /* the value may live inside the filled view */
    uint16_t h[5] = {0, 0, 0x3c00, 0, 0};
    int64_t s5[1] = {5}, unit[1] = {1};
    CHECK_INT(lt_fill(h, unit, LT_FLOAT16, &h[2], LT_FLOAT16, 1, s5), LT_OK);
    CHECK_INT(h[0], 0x3c00);
    CHECK_INT(h[4], 0x3c00);
    /* a complex fill of a real view keeps the real part */
    float c[2] = {3, 4};
    double d[5];
    CHECK_INT(lt_fill(d, unit, LT_FLOAT64, c, LT_COMPLEX64, 1, s5), LT_OK);
    CHECK_DBL(d[3], 3);
    /* a 0-d fill */
    int8_t one = 0;
    int64_t big = 300;
    CHECK_INT(lt_fill(&one, NULL, LT_INT8, &big, LT_INT64, 0, NULL), LT_OK);
    CHECK_INT(one, 44);
}

/* The fill's blocked inner loop: every itemsize, every length around its
 * 32-element blocks, dense and strided, from an address aligned to nothing
 * but a byte: every element holds the value and no byte around it moves. */
static void test_fill_blocks(void)
{
    static const lt_dtype dtypes[] = {LT_UINT8, LT_INT16, LT_FLOAT32, LT_FLOAT64, LT_COMPLEX128};
    const double value[2] = {-3.0, 7.0}; /* as complex128: -3+7j; as the others, the real part */
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        size_t itemsize = lt_dtype_itemsize(dtypes[k]);
        unsigned char want[16];
        CHECK_INT(lt_copy(want, NULL, dtypes[k], value, NULL, LT_COMPLEX128, 0, NULL), LT_OK);
        for (int64_t n = 0; n <= 1030; n += n < 70 ? 1 : 239) {
            for (int64_t step = 1; step <= 3; step += 2) {
                int64_t shape[1] = {n}, strides[1] = {step};
                size_t origin = 16 + 1; /* odd: no element is aligned to its size */
                guarded g = guarded_new(origin + (size_t)(n * step) * itemsize + 16);
                CHECK_INT(lt_fill(g.bytes + origin, strides, dtypes[k], value, LT_COMPLEX128, 1, shape), LT_OK);
                int wrong = 0;
                for (int64_t i = 0; i < n; i++)
                    wrong += memcmp(g.bytes + origin + (size_t)(i * step) * itemsize, want, itemsize) != 0;
                CHECK_INT(wrong, 0);
                CHECK_INT(guard_damage(&g, origin, 1, shape, strides, itemsize), 0);
                free(g.bytes);
            }
        }
    }
}

/* x.T.contiguous() and relatives: tiles, conversion, batches, threads. */
static void test_transposes(void)
{
    enum { R = 300, C = 170 };
    float *src = malloc(sizeof(float) * R * C);
    double *dst = malloc(sizeof(double) * R * C);
    for (int i = 0; i < R * C; i++)
        src[i] = (float)i;
    int64_t shape[2] = {C, R}, ts[2] = {1, C}, ds[2] = {R, 1};
    CHECK_INT(lt_copy(dst, ds, LT_FLOAT64, src, ts, LT_FLOAT32, 2, shape), LT_OK);
    int bad = 0;
    for (int i = 0; i < C; i++)
        for (int j = 0; j < R; j++)
            bad += dst[i * R + j] != src[j * C + i];
    CHECK_INT(bad, 0);
    /* a batch of 3 transposes of 10 x 170 (the batch stride is outermost) */
    int64_t bshape[3] = {3, C, 10}, bts[3] = {10 * C, 1, C}, bds[3] = {10 * C, 10, 1};
    CHECK_INT(lt_copy(dst, bds, LT_FLOAT64, src, bts, LT_FLOAT32, 3, bshape), LT_OK);
    bad = 0;
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < C; i++)
            for (int j = 0; j < 10; j++)
                bad += dst[b * 10 * C + i * 10 + j] != src[b * 10 * C + j * C + i];
    CHECK_INT(bad, 0);
    free(src);
    free(dst);
    /* big enough to use threads: 1100 x 900 int32 */
    enum { N = 1100, M = 900 };
    int32_t *a = malloc(sizeof(int32_t) * N * M), *t = malloc(sizeof(int32_t) * N * M);
    for (int i = 0; i < N * M; i++)
        a[i] = i;
    int64_t s2[2] = {M, N}, as[2] = {1, M}, cs[2] = {N, 1};
    lt_set_num_threads(2);
    CHECK_INT(lt_copy(t, cs, LT_INT32, a, as, LT_INT32, 2, s2), LT_OK);
    bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            bad += t[i * N + j] != a[j * M + i];
    CHECK_INT(bad, 0);
    free(a);
    free(t);
    /* same-dtype transposes of every element size, reading src backwards */
    const lt_dtype kinds[4] = {LT_UINT8, LT_FLOAT16, LT_FLOAT64, LT_COMPLEX128};
    enum { P = 70, Q = 300 };
    for (int k = 0; k < 4; k++) {
        size_t isz = lt_dtype_itemsize(kinds[k]);
        unsigned char *s = malloc(isz * P * Q), *d = malloc(isz * P * Q);
        for (size_t i = 0; i < isz * P * Q; i++)
            s[i] = (unsigned char)(i * 7 + i / 251);
        /* d[i][j] = s[Q-1-j][i]: src is Q x P row-major, read transposed with its rows reversed */
        int64_t tshape[2] = {P, Q}, tsrc[2] = {1, -P}, tdst[2] = {Q, 1};
        CHECK_INT(lt_copy(d, tdst, kinds[k], s + (size_t)(Q - 1) * P * isz, tsrc, kinds[k], 2, tshape), LT_OK);
        bad = 0;
        for (int i = 0; i < P; i++)
            for (int j = 0; j < Q; j++)
                bad += memcmp(d + ((size_t)i * Q + j) * isz, s + ((size_t)(Q - 1 - j) * P + i) * isz, isz) != 0;
        if (bad)
            MT_FAIL("%s transpose: %d elements wrong", lt_dtype_name(kinds[k]), bad);
        free(s);
        free(d);
    }
}

static void test_threads_and_large_copies(void)
{
    lt_set_num_threads(0);
    CHECK_INT(lt_get_num_threads(), 1);
    lt_set_num_threads(100);
    CHECK_INT(lt_get_num_threads(), 8);
    lt_set_num_threads(2);
    CHECK_INT(lt_get_num_threads(), 2);
    enum { N = 1 << 21 };
    float *f = malloc(sizeof(float) * N);
    uint16_t *h = malloc(sizeof(uint16_t) * N);
    for (int i = 0; i < N; i++)
        f[i] = (float)(i % 4096) * 0.25f;
    int64_t shape[1] = {N}, unit[1] = {1};
    CHECK_INT(lt_copy(h, unit, LT_BFLOAT16, f, unit, LT_FLOAT32, 1, shape), LT_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += half_to_f32(h[i], LT_BFLOAT16) != f[i] && (i % 4096) < 256;
    CHECK_INT(bad, 0);
    /* a large overlapping shift still behaves as if through a temporary */
    int64_t n1[1] = {N - 1};
    CHECK_INT(lt_copy(f + 1, unit, LT_FLOAT32, f, unit, LT_FLOAT32, 1, n1), LT_OK);
    CHECK_DBL(f[1], 0);
    CHECK_DBL(f[4096], 1023.75);
    /* in-place conversion of an identical view (int32 -> float32 bytes) */
    int32_t *iv = (int32_t *)(void *)f;
    for (int i = 0; i < N; i++)
        iv[i] = i - 5;
    CHECK_INT(lt_copy(f, unit, LT_FLOAT32, f, unit, LT_INT32, 1, shape), LT_OK);
    CHECK_DBL(f[0], -5);
    CHECK_DBL(f[N - 1], N - 6);
    free(f);
    free(h);
}

/* One float32 through a float8 dtype and back: the byte, then the value. */
static uint8_t f32_to_fp8(float x, lt_dtype dt)
{
    uint8_t b = 0xAA;
    convert1(&b, dt, &x, LT_FLOAT32);
    return b;
}
static float fp8_to_f32(uint8_t b, lt_dtype dt)
{
    float x = -1;
    convert1(&x, LT_FLOAT32, &b, dt);
    return x;
}

/* The float8 codecs on the values that define each format (torch 2.13's
 * bytes; tests/binding/test_float8.py checks every byte and 1.3 million floats
 * against torch itself), and float4_e2m1fn_x2's refusals. */
static void test_low_precision(void)
{
    CHECK_INT(f32_to_fp8(1.5f, LT_FLOAT8_E4M3FN), 0x3c);
    CHECK_INT(f32_to_fp8(448.0f, LT_FLOAT8_E4M3FN), 0x7e);
    CHECK_INT(f32_to_fp8(1e6f, LT_FLOAT8_E4M3FN), 0x7e);        /* saturates */
    CHECK_INT(f32_to_fp8(-INFINITY, LT_FLOAT8_E4M3FN), 0xfe);
    CHECK_INT(f32_to_fp8(NAN, LT_FLOAT8_E4M3FN), 0x7f);
    CHECK_INT(f32_to_fp8(0x1p-10f, LT_FLOAT8_E4M3FN), 0x00);    /* half the smallest subnormal: ties to even */
    CHECK_DBL(fp8_to_f32(0x01, LT_FLOAT8_E4M3FN), 0x1p-9);
    CHECK_INT(f32_to_fp8(1e6f, LT_FLOAT8_E5M2), 0x7c);          /* overflows to infinity */
    CHECK_INT(f32_to_fp8(57344.0f, LT_FLOAT8_E5M2), 0x7b);
    CHECK_INT(f32_to_fp8(61440.0f, LT_FLOAT8_E5M2), 0x7c);      /* the tie above the largest rounds up */
    CHECK_INT(f32_to_fp8(-0.0f, LT_FLOAT8_E4M3FNUZ), 0x00);     /* fnuz: no negative zero */
    CHECK_INT(f32_to_fp8(248.0f, LT_FLOAT8_E4M3FNUZ), 0x80);    /* rounds past 240: NaN */
    CHECK_INT(f32_to_fp8(0x1p-17f, LT_FLOAT8_E5M2FNUZ), 0x01);
    CHECK(isnan(fp8_to_f32(0x80, LT_FLOAT8_E5M2FNUZ)));
    CHECK_INT(f32_to_fp8(1.5f, LT_FLOAT8_E8M0FNU), 0x80);       /* ties go up to 2 */
    CHECK_INT(f32_to_fp8(-4.0f, LT_FLOAT8_E8M0FNU), 0x81);      /* the sign is dropped */
    CHECK_DBL(fp8_to_f32(0x00, LT_FLOAT8_E8M0FNU), 0x1p-127);
    int32_t i = 7;
    convert1(&i, LT_INT32, (uint8_t[]){0x80}, LT_FLOAT8_E4M3FNUZ);
    CHECK_INT(i, 0); /* the fnuz NaN converts to integer 0, as torch */

    uint8_t packed[2] = {0x12, 0x34}, copy[2] = {0};
    float f = 1;
    int64_t shape[1] = {2}, unit[1] = {1};
    CHECK_INT(lt_copy(copy, unit, LT_FLOAT4_E2M1FN_X2, packed, unit, LT_FLOAT4_E2M1FN_X2, 1, shape), LT_OK);
    CHECK_INT(copy[1], 0x34);
    CHECK_INT(lt_copy(&f, NULL, LT_FLOAT32, packed, NULL, LT_FLOAT4_E2M1FN_X2, 0, NULL), LT_EDTYPE);
    CHECK_STR(lt_last_error(), "no conversion from float4_e2m1fn_x2 to float32: float4_e2m1fn_x2 is a "
                               "storage-only dtype (as in torch)");
    CHECK_INT(lt_fill(packed, unit, LT_FLOAT4_E2M1FN_X2, &f, LT_FLOAT32, 1, shape), LT_EDTYPE);
    uint8_t out[2];
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT8_E5M2, 1, shape, out, unit, packed, unit, packed, unit), LT_EDTYPE);
    CHECK_INT(lt_binary(LT_OP_EQ, LT_FLOAT8_E5M2, 1, shape, out, unit, packed, unit, packed, unit), LT_EDTYPE);
    CHECK_INT(lt_sum(&f, NULL, LT_FLOAT32, packed, unit, LT_FLOAT8_E4M3FN, 1, shape), LT_EDTYPE);
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, 8, 1), LT_OK);
    double start = 0, step = 1;
    CHECK_INT(lt_fill_arange(s, LT_FLOAT4_E2M1FN_X2, 4, &start, &step, LT_FLOAT64), LT_EDTYPE);
    lt_storage_release(s);
}

int main(void)
{
    test_float_to_int_rules();
    test_half_rounding();
    test_other_conversions();
    test_all_pairs_round_trip();
    test_header_example();
    test_strided_writes_keep_guards();
    test_shapes();
    test_errors();
    test_fill();
    test_fill_blocks();
    test_transposes();
    test_threads_and_large_copies();
    test_low_precision();
    MT_DONE();
}
