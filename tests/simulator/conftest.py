"""Shared fixtures of the simulator tests: the example kernels, built once per session."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opgen_runtime as rt

SPECS = Path(__file__).resolve().parents[2] / "specs"

# Tiling layouts of the example kernels (the compiler derives these with libclang).
LAYOUTS: dict[str, rt.TilingLayout] = {
    "element_add": rt.TilingLayout.from_fields(
        "ElementAddTilingData",
        [("totalLength", "uint32_t"), ("blockLength", "uint32_t"), ("tileLength", "uint32_t")],
    ),
    "leaky_relu": rt.TilingLayout.from_fields(
        "LeakyReluTilingData",
        [
            ("totalLength", "uint32_t"),
            ("blockLength", "uint32_t"),
            ("tileLength", "uint32_t"),
            ("negativeSlope", "float"),
        ],
    ),
    "cast": rt.TilingLayout.from_fields(
        "CastCustomTilingData",
        [
            ("totalLength", "uint32_t"),
            ("blockLength", "uint32_t"),
            ("tileLength", "uint32_t"),
            ("dstType", "int32_t"),
        ],
    ),
    "softmax": rt.TilingLayout.from_fields(
        "SoftmaxCustomTilingData",
        [("rows", "uint32_t"), ("cols", "uint32_t"), ("rank", "uint32_t"), ("axis", "int64_t")],
    ),
    "layer_norm": rt.TilingLayout.from_fields(
        "LayerNormCustomTilingData",
        [
            ("rows", "uint32_t"),
            ("cols", "uint32_t"),
            ("epsilon", "float"),
            ("gammaPresent", "uint32_t"),
            ("betaPresent", "uint32_t"),
        ],
    ),
    "broadcast_add": rt.TilingLayout.from_fields(
        "BroadcastAddTilingData",
        [
            ("xShape", "int64_t", 8),
            ("yShape", "int64_t", 8),
            ("zShape", "int64_t", 8),
            ("xRank", "uint32_t"),
            ("yRank", "uint32_t"),
            ("zRank", "uint32_t"),
            ("tileLength", "uint32_t"),
        ],
    ),
}

# (op, {tensor: dtype}) variants the tests run; DTYPE_<NAME> macros come from the dtypes.
VARIANTS: list[tuple[str, dict[str, str]]] = [
    ("element_add", {"x": "float32", "y": "float32", "z": "float32"}),
    ("element_add", {"x": "float16", "y": "float16", "z": "float16"}),
    ("leaky_relu", {"x": "float32", "y": "float32"}),
    ("leaky_relu", {"x": "float16", "y": "float16"}),
    ("softmax", {"x": "float32", "y": "float32"}),
    ("softmax", {"x": "float16", "y": "float16"}),
    ("layer_norm", {"x": "float32", "y": "float32"}),
    ("layer_norm", {"x": "float16", "y": "float16"}),
    ("broadcast_add", {"x": "float32", "y": "float32", "z": "float32"}),
    ("broadcast_add", {"x": "float16", "y": "float16", "z": "float16"}),
] + [
    ("cast", {"x": src, "y": dst})
    for src, dst in [
        ("float32", "float16"),
        ("float32", "int32"),
        ("float16", "float32"),
        ("float16", "int32"),
        ("int32", "float32"),
        ("int32", "float16"),
    ]
]


def _key(op: str, dtypes: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    return op, tuple(sorted(dtypes.items()))


@pytest.fixture(scope="session")
def kernels() -> dict[Any, rt.KernelLibrary]:
    """Every example kernel variant, compiled in parallel (cached across sessions)."""
    reqs = [
        rt.BuildRequest(SPECS / f"{op}.cpp", entry=op, defines=rt.dtype_defines(dt))
        for op, dt in VARIANTS
    ]
    libs = rt.build_kernels(reqs)
    return {_key(op, dt): lib for (op, dt), lib in zip(VARIANTS, libs, strict=True)}


Runner = Callable[..., rt.LaunchProfile]


@pytest.fixture(scope="session")
def run_op(kernels: dict[Any, rt.KernelLibrary]) -> Runner:
    """run_op(op, inputs, outputs, attrs, block_dim=None) -> profile, with the default tiling."""

    def run(
        op: str,
        inputs: Mapping[str, np.ndarray | None],
        outputs: Mapping[str, np.ndarray],
        attrs: Mapping[str, Any] | None = None,
        *,
        block_dim: int | None = None,
        soc: str = "ascend910b",
    ) -> rt.LaunchProfile:
        dtypes = {k: str(v.dtype) for k, v in {**inputs, **outputs}.items() if v is not None}
        dtypes = {k: v for k, v in dtypes.items() if k in ("x", "y", "z")}
        lib = kernels[_key(op, dtypes)]
        layout = LAYOUTS[op]
        bd, values = rt.default_tiling(
            layout, inputs, outputs, attrs or {}, soc, block_dim=block_dim
        )
        return rt.launch(
            lib, op, {**inputs, **outputs}, block_dim=bd, tiling=layout.pack(values), soc=soc
        )

    return run


def run_host_program(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """Compiles `source` against the simulator's host headers as a sample's host build does
    (-Wall -Werror -O2: the headers' inline functions must pass it) and runs it, capturing what it
    prints."""
    src = tmp_path / "host.cpp"
    src.write_text(source)
    exe = tmp_path / "host"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror", "-O2", f"-I{rt.include_dir()}",
                    str(src), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True)
