/* dlpack.c: DLPack export and import, and a test producer.
 *
 * Export hands out one malloc block, [managed struct | shape | strides],
 * whose manager_ctx is a storage reference; its deleter releases that
 * reference and frees the block, touching nothing else (no Python, no lock),
 * so a consumer may call it from any thread at any time.
 *
 * Import validates every field before it takes anything, then wraps the
 * producer's memory as a storage whose deleter calls the producer's deleter
 * exactly once. The storage starts at the lowest byte the view can reach, so
 * negative strides need no special case anywhere else in libtensor. */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

/* Flag bits this consumer understands. IS_SUBBYTE_TYPE_PADDED only changes
 * the meaning of types narrower than a byte, which lt_dtype_from_dlpack
 * refuses anyway, so with any dtype we accept it says nothing and is ignored.
 * IS_COPIED is informational: the import is ours alone either way. */
#define KNOWN_FLAGS                                                                                        \
    (DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)

/* Devices whose data field is a handle (cl_mem, VkBuffer, id<MTLBuffer>,
 * GPUBuffer) rather than an address: offsets must travel in byte_offset and
 * are never added to data. */
static int is_opaque_handle(int32_t device_type)
{
    return device_type == kDLOpenCL || device_type == kDLVulkan || device_type == kDLMetal ||
           device_type == kDLWebGPU;
}

/* The device types of DLPack v1.3; 5 and 6 are unassigned. */
static int is_known_device(int32_t device_type)
{
    return (device_type >= kDLCPU && device_type <= kDLOpenCL) || (device_type >= kDLVulkan && device_type <= kDLTrn);
}

/* ---------------------------------------------------------------- export */

static void export_free_versioned(DLManagedTensorVersioned *self)
{
    lt_storage_release(self->manager_ctx);
    free(self);
}

static void export_free_legacy(DLManagedTensor *self)
{
    lt_storage_release(self->manager_ctx);
    free(self);
}

static lt_status check_export(const lt_storage *storage, lt_dtype dtype, int32_t ndim, const int64_t *shape,
                              const int64_t *strides, int64_t offset, unsigned flags)
{
    if (!storage)
        return lt__fail(LT_EINVAL, "cannot export a NULL storage");
    if (flags & ~(LT_EXPORT_VERSIONED | LT_EXPORT_COPIED))
        return lt__fail(LT_EINVAL, "unknown export flag bits 0x%x", flags & ~(LT_EXPORT_VERSIONED | LT_EXPORT_COPIED));
    size_t itemsize = lt_dtype_itemsize(dtype);
    if (itemsize == 0)
        return lt__fail(LT_EDTYPE, "dtype value %d is not a libtensor dtype", (int)dtype);
    if (!(flags & LT_EXPORT_VERSIONED) && (lt_storage_flags(storage) & LT_STORAGE_READONLY))
        return lt__fail(LT_EDLPACK, "a legacy DLManagedTensor cannot mark memory read-only; "
                                    "export a versioned tensor or copy the data first");
    return lt_layout_check(ndim, shape, strides, offset, itemsize, lt_storage_nbytes(storage));
}

/* Fills t for a checked view. data points at element 0 and byte_offset is 0
 * (what numpy, torch and CuPy emit, since old consumers ignored byte_offset),
 *   data = storage data + offset * itemsize,
 * except on opaque-handle devices, where data stays the handle and
 *   byte_offset = offset * itemsize. */
static void fill_tensor(DLTensor *t, int64_t *dims, lt_storage *s, lt_dtype dtype, int32_t ndim,
                        const int64_t *shape, const int64_t *strides, int64_t offset)
{
    uint64_t byte_offset = (uint64_t)offset * lt_dtype_itemsize(dtype);
    t->device.device_type = lt_storage_device_type(s);
    t->device.device_id = lt_storage_device_id(s);
    if (is_opaque_handle(t->device.device_type)) {
        t->data = lt_storage_data(s);
        t->byte_offset = byte_offset;
    } else {
        /* integer arithmetic: the pointer may belong to another device */
        t->data = (void *)((uintptr_t)lt_storage_data(s) + byte_offset);
        t->byte_offset = 0;
    }
    t->ndim = ndim;
    lt_dtype_to_dlpack(&t->dtype, dtype);
    t->shape = ndim > 0 ? dims : NULL;
    t->strides = ndim > 0 ? dims + ndim : NULL;
    for (int32_t i = 0; i < ndim; i++) {
        dims[i] = shape[i];
        dims[ndim + i] = strides[i];
    }
}

lt_status lt_dlpack_export(void **out, lt_storage *storage, lt_dtype dtype, int32_t ndim, const int64_t *shape,
                           const int64_t *strides, int64_t offset, unsigned flags)
{
    int64_t numel = 0;
    if (lt_layout_numel(&numel, ndim, shape) == LT_OK && numel == 0)
        offset = 0; /* no bytes to reach (see the header), as imports of empty tensors do */
    lt_status rc = check_export(storage, dtype, ndim, shape, strides, offset, flags);
    if (rc != LT_OK)
        return rc;
    int versioned = (flags & LT_EXPORT_VERSIONED) != 0;
    size_t head = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
    char *block = malloc(head + 2 * (size_t)ndim * sizeof(int64_t));
    if (!block)
        return lt__fail(LT_ENOMEM, "could not allocate a DLPack tensor of %d dimensions", (int)ndim);
    DLTensor *t;
    if (versioned) {
        DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)block;
        m->version.major = DLPACK_MAJOR_VERSION;
        m->version.minor = DLPACK_MINOR_VERSION; /* a promise: strides are given whenever ndim > 0 */
        m->manager_ctx = storage;
        m->deleter = export_free_versioned;
        m->flags = ((lt_storage_flags(storage) & LT_STORAGE_READONLY) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                   ((flags & LT_EXPORT_COPIED) ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
        t = &m->dl_tensor;
    } else {
        DLManagedTensor *m = (DLManagedTensor *)block;
        m->manager_ctx = storage;
        m->deleter = export_free_legacy;
        t = &m->dl_tensor;
    }
    fill_tensor(t, (int64_t *)(block + head), storage, dtype, ndim, shape, strides, offset);
    lt_storage_retain(storage);
    *out = block;
    return LT_OK;
}

/* ---------------------------------------------------------------- import */

/* A view to be imported, fully checked: nothing is owned yet. */
typedef struct {
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM];
    int64_t strides[LT_MAX_NDIM];
    int64_t offset;  /* elements from the storage's start to element 0 */
    uintptr_t data;  /* the storage's start: the lowest byte the view reaches */
    size_t nbytes;   /* every byte the view reaches */
    unsigned flags;  /* LT_STORAGE_* */
    DLDevice device;
} import_plan;

/* Rewraps the detail message of a failed helper as a DLPack refusal. The
 * copy is needed because lt__fail writes into the same thread-local buffer. */
static lt_status refuse_with_last_error(void)
{
    char why[256];
    snprintf(why, sizeof why, "%s", lt_last_error());
    return lt__fail(LT_EDLPACK, "DLPack tensor refused: %s", why);
}

/* Finds the DLTensor and flags. A different major version means the rest of
 * the struct may be laid out differently, so nothing past flags is read. */
static lt_status read_header(const DLTensor **t, uint64_t *dl_flags, void *managed, int versioned)
{
    if (!managed)
        return lt__fail(LT_EDLPACK, "the managed tensor is NULL");
    if (!versioned) {
        *t = &((DLManagedTensor *)managed)->dl_tensor;
        *dl_flags = 0;
        return LT_OK;
    }
    DLManagedTensorVersioned *m = managed;
    if (m->version.major != DLPACK_MAJOR_VERSION)
        return lt__fail(LT_EDLPACK, "DLPack version %" PRIu32 ".%" PRIu32 " is not supported; libtensor reads %d.x",
                        m->version.major, m->version.minor, DLPACK_MAJOR_VERSION);
    if (m->flags & ~(uint64_t)KNOWN_FLAGS)
        return lt__fail(LT_EDLPACK, "unknown DLPack flag bits 0x%" PRIx64 " (known: 0x%llx)",
                        m->flags & ~(uint64_t)KNOWN_FLAGS, (unsigned long long)KNOWN_FLAGS);
    *t = &m->dl_tensor;
    *dl_flags = m->flags;
    return LT_OK;
}

/* Copies shape and strides, computing compact row-major strides when the
 * producer gave none (legacy capsules and v1.0/1.1 may; later versions should
 * not, but refusing would gain nothing):  strides[i] = prod(shape[i+1:]). */
static lt_status plan_dims(import_plan *p, const DLTensor *t)
{
    if (t->ndim < 0 || t->ndim > LT_MAX_NDIM)
        return lt__fail(LT_EDLPACK, "DLPack tensor has ndim %d; libtensor supports 0 to %d", (int)t->ndim,
                        LT_MAX_NDIM);
    if (t->ndim > 0 && !t->shape)
        return lt__fail(LT_EDLPACK, "DLPack tensor has ndim %d but a NULL shape", (int)t->ndim);
    p->ndim = t->ndim;
    for (int32_t i = 0; i < p->ndim; i++) {
        if (t->shape[i] < 0)
            return lt__fail(LT_EDLPACK, "DLPack shape[%d] is %" PRId64 "; extents must be >= 0", (int)i,
                            t->shape[i]);
        p->shape[i] = t->shape[i];
    }
    if (t->strides) {
        memcpy(p->strides, t->strides, (size_t)p->ndim * sizeof *p->strides);
        return LT_OK;
    }
    if (lt_layout_contiguous_strides(p->strides, p->ndim, p->shape) != LT_OK)
        return lt__fail(LT_EDLPACK, "the compact strides of the DLPack shape overflow int64");
    return LT_OK;
}

static lt_status plan_dtype(import_plan *p, const DLTensor *t)
{
    /* An unknown dtype is a refusal of this exchange like any other, so it
     * reports LT_EDLPACK (Python's BufferError), not the bare LT_EDTYPE. */
    if (lt_dtype_from_dlpack(&p->dtype, t->dtype.code, t->dtype.bits, t->dtype.lanes) != LT_OK)
        return refuse_with_last_error();
    size_t itemsize = lt_dtype_itemsize(p->dtype);
    if (t->byte_offset > INT64_MAX)
        return lt__fail(LT_EDLPACK, "DLPack byte_offset %" PRIu64 " exceeds the int64 range", t->byte_offset);
    if (t->byte_offset % itemsize != 0)
        return lt__fail(LT_EDLPACK, "DLPack byte_offset %" PRIu64 " is not a multiple of the %zu-byte %s element",
                        t->byte_offset, itemsize, lt_dtype_name(p->dtype));
    return LT_OK;
}

/* Places the storage over the bytes the view reaches. With the view's byte
 * extent [lo, hi) measured from element 0 (lo <= 0 when strides are negative):
 *   host or device pointer:  data = dl.data + byte_offset + lo,  offset = -lo / itemsize
 *   opaque handle:           data = dl.data,  offset = (byte_offset + lo) / itemsize
 * An empty view reaches nothing: 0 bytes at dl.data, which may be NULL. */
static lt_status plan_span(import_plan *p, const DLTensor *t)
{
    int64_t isz = (int64_t)lt_dtype_itemsize(p->dtype), lo, hi, numel;
    if (lt_layout_numel(&numel, p->ndim, p->shape) != LT_OK ||
        lt_layout_extent(&lo, &hi, p->ndim, p->shape, p->strides, 0, (size_t)isz) != LT_OK)
        return refuse_with_last_error();
    p->data = (uintptr_t)t->data;
    p->nbytes = 0;
    p->offset = 0;
    if (numel == 0)
        return LT_OK;
    if (!t->data)
        return lt__fail(LT_EDLPACK, "DLPack data is NULL for a tensor of %" PRId64 " elements", numel);
    /* start cannot overflow: byte_offset <= INT64_MAX and lo <= 0. Below,
     * adding ustart to an address subtracts |start| by unsigned wraparound. */
    int64_t start = (int64_t)t->byte_offset + lo, span = 0;
    uintptr_t ustart = (uintptr_t)start, base = p->data;
    int opaque = is_opaque_handle(t->device.device_type), bad;
    if (opaque)
        bad = start < 0 || __builtin_add_overflow((int64_t)t->byte_offset, hi, &span);
    else
        bad = __builtin_sub_overflow(hi, lo, &span) ||
              (start < 0 ? base < (uintptr_t)0 - ustart : base > UINTPTR_MAX - ustart) ||
              base + ustart > UINTPTR_MAX - (uintptr_t)span;
    if (bad)
        return lt__fail(LT_EDLPACK, "DLPack view (byte_offset %" PRIu64 ", bytes [%" PRId64 ", %" PRId64
                                    ") around element 0) does not fit the address space",
                        t->byte_offset, lo, hi);
    p->data = opaque ? base : base + ustart;
    p->offset = opaque ? start / isz : -(lo / isz);
    p->nbytes = (size_t)span;
    return LT_OK;
}

static lt_status plan_import(import_plan *p, void *managed, int versioned)
{
    const DLTensor *t = NULL;
    uint64_t dl_flags = 0;
    lt_status rc = read_header(&t, &dl_flags, managed, versioned);
    if (rc != LT_OK)
        return rc;
    if (!is_known_device(t->device.device_type))
        return lt__fail(LT_EDLPACK, "DLPack device type %d is unknown", (int)t->device.device_type);
    if ((rc = plan_dims(p, t)) != LT_OK || (rc = plan_dtype(p, t)) != LT_OK || (rc = plan_span(p, t)) != LT_OK)
        return rc;
    p->flags = (dl_flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? LT_STORAGE_READONLY : 0;
    p->device = t->device;
    return LT_OK;
}

/* The imported storage's deleter context. armed stays 0 until ownership is
 * taken, so that if lt_storage_wrap fails (and runs the deleter at once) the
 * producer's tensor is left alone, as the contract promises. */
typedef struct {
    void *managed;
    int versioned;
    int armed;
} import_owner;

static void import_release(void *ctx)
{
    import_owner *o = ctx;
    if (o->armed && o->versioned) {
        DLManagedTensorVersioned *m = o->managed;
        if (m->deleter)
            m->deleter(m);
    } else if (o->armed) {
        DLManagedTensor *m = o->managed;
        if (m->deleter)
            m->deleter(m);
    }
    free(o);
}

/* Writes v in decimal at p and returns the end: the import's label without
 * snprintf, which costs as much as the rest of the import. */
static char *put_u32(char *p, uint32_t v)
{
    char digits[10];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = digits[--n];
    return p;
}

static lt_status adopt(lt_storage **out, const import_plan *p, void *managed, int versioned)
{
    import_owner *o = malloc(sizeof *o);
    if (!o)
        return lt__fail(LT_ENOMEM, "could not allocate a DLPack import record");
    o->managed = managed;
    o->versioned = versioned;
    o->armed = 0;
    lt_storage *s = NULL;
    lt_status rc = lt_storage_wrap(&s, (void *)p->data, p->nbytes, p->flags, LT_PROV_DLPACK, import_release, o);
    if (rc != LT_OK)
        return rc; /* import_release freed o and nothing else */
    o->armed = 1;
    lt_storage_set_device(s, p->device.device_type, p->device.device_id);
    if (versioned) {
        const DLPackVersion *v = &((DLManagedTensorVersioned *)managed)->version;
        char label[32] = "DLPack v", *end = label + 8;
        end = put_u32(end, v->major);
        *end++ = '.';
        *put_u32(end, v->minor) = '\0';
        lt_storage_set_label(s, label);
    } else {
        lt_storage_set_label(s, "DLPack (legacy)");
    }
    *out = s;
    return LT_OK;
}

lt_status lt_dlpack_import(lt_storage **out, lt_dtype *out_dtype, int32_t *out_ndim, int64_t *out_shape,
                           int64_t *out_strides, int64_t *out_offset, void *managed, int versioned)
{
    import_plan p;
    lt_status rc = plan_import(&p, managed, versioned);
    if (rc == LT_OK)
        rc = adopt(out, &p, managed, versioned);
    if (rc != LT_OK)
        return rc;
    *out_dtype = p.dtype;
    *out_ndim = p.ndim;
    memcpy(out_shape, p.shape, (size_t)p.ndim * sizeof(int64_t));
    memcpy(out_strides, p.strides, (size_t)p.ndim * sizeof(int64_t));
    *out_offset = p.offset;
    return LT_OK;
}
