"""The simulator's Exp (runtime/include/opgen_sim/exp_lanes.h) as a host library for tests: the
scalar definition ExpF and each SIMD width of it, compiled with the kernels' flags."""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from pathlib import Path

import numpy as np

from opgen_runtime.build import BASE_FLAGS, include_dir
from opgen_runtime.cachedir import cache_root

SOURCE = r"""
#include <cstdint>
#include "opgen_sim/exp_lanes.h"
using namespace opgen_sim::exp_lanes;
#define EXPORT extern "C" __attribute__((visibility("default")))
EXPORT void exp_scalar(const float* x, float* d, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) d[i] = ExpF(x[i]);
}
// width 0: the dispatcher (Span); 16: SpanAvx512; 8: SpanAvx2; 4: Exp4 on each group of four
// lanes, the tail by ExpF. -1: this host lacks the width's instructions.
EXPORT int exp_width(int width, const float* x, float* d, uint64_t n) {
#ifdef OPGEN_SIM_EXP_LANES
    if (width == 16) {
        if (!__builtin_cpu_supports("avx512f")) return -1;
        SpanAvx512(d, x, n);
        return 0;
    }
    if (width == 8 || width == 4) {
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return -1;
        if (width == 8) {
            SpanAvx2(d, x, n);
            return 0;
        }
        uint64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            F4v v;
            for (int k = 0; k < 4; ++k) v[k] = x[i + k];
            const F4v r = Exp4Fma(v);
            for (int k = 0; k < 4; ++k) d[i + k] = r[k];
        }
        for (; i < n; ++i) d[i] = ExpF(x[i]);
        return 0;
    }
#endif
    if (width != 0) return -1;
    Span(d, x, n);
    return 0;
}
"""

_LIB: ctypes.CDLL | None = None


def library(cache: Path | None = None) -> ctypes.CDLL:
    """The compiled library, built once per source, header and flags in `cache` (default:
    opgen's cache dir)."""
    global _LIB
    if _LIB is None:
        if cache is None:
            cache = cache_root() / "test-exp-ref"
            cache.mkdir(parents=True, exist_ok=True)
        header = (include_dir() / "opgen_sim" / "exp_lanes.h").read_bytes()
        key = hashlib.sha256(SOURCE.encode() + header + "\0".join(BASE_FLAGS).encode()).hexdigest()
        so = cache / f"exp_ref_{key[:16]}.so"
        if not so.exists():
            src = cache / f"exp_ref_{key[:16]}.{os.getpid()}.cpp"
            tmp = so.with_name(f"{so.name}.{os.getpid()}.tmp")
            src.write_text(SOURCE)
            subprocess.run(["g++", *BASE_FLAGS, "-fPIC", "-shared", f"-I{include_dir()}", "-o",
                            str(tmp), str(src)], check=True)
            os.replace(tmp, so)  # (pytest workers may build it at once)
        lib = ctypes.CDLL(str(so))
        ptr, n = ctypes.c_void_p, ctypes.c_uint64
        lib.exp_scalar.argtypes = [ptr, ptr, n]
        lib.exp_width.argtypes = [ctypes.c_int, ptr, ptr, n]
        lib.exp_width.restype = ctypes.c_int
        _LIB = lib
    return _LIB


def expf(a: np.ndarray | np.floating) -> np.ndarray:
    """The simulator's Exp (its scalar definition ExpF) of each element, float32, a's shape."""
    src = np.asarray(a, np.float32)
    return exp_scalar(library(), src.ravel()).reshape(src.shape)


def exp_scalar(lib: ctypes.CDLL, x: np.ndarray) -> np.ndarray:
    """ExpF of each element of the float32 array x."""
    src = np.ascontiguousarray(x, np.float32)
    out = np.empty_like(src)
    lib.exp_scalar(src.ctypes.data, out.ctypes.data, src.size)
    return out


def exp_width(lib: ctypes.CDLL, width: int, x: np.ndarray, out: np.ndarray | None = None
              ) -> np.ndarray | None:
    """x's Exp on SIMD lanes of `width` (into `out`, which may be x), or None where this host
    lacks them."""
    src = np.ascontiguousarray(x, np.float32)
    dst = np.empty_like(src) if out is None else out
    return dst if lib.exp_width(width, src.ctypes.data, dst.ctypes.data, src.size) == 0 else None
