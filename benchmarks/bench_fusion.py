"""Fusion: a chain of 4 element-wise ops on 16M float32, unfused (4 launches through the
registry, the intermediates round-tripping through GM) vs the fused spec (`fuse:`, 1 launch,
the intermediates in UB). GM bytes from the profile counters, wall time best of ROUNDS. Then
the same chain in PyTorch: the generated ops in eager mode, torch.compile with the fusion
backend (opgen_runtime.torch_fusion, which fuses the chain itself), and plain torch eager.

    out = relu6(scale_shift(leaky_relu(element_add(a, b), 0.1), scale, shift))

Usage: python benchmarks/bench_fusion.py [--elements N] [--no-torch]
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import machine, table, write_section

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 3
PAIRED_ROUNDS = 9  # the GM paths: alternated, so both see the same load on a shared machine
PACKAGE = "bench_fusion_ops"

OWN_SPECS = {
    "scale_shift": """op_name: scale_shift
doc: y = x * scale + shift, element-wise.
input_desc:
  - {name: x, dtype: [float32, float16], shape: [-2]}
output_desc:
  - {name: y, dtype: [float32, float16], shape: [-2]}
attr_desc:
  - {name: scale, type: float, default: 0.5}
  - {name: shift, type: float, default: 1.0}
reference: x * scale + shift
""",
    "relu6": """op_name: relu6
doc: minimum(maximum(x, 0), 6), element-wise.
input_desc:
  - {name: x, dtype: [float32, float16], shape: [-2]}
output_desc:
  - {name: y, dtype: [float32, float16], shape: [-2]}
reference: minimum(maximum(x, 0), 6)
""",
    "fused_chain": """op_name: fused_chain
fuse:
  - op: element_add
    inputs: {x: a, y: b}
  - op: leaky_relu
    attrs: {negative_slope: 0.1}
  - scale_shift
  - op: relu6
    outputs: {y: out}
""",
}


def make_project(where: Path, package: str = PACKAGE) -> Path:
    """A project of two example ops, two small ops of its own and the fused chain of the
    four, generated (kernels of its own ops and of the fused op: their skeletons); returns
    its generated/python folder."""
    from opgen import gen
    from opgen.api import load_spec
    from opgen.diagnostics import DiagnosticSink
    from opgen.emit.skeleton import skeleton
    from opgen.project import Config

    specs = where / "specs"
    specs.mkdir(parents=True)
    for name in ("element_add.json", "element_add.cpp", "leaky_relu.yaml", "leaky_relu.cpp"):
        shutil.copy(ROOT / "specs" / name, specs / name)
    for op, text in OWN_SPECS.items():
        (specs / f"{op}.yaml").write_text(text, "utf-8")
        if op != "fused_chain":  # the fused op's kernel is written by `opgen generate`
            (specs / f"{op}.cpp").write_text(skeleton(load_spec(specs / f"{op}.yaml")), "utf-8")
    config = Config(root=where, spec_dir=specs, output_dir=where / "generated",
                    package=package, namespace=package)
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, incremental=False) is not None, [str(d) for d in sink]
    return where / "generated" / "python"


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_paired(first: Callable[[], object], second: Callable[[], object]) -> tuple[float, float]:
    """Best of PAIRED_ROUNDS of each, the two run alternately (a burst of load elsewhere on the
    machine lands on both, not on whichever happened to run during it)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(PAIRED_ROUNDS):
        for fn, out in ((first, times[0]), (second, times[1])):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def torch_section(tmp: Path, a: np.ndarray, b: np.ndarray, attrs: dict[str, float],
                  ref: np.ndarray) -> str:
    """The chain as a torch function of the generated ops: eager, torch.compile with the
    fusion backend (inductor behind it), and the same math in plain torch."""
    import torch
    import torch.nn.functional as F

    from opgen_runtime import torch_fusion

    mods = {op: importlib.import_module(f"{PACKAGE}.torch.{op}")
            for op in ("element_add", "leaky_relu", "scale_shift", "relu6")}
    add, leaky = mods["element_add"].element_add, mods["leaky_relu"].leaky_relu
    shift_, relu6 = mods["scale_shift"].scale_shift, mods["relu6"].relu6
    scale, shift = attrs["scale"], attrs["shift"]

    def chain(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return relu6(shift_(leaky(add(x, y), negative_slope=0.1), scale=scale, shift=shift))

    def plain(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.clamp(F.leaky_relu(x + y, 0.1) * scale + shift, 0, 6)

    torch_fusion.cache_dir = tmp / "fused"
    x, y = torch.from_numpy(a), torch.from_numpy(b)
    compiled = torch.compile(chain, backend=torch_fusion.backend)
    start = time.perf_counter()
    with torch.no_grad():
        out = compiled(x, y)
    first = time.perf_counter() - start
    assert torch_fusion.stats.chains == 1, torch_fusion.stats
    err = float((out - torch.from_numpy(ref)).abs().max())
    assert err <= 1e-5, err
    with torch.no_grad():
        chain(x, y), plain(x, y)  # warm
        t_eager = best(lambda: chain(x, y))
        t_comp = best(lambda: compiled(x, y))
        t_plain = best(lambda: plain(x, y))
    rows = [
        ["opgen ops, eager (4 launches)", f"{t_eager * 1e3:.1f}", "1.00"],
        ["torch.compile, backend=torch_fusion.backend (1 fused launch)",
         f"{t_comp * 1e3:.1f}", f"{t_comp / t_eager:.2f}"],
        ["plain torch eager (x + y, leaky_relu, *, +, clamp)", f"{t_plain * 1e3:.1f}",
         f"{t_plain / t_eager:.2f}"],
    ]
    return (f"The same chain as a PyTorch function of the generated ops "
            f"(`torch.ops.{PACKAGE}.*`, no grad), {a.size} float32, best of {ROUNDS}: eager, "
            f"compiled with `opgen_runtime.torch_fusion.backend` (which replaced the 4 calls by "
            f"one fused op it generated and built: first call {first:.1f} s, max |compiled - "
            f"unfused| = {err:.1e}; inductor behind it), and plain torch.\n\n"
            + table(["path", "wall ms", "time vs eager opgen ops"], rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=16 * 1024 * 1024)
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch paths")
    parser.add_argument("--numpy-inputs", action="store_true",
                        help="inputs as numpy allocates them (not 32-byte aligned: each launch "
                             "copies them to aligned buffers and back)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="opgen-fusion-"))
    try:
        sys.path.insert(0, str(make_project(tmp)))
        pkg = importlib.import_module(PACKAGE)
        pkg.register_all()
        import opgen_runtime as rt

        n = args.elements
        rng = np.random.default_rng(0)
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        if not args.numpy_inputs:
            # 32-byte aligned, as a framework adapter allocates them (bench_simulator.py):
            # numpy's own large arrays start 16 bytes into a page, and each launch of either
            # path copies such an input into an aligned buffer and back
            a_al, b_al = rt.gm_empty(n, np.float32), rt.gm_empty(n, np.float32)
            a_al[...], b_al[...] = a, b
            a, b = a_al, b_al
        attrs = {"scale": 2.0, "shift": 0.5}

        def unfused(profiles: list[object] | None = None) -> np.ndarray:
            steps = [("element_add", (a, b), {}), ("leaky_relu", (), {"negative_slope": 0.1}),
                     ("scale_shift", (), attrs), ("relu6", (), {})]
            t = None
            for op, ins, kw in steps:
                args_ = ins if ins else (t,)
                if profiles is None:
                    t = rt.call(op, *args_, **kw)
                else:
                    t, p = rt.registry.call_with_profile(op, *args_, **kw)
                    profiles.append(p)
            return t  # type: ignore[return-value]

        def fused() -> np.ndarray:
            return rt.call("fused_chain", a, b, **attrs)  # type: ignore[no-any-return]

        profiles: list[object] = []
        ref = unfused(profiles)
        out, fp = rt.registry.call_with_profile("fused_chain", a, b, **attrs)
        err = float(np.abs(out - ref).max())
        assert err <= 1e-5, err
        un_bytes = sum(p.gm_to_ub_bytes + p.ub_to_gm_bytes  # type: ignore[attr-defined]
                       for p in profiles)
        fu_bytes = fp.gm_to_ub_bytes + fp.ub_to_gm_bytes
        floor = a.nbytes * 3  # two inputs read, one output written
        assert fu_bytes <= floor, (fu_bytes, floor)
        unfused()
        fused()  # warm
        t_un, t_fu = best_paired(unfused, fused)
        ratio = t_fu / t_un
        mb = 1024 * 1024
        inputs = ("inputs as numpy allocates them, copied by each launch" if args.numpy_inputs
                  else "inputs 32-byte aligned")
        un_in = sum(p.gm_to_ub_bytes for p in profiles)  # type: ignore[attr-defined]
        un_out = sum(p.ub_to_gm_bytes for p in profiles)  # type: ignore[attr-defined]
        rows = [
            ["unfused: 4 launches (registry)", f"{un_in / mb:.0f}", f"{un_out / mb:.0f}",
             f"{un_bytes / mb:.0f}", f"{t_un * 1e3:.1f}", "1.00"],
            ["fused_chain: 1 launch", f"{fp.gm_to_ub_bytes / mb:.0f}",
             f"{fp.ub_to_gm_bytes / mb:.0f}",
             f"{fu_bytes / mb:.0f}", f"{t_fu * 1e3:.1f}", f"{ratio:.2f} (goal <= 0.40)"],
        ]
        body = (f"`relu6(scale_shift(leaky_relu(element_add(a, b), 0.1)))` on {n} float32 "
                f"(`benchmarks/bench_fusion.py`, {inputs}): the 4 ops launched one after "
                f"another through the registry vs the fused spec (`fuse:` of the same 4 ops, one "
                f"generated kernel). GM bytes from the simulator's profile counters (fused: the "
                f"two inputs read once, the output written once, {floor / mb:.0f} MiB); wall time "
                f"best of {PAIRED_ROUNDS}, the two paths run alternately; max |fused - unfused| "
                f"= {err:.1e}. Machine: {machine()}.\n\n"
                + table(["path", "GM->UB MiB", "UB->GM MiB", "GM total MiB", "wall ms",
                         "time vs unfused"], rows))
        if not args.no_torch:
            body = body.rstrip() + "\n\n" + torch_section(tmp, a, b, attrs, ref)
        write_section("Fusion", body)
        print(body)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
