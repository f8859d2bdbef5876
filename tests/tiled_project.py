"""A project of one msopgen-style op (tests/fixtures/tiled_scaled_add: tiling declared in
op_host/<op>_tiling.h with BEGIN_TILING_DATA_DEF, kernel in op_kernel/), generated into a
temporary folder under its own package and namespace, for the PyTorch and TensorFlow tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import Config

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "tiled_scaled_add"


def generate(where: Path, package: str, namespace: str) -> Path:
    """Generates the project; returns its generated/python folder (to put on sys.path)."""
    shutil.copytree(FIXTURE, where / "specs")
    config = Config(root=where, spec_dir=where / "specs", output_dir=where / "generated",
                    package=package, namespace=namespace)
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, incremental=False) is not None, [str(d) for d in sink]
    return where / "generated" / "python"
