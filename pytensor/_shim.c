/* _shim.c: the module "pytensor._shim", assembled from the shim's files.
 *
 * cffi calls run with the GIL released and cannot see PyObject*, so the
 * few jobs that need CPython live in the _shim*.c files as real CPython
 * functions (see _shim.h for the list and each file's job). This file only
 * adds each file's method table, the two C base types and the provenance
 * op names to the module, once, at import. */
#include "_shim.h"

/* The method tables, in the order _shim.h lists the files. */
static PyMethodDef *const method_tables[] = {
    pyt_keepalive_methods, pyt_types_methods, pyt_prov_methods,     pyt_share_methods,       pyt_view_methods,
    pyt_list_methods,      pyt_dlpack_methods, pyt_exchange_methods, pyt_safetensors_methods,
    pyt_shm_methods,       pyt_ops_methods,     pyt_index_methods,    pyt_random_methods,
};

/* Fills module m. Returns 0, or -1 with an exception. */
static int fill_module(PyObject *m)
{
    for (size_t i = 0; i < sizeof method_tables / sizeof method_tables[0]; i++)
        if (PyModule_AddFunctions(m, method_tables[i]) != 0)
            return -1;
    if (pyt_add_types(m) != 0)
        return -1;
    PyObject *ops = pyt_prov_op_names();
    if (!ops || PyModule_AddObject(m, "prov_ops", ops) != 0) {
        Py_XDECREF(ops);
        return -1;
    }
    return 0;
}

/* Called once through cffi at import (the GIL is not held there). */
int pyt_shim_init(void)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *m = PyImport_AddModule("pytensor._shim"); /* borrowed */
    int rc = m && fill_module(m) == 0 ? 0 : -1;
    if (rc != 0)
        PyErr_Clear();
    PyGILState_Release(g);
    return rc;
}
