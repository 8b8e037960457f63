/* storage_mmap.c: file-backed storages. A mapping is wrapped as an ordinary
 * storage whose deleter munmaps it, so every rule about refcounts and
 * lifetime that holds for heap storages holds for files too.
 *
 * Mapping is O(1): nothing here reads or touches a page. The kernel faults
 * pages in when a view first reads them, and extending a file with ftruncate
 * leaves a hole that costs no disk until written. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* What the deleter needs to undo one mapping, and what the page queries
 * (lt_storage_resident_pages, lt_storage_copied_pages) need to know about
 * it. A storage keeps its deleter's context to itself, so every live
 * mapping is also on one list, where a query finds the mapping that holds a
 * storage's bytes (any storage over them: the one lt_storage_map_file made,
 * or a DLPack import of it). */
typedef struct mapping {
    void *base;
    size_t nbytes;
    lt_map_mode mode;
    int mincore_ok; /* see can_see_page_cache */
    struct mapping *next;
} mapping;

static mapping *live_maps;
static pthread_mutex_t live_maps_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork() copies one thread: a child forked while another thread held
 * live_maps_lock (a page query holds it with the GIL released) would inherit
 * it locked with no thread left to unlock it, and its first map_file or
 * unmap would wait forever. So the forking thread takes the lock before
 * fork, which also means the list is whole when copied, and parent and
 * child each let go of it after. The child re-initialises its copy rather
 * than unlocking it: the thread that locked it is not the child's. Holders
 * only walk or splice the list (no allocation, no system call, no Python),
 * so prepare waits microseconds at most. Registered when the library is
 * loaded, before any thread can take the lock. */
static void maps_before_fork(void) { pthread_mutex_lock(&live_maps_lock); }
static void maps_after_fork_parent(void) { pthread_mutex_unlock(&live_maps_lock); }
static void maps_after_fork_child(void) { pthread_mutex_init(&live_maps_lock, NULL); }

__attribute__((constructor)) static void maps_register_fork_handlers(void)
{
    /* Fails only without memory for the handler record, at load time. */
    LT__ASSERT(pthread_atfork(maps_before_fork, maps_after_fork_parent, maps_after_fork_child) == 0);
}

static void list_add(mapping *m)
{
    pthread_mutex_lock(&live_maps_lock);
    m->next = live_maps;
    live_maps = m;
    pthread_mutex_unlock(&live_maps_lock);
}

static void list_remove(mapping *m)
{
    pthread_mutex_lock(&live_maps_lock);
    mapping **p = &live_maps;
    while (*p && *p != m)
        p = &(*p)->next;
    if (*p)
        *p = m->next;
    pthread_mutex_unlock(&live_maps_lock);
}

/* mmap refuses length 0, so an empty mapping is a storage with no mapping
 * at all; its data points here so that it is still non-NULL. */
static char empty_map_byte;

static const char *mode_name(lt_map_mode mode)
{
    return mode == LT_MAP_SHARED ? "shared" : mode == LT_MAP_PRIVATE ? "private" : "read-only";
}

static lt_status fail_errno(const char *path, int err)
{
    return lt__fail(LT_EIO, "%s: %s", path, strerror(err));
}

static void unmap(void *ctx)
{
    mapping *m = ctx;
    list_remove(m);
    munmap(m->base, m->nbytes);
    free(m);
}

/* Opens path for mode and checks that it is a regular file. O_NONBLOCK keeps
 * open() from waiting forever on a FIFO; it changes nothing for a regular
 * file. A file created here gets mode 0600 (then the umask), as torch's
 * from_file creates it: the bytes of a tensor are the creator's alone until
 * they chmod the file. */
static lt_status open_regular(int *fd_out, struct stat *st, const char *path, lt_map_mode mode)
{
    int flags = (mode == LT_MAP_SHARED ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | O_NONBLOCK;
    int fd = open(path, flags, 0600);
    if (fd < 0)
        return fail_errno(path, errno);
    int err = fstat(fd, st) != 0 ? errno : S_ISDIR(st->st_mode) ? EISDIR : 0;
    if (err == 0 && !S_ISREG(st->st_mode)) {
        close(fd);
        return lt__fail(LT_EIO, "%s: not a regular file; only regular files can be mapped", path);
    }
    if (err) {
        close(fd);
        return fail_errno(path, err);
    }
    *fd_out = fd;
    return LT_OK;
}

/* Grows fd's file to at least nbytes, and never shrinks it, even while
 * another process appends to it: a file longer than nbytes at any moment
 * keeps every byte. fallocate of the last byte alone raises the size only
 * upward, atomically, and allocates that one block; the rest stays a hole
 * that costs no disk until written. Where fallocate is unsupported, or the
 * disk is too full for even one block (a hole needs none), ftruncate
 * grows the file after fstat re-reads its size through the same
 * descriptor; a writer appending between those two calls (a window of two
 * system calls, the only one left) would be cut back. *grew says whether
 * this call made the file longer. */
static lt_status grow_file(int *grew, int fd, const char *path, int64_t have, int64_t nbytes)
{
    *grew = 0;
    /* Linux's fallocate(2), not posix_fallocate(3): where the file system
     * lacks it, glibc emulates the latter by writing zeros wherever the size
     * it read says the file ends, which is the race again. */
#ifdef __linux__
    int err = fallocate(fd, 0, (off_t)(nbytes - 1), 1) == 0 ? 0 : errno;
#else
    int err = EOPNOTSUPP;
#endif
    if (err == 0) {
        *grew = 1; /* or another writer did: either way the size was below nbytes when it was read */
        return LT_OK;
    }
    if (err != EOPNOTSUPP && err != ENOSYS && err != ENOSPC && err != EINVAL)
        return lt__fail(LT_EIO, "%s: cannot extend from %" PRId64 " to %" PRId64 " bytes: %s", path, have, nbytes,
                        strerror(err));
    struct stat now;
    if (fstat(fd, &now) != 0)
        return fail_errno(path, errno);
    if ((int64_t)now.st_size >= nbytes)
        return LT_OK; /* another writer grew it meanwhile */
    if (ftruncate(fd, (off_t)nbytes) != 0)
        return lt__fail(LT_EIO, "%s: cannot extend from %" PRId64 " to %" PRId64 " bytes: %s", path,
                        (int64_t)now.st_size, nbytes, strerror(errno));
    *grew = 1;
    return LT_OK;
}

/* Undoes grow_file after a failed mapping: back to have bytes, but only
 * while the file is still exactly the nbytes it was grown to (a writer that
 * appended since owns the new length, and its bytes are kept). */
static void shrink_back(int fd, int64_t have, int64_t nbytes)
{
    struct stat now;
    if (fstat(fd, &now) == 0 && (int64_t)now.st_size == nbytes && ftruncate(fd, (off_t)have) != 0) {
        /* Nothing more to do: the mapping's error is the one reported. */
    }
}

/* Decides the mapping length, growing the file if needed (*grew). A shared
 * mapping may grow a short file (see grow_file), which appends zeros and
 * never rewrites an existing byte (torch writes a 0 at position 0 here; we
 * do not). The others must fit the file, because touching a page past the
 * end of a file raises SIGBUS. */
static lt_status mapping_length(size_t *out, int *grew, int fd, const struct stat *st, const char *path,
                                lt_map_mode mode, int64_t nbytes)
{
    int64_t have = (int64_t)st->st_size;
    *grew = 0;
    if (nbytes < 0)
        nbytes = have;
    if (have < nbytes && mode != LT_MAP_SHARED)
        return lt__fail(LT_EINVAL, "%s holds %" PRId64 " bytes but a %s mapping of %" PRId64 " bytes was asked for",
                        path, have, mode_name(mode), nbytes);
    if ((uint64_t)nbytes > SIZE_MAX)
        return lt__fail(LT_EOVERFLOW, "a mapping of %" PRId64 " bytes exceeds the address space", nbytes);
    if (have < nbytes) {
        lt_status rc = grow_file(grew, fd, path, have, nbytes);
        if (rc != LT_OK)
            return rc;
    }
    *out = (size_t)nbytes;
    return LT_OK;
}

/* Since Linux 5.0, mincore tells the truth about a file's pages only to a
 * process that owns the file or may write it; to any other it reports every
 * page resident (a side channel closed by lying, not by failing). Decided
 * once, at map time, the way the kernel decides: owner, root (standing in
 * for CAP_FOWNER), or write permission. A shared map was opened read-write,
 * so it always qualifies. */
static int can_see_page_cache(const struct stat *st, const char *path, lt_map_mode mode)
{
    uid_t me = geteuid();
    return mode == LT_MAP_SHARED || me == 0 || st->st_uid == me || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/* Maps nbytes of fd and wraps them. Private maps are MAP_NORESERVE: they are
 * mostly read, and charging the whole file against the commit limit up front
 * would refuse large files for memory that is never written. */
static lt_status map_and_wrap(lt_storage **out, int fd, const struct stat *st, const char *path, lt_map_mode mode,
                              size_t nbytes)
{
    unsigned flags = mode == LT_MAP_READONLY ? LT_STORAGE_READONLY : 0;
    if (nbytes == 0)
        return lt_storage_wrap(out, &empty_map_byte, 0, flags, LT_PROV_FILE, NULL, NULL);
    int prot = mode == LT_MAP_READONLY ? PROT_READ : PROT_READ | PROT_WRITE;
    int share = mode == LT_MAP_PRIVATE ? MAP_PRIVATE | MAP_NORESERVE : MAP_SHARED;
    void *base = mmap(NULL, nbytes, prot, share, fd, 0);
    if (base == MAP_FAILED)
        return lt__fail(LT_EIO, "%s: cannot map %zu bytes: %s", path, nbytes, strerror(errno));
    mapping *m = malloc(sizeof *m);
    if (!m) {
        munmap(base, nbytes);
        return lt__fail(LT_ENOMEM, "could not allocate a mapping record");
    }
    m->base = base;
    m->nbytes = nbytes;
    m->mode = mode;
    m->mincore_ok = can_see_page_cache(st, path, mode);
    list_add(m);
    /* On failure lt_storage_wrap runs unmap(m) itself, which takes m off the list. */
    return lt_storage_wrap(out, base, nbytes, flags, LT_PROV_FILE, unmap, m);
}

/* Labels the storage "<path> (<mode>)". A path too long for a label keeps
 * its end, where the file's name is, behind "...", so the mode always shows;
 * the cut skips UTF-8 continuation bytes so no character is split. */
static void set_label(lt_storage *s, const char *path, lt_map_mode mode)
{
    char label[256]; /* the size of a storage's label */
    const char *name = mode_name(mode);
    size_t room = sizeof label - strlen(name) - 4; /* " (" + ")" + NUL */
    size_t len = strlen(path);
    int written; /* checked, so the compiler need not guess that room was right */
    if (len <= room) {
        written = snprintf(label, sizeof label, "%s (%s)", path, name);
    } else {
        const char *tail = path + len - (room - 3); /* "..." takes 3 of the room */
        while ((*tail & 0xC0) == 0x80)
            tail++;
        written = snprintf(label, sizeof label, "...%s (%s)", tail, name);
    }
    LT__ASSERT(written >= 0 && (size_t)written < sizeof label);
    lt_storage_set_label(s, label);
}

lt_status lt_storage_map_file(lt_storage **out, const char *path, lt_map_mode mode, int64_t nbytes)
{
    if (!out || !path)
        return lt__fail(LT_EINVAL, "lt_storage_map_file needs an output pointer and a path");
    if (mode != LT_MAP_SHARED && mode != LT_MAP_PRIVATE && mode != LT_MAP_READONLY)
        return lt__fail(LT_EINVAL, "map mode %d is not one of LT_MAP_SHARED, LT_MAP_PRIVATE, LT_MAP_READONLY",
                        (int)mode);
    int fd = -1;
    struct stat st;
    lt_status rc = open_regular(&fd, &st, path, mode);
    if (rc != LT_OK)
        return rc;
    size_t length = 0;
    int grew = 0;
    lt_storage *s = NULL;
    rc = mapping_length(&length, &grew, fd, &st, path, mode, nbytes);
    if (rc == LT_OK) {
        rc = map_and_wrap(&s, fd, &st, path, mode, length);
        if (rc != LT_OK && grew) /* a failed map leaves the file as it found it */
            shrink_back(fd, (int64_t)st.st_size, (int64_t)length);
    }
    close(fd); /* the mapping keeps its own reference to the file */
    if (rc != LT_OK)
        return rc;
    set_label(s, path, mode);
    *out = s;
    return LT_OK;
}

/* ------------------------------------------------------------ page queries
 *
 * What the kernel knows about a mapping's pages: mincore says which are in
 * RAM, /proc/self/pagemap which a private map has copied on write. Both are
 * read here, in C, beside the mapping record that gives their answers a
 * meaning (base, length, mode, whether mincore may be believed): one home
 * for every question about a mapping's pages, and C tests can check the
 * copy-on-write rule without Python. Neither query reads a byte of the
 * mapping, so asking never pulls a page in. */

#define PAGEMAP_PRESENT ((uint64_t)1 << 63) /* in RAM and mapped by this process */
#define PAGEMAP_SWAPPED ((uint64_t)1 << 62) /* a swap (or migration) entry */
#define PAGEMAP_FILE ((uint64_t)1 << 61)    /* a page-cache page, not an anonymous one */
#define PAGEMAP_CHUNK 512                   /* entries per read: 4 KiB of stack */

/* The pages a storage's bytes lie on, and the mapping that holds them. */
typedef struct {
    uintptr_t first; /* address of the page holding the storage's first byte */
    size_t npages;
    size_t page_nbytes;
    mapping map; /* a copy of the record, taken under the lock */
} page_span;

/* Copies the record of the live mapping holding [data, data + nbytes) into
 * *out; 0 when no mapping made here holds them. */
static int find_mapping(mapping *out, uintptr_t data, size_t nbytes)
{
    int found = 0;
    pthread_mutex_lock(&live_maps_lock);
    for (const mapping *m = live_maps; m && !found; m = m->next) {
        uintptr_t base = (uintptr_t)m->base;
        if (base <= data && nbytes <= m->nbytes && data - base <= m->nbytes - nbytes) {
            *out = *m;
            found = 1;
        }
    }
    pthread_mutex_unlock(&live_maps_lock);
    return found;
}

/* Fills *span for storage s and checks out; span->npages == 0 (an empty
 * storage) means there is nothing to report. */
static lt_status pages_of(page_span *span, const uint8_t *out, size_t out_npages, const lt_storage *s,
                          size_t byte_offset, size_t nbytes, const char *fn)
{
    if (!s)
        return lt__fail(LT_EINVAL, "%s needs a storage", fn);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t storage_nbytes = lt_storage_nbytes(s);
    if (byte_offset > storage_nbytes || nbytes > storage_nbytes - byte_offset)
        return lt__fail(LT_ERANGE, "%s: bytes [%zu, %zu + %zu) are not inside the storage's %zu bytes", fn,
                        byte_offset, byte_offset, nbytes, storage_nbytes);
    uintptr_t data = (uintptr_t)lt_storage_data(s) + byte_offset;
    span->page_nbytes = page;
    span->first = data - data % page;
    span->npages = nbytes ? (data % page + nbytes + page - 1) / page : 0; /* pages touched by [data, data+nbytes) */
    if (span->npages == 0)
        return LT_OK;
    if (!out || out_npages < span->npages)
        return lt__fail(LT_ERANGE, "%s: the %zu bytes asked about lie on %zu pages of %zu bytes, but out holds %zu",
                        fn, nbytes, span->npages, page, out ? out_npages : 0);
    if (!find_mapping(&span->map, data, nbytes))
        return lt__fail(LT_EINVAL, "%s: the %zu bytes at %p lie in no file mapping made by "
                        "lt_storage_map_file", fn, nbytes, (void *)data);
    return LT_OK;
}

lt_status lt_storage_resident_pages(uint8_t *out, size_t out_npages, const lt_storage *storage)
{
    return lt_storage_resident_page_range(out, out_npages, storage, 0, storage ? lt_storage_nbytes(storage) : 0);
}

lt_status lt_storage_resident_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                         size_t byte_offset, size_t nbytes)
{
    page_span span;
    lt_status rc = pages_of(&span, out, out_npages, storage, byte_offset, nbytes, "lt_storage_resident_pages");
    if (rc != LT_OK || span.npages == 0)
        return rc;
    if (!span.map.mincore_ok)
        return lt__fail(LT_EIO, "mincore cannot see this file's pages: Linux answers only for files this "
                        "process owns or may write, and reports every page of any other file resident");
    if (mincore((void *)span.first, span.npages * span.page_nbytes, out) != 0)
        return lt__fail(LT_EIO, "mincore over %zu pages at %p failed: %s", span.npages, (void *)span.first,
                        strerror(errno));
    for (size_t i = 0; i < span.npages; i++)
        out[i] &= 1; /* the other bits are reserved */
    return LT_OK;
}

/* A private map's page is this process's own copy when it is anonymous
 * memory, in RAM or in swap: a page never written is the file's page-cache
 * page (PAGEMAP_FILE) or not mapped at all (entry 0). A migration entry of
 * a file page is "swapped" too, but keeps PAGEMAP_FILE. */
static uint8_t is_copy(uint64_t entry)
{
    return (entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)) && !(entry & PAGEMAP_FILE);
}

/* out[i] = is_copy(pagemap entry of virtual page first_page + i). Since
 * Linux 4.2 an unprivileged process may read its own entries' flags (only
 * the frame numbers are zeroed), so a failure here means no pagemap at all
 * (not Linux, a sandboxed /proc) or a kernel that hides it. */
static lt_status read_pagemap(uint8_t *out, uint64_t first_page, size_t npages)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lt__fail(LT_EIO, "pagemap not readable: /proc/self/pagemap: %s", strerror(errno));
    uint64_t entries[PAGEMAP_CHUNK];
    size_t done = 0;
    while (done < npages) {
        size_t want = npages - done < PAGEMAP_CHUNK ? npages - done : PAGEMAP_CHUNK;
        ssize_t got = pread(fd, entries, want * sizeof entries[0], (off_t)((first_page + done) * sizeof entries[0]));
        if (got < (ssize_t)sizeof entries[0]) {
            const char *why = got < 0 ? strerror(errno) : "short read";
            close(fd);
            return lt__fail(LT_EIO, "pagemap not readable: /proc/self/pagemap at page %zu of %zu: %s", done,
                            npages, why);
        }
        size_t n = (size_t)got / sizeof entries[0];
        for (size_t k = 0; k < n; k++)
            out[done + k] = is_copy(entries[k]);
        done += n;
    }
    close(fd);
    return LT_OK;
}

lt_status lt_storage_copied_pages(uint8_t *out, size_t out_npages, const lt_storage *storage)
{
    return lt_storage_copied_page_range(out, out_npages, storage, 0, storage ? lt_storage_nbytes(storage) : 0);
}

lt_status lt_storage_copied_page_range(uint8_t *out, size_t out_npages, const lt_storage *storage,
                                       size_t byte_offset, size_t nbytes)
{
    page_span span;
    lt_status rc = pages_of(&span, out, out_npages, storage, byte_offset, nbytes, "lt_storage_copied_pages");
    if (rc != LT_OK || span.npages == 0)
        return rc;
    if (span.map.mode != LT_MAP_PRIVATE)
        return lt__fail(LT_EINVAL, "a %s mapping copies no pages: %s", mode_name(span.map.mode),
                        span.map.mode == LT_MAP_SHARED ? "its writes go to the file" : "it cannot be written");
    return read_pagemap(out, span.first / span.page_nbytes, span.npages);
}

lt_status lt_address_copied_pages(uint8_t *out, size_t out_npages, const void *addr, size_t nbytes)
{
    lt_storage_identity id;
    unsigned flags = 0;
    lt_status rc = lt_address_identity(&id, &flags, addr, nbytes);
    if (rc != LT_OK)
        return rc;
    if (flags != (LT_MAPPING_WRITABLE | LT_MAPPING_PRIVATE))
        return lt__fail(LT_EINVAL, "the %zu bytes at %p are in a %s mapping, which copies no pages on write", nbytes,
                        addr, flags & LT_MAPPING_PRIVATE ? "read-only" : "shared");
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t data = (uintptr_t)addr;
    size_t npages = nbytes ? (data % page + nbytes + page - 1) / page : 0;
    if (npages == 0)
        return LT_OK;
    if (!out || out_npages < npages)
        return lt__fail(LT_ERANGE, "lt_address_copied_pages: the %zu bytes asked about lie on %zu pages, but out "
                        "holds %zu", nbytes, npages, out ? out_npages : 0);
    return read_pagemap(out, (data - data % page) / page, npages);
}
