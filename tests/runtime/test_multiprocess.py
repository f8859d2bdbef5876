"""Registration from many processes at once, and the seed's RANK-0-registers pattern."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import METADEF, ROOT

REGISTER_AND_CALL = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from opgen_runtime import registry
    from opgen_runtime.metadef import load
    from opgen_runtime.oplib import build_operator_library
    metadef = sys.argv[1]
    lib = build_operator_library(load(metadef))
    registry.load_operator_library(str(lib))
    registry.register_operator("element_add")
    registry.register_operator_model("element_add", metadef, "element_add")
    registry.register_operator_gradient("element_add", metadef)
    x = np.arange(256, dtype=np.float32)
    assert (registry.call("element_add", x, x) == 2 * x).all()
    print("ok", os.getpid())
""")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"OPGEN_OPP_PATH": str(tmp_path / "opp"), "OPGEN_CACHE_DIR": str(tmp_path / "cache"),
                **extra})
    return env


def test_eight_processes_register_the_same_op_at_once(tmp_path: Path) -> None:
    # count compiler runs through a wrapper: the kernel must be compiled exactly once
    log = tmp_path / "cxx.log"
    wrapper = tmp_path / "cxx"
    wrapper.write_text(f"#!/bin/sh\necho run >> {log}\nexec g++ \"$@\"\n")
    wrapper.chmod(0o755)
    env = _env(tmp_path, CXX=str(wrapper))
    script = tmp_path / "register.py"
    script.write_text(REGISTER_AND_CALL)
    procs = [subprocess.Popen([sys.executable, str(script), str(METADEF / "element_add.json")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    results = [(*p.communicate(timeout=300), p.returncode) for p in procs]
    for out, err, code in results:
        assert code == 0, out + err
        assert out.startswith("ok")
    compiles = log.read_text().splitlines()
    # once for all eight: the simulator runtime object, the raw-pointer scan, the precompiled
    # simulator headers, the float API instances the kernel calls, the one dtype variant's
    # kernel object, its link, and the bundle (the wrapper is another compiler: the install's
    # prebuilt parts are not its)
    assert len(compiles) == 7, compiles
    package = json.loads((tmp_path / "opp" / "element_add" / "package.json").read_text())
    assert package["gradient"] == "element_add_grad.json"
    hidden = [p for p in (tmp_path / "opp").iterdir() if p.name.startswith(".") and p.is_dir()]
    assert hidden == []  # no half-written package left behind
    tmp_files = [p for p in (tmp_path / "cache").rglob("*") if ".tmp" in p.name]
    assert tmp_files == []


RANK_WORKER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from opgen_runtime import registry
    rank = int(os.environ["RANK"])
    barrier = sys.argv[2]
    if os.environ.get("RANK", "0") == "0":   # the seed's pattern: register only once
        from opgen_runtime.metadef import load
        from opgen_runtime.oplib import build_operator_library
        metadef = sys.argv[1]
        registry.load_operator_library(str(build_operator_library(load(metadef))))
        registry.register_operator("leaky_relu")
        registry.register_operator_model("leaky_relu", metadef, "leaky_relu")
        open(barrier, "w").close()
    else:
        deadline = time.time() + 120
        while not os.path.exists(barrier):
            assert time.time() < deadline, "barrier timeout"
            time.sleep(0.05)
    x = np.linspace(-1, 1, 64, dtype=np.float32) * (rank + 1)
    y = registry.call("leaky_relu", x, negative_slope=0.5)
    assert np.array_equal(y, np.where(x > 0, x, x * np.float32(0.5)))
    print("rank", rank, "ok")
""")


def test_rank_zero_registers_and_every_rank_calls(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(RANK_WORKER)
    barrier = str(tmp_path / "registered")
    procs = [subprocess.Popen([sys.executable, str(script), str(METADEF / "leaky_relu.json"),
                               barrier], env=_env(tmp_path, RANK=str(rank)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(4)]
    for rank, p in enumerate(procs):
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, out + err
        assert f"rank {rank} ok" in out


DIST_WORKER = textwrap.dedent("""
    import os, sys
    import numpy as np
    import torch
    import torch.distributed as dist
    from opgen_runtime import registry
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 0:
        from opgen_runtime.metadef import load
        from opgen_runtime.oplib import build_operator_library
        metadef = sys.argv[1]
        registry.load_operator_library(str(build_operator_library(load(metadef))))
        registry.register_operator("element_add")
        registry.register_operator_model("element_add", metadef, "element_add")
    dist.barrier()
    x = np.full(128, rank + 1, dtype=np.float32)
    z = torch.from_numpy(registry.call("element_add", x, x))
    dist.all_reduce(z)
    world = dist.get_world_size()
    assert torch.equal(z, torch.full((128,), float(world * (world + 1)))), z
    print("rank", rank, "ok")
    dist.destroy_process_group()
""")


def test_torch_distributed_rank_zero_registers(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    script = tmp_path / "dist_worker.py"
    script.write_text(DIST_WORKER)
    world = 3
    procs = []
    for rank in range(world):
        env = _env(tmp_path, RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(29500 + os.getpid() % 1000), LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen([sys.executable, str(script),
                                       str(METADEF / "element_add.json")], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=ROOT))
    for rank, p in enumerate(procs):
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, out + err
        assert f"rank {rank} ok" in out
