"""Build-time generator of the cffi extension's C source (not installed).

meson runs ``python -m cffi.gen_src exec-python _build_ffi.py <out.c>``; the
generated module is ``pytensor._libtensor``. API mode: the declarations in
``_cdefs.h`` are compiled against the real ``libtensor.h``, so a mismatch is
a compile error.
"""
import pathlib

from cffi import FFI

HERE = pathlib.Path(__file__).resolve().parent

# The shim's two functions that Python reaches through cffi (declared in
# _shim.h; the rest of the shim is CPython functions of the module
# pytensor._shim, which pyt_shim_init fills).
SHIM_CDEFS = """
int pyt_shim_init(void);
void pyt_set_finalizing(void);
"""

ffibuilder = FFI()
ffibuilder.cdef((HERE / "_cdefs.h").read_text() + SHIM_CDEFS)
ffibuilder.set_source(
    "pytensor._libtensor",
    '#include "libtensor.h"\n' + SHIM_CDEFS,
)
