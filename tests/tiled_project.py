"""A project of one msopgen-style op, generated into a temporary folder under its own package
and namespace, for the PyTorch and TensorFlow tests: tests/fixtures/tiled_scaled_add (tiling
declared in op_host/<op>_tiling.h with BEGIN_TILING_DATA_DEF, kernel in op_kernel/), or
tests/fixtures/msopgen_clamp (tiled by its own op_host TilingFunc)."""

from __future__ import annotations

import shutil
from pathlib import Path

from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import Config

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE = FIXTURES / "tiled_scaled_add"
OP_HOST_FIXTURE = FIXTURES / "msopgen_clamp"


def generate(where: Path, package: str, namespace: str, fixture: Path = FIXTURE) -> Path:
    """Generates the project; returns its generated/python folder (to put on sys.path)."""
    shutil.copytree(fixture, where / "specs")
    config = Config(root=where, spec_dir=where / "specs", output_dir=where / "generated",
                    package=package, namespace=namespace)
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, incremental=False) is not None, [str(d) for d in sink]
    return where / "generated" / "python"
