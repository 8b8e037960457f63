/* test_ops.c: lt_binary and lt_sum. Wrapping integer arithmetic, bool and
 * complex rules, refusals, broadcasting with zero strides, aliasing of out
 * with an input, guard bytes around strided outputs, and summation over
 * every kind of reduced-dimension layout, with pairwise accuracy. */
#include <math.h>
#include <stdint.h>

#include "libtensor.h"
#include "minitest.h"

static int64_t unit[1] = {1}, zero1[1] = {0};

/* out = a op b over n dense elements. */
static lt_status bin1(lt_binop op, lt_dtype dt, int64_t n, void *out, const void *a, const void *b)
{
    int64_t shape[1] = {n};
    return lt_binary(op, dt, 1, shape, out, unit, a, unit, b, unit);
}

static void test_integer_wrapping(void)
{
    int8_t a8[3] = {127, -128, 100}, b8[3] = {1, -1, 100}, o8[3];
    CHECK_INT(bin1(LT_OP_ADD, LT_INT8, 3, o8, a8, b8), LT_OK);
    CHECK_INT(o8[0], -128);
    CHECK_INT(o8[1], 127);
    CHECK_INT(o8[2], -56);
    CHECK_INT(bin1(LT_OP_MUL, LT_INT8, 3, o8, a8, b8), LT_OK);
    CHECK_INT(o8[2], 16); /* 10000 mod 256 */
    uint16_t a16[1] = {65535}, o16[1];
    CHECK_INT(bin1(LT_OP_MUL, LT_UINT16, 1, o16, a16, a16), LT_OK);
    CHECK_INT(o16[0], 1); /* would overflow int if promoted naively */
    int64_t a64[2] = {INT64_MAX, INT64_MIN}, b64[2] = {1, 1}, o64[2];
    CHECK_INT(bin1(LT_OP_ADD, LT_INT64, 2, o64, a64, b64), LT_OK);
    CHECK(o64[0] == INT64_MIN);
    CHECK_INT(bin1(LT_OP_SUB, LT_INT64, 2, o64, a64, b64), LT_OK);
    CHECK(o64[1] == INT64_MAX);
    int32_t a32[1] = {INT32_MAX}, o32[1];
    CHECK_INT(bin1(LT_OP_MUL, LT_INT32, 1, o32, a32, a32), LT_OK);
    CHECK_INT(o32[0], 1);
    uint32_t u0[1] = {0}, u1[1] = {1}, uo[1];
    CHECK_INT(bin1(LT_OP_SUB, LT_UINT32, 1, uo, u0, u1), LT_OK);
    CHECK(uo[0] == UINT32_MAX);
}

static void test_bool_and_refusals(void)
{
    uint8_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1}, o[4];
    CHECK_INT(bin1(LT_OP_ADD, LT_BOOL, 4, o, a, b), LT_OK);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1 && o[3] == 1);
    CHECK_INT(bin1(LT_OP_MUL, LT_BOOL, 4, o, a, b), LT_OK);
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 1);
    CHECK_INT(bin1(LT_OP_LT, LT_BOOL, 4, o, a, b), LT_OK);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 0 && o[3] == 0);
    CHECK_INT(bin1(LT_OP_SUB, LT_BOOL, 4, o, a, b), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "bool") != NULL);
    CHECK_INT(bin1(LT_OP_DIV, LT_BOOL, 4, o, a, b), LT_EDTYPE);
    int32_t i[1] = {1};
    CHECK_INT(bin1(LT_OP_DIV, LT_INT32, 1, i, i, i), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "int32") != NULL);
    float c[2] = {1, 2};
    CHECK_INT(bin1(LT_OP_LT, LT_COMPLEX64, 1, o, c, c), LT_EDTYPE);
    CHECK_INT(bin1(LT_OP_GE, LT_COMPLEX128, 1, o, c, c), LT_EDTYPE);
    CHECK_INT(bin1((lt_binop)10, LT_FLOAT32, 1, o, c, c), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "10") != NULL);
    CHECK_INT(bin1((lt_binop)-1, LT_FLOAT32, 1, o, c, c), LT_EINVAL);
    CHECK_INT(bin1(LT_OP_ADD, (lt_dtype)42, 1, o, c, c), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "42") != NULL);
    int64_t shape[1] = {1};
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT32, 65, shape, o, unit, c, unit, c, unit), LT_EINVAL);
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT32, 1, shape, NULL, unit, c, unit, c, unit), LT_EINVAL);
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT32, 1, shape, o, unit, c, NULL, c, unit), LT_EINVAL);
    int64_t none[1] = {0};
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT32, 1, none, NULL, unit, NULL, unit, NULL, unit), LT_OK);
}

static void test_floats(void)
{
    float a[4] = {1, -2, 0, NAN}, b[4] = {4, 0.5f, 0, NAN}, o[4];
    uint8_t m[4];
    CHECK_INT(bin1(LT_OP_DIV, LT_FLOAT32, 4, o, a, b), LT_OK);
    CHECK_DBL(o[0], 0.25);
    CHECK_DBL(o[1], -4);
    CHECK(isnan(o[2]) && isnan(o[3]));
    CHECK_INT(bin1(LT_OP_NE, LT_FLOAT32, 4, m, a, b), LT_OK);
    CHECK(m[0] == 1 && m[2] == 0 && m[3] == 1); /* NaN != NaN */
    CHECK_INT(bin1(LT_OP_LE, LT_FLOAT32, 4, m, a, b), LT_OK);
    CHECK(m[0] == 1 && m[1] == 1 && m[2] == 1 && m[3] == 0);
    /* float16: 2048 + 1 rounds once, to even (2048); 1 + 2^-10 is exact */
    uint16_t h[2] = {0x6800, 0x3c00}, one[2] = {0x3c00, 0x1400}, ho[2];
    CHECK_INT(bin1(LT_OP_ADD, LT_FLOAT16, 2, ho, h, one), LT_OK);
    CHECK_INT(ho[0], 0x6800);
    CHECK_INT(ho[1], 0x3c01);
    /* bfloat16 multiply: 3 * 3 = 9 */
    uint16_t t[1] = {0x4040}, t9[1];
    CHECK_INT(bin1(LT_OP_MUL, LT_BFLOAT16, 1, t9, t, t), LT_OK);
    CHECK_INT(t9[0], 0x4110);
}

static void test_complex(void)
{
    float a[4] = {1, 2, 1, 0}, b[4] = {3, 4, 0, 0}, o[4];
    CHECK_INT(bin1(LT_OP_MUL, LT_COMPLEX64, 2, o, a, b), LT_OK);
    CHECK_DBL(o[0], -5);
    CHECK_DBL(o[1], 10);
    CHECK_INT(bin1(LT_OP_DIV, LT_COMPLEX64, 2, o, a, b), LT_OK);
    CHECK(fabs(o[0] - 0.44) < 1e-6 && fabs(o[1] - 0.08) < 1e-6);
    CHECK(isinf(o[2]) && isnan(o[3])); /* (1+0i)/0 = inf + nan i, as torch */
    double big[2] = {1e300, 1e300}, bd[2] = {1e300, 1e300}, q[2];
    CHECK_INT(bin1(LT_OP_DIV, LT_COMPLEX128, 1, q, big, bd), LT_OK);
    CHECK_DBL(q[0], 1); /* Smith's scaling: no overflow in c^2 + d^2 */
    CHECK_DBL(q[1], 0);
    uint8_t m[2];
    CHECK_INT(bin1(LT_OP_EQ, LT_COMPLEX64, 2, m, a, a), LT_OK);
    CHECK(m[0] == 1 && m[1] == 1);
    CHECK_INT(bin1(LT_OP_NE, LT_COMPLEX64, 2, m, a, b), LT_OK);
    CHECK(m[0] == 1 && m[1] == 1);
}

/* a (3x4, strided) + b (a row broadcast with stride 0) into a guarded out. */
static void test_broadcast_and_guards(void)
{
    double a[12], b[4] = {100, 200, 300, 400};
    for (int i = 0; i < 12; i++)
        a[i] = i;
    unsigned char buf[400];
    memset(buf, 0xA5, sizeof buf);
    int64_t shape[2] = {3, 4}, as[2] = {4, 1}, bs[2] = {0, 1}, os[2] = {-2, 9};
    double *out = (double *)(void *)(buf + 8 * 16); /* element [0][0] */
    CHECK_INT(lt_binary(LT_OP_SUB, LT_FLOAT64, 2, shape, out, os, a, as, b, bs), LT_OK);
    int damaged = 0;
    for (int i = 0; i < 50; i++) {
        int inside = 0;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                inside |= 16 + r * os[0] + c * os[1] == i;
        double v;
        memcpy(&v, buf + 8 * i, 8);
        if (inside) {
            int r = 0, c = 0;
            for (r = 0; r < 3; r++)
                for (c = 0; c < 4; c++)
                    if (16 + r * os[0] + c * os[1] == i)
                        CHECK_DBL(v, a[r * 4 + c] - b[c]);
        } else {
            for (int k = 0; k < 8; k++)
                damaged += buf[8 * i + k] != 0xA5;
        }
    }
    CHECK_INT(damaged, 0);
    /* scalar on the left: 10 - a */
    double ten = 10, o[12];
    int64_t zs[2] = {0, 0};
    CHECK_INT(lt_binary(LT_OP_SUB, LT_FLOAT64, 2, shape, o, as, &ten, zs, a, as), LT_OK);
    CHECK_DBL(o[11], -1);
}

static void test_aliasing(void)
{
    /* a += b: out is a exactly */
    int32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 10, 10, 10, 10};
    CHECK_INT(bin1(LT_OP_ADD, LT_INT32, 5, a, a, b), LT_OK);
    CHECK_INT(a[4], 15);
    /* out shifted one element past a: as if a were read first */
    int32_t x[6] = {1, 2, 3, 4, 5, 0};
    CHECK_INT(bin1(LT_OP_MUL, LT_INT32, 5, x + 1, x, x), LT_OK);
    CHECK_INT(x[1], 1);
    CHECK_INT(x[2], 4);
    CHECK_INT(x[5], 25);
    /* comparisons into the bytes of an int8 input */
    int8_t y[3] = {-1, 0, 5}, z[3] = {0, 0, 0};
    CHECK_INT(bin1(LT_OP_GT, LT_INT8, 3, y, y, z), LT_OK);
    CHECK(y[0] == 0 && y[1] == 0 && y[2] == 1);
}

static void test_large_parallel(void)
{
    lt_set_num_threads(2);
    enum { N = 3000000 };
    float *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N), *o = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        a[i] = (float)i, b[i] = 0.5f;
    CHECK_INT(bin1(LT_OP_ADD, LT_FLOAT32, N, o, a, b), LT_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += o[i] != a[i] + 0.5f;
    CHECK_INT(bad, 0);
    /* scalar broadcast, strided out of 3 x N/3 */
    int64_t shape[2] = {3, N / 3}, as[2] = {N / 3, 1}, zs[2] = {0, 0};
    CHECK_INT(lt_binary(LT_OP_MUL, LT_FLOAT32, 2, shape, o, as, a, as, b, zs), LT_OK);
    CHECK_DBL(o[N - 1], (float)(N - 1) * 0.5f);
    free(a);
    free(b);
    free(o);
}

/* ------------------------------------------------------------ sums */

static void test_sum_dtypes(void)
{
    int8_t a[4] = {100, 100, 100, -1};
    int64_t s = 0, shape[1] = {4};
    CHECK_INT(lt_sum(&s, zero1, LT_INT64, a, unit, LT_INT8, 1, shape), LT_OK);
    CHECK_INT(s, 299);
    int32_t dummy;
    CHECK_INT(lt_sum(&dummy, zero1, LT_INT32, a, unit, LT_INT8, 1, shape), LT_EDTYPE);
    CHECK(strstr(lt_last_error(), "int64") != NULL);
    double dd;
    float f[4] = {1, 2, 3, 4};
    CHECK_INT(lt_sum(&dd, zero1, LT_FLOAT64, f, unit, LT_FLOAT32, 1, shape), LT_EDTYPE);
    CHECK_INT(lt_sum(&dd, zero1, (lt_dtype)77, f, unit, LT_FLOAT32, 1, shape), LT_EDTYPE);
    uint8_t bits[4] = {1, 0, 1, 1};
    CHECK_INT(lt_sum(&s, zero1, LT_INT64, bits, unit, LT_BOOL, 1, shape), LT_OK);
    CHECK_INT(s, 3);
    uint64_t u[2] = {UINT64_MAX, 2};
    int64_t two[1] = {2};
    CHECK_INT(lt_sum(&s, zero1, LT_INT64, u, unit, LT_UINT64, 1, two), LT_OK);
    CHECK_INT(s, 1); /* wraps */
    /* float16: 4096 ones sum exactly in float32 and round once */
    uint16_t h[4096], hs;
    for (int i = 0; i < 4096; i++)
        h[i] = 0x3c00;
    int64_t n4096[1] = {4096};
    CHECK_INT(lt_sum(&hs, zero1, LT_FLOAT16, h, unit, LT_FLOAT16, 1, n4096), LT_OK);
    CHECK_INT(hs, 0x6c00);
    double c[6] = {1, 2, 3, 4, 5, 6}, cs[2];
    int64_t three[1] = {3};
    CHECK_INT(lt_sum(cs, zero1, LT_COMPLEX128, c, unit, LT_COMPLEX128, 1, three), LT_OK);
    CHECK_DBL(cs[0], 9);
    CHECK_DBL(cs[1], 12);
    /* empty sums are zero; 0-d sums copy */
    int64_t none[1] = {0};
    dd = 5;
    CHECK_INT(lt_sum(&dd, zero1, LT_FLOAT64, NULL, unit, LT_FLOAT64, 1, none), LT_OK);
    CHECK_DBL(dd, 0);
    float x = 2.5f, y = 0;
    CHECK_INT(lt_sum(&y, NULL, LT_FLOAT32, &x, NULL, LT_FLOAT32, 0, NULL), LT_OK);
    CHECK_DBL(y, 2.5);
}

/* Pairwise accuracy: 1e7 float32 values of 0.1 sum to within a few ulps of
 * the exact value, where a running float sum drifts by about 1%. */
static void test_sum_accuracy(void)
{
    enum { N = 10000000 };
    float *f = malloc(sizeof(float) * N), s = 0;
    for (int i = 0; i < N; i++)
        f[i] = 0.1f;
    int64_t shape[1] = {N};
    double exact = (double)0.1f * N;
    for (int nt = 1; nt <= 2; nt++) {
        lt_set_num_threads(nt);
        CHECK_INT(lt_sum(&s, zero1, LT_FLOAT32, f, unit, LT_FLOAT32, 1, shape), LT_OK);
        CHECK(fabs(s - exact) / exact < 1e-6);
        /* the same, reversed */
        int64_t rev[1] = {-1};
        CHECK_INT(lt_sum(&s, zero1, LT_FLOAT32, f + N - 1, rev, LT_FLOAT32, 1, shape), LT_OK);
        CHECK(fabs(s - exact) / exact < 1e-6);
        /* column sums of a 1e5 x 100 matrix: the vertical path */
        int64_t mshape[2] = {N / 100, 100}, ms[2] = {100, 1}, ds[2] = {0, 1};
        float cols[100];
        CHECK_INT(lt_sum(cols, ds, LT_FLOAT32, f, ms, LT_FLOAT32, 2, mshape), LT_OK);
        CHECK(fabs(cols[99] - exact / 100) / (exact / 100) < 1e-6);
    }
    free(f);
}

/* Reductions over each dimension of a 3-D int32 array, strided and not. */
static void test_sum_layouts(void)
{
    enum { A = 4, B = 5, C = 6 };
    int32_t x[A * B * C];
    for (int i = 0; i < A * B * C; i++)
        x[i] = i * 7 % 23 - 11;
    int64_t shape[3] = {A, B, C}, xs[3] = {B * C, C, 1};
    for (int mask = 0; mask < 8; mask++) { /* bit d set: dimension d is reduced */
        int64_t out[A * B * C], os[3], want[A * B * C] = {0};
        int64_t step = 1;
        for (int d = 2; d >= 0; d--) {
            os[d] = mask >> d & 1 ? 0 : step;
            step *= mask >> d & 1 ? 1 : shape[d];
        }
        for (int i = 0; i < A; i++)
            for (int j = 0; j < B; j++)
                for (int k = 0; k < C; k++)
                    want[i * os[0] + j * os[1] + k * os[2]] += x[(i * B + j) * C + k];
        CHECK_INT(lt_sum(out, os, LT_INT64, x, xs, LT_INT32, 3, shape), LT_OK);
        for (int e = 0; e < step; e++)
            if (out[e] != want[e])
                MT_FAIL("mask %d element %d: %lld vs %lld", mask, e, (long long)out[e], (long long)want[e]);
    }
    /* sum over dim 1 of a transposed (column-major) float view, in float64 */
    double m[12], o[3];
    for (int i = 0; i < 12; i++)
        m[i] = i;
    int64_t s2[2] = {3, 4}, ts[2] = {1, 3}, d2[2] = {1, 0};
    CHECK_INT(lt_sum(o, d2, LT_FLOAT64, m, ts, LT_FLOAT64, 2, s2), LT_OK);
    CHECK_DBL(o[0], 0 + 3 + 6 + 9);
    CHECK_DBL(o[2], 2 + 5 + 8 + 11);
    /* dst overlapping src: row sums written over the first column */
    double r[12];
    for (int i = 0; i < 12; i++)
        r[i] = i;
    int64_t rs[2] = {4, 1}, rd[2] = {4, 0};
    CHECK_INT(lt_sum(r, rd, LT_FLOAT64, r, rs, LT_FLOAT64, 2, s2), LT_OK);
    CHECK_DBL(r[0], 6);
    CHECK_DBL(r[4], 22);
    CHECK_DBL(r[8], 38);
    CHECK_DBL(r[9], 9);
    /* a reduced dimension of extent 0: zeros over the kept ones */
    int64_t e2[2] = {3, 0}, es[2] = {0, 1}, ed[2] = {1, 0};
    double z[3] = {7, 7, 7};
    CHECK_INT(lt_sum(z, ed, LT_FLOAT64, m, es, LT_FLOAT64, 2, e2), LT_OK);
    CHECK_DBL(z[2], 0);
}

/* The column-sum order of ops.c (vreduce), written out with scalars: rows
 * [lo, hi) of column j, eight-row leaves added in order, leaves paired at
 * whole-leaf midpoints. */
static float column_order(const float *m, int64_t cols, int64_t j, int64_t lo, int64_t hi)
{
    if (hi - lo <= 8) {
        float t = m[lo * cols + j];
        for (int64_t r = lo + 1; r < hi; r++)
            t += m[r * cols + j];
        return t;
    }
    int64_t mid = lo + ((hi - lo) / 8 + 1) / 2 * 8;
    return column_order(m, cols, j, lo, mid) + column_order(m, cols, j, mid, hi);
}

/* Column sums of dense float32 matrices are bit-identical to the scalar
 * order above for row counts around the leaf size (a remainder leaf of 1-7
 * rows, which ran through the strided loop before) and widths around a
 * vector. Natively this runs the AVX-512 clone; the valgrind run of this
 * program (tests/libtensor/test_c_suite.py) runs the AVX2 one, which has no
 * AVX-512: both must match the same scalar sums, so they match each other. */
static void test_column_sums_follow_the_stated_order(void)
{
    static const int64_t rows[] = {1, 2, 7, 8, 9, 12, 15, 16, 17, 63, 64, 65, 100, 257};
    static const int64_t widths[] = {2, 15, 16, 17, 100, 1000}; /* width 1 is a full sum */
    uint32_t seed = 12345;
    int cases = 0;
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
        for (size_t b = 0; b < sizeof widths / sizeof widths[0]; b++) {
            int64_t R = rows[a], C = widths[b], shape[2] = {R, C}, ms[2] = {C, 1}, ds[2] = {0, 1};
            float *m = malloc(sizeof(float) * (size_t)(R * C)), *got = malloc(sizeof(float) * (size_t)C);
            for (int64_t i = 0; i < R * C; i++) { /* values of mixed sign and magnitude: every order rounds differently */
                seed = seed * 1664525u + 1013904223u;
                m[i] = ((float)(seed >> 8) / 16777216.0f - 0.3f) * (float)(1 << (seed % 13));
            }
            CHECK_INT(lt_sum(got, ds, LT_FLOAT32, m, ms, LT_FLOAT32, 2, shape), LT_OK);
            for (int64_t j = 0; j < C; j++) {
                float want = column_order(m, C, j, 0, R);
                if (memcmp(&got[j], &want, sizeof want) != 0) {
                    MT_FAIL("%lld x %lld column %lld: %.9g, the stated order gives %.9g", (long long)R, (long long)C,
                            (long long)j, got[j], want);
                    break;
                }
            }
            cases++;
            free(m);
            free(got);
        }
    CHECK_INT(cases, 14 * 6);
}

/* A sum over dimensions of extent 1 has one term per result: each dtype's
 * values come through as the one-term sum gives them (int64 for bool and
 * integers, NaN bits kept for floats, -0.0 as +0.0 as in torch's
 * zero-started sums), in dense, strided and overlapping layouts. */
static void test_one_term_sums(void)
{
    /* float32 (5, 1) summed over dim 1, a NaN payload kept, -0.0 made +0.0 */
    uint32_t fb[5] = {0x80000000u, 0x7fc01234u, 0x3f800000u, 0xff800000u, 0x00000001u}, fo[5];
    int64_t s51[2] = {5, 1}, d51[2] = {1, 0}, x51[2] = {1, 1};
    CHECK_INT(lt_sum(fo, d51, LT_FLOAT32, fb, x51, LT_FLOAT32, 2, s51), LT_OK);
    CHECK(fo[0] == 0u && memcmp(fo + 1, fb + 1, sizeof fb - sizeof fb[0]) == 0);
    /* bool and uint8 -> int64, over dim 0 of a (1, 4) */
    uint8_t bits[4] = {1, 0, 1, 1}, u8[4] = {255, 0, 7, 128};
    int64_t o[4], s14[2] = {1, 4}, d14[2] = {0, 1}, x14[2] = {4, 1};
    CHECK_INT(lt_sum(o, d14, LT_INT64, bits, x14, LT_BOOL, 2, s14), LT_OK);
    CHECK(o[0] == 1 && o[1] == 0 && o[2] == 1 && o[3] == 1);
    CHECK_INT(lt_sum(o, d14, LT_INT64, u8, x14, LT_UINT8, 2, s14), LT_OK);
    CHECK(o[0] == 255 && o[1] == 0 && o[2] == 7 && o[3] == 128);
    /* uint64 keeps its bits in int64, as the wrapping sums do */
    uint64_t u64[2] = {UINT64_MAX, 5};
    int64_t o2[2], s12[2] = {1, 2}, d12[2] = {0, 1}, x12[2] = {2, 1};
    CHECK_INT(lt_sum(o2, d12, LT_INT64, u64, x12, LT_UINT64, 2, s12), LT_OK);
    CHECK(o2[0] == -1 && o2[1] == 5);
    /* float16 through the float32 accumulator and back: the same bits (-0.0: +0.0) */
    uint16_t h[3] = {0x3c00, 0x8000, 0x7bff}, ho[3];
    int64_t s31[2] = {3, 1}, d31[2] = {1, 0};
    CHECK_INT(lt_sum(ho, d31, LT_FLOAT16, h, x51, LT_FLOAT16, 2, s31), LT_OK);
    CHECK(ho[0] == 0x3c00 && ho[1] == 0 && ho[2] == 0x7bff);
    /* complex64, a strided source (every other element) into a strided dst */
    float c[12] = {1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 0, 0}, co[12] = {0};
    int64_t sc[2] = {3, 1}, xc[2] = {2, 1}, dc[2] = {2, 0};
    CHECK_INT(lt_sum(co, dc, LT_COMPLEX64, c, xc, LT_COMPLEX64, 2, sc), LT_OK);
    CHECK(co[0] == 1 && co[1] == 2 && co[4] == 3 && co[5] == 4 && co[8] == 5 && co[9] == 6 && co[2] == 0);
    /* a (2, 1, 3) float64 over dim 1, the result written over its own source */
    int64_t s213[3] = {2, 1, 3}, x213[3] = {3, 3, 1}, d213[3] = {3, 0, 1};
    double dv[6] = {-4, 5, 6, 7, -8, 9};
    CHECK_INT(lt_sum(dv, d213, LT_FLOAT64, dv, x213, LT_FLOAT64, 3, s213), LT_OK);
    CHECK(dv[0] == -4 && dv[2] == 6 && dv[4] == -8 && dv[5] == 9);
    /* 0-d: one element, no kept dimension */
    int8_t one = -3;
    int64_t so = 0;
    CHECK_INT(lt_sum(&so, NULL, LT_INT64, &one, NULL, LT_INT8, 0, NULL), LT_OK);
    CHECK_INT(so, -3);
    /* threads: 2^22 one-term sums of a (2^22, 1) float32 (32 MiB in and out) */
    const int threads = lt_get_num_threads();
    lt_set_num_threads(2);
    enum { N = 1 << 22 };
    float *big = malloc(sizeof(float) * N), *bo = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        big[i] = (float)(i % 1000) - 500.5f;
    int64_t sb[2] = {N, 1}, db[2] = {1, 0};
    CHECK_INT(lt_sum(bo, db, LT_FLOAT32, big, x51, LT_FLOAT32, 2, sb), LT_OK);
    CHECK(memcmp(bo, big, sizeof(float) * N) == 0);
    lt_set_num_threads(threads);
    free(big);
    free(bo);
}

/* lt_equal: equal views, a difference at each end of a chunk, strided and
 * broadcast operands, NaN, and the float8 refusal. */
static void test_equal(void)
{
    float a[6000], b[6000];
    for (int i = 0; i < 6000; i++)
        a[i] = b[i] = (float)(i % 13);
    int64_t shape[1] = {6000}, unit[1] = {1}, zero[1] = {0};
    int eq = -1;
    CHECK_INT(lt_equal(&eq, LT_FLOAT32, 1, shape, a, unit, b, unit), LT_OK);
    CHECK_INT(eq, 1);
    int at[4] = {0, 4095, 4096, 5999};
    for (int k = 0; k < 4; k++) {
        b[at[k]] = 100.0f;
        CHECK_INT(lt_equal(&eq, LT_FLOAT32, 1, shape, a, unit, b, unit), LT_OK);
        CHECK_INT(eq, 0);
        b[at[k]] = a[at[k]];
    }
    int64_t s2[2] = {3, 2000}, rows[2] = {2000, 1}, cols[2] = {1, 3}; /* a 3 x 2000 view and a transposed one */
    CHECK_INT(lt_equal(&eq, LT_FLOAT32, 2, s2, a, rows, b, rows), LT_OK);
    CHECK_INT(eq, 1);
    CHECK_INT(lt_equal(&eq, LT_FLOAT32, 2, s2, a, rows, b, cols), LT_OK);
    CHECK_INT(eq, 0);
    float c = 0.0f;
    CHECK_INT(lt_equal(&eq, LT_FLOAT32, 1, shape, &c, zero, a, unit), LT_OK); /* broadcast scalar vs 0, 1, ... */
    CHECK_INT(eq, 0);
    float nan = NAN;
    int64_t one[1] = {1};
    CHECK_INT(lt_equal(&eq, LT_FLOAT32, 1, one, &nan, unit, &nan, unit), LT_OK);
    CHECK_INT(eq, 0);
    uint8_t f8 = 0;
    CHECK_INT(lt_equal(&eq, LT_FLOAT8_E4M3FN, 1, one, &f8, unit, &f8, unit), LT_EDTYPE);
    CHECK_INT(lt_equal(NULL, LT_FLOAT32, 1, one, a, unit, b, unit), LT_EINVAL);
}

/* Both operands broadcast (every stride 0): one value, stored in every
 * element of a dense or strided out, for arithmetic and comparisons, across
 * threads; n 0 writes nothing. */
static void test_both_operands_broadcast(void)
{
    enum { N = 100003 };
    float *o = malloc(sizeof(float) * 2 * N), x = 3.0f, y = 2.0f;
    uint8_t *m = malloc(N);
    int64_t shape[2] = {N, 1}, dense[2] = {1, 0}, strided[2] = {2, 0}, zero[2] = {0, 0};
    const int threads = lt_get_num_threads();
    lt_set_num_threads(2);
    for (int i = 0; i < 2 * N; i++)
        o[i] = -1.0f;
    CHECK_INT(lt_binary(LT_OP_MUL, LT_FLOAT32, 2, shape, o, dense, &x, zero, &y, zero), LT_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += o[i] != 6.0f;
    CHECK_INT(bad, 0);
    CHECK(o[N] == -1.0f);
    CHECK_INT(lt_binary(LT_OP_SUB, LT_FLOAT32, 2, shape, o, strided, &x, zero, &y, zero), LT_OK);
    for (int i = 0; i < 2 * N; i += 2) /* every other element written, the ones between kept */
        bad += o[i] != 1.0f || (i + 1 < N && o[i + 1] != 6.0f);
    CHECK_INT(bad, 0);
    CHECK_INT(lt_binary(LT_OP_LT, LT_FLOAT32, 2, shape, m, dense, &y, zero, &x, zero), LT_OK);
    for (int i = 0; i < N; i++)
        bad += m[i] != 1;
    CHECK_INT(bad, 0);
    int64_t none[2] = {0, 1};
    o[0] = -7.0f;
    CHECK_INT(lt_binary(LT_OP_ADD, LT_FLOAT32, 2, none, o, dense, &x, zero, &y, zero), LT_OK);
    CHECK(o[0] == -7.0f);
    lt_set_num_threads(threads);
    free(o);
    free(m);
}

int main(void)
{
    test_integer_wrapping();
    test_bool_and_refusals();
    test_floats();
    test_complex();
    test_broadcast_and_guards();
    test_aliasing();
    test_large_parallel();
    test_sum_dtypes();
    test_sum_accuracy();
    test_sum_layouts();
    test_column_sums_follow_the_stated_order();
    test_one_term_sums();
    test_equal();
    test_both_operands_broadcast();
    MT_DONE();
}
