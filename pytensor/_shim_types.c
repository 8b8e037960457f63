/* _shim_types.c: the C bases of UntypedStorage and Tensor, and the error
 * translator every shim file raises through.
 *
 * Both classes keep their methods in Python; only their fields live here.
 * Every constructor and every view makes one of each (or one Tensor), and a
 * torch-sized budget (about 0.7 us a call) leaves no room for ffi.gc, a
 * cffi cast and eight Python attribute stores. So the storage owns its
 * libtensor reference directly (released in dealloc, no cffi object), and
 * the shim builds a finished Tensor in one allocation.
 *
 * The Python subclasses (pytensor.UntypedStorage, pytensor.Tensor) are the
 * types the shim instantiates: register() hands them over at import, with
 * the dtype objects by lt_dtype code and the Python error translator. */
#include <stdio.h>
#include <string.h>

#include "_shim.h"
#include <structmember.h> /* PyMemberDef, T_OBJECT_EX: stable ABI */

/* Set by register(); strong references held for the life of the process. */
PyTypeObject *pyt_storage_cls, *pyt_tensor_cls;
PyObject *pyt_dtype_by_code[LT_DTYPE_COUNT];
static PyObject *error_for; /* errors.error_for(status, message) -> exception instance */

/* The lt_dtype code of a registered dtype object, or -1. */
int pyt_dtype_code_of(PyObject *dtype)
{
    for (int i = 0; i < LT_DTYPE_COUNT; i++)
        if (pyt_dtype_by_code[i] == dtype)
            return i;
    return -1;
}

/* ------------------------------------------------------------ errors */

/* Raise libtensor's last error through the Python translator (the one place
 * that maps status codes to exception types). Returns NULL. */
PyObject *pyt_raise_status(lt_status rc, const char *message)
{
    if (!error_for) {
        PyErr_Format(PyExc_RuntimeError, "libtensor error %d: %s", (int)rc, message);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(error_for, "is", (int)rc, message);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

PyObject *pyt_raise_last(lt_status rc) { return pyt_raise_status(rc, lt_last_error()); }

/* ------------------------------------------------------------ storage */

static int is_host_device(int32_t type)
{
    return type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost || type == kDLCUDAManaged;
}

/* A new UntypedStorage owning the reference s (stolen: released on failure). */
PyObject *pyt_storage_object(lt_storage *s)
{
    if (!pyt_storage_cls) {
        lt_storage_release(s);
        PyErr_SetString(PyExc_RuntimeError, "pytensor: shim types are not registered yet");
        return NULL;
    }
    StorageObject *o = (StorageObject *)PyType_GenericAlloc(pyt_storage_cls, 0);
    if (!o) {
        lt_storage_release(s);
        return NULL;
    }
    o->s = s;
    o->addr = PyLong_FromVoidPtr(lt_storage_data(s));
    o->nbytes = PyLong_FromSize_t(lt_storage_nbytes(s));
    o->readonly = PyBool_FromLong((lt_storage_flags(s) & LT_STORAGE_READONLY) != 0);
    o->host = PyBool_FromLong(is_host_device(lt_storage_device_type(s)));
    Py_INCREF(Py_None);
    o->file = Py_None;
    if (!o->addr || !o->nbytes) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static int storage_traverse(PyObject *self, visitproc visit, void *arg)
{
    StorageObject *o = (StorageObject *)self;
    Py_VISIT(Py_TYPE(self)); /* heap types are referenced by their instances */
    Py_VISIT(o->file);
    Py_VISIT(o->cptr);
    Py_VISIT(o->writer_node);
    return 0;
}

static int storage_clear(PyObject *self)
{
    StorageObject *o = (StorageObject *)self;
    Py_CLEAR(o->file);
    Py_CLEAR(o->cptr);
    Py_CLEAR(o->writer_node);
    return 0;
}

static void storage_dealloc(PyObject *self)
{
    StorageObject *o = (StorageObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (o->weakrefs)
        PyObject_ClearWeakRefs(self);
    storage_clear(self);
    Py_CLEAR(o->addr);
    Py_CLEAR(o->nbytes);
    Py_CLEAR(o->readonly);
    Py_CLEAR(o->host);
    /* Last: the deleter may drop the Python object that owns the bytes. */
    lt_storage *s = o->s;
    o->s = NULL;
    lt_storage_release(s);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

/* _saddr: the lt_storage address, for the cffi handle Python makes once. */
static PyObject *storage_get_saddr(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((StorageObject *)self)->s);
}

static PyMemberDef storage_members[] = {
    {"_addr", T_OBJECT_EX, offsetof(StorageObject, addr), READONLY, "address of byte 0"},
    {"_nbytes", T_OBJECT_EX, offsetof(StorageObject, nbytes), READONLY, "size in bytes"},
    {"_readonly", T_OBJECT_EX, offsetof(StorageObject, readonly), READONLY, "writes are refused"},
    {"_host", T_OBJECT_EX, offsetof(StorageObject, host), READONLY, "host memory"},
    {"_file", T_OBJECT, offsetof(StorageObject, file), 0, "(path, mode) of a mapped file"},
    {"_cptr", T_OBJECT, offsetof(StorageObject, cptr), 0, "cached cffi handle"},
    {"_exports", T_PYSSIZET, offsetof(StorageObject, exports), READONLY, "buffer exports alive"},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(StorageObject, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef storage_getset[] = {
    {"_saddr", storage_get_saddr, NULL, "address of the lt_storage", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot storage_slots[] = {
    {Py_tp_dealloc, storage_dealloc},
    {Py_tp_traverse, storage_traverse},
    {Py_tp_clear, storage_clear},
    {Py_tp_members, storage_members},
    {Py_tp_getset, storage_getset},
    {Py_bf_getbuffer, pyt_storage_getbuffer},
    {Py_bf_releasebuffer, pyt_buffer_release},
    {Py_tp_doc, "C fields of pytensor.UntypedStorage (subclass it; do not instantiate)."},
    {0, NULL},
};

static PyType_Spec storage_spec = {
    "pytensor._shim.StorageBase", sizeof(StorageObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, storage_slots,
};

/* ------------------------------------------------------------ tensor */

/* A view of t's bytes in a new layout: t's storage and dtype, its lazy
 * conjugate/negative bits (a view reads its bytes as t does), and the given
 * shape, strides and offset, whose references it steals (any may be NULL).
 * The one home of "a view keeps the bits" for the shim's view makers. */
PyObject *pyt_view_steal(TensorObject *t, PyObject *shape, PyObject *strides, PyObject *offset)
{
    Py_INCREF(t->storage);
    Py_INCREF(t->dtype);
    PyObject *out = pyt_tensor_steal(t->storage, t->dtype, shape, strides, offset);
    if (out)
        ((TensorObject *)out)->bits = t->bits;
    return out;
}

/* A new Tensor over storage; steals all five references (any may be NULL
 * after a failed constructor call, and then the others are dropped). */
PyObject *pyt_tensor_steal(PyObject *storage, PyObject *dtype, PyObject *shape, PyObject *strides,
                              PyObject *offset)
{
    TensorObject *t = NULL;
    if (storage && dtype && shape && strides && offset && pyt_tensor_cls)
        t = (TensorObject *)PyType_GenericAlloc(pyt_tensor_cls, 0);
    if (!t) {
        if (!pyt_tensor_cls && !PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "pytensor: shim types are not registered yet");
        Py_XDECREF(storage);
        Py_XDECREF(dtype);
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        Py_XDECREF(offset);
        return NULL;
    }
    t->storage = storage;
    t->dtype = dtype;
    t->shape = shape;
    t->strides = strides;
    t->offset = offset;
    Py_INCREF(Py_False);
    t->requires_grad = Py_False;
    Py_INCREF(Py_None);
    t->grad = Py_None;
    Py_INCREF(Py_None);
    t->grad_fn = Py_None;
    return (PyObject *)t;
}

/* A tuple of n Python ints. */
PyObject *pyt_int_tuple(const int64_t *v, Py_ssize_t n)
{
    PyObject *tup = PyTuple_New(n);
    if (!tup)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(tup);
            return NULL;
        }
        PyTuple_SetItem(tup, i, x);
    }
    return tup;
}

/* Reads a tuple of Python ints into out[0..n). Returns n, or -1 with an
 * exception set. */
Py_ssize_t pyt_int64_tuple(PyObject *tup, int64_t *out, Py_ssize_t cap)
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

/* A new Tensor of dtype code over the storage reference s (stolen), with
 * shape and strides (elements) of nd dims and an offset in elements: how
 * every constructor in the shim ends. */
PyObject *pyt_tensor_over(lt_storage *s, int code, const int64_t *shape, const int64_t *strides,
                             Py_ssize_t nd, int64_t offset)
{
    PyObject *dt = pyt_dtype_by_code[code];
    Py_XINCREF(dt);
    return pyt_tensor_steal(pyt_storage_object(s), dt, pyt_int_tuple(shape, nd), pyt_int_tuple(strides, nd),
                        PyLong_FromLongLong(offset));
}

/* make_tensor(storage, dtype, shape, strides, offset[, op, arg, parent])
 * -> Tensor (Tensor._make). shape and strides are tuples; callers inside
 * pytensor guarantee it. The optional three record the tensor's
 * provenance: a PROV_* code, its argument (None: none) and the parent
 * Tensor (None: none), as prov_note does, without a second call. */
static PyObject *make_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5 && !(nargs == 8 && PyLong_CheckExact(args[5]) && pyt_prov_op_valid(PyLong_AsLong(args[5])) &&
                        (args[7] == Py_None || PyObject_TypeCheck(args[7], pyt_tensor_cls)))) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "_make(storage, dtype, shape, strides, offset[, op, arg, parent])");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < 5; i++)
        Py_INCREF(args[i]);
    PyObject *t = pyt_tensor_steal(args[0], args[1], args[2], args[3], args[4]);
    if (nargs == 5)
        return t;
    if (t && args[7] != Py_None) /* a view of the parent's bytes: the same conjugate/negative bits */
        ((TensorObject *)t)->bits = ((TensorObject *)args[7])->bits;
    long op = PyLong_AsLong(args[5]);
    return pyt_prov_fresh(t, (int)op, args[6] == Py_None ? NULL : args[6], args[7] == Py_None ? NULL : args[7]);
}

static int tensor_traverse(PyObject *self, visitproc visit, void *arg)
{
    TensorObject *t = (TensorObject *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(t->storage);
    Py_VISIT(t->dtype);
    Py_VISIT(t->shape);
    Py_VISIT(t->strides);
    Py_VISIT(t->offset);
    Py_VISIT(t->requires_grad);
    Py_VISIT(t->grad);
    Py_VISIT(t->grad_fn);
    Py_VISIT(t->prov_arg);
    Py_VISIT(t->prov_from);
    Py_VISIT(t->prov_node);
    return 0;
}

static int tensor_clear(PyObject *self)
{
    TensorObject *t = (TensorObject *)self;
    Py_CLEAR(t->prov_node);
    Py_CLEAR(t->prov_from);
    Py_CLEAR(t->prov_arg);
    Py_CLEAR(t->grad_fn);
    Py_CLEAR(t->grad);
    Py_CLEAR(t->requires_grad);
    Py_CLEAR(t->offset);
    Py_CLEAR(t->strides);
    Py_CLEAR(t->shape);
    Py_CLEAR(t->dtype);
    Py_CLEAR(t->storage);
    return 0;
}

static void tensor_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((TensorObject *)self)->weakrefs)
        PyObject_ClearWeakRefs(self);
    tensor_clear(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

static PyMemberDef tensor_members[] = {
    {"_storage", T_OBJECT_EX, offsetof(TensorObject, storage), 0, NULL},
    {"_dtype", T_OBJECT_EX, offsetof(TensorObject, dtype), 0, NULL},
    {"_shape", T_OBJECT_EX, offsetof(TensorObject, shape), 0, NULL},
    {"_strides", T_OBJECT_EX, offsetof(TensorObject, strides), 0, NULL},
    {"_offset", T_OBJECT_EX, offsetof(TensorObject, offset), 0, NULL},
    {"_requires_grad", T_OBJECT_EX, offsetof(TensorObject, requires_grad), 0, NULL},
    {"_grad", T_OBJECT_EX, offsetof(TensorObject, grad), 0, NULL},
    {"_grad_fn", T_OBJECT_EX, offsetof(TensorObject, grad_fn), 0, NULL},
    {"_bits", T_INT, offsetof(TensorObject, bits), 0, "lazy conjugate (1) and negative (2) bits"},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* ------------------------------------------------------------ element 0 as a Python number
 *
 * t.item(), float(t), int(t), bool(t), operator.index(t) and complex(t) of a
 * one-element tensor: torch answers in about 0.15-0.25 us, and the Python
 * path (a numel, a 0-d view, tolist) costs ten times that. So the number
 * slots and item() live on the C base and read element 0 directly. Whatever
 * is rare goes to the Python method named in SCALAR_SLOW (Conversion in
 * _tensor_conversion.py, the reference the tests compare against): more or
 * fewer than one element (its refusals), a lazy conjugate/negative bit,
 * memory off the host, the float4, a complex value int()/float() would
 * truncate, a non-integer __index__, float() of a tensor that requires grad
 * (its warning). */

enum { SCALAR_ITEM, SCALAR_FLOAT, SCALAR_INT, SCALAR_BOOL, SCALAR_INDEX, SCALAR_COMPLEX, SCALAR_KINDS };
static const char *const SCALAR_SLOW[SCALAR_KINDS] = {"_item", "_float", "_int", "_bool", "_index", "_complex"};

/* The element at p of dtype code as a Python object (a new reference), for
 * the listable codes: item() and tolist() read elements through it. */
static PyObject *element_object(int code, const char *p)
{
    union {
        uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
        int8_t i8; int16_t i16; int32_t i32; int64_t i64;
        float f32; double f64; float c64[2]; double c128[2];
    } v;
    memcpy(&v, p, lt_dtype_itemsize((lt_dtype)code));
    switch (code) {
    case LT_BOOL: return PyBool_FromLong(v.u8 != 0);
    case LT_UINT8: return PyLong_FromUnsignedLong(v.u8);
    case LT_UINT16: return PyLong_FromUnsignedLong(v.u16);
    case LT_UINT32: return PyLong_FromUnsignedLong(v.u32);
    case LT_UINT64: return PyLong_FromUnsignedLongLong(v.u64);
    case LT_INT8: return PyLong_FromLong(v.i8);
    case LT_INT16: return PyLong_FromLong(v.i16);
    case LT_INT32: return PyLong_FromLong(v.i32);
    case LT_INT64: return PyLong_FromLongLong(v.i64);
    case LT_FLOAT32: return PyFloat_FromDouble(v.f32);
    case LT_FLOAT64: return PyFloat_FromDouble(v.f64);
    case LT_COMPLEX64: return PyComplex_FromDoubles(v.c64[0], v.c64[1]);
    default: return PyComplex_FromDoubles(v.c128[0], v.c128[1]); /* LT_COMPLEX128: the callers' last kind */
    }
}

static int listable_code(int code) { return code <= LT_INT64 || (code >= LT_FLOAT32 && code <= LT_COMPLEX128); }

/* The element of a one-element tensor as its item() (a bool, int, float or
 * complex), into *out; for a complex element also its parts in re/im. 1 when
 * read, 0 to decline (no exception), -1 with an exception. */
static int read_scalar(TensorObject *t, PyObject **out, double *re, double *im)
{
    if (!PyTuple_Check(t->shape))
        return 0;
    for (Py_ssize_t d = 0, nd = PyTuple_Size(t->shape); d < nd; d++) {
        PyObject *n = PyTuple_GetItem(t->shape, d);
        if (!PyLong_CheckExact(n) || PyLong_AsLong(n) != 1) { /* numel != 1: Python raises torch's error */
            PyErr_Clear();
            return 0;
        }
    }
    int code = pyt_dtype_code_of(t->dtype);
    if (code < 0 || code == LT_FLOAT4_E2M1FN_X2)
        return 0;
    const char *p = pyt_element0(t, lt_dtype_itemsize((lt_dtype)code));
    if (!p)
        return 0;
    if (listable_code(code)) {
        *out = element_object(code, p);
        if (*out && (code == LT_COMPLEX64 || code == LT_COMPLEX128)) {
            *re = PyComplex_RealAsDouble(*out);
            *im = PyComplex_ImagAsDouble(*out);
        }
        return *out ? 1 : -1;
    }
    double d; /* float16, bfloat16, the float8s: every one is exactly a double (libtensor's codec) */
    if (lt_copy(&d, NULL, LT_FLOAT64, p, NULL, (lt_dtype)code, 0, NULL) != LT_OK) {
        PyErr_Clear();
        return 0;
    }
    *out = PyFloat_FromDouble(d);
    return *out ? 1 : -1;
}

/* The Python number kind asks for, or NULL with an exception. */
static PyObject *scalar_as(PyObject *self, int kind)
{
    static PyObject *slow_names[SCALAR_KINDS];
    TensorObject *t = (TensorObject *)self;
    PyObject *item = NULL, *out = NULL;
    double re = 0, im = 0;
    int is_complex = t->dtype == pyt_dtype_by_code[LT_COMPLEX64] || t->dtype == pyt_dtype_by_code[LT_COMPLEX128];
    int decline = (kind == SCALAR_FLOAT && t->requires_grad != Py_False) ||
                  (kind == SCALAR_INDEX && !(t->dtype == pyt_dtype_by_code[LT_BOOL] ||
                                             (pyt_dtype_code_of(t->dtype) >= LT_UINT8 &&
                                              pyt_dtype_code_of(t->dtype) <= LT_INT64)));
    int got = decline ? 0 : read_scalar(t, &item, &re, &im);
    if (got < 0)
        return NULL;
    if (got && is_complex && im != 0 && (kind == SCALAR_FLOAT || kind == SCALAR_INT))
        got = 0; /* the imaginary part would be dropped: Python raises torch's error */
    if (!got) {
        Py_XDECREF(item);
        if (!slow_names[kind] && !(slow_names[kind] = PyUnicode_InternFromString(SCALAR_SLOW[kind])))
            return NULL;
        return PyObject_CallMethodObjArgs(self, slow_names[kind], NULL);
    }
    switch (kind) {
    case SCALAR_ITEM:
    case SCALAR_BOOL:
        return item;
    case SCALAR_FLOAT: out = is_complex ? PyFloat_FromDouble(re) : PyNumber_Float(item); break;
    case SCALAR_INT:
    case SCALAR_INDEX:
        if (is_complex) { /* int(value.real), as the Python path */
            PyObject *real = PyFloat_FromDouble(re);
            out = real ? PyNumber_Long(real) : NULL;
            Py_XDECREF(real);
        } else {
            out = PyNumber_Long(item); /* a float's NaN and inf raise as int() raises them */
        }
        break;
    default: /* SCALAR_COMPLEX */
        if (is_complex)
            return item;
        re = PyFloat_AsDouble(item);
        out = re == -1.0 && PyErr_Occurred() ? NULL : PyComplex_FromDoubles(re, 0.0);
    }
    Py_DECREF(item);
    return out;
}

/* ------------------------------------------------------------ tolist()
 *
 * t.tolist() for the dtypes whose elements are C types (bool, the integers,
 * float32/float64, complex64/complex128): nested lists built in one pass over
 * the strided elements. The Python path (_convert_out.to_pylist) converts
 * to a contiguous copy, reads it through a memoryview and slices it into
 * nested lists; it stays the path for the 16- and 8-bit floats, conjugate
 * and negative views and memory off the host. */

/* One row of n elements every step bytes from p, into list (items 0..n). The
 * loop is written per type: this is where tolist() spends its time. 0, or -1
 * with an exception. */
#define ROW_LOOP(T, MAKE)                                                     \
    for (int64_t i = 0; i < n; i++) {                                        \
        T x_;                                                                \
        memcpy(&x_, p + i * step, sizeof x_);                                \
        PyObject *item = MAKE;                                               \
        if (!item)                                                           \
            return -1;                                                       \
        PyList_SetItem(list, (Py_ssize_t)i, item); /* steals; cannot fail */ \
    }                                                                        \
    return 0
static int fill_row(PyObject *list, int code, const char *p, int64_t n, int64_t step)
{
    switch (code) {
    case LT_FLOAT32: ROW_LOOP(float, PyFloat_FromDouble(x_));
    case LT_FLOAT64: ROW_LOOP(double, PyFloat_FromDouble(x_));
    case LT_INT64: ROW_LOOP(int64_t, PyLong_FromLongLong(x_));
    case LT_INT32: ROW_LOOP(int32_t, PyLong_FromLong(x_));
    case LT_BOOL: ROW_LOOP(uint8_t, PyBool_FromLong(x_ != 0));
    default:
        for (int64_t i = 0; i < n; i++) {
            PyObject *item = element_object(code, p + i * step);
            if (!item)
                return -1;
            PyList_SetItem(list, (Py_ssize_t)i, item);
        }
        return 0;
    }
}
#undef ROW_LOOP

/* Dims d.. of the view at p (strides in bytes) as nested lists. */
static PyObject *nested(int code, const char *p, int32_t nd, const int64_t *shape, const int64_t *byte_strides,
                        int32_t d)
{
    if (d == nd)
        return element_object(code, p);
    PyObject *list = PyList_New((Py_ssize_t)shape[d]);
    if (list && d == nd - 1) {
        if (fill_row(list, code, p, shape[d], byte_strides[d]) != 0)
            Py_CLEAR(list);
        return list;
    }
    for (int64_t i = 0; list && i < shape[d]; i++) {
        PyObject *item = nested(code, p + i * byte_strides[d], nd, shape, byte_strides, d + 1);
        if (!item || PyList_SetItem(list, (Py_ssize_t)i, item) != 0) {
            Py_CLEAR(list);
        }
    }
    return list;
}

/* tolist(t) -> nested lists (a number for a 0-d t), or None (declined). */
static PyObject *tensor_tolist(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "tolist(t: Tensor)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)arg;
    int code = pyt_dtype_code_of(t->dtype);
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    if (code < 0 || !listable_code(code))
        Py_RETURN_NONE;
    size_t itemsize = lt_dtype_itemsize((lt_dtype)code);
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (nd < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != nd) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const char *p = pyt_element0(t, itemsize);
    if (!p)
        Py_RETURN_NONE;
    /* A dim of extent 2 or more steps within the storage (its extent was checked when the view was
     * made), so its stride in bytes fits; a dim of extent 0 or 1 never steps, and its stride may be
     * anything (unfold's window stride, as_strided's): it is not multiplied. */
    for (Py_ssize_t d = 0; d < nd; d++)
        strides[d] = shape[d] > 1 ? strides[d] * (int64_t)itemsize : 0;
    return nested(code, p, (int32_t)nd, shape, strides, 0);
}

/* numel(t): the element count of t's shape (lt_layout_numel), for
 * Tensor.numel() in one call. */
static PyObject *tensor_numel(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "numel(t: Tensor)");
        return NULL;
    }
    int64_t shape[LT_MAX_NDIM], n = 0;
    Py_ssize_t nd = pyt_int64_tuple(((TensorObject *)arg)->shape, shape, LT_MAX_NDIM);
    if (nd < 0)
        return NULL;
    lt_status rc = lt_layout_numel(&n, (int32_t)nd, shape);
    return rc == LT_OK ? PyLong_FromLongLong(n) : pyt_raise_last(rc);
}

/* pin_for_numpy(t) -> bool: numpy()'s common case. For a tensor on the host
 * that does not require grad and has no conjugate/negative bit, pins its
 * storage (lt_storage_pin: the bytes never move while NumPy holds their
 * address, as _convert_out.to_numpy pins them) and answers True; False,
 * touching nothing, for the rest (to_numpy refuses or detaches them). */
static PyObject *pin_for_numpy(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "pin_for_numpy(t: Tensor)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)arg;
    StorageObject *st = (StorageObject *)t->storage;
    if (t->requires_grad != Py_False || t->bits || st->host != Py_True)
        Py_RETURN_FALSE;
    lt_storage_pin(st->s);
    Py_RETURN_TRUE;
}

/* get_num_threads(): lt_get_num_threads, as pytensor.get_num_threads itself
 * (a Python function around the cffi call took twice torch's time). */
static PyObject *get_num_threads(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(lt_get_num_threads());
}

/* set_num_threads(n): lt_set_num_threads for any integer (an __index__
 * object too), refused as the cffi call it replaces refuses: TypeError for a
 * non-integer, OverflowError beyond a 32-bit int. */
static PyObject *set_num_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *n = PyNumber_Index(arg);
    if (!n) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "an integer is required");
        }
        return NULL;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    if (overflow || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "integer %S does not fit '32-bit int'", n);
        Py_DECREF(n);
        return NULL;
    }
    Py_DECREF(n);
    lt_set_num_threads((int)v);
    Py_RETURN_NONE;
}

/* item(t): Conversion.item calls it (a Python method, for its type hints). */
static PyObject *tensor_item(PyObject *self, PyObject *t)
{
    (void)self;
    if (!pyt_is_tensor(t)) {
        PyErr_SetString(PyExc_TypeError, "item(t: Tensor)");
        return NULL;
    }
    return scalar_as(t, SCALAR_ITEM);
}
static PyObject *tensor_float(PyObject *self) { return scalar_as(self, SCALAR_FLOAT); }
static PyObject *tensor_int(PyObject *self) { return scalar_as(self, SCALAR_INT); }
static PyObject *tensor_index(PyObject *self) { return scalar_as(self, SCALAR_INDEX); }
static PyObject *tensor_complex(PyObject *self, PyObject *unused)
{
    (void)unused;
    return scalar_as(self, SCALAR_COMPLEX);
}

static int tensor_bool(PyObject *self)
{
    PyObject *v = scalar_as(self, SCALAR_BOOL);
    int truth = v ? PyObject_IsTrue(v) : -1;
    Py_XDECREF(v);
    return truth;
}

static PyMethodDef tensor_methods[] = {
    {"__complex__", tensor_complex, METH_NOARGS, "__complex__($self, /)\n--\n\nThe single element as a complex."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_dealloc, tensor_dealloc},
    {Py_mp_subscript, pyt_tensor_subscript},
    {Py_nb_float, tensor_float},
    {Py_nb_int, tensor_int},
    {Py_nb_index, tensor_index},
    {Py_nb_bool, tensor_bool},
    {Py_tp_methods, tensor_methods},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_tp_members, tensor_members},
    {Py_bf_getbuffer, pyt_tensor_getbuffer},
    {Py_bf_releasebuffer, pyt_buffer_release},
    {Py_tp_doc, "C fields of pytensor.Tensor (subclass it; do not instantiate)."},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    "pytensor._shim.TensorBase", sizeof(TensorObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, tensor_slots,
};

/* ------------------------------------------------------------ Python entry points */

/* *slot = value (a new reference, stolen), dropping the old one after. */
void pyt_replace_ref(PyObject **slot, PyObject *value)
{
    PyObject *old = *slot;
    *slot = value;
    Py_XDECREF(old);
}

/* register(storage_cls, tensor_cls, dtypes, error_for): dtypes is a sequence
 * indexed by lt_dtype code. Called once, at import. */
static PyObject *register_types(PyObject *self, PyObject *args)
{
    PyObject *scls, *tcls, *dtypes, *errf;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!OO", &PyType_Type, &scls, &PyType_Type, &tcls, &dtypes, &errf))
        return NULL;
    if (PySequence_Size(dtypes) != LT_DTYPE_COUNT) {
        PyErr_SetString(PyExc_ValueError, "register: one dtype per lt_dtype code is needed");
        return NULL;
    }
    for (int i = 0; i < LT_DTYPE_COUNT; i++) {
        PyObject *d = PySequence_GetItem(dtypes, i);
        if (!d)
            return NULL;
        pyt_replace_ref(&pyt_dtype_by_code[i], d);
        PyObject *fmt = PyObject_GetAttrString(d, "_struct"); /* the buffer format: dtypes.py's table */
        int bad = !fmt || pyt_buffer_set_format(i, fmt) != 0;
        Py_XDECREF(fmt);
        if (bad)
            return NULL;
    }
    Py_INCREF(scls);
    pyt_replace_ref((PyObject **)&pyt_storage_cls, scls);
    Py_INCREF(tcls);
    pyt_replace_ref((PyObject **)&pyt_tensor_cls, tcls);
    Py_INCREF(errf);
    pyt_replace_ref(&error_for, errf);
    Py_RETURN_NONE;
}

/* storage_new(nbytes, zero) -> UntypedStorage owning nbytes new bytes. */
static PyObject *storage_new(PyObject *self, PyObject *args)
{
    Py_ssize_t nbytes;
    int zero;
    (void)self;
    if (!PyArg_ParseTuple(args, "np", &nbytes, &zero))
        return NULL;
    if (nbytes < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension: %zd bytes", nbytes);
        return NULL;
    }
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, (size_t)nbytes, zero);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    return pyt_storage_object(s);
}

/* storage_copy(buffer) -> UntypedStorage owning a copy of a C-contiguous
 * buffer's bytes (the in-band bytes of an unpickle, copy.copy of a storage):
 * lt_storage_new_copy, whose block skips the huge-page advice because the
 * copy overwrites it whole at once (storage.c, "Huge-page advice"). A large
 * copy runs without the GIL; the held export keeps the source alive and
 * unresizable meanwhile. A buffer that is not C-contiguous raises BufferError. */
static PyObject *storage_copy(PyObject *self, PyObject *src)
{
    Py_buffer view;
    (void)self;
    if (PyObject_GetBuffer(src, &view, PyBUF_SIMPLE) != 0)
        return NULL;
    lt_storage *s = NULL;
    lt_status rc;
    PYT_NOGIL(view.len, lt_storage_new_copy(&s, view.buf, (size_t)view.len));
    PyBuffer_Release(&view);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    return pyt_storage_object(s);
}

/* map_file(path: bytes, mode, nbytes) -> UntypedStorage over the mapped
 * file, or the failing lt_status as an int (lt_last_error() keeps the
 * message), so that from_file can retry read-only before it raises. The
 * system calls run without the GIL. */
static PyObject *map_file(PyObject *self, PyObject *args)
{
    const char *path;
    int mode;
    long long nbytes;
    (void)self;
    if (!PyArg_ParseTuple(args, "yiL", &path, &mode, &nbytes))
        return NULL;
    lt_storage *s = NULL;
    PyThreadState *ts = PyEval_SaveThread();
    lt_status rc = lt_storage_map_file(&s, path, (lt_map_mode)mode, (int64_t)nbytes);
    PyEval_RestoreThread(ts);
    if (rc != LT_OK)
        return PyLong_FromLong((long)rc);
    return pyt_storage_object(s);
}

/* grow_storage(tensor, nbytes): Tensor.resize_'s growth step. Grows the
 * tensor's storage to nbytes (lt_storage_resize) and refreshes the storage
 * object's address and size. Refused unless the tensor is the storage
 * object's only holder (no other view, no kept untyped_storage()): growing
 * moves the bytes, and pytensor never moves bytes under a live view. Every
 * refusal goes through the Python error translator, as libtensor's do. */
static PyObject *grow_storage(PyObject *self, PyObject *args)
{
    PyObject *tensor;
    long long nbytes;
    (void)self;
    if (!PyArg_ParseTuple(args, "OL", &tensor, &nbytes))
        return NULL;
    if (!pyt_tensor_cls || !PyObject_TypeCheck(tensor, pyt_tensor_cls) || nbytes < 0) {
        PyErr_SetString(PyExc_TypeError, "grow_storage(tensor, nbytes >= 0)");
        return NULL;
    }
    StorageObject *st = (StorageObject *)((TensorObject *)tensor)->storage;
    if (st->exports > 0) {
        char message[256];
        snprintf(message, sizeof message,
                 "cannot grow this tensor's storage from %zu to %lld bytes while %zd buffer exports of it "
                 "(memoryview, PickleBuffer, ...) are alive: growing moves the bytes; release them first",
                 lt_storage_nbytes(st->s), nbytes, st->exports);
        return pyt_raise_status(LT_EINVAL, message);
    }
    if (Py_REFCNT((PyObject *)st) != 1) {
        char message[256];
        snprintf(message, sizeof message,
                 "cannot grow this tensor's storage from %zu to %lld bytes while %zd other objects (views of it, "
                 "kept untyped_storage() handles) use its address: growing moves the bytes; resize a copy "
                 "(.clone()) instead", lt_storage_nbytes(st->s), nbytes, (Py_ssize_t)(Py_REFCNT((PyObject *)st) - 1));
        return pyt_raise_status(LT_EINVAL, message);
    }
    lt_status rc = lt_storage_resize(st->s, (size_t)nbytes);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PyObject *addr = PyLong_FromVoidPtr(lt_storage_data(st->s));
    PyObject *size = PyLong_FromSize_t(lt_storage_nbytes(st->s));
    if (!addr || !size) {
        Py_XDECREF(addr);
        Py_XDECREF(size);
        return NULL;
    }
    pyt_replace_ref(&st->addr, addr);
    pyt_replace_ref(&st->nbytes, size);
    Py_RETURN_NONE;
}

PyMethodDef pyt_types_methods[] = {
    {"register", register_types, METH_VARARGS, "Hand the shim the Python classes it instantiates."},
    {"make_tensor", (PyCFunction)(void (*)(void))make_tensor, METH_FASTCALL, "Tensor._make."},
    {"storage_new", storage_new, METH_VARARGS, "A storage of new bytes."},
    {"storage_copy", storage_copy, METH_O, "A storage of new bytes copied from a buffer."},
    {"map_file", map_file, METH_VARARGS, "Map a file into a new storage."},
    {"grow_storage", grow_storage, METH_VARARGS, "Tensor.resize_'s growth of its storage."},
    {"buffer_exports", pyt_buffer_exports, METH_NOARGS, "Buffer exports alive in this process."},
    {"item", tensor_item, METH_O, "item(t): t.item() in one call (Python's Tensor._item for what is rare)."},
    {"numel", tensor_numel, METH_O, "numel(t): t.numel() in one call."},
    {"pin_for_numpy", pin_for_numpy, METH_O, "pin_for_numpy(t): numpy()'s checks and pin in one call; True or False."},
    {"set_num_threads", set_num_threads, METH_O,
     "set_num_threads(n)\n--\n\nThreads libtensor kernels may use for large copies, casts and elementwise work."},
    {"get_num_threads", get_num_threads, METH_NOARGS,
     "get_num_threads()\n--\n\nThreads libtensor kernels may use (set_num_threads sets it)."},
    {"tolist", tensor_tolist, METH_O, "tolist(t): t.tolist() in one pass; None when declined (Python's path)."},
    {NULL, NULL, 0, NULL},
};

/* Adds StorageBase and TensorBase to module m. Returns 0, or -1 with an exception. */
int pyt_add_types(PyObject *m)
{
    PyObject *sb = PyType_FromSpec(&storage_spec);
    if (!sb || PyModule_AddObject(m, "StorageBase", sb) != 0) {
        Py_XDECREF(sb);
        return -1;
    }
    PyObject *tb = PyType_FromSpec(&tensor_spec);
    if (!tb || PyModule_AddObject(m, "TensorBase", tb) != 0) {
        Py_XDECREF(tb);
        return -1;
    }
    return 0;
}
