"""`opgen import-msopgen DIR` on an msopgen project: the ops come from the project's own OpDef,
the specs point at its op_kernel/ and op_host/ in place, and the imported op runs with its own
tiling."""

from __future__ import annotations

import shutil
from pathlib import Path

import built_ops
import numpy as np
import pytest
import yaml

from conftest import ROOT
from opgen.cli import main
from opgen_runtime.registry import OpCallError

FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_clamp"


def imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: Path) -> Path:
    """A fresh opgen project under tmp_path/work (the current directory from now on) into
    which `project` was imported."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    monkeypatch.chdir(work)
    assert main(["import-msopgen", str(project)]) == 0
    return work


def assert_clamps(work: Path, n: int) -> None:
    """The imported clamp_scale, built and registered from `work`, clamps n floats."""
    reg = built_ops.registered(work, "clamp_scale")
    x = np.linspace(-20, 20, n, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain=2.0),
                                  np.clip(x * np.float32(2.0), -6, 6))


def test_import_project_in_place_then_build_and_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    work = imported(tmp_path, monkeypatch, project)
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert spec["op_type"] == "ClampScale"
    assert [(t["name"], t["dtype"]) for t in spec["input_desc"]] == [("x", ["float", "float16"])]
    assert [(a["name"], a["type"], a["default"]) for a in spec["attr_desc"]] == [
        ("gain", "float", 1.0), ("limit", "float", 6.0), ("mode", "int", 0)]
    assert spec["kernel"] == {
        "source": "../../ClampScale/op_kernel/clamp_scale.cpp",
        "op_host": ["../../ClampScale/op_host/clamp_scale.cpp"],
        "tiling_header": "../../ClampScale/op_host/clamp_scale_tiling.h",
    }
    # a second import never overwrites
    capsys.readouterr()
    assert main(["import-msopgen", str(project)]) == 2
    assert "already exists" in capsys.readouterr().err

    assert_clamps(work, 4096)


def test_import_builds_the_tiling_folder_cann_maps_the_910b_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CANN's operator libraries (hicann/ops-math) keep a tiling folder per architecture
    (op_host/arch22, arch35, ...) and the aclnn API in op_host/op_api; the op's CMakeLists maps
    each SoC to its folder. The import builds what CANN builds for the 910B: the mapped folder's
    *_tiling*.cpp, not the Ascend 950's arch35 (which defines the same classes) nor op_api; and it
    finds the tiling struct in <op>_tiling_def.h."""
    project = tmp_path / "clamp_scale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    host = project / "op_host"
    (host / "clamp_scale_tiling.h").rename(host / "clamp_scale_tiling_def.h")
    source = host / "clamp_scale.cpp"
    # (and the output declared with Follow("x"), as ops-math's sinkhorn declares its "p")
    source.write_text(source.read_text().replace('"clamp_scale_tiling.h"',
                                                 '"clamp_scale_tiling_def.h"').replace(
        'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})\n'
        '            .Format({ge::FORMAT_ND, ge::FORMAT_ND});',
        'this->Output("y").ParamType(REQUIRED).Follow("x");'))
    assert 'Follow("x")' in source.read_text()
    for folder, text in (("arch22", 'extern "C" int clamp_scale_arch = 22;\n'),
                         ("arch35", "#error the Ascend 950's tiling\n"),
                         ("op_api", "#error the aclnn API\n")):
        (host / folder).mkdir()
        (host / folder / f"clamp_scale_tiling_{folder}.cpp").write_text(text)
    (host / "arch22" / "clamp_scale_helper.cpp").write_text("#error not a tiling source\n")
    (project / "CMakeLists.txt").write_text(
        'set(SUPPORT_COMPUTE_UNIT "ascend950" "ascend910b")\n'
        'set(SUPPORT_TILING_DIR "arch35" "arch22")\n'
        "add_all_modules_sources(OPTYPE clamp_scale ACLNNTYPE aclnn_exclude\n"
        "    COMPUTE_UNIT ${SUPPORT_COMPUTE_UNIT} TILING_DIR ${SUPPORT_TILING_DIR})\n")
    work = imported(tmp_path, monkeypatch, project)
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert [(t["name"], t["dtype"], t["format"]) for t in spec["output_desc"]] == [
        ("y", ["float", "float16"], ["ND", "ND"])]
    kernel = spec["kernel"]
    assert kernel["op_host"] == ["../../clamp_scale/op_host/arch22/clamp_scale_tiling_arch22.cpp",
                                 "../../clamp_scale/op_host/clamp_scale.cpp"]
    assert kernel["tiling_header"] == "../../clamp_scale/op_host/clamp_scale_tiling_def.h"
    assert_clamps(work, 256)


def test_a_host_only_tiling_header_gives_the_kernel_its_blocks_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An operator library's tiling header includes host-only headers, declares host helpers
    and registers its struct once per tiling key (ops-math's histogram_v2, add_lora): the
    kernel is built, as CANN builds it, with the tiling blocks and default registration only."""
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    header = project / "op_host" / "clamp_scale_tiling.h"
    text = header.read_text()
    text = text.replace('#include "register/tilingdata_base.h"\n',
                        '#include "register/tilingdata_base.h"\n#include <map>\n#include <string>\n'
                        '#include "clamp_scale_host_helper.h"\n')
    text = text.replace("REGISTER_TILING_DATA_CLASS(ClampScale, ClampScaleTiling)\n",
                        "REGISTER_TILING_DATA_CLASS(ClampScale, ClampScaleTiling)\n"
                        "BEGIN_TILING_DATA_DEF(ClampScaleKeyed)\n"
                        "TILING_DATA_FIELD_DEF(uint64_t, other);\nEND_TILING_DATA_DEF;\n"
                        "REGISTER_TILING_DATA_CLASS(ClampScale_101, ClampScaleKeyed)\n"
                        "REGISTER_TILING_DATA_CLASS(ClampScale_102, ClampScaleKeyed)\n"
                        "class ClampScaleHostPlanner {\n"
                        "public:\n    std::map<std::string, int> plans;\n"
                        "    constexpr static int kUnused = 3;\n};\n")
    header.write_text(text)
    (project / "op_host" / "clamp_scale_host_helper.h").write_text(
        "#pragma once\n#include <string>\nnamespace optiling {\n"
        "inline std::string ClampScaleName() { return \"ClampScale\"; }\n}\n")
    work = imported(tmp_path, monkeypatch, project)
    assert_clamps(work, 256)


@pytest.mark.parametrize("need_atomic", [True, False])
def test_an_init_value_output_is_cleared_before_the_launch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, need_atomic: bool) -> None:
    """An output declared with InitValue(0) is cleared before the launch when the TilingFunc
    sets SetNeedAtomic(true) (reference "InitValue"; ops-math's cholesky, histogram_v2): here a
    kernel that adds its result into y twice, atomically, over device memory left dirty."""
    import opgen_runtime.registry as registry

    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    host = project / "op_host" / "clamp_scale.cpp"
    text = host.read_text().replace(
        'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})\n'
        '            .Format({ge::FORMAT_ND, ge::FORMAT_ND});',
        'this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})\n'
        '            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).InitValue(0);')
    if need_atomic:
        text = text.replace("    ctx->SetBlockDim(blocks);\n",
                            "    ctx->SetBlockDim(blocks);\n    ctx->SetNeedAtomic(true);\n")
    host.write_text(text)
    assert "InitValue(0)" in text and ("SetNeedAtomic" in text) == need_atomic
    kernel = project / "op_kernel" / "clamp_scale.cpp"
    kernel.write_text(kernel.read_text().replace(
        "            DataCopy(yGm_[done], b, n);\n",
        "            SetAtomicAdd<T>();\n            DataCopy(yGm_[done], b, n);\n"
        "            DataCopy(yGm_[done], b, n);\n            SetAtomicNone();\n"))
    work = imported(tmp_path, monkeypatch, project)
    reg = built_ops.registered(work, "clamp_scale")
    allocate = registry._ALLOC.at

    def dirty(nbytes: int, dtype: np.dtype, shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
        out, address = allocate(nbytes, dtype, shape)
        out.fill(7)
        return out, address

    monkeypatch.setattr(registry._ALLOC, "at", dirty)
    x = np.linspace(-20, 20, 256, dtype=np.float32)
    c = np.clip(x * np.float32(2.0), -6, 6)
    start = np.float32(0 if need_atomic else 7)  # cleared, or the memory as it was
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain=2.0), (start + c) + c)


def test_the_derived_tiling_header_keeps_blocks_registrations_and_named_constants(
        tmp_path: Path) -> None:
    from opgen_runtime.tiling_header import derived_text, needs_derived

    (tmp_path / "inner_def.h").write_text(
        '#include "register/tilingdata_base.h"\n'
        "constexpr uint32_t MAX_SLOTS = 4;\nconstexpr uint32_t UNRELATED = 9;\n"
        "namespace optiling {\nBEGIN_TILING_DATA_DEF(Inner)\n"
        "TILING_DATA_FIELD_DEF_ARR(uint32_t, MAX_SLOTS, slots);\nEND_TILING_DATA_DEF;\n}\n")
    outer = tmp_path / "outer_tiling.h"
    outer.write_text(
        '#include "inner_def.h"\n#include "op_host/tiling_base_class.h"\n'
        "namespace optiling {\n/* BEGIN_TILING_DATA_DEF(Commented) */\n"
        "BEGIN_TILING_DATA_DEF(Outer)\nTILING_DATA_FIELD_DEF_STRUCT(Inner, inner);\n"
        "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(OuterOp, Outer)\n"
        "REGISTER_TILING_DATA_CLASS(OuterOp_12, Outer)\n"
        "class Helper { void f() { int x = 1; } };\n}  // namespace optiling\n")
    assert needs_derived(outer) and not needs_derived(tmp_path / "inner_def.h")
    text = derived_text(outer)
    body = text.split('#include "register/tilingdata_base.h"\n', 1)[1]
    assert body.index("MAX_SLOTS = 4") < body.index("BEGIN_TILING_DATA_DEF(Inner)") < body.index(
        "BEGIN_TILING_DATA_DEF(Outer)") < body.index("REGISTER_TILING_DATA_CLASS(OuterOp, Outer)")
    for gone in ("UNRELATED", "OuterOp_12", "Commented", "Helper", "tiling_base_class"):
        assert gone not in body, gone
    assert "namespace optiling { BEGIN_TILING_DATA_DEF(Outer)" in body


def test_a_tiling_header_shared_by_several_ops_gives_each_kernel_its_own_struct(
        tmp_path: Path) -> None:
    """A header that registers structs for several op types (ops-nn's foreach_tiling_def.h,
    shared by 40 ops): CANN gives the kernel of an op the struct registered for its op type,
    so each op's derived header keeps its own registrations only."""
    from opgen_runtime.tiling_header import derived_text, needs_derived

    shared = tmp_path / "shared_tiling_def.h"
    shared.write_text(
        '#include "register/tilingdata_base.h"\nnamespace optiling {\n'
        "BEGIN_TILING_DATA_DEF(Common)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(Solo)\nTILING_DATA_FIELD_DEF(uint64_t, m);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(ForeachExp, Common)\n"
        "REGISTER_TILING_DATA_CLASS(ForeachLog, Common)\n"
        "REGISTER_TILING_DATA_CLASS(ForeachMulScalarInplace, Solo)\n}\n")
    assert needs_derived(shared)
    exp = derived_text(shared, "ForeachExp")
    assert "REGISTER_TILING_DATA_CLASS(ForeachExp, Common)" in exp
    assert "ForeachLog" not in exp and "ForeachMulScalarInplace" not in exp
    solo = derived_text(shared, "ForeachMulScalarInplace")
    assert "REGISTER_TILING_DATA_CLASS(ForeachMulScalarInplace, Solo)" in solo
    assert "ForeachExp" not in solo
    # both blocks stay (a kernel may name either struct)
    assert "BEGIN_TILING_DATA_DEF(Common)" in solo and "BEGIN_TILING_DATA_DEF(Solo)" in exp


def test_the_tiling_folder_without_a_map_is_the_one_that_is_not_arch35(tmp_path: Path) -> None:
    from opgen.msopgen_project import tiling_dir

    (tmp_path / "op_host").mkdir()
    assert tiling_dir(tmp_path) is None
    (tmp_path / "op_host" / "arch35").mkdir()
    assert tiling_dir(tmp_path) is None  # the Ascend 950's only
    (tmp_path / "op_host" / "arch32").mkdir()
    assert tiling_dir(tmp_path) == "arch32"
    (tmp_path / "op_host" / "arch22").mkdir()
    assert tiling_dir(tmp_path) is None  # two candidates and no map: neither is guessed
    (tmp_path / "CMakeLists.txt").write_text(
        'set(SUPPORT_COMPUTE_UNIT "ascend310p" "ascend910b" "ascend950")\n'
        'set(SUPPORT_TILING_DIR "arch22" "arch32" "arch35")\n')
    assert tiling_dir(tmp_path) == "arch32"


def test_import_of_a_directory_that_is_not_a_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import-msopgen", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("opgen: error: ") and "not an msopgen project" in err
    assert "Traceback" not in err


def test_output_shape_left_to_the_caller_needs_a_spec_rule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # CANN's aclnn-only samples register an InferShape that never sets the output's shape (the
    # aclnn caller passes the output): the registry takes the spec's rule, and without one says
    # so instead of guessing the first input's shape
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    host = project / "op_host" / "clamp_scale.cpp"
    text = host.read_text()
    setter = "    *ctx->GetOutputShape(0) = *ctx->GetInputShape(0);\n"
    assert setter in text
    host.write_text(text.replace(setter, "    (void)ctx->GetInputShape(0);\n"))
    work = imported(tmp_path, monkeypatch, project)
    reg = built_ops.registered(work, "clamp_scale")
    x = np.linspace(-20, 20, 96, dtype=np.float32).reshape(4, 24)
    with pytest.raises(OpCallError, match=(
            r"clamp_scale: the op_host gives no shape for output 'y' \(its InferShape does not "
            r"set it; an aclnn caller passes the output\); give 'y' an `infer:` rule")):
        reg.call("clamp_scale", x)

    spec_path = work / "specs" / "clamp_scale.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    spec["output_desc"][0]["infer"] = "same_as(x)"
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False))
    assert main(["generate"]) == 0
    reg = built_ops.registered(work, "clamp_scale")
    y = reg.call("clamp_scale", x, gain=2.0)
    assert y.shape == (4, 24)
    np.testing.assert_array_equal(y, np.clip(x * np.float32(2.0), -6, 6))


def test_import_of_a_cann9_layout_one_folder_per_op(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # CANN 9's projects keep each op in its own folder: op_host/<op>/<op>_host.cpp and
    # op_kernel/<op>/<op>_kernel.cpp (asc-devkit's 99_acl_based/00_acl_compilation/custom_op)
    sources = ROOT / "tests" / "acl" / "programs" / "npu_op"
    project = tmp_path / "custom_op"
    (project / "op_host" / "scale_add_custom").mkdir(parents=True)
    (project / "op_kernel" / "scale_add_custom").mkdir(parents=True)
    shutil.copy(sources / "scale_add_host.cpp", project / "op_host" / "scale_add_custom")
    shutil.copy(sources / "scale_add_tiling.h", project / "op_host" / "scale_add_custom")
    shutil.copy(sources / "scale_add_tiling.h", project / "op_kernel" / "scale_add_custom")
    shutil.copy(sources / "scale_add_kernel.cpp",
                project / "op_kernel" / "scale_add_custom" / "scale_add_custom_kernel.cpp")
    work = imported(tmp_path, monkeypatch, project)
    spec = yaml.safe_load((work / "specs" / "scale_add_custom.yaml").read_text())
    assert spec["kernel"] == {
        "source": "../../custom_op/op_kernel/scale_add_custom/scale_add_custom_kernel.cpp",
        "op_host": ["../../custom_op/op_host/scale_add_custom/scale_add_host.cpp"],
    }
    # its op_host registers no InferShape (an aclnn caller passes the output): the spec says
    spec_file = work / "specs" / "scale_add_custom.yaml"
    spec["output_desc"][0]["infer"] = "same_as(x)"
    spec_file.write_text(yaml.safe_dump(spec, sort_keys=False))
    reg = built_ops.registered(work, "scale_add_custom")
    x = np.linspace(-8, 8, 4096, dtype=np.float32).reshape(4, 1024)
    y = np.full((4, 1024), 3.0, np.float32)
    np.testing.assert_array_equal(reg.call("scale_add_custom", x, y, alpha=0.5),
                                  x * np.float32(0.5) + y)


MATMUL_FIXTURE = ROOT / "tests" / "fixtures" / "msopgen_matmul"


def test_imported_matmul_op_nests_tcubetiling_and_runs_as_a_mix_kernel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the op_host nests the Matmul API's TCubeTiling in its tiling data
    # (TILING_DATA_FIELD_DEF_STRUCT) and asks for one block: one AIC and two AIV cores, between
    # which GetTiling's two-core split divides C
    project = tmp_path / "MatMulBias"
    shutil.copytree(MATMUL_FIXTURE / "op_host", project / "op_host")
    shutil.copytree(MATMUL_FIXTURE / "op_kernel", project / "op_kernel")
    work = imported(tmp_path, monkeypatch, project)
    reg = built_ops.registered(work, "mat_mul_bias")
    rng = np.random.default_rng(3)
    for m, n, k in ((96, 80, 64), (300, 200, 96)):
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, n)).astype(np.float16)
        bias = rng.integers(-8, 9, n).astype(np.float32)
        y = reg.call("mat_mul_bias", a, b, bias, scale=0.5)
        want = (a.astype(np.float32) @ b.astype(np.float32) + bias) * np.float32(0.5)
        np.testing.assert_array_equal(y, want)  # small integers and halves: exact


def test_an_op_whose_code_lies_in_a_dependency_and_whose_kernel_is_named_after_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CANN's operator libraries build every op's op_host into one library, and an op may call
    the code of an op its op_host/CMakeLists.txt names in DEPENDENCIES (ops-nn's swi_glu, the
    foreach ops); the kernel is named after the op's folder (ops-nn's ApplyAdamWV2 in
    apply_adam_w_v2/). The import takes the dependency's sources but its OpDef, looking beside
    the op and in the library's other folders, and names the op after its kernel."""
    lib = tmp_path / "lib"
    dep, op = lib / "common" / "clamp_utils", lib / "activation" / "clamp_scale_x"
    shutil.copytree(FIXTURE / "op_host", dep / "op_host")
    (dep / "op_kernel").mkdir()
    shutil.copytree(FIXTURE / "op_host", op / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", op / "op_kernel")
    kernel = op / "op_kernel" / "clamp_scale.cpp"
    kernel.rename(op / "op_kernel" / "clamp_scale_x.cpp")
    (op / "op_kernel" / "clamp_scale_x.cpp").write_text(
        kernel.with_name("clamp_scale_x.cpp").read_text().replace(
            "void clamp_scale(", "void clamp_scale_x("))
    source = (FIXTURE / "op_host" / "clamp_scale.cpp").read_text()
    ops_at = source.index("namespace ops {")
    # the dependency: the tiling and shape functions (no longer static), and an OpDef of its own
    (dep / "op_host" / "clamp_scale.cpp").unlink()
    (dep / "op_host" / "clamp_utils_tiling.cpp").write_text(
        source[:ops_at].replace("static ", ""))
    (dep / "op_host" / "clamp_utils_def.cpp").write_text(
        '#include "register/op_def_registry.h"\nnamespace ops {\n'
        "class ClampUtils : public OpDef {\npublic:\n"
        "    explicit ClampUtils(const char* name) : OpDef(name) {\n"
        '        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT})\n'
        "            .Format({ge::FORMAT_ND});\n"
        '        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT})\n'
        "            .Format({ge::FORMAT_ND});\n"
        '        this->AICore().AddConfig("ascend910b");\n    }\n};\nOP_ADD(ClampUtils);\n}\n')
    # the op: its OpDef alone, calling the dependency's functions
    (op / "op_host" / "clamp_scale.cpp").write_text(
        '#include "clamp_scale_tiling.h"\n#include "register/op_def_registry.h"\n'
        "namespace optiling { ge::graphStatus ClampScaleTilingFunc(gert::TilingContext* ctx); }\n"
        "namespace ge {\ngraphStatus ClampScaleInferShape(gert::InferShapeContext* ctx);\n"
        "graphStatus ClampScaleInferDataType(gert::InferDataTypeContext* ctx);\n}\n"
        + source[ops_at:])
    (op / "op_host" / "CMakeLists.txt").write_text(
        "add_modules_sources(OPTYPE ClampScale ACLNNTYPE aclnn\n"
        "                    DEPENDENCIES clamp_utils)\n")
    work = imported(tmp_path, monkeypatch, op)
    assert sorted(p.name for p in (work / "specs").glob("*.yaml")) == ["clamp_scale_x.yaml"]
    spec = yaml.safe_load((work / "specs" / "clamp_scale_x.yaml").read_text())
    assert spec["op_name"] == "clamp_scale_x" and spec["op_type"] == "ClampScale"
    assert [Path(p).name for p in spec["kernel"]["op_host"]] == [
        "clamp_scale.cpp", "clamp_utils_tiling.cpp"]
    reg = built_ops.registered(work, "clamp_scale_x")
    x = np.linspace(-20, 20, 4096, dtype=np.float32)
    np.testing.assert_array_equal(reg.call("clamp_scale_x", x, gain=2.0),
                                  np.clip(x * np.float32(2.0), -6, 6))


def test_a_kernel_including_another_op_s_kernel_through_cann_s_staged_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CANN's operator libraries copy each op's op_kernel/ into <build>/<op folder>/ before the
    kernel build, so a kernel includes another op's headers as "../<op>/x.h" (ops-nn's
    add_rms_norm, the foreach ops): the import stages that tree beside the spec (links to the
    kernel folders, found beside the op or in another category, and to those their own headers
    reach so) and puts it on the kernel's include path."""
    lib = tmp_path / "lib"
    op = lib / "norm" / "clamp_scale"
    shutil.copytree(FIXTURE / "op_host", op / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", op / "op_kernel")
    helpers, consts = lib / "norm" / "clamp_helpers", lib / "common_ops" / "clamp_consts"
    (helpers / "op_kernel").mkdir(parents=True)
    (consts / "op_kernel").mkdir(parents=True)
    (consts / "op_kernel" / "consts.h").write_text(
        "#pragma once\nconstexpr uint32_t kClampBlockBytes = 32;\n")
    (helpers / "op_kernel" / "clamp_math.h").write_text(
        '#pragma once\n#include "../clamp_consts/consts.h"\n'
        "template <typename T> constexpr uint32_t ElemsPerBlock() "
        "{ return kClampBlockBytes / sizeof(T); }\n")
    kernel = op / "op_kernel" / "clamp_scale.cpp"
    text = kernel.read_text()
    assert "constexpr uint32_t kBlock = 32 / sizeof(T);" in text
    kernel.write_text(text.replace(
        '#include "kernel_operator.h"\n',
        '#include "kernel_operator.h"\n#include "../clamp_helpers/clamp_math.h"\n').replace(
        "constexpr uint32_t kBlock = 32 / sizeof(T);",
        "constexpr uint32_t kBlock = ElemsPerBlock<T>();"))
    work = imported(tmp_path, monkeypatch, op)
    stage = work / "specs" / "clamp_scale.kernels"
    assert sorted(p.name for p in stage.iterdir()) == [
        "_", "clamp_consts", "clamp_helpers", "clamp_scale"]
    assert (stage / "clamp_helpers").resolve() == (helpers / "op_kernel").resolve()
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert spec["kernel"]["include_dirs"][0] == "clamp_scale.kernels/_"
    assert_clamps(work, 4096)
    # a second import keeps the staged tree as it is (and refuses the spec that exists)
    assert main(["import-msopgen", str(op)]) == 2
    assert (stage / "clamp_consts").resolve() == (consts / "op_kernel").resolve()


def test_an_output_named_like_its_input_is_that_input_s_buffer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CANN's ref outputs: an OpDef output named like an input (an optimizer's var, ops-nn's
    fused_sgd params) is the input's buffer. The import names it <input>_ref with `ref:`; the
    registry copies the input into the output and gives the kernel that one buffer for both, so
    the kernel updates it in place; the caller's array is untouched. The frameworks and aclnn
    refuse the op, naming the spec's line."""
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    source = project / "op_host" / "clamp_scale.cpp"
    text = source.read_text()
    assert 'this->Output("y")' in text
    source.write_text(text.replace('this->Output("y")', 'this->Output("x")'))
    kernel = project / "op_kernel" / "clamp_scale.cpp"
    text = kernel.read_text()
    assert "            DataCopy(yGm_[done], b, n);" in text
    kernel.write_text(text.replace(  # gain 3 writes nothing: the ref output keeps the input
        "            DataCopy(yGm_[done], b, n);",
        "            if (t_.gain != 3.0f) DataCopy(yGm_[done], b, n);"))
    work = imported(tmp_path, monkeypatch, project)
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert [(t["name"], t.get("ref")) for t in spec["output_desc"]] == [("x_ref", "x")]
    reg = built_ops.registered(work, "clamp_scale")
    x = np.linspace(-20, 20, 4096, dtype=np.float32)
    before = x.copy()
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain=2.0),
                                  np.clip(before * np.float32(2.0), -6, 6))
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(reg.call("clamp_scale", x, gain=3.0), before)
    text = next((work / "generated").rglob("torch/clamp_scale.py")).read_text()
    assert "opgen generates no PyTorch op for ref outputs" in text and "ref: x" in text


def test_a_shared_tiling_header_and_an_infer_shape_in_op_graph_are_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An op whose tiling struct is registered in a dependency's shared header (ops-nn's
    GemmaRmsNorm in rms_norm's rms_norm_tiling.h, ForeachExp in foreach_utils'
    foreach_tiling_def.h) and whose InferShape is in op_graph/ (IMPL_OP_INFERSHAPE, gemma's
    graph_infer.cpp): the import finds the header that registers the op type and builds the
    op_graph file with the op_host, as the op's own op_host registers no InferShape."""
    lib = tmp_path / "lib"
    dep, op = lib / "norm" / "clamp_common", lib / "norm" / "clamp_scale"
    shutil.copytree(FIXTURE / "op_kernel", op / "op_kernel")
    (dep / "op_host").mkdir(parents=True)
    (dep / "op_kernel").mkdir()
    (op / "op_host").mkdir(parents=True)
    (op / "op_graph").mkdir()
    header = (FIXTURE / "op_host" / "clamp_scale_tiling.h").read_text()
    (dep / "op_host" / "clamp_shared_tiling_def.h").write_text(header)
    source = (FIXTURE / "op_host" / "clamp_scale.cpp").read_text().replace(
        '"clamp_scale_tiling.h"', '"clamp_shared_tiling_def.h"')
    ge_at, ops_at = source.index("namespace ge {"), source.index("namespace ops {")
    (dep / "op_host" / "clamp_common_tiling.cpp").write_text(
        source[:ge_at].replace("static ", ""))
    (op / "op_host" / "clamp_scale_def.cpp").write_text(
        '#include "register/op_def_registry.h"\n#include "../../clamp_common/op_host/'
        'clamp_shared_tiling_def.h"\n'
        "namespace optiling { ge::graphStatus ClampScaleTilingFunc(gert::TilingContext* ctx); }\n"
        + source[ops_at:].replace(
            "        this->SetInferShape(ge::ClampScaleInferShape)"
            ".SetInferDataType(ge::ClampScaleInferDataType);\n", ""))
    (op / "op_graph" / "clamp_scale_graph_infer.cpp").write_text(
        '#include "register/op_impl_registry.h"\n' + source[ge_at:ops_at]
        + "namespace ge {\nIMPL_OP_INFERSHAPE(ClampScale).InferShape(ClampScaleInferShape)"
          ".InferDataType(ClampScaleInferDataType);\n}\n")
    (op / "op_host" / "CMakeLists.txt").write_text(
        "add_modules_sources(OPTYPE ClampScale DEPENDENCIES clamp_common)\n")
    work = imported(tmp_path, monkeypatch, op)
    spec = yaml.safe_load((work / "specs" / "clamp_scale.yaml").read_text())
    assert Path(spec["kernel"]["tiling_header"]).name == "clamp_shared_tiling_def.h"
    assert Path(spec["kernel"]["op_host"][-1]).name == "clamp_scale_graph_infer.cpp"
    assert_clamps(work, 4096)


def test_an_op_built_only_for_the_ascend_950_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """ops-nn's activations (gelu, sigmoid, softmax_v2, ...) register only the Ascend 950 in their
    OpDef, their kernels and tilings being that architecture's (op_kernel/arch35, op_host/
    arch35): the import says so, not that the op has no kernel."""
    project = tmp_path / "ClampScale"
    shutil.copytree(FIXTURE / "op_host", project / "op_host")
    shutil.copytree(FIXTURE / "op_kernel", project / "op_kernel")
    src = project / "op_host" / "clamp_scale.cpp"
    text = src.read_text()
    for soc in ("ascend910b", "ascend310p"):
        text = text.replace(f'AddConfig("{soc}")', 'AddConfig("ascend950")')
    src.write_text(text)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nspec_dir = "specs"\n')
    assert main(["import-msopgen", str(project)]) == 2
    err = capsys.readouterr().err
    assert "op ClampScale is built only for ascend950 (its OpDef's " \
           "AICore().AddConfig); the simulator runs kernels of ascend910b" in err
    assert "Traceback" not in err and not (tmp_path / "specs").exists()
