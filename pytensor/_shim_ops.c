/* _shim_ops.c: the per-call parts of elementwise operations that Python
 * would otherwise pay for in several cffi crossings.
 *
 * result_strides(shape, *tensors): the layout of an elementwise result,
 * libtensor's lt_layout_result_strides (torch's TensorIterator rule) over
 * the operands' own shapes and strides, read straight from the Tensor
 * objects. Every binary op asks it, so it costs one C call instead of the
 * half dozen cffi conversions the Python wrapper (_layout.result_strides)
 * needs for the same answer.
 *
 * is_contiguous(tensor): the same for the contiguity test.
 *
 * binary(a, b, op): a + b, a < b, ... in one crossing for the common case
 * (two tensors of one dtype, or a tensor and a Python number of its kind);
 * None for anything else, which _ops.binary then computes with the full
 * rules (promotion, NumPy operands, the refusals and their messages).
 *
 * The same contract (the common case in one crossing, None to decline) for
 * the other per-call paths of issue 27: reduce (sum/mean/all/any), cast
 * (to/clone), filled and arange_int (the factories), binary_inplace (+= ...),
 * fill_inplace and copy_inplace, equal, permute_view and expand_view. Every
 * one that reads tensor data goes through read_view (or element0), which
 * declines a tensor with a lazy conjugate or negative bit to the Python path;
 * the two view makers build their views with pyt_view_steal, as
 * _shim_view.c's do, which carries the bits. */
#include <limits.h>
#include <string.h>

#include "_shim.h"

#define MAX_OPERANDS 8

/* result_strides(shape: tuple, *operands: Tensor) -> strides tuple. The rule
 * is libtensor's; its refusals are raised through the shim's translator. */
static PyObject *result_strides(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 1 || nargs - 1 > MAX_OPERANDS || !PyTuple_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "result_strides(shape: tuple, *operands: Tensor) takes at most %d operands",
                     MAX_OPERANDS);
        return NULL;
    }
    int64_t shape[LT_MAX_NDIM], out[LT_MAX_NDIM];
    int64_t op_shapes[MAX_OPERANDS][LT_MAX_NDIM], op_strides[MAX_OPERANDS][LT_MAX_NDIM];
    const int64_t *shapes[MAX_OPERANDS], *strides[MAX_OPERANDS];
    int32_t ndims[MAX_OPERANDS];
    Py_ssize_t nd = pyt_int64_tuple(args[0], shape, LT_MAX_NDIM);
    if (nd < 0)
        return NULL;
    int32_t nops = (int32_t)(nargs - 1);
    for (int32_t k = 0; k < nops; k++) {
        if (!pyt_is_tensor(args[k + 1])) {
            PyErr_Format(PyExc_TypeError, "result_strides: operand %d is not a Tensor", (int)k);
            return NULL;
        }
        TensorObject *t = (TensorObject *)args[k + 1];
        Py_ssize_t n = pyt_int64_tuple(t->shape, op_shapes[k], LT_MAX_NDIM);
        if (n < 0 || pyt_int64_tuple(t->strides, op_strides[k], LT_MAX_NDIM) != n) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "the tensor's shape and strides differ in length");
            return NULL;
        }
        ndims[k] = (int32_t)n;
        shapes[k] = op_shapes[k];
        strides[k] = op_strides[k];
    }
    lt_status rc = lt_layout_result_strides(out, (int32_t)nd, shape, nops, ndims, shapes, strides);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    return pyt_int_tuple(out, nd);
}

/* is_contiguous(tensor) -> bool: lt_layout_is_contiguous over the tensor's
 * own shape and strides, read from the object (no tuple conversion): the
 * test contiguous() and is_contiguous() make on every call. */
static PyObject *is_contiguous(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "is_contiguous(tensor)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)arg;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    Py_ssize_t n = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (n < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != n) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "the tensor's shape and strides differ in length");
        return NULL;
    }
    return PyBool_FromLong(lt_layout_is_contiguous((int32_t)n, shape, strides));
}


/* The dtypes the fast path computes in: the integer and real floating types
 * torch has full arithmetic for. bool, complex, the wide unsigned types and
 * the float8s go through Python (their promotion and refusals live there). */
static int fast_dtype(int code)
{
    return code == LT_UINT8 || (code >= LT_INT8 && code <= LT_FLOAT64);
}

static int is_float_code(int code) { return code >= LT_FLOAT16 && code <= LT_FLOAT64; }

/* The data pointer of t's element 0, or NULL to decline (pyt_element0). */
static char *element0(TensorObject *t, size_t itemsize) { return pyt_element0(t, itemsize); }

/* The operand readers every fast path shares (declared in _shim.h). */
int pyt_read_view(pyt_view *v, TensorObject *t)
{
    v->code = pyt_dtype_code_of(t->dtype);
    if (v->code < 0)
        return 0;
    Py_ssize_t n = pyt_int64_tuple(t->shape, v->shape, LT_MAX_NDIM);
    if (n < 0 || pyt_int64_tuple(t->strides, v->strides, LT_MAX_NDIM) != n) {
        PyErr_Clear();
        return 0;
    }
    v->nd = (int32_t)n;
    v->isz = lt_dtype_itemsize((lt_dtype)v->code);
    return (v->data = element0(t, v->isz)) != NULL;
}

int pyt_scalar_operand(unsigned char *buf, PyObject *x, int code)
{
    if (!fast_dtype(code))
        return 0;
    double d;
    if (PyFloat_CheckExact(x)) {
        if (code != LT_FLOAT32 && code != LT_FLOAT64)
            return 0;
        d = PyFloat_AsDouble(x);
    } else if (PyLong_CheckExact(x)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        /* exact in a double; for integer tensors, within every fast integer type's range */
        long long lo = is_float_code(code) ? -(1LL << 53) : code == LT_UINT8 ? 0 : -128;
        long long hi = is_float_code(code) ? (1LL << 53) : 127;
        /* float16/bfloat16 take only the ints they hold exactly: torch multiplies and divides by
         * the number as a float32 (its op math), so a number the dtype would round
         * (float16_t / 65536) is the Python path's (_ops._op_math_binary) */
        if (code == LT_FLOAT16 || code == LT_BFLOAT16)
            hi = code == LT_FLOAT16 ? 2048 : 256, lo = -hi;
        if (overflow || v < lo || v > hi) {
            PyErr_Clear();
            return 0;
        }
        d = (double)v;
    } else {
        return 0;
    }
    return lt_copy(buf, NULL, (lt_dtype)code, &d, NULL, LT_FLOAT64, 0, NULL) == LT_OK;
}

/* binary(a, b, op[, unary]) -> Tensor or None (declined). op is an lt_binop
 * code. unary True lays the result out from the tensor operand alone, as
 * torch lays out a one-input op (neg computes 0 - t). */
static PyObject *binary(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 || nargs == 4 ? PyLong_AsLong(args[2]) : -1;
    if (op < LT_OP_ADD || op > LT_OP_GE) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "binary(a, b, op: an lt_binop code[, unary: bool])");
        return NULL;
    }
    int unary = nargs == 4 && args[3] == Py_True;
    TensorObject *t[2] = {pyt_is_tensor(args[0]) ? (TensorObject *)args[0] : NULL,
                          pyt_is_tensor(args[1]) ? (TensorObject *)args[1] : NULL};
    if ((!t[0] && !t[1]) || (t[0] && t[0]->bits) || (t[1] && t[1]->bits))
        Py_RETURN_NONE; /* a conjugate/negative view: Python resolves it (pytensor/_conj.py) */
    int code = pyt_dtype_code_of((t[0] ? t[0] : t[1])->dtype);
    if (code < 0 || !fast_dtype(code) || (t[0] && t[1] && t[0]->dtype != t[1]->dtype) ||
        (op == LT_OP_DIV && !is_float_code(code)))
        Py_RETURN_NONE;
    size_t isz = lt_dtype_itemsize((lt_dtype)code);
    _Alignas(16) unsigned char scalar[16];
    int64_t shapes[2][LT_MAX_NDIM], strides[2][LT_MAX_NDIM];
    int32_t ndims[2];
    char *data[2];
    for (int k = 0; k < 2; k++) {
        if (!t[k]) {
            if (!pyt_scalar_operand(scalar, args[k], code))
                Py_RETURN_NONE;
            ndims[k] = 0;
            data[k] = (char *)scalar;
            continue;
        }
        Py_ssize_t n = pyt_int64_tuple(t[k]->shape, shapes[k], LT_MAX_NDIM);
        if (n < 0 || pyt_int64_tuple(t[k]->strides, strides[k], LT_MAX_NDIM) != n) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        ndims[k] = (int32_t)n;
        if (!(data[k] = element0(t[k], isz)))
            Py_RETURN_NONE;
    }
    int64_t shape[LT_MAX_NDIM], out_strides[LT_MAX_NDIM], bstrides[2][LT_MAX_NDIM], numel = 1;
    int32_t nd;
    const int64_t *shape_ptrs[2] = {shapes[0], shapes[1]}, *stride_ptrs[2] = {strides[0], strides[1]};
    lt_status rc = lt_layout_broadcast_shapes(shape, &nd, 2, ndims, shape_ptrs);
    int first = unary && !t[0] ? 1 : 0, count = unary ? 1 : 2; /* the operands the layout is judged on */
    if (rc == LT_OK)
        rc = lt_layout_result_strides(out_strides, nd, shape, count, ndims + first, shape_ptrs + first,
                                      stride_ptrs + first);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    for (int32_t d = 0; d < nd; d++)
        if (__builtin_mul_overflow(numel, shape[d], &numel))
            Py_RETURN_NONE; /* Python raises torch's message for sizes this large */
    for (int k = 0; k < 2; k++) /* the operands broadcast: lt_layout_broadcast_shapes said so */
        if (!pyt_broadcast_strides(bstrides[k], nd, shape, ndims[k], shapes[k], strides[k]))
            return pyt_raise_last(LT_EINVAL);
    int out_code = op >= LT_OP_EQ ? LT_BOOL : code;
    size_t nbytes;
    if (__builtin_mul_overflow((size_t)numel, lt_dtype_itemsize((lt_dtype)out_code), &nbytes))
        Py_RETURN_NONE;
    lt_storage *s = NULL;
    if ((rc = lt_storage_new(&s, nbytes, 0)) != LT_OK)
        return pyt_raise_last(rc);
    /* a large job runs without the GIL, as the same call through cffi does */
    PyThreadState *ts = nbytes >= (1 << 16) ? PyEval_SaveThread() : NULL;
    rc = lt_binary((lt_binop)op, (lt_dtype)code, nd, shape, lt_storage_data(s), out_strides, data[0], bstrides[0],
                   data[1], bstrides[1]);
    if (ts)
        PyEval_RestoreThread(ts);
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_tensor_over(s, out_code, shape, out_strides, nd, 0);
}

/* ------------------------------------------------------------ reductions, casts, factories, in-place ops
 *
 * Each is the common case of a Python method in one crossing, returning
 * None to decline whatever the Python path must decide (its refusals and
 * their messages, rare dtypes, memory not on the host); that path is the
 * reference, and the tests compare the two. */

/* A tensor's view read from the object: 1, or 0 (declined, no error set). */
typedef pyt_view view_t;

static int read_view(view_t *v, TensorObject *t) { return pyt_read_view(v, t); }

/* The element count of a shape a tensor already has (so it fits int64 by
 * torch's rule, which lt_layout_numel applies: a zero extent anywhere makes 0). */
static int64_t numel_of(int32_t nd, const int64_t *shape)
{
    int64_t n = 0;
    return lt_layout_numel(&n, nd, shape) == LT_OK ? n : 0;
}

/* Runs rc = call with the GIL released when the job is large (_shim.h). */
#define MAYBE_NOGIL PYT_NOGIL

enum { RED_SUM, RED_MEAN, RED_ALL, RED_ANY };

/* The reduced dimensions of an nd-dim view from dim (None, an int or a tuple
 * of ints) into reduced[]: 1, or 0 to decline (out of range, repeated, an
 * empty tuple for all/any, a dim on a 0-d tensor: Python's messages). */
static int parse_dims(int *reduced, PyObject *dim, int32_t nd, int kind)
{
    for (int32_t d = 0; d < nd; d++)
        reduced[d] = dim == Py_None;
    if (dim == Py_None)
        return 1;
    if (nd == 0)
        return 0;
    int is_tuple = PyTuple_CheckExact(dim);
    Py_ssize_t count = is_tuple ? PyTuple_Size(dim) : 1;
    if (count == 0) { /* sum(()) reduces everything, all(()) nothing: torch's rules */
        if (kind == RED_ALL || kind == RED_ANY)
            return 0;
        for (int32_t d = 0; d < nd; d++)
            reduced[d] = 1;
        return 1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = is_tuple ? PyTuple_GetItem(dim, i) : dim;
        if (!item || !PyLong_CheckExact(item))
            return 0;
        long d = PyLong_AsLong(item);
        if (d == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (d < -(long)nd || d >= (long)nd)
            return 0;
        d = d < 0 ? d + nd : d;
        if (reduced[d])
            return 0;
        reduced[d] = 1;
    }
    return 1;
}

/* reduce(t, kind, dim, keepdim) -> Tensor or None: sum, mean, all, any
 * (kind 0..3) over dim with dtype=None. */
static PyObject *reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long kind = nargs == 4 ? PyLong_AsLong(args[1]) : -1;
    if (kind < RED_SUM || kind > RED_ANY || !pyt_is_tensor(args[0])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "reduce(t: Tensor, kind: 0..3, dim, keepdim: bool)");
        return NULL;
    }
    if (args[3] != Py_True && args[3] != Py_False)
        Py_RETURN_NONE;
    int keepdim = args[3] == Py_True;
    view_t v;
    if (!read_view(&v, (TensorObject *)args[0]))
        Py_RETURN_NONE;
    int code = v.code, out_code;
    if (kind == RED_SUM)
        out_code = code == LT_BOOL || (fast_dtype(code) && !is_float_code(code)) ? LT_INT64 : code;
    else if (kind == RED_MEAN)
        out_code = code;
    else
        out_code = code == LT_UINT8 ? LT_UINT8 : LT_BOOL;
    /* a float16/bfloat16 mean divides the float32 sum (torch's rule): the Python path */
    if ((kind == RED_SUM && !(code == LT_BOOL || fast_dtype(code))) ||
        (kind == RED_MEAN && (!is_float_code(code) || code == LT_FLOAT16 || code == LT_BFLOAT16)) ||
        ((kind == RED_ALL || kind == RED_ANY) && code >= LT_FLOAT4_E2M1FN_X2))
        Py_RETURN_NONE;
    int reduced[LT_MAX_NDIM] = {0};
    if (!parse_dims(reduced, args[2], v.nd, (int)kind))
        Py_RETURN_NONE;
    /* dst: the kept shape (1 on reduced dims), row-major, stride 0 where reduced */
    int64_t kept[LT_MAX_NDIM], dst_strides[LT_MAX_NDIM], out_shape[LT_MAX_NDIM], out_strides[LT_MAX_NDIM];
    int64_t acc = 1;
    for (int32_t d = v.nd - 1; d >= 0; d--) {
        kept[d] = reduced[d] ? 1 : v.shape[d];
        dst_strides[d] = reduced[d] ? 0 : acc;
        if (__builtin_mul_overflow(acc, kept[d] > 1 ? kept[d] : 1, &acc))
            Py_RETURN_NONE; /* no result can hold it: the Python path's message */
    }
    int64_t kept_numel = acc, numel = numel_of(v.nd, v.shape);
    if (lt_layout_numel(&kept_numel, v.nd, kept) != LT_OK)
        Py_RETURN_NONE; /* no result can hold it: the Python path's message */
    int32_t out_nd = 0;
    for (int32_t d = 0; d < v.nd; d++)
        if (keepdim || !reduced[d])
            out_shape[out_nd++] = kept[d];
    lt_status rc = lt_layout_contiguous_strides(out_strides, out_nd, out_shape);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    size_t out_isz = lt_dtype_itemsize((lt_dtype)out_code), in_bytes = (size_t)numel * lt_dtype_itemsize((lt_dtype)code);
    lt_storage *s = NULL;
    if ((rc = lt_storage_new(&s, (size_t)kept_numel * out_isz, 0)) != LT_OK)
        return pyt_raise_last(rc);
    char *out = lt_storage_data(s);
    if (kind == RED_ALL || kind == RED_ANY)
        MAYBE_NOGIL(in_bytes, lt_all_any(out, dst_strides, (lt_dtype)out_code, v.data, v.strides, (lt_dtype)code, v.nd,
                                         v.shape, kind == RED_ALL));
    else
        MAYBE_NOGIL(in_bytes, lt_sum(out, dst_strides, (lt_dtype)out_code, v.data, v.strides, (lt_dtype)code, v.nd,
                                     v.shape));
    if (rc == LT_OK && kind == RED_MEAN && kept_numel > 0) {
        /* torch's CPU mean: the sum divided by the count, as the Python path does */
        double count = kept_numel ? (double)(numel / kept_numel) : 0.0;
        _Alignas(16) unsigned char divisor[16];
        static const int64_t zero_strides[LT_MAX_NDIM];
        rc = lt_copy(divisor, NULL, (lt_dtype)code, &count, NULL, LT_FLOAT64, 0, NULL);
        if (rc == LT_OK)
            rc = lt_binary(LT_OP_DIV, (lt_dtype)code, out_nd, out_shape, out, out_strides, out, out_strides, divisor,
                           zero_strides);
    }
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_tensor_over(s, out_code, out_shape, out_strides, out_nd, 0);
}

/* t's values as dtype code in new memory, laid out as torch's preserve_format
 * (layout_order.c) or, with row_major, row-major; recorded as (op, arg) from
 * t. None declines a complex source into a real dtype (the Python path
 * warns), the storage-only float4, and what read_view declines. */
static PyObject *copy_to_new(TensorObject *t, long code, int row_major, long op, PyObject *arg)
{
    view_t v;
    if (!read_view(&v, t))
        Py_RETURN_NONE;
    if (code < 0)
        code = v.code;
    int src_complex = v.code == LT_COMPLEX64 || v.code == LT_COMPLEX128;
    int dst_complex = code == LT_COMPLEX64 || code == LT_COMPLEX128;
    if ((src_complex && !dst_complex && code != LT_BOOL) ||
        (code != v.code && (code == LT_FLOAT4_E2M1FN_X2 || v.code == LT_FLOAT4_E2M1FN_X2)))
        Py_RETURN_NONE;
    int64_t strides[LT_MAX_NDIM];
    lt_status rc = row_major ? lt_layout_contiguous_strides(strides, v.nd, v.shape)
                             : lt_layout_preserve_strides(strides, v.nd, v.shape, v.strides);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    int64_t numel = numel_of(v.nd, v.shape);
    size_t isz = lt_dtype_itemsize((lt_dtype)code), nbytes;
    if (__builtin_mul_overflow((size_t)numel, isz, &nbytes))
        Py_RETURN_NONE;
    lt_storage *s = NULL;
    if ((rc = lt_storage_new(&s, nbytes, 0)) != LT_OK)
        return pyt_raise_last(rc);
    if (numel)
        MAYBE_NOGIL(nbytes, lt_copy(lt_storage_data(s), strides, (lt_dtype)code, v.data, v.strides, (lt_dtype)v.code,
                                    v.nd, v.shape));
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_prov_fresh(pyt_tensor_over(s, (int)code, v.shape, strides, v.nd, 0), (int)op, arg, (PyObject *)t);
}

/* cast(t, code, prov_op, prov_arg) -> Tensor or None: t converted to dtype
 * code in new memory laid out as torch's preserve_format, recorded in
 * provenance as (prov_op, prov_arg) from t (copy_to_new). What to(), the
 * dtype shorthands and clone() do. */
static PyObject *cast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long code = nargs == 4 ? PyLong_AsLong(args[1]) : -1;
    long op = nargs == 4 ? PyLong_AsLong(args[2]) : -1;
    if (code < 0 || code >= LT_DTYPE_COUNT || !pyt_prov_op_valid(op) || !pyt_is_tensor(args[0])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "cast(t: Tensor, code: lt_dtype, prov_op, prov_arg)");
        return NULL;
    }
    return copy_to_new((TensorObject *)args[0], code, 0, op, args[3] == Py_None ? NULL : args[3]);
}

PyObject *pyt_contiguous_copy(PyObject *t) { return copy_to_new((TensorObject *)t, -1, 1, PROV_CONTIGUOUS, NULL); }

/* contiguous_copy(t) -> Tensor or None: contiguous()'s copy of a tensor
 * that is not contiguous, row-major in new memory, recorded as contiguous
 * from t (copy_to_new; None where it declines). */
static PyObject *contiguous_copy(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "contiguous_copy(t: Tensor)");
        return NULL;
    }
    return pyt_contiguous_copy(arg);
}

/* The fill value x as one element for lt_fill into dtype code, when the
 * Python path would take it without a refusal: bool always; an int within
 * the dtype's range (within +-65504 for the 16-bit floats, 2^53 for the
 * wider ones); a float into a floating dtype, finite values within its
 * range. Returns the value's lt_dtype, or -1 to decline. */
static int fill_value(unsigned char *buf, PyObject *x, int code)
{
    if (PyBool_Check(x)) {
        buf[0] = x == Py_True;
        return LT_BOOL;
    }
    if (code == LT_BOOL && PyLong_CheckExact(x)) { /* 0 and 1 as bools; other numbers: the Python path */
        long v = PyLong_AsLong(x);
        if (v != 0 && v != 1) {
            PyErr_Clear();
            return -1;
        }
        buf[0] = (unsigned char)v;
        return LT_BOOL;
    }
    if (code == LT_BOOL || code > LT_FLOAT64)
        return -1; /* bool from a float, complex, float8: the Python path */
    int is_float = is_float_code(code);
    if (PyLong_CheckExact(x)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
        static const long long lo[] = {[LT_UINT8] = 0, [LT_UINT16] = 0, [LT_UINT32] = 0, [LT_UINT64] = 0,
                                       [LT_INT8] = -128, [LT_INT16] = -32768, [LT_INT32] = INT32_MIN,
                                       [LT_INT64] = INT64_MIN, [LT_FLOAT16] = -65504, [LT_BFLOAT16] = -65504,
                                       [LT_FLOAT32] = -(1LL << 53), [LT_FLOAT64] = -(1LL << 53)};
        static const long long hi[] = {[LT_UINT8] = 255, [LT_UINT16] = 65535, [LT_UINT32] = UINT32_MAX,
                                       [LT_UINT64] = INT64_MAX, [LT_INT8] = 127, [LT_INT16] = 32767,
                                       [LT_INT32] = INT32_MAX, [LT_INT64] = INT64_MAX, [LT_FLOAT16] = 65504,
                                       [LT_BFLOAT16] = 65504, [LT_FLOAT32] = 1LL << 53, [LT_FLOAT64] = 1LL << 53};
        if (v < lo[code] || v > hi[code])
            return -1;
        memcpy(buf, &v, 8);
        return LT_INT64;
    }
    if (PyFloat_CheckExact(x) && is_float) {
        double d = PyFloat_AsDouble(x);
        double max = code == LT_FLOAT16    ? 65504.0
                     : code == LT_BFLOAT16 ? 3.3895313892515355e38 /* bfloat16's own largest finite value */
                     : code == LT_FLOAT64  ? 1.7976931348623157e308
                                           : 3.4028234663852886e38;
        if (d == d && (d > max || d < -max) && d - d == 0) /* finite and beyond the range: the Python path refuses */
            return -1;
        memcpy(buf, &d, 8);
        return LT_FLOAT64;
    }
    return -1;
}

/* filled(size, dtype, value, prov_arg[, like]) -> Tensor or None: new memory
 * of dtype, shaped by size (the factory's positional arguments: ints, or one
 * tuple of ints) or, with like, shaped and laid out like that tensor
 * (preserve_format); value None leaves it uninitialised, a zero allocates
 * zeroed pages, anything else is filled (fill_value's rules). Recorded in
 * provenance as a factory step with prov_arg. */
static PyObject *filled(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if ((nargs != 4 && nargs != 5) || !PyTuple_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "filled(size: tuple, dtype, value, prov_arg[, like])");
        return NULL;
    }
    int code = pyt_dtype_code_of(args[1]);
    if (code < 0 || code == LT_FLOAT4_E2M1FN_X2)
        Py_RETURN_NONE;
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    int32_t nd;
    if (nargs == 5 && args[4] != Py_None) {
        view_t v;
        if (!pyt_is_tensor(args[4]) || !read_view(&v, (TensorObject *)args[4]))
            Py_RETURN_NONE;
        nd = v.nd;
        memcpy(shape, v.shape, sizeof shape);
        lt_status rc = lt_layout_preserve_strides(strides, nd, shape, v.strides);
        if (rc != LT_OK)
            return pyt_raise_last(rc);
    } else {
        PyObject *size = args[0];
        if (PyTuple_Size(size) == 1 && PyTuple_CheckExact(PyTuple_GetItem(size, 0)))
            size = PyTuple_GetItem(size, 0);
        Py_ssize_t n = PyTuple_Size(size);
        if (n > LT_MAX_NDIM)
            Py_RETURN_NONE;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyTuple_GetItem(size, i);
            long long e = PyLong_CheckExact(x) ? PyLong_AsLongLong(x) : -1;
            if (e < 0) { /* negative, too large or no int: the Python path's messages */
                PyErr_Clear();
                Py_RETURN_NONE;
            }
            shape[i] = e;
        }
        nd = (int32_t)n;
        if (lt_layout_contiguous_strides(strides, nd, shape) != LT_OK)
            Py_RETURN_NONE; /* strides past int64: the Python path's message */
    }
    _Alignas(16) unsigned char value[16];
    int value_code = -2; /* uninitialised */
    if (args[2] != Py_None && (value_code = fill_value(value, args[2], code)) < 0)
        Py_RETURN_NONE;
    int zero = value_code >= 0 && (value_code == LT_BOOL ? value[0] == 0 : value_code == LT_INT64 ? *(int64_t *)(void *)value == 0
                                                                            : !memcmp(value, &(double){0.0}, 8));
    int64_t nbytes64;
    if (lt_layout_nbytes(&nbytes64, nd, shape, lt_dtype_itemsize((lt_dtype)code)) != LT_OK)
        Py_RETURN_NONE; /* too large: the Python path's message */
    size_t nbytes = (size_t)nbytes64;
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, nbytes, zero);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    if (value_code >= 0 && !zero)
        MAYBE_NOGIL(nbytes, lt_fill(lt_storage_data(s), strides, (lt_dtype)code, value, (lt_dtype)value_code, nd, shape));
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_prov_fresh(pyt_tensor_over(s, code, shape, strides, nd, 0), PROV_FACTORY,
                          args[3] == Py_None ? NULL : args[3], NULL);
}

/* binary_inplace(a, b, op) -> a or None: a <op>= b for ADD..DIV when a is
 * writable, dense and not overlapping itself, b is a tensor of a's dtype
 * that broadcasts to a's shape (the very same view if it shares a's
 * storage) or a Python number of a's kind. The caller records the write. */
static PyObject *binary_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : -1;
    if (op < LT_OP_ADD || op > LT_OP_DIV || !pyt_is_tensor(args[0])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "binary_inplace(a: Tensor, b, op: ADD..DIV)");
        return NULL;
    }
    TensorObject *a = (TensorObject *)args[0];
    StorageObject *st = (StorageObject *)a->storage;
    view_t va, vb;
    if (st->readonly != Py_False || !read_view(&va, a) || !fast_dtype(va.code) ||
        (op == LT_OP_DIV && !is_float_code(va.code)) ||
        !lt_layout_is_non_overlapping_and_dense(va.nd, va.shape, va.strides))
        Py_RETURN_NONE;
    _Alignas(16) unsigned char scalar[16];
    int64_t bstrides[LT_MAX_NDIM];
    const char *bdata;
    if (pyt_is_tensor(args[1])) {
        TensorObject *b = (TensorObject *)args[1];
        if (b->dtype != a->dtype || !read_view(&vb, b) ||
            !pyt_broadcast_strides(bstrides, va.nd, va.shape, vb.nd, vb.shape, vb.strides))
            Py_RETURN_NONE; /* does not broadcast to a: Python's message */
        if (b->storage == a->storage && (b != a && !(vb.data == va.data && vb.nd == va.nd &&
                                                     !memcmp(vb.shape, va.shape, sizeof(int64_t) * (size_t)va.nd) &&
                                                     !memcmp(vb.strides, va.strides, sizeof(int64_t) * (size_t)va.nd))))
            Py_RETURN_NONE; /* b aliases a in another way: the Python path copies first */
        bdata = vb.data;
    } else {
        if (!pyt_scalar_operand(scalar, args[1], va.code))
            Py_RETURN_NONE;
        memset(bstrides, 0, sizeof bstrides);
        bdata = (const char *)scalar;
    }
    size_t nbytes = (size_t)numel_of(va.nd, va.shape) * lt_dtype_itemsize((lt_dtype)va.code);
    lt_status rc;
    MAYBE_NOGIL(nbytes, lt_binary((lt_binop)op, (lt_dtype)va.code, va.nd, va.shape, va.data, va.strides, va.data,
                                  va.strides, bdata, bstrides));
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_INCREF((PyObject *)a);
    return (PyObject *)a;
}

/* equal(a, b) -> bool or None: torch.equal for two tensors of one dtype
 * (lt_equal, which stops at the first difference); False for other shapes.
 * Declines mixed dtypes (promotion) and the float8s and float4 (Python). */
static PyObject *equal(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !pyt_is_tensor(args[0]) || !pyt_is_tensor(args[1])) {
        PyErr_SetString(PyExc_TypeError, "equal(a: Tensor, b: Tensor)");
        return NULL;
    }
    TensorObject *a = (TensorObject *)args[0], *b = (TensorObject *)args[1];
    view_t va, vb;
    if (a->dtype != b->dtype || !read_view(&va, a) || !read_view(&vb, b) || va.code > LT_COMPLEX128)
        Py_RETURN_NONE;
    if (va.nd != vb.nd || memcmp(va.shape, vb.shape, sizeof(int64_t) * (size_t)va.nd))
        Py_RETURN_FALSE;
    int same = 0;
    size_t nbytes = (size_t)numel_of(va.nd, va.shape) * lt_dtype_itemsize((lt_dtype)va.code);
    lt_status rc;
    MAYBE_NOGIL(nbytes, lt_equal(&same, (lt_dtype)va.code, va.nd, va.shape, va.data, va.strides, vb.data, vb.strides));
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    return PyBool_FromLong(same);
}

/* permute_view(t, dims, op) -> Tensor or None: the view of t with its
 * dimensions in the order dims (a tuple of ints, negative ones wrapped), recorded
 * in provenance as op (permute, t, T) with the wrapped dims as its argument for
 * permute and none for the others. None declines what Python refuses with
 * torch's messages: a wrong count, a dim out of range, a repeat. */
static PyObject *permute_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : -1;
    if (!pyt_prov_op_valid(op) || !pyt_is_tensor(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "permute_view(t: Tensor, dims: tuple, op)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], out_shape[LT_MAX_NDIM], out_strides[LT_MAX_NDIM],
        dims[LT_MAX_NDIM];
    Py_ssize_t nd = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
    if (nd < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != nd || PyTuple_Size(args[1]) != nd) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int seen[LT_MAX_NDIM] = {0};
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *x = PyTuple_GetItem(args[1], i);
        long d = x && PyLong_CheckExact(x) ? PyLong_AsLong(x) : LONG_MIN;
        if (d == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (d < -(long)nd || d >= (long)nd)
            Py_RETURN_NONE;
        d = d < 0 ? d + (long)nd : d;
        if (seen[d]++)
            Py_RETURN_NONE;
        dims[i] = d;
        out_shape[i] = shape[d];
        out_strides[i] = strides[d];
    }
    PyObject *arg = NULL;
    if (op == PROV_PERMUTE && !(arg = pyt_int_tuple(dims, nd)))
        return NULL;
    Py_INCREF(t->offset);
    PyObject *out = pyt_view_steal(t, pyt_int_tuple(out_shape, nd), pyt_int_tuple(out_strides, nd), t->offset);
    out = pyt_prov_fresh(out, (int)op, arg, args[0]);
    Py_XDECREF(arg);
    return out;
}

/* fill_inplace(t, value) -> t or None: t.fill_(value) for a writable t and
 * a value fill_value takes; copy_inplace(dst, src) -> dst or None:
 * dst.copy_(src) for a writable dst whose elements are distinct locations
 * and a tensor src that broadcasts to it (lt_copy converts and handles any
 * overlap). Both decline a complex source into a real dtype (Python warns),
 * the float4 and memory off the host. The caller records the write. */
static int writable_view(view_t *v, TensorObject *t, int check_overlap)
{
    StorageObject *st = (StorageObject *)t->storage;
    return st->readonly == Py_False && read_view(v, t) && v->code != LT_FLOAT4_E2M1FN_X2 &&
           !(check_overlap && lt_layout_has_internal_overlap(v->nd, v->shape, v->strides));
}

static PyObject *fill_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !pyt_is_tensor(args[0])) {
        PyErr_SetString(PyExc_TypeError, "fill_inplace(t: Tensor, value)");
        return NULL;
    }
    view_t v;
    _Alignas(16) unsigned char value[16];
    int value_code;
    if (!writable_view(&v, (TensorObject *)args[0], 0) || (value_code = fill_value(value, args[1], v.code)) < 0)
        Py_RETURN_NONE;
    size_t nbytes = (size_t)numel_of(v.nd, v.shape) * lt_dtype_itemsize((lt_dtype)v.code);
    lt_status rc;
    MAYBE_NOGIL(nbytes, lt_fill(v.data, v.strides, (lt_dtype)v.code, value, (lt_dtype)value_code, v.nd, v.shape));
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_INCREF(args[0]);
    return args[0];
}

static PyObject *copy_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !pyt_is_tensor(args[0])) {
        PyErr_SetString(PyExc_TypeError, "copy_inplace(dst: Tensor, src)");
        return NULL;
    }
    view_t d, src;
    if (!pyt_is_tensor(args[1]) || !writable_view(&d, (TensorObject *)args[0], 1) ||
        !read_view(&src, (TensorObject *)args[1]) || src.code == LT_FLOAT4_E2M1FN_X2)
        Py_RETURN_NONE;
    int src_complex = src.code == LT_COMPLEX64 || src.code == LT_COMPLEX128;
    int dst_complex = d.code == LT_COMPLEX64 || d.code == LT_COMPLEX128;
    if (src_complex && !dst_complex && d.code != LT_BOOL)
        Py_RETURN_NONE;
    int64_t bstrides[LT_MAX_NDIM];
    if (!pyt_broadcast_strides(bstrides, d.nd, d.shape, src.nd, src.shape, src.strides))
        Py_RETURN_NONE; /* does not broadcast: Python's message */
    size_t nbytes = (size_t)numel_of(d.nd, d.shape) * lt_dtype_itemsize((lt_dtype)d.code);
    lt_status rc;
    MAYBE_NOGIL(nbytes, lt_copy(d.data, d.strides, (lt_dtype)d.code, src.data, bstrides, (lt_dtype)src.code, d.nd,
                                d.shape));
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_INCREF(args[0]);
    return args[0];
}

/* The two writes above for another shim file (t[index] = value, _shim_view.c). */
PyObject *pyt_fill_inplace(PyObject *t, PyObject *value)
{
    PyObject *args[2] = {t, value};
    return fill_inplace(NULL, args, 2);
}

PyObject *pyt_copy_inplace(PyObject *dst, PyObject *src)
{
    PyObject *args[2] = {dst, src};
    return copy_inplace(NULL, args, 2);
}

/* arange_int(start, end, step, prov_arg) -> Tensor or None: arange of plain
 * ints within +-2^31 as int64 (its dtype when none is given), recorded as a
 * factory step with prov_arg. Within that range the exact ceiling of
 * (end - start) / step is what the Python path's float division gives.
 * None for anything else, including the refusals (a zero step, a range
 * against the step's sign): the Python path's messages. */
static PyObject *arange_int(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "arange_int(start, end, step, prov_arg)");
        return NULL;
    }
    long long v[3];
    for (int k = 0; k < 3; k++) {
        if (!PyLong_CheckExact(args[k]))
            Py_RETURN_NONE;
        int overflow = 0;
        v[k] = PyLong_AsLongLongAndOverflow(args[k], &overflow);
        if (overflow || v[k] < -(1LL << 31) || v[k] > (1LL << 31)) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    long long start = v[0], span = v[1] - v[0], step = v[2];
    if (step == 0 || (span != 0 && (span < 0) != (step < 0)))
        Py_RETURN_NONE;
    long long n = span == 0 ? 0 : (span + step + (step > 0 ? -1 : 1)) / step; /* ceil(span / step) */
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, (size_t)n * 8, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    int64_t first = start, inc = step, shape[1] = {n}, strides[1] = {1};
    if (n)
        MAYBE_NOGIL((size_t)n * 8, lt_fill_arange(s, LT_INT64, n, &first, &inc, LT_INT64));
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_prov_fresh(pyt_tensor_over(s, LT_INT64, shape, strides, 1, 0), PROV_FACTORY,
                          args[3] == Py_None ? NULL : args[3], NULL);
}

/* expand_view(t, sizes, op) -> Tensor or None: t broadcast to sizes (a
 * tuple of ints, -1 keeping an extent) with zero strides, recorded as op
 * with the sizes as a plain tuple. None declines whatever the Python path
 * refuses with torch's messages (fewer sizes than dims, a non-singleton
 * mismatch, -1 in a new leading dim, a negative size, a count past int64). */
static PyObject *expand_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    long op = nargs == 3 ? PyLong_AsLong(args[2]) : -1;
    if (!pyt_prov_op_valid(op) || !pyt_is_tensor(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "expand_view(t: Tensor, sizes: tuple, op)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM], sizes[LT_MAX_NDIM], out_strides[LT_MAX_NDIM], numel;
    Py_ssize_t n = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM), m = PyTuple_Size(args[1]);
    if (n < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != n || m < n || m > LT_MAX_NDIM) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int grew = m > n;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *x = PyTuple_GetItem(args[1], i);
        int overflow = 0;
        long long want = x && PyLong_CheckExact(x) ? PyLong_AsLongLongAndOverflow(x, &overflow) : LLONG_MIN;
        if (overflow || want == LLONG_MIN || (want == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        Py_ssize_t j = i - (m - n);
        int64_t have = j >= 0 ? shape[j] : 1, st = j >= 0 ? strides[j] : 0;
        if (want == -1) {
            if (j < 0)
                Py_RETURN_NONE;
            want = have;
        }
        if (have != want) {
            if (have != 1 || want < 0)
                Py_RETURN_NONE;
            st = 0;
            grew = 1;
        }
        sizes[i] = want;
        out_strides[i] = st;
    }
    if (grew && lt_layout_numel(&numel, (int32_t)m, sizes) != LT_OK)
        Py_RETURN_NONE;
    PyObject *arg = pyt_int_tuple(sizes, m);
    if (!arg)
        return NULL;
    /* the record keeps the sizes as given (-1 included), as the Python path does */
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *x = PyTuple_GetItem(args[1], i);
        if (PyLong_AsLong(x) == -1) {
            Py_DECREF(arg);
            arg = PySequence_Tuple(args[1]);
            if (!arg)
                return NULL;
            break;
        }
    }
    Py_INCREF(t->offset);
    PyObject *out = pyt_view_steal(t, pyt_int_tuple(sizes, m), pyt_int_tuple(out_strides, m), t->offset);
    out = pyt_prov_fresh(out, (int)op, arg, args[0]);
    Py_DECREF(arg);
    return out;
}

/* conj_physical(t) -> Tensor or None: the conjugates of a dense complex
 * tensor's values in new memory with t's strides (torch's preserve_format
 * keeps a non-overlapping and dense layout), in one pass of
 * lt_complex_negate_parts over the block of numel elements from element 0.
 * None declines to the Python path (pytensor/_conj.py: conjugate_copy):
 * a real dtype, a tensor with bits or not in host memory (read_view), a
 * layout that is not non-overlapping and dense with non-negative strides
 * that preserve_format keeps, and an empty tensor. Records no provenance, as the Python path's
 * make_tensor does not; autograd wraps the method above this call. */
static PyObject *conj_physical(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_is_tensor(arg)) {
        PyErr_SetString(PyExc_TypeError, "conj_physical(t: Tensor)");
        return NULL;
    }
    view_t v;
    if (!read_view(&v, (TensorObject *)arg) || (v.code != LT_COMPLEX64 && v.code != LT_COMPLEX128) ||
        !lt_layout_is_non_overlapping_and_dense(v.nd, v.shape, v.strides))
        Py_RETURN_NONE;
    int64_t strides[LT_MAX_NDIM]; /* the result's layout must be t's own, as materialise requires */
    if (lt_layout_preserve_strides(strides, v.nd, v.shape, v.strides) != LT_OK)
        Py_RETURN_NONE; /* the Python path reports it */
    for (int32_t i = 0; i < v.nd; i++)
        if (v.strides[i] < 0 || strides[i] != v.strides[i])
            Py_RETURN_NONE;
    int64_t numel = numel_of(v.nd, v.shape);
    if (!numel)
        Py_RETURN_NONE;
    size_t nbytes = (size_t)numel * lt_dtype_itemsize((lt_dtype)v.code); /* fits: the input holds these bytes */
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, nbytes, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    MAYBE_NOGIL(nbytes, lt_complex_negate_parts(lt_storage_data(s), v.data, numel, (lt_dtype)v.code, 0, 1));
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_tensor_over(s, v.code, v.shape, v.strides, v.nd, 0);
}

PyMethodDef pyt_ops_methods[] = {
    {"conj_physical", conj_physical, METH_O,
     "conj_physical(t) -> Tensor or None: a dense complex tensor's conjugates in new memory, one pass."},
    {"expand_view", (PyCFunction)(void (*)(void))expand_view, METH_FASTCALL,
     "expand_view(t, sizes, op): t broadcast to sizes (a view); None when declined."},
    {"arange_int", (PyCFunction)(void (*)(void))arange_int, METH_FASTCALL,
     "arange_int(start, end, step, prov_arg): an int64 arange of small ints in one crossing; None when declined."},
    {"fill_inplace", (PyCFunction)(void (*)(void))fill_inplace, METH_FASTCALL,
     "fill_inplace(t, value): t.fill_(value) in one crossing; None when declined."},
    {"copy_inplace", (PyCFunction)(void (*)(void))copy_inplace, METH_FASTCALL,
     "copy_inplace(dst, src): dst.copy_(src) in one crossing; None when declined."},
    {"permute_view", (PyCFunction)(void (*)(void))permute_view, METH_FASTCALL,
     "permute_view(t, dims, op): t's dimensions reordered (a view); None when declined."},
    {"equal", (PyCFunction)(void (*)(void))equal, METH_FASTCALL,
     "equal(a, b): torch.equal for tensors of one dtype in one crossing; None when declined."},
    {"reduce", (PyCFunction)(void (*)(void))reduce, METH_FASTCALL,
     "reduce(t, kind, dim, keepdim): sum/mean/all/any (kind 0..3) in one crossing; None when declined."},
    {"contiguous_copy", contiguous_copy, METH_O,
     "contiguous_copy(t): contiguous()'s row-major copy in one crossing; None when declined."},
    {"cast", (PyCFunction)(void (*)(void))cast, METH_FASTCALL,
     "cast(t, code, prov_op, prov_arg): t converted into new memory (preserve_format); None when declined."},
    {"filled", (PyCFunction)(void (*)(void))filled, METH_FASTCALL,
     "filled(size, dtype, value, prov_arg[, like]): a new tensor, filled; None when declined."},
    {"binary_inplace", (PyCFunction)(void (*)(void))binary_inplace, METH_FASTCALL,
     "binary_inplace(a, b, op): a <op>= b in one crossing; None when declined."},
    {"is_contiguous", is_contiguous, METH_O,
     "is_contiguous(tensor): whether its strides are row-major (lt_layout_is_contiguous)."},
    {"result_strides", (PyCFunction)(void (*)(void))result_strides, METH_FASTCALL,
     "result_strides(shape, *operands): the strides torch gives an elementwise result (lt_layout_result_strides)."},
    {"binary", (PyCFunction)(void (*)(void))binary, METH_FASTCALL,
     "binary(a, b, op): a <op> b in one crossing for the common case; None when declined (see _ops.binary)."},
    {NULL, NULL, 0, NULL},
};
