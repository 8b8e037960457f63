/* test_random.c: lt_generator and the random fills. The engine against the
 * reference mt19937 outputs, the state round trip, [0, 1) at the extreme
 * words for every float dtype, results independent of the thread count,
 * and every refusal. */
#include <stdint.h>
#include <string.h>

#include "libtensor.h"
#include "minitest.h"

static lt_storage *storage_of(size_t nbytes)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, nbytes, 1), LT_OK);
    return s;
}

/* The state word that mt19937's tempering turns into y. */
static uint32_t untemper(uint32_t y)
{
    y ^= y >> 18;
    y ^= (y << 15) & 0xefc60000u;
    uint32_t t = y;
    for (int i = 0; i < 5; i++)
        t = y ^ ((t << 7) & 0x9d2c5680u);
    y = t;
    t = y;
    for (int i = 0; i < 3; i++)
        t = y ^ (t >> 11);
    return t;
}

static void test_reference_outputs(void)
{
    /* mt19937 seeded with 5489: the first output is 3499211612 and the
     * 10000th is 4123659995 (the C++ standard's check value). An int64 draw
     * over range 2^63 keeps a 64-bit word's low 63 bits: (first << 32 | second). */
    lt_generator *g = NULL;
    CHECK_INT(lt_generator_new(&g, 5489), LT_OK);
    lt_storage *s = storage_of(5000 * 8);
    CHECK_INT(lt_random_int(g, s, 0, LT_INT64, 5000, 1ull << 63, 0), LT_OK);
    const int64_t *v = lt_storage_data(s);
    CHECK_INT((uint64_t)v[0] >> 32, 3499211612u & 0x7fffffffu);
    CHECK_INT((uint32_t)v[4999], 4123659995u);
    CHECK_INT(lt_generator_initial_seed(g), 5489);
    lt_storage_release(s);
    lt_generator_free(g);
    lt_generator_free(NULL);
}

static void test_state_round_trip(void)
{
    lt_generator *g = NULL;
    CHECK_INT(lt_generator_new(&g, 42), LT_OK);
    lt_storage *a = storage_of(100 * 8), *b = storage_of(100 * 8);
    CHECK_INT(lt_random_normal(g, a, 0, LT_FLOAT64, 3, 0.0, 1.0, 1), LT_OK); /* leaves a cached normal */
    uint8_t state[LT_GENERATOR_STATE_NBYTES];
    CHECK_INT(lt_generator_get_state(g, state, sizeof state), LT_OK);
    CHECK_INT(lt_random_normal(g, a, 0, LT_FLOAT64, 100, 0.0, 1.0, 0), LT_OK);
    CHECK_INT(lt_generator_set_state(g, state, sizeof state), LT_OK);
    CHECK_INT(lt_random_normal(g, b, 0, LT_FLOAT64, 100, 0.0, 1.0, 0), LT_OK);
    CHECK(memcmp(lt_storage_data(a), lt_storage_data(b), 100 * 8) == 0);
    /* refusals leave the state alone */
    CHECK_INT(lt_generator_get_state(g, state, 10), LT_EINVAL);
    CHECK_INT(lt_generator_set_state(g, state, 10), LT_EINVAL);
    uint8_t bad[LT_GENERATOR_STATE_NBYTES] = {0};
    CHECK_INT(lt_generator_set_state(g, bad, sizeof bad), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "invalid mt19937 state") != NULL);
    lt_storage_release(a);
    lt_storage_release(b);
    lt_generator_free(g);
}

/* A generator whose next 623 words all temper to `word`. */
static lt_generator *drawing(uint32_t word)
{
    lt_generator *g = NULL;
    CHECK_INT(lt_generator_new(&g, 1), LT_OK);
    uint8_t st[LT_GENERATOR_STATE_NBYTES];
    CHECK_INT(lt_generator_get_state(g, st, sizeof st), LT_OK);
    int32_t left = 624;
    uint64_t next = 0, w = untemper(word);
    memcpy(st + 8, &left, 4);
    memcpy(st + 16, &next, 8);
    for (int i = 0; i < 624; i++)
        memcpy(st + 24 + 8 * i, &w, 8);
    CHECK_INT(lt_generator_set_state(g, st, sizeof st), LT_OK);
    return g;
}

static void test_extremes_stay_below_one(void)
{
    lt_storage *s = storage_of(64);
    lt_generator *g = drawing(0xffffffffu);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT64, 1, 0.0, 1.0), LT_OK);
    CHECK_DBL(*(double *)lt_storage_data(s), 1.0 - 0x1p-53);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT32, 1, 0.0, 1.0), LT_OK);
    CHECK_DBL(*(float *)lt_storage_data(s), 1.0 - 0x1p-24);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT16, 1, 0.0, 1.0), LT_OK);
    CHECK_INT(*(uint16_t *)lt_storage_data(s), 0x3bff); /* 1 - 2^-11 */
    CHECK_INT(lt_random_uniform(g, s, 0, LT_BFLOAT16, 1, 0.0, 1.0), LT_OK);
    CHECK_INT(*(uint16_t *)lt_storage_data(s), 0x3f7f); /* 1 - 2^-8 */
    lt_generator_free(g);
    g = drawing(0);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT32, 2, 0.0, 1.0), LT_OK);
    CHECK_DBL(((float *)lt_storage_data(s))[1], 0.0);
    lt_generator_free(g);
    lt_storage_release(s);
}

static void test_thread_count_does_not_matter(void)
{
    int64_t n = 300001; /* not a multiple of 16, above the threading threshold */
    lt_storage *a = storage_of((size_t)n * 4), *b = storage_of((size_t)n * 4);
    lt_generator *g = NULL;
    CHECK_INT(lt_generator_new(&g, 3), LT_OK);
    int before = lt_get_num_threads();
    lt_set_num_threads(1);
    CHECK_INT(lt_random_normal(g, a, 0, LT_FLOAT32, n, 0.0, 1.0, 1), LT_OK);
    lt_generator_manual_seed(g, 3);
    lt_set_num_threads(4);
    CHECK_INT(lt_random_normal(g, b, 0, LT_FLOAT32, n, 0.0, 1.0, 1), LT_OK);
    lt_set_num_threads(before);
    CHECK(memcmp(lt_storage_data(a), lt_storage_data(b), (size_t)n * 4) == 0);
    lt_storage_release(a);
    lt_storage_release(b);
    lt_generator_free(g);
}

static void test_16_bit_normals_in_chunks(void)
{
    /* float16 normals are float32 ones rounded, made 2^18 at a time: the
     * sizes around a chunk write every element, and exactly those */
    int64_t sizes[] = {16, 17, (1 << 18) + 5, 2 * (1 << 18) + 16};
    for (int k = 0; k < 4; k++) {
        int64_t n = sizes[k];
        lt_storage *s = storage_of((size_t)(n + 1) * 2);
        uint16_t *h = lt_storage_data(s);
        h[n] = 0x7e00; /* a NaN past the end: must stay */
        lt_generator *g = NULL;
        CHECK_INT(lt_generator_new(&g, 11), LT_OK);
        CHECK_INT(lt_random_normal(g, s, 0, LT_FLOAT16, n, 0.0, 1.0, 1), LT_OK);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += (h[i] & 0x7c00u) == 0x7c00u || h[i] == 0; /* inf, NaN, or never written */
        CHECK(bad <= n / 1000);
        CHECK_INT(h[n], 0x7e00);
        lt_generator_free(g);
        lt_storage_release(s);
    }
}

static void test_refusals(void)
{
    lt_generator *g = NULL;
    CHECK_INT(lt_generator_new(&g, 0), LT_OK);
    lt_storage *s = storage_of(16);
    uint64_t before = lt_storage_version(s);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT32, 5, 0.0, 1.0), LT_ERANGE);
    CHECK_INT(lt_random_uniform(g, s, 3, LT_FLOAT32, 2, 0.0, 1.0), LT_ERANGE);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_INT32, 2, 0.0, 1.0), LT_EDTYPE);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT32, 2, 2.0, 1.0), LT_EINVAL);
    CHECK_INT(lt_random_normal(g, s, 0, LT_FLOAT32, 2, 0.0, -1.0, 1), LT_EINVAL);
    CHECK_INT(lt_random_normal(g, s, 0, LT_INT64, 2, 0.0, 1.0, 1), LT_EDTYPE);
    CHECK_INT(lt_random_int(g, s, 0, LT_INT64, 2, 0, 0), LT_EINVAL);
    CHECK_INT(lt_random_int(g, s, 0, LT_COMPLEX64, 2, 5, 0), LT_EDTYPE);
    CHECK_INT(lt_random_perm(g, s, 0, LT_BOOL, 2), LT_EDTYPE);
    CHECK_INT(lt_random_perm(g, s, 0, LT_INT64, -1), LT_EINVAL);
    CHECK_INT(lt_random_uniform(NULL, s, 0, LT_FLOAT32, 1, 0.0, 1.0), LT_EINVAL);
    CHECK_INT(lt_random_uniform(g, NULL, 0, LT_FLOAT32, 1, 0.0, 1.0), LT_EINVAL);
    CHECK_INT(lt_storage_version(s), before);
    lt_storage_set_device(s, kDLCUDA, 0);
    CHECK_INT(lt_random_uniform(g, s, 0, LT_FLOAT32, 1, 0.0, 1.0), LT_EDEVICE);
    lt_storage_release(s);

    float ro[2] = {5, 5};
    lt_storage *r = NULL;
    CHECK_INT(lt_storage_wrap(&r, ro, sizeof ro, LT_STORAGE_READONLY, LT_PROV_BUFFER, NULL, NULL), LT_OK);
    CHECK_INT(lt_random_normal(g, r, 0, LT_FLOAT32, 2, 0.0, 1.0, 1), LT_EREADONLY);
    CHECK_DBL(ro[0], 5);
    lt_storage_release(r);
    lt_generator_free(g);
}

int main(void)
{
    test_reference_outputs();
    test_state_round_trip();
    test_extremes_stay_below_one();
    test_thread_count_does_not_matter();
    test_16_bit_normals_in_chunks();
    test_refusals();
    MT_DONE();
}
