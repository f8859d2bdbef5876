"""The C++ kernel library of a generated PyTorch package: build (cached), load, and the choice
between its CPU kernels and the Python fallback.

One shared object per package (docs/pytorch.md, "The C++ kernel library"): the generated
translation unit `torch/cc/<package>_torch.cc` (the ops' descriptions, no torch headers), the
support object compiled once per torch (the CPU kernel: checks, shapes, tiling, launch, and the
registration), and every kernel variant embedded as bytes. It registers, per op, a CPU kernel
from C++ when it loads; the schemas, fake kernels and autograd formulas stay registered from
Python by the generated op modules. Builds go to `$OPGEN_CACHE_DIR/torch`, keyed by content
hash: the source, the headers it includes, the flags, the compiler, the torch version and the
kernel variants. Without a compiler, or with OPGEN_TORCH_KERNELS=python, the ops keep their
Python CPU kernel (opgen_runtime.registry.call).
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import logging
import os
import sys
import sysconfig
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

from . import namespaces, native_library, torch_npu_build
from .build import _compiler, _compiler_identity, cache_dir, include_dir, linker_flags
from .errors import BuildError

FORMAT = "opgen-torch-library-3"  # 3: the unit without torch's headers (opgen_torch/op_desc.h)
SUBDIR = "torch"
# The flags torch.utils.cpp_extension passes (C++20, PIC) plus optimisation and hidden
# visibility: only the static registrations matter, nothing is exported. -O1, not -O2: the per-call
# code is the support object's, which -O2 made no faster (benchmarks/RESULTS.md, "Build latency").
_OBJECT_FLAGS = ("-O1", "-std=c++20", "-fPIC", "-fvisibility=hidden",
                 "-Wno-deprecated-declarations")
_SUPPORT_HEADER_DIRS = ("opgen_host", "opgen_torch")
KERNELS_ENV = "OPGEN_TORCH_KERNELS"  # "python": skip the C++ library, use the fallback

_log = logging.getLogger("opgen_runtime")


class TorchLibraryError(RuntimeError):
    """The C++ kernel library cannot be built or loaded."""


def _torch_version() -> str:
    import torch

    return str(torch.__version__)


def _torch_dir() -> Path:
    import torch

    return Path(torch.__file__).resolve().parent


def compile_flags() -> list[str]:
    """torch.utils.cpp_extension.include_paths("cpu") and its ABI define, computed without
    importing cpp_extension (which imports setuptools: slow, and only needed to build)."""
    import torch

    inc = _torch_dir() / "include"
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    # -fopenmp: at::parallel_for (the simulated cores run on torch's intra-op threads) is a
    # header template that is only parallel when compiled with OpenMP, as torch's CPU build is.
    return [f"-isystem{inc}", f"-isystem{inc / 'torch' / 'csrc' / 'api' / 'include'}",
            f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-fopenmp",
            *torch_npu_build.extra_compile_flags()]  # the NPU kernels, when torch_npu imports


def link_flags() -> list[str]:
    """torch's libraries; -fopenmp's libgomp is found in torch/lib first, the one torch uses."""
    lib = _torch_dir() / "lib"
    # torch_python: the ops' direct Python entries (opgen_torch/py_entry.h)
    return [f"-L{lib}", f"-Wl,-rpath,{lib}", "-fopenmp", "-lc10", "-ltorch_cpu", "-ltorch",
            "-ltorch_python",
            *torch_npu_build.extra_link_flags()]


def _blob_symbol(op_name: str, column: int) -> str:
    return f"opgen_torch_blob_{op_name}_{column}"


def _support_headers() -> list[bytes]:
    return native_library.support_headers(_SUPPORT_HEADER_DIRS)


def _support_object(cxx: str) -> Path:
    """The glue's support functions (opgen_torch/sim_op.h, OPGEN_TORCH_SUPPORT_UNIT: argument
    checks, output shapes, tiling, launch) compiled once per torch, flags and headers; every
    package's library links it (cached; prebuilt by `opgen prebuild`)."""
    import torch

    return native_library.support_object(
        cxx, "opgen_torch/sim_op.h",
        (*_OBJECT_FLAGS, *compile_flags(), *_py_entry_flags(), f"-I{include_dir()}",
         "-DOPGEN_TORCH_SUPPORT_UNIT=1"),
        (torch.__version__.encode(), sysconfig.get_platform().encode(), *_support_headers()),
        SUBDIR, "PyTorch", TorchLibraryError)


def _py_entry_flags() -> list[str]:
    """The ops' direct Python entries (opgen_torch/py_entry.h) need Python's headers; a Python
    without them (no python3-dev) builds the library without the entries, and every eager call
    goes through the dispatcher."""
    include = sysconfig.get_paths().get("include", "")
    if not include or not (Path(include) / "Python.h").is_file():
        _log.info("no Python.h under %r: the PyTorch ops are built without their direct Python "
                  "entries (docs/pytorch.md, \"The eager fast path\")", include)
        return []
    return [f"-isystem{include}", "-DOPGEN_TORCH_PY_ENTRY=1"]


def _desc_pch(cxx: str) -> native_library.GluePch:
    """opgen_torch/op_desc.h precompiled (no torch headers under it: the standard library's
    and opgen_host's are most of the unit's parse)."""
    return native_library.GluePch(
        cxx, "opgen_torch/op_desc.h", (*_OBJECT_FLAGS, *compile_flags(), f"-I{include_dir()}"),
        (_torch_version().encode(), sysconfig.get_platform().encode(), *_support_headers()),
        SUBDIR)


def precompile_headers() -> list[Path]:
    """Compile the support object and precompile the description header for the installed
    torch (`opgen prebuild`): their paths."""
    cxx = _compiler()
    return [_support_object(cxx), _desc_pch(cxx).build(TorchLibraryError)]


def _ops_object(cxx: str, source: Path, stem: str) -> Path:
    """The generated translation unit: the ops' descriptions and registrations, which include
    none of torch's headers (opgen_torch/op_desc.h) unless the library is built with its NPU
    kernels (OPGEN_TORCH_NPU, when torch_npu imports)."""
    import torch

    cflags = compile_flags()
    inc = include_dir()
    parts = [FORMAT.encode(), _compiler_identity(cxx).encode(), torch.__version__.encode(),
             "\0".join(cflags).encode(), "\0".join(_OBJECT_FLAGS).encode(),
             sysconfig.get_platform().encode()]
    for p in native_library.files(source.parent, (".h", ".cc")):
        parts += [p.name.encode(), p.read_bytes()]
    parts += _support_headers()
    target = cache_dir() / SUBDIR / f"{stem}-{native_library.content_hash(*parts)[:24]}.o"

    def compile_(out: Path) -> None:
        pch = _desc_pch(cxx).include_flags(source)
        native_library.run([cxx, *pch, *_OBJECT_FLAGS, *cflags, f"-I{inc}", f"-I{source.parent}",
                            "-c", str(source), "-o", str(out)],
                           f"compiling the PyTorch kernel library {source}", TorchLibraryError)

    return native_library.cached(target, compile_, f"compiling the PyTorch kernel library "
                                 f"lib{stem}.so's op descriptions (once per change)")


def build_library(package: str, source: str | os.PathLike[str],
                  metadefs: Sequence[str | os.PathLike[str]]) -> Path:
    """lib<package>_torch.so for the generated `source` and the ops' metadefs (cached).

    The torch translation unit compiles while the kernel variants build."""
    src = Path(source).resolve()
    if not src.is_file():
        raise TorchLibraryError(f"the kernel library source {src} does not exist; run "
                                "`opgen generate`")
    cxx = _compiler()
    stem = f"{package}_torch"
    with ThreadPoolExecutor(max_workers=1) as pool:
        ops_future = pool.submit(_ops_object, cxx, src, stem)
        support_future = pool.submit(_support_object, cxx)
        built = native_library.variants(metadefs, _blob_symbol, TorchLibraryError)
        kernels = native_library.variants_object(cxx, built, SUBDIR, stem, FORMAT,
                                                 TorchLibraryError)
        ops = ops_future.result()
        support = support_future.result()
    lflags = link_flags()
    key = native_library.content_hash(ops.name.encode(), support.name.encode(),
                                      kernels.name.encode(), "\0".join(lflags).encode())
    target = cache_dir() / SUBDIR / f"lib{stem}-{key[:24]}.so"

    def link(out: Path) -> None:
        native_library.run([cxx, "-shared", *linker_flags(cxx), "-o", str(out), str(ops),
                            str(support), str(kernels), *lflags], f"linking lib{stem}.so",
                           TorchLibraryError)

    return native_library.cached(target, link, f"linking lib{stem}.so")


_LOCK = threading.Lock()
_LOADED: dict[str, Path | None] = {}


def prefetch(metadefs: Sequence[str | os.PathLike[str]]) -> None:
    """Start building the ops' kernel variants in the background (native_library.prefetch)
    when the package's library will be built: the generated `_library` module calls this
    before anything imports torch, so that torch's import (about 2 s on one core) overlaps
    with the compiles on the others. Nothing when the ops keep their Python kernels."""
    if os.environ.get(KERNELS_ENV, "") == "python" or importlib.util.find_spec("torch") is None:
        return
    native_library.prefetch(metadefs)


def _registered(qualname: str) -> bool:
    """torch knows `qualname` (namespace::op): a schema, or a CPU kernel registered for it."""
    import torch

    try:
        torch._C._dispatch_find_schema_or_throw(qualname, "")
        return True
    except RuntimeError:
        pass
    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(qualname, "CPU"))
    except RuntimeError:  # no such operator
        return False


def claim_operators(package: str, source: str | os.PathLike[str],
                    operators: Sequence[str]) -> None:
    """Claim the package's torch op names (`namespace::op`) before anything registers them:
    OpNameClashError (naming both packages) when another package or library has one, instead
    of torch aborting the process on a second registration from C++."""
    where = str(Path(source).resolve().parents[2])  # <package>/torch/cc/<stem>.cc
    namespaces.claim("PyTorch", package, where, operators, exists=_registered, key="namespace")


def load_package_library(package: str, source: str | os.PathLike[str],
                         metadefs: Sequence[str | os.PathLike[str]],
                         operators: Sequence[str] = ()) -> Path | None:
    """Build (cached) and load the package's kernel library once per process; None when the
    ops keep their Python CPU kernels (no compiler, or OPGEN_TORCH_KERNELS=python).

    `operators` (every `namespace::op` the package registers) are claimed first
    (claim_operators), so a clash with another package is an OpNameClashError, not an abort."""
    with _LOCK:
        if package in _LOADED:
            return _LOADED[package]
        claim_operators(package, source, operators)
        path: Path | None = None
        if os.environ.get(KERNELS_ENV, "") == "python":
            _log.info("%s=python: the %s ops run their Python CPU kernels", KERNELS_ENV,
                      package)
        else:
            try:
                _compiler()
            except BuildError as exc:
                _log.info("no C++ kernel library for %s (%s): its ops run their Python CPU "
                          "kernels (docs/pytorch.md, \"Fallback\")", package, exc)
            else:
                path = build_library(package, source, metadefs)
                import torch

                torch.ops.load_library(str(path))  # type: ignore[no-untyped-call]
        _LOADED[package] = path
        return path


def loaded_path(package: str) -> Path | None:
    with _LOCK:
        return _LOADED.get(package)


FAST_ENV = "OPGEN_TORCH_FAST"  # "0": every eager call goes through the dispatcher


def fast_entry(package: str, qualname: str) -> Callable[..., Any] | None:
    """The direct Python entry of `qualname`'s CPU kernel in the package's loaded library
    (opgen_torch/py_entry.h), or None: no library, no such op, or OPGEN_TORCH_FAST=0. It takes
    the op's tensors and attrs positionally, in schema order, and returns NotImplemented when
    the call needs the dispatcher (docs/pytorch.md, "The eager fast path")."""
    path = loaded_path(package)
    if path is None or os.environ.get(FAST_ENV, "") == "0":
        return None
    entry = getattr(_dll(path), "opgen_torch_fast_entry", None)
    if entry is None:  # built without Python's headers (_py_entry_flags)
        return None
    entry.restype = ctypes.py_object
    entry.argtypes = [ctypes.c_char_p]
    found = entry(qualname.encode())
    return None if found is None else _traceable(cast(Callable[..., Any], found))


def set_formula(package: str, qualname: str, setup: Callable[..., Any],
                backward: Callable[..., Any], node_name: str) -> bool:
    """Gives the direct entry of `qualname` its gradient formula: `setup(*args, output)` returns
    a torch_support.FormulaCtx after running the op's setup_context, `backward(ctx, *grads)` is
    the op's formula, `node_name` the grad_fn's name. A call whose inputs need gradients then
    takes the entry too, which makes the autograd node itself (docs/pytorch.md, "The eager fast
    path"). False when the library has no entries (as fast_entry's None) or no such op."""
    path = loaded_path(package)
    if path is None or os.environ.get(FAST_ENV, "") == "0":
        return False
    fn = getattr(_dll(path), "opgen_torch_set_formula", None)
    if fn is None:
        return False
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.py_object, ctypes.py_object, ctypes.c_char_p]
    return bool(fn(qualname.encode(), setup, backward, node_name.encode()) == 0)


def _not_handled(*args: Any) -> Any:
    """What torch.compile sees an entry return: the wrapper then takes its traced path."""
    return NotImplemented


def _traceable(entry: Callable[..., Any]) -> Callable[..., Any]:
    """`entry` as torch.compile (dynamo) traces it: a call that returns NotImplemented, so the
    wrapper's eager fast path needs no `torch.compiler.is_compiling()` test of its own (a Python
    call, 80 ns of a 1.5 us op). torch.compiler.substitute_in_graph tells dynamo so (torch 2.5
    and later) when dynamo is already imported (a process that compiles); it imports
    torch._dynamo, some 1.1 s, which an op's import does not pay for that. Otherwise (and on an
    older torch) the entry is wrapped in a Python function that asks is_compiling() itself."""
    import torch

    substitute = getattr(torch.compiler, "substitute_in_graph", None)
    if substitute is None or "torch._dynamo" not in sys.modules:
        is_compiling = torch.compiler.is_compiling

        def guarded(*args: Any) -> Any:
            return NotImplemented if is_compiling() else entry(*args)

        return guarded
    try:
        substitute(entry, skip_signature_check=True)(_not_handled)
    except ValueError as exc:  # the same entry again (one per op and process): already known
        if "already registered" not in str(exc):
            raise
    return entry


@functools.cache
def _dll(path: Path) -> ctypes.PyDLL:
    return ctypes.PyDLL(str(path))  # the library torch.ops.load_library opened: the same handle
