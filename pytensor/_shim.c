/* _shim.c: the only C in pytensor that includes Python.h.
 *
 * cffi calls run with the GIL released and cannot see PyObject*, so the
 * few jobs that need CPython live here as real CPython functions, added to
 * the module "pytensor._shim" by pyt_shim_init():
 *   - keep a Python object alive for exactly as long as a storage uses its
 *     memory (the storage's deleter drops the reference, from any thread);
 *   - make and consume DLPack capsules, and publish the DLPack C exchange API;
 *   - the C fields of UntypedStorage and Tensor, and the zero-copy
 *     constructors' common case, so that a constructor costs what torch's does;
 *   - provenance: how each tensor was made, recorded for a few ns a view.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libtensor.h"

/* Set by an atexit hook. After it, deleters leak their Python reference
 * instead of taking the GIL of an interpreter that is being torn down. */
static atomic_int finalizing;

void pyt_set_finalizing(void) { atomic_store(&finalizing, 1); }

/* Storage deleter for borrowed Python memory: ctx is a strong reference. */
static void decref_deleter(void *ctx)
{
    if (atomic_load(&finalizing) || !Py_IsInitialized())
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

#include "_shim_types.h"
#include "_shim_prov.h"

/* wrap_object(keep, data_addr, nbytes, flags, provenance, label)
 *   -> UntypedStorage; raises libtensor's error on failure.
 * The storage holds a strong reference to keep until its deleter runs. */
static PyObject *wrap_object(PyObject *self, PyObject *args)
{
    PyObject *keep, *addr_obj;
    Py_ssize_t nbytes;
    unsigned flags;
    int provenance;
    const char *label;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOnIis", &keep, &addr_obj, &nbytes, &flags, &provenance, &label))
        return NULL;
    void *data = PyLong_AsVoidPtr(addr_obj);
    if (data == NULL && PyErr_Occurred())
        return NULL;
    if (nbytes < 0) {
        PyErr_SetString(PyExc_ValueError, "nbytes must be >= 0");
        return NULL;
    }
    lt_storage *s = NULL;
    Py_INCREF(keep);
    /* On failure lt_storage_wrap runs the deleter itself, dropping keep. */
    lt_status rc = lt_storage_wrap(&s, data, (size_t)nbytes, flags, (lt_provenance)provenance,
                                   decref_deleter, keep);
    if (rc != LT_OK)
        return raise_last(rc);
    lt_storage_set_label(s, label);
    return storage_object(s);
}

#include "_shim_share.h"
#include "_shim_view.h"
#include "_shim_list.h"
#include "_shim_dlpack.h"
#include "_shim_exchange.h"
#include "_shim_safetensors.h"

static PyMethodDef shim_methods[] = {
    {"wrap_object", wrap_object, METH_VARARGS, "Wrap memory kept alive by a Python object."},
    SHIM_TYPES_METHODS
    SHIM_SHARE_METHODS
    SHIM_VIEW_METHODS
    SHIM_LIST_METHODS
    SHIM_DLPACK_METHODS
    SHIM_EXCHANGE_METHODS
    SHIM_SAFETENSORS_METHODS
    SHIM_PROV_METHODS
    {NULL, NULL, 0, NULL},
};

/* Called once through cffi at import (the GIL is not held there). */
int pyt_shim_init(void)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *m = PyImport_AddModule("pytensor._shim"); /* borrowed */
    int rc = (m && PyModule_AddFunctions(m, shim_methods) == 0 && add_types(m) == 0) ? 0 : -1;
    PyObject *ops = rc == 0 ? prov_op_names() : NULL;
    if (!ops || PyModule_AddObject(m, "prov_ops", ops) != 0) {
        Py_XDECREF(ops);
        rc = -1;
    }
    if (rc != 0)
        PyErr_Clear();
    PyGILState_Release(g);
    return rc;
}
