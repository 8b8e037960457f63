/* storage.c: the refcounted storage. Heap blocks we allocate and foreign
 * memory we wrap are the same object; the only difference is who frees the
 * bytes, and that is decided once, at creation. */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define HUGE_BYTES ((size_t)2 << 20) /* 2 MiB: a transparent huge page */

typedef enum { FREE_NONE, FREE_HEAP, FREE_MMAP } free_kind;

struct lt_storage {
    _Atomic int64_t refcount;
    _Atomic uint64_t version;
    void *data;
    size_t nbytes;
    _Atomic unsigned flags; /* LT_STORAGE_*: pinning may set a bit while others read */
    lt_provenance provenance;
    int32_t device_type;
    int32_t device_id;
    free_kind free_kind;
    size_t map_nbytes; /* FREE_MMAP: length of the mapping starting at data */
    int map_huge;      /* FREE_MMAP: the mapping carries MADV_HUGEPAGE (see "Huge-page advice") */
    lt_deleter deleter;
    void *ctx;
    char label[256];
};

static _Atomic int64_t live_count;

static lt_storage *storage_alloc(void)
{
    lt_storage *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->device_type = kDLCPU;
    atomic_fetch_add(&live_count, 1);
    return s;
}

/* ------------------------------------------------------------ large blocks
 *
 * Large blocks come from mmap: the kernel hands out zeroed pages lazily, so
 * zeros() costs nothing up front, and a 2 MiB-aligned range can be advised to
 * use huge pages (about 4x faster first touch here).
 *
 * Huge-page advice: which blocks get it, and why.
 *
 * A block whose bytes are written later, piecemeal or never (lt_storage_new:
 * zeros, empty, a kernel's output, a resize) is advised MADV_HUGEPAGE, so
 * that whatever is touched costs one fault per 2 MiB instead of 512.
 *
 * A block that one copy overwrites whole the moment it is made
 * (lt_storage_new_copy: the in-band bytes of an unpickle, copy.copy of a
 * storage) is not advised, and is populated in one call instead
 * (MADV_POPULATE_WRITE, Linux 5.14; older kernels refuse it and the copy
 * faults the pages in). Every page will be written at once, so there is no
 * laziness to keep, and one populate call does away with the per-page fault
 * entries that huge pages would otherwise save; 4 KiB pages come from any
 * free memory. An advised first touch needs free 2 MiB blocks, and when it
 * finds none the kernel compacts memory before returning (THP defrag=madvise,
 * the usual default); in a VM with free page reporting the free 2 MiB blocks
 * are also those the host has taken back, which it must fault in again. On
 * the shared 2-CPU VM of tests/bench/RESULTS.md (page_reporting_order=11) a
 * fresh 1 GiB mapping plus memcpy took 1.1-5.7 s advised, with
 * compact_stall unchanged, against 0.6-1.1 s unadvised and populated (glibc
 * malloc, what torch gets: 0.8-1.4 s); the advised copy made the 1 GiB
 * protocol-4 unpickle 1.86x torch's. The copy's mapping stays in 4 KiB
 * pages, as torch's and NumPy's memory does; it is never advised later
 * (khugepaged would copy every 2 MiB again).
 *
 * A cached mapping (below) keeps the advice it was last given, and a
 * request that wants the other one changes it when taking it (one madvise,
 * microseconds): MADV_NOHUGEPAGE leaves pages already huge as they are, so a
 * copy into a reused block still faults nothing.
 *
 * First touch still costs: the kernel zeroes every fresh 2 MiB page before
 * we overwrite it, about 2 ms per 64 MiB on top of a 3-5 ms copy. NumPy
 * pays that too at 64 MiB (glibc mmaps the block afresh each time) but not
 * at 16 MiB, where glibc's sliding mmap threshold moves the block onto the
 * heap and the next allocation reuses pages already faulted in. So freed
 * mappings are kept in a small cache and handed to the next request that
 * fits: no munmap, no mmap, no faults.
 *
 * Bounds, so memory is not hoarded: at most CACHE_SLOTS mappings and
 * CACHE_MAX_BYTES in all; the newest freed mapping wins, evicting the
 * oldest. Cached pages get MADV_FREE (about 20 us per 64 MiB): unless the
 * kernel needs the memory they stay as they are, so reuse costs nothing;
 * under memory pressure the kernel may drop them rather than swap, and a
 * dropped page reads back as zero. MADV_DONTNEED would instead drop them at
 * once and bring every fault back. Either way a reused block holds garbage,
 * so only zero == 0 requests use the cache. A zero == 1 request maps afresh:
 * a memset of a reused 64 MiB block would cost 0.8 ms here against 2.9 ms of
 * faults, but the faults are paid only for pages actually touched, so
 * zeros() stays O(1) as NumPy's calloc is. lt_storage_trim() unmaps the
 * cache.
 *
 * Locking: one atomic_flag, taken by test-and-set and never waited on. A
 * thread that finds it taken bypasses the cache (maps or unmaps directly),
 * so nothing blocks. Only fork waits for it (below), so that a child never
 * inherits it taken (which would leave the child without a cache for good)
 * nor the slots half-updated. */

#define CACHE_SLOTS 4
#define CACHE_MAX_BYTES ((size_t)256 << 20)

typedef struct cached_map {
    void *data;     /* 2 MiB-aligned start of the mapping; NULL: slot empty */
    size_t nbytes;  /* mapping length, a multiple of HUGE_BYTES */
    uint64_t stamp; /* release order, to evict the oldest first */
    int huge;       /* the mapping carries MADV_HUGEPAGE */
} cached_map;

/* All guarded by cache_lock. */
static cached_map cache[CACHE_SLOTS];
static size_t cache_bytes; /* sum of the cached lengths */
static uint64_t cache_clock;
static atomic_flag cache_lock = ATOMIC_FLAG_INIT;

static int cache_try_lock(void) { return !atomic_flag_test_and_set_explicit(&cache_lock, memory_order_acquire); }
static void cache_unlock(void) { atomic_flag_clear_explicit(&cache_lock, memory_order_release); }

/* fork() copies one thread, so the forking thread takes the flag first (a
 * holder keeps it for a few loads and stores, never across a system call)
 * and both processes clear it after: the child's slots are consistent, and
 * its cache works. The cached blocks are private anonymous memory, so each
 * process owns its copy. Registered when the library is loaded. */
static void cache_before_fork(void)
{
    while (!cache_try_lock())
        sched_yield();
}

__attribute__((constructor)) static void cache_register_fork_handlers(void)
{
    /* Fails only without memory for the handler record, at load time. */
    LT__ASSERT(pthread_atfork(cache_before_fork, cache_unlock, cache_unlock) == 0);
}

/* Takes the smallest cached mapping of at least map_nbytes that wastes at
 * most a quarter of the request (a 256 MiB block should not serve 4 MiB),
 * the most recently freed among equals (its lines may still be in cache).
 * Returns 1 and fills *data, *len and *huge (its advice), or returns 0. */
static int cache_take(void **data, size_t *len, int *huge, size_t map_nbytes)
{
    if (!cache_try_lock())
        return 0;
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        const cached_map *c = &cache[i];
        if (!c->data || c->nbytes < map_nbytes || c->nbytes - map_nbytes > map_nbytes / 4)
            continue;
        if (best < 0 || c->nbytes < cache[best].nbytes ||
            (c->nbytes == cache[best].nbytes && c->stamp > cache[best].stamp))
            best = i;
    }
    if (best >= 0) {
        *data = cache[best].data;
        *len = cache[best].nbytes;
        *huge = cache[best].huge;
        cache_bytes -= cache[best].nbytes;
        cache[best].data = NULL;
    }
    cache_unlock();
    return best >= 0;
}

/* Caches a mapping the last storage using it has let go of, or unmaps it.
 * Evicted mappings are unmapped after the lock is dropped. */
static void cache_put(void *data, size_t len, int huge)
{
    cached_map evicted[CACHE_SLOTS];
    int nevicted = 0;
    if (len > CACHE_MAX_BYTES) {
        munmap(data, len);
        return;
    }
#ifdef MADV_FREE
    madvise(data, len, MADV_FREE); /* outside the lock: it takes microseconds */
#endif
    if (!cache_try_lock()) {
        munmap(data, len);
        return;
    }
    for (;;) { /* evict the oldest until a slot and the bytes are free */
        int empty = -1, oldest = -1;
        for (int i = 0; i < CACHE_SLOTS; i++) {
            if (!cache[i].data)
                empty = i;
            else if (oldest < 0 || cache[i].stamp < cache[oldest].stamp)
                oldest = i;
        }
        if (empty >= 0 && cache_bytes + len <= CACHE_MAX_BYTES) {
            cache[empty] = (cached_map){data, len, ++cache_clock, huge};
            cache_bytes += len;
            break;
        }
        evicted[nevicted++] = cache[oldest];
        cache_bytes -= cache[oldest].nbytes;
        cache[oldest].data = NULL;
    }
    cache_unlock();
    for (int i = 0; i < nevicted; i++)
        munmap(evicted[i].data, evicted[i].nbytes);
}

size_t lt_storage_trim(void)
{
    size_t released = 0;
    if (!cache_try_lock()) /* another thread is in the cache: it stays bounded */
        return 0;
    cached_map all[CACHE_SLOTS];
    memcpy(all, cache, sizeof all);
    memset(cache, 0, sizeof cache);
    cache_bytes = 0;
    cache_unlock();
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (all[i].data) {
            munmap(all[i].data, all[i].nbytes);
            released += all[i].nbytes;
        }
    return released;
}

/* Gives a mapping the huge-page advice or takes it away (see "Huge-page
 * advice"). A kernel without transparent huge pages refuses both, which
 * changes nothing here. */
static void set_huge_advice(void *data, size_t len, int huge)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    madvise(data, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)data, (void)len, (void)huge;
#endif
}

/* A fresh mapping of len bytes (a multiple of HUGE_BYTES) starting on a
 * 2 MiB boundary: map HUGE_BYTES more than needed and unmap the unaligned
 * head and the tail, so a whole mapping can later be cached and reused.
 * Advised to use huge pages when huge is set. */
static void *map_aligned(size_t len, int huge)
{
    size_t total = len + HUGE_BYTES;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    char *data = (char *)(((uintptr_t)base + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    size_t head = (size_t)(data - base), tail = total - head - len;
    if (head)
        munmap(base, head);
    if (tail)
        munmap(data + len, tail);
    if (huge)
        set_huge_advice(data, len, 1);
    return data;
}

/* Linux's value (uapi asm-generic/mman-common.h), for C libraries older
 * than the kernel feature. */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

/* How a large block will be written (see "Huge-page advice"). */
typedef enum { FILL_LATER, FILL_ZERO, FILL_COPY } fill_kind;

static int alloc_large(lt_storage *s, size_t nbytes, fill_kind fill)
{
    /* Whole huge pages: the last, partial one is faulted whole anyway. */
    size_t len = (nbytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
    if (len < nbytes || len + HUGE_BYTES < len)
        return 0;
    int huge = fill != FILL_COPY, cached_huge = 0;
    void *data = NULL;
    if (fill != FILL_ZERO && cache_take(&data, &len, &cached_huge, len)) {
        if (cached_huge != huge)
            set_huge_advice(data, len, huge);
    } else {
        data = map_aligned(len, huge);
        if (!data)
            return 0;
#ifdef MADV_POPULATE_WRITE
        /* Only the pages the copy writes (the kernel rounds nbytes up to a
         * page): the tail of the last 2 MiB stays lazy. A refusal (an older
         * kernel, or no memory: the copy then faults, as any first touch
         * would) changes nothing. */
        if (fill == FILL_COPY)
            madvise(data, nbytes, MADV_POPULATE_WRITE);
#endif
    }
    s->data = data;
    s->map_nbytes = len;
    s->map_huge = huge;
    s->free_kind = FREE_MMAP;
    return 1;
}

static int alloc_small(lt_storage *s, size_t nbytes, int zero)
{
    /* Round up to the alignment so that aligned_alloc's size rule holds and a
     * zero-byte storage still has a unique, valid pointer. */
    size_t rounded = (nbytes + 63) & ~(size_t)63;
    if (rounded == 0)
        rounded = 64;
    void *p = aligned_alloc(64, rounded);
    if (!p)
        return 0;
    if (zero)
        memset(p, 0, rounded);
    s->data = p;
    s->free_kind = FREE_HEAP;
    return 1;
}

static lt_status storage_new_block(lt_storage **out, size_t nbytes, fill_kind fill)
{
    if (nbytes > (size_t)INT64_MAX)
        return lt__fail(LT_EOVERFLOW, "storage of %zu bytes exceeds the int64 byte range", nbytes);
    lt_storage *s = storage_alloc();
    if (!s)
        return lt__fail(LT_ENOMEM, "could not allocate a storage header");
    int ok = nbytes >= HUGE_BYTES ? alloc_large(s, nbytes, fill) : alloc_small(s, nbytes, fill == FILL_ZERO);
    if (!ok) {
        atomic_fetch_sub(&live_count, 1);
        free(s);
        return lt__fail(LT_ENOMEM, "could not allocate %zu bytes", nbytes);
    }
    s->nbytes = nbytes;
    s->provenance = LT_PROV_OWNED;
    *out = s;
    return LT_OK;
}

lt_status lt_storage_new(lt_storage **out, size_t nbytes, int zero)
{
    return storage_new_block(out, nbytes, zero ? FILL_ZERO : FILL_LATER);
}

lt_status lt_storage_new_copy(lt_storage **out, const void *src, size_t nbytes)
{
    if (!src && nbytes)
        return lt__fail(LT_EINVAL, "cannot copy %zu bytes from a NULL pointer", nbytes);
    lt_status rc = storage_new_block(out, nbytes, FILL_COPY);
    if (rc == LT_OK && nbytes)
        memcpy((*out)->data, src, nbytes);
    return rc;
}

lt_status lt_storage_wrap(lt_storage **out, void *data, size_t nbytes, unsigned flags,
                          lt_provenance provenance, lt_deleter deleter, void *ctx)
{
    lt_status rc = LT_OK;
    if (!data && nbytes)
        rc = lt__fail(LT_EINVAL, "cannot wrap a NULL pointer as %zu bytes", nbytes);
    else if (nbytes > (size_t)INT64_MAX)
        rc = lt__fail(LT_EOVERFLOW, "storage of %zu bytes exceeds the int64 byte range", nbytes);
    else if (flags & ~LT_STORAGE_READONLY)
        rc = lt__fail(LT_EINVAL, "unknown storage flag bits 0x%x", flags & ~LT_STORAGE_READONLY);
    lt_storage *s = rc == LT_OK ? storage_alloc() : NULL;
    if (rc == LT_OK && !s)
        rc = lt__fail(LT_ENOMEM, "could not allocate a storage header");
    if (rc != LT_OK) {
        /* The contract says the deleter runs even on failure: the caller
         * handed us ownership of ctx and must not have to undo it. */
        if (deleter)
            deleter(ctx);
        return rc;
    }
    s->data = data;
    s->nbytes = nbytes;
    s->flags = flags;
    s->provenance = provenance;
    s->free_kind = FREE_NONE;
    s->deleter = deleter;
    s->ctx = ctx;
    *out = s;
    return LT_OK;
}

lt_status lt_storage_resize(lt_storage *s, size_t nbytes)
{
    if (!s)
        return lt__fail(LT_EINVAL, "lt_storage_resize needs a storage");
    size_t have = s->nbytes;
    if (nbytes <= have)
        return LT_OK; /* storages only grow: a smaller view needs no fewer bytes */
    if (s->provenance != LT_PROV_OWNED || s->free_kind == FREE_NONE)
        return lt__fail(LT_EINVAL, "this storage's %zu bytes are not libtensor's (they belong to whoever it wraps), "
                        "so it cannot be resized to %zu bytes; copy it first", have, nbytes);
    if (atomic_load(&s->flags) & LT_STORAGE_PINNED)
        return lt__fail(LT_EINVAL, "this storage's address was handed out (to a NumPy array) and must stay valid, "
                        "so its %zu bytes cannot move to grow to %zu; copy it first", have, nbytes);
    int64_t refs = atomic_load(&s->refcount);
    if (refs != 1)
        return lt__fail(LT_EINVAL, "this storage has %" PRId64 " references, and growing it from %zu to %zu bytes "
                        "would move the bytes under the other %" PRId64 "; drop them or copy first", refs, have,
                        nbytes, refs - 1);
    if (nbytes > (size_t)INT64_MAX)
        return lt__fail(LT_EOVERFLOW, "storage of %zu bytes exceeds the int64 byte range", nbytes);
    lt_storage fresh; /* only the block fields are used: data, free_kind, map_nbytes, map_huge */
    memset(&fresh, 0, sizeof fresh);
    int ok = nbytes >= HUGE_BYTES ? alloc_large(&fresh, nbytes, FILL_LATER) : alloc_small(&fresh, nbytes, 0);
    if (!ok)
        return lt__fail(LT_ENOMEM, "could not allocate %zu bytes to grow a storage of %zu", nbytes, have);
    memcpy(fresh.data, s->data, have);
    if (s->free_kind == FREE_HEAP)
        free(s->data);
    else
        cache_put(s->data, s->map_nbytes, s->map_huge);
    s->data = fresh.data;
    s->free_kind = fresh.free_kind;
    s->map_nbytes = fresh.map_nbytes;
    s->map_huge = fresh.map_huge;
    s->nbytes = nbytes;
    atomic_fetch_add_explicit(&s->version, 1, memory_order_relaxed);
    return LT_OK;
}

void lt_storage_pin(lt_storage *s)
{
    if (s)
        atomic_fetch_or(&s->flags, LT_STORAGE_PINNED);
}

void lt_storage_retain(lt_storage *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

static void storage_destroy(lt_storage *s)
{
    if (s->deleter)
        s->deleter(s->ctx);
    if (s->free_kind == FREE_HEAP)
        free(s->data);
    else if (s->free_kind == FREE_MMAP)
        cache_put(s->data, s->map_nbytes, s->map_huge);
    atomic_fetch_sub(&live_count, 1);
    free(s);
}

void lt_storage_release(lt_storage *s)
{
    if (!s)
        return;
    /* acq_rel: every write made by other holders happens-before the free. */
    int64_t before = atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel);
    LT__ASSERT(before >= 1);
    if (before == 1)
        storage_destroy(s);
}

void *lt_storage_data(const lt_storage *s) { return s->data; }
size_t lt_storage_nbytes(const lt_storage *s) { return s->nbytes; }
unsigned lt_storage_flags(const lt_storage *s) { return s->flags; }
lt_provenance lt_storage_provenance(const lt_storage *s) { return s->provenance; }
int64_t lt_storage_refcount(const lt_storage *s) { return atomic_load(&((lt_storage *)s)->refcount); }
int32_t lt_storage_device_type(const lt_storage *s) { return s->device_type; }
int32_t lt_storage_device_id(const lt_storage *s) { return s->device_id; }

void lt_storage_set_device(lt_storage *s, int32_t device_type, int32_t device_id)
{
    s->device_type = device_type;
    s->device_id = device_id;
}

void lt_storage_set_label(lt_storage *s, const char *label)
{
    /* Every wrapping constructor calls this: a bounded copy, not snprintf,
     * which costs a tenth of a whole from_numpy call here. */
    size_t n = label ? strnlen(label, sizeof s->label - 1) : 0;
    memcpy(s->label, label ? label : "", n);
    s->label[n] = '\0';
}

const char *lt_storage_label(const lt_storage *s) { return s->label; }

uint64_t lt_storage_version(const lt_storage *s) { return atomic_load(&((lt_storage *)s)->version); }

void lt_storage_bump_version(lt_storage *s) { atomic_fetch_add_explicit(&s->version, 1, memory_order_relaxed); }

int64_t lt_storage_live_count(void) { return atomic_load(&live_count); }
