/* _shim_prov.c: provenance, how each tensor was made, and the last writer
 * of each storage.
 *
 * A tensor records its own step in three fields: prov_op (a PROV_* code),
 * prov_arg (the operation's argument as the caller passed it: an index key,
 * a size tuple, the source object's type; never a tensor or an array) and
 * prov_from (its parent's node). A node is the tuple (op, arg, from_node,
 * depth) of one tensor (depth: the nodes in its chain, itself included),
 * made the first time that tensor becomes a parent and then
 * cached on it: x[1:] in a loop makes one node, and each view costs two
 * INCREFs and three stores. Nodes hold no tensor, so a chain outlives the
 * tensors it describes and keeps none of them (nor their storages) alive.
 * Text is made only when someone asks (pytensor/_provenance.py).
 *
 * Every write through pytensor (fill_, copy_, setitem, in-place operators)
 * goes through note_write, which bumps the storage's version and records on
 * the storage the writer's id() and node (no reference to the writer).
 */

#include "_shim.h"

/* Recording is on unless a user turns it off (pytensor._provenance.set_enabled);
 * every recording site tests this one flag first. */
int pyt_prov_on = 1;

/* Nodes in the chain from node n: its depth element (0 for None or NULL). */
static long depth_of(PyObject *n)
{
    if (!n || n == Py_None)
        return 0;
    PyObject *d = PyTuple_GetItem(n, 3);
    return d ? PyLong_AsLong(d) : 0;
}

/* A new node (op, arg, from, depth) (a new reference; arg and from borrowed,
 * None when NULL; depth = 1 + from's depth, a cached small int), or NULL
 * with an exception. */
static PyObject *new_node(PyObject *op, PyObject *arg, PyObject *from)
{
    PyObject *node = PyTuple_New(4);
    PyObject *depth = node ? PyLong_FromLong(1 + depth_of(from)) : NULL;
    if (!depth) {
        Py_XDECREF(node);
        return NULL;
    }
    arg = arg ? arg : Py_None;
    from = from ? from : Py_None;
    Py_INCREF(op);
    Py_INCREF(arg);
    Py_INCREF(from);
    PyTuple_SetItem(node, 0, op);
    PyTuple_SetItem(node, 1, arg);
    PyTuple_SetItem(node, 2, from);
    PyTuple_SetItem(node, 3, depth);
    return node;
}

/* Chains are bounded: nothing reads more than PROV_KEEP steps (chain()'s
 * limit), yet a loop that rebinds a tensor to a view or copy of itself
 * (h = h.detach(), x = x[0:]) would grow its chain by a node a step, for
 * ever. A node whose chain would reach PROV_CUT nodes instead gets a copy of
 * its parent's newest PROV_KEEP - 1 nodes, the last of them without a parent:
 * its chain is PROV_KEEP long, and the old tail is freed when nothing else
 * holds it. Each node carries its chain's length, so the test is O(1), and
 * copying 63 nodes once every 193 steps keeps a step O(1) on average; the
 * nodes of other tensors are never changed. */
#define PROV_KEEP 64
#define PROV_CUT (4 * PROV_KEEP) /* depths stay below 256: cached small ints */

/* A copy of the newest keep nodes of the chain from n, the oldest copy
 * without a parent (a new reference), or NULL with an exception. */
static PyObject *copy_chain(PyObject *n, int keep)
{
    PyObject *src[PROV_KEEP];
    int count = 0;
    for (; n && n != Py_None && count < keep; n = PyTuple_GetItem(n, 2))
        src[count++] = n;
    PyObject *from = NULL;
    for (int i = count - 1; i >= 0; i--) {
        PyObject *copy = new_node(PyTuple_GetItem(src[i], 0), PyTuple_GetItem(src[i], 1), from);
        Py_XDECREF(from);
        if (!copy)
            return NULL;
        from = copy;
    }
    return from;
}

/* t's node (a new reference), made and cached on first use; NULL with an
 * exception only when a tuple cannot be allocated. */
PyObject *pyt_prov_node_of(TensorObject *t)
{
    if (t->prov_node) {
        Py_INCREF(t->prov_node);
        return t->prov_node;
    }
    PyObject *op = PyLong_FromLong(t->prov_op); /* a cached small int: no allocation */
    if (!op)
        return NULL;
    if (depth_of(t->prov_from) >= PROV_CUT - 1) {
        PyObject *cut = copy_chain(t->prov_from, PROV_KEEP - 1);
        if (!cut) {
            Py_DECREF(op);
            return NULL;
        }
        PyObject *old = t->prov_from;
        t->prov_from = cut;
        Py_DECREF(old);
    }
    PyObject *node = new_node(op, t->prov_arg, t->prov_from);
    Py_DECREF(op);
    if (!node)
        return NULL;
    Py_INCREF(node);
    t->prov_node = node;
    return node;
}

/* Records on the tensor obj (new, or about to be handed out) that op with
 * arg (borrowed; NULL for none) made it from parent (a Tensor, borrowed, or
 * NULL). Returns obj, which may be NULL (a failed constructor) and is then
 * passed through. Recording never fails the operation: a node that cannot
 * be allocated leaves the step without its parent. */
static PyObject *prov_record(PyObject *obj, int op, PyObject *arg, PyObject *parent)
{
    if (!obj || !pyt_prov_on)
        return obj;
    TensorObject *t = (TensorObject *)obj;
    PyObject *from = parent ? pyt_prov_node_of((TensorObject *)parent) : NULL;
    if (parent && !from)
        PyErr_Clear();
    Py_XINCREF(arg);
    PyObject *old_arg = t->prov_arg, *old_from = t->prov_from, *old_node = t->prov_node;
    t->prov_op = op;
    t->prov_arg = arg;
    t->prov_from = from;
    t->prov_node = NULL; /* a re-recorded tensor gets a new node; its children keep the old one */
    Py_XDECREF(old_arg);
    Py_XDECREF(old_from);
    Py_XDECREF(old_node);
    return obj;
}

/* prov_note(t, op, arg, parent) -> t: record a step made in Python. arg None
 * records no argument; parent is a Tensor or None. */
static PyObject *prov_note(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4 || !pyt_is_tensor(args[0]) || (args[3] != Py_None && !pyt_is_tensor(args[3]))) {
        PyErr_SetString(PyExc_TypeError, "prov_note(tensor, op, arg, parent tensor or None)");
        return NULL;
    }
    long op = PyLong_AsLong(args[1]);
    if (!pyt_prov_op_valid(op)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "prov_note: op %ld is not one of the %d PROV_* codes", op, PROV_COUNT);
        return NULL;
    }
    prov_record(args[0], (int)op, args[2] == Py_None ? NULL : args[2], args[3] == Py_None ? NULL : args[3]);
    Py_INCREF(args[0]);
    return args[0];
}

/* prov_node(t) -> t's node (op, arg, from_node, depth), made on first use. */
static PyObject *prov_node_py(PyObject *self, PyObject *t)
{
    (void)self;
    if (!pyt_is_tensor(t)) {
        PyErr_SetString(PyExc_TypeError, "prov_node() takes a pytensor.Tensor");
        return NULL;
    }
    return pyt_prov_node_of((TensorObject *)t);
}

/* prov_enable(flag) -> the previous setting (bool). */
static PyObject *prov_enable(PyObject *self, PyObject *flag)
{
    (void)self;
    int on = PyObject_IsTrue(flag);
    if (on < 0)
        return NULL;
    int was = pyt_prov_on;
    pyt_prov_on = on;
    return PyBool_FromLong(was);
}

/* prov_is_enabled() -> the setting (bool). Reading never writes the flag: a
 * read made by switching it on and back would undo a set_enabled(False)
 * made by another thread in between. */
static PyObject *prov_is_enabled(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pyt_prov_on);
}

/* t, whose storage holds a write whose version is already counted, becomes
 * that storage's last recorded writer (while recording is on): its id() and
 * node, and the version as it stands. Returns 0, or -1 with an exception. */
int pyt_prov_record_writer(TensorObject *t)
{
    if (!pyt_prov_on)
        return 0;
    StorageObject *st = (StorageObject *)t->storage;
    PyObject *node = pyt_prov_node_of(t);
    if (!node)
        return -1;
    pyt_replace_ref(&st->writer_node, node);
    st->writer_id = (uintptr_t)t;
    st->writer_version = lt_storage_version(st->s);
    return 0;
}

/* The tensor behind note_write's argument, or NULL with a TypeError. */
static TensorObject *written_tensor(PyObject *obj, const char *fn)
{
    if (!pyt_is_tensor(obj)) {
        PyErr_Format(PyExc_TypeError, "%s() takes a pytensor.Tensor", fn);
        return NULL;
    }
    TensorObject *t = (TensorObject *)obj;
    if (!PyObject_TypeCheck(t->storage, pyt_storage_cls)) { /* _storage is writable from Python */
        PyErr_Format(PyExc_TypeError, "%s(): the tensor's _storage is not a pytensor storage", fn);
        return NULL;
    }
    return t;
}

/* note_write(t): t's storage was written through t. Bumps the storage's
 * version (what Tensor._version_bump did through cffi) and, while recording
 * is on, remembers t's id() and node there. */
static PyObject *note_write(PyObject *self, PyObject *obj)
{
    (void)self;
    TensorObject *t = written_tensor(obj, "note_write");
    if (!t)
        return NULL;
    lt_storage_bump_version(((StorageObject *)t->storage)->s);
    if (pyt_prov_record_writer(t) != 0)
        return NULL;
    Py_RETURN_NONE;
}

/* note_writer(t): note_write without the bump, for a write whose libtensor
 * kernel bumped the version itself (the random fills take the storage and
 * count their write, libtensor.h): one write counts once, as in torch. */
static PyObject *note_writer(PyObject *self, PyObject *obj)
{
    (void)self;
    TensorObject *t = written_tensor(obj, "note_writer");
    if (!t || pyt_prov_record_writer(t) != 0)
        return NULL;
    Py_RETURN_NONE;
}

/* last_write(storage) -> (version, tensor id, node) of the last recorded
 * write through pytensor, or None when none was recorded. */
static PyObject *last_write(PyObject *self, PyObject *obj)
{
    (void)self;
    if (!pyt_storage_cls || !PyObject_TypeCheck(obj, pyt_storage_cls)) {
        PyErr_SetString(PyExc_TypeError, "last_write() takes a pytensor.UntypedStorage");
        return NULL;
    }
    StorageObject *st = (StorageObject *)obj;
    if (!st->writer_node)
        Py_RETURN_NONE;
    return Py_BuildValue("(KNO)", (unsigned long long)st->writer_version, PyLong_FromSize_t(st->writer_id),
                         st->writer_node);
}

/* The op names as a tuple, for the module attribute prov_ops. */
PyObject *pyt_prov_op_names(void)
{
#define PROV_NAME(code, name) name,
    static const char *const names[PROV_COUNT] = {PYT_PROV_OPS(PROV_NAME)};
#undef PROV_NAME
    PyObject *tup = PyTuple_New(PROV_COUNT);
    for (int i = 0; tup && i < PROV_COUNT; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (!s) {
            Py_CLEAR(tup);
            break;
        }
        PyTuple_SetItem(tup, i, s);
    }
    return tup;
}

PyMethodDef pyt_prov_methods[] = {
    {"prov_note", (PyCFunction)(void (*)(void))prov_note, METH_FASTCALL, "Record how a tensor was made."},
    {"prov_node", prov_node_py, METH_O, "A tensor's provenance node."},
    {"prov_enable", prov_enable, METH_O, "Turn provenance recording on or off."},
    {"prov_is_enabled", prov_is_enabled, METH_NOARGS, "Whether provenance is being recorded."},
    {"note_write", note_write, METH_O, "Bump the version and record the writer."},
    {"note_writer", note_writer, METH_O, "Record the writer of a write whose version is already counted."},
    {"last_write", last_write, METH_O, "The storage's last recorded writer."},
    {NULL, NULL, 0, NULL},
};
