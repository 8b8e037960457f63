/* _shim_view.c: view()/reshape()'s common case, and t[i] / t[a:b:c] on dim 0
 * (the Tensor's subscript slot).
 *
 * The shape and stride rules are libtensor's (lt_layout_*): this file reads
 * the arguments, asks libtensor, raises its refusals and builds the view in
 * one allocation, for a third of what the same work costs in Python. Only
 * sizes that are not plain ints (an __index__ object, a dtype) go back to
 * the Python method, which normalizes them and calls reshape_view again. */
#include <string.h>

#include "_shim.h"

/* Reads the sizes of reshape(*args): ints, or one tuple/list of ints.
 * Returns the count; -1 when the arguments are not plain ints within int64;
 * -2 with an exception for more sizes than libtensor holds. */
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
    if (n > LT_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "%zd dimensions exceed the maximum of %d", n, LT_MAX_NDIM);
        return -2;
    }
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

static const char VIEW_NEEDS_COPY[] = "view size is not compatible with input tensor's size and stride (at least "
                                      "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                                      "instead.";

/* reshape_view(tensor, args, op) -> tensor.view(*args) (op PROV_VIEW) or
 * tensor.reshape(*args) (op PROV_RESHAPE), recorded as op with args. The
 * shape rules are libtensor's (lt_layout_infer_shape, lt_layout_view_strides)
 * and their refusals are raised here; view raises torch's error where no
 * strides express the shape, and reshape copies then (contiguous().view()).
 * None only for sizes that are not plain ints within int64 (Tensor.view
 * normalizes __index__ objects and calls again; a dtype argument is
 * view(dtype)). */
static PyObject *reshape_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : -1;
    if ((op != PROV_VIEW && op != PROV_RESHAPE) || !pyt_is_tensor(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "reshape_view(tensor, sizes: tuple, op: view or reshape)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    int64_t old_shape[LT_MAX_NDIM], old_strides[LT_MAX_NDIM], shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], numel;
    Py_ssize_t nd = read_sizes(args[1], shape);
    if (nd < 0) {
        if (nd == -2)
            return NULL;
        Py_RETURN_NONE;
    }
    Py_ssize_t old_nd = pyt_int64_tuple(t->shape, old_shape, LT_MAX_NDIM);
    if (old_nd < 0 || pyt_int64_tuple(t->strides, old_strides, LT_MAX_NDIM) != old_nd) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "the tensor's shape and strides differ in length");
        return NULL;
    }
    int viewable = 0;
    lt_status rc = lt_layout_numel(&numel, (int32_t)old_nd, old_shape);
    if (rc == LT_OK)
        rc = lt_layout_infer_shape(shape, (int32_t)nd, shape, numel);
    if (rc == LT_OK)
        rc = lt_layout_view_strides(strides, &viewable, (int32_t)old_nd, old_shape, old_strides, (int32_t)nd, shape);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    if (!viewable) {
        if (op == PROV_VIEW) {
            PyErr_SetString(PyExc_RuntimeError, VIEW_NEEDS_COPY);
            return NULL;
        }
        /* reshape copies: the public contiguous() and view(), with their autograd records */
        PyObject *sizes = pyt_int_tuple(shape, nd);
        PyObject *copy = sizes ? PyObject_CallMethod(args[0], "contiguous", NULL) : NULL;
        PyObject *out = copy ? PyObject_CallMethod(copy, "view", "(O)", sizes) : NULL;
        Py_XDECREF(sizes);
        Py_XDECREF(copy);
        return out;
    }
    Py_INCREF(t->offset);
    PyObject *out = pyt_view_steal(t, pyt_int_tuple(shape, nd), pyt_int_tuple(strides, nd), t->offset);
    return pyt_prov_fresh(out, (int)op, args[1], args[0]);
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
PyObject *pyt_tensor_subscript(PyObject *self, PyObject *index)
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
        PyObject *out = pyt_view_steal(t, shape, strides, PyLong_FromLongLong(new_off));
        return pyt_prov_fresh(out, PROV_INDEX, prov_index_key(index), self);
    }
    if (!slow_name && !(slow_name = PyUnicode_InternFromString("_getitem")))
        return NULL;
    return PyObject_CallMethodObjArgs(self, slow_name, index, NULL);
}

PyMethodDef pyt_view_methods[] = {
    {"reshape_view", (PyCFunction)(void (*)(void))reshape_view, METH_FASTCALL, "view/reshape's common case."},
    {NULL, NULL, 0, NULL},
};
