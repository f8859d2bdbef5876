"""The generated PyTorch element_add against torch.add, forward and forward+backward, on 16
and 1M float32, in one run; writes the "PyTorch" section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_torch.py

Targets: <= 1.5x native on 16 floats, <= 1.05x on 1M floats.
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generated" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from results import machine, table, write_section  # noqa: E402

TARGETS = {16: 1.5, 1 << 20: 1.05}


def best_us_pair(ours: Callable[[], object], native: Callable[[], object], number: int,
                 repeat: int = 9) -> tuple[float, float]:
    """Best time per call of each, in microseconds, the two timed in alternation so that
    the machine's load drifts over both alike."""
    t_ours, t_native = timeit.Timer(ours), timeit.Timer(native)
    a, b = [], []
    for _ in range(repeat):
        a.append(t_ours.timeit(number))
        b.append(t_native.timeit(number))
    return min(a) / number * 1e6, min(b) / number * 1e6


Case = tuple[Callable[[], object], Callable[[], object]]


def cases(n: int) -> dict[str, Case]:
    """(opgen, native) per case on n floats."""
    from opgen_ops.torch.element_add import element_add

    x, y = torch.randn(n), torch.randn(n)
    torch.testing.assert_close(element_add(x, y), torch.add(x, y))
    xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
    grad = torch.ones(n)
    return {
        "forward": (lambda: element_add(x, y), lambda: torch.add(x, y)),
        "forward+backward": (lambda: element_add(xg, yg).backward(grad),
                             lambda: torch.add(xg, yg).backward(grad)),
    }


def main() -> int:
    import opgen_ops.registration.element_add  # noqa: F401 - registers the kernel

    rows = []
    ok = True
    for n, target in TARGETS.items():
        for case, (ours, native) in cases(n).items():
            number = (20000 if n <= 16 else 60) // (1 if case == "forward" else 3)
            ours_us, native_us = best_us_pair(ours, native, number)
            ratio = ours_us / native_us
            ok &= ratio <= target
            rows.append((f"{n:,} floats, {case}", f"{ours_us:.2f}", f"{native_us:.2f}",
                         f"{ratio:.2f}x", f"<= {target}x", "yes" if ratio <= target else "no"))
    body = (f"`benchmarks/bench_torch.py` on {machine()}, torch {torch.__version__}: the "
            "generated `element_add` (torch.library op, C++ CPU kernel launching the simulator on "
            "torch's intra-op threads, which eager calls reach through the op's direct Python "
            "entry; autograd formula in Python) against "
            "`torch.add` in the same run, timed in alternation, best of 9, microseconds per "
            "call.\n\n"
            + table(("case", "opgen us", "torch.add us", "ratio", "target", "met"), rows))
    print(body)
    write_section("PyTorch", body)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
