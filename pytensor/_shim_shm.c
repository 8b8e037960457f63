/* _shim_shm.c: shared-memory storages as UntypedStorage objects (new ones,
 * received ones) and share_memory_()'s one step that needs the storage
 * object's insides: moving its bytes into shared memory under the same object.
 *
 * Every view holds the UntypedStorage object, never the bytes' address, so
 * pointing that one object at a new libtensor storage moves every view at
 * once (their data_ptr() changes, as torch's share_memory_ does). Holders
 * of the old address that this object cannot redirect (a DLPack export, a
 * NumPy array over the bytes, a second storage object over the same
 * lt_storage) are each a reference or a pin on the old lt_storage, so the
 * move is refused while any exists: they would be left on freed bytes. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "_shim.h"

/* Faults in the pages of [data, data + nbytes) with one call before the
 * copy writes them, instead of one trap per page during the copy. A kernel
 * before 5.14 lacks MADV_POPULATE_WRITE (EINVAL); the copy then faults them. */
static void prefault(void *data, size_t nbytes)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)data & ~(page - 1), hi = ((uintptr_t)data + nbytes + page - 1) & ~(page - 1);
    madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)nbytes;
#endif
}

/* adopt_bytes(storage, shared): copies storage's bytes into shared (a fresh
 * storage object of the same size, which stays valid and now shares the
 * lt_storage) and points storage at shared's lt_storage, releasing the old
 * one. The copy runs with the GIL held, so no pytensor call in another
 * thread can write the old bytes meanwhile. */
static PyObject *adopt_bytes(PyObject *self, PyObject *args)
{
    PyObject *dst_obj, *src_obj;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &dst_obj, &src_obj))
        return NULL;
    if (!pyt_storage_cls || !PyObject_TypeCheck(dst_obj, pyt_storage_cls) ||
        !PyObject_TypeCheck(src_obj, pyt_storage_cls) || dst_obj == src_obj) {
        PyErr_SetString(PyExc_TypeError, "adopt_bytes(storage, shared): two distinct UntypedStorage objects");
        return NULL;
    }
    StorageObject *dst = (StorageObject *)dst_obj, *src = (StorageObject *)src_obj;
    size_t nbytes = lt_storage_nbytes(dst->s);
    int64_t holders = lt_storage_refcount(dst->s) - 1;
    char message[320];
    if (lt_storage_nbytes(src->s) != nbytes) {
        snprintf(message, sizeof message, "adopt_bytes: the shared storage holds %zu bytes, not %zu",
                 lt_storage_nbytes(src->s), nbytes);
        return pyt_raise_status(LT_EINVAL, message);
    }
    if (holders > 0 || (lt_storage_flags(dst->s) & LT_STORAGE_PINNED)) {
        if (holders > 0)
            snprintf(message, sizeof message,
                     "cannot move this storage's %zu bytes into shared memory: %lld other holders (DLPack or buffer "
                     "exports) use their address and would be left on freed memory; share a copy instead "
                     "(t.clone().share_memory_())", nbytes, (long long)holders);
        else
            snprintf(message, sizeof message,
                     "cannot move this storage's %zu bytes into shared memory: a NumPy array uses their address and "
                     "would be left on freed memory; share a copy instead (t.clone().share_memory_())", nbytes);
        return pyt_raise_status(LT_EINVAL, message);
    }
    PyObject *addr = PyLong_FromVoidPtr(lt_storage_data(src->s));
    if (!addr)
        return NULL;
    PyObject *readonly = PyBool_FromLong((lt_storage_flags(src->s) & LT_STORAGE_READONLY) != 0);
    if (nbytes) {
        prefault(lt_storage_data(src->s), nbytes);
        memcpy(lt_storage_data(src->s), lt_storage_data(dst->s), nbytes);
    }
    lt_storage_bump_version(src->s); /* the inspector sees the bytes change place */
    lt_storage *old = dst->s;
    lt_storage_retain(src->s);
    dst->s = src->s;
    pyt_replace_ref(&dst->addr, addr);
    pyt_replace_ref(&dst->readonly, readonly); /* the fields describe the new lt_storage, as src's do */
    Py_INCREF(src->host);
    pyt_replace_ref(&dst->host, src->host);
    Py_CLEAR(dst->cptr); /* the cached cffi handle named the old lt_storage */
    lt_storage_release(old);
    Py_RETURN_NONE;
}

/* shm_new(nbytes) -> a new UntypedStorage of zeroed shared memory. */
static PyObject *shm_new(PyObject *self, PyObject *args)
{
    long long nbytes;
    (void)self;
    if (!PyArg_ParseTuple(args, "L", &nbytes))
        return NULL;
    if (nbytes < 0) {
        PyErr_Format(PyExc_ValueError, "shm_new: negative size %lld", nbytes);
        return NULL;
    }
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new_shared(&s, (size_t)nbytes);
    return rc == LT_OK ? pyt_storage_object(s) : pyt_raise_last(rc);
}

/* shm_receive(fd, device, inode, byte_offset, nbytes, readonly) -> a new
 * UntypedStorage over a region's bytes: the region this process already
 * maps under (device, inode), else the one behind fd (borrowed; -1: none,
 * and then None is returned so the caller can fetch the descriptor). */
static PyObject *shm_receive(PyObject *self, PyObject *args)
{
    int fd, readonly;
    unsigned long long device, inode;
    long long byte_offset, nbytes;
    (void)self;
    if (!PyArg_ParseTuple(args, "iKKLLp", &fd, &device, &inode, &byte_offset, &nbytes, &readonly))
        return NULL;
    if (nbytes < 0) {
        PyErr_Format(PyExc_ValueError, "shm_receive: negative size %lld", nbytes);
        return NULL;
    }
    unsigned flags = readonly ? LT_STORAGE_READONLY : 0;
    lt_storage *s = NULL;
    lt_status rc = lt_storage_from_shared_identity(&s, (uint64_t)device, (uint64_t)inode, (int64_t)byte_offset,
                                                   (size_t)nbytes, flags);
    if (rc == LT_OK && !s && fd >= 0)
        rc = lt_storage_from_shared_fd(&s, fd, (int64_t)byte_offset, (size_t)nbytes, flags);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    if (!s)
        Py_RETURN_NONE;
    return pyt_storage_object(s);
}

PyMethodDef pyt_shm_methods[] = {
    {"adopt_bytes", adopt_bytes, METH_VARARGS, "share_memory_(): move a storage's bytes under the same object."},
    {"shm_new", shm_new, METH_VARARGS, "A storage of zeroed shared memory."},
    {"shm_receive", shm_receive, METH_VARARGS, "A storage over a shared region's bytes."},
    {NULL, NULL, 0, NULL},
};
