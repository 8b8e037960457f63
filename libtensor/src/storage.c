/* storage.c: the refcounted storage. Heap blocks we allocate and foreign
 * memory we wrap are the same object; the only difference is who frees the
 * bytes, and that is decided once, at creation. */
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
    unsigned flags;
    lt_provenance provenance;
    int32_t device_type;
    int32_t device_id;
    free_kind free_kind;
    void *map_base; /* FREE_MMAP: the whole anonymous mapping, for munmap */
    size_t map_nbytes;
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

/* Large blocks come from mmap: the kernel hands out zeroed pages lazily, so
 * zeros() costs nothing up front, and a 2 MiB-aligned range can be advised to
 * use huge pages (about 4x faster first touch here). */
static int alloc_large(lt_storage *s, size_t nbytes)
{
    size_t total = nbytes + HUGE_BYTES;
    if (total < nbytes)
        return 0;
    void *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return 0;
    uintptr_t aligned = ((uintptr_t)base + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
#ifdef MADV_HUGEPAGE
    madvise((void *)aligned, nbytes, MADV_HUGEPAGE);
#endif
    s->data = (void *)aligned;
    s->map_base = base;
    s->map_nbytes = total;
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

lt_status lt_storage_new(lt_storage **out, size_t nbytes, int zero)
{
    if (nbytes > (size_t)INT64_MAX)
        return lt__fail(LT_EOVERFLOW, "storage of %zu bytes exceeds the int64 byte range", nbytes);
    lt_storage *s = storage_alloc();
    if (!s)
        return lt__fail(LT_ENOMEM, "could not allocate a storage header");
    int ok = nbytes >= HUGE_BYTES ? alloc_large(s, nbytes) : alloc_small(s, nbytes, zero);
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
        munmap(s->map_base, s->map_nbytes);
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
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
}

const char *lt_storage_label(const lt_storage *s) { return s->label; }

uint64_t lt_storage_version(const lt_storage *s) { return atomic_load(&((lt_storage *)s)->version); }

void lt_storage_bump_version(lt_storage *s) { atomic_fetch_add_explicit(&s->version, 1, memory_order_relaxed); }

int64_t lt_storage_live_count(void) { return atomic_load(&live_count); }
