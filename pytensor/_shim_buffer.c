/* _shim_buffer.c: the buffer protocol (PEP 3118) of UntypedStorage and Tensor.
 *
 * memoryview(t), np.asarray(t), f.write(t), socket.send(t) and
 * PickleBuffer(s) read the bytes in place through these two slots (bytes(t)
 * copies them out, once).
 *
 *   storage  1-D, format "B", shape (nbytes,), stride 1.
 *   tensor   the view as NumPy exports an array: buf at element 0, shape,
 *            strides in bytes (any sign), the dtype's struct format char
 *            (dtypes.py's table, read once at register(); int64 and uint64
 *            as "l"/"L" where long is 64-bit, as NumPy names them, so that
 *            NumPy reads them back as np.int64, not np.longlong).
 *
 * A dtype with no struct char (bfloat16, the float8s, float4_e2m1fn_x2)
 * cannot be named to a consumer that asks for the format or the shape
 * (memoryview, bytes(), NumPy, which would read the elements as another
 * type): that request is refused. A consumer that takes a flat run of raw
 * bytes (PyBUF_SIMPLE: f.write, socket.send, hashlib) gets them, from a
 * C-contiguous tensor; t.view(pytensor.uint8) exports them with a shape.
 *
 * Read-only storages refuse a writable request (BufferError); a request for
 * a contiguity the layout lacks is refused as NumPy refuses it; a tensor
 * that requires grad exports nothing (NumPy then falls back to __array__,
 * which refuses it as torch does). Each export holds a strong reference to
 * the storage object and one libtensor reference to its bytes (a holder in
 * lt_storage_refcount, as a DLPack export is, so nothing moves them while
 * it lives), and counts itself in the storage's `exports` (Tensor.resize_
 * names them when it refuses) and in one process-wide count that tests
 * read back to zero. All of it runs with the GIL held. */
#include <stdlib.h>
#include <string.h>

#include "_shim.h"

#if LT_MAX_NDIM > PyBUF_MAX_NDIM
#error "a tensor's dimensions must fit the buffer protocol's"
#endif

/* The struct format of each dtype code, "" where none exists; set by
 * pyt_buffer_set_format() from register(). */
static char formats[LT_DTYPE_COUNT][4];

/* Exports alive now, over every storage (the GIL guards it). */
static Py_ssize_t live_exports;

/* A storage to point at for zero bytes: a buffer's buf must not be NULL. */
static char empty_bytes[1];

/* What an export keeps until release: the storage (a strong reference) and,
 * for a tensor, its shape and byte strides. */
typedef struct {
    PyObject *storage;
    lt_storage *bytes; /* one libtensor reference: an export is a holder, as a DLPack export is */
    Py_ssize_t dims[]; /* shape[ndim], then strides[ndim] */
} export_state;

int pyt_buffer_set_format(int code, PyObject *fmt)
{
    formats[code][0] = '\0';
    if (fmt == Py_None)
        return 0;
    Py_ssize_t n;
    const char *s = PyUnicode_Check(fmt) ? PyUnicode_AsUTF8AndSize(fmt, &n) : NULL;
    if (!s || n >= (Py_ssize_t)sizeof formats[code]) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "register: a dtype's struct format must be a str of 1-3 chars or None");
        return -1;
    }
    memcpy(formats[code], s, (size_t)n + 1);
    if (sizeof(long) == 8 && (strcmp(s, "q") == 0 || strcmp(s, "Q") == 0))
        formats[code][0] = s[0] == 'q' ? 'l' : 'L'; /* NumPy's names for int64/uint64 on LP64 */
    return 0;
}

/* Refusals every export shares: device memory, a writable request for
 * read-only bytes. Returns 0, or -1 with BufferError set. */
static int check_access(StorageObject *st, int flags)
{
    if (!PyObject_IsTrue(st->host)) {
        PyErr_SetString(PyExc_BufferError, "this storage is not host memory: pytensor exports only host bytes "
                                           "through the buffer protocol (use DLPack for device memory)");
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && (lt_storage_flags(st->s) & LT_STORAGE_READONLY)) {
        PyErr_SetString(PyExc_BufferError, "the storage is read-only (bytes, a read-only array or file, an object "
                                           "store's memory): ask for a read-only buffer, or .clone() it to write");
        return -1;
    }
    return 0;
}

/* The contiguity the request asks for, checked on the filled view (C, F or
 * either; a request without strides needs C). Returns 0, or -1 with
 * BufferError. */
static int check_contiguity(Py_buffer *view, int flags)
{
    char want = 0;
    if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS)
        want = 'A';
    else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS)
        want = 'F';
    else if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS || (flags & PyBUF_STRIDES) != PyBUF_STRIDES)
        want = 'C';
    if (!want || PyBuffer_IsContiguous(view, want))
        return 0;
    PyErr_Format(PyExc_BufferError, "the tensor is not %s-contiguous (shape and strides say so), and the consumer "
                 "asked for %s-contiguous memory: export .contiguous() instead",
                 want == 'F' ? "Fortran" : want == 'A' ? "C- or Fortran" : "C",
                 want == 'F' ? "Fortran" : want == 'A' ? "C- or Fortran" : "C");
    return -1;
}

static void drop_state(export_state *state)
{
    lt_storage_release(state->bytes);
    Py_DECREF(state->storage);
    free(state);
}

/* Fills view from a filled layout: buf, len, itemsize, format, ndim, and
 * shape/strides from state->dims; then drops what the request did not ask
 * for and counts the export. Steals state (freed on failure). */
static int finish(Py_buffer *view, PyObject *exporter, export_state *state, char *buf, Py_ssize_t len,
                  Py_ssize_t itemsize, const char *format, int ndim, int readonly, int flags)
{
    view->buf = buf;
    view->obj = NULL;
    view->len = len;
    view->itemsize = itemsize;
    view->readonly = readonly;
    view->ndim = ndim;
    view->format = (char *)format;
    view->shape = ndim ? state->dims : NULL;
    view->strides = ndim ? state->dims + ndim : NULL;
    view->suboffsets = NULL;
    view->internal = state;
    if (check_contiguity(view, flags) != 0) {
        drop_state(state);
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES)
        view->strides = NULL;
    if ((flags & PyBUF_ND) != PyBUF_ND) {
        view->shape = NULL;
        view->ndim = 1; /* a simple request: a flat run of len bytes */
    }
    if ((flags & PyBUF_FORMAT) != PyBUF_FORMAT)
        view->format = NULL;
    Py_INCREF(exporter);
    view->obj = exporter;
    ((StorageObject *)state->storage)->exports++;
    live_exports++;
    return 0;
}

static export_state *new_state(PyObject *storage, int ndim)
{
    export_state *state = malloc(sizeof *state + 2 * (size_t)ndim * sizeof(Py_ssize_t));
    if (!state) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(storage);
    state->storage = storage;
    state->bytes = ((StorageObject *)storage)->s;
    lt_storage_retain(state->bytes);
    return state;
}

int pyt_storage_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    StorageObject *st = (StorageObject *)self;
    if (check_access(st, flags) != 0)
        return -1;
    export_state *state = new_state(self, 1);
    if (!state)
        return -1;
    size_t nbytes = lt_storage_nbytes(st->s);
    char *data = lt_storage_data(st->s);
    state->dims[0] = (Py_ssize_t)nbytes;
    state->dims[1] = 1;
    int readonly = (lt_storage_flags(st->s) & LT_STORAGE_READONLY) != 0;
    return finish(view, self, state, data ? data : empty_bytes, (Py_ssize_t)nbytes, 1, "B", 1, readonly, flags);
}

/* The tensor's shape and byte strides into a new (*out)->dims; its ndim, or
 * -1 with an exception. */
static int tensor_layout(export_state **out, TensorObject *t, Py_ssize_t itemsize, int64_t *byte_offset)
{
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (nd < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != nd)
        return -1;
    int ndim = (int)nd; /* LT_MAX_NDIM == PyBUF_MAX_NDIM == 64 */
    int64_t offset = PyLong_AsLongLong(t->offset);
    if (offset == -1 && PyErr_Occurred())
        return -1;
    export_state *state = new_state(t->storage, ndim);
    if (!state)
        return -1;
    for (int i = 0; i < ndim; i++) {
        int64_t b;
        /* Views are extent-checked when made, but a zero-size one may carry any stride. */
        if (__builtin_mul_overflow(strides[i], (int64_t)itemsize, &b) || b != (Py_ssize_t)b) {
            drop_state(state);
            PyErr_Format(PyExc_BufferError, "stride %lld of dimension %d times itemsize %zd overflows a byte "
                         "stride", (long long)strides[i], i, itemsize);
            return -1;
        }
        state->dims[i] = (Py_ssize_t)shape[i];
        state->dims[ndim + i] = (Py_ssize_t)b;
    }
    *byte_offset = offset * (int64_t)itemsize; /* in range: the view lies inside its storage */
    *out = state;
    return ndim;
}

int pyt_tensor_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    TensorObject *t = (TensorObject *)self;
    StorageObject *st = (StorageObject *)t->storage;
    int code = pyt_dtype_code_of(t->dtype);
    if (code < 0) {
        PyErr_SetString(PyExc_BufferError, "the tensor's dtype is not a pytensor dtype");
        return -1;
    }
    if (check_access(st, flags) != 0)
        return -1;
    if (t->bits) { /* the bytes are not the values: a consumer would read them unconjugated / unnegated */
        PyErr_Format(PyExc_BufferError, "Can't export a tensor with the %s bit set through the buffer protocol: its "
                     "bytes are not its values; export t.resolve_conj().resolve_neg()",
                     (t->bits & PYT_BIT_CONJ) ? "conjugate" : "negative");
        return -1;
    }
    if (t->requires_grad == Py_True) { /* a consumer could read or write the graph's memory behind autograd */
        PyErr_SetString(PyExc_BufferError, "the tensor requires grad: its memory is not exported behind "
                                           "autograd's back (as numpy() refuses it); export t.detach()");
        return -1;
    }
    Py_ssize_t itemsize = (Py_ssize_t)lt_dtype_itemsize((lt_dtype)code);
    int raw = formats[code][0] == '\0';
    if (raw && (flags & (PyBUF_FORMAT | PyBUF_ND)) != 0) {
        PyObject *name = PyObject_GetAttrString(t->dtype, "name");
        if (name)
            PyErr_Format(PyExc_BufferError, "pytensor.%U has no struct format character, so a consumer that asks "
                         "for the format or shape (memoryview, bytes(), NumPy) cannot be told what its %zd-byte "
                         "elements are: export t.view(pytensor.uint8) for the bytes with a shape (f.write and "
                         "socket.send take a contiguous tensor's raw bytes as they are)", name, itemsize);
        Py_XDECREF(name);
        return -1;
    }
    export_state *state;
    int64_t byte_offset;
    int ndim = tensor_layout(&state, t, itemsize, &byte_offset);
    if (ndim < 0)
        return -1;
    Py_ssize_t len = itemsize;
    for (int i = 0; i < ndim; i++)
        len *= state->dims[i]; /* numel * itemsize fits: the storage holds it, or it is 0 */
    char *data = lt_storage_data(st->s);
    char *buf = data ? data + byte_offset : empty_bytes;
    int readonly = (lt_storage_flags(st->s) & LT_STORAGE_READONLY) != 0;
    if (finish(view, self, state, buf, len, itemsize, formats[code], ndim, readonly, flags) != 0)
        return -1;
    if (raw) /* only a simple request gets here: a flat run of bytes */
        view->itemsize = 1;
    return 0;
}

void pyt_buffer_release(PyObject *self, Py_buffer *view)
{
    (void)self;
    export_state *state = view->internal;
    if (!state)
        return;
    ((StorageObject *)state->storage)->exports--;
    live_exports--;
    drop_state(state);
    view->internal = NULL;
}

/* buffer_exports() -> the number of buffer exports alive in this process. */
PyObject *pyt_buffer_exports(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSsize_t(live_exports);
}
