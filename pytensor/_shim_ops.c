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
 * rules (promotion, NumPy operands, the refusals and their messages). */
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

/* The data pointer of t's element 0, or NULL when its storage is not host memory. */
static char *element0(TensorObject *t, size_t itemsize)
{
    StorageObject *st = (StorageObject *)t->storage;
    if (st->host != Py_True)
        return NULL;
    long long offset = PyLong_AsLongLong(t->offset);
    if (offset == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    return (char *)lt_storage_data(st->s) + (size_t)offset * itemsize;
}

/* A Python number as one element of tensor dtype code in buf, when it is of
 * the tensor's kind and converts exactly as the Python path converts it
 * (a float for float32/float64 tensors; a small int for any fast dtype).
 * Returns 1 when written, 0 to decline. */
static int scalar_operand(unsigned char *buf, PyObject *x, int code)
{
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
        if (overflow || v < lo || v > hi)
            return 0;
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
            if (!scalar_operand(scalar, args[k], code))
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
    for (int k = 0; k < 2; k++) /* 0 where operand k is missing the dim or stretches an extent of 1 */
        for (int32_t d = 0, pad = nd - ndims[k]; d < nd; d++)
            bstrides[k][d] = d < pad || shapes[k][d - pad] == 1 ? 0 : strides[k][d - pad];
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

PyMethodDef pyt_ops_methods[] = {
    {"is_contiguous", is_contiguous, METH_O,
     "is_contiguous(tensor): whether its strides are row-major (lt_layout_is_contiguous)."},
    {"result_strides", (PyCFunction)(void (*)(void))result_strides, METH_FASTCALL,
     "result_strides(shape, *operands): the strides torch gives an elementwise result (lt_layout_result_strides)."},
    {"binary", (PyCFunction)(void (*)(void))binary, METH_FASTCALL,
     "binary(a, b, op): a <op> b in one crossing for the common case; None when declined (see _ops.binary)."},
    {NULL, NULL, 0, NULL},
};
