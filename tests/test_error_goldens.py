"""Error goldens: each tests/errors/<case>/ holds spec files and the exact expected stderr.

`opgen validate` runs on the case's spec files (cwd = the case folder, so messages carry
the paths as a user in that folder would see them). Refresh with OPGEN_UPDATE_GOLDENS=1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import check_golden
from opgen.cli import main

CASES = sorted(p for p in (Path(__file__).parent / "errors").iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_error_golden(case: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(case)
    files = sorted(p.name for p in case.iterdir() if p.name != "expected.txt")
    code = main(["validate", "-q", *files])
    err = capsys.readouterr().err
    check_golden(case / "expected.txt", err)
    assert code == (2 if ": error: " in err else 0), err
    assert "Traceback" not in err


def test_at_least_25_error_cases() -> None:
    assert len(CASES) >= 25
