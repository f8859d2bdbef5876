"""Ops of a test project built as a user builds them (`opgen build`, the CLI) and registered
with the runtime by the seed's calls, for the tests of op_host ops."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

from opgen.cli import main
from opgen_runtime import registry


def build(project: Path) -> dict[str, Path]:
    """`opgen build --no-op-api` in `project`: the operator library of each op, by name."""
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(project)
    try:
        with contextlib.redirect_stdout(out):
            assert main(["build", "--no-op-api"]) == 0
    finally:
        os.chdir(cwd)
    libs = {}
    for line in out.getvalue().splitlines():
        op, sep, path = line.partition(": ")
        if sep and path.endswith(".so"):
            libs[op] = Path(path)
    return libs


def registered(project: Path, op: str, library: Path | None = None) -> registry.Registry:
    """A registry with `op` registered: load_operator_library -> register_operator ->
    register_operator_model, with the library of `build` unless one is given."""
    reg = registry.Registry()
    reg.load_operator_library(library if library is not None else build(project)[op])
    reg.register_operator(op)
    reg.register_operator_model(op, project / "generated" / "metadef" / f"{op}.json", op)
    return reg
