"""The seed's flow with the seed's own metadef JSON, as the seed writes it (no tiling section,
no kernel section): the library `opgen build` made carries what the launch needs (the kernel
entry's parameters and tiling layout, read by the kernel frontend), so the hand-written metadef
registers and runs with nothing added to it."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from opgen.cli import main
from opgen_runtime import acl, registry
from opgen_runtime.oplib import open_library

from .conftest import ROOT

SEED = ROOT.parent / "shared" / "seed" / "000_1631478323829bbd.txt"
SEED_METADEF = ROOT / "tests" / "fixtures" / "seed_element_add.json"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """lib<element_add>.so as `opgen build` makes it, in a project of its own."""
    project = tmp_path_factory.mktemp("seed-project")
    (project / "specs").mkdir()
    for name in ("element_add.json", "element_add.cpp"):
        shutil.copy(ROOT / "specs" / name, project / "specs" / name)
    (project / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n', "utf-8")
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.chdir(project)
        assert main(["build", "--no-op-api"]) == 0
    op, _, path = out.getvalue().strip().partition(": ")
    assert op == "element_add"
    return Path(path)


@pytest.fixture
def seed_acl(opp: Path) -> Iterator[None]:
    registry.REGISTRY.reset()
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    yield
    acl.finalize()
    registry.REGISTRY.reset()


def test_the_fixture_is_the_seeds_metadef_verbatim() -> None:
    if not SEED.exists():
        pytest.skip("the seed document is not beside the repository")
    assert SEED_METADEF.read_text("utf-8").strip() in SEED.read_text("utf-8")
    assert "tiling" not in json.loads(SEED_METADEF.read_text("utf-8"))


def test_the_library_carries_the_entry_signature_and_tiling_layout(library: Path) -> None:
    signature = open_library(library).signatures["element_add"]
    assert signature.params == ("x", "y", "z", "workspace", "tiling")
    assert signature.tiling is not None
    assert signature.tiling["struct"] == "ElementAddTilingData"
    assert [f["name"] for f in signature.tiling["fields"]] == [
        "totalLength", "blockLength", "tileLength"]


def test_the_seeds_metadef_registers_and_runs(library: Path, tmp_path: Path,
                                              seed_acl: None) -> None:
    metadef = tmp_path / "element_add.json"
    shutil.copy(SEED_METADEF, metadef)
    assert acl.ops.load_operator_library(str(library)) == 0
    assert acl.op.register_operator("element_add") == 0
    assert acl.op.register_operator_model("element_add", str(metadef), "element_add") == 0, (
        acl.get_recent_err_msg())
    x = np.arange(1000, dtype=np.float32)
    y = np.full(1000, 0.25, dtype=np.float32)
    np.testing.assert_array_equal(acl.ops.element_add(x, y), x + y)


def test_a_metadef_that_does_not_fit_the_kernel_is_refused(library: Path, tmp_path: Path,
                                                           seed_acl: None) -> None:
    data = json.loads(SEED_METADEF.read_text("utf-8"))
    del data["input_desc"][1]  # one input: the kernel takes x, y, z, workspace, tiling
    metadef = tmp_path / "element_add.json"
    metadef.write_text(json.dumps(data), "utf-8")
    assert acl.ops.load_operator_library(str(library)) == 0
    assert acl.op.register_operator("element_add") == 0
    code = acl.op.register_operator_model("element_add", str(metadef), "element_add")
    assert code == acl.ACL_ERROR_KERNEL_NOT_FOUND
    assert acl.get_recent_err_msg() == (
        "kernel 'element_add' takes 5 parameter(s) (x, y, z, workspace, tiling) but metadef "
        f"{metadef} describes 2 tensor(s) (x, z); a kernel takes the inputs, the outputs, then "
        "workspace and tiling")
