"""Shared fixtures: the repository root and a golden-file helper."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UPDATE_GOLDENS = os.environ.get("OPGEN_UPDATE_GOLDENS") == "1"


def check_golden(path: Path, actual: str) -> None:
    """Compare with a golden file; OPGEN_UPDATE_GOLDENS=1 rewrites it instead."""
    if UPDATE_GOLDENS:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"missing golden {path}; create it with OPGEN_UPDATE_GOLDENS=1"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"{path} differs; if the new output is right, refresh with OPGEN_UPDATE_GOLDENS=1 pytest"
    )


@pytest.fixture
def root() -> Path:
    return ROOT


def leaky_relu_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (package my_ops) holding the example leaky_relu spec and kernel, with its own
    generate cache, made the working directory."""
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\nspec_dir = "specs"\noutput_dir = "generated"\npackage = "my_ops"\n')
    for name in ("leaky_relu.yaml", "leaky_relu.cpp"):
        shutil.copy(ROOT / "specs" / name, root / "specs" / name)
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(root)
    return root
