"""opgen_host/tiling_policy.h equals opgen_runtime's default tiling, byte for byte.

A small C harness (no TensorFlow) exposes the header's DefaultTiling through ctypes; random
layouts, shapes, dtypes, attrs and SoCs go through both and the packed structs, blockDim and
errors must agree."""

from __future__ import annotations

import ctypes
import random
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from opgen_runtime import TensorSpec, TilingError, TilingLayout, default_tiling, include_dir
from opgen_runtime.build import _compiler
from opgen_runtime.metadef import load as load_metadef

ROOT = Path(__file__).resolve().parents[2]

HARNESS = r"""
#include "opgen_host/tiling_policy.h"
#include <cstdlib>
#include <sstream>
#include <vector>
using namespace opgen_host;

static CType ParseCType(const std::string& s) {
    if (s == "bool") return CType::Bool;
    if (s == "int8_t") return CType::I8;
    if (s == "uint8_t") return CType::U8;
    if (s == "int16_t") return CType::I16;
    if (s == "uint16_t") return CType::U16;
    if (s == "int32_t") return CType::I32;
    if (s == "uint32_t") return CType::U32;
    if (s == "int64_t") return CType::I64;
    if (s == "uint64_t") return CType::U64;
    if (s == "float") return CType::F32;
    if (s == "double") return CType::F64;
    return CType::F16;
}

// fields: "name ctype offset array_len;..."  tensors: "camel is_input present itemsize d0,d1;"
// attrs: "name camel kind v0,v1;" (kind i: int, f: float, b: bool, I: ints, F: floats)
extern "C" __attribute__((visibility("default"))) int fill(
    const char* fields_s, const char* tensors_s, const char* attrs_s, const char* soc,
    long long forced, int size, unsigned char* out, int64_t* block_dim, char* err, int cap) {
    std::vector<std::string> keep;
    keep.reserve(1000);
    auto split = [](const std::string& s, char c) {
        std::vector<std::string> v; std::string cur; std::istringstream is(s);
        while (std::getline(is, cur, c)) if (!cur.empty()) v.push_back(cur);
        return v;
    };
    std::vector<FieldDesc> fields;
    for (auto& f : split(fields_s, ';')) {
        std::istringstream is(f); std::string name, ctype; unsigned off; int n;
        is >> name >> ctype >> off >> n;
        keep.push_back(name); const char* pn = keep.back().c_str();
        keep.push_back(ctype); const char* pc = keep.back().c_str();
        fields.push_back({pn, ParseCType(ctype), pc, off, n});
    }
    std::vector<std::vector<int64_t>> dims(64);
    std::vector<TensorArg> tensors;
    for (auto& t : split(tensors_s, ';')) {
        std::istringstream is(t); std::string camel, ds; int in, present; long long item;
        is >> camel >> in >> present >> item >> ds;
        auto& d = dims[tensors.size()];
        for (auto& x : split(ds, ',')) if (x != "_") d.push_back(std::atoll(x.c_str()));
        keep.push_back(camel);
        tensors.push_back({keep.back().c_str(), in != 0, present != 0, item, d.data(),
                           (int32_t)d.size()});
    }
    std::vector<std::vector<int64_t>> ints(64);
    std::vector<std::vector<double>> floats(64);
    std::vector<AttrArg> attrs;
    for (auto& a : split(attrs_s, ';')) {
        std::istringstream is(a); std::string name, camel, kind, vs;
        is >> name >> camel >> kind >> vs;
        size_t k = attrs.size();
        for (auto& x : split(vs, ',')) { ints[k].push_back(std::atoll(x.c_str()));
                                         floats[k].push_back(std::atof(x.c_str())); }
        Value v;
        if (kind == "i") v = Value::Int(ints[k][0]);
        else if (kind == "f") v = Value::Float(floats[k][0]);
        else if (kind == "b") v = Value::Bool(ints[k][0] != 0);
        else if (kind == "I") v = Value::Ints(ints[k].data(), (int32_t)ints[k].size());
        else v = Value::Floats(floats[k].data(), (int32_t)floats[k].size());
        keep.push_back(name); const char* pn = keep.back().c_str();
        keep.push_back(camel);
        attrs.push_back({pn, keep.back().c_str(), v});
    }
    const SocProfile* p = FindSoc(soc);
    std::string e = DefaultTiling("S", fields.data(), (int)fields.size(), (size_t)size,
                                  tensors.data(), (int)tensors.size(), attrs.data(),
                                  (int)attrs.size(), *p, forced, out, block_dim);
    std::snprintf(err, (size_t)cap, "%s", e.c_str());
    return e.empty() ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Any:
    d = tmp_path_factory.mktemp("policy")
    src = d / "harness.cpp"
    src.write_text(HARNESS)
    lib = d / "harness.so"
    subprocess.run([_compiler(), "-O1", "-std=c++17", "-shared", "-fPIC", f"-I{include_dir()}",
                    str(src), "-o", str(lib)], check=True)
    cdll = ctypes.CDLL(str(lib))
    cdll.fill.restype = ctypes.c_int
    cdll.fill.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                          ctypes.c_longlong, ctypes.c_int, ctypes.c_char_p,
                          ctypes.POINTER(ctypes.c_longlong), ctypes.c_char_p, ctypes.c_int]
    return cdll.fill


def _cpp(fill: Any, layout: TilingLayout, inputs: dict[str, TensorSpec | None],
         outputs: dict[str, TensorSpec], attrs: dict[str, Any], soc: str,
         block_dim: int | None) -> tuple[int, bytes] | str:
    fields = ";".join(f"{f.name} {f.ctype} {f.offset} {f.array_len or -1}"
                      for f in layout.fields)

    def camel(n: str) -> str:
        head, *rest = n.split("_")
        return head + "".join(p[:1].upper() + p[1:] for p in rest)

    def tensor(n: str, t: TensorSpec | None, is_in: bool) -> str:
        dims = ",".join(str(d) for d in t.shape) if t is not None and t.shape else "_"
        item = np.dtype(t.dtype).itemsize if t is not None else 4
        return f"{camel(n)} {int(is_in)} {int(t is not None)} {item} {dims}"

    tensors = ";".join([tensor(n, t, True) for n, t in inputs.items()]
                       + [tensor(n, t, False) for n, t in outputs.items()])
    parts = []
    for n, v in attrs.items():
        if isinstance(v, bool):
            parts.append(f"{n} {camel(n)} b {int(v)}")
        elif isinstance(v, int):
            parts.append(f"{n} {camel(n)} i {v}")
        elif isinstance(v, float):
            parts.append(f"{n} {camel(n)} f {v!r}")
        elif all(isinstance(x, int) for x in v):
            parts.append(f"{n} {camel(n)} I {','.join(map(str, v))}")
        else:
            parts.append(f"{n} {camel(n)} F {','.join(repr(x) for x in v)}")
    out = ctypes.create_string_buffer(layout.size)
    bd = ctypes.c_longlong(0)
    err = ctypes.create_string_buffer(1024)
    forced = -(2**63) if block_dim is None else block_dim
    rc = fill(fields.encode(), tensors.encode(), ";".join(parts).encode(), soc.encode(), forced,
              layout.size, out, ctypes.byref(bd), err, 1024)
    if rc:
        return err.value.decode()
    return bd.value, out.raw


def _python(layout: TilingLayout, inputs: dict[str, TensorSpec | None],
            outputs: dict[str, TensorSpec], attrs: dict[str, Any], soc: str,
            block_dim: int | None) -> tuple[int, bytes] | str:
    try:
        bd, values = default_tiling(layout, inputs, outputs, attrs, soc, block_dim=block_dim)
        return bd, layout.pack(values)
    except (TilingError, OverflowError) as exc:  # struct.pack('<e') overflows: OverflowError
        return str(exc)


DTYPES = ("float32", "float16", "int8", "int32", "float64", "int64")
POLICY = ("totalLength", "blockLength", "tileNum", "tileLength", "tailLength", "blockDim",
          "rows", "cols", "outerSize", "axisSize", "rank")
CTYPES = ("uint32_t", "int32_t", "int64_t", "uint64_t", "uint16_t", "int8_t", "float", "half",
          "double", "bool")


def _case(rng: random.Random) -> tuple[Any, ...]:
    rank = rng.randint(0, 5)
    shape = tuple(rng.choice((1, 2, 3, 7, 16, 33, 100, 1000, 4096)) for _ in range(rank))
    if rng.random() < 0.1:
        shape = (*shape[:-1], 0) if shape else (0,)
    dt = rng.choice(DTYPES)
    inputs: dict[str, TensorSpec | None] = {"x": TensorSpec(shape, dt)}
    if rng.random() < 0.5:
        inputs["gamma_beta"] = (TensorSpec(shape[-1:], rng.choice(DTYPES))
                                if rng.random() < 0.6 else None)
    outputs = {"y": TensorSpec(shape, rng.choice(DTYPES))}
    if rng.random() < 0.3:
        outputs["grad_out"] = TensorSpec((*shape[:-1], 1) if shape else (), "float32")
    attrs: dict[str, Any] = {"negative_slope": rng.choice((0.01, 0.2, 2.0, -1.5)),
                             "axis": rng.choice((-1, 0, 1)), "keep": rng.random() < 0.5,
                             "axes": [rng.randint(-3, 3) for _ in range(rng.randint(0, 3))]}
    names = list(rng.sample(POLICY, rng.randint(0, len(POLICY))))
    names += ["xShape", "xRank", "yShape", "yRank", "negativeSlope", "axis", "keep", "axes"]
    if "gamma_beta" in inputs:
        names += ["gammaBetaPresent", "gammaBetaShape"]
    rng.shuffle(names)
    decls: list[tuple[str, str, int | None]] = []
    for n in names[: rng.randint(1, len(names))]:
        if n.endswith("Shape") or n == "axes":
            decls.append((n, rng.choice(("int64_t", "uint32_t", "int32_t")), rng.choice((4, 8))))
        elif n == "negativeSlope":
            decls.append((n, rng.choice(("float", "half", "double", "int32_t")), None))
        else:
            decls.append((n, rng.choice(CTYPES), None))
    layout = TilingLayout.from_fields("S", decls)
    soc = rng.choice(("ascend910b", "ascend310p"))
    block_dim = rng.choice((None, None, 1, 3, 64))
    return layout, inputs, outputs, attrs, soc, block_dim


def test_examples_and_random_cases_agree(harness: Any) -> None:
    rng = random.Random(20240611)
    cases = [_case(rng) for _ in range(1500)]
    # the example kernels' own layouts, at a few shapes
    for path in sorted((ROOT / "generated" / "metadef").glob("*.json")):
        if path.name == "index.json":
            continue
        op = load_metadef(path)
        t = op.tiling
        if not t:
            continue
        layout = TilingLayout.from_fields(
            t["struct"], [(f["name"], f["ctype"], f.get("array_len")) for f in t["fields"]])
        for shape in ((16,), (1 << 20,), (3, 5, 7), (4096, 33)):
            ins: dict[str, TensorSpec | None] = {
                x.name: TensorSpec(shape if i == 0 else shape[-1:], "float32")
                for i, x in enumerate(op.inputs)}
            outs = {x.name: TensorSpec(shape, "float32") for x in op.outputs}
            attrs = {a.name: (a.default if a.type != "type" else 1) for a in op.attrs}
            cases.append((layout, ins, outs, attrs, "ascend910b", None))
    errors = 0
    for layout, ins, outs, attrs, soc, bd in cases:
        want = _python(layout, ins, outs, attrs, soc, bd)
        got = _cpp(harness, layout, ins, outs, attrs, soc, bd)
        if isinstance(want, str):
            errors += 1
            assert isinstance(got, str), (layout, ins, outs, attrs, want)
            continue
        assert got == want, (layout, ins, outs, attrs, soc, bd)
    assert 0 < errors < len(cases) // 2  # both paths were exercised


def test_the_last_tensor_or_attr_of_a_name_wins(harness: Any) -> None:
    """Names that meet in lowerCamelCase (a_b and aB) resolve as default_tiling's dicts do."""
    layout = TilingLayout.from_fields(
        "S", [("fooBar", "int32_t"), ("aBRank", "int32_t"), ("aBShape", "int64_t", 4)])
    inputs: dict[str, TensorSpec | None] = {"a_b": TensorSpec((3,), "float32")}
    outputs = {"aB": TensorSpec((2, 5), "float32")}
    attrs = {"foo_bar": 1, "fooBar": 2}
    _, values = default_tiling(layout, inputs, outputs, attrs)
    assert (values["fooBar"], values["aBRank"], values["aBShape"]) == (2, 2, [2, 5, 1, 1])
    want = _python(layout, inputs, outputs, attrs, "ascend910b", None)
    assert _cpp(harness, layout, inputs, outputs, attrs, "ascend910b", None) == want
