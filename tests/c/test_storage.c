/* test_storage.c: refcounts, the deleter runs exactly once (also from other
 * threads and on failed wraps), alignment, flags, labels, versions, and the
 * cache of freed large blocks (reuse, zeroing, bounds, trim, threads). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "libtensor.h"
#include "minitest.h"

static atomic_int deleter_calls;
static void *last_ctx;

static void counting_deleter(void *ctx)
{
    atomic_fetch_add(&deleter_calls, 1);
    last_ctx = ctx;
}

static void *retain_release_many(void *arg)
{
    lt_storage *s = arg;
    for (int i = 0; i < 100000; i++) {
        lt_storage_retain(s);
        lt_storage_bump_version(s);
        lt_storage_release(s);
    }
    return NULL;
}

#define MIB ((size_t)1 << 20)

static void *churn_large_blocks(void *arg)
{
    /* Each thread stamps its blocks and checks the stamps before releasing:
     * a block handed to two live storages at once would show a foreign one. */
    uintptr_t id = (uintptr_t)arg;
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        lt_storage *s = NULL;
        size_t nbytes = (2 + (id + i) % 3) * MIB;
        if (lt_storage_new(&s, nbytes, (i % 5) == 0) != LT_OK)
            return (void *)1;
        unsigned char *p = lt_storage_data(s);
        memset(p, (int)id, 64);
        memset(p + nbytes - 64, (int)id, 64);
        sched_yield();
        bad += p[0] != id || p[63] != id || p[nbytes - 1] != id;
        lt_storage_release(s);
    }
    return (void *)(uintptr_t)bad;
}

/* Large blocks: a freed one is reused for the next similar request unless
 * zeroing is asked for, the cache stays bounded, and trim empties it. */
static void test_large_block_cache(int64_t live0)
{
    lt_storage *s = NULL, *t = NULL;
    lt_storage_trim(); /* start empty: earlier checks may have cached blocks */
    CHECK_INT(lt_storage_trim(), 0);

    CHECK_INT(lt_storage_new(&s, 4 * MIB, 0), LT_OK);
    void *first = lt_storage_data(s);
    memset(first, 0xab, 4 * MIB);
    lt_storage_release(s);
    CHECK_INT(lt_storage_live_count(), live0); /* a cached block is not a live storage */
    CHECK_INT(lt_storage_new(&s, 4 * MIB - 100, 0), LT_OK); /* same whole huge pages: reused */
    CHECK(lt_storage_data(s) == first);
    CHECK_INT(lt_storage_nbytes(s), 4 * MIB - 100);
    lt_storage_release(s);

    /* zero = 1 never sees old bytes */
    CHECK_INT(lt_storage_new(&s, 4 * MIB, 1), LT_OK);
    CHECK(lt_storage_data(s) != first); /* the cached block is still mapped */
    const unsigned char *z = lt_storage_data(s);
    size_t nonzero = 0;
    for (size_t i = 0; i < 4 * MIB; i += 4093)
        nonzero += z[i] != 0;
    CHECK_INT(nonzero + z[4 * MIB - 1], 0);
    CHECK_INT((uintptr_t)z % (2 * MIB), 0);
    lt_storage_release(s); /* now two 4 MiB blocks are cached */
    CHECK_INT(lt_storage_trim(), 8 * MIB);
    CHECK_INT(lt_storage_trim(), 0);

    /* a block serves a smaller request only if it wastes at most a quarter */
    CHECK_INT(lt_storage_new(&s, 10 * MIB, 0), LT_OK);
    first = lt_storage_data(s);
    lt_storage_release(s);
    CHECK_INT(lt_storage_new(&s, 4 * MIB, 0), LT_OK);
    CHECK(lt_storage_data(s) != first);
    CHECK_INT(lt_storage_new(&t, 8 * MIB + 1, 0), LT_OK); /* 10 MiB of huge pages: a fit */
    CHECK(lt_storage_data(t) == first);
    ((char *)lt_storage_data(t))[8 * MIB] = 1;
    lt_storage_release(s);
    lt_storage_release(t);
    CHECK_INT(lt_storage_trim(), 14 * MIB);

    /* bounds: at most 4 blocks and 256 MiB; newest kept; larger never cached
     * (the blocks are never touched, so this costs address space only) */
    lt_storage *many[6];
    for (int i = 0; i < 6; i++)
        CHECK_INT(lt_storage_new(&many[i], 2 * MIB, 0), LT_OK);
    for (int i = 0; i < 6; i++)
        lt_storage_release(many[i]);
    CHECK_INT(lt_storage_trim(), 8 * MIB);
    for (int i = 0; i < 3; i++)
        CHECK_INT(lt_storage_new(&many[i], 100 * MIB, 0), LT_OK);
    void *newest = lt_storage_data(many[2]);
    for (int i = 0; i < 3; i++)
        lt_storage_release(many[i]);
    CHECK_INT(lt_storage_new(&s, 100 * MIB, 0), LT_OK);
    CHECK(lt_storage_data(s) == newest); /* the oldest was evicted, the newest kept */
    lt_storage_release(s);
    CHECK_INT(lt_storage_trim(), 200 * MIB);
    CHECK_INT(lt_storage_new(&s, 300 * MIB, 0), LT_OK);
    lt_storage_release(s);
    CHECK_INT(lt_storage_trim(), 0);

    /* threads: allocations and releases racing through the cache */
    pthread_t th[4];
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, churn_large_blocks, (void *)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *bad = NULL;
        pthread_join(th[i], &bad);
        CHECK_INT((uintptr_t)bad, 0);
    }
    CHECK_INT(lt_storage_live_count(), live0);
    CHECK(lt_storage_trim() <= 4 * 4 * MIB);
    CHECK_INT(lt_storage_trim(), 0);
}

/* Growing: owned storages only, never while another reference or a pin
 * might still read the old address; the kept bytes survive the move, small
 * to small, small to large (a mapped block) and large to larger. */
static void test_resize(int64_t live0)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, 100, 0), LT_OK);
    unsigned char *p = lt_storage_data(s);
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)i;
    uint64_t v0 = lt_storage_version(s);
    CHECK_INT(lt_storage_resize(s, 50), LT_OK); /* never shrinks */
    CHECK_INT(lt_storage_nbytes(s), 100);
    CHECK(lt_storage_data(s) == p);
    size_t sizes[] = {1000, 3 * MIB, 9 * MIB};
    for (int k = 0; k < 3; k++) {
        CHECK_INT(lt_storage_resize(s, sizes[k]), LT_OK);
        CHECK_INT(lt_storage_nbytes(s), sizes[k]);
        p = lt_storage_data(s);
        int same = 0;
        for (int i = 0; i < 100; i++)
            same += p[i] == (unsigned char)i;
        CHECK_INT(same, 100);
        p[sizes[k] - 1] = 7; /* the new last byte is writable */
    }
    CHECK_INT((uintptr_t)lt_storage_data(s) % 64, 0);
    CHECK(lt_storage_version(s) > v0);

    /* another holder: refused, nothing changes */
    lt_storage_retain(s);
    void *before = lt_storage_data(s);
    CHECK_INT(lt_storage_resize(s, 10 * MIB), LT_EINVAL);
    CHECK(lt_storage_data(s) == before);
    CHECK_INT(lt_storage_nbytes(s), 9 * MIB);
    lt_storage_release(s);

    /* pinned: refused for good; the flag shows */
    lt_storage_pin(s);
    CHECK_INT(lt_storage_flags(s) & LT_STORAGE_PINNED, LT_STORAGE_PINNED);
    CHECK_INT(lt_storage_resize(s, 10 * MIB), LT_EINVAL);
    CHECK_INT(lt_storage_resize(s, 1), LT_OK); /* no growth asked: nothing to refuse */
    lt_storage_release(s);

    /* wrapped memory is never libtensor's to move */
    static char buf[16];
    CHECK_INT(lt_storage_wrap(&s, buf, sizeof buf, 0, LT_PROV_BUFFER, NULL, NULL), LT_OK);
    CHECK_INT(lt_storage_resize(s, 32), LT_EINVAL);
    CHECK(lt_storage_data(s) == buf);
    lt_storage_release(s);

    /* absurd sizes */
    CHECK_INT(lt_storage_new(&s, 8, 0), LT_OK);
    CHECK_INT(lt_storage_resize(s, (size_t)INT64_MAX + 1), LT_EOVERFLOW);
    CHECK_INT(lt_storage_resize(s, (size_t)1 << 62), LT_ENOMEM);
    CHECK_INT(lt_storage_nbytes(s), 8);
    lt_storage_release(s);
    CHECK_INT(lt_storage_resize(NULL, 8), LT_EINVAL);
    lt_storage_pin(NULL);
    CHECK_INT(lt_storage_live_count(), live0);
}

int main(void)
{
    int64_t live0 = lt_storage_live_count();
    lt_storage *s = NULL;

    /* owned memory: aligned, zeroed on request, live counter tracks it */
    CHECK_INT(lt_storage_new(&s, 1000, 1), LT_OK);
    CHECK_INT((uintptr_t)lt_storage_data(s) % 64, 0);
    CHECK_INT(lt_storage_nbytes(s), 1000);
    CHECK_INT(lt_storage_refcount(s), 1);
    CHECK_INT(lt_storage_provenance(s), LT_PROV_OWNED);
    CHECK_INT(lt_storage_device_type(s), kDLCPU);
    const unsigned char *bytes = lt_storage_data(s);
    int nonzero = 0;
    for (int i = 0; i < 1000; i++)
        nonzero += bytes[i] != 0;
    CHECK_INT(nonzero, 0);
    CHECK_INT(lt_storage_live_count(), live0 + 1);
    lt_storage_release(s);
    CHECK_INT(lt_storage_live_count(), live0);

    /* zero bytes still give a valid pointer; large blocks are huge-page aligned */
    CHECK_INT(lt_storage_new(&s, 0, 0), LT_OK);
    CHECK(lt_storage_data(s) != NULL);
    lt_storage_release(s);
    CHECK_INT(lt_storage_new(&s, (size_t)5 << 20, 1), LT_OK);
    CHECK_INT((uintptr_t)lt_storage_data(s) % (2u << 20), 0);
    ((char *)lt_storage_data(s))[(5 << 20) - 1] = 1; /* the last byte is writable */
    lt_storage_release(s);

    /* absurd sizes fail cleanly */
    CHECK_INT(lt_storage_new(&s, SIZE_MAX, 0), LT_EOVERFLOW);
    CHECK_INT(lt_storage_new(&s, (size_t)1 << 62, 0), LT_ENOMEM);
    CHECK_INT(lt_storage_new(&s, (size_t)INT64_MAX, 0), LT_ENOMEM);      /* the largest legal size */
    CHECK_INT(lt_storage_new(&s, (size_t)INT64_MAX + 1, 0), LT_EOVERFLOW);
    CHECK_INT(lt_storage_new(&s, SIZE_MAX - 63, 1), LT_EOVERFLOW);        /* rounding up to 64 would wrap */
    CHECK_INT(lt_storage_live_count(), live0);

    /* wrapped memory: deleter once, with its ctx, after the last release */
    static char buf[32];
    int token;
    CHECK_INT(lt_storage_wrap(&s, buf, sizeof buf, LT_STORAGE_READONLY, LT_PROV_BUFFER, counting_deleter, &token),
              LT_OK);
    CHECK_INT(lt_storage_flags(s), LT_STORAGE_READONLY);
    CHECK(lt_storage_data(s) == buf);
    lt_storage_retain(s);
    lt_storage_release(s);
    CHECK_INT(atomic_load(&deleter_calls), 0);
    lt_storage_set_label(s, "a label");
    CHECK_STR(lt_storage_label(s), "a label");
    lt_storage_release(s);
    CHECK_INT(atomic_load(&deleter_calls), 1);
    CHECK(last_ctx == &token);

    /* a failed wrap still runs the deleter, exactly once */
    CHECK_INT(lt_storage_wrap(&s, NULL, 8, 0, LT_PROV_FOREIGN, counting_deleter, &token), LT_EINVAL);
    CHECK_INT(atomic_load(&deleter_calls), 2);
    CHECK_INT(lt_storage_wrap(&s, buf, 8, 0x80, LT_PROV_FOREIGN, counting_deleter, &token), LT_EINVAL);
    CHECK_INT(atomic_load(&deleter_calls), 3);

    /* NULL release and retain are no-ops */
    lt_storage_release(NULL);
    lt_storage_retain(NULL);

    /* threads: refcount and version stay exact under contention */
    CHECK_INT(lt_storage_wrap(&s, buf, sizeof buf, 0, LT_PROV_FOREIGN, counting_deleter, NULL), LT_OK);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, retain_release_many, s);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK_INT(lt_storage_refcount(s), 1);
    CHECK_INT(lt_storage_version(s), 400000);
    CHECK_INT(atomic_load(&deleter_calls), 3);
    lt_storage_release(s);
    CHECK_INT(atomic_load(&deleter_calls), 4);

    /* a byte count beyond int64 is refused (not wrapped to a negative size),
     * and the deleter still runs once */
    CHECK_INT(lt_storage_wrap(&s, buf, (size_t)INT64_MAX + 1, 0, LT_PROV_FOREIGN, counting_deleter, &token),
              LT_EOVERFLOW);
    CHECK_INT(atomic_load(&deleter_calls), 5);
    CHECK_INT(lt_storage_wrap(&s, buf, SIZE_MAX, 0, LT_PROV_FOREIGN, counting_deleter, &token), LT_EOVERFLOW);
    CHECK_INT(atomic_load(&deleter_calls), 6);

    /* device metadata */
    CHECK_INT(lt_storage_wrap(&s, (void *)0x1000, 64, 0, LT_PROV_DLPACK, NULL, NULL), LT_OK);
    lt_storage_set_device(s, kDLCUDA, 1);
    CHECK_INT(lt_storage_device_type(s), kDLCUDA);
    CHECK_INT(lt_storage_device_id(s), 1);
    lt_storage_release(s);

    test_large_block_cache(live0);
    test_resize(live0);
    CHECK_INT(lt_storage_live_count(), live0);
    MT_DONE();
}
