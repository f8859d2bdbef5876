"""Documentation generated from the schema is current."""

from __future__ import annotations

from conftest import ROOT
from opgen.spec_reference import DOC_PATH, render_reference


def test_spec_reference_is_current() -> None:
    current = (ROOT / DOC_PATH).read_text("utf-8")
    assert current == render_reference(), (
        f"{DOC_PATH} is stale; refresh it with `make docs`")
