"""Every generated CANN C++ file parses with zero diagnostics against the stub CANN headers.

CANN is not installed here, so tests/cann_stubs/ declares what the generated code uses, with
CANN's real signatures; libclang then type-checks each file with -Wall -Wextra.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clang import cindex

from conftest import ROOT
from opgen.emit.cann_naming import file_stem
from opgen.kernel_frontend.model import KernelInfo
from opgen.kernel_frontend.parse import default_display, parse_kernel
from opgen.kernel_frontend.toolchain import system_include_dirs

GENERATED = ROOT / "generated" / "cann"
STUBS = ROOT / "tests" / "cann_stubs"
# The host compiler's standard headers (pip's libclang ships none), then the CANN stubs.
ARGS = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-Wall", "-Wextra", f"-I{STUBS}",
        *(f"-isystem{d}" for d in system_include_dirs())]
SUFFIXES = (".cpp", ".cc", ".h")


def kernel(path: Path) -> KernelInfo:
    return parse_kernel(path, default_display(ROOT)).info


def generated_files() -> list[Path]:
    return sorted(p for p in GENERATED.rglob("*") if p.suffix in SUFFIXES)


def diagnostics(path: Path) -> list[str]:
    if path.parent.name == "op_kernel":  # a kernel copy: parsed as opgen parses kernels
        return [str(d) for d in kernel(path).diagnostics]
    tu = cindex.Index.create().parse(str(path), args=[*ARGS, f"-I{path.parent}"])
    return [f"{d.location.file}:{d.location.line}:{d.location.column}: {d.spelling}"
            for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Warning]


def test_every_example_op_has_cann_output() -> None:
    files = {p.relative_to(GENERATED).as_posix() for p in generated_files()}
    for spec in sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "specs").glob("*.json")):
        assert any(f.startswith("op_host/") for f in files), spec
    assert len([f for f in files if f.startswith("op_proto/") and f.endswith(".cc")]) == len(
        [f for f in files if f.startswith("op_host/") and f.endswith(".cpp")])


@pytest.mark.parametrize("path", generated_files(),
                         ids=lambda p: p.relative_to(GENERATED).as_posix())
def test_generated_file_parses_cleanly(path: Path) -> None:
    assert diagnostics(path) == []


def test_stubs_catch_a_wrong_signature(tmp_path: Path) -> None:
    """The check has teeth: a call CANN does not declare is reported."""
    bad = tmp_path / "bad.cpp"
    bad.write_text('#include "register/op_def_registry.h"\n'
                   "void f(ops::OpDef& d) { d.Input(\"x\").ParamType(ops::REQUIRED).Shape(3); }\n")
    assert any("no member named 'Shape'" in d for d in diagnostics(bad))


def test_op_kernel_copies_keep_the_kernel_and_name_it_after_the_op() -> None:
    """op_kernel/<stem>.cpp declares the entry CANN calls: <stem> (msopgen's rule)."""
    kernels = sorted((GENERATED / "op_kernel").glob("*.cpp"))
    assert len(kernels) == len(list((ROOT / "generated" / "metadef").glob("*.json")))
    for path in kernels:
        info = kernel(path)
        assert [e.name for e in info.entries] == [path.stem], path
    stems = {file_stem(json.loads(p.read_text())["op_type"])
             for p in (ROOT / "generated" / "metadef").glob("*.json")}
    assert {p.stem for p in kernels} == stems
