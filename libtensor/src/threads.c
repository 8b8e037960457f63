/*
 * threads.c: the kernel thread count, a parallel-for, and the n-d strided
 * walk every elementwise kernel runs on.
 *
 * Threads are started per job and joined before the job returns, rather
 * than kept in a pool: jobs are only split above LT__PARALLEL_MIN_BYTES
 * (a millisecond-scale job), where a ~20 us thread start is noise, and a
 * process that forks (Python's multiprocessing) never inherits a pool whose
 * threads did not survive the fork.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "kernels.h"

#define MAX_THREADS 8

/* 0 until first asked for; then the number of online CPUs, capped. */
static atomic_int num_threads;

void lt_set_num_threads(int nthreads)
{
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    atomic_store_explicit(&num_threads, nthreads, memory_order_relaxed);
}

int lt_get_num_threads(void)
{
    int n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    if (n > 0)
        return n;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    n = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
    /* Racing first callers compute the same value, so either store wins. */
    atomic_store_explicit(&num_threads, n, memory_order_relaxed);
    return n;
}

/* ------------------------------------------------------------ parallel for */

typedef struct range_job {
    lt__range_fn fn;
    void *ctx;
    int64_t lo, hi;
} range_job;

static void *range_job_main(void *arg)
{
    range_job *job = arg;
    job->fn(job->ctx, job->lo, job->hi);
    return NULL;
}

void lt__parallel_for(int64_t n, int64_t min_chunk, lt__range_fn fn, void *ctx)
{
    if (n <= 0)
        return;
    int64_t parts = lt_get_num_threads();
    if (min_chunk < 1)
        min_chunk = 1;
    if (parts > n / min_chunk)
        parts = n / min_chunk;
    if (parts <= 1) {
        fn(ctx, 0, n);
        return;
    }
    /* Part t covers [t*q + min(t, r), ...): sizes differ by at most one. */
    int64_t q = n / parts, r = n % parts;
    range_job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int64_t t = 0; t < parts; t++) {
        jobs[t] = (range_job){fn, ctx, t * q + (t < r ? t : r), 0};
        jobs[t].hi = jobs[t].lo + q + (t < r);
    }
    for (int64_t t = 1; t < parts; t++)
        started[t] = pthread_create(&tid[t], NULL, range_job_main, &jobs[t]) == 0;
    fn(ctx, jobs[0].lo, jobs[0].hi);
    for (int64_t t = 1; t < parts; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else /* no thread to be had: do its share here */
            fn(ctx, jobs[t].lo, jobs[t].hi);
    }
}

/* ------------------------------------------------------------ walks */

/* A negative stride of operand 0 is walked backwards: start every operand at
 * the far end of the dimension (base += (n-1)*stride) and negate its stride. */
static void flip_negative(lt__walk *w)
{
    for (int32_t d = 0; d < w->ndim; d++) {
        if (w->stride[d][0] >= 0)
            continue;
        for (int k = 0; k < w->nops; k++) {
            w->base[k] += (w->shape[d] - 1) * w->stride[d][k];
            w->stride[d][k] = -w->stride[d][k];
        }
    }
}

void lt__walk_init(lt__walk *w, int nops, char *const base[], const int64_t *const strides[],
                   const size_t itemsize[], int32_t ndim, const int64_t *shape)
{
    LT__ASSERT(nops >= 1 && nops <= LT__MAX_OPS);
    w->nops = nops;
    w->ndim = 0;
    for (int k = 0; k < nops; k++)
        w->base[k] = base[k];
    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] == 1)
            continue;
        w->shape[w->ndim] = shape[d];
        for (int k = 0; k < nops; k++) /* byte stride = element stride * itemsize */
            w->stride[w->ndim][k] = (ptrdiff_t)(strides[k][d] * (int64_t)itemsize[k]);
        w->ndim++;
    }
    if (w->ndim == 0) { /* a scalar, or only extent-1 dimensions: one element */
        w->ndim = 1;
        w->shape[0] = 1;
        for (int k = 0; k < nops; k++)
            w->stride[0][k] = 0;
        return;
    }
    flip_negative(w);
    /* the kernels' dimension order (internal.h): stride[d][k] sits at k + d * LT__MAX_OPS */
    lt__layout_sort_dims(w->ndim, w->shape, nops, &w->stride[0][0], 1, LT__MAX_OPS);
    w->ndim = lt__layout_merge_dims(w->ndim, w->shape, nops, &w->stride[0][0], 1, LT__MAX_OPS);
}

int lt__walk_has_zero_stride(const lt__walk *w, int k)
{
    for (int32_t d = 0; d < w->ndim; d++)
        if (w->shape[d] > 1 && w->stride[d][k] == 0)
            return 1;
    return 0;
}

int64_t lt__walk_nrows(const lt__walk *w)
{
    int64_t rows = 1;
    for (int32_t d = 0; d + 1 < w->ndim; d++)
        rows *= w->shape[d];
    return rows;
}

void lt__walk_rows(const lt__walk *w, lt__kernel kernel, int64_t row_lo, int64_t row_hi, int64_t in_lo,
                   int64_t in_hi)
{
    const int32_t inner = w->ndim - 1;
    const int nops = w->nops;
    int64_t idx[LT_MAX_NDIM];
    ptrdiff_t off[LT__MAX_OPS], step[LT__MAX_OPS];
    char *ptr[LT__MAX_OPS];
    for (int k = 0; k < nops; k++) {
        off[k] = in_lo * w->stride[inner][k];
        step[k] = w->stride[inner][k];
    }
    int64_t r = row_lo; /* unravel row_lo into the outer index, innermost first */
    for (int32_t d = inner - 1; d >= 0; d--) {
        idx[d] = r % w->shape[d];
        r /= w->shape[d];
        for (int k = 0; k < nops; k++)
            off[k] += idx[d] * w->stride[d][k];
    }
    for (int64_t row = row_lo; row < row_hi; row++) {
        for (int k = 0; k < nops; k++)
            ptr[k] = w->base[k] + off[k];
        kernel(ptr, step, in_hi - in_lo);
        /* Odometer step. Offsets never leave the view, not even by one
         * row: shape*stride might overflow where (shape-1)*stride does not. */
        for (int32_t d = inner - 1; d >= 0; d--) {
            if (idx[d] + 1 < w->shape[d]) {
                idx[d]++;
                for (int k = 0; k < nops; k++)
                    off[k] += w->stride[d][k];
                break;
            }
            for (int k = 0; k < nops; k++)
                off[k] -= (w->shape[d] - 1) * w->stride[d][k];
            idx[d] = 0;
        }
    }
}

typedef struct walk_job {
    const lt__walk *w;
    lt__kernel kernel;
} walk_job;

static void rows_range(void *ctx, int64_t lo, int64_t hi)
{
    const walk_job *job = ctx;
    lt__walk_rows(job->w, job->kernel, lo, hi, 0, job->w->shape[job->w->ndim - 1]);
}

static void inner_range(void *ctx, int64_t lo, int64_t hi)
{
    const walk_job *job = ctx;
    lt__walk_rows(job->w, job->kernel, 0, lt__walk_nrows(job->w), lo, hi);
}

void lt__walk_run(const lt__walk *w, lt__kernel kernel, int64_t bytes_per_element, int parallel)
{
    int64_t inner = w->shape[w->ndim - 1], rows = lt__walk_nrows(w), bytes;
    int nt = lt_get_num_threads();
    int big = !lt__mul_overflow(rows * inner, bytes_per_element, &bytes) ? bytes >= LT__PARALLEL_MIN_BYTES : 1;
    if (!parallel || nt == 1 || !big) {
        lt__walk_rows(w, kernel, 0, rows, 0, inner);
        return;
    }
    walk_job job = {w, kernel};
    /* Split whole rows when there are plenty; otherwise split the inner
     * dimension into long runs (4096 elements keeps each thread streaming). */
    if (rows >= 8 * (int64_t)nt || inner < 8192)
        lt__parallel_for(rows, 1, rows_range, &job);
    else
        lt__parallel_for(inner, 4096, inner_range, &job);
}
