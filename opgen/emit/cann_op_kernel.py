"""CANN op_kernel/<stem>.cpp: a copy of the user's kernel, so the CANN tree builds on its own.

A copy, not an `#include` of the spec's kernel by a relative path: the tree is copied into a
custom-op project on another machine, where that path means nothing. The copy is the user's text
verbatim after a banner; `#line` keeps compiler messages on the user's line numbers.

CANN compiles op_kernel/<stem>.cpp and calls the kernel named <stem> (msopgen's rule), so an
entry of another name is renamed with a `#define` placed just before the entry's line.

Headers the kernel includes from its own directory (or below) are copied too, under
op_kernel/<stem>/ at the same relative path; op_kernel/CMakeLists.txt adds that directory to the
op's include path (emit/cann_cmake.py), so two ops may each bring a header of the same name.
Headers from elsewhere (system, CANN, or outside the kernel's directory) are not copied; the
banner lists those that are inside the project, so a missing one is easy to spot.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Sequence
from pathlib import Path

from opgen.emit.cann_naming import cann_stem
from opgen.emit.common import banner_text, kernel_source_path
from opgen.emit.escape import cxx_comment
from opgen.kernel_frontend.check import CheckedKernel
from opgen.kernel_frontend.toolchain import system_include_dirs
from opgen.model import OpSpec

OP_KERNEL_DIR = "cann/op_kernel"


def op_kernel_path(spec: OpSpec) -> str:
    return f"{OP_KERNEL_DIR}/{cann_stem(spec)}.cpp"


def header_dir(spec: OpSpec) -> str:
    """Where the kernel's local headers go (an include directory of this op only)."""
    return f"{OP_KERNEL_DIR}/{cann_stem(spec)}"


@functools.cache
def _real_system_dirs() -> tuple[Path, ...]:
    """The host compiler's include dirs, links resolved: fixed for the life of the process
    (as system_include_dirs is), so resolved once."""
    return tuple(Path(os.path.realpath(d)) for d in system_include_dirs())


def _copy(banner: list[str], text: str) -> str:
    body = text if text.endswith("\n") or not text else text + "\n"
    return "".join(f"// {cxx_comment(line)}\n" for line in banner) + "#line 1\n" + body


def _renamed(text: str, line: int, entry: str, stem: str) -> str:
    lines = text.splitlines(keepends=True)
    at = max(0, min(line - 1, len(lines)))
    directive = (f"#define {entry} {stem}  // opgen: CANN calls op_kernel/{stem}.cpp's "
                 f"kernel {stem}\n#line {line}\n")
    return "".join(lines[:at]) + directive + "".join(lines[at:])


def emit(spec: OpSpec, kernel: CheckedKernel, main: Path,
         includes: Sequence[str]) -> dict[str, str]:
    """`main`: the kernel file on disk; `includes`: every file it includes (absolute paths)."""
    stem = cann_stem(spec)
    source = kernel_source_path(spec)
    text = main.read_text(encoding="utf-8")
    main = Path(os.path.realpath(main))
    base = main.parent
    system = _real_system_dirs()
    local: list[tuple[str, Path]] = []
    elsewhere: list[str] = []
    for dep in sorted(includes):
        path = Path(os.path.realpath(dep))
        if path == main or any(path.is_relative_to(d) for d in system):
            continue
        if path.is_relative_to(base):
            local.append((path.relative_to(base).as_posix(), path))
        else:
            rel = Path(os.path.relpath(path, base)).as_posix()
            elsewhere.append(posixpath.normpath(posixpath.join(posixpath.dirname(source), rel)))
    banner = [f"{banner_text(spec.spec_path)}",
              f"A copy of {source}, the kernel of {spec.op_type}: edit that file, not this one."]
    if local:
        banner.append(f"Its headers are copied to op_kernel/{stem}/.")
    if elsewhere:
        banner.append("Not copied (include them from the CANN project): "
                      + ", ".join(elsewhere) + ".")
    entry = kernel.entry
    if entry.name != stem:
        banner.append(f"The entry '{entry.name}' is renamed '{stem}', the name CANN calls.")
        text = _renamed(text, entry.loc.line, entry.name, stem)
    files = {op_kernel_path(spec): _copy(banner, text)}
    for rel, path in local:
        files[f"{header_dir(spec)}/{rel}"] = _copy(
            [banner_text(spec.spec_path),
             f"A copy of {posixpath.join(posixpath.dirname(source), rel)}, included by the "
             f"kernel of {spec.op_type}."], path.read_text(encoding="utf-8"))
    return files
