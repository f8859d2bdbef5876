"""CANN's templated tiling key end to end: tests/fixtures/tpl_muladd is an msopgen-layout op whose
kernel is `template<typename D_T, uint32_t TILE_NUM, bool IS_SPLIT> __global__ void ...`, whose
tiling_key header declares and selects the combinations with the ASCENDC_TPL_* macros, and whose
op_host picks one with GET_TPL_TILING_KEY by dtype and size. `opgen build` puts every selected
instantiation into the library; every one runs through the registry and matches numpy exactly."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import built_ops
import numpy as np
import pytest

from conftest import ROOT
from opgen_runtime.build import build_kernel
from opgen_runtime.dtypes import dtype_defines
from opgen_runtime.errors import BuildError, TilingError
from opgen_runtime.launcher import launch
from opgen_runtime.metadef import load

FIXTURE = ROOT / "tests" / "fixtures" / "tpl_muladd"
DT_FLOAT, DT_FLOAT16 = 0, 1
TILE_NUMS = (1, 2, 4, 8)  # the declared UINT values; the key holds a value's position


def packed_key(dtype: int, tile_num: int, split: int) -> int:
    """CANN's packing for this header: D_T in bits 0-7 (DATATYPE: 8 bits), TILE_NUM's position
    in bits 8-11 (declared ASCENDC_TPL_4_BW), IS_SPLIT in bit 12 (BOOL: 1 bit)."""
    return dtype | TILE_NUMS.index(tile_num) << 8 | split << 12


# (dtype, elements) -> (TILE_NUM, IS_SPLIT, blocks): the op_host's choice, covering all ten
# combinations the header selects (float16: TILE_NUM 1 or 4; float32: 1, 2 or 8).
CASES = [
    (np.float16, 256, 1, 0, 1), (np.float16, 1024, 4, 0, 1),
    (np.float16, 2048, 1, 1, 8), (np.float16, 8192, 4, 1, 8),
    (np.float32, 256, 1, 0, 1), (np.float32, 768, 2, 0, 1), (np.float32, 1536, 8, 0, 1),
    (np.float32, 2048, 1, 1, 8), (np.float32, 4096, 2, 1, 8), (np.float32, 16384, 8, 1, 8),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tpl_project")
    shutil.copytree(FIXTURE, root / "specs")
    (root / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    return root


@pytest.fixture(scope="module")
def built(project: Path) -> tuple[Path, Path]:
    """(operator library, metadef) of `opgen build` in the project."""
    return built_ops.build(project)["tpl_muladd"], (
        project / "generated" / "metadef" / "tpl_muladd.json")


def test_the_frontend_records_the_template_parameters(built: tuple[Path, Path]) -> None:
    kernel = json.loads(built[1].read_text())["kernel"]
    assert kernel["template"] == {"arity": 5, "params": [
        {"name": "D_T", "kind": "type", "type": ""},
        {"name": "TILE_NUM", "kind": "value", "type": "unsigned int"},
        {"name": "IS_SPLIT", "kind": "value", "type": "bool"}]}


def test_every_selected_combination_matches_numpy(built: tuple[Path, Path]) -> None:
    lib, metadef = built
    reg = built_ops.registered(metadef.parent.parent.parent, "tpl_muladd", lib)
    rng = np.random.default_rng(7)
    seen = set()
    for dt, n, tiles, split, blocks in CASES:
        x = rng.uniform(-4, 4, n).astype(dt)
        y = rng.uniform(-4, 4, n).astype(dt)
        z, prof = reg.call("tpl_muladd", x, y, profile=True)
        np.testing.assert_array_equal(z, x * y + x)
        plan = next(p for p in reg.ops["tpl_muladd"].plans.values() if p.out_layout[0][2] == (n,)
                    and p.out_layout[0][1] == np.dtype(dt))
        code = DT_FLOAT16 if dt == np.float16 else DT_FLOAT
        assert plan.tiling_key == packed_key(code, tiles, split)
        assert prof.block_dim == blocks
        seen.add(plan.tiling_key)
    assert len(seen) == 10


def _kernel(metadef: Path, dtype: str):  # type: ignore[no-untyped-def]
    op = load(metadef)
    assert op.kernel_source is not None and op.tiling_header is not None
    return build_kernel(op.kernel_source, entry="tpl_muladd",
                        defines=dtype_defines({"x": dtype, "y": dtype, "z": dtype}),
                        extra_flags=("-include", str(op.tiling_header)),
                        template=op.kernel_template)


def test_a_key_outside_the_selection_is_a_clear_error(built: tuple[Path, Path]) -> None:
    lib = _kernel(built[1], "float16")
    x = np.ones(256, np.float16)
    tiling = struct.pack("<II", 256, 256)  # blockLength, tileLength
    args = {"x": x, "y": x, "z": np.empty_like(x)}
    # TILE_NUM 2 is declared but selected for float32 only
    key = packed_key(DT_FLOAT16, 2, 0)
    with pytest.raises(TilingError, match=(
            rf"tpl_muladd: tiling key {key} \(D_T=1, TILE_NUM=2, IS_SPLIT=0\) is none of the 10 "
            r"combinations that ASCENDC_TPL_SEL selects for TplMuladd")):
        launch(lib, "tpl_muladd", args, block_dim=1, tiling=tiling, tiling_key=key)
    with pytest.raises(TilingError, match=r"TILE_NUM=#5 \(a UINT position past its 4 declared"):
        launch(lib, "tpl_muladd", args, block_dim=1, tiling=tiling, tiling_key=1 | 5 << 8)
    with pytest.raises(TilingError, match="is INVALID_TILING_KEY: the op_host's GET_TPL"):
        launch(lib, "tpl_muladd", args, block_dim=1, tiling=tiling, tiling_key=2**64 - 1)
    # the selected key still runs after the errors
    launch(lib, "tpl_muladd", args, block_dim=1, tiling=tiling,
           tiling_key=packed_key(DT_FLOAT16, 1, 0))
    np.testing.assert_array_equal(args["z"], x * x + x)


def test_a_selection_of_an_undeclared_value_fails_the_build(tmp_path: Path,
                                                            built: tuple[Path, Path]) -> None:
    shutil.copytree(FIXTURE, tmp_path / "op")
    header = tmp_path / "op" / "op_kernel" / "tiling_key_tpl_muladd.h"
    header.write_text(header.read_text().replace("ASCENDC_TPL_UI_LIST, 1, 4)",
                                                 "ASCENDC_TPL_UI_LIST, 1, 16)"))
    op = load(built[1])
    with pytest.raises(BuildError, match="ASCENDC_TPL_SEL selects a value its "
                                         "ASCENDC_TPL_\\*_DECL does not declare"):
        build_kernel(tmp_path / "op" / "op_kernel" / "tpl_muladd.cpp", entry="tpl_muladd",
                     defines=dtype_defines({"x": "float32", "y": "float32", "z": "float32"}),
                     extra_flags=("-include", str(tmp_path / "op" / "op_host" /
                                                  "tpl_muladd_tiling.h")),
                     template=op.kernel_template)
