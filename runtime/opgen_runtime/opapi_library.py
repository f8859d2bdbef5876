"""libcust_opapi.so on the CPU: the aclnn API of every op of a project (what CANN's build of a
custom-op package installs as vendors/<vendor>/op_api/lib), built (cached) for the simulator.

The generated translation unit `op_api/cust_opapi.cc` (opgen.emit.op_api) defines each op's
aclnn<Op>GetWorkspaceSize / aclnn<Op> over runtime/include/opgen_aclnn/op_api.h; it is compiled
against the generated aclnn headers (so the definitions must match their declarations) and
linked with every kernel variant and op_host embedded as bytes, as the framework op libraries
are (native_library). Builds go to `$OPGEN_CACHE_DIR/kernels/op_api`, keyed by content hash.
See docs/cann.md, "aclnn drivers".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import native_library
from .build import _compiler, _compiler_identity, cache_dir, include_dir

FORMAT = "opgen-opapi-library-1"
SUBDIR = "op_api"
LIBRARY_NAME = "libcust_opapi.so"
# Default visibility, unlike the framework libraries: the acl runtime is header-only, and the
# driver's copy of its state (the device-memory registry that aclrtMalloc fills, the recent
# error that aclGetRecentErrMsg reads) must be the one this library uses. The dynamic linker
# binds both to one definition only when neither is hidden.
_OBJECT_FLAGS = ("-O2", "-std=c++17", "-fPIC", "-Wno-deprecated-declarations")
# --no-undefined: an op the translation unit names but whose kernels were not linked is a link
# error here, not a failure when a driver loads the library.
_LINK_FLAGS = ("-shared", f"-Wl,-soname,{LIBRARY_NAME}", "-Wl,--no-undefined", "-pthread",
               "-ldl")
_SUPPORT_HEADER_DIRS = ("acl", "aclnn", "opgen_aclnn", "opgen_host", "opgen_sim")


class OpApiLibraryError(RuntimeError):
    """libcust_opapi.so cannot be built."""


def blob_symbol(op_name: str, column: int) -> str:
    """opgen.emit.op_api.blob_symbol: the generated code refers to the variants so."""
    return f"opgen_opapi_blob_{op_name}_{column}"


def _object(cxx: str, source: Path, aclnn_dir: Path) -> Path:
    inc = include_dir()
    parts = [FORMAT.encode(), _compiler_identity(cxx).encode(), "\0".join(_OBJECT_FLAGS).encode()]
    for d in (source.parent, aclnn_dir):
        for p in native_library.files(d, (".h", ".cc")):
            parts += [p.name.encode(), p.read_bytes()]
    for sub in _SUPPORT_HEADER_DIRS:
        for p in native_library.files(inc / sub, (".h",)):
            parts += [str(p.relative_to(inc)).encode(), p.read_bytes()]
    target = cache_dir() / SUBDIR / f"cust_opapi-{native_library.content_hash(*parts)[:24]}.o"

    def compile_(out: Path) -> None:
        native_library.run([cxx, *_OBJECT_FLAGS, f"-I{inc}", f"-I{aclnn_dir}",
                            f"-I{source.parent}", "-c", str(source), "-o", str(out)],
                           f"compiling the aclnn library {source}", OpApiLibraryError)

    return native_library.cached(target, compile_, f"compiling {LIBRARY_NAME} (once per change)")


def build_objects(source: str | os.PathLike[str], aclnn_dir: str | os.PathLike[str],
                  metadefs: Sequence[str | os.PathLike[str]]) -> tuple[Path, Path]:
    """The two objects of libcust_opapi.so (cached; each path names its content): the aclnn
    functions of the generated `source` (op_api/cust_opapi.cc), compiled against the generated
    aclnn headers in `aclnn_dir`, and the ops' kernel variants and op_hosts embedded as bytes.
    Linked with `-pthread -ldl`, they are the library, or a static archive of it."""
    src = Path(source).resolve()
    if not src.is_file():
        raise OpApiLibraryError(f"the aclnn library source {src} does not exist; run "
                                "`opgen generate`")
    cxx = _compiler()
    with ThreadPoolExecutor(max_workers=1) as pool:
        ops_future = pool.submit(_object, cxx, src, Path(aclnn_dir).resolve())
        built = native_library.variants(metadefs, blob_symbol, OpApiLibraryError)
        kernels = native_library.variants_object(cxx, built, SUBDIR, "cust_opapi", FORMAT,
                                                 OpApiLibraryError)
        ops = ops_future.result()
    return ops, kernels


def build_library(source: str | os.PathLike[str], aclnn_dir: str | os.PathLike[str],
                  metadefs: Sequence[str | os.PathLike[str]]) -> Path:
    """libcust_opapi.so for the generated `source` (op_api/cust_opapi.cc), the generated aclnn
    headers in `aclnn_dir` and the ops' metadefs (cached; the path names its content)."""
    return link_library(*build_objects(source, aclnn_dir, metadefs))


def link_library(ops: Path, kernels: Path) -> Path:
    """libcust_opapi.so of the two objects of build_objects (cached)."""
    cxx = _compiler()
    key = native_library.content_hash(ops.name.encode(), kernels.name.encode(),
                                      "\0".join(_LINK_FLAGS).encode())
    target = cache_dir() / SUBDIR / f"libcust_opapi-{key[:24]}.so"

    def link(out: Path) -> None:
        native_library.run([cxx, "-o", str(out), str(ops), str(kernels), *_LINK_FLAGS],
                           f"linking {LIBRARY_NAME}", OpApiLibraryError)

    return native_library.cached(target, link, f"linking {LIBRARY_NAME}")
