/* minimal.c: libtensor from C alone. Two overlapping views of one storage,
 * a strided copy between them, a cast, and the release that frees it all.
 * Build: meson compiles it as examples/c/minimal; run it to see the bytes. */
#include <stdio.h>

#include "libtensor.h"

static int fail(lt_status rc)
{
    fprintf(stderr, "%s: %s\n", lt_status_name(rc), lt_last_error());
    return 1;
}

int main(void)
{
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, 8 * sizeof(float), 1);
    if (rc != LT_OK)
        return fail(rc);
    float *f = lt_storage_data(s);
    for (int i = 0; i < 8; i++)
        f[i] = (float)i;

    /* view a: elements 0..3; view b: elements 2..5. They share bytes [8, 16). */
    int64_t shape[1] = {4}, unit[1] = {1};
    rc = lt_copy(f + 2, unit, LT_FLOAT32, f, unit, LT_FLOAT32, 1, shape);
    if (rc != LT_OK)
        return fail(rc);
    lt_storage_bump_version(s);
    printf("after b = a:      ");
    for (int i = 0; i < 8; i++)
        printf(" %g", f[i]);
    printf("\n");

    /* a strided, converting copy: every second float into int16 */
    int16_t out[4];
    int64_t two[1] = {2};
    rc = lt_copy(out, unit, LT_INT16, f, two, LT_FLOAT32, 1, shape);
    if (rc != LT_OK)
        return fail(rc);
    printf("every 2nd as int16:");
    for (int i = 0; i < 4; i++)
        printf(" %d", out[i]);
    printf("\n");

    /* a view that would overrun the storage is refused, with the numbers */
    rc = lt_layout_check(1, shape, unit, 6, sizeof(float), lt_storage_nbytes(s));
    printf("view at offset 6: %s (%s)\n", lt_status_name(rc), lt_last_error());

    printf("version %llu, refcount %lld\n", (unsigned long long)lt_storage_version(s),
           (long long)lt_storage_refcount(s));
    lt_storage_release(s);
    printf("live storages after release: %lld\n", (long long)lt_storage_live_count());
    return 0;
}
