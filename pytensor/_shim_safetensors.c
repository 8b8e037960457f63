/* _shim_safetensors.c: the common case of a safetensors header, parsed in C.
 *
 * json.loads builds a dict, a list and several ints and strings per tensor
 * before pytensor can check one; for a file of 64 tensors that is most of
 * the time an open takes. This parser reads the strict subset every writer
 * produces (keys and strings without escapes, non-negative integers, no
 * keys other than dtype/shape/data_offsets and __metadata__) straight into
 * one tuple per tensor, checking each as it goes. Anything else (an escape,
 * a float, an unknown key, a duplicate, an error of any kind) makes it
 * decline, and pytensor/safetensors.py parses with json and raises the
 * error: this file never raises its own, so every message has one home. */
#include <string.h>

#include "_shim.h"

typedef struct {
    const char *p, *end;
} st_cursor;

static void st_space(st_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int st_take(st_cursor *c, char ch)
{
    st_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A string without escapes or control characters: its bytes in [*s, *s + *n). */
static int st_string(st_cursor *c, const char **s, Py_ssize_t *n)
{
    if (!st_take(c, '"'))
        return 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\' || (unsigned char)*c->p < 0x20)
            return 0;
        c->p++;
    }
    if (c->p == c->end)
        return 0;
    *s = start;
    *n = c->p - start;
    c->p++;
    return 1;
}

static int st_is(const char *s, Py_ssize_t n, const char *word)
{
    return (size_t)n == strlen(word) && memcmp(s, word, (size_t)n) == 0;
}

/* A JSON integer >= 0 that fits int64 ("0" or no leading zero, no sign, no fraction). */
static int st_uint(st_cursor *c, int64_t *out)
{
    st_space(c);
    const char *start = c->p;
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (v > ((uint64_t)INT64_MAX - (uint64_t)(*c->p - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*c->p - '0');
        c->p++;
    }
    Py_ssize_t digits = c->p - start;
    if (digits == 0 || (digits > 1 && *start == '0'))
        return 0;
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
        return 0;
    *out = (int64_t)v;
    return 1;
}

/* [n, ...] into a new tuple, with the product of its items into *numel and
 * the product with each 0 counted as 1 into *span; NULL on overflow of either
 * (an empty tensor's strides must fit int64 too: pytensor/safetensors.py
 * says why when it refuses). */
static PyObject *st_shape(st_cursor *c, int64_t *numel, int64_t *span)
{
    int64_t dims[LT_MAX_NDIM], n = 0, prod = 1, spanned = 1;
    if (!st_take(c, '['))
        return NULL;
    if (!st_take(c, ']')) {
        do {
            if (n == LT_MAX_NDIM || !st_uint(c, &dims[n]))
                return NULL;
            if (__builtin_mul_overflow(prod, dims[n], &prod) ||
                __builtin_mul_overflow(spanned, dims[n] > 1 ? dims[n] : 1, &spanned))
                return NULL;
            n++;
        } while (st_take(c, ','));
        if (!st_take(c, ']'))
            return NULL;
    }
    *numel = prod;
    *span = spanned;
    return pyt_int_tuple(dims, (Py_ssize_t)n);
}

/* {"dtype": "...", "shape": [...], "data_offsets": [b, e]}, each key once, in
 * any order, into (name, dtype name, shape, begin, end); NULL to decline. */
static PyObject *st_entry(st_cursor *c, PyObject *name, PyObject *itemsizes)
{
    PyObject *dtype = NULL, *shape = NULL;
    int64_t begin = -1, end = -1, numel = 0, span = 1;
    int have_offsets = 0;
    if (!st_take(c, '{'))
        return NULL;
    do {
        const char *k;
        Py_ssize_t kn;
        if (!st_string(c, &k, &kn) || !st_take(c, ':'))
            goto decline;
        if (st_is(k, kn, "dtype") && !dtype) {
            const char *v;
            Py_ssize_t vn;
            if (!st_string(c, &v, &vn) || !(dtype = PyUnicode_FromStringAndSize(v, vn)))
                goto decline;
        } else if (st_is(k, kn, "shape") && !shape) {
            if (!(shape = st_shape(c, &numel, &span)))
                goto decline;
        } else if (st_is(k, kn, "data_offsets") && !have_offsets) {
            if (!st_take(c, '[') || !st_uint(c, &begin) || !st_take(c, ',') || !st_uint(c, &end) ||
                !st_take(c, ']'))
                goto decline;
            have_offsets = 1;
        } else {
            goto decline;
        }
    } while (st_take(c, ','));
    if (!st_take(c, '}') || !dtype || !shape || !have_offsets || end < begin)
        goto decline;
    PyObject *size = PyDict_GetItemWithError(itemsizes, dtype); /* borrowed */
    int64_t nbytes, span_nbytes, itemsize = size ? (int64_t)PyLong_AsLongLong(size) : 0;
    if (!size || __builtin_mul_overflow(numel, itemsize, &nbytes) || nbytes != end - begin ||
        __builtin_mul_overflow(span, itemsize, &span_nbytes))
        goto decline;
    Py_INCREF(name);
    return Py_BuildValue("(NNNLL)", name, dtype, shape, (long long)begin, (long long)end);
decline:
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    return NULL;
}

/* {"k": "v", ...} of escape-free strings into a new dict; NULL to decline. */
static PyObject *st_metadata(st_cursor *c)
{
    PyObject *d = PyDict_New();
    if (!d || !st_take(c, '{'))
        goto decline;
    if (st_take(c, '}'))
        return d;
    do {
        const char *k, *v;
        Py_ssize_t kn, vn;
        if (!st_string(c, &k, &kn) || !st_take(c, ':') || !st_string(c, &v, &vn))
            goto decline;
        PyObject *key = PyUnicode_DecodeUTF8(k, kn, NULL), *val = key ? PyUnicode_DecodeUTF8(v, vn, NULL) : NULL;
        int dup = key ? PyDict_Contains(d, key) : -1;
        int ok = val && dup == 0 && PyDict_SetItem(d, key, val) == 0;
        Py_XDECREF(key);
        Py_XDECREF(val);
        if (!ok)
            goto decline;
    } while (st_take(c, ','));
    if (st_take(c, '}'))
        return d;
decline:
    Py_XDECREF(d);
    return NULL;
}

/* safetensors_header(raw, itemsizes) -> ([(name, dtype name, shape, begin, end), ...], metadata or None)
 * for a header in the common subset whose every entry names a dtype of itemsizes ({name: bytes}) and
 * whose sizes match its offsets; None otherwise (the caller parses it with json and says what is wrong). */
static PyObject *safetensors_header(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Py_buffer raw;
    if (nargs != 2 || !PyDict_Check(args[1]) || PyObject_GetBuffer(args[0], &raw, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    st_cursor c = {raw.buf, (const char *)raw.buf + raw.len};
    PyObject *entries = PyList_New(0), *names = PySet_New(NULL), *metadata = NULL;
    int ok = entries && names && st_take(&c, '{');
    if (ok && !st_take(&c, '}')) {
        do {
            const char *k;
            Py_ssize_t kn;
            ok = st_string(&c, &k, &kn) && st_take(&c, ':');
            if (!ok)
                break;
            if (st_is(k, kn, "__metadata__")) {
                ok = !metadata && (metadata = st_metadata(&c)) != NULL;
                continue;
            }
            PyObject *name = PyUnicode_DecodeUTF8(k, kn, NULL);
            PyObject *entry = name && PySet_Contains(names, name) == 0 && PySet_Add(names, name) == 0
                ? st_entry(&c, name, args[1]) : NULL;
            ok = entry && PyList_Append(entries, entry) == 0;
            Py_XDECREF(entry);
            Py_XDECREF(name);
        } while (ok && st_take(&c, ','));
        ok = ok && st_take(&c, '}');
    }
    st_space(&c);
    ok = ok && c.p == c.end;
    PyBuffer_Release(&raw);
    Py_XDECREF(names);
    if (!ok) {
        PyErr_Clear(); /* declining is never an error: the json path reports it */
        Py_XDECREF(entries);
        Py_XDECREF(metadata);
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(NN)", entries, metadata ? metadata : Py_NewRef(Py_None));
}

/* safetensors_depth(raw) -> the deepest nesting of arrays and objects in the
 * bytes raw, outside strings (where a backslash escapes the next byte); -1
 * when raw is not a buffer. The json path asks it first, to refuse a header
 * nested deeper than the format's parser allows before json recurses into
 * it. Borrows raw; returns a new reference. */
static PyObject *safetensors_depth(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer raw;
    if (PyObject_GetBuffer(arg, &raw, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        return PyLong_FromLong(-1);
    }
    const unsigned char *p = raw.buf;
    Py_ssize_t depth = 0, deepest = 0;
    int in_string = 0;
    for (Py_ssize_t i = 0; i < raw.len; i++) {
        unsigned char ch = p[i];
        if (in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth > deepest)
                deepest = depth;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    PyBuffer_Release(&raw);
    return PyLong_FromSsize_t(deepest);
}

PyMethodDef pyt_safetensors_methods[] = {
    {"safetensors_header", (PyCFunction)(void (*)(void))safetensors_header, METH_FASTCALL,
     "A safetensors header's common case, or None."},
    {"safetensors_depth", safetensors_depth, METH_O,
     "The deepest nesting of arrays and objects outside strings in a JSON text's bytes."},
    {NULL, NULL, 0, NULL},
};
