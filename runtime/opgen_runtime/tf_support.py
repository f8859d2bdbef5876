"""TensorFlow support for generated op packages: build, check and load the op library, and the
helpers the generated wrappers and gradients call (dtype checks, gradient plumbing).

The op library (docs/tensorflow.md, "The op library") is one shared object per package:
the generated translation unit compiled against the installed TensorFlow's headers with the
flags of tf.sysconfig, linked with every kernel variant embedded as bytes. Builds go to the
kernel cache (`$OPGEN_CACHE_DIR/tf`), keyed by content hash: the source, the headers it
includes, the flags, the compiler, the TensorFlow version and the kernel variants.
TensorFlow is imported only when a function here needs it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import namespaces, native_library
from .build import _compiler, _compiler_identity, cache_dir, include_dir, linker_flags
from .errors import BuildError

FORMAT = "opgen-tf-library-3"  # 3: the unit without TensorFlow's headers (opgen_tf/op_desc.h)
_MARKER = re.compile(rb"opgen-tf-library:([A-Za-z0-9_]+):tensorflow=([^;\x00]*);")
# -O1: the per-call code is the support object's, which -O2 made no faster (benchmarks/RESULTS.md,
# "Build latency").
_OBJECT_FLAGS = ("-O1", "-std=c++17", "-fPIC", "-fvisibility=hidden",
                 # TensorFlow's own headers trip these; they are not about the generated code
                 "-Wno-deprecated-declarations", "-Wno-ignored-attributes", "-Wno-attributes",
                 "-Wno-interference-size")
_SUPPORT_HEADER_DIRS = ("opgen_host", "opgen_tf")


class TfSupportError(RuntimeError):
    """The TensorFlow op library cannot be built or loaded."""


class TfVersionMismatchError(TfSupportError):
    """An op library was compiled against another TensorFlow version than the running one."""


class UnsupportedDtypeError(TypeError):
    """A call's dtypes are no column of the spec's dtype table."""


class MissingGradientError(LookupError):
    """Differentiating through an op whose spec has no backward."""

    def __init__(self, op_name: str) -> None:
        super().__init__(
            f"op '{op_name}' has no gradient, so it cannot be trained through: its spec has no "
            f"`backward:`. Add one (a gradient per input using grad_<output>, or `op: <grad op>`) "
            f"and run `opgen generate`; to stop gradients on purpose, wrap the input in "
            f"tf.stop_gradient")


def _tf() -> Any:
    try:
        import tensorflow as tf
    except ImportError:
        raise TfSupportError("TensorFlow is not installed: pip install 'opgen[tf]' "
                             "(tensorflow-cpu 2.16 or later)") from None
    return tf


def tensorflow_version() -> str:
    return str(_tf().__version__)


# -- build ---------------------------------------------------------------------------------
def _run(cmd: Sequence[str], what: str) -> None:
    native_library.run(cmd, what, TfSupportError)



def _support_headers() -> list[bytes]:
    return native_library.support_headers(_SUPPORT_HEADER_DIRS)


def _unit_flags() -> list[str]:
    """Every flag of the op library's unit but its own directory's -I, -c and -o."""
    tf = _tf()
    version = f"-DOPGEN_TF_VERSION={json.dumps(str(tf.__version__))}"
    return [*_OBJECT_FLAGS, *(str(f) for f in tf.sysconfig.get_compile_flags()), version,
            f"-I{include_dir()}"]


def _desc_pch(cxx: str) -> native_library.GluePch:
    """opgen_tf/op_desc.h precompiled (no TensorFlow headers under it: the standard library's
    and opgen_host's are most of the unit's parse)."""
    return native_library.GluePch(cxx, "opgen_tf/op_desc.h", tuple(_unit_flags()),
                                  (tensorflow_version().encode(), *_support_headers()), "tf")


def _support_object(cxx: str) -> Path:
    """The glue's support functions (opgen_tf/sim_op.h, OPGEN_TF_SUPPORT_UNIT: argument checks,
    shape inference, the kernel's constructor and Compute) compiled once per TensorFlow, flags
    and headers; every package's library links it (cached; prebuilt by `opgen prebuild`)."""
    return native_library.support_object(
        cxx, "opgen_tf/sim_op.h", [*_unit_flags(), "-DOPGEN_TF_SUPPORT_UNIT=1"],
        (tensorflow_version().encode(), *_support_headers()), "tf", "TensorFlow",
        TfSupportError)


def precompile_headers() -> list[Path]:
    """Compile the support object and precompile the description header for the installed
    TensorFlow (`opgen prebuild`): their paths."""
    cxx = _compiler()
    return [_support_object(cxx), _desc_pch(cxx).build(TfSupportError)]


def _ops_object(cxx: str, source: Path, stem: str) -> Path:
    """The generated translation unit: the ops' descriptions and registrations, which include
    none of TensorFlow's headers (opgen_tf/op_desc.h)."""
    tf = _tf()
    cflags = [str(f) for f in tf.sysconfig.get_compile_flags()]
    parts = [FORMAT.encode(), _compiler_identity(cxx).encode(), tf.__version__.encode(),
             "\0".join(cflags).encode(), "\0".join(_OBJECT_FLAGS).encode()]
    for p in native_library.files(source.parent, (".h", ".cc")):
        parts += [p.name.encode(), p.read_bytes()]
    parts += _support_headers()
    target = cache_dir() / "tf" / f"{stem}-{native_library.content_hash(*parts)[:24]}.o"

    def compile_(out: Path) -> None:
        pch = _desc_pch(cxx).include_flags(source)
        _run([cxx, *pch, *_unit_flags(), f"-I{source.parent}", "-c", str(source), "-o",
              str(out)], f"compiling the TensorFlow op library {source}")

    return native_library.cached(target, compile_, f"compiling the TensorFlow op library "
                                 f"lib{stem}.so's op descriptions (once per change)")


def _variants(metadefs: Sequence[str | os.PathLike[str]]) -> list[native_library.Variant]:
    """Every dtype column of every op, in the order the generated op sources declare them."""
    return native_library.variants(metadefs, _blob_symbol, TfSupportError)


def _blob_symbol(op_name: str, column: int) -> str:
    return f"opgen_tf_blob_{op_name}_{column}"


def _variants_object(cxx: str, variants: Sequence[native_library.Variant], stem: str) -> Path:
    return native_library.variants_object(cxx, variants, "tf", stem, FORMAT, TfSupportError)


def build_library(package: str, source: str | os.PathLike[str],
                  metadefs: Sequence[str | os.PathLike[str]]) -> Path:
    """lib<package>_tf.so for the generated `source` and the ops' metadefs (cached).

    The TensorFlow translation unit compiles while the kernel variants build."""
    tf = _tf()
    src = Path(source).resolve()
    if not src.is_file():
        raise TfSupportError(f"the op library source {src} does not exist; run `opgen generate`")
    try:
        cxx = _compiler()
    except BuildError as exc:
        raise TfSupportError(f"{exc}. Without a compiler, use the tf.numpy_function fallback "
                             "(docs/tensorflow.md, \"Fallback\") or a prebuilt library "
                             "(OPGEN_TF_LIBRARY)") from None
    stem = f"{package}_tf"
    with ThreadPoolExecutor(max_workers=2) as pool:
        ops_future = pool.submit(_ops_object, cxx, src, stem)
        support_future = pool.submit(_support_object, cxx)
        variants = _variants(metadefs)
        kernels = _variants_object(cxx, variants, stem)
        ops = ops_future.result()
        support = support_future.result()
    lflags = [str(f) for f in tf.sysconfig.get_link_flags()]
    key = native_library.content_hash(ops.name.encode(), support.name.encode(),
                                      kernels.name.encode(), "\0".join(lflags).encode())
    target = cache_dir() / "tf" / f"lib{stem}-{key[:24]}.so"

    def link(out: Path) -> None:
        _run([cxx, "-shared", *linker_flags(cxx), "-o", str(out), str(ops), str(support),
              str(kernels), *lflags], f"linking lib{stem}.so")

    return native_library.cached(target, link, f"linking lib{stem}.so")


# -- load ----------------------------------------------------------------------------------
def built_against(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """(package, TensorFlow version) an op library was compiled for, read from its bytes
    (without loading it: a mismatched library may not even load)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TfSupportError(f"cannot read the op library {path}: {exc.strerror}") from None
    m = _MARKER.search(data)
    if m is None:
        return None
    return m.group(1).decode(), m.group(2).decode()


def check_library(path: str | os.PathLike[str], package: str) -> None:
    """Refuse a library of another package or TensorFlow version, naming both."""
    found = built_against(path)
    if found is None:
        raise TfSupportError(f"{path} is not an opgen TensorFlow op library (no build marker); "
                             "build it by importing the generated <package>.tf")
    pkg, version = found
    if pkg != package:
        raise TfSupportError(f"{path} is the op library of package '{pkg}', not '{package}'")
    running = tensorflow_version()
    if version != running:
        raise TfVersionMismatchError(
            f"{path} was built against TensorFlow {version}, but this process runs TensorFlow "
            f"{running}; custom op libraries only load into the TensorFlow they were compiled "
            f"against. Rebuild it here: unset OPGEN_TF_LIBRARY and import {package}.tf (opgen "
            f"compiles and caches a matching library)")


@dataclass
class _Loaded:
    path: Path
    module: Any


_LOCK = threading.Lock()
_LOADED: dict[str, _Loaded] = {}


def load_library(path: str | os.PathLike[str], package: str) -> Any:
    """tf.load_op_library after the version check; once per package and process."""
    p = Path(path)
    if not p.is_absolute():
        raise TfSupportError(f"op library path must be absolute, got '{path}'")
    with _LOCK:
        loaded = _LOADED.get(package)
        if loaded is not None:
            if loaded.path != p:
                raise TfSupportError(f"package '{package}' already loaded its op library from "
                                     f"{loaded.path}; a process holds one build of a package")
            return loaded.module
        check_library(p, package)
        module = _tf().load_op_library(str(p))
        _LOADED[package] = _Loaded(p, module)
        return module


def _registered(op_type: str) -> bool:
    """TensorFlow knows the op type (a library loaded earlier registered it)."""
    _tf()
    from tensorflow.python.framework import op_def_registry

    return op_def_registry.get(op_type) is not None


def claim_op_types(package: str, source: str | os.PathLike[str],
                   op_types: Sequence[str]) -> None:
    """Claim the package's TensorFlow op types before its library is built or loaded:
    OpNameClashError (naming both packages) when another package or library registered one."""
    where = str(Path(source).resolve().parents[2])  # <package>/tf/cc/<stem>.cc
    namespaces.claim("TensorFlow", package, where, op_types, exists=_registered,
                     key="namespace")


def prefetch(metadefs: Sequence[str | os.PathLike[str]]) -> None:
    """Start building the ops' kernel variants in the background (native_library.prefetch)
    when the package's library will be built: the generated `_library` module calls this
    before TensorFlow is imported, so that the import (about 4 s on one core) overlaps with the
    compiles on the others. Nothing with OPGEN_TF_LIBRARY (a prebuilt library)."""
    if os.environ.get("OPGEN_TF_LIBRARY") or importlib.util.find_spec("tensorflow") is None:
        return
    native_library.prefetch(metadefs)


def load_package_library(package: str, source: str | os.PathLike[str],
                         metadefs: Sequence[str | os.PathLike[str]],
                         op_types: Sequence[str] = ()) -> Any:
    """The generated package's library: $OPGEN_TF_LIBRARY if set, else built (cached). Its
    `op_types` are claimed first (claim_op_types)."""
    with _LOCK:
        loaded = _LOADED.get(package)
    if loaded is not None:
        return loaded.module
    claim_op_types(package, source, op_types)
    prebuilt = os.environ.get("OPGEN_TF_LIBRARY")
    path = Path(prebuilt) if prebuilt else build_library(package, source, metadefs)
    return load_library(path, package)


def loaded_path(package: str) -> str:
    with _LOCK:
        loaded = _LOADED.get(package)
    if loaded is None:
        raise TfSupportError(f"package '{package}' has loaded no op library")
    return str(loaded.path)


# -- what generated wrappers and gradients call -----------------------------------------------
@dataclass(frozen=True)
class Signature:
    """An op as its generated Python module describes it."""

    op_name: str
    op_type: str
    inputs: tuple[str, ...]
    optional: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[str, ...]
    type_attrs: tuple[str, ...]
    columns: tuple[tuple[str, ...], ...]  # dtype names, inputs then outputs
    dtype_attrs: Mapping[str, str | None]  # tensor -> the TF type attr carrying its dtype
    output_attrs: tuple[str, ...]  # type attrs of outputs the wrapper passes
    spec_path: str = "the spec"
    # (name, type, required, default) per attr: opgen_runtime.argcheck.check_attrs
    attr_specs: tuple[tuple[str, str, bool, Any], ...] = ()
    _checked: dict[Any, dict[str, Any]] = field(default_factory=dict, compare=False, repr=False)


def check_dtypes(sig: Signature, inputs: Sequence[Any],
                 type_attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's dtype column for these inputs and `type` attrs, or UnsupportedDtypeError.
    Returns the output type attrs (T_<output>) to pass to the op."""
    got = tuple(None if t is None else t.dtype.name for t in inputs)
    attr_names = tuple((k, v.name) for k, v in type_attrs.items())
    key = (got, attr_names)
    hit = sig._checked.get(key)
    if hit is not None:
        return hit
    n_in = len(sig.inputs)
    for column in sig.columns:
        if any(g is not None and g != column[i] for i, g in enumerate(got)):
            continue
        if any(sig.dtype_attrs.get(o) in type_attrs
               and type_attrs[str(sig.dtype_attrs[o])].name != column[n_in + j]
               for j, o in enumerate(sig.outputs)):
            continue
        tf = _tf()
        extra = {str(sig.dtype_attrs[o]): tf.as_dtype(column[n_in + j])
                 for j, o in enumerate(sig.outputs) if sig.dtype_attrs[o] in sig.output_attrs}
        sig._checked[key] = extra
        return extra
    from . import argcheck

    have = [(n, g) for n, g in zip(sig.inputs, got, strict=True) if g is not None]
    have += list(attr_names)
    columns = [(list(zip(sig.inputs, c[:n_in], strict=True)),
                list(zip(sig.outputs, c[n_in:], strict=True))) for c in sig.columns]
    raise UnsupportedDtypeError(argcheck.dtype_message(sig.op_name, sig.spec_path, have,
                                                       columns))


def check_attrs(sig: Signature, values: Mapping[str, Any]) -> None:
    """The call's attrs against the spec's types (argcheck.check_attrs, as the registry does):
    the runtime's OpCallError (a TypeError) before TensorFlow converts them."""
    from . import argcheck
    from .registry import call_error

    try:
        argcheck.check_attrs(sig.op_name, sig.attr_specs, values)
    except argcheck.ArgCheckError as exc:
        raise call_error(exc) from None


_DECORATION = re.compile(r"^\{\{function_node [^}]*\}\}\s*|\s*\[Op:[^\]]*\](?: name: .*)?$",
                         re.DOTALL)


def op_error(sig: Signature, exc: Any) -> Any:
    """A kernel's argument error (tf.errors.InvalidArgumentError, `<op>(): ...`) with the op's
    own message, without TensorFlow's `{{function_node ...}}` / `[Op:...]` decoration: the same
    text the registry and the PyTorch op give. Other errors unchanged."""
    message = _DECORATION.sub("", str(exc.message))
    if not message.startswith(f"{sig.op_name}(): "):
        return exc
    return type(exc)(exc.node_def, exc.op, message)


def unpack(sig: Signature, op: Any, grads: Sequence[Any]) -> tuple[
        dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A forward op's inputs (None: absent optional), outputs, output gradients (zeros where
    TensorFlow passes None) and attrs, by name."""
    tf = _tf()
    inputs: dict[str, Any] = {}
    flat = list(op.inputs)
    i = 0
    for name in sig.inputs:
        n = int(op.get_attr(f"N_{name}")) if name in sig.optional else 1
        inputs[name] = flat[i] if n == 1 else None
        i += n
    outputs = dict(zip(sig.outputs, op.outputs, strict=True))
    grad_outputs = {name: g if g is not None else tf.zeros_like(outputs[name])
                    for name, g in zip(sig.outputs, grads, strict=True)}
    attrs: dict[str, Any] = {}
    for a in sig.attrs:
        value = op.get_attr(a)
        attrs[a] = tf.as_dtype(value) if a in sig.type_attrs else value
    return inputs, outputs, grad_outputs, attrs


def grad_like(value: Any, like: Any) -> Any:
    """A gradient shaped and typed as the input it belongs to."""
    tf = _tf()
    value = tf.convert_to_tensor(value)
    if value.dtype != like.dtype:
        value = tf.cast(value, like.dtype)
    if not (value.shape.is_fully_defined() and value.shape == like.shape):
        value = tf.broadcast_to(value, tf.shape(like))
    return value


def input_grads(sig: Signature, op: Any, fns: Mapping[str, Callable[[], Any]]) -> list[Any]:
    """One gradient per flat op input: the spec's expression for present floating inputs,
    None for integer inputs and inputs the backward does not name."""
    out: list[Any] = []
    flat = list(op.inputs)
    i = 0
    for name in sig.inputs:
        n = int(op.get_attr(f"N_{name}")) if name in sig.optional else 1
        for _ in range(n):
            x = flat[i]
            fn = fns.get(name)
            out.append(grad_like(fn(), x) if fn is not None and x.dtype.is_floating else None)
            i += 1
    return out


def gradient_from_op(sig: Signature, op: Any, grads: Sequence[Any], grad_sig: Signature,
                     grad_fn: Callable[..., Any]) -> list[Any]:
    """The backward as a gradient op: its inputs are taken by name from the forward inputs,
    outputs and grad_<output>; its outputs grad_<input> (or <input>) are the gradients."""
    inputs, outputs, grad_outputs, attrs = unpack(sig, op, grads)
    env: dict[str, Any] = {**inputs, **outputs,
                           **{f"grad_{k}": v for k, v in grad_outputs.items()}}
    args = [env.get(n) for n in grad_sig.inputs]
    kwargs = {a: attrs[a] for a in grad_sig.attrs if a in attrs}
    result = grad_fn(*args, **kwargs)
    results = tuple(result) if len(grad_sig.outputs) > 1 else (result,)
    by_name = dict(zip(grad_sig.outputs, results, strict=True))
    values = {n: by_name[f"grad_{n}"] if f"grad_{n}" in by_name else by_name[n]
              for n in sig.inputs if f"grad_{n}" in by_name or n in by_name}
    return input_grads(sig, op, {n: _constant(v) for n, v in values.items()})


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value
