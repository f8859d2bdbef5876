"""Builds CANN-style CPU-debug samples as a user's build would: g++ with `opgen config` flags,
kernel and driver as separate translation units, linked into one program."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

SAMPLES = Path(__file__).resolve().parent / "samples"
SHARED = SAMPLES / "shared"
CXX = os.environ.get("CXX", "g++")


def opgen_config(*options: str) -> list[str]:
    """`opgen config OPTIONS`, split as a shell would split $(...)."""
    out = subprocess.run(
        [sys.executable, "-m", "opgen", "config", *options],
        capture_output=True, text=True, check=True,
    )
    return shlex.split(out.stdout)


@dataclass(frozen=True)
class Unit:
    """One translation unit: a source of a sample, with the sample's own extra flags."""

    source: str  # relative to SAMPLES
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Program:
    name: str
    kernel: Unit
    driver: Unit


# Every program the tests run; built once per session, two compilers at a time.
PROGRAMS: tuple[Program, ...] = (
    Program("half_diff", Unit("half_diff/half_diff.cpp"), Unit("half_diff/main.cpp")),
    Program(
        "half_diff_short_output",
        Unit("half_diff/half_diff.cpp"),
        Unit("half_diff/main.cpp", ("-DOPGEN_TEST_SHORT_OUTPUT",)),
    ),
    Program("axpy_clamp", Unit("axpy_clamp/axpy_clamp.cpp"), Unit("axpy_clamp/main.cpp")),
    Program(
        "axpy_clamp_zero_tiles",
        Unit("axpy_clamp/axpy_clamp.cpp"),
        Unit("axpy_clamp/main.cpp", ("-DOPGEN_TEST_ZERO_TILES",)),
    ),
    Program(
        "blend_pair",
        Unit(
            "blend_pair/op_kernel/blend_pair.cpp",
            ("-DDTYPE_X=float", "-DDTYPE_Y=float", "-DDTYPE_Z=float",
             "-include", str(SAMPLES / "blend_pair/op_host/blend_pair_tiling.h")),
        ),
        Unit("blend_pair/main.cpp"),
    ),
    Program("row_mean", Unit("row_sum_unaligned/row_mean.cpp"), Unit("row_sum_unaligned/main.cpp")),
    Program(
        "row_mean_overrun",
        Unit("row_sum_unaligned/row_mean.cpp", ("-DOPGEN_TEST_OVERRUN",)),
        Unit("row_sum_unaligned/main.cpp"),
    ),
    Program(
        "masked_atomic_sum",
        Unit("masked_atomic_sum/masked_atomic_sum.cpp"),
        Unit("masked_atomic_sum/main.cpp"),
    ),
    Program("matmul_bias", Unit("matmul_bias/matmul_bias.cpp"), Unit("matmul_bias/main.cpp")),
    Program(
        "matmul_bias_aiv_mode",
        Unit("matmul_bias/matmul_bias.cpp"),
        Unit("matmul_bias/main.cpp", ("-DOPGEN_TEST_AIV_MODE",)),
    ),
    Program(
        "masked_atomic_sum_overrun",
        Unit("masked_atomic_sum/masked_atomic_sum.cpp", ("-DOPGEN_TEST_OVERRUN",)),
        Unit("masked_atomic_sum/main.cpp"),
    ),
)


def _compile(unit: Unit, out: Path, cflags: Sequence[str]) -> None:
    src = SAMPLES / unit.source
    cmd = [CXX, *cflags, "-O1", f"-I{src.parent}", f"-I{SHARED}", *unit.flags,
           "-c", str(src), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"{shlex.join(cmd)}\n{proc.stderr}")


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> executable of every sample program."""
    build = tmp_path_factory.mktemp("cpu-debug-build")
    cflags, libs = opgen_config("--cflags"), opgen_config("--libs")
    units = sorted({u for p in PROGRAMS for u in (p.kernel, p.driver)}, key=repr)
    objects = {u: build / f"unit{i}.o" for i, u in enumerate(units)}
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for f in [pool.submit(_compile, u, objects[u], cflags) for u in units]:
            f.result()
    out = {}
    for p in PROGRAMS:
        exe = build / p.name
        cmd = [CXX, str(objects[p.kernel]), str(objects[p.driver]), *libs, "-o", str(exe)]
        subprocess.run(cmd, check=True, capture_output=True)
        out[p.name] = exe
    return out


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    workdir: Path

    def output(self, name: str, dtype: object, count: int | None = None) -> np.ndarray:
        data: np.ndarray = np.fromfile(self.workdir / "output" / name, dtype=dtype)  # type: ignore[call-overload]
        return data if count is None else data[:count]


Runner = Callable[..., Run]


@pytest.fixture
def run_sample(programs: dict[str, Path], tmp_path: Path) -> Runner:
    """run_sample(name, inputs={file: array}, env=None): writes ./input/*.bin (gen_data.py's job),
    runs the program in a fresh directory, and returns its exit code, output and directory."""

    def run(name: str, inputs: dict[str, np.ndarray], env: dict[str, str] | None = None) -> Run:
        (tmp_path / "input").mkdir()
        (tmp_path / "output").mkdir()
        for file, array in inputs.items():
            array.tofile(tmp_path / "input" / file)
        proc = subprocess.run(
            [str(programs[name])], cwd=tmp_path, capture_output=True, text=True, check=False,
            env={**os.environ, **(env or {})}, timeout=120,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr, tmp_path)

    return run
