"""What the framework op libraries (TensorFlow, PyTorch) share in their builds: content hashes,
cached build steps, and the kernel variants embedded as bytes in a small object.

docs/tensorflow.md, "Kernel variants: embedded in the library", says why the variants are
embedded rather than loaded from the kernel cache. Each framework builds into its own
subfolder of the kernel cache (`$OPGEN_CACHE_DIR/tf`, `.../torch`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from . import progress
from .build import (
    BuildRequest,
    _compiler,
    _compiler_identity,
    build_kernels,
    cache_dir,
    include_dir,
)
from .build import link as build_link
from .cachedir import prebuilt
from .errors import BuildError
from .metadef import load as load_metadef
from .ophost import build_op_host
from .oplib import kernel_builds

_log = logging.getLogger("opgen_runtime")


@dataclass(frozen=True)
class Variant:
    """One kernel variant (a dtype column of an op) as a symbol of the op library."""

    symbol: str
    path: Path


def content_hash(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little") + p)
    return h.hexdigest()


def files(d: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in d.rglob("*") if p.suffix in suffixes and p.is_file())


def run(cmd: Sequence[str], what: str, error: type[Exception]) -> None:
    """Run a compiler command (a link with gold that fails runs again without it: build.link);
    on failure raise `error` with the error lines (framework headers warn a lot; the errors are
    what the user needs)."""
    proc = build_link(cmd)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if "error" in ln]
        detail = "\n".join(lines[:40]) or proc.stderr[-4000:]
        raise error(f"{what} failed:\n{detail}\ncommand: {' '.join(cmd)}")


def cached(target: Path, produce: Callable[[Path], None], what: str | None = None) -> Path:
    """Produce `target` once (file lock, temp file + rename: readers never see half a file).
    A production that takes more than a second logs `what` (opgen_runtime.progress)."""
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if target.exists():
            return target
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.",
                                   suffix=target.suffix)
        os.close(fd)
        try:
            with progress.step(what or f"building {target.name}"):
                produce(Path(tmp))
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
    return target


@dataclass(frozen=True)
class _Built:
    """What the variants of some metadefs built: (op, column) -> kernel library path, in order,
    and each op's own op_host."""

    kernels: tuple[tuple[str, int, Path], ...]
    hosts: tuple[tuple[str, Path], ...]


def _build(metadefs: Sequence[str | os.PathLike[str]], error: type[Exception]) -> _Built:
    requests: list[BuildRequest] = []
    names: list[tuple[str, int]] = []
    hosts: list[tuple[str, Path]] = []
    for path in metadefs:
        op = load_metadef(Path(path))
        for column, (_dtypes, request) in enumerate(kernel_builds(op, error)):
            requests.append(request)
            names.append((op.op_name, column))
        if op.op_host:  # the op's own op_host, embedded beside its kernels (docs/op-host.md)
            hosts.append((op.op_name, build_op_host(op.op_host, name=op.op_name,
                                                    include_dirs=op.host_include_dirs)))
    libs = build_kernels(requests)
    return _Built(tuple((n, c, lib.path) for (n, c), lib in zip(names, libs, strict=True)),
                  tuple(hosts))


_PREFETCH_LOCK = threading.Lock()
_PREFETCHED: dict[tuple[str, ...], Future[_Built]] = {}


def _prefetch_key(metadefs: Sequence[str | os.PathLike[str]]) -> tuple[str, ...]:
    return tuple(str(Path(m).resolve()) for m in metadefs)


def prefetch(metadefs: Sequence[str | os.PathLike[str]]) -> None:
    """Start building the metadefs' kernel variants (and op_hosts) on a background thread and
    return at once, so that the compiles run on the other cores while the framework imports
    (the generated `_library` modules call this before importing torch or TensorFlow). The next
    variants() of the same metadefs in this process takes the result. A failure here is not
    reported: variants() then builds again and raises in its caller's thread. Nothing without a
    compiler (the framework library will not be built)."""
    try:
        _compiler()
    except BuildError:
        return
    key = _prefetch_key(metadefs)
    with _PREFETCH_LOCK:
        if key in _PREFETCHED:
            return
        future: Future[_Built] = Future()
        _PREFETCHED[key] = future

    def run() -> None:
        try:
            future.set_result(_build(metadefs, RuntimeError))
        except BaseException as exc:  # reported by variants()' own build
            future.set_exception(exc)

    threading.Thread(target=run, name="opgen-prefetch", daemon=True).start()


def variants(metadefs: Sequence[str | os.PathLike[str]], symbol: Callable[[str, int], str],
             error: type[Exception]) -> list[Variant]:
    """Every dtype column of every op, built by the runtime (the same builds the operator
    libraries bundle), named `symbol(op_name, column)`, in the metadefs' order."""
    with _PREFETCH_LOCK:
        pending = _PREFETCHED.pop(_prefetch_key(metadefs), None)
    built: _Built | None = None
    if pending is not None:
        try:
            built = pending.result()
        except Exception:  # built again below, raising in this thread
            built = None
    if built is None:
        built = _build(metadefs, error)
    return ([Variant(symbol(n, c), p) for n, c, p in built.kernels]
            + [Variant(symbol(n, 0) + "_op_host", p) for n, p in built.hosts])


def variants_object(cxx: str, built: Sequence[Variant], subdir: str, stem: str, fmt: str,
                    error: type[Exception]) -> Path:
    """An object defining <symbol> and <symbol>_end around each variant's bytes (cached)."""
    parts = [fmt.encode()]
    for v in built:
        parts += [v.symbol.encode(), v.path.read_bytes()]
    target = cache_dir() / subdir / f"{stem}-kernels-{content_hash(*parts)[:24]}.o"
    asm = "".join(
        f'.section .rodata.{v.symbol},"a"\n.balign 64\n.global {v.symbol}\n{v.symbol}:\n'
        f'.incbin "{v.path}"\n.global {v.symbol}_end\n{v.symbol}_end:\n.byte 0\n'
        for v in built)

    def compile_(out: Path) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "kernels.cc"
            src.write_text(f"__asm__({json.dumps(asm)});\n")
            run([cxx, "-fPIC", "-c", str(src), "-o", str(out)], "embedding the kernel variants",
                error)

    return cached(target, compile_, f"embedding the kernel variants of lib{stem}.so")


# -- what every package's framework library shares -------------------------------------------
def support_headers(dirs: Sequence[str]) -> list[bytes]:
    """Each header under the include directory's `dirs` (opgen_host, opgen_torch, ...): its
    relative path and bytes, for the cache keys of what is compiled from them."""
    inc = include_dir()
    parts: list[bytes] = []
    for d in dirs:
        for p in files(inc / d, (".h",)):
            parts += [str(p.relative_to(inc)).encode(), p.read_bytes()]
    return parts


def support_object(cxx: str, header: str, flags: Sequence[str], parts: Sequence[bytes],
                   subdir: str, framework: str, error: type[Exception]) -> Path:
    """The glue's support functions: `header` compiled once with `flags` (which define its
    support unit's macro) into `<cache>/kernels/<subdir>/opgen-<subdir>-support-<hash>.o`, keyed
    by the compiler, the flags and `parts` (the framework's version, the glue headers' bytes);
    every package's library links it. The prebuilt layer's copy when it has one."""
    key = content_hash(SUPPORT_FORMAT.encode(), _compiler_identity(cxx).encode(),
                       header.encode(), "\0".join(flags).encode(), *parts)
    target = cache_dir() / subdir / f"opgen-{subdir}-support-{key[:24]}.o"
    shipped = target if target.exists() else prebuilt(target)
    if shipped is not None:
        return shipped

    def compile_(out: Path) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            unit = Path(tmp) / f"opgen_{subdir}_support.cc"
            unit.write_text(f"// @generated by opgen: the {framework} glue's support functions\n"
                            f"#include {json.dumps(header)}\n")
            run([cxx, *flags, "-c", str(unit), "-o", str(out)],
                f"compiling the {framework} glue's support functions", error)

    return cached(target, compile_, f"compiling the {framework} glue's support functions "
                  f"(once per {framework} version)")


# -- precompiled framework headers -----------------------------------------------------------
# A framework library's translation unit opens with one include of opgen's glue header
# (opgen_torch/sim_op.h, opgen_tf/sim_op.h), which pulls in the framework's headers: half of the
# unit's compile time. `opgen prebuild` precompiles that header for the installed framework;
# a library build uses it when it is there (the prebuilt layer or the cache) and otherwise
# parses the header as before: building it at first use would cost more than it saves once.
PCH_FORMAT = "opgen-framework-pch-v1"
SUPPORT_FORMAT = "opgen-framework-support-v1"
_PCH_STUB = "opgen_glue_pch.h"
_LINE_COMMENT = re.compile(r"^\s*(//.*)?$")


@dataclass(frozen=True)
class GluePch:
    """The precompiled `header` for a unit compiled with `flags` (all of its flags but -I of
    the unit's own directory, -c and -o), keyed by `parts` (the framework's version, the glue
    headers' bytes) besides the compiler and flags."""

    cxx: str
    header: str
    flags: tuple[str, ...]
    parts: tuple[bytes, ...]
    subdir: str

    def _dir(self) -> Path:
        key = content_hash(PCH_FORMAT.encode(), _compiler_identity(self.cxx).encode(),
                           self.header.encode(), "\0".join(self.flags).encode(), *self.parts)
        return cache_dir() / self.subdir / f"pch-{key[:24]}"

    def find(self) -> Path | None:
        """The stub to `-include`, when the header is precompiled (cache or prebuilt layer)."""
        gch = self._dir() / (_PCH_STUB + ".gch")
        found = gch if gch.exists() else prebuilt(gch)
        return found.with_name(_PCH_STUB) if found is not None else None

    def build(self, error: type[Exception]) -> Path:
        """Precompile the header (cached); the stub's path."""
        out_dir = self._dir()
        stub = out_dir / _PCH_STUB

        def produce(tmp: Path) -> None:
            stub.write_text(f"#include {json.dumps(self.header)}\n")
            run([self.cxx, *self.flags, "-x", "c++-header", "-o", str(tmp), str(stub)],
                f"precompiling {self.header}", error)

        cached(out_dir / (_PCH_STUB + ".gch"), produce, f"precompiling {self.header} "
               "(once per framework version)")
        return stub

    def fits(self, source: Path) -> bool:
        """`source` opens with the include of the header (comments and blank lines before it):
        including the precompiled header first then means what the source says."""
        try:
            lines = source.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return False
        for line in lines:
            if _LINE_COMMENT.match(line):
                continue
            return line.strip() == f"#include {json.dumps(self.header)}"
        return False

    def include_flags(self, source: Path) -> list[str]:
        """`-include <stub>` when the header is precompiled and `source` fits it, else none."""
        stub = self.find() if self.fits(source) else None
        return ["-include", str(stub)] if stub is not None else []
