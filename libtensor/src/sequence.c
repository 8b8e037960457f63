/*
 * sequence.c: lt_fill_arange and lt_fill_linspace, which write a generated
 * sequence straight into a storage.
 *
 * Values are generated a chunk at a time, in the arithmetic type the caller
 * chose (int64, uint64, double or complex double), into a small buffer on
 * the stack, and converted into the storage by cast.c's loops: so the only
 * memory a sequence costs is its own, and each value is converted exactly
 * as lt_copy converts it.
 *
 * Each product and sum below is its own statement: a compiler may fuse
 * a * b + c into one rounding (clang does by default within an expression),
 * which would change the last bit of a value.
 */
#include <inttypes.h>

#include "kernels.h"

/* Values generated per round: 16 KiB of complex doubles. */
#define CHUNK 1024

/* Fills chunk with count values of the generator's arithmetic type, for
 * the sequence's indices first .. first + count - 1. */
typedef void (*generate_fn)(void *chunk, int64_t first, int64_t count, const void *ctx);

static int is_host(int32_t device_type)
{
    return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost ||
           device_type == kDLCUDAManaged;
}

/* The checks every sequence makes of its destination. */
static lt_status check_target(const lt_storage *storage, lt_dtype dtype, int64_t n, const char *fn)
{
    lt_status rc;
    if (!storage)
        return lt__fail(LT_EINVAL, "%s: the storage is NULL", fn);
    if ((rc = lt__check_dtype(dtype, "dtype")) != LT_OK || (rc = lt__check_cast(dtype, LT_FLOAT64)) != LT_OK)
        return rc;
    if (n < 0)
        return lt__fail(LT_EINVAL, "%s: n is %" PRId64 "; a sequence has n >= 0 elements", fn, n);
    if (lt_storage_flags(storage) & LT_STORAGE_READONLY)
        return lt__fail(LT_EREADONLY, "%s: the storage is read-only", fn);
    if (!is_host(lt_storage_device_type(storage)))
        return lt__fail(LT_EDEVICE, "%s: the storage is on device type %d, not in host memory", fn,
                        (int)lt_storage_device_type(storage));
    size_t itemsize = lt_dtype_itemsize(dtype), need;
    if (__builtin_mul_overflow((size_t)n, itemsize, &need) || need > lt_storage_nbytes(storage))
        return lt__fail(LT_ERANGE, "%s: %" PRId64 " elements of %zu bytes do not fit a storage of %zu bytes", fn, n,
                        itemsize, lt_storage_nbytes(storage));
    return LT_OK;
}

/* Generates n values of value_dtype and stores them into storage as dtype,
 * converting through via first when via differs from value_dtype. */
static void run(lt_storage *storage, lt_dtype dtype, int64_t n, lt_dtype value_dtype, lt_dtype via,
                generate_fn generate, const void *ctx)
{
    _Alignas(16) char values[CHUNK * 16], converted[CHUNK * 16];
    size_t isz = lt_dtype_itemsize(dtype), vsz = lt_dtype_itemsize(value_dtype), wsz = lt_dtype_itemsize(via);
    lt__kernel to_via = lt__cast_kernel(via, value_dtype), to_dst = lt__cast_kernel(dtype, via);
    char *dst = lt_storage_data(storage);
    if (dtype == value_dtype && via == value_dtype) { /* no conversion: generate in place */
        generate(dst, 0, n, ctx);
        lt_storage_bump_version(storage);
        return;
    }
    for (int64_t first = 0; first < n; first += CHUNK) {
        int64_t count = n - first < CHUNK ? n - first : CHUNK;
        generate(values, first, count, ctx);
        char *src = values;
        if (via != value_dtype) {
            char *ptr[2] = {converted, values};
            const ptrdiff_t step[2] = {(ptrdiff_t)wsz, (ptrdiff_t)vsz};
            to_via(ptr, step, count);
            src = converted;
        }
        char *ptr[2] = {dst + (size_t)first * isz, src}; /* byte offset = element index * itemsize */
        const ptrdiff_t step[2] = {(ptrdiff_t)isz, (ptrdiff_t)wsz};
        to_dst(ptr, step, count);
    }
    lt_storage_bump_version(storage);
}

/* ------------------------------------------------------------ arange */

typedef struct {
    uint64_t start, step; /* int64 and uint64 sequences: two's complement bits */
    double fstart, fstep;
} arange_ctx;

/* start + i * step modulo 2^64: exact whenever the value fits the type,
 * even where i * step alone would not. */
static void arange_u64(void *chunk, int64_t first, int64_t count, const void *ctx)
{
    const arange_ctx *a = ctx;
    char *out = chunk; /* may be the storage itself: stored bytewise, no alignment assumed */
    /* a running sum (modulo 2^64, so the same bits as start + i * step) that the
     * compiler vectorizes; a 64-bit multiply per element has no AVX2 instruction */
    uint64_t v = a->start + (uint64_t)first * a->step;
    for (int64_t j = 0; j < count; j++) {
        LT__STORE(uint64_t, out + 8 * j, v);
        v += a->step;
    }
}

static void arange_f64(void *chunk, int64_t first, int64_t count, const void *ctx)
{
    const arange_ctx *a = ctx;
    double *out = chunk;
    if (first + count <= INT32_MAX) { /* int32 indices convert to double in vectors; int64 ones do not */
        int32_t base = (int32_t)first;
        for (int32_t j = 0; j < (int32_t)count; j++) {
            double offset = (double)(base + j) * a->fstep;
            out[j] = a->fstart + offset;
        }
        return;
    }
    for (int64_t j = 0; j < count; j++) {
        double offset = (double)(first + j) * a->fstep;
        out[j] = a->fstart + offset;
    }
}

lt_status lt_fill_arange(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *step,
                         lt_dtype value_dtype)
{
    lt_status rc = check_target(storage, dtype, n, "lt_fill_arange");
    if (rc != LT_OK)
        return rc;
    if (value_dtype != LT_INT64 && value_dtype != LT_UINT64 && value_dtype != LT_FLOAT64)
        return lt__fail(LT_EDTYPE, "lt_fill_arange: value_dtype is %d; it must be LT_INT64, LT_UINT64 or LT_FLOAT64",
                        (int)value_dtype);
    if (n == 0)
        return LT_OK;
    if (!start || !step)
        return lt__fail(LT_EINVAL, "lt_fill_arange: start or step is NULL");
    arange_ctx a = {0, 0, 0.0, 0.0};
    if (value_dtype == LT_FLOAT64) {
        memcpy(&a.fstart, start, sizeof a.fstart);
        memcpy(&a.fstep, step, sizeof a.fstep);
        run(storage, dtype, n, value_dtype, value_dtype, arange_f64, &a);
        return LT_OK;
    }
    memcpy(&a.start, start, sizeof a.start);
    memcpy(&a.step, step, sizeof a.step);
    if (value_dtype == LT_INT64) {
        /* The sequence is monotonic, so it fits int64 when its last value does:
         * last = start + (n - 1) * step, exact in 128 bits. */
        int64_t first = (int64_t)a.start, stride = (int64_t)a.step;
        __extension__ __int128 last = (__int128)first + (__int128)(n - 1) * stride;
        if (last < INT64_MIN || last > INT64_MAX)
            return lt__fail(LT_EOVERFLOW, "lt_fill_arange: %" PRId64 " + %" PRId64 " * %" PRId64 " overflows int64",
                            first, n - 1, stride);
    }
    run(storage, dtype, n, value_dtype, value_dtype, arange_u64, &a);
    return LT_OK;
}

/* ------------------------------------------------------------ linspace */

typedef struct {
    double start[2], end[2], step[2]; /* [0] real part, [1] imaginary part (complex only) */
    int64_t n, parts;
} linspace_ctx;

/* Value i of one part: the first n/2 values step forward from start, the
 * rest backward from end, so that both ends are exact. */
static double linspace_at(const linspace_ctx *l, int part, int64_t i)
{
    if (l->n == 1)
        return l->start[part];
    if (i < l->n / 2) {
        double offset = (double)i * l->step[part];
        return l->start[part] + offset;
    }
    double offset = (double)(l->n - 1 - i) * l->step[part];
    return l->end[part] - offset;
}

/* linspace_at for a real sequence of n < 2^31 values, split at n/2 into two
 * branch-free loops over an int32 index (which converts to double in a
 * vector instruction, where int64 has none in AVX2): the same values. */
LT__HOT static void linspace_real(double *out, int64_t first, int64_t count, const linspace_ctx *l)
{
    const double start = l->start[0], end = l->end[0], step = l->step[0];
    const int32_t half = (int32_t)(l->n / 2), last = (int32_t)(l->n - 1), lo = (int32_t)first;
    const int32_t hi = (int32_t)(first + count), mid = hi < half ? hi : lo > half ? lo : half;
    for (int32_t i = lo; i < mid; i++) {
        double offset = (double)i * step;
        out[i - lo] = start + offset;
    }
    for (int32_t i = mid; i < hi; i++) {
        double offset = (double)(last - i) * step;
        out[i - lo] = end - offset;
    }
}

static void linspace_gen(void *chunk, int64_t first, int64_t count, const void *ctx)
{
    const linspace_ctx *l = ctx;
    double *out = chunk;
    if (l->parts == 1 && l->n > 1 && l->n < INT32_MAX) {
        linspace_real(out, first, count, l);
        return;
    }
    for (int64_t j = 0; j < count; j++)
        for (int64_t p = 0; p < l->parts; p++)
            out[j * l->parts + p] = linspace_at(l, (int)p, first + j);
}

static int is_integer_dtype(lt_dtype dtype)
{
    return dtype == LT_UINT8 || dtype == LT_UINT16 || dtype == LT_UINT32 || dtype == LT_UINT64 ||
           dtype == LT_INT8 || dtype == LT_INT16 || dtype == LT_INT32 || dtype == LT_INT64;
}

lt_status lt_fill_linspace(lt_storage *storage, lt_dtype dtype, int64_t n, const void *start, const void *end,
                           lt_dtype value_dtype)
{
    lt_status rc = check_target(storage, dtype, n, "lt_fill_linspace");
    if (rc != LT_OK)
        return rc;
    if (value_dtype != LT_FLOAT64 && value_dtype != LT_COMPLEX128)
        return lt__fail(LT_EDTYPE, "lt_fill_linspace: value_dtype is %d; it must be LT_FLOAT64 or LT_COMPLEX128",
                        (int)value_dtype);
    if (n == 0)
        return LT_OK;
    if (!start || !end)
        return lt__fail(LT_EINVAL, "lt_fill_linspace: start or end is NULL");
    linspace_ctx l = {{0, 0}, {0, 0}, {0, 0}, n, value_dtype == LT_COMPLEX128 ? 2 : 1};
    memcpy(l.start, start, (size_t)l.parts * sizeof(double));
    memcpy(l.end, end, (size_t)l.parts * sizeof(double));
    for (int p = 0; p < l.parts && n > 1; p++) {
        double span = l.end[p] - l.start[p];
        l.step[p] = span / (double)(n - 1); /* step = (end - start) / (n - 1) */
    }
    /* Real values reach an integer dtype through int64 (see the header). */
    lt_dtype via = value_dtype == LT_FLOAT64 && is_integer_dtype(dtype) ? LT_INT64 : value_dtype;
    run(storage, dtype, n, value_dtype, via, linspace_gen, &l);
    return LT_OK;
}
