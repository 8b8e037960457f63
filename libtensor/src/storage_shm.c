/* storage_shm.c: storages other processes can map.
 *
 * A region is one anonymous shared file (memfd, or an shm_open name that is
 * unlinked before anyone can see it) mapped once, MAP_SHARED. Storages are
 * lt_storage_wrap'ed spans of a region whose deleter drops the region's
 * count of live storages; the region closes its descriptor and unmaps when
 * that count reaches zero. Small storages share an arena region, so a
 * process holds a few descriptors however many small tensors it sends or
 * receives: torch's one-descriptor-per-storage design runs out of them
 * ("received 0 items of ancdata", pytorch#973).
 *
 * Arena space is bump-allocated and never reused. Another process may
 * still use a span this process has released, and only a count shared by
 * every process could say when it stops; the kernel already keeps that
 * count for whole files, so an arena's pages go back to the system when the
 * last process unmaps it. The waste is bounded by one arena per process
 * that still has a live span in it.
 *
 * One mutex guards the table. pthread_atfork takes it around fork, so a
 * child never inherits it locked; the child then stops allocating from the
 * parent's current arena (both would hand out the same bytes). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

/* Every region ends with a header of HEADER_NBYTES that no storage spans:
 * an atomic count, shared by every process mapping the region, of the
 * messages naming it that were sent and not yet received. */
#define HEADER_NBYTES 64

typedef struct region {
    struct region *next;
    int fd;        /* open while the region lives, so it can be sent on */
    char *base;    /* the whole file, mapped MAP_SHARED read-write */
    size_t nbytes; /* file size == mapping length */
    size_t data_nbytes;          /* bytes storages may use: all but the header at the end */
    _Atomic int64_t *in_flight;  /* the header: messages sent and not yet received; NULL if none */
    uint64_t device, inode;
    int64_t live;  /* storages over the region here, +1 while it is the current arena */
    size_t used;   /* the current arena's bump offset (0 for other regions) */
} region;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static region *table;         /* every region this process maps */
static region *current_arena; /* where small storages are allocated; NULL: make one */
static _Atomic int64_t region_count;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void region_destroy(region *r);
static void table_remove(region *r);

static void lock_before_fork(void) { pthread_mutex_lock(&table_lock); }
static void unlock_in_parent(void) { pthread_mutex_unlock(&table_lock); }

/* The child keeps the regions it inherited (its storages still use them)
 * but must not bump-allocate from the parent's arena. */
static void reset_in_child(void)
{
    region *r = current_arena;
    current_arena = NULL;
    int gone = r && --r->live == 0;
    if (gone)
        table_remove(r);
    pthread_mutex_unlock(&table_lock);
    if (gone)
        region_destroy(r);
}

static void install_atfork(void) { pthread_atfork(lock_before_fork, unlock_in_parent, reset_in_child); }

static void table_lock_take(void)
{
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&table_lock);
}

/* ------------------------------------------------------------ regions */

/* Unlinks r from the table (the caller holds the lock). */
static void table_remove(region *r)
{
    for (region **p = &table; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            return;
        }
}

/* Unmaps and closes a region no storage uses any more (outside the lock). */
static void region_destroy(region *r)
{
    if (r->nbytes)
        munmap(r->base, r->nbytes);
    close(r->fd);
    atomic_fetch_sub(&region_count, 1);
    free(r);
}

/* An anonymous shared file: memfd, else a random shm_open name unlinked at
 * once. Returns the descriptor (close-on-exec) or -1 with errno set. */
static int anonymous_file(void)
{
#ifdef MFD_CLOEXEC
    int fd = memfd_create("pytensor-shm", MFD_CLOEXEC);
    if (fd >= 0 || errno != ENOSYS)
        return fd;
#endif
    for (int attempt = 0; attempt < 16; attempt++) {
        char name[64];
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        snprintf(name, sizeof name, "/pytensor-%ld-%ld-%d", (long)getpid(), (long)now.tv_nsec, attempt);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            shm_unlink(name); /* the name exists for microseconds: nothing can leak it */
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* A region over fd (taken: closed on failure), mapping nbytes. The
 * caller adds it to the table. Returns NULL with lt_last_error set. */
static region *region_map(int fd, size_t nbytes, const char *what)
{
    struct stat st;
    region *r = NULL;
    void *base = NULL;
    if (fstat(fd, &st) != 0) {
        lt__fail(LT_EIO, "fstat of a shared %s failed: %s", what, strerror(errno));
    } else if (nbytes && (base = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        lt__fail(LT_EIO, "mapping a shared %s of %zu bytes failed: %s", what, nbytes, strerror(errno));
    } else if (!(r = calloc(1, sizeof *r))) {
        lt__fail(LT_ENOMEM, "could not allocate a shared-region record");
        if (nbytes)
            munmap(base, nbytes);
    }
    if (!r) {
        close(fd);
        return NULL;
    }
    r->fd = fd;
    r->base = base;
    r->nbytes = nbytes;
    r->data_nbytes = nbytes >= HEADER_NBYTES ? nbytes - HEADER_NBYTES : 0;
    r->in_flight = nbytes >= HEADER_NBYTES && r->data_nbytes % 8 == 0 ? (_Atomic int64_t *)(base + r->data_nbytes)
                                                                       : NULL;
    r->device = (uint64_t)st.st_dev;
    r->inode = (uint64_t)st.st_ino;
    atomic_fetch_add(&region_count, 1);
    return r;
}

/* A new anonymous region of nbytes (a multiple of 64; may be 0). */
static region *region_new(size_t nbytes, const char *what)
{
    int fd = anonymous_file();
    if (fd < 0) {
        lt__fail(LT_EIO, "could not create a shared %s (memfd_create and shm_open): %s", what, strerror(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)nbytes) != 0) {
        lt__fail(LT_EIO, "could not size a shared %s to %zu bytes: %s", what, nbytes, strerror(errno));
        close(fd);
        return NULL;
    }
    return region_map(fd, nbytes, what);
}

/* The storage deleter: one storage over the region is gone. */
static void region_release(void *ctx)
{
    region *r = ctx;
    table_lock_take();
    int gone = --r->live == 0;
    if (gone)
        table_remove(r);
    pthread_mutex_unlock(&table_lock);
    if (gone)
        region_destroy(r);
}

/* A storage over r's bytes [byte_offset, +nbytes); the caller has counted
 * it in r->live already (the deleter uncounts it, also on failure). */
static lt_status wrap_span(lt_storage **out, region *r, int64_t byte_offset, size_t nbytes, unsigned flags)
{
    lt_status rc = lt_storage_wrap(out, r->base + byte_offset, nbytes, flags, LT_PROV_SHARED, region_release, r);
    if (rc == LT_OK)
        lt_storage_set_label(*out, "shared memory");
    return rc;
}

/* The region holding [data, data + nbytes), or NULL (the caller holds the lock). */
static region *region_holding(const char *data, size_t nbytes)
{
    for (region *r = table; r; r = r->next)
        if (r->nbytes && data >= r->base && (size_t)(data - r->base) <= r->data_nbytes &&
            nbytes <= r->data_nbytes - (size_t)(data - r->base))
            return r;
    return NULL;
}

/* ------------------------------------------------------------ allocation */

/* Bytes [*offset, +rounded) of the current arena, counted in its live. */
static region *arena_take(size_t rounded, int64_t *offset)
{
    region *retired = NULL, *fresh = NULL;
    table_lock_take();
    region *a = current_arena;
    if (!a || a->data_nbytes - a->used < rounded) {
        pthread_mutex_unlock(&table_lock); /* mapping a file takes a while: not under the lock */
        fresh = region_new(LT_SHM_ARENA_NBYTES, "arena");
        if (!fresh)
            return NULL;
        table_lock_take();
        if (current_arena == a) { /* nobody replaced it meanwhile */
            fresh->live = 1;
            fresh->next = table;
            table = fresh;
            if (a && --a->live == 0) {
                table_remove(a);
                retired = a;
            }
            current_arena = fresh;
            fresh = NULL;
        }
        a = current_arena;
    }
    int fits = a->data_nbytes - a->used >= rounded;
    if (fits) {
        *offset = (int64_t)a->used;
        a->used += rounded;
        a->live++;
    }
    pthread_mutex_unlock(&table_lock);
    if (retired)
        region_destroy(retired);
    if (fresh) /* another thread made the arena first */
        region_destroy(fresh);
    if (!fits) /* a thread's fresh arena filled up before ours could: rare; ask again */
        return arena_take(rounded, offset);
    return a;
}

lt_status lt_storage_new_shared(lt_storage **out, size_t nbytes)
{
    size_t rounded = (nbytes + 63) & ~(size_t)63; /* 64-byte aligned spans, as lt_storage_new's */
    if (nbytes > (size_t)INT64_MAX || rounded < nbytes)
        return lt__fail(LT_EOVERFLOW, "shared storage of %zu bytes exceeds the int64 byte range", nbytes);
    int64_t offset = 0;
    region *r;
    if (rounded <= LT_SHM_SMALL_NBYTES) {
        r = arena_take(rounded ? rounded : 64, &offset);
    } else {
        r = region_new(rounded + HEADER_NBYTES, "segment");
        if (r) {
            r->live = 1;
            table_lock_take();
            r->next = table;
            table = r;
            pthread_mutex_unlock(&table_lock);
        }
    }
    if (!r)
        return LT_EIO; /* lt_last_error names the cause */
    return wrap_span(out, r, offset, nbytes, 0);
}

/* The storage of lt_storage_new_shared_keeping: the same span, plus the kept one. */
typedef struct keeper {
    lt_storage *span;
    lt_storage *keep;
} keeper;

static void keeper_release(void *ctx)
{
    keeper *k = ctx;
    lt_storage_release(k->keep);
    lt_storage_release(k->span);
    free(k);
}

lt_status lt_storage_new_shared_keeping(lt_storage **out, size_t nbytes, lt_storage *keep)
{
    lt_storage *span = NULL;
    lt_status rc = lt_storage_new_shared(&span, nbytes);
    if (rc != LT_OK)
        return rc;
    keeper *k = malloc(sizeof *k);
    if (!k) {
        lt_storage_release(span);
        return lt__fail(LT_ENOMEM, "could not allocate a shared-storage record");
    }
    lt_storage_retain(keep);
    k->span = span;
    k->keep = keep;
    rc = lt_storage_wrap(out, lt_storage_data(span), nbytes, 0, LT_PROV_SHARED, keeper_release, k);
    if (rc == LT_OK)
        lt_storage_set_label(*out, "shared memory");
    return rc;
}

/* ------------------------------------------------------------ passing and receiving */

int lt_storage_is_shared(const lt_storage *s)
{
    table_lock_take();
    int found = region_holding(lt_storage_data(s), lt_storage_nbytes(s)) != NULL;
    pthread_mutex_unlock(&table_lock);
    return found;
}

lt_status lt_storage_shared_fd(int *out_fd, size_t *out_region_nbytes, int64_t *out_byte_offset,
                               const lt_storage *s)
{
    const char *data = lt_storage_data(s);
    table_lock_take();
    region *r = region_holding(data, lt_storage_nbytes(s));
    if (r) {
        *out_fd = r->fd;
        *out_region_nbytes = r->data_nbytes;
        *out_byte_offset = (int64_t)(data - r->base);
    }
    pthread_mutex_unlock(&table_lock);
    if (!r)
        return lt__fail(LT_EINVAL, "this storage's %zu bytes are not in shared memory; share_memory_() moves them "
                        "there", lt_storage_nbytes(s));
    return LT_OK;
}

static lt_status check_span(size_t region_nbytes, int64_t byte_offset, size_t nbytes, unsigned flags)
{
    if (flags & ~LT_STORAGE_READONLY)
        return lt__fail(LT_EINVAL, "unknown storage flag bits 0x%x for a shared storage", flags & ~LT_STORAGE_READONLY);
    if (byte_offset < 0 || (uint64_t)byte_offset > region_nbytes || nbytes > region_nbytes - (size_t)byte_offset)
        return lt__fail(LT_ERANGE, "shared bytes [%" PRId64 ", %" PRId64 " + %zu) run past the region's %zu bytes",
                        byte_offset, byte_offset, nbytes, region_nbytes);
    return LT_OK;
}

lt_status lt_storage_from_shared_identity(lt_storage **out, uint64_t device, uint64_t inode, int64_t byte_offset,
                                          size_t nbytes, unsigned flags)
{
    *out = NULL;
    table_lock_take();
    region *r = table;
    while (r && !(r->device == device && r->inode == inode))
        r = r->next;
    lt_status rc = r ? check_span(r->data_nbytes, byte_offset, nbytes, flags) : LT_OK;
    if (r && rc == LT_OK)
        r->live++;
    pthread_mutex_unlock(&table_lock);
    if (!r || rc != LT_OK)
        return rc;
    return wrap_span(out, r, byte_offset, nbytes, flags);
}

lt_status lt_storage_from_shared_fd(lt_storage **out, int fd, int64_t byte_offset, size_t nbytes, unsigned flags)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return lt__fail(LT_EIO, "fstat of a received descriptor %d failed: %s", fd, strerror(errno));
    lt_status rc = lt_storage_from_shared_identity(out, (uint64_t)st.st_dev, (uint64_t)st.st_ino, byte_offset,
                                                   nbytes, flags);
    if (rc != LT_OK || *out)
        return rc;
    size_t data_nbytes = st.st_size >= HEADER_NBYTES ? (size_t)st.st_size - HEADER_NBYTES : 0;
    if ((rc = check_span(data_nbytes, byte_offset, nbytes, flags)) != LT_OK)
        return rc;
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        return lt__fail(LT_EIO, "could not duplicate a received descriptor: %s", strerror(errno));
    region *fresh = region_map(own, (size_t)st.st_size, "region");
    if (!fresh)
        return LT_EIO;
    table_lock_take();
    region *r = table; /* another thread may have mapped it meanwhile: use one mapping */
    while (r && !(r->device == fresh->device && r->inode == fresh->inode))
        r = r->next;
    if (!r) {
        r = fresh;
        fresh = NULL;
        r->next = table;
        table = r;
    }
    r->live++;
    pthread_mutex_unlock(&table_lock);
    if (fresh)
        region_destroy(fresh);
    return wrap_span(out, r, byte_offset, nbytes, flags);
}

lt_status lt_storage_shared_in_flight_add(int64_t *out_count, const lt_storage *s, int64_t delta)
{
    table_lock_take();
    region *r = region_holding(lt_storage_data(s), lt_storage_nbytes(s));
    _Atomic int64_t *count = r ? r->in_flight : NULL;
    pthread_mutex_unlock(&table_lock);
    if (!count) /* the region stays mapped: s holds it */
        return lt__fail(LT_EINVAL, "this storage's %zu bytes are not in a shared region with a message count",
                        lt_storage_nbytes(s));
    *out_count = atomic_fetch_add(count, delta) + delta;
    return LT_OK;
}

/* ------------------------------------------------------------ identity */

/* Finds the /proc/self/maps line holding [addr, addr + nbytes); *out_flags (may be NULL) gets
 * LT_MAPPING_WRITABLE and LT_MAPPING_PRIVATE from its permissions. */
static lt_status identity_from_maps(lt_storage_identity *out, unsigned *out_flags, uintptr_t addr, size_t nbytes)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return lt__fail(LT_EIO, "cannot read /proc/self/maps to name a mapping: %s", strerror(errno));
    char line[4096];
    lt_status rc = LT_EINVAL;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, file_offset, inode;
        unsigned major, minor;
        char perms[5] = "";
        if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu", &lo, &hi, perms, &file_offset, &major, &minor,
                   &inode) != 7)
            continue;
        if (addr < lo || addr >= hi)
            continue;
        if (inode != 0 && nbytes <= hi - addr) {
            out->device = (uint64_t)makedev(major, minor);
            out->inode = inode;
            out->byte_offset = (int64_t)(file_offset + (addr - lo));
            if (out_flags)
                *out_flags = (perms[1] == 'w' ? LT_MAPPING_WRITABLE : 0u) | (perms[3] == 'p' ? LT_MAPPING_PRIVATE : 0u);
            rc = LT_OK;
        }
        break;
    }
    fclose(f);
    if (rc != LT_OK)
        return lt__fail(LT_EINVAL, "the %zu bytes at 0x%" PRIxPTR " are not in shared memory or a mapped file "
                        "(heap memory has no name other processes share); share_memory_() moves them", nbytes, addr);
    return LT_OK;
}

lt_status lt_address_identity(lt_storage_identity *out, unsigned *out_flags, const void *addr, size_t nbytes)
{
    if (!out || !addr)
        return lt__fail(LT_EINVAL, "lt_address_identity: NULL %s", out ? "address" : "output");
    return identity_from_maps(out, out_flags, (uintptr_t)addr, nbytes);
}

lt_status lt_storage_identity_of(lt_storage_identity *out, const lt_storage *s)
{
    const char *data = lt_storage_data(s);
    table_lock_take();
    region *r = region_holding(data, lt_storage_nbytes(s));
    if (r) {
        out->device = r->device;
        out->inode = r->inode;
        out->byte_offset = (int64_t)(data - r->base);
    }
    pthread_mutex_unlock(&table_lock);
    if (r)
        return LT_OK;
    if (lt_storage_device_type(s) != kDLCPU && lt_storage_device_type(s) != kDLCUDAHost)
        return lt__fail(LT_EDEVICE, "memory on device type %d has no host identity", (int)lt_storage_device_type(s));
    return identity_from_maps(out, NULL, (uintptr_t)data, lt_storage_nbytes(s));
}

int64_t lt_shm_region_count(void) { return atomic_load(&region_count); }
