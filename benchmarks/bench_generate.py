"""`opgen generate` over 1,000 synthesised specs: a cold run, then a no-op run, then --check.

Targets on a 2-core machine: cold at most 3 s, no-op regenerate at most 0.3 s (and --check
about as fast).
Usage: python benchmarks/bench_generate.py [--ops N]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import machine, table, write_section

from opgen.project import load_config
from opgen.scaffold import parse_attr_flag, scaffold

DTYPE_SETS = [["float32"], ["float32", "float16"], ["float16", "float32", "bfloat16"]]
ATTRS = ["alpha:float=0.5", "axis:int=-1", "flag:bool=true", "scale:float=2.0"]
RULES = ["same_as(x0)", "broadcast(x0, x1)", "reduce(x0, axis=-1, keepdim=true)"]


def synthesise(root: Path, count: int) -> None:
    (root / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    config = load_config(root)
    rng = random.Random(0)
    for i in range(count):
        n_in = rng.randint(1, 3)
        inputs = [f"x{k}" for k in range(n_in)]
        outputs = [f"y{k}" for k in range(rng.randint(1, 2))]
        attrs = [parse_attr_flag(a) for a in rng.sample(ATTRS, rng.randint(0, 3))]
        scaffold(config, f"op_{i:04d}", inputs=inputs, outputs=outputs,
                 dtypes=rng.choice(DTYPE_SETS), attrs=attrs, test_dir=root / "tests")
        spec = root / "specs" / f"op_{i:04d}.yaml"
        rule = rng.choice(RULES if n_in > 1 else RULES[::2]).replace("true", "True")
        spec.write_text(spec.read_text().replace("infer: same_as(x0)", f"infer: {rule}"))


class Run:
    """One timed run: wall seconds, and the CPU seconds of the process and its pool workers
    in user and in system (kernel) mode."""

    def __init__(self, wall: float, user: float, system: float) -> None:
        self.wall, self.user, self.system = wall, user, system

    def row(self, name: str, target: str) -> list[str]:
        return [name, f"{self.wall:.2f}", f"{self.user:.2f}", f"{self.system:.2f}", target]


def timed(cmd: list[str], cwd: Path) -> Run:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # a private cache dir: the cold run really parses every kernel
    env = {**os.environ, "OPGEN_CACHE_DIR": str(cwd / ".cache")}
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{cmd} failed:\n{result.stdout}\n{result.stderr[:3000]}")
    return Run(elapsed, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=1000)
    args = parser.parse_args()
    opgen = str(Path(sys.executable).parent / "opgen")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        synthesise(root, args.ops)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        cold = timed([opgen, "generate"], root)
        noop = timed([opgen, "generate"], root)
        check = timed([opgen, "generate", "--check"], root)
        startup = timed([opgen, "--version"], root)
    rows = [
        cold.row("cold generate (empty output dir)", "<= 3"),
        noop.row("no-op generate (nothing changed)", "<= 0.3"),
        check.row("generate --check (nothing changed)", "about the no-op's"),
        startup.row("process start-up only (`opgen --version`)", ""),
    ]
    body = (f"`opgen generate` on {args.ops} synthesised specs with kernels (1-3 inputs, "
            "1-2 outputs, 1-3 dtype combinations, 0-3 attrs, varied shape rules), each a "
            "separate process, wall time, empty caches before the cold run. The no-op run "
            "reads the specs and stats their kernels, included headers and every output (the "
            "generate cache, one pass over the output dir); it loads, parses and renders "
            "nothing and imports neither the validator, libclang nor Jinja. --check also "
            "reads every output and compares its digest. "
            f"Machine: {machine()}, load average {load:.1f} before the cold run (other "
            "work on the machine slows every run). CPU: the seconds of the process and its "
            "pool workers in user and in system (kernel) mode; a cold run's system time is "
            "mostly the file system creating some 20,000 files, and moves with it "
            "(benchmarks/RESULTS.md, \"Generate\").\n\n"
            + table(["run", "wall s", "user CPU s", "system CPU s", "target (wall s)"], rows))
    write_section("Generate", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
