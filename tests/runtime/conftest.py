"""Fixtures for the registry tests: operator libraries of the example ops, built once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opgen_runtime import registry
from opgen_runtime.metadef import load
from opgen_runtime.oplib import build_operator_library

ROOT = Path(__file__).resolve().parents[2]
METADEF = ROOT / "generated" / "metadef"


@pytest.fixture(scope="session")
def libs() -> dict[str, Path]:
    names = ("element_add", "leaky_relu", "layer_norm", "cast", "softmax")
    return {n: build_operator_library(load(METADEF / f"{n}.json")) for n in names}


@pytest.fixture
def opp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private op package directory for the test."""
    path = tmp_path / "opp"
    monkeypatch.setenv("OPGEN_OPP_PATH", str(path))
    return path


@pytest.fixture
def reg(opp: Path) -> Iterator[registry.Registry]:
    yield registry.Registry()


def register(reg: registry.Registry, libs: dict[str, Path], name: str) -> None:
    reg.load_operator_library(libs[name])
    reg.register_operator(name)
    reg.register_operator_model(name, METADEF / f"{name}.json", name)
