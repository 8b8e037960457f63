/* exchange_consumer.c: a DLPack C exchange API consumer, as a C extension
 * would write one, for tests/interop/test_dlpack_exchange_api.py (built there with
 * the system compiler; see tests/exchange_consumer.py).
 *
 * It knows nothing of pytensor: it reads type(obj).__dlpack_c_exchange_api__,
 * checks the capsule's name and the table's version, and calls the table.
 * Only the DLPack ABI header is included. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <time.h>

#include "libtensor/dlpack_abi.h"

typedef struct api_header {
    DLPackVersion version;
    struct api_header *prev_api;
} api_header;

typedef void (*set_error_fn)(void *ctx, const char *kind, const char *message);
typedef struct {
    api_header header;
    int (*allocator)(DLTensor *prototype, DLManagedTensorVersioned **out, void *ctx, set_error_fn set_error);
    int (*from_py)(void *obj, DLManagedTensorVersioned **out);
    int (*to_py)(DLManagedTensorVersioned *tensor, void **out_obj);
    int (*dltensor_from_py)(void *obj, DLTensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_stream);
} exchange_api;

/* The table published by obj's type (a type object is taken as itself). */
static const exchange_api *api_of(PyObject *obj)
{
    PyObject *tp = PyType_Check(obj) ? obj : (PyObject *)Py_TYPE(obj);
    PyObject *cap = PyObject_GetAttrString(tp, "__dlpack_c_exchange_api__");
    if (!cap)
        return NULL;
    const exchange_api *api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
    Py_DECREF(cap); /* the table is static: it outlives the capsule */
    if (api && api->header.version.major != 1) {
        PyErr_Format(PyExc_RuntimeError, "exchange API major version %u, expected 1", api->header.version.major);
        return NULL;
    }
    return api;
}

static PyObject *api_info(PyObject *self, PyObject *obj)
{
    (void)self;
    const exchange_api *api = api_of(obj);
    if (!api)
        return NULL;
    return Py_BuildValue("{s(II)sOs(OOOOO)}", "version", api->header.version.major, api->header.version.minor,
                         "prev_api_null", api->header.prev_api ? Py_False : Py_True, "present",
                         api->allocator ? Py_True : Py_False, api->from_py ? Py_True : Py_False,
                         api->to_py ? Py_True : Py_False, api->dltensor_from_py ? Py_True : Py_False,
                         api->current_work_stream ? Py_True : Py_False);
}

static PyObject *int64_list(const int64_t *xs, int32_t n)
{
    PyObject *out = PyList_New(0);
    for (int32_t i = 0; out && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(xs ? xs[i] : -1);
        if (!x || PyList_Append(out, x) != 0) {
            Py_XDECREF(x);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(x);
    }
    return out;
}

/* Everything a consumer reads from a versioned managed tensor. */
static PyObject *fields(const DLManagedTensorVersioned *m)
{
    const DLTensor *t = &m->dl_tensor;
    PyObject *shape = int64_list(t->shape, t->ndim), *strides = int64_list(t->strides, t->ndim);
    PyObject *d = (shape && strides)
        ? Py_BuildValue("{s(II)sKsKsisis(iii)sOsOsK}", "version", m->version.major, m->version.minor, "flags",
                        (unsigned long long)m->flags, "data", (unsigned long long)(uintptr_t)t->data, "device_type",
                        (int)t->device.device_type, "ndim", (int)t->ndim, "dtype", (int)t->dtype.code,
                        (int)t->dtype.bits, (int)t->dtype.lanes, "shape", shape, "strides", strides, "byte_offset",
                        (unsigned long long)t->byte_offset)
        : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return d;
}

/* export_fields(obj) -> the fields of the owning export; the export is freed. */
static PyObject *export_fields(PyObject *self, PyObject *obj)
{
    (void)self;
    const exchange_api *api = api_of(obj);
    DLManagedTensorVersioned *m = NULL;
    if (!api || api->from_py(obj, &m) != 0)
        return NULL;
    PyObject *d = fields(m);
    if (m->deleter)
        m->deleter(m);
    return d;
}

/* capsule_fields(capsule) -> the same fields, read from a dltensor_versioned capsule. */
static PyObject *capsule_fields(PyObject *self, PyObject *cap)
{
    (void)self;
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
    return m ? fields(m) : NULL;
}

/* roundtrip(obj) -> obj exported and imported back through obj's own table. */
static PyObject *roundtrip(PyObject *self, PyObject *obj)
{
    (void)self;
    const exchange_api *api = api_of(obj);
    DLManagedTensorVersioned *m = NULL;
    void *out = NULL;
    if (!api || api->from_py(obj, &m) != 0 || api->to_py(m, &out) != 0)
        return NULL;
    return out;
}

/* cross(producer, consumer_type) -> producer exported by its type's table and
 * imported by consumer_type's table (e.g. torch's export into pytensor). */
static PyObject *cross(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *producer, *consumer;
    if (!PyArg_ParseTuple(args, "OO", &producer, &consumer))
        return NULL;
    const exchange_api *from = api_of(producer), *to = from ? api_of(consumer) : NULL;
    DLManagedTensorVersioned *m = NULL;
    void *out = NULL;
    if (!to || from->from_py(producer, &m) != 0 || to->to_py(m, &out) != 0)
        return NULL;
    return out;
}

/* to_py_null(type) -> what the table's import does with a NULL tensor (it must raise). */
static PyObject *to_py_null(PyObject *self, PyObject *tp)
{
    (void)self;
    const exchange_api *api = api_of(tp);
    void *out = NULL;
    if (!api || api->to_py(NULL, &out) != 0)
        return NULL;
    return out;
}

static char error_kind[64], error_message[512];
static void record_error(void *ctx, const char *kind, const char *message)
{
    *(int *)ctx = 1;
    snprintf(error_kind, sizeof error_kind, "%s", kind);
    snprintf(error_message, sizeof error_message, "%s", message);
}

/* alloc(type, shape, (code, bits, lanes), device_type) -> a new tensor made
 * by the table's allocator and imported by its to_py; an allocator error is
 * raised as "kind: message" (RuntimeError). */
static PyObject *alloc(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *tp, *shape_obj;
    int code, bits, lanes, device_type;
    if (!PyArg_ParseTuple(args, "OO(iii)i", &tp, &shape_obj, &code, &bits, &lanes, &device_type))
        return NULL;
    const exchange_api *api = api_of(tp);
    if (!api)
        return NULL;
    int64_t shape[16];
    Py_ssize_t ndim = PySequence_Size(shape_obj);
    if (ndim < 0 || ndim > 16)
        return NULL;
    for (Py_ssize_t i = 0; i < ndim; i++) {
        PyObject *x = PySequence_GetItem(shape_obj, i);
        shape[i] = x ? PyLong_AsLongLong(x) : -1;
        Py_XDECREF(x);
    }
    DLTensor proto = {0};
    proto.device.device_type = device_type;
    proto.ndim = (int32_t)ndim;
    proto.dtype.code = (uint8_t)code;
    proto.dtype.bits = (uint8_t)bits;
    proto.dtype.lanes = (uint16_t)lanes;
    proto.shape = ndim ? shape : NULL;
    DLManagedTensorVersioned *m = NULL;
    int failed = 0;
    if (api->allocator(&proto, &m, &failed, record_error) != 0 || failed) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", error_kind, error_message);
        return NULL;
    }
    void *out = NULL;
    if (api->to_py(m, &out) != 0)
        return NULL;
    return out;
}

/* stream(type) -> (rc, stream is NULL) for kDLCPU device 0. */
static PyObject *stream(PyObject *self, PyObject *tp)
{
    (void)self;
    const exchange_api *api = api_of(tp);
    void *s = (void *)1;
    if (!api)
        return NULL;
    int rc = api->current_work_stream(kDLCPU, 0, &s);
    return Py_BuildValue("(iO)", rc, s == NULL ? Py_True : Py_False);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* export_ns(obj, n) -> nanoseconds per owning export + deleter, over n calls. */
static PyObject *export_ns(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj;
    long n;
    if (!PyArg_ParseTuple(args, "Ol", &obj, &n))
        return NULL;
    const exchange_api *api = api_of(obj);
    if (!api)
        return NULL;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        DLManagedTensorVersioned *m = NULL;
        if (api->from_py(obj, &m) != 0)
            return NULL;
        m->deleter(m);
    }
    return PyFloat_FromDouble((now_ns() - t0) / (double)n);
}

static PyMethodDef methods[] = {
    {"api_info", api_info, METH_O, NULL},
    {"export_fields", export_fields, METH_O, NULL},
    {"capsule_fields", capsule_fields, METH_O, NULL},
    {"roundtrip", roundtrip, METH_O, NULL},
    {"cross", cross, METH_VARARGS, NULL},
    {"to_py_null", to_py_null, METH_O, NULL},
    {"alloc", alloc, METH_VARARGS, NULL},
    {"stream", stream, METH_O, NULL},
    {"export_ns", export_ns, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "exchange_consumer", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_exchange_consumer(void) { return PyModule_Create(&module); }
