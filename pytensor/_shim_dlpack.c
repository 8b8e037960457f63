/* _shim_dlpack.c: the DLPack capsule protocol and from_dlpack's import
 * ladder (capsule, the producer's C exchange table, __dlpack__).
 *
 * Capsule rules (DLPack Python spec): a producer's capsule is named
 * "dltensor" (legacy) or "dltensor_versioned"; its destructor calls the
 * managed tensor's deleter only while the capsule is unconsumed. A consumer
 * takes ownership first and renames the capsule "used_..." after, so a
 * capsule is consumed exactly once and never freed twice. */
#include "_shim.h"

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

/* The managed tensor of t's view (lt_dlpack_export with flags) into *out:
 * 0, or -1 with libtensor's error raised (e.g. read-only memory on a legacy
 * request). One export for __dlpack__ and for the C exchange API. */
int pyt_export_managed(void **out, TensorObject *t, unsigned flags)
{
    if (t->bits) { /* torch's refusal: a consumer would read the bytes unconjugated / unnegated */
        PyErr_Format(PyExc_BufferError, "Can't export tensors with the %s bit set",
                     (t->bits & PYT_BIT_CONJ) ? "conjugate" : "negative");
        return -1;
    }
    int code = pyt_dtype_code_of(t->dtype);
    if (code < 0) {
        PyErr_SetString(PyExc_TypeError, "DLPack export: the tensor's dtype is not a pytensor dtype");
        return -1;
    }
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t ndim = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (ndim < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != ndim) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return -1;
    }
    long long offset = PyLong_AsLongLong(t->offset);
    if (offset == -1 && PyErr_Occurred())
        return -1;
    lt_status rc = lt_dlpack_export(out, ((StorageObject *)t->storage)->s, (lt_dtype)code, (int32_t)ndim, shape,
                                    strides, offset, flags);
    if (rc != LT_OK) {
        pyt_raise_last(rc);
        return -1;
    }
    return 0;
}

/* to_capsule(tensor, flags) -> capsule sharing the tensor's memory; raises
 * libtensor's error when it refuses. */
static PyObject *to_capsule(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !pyt_tensor_cls || !PyObject_TypeCheck(args[0], pyt_tensor_cls)) {
        PyErr_SetString(PyExc_TypeError, "to_capsule(tensor, flags)");
        return NULL;
    }
    unsigned long flags = PyLong_AsUnsignedLong(args[1]);
    if (flags == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    void *managed = NULL;
    if (pyt_export_managed(&managed, (TensorObject *)args[0], (unsigned)flags) != 0)
        return NULL;
    return wrap_managed(managed, (flags & LT_EXPORT_VERSIONED) != 0);
}

static PyObject *consume_capsule(PyObject *cap, PyObject *producer);

/* from_capsule(capsule) -> Tensor sharing the producer's memory. Raises
 * RuntimeError (torch's) for an object that is not an unconsumed DLPack
 * capsule, and libtensor's error when the tensor is refused (the capsule is
 * then left unconsumed, so its destructor still frees it). */
static PyObject *from_capsule(PyObject *self, PyObject *cap)
{
    (void)self;
    return consume_capsule(cap, cap);
}

/* The provenance of a DLPack import: from producer's type, and whether the
 * producer says it copied (DLPACK_FLAG_BITMASK_IS_COPIED, versioned only). */
static PyObject *prov_dlpack(PyObject *t, PyObject *producer, int copied)
{
    return pyt_prov_fresh(t, copied ? PROV_FROM_DLPACK_COPIED : PROV_FROM_DLPACK, (PyObject *)Py_TYPE(producer), NULL);
}

/* from_capsule's work, recorded as an import from producer (the capsule
 * itself, or the object whose __dlpack__ made it). */
static PyObject *consume_capsule(PyObject *cap, PyObject *producer)
{
    int versioned;
    if (PyCapsule_IsValid(cap, CAP_VERSIONED))
        versioned = 1;
    else if (PyCapsule_IsValid(cap, CAP_LEGACY))
        versioned = 0;
    else {
        PyErr_SetString(PyExc_RuntimeError, "from_dlpack received an invalid capsule. Note that DLTensor capsules "
                                            "can be consumed only once, so you might have already constructed a "
                                            "tensor from it once.");
        return NULL;
    }
    void *managed = PyCapsule_GetPointer(cap, versioned ? CAP_VERSIONED : CAP_LEGACY);
    if (!managed)
        return NULL;
    lt_storage *s = NULL;
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], offset;
    /* Read before the import: afterwards the managed tensor belongs to the storage. */
    int copied = versioned && (((DLManagedTensorVersioned *)managed)->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
    lt_status rc = lt_dlpack_import(&s, &dtype, &ndim, shape, strides, &offset, managed, versioned);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    /* Ownership is ours now; renaming marks the capsule consumed. */
    if (PyCapsule_SetName(cap, versioned ? CAP_USED_VERSIONED : CAP_USED_LEGACY) != 0) {
        lt_storage_release(s);
        return NULL;
    }
    return prov_dlpack(pyt_tensor_over(s, dtype, shape, strides, ndim, offset), producer, copied);
}

/* ---------------------------------------------------------------- C exchange API
 *
 * DLPack 1.3's fast path between C extensions: a type publishes, as the
 * PyCapsule "dlpack_exchange_api" in its __dlpack_c_exchange_api__
 * attribute, a static table of functions; managed_tensor_from_py_object_no_sync
 * is __dlpack__(max_version=(1, x)) without the Python call (torch: 0.2 us
 * against its __dlpack__'s 2 us). Only the fields used here are typed; the
 * layout is the spec's (offsets 0, 16, 24, 32, 40, 48; 56 bytes). */
typedef struct {
    pyt_exchange_header header;
    void *managed_tensor_allocator;
    int (*managed_tensor_from_py_object_no_sync)(void *py_object, DLManagedTensorVersioned **out);
    void *managed_tensor_to_py_object_no_sync;
    void *dltensor_from_py_object_no_sync;
    void *current_work_stream;
} dl_exchange_api;

/* The capsule type tp publishes in its own __dict__ (a new reference), or
 * NULL. Not an inherited one: a subclass may override __dlpack__, and the
 * table would bypass it. Read on every call: the attribute can be replaced
 * or deleted at any time, and its capsule freed with it. */
static PyObject *exchange_capsule_of(PyTypeObject *tp)
{
    static PyObject *attr, *dict_attr; /* interned once: a lookup by C string makes a new str each call */
    if (!dict_attr && (!(attr = PyUnicode_InternFromString("__dlpack_c_exchange_api__")) ||
                       !(dict_attr = PyUnicode_InternFromString("__dict__")))) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *dict = PyObject_GetAttr((PyObject *)tp, dict_attr);
    PyObject *cap = dict ? PyObject_GetItem(dict, attr) : NULL;
    Py_XDECREF(dict);
    if (!cap || !PyCapsule_IsValid(cap, "dlpack_exchange_api")) {
        Py_XDECREF(cap);
        PyErr_Clear();
        return NULL;
    }
    return cap;
}

/* 1 when tp is torch.Tensor, whose C export skips the refusals of its
 * Python __dlpack__ (see exchange_import). */
static int is_torch_tensor_type(PyTypeObject *tp)
{
    PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
    PyObject *name = PyObject_GetAttrString((PyObject *)tp, "__qualname__");
    int torch = mod && name && PyUnicode_Check(mod) && PyUnicode_Check(name) &&
                PyUnicode_CompareWithASCIIString(mod, "torch") == 0 &&
                PyUnicode_CompareWithASCIIString(name, "Tensor") == 0;
    Py_XDECREF(mod);
    Py_XDECREF(name);
    PyErr_Clear();
    return torch;
}

/* The exchange table of tp, or NULL; *keep receives the capsule that owns
 * the table (a new reference: the caller releases it once done with the
 * table) and *is_torch whether tp is torch.Tensor. The last (type,
 * capsule) pair is cached with strong references to both, so the cached
 * answer cannot outlive the table, and a capsule that is not the cached
 * one (replaced, deleted) is looked at afresh. */
static const dl_exchange_api *exchange_api_of(PyTypeObject *tp, PyObject **keep, int *is_torch)
{
    static PyTypeObject *last_type;
    static PyObject *last_capsule;
    static int last_is_torch;
    *keep = NULL;
    PyObject *cap = exchange_capsule_of(tp);
    if (!cap)
        return NULL;
    const dl_exchange_api *api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
    if (!api || api->header.version.major != 1 || !api->managed_tensor_from_py_object_no_sync) {
        PyErr_Clear();
        Py_DECREF(cap);
        return NULL;
    }
    if (tp != last_type || cap != last_capsule) {
        int torch = is_torch_tensor_type(tp);
        PyObject *old_type = (PyObject *)last_type, *old_capsule = last_capsule;
        Py_INCREF((PyObject *)tp);
        Py_INCREF(cap);
        last_type = tp;
        last_capsule = cap;
        last_is_torch = torch;
        Py_XDECREF(old_type); /* after the update: a destructor run here sees a consistent cache */
        Py_XDECREF(old_capsule);
    }
    *keep = cap;
    *is_torch = last_is_torch;
    return api;
}

/* 1 when obj's attribute name (called when call is set) is True; -1 on error. */
static int attr_is_true(PyObject *obj, const char *name, int call)
{
    PyObject *v = call ? PyObject_CallMethod(obj, name, NULL) : PyObject_GetAttrString(obj, name);
    if (!v)
        return -1;
    int r = v == Py_True;
    Py_DECREF(v);
    return r;
}

/* A Tensor that owns the versioned managed tensor mt (a DLPack import that
 * takes ownership: when libtensor refuses mt, its deleter runs here and the
 * error is raised). producer is the object whose type the provenance
 * records, or NULL when nobody named it (the C exchange API's import). */
PyObject *pyt_import_versioned(DLManagedTensorVersioned *mt, PyObject *producer)
{
    lt_storage *s = NULL;
    lt_dtype dtype;
    int32_t ndim;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], offset;
    /* read before the import: afterwards mt belongs to the storage */
    int copied = (mt->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0;
    lt_status rc = lt_dlpack_import(&s, &dtype, &ndim, shape, strides, &offset, mt, 1);
    if (rc != LT_OK) {
        if (mt->deleter)
            mt->deleter(mt);
        return pyt_raise_last(rc);
    }
    PyObject *t = pyt_tensor_over(s, dtype, shape, strides, ndim, offset);
    if (producer)
        return prov_dlpack(t, producer, copied);
    return pyt_prov_fresh(t, copied ? PROV_FROM_DLPACK_COPIED : PROV_FROM_DLPACK, NULL, NULL);
}

/* from_dlpack(obj) through obj's exchange table: a Tensor, or None when obj's
 * type has no table or the table cannot serve this tensor (the __dlpack__
 * path then runs and raises the producer's error, if any). Only host (CPU)
 * memory is taken this way. torch's table exports what its __dlpack__
 * refuses (a tensor that requires grad; one with the conjugate bit set,
 * whose memory holds the unconjugated values), so those are left to
 * __dlpack__: a torch bug we step around, not copy. A tensor with torch's
 * negative bit is exported as its bytes by both; import_dlpack sets the bit
 * on what either path gives (see torch_neg_bit). */
static PyObject *exchange_import(PyObject *obj)
{
    int is_torch = 0;
    PyObject *keep = NULL; /* the table's capsule, held until the table's last use */
    const dl_exchange_api *api = exchange_api_of(Py_TYPE(obj), &keep, &is_torch);
    if (!api)
        Py_RETURN_NONE;
    if (is_torch) {
        int grad = attr_is_true(obj, "requires_grad", 0), conj = grad == 0 ? attr_is_true(obj, "is_conj", 1) : 1;
        if (grad != 0 || conj != 0) {
            PyErr_Clear();
            Py_DECREF(keep);
            Py_RETURN_NONE;
        }
    }
    DLManagedTensorVersioned *mt = NULL;
    int failed = api->managed_tensor_from_py_object_no_sync(obj, &mt) != 0 || !mt;
    Py_DECREF(keep);
    if (failed) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (mt->dl_tensor.device.device_type != kDLCPU) { /* other devices: the protocol's stream rules apply */
        if (mt->deleter)
            mt->deleter(mt);
        Py_RETURN_NONE;
    }
    return pyt_import_versioned(mt, obj);
}

/* The keywords of from_dlpack's first __dlpack__ call (a new reference):
 * max_version=(1, 3) always, copy when asked (copy is not None),
 * dl_device=(1, 0) when host_copy (a host copy of device memory is wanted).
 * The common request's dict is made once and shared: call_dlpack copies
 * before it changes one. */
static PyObject *dlpack_kwargs(PyObject *copy, int host_copy)
{
    static PyObject *common; /* {"max_version": (1, 3)} */
    if (!common && !(common = Py_BuildValue("{s(ii)}", "max_version", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION)))
        return NULL;
    if (copy == Py_None && !host_copy) {
        Py_INCREF(common);
        return common;
    }
    PyObject *kwargs = PyDict_Copy(common);
    if (kwargs && copy != Py_None && PyDict_SetItemString(kwargs, "copy", copy) != 0)
        Py_CLEAR(kwargs);
    PyObject *device = kwargs && host_copy ? Py_BuildValue("(ii)", kDLCPU, 0) : NULL;
    if (host_copy && (!device || PyDict_SetItemString(kwargs, "dl_device", device) != 0))
        Py_CLEAR(kwargs);
    Py_XDECREF(device);
    return kwargs;
}

/* meth(**kwargs), as torch asks: a producer that raises TypeError is asked
 * again without its newest keyword (dl_device, then copy, then max_version),
 * down to meth(). *copied is cleared when copy had to be dropped. Borrows
 * kwargs (never changes it). Returns the result (a new reference) or NULL
 * with the producer's error. */
static PyObject *call_dlpack(PyObject *meth, PyObject *kwargs, int *copied)
{
    static const char *const newest_first[] = {"dl_device", "copy", "max_version"};
    PyObject *empty = PyTuple_New(0), *own = NULL, *cap = NULL;
    for (PyObject *kw = kwargs; empty; kw = own) {
        cap = PyObject_Call(meth, empty, kw);
        if (cap || !PyErr_ExceptionMatches(PyExc_TypeError))
            break;
        size_t i = 0;
        while (i < 3 && !PyDict_GetItemString(kw, newest_first[i]))
            i++;
        if (i == 3) /* meth() itself raised: its error stands */
            break;
        PyErr_Clear();
        *copied = *copied && i != 1;
        if (!own && !(own = PyDict_Copy(kwargs)))
            break;
        if (PyDict_DelItemString(own, newest_first[i]) != 0)
            break;
    }
    Py_XDECREF(own);
    Py_XDECREF(empty);
    return cap;
}

/* t (a new reference, passed on) with the negative bit set. */
static PyObject *with_neg_bit(PyObject *t)
{
    ((TensorObject *)t)->bits |= PYT_BIT_NEG;
    return t;
}

/* 1 when obj is a torch tensor (any subclass) with torch's negative bit set,
 * 0 when not (or torch was never imported: then no torch tensor exists), -1
 * on error. torch's exports (__dlpack__ and its exchange table) hand over the
 * stored bytes without the bit, whose values are those bytes negated. */
static int torch_neg_bit(PyObject *obj)
{
    static PyObject *name;
    static PyTypeObject *torch_tensor; /* torch.Tensor once torch is imported: held for the process */
    if (!torch_tensor) {
        if (!name && !(name = PyUnicode_InternFromString("torch")))
            return -1;
        PyObject *torch = PyImport_GetModule(name);
        if (!torch)
            return PyErr_Occurred() ? -1 : 0;
        PyObject *cls = PyObject_GetAttrString(torch, "Tensor");
        Py_DECREF(torch);
        if (!cls || !PyType_Check(cls)) {
            Py_XDECREF(cls);
            PyErr_Clear(); /* a torch module without a Tensor type (a stub): nothing of it carries bits */
            return 0;
        }
        torch_tensor = (PyTypeObject *)cls;
    }
    return PyObject_TypeCheck(obj, torch_tensor) ? attr_is_true(obj, "is_neg", 1) : 0;
}

/* import_dlpack(obj, copy, host_copy) -> from_dlpack(obj, copy=copy), with
 * a host copy asked of the producer when host_copy is true; None only when
 * obj is neither a capsule nor an object with __dlpack__ (from_dlpack then
 * says so). A capsule is consumed (from_dlpack refuses copy or device for
 * one before it gets here). Without copy or host_copy, an object whose type
 * publishes the C exchange API is imported through it; otherwise
 * obj.__dlpack__ is called, as torch calls it (see call_dlpack), and its
 * capsule consumed. copy=True from a producer too old to copy is imported
 * and then cloned. The producer's errors propagate as they are. */
static PyObject *import_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    static PyObject *attr;
    int host_copy = nargs == 3 ? PyObject_IsTrue(args[2]) : -1;
    if (host_copy < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "import_dlpack(obj, copy, host_copy: bool)");
        return NULL;
    }
    PyObject *obj = args[0], *copy = args[1];
    if (PyCapsule_CheckExact(obj))
        return from_capsule(self, obj);
    /* A shared view of a torch tensor with the negative bit keeps the bit, so
     * its values read (and writes go through) as torch's do; a copy the
     * producer made holds the values already. Both import paths below. */
    int neg = torch_neg_bit(obj);
    if (neg < 0)
        return NULL;
    if (copy == Py_None && !host_copy) {
        PyObject *t = exchange_import(obj);
        if (t != Py_None)
            return t && neg ? with_neg_bit(t) : t; /* a Tensor, or NULL with the import's error */
        Py_DECREF(t);
    }
    if (!attr && !(attr = PyUnicode_InternFromString("__dlpack__")))
        return NULL;
    PyObject *meth = PyObject_GetAttr(obj, attr);
    if (!meth) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int copied = 1;
    PyObject *kwargs = dlpack_kwargs(copy, host_copy);
    PyObject *cap = kwargs ? call_dlpack(meth, kwargs, &copied) : NULL;
    Py_XDECREF(kwargs);
    Py_DECREF(meth);
    PyObject *t = cap ? consume_capsule(cap, obj) : NULL;
    Py_XDECREF(cap);
    if (t && neg && !(copied && copy == Py_True))
        t = with_neg_bit(t); /* before the clone below, which then copies the values */
    int clone = t && !copied ? PyObject_IsTrue(copy) : 0;
    if (clone < 0)
        Py_CLEAR(t);
    if (clone > 0) {
        PyObject *clone = PyObject_CallMethod(t, "clone", NULL);
        Py_DECREF(t);
        t = clone;
    }
    return t;
}

PyMethodDef pyt_dlpack_methods[] = {
    {"to_capsule", (PyCFunction)(void (*)(void))to_capsule, METH_FASTCALL, "Export a view as a capsule."},
    {"from_capsule", from_capsule, METH_O, "Consume a DLPack capsule into a Tensor."},
    {"import_dlpack", (PyCFunction)(void (*)(void))import_dlpack, METH_FASTCALL, "from_dlpack's import."},
    {NULL, NULL, 0, NULL},
};
