"""The per-spec pipeline of `opgen generate`: spec -> model -> kernel frontend -> emitters.

gen.py drives it and imports it only when a spec file has to be processed (a no-op run, where
the generate cache answers for every spec, never loads the validator, libclang or Jinja).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from opgen.diagnostics import DiagnosticSink
from opgen.emit import (
    cann_aclnn,
    cann_cmake,
    cann_op_desc,
    cann_op_host,
    cann_op_kernel,
    cann_op_proto,
    cann_tf_plugin,
    host_policy,
    metadef,
    op_api,
    python_pkg,
    tf_ops,
    tiling,
    torch_npu,
    torch_ops,
)
from opgen.gencache import OpRecord
from opgen.kernel_frontend import CheckedKernel, ParseCache, analyze
from opgen.kernel_frontend.analyze import kernel_path
from opgen.model import OpSpec
from opgen.project import Config, OpIdentity, load_spec_file

# Every per-op target: (spec, project-relative output dir, checked kernel)
# -> {relative path: content}. The kernel frontend (stage 4) has already checked the kernel.
PerOpEmitter = Callable[[OpSpec, str, CheckedKernel], dict[str, str]]
PER_OP_TARGETS: tuple[PerOpEmitter, ...] = (metadef.emit, tiling.emit, cann_op_host.emit,
                                             cann_op_proto.emit, cann_aclnn.emit,
                                             cann_op_desc.emit, op_api.emit)

# Per-op targets that depend on the configuration (the generated Python package's name).
PyOpEmitter = Callable[[OpSpec, CheckedKernel, Config], dict[str, str]]
PY_OP_TARGETS: tuple[PyOpEmitter, ...] = (python_pkg.emit_registration, torch_ops.emit,
                                          torch_npu.emit, tf_ops.emit, cann_tf_plugin.emit)

# Per-op targets that copy the kernel's source: (spec, checked kernel, the kernel file, every
# file it includes, absolute) -> {relative path: content}.
SourceOpEmitter = Callable[[OpSpec, CheckedKernel, Path, Sequence[str]], dict[str, str]]
SOURCE_OP_TARGETS: tuple[SourceOpEmitter, ...] = (cann_op_kernel.emit,)

# Package-level targets: (every op of the project, config) -> {relative path: content}.
PackageEmitter = Callable[[Sequence[OpRecord], Config], dict[str, str]]


def _index(ops: Sequence[OpRecord], config: Config) -> dict[str, str]:
    return metadef.emit_index([(o.op_name, o.op_type, o.spec_path) for o in ops])


PACKAGE_TARGETS: tuple[PackageEmitter, ...] = (_index, python_pkg.emit_package,
                                               cann_cmake.emit, host_policy.emit,
                                               torch_ops.emit_package, tf_ops.emit_package,
                                               op_api.emit_package)


def record(spec: OpSpec) -> OpRecord:
    ident = OpIdentity.of(spec)
    grad = ident.grad_loc
    at = spec.type_loc
    return OpRecord(spec.op_name, spec.op_type, spec.spec_path,
                    (spec.loc.path, spec.loc.line, spec.loc.col), ident.grad_op,
                    (grad.path, grad.line, grad.col) if grad else None, spec.socs,
                    type_loc=(at.path, at.line, at.col) if at else None)


Processed = tuple[list[OpRecord], dict[str, dict[str, str]], list[str]]


def process(path: Path, config: Config, sink: DiagnosticSink, parses: ParseCache,
            out_rel: str) -> Processed | None:
    """One spec file through the pipeline: its ops, their outputs, the files it read."""
    specs = load_spec_file(path, config, sink)
    if sink.has_errors:
        return None
    from opgen.fuse import write_kernel
    for spec in specs:
        if spec.fused_from:  # its kernel is the skeleton of the composed reference
            write_kernel(spec, path.parent)
    kernels = analyze(specs, config.root, sink, cache=parses)
    if sink.has_errors:
        return None
    records: list[OpRecord] = []
    outputs: dict[str, dict[str, str]] = {}
    deps: list[str] = []
    for spec in specs:
        files: dict[str, str] = {}
        for target in PER_OP_TARGETS:
            files.update(target(spec, out_rel, kernels[spec.op_name]))
        for py_target in PY_OP_TARGETS:
            files.update(py_target(spec, kernels[spec.op_name], config))
        main = str(kernel_path(spec, config.root).resolve())
        included = parses.dependencies.get(main, ())
        for source_target in SOURCE_OP_TARGETS:
            files.update(source_target(spec, kernels[spec.op_name], Path(main), included))
        records.append(record(spec))
        outputs[spec.op_name] = files
        deps.append(main)
        deps.extend(included)
        deps.extend(str(Path(p).resolve()) for p in spec.fused_from)
    return records, outputs, deps



def warm() -> None:
    """Before forking workers: what each of them would otherwise redo, done once (every
    template compiled, the host compiler's include dirs asked)."""
    from opgen.emit.common import environment
    from opgen.kernel_frontend import toolchain

    toolchain.parse_flags()
    env = environment()
    for name in env.list_templates(filter_func=lambda n: n.endswith(".j2")):
        if not name.startswith(("new/", "docs/", "skeleton/")):  # not generate's
            env.get_template(name)
