"""Stage 4, kernel frontend: find, parse (through the cache) and cross-check every op's kernel."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from opgen.diagnostics import DiagnosticSink
from opgen.emit.common import kernel_source_path
from opgen.kernel_frontend.cache import ParseCache
from opgen.kernel_frontend.check import CheckedKernel, check_kernel
from opgen.kernel_frontend.model import KernelInfo
from opgen.kernel_frontend.parse import Display, default_display
from opgen.model import OpSpec


def kernel_path(spec: OpSpec, root: Path) -> Path:
    """The kernel file on disk: `kernel.source` relative to the spec file."""
    return root / kernel_source_path(spec)


def analyze(specs: Sequence[OpSpec], root: Path, sink: DiagnosticSink, *,
            cache: ParseCache | None = None,
            display: Display | None = None) -> dict[str, CheckedKernel]:
    """Checked kernels by op name; every problem goes to `sink` (ops with one are left out)."""
    show = display or default_display(root)
    parses = cache or ParseCache()
    infos: dict[str, KernelInfo] = {}
    reported: set[str] = set()
    checked: dict[str, CheckedKernel] = {}
    for spec in sorted(specs, key=lambda s: s.op_name):
        path = kernel_path(spec, root)
        if not path.is_file():
            sink.error(spec.kernel.loc, f"kernel source '{spec.kernel.source}' of op "
                       f"'{spec.op_name}' not found (looked for {show(str(path))}); the kernel "
                       "is required to generate: write it, create it with `opgen new`, or set "
                       "kernel.source")
            continue
        key = os.path.abspath(path)
        info = infos.get(key)
        if info is None:
            info = infos[key] = parses.parse(path, show)
        if not info.ok:
            if key not in reported:  # a kernel shared by several ops reports its errors once
                reported.add(key)
                sink.extend(info.diagnostics)
            continue
        result, diagnostics = check_kernel(spec, info)
        sink.extend(diagnostics)
        if result is not None:
            checked[spec.op_name] = result
    return checked
