"""The driver: specs -> model -> kernel frontend -> emitters -> FileManager.

`opgen generate` calls `run`. Each spec file goes through the pipeline on its own (so its
diagnostics and outputs can be cached, see gencache); checks across specs and the
package-level outputs then use what every file produced.
"""

from __future__ import annotations

import ctypes
import functools
import json
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from opgen.diagnostics import DiagnosticSink, SourceLoc
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
from opgen.gencache import Entry, GenerateCache, OpRecord, record_outputs, stat_of
from opgen.kernel_frontend import CheckedKernel, ParseCache, analyze
from opgen.kernel_frontend.analyze import kernel_path
from opgen.model import OpSpec
from opgen.project import Config, OpIdentity, cross_check, discover, load_spec_file
from opgen.writer import FileManager, Plan, output_lock

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


@dataclass
class Result:
    ops: list[OpRecord]
    plan: Plan
    manager: FileManager


def _settings(config: Config) -> str:
    return json.dumps({"out": config.display(config.output_dir), "package": config.package,
                       "namespace": config.namespace})


def _record(spec: OpSpec) -> OpRecord:
    ident = OpIdentity.of(spec)
    grad = ident.grad_loc
    at = spec.type_loc
    return OpRecord(spec.op_name, spec.op_type, spec.spec_path,
                    (spec.loc.path, spec.loc.line, spec.loc.col), ident.grad_op,
                    (grad.path, grad.line, grad.col) if grad else None, spec.socs,
                    type_loc=(at.path, at.line, at.col) if at else None)


Processed = tuple[list[OpRecord], dict[str, dict[str, str]], list[str]]


def _process(path: Path, config: Config, sink: DiagnosticSink, parses: ParseCache,
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
        records.append(_record(spec))
        outputs[spec.op_name] = files
        deps.append(main)
        deps.extend(included)
        deps.extend(str(Path(p).resolve()) for p in spec.fused_from)
    return records, outputs, deps


def _work(path: Path, config: Config, out_rel: str,
          parses: ParseCache | None = None) -> tuple[DiagnosticSink, Processed | None]:
    sub = DiagnosticSink()
    return sub, _process(path, config, sub, parses or _worker_cache(), out_rel)


@functools.cache
def _worker_cache() -> ParseCache:
    return ParseCache()


def _die_with_parent(parent: int) -> None:
    """A pool worker's initializer. Linux: the kernel kills the worker when the process that
    started it ends, so a killed `opgen generate` leaves no worker behind."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before prctl took effect
        os._exit(1)


PARALLEL_THRESHOLD = 64  # below this, starting worker processes costs more than it saves


def _process_many(paths: Sequence[Path], config: Config, parses: ParseCache,
                  out_rel: str) -> list[tuple[DiagnosticSink, Processed | None]]:
    """Process spec files, over all cores when there are many (a cold run of a big project).
    Processes, not threads: validation and template rendering hold the GIL."""
    workers = min(os.cpu_count() or 1, 8)
    if len(paths) < PARALLEL_THRESHOLD or workers < 2:
        return [_work(p, config, out_rel, parses) for p in paths]
    chunk = max(1, len(paths) // (workers * 4))
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        return list(pool.map(functools.partial(_work, config=config, out_rel=out_rel), paths,
                             chunksize=chunk))


def run(config: Config, spec_paths: Sequence[Path], sink: DiagnosticSink, *,
        check: bool = False, cache: ParseCache | None = None,
        incremental: bool = True, force: bool = False) -> Result | None:
    """Validate and emit. Explicit spec paths regenerate only those ops (no package-level
    outputs, no pruning). `force` overwrites (and removes) generated files edited by hand.
    Writing holds the output dir's lock; check mode verifies outputs by their hashes."""
    full = not spec_paths
    paths = list(spec_paths) if spec_paths else discover(config.spec_dir)
    parses = cache or ParseCache()
    out_rel = config.display(config.output_dir)
    gcache = (GenerateCache(config.root, config.output_dir, _settings(config))
              if incremental else None)
    fm = FileManager(config.output_dir, prune=full, force=force, shown=out_rel)
    ops: list[OpRecord] = []
    fresh: list[tuple[OpRecord, dict[str, str]]] = []
    failed = False
    hits: dict[int, Entry] = {}
    contents: dict[int, bytes | None] = {}
    for i, path in enumerate(paths):
        try:
            contents[i] = path.resolve().read_bytes()
        except OSError:
            contents[i] = None
        content = contents[i]
        entry = (gcache.lookup(path.resolve(), content, config.output_dir, verify=check)
                 if gcache is not None and content is not None else None)
        if entry is not None:
            hits[i] = entry
    misses = [i for i in range(len(paths)) if i not in hits]

    done = dict(zip(misses, _process_many([paths[i] for i in misses], config, parses, out_rel),
                    strict=True))
    for i, path in enumerate(paths):
        if i in hits:
            entry = hits[i]
            sink.extend(entry.replay())
            ops.extend(entry.ops)
            continue
        sub, processed = done[i]
        sink.extend(sub.items)
        if processed is None:
            failed = True
            continue
        records, outputs, deps = processed
        fresh.extend((record, outputs[record.op_name]) for record in records)
        ops.extend(records)
        content = contents[i]
        if gcache is not None and content is not None:
            resolved = str(path.resolve())
            dep_stats = {d: st for d in sorted({resolved, *deps})
                         if (st := stat_of(Path(d))) is not None}
            gcache.store(path.resolve(), Entry(
                gcache.key(content), dep_stats, records,
                [(d.loc.path, d.loc.line, d.loc.col, d.severity.value, d.message)
                 for d in sub.items]))
    identities = [OpIdentity(o.op_name, o.source_loc, o.grad_op,
                             SourceLoc(*o.grad_loc) if o.grad_loc else None, o.op_type,
                             SourceLoc(*o.type_loc) if o.type_loc else None) for o in ops]
    duplicated = cross_check(identities, sink)
    if failed or sink.has_errors or duplicated:
        return None
    for entry in hits.values():
        for op in entry.ops:
            for rel in op.outputs:
                fm.keep(rel)
    for _record, files in fresh:
        for rel, text in files.items():
            fm.add(rel, text)
    if full:
        for target in PACKAGE_TARGETS:
            for rel, text in target(sorted(ops, key=lambda o: o.op_name), config).items():
                fm.add(rel, text)
    with output_lock(config.output_dir, create=not check, shown=out_rel):
        plan = fm.plan(with_diff=check)
        if not check:
            fm.commit(plan)
            for record, files in fresh:  # digests of the files as written (with their hash)
                record_outputs(record, {rel: fm.files[rel] for rel in files}, config.output_dir)
            if gcache is not None:
                gcache.save()
    return Result(ops, plan, fm)
