"""TensorFlow: the generated element_add against tf.add inside tf.function, 16 and 1M floats.

Run: .venv/bin/python benchmarks/bench_tf.py [--write]   (--write updates benchmarks/RESULTS.md)
Target: the generated op within 1.3x of tf.add on both sizes.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generated" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
import opgen_ops.tf as ops  # noqa: E402
import tensorflow as tf  # noqa: E402

SIZES = (16, 1 << 20)
TARGET = 1.3


def _time(fn: Callable[[], object], repeats: int, rounds: int = 7) -> float:
    """Median seconds per call over `rounds` rounds of `repeats` calls (after a warm-up)."""
    for _ in range(max(10, repeats // 10)):
        fn()
    per_call = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        per_call.append((time.perf_counter() - t0) / repeats)
    return statistics.median(per_call)


def run() -> list[tuple[int, float, float]]:
    rows = []
    for n in SIZES:
        rng = np.random.default_rng(0)
        x = tf.constant(rng.standard_normal(n, dtype=np.float32))
        y = tf.constant(rng.standard_normal(n, dtype=np.float32))
        custom = tf.function(lambda a, b: ops.element_add(a, b))
        native = tf.function(lambda a, b: tf.add(a, b))
        np.testing.assert_array_equal(custom(x, y).numpy(), native(x, y).numpy())
        repeats = 2000 if n <= 1024 else 200
        # interleave the two so that machine noise hits both alike
        t_custom, t_native = [], []
        for _ in range(3):
            t_custom.append(_time(functools.partial(custom, x, y), repeats))
            t_native.append(_time(functools.partial(native, x, y), repeats))
        rows.append((n, min(t_custom), min(t_native)))
    return rows


def report(rows: list[tuple[int, float, float]]) -> str:
    from results import machine, table

    intro = (
        "`benchmarks/bench_tf.py`: the generated `element_add` (a TensorFlow op whose C++ kernel\n"
        "tiles and launches the simulator kernel) against `tf.add`, both inside `tf.function`,\n"
        "float32, median time per call (best of 3 interleaved runs), TensorFlow "
        f"{tf.__version__}, {machine()}. Target: ratio <= {TARGET}.\n\n")
    body = [(f"{n:,}", f"{c * 1e6:.1f} us", f"{t * 1e6:.1f} us", f"{c / t:.2f}x",
             "yes" if c / t <= TARGET else "no") for n, c, t in rows]
    return intro + table(("elements", "element_add", "tf.add", "ratio", "target met"), body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    text = report(run())
    print(text)
    if args.write:
        from results import write_section

        write_section("TensorFlow op: element_add vs tf.add", text)


if __name__ == "__main__":
    main()
