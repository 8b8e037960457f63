/* dlpack_test_producer.c: see dlpack_test_producer.h. */
#include "dlpack_test_producer.h"

#include <stdlib.h>
#include <string.h>

/* The producer's block: the managed struct first, so the deleter can cast
 * self back to it, then the bookkeeping, then shape and strides. */
typedef struct {
    union {
        DLManagedTensorVersioned v;
        DLManagedTensor l;
    } m;
    void *buffer;
    int64_t *deleter_calls;
    int64_t dims[];
} test_tensor;

#define BUFFER_MAX ((int64_t)256 << 20)
#define SMALL_BUFFER 64
#define MAX_NDIM 64

static void test_tensor_free(test_tensor *tt)
{
    int64_t *calls = tt->deleter_calls;
    free(tt->buffer);
    free(tt);
    if (calls)
        __atomic_fetch_add(calls, 1, __ATOMIC_SEQ_CST);
}

static void free_versioned(DLManagedTensorVersioned *self) { test_tensor_free((test_tensor *)self); }
static void free_legacy(DLManagedTensor *self) { test_tensor_free((test_tensor *)self); }

/* Bytes [lo, hi) that the elements reach around element 0, each dimension
 * adding (shape[i]-1) * stride * itemsize below or above; 0 when the view is
 * empty, -1 when the metadata cannot be measured or reaches past BUFFER_MAX
 * (every partial sum stays within +-BUFFER_MAX, so nothing overflows). */
static int reach(int64_t *lo, int64_t *hi, int64_t itemsize, int32_t ndim, const int64_t *shape,
                 const int64_t *strides)
{
    int64_t step = 1, r;
    *lo = 0, *hi = itemsize;
    if (ndim < 0 || ndim > MAX_NDIM || (ndim > 0 && !shape))
        return -1;
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] == 0) {
            *hi = 0;
            return 0;
        }
    for (int32_t i = ndim - 1; i >= 0; i--) {
        int64_t stride = strides ? strides[i] : step; /* compact: step = prod(shape[i+1:]) */
        if (shape[i] < 0 || shape[i] > BUFFER_MAX || __builtin_mul_overflow(step, shape[i], &step) ||
            __builtin_mul_overflow(shape[i] - 1, stride, &r) || __builtin_mul_overflow(r, itemsize, &r) ||
            r > BUFFER_MAX || r < -BUFFER_MAX)
            return -1;
        *(r < 0 ? lo : hi) += r;
        if (*hi - *lo > BUFFER_MAX)
            return -1;
    }
    return 0;
}

int dlpack_test_producer(void **out, void **out_buffer, size_t *out_nbytes, int versioned, DLDataType dtype,
                         size_t itemsize, int32_t ndim, const int64_t *shape, const int64_t *strides,
                         uint64_t byte_offset, uint64_t flags, uint32_t major, int64_t *deleter_calls)
{
    if (!out)
        return -1;
    size_t ndims = ndim > 0 ? (size_t)ndim : 0;
    int64_t lo = 0, hi = 0, size = SMALL_BUFFER;
    if (byte_offset <= (uint64_t)BUFFER_MAX && itemsize <= 64 &&
        reach(&lo, &hi, (int64_t)itemsize, ndim, shape, strides) == 0)
        size = (int64_t)byte_offset + (hi - lo) + SMALL_BUFFER; /* the slack keeps an empty tensor's buffer non-empty */
    else
        lo = 0;
    test_tensor *tt = malloc(sizeof *tt + 2 * ndims * sizeof(int64_t));
    char *buffer = calloc(1, (size_t)size);
    if (!tt || !buffer) {
        free(tt);
        free(buffer);
        return -1;
    }
    memset(&tt->m, 0, sizeof tt->m);
    tt->buffer = buffer;
    tt->deleter_calls = deleter_calls;
    DLTensor *t = versioned ? &tt->m.v.dl_tensor : &tt->m.l.dl_tensor;
    t->data = buffer - lo;
    t->device.device_type = kDLCPU;
    t->ndim = ndim;
    t->dtype = dtype;
    t->byte_offset = byte_offset;
    t->shape = shape && ndims ? memcpy(tt->dims, shape, ndims * sizeof(int64_t)) : NULL;
    t->strides = strides && ndims ? memcpy(tt->dims + ndims, strides, ndims * sizeof(int64_t)) : NULL;
    if (versioned) {
        tt->m.v.version.major = major;
        tt->m.v.version.minor = DLPACK_MINOR_VERSION;
        tt->m.v.manager_ctx = tt;
        tt->m.v.deleter = free_versioned;
        tt->m.v.flags = flags;
    } else {
        tt->m.l.manager_ctx = tt;
        tt->m.l.deleter = free_legacy;
    }
    *out = tt;
    if (out_buffer)
        *out_buffer = buffer;
    if (out_nbytes)
        *out_nbytes = (size_t)size;
    return 0;
}
