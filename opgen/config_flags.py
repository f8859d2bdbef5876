"""`opgen config`: compiler and linker flags for building kernels and CPU-debug drivers against
the simulator with a user's own g++ or CMake (in the manner of pkg-config and llvm-config)."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

# ASCENDC_CPU_DEBUG selects CANN's CPU twin-debug branches (tikicpulib.h, ICPU_RUN_KF) in
# samples; the defines are the ones every simulator build of the runtime uses.
from opgen_runtime.build import ARCH_DEFINES, CPU_DEBUG_DEFINES

# -fno-strict-aliasing: CANN's samples copy their tiling struct through a uint32_t pointer and then
# read its float fields (asc-devkit's softmaxflashv3 CopyTiling), undefined in C++: GCC at -O2
# reads the floats as they were before the copy, where CANN's CPU mode, unoptimised, reads what
# was copied. (Not in the kernel builds of opgen_runtime.build: it made some of the simulator's
# loops 2-3x slower, as the compiler must then reload what any store might change.)
CXX_FLAGS: tuple[str, ...] = ("-std=c++17", "-pthread", "-fno-strict-aliasing")
LINK_FLAGS: tuple[str, ...] = ("-pthread",)


class ConfigError(Exception):
    """The simulator headers cannot be found (opgen_runtime is not installed)."""


def include_dir() -> Path:
    """The directory holding kernel_operator.h and tikicpulib.h of the installed opgen_runtime.

    Located without importing opgen_runtime (the same two places its build module looks).
    """
    spec = importlib.util.find_spec("opgen_runtime")
    if spec is None or spec.origin is None:
        raise ConfigError("opgen_runtime is not installed; pip install opgen")
    here = Path(spec.origin).resolve().parent
    for candidate in (here / "include", here.parent / "include"):
        if (candidate / "tikicpulib.h").is_file() and (candidate / "kernel_operator.h").is_file():
            return candidate
    raise ConfigError(f"the simulator headers (tikicpulib.h) are not next to {here}")


def cflags() -> list[str]:
    """Flags to compile a kernel or a CPU-debug driver against the simulator."""
    return [f"-I{include_dir()}", *CXX_FLAGS, *CPU_DEBUG_DEFINES, *ARCH_DEFINES]


def libs() -> list[str]:
    """Flags to link them: the simulator is header-only, so only the thread library."""
    return list(LINK_FLAGS)


def render(*, want_cflags: bool, want_libs: bool, want_includedir: bool) -> str:
    """The requested flags as one shell-quoted line, cflags before libs (as pkg-config prints)."""
    if want_includedir and not (want_cflags or want_libs):
        return str(include_dir())
    parts: list[str] = []
    if want_cflags:
        parts += cflags()
    if want_libs:
        parts += [f for f in libs() if f not in parts]
    return " ".join(shlex.quote(p) for p in parts)
