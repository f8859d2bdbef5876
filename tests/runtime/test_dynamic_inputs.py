"""Dynamic (list) inputs through the registry: the op_host sees every instance, the kernel
receives one GM buffer in CANN's ListTensorDesc layout (opgen_runtime.tensor_list)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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


SCALE_LIST_HOST = r"""
// op_host of ScaleList: yList[k] = xList[k] * 2 + k, a dynamic output of as many tensors as the
// dynamic input (CANN's foreach ops and fused optimizers)
#include "scale_list_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus ScaleListTilingFunc(gert::TilingContext* ctx) {
    const size_t count = ctx->GetComputeNodeInputNum();
    const gert::AnchorInstanceInfo* out = ctx->GetIrOutputInstanceInfo(0);
    if (count == 0 || out == nullptr || out->GetInstanceNum() != count ||
        ctx->GetComputeNodeOutputNum() != count) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& shape = ctx->GetDynamicInputShape(0, 0)->GetOriginShape();
    ScaleListTiling t;
    t.set_count(static_cast<uint32_t>(count));
    t.set_total(static_cast<uint32_t>(shape.GetShapeSize()));
    t.set_rank(static_cast<uint32_t>(shape.GetDimNum()));
    ctx->SetBlockDim(1);
    t.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
    ctx->GetRawTilingData()->SetDataSize(t.GetDataSize());
    ctx->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus ScaleListInferShape(gert::InferShapeContext* ctx) {
    for (size_t k = 0; k < ctx->GetComputeNodeInputNum(); ++k) {
        *ctx->GetOutputShape(k) = *ctx->GetDynamicInputShape(0, k);
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScaleList : public OpDef {
public:
    explicit ScaleList(const char* name) : OpDef(name) {
        this->Input("xList").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("yList").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::ScaleListInferShape);
        this->AICore().SetTiling(optiling::ScaleListTilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ScaleList);
}  // namespace ops
"""

SCALE_LIST_TILING = r"""
#ifndef SCALE_LIST_TILING_H
#define SCALE_LIST_TILING_H
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleListTiling)
TILING_DATA_FIELD_DEF(uint32_t, count);
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, rank);
END_TILING_DATA_DEF
REGISTER_TILING_DATA_CLASS(ScaleList, ScaleListTiling)
}  // namespace optiling
#endif
"""

SCALE_LIST_KERNEL = r"""
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_list(GM_ADDR xList, GM_ADDR yList, GM_ADDR workspace,
                                                 GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    GlobalTensor<uint64_t> xd, yd;
    xd.SetGlobalBuffer((__gm__ uint64_t*)xList);
    yd.SetGlobalBuffer((__gm__ uint64_t*)yList);
    const uint64_t xp = xd.GetValue(0) / 8, yp = yd.GetValue(0) / 8;
    const uint32_t padded = (t.total + 7) / 8 * 8;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, padded * sizeof(float));
    LocalTensor<float> v = buf.Get<float>();
    for (uint32_t k = 0; k < t.count; ++k) {
        GlobalTensor<float> x, y;
        x.SetGlobalBuffer((__gm__ float*)xd.GetValue(xp + k), t.total);
        y.SetGlobalBuffer((__gm__ float*)yd.GetValue(yp + k), t.total);
        DataCopy(v, x, padded);
        Muls(v, v, 2.0f, padded);
        Adds(v, v, static_cast<float>(k), padded);
        DataCopy(y, v, padded);
    }
}
"""


def _import_scale_list(tmp_path: Path, host: str, kernel: str) -> Path:
    """An opgen project (tmp_path/work) into which a ScaleList project of `host` and `kernel`
    was imported."""
    project = tmp_path / "ScaleList"
    (project / "op_host").mkdir(parents=True)
    (project / "op_kernel").mkdir()
    (project / "op_host" / "scale_list.cpp").write_text(host)
    (project / "op_host" / "scale_list_tiling.h").write_text(SCALE_LIST_TILING)
    (project / "op_kernel" / "scale_list.cpp").write_text(kernel)
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    cwd = os.getcwd()
    os.chdir(work)
    try:
        assert main(["import-msopgen", str(project)]) == 0
    finally:
        os.chdir(cwd)
    return work


def test_a_list_output_has_an_instance_per_input_instance(
        tmp_path: pytest.TempPathFactory) -> None:
    """A dynamic output (CANN's foreach ops, fused optimizers): as many instances as the first
    dynamic input, which InferShape and the TilingFunc see (GetIrOutputInstanceInfo), the kernel
    receives as one ListTensorDesc and the call returns as a list."""
    work = _import_scale_list(Path(str(tmp_path)), SCALE_LIST_HOST, SCALE_LIST_KERNEL)
    reg = built_ops.registered(work, "scale_list")
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal((3, 40)).astype(np.float32) for _ in range(3)]
    ys = reg.call("scale_list", xs)
    assert isinstance(ys, list) and len(ys) == 3
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        assert y.shape == x.shape
        np.testing.assert_array_equal(y, x * np.float32(2) + np.float32(k))
    more = [rng.standard_normal(17).astype(np.float32) for _ in range(5)]  # another plan
    for k, (x, y) in enumerate(zip(more, reg.call("scale_list", more), strict=True)):
        np.testing.assert_array_equal(y, x * np.float32(2) + np.float32(k))
    # no framework op passes a list out: their modules raise, naming the spec's line
    for frontend, module in (("PyTorch", "torch"), ("TensorFlow", "tf")):
        text = next((work / "generated").rglob(f"{module}/scale_list.py")).read_text()
        assert (f"opgen generates no {frontend} op for list outputs" in text
                and "param_type: dynamic" in text and "def scale_list(" in text), text


def test_a_list_ref_output_is_its_list_input_s_buffers(tmp_path: pytest.TempPathFactory) -> None:
    """A list output named like its list input (ops-nn's fused_sgd params, fused_adamw): the
    output list is the input list's buffers; the kernel gets one list buffer for both and
    updates it in place, and a tensor it does not write keeps the input's values."""
    host = SCALE_LIST_HOST.replace('this->Output("yList")', 'this->Output("xList")')
    kernel = SCALE_LIST_KERNEL.replace("        DataCopy(y, v, padded);",
                                       "        if (k % 2 == 0) DataCopy(y, v, padded);")
    work = _import_scale_list(Path(str(tmp_path)), host, kernel)
    assert "ref: x_list" in (work / "specs" / "scale_list.yaml").read_text()
    reg = built_ops.registered(work, "scale_list")
    xs = [np.full((2, 24), k + 1, np.float32) for k in range(3)]
    ys = reg.call("scale_list", xs)
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        want = x * np.float32(2) + np.float32(k) if k % 2 == 0 else x
        np.testing.assert_array_equal(y, want)
        np.testing.assert_array_equal(x, np.full((2, 24), k + 1, np.float32))  # untouched
