/* _shim_index.c: the gather family's common cases in one crossing (issue 27).
 *
 * Each entry point is the common case of a Python function in
 * pytensor/_gather_ops.py or pytensor/_indexing.py, computed with the same
 * libtensor kernels and the same layout rules, and returns None to decline
 * everything else: an input that requires grad, a lazy conjugate or negative
 * bit, memory off the host, mixed dtypes (promotion), the rare dtypes, and
 * every refusal (the Python path raises it with torch's message). Nothing is
 * written before the last decline, so a declined call has no effect.
 *
 *   join(tensors, dim, stack)        cat / stack
 *   where(cond, a, b)                where with three operands
 *   flip(t, dims)                    flip
 *   roll(t, shift, dim)              roll by one int along one dim (or flattened)
 *   take_index(kind, t, dim, index)  index_select, take, gather, t[idx]
 *   take_mask(kind, t, mask)         masked_select, t[mask]
 *   nonzero(mask)                    nonzero() of a bool tensor
 *   put_index(t, index, value, acc)  t[idx] = v, index_put_((idx,), v)
 *   put_mask(t, mask, value)         t[mask] = number
 *
 * The write paths leave recording the write (version, last writer) to the
 * caller, as copy_inplace does. Names here are static and prefixed ix_ so
 * the unity build meets no other file's helpers. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "_shim.h"

#define IX_MAX_JOIN 64

/* A list's or tuple's length and item i (borrowed): the limited API has no
 * PySequence_Fast macros. */
static Py_ssize_t ix_len(PyObject *seq) { return PyList_CheckExact(seq) ? PyList_Size(seq) : PyTuple_Size(seq); }

static PyObject *ix_item(PyObject *seq, Py_ssize_t i)
{
    return PyList_CheckExact(seq) ? PyList_GetItem(seq, i) : PyTuple_GetItem(seq, i);
}

/* A tensor's view read from the object (pyt_read_view, _shim.h). */
typedef pyt_view ix_view;

/* 1 when obj is a tensor pyt_read_view reads (its bytes are its values, on
 * the host), not requiring grad, of a dtype with element moves (bool to
 * complex128); 0 declines, no error set. */
static int ix_read(ix_view *v, PyObject *obj)
{
    return pyt_is_tensor(obj) && ((TensorObject *)obj)->requires_grad == Py_False &&
           pyt_read_view(v, (TensorObject *)obj) && v->code <= LT_COMPLEX128;
}

/* A plain int dimension wrapped into [0, n) (n 0 acts as 1, as wrap_dim):
 * 1, or 0 to decline (not an int, out of range: Python's messages). */
static int ix_dim(int32_t *out, PyObject *dim, int32_t n)
{
    if (!PyLong_CheckExact(dim))
        return 0;
    long d = PyLong_AsLong(dim);
    if (d == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    long m = n > 0 ? n : 1;
    if (d < -m || d >= m)
        return 0;
    *out = (int32_t)(d < 0 ? d + m : d);
    return 1;
}

/* The element count and byte size of a new shape, or 0 when they overflow
 * (Python raises torch's message for sizes that large). */
static int ix_sizes(int64_t *numel, size_t *nbytes, int32_t nd, const int64_t *shape, size_t isz)
{
    int64_t n = 1;
    for (int32_t d = 0; d < nd; d++)
        if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n))
            return 0;
    *numel = n;
    return !__builtin_mul_overflow((size_t)n, isz, nbytes);
}

/* A new storage of nbytes with row-major strides for shape into strides:
 * the storage, or NULL with an exception set. */
static lt_storage *ix_new(int64_t *strides, int32_t nd, const int64_t *shape, size_t nbytes)
{
    lt_status rc = lt_layout_contiguous_strides(strides, nd, shape);
    lt_storage *s = NULL;
    if (rc == LT_OK)
        rc = lt_storage_new(&s, nbytes, 0);
    if (rc != LT_OK) {
        pyt_raise_last(rc);
        return NULL;
    }
    return s;
}

/* The tensor over s (stolen) when rc is LT_OK; else s is released and the
 * call declines (None), so the Python path raises its own message. */
static PyObject *ix_finish(lt_status rc, lt_storage *s, int code, const int64_t *shape, const int64_t *strides,
                           int32_t nd)
{
    if (rc != LT_OK) {
        lt_storage_release(s);
        Py_RETURN_NONE;
    }
    return pyt_tensor_over(s, code, shape, strides, nd, 0);
}

/* The strides v walks broadcast to shape (nd dims), libtensor's rule
 * (pyt_broadcast_strides): 1, or 0 when it does not broadcast. */
static int ix_bstrides(int64_t *out, int32_t nd, const int64_t *shape, const ix_view *v)
{
    return pyt_broadcast_strides(out, nd, shape, v->nd, v->shape, v->strides);
}

/* The layout torch's iterator gives a new result over operands (each a
 * list of strides over shape): _indexing.new_output's rule, row-major when
 * every operand walks row-major, else lt_layout_result_strides. */
static lt_status ix_result_layout(int64_t *out, int32_t nd, const int64_t *shape, int32_t nops,
                                  const int64_t (*ops)[LT_MAX_NDIM])
{
    int row_major = 1;
    for (int32_t k = 0; k < nops && row_major; k++) {
        int64_t last = 0;
        for (int32_t d = 0; d < nd; d++) {
            int64_t v = ops[k][d];
            if (!v)
                continue;
            if (last && v >= last) {
                row_major = 0;
                break;
            }
            last = v;
        }
    }
    if (nd < 2 || row_major)
        return lt_layout_contiguous_strides(out, nd, shape);
    const int64_t *shapes[4], *strides[4];
    int32_t ndims[4];
    for (int32_t k = 0; k < nops; k++) {
        shapes[k] = shape;
        strides[k] = ops[k];
        ndims[k] = nd;
    }
    return lt_layout_result_strides(out, nd, shape, nops, ndims, shapes, strides);
}

/* A Python number as one element of dtype code, where as_tensor_operand
 * converts it exactly so: pyt_scalar_operand's numbers, less two that
 * where's and the writes' Python path treats otherwise than binary's: a
 * float past float32's range into float32 (refused there: "cannot be
 * converted to type float32 without overflow"; binary makes it inf) and any
 * number into float16/bfloat16 (converted through their own rules). 1 when
 * written, 0 to decline. */
static int ix_scalar(unsigned char *buf, PyObject *x, int code)
{
    if (code == LT_FLOAT16 || code == LT_BFLOAT16)
        return 0;
    if (code == LT_FLOAT32 && PyFloat_CheckExact(x)) {
        double d = PyFloat_AsDouble(x);
        if (isfinite(d) && fabs(d) > FLT_MAX)
            return 0;
    }
    return pyt_scalar_operand(buf, x, code);
}

/* ------------------------------------------------------------ cat, stack */

/* join(tensors, dim, stack) -> Tensor or None: cat (stack False) or stack
 * of a list or tuple of tensors of one dtype, into new row-major memory.
 * Declines what the Python path decides: promotion, a 1-d empty tensor
 * (cat skips it), a shape mismatch, grad. */
static PyObject *join(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "join(tensors, dim, stack: bool)");
        return NULL;
    }
    PyObject *seq = args[0];
    int stack = args[2] == Py_True;
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq))
        Py_RETURN_NONE;
    Py_ssize_t count = ix_len(seq);
    if (count < 1 || count > IX_MAX_JOIN)
        Py_RETURN_NONE;
    PyObject *items[IX_MAX_JOIN];
    for (Py_ssize_t i = 0; i < count; i++)
        items[i] = ix_item(seq, i);
    ix_view v[IX_MAX_JOIN];
    for (Py_ssize_t i = 0; i < count; i++)
        if (!ix_read(&v[i], items[i]) || ((TensorObject *)items[i])->dtype != ((TensorObject *)items[0])->dtype)
            Py_RETURN_NONE;
    int32_t nd = v[0].nd, out_nd = stack ? nd + 1 : nd, d;
    if (out_nd < 1 || out_nd > LT_MAX_NDIM || !ix_dim(&d, args[1], out_nd))
        Py_RETURN_NONE;
    int64_t shape[LT_MAX_NDIM], total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (v[i].nd != nd || (!stack && nd == 1 && v[i].shape[0] == 0))
            Py_RETURN_NONE;
        for (int32_t j = 0; j < nd; j++)
            if (v[i].shape[j] != v[0].shape[j] && (stack || j != d))
                Py_RETURN_NONE;
        total += stack ? 1 : v[i].shape[d];
    }
    for (int32_t j = 0, k = 0; j < out_nd; j++) /* stack: d is a new dimension; cat: it replaces one */
        shape[j] = j == d ? (k += !stack, total) : v[0].shape[k++];
    int64_t numel, strides[LT_MAX_NDIM];
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, out_nd, shape, v[0].isz))
        Py_RETURN_NONE;
    lt_storage *s = ix_new(strides, out_nd, shape, nbytes);
    if (!s)
        return NULL;
    lt_status rc = LT_OK;
    char *dst = lt_storage_data(s);
    int64_t at = 0;
    for (Py_ssize_t i = 0; i < count && rc == LT_OK; i++) {
        int64_t part[LT_MAX_NDIM], src_strides[LT_MAX_NDIM];
        for (int32_t j = 0, k = 0; j < out_nd; j++) {
            int inserted = stack && j == d; /* stack: the part is the tensor unsqueezed at d */
            part[j] = inserted ? 1 : v[i].shape[k];
            src_strides[j] = inserted ? 0 : v[i].strides[k++];
        }
        if (part[d] == 0 || numel == 0)
            continue;
        PYT_NOGIL(nbytes, lt_copy(dst + (size_t)(at * strides[d]) * v[i].isz, strides, (lt_dtype)v[i].code,
                                      v[i].data, src_strides, (lt_dtype)v[i].code, out_nd, part));
        at += part[d];
    }
    return ix_finish(rc, s, v[0].code, shape, strides, out_nd);
}

/* ------------------------------------------------------------ where */

/* where(cond, a, b) -> Tensor or None: a bool cond and two tensors of one
 * dtype (or one tensor and a Python number ix_scalar takes),
 * broadcast, laid out as new_output lays them out. */
static PyObject *where(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "where(cond, a, b)");
        return NULL;
    }
    ix_view c, ab[2];
    _Alignas(16) unsigned char scalar[2][16];
    if (!ix_read(&c, args[0]) || c.code != LT_BOOL)
        Py_RETURN_NONE;
    int tensor_at = pyt_is_tensor(args[1]) ? 1 : 2;
    if (!ix_read(&ab[tensor_at - 1], args[tensor_at]))
        Py_RETURN_NONE;
    int code = ab[tensor_at - 1].code;
    for (int k = 0; k < 2; k++) {
        if (k == tensor_at - 1)
            continue;
        if (pyt_is_tensor(args[k + 1])) {
            if (((TensorObject *)args[k + 1])->dtype != ((TensorObject *)args[tensor_at])->dtype ||
                !ix_read(&ab[k], args[k + 1]))
                Py_RETURN_NONE;
        } else {
            if (!ix_scalar(scalar[k], args[k + 1], code))
                Py_RETURN_NONE;
            ab[k].nd = 0;
            ab[k].data = (char *)scalar[k];
        }
    }
    int32_t ndims[3] = {c.nd, ab[0].nd, ab[1].nd}, nd;
    const int64_t *shapes[3] = {c.shape, ab[0].shape, ab[1].shape};
    int64_t shape[LT_MAX_NDIM], ops[3][LT_MAX_NDIM], strides[LT_MAX_NDIM], numel;
    if (lt_layout_broadcast_shapes(shape, &nd, 3, ndims, shapes) != LT_OK) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    size_t isz = lt_dtype_itemsize((lt_dtype)code), nbytes;
    if (!ix_bstrides(ops[0], nd, shape, &c) || !ix_bstrides(ops[1], nd, shape, &ab[0]) ||
        !ix_bstrides(ops[2], nd, shape, &ab[1]) || !ix_sizes(&numel, &nbytes, nd, shape, isz))
        Py_RETURN_NONE;
    lt_status rc = ix_result_layout(strides, nd, shape, 3, (const int64_t (*)[LT_MAX_NDIM])ops);
    lt_storage *s = NULL;
    if (rc == LT_OK)
        rc = lt_storage_new(&s, nbytes, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PYT_NOGIL(nbytes, lt_where(lt_storage_data(s), strides, c.data, ops[0], ab[0].data, ops[1], ab[1].data, ops[2],
                              (lt_dtype)code, nd, shape));
    return ix_finish(rc, s, code, shape, strides, nd);
}

/* ------------------------------------------------------------ flip, roll */

/* The layout of a copy of v (_gather_ops._new_like): its own order when
 * dense (lt_layout_preserve_strides), torch's inferred order when empty. */
static lt_status ix_like_layout(int64_t *out, const ix_view *v, int64_t numel)
{
    return numel ? lt_layout_preserve_strides(out, v->nd, v->shape, v->strides)
                 : lt_layout_infer_dense_strides(out, v->nd, v->shape, v->strides);
}

/* flip(t, dims) -> Tensor or None: dims a tuple or list of ints, none repeated. */
static PyObject *flip(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "flip(t, dims)");
        return NULL;
    }
    ix_view v;
    PyObject *dims = args[1];
    if (!ix_read(&v, args[0]) || (!PyTuple_CheckExact(dims) && !PyList_CheckExact(dims)))
        Py_RETURN_NONE;
    Py_ssize_t ndims = ix_len(dims);
    int seen[LT_MAX_NDIM] = {0};
    int64_t src_strides[LT_MAX_NDIM], strides[LT_MAX_NDIM], numel;
    memcpy(src_strides, v.strides, sizeof v.strides);
    const char *src = v.data;
    for (Py_ssize_t i = 0; i < ndims; i++) {
        int32_t d;
        if (!ix_dim(&d, ix_item(dims, i), v.nd) || seen[d]++ || v.nd == 0)
            Py_RETURN_NONE;
        if (v.shape[d] > 1) { /* element 0 of the flipped view is the last along d */
            src += (v.shape[d] - 1) * v.strides[d] * (int64_t)v.isz;
            src_strides[d] = -v.strides[d];
        }
    }
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, v.nd, v.shape, v.isz))
        Py_RETURN_NONE;
    lt_status rc = ix_like_layout(strides, &v, numel);
    lt_storage *s = NULL;
    if (rc == LT_OK)
        rc = lt_storage_new(&s, nbytes, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    if (numel)
        PYT_NOGIL(nbytes, lt_copy(lt_storage_data(s), strides, (lt_dtype)v.code, src, src_strides, (lt_dtype)v.code,
                                 v.nd, v.shape));
    return ix_finish(rc, s, v.code, v.shape, strides, v.nd);
}

/* roll(t, shift, dim) -> Tensor or None: one int shift along one int dim,
 * or (dim None) of a contiguous tensor read flat; row-major result, as the
 * Python path's empty(). Two copies: out[k:] = t[:m-k], out[:k] = t[m-k:]. */
static PyObject *roll(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "roll(t, shift, dim)");
        return NULL;
    }
    ix_view v;
    int overflow = 0;
    if (!ix_read(&v, args[0]) || !PyLong_CheckExact(args[1]))
        Py_RETURN_NONE;
    long long shift = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (overflow || (shift == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int64_t numel, strides[LT_MAX_NDIM];
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, v.nd, v.shape, v.isz))
        Py_RETURN_NONE;
    /* the walk: the tensor itself along dim d, or its flat 1-d view */
    int32_t nd = v.nd, d;
    int64_t wshape[LT_MAX_NDIM], wsrc[LT_MAX_NDIM], wdst[LT_MAX_NDIM];
    if (args[2] == Py_None) {
        if (!lt_layout_is_contiguous(v.nd, v.shape, v.strides))
            Py_RETURN_NONE;
        nd = 1, d = 0, wshape[0] = numel, wsrc[0] = 1, wdst[0] = 1;
    } else {
        if (v.nd == 0 || !ix_dim(&d, args[2], v.nd))
            Py_RETURN_NONE;
        memcpy(wshape, v.shape, sizeof wshape);
        memcpy(wsrc, v.strides, sizeof wsrc);
    }
    lt_storage *s = ix_new(strides, v.nd, v.shape, nbytes);
    if (!s)
        return NULL;
    if (args[2] != Py_None)
        memcpy(wdst, strides, sizeof wdst);
    char *dst = lt_storage_data(s);
    int64_t m = wshape[d], k = m ? ((shift % m) + m) % m : 0;
    lt_status rc = LT_OK;
    if (numel) {
        int64_t part[LT_MAX_NDIM];
        memcpy(part, wshape, sizeof part);
        part[d] = m - k; /* dst[k:] = src[:m-k] */
        PYT_NOGIL(nbytes, lt_copy(dst + (size_t)(k * wdst[d]) * v.isz, wdst, (lt_dtype)v.code, v.data, wsrc,
                                 (lt_dtype)v.code, nd, part));
        part[d] = k; /* dst[:k] = src[m-k:] */
        if (rc == LT_OK && k)
            PYT_NOGIL(nbytes, lt_copy(dst, wdst, (lt_dtype)v.code, v.data + (m - k) * wsrc[d] * (int64_t)v.isz, wsrc,
                                     (lt_dtype)v.code, nd, part));
    }
    return ix_finish(rc, s, v.code, v.shape, strides, v.nd);
}

/* ------------------------------------------------------------ index_select, take, gather, t[idx] */

enum { IX_SELECT, IX_TAKE, IX_GATHER, IX_GETITEM };

/* The provenance argument of t[idx] as _indexing._key_text writes it:
 * "<int64 [2, 3]>". A new reference, or NULL with an exception. */
static PyObject *ix_key_text(const ix_view *x)
{
    char buf[32 + LT_MAX_NDIM * 24];
    size_t n = (size_t)snprintf(buf, sizeof buf, x->code == LT_BOOL ? "<bool [" : "<int64 [");
    for (int32_t d = 0; d < x->nd; d++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, d ? ", %lld" : "%lld", (long long)x->shape[d]);
    snprintf(buf + n, sizeof buf - n, "]>");
    return PyUnicode_FromString(buf);
}

/* out (a new reference, None or NULL, passed through) recorded in
 * provenance as the gather t[<key's dtype and shape>] from t, as
 * _indexing.getitem records an advanced index. */
static PyObject *ix_record_gather(PyObject *out, const ix_view *key_view, PyObject *t)
{
    if (out == Py_None || !out)
        return out;
    PyObject *key = ix_key_text(key_view);
    if (!key) {
        Py_DECREF(out);
        return NULL;
    }
    out = pyt_prov_fresh(out, PROV_GATHER, key, t);
    Py_DECREF(key);
    return out;
}

/* take_index(kind, t, dim, index) -> Tensor or None, one lt_index_take pass:
 * kind 0 index_select(t, dim, index) (index a vector or a number's 0-d),
 * 1 take(t, index) (t contiguous), 2 gather(t, dim, index), 3 t[index] (dim
 * ignored: 0; recorded as the gather t[<int64 [n]>]). index is int64. An
 * index out of range declines (the result is dropped): Python raises. */
static PyObject *take_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long kind = nargs == 4 ? PyLong_AsLong(args[0]) : -1;
    if (kind < IX_SELECT || kind > IX_GETITEM) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "take_index(kind: 0..3, t, dim, index)");
        return NULL;
    }
    ix_view v, x;
    if (!ix_read(&v, args[1]) || !ix_read(&x, args[3]) || x.code != LT_INT64)
        Py_RETURN_NONE;
    int32_t d = 0, nd = 0;
    int64_t shape[LT_MAX_NDIM], src_strides[LT_MAX_NDIM], index_strides[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    int64_t dim_size, dim_stride;
    int wrap = kind == IX_TAKE || kind == IX_GETITEM;
    if (kind == IX_SELECT) {
        if (v.nd == 0 || x.nd > 1 || !ix_dim(&d, args[2], v.nd))
            Py_RETURN_NONE;
        nd = v.nd;
        for (int32_t j = 0; j < nd; j++) {
            shape[j] = j == d ? (x.nd ? x.shape[0] : 1) : v.shape[j];
            src_strides[j] = j == d ? 0 : v.strides[j];
            index_strides[j] = j == d && x.nd ? x.strides[0] : 0;
        }
        dim_size = v.shape[d], dim_stride = v.strides[d];
    } else if (kind == IX_TAKE) {
        if (!lt_layout_is_contiguous(v.nd, v.shape, v.strides))
            Py_RETURN_NONE;
        nd = x.nd;
        for (int32_t j = 0; j < nd; j++)
            shape[j] = x.shape[j], src_strides[j] = 0, index_strides[j] = x.strides[j];
        int64_t n = 1;
        for (int32_t j = 0; j < v.nd; j++)
            n *= v.shape[j];
        dim_size = n, dim_stride = 1;
    } else if (kind == IX_GATHER) {
        if (v.nd == 0 || x.nd != v.nd || !ix_dim(&d, args[2], v.nd))
            Py_RETURN_NONE;
        nd = v.nd;
        for (int32_t j = 0; j < nd; j++) {
            if (j != d && x.shape[j] > v.shape[j])
                Py_RETURN_NONE;
            shape[j] = x.shape[j], src_strides[j] = j == d ? 0 : v.strides[j], index_strides[j] = x.strides[j];
        }
        dim_size = v.shape[d], dim_stride = v.strides[d];
    } else {
        if (v.nd == 0 || x.nd == 0 || x.nd + v.nd - 1 > LT_MAX_NDIM)
            Py_RETURN_NONE;
        nd = x.nd + v.nd - 1;
        /* _indexing._take at d = 0: the index's dims, then the view's others */
        for (int32_t j = 0; j < nd; j++) {
            int in_index = j < x.nd;
            shape[j] = in_index ? x.shape[j] : v.shape[j - x.nd + 1];
            src_strides[j] = in_index ? 0 : v.strides[j - x.nd + 1];
            index_strides[j] = in_index ? x.strides[j] : 0;
        }
        dim_size = v.shape[0], dim_stride = v.strides[0];
    }
    int64_t numel;
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, nd, shape, v.isz))
        Py_RETURN_NONE;
    lt_status rc;
    if (kind == IX_GETITEM) {
        /* the layout torch's iterator gives (_indexing._take): the index strides
         * kept on the extent-1 dims after it */
        int64_t ops[2][LT_MAX_NDIM];
        int64_t inner = x.strides[x.nd - 1] ? x.strides[x.nd - 1] : 1;
        for (int32_t j = 0; j < nd; j++) {
            ops[0][j] = src_strides[j];
            ops[1][j] = j < x.nd ? x.strides[j] : (shape[j] == 1 ? inner : 0);
        }
        rc = ix_result_layout(strides, nd, shape, 2, (const int64_t (*)[LT_MAX_NDIM])ops);
    } else {
        rc = lt_layout_contiguous_strides(strides, nd, shape);
    }
    lt_storage *s = NULL;
    if (rc == LT_OK)
        rc = lt_storage_new(&s, nbytes, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PYT_NOGIL(nbytes, lt_index_take(lt_storage_data(s), strides, v.data, src_strides, (const int64_t *)x.data,
                                   index_strides, dim_size, dim_stride, d, wrap, (lt_dtype)v.code, nd, shape));
    PyObject *out = ix_finish(rc, s, v.code, shape, strides, nd);
    return kind == IX_GETITEM ? ix_record_gather(out, &x, args[1]) : out;
}

/* nonzero(mask) -> Tensor or None: the (count, ndim) int64 coordinates of
 * a bool tensor of at least one dimension, laid out column by column
 * (strides (1, count)), as _indexing.mask_positions(column_major=True). */
static PyObject *nonzero(PyObject *self, PyObject *arg)
{
    (void)self;
    ix_view m;
    if (!ix_read(&m, arg) || m.code != LT_BOOL || m.nd == 0)
        Py_RETURN_NONE;
    int64_t count = 0, weights[LT_MAX_NDIM * LT_MAX_NDIM] = {0};
    lt_status rc = lt_mask_count(&count, m.data, m.strides, m.nd, m.shape);
    if (rc != LT_OK) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int64_t shape[2] = {count, m.nd}, strides[2] = {1, count}, numel;
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, 2, shape, 8))
        Py_RETURN_NONE;
    for (int32_t j = 0; j < m.nd; j++)
        weights[j * m.nd + j] = 1;
    lt_storage *s = NULL;
    if ((rc = lt_storage_new(&s, nbytes, 0)) != LT_OK)
        return pyt_raise_last(rc);
    PYT_NOGIL(nbytes, lt_mask_positions(lt_storage_data(s), 1, count, count, m.nd, weights, m.data, m.strides, m.nd,
                                       m.shape));
    return ix_finish(rc, s, LT_INT64, shape, strides, 2);
}

/* take_mask(kind, t, mask) -> Tensor or None: the elements of t under a
 * bool mask of t's shape (at least one dimension), row-major, as a new
 * vector: kind 0 masked_select(t, mask), kind 1 t[mask] (recorded as the
 * gather t[<bool [shape]>], as _indexing.getitem records it). A mask of
 * another shape (broadcast, or over the leading dims only) declines. */
static PyObject *take_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long kind = nargs == 3 ? PyLong_AsLong(args[0]) : -1;
    if (kind != 0 && kind != 1) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "take_mask(kind: 0 or 1, t, mask)");
        return NULL;
    }
    ix_view v, m;
    if (!ix_read(&m, args[2]) || m.code != LT_BOOL || !ix_read(&v, args[1]) || m.nd != v.nd || v.nd == 0 ||
        memcmp(m.shape, v.shape, sizeof(int64_t) * (size_t)v.nd))
        Py_RETURN_NONE;
    int64_t count = 0, numel, stride = 1;
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, v.nd, v.shape, v.isz))
        Py_RETURN_NONE;
    lt_status rc;
    PYT_NOGIL(nbytes, lt_mask_count(&count, m.data, m.strides, m.nd, m.shape));
    lt_storage *s = NULL;
    if (rc == LT_OK)
        rc = lt_storage_new(&s, (size_t)count * v.isz, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PYT_NOGIL(nbytes, lt_mask_gather(lt_storage_data(s), v.data, v.strides, (lt_dtype)v.code, m.data, m.strides,
                                     v.nd, v.shape, count));
    PyObject *out = ix_finish(rc, s, v.code, &count, &stride, 1);
    return kind == 1 ? ix_record_gather(out, &m, args[1]) : out;
}

/* ------------------------------------------------------------ writes: t[idx] = v, t[mask] = x */

/* 1 when t may be written through as a whole (_check_write): a writable
 * storage, and no two elements at one memory location. */
static int ix_writable(const ix_view *v, PyObject *obj)
{
    StorageObject *st = (StorageObject *)((TensorObject *)obj)->storage;
    return st->readonly == Py_False && !lt_layout_has_internal_overlap(v->nd, v->shape, v->strides);
}

/* 1 when the bytes of storage a and b may overlap (compared by address, so
 * two storages over the same memory count, as _reads_storage_of does). */
static int ix_same_memory(PyObject *ta, PyObject *tb)
{
    lt_storage *a = ((StorageObject *)((TensorObject *)ta)->storage)->s;
    lt_storage *b = ((StorageObject *)((TensorObject *)tb)->storage)->s;
    const char *pa = lt_storage_data(a), *pb = lt_storage_data(b);
    size_t na = lt_storage_nbytes(a), nb = lt_storage_nbytes(b);
    return na && nb && pa < pb + nb && pb < pa + na;
}

/* put_index(t, index, value, accumulate) -> t or None: t[index] = value (or
 * index_put_'s accumulate) for one int64 index tensor on dim 0 and a value
 * tensor of t's dtype (or a Python number ix_scalar takes) that
 * broadcasts to the indexed shape and does not share t's memory. */
static PyObject *put_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "put_index(t, index, value, accumulate: bool)");
        return NULL;
    }
    int accumulate = args[3] == Py_True;
    ix_view v, x, val;
    _Alignas(16) unsigned char scalar[16];
    if (!ix_read(&v, args[0]) || !ix_read(&x, args[1]) || x.code != LT_INT64 || v.nd == 0 || x.nd == 0 ||
        x.nd + v.nd - 1 > LT_MAX_NDIM || !ix_writable(&v, args[0]))
        Py_RETURN_NONE;
    if (pyt_is_tensor(args[2])) {
        if (((TensorObject *)args[2])->dtype != ((TensorObject *)args[0])->dtype || !ix_read(&val, args[2]) ||
            ix_same_memory(args[2], args[0]))
            Py_RETURN_NONE;
    } else {
        if (accumulate || !ix_scalar(scalar, args[2], v.code))
            Py_RETURN_NONE;
        val.nd = 0;
        val.data = (char *)scalar;
    }
    /* the indexed shape: the index's dims, then t's others (_plan at d = 0) */
    int32_t nd = x.nd + v.nd - 1;
    int64_t shape[LT_MAX_NDIM], dst_strides[LT_MAX_NDIM], offset_strides[LT_MAX_NDIM], src_strides[LT_MAX_NDIM];
    for (int32_t j = 0; j < nd; j++) {
        int in_index = j < x.nd;
        shape[j] = in_index ? x.shape[j] : v.shape[j - x.nd + 1];
        dst_strides[j] = in_index ? 0 : v.strides[j - x.nd + 1];
    }
    /* the value's leading extents of 1 beyond the indexed dims are dropped (_drop_leading_ones) */
    while (val.nd > nd && val.shape[0] == 1) {
        memmove(val.shape, val.shape + 1, sizeof(int64_t) * (size_t)(val.nd - 1));
        memmove(val.strides, val.strides + 1, sizeof(int64_t) * (size_t)(val.nd - 1));
        val.nd--;
    }
    int64_t numel, xnumel, row_major[LT_MAX_NDIM];
    size_t nbytes, xnbytes;
    if (!ix_bstrides(src_strides, nd, shape, &val) || !ix_sizes(&numel, &nbytes, nd, shape, v.isz) ||
        !ix_sizes(&xnumel, &xnbytes, x.nd, x.shape, 8) || lt_layout_contiguous_strides(row_major, x.nd, x.shape))
        Py_RETURN_NONE;
    for (int32_t j = 0; j < nd; j++)
        offset_strides[j] = j < x.nd ? row_major[j] : 0;
    int64_t one_offset, *offsets = xnumel > 1 ? PyMem_Malloc(xnbytes) : &one_offset;
    if (!offsets)
        return PyErr_NoMemory();
    const int64_t *index[1] = {(const int64_t *)x.data}, dim_id = 0;
    lt_status rc = lt_index_offsets(offsets, 1, index, x.strides, &v.shape[0], &v.strides[0], &dim_id, 1, x.nd,
                                    x.shape);
    if (rc == LT_OK && numel)
        PYT_NOGIL(nbytes, lt_index_scatter(v.data, dst_strides, offsets, offset_strides, val.data, src_strides,
                                          (lt_dtype)v.code, accumulate, nd, shape));
    if (offsets != &one_offset)
        PyMem_Free(offsets);
    if (rc == LT_ERANGE) { /* checked before any write: the Python path raises IndexError */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_INCREF(args[0]);
    return args[0];
}

/* put_mask(t, mask, value) -> t or None: t[mask] = value for a bool mask of
 * t's shape in other memory and a Python number ix_scalar takes
 * (lt_mask_scatter with a stride-0 source). */
static PyObject *put_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "put_mask(t, mask, value)");
        return NULL;
    }
    ix_view v, m;
    _Alignas(16) unsigned char scalar[16];
    if (!ix_read(&v, args[0]) || !ix_read(&m, args[1]) || m.code != LT_BOOL || m.nd != v.nd || v.nd == 0 ||
        memcmp(m.shape, v.shape, sizeof(int64_t) * (size_t)v.nd) || !ix_writable(&v, args[0]) ||
        ix_same_memory(args[1], args[0]) || !ix_scalar(scalar, args[2], v.code))
        Py_RETURN_NONE;
    int64_t count = 0, numel;
    size_t nbytes;
    if (!ix_sizes(&numel, &nbytes, v.nd, v.shape, v.isz))
        Py_RETURN_NONE;
    lt_status rc;
    PYT_NOGIL(nbytes, lt_mask_count(&count, m.data, m.strides, m.nd, m.shape));
    if (rc == LT_OK)
        PYT_NOGIL(nbytes, lt_mask_scatter(v.data, v.strides, scalar, 0, (lt_dtype)v.code, m.data, m.strides, m.nd,
                                         m.shape, count));
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_INCREF(args[0]);
    return args[0];
}

PyMethodDef pyt_index_methods[] = {
    {"join", (PyCFunction)(void (*)(void))join, METH_FASTCALL,
     "join(tensors, dim, stack): cat/stack of one dtype in one crossing; None when declined."},
    {"where", (PyCFunction)(void (*)(void))where, METH_FASTCALL,
     "where(cond, a, b): where() of one dtype in one crossing; None when declined."},
    {"flip", (PyCFunction)(void (*)(void))flip, METH_FASTCALL, "flip(t, dims): flip() in one crossing; None when declined."},
    {"roll", (PyCFunction)(void (*)(void))roll, METH_FASTCALL,
     "roll(t, shift, dim): roll() by one int in one crossing; None when declined."},
    {"take_index", (PyCFunction)(void (*)(void))take_index, METH_FASTCALL,
     "take_index(kind, t, dim, index): index_select/take/gather/t[idx] in one crossing; None when declined."},
    {"take_mask", (PyCFunction)(void (*)(void))take_mask, METH_FASTCALL,
     "take_mask(kind, t, mask): masked_select/t[mask] with a mask of t's shape in one crossing; None when declined."},
    {"nonzero", nonzero, METH_O, "nonzero(mask): nonzero() of a bool tensor in one crossing; None when declined."},
    {"put_index", (PyCFunction)(void (*)(void))put_index, METH_FASTCALL,
     "put_index(t, index, value, accumulate): t[idx] = value in one crossing; None when declined."},
    {"put_mask", (PyCFunction)(void (*)(void))put_mask, METH_FASTCALL,
     "put_mask(t, mask, value): t[mask] = number in one crossing; None when declined."},
    {NULL, NULL, 0, NULL},
};
