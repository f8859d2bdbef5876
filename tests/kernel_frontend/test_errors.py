"""Error goldens: one folder per malformed kernel under errors/, with the exact expected report.

Each folder holds a spec, its kernel (and headers), and expected.txt: the diagnostics
`opgen generate` prints for that project, paths relative to the folder. Refresh them with
`OPGEN_UPDATE_GOLDENS=1 pytest tests/kernel_frontend/test_errors.py` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen import gen
from opgen.diagnostics import DiagnosticSink, sorted_diagnostics
from opgen.project import Config

ERRORS = Path(__file__).parent / "errors"
CASES = sorted(p.name for p in ERRORS.iterdir() if p.is_dir())


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test parses into its own cache, never the user's."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path_factory.mktemp("opgen-cache")))


def report(case: Path, out: Path) -> tuple[str, bool]:
    config = Config(root=case, spec_dir=case, output_dir=out, package="opgen_ops",
                    namespace="opgen")
    sink = DiagnosticSink()
    result = gen.run(config, [], sink, check=True)
    text = "".join(f"{d}\n" for d in sorted_diagnostics(sink.items))
    return text, result is not None


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("name", CASES)
def test_error_golden(name: str, tmp_path: Path) -> None:
    case = ERRORS / name
    text, generated = report(case, tmp_path / "out")
    golden = case / "expected.txt"
    if os.environ.get("OPGEN_UPDATE_GOLDENS"):
        golden.write_text(text, "utf-8")
    assert text == golden.read_text("utf-8"), (
        "stale golden; refresh with OPGEN_UPDATE_GOLDENS=1 and review the diff")
    # Only warnings may let generation go on.
    assert generated == (": error: " not in text)


def test_an_op_host_fills_fields_named_like_attrs(tmp_path: Path) -> None:
    """attr_wrong_type's kernel with an op_host of its own: its TilingFunc fills every field, so
    a field named like an attr binds nothing and any type is fine (ops-nn's cross_entropy_loss
    keeps the string attr `reduction` as a uint64_t code in its tiling data)."""
    case = tmp_path / "case"
    case.mkdir()
    for f in (ERRORS / "attr_wrong_type").iterdir():
        if f.suffix in (".cpp", ".yaml"):
            (case / f.name).write_text(f.read_text())
    (case / "scale_add_host.cpp").write_text("// the op's TilingFunc, InferShape and OpDef\n")
    spec = case / "scale_add.yaml"
    spec.write_text(spec.read_text().replace(
        "attr_desc:", "kernel:\n  source: scale_add.cpp\n  op_host: scale_add_host.cpp\n"
        "attr_desc:"))
    text, generated = report(case, tmp_path / "out")
    assert ": error: " not in text and generated, text
