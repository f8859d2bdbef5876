"""Dynamic (list) inputs through the registry: the op_host sees every instance, the kernel
receives one GM buffer in CANN's ListTensorDesc layout (opgen_runtime.tensor_list)."""

from __future__ import annotations

import os
import shutil

import built_ops
import numpy as np
import pytest

from conftest import ROOT
from opgen.cli import main
from opgen_runtime import registry, tensor_list
from opgen_runtime.errors import TilingError

FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_sum_list"


def test_pack_writes_cann_list_tensor_desc_layout() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((4, 5), 7, dtype=np.float32)
    buf = tensor_list.pack([a, b])
    assert buf.__array_interface__["data"][0] % 32 == 0
    words = buf[:8 * 9].view("<u8")
    # ptrOffset, then per tensor `rank | index << 32` and its dims, then the data pointers
    assert list(words[:7]) == [8 * 7, 2, 2, 3, 2 | 1 << 32, 4, 5]
    base = buf.__array_interface__["data"][0]
    for ptr, x in zip(words[7:9], (a, b), strict=True):
        start = int(ptr) - base
        assert start % 32 == 0 and start >= 8 * 9
        np.testing.assert_array_equal(buf[start:start + x.nbytes].view(np.float32), x.ravel())
    scalars = tensor_list.pack([np.float32(1.0) * np.ones((), np.float32)] * 3)
    assert list(scalars[:8 * 3].view("<u8")) == [24, 3 << 32, 0xFFFFFFFF]
    with pytest.raises(ValueError, match="same rank"):
        tensor_list.pack([a, np.zeros(3, np.float32)])


@pytest.fixture(scope="module")
def sum_list(tmp_path_factory: pytest.TempPathFactory) -> registry.Registry:
    tmp = tmp_path_factory.mktemp("sum_list")
    project = tmp / "SumList"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    work = tmp / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    cwd = os.getcwd()
    os.chdir(work)
    try:
        assert main(["import-msopgen", str(project)]) == 0
        spec = (work / "specs" / "sum_list.yaml").read_text()
        assert "name: x_list\n  ir_name: xList\n  param_type: dynamic" in spec
    finally:
        os.chdir(cwd)
    return built_ops.registered(work, "sum_list")


@pytest.mark.parametrize("count", [1, 2, 5])
def test_list_input_reaches_op_host_and_kernel(sum_list: registry.Registry, count: int) -> None:
    rng = np.random.default_rng(count)
    xs = [rng.standard_normal((8, 300)).astype(np.float32) for _ in range(count)]
    y = sum_list.call("sum_list", xs)
    want = np.zeros_like(xs[0])
    for x in xs:
        want += x
    np.testing.assert_array_equal(y, want)
    # the plan is cached by the instances' shapes: another call with new data recomputes
    xs2 = [x * 2 for x in xs]
    np.testing.assert_array_equal(sum_list.call("sum_list", tuple(xs2)), want * 2)


def test_list_input_misuse(sum_list: registry.Registry) -> None:
    x = np.ones((4, 8), np.float32)
    with pytest.raises(registry.OpCallError, match="dynamic: pass a non-empty list"):
        sum_list.call("sum_list", x)
    with pytest.raises(registry.OpCallError, match="dynamic: pass a non-empty list"):
        sum_list.call("sum_list", [])
    with pytest.raises(registry.OpCallError, match="share one dtype"):
        sum_list.call("sum_list", [x, x.astype(np.float16)])
    with pytest.raises(registry.OpCallError, match="share one rank"):
        sum_list.call("sum_list", [x, x.ravel()])
    # shapes that differ are the op_host's to refuse
    with pytest.raises(TilingError, match="GRAPH_FAILED"):
        sum_list.call("sum_list", [x, np.ones((4, 16), np.float32)])
