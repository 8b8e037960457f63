/* _shim_keepalive.c: Python objects kept alive by a storage.
 *
 * A storage over Python memory (an ndarray's, a buffer export's) holds the
 * object that owns the bytes until the storage's deleter runs: exactly
 * once, when the last holder lets go, on any thread (a DLPack consumer may
 * release it from one the interpreter never saw), possibly during
 * interpreter shutdown. So the deleters take the GIL themselves, and once
 * the atexit hook has run they leak the reference instead of touching an
 * interpreter that is being torn down. */
#include <stdatomic.h>
#include <stdlib.h>

#include "_shim.h"

/* Set by an atexit hook (pytensor/_ffi.py, through cffi). */
static atomic_int finalizing;

void pyt_set_finalizing(void) { atomic_store(&finalizing, 1); }

static int interpreter_ending(void) { return atomic_load(&finalizing) || !Py_IsInitialized(); }

void pyt_decref_deleter(void *ctx)
{
    if (interpreter_ending())
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

void pyt_release_buffer_deleter(void *ctx)
{
    if (interpreter_ending())
        return; /* leak the export rather than touch a dying interpreter */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release((Py_buffer *)ctx);
    PyGILState_Release(g);
    free(ctx);
}

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
                                   pyt_decref_deleter, keep);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    lt_storage_set_label(s, label);
    return pyt_storage_object(s);
}

PyMethodDef pyt_keepalive_methods[] = {
    {"wrap_object", wrap_object, METH_VARARGS, "Wrap memory kept alive by a Python object."},
    {NULL, NULL, 0, NULL},
};
