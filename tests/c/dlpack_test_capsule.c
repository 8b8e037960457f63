/* dlpack_test_capsule.c: wraps a managed tensor made by the test producer
 * (dlpack_test_producer.c) in a DLPack capsule, for the tests that hand
 * pytensor hand-built, even malformed, exports (tests/dlpack_producer.py
 * builds it with the system compiler and imports it).
 *
 * It lives here, not in pytensor's shim, because it turns any integer into
 * a pointer the interpreter will follow: a hook no shipped module may have.
 * The capsule follows the DLPack Python spec as a producer's would: named
 * "dltensor" or "dltensor_versioned", its destructor calls the deleter only
 * while the capsule is unconsumed. Only the DLPack ABI header is included. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "libtensor/dlpack_abi.h"

static void destroy_legacy(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor")) { /* never consumed: the capsule still owns it */
        DLManagedTensor *mt = PyCapsule_GetPointer(cap, "dltensor");
        if (mt && mt->deleter)
            mt->deleter(mt);
    }
}

static void destroy_versioned(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *mt = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (mt && mt->deleter)
            mt->deleter(mt);
    }
}

/* wrap(address, versioned) -> a capsule owning the managed tensor at address
 * (a DLManagedTensorVersioned when versioned, else a DLManagedTensor). */
static PyObject *wrap(PyObject *self, PyObject *args)
{
    PyObject *address;
    int versioned;
    (void)self;
    if (!PyArg_ParseTuple(args, "Op", &address, &versioned))
        return NULL;
    void *managed = PyLong_AsVoidPtr(address);
    if (!managed) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "wrap(): the address is NULL");
        return NULL;
    }
    PyObject *cap = PyCapsule_New(managed, versioned ? "dltensor_versioned" : "dltensor",
                                  versioned ? destroy_versioned : destroy_legacy);
    if (!cap) { /* no capsule took ownership: free the export here, as a producer must */
        if (versioned)
            ((DLManagedTensorVersioned *)managed)->deleter(managed);
        else
            ((DLManagedTensor *)managed)->deleter(managed);
    }
    return cap;
}

static PyMethodDef methods[] = {
    {"wrap", wrap, METH_VARARGS, "wrap(address, versioned) -> a DLPack capsule owning that managed tensor."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "dlpack_test_capsule", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_dlpack_test_capsule(void)
{
    return PyModule_Create(&module);
}
