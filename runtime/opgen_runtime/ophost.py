"""An op's own op_host code on the CPU: its TilingFunc, InferShape and InferDataType, compiled
for the host against opgen's implementation of CANN's host API and called at each launch.

`build_op_host(sources)` compiles the sources (with `opgen_host/host_abi.h`) into the kernel
cache; `OpHost.tiling(...)` returns what the TilingFunc decided (tiling bytes, block dim, tiling
key, workspace sizes), so the simulator runs the tiling the NPU would run.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock

from . import progress
from .build import (
    _compiler,
    _compiler_identity,
    _headers_under,
    cache_dir,
    compile_errors,
    include_dir,
)
from .dtypes import data_type
from .errors import BuildError, TilingError
from .soc import SocProfile

HOST_FLAGS: tuple[str, ...] = (
    "-O1",
    "-std=c++17",
    "-fPIC",
    "-shared",
    "-pthread",
    "-fvisibility=hidden",
    "-DOPGEN_OP_HOST=1",
)
# The library is loaded with every symbol bound at once (ctypes: RTLD_NOW), so a function its
# sources use and none defines would stop the load with the symbol's mangled name: the link
# reports it instead, by name and with the source that uses it (undefined_references).
LINK_FLAGS: tuple[str, ...] = ("-Wl,--no-undefined",) if sys.platform.startswith("linux") else ()
CACHE_FORMAT = "opgen-ophost-v2"  # v2: the reply names the InitValue outputs
_MAX_DIMS = 25
_MAX_OUTPUTS = 64
TILING_CAPACITY = 64 * 1024


class _Tensor(ctypes.Structure):
    _fields_ = (
        ("dtype", ctypes.c_int32),
        ("format", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("dims", ctypes.c_int64 * _MAX_DIMS),
        ("data", ctypes.c_void_p),
        ("nbytes", ctypes.c_int64),
    )


class _Attr(ctypes.Structure):
    _fields_ = (
        ("kind", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("count", ctypes.c_int64),
        ("data", ctypes.c_void_p),
    )


class _Request(ctypes.Structure):
    _fields_ = (
        ("op_type", ctypes.c_char_p),
        ("what", ctypes.c_int32),
        ("num_ir_inputs", ctypes.c_int32),
        ("ir_counts", ctypes.POINTER(ctypes.c_int32)),
        ("num_inputs", ctypes.c_int32),
        ("num_outputs", ctypes.c_int32),
        ("inputs", ctypes.POINTER(_Tensor)),
        ("outputs", ctypes.POINTER(_Tensor)),
        ("num_attrs", ctypes.c_int32),
        ("aiv_cores", ctypes.c_int32),
        ("attrs", ctypes.POINTER(_Attr)),
        ("soc", ctypes.c_char_p),
        ("ub_bytes", ctypes.c_int64),
        ("aic_cores", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("sys_workspace", ctypes.c_int64),
        ("tiling", ctypes.c_void_p),
        ("tiling_capacity", ctypes.c_int64),
        ("num_ir_outputs", ctypes.c_int32),
        ("reserved2", ctypes.c_int32),
        ("ir_out_counts", ctypes.POINTER(ctypes.c_int32)),
    )


class _Reply(ctypes.Structure):
    _fields_ = (
        ("tiling_size", ctypes.c_int64),
        ("tiling_key", ctypes.c_uint64),
        ("block_dim", ctypes.c_int64),
        ("block_dim_set", ctypes.c_int32),
        ("schedule_mode", ctypes.c_int32),
        ("need_atomic", ctypes.c_int32),
        ("num_workspaces", ctypes.c_int32),
        ("init_zero_outputs", ctypes.c_uint64),
        ("workspaces", ctypes.c_int64 * 16),
        ("out_ndim", ctypes.c_int32 * _MAX_OUTPUTS),
        ("out_dtypes", ctypes.c_int32 * _MAX_OUTPUTS),
        ("out_dims", (ctypes.c_int64 * _MAX_DIMS) * _MAX_OUTPUTS),
        ("message", ctypes.c_char * 4096),
    )


_TILING, _INFER_SHAPE, _INFER_DTYPE = 1, 2, 3
_STATUS = {1: "returned GRAPH_FAILED", 2: "is missing", 3: "crashed", 4: "threw", 5: "bad call"}
_FUNCTION = {_TILING: "TilingFunc", _INFER_SHAPE: "InferShape", _INFER_DTYPE: "InferDataType"}
_ATTR_KIND = {"int": 0, "float": 1, "bool": 2, "string": 3, "str": 3, "type": 0,
              "list_int": 4, "list_float": 5, "list_bool": 6}


@dataclass(frozen=True)
class HostTensor:
    """One tensor as the host function sees it; ``data`` only for value-depend inputs."""

    shape: tuple[int, ...]
    dtype: str
    format: int = 2  # ge::FORMAT_ND
    data: np.ndarray | None = None


@dataclass(frozen=True)
class HostTiling:
    """What a TilingFunc decided for one launch."""

    tiling: bytes
    block_dim: int
    tiling_key: int
    workspace_sizes: tuple[int, ...]
    schedule_mode: int = 0
    need_atomic: bool = False
    # the outputs cleared before the launch: declared with InitValue, when need_atomic
    zero_outputs: tuple[int, ...] = ()

    @property
    def workspace_size(self) -> int:
        return sum(self.workspace_sizes)


def _cache_key(cxx: str, sources: Sequence[Path], includes: Sequence[Path],
               defines: Mapping[str, str]) -> str:
    h = hashlib.sha256()

    def add(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    add("format", CACHE_FORMAT.encode())
    add("compiler", _compiler_identity(cxx).encode())
    add("flags", "\0".join((*HOST_FLAGS, *LINK_FLAGS)).encode())
    add("defines", "\0".join(f"{k}={v}" for k, v in sorted(defines.items())).encode())
    headers = _headers_under(include_dir(), True)
    for s in sources:
        add("source", str(s).encode())
        add("content", s.read_bytes())
        headers += _headers_under(s.parent, False)
    for d in includes:
        add("include_dir", str(d).encode())
        headers += _headers_under(d, True)
    for p in sorted(set(headers)):
        add("header", str(p).encode())
        add("content", p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def build_op_host(sources: Sequence[str | os.PathLike[str]], *, name: str,
                  include_dirs: Sequence[str | os.PathLike[str]] = (),
                  defines: Mapping[str, str] | None = None) -> Path:
    """Compiles op_host sources into one host library in the kernel cache (or reuses it).

    Each source's directory is on the include path (as msopgen's CMake puts op_host/ there), then
    ``include_dirs``, then opgen's host headers. Compiler errors name the user's files.
    """
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise BuildError(f"{name}: op_host source {s} does not exist")
    incs = [Path(d).resolve() for d in include_dirs]
    # msopgen's CMake gives op_host sources op_host/../op_kernel too: an op_host includes the
    # kernel's tiling-key header (GET_TPL_TILING_KEY) from there
    for s in srcs:
        kernel_dir = s.parent.parent / "op_kernel"
        if s.parent.name == "op_host" and kernel_dir.is_dir() and kernel_dir not in incs:
            incs.append(kernel_dir)
    defs = dict(defines or {})
    cxx = _compiler()
    key = _cache_key(cxx, srcs, incs, defs)
    out = cache_dir() / "ophost" / f"lib{name}_host-{key[:32]}.so"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"):
        if out.exists():
            return out
        what = f"compiling the op_host of {name} ({', '.join(s.name for s in srcs)})"
        with progress.step(what), tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            abi = Path(tmp) / "opgen_host_abi.cpp"
            abi.write_text('#include "opgen_host/host_abi.h"\n')
            partial = Path(tmp) / out.name
            dirs: list[Path] = []
            for d in [*(s.parent for s in srcs), *incs]:
                if d not in dirs:
                    dirs.append(d)
            # CANN's op_host builds also search metadef's exe_graph/ (ops-nn's
            # Findmetadef.cmake: METADEF_INCLUDE_DIRS): "runtime/infer_shape_context.h"
            cmd = [cxx, *HOST_FLAGS, *LINK_FLAGS, *(f"-I{d}" for d in dirs), f"-I{include_dir()}",
                   f"-I{include_dir() / 'exe_graph'}",
                   *(f"-D{k}={v}" for k, v in sorted(defs.items())),
                   "-o", str(partial), *(str(s) for s in srcs), str(abi)]
            # the C locale: plain quotes and English messages, as for kernel builds
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  env={**os.environ, "LC_ALL": "C"})
            if proc.returncode != 0:
                errors = compile_errors(proc.stderr)
                missing = undefined_references(proc.stderr)
                if not errors and missing:
                    raise BuildError(_undefined_message(name, missing, incs))
                shown = "\n".join(str(e) for e in errors) or proc.stderr.rstrip()
                raise BuildError(f"compiling the op_host of {name} failed:\n{shown}",
                                 errors=errors)
            os.replace(partial, out)
    return out


# GNU ld (the C locale: plain quotes): "<dir>/k.cpp:(.text+0x1c): undefined reference to
# `ns::f(int)'", the file being the source of the object that uses the symbol
_UNDEFINED = re.compile(r"^(?:.*?/)?([^/:]+):\(\.[^)]*\): undefined reference to `(.+?)'$")


def undefined_references(stderr: str) -> dict[str, list[str]]:
    """The symbols the linker found no definition of, each with the source files using it."""
    found: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        m = _UNDEFINED.match(line.strip())
        if m is None:
            continue
        users = found.setdefault(m.group(2), [])
        if m.group(1) not in users:
            users.append(m.group(1))
    return found


_MAX_SCANNED = 4000  # files looked at for a definition, at most


def defining_sources(symbol: str, include_dirs: Sequence[Path]) -> list[Path]:
    """Sources that seem to define `symbol` (a demangled name): a line starting at column 0
    that names it and opens its parameter list without ending the declaration. Looked for in
    the src/ folder beside or above each include dir (opbase's include/ and src/)."""
    name = symbol.split("(", 1)[0].rsplit("::", 1)[-1].strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return []
    roots: list[Path] = []
    for d in include_dirs:
        for a in [d, *list(d.parents)[:3]]:
            if (a / "src").is_dir() and a / "src" not in roots:
                roots.append(a / "src")
    pattern = re.compile(rf"^[A-Za-z_][\w:<>,*& ]*\b{name}\s*\([^;]*$", re.MULTILINE)
    found: list[Path] = []
    seen = 0
    for root in roots:
        for folder, subdirs, files in os.walk(root):
            subdirs.sort()
            for f in sorted(files):
                seen += 1
                if seen > _MAX_SCANNED:  # a large tree: what was found so far
                    return found
                path = Path(folder) / f
                if path.suffix not in (".cpp", ".cc"):
                    continue
                try:
                    text = path.read_text(errors="replace")
                except OSError:
                    continue
                if name in text and pattern.search(text) and path not in found:
                    found.append(path)
    return found


def _undefined_message(name: str, missing: Mapping[str, Sequence[str]],
                       include_dirs: Sequence[Path]) -> str:
    lines = [f"the op_host of {name} uses {len(missing)} function(s) or variable(s) that none "
             "of its sources defines:"]
    for symbol, users in missing.items():
        lines.append(f"  {symbol} (used in {', '.join(users)})")
        lines += [f"    defined, it seems, in {p}" for p in defining_sources(symbol, include_dirs)]
    lines.append("add the source file that defines each with --host-source FILE (for ops-nn's "
                 "and ops-math's op_host: a .cpp of opbase's src/op_common/), or define it in "
                 "the op_host")
    return "\n".join(lines)


class OpHost:
    """A loaded op_host library: its registered ops and a way to call their host functions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._cdll = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        except OSError as exc:
            raise BuildError(f"{path}: cannot load the op_host library: {exc}") from None
        describe = self._cdll.opgen_host_describe
        describe.restype = ctypes.c_char_p
        self._call = self._cdll.opgen_host_call
        self._call.restype = ctypes.c_int32
        self._call.argtypes = [ctypes.POINTER(_Request), ctypes.POINTER(_Reply)]
        self._lock = threading.Lock()
        self._buffer = (ctypes.c_uint8 * TILING_CAPACITY)()
        info = json.loads(describe().decode())
        self.errors: str = info["errors"]
        self.ops: dict[str, dict[str, Any]] = {o["op_type"]: o for o in info["ops"]}

    def describe(self, op_type: str) -> dict[str, Any]:
        if op_type not in self.ops:
            known = ", ".join(sorted(self.ops)) or "none"
            raise TilingError(f"{op_type}: the op_host sources register no op of this type "
                              f"(registered: {known})")
        return self.ops[op_type]

    def tiling(self, op_type: str, inputs: Sequence[Sequence[HostTensor]],
               outputs: Sequence[HostTensor], attrs: Sequence[tuple[str, Any]],
               soc: SocProfile, output_counts: Sequence[int] | None = None) -> HostTiling:
        """Runs the op's TilingFunc. ``inputs`` has one entry per IR input: its instances (none
        for an absent optional input); ``attrs`` are (type, value) in the OpDef's order;
        ``output_counts`` the instances per IR output when one is dynamic (None: one each)."""
        with self._lock:
            rep, status = self._invoke(_TILING, op_type, inputs, outputs, attrs, soc,
                                       output_counts)
            self._raise(status, rep, op_type, _TILING)
            size = int(rep.tiling_size)
            if size > TILING_CAPACITY:
                raise TilingError(f"{op_type}: TilingFunc set {size} bytes of tiling data; the "
                                  f"buffer holds {TILING_CAPACITY}")
            data = bytes(self._buffer[:size])
        if not rep.block_dim_set or rep.block_dim < 1:
            raise TilingError(f"{op_type}: the op_host TilingFunc did not set a block dim "
                              "(context->SetBlockDim(n) with n >= 1)")
        return HostTiling(data, int(rep.block_dim), int(rep.tiling_key),
                          tuple(int(rep.workspaces[i]) for i in range(rep.num_workspaces)),
                          int(rep.schedule_mode), bool(rep.need_atomic),
                          tuple(o for o in range(64)
                                if rep.need_atomic and (int(rep.init_zero_outputs) >> o) & 1))

    def infer_shape(self, op_type: str, inputs: Sequence[Sequence[HostTensor]],
                    num_outputs: int, attrs: Sequence[tuple[str, Any]],
                    soc: SocProfile, output_counts: Sequence[int] | None = None
                    ) -> list[tuple[int, ...] | None]:
        """The output shapes InferShape sets; None for an output whose shape it never asks
        for (CANN's aclnn callers pass such an output; the caller decides)."""
        outs = [HostTensor((), "float32")] * num_outputs
        with self._lock:
            rep, status = self._invoke(_INFER_SHAPE, op_type, inputs, outs, attrs, soc,
                                       output_counts)
        self._raise(status, rep, op_type, _INFER_SHAPE)
        return [tuple(int(rep.out_dims[i][d]) for d in range(rep.out_ndim[i]))
                if rep.out_ndim[i] >= 0 else None for i in range(num_outputs)]

    def _raise(self, status: int, rep: _Reply, op_type: str, what: int) -> None:
        if status == 0:
            return
        # the result on the first line, then what the op_host logged (CANN's log and error
        # messages: OP_LOGE, REPORT_INNER_ERR_MSG, ...), which usually says why
        message, _, log = rep.message.decode(errors="replace").strip().partition("\n")
        logged = f"; the op_host logged:\n{log}" if log else ""
        if status in (2, 5):
            raise TilingError(f"{op_type}: {message} ({self.path.name}){logged}")
        raise TilingError(f"{op_type}: the op_host {_FUNCTION[what]} "
                          f"{message or _STATUS.get(status, 'failed')} ({self.path.name})"
                          f"{logged}")

    def _invoke(self, what: int, op_type: str, inputs: Sequence[Sequence[HostTensor]],
                outputs: Sequence[HostTensor], attrs: Sequence[tuple[str, Any]],
                soc: SocProfile, output_counts: Sequence[int] | None = None
                ) -> tuple[_Reply, int]:
        flat = [t for group in inputs for t in group]
        counts = (ctypes.c_int32 * max(len(inputs), 1))(*[len(g) for g in inputs])
        tin = (_Tensor * max(len(flat), 1))()
        tout = (_Tensor * max(len(outputs), 1))()
        keep: list[Any] = []
        for arr, items in ((tin, flat), (tout, outputs)):
            for i, t in enumerate(items):
                arr[i].dtype = int(data_type(t.dtype))
                arr[i].format = t.format
                arr[i].ndim = len(t.shape)
                for d, n in enumerate(t.shape[:_MAX_DIMS]):
                    arr[i].dims[d] = n
                if t.data is not None:
                    host = np.ascontiguousarray(t.data)
                    keep.append(host)
                    arr[i].data = host.ctypes.data
                    arr[i].nbytes = host.nbytes
        cattrs = (_Attr * max(len(attrs), 1))()
        for i, (kind, value) in enumerate(attrs):
            cattrs[i].kind = _ATTR_KIND[kind]
            raw = _attr_bytes(kind, value)
            buf = ctypes.create_string_buffer(raw, len(raw) + 1)
            keep.append(buf)
            cattrs[i].data = ctypes.cast(buf, ctypes.c_void_p)
            cattrs[i].count = len(value) if kind.startswith("list_") else len(raw)
        req = _Request(
            op_type=op_type.encode(), what=what, num_ir_inputs=len(inputs), ir_counts=counts,
            num_inputs=len(flat), num_outputs=len(outputs), inputs=tin, outputs=tout,
            num_attrs=len(attrs), aiv_cores=soc.vector_cores, attrs=cattrs,
            soc=soc.name.encode(), ub_bytes=soc.ub_bytes,
            aic_cores=soc.cube_cores or soc.vector_cores,
            sys_workspace=soc.system_workspace,
            tiling=ctypes.cast(self._buffer, ctypes.c_void_p), tiling_capacity=TILING_CAPACITY)
        if output_counts is not None:
            out_counts = (ctypes.c_int32 * max(len(output_counts), 1))(*output_counts)
            keep.append(out_counts)
            req.num_ir_outputs = len(output_counts)
            req.ir_out_counts = out_counts
        rep = _Reply()
        status = int(self._call(ctypes.byref(req), ctypes.byref(rep)))
        return rep, status


def _attr_bytes(kind: str, value: Any) -> bytes:
    if kind in ("int", "type"):
        return np.int64(int(value)).tobytes()
    if kind == "float":
        return np.float32(value).tobytes()
    if kind == "bool":
        return bytes([1 if value else 0])
    if kind in ("string", "str"):
        return str(value).encode()
    if kind == "list_int":
        return np.asarray(list(value), dtype=np.int64).tobytes()
    if kind == "list_float":
        return np.asarray(list(value), dtype=np.float32).tobytes()
    if kind == "list_bool":
        return bytes(1 if v else 0 for v in value)
    raise TilingError(f"attr type '{kind}' cannot be passed to an op_host function")


_LOADED: dict[str, OpHost] = {}
_LOADED_LOCK = threading.Lock()


def load_op_host(path: Path) -> OpHost:
    """The op_host library at ``path``, loaded once per process."""
    with _LOADED_LOCK:
        host = _LOADED.get(str(path))
        if host is None:
            host = _LOADED[str(path)] = OpHost(path)
        return host
