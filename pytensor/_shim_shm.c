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
 * move is refused while any exists: they would be left on the old bytes. */
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

/* The old bytes stay allocated (the new storage keeps them) until the
 * storage dies, so a kernel that read the old address just before the move
 * (kernels run without the GIL) reads valid memory. A block of 2 MiB or
 * more is its own page-aligned mapping (libtensor.h: lt_storage_new), so
 * its pages are given back at once; it then reads as zeros. */
static void give_back_pages(lt_storage *old)
{
    size_t nbytes = lt_storage_nbytes(old);
    if (lt_storage_provenance(old) != LT_PROV_OWNED || nbytes < ((size_t)2 << 20))
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)lt_storage_data(old);
    uintptr_t hi = (lo + nbytes + page - 1) & ~(page - 1);
    if (lo % page == 0)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* move_to_shared(storage): copies storage's bytes into new shared memory
 * and points the storage object at it; every view follows. Runs with the
 * GIL held, so no pytensor call in another thread starts meanwhile. */
static PyObject *move_to_shared(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!pyt_storage_cls || !PyObject_TypeCheck(arg, pyt_storage_cls)) {
        PyErr_SetString(PyExc_TypeError, "move_to_shared(storage): an UntypedStorage");
        return NULL;
    }
    StorageObject *st = (StorageObject *)arg;
    size_t nbytes = lt_storage_nbytes(st->s);
    int64_t holders = lt_storage_refcount(st->s) - 1;
    char message[320];
    if (lt_storage_provenance(st->s) != LT_PROV_OWNED) /* pytensor/_shm.py says whose they are */
        return pyt_raise_status(LT_EINVAL, "move_to_shared: only bytes libtensor allocated can move");
    if (holders > 0 || (lt_storage_flags(st->s) & LT_STORAGE_PINNED)) {
        /* numpy() both pins and holds a buffer export: name the NumPy array first, it is what the user made */
        if (lt_storage_flags(st->s) & LT_STORAGE_PINNED)
            snprintf(message, sizeof message,
                     "cannot move this storage's %zu bytes into shared memory: a NumPy array uses their address and "
                     "would be left on the old bytes; share a copy instead (t.clone().share_memory_())", nbytes);
        else
            snprintf(message, sizeof message,
                     "cannot move this storage's %zu bytes into shared memory: %lld other holders (DLPack or buffer "
                     "exports) use their address and would be left on the old bytes; share a copy instead "
                     "(t.clone().share_memory_())", nbytes, (long long)holders);
        return pyt_raise_status(LT_EINVAL, message);
    }
    lt_storage *fresh = NULL;
    lt_status rc = lt_storage_new_shared_keeping(&fresh, nbytes, st->s);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PyObject *addr = PyLong_FromVoidPtr(lt_storage_data(fresh));
    if (!addr) {
        lt_storage_release(fresh);
        return NULL;
    }
    if (nbytes) {
        prefault(lt_storage_data(fresh), nbytes);
        memcpy(lt_storage_data(fresh), lt_storage_data(st->s), nbytes);
    }
    lt_storage_bump_version(fresh); /* the inspector sees the bytes change place */
    give_back_pages(st->s);
    lt_storage *old = st->s;
    st->s = fresh;
    pyt_replace_ref(&st->addr, addr);
    Py_CLEAR(st->cptr); /* the cached cffi handle named the old lt_storage */
    lt_storage_release(old); /* fresh keeps it */
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
    {"move_to_shared", move_to_shared, METH_O, "share_memory_(): move a storage's bytes under the same object."},
    {"shm_new", shm_new, METH_VARARGS, "A storage of zeroed shared memory."},
    {"shm_receive", shm_receive, METH_VARARGS, "A storage over a shared region's bytes."},
    {NULL, NULL, 0, NULL},
};
