"""The main job, end to end: a new operator from spec to generated code.

Run by `make demo`. Each step prints what it does; the working project is build/demo/.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "demo"
BIN = Path(sys.executable).parent

HARD_SWISH_REFERENCE = "x * minimum(maximum(x + 3, 0), 6) / 6"
HARD_SWISH_BACKWARD = "where(x < -3, 0, where(x > 3, grad_y, grad_y * (2 * x + 3) / 6))"


def step(title: str) -> None:
    print(f"\n==> {title}", flush=True)


def opgen(*args: str, cwd: Path) -> str:
    cmd = [str(BIN / "opgen"), *args]
    print("$ opgen " + " ".join(args), flush=True)
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        raise SystemExit(f"demo: `opgen {' '.join(args)}` failed with exit {result.returncode}")
    return result.stdout


def main() -> int:
    started = time.perf_counter()
    step(f"a fresh project in {WORK.relative_to(ROOT)}/")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    (WORK / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "demo_ops"\n')

    step("scaffold a new operator: hard_swish")
    opgen("new", "hard_swish", "--inputs", "x", "--outputs", "y", cwd=WORK)

    step("write its reference and backward into the spec")
    spec = WORK / "specs" / "hard_swish.yaml"
    text = spec.read_text()
    text = text.replace("reference: x\n", f"reference: {HARD_SWISH_REFERENCE}\n")
    text = text.replace("  x: grad_y\n", f"  x: {HARD_SWISH_BACKWARD}\n")
    spec.write_text(text)
    print(f"reference: {HARD_SWISH_REFERENCE}\nbackward:  x: {HARD_SWISH_BACKWARD}")

    step("validate and generate")
    opgen("validate", "specs/hard_swish.yaml", cwd=WORK)
    opgen("generate", cwd=WORK)
    opgen("generate", "--check", cwd=WORK)

    step("the scaffolded test passes")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/ops"], cwd=WORK, check=False)
    if result.returncode != 0:
        raise SystemExit("demo: the scaffolded test failed")

    step("the repository's example operators validate and their generated code is current")
    opgen("validate", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").iterdir()
                             if p.suffix in (".yaml", ".json")), cwd=ROOT)
    opgen("generate", "--check", cwd=ROOT)

    print(f"\ndemo finished in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
