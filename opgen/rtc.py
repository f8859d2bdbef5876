"""`opgen rtc-compile DIR [OPTION...]`: the compiler behind aclrtcCompileProg on the simulator.

A program that compiles Ascend C at run time (acl/acl_rt_compile.h) writes its source to
DIR/program.asc, its name to DIR/name.txt and its name expressions (aclrtcAddNameExpr) to
DIR/name_exprs.txt, one a line, and runs this command. It appends to the source the launch
entries of opgen_sim/rtc_launch.h (one per extern "C" kernel, found by the kernel frontend, and
one per name expression) and the table of them, and compiles the whole with `opgen cxx` into
DIR/program.so: the "binary" aclrtcGetBinData hands out and aclrtBinaryLoadFromData loads.
DIR/lowered.txt gets each name expression and its lowered name, tab-separated. Compiler messages
name the program by the name the program gave it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from opgen.asc_rewrite import c_string

SOURCE, NAME, EXPRS, LOWERED, BINARY = ("program.asc", "name.txt", "name_exprs.txt",
                                         "lowered.txt", "program.so")
DEFAULT_NAME = "default_program"
# Options of the NPU compiler that mean nothing to g++ (the architecture is the simulator's).
_NPU_ONLY = ("--npu-arch=", "--cce-", "-arch=", "--npu-soc=")


def _c_kernels(source: Path, shown: str) -> tuple[list[str], list[str]]:
    """The names of the source's extern "C" __global__ kernels (the ones a program finds by
    name), and notes for the log when the frontend could not read the source."""
    from opgen.kernel_frontend import parse_kernel

    result = parse_kernel(source, lambda path: shown if path == str(source) else path)
    if result.info.diagnostics:
        notes = [f"note: {d.loc.path}:{d.loc.line}:{d.loc.col}: {d.message}"
                 for d in result.info.diagnostics[:3]]
        return [], [*notes, "note: the kernels are found by their name expressions only"]
    names = [e.name for e in result.info.entries
             if e.is_global and e.c_linkage and not e.template_params]
    return names, []


def trailer(kernels: Sequence[str], exprs: Sequence[str]) -> str:
    """The launch entries and their table (opgen_sim/rtc_launch.h)."""
    lines = ['#include "opgen_sim/rtc_launch.h"', ""]
    entries: list[tuple[str, str]] = []
    visible = 'extern "C" __attribute__((visibility("default")))'
    for i, (shown, callee) in enumerate([*((k, f"::{k}") for k in kernels),
                                          *((e, e) for e in exprs)]):
        fn = f"opgen_rtc_entry_{i}"
        lines += [f"{visible} int {fn}(uint32_t blocks, void** args, const void* packed, "
                  "size_t packed_size) {",
                  f'    return ::opgen_sim::RtcLaunch("{c_string(shown)}", &({callee}), blocks, '
                  "args, packed, packed_size);",
                  "}"]
        entries.append((shown, fn))
    table = ", ".join(f'{{"{c_string(name)}", &{fn}}}' for name, fn in entries)
    table = table or "{nullptr, nullptr}"  # (no array of length 0; the size says 0)
    lines += ["",
              f"{visible} const ::opgen_sim::RtcEntry opgen_rtc_table[] = {{{table}}};",
              f"{visible} const size_t opgen_rtc_table_size = {len(entries)};",
              f"{visible} void opgen_rtc_attach(void* registry) {{",
              "    ::opgen_sim::GmRegistryPtr() = static_cast<::opgen_sim::GmRegistry*>(registry);",
              "}", ""]
    return "\n".join(lines)


def compile_dir(work: Path, options: Sequence[str]) -> int:
    """Compiles DIR/program.asc; its exit status (compiler messages on stderr)."""
    source = work / SOURCE
    name = (work / NAME).read_text(encoding="utf-8").strip() if (work / NAME).exists() else ""
    shown = name or DEFAULT_NAME
    exprs = [e for e in (work / EXPRS).read_text(encoding="utf-8").splitlines() if e.strip()] \
        if (work / EXPRS).exists() else []
    kernels, notes = _c_kernels(source, shown)
    for note in notes:
        print(note, file=sys.stderr)
    text = source.read_text(encoding="utf-8")
    combined = work / "program_rtc.asc"
    combined.write_text(f'#line 1 "{c_string(shown)}"\n{text}\n'
                        f'#line 1 "<aclrtc launch entries of {c_string(shown)}>"\n'
                        + trailer(kernels, exprs), encoding="utf-8")
    flags = [o for o in options if not o.startswith(_NPU_ONLY)]
    cmd = [sys.executable, "-m", "opgen", "cxx", "-shared", "-fPIC", *flags, str(combined),
           "-o", str(work / BINARY)]
    code = subprocess.run(cmd, check=False).returncode
    if code == 0:
        (work / LOWERED).write_text("".join(f"{e}\t{e}\n" for e in exprs), encoding="utf-8")
    return code
