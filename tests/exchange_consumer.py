"""Builds tests/c/exchange_consumer.c, a DLPack C exchange API consumer, with the system C compiler
and imports it (for tests/interop/test_dlpack_exchange_api.py and tests/bench/bench_exchange_api.py)."""
import importlib.util
import pathlib
import shutil
import subprocess
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "c" / "exchange_consumer.c"
ABI_INCLUDE = HERE.parent / "libtensor" / "include"   # only libtensor/dlpack_abi.h: the spec's structs


def build(folder):
    """The compiled module, built in ``folder``; raises when no C compiler is found."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("no C compiler (cc or gcc) on PATH")
    out = pathlib.Path(folder) / ("exchange_consumer" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", f"-I{sysconfig.get_paths()['include']}",
                    f"-I{ABI_INCLUDE}", str(SOURCE), "-o", str(out)], check=True, capture_output=True, text=True)
    spec = importlib.util.spec_from_file_location("exchange_consumer", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
