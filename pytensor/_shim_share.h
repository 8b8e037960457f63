/* _shim_share.h: the zero-copy constructors' common case, in C (included
 * once, by _shim.c, after _shim_types.h).
 *
 * Each function here returns a finished Tensor for the ordinary input, or
 * None for anything else (another dtype, swapped bytes, negative strides,
 * an object that is not what it looks like). None sends the caller down the
 * Python path, which is complete and owns every error message; this file
 * only makes the common case cheap, so it never raises for bad input. */

/* NumPy's documented C-side array interface: the struct behind an array's
 * __array_struct__ capsule (numpy.org, "The array interface protocol"). */
typedef struct {
    int two; /* always 2: a sanity check */
    int nd;
    char typekind; /* 'b' bool, 'i' int, 'u' uint, 'f' float, 'c' complex, ... */
    int itemsize;
    int flags;
    Py_intptr_t *shape;
    Py_intptr_t *strides; /* may be NULL: C-contiguous */
    void *data;
    PyObject *descr;
} np_array_interface;

#define NP_ALIGNED 0x100
#define NP_NOTSWAPPED 0x200
#define NP_WRITEABLE 0x400

/* numpy.ndarray, looked up once numpy is imported (pytensor never imports it
 * here: an object cannot be an ndarray while numpy is not loaded), and the
 * getters of a few of ndarray's own attributes. A subclass may override
 * __array_struct__, dtype or base to describe some other memory (say, a
 * temporary array's) while only the subclass instance is kept alive;
 * ndarray's getters, called on the instance, always describe the
 * instance's own memory, which the instance keeps alive. */
enum { ND_ARRAY_STRUCT, ND_DTYPE, ND_BASE, ND_ATTR_COUNT };
static const char *const ndarray_attr_names[ND_ATTR_COUNT] = {"__array_struct__", "dtype", "base"};
static PyObject *ndarray_type, *ndarray_descr[ND_ATTR_COUNT];
static descrgetfunc ndarray_getter[ND_ATTR_COUNT];

static int find_ndarray(void)
{
    PyObject *np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy"); /* borrowed */
    if (!np)
        return 0;
    PyObject *type = PyObject_GetAttrString(np, "ndarray");
    PyObject *descr[ND_ATTR_COUNT] = {NULL};
    descrgetfunc get[ND_ATTR_COUNT] = {NULL};
    int ok = type != NULL;
    for (int i = 0; ok && i < ND_ATTR_COUNT; i++) {
        descr[i] = PyObject_GetAttrString(type, ndarray_attr_names[i]);
        get[i] = descr[i] ? (descrgetfunc)PyType_GetSlot(Py_TYPE(descr[i]), Py_tp_descr_get) : NULL;
        ok = get[i] != NULL;
    }
    if (!ok) {
        PyErr_Clear();
        Py_XDECREF(type);
        for (int i = 0; i < ND_ATTR_COUNT; i++)
            Py_XDECREF(descr[i]);
        return 0;
    }
    ndarray_type = type;
    for (int i = 0; i < ND_ATTR_COUNT; i++) {
        ndarray_descr[i] = descr[i];
        ndarray_getter[i] = get[i];
    }
    return 1;
}

static int is_ndarray(PyObject *obj)
{
    if (!ndarray_type && !find_ndarray())
        return 0;
    return Py_TYPE(obj) == (PyTypeObject *)ndarray_type ||
           PyType_IsSubtype(Py_TYPE(obj), (PyTypeObject *)ndarray_type);
}

/* ndarray's own attribute `which` of arr (an ndarray, checked by is_ndarray):
 * a new reference, or NULL with an exception. */
static PyObject *ndarray_attr(PyObject *arr, int which)
{
    return ndarray_getter[which](ndarray_descr[which], arr, ndarray_type);
}

/* 1 when a format string describes Python object pointers ('O', alone or in
 * a struct), 0 when not, -1 with an exception. */
static int format_has_objects(PyObject *format)
{
    const char *f = format && PyUnicode_Check(format) ? PyUnicode_AsUTF8AndSize(format, NULL) : NULL;
    if (!f && PyErr_Occurred())
        return -1;
    return f && strchr(f, 'O') != NULL;
}

/* Attribute names used on every call, interned once (a lookup by C string
 * makes a new str each time). */
static PyObject *str_format, *str_obj, *str_hasobject;

/* One step of holds_objects: 1 or 0 when node settles it, -1 on error, 2
 * to go on with *next (a new reference). */
static int holds_objects_step(PyObject *node, PyObject **next)
{
    int found;
    if (!str_hasobject && (!(str_format = PyUnicode_InternFromString("format")) ||
                           !(str_obj = PyUnicode_InternFromString("obj")) ||
                           !(str_hasobject = PyUnicode_InternFromString("hasobject"))))
        return -1;
    if (PyMemoryView_Check(node)) {
        /* memoryview.cast('B') reports 'B' over an object array: its own
         * format says nothing, the object it views does. */
        PyObject *format = PyObject_GetAttr(node, str_format);
        found = format ? format_has_objects(format) : -1;
        Py_XDECREF(format);
        if (found != 0)
            return found;
        *next = PyObject_GetAttr(node, str_obj);
        return *next ? 2 : -1;
    }
    if (is_ndarray(node)) {
        PyObject *dtype = ndarray_attr(node, ND_DTYPE);
        PyObject *has = dtype ? PyObject_GetAttr(dtype, str_hasobject) : NULL;
        found = has ? PyObject_IsTrue(has) : -1;
        Py_XDECREF(dtype);
        Py_XDECREF(has);
        if (found != 0)
            return found;
        *next = ndarray_attr(node, ND_BASE); /* NumPy's base: the array or object owning the memory */
        return *next ? 2 : -1;
    }
    if (PyByteArray_Check(node) || PyBytes_Check(node))
        return 0; /* bytes are bytes (and the common case) */
    /* Any other exporter: the format of a fresh export of it. */
    PyObject *view = PyMemoryView_FromObject(node);
    if (!view) {
        PyErr_Clear(); /* not an exporter (an ndarray's base can be any object) */
        return 0;
    }
    PyObject *format = PyObject_GetAttr(view, str_format);
    found = format ? format_has_objects(format) : -1;
    Py_XDECREF(format);
    PyObject *r = PyObject_CallMethod(view, "release", NULL);
    Py_XDECREF(r);
    Py_DECREF(view);
    return found < 0 || !r ? -1 : found;
}

/* holds_objects(obj) -> bool: whether the bytes obj exports may be Python
 * object pointers (an object array, seen through memoryviews, casts and
 * NumPy bases). Such bytes may be read but never written: one bad pointer
 * crashes the interpreter later. The one home of that rule: frombuffer's C
 * and Python paths both ask it. */
static int holds_objects(PyObject *obj)
{
    Py_INCREF(obj);
    for (int depth = 0; depth < 64 && obj != Py_None; depth++) {
        PyObject *next = NULL;
        int found = holds_objects_step(obj, &next);
        Py_DECREF(obj);
        if (found != 2)
            return found;
        obj = next;
    }
    /* 64 links (NumPy and memoryview both collapse their chains, so only a
     * contrived exporter gets here): assume the worst. */
    int result = obj != Py_None;
    Py_DECREF(obj);
    return result;
}

static PyObject *holds_objects_py(PyObject *self, PyObject *obj)
{
    (void)self;
    int found = holds_objects(obj);
    return found < 0 ? NULL : PyBool_FromLong(found);
}

/* The lt_dtype of a NumPy (typekind, itemsize), or -1 for one pytensor's
 * from_numpy does not take. */
static int np_dtype_code(char kind, int itemsize)
{
    switch (kind) {
    case 'b': return itemsize == 1 ? LT_BOOL : -1;
    case 'u':
        switch (itemsize) { case 1: return LT_UINT8; case 2: return LT_UINT16;
                            case 4: return LT_UINT32; case 8: return LT_UINT64; }
        return -1;
    case 'i':
        switch (itemsize) { case 1: return LT_INT8; case 2: return LT_INT16;
                            case 4: return LT_INT32; case 8: return LT_INT64; }
        return -1;
    case 'f':
        switch (itemsize) { case 2: return LT_FLOAT16; case 4: return LT_FLOAT32; case 8: return LT_FLOAT64; }
        return -1;
    case 'c':
        switch (itemsize) { case 8: return LT_COMPLEX64; case 16: return LT_COMPLEX128; }
        return -1;
    }
    return -1;
}

/* share_numpy(arr, min_ndim[, op]) -> Tensor sharing arr's memory (from_numpy's
 * rules), recorded as op (the calling constructor's PROV_* code; default
 * from_numpy) from arr's type, or None. min_ndim 1 leaves 0-d arrays to
 * the caller (asarray copies them). */
static PyObject *share_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 && nargs != 3)
        Py_RETURN_NONE;
    PyObject *arr = args[0];
    long min_ndim = PyLong_AsLong(args[1]), op = nargs == 3 ? PyLong_AsLong(args[2]) : PROV_FROM_NUMPY;
    if ((min_ndim == -1 || op == -1) && PyErr_Occurred())
        return NULL;
    if (op != PROV_FROM_NUMPY && op != PROV_ASARRAY && op != PROV_AS_TENSOR)
        Py_RETURN_NONE;
    if (!is_ndarray(arr))
        Py_RETURN_NONE;
    PyObject *cap = ndarray_attr(arr, ND_ARRAY_STRUCT); /* not arr's own attribute: see ndarray_attr */
    if (!cap) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    np_array_interface *ai = PyCapsule_GetPointer(cap, NULL);
    if (!ai) {
        PyErr_Clear();
        Py_DECREF(cap);
        Py_RETURN_NONE;
    }
    int code = ai->two == 2 ? np_dtype_code(ai->typekind, ai->itemsize) : -1;
    int nd = ai->nd;
    if (code < 0 || !(ai->flags & NP_NOTSWAPPED) || nd < min_ndim || nd > LT_MAX_NDIM) {
        Py_DECREF(cap);
        Py_RETURN_NONE;
    }
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    int64_t isz = ai->itemsize, numel = 1, last = 0, acc = 1;
    for (int i = nd - 1; i >= 0; i--) {
        int64_t bs = ai->strides ? (int64_t)ai->strides[i] : acc * isz;
        shape[i] = ai->shape[i];
        if (bs < 0 || bs % isz) { /* refused by from_numpy, with its message */
            Py_DECREF(cap);
            Py_RETURN_NONE;
        }
        strides[i] = bs / isz;
        numel *= shape[i];
        last += (shape[i] - 1) * strides[i];
        acc *= shape[i] > 0 ? shape[i] : 1;
    }
    size_t nbytes = numel == 0 ? 0 : (size_t)(last + 1) * (size_t)isz;
    void *data = ai->data;
    unsigned flags = (ai->flags & NP_WRITEABLE) ? 0 : LT_STORAGE_READONLY;
    Py_DECREF(cap);

    lt_storage *s = NULL;
    Py_INCREF(arr); /* the storage's reference, dropped by its deleter */
    lt_status rc = lt_storage_wrap(&s, data, nbytes, flags, LT_PROV_NUMPY, decref_deleter, arr);
    if (rc != LT_OK)
        return raise_last(rc);
    lt_storage_set_label(s, "numpy.ndarray");
    return prov_fresh(tensor_over(s, code, shape, strides, nd, 0), (int)op, (PyObject *)Py_TYPE(arr), NULL);
}

#if defined(Py_LIMITED_API) && Py_LIMITED_API + 0 < 0x030B0000
/* The buffer protocol joined the limited API in 3.11: built for 3.10, the
 * Python path serves frombuffer. */
#define SHIM_BUFFER_METHODS
#else
/* Storage deleter for a Py_buffer export: ctx is a malloc'd Py_buffer. */
static void release_buffer_deleter(void *ctx)
{
    if (atomic_load(&finalizing) || !Py_IsInitialized())
        return; /* the process is ending: leak the export rather than touch a dying interpreter */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release((Py_buffer *)ctx);
    PyGILState_Release(g);
    free(ctx);
}

/* The label of a buffer storage: its exporter's type name. PyType_GetName
 * builds a new str for static types, so the last one is remembered (in
 * statics guarded by the GIL, as are all the shim's caches). */
static const char *buffer_label(PyObject *obj)
{
    static PyTypeObject *last_type;
    static char last_label[64];
    if (Py_TYPE(obj) != last_type) {
        PyObject *name = PyType_GetName(Py_TYPE(obj));
        const char *s = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
        snprintf(last_label, sizeof last_label, "%s", s ? s : "buffer");
        last_type = s ? Py_TYPE(obj) : NULL;
        Py_XDECREF(name);
        PyErr_Clear(); /* a missing name only costs the label */
    }
    return last_label;
}

/* share_buffer(obj, dtype, count, offset, requires_grad) -> 1-D Tensor over
 * obj's bytes (frombuffer's rules; count -1: to the end), or None. A
 * writable export is taken when the exporter allows one, else a read-only
 * one; the export is held until the storage dies, so e.g. a bytearray
 * cannot be resized under a live tensor. */
static PyObject *share_buffer(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5 || args[4] != Py_False || !PyLong_CheckExact(args[2]) || !PyLong_CheckExact(args[3]))
        Py_RETURN_NONE;
    PyObject *obj = args[0];
    int code = dtype_code_of(args[1]);
    long long count = PyLong_AsLongLong(args[2]), offset = PyLong_AsLongLong(args[3]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (code < 0 || count == 0 || offset < 0)
        Py_RETURN_NONE;
    Py_buffer *view = malloc(sizeof *view);
    if (!view)
        return PyErr_NoMemory();
    unsigned flags = 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        flags = LT_STORAGE_READONLY;
        if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0) {
            PyErr_Clear();
            free(view);
            Py_RETURN_NONE;
        }
    }
    int64_t isz = (int64_t)lt_dtype_itemsize((lt_dtype)code), len = view->len, n;
    /* Object arrays hold PyObject pointers: the Python path makes them
     * read-only. A bytes-like exporter's own format is the whole answer;
     * memoryviews and arrays may hide an object array (see holds_objects). */
    int objects = view->format && strchr(view->format, 'O') != NULL;
    if (!objects && (PyMemoryView_Check(obj) || is_ndarray(obj)) && (objects = holds_objects(obj)) < 0) {
        PyBuffer_Release(view);
        free(view);
        return NULL;
    }
    if (count < 0)
        n = (len - offset) % isz ? -1 : (len - offset) / isz;
    else
        n = count <= (len - offset) / isz ? count : -1;
    if (objects || len <= 0 || offset >= len || n <= 0) {
        PyBuffer_Release(view);
        free(view);
        Py_RETURN_NONE; /* the Python path names the numbers in its error */
    }
    lt_storage *s = NULL;
    lt_status rc = lt_storage_wrap(&s, (char *)view->buf + offset, (size_t)(n * isz), flags, LT_PROV_BUFFER,
                                   release_buffer_deleter, view);
    if (rc != LT_OK) /* the deleter already released the export */
        return raise_last(rc);
    lt_storage_set_label(s, buffer_label(obj));
    int64_t one = 1;
    return prov_fresh(tensor_over(s, code, &n, &one, 1, 0), PROV_FROMBUFFER, (PyObject *)Py_TYPE(obj), NULL);
}
#define SHIM_BUFFER_METHODS \
    {"share_buffer", (PyCFunction)(void (*)(void))share_buffer, METH_FASTCALL, "frombuffer's common case."},
#endif

#define SHIM_SHARE_METHODS                                                                             \
    {"holds_objects", holds_objects_py, METH_O, "Whether a buffer's bytes may be Python object pointers."}, \
    {"share_numpy", (PyCFunction)(void (*)(void))share_numpy, METH_FASTCALL, "from_numpy's common case."}, \
    SHIM_BUFFER_METHODS
