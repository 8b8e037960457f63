/* test_residency.c: which pages of a mapped file are in RAM (mincore) and
 * which a private map has copied on write (/proc/self/pagemap).
 *
 * The page cache is shared with every process, so the tests never assume a
 * file starts out of RAM unless it is a fresh sparse file whose holes were
 * never read; they assert what touching does: a read page is resident, a
 * written page of a private map is a copy and the file is unchanged. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libtensor.h"
#include "minitest.h"

static char dir[256];
static size_t page;

static const char *path_in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* A file of npages pages, page i filled with the byte i + 1. */
static void write_pages(const char *path, size_t npages)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    unsigned char *buf = malloc(page);
    for (size_t i = 0; i < npages; i++) {
        memset(buf, (int)(i + 1), page);
        CHECK_INT(write(fd, buf, page), (long long)page);
    }
    free(buf);
    close(fd);
}

static size_t count_ones(const uint8_t *v, size_t lo, size_t hi)
{
    size_t n = 0;
    for (size_t i = lo; i < hi; i++)
        n += v[i];
    return n;
}

/* 1 when this process can read its own pagemap, asked without libtensor. */
static int pagemap_readable(void)
{
    int fd = open("/proc/self/pagemap", O_RDONLY);
    uint64_t e;
    int ok = fd >= 0 && pread(fd, &e, sizeof e, 0) == (ssize_t)sizeof e;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* A fresh 64 MiB sparse file is all hole: none of it is in the page cache
 * until read. Reading one byte pulls in its page and, unless the mapping is
 * advised MADV_RANDOM, the kernel's read-around window of neighbours (8 MiB
 * here on ext4 with Linux 6.18; none on tmpfs): nothing far from it. */
static void test_sparse_touch(const char *name, int advise_random)
{
    const char *path = path_in_dir(name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK_INT(ftruncate(fd, (off_t)64 << 20), 0);
    close(fd);
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    size_t npages = ((size_t)64 << 20) / page;
    if (advise_random)
        CHECK_INT(madvise(lt_storage_data(s), (size_t)64 << 20, MADV_RANDOM), 0);
    uint8_t *res = malloc(npages);
    CHECK_INT(lt_storage_resident_pages(res, npages, s), LT_OK);
    /* valgrind reads the head of every mapped file (ELF debug info), so skip 64 KiB */
    size_t skip = (64 << 10) / page;
    CHECK_INT(count_ones(res, skip, npages), 0);
    size_t k = npages / 2;
    volatile unsigned char *data = lt_storage_data(s);
    CHECK_INT(data[k * page + 5], 0);
    CHECK_INT(lt_storage_resident_pages(res, npages, s), LT_OK);
    CHECK_INT(res[k], 1);
    /* advised random: one page here, or the 2 MiB-aligned block around it where the file system caches in
     * large folios (tmpfs with huge pages); else far more than any read-around */
    size_t block = ((size_t)2 << 20) / page;
    size_t lo = advise_random ? k - k % block : k + 1 - ((size_t)16 << 20) / page;
    size_t hi = advise_random ? lo + block : k + ((size_t)16 << 20) / page;
    CHECK_INT(count_ones(res, skip, lo), 0);
    CHECK_INT(count_ones(res, hi, npages), 0);
    free(res);
    lt_storage_release(s);
}

/* Writing page 3 of a private map (read first) and page 6 (never read)
 * copies exactly those two; the others stay the file's pages, and the file
 * keeps its bytes. */
static void test_private_copies(void)
{
    const char *path = path_in_dir("private.bin");
    const size_t npages = 8;
    write_pages(path, npages);
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    volatile unsigned char *data = lt_storage_data(s);
    for (size_t i = 0; i < 6; i++)
        CHECK_INT(data[i * page], i + 1); /* pages 0..5 read, so present as file pages */
    uint8_t copied[8], res[8];
    if (!pagemap_readable()) {
        CHECK_INT(lt_storage_copied_pages(copied, npages, s), LT_EIO);
        CHECK(strstr(lt_last_error(), "pagemap not readable") != NULL);
        fprintf(stderr, "note: /proc/self/pagemap is not readable here; copy-on-write checks skipped\n");
        lt_storage_release(s);
        return;
    }
    CHECK_INT(lt_storage_copied_pages(copied, npages, s), LT_OK);
    CHECK_INT(count_ones(copied, 0, npages), 0);
    data[3 * page + 1] = 0xEE;
    data[6 * page] = 0xDD;
    CHECK_INT(lt_storage_copied_pages(copied, npages, s), LT_OK);
    for (size_t i = 0; i < npages; i++)
        CHECK_INT(copied[i], i == 3 || i == 6);
    CHECK_INT(lt_storage_resident_pages(res, npages, s), LT_OK);
    CHECK_INT(res[0], 1);
    CHECK_INT(res[3], 1);
    CHECK_INT(res[6], 1);
    /* the file still holds page 3's and page 6's own bytes */
    int fd = open(path, O_RDONLY);
    unsigned char b[2];
    CHECK_INT(pread(fd, b, 2, (off_t)(3 * page)), 2);
    CHECK_INT(b[1], 4);
    CHECK_INT(pread(fd, b, 1, (off_t)(6 * page)), 1);
    CHECK_INT(b[0], 7);
    close(fd);
    lt_storage_release(s);
}

/* Shared and read-only maps copy nothing, and say why; residency works. */
static void test_shared_and_readonly(void)
{
    const char *path = path_in_dir("shared.bin");
    write_pages(path, 2);
    uint8_t v[2];
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_SHARED, -1), LT_OK);
    ((volatile unsigned char *)lt_storage_data(s))[page] = 9;
    CHECK_INT(lt_storage_resident_pages(v, 2, s), LT_OK);
    CHECK_INT(v[1], 1);
    CHECK_INT(lt_storage_copied_pages(v, 2, s), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "shared mapping") && strstr(lt_last_error(), "go to the file"));
    lt_storage_release(s);
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_READONLY, -1), LT_OK);
    CHECK_INT(lt_storage_copied_pages(v, 2, s), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "read-only mapping") != NULL);
    lt_storage_release(s);
}

/* Storages that are not mappings are refused; empty ones have no pages;
 * a short out is refused with the numbers; a storage over part of a
 * mapping counts pages from the one holding its first byte. */
static void test_edges(void)
{
    uint8_t v[4] = {0xAA, 0xAA, 0xAA, 0xAA};
    lt_storage *heap = NULL, *s = NULL, *part = NULL;
    CHECK_INT(lt_storage_new(&heap, 3 * page, 1), LT_OK);
    CHECK_INT(lt_storage_resident_pages(v, 4, heap), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "lt_storage_map_file") != NULL);
    CHECK_INT(lt_storage_copied_pages(v, 4, heap), LT_EINVAL);
    lt_storage_release(heap);
    CHECK_INT(lt_storage_resident_pages(v, 4, NULL), LT_EINVAL);

    const char *empty = path_in_dir("empty.bin");
    write_pages(empty, 0);
    CHECK_INT(lt_storage_map_file(&s, empty, LT_MAP_PRIVATE, -1), LT_OK);
    CHECK_INT(lt_storage_resident_pages(NULL, 0, s), LT_OK);
    CHECK_INT(lt_storage_copied_pages(v, 4, s), LT_OK);
    CHECK_INT(v[0], 0xAA); /* nothing written */
    lt_storage_release(s);

    const char *path = path_in_dir("edges.bin");
    write_pages(path, 4);
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    CHECK_INT(lt_storage_resident_pages(v, 3, s), LT_ERANGE);
    CHECK(strstr(lt_last_error(), "4 pages") && strstr(lt_last_error(), "holds 3"));
    CHECK_INT(lt_storage_resident_pages(NULL, 4, s), LT_ERANGE);
    /* bytes [100, 100 + 2 pages) lie on pages 0, 1 and 2 of the mapping */
    unsigned char *data = lt_storage_data(s);
    CHECK_INT(lt_storage_wrap(&part, data + 100, 2 * page, 0, LT_PROV_FOREIGN, NULL, NULL), LT_OK);
    CHECK_INT(lt_storage_resident_pages(v, 2, part), LT_ERANGE);
    memset(v, 0xAA, sizeof v);
    data[2 * page] = 1; /* resident, and copied */
    CHECK_INT(lt_storage_resident_pages(v, 3, part), LT_OK);
    CHECK_INT(v[2], 1);
    CHECK_INT(v[3], 0xAA);
    if (pagemap_readable()) {
        CHECK_INT(lt_storage_copied_pages(v, 3, part), LT_OK);
        CHECK_INT(v[2], 1);
    }
    /* a byte range asks about its own pages only: [2 * page - 1, 2 * page + 1) lies on pages 1 and 2
     * of the mapping, answered as pages 0 and 1; a range past the storage is refused */
    memset(v, 0xAA, sizeof v);
    CHECK_INT(lt_storage_resident_page_range(v, 2, s, 2 * page - 1, 2), LT_OK);
    CHECK_INT(v[1], 1);
    CHECK_INT(v[2], 0xAA);
    CHECK_INT(lt_storage_resident_page_range(v, 1, s, 2 * page - 1, 2), LT_ERANGE);
    CHECK_INT(lt_storage_resident_page_range(v, 4, s, 3 * page, page + 1), LT_ERANGE);
    CHECK(strstr(lt_last_error(), "not inside the storage") != NULL);
    CHECK_INT(lt_storage_resident_page_range(v, 4, s, 4 * page, 0), LT_OK); /* empty: no pages */
    if (pagemap_readable()) {
        memset(v, 0xAA, sizeof v);
        CHECK_INT(lt_storage_copied_page_range(v, 1, s, 2 * page, 1), LT_OK);
        CHECK_INT(v[0], 1);
        CHECK_INT(v[1], 0xAA);
    }
    /* once the mapping is gone, no storage over its old bytes finds it (nothing is read) */
    lt_storage_release(s);
    CHECK_INT(lt_storage_resident_pages(v, 3, part), LT_EINVAL);
    lt_storage_release(part);
}

static void remove_dir(void)
{
    const char *names[] = {"sparse.bin", "sparse_random.bin", "private.bin", "shared.bin", "empty.bin", "edges.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(path_in_dir(names[i]));
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/lt_residency_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    page = (size_t)sysconf(_SC_PAGESIZE);
    int64_t live0 = lt_storage_live_count();
    test_sparse_touch("sparse.bin", 0);
    test_sparse_touch("sparse_random.bin", 1);
    test_private_copies();
    test_shared_and_readonly();
    test_edges();
    CHECK_INT(lt_storage_live_count(), live0);
    remove_dir();
    MT_DONE();
}
