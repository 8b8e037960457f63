/* _shim_view.c: view()/reshape()'s common case, t[index] for basic
 * indices: ints, slices, None, ... (the Tensor's subscript slot), and the
 * common cases of the other views: select, narrow, diagonal, as_strided,
 * unfold, unflatten, squeeze, and unbind/split/chunk/iteration in one call.
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
        /* reshape copies: contiguous() and view(). Outside a graph both are the C paths their public
         * methods take (the same records); in one, the public methods, with their autograd records. */
        PyObject *sizes = pyt_int_tuple(shape, nd);
        if (!sizes)
            return NULL;
        if (t->requires_grad == Py_False) {
            PyObject *copy = pyt_contiguous_copy(args[0]);
            if (copy && copy != Py_None) {
                PyObject *view_op = PyLong_FromLong(PROV_VIEW), *view_args = PyTuple_Pack(1, sizes), *out = NULL;
                if (view_op && view_args) {
                    PyObject *const inner[3] = {copy, view_args, view_op};
                    out = reshape_view(NULL, inner, 3);
                }
                Py_XDECREF(view_op);
                Py_XDECREF(view_args);
                Py_DECREF(copy);
                Py_DECREF(sizes);
                return out;
            }
            Py_XDECREF(copy);
            if (!copy) {
                Py_DECREF(sizes);
                return NULL;
            }
        }
        PyObject *copy = PyObject_CallMethod(args[0], "contiguous", NULL);
        PyObject *out = copy ? PyObject_CallMethod(copy, "view", "(O)", sizes) : NULL;
        Py_XDECREF(sizes);
        Py_XDECREF(copy);
        return out;
    }
    Py_INCREF(t->offset);
    PyObject *out = pyt_view_steal(t, pyt_int_tuple(shape, nd), pyt_int_tuple(strides, nd), t->offset);
    return pyt_prov_fresh(out, (int)op, args[1], args[0]);
}

/* The fields of a slice object: the layout CPython has always had (the
 * limited API hides it; reading it is the only way to check a slice's
 * members without three attribute lookups). */
typedef struct {
    PyObject_HEAD
    PyObject *start, *stop, *step;
} slice_fields;

static int plain_slice_member(PyObject *x) { return x == Py_None || PyLong_CheckExact(x); }

/* The view t[index] for a basic index whose every item is a plain int, a
 * slice of plain ints and None with a positive step, None or one Ellipsis
 * (t[i], t[a:b], t[:, a:b], t[..., i], t[None]): NULL without an exception
 * to decline anything else (the Python path has the general indexer and
 * torch's errors, an index out of range among them). The steps are the
 * Python path's (_indexing._apply): items applied left to right, an int a
 * select, a slice a narrowed and strided dim, None libtensor's unsqueeze. */
static PyObject *basic_view(TensorObject *t, PyObject *index)
{
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], out_shape[LT_MAX_NDIM + 1], out_strides[LT_MAX_NDIM + 1];
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (nd < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != nd)
        return NULL;
    int is_tuple = PyTuple_CheckExact(index);
    Py_ssize_t count = is_tuple ? PyTuple_Size(index) : 1, used = 0, ellipses = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = is_tuple ? PyTuple_GetItem(index, k) : index;
        if (PyLong_CheckExact(item))
            used++;
        else if (PySlice_Check(item)) {
            slice_fields *sl = (slice_fields *)item;
            if (!(plain_slice_member(sl->start) && plain_slice_member(sl->stop) && plain_slice_member(sl->step)))
                return NULL;
            used++;
        } else if (item == Py_Ellipsis)
            ellipses++;
        else if (item != Py_None)
            return NULL;
    }
    if (ellipses > 1 || used > nd)
        return NULL;
    int64_t off = PyLong_AsLongLong(t->offset);
    if (off == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t src = 0, out = 0; /* the next dim of t to index; dims of the result so far */
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = is_tuple ? PyTuple_GetItem(index, k) : index;
        if (item == Py_Ellipsis) {
            for (Py_ssize_t e = 0; e < nd - used; e++, src++, out++) {
                out_shape[out] = shape[src];
                out_strides[out] = strides[src];
            }
        } else if (item == Py_None) {
            /* unsqueeze(out) of the view as it stands: the result so far, then t's dims not yet indexed */
            int64_t cur_shape[LT_MAX_NDIM], cur_strides[LT_MAX_NDIM + 1];
            Py_ssize_t cur = out + (nd - src);
            if (cur >= LT_MAX_NDIM)
                return NULL;
            memcpy(cur_shape, out_shape, sizeof(int64_t) * (size_t)out);
            memcpy(cur_strides, out_strides, sizeof(int64_t) * (size_t)out);
            memcpy(cur_shape + out, shape + src, sizeof(int64_t) * (size_t)(nd - src));
            memcpy(cur_strides + out, strides + src, sizeof(int64_t) * (size_t)(nd - src));
            if (lt_layout_unsqueeze_strides(cur_strides, (int32_t)cur, cur_shape, cur_strides, (int32_t)out) != LT_OK)
                return NULL;
            out_shape[out] = 1;
            out_strides[out] = cur_strides[out];
            out++;
        } else if (PyLong_CheckExact(item)) {
            int overflow = 0;
            long long i = PyLong_AsLongLongAndOverflow(item, &overflow);
            int64_t unused;
            if (overflow || i < -shape[src] || i >= shape[src])
                return NULL;
            if (i < 0)
                i += shape[src];
            /* libtensor's select rule along this dim alone: the dim goes, element 0 moves i steps */
            if (lt_layout_select(&unused, &unused, &off, 1, &shape[src], &strides[src], off, 0, (int64_t)i) != LT_OK)
                return NULL;
            src++;
        } else { /* a slice */
            Py_ssize_t a, b, c;
            int64_t len, step, new_stride;
            if (PySlice_Unpack(item, &a, &b, &c) != 0 || c <= 0)
                return NULL;
            len = PySlice_AdjustIndices((Py_ssize_t)shape[src], &a, &b, c);
            if (__builtin_mul_overflow((int64_t)a, strides[src], &step) || __builtin_add_overflow(off, step, &off) ||
                __builtin_mul_overflow(strides[src], (int64_t)c, &new_stride))
                return NULL;
            out_shape[out] = len;
            out_strides[out] = new_stride;
            out++;
            src++;
        }
        if (out > LT_MAX_NDIM)
            return NULL;
    }
    for (; src < nd; src++, out++) {
        if (out >= LT_MAX_NDIM)
            return NULL;
        out_shape[out] = shape[src];
        out_strides[out] = strides[src];
    }
    PyObject *view = pyt_view_steal(t, pyt_int_tuple(out_shape, out), pyt_int_tuple(out_strides, out),
                                    PyLong_FromLongLong(off));
    return pyt_prov_fresh(view, PROV_INDEX, index, (PyObject *)t);
}

/* t[index] (the Tensor's subscript slot). Basic indices (ints, slices with
 * a positive step, None, one Ellipsis; basic_view) on a tensor that does
 * not require grad are views built here (torch: about 0.7-1.3 us; here a
 * fifth to a third of that). Every other index, an index out of range and
 * a tensor in an autograd graph go to the Python method Tensor._getitem
 * (wrapped by autograd), which has the general indexer and torch's errors. */
PyObject *pyt_tensor_subscript(PyObject *self, PyObject *index)
{
    static PyObject *slow_name;
    TensorObject *t = (TensorObject *)self;
    if (t->requires_grad == Py_False) {
        PyObject *out = basic_view(t, index);
        if (out)
            return out;
        PyErr_Clear(); /* whatever the fast path could not read, the Python path reports */
    }
    if (!slow_name && !(slow_name = PyUnicode_InternFromString("_getitem")))
        return NULL;
    return PyObject_CallMethodObjArgs(self, slow_name, index, NULL);
}

/* ------------------------------------------------------------ many views in one call: unbind, split, chunk, iteration */

/* The shape and strides of t as arrays, and its offset: 1, or 0 with an exception. */
static int read_layout(TensorObject *t, int64_t *shape, int64_t *strides, Py_ssize_t *nd, int64_t *off)
{
    *nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (*nd < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != *nd) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "the tensor's shape and strides differ in length");
        return 0;
    }
    *off = PyLong_AsLongLong(t->offset);
    return !(*off == -1 && PyErr_Occurred());
}

/* The tensor of a call name(t, ...) of want arguments, or NULL with the
 * TypeError that names the signature (usage): the check every function
 * below starts with. */
static TensorObject *tensor_call(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *usage)
{
    if (nargs == want && pyt_is_tensor(args[0]))
        return (TensorObject *)args[0];
    PyErr_SetString(PyExc_TypeError, usage);
    return NULL;
}

/* n arguments that are plain ints within int64 into out: 1, or 0 (no
 * exception: the fast path declines) for anything else, a bool included. */
static int plain_int64_args(PyObject *const *args, Py_ssize_t n, int64_t *out)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        int overflow = 0;
        if (!PyLong_CheckExact(args[k]))
            return 0;
        out[k] = PyLong_AsLongLongAndOverflow(args[k], &overflow);
        if (overflow || (out[k] == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* A call f(t, i, j[, k]) of a fast path whose arguments after t are ints:
 * t, its layout (room for one more dim) and the ints. */
typedef struct {
    TensorObject *t;
    int64_t shape[LT_MAX_NDIM + 1], strides[LT_MAX_NDIM + 1], off, v[3];
    Py_ssize_t nd;
} int_call;

/* Reads such a call of 1 + nv arguments: 1; 0 to decline (an argument that
 * is not a plain int within int64, t's layout unreadable; no exception);
 * -1 with the TypeError naming usage when t is not a Tensor. */
static int read_int_call(int_call *c, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t nv, const char *usage)
{
    if (!(c->t = tensor_call(args, nargs, 1 + nv, usage)))
        return -1;
    if (plain_int64_args(args + 1, nv, c->v) && read_layout(c->t, c->shape, c->strides, &c->nd, &c->off))
        return 1;
    PyErr_Clear();
    return 0;
}

/* The view of c->t with nd dims of c's shape and strides at offset c->off,
 * recorded as op with arg (stolen; NULL after a failed PyTuple_Pack gives
 * NULL) from c->t. */
static PyObject *view_with(int_call *c, Py_ssize_t nd, int op, PyObject *arg)
{
    if (!arg)
        return NULL;
    PyObject *view = pyt_view_steal(c->t, pyt_int_tuple(c->shape, nd), pyt_int_tuple(c->strides, nd),
                                    PyLong_FromLongLong(c->off));
    view = pyt_prov_fresh(view, op, arg, (PyObject *)c->t);
    Py_DECREF(arg);
    return view;
}

/* dim v of a tensor of nd dims (nd >= 1), wrapped into *d: 1, or 0 when v
 * is outside [-nd, nd) (the fast path declines: Python raises torch's error). */
static int wrapped_dim(int64_t v, Py_ssize_t nd, int32_t *d)
{
    if (nd < 1 || v < -nd || v >= nd)
        return 0;
    *d = (int32_t)(v < 0 ? v + nd : v);
    return 1;
}

/* The int fast path path(c, args) run on a call read by read_int_call:
 * its answer, None when declined, NULL with an exception. */
typedef PyObject *(*int_path)(int_call *c, PyObject *const *args);
static PyObject *run_int_call(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t nv, const char *usage, int_path path)
{
    int_call c;
    int r = read_int_call(&c, args, nargs, nv, usage);
    return r < 0 ? NULL : r == 0 ? Py_NewRef(Py_None) : path(&c, args);
}

/* select_view(t, dim, index) -> Tensor or None: t.select(dim, index) for
 * plain ints, dim and index in range (negative ones wrapped), by
 * libtensor's rule (lt_layout_select), recorded with (dim, index) as
 * given, as Views.select records it. None for the rest: the Python path
 * normalizes and raises torch's errors, then asks the same rule. */
static PyObject *select_in(int_call *c, PyObject *const *args)
{
    int32_t d;
    if (!wrapped_dim(c->v[0], c->nd, &d))
        Py_RETURN_NONE;
    int64_t index = c->v[1] < 0 ? c->v[1] + c->shape[d] : c->v[1];
    if (index < 0 || index >= c->shape[d])
        Py_RETURN_NONE;
    lt_status rc = lt_layout_select(c->shape, c->strides, &c->off, (int32_t)c->nd, c->shape, c->strides, c->off, d,
                                    index);
    return rc != LT_OK ? pyt_raise_last(rc) : view_with(c, c->nd - 1, PROV_SELECT, PyTuple_Pack(2, args[1], args[2]));
}

static PyObject *select_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_int_call(args, nargs, 2, "select_view(t: Tensor, dim, index)", select_in);
}

/* narrow_view(t, dim, start, length) -> Tensor or None: t.narrow(dim,
 * start, length) for plain ints that Views.narrow accepts (dim in range,
 * -size <= start <= size, length >= 0 within the rest), by libtensor's
 * rule (lt_layout_narrow), recorded with (dim, start wrapped, length) as
 * Views.narrow records it. None for the rest (Python's errors). */
static PyObject *narrow_in(int_call *c, PyObject *const *args)
{
    int32_t d;
    if (!wrapped_dim(c->v[0], c->nd, &d))
        Py_RETURN_NONE;
    int64_t size = c->shape[d], start = c->v[1] < 0 ? c->v[1] + size : c->v[1], length = c->v[2];
    if (c->v[1] < -size || start > size || length < 0 || length > size - start)
        Py_RETURN_NONE;
    lt_status rc = lt_layout_narrow(c->shape, &c->off, (int32_t)c->nd, c->shape, c->strides, c->off, d, start, length);
    return rc != LT_OK ? pyt_raise_last(rc)
                       : view_with(c, c->nd, PROV_NARROW, Py_BuildValue("(OLO)", args[1], (long long)start, args[3]));
}

static PyObject *narrow_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_int_call(args, nargs, 3, "narrow_view(t: Tensor, dim, start, length)", narrow_in);
}

/* select_views(t, d, dim_arg) -> tuple: t.select(d, i) for every i along
 * dim d (already wrapped: 0 <= d < t.dim()), each by libtensor's rule
 * (lt_layout_select) and recorded with (dim_arg, i), as Views.select
 * records it: unbind() and iteration, whose Python path makes one select
 * per element. The views share one shape and one strides tuple (tuples are
 * immutable; resize_ replaces them). */
static PyObject *select_views(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !pyt_is_tensor(args[0]) || !PyLong_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "select_views(t: Tensor, d: int, dim_arg)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], out_shape[LT_MAX_NDIM], out_strides[LT_MAX_NDIM], off;
    Py_ssize_t nd;
    if (!read_layout(t, shape, strides, &nd, &off))
        return NULL;
    long d = PyLong_AsLong(args[1]);
    if (d < 0 || d >= nd) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "select_views: dim %ld is not one of the tensor's %zd", d, nd);
        return NULL;
    }
    int64_t count = shape[d];
    PyObject *out = PyTuple_New((Py_ssize_t)count), *shape_t = NULL, *strides_t = NULL;
    if (!out)
        return NULL;
    /* The first select gives every view's shape and strides; each offset is
     * then the select of i along dim d alone (a 1-d layout: the same rule,
     * without re-reading the other dims for every element). */
    int64_t along_shape = count, along_stride = strides[d], unused;
    for (int64_t i = 0; i < count; i++) {
        int64_t at;
        lt_status rc = i ? lt_layout_select(&unused, &unused, &at, 1, &along_shape, &along_stride, off, 0, i)
                         : lt_layout_select(out_shape, out_strides, &at, (int32_t)nd, shape, strides, off, (int32_t)d,
                                            0);
        if (rc != LT_OK) {
            pyt_raise_last(rc);
            goto fail;
        }
        if (!shape_t && (!(shape_t = pyt_int_tuple(out_shape, nd - 1)) ||
                         !(strides_t = pyt_int_tuple(out_strides, nd - 1))))
            goto fail;
        PyObject *index = PyLong_FromLongLong(i);
        PyObject *arg = index ? PyTuple_Pack(2, args[2], index) : NULL;
        Py_XDECREF(index);
        if (!arg)
            goto fail;
        Py_INCREF(shape_t);
        Py_INCREF(strides_t);
        PyObject *view = pyt_prov_fresh(pyt_view_steal(t, shape_t, strides_t, PyLong_FromLongLong(at)), PROV_SELECT,
                                        arg, args[0]);
        Py_DECREF(arg);
        if (!view || PyTuple_SetItem(out, (Py_ssize_t)i, view) != 0)
            goto fail;
    }
    Py_XDECREF(shape_t);
    Py_XDECREF(strides_t);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(shape_t);
    Py_XDECREF(strides_t);
    return NULL;
}

/* The narrows of t along d (wrapped) that run on from 0: count pieces, the
 * k-th lengths[k] long (a tuple of ints) or, without lengths, length long
 * but the last, last long; each by libtensor's rule (lt_layout_narrow),
 * recorded with (d, start, n) as Views.split records it. */
static PyObject *narrows(TensorObject *t, long d, Py_ssize_t count, PyObject *lengths, int64_t length, int64_t last)
{
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], out_shape[LT_MAX_NDIM], off, start = 0;
    Py_ssize_t nd;
    if (!read_layout(t, shape, strides, &nd, &off))
        return NULL;
    if (d < 0 || d >= nd) {
        PyErr_Format(PyExc_ValueError, "narrow_views: dim %ld is not one of the tensor's %zd", d, nd);
        return NULL;
    }
    PyObject *out = PyTuple_New(count), *strides_t = pyt_int_tuple(strides, nd);
    if (!out || !strides_t)
        goto fail;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *n_obj = lengths ? PyTuple_GetItem(lengths, k) : NULL;
        long long n = !lengths ? (k + 1 < count ? length : last)
                               : PyLong_CheckExact(n_obj) ? PyLong_AsLongLong(n_obj) : -1;
        int64_t at;
        if (n == -1 && PyErr_Occurred())
            goto fail;
        lt_status rc = lt_layout_narrow(out_shape, &at, (int32_t)nd, shape, strides, off, (int32_t)d, start, n);
        if (rc != LT_OK) {
            pyt_raise_last(rc);
            goto fail;
        }
        PyObject *arg = n_obj ? Py_BuildValue("(lLO)", d, (long long)start, n_obj)
                              : Py_BuildValue("(lLL)", d, (long long)start, n);
        if (!arg)
            goto fail;
        Py_INCREF(strides_t);
        PyObject *view = pyt_prov_fresh(pyt_view_steal(t, pyt_int_tuple(out_shape, nd), strides_t,
                                                       PyLong_FromLongLong(at)), PROV_NARROW, arg, (PyObject *)t);
        Py_DECREF(arg);
        if (!view || PyTuple_SetItem(out, k, view) != 0)
            goto fail;
        start += (int64_t)n;
    }
    Py_DECREF(strides_t);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(strides_t);
    return NULL;
}

/* narrow_views(t, d, lengths) -> tuple: t.narrow(d, start, n) for each n in
 * lengths (a tuple of ints >= 0 that sum to at most t.shape[d]; d wrapped),
 * the starts running on from 0: split() by a list of sizes in one call.
 * The caller has checked the lengths (Python raises torch's messages);
 * libtensor refuses any that do not fit. */
static PyObject *narrow_views(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !pyt_is_tensor(args[0]) || !PyLong_CheckExact(args[1]) || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "narrow_views(t: Tensor, d: int, lengths: tuple)");
        return NULL;
    }
    long d = PyLong_AsLong(args[1]);
    if (d == -1 && PyErr_Occurred())
        return NULL;
    return narrows((TensorObject *)args[0], d, PyTuple_Size(args[2]), args[2], 0, 0);
}

/* split_views(t, d, n, by_chunks) -> tuple: split(n, d) (by_chunks False)
 * or chunk(n, d) (True) along d (wrapped), the pieces' lengths by
 * libtensor's rules (lt_layout_split_lengths, lt_layout_chunk_lengths) and
 * the views by its narrow rule, in one call. The caller has checked n
 * (Python raises torch's messages); libtensor refuses what it would. */
static PyObject *split_views(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    TensorObject *t = tensor_call(args, nargs, 4, "split_views(t: Tensor, d: int, n: int, by_chunks: bool)");
    int64_t v[2], shape[LT_MAX_NDIM], count, length, last;
    if (!t)
        return NULL;
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (nd < 0)
        return NULL;
    for (int k = 0; k < 2; k++)
        if (!PyLong_Check(args[k + 1]) || ((v[k] = PyLong_AsLongLong(args[k + 1])) == -1 && PyErr_Occurred()))
            return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "split_views: d and n must be ints");
    if (v[0] < 0 || v[0] >= nd)
        return PyErr_Format(PyExc_ValueError, "split_views: dim %lld is not one of the tensor's %zd", (long long)v[0],
                            nd);
    int by_chunks = PyObject_IsTrue(args[3]);
    if (by_chunks < 0)
        return NULL;
    lt_status rc = by_chunks ? lt_layout_chunk_lengths(&count, &length, &last, shape[v[0]], v[1])
                             : lt_layout_split_lengths(&count, &length, &last, shape[v[0]], v[1]);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    if (count > PY_SSIZE_T_MAX)
        return PyErr_NoMemory();
    return narrows(t, (long)v[0], (Py_ssize_t)count, NULL, length, last);
}

/* squeeze_view(t, dim) -> Tensor or None: t.squeeze() (dim None: every
 * extent-1 dimension dropped) or t.squeeze(dim) for a plain int dim in
 * range, recorded with dim as given, as Views.squeeze records it. None for
 * the rest (a tuple of dims, an __index__ object, a dim out of range:
 * Python's rules and errors). */
static PyObject *squeeze_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    TensorObject *t = tensor_call(args, nargs, 2, "squeeze_view(t: Tensor, dim)");
    if (!t)
        return NULL;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], off;
    Py_ssize_t nd, kept = 0;
    if (!read_layout(t, shape, strides, &nd, &off)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    long only = -1; /* the one dim to drop if its extent is 1; -1: every such dim */
    if (args[1] != Py_None) {
        long n = nd > 0 ? (long)nd : 1, d;
        if (!PyLong_CheckExact(args[1]) || ((d = PyLong_AsLong(args[1])) == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        if (d < -n || d >= n)
            Py_RETURN_NONE;
        only = d < 0 ? d + n : d;
    }
    for (Py_ssize_t i = 0; i < nd; i++)
        if (!(shape[i] == 1 && (only < 0 || i == only))) {
            shape[kept] = shape[i];
            strides[kept++] = strides[i];
        }
    Py_INCREF(t->offset);
    PyObject *out = pyt_view_steal(t, pyt_int_tuple(shape, kept), pyt_int_tuple(strides, kept), t->offset);
    return pyt_prov_fresh(out, PROV_SQUEEZE, args[1] == Py_None ? NULL : args[1], args[0]);
}

/* has_shape(t, args) -> bool: whether args, the sizes of a call such as
 * resize_(*args) (plain ints, or one tuple or list of them), are t's shape
 * exactly. False for anything else, including sizes that only compare equal
 * (2.0, True): the caller's Python path normalises or refuses those. */
static PyObject *has_shape(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !pyt_is_tensor(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "has_shape(t: Tensor, sizes: tuple)");
        return NULL;
    }
    int64_t sizes[LT_MAX_NDIM], shape[LT_MAX_NDIM];
    Py_ssize_t n = read_sizes(args[1], sizes);
    if (n == -2)
        PyErr_Clear();
    if (n < 0 || pyt_int64_tuple(((TensorObject *)args[0])->shape, shape, LT_MAX_NDIM) != n) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    return PyBool_FromLong(memcmp(sizes, shape, sizeof(int64_t) * (size_t)n) == 0);
}

/* A tuple or list of plain ints within int64 into out: the count, or -1
 * (declined, no exception) for anything else or more than LT_MAX_NDIM. */
static Py_ssize_t plain_ints(PyObject *seq, int64_t *out)
{
    if (!PyTuple_CheckExact(seq) && !PyList_CheckExact(seq))
        return -1;
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0 || n > LT_MAX_NDIM) {
        PyErr_Clear();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_CheckExact(seq) ? PyTuple_GetItem(seq, i) : PyList_GetItem(seq, i);
        int overflow = 0;
        if (!x || !PyLong_CheckExact(x))
            return -1;
        out[i] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (out[i] == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
    }
    return n;
}

/* as_strided_view(t, size, stride, storage_offset) -> Tensor or None:
 * t.as_strided(size, stride, storage_offset) when size and stride are
 * tuples or lists of plain ints of one length, the strides are not negative,
 * the offset is None (t's own) or a plain int >= 0, and the view lies inside
 * the storage (lt_layout_check); recorded as Views.as_strided records it,
 * (size, stride, offset or None). None for everything else: the Python path
 * raises torch's errors. */
static PyObject *as_strided_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    TensorObject *t = tensor_call(args, nargs, 4, "as_strided_view(t: Tensor, size, stride, storage_offset)");
    if (!t)
        return NULL;
    int64_t size[LT_MAX_NDIM], stride[LT_MAX_NDIM], off;
    Py_ssize_t n = plain_ints(args[1], size);
    if (n < 0 || plain_ints(args[2], stride) != n)
        Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < n; i++)
        if (stride[i] < 0)
            Py_RETURN_NONE;
    PyObject *off_obj = args[3] == Py_None ? t->offset : args[3];
    int overflow = 0;
    if (!PyLong_CheckExact(off_obj) || (off = PyLong_AsLongLongAndOverflow(off_obj, &overflow)) < 0 || overflow) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int code = pyt_dtype_code_of(t->dtype);
    StorageObject *st = (StorageObject *)t->storage;
    if (code < 0 || lt_layout_check((int32_t)n, size, stride, off, lt_dtype_itemsize((lt_dtype)code),
                                    lt_storage_nbytes(st->s)) != LT_OK)
        Py_RETURN_NONE;
    PyObject *size_t_ = pyt_int_tuple(size, n), *stride_t = pyt_int_tuple(stride, n);
    PyObject *arg = size_t_ && stride_t ? PyTuple_Pack(3, size_t_, stride_t, args[3] == Py_None ? Py_None : off_obj)
                                        : NULL;
    if (!arg) {
        Py_XDECREF(size_t_);
        Py_XDECREF(stride_t);
        return NULL;
    }
    Py_INCREF(off_obj);
    PyObject *out = pyt_prov_fresh(pyt_view_steal(t, size_t_, stride_t, off_obj), PROV_AS_STRIDED, arg, args[0]);
    Py_DECREF(arg);
    return out;
}

/* diagonal_view(t, offset, dim1, dim2) -> Tensor or None: t.diagonal(offset,
 * dim1, dim2) for plain ints, dims in range and distinct, by libtensor's
 * rule (lt_layout_diagonal, which refuses a diagonal whose stride or start
 * leaves int64); recorded with (offset, dim1, dim2) as given. None for the
 * rest: the Python path normalizes and raises torch's errors, then asks
 * the same rule. */
static PyObject *diagonal_in(int_call *c, PyObject *const *args)
{
    int32_t d1, d2;
    if (c->nd < 2 || !wrapped_dim(c->v[1], c->nd, &d1) || !wrapped_dim(c->v[2], c->nd, &d2) || d1 == d2)
        Py_RETURN_NONE; /* torch's message for d1 == d2 names the dims as given: Python's */
    lt_status rc = lt_layout_diagonal(c->shape, c->strides, &c->off, (int32_t)c->nd, c->shape, c->strides, c->off,
                                      c->v[0], d1, d2);
    return rc != LT_OK ? pyt_raise_last(rc)
                       : view_with(c, c->nd - 1, PROV_DIAGONAL, PyTuple_Pack(3, args[1], args[2], args[3]));
}

static PyObject *diagonal_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_int_call(args, nargs, 3, "diagonal_view(t: Tensor, offset, dim1, dim2)", diagonal_in);
}

/* unflatten_view(t, dim, sizes) -> Tensor or None: t.unflatten(dim, sizes)
 * for a plain int dim in range and a tuple or list of plain ints whose one
 * -1 (if any) libtensor resolves within that extent (lt_layout_infer_shape,
 * _layout.infer_shape's rule); the view is t.view(shape)'s, recorded as
 * Views.unflatten records it. None for the rest (Python's errors). */
static PyObject *unflatten_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    TensorObject *t = tensor_call(args, nargs, 3, "unflatten_view(t: Tensor, dim, sizes)");
    if (!t)
        return NULL;
    int64_t shape[LT_MAX_NDIM], sizes[LT_MAX_NDIM], out[LT_MAX_NDIM];
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM), m = plain_ints(args[2], sizes);
    long d;
    if (nd < 1 || m < 0 || nd - 1 + m > LT_MAX_NDIM || !PyLong_CheckExact(args[1]) ||
        ((d = PyLong_AsLong(args[1])) == -1 && PyErr_Occurred()) || d < -(long)nd || d >= (long)nd) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    d = d < 0 ? d + (long)nd : d;
    if (lt_layout_infer_shape(sizes, (int32_t)m, sizes, shape[d]) != LT_OK)
        Py_RETURN_NONE;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < nd; i++) {
        if (i != d) {
            out[k++] = shape[i];
            continue;
        }
        for (Py_ssize_t j = 0; j < m; j++)
            out[k++] = sizes[j];
    }
    PyObject *shape_t = pyt_int_tuple(out, k), *view_args = shape_t ? PyTuple_Pack(1, shape_t) : NULL;
    PyObject *op = view_args ? PyLong_FromLong(PROV_VIEW) : NULL, *view = NULL;
    if (op) {
        PyObject *const inner[3] = {args[0], view_args, op};
        view = reshape_view(NULL, inner, 3);
    }
    Py_XDECREF(shape_t);
    Py_XDECREF(view_args);
    Py_XDECREF(op);
    return view;
}

/* unfold_view(t, dimension, size, step) -> Tensor or None: t.unfold(...)
 * for plain ints that Views.unfold accepts on a tensor of at least one dim
 * (size within the extent and >= 0, step > 0), by libtensor's rule
 * (lt_layout_unfold, which refuses a windows' stride past int64), recorded
 * with (dimension, size, step) as given. None for the rest (Python's
 * errors, the 0-d case). */
static PyObject *unfold_in(int_call *c, PyObject *const *args)
{
    int32_t d;
    int64_t size = c->v[1], step = c->v[2];
    if (c->nd >= LT_MAX_NDIM || !wrapped_dim(c->v[0], c->nd, &d) || size > c->shape[d] || step <= 0 || size < 0)
        Py_RETURN_NONE;
    lt_status rc = lt_layout_unfold(c->shape, c->strides, (int32_t)c->nd, c->shape, c->strides, d, size, step);
    return rc != LT_OK ? pyt_raise_last(rc)
                       : view_with(c, c->nd + 1, PROV_UNFOLD, PyTuple_Pack(3, args[1], args[2], args[3]));
}

static PyObject *unfold_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_int_call(args, nargs, 3, "unfold_view(t: Tensor, dimension, size, step)", unfold_in);
}

/* setitem_basic(t, index, value) -> the written view t[index], or None
 * (declined): t[index] = value for a basic index (basic_view) that is not
 * t itself, a Python number filled in or a tensor copied in, as
 * _indexing.setitem writes them (view._check_write(), then fill_ or copy_).
 * Declines a tensor or value that requires grad (the in-place guard's
 * refusals), a read-only storage or an expanded target (their errors), a
 * value with more dims than the target (its leading ones are dropped in
 * Python), and whatever fill_/copy_'s C paths decline. The view carries the
 * index step's provenance; the caller records the write (note_write). */
static PyObject *setitem_basic(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    TensorObject *t = tensor_call(args, nargs, 3, "setitem_basic(t: Tensor, index, value)");
    if (!t)
        return NULL;
    PyObject *index = args[1], *value = args[2];
    int is_tensor = pyt_is_tensor(value);
    if (t->requires_grad != Py_False || ((StorageObject *)t->storage)->readonly != Py_False ||
        index == Py_Ellipsis || (PyTuple_CheckExact(index) && PyTuple_Size(index) == 0) ||
        (is_tensor ? ((TensorObject *)value)->requires_grad != Py_False
                   : !(PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value) ||
                       PyComplex_CheckExact(value))))
        Py_RETURN_NONE;
    if (PyTuple_CheckExact(index)) { /* t[..., ...]-like keys of Ellipsis alone write t itself: Python records that */
        int only_ellipsis = 1;
        for (Py_ssize_t k = 0; k < PyTuple_Size(index); k++)
            only_ellipsis &= PyTuple_GetItem(index, k) == Py_Ellipsis;
        if (only_ellipsis)
            Py_RETURN_NONE;
    }
    PyObject *view = basic_view(t, index);
    if (!view) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    TensorObject *v = (TensorObject *)view;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t nd = pyt_int64_tuple(v->shape, shape, LT_MAX_NDIM);
    PyObject *done = NULL;
    if (nd >= 0 && pyt_int64_tuple(v->strides, strides, LT_MAX_NDIM) == nd &&
        !lt_layout_has_internal_overlap((int32_t)nd, shape, strides) &&
        (!is_tensor || PyTuple_Size(((TensorObject *)value)->shape) <= nd))
        done = is_tensor ? pyt_copy_inplace(view, value) : pyt_fill_inplace(view, value);
    PyErr_Clear(); /* a failed read of the layout: declined */
    if (!done) {
        Py_DECREF(view);
        Py_RETURN_NONE;
    }
    int declined = done == Py_None;
    Py_DECREF(done);
    if (declined) {
        Py_DECREF(view);
        Py_RETURN_NONE;
    }
    return view;
}

PyMethodDef pyt_view_methods[] = {
    {"unflatten_view", (PyCFunction)(void (*)(void))unflatten_view, METH_FASTCALL,
     "unflatten_view(t, dim, sizes): unflatten's common case; None when declined."},
    {"unfold_view", (PyCFunction)(void (*)(void))unfold_view, METH_FASTCALL,
     "unfold_view(t, dimension, size, step): unfold's common case; None when declined."},
    {"squeeze_view", (PyCFunction)(void (*)(void))squeeze_view, METH_FASTCALL,
     "squeeze_view(t, dim): squeeze()'s common case; None when declined."},
    {"has_shape", (PyCFunction)(void (*)(void))has_shape, METH_FASTCALL,
     "has_shape(t, sizes): whether the plain-int sizes are t's shape (resize_'s no-op test)."},
    {"as_strided_view", (PyCFunction)(void (*)(void))as_strided_view, METH_FASTCALL,
     "as_strided_view(t, size, stride, storage_offset): as_strided's common case; None when declined."},
    {"diagonal_view", (PyCFunction)(void (*)(void))diagonal_view, METH_FASTCALL,
     "diagonal_view(t, offset, dim1, dim2): diagonal's common case; None when declined."},
    {"setitem_basic", (PyCFunction)(void (*)(void))setitem_basic, METH_FASTCALL,
     "setitem_basic(t, index, value): t[index] = value for a basic index, in one call; the view, or None."},
    {"reshape_view", (PyCFunction)(void (*)(void))reshape_view, METH_FASTCALL, "view/reshape's common case."},
    {"select_views", (PyCFunction)(void (*)(void))select_views, METH_FASTCALL,
     "select_views(t, d, dim_arg): t.select(d, i) for every i, in one call (unbind, iteration)."},
    {"narrow_views", (PyCFunction)(void (*)(void))narrow_views, METH_FASTCALL,
     "narrow_views(t, d, lengths): consecutive narrows along d, in one call (split by sizes)."},
    {"split_views", (PyCFunction)(void (*)(void))split_views, METH_FASTCALL,
     "split_views(t, d, n, by_chunks): split(n, d) or chunk(n, d)'s narrows, in one call."},
    {"select_view", (PyCFunction)(void (*)(void))select_view, METH_FASTCALL,
     "select_view(t, dim, index): select's common case; None when declined."},
    {"narrow_view", (PyCFunction)(void (*)(void))narrow_view, METH_FASTCALL,
     "narrow_view(t, dim, start, length): narrow's common case; None when declined."},
    {NULL, NULL, 0, NULL},
};
