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
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* What the deleter needs to undo one mapping. */
typedef struct {
    void *base;
    size_t nbytes;
} mapping;

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

/* Maps nbytes of fd and wraps them. Private maps are MAP_NORESERVE: they are
 * mostly read, and charging the whole file against the commit limit up front
 * would refuse large files for memory that is never written. */
static lt_status map_and_wrap(lt_storage **out, int fd, const char *path, lt_map_mode mode, size_t nbytes)
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
    /* On failure lt_storage_wrap runs unmap(m) itself. */
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
    if (len <= room) {
        snprintf(label, sizeof label, "%s (%s)", path, name);
    } else {
        const char *tail = path + len - (room - 3); /* "..." takes 3 of the room */
        while ((*tail & 0xC0) == 0x80)
            tail++;
        snprintf(label, sizeof label, "...%s (%s)", tail, name);
    }
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
        rc = map_and_wrap(&s, fd, path, mode, length);
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
