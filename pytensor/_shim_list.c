/* _shim_list.c: tensor(nested list of Python numbers), for the one kind of
 * input it takes whole.
 *
 * Its kind: a rectangular, non-empty nest of exact lists and tuples whose
 * leaves are exact floats and ints within int64, stored as the inferred
 * dtype (the default float dtype if any leaf is a float, else int64) or as
 * float32, float64 or int64 asked for. Every such input is converted here,
 * in two C passes (check the structure and the leaf types, then write
 * straight into the new storage), and no such input can fail. Everything
 * else is another kind, returned as None to pytensor/_convert_in.py, which
 * holds the general rules and all their errors (bools, NumPy scalars,
 * tensors, ragged or empty nests, ints beyond int64, other dtypes): this
 * file raises nothing of its own, so no rule lives twice.
 *
 * Repeated inner lists ([[0] * n] * m) are data here as in Python's path:
 * nothing tracks ids. A list that contains itself can never pass nest_scan
 * (its first-element chain is either endless, stopped at LT_MAX_NDIM, or
 * reaches a number at two different depths, which the per-depth lengths
 * and leaf types refuse), so cycles always go to _convert_in.py, which
 * refuses them. */
#include <string.h>

#include "_shim.h"

typedef struct {
    int64_t shape[LT_MAX_NDIM];
    Py_ssize_t nd;
    int has_float;
} nest_info;

/* Length of an exact list or tuple, or -1 for anything else. */
static Py_ssize_t nest_len(PyObject *o)
{
    if (PyList_CheckExact(o))
        return PyList_Size(o);
    if (PyTuple_CheckExact(o))
        return PyTuple_Size(o);
    return -1;
}

static PyObject *nest_item(PyObject *o, Py_ssize_t i) /* borrowed */
{
    return PyList_CheckExact(o) ? PyList_GetItem(o, i) : PyTuple_GetItem(o, i);
}

/* Pass 1: every sequence at depth d has length shape[d] and every leaf is
 * an exact float or int. Returns 0, or -1 when the Python path must decide. */
static int nest_scan(PyObject *o, Py_ssize_t depth, nest_info *info)
{
    Py_ssize_t n = nest_len(o);
    if (n != info->shape[depth])
        return -1;
    if (depth + 1 < info->nd) { /* depth <= LT_MAX_NDIM: no recursion guard needed */
        for (Py_ssize_t i = 0; i < n; i++)
            if (nest_scan(nest_item(o, i), depth + 1, info) != 0)
                return -1;
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = nest_item(o, i);
        if (PyFloat_CheckExact(x))
            info->has_float = 1;
        else if (!PyLong_CheckExact(x))
            return -1;
    }
    return 0;
}

/* Pass 2: writes the leaves in row-major order at *cursor as `code`
 * (LT_FLOAT32, LT_FLOAT64 or LT_INT64). Returns 0, or -1 (exception
 * cleared) for a value the Python path must judge. */
static int nest_write(PyObject *o, Py_ssize_t depth, const nest_info *info, int code, char **cursor)
{
    Py_ssize_t n = info->shape[depth];
    if (depth + 1 < info->nd) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (nest_write(nest_item(o, i), depth + 1, info, code, cursor) != 0)
                return -1;
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = nest_item(o, i);
        if (code == LT_INT64) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            if (overflow)
                return -1;
            memcpy(*cursor, &v, 8);
            *cursor += 8;
            continue;
        }
        double v = PyFloat_CheckExact(x) ? PyFloat_AsDouble(x) : PyLong_AsDouble(x);
        if (v == -1.0 && PyErr_Occurred()) { /* an int beyond double's range */
            PyErr_Clear();
            return -1;
        }
        if (code == LT_FLOAT32) {
            float f = (float)v;
            memcpy(*cursor, &f, 4);
            *cursor += 4;
        } else {
            memcpy(*cursor, &v, 8);
            *cursor += 8;
        }
    }
    return 0;
}

/* pack_nest(data, dtype_code, default_float_code) -> new row-major Tensor
 * holding data, or None. dtype_code -1 infers torch's dtype: the default
 * float dtype when any leaf is a float, else int64. */
static PyObject *pack_nest(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3)
        Py_RETURN_NONE;
    PyObject *data = args[0];
    long code = PyLong_AsLong(args[1]), default_float = PyLong_AsLong(args[2]);
    if (PyErr_Occurred())
        return NULL;
    nest_info info = {{0}, 0, 0};
    int64_t numel = 1;
    for (PyObject *o = data;;) { /* the shape, from first elements, as torch sizes it */
        Py_ssize_t n = nest_len(o);
        if (n < 0)
            break;
        if (n == 0 || info.nd == LT_MAX_NDIM)
            Py_RETURN_NONE; /* empty dims and deep nests: the Python path */
        info.shape[info.nd++] = n;
        /* a nest whose rows are one list repeated ([[x] * n] * m) counts more
         * elements than the lists hold: a count past int64 is the Python path's */
        if (__builtin_mul_overflow(numel, (int64_t)n, &numel))
            Py_RETURN_NONE;
        o = nest_item(o, 0);
    }
    if (info.nd == 0 || nest_scan(data, 0, &info) != 0)
        Py_RETURN_NONE;
    if (code < 0)
        code = info.has_float ? default_float : LT_INT64;
    if (!(code == LT_FLOAT32 || code == LT_FLOAT64 || (code == LT_INT64 && !info.has_float)))
        Py_RETURN_NONE;
    size_t isz = lt_dtype_itemsize((lt_dtype)code);
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, (size_t)numel * isz, 0);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    char *cursor = lt_storage_data(s);
    if (nest_write(data, 0, &info, (int)code, &cursor) != 0) {
        lt_storage_release(s);
        Py_RETURN_NONE;
    }
    int64_t strides[LT_MAX_NDIM];
    if ((rc = lt_layout_contiguous_strides(strides, (int32_t)info.nd, info.shape)) != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_prov_fresh(pyt_tensor_over(s, (int)code, info.shape, strides, info.nd, 0), PROV_TENSOR,
                       (PyObject *)Py_TYPE(data), NULL);
}

PyMethodDef pyt_list_methods[] = {
    {"pack_nest", (PyCFunction)(void (*)(void))pack_nest, METH_FASTCALL, "tensor(list)'s common case."},
    {NULL, NULL, 0, NULL},
};
