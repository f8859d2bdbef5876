"""Stage 4, kernel frontend: the fixed libclang invocation (stub include dir, flags, system dirs).

Kernels are parsed with `-nostdinc -nostdinc++` against opgen's stub headers, so no CANN
header and no libstdc++ is read unless a kernel includes a standard header itself. For
those (<cstdint>, <cmath>, <algorithm>, ...) the host C++ compiler's own search list is
appended after the stubs; it is asked once per process (`c++ -E -x c++ - -v`), and only when
a kernel is actually parsed, never on a cache hit.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from opgen_runtime.build import ARCH_DEFINES, CPU_DEBUG_DEFINES, VECTOR_CORE_DEFINES

# Bumped whenever what the parser extracts changes: old cache entries then miss.
FRONTEND_VERSION = "5"
# The kernel is read as the simulator compiles it: CANN's CPU-debug build, where the
# `#ifndef ASCENDC_CPU_DEBUG` launch wrappers (`<<<...>>>`, NPU compiler only) drop out.
LANGUAGE_FLAGS = ("-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-w",
                  *CPU_DEBUG_DEFINES, *ARCH_DEFINES, *VECTOR_CORE_DEFINES,
                  "-D__OPGEN_FRONTEND__=1")


# The kernel keywords as the stubs define them: the marks the extractor reads back from the AST
# (when a kernel is parsed with the simulator's own headers, these definitions come first).
KERNEL_MARKERS: tuple[tuple[str, str], ...] = (
    ("__global__", '__attribute__((annotate("opgen.global")))'),
    ("__aicore__", '__attribute__((annotate("opgen.aicore")))'),
)


@functools.cache
def stub_dir() -> Path:
    return Path(str(resources.files("opgen.kernel_frontend") / "include"))


@functools.cache
def stub_digest() -> str:
    """Hash of every stub header: part of each cache key."""
    h = hashlib.sha256()
    root = stub_dir()
    for path in sorted(root.rglob("*.h")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def libclang_version() -> str:
    import clang.cindex as ci

    lib = ci.conf.lib
    fn = lib.clang_getClangVersion
    fn.restype = ci._CXString
    return str(ci._CXString.from_result(fn()))


@functools.cache
def runtime_include_dirs() -> tuple[Path, ...]:
    """The simulator's own headers (opgen_runtime's include dir), when present: where the
    installed package is, fixed for the life of the process."""
    from opgen_runtime.build import include_dir
    from opgen_runtime.errors import BuildError

    try:
        return (include_dir(),)
    except BuildError:  # pragma: no cover - a broken installation
        return ()


def base_flags() -> tuple[str, ...]:
    # The driver looks for a GCC installation on every parse (some 60 stats and opens of
    # candidate triples); with -nostdinc it uses none. A GCC dir that does not exist (inside
    # the stubs) ends that search at one stat: the same invocation otherwise.
    return (*LANGUAGE_FLAGS, f"-I{stub_dir()}", f"--gcc-toolchain={stub_dir() / 'no-gcc'}")


def _parse_search_list(text: str) -> list[str]:
    dirs: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            d = line.strip()
            if d.endswith("(framework directory)"):
                continue
            dirs.append(os.path.normpath(d))
    return dirs


@functools.cache
def system_include_dirs() -> tuple[str, ...]:
    """The host compiler's `#include <...>` search list; empty when there is no compiler.

    `OPGEN_SYSTEM_INCLUDES` (os.pathsep-separated) replaces the probe, e.g. to pin a
    toolchain in CI.
    """
    pinned = os.environ.get("OPGEN_SYSTEM_INCLUDES")
    if pinned is not None:
        return tuple(d for d in pinned.split(os.pathsep) if d)
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") \
        or shutil.which("clang++")
    if not compiler:
        return ()
    try:
        proc = subprocess.run([compiler, "-E", "-x", "c++", "-", "-v"], input="",
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(d for d in _parse_search_list(proc.stderr) if os.path.isdir(d))


def parse_flags() -> tuple[str, ...]:
    return (*base_flags(), *(f"-isystem{d}" for d in system_include_dirs()))
