"""aclrtlaunch_<kernel>: the host launch function CANN's ascendc_library makes for each __global__
kernel of a kernel file, read by the kernel frontend and emitted twice from one signature, as
a header for the driver (aclrtlaunch_<kernel>.h, with ACLRT_LAUNCH_KERNEL) and as a definition
appended to the kernel file's rewritten source, where it launches the kernel as <<<>>> does."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opgen.asc_rewrite import UNIT_RATIO, c_string, launcher
from opgen.config_flags import include_dir
from opgen.diagnostics import Diagnostic, DiagnosticError, Severity
from opgen.kernel_frontend import KernelEntry, KernelInfo, parse_kernel

PREFIX = "aclrtlaunch_"
_BLOCKS, _STREAM = "blockDim", "stream"


class ParamKind(enum.Enum):
    GM = "gm"  # a __gm__ pointer: void* in the launch function, as CANN declares it
    STRUCT = "struct"  # a struct by value (a tiling struct): the launch function takes its address
    VALUE = "value"  # a scalar: passed as the kernel declares it


@dataclass(frozen=True)
class LaunchParam:
    name: str
    kernel_type: str  # as the kernel spells it
    kind: ParamKind

    @property
    def launch_type(self) -> str:
        if self.kind is ParamKind.GM:
            return "void*"
        if self.kind is ParamKind.STRUCT:
            return f"{self.kernel_type}*"
        return self.kernel_type

    @property
    def argument(self) -> str:
        """The expression that passes the launch function's parameter to the kernel."""
        if self.kind is ParamKind.GM:
            return f"static_cast<{self.kernel_type}>({self.name})"
        if self.kind is ParamKind.STRUCT:
            return f"*{self.name}"
        return self.name


@dataclass(frozen=True)
class LaunchFunction:
    kernel: str
    params: tuple[LaunchParam, ...]
    blocks: str  # the names of the two leading parameters: renamed if a kernel parameter
    stream: str  # has the same name

    @property
    def name(self) -> str:
        return PREFIX + self.kernel

    @property
    def header(self) -> str:
        return f"{self.name}.h"

    def signature(self) -> str:
        params = [f"uint32_t {self.blocks}", f"aclrtStream {self.stream}",
                  *(f"{p.launch_type} {p.name}" for p in self.params)]
        return f'extern "C" uint32_t {self.name}({", ".join(params)})'


def _is_struct(info: KernelInfo, spelled: str) -> bool:
    words = [w for w in spelled.split() if w not in ("const", "volatile", "struct", "class")]
    return len(words) == 1 and info.struct(words[0]) is not None


def _launch_function(info: KernelInfo, entry: KernelEntry) -> LaunchFunction:
    if entry.template_params:
        raise DiagnosticError.single(
            entry.loc, f"kernel '{entry.name}' is a template: opgen makes {PREFIX}{entry.name} "
            "only for kernels that are not templates (it cannot tell which instantiations the "
            "driver launches); launch it with <<<>>> from a host function in this file")
    params: list[LaunchParam] = []
    for i, p in enumerate(entry.params, 1):
        where = f"parameter {i} of kernel '{entry.name}'"
        if not p.name:
            raise DiagnosticError.single(
                p.loc, f"{where} has no name: name it, {PREFIX}{entry.name} passes it on")
        if "&" in p.type or "[" in p.type:
            raise DiagnosticError.single(
                p.loc, f"{where} ('{p.type} {p.name}') is a reference or an array: kernel "
                "parameters are GM pointers, scalars or structs passed by value")
        # a kernel's pointer parameters are Global Memory (`__gm__`, which the frontend's
        # spelling may not show): void* in the launch function, whatever they point to
        if p.is_gm_addr or p.type.endswith("*"):
            kind = ParamKind.GM
        elif _is_struct(info, p.type):
            kind = ParamKind.STRUCT
        else:
            kind = ParamKind.VALUE
        params.append(LaunchParam(p.name, p.type, kind))
    names = {p.name for p in params}
    # CANN renames the two leading parameters the same way when a kernel parameter takes a name
    return LaunchFunction(entry.name, tuple(params),
                          "_" + _BLOCKS if _BLOCKS in names else _BLOCKS,
                          "_" + _STREAM if _STREAM in names else _STREAM)


def launch_functions(kernel_file: Path, include_dirs: Sequence[str] = (),
                     defines: Sequence[str] = ()) -> tuple[LaunchFunction, ...]:
    """One launch function per __global__ kernel of the file, in the file's order; a kernel the
    generator cannot handle, or a file the frontend cannot read, is a located error."""
    # the simulator's own headers are left out: the frontend reads kernels against its stubs
    own = include_dir().resolve()
    extra = [*(f"@include_dir={d}" for d in include_dirs if Path(d).resolve() != own), *defines]
    result = parse_kernel(kernel_file, lambda p: str(Path(p).resolve()), extra)
    errors = [d for d in result.info.diagnostics if d.severity is Severity.ERROR]
    if errors:
        raise DiagnosticError((*errors, Diagnostic(
            errors[0].loc, f"opgen reads this file's kernels to make their {PREFIX}<kernel>.h "
            "headers (pass the library's include directories and definitions with "
            "ascendc_include_directories and ascendc_compile_definitions)", Severity.NOTE)))
    return tuple(_launch_function(result.info, e) for e in result.info.entries)


def header_text(fn: LaunchFunction, source_name: str) -> str:
    guard = f"OPGEN_{fn.name.upper()}_H"
    return (f"// @generated by opgen from {source_name}: the host launch function of kernel "
            f"'{fn.kernel}',\n"
            "// as CANN's ascendc_library declares it; it runs the kernel on opgen's simulator.\n"
            f"#ifndef {guard}\n#define {guard}\n"
            '#include "acl/acl_base.h"\n\n'
            "#ifndef ACLRT_LAUNCH_KERNEL\n"
            f"#define ACLRT_LAUNCH_KERNEL(kernel) {PREFIX}##kernel\n"
            "#endif\n\n"
            f"{fn.signature()};\n"
            "#endif\n")


def definition_text(fn: LaunchFunction) -> str:
    """The definition, for the end of the kernel file's rewritten source: the kernel, its
    parameter types and opgen_sim::AscLaunch are in scope there."""
    checks = "".join(
        f"    if ({p.name} == nullptr) {{\n"
        f'        ::opgen_sim::IcpuFatal("{c_string(fn.name)}: argument \'{c_string(p.name)}\' '
        f'({c_string(p.launch_type)}) is null: pass the host address of the struct");\n'
        "    }\n"
        for p in fn.params if p.kind is ParamKind.STRUCT)
    args = ", ".join(p.argument for p in fn.params)
    # the AIV cores of a block are the kernel file's (opgen_sim/core.h, UnitTaskRatio: 2 in a file
    # using the Matmul API from the vector cores, whose kernels CANN's compiler makes mix kernels)
    launch = launcher(fn.kernel, fn.kernel, f"{fn.blocks}, nullptr, {fn.stream}", UNIT_RATIO)
    return (f"{fn.signature()}\n{{\n{checks}"
            f"    {launch}({args});\n"
            "    return 0;  // a launch that breaks a rule stops the program, as <<<>>> does\n"
            "}\n")


def appendix(functions: Sequence[LaunchFunction]) -> str:
    """The definitions of a kernel file's launch functions, after a #line that names them."""
    if not functions:
        return ""
    body = "\n".join(definition_text(fn) for fn in functions)
    return f'\n#line 1 "{PREFIX}<kernel> definitions (generated by opgen)"\n{body}'
