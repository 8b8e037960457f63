/* test_shm.c: shared-memory storages. Small ones share an arena (so the
 * descriptors stay few), large ones get a region each, a forked child
 * writes pages its parent reads, a region received by descriptor is mapped
 * once, identities name the same bytes the same way, and every region goes
 * (descriptor closed, mapping gone) when its last storage does. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libtensor.h"
#include "minitest.h"

static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 4096; fd++)
        n += fcntl(fd, F_GETFD) != -1;
    return n;
}

static void test_small_storages_share_few_regions(void)
{
    int64_t regions = lt_shm_region_count(), storages = lt_storage_live_count();
    int fds = open_fds();
    enum { N = 10000 };
    static lt_storage *s[N];
    for (int i = 0; i < N; i++) {
        CHECK_INT(lt_storage_new_shared(&s[i], 64), LT_OK);
        ((unsigned char *)lt_storage_data(s[i]))[63] = (unsigned char)i;
    }
    /* 10,000 x 64 bytes fit one 16 MiB arena: one descriptor, not 10,000 */
    CHECK(lt_shm_region_count() - regions <= 1);
    CHECK(open_fds() - fds <= 1);
    lt_storage_identity a, b;
    CHECK_INT(lt_storage_identity_of(&a, s[0]), LT_OK);
    CHECK_INT(lt_storage_identity_of(&b, s[1]), LT_OK);
    CHECK_INT(a.inode, b.inode);
    CHECK_INT(a.device, b.device);
    CHECK_INT(b.byte_offset - a.byte_offset, 64);
    CHECK_INT(lt_storage_is_shared(s[0]), 1);
    CHECK_INT(lt_storage_provenance(s[0]), LT_PROV_SHARED);
    CHECK_INT(((unsigned char *)lt_storage_data(s[N - 1]))[0], 0); /* zeroed */
    CHECK_INT(((unsigned char *)lt_storage_data(s[N - 1]))[63], (unsigned char)(N - 1));
    CHECK_INT(lt_storage_resize(s[0], 1 << 10), LT_EINVAL); /* not libtensor's heap */
    for (int i = 0; i < N; i++)
        lt_storage_release(s[i]);
    /* the current arena stays for the next small storage; nothing else does */
    CHECK(lt_shm_region_count() - regions <= 1);
    CHECK_INT(lt_storage_live_count(), storages);
}

static void test_full_arenas_go_with_their_last_storage(void)
{
    int64_t regions = lt_shm_region_count();
    enum { N = 40 }; /* 40 spans of 1 MiB fill two 16 MiB arenas and part of a third */
    lt_storage *s[N];
    for (int i = 0; i < N; i++)
        CHECK_INT(lt_storage_new_shared(&s[i], LT_SHM_SMALL_NBYTES), LT_OK);
    CHECK(lt_shm_region_count() - regions >= 2);
    for (int i = 0; i < N; i++)
        lt_storage_release(s[i]);
    /* the full arenas are gone; the current one stays for the next small storage */
    CHECK(lt_shm_region_count() - regions <= 1);
}

static void test_large_storage_has_its_own_region(void)
{
    int64_t regions = lt_shm_region_count();
    int fds = open_fds();
    lt_storage *s = NULL;
    size_t nbytes = LT_SHM_SMALL_NBYTES + 1;
    CHECK_INT(lt_storage_new_shared(&s, nbytes), LT_OK);
    CHECK_INT(lt_storage_nbytes(s), nbytes);
    CHECK_INT(lt_shm_region_count(), regions + 1);
    int fd = -1;
    size_t region_nbytes = 0;
    int64_t offset = -1;
    CHECK_INT(lt_storage_shared_fd(&fd, &region_nbytes, &offset, s), LT_OK);
    CHECK(region_nbytes >= nbytes);
    CHECK_INT(offset, 0);
    struct stat st;
    CHECK_INT(fstat(fd, &st), 0);
    lt_storage_identity id;
    CHECK_INT(lt_storage_identity_of(&id, s), LT_OK);
    CHECK_INT(id.inode, st.st_ino);
    CHECK_INT(id.device, st.st_dev);
    lt_storage_release(s);
    CHECK_INT(lt_shm_region_count(), regions);
    CHECK_INT(open_fds(), fds); /* the descriptor went with the region */
    CHECK_INT(fcntl(fd, F_GETFD), -1);
}

static void test_received_descriptor_maps_the_same_pages(void)
{
    lt_storage *s = NULL, *r = NULL, *again = NULL;
    CHECK_INT(lt_storage_new_shared(&s, 256), LT_OK);
    int fd;
    size_t region_nbytes;
    int64_t offset;
    CHECK_INT(lt_storage_shared_fd(&fd, &region_nbytes, &offset, s), LT_OK);
    int copy = dup(fd); /* what SCM_RIGHTS would deliver */
    CHECK_INT(lt_storage_from_shared_fd(&r, copy, offset + 64, 64, LT_STORAGE_READONLY), LT_OK);
    close(copy);
    CHECK(lt_storage_data(r) == (char *)lt_storage_data(s) + 64); /* one mapping a region */
    CHECK_INT(lt_storage_flags(r) & LT_STORAGE_READONLY, LT_STORAGE_READONLY);
    lt_storage_identity a, b;
    CHECK_INT(lt_storage_identity_of(&a, s), LT_OK);
    CHECK_INT(lt_storage_identity_of(&b, r), LT_OK);
    CHECK_INT(b.byte_offset, a.byte_offset + 64);
    CHECK_INT(lt_storage_from_shared_identity(&again, a.device, a.inode, a.byte_offset, 256, 0), LT_OK);
    CHECK(again && lt_storage_data(again) == lt_storage_data(s));
    lt_storage_release(again);
    /* a region this process does not map: NULL, not an error */
    CHECK_INT(lt_storage_from_shared_identity(&again, a.device, a.inode + 1000003, 0, 8, 0), LT_OK);
    CHECK(again == NULL);
    /* spans past the region, negative offsets and unknown flags are refused */
    CHECK_INT(lt_storage_from_shared_fd(&again, fd, (int64_t)region_nbytes - 8, 16, 0), LT_ERANGE);
    CHECK_INT(lt_storage_from_shared_fd(&again, fd, -8, 8, 0), LT_ERANGE);
    CHECK_INT(lt_storage_from_shared_fd(&again, fd, 0, 8, 0x80), LT_EINVAL);
    CHECK_INT(lt_storage_from_shared_fd(&again, -1, 0, 8, 0), LT_EIO);
    /* the message count lives in the region: every storage over it sees one count */
    int64_t count = -1;
    CHECK_INT(lt_storage_shared_in_flight_add(&count, s, 1), LT_OK);
    CHECK_INT(count, 1);
    CHECK_INT(lt_storage_shared_in_flight_add(&count, r, 0), LT_OK);
    CHECK_INT(count, 1);
    CHECK_INT(lt_storage_shared_in_flight_add(&count, r, -1), LT_OK);
    CHECK_INT(count, 0);
    lt_storage_release(r);
    lt_storage_release(s);
}

static void test_fork_child_writes_parent_reads(void)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new_shared(&s, 64), LT_OK);
    lt_storage_identity parent;
    CHECK_INT(lt_storage_identity_of(&parent, s), LT_OK);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned char *p = lt_storage_data(s);
        p[0] = 42;
        int64_t sent;
        lt_storage_shared_in_flight_add(&sent, s, 5); /* the parent reads the same count */
        /* the child allocates from an arena of its own, never the parent's */
        lt_storage *mine = NULL;
        lt_storage_identity id;
        int ok = lt_storage_new_shared(&mine, 64) == LT_OK && lt_storage_identity_of(&id, mine) == LT_OK &&
                 id.inode != parent.inode;
        lt_storage_release(mine);
        lt_storage_release(s);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK_INT(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(((unsigned char *)lt_storage_data(s))[0], 42);
    int64_t count = 0;
    CHECK_INT(lt_storage_shared_in_flight_add(&count, s, -5), LT_OK);
    CHECK_INT(count, 0);
    lt_storage_release(s);
}

/* Regression: a child forked while the current arena had no storage used
 * to free the arena's record yet leave it in the table (a use after free
 * on the next lookup). The child must drop the arena cleanly. */
static void test_fork_with_an_unused_current_arena(void)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new_shared(&s, 64), LT_OK);
    lt_storage_identity arena;
    CHECK_INT(lt_storage_identity_of(&arena, s), LT_OK);
    lt_storage_release(s); /* the arena stays, as the current one, with no storage */
    int64_t regions = lt_shm_region_count();
    pid_t pid = fork();
    if (pid == 0) {
        lt_storage *found = NULL, *mine = NULL;
        int ok = lt_shm_region_count() == regions - 1 &&
                 lt_storage_from_shared_identity(&found, arena.device, arena.inode, 0, 64, 0) == LT_OK &&
                 found == NULL && lt_storage_new_shared(&mine, 64) == LT_OK;
        lt_storage_release(mine);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK_INT(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(lt_shm_region_count(), regions); /* the parent keeps its arena */
}

static void test_keeping_holds_the_old_storage(void)
{
    int64_t storages = lt_storage_live_count();
    lt_storage *old = NULL, *fresh = NULL;
    CHECK_INT(lt_storage_new(&old, 128, 1), LT_OK);
    CHECK_INT(lt_storage_new_shared_keeping(&fresh, 128, old), LT_OK);
    CHECK_INT(lt_storage_refcount(old), 2);
    lt_storage_release(old); /* the caller's reference: fresh still holds the bytes */
    CHECK_INT(lt_storage_refcount(old), 1);
    CHECK_INT(lt_storage_is_shared(fresh), 1);
    CHECK_INT(lt_storage_provenance(fresh), LT_PROV_SHARED);
    lt_storage_identity id;
    CHECK_INT(lt_storage_identity_of(&id, fresh), LT_OK);
    int fd;
    size_t n;
    int64_t off;
    CHECK_INT(lt_storage_shared_fd(&fd, &n, &off, fresh), LT_OK);
    CHECK_INT(off, id.byte_offset);
    lt_storage_release(fresh); /* frees the span, then the kept storage */
    CHECK_INT(lt_storage_live_count(), storages);
    CHECK_INT(lt_storage_new_shared_keeping(&fresh, 8, NULL), LT_OK); /* nothing to keep */
    lt_storage_release(fresh);
}

static void test_identity_of_files_and_heap(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/lt_shm_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(ftruncate(fd, 3 * 4096), 0);
    struct stat st;
    CHECK_INT(fstat(fd, &st), 0);
    close(fd);
    lt_storage *m = NULL, *part = NULL, *heap = NULL;
    CHECK_INT(lt_storage_map_file(&m, path, LT_MAP_SHARED, -1), LT_OK);
    lt_storage_identity id;
    CHECK_INT(lt_storage_identity_of(&id, m), LT_OK);
    CHECK_INT(id.inode, st.st_ino);
    CHECK_INT(id.byte_offset, 0);
    CHECK_INT(lt_storage_is_shared(m), 0); /* a file, not a region of this table */
    CHECK_INT(lt_storage_wrap(&part, (char *)lt_storage_data(m) + 4096 + 8, 16, 0, LT_PROV_FOREIGN, NULL, NULL), LT_OK);
    CHECK_INT(lt_storage_identity_of(&id, part), LT_OK);
    CHECK_INT(id.byte_offset, 4096 + 8);
    lt_storage_release(part);
    lt_storage_release(m);
    unlink(path);
    CHECK_INT(lt_storage_new(&heap, 64, 1), LT_OK);
    CHECK_INT(lt_storage_identity_of(&id, heap), LT_EINVAL);
    CHECK_INT(lt_storage_is_shared(heap), 0);
    int sfd;
    size_t n;
    int64_t off;
    CHECK_INT(lt_storage_shared_fd(&sfd, &n, &off, heap), LT_EINVAL);
    int64_t count;
    CHECK_INT(lt_storage_shared_in_flight_add(&count, heap, 1), LT_EINVAL);
    lt_storage_release(heap);
}

/* Memory no storage describes, named from its mapping: a second map of a shared region and a
 * private map of a file give the same (device, inode, offset) as the storages over those bytes, with
 * the mapping's permissions in the flags; heap memory and NULL are refused. */
static void test_address_identity_names_any_mapping(void)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new_shared(&s, 8192), LT_OK);
    int fd;
    size_t region_nbytes;
    int64_t offset;
    CHECK_INT(lt_storage_shared_fd(&fd, &region_nbytes, &offset, s), LT_OK);
    char *again = mmap(NULL, region_nbytes, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(again != MAP_FAILED);
    lt_storage_identity a, b;
    unsigned flags = 99;
    CHECK_INT(lt_storage_identity_of(&a, s), LT_OK);
    CHECK_INT(lt_address_identity(&b, &flags, again + offset + 100, 8), LT_OK);
    CHECK_INT(b.device, a.device);
    CHECK_INT(b.inode, a.inode);
    CHECK_INT(b.byte_offset, a.byte_offset + 100);
    CHECK_INT(flags, 0u); /* read-only, shared */
    char *priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(priv != MAP_FAILED);
    CHECK_INT(lt_address_identity(&b, &flags, priv + 5, 1), LT_OK);
    CHECK_INT(b.byte_offset, 5);
    CHECK_INT(flags, LT_MAPPING_WRITABLE | LT_MAPPING_PRIVATE);
    CHECK_INT(lt_address_identity(&b, NULL, priv, 4097), LT_EINVAL); /* runs past the mapping */
    uint8_t copied[2] = {9, 9};
    CHECK_INT(lt_address_copied_pages(copied, 1, priv, 4096), LT_OK);
    CHECK_INT(copied[0], 0); /* read, never written: still the file's page */
    priv[7] = 1;
    CHECK_INT(lt_address_copied_pages(copied, 1, priv, 4096), LT_OK);
    CHECK_INT(copied[0], 1); /* written: this process's own copy */
    CHECK_INT(lt_address_copied_pages(copied, 0, priv, 4096), LT_ERANGE);
    CHECK_INT(lt_address_copied_pages(copied, 1, again, 8), LT_EINVAL); /* a shared map copies nothing */
    munmap(priv, 4096);
    munmap(again, region_nbytes);
    char *heap = malloc(64);
    CHECK_INT(lt_address_identity(&b, &flags, heap, 64), LT_EINVAL);
    free(heap);
    CHECK_INT(lt_address_identity(&b, &flags, NULL, 1), LT_EINVAL);
    CHECK_INT(lt_address_identity(NULL, &flags, &b, 1), LT_EINVAL);
    lt_storage_release(s);
}

int main(void)
{
    test_small_storages_share_few_regions();
    test_full_arenas_go_with_their_last_storage();
    test_large_storage_has_its_own_region();
    test_received_descriptor_maps_the_same_pages();
    test_fork_child_writes_parent_reads();
    test_fork_with_an_unused_current_arena();
    test_keeping_holds_the_old_storage();
    test_identity_of_files_and_heap();
    test_address_identity_names_any_mapping();
    MT_DONE();
}
