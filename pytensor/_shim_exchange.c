/* _shim_exchange.c: pytensor's own DLPack C exchange API (DLPack 1.3),
 * published as Tensor.__dlpack_c_exchange_api__.
 *
 * A consumer written in C finds the PyCapsule "dlpack_exchange_api" on the
 * type, and then exports, imports and allocates pytensor tensors without a
 * Python call: the table below is what __dlpack__(max_version=(1, 3)) and
 * from_dlpack do, minus the interpreter. Every function returns 0, or -1 with
 * a Python exception set (the consumer holds the GIL for the ones that take
 * a PyObject*). The table is static and lives as long as the process. */
#include <stdio.h>

#include "_shim.h"

/* The full table, in the spec's field order (56 bytes; the import side in
 * _shim_dlpack.c types only what it calls). */
typedef void (*dl_set_error)(void *error_ctx, const char *kind, const char *message);
typedef struct {
    pyt_exchange_header header;
    int (*managed_tensor_allocator)(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                                    dl_set_error set_error);
    int (*managed_tensor_from_py_object_no_sync)(void *py_object, DLManagedTensorVersioned **out);
    int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned *tensor, void **out_py_object);
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_current_stream);
} dl_exchange_table;

/* __dlpack__(max_version=(1, 3)): a versioned export that shares obj's memory.
 * The same refusals as the Python method: not a pytensor Tensor, a tensor
 * that requires grad (BufferError, as torch), and libtensor's (an offset
 * past the storage, a device it cannot describe). */
static int ex_from_py_object(void *py_object, DLManagedTensorVersioned **out)
{
    PyObject *obj = py_object;
    if (!pyt_tensor_cls || !PyObject_TypeCheck(obj, pyt_tensor_cls)) {
        PyErr_Format(PyExc_BufferError, "pytensor's DLPack exchange API exports pytensor Tensors, not %R",
                     (PyObject *)Py_TYPE(obj));
        return -1;
    }
    if (((TensorObject *)obj)->requires_grad == Py_True) {
        PyErr_SetString(PyExc_BufferError, "Can't export tensors that require gradient, use tensor.detach()");
        return -1;
    }
    void *managed = NULL;
    if (pyt_export_managed(&managed, (TensorObject *)obj, LT_EXPORT_VERSIONED) != 0)
        return -1;
    *out = managed;
    return 0;
}

/* from_dlpack of a managed tensor: a new Tensor that owns it. The table
 * steals tensor: when pytensor refuses it (a dtype or device it has no
 * name for, a bad layout), its deleter runs here, before returning -1. */
static int ex_to_py_object(DLManagedTensorVersioned *tensor, void **out_py_object)
{
    if (!tensor) {
        PyErr_SetString(PyExc_BufferError, "managed_tensor_to_py_object_no_sync: the tensor is NULL");
        return -1;
    }
    PyObject *t = pyt_import_versioned(tensor, NULL); /* frees a tensor it refuses */
    if (!t)
        return -1;
    *out_py_object = t;
    return 0;
}

/* A new, zeroed, row-major tensor of the prototype's dtype and shape in host
 * memory (only those fields and the device are read), handed over as a
 * managed tensor. Needs no GIL. Errors go through set_error with a Python
 * exception name as the kind. */
static int ex_allocator(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx, dl_set_error set_error)
{
    char why[160];
    lt_dtype dtype;
    int64_t strides[LT_MAX_NDIM], nbytes = 0;
    lt_storage *s = NULL;
    void *managed = NULL;
    if (!prototype || !out) {
        set_error(error_ctx, "ValueError", "managed_tensor_allocator: prototype and out must not be NULL");
        return -1;
    }
    if (prototype->device.device_type != kDLCPU) {
        snprintf(why, sizeof why, "pytensor allocates host memory only (kDLCPU), not device type %d",
                 (int)prototype->device.device_type);
        set_error(error_ctx, "BufferError", why);
        return -1;
    }
    if (prototype->ndim < 0 || prototype->ndim > LT_MAX_NDIM || (prototype->ndim > 0 && !prototype->shape)) {
        snprintf(why, sizeof why, "the prototype's ndim is %d; pytensor holds 0 to %d dimensions",
                 (int)prototype->ndim, LT_MAX_NDIM);
        set_error(error_ctx, "ValueError", why);
        return -1;
    }
    lt_status rc = lt_dtype_from_dlpack(&dtype, prototype->dtype.code, prototype->dtype.bits, prototype->dtype.lanes);
    /* Every step that fails writes its own lt_last_error, so the message
     * handed to set_error is always this call's. The sizes follow libtensor's
     * one rule for new memory (lt_layout_nbytes), as pytensor.empty's do. */
    if (rc == LT_OK)
        rc = lt_layout_contiguous_strides(strides, prototype->ndim, prototype->shape);
    if (rc == LT_OK)
        rc = lt_layout_nbytes(&nbytes, prototype->ndim, prototype->shape, lt_dtype_itemsize(dtype));
    if (rc == LT_OK)
        rc = lt_storage_new(&s, (size_t)nbytes, 1);
    if (rc == LT_OK) {
        rc = lt_dlpack_export(&managed, s, dtype, prototype->ndim, prototype->shape, strides, 0, LT_EXPORT_VERSIONED);
        lt_storage_release(s); /* the export holds its own reference */
    }
    if (rc != LT_OK) {
        set_error(error_ctx, rc == LT_ENOMEM ? "MemoryError" : "RuntimeError", lt_last_error());
        return -1;
    }
    *out = managed;
    return 0;
}

/* Host memory has no streams: always NULL, as the spec asks of CPU producers. */
static int ex_current_work_stream(int32_t device_type, int32_t device_id, void **out_current_stream)
{
    (void)device_type;
    (void)device_id;
    *out_current_stream = NULL;
    return 0;
}

/* dltensor_from_py_object_no_sync is NULL, as the spec allows: a Tensor keeps
 * its shape and strides as Python ints, so a borrowed DLTensor would need
 * int64 arrays that outlive the call, which is the allocation that function
 * exists to avoid. Consumers use the owning export instead. */
static const dl_exchange_table exchange_table = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL},
    ex_allocator,
    ex_from_py_object,
    ex_to_py_object,
    NULL,
    ex_current_work_stream,
};

/* exchange_api_capsule() -> the PyCapsule "dlpack_exchange_api" over the
 * static table, for Tensor.__dlpack_c_exchange_api__ (a new reference). */
static PyObject *exchange_api_capsule(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyCapsule_New((void *)&exchange_table, "dlpack_exchange_api", NULL);
}

PyMethodDef pyt_exchange_methods[] = {
    {"exchange_api_capsule", exchange_api_capsule, METH_NOARGS, "The DLPack C exchange API capsule."},
    {NULL, NULL, 0, NULL},
};
