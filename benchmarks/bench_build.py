"""Build latency: how long the compiler steps take before the first call of an op.

Each scenario runs in a fresh process (cold: an empty OPGEN_CACHE_DIR; warm: the cache the
cold run filled), and its time is split by the progress lines of the slow steps
(opgen_runtime.progress: "opgen: <step>: done in N s"), grouped by kind. Steps run in
parallel on the machine's cores, so the groups can add up to more than the wall time; the wall
time beyond the steps is starting Python, imports and steps under a second. Writes the
"Build latency" section of benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_build.py [--only build,register,torch,tf]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from results import machine, table, write_section  # noqa: E402

PY = sys.executable
GENERATED = ROOT / "generated" / "python"
DONE = re.compile(r"^opgen: (?P<what>.+?): done in (?P<secs>[\d.]+) s$")
NOTHING_PREBUILT = {"OPGEN_PREBUILT_DIR": "0"}
GOALS = {"register_all()": 10.0, "torch op import": 8.0, "TF library import": 8.0}
WARM_GOAL = 0.5

SCENARIOS = {
    "register": ("register_all()", [PY, "-c", "import opgen_ops; opgen_ops.register_all()"]),
    "torch": ("torch op import",
              [PY, "-c", "from opgen_ops.torch.element_add import element_add"]),
    "tf": ("TF library import", [PY, "-c", "import opgen_ops.tf"]),
}
# What a warm run cannot avoid: starting Python and importing the framework (and, for the
# registry, the runtime); the warm goal is on the time beyond it.
BASELINES = {
    "register": [PY, "-c", "import opgen_runtime.registry"],
    "torch": [PY, "-c", "import torch"],
    "tf": [PY, "-c", "import tensorflow"],
}


def kind(step: str) -> str:
    if step.startswith("compiling the simulator runtime"):
        return "simulator runtime"
    if step.startswith("precompiling the simulator headers"):
        return "precompiled headers"
    if step.startswith("compiling the PyTorch") or step.startswith("compiling the TensorFlow"):
        return "framework unit"
    if step.startswith("compiling") and ".cpp" in step:
        return "kernel variants"
    if "op_host" in step or "op host" in step or "tiling" in step:
        return "op_host"
    if step.startswith("bundling") or step.startswith("embedding") or step.startswith("linking"):
        return "bundle/embed/link"
    return "other steps"


def run(cmd: list[str], cache: Path, cwd: Path,
        extra_env: dict[str, str] | None = None) -> tuple[float, dict[str, tuple[int, float]]]:
    env = {**os.environ, **(extra_env or {}), "OPGEN_CACHE_DIR": str(cache),
           "TF_CPP_MIN_LOG_LEVEL": "3",
           "PYTHONPATH": os.pathsep.join([str(GENERATED), str(ROOT / "runtime"), str(ROOT),
                                          os.environ.get("PYTHONPATH", "")])}
    env.pop("OPGEN_QUIET", None)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    steps: dict[str, tuple[int, float]] = defaultdict(lambda: (0, 0.0))
    for line in proc.stderr.splitlines():
        m = DONE.match(line.strip())
        if m:
            n, total = steps[kind(m["what"])]
            steps[kind(m["what"])] = (n + 1, total + float(m["secs"]))
    return wall, dict(steps)


def breakdown(steps: dict[str, tuple[int, float]]) -> str:
    if not steps:
        return "no step over 1 s"
    return "; ".join(f"{k} {n}x {t:.1f} s" for k, (n, t) in sorted(steps.items(),
                                                                     key=lambda kv: -kv[1][1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="build,register,torch,tf")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    only = args.only.split(",")
    rows: list[list[object]] = []
    goals: list[str] = []
    # the install's prebuilt layer, current (a no-op when it is): `make install` builds it
    subprocess.run([PY, "-m", "opgen", "prebuild"], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="opgen-bench-build-") as tmp:
        base = Path(tmp)
        if "build" in only:
            out = base / "out"
            cmd = [PY, "-m", "opgen", "build", "--no-op-api", "--output-dir", str(out)]
            # the generate step alone, so that the build rows time the builds
            run([PY, "-m", "opgen", "generate", "--output-dir", str(out)], base / "c0", ROOT)
            for label in ("cold", "warm"):
                wall, steps = run(cmd, base / "c-build", ROOT)
                rows.append(["`opgen build` (6 example ops)", label, f"{wall:.1f}",
                             breakdown(steps)])
                print(rows[-1], flush=True)
            wall, steps = run(cmd, base / "c-build-bare", ROOT, NOTHING_PREBUILT)
            rows.append(["`opgen build` (6 example ops)", "cold, nothing prebuilt", f"{wall:.1f}",
                         breakdown(steps)])
            print(rows[-1], flush=True)
        for name in ("register", "torch", "tf"):
            if name not in only:
                continue
            title, cmd = SCENARIOS[name]
            cache = base / f"c-{name}"
            cold, steps = run(cmd, cache, ROOT)
            # warm: the best of 3 (one process start each), against the best of 3 baselines
            warm = min(run(cmd, cache, ROOT)[0] for _ in range(3))
            base_s = min(run(BASELINES[name], cache, ROOT)[0] for _ in range(3))
            # the same process with the libraries cached: the import alone, for the warm cost
            bare, bsteps = run(cmd, base / f"c-{name}-bare", ROOT, NOTHING_PREBUILT)
            rows.append([title, "cold", f"{cold:.1f}", breakdown(steps)])
            rows.append([title, "cold, nothing prebuilt", f"{bare:.1f}", breakdown(bsteps)])
            rows.append([title, "warm", f"{warm:.2f}",
                         f"process start and imports {base_s:.2f} s; beyond them "
                         f"{warm - base_s:.2f} s"])
            print(rows[-3:], flush=True)
            if name == "register":
                # side by side: the same cold run without the precompiled simulator headers
                plain, psteps = run(cmd, base / "c-register-no-pch", ROOT, {"OPGEN_SIM_PCH": "0"})
                rows.append([f"{title}, OPGEN_SIM_PCH=0", "cold", f"{plain:.1f}",
                             breakdown(psteps)])
                print(rows[-1], flush=True)
                goals.append(f"- {title} cold with the precompiled headers / without: "
                             f"{cold / plain:.2f}x")
            goals.append(f"- {title} warm: {warm - base_s:.2f} s beyond the process's start and "
                         f"imports ({base_s:.2f} s), goal <= {WARM_GOAL} s: "
                         f"{'met' if warm - base_s <= WARM_GOAL else 'NOT met'}")
            goal = GOALS[title]
            goals.append(f"- {title} cold: {cold:.1f} s, goal <= {goal:g} s: "
                         f"{'met' if cold <= goal else 'NOT met'} (nothing prebuilt: "
                         f"{bare:.1f} s)")
    body = (
        f"Machine: {machine()}; load average at the end {os.getloadavg()[0]:.1f} (the machine "
        "is shared: cold figures move by a factor of two between runs). Each row is a fresh "
        "process; cold with an empty OPGEN_CACHE_DIR and the install's prebuilt layer (`opgen "
        "prebuild`, which `make install` runs: the simulator runtime, API instances and "
        "precompiled headers), cold, nothing prebuilt with OPGEN_PREBUILT_DIR=0 as well (every "
        "part compiled in the run), warm with the cache the cold run filled. "
        "The breakdown sums the progress lines of the steps over 1 s by kind (steps run in "
        "parallel on the cores, so the sum can exceed the wall time).\n\n"
        + table(["scenario", "cache", "wall s", "slow steps (count, summed seconds)"], rows)
        + "\nGoals (2 cores):\n" + "\n".join(goals) + "\n")
    if not args.no_write:
        write_section("Build latency", body)
    print(body)


if __name__ == "__main__":
    main()
