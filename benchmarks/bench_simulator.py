"""Simulator benchmark: element_add on 16M float32 vs numpy, and launch overhead on 16 floats.

Run: .venv/bin/python benchmarks/bench_simulator.py   (rewrites the "Simulator" section of
benchmarks/RESULTS.md). Arrays come from opgen_runtime.gm_empty (32-byte aligned), as a
framework adapter would allocate them, so launches do not copy.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import opgen_runtime as rt

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
N = 16 * 1024 * 1024
LAUNCHES = 20_000
LAYOUT = rt.TilingLayout.from_fields(
    "ElementAddTilingData",
    [("totalLength", "uint32_t"), ("blockLength", "uint32_t"), ("tileLength", "uint32_t")],
)


def best_of(fn: Callable[[], object], repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def array(n: int, fill: np.ndarray | float) -> np.ndarray:
    a = rt.gm_empty(n, np.float32)
    a[...] = fill
    return a


def main() -> None:
    lib = rt.build_kernel(
        ROOT / "specs" / "element_add.cpp", entry="element_add", defines={"DTYPE_X": "float"}
    )
    rng = np.random.default_rng(0)
    x, y, z = array(N, rng.random(N, np.float32)), array(N, rng.random(N, np.float32)), array(N, 0)
    t_numpy = best_of(lambda: np.add(x, y, out=z))
    rows = []
    for bd in (1, 2, 8):
        block_dim, values = rt.default_tiling(LAYOUT, {"x": x, "y": y}, {"z": z}, {}, block_dim=bd)
        tiling = LAYOUT.pack(values)
        t_sim = best_of(
            lambda b=block_dim, t=tiling: rt.launch(
                lib, "element_add", [x, y, z], block_dim=b, tiling=t
            )
        )
        assert np.array_equal(z, x + y)
        rows.append((bd, t_sim, t_sim / t_numpy))

    sx, sy, sz = array(16, 1.0), array(16, 2.0), array(16, 0)
    block_dim, values = rt.default_tiling(LAYOUT, {"x": sx, "y": sy}, {"z": sz}, {})
    tiling = LAYOUT.pack(values)
    args = [sx, sy, sz]
    for _ in range(1000):
        rt.launch(lib, "element_add", args, block_dim=block_dim, tiling=tiling)
    samples = []
    for _ in range(LAUNCHES):
        t0 = time.perf_counter_ns()
        rt.launch(lib, "element_add", args, block_dim=block_dim, tiling=tiling)
        samples.append(time.perf_counter_ns() - t0)
    launch_us = statistics.median(samples) / 1e3

    lines = [
        "## Simulator",
        "",
        f"`benchmarks/bench_simulator.py` on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}. "
        "element_add on 16M float32 (best of 7) against `np.add(a, b, out=c)` in the same run; "
        "target: simulator <= 1.0x numpy at blockDim >= 2.",
        "",
        "| case | simulator ms | numpy ms | simulator / numpy |",
        "| --- | ---: | ---: | ---: |",
    ]
    for bd, t_sim, ratio in rows:
        lines.append(
            f"| element_add 16M f32, blockDim {bd} | {t_sim * 1e3:.2f} | "
            f"{t_numpy * 1e3:.2f} | {ratio:.2f}x |"
        )
    lines += [
        "",
        "| case | median us | target |",
        "| --- | ---: | ---: |",
        f"| launch overhead, element_add on 16 floats ({LAUNCHES} launches) | {launch_us:.2f} "
        "| <= 10 |",
        "",
    ]
    section = "\n".join(lines)
    print(section)
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
    pattern = re.compile(r"## Simulator\n.*?(?=^## |\Z)", re.S | re.M)
    text = (
        pattern.sub(section + "\n", text)
        if pattern.search(text)
        else (text.rstrip("\n") + "\n\n" + section + "\n")
    )
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
