"""Kernel build (the seed's `aoc` step): g++ into a content-addressed cache of shared libraries."""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from filelock import FileLock

from . import progress
from .errors import BuildError, CompileError

_log = logging.getLogger("opgen_runtime")  # progress of slow steps (opgen_runtime.progress)

# Every simulator build is CANN's CPU-debug build: ASCENDC_CPU_DEBUG (and __CCE_KT_TEST__, the
# older samples' name for it) drops the `#ifndef ASCENDC_CPU_DEBUG` host wrappers with their
# `kernel<<<blockDim, nullptr, stream>>>(...)` launches, which only the NPU compiler reads.
CPU_DEBUG_DEFINES: tuple[str, ...] = ("-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1")
BASE_FLAGS: tuple[str, ...] = (
    *CPU_DEBUG_DEFINES,
    "-O3",
    "-std=c++17",
    "-fPIC",
    "-shared",
    "-pthread",
    "-fvisibility=hidden",
    "-fno-math-errno",
    # line tables (with the inlined-call chains) and nothing more, compressed: the simulator
    # names the kernel's line of a rule violation or a fault (opgen_sim/faults.h)
    "-g1",
    "-gno-column-info",
    "-gz",
)
STRICT_ENV = "OPGEN_SIM_STRICT"


def strict_build_flags() -> tuple[str, ...]:
    """The build's share of strict mode: `ASSERT(x)` checks only in libraries built while
    OPGEN_SIM_STRICT=1 is set (CANN's NPU build expands it to nothing, its CPU-debug build to
    assert(x)). Part of the cache key, so a strict and a default library never mix."""
    value = os.environ.get(STRICT_ENV, "")
    return ("-DOPGEN_SIM_CHECKED_ASSERT=1",) if value not in ("", "0") else ()


# The kernel's directory as the line tables name it: a library is cached by content, not by
# path, so the launcher puts the source's current directory in its place (kernel_site_path).
KERNEL_DIR_TOKEN = "/<kernel-dir>"
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")
# Bumped when the launch ABI between opgen_runtime and the headers changes, or what a library
# holds (v2: line tables whose kernel directory is KERNEL_DIR_TOKEN).
CACHE_FORMAT = "opgen-kernel-v2"
# g++'s located lines: `path:line:col: error: text`, and `path:line:col:   required from here`
# under an "In instantiation of ..." header.
_DIAGNOSTIC = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note): "
    r"(?P<text>.*)$")
_REQUIRED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+):\s+required from")


def include_dir() -> Path:
    """Directory holding kernel_operator.h (a package subdir when installed from a wheel)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "include", here.parent / "include"):
        if (candidate / "kernel_operator.h").is_file():
            return candidate
    raise BuildError(f"kernel_operator.h not found next to {here}")


def cache_root() -> Path:
    """opgen's cache: $OPGEN_CACHE_DIR, else the platform's user cache directory of opgen
    (platformdirs: ~/.cache/opgen or $XDG_CACHE_HOME/opgen on Linux, ~/Library/Caches/opgen on
    macOS). Every cache of the compiler and the runtime lives in a subfolder of it."""
    env = os.environ.get("OPGEN_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("opgen", appauthor=False))


def cache_dir() -> Path:
    """The kernel cache: <cache root>/kernels."""
    return cache_root() / "kernels"


@dataclass(frozen=True)
class KernelTemplate:
    """A templated kernel entry (`template<...> __global__ void op(...)`, CANN's tiling-key
    templates), as the kernel frontend read it: each template parameter as (name, kind, type),
    kind "type" (an ASCENDC_TPL_DATATYPE) or "value" with its C++ type, and the entry's number
    of GM_ADDR parameters."""

    params: tuple[tuple[str, str, str], ...]
    arity: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelTemplate:
        return cls(tuple((p["name"], p["kind"], p["type"]) for p in data["params"]),
                   int(data["arity"]))

    def launch_source(self, kernel: Path, entry: str) -> str:
        """A translation unit holding the kernel and an extern "C" `entry` that runs the
        instantiation the launch's tiling key selects (opgen_sim/tpl_dispatch.h)."""
        values = ", ".join(f"uint64_t V{i}" for i in range(len(self.params)))
        args = []
        for i, (_name, kind, ctype) in enumerate(self.params):
            args.append(f"typename ::TypeFromId<static_cast<int>(V{i})>::type" if kind == "type"
                        else f"static_cast<{ctype}>(V{i})")
        gm = ", ".join(f"GM_ADDR a{i}" for i in range(self.arity))
        passed = ", ".join(f"a[{i}]" for i in range(self.arity))
        listed = ", ".join(f"a{i}" for i in range(self.arity))
        return (
            f"// @generated by opgen: the launch entry of the templated kernel {entry}\n"
            f"#include {json.dumps(str(kernel))}\n"
            '#include "opgen_sim/tpl_dispatch.h"\n'
            "namespace {\n"
            "struct OpgenTplCall {\n"
            f"    template <{values}>\n"
            "    static void Run(uint8_t** a) {\n"
            f"        {entry}<{', '.join(args)}>({passed});\n"
            "    }\n"
            "};\n"
            "}  // namespace\n"
            f'extern "C" __global__ void opgen_tpl_entry({gm}) __asm__({json.dumps(entry)});\n'
            f'extern "C" __global__ void opgen_tpl_entry({gm}) {{\n'
            f"    uint8_t* a[] = {{{listed}}};\n"
            "    ::opgen_tpl::Launch<OpgenTplCall, g_tilingDeclareParams, g_tilingSelectParams>("
            f"{json.dumps(entry)}, a);\n"
            "}\n")


@dataclass(frozen=True)
class BuildRequest:
    """One kernel to build; the fields mirror build_kernel's arguments."""

    source: str | os.PathLike[str]
    entry: str | Sequence[str]
    defines: Mapping[str, str] | None = None
    include_dirs: Sequence[str | os.PathLike[str]] = ()
    extra_flags: Sequence[str] = ()
    template: KernelTemplate | None = None


@dataclass(frozen=True)
class KernelLibrary:
    """A built kernel: the shared library and the kernel entries it exports."""

    path: Path
    entries: tuple[str, ...]
    source: Path
    key: str = field(repr=False)


def _compiler() -> str:
    cxx = os.environ.get("CXX", "g++")
    found = shutil.which(cxx)
    if found is None:
        raise BuildError(f"C++ compiler '{cxx}' not found (set CXX or install g++)")
    return found


def _compiler_identity(path: str) -> str:
    # The resolved binary and its stat identify the compiler version without running it.
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def _headers_under(d: Path, recursive: bool) -> list[Path]:
    if not d.is_dir():
        return []
    it = d.rglob("*") if recursive else d.glob("*")
    return sorted(p for p in it if p.suffix in HEADER_SUFFIXES and p.is_file())


def _forced_includes(flags: Sequence[str]) -> list[Path]:
    out = []
    for i, flag in enumerate(flags):
        if flag == "-include" and i + 1 < len(flags):
            out.append(Path(flags[i + 1]))
        elif flag.startswith("-include") and len(flag) > len("-include"):
            out.append(Path(flag[len("-include") :]))
    return out


def _command(
    cxx: str,
    source: Path,
    out: Path,
    defines: Mapping[str, str],
    includes: Sequence[Path],
    extra: Sequence[str],
    kernel_dir: Path | None = None,
) -> list[str]:
    cmd = [cxx, *BASE_FLAGS, *strict_build_flags(), f"-I{include_dir()}"]
    cmd += [f"-I{d}" for d in includes]
    cmd += [f"-D{k}={v}" for k, v in sorted(defines.items())]
    cmd += list(extra)
    cmd += [f"-fdebug-prefix-map={kernel_dir or source.parent}={KERNEL_DIR_TOKEN}"]
    cmd += ["-o", str(out), str(source)]
    return cmd


def _cache_key(
    cxx: str,
    source: Path,
    defines: Mapping[str, str],
    includes: Sequence[Path],
    extra: Sequence[str],
    template: KernelTemplate | None = None,
) -> str:
    h = hashlib.sha256()

    def add(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    add("format", CACHE_FORMAT.encode())
    add("compiler", _compiler_identity(cxx).encode())
    add("flags", "\0".join((*BASE_FLAGS, *strict_build_flags())).encode())
    add("extra", "\0".join(extra).encode())
    add("defines", "\0".join(f"{k}={v}" for k, v in sorted(defines.items())).encode())
    add("source", source.read_bytes())
    if template is not None:
        add("template", repr(template).encode())
    header_files = _headers_under(include_dir(), True) + _headers_under(source.parent, False)
    for d in includes:
        add("include_dir", str(d).encode())
        header_files += _headers_under(d, True)
    header_files += _forced_includes(extra)
    for p in header_files:
        add("header", str(p).encode())
        add("content", p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def _check_entries(path: Path, source: Path, entries: tuple[str, ...]) -> None:
    lib = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
    if not hasattr(lib, "opgen_sim_launch"):
        raise BuildError(f"{source}: the kernel does not include kernel_operator.h")
    for e in entries:
        if not hasattr(lib, e):
            raise BuildError(
                f"{source}: no kernel entry '{e}'; declare it as "
                f'extern "C" __global__ __aicore__ void {e}(GM_ADDR ..., GM_ADDR workspace, '
                f"GM_ADDR tiling)"
            )


def build_kernel(
    source: str | os.PathLike[str],
    *,
    entry: str | Sequence[str],
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str | os.PathLike[str]] = (),
    extra_flags: Sequence[str] = (),
    template: KernelTemplate | None = None,
) -> KernelLibrary:
    """Compiles ``source`` into the kernel cache, or reuses the cached library.

    With ``template`` (a templated entry), the library holds every instantiation that the
    kernel's ASCENDC_TPL_SEL selects, behind one extern "C" entry that dispatches on the
    launch's tiling key.

    The cache key hashes the source, every simulator header, headers beside the source and in
    ``include_dirs``, the flags, the defines and the compiler binary. The source is compiled by
    its real path, so compile errors name the user's file and line.
    """
    src = Path(source).resolve()
    if not src.is_file():
        raise BuildError(f"kernel source {src} does not exist")
    entries = (entry,) if isinstance(entry, str) else tuple(entry)
    defs = dict(defines or {})
    incs = [Path(d).resolve() for d in include_dirs]
    extra = tuple(extra_flags)
    cxx = _compiler()
    key = _cache_key(cxx, src, defs, incs, extra, template)
    out_dir = cache_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / f"{src.stem}-{key[:32]}.so"
    if not final.exists():
        with FileLock(str(final) + ".lock"):
            if not final.exists():
                shown = ", ".join(f"{k}={v}" for k, v in sorted(defs.items())
                                  if not k.startswith("ORIG_DTYPE_"))  # they mirror DTYPE_*
                with progress.step(f"compiling {src.name}" + (f" ({shown})" if shown else "")):
                    if template is None:
                        _compile(cxx, src, final, defs, incs, extra)
                    else:
                        _compile_templated(cxx, src, entries, template, final, defs, incs,
                                           extra)
    _check_entries(final, src, entries)
    return KernelLibrary(final, entries, src, key)


def _compile(
    cxx: str,
    src: Path,
    final: Path,
    defs: Mapping[str, str],
    incs: Sequence[Path],
    extra: Sequence[str],
    shown: Path | None = None,
) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.stem}.", suffix=".tmp.so", dir=final.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # the C locale: plain ASCII quotes and English messages, the same on every machine
        proc = subprocess.run(
            _command(cxx, src, tmp, defs, incs, extra, (shown or src).parent),
            capture_output=True, text=True,
            check=False, env={**os.environ, "LC_ALL": "C"},
        )
        if proc.returncode != 0:
            raise BuildError(f"compiling {shown or src} failed:\n{proc.stderr.rstrip()}",
                             errors=compile_errors(proc.stderr))
        os.replace(tmp, final)  # atomic: readers see no half-written library
    finally:
        tmp.unlink(missing_ok=True)


def _compile_templated(
    cxx: str,
    src: Path,
    entries: tuple[str, ...],
    template: KernelTemplate,
    final: Path,
    defs: Mapping[str, str],
    incs: Sequence[Path],
    extra: Sequence[str],
) -> None:
    if len(entries) != 1:
        raise BuildError(f"{src}: a templated kernel builds one entry, not {', '.join(entries)}")
    # the launch entry includes the kernel, so the kernel's own errors still name its lines
    with tempfile.TemporaryDirectory(dir=final.parent) as tmp:
        unit = Path(tmp) / f"{src.stem}.launch.cpp"
        unit.write_text(template.launch_source(src, entries[0]))
        _compile(cxx, unit, final, defs, incs, extra, shown=src)


def kernel_site_path(text: str, source: Path) -> str:
    """A simulator message with the kernel's directory (KERNEL_DIR_TOKEN) put back in."""
    return text.replace(KERNEL_DIR_TOKEN + "/", f"{source.parent}{os.sep}")


def compile_errors(stderr: str) -> tuple[CompileError, ...]:
    """The errors of g++'s output, each once, located in the user's files.

    An error raised inside the simulator's own headers (a static_assert of an API template, a
    macro such as GET_TILING_DATA) is moved to the user's line that led there: g++'s "required
    from here" before it, or its "in expansion of macro" note after it. So every error names
    the kernel's own file and line; the message names the header.
    """
    sim = str(include_dir())
    found: list[CompileError] = []
    required: tuple[str, int, int] | None = None
    pending: tuple[str, str] | None = None  # (header, text) of an error awaiting its macro note

    def add(path: str, row: int, col: int, text: str) -> None:
        error = CompileError(path, row, col, text)
        if error not in found:
            found.append(error)

    def flush() -> None:
        nonlocal pending
        if pending is not None:  # no user line found: the header's own place is all there is
            header, text = pending
            path, row, col = header.rsplit(":", 2)
            add(path, int(row), int(col), text)
            pending = None

    for line in stderr.splitlines():
        if not line.startswith(" ") and line.rstrip().endswith(":") and ": In " in line:
            flush()
            required = None  # "k.cpp: In instantiation of ...:" starts a new error context
            continue
        need = _REQUIRED.match(line)
        if need is not None:
            if not _inside(need["path"], sim):
                required = (need["path"], int(need["line"]), int(need["col"]))
            continue
        m = _DIAGNOSTIC.match(line)
        if m is None:
            continue
        path, row, col, text = m["path"], int(m["line"]), int(m["col"]), m["text"]
        if m["kind"] == "note":
            if pending is not None and text.startswith("in expansion of macro") \
                    and not _inside(path, sim):
                add(path, row, col, pending[1])
                pending = None
            continue
        if m["kind"] not in ("error", "fatal error"):
            continue
        flush()
        if _inside(path, sim):
            text = f"{text} (raised in the simulator's {os.path.relpath(path, sim)})"
            if required is None:
                pending = (f"{path}:{row}:{col}", text)
                continue
            path, row, col = required
        add(path, row, col, text)
    flush()
    return tuple(found)


def _inside(path: str, directory: str) -> bool:
    full = os.path.abspath(path)
    return full == directory or full.startswith(directory + os.sep)


def build_kernels(
    requests: Iterable[BuildRequest | Mapping[str, object]], *, max_workers: int | None = None
) -> list[KernelLibrary]:
    """Builds many kernels in parallel (one g++ per core); results keep the request order."""
    reqs = [r if isinstance(r, BuildRequest) else BuildRequest(**r) for r in requests]  # type: ignore[arg-type]
    if not reqs:
        return []
    workers = max_workers or min(len(reqs), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(
                build_kernel,
                r.source,
                entry=r.entry,
                defines=r.defines,
                include_dirs=r.include_dirs,
                extra_flags=r.extra_flags,
                template=r.template,
            )
            for r in reqs
        ]
        return [f.result() for f in futures]
