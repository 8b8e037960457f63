/* test_mmap.c: file-backed storages. Shared writes reach the file, private
 * writes never do, extending keeps existing bytes, empty and huge sparse
 * files map in O(1), bad paths fail with the path and errno's text, long
 * paths keep their end in the label, the mapping lives exactly as long
 * as the storage, and a process forked while other threads map, query and
 * free files (and large blocks) finds every lock free in the child. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libtensor.h"
#include "minitest.h"

static char dir[256];

/* Four rotating buffers, so a test may hold a few paths at once. */
static const char *path_in_dir(const char *name)
{
    static char paths[4][512];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, 512, "%s/%s", dir, name);
    return path;
}

static void write_file(const char *path, const void *bytes, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK_INT(write(fd, bytes, n), (long long)n);
    close(fd);
}

/* Reads the file back with read(), not through any mapping. */
static long long read_file(const char *path, unsigned char *bytes, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long long n = read(fd, bytes, cap);
    close(fd);
    return n;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int open_fd_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* 1 when [p, p+n) is still mapped: mincore fails with ENOMEM on a hole. */
static int is_mapped(void *p, size_t n)
{
    unsigned char vec[16];
    return mincore(p, n < 4096 * 16 ? n : 4096 * 16, vec) == 0 || errno != ENOMEM;
}

static void test_shared(void)
{
    const char *path = path_in_dir("shared.bin");
    unsigned char seven[8], back[32];
    memset(seven, 7, sizeof seven);
    write_file(path, seven, sizeof seven);
    int fds = open_fd_count();
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_SHARED, 16), LT_OK);
    CHECK_INT(open_fd_count(), fds); /* the descriptor was closed */
    CHECK_INT(lt_storage_nbytes(s), 16);
    CHECK_INT(lt_storage_flags(s), 0);
    CHECK_INT(lt_storage_provenance(s), LT_PROV_FILE);
    char label[600];
    snprintf(label, sizeof label, "%s (shared)", path);
    CHECK_STR(lt_storage_label(s), label);
    /* extended to 16 bytes: the old 8 bytes untouched (torch zeroes byte 0), the new ones zero */
    CHECK_INT(file_size(path), 16);
    CHECK_INT(read_file(path, back, sizeof back), 16);
    CHECK_INT(back[0], 7);
    CHECK_INT(back[7], 7);
    CHECK_INT(back[8], 0);
    unsigned char *data = lt_storage_data(s);
    CHECK_INT(data[0], 7);
    data[12] = 0x42;
    CHECK_INT(read_file(path, back, sizeof back), 16);
    CHECK_INT(back[12], 0x42); /* a shared write is in the file at once */

    /* a second shared mapping sees the first one's writes */
    lt_storage *s2 = NULL;
    CHECK_INT(lt_storage_map_file(&s2, path, LT_MAP_SHARED, -1), LT_OK);
    CHECK_INT(lt_storage_nbytes(s2), 16);
    CHECK(lt_storage_data(s2) != lt_storage_data(s));
    ((unsigned char *)lt_storage_data(s2))[1] = 9;
    CHECK_INT(data[1], 9);
    lt_storage_release(s2);

    /* a shorter shared mapping of a longer file maps a prefix and never truncates */
    CHECK_INT(lt_storage_map_file(&s2, path, LT_MAP_SHARED, 4), LT_OK);
    CHECK_INT(lt_storage_nbytes(s2), 4);
    CHECK_INT(file_size(path), 16);
    lt_storage_release(s2);

    /* the mapping outlives every release but the last; then it is gone */
    lt_storage_retain(s);
    lt_storage_release(s);
    CHECK(is_mapped(data, 16));
    lt_storage_release(s);
    CHECK(!is_mapped(data, 16));

    /* a missing file is created with 0600 & ~umask (torch's mode), zero-filled */
    const char *fresh = path_in_dir("fresh.bin");
    mode_t mask = umask(022);
    CHECK_INT(lt_storage_map_file(&s, fresh, LT_MAP_SHARED, 100), LT_OK);
    umask(mask);
    CHECK_INT(file_size(fresh), 100);
    struct stat st;
    CHECK_INT(stat(fresh, &st), 0);
    CHECK_INT(st.st_mode & 0777, 0600);
    CHECK_INT(((unsigned char *)lt_storage_data(s))[99], 0);
    lt_storage_release(s);
}

static void test_private_and_readonly(void)
{
    const char *path = path_in_dir("private.bin");
    unsigned char bytes[16], back[32];
    for (int i = 0; i < 16; i++)
        bytes[i] = (unsigned char)i;
    write_file(path, bytes, sizeof bytes);
    lt_storage *s = NULL, *other = NULL;

    /* private: writable copy-on-write; the file and other mappings never see writes */
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    CHECK_INT(lt_storage_nbytes(s), 16);
    CHECK_INT(lt_storage_flags(s), 0);
    unsigned char *data = lt_storage_data(s);
    CHECK_INT(data[5], 5);
    data[5] = 0xEE;
    CHECK_INT(lt_storage_map_file(&other, path, LT_MAP_PRIVATE, 8), LT_OK);
    CHECK_INT(((unsigned char *)lt_storage_data(other))[5], 5);
    lt_storage_release(other);
    CHECK_INT(read_file(path, back, sizeof back), 16);
    CHECK_INT(memcmp(back, bytes, 16), 0);
    char label[600];
    snprintf(label, sizeof label, "%s (private)", path);
    CHECK_STR(lt_storage_label(s), label);
    lt_storage_release(s);
    CHECK_INT(read_file(path, back, sizeof back), 16);
    CHECK_INT(memcmp(back, bytes, 16), 0);

    /* private needs the bytes to exist: the message names both sizes, the file is untouched */
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, 24), LT_EINVAL);
    CHECK(strstr(lt_last_error(), "16") && strstr(lt_last_error(), "24"));
    CHECK_INT(file_size(path), 16);

    /* read-only: PROT_READ, flagged, labelled; also refuses to reach past the end */
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_READONLY, 16), LT_OK);
    CHECK_INT(lt_storage_flags(s), LT_STORAGE_READONLY);
    CHECK_INT(((unsigned char *)lt_storage_data(s))[15], 15);
    snprintf(label, sizeof label, "%s (read-only)", path);
    CHECK_STR(lt_storage_label(s), label);
    lt_storage_release(s);
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_READONLY, 17), LT_EINVAL);
    CHECK_INT(lt_storage_map_file(&s, path_in_dir("absent.bin"), LT_MAP_READONLY, -1), LT_EIO);
    CHECK_INT(file_size(path_in_dir("absent.bin")), -1); /* only shared maps create files */
}

static void test_empty(void)
{
    const char *path = path_in_dir("empty.bin");
    write_file(path, "", 0);
    const lt_map_mode modes[3] = {LT_MAP_SHARED, LT_MAP_PRIVATE, LT_MAP_READONLY};
    for (int i = 0; i < 3; i++) {
        lt_storage *s = NULL;
        CHECK_INT(lt_storage_map_file(&s, path, modes[i], -1), LT_OK);
        CHECK_INT(lt_storage_nbytes(s), 0);
        CHECK(lt_storage_data(s) != NULL);
        CHECK_INT(lt_storage_provenance(s), LT_PROV_FILE);
        CHECK_INT(lt_storage_flags(s), modes[i] == LT_MAP_READONLY ? LT_STORAGE_READONLY : 0);
        lt_storage_release(s);
        CHECK_INT(lt_storage_map_file(&s, path, modes[i], 0), LT_OK); /* an explicit 0 too */
        CHECK_INT(lt_storage_nbytes(s), 0);
        lt_storage_release(s);
    }
    CHECK_INT(file_size(path), 0);
}

/* 4 GiB of hole: mapping it reads nothing and allocates nothing (checked by
 * the file's blocks and the mapping's resident pages, not by a clock). */
static void test_sparse_huge(void)
{
    const char *path = path_in_dir("huge.bin");
    const int64_t size = (int64_t)4 << 30;
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_SHARED, size), LT_OK); /* creates and extends */
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(st.st_size, size);
    CHECK(st.st_blocks < 64); /* still a hole: no data blocks were written */
    lt_storage_release(s);

    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    CHECK_INT(lt_storage_nbytes(s), size);
    /* no page of the mapping is resident: nothing was read or touched */
    size_t pages = (size_t)(size / 4096);
    unsigned char *vec = malloc(pages);
    CHECK_INT(mincore(lt_storage_data(s), (size_t)size, vec), 0);
    /* valgrind reads the head of every file mapped (looking for ELF debug
     * info), so a few leading pages may be cached; none past 64 KiB may be */
    size_t resident = 0;
    for (size_t i = 16; i < pages; i++)
        resident += vec[i] & 1;
    CHECK_INT(resident, 0);
    free(vec);
    unsigned char *data = lt_storage_data(s);
    CHECK_INT(data[size - 1], 0); /* the last byte is there */
    data[size - 1] = 1;           /* and privately writable */
    lt_storage_release(s);
    CHECK_INT(stat(path, &st), 0);
    CHECK(st.st_blocks < 64);
    unlink(path);
}

/* A path longer than a label keeps its end: "...<tail of path> (mode)". */
static void test_long_path_label(void)
{
    char sub[512], path[1024], name[120];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    snprintf(sub, sizeof sub, "%s/%0200d", dir, 0);
    CHECK_INT(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/%s.bin", sub, name);
    write_file(path, "abcd", 4);
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1), LT_OK);
    const char *label = lt_storage_label(s);
    CHECK(strlen(label) < 256);
    CHECK(strncmp(label, "...", 3) == 0);
    char tail[200];
    snprintf(tail, sizeof tail, "%s.bin (private)", name);
    CHECK_STR(label + strlen(label) - strlen(tail), tail);
    lt_storage_release(s);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(rmdir(sub), 0);
}

static void check_eio(const char *path, lt_map_mode mode, const char *reason)
{
    lt_storage *s = (lt_storage *)&s; /* must stay untouched on failure */
    CHECK_INT(lt_storage_map_file(&s, path, mode, 16), LT_EIO);
    CHECK(s == (lt_storage *)&s);
    CHECK(strstr(lt_last_error(), path) != NULL);
    if (!strstr(lt_last_error(), reason))
        MT_FAIL("expected \"%s\" in \"%s\"", reason, lt_last_error());
}

static void test_bad_paths(void)
{
    int fds = open_fd_count();
    int64_t live = lt_storage_live_count();
    for (int mode = 0; mode < 3; mode++) {
        check_eio(dir, (lt_map_mode)mode, "Is a directory");
        check_eio("/nonexistent-dir/x.bin", (lt_map_mode)mode, "No such file or directory");
    }
    check_eio("/dev/null", LT_MAP_READONLY, "not a regular file");
    /* permission checks do not apply to root, who may open anything */
    if (geteuid() != 0) {
        const char *locked = path_in_dir("locked.bin");
        write_file(locked, "abcd", 4);
        chmod(locked, 0);
        check_eio(locked, LT_MAP_SHARED, "Permission denied");
        check_eio(locked, LT_MAP_PRIVATE, "Permission denied");
        chmod(locked, 0600);
    }
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_map_file(&s, path_in_dir("x.bin"), (lt_map_mode)7, 16), LT_EINVAL);
    CHECK_INT(lt_storage_map_file(&s, NULL, LT_MAP_SHARED, 16), LT_EINVAL);
    CHECK_INT(open_fd_count(), fds); /* no descriptor leaks on any failure */
    CHECK_INT(lt_storage_live_count(), live);
}

/* ------------------------------------------------------------ fork
 *
 * fork() copies only the calling thread. Before libtensor's pthread_atfork
 * handlers, a child forked while a query thread held the mapping list's
 * mutex inherited it locked: its first map or unmap waited forever. Here
 * two threads ask for the pages of the oldest of many mappings (a walk of
 * the whole list under the lock), one maps and frees a file, one allocates
 * and frees large blocks (the block cache's flag), while the main thread
 * forks. Each child maps, queries and frees, releases an inherited mapping,
 * runs a copy split across threads and checks that the block cache works;
 * an alarm turns a hang into a death the parent sees. */

#define FORK_MAPS 1000
#define FORK_CHILDREN 100
#define BIG_NBYTES ((size_t)32 << 20) /* above the threading threshold for a copy */

static atomic_int fork_stop;
static lt_storage *fork_maps[FORK_MAPS];

static void *query_loop(void *arg)
{
    (void)arg;
    uint8_t pages[4];
    while (!atomic_load(&fork_stop))
        lt_storage_resident_pages(pages, sizeof pages, fork_maps[0]);
    return NULL;
}

static void *map_loop(void *arg)
{
    while (!atomic_load(&fork_stop)) {
        lt_storage *s = NULL;
        if (lt_storage_map_file(&s, arg, LT_MAP_PRIVATE, -1) == LT_OK)
            lt_storage_release(s);
    }
    return NULL;
}

static void *block_loop(void *arg)
{
    (void)arg;
    while (!atomic_load(&fork_stop)) {
        lt_storage *s = NULL;
        if (lt_storage_new(&s, (size_t)4 << 20, 0) == LT_OK)
            lt_storage_release(s);
    }
    return NULL;
}

/* The child's work; its exit status says which step failed. */
static int fork_child(const char *path, int k)
{
    alarm(20); /* a child stuck on a lock dies of SIGALRM */
    uint8_t pages[4];
    lt_storage *s = NULL, *a = NULL, *b = NULL, *block = NULL;
    if (lt_storage_map_file(&s, path, LT_MAP_PRIVATE, -1) != LT_OK ||
        lt_storage_resident_pages(pages, sizeof pages, s) != LT_OK || ((uint8_t *)lt_storage_data(s))[5] != 5)
        return 2;
    lt_storage_release(s);
    lt_storage_release(fork_maps[1 + k]); /* inherited: its deleter takes the list's lock */
    lt_set_num_threads(2);                /* the copy below starts its threads in this process */
    int64_t n = (int64_t)BIG_NBYTES, unit = 1;
    if (lt_storage_new(&a, BIG_NBYTES, 1) != LT_OK || lt_storage_new(&b, BIG_NBYTES, 0) != LT_OK)
        return 3;
    ((uint8_t *)lt_storage_data(a))[n - 1] = 7;
    if (lt_copy(lt_storage_data(b), &unit, LT_UINT8, lt_storage_data(a), &unit, LT_UINT8, 1, &n) != LT_OK ||
        ((uint8_t *)lt_storage_data(b))[n - 1] != 7)
        return 4;
    lt_storage_release(a);
    lt_storage_release(b);
    lt_storage_trim(); /* then one block goes in, and must come back out */
    if (lt_storage_new(&block, (size_t)4 << 20, 0) != LT_OK)
        return 5;
    lt_storage_release(block);
    return lt_storage_trim() > 0 ? 0 : 6; /* 6: the cache's flag came locked across the fork */
}

/* Valgrind preloads its tool library into the process it runs. */
static int under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload");
}

/* GCC's AddressSanitizer (libasan of GCC 12) does not take its allocator's
 * locks around fork, so a child of a process whose threads allocate can
 * hang inside ASan's own malloc, a hang that is not libtensor's. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static void test_fork_while_threads_hold_locks(void)
{
    if (under_valgrind() || UNDER_ASAN) {
        /* Valgrind's leak check runs in every child too, where the blocks of
         * the threads fork did not copy are lost by design, and its
         * serialised threads could not show the race; ASan: see above. The
         * plain build runs this test. */
        fprintf(stderr, "test_fork_while_threads_hold_locks: not run under valgrind or ASan\n");
        return;
    }
    const char *path = path_in_dir("fork.bin");
    unsigned char bytes[16384];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)i;
    write_file(path, bytes, sizeof bytes);
    for (int i = 0; i < FORK_MAPS; i++)
        CHECK_INT(lt_storage_map_file(&fork_maps[i], path, LT_MAP_PRIVATE, -1), LT_OK);
    pthread_t threads[4];
    void *(*loops[4])(void *) = {query_loop, query_loop, map_loop, block_loop};
    for (int t = 0; t < 4; t++)
        CHECK_INT(pthread_create(&threads[t], NULL, loops[t], (void *)path), 0);
    int clean = 0;
    for (int k = 0; k < FORK_CHILDREN; k++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(fork_child(path, k));
        int status = 0;
        CHECK_INT(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
            MT_FAIL("fork %d: the child died of signal %d (SIGALRM: it hung on a lock)", k, WTERMSIG(status));
        else if (WEXITSTATUS(status) != 0)
            MT_FAIL("fork %d: the child failed at step %d", k, WEXITSTATUS(status));
        else
            clean++;
        if (clean <= k - 2)
            break; /* three failures say enough */
    }
    CHECK_INT(clean, FORK_CHILDREN);
    atomic_store(&fork_stop, 1);
    for (int t = 0; t < 4; t++)
        pthread_join(threads[t], NULL);
    for (int i = 0; i < FORK_MAPS; i++)
        lt_storage_release(fork_maps[i]);
    lt_storage_trim();
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            unlink(path_in_dir(e->d_name));
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/lt_mmap_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int64_t live0 = lt_storage_live_count();
    test_shared();
    test_private_and_readonly();
    test_empty();
    test_sparse_huge();
    test_long_path_label();
    test_bad_paths();
    test_fork_while_threads_hold_locks();
    CHECK_INT(lt_storage_live_count(), live0);
    remove_dir();
    MT_DONE();
}
