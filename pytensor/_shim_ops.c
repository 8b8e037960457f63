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
 * is_contiguous(tensor): the same for the contiguity test. */
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

PyMethodDef pyt_ops_methods[] = {
    {"is_contiguous", is_contiguous, METH_O,
     "is_contiguous(tensor): whether its strides are row-major (lt_layout_is_contiguous)."},
    {"result_strides", (PyCFunction)(void (*)(void))result_strides, METH_FASTCALL,
     "result_strides(shape, *operands): the strides torch gives an elementwise result (lt_layout_result_strides)."},
    {NULL, NULL, 0, NULL},
};
