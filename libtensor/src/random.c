/*
 * random.c: the random number generator (lt_generator) and the kernels that
 * fill a storage with samples from it: uniform, normal, integers, and
 * permutations.
 *
 * The goal is torch 2.13's CPU numbers, bit for bit, for the same seed, so
 * every step below follows what torch's CPU generator does (facts read from
 * torch's sources; the code is ours):
 *
 *   engine    Mersenne Twister mt19937, seeded from the low 32 bits of the
 *             seed (Matsumoto and Nishimura's init_genrand), one 32-bit word
 *             per draw; a 64-bit draw is two words, the first one high.
 *   uniform   a float dtype with d significant bits (11 float16, 8 bfloat16,
 *             24 float32, 53 float64) takes the low d bits of a draw (64-bit
 *             for float64, 32-bit otherwise) times 2^-d: k / 2^d with
 *             k < 2^d, exactly representable, so always in [0, 1), and
 *             then x * (to - from) + from.
 *   normal    >= 16 contiguous elements: every element is first a uniform
 *             of the dtype; then each block of 16 turns into 16 normals by
 *             Box-Muller, element j and j + 8 a pair (u1 = 1 - x[j] and
 *             u2 = x[j + 8]); when n is not a multiple of 16, 16 new
 *             uniforms are drawn into the last 16 elements and that block
 *             is redone. float32 uses the polynomial log and sincos torch's
 *             vectorized kernel uses on every x86-64 CPU with AVX2
 *             (boxmuller_f32.c); float64 calls libm; float16 and
 *             bfloat16 are float32 normals rounded, their uniforms drawn
 *             for whole blocks only (then 16 for the redone last block).
 *             Fewer than 16 elements, or a tensor that is not contiguous:
 *             each sample is one half of a double Box-Muller pair, the other
 *             half cached in the generator for the next sample.
 *   integers  (draw mod range) + low, with a 64-bit draw from a range of 2^28
 *             on (for float dtypes, Python first moves the ends inward to
 *             values the dtype holds, as torch's update_from/update_to do).
 *             The remainder is taken with multiplies (fastmod below): the
 *             same value as torch's division, several times faster.
 *   randperm  Fisher-Yates over 0..n-1 with 32-bit draws (64-bit, inside-out,
 *             from n >= 2^32 / 20).
 *
 * Seeding (init_genrand's 624 dependent multiplies) waits for the first
 * draw or state export, so a Generator() that is reseeded at once, or a
 * manual_seed that is never drawn from, costs no initialisation.
 *
 * Reproducibility: draws come from one engine in one order, so they are made
 * on the calling thread only; the Box-Muller transform of the blocks (the
 * costly part of randn) is split over threads afterwards, and each block's
 * result depends only on its own 16 inputs, so the numbers do not depend
 * on the thread count.
 *
 * Every product and sum in the transforms is its own statement, and fused
 * steps are explicit fmaf calls: a compiler that fused (or split) a * b + c
 * on its own would change last bits. The uniform of a float16 or bfloat16
 * tensor (rand, uniform_) is k / 2^11 or k / 2^8, where torch rounds a
 * float32 sample and maps a 1 to 0: the README says why.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "boxmuller_f32.h"
#include "kernels.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

struct lt_generator {
    uint64_t seed;   /* the seed last given (initial_seed); only its low 32 bits seed the engine */
    int32_t left;    /* draws left before the next twist, plus one (torch's bookkeeping) */
    uint32_t next;   /* index of the next state word to temper */
    uint32_t state[MT_N];
    /* 1 while state[] has not been computed from seed yet: seeding is 624
     * dependent multiplies (about 1 us), so it waits for the first draw or
     * state export, and Generator().manual_seed(s) pays it once, not twice */
    int words_pending;
    int has_double_normal; /* the cached second half of a double Box-Muller pair */
    double next_double_normal;
    int has_float_normal; /* kept for torch's state layout; nothing here sets it */
    float next_float_normal;
};

/* ------------------------------------------------------------ the lock
 *
 * One lock serialises every generator's draws (and its seeding and state),
 * so two threads drawing from one generator get disjoint samples. It is held
 * only while words are drawn, never during the normal transform. A fork
 * waits for the draw in progress and the child starts with the lock free
 * (pthread_atfork), so a process forked from a busy thread never deadlocks. */
static pthread_mutex_t draw_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&draw_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&draw_lock); }
static void fork_child(void) { pthread_mutex_init(&draw_lock, NULL); }
static void register_fork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static void lock(void)
{
    pthread_once(&fork_once, register_fork);
    pthread_mutex_lock(&draw_lock);
}
static void unlock(void) { pthread_mutex_unlock(&draw_lock); }

/* ------------------------------------------------------------ the engine */

/* Restarts g from seed; the words follow on first use (seed_words). */
static void seed_engine(lt_generator *g, uint64_t seed)
{
    g->seed = seed;
    g->words_pending = 1;
    g->left = 1;
    g->next = 0;
    g->has_double_normal = g->has_float_normal = 0;
    g->next_double_normal = 0.0;
    g->next_float_normal = 0.0f;
}

/* Matsumoto and Nishimura's init_genrand from the low 32 bits of the seed,
 * if seed_engine left it pending. */
static inline void seed_words(lt_generator *g)
{
    if (!g->words_pending)
        return;
    g->state[0] = (uint32_t)g->seed;
    for (uint32_t j = 1; j < MT_N; j++)
        g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + j;
    g->words_pending = 0;
}

static inline uint32_t twist_word(uint32_t u, uint32_t v, uint32_t far)
{
    uint32_t mixed = (u & MT_UPPER) | (v & MT_LOWER);
    return far ^ (mixed >> 1) ^ ((v & 1u) ? MT_MATRIX_A : 0u);
}

/* Regenerates all 624 words: word i from words i, i + 1 and i + 397 (mod 624). */
static void twist(lt_generator *g)
{
    uint32_t *s = g->state;
    int i = 0;
    for (; i < MT_N - MT_M; i++)
        s[i] = twist_word(s[i], s[i + 1], s[i + MT_M]);
    for (; i < MT_N - 1; i++)
        s[i] = twist_word(s[i], s[i + 1], s[i + MT_M - MT_N]);
    s[MT_N - 1] = twist_word(s[MT_N - 1], s[0], s[MT_M - 1]);
    g->next = 0;
}

static inline uint32_t temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* Writes the next n words of the stream to out. A twist happens on the draw
 * that finds left == 1, as in torch, so the (left, next) pair exported by
 * lt_generator_get_state is torch's. */
static void draw_words(lt_generator *g, uint32_t *out, int64_t n)
{
    seed_words(g);
    while (n > 0) {
        if (g->left == 1) {
            twist(g);
            g->left = MT_N + 1;
        }
        int64_t take = g->left - 1 < n ? g->left - 1 : n;
        const uint32_t *s = g->state + g->next;
        for (int64_t i = 0; i < take; i++)
            out[i] = temper(s[i]);
        g->next += (uint32_t)take;
        g->left -= (int32_t)take;
        out += take;
        n -= take;
    }
}

static inline uint32_t draw32(lt_generator *g)
{
    uint32_t w;
    draw_words(g, &w, 1);
    return w;
}

static inline uint64_t draw64(lt_generator *g)
{
    uint32_t w[2];
    draw_words(g, w, 2);
    return ((uint64_t)w[0] << 32) | w[1];
}

/* ------------------------------------------------------------ generator API */

lt_status lt_generator_new(lt_generator **out, uint64_t seed)
{
    if (!out)
        return lt__fail(LT_EINVAL, "lt_generator_new: out is NULL");
    lt_generator *g = malloc(sizeof *g);
    if (!g)
        return lt__fail(LT_ENOMEM, "lt_generator_new: could not allocate %zu bytes", sizeof *g);
    seed_engine(g, seed);
    *out = g;
    return LT_OK;
}

void lt_generator_free(lt_generator *gen) { free(gen); }

void lt_generator_manual_seed(lt_generator *gen, uint64_t seed)
{
    lock();
    seed_engine(gen, seed);
    unlock();
}

uint64_t lt_generator_initial_seed(const lt_generator *gen)
{
    lock();
    uint64_t seed = gen->seed;
    unlock();
    return seed;
}

/* torch's CPUGeneratorImplState on a 64-bit little-endian host: byte offsets
 * of each field (the legacy struct keeps 64-bit state words). */
enum {
    ST_SEED = 0,          /* uint64 the_initial_seed */
    ST_LEFT = 8,          /* int32 left */
    ST_SEEDED = 12,       /* int32 seeded */
    ST_NEXT = 16,         /* uint64 next */
    ST_WORDS = 24,        /* uint64 state[624] */
    ST_NORMAL_Y = 5024,   /* double normal_y: the cached double normal */
    ST_NORMAL_VALID = 5040, /* int32 normal_is_valid */
    ST_FLOAT_NORMAL = 5048, /* float next_float_normal_sample */
    ST_FLOAT_VALID = 5052,  /* bool is_next_float_normal_sample_valid */
};

static void put(uint8_t *buf, size_t at, const void *v, size_t n) { memcpy(buf + at, v, n); }
static void get(const uint8_t *buf, size_t at, void *v, size_t n) { memcpy(v, buf + at, n); }

lt_status lt_generator_get_state(const lt_generator *gen, uint8_t *out, size_t nbytes)
{
    if (nbytes != LT_GENERATOR_STATE_NBYTES)
        return lt__fail(LT_EINVAL, "lt_generator_get_state: the state is %d bytes, not %zu",
                        LT_GENERATOR_STATE_NBYTES, nbytes);
    memset(out, 0, nbytes);
    lock();
    /* The words are a cache of the seed, so filling them in place changes
     * nothing a caller can see (the generator is heap memory, never const
     * itself), and the next export or draw does not compute them again. */
    seed_words((lt_generator *)gen);
    lt_generator g = *gen;
    unlock();
    int32_t seeded = 1, valid = g.has_double_normal;
    uint64_t next = g.next;
    put(out, ST_SEED, &g.seed, 8);
    put(out, ST_LEFT, &g.left, 4);
    put(out, ST_SEEDED, &seeded, 4);
    put(out, ST_NEXT, &next, 8);
    for (int i = 0; i < MT_N; i++) {
        uint64_t w = g.state[i];
        put(out, ST_WORDS + 8 * (size_t)i, &w, 8);
    }
    if (valid)
        put(out, ST_NORMAL_Y, &g.next_double_normal, 8);
    put(out, ST_NORMAL_VALID, &valid, 4);
    if (g.has_float_normal) {
        put(out, ST_FLOAT_NORMAL, &g.next_float_normal, 4);
        out[ST_FLOAT_VALID] = 1;
    }
    return LT_OK;
}

lt_status lt_generator_set_state(lt_generator *gen, const uint8_t *state, size_t nbytes)
{
    if (nbytes != LT_GENERATOR_STATE_NBYTES)
        return lt__fail(LT_EINVAL, "set_state: a generator state is %d bytes, got %zu",
                        LT_GENERATOR_STATE_NBYTES, nbytes);
    lt_generator g;
    int32_t seeded, valid;
    uint64_t next;
    get(state, ST_SEED, &g.seed, 8);
    get(state, ST_LEFT, &g.left, 4);
    get(state, ST_SEEDED, &seeded, 4);
    get(state, ST_NEXT, &next, 8);
    /* The draws before the next twist read words next .. next + left - 2, so
     * next + left may not pass 625; torch's own states always satisfy it. */
    if (seeded != 1 || g.left < 1 || g.left > MT_N || next > MT_N || next + (uint64_t)g.left > MT_N + 1)
        return lt__fail(LT_EINVAL, "set_state: invalid mt19937 state (seeded %" PRId32 ", left %" PRId32
                        ", next %" PRIu64 "; need seeded 1, 1 <= left <= 624 and next + left <= 625)",
                        seeded, g.left, next);
    g.next = (uint32_t)next;
    g.words_pending = 0;
    for (int i = 0; i < MT_N; i++) {
        uint64_t w;
        get(state, ST_WORDS + 8 * (size_t)i, &w, 8);
        g.state[i] = (uint32_t)w;
    }
    get(state, ST_NORMAL_VALID, &valid, 4);
    g.has_double_normal = valid != 0;
    g.next_double_normal = 0.0;
    if (valid)
        get(state, ST_NORMAL_Y, &g.next_double_normal, 8);
    g.has_float_normal = state[ST_FLOAT_VALID] != 0;
    g.next_float_normal = 0.0f;
    if (g.has_float_normal)
        get(state, ST_FLOAT_NORMAL, &g.next_float_normal, 4);
    lock();
    *gen = g;
    unlock();
    return LT_OK;
}

/* ------------------------------------------------------------ targets */

static int is_host(int32_t device_type)
{
    return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost ||
           device_type == kDLCUDAManaged;
}

/* The checks every fill makes: generator, storage writable and on the host,
 * n elements of dtype from element offset inside it. Sets *out to the first
 * element. */
static lt_status check_target(char **out, const lt_generator *gen, const lt_storage *storage, int64_t offset,
                              lt_dtype dtype, int64_t n, const char *fn)
{
    if (!gen || !storage)
        return lt__fail(LT_EINVAL, "%s: the %s is NULL", fn, gen ? "storage" : "generator");
    if (n < 0 || offset < 0)
        return lt__fail(LT_EINVAL, "%s: n %" PRId64 " and offset %" PRId64 " must be >= 0", fn, n, offset);
    if (lt_storage_flags(storage) & LT_STORAGE_READONLY)
        return lt__fail(LT_EREADONLY, "%s: the storage is read-only", fn);
    if (!is_host(lt_storage_device_type(storage)))
        return lt__fail(LT_EDEVICE, "%s: the storage is on device type %d, not in host memory", fn,
                        (int)lt_storage_device_type(storage));
    size_t itemsize = lt_dtype_itemsize(dtype), end;
    /* bytes needed = (offset + n) * itemsize */
    if (__builtin_add_overflow((size_t)offset, (size_t)n, &end) || __builtin_mul_overflow(end, itemsize, &end) ||
        end > lt_storage_nbytes(storage))
        return lt__fail(LT_ERANGE, "%s: elements %" PRId64 "..%" PRId64 " of %zu bytes do not fit a storage of %zu bytes",
                        fn, offset, offset + n, itemsize, lt_storage_nbytes(storage));
    *out = (char *)lt_storage_data(storage) + (size_t)offset * itemsize;
    return LT_OK;
}

static int is_float(lt_dtype d)
{
    return d == LT_FLOAT16 || d == LT_BFLOAT16 || d == LT_FLOAT32 || d == LT_FLOAT64;
}

/* Complex values are pairs of reals, filled as 2n reals (torch's view_as_real). */
static lt_dtype real_of(lt_dtype d, int64_t *n)
{
    if (d == LT_COMPLEX64 || d == LT_COMPLEX128) {
        *n *= 2;
        return d == LT_COMPLEX64 ? LT_FLOAT32 : LT_FLOAT64;
    }
    return d;
}

/* Words drawn per round of a fill: 16 KiB on the stack. */
#define ROUND 4096

/* ------------------------------------------------------------ uniform */

/* a - b in the 16-bit type (computed in float, rounded once), as c10's operators do */
static inline float half_sub(uint16_t a, uint16_t b)
{
    return lt__f16_to_f32(lt__f32_to_f16(lt__f16_to_f32(a) - lt__f16_to_f32(b)));
}
static inline float bf16_sub(uint16_t a, uint16_t b)
{
    return lt__bf16_to_f32(lt__f32_to_bf16(lt__bf16_to_f32(a) - lt__bf16_to_f32(b)));
}

/* n uniforms of dtype (a real float dtype) from the engine, under the lock. */
static void uniform_fill(lt_generator *g, char *dst, lt_dtype dtype, int64_t n, double from, double to)
{
    uint32_t w[ROUND];
    int64_t per = dtype == LT_FLOAT64 ? 2 : 1, step = ROUND / per;
    for (int64_t first = 0; first < n; first += step) {
        int64_t count = n - first < step ? n - first : step;
        draw_words(g, w, count * per);
        if (dtype == LT_FLOAT64) {
            double *d = (double *)dst + first, span = to - from;
            for (int64_t i = 0; i < count; i++) {
                uint64_t bits = ((uint64_t)w[2 * i] << 32) | w[2 * i + 1];
                double x = (double)(bits & ((1ull << 53) - 1)) * 0x1p-53;
                double scaled = x * span;
                d[i] = scaled + from;
            }
        } else if (dtype == LT_FLOAT32) {
            float *f = (float *)dst + first, lo = (float)from, span = (float)to - lo;
            for (int64_t i = 0; i < count; i++) {
                float x = (float)(w[i] & 0xffffffu) * 0x1p-24f;
                float scaled = x * span;
                f[i] = scaled + lo;
            }
        } else {
            /* float16 / bfloat16: the ends are rounded to the dtype, their
             * difference is computed in the dtype, the sample in float. */
            int half = dtype == LT_FLOAT16;
            uint16_t *h = (uint16_t *)dst + first;
            uint16_t lo16 = half ? lt__f32_to_f16((float)from) : lt__f32_to_bf16((float)from);
            uint16_t hi16 = half ? lt__f32_to_f16((float)to) : lt__f32_to_bf16((float)to);
            float lo = half ? lt__f16_to_f32(lo16) : lt__bf16_to_f32(lo16);
            float span = half ? half_sub(hi16, lo16) : bf16_sub(hi16, lo16);
            uint32_t mask = half ? 0x7ffu : 0xffu;
            float unit = half ? 0x1p-11f : 0x1p-8f;
            for (int64_t i = 0; i < count; i++) {
                float x = (float)(w[i] & mask) * unit;
                float scaled = x * span;
                float v = scaled + lo;
                h[i] = half ? lt__f32_to_f16(v) : lt__f32_to_bf16(v);
            }
        }
    }
}

lt_status lt_random_uniform(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                            double from, double to)
{
    char *dst;
    lt_status rc = check_target(&dst, gen, storage, offset, dtype, n, "uniform_");
    if (rc != LT_OK)
        return rc;
    lt_dtype real = real_of(dtype, &n);
    if (!is_float(real))
        return lt__fail(LT_EDTYPE, "uniform_: dtype %s is not a floating dtype", lt_dtype_name(dtype));
    if (!(from <= to))
        return lt__fail(LT_EINVAL, "uniform_: from %g must be <= to %g", from, to);
    lock();
    uniform_fill(gen, dst, real, n, from, to);
    unlock();
    lt_storage_bump_version(storage);
    return LT_OK;
}

/* ------------------------------------------------------------ normal: blocks */

static void normal_block_f64(double *x, double mean, double std)
{
    const double two_pi = 2.0 * 3.14159265358979323846;
    for (int j = 0; j < 8; j++) {
        double u1 = 1.0 - x[j], u2 = x[j + 8];
        double lg = log(u1);
        double radius = sqrt(-2.0 * lg);
        double theta = two_pi * u2;
        double c = radius * cos(theta), s = radius * sin(theta);
        double cs = c * std, ss = s * std;
        x[j] = cs + mean;
        x[j + 8] = ss + mean;
    }
}

typedef struct block_job {
    char *data;
    lt_dtype dtype;
    double mean, std;
} block_job;

static void blocks_range(void *ctx, int64_t lo, int64_t hi)
{
    const block_job *job = ctx;
    if (job->dtype == LT_FLOAT32) {
        lt__normal_blocks_f32((float *)job->data, lo, hi, (float)job->mean, (float)job->std);
        return;
    }
    for (int64_t b = lo; b < hi; b++)
        normal_block_f64((double *)job->data + b * 16, job->mean, job->std);
}

/* Blocks per thread at least: below ~64K samples one thread is faster. */
#define MIN_BLOCKS_PER_THREAD 4096

static void normal_blocks(lt_generator *g, char *dst, lt_dtype dtype, int64_t n, double mean, double std)
{
    size_t itemsize = lt_dtype_itemsize(dtype);
    _Alignas(16) char tail[16 * 8];
    lock();
    uniform_fill(g, dst, dtype, n, 0.0, 1.0);
    if (n % 16)
        uniform_fill(g, tail, dtype, 16, 0.0, 1.0);
    unlock();
    block_job job = {dst, dtype, mean, std};
    lt__parallel_for(n / 16, MIN_BLOCKS_PER_THREAD, blocks_range, &job);
    if (n % 16) {
        /* The last 16 elements are redone from the 16 fresh uniforms. */
        memcpy(dst + (size_t)(n - 16) * itemsize, tail, 16 * itemsize);
        job.data = dst + (size_t)(n - 16) * itemsize;
        blocks_range(&job, 0, 1);
    }
}

/* float16 / bfloat16 normals, as torch makes them: float32 blocks rounded to
 * the 16-bit dtype, a chunk at a time (so the only memory is a 1 MiB buffer),
 * uniforms drawn for whole blocks only, then 16 for the redone last block.
 * The lock is held throughout so that the draws stay consecutive. */
#define CHUNK_16 (1 << 18)

/* Draws count float32 uniforms into buf, turns them into normals, and
 * writes them rounded to out. Called under the lock. */
static void round_16(lt_generator *g, float *buf, int64_t count, block_job *job, uint16_t *out, int half)
{
    uniform_fill(g, (char *)buf, LT_FLOAT32, count, 0.0, 1.0);
    lt__parallel_for(count / 16, MIN_BLOCKS_PER_THREAD, blocks_range, job);
    for (int64_t i = 0; i < count; i++)
        out[i] = half ? lt__f32_to_f16(buf[i]) : lt__f32_to_bf16(buf[i]);
}

static lt_status normal_blocks_16(lt_generator *g, uint16_t *dst, int half, int64_t n, double mean, double std)
{
    int64_t whole = n - n % 16, cap = whole < CHUNK_16 ? whole : CHUNK_16; /* n >= 16, so cap >= 16 */
    float *buf = malloc((size_t)cap * sizeof *buf);
    if (!buf)
        return lt__fail(LT_ENOMEM, "normal_: could not allocate %" PRId64 " floats", cap);
    block_job job = {(char *)buf, LT_FLOAT32, mean, std};
    lock();
    for (int64_t first = 0; first < whole; first += cap)
        round_16(g, buf, whole - first < cap ? whole - first : cap, &job, dst + first, half);
    if (n % 16)
        round_16(g, buf, 16, &job, dst + n - 16, half);
    unlock();
    free(buf);
    return LT_OK;
}

/* One standard normal in double: the second half of a cached pair if there
 * is one, else a new pair from two 53-bit uniforms (u1 for the angle, u2 for
 * the radius), the sine half cached. Called under the lock. */
static double normal_scalar(lt_generator *g)
{
    if (g->has_double_normal) {
        g->has_double_normal = 0;
        return g->next_double_normal;
    }
    uint64_t a = draw64(g), b = draw64(g);
    double u1 = (double)(a & ((1ull << 53) - 1)) * 0x1p-53, u2 = (double)(b & ((1ull << 53) - 1)) * 0x1p-53;
    double r = sqrt(-2.0 * log1p(-u2));
    double theta = 2.0 * 3.14159265358979323846 * u1;
    g->next_double_normal = r * sin(theta);
    g->has_double_normal = 1;
    return r * cos(theta);
}

static void normal_scalars(lt_generator *g, char *dst, lt_dtype dtype, int64_t n, double mean, double std)
{
    lock();
    for (int64_t i = 0; i < n; i++) {
        double z = normal_scalar(g);
        double scaled = z * std;
        double v = scaled + mean;
        /* torch converts the double to the dtype through float for the 16-bit types */
        switch (dtype) {
        case LT_FLOAT64: ((double *)dst)[i] = v; break;
        case LT_FLOAT32: ((float *)dst)[i] = (float)v; break;
        case LT_FLOAT16: ((uint16_t *)dst)[i] = lt__f32_to_f16((float)v); break;
        default: ((uint16_t *)dst)[i] = lt__f32_to_bf16((float)v); break;
        }
    }
    unlock();
}

lt_status lt_random_normal(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                           double mean, double std, int contiguous)
{
    char *dst;
    lt_status rc = check_target(&dst, gen, storage, offset, dtype, n, "normal_");
    if (rc != LT_OK)
        return rc;
    if (dtype == LT_COMPLEX64 || dtype == LT_COMPLEX128)
        std = std / sqrt(2.0); /* each part gets half the variance, as in torch */
    lt_dtype real = real_of(dtype, &n);
    if (!is_float(real))
        return lt__fail(LT_EDTYPE, "normal_: dtype %s is not a floating dtype", lt_dtype_name(dtype));
    if (!(std >= 0.0))
        return lt__fail(LT_EINVAL, "normal_: std is %g; it must be >= 0", std);
    if (contiguous && n >= 16 && (real == LT_FLOAT16 || real == LT_BFLOAT16)) {
        rc = normal_blocks_16(gen, (uint16_t *)dst, real == LT_FLOAT16, n, mean, std);
        if (rc != LT_OK)
            return rc;
    } else if (contiguous && n >= 16)
        normal_blocks(gen, dst, real, n, mean, std);
    else
        normal_scalars(gen, dst, real, n, mean, std);
    lt_storage_bump_version(storage);
    return LT_OK;
}

/* ------------------------------------------------------------ integers */

/* Stores the int64 value v as one element of dtype (integers wrap, floats
 * round as a C conversion does, through float for the 16-bit floats). */
static void store_int(char *dst, lt_dtype dtype, int64_t i, int64_t v)
{
    switch (dtype) {
    case LT_BOOL: ((uint8_t *)dst)[i] = v != 0; break;
    case LT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
    case LT_INT8: ((int8_t *)dst)[i] = (int8_t)v; break;
    case LT_INT16: ((int16_t *)dst)[i] = (int16_t)v; break;
    case LT_UINT16: ((uint16_t *)dst)[i] = (uint16_t)v; break;
    case LT_INT32: ((int32_t *)dst)[i] = (int32_t)v; break;
    case LT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)v; break;
    case LT_INT64: ((int64_t *)dst)[i] = v; break;
    case LT_UINT64: ((uint64_t *)dst)[i] = (uint64_t)v; break;
    case LT_FLOAT16: ((uint16_t *)dst)[i] = lt__f32_to_f16((float)v); break;
    case LT_BFLOAT16: ((uint16_t *)dst)[i] = lt__f32_to_bf16((float)v); break;
    case LT_FLOAT32: ((float *)dst)[i] = (float)v; break;
    default: ((double *)dst)[i] = (double)v; break;
    }
}

static int is_real_number(lt_dtype d) { return d <= LT_INT64 || is_float(d); } /* bool, the integers, the floats */

/* Stores count int64 values as elements first .. first + count - 1 of dtype,
 * the dtype decided once per call (store_int's conversions). */
static void store_ints(char *dst, lt_dtype dtype, int64_t first, const int64_t *v, int64_t count)
{
#define STORE_LOOP(T) \
    for (int64_t i = 0; i < count; i++) \
        ((T *)dst)[first + i] = (T)v[i]; \
    break
    switch (dtype) {
    case LT_UINT8: STORE_LOOP(uint8_t);
    case LT_INT8: STORE_LOOP(int8_t);
    case LT_INT16: STORE_LOOP(int16_t);
    case LT_INT32: STORE_LOOP(int32_t);
    case LT_UINT16: STORE_LOOP(uint16_t);
    case LT_UINT32: STORE_LOOP(uint32_t);
    case LT_INT64: STORE_LOOP(int64_t);
    case LT_UINT64: STORE_LOOP(uint64_t);
    case LT_FLOAT32: STORE_LOOP(float);
    case LT_FLOAT64: STORE_LOOP(double);
    default:
        for (int64_t i = 0; i < count; i++)
            store_int(dst, dtype, first + i, v[i]);
        break;
    }
#undef STORE_LOOP
}

/* x mod d for a 32-bit x and a divisor d < 2^32 fixed for a whole fill, with
 * one multiply instead of a division (Lemire, Kaser and Kurz, "Faster
 * remainder by direct computation", 2019): m = floor((2^64 - 1) / d) + 1,
 * then x mod d = ((m * x mod 2^64) * d) >> 64, exact for every 32-bit x and d
 * (d = 1 gives m = 0 and the remainder 0). */
__extension__ typedef unsigned __int128 u128; /* GCC and Clang's; __extension__ keeps -Wpedantic quiet */

static inline uint64_t fastmod_m(uint32_t d) { return UINT64_MAX / d + 1; }
static inline uint32_t fastmod(uint32_t x, uint64_t m, uint32_t d)
{
    uint64_t low = m * x;
    return (uint32_t)(((u128)low * d) >> 64);
}

/* The same for a 64-bit x and d, with m = floor((2^128 - 1) / d) + 1 (128
 * bits, the paper's F = 2N): x mod d = ((m * x mod 2^128) * d) >> 128, the
 * 128 x 64-bit product taken in two halves. */
static inline u128 fastmod64_m(uint64_t d) { return ~(u128)0 / d + 1; }
static inline uint64_t fastmod64(uint64_t x, u128 m, uint64_t d)
{
    u128 low = m * x;
    u128 bottom = ((low & UINT64_MAX) * d) >> 64; /* (low mod 2^64) * d, high word */
    u128 top = (low >> 64) * d;
    return (uint64_t)((bottom + top) >> 64);
}

/* n integers (draw mod range) + low, under the lock: a round of words at a
 * time, the sums in int64 and then stored in dtype. */
static void int_fill(lt_generator *g, char *dst, lt_dtype dtype, int64_t n, uint64_t range, int64_t low)
{
    uint32_t w[ROUND];
    int64_t vals[ROUND / 2];
    /* torch 2.13 draws 64 bits from a range of 2^28 on, so that the modulo's
     * skew stays small, and 32 bits below */
    int wide = range >= (1ull << 28);
    int64_t per = wide ? 2 : 1, step = ROUND / 2;
    uint32_t d = (uint32_t)range;
    uint64_t m = wide ? 0 : fastmod_m(d);
    u128 m64 = wide ? fastmod64_m(range) : 0;
    for (int64_t first = 0; first < n; first += step) {
        int64_t count = n - first < step ? n - first : step;
        int64_t *v = dtype == LT_INT64 ? (int64_t *)dst + first : vals;
        draw_words(g, w, count * per);
        if (wide)
            for (int64_t i = 0; i < count; i++)
                v[i] = (int64_t)(fastmod64(((uint64_t)w[2 * i] << 32) | w[2 * i + 1], m64, range) + (uint64_t)low);
        else
            for (int64_t i = 0; i < count; i++)
                v[i] = (int64_t)((uint64_t)fastmod(w[i], m, d) + (uint64_t)low);
        if (dtype != LT_INT64)
            store_ints(dst, dtype, first, vals, count);
    }
}

lt_status lt_random_int(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n,
                        uint64_t range, int64_t low)
{
    char *dst;
    lt_status rc = check_target(&dst, gen, storage, offset, dtype, n, "random_");
    if (rc != LT_OK)
        return rc;
    if (!is_real_number(dtype))
        return lt__fail(LT_EDTYPE, "random_: dtype %s has no integers to draw", lt_dtype_name(dtype));
    if (range == 0)
        return lt__fail(LT_EINVAL, "random_: the range is empty (low %" PRId64 ", high %" PRId64 ")", low, low);
    lock();
    int_fill(gen, dst, dtype, n, range, low);
    unlock();
    lt_storage_bump_version(storage);
    return LT_OK;
}

/* ------------------------------------------------------------ permutations */

lt_status lt_random_perm(lt_generator *gen, lt_storage *storage, int64_t offset, lt_dtype dtype, int64_t n)
{
    char *dst;
    lt_status rc = check_target(&dst, gen, storage, offset, dtype, n, "randperm");
    if (rc != LT_OK)
        return rc;
    if (!is_real_number(dtype) || dtype == LT_BOOL)
        return lt__fail(LT_EDTYPE, "randperm: dtype %s cannot hold 0..n-1", lt_dtype_name(dtype));
    int64_t *p = dtype == LT_INT64 ? (int64_t *)dst : malloc((size_t)(n ? n : 1) * sizeof *p);
    if (!p)
        return lt__fail(LT_ENOMEM, "randperm: could not allocate %" PRId64 " indices", n);
    lock();
    if (n < (int64_t)(UINT32_MAX / 20)) {
        for (int64_t i = 0; i < n; i++)
            p[i] = i;
        /* The draws a round at a time; n - i < 2^32 here, so the 32-bit
         * remainder is the one torch takes in 64 bits. */
        uint32_t w[ROUND];
        for (int64_t first = 0; first < n - 1; first += ROUND) {
            int64_t count = n - 1 - first < ROUND ? n - 1 - first : ROUND;
            draw_words(gen, w, count);
            for (int64_t k = 0; k < count; k++) {
                int64_t i = first + k, z = i + (int64_t)(w[k] % (uint32_t)(n - i)), keep = p[i];
                p[i] = p[z];
                p[z] = keep;
            }
        }
    } else { /* inside-out: 64-bit draws, so that n near 2^32 is not skewed */
        for (int64_t i = 0; i < n; i++) {
            int64_t z = (int64_t)(draw64(gen) % (uint64_t)(i + 1));
            p[i] = p[z];
            p[z] = i;
        }
    }
    unlock();
    if (dtype != LT_INT64) {
        store_ints(dst, dtype, 0, p, n);
        free(p);
    }
    lt_storage_bump_version(storage);
    return LT_OK;
}
