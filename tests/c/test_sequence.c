/* test_sequence.c: lt_fill_arange and lt_fill_linspace. Values across a
 * chunk boundary, every arithmetic type, conversion into narrow dtypes,
 * exact ends, the bytes past n left alone, the write version, and every
 * refusal (read-only, other device, too small, overflow, bad arguments). */
#include <math.h>
#include <stdint.h>

#include "libtensor.h"
#include "minitest.h"

static lt_storage *storage_of(size_t nbytes, unsigned char fill)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, nbytes, 0), LT_OK);
    memset(lt_storage_data(s), fill, nbytes);
    return s;
}

static void test_arange_int64(void)
{
    int64_t n = 3000; /* more than one chunk of 1024 */
    lt_storage *s = storage_of((size_t)(n + 1) * 8, 0xA5);
    int64_t start = -7, step = 3;
    uint64_t before = lt_storage_version(s);
    CHECK_INT(lt_fill_arange(s, LT_INT64, n, &start, &step, LT_INT64), LT_OK);
    const int64_t *v = lt_storage_data(s);
    for (int64_t i = 0; i < n; i++)
        if (v[i] != start + i * step) {
            CHECK_INT(v[i], start + i * step);
            break;
        }
    CHECK_INT(((unsigned char *)lt_storage_data(s))[n * 8], 0xA5); /* past n: untouched */
    CHECK(lt_storage_version(s) > before);
    /* Near both ends of int64, where i * step alone overflows. */
    int64_t big = INT64_MAX, down = -INT64_MAX;
    CHECK_INT(lt_fill_arange(s, LT_INT64, 3, &big, &down, LT_INT64), LT_OK);
    CHECK_INT(v[0], INT64_MAX);
    CHECK_INT(v[1], 0);
    CHECK_INT(v[2], -INT64_MAX);
    CHECK_INT(lt_fill_arange(s, LT_INT64, 4, &big, &down, LT_INT64), LT_EOVERFLOW);
    CHECK(strstr(lt_last_error(), "overflows int64") != NULL);
    lt_storage_release(s);
}

static void test_arange_conversions(void)
{
    lt_storage *s = storage_of(64, 0);
    /* int64 into uint8 wraps: 250, 253, 0, 3 */
    int64_t start = 250, step = 3;
    CHECK_INT(lt_fill_arange(s, LT_UINT8, 4, &start, &step, LT_INT64), LT_OK);
    const uint8_t *u8 = lt_storage_data(s);
    CHECK_INT(u8[0], 250);
    CHECK_INT(u8[2], 0);
    CHECK_INT(u8[3], 3);
    CHECK_INT(u8[4], 0); /* past n */
    /* uint64 counting down from 2^64 - 1 */
    uint64_t ustart = UINT64_MAX, ustep = (uint64_t)-2;
    CHECK_INT(lt_fill_arange(s, LT_UINT64, 3, &ustart, &ustep, LT_UINT64), LT_OK);
    const uint64_t *u64 = lt_storage_data(s);
    CHECK(u64[0] == UINT64_MAX && u64[1] == UINT64_MAX - 2 && u64[2] == UINT64_MAX - 4);
    /* double into float32 and into int32 (truncation toward zero) */
    double fstart = -1.5, fstep = 0.25;
    CHECK_INT(lt_fill_arange(s, LT_FLOAT32, 5, &fstart, &fstep, LT_FLOAT64), LT_OK);
    const float *f = lt_storage_data(s);
    CHECK_DBL(f[0], -1.5);
    CHECK_DBL(f[4], -0.5);
    CHECK_INT(lt_fill_arange(s, LT_INT32, 5, &fstart, &fstep, LT_FLOAT64), LT_OK);
    const int32_t *i32 = lt_storage_data(s);
    CHECK_INT(i32[0], -1);
    CHECK_INT(i32[2], -1);
    CHECK_INT(i32[4], 0);
    /* 0.1 steps: each value is start + i * step rounded twice, never fused */
    double zero = 0.0, tenth = 0.1;
    CHECK_INT(lt_fill_arange(s, LT_FLOAT64, 8, &zero, &tenth, LT_FLOAT64), LT_OK);
    const double *d = lt_storage_data(s);
    for (int i = 0; i < 8; i++) {
        volatile double product = (double)i * 0.1;
        CHECK_DBL(d[i], 0.0 + product);
    }
    lt_storage_release(s);
}

static void test_linspace(void)
{
    int64_t n = 2049;
    lt_storage *s = storage_of((size_t)n * 8, 0);
    double start = -3.0, end = 7.0;
    CHECK_INT(lt_fill_linspace(s, LT_FLOAT64, n, &start, &end, LT_FLOAT64), LT_OK);
    const double *d = lt_storage_data(s);
    CHECK_DBL(d[0], -3.0);
    CHECK_DBL(d[n - 1], 7.0); /* exact end: counted back from it */
    double step = 10.0 / 2048.0;
    CHECK_DBL(d[100], -3.0 + 100 * step);
    CHECK_DBL(d[2000], 7.0 - 48 * step);
    /* n == 1 gives start; n == 0 writes nothing */
    CHECK_INT(lt_fill_linspace(s, LT_FLOAT64, 1, &end, &start, LT_FLOAT64), LT_OK);
    CHECK_DBL(d[0], 7.0);
    CHECK_INT(lt_fill_linspace(s, LT_FLOAT64, 0, NULL, NULL, LT_FLOAT64), LT_OK);
    /* integer dtypes go through int64: 2.5 -> 2, and 300 -> int8 44 */
    double a = 0.0, b = 300.0;
    CHECK_INT(lt_fill_linspace(s, LT_INT8, 3, &a, &b, LT_FLOAT64), LT_OK);
    const int8_t *i8 = lt_storage_data(s);
    CHECK_INT(i8[0], 0);
    CHECK_INT(i8[1], (int8_t)150);
    CHECK_INT(i8[2], 44);
    /* complex: parts spaced independently */
    double cs[2] = {1.0, 1.0}, ce[2] = {5.0, -2.0};
    CHECK_INT(lt_fill_linspace(s, LT_COMPLEX64, 5, cs, ce, LT_COMPLEX128), LT_OK);
    const float *c = lt_storage_data(s);
    CHECK_DBL(c[4], 3.0); /* element 2 is (3, -0.5) */
    CHECK_DBL(c[5], -0.5);
    CHECK_DBL(c[9], -2.0);
    lt_storage_release(s);
}

static void test_refusals(void)
{
    int64_t one = 1;
    double x = 1.0;
    lt_storage *s = storage_of(16, 0);
    CHECK_INT(lt_fill_arange(NULL, LT_INT64, 1, &one, &one, LT_INT64), LT_EINVAL);
    CHECK_INT(lt_fill_arange(s, LT_INT64, 3, &one, &one, LT_INT64), LT_ERANGE);
    CHECK_STR(lt_last_error(), "lt_fill_arange: 3 elements of 8 bytes do not fit a storage of 16 bytes");
    CHECK_INT(lt_fill_arange(s, LT_INT64, INT64_MAX, &one, &one, LT_INT64), LT_ERANGE);
    CHECK_INT(lt_fill_arange(s, LT_INT64, -1, &one, &one, LT_INT64), LT_EINVAL);
    CHECK_INT(lt_fill_arange(s, LT_INT64, 1, &one, &one, LT_FLOAT32), LT_EDTYPE);
    CHECK_INT(lt_fill_arange(s, (lt_dtype)99, 1, &one, &one, LT_INT64), LT_EDTYPE);
    CHECK_INT(lt_fill_arange(s, LT_INT64, 1, NULL, &one, LT_INT64), LT_EINVAL);
    CHECK_INT(lt_fill_linspace(s, LT_FLOAT64, 1, &x, &x, LT_INT64), LT_EDTYPE);
    CHECK_INT(lt_fill_linspace(s, LT_FLOAT64, 2, &x, NULL, LT_FLOAT64), LT_EINVAL);
    lt_storage_set_device(s, kDLCUDA, 0);
    CHECK_INT(lt_fill_arange(s, LT_INT64, 1, &one, &one, LT_INT64), LT_EDEVICE);
    lt_storage_release(s);

    int64_t ro[2] = {5, 5};
    lt_storage *r = NULL;
    CHECK_INT(lt_storage_wrap(&r, ro, sizeof ro, LT_STORAGE_READONLY, LT_PROV_BUFFER, NULL, NULL), LT_OK);
    CHECK_INT(lt_fill_arange(r, LT_INT64, 2, &one, &one, LT_INT64), LT_EREADONLY);
    CHECK_INT(lt_fill_linspace(r, LT_FLOAT64, 2, &x, &x, LT_FLOAT64), LT_EREADONLY);
    CHECK_INT(ro[0], 5);
    lt_storage_release(r);
}

int main(void)
{
    test_arange_int64();
    test_arange_conversions();
    test_linspace();
    test_refusals();
    MT_DONE();
}
