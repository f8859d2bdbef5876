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
