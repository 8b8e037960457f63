/* test_dlpack.c: export fields, export -> import round trips of views with
 * offsets and negative or zero strides, the deleter handoff (exactly one
 * call on success, none on refusal), read-only both ways, and metadata-only
 * device imports. Foreign tensors come from the test producer
 * (dlpack_test_producer.c), which knows nothing of libtensor. */
#include <stdint.h>

#include "dlpack_test_producer.h"
#include "libtensor.h"
#include "minitest.h"

/* A producer's tensor of libtensor dtype `dtype` whose element slot k,
 * counted from its buffer's start, holds the value k (converted as lt_copy
 * converts; the packed float4 dtype converts from nothing and stays zero). */
static lt_status produce(void **out, int versioned, lt_dtype dtype, int32_t ndim, const int64_t *shape,
                         const int64_t *strides, uint64_t byte_offset, uint64_t flags, uint32_t major,
                         int64_t *deleter_calls)
{
    DLDataType dl;
    void *buffer = NULL;
    size_t nbytes = 0, itemsize = lt_dtype_itemsize(dtype);
    lt_status rc = lt_dtype_to_dlpack(&dl, dtype);
    if (rc != LT_OK)
        return rc;
    if (dlpack_test_producer(out, &buffer, &nbytes, versioned, dl, itemsize, ndim, shape, strides, byte_offset,
                             flags, major, deleter_calls) != 0)
        return LT_ENOMEM;
    lt_storage *s = NULL;
    int64_t zero = 0, one = 1;
    if (lt_storage_wrap(&s, buffer, nbytes, 0, LT_PROV_FOREIGN, NULL, NULL) == LT_OK) {
        lt_fill_arange(s, dtype, (int64_t)(nbytes / itemsize), &zero, &one, LT_INT64);
        lt_storage_release(s);
    }
    return LT_OK;
}

typedef struct {
    lt_storage *s;
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], offset;
} imported;

static lt_status import(imported *im, void *managed, int versioned)
{
    im->s = NULL;
    return lt_dlpack_import(&im->s, &im->dtype, &im->ndim, im->shape, im->strides, &im->offset, managed, versioned);
}

static DLTensor *tensor_of(void *managed, int versioned)
{
    return versioned ? &((DLManagedTensorVersioned *)managed)->dl_tensor : &((DLManagedTensor *)managed)->dl_tensor;
}

static void call_deleter(void *managed, int versioned)
{
    if (versioned)
        ((DLManagedTensorVersioned *)managed)->deleter(managed);
    else
        ((DLManagedTensor *)managed)->deleter(managed);
}

/* Element k (row-major order over shape) of a view, as an element offset. */
static int64_t elem_at(int64_t k, int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    int64_t off = 0;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        off += (k % shape[i]) * strides[i];
        k /= shape[i];
    }
    return off;
}

static int64_t numel_of(int32_t ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

/* A storage of 64 float32 holding 0..63. */
static lt_storage *arange_storage(void)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, 64 * sizeof(float), 0), LT_OK);
    float *f = lt_storage_data(s);
    for (int i = 0; i < 64; i++)
        f[i] = (float)i;
    return s;
}

static void test_export_fields(void)
{
    lt_storage *s = arange_storage();
    float *base = lt_storage_data(s);
    int64_t shape[2] = {3, 4}, strides[2] = {8, 1};
    void *m = NULL;

    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 2, shape, strides, 5, LT_EXPORT_VERSIONED), LT_OK);
    DLManagedTensorVersioned *v = m;
    CHECK_INT(v->version.major, DLPACK_MAJOR_VERSION);
    CHECK_INT(v->version.minor, DLPACK_MINOR_VERSION);
    CHECK_INT(v->flags, 0);
    CHECK(v->dl_tensor.data == base + 5); /* data at element 0, byte_offset 0 */
    CHECK_INT(v->dl_tensor.byte_offset, 0);
    CHECK_INT(v->dl_tensor.device.device_type, kDLCPU);
    CHECK_INT(v->dl_tensor.ndim, 2);
    CHECK_INT(v->dl_tensor.dtype.code, kDLFloat);
    CHECK_INT(v->dl_tensor.dtype.bits, 32);
    CHECK_INT(v->dl_tensor.dtype.lanes, 1);
    CHECK_INT(v->dl_tensor.shape[1], 4);
    CHECK_INT(v->dl_tensor.strides[0], 8);
    /* one block: shape and strides live right after the struct */
    CHECK((char *)v->dl_tensor.shape == (char *)v + sizeof *v);
    CHECK_INT(lt_storage_refcount(s), 2);
    v->deleter(v);
    CHECK_INT(lt_storage_refcount(s), 1);

    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 2, shape, strides, 5, LT_EXPORT_COPIED), LT_OK);
    DLManagedTensor *l = m;
    CHECK(l->dl_tensor.data == base + 5);
    CHECK(l->manager_ctx == s);
    l->deleter(l);

    /* 0-d: no shape or strides at all */
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 0, NULL, NULL, 9, LT_EXPORT_VERSIONED | LT_EXPORT_COPIED), LT_OK);
    v = m;
    CHECK(v->dl_tensor.shape == NULL && v->dl_tensor.strides == NULL);
    CHECK_INT(*(float *)v->dl_tensor.data, 9);
    CHECK_INT(v->flags, DLPACK_FLAG_BITMASK_IS_COPIED);
    v->deleter(v);

    /* refusals take no reference */
    int64_t far[1] = {60}, unit[1] = {1};
    m = NULL;
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, far, unit, 5, LT_EXPORT_VERSIONED), LT_ERANGE);
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, far, unit, 0, 0x10), LT_EINVAL);
    CHECK_INT(lt_dlpack_export(&m, s, (lt_dtype)99, 1, far, unit, 0, 0), LT_EDTYPE);
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, far, NULL, 0, 0), LT_EINVAL);
    CHECK(m == NULL);
    CHECK_INT(lt_storage_refcount(s), 1);
    lt_storage_release(s);
}

static void test_export_readonly(void)
{
    static float frozen[4] = {1, 2, 3, 4};
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_wrap(&s, frozen, sizeof frozen, LT_STORAGE_READONLY, LT_PROV_BUFFER, NULL, NULL), LT_OK);
    int64_t shape[1] = {4}, unit[1] = {1};
    void *m = NULL;
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, shape, unit, 0, LT_EXPORT_VERSIONED), LT_OK);
    CHECK_INT(((DLManagedTensorVersioned *)m)->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
    /* and the flag comes back as a read-only storage */
    imported im;
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_INT(lt_storage_flags(im.s), LT_STORAGE_READONLY);
    lt_storage_release(im.s);
    /* a legacy tensor cannot say read-only, so it is refused */
    m = NULL;
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, shape, unit, 0, 0), LT_EDLPACK);
    CHECK(m == NULL);
    CHECK(strstr(lt_last_error(), "read-only") != NULL);
    CHECK_INT(lt_storage_refcount(s), 1);
    lt_storage_release(s);
}

/* Exports a view, imports it back, and checks that the import addresses
 * exactly the same bytes and spans exactly the bytes the view reaches. */
static void round_trip(int versioned, int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                       int64_t want_nbytes)
{
    lt_storage *s = arange_storage();
    float *base = lt_storage_data(s);
    void *m = NULL;
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, ndim, shape, strides, offset,
                               versioned ? LT_EXPORT_VERSIONED : 0),
              LT_OK);
    imported im;
    CHECK_INT(import(&im, m, versioned), LT_OK);
    CHECK_INT(lt_storage_refcount(s), 2); /* held by the export, now owned by the import */
    CHECK_INT(im.dtype, LT_FLOAT32);
    CHECK_INT(im.ndim, ndim);
    CHECK_INT(lt_storage_nbytes(im.s), want_nbytes);
    CHECK_INT(lt_storage_provenance(im.s), LT_PROV_DLPACK);
    CHECK_INT(lt_storage_flags(im.s), 0);
    CHECK_STR(lt_storage_label(im.s), versioned ? "DLPack v1.3" : "DLPack (legacy)");
    CHECK_INT(lt_layout_check(ndim, im.shape, im.strides, im.offset, 4, lt_storage_nbytes(im.s)), LT_OK);
    float *got = (float *)lt_storage_data(im.s) + im.offset;
    CHECK(numel_of(ndim, shape) == 0 || got == base + offset);
    for (int32_t i = 0; i < ndim; i++) {
        CHECK_INT(im.shape[i], shape[i]);
        CHECK_INT(im.strides[i], strides[i]);
    }
    for (int64_t k = 0; k < numel_of(ndim, shape); k++)
        CHECK_DBL(got[elem_at(k, ndim, im.shape, im.strides)], base[offset + elem_at(k, ndim, shape, strides)]);

    /* re-exporting the import is zero-copy too */
    void *again = NULL;
    CHECK_INT(lt_dlpack_export(&again, im.s, im.dtype, im.ndim, im.shape, im.strides, im.offset, LT_EXPORT_VERSIONED),
              LT_OK);
    CHECK(numel_of(ndim, shape) == 0 || ((DLManagedTensorVersioned *)again)->dl_tensor.data == base + offset);
    call_deleter(again, 1);

    lt_storage_release(im.s); /* runs our export deleter exactly once */
    CHECK_INT(lt_storage_refcount(s), 1);
    lt_storage_release(s);
}

static void test_round_trips(void)
{
    for (int versioned = 0; versioned < 2; versioned++) {
        int64_t sh_a[2] = {3, 4}, st_a[2] = {8, 1};
        round_trip(versioned, 2, sh_a, st_a, 5, (2 * 8 + 3 + 1) * 4);
        int64_t sh_b[1] = {3}, st_b[1] = {-4}; /* elements 11, 7, 3 */
        round_trip(versioned, 1, sh_b, st_b, 11, 9 * 4);
        int64_t sh_c[2] = {4, 3}, st_c[2] = {0, 1}; /* a broadcast row */
        round_trip(versioned, 2, sh_c, st_c, 2, 3 * 4);
        int64_t sh_d[2] = {2, 3}, st_d[2] = {-3, -1}; /* reversed both ways, reaching element 0 */
        round_trip(versioned, 2, sh_d, st_d, 5, 6 * 4);
        int64_t sh_e[2] = {4, 3}, st_e[2] = {1, 4}; /* transposed */
        round_trip(versioned, 2, sh_e, st_e, 0, 12 * 4);
        int64_t sh_f[2] = {0, 3}, st_f[2] = {3, 1}; /* empty: reaches nothing */
        round_trip(versioned, 2, sh_f, st_f, 7, 0);
        round_trip(versioned, 0, NULL, NULL, 9, 4); /* 0-d */
    }
}

/* An empty view may sit past its storage's end (a [5:] slice of a 5 x 0
 * tensor, whose storage holds no bytes): it reaches no bytes, so it exports,
 * pointing at the storage's first byte. */
static void test_export_empty_past_the_end(void)
{
    lt_storage *s = NULL;
    CHECK_INT(lt_storage_new(&s, 0, 0), LT_OK);
    int64_t shape[2] = {0, 0}, strides[2] = {1, 1};
    for (int versioned = 0; versioned < 2; versioned++) {
        void *m = NULL;
        CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 2, shape, strides, 5, versioned ? LT_EXPORT_VERSIONED : 0),
                  LT_OK);
        DLTensor *t = tensor_of(m, versioned);
        CHECK(t->data == lt_storage_data(s));
        CHECK_INT(t->byte_offset, 0);
        CHECK_INT(t->shape[0], 0);
        CHECK_INT(lt_storage_refcount(s), 2);
        call_deleter(m, versioned);
    }
    /* A view with elements past the end is still refused. */
    int64_t one[1] = {1}, unit[1] = {1};
    void *m = NULL;
    CHECK_INT(lt_dlpack_export(&m, s, LT_FLOAT32, 1, one, unit, 0, LT_EXPORT_VERSIONED), LT_ERANGE);
    CHECK(m == NULL);
    CHECK_INT(lt_storage_refcount(s), 1);
    lt_storage_release(s);
}

/* A producer's tensor that imports: values, deleter count, ownership. */
static void test_producer_import(void)
{
    int64_t calls = 0;
    void *m = NULL;
    imported im;

    /* byte_offset 16 over float64 slots 0,1,2,...: elements 2, 3, 4 */
    int64_t three[1] = {3}, unit[1] = {1};
    CHECK_INT(produce(&m, 1, LT_FLOAT64, 1, three, unit, 16, 0, 1, &calls), LT_OK);
    CHECK_INT(import(&im, m, 1), LT_OK);
    double *d = (double *)lt_storage_data(im.s) + im.offset;
    CHECK_DBL(d[0], 2);
    CHECK_DBL(d[2], 4);
    CHECK_INT(im.offset, 0);
    CHECK_INT(lt_storage_nbytes(im.s), 24);
    CHECK_INT(calls, 0);
    lt_storage_retain(im.s);
    lt_storage_release(im.s);
    CHECK_INT(calls, 0);
    lt_storage_release(im.s);
    CHECK_INT(calls, 1);

    /* NULL strides (legacy): compact row-major strides are filled in */
    int64_t two_three[2] = {2, 3};
    CHECK_INT(produce(&m, 0, LT_INT32, 2, two_three, NULL, 0, 0, 0, &calls), LT_OK);
    CHECK_INT(import(&im, m, 0), LT_OK);
    CHECK_INT(im.strides[0], 3);
    CHECK_INT(im.strides[1], 1);
    CHECK_INT(((int32_t *)lt_storage_data(im.s))[5], 5);
    CHECK_INT(lt_storage_flags(im.s), 0); /* legacy imports are writable, as in torch */
    lt_storage_release(im.s);
    CHECK_INT(calls, 2);

    /* negative strides from a producer: the storage starts at the lowest element */
    int64_t back2[1] = {-2};
    CHECK_INT(produce(&m, 1, LT_FLOAT32, 1, three, back2, 0, 0, 1, &calls), LT_OK);
    float *first = tensor_of(m, 1)->data;
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK(lt_storage_data(im.s) == first - 4);
    CHECK_INT(im.offset, 4);
    CHECK_INT(lt_storage_nbytes(im.s), 5 * 4);
    float *f = (float *)lt_storage_data(im.s) + im.offset;
    CHECK_DBL(f[0], 4);
    CHECK_DBL(f[-2], 2);
    CHECK_DBL(f[-4], 0);
    lt_storage_release(im.s);
    CHECK_INT(calls, 3);
}

/* Tensors that import despite oddities the spec allows. */
static void test_lenient_imports(void)
{
    int64_t calls = 0, n = 0;
    void *m = NULL;
    imported im;
    int64_t four[1] = {4}, unit[1] = {1}, empty[2] = {0, 3}, st[2] = {3, 1};

    /* harmless flags, a newer minor, NULL strides from a v1.3 producer */
    CHECK_INT(produce(&m, 1, LT_UINT8, 1, four, NULL, 0,
                                      DLPACK_FLAG_BITMASK_IS_COPIED | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, 1,
                                      &calls),
              LT_OK);
    ((DLManagedTensorVersioned *)m)->version.minor = 99;
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_STR(lt_storage_label(im.s), "DLPack v1.99");
    lt_storage_release(im.s);
    CHECK_INT(calls, ++n);

    /* read-only flag -> read-only storage */
    CHECK_INT(produce(&m, 1, LT_INT16, 1, four, unit, 0, DLPACK_FLAG_BITMASK_READ_ONLY, 1, &calls),
              LT_OK);
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_INT(lt_storage_flags(im.s), LT_STORAGE_READONLY);
    lt_storage_release(im.s);
    CHECK_INT(calls, ++n);

    /* empty tensor with NULL data (torch's habit): 0 bytes, strides kept as given */
    CHECK_INT(produce(&m, 1, LT_FLOAT32, 2, empty, st, 0, 0, 1, &calls), LT_OK);
    tensor_of(m, 1)->data = NULL; /* the producer frees its own buffer field, not data */
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_INT(lt_storage_nbytes(im.s), 0);
    CHECK(lt_storage_data(im.s) == NULL);
    CHECK_INT(im.strides[0], 3);
    lt_storage_release(im.s);
    CHECK_INT(calls, ++n);

    /* 0-d with NULL shape (numpy's habit) */
    CHECK_INT(produce(&m, 1, LT_COMPLEX128, 0, NULL, NULL, 0, 0, 1, &calls), LT_OK);
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_INT(im.ndim, 0);
    CHECK_INT(lt_storage_nbytes(im.s), 16);
    lt_storage_release(im.s);
    CHECK_INT(calls, ++n);

    /* a NULL deleter is legal: releasing the import calls nothing */
    CHECK_INT(produce(&m, 0, LT_BOOL, 1, four, unit, 0, 0, 0, &calls), LT_OK);
    void (*saved)(DLManagedTensor *) = ((DLManagedTensor *)m)->deleter;
    ((DLManagedTensor *)m)->deleter = NULL;
    CHECK_INT(import(&im, m, 0), LT_OK);
    CHECK_INT(im.dtype, LT_BOOL); /* kDLBool stays bool */
    lt_storage_release(im.s);
    CHECK_INT(calls, n);
    saved(m); /* the test frees what a NULL-deleter producer would have leaked */
    CHECK_INT(calls, ++n);
}

/* Metadata-only devices: the pointer is kept, never dereferenced, and
 * re-exported unchanged; opaque handles keep offsets in byte_offset. */
static void test_devices(void)
{
    int64_t calls = 0;
    void *m = NULL, *again = NULL;
    imported im;
    int64_t three[1] = {3}, unit[1] = {1};

    CHECK_INT(produce(&m, 1, LT_FLOAT32, 1, three, unit, 0, 0, 1, &calls), LT_OK);
    DLTensor *t = tensor_of(m, 1);
    t->device.device_type = kDLCUDA;
    t->device.device_id = 1;
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK_INT(lt_storage_device_type(im.s), kDLCUDA);
    CHECK_INT(lt_storage_device_id(im.s), 1);
    CHECK(lt_storage_data(im.s) == t->data);
    int64_t two[1] = {2}; /* elements 1 and 2 */
    CHECK_INT(lt_dlpack_export(&again, im.s, im.dtype, 1, two, im.strides, 1, LT_EXPORT_VERSIONED), LT_OK);
    DLTensor *e = tensor_of(again, 1);
    CHECK_INT(e->device.device_type, kDLCUDA);
    CHECK_INT(e->device.device_id, 1);
    CHECK(e->data == (char *)t->data + 4);
    CHECK_INT(e->byte_offset, 0);
    call_deleter(again, 1);
    lt_storage_release(im.s);
    CHECK_INT(calls, 1);

    CHECK_INT(produce(&m, 1, LT_FLOAT32, 1, three, unit, 8, 0, 1, &calls), LT_OK);
    t = tensor_of(m, 1);
    t->device.device_type = kDLMetal;
    CHECK_INT(import(&im, m, 1), LT_OK);
    CHECK(lt_storage_data(im.s) == t->data); /* the handle itself */
    CHECK_INT(im.offset, 2);
    CHECK_INT(lt_storage_nbytes(im.s), 20);
    CHECK_INT(lt_dlpack_export(&again, im.s, im.dtype, 1, im.shape, im.strides, im.offset, LT_EXPORT_VERSIONED),
              LT_OK);
    e = tensor_of(again, 1);
    CHECK(e->data == t->data);
    CHECK_INT(e->byte_offset, 8);
    call_deleter(again, 1);
    lt_storage_release(im.s);
    CHECK_INT(calls, 2);

    /* pinned and managed host memory import as such */
    CHECK_INT(produce(&m, 0, LT_FLOAT32, 1, three, unit, 0, 0, 0, &calls), LT_OK);
    tensor_of(m, 0)->device.device_type = kDLCUDAManaged;
    CHECK_INT(import(&im, m, 0), LT_OK);
    CHECK_INT(lt_storage_device_type(im.s), kDLCUDAManaged);
    CHECK_DBL(((float *)lt_storage_data(im.s))[2], 2);
    lt_storage_release(im.s);
    CHECK_INT(calls, 3);
}

/* One refused tensor: the status is as expected, nothing was taken (no
 * deleter call, *out untouched), and the caller can still free it. */
typedef enum { EDIT_NONE, EDIT_CODE99, EDIT_LANES2, EDIT_BOOL1, EDIT_FLOAT128, EDIT_DATA_NULL, EDIT_DEVICE99,
               EDIT_DEVICE5 } edit;

static void refuse(int line, lt_status want, int versioned, lt_dtype dtype, int32_t ndim, const int64_t *shape,
                   const int64_t *strides, uint64_t byte_offset, uint64_t flags, uint32_t major, edit how)
{
    int64_t calls = 0;
    void *m = NULL;
    CHECK_INT(produce(&m, versioned, dtype, ndim, shape, strides, byte_offset, flags, major, &calls),
              LT_OK);
    DLTensor *t = tensor_of(m, versioned);
    if (how == EDIT_CODE99)
        t->dtype.code = 99;
    else if (how == EDIT_LANES2)
        t->dtype.lanes = 2;
    else if (how == EDIT_BOOL1)
        t->dtype.bits = 1;
    else if (how == EDIT_FLOAT128)
        t->dtype.bits = 128;
    else if (how == EDIT_DATA_NULL)
        t->data = NULL;
    else if (how == EDIT_DEVICE99)
        t->device.device_type = 99;
    else if (how == EDIT_DEVICE5)
        t->device.device_type = 5;
    imported im;
    lt_storage *sentinel = (lt_storage *)&im;
    im.s = sentinel;
    lt_status rc =
        lt_dlpack_import(&im.s, &im.dtype, &im.ndim, im.shape, im.strides, &im.offset, m, versioned);
    if (rc != want)
        MT_FAIL("case at line %d: expected %s, got %s (%s)", line, lt_status_name(want), lt_status_name(rc),
                lt_last_error());
    if (im.s != sentinel || calls != 0)
        MT_FAIL("case at line %d: a refused import took ownership (%lld deleter calls)", line, (long long)calls);
    call_deleter(m, versioned);
    CHECK_INT(calls, 1);
}

#define REFUSE(...) refuse(__LINE__, __VA_ARGS__)

static void test_refusals(void)
{
    int64_t three[1] = {3}, unit[1] = {1}, neg[2] = {2, -1}, huge[2] = {(int64_t)1 << 62, 4},
            three3[2] = {3, 3}, huge_st[2] = {INT64_MAX, 1}, ones[LT_MAX_NDIM + 1];
    for (int i = 0; i <= LT_MAX_NDIM; i++)
        ones[i] = 1;
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, 0, 2, EDIT_NONE); /* major 2 */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, 0, 0, EDIT_NONE); /* major 0 */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, (uint64_t)1 << 5, 1, EDIT_NONE);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, (uint64_t)1 << 63, 1, EDIT_NONE);
    REFUSE(LT_EDLPACK, 0, LT_FLOAT32, LT_MAX_NDIM + 1, ones, ones, 0, 0, 0, EDIT_NONE);
    REFUSE(LT_EDLPACK, 0, LT_FLOAT32, -1, NULL, NULL, 0, 0, 0, EDIT_NONE);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 2, NULL, NULL, 0, 0, 1, EDIT_NONE); /* NULL shape */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 2, neg, NULL, 0, 0, 1, EDIT_NONE);  /* negative extent */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 2, huge, NULL, 0, 0, 1, EDIT_NONE); /* numel overflows */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 2, three3, huge_st, 0, 0, 1, EDIT_NONE); /* (3-1) * stride overflows */
    int64_t two_big[2] = {2, 4}, big_st[2] = {(int64_t)1 << 62, 1};
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 2, two_big, big_st, 0, 0, 1, EDIT_NONE); /* byte extent overflows */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT64, 1, three, unit, 4, 0, 1, EDIT_NONE);     /* misaligned byte_offset */
    REFUSE(LT_EDLPACK, 1, LT_FLOAT64, 1, three, unit, (uint64_t)1 << 63, 0, 1, EDIT_NONE);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, 0, 1, EDIT_CODE99);
    REFUSE(LT_EDLPACK, 0, LT_FLOAT32, 1, three, unit, 0, 0, 0, EDIT_LANES2);
    REFUSE(LT_EDLPACK, 1, LT_BOOL, 1, three, unit, 0, 0, 1, EDIT_BOOL1);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT64, 1, three, unit, 0, 0, 1, EDIT_FLOAT128);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, 0, 1, EDIT_DATA_NULL);
    REFUSE(LT_EDLPACK, 1, LT_FLOAT32, 1, three, unit, 0, 0, 1, EDIT_DEVICE99);
    REFUSE(LT_EDLPACK, 0, LT_FLOAT32, 1, three, unit, 0, 0, 0, EDIT_DEVICE5);

    /* the messages name the numbers */
    int64_t calls = 0;
    void *m = NULL;
    imported im;
    CHECK_INT(produce(&m, 1, LT_FLOAT32, 1, three, unit, 0, 0, 2, &calls), LT_OK);
    CHECK_INT(import(&im, m, 1), LT_EDLPACK);
    CHECK(strstr(lt_last_error(), "2.3") != NULL);
    call_deleter(m, 1);
    CHECK_INT(import(&im, NULL, 1), LT_EDLPACK);
    CHECK_INT(calls, 1);
}

int main(void)
{
    int64_t live0 = lt_storage_live_count();
    test_export_fields();
    test_export_readonly();
    test_round_trips();
    test_export_empty_past_the_end();
    test_producer_import();
    test_lenient_imports();
    test_devices();
    test_refusals();
    CHECK_INT(lt_storage_live_count(), live0);
    MT_DONE();
}
