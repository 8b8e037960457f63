/* _shim_random.c: random numbers in one crossing.
 *
 * The generators themselves live in libtensor (random.c); this file owns
 * their Python handle and the common case of every random entry point:
 *
 *   rng_new(seed) -> capsule    a new lt_generator, owned by the capsule (its
 *                               destructor frees it); pytensor.Generator keeps
 *                               it in its _cap slot
 *   rng_addr(capsule) -> int    the lt_generator's address, for cffi
 *   rng_register(cls, default)  the Generator class and the default generator,
 *                               once, at import: held for the life of the process
 *                               (pytensor/_generator.py says why)
 *   random_new(kind, size, dtype, generator, prov_arg, like)
 *                               rand / randn (kind 0 / 1) and their *_like forms
 *   randint_new(low, high, size, dtype, generator, prov_arg, like)
 *                               randint and randint_like
 *   randperm_new(n, dtype, generator, prov_arg)
 *   random_inplace(t, kind, a, b, generator)
 *                               t.uniform_(a, b) / t.normal_(a, b)
 *   rng_initial_seed(g), rng_get_state(g), rng_set_state(g, state)
 *
 * The contract is _shim_ops.c's: the common case (the default generator or a
 * Generator, a sampled dtype, plain int sizes and plain numbers, memory on the
 * host) in one call, and None for everything else, which the Python path
 * (pytensor/_factories.py, _tensor_random.py, _generator.py) then decides
 * with its refusals and messages; that path is the reference, and
 * tests/binding/test_random_fast_paths.py compares the two. The samples come
 * from the same libtensor calls either way, so the numbers are the same bits.
 *
 * New tensors are laid out as the Python path lays them out: row-major from
 * a size, or like's dense layout (lt_layout_preserve_strides) for the *_like
 * forms. Every new tensor is dense, so its elements are filled in memory
 * order, which is the order torch's iterator visits them in. */
#include <string.h>

#include "_shim.h"

#define RNG_CAPSULE "pytensor.lt_generator"

/* Set by rng_register; strong references for the life of the process, so the
 * default generator is never freed while a call could still reach it. */
static PyTypeObject *rng_cls;
static PyObject *rng_default_obj;
static lt_generator *rng_default;
static PyObject *rng_cap_name; /* interned "_cap" */

static void rng_capsule_free(PyObject *cap)
{
    lt_generator_free(PyCapsule_GetPointer(cap, RNG_CAPSULE));
}

static PyObject *rng_new(PyObject *self, PyObject *arg)
{
    (void)self;
    unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
    if (seed == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    lt_generator *g = NULL;
    lt_status rc = lt_generator_new(&g, seed);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    PyObject *cap = PyCapsule_New(g, RNG_CAPSULE, rng_capsule_free);
    if (!cap)
        lt_generator_free(g);
    return cap;
}

static PyObject *rng_addr(PyObject *self, PyObject *cap)
{
    (void)self;
    void *p = PyCapsule_GetPointer(cap, RNG_CAPSULE);
    return p ? PyLong_FromVoidPtr(p) : NULL;
}

static PyObject *rng_register(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !PyType_Check(args[0]) || !PyObject_TypeCheck(args[1], (PyTypeObject *)args[0])) {
        PyErr_SetString(PyExc_TypeError, "rng_register(Generator class, default generator)");
        return NULL;
    }
    if (rng_default_obj) { /* torch's default generator is one object for the process: so is ours */
        PyErr_SetString(PyExc_RuntimeError, "rng_register: the default generator was registered at import and "
                        "stays for the life of the process; seed it or set its state instead");
        return NULL;
    }
    if (!rng_cap_name && !(rng_cap_name = PyUnicode_InternFromString("_cap")))
        return NULL;
    PyObject *cap = PyObject_GetAttr(args[1], rng_cap_name);
    if (!cap)
        return NULL;
    lt_generator *g = PyCapsule_GetPointer(cap, RNG_CAPSULE);
    Py_DECREF(cap); /* the default generator, held below, keeps its capsule */
    if (!g)
        return NULL;
    rng_cls = (PyTypeObject *)Py_NewRef(args[0]);
    rng_default_obj = Py_NewRef(args[1]);
    rng_default = g;
    Py_RETURN_NONE;
}

/* The lt_generator behind a generator= argument: None is the default one, a
 * Generator its own (*keep then holds its capsule, so that the generator
 * outlives the call even if the slot is rebound meanwhile; release it with
 * Py_XDECREF). NULL declines (anything else; no error set). */
static lt_generator *rng_of(PyObject *g, PyObject **keep)
{
    *keep = NULL;
    if (g == Py_None)
        return rng_default;
    if (!rng_cls || !PyObject_TypeCheck(g, rng_cls))
        return NULL;
    PyObject *cap = PyObject_GetAttr(g, rng_cap_name);
    lt_generator *p = cap && PyCapsule_IsValid(cap, RNG_CAPSULE) ? PyCapsule_GetPointer(cap, RNG_CAPSULE) : NULL;
    if (!p) {
        PyErr_Clear();
        Py_XDECREF(cap);
        return NULL;
    }
    *keep = cap;
    return p;
}

/* The dtypes the float samplers fill (complex as pairs of reals). */
static int rng_sampled(int code)
{
    return code >= LT_FLOAT16 && code <= LT_COMPLEX128;
}

/* The layout of a new tensor: like's dense layout when like is a Tensor,
 * else row-major over size (the factory's positional arguments: ints, or one
 * tuple of ints). 1, or 0 to decline (no error set); -1 with an error. */
static int rng_layout(int64_t *shape, int64_t *strides, int32_t *nd, PyObject *size, PyObject *like)
{
    if (like != Py_None) {
        if (!pyt_is_tensor(like))
            return 0;
        TensorObject *t = (TensorObject *)like;
        Py_ssize_t n = pyt_int64_tuple(t->shape, shape, LT_MAX_NDIM);
        if (n < 0 || pyt_int64_tuple(t->strides, strides, LT_MAX_NDIM) != n) {
            PyErr_Clear();
            return 0;
        }
        *nd = (int32_t)n;
        lt_status rc = lt_layout_preserve_strides(strides, *nd, shape, strides);
        if (rc != LT_OK) {
            pyt_raise_last(rc);
            return -1;
        }
        return 1;
    }
    if (PyTuple_Size(size) == 1 && PyTuple_CheckExact(PyTuple_GetItem(size, 0)))
        size = PyTuple_GetItem(size, 0);
    Py_ssize_t n = PyTuple_Size(size);
    if (n > LT_MAX_NDIM)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(size, i);
        long long e = PyLong_CheckExact(x) ? PyLong_AsLongLong(x) : -1;
        if (e < 0) { /* negative, too large or no int: the Python path's messages */
            PyErr_Clear();
            return 0;
        }
        shape[i] = e;
    }
    *nd = (int32_t)n;
    return lt_layout_contiguous_strides(strides, *nd, shape) == LT_OK; /* past int64: the Python path's message */
}

/* What one new tensor's fill needs, and how it ends. */
typedef struct rng_fill {
    int kind; /* RNG_UNIFORM [0, 1), RNG_NORMAL standard, RNG_INT, RNG_PERM */
    int code;
    uint64_t range; /* RNG_INT */
    int64_t low;    /* RNG_INT */
} rng_fill;

enum { RNG_UNIFORM, RNG_NORMAL, RNG_INT, RNG_PERM };

/* The fill f of n elements from element 0 of s (a dense tensor of nd dims:
 * contiguous says whether row-major), from g. */
static lt_status rng_fill_storage(const rng_fill *f, lt_generator *g, lt_storage *s, int64_t n, int contiguous)
{
    switch (f->kind) {
    case RNG_UNIFORM:
        return lt_random_uniform(g, s, 0, (lt_dtype)f->code, n, 0.0, 1.0);
    case RNG_NORMAL:
        return lt_random_normal(g, s, 0, (lt_dtype)f->code, n, 0.0, 1.0, contiguous);
    case RNG_INT:
        return lt_random_int(g, s, 0, (lt_dtype)f->code, n, f->range, f->low);
    default:
        return lt_random_perm(g, s, 0, (lt_dtype)f->code, n);
    }
}

/* A new tensor of f.code of nd dims with shape and (dense) strides, filled
 * from generator and recorded as a factory step with prov_arg; None to
 * decline. */
static PyObject *rng_filled(const rng_fill *f, int32_t nd, const int64_t *shape, const int64_t *strides,
                            PyObject *generator, PyObject *prov_arg)
{
    int64_t nbytes, n;
    if (lt_layout_nbytes(&nbytes, nd, shape, lt_dtype_itemsize((lt_dtype)f->code)) != LT_OK ||
        lt_layout_numel(&n, nd, shape) != LT_OK)
        Py_RETURN_NONE; /* too large: the Python path's message */
    PyObject *keep;
    lt_generator *g = rng_of(generator, &keep);
    if (!g)
        Py_RETURN_NONE;
    int contiguous = f->kind == RNG_NORMAL && lt_layout_is_contiguous(nd, shape, strides); /* normal's block rule */
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, (size_t)nbytes, 0);
    if (rc == LT_OK)
        PYT_NOGIL(nbytes, rng_fill_storage(f, g, s, n, contiguous));
    Py_XDECREF(keep);
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    return pyt_prov_fresh(pyt_tensor_over(s, f->code, shape, strides, nd, 0), PROV_FACTORY,
                          prov_arg == Py_None ? NULL : prov_arg, NULL);
}

/* rng_filled over the layout of size or like (rng_layout). */
static PyObject *rng_new_tensor(const rng_fill *f, PyObject *size, PyObject *generator, PyObject *prov_arg,
                                PyObject *like)
{
    int64_t shape[LT_MAX_NDIM], strides[LT_MAX_NDIM];
    int32_t nd;
    int ok = rng_layout(shape, strides, &nd, size, like);
    if (ok <= 0)
        return ok < 0 ? NULL : Py_NewRef(Py_None);
    return rng_filled(f, nd, shape, strides, generator, prov_arg);
}

/* random_new(kind, size, dtype, generator, prov_arg, like) -> Tensor or None:
 * rand (kind 0) or randn (kind 1) of a sampled dtype; like is None or the
 * tensor of rand_like/randn_like (size is then ignored). */
static PyObject *random_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6 || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "random_new(kind, size: tuple, dtype, generator, prov_arg, like)");
        return NULL;
    }
    long kind = PyLong_AsLong(args[0]);
    if (kind != RNG_UNIFORM && kind != RNG_NORMAL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "random_new: kind is 0 (uniform) or 1 (normal), got %ld", kind);
        return NULL;
    }
    rng_fill f = {(int)kind, pyt_dtype_code_of(args[2]), 0, 0};
    if (!rng_sampled(f.code))
        Py_RETURN_NONE;
    return rng_new_tensor(&f, args[1], args[3], args[4], args[5]);
}

/* A Python int as a long long: 1, or 0 (not an exact int, or out of range; no error set). */
static int rng_int_arg(long long *out, PyObject *x)
{
    if (!PyLong_CheckExact(x))
        return 0;
    int overflow = 0;
    *out = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* The integers each real dtype holds exactly, as torch's randint checks
 * them: the full range of an integer dtype, and for a float dtype the
 * integers up to 2^digits (beyond, the Python path moves the ends inward
 * and warns, as torch does). uint64 stops at INT64_MAX, as the bounds do. */
static const long long rng_int_lo[] = {
    [LT_BOOL] = 0, [LT_UINT8] = 0, [LT_UINT16] = 0, [LT_UINT32] = 0, [LT_UINT64] = 0, [LT_INT8] = -128,
    [LT_INT16] = -32768, [LT_INT32] = INT32_MIN, [LT_INT64] = INT64_MIN, [LT_FLOAT16] = -(1LL << 11),
    [LT_BFLOAT16] = -(1LL << 8), [LT_FLOAT32] = -(1LL << 24), [LT_FLOAT64] = -(1LL << 53)};
static const long long rng_int_hi[] = {
    [LT_BOOL] = 1, [LT_UINT8] = 255, [LT_UINT16] = 65535, [LT_UINT32] = UINT32_MAX, [LT_UINT64] = INT64_MAX,
    [LT_INT8] = 127, [LT_INT16] = 32767, [LT_INT32] = INT32_MAX, [LT_INT64] = INT64_MAX, [LT_FLOAT16] = 1LL << 11,
    [LT_BFLOAT16] = 1LL << 8, [LT_FLOAT32] = 1LL << 24, [LT_FLOAT64] = 1LL << 53};

/* randint_new(low, high, size, dtype, generator, prov_arg, like) -> Tensor
 * or None: integers from [low, high) in a real dtype that holds low and
 * high - 1 exactly (for a float dtype, high too: then the Python path's
 * update of the ends changes nothing); the Python path refuses the rest,
 * or moves the ends of a float dtype and warns. */
static PyObject *randint_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7 || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "randint_new(low, high, size: tuple, dtype, generator, prov_arg, like)");
        return NULL;
    }
    int code = pyt_dtype_code_of(args[3]);
    long long low, high;
    if (code < LT_BOOL || code > LT_FLOAT64 || !rng_int_arg(&low, args[0]) || !rng_int_arg(&high, args[1]) ||
        low >= high || low < rng_int_lo[code] || high - 1 > rng_int_hi[code] ||
        (code >= LT_FLOAT16 && high > rng_int_hi[code]))
        Py_RETURN_NONE;
    /* high - low may pass INT64_MAX; as uint64 it is exact (high > low) */
    rng_fill f = {RNG_INT, code, (uint64_t)high - (uint64_t)low, low};
    return rng_new_tensor(&f, args[2], args[4], args[5], args[6]);
}

/* randperm_new(n, dtype, generator, prov_arg) -> Tensor or None: a
 * permutation of 0 .. n-1 in an integer dtype that holds n - 1 (the widest
 * first), or a float dtype up to its 2^digits; the Python path refuses the
 * rest with torch's words. */
static PyObject *randperm_new(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "randperm_new(n, dtype, generator, prov_arg)");
        return NULL;
    }
    int code = pyt_dtype_code_of(args[1]);
    long long n;
    if (!(code == LT_UINT8 || (code >= LT_INT8 && code <= LT_FLOAT64)) || !rng_int_arg(&n, args[0]) || n < 0 ||
        n > rng_int_hi[code])
        Py_RETURN_NONE;
    const int64_t shape[1] = {n}, strides[1] = {1};
    rng_fill f = {RNG_PERM, code, 0, 0};
    return rng_filled(&f, 1, shape, strides, args[2], args[3]);
}

/* A Python float, or an int within 2^53 (so converting it keeps the Python
 * path's comparisons), as a double: 1, or 0 to decline. */
static int rng_real_arg(double *out, PyObject *x)
{
    if (PyFloat_CheckExact(x)) {
        *out = PyFloat_AsDouble(x);
        return 1;
    }
    long long v;
    if (!rng_int_arg(&v, x) || v > (1LL << 53) || v < -(1LL << 53))
        return 0;
    *out = (double)v;
    return 1;
}

/* random_inplace(t, kind, a, b, generator) -> t or None: t.uniform_(a, b)
 * (kind 0) or t.normal_(a, b) (kind 1) for a t that does not require grad
 * (the in-place guard's refusals are the Python path's), with no lazy bit,
 * writable host memory, a sampled dtype, and a dense layout: contiguous, or
 * dense in another order, filled in memory order (torch's iterator order;
 * normal_ then takes the scalar path, as torch does for a tensor that is not
 * contiguous). The write is recorded here: libtensor's fill bumps the version
 * once, as torch's does, and t becomes the storage's last writer. */
static PyObject *random_inplace(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 5 || !pyt_is_tensor(args[0])) {
        PyErr_SetString(PyExc_TypeError, "random_inplace(t: Tensor, kind, a, b, generator)");
        return NULL;
    }
    TensorObject *t = (TensorObject *)args[0];
    long kind = PyLong_AsLong(args[1]);
    if (kind != RNG_UNIFORM && kind != RNG_NORMAL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "random_inplace: kind is 0 (uniform_) or 1 (normal_), got %ld", kind);
        return NULL;
    }
    StorageObject *st = (StorageObject *)t->storage;
    pyt_view v;
    double a, b;
    if (t->requires_grad != Py_False || !PyObject_TypeCheck(t->storage, pyt_storage_cls) ||
        st->readonly != Py_False || !pyt_read_view(&v, t) || !rng_sampled(v.code) || !rng_real_arg(&a, args[2]) ||
        !rng_real_arg(&b, args[3]) || (kind == RNG_UNIFORM ? !(a <= b) : !(b >= 0.0)))
        Py_RETURN_NONE;
    int64_t n;
    int contiguous = lt_layout_is_contiguous(v.nd, v.shape, v.strides);
    if (!contiguous && !lt_layout_is_non_overlapping_and_dense(v.nd, v.shape, v.strides))
        Py_RETURN_NONE; /* a strided view: the Python path fills a temporary and copies it in */
    if (lt_layout_numel(&n, v.nd, v.shape) != LT_OK)
        Py_RETURN_NONE;
    PyObject *keep;
    lt_generator *g = rng_of(args[4], &keep);
    if (!g)
        Py_RETURN_NONE;
    /* the fills take the storage and element 0's offset in elements */
    int64_t offset = (int64_t)(v.data - (char *)lt_storage_data(st->s)) / (int64_t)v.isz;
    size_t nbytes = (size_t)n * v.isz;
    lt_status rc;
    PYT_NOGIL(nbytes, kind == RNG_UNIFORM ? lt_random_uniform(g, st->s, offset, (lt_dtype)v.code, n, a, b)
                                          : lt_random_normal(g, st->s, offset, (lt_dtype)v.code, n, a, b, contiguous));
    Py_XDECREF(keep);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    /* the fill counted the write (libtensor bumps the version): record only who wrote */
    if (pyt_prov_record_writer(t) != 0)
        return NULL;
    return Py_NewRef(args[0]);
}

/* ------------------------------------------------------------ the generator's own calls */

/* rng_initial_seed(generator) -> int or None. */
static PyObject *rng_initial_seed(PyObject *self, PyObject *generator)
{
    (void)self;
    PyObject *keep;
    lt_generator *g = rng_of(generator, &keep);
    if (!g)
        Py_RETURN_NONE;
    unsigned long long seed = lt_generator_initial_seed(g);
    Py_XDECREF(keep);
    return PyLong_FromUnsignedLongLong(seed);
}

/* rng_get_state(generator) -> uint8 Tensor of LT_GENERATOR_STATE_NBYTES, or None. */
static PyObject *rng_get_state(PyObject *self, PyObject *generator)
{
    (void)self;
    PyObject *keep;
    lt_generator *g = rng_of(generator, &keep);
    if (!g)
        Py_RETURN_NONE;
    lt_storage *s = NULL;
    lt_status rc = lt_storage_new(&s, LT_GENERATOR_STATE_NBYTES, 0);
    if (rc == LT_OK)
        rc = lt_generator_get_state(g, lt_storage_data(s), LT_GENERATOR_STATE_NBYTES);
    Py_XDECREF(keep);
    if (rc != LT_OK) {
        lt_storage_release(s);
        return pyt_raise_last(rc);
    }
    const int64_t shape[1] = {LT_GENERATOR_STATE_NBYTES}, strides[1] = {1};
    return pyt_tensor_over(s, LT_UINT8, shape, strides, 1, 0);
}

/* rng_set_state(generator, state) -> True or None: the state from a
 * contiguous uint8 tensor of LT_GENERATOR_STATE_NBYTES in host memory with no
 * lazy bit (the Python path takes the rest and words the refusals). */
static PyObject *rng_set_state(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "rng_set_state(generator, state)");
        return NULL;
    }
    if (!pyt_is_tensor(args[1]))
        Py_RETURN_NONE;
    TensorObject *t = (TensorObject *)args[1];
    pyt_view v;
    int64_t n;
    if (!PyObject_TypeCheck(t->storage, pyt_storage_cls) || !pyt_read_view(&v, t) || v.code != LT_UINT8 ||
        !lt_layout_is_contiguous(v.nd, v.shape, v.strides) || lt_layout_numel(&n, v.nd, v.shape) != LT_OK ||
        n != LT_GENERATOR_STATE_NBYTES)
        Py_RETURN_NONE;
    PyObject *keep;
    lt_generator *g = rng_of(args[0], &keep);
    if (!g)
        Py_RETURN_NONE;
    lt_status rc = lt_generator_set_state(g, (const uint8_t *)v.data, (size_t)n);
    Py_XDECREF(keep);
    if (rc != LT_OK)
        return pyt_raise_last(rc);
    Py_RETURN_TRUE;
}

PyMethodDef pyt_random_methods[] = {
    {"rng_new", rng_new, METH_O, "rng_new(seed): a new generator, owned by the capsule returned."},
    {"rng_addr", rng_addr, METH_O, "rng_addr(capsule): the generator's address, for cffi."},
    {"rng_register", (PyCFunction)(void (*)(void))rng_register, METH_FASTCALL,
     "rng_register(Generator, default_generator): the class and the default generator the fast paths use."},
    {"random_new", (PyCFunction)(void (*)(void))random_new, METH_FASTCALL,
     "random_new(kind, size, dtype, generator, prov_arg, like): rand/randn in one call; None when declined."},
    {"randint_new", (PyCFunction)(void (*)(void))randint_new, METH_FASTCALL,
     "randint_new(low, high, size, dtype, generator, prov_arg, like): randint in one call; None when declined."},
    {"randperm_new", (PyCFunction)(void (*)(void))randperm_new, METH_FASTCALL,
     "randperm_new(n, dtype, generator, prov_arg): randperm in one call; None when declined."},
    {"random_inplace", (PyCFunction)(void (*)(void))random_inplace, METH_FASTCALL,
     "random_inplace(t, kind, a, b, generator): uniform_/normal_ in one call; None when declined."},
    {"rng_initial_seed", rng_initial_seed, METH_O, "rng_initial_seed(generator): its seed; None when declined."},
    {"rng_get_state", rng_get_state, METH_O, "rng_get_state(generator): its state tensor; None when declined."},
    {"rng_set_state", (PyCFunction)(void (*)(void))rng_set_state, METH_FASTCALL,
     "rng_set_state(generator, state): True when set; None when declined."},
    {NULL, NULL, 0, NULL},
};
