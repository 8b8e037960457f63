/* test_storage.c: refcounts, the deleter runs exactly once (also from other
 * threads and on failed wraps), alignment, flags, labels, versions. */
#include <pthread.h>
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

    CHECK_INT(lt_storage_live_count(), live0);
    MT_DONE();
}
