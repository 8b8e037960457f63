/* test_huge_advice.c: which large blocks carry the huge-page advice
 * (storage.c, "Huge-page advice"). A block made to be filled later
 * (lt_storage_new) is advised MADV_HUGEPAGE; a block that one copy fills at
 * once (lt_storage_new_copy) is not, also when it reuses a cached block that
 * was advised, and a factory reusing a copy's block gets the advice back.
 * The advice is read where the kernel keeps it, the VmFlags of the mapping
 * in /proc/self/smaps ("hg": advised, "nh": advised against), so the test
 * asserts no timing. Where the kernel has no transparent huge pages the
 * advice cannot be given and only its absence is checked. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libtensor.h"
#include "minitest.h"

#define MIB ((size_t)1 << 20)

/* The VmFlags of the mapping holding addr, as "rd wr ... hg" (without the
 * label), into out; returns 0 when no mapping holds it. */
static int vm_flags(const void *addr, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int inside = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        char dash;
        if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-')
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, len, "%s", line + 8);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* 1 when the mapping holding addr carries flag (a two-letter VmFlags code). */
static int has_flag(const void *addr, const char *flag)
{
    char flags[512], *save = NULL;
    if (!vm_flags(addr, flags, sizeof flags)) {
        MT_FAIL("no mapping in /proc/self/smaps holds %p", addr);
        return -1;
    }
    for (char *w = strtok_r(flags, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
        if (strcmp(w, flag) == 0)
            return 1;
    return 0;
}

static int thp_available(void) { return access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0; }

static void fill_pattern(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + 7);
}

static void test_copy_holds_the_bytes(void)
{
    static unsigned char src[4 * MIB + 100];
    fill_pattern(src, sizeof src);
    const size_t sizes[] = {0, 1, 100, 2 * MIB - 1, 2 * MIB, sizeof src};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        lt_storage *s = NULL;
        CHECK_INT(lt_storage_new_copy(&s, src, sizes[i]), LT_OK);
        CHECK_INT(lt_storage_nbytes(s), sizes[i]);
        CHECK_INT(lt_storage_provenance(s), LT_PROV_OWNED);
        CHECK_INT(lt_storage_flags(s), 0);
        CHECK_INT((uintptr_t)lt_storage_data(s) % 64, 0);
        CHECK(sizes[i] == 0 || memcmp(lt_storage_data(s), src, sizes[i]) == 0);
        CHECK_INT(lt_storage_resize(s, sizes[i] + 10), LT_OK); /* owned: it may grow as any */
        CHECK(sizes[i] == 0 || memcmp(lt_storage_data(s), src, sizes[i]) == 0);
        lt_storage_release(s);
    }
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new_copy(&s, NULL, 0), LT_OK); /* nothing to read */
    lt_storage_release(s);
    s = NULL;
    CHECK_INT(lt_storage_new_copy(&s, NULL, 8), LT_EINVAL);
    CHECK(s == NULL);
    CHECK_INT(lt_storage_new_copy(&s, src, (size_t)INT64_MAX + 1), LT_EOVERFLOW);
}

static void test_advice_follows_how_a_block_is_filled(void)
{
    static unsigned char src[6 * MIB];
    fill_pattern(src, sizeof src);
    int thp = thp_available();
    lt_storage_trim(); /* fresh mappings first: nothing cached */

    lt_storage *made = NULL, *copied = NULL;
    CHECK_INT(lt_storage_new(&made, sizeof src, 0), LT_OK);
    CHECK_INT(lt_storage_new_copy(&copied, src, sizeof src), LT_OK);
    if (thp)
        CHECK_INT(has_flag(lt_storage_data(made), "hg"), 1);
    CHECK_INT(has_flag(lt_storage_data(copied), "hg"), 0);

    /* Reuse through the cache: the block keeps its address and takes the
     * advice of whoever gets it next. */
    void *made_at = lt_storage_data(made), *copied_at = lt_storage_data(copied);
    lt_storage_release(made);
    lt_storage_release(copied);
    lt_storage *a = NULL, *b = NULL;
    CHECK_INT(lt_storage_new_copy(&a, src, sizeof src), LT_OK); /* the newest cached block: copied_at */
    CHECK_INT(lt_storage_new(&b, sizeof src, 0), LT_OK);        /* the other: made_at */
    CHECK(lt_storage_data(a) == copied_at);
    CHECK(lt_storage_data(b) == made_at);
    lt_storage_release(a);
    lt_storage_release(b); /* b's (advised) block is now the newest */
    CHECK_INT(lt_storage_new_copy(&a, src, sizeof src), LT_OK);
    CHECK(lt_storage_data(a) == made_at);
    CHECK_INT(has_flag(lt_storage_data(a), "hg"), 0);
    if (thp)
        CHECK_INT(has_flag(lt_storage_data(a), "nh"), 1);
    CHECK(memcmp(lt_storage_data(a), src, sizeof src) == 0);
    CHECK_INT(lt_storage_new(&b, sizeof src, 0), LT_OK); /* copied_at, never advised until now */
    CHECK(lt_storage_data(b) == copied_at);
    if (thp)
        CHECK_INT(has_flag(lt_storage_data(b), "hg"), 1);
    lt_storage_release(a);
    CHECK_INT(lt_storage_new(&a, sizeof src, 0), LT_OK); /* made_at again, advised against until now */
    CHECK(lt_storage_data(a) == made_at);
    if (thp) {
        CHECK_INT(has_flag(lt_storage_data(a), "hg"), 1);
        CHECK_INT(has_flag(lt_storage_data(a), "nh"), 0);
    }
    lt_storage_release(a);
    lt_storage_release(b);
    lt_storage_trim();
}

int main(void)
{
    int64_t live0 = lt_storage_live_count();
    test_copy_holds_the_bytes();
    test_advice_follows_how_a_block_is_filled();
    CHECK_INT(lt_storage_live_count(), live0);
    MT_DONE();
}
