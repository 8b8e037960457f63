/* _shim.h: the shim's internal header, shared by the pytensor/_shim*.c files
 * and by nothing else (not installed, no API: Python sees the shim only as
 * the module "pytensor._shim").
 *
 * The shim is the only C in pytensor that includes Python.h. Each .c file
 * has one job and a method table that _shim.c adds to the module:
 *
 *   _shim.c            the module: adds every table below and the two types
 *   _shim_keepalive.c  Python objects kept alive by a storage's deleter
 *   _shim_types.c      StorageBase and TensorBase, the error translator
 *   _shim_buffer.c     their buffer protocol: memoryview(t), bytes(t), PickleBuffer
 *   _shim_prov.c       provenance: how each tensor was made, the last writer
 *   _shim_share.c      from_numpy and frombuffer: tensors over Python memory
 *   _shim_view.c       view()/reshape() and t[index] for basic indices (ints, slices, None, ...)
 *   _shim_list.c       tensor(nested list of Python numbers)
 *   _shim_dlpack.c     DLPack capsules and from_dlpack's import ladder
 *   _shim_exchange.c   pytensor's own DLPack C exchange API table
 *   _shim_safetensors.c  a safetensors header's common case
 *   _shim_shm.c        share_memory_()'s move of a storage's bytes
 *   _shim_ops.c        elementwise ops in one call (binary), result layout, is_contiguous
 *   _shim_index.c      the gather family (cat, where, flip, t[idx], ...) in one call
 *   _shim_random.c     random numbers: the generator's handle, rand/randn/randint, uniform_/normal_
 *
 * Names: what several files share is declared here with the pyt_ prefix;
 * whatever one file uses alone stays static in it. All of it runs with the
 * GIL held, except the deleters (any thread) and the exchange allocator. */
#ifndef PYTENSOR_SHIM_H
#define PYTENSOR_SHIM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "libtensor.h"

/* ------------------------------------------------------------ called through cffi (_build_ffi.py declares them) */

/* Fills the module "pytensor._shim" (_shim.c). Returns 0, or -1. */
int pyt_shim_init(void);

/* From the atexit hook: deleters leak from now on (_shim_keepalive.c). */
void pyt_set_finalizing(void);

/* ------------------------------------------------------------ the two C bases (_shim_types.c) */

typedef struct {
    PyObject_HEAD
    lt_storage *s;      /* one owned reference; NULL only before init */
    PyObject *addr;     /* int: address of byte 0 */
    PyObject *nbytes;   /* int */
    PyObject *readonly; /* bool: LT_STORAGE_READONLY */
    PyObject *host;     /* bool: the bytes are host memory */
    PyObject *file;     /* (path, mode) for from_file storages, else None */
    PyObject *cptr;     /* cffi "lt_storage *" made on first use by Python, or NULL */
    PyObject *weakrefs;
    /* The last write recorded through pytensor (_shim_prov.c): the writer's
     * node (NULL: none yet), its id() and the version the write made. */
    PyObject *writer_node;
    uintptr_t writer_id;
    uint64_t writer_version;
    Py_ssize_t exports; /* buffer exports alive (_shim_buffer.c): the bytes must not move */
} StorageObject;

typedef struct {
    PyObject_HEAD
    PyObject *storage; /* root UntypedStorage: views never chain */
    PyObject *dtype;
    PyObject *shape;   /* tuple of int */
    PyObject *strides; /* tuple of int, in elements */
    PyObject *offset;  /* int, in elements */
    PyObject *requires_grad;
    PyObject *grad;
    PyObject *grad_fn;
    PyObject *weakrefs;
    /* Provenance (_shim_prov.c): how this tensor was made. Never a tensor. */
    int prov_op;         /* a PROV_* code; 0: not recorded */
    PyObject *prov_arg;  /* the operation's argument as passed, or NULL */
    PyObject *prov_from; /* the parent's node, or NULL */
    PyObject *prov_node; /* this tensor's own node, made when it first becomes a parent, or NULL */
    /* torch's lazy conjugate and negative bits (pytensor/_conj.py): the values
     * are the stored bytes conjugated / negated. A view inherits them from its
     * parent; every C path that reads or writes element bytes declines or
     * refuses a tensor with bits set (the Python path resolves them). */
    int bits;
} TensorObject;

#define PYT_BIT_CONJ 1
#define PYT_BIT_NEG 2

/* Set by register() at import: the Python subclasses the shim instantiates
 * (pytensor.UntypedStorage, pytensor.Tensor) and the dtype objects by
 * lt_dtype code. Strong references held for the life of the process. */
extern PyTypeObject *pyt_storage_cls, *pyt_tensor_cls;
extern PyObject *pyt_dtype_by_code[LT_DTYPE_COUNT];

/* The lt_dtype code of a registered dtype object, or -1. */
int pyt_dtype_code_of(PyObject *dtype);

/* The address of t's element 0 (itemsize bytes each), or NULL without an
 * exception when its storage is not host memory or its bytes do not read as
 * its values (a lazy conjugate or negative bit: the Python path resolves
 * those, pytensor/_conj.py). Every C path that reads or writes element bytes
 * goes through here, so each declines such a tensor. */
static inline char *pyt_element0(TensorObject *t, size_t itemsize)
{
    StorageObject *st = (StorageObject *)t->storage;
    if (st->host != Py_True || t->bits)
        return NULL;
    long long offset = PyLong_AsLongLong(t->offset);
    if (offset == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    return (char *)lt_storage_data(st->s) + (size_t)offset * itemsize;
}

/* 1 when obj is a pytensor Tensor (the registered class or a subclass). */
static inline int pyt_is_tensor(PyObject *obj)
{
    return pyt_tensor_cls && PyObject_TypeCheck(obj, pyt_tensor_cls);
}

/* The one translator: raises the exception pytensor.errors.error_for maps
 * status rc to, with message. Returns NULL. pyt_raise_last uses libtensor's
 * thread-local lt_last_error() as the message. */
PyObject *pyt_raise_status(lt_status rc, const char *message);
PyObject *pyt_raise_last(lt_status rc);

/* A new UntypedStorage owning the reference s (stolen: released on failure). */
PyObject *pyt_storage_object(lt_storage *s);

/* A new Tensor over storage; steals all five references (any may be NULL
 * after a failed constructor call, and then the others are dropped). */
PyObject *pyt_tensor_steal(PyObject *storage, PyObject *dtype, PyObject *shape, PyObject *strides, PyObject *offset);
PyObject *pyt_view_steal(TensorObject *t, PyObject *shape, PyObject *strides, PyObject *offset);

/* A new Tensor of dtype code over the storage reference s (stolen), with
 * shape and strides (elements) of nd dims and an offset in elements: how
 * every constructor in the shim ends. */
PyObject *pyt_tensor_over(lt_storage *s, int code, const int64_t *shape, const int64_t *strides, Py_ssize_t nd,
                          int64_t offset);

/* A tuple of n Python ints (a new reference). */
PyObject *pyt_int_tuple(const int64_t *v, Py_ssize_t n);

/* Reads a tuple of Python ints into out[0..n). Returns n, or -1 with an
 * exception set. */
Py_ssize_t pyt_int64_tuple(PyObject *tup, int64_t *out, Py_ssize_t cap);

/* *slot = value (a new reference, stolen), dropping the old one after. */
void pyt_replace_ref(PyObject **slot, PyObject *value);

/* Adds StorageBase and TensorBase to module m. Returns 0, or -1 with an exception. */
int pyt_add_types(PyObject *m);

/* ------------------------------------------------------------ buffer protocol (_shim_buffer.c) */

/* The bf_getbuffer slots of StorageBase and TensorBase, and their shared
 * bf_releasebuffer; buffer_exports() counts the exports alive. */
int pyt_storage_getbuffer(PyObject *self, Py_buffer *view, int flags);
int pyt_tensor_getbuffer(PyObject *self, Py_buffer *view, int flags);
void pyt_buffer_release(PyObject *self, Py_buffer *view);
PyObject *pyt_buffer_exports(PyObject *self, PyObject *unused);

/* Records dtype code's struct format (a str, or None for a dtype with
 * none), from register(). Returns 0, or -1 with an exception. */
int pyt_buffer_set_format(int code, PyObject *fmt);

/* ------------------------------------------------------------ keep-alive (_shim_keepalive.c) */

/* Storage deleters for borrowed Python memory. Each runs once, on any
 * thread, takes the GIL, and leaks instead once the interpreter is ending.
 * decref: ctx is a strong reference. release_buffer: ctx is a malloc'd
 * Py_buffer export, released and freed. */
void pyt_decref_deleter(void *ctx);
void pyt_release_buffer_deleter(void *ctx);

/* ------------------------------------------------------------ provenance (_shim_prov.c) */

/* The operation names, in code order: the one list. Python reads it as
 * shim.prov_ops and formats each name (pytensor/_provenance.py); the C
 * paths name the codes they record themselves. */
#define PYT_PROV_OPS(X)                                                                               \
    X(NONE, "") X(INDEX, "index") X(VIEW, "view") X(RESHAPE, "reshape") X(VIEW_DTYPE, "view_dtype")   \
    X(T, "T") X(MT, "mT") X(TRANSPOSE, "transpose") X(T_METHOD, "t") X(PERMUTE, "permute")            \
    X(SQUEEZE, "squeeze") X(UNSQUEEZE, "unsqueeze") X(EXPAND, "expand") X(NARROW, "narrow")           \
    X(SELECT, "select") X(UNFOLD, "unfold") X(AS_STRIDED, "as_strided") X(DIAGONAL, "diagonal")        \
    X(DETACH, "detach") X(ALIAS, "alias") X(CONTIGUOUS, "contiguous") X(CLONE, "clone") X(TO, "to")    \
    X(CONVERT, "convert") X(GATHER, "gather") X(FROM_NUMPY, "from_numpy") X(ASARRAY, "asarray")        \
    X(AS_TENSOR, "as_tensor") X(FROMBUFFER, "frombuffer") X(FROM_DLPACK, "from_dlpack")               \
    X(FROM_DLPACK_COPIED, "from_dlpack_copied") X(FROM_FILE, "from_file") X(TENSOR, "tensor")         \
    X(FACTORY, "factory")

#define PYT_PROV_CODE(code, name) PROV_##code,
enum { PYT_PROV_OPS(PYT_PROV_CODE) PROV_COUNT };
#undef PYT_PROV_CODE

static inline int pyt_prov_op_valid(long op) { return op >= 0 && op < PROV_COUNT; }

/* Recording is on unless a user turns it off (pytensor._provenance.set_enabled). */
extern int pyt_prov_on;

/* t's node (a new reference), made and cached on first use; NULL with an
 * exception only when the tuple cannot be allocated. */
PyObject *pyt_prov_node_of(TensorObject *t);

/* t becomes its storage's last recorded writer, for a write whose version
 * is already counted (note_write bumps, then calls this; a path whose
 * libtensor kernel bumps calls it alone). Returns 0, or -1 with an exception. */
int pyt_prov_record_writer(TensorObject *t);

/* The op names as a tuple, for the module attribute prov_ops (a new reference). */
PyObject *pyt_prov_op_names(void);

/* Records on obj, a tensor made just now whose provenance fields are still
 * empty, that op with arg (borrowed; NULL for none) made it from parent (a
 * Tensor, borrowed, or NULL). Returns obj, which may be NULL (a failed
 * constructor) and is then passed through. What every view and constructor
 * in C calls, so it only stores; inline because it is on every fast path.
 * Recording never fails the operation: the step may lose its parent. */
static inline PyObject *pyt_prov_fresh(PyObject *obj, int op, PyObject *arg, PyObject *parent)
{
    if (!obj || !pyt_prov_on)
        return obj;
    TensorObject *t = (TensorObject *)obj;
    if (parent) {
        PyObject *from = pyt_prov_node_of((TensorObject *)parent);
        if (!from)
            PyErr_Clear();
        t->prov_from = from;
    }
    Py_XINCREF(arg);
    t->prov_op = op;
    t->prov_arg = arg;
    return obj;
}

/* ------------------------------------------------------------ the fast paths' operands (_shim_ops.c)
 *
 * What every one-crossing path of _shim_ops.c, _shim_index.c and
 * _shim_random.c reads from its operands, in one place, so that they all
 * decline the same tensors and numbers. */

/* A tensor's layout and element 0, as pyt_read_view reads them. */
typedef struct pyt_view {
    int32_t nd;
    int code; /* lt_dtype */
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM]; /* strides in elements */
    char *data;     /* element 0: the storage's bytes + offset * isz */
    size_t isz;     /* bytes per element */
} pyt_view;

/* Reads t into v: 1, or 0 to decline (no error set) a dtype that is not
 * registered, a shape or strides that do not read as int64, or what
 * pyt_element0 declines (memory off the host, a lazy bit). */
int pyt_read_view(pyt_view *v, TensorObject *t);

/* A Python number x as one element of dtype code in buf (16 aligned bytes),
 * when it is of the tensor's kind and converts exactly as the Python paths
 * convert it: a float for float32/float64; an int exact in a double for the
 * floating dtypes, or within [-128, 127] ([0, 127] for uint8) for the
 * integer ones, so within every integer type's range. 1 when written, 0 to
 * decline (no error set): other numbers, bool, complex and the wide unsigned
 * dtypes, the float8s. */
int pyt_scalar_operand(unsigned char *buf, PyObject *x, int code);

/* The strides (elements) an operand of op_nd dims walks broadcast to shape
 * (nd dims): libtensor's rule, lt_layout_broadcast_strides, which this calls
 * unless the answer needs no rule: an operand of the result's shape keeps its
 * strides, a 0-d one (a number) walks 0 everywhere. Inline, on every binary
 * op's path, where the call would cost more than these copies. 1, or 0 when
 * the operand does not broadcast to shape (no error set). */
static inline int pyt_broadcast_strides(int64_t *out, int32_t nd, const int64_t *shape, int32_t op_nd,
                                        const int64_t *op_shape, const int64_t *op_strides)
{
    int same = op_nd == nd;
    for (int32_t d = 0; d < op_nd && same; d++)
        same = op_shape[d] == shape[d];
    if (same || op_nd == 0) {
        for (int32_t d = 0; d < nd; d++)
            out[d] = op_nd ? op_strides[d] : 0;
        return 1;
    }
    return lt_layout_broadcast_strides(out, nd, shape, op_nd, op_shape, op_strides) == LT_OK;
}

/* rc = call, run with the GIL released when the job moves PYT_NOGIL_NBYTES
 * or more (below, releasing it costs more than it frees), as a cffi call
 * runs. rc must be an lt_status in scope. */
#define PYT_NOGIL_NBYTES (1 << 16)
#define PYT_NOGIL(nbytes, call)                                                            \
    do {                                                                                   \
        PyThreadState *pyt_ts_ = (nbytes) >= PYT_NOGIL_NBYTES ? PyEval_SaveThread() : NULL; \
        rc = (call);                                                                       \
        if (pyt_ts_)                                                                       \
            PyEval_RestoreThread(pyt_ts_);                                                 \
    } while (0)

/* ------------------------------------------------------------ cross-file entry points */

/* t[index], the Tensor's subscript slot (_shim_view.c). */
PyObject *pyt_tensor_subscript(PyObject *self, PyObject *index);

/* t.fill_(value) and dst.copy_(src)'s common cases (_shim_ops.c): t, or None
 * when declined (the Python path decides), or NULL with an exception. The
 * caller records the write. */
PyObject *pyt_fill_inplace(PyObject *t, PyObject *value);
PyObject *pyt_copy_inplace(PyObject *dst, PyObject *src);

/* contiguous()'s copy of t (a Tensor), row-major in new memory, recorded as
 * contiguous from t (_shim_ops.c): the copy, or None when declined, or NULL
 * with an exception. */
PyObject *pyt_contiguous_copy(PyObject *t);

/* The managed tensor of t's view (lt_dlpack_export with flags) into *out:
 * 0, or -1 with libtensor's error raised (_shim_dlpack.c). */
int pyt_export_managed(void **out, TensorObject *t, unsigned flags);

/* A Tensor that owns the versioned managed tensor mt, whose deleter runs
 * here when libtensor refuses it (_shim_dlpack.c). producer: the object
 * whose type the provenance records, or NULL. */
PyObject *pyt_import_versioned(DLManagedTensorVersioned *mt, PyObject *producer);

/* The header of a DLPack 1.3 C exchange API table (the spec's layout),
 * read by _shim_dlpack.c and published by _shim_exchange.c. */
typedef struct pyt_exchange_header {
    DLPackVersion version;
    struct pyt_exchange_header *prev_api;
} pyt_exchange_header;

/* ------------------------------------------------------------ method tables, one per file */

extern PyMethodDef pyt_keepalive_methods[];
extern PyMethodDef pyt_types_methods[];
extern PyMethodDef pyt_prov_methods[];
extern PyMethodDef pyt_share_methods[];
extern PyMethodDef pyt_view_methods[];
extern PyMethodDef pyt_list_methods[];
extern PyMethodDef pyt_dlpack_methods[];
extern PyMethodDef pyt_exchange_methods[];
extern PyMethodDef pyt_safetensors_methods[];
extern PyMethodDef pyt_shm_methods[];
extern PyMethodDef pyt_ops_methods[];
extern PyMethodDef pyt_index_methods[];
extern PyMethodDef pyt_random_methods[];

#endif /* PYTENSOR_SHIM_H */
