/* _shim_share.c: tensors over Python memory without a copy: from_numpy's
 * sharing of an ndarray and frombuffer's of a buffer export.
 *
 * Each is the only implementation of its constructor's rules: it returns a
 * finished Tensor or raises torch's error (type and message) for input of
 * its kind; None means only "not my kind" (not an ndarray; arguments that
 * pytensor/creation.py normalizes first). Byte extents come from
 * libtensor's layout rules (lt_layout_*), the storage from lt_storage_wrap,
 * which holds the Python object until its deleter runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_shim.h"

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

/* The lt_dtype of arr's dtype by its name (ml_dtypes' bfloat16 and float8
 * types: typekind 'V', or 'f' with itemsize 1): the registered pytensor
 * dtype of that name, or -1. A NumPy dtype and a pytensor dtype of the same name
 * are the same type (dtypes.from_numpy_dtype's rule). -2 with an exception. */
static int np_named_dtype_code(PyObject *arr)
{
    PyObject *dtype = ndarray_attr(arr, ND_DTYPE);
    PyObject *name = dtype ? PyObject_GetAttrString(dtype, "name") : NULL;
    Py_XDECREF(dtype);
    if (!name)
        return -2;
    int code = -1;
    for (int i = 0; i < LT_DTYPE_COUNT && code < 0; i++) {
        PyObject *own = pyt_dtype_by_code[i] ? PyObject_GetAttrString(pyt_dtype_by_code[i], "name") : NULL;
        int same = own ? PyObject_RichCompareBool(own, name, Py_EQ) : -1;
        Py_XDECREF(own);
        if (same < 0) {
            Py_DECREF(name);
            return -2;
        }
        code = same ? i : -1;
    }
    Py_DECREF(name);
    return code;
}

static const char NP_SUPPORTED[] = "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                                   "uint64, uint32, uint16, uint8, and bool";

/* from_numpy's refusal of arr's dtype (torch's TypeError). Returns NULL. */
static PyObject *refuse_numpy_dtype(PyObject *arr)
{
    PyObject *dtype = ndarray_attr(arr, ND_DTYPE);
    PyObject *type = dtype ? PyObject_GetAttrString(dtype, "type") : NULL;
    PyObject *name = type ? PyObject_GetAttrString(type, "__name__") : NULL;
    if (name)
        PyErr_Format(PyExc_TypeError, "can't convert np.ndarray of type numpy.%U. The only supported types are: %s.",
                     name, NP_SUPPORTED);
    Py_XDECREF(dtype);
    Py_XDECREF(type);
    Py_XDECREF(name);
    return NULL;
}

/* The lt_dtype of the array ai describes, or -1 with from_numpy's error
 * raised (torch's types and messages): swapped bytes, a dtype pytensor lacks. */
static int numpy_code(PyObject *arr, const np_array_interface *ai)
{
    int code = np_dtype_code(ai->typekind, ai->itemsize);
    if (!(ai->flags & NP_NOTSWAPPED)) {
        if (code >= 0)
            PyErr_SetString(PyExc_ValueError, "given numpy array has byte order different from the native byte "
                                              "order. Conversion between byte orders is currently not supported.");
        else
            refuse_numpy_dtype(arr);
        return -1;
    }
    if (code < 0 && (code = np_named_dtype_code(arr)) == -2)
        return -1;
    if (code < 0)
        refuse_numpy_dtype(arr);
    return code;
}

/* Element strides (into strides) of an array's byte strides (NULL: C-contiguous),
 * or -1 with from_numpy's error for a stride it refuses. */
static int numpy_strides(int64_t *strides, const np_array_interface *ai, const int64_t *shape)
{
    int64_t isz = ai->itemsize;
    if (!ai->strides) {
        lt_status rc = lt_layout_contiguous_strides(strides, ai->nd, shape);
        return rc == LT_OK ? 0 : (pyt_raise_last(rc), -1);
    }
    int negative = -1, ragged = 0;          /* negative: the first dimension with a negative stride */
    for (int i = 0; i < ai->nd; i++) {
        if (ai->strides[i] < 0 && negative < 0)
            negative = i;
        ragged |= ai->strides[i] % isz != 0;
        strides[i] = (int64_t)ai->strides[i] / isz; /* exact when neither flag is set */
    }
    if (negative >= 0)
        PyErr_Format(PyExc_ValueError, "from_numpy cannot share an array with a negative stride (dimension %d "
                     "steps %zd bytes): pytensor.from_dlpack(array) shares it as it is, negative strides "
                     "included, and from_numpy(array.copy()) shares a copy", negative,
                     (Py_ssize_t)ai->strides[negative]);
    else if (ragged)
        PyErr_SetString(PyExc_ValueError, "given numpy array strides not a multiple of the element byte size. Copy "
                                          "the numpy array to reallocate the memory.");
    return negative >= 0 || ragged ? -1 : 0;
}

/* share_numpy(arr, min_ndim[, op]) -> Tensor sharing arr's memory, by
 * torch.from_numpy's rules, recorded as op (the calling constructor's
 * PROV_* code; default from_numpy) from arr's type. Raises from_numpy's
 * errors for an ndarray it refuses; None only for what is not an ndarray
 * of at least min_ndim dimensions (asarray passes 1: it copies 0-d arrays). */
static PyObject *share_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long min_ndim = nargs == 2 || nargs == 3 ? PyLong_AsLong(args[1]) : -1;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : PROV_FROM_NUMPY;
    if (min_ndim < 0 || (op != PROV_FROM_NUMPY && op != PROV_ASARRAY && op != PROV_AS_TENSOR)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "share_numpy(array, min_ndim >= 0[, op: from_numpy, asarray or as_tensor])");
        return NULL;
    }
    PyObject *arr = args[0];
    if (!is_ndarray(arr))
        Py_RETURN_NONE;
    PyObject *cap = ndarray_attr(arr, ND_ARRAY_STRUCT); /* not arr's own attribute: see ndarray_attr */
    np_array_interface *ai = cap ? PyCapsule_GetPointer(cap, NULL) : NULL;
    if (!ai || ai->two != 2 || ai->nd > LT_MAX_NDIM) { /* NumPy's own arrays never get here */
        if (ai)
            PyErr_Format(PyExc_ValueError, "from_numpy: an array interface of version %d with %d dimensions "
                         "(pytensor reads version 2, up to %d dimensions)", ai->two, ai->nd, LT_MAX_NDIM);
        Py_XDECREF(cap);
        return NULL;
    }
    int nd = ai->nd, code;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], lo_byte, hi_byte;
    for (int i = 0; i < nd; i++)
        shape[i] = ai->shape[i];
    if (nd < min_ndim) {
        Py_DECREF(cap);
        Py_RETURN_NONE;
    }
    if ((code = numpy_code(arr, ai)) < 0 || numpy_strides(strides, ai, shape) != 0) {
        Py_DECREF(cap);
        return NULL;
    }
    /* The bytes the array spans from its first element (strides are >= 0 here). */
    lt_status rc = lt_layout_extent(&lo_byte, &hi_byte, nd, shape, strides, 0, (size_t)ai->itemsize);
    void *data = ai->data;
    unsigned flags = (ai->flags & NP_WRITEABLE) ? 0 : LT_STORAGE_READONLY;
    Py_DECREF(cap);
    if (rc != LT_OK)
        return pyt_raise_last(rc);

    lt_storage *s = NULL;
    Py_INCREF(arr); /* the storage's reference, dropped by its deleter */
    rc = lt_storage_wrap(&s, data, (size_t)hi_byte, flags, LT_PROV_NUMPY, pyt_decref_deleter, arr);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    lt_storage_set_label(s, "numpy.ndarray");
    return pyt_prov_fresh(pyt_tensor_over(s, code, shape, strides, nd, 0), (int)op, (PyObject *)Py_TYPE(arr), NULL);
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

/* Takes a C-contiguous export of obj into view: writable when the exporter
 * allows one (*readonly = 0), else read-only (*readonly = 1). Returns 0, or
 * -1 with frombuffer's error (torch's types): no buffer protocol at all
 * (ValueError), memory that is not C-contiguous (RuntimeError). */
static int export_buffer(Py_buffer *view, PyObject *obj, int *readonly)
{
    *readonly = 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0)
        return 0;
    PyErr_Clear();
    *readonly = 1;
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0)
        return 0;
    /* Why not: ask for any layout, as memoryview(obj) does. */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_buffer any;
    if (PyObject_GetBuffer(obj, &any, PyBUF_FULL_RO) != 0) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "object does not implement Python buffer protocol.");
        }
    } else if (!PyBuffer_IsContiguous(&any, 'C')) {
        PyBuffer_Release(&any);
        PyErr_SetString(PyExc_RuntimeError, "could not retrieve buffer from object: it is not C-contiguous; copy it "
                                            "(bytes(m) or arr.copy()) first");
    } else {
        PyBuffer_Release(&any);
        PyErr_Format(PyExc_RuntimeError, "could not retrieve buffer from object: %S", value ? value : Py_None);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
}

/* How many elements frombuffer takes from a buffer of length bytes: torch's
 * four checks, in torch's order, as ValueErrors naming the numbers. Returns
 * the count, or -1 with the error raised. */
static int64_t buffer_count(int64_t length, int64_t isz, int64_t count, int64_t offset)
{
    if (length <= 0 || count == 0) {
        PyErr_Format(PyExc_ValueError, "both buffer length (%lld) and count (%lld) must not be 0", (long long)length,
                     (long long)count);
        return -1;
    }
    if (offset < 0 || offset >= length) {
        PyErr_Format(PyExc_ValueError, "offset (%lld bytes) must be non-negative and no greater than buffer length "
                     "(%lld bytes) minus 1", (long long)offset, (long long)length);
        return -1;
    }
    if (count < 0 && (length - offset) % isz) {
        PyErr_Format(PyExc_ValueError, "buffer length (%lld bytes) after offset (%lld bytes) must be a multiple of "
                     "element size (%lld)", (long long)(length - offset), (long long)offset, (long long)isz);
        return -1;
    }
    int64_t n = count > 0 ? count : (length - offset) / isz, nbytes;
    if (__builtin_mul_overflow(n, isz, &nbytes) || nbytes > length - offset) {
        PyErr_Format(PyExc_ValueError, "requested buffer length (%lld * %lld bytes) after offset (%lld bytes) must "
                     "not be greater than actual buffer length (%lld bytes)", (long long)n, (long long)isz,
                     (long long)offset, (long long)length);
        return -1;
    }
    return n;
}

/* share_buffer(obj, dtype, count, offset, requires_grad) -> 1-D Tensor over
 * obj's bytes, by frombuffer's rules (count < 0: to the end), raising its
 * errors. The export is held until the storage dies, so e.g. a bytearray
 * cannot be resized under a live tensor; a read-only exporter, or bytes
 * that may be Python object pointers, give a read-only storage. None only
 * for arguments to normalize first (frombuffer does): a dtype that is not
 * a pytensor dtype object, a count or offset that is not an int within
 * int64, requires_grad other than False. */
static PyObject *share_buffer(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5 || args[4] != Py_False || !PyLong_CheckExact(args[2]) || !PyLong_CheckExact(args[3]))
        Py_RETURN_NONE;
    PyObject *obj = args[0];
    int code = pyt_dtype_code_of(args[1]), over_count = 0, over_offset = 0;
    long long count = PyLong_AsLongLongAndOverflow(args[2], &over_count);
    long long offset = PyLong_AsLongLongAndOverflow(args[3], &over_offset);
    if (code < 0 || over_count || over_offset)
        Py_RETURN_NONE;
    if (pyt_is_tensor(obj)) { /* a Tensor exports a buffer (for NumPy, files, sockets); torch's export none */
        PyErr_SetString(PyExc_ValueError, "frombuffer() does not take a Tensor, although pytensor's implement the "
                                          "Python buffer protocol (torch's do not, and frombuffer keeps torch's rule): "
                                          "use the tensor itself, or t.view(dtype) to read its bytes as another type");
        return NULL;
    }
    Py_buffer *view = malloc(sizeof *view);
    if (!view)
        return PyErr_NoMemory();
    int readonly;
    if (export_buffer(view, obj, &readonly) != 0) {
        free(view);
        return NULL;
    }
    int64_t isz = (int64_t)lt_dtype_itemsize((lt_dtype)code);
    /* Object arrays hold PyObject pointers: read them, never write them. A
     * bytes-like exporter's own format is the whole answer; memoryviews and
     * arrays may hide an object array (see holds_objects). */
    int objects = view->format && strchr(view->format, 'O') != NULL;
    if (!objects && (PyMemoryView_Check(obj) || is_ndarray(obj)))
        objects = holds_objects(obj);
    int64_t n = objects < 0 ? -1 : buffer_count(view->len, isz, count, offset);
    if (n < 0) {
        PyBuffer_Release(view);
        free(view);
        return NULL;
    }
    lt_storage *s = NULL;
    unsigned flags = readonly || objects ? LT_STORAGE_READONLY : 0;
    lt_status rc = lt_storage_wrap(&s, (char *)view->buf + offset, (size_t)(n * isz), flags, LT_PROV_BUFFER,
                                   pyt_release_buffer_deleter, view);
    if (rc != LT_OK) /* the deleter already released the export */
        return pyt_raise_last(rc);
    lt_storage_set_label(s, buffer_label(obj));
    int64_t one = 1;
    return pyt_prov_fresh(pyt_tensor_over(s, code, &n, &one, 1, 0), PROV_FROMBUFFER, (PyObject *)Py_TYPE(obj), NULL);
}

PyMethodDef pyt_share_methods[] = {
    {"holds_objects", holds_objects_py, METH_O, "Whether a buffer's bytes may be Python object pointers."},
    {"share_numpy", (PyCFunction)(void (*)(void))share_numpy, METH_FASTCALL, "from_numpy's common case."},
    {"share_buffer", (PyCFunction)(void (*)(void))share_buffer, METH_FASTCALL, "frombuffer's common case."},
    {NULL, NULL, 0, NULL},
};
