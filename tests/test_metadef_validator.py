"""`python -m metadef.validator FILE`, typed as the seed types it, is opgen's validator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT

SEED_METADEF = ROOT / "tests" / "fixtures" / "seed_element_add.json"


def _validator(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # run outside the repository: the module must come from the installed distribution
    return subprocess.run([sys.executable, "-m", "metadef.validator", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)


def test_the_seeds_command_validates_the_seeds_metadef(tmp_path: Path) -> None:
    result = _validator(str(SEED_METADEF), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (f"{SEED_METADEF}: ok: element_add (ElementAdd), 2 in, 1 out, "
                             "0 attrs, 1 dtype combination\n")
    # the same warning `opgen validate` gives for an op without backward
    assert f"{SEED_METADEF}:1:1: warning: no `backward:`" in result.stderr


def test_an_invalid_metadef_is_a_located_error_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "element_add.json"
    bad.write_text(SEED_METADEF.read_text("utf-8").replace('"float32"', '"flaot32"', 1), "utf-8")
    result = _validator(str(bad), cwd=tmp_path)
    assert result.returncode == 2
    assert f"{bad}:7:17: error: unknown dtype 'flaot32'" in result.stderr
    assert "Traceback" not in result.stderr


def test_it_is_the_same_entry_point_as_opgens_validator() -> None:
    import metadef.validator
    import opgen.validator

    assert metadef.validator.main is opgen.validator.main
