"""The driver: specs -> model -> emitters -> FileManager. `opgen generate` calls `run`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen.diagnostics import DiagnosticSink
from opgen.emit import metadef
from opgen.model import OpSpec
from opgen.project import Config, discover, load_specs
from opgen.writer import FileManager, Plan

# Every per-op target: (spec, project-relative output dir) -> {relative path: content}.
PerOpEmitter = Callable[[OpSpec, str], dict[str, str]]
PER_OP_TARGETS: tuple[PerOpEmitter, ...] = (metadef.emit,)


@dataclass
class Result:
    specs: list[OpSpec]
    plan: Plan
    manager: FileManager


def collect(specs: Sequence[OpSpec], config: Config, *, full: bool) -> FileManager:
    out_rel = config.display(config.output_dir)
    fm = FileManager(config.output_dir, prune=full)
    for spec in sorted(specs, key=lambda s: s.op_name):
        for target in PER_OP_TARGETS:
            for rel, content in target(spec, out_rel).items():
                fm.add(rel, content)
    if full:
        for rel, content in metadef.emit_index(list(specs)).items():
            fm.add(rel, content)
    return fm


def run(config: Config, spec_paths: Sequence[Path], sink: DiagnosticSink, *,
        check: bool = False) -> Result | None:
    """Validate and emit. Explicit spec paths regenerate only those ops (no index, no pruning)."""
    full = not spec_paths
    paths = list(spec_paths) if spec_paths else discover(config.spec_dir)
    specs = load_specs(paths, config, sink)
    if sink.has_errors:
        return None
    fm = collect(specs, config, full=full)
    plan = fm.plan(with_diff=check)
    if not check:
        fm.commit(plan)
    return Result(specs, plan, fm)
