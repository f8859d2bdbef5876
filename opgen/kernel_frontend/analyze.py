"""Stage 4, kernel frontend: find, parse (through the cache) and cross-check every op's kernel."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from opgen.diagnostics import DiagnosticSink
from opgen.emit.common import include_dir_paths, kernel_source_path, tiling_header_path
from opgen.kernel_frontend.cache import ParseCache
from opgen.kernel_frontend.check import CheckedKernel, check_kernel
from opgen.kernel_frontend.includes import default_roots
from opgen.kernel_frontend.model import KernelInfo
from opgen.kernel_frontend.parse import Display, default_display
from opgen.model import OpSpec
from opgen_runtime.cachedir import cache_root
from opgen_runtime.tiling_header import kernel_tiling_header


def kernel_path(spec: OpSpec, root: Path) -> Path:
    """The kernel file on disk: `kernel.source` relative to the spec file."""
    return root / kernel_source_path(spec)


def dtype_defines(spec: OpSpec) -> tuple[str, ...]:
    """The DTYPE_<NAME> macros CANN's build (and opgen's) gives a kernel, for the spec's
    first dtype combination: real kernels use them in declarations, not only in bodies."""
    from opgen_runtime.dtypes import cpp_type

    combo = next(spec.combinations())
    ir = {t.name: t.ir for t in spec.tensors}  # named after the IR names, as CANN's are
    return tuple(f"DTYPE_{ir[name].upper()}={cpp_type(dtype.value)}"
                 for name, dtype in combo.dtypes)


def analyze(specs: Sequence[OpSpec], root: Path, sink: DiagnosticSink, *,
            cache: ParseCache | None = None,
            display: Display | None = None) -> dict[str, CheckedKernel]:
    """Checked kernels by op name; every problem goes to `sink` (ops with one are left out)."""
    parses = cache or ParseCache()
    show = display or (parses.display(root) if cache is not None else default_display(root))
    infos: dict[tuple[str, tuple[str, ...]], KernelInfo] = {}
    reported: set[tuple[str, tuple[str, ...]]] = set()
    checked: dict[str, CheckedKernel] = {}
    for spec in sorted(specs, key=lambda s: s.op_name):
        path = kernel_path(spec, root)
        if not path.is_file():
            sink.error(spec.kernel.loc, f"kernel source '{spec.kernel.source}' of op "
                       f"'{spec.op_name}' not found (looked for {show(str(path))}); the kernel "
                       "is required to generate: write it, create it with `opgen new`, or set "
                       "kernel.source")
            continue
        defines = dtype_defines(spec)
        header = tiling_header_path(spec)
        kernel_header = None
        if header is not None:  # CANN's build gives the kernel its op_host tiling header
            kernel_header = kernel_tiling_header(root / header, cache_root() / "tiling_headers",
                                                 spec.op_type)
            defines += (f"@include={kernel_header}",)
        defines += tuple(f"@include_dir={root / d}" for d in include_dir_paths(spec))
        # what the kernel may include: the project, its own folder, what the spec names
        roots = [*default_roots(path, root), *(root / d for d in include_dir_paths(spec))]
        if header is not None and kernel_header is not None:
            roots += [(root / header).parent, kernel_header.parent]
        key = (os.path.abspath(path), defines)
        info = infos.get(key)
        if info is None:
            info = infos[key] = parses.parse(path, show, defines, roots)
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
