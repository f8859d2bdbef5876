"""The main job, end to end: a new operator from its spec to a model trained on the simulator.

Run by `make demo`. Steps:
  1. scaffold an op (`opgen new hard_swish`) and write its numpy reference (the backward
     is derived from it);
  2. turn the element-wise reference into Ascend C (`opgen skeleton --write`), validate,
     generate, and build the kernel library (`opgen build`: the seed's `aoc` step);
  3. register it in the seed's order through the ACL facade;
  4. call it from PyTorch and train a small model with it (loss falls);
  5. call it from TensorFlow and train a small Keras model with it (loss falls);
  6. print the simulator's profile of one launch.
The working project is build/demo/.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "demo"
BIN = Path(sys.executable).parent
OP = "hard_swish"

HARD_SWISH_REFERENCE = "x * minimum(maximum(x + 3, 0), 6) / 6"


def step(title: str) -> None:
    print(f"\n==> {title}", flush=True)


def opgen(*args: str, quiet: bool = False) -> str:
    print("$ opgen " + " ".join(args), flush=True)
    result = subprocess.run([str(BIN / "opgen"), *args], cwd=WORK, capture_output=True,
                            text=True, check=False)
    if not quiet:
        sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        raise SystemExit(f"demo: `opgen {' '.join(args)}` failed with exit {result.returncode}")
    return result.stdout


def scaffold() -> None:
    step(f"a fresh project in {WORK.relative_to(ROOT)}/: scaffold `{OP}`")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    (WORK / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "demo_ops"\n'
        'namespace = "demo"\n')
    opgen("new", OP, "--inputs", "x", "--outputs", "y", "--dtypes", "float32,float16")

    step("write the op's reference (numpy semantics) into the spec; its gradient is derived")
    spec = WORK / "specs" / f"{OP}.yaml"
    text = spec.read_text()
    text = text.replace("reference: x\n", f"reference: {HARD_SWISH_REFERENCE}\n")
    spec.write_text(text)
    print(f"reference: {HARD_SWISH_REFERENCE}")


def generate_and_build() -> str:
    step("the kernel's Compute() from the reference (Ascend C vector API), then check it")
    opgen("skeleton", OP, "--write")
    opgen("validate", f"specs/{OP}.yaml")
    opgen("generate")
    opgen("generate", "--check")
    step("the scaffolded test: the kernel against the reference on the simulator")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "tests/ops"], cwd=WORK, check=False)
    if result.returncode != 0:
        raise SystemExit("demo: the scaffolded test failed")
    step("build the kernel library (one simulator build per dtype combination; cached)")
    out = opgen("build")
    library = next(line.split(": ", 1)[1] for line in out.splitlines()
                   if line.startswith(f"{OP}: "))
    return library


def register(library: str) -> None:
    step("register in the seed's order, through the ACL facade")
    from opgen_runtime import acl

    metadef = str(WORK / "generated" / "metadef" / f"{OP}.json")
    calls = [
        ("acl.init()", acl.init),
        ("acl.rt.set_device(0)", lambda: acl.rt.set_device(0)),
        (f"acl.ops.load_operator_library({library!r})",
         lambda: acl.ops.load_operator_library(library)),
        (f"acl.op.register_operator({OP!r})", lambda: acl.op.register_operator(OP)),
        (f"acl.op.register_operator_model({OP!r}, <metadef>, {OP!r})",
         lambda: acl.op.register_operator_model(OP, metadef, OP)),
        (f"acl.op.register_operator_gradient({OP!r}, <metadef>)",
         lambda: acl.op.register_operator_gradient(OP, metadef)),
    ]
    for text, call in calls:
        ret = call()
        print(f"{text} -> {ret}")
        if ret != 0:
            raise SystemExit(f"demo: {text} failed: {acl.get_recent_err_msg()}")


def train_torch() -> None:
    step("PyTorch: torch.ops.demo.hard_swish inside a model, trained on the simulator")
    import importlib

    import torch

    module = importlib.import_module(f"demo_ops.torch.{OP}")
    x = torch.linspace(-5, 5, 8)
    print(f"torch.ops.demo.{OP}({[round(v, 2) for v in x.tolist()]})")
    print("  ->", [round(v, 3) for v in getattr(module, OP)(x).tolist()])
    torch.manual_seed(0)
    inputs = torch.randn(256, 8)
    target = torch.sin(inputs[:, :1] * 2) + inputs[:, 1:2] ** 2 * 0.5
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), module.HardSwishModule(),
                                torch.nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for i in range(80):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if i % 10 == 0 or i == 79:
            print(f"  step {i:3d}  loss {loss.item():.4f}")
    if not losses[-1] < 0.5 * losses[0]:
        raise SystemExit(f"demo: the PyTorch loss did not fall ({losses[0]} -> {losses[-1]})")


def train_tensorflow() -> None:
    step("TensorFlow: the demo_ops TF op in a Keras model, trained on the simulator")
    import importlib

    import keras
    import numpy as np
    import tensorflow as tf

    ops = importlib.import_module("demo_ops.tf")
    x = tf.linspace(-5.0, 5.0, 8)
    print(f"demo_ops.tf.{OP}(...) ->", [round(float(v), 3) for v in getattr(ops, OP)(x)])
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    inputs = rng.standard_normal((256, 8)).astype(np.float32)
    target = np.sin(inputs[:, :1] * 2) + inputs[:, 1:2] ** 2 * 0.5
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32), ops.HardSwish(),
                              keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    history = model.fit(inputs, target, epochs=40, batch_size=256, verbose=0)
    losses = history.history["loss"]
    for i in (0, 10, 20, 30, 39):
        print(f"  epoch {i:3d}  loss {losses[i]:.4f}")
    if not losses[-1] < 0.5 * losses[0]:
        raise SystemExit(f"demo: the Keras loss did not fall ({losses[0]} -> {losses[-1]})")


def profile() -> None:
    step("the simulator's profile of one launch")
    opgen("profile", OP, "--shape", "64,1024", "--dtype", "float16")


def main() -> int:
    started = time.perf_counter()
    logging.basicConfig(format="    %(message)s")  # the runtime's progress: compiles
    logging.getLogger("opgen_runtime").setLevel(logging.INFO)
    os.environ["OPGEN_OPP_PATH"] = str(WORK / "opp")  # the demo's own op package dir
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up log is noise here
    scaffold()
    library = generate_and_build()
    sys.path.insert(0, str(WORK / "generated" / "python"))
    register(library)
    train_torch()
    train_tensorflow()
    profile()
    print(f"\ndemo finished in {time.perf_counter() - started:.1f} s: spec -> kernel -> "
          "generated code -> registration -> PyTorch and TensorFlow training on the simulator")
    return 0


if __name__ == "__main__":
    sys.exit(main())
