"""Per-call overhead of the operator registry (lookup + checks + tiling + output allocation)
over a bare simulator launch, on 16 floats. Target: <= 3 us.

Usage: python benchmarks/bench_registry.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import machine, table, write_section

from opgen_runtime import default_tiling, gm_empty, launch, registry
from opgen_runtime.metadef import load
from opgen_runtime.oplib import build_operator_library

ROOT = Path(__file__).resolve().parents[1]
METADEF = ROOT / "generated" / "metadef" / "element_add.json"
ROUNDS, CALLS = 15, 2000


def per_call_us(fn: object) -> float:
    """Median over rounds of the mean time of CALLS calls, in microseconds."""
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(samples)


def main() -> int:
    os.environ.setdefault("OPGEN_OPP_PATH", tempfile.mkdtemp(prefix="opgen-opp-"))
    opdef = load(METADEF)
    lib_path = build_operator_library(opdef)
    reg = registry.Registry()
    reg.load_operator_library(lib_path)
    reg.register_operator("element_add")
    reg.register_operator_model("element_add", METADEF, "element_add")
    entry = reg.lookup("element_add")
    assert entry.library is not None and entry.layout is not None
    variant = entry.library.variant_for("element_add", {"x": "float32"})
    assert variant is not None
    kernel = entry.library.kernel(variant)
    x = gm_empty(16, np.float32)
    y = gm_empty(16, np.float32)
    x[:] = 1
    y[:] = 2
    z = gm_empty(16, np.float32)
    block_dim, values = default_tiling(entry.layout, {"x": x, "y": y}, {"z": z}, {})
    tiling = entry.layout.pack(values)
    gm = {"x": x, "y": y, "z": z}

    def bare() -> None:
        launch(kernel, "element_add", gm, block_dim=block_dim, tiling=tiling)

    def through_registry() -> None:
        reg.call("element_add", x, y)

    assert np.array_equal(reg.call("element_add", x, y), x + y)
    bare_us = per_call_us(bare)
    reg_us = per_call_us(through_registry)
    overhead = reg_us - bare_us
    rows = [["bare launch (tiling precomputed, outputs preallocated)", f"{bare_us:.2f}", ""],
            ["registry.call (lookup, checks, tiling, outputs)", f"{reg_us:.2f}", ""],
            ["registry overhead", f"{overhead:.2f}", "<= 3"]]
    body = (f"element_add on 16 float32, median over {ROUNDS} rounds of {CALLS} calls, same "
            f"process, interleaved. Machine: {machine()}.\n\n"
            + table(["path", "us per call", "target (us)"], rows))
    write_section("Registry per-call overhead", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
