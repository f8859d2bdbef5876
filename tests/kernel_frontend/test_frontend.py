"""Kernel frontend: parsing real-looking kernels, the layout, the cache and `generate`."""

from __future__ import annotations

import ctypes
import json
import shutil
import time
from pathlib import Path

import pytest

from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.kernel_frontend import (
    ParseCache,
    TilingStruct,
    TilingStyle,
    check_kernel,
    default_display,
    parse_kernel,
)
from opgen.load import load_file
from opgen.model import OpSpec
from opgen.project import Config
from opgen.validate import build_spec
from opgen.writer import BANNER

HERE = Path(__file__).parent
KERNELS = HERE / "kernels"
REPO = HERE.parents[1]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test parses into its own cache, never the user's."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("opgen-cache")))


def spec_of(path: Path, root: Path) -> OpSpec:
    sink = DiagnosticSink()
    spec = build_spec(load_file(path, path.relative_to(root).as_posix()), sink,
                      spec_dir=str(path.parent))
    assert spec is not None and not sink.has_errors, [str(d) for d in sink]
    return spec


def parse(path: Path, root: Path = KERNELS):  # type: ignore[no-untyped-def]
    result = parse_kernel(path, default_display(root))
    assert result.info.diagnostics == ()
    return result


def test_add_custom_sample() -> None:
    info = parse(KERNELS / "add_custom.cpp").info
    (entry,) = info.entries
    assert entry.name == "add_custom" and entry.c_linkage and entry.is_global
    assert [(p.name, p.type, p.is_gm_addr) for p in entry.params] == [
        (n, "GM_ADDR", True) for n in ("x", "y", "z", "workspace", "tiling")]
    assert [(r.macro, r.struct) for r in entry.tiling_refs] == [
        ("REGISTER_TILING_DEFAULT", "AddCustomTilingData"), ("GET_TILING_DATA", None)]
    assert entry.loc.path == "add_custom.cpp" and entry.loc.line == 48
    checked, diags = check_kernel(spec_of(KERNELS / "add_custom.yaml", KERNELS), info)
    assert diags == () and checked is not None and checked.tiling is not None
    assert checked.tiling.name == "AddCustomTilingData"
    assert [(f.name, f.ctype, f.offset) for f in checked.tiling.fields] == [
        ("totalLength", "uint32_t", 0), ("tileNum", "uint32_t", 4)]


def test_macros_namespaces_templates_several_kernels_and_std_headers() -> None:
    result = parse(KERNELS / "mixed.cpp")
    info = result.info
    assert [e.name for e in info.entries] == ["mixed", "mixed_grad", "mixed_v2"]
    mixed = info.entries[0]
    assert [p.name for p in mixed.params] == ["x", "z", "workspace", "tiling"]
    # Tokens in comments and string literals are not macro uses.
    assert [(r.macro, r.struct) for r in mixed.tiling_refs] == [
        ("GET_TILING_DATA_WITH_STRUCT", "MixTilingData")]
    assert all(e.c_linkage for e in info.entries)
    assert ("Slope", info.functions[0][1]) == info.functions[0]
    assert any(d.endswith("common_tiling.h") for d in result.dependencies)
    assert any(d.endswith("cmath") for d in result.dependencies)
    s = info.struct("MixTilingData")
    assert s is not None and s.qualified_name == "demo::MixTilingData"
    assert s.loc.path == "include/common_tiling.h"
    assert (s.size, s.align) == (80, 8)
    checked, diags = check_kernel(spec_of(KERNELS / "mixed.yaml", KERNELS), info)
    assert diags == (), [str(d) for d in diags]
    assert checked is not None and checked.tiling is s


def test_the_fallback_parse_sees_a_forced_tiling_headers_classes_at_global_scope(
        tmp_path: Path) -> None:
    """A kernel parsed again with the simulator's headers still sees the forced op_host tiling
    header's namespace optiling classes unqualified, as the build does (ops-math's
    transform_bias_rescale_qkv: its member of type <Op>TilingData)."""
    header = tmp_path / "op_host" / "fwd_tiling.h"
    header.parent.mkdir()
    header.write_text("#pragma once\n#include <cstdint>\n"
                      "namespace optiling { struct FwdTilingData { uint32_t n; }; }\n")
    src = tmp_path / "fwd.cpp"
    src.write_text(
        '#include "kernel_operator.h"\n'
        "class Worker {\n"
        "    event_t ev_ = EVENT_ID3;\n"
        "    FwdTilingData tiling_{};\n"
        "};\n"
        'extern "C" __global__ __aicore__ void fwd(GM_ADDR x, GM_ADDR workspace, '
        "GM_ADDR tiling) {}\n")
    result = parse_kernel(src, default_display(tmp_path), defines=[f"@include={header}"])
    assert result.info.diagnostics == (), [str(d) for d in result.info.diagnostics]
    (entry,) = result.info.entries
    assert entry.name == "fwd"
    # without the forced header the name is unknown there too: a located error
    alone = parse_kernel(src, default_display(tmp_path))
    assert alone.info.diagnostics
    assert "FwdTilingData" in alone.info.diagnostics[0].message
    assert str(alone.info.diagnostics[0].loc).startswith("fwd.cpp:4:")


def test_old_macro_style_in_a_header() -> None:
    info = parse(KERNELS / "macro" / "scale_add.cpp", KERNELS / "macro").info
    assert info.registered == (("REGISTER_TILING_DATA_CLASS:ScaleAdd",
                                "optiling::ScaleAddTilingData"),)
    spec = spec_of(KERNELS / "macro" / "scale_add.yaml", KERNELS / "macro")
    checked, diags = check_kernel(spec, info)
    assert diags == () and checked is not None and checked.tiling is not None
    assert checked.tiling.style is TilingStyle.MACRO
    assert checked.tiling.field("xShape") is not None


_CTYPES = {"int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8, "int16_t": ctypes.c_int16,
           "uint16_t": ctypes.c_uint16, "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32,
           "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64, "float": ctypes.c_float,
           "bool": ctypes.c_bool, "half": ctypes.c_uint16}


def as_ctypes(s: TilingStruct) -> type[ctypes.Structure]:
    fields = []
    for f in s.fields:
        assert f.ctype is not None
        base = _CTYPES[f.ctype]
        fields.append((f.name, base * f.array_len if f.array_len is not None else base))
    return type(s.name, (ctypes.Structure,), {"_fields_": fields})


@pytest.mark.parametrize("kernel", ["add_custom.cpp", "mixed.cpp", "macro/scale_add.cpp"])
def test_layout_matches_ctypes(kernel: str) -> None:
    info = parse(KERNELS / kernel, (KERNELS / kernel).parent).info
    for s in info.structs:
        if any(f.ctype is None for f in s.fields):
            continue
        cs = as_ctypes(s)
        for f in s.fields:
            assert getattr(cs, f.name).offset == f.offset, (s.name, f.name)
        # alignas(8) on MixTilingData is beyond ctypes; without it the sizes agree.
        if s.align == ctypes.alignment(cs):
            assert ctypes.sizeof(cs) == s.size


@pytest.mark.parametrize("kernel", ["add_custom.cpp", "mixed.cpp", "macro/scale_add.cpp"])
def test_layout_matches_the_runtime_tiling_layout(kernel: str) -> None:
    tiling = pytest.importorskip("opgen_runtime.tiling")
    info = parse(KERNELS / kernel, (KERNELS / kernel).parent).info
    for s in info.structs:
        if any(f.ctype is None for f in s.fields):
            continue
        decls = [(f["name"], f["ctype"], f["array_len"]) for f in s.layout_json()["fields"]]
        layout = tiling.TilingLayout.from_fields(s.name, decls)
        assert [f.offset for f in layout.fields] == [f.offset for f in s.fields]
        if s.align == ctypes.alignment(as_ctypes(s)):  # ctypes cannot express alignas
            assert layout.size == s.size


@pytest.mark.parametrize("kernel", sorted(p.name for p in (REPO / "specs").glob("*.cpp")))
def test_repository_kernels_parse_cleanly(kernel: str) -> None:
    result = parse_kernel(REPO / "specs" / kernel, default_display(REPO))
    assert [str(d) for d in result.info.diagnostics] == []


def test_parse_is_fast() -> None:
    path = KERNELS / "add_custom.cpp"
    parse(path)
    start = time.perf_counter()
    for _ in range(10):
        parse(path)
    assert (time.perf_counter() - start) / 10 < 0.05  # ~3 ms on a laptop; generous for CI


def test_cache_hits_and_invalidates_on_an_included_header(tmp_path: Path) -> None:
    shutil.copytree(KERNELS, tmp_path / "k")
    kernel = tmp_path / "k" / "mixed.cpp"
    show = default_display(tmp_path / "k")
    first = ParseCache(tmp_path / "cache")
    info = first.parse(kernel, show)
    assert (first.hits, first.misses) == (0, 1)
    again = ParseCache(tmp_path / "cache")
    assert again.parse(kernel, show) == info
    assert (again.hits, again.misses) == (1, 0)
    header = tmp_path / "k" / "include" / "common_tiling.h"
    header.write_text(header.read_text().replace("uint16_t xRank;", "uint32_t xRank;"))
    changed = again.parse(kernel, show)
    assert again.misses == 1
    s = changed.struct("MixTilingData")
    assert s is not None and s.field("xRank") is not None
    assert s.field("xRank").ctype == "uint32_t"  # type: ignore[union-attr]


def test_clang_errors_are_not_cached(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cpp"
    bad.write_text('#include "kernel_operator.h"\nstruct A { int x };\n')
    cache = ParseCache(tmp_path / "cache")
    for _ in range(2):
        info = cache.parse(bad, default_display(tmp_path))
        assert [str(d) for d in info.diagnostics] == [
            "bad.cpp:2:17: error: expected ';' at end of declaration list"]
    assert cache.misses == 2


def _project(tmp_path: Path) -> Config:
    root = tmp_path / "proj"
    shutil.copytree(KERNELS / "macro", root / "specs")
    shutil.copy(KERNELS / "mixed.cpp", root / "specs" / "mixed.cpp")
    shutil.copy(KERNELS / "mixed.yaml", root / "specs" / "mixed.yaml")
    shutil.copytree(KERNELS / "include", root / "specs" / "include")
    return Config(root=root, spec_dir=root / "specs", output_dir=root / "generated",
                  package="opgen_ops", namespace="opgen")


def test_generate_emits_tiling_header_and_layout(tmp_path: Path) -> None:
    config = _project(tmp_path)
    cache = ParseCache(tmp_path / "cache")
    sink = DiagnosticSink()
    result = gen.run(config, [], sink, cache=cache)
    assert result is not None, [str(d) for d in sink]
    out = config.output_dir
    macro_h = (out / "cann/op_host/scale_add_tiling.h").read_text()
    struct_h = (out / "cann/op_host/mixed_tiling.h").read_text()
    assert macro_h.startswith(f"// {BANNER} from specs/scale_add.yaml.")
    assert "TILING_DATA_FIELD_DEF_ARR(int64_t, 8, xShape);" in macro_h
    assert "REGISTER_TILING_DATA_CLASS(ScaleAdd, ScaleAddTilingData)" in macro_h
    assert "tiling.set_alpha(value);" in macro_h
    assert 'args.AddAttr("alpha", "alpha", attrs->GetFloat(0));' in macro_h
    assert "static_assert(offsetof(MixTilingData, negativeSlope) == 76" in struct_h
    assert 'addTensor("x", true, context->GetOptionalInputShape(0), ' \
           "context->GetOptionalInputDesc(0));" in struct_h
    assert '{"xPresent", ::opgen_host::CType::U8, "uint8_t", 4, -1},' in struct_h
    assert (out / "cann/op_host/opgen_tiling_policy.h").is_file()
    layout = json.loads((out / "metadef/mixed.json").read_text())["tiling"]
    assert layout["struct"] == "MixTilingData" and layout["size"] == 80
    assert layout["fields"][4] == {"name": "xShape", "ctype": "int64_t", "offset": 8,
                                   "array_len": 8}
    # A second run takes every kernel from the parse cache and changes nothing...
    again = ParseCache(tmp_path / "cache")
    second = gen.run(config, [], DiagnosticSink(), cache=again, incremental=False)
    assert second is not None and not second.plan.changed
    assert (again.hits, again.misses) == (2, 0)
    # ...and with the generate cache (the default) it does not even look at the kernels.
    gen.run(config, [], DiagnosticSink(), cache=ParseCache(tmp_path / "cache"))
    third = ParseCache(tmp_path / "cache")
    assert gen.run(config, [], DiagnosticSink(), cache=third) is not None
    assert (third.hits, third.misses) == (0, 0)


def test_tiling_hook_allows_any_field(tmp_path: Path) -> None:
    config = _project(tmp_path)
    spec_path = config.spec_dir / "scale_add.yaml"
    spec_path.write_text(spec_path.read_text().replace(
        "reference:", "kernel:\n  tiling_hook: my_tiling:fill\nreference:"))
    header = config.spec_dir / "scale_add_tiling.h"
    header.write_text(header.read_text().replace("TILING_DATA_FIELD_DEF(float, alpha);",
                                                 "TILING_DATA_FIELD_DEF(uint32_t, chunk);"))
    sink = DiagnosticSink()
    assert gen.run(config, [], sink, cache=ParseCache(tmp_path / "cache")) is not None
    text = (config.output_dir / "cann/op_host/scale_add_tiling.h").read_text()
    assert "ScaleAddDefaultTiling" not in text and "kernel.tiling_hook" in text


def test_a_kernel_using_more_than_the_stubs_parses_with_the_simulators_headers(
        tmp_path: Path) -> None:
    """The stubs declare what kernels commonly use outside function bodies; a kernel using more
    (an event id in a member initialiser, a HardEvent the stubs lack, a pipe_t constant) is
    parsed again with the simulator's own headers, which the build compiles it with: no error
    where the build has none (ops-math's transform_bias_rescale_qkv, add_lora)."""
    src = tmp_path / "more_api.cpp"
    src.write_text(
        '#include "kernel_operator.h"\n'
        "struct MoreApiTilingData { uint32_t n; };\n"
        "REGISTER_TILING_DEFAULT(MoreApiTilingData);\n"
        "class Worker {\n"
        "    event_t ev_ = EVENT_ID3;\n"
        "    AscendC::HardEvent flag_ = AscendC::HardEvent::FIX_MTE2;\n"
        "    pipe_t pipe_ = PIPE_S;\n"
        "    AscendC::TPipe* owner_ = nullptr;\n"
        "};\n"
        'extern "C" __global__ __aicore__ void more_api(GM_ADDR x, GM_ADDR workspace, '
        "GM_ADDR tiling) {}\n")
    info = parse(src, tmp_path).info
    (entry,) = info.entries
    assert entry.name == "more_api" and entry.is_global
    assert "MoreApiTilingData" in [s.name for s in info.structs]
    # a kernel with a real error is still reported, located in the kernel
    bad = tmp_path / "bad.cpp"
    bad.write_text(src.read_text().replace("EVENT_ID3", "EVENT_ID_NOT_A_THING"))
    result = parse_kernel(bad, default_display(tmp_path))
    assert result.info.diagnostics and "EVENT_ID_NOT_A_THING" in result.info.diagnostics[0].message
