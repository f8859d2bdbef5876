"""generated/ is checked in: regenerating from specs/ must reproduce it exactly."""

from __future__ import annotations

from conftest import ROOT
from opgen import gen
from opgen.diagnostics import DiagnosticSink
from opgen.project import load_config


def test_generated_dir_is_current() -> None:
    config = load_config(ROOT)
    sink = DiagnosticSink()
    result = gen.run(config, [], sink, check=True)
    assert not sink.has_errors, "\n".join(str(d) for d in sink)
    assert result is not None
    plan = result.plan
    assert not plan.changed, (
        "generated/ is stale; refresh it with `make regen` (runs `opgen generate`).\n"
        + "".join(plan.diff[:200])
    )
