/* _shim_dlpack.h: the DLPack capsule protocol, as CPython functions of the
 * shim (included once, by _shim.c, which has Python.h and libtensor.h).
 *
 * Capsule rules (DLPack Python spec): a producer's capsule is named
 * "dltensor" (legacy) or "dltensor_versioned"; its destructor calls the
 * managed tensor's deleter only while the capsule is unconsumed. A consumer
 * takes ownership first and renames the capsule "used_..." after, so a
 * capsule is consumed exactly once and never freed twice. */

static const char CAP_LEGACY[] = "dltensor";
static const char CAP_VERSIONED[] = "dltensor_versioned";
static const char CAP_USED_LEGACY[] = "used_dltensor";
static const char CAP_USED_VERSIONED[] = "used_dltensor_versioned";

static void capsule_destructor_legacy(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, CAP_LEGACY)) { /* never consumed: we still own it */
        DLManagedTensor *mt = PyCapsule_GetPointer(cap, CAP_LEGACY);
        if (mt && mt->deleter)
            mt->deleter(mt);
    }
}

static void capsule_destructor_versioned(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, CAP_VERSIONED)) {
        DLManagedTensorVersioned *mt = PyCapsule_GetPointer(cap, CAP_VERSIONED);
        if (mt && mt->deleter)
            mt->deleter(mt);
    }
}

/* Reads a tuple of Python ints into out[0..n). Returns n, or -1 with an
 * exception set. */
static Py_ssize_t int64_tuple(PyObject *tup, int64_t *out, Py_ssize_t cap)
{
    if (!PyTuple_Check(tup)) {
        PyErr_SetString(PyExc_TypeError, "shape and strides must be tuples");
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(tup);
    if (n > cap) {
        PyErr_Format(PyExc_ValueError, "%zd dimensions exceed the maximum of %zd", n, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PyTuple_GetItem(tup, i));
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return n;
}

static PyObject *wrap_managed(void *managed, int versioned)
{
    PyObject *cap = PyCapsule_New(managed, versioned ? CAP_VERSIONED : CAP_LEGACY,
                                  versioned ? capsule_destructor_versioned : capsule_destructor_legacy);
    if (!cap) { /* the capsule could not take ownership: free the export here */
        if (versioned)
            ((DLManagedTensorVersioned *)managed)->deleter(managed);
        else
            ((DLManagedTensor *)managed)->deleter(managed);
    }
    return cap;
}

/* to_capsule(storage_addr, dtype, shape, strides, offset, flags)
 *   -> capsule, or (status, message) when libtensor refuses. */
static PyObject *to_capsule(PyObject *self, PyObject *args)
{
    PyObject *addr_obj, *shape_obj, *strides_obj;
    int dtype;
    long long offset;
    unsigned flags;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    (void)self;
    if (!PyArg_ParseTuple(args, "OiOOLI", &addr_obj, &dtype, &shape_obj, &strides_obj, &offset, &flags))
        return NULL;
    lt_storage *storage = PyLong_AsVoidPtr(addr_obj);
    if (!storage)
        return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "NULL storage"), NULL);
    Py_ssize_t ndim = int64_tuple(shape_obj, shape, LT_MAX_NDIM);
    if (ndim < 0 || int64_tuple(strides_obj, strides, LT_MAX_NDIM) != ndim) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return NULL;
    }
    void *managed = NULL;
    lt_status rc = lt_dlpack_export(&managed, storage, (lt_dtype)dtype, (int32_t)ndim, shape, strides, offset,
                                    flags);
    if (rc != LT_OK)
        return status_error(rc);
    return wrap_managed(managed, (flags & LT_EXPORT_VERSIONED) != 0);
}

/* from_capsule(capsule) -> (storage_addr, dtype, shape, strides, offset, device_type, device_id),
 * or (status, message) when the tensor is refused (the capsule is then left
 * unconsumed, so its destructor still frees it). Raises ValueError for a
 * capsule that is not an unconsumed DLPack capsule. */
static PyObject *from_capsule(PyObject *self, PyObject *cap)
{
    (void)self;
    int versioned;
    if (PyCapsule_IsValid(cap, CAP_VERSIONED))
        versioned = 1;
    else if (PyCapsule_IsValid(cap, CAP_LEGACY))
        versioned = 0;
    else {
        PyErr_SetString(PyExc_ValueError, "not an unconsumed DLPack capsule");
        return NULL;
    }
    void *managed = PyCapsule_GetPointer(cap, versioned ? CAP_VERSIONED : CAP_LEGACY);
    if (!managed)
        return NULL;
    lt_storage *s = NULL;
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], offset;
    lt_status rc = lt_dlpack_import(&s, &dtype, &ndim, shape, strides, &offset, managed, versioned);
    if (rc != LT_OK)
        return status_error(rc);
    /* Ownership is ours now; renaming marks the capsule consumed. */
    if (PyCapsule_SetName(cap, versioned ? CAP_USED_VERSIONED : CAP_USED_LEGACY) != 0) {
        lt_storage_release(s);
        return NULL;
    }
    PyObject *shp = PyTuple_New(ndim), *std = PyTuple_New(ndim);
    if (!shp || !std) {
        Py_XDECREF(shp);
        Py_XDECREF(std);
        lt_storage_release(s);
        return NULL;
    }
    for (int32_t i = 0; i < ndim; i++) {
        PyTuple_SetItem(shp, i, PyLong_FromLongLong(shape[i]));
        PyTuple_SetItem(std, i, PyLong_FromLongLong(strides[i]));
    }
    return Py_BuildValue("(NiNNLii)", PyLong_FromVoidPtr(s), (int)dtype, shp, std, (long long)offset,
                         (int)lt_storage_device_type(s), (int)lt_storage_device_id(s));
}

/* capsule_from_pointer(addr, versioned) -> capsule owning the managed
 * tensor at addr. For tests that hand-build (even malformed) managed
 * tensors with libtensor's test producer. */
static PyObject *capsule_from_pointer(PyObject *self, PyObject *args)
{
    PyObject *addr_obj;
    int versioned;
    (void)self;
    if (!PyArg_ParseTuple(args, "Op", &addr_obj, &versioned))
        return NULL;
    void *managed = PyLong_AsVoidPtr(addr_obj);
    if (!managed)
        return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "NULL pointer"), NULL);
    return wrap_managed(managed, versioned);
}

#define SHIM_DLPACK_METHODS                                                                    \
    {"to_capsule", to_capsule, METH_VARARGS, "Export a view as a DLPack capsule."},            \
    {"from_capsule", from_capsule, METH_O, "Consume a DLPack capsule into a storage."},        \
    {"capsule_from_pointer", capsule_from_pointer, METH_VARARGS, "Wrap a managed tensor."},
