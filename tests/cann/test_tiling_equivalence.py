"""The CANN host tiling and the runtime's tiling are one policy: proven case by case.

For every example op (and the frontend's test kernels: a macro-style struct, a `half` field, an
op whose only input is optional), the generated `op_host/<stem>_tiling.h` is compiled with g++
against the stub CANN context (tests/cann_stubs, header-only) and the driver in
tests/cann/harness/; its `<OpType>DefaultTiling` runs on hundreds of random cases (shapes of
rank 0-5 and some too long for their array, every dtype column of the spec, attr values, absent
optional inputs, UB sizes and core counts of the known SoCs and random ones). Each result must
equal `opgen_runtime.default_tiling` exactly: the same blockDim and the same value in every
field, or a failure exactly where the runtime raises TilingError.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ROOT
from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.emit.cann_naming import file_stem
from opgen.kernel_frontend import ParseCache
from opgen.project import Config

rt = pytest.importorskip("opgen_runtime")
from opgen_runtime.errors import TilingError  # noqa: E402
from opgen_runtime.metadef import OpDef, load  # noqa: E402
from opgen_runtime.shapes import ShapeRuleError, infer_shape  # noqa: E402
from opgen_runtime.soc import SOC_PROFILES, SocProfile  # noqa: E402
from opgen_runtime.tiling import TensorSpec, TilingLayout, default_tiling  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

STUBS = ROOT / "tests" / "cann_stubs"
HARNESS = ROOT / "tests" / "cann" / "harness"
FRONTEND_KERNELS = ROOT / "tests" / "kernel_frontend" / "kernels"
CASES_PER_OP = 400


@dataclass(frozen=True)
class Op:
    opdef: OpDef
    header: Path  # generated op_host/<stem>_tiling.h

    @property
    def layout(self) -> TilingLayout:
        t = self.opdef.tiling
        assert t is not None
        return TilingLayout.from_fields(
            t["struct"], [(f["name"], f["ctype"], f.get("array_len")) for f in t["fields"]])


def _ops(output_dir: Path) -> list[Op]:
    ops = []
    for path in sorted((output_dir / "metadef").glob("*.json")):
        opdef = load(path)
        header = output_dir / "cann" / "op_host" / f"{file_stem(opdef.op_type)}_tiling.h"
        if opdef.tiling and "DefaultTiling" in header.read_text():
            ops.append(Op(opdef, header))
    return ops


@pytest.fixture(scope="module")
def frontend_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The frontend's test kernels generated into a scratch project."""
    root = tmp_path_factory.mktemp("proj")
    shutil.copytree(FRONTEND_KERNELS / "macro", root / "specs")
    for name in ("mixed.cpp", "mixed.yaml"):
        shutil.copy(FRONTEND_KERNELS / name, root / "specs" / name)
    shutil.copytree(FRONTEND_KERNELS / "include", root / "specs" / "include")
    config = Config(root=root, spec_dir=root / "specs", output_dir=root / "generated",
                    package="opgen_ops", namespace="opgen")
    sink = DiagnosticSink()
    cache = ParseCache(tmp_path_factory.mktemp("cache"))
    assert gen.run(config, [], sink, cache=cache, incremental=False) is not None, [
        str(d) for d in sink]
    return config.output_dir


def _all_ops(frontend_output: Path) -> list[Op]:
    return _ops(ROOT / "generated") + _ops(frontend_output)


EXAMPLES = [p.stem for p in sorted((ROOT / "generated" / "metadef").glob("*.json"))]


# -- cases ----------------------------------------------------------------------------------------
def _dim(rng: random.Random) -> int:
    return rng.choice([rng.randint(0, 3), rng.randint(1, 64), rng.randint(1, 700),
                       rng.randint(1, 9000), 1])


def _shape(rng: random.Random) -> tuple[int, ...]:
    rank = rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 9]) if rng.random() > 0.02 else 9
    while True:
        shape = tuple(_dim(rng) for _ in range(rank))
        if int(np.prod(shape, dtype=np.float64)) < 2**45:
            return shape


def _like(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape`: a suffix, some dims set to 1."""
    suffix = shape[rng.randint(0, len(shape)):] if shape else ()
    return tuple(1 if rng.random() < 0.3 else d for d in suffix)


def _soc(rng: random.Random) -> SocProfile:
    if rng.random() < 0.5:
        return rng.choice(sorted(SOC_PROFILES.values(), key=lambda s: s.name))
    return SocProfile("random", rng.randint(16, 512) * 1024, rng.randint(1, 64), "")


def _attr_value(rng: random.Random, kind: str) -> Any:
    if kind == "int":
        return rng.choice([rng.randint(-4, 4), rng.randint(-2**40, 2**40), -1])
    if kind == "float":  # float32-exact: CANN's RuntimeAttrs holds a float
        return float(np.float32(rng.choice([rng.uniform(-2, 2), rng.gauss(0, 1e3), 1e-5,
                                            rng.uniform(-60000, 60000)])))
    if kind == "bool":
        return rng.random() < 0.5
    return None


@dataclass(frozen=True)
class Case:
    soc: SocProfile
    inputs: dict[str, TensorSpec | None]
    outputs: dict[str, TensorSpec]
    attrs: dict[str, Any]  # as the runtime's registry passes them (type attrs: ge codes)
    line: str  # the driver's input line


def _cases(op: Op, seed: int) -> Iterator[Case]:
    rng = random.Random(seed)
    o = op.opdef
    made = 0
    while made < CASES_PER_OP:
        column = rng.choice(o.combinations)
        dtypes = dict(zip([t.name for t in (*o.inputs, *o.outputs)], column, strict=True))
        base = _shape(rng)
        shapes: dict[str, tuple[int, ...]] = {}
        for i, t in enumerate(o.inputs):
            if t.optional and rng.random() < 0.4:
                continue
            shapes[t.name] = base if i == 0 else _like(rng, base)
        attrs: dict[str, Any] = {}
        for a in o.attrs:
            if a.type == "type":
                out = next(t for t in o.outputs if t.dtype_from == a.name)
                attrs[a.name] = int(rt.dtypes.data_type(dtypes[out.name]))
            else:
                attrs[a.name] = _attr_value(rng, a.type)
        try:
            first = next(iter(shapes), None)
            outs = {t.name: tuple(int(d) for d in infer_shape(
                t.infer or {"rule": "same_as", "input": first}, shapes, attrs))
                for t in o.outputs}
        except (ShapeRuleError, KeyError, IndexError, ValueError):
            if not shapes:  # no input at all: any output shape
                outs = {t.name: base for t in o.outputs}
            else:
                continue
        soc = _soc(rng)
        words = [str(soc.ub_bytes), str(soc.vector_cores)]
        for t in o.inputs:
            s = shapes.get(t.name)
            words += (["0"] if s is None else
                      ["1", str(int(rt.dtypes.data_type(dtypes[t.name]))), str(len(s)),
                       *map(str, s)])
        for t in o.outputs:
            s = outs[t.name]
            words += [str(int(rt.dtypes.data_type(dtypes[t.name]))), str(len(s)), *map(str, s)]
        for a in o.attrs:
            v = attrs[a.name]
            kind = {"int": "i", "type": "i", "float": "f", "bool": "b"}.get(a.type, "-")
            words += ["-"] if kind == "-" or v is None else [
                kind, repr(float(v)) if kind == "f" else str(int(v))]
        made += 1
        yield Case(soc,
                   {t.name: TensorSpec(shapes[t.name], np.dtype(dtypes[t.name]))
                    if t.name in shapes else None for t in o.inputs},
                   {t.name: TensorSpec(outs[t.name], np.dtype(dtypes[t.name]))
                    for t in o.outputs},
                   attrs, " ".join(words))


# -- running both sides ---------------------------------------------------------------------------
def _driver(op: Op, build: Path) -> Path:
    src = build / f"{op.opdef.op_name}_driver.cpp"
    src.write_text(
        f'#include "{op.header.name}"\n#include "tiling_driver.h"\n\n'
        f"int main() {{ return opgen_harness::Run(optiling::{op.opdef.op_type}DefaultTiling, "
        f"{len(op.opdef.inputs)}, {len(op.opdef.outputs)}, {len(op.opdef.attrs)}); }}\n")
    exe = build / op.opdef.op_name
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{STUBS}",
                    f"-I{HARNESS}", f"-I{op.header.parent}", str(src), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    return exe


def _fields(layout: TilingLayout, data: bytes) -> dict[str, Any]:
    inst = layout._struct.from_buffer_copy(data)
    out: dict[str, Any] = {}
    for f in layout.fields:
        v = getattr(inst, f.name)
        out[f.name] = list(v) if f.array_len is not None else v
    return out


def _expected(op: Op, case: Case) -> tuple[int, dict[str, Any]] | None:
    try:
        block_dim, values = default_tiling(op.layout, case.inputs, case.outputs, case.attrs,
                                           case.soc)
        return block_dim, _fields(op.layout, op.layout.pack(values))
    except TilingError:
        return None


def _run(op: Op, build: Path, seed: int) -> tuple[int, int]:
    cases = list(_cases(op, seed))
    exe = _driver(op, build)
    proc = subprocess.run([str(exe)], input="\n".join(c.line for c in cases) + "\n",
                          capture_output=True, text=True, check=True)
    answers = proc.stdout.splitlines()
    assert len(answers) == len(cases)
    ok = 0
    for case, answer in zip(cases, answers, strict=True):
        want = _expected(op, case)
        if answer == "fail":
            got = None
        else:
            _, block_dim, hexdata = answer.split(" ")
            got = (int(block_dim), _fields(op.layout, bytes.fromhex(hexdata)))
        assert got == want, f"{op.opdef.op_name}: case `{case.line}`"
        ok += want is not None
    return ok, len(cases) - ok


@pytest.mark.parametrize("name", [*EXAMPLES, "scale_add", "mixed"])
def test_cann_tiling_equals_runtime_tiling(name: str, frontend_output: Path,
                                           tmp_path: Path) -> None:
    op = next(o for o in _all_ops(frontend_output) if o.opdef.op_name == name)
    ok, failed = _run(op, tmp_path, seed=sum(map(ord, name)))
    assert ok + failed == CASES_PER_OP
    assert ok >= CASES_PER_OP // 2, "too few cases the policy accepts to prove anything"


def test_every_example_with_default_tiling_is_covered(frontend_output: Path) -> None:
    covered = {o.opdef.op_name for o in _all_ops(frontend_output)}
    assert set(EXAMPLES) <= covered


def test_an_absent_optional_input_does_not_shift_the_others(frontend_output: Path,
                                                           tmp_path: Path) -> None:
    """layer_norm with gamma absent: beta is still read as beta (IR index, not instance)."""
    op = next(o for o in _all_ops(frontend_output) if o.opdef.op_name == "layer_norm")
    exe = _driver(op, tmp_path)
    # ub cores | x: f32 [4, 8] | gamma absent | beta: f32 [8] | y, mean, rstd | epsilon
    line = "196608 48 1 0 2 4 8 0 1 0 1 8 0 2 4 8 0 2 4 1 0 2 4 1 f 0.5"
    out = subprocess.run([str(exe)], input=line + "\n", capture_output=True, text=True,
                         check=True).stdout.split()
    fields = _fields(op.layout, bytes.fromhex(out[2]))
    assert (fields["gammaPresent"], fields["betaPresent"]) == (0, 1)
    assert (fields["rows"], fields["cols"]) == (4, 8)


def test_the_cann_tree_ships_the_runtimes_policy_and_no_other() -> None:
    """One C++ policy: op_host/opgen_tiling_policy.h is opgen_host/tiling_policy.h after the
    banner, and the per-op headers only call it."""
    host = ROOT / "generated" / "cann" / "op_host"
    banner, text = (host / "opgen_tiling_policy.h").read_text().split("\n", 1)
    assert banner.startswith("// @generated by opgen")
    assert text == (ROOT / "runtime" / "include" / "opgen_host" / "tiling_policy.h").read_text()
    for header in sorted(host.glob("*_tiling.h")):
        source = header.read_text()
        assert '#include "opgen_tiling_policy.h"' in source, header.name
        assert "PlanElementwise" not in source and "memset" not in source, header.name


def test_op_kernel_copies_the_kernel_and_its_local_headers(frontend_output: Path) -> None:
    """A header the kernel includes from its directory lands in op_kernel/<stem>/ (an include
    directory of that op in op_kernel/CMakeLists.txt), verbatim after the banner."""
    kernels = frontend_output / "cann" / "op_kernel"
    header = (kernels / "mixed" / "include" / "common_tiling.h").read_text()
    original = (FRONTEND_KERNELS / "include" / "common_tiling.h").read_text()
    assert header.startswith("// @generated by opgen") and header.endswith("#line 1\n" + original)
    assert (kernels / "mixed.cpp").read_text().endswith(
        "#line 1\n" + (FRONTEND_KERNELS / "mixed.cpp").read_text())
    assert (kernels / "scale_add" / "scale_add_tiling.h").is_file()
    assert "add_ops_compile_options(Mixed OPTIONS -I${CMAKE_CURRENT_SOURCE_DIR}/mixed)" in (
        kernels / "CMakeLists.txt").read_text()


# -- the generated op_host on opgen's host runtime ---------------------------------------------
@pytest.mark.parametrize("name", EXAMPLES)
def test_generated_op_host_runs_on_the_host_runtime(name: str, frontend_output: Path) -> None:
    """The generated op_host/<stem>.cpp (OpDef, TilingFunc, InferShape) compiled against the
    host runtime that also runs users' own op_host code: its TilingFunc gives the runtime's
    default tiling, through the same C ABI the simulator's launches use."""
    from opgen_runtime.ophost import HostTensor, build_op_host, load_op_host

    op = next(o for o in _all_ops(frontend_output) if o.opdef.op_name == name)
    o = op.opdef
    host = load_op_host(build_op_host([op.header.parent / f"{file_stem(o.op_type)}.cpp"],
                                      name=name))
    assert host.errors == ""
    declared = host.describe(o.op_type)["def"]
    assert [p["name"] for p in declared["inputs"]] == [t.name for t in o.inputs]
    assert [a["name"] for a in declared["attrs"]] == [a.name for a in o.attrs]
    ok = 0
    for case in list(_cases(op, seed=sum(map(ord, name)) + 1))[:100]:
        ins = [[HostTensor(t.shape, t.dtype.name)] if t is not None else []
               for t in case.inputs.values()]
        outs = [HostTensor(t.shape, t.dtype.name) for t in case.outputs.values()]
        attrs = [("int" if a.type == "type" else a.type, case.attrs[a.name]) for a in o.attrs]
        want = _expected(op, case)
        try:
            t = host.tiling(o.op_type, ins, outs, attrs, case.soc)
            got = (t.block_dim, _fields(op.layout, t.tiling))
        except TilingError:
            got = None
        assert got == want, f"{name}: case `{case.line}`"
        ok += want is not None
    assert ok >= 50
