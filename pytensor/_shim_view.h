/* _shim_view.h: view()/reshape()'s common case in C (included once, by
 * _shim.c, after _shim_types.h).
 *
 * Shape inference and torch's stride computation are a few dozen integer
 * operations; in Python they cost three times torch's whole reshape. As in
 * _shim_share.h, anything unusual (a non-int size, a bad shape, a layout
 * that needs a copy, products beyond int64) returns None and the Python
 * method takes over with its errors and its copy. */

/* Reads the sizes of reshape(*args): ints, or one tuple/list of ints.
 * Returns the count, or -1 when the arguments are not plain ints. */
static Py_ssize_t read_sizes(PyObject *args, int64_t *out)
{
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *seq = args;
    if (n == 1) {
        PyObject *a = PyTuple_GetItem(args, 0);
        if (PyTuple_Check(a) || PyList_Check(a)) {
            seq = a;
            n = PySequence_Size(a);
        }
    }
    if (n < 0 || n > LT_MAX_NDIM)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_Check(seq) ? PyTuple_GetItem(seq, i) : PyList_GetItem(seq, i);
        if (!x || !PyLong_CheckExact(x))
            return -1;
        int overflow = 0;
        out[i] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (out[i] == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
    }
    return n;
}

/* torch's computeStride: strides that express new_shape over the elements of
 * (old_shape, old_strides) without a copy. Returns 0 when none exist. */
static int view_strides(const int64_t *old_shape, const int64_t *old_strides, Py_ssize_t old_nd,
                        int64_t old_numel, const int64_t *new_shape, Py_ssize_t new_nd, int64_t *new_strides)
{
    if (old_numel == 0 && old_nd == new_nd && memcmp(old_shape, new_shape, (size_t)new_nd * 8) == 0) {
        memcpy(new_strides, old_strides, (size_t)new_nd * 8); /* torch keeps an unchanged empty shape's strides */
        return 1;
    }
    if (old_numel == 0 || old_nd == 0) { /* row-major, extent-0 dims counted as 1 */
        int64_t acc = 1;
        for (Py_ssize_t d = new_nd - 1; d >= 0; d--) {
            new_strides[d] = acc;
            acc *= new_shape[d] > 1 ? new_shape[d] : 1;
        }
        return 1;
    }
    /* Old dims fall into chunks contiguous among themselves; each chunk is
     * split across the new dims that consume exactly its elements. */
    Py_ssize_t view_d = new_nd - 1;
    int64_t chunk_base_stride = old_strides[old_nd - 1], tensor_numel = 1, view_numel = 1;
    for (Py_ssize_t d = old_nd - 1; d >= 0; d--) {
        tensor_numel *= old_shape[d];
        if (d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return 0;
            if (d > 0) {
                chunk_base_stride = old_strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* reshape_view(tensor, args[, op]) -> a view of tensor with the sizes in
 * args, recorded as op (PROV_VIEW or PROV_RESHAPE, the default) with args,
 * or None (see above). */
static PyObject *reshape_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : nargs == 2 ? PROV_RESHAPE : -1;
    if ((op != PROV_VIEW && op != PROV_RESHAPE) || !tensor_cls || !PyObject_TypeCheck(args[0], tensor_cls) ||
        !PyTuple_Check(args[1])) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    TensorObject *t = (TensorObject *)args[0];
    int64_t old_shape[LT_MAX_NDIM], old_strides[LT_MAX_NDIM], shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t old_nd = int64_tuple(t->shape, old_shape, LT_MAX_NDIM), nd = read_sizes(args[1], shape);
    if (old_nd < 0 || nd < 0 || int64_tuple(t->strides, old_strides, LT_MAX_NDIM) != old_nd) {
        PyErr_Clear(); /* fields a caller replaced with something odd: the Python path decides */
        Py_RETURN_NONE;
    }
    int64_t numel = 1, rest = 1;
    Py_ssize_t infer = -1;
    for (Py_ssize_t i = 0; i < old_nd; i++)
        if (old_shape[i] < 0 || __builtin_mul_overflow(numel, old_shape[i], &numel))
            Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < nd; i++) {
        if (shape[i] == -1 && infer < 0)
            infer = i;
        else if (shape[i] < 0 || __builtin_mul_overflow(rest, shape[i], &rest))
            Py_RETURN_NONE; /* a second -1, a negative size or an overflow: Python's error */
    }
    if (infer >= 0) {
        if (rest == 0 || numel % rest)
            Py_RETURN_NONE;
        shape[infer] = numel / rest;
    } else if (rest != numel)
        Py_RETURN_NONE;
    if (!view_strides(old_shape, old_strides, old_nd, numel, shape, nd, strides))
        Py_RETURN_NONE; /* needs a copy */
    Py_INCREF(t->storage);
    Py_INCREF(t->dtype);
    Py_INCREF(t->offset);
    PyObject *out = tensor_steal(t->storage, t->dtype, int_tuple(shape, nd), int_tuple(strides, nd), t->offset);
    return prov_fresh(out, (int)op, args[1], args[0]);
}

/* A copy of tuple tup with item 0 replaced by first (stolen) or, when first
 * is NULL, dropped. */
static PyObject *tuple_head(PyObject *tup, PyObject *first)
{
    Py_ssize_t n = PyTuple_Size(tup), skip = first ? 0 : 1;
    PyObject *out = PyTuple_New(n - skip);
    if (!out) {
        Py_XDECREF(first);
        return NULL;
    }
    if (first)
        PyTuple_SetItem(out, 0, first);
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *x = PyTuple_GetItem(tup, i);
        Py_INCREF(x);
        PyTuple_SetItem(out, i - skip, x);
    }
    return out;
}

/* The fields of a slice object: the layout CPython has always had (the
 * limited API hides it; reading it is the only way to check a slice's
 * members without three attribute lookups). */
typedef struct {
    PyObject_HEAD
    PyObject *start, *stop, *step;
} slice_fields;

static int plain_slice_member(PyObject *x) { return x == Py_None || PyLong_CheckExact(x); }

/* The index key to record for t[index] (borrowed; NULL records none): the
 * fast path's ints, and its slices when they hold ints and None only. A
 * slice holding anything else (an object with __index__, say a 0-d tensor,
 * which would keep its storage alive) is recorded without its key. */
static PyObject *prov_index_key(PyObject *index)
{
    if (PyLong_CheckExact(index))
        return index;
    slice_fields *sl = (slice_fields *)index;
    if (plain_slice_member(sl->start) && plain_slice_member(sl->stop) && plain_slice_member(sl->step))
        return index;
    return NULL;
}

/* t[index] (the Tensor's subscript slot). t[i] and t[a:b:c] with step > 0,
 * on dim 0 of a tensor that does not require grad, are views built here
 * (torch: about 0.7-1 us; here a fifth of that). Every other index, an index
 * out of range and a tensor in an autograd graph go to the Python method
 * Tensor._getitem (wrapped by autograd), which has the general indexer and
 * torch's errors. */
static PyObject *tensor_subscript(PyObject *self, PyObject *index)
{
    static PyObject *slow_name;
    TensorObject *t = (TensorObject *)self;
    int64_t n = 0, s0 = 0, off = 0, start = -1, step = 1, len = 0;
    int fast = t->requires_grad == Py_False && PyTuple_Check(t->shape) && PyTuple_Size(t->shape) > 0;
    if (fast) {
        n = PyLong_AsLongLong(PyTuple_GetItem(t->shape, 0));
        s0 = PyLong_AsLongLong(PyTuple_GetItem(t->strides, 0));
        off = PyLong_AsLongLong(t->offset);
        fast = !PyErr_Occurred();
    }
    if (fast && PyLong_CheckExact(index)) {
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(index, &overflow);
        if (!overflow && i >= -n && i < n) {
            start = i < 0 ? i + n : i;
            len = -1; /* select: drop dim 0 */
        }
    } else if (fast && PySlice_Check(index)) {
        Py_ssize_t a, b, c;
        if (PySlice_Unpack(index, &a, &b, &c) == 0 && c > 0) {
            len = PySlice_AdjustIndices((Py_ssize_t)n, &a, &b, c);
            start = a;
            step = c;
        }
    }
    PyErr_Clear(); /* whatever the fast path could not read, the Python path reports */
    int64_t new_off, new_s0;
    if (start >= 0 && !__builtin_mul_overflow(start, s0, &new_off) && !__builtin_add_overflow(new_off, off, &new_off) &&
        !__builtin_mul_overflow(s0, step, &new_s0)) {
        PyObject *shape, *strides;
        if (len < 0) {
            shape = tuple_head(t->shape, NULL);
            strides = tuple_head(t->strides, NULL);
        } else {
            shape = tuple_head(t->shape, PyLong_FromLongLong(len));
            strides = tuple_head(t->strides, PyLong_FromLongLong(new_s0));
        }
        Py_INCREF(t->storage);
        Py_INCREF(t->dtype);
        PyObject *out = tensor_steal(t->storage, t->dtype, shape, strides, PyLong_FromLongLong(new_off));
        return prov_fresh(out, PROV_INDEX, prov_index_key(index), self);
    }
    if (!slow_name && !(slow_name = PyUnicode_InternFromString("_getitem")))
        return NULL;
    return PyObject_CallMethodObjArgs(self, slow_name, index, NULL);
}

#define SHIM_VIEW_METHODS \
    {"reshape_view", (PyCFunction)(void (*)(void))reshape_view, METH_FASTCALL, "view/reshape's common case."},
