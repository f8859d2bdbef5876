"""An op's own op_host (TilingFunc, InferShape, InferDataType with OP_ADD and CANN's tiling-data
macros) compiled for the host and called at every launch: tests/fixtures/msopgen_clamp is an
msopgen-layout op whose kernel dispatches on the tiling key, reads attrs and platform numbers
from its tiling data and writes into the user part of its workspace."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import built_ops
import numpy as np
import pytest

from conftest import ROOT
from opgen_runtime.errors import TilingError
from opgen_runtime.ophost import HostTensor, build_op_host, load_op_host
from opgen_runtime.soc import get_soc

FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_clamp"
SOC = get_soc("ascend910b")
SYSTEM_WORKSPACE = 16 * 1024 * 1024


@pytest.fixture(scope="module")
def host():  # type: ignore[no-untyped-def]
    return load_op_host(build_op_host([FIXTURE / "op_host" / "clamp_scale.cpp"],
                                      name="clamp_scale"))


def _tiling(host, shape, dtype="float32", gain=1.0, limit=6.0, mode=0):  # type: ignore[no-untyped-def]
    x = HostTensor(shape, dtype)
    return host.tiling("ClampScale", [[x]], [x],
                       [("float", gain), ("float", limit), ("int", mode)], SOC)


def test_describe_reads_the_op_def(host) -> None:  # type: ignore[no-untyped-def]
    op = host.describe("ClampScale")
    assert op["tiling"] and op["infer_shape"] and op["infer_dtype"]
    d = op["def"]
    assert [(p["name"], p["param_type"], p["dtypes"]) for p in d["inputs"]] == [
        ("x", "required", [0, 1])]
    assert [(a["name"], a["type"], a["required"], a["default"]) for a in d["attrs"]] == [
        ("gain", "float", False, 1.0), ("limit", "float", False, 6.0), ("mode", "int", False, 0)]
    assert d["socs"] == ["ascend310p", "ascend910b"]


def test_tiling_data_is_cann_layout_and_key_follows_size(host) -> None:  # type: ignore[no-untyped-def]
    small = _tiling(host, (64,), gain=1.5, limit=4.0)
    assert (small.tiling_key, small.block_dim) == (1, 1)
    # uint32 x3, float x2, uint16[3] at 20, padding to 8, uint64 at 32: 40 bytes
    assert len(small.tiling) == 40
    per, last, piece, gain, limit = struct.unpack_from("<3I2f", small.tiling)
    assert (per, last, piece, gain, limit) == (64, 64, 64, 1.5, 4.0)
    assert struct.unpack_from("<3H", small.tiling, 20) == (7, 8, 9)
    assert struct.unpack_from("<Q", small.tiling, 32) == (64 * 3 + 1,)
    assert small.workspace_sizes == (SYSTEM_WORKSPACE + 32,)

    big = _tiling(host, (300, 1024))
    assert big.tiling_key == 2
    assert big.block_dim == SOC.vector_cores  # the platform's AIV count caps the blocks
    per, last, piece = struct.unpack_from("<3I", big.tiling)
    assert per * (big.block_dim - 1) + last == 300 * 1024
    assert piece == SOC.ub_bytes // 16 // 4  # a sixteenth of the platform's UB, in floats
    assert big.workspace_sizes == (SYSTEM_WORKSPACE + 32 * big.block_dim,)


def test_the_soc_reaches_the_platform(host) -> None:  # type: ignore[no-untyped-def]
    t = host.tiling("ClampScale", [[HostTensor((300, 1024), "float32")]],
                    [HostTensor((300, 1024), "float32")],
                    [("float", 1.0), ("float", 6.0), ("int", 0)], get_soc("ascend310p"))
    assert t.block_dim == get_soc("ascend310p").vector_cores
    assert t.workspace_sizes == (2 * 1024 * 1024 + 32 * t.block_dim,)


def test_infer_shape(host) -> None:  # type: ignore[no-untyped-def]
    x = HostTensor((3, 5, 7), "float16")
    assert host.infer_shape("ClampScale", [[x]], 1, [], SOC) == [(3, 5, 7)]


def test_failing_op_host_is_a_clear_error(host) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TilingError, match=r"^ClampScale: the op_host TilingFunc returned "
                                          r"GRAPH_FAILED"):
        _tiling(host, (64,), mode=1)
    with pytest.raises(TilingError, match=r"^ClampScale: the op_host TilingFunc crashed with "
                                          r"SIGSEGV"):
        _tiling(host, (64,), mode=2)
    # the process survived the fault, and later calls work
    assert _tiling(host, (64,)).block_dim == 1
    with pytest.raises(TilingError, match="register no op of this type"):
        host.describe("Missing")


def test_op_host_compile_error_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad_host.cpp"
    bad.write_text('#include "register/op_def_registry.h"\nint f() { return undefined_name; }\n')
    from opgen_runtime.errors import BuildError

    with pytest.raises(BuildError, match=r"bad_host\.cpp:2:\d+: error: 'undefined_name'"):
        build_op_host([bad], name="bad")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clamp_project")
    shutil.copytree(FIXTURE, root / "specs")
    (root / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    return root


def test_registry_launches_with_the_op_hosts_tiling(project: Path) -> None:
    reg = built_ops.registered(project, "clamp_scale")
    rng = np.random.default_rng(3)
    # (100,) and (3, 37): the kernel copies the tail in whole 32-byte blocks, through the
    # padding of the arrays' device allocations
    for shape, dt, blocks in (((64,), np.float32, 1), ((100,), np.float32, 1),
                              ((3, 37), np.float16, 1), ((1000 * 16,), np.float16, 3),
                              ((300, 1024), np.float32, SOC.vector_cores)):
        x = (rng.standard_normal(shape) * 10).astype(dt)
        y, prof = reg.call("clamp_scale", x, gain=1.5, limit=4.0, profile=True)
        ref = np.minimum(np.maximum(x * dt(1.5), dt(-4.0)), dt(4.0))
        np.testing.assert_array_equal(y, ref)
        assert prof.block_dim == blocks
    x = np.ones(64, np.float32)
    with pytest.raises(TilingError, match="GRAPH_FAILED"):
        reg.call("clamp_scale", x, limit=-1.0)
    with pytest.raises(TilingError, match="the op_host TilingFunc must SaveToBuffer"):
        reg.call("clamp_scale", x, mode=3)


def test_an_op_host_including_platform_info_h_builds(tmp_path: Path) -> None:
    """CANN's operator libraries include platform/platform_info.h for fe::PlatFormInfos (100
    files of ops-math): the op_host builds with it and tiles as before."""
    shutil.copytree(FIXTURE / "op_host", tmp_path / "op_host")
    src = tmp_path / "op_host" / "clamp_scale.cpp"
    src.write_text('#include "platform/platform_info.h"\n' + src.read_text())
    other = load_op_host(build_op_host([src], name="clamp_scale_platform_info"))
    x = HostTensor((4096,), "float32")
    assert other.tiling("ClampScale", [[x]], [x],
                        [("float", 1.0), ("float", 6.0), ("int", 0)], SOC).block_dim > 0


def test_an_op_host_comparing_against_the_unknown_rank_builds(tmp_path: Path) -> None:
    """InferShape code that passes an unknown rank through (`ge::UNKNOWN_DIM_NUM`, CANN's -2,
    and the shapes UNKNOWN_SHAPE / UNKNOWN_RANK of graph/types.h; ops-math's
    grouped_bias_add_grad) builds, with CANN's values, and infers as before."""
    shutil.copytree(FIXTURE / "op_host", tmp_path / "op_host")
    src = tmp_path / "op_host" / "clamp_scale.cpp"
    src.write_text(
        '#include "graph/types.h"\n'
        "static_assert(ge::UNKNOWN_DIM == -1 && ge::UNKNOWN_DIM_NUM == -2);\n"
        "static bool OpgenUnknownRank(const std::vector<int64_t>& dims) {\n"
        "    return dims == ge::UNKNOWN_RANK && dims != ge::UNKNOWN_SHAPE;\n"
        "}\n" + src.read_text())
    other = load_op_host(build_op_host([src], name="clamp_scale_unknown_rank"))
    x = HostTensor((3, 5), "float32")
    assert other.infer_shape("ClampScale", [[x]], 1, [], SOC) == [(3, 5)]


OPS_NN_PRELUDE = r'''
#include "graph/operator.h"
#include "graph/operator_reg.h"
#include "graph/c_types.h"
#include "exe_graph/runtime/kernel_run_context.h"
#include "runtime/infer_shape_context.h"
#include "platform/platform_info_def.h"
#include "register/tilingdata_base.h"
#include "ascendc/host_api/tiling/template_argument.h"
namespace ge {
REG_OP(ClampScaleProto)
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16}))
    .ATTR(gain, Float, 1.0)
    .ATTR(axes, ListInt, {1, 2})
    .OP_END_FACTORY_REG(ClampScaleProto)
}
// CANN's numbers of the Ascend 950's types and architectures, which OpDefs and tilings name
static_assert(ge::DT_HIFLOAT8 == 34 && ge::DT_FLOAT8_E4M3FN == 36 && ge::DT_HIFLOAT4 == 42 &&
              ge::DT_MAX == 43 && static_cast<int>(C_DT_FLOAT4_E2M1) == 40);
// a selection the host never compiles (it names what only a kernel build defines)
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, OPGEN_UNDEFINED)));
static bool OpgenPlatformSeen(const fe::PlatFormInfos* p) {
    std::string soc, cores, ub, none = "untouched";
    uint8_t scratch[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if (memset_s(scratch, sizeof(scratch), 0, sizeof(scratch)) != EOK || scratch[7] != 0) {
        return false;
    }
    const gert::Range<gert::Shape> unknown;
    return p->GetPlatformRes("version", "SoC_version", soc) && soc == "Ascend910B1" &&
           p->GetPlatformResWithLock("SoCInfo", "vector_core_cnt", cores) && cores == "48" &&
           p->GetPlatformRes("AICoreSpec", "ub_size", ub) && ub == "196608" &&
           !p->GetPlatformRes("AICoreintrinsicDtypeMap", "Intrinsic_mmad", none) &&
           none == "untouched" && unknown.GetMin() == nullptr;
}
'''


def test_an_op_host_of_cann_s_operator_libraries_builds(tmp_path: Path) -> None:
    """What ops-nn's op_hosts include and call: ge::Operator and a REG_OP prototype (its
    error_util.h, its tiling headers), exe_graph's runtime/ headers, platform_info_def.h,
    securec's memset_s through tilingdata_base.h, an ASCENDC_TPL_SEL the host build leaves out
    (CANN's expands to nothing there), gert::Range, and fe::PlatFormInfos::GetPlatformRes: the
    SoC's names, cores and memory sizes, and false, the value untouched, for an entry it lacks."""
    shutil.copytree(FIXTURE / "op_host", tmp_path / "op_host")
    src = tmp_path / "op_host" / "clamp_scale.cpp"
    text = src.read_text().replace(
        "    auto platform = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());",
        "    if (!OpgenPlatformSeen(ctx->GetPlatformInfo())) {\n"
        "        return ge::GRAPH_FAILED;\n"
        "    }\n"
        "    auto platform = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());")
    src.write_text(OPS_NN_PRELUDE + text)
    other = load_op_host(build_op_host([src], name="clamp_scale_ops_nn"))
    x = HostTensor((4096,), "float32")
    assert other.tiling("ClampScale", [[x]], [x],
                        [("float", 1.0), ("float", 6.0), ("int", 0)], SOC).block_dim > 0


def test_a_function_no_source_defines_is_named_with_where_it_is_defined(tmp_path: Path) -> None:
    """ops-nn's infershapes call opbase's Ops::Base::InferShape4Elewise, defined in a .cpp of
    opbase's src/ that the op_host build must be given: the link names the function (not its
    mangled symbol at load time), the source using it, and the file of src/ beside the include
    dir that defines it."""
    from opgen_runtime.errors import BuildError

    lib = tmp_path / "opbase"
    (lib / "include").mkdir(parents=True)
    (lib / "include" / "elewise.h").write_text(
        "namespace gert { class InferShapeContext; }\n"
        "namespace Ops::Base { unsigned InferShapeSame(gert::InferShapeContext* context); }\n")
    (lib / "src" / "op_host").mkdir(parents=True)
    helper = lib / "src" / "op_host" / "elewise.cpp"
    helper.write_text('#include "elewise.h"\n'
                      "namespace Ops::Base {\n"
                      "unsigned InferShapeSame(gert::InferShapeContext* context)\n"
                      "{\n    return context == nullptr;\n}\n}\n")
    shutil.copytree(FIXTURE / "op_host", tmp_path / "op_host")
    src = tmp_path / "op_host" / "clamp_scale.cpp"
    src.write_text('#include "elewise.h"\n' + src.read_text().replace(
        "static graphStatus ClampScaleInferShape(gert::InferShapeContext* ctx) {",
        "static graphStatus ClampScaleInferShape(gert::InferShapeContext* ctx) {\n"
        "    if (Ops::Base::InferShapeSame(ctx) != 0) return GRAPH_FAILED;"))
    with pytest.raises(BuildError) as info:
        build_op_host([src], name="clamp_scale_undefined", include_dirs=[lib / "include"])
    assert str(info.value) == (
        "the op_host of clamp_scale_undefined uses 1 function(s) or variable(s) that none of "
        "its sources defines:\n"
        "  Ops::Base::InferShapeSame(gert::InferShapeContext*) (used in clamp_scale.cpp)\n"
        f"    defined, it seems, in {helper.resolve()}\n"
        "add the source file that defines each with --host-source FILE (for ops-nn's and "
        "ops-math's op_host: a .cpp of opbase's src/op_common/), or define it in the op_host")
    # given that source, it builds and infers
    host = load_op_host(build_op_host([src, helper], name="clamp_scale_defined",
                                      include_dirs=[lib / "include"]))
    x = HostTensor((3, 5), "float32")
    assert host.infer_shape("ClampScale", [[x]], 1, [], SOC) == [(3, 5)]


def test_metadef_s_registration_members_build(tmp_path: Path) -> None:
    """IMPL_OP_INFERSHAPE(...).InferOutDataTypeSameWithFirstInput() (ops-nn's bnll), the
    placements of TilingInputsDataDependency, NullableOutputs, GenSimplifiedKey and the
    class's function-type aliases: metadef's OpImplRegisterV2 members an op_host may call. The
    data type rule is registered as the op's InferDataType."""
    shutil.copytree(FIXTURE / "op_host", tmp_path / "op_host")
    src = tmp_path / "op_host" / "clamp_scale.cpp"
    src.write_text(src.read_text().replace(
        "this->SetInferShape(ge::ClampScaleInferShape).SetInferDataType(ge::ClampScaleInferDataType);",
        "this->SetInferShape(ge::ClampScaleInferShape);") + "\n"
        "namespace {\n"
        "const gert::OpImplRegisterV2::InferShapeKernelFunc kShape = nullptr;\n"
        "}\n"
        "IMPL_OP_INFERSHAPE(ClampScale).InferOutDataTypeSameWithFirstInput()\n"
        "    .TilingInputsDataDependency({0}, {gert::TILING_ON_HOST}).NullableOutputs({0})\n"
        "    .GenSimplifiedKey(nullptr);\n")
    other = load_op_host(build_op_host([src], name="clamp_scale_metadef_members"))
    assert other.describe("ClampScale")["infer_dtype"]
    x = HostTensor((4, 6), "float16")
    assert other.infer_shape("ClampScale", [[x]], 1, [], SOC) == [(4, 6)]
