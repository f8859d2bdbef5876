"""The generated op_host and tf_plugin sources compile against metadef's real public headers with
-Werror -Wdeprecated-declarations, so no deprecated CANN call creeps into generated code.

metadef (hicann/metadef) is read from a git mirror when one is present (OPGEN_METADEF_MIRROR);
the few headers it includes from other CANN repositories are in tests/cann/metadef_gaps/. The
stub-based checks (test_cann_parse.py) run everywhere; this one only where the mirror is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from conftest import ROOT

MIRROR = Path(os.environ.get("OPGEN_METADEF_MIRROR", "/work/.mirror/hicann+metadef/repo"))
GENERATED = ROOT / "generated" / "cann"
GAPS = ROOT / "tests" / "cann" / "metadef_gaps"

needs_mirror = pytest.mark.skipif(not MIRROR.is_dir() or shutil.which("g++") is None,
                                reason="no metadef mirror or no g++")


@pytest.fixture(scope="module")
def metadef(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("metadef")
    data = subprocess.run(["git", "-C", str(MIRROR), "archive", "HEAD", "inc"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(out, filter="data")
    return out / "inc"


def compile_errors(source: Path, inc: Path) -> str:
    proc = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
         "-Wdeprecated-declarations", f"-I{inc / 'external'}", f"-I{inc / 'external' / 'asc'}",
         f"-I{inc}", f"-I{GAPS}", f"-I{source.parent}", str(source)],
        capture_output=True, text=True)
    return "" if proc.returncode == 0 else proc.stderr


def sources() -> list[Path]:
    return sorted([*(GENERATED / "op_host").glob("*.cpp"),
                   *(GENERATED / "framework" / "tf_plugin").glob("*.cc")])


def test_there_are_sources() -> None:
    assert any(p.parent.name == "tf_plugin" for p in sources())
    assert any(p.parent.name == "op_host" for p in sources())


@needs_mirror
@pytest.mark.parametrize("source", sources(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compiles_without_deprecated_calls(source: Path, metadef: Path) -> None:
    assert compile_errors(source, metadef) == ""


@needs_mirror
def test_a_deprecated_call_is_caught(metadef: Path, tmp_path: Path) -> None:
    """The check has teeth: register.h's deprecated OriginOpType(const std::string&) fails."""
    src = tmp_path / "deprecated_plugin.cc"
    src.write_text('#include <string>\n#include "register/register.h"\nnamespace domi {\n'
                   'REGISTER_CUSTOM_OP("AddCustom").FrameworkType(TENSORFLOW)\n'
                   '    .OriginOpType(std::string("Add"));\n}\n')
    assert "deprecated" in compile_errors(src, metadef)


def test_no_unknown_shape_format() -> None:
    """OpParamDef::UnknownShapeFormat is deprecated by CANN (Format covers every shape)."""
    for path in [*GENERATED.rglob("*.cpp"), *GENERATED.rglob("*.cc"), *GENERATED.rglob("*.h")]:
        assert "UnknownShapeFormat" not in path.read_text(), path
