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

/* to_capsule(tensor, flags) -> capsule sharing the tensor's memory; raises
 * libtensor's error when it refuses (e.g. read-only memory on a legacy request). */
static PyObject *to_capsule(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !tensor_cls || !PyObject_TypeCheck(args[0], tensor_cls)) {
        PyErr_SetString(PyExc_TypeError, "to_capsule(tensor, flags)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    unsigned long flags = PyLong_AsUnsignedLong(args[1]);
    if (flags == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    int code = dtype_code_of(t->dtype);
    if (code < 0) {
        PyErr_SetString(PyExc_TypeError, "to_capsule: the tensor's dtype is not a pytensor dtype");
        return NULL;
    }
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t ndim = int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (ndim < 0 || int64_tuple(t->strides, strides, LT_MAX_NDIM) != ndim) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return NULL;
    }
    long long offset = PyLong_AsLongLong(t->offset);
    if (offset == -1 && PyErr_Occurred())
        return NULL;
    void *managed = NULL;
    lt_status rc = lt_dlpack_export(&managed, ((StorageObject *)t->storage)->s, (lt_dtype)code, (int32_t)ndim,
                                    shape, strides, offset, (unsigned)flags);
    if (rc != LT_OK)
        return raise_last(rc);
    return wrap_managed(managed, (flags & LT_EXPORT_VERSIONED) != 0);
}

/* from_capsule(capsule) -> Tensor sharing the producer's memory, or None for
 * a capsule that is not an unconsumed DLPack capsule. Raises libtensor's
 * error when the tensor is refused (the capsule is then left unconsumed, so
 * its destructor still frees it). */
static PyObject *from_capsule(PyObject *self, PyObject *cap)
{
    (void)self;
    int versioned;
    if (PyCapsule_IsValid(cap, CAP_VERSIONED))
        versioned = 1;
    else if (PyCapsule_IsValid(cap, CAP_LEGACY))
        versioned = 0;
    else
        Py_RETURN_NONE;
    void *managed = PyCapsule_GetPointer(cap, versioned ? CAP_VERSIONED : CAP_LEGACY);
    if (!managed)
        return NULL;
    lt_storage *s = NULL;
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], offset;
    lt_status rc = lt_dlpack_import(&s, &dtype, &ndim, shape, strides, &offset, managed, versioned);
    if (rc != LT_OK)
        return raise_last(rc);
    /* Ownership is ours now; renaming marks the capsule consumed. */
    if (PyCapsule_SetName(cap, versioned ? CAP_USED_VERSIONED : CAP_USED_LEGACY) != 0) {
        lt_storage_release(s);
        return NULL;
    }
    PyObject *dt = dtype_by_code[dtype];
    Py_XINCREF(dt);
    return tensor_steal(storage_object(s), dt, int_tuple(shape, ndim), int_tuple(strides, ndim),
                        PyLong_FromLongLong(offset));
}

/* import_dlpack(obj) -> from_dlpack(obj) with no device or copy asked for:
 * a capsule is consumed; an object's __dlpack__(max_version=(1, 3)) is
 * called and its capsule consumed. Returns None, so that the Python path
 * runs instead, for an object without __dlpack__, a producer too old for
 * max_version (TypeError) or an invalid capsule; the producer's other
 * errors propagate as they are. */
static PyObject *import_dlpack(PyObject *self, PyObject *obj)
{
    static PyObject *kwargs; /* {"max_version": (1, 3)}, made once */
    if (PyCapsule_CheckExact(obj))
        return from_capsule(self, obj);
    static PyObject *attr;
    if (!attr && !(attr = PyUnicode_InternFromString("__dlpack__")))
        return NULL;
    PyObject *meth = PyObject_GetAttr(obj, attr);
    if (!meth) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!kwargs) {
        kwargs = Py_BuildValue("{s(ii)}", "max_version", 1, 3);
        if (!kwargs) {
            Py_DECREF(meth);
            return NULL;
        }
    }
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = empty ? PyObject_Call(meth, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(meth);
    if (!cap) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return NULL;
    }
    PyObject *t = PyCapsule_CheckExact(cap) ? from_capsule(self, cap) : (Py_INCREF(Py_None), Py_None);
    Py_DECREF(cap);
    return t;
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
    {"to_capsule", (PyCFunction)(void (*)(void))to_capsule, METH_FASTCALL, "Export a view as a capsule."}, \
    {"from_capsule", from_capsule, METH_O, "Consume a DLPack capsule into a Tensor."},        \
    {"import_dlpack", import_dlpack, METH_O, "from_dlpack's common case."},                    \
    {"capsule_from_pointer", capsule_from_pointer, METH_VARARGS, "Wrap a managed tensor."},
